"""Quantities with units, as hardware model files write them ("2039 GB/s", "1410 MHz", "80 GiB").

A number without a unit is ambiguous in a datasheet-derived file (is a bandwidth in GB/s or GiB/s? a latency in
us or ns?), so every dimensioned field must say its unit; the parsed value is in the SI base unit (bytes, bytes/s,
seconds, hertz, FLOP/s).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated

from pydantic import BeforeValidator, ValidationInfo

_DECIMAL = {"": 1.0, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40}


def _prefixed(base: str, prefixes: dict[str, float]) -> dict[str, float]:
    return {p + base: f for p, f in prefixes.items()}


UNITS: dict[str, dict[str, float]] = {
    "size": _prefixed("B", _DECIMAL) | _prefixed("B", _BINARY),
    "bandwidth": _prefixed("B/s", _DECIMAL) | _prefixed("B/s", _BINARY),
    "duration": {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0},
    "frequency": {"Hz": 1.0, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9},
    "flop_rate": _prefixed("FLOP/s", _DECIMAL) | _prefixed("OP/s", _DECIMAL),
}
_EXAMPLE = {
    "size": "80 GiB",
    "bandwidth": "2039 GB/s",
    "duration": "2.5 us",
    "frequency": "1410 MHz",
    "flop_rate": "312 TFLOP/s",
}
_QUANTITY = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z/]+)\s*$")


def parse_quantity(text: object, dimension: str) -> float:
    """Parse ``"<number> <unit>"`` for one dimension; raise ValueError naming the accepted units."""
    units = UNITS[dimension]
    expected = f"a {dimension.replace('_', ' ')} like '{_EXAMPLE[dimension]}' (units: {', '.join(units)})"
    if not isinstance(text, str):
        raise ValueError(f"expected {expected}, got {text!r} without a unit")
    match = _QUANTITY.match(text)
    if match is None:
        raise ValueError(f"expected {expected}, got {text!r}")
    number, unit = match.groups()
    if unit not in units:
        raise ValueError(f"expected {expected}, got unit {unit!r} in {text!r}")
    return float(number) * units[unit]


SI_NUMBERS = {"si_numbers": True}
"""Validation context under which a dimensioned field also takes a bare number in its SI base unit: for
re-validating a model the program changed (:func:`wia_sim.hwmodel.vary`), whose values are already parsed. Files
never get it: a number in a file must say its unit."""


def _parser(dimension: str) -> Callable[[object, ValidationInfo], float]:
    def parse(value: object, info: ValidationInfo) -> float:
        numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
        if numeric and info.context is not None and info.context.get("si_numbers"):
            return float(value)  # type: ignore[arg-type]
        return parse_quantity(value, dimension)

    return parse


Size = Annotated[float, BeforeValidator(_parser("size"))]
Bandwidth = Annotated[float, BeforeValidator(_parser("bandwidth"))]
Duration = Annotated[float, BeforeValidator(_parser("duration"))]
Frequency = Annotated[float, BeforeValidator(_parser("frequency"))]
FlopRate = Annotated[float, BeforeValidator(_parser("flop_rate"))]
