"""C11's ``_Generic``, which Clang takes in OpenCL C (type-generic macros): the association of the controlling
expression's type after lvalue conversion (const and the value's address space dropped, an array decayed; a
pointee keeps its qualifiers), else ``default``; the controlling expression is not evaluated. The simulator refused
every ``_Generic`` ("unsupported expression"); PoCL 3.1 and Oclgrind 21.10 build and run them. The selections here
are the values all three give; the refusals are Clang's errors on every backend."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import build_error, run_arrays

import wia_hal as wia

SOURCE = r"""
#define KIND(x) _Generic((x), float: 1, double: 2, int: 3, uint: 4, long: 5, char: 6, float4: 7, int4: 8, default: 0)
__kernel void k(__global int* out, __global const int* a, __global float* f) {
    int i = 0;
    const int c = 3;
    float4 v = (float4)(1.0f);
    int arr[4] = {1, 2, 3, 4};
    out[0] = KIND(1.0f); out[1] = KIND(1.0f + 1); out[2] = KIND(1u); out[3] = KIND((char)1);
    out[4] = KIND(v); out[5] = KIND(v > 0.0f); out[6] = KIND(a[0]); out[7] = KIND(c);
    out[8] = _Generic(a, __global const int*: 10, __global int*: 11, default: 12);
    out[9] = _Generic(f, __global const float*: 20, __global float*: 21, default: 22);
    out[10] = _Generic(arr, int*: 30, default: 31);
    out[11] = _Generic(i++, int: i + 40, default: 0);
    out[12] = i;
    out[13] = KIND((short)1);
    out[14] = KIND(1L);
    out[15] = _Generic(&c, const int*: 50, int*: 51, default: 52);
}
"""


def test_generic_selections_pick_by_the_type_after_lvalue_conversion(device_ctx: wia.Context) -> None:
    """Literals, promotions (``1.0f + 1`` is a float), vectors and a vector comparison (``int4``), a ``__global``
    element (``int``), a const variable (``int``), pointers with their pointee's address space and const, an array
    (a pointer), ``short`` (no association: ``default``), and ``i++`` not evaluated (``i`` stays 0)."""
    arrays = [np.zeros(16, np.int32), np.ones(4, np.int32), np.ones(4, np.float32)]
    (out, _, _) = run_arrays(device_ctx, SOURCE, "k", arrays, 1, 1)
    assert out.tolist() == [1, 1, 4, 6, 7, 8, 3, 3, 10, 21, 30, 40, 0, 0, 5, 50]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "long x = 1; a[0] = _Generic(x, int: 1, float: 2);",
            "controlling expression type 'long' not compatible with any generic association type",
        ),
        (
            "a[0] = _Generic(a[0], int: 1, int: 2, default: 3);",
            "type 'int' in generic association compatible with previously specified type 'int'",
        ),
        ("a[0] = _Generic(a[0], default: 1, default: 2);", "duplicate default generic association"),
    ],
)
def test_generic_selections_clang_refuses(device_ctx: wia.Context, body: str, message: str) -> None:
    assert message in build_error(device_ctx, f"__kernel void k(__global int* a) {{ {body} }}")
