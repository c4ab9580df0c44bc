"""Undefined bits of scalar integers through the operators that move bits without mixing them.

``undef.py`` follows an undefined value per lane (a vector: per component), and a value read from memory byte by
byte (``Uninit.exact``). Oclgrind's shadow is a bit per bit, as Valgrind's memcheck: a byte taken out of a word
whose other bytes nobody wrote, ``(uchar)(w >> 8)``, is defined. Here a scalar integer computed from such a
value by shifts by defined counts, ``&``, ``|`` and ``^`` (memcheck's rules: a bit ANDed with a defined 0, or ORed
with a defined 1, is defined), ``+``, ``-`` and ``*`` (memcheck's too: a carry moves upwards only, so the bits
below an operand's lowest undefined one are defined; ``(uchar)(w + 1)`` of a word whose low byte alone was
written is, as on Oclgrind, where LLVM narrows the addition to the byte), ``~``, unary ``-`` and conversions
between integer types (truncated, zero- or sign-extended) carries its undefined bits (``Uninit.bits``); a lane is
undefined where one of its bits is. Any other operator takes the whole value as undefined again
(``Uninit.computed``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels.ctype import CType
from wia_sim.kernels.spaces import Uninit, Value, bit_bytes, undefined_lanes

__all__ = ["BIT_EXACT", "bits_binop", "bits_converted", "bits_unary", "undefined_bits"]

Array = NDArray[Any]

BIT_EXACT = frozenset({"<<", ">>", "&", "|", "^", "+", "-", "*"})
"""The binary operators whose result's undefined bits follow from the operands' (memcheck's rules)."""

_U64 = np.uint64


def _integer(t: CType) -> bool:
    return type(t) is CType and t.width == 1 and t.kind in ("int", "uint")


def _ones(t: CType) -> np.uint64:
    return _U64((1 << (8 * t.dtype.itemsize)) - 1)


def undefined_bits(v: Value) -> Array | None:
    """Per lane, the undefined bits of ``v``, a scalar integer with a shadow (as uint64): those its origin knows
    (``Uninit.bits``), the bytes the read of it left unwritten (``Uninit.exact``), else all of an undefined lane's;
    None for another value."""
    t, origin = v.t, v.origin
    if v.undef is None or origin is None or not _integer(t):
        return None
    unwritten, size = origin.unwritten, origin.size
    bits: Array | np.uint64 = _ones(t)
    if origin.bits is not None:
        bits = origin.bits
    elif origin.exact and unwritten is not None and unwritten.ndim == 1 and size == t.dtype.itemsize:
        per_byte = bit_bytes(unwritten, size).astype(np.uint64) * _U64(0xFF)  # (lanes, bytes)
        bits = (per_byte << (np.arange(size, dtype=np.uint64) * _U64(8))).sum(axis=1, dtype=np.uint64)
    return np.where(undefined_lanes(v.undef), bits, _U64(0)).astype(np.uint64)


def _resized(bits: Array, src: CType, dst: CType) -> Array:
    """The undefined bits of a ``src`` integer converted to ``dst``: truncated, or extended (a signed value's sign
    bit is each new bit: undefined where it is)."""
    narrow, wide = 8 * src.dtype.itemsize, 8 * dst.dtype.itemsize
    if wide <= narrow:
        return np.asarray(bits & _ones(dst))
    if src.kind == "uint":
        return bits
    sign = (bits >> _U64(narrow - 1)) & _U64(1)
    return np.asarray(bits | (sign * (_ones(dst) ^ _ones(src))))


def _pattern(a: Array, t: CType) -> Array:
    """The bits of ``a`` (of ``t``) as uint64."""
    return np.asarray(a, t.dtype).view(f"u{t.dtype.itemsize}").astype(np.uint64)


def _carried(r: Value, bits: Array, origin: Uninit) -> Value:
    """``r`` undefined where one of its ``bits`` is."""
    lanes = bits != 0
    if not bool(lanes.any()):
        return Value(r.t, r.raw)
    return Value(r.t, r.raw, undef=lanes, origin=replace(origin.computed(), bits=bits))


def bits_binop(op: str, a: Value, b: Value, x: Array, y: Array, r: Value, origin: Uninit) -> Value | None:
    """``r = a op b`` (``op`` in ``BIT_EXACT``; ``x``, ``y``: the operands' bits converted to ``r``'s type, a
    shift's count as it is) with the undefined bits the operator leaves, or None where they are not known (not
    scalar integers; a shift by an undefined count)."""
    t = r.t
    if not (_integer(t) and _integer(a.t) and _integer(b.t)):
        return None
    ra, rb = (undefined_bits(v) for v in (a, b))
    if op in ("<<", ">>"):
        if b.undef is not None or ra is None:
            return None
        width = 8 * t.dtype.itemsize
        bits = _resized(ra, a.t, t)
        count = np.asarray(y).astype(np.uint64) & _U64(width - 1)  # (OpenCL C 1.2 6.3 j: modulo the width)
        if op == "<<":
            return _carried(r, (bits << count) & _ones(t), origin)
        shifted = bits >> count
        if t.kind == "int":  # arithmetic: the sign bit's shadow fills the bits shifted in
            sign = (bits >> _U64(width - 1)) & _U64(1)
            shifted = shifted | (sign * (_ones(t) ^ (_ones(t) >> count)))
        return _carried(r, shifted, origin)
    zero = np.zeros((), np.uint64)
    sa = zero if ra is None else _resized(ra, a.t, t)
    sb = zero if rb is None else _resized(rb, b.t, t)
    if op in ("+", "-", "*"):
        return _carried(r, _leftward(sa | sb, t), origin)
    va, vb = _pattern(x, t), _pattern(y, t)
    if op == "&":
        bits = (sa & sb) | (sa & vb) | (va & sb)
    elif op == "|":
        bits = (sa & sb) | (sa & ~vb) | (~va & sb)
    else:
        bits = sa | sb
    return _carried(r, np.asarray(bits & _ones(t), np.uint64), origin)


def _leftward(bits: Array, t: CType) -> Array:
    """Each lane's lowest undefined bit and every bit above it (memcheck's ``Left``): what a carry can reach."""
    ones = _ones(t)
    return np.asarray((bits | ((~bits + _U64(1)) & ones)) & ones)


def bits_converted(v: Value, plain: Value) -> Value | None:
    """``plain``, ``v`` converted to another integer type, with the undefined bits the conversion keeps; None where
    they are not known."""
    bits = undefined_bits(v)
    if bits is None or not _integer(plain.t) or v.origin is None:
        return None
    return _carried(plain, _resized(bits, v.t, plain.t), v.origin)


def bits_unary(op: str, v: Value, r: Value) -> Value | None:
    """``r = op v`` for ``~`` and ``+`` (the promoted operand's bits, each defined as it was) and ``-`` (a
    subtraction from 0); None otherwise."""
    bits = undefined_bits(v)
    if op not in ("~", "+", "-") or bits is None or not _integer(r.t) or v.origin is None:
        return None
    promoted = _resized(bits, v.t, r.t)
    return _carried(r, _leftward(promoted, r.t) if op == "-" else promoted, v.origin)
