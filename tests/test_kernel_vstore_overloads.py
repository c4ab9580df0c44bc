# ruff: noqa: E501  (each kernel of the refusals is one line: the columns Clang gives are counted on it)
"""vstoreN as Clang resolves it (OpenCL C 1.2 6.12.7; PoCL 3.1 and Oclgrind 21.10): one overload per element type
and address space but ``__constant``, chosen by the data. A pointer to other elements converts to the data's
pointer with Clang's warning, and the store is the data's bits (an ``int4`` through a ``float*`` writes the ints,
through a ``short*`` 16 bytes); a ``const`` pointee is only a warning; data of another length, a ``__constant``
pointer or a null pointer constant is Clang's error. The simulator took the element type from the pointer: it
converted the values, wrote 8 bytes where Clang's code writes 16, refused a ``const`` pointer and crashed on data
of another length (found by the clBLAS probe). A program function's parameter is as strict: a vector of other
elements or length, or another struct, is Clang's "incompatible type" (the simulator converted the values)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import assert_refused, build_error, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source

SOURCE = """__kernel void k(__global float* f, __global int* i, __global short* s, __global uint* u, __global const float* c,
                __global half* h, __global const half* ch) {
    int4 i4 = (int4)(1, 2, -3, 4);
    float4 f4 = (float4)(1.5f, -2.0f, 0.25f, 3.0f);
    vstore4(i4, 0, f);
    vstore4(f4, 1, i);
    vstore4(i4, 0, s);
    vstore4(as_uint4(i4), 2, i);
    vstore4(i4, 0, u + 4);
    vstore4(f4, 0, c);
    vstore2(i4.xy, 3, f);
    vstore4(1.0f, 2, f);
    vstore_half(f4.x, 0, ch);
    vstore_half2(f4.xy, 1, h);
    vstore4(i4, 1, (__global float4*)f);
}
"""

WARNINGS = [
    "5:20: warning: incompatible pointer types passing '__global float *__private' to parameter of type '__global int *'",
    "6:20: warning: incompatible pointer types passing '__global int *__private' to parameter of type '__global float *'",
    "7:20: warning: incompatible pointer types passing '__global short *__private' to parameter of type '__global int *'",
    "8:30: warning: passing '__global int *__private' to parameter of type '__global uint *' (aka '__global unsigned int *') converts between pointers to integer types with different sign",
    "9:20: warning: passing '__global uint *' (aka '__global unsigned int *') to parameter of type '__global int *' converts between pointers to integer types with different sign",
    "10:20: warning: passing 'const __global float *__private' to parameter of type '__global float *' discards qualifiers",
    "11:23: warning: incompatible pointer types passing '__global float *__private' to parameter of type '__global int *'",
    "13:26: warning: passing 'const __global half *__private' to parameter of type '__global half *' discards qualifiers",
    "15:20: warning: incompatible pointer types passing '__global float4 *' to parameter of type '__global int *'",
]
"""``clang-15 -cc1 -x cl -cl-std=CL1.2 -fsyntax-only -finclude-default-header``'s, word for word and place for
place."""


def test_a_pointer_to_other_elements_or_a_const_one_is_clangs_warning() -> None:
    assert compile_source(SOURCE).build_log.splitlines() == [f"kernel.cl:{w}" for w in WARNINGS]


RUN = SOURCE.replace("    vstore4(f4, 0, c);\n", "").replace("    vstore_half(f4.x, 0, ch);\n", "")
"""The stores of ``SOURCE`` but those through a ``const`` pointer: the simulator makes a store through a ``const``
parameter the ``write_to_read_only`` finding (the sim backend reads such a buffer in place)."""


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")
def test_the_store_is_the_datas_bits_on_every_device(device_ctx: wia.Context) -> None:
    rng = np.random.default_rng(20261205)
    f, c = rng.random(16, np.float32), rng.random(4, np.float32)
    i, s, u = rng.integers(-9, 9, 16, np.int32), rng.integers(-9, 9, 16, np.int16), rng.integers(0, 9, 16, np.uint32)
    h, ch = rng.random(8).astype(np.float16), rng.random(4).astype(np.float16)
    got = run_arrays(device_ctx, RUN, "k", [f, i, s, u, c, h, ch], 1, 1)
    i4 = np.array([1, 2, -3, 4], np.int32)
    f4 = np.array([1.5, -2.0, 0.25, 3.0], np.float32)
    f, i, s, u, c, h, ch = (a.copy() for a in (f, i, s, u, c, h, ch))
    f[0:4] = i4.view(np.float32)
    i[4:8] = f4.view(np.int32)
    s[0:8] = i4.view(np.int16)
    i[8:12] = i4
    u[4:8] = i4.view(np.uint32)
    f[6:8] = i4[:2].view(np.float32)
    f[8:12] = 1.0
    f[4:8] = i4.view(np.float32)  # (vstore4 at 1 through a float4 pointer: 4 ints on, as the data's overload moves)
    h[2:4] = f4[:2]
    for name, want, have in zip(["f", "i", "s", "u", "c", "h", "ch"], (f, i, s, u, c, h, ch), got, strict=True):
        assert have.tobytes() == want.tobytes(), name


K = "__kernel void k(__global float* p, __constant float* cp, __global float4* p4) { float2 f2 = (float2)1; float4 f4 = (float4)2; %s }"


@pytest.mark.parametrize(
    ("body", "at", "message"),
    [
        ("vstore4(f2, 0, p);", "1:127", "no matching function for call to 'vstore4'"),
        ("vstore2(f4, 0, p);", "1:127", "no matching function for call to 'vstore2'"),
        ("vstore4(f4, 0, cp);", "1:127", "no matching function for call to 'vstore4'"),
        ("vstore_half4(f4, 0, cp);", "1:127", "no matching function for call to 'vstore_half4'"),
        ("vstore4(f4, 0, 0);", "1:127", "call to 'vstore4' is ambiguous"),
        ("vstore4(1.0f, 0, p4);", "1:127", "call to 'vstore4' is ambiguous"),
    ],
)
def test_data_of_another_length_a_constant_or_null_pointer_is_clangs_error(
    device_ctx: wia.Context, request: pytest.FixtureRequest, body: str, at: str, message: str
) -> None:
    """Clang's words, but for the name PoCL's header gives the built-in ('_cl_vstore4')."""
    refusal = build_error(device_ctx, K % body)
    assert message.replace("'vstore", "'_cl_vstore") in refusal or message in refusal
    if request.node.callspec.params.get("device_ctx") == "sim":
        assert f"kernel.cl:{at}: error: {message}" in refusal


F = (
    "typedef struct { int a; } S; struct T { int a; }; float4 ff(float4 a) { return a; } float gg(float a) { return a; } "
    "int ft(struct T t) { return t.a; }\n"
    "__kernel void k(__global float4* o) { int4 i4 = (int4)1; uint4 u4 = (uint4)1; float2 f2 = (float2)1; float4 f4 = (float4)1; S s = {1}; %s }"
)


@pytest.mark.parametrize(
    ("body", "at", "message"),
    [
        (
            "o[0] = ff(i4);",
            "2:146",
            "passing '__private int4' (vector of 4 'int' values) to parameter of incompatible type 'float4' (vector of 4 'float' values)",
        ),
        (
            "o[0] = ff(u4);",
            "2:146",
            "passing '__private uint4' (vector of 4 'uint' values) to parameter of incompatible type 'float4' (vector of 4 'float' values)",
        ),
        (
            "o[0] = ff(f2);",
            "2:146",
            "passing '__private float2' (vector of 2 'float' values) to parameter of incompatible type 'float4' (vector of 4 'float' values)",
        ),
        (
            "o[0].x = gg(f4);",
            "2:148",
            "passing '__private float4' (vector of 4 'float' values) to parameter of incompatible type 'float'",
        ),
        ("o[0].x = ft(s);", "2:148", "passing '__private S' to parameter of incompatible type 'struct T'"),
    ],
)
def test_a_program_functions_parameter_takes_no_other_vector_or_struct(
    device_ctx: wia.Context, request: pytest.FixtureRequest, body: str, at: str, message: str
) -> None:
    assert_refused(device_ctx, request, F % body, message, at)
