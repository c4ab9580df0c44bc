"""SPEC 3.5.2: memory pools, a caching allocator over segments of device memory.

A pool reserves *segments* from the device (one ``alloc`` each, at the device's allocation cost) and sub-allocates
them: requests are rounded up to ``block_size``, placed best-fit in a free range of a segment, split, and on
return coalesced with their free neighbours. With caching on, freed blocks stay reserved for reuse; with caching
off, a segment that becomes entirely free goes back to the device at once. When the pool's fragmentation passes
``defragment_threshold`` after a free, its entirely free segments are released (live blocks never move, so a
pool cannot compact them); the default threshold, 1.0, never passes, so a pool caches everything it reserved
until ``memory_gc``, as PyTorch's caching allocator and CuPy's ``MemoryPool`` do. As in those, a request served
from reserved memory is a cache hit and one that needs a new segment a miss.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from pydantic import Field

from wia_hal.configs import PoolConfig
from wia_hal.enums import MemoryType
from wia_hal.errors import ErrorDetails, InvalidMemoryError, InvalidValueError, OutOfMemoryError, api
from wia_hal.memory import Memory, allocate, check_memory
from wia_hal.models import WiaModel

if TYPE_CHECKING:
    from wia_hal.context import Context
    from wia_hal.streams import Stream

FENCES_KEPT = 64
"""Fences a segment keeps before it asks which are done and drops those (asking costs a backend call each)."""

SEGMENT_GRANULE = 2 << 20
"""Segments grow in multiples of 2 MiB, the granule PyTorch's caching allocator rounds large segments to
(``kLargeBuffer``, c10/cuda/CUDACachingAllocator.cpp), so a pool asks the device for memory rarely."""


class PoolStats(WiaModel):
    """R-3.5.2-04. ``fragmentation`` is ``1 - largest free block / free bytes`` over the pool's reserved memory
    (0 when nothing is free): 0 means every free byte is in one block, near 1 that free memory is scattered in
    blocks too small for a large request. ``cache_hit_rate`` is ``cache_hits / (cache_hits + cache_misses)``
    (0 before any allocation)."""

    num_allocations: int = Field(ge=0)
    num_frees: int = Field(ge=0)
    cache_hits: int = Field(ge=0)
    cache_misses: int = Field(ge=0)
    cache_hit_rate: float = Field(ge=0.0, le=1.0)
    fragmentation: float = Field(ge=0.0, le=1.0)
    bytes_in_use: int = Field(ge=0, description="bytes of live blocks (rounded to block_size)")
    bytes_requested: int = Field(ge=0, description="bytes the live blocks were asked for")
    bytes_reserved: int = Field(ge=0, description="bytes of the segments held from the device")
    peak_bytes_in_use: int = Field(ge=0)
    peak_bytes_reserved: int = Field(ge=0)
    num_segments: int = Field(ge=0)
    num_segment_releases: int = Field(ge=0, description="segments returned to the device (gc, defragmentation)")


@dataclass
class Segment:
    """One device allocation of the pool: its free ranges (sorted starts, and the end of the range at each start)
    and its live blocks (size by offset). Taking a range splits the free one it lies in; giving it back merges it
    with its free neighbours, found by bisection.

    (The simulator's device heap keeps free ranges the same way; the HAL keeps its own because the HAL core never
    imports the simulator: a pool works on every backend.)"""

    memory: Memory
    size: int
    starts: list[int] = field(init=False)
    ends: dict[int, int] = field(init=False)
    used: dict[int, int] = field(default_factory=dict)
    fences: list[tuple[int, int, list[tuple[Stream, object]]]] = field(default_factory=list)
    """Freed ranges whose previous owners' work on some stream may be pending: (start, end, [(stream, marker)])."""
    free: int = field(init=False)
    """Free bytes, kept as ranges are taken and given back (the pool asks for its fragmentation at every release)."""
    _largest: int | None = field(init=False)
    """The largest free range, or None when taking from it made it unknown (found again on demand)."""

    def __post_init__(self) -> None:
        self.starts, self.ends = [0], {0: self.size}
        self.free = self._largest = self.size

    @property
    def empty(self) -> bool:
        return not self.used

    def best_fit(self, need: int) -> tuple[int, int] | None:
        """``(start, size)`` of the smallest free range of at least ``need`` bytes (the first of equals)."""
        best: tuple[int, int] | None = None
        for start in self.starts:
            size = self.ends[start] - start
            if size >= need and (best is None or size < best[1]):
                best = (start, size)
                if size == need:
                    break
        return best

    def free_ranges(self) -> list[tuple[int, int]]:
        """``(start, size)`` of every free range, by start."""
        return [(start, self.ends[start] - start) for start in self.starts]

    def largest_free(self) -> int:
        if self._largest is None:
            self._largest = max((end - start for start, end in self.ends.items()), default=0)
        return self._largest

    def total_free(self) -> int:
        return self.free

    def take(self, start: int, size: int) -> None:
        end = self.ends.pop(start)
        self.free -= size
        if end - start == self._largest:
            self._largest = None
        index = bisect.bisect_left(self.starts, start)
        if end == start + size:
            del self.starts[index]
        else:
            self.starts[index] = start + size
            self.ends[start + size] = end
        self.used[start] = size

    def give_back(self, start: int) -> None:
        size = self.used.pop(start)
        self.free += size
        end = start + size
        index = bisect.bisect_left(self.starts, start)
        if index < len(self.starts) and self.starts[index] == end:  # merge with the free range after
            end = self.ends.pop(end)
            del self.starts[index]
        if index > 0 and self.ends[self.starts[index - 1]] == start:  # and with the one before
            index -= 1
            start = self.starts.pop(index)
        self.starts.insert(index, start)
        self.ends[start] = end
        if self._largest is not None and end - start > self._largest:
            self._largest = end - start


class MemoryPool:
    """A pool of device memory of one context (R-3.5.2-01). Create with :func:`create_memory_pool`."""

    def __init__(self, context: Context, config: PoolConfig) -> None:
        self.context = context
        self.config = config
        self.segments: list[Segment] = []
        self.blocks: dict[int, Memory] = {}  # id(block) -> live block
        self.destroyed = False
        self.graph: object = None
        """The graph this pool holds memory for (:mod:`wia_hal.graphs`): its free segments stay while it lives."""
        self.num_allocations = self.num_frees = self.cache_hits = self.cache_misses = 0
        self.bytes_in_use = self.peak_bytes_in_use = self.peak_bytes_reserved = self.num_segment_releases = 0
        if config.initial_size:
            self._grow(config.initial_size)

    def __repr__(self) -> str:
        state = " destroyed" if self.destroyed else f" {self.bytes_reserved} bytes reserved"
        return f"<wia.MemoryPool{state}>"

    def _record_error(self, details: ErrorDetails) -> None:
        self.context.last_error = details

    def check(self) -> MemoryPool:
        if self.destroyed:
            raise InvalidValueError(f"{self!r} was destroyed")
        self.context.check()
        return self

    @property
    def bytes_reserved(self) -> int:
        return sum(s.size for s in self.segments)

    def _round(self, nbytes: int) -> int:
        block = self.config.block_size
        return max(block, -(-nbytes // block) * block)

    def _grow(self, need: int) -> Segment:
        size = max(-(-need // SEGMENT_GRANULE) * SEGMENT_GRANULE, self._round(need))
        limit = self.config.max_size
        if limit is not None and self.bytes_reserved + size > limit:
            # the granule does not fit under max_size: reserve only what is needed (or what is left, if that holds it)
            size = min(self._round(need), limit - self.bytes_reserved)
            if size < need:
                raise OutOfMemoryError(
                    f"memory pool: {need} bytes do not fit: {self.bytes_reserved} of max_size {limit} bytes are "
                    f"reserved, {self.bytes_in_use} in use, largest free block {self._largest_free()} bytes"
                )
        try:
            memory = allocate(self.context, size, MemoryType.DEVICE, segment=True)
        except OutOfMemoryError:
            if size <= self._round(need):
                raise
            # a whole granule does not fit the device or the context's limit: reserve only what is needed
            size = self._round(need)
            memory = allocate(self.context, size, MemoryType.DEVICE, segment=True)
        segment = Segment(memory, size)
        self.segments.append(segment)
        self.peak_bytes_reserved = max(self.peak_bytes_reserved, self.bytes_reserved)
        return segment

    def _best_fit(self, need: int) -> tuple[Segment, int] | None:
        """The smallest free range that holds ``need`` over all segments (the first of equals)."""
        best: tuple[Segment, int] | None = None
        best_size = 0
        for segment in self.segments:
            found = segment.best_fit(need)
            if found is not None and (best is None or found[1] < best_size):
                best, best_size = (segment, found[0]), found[1]
        return best

    def _largest_free(self) -> int:
        return max((s.largest_free() for s in self.segments), default=0)

    def allocate(self, nbytes: int) -> Memory:
        need = self._round(nbytes)
        found = self._best_fit(need)
        if found is None:
            self.cache_misses += 1
            found = (self._grow(need), 0)
        else:
            self.cache_hits += 1
        segment, start = found
        segment.take(start, need)
        fences = self._fences(segment, start, start + need) if segment.fences else []
        self.num_allocations += 1
        self.bytes_in_use += need
        self.peak_bytes_in_use = max(self.peak_bytes_in_use, self.bytes_in_use)
        base = segment.memory
        block = Memory(self.context, base.buffer, nbytes, MemoryType.DEVICE, offset=start, pool=self)
        block.fences = fences
        self.blocks[id(block)] = block
        self.context.in_use(need)
        self.context.memory_changed()
        return block

    def _fences(self, segment: Segment, lo: int, hi: int) -> list[tuple[Stream, object]]:
        """The markers a block taken at ``[lo, hi)`` must be ordered after. Only the fences it overlaps are asked
        whether their work is done (asking costs a backend call); a fence inside the block is handed over to it
        (the block's owner waits for it, and gives what it did not wait for back when it is freed); the others are
        pruned when the segment holds many."""
        backend = self.context.backend
        found: list[tuple[Stream, object]] = []
        live = []
        for start, end, marks in segment.fences:
            if start >= hi or lo >= end:
                live.append((start, end, marks))
                continue
            pending = [(s, m) for s, m in marks if not s.destroyed and not backend.query(m)]
            found += pending
            if pending and not (lo <= start and end <= hi):
                live.append((start, end, pending))
        if len(live) > FENCES_KEPT:
            live = [
                (start, end, pending)
                for start, end, marks in live
                if (pending := [(s, m) for s, m in marks if not s.destroyed and not backend.query(m)])
            ]
        segment.fences = live
        return found

    def fence(self, streams: list[Stream]) -> None:
        """Order every later owner of this pool's free memory after the work now queued on ``streams`` (the
        context's first extra stream is being made: until now one stream ordered everything)."""
        backend = self.context.backend
        marks = [(s, backend.record(s.queue)) for s in streams]
        for segment in self.segments:
            segment.fences.append((0, segment.size, marks))

    def release_block(self, block: Memory) -> None:
        """Return ``block`` to its segment (called by ``Memory.release``). While the context has more than one
        stream, a marker on each stream that used the block fences its range: its next owner's streams wait for
        them (a stream-ordered pool, as ``cudaMallocAsync``'s), so reuse never races with pending work."""
        segment = next(s for s in self.segments if s.memory.buffer is block.buffer)
        if block.fences and not block.streams:  # handed fences no stream of the owner waited for: the next owner must
            segment.fences.append((block.offset, block.offset + segment.used[block.offset], block.fences))
        if block.streams and self.context.streams:
            backend = self.context.backend
            marks = [(s, backend.record(s.queue)) for s in block.streams if not s.destroyed]
            if marks:
                segment.fences.append((block.offset, block.offset + segment.used[block.offset], marks))
        size = segment.used[block.offset]
        self.bytes_in_use -= size
        self.context.in_use(-size)
        segment.give_back(block.offset)
        del self.blocks[id(block)]
        block.freed = True
        self.num_frees += 1
        if not self.config.enable_caching and segment.empty:
            self._release_segment(segment)
        elif self.fragmentation() > self.config.defragment_threshold:
            self.release_free_segments()
        self.context.memory_changed()

    def _release_segment(self, segment: Segment) -> None:
        self.segments.remove(segment)
        segment.memory.release()
        self.num_segment_releases += 1

    def release_free_segments(self) -> int:
        """Give every entirely free segment back to the device (none while a graph holds the pool); the bytes
        released."""
        if self.graph is not None:
            return 0
        released = 0
        for segment in [s for s in self.segments if s.empty]:
            released += segment.size
            self._release_segment(segment)
        return released

    def fragmentation(self) -> float:
        free = sum(s.total_free() for s in self.segments)
        return 0.0 if free == 0 else 1.0 - self._largest_free() / free

    def stats(self) -> PoolStats:
        lookups = self.cache_hits + self.cache_misses
        return PoolStats(
            num_allocations=self.num_allocations,
            num_frees=self.num_frees,
            cache_hits=self.cache_hits,
            cache_misses=self.cache_misses,
            cache_hit_rate=self.cache_hits / lookups if lookups else 0.0,
            fragmentation=self.fragmentation(),
            bytes_in_use=self.bytes_in_use,
            bytes_requested=sum(b.size for b in self.blocks.values()),
            bytes_reserved=self.bytes_reserved,
            peak_bytes_in_use=self.peak_bytes_in_use,
            peak_bytes_reserved=self.peak_bytes_reserved,
            num_segments=len(self.segments),
            num_segment_releases=self.num_segment_releases,
        )

    def discard_all(self) -> list[Memory]:
        """Release every segment; the live blocks become invalid (using them is ``INVALID_MEMORY``) and are
        returned. The pool itself stays usable (``reset_device`` empties pools this way)."""
        self.context.in_use(-self.bytes_in_use)
        for segment in list(self.segments):
            for start in list(segment.used):
                segment.give_back(start)
            self._release_segment(segment)
        blocks = list(self.blocks.values())
        for block in blocks:
            block.freed = True
        self.blocks.clear()
        self.bytes_in_use = 0
        return blocks

    def destroy(self) -> None:
        """Release every segment (live blocks become invalid: using them is ``INVALID_MEMORY``)."""
        self.discard_all()
        self.destroyed = True
        if self in self.context.pools:
            self.context.pools.remove(self)
        if self.context.default_pool is self:
            self.context.default_pool = None


def check_pool(pool: object) -> MemoryPool:
    if not isinstance(pool, MemoryPool):
        raise InvalidValueError(f"expected a wia MemoryPool (from create_memory_pool), got {type(pool).__name__}")
    return pool.check()


def _memory_config(config: PoolConfig) -> PoolConfig:
    if not isinstance(config, PoolConfig):
        raise InvalidValueError(f"expected a PoolConfig, got {type(config).__name__}")
    if config.is_pooling:
        raise InvalidValueError(
            "configure_pool: this PoolConfig is for pool2d (type/kernel_size); a memory pool takes initial_size, "
            "max_size, block_size, enable_caching, defragment_threshold"
        )
    if config.max_size is not None and config.initial_size > config.max_size:
        raise InvalidValueError(
            f"PoolConfig: initial_size {config.initial_size} exceeds max_size {config.max_size} bytes"
        )
    return config


def open_pool(ctx: Context, config: PoolConfig) -> MemoryPool:
    pool = MemoryPool(ctx, _memory_config(config))
    ctx.pools.append(pool)
    return pool


@api
def configure_pool(pool: MemoryPool, config: PoolConfig) -> None:
    """R-3.5.2-01: set the pool's limits and policy; ``initial_size`` is reserved at once (if not already)."""
    pool = check_pool(pool)
    config = _memory_config(config)
    if config.max_size is not None and pool.bytes_reserved > config.max_size:
        raise InvalidValueError(
            f"configure_pool: max_size {config.max_size} is below the {pool.bytes_reserved} bytes already reserved"
        )
    previous, pool.config = pool.config, config
    try:
        if config.initial_size > pool.bytes_reserved:
            pool._grow(config.initial_size - pool.bytes_reserved)
    except BaseException:  # a configuration that cannot be reserved does not take effect
        pool.config = previous
        raise


def _size(name: str, size: object) -> int:
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size <= 0:
        raise InvalidValueError(f"{name}: size must be a positive int number of bytes, got {size!r}")
    return int(size)


@api
def alloc_from_pool(pool: MemoryPool, size: int) -> Memory:
    """R-3.5.2-02: ``size`` bytes of device memory from the pool (rounded up to ``block_size`` inside it)."""
    pool = check_pool(pool)
    nbytes = _size("alloc_from_pool", size)
    return pool.allocate(nbytes)


@api
def free_to_pool(pool: MemoryPool, mem: Memory) -> None:
    """R-3.5.2-02: return a block to the pool it came from (``INVALID_MEMORY`` for any other pool or memory)."""
    pool = check_pool(pool)
    if isinstance(mem, Memory) and mem.freed:
        raise InvalidMemoryError(f"free_to_pool: {mem!r} was already freed (double free)")
    mem = check_memory(mem, pool.context)
    mem.check_not_tensor_data("free_to_pool")
    if mem.pool is not pool:
        raise InvalidMemoryError(
            f"free_to_pool: {mem!r} " + ("came from another pool" if mem.pool else "was not allocated from a pool")
        )
    mem.release()


@api
def get_pool_stats(pool: MemoryPool) -> PoolStats:
    """R-3.5.2-04."""
    return check_pool(pool).stats()


@api
def destroy_pool(pool: MemoryPool) -> None:
    """R-3.5.2-01: give the pool's segments back to the device."""
    pool = check_pool(pool)
    pool.destroy()
