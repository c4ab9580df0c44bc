"""What C's binary operators do to lane arrays, decided once per pair of operand types.

Both ways the executor evaluates an operator take it from here: the interpreter's plans (``executor._Combine``),
which look at each operand's representation first, and compiled expressions (``compiled.py``), which know theirs
are plain arrays. One source for the conversions and ufuncs keeps their bits the same.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pycparser import c_ast

from wia_sim.kernels import scratch
from wia_sim.kernels.ctype import COMPARE, INT, CType, common_type, comparison_type, promoted
from wia_sim.kernels.exec_state import _line
from wia_sim.kernels.spaces import UnsupportedKernel

__all__ = [
    "DIRECT",
    "SHIFTS",
    "Binary",
    "binary_spec",
    "binary_type",
    "count_kind",
    "lanes_out",
    "shift",
    "zero_divisors",
]

Array = NDArray[Any]

DIRECT = {
    "+": np.add,
    "-": np.subtract,
    "*": np.multiply,
    "&": np.bitwise_and,
    "|": np.bitwise_or,
    "^": np.bitwise_xor,
}
"""Operators whose C result is the NumPy ufunc's on operands converted to the common type (run under the launch's
``np.errstate(all="ignore")``: integers wrap, floats overflow to infinity quietly)."""

SHIFTS = {"<<": np.left_shift, ">>": np.right_shift}


def shift(op: str, t: CType) -> Callable[..., Array]:
    """``x << y`` or ``x >> y`` on operands of the integer type ``t``: the count taken modulo the width in bits
    (OpenCL C 1.2 6.3 j), as ``ctype.arithmetic`` shifts, as a ufunc-like."""
    ufunc, bits, dtype = SHIFTS[op], t.dtype.itemsize * 8 - 1, t.dtype

    def shifted(x: Array, y: Array, out: Array | None = None) -> Array:
        return ufunc(x, np.bitwise_and(y, bits, dtype=dtype), out=out)

    return shifted


def count_kind(t: CType) -> str:
    """The counter an operation on ``t`` adds to (``executor.COUNTS``)."""
    if t.kind == "float":
        return "float64_ops" if t.name == "double" else "float32_ops"
    return "int_ops"


def binary_type(op: str, a: CType, b: CType, node: c_ast.Node) -> CType:
    """The type both operands of ``a op b`` convert to (the shift's left operand's, for shifts)."""
    if op in ("<<", ">>"):
        t = promoted(a) if a.kind != "bool" else INT
        if b.width > 1 and t.width == 1:
            t = t.vector(b.width)
        return t
    try:
        return common_type(a if a.kind != "bool" else INT, b if b.kind != "bool" else INT)
    except TypeError as exc:
        raise UnsupportedKernel(f"line {_line(node)}: {exc}") from None


@dataclass(frozen=True)
class Binary:
    """What ``a op b`` does for one pair of operand types: convert to ``t`` (unless already of it), count
    ``t.width`` ops of ``kind`` per lane, apply ``ufunc`` (None: the general ``executor.binop``), then, for a
    comparison, give ``result`` (-1/0 per element for vectors)."""

    t: CType
    kind: str
    convert_a: bool
    convert_b: bool
    ufunc: Any
    result: CType | None
    affine: bool  # an integer + - *: kept affine (``affine.py``) where an operand is and the result fits ``t``
    ordered: bool  # an integer comparison: its lanes found from coefficients where an operand is affine


def binary_spec(op: str, ta: CType, tb: CType, node: c_ast.Node) -> Binary:
    """``Binary`` for ``a op b`` with operands of ``ta`` and ``tb`` (``UnsupportedKernel`` where they do not go
    together: the checker refuses those)."""
    t = binary_type(op, ta, tb, node)
    compare = COMPARE.get(op)
    ufunc: Any = compare or (DIRECT.get(op) if t.kind != "float" or op in ("+", "-", "*") else None)
    if op in SHIFTS and t.kind in ("int", "uint"):
        ufunc = shift(op, t)
    result = comparison_type(t) if compare is not None else None
    integer = t.width == 1 and t.kind in ("int", "uint")
    affine = integer and op in ("+", "-", "*")
    ordered = integer and compare is not None
    return Binary(t, count_kind(t), ta != t, tb != t, ufunc, result, affine, ordered)


def lanes_out(x: Array, y: Array, dtype: Any) -> Array | None:
    """Where a ufunc on per-lane ``x`` and ``y`` writes: an array recycled from earlier launches when it is large
    (``scratch``), else None (a fresh one)."""
    shape = x.shape if x.ndim >= y.ndim else y.shape
    if not shape or shape[0] < _RECYCLED_LANES or (x.ndim == y.ndim and x.shape != y.shape):
        return None
    return scratch.empty(shape, dtype)


_RECYCLED_LANES = 1 << 15
"""Launches of this many lanes or more write their arithmetic into recycled arrays (``scratch``)."""


def zero_divisors(mask: Array, divisor: Array, t: CType) -> Array:
    """Where a lane of ``mask`` divides by zero (per component for a vector ``t``): an integer ``/`` or ``%``
    whose value OpenCL C 1.2 6.3 leaves unspecified, the executor's lower-severity finding."""
    return np.asarray(mask[:, None] & (divisor == 0) if t.width > 1 else mask & (divisor == 0))
