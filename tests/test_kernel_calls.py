"""Calls the OpenCL C 1.2 language allows beyond plain helpers: a kernel calling another kernel as an ordinary
function (6.9), array parameters (``const float x[4]``, ``float out[]``: pointers, C99 6.7.5.3), a helper taking
a ``__local`` pointer with barriers inside. Through the public HAL on the simulator and, where installed, on PoCL
and Oclgrind, against NumPy; a call of a kernel that declares ``__local`` variables (implementation-defined) is a
build error."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import compile_errors, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.program import KernelCompileError

SOURCE = r"""
__kernel __attribute__((work_group_size_hint(8, 1, 1))) void bump(__global float* c, float v)
{
    c[get_global_id(0)] += v;
}

float sum4(const float x[4]) { return x[0] + x[1] + x[2] + x[3]; }

void fill(float out[], int n, float v)
{
    for (int j = 0; j < n; j++)
        out[j] = v * j;
}

float prefix(__local float* s, int l)
{
    s[l] = (float)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    float t = 0.0f;
    for (int j = 0; j <= l; j++)
        t += s[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    return t;
}

__kernel void calls(__global const float* a, __global float* c)
{
    __local float scratch[8];
    const int i = get_global_id(0);
    float arr[4];
    fill(arr, 4, a[i]);
    c[i] = sum4(arr) + prefix(scratch, get_local_id(0));
    bump(c, 1.5f);
}
"""

N = 32


def test_a_kernel_calls_a_kernel_and_helpers_take_arrays(device_ctx: wia.Context) -> None:
    a = np.random.default_rng(37).uniform(-1, 1, N).astype(np.float32)
    got = run_arrays(device_ctx, SOURCE, "calls", [a, np.full(N, np.nan, np.float32)], N, 8)[1]
    lid = np.arange(N) % 8
    want = (a * np.float32(6) + (lid * (lid + 1) // 2).astype(np.float32)) + np.float32(1.5)
    np.testing.assert_allclose(got, want, rtol=2e-7, atol=2e-6)  # a*0 + a*1 + a*2 + a*3 summed in float32


def test_calling_a_kernel_that_declares_local_variables_is_refused() -> None:
    source = """
__kernel void tile(__global float* o) { __local float t[4]; t[0] = 1.0f; o[0] = t[0]; }
__kernel void k(__global float* o) { tile(o); }
"""
    with pytest.raises(KernelCompileError, match="calling the kernel 'tile', which declares __local variables"):
        compile_source(source)


FUNCTIONS_AS_VALUES = """int g(int x) { return x; }
typedef struct { int f; } S;
__kernel void k(__global ulong* u, __global int* o) {
  u[0] = (ulong)g;
  u[1] = (ulong)&g;
  o[0] = get_global_id ? 1 : 2;
  o[1] = printf ? 1 : 2;
  o[2] = sin ? 1 : 2;
  o[3] = convert_int ? 1 : 2;
  o[4] = as_int ? 1 : 2;
  o[5] = (*g)(4);
  S s; s.f = 1;
  o[6] = s.f(2);
  o[7] = (s.f)(2);
  o[8] = o[0](5);
  o[9] = np.float64(1.2);
  o[10] = (g)(3) + ((get_global_id))(0) + (sin)(1.0f);
}
"""


def test_a_function_not_called_is_clangs_error() -> None:
    """A function's name used as a value, and a call of what is not a function, in ``clang-15 -cc1``'s words and
    places: one declaration's name is "taking address", an overloaded built-in's "could not be resolved" (the
    simulator said "function pointers are not supported" for both), ``as_int`` is a macro; a callee in error
    draws no second error (OpenMM probe: "calls through function pointers are not supported" after an undeclared
    identifier); a function's name in brackets of its own is not called either, ``(g)(3)``, but an overloaded
    built-in's is."""
    assert compile_errors(FUNCTIONS_AS_VALUES) == [
        "kernel.cl:4:17: error: taking address of function is not allowed",
        "kernel.cl:5:18: error: taking address of function is not allowed",
        "kernel.cl:6:10: error: taking address of function is not allowed",
        "kernel.cl:7:10: error: taking address of function is not allowed",
        "kernel.cl:8:10: error: reference to overloaded function could not be resolved; did you mean to call it?",
        "kernel.cl:9:10: error: reference to overloaded function could not be resolved; did you mean to call it?",
        "kernel.cl:10:10: error: use of undeclared identifier 'as_int'",
        "kernel.cl:11:12: error: taking address of function is not allowed",
        "kernel.cl:13:13: error: called object type 'int' is not a function or function pointer",
        "kernel.cl:14:15: error: called object type 'int' is not a function or function pointer",
        "kernel.cl:15:14: error: called object type 'int' is not a function or function pointer",
        "kernel.cl:16:10: error: use of undeclared identifier 'np'",
        "kernel.cl:17:12: error: taking address of function is not allowed",
        "kernel.cl:17:22: error: taking address of function is not allowed",
    ]
