"""R-3.2.1-04: copies between the memories of two devices over a peer path, and what path a pair has."""

from __future__ import annotations

from wia_hal.context import Context, check_context
from wia_hal.devices import Device, check_device
from wia_hal.enums import MemoryType
from wia_hal.errors import InvalidContextError, InvalidValueError, NotSupportedError, api
from wia_hal.models import PeerInfo
from wia_hal.runtime import runtime
from wia_hal.streams import Stream, check_stream, stream_for
from wia_hal.tensor import Tensor, check_tensor, contiguous, new_tensor


def _pair(src_device: object, dst_device: object, call: str) -> tuple[Device, Device]:
    src, dst = check_device(src_device), check_device(dst_device)
    if src is dst:
        raise InvalidValueError(
            f"{call}: source and destination are the same device ({src!r}); a copy within one "
            "device is copy_async or the copy op"
        )
    return src, dst


@api
def get_peer_info(src_device: Device, dst_device: Device) -> PeerInfo:
    """How data moves from ``src_device`` to ``dst_device``: whether ``copy_peer_to_peer`` works for the pair, over
    which path (direct link, switch, several hops, or only through host memory), at what bandwidth and latency."""
    src, dst = _pair(src_device, dst_device, "get_peer_info")
    return src.backend.peer_info(src.index, dst.index)


def _destination(dst: Device, stream: Stream | None, ctx: Context | None) -> Stream:
    """The stream the copy is ordered on at the destination: ``stream``, else ``ctx``'s current stream, else the
    newest live context's on ``dst``."""
    if stream is not None:
        stream = check_stream(stream)
        if ctx is not None and stream.context is not check_context(ctx):
            raise InvalidContextError(f"copy_peer_to_peer: {stream!r} belongs to another context than {ctx!r}")
        ctx = stream.context
    elif ctx is not None:
        ctx = check_context(ctx)
    else:
        ctx = next((c for c in reversed(runtime().contexts) if c.device is dst and not c.destroyed), None)
        if ctx is None:
            raise InvalidContextError(
                f"copy_peer_to_peer: no live context on {dst!r} to own the copy; create one first"
            )
    if ctx.device is not dst:
        raise InvalidContextError(f"copy_peer_to_peer: {ctx!r} is on {ctx.device!r}, not on {dst!r}")
    return stream_for(ctx, stream)


@api
def copy_peer_to_peer(
    src_device: Device,
    dst_device: Device,
    tensor: Tensor,
    *,
    stream: Stream | None = None,
    ctx: Context | None = None,
) -> Tensor:
    """A copy of ``tensor`` (DEVICE memory on ``src_device``) in the memory of ``dst_device``, moved over the
    pair's peer path (:func:`get_peer_info`). Asynchronous and stream-ordered: after the work enqueued so far on
    the tensor's context's current stream and on the destination stream, before the work enqueued later on either.
    The destination: ``stream`` (and its context), else ``ctx``'s current stream, else the newest live context on
    ``dst_device``. ``NOT_SUPPORTED`` unless both devices claim ``supports_peer_to_peer`` and the pair has a peer
    path."""
    call = "copy_peer_to_peer"
    src_dev, dst_dev = check_device(src_device), check_device(dst_device)
    t = check_tensor(tensor)
    if t.memory.context.device is not src_dev:
        raise InvalidValueError(f"{call}: {t!r} is not on {src_dev!r}")
    for device in (src_dev, dst_dev):
        if not device.capabilities.supports_peer_to_peer:
            raise NotSupportedError(
                f"{call}: {device.info.name} (device {device.index}) does not claim supports_peer_to_peer on the "
                f"{device.backend.name!r} backend; copy through the host instead (tensor.numpy(), then "
                "wia.tensor(..., ctx=a context of the destination))"
            )
    src, dst = _pair(src_dev, dst_dev, call)
    info = src.backend.peer_info(src.index, dst.index)
    if not info.supported:
        raise NotSupportedError(
            f"{call}: devices {src.index} and {dst.index} have no peer path (get_peer_info: path {info.path!r}); copy "
            "through the host instead (tensor.numpy(), then wia.tensor(..., ctx=a context of the destination))"
        )
    if t.memory_type is not MemoryType.DEVICE:
        raise InvalidValueError(f"{call}: {t!r} is in {t.memory_type.name} memory; peer copies move DEVICE memory")
    dst_stream = _destination(dst, stream, ctx)
    src_stream = stream_for(t.memory.context, None)
    packed = contiguous(t, src_stream)
    out = new_tensor(dst_stream.context, t.shape, t.dtype, MemoryType.DEVICE)
    try:
        packed.memory.used_by(src_stream)
        out.memory.used_by(dst_stream)
        t.memory.context.backend.copy_peer(src_stream.queue, packed.ref, dst_stream.queue, out.ref)
    except BaseException:
        out.release()
        raise
    return out
