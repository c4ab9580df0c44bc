"""SPEC 3.7 operations (Level 1): each validates on the host, allocates its output and enqueues one kernel.

The op runs in ``stream``'s order (the context's default stream when none is given) and returns at once; the
result is valid once the stream is synchronized (``Tensor.numpy()`` does that).
"""

from __future__ import annotations

import numpy as np

from wia_hal.context import Context, check_context, current_context
from wia_hal.enums import MemoryType
from wia_hal.errors import InvalidMemoryError, InvalidValueError, NotSupportedError, api
from wia_hal.streams import Stream, check_stream, stream_for
from wia_hal.tensor import Tensor, check_tensor, new_tensor

DEVICE_VISIBLE = frozenset(t for t in MemoryType if t.device_visible)
_BROADCAST_CACHE: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}


def _resolve(
    name: str, tensors: tuple[object, ...], ctx: Context | None, stream: Stream | None
) -> tuple[Context, Stream]:
    """The op's context (``ctx``, else the first tensor's, else the stream's) and stream; every tensor must be
    of that context (``INVALID_MEMORY``) and so must the stream (``INVALID_CONTEXT``)."""
    if ctx is not None:
        context = check_context(ctx)
    elif tensors and type(tensors[0]) is Tensor:
        context = check_tensor(tensors[0]).memory.context
    elif stream is not None:
        context = check_stream(stream).context
    else:
        context = current_context()
    queue_stream = stream_for(context, stream)
    for t in tensors:
        if check_tensor(t, context).memory.type not in DEVICE_VISIBLE:
            raise InvalidMemoryError(
                f"{name}: an input is in {t.memory.type.name} memory, which the device cannot access; "  # type: ignore[attr-defined]
                "ops need DEVICE, UNIFIED or MANAGED memory"
            )
    if name not in context.backend.ops:
        raise NotSupportedError(f"{name}: the {context.backend.name!r} backend does not implement this op")
    return context, queue_stream


def _broadcast(name: str, a: Tensor, b: Tensor) -> tuple[int, ...]:
    if a.shape == b.shape:
        return a.shape
    key = (a.shape, b.shape)
    shape = _BROADCAST_CACHE.get(key)
    if shape is None:
        try:
            shape = np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise InvalidValueError(
                f"{name}: shapes {a.shape} and {b.shape} do not broadcast (NumPy rules: trailing dimensions "
                "must be equal or 1)"
            ) from None
        _BROADCAST_CACHE[key] = shape
    return shape


def _binary(name: str, a: Tensor, b: Tensor, ctx: Context | None, stream: Stream | None) -> Tensor:
    context, s = _resolve(name, (a, b), ctx, stream)
    if a.dtype != b.dtype:
        raise InvalidValueError(
            f"{name}: dtypes differ: {a.dtype.name} {a.shape} and {b.dtype.name} {b.shape}; both inputs must "
            "have one dtype"
        )
    out = new_tensor(context, _broadcast(name, a, b), a.dtype, MemoryType.DEVICE)
    context.backend.launch_op(s.queue, name, (a, b), out)
    return out


def _unary(name: str, a: Tensor, ctx: Context | None, stream: Stream | None) -> Tensor:
    context, s = _resolve(name, (a,), ctx, stream)
    out = new_tensor(context, a.shape, a.dtype, MemoryType.DEVICE)
    context.backend.launch_op(s.queue, name, (a,), out)
    return out


@api
def add(a: Tensor, b: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-01: ``a + b`` with NumPy broadcasting."""
    return _binary("add", a, b, ctx, stream)


@api
def mul(a: Tensor, b: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-01: ``a * b`` with NumPy broadcasting."""
    return _binary("mul", a, b, ctx, stream)


@api
def relu(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-01, R-3.6.1-03: ``max(a, 0)`` (NaN stays NaN)."""
    return _unary("relu", a, ctx, stream)
