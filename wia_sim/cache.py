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
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from wia_sim.hwmodel import HardwareModel

if TYPE_CHECKING:
    from wia_sim.commands import Kernel
    from wia_sim.costmodel import KernelCost
    from wia_sim.memory import Buffer

Access = tuple["Buffer", int, int, bool]
"""A byte range ``[lo, hi)`` of a buffer a command reads (False) or writes (True)."""


class Held:
    """What a cache holds: address ranges ``[start, end)`` in least-recently-used order and their bytes. A value
    that keys every kernel's lookup (:meth:`LastLevelCache.run`), so its hash is taken once: hashing the ranges
    anew costs a pass over them, one or more per live tensor, at every launch."""

    __slots__ = ("_hash", "nbytes", "ranges")

    def __init__(self, ranges: tuple[tuple[int, int], ...], nbytes: int) -> None:
        self.ranges = ranges
        self.nbytes = nbytes
        self._hash = hash(ranges)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Held) and self.ranges == other.ranges)


EMPTY = Held((), 0)

Outcome = tuple[int, Held]
"""Of one kernel: the bytes it read from the cache, and what the cache holds after it."""


class LastLevelCache:
    """One device's last-level cache: what it holds (:class:`Held`, a few ranges per live tensor; every kernel
    touches only its operands')."""

    def __init__(self, model: HardwareModel, outcomes: dict[Any, Outcome] | None = None) -> None:
        assert model.memory.cache_bandwidth is not None
        self.capacity = int(model.memory.last_level_cache)
        self.bandwidth = model.memory.cache_bandwidth
        self.streaming = model.memory.bandwidth * model.efficiency.memory
        self.state = EMPTY
        self._outcomes: dict[Any, Outcome] = {} if outcomes is None else outcomes
        """What :meth:`run` found, by what it depends on (the ranges held and the kernel's): a pure function, so
        the caches of one machine's identical devices share it; a replayed graph, and the devices of a
        tensor-parallel step, ask the same again."""
        self._adjusted: dict[tuple[KernelCost, int], KernelCost] = {}
        """Per (cost, cached bytes), the cost with those bytes read from the cache: a replayed graph, and a kernel
        launched again alike, ask again."""

    def resident(self, start: int, end: int) -> int:
        """Bytes of ``[start, end)`` the cache holds."""
        held = 0
        for s, e in self.state.ranges:  # (a plain loop: this runs for every operand of every kernel)
            if s < end and e > start:
                held += (e if e < end else end) - (s if s > start else start)
        return held

    def touch(self, start: int, end: int) -> None:
        """``[start, end)`` was just read or written: it becomes the most recently used range (the part of it that
        fits: a range larger than the cache leaves only its last bytes), and the least recently used go."""
        start = max(start, end - self.capacity)
        held = self.state.nbytes + end - start
        kept = []
        for s, e in self.state.ranges:
            if e <= start or s >= end:
                kept.append((s, e))
            else:  # the overlapping part moves to the end; what is left of it keeps its place
                held -= (e if e < end else end) - (s if s > start else start)
                if s < start:
                    kept.append((s, start))
                if e > end:
                    kept.append((end, e))
        kept.append((start, end))
        while held > self.capacity:
            s, e = kept[0]
            drop = min(e - s, held - self.capacity)
            held -= drop
            if drop == e - s:
                kept.pop(0)
            else:
                kept[0] = (s + drop, e)
        self.state = Held(tuple(kept), held)

    def run(self, kernel: Kernel, accesses: Iterable[Access]) -> None:
        """Time ``kernel`` with the bytes it reads that are cached at the cache's bandwidth (its cost and duration
        change accordingly), then record what it touched (:meth:`touch` of each range in turn)."""
        spans = tuple(
            [(b.address + lo, b.address + hi, w) for b, lo, hi, w in accesses if b.address is not None and hi > lo]
        )
        key = (self.state, spans)
        found = self._outcomes.get(key)
        if found is None:
            found = self._outcomes[key] = self._outcome(spans)
            if len(self._outcomes) > 200_000:
                self._outcomes.clear()
        cached, self.state = found
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

    def _outcome(self, spans: tuple[tuple[int, int, bool], ...]) -> Outcome:
        """The bytes of ``spans`` read from the cache, and what it holds after (from :attr:`state` before)."""
        footprint = sum(e - s for s, e, _ in spans)
        if footprint > self.capacity:  # it streams more than the cache holds: no reuse, only its tails stay
            kept = self.capacity / footprint
            tails = tuple((e - int((e - s) * kept), e) for s, e, _ in spans)
            return 0, Held(tails, sum(e - s for s, e in tails))
        before = self.state
        cached = sum(self.resident(start, end) for start, end, write in spans if not write)
        for start, end, _ in spans:
            self.touch(start, end)
        after, self.state = self.state, before
        # a kernel launched again touches what it touched last: the cache holds the same, and the same object
        # keeps the next lookup's comparison to an identity test
        return cached, before if after == before else after
