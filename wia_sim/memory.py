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
        i, j = self._overlapping(lo, hi)  # (one splice)
        if i >= j:
            return
        first, last = unset[i], unset[j - 1]
        pieces = [p for p in ((first[0], lo), (hi, last[1])) if p[0] < p[1]]
        unset[i:j] = pieces
        if not unset or len(unset) > _MAX_UNSET_RANGES:  # (scattered writes: stop tracking, missing findings only)
            self.unset = None

    def _overlapping(self, lo: int, hi: int) -> tuple[int, int]:
        """The unwritten ranges that overlap ``[lo, hi)``: ``unset[i:j]`` (sorted and disjoint: two binary
        searches)."""
        assert self.unset is not None
        return bisect.bisect_right(self.unset, lo, key=_range_end), bisect.bisect_left(self.unset, hi, key=_range_start)

    def initialized(self, lo: int, hi: int) -> np.ndarray | None:
        """One flag per byte of ``[lo, hi)``: whether it holds data; None when every one does."""
        if self.unset is None:
            return None
        i, j = self._overlapping(lo, hi)
        if i >= j:
            return None
        return ~_covered(self.unset[i:j], lo, hi)

    def mark_flags(self, lo: int, flags: np.ndarray) -> None:
        """Mark written every run of set ``flags`` (one per byte from ``lo``): a kernel's stores, in passes over
        the bytes (a scattered output leaves a range per element between its writes: up to ``_MAX_UNSET_RANGES``,
        and a walk over them in Python cost milliseconds a launch)."""
        unset = self.unset
        if unset is None or not flags.any():  # (a kernel that stored nothing here: nothing to split)
            return
        hi = lo + flags.size
        i, j = self._overlapping(lo, hi)
        if i >= j:
            return
        still = _covered(unset[i:j], lo, hi) & ~flags.astype(bool, copy=False)  # what is still unwritten in there
        edges = _edges(still)
        first, last = unset[i], unset[j - 1]
        kept = unset[:i] + ([(first[0], lo)] if first[0] < lo else [])
        kept += zip((edges[::2] + lo).tolist(), (edges[1::2] + lo).tolist(), strict=True)
        kept += ([(hi, last[1])] if last[1] > hi else []) + unset[j:]
        self.unset = kept if kept and len(kept) <= _MAX_UNSET_RANGES else None


def _covered(ranges: list[tuple[int, int]], lo: int, hi: int) -> np.ndarray:
    """One flag per byte of ``[lo, hi)``: whether one of ``ranges`` (sorted, disjoint) covers it."""
    edges = np.clip(np.asarray(ranges, np.int64).reshape(-1), lo, hi) - lo  # start, end, start, end, ...
    lengths = np.diff(edges, prepend=0, append=hi - lo)  # uncovered, covered, uncovered, ..., uncovered
    return np.repeat(np.arange(lengths.size) % 2 == 1, lengths)


def _edges(flags: np.ndarray) -> np.ndarray:
    """Where each run of set ``flags`` starts and ends (past its last), in turn: start, end, start, end, ... (one
    comparison of neighbouring bytes: a difference of the flags as integers would widen a buffer's worth of them)."""
    edges = np.flatnonzero(flags[1:] != flags[:-1]) + 1
    if flags.size and flags[0]:
        edges = np.concatenate(([0], edges))
    if flags.size and flags[-1]:
        edges = np.concatenate((edges, [flags.size]))
    return edges
