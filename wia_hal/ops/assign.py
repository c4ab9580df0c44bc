"""Writing into an existing tensor: ``copy_into``, how a decoder appends to a preallocated KV cache (a slice of
it is the destination). An extension of the spec's op library (docs/ops.md "Beyond the spec")."""

from __future__ import annotations

from wia_hal.context import Context
from wia_hal.errors import InvalidValueError, api
from wia_hal.ops.common import broadcast, output, resolve
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor, launch_into, launch_op


def _extent(t: Tensor) -> tuple[int, int]:
    """The bytes of its buffer ``t``'s elements span, first to last (strides are never negative)."""
    if t.size == 0:
        return t.offset, t.offset
    last = sum((n - 1) * s for n, s in zip(t.shape, t.strides, strict=True))
    return t.offset, t.offset + last + t.dtype.itemsize


def _overlap(a: Tensor, b: Tensor) -> bool:
    """Whether two tensors share bytes without being the same elements in the same places (a copy onto the very
    same layout is element by element, and safe)."""
    if a.memory.buffer is not b.memory.buffer or (a.offset, a.shape, a.strides) == (b.offset, b.shape, b.strides):
        return False
    (lo, hi), (lo2, hi2) = _extent(a), _extent(b)
    return lo < hi2 and lo2 < hi


@api
def copy_into(dst: Tensor, src: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """Write ``src`` (broadcast to ``dst``'s shape, the same dtype) into the existing tensor ``dst``, which may be a
    view (a slice of a preallocated KV cache), by the device's ``copy`` op in ``stream``'s order; returns ``dst``,
    whose producer is now this copy (``explain(dst)``). ``src`` overlapping ``dst``'s bytes is first copied aside,
    so the result is as if ``src`` were read whole before ``dst`` is written. On failure ``dst`` is unchanged."""
    context, s = resolve("copy_into", (dst, src), ctx, stream, ("dst", "src"))
    if src.dtype != dst.dtype:
        raise InvalidValueError(
            f"copy_into: src is {src.dtype.name} {src.shape}, dst is {dst.dtype.name} {dst.shape}; the dtypes must "
            "match (convert src first)"
        )
    if broadcast("copy_into", dst, src) != dst.shape:
        raise InvalidValueError(f"copy_into: src {src.shape} does not broadcast to dst's shape {dst.shape}")
    source = src
    if _overlap(src, dst):
        source = launch_op(context, s, "copy", (src,), output(context, src.shape, src.dtype))
    launch_into(context, s, "copy", (source,), dst)
    return dst


__all__ = ["copy_into"]
