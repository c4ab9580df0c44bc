"""The spec's enum constants (``WIA_MEMORY_DEVICE`` is ``MemoryType.DEVICE``)."""

from __future__ import annotations

import enum


class DeviceType(enum.IntEnum):
    GPU = 0
    NPU = 1
    TPU = 2
    CPU = 3
    FPGA = 4
    DSP = 5
    OTHER = 6


class MemoryType(enum.IntEnum):
    """SPEC 3.5.1: where memory lives and who can touch it."""

    DEVICE = 0
    HOST = 1
    PINNED = 2
    UNIFIED = 3
    MANAGED = 4

    @property
    def host_visible(self) -> bool:
        """Whether ``memory_ptr`` gives host access to memory of this type."""
        return self is not MemoryType.DEVICE

    @property
    def device_visible(self) -> bool:
        """Whether device work (ops, kernels) may read and write memory of this type directly."""
        return self in (MemoryType.DEVICE, MemoryType.UNIFIED, MemoryType.MANAGED)


class MemoryAccess(enum.StrEnum):
    """What a custom kernel may do with an allocation (``alloc(..., access=)``), as OpenCL's ``CL_MEM_READ_WRITE``,
    ``CL_MEM_READ_ONLY`` and ``CL_MEM_WRITE_ONLY``: a kernel that writes ``READ_ONLY`` memory or reads
    ``WRITE_ONLY`` memory is at fault (``INVALID_MEMORY`` on the simulator with kernel checks on; undefined on a
    device). It binds kernels only: the host (copies, uploads, ``memory_ptr``) and the op library still read and
    write the memory as they need."""

    READ_WRITE = "read_write"
    READ_ONLY = "read_only"
    WRITE_ONLY = "write_only"


class ContextFlags(enum.IntFlag):
    NONE = 0
    EXCLUSIVE = 1


class StreamFlags(enum.IntFlag):
    """**binding**: streams are independent in-order queues; ``DEFAULT`` and ``NON_BLOCKING`` behave alike
    because no stream synchronizes implicitly with another."""

    DEFAULT = 0
    NON_BLOCKING = 1


class ProfileFormat(enum.IntEnum):
    """What ``save_profile`` writes (``WIA_PROFILE_JSON``; **binding**: ``CHROME_TRACE``, a Chrome trace that
    ui.perfetto.dev and chrome://tracing open)."""

    JSON = 0
    CHROME_TRACE = 1


class FaultKind(enum.StrEnum):
    """What an injected fault does (the fault-injection extension, ``docs/faults.md``); the value is its name in
    ``WIA_FAULTS``."""

    DEVICE_LOST = "device_lost"
    ECC_ERROR = "ecc_error"
    OUT_OF_MEMORY = "out_of_memory"
    HANG = "hang"
    LINK_FAILURE = "link_failure"
