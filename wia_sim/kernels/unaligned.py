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
from wia_sim.kernels.spaces import LaunchState, Region

__all__ = ["load_unaligned", "store_unaligned"]

Array = NDArray[Any]
_UCHAR = SCALARS["uchar"]


def _shape(t: CType) -> tuple[int, ...]:
    return (t.width,) if t.width > 1 else ()


def load_unaligned(st: LaunchState, region: Region, off: Array, mask: Array, t: CType) -> Array:
    """The value of type ``t`` at byte offsets ``off`` per lane, read one byte at a time."""
    off = np.asarray(off, np.int64)
    size = t.dtype.itemsize * t.width  # a 3-vector member of a packed struct covers three elements
    raw = [np.asarray(region.load(st, off + k if k else off, mask, _UCHAR), np.uint8) for k in range(size)]
    shape = np.broadcast_shapes(*(r.shape for r in raw))
    data = np.stack([np.broadcast_to(r, shape) for r in raw], axis=-1)
    values = np.ascontiguousarray(data).view(t.dtype)
    return values.reshape((*shape, *_shape(t)))


def store_unaligned(st: LaunchState, region: Region, off: Array, mask: Array, t: CType, values: Array) -> None:
    """Store ``values`` (of type ``t``, per lane or one for all) at byte offsets ``off``, one byte at a time."""
    off = np.asarray(off, np.int64)
    vals = np.ascontiguousarray(np.asarray(values, t.dtype))
    size = t.dtype.itemsize * t.width
    lanes = vals.shape[: vals.ndim - 1] if t.width > 1 else vals.shape
    raw = vals.view(np.uint8).reshape((*lanes, size))
    for k in range(size):
        region.store(st, off + k if k else off, mask, _UCHAR, raw[..., k])
