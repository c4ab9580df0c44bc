"""Clang's GNU library built-ins in OpenCL C (``wia_sim/kernels/gnu_builtins.py``): ``__builtin_popcount``,
``__builtin_clz``/``ctz``/``ffs``/``parity``/``clrsb`` and their ``l``/``ll`` forms, ``__builtin_bswap16/32/64``,
``__builtin_abs``, the float and double math (``__builtin_fabsf``, ``__builtin_sqrtf``, ``__builtin_fmaf``, ...),
``__builtin_nanf("payload")``, ``__builtin_inff()``, the classifications, ``__builtin_assume``, bit reversal and
rotation, ``__builtin_memcpy``/``memmove``/``memset``; and Clang's nullability qualifiers and enumerator attributes.
The simulator refused every one ("use of undeclared identifier" or a syntax error); PoCL 3.1 builds and runs them
all, Oclgrind 21.10 builds them and cannot run most built-ins (its interpreter has none of the LLVM intrinsics they
become: ``llvm.ctpop``, ``llvm.sqrt``, ...: "Undefined external function", measured for each name). The math
Clang leaves to the C library (``__builtin_atan2f`` calls ``atan2f``) links on no device. Values against Python's
and NumPy's C semantics; errors in Clang's words and places, measured on both devices."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import assert_refused, compile_errors, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.program import KernelCompileError

N = 64

INTEGER = """
__kernel void k(__global const uint* u, __global const ulong* w, __global const int* s, __global const long* l,
                __global long* o) {
    int i = get_global_id(0);
    uint x = u[i]; ulong y = w[i]; int a = s[i]; long b = l[i];
    __global long* r = o + 20 * i;
    r[0] = __builtin_popcount(x);
    r[1] = __builtin_popcountl(y) + 100 * __builtin_popcountll(y >> 7);
    r[2] = x ? __builtin_clz(x) : -1;
    r[3] = y ? __builtin_clzl(y) + 100 * __builtin_clzll(y | 1) : -1;
    r[4] = x ? __builtin_ctz(x) : -1;
    r[5] = y ? __builtin_ctzl(y) + 100 * __builtin_ctzll(y) : -1;
    r[6] = __builtin_ffs(a) + 100 * __builtin_ffsl(b) + 10000 * __builtin_ffsll(b >> 3);
    r[7] = __builtin_parity(x) + 2 * __builtin_parityl(y) + 4 * __builtin_parityll(y >> 1);
    r[8] = __builtin_clrsb(a) + 100 * __builtin_clrsbl(b) + 10000 * __builtin_clrsbll(b >> 5);
    r[9] = __builtin_bswap16((ushort)x);
    r[10] = __builtin_bswap32(x);
    r[11] = __builtin_bswap64(y);
    r[12] = a == INT_MIN ? 0 : __builtin_abs(a);   /* (C: undefined for INT_MIN) */
    r[13] = b == LONG_MIN ? 0 : __builtin_labs(b);
    r[14] = __builtin_llabs(b >> 2);
    r[15] = __builtin_popcount(__builtin_bswap32(x) ^ a);
    r[16] = b ? __builtin_clzll(b) : -1;   /* long long: 128 bits, a negative long's upper half all ones */
    r[17] = __builtin_popcountll(b);
    r[18] = __builtin_clrsbll(y);          /* an unsigned long's upper half zeros */
    r[19] = __builtin_clzll(a) + 1000 * __builtin_clzll((uint)a | 1u);
}
"""


def _ctz(v: int) -> int:
    return (v & -v).bit_length() - 1


def _clrsb(v: int, bits: int) -> int:
    pattern = (v ^ (v >> (bits - 1))) & ((1 << bits) - 1)
    return bits - pattern.bit_length() - 1


def _signed(v: int, bits: int) -> int:
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


def _integer_reference(u: np.ndarray, w: np.ndarray, s: np.ndarray, l: np.ndarray) -> np.ndarray:  # noqa: E741
    rows = []
    for x, y, a, b in zip(u.tolist(), w.tolist(), s.tolist(), l.tolist(), strict=True):
        pc = lambda v: bin(v).count("1")  # noqa: E731
        a32, b64 = a & 0xFFFFFFFF, b & (2**64 - 1)
        wide = lambda v: v & (2**128 - 1)  # noqa: E731 (Clang's OpenCL ``long long``: 128 bits)
        rows.append(
            [
                pc(x),
                pc(y) + 100 * pc(y >> 7),
                32 - x.bit_length() if x else -1,
                64 - y.bit_length() + 100 * (128 - (y | 1).bit_length()) if y else -1,
                _ctz(x) if x else -1,
                101 * _ctz(y) if y else -1,
                (_ctz(a32) + 1 if a else 0)
                + 100 * (_ctz(b64) + 1 if b else 0)
                + 10000 * (_ctz((b >> 3) & (2**64 - 1)) + 1 if b >> 3 else 0),
                pc(x) % 2 + 2 * (pc(y) % 2) + 4 * (pc(y >> 1) % 2),
                _clrsb(a, 32) + 100 * _clrsb(b, 64) + 10000 * _clrsb(b >> 5, 128),
                int.from_bytes((x & 0xFFFF).to_bytes(2, "little"), "big"),
                int.from_bytes(x.to_bytes(4, "little"), "big"),
                _signed(int.from_bytes(y.to_bytes(8, "little"), "big"), 64),
                0 if a == -(2**31) else abs(a),
                0 if b == -(2**63) else abs(b),
                abs(b >> 2),
                pc(int.from_bytes(x.to_bytes(4, "little"), "big") ^ a32),
                128 - wide(b).bit_length() if b else -1,
                pc(wide(b)),
                _clrsb(y, 128),
                128 - wide(a).bit_length() + 1000 * (128 - (a32 | 1).bit_length()),
            ]
        )
    return np.array(rows, np.int64)


def _oclgrind_lacks_the_intrinsics(request: pytest.FixtureRequest) -> None:
    if request.node.callspec.params.get("device_ctx") == "oclgrind":
        pytest.skip(
            "Oclgrind 21.10 cannot run the LLVM intrinsics these become (llvm.ctpop, llvm.ctlz, llvm.sqrt, llvm.floor, "
            "llvm.pow, ...): 'Undefined external function', the kernel is not created (measured for each name)"
        )


def test_the_integer_builtins_compute_what_c_defines(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    _oclgrind_lacks_the_intrinsics(request)
    rng = np.random.default_rng(11)
    u = rng.integers(0, 2**32, N, dtype=np.uint32)
    u[:4] = [0, 1, 0x80000000, 0xFFFFFFFF]
    w = rng.integers(0, 2**64, N, dtype=np.uint64) >> rng.integers(0, 64, N).astype(np.uint64)
    w[:3] = [0, 1, 2**63]
    s = rng.integers(-(2**31), 2**31, N, dtype=np.int32)
    s[:4] = [0, -1, -(2**31), 2**31 - 1]
    l = rng.integers(-(2**63), 2**63, N, dtype=np.int64) >> rng.integers(0, 63, N)  # noqa: E741
    l[:4] = [0, -1, -(2**63), 2**63 - 1]
    *_, o = run_arrays(device_ctx, INTEGER, "k", [u, w, s, l, np.zeros(20 * N, np.int64)], N, 16)
    np.testing.assert_array_equal(o.reshape(N, 20), _integer_reference(u, w, s, l))


FLOATS = """
__kernel void k(__global const float* f, __global const float* g, __global float* o) {
    int i = get_global_id(0);
    float x = f[i], y = g[i];
    __global float* r = o + 16 * i;
    r[0] = __builtin_fabsf(x);
    r[1] = __builtin_sqrtf(__builtin_fabsf(x));
    r[2] = __builtin_floorf(x);
    r[3] = __builtin_ceilf(x);
    r[4] = __builtin_truncf(x);
    r[5] = __builtin_roundf(x);
    r[6] = __builtin_rintf(x) + __builtin_nearbyintf(y);
    r[7] = __builtin_fminf(x, y);
    r[8] = __builtin_fmaxf(x, y);
    r[9] = __builtin_copysignf(x, y);
    r[10] = __builtin_fmaf(x, y, 0.25f);
    r[11] = __builtin_exp2f(y) + __builtin_log2f(__builtin_fabsf(x) + 1.0f) + __builtin_log10f(y * y + 1.0f);
    r[12] = __builtin_expf(y);
    r[13] = __builtin_logf(__builtin_fabsf(x) + 1.0f);
    r[14] = __builtin_sinf(y) + __builtin_cosf(x);
    r[15] = __builtin_fmodf(x, y) + __builtin_powf(__builtin_fabsf(y), 0.5f);
}
"""


def test_the_float_builtins_are_opencls_functions_on_c_types(
    device_ctx: wia.Context, request: pytest.FixtureRequest
) -> None:
    _oclgrind_lacks_the_intrinsics(request)
    rng = np.random.default_rng(12)
    f = (rng.standard_normal(N) * 10).astype(np.float32)
    f[:4] = [2.5, -2.5, 0.5, -0.0]
    g = rng.standard_normal(N).astype(np.float32)
    g[:2] = [-1.0, 3.5]
    (o,) = run_arrays(device_ctx, FLOATS, "k", [f, g, np.zeros(16 * N, np.float32)], N, 16)[2:]
    r = o.reshape(N, 16)
    x, y = f.astype(np.float64), g.astype(np.float64)
    exact = {
        0: np.abs(f),
        2: np.floor(f),
        3: np.ceil(f),
        4: np.trunc(f),
        5: (np.sign(f) * np.floor(np.abs(f) + np.float32(0.5))).astype(np.float32),  # C: halves away from zero
        6: np.rint(f) + np.rint(g),
        7: np.fmin(f, g),
        8: np.fmax(f, g),
        9: np.copysign(f, g),
    }
    for column, want in exact.items():
        np.testing.assert_array_equal(r[:, column], want, err_msg=f"column {column}")
    # correctly rounded or within OpenCL 1.2's ulp bounds (7.4: sqrt 3, exp 3, log 3, sin and cos 4, pow 16)
    np.testing.assert_allclose(r[:, 1], np.sqrt(np.abs(x)), rtol=4e-7)
    np.testing.assert_allclose(r[:, 10], x * y + 0.25, rtol=1.2e-7, atol=1e-7)
    np.testing.assert_allclose(r[:, 12], np.exp(y), rtol=4e-7)
    np.testing.assert_allclose(r[:, 13], np.log(np.abs(x) + 1), rtol=4e-7, atol=1e-7)
    logs = np.exp2(y) + np.log2(np.abs(x) + 1) + np.log10(y * y + 1)
    np.testing.assert_allclose(r[:, 11], logs, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(r[:, 14], np.sin(y) + np.cos(x), rtol=2e-6, atol=2e-6)
    np.testing.assert_allclose(r[:, 15], np.fmod(x, y) + np.sqrt(np.abs(y)), rtol=4e-6, atol=4e-6)


CONSTANTS = """
__kernel void k(__global int* o, __global const float* v) {
    o[0] = as_int(__builtin_nanf(""));
    o[1] = as_int(__builtin_nanf("0x12"));
    o[2] = as_int(__builtin_nanf("010"));
    o[3] = as_int(__builtin_inff());
    o[4] = as_int(-__builtin_huge_valf());
    for (int k = 0; k < 6; k++) {
        float x = v[k];
        o[5 + k] = __builtin_isnan(x) + 2 * __builtin_isinf(x) + 4 * __builtin_isfinite(x)
                 + 8 * __builtin_isnormal(x) + 16 * __builtin_signbit(x) + 32 * __builtin_isunordered(x, 1.0);
    }
    int t = 3;
    o[11] = __builtin_ctz(t++) + 10 * t;           /* the argument once */
    o[12] = __builtin_ffs(t += 2) + 10 * t;
    int u = 1;
    __builtin_assume(u++ > 0);                     /* never evaluated */
    o[13] = u;
}
"""


def test_constants_classifications_and_single_evaluation(
    device_ctx: wia.Context, request: pytest.FixtureRequest
) -> None:
    _oclgrind_lacks_the_intrinsics(request)
    v = np.array([np.nan, -np.inf, 1.5, -0.0, 1e-40, -3.0], np.float32)
    o, _ = run_arrays(device_ctx, CONSTANTS, "k", [np.zeros(14, np.int32), v], 1, 1)
    bits = [0x7FC00000, 0x7FC00012, 0x7FC00008, 0x7F800000, np.int32(np.uint32(0xFF800000).view(np.int32))]
    np.testing.assert_array_equal(o[:5], bits)
    np.testing.assert_array_equal(o[5:11], [1 + 32, 2 + 16, 4 + 8, 4 + 16, 4, 4 + 8 + 16])
    np.testing.assert_array_equal(o[11:], [0 + 40, 2 + 60, 1])


ORDERED = """
__kernel void k(__global const float* x, __global const float* y, __global const int* n, __global int* o) {
    int g = get_global_id(0);
    float a = x[g], b = y[g];
    int i = n[g];
    o[g] = __builtin_isless(a, b) + 2 * __builtin_isgreater(a, b) + 4 * __builtin_islessequal(a, b)
         + 8 * __builtin_isgreaterequal(a, b) + 16 * __builtin_islessgreater(a, b) + 32 * __builtin_isunordered(a, b)
         + 64 * __builtin_isless(i, b) + 128 * __builtin_isgreater(a, i) + 256 * __builtin_isunordered(i, a)
         + 512 * __builtin_islessequal(a, 0.5);   /* (the float converted to the double: their common type) */
}
"""


def test_the_ordered_comparisons_convert_to_a_common_floating_type(device_ctx: wia.Context) -> None:
    """C's quiet comparisons (``__builtin_isless`` ...): the arguments converted to their common type (an int to
    the float beside it), each 1 or 0, none true but ``isunordered`` where a NaN is (values against NumPy's)."""
    rng = np.random.default_rng(29)
    x = rng.integers(-4, 5, N).astype(np.float32) / np.float32(2)
    y = rng.integers(-4, 5, N).astype(np.float32) / np.float32(2)
    x[::7], y[3::9], y[5::11] = np.nan, np.nan, np.inf
    n = rng.integers(-3, 4, N).astype(np.int32)
    (o,) = run_arrays(device_ctx, ORDERED, "k", [x, y, n, np.zeros(N, np.int32)], N, N)[3:]
    f, d = x.astype(np.float64), y.astype(np.float64)
    with np.errstate(invalid="ignore"):
        parts = [f < d, f > d, f <= d, f >= d, (f < d) | (f > d), np.isnan(f) | np.isnan(d)]
        parts += [n < d, f > n, np.isnan(f), f <= 0.5]
    np.testing.assert_array_equal(o, sum(p.astype(np.int32) << k for k, p in enumerate(parts)))


def test_double_forms_take_doubles(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    _oclgrind_lacks_the_intrinsics(request)
    src = """#pragma OPENCL EXTENSION cl_khr_fp64 : enable
    __kernel void k(__global double* o, __global const double* v) {
        o[0] = __builtin_fabs(v[0]); o[1] = __builtin_sqrt(v[1]); o[2] = __builtin_fma(v[0], v[1], v[2]);
        o[3] = as_double(as_long(__builtin_nan("5"))); o[4] = __builtin_inf(); o[5] = __builtin_isnan(v[2] / 0.0);
    }"""
    v = np.array([-1.25, 2.0, 0.0])
    o, _ = run_arrays(device_ctx, src, "k", [np.zeros(6), v], 1, 1)
    np.testing.assert_array_equal(o[[0, 1, 2, 4, 5]], [1.25, np.sqrt(2.0), -2.5, np.inf, 1.0])
    assert o[3:4].view(np.int64)[0] == 0x7FF8000000000005


@pytest.mark.parametrize(
    ("body", "message", "at"),
    [
        ("o[0] = __builtin_popcount(1, 2);", "too many arguments to function call, expected 1, have 2", "1:65"),
        ("o[0] = __builtin_popcount();", "too few arguments to function call, expected 1, have 0", "1:62"),
        (
            "int4 v = 1; o[0] = __builtin_popcount(v);",
            "passing '__private int4' (vector of 4 'int' values) to parameter of incompatible type 'unsigned int'",
            "1:74",
        ),
        (
            "o[0] = __builtin_fabsf(o);",
            "passing '__global int *__private' to parameter of incompatible type 'float'",
            "1:59",
        ),
        (
            "o[0] = __builtin_isnan(o[1]);",
            "floating point classification requires argument of floating point type (passed in 'int')",
            "1:59",
        ),
        (
            "float4 f = 1; o[0] = __builtin_isnan(f);",
            "floating point classification requires argument of floating point type (passed in 'float4' (vector "
            "of 4 'float' values))",
            "1:73",
        ),
        (
            "o[0] = __builtin_isunordered(1, 2);",
            "ordered compare requires two args of floating point type ('int' and 'int')",
            "1:65",
        ),
        (
            "float4 f = 1; o[0] = __builtin_isless(f, f);",
            "ordered compare requires two args of floating point type ('float4' (vector of 4 'float' values) and "
            "'float4')",
            "1:74",
        ),
        (
            "o[0] = __builtin_isgreater(1.0f, o);",
            "ordered compare requires two args of floating point type ('float' and '__global int *')",
            "1:63",
        ),
        ("o[0] = __builtin_islessgreater(1.0f);", "too few arguments to function call, expected 2, have 1", "1:71"),
        ("__builtin_memcpy(o, o + 1);", "too few arguments to function call, expected 3, have 2", "1:61"),
        (
            "__builtin_memcpy(1, o, 4);",
            "incompatible integer to pointer conversion passing 'int' to parameter of type 'void *'",
            "1:53",
        ),
    ],
)
def test_a_call_that_does_not_match_the_prototype_is_clangs_error(
    device_ctx: wia.Context, request: pytest.FixtureRequest, body: str, message: str, at: str
) -> None:
    if "integer to pointer" in message and request.node.callspec.params.get("device_ctx") == "oclgrind":
        pytest.skip("Clang 14 (Oclgrind 21.10) only warns; Clang 15 (PoCL 3.1) refuses")
    assert_refused(device_ctx, request, f"__kernel void k(__global int* o) {{ {body} }}", message, at)


def test_a_pointer_passed_for_an_integer_is_clangs_error() -> None:
    ctx = wia.create_context()
    with pytest.raises(wia.WiaError) as info:
        wia.compile_kernel(ctx, "__kernel void k(__global int* o) { o[0] = __builtin_popcountll(o); }", "k")
    assert (
        "kernel.cl:1:64: error: incompatible pointer to integer conversion passing '__global int *__private' to "
        "parameter of type 'unsigned long long'" in str(info.value)
    )


@pytest.mark.parametrize("body", ["o[0] = __builtin_isless((float4)1, 2.0f).x;", "o[0] = ((int)nope).x;"])
def test_nothing_more_is_said_of_what_is_made_of_an_operand_in_error(body: str) -> None:
    """Clang (PoCL 3.1, Oclgrind 21.10) reports the call's or the name's error alone, not the member reference
    on the cast made of it (the simulator said "member reference base type 'int' is not a structure" too)."""
    ctx = wia.create_context()
    with pytest.raises(wia.WiaError) as info:
        wia.compile_kernel(ctx, f"__kernel void k(__global int* o) {{ {body} }}", "k")
    assert str(info.value).count("error:") == 1, str(info.value)


def test_nan_of_no_string_literal_is_refused() -> None:
    """Clang folds ``__builtin_nanf`` from a string literal only; PoCL 3.1 then finds no ``nanf`` to link."""
    ctx = wia.create_context()
    src = '__kernel void k(__global int* o) { __constant char* s = ""; o[0] = as_int(__builtin_nanf(s)); }'
    with pytest.raises(wia.WiaError, match=r"1:90: error: '__builtin_nanf' takes a string literal"):
        wia.compile_kernel(ctx, src, "k")


def test_math_left_to_the_c_library_is_refused_as_no_device_links_it() -> None:
    """``__builtin_atan2f`` is a call of ``atan2f`` (Clang has no intrinsic for it): PoCL 3.1 fails the build,
    "Cannot find symbol atan2f in kernel library"; the simulator refuses it at the call."""
    ctx = wia.create_context()
    src = "__kernel void k(__global float* o) { o[0] = __builtin_atan2f(o[1], o[2]); }"
    with pytest.raises(wia.WiaError, match=r"1:45: error: '__builtin_atan2f' is a call of the C library's 'atan2f'"):
        wia.compile_kernel(ctx, src, "k")


NULLABLE = """
enum E { A __attribute__((deprecated)) = 1, B, C __attribute__((unused)), D };
int first(__global int* _Nonnull p, __global int* _Nullable q) { return p[0] + (q ? q[0] : 0); }
__kernel void k(__global int* o) {
    __global int* _Null_unspecified r = o;
    o[1] = first(o, 0) + B * 10 + D * 100 + C * 1000;
    o[2] = r[1];
}
"""


def test_nullability_qualifiers_and_enumerator_attributes_build(device_ctx: wia.Context) -> None:
    """Both were syntax errors on the simulator; every device builds them (the attributes change nothing here)."""
    (o,) = run_arrays(device_ctx, NULLABLE, "k", [np.array([5, 0, 0], np.int32)], 1, 1)
    np.testing.assert_array_equal(o, [5, 5 + 20 + 400 + 3000, 5 + 20 + 400 + 3000])


BYTES = """
typedef struct { char c; int i; short s; } S;
__kernel void k(__global int* out) {
    int g = get_global_id(0);
    __global int* o = out + 16 * g;
    S s = {1, 2 + g, 3};
    S t;
    __builtin_memcpy(&t, &s, sizeof(S));                     /* private to private, padding and all */
    o[0] = t.c + t.i * 10 + t.s * 100;
    int a[6] = {1, 2, 3, 4, 5, 6};
    __builtin_memmove(a + 1, a, 4 * sizeof(int));            /* overlapping */
    o[1] = a[0] + a[1] * 10 + a[2] * 100 + a[3] * 1000 + a[4] * 10000 + a[5] * 100000;
    __builtin_memset(o + 2, 0x11 + g, 6);                    /* __global, a partial word */
    __local uchar l[16];
    __builtin_memset(l + 4 * g, g + 1, 4);
    barrier(CLK_LOCAL_MEM_FENCE);
    __builtin_memcpy(o + 5, l, 16);                          /* __local to __global */
    float4 v = (float4)(1.5f, 2.5f, g, -1.0f);
    __builtin_memcpy(o + 9, &v, 16);
}
"""


def test_memcpy_memmove_and_memset_move_bytes_in_any_address_space(device_ctx: wia.Context) -> None:
    (o,) = run_arrays(device_ctx, BYTES, "k", [np.full(64, -1, np.int32)], 4, 4)
    rows = o.reshape(4, 16)
    for g, r in enumerate(rows):
        assert r[0] == 1 + (2 + g) * 10 + 300
        assert r[1] == 1 + 10 + 200 + 3000 + 40000 + 600000  # {1, 1, 2, 3, 4, 6}
        filled = np.frombuffer(r[2:4].tobytes(), np.uint8)
        np.testing.assert_array_equal(filled, [0x11 + g] * 6 + [0xFF] * 2)
        np.testing.assert_array_equal(np.frombuffer(r[5:9].tobytes(), np.uint8), np.repeat(np.arange(1, 5), 4))
        np.testing.assert_array_equal(r[9:13].view(np.float32), [1.5, 2.5, g, -1.0])
        assert r[4] == -1 and (r[13:] == -1).all()


def test_memcpy_out_of_bounds_is_the_finding_at_its_line() -> None:
    """Each byte is an access the checks see: one past a buffer is the out-of-bounds finding, at the call."""
    ctx = wia.create_context()
    src = "__kernel void k(__global int* o) {\n    int a[2] = {1, 2};\n    __builtin_memcpy(o, a, 12);\n}\n"
    with pytest.raises(wia.WiaError, match=r"kernel.cl:3: out-of-bounds read"):
        run_arrays(ctx, src, "k", [np.zeros(4, np.int32)], 1, 1)


def test_a_byte_nobody_wrote_is_copied_not_used() -> None:
    """memcpy of a half-written private array to __global: no finding (Oclgrind's plugin reports none); the
    bytes stay unwritten, so a later read of them is the finding."""
    ctx = wia.create_context()
    src = """__kernel void k(__global int* o) {
        int a[4]; a[0] = 1; a[1] = 2;
        __builtin_memcpy(o, a, 16);
        o[4] = o[0] + o[1];
        o[5] = o[2];
    }"""
    with pytest.raises(wia.WiaError, match=r"kernel.cl:5: read of uninitialized"):
        run_arrays(ctx, src, "k", [np.zeros(8, np.int32)], 1, 1)
    (o,) = run_arrays(ctx, src.replace("o[5] = o[2];", ""), "k", [np.zeros(8, np.int32)], 1, 1)
    assert (o[0], o[1], o[4]) == (1, 2, 3)


def test_memcpy_to_a_const_object_is_clangs_warning() -> None:
    program = compile_source("__kernel void k(__global int* o) { const int z[2] = {1, 2}; __builtin_memcpy(z, o, 4); }")
    assert (
        "kernel.cl:1:78: warning: passing 'const __private int[2]' to parameter of type '__private void *' discards "
        "qualifiers" in program.build_log
    )


BITS = """
__kernel void k(__global const ulong* w, __global const uint* n, __global ulong* o) {
    int i = get_global_id(0);
    ulong x = w[i]; uint s = n[i];
    __global ulong* r = o + 8 * i;
    r[0] = __builtin_bitreverse8((uchar)x);
    r[1] = __builtin_bitreverse16((ushort)x);
    r[2] = __builtin_bitreverse32((uint)x);
    r[3] = __builtin_bitreverse64(x);
    r[4] = __builtin_rotateleft32((uint)x, s);
    r[5] = __builtin_rotateright32((uint)x, s);
    r[6] = __builtin_rotateleft64(x, s) ^ __builtin_rotateright16((ushort)x, s);
    r[7] = __builtin_expect_with_probability(__builtin_rotateleft8((uchar)x, s), 1, 0.5);
}
"""


def _rotl(v: int, s: int, bits: int) -> int:
    s %= bits
    return ((v << s) | (v >> (bits - s))) & ((1 << bits) - 1)


def test_bit_reversal_and_rotation(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    _oclgrind_lacks_the_intrinsics(request)
    rng = np.random.default_rng(13)
    w = rng.integers(0, 2**64, N, dtype=np.uint64)
    n = rng.integers(0, 200, N, dtype=np.uint32)
    n[:3] = [0, 32, 64]
    *_, o = run_arrays(device_ctx, BITS, "k", [w, n, np.zeros(8 * N, np.uint64)], N, 16)
    want = []
    for x, s in zip(w.tolist(), n.tolist(), strict=True):
        rev = lambda v, bits: int(f"{v & ((1 << bits) - 1):0{bits}b}"[::-1], 2)  # noqa: E731
        want.append(
            [
                rev(x, 8),
                rev(x, 16),
                rev(x, 32),
                rev(x, 64),
                _rotl(x & 0xFFFFFFFF, s, 32),
                _rotl(x & 0xFFFFFFFF, -s % 32, 32),
                _rotl(x, s, 64) ^ _rotl(x & 0xFFFF, -s % 16, 16),
                _rotl(x & 0xFF, s, 8),
            ]
        )
    np.testing.assert_array_equal(o.reshape(N, 8), np.array(want, np.uint64))


FOLDED_NAMES = [f"{n}{s}" for n in ("popcount", "parity", "clz", "ctz", "ffs", "clrsb") for s in ("", "l", "ll")]
LITERALS = ["0", "1", "8u", "0x80000000u", "0xFFFFFFFFu", "0x7FFFFFFF", "0x123456789ABCDEFUL", "010", "123456789"]


def _folding_source(runtime: bool) -> str:
    """Every integer built-in of every literal (``runtime``: of the same values in variables), and a __constant
    table and an array length made of them."""
    calls = [f"__builtin_{n}({f'v[{k}]' if runtime else lit})" for n in FOLDED_NAMES for k, lit in enumerate(LITERALS)]
    return (
        "__constant int table[3] = {__builtin_popcount(7u), __builtin_ctz(8u), __builtin_clzll(1UL)};\n"
        "__kernel void k(__global int* o, __global int* t) {\n"
        f"    const ulong v[{len(LITERALS)}] = {{{', '.join(LITERALS)}}};\n"
        "    int a[__builtin_popcount(15u)];\n"
        "    t[0] = table[0]; t[1] = table[1]; t[2] = table[2]; t[3] = sizeof(a);\n"
        + "".join(f"    o[{k}] = {call};\n" for k, call in enumerate(calls))
        + "}\n"
    )


def _c_reference() -> np.ndarray:
    """C's values (long long 128 bits wide), and -1 where C leaves one undefined (clz and ctz of 0)."""
    out = []
    for name in FOLDED_NAMES:
        base, bits = name.rstrip("l"), {0: 32, 1: 64, 2: 128}[len(name) - len(name.rstrip("l"))]
        for lit in LITERALS:
            digits = lit.rstrip("uUlL")
            u = (int(digits, 8) if digits.startswith("0") and digits.isdigit() else int(digits, 0)) % (1 << bits)
            popcount = bin(u).count("1")
            out.append(
                {
                    "popcount": popcount,
                    "parity": popcount % 2,
                    "clz": bits - u.bit_length() if u else -1,
                    "ctz": _ctz(u) if u else -1,
                    "ffs": _ctz(u) + 1 if u else 0,
                    "clrsb": _clrsb(u - (1 << bits) if u >> (bits - 1) else u, bits),
                }[base]
            )
    return np.array(out, np.int32)


def test_integer_builtins_of_literals_are_integer_constants(device_ctx: wia.Context) -> None:
    """Clang folds them: an array's length, a __constant's initializer (the simulator refused both: "variable
    length arrays are not supported", "statement expression not allowed at file scope"). Oclgrind runs these:
    nothing is left to an intrinsic."""
    n = len(FOLDED_NAMES) * len(LITERALS)
    o, t = run_arrays(device_ctx, _folding_source(False), "k", [np.zeros(n, np.int32), np.zeros(4, np.int32)], 1, 1)
    np.testing.assert_array_equal(t, [3, 3, 127, 16])
    want = _c_reference()
    defined = want >= 0
    np.testing.assert_array_equal(o[defined], want[defined])


def test_folded_values_are_the_run_time_ones(ctx: wia.Context) -> None:
    """The simulator's folded values and its run-time ones agree, the width where C leaves clz and ctz of 0
    undefined too."""
    n = len(FOLDED_NAMES) * len(LITERALS)
    folded, _ = run_arrays(ctx, _folding_source(False), "k", [np.zeros(n, np.int32), np.zeros(4, np.int32)], 1, 1)
    runtime, _ = run_arrays(ctx, _folding_source(True), "k", [np.zeros(n, np.int32), np.zeros(4, np.int32)], 1, 1)
    np.testing.assert_array_equal(folded, runtime)
    want = _c_reference()
    np.testing.assert_array_equal(folded[want >= 0], want[want >= 0])


TYPED = """
inline float from_bits(uint x) { return __builtin_astype(x, float); }
__kernel void k(__global const uint* in, __global float* out, __global uint4* v, __global int4* c) {
    int i = get_global_id(0);
    out[i] = from_bits(in[i]) * 2.0f;
    v[i] = __builtin_astype((float4)(1.0f, -2.0f, 0.5f, (float)i), uint4);
    c[i] = __builtin_convertvector(__builtin_astype(v[i], float4) * 3.75f, int4)
           + __builtin_convertvector((short4)(i, -i, 7, -7), int4);
}
"""


def test_builtin_astype_and_convertvector_are_as_type_and_convert(device_ctx: wia.Context) -> None:
    """Clang's ``__builtin_astype(e, T)`` (behind ``as_T``: Halide writes it in every fp16 kernel) and
    ``__builtin_convertvector(e, T)`` (a C conversion of each component: toward zero from float) of a built-in
    type; the simulator refused both ("invalid expression": the parser takes no type name as an argument)."""
    bits = np.array([0x3F800000, 0x40490FDB, 0xC0000000, 0x00000001], np.uint32)
    _, out, v, c = run_arrays(
        device_ctx,
        TYPED,
        "k",
        [bits, np.zeros(4, np.float32), np.zeros((4, 4), np.uint32), np.zeros((4, 4), np.int32)],
        4,
        4,
    )
    assert out.tolist() == (bits.view(np.float32) * 2).tolist()
    floats = np.array([[1.0, -2.0, 0.5, i] for i in range(4)], np.float32)
    assert (v == floats.view(np.uint32)).all()
    shorts = np.array([[i, -i, 7, -7] for i in range(4)], np.int32)
    assert (c == np.trunc(floats * np.float32(3.75)).astype(np.int32) + shorts).all()


SHUFFLED = """
typedef float4 vf;
typedef uint myuint;
typedef int2 pair;
__kernel void k(__global const float4* a, __global const int4* b, __global float* f, __global int* o) {
    int i = get_global_id(0);
    vf x = a[i];
    int4 y = b[i];
    int3 y3 = y.xyz;
    float8 e = __builtin_shufflevector(x, x, 3, 2, 1, 0, 4, 5, 6, 7);
    float2 t = __builtin_shufflevector(x, (vf)(9.0f), 0, 7);
    int4 w = __builtin_shufflevector(y3, y3 * 10, 5, 0, 3, 1);
    ushort8 h = __builtin_astype(x, ushort8);
    ushort16 c = __builtin_shufflevector(h, h + (ushort)i, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    vstore8(e, 0, f + 16 * i);
    vstore2(t, 4, f + 16 * i);
    f[16 * i + 13] = __builtin_astype(__builtin_astype(x.x, myuint) ^ 0x80000000u, float);
    pair p = __builtin_convertvector(x.zw * 10.0f, pair);
    vstore4(w, 0, o + 16 * i);
    vstore2(p, 2, o + 16 * i);
    o[16 * i + 6] = __builtin_astype(c.s01, int);
    o[16 * i + 7] = __builtin_astype(c.s9e, int);
    vstore4(__builtin_convertvector(__builtin_convertvector(y, double4) * 0.5, int4), 2, o + 16 * i);
    long2 l = __builtin_astype(x, long2);
    vstore2(__builtin_convertvector(l >> 32, int2), 6, o + 16 * i);
}
"""


def test_typed_builtins_take_any_type_name_and_shufflevector_picks_components(device_ctx: wia.Context) -> None:
    """``__builtin_astype`` and ``__builtin_convertvector`` of a typedef's name (the simulator read only built-in
    type names: "invalid expression"), nested in each other; ``__builtin_shufflevector`` (refused before) of 3-, 4-
    and 8-component vectors into 2, 4, 8 and 16 components, indices into either operand. Each value from NumPy."""
    rng = np.random.default_rng(56)
    n = 8
    a = rng.standard_normal((n, 4)).astype(np.float32)
    b = rng.integers(-100, 100, (n, 4)).astype(np.int32)
    _, _, f, o = run_arrays(
        device_ctx, SHUFFLED, "k", [a, b, np.zeros((n, 16), np.float32), np.zeros((n, 16), np.int32)], n, 4
    )
    want_f = np.zeros((n, 16), np.float32)
    want_f[:, :8] = np.concatenate([a[:, ::-1], a], axis=1)
    want_f[:, 8], want_f[:, 9] = a[:, 0], 9.0
    want_f[:, 13] = -a[:, 0]
    assert f.tobytes() == want_f.tobytes()
    want_o = np.zeros((n, 16), np.int32)
    want_o[:, :4] = np.stack([b[:, 2] * 10, b[:, 0], b[:, 0] * 10, b[:, 1]], axis=1)
    want_o[:, 4:6] = np.trunc(a[:, 2:] * np.float32(10)).astype(np.int32)
    h = a.view(np.uint16)  # (n, 8): the floats' halves, low first
    hi = (h + np.arange(n, dtype=np.uint16)[:, None]).astype(np.uint16)
    want_o[:, 6] = np.stack([hi[:, 7], hi[:, 6]], axis=1).copy().view(np.int32)[:, 0]
    want_o[:, 7] = np.stack([h[:, 6], h[:, 1]], axis=1).copy().view(np.int32)[:, 0]
    want_o[:, 8:12] = np.trunc(b * 0.5).astype(np.int32)
    want_o[:, 12:14] = a.view(np.int64).astype(np.int64) >> 32
    assert (o == want_o).all()


def test_a_shuffle_component_of_index_minus_one_is_undefined() -> None:
    """Index -1 leaves a component undefined (LLVM's undef): the others are read as any, and a branch on it is the
    uninitialized-value finding, which names it."""
    source = """__kernel void k(__global const float4* a, __global float* o, __global int* flag) {
    int i = get_global_id(0);
    float4 u = __builtin_shufflevector(a[i], a[i], -1, 0, 1, 2);
    o[i] = u.y + u.w;
    if (FLAG && u.x > 0.0f) flag[i] = 1;
}"""
    a = np.arange(16, dtype=np.float32).reshape(4, 4)
    ctx = wia.create_context()
    _, o, _ = run_arrays(
        ctx, source, "k", [a, np.zeros(4, np.float32), np.zeros(4, np.int32)], 4, 4, options="-DFLAG=0"
    )
    assert o.tolist() == (a[:, 0] + a[:, 2]).tolist()
    with pytest.raises(wia.WiaError, match=r"read of uninitialized component of '__builtin_shufflevector' whose index"):
        run_arrays(ctx, source, "k", [a, np.zeros(4, np.float32), np.zeros(4, np.int32)], 4, 4, options="-DFLAG=1")


VECTOR_BUILTIN_ERRORS = """typedef float4 vf;
typedef int myint;
__kernel void k(__global float4* a, __global int4* b, __global float* c) {
  int i = get_global_id(0);
  float f = c[i];
  vf v = a[i];
  int4 y1 = __builtin_convertvector(f, int4);
  int4 y3 = __builtin_convertvector(a[i], int);
  int2 y4 = __builtin_convertvector(a[i], int2);
  myint z = __builtin_astype(a[i], myint);
  int z4 = __builtin_astype(a[i] + 1.0f, int);
  int z5 = __builtin_astype(c, int);
  int *p = __builtin_astype(a[i], int*);
  float3 w2 = __builtin_astype(b[i].xyz, float4);
  float3 r3 = __builtin_shufflevector(a[i], a[i], 1, 2, 8);
  float4 r4 = __builtin_shufflevector(a[i], b[i], 1, 2, 3, 4);
  float4 r5 = __builtin_shufflevector(a[i], a[i], i, 2, 3, 4);
  float2 r9 = __builtin_shufflevector(f, f, 0, 1);
  float4 r10 = __builtin_shufflevector(v, a[i].xy, 0, 1, 4, 5);
  float4 s1 = __builtin_shufflevector(a[i]);
  float4 s2 = __builtin_shufflevector(a[i], a[i]);
  float4 s5 = __builtin_shufflevector(a[i], a[i], -1, 1, -2, 3);
  float4 s6 = __builtin_shufflevector(a[i], a[i], 0, 1, 2, 3.0f);
  int q = as_int(a[i]) + as_int(v);
}
"""


def test_vector_builtins_are_judged_in_clangs_words() -> None:
    """Every error ``clang-15 -cc1 -x cl -cl-std=CL1.2 -fsyntax-only`` gives for this kernel, line for line (the
    operand's type as Clang spells it: an lvalue's with its address space, also for ``as_T``)."""
    assert compile_errors(VECTOR_BUILTIN_ERRORS) == [
        "kernel.cl:7:13: error: first argument to __builtin_convertvector must be a vector",
        "kernel.cl:8:13: error: second argument to __builtin_convertvector must be a vector type",
        "kernel.cl:9:13: error: first two arguments to __builtin_convertvector must have the same number of elements",
        "kernel.cl:10:13: error: invalid reinterpretation: sizes of 'myint' (aka 'int') and '__global float4' (vector"
        " of 4 'float' values) must match",
        "kernel.cl:11:12: error: invalid reinterpretation: sizes of 'int' and 'float4' (vector of 4 'float' values)"
        " must match",
        "kernel.cl:12:12: error: invalid reinterpretation: sizes of 'int' and '__global float *__private' must match",
        "kernel.cl:13:12: error: invalid reinterpretation: sizes of '__private int *' and '__global float4' (vector"
        " of 4 'float' values) must match",
        "kernel.cl:14:10: error: initializing '__private float3' (vector of 3 'float' values) with an expression of"
        " incompatible type 'float4' (vector of 4 'float' values)",
        "kernel.cl:15:15: error: index for __builtin_shufflevector must be less than the total number of vector"
        " elements",
        "kernel.cl:16:15: error: first two arguments to '__builtin_shufflevector' must have the same type",
        "kernel.cl:17:15: error: index for __builtin_shufflevector must be a constant integer",
        "kernel.cl:18:15: error: first two arguments to '__builtin_shufflevector' must be vectors",
        "kernel.cl:19:16: error: first two arguments to '__builtin_shufflevector' must have the same type",
        "kernel.cl:20:43: error: too few arguments to function call, expected at least 2, have 1",
        "kernel.cl:21:15: error: first two arguments to '__builtin_shufflevector' must have the same type",
        "kernel.cl:22:15: error: index for __builtin_shufflevector must be less than the total number of vector"
        " elements",
        "kernel.cl:23:15: error: index for __builtin_shufflevector must be a constant integer",
        "kernel.cl:24:11: error: invalid reinterpretation: sizes of 'int' and '__global float4' (vector of 4 'float'"
        " values) must match",
        "kernel.cl:24:26: error: invalid reinterpretation: sizes of 'int' and '__private vf' (aka '__private float4')"
        " must match",
    ]


@pytest.mark.parametrize(
    ("call", "where", "words"),
    [
        ("__builtin_astype(f, 3)", "3:31", "expected a type"),
        ("__builtin_astype(f, nosuch_t)", "3:31", "unknown type name 'nosuch_t'"),
    ],
)
def test_a_typed_builtin_without_a_type_is_clangs_error(call: str, where: str, words: str) -> None:
    source = f"__kernel void k(__global float* c) {{\n  float f = c[0];\n  int q = {call};\n}}\n"
    with pytest.raises(KernelCompileError, match=f"kernel.cl:{where}: error: {words}"):
        compile_source(source)


SHUFFLED_BY = """
__kernel void k(__global const float4* a, __global const int4* m, __global float4* o,
                __global const uchar8* c, __global const char8* cm, __global uchar8* oc) {
    int i = get_global_id(0);
    o[i] = __builtin_shufflevector(a[i], m[i]);
    oc[i] = __builtin_shufflevector(c[i], cm[i]);
}
"""


def test_shufflevector_by_a_vector_of_indices(device_ctx: wia.Context) -> None:
    """``__builtin_shufflevector(v, m)``: component ``m[k]`` of ``v``, the index cut to the bits below ``v``'s width
    (Clang's code masks it; negative and large indices here), of any integer type of ``v``'s length."""
    rng = np.random.default_rng(57)
    n = 8
    a = rng.standard_normal((n, 4)).astype(np.float32)
    m = rng.integers(-20, 20, (n, 4)).astype(np.int32)
    c = rng.integers(0, 256, (n, 8)).astype(np.uint8)
    cm = rng.integers(-128, 128, (n, 8)).astype(np.int8)
    out = run_arrays(
        device_ctx, SHUFFLED_BY, "k", [a, m, np.zeros((n, 4), np.float32), c, cm, np.zeros((n, 8), np.uint8)], n, 4
    )
    assert (out[2] == np.take_along_axis(a, m & 3, 1)).all()
    assert (out[5] == np.take_along_axis(c, cm.astype(np.int64) & 7, 1)).all()
