"""R-3.7-03 layout ops. ``reshape`` of a contiguous tensor, ``transpose`` and ``slice`` are views (no copy, no
device time); ``concat`` and the reshape of a non-contiguous tensor copy on the device."""

from __future__ import annotations

import builtins
import math
from collections.abc import Sequence

import numpy as np

from wia_hal.context import Context
from wia_hal.errors import InvalidValueError, api
from wia_hal.ops.common import axis_index, output, resolve, same_dtype
from wia_hal.opset import AxisAttrs
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor, check_tensor, contiguous, contiguous_strides, launch_op, view


def _ints(name: str, what: str, values: object) -> tuple[int, ...]:
    if type(values) is tuple and all(type(v) is int for v in values):  # the common case, checked fast
        return values
    if isinstance(values, (int, np.integer)) and not isinstance(values, bool):
        return (int(values),)
    if not isinstance(values, Sequence) or isinstance(values, str):
        raise InvalidValueError(f"{name}: {what} must be a sequence of ints, got {values!r}")
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise InvalidValueError(f"{name}: {what} must be a sequence of ints, got {values!r}")
    return tuple(int(v) for v in values)


@api
def reshape(
    a: Tensor, shape: int | Sequence[int], *, ctx: Context | None = None, stream: Stream | None = None
) -> Tensor:
    """R-3.7-03: the same elements in row-major order under ``shape`` (one dimension may be -1)."""
    _, s = resolve("reshape", (a,), ctx, stream)
    dims = list(_ints("reshape", "shape", shape))
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1 or builtins.any(d < -1 for d in dims):
        raise InvalidValueError(f"reshape: shape {tuple(dims)} may hold at most one -1 and no other negative")
    known = math.prod(d for d in dims if d != -1)
    if unknown:
        if known == 0 or a.size % known:
            raise InvalidValueError(f"reshape: cannot infer -1 in {tuple(dims)} for {a.size} elements {a.shape}")
        dims[unknown[0]] = a.size // known
    new_shape = tuple(dims)
    if math.prod(new_shape) != a.size:
        raise InvalidValueError(f"reshape: {a.shape} has {a.size} elements, {new_shape} needs {math.prod(new_shape)}")
    source = contiguous(a, s)
    if source is a:
        return view(a, new_shape, contiguous_strides(new_shape, a.dtype.itemsize), a.offset)
    # the copy kernel made it: the result owns the copy's memory (released with it), explain() shows that kernel
    result = Tensor(source.memory, new_shape, a.dtype)
    result.producer = source.producer
    source.released = True  # the copy's handle goes; its memory is the result's now
    return result


@api
def transpose(
    a: Tensor, perm: Sequence[int] | None = None, *, ctx: Context | None = None, stream: Stream | None = None
) -> Tensor:
    """R-3.7-03: the axes permuted (reversed when ``perm`` is None); a view."""
    resolve("transpose", (a,), ctx, stream)
    axes = tuple(reversed(range(a.ndim))) if perm is None else _ints("transpose", "perm", perm)
    if sorted(axis_index("transpose", p, a.ndim) for p in axes) != list(range(a.ndim)) or len(axes) != a.ndim:
        raise InvalidValueError(f"transpose: perm {axes} is not a permutation of the {a.ndim} axes of {a.shape}")
    axes = tuple(p % a.ndim for p in axes)
    return view(a, tuple(a.shape[p] for p in axes), tuple(a.strides[p] for p in axes), a.offset)


@api
def slice(
    a: Tensor,
    start: Sequence[int],
    end: Sequence[int],
    *,
    ctx: Context | None = None,
    stream: Stream | None = None,
) -> Tensor:
    """R-3.7-03: ``a[start[0]:end[0], start[1]:end[1], ...]`` with Python's rules (negative indices count from
    the end, bounds are clamped, an empty range gives a zero-size dimension); dimensions past ``len(start)`` are
    kept whole. A view."""
    resolve("slice", (a,), ctx, stream)
    starts, ends = _ints("slice", "start", start), _ints("slice", "end", end)
    if len(starts) != len(ends) or len(starts) > a.ndim:
        raise InvalidValueError(
            f"slice: start {starts} and end {ends} must have the same length, at most the {a.ndim} dims of {a.shape}"
        )
    shape, offset = list(a.shape), a.offset
    for i, (lo, hi) in enumerate(zip(starts, ends, strict=True)):
        lo, hi, _ = builtins.slice(lo, hi).indices(a.shape[i])
        shape[i] = builtins.max(0, hi - lo)
        offset += lo * a.strides[i]
    if 0 in shape:  # an empty view addresses nothing: keep it at the tensor's start, inside its memory
        offset = a.offset
    return view(a, tuple(shape), a.strides, offset)


@api
def concat(
    tensors: Sequence[Tensor], axis: int = 0, *, ctx: Context | None = None, stream: Stream | None = None
) -> Tensor:
    """R-3.7-03: the tensors joined along ``axis``; all other dimensions and the dtype must agree."""
    if not isinstance(tensors, Sequence) or isinstance(tensors, (str, Tensor)) or not tensors:
        raise InvalidValueError(f"concat: expected a non-empty sequence of tensors, got {tensors!r}")
    parts = [check_tensor(t) for t in tensors]
    context, s = resolve("concat", parts, ctx, stream)
    dtype = same_dtype("concat", parts)
    first = parts[0]
    if first.ndim == 0:
        raise InvalidValueError("concat: 0-d tensors have no axis to join")
    index = axis_index("concat", axis, first.ndim)
    for t in parts[1:]:
        if t.ndim != first.ndim:
            raise InvalidValueError(f"concat: tensors have different numbers of dimensions: {[p.shape for p in parts]}")
        if builtins.any(d != e for i, (d, e) in enumerate(zip(t.shape, first.shape, strict=True)) if i != index):
            raise InvalidValueError(f"concat: shapes {[p.shape for p in parts]} differ outside axis {axis}")
    shape = list(first.shape)
    shape[index] = builtins.sum(t.shape[index] for t in parts)
    return launch_op(context, s, "concat", parts, output(context, tuple(shape), dtype), AxisAttrs(axis=index))
