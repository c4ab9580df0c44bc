"""``half`` values need cl_khr_fp16 supported by the device *and* enabled by ``#pragma OPENCL EXTENSION cl_khr_fp16 :
enable`` (an extension proper in OpenCL C 1.2, unlike ``double``, an optional core feature: Clang's rule). Without
both, ``half`` is a storage type behind pointers, read and written with ``vload_half``/``vstore_half``: a ``half``
variable, parameter, or a ``half`` read or written through a pointer is a build error. The simulator's devices
that have fp16 took them without the pragma (OpenCV's ``activations.cl`` with ``-DT=half`` has none)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import assert_refused, build_error, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source

_PRAGMA = "cl_khr_fp16 extension enabled (#pragma OPENCL EXTENSION cl_khr_fp16 : enable)"
REFUSED = [  # (source, the simulator's words, Clang's where known: wia-tiny has cl_khr_fp16, the pragma is missing)
    ("__kernel void k(__global const half* in, __global half* out) { out[0] = in[0]; }", _PRAGMA),
    (
        "__kernel void k(__global float* out, half h) { out[0] = 1.0f; }",
        "declaring function parameter of type '__private half' is not allowed; did you forget * ?",  # (Clang's)
    ),
    ("__kernel void k(__global float* out) { half h; out[0] = 1.0f; }", "declaring variable of type '__private half'"),
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


@pytest.mark.parametrize(
    ("constant", "at"),
    [("1.5h", "1:45"), ("2.5e-1H + 1.0f", "1:45"), ("0x1p3h", "1:45"), ("(float)(1.0f + 0.5h)", "1:60")],
)
def test_a_half_constant_needs_the_extension(
    device_ctx: wia.Context, request: pytest.FixtureRequest, constant: str, at: str
) -> None:
    """``1.5h`` (OpenCL C 1.2 6.1.1.1: a floating constant with the suffix ``h`` or ``H``, hexadecimal ones too)
    is a ``half``: without cl_khr_fp16 enabled, Clang's error at the constant (the simulator had said "syntax error
    before 'h'": its parser knew no such suffix)."""
    source = f"__kernel void k(__global float* o) {{ o[0] = {constant}; }}"
    assert_refused(device_ctx, request, source, "half precision constant requires cl_khr_fp16", at, "-cl-std=CL1.2")


def test_half_constants_round_once_from_their_digits(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    """With the extension enabled a half constant is the half nearest its exact decimal (or hexadecimal) value,
    ties to even, rounded once: 1.00048828125000000001 lies just above the midpoint of 1 and 1 + 2**-10, so it is
    1.0009766, where through a double it would round to the midpoint and then to even, 1.0; 65520 is the midpoint
    past the largest half, infinity. Oclgrind 21.10 gives the same bits; PoCL 3.1's CPU device has no
    cl_khr_fp16 (the simulator's wia-tiny has)."""
    if request.node.callspec.params["device_ctx"] == "pocl":
        pytest.skip("PoCL 3.1's CPU device has no cl_khr_fp16")
    source = (
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
        "__kernel void k(__global float* o) {\n"
        "    half a = 0.1h, b = 1.00048828125000000001h;\n"
        "    o[0] = a; o[1] = b; o[2] = (float)(a + 0.2H); o[3] = 0x1.8p1h; o[4] = 65520.0h; o[5] = sizeof(1.5h);\n"
        "    o[6] = 6e-8h; o[7] = 2e-8h;\n"
        "}\n"
    )
    (o,) = run_arrays(device_ctx, source, "k", [np.zeros(8, np.float32)], 1, 1, options="-cl-std=CL1.2")
    tenth = np.float16(0.1)
    expected = [tenth, 1 + 2.0**-10, np.float16(tenth + np.float16(0.2)), 3.0, np.inf, 2.0, 2.0**-24, 0.0]
    np.testing.assert_array_equal(o, np.asarray(expected, np.float32))


HALVES_THROUGH_OTHER_POINTERS = r"""
__kernel void k(__global const ushort* bits, __global float* out, __global uint* packed, __local float* scratch)
{
    const int i = get_global_id(0), l = get_local_id(0);
    ushort mine[2] = {bits[2 * i], bits[2 * i + 1]};
    out[i] = vload_half(1, mine) + vload_half(i, (__global const float*)bits) * 2.0f;
    vstore_half_rtz(out[i], l, scratch);
    barrier(CLK_LOCAL_MEM_FENCE);
    const float2 two = vload_half2(l / 2, scratch);
    vstore_half2(two * 3.0f, i, (__global ushort*)packed);
}
"""


def test_halves_through_a_pointer_to_other_elements(device_ctx: wia.Context) -> None:
    """vload_half and vstore_half through a pointer to ushort, float or uint (a private array too): Clang converts
    it to the half pointer of its address space with a warning, "incompatible pointer types passing ...", and
    the halves are its bytes, counted in halves (``vload_half(i, (float*)p)`` reads the bytes 2i and 2i + 1).
    The simulator refused these ("it needs a half pointer"); now it builds them with Clang's warning, at
    Clang's column, and every device computes the same bits."""
    if wia.get_backend().name == "sim":  # (the real devices' logs hold these lines too, measured)
        assert compile_source(HALVES_THROUGH_OTHER_POINTERS).build_log.splitlines() == [
            f"kernel.cl:{at}: warning: incompatible pointer types passing {passed} to parameter of type {param}"
            for at, passed, param in [
                ("6:28", "'__private ushort[2]' (aka '__private unsigned short[2]')", "'const __private half *'"),
                ("6:50", "'const __global float *'", "'const __global half *'"),
                ("7:32", "'__local float *__private'", "'__local half *'"),
                ("9:43", "'__local float *__private'", "'const __local half *'"),
                ("10:33", "'__global ushort *' (aka '__global unsigned short *')", "'__global half *'"),
            ]
        ]
    rng = np.random.default_rng(1214)
    n, group = 64, 16
    halves = rng.uniform(-4, 4, 2 * n).astype(np.float16)
    arrays = [halves.view(np.uint16), np.zeros(n, np.float32), np.zeros(n, np.uint32)]
    _, out, packed = run_arrays(device_ctx, HALVES_THROUGH_OTHER_POINTERS, "k", arrays, n, group, np.int64(2 * group))
    i = np.arange(n)
    wide = halves.astype(np.float32)
    expected = wide[2 * i + 1] + wide[i] * 2.0  # float arithmetic: exact here (halves' 11 bits)
    np.testing.assert_array_equal(out, expected.astype(np.float32))
    # the group's results rounded toward zero to halves, read back two at a time, tripled and rounded to nearest
    rtz = np.asarray([round_half_toward_zero(v) for v in out], np.float16).astype(np.float32)
    pairs = rtz.reshape(-1, group)[:, (np.arange(group) // 2)[:, None] * 2 + np.arange(2)].reshape(n, 2)
    np.testing.assert_array_equal(packed.view(np.float16).reshape(n, 2), (pairs * 3.0).astype(np.float16))


def round_half_toward_zero(x: np.float32) -> np.float16:
    """``x`` rounded to a half toward zero (vstore_half_rtz): the nearest half, one step back where it is further
    from zero (halves are exact in float)."""
    h = np.float16(x)
    if abs(float(h)) > abs(float(x)):
        h = np.nextafter(h, np.float16(0))
    return h
