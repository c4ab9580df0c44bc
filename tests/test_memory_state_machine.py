"""A stateful test of memory: plain allocations of three types, one or two pools with random configs, copies,
``memory_gc``, ``configure_pool``, ``destroy_pool``; after every step the machine's books must agree with a model.

Invariants checked after every step:

- the device heap: used ranges are disjoint and add up to its ``bytes_in_use``; they are exactly the plain DEVICE
  allocations and the pools' segments (nothing else lives there, nothing leaks);
- pool blocks lie inside a segment of their own pool and the blocks of one segment do not overlap;
- each pool's stats: ``bytes_in_use`` is the sum of its live blocks' rounded sizes, ``bytes_requested`` of their
  sizes, ``bytes_reserved`` of its segments; counts equal the calls made; rates in [0, 1], peaks >= current;
- the context's ``bytes_allocated`` is its plain allocations plus its pools' segments;
- data: what was copied or written is what a round trip through pinned memory reads back;
- freeing every block of a pool leaves each segment one free block, ``bytes_in_use`` 0;
- destroying the context leaves the device heap empty.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import wia_hal as wia
from wia_hal.backends.sim import SimBackend
from wia_hal.pool import MemoryPool

KiB = 1 << 10
MiB = 1 << 20
M = wia.MemoryType


@dataclass
class Live:
    """A live allocation and the bytes the model expects in it (``known`` marks the bytes the model knows)."""

    mem: wia.Memory
    data: np.ndarray = field(repr=False)
    known: np.ndarray = field(repr=False)
    rounded: int = 0  # a pool block: its size in the pool

    @classmethod
    def unknown(cls, mem: wia.Memory, rounded: int = 0) -> Live:
        return cls(mem, np.zeros(mem.size, np.uint8), np.zeros(mem.size, bool), rounded)


@dataclass
class PoolModel:
    pool: MemoryPool
    blocks: list[Live] = field(default_factory=list)
    allocations: int = 0
    frees: int = 0
    failed: int = 0  # requests that raised OUT_OF_MEMORY (each counted as a cache miss)


def _round(nbytes: int, block: int) -> int:
    return max(block, -(-nbytes // block) * block)


@st.composite
def pool_configs(draw: st.DrawFn) -> wia.PoolConfig:
    max_size = draw(st.sampled_from([None, None, 3 * MiB, 5 * MiB + 1000, 8 * MiB]))
    initial = draw(st.sampled_from([0, 0, 1 * MiB, 3 * MiB]))
    if max_size is not None:
        initial = min(initial, max_size)
    return wia.PoolConfig(
        initial_size=initial,
        max_size=max_size,
        block_size=draw(st.sampled_from([1, 256, 1000, 4 * KiB, 64 * KiB])),
        enable_caching=draw(st.booleans()),
        defragment_threshold=draw(st.sampled_from([0.0, 0.3, 0.5, 1.0])),
    )


sizes = st.one_of(st.integers(1, 4 * KiB), st.integers(1, 1 * MiB))


class MemoryMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        backend = wia.get_backend()
        assert isinstance(backend, SimBackend)
        self.heap = backend.machine.devices[0].heap
        assert self.heap.bytes_in_use == 0, "an earlier example leaked device memory"
        self.ctx = wia.create_context()
        self.plain: list[Live] = []
        self.pools: list[PoolModel] = []

    def teardown(self) -> None:
        wia.destroy_context(self.ctx)
        assert self.heap.bytes_in_use == 0, f"device memory leaked: {self.heap.used_ranges()}"

    # -- helpers --------------------------------------------------------------------------------------------------

    def _all(self) -> list[Live]:
        return [*self.plain, *(b for p in self.pools for b in p.blocks)]

    def _sync(self) -> None:
        wia.context_synchronize(self.ctx)

    # -- plain allocations ----------------------------------------------------------------------------------------

    @rule(memory_type=st.sampled_from([M.DEVICE, M.DEVICE, M.PINNED, M.HOST]), size=sizes, seed=st.integers(0, 255))
    def alloc(self, memory_type: wia.MemoryType, size: int, seed: int) -> None:
        try:
            mem = wia.alloc(self.ctx, size, memory_type)
        except wia.OutOfMemoryError:
            assert memory_type is M.DEVICE
            return
        live = Live.unknown(mem)
        if memory_type.host_visible:
            live.data[:] = np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8)
            live.known[:] = True
            wia.memory_ptr(mem)[:] = live.data
        self.plain.append(live)

    @precondition(lambda self: self.plain)
    @rule(data=st.data())
    def free(self, data: st.DataObject) -> None:
        live = self.plain.pop(data.draw(st.integers(0, len(self.plain) - 1), label="plain index"))
        wia.free(live.mem)

    # -- pools ----------------------------------------------------------------------------------------------------

    @initialize(config=pool_configs())
    def first_pool(self, config: wia.PoolConfig) -> None:
        self.create_pool(config)

    @precondition(lambda self: len(self.pools) < 2)
    @rule(config=pool_configs())
    def create_pool(self, config: wia.PoolConfig) -> None:
        try:
            pool = wia.create_memory_pool(self.ctx, config)
        except wia.OutOfMemoryError:
            return
        self.pools.append(PoolModel(pool))

    @precondition(lambda self: self.pools)
    @rule(data=st.data(), size=st.integers(1, 4 * KiB))
    def alloc_small_from_pool(self, data: st.DataObject, size: int) -> None:
        self.alloc_from_pool(data, size)

    @precondition(lambda self: self.pools)
    @rule(data=st.data(), size=st.integers(4 * KiB, 3 * MiB))
    def alloc_large_from_pool(self, data: st.DataObject, size: int) -> None:
        self.alloc_from_pool(data, size)

    def alloc_from_pool(self, data: st.DataObject, size: int) -> None:
        model = data.draw(st.sampled_from(self.pools), label="pool")
        block = model.pool.config.block_size
        try:
            mem = wia.alloc_from_pool(model.pool, size)
        except wia.OutOfMemoryError:
            model.failed += 1
            return
        model.allocations += 1
        model.blocks.append(Live.unknown(mem, _round(size, block)))  # reused memory: contents unknown

    @precondition(lambda self: any(p.blocks for p in self.pools))
    @rule(data=st.data())
    def free_to_pool(self, data: st.DataObject) -> None:
        self.free_block(data)

    @precondition(lambda self: any(len(p.blocks) > 1 for p in self.pools))
    @rule(data=st.data())
    def free_another_to_pool(self, data: st.DataObject) -> None:
        self.free_block(data)

    def free_block(self, data: st.DataObject) -> None:
        model = data.draw(st.sampled_from([p for p in self.pools if p.blocks]), label="pool")
        live = model.blocks.pop(data.draw(st.integers(0, len(model.blocks) - 1), label="block index"))
        wia.free_to_pool(model.pool, live.mem)
        model.frees += 1

    @precondition(lambda self: self.pools)
    @rule(data=st.data())
    def free_everything(self, data: st.DataObject) -> None:
        model = data.draw(st.sampled_from(self.pools), label="pool")
        pool = model.pool
        before = wia.get_pool_stats(pool).bytes_reserved
        for live in model.blocks:
            wia.free_to_pool(pool, live.mem)
            model.frees += 1
        model.blocks.clear()
        stats = wia.get_pool_stats(pool)
        assert stats.bytes_in_use == 0 and stats.bytes_requested == 0
        segments = [s.size for s in pool.segments]
        for segment in pool.segments:  # every segment is one free block again
            assert segment.free_ranges() == [(0, segment.size)]
        expected = 0.0 if len(segments) <= 1 else 1 - max(segments) / sum(segments)
        assert abs(stats.fragmentation - expected) < 1e-12
        if pool.config.enable_caching and pool.config.defragment_threshold >= 1.0:
            assert stats.bytes_reserved == before  # cached, none released

    @precondition(lambda self: self.pools)
    @rule(data=st.data(), config=pool_configs())
    def configure_pool(self, data: st.DataObject, config: wia.PoolConfig) -> None:
        model = data.draw(st.sampled_from(self.pools), label="pool")
        reserved = wia.get_pool_stats(model.pool).bytes_reserved
        try:
            wia.configure_pool(model.pool, config)
        except wia.InvalidValueError:
            assert config.max_size is not None and config.max_size < reserved
        except wia.OutOfMemoryError:
            pass  # reserving initial_size did not fit the device
        else:
            assert model.pool.config == config
            assert wia.get_pool_stats(model.pool).bytes_reserved >= config.initial_size

    @precondition(lambda self: len(self.pools) == 2)  # not too often: pools should live long enough to fill
    @rule(data=st.data())
    def destroy_pool(self, data: st.DataObject) -> None:
        model = data.draw(st.sampled_from(self.pools), label="pool")
        self.pools.remove(model)
        wia.destroy_pool(model.pool)
        for live in model.blocks:
            assert live.mem.freed
            try:
                wia.copy_async(live.mem, live.mem, 1)
            except wia.InvalidMemoryError:
                pass
            else:
                raise AssertionError("a block of a destroyed pool is still usable")

    @precondition(lambda self: self.pools)
    @rule(data=st.data())
    def memory_gc(self, data: st.DataObject) -> None:
        empty = sum(s.size for p in self.pools for s in p.pool.segments if s.empty)
        used = self.heap.bytes_in_use
        released = wia.memory_gc(self.ctx)
        assert released == empty
        assert not any(s.empty for p in self.pools for s in p.pool.segments)
        assert used - self.heap.bytes_in_use >= released

    # -- data -----------------------------------------------------------------------------------------------------

    @precondition(lambda self: len(self._all()) >= 2)
    @rule(data=st.data())
    def copy(self, data: st.DataObject) -> None:
        lives = self._all()
        src, dst = data.draw(st.lists(st.sampled_from(lives), min_size=2, max_size=2, unique_by=id), label="src, dst")
        n = data.draw(st.integers(1, min(src.mem.size, dst.mem.size)), label="bytes")
        so = data.draw(st.integers(0, src.mem.size - n), label="src_offset")
        do = data.draw(st.integers(0, dst.mem.size - n), label="dst_offset")
        wia.copy_async(src.mem, dst.mem, n, src_offset=so, dst_offset=do)
        self._sync()
        dst.data[do : do + n] = src.data[so : so + n]
        dst.known[do : do + n] = src.known[so : so + n]

    @precondition(lambda self: self._all())
    @rule(data=st.data())
    def check_data(self, data: st.DataObject) -> None:
        live = data.draw(st.sampled_from(self._all()), label="allocation")
        mem = live.mem
        self._sync()
        if mem.type.host_visible:
            got = wia.memory_ptr(mem).copy()
        else:  # the round trip through pinned memory
            staging = wia.alloc(self.ctx, mem.size, M.PINNED)
            wia.copy_async(mem, staging, mem.size)
            self._sync()
            got = wia.memory_ptr(staging).copy()
            wia.free(staging)
        np.testing.assert_array_equal(got[live.known], live.data[live.known])

    # -- invariants -----------------------------------------------------------------------------------------------

    @invariant()
    def heap_holds_exactly_the_plain_allocations_and_the_segments(self) -> None:
        heap = self.heap
        used = heap.used_ranges()
        for (a, n), (b, _) in itertools.pairwise(used):
            assert a + n <= b, f"heap ranges overlap: {used}"
        assert sum(n for _, n in used) == heap.bytes_in_use
        expected: dict[int, int] = {}
        for live in self.plain:
            if live.mem.type is M.DEVICE:
                expected[live.mem.buffer.address] = heap.rounded(live.mem.size)
            else:
                assert live.mem.buffer.address is None
        for model in self.pools:
            for segment in model.pool.segments:
                address = segment.memory.buffer.address
                assert address not in expected, "two allocations at one address"
                expected[address] = heap.rounded(segment.size)
        assert dict(used) == expected

    @invariant()
    def blocks_lie_in_their_segments_without_overlap(self) -> None:
        for model in self.pools:
            segments = {id(s.memory.buffer): s for s in model.pool.segments}
            by_segment: dict[int, list[Live]] = {}
            for live in model.blocks:
                mem = live.mem
                assert not mem.freed and mem.pool is model.pool and mem.type is M.DEVICE
                assert id(mem.buffer) in segments, "a live block outside its pool's segments"
                segment = segments[id(mem.buffer)]
                assert mem.offset >= 0 and mem.offset + live.rounded <= segment.size
                assert segment.used[mem.offset] == live.rounded
                by_segment.setdefault(id(mem.buffer), []).append(live)
            for blocks in by_segment.values():
                blocks.sort(key=lambda b: b.mem.offset)
                for a, b in itertools.pairwise(blocks):
                    assert a.mem.offset + a.rounded <= b.mem.offset, "blocks overlap"
            assert sum(len(s.used) for s in model.pool.segments) == len(model.blocks)

    @invariant()
    def pool_stats_agree_with_the_model(self) -> None:
        for model in self.pools:
            pool = model.pool
            stats = wia.get_pool_stats(pool)
            reserved = sum(s.size for s in pool.segments)
            assert stats.bytes_in_use == sum(b.rounded for b in model.blocks)
            assert stats.bytes_requested == sum(b.mem.size for b in model.blocks)
            assert stats.bytes_reserved == reserved and stats.num_segments == len(pool.segments)
            assert stats.num_allocations == model.allocations and stats.num_frees == model.frees
            assert stats.cache_hits + stats.cache_misses == model.allocations + model.failed
            lookups = stats.cache_hits + stats.cache_misses
            assert stats.cache_hit_rate == (stats.cache_hits / lookups if lookups else 0.0)
            assert 0.0 <= stats.cache_hit_rate <= 1.0 and 0.0 <= stats.fragmentation <= 1.0
            assert stats.bytes_in_use <= stats.bytes_reserved
            assert stats.peak_bytes_in_use >= stats.bytes_in_use
            assert stats.peak_bytes_reserved >= stats.bytes_reserved
            free = [n for s in pool.segments for _, n in s.free_ranges()]
            assert sum(free) == reserved - stats.bytes_in_use
            expected = 0.0 if not free else 1 - max(free) / sum(free)
            assert abs(stats.fragmentation - expected) < 1e-12
            if pool.config.max_size is not None:
                assert reserved <= pool.config.max_size

    @invariant()
    def context_counts_plain_allocations_and_segments(self) -> None:
        plain = sum(live.mem.size for live in self.plain)
        segments = sum(s.size for p in self.pools for s in p.pool.segments)
        assert self.ctx.bytes_allocated == plain + segments


def test_memory_state_machine() -> None:
    run_state_machine_as_test(
        MemoryMachine,
        settings=settings(
            max_examples=30,
            stateful_step_count=40,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
