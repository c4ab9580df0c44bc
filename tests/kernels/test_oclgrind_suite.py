"""Oclgrind's own kernel tests (``tests/kernels`` of an Oclgrind checkout: kernels that others wrote, each with its
inputs and its expected output and error reports) run through the public HAL on the sim backend, as a user's program
would run them.

Set ``WIA_OCLGRIND_TESTS`` to that directory (the one holding ``TESTS``); without it the module is skipped (the
tests are Oclgrind's, BSD-licensed, and not copied here). Each test is a ``.sim`` file (oclgrind-kernel's input:
the program file, the kernel, the NDRange and work-group size, then one ``<...>`` header per argument with its
data: ``size=``, a type, ``fill=``, ``range=START:INC:END``, ``hex``, ``null``, ``dump``, ``ro``/``wo`` for the
buffer's access, ``noinit`` for a buffer the host creates without data) and a ``.ref`` file: ``ERROR <text>`` lines
(the reports expected, in order) and ``EXACT``/``MATCH`` lines of the dumped buffers (``Argument 'x': N bytes``, then
``  x[i] = value``, as oclgrind-kernel prints them).

What is compared:

- a test with ``ERROR`` lines: the first error the simulator reports is of the class of the first expected one
  (``REPORTS``: Oclgrind's words and the simulator's for the same check). Oclgrind reports every error and runs on;
  the simulator stops the launch at its first finding (``InvalidMemoryError``, ``InvalidKernelError``), except for
  its lower-severity ones, which it reports as a ``KernelFindingWarning`` and runs on (an index past a struct's
  array member that stays inside the struct: Oclgrind's "exceeds static array size"). The buffers are not compared:
  after a stop they hold what the launch wrote until then.
- a test without: the launch raises nothing (a lower-severity warning is allowed: Oclgrind leaves uniform writes
  out by default), and every dumped buffer matches the reference line by line.

A test that uses what the simulator does not implement is a strict expected failure with the reason
(``DIFFERENCES``). The tests that expect no error run on PoCL as well (the OpenCL backend, where PoCL is installed):
the real CPU runtime's results beside the simulator's, its own differences listed (``POCL_DIFFERENCES``).
"""

from __future__ import annotations

import os
import re
import shlex
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest
from kernel_backends import context_on

import wia_hal as wia
from wia_sim.kernels.ctype import SCALARS

SUITE = Path(os.environ.get("WIA_OCLGRIND_TESTS", ""))
if not os.environ.get("WIA_OCLGRIND_TESTS") or not (SUITE / "TESTS").is_file():
    pytest.skip(
        "WIA_OCLGRIND_TESTS is not set to an Oclgrind checkout's tests/kernels directory", allow_module_level=True
    )

TYPES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double")
"""The element types a header may name (oclgrind-kernel's)."""

REPORTS: list[tuple[str, str]] = [
    # (Oclgrind's message, the simulator's for the same check): an address outside every buffer is NULL's
    (r"Invalid (read|write) of size \d+ at global memory", r"out-of-bounds .* __(global|constant)|through a NULL"),
    (r"Invalid (read|write) of size \d+ at local memory", r"out-of-bounds .* __local"),
    (r"Invalid (read|write) of size \d+ at private memory", r"out-of-bounds .* __private"),
    (r"exceeds static array size", r"out-of-bounds (read|write) at index -?\d+ of"),
    (r"data race at global memory", r"data race: .* of __global"),
    (r"data race at local memory", r"data race: .* of __local"),
    (r"Work-group divergence detected \(barrier\)", r"barrier reached by|wait_group_events with events that differ"),
    (r"Work-group divergence detected \(async copy\)", r"divergence in 'async_work|'async_work_group_\w+' reached by"),
    (r"[Uu]ninitialized (value|address)", r"uninitialized"),
    (r"to read-only", r"write to read-only"),
    (r"from write-only", r"read of write-only"),
    (r"not aligned", r"misaligned"),
    (r"finished without waiting for events", r"without waiting for the event"),
    (r"Invalid wait event", r"wait_group_events for .* no async copy"),
]

DIFFERENCES: dict[str, str] = {
    "misc/global_variables": "program-scope __global variables are OpenCL C 2.0 (-cl-std=CL2.0): the simulator "
    "compiles OpenCL C 1.2",
    "misc/non_uniform_work_groups": "non-uniform work-groups and get_enqueued_local_size are OpenCL 2.0 "
    "(-cl-std=CL2.0): the simulator compiles OpenCL C 1.2",
}

POCL_DIFFERENCES: dict[str, str] = {
    "misc/non_uniform_work_groups": "the HAL takes OpenCL 1.2's rule: a global size must be a multiple of the local "
    "size, on every backend",
    "uninitialized/padded_struct_memcpy_fp": "the struct's padding is copied from __local bytes nobody wrote, whose "
    "value is unspecified: PoCL's hold whatever was left there (zeros in some runs), Oclgrind's and the simulator's "
    "zeros",
}
UNSPECIFIED = {"uninitialized/padded_struct_memcpy_fp"}
"""Known differences that depend on what a device's memory held before: expected failures that may pass."""


@dataclass
class Argument:
    """One ``<...>`` header of a ``.sim`` file and the values after it."""

    tokens: list[str]
    values: list[str] = field(default_factory=list)

    def flag(self, name: str) -> bool:
        return name in self.tokens

    def setting(self, name: str) -> str | None:
        return next((t.split("=", 1)[1] for t in self.tokens if t.startswith(name + "=")), None)


@dataclass
class SimFile:
    """An oclgrind-kernel input: the program, the kernel, the launch's sizes, the arguments, the build options."""

    program: Path
    kernel: str
    global_size: tuple[int, ...]
    local_size: tuple[int, ...]
    arguments: list[Argument]
    options: str


def read_sim(path: Path) -> SimFile:
    """Parse a ``.sim`` file: whitespace-separated values across lines, ``#`` starting a comment, the first line's
    ``# ARGS:`` giving oclgrind-kernel options (of which ``--build-options`` matters here)."""
    text = path.read_text()
    first = text.splitlines()[0] if text else ""
    args = shlex.split(first[len("# ARGS:") :]) if first.startswith("# ARGS:") else []
    options = args[args.index("--build-options") + 1] if "--build-options" in args else ""
    words: list[str] = []
    arguments: list[Argument] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        while line.strip():
            line = line.strip()
            if line.startswith("<"):  # a header runs to the line's last '>'
                end = line.rindex(">")
                arguments.append(Argument(line[1:end].split()))
                line = line[end + 1 :]
                continue
            word, *rest = line.split(None, 1)  # (any whitespace between values, as a C++ stream reads them)
            line = rest[0] if rest else ""
            (arguments[-1].values if arguments else words).append(word)
    sizes = [int(w) for w in words[2:8]]
    return SimFile(path.parent / words[0], words[1], tuple(sizes[:3]), tuple(sizes[3:]), arguments, options)


def _number(text: str, dtype: type, hexa: bool) -> int | float:
    if np.dtype(dtype).kind == "f":
        return float(text)
    return int(text, 16 if hexa else 10)


def _data(arg: Argument, dtype: type, size: int) -> np.ndarray | None:
    """The argument's initial elements (None for ``noinit``)."""
    n = size // np.dtype(dtype).itemsize
    hexa = arg.flag("hex")
    fill, span = arg.setting("fill"), arg.setting("range")
    if fill is not None:
        return np.full(n, _number(fill, dtype, hexa), dtype)
    if span is not None:
        start, step, _ = (_number(part, dtype, hexa) for part in span.split(":"))
        return np.array([start + k * step for k in range(n)]).astype(dtype)
    if arg.flag("noinit"):
        return None
    return np.array([_number(v, dtype, hexa) for v in arg.values[:n]]).astype(dtype)


def _dumped(name: str, values: np.ndarray, hexa: bool) -> list[str]:
    """oclgrind-kernel's dump of a buffer: C++ stream formatting (6 significant digits for floats, chars as ints,
    zero-padded hex with ``hex``)."""
    lines = [f"Argument '{name}': {values.nbytes} bytes"]
    for k, x in enumerate(values):
        if hexa:
            text = f"0x{int(x) & ((1 << 8 * values.itemsize) - 1):0{2 * values.itemsize}x}"
        elif values.dtype.kind == "f":
            text = f"{x:.6g}"
        else:
            text = str(int(x))
        lines.append(f"  {name}[{k}] = {text}")
    return lines


@dataclass
class Outcome:
    error: wia.WiaError | None
    warned: list[str]
    dumps: list[str]


def run_test(sim: SimFile, ctx: wia.Context) -> Outcome:
    """Build and launch the test's kernel through the HAL, as oclgrind-kernel would; the buffers it dumps."""
    source = sim.program.read_text()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", wia.KernelBuildWarning)
        kernel = wia.compile_kernel(ctx, source, sim.kernel, sim.options)
    params = kernel.signature.params
    values: list[object] = []
    dumped: list[tuple[str, wia.Memory, type, bool]] = []
    for param, arg in zip(params, sim.arguments, strict=True):
        size = int(arg.setting("size") or 0)
        given = next((SCALARS[t].dtype.type for t in arg.tokens if t in TYPES), None)
        dtype = given or (np.uint8 if param.dtype is None else param.dtype.type)  # (oclgrind-kernel: the param's)
        if param.kind == "local":
            values.append(size)
        elif arg.flag("null"):
            values.append(None)
        elif param.kind == "buffer":
            access = wia.MemoryAccess.READ_WRITE
            if arg.flag("ro"):
                access = wia.MemoryAccess.READ_ONLY
            elif arg.flag("wo"):
                access = wia.MemoryAccess.WRITE_ONLY
            memory = wia.alloc(ctx, max(size, 1), access=access)
            data = _data(arg, dtype, size)
            if data is not None and size:
                staging = wia.alloc(ctx, size, wia.MemoryType.HOST)
                wia.memory_ptr(staging)[:] = data.view(np.uint8)
                wia.copy_async(staging, memory, size)
            values.append(memory)
            if arg.flag("dump"):
                dumped.append((param.name, memory, dtype, arg.flag("hex")))
        else:
            data = _data(arg, dtype, size)
            assert data is not None
            values.append(data if param.nbytes is not None or data.size > 1 else data[0])
    wia.context_synchronize(ctx)
    config = wia.LaunchConfig(global_size=sim.global_size, local_size=sim.local_size)
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", wia.KernelFindingWarning)
        try:
            wia.launch_kernel(kernel, config, *values)
            wia.context_synchronize(ctx)
        except wia.WiaError as e:
            error = e
    dumps: list[str] = []
    for name, memory, dtype, hexa in dumped:
        host = wia.alloc(ctx, memory.size, wia.MemoryType.HOST)
        wia.copy_async(memory, host, memory.size)
        wia.context_synchronize(ctx)
        dumps += _dumped(name, np.array(wia.memory_ptr(host)).view(dtype), hexa)
    warned = [str(w.message) for w in caught if issubclass(w.category, wia.KernelFindingWarning)]
    return Outcome(error, warned, dumps)


def expected(ref: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """The ``.ref`` file's expected reports (``ERROR`` text) and dump lines (``EXACT`` or ``MATCH``, text)."""
    errors: list[str] = []
    lines: list[tuple[str, str]] = []
    for line in ref.read_text().splitlines() if ref.is_file() else []:
        kind, text = line[:5], line[6:]
        if kind == "ERROR":
            errors.append(text)
        elif kind in ("EXACT", "MATCH"):
            lines.append((kind, text))
    return errors, lines


def same_class(oclgrind: str, ours: str) -> bool:
    """Whether the simulator's report ``ours`` is of the class of Oclgrind's ``oclgrind``."""
    return any(re.search(theirs, oclgrind) and re.search(mine, ours) for theirs, mine in REPORTS)


TESTS = [t.strip() for t in (SUITE / "TESTS").read_text().splitlines() if t.strip()]


@pytest.mark.parametrize("backend", ["sim", "pocl"])
@pytest.mark.parametrize("test", TESTS)
def test_oclgrind_kernel_test(
    test: str,
    backend: str,
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    sim = read_sim(SUITE / f"{test}.sim")
    errors, lines = expected(SUITE / f"{test}.ref")
    if backend != "sim" and errors:
        pytest.skip("PoCL checks nothing: the tests that expect errors are the simulator's")
    known = (DIFFERENCES if backend == "sim" else POCL_DIFFERENCES).get(test)
    if known is not None:
        request.applymarker(pytest.mark.xfail(strict=test not in UNSPECIFIED, reason=known))
    with context_on(backend, monkeypatch, tmp_path_factory) as ctx:
        outcome = run_test(sim, ctx)
    if errors:
        reported = str(outcome.error) if outcome.error is not None else " ".join(outcome.warned[:1])
        assert reported, f"{test}: expected {errors[0]!r}, the simulator reported nothing"
        assert same_class(errors[0], reported), f"{test}: expected {errors[0]!r}, the simulator reported {reported!r}"
        return
    assert outcome.error is None, f"{test}: no error expected, {backend} reported {outcome.error}"
    for k, (kind, text) in enumerate(lines):
        got = outcome.dumps[k] if k < len(outcome.dumps) else "(nothing)"
        assert (text == got) if kind == "EXACT" else (text in got), f"{test} on {backend}, line {k}: {text!r}, {got!r}"
