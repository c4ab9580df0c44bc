"""``__attribute__((overloadable))`` user functions (Clang's C extension, which OpenCL libraries use for typed
helpers, e.g. PLSSVM's float and double ``atomicAdd``): one name, told apart by parameter types, each call
resolved as Clang resolves built-ins (``overloads.py``; a pointer only to its own space and type). The simulator
refused the second definition ("redefinition of 'f'"). Values on every backend against NumPy; an ambiguous call
is Clang's error everywhere."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import build_error, run_arrays

import wia_hal as wia

SOURCE = r"""
__attribute__((overloadable)) float f(float x) { return x * 2.0f; }
__attribute__((overloadable)) float f(int x) { return (float)x + 100.0f; }
__attribute__((overloadable)) float f(float2 v) { return v.x - v.y; }
void __attribute__((overloadable)) bump(__global float* p, float v) { *p += v; }
void __attribute__((overloadable)) bump(__local float* p, float v) { *p += 2.0f * v; }

__kernel void overloads(__global const float* a, __global const float* b, __global float* c)
{
    const int i = get_global_id(0);
    const int l = get_local_id(0);
    __local float t[16];
    t[l] = 1.0f;
    c[i] = f(a[i]) + f(i) + f((float2)(a[i], b[i])) + f((short)3);  /* short promotes to int */
    bump(&c[i], 0.5f);
    bump(&t[l], b[i]);
    c[i] += t[l];
}
"""


def test_overloads_are_told_apart_by_parameter_types(device_ctx: wia.Context) -> None:
    n = 32
    rng = np.random.default_rng(1212)
    a, b = rng.uniform(-4, 4, n).astype(np.float32), rng.uniform(-4, 4, n).astype(np.float32)
    _, _, c = run_arrays(device_ctx, SOURCE, "overloads", [a, b, np.zeros(n, np.float32)], n, 16)
    x, y, i = a.astype(np.float64), b.astype(np.float64), np.arange(n)
    want = 2 * x + (i + 100) + (x - y) + 103 + 0.5 + (1 + 2 * y)
    np.testing.assert_allclose(c, want, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize(
    "call",
    [
        "o[0] = g(u);",  # uint: to float or to int, both conversions
        "o[0] = g((double)1);",
        "o[0] = g(o);",  # a pointer: no member takes it
    ],
)
def test_a_call_no_single_overload_takes_is_refused_everywhere(device_ctx: wia.Context, call: str) -> None:
    source = (
        "__attribute__((overloadable)) float g(float x) { return x; }\n"
        "__attribute__((overloadable)) float g(int x) { return x; }\n"
        f"__kernel void k(__global float* o, uint u) {{ {call} }}\n"
    )
    refusal = build_error(device_ctx, source, "k", "-cl-std=CL1.2")
    if wia.get_backend().name == "sim":
        assert "call to 'g' is ambiguous" in refusal or "no matching function for call to 'g'" in refusal
