"""Typedefs in a function body (C99 6.7.7; Clang takes them in OpenCL C): pyopencl's special functions
(``pyopencl-airy.cl``, ``pyopencl-bessel-j.cl``) declare ``typedef __constant const double* data_t;`` inside a
function, and the simulator refused them. On every backend against C's values; the one case the simulator still
refuses (a name given two types in two places) is a build error naming both."""

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


def test_one_name_for_two_types_is_refused() -> None:
    source = "void f() { typedef int T; T a = 1; }\n__kernel void k(__global int* o) { typedef float T; T b = 2; }"
    with pytest.raises(KernelCompileError, match="typedef 'T' names 'float' here and 'int' elsewhere"):
        compile_source(source)
