"""OpenCL C 1.2 section 6.12 built-ins beyond ``builtins.py``, on lane values: the math functions with pointer
arguments and ``nan`` (Table 6.8), the integer functions (Table 6.10), the common (6.11), geometric (6.13) and
relational (6.14) functions, half stores with rounding modes (6.12.7) and ``shuffle``/``shuffle2`` (6.12.12).

Integers are exact on the type's width: types up to 32 bits compute in int64 (uint64 for uint products), then wrap
or saturate as C does; 64-bit ones compute in uint64 with their carries (``long_ints.py``). Floats compute in
float64 and round once to the argument type.
The executor stores what a pointer-argument function returns through its pointer (``POINTER_OUT``), so those
writes are checked and counted as any store.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels import accurate
from wia_sim.kernels.builtins import call_math
from wia_sim.kernels.ctype import INT, SCALARS, CType, common_type, comparison_type, convert
from wia_sim.kernels.long_ints import LONG_FUNCTIONS, long_call
from wia_sim.kernels.overloads import resolve
from wia_sim.kernels.spaces import Value
from wia_sim.kernels.table_types import upsample_overload

__all__ = [
    "FUNCTIONS",
    "POINTER_OUT",
    "REMQUO_BITS",
    "call_pointer_out",
    "call_table",
    "op_kind",
    "picked",
    "round_to_half",
]

Array = NDArray[Any]

REMQUO_BITS = 7
"""``remquo`` stores the sign of x/y and the low bits of the integral quotient's magnitude; OpenCL asks for at
least 3. The simulator keeps 7, as LLVM's libclc (which PoCL's CPU library follows) does."""

POINTER_OUT: dict[str, int] = {"fract": 1, "frexp": 1, "modf": 1, "sincos": 1, "lgamma_r": 1, "remquo": 2}
"""Math functions that store a second result through a pointer argument, with that argument's index."""

_UNSIGNED = {"char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}
_UPSAMPLE = {"char": "short", "uchar": "ushort", "short": "int", "ushort": "uint", "int": "long", "uint": "ulong"}


def _same(t: CType, name: str) -> CType:
    s = SCALARS[name]
    return s.vector(t.width)


def _gentype(args: list[Value]) -> CType:
    """The built-in's gentype: the vector argument's type if there is one, else the arguments' one type (the
    checker has made sure they agree); mixed scalars convert as C's usual arithmetic conversions."""
    for v in args:
        if v.t.width > 1:
            return v.t
    t = args[0].t
    for v in args[1:]:
        if v.t != t:
            t = common_type(t, v.t)
    return t


def _float_type(t: CType) -> CType:
    return t if t.kind == "float" else _same(t, "float")


def _arr(v: Value, t: CType) -> Array:
    a = np.asarray(v.a)
    if v.t != t:
        a = np.asarray(convert(a, v.t, t))
    return a


def _f64(v: Value, t: CType) -> Array:
    return np.asarray(_arr(v, t), dtype=np.float64)


def _round(x: Array, t: CType) -> Array:
    # (overflow to infinity, NaN to an integer: quiet under the caller's ``np.errstate``, a launch's or
    # ``call_table``'s)
    return np.asarray(x).astype(t.dtype)


def _bits(t: CType) -> int:
    return int(t.dtype.itemsize) * 8


def _exact(a: Array, t: CType, product: bool) -> Array:
    """Lanes of a type of up to 32 bits as values the operation cannot overflow: int64 (uint64 for products of
    uint, which are below 2**64 even with an addend)."""
    if _bits(t) == 32 and product and t.kind == "uint":
        return np.asarray(a, dtype=np.uint64)
    return np.asarray(a, dtype=np.int64)


def _wrap(x: Array, t: CType) -> Array:
    """Exact integers (int64 or uint64 lanes) to ``t`` of up to 32 bits, modulo 2**bits (C's conversion)."""
    u = np.asarray(np.asarray(x) % (1 << _bits(t))).astype(np.uint64)
    return u.astype(_same(t, _UNSIGNED.get(t.name, t.name)).dtype).view(t.dtype)


def _saturate(x: Array, t: CType) -> Array:
    info = np.iinfo(t.dtype)
    return np.asarray(np.clip(x, int(info.min), int(info.max))).astype(t.dtype)


# -- Table 6.10: integer functions


def _int_call(name: str, args: list[Value]) -> Value:
    if name in ("mul24", "mad24"):  # only int and uint overloads: the one Clang picks (the checker saw one exists)
        chosen = resolve([(v.t.name, v.t.width) for v in args], ("int", "uint"), ["g" * len(args)])
        assert not isinstance(chosen, str), chosen
        t = SCALARS[chosen[0]] if chosen[1] == 1 else SCALARS[chosen[0]].vector(chosen[1])
    else:
        t = _gentype(args)
    raw = [_arr(v, t) for v in args]
    bits = _bits(t)
    if bits == 64 and name in LONG_FUNCTIONS:
        out = _same(t, _UNSIGNED[t.name]) if name == "abs_diff" and t.kind == "int" else t
        return Value(out, long_call(name, raw, t.kind == "int").view(out.dtype))
    x = [_exact(a, t, name in ("mul_hi", "mad_hi", "mad_sat")) for a in raw]
    if name == "abs_diff":
        u = _same(t, _UNSIGNED.get(t.name, t.name))
        return Value(u, _wrap(abs(x[0] - x[1]), u))
    if name in ("add_sat", "sub_sat"):
        r = x[0] + x[1] if name == "add_sat" else x[0] - x[1]
        return Value(t, _saturate(r, t))
    if name == "hadd":
        return Value(t, _wrap((x[0] + x[1]) >> 1, t))
    if name == "rhadd":
        return Value(t, _wrap((x[0] + x[1] + 1) >> 1, t))
    if name in ("mul_hi", "mad_hi"):
        hi = (x[0] * x[1]) >> bits
        return Value(t, _wrap(hi + x[2] if name == "mad_hi" else hi, t))
    if name == "mad_sat":
        return Value(t, _saturate(x[0] * x[1] + x[2], t))
    if name in ("mul24", "mad24"):  # defined for 24-bit operands only; the simulator multiplies all 32 bits
        r = x[0] * x[1] + (x[2] if name == "mad24" else 0)
        return Value(t, _wrap(r, t))
    if name == "upsample":  # the overload Clang picks (``upsample(1, 2)`` converts the 2 to a uint)
        chosen = upsample_overload(*((v.t.name, v.t.width) for v in args))
        assert not isinstance(chosen, str), chosen
        element, width = chosen
        hi_t = SCALARS[element] if width == 1 else SCALARS[element].vector(width)
        lo_t = _same(hi_t, _UNSIGNED.get(element, element))
        args = [Value(t, np.asarray(convert(np.asarray(v.a), v.t, t))) for v, t in zip(args, (hi_t, lo_t), strict=True)]
        wide = _same(hi_t, _UPSAMPLE[hi_t.name])
        lo_bits = _bits(lo_t)
        # the high half's bits (a negative one's two's complement) shifted up over the low half's, in uint64
        hi = np.asarray(args[0].a, dtype=np.int64).view(np.uint64)
        joined = np.asarray((hi << np.uint64(lo_bits)) | np.asarray(args[1].a, dtype=np.uint64))
        unsigned = _same(wide, _UNSIGNED.get(wide.name, wide.name))
        return Value(wide, joined.astype(unsigned.dtype).view(wide.dtype))
    raise NotImplementedError(name)


# -- Table 6.11: common functions; Table 6.13: geometric functions


def _sign(x: Array) -> Array:
    return np.where(np.isnan(x), 0.0, np.where(x > 0, 1.0, np.where(x < 0, -1.0, x)))


def _common_call(name: str, args: list[Value]) -> Value:
    t = _float_type(_gentype(args))
    x = [_f64(v, _same(t, t.name) if v.t.width == 1 else t) for v in args]
    if name == "degrees":
        r = x[0] * (180.0 / math.pi)
    elif name == "radians":
        r = x[0] * (math.pi / 180.0)
    elif name == "sign":
        r = _sign(x[0])
    elif name == "mix":
        r = x[0] + (x[1] - x[0]) * x[2]
    elif name == "step":
        r = np.where(x[1] < x[0], 0.0, 1.0)
    elif name == "smoothstep":  # t = clamp((x - edge0) / (edge1 - edge0), 0, 1), clamp as fmin(fmax(...))
        s = np.fmin(np.fmax((x[2] - x[0]) / (x[1] - x[0]), 0.0), 1.0)
        r = s * s * (3.0 - 2.0 * s)
    else:
        raise NotImplementedError(name)
    return Value(t, _round(r, t))


def _geometric_call(name: str, args: list[Value]) -> Value:
    t = _float_type(_gentype(args))
    if name.startswith("fast_") and t.scalar.name != "float":  # float alone (6.12.5): a double converts to it first
        t = _same(t, "float")
    x = _f64(args[0], t)
    if name in ("distance", "fast_distance"):
        x = x - _f64(args[1], t)
    length = accurate.norm(x, t.width > 1, t.scalar.name == "double")  # (no square overflows or underflows)
    if name in ("distance", "fast_distance", "fast_length"):
        return Value(t.scalar, _round(length, t.scalar))
    # fast_normalize, with normalize's special cases (as OpenCL C 2.0 spells them out): all zeros give the vector
    # back; with an infinite element, the vector of +-1 there and 0 elsewhere is normalized
    inf = np.isinf(x)
    any_inf = inf.any(axis=-1, keepdims=True) if t.width > 1 else inf
    x, length = _in_range(x, length, t.width > 1, double=t.scalar.name == "double")
    n = length[..., None] if t.width > 1 else length
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(n == 0, x, x / n)
    replaced = np.where(inf, np.copysign(1.0, x), 0.0 * x)
    norm = np.sqrt(np.sum(replaced * replaced, axis=-1, keepdims=True)) if t.width > 1 else np.abs(replaced)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(any_inf, replaced / norm, r)
    return Value(t, _round(r, t))


def _in_range(x: Array, length: Array, vector: bool, double: bool) -> tuple[Array, Array]:
    """``x`` and its length rounded to a double (a double vector is divided by its length rounded, as devices
    divide), scaled by a power of two where that length is not a normal double: past DBL_MAX (``(double2)(1.7e308,
    1.7e308)``) or below DBL_MIN (``(double2)(5e-324, 5e-324)``, whose length rounds to 5e-324 itself), as libclc
    and the CTS's reference scale it, so that normalize gives 0.7071 in both and not 0 or 1. Scaling up is exact;
    scaling down drops only elements whose quotient underflows anyway. A float's length (in float64) always is."""
    rounded = np.asarray(length, np.float64)
    if not (double and vector):
        return x, rounded
    with np.errstate(all="ignore"):
        largest = np.max(np.abs(x), axis=-1)
        odd = np.isfinite(largest) & (largest > 0) & ~((rounded >= np.finfo(np.float64).tiny) & np.isfinite(rounded))
        if not bool(odd.any()):
            return x, rounded
        places = -np.frexp(np.where(odd, largest, 1.0))[1]  # (the largest element in [0.5, 1))
        scaled = np.ldexp(x, np.where(odd, places, 0)[..., None])
        again = np.asarray(accurate.norm(scaled, True, True), np.float64)
    return scaled, np.where(odd, again, rounded)


# -- Table 6.14: relational functions


def _truth(cond: Array, t: CType) -> Value:
    """Scalars: int 1/0; vectors: -1/0 of the signed integer type of the element's size."""
    rt = comparison_type(t)
    if t.width > 1:
        return Value(rt, np.where(cond, -1, 0).astype(rt.dtype))
    return Value(INT, np.asarray(cond).astype(np.int32))


def _relational_call(name: str, args: list[Value]) -> Value:
    t = _float_type(_gentype(args))
    x = [_arr(v, t) for v in args]
    with np.errstate(invalid="ignore"):
        if name == "isequal":
            c = x[0] == x[1]
        elif name == "isnotequal":
            c = x[0] != x[1]
        elif name == "isgreater":
            c = x[0] > x[1]
        elif name == "isgreaterequal":
            c = x[0] >= x[1]
        elif name == "isless":
            c = x[0] < x[1]
        elif name == "islessequal":
            c = x[0] <= x[1]
        elif name == "islessgreater":
            c = (x[0] < x[1]) | (x[0] > x[1])
        elif name == "isordered":
            c = ~np.isnan(x[0]) & ~np.isnan(x[1])
        elif name == "isunordered":
            c = np.isnan(x[0]) | np.isnan(x[1])
        elif name == "isfinite":
            c = np.isfinite(x[0])
        elif name == "isinf":
            c = np.isinf(x[0])
        elif name == "isnan":
            c = np.isnan(x[0])
        elif name == "isnormal":
            c = np.isfinite(x[0]) & (np.abs(x[0]) >= np.finfo(t.dtype).tiny)
        elif name == "signbit":
            c = np.signbit(x[0])
        else:
            raise NotImplementedError(name)
    return _truth(c, t)


def _msb(v: Value) -> Array:
    a = np.asarray(v.a)
    if v.t.kind == "int":
        return np.asarray(a < 0)
    return np.asarray((a >> np.asarray(_bits(v.t) - 1, dtype=a.dtype)) != 0)


def _bits_view(a: Array, t: CType) -> Array:
    return np.asarray(a, dtype=t.dtype, order="C").view(f"u{t.dtype.itemsize}")  # (a 0-d value stays one)


def _other_call(name: str, args: list[Value]) -> Value:
    if name in ("any", "all"):
        m = _msb(args[0])
        if args[0].t.width > 1:
            m = np.asarray(m.any(axis=-1) if name == "any" else m.all(axis=-1))
        return Value(INT, np.asarray(m).astype(np.int32))
    if name == "bitselect":
        t = _gentype(args)
        a, b, c = (_bits_view(_arr(v, t), t) for v in args)
        return Value(t, np.asarray((a & ~c) | (b & c)).view(t.dtype))
    raise NotImplementedError(name)


# -- Table 6.8: math functions with pointer arguments, and nan


def _lgamma_sign(x: Array) -> Array:
    """The sign of Gamma(x) that ``lgamma_r`` stores: +1 for x > 0, at the poles that are negative integers (as
    glibc and Oclgrind; PoCL 3.1 stores -1 at -1) and for NaN, copysign(1, x) at +-0, the sign by floor(x)'s
    parity between the negative integers."""
    fl = np.floor(x)
    neg = np.where(np.fmod(fl, 2.0) != 0, -1, 1)
    s = np.where(x > 0, 1, np.where(x == 0, np.where(np.signbit(x), -1, 1), np.where(fl == x, 1, neg)))
    return np.where(np.isnan(x) | np.isinf(x), 1, s)


def call_pointer_out(name: str, args: list[Value], out_t: CType) -> tuple[Value, Value]:
    """``name``'s result and the value to store through its pointer (of pointee type ``out_t``)."""
    with np.errstate(all="ignore"):
        # the overload the checker picked: the pointee's type for fract/modf/sincos, else the values' floating type
        # at the pointee's width (a scalar value splatted: ``remquo(float4, 1, &q4)``)
        t = out_t if name in ("fract", "modf", "sincos") else _float_type(_gentype(args)).scalar
        if t.width == 1 and out_t.width > 1:
            t = t.vector(out_t.width)
        x = _arr(args[0], t)
        x64 = np.asarray(x, dtype=np.float64)
        if name == "fract":
            fl = np.floor(x64)
            cap = np.nextafter(t.dtype.type(1), t.dtype.type(0))
            r = _round(x64 - fl, t)
            r = np.where(r > cap, cap, r)
            r = np.where(x64 == 0, x, np.where(np.isinf(x64), np.copysign(0.0, x64), r))
            return Value(t, _round(r, t)), Value(out_t, _round(fl, out_t))
        if name == "modf":
            frac, whole = np.modf(x)
            return Value(t, _round(frac, t)), Value(out_t, _round(whole, out_t))
        if name == "frexp":
            m, e = np.frexp(x64)
            e = np.where(np.isfinite(x64), e, 0)  # frexp(+-inf) and frexp(NaN) store 0; NumPy leaves junk
            return Value(t, _round(m, t)), Value(out_t, np.asarray(e).astype(out_t.dtype))
        if name == "sincos":
            return Value(t, _round(np.sin(x64), t)), Value(out_t, _round(np.cos(x64), out_t))
        if name == "lgamma_r":
            return call_math("lgamma", [Value(t, x)]), Value(out_t, _lgamma_sign(x64).astype(out_t.dtype))
        if name == "remquo":
            y64 = np.asarray(_arr(args[1], t), dtype=np.float64)
            r, q = accurate.remquo(x64, y64, REMQUO_BITS)
            return Value(t, _round(r, t)), Value(out_t, q.astype(out_t.dtype))
    raise NotImplementedError(name)


def _nan(args: list[Value]) -> Value:
    v = args[0]
    if v.t.dtype.itemsize == 8:
        t = _same(v.t, "double")
        bits = (np.asarray(v.a).astype(np.uint64) & np.uint64(0x7FFFFFFFFFFFF)) | np.uint64(0x7FF8000000000000)
        return Value(t, bits.view(np.float64))
    t = _same(v.t, "float")
    b32 = (np.asarray(v.a).astype(np.uint32) & np.uint32(0x3FFFFF)) | np.uint32(0x7FC00000)
    return Value(t, b32.view(np.float32))


# -- 6.12.7: half stores with rounding modes


def round_to_half(x: Array, rounding: str) -> Array:
    """Float (or double) lanes to half with ``_rte`` (the default), ``_rtz``, ``_rtp`` or ``_rtn`` rounding:
    NumPy's conversion rounds to nearest even; the directed modes step one half-ulp-grid value back when the
    nearest one lies on the wrong side."""
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.asarray(x)
        h = x.astype(np.float16)
        if rounding in ("", "_rte"):
            return h
        back = h.astype(x.dtype)
        if rounding == "_rtz":
            wrong, toward = np.abs(back) > np.abs(x), np.float16(0)
        elif rounding == "_rtp":
            wrong, toward = back < x, np.float16(np.inf)
        else:
            wrong, toward = back > x, np.float16(-np.inf)
        return np.where(wrong, np.nextafter(h, np.full_like(h, toward)), h).astype(np.float16)


# -- 6.12.12: shuffle and shuffle2


def picked(xs: list[Value], index: Array) -> Value:
    """The components of ``xs`` laid end to end, picked by ``index`` (each in range; a row of the result's
    components per lane, or one row for all): what ``shuffle``, ``shuffle2`` and Clang's
    ``__builtin_shufflevector`` compute once their indices are found."""
    src = np.concatenate(np.broadcast_arrays(*(np.asarray(v.a) for v in xs)), axis=-1)
    width = index.shape[-1]
    lead = np.broadcast_shapes(src.shape[:-1], index.shape[:-1])
    src = np.broadcast_to(src, (*lead, src.shape[-1]))
    out = np.take_along_axis(src, np.broadcast_to(index, (*lead, width)), axis=-1)
    return Value(xs[0].t.scalar.vector(width), out)


FUNCTIONS: dict[str, Callable[[str, list[Value]], Value]] = {
    **dict.fromkeys(
        "abs_diff add_sat sub_sat hadd rhadd mul_hi mad_hi mad_sat mul24 mad24 upsample".split(),  # noqa: SIM905
        _int_call,
    ),
    **dict.fromkeys("degrees radians sign mix step smoothstep".split(), _common_call),  # noqa: SIM905
    **dict.fromkeys("distance fast_distance fast_length fast_normalize normalize".split(), _geometric_call),  # noqa: SIM905
    **dict.fromkeys(
        """isequal isnotequal isgreater isgreaterequal isless islessequal islessgreater isordered isunordered
        isfinite isinf isnan isnormal signbit""".split(),  # noqa: SIM905
        _relational_call,
    ),
    **dict.fromkeys(("any", "all", "bitselect"), _other_call),
    "nan": lambda name, args: _nan(args),
}
"""The value-only built-ins of this module, by name."""

_SPECIAL = frozenset({"distance", "fast_distance", "fast_length", "fast_normalize", "normalize", "sincos", "lgamma_r"})


def call_table(name: str, args: list[Value]) -> Value:
    """Evaluate one of ``FUNCTIONS``."""
    with np.errstate(all="ignore"):
        return FUNCTIONS[name](name, args)


def op_kind(name: str, args: list[Value]) -> str:
    """The counter a call adds to: special-function operations for roots and transcendentals, else float or
    integer operations by the arguments' type."""
    if name in _SPECIAL:
        return "special_ops"
    t = _gentype(args)
    if t.kind == "float" and name not in ("bitselect", "nan"):
        return "float64_ops" if t.name == "double" else "float32_ops"
    return "int_ops"
