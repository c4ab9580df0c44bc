"""Async copies waited for together, made together (``AsyncCopies._perform_together``): every copy into one
``__local`` or ``__global`` object at a wait moved in rounds of one element per work-item across the copies.

Making them together must change nothing but speed: each kernel runs with copies made together and one by one
(``_perform_together`` refused), and gives the same bits, counts, steps and findings word for word; each test also
checks which way its copies went, so none passes by never taking the path. Values are held to NumPy besides."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from kernel_backends import assert_same_runs, run_on_copies

from wia_sim.kernels.async_copy import AsyncCopies
from wia_sim.kernels.executor import KernelFault
from wia_sim.kernels.lanes import Geometry


@pytest.fixture
def together(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Every ``_perform_together`` outcome of the test's runs with copies made together, in order."""
    outcomes: list[bool] = []
    original = AsyncCopies._perform_together

    def recorded(self: AsyncCopies, due: Any) -> bool:
        outcome = original(self, due)
        outcomes.append(outcome)
        return outcome

    monkeypatch.setattr(AsyncCopies, "_perform_together", recorded)
    yield outcomes


def _run(
    src: str, arrays: list[np.ndarray], geometry: Geometry, scalars: tuple[Any, ...], one_by_one: bool, checks: bool
) -> Any:
    saved = AsyncCopies._perform_together
    if one_by_one:
        AsyncCopies._perform_together = lambda self, due: False  # type: ignore[method-assign]
    try:
        return run_on_copies(src, arrays, geometry, scalars, checks=checks)
    finally:
        AsyncCopies._perform_together = saved  # type: ignore[method-assign]


def _same(src: str, arrays: list[np.ndarray], geometry: Geometry, *scalars: Any, checks: bool = True) -> Any:
    """Run with copies made together and one by one: the same bits, counts, steps and findings (or fault)."""
    together = _run(src, arrays, geometry, scalars, one_by_one=False, checks=checks)
    assert_same_runs(together, _run(src, arrays, geometry, scalars, one_by_one=True, checks=checks))
    return together


def _line(n: int, wg: int) -> Geometry:
    return Geometry((n, 1, 1), (wg, 1, 1))


TILES = """
#define TS 8
__kernel void k(__global const float* A, __global const float* B, __global float* C, int K, int N) {
    __local float As[TS * TS], Bs[TS * TS];
    const int col = get_global_id(0), row = get_global_id(1);
    const int lc = get_local_id(0), lr = get_local_id(1);
    const int row0 = get_group_id(1) * TS, col0 = get_group_id(0) * TS;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TS) {
        event_t a = 0, b = 0;
        for (int r = 0; r < TS; r++) {
            a = async_work_group_copy(As + r * TS, A + (row0 + r) * K + t, TS, a);
            b = async_work_group_strided_copy(Bs + r * TS, B + (t + r) * N + col0, TS, 1, b);
        }
        wait_group_events(1, &a);
        wait_group_events(1, &b);
        for (int k = 0; k < TS; k++)
            acc += As[lr * TS + k] * Bs[k * TS + lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
"""


@pytest.mark.parametrize("checks", [True, False])
def test_tile_rows_copied_one_call_each_are_made_together(checks: bool, together: list[bool]) -> None:
    """A tiled product staging each tile row with its own copy (eight per tile and matrix, chained on one event,
    one of them strided): each wait makes its eight copies in one round, the same as one by one."""
    rng = np.random.default_rng()
    m, k = 16, 24
    a, b = rng.random((m, k), np.float32), rng.random((k, m), np.float32)
    geometry = Geometry((m, m, 1), (8, 8, 1), work_dim=2)
    (_, _, c), _ = _same(TILES, [a, b, np.zeros((m, m), np.float32)], geometry, np.int32(k), np.int32(m), checks=checks)
    assert together[: 2 * (k // 8)] == [True] * (2 * (k // 8))
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=k * 1e-7 * 4)


OVERLAP = """
__kernel void k(__global const int* x, __global int* y) {
    __local int t[48];
    const int g = get_group_id(0) * 32;
    event_t e = async_work_group_copy(t, x + g, 32, 0);
    e = async_work_group_copy(t + SHIFT, x + g + 100, 16, e);
    wait_group_events(1, &e);
    e = async_work_group_copy(y + get_group_id(0) * 48, t, 48 - 16 * (SHIFT == 0), 0);
    wait_group_events(1, &e);
}
"""


@pytest.mark.parametrize(("shift", "made_together"), [(32, True), (16, False), (0, False)])
def test_copies_whose_destinations_meet_are_made_one_by_one(
    shift: int, made_together: bool, together: list[bool]
) -> None:
    """Two copies into one ``__local`` array: beside each other, made together; overlapping (the second over the
    first's middle, or its start), made one by one, the later one's elements winning. Over the middle, the two
    copies' work-items for an element differ: the race finding, as one by one."""
    x = np.arange(400, dtype=np.int32) * 3 + 1
    (_, y), result = _same(OVERLAP.replace("SHIFT", str(shift)), [x, np.zeros(96, np.int32)], _line(64, 32))
    assert together[0] is made_together
    if shift == 16:
        assert isinstance(result, KernelFault) and result.check == "race_local"
        return
    assert together[1] is False  # (the copy out alone: one by one)
    for g in range(2):
        t = np.zeros(48, np.int32)
        t[:32] = x[32 * g : 32 * g + 32]
        t[shift : shift + 16] = x[32 * g + 100 : 32 * g + 116]
        n = 48 - 16 * (shift == 0)
        assert y[48 * g : 48 * g + n].tolist() == t[:n].tolist()


FAULTS = """
__kernel void k(__global const float* x, __global float* y, int n) {
    __local float t[64];
    const int l = get_local_id(0);
    if (l != HOLE)
        t[l] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int base = get_group_id(0) * 64;
    event_t e = async_work_group_copy(y + base, t, 16, 0);
    e = async_work_group_copy(y + base + 16, t + 16, 16, e);
    e = async_work_group_copy(y + base + 32, t + 32, n, e);
    wait_group_events(1, &e);
}
"""


@pytest.mark.parametrize(
    ("hole", "n", "finding", "line"), [(40, 16, "uninitialized", 11), (99, 40, "out-of-bounds", 12)]
)
def test_a_finding_in_a_later_copy_is_reported_as_one_by_one(
    hole: int, n: int, finding: str, line: int, together: list[bool]
) -> None:
    """The third of three copies out of a tile reads an element no work-item wrote, or writes past the
    buffer: the copies are made one by one, and the third reports it at its own call, word for word."""
    x = np.random.default_rng().random(128, np.float32)
    source = FAULTS.replace("HOLE", str(hole))
    _, result = _same(source, [x, np.zeros(128, np.float32)], _line(128, 64), np.int32(n))
    assert isinstance(result, KernelFault) and finding in str(result)
    assert result.line == line  # (a read of nothing written: the copy's call; out of bounds: the wait, as one by one)
    assert together == [False]


@pytest.mark.parametrize("checks", [True, False])
def test_copies_out_of_a_tile_made_together(checks: bool, together: list[bool]) -> None:
    """The same three copies, all in bounds and of written elements: made together, at once."""
    x = np.random.default_rng().random(128, np.float32)
    (_, y), _ = _same(
        FAULTS.replace("HOLE", "99"), [x, np.zeros(128, np.float32)], _line(128, 64), np.int32(16), checks=checks
    )
    assert together == [True]
    expected = np.zeros(128, np.float32)
    expected[:48], expected[64:112] = x[:48], x[64:112]
    assert y.tolist() == expected.tolist()


MIXED = """
__kernel void k(__global const float* pts, __global float* norm2, __global float* scaled) {
    __local float xs[16], ys[16], ns[16];
    const int lid = get_local_id(0);
    const size_t base = get_group_id(0) * 16;
    event_t ev = async_work_group_strided_copy(xs, pts + 2 * base, 16, 2, 0);
    ev = async_work_group_strided_copy(ys, pts + 2 * base + 1, 16, 2, ev);
    wait_group_events(1, &ev);
    ns[lid] = xs[lid] * xs[lid] + ys[lid] * ys[lid];
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t out = async_work_group_copy(norm2 + base, ns, 16, 0);
    out = async_work_group_strided_copy(scaled + 2 * base, xs, 16, 2, out);
    out = async_work_group_strided_copy(scaled + 2 * base + 1, ys, 16, 2, out);
    wait_group_events(1, &out);
}
"""


@pytest.mark.parametrize("checks", [True, False])
def test_copies_into_one_object_from_different_ones_are_made_one_by_one(checks: bool, together: list[bool]) -> None:
    """Points split into two ``__local`` arrays (two copies from one buffer into different objects: one by one),
    then written back interleaved (two copies into one buffer from different objects, beside a third into
    another: all one by one, the third read and counted once)."""
    pts = np.random.default_rng().random(64, np.float32)
    (_, norm2, scaled), _ = _same(
        MIXED, [pts, np.zeros(32, np.float32), np.zeros(64, np.float32)], _line(32, 16), checks=checks
    )
    assert together == [False, False]
    x, y = pts[0::2], pts[1::2]
    assert norm2.tolist() == (x * x + y * y).tolist() and scaled.tolist() == pts.tolist()
