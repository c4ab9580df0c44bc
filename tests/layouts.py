"""Tensors laid out three ways for the op tests: a kernel that reads a view's offset or strides wrong fails on one."""

from __future__ import annotations

import numpy as np

import wia_hal as wia

LAYOUTS = ("contiguous", "transposed", "sliced")


def upload(arr: np.ndarray, layout: str = "contiguous") -> wia.Tensor:
    """A tensor holding ``arr``'s values: contiguous, or a non-contiguous view (the transpose of a tensor holding
    ``arr.T``; or a slice of a larger tensor whose border holds junk that a wrong offset or stride would read)."""
    if layout == "contiguous" or arr.ndim == 0:
        return wia.tensor(arr)
    if layout == "transposed":
        return wia.transpose(wia.tensor(np.ascontiguousarray(arr.T)))
    junk = np.ones((), bool) if arr.dtype.kind == "b" else np.array(99).astype(arr.dtype)
    big = np.full(tuple(d + 2 for d in arr.shape), junk, arr.dtype)
    big[tuple(slice(1, 1 + d) for d in arr.shape)] = arr
    return wia.slice(wia.tensor(big), [1] * arr.ndim, [1 + d for d in arr.shape])
