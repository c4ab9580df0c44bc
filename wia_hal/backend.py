"""The one protocol every backend implements.

The HAL front end owns everything that is the same on every backend: argument validation, handles, tensors,
context limits, error details. A backend implements only these narrow hooks and may assume their arguments are
valid (live, same device, in range). Handles it returns are opaque to the HAL.

A backend raises ``WiaError`` subclasses for conditions only it can see (``OutOfMemoryError`` when the device is
full, ``NotSupportedError``); it maps its native status codes to ``ErrorCode`` in one place.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from wia_hal.enums import MemoryType
from wia_hal.errors import NotSupportedError
from wia_hal.models import DeviceCapabilities, DeviceInfo, OpReport

BufferHandle = Any
QueueHandle = Any
MarkerHandle = Any
OpRecordHandle = Any


class TensorRef:
    """A strided, typed region of a buffer: what an op reads or writes. ``cache`` is the backend's to use."""

    __slots__ = ("buffer", "cache", "dtype", "offset", "shape", "strides")

    def __init__(
        self,
        buffer: BufferHandle,
        offset: int,
        shape: tuple[int, ...],
        strides: tuple[int, ...],
        dtype: np.dtype,
    ) -> None:
        self.buffer = buffer
        self.offset = offset
        self.shape = shape
        self.strides = strides
        self.dtype = dtype
        self.cache: Any = None


class Backend(ABC):
    """One implementation of WIA-AI-011. Constructed with its options (strings from the environment, or the
    keyword arguments of ``set_backend``); raises ``InvalidValueError`` for a bad option."""

    name: ClassVar[str]
    ops: ClassVar[frozenset[str]] = frozenset()
    """Built-in ops this backend runs (``launch_op`` names)."""

    @property
    def numerics(self) -> bool:
        """Whether memory holds data. A timing-only backend keeps sizes and time but computes nothing."""
        return True

    # discovery
    @abstractmethod
    def device_count(self) -> int: ...

    @abstractmethod
    def device_info(self, device: int) -> DeviceInfo: ...

    @abstractmethod
    def device_capabilities(self, device: int) -> DeviceCapabilities: ...

    def host_call(self) -> None:  # noqa: B027 (optional hook)
        """An API call that reaches no other hook (creating an event, querying info): a simulator charges it."""

    # memory
    @abstractmethod
    def allocate(self, device: int, nbytes: int, memory_type: MemoryType) -> BufferHandle: ...

    @abstractmethod
    def free(self, buffer: BufferHandle) -> None: ...

    @abstractmethod
    def host_view(self, buffer: BufferHandle) -> np.ndarray:
        """A writable ``uint8`` view of host-visible memory."""

    # queues and transfers
    @abstractmethod
    def create_queue(self, device: int) -> QueueHandle: ...

    @abstractmethod
    def destroy_queue(self, queue: QueueHandle) -> None:
        """Called after the queue's work is complete."""

    @abstractmethod
    def copy(
        self, queue: QueueHandle, src: BufferHandle, src_offset: int, dst: BufferHandle, dst_offset: int, nbytes: int
    ) -> None:
        """Enqueue a copy; it may block the host where the hardware would (pageable memory)."""

    def prefetch(self, queue: QueueHandle, buffer: BufferHandle, offset: int, nbytes: int, to_device: bool) -> None:  # noqa: B027
        """Move UNIFIED/MANAGED data to the device (or the host) in ``queue``'s order: a hint, ignored by default."""

    @abstractmethod
    def upload(self, queue: QueueHandle, dst: BufferHandle, offset: int, data: np.ndarray) -> None:
        """Blocking write of the host array's bytes (from pageable user memory) after the queue's work."""

    @abstractmethod
    def download(self, queue: QueueHandle, src: BufferHandle, offset: int, nbytes: int) -> np.ndarray:
        """Blocking read into pageable user memory after the queue's work; a ``uint8`` array."""

    @abstractmethod
    def launch_op(
        self,
        queue: QueueHandle,
        name: str,
        inputs: Sequence[TensorRef],
        output: TensorRef,
        attrs: Mapping[str, Any],
    ) -> OpRecordHandle:
        """Enqueue the built-in op ``name`` (one of :attr:`ops`) writing ``output``.

        ``attrs`` are the op's validated parameters (axis, perm, conv geometry, algorithm, precision, ...; see
        ``docs/ops.md``). Returns a record of the launch for :meth:`explain`, or None.
        """

    # Level 3: a backend that claims supports_custom_kernels / supports_peer_to_peer implements these

    def compile_kernel(self, device: int, source: str, name: str, options: str) -> tuple[Any, int]:
        """Build kernel ``name``: its handle and its number of arguments (``CompileError``, ``InvalidKernelError``)."""
        raise NotSupportedError(f"the {self.name!r} backend does not compile kernels")

    def check_kernel_arg(self, kernel: Any, index: int, value: Any) -> None:
        """``INVALID_VALUE`` when ``value`` does not fit argument ``index`` (a scalar for a buffer, ...)."""
        raise NotSupportedError(f"the {self.name!r} backend does not compile kernels")

    def launch_kernel(self, queue: QueueHandle, kernel: Any, args: Sequence[Any], config: Any) -> OpRecordHandle:
        """Enqueue the kernel with its arguments and a checked ``LaunchConfig``; a record for :meth:`explain`."""
        raise NotSupportedError(f"the {self.name!r} backend does not run kernels")

    def copy_peer(self, src: TensorRef, dst: TensorRef) -> None:
        """Copy between two devices' memory directly (peer-to-peer)."""
        raise NotSupportedError(f"the {self.name!r} backend does not copy between devices")

    def explain(self, record: OpRecordHandle) -> OpReport:
        """What an op cost and why (an optional extension: a simulator can say, hardware usually cannot)."""
        raise NotSupportedError(f"the {self.name!r} backend does not explain its ops")

    # ordering and time
    @abstractmethod
    def record(self, queue: QueueHandle) -> MarkerHandle:
        """A marker after everything enqueued so far on ``queue``."""

    @abstractmethod
    def wait_marker(self, queue: QueueHandle, marker: MarkerHandle) -> None:
        """Work enqueued on ``queue`` from now on starts only after ``marker`` completes."""

    @abstractmethod
    def synchronize(self, queue: QueueHandle, timeout_ms: float | None) -> bool:
        """Block until the queue is idle; False if ``timeout_ms`` passed first."""

    @abstractmethod
    def wait(self, marker: MarkerHandle, timeout_ms: float | None) -> bool:
        """Block until the marker completes; False if ``timeout_ms`` passed first."""

    @abstractmethod
    def query(self, marker: MarkerHandle) -> bool:
        """Whether the marker has completed, without blocking."""

    @abstractmethod
    def elapsed_ms(self, start: MarkerHandle, end: MarkerHandle) -> float:
        """Device time between two completed markers."""

    def close(self) -> None:  # noqa: B027 (optional hook)
        """Release the backend (called when another backend is selected)."""
