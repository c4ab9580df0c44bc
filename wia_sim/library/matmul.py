"""Matrix multiplication: NumPy's matmul semantics (1-D operands, broadcast batch dimensions), the arithmetic
of ``attrs["arithmetic"]`` (float32, tf32, float16, bfloat16, int8, float64) and the tiling of
``attrs["algorithm"]`` (AUTO, TILED_64, TILED_128, TILED_256, SPLIT_K, STREAM_K; AUTO also weighs the GEMV-class
16-wide tiles of skinny products and split-K over every tiling)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from wia_sim.costmodel import Gemm, KernelCost, gemm_cost
from wia_sim.hwmodel import HardwareModel
from wia_sim.library.spec import Attrs, Operand, OpSpec, accumulated, as_arithmetic


def gemm_of(a: tuple[int, ...], b: tuple[int, ...], nbytes: float) -> Gemm:
    """The GEMM a NumPy-style matmul of shapes ``a`` and ``b`` performs.

    A batched ``a`` times one matrix ``b`` (activations times a weight) is one GEMM with the batch folded into M,
    as libraries run it (PyTorch's ``matmul`` reshapes to ``mm``; the rows of ``a`` are contiguous in M): not
    ``batch`` thin products that each pay a tile's wasted rows."""
    ash = a if len(a) >= 2 else (1, *a)
    bsh = b if len(b) >= 2 else (*b, 1)
    if len(b) <= 2:
        return Gemm(m=math.prod(ash[:-1]), n=bsh[-1], k=ash[-1], batch=1, nbytes=nbytes)
    batch = math.prod(np.broadcast_shapes(ash[:-2], bsh[:-2]))
    return Gemm(m=ash[-2], n=bsh[-1], k=ash[-1], batch=batch, nbytes=nbytes)


def _cost(model: HardwareModel, inputs: Sequence[Operand], out: Operand, attrs: Attrs) -> KernelCost:
    a, b = inputs
    g = gemm_of(a.shape, b.shape, a.nbytes + b.nbytes + out.nbytes)
    return gemm_cost(model, "matmul", g, attrs["arithmetic"], attrs["algorithm"])


def split_k_parts(algorithm: str) -> int:
    """How many K slices an algorithm label (``SPLIT_K×4``, ``SPLIT_K×4/TILED_128x16``) sums; 1 for a plain
    tiling."""
    return int(algorithm.partition("×")[2].partition("/")[0] or 1)


def _compute(arrays: Sequence[np.ndarray], attrs: Attrs, out_dtype: np.dtype) -> np.ndarray:
    arithmetic = attrs["arithmetic"]
    a, b = (as_arithmetic(x, arithmetic) for x in arrays)
    parts = split_k_parts(attrs.get("chosen", ""))
    if parts == 1 or a.ndim < 2 or b.ndim < 2:
        return accumulated(np.matmul(a, b), arithmetic)
    # split-K: each slice of K is a separate product; the partial tiles are summed in slice order
    bounds = np.linspace(0, a.shape[-1], parts + 1).astype(int)
    slices = itertools.pairwise(bounds)
    lo, hi = next(slices)
    total = np.matmul(a[..., lo:hi], b[..., lo:hi, :])
    for lo, hi in slices:
        total = total + np.matmul(a[..., lo:hi], b[..., lo:hi, :])
    return accumulated(total, arithmetic)


MATMUL_OPS = [OpSpec("matmul", _cost, _compute)]
