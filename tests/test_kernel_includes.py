"""``#include`` (C99 6.10.2) and the ``-I`` build option (OpenCL 1.2 5.6.4.1), as Clang (PoCL 3.1, Oclgrind 21.10)
does them: a quoted name is looked for beside the including file (for the program's own source: the current
directory), then in each ``-I`` directory; an angled one in the ``-I`` directories only. Include guards,
``#pragma once``, a name a macro spells, ``__has_include`` and ``__INCLUDE_LEVEL__``; a file not found stops the
build. Diagnostics and findings inside an included file name that file and its line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia
from wia_sim.kernels import KernelFault, compile_source, run_kernel
from wia_sim.kernels.lanes import launch_geometry
from wia_sim.kernels.program import KernelCompileError, Program

UTIL = """#ifndef UTIL_H
#define UTIL_H
#include "detail.h"
float scaled(__global const float* p, int i) {
    return p[i] * SCALE + __INCLUDE_LEVEL__;
}
#endif
"""
DETAIL = "#pragma once\n#define SCALE 3.0f\nint detail_level(void) { return __INCLUDE_LEVEL__; }\n"


@pytest.fixture
def headers(tmp_path: Path) -> Path:
    """``lib/util.h`` (guarded, including ``detail.h`` beside it, which has ``#pragma once``) and ``top.h``."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "util.h").write_text(UTIL)
    (lib / "detail.h").write_text(DETAIL)
    (tmp_path / "top.h").write_text("#define TOP 7\n")
    return tmp_path


def test_included_files_run_on_every_device(
    device_ctx: wia.Context, headers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(headers)  # "top.h" from the current directory, the others through -I
    source = """#include "top.h"
#include <util.h>
#include "util.h"
#include "detail.h"
#define NAME "top.h"
#include NAME
#if __has_include("top.h") && __has_include(<util.h>) && !__has_include("missing.h") && defined(__has_include)
#define FOUND 1
#endif
__kernel void k(__global const float* a, __global float* out, __global int* ints) {
    int i = get_global_id(0);
    out[i] = scaled(a, i);
    if (i == 0) {
        ints[0] = TOP; ints[1] = FOUND; ints[2] = detail_level(); ints[3] = __INCLUDE_LEVEL__; ints[4] = __LINE__;
    }
}
"""
    a = np.random.default_rng(3).random(16, np.float32)
    _, out, ints = run_arrays(
        device_ctx, source, "k", [a, np.zeros(16, np.float32), np.zeros(5, np.int32)], 16, 8, options="-I lib"
    )
    np.testing.assert_array_equal(out, a * np.float32(3) + np.float32(1))  # util.h is one level deep
    assert ints.tolist() == [7, 1, 2, 0, 14]  # (detail.h: two levels; __LINE__ is the kernel file's own)


def test_the_includers_directory_comes_first(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.h").write_text('#include "y.h"\n')
    (tmp_path / "a" / "y.h").write_text("#define WHICH 1\n")
    (tmp_path / "b" / "y.h").write_text("#define WHICH 2\n")
    program = compile_source(
        '#include "x.h"\n__kernel void k(__global int* o) { o[0] = WHICH; }', f"-I {tmp_path / 'b'} -I{tmp_path / 'a'}"
    )
    assert "WHICH 1" not in program.preprocessed and program.kernel("k")
    out = np.zeros(1, np.int32)
    run_kernel(program, "k", [out.view(np.uint8)], launch_geometry((1, 1, 1), (1, 1, 1), 256, 1))
    assert out[0] == 1


def _log(source: str, options: str = "") -> str:
    with pytest.raises(KernelCompileError) as e:
        compile_source(source, options)
    return str(e.value)


def test_a_missing_file_stops_the_build(headers: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(headers)
    log = _log('#include "missing.h"\n__kernel void k(__global int* o) { o[0] = 1 + ; }')
    assert log.strip() == "kernel.cl:1:10: error: 'missing.h' file not found"  # (and nothing after it)
    log = _log("#include <top.h>\n")  # angled: not the current directory
    assert "kernel.cl:1:10: error: 'top.h' file not found with <angled> include; use \"quotes\" instead" in log
    assert "'#include expects \"FILENAME\" or <FILENAME>'" not in log
    assert '#include expects "FILENAME" or <FILENAME>' in _log("#include top.h\n")
    assert "argument to '-I' is missing" in _log("__kernel void k(__global int* o) { }", "-I")


def test_a_file_that_includes_itself_nests_too_deeply(tmp_path: Path) -> None:
    (tmp_path / "self.h").write_text('#include "self.h"\n')
    assert "#include nested too deeply" in _log('#include "self.h"\n', f"-I {tmp_path}")


def test_diagnostics_name_the_included_file_and_its_line(headers: Path) -> None:
    (headers / "bad.h").write_text("int ok(void) { return 1; }\nint broken(int x) {\n    return x + ;\n}\n")
    log = _log(f'#include "{headers / "bad.h"}"\n\n__kernel void k(__global int* o) {{ o[0] = nope; }}\n')
    assert f"{headers / 'bad.h'}:3:" in log  # the header's own line
    assert "kernel.cl:3:" in log and "'nope'" in log  # and the kernel's own, after it


def test_the_log_says_through_which_includes_a_diagnostic_was_reached(headers: Path) -> None:
    """Clang's "In file included from" notes, outermost first, once for consecutive diagnostics reached the same
    way (Oclgrind 21.10's log: ``In file included from input.cl:1:`` / ``In file included from ./mid.h:1:`` /
    ``./util.h:2:16: error: ...``)."""
    (headers / "util2.h").write_text("int helper(int x) {\n    return x + nope;\n}\nint more(void) { return nix; }\n")
    (headers / "mid.h").write_text('#include "util2.h"\n#warning from mid\n')
    log = _log('#include "mid.h"\n__kernel void k(__global int* o) { o[0] = helper(1) + gone; }\n', f"-I {headers}")
    mid, util = headers / "mid.h", headers / "util2.h"
    assert log.splitlines() == [
        "In file included from kernel.cl:1:",
        f"{mid}:2:2: warning: from mid",
        "In file included from kernel.cl:1:",
        f"In file included from {mid}:1:",
        f"{util}:2:16: error: use of undeclared identifier 'nope'",
        "kernel.cl:2:55: error: use of undeclared identifier 'gone'",
        "In file included from kernel.cl:1:",
        f"In file included from {mid}:1:",
        f"{util}:4:25: error: use of undeclared identifier 'nix'",
    ]


def test_findings_in_an_included_function_name_its_file(headers: Path) -> None:
    source = '#include "util.h"\n__kernel void k(__global const float* a, __global float* o) {\n'
    source += "    int i = get_global_id(0);\n    o[i] = scaled(a, i + 1);\n}\n"
    program = compile_source(source, f"-I {headers / 'lib'}")
    a, o = np.ones(8, np.float32), np.zeros(8, np.float32)
    with pytest.raises(KernelFault) as e:
        run_kernel(program, "k", [a.view(np.uint8), o.view(np.uint8)], launch_geometry((8, 1, 1), (8, 1, 1), 256, 1))
    fault = e.value
    header = str(headers / "lib" / "util.h")
    assert (fault.check, fault.file, fault.line) == ("out_of_bounds_global", header, 5)
    assert (
        str(fault).startswith(f"{header}:5: out-of-bounds read")
        and fault.source_line == "return p[i] * SCALE + __INCLUDE_LEVEL__;"
    )


def test_lines_a_message_names_are_the_users_own(headers: Path) -> None:
    """A line named inside a message (where an uninitialized value was read) is the user's file and line, as the
    finding's own place is: the program's line was past the included lines (found by the hashcat sweep: "at line
    48" of a 9-line kernel); a build error's place, after an include, is the user's line too."""
    source = '#include "util.h"\n__kernel void k(__global int* o) {\n    int ks[8];\n'
    source += "    for (int i = 0; i < 7; i++) ks[i] = i;\n    const int t = ks[7];\n    o[get_global_id(0)] = t;\n}\n"
    program = compile_source(source, f"-I {headers / 'lib'}")
    with pytest.raises(KernelFault) as e:
        run_kernel(program, "k", [np.zeros(4, np.int32).view(np.uint8)], launch_geometry((4, 1, 1), (4, 1, 1), 256, 1))
    assert "read of uninitialized __private array 'ks' (4 bytes at offset 28) at line 5," in str(e.value)
    assert e.value.line == 6
    switch = '#include "util.h"\n__kernel void k(__global int* o) {\n    switch (o[0]) {\n    case 1: break;\n'
    switch += "    case 1: break;\n    }\n}\n"
    with pytest.raises(KernelCompileError) as info:
        compile_source(switch, f"-I {headers / 'lib'}")
    assert "kernel.cl:5:10: error: duplicate case value '1'" in str(info.value)


def test_a_program_built_again_is_reused_while_its_inputs_hold(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The HAL builds a program once per kernel created from it; a build of the same source and options (from the
    same directory) gives the program built before, unless a file it included changed, a file now stands where
    its search found none (one shadowing the header it used), or it expanded ``__DATE__``/``__TIME__``."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (second / "k.h").write_text("#define K 2\n")
    monkeypatch.chdir(tmp_path)
    source = '#include "k.h"\n__kernel void k(__global int* o) { o[0] = K; }'
    options = "-I first -I second"

    def build(src: str = source, reuse: bool = True) -> Program:
        return compile_source(src, options, reuse=reuse)

    program = build()
    assert build() is program
    assert build(reuse=False) is not program  # (a test of the executor's paths: a program of its own)
    (second / "k.h").write_text("#define K 3\n")  # the header changed
    changed = build()
    assert changed is not program and build() is changed
    (first / "k.h").write_text("#define K 4\n")  # a header now found before the one it read
    shadowed = build()
    assert shadowed is not changed and build() is shadowed
    assert "4" in shadowed.preprocessed.split("o[0] = ")[1][:3]
    timed = source.replace("o[0] = K;", "o[0] = sizeof(__TIME__);")
    assert build(timed) is not build(timed)
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")  # the same options from elsewhere: other directories, no k.h
    with pytest.raises(KernelCompileError):
        build()
