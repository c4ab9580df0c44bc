"""What a device's last-level cache holds between kernels, and what that saves the next kernel.

Real caches are physically addressed: a kernel that reads bytes an earlier kernel read or wrote, while they are
still cached, reads them at the cache's bandwidth instead of device memory's (a chain of small element-wise ops
whose tensors fit in L2, or gpu-benches' back-to-back kernels over two arrays, stream at 2-3× DRAM's rate). The
model keeps the device-memory address ranges kernels touched, least recently used first, up to
``memory.last_level_cache`` bytes; writes allocate (NVIDIA's and AMD's L2 are write-back). Only a model that gives
``memory.cache_bandwidth`` has one. Copies and host access are not tracked: a copy neither fills nor invalidates
the model's cache.

A kernel streams its ranges together, interleaved, in address order. Under LRU a byte it re-reads hits only if
fewer than the cache's size of other bytes were touched since its last use; for a kernel that streams through
data touched last by an earlier streaming kernel in the same order, that reuse distance is about the larger of the
two kernels' footprints. So a kernel whose own footprint exceeds the cache finds nothing of its inputs cached (it
evicts them before it reaches them), and leaves behind only the last part of each of its ranges (the cache's size,
shared among them in proportion).

The ranges are kept disjoint, by address (for what a kernel finds) and by when each was last used (a heap, for
what goes first), so a kernel's cost here grows with the log of the ranges held, not with their number: a model
with thousands of live tensors keeps a range or more per tensor.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from wia_sim.hwmodel import HardwareModel

if TYPE_CHECKING:
    from wia_sim.commands import Kernel
    from wia_sim.costmodel import KernelCost
    from wia_sim.memory import Buffer

Access = tuple["Buffer", int, int, bool]
"""A byte range ``[lo, hi)`` of a buffer a command reads (False) or writes (True)."""


class LastLevelCache:
    """One device's last-level cache: disjoint address ranges ``[start, end)``, each with the stamp of its last
    use. The least recently used goes first, and of two parts of one range (split by a later use of its middle),
    the lower first: the order a list kept least recently used first would have."""

    def __init__(self, model: HardwareModel) -> None:
        assert model.memory.cache_bandwidth is not None
        self.capacity = int(model.memory.last_level_cache)
        self.bandwidth = model.memory.cache_bandwidth
        self.streaming = model.memory.bandwidth * model.efficiency.memory
        self.held = 0
        """Bytes held: the ranges' sizes, at most :attr:`capacity`."""
        self._starts: list[int] = []
        """The ranges' starts, ascending."""
        self._ranges: dict[int, tuple[int, int]] = {}
        """Per start, the range's end and the stamp of its last use."""
        self._lru: list[tuple[int, int]] = []
        """A heap of (stamp, start), least recently used first; an entry whose range has gone or moved is stale."""
        self._stamp = 0
        self._adjusted: dict[tuple[KernelCost, int], KernelCost] = {}
        """Per (cost, cached bytes), the cost with those bytes read from the cache: a replayed graph, and a kernel
        launched again alike, ask again."""

    def ranges(self) -> list[tuple[int, int]]:
        """The ranges held, least recently used first."""
        order = sorted((stamp, start) for start, (_, stamp) in self._ranges.items())
        return [(start, self._ranges[start][0]) for _, start in order]

    def clear(self) -> None:
        self.held = 0
        self._starts.clear()
        self._ranges.clear()
        self._lru.clear()

    def _hold(self, tails: list[tuple[int, int]]) -> None:
        """Hold ``tails`` alone, used in that order (a kernel that streamed more than the cache holds)."""
        self.clear()
        tails = [(start, end) for start, end in tails if end > start]
        ordered = sorted(tails)
        if any(a[1] > b[0] for a, b in itertools.pairwise(ordered)):  # (one buffer twice)
            for start, end in tails:
                self.touch(start, end)
            return
        for start, end in tails:  # disjoint: each a range of its own, used in turn
            self._newest(start, end)
        self._starts[:] = [start for start, _ in ordered]
        self.held = sum(end - start for start, end in tails)

    def _newest(self, start: int, end: int) -> None:
        """``[start, end)`` as the most recently used range (its start kept in :attr:`_starts` by the caller)."""
        self._stamp += 1
        self._ranges[start] = (end, self._stamp)
        heapq.heappush(self._lru, (self._stamp, start))

    def _first_overlapping(self, start: int) -> int:
        """The index in :attr:`_starts` of the first range that ends after ``start``."""
        i = bisect.bisect_right(self._starts, start) - 1
        return i if i >= 0 and self._ranges[self._starts[i]][0] > start else i + 1

    def resident(self, start: int, end: int) -> int:
        """Bytes of ``[start, end)`` the cache holds."""
        starts, ranges = self._starts, self._ranges
        found = ranges.get(start)
        if found is not None and found[0] == end:  # (a tensor's range, held whole: the usual case)
            return end - start
        held = 0
        i = self._first_overlapping(start)
        while i < len(starts) and starts[i] < end:
            s = starts[i]
            e = ranges[s][0]
            held += (e if e < end else end) - (s if s > start else start)
            i += 1
        return held

    def touch(self, start: int, end: int) -> None:
        """``[start, end)`` was just read or written: it becomes the most recently used range (the part of it that
        fits: a range larger than the cache leaves only its last bytes), and the least recently used go."""
        start = max(start, end - self.capacity)
        if end <= start:
            return
        starts, ranges, lru = self._starts, self._ranges, self._lru
        found = ranges.get(start)
        if found is not None and found[0] == end:  # held whole: used again, nothing else moves
            self._newest(start, end)
            self._tidy()
            return
        held = self.held + end - start
        first = i = self._first_overlapping(start)
        left = right = None  # the parts of the first and the last range overlapped that stay, where they do
        while i < len(starts) and starts[i] < end:  # each overlapped range: the part used again moves to the end,
            s = starts[i]  # what is left of it keeps its place
            e, stamp = ranges.pop(s)
            held -= (e if e < end else end) - (s if s > start else start)
            if s < start:
                ranges[s] = (start, stamp)  # (its heap entry stays valid)
                left = s
            if e > end:
                ranges[end] = (e, stamp)
                heapq.heappush(lru, (stamp, end))
                right = end
            i += 1
        self._newest(start, end)
        keys = [start] if left is None else [left, start]
        if right is not None:
            keys.append(right)
        starts[first:i] = keys
        while held > self.capacity:
            stamp, s = heapq.heappop(lru)
            if ranges.get(s, (0, -1))[1] != stamp:
                continue  # stale
            e = ranges[s][0]
            drop = min(e - s, held - self.capacity)
            held -= drop
            at = bisect.bisect_left(starts, s)
            del ranges[s]
            if drop == e - s:
                del starts[at]
            else:  # its first bytes go
                ranges[s + drop] = (e, stamp)
                heapq.heappush(lru, (stamp, s + drop))
                starts[at] = s + drop
        self.held = held
        self._tidy()

    def _tidy(self) -> None:
        """Drop the heap's stale entries once they outnumber the live ones (rebuilt from the ranges)."""
        if len(self._lru) > 2 * len(self._ranges) + 64:
            self._lru = [(stamp, s) for s, (_, stamp) in self._ranges.items()]
            heapq.heapify(self._lru)

    def run(self, kernel: Kernel, accesses: Iterable[Access]) -> None:
        """Time ``kernel`` with the bytes it reads that are cached at the cache's bandwidth (its cost and duration
        change accordingly), then record what it touched (:meth:`touch` of each range in turn)."""
        spans = [(b.address + lo, b.address + hi, w) for b, lo, hi, w in accesses if b.address is not None and hi > lo]
        footprint = sum(e - s for s, e, _ in spans)
        if footprint > self.capacity:  # it streams more than the cache holds: no reuse, only its tails stay
            kept = self.capacity / footprint
            self._hold([(e - int((e - s) * kept), e) for s, e, _ in spans])
            return
        cached = sum(self.resident(start, end) for start, end, write in spans if not write)
        for start, end, _ in spans:
            self.touch(start, end)
        if cached:
            cost = kernel.cost
            adjusted = self._adjusted.get((cost, cached))
            if adjusted is None:
                if len(self._adjusted) > 65536:
                    self._adjusted.clear()
                saved = cached / self.streaming - cached / self.bandwidth
                adjusted = replace(cost, memory_s=max(cost.memory_s - saved, cached / self.bandwidth))
                self._adjusted[cost, cached] = adjusted
            kernel.cost = adjusted
            kernel.duration = adjusted.duration_s
