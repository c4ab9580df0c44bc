"""R-3.2.1-04: copies between the memories of two devices, moved directly (peer-to-peer)."""

from __future__ import annotations

from wia_hal.devices import Device, check_device
from wia_hal.enums import MemoryType
from wia_hal.errors import InvalidContextError, InvalidValueError, NotSupportedError, api
from wia_hal.runtime import runtime
from wia_hal.tensor import Tensor, check_tensor, new_tensor


@api
def copy_peer_to_peer(src_device: Device, dst_device: Device, tensor: Tensor) -> Tensor:
    """A copy of ``tensor`` (on ``src_device``) in the memory of ``dst_device``, owned by the newest live context
    on that device; ``NOT_SUPPORTED`` unless both devices claim ``supports_peer_to_peer``."""
    src, dst = check_device(src_device), check_device(dst_device)
    t = check_tensor(tensor)
    if t.memory.context.device is not src:
        raise InvalidValueError(f"copy_peer_to_peer: {t!r} is not on {src!r}")
    for device in (src, dst):
        if not device.capabilities.supports_peer_to_peer:
            raise NotSupportedError(
                f"copy_peer_to_peer: {device.info.name} does not claim supports_peer_to_peer on the "
                f"{device.backend.name!r} backend"
            )
    owner = next((c for c in reversed(runtime().contexts) if c.device is dst), None)
    if owner is None:
        raise InvalidContextError(f"copy_peer_to_peer: no live context on {dst!r} to own the copy; create one first")
    copy = new_tensor(owner, t.shape, t.dtype, MemoryType.DEVICE)
    owner.backend.copy_peer(t.ref, copy.ref)
    return copy
