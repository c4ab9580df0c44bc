"""What an op of the library is, and the rounding rules its kernels share."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import ml_dtypes
import numpy as np

from wia_sim.costmodel import KernelCost
from wia_sim.hwmodel import HardwareModel

Attrs = Mapping[str, Any]


class Operand(NamedTuple):
    """What the cost model knows of an array: its shape and dtype."""

    shape: tuple[int, ...]
    dtype: np.dtype

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize


CostFn = Callable[[HardwareModel, Sequence[Operand], Operand, Attrs], KernelCost]
ComputeFn = Callable[[Sequence[np.ndarray], Attrs, np.dtype], np.ndarray]


@dataclass(frozen=True)
class OpSpec:
    name: str
    cost: CostFn
    compute: ComputeFn


FLOAT32 = np.dtype(np.float32)
LOW_PRECISION = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


def widened(x: np.ndarray) -> np.ndarray:
    """Low-precision floats as float32 (what the units compute in); other dtypes unchanged."""
    return x.astype(FLOAT32) if x.dtype in LOW_PRECISION else x


def round_tf32(x: np.ndarray) -> np.ndarray:
    """float32 rounded to TF32 (10 explicit mantissa bits), to nearest, ties to even, as the matrix units read it."""
    bits = np.ascontiguousarray(x, dtype=FLOAT32).view(np.uint32)
    keep = np.uint32(0xFFFFE000)
    rounding = np.uint32(0x0FFF) + ((bits >> np.uint32(13)) & np.uint32(1))
    finite = (bits & np.uint32(0x7F800000)) != np.uint32(0x7F800000)
    rounded = np.where(finite, (bits + rounding) & keep, bits)
    return rounded.view(FLOAT32)


ARITHMETIC_DTYPES = {
    "float32": np.dtype(np.float32),
    "float16": np.dtype(np.float16),
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float64": np.dtype(np.float64),
    "float8": np.dtype(ml_dtypes.float8_e4m3fn),
}


def as_arithmetic(x: np.ndarray, arithmetic: str) -> np.ndarray:
    """The operand as the units of ``arithmetic`` see it, in the dtype the accumulation runs in.

    float32/tf32/float16/bfloat16/float8 (e4m3) accumulate in float32; float64 in float64; int8 exactly (float64
    holds every int8 product sum of fewer than 2^37 terms exactly, and the result wraps to int32 as the accumulator
    does).
    """
    if arithmetic == "tf32":
        return round_tf32(x.astype(FLOAT32, copy=False))
    if arithmetic in ("int8", "float64"):
        return x.astype(np.float64, copy=False)
    return x.astype(ARITHMETIC_DTYPES[arithmetic], copy=False).astype(FLOAT32, copy=False)


def accumulated(result: np.ndarray, arithmetic: str) -> np.ndarray:
    """The accumulator's value: int8 products wrap to int32; floats stay as computed."""
    if arithmetic == "int8":
        return result.astype(np.int64).astype(np.int32)
    return result
