"""The OpenCL C 1.2 section 6.12 built-ins of ``wia_sim/kernels/tables.py`` on the simulator, through the HAL.

Table by table: the math functions with pointer arguments and ``nan`` (6.8), the integer functions (6.10) on every
integer type and vector width, the common (6.11), geometric (6.13) and relational (6.14) functions, vector data
loads and stores (6.15) including half conversions with every rounding mode, and ``vec_step``/``shuffle``/
``shuffle2`` (6.12.12). Each runs on fresh random data plus edge values (INT_MIN, UINT_MAX, 0, -0, +-inf, NaN,
denormals) against exact-integer or float64 NumPy references, within the spec's Table 7.1 bounds; the simulator
rounds float64 once, so most bounds are half an ulp. Buffers travel as raw bytes (int8 tensors), so any element
type can be checked.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia
from tests.kernels.corpus import python_ints, saturate_to, wrap_to
from wia_sim.kernels import compile_source

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
"""References are evaluated at NaNs, infinities and overflows on purpose."""

N = 64
TINY = float(np.float32(2.0**-149))
FEDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, TINY, -TINY, 1e-40, -3e-39, 1.0, -1.0, 0.5, -2.5], np.float32)
INTS = {"char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16}
INTS.update({"int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64})
UNSIGNED = {"char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}


def _mem_width(w: int) -> int:
    return 4 if w == 3 else w


def _tname(name: str, w: int) -> str:
    return f"{name}{w}" if w > 1 else name


def launch(
    ctx: wia.Context, src: str, ins: list[np.ndarray], outs: list[tuple[Any, tuple[int, ...]]], items: int
) -> list[np.ndarray]:
    """Run kernel ``k(ins..., outs...)`` on ``items`` work-items; buffers go as bytes, outputs come back typed."""
    kernel = wia.compile_kernel(ctx, src, "k")
    tensors = [wia.tensor(np.ascontiguousarray(a).reshape(-1).view(np.int8), ctx=ctx) for a in ins]
    out_tensors = [wia.zeros(int(np.prod(s)) * np.dtype(d).itemsize, dtype=np.int8, ctx=ctx) for d, s in outs]
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=items, local_size=1), *tensors, *out_tensors)
    return [t.numpy().view(d).reshape(s) for t, (d, s) in zip(out_tensors, outs, strict=True)]


# ---------------------------------------------------------------------------------------------- integers


def _int_draw(rng: np.random.Generator, dt: Any, shape: tuple[int, ...], k: int) -> np.ndarray:
    info = np.iinfo(dt)
    a = rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    edges = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1, info.max // 2 + 1, 7], dtype=object)
    if info.min < 0:
        edges[4] = -1
    flat = a.reshape(-1)
    picks = np.roll(np.arange(flat.size) % edges.size, k)[: 3 * edges.size]
    flat[: picks.size] = edges[picks].astype(dt)
    return a


def _clz(a: np.ndarray, bits: int) -> np.ndarray:
    return np.array([bits - int(v).bit_length() for v in a.reshape(-1).tolist()], dtype=object).reshape(a.shape)


INT_CALLS = {
    "abs": "as_T(abs(a[i]))",
    "abs_diff": "as_T(abs_diff(a[i], b[i]))",
    "add_sat": "add_sat(a[i], b[i])",
    "sub_sat": "sub_sat(a[i], b[i])",
    "hadd": "hadd(a[i], b[i])",
    "rhadd": "rhadd(a[i], b[i])",
    "mul_hi": "mul_hi(a[i], b[i])",
    "mad_hi": "mad_hi(a[i], b[i], c[i])",
    "mad_sat": "mad_sat(a[i], b[i], c[i])",
    "max": "max(a[i], b[i])",
    "min": "min(a[i], b[i])",
    "clamp": "clamp(a[i], min(b[i], c[i]), max(b[i], c[i]))",
    "clz": "clz(a[i])",
    "popcount": "popcount(a[i])",
    "rotate": "rotate(a[i], b[i])",
    "max_scalar": "max(a[i], k[2 * i])",
    "min_scalar": "min(a[i], k[2 * i])",
    "clamp_scalar": "clamp(a[i], min(k[2 * i], k[2 * i + 1]), max(k[2 * i], k[2 * i + 1]))",
}
"""Calls per integer type; ``k`` holds scalars for the forms with scalar bounds (Table 6.10's sgentype)."""


def _int_refs(a: np.ndarray, b: np.ndarray, c: np.ndarray, k: np.ndarray, dt: Any) -> dict[str, np.ndarray]:
    bits = np.dtype(dt).itemsize * 8
    k0, k1 = k[0::2, None], k[1::2, None]
    x, y, z = python_ints(a), python_ints(b), python_ints(c)
    lo, hi = np.minimum(y, z), np.maximum(y, z)
    u = [np.asarray(v).astype(object) % (1 << bits) for v in (a, b)]
    s = u[1] % bits
    rot = ((u[0] << s) | (u[0] >> ((bits - s) % bits))) % (1 << bits)
    return {
        "abs": wrap_to(abs(x), dt),
        "abs_diff": wrap_to(abs(x - y), dt),
        "add_sat": saturate_to(x + y, dt),
        "sub_sat": saturate_to(x - y, dt),
        "hadd": wrap_to((x + y) >> 1, dt),
        "rhadd": wrap_to((x + y + 1) >> 1, dt),
        "mul_hi": wrap_to((x * y) >> bits, dt),
        "mad_hi": wrap_to(((x * y) >> bits) + z, dt),
        "mad_sat": saturate_to(x * y + z, dt),
        "max": np.maximum(a, b),
        "min": np.minimum(a, b),
        "clamp": wrap_to(np.minimum(np.maximum(x, lo), hi), dt),
        "clz": wrap_to(_clz(u[0], bits), dt),
        "popcount": wrap_to(np.vectorize(lambda v: int(v).bit_count(), otypes=[object])(u[0]), dt),
        "rotate": wrap_to(rot, dt),
        "max_scalar": np.maximum(a, k0),
        "min_scalar": np.minimum(a, k0),
        "clamp_scalar": np.minimum(np.maximum(a, np.minimum(k0, k1)), np.maximum(k0, k1)),
    }


@pytest.mark.parametrize("width", [1, 2, 3, 4, 8, 16])
@pytest.mark.parametrize("tname", list(INTS))
def test_integer_functions_on_every_type_and_width(ctx: wia.Context, tname: str, width: int) -> None:
    dt = INTS[tname]
    rng = np.random.default_rng()
    mw = _mem_width(width)
    a, b, c = (_int_draw(rng, dt, (N, mw), k) for k in (0, 3, 5))
    k = _int_draw(rng, dt, (2 * N,), 1)
    t = _tname(tname, width)
    body = " ".join(f"o[{j} * {N} + i] = {call};" for j, call in enumerate(INT_CALLS.values()))
    body = body.replace("as_T(", f"as_{t}(")
    src = f"""__kernel void k(__global const {t}* a, __global const {t}* b, __global const {t}* c,
        __global const {tname}* k, __global {t}* o) {{ int i = get_global_id(0); {body} }}"""
    (got,) = launch(ctx, src, [a, b, c, k], [(dt, (len(INT_CALLS), N, mw))], N)
    refs = _int_refs(a, b, c, k, dt)
    for j, name in enumerate(INT_CALLS):
        want = refs[name][:, :width]
        bad = np.flatnonzero((got[j][:, :width] != want).any(axis=1))
        assert bad.size == 0, (
            f"{name}({t}): {bad.size} lanes off; e.g. a={a[bad[0]][:width]} b={b[bad[0]][:width]} "
            f"c={c[bad[0]][:width]}: got {got[j][bad[0]][:width]}, want {want[bad[0]]}"
        )


@pytest.mark.parametrize("width", [1, 3, 16])
@pytest.mark.parametrize("tname", ["char", "uchar", "short", "ushort", "int", "uint"])
def test_upsample(ctx: wia.Context, tname: str, width: int) -> None:
    dt = INTS[tname]
    udt = INTS[UNSIGNED.get(tname, tname)]
    wide = {"char": "short", "uchar": "ushort", "short": "int", "ushort": "uint", "int": "long", "uint": "ulong"}
    rng = np.random.default_rng()
    mw = _mem_width(width)
    hi, lo = _int_draw(rng, dt, (N, mw), 0), _int_draw(rng, udt, (N, mw), 2)
    src = f"""__kernel void k(__global const {_tname(tname, width)}* h,
        __global const {_tname(UNSIGNED.get(tname, tname), width)}* l, __global {_tname(wide[tname], width)}* o) {{
        int i = get_global_id(0); o[i] = upsample(h[i], l[i]); }}"""
    wdt = INTS[wide[tname]]
    (got,) = launch(ctx, src, [hi, lo], [(wdt, (N, mw))], N)
    bits = np.dtype(dt).itemsize * 8
    want = wrap_to((python_ints(hi) << bits) | python_ints(lo), wdt)
    np.testing.assert_array_equal(got[:, :width], want[:, :width])


@pytest.mark.parametrize("tname", ["int", "uint"])
def test_mul24_mad24_on_24_bit_operands(ctx: wia.Context, tname: str) -> None:
    dt = INTS[tname]
    rng = np.random.default_rng()
    lo_ = -(2**23) if tname == "int" else 0
    hi_ = 2**23 if tname == "int" else 2**24
    a, b, c = (rng.integers(lo_, hi_, (N, 4)).astype(dt) for _ in range(3))
    a[0], b[0] = lo_, hi_ - 1
    src = f"""__kernel void k(__global const {tname}4* a, __global const {tname}4* b, __global const {tname}4* c,
        __global {tname}4* o) {{ int i = get_global_id(0); o[i] = mul24(a[i], b[i]);
        o[{N} + i] = mad24(a[i], b[i], c[i]); }}"""
    (got,) = launch(ctx, src, [a, b, c], [(dt, (2, N, 4))], N)
    np.testing.assert_array_equal(got[0], wrap_to(python_ints(a) * python_ints(b), dt))
    np.testing.assert_array_equal(got[1], wrap_to(python_ints(a) * python_ints(b) + python_ints(c), dt))


# ---------------------------------------------------------------------------------------------- float helpers


def _ulp32(e: np.ndarray) -> np.ndarray:
    return np.maximum(np.spacing(np.abs(e).astype(np.float32)).astype(np.float64), TINY)


def check_float(what: str, got: np.ndarray, want: np.ndarray, ulp: float = 0.5, atol: Any = 0.0) -> None:
    """Within ``ulp`` float32 ulps (plus ``atol``) of the float64 reference; infinities, NaNs and zeros (with
    their sign) exactly; a finite reference past the float32 range rounds as float32 does."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    special = ~np.isfinite(want) | (want == 0)
    same = (np.isnan(got) & np.isnan(want)) | ((got == want) & (np.signbit(got) == np.signbit(want)))
    w32 = want.astype(np.float32).astype(np.float64)
    err = np.abs(got - want)
    ok = special & same | ~special & ((got == w32) | (err <= ulp * _ulp32(want) + atol))
    bad = np.flatnonzero(~ok.reshape(-1))
    assert bad.size == 0, (
        f"{what}: {bad.size} values off, e.g. got {got.reshape(-1)[bad[0]]!r}, want {want.reshape(-1)[bad[0]]!r}"
    )


def _fdraw(rng: np.random.Generator, lo: float, hi: float, shape: tuple[int, ...], k: int = 0) -> np.ndarray:
    x = rng.uniform(lo, hi, shape).astype(np.float32)
    flat = x.reshape(-1)
    flat[: FEDGES.size] = np.roll(FEDGES, k)
    return x


# ---------------------------------------------------------------------------------------------- Table 6.8


@pytest.mark.parametrize("space", ["global", "local", "private"])
@pytest.mark.parametrize("width", [1, 3, 4])
def test_math_functions_with_pointer_arguments(ctx: wia.Context, width: int, space: str) -> None:
    rng = np.random.default_rng()
    mw = _mem_width(width)
    x = _fdraw(rng, -40, 40, (N, mw))
    y = _fdraw(rng, -6, 6, (N, mw), 5)
    f, iv = _tname("float", width), _tname("int", width)
    names = ["fract", "modf", "sincos", "frexp", "lgamma_r", "remquo"]
    if space == "private":
        decl = f"{f} pf; {iv} pi;"
        fp, ip, rf, ri = "&pf", "&pi", "pf", "pi"
    elif space == "local":
        decl = f"__local {f} lf[1]; __local {iv} li[1];"
        fp, ip, rf, ri = "&lf[0]", "li", "lf[0]", "li[0]"
    else:
        decl = ""
        fp, ip, rf, ri = f"&sf[{N} * 3 + i]", "&si[i]", f"sf[{N} * 3 + i]", "si[i]"  # unused rows
    parts = []
    for k, name in enumerate(names):
        ptr = ip if name in ("frexp", "lgamma_r", "remquo") else fp
        got = ri if name in ("frexp", "lgamma_r", "remquo") else rf
        store = "si" if ptr == ip else "sf"
        call = f"{name}(x[i], y[i], {ptr})" if name == "remquo" else f"{name}(x[i], {ptr})"
        parts.append(f"r[{k} * {N} + i] = {call}; {store}[{k} * {N} + i] = {got};")
    src = f"""__kernel void k(__global const {f}* x, __global const {f}* y, __global {f}* r, __global {f}* sf,
        __global {iv}* si) {{ int i = get_global_id(0); {decl} {" ".join(parts)} }}"""
    r, sf, si = launch(
        ctx, src, [x, y], [(np.float32, (6, N, mw)), (np.float32, (4, N, mw)), (np.int32, (6, N, mw))], N
    )
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    cols = (slice(None), slice(0, width))
    fl = np.floor(x64)
    cap = float(np.nextafter(np.float32(1), np.float32(0)))
    fr = np.where(np.isinf(x64), np.copysign(0.0, x64), np.minimum(x64 - fl, cap))
    fr = np.where(x64 == 0, x64, fr)
    check_float("fract", r[0][cols], fr[cols])
    check_float("fract's floor", sf[0][cols], fl[cols])
    frac, whole = np.modf(x64)
    check_float("modf", r[1][cols], frac[cols])
    check_float("modf's integral part", sf[1][cols], whole[cols])
    check_float("sincos's sin", r[2][cols], np.sin(x64)[cols], ulp=4)
    check_float("sincos's cos", sf[2][cols], np.cos(x64)[cols], ulp=4)
    m, e = np.frexp(x64)
    check_float("frexp", r[3][cols], m[cols])
    np.testing.assert_array_equal(si[3][cols], np.where(np.isfinite(x64), e, 0)[cols])
    lg = np.array(
        [math.lgamma(v) if np.isfinite(v) and not (v <= 0 and v == int(v)) else math.inf for v in x64.ravel()]
    )
    lg = np.where(np.isnan(x64.ravel()), np.nan, lg).reshape(x64.shape)
    check_float("lgamma_r", r[4][cols], lg[cols], ulp=16)
    gsign = np.where(x64 > 0, 1, np.where(np.fmod(np.floor(x64), 2) != 0, -1, 1))
    ok = np.isfinite(x64) & ((x64 > 0) | (x64 != np.floor(x64)))
    np.testing.assert_array_equal(np.where(ok, si[4], 0)[cols], np.where(ok, gsign, 0)[cols])
    rem = np.array([_remquo_ref(a, b) for a, b in zip(x64.ravel(), y64.ravel(), strict=True)])
    check_float("remquo", r[5][cols], rem[:, 0].reshape(x64.shape)[cols])
    np.testing.assert_array_equal(si[5][cols], rem[:, 1].astype(np.int64).reshape(x64.shape)[cols])


def _remquo_ref(x: float, y: float) -> tuple[float, int]:
    if not math.isfinite(x) or math.isnan(y) or y == 0:
        return math.nan, 0
    if math.isinf(y):
        return x, 0
    r = math.remainder(x, y)
    n = int((Fraction(x) - Fraction(r)) / Fraction(y))  # exact, also for a denormal y
    q = abs(n) & 127
    return r, (-q if (x < 0) != (y < 0) else q)


def test_pointer_stores_are_checked_and_counted(ctx: wia.Context) -> None:
    src = """__kernel void k(__global const float* x, __global float* ip, __global float* o) {
        int i = get_global_id(0); o[i] = fract(x[i], &ip[i + 1]); }"""
    kernel = wia.compile_kernel(ctx, src, "k")
    x = wia.tensor(np.linspace(-3, 3, 16, dtype=np.float32), ctx=ctx)
    with pytest.raises(wia.WiaError, match="out-of-bounds write") as info:
        wia.launch_kernel(
            kernel, wia.LaunchConfig(global_size=16, local_size=16), x, wia.zeros(16, ctx=ctx), wia.zeros(16, ctx=ctx)
        )
    assert info.value.code == wia.ErrorCode.INVALID_MEMORY
    ip = wia.zeros(17, ctx=ctx)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=16, local_size=16), x, ip, wia.zeros(16, ctx=ctx))
    np.testing.assert_array_equal(ip.numpy()[1:], np.floor(np.linspace(-3, 3, 16, dtype=np.float32)))
    assert wia.explain(kernel).counts["global_bytes_written"] == 2 * 16 * 4


def test_nan_takes_a_code_and_gives_a_quiet_nan(ctx: wia.Context) -> None:
    src = """__kernel void k(__global const uint4* c, __global float4* o, __global uint4* bits) {
        int i = get_global_id(0); o[i] = nan(c[i]); bits[i] = as_uint4(nan(c[i])); }"""
    codes = np.random.default_rng().integers(0, 2**32, (N, 4), dtype=np.uint64).astype(np.uint32)
    o, bits = launch(ctx, src, [codes], [(np.float32, (N, 4)), (np.uint32, (N, 4))], N)
    assert np.isnan(o).all()
    np.testing.assert_array_equal(bits, 0x7FC00000 | (codes & 0x3FFFFF))


# ---------------------------------------------------------------------------------------------- Tables 6.11, 6.14


@pytest.mark.parametrize("width", [1, 2, 3, 4, 8, 16])
def test_common_functions(ctx: wia.Context, width: int) -> None:
    rng = np.random.default_rng()
    mw = _mem_width(width)
    x, y = _fdraw(rng, -100, 100, (N, mw)), rng.uniform(-100, 100, (N, mw)).astype(np.float32)
    a = rng.uniform(0, 1, (N, mw)).astype(np.float32)
    s = rng.uniform(-50, 50, N).astype(np.float32)
    f = _tname("float", width)
    calls = [
        "degrees(x[i])", "radians(x[i])", "sign(x[i])", "mix(x[i], y[i], a[i])", "mix(x[i], y[i], s[i])",
        "step(y[i], x[i])", "step(s[i], x[i])", "smoothstep(x[i] - 10.0f, x[i] + 10.0f, y[i])",
        "smoothstep(s[i] - 20.0f, s[i] + 20.0f, x[i])", "clamp(x[i], s[i] - 5.0f, s[i] + 5.0f)",
        "max(x[i], s[i])", "min(x[i], s[i])", "clamp(x[i], min(y[i], a[i]), max(y[i], a[i]))",
    ]  # fmt: skip
    body = " ".join(f"o[{k} * {N} + i] = {c};" for k, c in enumerate(calls))
    src = f"""__kernel void k(__global const {f}* x, __global const {f}* y, __global const {f}* a,
        __global const float* s, __global {f}* o) {{ int i = get_global_id(0); {body} }}"""
    (o,) = launch(ctx, src, [x, y, a, s], [(np.float32, (len(calls), N, mw))], N)
    cols = (slice(None), slice(0, width))
    x64, y64, a64, s64 = x.astype(np.float64), y.astype(np.float64), a.astype(np.float64), s.astype(np.float64)[:, None]
    sgn = np.where(np.isnan(x64), 0.0, np.where(x64 > 0, 1.0, np.where(x64 < 0, -1.0, x64)))
    mix_tol = 2 * np.spacing(np.float32(200)).astype(np.float64)  # Table 7.1: mix is a mad, evaluated in float

    def smooth(e0: np.ndarray, e1: np.ndarray, v: np.ndarray) -> np.ndarray:
        t = np.fmin(np.fmax((v - e0) / (e1 - e0), 0), 1)  # (clamp as fmin(fmax(...)): a NaN x gives 0, as on devices)
        return t * t * (3 - 2 * t)

    e0, e1 = _f32(x64 - 10), _f32(x64 + 10)
    check_float("degrees", o[0][cols], np.degrees(x64)[cols], ulp=2)
    check_float("radians", o[1][cols], np.radians(x64)[cols], ulp=2)
    check_float("sign", o[2][cols], sgn[cols], ulp=0)
    check_float("mix", o[3][cols], (x64 + (y64 - x64) * a64)[cols], atol=mix_tol)
    check_float("mix(v, v, scalar)", o[4][cols], (x64 + (y64 - x64) * s64)[cols], atol=mix_tol * 50)
    check_float("step", o[5][cols], np.where(x64 < y64, 0.0, 1.0)[cols], ulp=0)
    check_float("step(scalar, v)", o[6][cols], np.where(x64 < s64, 0.0, 1.0)[cols], ulp=0)
    finite = np.isfinite(x64)
    want = np.where(finite, smooth(e0, e1, y64), np.nan)
    got = np.where(finite, o[7], np.nan)
    check_float("smoothstep", got[cols], want[cols], atol=1e-6)
    check_float(
        "smoothstep(scalar, scalar, v)", o[8][cols], smooth(_f32(s64 - 20), _f32(s64 + 20), x64)[cols], atol=1e-6
    )
    lo, hi = _f32(s64 - 5), _f32(s64 + 5)
    nan_ok = ~np.isnan(x64)
    check_float(
        "clamp(v, scalar, scalar)",
        np.where(nan_ok, o[9], 0)[cols],
        np.where(nan_ok, np.minimum(np.maximum(x64, lo), hi), 0)[cols],
        ulp=0,
    )
    check_float(
        "max(v, scalar)", np.where(nan_ok, o[10], 0)[cols], np.where(nan_ok, np.maximum(x64, s64), 0)[cols], ulp=0
    )
    check_float(
        "min(v, scalar)", np.where(nan_ok, o[11], 0)[cols], np.where(nan_ok, np.minimum(x64, s64), 0)[cols], ulp=0
    )
    want = np.minimum(np.maximum(x64, np.minimum(y64, a64)), np.maximum(y64, a64))
    check_float("clamp", np.where(nan_ok, o[12], 0)[cols], np.where(nan_ok, want, 0)[cols], ulp=0)


def _f32(v: np.ndarray) -> np.ndarray:
    return np.asarray(v, dtype=np.float32).astype(np.float64)


RELATIONAL2 = {
    "isequal": np.equal, "isnotequal": np.not_equal, "isgreater": np.greater, "isgreaterequal": np.greater_equal,
    "isless": np.less, "islessequal": np.less_equal,
    "islessgreater": lambda a, b: np.less(a, b) | np.greater(a, b),
    "isordered": lambda a, b: ~np.isnan(a) & ~np.isnan(b), "isunordered": lambda a, b: np.isnan(a) | np.isnan(b),
}  # fmt: skip
RELATIONAL1 = {
    "isfinite": np.isfinite, "isinf": np.isinf, "isnan": np.isnan, "signbit": np.signbit,
    "isnormal": lambda a: np.isfinite(a) & (np.abs(a) >= np.finfo(np.float32).tiny),
}  # fmt: skip


@pytest.mark.parametrize("width", [1, 2, 3, 4, 8, 16])
def test_relational_functions(ctx: wia.Context, width: int) -> None:
    rng = np.random.default_rng()
    mw = _mem_width(width)
    x = _fdraw(rng, -3, 3, (N, mw))
    y = np.where(rng.random((N, mw)) < 0.3, x, _fdraw(rng, -3, 3, (N, mw), 4)).astype(np.float32)
    x[0] = x[1] = y[0] = FEDGES[np.arange(mw) % FEDGES.size]  # every edge against itself
    f, iv = _tname("float", width), _tname("int", width)
    names = [*RELATIONAL2, *RELATIONAL1]
    body = " ".join(f"o[{k} * {N} + i] = {n}(x[i]{', y[i]' if n in RELATIONAL2 else ''});" for k, n in enumerate(names))
    src = f"""__kernel void k(__global const {f}* x, __global const {f}* y, __global {iv}* o) {{
        int i = get_global_id(0); {body} }}"""
    (o,) = launch(ctx, src, [x, y], [(np.int32, (len(names), N, mw))], N)
    true = -1 if width > 1 else 1
    for k, n in enumerate(names):
        fn = RELATIONAL2.get(n)
        want = fn(x, y) if fn is not None else RELATIONAL1[n](x)
        np.testing.assert_array_equal(o[k][:, :width], np.where(want, true, 0)[:, :width], err_msg=n)


@pytest.mark.parametrize("tname", ["char", "short", "int", "long"])
@pytest.mark.parametrize("width", [1, 2, 3, 4, 8, 16])
def test_any_all_bitselect_select(ctx: wia.Context, tname: str, width: int) -> None:
    dt = INTS[tname]
    udt = INTS[UNSIGNED[tname]]
    rng = np.random.default_rng()
    mw = _mem_width(width)
    a, b = _int_draw(rng, dt, (N, mw), 0), _int_draw(rng, dt, (N, mw), 1)
    c = _int_draw(rng, dt, (N, mw), 2)
    c[1] = -1
    c[2] = 0
    if width > 1:
        c[3] = np.where(np.arange(mw) == 0, -1, 1)
    t, ut = _tname(tname, width), _tname(UNSIGNED[tname], width)
    src = f"""__kernel void k(__global const {t}* a, __global const {t}* b, __global const {t}* c,
        __global int* o, __global {t}* s) {{
        int i = get_global_id(0); o[i] = any(c[i]); o[{N} + i] = all(c[i]);
        s[i] = bitselect(a[i], b[i], c[i]); s[{N} + i] = select(a[i], b[i], c[i]);
        s[{2 * N} + i] = select(a[i], b[i], as_{ut}(c[i])); }}"""
    o, s = launch(ctx, src, [a, b, c], [(np.int32, (2, N)), (dt, (3, N, mw))], N)
    neg = c[:, :width] < 0
    np.testing.assert_array_equal(o[0], neg.any(axis=1).astype(np.int32))
    np.testing.assert_array_equal(o[1], neg.all(axis=1).astype(np.int32))
    ua, ub, uc = (v.view(udt) for v in (a, b, c))
    np.testing.assert_array_equal(s[0].view(udt)[:, :width], ((ua & ~uc) | (ub & uc))[:, :width])
    cond = neg if width > 1 else (c[:, :1] != 0)
    want = np.where(cond, b[:, :width], a[:, :width])
    np.testing.assert_array_equal(s[1][:, :width], want)
    np.testing.assert_array_equal(s[2][:, :width], want)


def test_bitselect_and_select_on_floats(ctx: wia.Context) -> None:
    rng = np.random.default_rng()
    a, b = _fdraw(rng, -9, 9, (N, 4)), _fdraw(rng, -9, 9, (N, 4), 3)
    c = rng.integers(-(2**31), 2**31, (N, 4)).astype(np.int32)
    src = """__kernel void k(__global const float4* a, __global const float4* b, __global const int4* c,
        __global float4* o) { int i = get_global_id(0); o[i] = bitselect(a[i], b[i], as_float4(c[i]));
        o[64 + i] = select(a[i], b[i], c[i]); o[128 + i] = select(a[i], b[i], as_uint4(c[i])); }"""
    (o,) = launch(ctx, src, [a, b, c], [(np.float32, (3, N, 4))], N)
    ua, ub, uc = a.view(np.uint32), b.view(np.uint32), c.view(np.uint32)
    np.testing.assert_array_equal(o[0].view(np.uint32), (ua & ~uc) | (ub & uc))
    want = np.where(c < 0, b, a)
    np.testing.assert_array_equal(o[1].view(np.uint32), want.view(np.uint32))
    np.testing.assert_array_equal(o[2].view(np.uint32), want.view(np.uint32))


# ---------------------------------------------------------------------------------------------- Table 6.13


@pytest.mark.parametrize("width", [1, 2, 3, 4])
def test_geometric_functions(ctx: wia.Context, width: int) -> None:
    rng = np.random.default_rng()
    mw = _mem_width(width)
    p, q = rng.uniform(-10, 10, (N, mw)).astype(np.float32), rng.uniform(-10, 10, (N, mw)).astype(np.float32)
    p[0], p[1], q[1] = 0.0, 1e-30, 1e30  # normalize(0) is 0; tiny and huge lengths stay finite
    p[2, :width] = np.inf if width == 1 else np.where(np.arange(width) == 0, np.inf, 1.0)
    f = _tname("float", width)
    src = f"""__kernel void k(__global const {f}* p, __global const {f}* q, __global float* s, __global {f}* v) {{
        int i = get_global_id(0);
        s[i] = dot(p[i], q[i]); s[{N} + i] = distance(p[i], q[i]); s[{2 * N} + i] = length(p[i]);
        s[{3 * N} + i] = fast_distance(p[i], q[i]); s[{4 * N} + i] = fast_length(p[i]);
        v[i] = normalize(p[i]); v[{N} + i] = fast_normalize(q[i]); }}"""
    s, v = launch(ctx, src, [p, q], [(np.float32, (5, N)), (np.float32, (2, N, mw))], N)
    p64, q64 = p[:, :width].astype(np.float64), q[:, :width].astype(np.float64)
    n = width
    check_float("dot", s[0][3:], (p64 * q64).sum(axis=1)[3:], atol=n * 2e-7 * np.abs(p64 * q64).sum(axis=1)[3:])
    check_float("distance", s[1], np.sqrt(((p64 - q64) ** 2).sum(axis=1)), ulp=n + 3)
    check_float("length", s[2], np.sqrt((p64**2).sum(axis=1)), ulp=n + 3)
    check_float("fast_distance", s[3], np.sqrt(((p64 - q64) ** 2).sum(axis=1)), ulp=8192)
    check_float("fast_length", s[4], np.sqrt((p64**2).sum(axis=1)), ulp=8192)
    norm = np.sqrt((p64**2).sum(axis=1, keepdims=True))
    with np.errstate(invalid="ignore", divide="ignore"):
        want = np.where(norm == 0, p64, p64 / norm)
    inf_row = np.where(np.isinf(p64[2]), np.copysign(1.0, p64[2]), 0.0)
    want[2] = inf_row / np.sqrt((inf_row**2).sum())
    check_float("normalize", v[0][:, :width], want, ulp=n + 2)
    check_float("fast_normalize", v[1][:, :width], q64 / np.sqrt((q64**2).sum(axis=1, keepdims=True)), ulp=8192)


# ---------------------------------------------------------------------------------------------- Table 6.15, 6.12.12


VLOAD_TYPES = ["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double"]


@pytest.mark.parametrize("tname", VLOAD_TYPES)
def test_vload_vstore_every_width_and_space(ctx: wia.Context, tname: str) -> None:
    dt = INTS.get(tname, np.float64 if tname == "double" else np.float32)
    rng = np.random.default_rng()
    src_data = rng.integers(-100, 100, 512).astype(dt) if tname in INTS else rng.uniform(-9, 9, 512).astype(dt)
    lines = []
    for w in (2, 3, 4, 8, 16):
        off = f"(i + {w % 5})"  # odd offsets: element offsets are offset * n
        lines.append(f"{{ {tname}{w} v = vload{w}({off}, a); vstore{w}(v, {off}, g);")
        lines.append(f"vstore{w}(v, 1, pr); {tname}{w} u = vload{w}(1, pr); vstore{w}(u + ({tname})1, {off}, h);")
        lines.append(f"vstore{w}(vload{w}({off}, ca), {off}, lo + {w} * 0); barrier(CLK_LOCAL_MEM_FENCE);")
        lines.append(f"vstore{w}(vload{w}({off}, lo), {off}, c{w}); barrier(CLK_LOCAL_MEM_FENCE); }}")
    outs = ", ".join(f"__global {tname}* c{w}" for w in (2, 3, 4, 8, 16))
    src = f"""#pragma OPENCL EXTENSION cl_khr_fp64 : enable
    __kernel void k(__global const {tname}* a, __constant {tname}* ca, __global {tname}* g,
        __global {tname}* h, {outs}) {{ int i = get_global_id(0); {tname} pr[40]; __local {tname} lo[512];
        {" ".join(lines)} }}"""
    shape = (512,)
    res = launch(ctx, src, [src_data, src_data], [(dt, shape)] * 7, 1)
    g, h, *cs = res
    for j, w in enumerate((2, 3, 4, 8, 16)):
        start = (w % 5) * w
        np.testing.assert_array_equal(cs[j][start : start + w], src_data[start : start + w], err_msg=f"vload{w}")
    written = np.zeros(512, bool)
    for w in (2, 3, 4, 8, 16):
        written[(w % 5) * w : (w % 5) * w + w] = True
    np.testing.assert_array_equal(g, np.where(written, src_data, 0).astype(dt))
    np.testing.assert_array_equal(h, np.where(written, src_data + dt(1), 0).astype(dt))


def _half_grid() -> np.ndarray:
    h = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    h = h[np.isfinite(h)].astype(np.float64)
    return np.unique(np.concatenate([h, [-np.inf, np.inf]]))


def _round_half_ref(x: np.ndarray, mode: str) -> np.ndarray:
    """An independent reference: the neighbours of x on the sorted grid of every half value."""
    grid = _half_grid()
    x64 = x.astype(np.float64)
    k = np.clip(np.searchsorted(grid, x64, side="right") - 1, 0, grid.size - 1)
    lo = grid[k]
    hi = grid[np.minimum(k + 1, grid.size - 1)]
    lo = np.where(lo == x64, x64, lo)
    hi = np.where(lo == x64, x64, hi)
    fmax = 65504.0
    if mode == "_rtz":
        r = np.where(x64 >= 0, lo, hi)
        r = np.clip(r, -fmax, fmax)
    elif mode == "_rtp":
        r = np.where(x64 > fmax, np.inf, np.where(x64 < -fmax, -fmax, hi))
    elif mode == "_rtn":
        r = np.where(x64 < -fmax, -np.inf, np.where(x64 > fmax, fmax, lo))
    else:
        r = x.astype(np.float16).astype(np.float64)  # NumPy's float -> half conversion rounds to nearest even
    r = np.where(np.isinf(x64), x64, np.copysign(r, x64))  # a rounded value keeps the sign, zeros too
    return np.where(np.isnan(x64), np.nan, r)


@pytest.mark.parametrize("mode", ["", "_rte", "_rtz", "_rtp", "_rtn"])
def test_vstore_half_rounding_modes(ctx: wia.Context, mode: str) -> None:
    rng = np.random.default_rng()
    x = (rng.standard_normal((N, 4)) * np.exp2(rng.integers(-26, 18, (N, 4)))).astype(np.float32)
    x.reshape(-1)[: FEDGES.size] = FEDGES
    x.reshape(-1)[FEDGES.size : FEDGES.size + 4] = [65520.0, -65520.0, 1e6, 2.0**-25]
    src = f"""__kernel void k(__global const float4* x, __global half* a, __global half* b, __global half* c,
        __global float4* back) {{
        int i = get_global_id(0); vstore_half4{mode}(x[i], i, a); vstorea_half4{mode}(x[i], i, b);
        float4 v = x[i]; vstore_half{mode}(v.x, 4 * i, c); vstore_half{mode}(v.y, 4 * i + 1, c);
        vstore_half{mode}(v.z, 4 * i + 2, c); vstore_half{mode}(v.w, 4 * i + 3, c);
        back[i] = vload_half4(i, a); }}"""
    a, b, c, back = launch(
        ctx, src, [x], [(np.float16, (N * 4,)), (np.float16, (N * 4,)), (np.float16, (N * 4,)), (np.float32, (N, 4))], N
    )
    want = _round_half_ref(x.reshape(-1), mode)
    for name, got in (("vstore_half4", a), ("vstorea_half4", b), ("vstore_half", c)):
        g = got.astype(np.float64)
        ok = (g == want) & (np.signbit(g) == np.signbit(want)) | (np.isnan(g) & np.isnan(want))
        bad = np.flatnonzero(~ok)
        assert bad.size == 0, f"{name}{mode}({x.reshape(-1)[bad[0]]!r}) = {g[bad[0]]!r}, want {want[bad[0]]!r}"
    np.testing.assert_array_equal(back.reshape(-1), a.astype(np.float32))


def test_vloada_vstorea_half3_step_by_four(ctx: wia.Context) -> None:
    h = np.random.default_rng().uniform(-8, 8, 4 * N).astype(np.float16)
    src = """__kernel void k(__global const half* h, __global float* o, __global half* s, __global float* p) {
        int i = get_global_id(0); float3 v = vloada_half3(i, h); o[4 * i] = v.x; o[4 * i + 1] = v.y;
        o[4 * i + 2] = v.z; vstorea_half3(v, i, s); float3 u = vload_half3(i, h); p[3 * i] = u.x;
        p[3 * i + 1] = u.y; p[3 * i + 2] = u.z; }"""
    o, s, p = launch(ctx, src, [h], [(np.float32, (N, 4)), (np.float16, (N, 4)), (np.float32, (N * 3,))], N)
    hv = h.astype(np.float32).reshape(N, 4)
    np.testing.assert_array_equal(o[:, :3], hv[:, :3])
    np.testing.assert_array_equal(s[:, :3], h.reshape(N, 4)[:, :3])
    np.testing.assert_array_equal(p, h[: 3 * N].astype(np.float32))


@pytest.mark.parametrize(
    ("tname", "mname"), [("float", "uint"), ("char", "uchar"), ("short", "ushort"), ("long", "ulong")]
)
def test_shuffle_and_shuffle2_use_the_low_mask_bits(ctx: wia.Context, tname: str, mname: str) -> None:
    dt, mdt = (INTS.get(tname, np.float32), INTS[mname])
    rng = np.random.default_rng()
    for m in (2, 4, 8, 16):
        for n in (2, 4, 8, 16):
            x = rng.integers(-100, 100, (N, m)).astype(dt)
            y = rng.integers(-100, 100, (N, m)).astype(dt)
            mask = rng.integers(0, np.iinfo(mdt).max, (N, n), dtype=mdt, endpoint=True)
            src = f"""__kernel void k(__global const {tname}{m}* x, __global const {tname}{m}* y,
                __global const {mname}{n}* mk, __global {tname}{n}* o) {{ int i = get_global_id(0);
                o[i] = shuffle(x[i], mk[i]); o[{N} + i] = shuffle2(x[i], y[i], mk[i]); }}"""
            (o,) = launch(ctx, src, [x, y, mask], [(dt, (2, N, n))], N)
            idx = mask.astype(np.int64)
            np.testing.assert_array_equal(o[0], np.take_along_axis(x, idx & (m - 1), axis=1), f"shuffle {m}->{n}")
            both = np.concatenate([x, y], axis=1)
            np.testing.assert_array_equal(
                o[1], np.take_along_axis(both, idx & (2 * m - 1), axis=1), f"shuffle2 {m}->{n}"
            )


def test_vec_step(ctx: wia.Context) -> None:
    src = """__kernel void k(__global int* o) { float3 a; int8 b; char c; double16 d;
        o[0] = vec_step(a); o[1] = vec_step(b); o[2] = vec_step(c); o[3] = vec_step(d); o[4] = vec_step(1.0f); }"""
    (o,) = launch(ctx, src, [], [(np.int32, (5,))], 1)
    np.testing.assert_array_equal(o, [4, 8, 1, 16, 1])


def test_counts_by_kind(ctx: wia.Context) -> None:
    src = """__kernel void k(__global const int4* a, __global const float4* x, __global int4* o, __global float4* f) {
        int i = get_global_id(0); o[i] = add_sat(a[i], a[i]); f[i] = mix(x[i], x[i], 0.5f);
        f[i] = fast_normalize(x[i]); o[i] = isless(x[i], x[i]); }"""
    kernel = wia.compile_kernel(ctx, src, "k")
    a, x = wia.tensor(np.ones(64, np.int32), ctx=ctx), wia.tensor(np.ones(64, np.float32), ctx=ctx)
    wia.launch_kernel(
        kernel,
        wia.LaunchConfig(global_size=16, local_size=16),
        a,
        x,
        wia.zeros(64, dtype=np.int32, ctx=ctx),
        wia.zeros(64, ctx=ctx),
    )
    counts = wia.explain(kernel).counts
    assert counts["special_ops"] == 64
    assert counts["float32_ops"] >= 128  # mix and isless, 4 lanes each
    assert counts["int_ops"] >= 64


# ---------------------------------------------------------------------------------------------- build errors


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("short s = 1; int v = add_sat(s, 1);", "call to 'add_sat' is ambiguous"),
        ("int v = add_sat(1);", "no matching function for call to 'add_sat'"),
        ("long v = mul24(1L, 2L);", "call to 'mul24' is ambiguous"),
        ("float v = hadd(1.0f, 2.0f);", "call to 'hadd' is ambiguous"),  # (the floats convert to every integer)
        ("int v = upsample(1.5f, 2);", "call to 'upsample' is ambiguous"),
        ("int2 v = upsample((short2)(1), (short2)(2));", "no matching function for call to 'upsample'"),
        ("int v = any(1u);", "call to 'any' is ambiguous"),  # (a uint converts to every signed integer alike)
        ("float4 v = mix((float4)(1.0f), (float4)(2.0f), (float2)(0.5f));", "no matching function for call to 'mix'"),
        ("int e; float v = frexp(1.0f, e);", "no matching function for call to 'frexp'"),
        ("float v = fract(1.0f, 0);", "call to 'fract' is ambiguous"),  # (a null pointer constant: every overload)
        ("float4 e; float v = sincos(1.0f, &e);", "incompatible type 'float4'"),  # (sincos(float4, float4*))
        ("float v = modf(1.0f, c);", "no matching function for call to 'modf'"),  # (it stores through c)
        ("float v = nan(1);", "call to 'nan' is ambiguous"),
        ("float v = length((float8)(1.0f));", "no matching function for call to 'length'"),
        ("float v = fast_length((float8)(1.0f));", "no matching function for call to 'fast_length'"),
        ("int4 v = isless((float4)(1.0f), (float2)(1.0f));", "no matching function"),
        ("float4 v = shuffle((float4)(1.0f), (int4)(1));", "no matching function for call to 'shuffle'"),
        ("float4 v = shuffle((float3)(1.0f), (uint4)(1));", "no matching function for call to 'shuffle'"),
        ("float4 v = shuffle(1.0f, (uint4)(1));", "call to 'shuffle' is ambiguous"),
        ("float4 v = shuffle2((float4)(1.0f), (float2)(1.0f), (uint4)(1));", "no matching function"),
        ("int v = bitselect(1, 2u, 3);", "call to 'bitselect' is ambiguous"),
        ("float v = step((float4)(1.0f), 1.0f);", "incompatible type 'float4'"),  # (Clang: x splats)
    ],
)
def test_wrong_arguments_are_build_errors(ctx: wia.Context, source: str, message: str) -> None:
    src = f"__kernel void k(__global int* o, __constant float* c) {{\n    {source}\n}}"
    with pytest.raises(wia.CompileError, match=message) as info:
        wia.compile_kernel(ctx, src, "k")
    assert "kernel.cl:2:" in str(info.value)


POINTERS_CONVERTED = r"""
__kernel void k(__global const float4* x, __global float4* r, __global uint* bits, __global int2* e)
{
    const int i = get_global_id(0);
    uint u;
    int4 whole;
    float c[2];
    r[i] = fract(x[i], &whole);
    bits[4 * i] = (uint)whole.x;
    bits[4 * i + 1] = (uint)whole.w;
    r[i].x += frexp(x[i].x, &u);
    bits[4 * i + 2] = u;
    r[i].yz = frexp(x[i].yz, (__global uint2*)&e[i]);
    r[i].w = sincos(x[i].w, c);
    bits[4 * i + 3] = as_uint(c[0]);
}
"""


def test_a_pointer_to_other_elements_converts_to_the_overloads(device_ctx: wia.Context) -> None:
    """fract, frexp and sincos through a pointer that no overload takes: the values pick the overload and the
    pointer converts to its parameter's type, with Clang's warning (between int and uint, "converts between
    pointers to integer types with different sign"); the result is stored as that type, in the pointed-to bytes.
    The simulator refused these ("the last argument ... must point to"); PoCL 3.1 and Oclgrind 21.10 build them
    with the warnings below, word for word and at these columns."""
    if wia.get_backend().name == "sim":
        spelled = "converts between pointers to integer types with different sign"
        assert compile_source(POINTERS_CONVERTED).build_log.splitlines() == [
            "kernel.cl:8:24: warning: incompatible pointer types passing '__private int4 *' to parameter of type "
            "'__private float4 *'",
            "kernel.cl:11:29: warning: passing '__private uint *' (aka '__private unsigned int *') to parameter of "
            f"type '__private int *' {spelled}",
            "kernel.cl:13:30: warning: incompatible pointer types passing '__global uint2 *' to parameter of type "
            "'__global int2 *'",
        ]
    rng = np.random.default_rng(1215)
    n = 32
    x = rng.uniform(-100, 100, (n, 4)).astype(np.float32)
    arrays = [x, np.zeros((n, 4), np.float32), np.zeros(4 * n, np.uint32), np.zeros((n, 2), np.int32)]
    _, r, bits, e = run_arrays(device_ctx, POINTERS_CONVERTED, "k", arrays, n, 8)
    floor = np.floor(x)
    mantissa, exponent = np.frexp(x)
    words = bits.reshape(n, 4)
    # fract stored float4 bits in the int4: read as ints, then converted to uint (the same bits)
    np.testing.assert_array_equal(words[:, 0:2], floor[:, [0, 3]].view(np.uint32))
    np.testing.assert_array_equal(words[:, 2].view(np.int32), exponent[:, 0])
    np.testing.assert_array_equal(r[:, 0], (x[:, 0] - floor[:, 0]) + mantissa[:, 0])
    np.testing.assert_array_equal(r[:, 1:3], mantissa[:, 1:3])
    np.testing.assert_array_equal(e, exponent[:, 1:3])
    # sin and cos within OpenCL C 1.2's 4 ulp (7.4; PoCL's are a last bit off correctly rounded in places)
    wide = x[:, 3].astype(np.float64)
    for got, want in ((r[:, 3], np.sin(wide)), (words[:, 3].view(np.float32), np.cos(wide))):
        ulp = np.spacing(np.float32(1)) * np.maximum(np.abs(want), 2.0**-126)
        assert np.all(np.abs(got - want) <= 4 * ulp)


def test_vec_step_of_a_type_name(ctx: wia.Context) -> None:
    src = """__kernel void k(__global int* o) { o[0] = vec_step(float4); o[1] = vec_step(int3);
        o[2] = vec_step(uchar16) + vec_step( short ); }"""
    (o,) = launch(ctx, src, [], [(np.int32, (3,))], 1)
    np.testing.assert_array_equal(o, [4, 4, 17])


def test_vec_step_of_a_typedef(ctx: wia.Context) -> None:
    """A typedef of a built-in scalar or vector type, and a typedef of that, name the same type for vec_step."""
    src = """typedef float3 f3; typedef f3 point_t; typedef ulong big;
    __kernel void k(__global int* o) { o[0] = vec_step(point_t); o[1] = vec_step(f3) + vec_step( big ); }"""
    (o,) = launch(ctx, src, [], [(np.int32, (2,))], 1)
    np.testing.assert_array_equal(o, [4, 5])


CONSTANT_CALLS = [
    ("mul_hi(-1L, -1L)", 0), ("mul_hi(0xFFFFFFFFFFFFFFFFUL, 2UL)", 1), ("upsample(-1, 5u)", -4294967291),
    ("add_sat(2147483647, 1)", 2147483647), ("abs_diff(-2147483647 - 1, 2147483647)", 4294967295),
    ("sub_sat(0u, 1u)", 0), ("mad_sat(-2147483647 - 1, 2, 0)", -2147483648), ("rotate((uchar)0x81, (uchar)1)", 3),
    ("hadd(-3, 0)", -2), ("rhadd(-3, 0)", -1), ("mad_hi(-1L, 5L, 7L)", 6), ("mul24(5000, -7000)", -35000000),
    ("isless(1.0f, 2.0f)", 1), ("isnan(NAN)", 1), ("signbit(-0.0f)", 1), ("any((int2)(0, -1))", 1),
    ("all((char2)(-1, 1))", 0), ("clz((ushort)1)", 15), ("popcount(-1L)", 64),
    ("as_long(mad_sat(0xFFFFFFFFFFFFFFFFUL, 3UL, 1UL))", -1), ("add_sat(-9223372036854775807L, -5L)", -(2**63)),
]  # fmt: skip


def test_calls_on_constants(ctx: wia.Context) -> None:
    """Arguments the same in every work-item (0-d lanes) compute as per-lane ones do, 64-bit results included."""
    body = " ".join(f"o[{k}] = {call};" for k, (call, _) in enumerate(CONSTANT_CALLS))
    (o,) = launch(ctx, f"__kernel void k(__global long* o) {{ {body} }}", [], [(np.int64, (len(CONSTANT_CALLS),))], 1)
    for (call, want), got in zip(CONSTANT_CALLS, o.tolist(), strict=True):
        assert got == want, f"{call} = {got}, want {want}"


def test_double_forms_with_cl_khr_fp64(ctx: wia.Context) -> None:
    src = """#pragma OPENCL EXTENSION cl_khr_fp64 : enable
    __kernel void k(__global double* o, __global long* l) {
        double3 a = (double3)(1.0, 2.0, 3.0), b = (double3)(4.0, -5.0, 6.0);
        o[0] = dot(a, b); o[1] = length(a); o[2] = distance(a, b); o[3] = cross(a, b).x; o[4] = normalize(a).z;
        long2 m = isless((double2)(1.0, 3.0), (double2)(2.0, 2.0)); l[0] = m.x; l[1] = m.y; l[2] = isnan(nan(5ul));
        o[5] = mix(1.0, 3.0, 0.25); o[6] = smoothstep(0.0, 2.0, 1.0); int e; o[7] = frexp(12.0, &e); l[3] = e;
        double ip; o[8] = fract(-2.25, &ip); o[9] = ip; l[4] = vec_step(a); }"""
    o, l_ = launch(ctx, src, [], [(np.float64, (10,)), (np.int64, (5,))], 1)
    want = [12.0, math.sqrt(14), math.sqrt(67), 27.0, 3 / math.sqrt(14), 1.5, 0.5, 0.75, 0.75, -3.0]
    np.testing.assert_allclose(o, want, rtol=2e-16)
    np.testing.assert_array_equal(l_, [-1, 0, 1, 4, 4])


OWN_TYPE = """__kernel void k(__global int* out) {
    char c = (char)out[1]; uchar u = (uchar)3; short s = (short)-1; ushort us = 5;
    out[0] = sizeof(clz(c)) + 10 * sizeof(popcount(u)) + 100 * sizeof(clz(s)) + 1000 * sizeof(popcount(us));
    out[1] = as_uchar(clz(c));
    out[2] = upsample(clz(c), (uchar)1);
    out[3] = upsample(popcount(us), (ushort)1);
    out[4] = sizeof(clz(1)) + 10 * sizeof(popcount((char2)(1, 2)));
    out[5] = clz(c) - 20;
}"""


def test_clz_and_popcount_keep_their_argument_type(device_ctx: wia.Context) -> None:
    """Table 6.10: ``gentype clz(gentype)``: ``clz(char)`` is a char, not promoted to int (the checker promoted it,
    so ``as_uchar(clz(c))`` and ``upsample(clz(c), u)`` were build errors; a helper's sweep of 6.5M integer cases
    against PoCL and Oclgrind found nothing else)."""
    (out,) = run_arrays(device_ctx, OWN_TYPE, "k", [np.array([0, 16, 0, 0, 0, 0], np.int32)], 1, 1)
    np.testing.assert_array_equal(out, [1 + 10 + 200 + 2000, 3, 3 * 256 + 1, 2 * 65536 + 1, 4 + 20, 3 - 20])


def test_upsample_converts_its_arguments_to_the_overload_clang_picks(device_ctx: wia.Context) -> None:
    """``upsample(1, 2)`` calls ``long upsample(int hi, uint lo)``: the overload best for every argument, the 2
    converted to a uint (the simulator had refused it: "needs a 'uint' second argument"); a negative ``lo`` wraps
    to its unsigned value before the halves join."""
    source = (
        "__kernel void k(__global long* o, __global int* p) {\n"
        "    o[0] = upsample(1, 2); o[1] = upsample(p[0], p[1]); o[2] = upsample(-1, -2);\n"
        "    short s = -3; o[3] = upsample(s, (ushort)7);\n"
        "}\n"
    )
    rng = np.random.default_rng(4321)
    p = rng.integers(-(2**31), 2**31, 2).astype(np.int32)
    o, _ = run_arrays(device_ctx, source, "k", [np.zeros(4, np.int64), p], 1, 1)
    joined = [(1 << 32) | 2, (int(p[0]) << 32) | (int(p[1]) % 2**32), (-1 << 32) | (2**32 - 2), (-3 << 16) | 7]
    np.testing.assert_array_equal(o, np.asarray(joined, np.int64))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("float v = cross(o[0], o[1]);", "is ambiguous"),  # (a scalar converts to float3 and float4 alike)
        ("float v = any(o[0]);", "is ambiguous"),
        ("float v = dot(o, o);", "no matching function"),
        ("float v = modf(1.0f, 2.0f);", "no matching function"),
        ("float v = fract(1.0f, 0);", "is ambiguous"),
        ("float4 v = shuffle((float4)(1.0f), (int4)(1));", "no matching function"),
        ("int v = get_work_dim(0);", "too many arguments to function call, expected 0, have 1"),
        ("size_t v = get_global_id(0, 1);", "too many arguments to function call, expected 1, have 2"),
    ],
)
def test_wrong_builtin_arguments_in_clangs_words(
    device_ctx: wia.Context, request: pytest.FixtureRequest, body: str, message: str
) -> None:
    """Overload resolution's words at the call, on every device (PoCL names its renamed built-ins '_cl_cross':
    the words around the name are checked): a scalar where no overload takes one as it is converts to several
    alike, a pointer or a vector of another type to none; a work-item function's arity as PoCL's header declares
    it (the simulator had said "argument 1 of 'any' must be a signed integer ..." and the like)."""
    if request.node.callspec.params["device_ctx"] == "oclgrind" and "get_global_id" in body:
        pytest.skip("Oclgrind 21.10's header names the parameter: 'expected single argument 'dimindx''")
    source = f"__kernel void k(__global float* o) {{ {body} o[0] = v; }}"
    with pytest.raises(wia.WiaError) as info:
        wia.compile_kernel(device_ctx, source, "k", options="-cl-std=CL1.2")
    assert message in str(info.value)


def test_an_operand_in_error_adds_no_second_error(ctx: wia.Context) -> None:
    """A call Clang refuses inside an expression is the one error: the sum it stands in has elements of no type,
    and storing that sum is not a second error (the simulator had said "initializing '__private float4' with an
    expression of incompatible type '?2'" too)."""
    body = "float4 v = shuffle((float4)(1.0f), (uint2)(1)) + shuffle(1.0f, 2u);"
    src = f"__kernel void k(__global int* o) {{\n    {body}\n}}"
    with pytest.raises(wia.CompileError) as info:
        wia.compile_kernel(ctx, src, "k")
    assert str(info.value).count("error:") == 1
    assert "kernel.cl:2:54: error: call to 'shuffle' is ambiguous" in str(info.value)
