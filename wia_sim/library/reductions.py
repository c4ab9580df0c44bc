"""Reductions: every input element read once, one work-item per input element in a tree over work-groups.

Low-precision data is reduced in float32 and int8/bool sums in int32, as the accumulators of real kernels are;
``attrs["axis"]`` is a tuple of non-negative axes (or None for all), ``attrs["keepdims"]`` a bool.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wia_sim.costmodel import KernelCost, elementwise_cost
from wia_sim.hwmodel import HardwareModel
from wia_sim.library.spec import Attrs, Operand, OpSpec, widened


def row_cost(
    model: HardwareModel,
    name: str,
    x: Operand,
    row: int,
    flops_per_element: float,
    passes: int,
    nbytes: float,
) -> KernelCost:
    """A kernel that works on ``x`` a row of ``row`` elements at a time, streaming each row ``passes`` times
    (softmax: max, then exp-sum and write; layer_norm: the statistics, then the normalized values) and moving
    ``nbytes`` once through device memory (its input, output and any parameters).

    A row that fits in one work-group's local memory is read once and kept on chip for the later passes (as fused
    softmax and layer-norm kernels do); a longer row is read again: from the last-level cache when the rows being
    worked on at once (one per compute unit) fit in it, else from device memory."""
    rows_at_once = min(max(x.size, 1) // max(row, 1), model.compute.compute_units)
    row_bytes = row * x.dtype.itemsize
    cached = rows_at_once * row_bytes <= model.memory.last_level_cache
    on_chip = row_bytes <= model.compute.max_local_memory_per_work_group
    again = 0 if on_chip else (passes - 1) * x.nbytes
    return elementwise_cost(
        model,
        name,
        max(x.size, 1),
        flops_per_element,
        nbytes + (0 if cached else again),
        x.dtype.name,
        again if cached else 0,
    )


def _reduction(name: str, flops_per_element: float, passes: int) -> OpSpec:
    """``passes``: how many times the kernel streams the input (see :func:`row_cost`); a one-pass reduction
    streams it whole."""

    def cost(model: HardwareModel, inputs: Sequence[Operand], out: Operand, attrs: Attrs) -> KernelCost:
        (x,) = inputs
        axis = attrs.get("axis", -1) if passes > 1 else None
        row = x.shape[axis] if isinstance(axis, int) and x.shape else max(x.size, 1)
        return row_cost(model, name, x, row, flops_per_element, passes, x.nbytes + out.nbytes)

    return OpSpec(name, cost, _COMPUTE[name])


def _sum(arrays: Sequence[np.ndarray], attrs: Attrs, out_dtype: np.dtype) -> np.ndarray:
    (x,) = arrays
    accumulator = np.int32 if x.dtype.kind in "bi" else None
    return np.asarray(np.sum(widened(x), axis=attrs["axis"], keepdims=attrs["keepdims"], dtype=accumulator))


def _max(arrays: Sequence[np.ndarray], attrs: Attrs, out_dtype: np.dtype) -> np.ndarray:
    (x,) = arrays
    return np.max(x, axis=attrs["axis"], keepdims=attrs["keepdims"])


def _softmax(arrays: Sequence[np.ndarray], attrs: Attrs, out_dtype: np.dtype) -> np.ndarray:
    (x,) = arrays
    axis = attrs["axis"]
    wide = widened(x)
    if wide.size == 0:  # nothing to normalise: the empty result
        return wide
    shifted = wide - np.max(wide, axis=axis, keepdims=True)  # stable: exp of non-positive values only
    e = np.exp(shifted)
    return e / np.sum(e, axis=axis, keepdims=True)


_COMPUTE = {"sum": _sum, "max": _max, "softmax": _softmax}

REDUCTION_OPS = [
    _reduction("sum", 1, 1),
    _reduction("max", 1, 1),
    _reduction("softmax", 5, 2),  # max, subtract, exp, sum, divide; the row is read for the max and again
]
