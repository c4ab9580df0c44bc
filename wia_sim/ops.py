"""The machine's built-in kernels: how each computes (NumPy, rounding like hardware) and what it costs.

Low-precision inputs are widened to float32 for the arithmetic and the result is rounded once to the output
dtype, as hardware with float32 accumulation does. Integer arithmetic wraps as the dtype's width does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from wia_sim.commands import Finish
from wia_sim.costmodel import KernelCost, elementwise_cost
from wia_sim.hwmodel import HardwareModel

_WIDENED = {np.dtype(np.float16): np.dtype(np.float32), np.dtype(ml_dtypes.bfloat16): np.dtype(np.float32)}


def _relu(x: np.ndarray) -> np.ndarray:
    if x.dtype == np.bool_:
        return x.copy()
    result: np.ndarray = np.maximum(x, x.dtype.type(0))
    return result


def _zero() -> np.ndarray:
    return np.zeros((), np.uint8)


@dataclass(frozen=True)
class ElementwiseOp:
    name: str
    arity: int
    flops_per_element: float
    fn: Callable[..., np.ndarray]


ELEMENTWISE: dict[str, ElementwiseOp] = {
    op.name: op
    for op in (
        ElementwiseOp("add", 2, 1.0, np.add),
        ElementwiseOp("mul", 2, 1.0, np.multiply),
        ElementwiseOp("relu", 1, 1.0, _relu),
        ElementwiseOp("fill_zero", 0, 0.0, _zero),  # memset: writes every output byte, reads nothing
    )
}


def elementwise_kernel(
    model: HardwareModel,
    op: ElementwiseOp,
    input_bytes: int,
    out_shape: tuple[int, ...],
    out_dtype: np.dtype,
) -> KernelCost:
    """Cost of one launch: every input byte read once, every output byte written once."""
    elements = math.prod(out_shape)
    nbytes = input_bytes + elements * out_dtype.itemsize
    return elementwise_cost(model, op.name, elements, op.flops_per_element, nbytes, out_dtype.name)


def elementwise_start(op: ElementwiseOp, inputs: Sequence[np.ndarray], out: np.ndarray) -> Callable[[], Finish]:
    """The numerics of one launch on live views of the buffers: read and compute at start, write at the end."""
    fn = op.fn
    wide = _WIDENED.get(out.dtype)

    def start() -> Finish:
        result = fn(*inputs) if wide is None else fn(*[a.astype(wide) for a in inputs])
        return lambda: np.copyto(out, result, casting="unsafe")

    return start
