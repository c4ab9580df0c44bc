"""Memory pools (SPEC 3.5.2, wia_hal/pool.py): placement, caching, growth, defragmentation, configuration, misuse,
limits and recovery (R-3.9-04), default pools, tensors from pools, and the modeled host time of a pooled allocation.

Every test runs on ``wia-tiny`` (64 MiB of device memory, conftest.py). Segments grow in 2 MiB granules
(``wia_hal.pool.SEGMENT_GRANULE``); the device heap is reached through the sim backend's machine.
"""

from __future__ import annotations

import gc
import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wia_hal as wia
from wia_hal.backends.sim import SimBackend
from wia_hal.pool import SEGMENT_GRANULE, MemoryPool
from wia_sim.heap import Heap

E = wia.ErrorCode
KiB = 1 << 10
MiB = 1 << 20
NO_DEFRAG = 1.0  # fragmentation is never above 1: the pool never releases segments on its own


def _expect(code: wia.ErrorCode, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> wia.WiaError:
    with pytest.raises(wia.WiaError) as info:
        fn(*args, **kwargs)
    error = info.value
    assert error.code is code, f"{fn.__name__}: got {error.code.name} ({error}), but should be {code.name}"
    assert str(error), "the message must say what was wrong"
    return error


@pytest.fixture
def heap(sim: SimBackend) -> Heap:
    return sim.machine.devices[0].heap


def _pool(ctx: wia.Context, **config: Any) -> MemoryPool:
    return wia.create_memory_pool(ctx, wia.PoolConfig(**config))


def _free_ranges(pool: MemoryPool, index: int = 0) -> list[tuple[int, int]]:
    segment = pool.segments[index]
    return segment.free_ranges()


# -- placement: rounding, best fit, split, coalescing ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "rounded"), [(1, 512), (511, 512), (512, 512), (513, 1024), (1500, 1536), (MiB + 1, MiB + 512)]
)
def test_requests_are_rounded_up_to_block_size(ctx: wia.Context, size: int, rounded: int) -> None:
    pool = _pool(ctx, block_size=512)
    mem = wia.alloc_from_pool(pool, size)
    assert mem.size == size  # the block is what was asked for; the pool accounts the rounded size
    assert mem.type is wia.MemoryType.DEVICE and mem.pool is pool
    stats = wia.get_pool_stats(pool)
    assert stats.bytes_in_use == rounded
    assert stats.bytes_requested == size
    assert stats.peak_bytes_in_use == rounded
    assert stats.bytes_reserved >= rounded and stats.bytes_reserved % SEGMENT_GRANULE == 0


def test_consecutive_blocks_are_placed_at_block_multiples(ctx: wia.Context) -> None:
    pool = _pool(ctx, block_size=1 * KiB)
    blocks = [wia.alloc_from_pool(pool, n) for n in (1, 1025, 3000, 1024)]
    assert [b.offset for b in blocks] == [0, 1 * KiB, 3 * KiB, 6 * KiB]
    assert len({id(b.buffer) for b in blocks}) == 1  # one segment
    assert wia.get_pool_stats(pool).bytes_in_use == 7 * KiB


def test_best_fit_picks_the_smallest_free_range_that_fits(ctx: wia.Context) -> None:
    pool = _pool(ctx, block_size=1 * KiB, defragment_threshold=NO_DEFRAG)
    a, b, c, d, e = (wia.alloc_from_pool(pool, n * KiB) for n in (1, 3, 1, 2, 1))
    assert [m.offset for m in (a, b, c, d, e)] == [0, 1 * KiB, 4 * KiB, 5 * KiB, 7 * KiB]
    wia.free_to_pool(pool, b)  # a 3 KiB hole at 1 KiB
    wia.free_to_pool(pool, d)  # a 2 KiB hole at 5 KiB; the tail of the segment is free from 8 KiB
    two = wia.alloc_from_pool(pool, 2 * KiB)
    assert two.offset == 5 * KiB  # the 2 KiB hole fits exactly: not the 3 KiB hole, not the tail
    one = wia.alloc_from_pool(pool, 1 * KiB)
    assert one.offset == 1 * KiB  # the 3 KiB hole is now the smallest that fits: split at its start
    rest = wia.alloc_from_pool(pool, 2 * KiB)
    assert rest.offset == 2 * KiB  # what the split left
    assert _free_ranges(pool) == [(8 * KiB, pool.segments[0].size - 8 * KiB)]


def test_best_fit_across_segments(ctx: wia.Context) -> None:
    pool = _pool(ctx, block_size=1 * KiB, defragment_threshold=NO_DEFRAG)
    big = wia.alloc_from_pool(pool, SEGMENT_GRANULE - 4 * KiB)  # segment 0 keeps a 4 KiB tail
    fill = wia.alloc_from_pool(pool, SEGMENT_GRANULE - 4 * KiB)  # does not fit: segment 1, also a 4 KiB tail
    assert fill.buffer is not big.buffer
    small = wia.alloc_from_pool(pool, 3 * KiB)  # both tails fit equally: the first segment's wins the tie
    assert small.buffer is big.buffer and small.offset == SEGMENT_GRANULE - 4 * KiB
    one = wia.alloc_from_pool(pool, 1 * KiB)  # the 1 KiB left in segment 0 is the best fit
    assert one.buffer is big.buffer and one.offset == SEGMENT_GRANULE - 1 * KiB
    four = wia.alloc_from_pool(pool, 4 * KiB)
    assert four.buffer is fill.buffer
    assert wia.get_pool_stats(pool).num_segments == 2


def test_free_neighbours_coalesce(ctx: wia.Context) -> None:
    pool = _pool(ctx, block_size=1 * KiB, defragment_threshold=NO_DEFRAG)
    blocks = [wia.alloc_from_pool(pool, 1 * KiB) for _ in range(4)]
    size = pool.segments[0].size
    wia.free_to_pool(pool, blocks[1])
    assert _free_ranges(pool) == [(1 * KiB, 1 * KiB), (4 * KiB, size - 4 * KiB)]
    wia.free_to_pool(pool, blocks[2])  # merges with the hole before it
    assert _free_ranges(pool) == [(1 * KiB, 2 * KiB), (4 * KiB, size - 4 * KiB)]
    stats = wia.get_pool_stats(pool)
    assert stats.fragmentation == pytest.approx(1 - (size - 4 * KiB) / (size - 2 * KiB))
    wia.free_to_pool(pool, blocks[3])  # merges with both neighbours
    assert _free_ranges(pool) == [(1 * KiB, size - 1 * KiB)]
    assert wia.get_pool_stats(pool).fragmentation == 0.0
    wia.free_to_pool(pool, blocks[0])
    assert _free_ranges(pool) == [(0, size)]  # one free block spans the segment
    stats = wia.get_pool_stats(pool)
    assert (stats.fragmentation, stats.bytes_in_use, stats.bytes_requested) == (0.0, 0, 0)
    assert stats.bytes_reserved == size  # caching: the segment stays reserved


@settings(max_examples=60, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 5 * KiB), min_size=1, max_size=8),
    data=st.data(),
)
def test_any_free_order_coalesces_back_to_one_block(sizes: list[int], data: st.DataObject) -> None:
    ctx = wia.create_context()
    try:
        pool = _pool(ctx, block_size=KiB, defragment_threshold=NO_DEFRAG)
        blocks = [wia.alloc_from_pool(pool, n) for n in sizes]
        order = data.draw(st.permutations(range(len(blocks))), label="free order")
        size = pool.segments[0].size
        for i in order:
            wia.free_to_pool(pool, blocks[i])
            ranges = _free_ranges(pool)
            for (s1, n1), (s2, _) in itertools.pairwise(ranges):
                assert s1 + n1 < s2, f"free ranges {ranges} are adjacent but not merged"
            free = sum(n for _, n in ranges)
            stats = wia.get_pool_stats(pool)
            assert stats.bytes_in_use == size - free
            assert stats.fragmentation == pytest.approx(1 - max(n for _, n in ranges) / free)
        assert _free_ranges(pool) == [(0, size)]
        assert wia.get_pool_stats(pool).fragmentation == 0.0
    finally:
        wia.destroy_context(ctx)


# -- caching ------------------------------------------------------------------------------------------------------


def test_cache_hits_and_misses(ctx: wia.Context) -> None:
    pool = _pool(ctx, defragment_threshold=NO_DEFRAG)
    stats = wia.get_pool_stats(pool)
    assert (stats.cache_hits, stats.cache_misses, stats.cache_hit_rate) == (0, 0, 0.0)
    a = wia.alloc_from_pool(pool, 1 * MiB)  # nothing reserved: a new segment, a miss
    stats = wia.get_pool_stats(pool)
    assert (stats.cache_hits, stats.cache_misses, stats.cache_hit_rate) == (0, 1, 0.0)
    b = wia.alloc_from_pool(pool, 512 * KiB)  # the rest of that segment: a hit
    wia.free_to_pool(pool, a)
    c = wia.alloc_from_pool(pool, 1 * MiB)  # a's freed block: a hit, at a's place
    assert c.offset == 0 and c.buffer is a.buffer
    stats = wia.get_pool_stats(pool)
    assert (stats.cache_hits, stats.cache_misses) == (2, 1)
    assert stats.cache_hit_rate == pytest.approx(2 / 3)
    d = wia.alloc_from_pool(pool, 3 * MiB)  # more than is free: another segment, a miss
    stats = wia.get_pool_stats(pool)
    assert (stats.cache_hits, stats.cache_misses, stats.num_segments) == (2, 2, 2)
    assert stats.num_allocations == 4 and stats.num_frees == 1
    assert 0.0 <= stats.cache_hit_rate <= 1.0 and 0.0 <= stats.fragmentation <= 1.0
    for m in (b, c, d):
        wia.free_to_pool(pool, m)
    stats = wia.get_pool_stats(pool)
    assert stats.num_frees == 4 and stats.bytes_in_use == 0 and stats.peak_bytes_in_use == 4 * MiB + 512 * KiB


def test_caching_keeps_freed_segments_reserved(ctx: wia.Context, heap: Heap) -> None:
    pool = _pool(ctx)
    mem = wia.alloc_from_pool(pool, 1 * MiB)
    assert heap.bytes_in_use == SEGMENT_GRANULE
    wia.free_to_pool(pool, mem)
    assert heap.bytes_in_use == SEGMENT_GRANULE  # freed to the pool, not to the device
    assert wia.get_pool_stats(pool).bytes_reserved == SEGMENT_GRANULE


def test_caching_off_returns_an_entirely_free_segment_at_once(ctx: wia.Context, heap: Heap) -> None:
    pool = _pool(ctx, enable_caching=False)
    a = wia.alloc_from_pool(pool, 1 * MiB)
    b = wia.alloc_from_pool(pool, 1 * KiB)
    assert heap.bytes_in_use == SEGMENT_GRANULE and ctx.bytes_allocated == SEGMENT_GRANULE
    wia.free_to_pool(pool, a)
    assert heap.bytes_in_use == SEGMENT_GRANULE  # b still lives in the segment
    wia.free_to_pool(pool, b)
    assert heap.bytes_in_use == 0 and ctx.bytes_allocated == 0
    stats = wia.get_pool_stats(pool)
    assert (stats.bytes_reserved, stats.num_segments, stats.num_segment_releases) == (0, 0, 1)
    c = wia.alloc_from_pool(pool, 1 * KiB)  # nothing cached: a miss again
    assert wia.get_pool_stats(pool).cache_misses == 2
    wia.free_to_pool(pool, c)


def test_switching_caching_off_keeps_already_cached_segments(ctx: wia.Context, heap: Heap) -> None:
    """What configure_pool(enable_caching=False) does to segments already cached: they stay until memory_gc or
    until a block freed in them empties them again (the policy applies to frees, not retroactively)."""
    pool = _pool(ctx)
    wia.free_to_pool(pool, wia.alloc_from_pool(pool, 1 * MiB))
    wia.configure_pool(pool, wia.PoolConfig(enable_caching=False))
    assert heap.bytes_in_use == SEGMENT_GRANULE
    wia.free_to_pool(pool, wia.alloc_from_pool(pool, 1 * MiB))  # a hit in the cached segment, then released
    assert heap.bytes_in_use == 0


def test_a_working_set_of_several_segments_is_reused_at_the_default_threshold(ctx: wia.Context) -> None:
    pool = wia.create_memory_pool(ctx)  # the default config: caching on
    for _ in range(5):
        blocks = [wia.alloc_from_pool(pool, 3 * MiB) for _ in range(3)]
        for b in blocks:
            wia.free_to_pool(pool, b)
    stats = wia.get_pool_stats(pool)
    assert stats.cache_misses == 3, stats  # the first round's three segments, then hits only


# -- growth and max_size ------------------------------------------------------------------------------------------


def test_growth_up_to_max_size_then_out_of_memory(ctx: wia.Context, heap: Heap) -> None:
    pool = _pool(ctx, max_size=6 * MiB, block_size=1 * KiB)
    blocks = [wia.alloc_from_pool(pool, 1 * MiB) for _ in range(6)]
    stats = wia.get_pool_stats(pool)
    assert stats.bytes_reserved == 6 * MiB and stats.num_segments == 3 and stats.bytes_in_use == 6 * MiB
    error = _expect(E.OUT_OF_MEMORY, wia.alloc_from_pool, pool, 1 * MiB)
    text = str(error)
    for figure in (1 * MiB, 6 * MiB):  # R-3.5.2-03: the message names the request and the limit
        assert str(figure) in text, text
    assert "max_size" in text
    after = wia.get_pool_stats(pool)
    assert (after.bytes_reserved, after.bytes_in_use, after.num_allocations) == (6 * MiB, 6 * MiB, 6)
    assert heap.bytes_in_use == 6 * MiB  # the failed request reserved nothing
    wia.free_to_pool(pool, blocks[0])
    again = wia.alloc_from_pool(pool, 1 * MiB)  # the pool works on after OUT_OF_MEMORY
    assert again.offset == blocks[0].offset


def test_the_last_segment_is_clamped_to_max_size(ctx: wia.Context) -> None:
    pool = _pool(ctx, max_size=3 * MiB)
    wia.alloc_from_pool(pool, 1 * MiB)
    wia.alloc_from_pool(pool, 1 * MiB)
    third = wia.alloc_from_pool(pool, 1 * MiB)  # a 2 MiB granule would pass max_size: a 1 MiB segment
    stats = wia.get_pool_stats(pool)
    assert stats.bytes_reserved == 3 * MiB and stats.num_segments == 2 and third.offset == 0
    _expect(E.OUT_OF_MEMORY, wia.alloc_from_pool, pool, 1)


def test_a_request_larger_than_max_size_is_out_of_memory(ctx: wia.Context) -> None:
    pool = _pool(ctx, max_size=2 * MiB)
    error = _expect(E.OUT_OF_MEMORY, wia.alloc_from_pool, pool, 2 * MiB + 1)
    assert str(2 * MiB + 256) in str(error) and str(2 * MiB) in str(error)  # the request, rounded, and max_size
    assert wia.get_pool_stats(pool).bytes_reserved == 0


def test_a_pool_without_max_size_grows_until_the_device_is_full(ctx: wia.Context) -> None:
    pool = _pool(ctx)
    blocks = []
    with pytest.raises(wia.OutOfMemoryError) as info:
        for _ in range(64):
            blocks.append(wia.alloc_from_pool(pool, 4 * MiB))
    assert len(blocks) == 16 and "out of memory" in str(info.value)
    assert wia.get_pool_stats(pool).bytes_reserved == 64 * MiB


# -- defragmentation ----------------------------------------------------------------------------------------------


def _two_segments(ctx: wia.Context, threshold: float) -> tuple[MemoryPool, list[wia.Memory]]:
    """Segment 0 holds blocks a (1 MiB) and b (1 MiB); segment 1 holds c (1 MiB) and d (1 MiB)."""
    pool = _pool(ctx, defragment_threshold=threshold)
    blocks = [wia.alloc_from_pool(pool, 1 * MiB) for _ in range(4)]
    assert wia.get_pool_stats(pool).num_segments == 2
    return pool, blocks


def test_fragmentation_above_the_threshold_releases_entirely_free_segments(ctx: wia.Context, heap: Heap) -> None:
    pool, (a, b, c, d) = _two_segments(ctx, threshold=0.3)
    wia.free_to_pool(pool, c)
    wia.free_to_pool(pool, d)  # segment 1 entirely free, the only free memory: fragmentation 0
    assert wia.get_pool_stats(pool).bytes_reserved == 4 * MiB
    wia.free_to_pool(pool, a)  # free: 2 MiB + 1 MiB, largest 2 MiB: fragmentation 1/3 > 0.3
    stats = wia.get_pool_stats(pool)
    assert stats.bytes_reserved == 2 * MiB and stats.num_segment_releases == 1
    assert stats.fragmentation == 0.0  # one free 1 MiB range left
    assert heap.bytes_in_use == 2 * MiB and ctx.bytes_allocated == 2 * MiB
    wia.free_to_pool(pool, b)


def test_fragmentation_at_or_below_the_threshold_keeps_segments(ctx: wia.Context) -> None:
    pool, (a, b, c, d) = _two_segments(ctx, threshold=0.5)
    for m in (c, d, a):
        wia.free_to_pool(pool, m)
    stats = wia.get_pool_stats(pool)
    assert stats.fragmentation == pytest.approx(1 / 3) and stats.bytes_reserved == 4 * MiB
    wia.free_to_pool(pool, b)  # two free segments: fragmentation exactly 0.5, not above the threshold
    stats = wia.get_pool_stats(pool)
    assert stats.fragmentation == 0.5 and stats.bytes_reserved == 4 * MiB and stats.num_segment_releases == 0


def test_defragmentation_never_moves_live_blocks(ctx: wia.Context) -> None:
    pool = _pool(ctx, block_size=1 * KiB, defragment_threshold=0.0)
    blocks = [wia.alloc_from_pool(pool, 1 * KiB) for _ in range(6)]
    places = [(id(m.buffer), m.offset) for m in blocks]
    for m in blocks[::2]:
        wia.free_to_pool(pool, m)  # holes: fragmentation > 0 after every free
    assert wia.get_pool_stats(pool).fragmentation > 0.0
    assert [(id(m.buffer), m.offset) for m in blocks] == places
    assert wia.get_pool_stats(pool).bytes_reserved == SEGMENT_GRANULE  # the segment holds live blocks


# -- configure_pool -------------------------------------------------------------------------------------------------


def test_initial_size_is_reserved_at_once(ctx: wia.Context, heap: Heap) -> None:
    pool = wia.create_memory_pool(ctx)
    assert wia.get_pool_stats(pool).bytes_reserved == 0 and heap.bytes_in_use == 0
    wia.configure_pool(pool, wia.PoolConfig(initial_size=3 * MiB, max_size=16 * MiB))
    stats = wia.get_pool_stats(pool)
    assert stats.bytes_reserved >= 3 * MiB and heap.bytes_in_use == stats.bytes_reserved
    assert stats.num_allocations == 0 and stats.cache_misses == 0
    wia.configure_pool(pool, wia.PoolConfig(initial_size=2 * MiB))  # already reserved: nothing more
    assert wia.get_pool_stats(pool).bytes_reserved == stats.bytes_reserved
    wia.alloc_from_pool(pool, 3 * MiB)  # served from the initial reservation: a hit
    assert wia.get_pool_stats(pool).cache_hits == 1


def test_initial_size_through_create_memory_pool(ctx: wia.Context) -> None:
    pool = _pool(ctx, initial_size=5 * MiB, max_size=5 * MiB)
    assert wia.get_pool_stats(pool).bytes_reserved == 5 * MiB  # clamped to max_size, not a 6 MiB granule


def test_max_size_below_what_is_reserved_is_invalid_value(ctx: wia.Context) -> None:
    pool = _pool(ctx, initial_size=4 * MiB)
    old = pool.config
    _expect(E.INVALID_VALUE, wia.configure_pool, pool, wia.PoolConfig(max_size=2 * MiB))
    assert pool.config is old
    wia.configure_pool(pool, wia.PoolConfig(max_size=4 * MiB))  # equal is fine


@pytest.mark.parametrize(
    "config",
    [
        {"type": wia.PoolType.MAX, "kernel_size": 2},
        {"kernel_size": (2, 2), "stride": 1},
        {"type": wia.PoolType.AVG},
    ],
    ids=["max-2", "kernel-stride", "type-only"],
)
def test_a_pool2d_config_is_invalid_value(ctx: wia.Context, config: dict[str, Any]) -> None:
    pool = wia.create_memory_pool(ctx)
    _expect(E.INVALID_VALUE, wia.configure_pool, pool, wia.PoolConfig(**config))
    _expect(E.INVALID_VALUE, wia.create_memory_pool, ctx, wia.PoolConfig(**config))


@pytest.mark.parametrize(
    "config",
    [
        {"kernel_size": 2, "block_size": 512},
        {"type": wia.PoolType.MAX, "max_size": MiB},
        {"padding": 1, "enable_caching": False},
        {"stride": 2, "defragment_threshold": 0.5},
    ],
    ids=["kernel-block", "type-max", "padding-caching", "stride-threshold"],
)
def test_mixing_pooling_and_memory_fields_is_invalid_value(config: dict[str, Any]) -> None:
    error = _expect(E.INVALID_VALUE, wia.PoolConfig, **config)
    assert "not both" in str(error)


@pytest.mark.parametrize(
    "config",
    [
        {"initial_size": -1},
        {"max_size": 0},
        {"block_size": 0},
        {"block_size": 1.5},
        {"defragment_threshold": 1.5},
        {"defragment_threshold": -0.1},
        {"enable_caching": "yes"},
        {"initial_size": 2 * MiB, "max_size": MiB},
    ],
    ids=[
        "neg-initial",
        "zero-max",
        "zero-block",
        "float-block",
        "threshold-high",
        "threshold-low",
        "str-caching",
        "initial>max",
    ],
)
def test_invalid_memory_pool_configs(ctx: wia.Context, config: dict[str, Any]) -> None:
    def configure() -> None:
        wia.configure_pool(wia.create_memory_pool(ctx), wia.PoolConfig(**config))

    _expect(E.INVALID_VALUE, configure)


@pytest.mark.parametrize("value", [None, {"block_size": 512}, "PoolConfig"], ids=["None", "dict", "str"])
def test_configure_pool_needs_a_pool_config(ctx: wia.Context, value: Any) -> None:
    _expect(E.INVALID_VALUE, wia.configure_pool, wia.create_memory_pool(ctx), value)
    if value is not None:  # create_memory_pool(ctx, None) is the default config
        _expect(E.INVALID_VALUE, wia.create_memory_pool, ctx, value)


def test_a_failed_configure_pool_leaves_the_config_unchanged(ctx: wia.Context) -> None:
    pool = _pool(ctx, block_size=512)
    old = pool.config
    _expect(E.OUT_OF_MEMORY, wia.configure_pool, pool, wia.PoolConfig(initial_size=128 * MiB, block_size=4096))
    assert pool.config == old


def test_an_initial_size_up_to_max_size_is_reserved_whatever_the_block_size(ctx: wia.Context) -> None:
    pool = _pool(ctx, initial_size=1000, max_size=1000, block_size=256)
    assert wia.get_pool_stats(pool).bytes_reserved == 1000


def test_near_max_size_a_miss_reserves_only_what_the_request_needs(ctx: wia.Context) -> None:
    """Near max_size (a 2 MiB granule no longer fits) a miss reserves a segment of just the rounded request, so
    small requests there each cost a device allocation and a segment of their own."""
    pool = _pool(ctx, max_size=3 * MiB, defragment_threshold=NO_DEFRAG)
    wia.alloc_from_pool(pool, SEGMENT_GRANULE)
    small = [wia.alloc_from_pool(pool, 1 * KiB) for _ in range(4)]
    stats = wia.get_pool_stats(pool)
    assert stats.num_segments == 5 and stats.cache_misses == 5 and stats.bytes_reserved == SEGMENT_GRANULE + 4 * KiB
    assert len({id(m.buffer) for m in small}) == 4


# -- misuse -------------------------------------------------------------------------------------------------------


def test_double_free_to_pool_is_invalid_memory(ctx: wia.Context) -> None:
    pool = wia.create_memory_pool(ctx)
    mem = wia.alloc_from_pool(pool, 100)
    wia.free_to_pool(pool, mem)
    _expect(E.INVALID_MEMORY, wia.free_to_pool, pool, mem)
    assert wia.get_pool_stats(pool).num_frees == 1


def test_free_to_another_pool_is_invalid_memory(ctx: wia.Context) -> None:
    a, b = wia.create_memory_pool(ctx), wia.create_memory_pool(ctx)
    mem = wia.alloc_from_pool(a, 100)
    error = _expect(E.INVALID_MEMORY, wia.free_to_pool, b, mem)
    assert "another pool" in str(error)
    wia.free_to_pool(a, mem)  # still live in its own pool


def test_free_to_a_pool_of_another_context_is_invalid_memory(ctx: wia.Context) -> None:
    other = wia.create_context()
    mem = wia.alloc_from_pool(wia.create_memory_pool(ctx), 100)
    _expect(E.INVALID_MEMORY, wia.free_to_pool, wia.create_memory_pool(other), mem)


def test_plain_memory_is_not_pool_memory(ctx: wia.Context) -> None:
    pool = wia.create_memory_pool(ctx)
    mem = wia.alloc(ctx, 100)
    _expect(E.INVALID_MEMORY, wia.free_to_pool, pool, mem)
    wia.free(mem)
    _expect(E.INVALID_VALUE, wia.free_to_pool, pool, "not memory")


def test_wia_free_of_pool_memory_is_invalid_memory(ctx: wia.Context) -> None:
    pool = wia.create_memory_pool(ctx)
    mem = wia.alloc_from_pool(pool, 100)
    error = _expect(E.INVALID_MEMORY, wia.free, mem)
    assert "free_to_pool" in str(error)
    assert wia.get_pool_stats(pool).bytes_in_use == 256  # refused: the block is still live
    wia.free_to_pool(pool, mem)


def test_a_destroyed_pool_is_invalid_value(ctx: wia.Context, heap: Heap) -> None:
    """A destroyed pool is a dead handle: INVALID_VALUE, as a destroyed stream or event (wia_hal/streams.py)."""
    pool = _pool(ctx, initial_size=2 * MiB)
    wia.destroy_pool(pool)
    assert heap.bytes_in_use == 0 and ctx.bytes_allocated == 0
    _expect(E.INVALID_VALUE, wia.alloc_from_pool, pool, 100)
    _expect(E.INVALID_VALUE, wia.get_pool_stats, pool)
    _expect(E.INVALID_VALUE, wia.configure_pool, pool, wia.PoolConfig())
    _expect(E.INVALID_VALUE, wia.destroy_pool, pool)
    assert pool not in ctx.pools


def test_blocks_of_a_destroyed_pool_are_invalid_memory(ctx: wia.Context) -> None:
    pool = wia.create_memory_pool(ctx)
    other = wia.create_memory_pool(ctx)
    mem = wia.alloc_from_pool(pool, 100)
    live = wia.alloc(ctx, 100)
    wia.destroy_pool(pool)
    error = _expect(E.INVALID_MEMORY, wia.copy_async, mem, live, 100)
    assert "destroyed memory pool" in str(error)
    _expect(E.INVALID_MEMORY, wia.copy_async, live, mem, 100)
    _expect(E.INVALID_MEMORY, wia.free_to_pool, other, mem)
    _expect(E.INVALID_MEMORY, wia.free, mem)


@pytest.mark.parametrize(
    "size", [0, -1, -MiB, 1.0, "8", None, True, [8]], ids=["0", "-1", "-MiB", "float", "str", "None", "bool", "list"]
)
def test_invalid_sizes_are_invalid_value(ctx: wia.Context, size: Any) -> None:
    pool = wia.create_memory_pool(ctx)
    _expect(E.INVALID_VALUE, wia.alloc_from_pool, pool, size)
    stats = wia.get_pool_stats(pool)
    assert stats.num_allocations == 0 and stats.cache_misses == 0 and stats.bytes_reserved == 0


def test_numpy_integer_sizes_are_accepted_as_by_alloc(ctx: wia.Context) -> None:
    size = np.prod((5, 5)) * 4  # a NumPy integer, as size arithmetic on shapes gives
    wia.free(wia.alloc(ctx, size))  # type: ignore[arg-type]
    wia.alloc_from_pool(wia.create_memory_pool(ctx), size)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [None, "pool", 3], ids=["None", "str", "int"])
def test_non_pools_are_invalid_value(value: Any) -> None:
    _expect(E.INVALID_VALUE, wia.alloc_from_pool, value, 64)
    _expect(E.INVALID_VALUE, wia.get_pool_stats, value)
    _expect(E.INVALID_VALUE, wia.destroy_pool, value)
    _expect(E.INVALID_VALUE, wia.configure_pool, value, wia.PoolConfig())


def test_errors_are_recorded_on_the_pools_context(ctx: wia.Context) -> None:
    pool = _pool(ctx, max_size=MiB)
    with pytest.raises(wia.OutOfMemoryError):
        wia.alloc_from_pool(pool, 2 * MiB)
    details = wia.get_error_details(ctx)
    assert details.code is E.OUT_OF_MEMORY and details.function == "test_errors_are_recorded_on_the_pools_context"


# -- context limits, destruction and recovery ---------------------------------------------------------------------


def test_the_context_limit_counts_pool_segments(ctx: wia.Context) -> None:
    wia.context_set_memory_limit(ctx, 5 * MiB)
    pool = wia.create_memory_pool(ctx)
    block = wia.alloc_from_pool(pool, 1 * KiB)  # a 2 MiB segment
    assert ctx.bytes_allocated == SEGMENT_GRANULE
    _expect(E.OUT_OF_MEMORY, wia.alloc, ctx, 4 * MiB)  # 2 + 4 > 5
    plain = wia.alloc(ctx, 3 * MiB)
    _expect(E.OUT_OF_MEMORY, wia.alloc_from_pool, pool, SEGMENT_GRANULE)  # a second segment passes the limit
    assert ctx.bytes_allocated == 5 * MiB
    wia.free(plain)
    wia.free_to_pool(pool, block)
    assert ctx.bytes_allocated == SEGMENT_GRANULE  # cached, still counted
    assert wia.memory_gc(ctx) == SEGMENT_GRANULE
    assert ctx.bytes_allocated == 0


def test_out_of_memory_memory_gc_retry(ctx: wia.Context, heap: Heap) -> None:
    """SPEC 3.9 (R-3.9-04): the device is full of a caching pool's freed segments; a plain alloc fails,
    memory_gc releases the cached segments, the retry succeeds."""
    pool = _pool(ctx, defragment_threshold=NO_DEFRAG)
    blocks = []
    with pytest.raises(wia.OutOfMemoryError):
        while True:
            blocks.append(wia.alloc_from_pool(pool, 4 * MiB))
    assert heap.bytes_in_use == heap.size
    for mem in blocks:
        wia.free_to_pool(pool, mem)
    assert heap.bytes_in_use == heap.size  # cached by the pool
    _expect(E.OUT_OF_MEMORY, wia.alloc, ctx, 8 * MiB)
    released = wia.memory_gc(ctx)
    assert released == heap.size and heap.bytes_in_use == 0
    stats = wia.get_pool_stats(pool)
    assert stats.bytes_reserved == 0 and stats.num_segment_releases == len(blocks)
    mem = wia.alloc(ctx, 8 * MiB)  # the retry
    wia.free(mem)
    assert wia.memory_gc(ctx) == 0  # nothing cached any more


def test_memory_gc_keeps_segments_with_live_blocks(ctx: wia.Context, heap: Heap) -> None:
    pool = _pool(ctx, defragment_threshold=NO_DEFRAG)
    live = wia.alloc_from_pool(pool, 1 * MiB)
    wia.free_to_pool(pool, wia.alloc_from_pool(pool, 3 * MiB))  # a second segment, then entirely free
    other = _pool(ctx, initial_size=2 * MiB)
    assert wia.memory_gc(ctx) == 4 * MiB + 2 * MiB  # both pools' free segments
    assert heap.bytes_in_use == SEGMENT_GRANULE
    assert wia.get_pool_stats(pool).bytes_in_use == 1 * MiB
    assert wia.get_pool_stats(other).bytes_reserved == 0
    wia.free_to_pool(pool, live)


def test_memory_gc_without_a_context_uses_the_default_context() -> None:
    t = wia.tensor(np.ones(1024, np.float32))  # in the Level-1 default context's pool
    pool = wia.get_default_context().default_pool
    assert pool is not None and t.memory.pool is pool
    wia.release_tensor(t)
    reserved = wia.get_pool_stats(pool).bytes_reserved
    assert reserved > 0
    assert wia.memory_gc() == reserved
    _expect(E.INVALID_CONTEXT, wia.memory_gc, "ctx")


def test_destroying_the_context_destroys_its_pools(heap: Heap) -> None:
    ctx = wia.create_context(wia.ContextConfig(memory_pool_size=2 * MiB))
    default = ctx.default_pool
    assert default is not None
    pool = _pool(ctx, initial_size=2 * MiB)
    block = wia.alloc_from_pool(pool, 100)
    t = wia.tensor(np.ones(8, np.float32), ctx=ctx)
    assert t.memory.pool is default
    assert heap.bytes_in_use == 4 * MiB
    wia.destroy_context(ctx)
    assert heap.bytes_in_use == 0
    assert pool.destroyed and default.destroyed and ctx.default_pool is None
    for p in (pool, default):
        with pytest.raises(wia.WiaError) as info:
            wia.get_pool_stats(p)
        assert info.value.code in (E.INVALID_VALUE, E.INVALID_CONTEXT)
    _expect(E.INVALID_MEMORY, wia.free_to_pool, wia.create_memory_pool(wia.create_context()), block)
    del t
    gc.collect()  # the tensor's finalizer must not touch the destroyed pool


# -- default pools and tensors ------------------------------------------------------------------------------------


def test_memory_pool_size_creates_the_default_pool(heap: Heap) -> None:
    ctx = wia.create_context(wia.ContextConfig(memory_pool_size=3 * MiB))
    pool = ctx.default_pool
    assert pool is not None and pool in ctx.pools
    stats = wia.get_pool_stats(pool)
    assert stats.bytes_reserved >= 3 * MiB and heap.bytes_in_use == stats.bytes_reserved
    x = wia.tensor(np.arange(16, dtype=np.float32).reshape(4, 4), ctx=ctx)
    y = wia.add(x, x)
    z = wia.matmul(x, y)
    for t in (x, y, z):
        assert t.memory.pool is pool
    np.testing.assert_array_equal(z.numpy(), np.arange(16, dtype=np.float32).reshape(4, 4) @ (2 * x.numpy()))
    stats = wia.get_pool_stats(pool)
    assert stats.num_allocations == 3 and stats.cache_hits == 3 and heap.bytes_in_use == stats.bytes_reserved
    wia.release_tensor(y)
    assert wia.get_pool_stats(pool).num_frees == 1
    host = wia.zeros(4, ctx=ctx, memory=wia.MemoryType.PINNED)  # only DEVICE memory comes from the pool
    assert host.memory.pool is None


def test_every_context_has_a_default_pool_unless_it_opts_out(ctx: wia.Context, heap: Heap) -> None:
    """R-3.3-01: a context holds a memory pool; without memory_pool_size it reserves nothing until the first
    tensor. ``default_pool=False`` studies raw allocation: each tensor allocates (and frees) device memory."""
    assert ctx.default_pool is not None and ctx.pools == [ctx.default_pool]
    assert heap.bytes_in_use == 0
    t = wia.tensor(np.ones(4, np.float32), ctx=ctx)
    assert t.memory.pool is ctx.default_pool
    raw = wia.create_context(wia.ContextConfig(default_pool=False))
    assert raw.default_pool is None and raw.pools == []
    before = heap.bytes_in_use
    u = wia.tensor(np.ones(4, np.float32), ctx=raw)
    assert u.memory.pool is None and heap.bytes_in_use == before + 256
    _expect(E.INVALID_VALUE, wia.create_context, wia.ContextConfig(memory_pool_size=MiB, default_pool=False))


def test_memory_pool_size_beyond_the_device_is_out_of_memory(heap: Heap) -> None:
    _expect(E.OUT_OF_MEMORY, wia.create_context, wia.ContextConfig(memory_pool_size=65 * MiB))
    assert heap.bytes_in_use == 0


def test_the_level1_default_context_has_a_default_pool() -> None:
    ctx = wia.get_default_context()
    assert ctx.default_pool is not None
    t = wia.relu(wia.tensor(np.array([-1.0, 2.0], np.float32)))
    assert t.memory.pool is ctx.default_pool
    np.testing.assert_array_equal(t.numpy(), [0.0, 2.0])


def test_tensors_from_a_pool(ctx: wia.Context) -> None:
    pool = _pool(ctx, block_size=1 * KiB)
    data = np.arange(300, dtype=np.float32)
    t = wia.tensor(data, ctx=ctx, pool=pool)
    e = wia.empty((10, 10), wia.int32, ctx=ctx, pool=pool)
    z = wia.zeros((3, 5), wia.float16, ctx=ctx, pool=pool)
    for x in (t, e, z):
        assert x.memory.pool is pool and x.memory.type is wia.MemoryType.DEVICE
    assert (t.memory.offset, e.memory.offset, z.memory.offset) == (0, 2 * KiB, 3 * KiB)
    np.testing.assert_array_equal(t.numpy(), data)
    np.testing.assert_array_equal(z.numpy(), np.zeros((3, 5), np.float16))
    np.testing.assert_array_equal(wia.add(t, t).numpy(), data * 2)  # the output comes from no pool: ctx has none
    assert wia.get_pool_stats(pool).bytes_in_use == 4 * KiB
    wia.release_tensor(t)
    del e
    gc.collect()
    stats = wia.get_pool_stats(pool)
    assert stats.bytes_in_use == 1 * KiB and stats.num_frees == 2


def test_tensor_pool_misuse(ctx: wia.Context) -> None:
    other = wia.create_context()
    pool = wia.create_memory_pool(other)
    _expect(E.INVALID_MEMORY, wia.tensor, np.ones(3, np.float32), ctx=ctx, pool=pool)
    _expect(E.INVALID_VALUE, wia.empty, 3, ctx=other, pool=pool, memory=wia.MemoryType.PINNED)
    _expect(E.INVALID_VALUE, wia.zeros, 3, ctx=other, pool="pool")
    t = wia.tensor(np.ones(3, np.float32), ctx=other, pool=pool)
    wia.destroy_pool(pool)
    _expect(E.INVALID_VALUE, wia.empty, 3, ctx=other, pool=pool)
    error = _expect(E.INVALID_MEMORY, wia.add, t, t)
    assert "pool was destroyed" in str(error)
    _expect(E.INVALID_MEMORY, t.numpy)


# -- modeled host time ----------------------------------------------------------------------------------------------


def _host_cost(sim: SimBackend, fn: Callable[[], Any]) -> tuple[float, Any]:
    before = sim.machine.host_time
    result = fn()
    return sim.machine.host_time - before, result


def test_a_pool_hit_costs_far_less_host_time_than_alloc(ctx: wia.Context, sim: SimBackend) -> None:
    api = sim.model.host.api_overhead
    alloc_latency = sim.model.memory.alloc_latency
    free_latency = sim.model.memory.free_latency
    pool = wia.create_memory_pool(ctx)
    miss, first = _host_cost(sim, lambda: wia.alloc_from_pool(pool, MiB))
    assert miss == pytest.approx(alloc_latency)  # a miss is one call that allocates a segment from the device
    free_cost, _ = _host_cost(sim, lambda: wia.free_to_pool(pool, first))
    hit, block = _host_cost(sim, lambda: wia.alloc_from_pool(pool, MiB))
    assert wia.get_pool_stats(pool).cache_hits == 1
    assert hit == pytest.approx(api) and free_cost == pytest.approx(api)
    plain, mem = _host_cost(sim, lambda: wia.alloc(ctx, MiB))
    plain_free, _ = _host_cost(sim, lambda: wia.free(mem))
    assert plain == pytest.approx(alloc_latency) and plain_free == pytest.approx(free_latency)
    assert hit * 10 <= plain  # wia-tiny: 1 us against 20 us
    assert (plain + plain_free) / (hit + free_cost) == pytest.approx((alloc_latency + free_latency) / (2 * api))
    wia.free_to_pool(pool, block)


def test_caching_off_pays_the_device_free_when_a_segment_empties(ctx: wia.Context, sim: SimBackend) -> None:
    pool = _pool(ctx, enable_caching=False)
    mem = wia.alloc_from_pool(pool, MiB)
    cost, _ = _host_cost(sim, lambda: wia.free_to_pool(pool, mem))
    assert cost == pytest.approx(sim.model.memory.free_latency)  # one call that frees a segment
