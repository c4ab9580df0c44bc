"""The last-level cache between kernels (wia_sim/cache.py): what it holds, and what it saves the next kernel."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wia_hal as wia
from wia_sim.cache import LastLevelCache
from wia_sim.hwmodel import load_model


def test_ranges_are_kept_least_recently_used_first_up_to_the_capacity() -> None:
    cache = LastLevelCache(load_model("nvidia-a100-sxm4-80gb"))
    cap = cache.capacity
    cache.touch(0, cap // 2)
    cache.touch(cap, cap + cap // 2)
    assert cache.held == cap and cache.resident(0, 2 * cap) == cap
    cache.touch(0, cap // 4)  # used again: now the most recent
    cache.touch(4 * cap, 4 * cap + cap // 2)  # evicts the least recently used: the second range first
    assert cache.resident(0, cap // 4) == cap // 4
    assert cache.resident(cap, cap + cap // 2) == cap // 4  # its first half went
    assert cache.held == cap
    cache.touch(8 * cap, 10 * cap)  # larger than the cache: only its last bytes stay
    assert cache.ranges() == [(9 * cap, 10 * cap)] and cache.resident(0, 8 * cap) == 0


def _durations(hardware: str, elements: int) -> tuple[float, float, float]:
    wia.set_backend("sim", hardware=hardware, numerics=False)
    ctx = wia.create_context()
    a, b = wia.empty(elements, ctx=ctx), wia.empty(elements, ctx=ctx)
    c = wia.add(a, b)  # a and b were never touched by a kernel: from device memory
    first = wia.relu(c)  # c was just written: cached if it fits
    again = wia.relu(a)  # a was read by the add, then add and relu wrote c and the relu's output
    wia.context_synchronize(ctx)
    durations = tuple(wia.explain(t).duration_ms for t in (c, first, again))
    del a, b, c, first, again
    wia.destroy_context(ctx)
    return durations  # type: ignore[return-value]


def test_a_kernel_reading_what_the_last_one_wrote_reads_it_from_the_cache() -> None:
    model = load_model("nvidia-a100-sxm4-80gb")
    assert model.memory.cache_bandwidth is not None
    elements = 1 << 20  # 4 MiB per tensor: all fit in 40 MiB
    _, relu_ms, again_ms = _durations("nvidia-a100-sxm4-80gb", elements)
    wia.set_backend("sim", hardware="nvidia-a100-sxm4-80gb", numerics=False)
    fresh = wia.relu(wia.empty(elements))
    cold_ms = wia.explain(fresh).duration_ms
    saved = elements * 4 * (1 / (model.memory.bandwidth * model.efficiency.memory) - 1 / model.memory.cache_bandwidth)
    assert cold_ms - relu_ms == pytest.approx(saved * 1e3, rel=1e-6)
    assert again_ms == pytest.approx(relu_ms, rel=1e-6)  # a is still cached too


def test_data_larger_than_the_cache_streams_from_memory_and_a_model_without_a_cache_bandwidth_has_none() -> None:
    big = 1 << 26  # 256 MiB per tensor: each kernel flushes the 40 MiB cache
    wia.set_backend("sim", hardware="nvidia-a100-sxm4-80gb", numerics=False)
    cold = wia.explain(wia.relu(wia.empty(big))).duration_ms
    _, _, again_ms = _durations("nvidia-a100-sxm4-80gb", big)
    assert again_ms == pytest.approx(cold, rel=1e-6)  # a was evicted by c and the relu's output
    assert load_model("wia-tiny").memory.cache_bandwidth is None
    _, relu_ms, _ = _durations("wia-tiny", 1 << 12)
    wia.set_backend("sim", hardware="wia-tiny", numerics=False)
    assert relu_ms == pytest.approx(wia.explain(wia.relu(wia.empty(1 << 12))).duration_ms, rel=1e-9)


def test_a_kernel_streaming_more_than_the_cache_finds_none_of_its_inputs_cached() -> None:
    """gpu-benches' pattern, A = f(B) then B = f(A): under LRU a re-read hits only if less than the cache's size
    was touched since, so two arrays that together exceed the cache never hit, however little they exceed it."""
    model = load_model("nvidia-a100-sxm4-80gb")
    cache = LastLevelCache(model)

    class Buf:
        def __init__(self, address: int, nbytes: int) -> None:
            self.address, self.nbytes = address, nbytes

    def hits(array_bytes: int) -> list[float]:
        cache.clear()
        a, b = Buf(0, array_bytes), Buf(1 << 40, array_bytes)
        saved = []
        for i in range(4):
            src, dst = (b, a) if i % 2 == 0 else (a, b)
            from wia_sim.commands import Kernel
            from wia_sim.costmodel import elementwise_cost

            cost = elementwise_cost(model, "scale", array_bytes // 8, 1, 2 * array_bytes, "float64")
            kernel = Kernel(cost, None)
            cache.run(kernel, [(src, 0, array_bytes, False), (dst, 0, array_bytes, True)])  # type: ignore[list-item]
            saved.append(cost.memory_s - kernel.cost.memory_s)
        return saved

    fits = int(0.45 * cache.capacity)  # both arrays: 90% of the cache
    spills = int(0.55 * cache.capacity)  # both: 110%
    assert hits(fits)[0] == 0 and all(s > 0 for s in hits(fits)[1:])
    assert hits(spills) == [0.0, 0.0, 0.0, 0.0]


class _ListLRU:
    """The reference: the ranges in a list, least recently used first, each use a pass over all of them (the
    model's first form). The cache must hold what this holds, in this order, after any sequence of uses."""

    def __init__(self, capacity: int) -> None:
        self.capacity, self.held = capacity, 0
        self.kept: list[tuple[int, int]] = []

    def resident(self, start: int, end: int) -> int:
        return sum(min(e, end) - max(s, start) for s, e in self.kept if s < end and e > start)

    def touch(self, start: int, end: int) -> None:
        start = max(start, end - self.capacity)
        held = self.held + end - start
        kept = []
        for s, e in self.kept:
            if e <= start or s >= end:
                kept.append((s, e))
            else:
                held -= min(e, end) - max(s, start)
                if s < start:
                    kept.append((s, start))
                if e > end:
                    kept.append((end, e))
        kept.append((start, end))
        while held > self.capacity:
            s, e = kept[0]
            drop = min(e - s, held - self.capacity)
            held -= drop
            kept[0:1] = [] if drop == e - s else [(s + drop, e)]
        self.kept, self.held = kept, held


@settings(max_examples=300, deadline=None)
@given(
    capacity=st.integers(1, 64),
    uses=st.lists(
        st.tuples(st.integers(0, 80), st.integers(1, 40)) | st.sampled_from([(0, 8), (8, 8), (4, 8), (0, 16)]),
        min_size=1,
        max_size=60,
    ),
    probes=st.lists(st.tuples(st.integers(0, 100), st.integers(1, 50)), min_size=1, max_size=5),
)
def test_the_cache_holds_what_a_least_recently_used_list_holds(
    capacity: int, uses: list[tuple[int, int]], probes: list[tuple[int, int]]
) -> None:
    """Ranges overlapping in every way (inside, across either end, covering several, adjacent, the same range again),
    a capacity from one byte up: after each use the same ranges in the same order, the same bytes held, the same
    bytes found."""
    cache = LastLevelCache(load_model("nvidia-a100-sxm4-80gb"))
    cache.capacity = capacity
    reference = _ListLRU(capacity)
    for start, size in uses:
        cache.touch(start, start + size)
        reference.touch(start, start + size)
        assert cache.ranges() == reference.kept
        assert cache.held == reference.held <= capacity
        for lo, n in probes:
            assert cache.resident(lo, lo + n) == reference.resident(lo, lo + n)


def test_a_use_costs_the_same_however_many_ranges_the_cache_holds() -> None:
    """A model with thousands of live tensors keeps a range or more per tensor: each use must not pass over all of
    them (counted here as the ranges a use reads, not timed)."""
    cache = LastLevelCache(load_model("nvidia-a100-sxm4-80gb"))
    for k in range(20_000):
        cache.touch(4096 * k, 4096 * k + 1024)
    assert len(cache.ranges()) == 20_000 and cache.held == 20_000 * 1024
    reads = 0
    real = cache._ranges

    class Counting(dict):  # type: ignore[type-arg]
        def __getitem__(self, key: int) -> tuple[int, int]:
            nonlocal reads
            reads += 1
            value: tuple[int, int] = dict.__getitem__(self, key)
            return value

        def pop(self, key: int, *default: Any) -> Any:
            nonlocal reads
            reads += 1
            return dict.pop(self, key, *default)

    cache._ranges = Counting(real)
    assert cache.resident(4096 * 7000, 4096 * 7003) == 3 * 1024
    cache.touch(4096 * 9000 + 512, 4096 * 9001 + 512)  # across two ranges
    assert reads <= 10


def test_a_kernel_streaming_more_than_the_cache_leaves_the_tails_of_its_ranges_once_each() -> None:
    """Its tails, each range's last bytes in proportion, are all the cache holds after it; one buffer read and
    written (two accesses, one range) leaves its tail once, not counted twice."""
    model = load_model("nvidia-a100-sxm4-80gb")
    cache = LastLevelCache(model)
    cap = cache.capacity
    cache.touch(1 << 40, (1 << 40) + 4096)  # something from before: gone after

    class Buf:
        def __init__(self, address: int) -> None:
            self.address = address

    from wia_sim.commands import Kernel
    from wia_sim.costmodel import elementwise_cost

    a, b = Buf(0), Buf(1 << 36)
    kernel = Kernel(elementwise_cost(model, "scale", cap, 1, 8 * cap, "float32"), None)
    cache.run(kernel, [(a, 0, 3 * cap, False), (b, 0, cap, True)])  # type: ignore[list-item]
    assert cache.ranges() == [(3 * cap - 3 * cap // 4, 3 * cap), ((1 << 36) + cap - cap // 4, (1 << 36) + cap)]
    assert cache.held == cap
    cache.run(kernel, [(a, 0, 2 * cap, False), (a, 0, 2 * cap, True)])  # type: ignore[list-item]
    assert cache.ranges() == [(2 * cap - cap // 2, 2 * cap)] and cache.held == cap // 2
