"""The backend's handles: buffers, queues, markers and compiled kernels (the HAL stores them unopened)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wia_hal.backend import KernelSignature
from wia_hal.enums import MemoryType


@dataclass(eq=False)
class Buffer:
    """One allocation, by memory type:

    - DEVICE: ``mem`` is a ``cl.Buffer``; no host array.
    - HOST: ``host`` is a NumPy array (pageable memory: transfers with it block the host, as a driver's staging
      through a bounce buffer does).
    - PINNED: a ``CL_MEM_ALLOC_HOST_PTR`` buffer kept mapped; ``host`` is the mapping, which the driver can copy
      from asynchronously. ``mapping`` is what to unmap.
    - UNIFIED, MANAGED: fine-grain buffer SVM; ``mem`` is the ``cl.SVMAllocation`` (kernels take it as a pointer)
      and ``host`` the same memory as a NumPy array: host and device see each other's writes at synchronization.
    """

    memory_type: MemoryType
    nbytes: int
    mem: Any = None
    host: np.ndarray | None = None
    mapping: Any = None

    @property
    def device_visible(self) -> bool:
        """Kernels can take it (a ``cl.Buffer`` or an SVM pointer)."""
        return self.mem is not None

    @property
    def pageable(self) -> bool:
        return self.memory_type is MemoryType.HOST


@dataclass(eq=False)
class Queue:
    """An in-order command queue with profiling. ``pending`` keeps the events of asynchronous host transfers until
    they complete: PyOpenCL waits for such an event when it is collected, which would make the copy blocking.

    ``deferred``: the device runs commands in the host thread when the queue is flushed (Oclgrind), so commands
    are not flushed when enqueued but run when the host waits for them: enqueueing returns at once, as on a device
    that runs beside the host."""

    cl: Any
    deferred: bool = False
    pending: list[Any] = field(default_factory=list)

    def keep(self, event: Any) -> None:
        self.pending = [e for e in self.pending if not _complete(e)]
        self.pending.append(event)

    def submit(self) -> None:
        """Start what was enqueued (``clFlush``), unless the device would run it here and now."""
        if not self.deferred:
            self.cl.flush()


def _complete(event: Any) -> bool:
    return int(event.command_execution_status) <= 0


@dataclass(eq=False)
class Marker:
    """A marker command of ``queue``: complete when everything enqueued before it is. ``polled``: a query found it
    pending (on a deferred queue the next query lets the device run, so that a polling loop makes progress)."""

    event: Any
    queue: Queue
    polled: bool = False


@dataclass(eq=False)
class CompiledKernel:
    """A custom kernel: the driver's kernel object, its signature and its static ``__local`` memory (bytes)."""

    kernel: Any
    signature: KernelSignature
    local_bytes: int


__all__ = ["Buffer", "CompiledKernel", "Marker", "Queue"]
