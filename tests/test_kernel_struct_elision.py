"""Brace elision into structs and excess initializers (C99 6.7.8p17-22, as Clang reads them in OpenCL C): a struct
element or member without braces takes its members' items in order (``P a[2] = {1, 2, 3, 4}``), a vector member
takes one scalar as a splat, an expression of the struct type initializes it whole, a designator starts its object
at its value (``{.p = 21, 22, 23}``), and items past the end are dropped with Clang's warning "excess elements in
... initializer" (not an error). The simulator refused several of these (``P a[2] = {1, 2, 3, 4}``, ``R ra[] =
{1, 2, ...}``, ``float f = {x, 2}``) and stopped at run time on others. Each value is checked on the simulator and,
where installed, on PoCL and Oclgrind against the C rules, and the build log against Clang's (PoCL 3.1's)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia
from wia_sim.kernels.frontend import KernelCompileError, compile_source

SOURCE = r"""
typedef struct { float4 v; int n; } P;
typedef struct { int a[2]; int b; } R;
typedef struct { P p; int m; } S2;
typedef union { int i; float f; } U;

__kernel void elision(__global const float* x, __global float* out)
{
    const int i = get_global_id(0);
    const float y = x[i];
    P pa[2] = {1, 2, y, 4, 5};
    R r = {1, 2, 3, 4};
    R r2 = {{7}, 8, 9};
    S2 s = {y, 2, 3};
    P p0 = {y, 11};
    S2 s2 = {p0, 12, 13};
    R ra[] = {1, 2, 3, 4, 5, 6};
    int ia[2] = {1, 2, 3};
    int im[2][2] = {1, 2, 3, 4, 5};
    float f = {y, 2.0f};
    U u = {5, 6};
    S2 s3 = {.p = 21, y, 23};
    __global float* o = out + 24 * i;
    o[0] = pa[0].v.y; o[1] = pa[0].n; o[2] = pa[1].v.w; o[3] = pa[1].n;
    o[4] = r.a[1]; o[5] = r.b; o[6] = r2.a[1]; o[7] = r2.b;
    o[8] = s.p.v.z; o[9] = s.p.n; o[10] = s.m; o[11] = s2.p.n;
    o[12] = s2.m + s2.p.v.x; o[13] = ra[1].a[0]; o[14] = ra[1].b; o[15] = (float)(sizeof(ra) / sizeof(R));
    o[16] = ia[1]; o[17] = im[1][1]; o[18] = f; o[19] = u.i;
    o[20] = s3.p.v.x; o[21] = s3.p.n; o[22] = s3.m; o[23] = s3.p.v.w;
}
"""

WARNINGS = [  # PoCL 3.1's Clang, line:column and message, for SOURCE
    "11:28: warning: excess elements in array initializer",
    "12:21: warning: excess elements in struct initializer",
    "13:21: warning: excess elements in struct initializer",
    "16:22: warning: excess elements in struct initializer",
    "18:24: warning: excess elements in array initializer",
    "19:33: warning: excess elements in array initializer",
    "20:19: warning: excess elements in scalar initializer",
    "21:15: warning: excess elements in union initializer",
]


def reference(y: np.ndarray) -> np.ndarray:
    """What each work-item writes, by the rules in the module docstring (float64)."""
    n = y.size
    cols = {
        0: 1, 1: 2, 2: y, 3: 4,  # pa = {{splat 1, 2}, {splat y, 4}}, 5 dropped
        4: 2, 5: 3, 6: 0, 7: 8,  # r = {{1, 2}, 3}; r2 = {{7, 0}, 8}
        8: y, 9: 2, 10: 3, 11: 11,  # s = {{splat y, 2}, 3}; p0 = {splat y, 11}
        12: 12 + y, 13: 4, 14: 6, 15: 2,  # s2 = {p0, 12}; ra = {{{1, 2}, 3}, {{4, 5}, 6}}
        16: 2, 17: 4, 18: y, 19: 5,  # ia = {1, 2}; im = {{1, 2}, {3, 4}}; f = y; u.i = 5
        20: 21, 21: y, 22: 23, 23: 21,  # s3 = {{splat 21, (int)y}, 23}
    }  # fmt: skip
    out = np.empty((n, 24))
    for k, v in cols.items():
        out[:, k] = v
    out[:, 21] = np.trunc(y)  # the int member n takes (int)y
    return out.reshape(-1)


def test_struct_elision_and_excess_items_give_clangs_values(device_ctx: wia.Context) -> None:
    n = 16
    y = np.random.default_rng(1206).uniform(-40.0, 40.0, n).astype(np.float32)
    out = np.full(24 * n, np.nan, np.float32)
    _, got = run_arrays(device_ctx, SOURCE, "elision", [y, out], n, 8)
    np.testing.assert_array_equal(got, reference(y.astype(np.float64)).astype(np.float32))


def test_excess_items_are_clangs_warnings() -> None:
    program = compile_source(SOURCE)
    assert program.build_log.splitlines() == [f"kernel.cl:{w}" for w in WARNINGS]
    assert compile_source(SOURCE, "-w").build_log == ""
    with pytest.raises(KernelCompileError) as info:
        compile_source(SOURCE, "-Werror")
    assert info.value.build_log.splitlines() == [f"kernel.cl:{w.replace('warning', 'error')}" for w in WARNINGS]


@pytest.mark.parametrize(
    ("init", "message"),
    [
        # each refused by PoCL 3.1's Clang too; the checker once took a struct's items without their member types
        ("P p = {(float2)(1, 2), (float2)(3, 4), 3};", "'float4'"),
        ("P a[2] = {{{1.0f, 2.0f}, 3}};", "too few elements in vector initialization (expected 4 elements, have 2)"),
        ("R r = {{1, 2}, (float2)(1, 2)};", "'float2'"),
    ],
)
def test_member_initializers_are_checked_against_their_member_types(init: str, message: str) -> None:
    source = SOURCE.split("__kernel")[0] + "__kernel void k(__global float* o) { " + init + " o[0] = 1; }"
    with pytest.raises(KernelCompileError) as info:
        compile_source(source)
    assert message in info.value.build_log
