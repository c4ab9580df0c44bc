"""The last-level cache between kernels (wia_sim/cache.py): what it holds, and what it saves the next kernel."""

from __future__ import annotations

import pytest

import wia_hal as wia
from wia_sim.cache import EMPTY, LastLevelCache
from wia_sim.hwmodel import load_model


def test_ranges_are_kept_least_recently_used_first_up_to_the_capacity() -> None:
    cache = LastLevelCache(load_model("nvidia-a100-sxm4-80gb"))
    cap = cache.capacity
    cache.touch(0, cap // 2)
    cache.touch(cap, cap + cap // 2)
    assert cache.state.nbytes == cap and cache.resident(0, 2 * cap) == cap
    cache.touch(0, cap // 4)  # used again: now the most recent
    cache.touch(4 * cap, 4 * cap + cap // 2)  # evicts the least recently used: the second range first
    assert cache.resident(0, cap // 4) == cap // 4
    assert cache.resident(cap, cap + cap // 2) == cap // 4  # its first half went
    assert cache.state.nbytes == cap
    cache.touch(8 * cap, 10 * cap)  # larger than the cache: only its last bytes stay
    assert cache.state.ranges == ((9 * cap, 10 * cap),) and cache.resident(0, 8 * cap) == 0


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
        cache.state = EMPTY
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
