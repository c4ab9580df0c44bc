"""Compare-and-swap retry loops resolved at once after their first trip (``wia_sim/kernels/cas_loops.py``).

Resolving must change nothing but speed: every kernel here runs twice, with the loops resolved and trip by trip
(``resolve_cas`` refusing), and gives the same bits, the same counts for the timing model, the same steps and, where
it has a bug, the same finding word for word. Each test also checks whether the resolved run did resolve the loop
it is about, so none passes by never taking the path. Values are held to float64 NumPy references besides.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_backends import assert_same_runs, run_arrays, run_on_copies

import wia_hal as wia
from wia_sim.kernels import cas_loops
from wia_sim.kernels.lanes import launch_geometry
from wia_sim.kernels.spaces import KernelFault, KernelTimeout

EPS32 = float(np.finfo(np.float32).eps)


@pytest.fixture
def resolved(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Every ``resolve_cas`` outcome of the test, in order (True: a loop's trips were resolved at once)."""
    outcomes: list[bool] = []
    original = cas_loops.CasLoops.resolve_cas

    def recorded(self: Any, *args: Any) -> bool:
        outcome = original(self, *args)
        outcomes.append(outcome)
        return outcome

    monkeypatch.setattr(cas_loops.CasLoops, "resolve_cas", recorded)
    yield outcomes


def _run(
    source: str,
    arrays: list[np.ndarray],
    global_size: int,
    local_size: int,
    *scalars: np.generic,
    resolve: bool = True,
    **options: Any,
) -> tuple[list[np.ndarray], Any]:
    geometry = launch_geometry((global_size, 1, 1), (local_size, 1, 1), 1024, 1)
    saved = cas_loops.CasLoops.resolve_cas
    if not resolve:
        cas_loops.CasLoops.resolve_cas = lambda self, *args: False  # type: ignore[method-assign,assignment]
    try:
        return run_on_copies(source, arrays, geometry, scalars, **options)
    finally:
        cas_loops.CasLoops.resolve_cas = saved  # type: ignore[method-assign]


def _same(source: str, arrays: list[np.ndarray], *launch: Any, **options: Any) -> tuple[list[np.ndarray], Any]:
    """Run resolved and trip by trip; both give the same bits, counts, steps and findings (or the same fault)."""
    first = _run(source, arrays, *launch, **options)
    assert_same_runs(first, _run(source, arrays, *launch, resolve=False, **options))
    return first


FLOAT_ADD = """
void atomic_add_float(volatile __global float* addr, const float val)
{
    volatile __global int* as_ints = (volatile __global int*)addr;
    int expected, seen = atomic_add(as_ints, 0);
    do {
        expected = seen;
        const float updated = as_float(expected) + val;
        seen = atomic_cmpxchg(as_ints, expected, as_int(updated));
    } while (seen != expected);
}

__kernel void k(__global const int* bin_of, __global const float* weight, __global float* bins,
                __global int* last, const int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        atomic_add_float(&bins[bin_of[i]], weight[i]);
    }
}
"""


def _float_add_inputs(rng: np.random.Generator, n: int, nbins: int) -> list[np.ndarray]:
    bin_of = np.minimum(rng.geometric(0.2, n) - 1, nbins - 1).astype(np.int32)  # hot bins: long retries
    weight = rng.uniform(-1.0, 1.0, n).astype(np.float32)
    weight[rng.random(n) < 0.1] = 0.0  # (an update that leaves the bits as they were lets the next lane pass too)
    weight[rng.random(n) < 0.05] = -0.0
    bins = rng.uniform(-10.0, 10.0, nbins).astype(np.float32)
    return [bin_of, weight, bins, np.zeros(1, np.int32)]


@pytest.mark.parametrize("checks", [True, False])
@pytest.mark.parametrize(("n", "group", "nbins"), [(700, 64, 12), (3000, 128, 400), (1, 1, 1)])
def test_a_float_add_gives_the_trips_bits_counts_and_steps(
    checks: bool, n: int, group: int, nbins: int, resolved: list[bool]
) -> None:
    """The float atomic add built from ``atomic_cmpxchg`` (the corpus's ``float_atomic_add``): a few hot bins
    (hundreds of trips), many bins (a rank-by-rank scan), one work-item (nothing left after the first trip); zero
    weights among them. The bins are each lane's weight added in lane order, within float rounding of float64's
    sum."""
    rng = np.random.default_rng()
    arrays = _float_add_inputs(rng, n, nbins)
    size = -(-n // group) * group
    (_, _, bins, _), _ = _same(FLOAT_ADD, arrays, size, group, np.int32(n), checks=checks)
    assert (True in resolved) == (n > 1)
    bin_of, weight, start = arrays[0], arrays[1].astype(np.float64), arrays[2].astype(np.float64)
    expected = start + np.bincount(bin_of, weights=weight, minlength=nbins)
    count = np.bincount(bin_of, minlength=nbins)
    mass = np.abs(start) + np.bincount(bin_of, weights=np.abs(weight), minlength=nbins)
    assert np.all(np.abs(bins - expected) <= count * EPS32 * mass)
    sequential = arrays[2].copy()  # the lane order, as the trips apply the updates
    for b, w in zip(bin_of.tolist(), arrays[1].tolist(), strict=True):
        sequential[b] = np.float32(sequential[b] + np.float32(w))
    assert bins.tobytes() == sequential.tobytes()


UPDATES = """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
__kernel void k(__global const int* slot, __global const float* f, __global const int* v,
                __global float* fmaxs, __global float* prods, __global int* sums, __global uint* ands,
                __global uint* maxs, __global int* subs, __global double* dsums, const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const int s = slot[i];
    const float fi = f[i];
    const int vi = v[i];
    __global int* m = (__global int*)&fmaxs[s];
    int x, y = atomic_add(m, 0);
    do {
        x = y;
        y = atomic_cmpxchg(m, x, as_int(fmax(as_float(x), fi)));
    } while (y != x);
    __global int* p = (__global int*)&prods[s];
    const float scale = fi * 0.5f + 1.0f;
    y = atomic_add(p, 0);
    do {
        x = y;
        const float product = scale * as_float(x);
        y = atomic_cmpxchg(p, x, as_int(product));
    } while (x != y);
    const int add = vi;
    y = atomic_add(&sums[s], 0);
    do {
        x = y;
        y = atomic_cmpxchg(&sums[s], x, x + add);
    } while (y != x);
    uint a, b = atomic_or(&ands[s], 0u);
    const uint mask = ~(1u << (i % 32));
    do {
        a = b;
        b = atomic_cmpxchg(&ands[s], a, a & mask);
    } while (b != a);
    b = atomic_or(&maxs[s], 0u);
    do {
        a = b;
        const uint top = max(a, (uint)vi * 2654435761u);
        b = atomic_cmpxchg(&maxs[s], a, top);
    } while (b != a);
    y = atomic_add(&subs[s], 0);
    do {
        x = y;
        y = atomic_cmpxchg(&subs[s], x, x - add);
    } while (y != x);
    __global long* d = (__global long*)&dsums[s];
    long lx, ly = atom_add(d, 0L);
    do {
        lx = ly;
        ly = atom_cmpxchg(d, lx, as_long(as_double(lx) + (double)fi / 3.0));
    } while (ly != lx);
}
"""


@pytest.mark.parametrize("checks", [True, False])
def test_each_scanned_update_gives_the_trips_bits_counts_and_steps(checks: bool, resolved: list[bool]) -> None:
    """fmax, a product through a declaration (the value read on the right), an int sum that wraps, a bitwise
    and, an unsigned max through a declaration, a difference and a double sum by 64-bit atomics: each resolved,
    each the same as trip by trip, each the lane-order fold NumPy computes."""
    rng = np.random.default_rng()
    n, slots = 900, 5
    slot = np.minimum(rng.geometric(0.4, n) - 1, slots - 1).astype(np.int32)
    f = rng.uniform(-2.0, 2.0, n).astype(np.float32)
    v = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    arrays = [
        slot,
        f,
        v,
        rng.uniform(-1.0, 1.0, slots).astype(np.float32),
        rng.uniform(0.5, 1.5, slots).astype(np.float32),
        rng.integers(-1000, 1000, slots).astype(np.int32),
        np.full(slots, 0xFFFFFFFF, np.uint32),
        rng.integers(0, 1000, slots).astype(np.uint32),
        rng.integers(-1000, 1000, slots).astype(np.int32),
        rng.uniform(-1.0, 1.0, slots),
    ]
    out, _ = _same(UPDATES, arrays, 960, 64, np.int32(n), checks=checks)
    assert resolved == [True] * 7  # one run of each loop, every lane in it
    fmaxs, prods, sums, ands, maxs, subs, dsums = (a.copy() for a in arrays[3:])
    with np.errstate(over="ignore"):
        for i in range(n):
            s = slot[i]
            fmaxs[s] = np.fmax(fmaxs[s], f[i])
            prods[s] = np.float32(f[i] * np.float32(0.5) + np.float32(1.0)) * prods[s]
            sums[s] = sums[s] + v[i]
            ands[s] &= np.uint32(~(1 << (i % 32)) & 0xFFFFFFFF)
            maxs[s] = max(maxs[s], np.uint32((int(v[i]) % 2**32) * 2654435761 % 2**32))
            subs[s] = subs[s] - v[i]
            dsums[s] = dsums[s] + np.float64(f[i]) / 3.0
    for got, want in zip(out[3:], (fmaxs, prods, sums, ands, maxs, subs, dsums), strict=True):
        assert got.tobytes() == want.tobytes()


LOCAL_ADD = """
__kernel void k(__global const float* w, __global float* out)
{
    __local float bins[4];
    const int l = get_local_id(0);
    if (l < 4)
        bins[l] = 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    const float wi = w[get_global_id(0)];
    volatile __local uint* b = (volatile __local uint*)&bins[l % 4 == 0 ? 0 : l % 3];
    uint seen = atomic_add(b, 0u), expected = ~seen;
    while (seen != expected) {
        expected = seen;
        seen = atomic_cmpxchg(b, expected, as_uint(as_float(expected) + wi));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 4)
        out[get_group_id(0) * 4 + l] = bins[l];
}
"""


@pytest.mark.parametrize("checks", [True, False])
def test_a_while_loop_on_local_memory_gives_the_trips_bits(checks: bool, resolved: list[bool]) -> None:
    """The ``while`` form (its condition first), on each work-group's ``__local`` bins: each group's sums in its
    own bins, in lane order."""
    rng = np.random.default_rng()
    groups, size = 3, 128
    w = rng.uniform(0.0, 1.0, groups * size).astype(np.float32)
    (_, out), _ = _same(LOCAL_ADD, [w, np.zeros(groups * 4, np.float32)], groups * size, size, checks=checks)
    assert True in resolved
    expected = np.zeros((groups, 4), np.float32)
    for i, x in enumerate(w.tolist()):
        lane = i % size
        b = 0 if lane % 4 == 0 else lane % 3
        expected[i // size, b] = np.float32(expected[i // size, b] + np.float32(x))
    assert out.tobytes() == expected.reshape(-1).tobytes()


NARROWED = """
__kernel void k(__global const int* v, __global int* total, const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const int vi = v[i];
    int x, s = atomic_add(total, 0);
    do {
        x = s;
        const short narrow = x + vi;
        s = atomic_cmpxchg(total, x, narrow);
    } while (s != x);
}
"""


def test_an_update_the_scan_gets_wrong_runs_trip_by_trip(resolved: list[bool]) -> None:
    """A declaration that narrows the update (to ``short``): the scan (in ``int``) claims values the body does not
    give, the check finds it, and the loop runs trip by trip, to the same bits."""
    rng = np.random.default_rng()
    n = 200
    v = rng.integers(20_000, 30_000, n).astype(np.int32)
    (_, total), _ = _same(NARROWED, [v, np.zeros(1, np.int32)], 256, 64, np.int32(n))
    assert resolved and not any(resolved)
    expected = 0
    for x in v.tolist():
        expected = (expected + x + 2**15) % 2**16 - 2**15
    assert total.tolist() == [expected]


READS = """
__kernel void k(__global const int* slot, __global const float* w, __global float* bins, __global float* other,
                const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    __global int* p = (__global int*)&bins[slot[i]];
    int x, s = atomic_add(p, 0);
    do {
        x = s;
        const float scaled = SOURCE * 0.5f;
        s = atomic_cmpxchg(p, x, as_int(as_float(x) + scaled));
    } while (s != x);
}
"""


@pytest.mark.parametrize(
    ("source", "resolves"),
    [("w[i]", True), ("*(w + i)", True), ("other[slot[i] + 4]", True), ("bins[(slot[i] + 1) % 4]", False)],
)
def test_an_update_that_reads_memory(source: str, resolves: bool, resolved: list[bool]) -> None:
    """An update that reads memory in every trip: of another memory object (the weights, a buffer beside the bins)
    it reads the same each time, and the loop is resolved; of the bins it updates (another bin, which the other
    work-items change between trips) it runs trip by trip. The same bits, counts and steps either way."""
    rng = np.random.default_rng()
    n = 500
    slot = np.minimum(rng.geometric(0.3, n) - 1, 3).astype(np.int32)
    w = rng.uniform(-1.0, 1.0, n).astype(np.float32)
    arrays = [slot, w, rng.uniform(-1.0, 1.0, 4).astype(np.float32), rng.uniform(-1.0, 1.0, 8).astype(np.float32)]
    checks = resolves  # (with checks, the plain read of the bins beside the atomics is a race: the kernel stops)
    (_, _, bins, _), _ = _same(READS.replace("SOURCE", source), arrays, 512, 64, np.int32(n), checks=checks)
    assert resolved and all(resolved) == resolves and any(resolved) == resolves
    if source.startswith(("w", "*")):
        expected = arrays[2].copy()
        for b, x in zip(slot.tolist(), w.tolist(), strict=True):
            expected[b] = np.float32(expected[b] + np.float32(np.float32(x) * np.float32(0.5)))
        assert bins.tobytes() == expected.tobytes()


RACE = """
__kernel void k(__global const float* w, __global float* bins, __global float* peek)
{
    const int i = get_global_id(0);
    const float wi = w[i];
    if (i == 5 && BEFORE)
        peek[0] = bins[i % 2];
    __global int* b = (__global int*)&bins[i % 2];
    int x, s = 0;  /* (the bins' first value: no atomic before the loop, whose record would hide the loop's) */
    do {
        x = s;
        s = atomic_cmpxchg(b, x, as_int(as_float(x) + wi));
    } while (s != x);
    if (i == 5 && !BEFORE)
        peek[0] = bins[i % 2];
}
"""


@pytest.mark.parametrize("before", [True, False])
def test_a_plain_read_racing_with_the_loop_is_reported_as_trip_by_trip(before: bool, resolved: list[bool]) -> None:
    """A work-item's plain read of an address the others update atomically, before their loop or after it (then
    against the record the loop's updates leave): the same race finding, with the same work-items, address and
    offenders, resolved or not."""
    rng = np.random.default_rng()
    source = RACE.replace("BEFORE", str(int(before)))
    arrays = [rng.uniform(0.0, 1.0, 256).astype(np.float32), np.zeros(2, np.float32), np.zeros(1, np.float32)]
    first = _run(source, arrays, 256, 64)
    assert_same_runs(first, _run(source, arrays, 256, 64, resolve=False))
    result = first[1]
    findings = [result] if isinstance(result, KernelFault) else list(result.findings)
    assert any("race" in str(f) for f in findings)
    assert (True in resolved) == (not before)  # (before: the first trip's updates meet the read, and stop the kernel)


def test_the_step_limit_is_reached_as_trip_by_trip(resolved: list[bool]) -> None:
    """Trips past the step limit are not resolved: the same timeout, at the same step."""
    rng = np.random.default_rng()
    arrays = _float_add_inputs(rng, 512, 2)
    first = _run(FLOAT_ADD, arrays, 512, 64, np.int32(512), step_limit=300)
    second = _run(FLOAT_ADD, arrays, 512, 64, np.int32(512), step_limit=300, resolve=False)
    assert isinstance(first[1], KernelTimeout)
    assert_same_runs(first, second)
    assert not any(resolved)


_OPS = {
    "+": ("as_float(x) + w", np.add),
    "*": ("w * as_float(x)", np.multiply),
    "fmin": ("fmin(as_float(x), w)", np.fmin),
    "fmax": ("fmax(w, as_float(x))", np.fmax),
}


@settings(max_examples=20, deadline=None)
@given(
    op=st.sampled_from(sorted(_OPS)),
    n=st.integers(1, 300),
    slots=st.integers(1, 40),
    seed=st.integers(0, 2**32 - 1),
    checks=st.booleans(),
)
def test_random_float_updates_give_the_trips_bits(op: str, n: int, slots: int, seed: int, checks: bool) -> None:
    """Float updates of random contention (one slot to one per lane), sizes and values, NaN and signed zeros
    among them: resolved and trip by trip agree bit for bit, counts and steps too, and hold the lane-order fold."""
    expr, ufunc = _OPS[op]
    source = f"""
    __kernel void k(__global const int* slot, __global const float* f, __global float* out, const int n) {{
        const int i = get_global_id(0);
        if (i >= n) return;
        const float w = f[i];
        __global int* p = (__global int*)&out[slot[i]];
        int x, s = atomic_add(p, 0);
        do {{
            x = s;
            const float next = {expr};
            s = atomic_cmpxchg(p, x, as_int(next));
        }} while (s != x);
    }}"""
    rng = np.random.default_rng(seed)
    slot = rng.integers(0, slots, n).astype(np.int32)
    f = rng.choice(np.array([0.0, -0.0, 1.0, -1.5, np.nan, 0.75, 2.0], np.float32), n)
    f = np.where(rng.random(n) < 0.5, rng.uniform(0.5, 1.5, n).astype(np.float32), f)
    start = rng.uniform(-1.0, 1.0, slots).astype(np.float32)
    size = -(-n // 32) * 32
    (_, _, out), _ = _same(source, [slot, f, start], size, 32, np.int32(n), checks=checks)
    expected = start.copy()
    with np.errstate(all="ignore"):
        for s, w in zip(slot.tolist(), f.tolist(), strict=True):
            expected[s] = ufunc(expected[s], np.float32(w))
    assert np.array_equal(out, expected, equal_nan=True)


def test_every_device_gives_the_float_adds_sums(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    """Through the public HAL, on the simulated device and on each real OpenCL device installed: the bins within
    float rounding of float64's sums; the simulator's, each lane's weight added in lane order, bit for bit."""
    rng = np.random.default_rng()
    arrays = _float_add_inputs(rng, 1000, 8)
    bins = run_arrays(device_ctx, FLOAT_ADD, "k", arrays, 1024, 64, np.int32(1000))[2]
    bin_of, weight, start = arrays[0], arrays[1].astype(np.float64), arrays[2].astype(np.float64)
    count = np.bincount(bin_of, minlength=8)
    mass = np.abs(start) + np.bincount(bin_of, weights=np.abs(weight), minlength=8)
    assert np.all(np.abs(bins - start - np.bincount(bin_of, weights=weight, minlength=8)) <= count * EPS32 * mass)
    if request.node.callspec.params["device_ctx"] == "sim":
        expected = arrays[2].copy()
        for b, w in zip(bin_of.tolist(), arrays[1].tolist(), strict=True):
            expected[b] = np.float32(expected[b] + np.float32(w))
        assert bins.tobytes() == expected.tobytes()
