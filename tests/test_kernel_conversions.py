"""OpenCL C 1.2 conversions (6.2.3) where NumPy's casts are not the spec's (``wia_sim/kernels/conversions.py``), on
the simulator and the real OpenCL devices, against an exact reference computed here with rationals: the rounding
modes of conversions to ``float`` and ``double``, saturation at the 64-bit limits, floats of 2**63 and more to
``ulong``, floating-point literals rounded once, vector literals with a postfix member, and the ``?:`` condition
that may not be floating. A helper's sweep against PoCL 3.1 (5,600 type, width and mode combinations) found each.

Out-of-range conversions without ``_sat`` are implementation-defined (6.2.3.3) and are not tested here."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia

FP64 = "#ifdef cl_khr_fp64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#endif\n"
F32 = np.finfo(np.float32)
F64 = np.finfo(np.float64)


def _directed(v: Fraction, mode: str, dtype: type[np.floating]) -> np.floating:
    """The exact value ``v`` rounded to ``dtype`` with ``mode`` (IEEE-754: nearest with ties to even, toward zero,
    toward +inf, toward -inf), found from its two neighbours."""
    info = np.finfo(dtype)
    big = Fraction(float(info.max))
    if abs(v) > big:  # past the largest finite value
        inf, top = dtype(np.inf if v > 0 else -np.inf), dtype(info.max if v > 0 else -info.max)
        beyond = {"_rtz": top, "_rtp": inf if v > 0 else top, "_rtn": top if v > 0 else inf}
        half = big + Fraction(2) ** (info.maxexp - info.nmant - 2)  # half an ulp on: a tie, to even (infinity)
        return beyond.get(mode, inf if abs(v) >= half else top)
    lo = dtype(float(v))
    while Fraction(float(lo)) > v:
        lo = np.nextafter(lo, dtype(-np.inf))
    while Fraction(float(np.nextafter(lo, dtype(np.inf)))) <= v:
        lo = np.nextafter(lo, dtype(np.inf))
    if Fraction(float(lo)) == v:
        return lo
    hi = np.nextafter(lo, dtype(np.inf))
    if mode == "_rtp":
        return hi
    if mode == "_rtn":
        return lo
    if mode == "_rtz":
        return lo if v > 0 else hi
    below, above = v - Fraction(float(lo)), Fraction(float(hi)) - v
    if below != above:
        return lo if below < above else hi
    return lo if int(lo.view(np.uint32 if dtype is np.float32 else np.uint64)) % 2 == 0 else hi


INTEGERS = {
    "int": [0, 1, -1, 16777217, -16777217, 2**31 - 1, -(2**31), -(2**31) + 1, 33554435, 123456789],
    "uint": [0, 1, 16777217, 2**32 - 1, 2**31 + 1, 4294967040, 3000000001],
    "long": [0, -1, 2**53 + 1, -(2**53) - 1, 2**63 - 1, -(2**63), 2**62 + 2**40 + 1, -(2**60) - 3],
    "ulong": [0, 1, 2**64 - 1, 2**63 + 1, 2**53 + 1, 2**64 - 2**40 - 1, 0x8EEA336A33300E55],
}
MODES = ["_rte", "_rtz", "_rtp", "_rtn"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("src", sorted(INTEGERS))
def test_integers_to_float_and_double_in_each_rounding_mode(device_ctx: wia.Context, src: str, mode: str) -> None:
    values = np.array(
        INTEGERS[src], dtype={"int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64}[src]
    )
    n = values.size
    source = FP64 + (
        f"__kernel void k(__global const {src}* x, __global float* f, __global float4* f4, __global double* d) {{\n"
        f"    const int i = get_global_id(0);\n"
        f"    f[i] = convert_float{mode}(x[i]);\n"
        f"    f4[i] = convert_float4{mode}(({src}4)(x[i]));\n"
        f"    d[i] = convert_double{mode}(x[i]);\n"
        "}\n"
    )
    outs = run_arrays(
        device_ctx, source, "k", [values, np.zeros(n, np.float32), np.zeros((n, 4), np.float32), np.zeros(n)], n, 1
    )
    want32 = np.array([_directed(Fraction(int(v)), mode, np.float32) for v in values], np.float32)
    want64 = np.array([_directed(Fraction(int(v)), mode, np.float64) for v in values], np.float64)
    np.testing.assert_array_equal(outs[1].view(np.uint32), want32.view(np.uint32))
    np.testing.assert_array_equal(outs[2].view(np.uint32), np.repeat(want32[:, None], 4, axis=1).view(np.uint32))
    np.testing.assert_array_equal(outs[3].view(np.uint64), want64.view(np.uint64))


DOUBLES = [0.1, -0.1, 1e39, -1e39, 1e-50, -1e-50, 1.0 + 2.0**-24, 1.0 + 2.0**-24 + 2.0**-30, -(1.0 + 2.0**-24)]
DOUBLES += [3.4028235677973366e38, 1.401298464324817e-45 * 1.5, 2.0**-149 / 2, np.inf, -np.inf, 0.0, -0.0]


@pytest.mark.parametrize("mode", MODES)
def test_double_to_float_in_each_rounding_mode(device_ctx: wia.Context, mode: str) -> None:
    """Halfway cases, denormals and underflow to zero, overflow to infinity or to the largest float (toward zero
    never overflows)."""
    values = np.array(DOUBLES, np.float64)
    source = FP64 + (
        "__kernel void k(__global const double* x, __global float* f) {\n"
        f"    f[get_global_id(0)] = convert_float{mode}(x[get_global_id(0)]);\n}}\n"
    )
    _, got = run_arrays(device_ctx, source, "k", [values, np.zeros(values.size, np.float32)], values.size, 1)
    want = [
        np.float32(v) if np.isinf(v) else np.copysign(_directed(Fraction(float(v)), mode, np.float32), v)
        for v in values
    ]
    np.testing.assert_array_equal(got.view(np.uint32), np.array(want, np.float32).view(np.uint32))


@pytest.mark.parametrize("src", ["float", "double"])
def test_saturated_and_large_conversions_to_long_and_ulong(
    request: pytest.FixtureRequest, device_ctx: wia.Context, src: str
) -> None:
    """convert_long_sat/convert_ulong_sat clamp at the 64-bit limits (infinity included; a clip in float64 made
    LONG_MAX 2**63 and overflowed), NaN gives 0, and a float of 2**63 or more is in range for a ulong."""
    dtype = np.float32 if src == "float" else np.float64
    values = np.array([np.inf, -np.inf, 2.0**63, 2.0**64, 1e30, -1e30, 1e19, 9.3e18, -1.5, 0.75, -(2.0**63)], dtype)
    if request.node.callspec.params.get("device_ctx") != "oclgrind":  # Oclgrind 21.10: NaN to a long is LONG_MIN
        values = np.append(values, dtype(np.nan))
    n = values.size
    source = FP64 + (
        f"__kernel void k(__global const {src}* x, __global long* l, __global ulong* u, __global ulong* big) {{\n"
        "    const int i = get_global_id(0);\n"
        "    l[i] = convert_long_sat(x[i]);\n"
        "    u[i] = convert_ulong_sat_rte(x[i]);\n"
        "    big[i] = x[i] >= 9.0e18f && x[i] < 1.8e19f ? (ulong)x[i] : 0;\n"
        "}\n"
    )
    zeros = [np.zeros(n, np.int64), np.zeros(n, np.uint64), np.zeros(n, np.uint64)]
    _, longs, ulongs, big = run_arrays(device_ctx, source, "k", [values, *zeros], n, 1)

    def clamp(v: float, lo: int, hi: int, rounding: str) -> int:
        if np.isnan(v):
            return 0
        if np.isinf(v):
            return hi if v > 0 else lo
        q = Fraction(float(v))
        r = int(q) if rounding == "rtz" else round(q)
        return max(lo, min(hi, r))

    assert longs.tolist() == [clamp(v, -(2**63), 2**63 - 1, "rtz") for v in values]
    assert ulongs.tolist() == [clamp(v, 0, 2**64 - 1, "rte") for v in values]
    assert big.tolist() == [int(v) if 9.0e18 <= v < 1.8e19 else 0 for v in values.astype(np.float64)]


def test_saturated_integer_conversions_at_the_64_bit_limits(device_ctx: wia.Context) -> None:
    """ulong to long and to ulong with saturation are exact (they went through float64: 2**53 + 1 lost its last
    bit and ULONG_MAX became LONG_MIN)."""
    values = np.array([0, 1, 2**53 + 1, 2**63 - 1, 2**63, 2**64 - 1, 0x8EEA336A33300E55], np.uint64)
    longs = np.array([0, -1, 2**53 + 1, 2**63 - 1, -(2**63), -5], np.int64)
    source = (
        "__kernel void k(__global const ulong* u, __global const long* s, __global long* ul, __global ulong* uu,\n"
        "                __global ulong* su, __global int* si, __global uint* uui) {\n"
        "    const int i = get_global_id(0);\n"
        "    ul[i] = convert_long_sat(u[i]);\n"
        "    uu[i] = convert_ulong_sat(u[i]);\n"
        "    su[i] = convert_ulong_sat(s[i % 6]);\n"
        "    si[i] = convert_int_sat(s[i % 6]);\n"
        "    uui[i] = convert_uint_sat(u[i]);\n"
        "}\n"
    )
    n = values.size
    outs = run_arrays(
        device_ctx,
        source,
        "k",
        [
            values,
            longs,
            np.zeros(n, np.int64),
            np.zeros(n, np.uint64),
            np.zeros(n, np.uint64),
            np.zeros(n, np.int32),
            np.zeros(n, np.uint32),
        ],
        n,
        1,
    )
    u = [int(v) for v in values]
    s = [int(longs[i % 6]) for i in range(n)]
    assert outs[2].tolist() == [min(v, 2**63 - 1) for v in u]
    assert outs[3].tolist() == u
    assert outs[4].tolist() == [max(v, 0) for v in s]
    assert outs[5].tolist() == [max(-(2**31), min(v, 2**31 - 1)) for v in s]
    assert outs[6].tolist() == [min(v, 2**32 - 1) for v in u]


def test_float_literals_are_rounded_once(device_ctx: wia.Context) -> None:
    """C99 6.4.4.2: a hexadecimal floating constant is rounded correctly; Clang rounds decimal ones correctly
    too. Through a double first, these four land one float away (a double rounding)."""
    literals = [
        "0x1.0000010000000001p0f",
        "1.0000000596046447753906250001f",
        "0x1.fffffefffffffffp127f",
        "1.00000017881393432617187499f",
    ]
    source = (
        "__kernel void k(__global float* f) {\n"
        + "".join(f"    f[{k}] = {text};\n" for k, text in enumerate(literals))
        + "}\n"
    )
    (got,) = run_arrays(device_ctx, source, "k", [np.zeros(len(literals), np.float32)], 1, 1)
    exact = [
        Fraction(1) + Fraction(1, 2**24) + Fraction(1, 2**88),
        Fraction("1.0000000596046447753906250001"),
        Fraction(int("1fffffefffffffff", 16), 16**15) * Fraction(2) ** 127,  # through a double: infinity
        Fraction("1.00000017881393432617187499"),
    ]
    want = np.array([_directed(q, "_rte", np.float32) for q in exact], np.float32)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))


def test_a_vector_literal_with_a_member_is_the_literals_component(device_ctx: wia.Context) -> None:
    """Clang reads ``(float4)(1, 2, 3, 4).y`` as the literal's component (OpenCL's literals are postfix
    expressions); the simulator's front end took it as a cast of ``(1, 2, 3, 4).y`` and refused it."""
    source = (
        "__kernel void k(__global float* f) {\n"
        "    f[0] = (float4)(1.0f, 2.0f, 3.0f, 4.0f).y;\n"
        "    const float2 zw = (float4)(5.0f, 6.0f, 7.0f, 8.0f).zw;\n"
        "    f[1] = zw.x * zw.y;\n"
        "    f[2] = (float4)(1.0f, 2.0f, 3.0f, 4.0f).wzyx.x;\n"
        "    f[3] = (float2)(16777217).x;\n"
        "}\n"
    )
    (got,) = run_arrays(device_ctx, source, "k", [np.zeros(4, np.float32)], 1, 1)
    np.testing.assert_array_equal(got, [2.0, 56.0, 4.0, 16777216.0])


@pytest.mark.parametrize("cond", ["x", "(float4)(x)", "(double)x"])
def test_a_floating_condition_of_the_conditional_operator_is_a_build_error(device_ctx: wia.Context, cond: str) -> None:
    """OpenCL C: ``?:`` takes no floating condition (Clang: "used type 'float' where floating point type is not
    allowed"); ``if (x)`` and ``!x ? :`` do."""
    result = "(int4)" if "float4" in cond else ""
    body = f"const float x = o[0]; o[1] = (float)(({cond}) ? {result}(1) : {result}(2)){'.x' if result else ''};"
    source = FP64 + "__kernel void k(__global float* o) {\n    " + body + "\n}\n"
    with pytest.raises(wia.CompileError, match="floating point type is not allowed"):
        wia.compile_kernel(device_ctx, source, "k")
    allowed = "__kernel void k(__global float* o) { const float x = o[0]; if (x) o[1] = !x ? 1.0f : 2.0f; }"
    wia.compile_kernel(device_ctx, allowed, "k")


def test_integer_constant_expressions_follow_the_usual_arithmetic_conversions(device_ctx: wia.Context) -> None:
    """Enumerators and array lengths are computed in C's types (they were computed on unbounded integers):
    ``-1 < 1u`` is 0 (-1 becomes UINT_MAX), ``-1 / 2u`` is 2147483647, ``1u - 2`` wraps."""
    source = (
        "enum { LESS = (-1 < 1u), HALF = (int)(-1 / 2u), WRAP = (int)((1u - 2) >> 28), BIG = (-1L < 1u) };\n"
        "__kernel void k(__global int* out) {\n"
        "    int a[(-1 < 1u) + 1];\n"
        "    long b[(sizeof(int) - 5 < 0) + 2];\n"
        "    out[0] = LESS; out[1] = HALF; out[2] = WRAP; out[3] = BIG;\n"
        "    out[4] = sizeof(a) / sizeof(a[0]); out[5] = sizeof(b) / sizeof(b[0]);\n"
        "}\n"
    )
    (got,) = run_arrays(device_ctx, source, "k", [np.zeros(6, np.int32)], 1, 1)
    assert got.tolist() == [0, 2**31 - 1, 15, 1, 1, 2]
