"""Inference batch normalization and 2-D pooling (NCHW): streaming kernels."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from wia_sim.costmodel import KernelCost, elementwise_cost
from wia_sim.hwmodel import HardwareModel
from wia_sim.library.spec import Attrs, Operand, OpSpec, widened


def _batch_norm_cost(model: HardwareModel, inputs: Sequence[Operand], out: Operand, attrs: Attrs) -> KernelCost:
    nbytes = sum(op.nbytes for op in inputs) + out.nbytes
    # per element: (x - mean) * (scale / sqrt(var + eps)) + bias, with the per-channel factor folded once
    return elementwise_cost(model, "batch_norm", out.size, 3, nbytes, out.dtype.name)


def _batch_norm(arrays: Sequence[np.ndarray], attrs: Attrs, out_dtype: np.dtype) -> np.ndarray:
    x, scale, bias, mean, var = (widened(a) for a in arrays)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    factor = scale / np.sqrt(var + np.asarray(attrs["eps"], dtype=var.dtype))
    return (x - mean.reshape(shape)) * factor.reshape(shape) + bias.reshape(shape)


def _pool_cost(model: HardwareModel, inputs: Sequence[Operand], out: Operand, attrs: Attrs) -> KernelCost:
    (x,) = inputs
    kh, kw = attrs["kernel_size"]
    return elementwise_cost(model, "pool2d", out.size, kh * kw, x.nbytes + out.nbytes, out.dtype.name)


def _pool(arrays: Sequence[np.ndarray], attrs: Attrs, out_dtype: np.dtype) -> np.ndarray:
    (x,) = arrays
    (kh, kw), (sh, sw), (ph, pw) = attrs["kernel_size"], attrs["stride"], attrs["padding"]
    maximum = attrs["type"] == "MAX"
    x = widened(x)
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    fill = lowest if maximum else 0
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=fill)
    windows = sliding_window_view(padded, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw]
    if maximum:
        return windows.max(axis=(-2, -1))
    return windows.sum(axis=(-2, -1)) / (kh * kw)  # padded positions count (count_include_pad)


NN_OPS = [OpSpec("batch_norm", _batch_norm_cost, _batch_norm), OpSpec("pool2d", _pool_cost, _pool)]
