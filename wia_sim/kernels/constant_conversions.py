"""Clang's warnings for a constant that an implicit conversion changes, on by default: an integer constant stored to
a narrower integer that cannot hold it (-Wconstant-conversion: ``char c = 300;``, "changes value from 300 to 44"), a
floating literal stored to an integer or ``bool`` that does not hold it exactly (-Wliteral-conversion: ``int x =
1.5f;``, or "implicit conversion of out of range value ... is undefined"), an integer constant stored to a floating
type that rounds it (-Wimplicit-const-int-float-conversion: ``float f = 16777217;``), and a floating literal its
own type cannot hold (-Wliteral-range: ``1e40f``). Measured with ``clang-15 -cc1
-x cl -cl-std=CL1.2`` (PoCL 3.1's and Oclgrind 21.10's front end): the words, the values, and which conversions
warn. The checker (``check_exprs.constant_conversion``) finds the constant and where Clang places the warning; this
module says what Clang says of it.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

from wia_sim.kernels.types import SCALAR_SIZES

__all__ = ["float_text", "integer_change", "integer_to_float", "literal_change", "literal_range", "value_range"]

_DIGITS = {"half": 4, "float": 8, "double": 16}
"""The significant digits Clang prints a floating value of each type with: ``(precision * 59 + 195) // 196`` of its
significand's bits (11, 24, 53), as Sema's ``DiagnoseFloatingImplicitConversion`` asks ``APFloat::toString``."""

_FLOAT_TYPES: dict[str, type[np.floating[Any]]] = {"half": np.float16, "float": np.float32, "double": np.float64}
_PADDING = 3
"""``APFloat::toString``'s ``FormatMaxPadding``: at most this many zeros after the point before a digit, else
scientific notation."""


def float_text(value: float, digits: int) -> str:
    """``value`` as LLVM's ``APFloat::toString(Str, digits)`` writes it (``1.5``, ``0.001``, ``9.9999997E-6``,
    ``-0``): its exact value rounded half up to ``digits`` significant digits, trailing zeros dropped, in positional
    notation unless more than three zeros would follow the point."""
    if value == 0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    sign = "-" if value < 0 else ""
    exact = Decimal(abs(value))  # (a binary fraction: exact in decimal)
    exponent = exact.adjusted()  # the most significant digit's power of ten
    rounded = exact.scaleb(digits - 1 - exponent).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    text = str(int(rounded))
    if len(text) > digits:  # (rounded up to the next power of ten)
        text, exponent = text[:-1], exponent + 1
    text = text.rstrip("0") or "0"
    n = len(text)
    low = exponent - (n - 1)  # the power of ten of the last digit kept
    if low >= 0:
        if low > _PADDING or n + low > digits:
            return f"{sign}{text[0]}.{text[1:] or '0'}E+{exponent}"
        return sign + text + "0" * low
    if exponent < 0 and -exponent > _PADDING:
        return f"{sign}{text[0]}.{text[1:] or '0'}E-{-exponent}"
    if exponent >= 0:
        return f"{sign}{text[: exponent + 1]}.{text[exponent + 1 :]}"
    return f"{sign}0.{'0' * (-exponent - 1)}{text}"


def _bits(name: str) -> int:
    return SCALAR_SIZES[name] * 8


def _unsigned(name: str) -> bool:
    return name.startswith("u") or name == "size_t"


def value_range(name: str) -> tuple[int, int]:
    """The least and greatest value of the integer type ``name``."""
    bits = _bits(name)
    return (0, (1 << bits) - 1) if _unsigned(name) else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def integer_change(value: int, source: str, target: str) -> int | None:
    """What the integer ``target`` holds of the constant ``value`` of the integer type ``source``, where Clang warns
    of it: only where ``target`` is narrower than ``source`` and the value lies outside what ``target`` holds (a
    signed type's range; for an unsigned one, its own and the signed one's of its width: ``uchar c = -1`` is
    silent)."""
    if target == "bool" or _bits(target) >= _bits(source):
        return None
    width = _bits(target)
    low, high = -(1 << (width - 1)), (1 << (width - (0 if _unsigned(target) else 1))) - 1
    if low <= value <= high:
        return None
    wrapped = value & ((1 << width) - 1)
    return wrapped - (1 << width) if not _unsigned(target) and wrapped >> (width - 1) else wrapped


def literal_change(value: float, source: str, target: str) -> tuple[str, str | None] | None:
    """A floating literal ``value`` of type ``source`` stored to the integer or ``bool`` ``target``: its text and
    what ``target`` holds of it (``"true"``/``"false"`` for ``bool``; None for "out of range", whose conversion is
    undefined), where Clang warns; None where the value is kept exactly."""
    text = float_text(value, _DIGITS[source])
    negative_zero = value == 0 and math.copysign(1.0, value) < 0
    if target == "bool":
        if value in (0.0, 1.0) and not negative_zero:
            return None
        return text, "true" if value != 0 else "false"
    low, high = value_range(target)
    if not math.isfinite(value) or not low <= math.trunc(value) <= high:
        return text, None
    if value == math.trunc(value) and not negative_zero:
        return None
    return text, str(math.trunc(value))


def integer_to_float(value: int, target: str) -> str | None:
    """What the floating ``target`` holds of the integer constant ``value`` (an integer written out, or ``+Inf``
    past its range), where it is not ``value`` itself: Clang's warning then."""
    with np.errstate(over="ignore"):  # (past the type's range: infinity, which Clang names)
        kept = float(_FLOAT_TYPES[target](value))
    if not math.isfinite(kept):
        return "+Inf" if kept > 0 else "-Inf"
    held = int(kept)
    return None if held == value else str(held)


_LITERAL_BOUNDS = {
    True: ("float", "3.40282347E+38", "1.40129846E-45"),
    False: ("double", "1.7976931348623157E+308", "4.9406564584124654E-324"),
}
"""Clang's words for each floating type's largest and smallest magnitudes (``APFloat`` printed to 9 and 17 digits)."""


def literal_range(literal: str, single: bool) -> str | None:
    """Clang's -Wliteral-range warning for the floating literal ``literal`` (of ``float`` with ``single``, the ``f``
    suffix; else ``double``): its value rounds to infinity ("too large"), or is nonzero and rounds to zero ("too
    small"; a denormal holds); None where the type holds it."""
    text = literal.lower().rstrip("fl")
    hexadecimal = text.startswith("0x")
    try:
        exact = float.fromhex(text) if hexadecimal else float(text)
    except ValueError:
        return None  # (no floating literal: the checker's own error)
    with np.errstate(over="ignore"):
        held = float(np.float32(exact)) if single else exact
    digits = text.split("p" if hexadecimal else "e")[0].removeprefix("0x")
    kind, largest, smallest = _LITERAL_BOUNDS[single]
    if math.isinf(held):
        return f"magnitude of floating-point constant too large for type '{kind}'; maximum is {largest}"
    if held == 0 and any(c in "123456789abcdef" for c in digits):
        return f"magnitude of floating-point constant too small for type '{kind}'; minimum is {smallest}"
    return None
