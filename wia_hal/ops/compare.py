"""Comparisons and selection beyond the spec (docs/ops.md): ``equal not_equal less less_equal greater
greater_equal`` give bool tensors; ``where`` picks between two operands by a bool condition.

Operands follow the binary ops' rules (``wia_hal.ops.conversion``): two tensors of one dtype, or a tensor and a
scalar promoted by NumPy's rules; comparisons with NaN are False except ``not_equal``, as IEEE and NumPy have it.
"""

from __future__ import annotations

import numpy as np

from wia_hal.context import Context
from wia_hal.dtypes import bool_
from wia_hal.errors import InvalidValueError, api
from wia_hal.ops.common import output, resolve
from wia_hal.ops.conversion import Operand, binary_operands, converted, is_scalar, promoted, require_supported, to_dtype
from wia_hal.opset import OpName, WhereAttrs
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor, launch_op


def _compare(name: OpName, a: Operand, b: Operand, ctx: Context | None, stream: Stream | None) -> Tensor:
    ops = binary_operands(name, a, b, ctx, stream, "all")
    return launch_op(ops.context, ops.stream, name, ops.inputs, output(ops.context, ops.shape, bool_), ops.attrs)


@api
def equal(a: Operand, b: Operand, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``a == b`` element by element, a bool tensor."""
    return _compare("equal", a, b, ctx, stream)


@api
def not_equal(a: Operand, b: Operand, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``a != b`` element by element (True where either is NaN)."""
    return _compare("not_equal", a, b, ctx, stream)


@api
def less(a: Operand, b: Operand, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``a < b`` element by element (bool: False < True)."""
    return _compare("less", a, b, ctx, stream)


@api
def less_equal(a: Operand, b: Operand, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``a <= b`` element by element."""
    return _compare("less_equal", a, b, ctx, stream)


@api
def greater(a: Operand, b: Operand, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``a > b`` element by element."""
    return _compare("greater", a, b, ctx, stream)


@api
def greater_equal(a: Operand, b: Operand, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``a >= b`` element by element."""
    return _compare("greater_equal", a, b, ctx, stream)


@api
def where(
    condition: Tensor, x: Operand, y: Operand, *, ctx: Context | None = None, stream: Stream | None = None
) -> Tensor:
    """``x`` where ``condition`` is True, else ``y``; the three broadcast together (NumPy's ``where``). ``x`` and
    ``y``: two tensors of one dtype, or a tensor and a scalar (promoted by NumPy's rules, the tensor cast first
    when the scalar widens it); not both scalars."""
    x_scalar, y_scalar = is_scalar(x), is_scalar(y)
    if x_scalar and y_scalar:
        raise InvalidValueError(
            f"where: x and y are both scalars ({x!r}, {y!r}); one must be a tensor, which gives the result's dtype"
        )
    names = ["condition"] + ([] if x_scalar else ["x"]) + ([] if y_scalar else ["y"])
    given = [condition] + ([] if x_scalar else [x]) + ([] if y_scalar else [y])
    context, s = resolve("where", given, ctx, stream, names)
    tensors: list[Tensor] = given  # type: ignore[assignment]  (resolve checked them)
    if condition.dtype != bool_:
        raise InvalidValueError(
            f"where: condition must be a bool tensor, got {condition.dtype.name} {condition.shape} (compare first: "
            "wia.not_equal(condition, 0))"
        )
    try:
        shape = np.broadcast_shapes(*(t.shape for t in tensors))
    except ValueError:
        listed = ", ".join(f"{n} {t.shape}" for n, t in zip(names, tensors, strict=True))
        raise InvalidValueError(f"where: shapes do not broadcast ({listed}; NumPy rules)") from None
    if not (x_scalar or y_scalar):
        if tensors[1].dtype != tensors[2].dtype:
            raise InvalidValueError(
                f"where: x and y dtypes differ ({tensors[1].dtype.name}, {tensors[2].dtype.name}); two tensor "
                "operands must have one dtype: cast one first (wia.cast)"
            )
        return launch_op(context, s, "where", tensors, output(context, shape, tensors[1].dtype), WhereAttrs())
    value = x if x_scalar else y
    dtype = promoted("where", tensors[1].dtype, value)
    scalar = converted("where", value, dtype)
    attrs = WhereAttrs(x_scalar=scalar) if x_scalar else WhereAttrs(y_scalar=scalar)
    if dtype != tensors[1].dtype:
        require_supported(context, dtype)
    inputs = (condition, to_dtype(context, s, tensors[1], dtype))
    return launch_op(context, s, "where", inputs, output(context, shape, dtype), attrs)
