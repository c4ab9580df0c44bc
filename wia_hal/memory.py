"""SPEC 3.5.1 and R-3.4-03: allocations of the five memory types, host access, copies between them."""

from __future__ import annotations

import collections
import contextlib
from typing import TYPE_CHECKING

import numpy as np

from wia_hal.enums import MemoryAccess, MemoryType
from wia_hal.errors import (
    ErrorDetails,
    InvalidMemoryError,
    InvalidValueError,
    NotSupportedError,
    WiaError,
    api,
)
from wia_hal.streams import Stream, stream_for

if TYPE_CHECKING:
    from wia_hal.context import Context
    from wia_hal.pool import MemoryPool

_CAPABILITY = {
    MemoryType.PINNED: "supports_pinned_memory",
    MemoryType.UNIFIED: "supports_unified_memory",
    MemoryType.MANAGED: "supports_managed_memory",
}


class Memory:
    """One allocation of a context (R-3.5.1-01): ``size`` bytes at ``offset`` in a backend buffer. Create with
    :func:`alloc`, or :func:`alloc_from_pool` (then ``pool`` is the pool it came from and ``offset`` its place in
    one of the pool's segments)."""

    __slots__ = (
        "__weakref__",
        "access",
        "buffer",
        "context",
        "fences",
        "freed",
        "lost",
        "offset",
        "pool",
        "segment",
        "size",
        "streams",
        "tensor",
        "type",
    )

    def __init__(
        self,
        context: Context,
        buffer: object,
        size: int,
        memory_type: MemoryType,
        offset: int = 0,
        pool: MemoryPool | None = None,
        segment: bool = False,
    ) -> None:
        self.context = context
        self.buffer = buffer
        self.size = size
        self.type = memory_type
        self.offset = offset
        self.pool = pool
        self.segment = segment
        """A pool's segment: held from the device, but in use only as far as the pool's blocks in it are."""
        self.streams: set[Stream] | None = None
        """A pool block's: the streams that enqueued work on it (see :meth:`used_by`)."""
        self.fences: list[tuple[Stream, object]] = []
        """A pool block's: markers after the work of the block's previous owners that may still be pending (the
        pool reuses memory at once, as a stream-ordered allocator does, and orders the new owner's streams after
        these instead)."""
        self.freed = False
        self.lost = False
        """Released by ``reset_device``: device memory does not survive a reset."""
        self.tensor = False
        """Holds a tensor's data (``t.memory``): released with the tensor, never by ``free``."""
        self.access = MemoryAccess.READ_WRITE
        """What a custom kernel may do with it (``alloc(..., access=)``); the host and ops are not bound by it."""

    def __repr__(self) -> str:
        state = " lost" if self.lost else " freed" if self.freed else ""
        owner = " of a tensor" if self.tensor else ""
        return f"<wia.Memory{state} {self.type.name} {self.size} bytes{owner}>"

    def check_not_tensor_data(self, function: str) -> None:
        """A tensor's memory is the tensor's to release: freeing it under the tensor would leave the tensor pointing
        at memory that is reused."""
        if self.tensor:
            raise InvalidMemoryError(
                f"{function}: {self!r} holds a tensor's data (tensor.memory) and is released with the tensor: "
                "release_tensor(t), or when t is no longer referenced; free only memory from alloc or alloc_from_pool"
            )

    def _record_error(self, details: ErrorDetails) -> None:
        self.context.last_error = details

    def used_by(self, stream: Stream) -> None:
        """Work on ``stream`` is about to touch this memory: for a pool block, the stream first waits for the work
        of the block's previous owners on other streams (its fences), so that reuse never races with it."""
        capture = self.context.capture
        if capture is not None:  # a graph records the work: it must hold what the work touches
            capture.uses(self)
        if self.pool is None:
            return
        streams = self.streams
        if streams is None:
            streams = self.streams = set()
        elif stream in streams:
            return
        for other, marker in self.fences:
            if other is not stream:
                self.context.backend.wait_marker(stream.queue, marker)
        streams.add(stream)

    def release(self) -> None:
        """Give the memory back (once: the garbage collector may finalise a tensor, which releases its memory, in
        the middle of a context's teardown that is releasing everything)."""
        if self.freed:
            return
        self.freed = True  # first: a finaliser run by the backend's call below must find it released
        if self.pool is not None:
            self.pool.release_block(self)
            return
        ctx = self.context
        del ctx.memories[id(self)]
        if not self.segment:
            ctx.in_use(-self.size)
        ctx.unreserve(self.size)
        ctx.backend.free(self.buffer)
        ctx.memory_changed()


_orphans: collections.deque[Memory] = collections.deque()
"""Memory of tensors dropped where it could not be released at once (on another thread, or inside a public call)."""


def orphan(memory: Memory) -> None:
    """Leave ``memory`` for :func:`release_orphans` (the next allocation, finaliser or ``memory_gc``)."""
    _orphans.append(memory)


def release_orphans() -> None:
    """Release the memory of tensors that were dropped on another thread or inside a public call."""
    while _orphans:
        memory = _orphans.popleft()
        if not memory.freed and not memory.context.destroyed:
            with contextlib.suppress(WiaError):
                memory.release()


def check_memory(mem: object, ctx: Context | None = None) -> Memory:
    """A live allocation (of ``ctx`` when given); freed, destroyed or foreign memory is ``INVALID_MEMORY``."""
    if not isinstance(mem, Memory):
        raise InvalidValueError(f"expected a wia Memory (from alloc), got {type(mem).__name__}")
    if mem.freed:
        if mem.lost:
            raise InvalidMemoryError(lost_at_reset(mem))
        gone = " with its destroyed memory pool" if mem.pool is not None and mem.pool.destroyed else ""
        raise InvalidMemoryError(f"{mem!r} was freed{gone} (use after free)")
    if mem.context.destroyed:
        raise InvalidMemoryError(f"{mem!r} belonged to a context that was destroyed")
    if mem.context.runtime.lost:
        mem.context.runtime.check_alive(mem.context.device.index)
    if ctx is not None and mem.context is not ctx:
        raise InvalidMemoryError(f"{mem!r} belongs to another context ({mem.context!r}, not {ctx!r})")
    return mem


def lost_at_reset(mem: Memory) -> str:
    return (
        f"{mem!r} was lost when device {mem.context.device.index} was reset (reset_device): {mem.type.name} memory "
        "does not survive a reset; allocate it again (and copy its data back from the host)"
    )


def memory_type_of(value: object) -> MemoryType:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidValueError(f"expected a MemoryType, got {type(value).__name__} {value!r}")
    try:
        return MemoryType(value)
    except ValueError:
        raise InvalidValueError(f"{value!r} is not a MemoryType ({', '.join(t.name for t in MemoryType)})") from None


def access_of(value: object, function: str) -> MemoryAccess:
    """``value`` as a ``MemoryAccess`` (its member or its value, ``"read_only"``), else ``INVALID_VALUE``."""
    if isinstance(value, MemoryAccess):
        return value
    try:
        if not isinstance(value, str):
            raise ValueError(value)
        return MemoryAccess(value)
    except ValueError:
        names = ", ".join(a.name for a in MemoryAccess)
        raise InvalidValueError(f"{function}: access must be a MemoryAccess ({names}), got {value!r}") from None


def allocate(ctx: Context, nbytes: int, memory_type: MemoryType, segment: bool = False) -> Memory:
    """Allocate for the HAL's own use (tensors, a pool's ``segment``): checks capability and limit; no size rules
    beyond ``>= 0``."""
    flag = _CAPABILITY.get(memory_type)
    if flag is not None and not getattr(ctx.device.capabilities, flag):
        raise NotSupportedError(f"{ctx.device.info.name} does not support {memory_type.name} memory ({flag} is False)")
    ctx.reserve(nbytes)
    try:
        buffer = ctx.backend.allocate(ctx.device.index, nbytes, memory_type)
    except BaseException:
        ctx.unreserve(nbytes)
        raise
    mem = Memory(ctx, buffer, nbytes, memory_type, segment=segment)
    ctx.memories[id(mem)] = mem
    if not segment:
        ctx.in_use(nbytes)
    ctx.memory_changed()
    return mem


@api
def free(mem: Memory) -> None:
    """R-3.5.1-01; a second free is ``INVALID_MEMORY`` (R-3.5.1-06)."""
    if isinstance(mem, Memory) and mem.freed and not mem.lost:
        raise InvalidMemoryError(f"free: {mem!r} was already freed (double free)")
    mem = check_memory(mem)
    mem.check_not_tensor_data("free")
    if mem.pool is not None:
        raise InvalidMemoryError(f"free: {mem!r} came from a memory pool; return it with free_to_pool(pool, mem)")
    mem.release()


@api
def memory_ptr(mem: Memory) -> np.ndarray:
    """R-3.5.1-02: a writable ``uint8`` view of host-visible memory; DEVICE memory is ``INVALID_VALUE``."""
    mem = check_memory(mem)
    if not mem.type.host_visible:
        raise InvalidValueError("memory_ptr: DEVICE memory is not host-accessible; copy it to HOST or PINNED memory")
    backend = mem.context.backend
    if not backend.numerics:
        raise InvalidValueError(
            "memory_ptr: the memory holds no bytes: the backend runs in timing-only mode (numerics=False), which "
            "keeps sizes and time but no data; run with numerics=True to read or write memory"
        )
    return backend.host_view(mem.buffer)[mem.offset : mem.offset + mem.size]


def _offset(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InvalidValueError(f"copy_async: {name} must be a non-negative int, got {value!r}")
    return int(value)


@api
def copy_async(
    src: Memory, dst: Memory, size: int, stream: Stream | None = None, *, src_offset: int = 0, dst_offset: int = 0
) -> None:
    """R-3.4-03: copy ``size`` bytes from ``src`` to ``dst`` (source first) in ``stream``'s order.

    Any pair of memory types. Copies from or to pageable HOST memory return only when the data has moved (the
    driver stages them), as ``cudaMemcpyAsync`` from pageable memory does; all others return at once.
    """
    src_mem = check_memory(src)
    ctx = src_mem.context
    dst_mem = check_memory(dst, ctx)
    queue_stream = stream_for(ctx, stream)
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size <= 0:
        raise InvalidValueError(f"copy_async: size must be a positive int number of bytes, got {size!r}")
    so, do = _offset("src_offset", src_offset), _offset("dst_offset", dst_offset)
    for name, mem, offset in (("source", src_mem, so), ("destination", dst_mem, do)):
        if offset + size > mem.size:
            raise InvalidValueError(
                f"copy_async: {size} bytes at offset {offset} overrun the {name} ({mem.size} bytes)"
            )
    src_mem.used_by(queue_stream)
    dst_mem.used_by(queue_stream)
    ctx.backend.copy(
        queue_stream.queue, src_mem.buffer, src_mem.offset + so, dst_mem.buffer, dst_mem.offset + do, int(size)
    )


@api
def memory_prefetch(mem: Memory, to_device: bool = True, stream: Stream | None = None) -> None:
    """Move UNIFIED or MANAGED memory to the device (or back to the host) ahead of use, in ``stream``'s order, as
    ``cudaMemPrefetchAsync`` does: one bulk transfer instead of a fault per page on first touch. A hint: other
    memory types are left as they are."""
    mem = check_memory(mem)
    if not isinstance(to_device, bool):
        raise InvalidValueError(f"memory_prefetch: to_device must be a bool, got {to_device!r}")
    queue_stream = stream_for(mem.context, stream)
    mem.context.backend.prefetch(queue_stream.queue, mem.buffer, mem.offset, mem.size, to_device)
