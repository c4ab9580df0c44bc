"""A region's plain loads and stores (``spaces.Region.load``/``store``) against a lane-by-lane reference: which
lanes touch memory (in bounds and aligned), what they read and write, and, with checks on, that an active lane out
of bounds or misaligned is the finding and the others are not.

``Region._prepare`` decides the usual case with one reduction (the bitwise OR of the offsets: negative if one is,
at least the largest, its low bits set if one is misaligned) and falls back to comparisons lane by lane; random
offsets near the ends, negative, misaligned and past the end reach both."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wia_sim.kernels.ctype import SCALARS
from wia_sim.kernels.lanes import Geometry, lanes_of
from wia_sim.kernels.spaces import KernelFault, LaunchState, Region

LANES = 64
INT = SCALARS["int"]


def _state(checks: bool) -> LaunchState:
    return LaunchState(lanes_of(Geometry((LANES, 1, 1), (LANES, 1, 1))), "k", "k.cl", checks, {})


def _region(nbytes: int, rng: np.random.Generator) -> Region:
    region = Region.allocate("global", "buffer", 1, nbytes, "none")
    region.data[0, :nbytes] = rng.integers(0, 256, nbytes, dtype=np.uint8)
    return region


@st.composite
def offsets(draw: st.DrawFn) -> list[int]:
    """Aligned offsets in bounds, with a few lanes moved: negative, past the end, misaligned, far away (aligned
    ones among them, which only the bounds tell from the others)."""
    aligned = st.integers(0, 15).map(lambda k: 4 * k)
    offs = draw(st.one_of(st.lists(aligned, min_size=LANES, max_size=LANES), aligned.map(lambda o: [o] * LANES)))
    moved = st.one_of(
        st.integers(-3, 0).map(lambda k: 4 * k - draw(st.sampled_from((0, 0, 1, 2)))),
        st.integers(15, 20).map(lambda k: 4 * k + draw(st.sampled_from((0, 0, 1, 3)))),
        st.integers(0, 63).filter(lambda o: o % 4 != 0),
        st.integers(-(2**40), 2**40),
    )
    for lane, value in draw(st.lists(st.tuples(st.integers(0, LANES - 1), moved), max_size=3)):
        offs[lane] = value
    return offs


def _inside(off: np.ndarray, nbytes: int) -> np.ndarray:
    """Lane by lane: the element lies in the region."""
    return (off >= 0) & (off <= nbytes - 4)


def _good(off: np.ndarray, nbytes: int) -> np.ndarray:
    """Lane by lane: the element lies in the region and is aligned to its size."""
    return _inside(off, nbytes) & (off % 4 == 0)


PAST_THE_END = [0] * (LANES - 1) + [64]
"""Aligned, and their OR is the largest: only the bound tells the last from one in the region."""


@settings(max_examples=150, deadline=None)
@given(offsets(), st.lists(st.booleans(), min_size=LANES, max_size=LANES), st.integers(0, 2**32 - 1))
@example(PAST_THE_END, [True] * LANES, 0)
@example([-4] + [0] * (LANES - 1), [True] * LANES, 0)
def test_a_load_reads_the_lanes_in_bounds_and_faults_on_the_others(
    offs: list[int], active: list[bool], seed: int
) -> None:
    rng = np.random.default_rng(seed)
    nbytes = 64
    region = _region(nbytes, rng)
    off, mask = np.asarray(offs, np.int64), np.asarray(active)
    good = _good(off, nbytes)
    words = region.data[0, :nbytes].view(np.int32)
    bad = mask & ~good
    st_on = _state(True)
    if bad.any():
        with pytest.raises(KernelFault) as fault:
            region.load(st_on, off, mask, INT)
        # the first bad lane's kind (out of bounds, else misaligned), with every active lane of that kind
        outside = (off < 0) | (off > nbytes - 4)
        first = int(np.flatnonzero(bad)[0])
        assert fault.value.work_item == (first, 0, 0)
        assert fault.value.work_items == int(np.count_nonzero(bad & (outside == outside[first])))
    else:
        values = region.load(st_on, off, mask, INT)
        assert np.array_equal(values[mask], words[off[mask] // 4])
    # checks off: the lanes out of bounds are left out, the others read, a misaligned one at its byte offset
    st_off = _state(False)
    values = region.load(st_off, off, mask, INT)
    kept = mask & _inside(off, nbytes)
    data = region.data[0, :nbytes]
    assert [int(v) for v in values[kept]] == [int(data[o : o + 4].view(np.int32)[0]) for o in off[kept]]
    assert st_off.counts.get("global_bytes_read", 0) == 4 * int(np.count_nonzero(kept))


@settings(max_examples=100, deadline=None)
@given(offsets(), st.lists(st.booleans(), min_size=LANES, max_size=LANES), st.integers(0, 2**32 - 1))
@example(PAST_THE_END, [True] * LANES, 0)
def test_a_store_writes_only_the_lanes_in_bounds(offs: list[int], active: list[bool], seed: int) -> None:
    rng = np.random.default_rng(seed)
    nbytes = 64
    region = _region(nbytes, rng)
    off, mask = np.asarray(offs, np.int64), np.asarray(active)
    values = rng.integers(-(2**31), 2**31, LANES, dtype=np.int64).astype(np.int32)
    expected = region.data[0, :nbytes].copy()
    kept = mask & _inside(off, nbytes)
    for lane in np.flatnonzero(kept):  # in lane order: the last lane to store a byte wins; misaligned ones too
        expected[off[lane] : off[lane] + 4] = values[lane : lane + 1].view(np.uint8)
    region.store(_state(False), off, mask, INT, values)
    assert np.array_equal(region.data[0, :nbytes], expected)


@settings(max_examples=120, deadline=None)
@given(
    st.one_of(st.integers(-12, 76), st.sampled_from([0, 60, 64, -4, 2])),
    st.lists(st.booleans(), min_size=LANES, max_size=LANES),
    st.sampled_from([1, 2, 4]),
    st.integers(0, 2**32 - 1),
)
@example(62, [True] * LANES, 1, 0)  # (past the end and misaligned)
@example(56, [True] * LANES, 4, 0)  # (a vector that starts inside and ends past the end)
@example(-4, [False, True] * (LANES // 2), 2, 0)
@example(48, [True] * LANES, 4, 0)  # (the row's last vector)
def test_one_offset_in_every_lanes_own_row(o: int, active: list[bool], width: int, seed: int) -> None:
    """A private object (a row per lane) at one offset in every lane, as a struct's member or a constant index is
    read and written (``Region.lane_columns``: a column of the rows): each lane's own bytes, with checks on a
    fault where an active lane's element leaves the object or its alignment, with checks off nothing outside it."""
    rng = np.random.default_rng(seed)
    nbytes, t = 64, INT.vector(width)
    size = 4 * width
    region = Region.allocate("private", "row", LANES, nbytes, "lane")
    region.data[:, :nbytes] = rng.integers(0, 256, (LANES, nbytes), dtype=np.uint8)
    before = region.data.copy()
    mask, off = np.asarray(active), np.asarray(o, np.int64)
    inside = 0 <= o <= nbytes - size
    good = inside and o % 4 == 0
    rows = region.data[:, :nbytes]

    def own(lanes: np.ndarray) -> np.ndarray:  # each lane's element, from its own row's bytes
        if not lanes.size:  # (no lane: an offset outside the row has no element to read)
            return np.zeros((0, width), np.int32)
        return np.ascontiguousarray(rows[lanes, o : o + size]).view(np.int32).reshape(-1, width)

    if mask.any() and not good:
        with pytest.raises(KernelFault):
            region.load(_state(True), off, mask, t)
    elif mask.any():
        values = region.load(_state(True), off, mask, t).reshape(LANES, width)
        assert np.array_equal(values[mask], own(np.flatnonzero(mask)))
    kept = mask & inside
    values = region.load(_state(False), off, mask, t).reshape(LANES, width)
    assert np.array_equal(values[kept], own(np.flatnonzero(kept)))
    stored = rng.integers(-(2**31), 2**31, (LANES, width), dtype=np.int64).astype(np.int32)
    region.store(_state(False), off, mask, t, stored if width > 1 else stored[:, 0])
    expected = before.copy()
    for lane in np.flatnonzero(kept):
        expected[lane, o : o + size] = stored[lane].view(np.uint8)
    assert np.array_equal(region.data, expected)
