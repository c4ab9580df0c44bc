"""``half`` values need cl_khr_fp16 supported by the device *and* enabled by ``#pragma OPENCL EXTENSION cl_khr_fp16 :
enable`` (an extension proper in OpenCL C 1.2, unlike ``double``, an optional core feature: Clang's rule). Without
both, ``half`` is a storage type behind pointers, read and written with ``vload_half``/``vstore_half``: a ``half``
variable, parameter, or a ``half`` read or written through a pointer is a build error. The simulator's devices
that have fp16 took them without the pragma (OpenCV's ``activations.cl`` with ``-DT=half`` has none)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import build_error, run_arrays

import wia_hal as wia

_PRAGMA = "cl_khr_fp16 extension enabled (#pragma OPENCL EXTENSION cl_khr_fp16 : enable)"
REFUSED = [  # (source, the simulator's words: wia-tiny has cl_khr_fp16, the pragma is what is missing)
    ("__kernel void k(__global const half* in, __global half* out) { out[0] = in[0]; }", _PRAGMA),
    (
        "__kernel void k(__global float* out, half h) { out[0] = 1.0f; }",
        "declaring function parameter of type '__private half' is not allowed; did you forget * ?",  # (Clang's)
    ),
    ("__kernel void k(__global float* out) { half h; out[0] = 1.0f; }", _PRAGMA),
    (
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n#pragma OPENCL EXTENSION cl_khr_fp16 : disable\n"
        "__kernel void k(__global half* out) { out[0] = out[1]; }",
        _PRAGMA,
    ),
]


@pytest.mark.parametrize(("source", "message"), REFUSED)
def test_half_values_without_the_extension_enabled_are_refused(
    device_ctx: wia.Context, source: str, message: str
) -> None:
    refusal = build_error(device_ctx, source, "k", "-cl-std=CL1.2")
    if wia.get_backend().name == "sim":
        assert message in refusal


def test_half_storage_needs_no_extension(device_ctx: wia.Context) -> None:
    source = (
        "__kernel void k(__global float* f, __global half* hp) {\n"
        "    vstore_half(f[0], 0, &hp[1]);\n"
        "    f[1] = vload_half(0, &hp[1]) + (float)sizeof(hp[0]);\n"
        "}\n"
    )
    f, _ = run_arrays(device_ctx, source, "k", [np.array([1.5, 0], np.float32), np.zeros(4, np.float16)], 1, 1)
    np.testing.assert_array_equal(f, [1.5, 3.5])


def test_a_half_type_only_named_needs_no_extension(device_ctx: wia.Context) -> None:
    """``sizeof(half)``, ``_Alignof(half)`` and a typedef of ``half`` name the type without making a value of it:
    Clang takes them without cl_khr_fp16 (the simulator refused them). (``half4`` and the other vector names are
    the device header's: PoCL declares them only with the extension, Oclgrind always.)"""
    source = (
        "typedef half H;\n"
        "__kernel void k(__global int* o) {\n"
        "    o[0] = sizeof(half) + 100 * _Alignof(half);\n"
        "    o[1] = sizeof(H) + 10 * sizeof(__global H*);\n"
        "}\n"
    )
    (o,) = run_arrays(device_ctx, source, "k", [np.zeros(2, np.int32)], 1, 1, options="-cl-std=CL1.2")
    np.testing.assert_array_equal(o, [2 + 200, 2 + 80])


def test_half_arithmetic_with_the_pragma_on_a_device_that_has_fp16() -> None:
    wia.set_backend("sim", hardware="wia-tiny")  # (no real device here has cl_khr_fp16)
    ctx = wia.create_context()
    source = (
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
        "__kernel void k(__global const half* in, __global half* out, half s) {\n"
        "    const int i = get_global_id(0);\n"
        "    half h = in[i] * s;\n"
        "    out[i] = h + (half)1.0f;\n"
        "}\n"
    )
    x = np.random.default_rng(1213).uniform(-8, 8, 16).astype(np.float16)
    try:
        _, out = run_arrays(ctx, source, "k", [x, np.zeros(16, np.float16)], 16, 16, np.float16(0.5))
    finally:
        wia.destroy_context(ctx)
    np.testing.assert_array_equal(out, (x * np.float16(0.5) + np.float16(1)).astype(np.float16))
