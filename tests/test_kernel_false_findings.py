"""Correct kernels from Oclgrind's own test suite (tests/kernels/misc/lvalue_loads, uninitialized/
padded_nested_struct_memcpy and uninitialized_packed_struct_memcpy, reduced) on which the simulator reported a
finding Oclgrind does not: a run of vector components read and written through memory held to the whole
vector's alignment, a nested struct's padding taken for a member when the struct is copied, and a packed struct's
brace initializer storing its off-alignment members as aligned ones. On every backend, one expected answer and
no finding."""

from __future__ import annotations

import numpy as np
from kernel_backends import run_arrays

import wia_hal as wia

SWIZZLES = """__kernel void k(__global float4* o) {
    o[0].zy = o[0].yz;
    float2 t = o[1].yz;
    o[2].yz = t;
    o[3].s12 = o[3].s23;
}"""


def test_a_run_of_components_is_aligned_as_its_scalar(device_ctx: wia.Context) -> None:
    """``.yz`` of a float4 in memory lies 4 bytes in: read and written as two floats' worth of bytes, aligned to
    a float, not as an 8-byte-aligned float2 (was a misaligned-access finding)."""
    v = np.arange(16, dtype=np.float32).reshape(4, 4) + 1
    (out,) = run_arrays(device_ctx, SWIZZLES, "k", [v], 1, 1)
    want = v.copy()
    want[0, 1], want[0, 2] = v[0, 2], v[0, 1]
    want[2, 1:3] = v[1, 1:3]
    want[3, 1:3] = v[3, 2:4]
    np.testing.assert_array_equal(out, want)


NESTED = """struct T { char a; int b; };
struct S { char a; int b; struct T d; struct T e[2]; };
__kernel void k(__global struct S* o) {
    struct S s;
    s.a = 1; s.b = 2; s.d.a = 3; s.d.b = 4;
    for (int i = 0; i < 2; i++) { s.e[i].a = 5 + i; s.e[i].b = 7 + i; }
    *o = s;
}"""


def test_a_nested_structs_padding_is_no_member(device_ctx: wia.Context) -> None:
    """Copying a struct copies its padding, undefined; only a member's bytes left unwritten are a use. The
    padding of a struct member (``d``'s after its ``char``), and of each element of an array of them, is padding
    too (it was taken for member bytes: an uninitialized-value finding)."""
    (out,) = run_arrays(device_ctx, NESTED, "k", [np.zeros(8, np.int32)], 1, 1)
    np.testing.assert_array_equal(out[[1, 3, 5, 7]], [2, 4, 7, 8])
    np.testing.assert_array_equal(out.view(np.uint8)[[0, 8, 16, 24]], [1, 3, 5, 6])


PACKED = """struct __attribute__((packed)) S { char a; int b; char c; };
__kernel void k(__global const int* in, __global struct S* o) {
    struct S s = {1, *in, 2};
    *o = s;
    struct S t[2] = {{3, in[1], 4}, 5, in[2], 6};
    o[1] = t[0];
    o[2] = t[1];
}"""


def test_a_packed_structs_brace_initializer(device_ctx: wia.Context) -> None:
    """``struct S s = {1, x, 2}`` with ``int b`` at byte 1 of a packed struct: stored byte by byte, as an
    assignment to ``s.b`` is (it was stored as an aligned int: a misaligned-access finding)."""
    values = np.array([0x01020304, 0x05060708, 0x0A0B0C0D], np.int32)
    _, out = run_arrays(device_ctx, PACKED, "k", [values, np.zeros(18, np.uint8)], 1, 1)
    records = out.reshape(3, 6)
    np.testing.assert_array_equal(records[:, 0], [1, 3, 5])
    np.testing.assert_array_equal(records[:, 5], [2, 4, 6])
    np.testing.assert_array_equal(records[:, 1:5].copy().view(np.int32).reshape(-1), values)
