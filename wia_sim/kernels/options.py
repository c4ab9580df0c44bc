"""OpenCL build options (``clBuildProgram``'s string): which the simulator takes and what they define."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Literal

from wia_sim.kernels.diagnostics import COMMAND_LINE, Diagnostic

__all__ = ["CL_OPTIONS", "FLOAT_EXTENSIONS", "BuildOptions", "parse_build_options", "warnings_as"]


CL_OPTIONS = frozenset(
    {
        # OpenCL 1.2 5.6.4.2-4 (math intrinsics and optimizations: the simulator computes as without them)
        "-cl-single-precision-constant",
        "-cl-denorms-are-zero",
        "-cl-fp32-correctly-rounded-divide-sqrt",
        "-cl-opt-disable",
        "-cl-mad-enable",
        "-cl-no-signed-zeros",
        "-cl-unsafe-math-optimizations",
        "-cl-finite-math-only",
        "-cl-fast-relaxed-math",
        "-cl-kernel-arg-info",  # 5.6.4.7
        "-cl-strict-aliasing",  # (OpenCL 1.0's, deprecated by 1.1 and still taken, Appendix F; a hint)
        "-cl-uniform-work-group-size",  # (OpenCL 2.0; what 1.2 requires anyway)
        "-cl-std=CL1.1",  # 5.6.4.6: the OpenCL C versions a 1.2 device takes
        "-cl-std=CL1.2",
    }
)
"""The ``-cl-`` options the simulator takes (and ignores, but for ``-cl-std``, ``BuildOptions.c_version``, and
``-cl-single-precision-constant``, ``BuildOptions.single_constants``): another
one, a misspelt one or ``-cl-std=CL2.0`` is refused, as a 1.2 device refuses it (``CL_INVALID_BUILD_OPTIONS``)."""


_VERSIONS = {"-cl-std=CL1.1": 110, "-cl-std=CL1.2": 120}


@dataclass
class BuildOptions:
    """What OpenCL build options ask of the preprocessor (5.6.4.1): ``-D`` definitions (``(name, value)``, value
    ``"1"`` when none is given) and ``-I`` directories, in order; and diagnostics for options not supported."""

    defines: list[tuple[str, str]] = field(default_factory=list)
    include_dirs: list[str] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    c_version: int = 120
    """The OpenCL C version ``-cl-std`` asks for (5.6.4.6: 110 or 120; the last one given counts, as in Clang),
    ``__OPENCL_C_VERSION__``: 1.1 has no ``static``/``extern`` and no ``printf``/``popcount``."""
    single_constants: bool = False
    """``-cl-single-precision-constant`` (5.6.4.3): an unsuffixed floating constant is a ``float`` (as Clang makes
    it: the double constant cast to single precision), where it is a ``double`` on a device with doubles."""


def parse_build_options(options: str) -> BuildOptions:
    """Split OpenCL build options (``clBuildProgram``'s string) into ``BuildOptions``. The ``CL_OPTIONS`` are
    accepted and ignored."""
    parsed = BuildOptions()
    diagnostics, defines = parsed.diagnostics, parsed.defines

    def error(message: str) -> None:
        diagnostics.append(Diagnostic(COMMAND_LINE, None, None, message))

    try:
        words = shlex.split(options)
    except ValueError as e:
        error(f"malformed build options: {e}")
        return parsed
    k = 0
    while k < len(words):
        word = words[k]
        k += 1
        if word == "-D":
            if k >= len(words):
                error("macro name missing after '-D'")
                break
            spec = words[k]
            k += 1
        elif word.startswith("-D"):
            spec = word[2:]
        elif word in _VERSIONS:
            parsed.c_version = _VERSIONS[word]
            continue
        elif word == "-cl-single-precision-constant":
            parsed.single_constants = True
            continue
        elif word in CL_OPTIONS or word in ("-w", "-Werror"):  # -w, -Werror: ``warnings_as`` (5.6.4.5)
            continue
        elif word.startswith("-cl-std="):
            error(f"build option '{word}': the simulator compiles OpenCL C 1.2 (-cl-std=CL1.1 or -cl-std=CL1.2)")
            continue
        elif word.startswith("-I"):  # a directory #include searches (Clang's rule: one that is missing is skipped)
            if word == "-I" and k >= len(words):
                error("argument to '-I' is missing (expected 1 value)")
                break
            parsed.include_dirs.append(word[2:] if word != "-I" else words[k])
            k += word == "-I"
            continue
        else:
            error(f"unsupported build option '{word}'")
            continue
        name, eq, value = spec.partition("=")
        defines.append((name, value if eq else "1"))
    return parsed


FLOAT_EXTENSIONS = frozenset({"cl_khr_fp64", "cl_khr_fp16"})
"""The optional floating-point extensions of OpenCL C 1.2 (9.3, 9.4): ``double`` and ``half`` arithmetic."""


def warnings_as(options: str) -> Literal["warning", "error", None]:
    """What the build options make of warnings (OpenCL 1.2 5.6.4.5): ``-w`` drops them (None), ``-Werror`` makes
    them errors; ``-w`` wins, in any order, as in Clang (a warning ignored is never promoted)."""
    try:
        words = set(shlex.split(options))
    except ValueError:
        return "warning"
    return None if "-w" in words else "error" if "-Werror" in words else "warning"
