"""Allocation per memory type, and copies between any two of them in a queue's order.

DEVICE, UNIFIED and MANAGED memory count against the device's global memory (CL_DEVICE_GLOBAL_MEM_SIZE, the
``memory_size`` reported), so a request past it is ``OUT_OF_MEMORY`` with the numbers, before the driver (which
may allocate lazily) is asked. Copies where both sides are host memory (HOST, PINNED, SVM) are a host ``memcpy``
after the queue's work; copies between a ``cl.Buffer`` and host memory are read/write-buffer commands, blocking for
pageable HOST memory and asynchronous otherwise; DEVICE to DEVICE is a copy-buffer command.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from wia_hal.backends.opencl.discovery import Features
from wia_hal.backends.opencl.handles import Buffer, Queue
from wia_hal.backends.opencl.status import checked, cl
from wia_hal.enums import MemoryType
from wia_hal.errors import OutOfMemoryError

_BUDGETED = frozenset({MemoryType.DEVICE, MemoryType.UNIFIED, MemoryType.MANAGED})


class Allocator:
    """Allocates and frees the buffers of one device. ``drain`` finishes every queue of the backend: host memory
    the device may still be copying from or to (PINNED, SVM) is only released after it."""

    def __init__(self, context: Any, features: Features, drain: Callable[[], None]) -> None:
        self.context = context
        self.features = features
        self.drain = drain
        self.in_use = 0
        with checked("create the allocator's queue"):
            self.queue = cl.CommandQueue(context)

    def allocate(self, nbytes: int, memory_type: MemoryType) -> Buffer:
        if memory_type in _BUDGETED:
            total = self.features.global_memory
            if self.in_use + nbytes > total:
                raise OutOfMemoryError(
                    f"OpenCL device out of memory: {nbytes} bytes requested, {self.in_use} of {total} bytes in use"
                )
            if nbytes > self.features.max_alloc:
                raise OutOfMemoryError(
                    f"OpenCL device: {nbytes} bytes requested in one allocation; the device allows at most "
                    f"{self.features.max_alloc} (CL_DEVICE_MAX_MEM_ALLOC_SIZE)"
                )
        doing = f"allocate {nbytes} bytes of {memory_type.name} memory"
        if memory_type is MemoryType.HOST:
            buffer = Buffer(memory_type, nbytes, host=np.zeros(nbytes, np.uint8))
        elif memory_type is MemoryType.DEVICE:
            with checked(doing):
                buffer = Buffer(memory_type, nbytes, mem=cl.Buffer(self.context, cl.mem_flags.READ_WRITE, nbytes))
        elif memory_type is MemoryType.PINNED:
            flags = cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR
            with checked(doing):
                pinned = cl.Buffer(self.context, flags, nbytes)
                access: Any = cl.map_flags.READ | cl.map_flags.WRITE
                mapping: Any = cl.enqueue_map_buffer(self.queue, pinned, access, 0, (nbytes,), np.dtype(np.uint8))
            buffer = Buffer(memory_type, nbytes, host=mapping[0], mapping=pinned)  # (array, event), as returned
        else:  # UNIFIED, MANAGED: fine-grain buffer SVM (claimed only where the device has it)
            flags = cl.svm_mem_flags.READ_WRITE | cl.svm_mem_flags.SVM_FINE_GRAIN_BUFFER
            with checked(doing):
                svm = cl.SVMAllocation(self.context, nbytes, 0, flags)
            host = svm.buf.view(np.uint8)
            host[:] = 0
            buffer = Buffer(memory_type, nbytes, mem=svm, host=host)
        if memory_type in _BUDGETED:
            self.in_use += nbytes
        return buffer

    def free(self, buffer: Buffer) -> None:
        if buffer.memory_type in _BUDGETED:
            self.in_use -= buffer.nbytes
        with checked(f"free {buffer.nbytes} bytes of {buffer.memory_type.name} memory"):
            if buffer.memory_type is MemoryType.DEVICE:
                buffer.mem.release()  # OpenCL keeps it until the commands using it have finished
            elif buffer.memory_type is MemoryType.PINNED:
                self.drain()
                view: Any = buffer.host
                view.base.release(self.queue)  # unmap
                self.queue.finish()
                buffer.mapping.release()
            elif buffer.memory_type is not MemoryType.HOST:
                self.drain()
                buffer.mem.release()
        buffer.mem = buffer.host = buffer.mapping = None


def _region(buffer: Buffer, offset: int, nbytes: int) -> np.ndarray:
    assert buffer.host is not None
    return buffer.host[offset : offset + nbytes]


def copy(queue: Queue, src: Buffer, src_offset: int, dst: Buffer, dst_offset: int, nbytes: int) -> None:
    """Enqueue ``nbytes`` from ``src`` to ``dst`` on ``queue`` (see the module's docstring for what blocks)."""
    q = queue.cl
    with checked(f"copy {nbytes} bytes from {src.memory_type.name} to {dst.memory_type.name} memory"):
        if src.host is not None and dst.host is not None:
            q.finish()
            _region(dst, dst_offset, nbytes)[:] = _region(src, src_offset, nbytes)
        elif src.host is None and dst.host is None:
            cl.enqueue_copy(q, dst.mem, src.mem, byte_count=nbytes, src_offset=src_offset, dst_offset=dst_offset)
        elif src.host is not None:
            event = cl.enqueue_copy(
                q, dst.mem, _region(src, src_offset, nbytes), dst_offset=dst_offset, is_blocking=src.pageable
            )
            queue.keep(event)
        else:
            event = cl.enqueue_copy(
                q, _region(dst, dst_offset, nbytes), src.mem, src_offset=src_offset, is_blocking=dst.pageable
            )
            queue.keep(event)
        queue.submit()


def upload(queue: Queue, dst: Buffer, offset: int, data: np.ndarray) -> None:
    """Blocking write of ``data`` after the queue's work."""
    with checked(f"upload {data.nbytes} bytes to {dst.memory_type.name} memory"):
        if dst.host is not None:
            queue.cl.finish()
            _region(dst, offset, data.nbytes)[:] = data
        else:
            cl.enqueue_copy(queue.cl, dst.mem, data, dst_offset=offset, is_blocking=True)


def download(queue: Queue, src: Buffer, offset: int, nbytes: int) -> np.ndarray:
    """Blocking read after the queue's work, into a new array."""
    with checked(f"download {nbytes} bytes from {src.memory_type.name} memory"):
        if src.host is not None:
            queue.cl.finish()
            return _region(src, offset, nbytes).copy()
        out = np.empty(nbytes, np.uint8)
        cl.enqueue_copy(queue.cl, out, src.mem, src_offset=offset, is_blocking=True)
        return out


__all__ = ["Allocator", "copy", "download", "upload"]
