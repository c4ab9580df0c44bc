"""OpenCL C 1.2 conversions (6.2.3) that NumPy's casts do not give: the rounding modes ``_rtz``/``_rtp``/``_rtn`` of
a conversion to a floating-point type (NumPy rounds to nearest even), saturation exact at the 64-bit limits (a clip
in float64 turns ``LONG_MAX`` into 2**63, which overflows), and floating-point literals rounded once to ``float``
(C99 6.4.4.2: a hexadecimal constant exactly; Clang rounds decimal ones exactly too), not through a double.

A directed rounding starts from the nearest value and moves one step (``nextafter``) where it lies on the wrong side
of the exact one: the nearest value is within half a step, so one is enough, overflow to infinity included (toward
zero, the largest finite value). The exact comparison is made in float64 for sources that fit it, in 64-bit
integers for ``long`` and ``ulong``."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels.ctype import CType, convert

__all__ = ["float32_literal", "floating_literal", "half_literal", "rounded", "saturated"]

Array = NDArray[Any]


def rounded(a: Array, src: CType, target: CType, mode: str) -> Array:
    """``a`` of ``src`` (an integer or floating type) converted to the floating ``target`` with ``mode`` (``_rte``,
    ``_rtz``, ``_rtp``, ``_rtn``)."""
    nearest = np.asarray(convert(np.asarray(a), src, target))
    if mode == "_rte":
        return nearest
    above, below = _sides(nearest, np.asarray(a), src)
    if mode == "_rtp":
        move, toward = below, np.inf
    elif mode == "_rtn":
        move, toward = above, -np.inf
    else:  # _rtz: where the nearest is farther from zero than the exact value
        exact_negative = np.asarray(a) < 0
        move, toward = np.where(exact_negative, below, above), 0.0
    stepped = np.nextafter(nearest, np.asarray(toward, nearest.dtype))
    return np.where(move, stepped, nearest).astype(target.dtype)


def _sides(nearest: Array, exact: Array, src: CType) -> tuple[Array, Array]:
    """Where the rounded value lies above, and below, the exact one (NaN: neither)."""
    y = nearest.astype(np.float64)
    if src.kind == "float" or src.dtype.itemsize < 8:  # the exact value is a float64
        x = exact.astype(np.float64)
        return y > x, y < x
    # a long or ulong: the rounded value is an integer (or 2**63, 2**64: past every value of the type)
    limit = 2.0**63 if src.kind == "int" else 2.0**64
    past = y >= limit
    yi = np.where(past, 0, y).astype(src.dtype)
    return past | (~past & (yi > exact)), ~past & (yi < exact)


def saturated(a: Array, src: CType, target: CType, mode: str = "_rtz") -> Array:
    """``a`` of ``src`` converted to the integer ``target`` with saturation (OpenCL C 1.2 6.2.3.3: out-of-range
    values clamp to the nearest representable one, NaN gives 0); a floating source rounded with ``mode``."""
    info = np.iinfo(target.dtype)
    a = np.asarray(a)
    if src.kind == "float":
        with np.errstate(invalid="ignore"):
            x = {"_rte": np.rint, "_rtz": np.trunc, "_rtp": np.ceil, "_rtn": np.floor}[mode](a.astype(np.float64))
            high = x >= float(info.max + 1)  # a power of two: exact in float64, unlike info.max itself
            low = x < float(info.min)
            inside = ~(high | low | np.isnan(x))
            out = np.where(inside, x, 0).astype(target.dtype)
        out = np.where(high, target.dtype.type(info.max), out)
        return np.where(low, target.dtype.type(info.min), out).astype(target.dtype)
    if src.name == "ulong":  # every value is >= 0: only the upper limit, compared as ulongs (not as float64s)
        return np.minimum(a.astype(np.uint64), np.uint64(info.max)).astype(target.dtype)
    wide = a.astype(np.int64)
    if target.name == "ulong":
        return np.where(wide < 0, 0, wide).astype(np.uint64)
    return np.clip(wide, info.min, info.max).astype(target.dtype)


def floating_literal(text: str, t: CType) -> np.floating[Any]:
    """A floating-point constant of type ``t``, rounded once from its exact value (a ``float`` literal not through
    a double: ``float32_literal``); an unsuffixed one made a ``float`` (no doubles on the device, or
    ``-cl-single-precision-constant``) is the double constant rounded again, as Clang casts it."""
    digits = text.rstrip().rstrip("fFlLhH")
    if t.name == "float" and digits != text.rstrip():
        return float32_literal(digits)
    if t.name == "half":
        return half_literal(digits)
    exact = float.fromhex(digits) if digits.lower().startswith("0x") else float(digits)
    return np.float32(exact) if t.name == "float" else np.float64(exact)


def float32_literal(text: str) -> np.float32:
    """A floating-point constant's text (decimal or hexadecimal, its suffix stripped) as the ``float`` nearest its
    exact value, ties to even."""
    return np.float32(_nearest(_exact(text), np.float32))


def half_literal(text: str) -> np.float16:
    """A half constant's text (``1.5h``'s ``1.5``) as the ``half`` nearest its exact value, ties to even (Clang
    rounds the decimal to half once; through a float or a double it could round twice)."""
    return np.float16(_nearest(_exact(text), np.float16))


def _exact(text: str) -> Fraction:
    t = text.strip().lower()
    if not t.startswith(("0x", "-0x", "+0x")):
        return Fraction(t)
    sign = -1 if t.startswith("-") else 1
    body = t.lstrip("+-")[2:]
    mantissa, _, exponent = body.partition("p")
    whole, _, frac = mantissa.partition(".")
    digits = int(whole + frac or "0", 16)
    return sign * Fraction(digits, 16 ** len(frac)) * Fraction(2) ** int(exponent or "0")


def _nearest(q: Fraction, dtype: type[np.floating[Any]]) -> float:
    """``q`` rounded to the nearest value of the binary floating type ``dtype`` (its significand's bits, its
    denormals, overflow to infinity), ties to even."""
    if q == 0:
        return 0.0
    info = np.finfo(dtype)
    sign = -1.0 if q < 0 else 1.0
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()  # 2**e <= q < 2**(e + 1), or one less
    if Fraction(2) ** e > q:
        e -= 1
    step = Fraction(2) ** (max(e, int(info.minexp)) - int(info.nmant))  # the spacing around q (denormals: the least)
    value = round(q / step) * step  # Fraction's round: half to even
    return sign * (float(value) if value <= Fraction(info.max.item()) else float("inf"))
