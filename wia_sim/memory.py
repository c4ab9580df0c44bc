"""Buffers the machine owns."""

from __future__ import annotations

import bisect
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


def _range_start(r: tuple[int, int]) -> int:
    return r[0]


def _range_end(r: tuple[int, int]) -> int:
    return r[1]


_MAX_UNSET_RANGES = 1024
"""How many unwritten ranges a buffer's record may hold (keeps marking a write cheap)."""


class Buffer:
    """One allocation. ``data`` holds its bytes, or is ``None`` when the machine runs without numerics."""

    __slots__ = ("address", "data", "device", "freed", "kind", "nbytes", "residency", "unset")

    def __init__(self, device: int, kind: MemoryKind, nbytes: int, address: int | None, numerics: bool) -> None:
        self.device = device
        self.kind = kind
        self.nbytes = nbytes
        self.address = address
        self.data: np.ndarray | None = np.zeros(nbytes, dtype=np.uint8) if numerics else None
        self.freed = False
        self.residency: np.ndarray | None = None
        """Per-granule placement of UNIFIED and MANAGED data (see :mod:`wia_sim.migration`)."""
        self.unset: list[tuple[int, int]] | None = None
        """The byte ranges ``[lo, hi)`` nothing has written yet, sorted and disjoint, for the kernel checks'
        uninitialized-read finding; None (the fast path) once every byte was written, or when nobody tracks."""

    def mark_written(self, lo: int, hi: int) -> None:
        """Bytes ``[lo, hi)`` now hold data (written by a copy, an upload, an op, a kernel or the host)."""
        unset = self.unset
        if unset is None or hi <= lo:
            return
        # sorted and disjoint: the ranges that overlap [lo, hi) are unset[i:j] (two binary searches, one splice)
        i = bisect.bisect_right(unset, lo, key=_range_end)
        j = bisect.bisect_left(unset, hi, key=_range_start)
        if i >= j:
            return
        first, last = unset[i], unset[j - 1]
        pieces = [p for p in ((first[0], lo), (hi, last[1])) if p[0] < p[1]]
        unset[i:j] = pieces
        if not unset or len(unset) > _MAX_UNSET_RANGES:  # (scattered writes: stop tracking, missing findings only)
            self.unset = None

    def initialized(self, lo: int, hi: int) -> np.ndarray | None:
        """One flag per byte of ``[lo, hi)``: whether it holds data; None when every one does."""
        if self.unset is None:
            return None
        flags: np.ndarray | None = None
        for a, b in self.unset:
            a, b = max(a, lo), min(b, hi)
            if a < b:
                if flags is None:
                    flags = np.ones(hi - lo, dtype=bool)
                flags[a - lo : b - lo] = False
        return flags

    def mark_flags(self, lo: int, flags: np.ndarray) -> None:
        """Mark written every run of set ``flags`` (one per byte from ``lo``)."""
        if self.unset is None:
            return
        hi = lo + flags.size
        kept: list[tuple[int, int]] = []
        for a, b in self.unset:
            if b <= lo or a >= hi:
                kept.append((a, b))
                continue
            if a < lo:
                kept.append((a, lo))
            c, d = max(a, lo), min(b, hi)
            # the runs of unset flags inside [c, d): what is still unwritten there
            runs = np.flatnonzero(np.diff(np.concatenate(([1], flags[c - lo : d - lo], [1])).astype(np.int8)))
            kept.extend((c + int(s), c + int(e)) for s, e in zip(runs[::2], runs[1::2], strict=True))
            if b > hi:
                kept.append((hi, b))
        self.unset = kept if kept and len(kept) <= _MAX_UNSET_RANGES else None
