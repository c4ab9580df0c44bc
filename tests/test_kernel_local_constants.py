"""``__constant`` variables declared in kernels (OpenCL C 1.2 6.5.3): at a kernel's outermost scope, each one
read-only object for the whole launch, initialized by constants. Lookup tables written this way are common in real
kernels; the simulator refused every one of them ("__constant variables inside functions are not supported").
Values on the simulator and, where installed, on PoCL and Oclgrind against NumPy; the misplaced ones (in a helper,
in an inner block, ``static``: OpenCL C 2.0 allows ``static`` ones) are Clang's errors on every backend, built
with ``-cl-std=CL1.2`` (PoCL 3.1 builds for OpenCL C 3.0 unless told)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import build_error, run_arrays

import wia_hal as wia

SOURCE = r"""
typedef struct { int a; float b; } S;

float weight(__constant float* w, int k)
{
    return w[k & 3];
}

__kernel void tables(__global const int* key, __global float* out)
{
    __constant float w[4] = {0.5f, 1.5f, -2.0f, 4.0f};
    __constant int inner[2] = {10, 20};
    __constant float scale = M_PI_F * 2;
    __constant float4 bias = (float4)(1, 2, 3, 4);
    __constant S pairs[2] = {{7, 0.25f}, {-3, 8.0f}};
    __constant int steps[] = {1, 2, 3, 5, 8};
    __constant int* tail = steps + 2;
    const int i = get_global_id(0);
    const int k = key[i];
    float acc = weight(w, k) * scale + bias.w + (float)(sizeof(steps) / sizeof(int));
    for (int j = 0; j < 2; j++)
        acc += (float)inner[j] * pairs[(k + j) & 1].b + (float)pairs[j].a;
    out[i] = acc + (float)tail[k % 3];
}
"""


def reference(key: np.ndarray) -> np.ndarray:
    w = np.array([0.5, 1.5, -2.0, 4.0])
    b = np.array([0.25, 8.0])
    scale = np.float64(np.float32(np.pi)) * 2
    acc = w[key & 3] * scale + 4 + 5
    for j, inner in enumerate((10, 20)):
        acc = acc + inner * b[(key + j) & 1] + (7, -3)[j]
    return acc + np.array([3, 5, 8])[key % 3]


def test_function_scope_constants_hold_their_values(device_ctx: wia.Context) -> None:
    n = 64
    key = np.random.default_rng(1207).integers(0, 1000, n).astype(np.int32)
    _, got = run_arrays(device_ctx, SOURCE, "tables", [key, np.full(n, np.nan, np.float32)], n, 16)
    np.testing.assert_allclose(got, reference(key), rtol=2e-6)  # float32 sums of a few terms


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "__kernel void k(__global float* o) { if (o[0] > 0) { __constant float t[2] = {1, 2}; o[0] = t[1]; } }",
            "variables in the constant address space can only be declared in the outermost scope of a kernel",
        ),
        (
            "float f(int k) { __constant float t[2] = {1, 2}; return t[k]; }\n"
            "__kernel void k(__global float* o) { o[0] = f(1); }",
            "non-kernel function variable cannot be declared in constant address space",
        ),
        ("__kernel void k(__global float* o) { __constant float t; o[0] = t; }", "must be initialized"),
        (
            "__kernel void k(__global float* o) { float x = o[0]; __constant float t = x; o[0] = t; }",
            "initializer element is not a compile-time constant",
        ),
        (
            "float f(int k) { static __constant float t[2] = {1, 2}; return t[k]; }\n"
            "__kernel void k(__global float* o) { o[0] = f(1); }",
            "variables in function scope cannot be declared static",
        ),
        (
            "__kernel void k(__global float* o) { static float t = 1; o[0] = t; }",
            "variables in function scope cannot be declared static",
        ),
        ("__kernel void k(__global float* o) { __constant float t[2] = {1, 2}; t[0] = 3; }", "t"),
    ],
)
def test_misplaced_function_scope_constants_are_refused(device_ctx: wia.Context, source: str, message: str) -> None:
    refusal = build_error(device_ctx, source, "k", "-cl-std=CL1.2")
    if wia.get_backend().name == "sim":
        assert message in refusal
