"""A program's own function named like a built-in (real code does it: SDK samples define their own ``sign``,
``clamp`` or ``mix``). Clang adds it to the built-in's overloads from ``opencl-c.h``, and each call picks by
overload resolution (``overloads.py``). The user's ``float sign(int)`` takes ``sign(i)`` (an exact match) and
``sign((short)i)`` (a promotion); the built-in takes ``sign(-2.0f)``; and ``sign((long)i)`` is ambiguous. A
declaration that repeats a built-in overload's parameter types needs ``__attribute__((overloadable))``; at most
one member of a name's overloads may lack it. The simulator refused every such program ("redefinition of built-in
function"); PoCL 3.1 and Oclgrind 21.10 build them. Values on every backend against NumPy; the refusals are Clang's
errors everywhere."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import build_error, run_arrays

import wia_hal as wia

SOURCE = r"""
float sign(int x) { return x * 10.0f; }               /* beside gentype sign(gentype) */
int mix(int a, int b) { return a * 3 + b; }           /* beside mix(x, y, a): another arity */
float pow(float x, int n) { float r = 1.0f; for (int k = 0; k < n; ++k) r *= x; return r; }
float dot(float3 a, float b) { return (a.x + a.y + a.z) * b; }  /* a scalar b: no built-in's exact match */
int clz(float x) { return (int)x + 1000; }            /* clz takes integers only */
float fract(__global const float* p) { return p[1]; } /* beside fract(x, iptr) */
float length(float2 v, float w);                       /* a prototype; the definition after the kernel */
__attribute__((overloadable)) float length(float4 v) { return -1.0f; }  /* replaces the built-in's overload */
int convert_int(float4 v) { return (int)(v.x + v.w); }  /* convert_int4 takes a float4, convert_int does not */

__kernel void names(__global const float* a, __global const float* b, __global float* out)
{
    const int i = get_global_id(0);
    const float x = a[i], y = b[i];
    float4 r;
    r.x = sign(i) + sign((short)i) + sign(x) + mix(i, 2) + mix(x, y, 0.25f);
    r.y = pow(x, 3) + pow(fabs(x), 0.5f) + dot((float3)(x, y, 1.0f), y) + dot((float2)(x, y), (float2)(y, 2.0f));
    r.z = clz(i) + clz(x) + clz((uchar)i) + fract(a) + length((float2)(x, y), 2.0f) + length((float2)(y, x));
    float whole;
    r.w = fract(x, &whole) + whole + length((float4)(x)) + length((float3)(y, x, 2.0f))
          + convert_int((float4)(2.0f, 0.0f, 0.0f, 3.0f)) + convert_int(7.9f);
    vstore4(r, i, out);
}

float length(float2 v, float w) { return (v.x + v.y) * w; }
"""


def _clz(v: np.ndarray, bits: int) -> np.ndarray:
    v = v.astype(np.uint64)
    return np.array([bits - int(u).bit_length() for u in v], np.float64)


def test_calls_pick_the_program_s_function_or_the_built_in_as_clang_does(device_ctx: wia.Context) -> None:
    n = 32
    rng = np.random.default_rng()
    a = rng.uniform(-4, 4, n).astype(np.float32)
    b = rng.uniform(-4, 4, n).astype(np.float32)
    _, _, out = run_arrays(device_ctx, SOURCE, "names", [a, b, np.zeros(4 * n, np.float32)], n, 16)
    i = np.arange(n, dtype=np.float64)
    x, y = a.astype(np.float64), b.astype(np.float64)
    want = np.empty((n, 4))
    want[:, 0] = 10 * i + 10 * i + np.sign(x) + (3 * i + 2) + (x + (y - x) * 0.25)
    want[:, 1] = x**3 + np.sqrt(np.abs(x)) + (x + y + 1) * y + (x * y + 2 * y)
    whole = np.floor(x)
    want[:, 2] = _clz(i, 32) + (np.trunc(x) + 1000) + _clz(i, 8) + x[1] + (x + y) * 2 + np.hypot(x, y)
    want[:, 3] = (x - whole) + whole - 1.0 + np.sqrt(x * x + y * y + 4) + 5 + 7
    # float32 arithmetic, pow and length from the device's library: a few ulp of values up to ~1100
    np.testing.assert_allclose(out.reshape(n, 4), want, rtol=2e-6, atol=2e-4)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "float sign(int x) { return x * 10.0f; }\n"
            "__kernel void k(__global float* o) { o[get_global_id(0)] = sign((long)get_global_id(0)); }",
            "ambiguous",  # long converts to int, float and double alike
        ),
        (
            "float sign(int x) { return x * 10.0f; }\n"
            "__kernel void k(__global float* o) { uint i = get_global_id(0); o[i] = sign(i); }",
            "ambiguous",
        ),
        (
            "int min(int a, int b) { return a; }\n"
            "__kernel void k(__global float* o) { o[get_global_id(0)] = min((int)get_global_id(0), 1); }",
            "must have the 'overloadable' attribute",  # (PoCL 3.1 names its '_cl_min')
        ),
        (
            "float length(float3 v) { return 7.0f; }\n"
            "__kernel void k(__global float* o) { o[get_global_id(0)] = length((float3)(1.0f)); }",
            "must have the 'overloadable' attribute",
        ),
        (
            "float sign(int x) { return x * 10.0f; }\nfloat sign(uint x) { return x * 20.0f; }\n"
            "__kernel void k(__global float* o) { o[get_global_id(0)] = sign(1); }",
            "at most one overload for a given name may lack the 'overloadable' attribute",
        ),
        (
            "int convert_int(float x) { return 7; }\n"
            "__kernel void k(__global float* o) { o[get_global_id(0)] = convert_int(1.5f); }",
            "must have the 'overloadable' attribute",  # (convert_int has an overload for every scalar)
        ),
        (
            "__kernel void k(__global int* o) { o[get_global_id(0)] = clz(1.5f); }",
            "ambiguous",  # clz takes integers only: a float converts to each (the simulator took it)
        ),
    ],
    ids=[
        "ambiguous-long",
        "ambiguous-uint",
        "same-as-min",
        "same-as-length",
        "two-plain",
        "same-as-convert",
        "clz-of-a-float",
    ],
)
def test_what_clang_refuses_is_refused_everywhere(device_ctx: wia.Context, source: str, message: str) -> None:
    refusal = build_error(device_ctx, source, "k")
    assert message in refusal


def test_barriers_and_async_copies_stay_reserved() -> None:
    """Names the simulator cannot let a program take over (its barrier and async-copy machinery runs them)."""
    from wia_sim.kernels import KernelCompileError, compile_source

    with pytest.raises(KernelCompileError, match="redefinition of built-in function 'barrier'"):
        compile_source("void barrier(int x) { }\n__kernel void k(__global int* o) { barrier(1); o[0] = 1; }")
