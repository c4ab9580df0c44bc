"""Initializers as Clang takes them, each checked on PoCL 3.1 and Oclgrind 21.10: a scalar in extra braces
(``float s = {{x}}``, Clang's warning for each extra pair) and an empty one (its error); a flexible array member
initialized (Clang's error for an automatic object; a ``__constant`` one may be, a GNU extension); messages about a
brace list placed at its ``{``, as Clang places them. Values through the public HAL on the simulator and, where
installed, on PoCL and Oclgrind."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import build_error, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.program import KernelCompileError

BRACES = r"""
struct P { int x; float y; };
struct F { int n; float v[]; };
__constant struct F table = {3, {0.5f, 1.5f, 2.5f}};
__constant struct F elided = {2, 4.0f, 8.0f};
struct C { char n; char s[]; };
__constant struct C name = {1, "abc"};

__kernel void braces(__global float* o)
{
    const int i = get_global_id(0);
    float s = {{2.5f}};
    int t = {{{3}}, 4};
    struct P p = {{i}, {{0.25f}}};
    struct F f = {i, {}};
    o[4 * i + 0] = s + t;
    o[4 * i + 1] = p.x + p.y;
    o[4 * i + 2] = table.v[i % table.n] + f.n;
    o[4 * i + 3] = sizeof(struct F) + elided.v[i % 2] + name.s[i % 4];
}
"""


def test_extra_braces_and_a_constant_flexible_array_member(device_ctx: wia.Context) -> None:
    n = 8
    (o,) = run_arrays(device_ctx, BRACES, "braces", [np.full((n, 4), -1, np.float32)], n, n)
    i = np.arange(n, dtype=np.float32)
    flexible = 4 + np.array([4.0, 8.0])[np.arange(n) % 2] + np.array([97, 98, 99, 0])[np.arange(n) % 4]
    expected = np.stack([np.full(n, 5.5), i + 0.25, np.array([0.5, 1.5, 2.5])[np.arange(n) % 3] + i, flexible], 1)
    np.testing.assert_array_equal(o, expected.astype(np.float32))


def test_the_warnings_for_extra_braces_are_clangs() -> None:
    program = compile_source(BRACES)
    assert program.build_log.splitlines() == [
        "kernel.cl:12:16: warning: too many braces around scalar initializer",
        "kernel.cl:13:14: warning: too many braces around scalar initializer",
        "kernel.cl:13:15: warning: too many braces around scalar initializer",
        "kernel.cl:13:21: warning: excess elements in scalar initializer",
        "kernel.cl:14:19: warning: braces around scalar initializer",
        "kernel.cl:14:25: warning: too many braces around scalar initializer",
    ]


FLEXIBLE = "struct F { int n; float v[]; };\n__kernel void k(__global float* o) { DECLARATION o[0] = 1.0f; }"


@pytest.mark.parametrize(
    ("declaration", "column"),
    [
        ("struct F f = {1, {2.0f, 3.0f}};", 55),
        ("struct F f = {.n = 1, .v = {2.0f}};", 65),
        ("struct F f = {1, 2.0f};", 55),
        ("float x = ((struct F){1, {2.0f}}).n;", 63),
    ],
    ids=["braced", "designated", "elided", "compound-literal"],
)  # (columns: Oclgrind 21.10's Clang)
def test_initializing_a_flexible_array_member_is_a_build_error(
    device_ctx: wia.Context, declaration: str, column: int
) -> None:
    refusal = build_error(device_ctx, FLEXIBLE.replace("DECLARATION", declaration), "k")
    assert "initialization of flexible array member is not allowed" in refusal
    if wia.get_backend().name == "sim":
        assert f"kernel.cl:2:{column}: error: initialization of flexible array member" in refusal


def test_an_empty_scalar_initializer_is_a_build_error(device_ctx: wia.Context) -> None:
    refusal = build_error(device_ctx, "__kernel void k(__global int* o) { int a = {}; o[0] = a; }", "k")
    assert "scalar initializer cannot be empty" in refusal
    if wia.get_backend().name == "sim":
        assert "kernel.cl:1:44: error" in refusal


def test_a_message_about_a_brace_list_points_at_its_brace() -> None:
    with pytest.raises(KernelCompileError) as info:
        compile_source("__kernel void k(__global int* o) { float4 v = {1.0f, 2.0f}; o[0] = v.x; }")
    assert info.value.build_log == (
        "kernel.cl:1:47: error: too few elements in vector initialization (expected 4 elements, have 2)"
    )
