"""The OpenCL C 1.2 math built-ins without pointer arguments (6.12.2, Table 6.8) on the simulator, through the HAL.

Each function runs on float and float4 over fresh random data plus edge values (+-0, +-inf, NaN, denormals,
arguments outside the domain) and is compared with a float64 reference from Python's ``math`` module within the
function's float ulp bound from the spec's Table 7.1 (the ``ULP`` table). Infinite, NaN and zero references must
match exactly, including the sign of a zero. Values the spec defines exactly (7.5.1, e.g. ``sinpi(-n) = -0``)
are checked on their own.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
"""The float64 references are evaluated at the poles, infinities and NaNs on purpose: NumPy's warnings about them
say nothing about the simulator."""

N = 256
TINY = float(np.float32(2.0**-149))  # the smallest float32 denormal
EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, TINY, -TINY, 1e-40, -3e-39, 1.0, -1.0, 0.5, -0.5], np.float32)

# float ulp bounds, OpenCL C 1.2 Table 7.1 (0 = correctly rounded / exact)
ULP: dict[str, float] = {
    "acos": 4, "acosh": 4, "acospi": 5, "asin": 4, "asinh": 4, "asinpi": 5, "atan": 5, "atanh": 5, "atanpi": 5,
    "cbrt": 2, "cosh": 4, "sinh": 4, "cospi": 4, "sinpi": 4, "tanpi": 6, "erf": 16, "erfc": 16, "exp10": 3,
    "expm1": 3, "log10": 3, "log1p": 2, "logb": 0, "rint": 0, "tgamma": 16,
    "lgamma": 16,  # Table 7.1 leaves lgamma undefined; the simulator rounds float64 once, so 16 is generous
    "native_exp10": 8192, "native_log10": 8192,  # implementation-defined; the simulator's are the precise ones
    "half_exp10": 8192, "half_log10": 8192,
    "atan2": 6, "atan2pi": 6, "copysign": 0, "fdim": 0, "hypot": 4, "maxmag": 0, "minmag": 0, "nextafter": 0,
    "remainder": 0, "ldexp": 0, "rootn": 4,
}  # fmt: skip


def _m1(fn: Callable[[float], float], pole: Callable[[float], float] = lambda x: math.nan) -> Callable[..., np.ndarray]:
    def one(x: float) -> float:
        try:
            return fn(x)
        except (ValueError, OverflowError, ZeroDivisionError):
            return pole(x)

    f = np.frompyfunc(one, 1, 1)
    return lambda x: np.asarray(f(np.asarray(x, np.float64)), np.float64)


def _m2(fn: Callable[[float, float], float]) -> Callable[..., np.ndarray]:
    def one(x: float, y: float) -> float:
        try:
            return fn(x, y)
        except (ValueError, OverflowError, ZeroDivisionError):
            return math.nan

    f = np.frompyfunc(one, 2, 1)
    return lambda x, y: np.asarray(f(np.asarray(x, np.float64), np.asarray(y, np.float64)), np.float64)


def _pi(fn: Callable[[float], float]) -> Callable[[float], float]:
    return lambda x: fn(x) / math.pi


def _gamma_pole(x: float) -> float:
    return math.copysign(math.inf, x) if x == 0 else (math.inf if x > 0 else math.nan)


def _ref_sinpi(x: float) -> float:
    r = math.fmod(x, 2.0)
    return math.copysign(0.0, x) if r == int(r) else math.sin(math.pi * r)


def _ref_cospi(x: float) -> float:
    r = math.fmod(abs(x), 2.0)
    return 0.0 if r in (0.5, 1.5) else math.cos(math.pi * r)


def _ref_tanpi(x: float) -> float:
    r = math.fmod(x, 1.0)
    if r == 0:
        return math.copysign(0.0, x) if math.fmod(x, 2.0) == 0 else -math.copysign(0.0, x)
    if abs(r) == 0.5:
        return math.inf if math.fmod(x - 0.5, 2.0) == 0 else -math.inf
    return math.tan(math.pi * r)


def _ref_logb(x: float) -> float:
    if x == 0:
        return -math.inf
    if not math.isfinite(x):
        return abs(x)
    return float(math.frexp(x)[1] - 1)


def _ref_rint(x: float) -> float:
    return x if math.isinf(x) or x == 0 else math.copysign(float(round(x)), x)


UNARY: dict[str, tuple[Callable[..., np.ndarray], tuple[float, float]]] = {
    "acos": (_m1(math.acos), (-1.2, 1.2)),
    "acosh": (_m1(math.acosh), (0.5, 1e4)),
    "acospi": (_m1(_pi(math.acos)), (-1.2, 1.2)),
    "asin": (_m1(math.asin), (-1.2, 1.2)),
    "asinh": (_m1(math.asinh), (-1e4, 1e4)),
    "asinpi": (_m1(_pi(math.asin)), (-1.2, 1.2)),
    "atan": (_m1(math.atan), (-100, 100)),
    "atanh": (_m1(math.atanh, lambda x: math.copysign(math.inf, x) if abs(x) == 1 else math.nan), (-1.1, 1.1)),
    "atanpi": (_m1(_pi(math.atan)), (-100, 100)),
    "cbrt": (_m1(lambda x: math.copysign(abs(x) ** (1 / 3), x) if math.isfinite(x) else x), (-1e6, 1e6)),
    "cosh": (_m1(math.cosh, lambda x: math.inf), (-90, 90)),
    "sinh": (_m1(math.sinh, lambda x: math.copysign(math.inf, x)), (-90, 90)),
    "cospi": (_m1(_ref_cospi), (-20, 20)),
    "sinpi": (_m1(_ref_sinpi), (-20, 20)),
    "tanpi": (_m1(_ref_tanpi), (-20, 20)),
    "erf": (_m1(math.erf), (-5, 5)),
    "erfc": (_m1(math.erfc), (-5, 12)),
    "exp10": (_m1(lambda x: 10.0**x, lambda x: math.inf), (-40, 40)),
    "expm1": (_m1(math.expm1, lambda x: math.inf), (-20, 20)),
    "log10": (_m1(math.log10, lambda x: -math.inf if x == 0 else math.nan), (-1, 1e6)),
    "log1p": (_m1(math.log1p, lambda x: -math.inf if x == -1 else math.nan), (-1.5, 1e4)),
    "logb": (_m1(_ref_logb), (-1e30, 1e30)),
    "rint": (_m1(_ref_rint), (-100, 100)),
    "tgamma": (_m1(math.gamma, _gamma_pole), (-10, 36)),
    "lgamma": (_m1(math.lgamma, lambda x: math.inf), (-10, 1e4)),
    "native_exp10": (_m1(lambda x: 10.0**x, lambda x: math.inf), (-30, 30)),
    "native_log10": (_m1(math.log10, lambda x: -math.inf if x == 0 else math.nan), (0, 1e6)),
    "half_exp10": (_m1(lambda x: 10.0**x, lambda x: math.inf), (-30, 30)),
    "half_log10": (_m1(math.log10, lambda x: -math.inf if x == 0 else math.nan), (0, 1e6)),
}


def _maxmag(x: float, y: float) -> float:
    if abs(x) > abs(y):
        return x
    if abs(y) > abs(x):
        return y
    return y if math.isnan(x) else x if math.isnan(y) else max(x, y)


def _minmag(x: float, y: float) -> float:
    if abs(x) < abs(y):
        return x
    if abs(y) < abs(x):
        return y
    return y if math.isnan(x) else x if math.isnan(y) else min(x, y)


def _fdim(x: float, y: float) -> float:
    return math.nan if math.isnan(x) or math.isnan(y) else (x - y if x > y else 0.0)


def _remainder(x: float, y: float) -> float:
    return x if math.isinf(y) and math.isfinite(x) else math.remainder(x, y)


BINARY: dict[str, tuple[Callable[..., np.ndarray], tuple[float, float]]] = {
    "atan2": (_m2(math.atan2), (-10, 10)),
    "atan2pi": (_m2(lambda y, x: math.atan2(y, x) / math.pi), (-10, 10)),
    "copysign": (_m2(math.copysign), (-10, 10)),
    "fdim": (_m2(_fdim), (-10, 10)),
    "hypot": (_m2(math.hypot), (-1e20, 1e20)),
    "maxmag": (_m2(_maxmag), (-3, 3)),
    "minmag": (_m2(_minmag), (-3, 3)),
    "remainder": (_m2(_remainder), (-100, 100)),
}


def _ulp32(e: np.ndarray) -> np.ndarray:
    a = np.abs(e).astype(np.float32)
    return np.maximum(np.spacing(a).astype(np.float64), TINY)


def _check(name: str, got: np.ndarray, want: np.ndarray, inputs: tuple[np.ndarray, ...]) -> None:
    got = got.astype(np.float64)
    special = ~np.isfinite(want) | (want == 0)
    same = (np.isnan(got) & np.isnan(want)) | ((got == want) & (np.signbit(got) == np.signbit(want)))
    bad = special & ~same
    # a finite reference past FLT_MAX rounds to inf; below the denormals to 0: compare after rounding to float32
    with np.errstate(over="ignore"):
        w32 = want.astype(np.float32).astype(np.float64)
    finite = ~special
    err = np.abs(got - want) / _ulp32(want)
    ok32 = (got == w32) | (err <= max(ULP[name], 0.5))
    bad |= finite & ~ok32
    where = np.flatnonzero(bad)
    assert where.size == 0, (
        f"{name}: {where.size} results off, e.g. {name}{tuple(float(x[where[0]]) for x in inputs)} = "
        f"{got[where[0]]!r}, want {want[where[0]]!r}"
    )


def _draw(rng: np.random.Generator, lo: float, hi: float) -> np.ndarray:
    x = rng.uniform(lo, hi, N).astype(np.float32)
    x[: EDGES.size] = EDGES
    return x


def _run(ctx: wia.Context, call: str, args: list[np.ndarray], width: int, out_dtype: type = np.float32) -> np.ndarray:
    vec = f"float{width}" if width > 1 else "float"
    ivec = f"int{width}" if width > 1 else "int"
    params = ", ".join(f"__global const {ivec if a.dtype == np.int32 else vec}* {'xyz'[i]}" for i, a in enumerate(args))
    out_t = ivec if out_dtype is np.int32 else vec
    names = ", ".join(f"{'xyz'[i]}[i]" for i in range(len(args)))
    src = f"__kernel void k({params}, __global {out_t}* o) {{ int i = get_global_id(0); o[i] = {call}({names}); }}"
    kernel = wia.compile_kernel(ctx, src, "k")
    out = wia.zeros(N, dtype=out_dtype, ctx=ctx)
    tensors = [wia.tensor(a, ctx=ctx) for a in args]
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=N // width, local_size=64 // width), *tensors, out)
    return out.numpy()


@pytest.mark.parametrize("width", [1, 4])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(ctx: wia.Context, name: str, width: int) -> None:
    ref, (lo, hi) = UNARY[name]
    x = _draw(np.random.default_rng(), lo, hi)
    _check(name, _run(ctx, name, [x], width), ref(x), (x,))


@pytest.mark.parametrize("width", [1, 4])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(ctx: wia.Context, name: str, width: int) -> None:
    ref, (lo, hi) = BINARY[name]
    rng = np.random.default_rng()
    x, y = _draw(rng, lo, hi), rng.uniform(lo, hi, N).astype(np.float32)
    y[: 2 * EDGES.size] = np.concatenate([EDGES[::-1], EDGES])  # every edge against other edges and randoms
    x[EDGES.size : 2 * EDGES.size] = rng.uniform(lo, hi, EDGES.size)
    _check(name, _run(ctx, name, [x, y], width), ref(x, y), (x, y))


@pytest.mark.parametrize("width", [1, 4])
def test_nextafter_steps_one_float32_ulp(ctx: wia.Context, width: int) -> None:
    rng = np.random.default_rng()
    x, y = _draw(rng, -10, 10), _draw(rng, -10, 10)[::-1].copy()
    got = _run(ctx, "nextafter", [x, y], width)
    np.testing.assert_array_equal(got, np.nextafter(x, y))  # np.nextafter on float32 arrays: float32 steps
    assert _run(ctx, "nextafter", [np.zeros(N, np.float32), np.ones(N, np.float32)], width)[0] == TINY


@pytest.mark.parametrize("width", [1, 4])
def test_ilogb_ldexp_rootn(ctx: wia.Context, width: int) -> None:
    rng = np.random.default_rng()
    x = _draw(rng, -1e30, 1e30)
    want = np.array([math.frexp(v)[1] - 1 if math.isfinite(v) and v != 0 else 0 for v in x.tolist()], np.int64)
    want = np.where(x == 0, -(2**31), np.where(~np.isfinite(x), 2**31 - 1, want))  # FP_ILOGB0, FP_ILOGBNAN: PoCL's
    np.testing.assert_array_equal(_run(ctx, "ilogb", [x], width, np.int32), want)

    k = rng.integers(-160, 160, N).astype(np.int32)
    x = _draw(rng, -4, 4)
    want = np.array(
        [math.ldexp(a, int(b)) if math.isfinite(a) else a for a, b in zip(x.tolist(), k.tolist(), strict=True)]
    )
    with np.errstate(over="ignore"):
        _check("ldexp", _run(ctx, "ldexp", [x, k], width), want, (x, k))

    n = rng.integers(-6, 7, N).astype(np.int32)
    x = _draw(rng, -1e3, 1e3)

    def rootn(a: float, b: int) -> float:
        if b == 0 or (a < 0 and b % 2 == 0) or math.isnan(a):
            return math.nan
        if a == 0:
            return (math.copysign(math.inf, a) if b % 2 else math.inf) if b < 0 else (a if b % 2 else 0.0)
        r = abs(a) ** (1.0 / b)
        return -r if a < 0 else r

    want = np.array([rootn(a, b) for a, b in zip(x.tolist(), n.tolist(), strict=True)])
    _check("rootn", _run(ctx, "rootn", [x, n], width), want, (x, n))


def test_ldexp_takes_a_scalar_exponent_with_a_vector(ctx: wia.Context) -> None:
    src = """__kernel void k(__global const float4* x, __global float4* o, int k) {
        int i = get_global_id(0); o[i] = ldexp(x[i], k); }"""
    x = np.random.default_rng().uniform(-4, 4, 64).astype(np.float32)
    out = wia.zeros(64, ctx=ctx)
    kernel = wia.compile_kernel(ctx, src, "k")
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=16, local_size=16), wia.tensor(x, ctx=ctx), out, -3)
    np.testing.assert_array_equal(out.numpy(), x / 8)


SPEC_VALUES = [
    ("sinpi(1.0f)", 0.0), ("sinpi(-1.0f)", -0.0), ("sinpi(-0.0f)", -0.0), ("sinpi(0.5f)", 1.0),
    ("cospi(0.5f)", 0.0), ("cospi(-1.5f)", 0.0), ("cospi(1.0f)", -1.0),
    ("tanpi(0.5f)", math.inf), ("tanpi(1.5f)", -math.inf), ("tanpi(-0.5f)", -math.inf), ("tanpi(2.0f)", 0.0),
    ("tanpi(1.0f)", -0.0), ("tanpi(-2.0f)", -0.0),
    ("rint(2.5f)", 2.0), ("rint(3.5f)", 4.0), ("rint(-0.5f)", -0.0), ("logb(0.0f)", -math.inf),
    ("logb(1.4e-45f)", -149.0), ("logb(-INFINITY)", math.inf), ("remainder(5.0f, 2.0f)", 1.0),
    ("remainder(7.0f, 2.0f)", -1.0), ("remainder(1.0f, 0.0f)", math.nan), ("remainder(3.0f, INFINITY)", 3.0),
    ("maxmag(-3.0f, 2.0f)", -3.0), ("maxmag(2.0f, -2.0f)", 2.0), ("minmag(-3.0f, 2.0f)", 2.0),
    ("minmag(2.0f, -2.0f)", -2.0), ("maxmag(NAN, 1.0f)", 1.0), ("fdim(1.0f, 3.0f)", 0.0), ("fdim(3.0f, 1.0f)", 2.0),
    ("fdim(NAN, 1.0f)", math.nan), ("copysign(2.0f, -0.0f)", -2.0), ("hypot(INFINITY, NAN)", math.inf),
    ("rootn(-8.0f, 3)", -2.0), ("rootn(-8.0f, 2)", math.nan), ("rootn(8.0f, 0)", math.nan),
    ("rootn(-0.0f, -3)", -math.inf), ("rootn(-0.0f, -2)", math.inf), ("rootn(-0.0f, 3)", -0.0),
    ("ldexp(1.0f, -149)", TINY), ("ldexp(1.0f, 128)", math.inf), ("tgamma(0.0f)", math.inf),
    ("tgamma(-0.0f)", -math.inf), ("tgamma(-1.0f)", math.nan), ("tgamma(5.0f)", 24.0), ("lgamma(0.0f)", math.inf),
    ("lgamma(1.0f)", 0.0), ("log1p(-1.0f)", -math.inf), ("log1p(-2.0f)", math.nan), ("acosh(0.5f)", math.nan),
    ("acosh(1.0f)", 0.0), ("atanh(1.0f)", math.inf), ("expm1(-0.0f)", -0.0), ("erf(-INFINITY)", -1.0),
    ("erfc(INFINITY)", 0.0), ("exp10(2.0f)", 100.0), ("log10(1000.0f)", 3.0), ("cbrt(-27.0f)", -3.0),
    ("atan2pi(1.0f, -1.0f)", 0.75), ("acospi(-1.0f)", 1.0), ("asinpi(-0.0f)", -0.0), ("nextafter(-0.0f, 1.0f)", TINY),
]  # fmt: skip


def test_values_the_spec_defines_exactly(ctx: wia.Context) -> None:
    body = " ".join(f"o[{i}] = {call};" for i, (call, _) in enumerate(SPEC_VALUES))
    kernel = wia.compile_kernel(ctx, f"__kernel void k(__global float* o) {{ {body} }}", "k")
    out = wia.zeros(len(SPEC_VALUES), ctx=ctx)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=1, local_size=1), out)
    for (call, want), got in zip(SPEC_VALUES, out.numpy().tolist(), strict=True):
        ok = math.isnan(got) if math.isnan(want) else got == want and math.copysign(1, got) == math.copysign(1, want)
        assert ok, f"{call} = {got!r}, want {want!r}"
    np.testing.assert_array_equal(
        _ilogb_values(ctx), [-(2**31), -(2**31), 2**31 - 1, 2**31 - 1, -149, 0, 1]
    )  # ilogb(+-0), (inf), (NaN), (denormal), (1), (3)


def _ilogb_values(ctx: wia.Context) -> np.ndarray:
    args = ["0.0f", "-0.0f", "INFINITY", "NAN", "1.4e-45f", "1.0f", "3.0f"]
    body = " ".join(f"o[{i}] = ilogb({a});" for i, a in enumerate(args))
    kernel = wia.compile_kernel(ctx, f"__kernel void k(__global int* o) {{ {body} }}", "k")
    out = wia.zeros(len(args), dtype=np.int32, ctx=ctx)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=1, local_size=1), out)
    return out.numpy()


def test_transcendentals_count_as_special_ops_the_rest_as_float_ops(ctx: wia.Context) -> None:
    src = """__kernel void k(__global const float4* x, __global float4* o) {
        int i = get_global_id(0); o[i] = sinh(x[i]); o[i] = rint(x[i]); }"""
    kernel = wia.compile_kernel(ctx, src, "k")
    x = wia.tensor(np.ones(64, np.float32), ctx=ctx)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=16, local_size=16), x, wia.zeros(64, ctx=ctx))
    counts = wia.explain(kernel).counts
    assert counts["special_ops"] == 64 and counts["float32_ops"] == 64


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("float4 v = atan2((float4)(1.0f), (float2)(1.0f));", "no matching function for call to 'atan2'"),
        ("float v = atan2(1.0f, 1.0);", "is ambiguous"),  # (float, double): Clang's "call to 'atan2' is ambiguous"
        ("float4 v = rootn((float4)(1.0f), (uint4)(2));", "no matching function"),  # (2 or 2.0f: converted, splatted)
        ("float v = ldexp(1.0f, (float2)(2.0f)).x;", "no matching function"),
        ("float v = fract(1.0f, 0);", "call to 'fract' is ambiguous"),
    ],
)
def test_calls_outside_table_6_8_are_compile_errors(ctx: wia.Context, source: str, message: str) -> None:
    with pytest.raises(wia.CompileError, match=message):
        wia.compile_kernel(ctx, f"__kernel void k(__global float* o) {{ {source} o[0] = 0.0f; }}", "k")


NATIVE_DOUBLES = """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void k(__global const double* in, __global float* out, __global double* wide)
{
    const double a = in[0], b = in[1];
    out[0] = native_divide(a, b);
    out[1] = native_sqrt(a);
    out[2] = native_recip(b);
    out[3] = half_divide(a, b);
    out[4] = half_exp(a);
    out[5] = native_log2(a + b);
    out[6] = native_sqrt(3);
    out[7] = sizeof(native_divide(a, b));
    wide[0] = 1.0 - native_divide(a, b);  // the float result widened again in a double expression
    wide[1] = native_recip(b);
}
"""


def test_native_and_half_functions_take_doubles_as_floats(device_ctx: wia.Context) -> None:
    """The ``native_`` and ``half_`` functions take and give floats alone (OpenCL C 1.2 6.12.2, Table 6.9): a double
    argument converts to float first, and the result is a float, in a double expression too. The simulator typed
    the call as float but computed in double precision (Mandelbulber's DOUBLE_PRECISION formulas: 21 of 47 differed
    from Oclgrind). Accuracy of these functions is implementation-defined: a few ulp of float apart from NumPy's
    float32 result on every device, which a double's precision is not (2/3 in double is 2.4e-8 off float's)."""
    a, b = np.float32(2.0), np.float32(3.0)
    _, out, wide = run_arrays(
        device_ctx, NATIVE_DOUBLES, "k", [np.array([2.0, 3.0]), np.zeros(8, np.float32), np.zeros(2)], 1, 1
    )
    expected = np.array(
        [a / b, np.sqrt(a), np.float32(1) / b, a / b, np.exp(a), np.log2(a + b), np.sqrt(np.float32(3)), 4],
        np.float32,
    )
    ulps = np.abs(out.view(np.int32).astype(np.int64) - expected.view(np.int32).astype(np.int64))
    assert ulps.max() <= 4, (out, expected)
    assert wide[0] == 1.0 - float(out[0]) and wide[1] == float(out[2])  # (float results: exact in double)


FAST_DOUBLES = """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void k(__global const double* in, __global float* out, __global double* wide)
{
    const double a = in[0], b = in[1];
    out[0] = fast_length(a);
    out[1] = fast_distance(a / 3, b);
    out[2] = fast_normalize(-a);
    wide[0] = 1.0 - fast_distance(a / 3, b);
}
"""


def test_fast_geometric_functions_take_doubles_as_floats(
    device_ctx: wia.Context, request: pytest.FixtureRequest
) -> None:
    """``fast_length``, ``fast_distance`` and ``fast_normalize`` are of floats alone (OpenCL C 1.2 6.12.5): a double
    converts to float first, as PoCL 3.1 builds the call (the simulator computed ``1.0 - fast_distance(a / 3, b)``
    in double precision)."""
    if request.node.callspec.params.get("device_ctx") == "oclgrind":
        pytest.skip("Oclgrind 21.10's header declares half overloads too (cl_khr_fp16): the calls are ambiguous there")
    _, out, wide = run_arrays(
        device_ctx, FAST_DOUBLES, "k", [np.array([2.0, 3.0]), np.zeros(3, np.float32), np.zeros(1)], 1, 1
    )
    third = np.float32(2.0) / np.float32(3)
    assert out.tolist() == [2.0, float(np.float32(3) - third), -1.0]
    assert wide[0] == 1.0 - float(np.float32(3) - third)
