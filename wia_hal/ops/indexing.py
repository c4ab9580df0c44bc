"""Gathering along an axis by an integer index tensor: ``gather`` and ``embedding`` (its axis-0 case, a model's
token lookup). Extensions of the spec's op library (docs/ops.md "Beyond the spec")."""

from __future__ import annotations

from wia_hal.context import Context
from wia_hal.dtypes import int8, int32
from wia_hal.errors import InvalidValueError, api
from wia_hal.ops.common import axis_index, output, resolve
from wia_hal.opset import GatherAttrs
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor, launch_op

INDEX_DTYPES = (int32, int8)
"""The dtypes an index tensor may have (the device's integer types; int64 is not a WIA data type)."""


def _gather(
    name: str,
    a: Tensor,
    indices: Tensor,
    axis: object,
    ctx: Context | None,
    stream: Stream | None,
    names: tuple[str, str],
) -> Tensor:
    context, s = resolve(name, (a, indices), ctx, stream, names)
    if a.ndim == 0:
        raise InvalidValueError(f"{name}: {names[0]} needs at least one dimension to gather along, got a 0-d tensor")
    if indices.dtype not in INDEX_DTYPES:
        raise InvalidValueError(
            f"{name}: {names[1]} must be an int32 or int8 tensor, got {indices.dtype.name} {indices.shape}"
        )
    k = axis_index(name, axis, a.ndim)
    shape = (*a.shape[:k], *indices.shape, *a.shape[k + 1 :])
    return launch_op(context, s, "gather", (a, indices), output(context, shape, a.dtype), GatherAttrs(axis=k))


@api
def gather(
    a: Tensor, indices: Tensor, axis: int = 0, *, ctx: Context | None = None, stream: Stream | None = None
) -> Tensor:
    """``numpy.take(a, indices, axis)``: shape ``a.shape[:axis] + indices.shape + a.shape[axis + 1:]``, ``indices``
    an int32 or int8 tensor of any shape; a negative index counts from the end, one outside ``[-n, n)`` gives
    zeros (a device kernel cannot raise; TensorFlow's GPU gather does the same)."""
    return _gather("gather", a, indices, axis, ctx, stream, ("a", "indices"))


@api
def embedding(table: Tensor, ids: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """The rows of ``table`` named by ``ids``: ``gather(table, ids, axis=0)``, shape ``ids.shape +
    table.shape[1:]``."""
    return _gather("embedding", table, ids, 0, ctx, stream, ("table", "ids"))


__all__ = ["embedding", "gather"]
