"""``gather``: ``take`` along an axis by an integer index tensor (out-of-range indices give zeros).

The kernel reads the indices and, for each, streams the whole slice it names (a row of the embedding table for
axis 0) into the output: bytes = indices + the gathered slices + the output, from shapes alone, so the cost does
not depend on the index values (timing-only runs have none) and cache reuse of a repeated index is not modeled.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wia_sim.costmodel import KernelCost, elementwise_cost
from wia_sim.hwmodel import HardwareModel
from wia_sim.library.spec import Attrs, Operand, OpSpec


def _gather_cost(model: HardwareModel, inputs: Sequence[Operand], out: Operand, attrs: Attrs) -> KernelCost:
    indices = inputs[1]
    nbytes = indices.nbytes + 2 * out.nbytes  # the gathered slices are as large as the output they fill
    return elementwise_cost(model, "gather", out.size, 0, nbytes, out.dtype.name)


def _gather(arrays: Sequence[np.ndarray], attrs: Attrs, out_dtype: np.dtype) -> np.ndarray:
    a, indices = arrays
    axis = attrs["axis"]
    n = a.shape[axis]
    shape = (*a.shape[:axis], *indices.shape, *a.shape[axis + 1 :])
    if n == 0:
        return np.zeros(shape, a.dtype)
    i = indices.astype(np.int64)
    i = np.where(i < 0, i + n, i)
    valid = (i >= 0) & (i < n)
    taken = np.take(a, np.where(valid, i, 0), axis=axis)
    mask = valid.reshape((1,) * axis + indices.shape + (1,) * (a.ndim - axis - 1))
    return np.where(mask, taken, np.zeros((), a.dtype))


INDEXING_OPS = [OpSpec("gather", _gather_cost, _gather)]
