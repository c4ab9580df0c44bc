"""Loads and stores of members of packed structs, which may lie at any byte offset.

``struct __attribute__((packed)) S { char a; int b; }`` puts ``b`` at offset 1: Clang reads and writes it with
align-1 accesses, which are legal, so the executor must not call them misaligned. It moves such a member byte by
byte, as ``uchar`` accesses of the same region, so that the region's bounds, uninitialized-byte and race checks
see every byte the member covers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels.ctype import SCALARS, CType
from wia_sim.kernels.lanes import stacked
from wia_sim.kernels.spaces import LaunchState, Region, Uninit

__all__ = ["load_unaligned", "store_unaligned"]

Array = NDArray[Any]
_UCHAR = SCALARS["uchar"]


def _shape(t: CType) -> tuple[int, ...]:
    return (t.width,) if t.width > 1 else ()


def load_unaligned(st: LaunchState, region: Region, off: Array, mask: Array, t: CType, defer: bool = False) -> Array:
    """The value of type ``t`` at byte offsets ``off`` per lane, read one byte at a time; ``defer``: bytes nobody
    wrote are left in ``st.deferred`` (``Region.load``'s), joined into the lanes (components) of the value whose
    bytes they are, for the caller's value (``undef.py``: their use is the finding, as for any other load)."""
    off = np.asarray(off, np.int64)
    esize = t.dtype.itemsize
    size = esize * t.width  # a 3-vector member of a packed struct covers three elements
    raw = []
    undef: Array | None = None
    origin: Uninit | None = None
    for k in range(size):
        raw.append(np.asarray(region.load(st, off + k if k else off, mask, _UCHAR, defer=defer), np.uint8))
        if st.deferred is not None:
            byte_undef, byte_origin = st.deferred
            st.deferred = None
            if undef is None:
                undef = np.zeros((st.lanes.total, *_shape(t)), dtype=bool)
                origin = byte_origin
            if t.width > 1:
                undef[:, k // esize] |= byte_undef
            else:
                undef |= byte_undef
    if undef is not None:
        assert origin is not None
        st.deferred = (undef, origin)
    data = stacked(raw, np.uint8)
    return data.view(t.dtype).reshape((*data.shape[:-1], *_shape(t)))


def store_unaligned(
    st: LaunchState,
    region: Region,
    off: Array,
    mask: Array,
    t: CType,
    values: Array,
    undef: Array | None = None,
    origin: Uninit | None = None,
) -> None:
    """Store ``values`` (of type ``t``, per lane or one for all) at byte offsets ``off``, one byte at a time;
    ``undef``: the lanes (components) whose value is undefined (from ``origin``), whose bytes stay uninitialized
    (``Region.store``'s, in ``__private`` memory)."""
    off = np.asarray(off, np.int64)
    esize = t.dtype.itemsize
    vals = np.ascontiguousarray(np.asarray(values, t.dtype))
    size = esize * t.width
    lanes = vals.shape[: vals.ndim - 1] if t.width > 1 else vals.shape
    raw = vals.view(np.uint8).reshape((*lanes, size))
    for k in range(size):
        byte_undef = None if undef is None else undef[..., k // esize] if t.width > 1 else undef
        region.store(st, off + k if k else off, mask, _UCHAR, raw[..., k], undef=byte_undef, origin=origin)
