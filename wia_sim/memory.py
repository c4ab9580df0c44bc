"""Buffers the machine owns."""

from __future__ import annotations

import enum

import numpy as np


class MemoryKind(enum.Enum):
    """Where a buffer lives, as the machine sees it (the HAL's memory types map onto these one to one)."""

    DEVICE = "device"
    HOST = "host"  # pageable: transfers are staged through a bounce buffer
    PINNED = "pinned"  # page-locked: DMA at the link's full rate
    UNIFIED = "unified"
    MANAGED = "managed"

    @property
    def on_host(self) -> bool:
        return self is not MemoryKind.DEVICE


class Buffer:
    """One allocation. ``data`` holds its bytes, or is ``None`` when the machine runs without numerics."""

    __slots__ = ("address", "data", "device", "freed", "kind", "nbytes", "residency")

    def __init__(self, device: int, kind: MemoryKind, nbytes: int, address: int | None, numerics: bool) -> None:
        self.device = device
        self.kind = kind
        self.nbytes = nbytes
        self.address = address
        self.data: np.ndarray | None = np.zeros(nbytes, dtype=np.uint8) if numerics else None
        self.freed = False
        self.residency: np.ndarray | None = None
        """Per-granule placement of UNIFIED and MANAGED data (see :mod:`wia_sim.migration`)."""
