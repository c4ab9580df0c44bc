"""``-cl-std=CL1.1`` as Clang (PoCL 3.1, Oclgrind 21.10) compiles it: ``__OPENCL_C_VERSION__`` is 110, the
``static`` and ``extern`` storage classes are refused (1.2 added them, 6.8), and the built-ins 1.2 added (``printf``,
``popcount``) are not declared, so a program may define its own. ``auto`` and ``register`` are refused in every
version. On every backend, one expected answer; the simulator's messages at Clang's line and column."""

from __future__ import annotations

import re

import numpy as np
import pytest
from kernel_backends import build_error, run_arrays

import wia_hal as wia
from wia_sim.kernels import KernelCompileError, compile_source, preprocess
from wia_sim.kernels.options import CL_OPTIONS


def _ints(ctx: wia.Context, source: str, options: str = "") -> list[int]:
    (out,) = run_arrays(ctx, source, "k", [np.full(4, -7, np.int32)], 4, 4, options=options)
    return [int(v) for v in out]


VERSION = "__kernel void k(__global int* out) { out[get_global_id(0)] = __OPENCL_C_VERSION__; }"


@pytest.mark.parametrize(("options", "version"), [("-cl-std=CL1.1", 110), ("-cl-std=CL1.2", 120)])
def test_the_c_version_macro_follows_cl_std(device_ctx: wia.Context, options: str, version: int) -> None:
    assert _ints(device_ctx, VERSION, options) == [version] * 4


def test_the_last_cl_std_counts() -> None:
    """As Clang takes a repeated option (Oclgrind 21.10 agrees; PoCL 3.1 takes the first)."""
    for options, version in (("-cl-std=CL1.1 -cl-std=CL1.2", "120"), ("-cl-std=CL1.2 -cl-std=CL1.1", "110")):
        assert preprocess("int v = __OPENCL_C_VERSION__;", options).text == f"int v = {version};"


@pytest.mark.parametrize(
    ("source", "keyword", "line", "column"),
    [
        ("static int f(int x) { return x + 1; }\n__kernel void k(__global int* o) { o[0] = f(1); }", "static", 1, 1),
        ("__constant static int T[2] = {4, 5};\n__kernel void k(__global int* o) { o[0] = T[1]; }", "static", 1, 12),
        (
            "extern int f(int x);\nint f(int x) { return x; }\n__kernel void k(__global int* o) { o[0] = f(1); }",
            "extern",
            1,
            1,
        ),
        ("__kernel void k(__global int* o) {\n  static __constant int z = 3; o[0] = z; }", "static", 2, 3),
    ],
    ids=["function", "program-scope-constant", "extern-prototype", "function-scope"],
)
def test_static_and_extern_are_refused_before_1_2(
    device_ctx: wia.Context, source: str, keyword: str, line: int, column: int
) -> None:
    refusal = build_error(device_ctx, source, "k", options="-cl-std=CL1.1")
    message = f"OpenCL C version 1.1 does not support the '{keyword}' storage class specifier"
    assert message in refusal
    assert f":{line}:{column}" in refusal  # (the keyword's place)


def test_static_functions_and_constants_build_under_1_2(device_ctx: wia.Context) -> None:
    source = (
        "static __constant int T[2] = {4, 5};\nstatic int f(int x) { return x + T[1]; }\n"
        "__kernel void k(__global int* out) { out[get_global_id(0)] = f(get_global_id(0)); }"
    )
    assert _ints(device_ctx, source, "-cl-std=CL1.2") == [5, 6, 7, 8]


@pytest.mark.parametrize("keyword", ["register", "auto"])
@pytest.mark.parametrize("options", ["", "-cl-std=CL1.1"])
def test_register_and_auto_are_refused_in_every_version(device_ctx: wia.Context, keyword: str, options: str) -> None:
    source = f"__kernel void k(__global int* o) {{\n  {keyword} int r = 2; o[0] = r; }}"
    refusal = build_error(device_ctx, source, "k", options=options)
    # (PoCL 3.1 names its own OpenCL C version, 3.0, where 1.2 is asked for by default)
    assert re.search(rf"OpenCL C version \d\.\d does not support the '{keyword}' storage class specifier", refusal)
    assert ":2:3" in refusal


def test_one_refused_keyword_is_reported_once() -> None:
    with pytest.raises(KernelCompileError) as info:
        compile_source("__kernel void k(__global int* o) { register int a = 1, b = 2; o[0] = a + b; }")
    assert info.value.build_log == (
        "kernel.cl:1:36: error: OpenCL C version 1.2 does not support the 'register' storage class specifier"
    )


@pytest.mark.parametrize(
    "call", ['printf("%d", 1)', "popcount(3)", "popcount((int2)(1, 3)).y"], ids=["printf", "popcount", "vector"]
)
def test_the_built_ins_1_2_added_are_undeclared_under_1_1(device_ctx: wia.Context, call: str) -> None:
    source = f"__kernel void k(__global int* o) {{ o[0] = {call}; }}"
    refusal = build_error(device_ctx, source, "k", options="-cl-std=CL1.1")
    name = call.split("(")[0]
    # (PoCL 3.1 names its internal name, '_cl_popcount')
    said = rf"(undeclared (function|identifier)|implicit declaration of function) '\w*{name}'"
    assert re.search(said, refusal)
    wia.compile_kernel(device_ctx, source, "k", options="-cl-std=CL1.2")  # (under 1.2 it builds)


def test_a_program_may_define_popcount_under_1_1(device_ctx: wia.Context) -> None:
    source = (
        "int popcount(int x) { return 10 * x; }\n"
        "__kernel void k(__global int* out) { out[get_global_id(0)] = popcount(get_global_id(0) + 1); }"
    )
    assert _ints(device_ctx, source, "-cl-std=CL1.1") == [10, 20, 30, 40]
    build_error(device_ctx, source, "k", options="-cl-std=CL1.2")  # under 1.2, the built-in's name is taken


@pytest.mark.parametrize("option", sorted(CL_OPTIONS | {"-cl-strict-aliasing"}))
def test_every_build_option_the_simulator_takes_builds_everywhere(device_ctx: wia.Context, option: str) -> None:
    """OpenCL 1.2 5.6.4's options, and 1.0's ``-cl-strict-aliasing``, deprecated in 1.1 but still taken (Appendix
    F; found by the CTS sweep, compiler/test_build_options: the simulator refused it)."""
    assert _ints(device_ctx, "__kernel void k(__global int* o) { o[get_global_id(0)] = 7; }", option) == [7] * 4
