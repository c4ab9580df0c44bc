"""Normalization over the last axis (``layer_norm``, ``rms_norm``): row kernels like softmax's.

A work-group takes a row, reduces its statistics in local memory, then writes the normalized row: the input is read
once when the row fits on chip (else again, see :func:`wia_sim.library.reductions.row_cost`), the weight and bias
vectors once, the output written once. FLOPs per element count every add, subtract, multiply and divide the kernel
executes on it, the convention of the element-wise kernels (``wia_sim/library/elementwise.py``); the per-row square
root and division by the row length are amortized away. Low-precision data compute in float32 (mean and biased
variance too) and are rounded once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wia_sim.costmodel import KernelCost
from wia_sim.hwmodel import HardwareModel
from wia_sim.library.reductions import row_cost
from wia_sim.library.spec import Attrs, Operand, OpSpec, widened

LAYER_NORM_FLOPS = 6
"""Per element: add (the mean); subtract, multiply, add (the variance of the centred value); subtract, divide (the
normalized value). ``weight`` adds a multiply, ``bias`` an add."""

RMS_NORM_FLOPS = 3
"""Per element: multiply, add (the mean of squares); divide. ``weight`` adds a multiply."""


def _norm_cost(name: str, model: HardwareModel, inputs: Sequence[Operand], out: Operand, flops: float) -> KernelCost:
    x = inputs[0]
    nbytes = sum(op.nbytes for op in inputs) + out.nbytes
    return row_cost(model, name, x, x.shape[-1], flops, 2, nbytes)


def _layer_norm_cost(model: HardwareModel, inputs: Sequence[Operand], out: Operand, attrs: Attrs) -> KernelCost:
    flops = LAYER_NORM_FLOPS + bool(attrs["weight"]) + bool(attrs["bias"])
    return _norm_cost("layer_norm", model, inputs, out, flops)


def _rms_norm_cost(model: HardwareModel, inputs: Sequence[Operand], out: Operand, attrs: Attrs) -> KernelCost:
    return _norm_cost("rms_norm", model, inputs, out, RMS_NORM_FLOPS + bool(attrs["weight"]))


def _layer_norm(arrays: Sequence[np.ndarray], attrs: Attrs, out_dtype: np.dtype) -> np.ndarray:
    x, *params = (widened(a) for a in arrays)
    eps = np.asarray(attrs["eps"], dtype=x.dtype)
    centred = x - np.mean(x, axis=-1, keepdims=True, dtype=x.dtype)
    y = centred / np.sqrt(np.mean(centred * centred, axis=-1, keepdims=True, dtype=x.dtype) + eps)
    given = iter(params)
    if attrs["weight"]:
        y = y * next(given)
    if attrs["bias"]:
        y = y + next(given)
    return y


def _rms_norm(arrays: Sequence[np.ndarray], attrs: Attrs, out_dtype: np.dtype) -> np.ndarray:
    x, *params = (widened(a) for a in arrays)
    eps = np.asarray(attrs["eps"], dtype=x.dtype)
    y = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True, dtype=x.dtype) + eps)
    return y * params[0] if attrs["weight"] else y


NORM_OPS = [OpSpec("layer_norm", _layer_norm_cost, _layer_norm), OpSpec("rms_norm", _rms_norm_cost, _rms_norm)]
