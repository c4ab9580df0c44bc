"""R-3.7-02 reductions: ``sum``, ``max`` (``axis`` None, an int or a tuple; negative counts from the end;
``keepdims``) and a numerically stable ``softmax``."""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Literal

import numpy as np

from wia_hal.context import Context
from wia_hal.dtypes import int32
from wia_hal.errors import InvalidValueError, api
from wia_hal.ops.common import axis_index, output, require_float, resolve
from wia_hal.opset import AxisAttrs, ReduceAttrs
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor, launch_op


def _axes(name: str, axis: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    items = (axis,) if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool) else axis
    if not isinstance(items, Sequence):
        raise InvalidValueError(f"{name}: axis must be None, an int or a sequence of ints, got {axis!r}")
    axes = tuple(axis_index(name, a, ndim) for a in items)
    if len(set(axes)) != len(axes):
        raise InvalidValueError(f"{name}: axis {axis!r} names an axis twice")
    return tuple(sorted(axes))


def _reduce(
    name: Literal["sum", "max"],
    a: Tensor,
    axis: int | Sequence[int] | None,
    keepdims: bool,
    ctx: Context | None,
    stream: Stream | None,
) -> Tensor:
    context, s = resolve(name, (a,), ctx, stream)
    if not isinstance(keepdims, bool):
        raise InvalidValueError(f"{name}: keepdims must be a bool, got {keepdims!r}")
    axes = _axes(name, axis, a.ndim)
    if name == "max" and builtins.any(a.shape[i] == 0 for i in axes):
        raise InvalidValueError(f"max: reduction over a zero-size axis of {a.shape} has no identity")
    shape = tuple(1 if i in axes else d for i, d in enumerate(a.shape) if keepdims or i not in axes)
    dtype = int32 if name == "sum" and a.dtype.kind in "bi" else a.dtype
    attrs = ReduceAttrs(axis=axes, keepdims=keepdims)
    return launch_op(context, s, name, (a,), output(context, shape, dtype), attrs)


@api
def sum(
    a: Tensor,
    axis: int | Sequence[int] | None = None,
    *,
    keepdims: bool = False,
    ctx: Context | None = None,
    stream: Stream | None = None,
) -> Tensor:
    """R-3.7-02: the sum over ``axis`` (all axes when None). Low-precision floats accumulate in float32 and are
    rounded once; int8, int32 and bool sum in int32 (wrapping), giving int32."""
    return _reduce("sum", a, axis, keepdims, ctx, stream)


@api
def max(
    a: Tensor,
    axis: int | Sequence[int] | None = None,
    *,
    keepdims: bool = False,
    ctx: Context | None = None,
    stream: Stream | None = None,
) -> Tensor:
    """R-3.7-02: the maximum over ``axis`` (NaN propagates); a zero-size reduction is ``INVALID_VALUE``."""
    return _reduce("max", a, axis, keepdims, ctx, stream)


@api
def softmax(a: Tensor, axis: int = -1, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-02: ``exp(x - max) / sum(exp(x - max))`` along ``axis`` (stable for any finite input);
    low-precision floats compute in float32. Floating-point tensors only."""
    context, s = resolve("softmax", (a,), ctx, stream)
    require_float("softmax", a)
    if a.ndim == 0:
        raise InvalidValueError("softmax: needs at least one dimension, got a 0-d tensor")
    index = axis_index("softmax", axis, a.ndim)
    return launch_op(context, s, "softmax", (a,), output(context, a.shape, a.dtype), AxisAttrs(axis=index))
