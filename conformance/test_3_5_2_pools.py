"""SPEC 3.5.2: memory pools; with them R-3.9-04 (OUT_OF_MEMORY, memory_gc, retry) and R-3.3-02 (memory_pool_size).

Every test here names a 3.5.2 requirement, so all of them count for Level 2 (a Level-1 backend need not have pools).

Readings the suite makes (see also docs/memory.md):

- Freed blocks stay in the pool while fragmentation is not above ``defragment_threshold``; tests that need a block
  to stay cached configure ``enable_caching=True, defragment_threshold=1.0`` so that R-3.5.2-05 cannot release it.
- A destroyed pool is a dead handle: using it raises ``INVALID_VALUE`` (as a destroyed stream or event) or
  ``INVALID_MEMORY``; a block of a destroyed pool, or a block given to ``free`` or to another pool, is
  ``INVALID_MEMORY``.
- The context's memory limit (R-3.3-04) counts what its pools reserve: ``alloc_from_pool`` is an allocation of
  the context, so a pool cannot grow past the limit.
- R-3.5.2-05: the pool never moves live blocks (their memory is the caller's), so what it can release is free
  memory it holds apart from live blocks. The test frees blocks in allocation order (no holes between live blocks)
  and checks that after every free the fragmentation is at most the threshold or the reserved memory dropped.
- R-3.5.2-06 ("far cheaper than device allocation, 100x"): host API time is not observable through the public API
  (events time device work, not host calls), and the wall-clock time of a call on a simulator measures the
  simulator (on the sim a 256-byte pooled alloc/free pair takes about 4 us of wall-clock time against 3 us for
  alloc/free). The suite checks what makes a pooled allocation cheap on any backend: in steady state a pooled
  alloc/free pair is served from reserved memory without a device allocation (every request a cache hit, the
  reserved memory unchanged). The simulator's modeled host times are tested in tests/test_pools.py and reported
  by benchmarks/pool.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import wia_hal as wia
from conformance import assertions as ph
from conformance import strategies as hh
from conformance.conftest import ContextFactory

E = wia.ErrorCode
M = wia.MemoryType
KiB, MiB = hh.KiB, hh.MiB
CACHING = {"enable_caching": True, "defragment_threshold": 1.0}
"""A pool that keeps every freed block (fragmentation is never above 1)."""


def _pool(ctx: wia.Context, **config: Any) -> wia.MemoryPool:
    return wia.create_memory_pool(ctx, wia.PoolConfig(**config))


def _stats(pool: wia.MemoryPool, call: str) -> wia.PoolStats:
    __tracebackhide__ = True
    stats = wia.get_pool_stats(pool)
    ph.assert_pool_stats_valid(stats, f"get_pool_stats(pool) after {call}")
    return stats


def _round_trip(ctx: wia.Context, mem: wia.Memory, seed: int) -> None:
    """Write random bytes into ``mem`` from HOST memory and read them back."""
    __tracebackhide__ = True
    n = mem.size
    data = np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)
    src, dst = wia.alloc(ctx, n, M.HOST), wia.alloc(ctx, n, M.HOST)
    wia.memory_ptr(src)[:] = data
    wia.copy_async(src, mem, n)
    wia.copy_async(mem, dst, n)
    wia.context_synchronize(ctx)
    ph.assert_bytes_equal(wia.memory_ptr(dst), data, f"HOST -> alloc_from_pool(pool, {n}) -> HOST")
    wia.free(src)
    wia.free(dst)


# -- R-3.5.2-01: create, configure, destroy -------------------------------------------------------------------------


@pytest.mark.req("R-3.5.2-01")
def test_create_configure_destroy(ctx: wia.Context) -> None:
    pool = wia.create_memory_pool(ctx)
    ph.assert_isinstance(pool, wia.MemoryPool, "create_memory_pool(ctx)")
    stats = _stats(pool, "create_memory_pool(ctx)")
    ph.assert_equal(stats.num_allocations, 0, "get_pool_stats(new pool).num_allocations")
    config = wia.PoolConfig(
        initial_size=1 * MiB, max_size=8 * MiB, block_size=512, enable_caching=True, defragment_threshold=0.5
    )
    wia.configure_pool(pool, config)
    stats = _stats(pool, f"configure_pool(pool, {config!r})")
    ph.assert_true(
        stats.bytes_reserved >= 1 * MiB,
        stats.bytes_reserved,
        "at least initial_size = 1 MiB reserved",
        "get_pool_stats(pool).bytes_reserved after configure_pool(initial_size=1 MiB)",
    )
    mem = wia.alloc_from_pool(pool, 1000)
    wia.free_to_pool(pool, mem)
    wia.destroy_pool(pool)
    for fn, args in ((wia.alloc_from_pool, (pool, 64)), (wia.get_pool_stats, (pool,)), (wia.destroy_pool, (pool,))):
        ph.assert_raises_code((E.INVALID_VALUE, E.INVALID_MEMORY), fn, *args)


@pytest.mark.req("R-3.5.2-01")
def test_create_memory_pool_with_a_config(ctx: wia.Context) -> None:
    pool = _pool(ctx, initial_size=2 * MiB, block_size=4 * KiB)
    stats = _stats(pool, "create_memory_pool(ctx, PoolConfig(initial_size=2 MiB, block_size=4 KiB))")
    ph.assert_true(stats.bytes_reserved >= 2 * MiB, stats.bytes_reserved, "at least 2 MiB", "bytes_reserved")
    wia.destroy_pool(pool)


@pytest.mark.req("R-3.5.2-01", "R-3.1-04")
def test_create_memory_pool_without_a_context_uses_the_default(device: wia.Device) -> None:
    pool = wia.create_memory_pool()
    mem = wia.alloc_from_pool(pool, 256)
    ph.assert_true(
        mem.context is wia.get_default_context(), mem.context, "the default context", "alloc_from_pool(pool, 256)"
    )
    wia.free_to_pool(pool, mem)
    wia.destroy_pool(pool)


_BAD_CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("negative-initial_size", {"initial_size": -1}),
    ("zero-max_size", {"max_size": 0}),
    ("zero-block_size", {"block_size": 0}),
    ("float-block_size", {"block_size": 1.5}),
    ("threshold-above-1", {"defragment_threshold": 1.5}),
    ("negative-threshold", {"defragment_threshold": -0.5}),
    ("initial-above-max", {"initial_size": 2 * MiB, "max_size": 1 * MiB}),
    ("pool2d-config", {"type": wia.PoolType.MAX, "kernel_size": 2}),
]


@pytest.mark.req("R-3.5.2-01")
@pytest.mark.parametrize("config", [c for _, c in _BAD_CONFIGS], ids=[n for n, _ in _BAD_CONFIGS])
def test_invalid_pool_config_is_invalid_value(config: dict[str, Any], ctx: wia.Context) -> None:
    pool = wia.create_memory_pool(ctx)

    def configure_pool_with(**fields: Any) -> None:
        wia.configure_pool(pool, wia.PoolConfig(**fields))

    ph.assert_raises_code(E.INVALID_VALUE, configure_pool_with, **config)
    mem = wia.alloc_from_pool(pool, 64)  # the pool still works
    wia.free_to_pool(pool, mem)


@pytest.mark.req("R-3.5.2-01", "R-3.5.2-03")
@pytest.mark.parametrize(
    ("initial", "maximum", "block"),
    [(1000, 1000, 256), (3 * MiB + 100, 3 * MiB + 100, 512), (1000, 1100, 512)],
    ids=["1000-of-1000-block-256", "3MiB+100-of-3MiB+100-block-512", "1000-of-1100-block-512"],
)
def test_an_initial_size_within_max_size_is_reserved(ctx: wia.Context, initial: int, maximum: int, block: int) -> None:
    """``initial_size <= max_size`` is a valid config; reserving it stays within max_size, so it must not be
    OUT_OF_MEMORY, whatever ``block_size`` is (blocks are what requests round to, R-3.5.2-02)."""
    config = wia.PoolConfig(initial_size=initial, max_size=maximum, block_size=block)
    pool = wia.create_memory_pool(ctx)
    wia.configure_pool(pool, config)
    stats = _stats(pool, f"configure_pool(pool, {config!r})")
    ph.assert_true(
        initial <= stats.bytes_reserved <= maximum,
        stats.bytes_reserved,
        f"from initial_size={initial} to max_size={maximum} bytes",
        "bytes_reserved",
    )


@pytest.mark.req("R-3.5.2-01")
@pytest.mark.parametrize("value", [None, "pool", 3], ids=["None", "str", "int"])
def test_non_pools_are_invalid_value(value: Any, ctx: wia.Context) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, wia.alloc_from_pool, value, 64)
    ph.assert_raises_code(E.INVALID_VALUE, wia.get_pool_stats, value)
    ph.assert_raises_code(E.INVALID_VALUE, wia.configure_pool, value, wia.PoolConfig())
    ph.assert_raises_code(E.INVALID_VALUE, wia.destroy_pool, value)


@pytest.mark.req("R-3.5.2-01", "R-3.3-07")
def test_destroying_the_context_destroys_its_pools(new_context: ContextFactory) -> None:
    ctx = new_context()
    pool = _pool(ctx, initial_size=1 * MiB)
    mem = wia.alloc_from_pool(pool, 4 * KiB)
    wia.destroy_context(ctx)
    ph.assert_raises_code((E.INVALID_VALUE, E.INVALID_CONTEXT), wia.alloc_from_pool, pool, 64)
    ph.assert_raises_code((E.INVALID_VALUE, E.INVALID_CONTEXT), wia.get_pool_stats, pool)
    other = new_context()
    ph.assert_raises_code((E.INVALID_MEMORY, E.INVALID_CONTEXT), wia.copy_async, mem, wia.alloc(other, 64), 64)


# -- R-3.5.2-02: allocation, return, reuse, rounding ----------------------------------------------------------------


@pytest.mark.req("R-3.5.2-02", "R-3.4-03")
def test_pool_memory_is_device_memory_that_holds_data(ctx: wia.Context) -> None:
    pool = wia.create_memory_pool(ctx)

    @hh.suite_settings()
    @given(size=hh.byte_sizes(256 * KiB), seed=st.integers(0, 2**16))
    def check(size: int, seed: int) -> None:
        mem = wia.alloc_from_pool(pool, size)
        call = f"alloc_from_pool(pool, {size})"
        ph.assert_isinstance(mem, wia.Memory, call)
        ph.assert_equal(mem.size, size, f"{call}.size")
        ph.assert_equal(mem.type, M.DEVICE, f"{call}.type")
        _round_trip(ctx, mem, seed)
        wia.free_to_pool(pool, mem)

    check()


@pytest.mark.req("R-3.5.2-02", "R-3.4-03")
def test_blocks_do_not_overlap(ctx: wia.Context) -> None:
    pool = _pool(ctx, block_size=256)
    sizes = [1, 300, 256, 4 * KiB, 1000, 64 * KiB + 3]
    blocks = [wia.alloc_from_pool(pool, n) for n in sizes]
    host = wia.alloc(ctx, max(sizes), M.HOST)
    for i, mem in enumerate(blocks):  # fill each block with its own byte value, then read all back
        wia.memory_ptr(host)[: mem.size] = i + 1
        wia.copy_async(host, mem, mem.size)
    for i, mem in enumerate(blocks):
        wia.copy_async(mem, host, mem.size)
        wia.context_synchronize(ctx)
        expected = np.full(mem.size, i + 1, np.uint8)
        ph.assert_bytes_equal(wia.memory_ptr(host)[: mem.size], expected, f"block {i} ({mem.size} bytes) read back")


@pytest.mark.req("R-3.5.2-02")
def test_a_freed_block_is_reused(ctx: wia.Context) -> None:
    pool = _pool(ctx, **CACHING)
    first = wia.alloc_from_pool(pool, 1 * MiB)
    before = _stats(pool, "alloc_from_pool(pool, 1 MiB)")
    wia.free_to_pool(pool, first)
    freed = _stats(pool, "free_to_pool(pool, block)")
    ph.assert_equal(freed.bytes_reserved, before.bytes_reserved, "bytes_reserved after free_to_pool (kept by the pool)")
    ph.assert_equal(freed.bytes_in_use, 0, "bytes_in_use after freeing the only block")
    second = wia.alloc_from_pool(pool, 1 * MiB)
    after = _stats(pool, "a second alloc_from_pool(pool, 1 MiB)")
    ph.assert_equal(after.cache_hits, before.cache_hits + 1, "cache_hits after the second allocation (a hit)")
    ph.assert_equal(after.cache_misses, before.cache_misses, "cache_misses after the second allocation")
    ph.assert_equal(after.bytes_reserved, before.bytes_reserved, "bytes_reserved after the second allocation")
    wia.free_to_pool(pool, second)


@pytest.mark.req("R-3.5.2-02")
def test_requests_are_rounded_up_to_block_size(ctx: wia.Context) -> None:
    @hh.suite_settings()
    @given(block=st.sampled_from(hh.BLOCK_SIZES), sizes=st.lists(hh.byte_sizes(128 * KiB), min_size=1, max_size=5))
    def check(block: int, sizes: list[int]) -> None:
        pool = _pool(ctx, block_size=block)
        blocks = [wia.alloc_from_pool(pool, n) for n in sizes]
        call = f"alloc_from_pool(pool with block_size={block}, n) for n in {sizes}"
        stats = _stats(pool, call)
        ph.assert_equal(stats.bytes_in_use, sum(ph.rounded_to_block(n, block) for n in sizes), f"{call}: bytes_in_use")
        ph.assert_equal(stats.bytes_requested, sum(sizes), f"{call}: bytes_requested")
        for mem in blocks:
            wia.free_to_pool(pool, mem)
        ph.assert_equal(wia.get_pool_stats(pool).bytes_in_use, 0, f"bytes_in_use after freeing every block ({call})")
        wia.destroy_pool(pool)

    check()


@pytest.mark.req("R-3.5.2-02")
def test_tensors_can_come_from_a_pool(ctx: wia.Context) -> None:
    pool = _pool(ctx, block_size=256)
    data = np.arange(100, dtype=np.float32)
    t = wia.tensor(data, ctx=ctx, pool=pool)
    ph.assert_equal(wia.get_pool_stats(pool).bytes_in_use, 512, "bytes_in_use after tensor(400 bytes, pool=pool)")
    ph.assert_array_equal(t.numpy(), data, "tensor(data, pool=pool).numpy()")
    ph.assert_array_close(wia.add(t, t, ctx=ctx).numpy(), data * 2, np.dtype(np.float32), "add(t, t) of a pool tensor")
    wia.release_tensor(t)
    ph.assert_equal(wia.get_pool_stats(pool).bytes_in_use, 0, "bytes_in_use after release_tensor")


@pytest.mark.req("R-3.5.2-02", "R-3.5.1-06")
def test_double_free_to_pool_is_invalid_memory(ctx: wia.Context) -> None:
    pool = wia.create_memory_pool(ctx)
    mem = wia.alloc_from_pool(pool, 128)
    wia.free_to_pool(pool, mem)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.free_to_pool, pool, mem)


@pytest.mark.req("R-3.5.2-02", "R-3.5.1-06")
def test_a_block_returns_only_to_its_own_pool(ctx: wia.Context) -> None:
    a, b = wia.create_memory_pool(ctx), wia.create_memory_pool(ctx)
    mem = wia.alloc_from_pool(a, 128)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.free_to_pool, b, mem)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.free, mem)
    plain = wia.alloc(ctx, 128)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.free_to_pool, a, plain)
    wia.free_to_pool(a, mem)  # refused everywhere else, still live in its own pool
    wia.free(plain)


@pytest.mark.req("R-3.5.2-02", "R-3.5.1-06")
def test_blocks_of_a_destroyed_pool_are_invalid_memory(ctx: wia.Context) -> None:
    pool = wia.create_memory_pool(ctx)
    mem = wia.alloc_from_pool(pool, 128)
    other = wia.alloc(ctx, 128)
    wia.destroy_pool(pool)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.copy_async, mem, other, 128)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.copy_async, other, mem, 128)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.free_to_pool, wia.create_memory_pool(ctx), mem)


_BAD_SIZES: list[tuple[str, Any]] = [("0", 0), ("-1", -1), ("float", 64.0), ("str", "64"), ("None", None)]


@pytest.mark.req("R-3.5.2-02", "R-3.5.1-01")
@pytest.mark.parametrize("size", [v for _, v in _BAD_SIZES], ids=[n for n, _ in _BAD_SIZES])
def test_invalid_size_is_invalid_value(size: Any, ctx: wia.Context) -> None:
    pool = wia.create_memory_pool(ctx)
    ph.assert_raises_code(E.INVALID_VALUE, wia.alloc_from_pool, pool, size)
    ph.assert_equal(wia.get_pool_stats(pool).num_allocations, 0, f"num_allocations after alloc_from_pool({size!r})")


# -- R-3.5.2-03: growth up to max_size ------------------------------------------------------------------------------


@pytest.mark.req("R-3.5.2-03")
def test_the_pool_grows_up_to_max_size_then_out_of_memory(ctx: wia.Context) -> None:
    pool = _pool(ctx, max_size=4 * MiB)
    blocks = []
    for i in range(4):
        blocks.append(wia.alloc_from_pool(pool, 1 * MiB))
        stats = _stats(pool, f"allocation {i + 1} of 1 MiB with max_size=4 MiB")
        ph.assert_true(stats.bytes_reserved <= 4 * MiB, stats.bytes_reserved, "at most max_size", "bytes_reserved")
    ph.assert_raises_code(E.OUT_OF_MEMORY, wia.alloc_from_pool, pool, 1 * MiB)
    ph.assert_raises_code(E.OUT_OF_MEMORY, wia.alloc_from_pool, pool, 1)
    wia.free_to_pool(pool, blocks.pop())
    blocks.append(wia.alloc_from_pool(pool, 1 * MiB))  # usable again once a block is back


@pytest.mark.req("R-3.5.2-03")
def test_out_of_memory_only_beyond_max_size(ctx: wia.Context) -> None:
    @hh.suite_settings()
    @given(
        block=st.sampled_from(hh.BLOCK_SIZES),
        max_size=st.integers(1, 8 * MiB),
        steps=st.lists(st.one_of(st.integers(1, 3 * MiB), st.none()), min_size=1, max_size=16),
    )
    def check(block: int, max_size: int, steps: list[int | None]) -> None:
        pool = _pool(ctx, block_size=block, max_size=max_size)
        live: list[wia.Memory] = []
        for size in steps:
            if size is None:  # free the oldest live block
                if live:
                    wia.free_to_pool(pool, live.pop(0))
                continue
            before = wia.get_pool_stats(pool)
            call = f"alloc_from_pool(pool with block_size={block} max_size={max_size}, {size})"
            try:
                live.append(wia.alloc_from_pool(pool, size))
            except wia.OutOfMemoryError:
                need = ph.rounded_to_block(size, block)
                ph.assert_true(
                    before.bytes_reserved + need > max_size,
                    f"OUT_OF_MEMORY with {before.bytes_reserved} bytes reserved",
                    f"success: {need} more bytes stay within max_size={max_size}",
                    call,
                )
            stats = _stats(pool, call)
            ph.assert_true(stats.bytes_reserved <= max_size, stats.bytes_reserved, f"at most {max_size}", call)
        wia.destroy_pool(pool)

    check()


# -- R-3.5.2-04: statistics -----------------------------------------------------------------------------------------


@pytest.mark.req("R-3.5.2-04")
def test_stats_count_the_calls_and_stay_in_range(ctx: wia.Context) -> None:
    @hh.suite_settings()
    @given(
        config=hh.pool_configs(),
        steps=st.lists(st.one_of(hh.byte_sizes(512 * KiB), st.integers(-3, -1)), min_size=1, max_size=20),
    )
    def check(config: wia.PoolConfig, steps: list[int]) -> None:
        pool = wia.create_memory_pool(ctx, config)
        call = f"create_memory_pool(ctx, {config!r})"
        _stats(pool, call)
        live: list[wia.Memory] = []
        allocations = frees = 0
        for step in steps:
            if step < 0:  # free a live block (counted from the newest)
                if len(live) >= -step:
                    wia.free_to_pool(pool, live.pop(step))
                    frees += 1
                    call = f"free_to_pool (free number {frees})"
                else:
                    continue
            else:
                try:
                    live.append(wia.alloc_from_pool(pool, step))
                    allocations += 1
                except wia.OutOfMemoryError:  # beyond max_size
                    pass
                call = f"alloc_from_pool(pool, {step}) (allocation number {allocations})"
            stats = _stats(pool, call)
            ph.assert_equal(stats.num_allocations, allocations, f"num_allocations after {call}")
            if hasattr(stats, "num_frees"):
                ph.assert_equal(stats.num_frees, frees, f"num_frees after {call}")
        wia.destroy_pool(pool)

    check()


@pytest.mark.req("R-3.5.2-04", "R-3.5.2-02")
def test_cache_hit_rate_of_a_repeated_allocation(ctx: wia.Context) -> None:
    pool = _pool(ctx, **CACHING)
    n = 20
    for _ in range(n):
        wia.free_to_pool(pool, wia.alloc_from_pool(pool, 64 * KiB))
    stats = _stats(pool, f"{n} alloc/free pairs of 64 KiB")
    ph.assert_equal(stats.num_allocations, n, "num_allocations")
    ph.assert_true(
        stats.cache_hit_rate >= (n - 1) / n,
        stats.cache_hit_rate,
        f"at least {(n - 1) / n} (only the first allocation may miss)",
        f"cache_hit_rate after {n} alloc/free pairs of one size",
    )
    ph.assert_true(stats.peak_bytes_in_use >= 64 * KiB, stats.peak_bytes_in_use, "at least 64 KiB", "peak_bytes_in_use")


# -- R-3.5.2-05: fragmentation threshold ----------------------------------------------------------------------------


@pytest.mark.req("R-3.5.2-05")
@pytest.mark.parametrize("threshold", [0.0, 0.2, 0.5])
def test_above_the_threshold_the_pool_releases_or_compacts(ctx: wia.Context, threshold: float) -> None:
    pool = _pool(ctx, enable_caching=True, defragment_threshold=threshold)
    blocks = [wia.alloc_from_pool(pool, 1 * MiB) for _ in range(8)]
    peak = wia.get_pool_stats(pool).bytes_reserved
    for i, mem in enumerate(blocks):  # in allocation order: free memory never sits between live blocks
        before = wia.get_pool_stats(pool).bytes_reserved
        wia.free_to_pool(pool, mem)
        stats = _stats(pool, f"free_to_pool of block {i} of 8")
        ph.assert_true(
            stats.fragmentation <= threshold or stats.bytes_reserved < before,
            f"fragmentation {stats.fragmentation:.3f} with bytes_reserved {stats.bytes_reserved} (was {before})",
            f"fragmentation at most {threshold}, or memory released",
            f"free_to_pool of block {i} of 8 (1 MiB each) with defragment_threshold={threshold}",
        )
    stats = _stats(pool, "freeing all 8 blocks")
    ph.assert_true(
        stats.fragmentation <= threshold or stats.bytes_reserved < peak,
        stats,
        f"fragmentation at most {threshold} or less than the {peak} bytes reserved at the peak",
        "get_pool_stats after freeing every block",
    )


@pytest.mark.req("R-3.5.2-05", "R-3.5.2-02")
def test_at_threshold_one_nothing_is_released(ctx: wia.Context) -> None:
    pool = _pool(ctx, **CACHING)
    blocks = [wia.alloc_from_pool(pool, 1 * MiB) for _ in range(8)]
    peak = wia.get_pool_stats(pool).bytes_reserved
    for mem in blocks[::2] + blocks[1::2]:
        wia.free_to_pool(pool, mem)
    stats = _stats(pool, "freeing 8 blocks of 1 MiB (threshold 1.0)")
    ph.assert_equal(stats.bytes_reserved, peak, "bytes_reserved after freeing every block (cached, never released)")


# -- R-3.5.2-06: pooled allocation needs no device allocation -------------------------------------------------------


@pytest.mark.req("R-3.5.2-06", "R-3.5.2-02")
def test_steady_state_pool_allocations_need_no_device_allocation(ctx: wia.Context) -> None:
    pool = _pool(ctx, **CACHING)
    wia.free_to_pool(pool, wia.alloc_from_pool(pool, 1 * MiB))
    warm = _stats(pool, "the first alloc/free pair of 1 MiB")
    n = 500
    for _ in range(n):
        wia.free_to_pool(pool, wia.alloc_from_pool(pool, 1 * MiB))
    stats = _stats(pool, f"{n} more alloc/free pairs of 1 MiB")
    ph.assert_equal(stats.num_allocations, n + 1, "num_allocations")
    ph.assert_equal(stats.cache_hits - warm.cache_hits, n, f"cache hits among the {n} pairs after the first")
    ph.assert_equal(stats.bytes_reserved, warm.bytes_reserved, f"bytes_reserved after {n} pairs (no device allocation)")
    ph.assert_equal(stats.num_segments, warm.num_segments, f"num_segments after {n} pairs")


# -- R-3.9-04 and R-3.3-02 with pools -------------------------------------------------------------------------------


@pytest.mark.req("R-3.9-04", "R-3.3-04", "R-3.5.2-02")
def test_out_of_memory_then_memory_gc_then_retry(ctx: wia.Context) -> None:
    limit = 16 * MiB
    wia.context_set_memory_limit(ctx, limit)
    pool = _pool(ctx, **CACHING)
    blocks = []
    for _ in range(limit // MiB + 1):
        try:
            blocks.append(wia.alloc_from_pool(pool, 1 * MiB))
        except wia.OutOfMemoryError:
            break
    else:
        ph.fail(
            f"{len(blocks)} blocks of 1 MiB",
            f"OUT_OF_MEMORY before the pool passes the context's {limit}-byte limit",
            "alloc_from_pool(pool, 1 MiB) repeated",
        )
    for mem in blocks:
        wia.free_to_pool(pool, mem)
    cached = _stats(pool, "freeing every block")
    ph.assert_true(cached.bytes_reserved > 0, cached.bytes_reserved, "cached memory", "bytes_reserved after freeing")
    try:
        mem = wia.alloc(ctx, limit // 2)
    except wia.OutOfMemoryError:
        wia.memory_gc(ctx)
        after = _stats(pool, "memory_gc(ctx)")
        ph.assert_equal(after.bytes_reserved, 0, "bytes_reserved after memory_gc(ctx) of a pool with no live block")
        mem = wia.alloc(ctx, limit // 2)  # the retry must succeed
    # (no OUT_OF_MEMORY: the backend released the cache itself, which the spec allows)
    wia.free(mem)


@pytest.mark.req("R-3.9-04", "R-3.5.2-02")
def test_memory_gc_keeps_live_blocks(ctx: wia.Context) -> None:
    pool = _pool(ctx, **CACHING)
    live = wia.alloc_from_pool(pool, 64 * KiB)
    for mem in [wia.alloc_from_pool(pool, 1 * MiB) for _ in range(4)]:
        wia.free_to_pool(pool, mem)
    data = np.arange(64 * KiB, dtype=np.uint8)
    host = wia.alloc(ctx, 64 * KiB, M.HOST)
    wia.memory_ptr(host)[:] = data
    wia.copy_async(host, live, 64 * KiB)
    wia.context_synchronize(ctx)
    wia.memory_gc(ctx)
    stats = _stats(pool, "memory_gc(ctx)")
    ph.assert_true(stats.bytes_in_use >= 64 * KiB, stats.bytes_in_use, "the live block", "bytes_in_use after gc")
    wia.memory_ptr(host)[:] = 0
    wia.copy_async(live, host, 64 * KiB)
    wia.context_synchronize(ctx)
    ph.assert_bytes_equal(wia.memory_ptr(host), data, "a live pool block read back after memory_gc(ctx)")
    wia.free_to_pool(pool, live)


@pytest.mark.req("R-3.3-02", "R-3.5.2-02")
def test_memory_pool_size_creates_a_usable_default_pool(new_context: ContextFactory) -> None:
    ctx = new_context(memory_pool_size=4 * MiB)
    pool = ctx.default_pool
    ph.assert_isinstance(pool, wia.MemoryPool, "create_context(ContextConfig(memory_pool_size=4 MiB)).default_pool")
    assert pool is not None
    stats = _stats(pool, "create_context(memory_pool_size=4 MiB)")
    ph.assert_true(stats.bytes_reserved >= 4 * MiB, stats.bytes_reserved, "at least 4 MiB", "default pool reserved")
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = wia.tensor(x, ctx=ctx)
    y = wia.add(a, a, ctx=ctx)
    ph.assert_array_close(y.numpy(), x * 2, np.dtype(np.float32), "add(a, a) in a context with a default pool")
    after = _stats(pool, "tensor() and add() in the context")
    ph.assert_true(
        after.num_allocations >= 2,
        after.num_allocations,
        "at least 2 (the tensor and the op's output come from the default pool)",
        "default pool num_allocations",
    )
    mem = wia.alloc_from_pool(pool, 1 * MiB)
    wia.free_to_pool(pool, mem)


@pytest.mark.req("R-3.3-02", "R-3.5.2-01")
def test_memory_pool_size_beyond_the_device(new_context: ContextFactory, info: wia.DeviceInfo) -> None:
    ph.assert_raises_code((E.OUT_OF_MEMORY, E.INVALID_VALUE), new_context, memory_pool_size=info.memory_size + 1)
