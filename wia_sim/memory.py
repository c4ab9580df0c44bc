"""Buffers the machine owns and typed views over them."""

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

    __slots__ = ("address", "data", "device", "freed", "kind", "nbytes")

    def __init__(self, device: int, kind: MemoryKind, nbytes: int, address: int | None, numerics: bool) -> None:
        self.device = device
        self.kind = kind
        self.nbytes = nbytes
        self.address = address
        self.data: np.ndarray | None = np.zeros(nbytes, dtype=np.uint8) if numerics else None
        self.freed = False


class ArrayRef:
    """A strided, typed view of part of a buffer: what an op reads or writes."""

    __slots__ = ("_view", "buffer", "dtype", "offset", "shape", "strides")

    def __init__(
        self, buffer: Buffer, offset: int, shape: tuple[int, ...], strides: tuple[int, ...], dtype: np.dtype
    ) -> None:
        self.buffer = buffer
        self.offset = offset
        self.shape = shape
        self.strides = strides
        self.dtype = dtype
        self._view: np.ndarray | None = None

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    def array(self) -> np.ndarray:
        """The live NumPy view (requires numerics)."""
        view = self._view
        if view is None:
            data = self.buffer.data
            assert data is not None, "array() needs a machine with numerics"
            view = np.ndarray(self.shape, self.dtype, data, self.offset, self.strides)
            self._view = view
        return view
