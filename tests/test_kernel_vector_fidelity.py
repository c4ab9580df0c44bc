"""What a differential fuzz of vector and scalar expressions (2,800 kernels, the simulator against PoCL 3.1 and
Oclgrind 21.10) found the simulator doing otherwise than Clang: ``vec_step`` is a ``size_t``; scalar ``min``,
``max``, ``clamp`` and ``select`` of ``char``/``short`` keep their type (OpenCL C 1.2 6.12.3: no promotion; the
simulator carried them as ``int``); ``p->y`` on a pointer to a vector; a vector ``?:`` between two scalars of one
type keeps it; ``NAN`` is ``as_float(INT_MAX)``; ``++`` of a float vector and a vector literal from a vector of
another element type are build errors. On every backend, one expected answer."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.program import KernelCompileError

SOURCE = """
__kernel void k(__global int* out) {
    char m1 = -1, z = 0, one = 1, two = 2;
    short s = 7;
    int4 v4;
    int i = 0;
    out[i++] = (vec_step(int4) - 5) < 0;
    out[i++] = (int)sizeof(vec_step(float2));
    out[i++] = (vec_step(v4) - 5) < 0;
    out[i++] = popcount(min(m1, z));
    out[i++] = clz(max(one, z));
    out[i++] = rotate((char)0x41, min(one, two));
    out[i++] = popcount(select(m1, m1, one));
    out[i++] = as_short(select(s, s, s));
    out[i++] = popcount(clamp(m1, m1, z));
    out[i++] = (int)sizeof(max(s, s));
    int2 q = (int2)(1, 2);
    int2* p = &q;
    out[i++] = p->y;
    p->x = 5;
    p->yx += (int2)(10, 20);
    out[i++] = q.x * 100 + q.y;
    uchar2 c = (uchar2)(1, 200);
    uchar2 r = c ? (uchar)9 : (uchar)8;
    out[i++] = r.x * 10 + r.y + 1000 * (int)sizeof(c ? (uchar)1 : (uchar)2);
    out[i++] = as_int(NAN);
    __global int4* g = (__global int4*)(out + 16);
    g->zw = (int2)(7, 8);
    g->xy = g->wz;
}
"""
EXPECTED = [0, 8, 0, 8, 7, -126, 8, 7, 8, 2, 2, 2512, 89 + 2000, 0x7FFFFFFF, -1, -1, 8, 7, 7, 8]


def test_vector_and_small_integer_expressions_on_every_device(device_ctx: wia.Context) -> None:
    (out,) = run_arrays(device_ctx, SOURCE, "k", [np.full(len(EXPECTED), -1, np.int32)], 1, 1)
    assert out.tolist() == EXPECTED


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("float2 f = (float2)(1.0f, 2.0f); f++;", "cannot increment value of type 'float2'"),
        ("double4 d = (double4)(1.0); --d.xy;", "cannot decrement value of type 'double2'"),
        (
            "int2 i = (int2)(1, 2); float4 f = (float4)(i, 3.0f, 4.0f);",
            "initializing 'float' with an expression of incompatible type 'int2'",
        ),
    ],
)
def test_what_clang_refuses(body: str, message: str) -> None:
    source = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n__kernel void k(__global int* out) { " + body + " }"
    with pytest.raises(KernelCompileError) as e:
        compile_source(source)
    assert message in str(e.value)
