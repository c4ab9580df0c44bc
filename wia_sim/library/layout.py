"""Layout kernels that move data (views need none): concat into one contiguous output."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wia_sim.costmodel import KernelCost, elementwise_cost
from wia_sim.hwmodel import HardwareModel
from wia_sim.library.spec import Attrs, Operand, OpSpec


def _concat_cost(model: HardwareModel, inputs: Sequence[Operand], out: Operand, attrs: Attrs) -> KernelCost:
    nbytes = sum(op.nbytes for op in inputs) + out.nbytes
    return elementwise_cost(model, "concat", out.size, 0, nbytes, out.dtype.name)


def _concat(arrays: Sequence[np.ndarray], attrs: Attrs, out_dtype: np.dtype) -> np.ndarray:
    return np.concatenate(list(arrays), axis=attrs["axis"])


LAYOUT_OPS = [OpSpec("concat", _concat_cost, _concat)]
