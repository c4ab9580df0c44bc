"""Loads and stores by a few lanes of a large launch, made by those lanes alone (``lanes.few_lanes``,
``Region.load_at`` and ``store_at``): a tree reduction's later steps, a tail of divergent work-items.

Taking that path must change nothing but speed: each kernel runs with it and without it (``FEW_LANES_FROM`` out of
reach), and gives the same bits, counts, steps and findings word for word, and each test checks that the path was
taken. Values are held to NumPy besides."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from kernel_backends import assert_same_runs, run_on_copies

from wia_sim.kernels import lanes
from wia_sim.kernels.executor import KernelFault
from wia_sim.kernels.lanes import Geometry
from wia_sim.kernels.spaces import Region

SIZES = (lanes.FEW_LANES_FROM, 1 << 14)
"""The smallest launch that takes the path (its lanes' ids kept as arrays: ``affine.MIN_LANES``), and one whose ids
are kept as coefficients."""


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every access made by a few lanes alone in the test's runs that take the path: "load" or "store"."""
    calls: list[str] = []
    load_at, store_at = Region.load_at, Region.store_at

    def loaded(self: Region, *args: Any, **kw: Any) -> Any:
        calls.append("load")
        return load_at(self, *args, **kw)

    def stored(self: Region, *args: Any, **kw: Any) -> Any:
        calls.append("store")
        return store_at(self, *args, **kw)

    monkeypatch.setattr(Region, "load_at", loaded)
    monkeypatch.setattr(Region, "store_at", stored)
    yield calls


def _run(src: str, arrays: list[np.ndarray], n: int, wg: int, scalars: tuple[Any, ...], few: bool, checks: bool) -> Any:
    saved = lanes.FEW_LANES_FROM
    lanes.FEW_LANES_FROM = saved if few else 1 << 62
    try:
        return run_on_copies(src, arrays, Geometry((n, 1, 1), (wg, 1, 1)), scalars, checks=checks)
    finally:
        lanes.FEW_LANES_FROM = saved


def _same(src: str, arrays: list[np.ndarray], n: int, wg: int, *scalars: Any, checks: bool = True) -> Any:
    """Run ``n`` work-items with accesses by few lanes made by them alone and not: the same bits, counts, steps
    and findings."""
    few = _run(src, arrays, n, wg, scalars, few=True, checks=checks)
    assert_same_runs(few, _run(src, arrays, n, wg, scalars, few=False, checks=checks))
    return few


TREE = """
__kernel void k(__global const float* x, __global float* sums, __global int* picked) {
    __local float t[256];
    const int l = get_local_id(0);
    float p[4];
    for (int j = 0; j < 4; j++)
        p[j] = x[get_global_id(0)] * (float)(j + 1);
    t[l] = p[l & 3];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 128; s > 0; s >>= 1) {
        if (l < s)
            t[l] += t[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        sums[get_group_id(0)] = t[0];
    if (get_global_id(0) % 97 == 5)
        picked[get_global_id(0) / 97] = (int)p[3];
}
"""


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("checks", [True, False])
def test_a_tree_reduction_and_a_tail_of_work_items(checks: bool, n: int, taken: list[str]) -> None:
    """A tree reduction in ``__local`` memory (from its second step on, a quarter of the work-items or fewer), the
    first work-item of each group storing the sum, and one work-item in 97 reading its own ``__private`` array."""
    x = np.random.default_rng().integers(1, 9, n).astype(np.float32)
    arrays = [x, np.zeros(n // 256, np.float32), np.full(n // 97 + 1, -1, np.int32)]
    (_, sums, picked), _ = _same(TREE, arrays, n, 256, checks=checks)
    assert "load" in taken and "store" in taken
    scale = np.arange(256) % 4 + 1
    assert sums.tolist() == (x.reshape(-1, 256) * scale).sum(axis=1).tolist()  # (small integers: exact)
    ids = np.arange(n)[np.arange(n) % 97 == 5]
    assert picked[ids // 97].tolist() == (x[ids] * 4).astype(np.int32).tolist()


FAULTS = {
    "out_of_bounds_global": """__kernel void k(__global const float* x, __global float* y) {
        const int i = get_global_id(0);
        if (i % 100 == 7)
            y[i / 100] = x[i + (i > get_global_size(0) * 3 / 4 ? 20000 : 0)];
    }""",
    "uninitialized_local": """__kernel void k(__global const float* x, __global float* y) {
        __local float t[256];
        const int l = get_local_id(0);
        if (l < 128)
            t[l] = x[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l % 64 == 3 + 64 * (get_group_id(0) == get_num_groups(0) - 2))
            y[get_global_id(0) / 64] = t[l];
    }""",
    "race_local": """__kernel void k(__global const float* x, __global float* y) {
        __local float t[256];
        const int l = get_local_id(0);
        t[l] = 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < 3 && get_group_id(0) >= get_num_groups(0) - 4)
            t[7] = (float)l;
        barrier(CLK_LOCAL_MEM_FENCE);
        y[get_global_id(0)] = t[l];
    }""",
    "out_of_bounds_local": """__kernel void k(__global const float* x, __global float* y) {
        __local float4 t[16];
        const int l = get_local_id(0);
        if (l < 16)
            t[l] = (float4)(x[get_global_id(0)]);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l == 200 - get_group_id(0))
            y[get_global_id(0)] = t[l / 8].y;
    }""",
}


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("check", sorted(FAULTS))
def test_findings_of_a_few_work_items_are_reported_word_for_word(check: str, n: int, taken: list[str]) -> None:
    """Reads past a buffer, of ``__local`` memory no work-item wrote, a write race of three work-items of some
    groups, and reads past a ``__local`` array of vectors: by a few work-items of a large launch, each the same
    finding (work-item, offset, offenders and their offsets) as from the pass over every lane."""
    x = np.random.default_rng().random(n, np.float32)
    _, result = _same(FAULTS[check], [x, np.zeros(n, np.float32)], n, 256)
    assert isinstance(result, KernelFault) and result.check == check
    assert taken[-1] == ("store" if check == "race_local" else "load")  # (the access that found it)


@pytest.mark.parametrize("n", SIZES)
def test_unchecked_accesses_out_of_bounds_are_dropped_alike(n: int, taken: list[str]) -> None:
    """With checks off, a few work-items' loads and stores past a buffer do not touch memory, on either path."""
    x = np.random.default_rng().random(n, np.float32)
    (_, y), result = _same(FAULTS["out_of_bounds_global"], [x, np.zeros(n, np.float32)], n, 256, checks=False)
    assert not isinstance(result, Exception) and "load" in taken and "store" in taken
    inside = [i for i in range(7, n, 100) if i <= n * 3 // 4]  # (those past it read 0: nothing there)
    assert y[: len(inside)].tolist() == x[inside].tolist() and not y[len(inside) :].any()


UNIFORM = """
__kernel void k(__global int* flag, __global const float* x) {
    if (x[get_global_id(0)] > 0.99f)
        flag[3] = 1;
}
"""


@pytest.mark.parametrize("n", SIZES)
def test_a_uniform_write_of_a_few_work_items_is_noted_word_for_word(n: int, taken: list[str]) -> None:
    """A flag set by the few work-items whose value passes a test: the same uniform write, noted alike."""
    x = np.random.default_rng().random(n, np.float32)
    (flag, _), result = _same(UNIFORM, [np.zeros(4, np.int32), x], n, 64)
    assert [f.check for f in result.findings] == ["uniform_write"] and flag[3] == 1
    assert "store" in taken
