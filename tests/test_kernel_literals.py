"""Braces and compound literals (C99 6.7.8, 6.5.2.5) for scalars, vectors, structs and arrays: ``float4 v = {a,
b, c, d}``, ``float s = {x}``, ``(float2){x, y}``, ``(P){.n = i, .x = 2}``, ``((int[]){5, 6, 7, 8})[k]``,
a helper returning ``(P){x, 3}``. Clang (PoCL's and Oclgrind's front end) takes them all; a
vector's braces must hold exactly its components. String literals used as pointers, and ``HUGE_VAL``'s type.
Through the public HAL on the simulator and, where installed, on PoCL and Oclgrind, against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import build_error, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source, run_kernel
from wia_sim.kernels.frontend import KernelCompileError
from wia_sim.kernels.lanes import launch_geometry

SOURCE = r"""
typedef struct { float x; int n; } P;

P make(float x) { return (P){x, 3}; }

float weight(const P* p) { return p->x * (float)p->n; }

__kernel void literals(__global const float* a, __global const float* b, __global float* out)
{
    const int i = get_global_id(0);
    float4 v = {a[i], 2.0f, (float2)(b[i], -1.0f)};
    int2 w = {i, 1};
    float s = {a[i] * 3.0f};
    float2 p = (float2){a[i], b[i]};
    P q = (P){.n = i, .x = 2.0f};
    int picked = ((int[]){5, 6, 7, 8})[i & 3];
    const P r = (P){b[i], i % 5};                           // (&(P){...} Clang gives no address space)
    const float pw = weight(&r);
    out[8 * i + 0] = v.x + v.y * v.z + v.w;
    out[8 * i + 1] = (float)(w.x * 10 + w.y);
    out[8 * i + 2] = s;
    out[8 * i + 3] = p.x - p.y;
    out[8 * i + 4] = q.x * (float)q.n;
    out[8 * i + 5] = (float)(picked + make(1.0f).n);
    out[8 * i + 6] = pw;
    out[8 * i + 7] = make(a[i]).x;
}
"""

N = 64


def test_braces_and_compound_literals(device_ctx: wia.Context) -> None:
    rng = np.random.default_rng(17)
    a, b = (rng.uniform(-4, 4, N).astype(np.float32) for _ in range(2))
    got = run_arrays(device_ctx, SOURCE, "literals", [a, b, np.full((N, 8), np.nan, np.float32)], N, 16)[2]

    i = np.arange(N)
    f32 = np.float32
    want = np.stack(
        [
            a + f32(2) * b + f32(-1),
            (i * 10 + 1).astype(f32),
            a * f32(3),
            a - b,
            f32(2) * i.astype(f32),
            (np.array([5, 6, 7, 8])[i & 3] + 3).astype(f32),
            b * (i % 5).astype(f32),
            a,
        ],
        axis=1,
    ).astype(f32)
    np.testing.assert_array_equal(got, want)


def _run_sim(source: str, out: np.ndarray) -> None:
    run_kernel(compile_source(source), "k", [out.view(np.uint8)], launch_geometry((8, 1, 1), (8, 1, 1), 256, 1))


@pytest.mark.parametrize(
    "use",
    [
        "o[i] = weight(&(P){1.5f, i});",  # passed to a helper's pointer
        "const P* p = &(P){1.5f, i}; o[i] = p->x;",  # initializing a pointer
        "int* q = (int[]){1, 2}; o[i] = q[1];",  # an array literal decayed
        "o[i] = vload2(0, (float[]){1.5f, 2.5f}).y;",  # a built-in's pointer parameter: no overload takes it
    ],
)
def test_a_pointer_to_a_compound_literal_converts_to_no_pointer_type(device_ctx: wia.Context, use: str) -> None:
    """Clang gives a compound literal inside a function no address space in OpenCL C 1.2, so a pointer to it
    converts to no address-spaced pointer: "changes address space of pointer" (PoCL 3.1 and Oclgrind 21.10; the
    simulator ran these). Its elements and members are read as any object's (``test_braces_and_compound_literals``)."""
    source = (
        "typedef struct { float x; int n; } P;\n"
        "float weight(const P* p) { return p->x * (float)p->n; }\n"
        f"__kernel void k(__global float* o) {{ int i = get_global_id(0); {use} }}\n"
    )
    said = build_error(device_ctx, source, "k")
    assert "changes address space of pointer" in said or "no matching function for call to" in said


def test_a_vector_member_braced_short_is_a_build_error() -> None:
    """The checker follows brace lists into struct members (``initializers.py``): a vector member's braces list
    all its components, as Clang requires (no splat or zero fill)."""
    source = (
        "typedef struct { float4 v; int n; } S;\n"
        "__kernel void k(__global float* o) { S s = {{1.0f}, 2}; o[get_global_id(0)] = s.v.x; }\n"
    )
    with pytest.raises(KernelCompileError) as info:
        compile_source(source)
    assert "error: too few elements in vector initialization (expected 4 elements, have 1)" in info.value.build_log


SINGLE_CONSTANTS = r"""
__kernel void k(__global const float* x, __global float* out, __global int* size)
{
    const int i = get_global_id(0);
    out[3 * i] = 0.33333 * x[i];          /* a double product rounded to float, or a float product */
    out[3 * i + 1] = 0x1.000001p0 * x[i];  /* 1 + 2^-24: a double, or 1.0f (ties to even) */
    out[3 * i + 2] = 1.00000005960464477625798673798840354720596224069595336914062;  /* through a double: 1.0f */
    if (i == 0)
        size[0] = sizeof(1.5);
}
"""


@pytest.mark.parametrize("options", ["", "-cl-single-precision-constant"])
def test_single_precision_constant_makes_unsuffixed_floating_constants_floats(
    device_ctx: wia.Context, request: pytest.FixtureRequest, options: str
) -> None:
    """OpenCL 1.2 5.6.4.3: ``-cl-single-precision-constant`` treats double constants as single precision, as Clang
    does it: the double constant cast to float (rounded twice, from its digits to a double, then to a float). On a
    device with doubles, without it, the constant is a double and the arithmetic with it is done in double."""
    if options and request.node.callspec.params.get("device_ctx") == "oclgrind":
        request.applymarker(pytest.mark.xfail(strict=True, reason="Oclgrind 21.10 ignores the option"))
    x = np.random.default_rng(5).uniform(-4, 4, 16).astype(np.float32)
    _, out, size = run_arrays(
        device_ctx, SINGLE_CONSTANTS, "k", [x, np.zeros(48, np.float32), np.zeros(1, np.int32)], 16, 8, options=options
    )
    if options:
        want = [np.float32(0.33333) * x, x, np.full(16, np.float32(1.0))]
    else:
        x64 = x.astype(np.float64)
        want = [(0.33333 * x64).astype(np.float32), ((1 + 2.0**-24) * x64).astype(np.float32), np.ones(16, np.float32)]
    np.testing.assert_array_equal(out.reshape(16, 3).T, np.array(want, np.float32))
    assert size[0] == (4 if options else 8)


STRINGS = r"""
__kernel void strings(__global const int* k, __global char* out)
{
    const int i = get_global_id(0);
    constant char* word = "kernel";
    constant char* joined = "ab" "\x43" "d";     /* literals joined, with an escape */
    out[4 * i] = word[k[i] % 7];                 /* the NUL at index 6 too */
    out[4 * i + 1] = "xyz"[k[i] % 3];
    out[4 * i + 2] = joined[k[i] % 4];
    out[4 * i + 3] = *(word + 1) + (char)sizeof("ab");
}
"""


def test_a_string_literal_is_a_pointer_to_constant_chars(device_ctx: wia.Context) -> None:
    """OpenCL C 1.2 6.5.3: a string literal is an array of chars in ``__constant`` memory, which decays to a
    pointer. Found by the CTS sweep (test_preprocessors: ``constant char *f = "" __FILE__;``): the simulator failed
    the launch with INTERNAL."""
    n = 32
    k = np.random.default_rng().integers(0, 1000, n).astype(np.int32)
    _, out = run_arrays(device_ctx, STRINGS, "strings", [k, np.zeros(4 * n, np.int8)], n, 16)
    word, xyz, joined = b"kernel\0", b"xyz", b"abCd"
    want = [[word[v % 7], xyz[v % 3], joined[v % 4], ord("e") + 3] for v in k]
    np.testing.assert_array_equal(out.view(np.uint8).reshape(n, 4), np.array(want, np.uint8))


def test_huge_val_is_a_double_on_a_device_with_doubles(device_ctx: wia.Context) -> None:
    """OpenCL C 1.2 6.12.2: HUGE_VAL is a double constant (Clang's __builtin_huge_val()), HUGE_VALF a float one;
    found by the CTS sweep (test_numeric_constants). The simulator typed HUGE_VAL as a float."""
    source = r"""
    __kernel void k(__global ulong* out) {
        out[0] = sizeof(HUGE_VAL);
        out[1] = sizeof(HUGE_VALF);
        out[2] = as_ulong(HUGE_VAL);
    }"""
    (out,) = run_arrays(device_ctx, source, "k", [np.zeros(3, np.uint64)], 1, 1)
    assert out.tolist() == [8, 4, 0x7FF0000000000000]
