"""Table 6.10's integer functions on 64-bit lanes (``long``, ``ulong``), exact in uint64 arithmetic: a product's
high half from four 32 x 32-bit limb products, a sum's overflow from its carry or its sign bits. Python ints
(object arrays) give the same bits 10 to 40 times slower: 0.2 to 0.4 s for a million lanes, against 5 to 40 ms.

Every function takes and returns the lanes' bits as uint64 (``bits``); ``signed`` says whether they are ``long``
two's complement. The caller views the result as its type. Arithmetic wraps modulo 2**64, as NumPy's uint64
arrays do (a 0-d operand gives a NumPy scalar, which warns on wrapping unless under ``np.errstate``: the
launch's and ``tables.call_table``'s).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["LONG_FUNCTIONS", "long_call", "product"]

Array = NDArray[Any]

_LOW = np.uint64(0xFFFF_FFFF)
_32 = np.uint64(32)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_SIGN = np.uint64(1 << 63)
_ONES = np.uint64((1 << 64) - 1)
_LONG_MAX = np.uint64((1 << 63) - 1)


def bits(a: Array) -> Array:
    """The lanes' 64 bits as uint64 (a ``long`` lane's two's complement)."""
    return np.asarray(a).view(np.uint64)


def _negative(a: Array) -> Array:
    return a >= _SIGN


def product(a: Array, b: Array, signed: bool) -> tuple[Array, Array]:
    """The 128-bit product of ``a`` and ``b`` as its high and low 64 bits (the high half signed where the
    operands are: ``a * b - 2**64 * (b if a < 0) - 2**64 * (a if b < 0)``, modulo 2**128)."""
    a0, a1, b0, b1 = a & _LOW, a >> _32, b & _LOW, b >> _32
    p01, p10 = a0 * b1, a1 * b0
    middle = ((a0 * b0) >> _32) + (p01 & _LOW) + (p10 & _LOW)  # below 3 * 2**32: no carry lost
    high = a1 * b1 + (p01 >> _32) + (p10 >> _32) + (middle >> _32)
    if signed:
        high = high - np.where(_negative(a), b, _ZERO) - np.where(_negative(b), a, _ZERO)
    return np.asarray(high, dtype=np.uint64), np.asarray(a * b, dtype=np.uint64)


def _saturated(fits: Array, value: Array, low: Array) -> Array:
    """``value`` where it ``fits``, else the type's limit on the side ``low`` says (the minimum where true)."""
    return np.where(fits, value, np.where(low, _SIGN, _LONG_MAX))


def add_sat(a: Array, b: Array, signed: bool) -> Array:
    r = a + b
    if not signed:
        return np.where(r < a, _ONES, r)
    # a signed sum overflows where both operands' sign differs from the sum's
    return _saturated(~_negative((a ^ r) & (b ^ r)), r, _negative(a))


def sub_sat(a: Array, b: Array, signed: bool) -> Array:
    r = a - b
    if not signed:
        return np.where(a < b, _ZERO, r)
    # a signed difference overflows where the operands' signs differ and the result's differs from a's
    return _saturated(~_negative((a ^ b) & (a ^ r)), r, _negative(a))


def _halves(a: Array, b: Array, signed: bool) -> tuple[Array, Array]:
    """``a >> 1`` and ``b >> 1`` (arithmetic for ``long``), as uint64 bits."""
    if signed:
        return bits(a.view(np.int64) >> 1), bits(b.view(np.int64) >> 1)
    return a >> _ONE, b >> _ONE


def hadd(a: Array, b: Array, signed: bool) -> Array:
    """``(a + b) >> 1`` without the sum's overflow: the halves' sum, plus one where both dropped a one."""
    x, y = _halves(a, b, signed)
    return np.asarray(x + y + (a & b & _ONE))


def rhadd(a: Array, b: Array, signed: bool) -> Array:
    """``(a + b + 1) >> 1`` without overflow: the halves' sum, plus one where either dropped a one."""
    x, y = _halves(a, b, signed)
    return np.asarray(x + y + ((a | b) & _ONE))


def abs_diff(a: Array, b: Array, signed: bool) -> Array:
    """``|a - b|`` as the unsigned type: below 2**64, so the wrapped difference the right way round is exact."""
    greater = a.view(np.int64) > b.view(np.int64) if signed else a > b
    return np.where(greater, a - b, b - a)


def mul_hi(a: Array, b: Array, signed: bool) -> Array:
    return product(a, b, signed)[0]


def mad_hi(a: Array, b: Array, c: Array, signed: bool) -> Array:
    return product(a, b, signed)[0] + c


def mad_sat(a: Array, b: Array, c: Array, signed: bool) -> Array:
    """``a * b + c`` saturated: the 128-bit product plus ``c`` (sign-extended for ``long``), which fits 64 bits
    where its high half is the low half's sign extension (zero for ``ulong``)."""
    high, low = product(a, b, signed)
    total = low + c
    carry = (total < low).astype(np.uint64)
    if not signed:
        return np.where((high == _ZERO) & (carry == _ZERO), total, _ONES)
    high = high + np.where(_negative(c), _ONES, _ZERO) + carry  # (the true sum fits 128 bits: no wrap matters)
    fits = high == np.where(_negative(total), _ONES, _ZERO)
    return _saturated(fits, total, _negative(high))


LONG_FUNCTIONS: dict[str, Callable[..., Array]] = {
    "abs_diff": abs_diff,
    "add_sat": add_sat,
    "sub_sat": sub_sat,
    "hadd": hadd,
    "rhadd": rhadd,
    "mul_hi": mul_hi,
    "mad_hi": mad_hi,
    "mad_sat": mad_sat,
}
"""The functions of Table 6.10 that need more than 64 bits in between, by name."""


def long_call(name: str, lanes: list[Array], signed: bool) -> Array:
    """``name`` on 64-bit lanes of one type (``signed``: ``long``), as uint64 bits."""
    return np.asarray(LONG_FUNCTIONS[name](*(bits(a) for a in lanes), signed), dtype=np.uint64)
