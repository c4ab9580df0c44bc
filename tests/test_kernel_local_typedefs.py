"""Typedefs in a function body (C99 6.7.7; Clang takes them in OpenCL C): pyopencl's special functions
(``pyopencl-airy.cl``, ``pyopencl-bessel-j.cl``) declare ``typedef __constant const double* data_t;`` inside a
function, and the simulator refused them. A typedef holds to the end of its block, shadowing one of the same name
outside: PoCL's own kernel tests (``common.cl``) define ``typedef char2 gtype;`` in one function and ``typedef char
gtype;`` in the next, which the simulator refused ("a typedef inside a function must not reuse a name for another
type"). On every backend against C's values; a second definition of a name as another type in the same block is
Clang's error."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.program import KernelCompileError

SOURCE = """
typedef float real;
__kernel void k(__global int* out, __global const float* x) {
    typedef int myint;
    typedef __constant const float* table_t;
    __constant float tab[3] = {1.5f, 2.5f, 3.5f};
    table_t t = tab;
    myint v = 3;
    {
        typedef struct { myint a; real b; } pair;
        pair p = {v, x[0]};
        out[0] = v + (int)t[1] + p.a + (int)(p.b * 2.0f) + sizeof(pair);
    }
}
"""


def test_typedefs_in_function_bodies(device_ctx: wia.Context) -> None:
    out, _ = run_arrays(device_ctx, SOURCE, "k", [np.zeros(1, np.int32), np.array([4.0], np.float32)], 1, 1)
    assert out[0] == 3 + 2 + 3 + 8 + 8


SHADOWED = """
typedef short T;
int f(void) { typedef int T; return sizeof(T); }
int g(void) { typedef char2 T; T v = (T)(3, 4); return sizeof(T) * 100 + v.y; }
__kernel void k(__global int* o) {
    o[0] = f();
    o[1] = g();
    o[2] = sizeof(T);
    {
        typedef float4 T;
        T w = (T)(1.0f);
        o[3] = sizeof(T) + (int)w.z;
    }
    T back = 7;
    o[4] = sizeof(back) * 10 + back;
}
"""


def test_a_typedef_holds_in_its_block_and_shadows_the_outer_one(device_ctx: wia.Context) -> None:
    (o,) = run_arrays(device_ctx, SHADOWED, "k", [np.zeros(5, np.int32)], 1, 1)
    np.testing.assert_array_equal(o, [4, 204, 2, 17, 27])


def test_one_name_for_two_types_in_one_block_is_clangs_error() -> None:
    """PoCL 3.1: ``3:17: error: typedef redefinition with different types ('float' vs 'int')``."""
    source = "__kernel void k(__global int* o) {\n  typedef int T;\n  typedef float T;\n  o[0] = 1;\n}\n"
    with pytest.raises(KernelCompileError, match=r"typedef redefinition with different types \('float' vs 'int'\)"):
        compile_source(source)
    compile_source(source.replace("float T", "int T"))  # (the same type again: C11 allows it, and Clang)
