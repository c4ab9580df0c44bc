"""``lvalues.merge_lanes``: a store under a mask keeps the other lanes' bits. From ``BLEND_FROM`` lanes it blends
bits without a branch; it must give ``np.where``'s bits exactly, for every dtype a lane holds, NaN payloads and
signed zeros included, with lane-invariant (0-d) operands and vectors (a row per lane)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from wia_sim.kernels.lvalues import BLEND_FROM, merge_lanes

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.float16, np.int32, np.uint32, np.float32, np.int64, np.float64]


def _bits(rng: np.random.Generator, dtype: type, shape: tuple[int, ...]) -> np.ndarray:
    """Random bit patterns of ``dtype`` (every NaN payload and -0.0 among them for floats)."""
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    raw = rng.integers(0, 256, (*shape, dt.itemsize), dtype=np.uint8)
    return raw.view(dt).reshape(shape)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(DTYPES),
    st.sampled_from([1, 3, 4]),
    st.sampled_from([0.0, 0.1, 0.5, 0.9, 1.0]),
    st.sampled_from(["lanes", "new 0-d", "old 0-d", "both 0-d"]),
    st.sampled_from([BLEND_FROM - 1, BLEND_FROM, BLEND_FROM + 37]),
    st.integers(0, 2**32 - 1),
)
def test_merged_lanes_hold_np_where_bits(
    dtype: type, width: int, density: float, layout: str, n: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    mask = rng.random(n) < density
    shape = (n, width) if width > 1 else (n,)
    new = _bits(rng, dtype, () if layout in ("new 0-d", "both 0-d") else shape)
    old = _bits(rng, dtype, () if layout in ("old 0-d", "both 0-d") else shape)
    got = merge_lanes(mask, new, old, width)
    want = np.where(mask[:, None] if width > 1 else mask, new, old)
    assert got.dtype == want.dtype and got.shape == want.shape
    word = f"u{want.dtype.itemsize}" if want.dtype.kind != "b" else "u1"
    assert np.array_equal(got.view(word), want.view(word))


def test_a_strided_mask_and_vector_rows() -> None:
    """A mask that is a view (every other lane of a longer one) and a column of a wider array as ``new``."""
    rng = np.random.default_rng()
    n = 2 * BLEND_FROM
    mask = (rng.random(2 * n) < 0.7)[::2]
    new = _bits(rng, np.float32, (n, 8))[:, ::2]
    old = _bits(rng, np.float32, (n, 4))
    got = merge_lanes(mask, new, old, 4)
    assert np.array_equal(got.view(np.uint32), np.where(mask[:, None], new, old).view(np.uint32))


def test_a_mask_of_integers_merges_by_truth() -> None:
    """A mask held as integers (nonzero: the lane stores) merges as ``np.where`` reads it, not by its bytes."""
    rng = np.random.default_rng()
    n = 2 * BLEND_FROM
    mask = rng.integers(0, 3, n).astype(np.int32)
    new, old = _bits(rng, np.uint32, (n,)), _bits(rng, np.uint32, (n,))
    np.testing.assert_array_equal(merge_lanes(mask, new, old, 1), np.where(mask, new, old))
