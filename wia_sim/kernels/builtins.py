"""The kernel language's math, integer, geometric and conversion built-ins on lane values.

Float functions are evaluated in float64 and rounded once to the argument's type (float32 for ``float``), so they
are at least as accurate as the OpenCL C 1.2 ulp bounds require; ``native_*``/``half_*`` are the precise ones.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels import accurate
from wia_sim.kernels.conversions import rounded, saturated
from wia_sim.kernels.ctype import FLOAT, INT, SCALARS, CType, common_type, convert, lookup
from wia_sim.kernels.spaces import Value

__all__ = ["MATH_FUNCTIONS", "SPECIAL", "as_type", "call_math", "convert_to", "evaluate"]

Array = NDArray[Any]

_UNARY_FLOAT: dict[str, Callable[[Array], Array]] = {
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1.0 / np.sqrt(x),
    "exp": np.exp,
    "exp2": np.exp2,
    "log": np.log,
    "log2": np.log2,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "tanh": np.tanh,
    "fabs": np.abs,
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "round": accurate.round_half_away,
    "recip": lambda x: 1.0 / x,
}


def _pyfunc(fn: Callable[[float], float], pole: Callable[[float], float]) -> Callable[[Array], Array]:
    """``fn`` (a ``math`` function) lane by lane on float64; ``pole(x)`` where it raises (a pole or overflow)."""

    def safe(x: float) -> float:
        try:
            return fn(x)
        except (ValueError, OverflowError):
            return pole(x)

    vectorized = np.frompyfunc(safe, 1, 1)
    return lambda x: np.asarray(vectorized(x), dtype=np.float64)


_LIBRARY_LGAMMA = _pyfunc(math.lgamma, lambda x: math.inf)  # poles (0 and the negative integers): +inf


def _logb(x: Array) -> Array:
    exponent = np.frexp(x)[1].astype(np.float64) - 1.0  # float32 denormals are normal in float64: their true exponent
    return np.where(np.isfinite(x) & (x != 0), exponent, np.where(x == 0, -np.inf, np.abs(x)))


_UNARY_FLOAT.update(
    {
        "acos": np.arccos,
        "asin": np.arcsin,
        "atan": np.arctan,
        "acosh": np.arccosh,
        "asinh": np.arcsinh,
        "atanh": np.arctanh,
        "acospi": lambda x: np.arccos(x) / np.pi,
        "asinpi": lambda x: np.arcsin(x) / np.pi,
        "atanpi": lambda x: np.arctan(x) / np.pi,
        "cbrt": np.cbrt,
        "cosh": np.cosh,
        "sinh": np.sinh,
        "cospi": accurate.cospi,
        "sinpi": accurate.sinpi,
        "tanpi": accurate.tanpi,
        "erf": accurate.erf,
        "erfc": accurate.erfc,
        "exp10": lambda x: np.power(10.0, x),
        "expm1": np.expm1,
        "log10": np.log10,
        "log1p": np.log1p,
        "logb": _logb,
        "rint": np.rint,
        "tgamma": _pyfunc(math.gamma, accurate.tgamma_pole),
        "lgamma": lambda x: accurate.lgamma(x, _LIBRARY_LGAMMA(x)),
    }
)


def _ieee(fn: Callable[[Array], Array]) -> Callable[[float], float]:
    """NumPy's IEEE value of ``fn`` at one point (where a ``math`` function raises instead: NaN, an infinity)."""
    return lambda x: float(fn(np.asarray(x, np.float64)))


_DOUBLE_UNARY: dict[str, Callable[[Array], Array]] = {
    name: _pyfunc(getattr(math, name), _ieee(ieee))
    for name, ieee in (
        ("exp", np.exp),
        ("exp2", np.exp2),
        ("expm1", np.expm1),
        ("log", np.log),
        ("log2", np.log2),
        ("log10", np.log10),
        ("log1p", np.log1p),
        ("sin", np.sin),
        ("cos", np.cos),
        ("tan", np.tan),
        ("asin", np.arcsin),
        ("acos", np.arccos),
        ("atan", np.arctan),
        ("sinh", np.sinh),
        ("cosh", np.cosh),
        ("tanh", np.tanh),
        ("asinh", np.arcsinh),
        ("acosh", np.arccosh),
        ("atanh", np.arctanh),
        ("cbrt", np.cbrt),
        ("erf", accurate.erf),
        ("erfc", accurate.erfc),
    )
}
"""The transcendental functions of ``double`` arguments, from the C library (``math``, lane by lane; where it raises,
at a pole, off the domain or on overflow, NumPy's IEEE result): NumPy's own float64 loops (SIMD ones
on CPUs with AVX-512) are up to 0.63 ulp off where the C library rounds correctly (OpenCL C 1.2 allows 3 ulp for
``exp``), so a double ``exp`` differed from Oclgrind's in about 4% of lanes (Rodinia's particlefilter) and from
one host CPU to another. A ``float`` argument keeps NumPy's: its float64 value is rounded to float32 once."""
_LIBM_CBRT = _DOUBLE_UNARY["cbrt"]
# but cbrt: glibc's is up to 3 ulp from the correctly rounded root (47% of random doubles are off it), past Table
# 7.2's 2 ulp; refined by one Newton step (accurate.cbrt) it is the correctly rounded root on all of 14,000
# (PoCL 3.1 rounds it correctly; Oclgrind 21.10 keeps glibc's)
_DOUBLE_UNARY["cbrt"] = lambda x: accurate.cbrt(x, _LIBM_CBRT(x))


def _fmax(x: Array, y: Array) -> Array:
    """``x > y ? x : y``, the other argument where one is a NaN: equal zeros give ``y`` (``fmax(0.0f, -0.0f)`` is
    -0.0 on PoCL 3.1 and Oclgrind 21.10, x86's ``maxss``; NumPy's ``fmax`` gave +0.0)."""
    return np.where((x > y) | np.isnan(y), x, y)


def _fmin(x: Array, y: Array) -> Array:
    """``x < y ? x : y``, the other argument where one is a NaN (``_fmax``)."""
    return np.where((x < y) | np.isnan(y), x, y)


def _maxmag(x: Array, y: Array) -> Array:
    """6.12.2: ``fmax(x, y)`` at equal magnitudes, the devices' ``_fmax`` (``maxmag(0.0f, -0.0f)`` is -0.0)."""
    ax, ay = np.abs(x), np.abs(y)
    return np.where(ax > ay, x, np.where(ay > ax, y, _fmax(x, y)))


def _minmag(x: Array, y: Array) -> Array:
    """``_maxmag``'s rule: ``fmin(x, y)`` at equal magnitudes (``minmag(0.0f, -0.0f)`` is -0.0)."""
    ax, ay = np.abs(x), np.abs(y)
    return np.where(ax < ay, x, np.where(ay < ax, y, _fmin(x, y)))


def _pyfunc2(fn: Callable[[float, float], float], ieee: Callable[[Array, Array], Array]) -> Callable[..., Array]:
    """``fn`` (a ``math`` function of two arguments) lane by lane on float64; NumPy's IEEE result ``ieee`` where it
    raises (a pole, off the domain, past overflow)."""

    def safe(x: float, y: float) -> float:
        try:
            return fn(x, y)
        except (ValueError, OverflowError, ZeroDivisionError):
            return float(ieee(np.asarray(x, np.float64), np.asarray(y, np.float64)))

    vectorized = np.frompyfunc(safe, 2, 1)
    return lambda x, y: np.asarray(vectorized(x, y), dtype=np.float64)


_DOUBLE_BINARY: dict[str, Callable[[Array, Array], Array]] = {
    "pow": _pyfunc2(math.pow, np.power),
    "atan2": _pyfunc2(math.atan2, np.arctan2),
}
"""``pow`` and ``atan2`` of ``double`` arguments from the C library, as the unary ones (``_DOUBLE_UNARY``): NumPy's
float64 loops (its AVX-512 ones here) differed from it in 5% and 6% of lanes of random arguments; ``atan2pi`` and
``pown`` are built on them. (NumPy's ``hypot`` is the C library's already; Python's ``math.hypot`` is its own and
differed in 0.6% of lanes.)"""


_BINARY_FLOAT: dict[str, Callable[[Array, Array], Array]] = {
    "pow": np.power,
    "powr": accurate.powr,
    "fmin": _fmin,
    "fmax": _fmax,
    "fmod": np.fmod,
    "divide": np.divide,
    "atan2": np.arctan2,
    "atan2pi": lambda y, x: np.arctan2(y, x) / np.pi,
    "copysign": np.copysign,
    "fdim": lambda x, y: np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x > y, x - y, 0.0)),
    "hypot": np.hypot,
    "maxmag": _maxmag,
    "minmag": _minmag,
    "remainder": lambda x, y: accurate.remquo(x, y, 0)[0],
}
"""Binary float functions evaluated in float64 (``nextafter`` works on the argument type itself)."""

_OWN_NANS = frozenset({"fabs", "copysign", "powr"})
"""Functions whose NaN is not their NaN argument's: ``fabs`` clears its sign, ``copysign`` gives its first
argument the second's sign, ``powr`` gives a NaN of its own (Oclgrind 21.10: +NaN for ``powr(-NaN, y)``)."""


def _nan_kept(r: Array, *args: Array) -> Array:
    """``r`` with each NaN lane that had a NaN argument given that argument's NaN (the first such), as the C library
    and both devices propagate it (``acos(-NaN)`` is -NaN): NumPy's ``arccos`` and others return a NaN of their
    own (``acos(NaN)`` was -NaN, the x86 default NaN; ``cospi``, ``logb``, ``fdim``, ``atan2`` of -NaN were +NaN).
    A lane whose result is a number stays (``hypot(NaN, inf)`` is inf)."""
    nan = np.isnan(r)
    if not nan.any():
        return r
    for a in reversed(args):  # (the first argument's NaN wins: set last)
        r = np.where(nan & np.isnan(a), a, r)
    return r


FP_ILOGB0 = np.iinfo(np.int32).min
FP_ILOGBNAN = np.iinfo(np.int32).max
"""``ilogb(0)`` and ``ilogb(NaN)``: implementation-defined in OpenCL C 1.2; these are PoCL's (3.1) values
(INT_MIN and INT_MAX, as glibc's); ``ilogb(+-inf)`` is INT_MAX."""

SPECIAL = frozenset(
    {"sqrt", "rsqrt", "exp", "exp2", "log", "log2", "sin", "cos", "tan", "tanh", "pow", "pown", "powr", "recip"}
    | {"divide", "length", "normalize"}
    | {"acos", "asin", "atan", "acosh", "asinh", "atanh", "acospi", "asinpi", "atanpi", "cbrt", "cosh", "sinh"}
    | {"cospi", "sinpi", "tanpi", "erf", "erfc", "exp10", "expm1", "log10", "log1p", "tgamma", "lgamma"}
    | {"atan2", "atan2pi", "hypot", "rootn"}
)
"""The functions counted as special-function operations (transcendentals and roots); the rest of the float
functions (rint, logb, ilogb, ldexp, copysign, fdim, maxmag, minmag, nextafter, remainder, fmod, ...) count as
float operations."""
MATH_FUNCTIONS = frozenset(
    set(_UNARY_FLOAT)
    | set(_BINARY_FLOAT)
    | {"nextafter", "ilogb", "ldexp", "rootn"}
    | {"pow", "powr", "pown", "fmin", "fmax", "fmod", "fma", "mad", "min", "max", "clamp", "select", "abs"}
    | {"dot", "length", "normalize", "cross", "rotate", "popcount", "clz", "divide"}
)


def _float_type(t: CType) -> CType:
    if t.kind == "float":
        return t
    return FLOAT.vector(t.width)


def _as(v: Value, t: CType) -> Array:
    if v.t == t:
        return v.a
    return convert(v.a, v.t, t)


def _round(x: Array, t: CType) -> Array:
    # (overflow to infinity, NaN to an integer: quiet under the caller's ``np.errstate``, a launch's or ``call_math``'s)
    return np.asarray(x).astype(t.dtype)


def _f64(v: Value, t: CType) -> Array:
    return np.asarray(_as(v, t), dtype=np.float64)


def _common(args: list[Value]) -> CType:
    t = args[0].t
    for a in args[1:]:
        t = common_type(t, a.t)
    return t


def _overload(args: list[Value]) -> CType:
    """The type of an integer built-in's ``gentype`` parameters: the arguments' own when they share one (OpenCL C
    1.2 6.12.3: ``char min(char, char)``, no integer promotion), else their usual arithmetic conversion."""
    t = args[0].t
    return t if all(a.t == t for a in args[1:]) else _common(args)


def _bits(t: CType) -> int:
    return int(t.dtype.itemsize) * 8


def _unsigned(t: CType) -> CType:
    name = {"char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}.get(t.name, t.name)
    s = SCALARS[name]
    return s.vector(t.width)


def call_math(name: str, args: list[Value]) -> Value:
    """Evaluate the math/integer/geometric built-in ``name`` (without ``native_``/``half_`` prefixes)."""
    with np.errstate(all="ignore"):
        return evaluate(name, args)


def evaluate(name: str, args: list[Value]) -> Value:
    """``call_math`` without an ``np.errstate`` of its own (two microseconds a call): for the executor, whose launch
    runs under ``errstate(all="ignore")``."""
    if name in _UNARY_FLOAT:
        t = _float_type(args[0].t)
        fn = _DOUBLE_UNARY.get(name) if t.name == "double" else None
        x = _f64(args[0], t)
        r = (fn or _UNARY_FLOAT[name])(x)
        return Value(t, _round(r if name in _OWN_NANS else _nan_kept(r, x), t))
    if name in _BINARY_FLOAT:
        t = _float_type(_common(args))
        x, y = _f64(args[0], t), _f64(args[1], t)
        if t.name == "double" and name == "atan2pi":
            return Value(t, _round(_nan_kept(_DOUBLE_BINARY["atan2"](x, y) / np.pi, x, y), t))
        binary = _DOUBLE_BINARY.get(name) if t.name == "double" else None
        r = (binary or _BINARY_FLOAT[name])(x, y)
        return Value(t, _round(r if name in _OWN_NANS else _nan_kept(r, x, y), t))
    if name == "nextafter":
        t = _float_type(_common(args))
        return Value(t, np.nextafter(_as(args[0], t), _as(args[1], t)).astype(t.dtype))
    if name == "ilogb":
        t = _float_type(args[0].t)
        x = _f64(args[0], t)
        it = INT.vector(t.width)
        e = np.frexp(x)[1].astype(np.int64) - 1
        r = np.where(np.isnan(x), FP_ILOGBNAN, np.where(np.isinf(x), FP_ILOGBNAN, np.where(x == 0, FP_ILOGB0, e)))
        return Value(it, r.astype(np.int32))
    if name in ("ldexp", "rootn", "pown"):  # (gentype x, intn k), either one splatted (the checker's overload)
        width = max(a.t.width for a in args)
        t = _float_type(args[0].t).scalar
        t, it = t.vector(width), INT.vector(width)
        x, k = _f64(args[0], t), np.asarray(_as(args[1], it), dtype=np.int64)
        if name == "ldexp":  # (an exponent past +-4000 overflows or underflows any double, denormals too)
            return Value(t, _round(np.ldexp(x, np.clip(k, -4000, 4000).astype(np.int32)), t))
        if name == "pown":
            power = _DOUBLE_BINARY["pow"] if t.name == "double" else np.power
            return Value(t, _round(power(x, k.astype(np.float64)), t))
        return Value(t, _round(accurate.rootn(x, k), t))
    # mad may be computed any way (6.12.2): as fma here, rounded once, in every type, as Oclgrind 21.10 computes it
    # (PoCL 3.1 rounds the product first, in every type)
    if name in ("fma", "mad"):
        t = _float_type(_common(args))
        a, b, c = (_f64(v, t) for v in args)
        return Value(t, _round(accurate.fma(a, b, c, single=t.name != "double"), t))
    if name in ("min", "max"):
        t = _overload(args)
        x, y = _as(args[0], t), _as(args[1], t)
        if t.kind == "float":  # 6.12.4: "y if x < y, otherwise x", undefined for a NaN; both devices compute x86's
            # minss/maxss, ``x < y ? x : y`` (``max(NaN, 1.5f)`` is 1.5, ``max(1.5f, NaN)`` NaN; NumPy's NaN always)
            r = np.where(x < y, x, y) if name == "min" else np.where(x > y, x, y)
        else:
            r = np.minimum(x, y) if name == "min" else np.maximum(x, y)
        return Value(t, np.asarray(r, dtype=t.dtype))
    if name == "clamp":  # fmin(fmax(x, lo), hi) for floats (6.12.4): a NaN x gives lo, a NaN bound the other; with
        # the devices' fmax and fmin at equal zeros (``clamp(0.0f, -0.0f, 1.0f)`` is -0.0 on PoCL 3.1 and Oclgrind)
        t = args[0].t if args[0].t.width > 1 else _overload(args)
        x, lo, hi = (_as(a, t) for a in args)
        low, high = (_fmax, _fmin) if t.kind == "float" else (np.maximum, np.minimum)
        return Value(t, np.asarray(high(low(x, lo), hi), dtype=t.dtype))
    if name == "select":
        t = _overload(args[:2])
        a, b = _as(args[0], t), _as(args[1], t)
        c = np.asarray(args[2].a)
        if args[2].t.width > 1:
            cond = (c.astype(args[2].t.dtype) < 0) if args[2].t.kind == "int" else (c >> (_bits(args[2].t) - 1)) != 0
        else:
            cond = c != 0
        return Value(t, np.asarray(np.where(cond, b, a), dtype=t.dtype))
    if name == "abs":
        t = args[0].t
        if t.kind == "float":
            return Value(t, np.abs(args[0].a))
        u = _unsigned(t)
        a = np.asarray(args[0].a)
        if t.kind == "int":
            return Value(u, np.where(a < 0, -a.astype(np.int64), a).astype(u.dtype))
        return Value(u, a.astype(u.dtype))
    if name in ("dot", "length", "normalize"):
        t = _float_type(args[0].t)
        x = _f64(args[0], t)
        if name == "dot":
            y = _f64(args[1], t)
            prod = x * y
        else:
            prod = x * x
        scalar = t.scalar
        if name == "dot":
            return Value(scalar, _round(prod.sum(axis=-1) if t.width > 1 else prod, scalar))
        n = accurate.norm(x, t.width > 1, scalar.name == "double")
        if name == "length":
            return Value(scalar, _round(n, scalar))
        return Value(t, _round(x / (n[..., None] if t.width > 1 else n), t))
    if name == "cross":
        t = _float_type(_common(args))
        x, y = _f64(args[0], t), _f64(args[1], t)
        r = np.zeros(np.broadcast_shapes(x.shape, y.shape), dtype=np.float64)
        r[..., 0] = x[..., 1] * y[..., 2] - x[..., 2] * y[..., 1]
        r[..., 1] = x[..., 2] * y[..., 0] - x[..., 0] * y[..., 2]
        r[..., 2] = x[..., 0] * y[..., 1] - x[..., 1] * y[..., 0]
        return Value(t, _round(r, t))
    if name == "rotate":
        t = args[0].t if args[0].t == args[1].t else _common(args)  # gentype: a uchar rotates in 8 bits
        u = _unsigned(t)
        bits = _bits(t)
        v = _as(args[0], t).astype(u.dtype)
        s = (_as(args[1], t).astype(u.dtype)) & u.dtype.type(bits - 1)
        # (a shift of 0 both ways at s == 0: ``v | v``)
        right = v >> ((u.dtype.type(bits) - s) & u.dtype.type(bits - 1))
        return Value(t, np.asarray((v << s) | right).astype(u.dtype).view(t.dtype))
    if name == "popcount":
        t = args[0].t
        v = np.asarray(args[0].a).astype(_unsigned(t).dtype)
        return Value(t, np.bitwise_count(v).astype(t.dtype))
    if name == "clz":
        t = args[0].t
        bits = _bits(t)
        v = np.array(args[0].a, dtype=_unsigned(t).dtype)  # (a copy: or-ed into in place)
        shift = 1
        while shift < bits:  # every bit below the highest set one set too: then the set bits are its length
            v |= v >> v.dtype.type(shift)
            shift *= 2
        return Value(t, (bits - np.bitwise_count(v).astype(np.int64)).astype(t.dtype))
    raise NotImplementedError(f"built-in '{name}' is not implemented")


_CONVERT_RE = re.compile(r"convert_([a-z]+?)(2|3|4|8|16)?(_sat)?(_rte|_rtz|_rtp|_rtn)?")


def convert_to(name: str, arg: Value) -> Value:
    """``convert_<type>[_sat][_rounding](arg)``."""
    m = _CONVERT_RE.fullmatch(name)
    if m is None:
        raise NotImplementedError(name)
    base = lookup(m.group(1))
    target = base.vector(int(m.group(2))) if m.group(2) else base
    a = np.asarray(arg.a)
    src = arg.t
    if src.width == 1 and target.width > 1:
        a = np.repeat(a[..., None], target.width, axis=-1)
        src = src.vector(target.width)
    sat, mode = m.group(3), m.group(4)
    if target.kind in ("int", "uint") and sat:
        return Value(target, saturated(a, src, target, mode or "_rtz"))
    if target.kind in ("int", "uint") and src.kind == "float":
        with np.errstate(invalid="ignore"):
            x = {"_rte": np.rint, "_rtz": np.trunc, "_rtp": np.ceil, "_rtn": np.floor}[mode or "_rtz"](a)
        return Value(target, convert(x, src, target))
    if target.kind == "float" and mode:
        return Value(target, rounded(a, src, target, mode))
    return Value(target, convert(a, src, target))


def as_type(name: str, arg: Value) -> Value:
    """``as_<type>(arg)``: the same bits as another type of the same size."""
    target = lookup(name[3:])
    a = np.asarray(arg.a, dtype=arg.t.dtype, order="C")  # (``ascontiguousarray`` makes a lane-invariant 0-d one 1-d)
    lead = a.shape[:-1] if arg.t.width > 1 else a.shape
    if arg.t.width == 3:  # a 3-vector takes a 4-vector's bytes (6.1.5): the 4th component is undefined, 0 here
        a = np.concatenate([a, np.zeros((*lead, 1), a.dtype)], axis=-1)
    raw = a.reshape((*lead, -1)).view(np.uint8).reshape((*lead, -1))
    out = np.ascontiguousarray(raw).view(target.dtype)
    if target.width == 1:
        out = out.reshape(lead)
    elif target.width == 3:  # (from a 4-vector's bytes: the first three components)
        out = out[..., :3]
    return Value(target, out)
