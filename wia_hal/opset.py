"""The closed set of built-in ops a backend can run, and one typed attribute model per op.

The front end validates every call and builds these models; a backend receives them in ``Backend.launch_op`` and
never has to guess a key. ``docs/backend.md`` gives each op's semantics. Pairs are ``(height, width)``; axes are
non-negative and sorted; enum choices travel by name.
"""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field

from wia_hal.models import WiaModel

OpName = Literal[
    "fill",
    "copy",
    "add",
    "mul",
    "relu",
    "gelu",
    "sigmoid",
    "sum",
    "max",
    "softmax",
    "concat",
    "matmul",
    "conv2d",
    "batch_norm",
    "pool2d",
]

OP_NAMES: tuple[OpName, ...] = get_args(OpName)

Arithmetic = Literal["float32", "tf32", "float16", "bfloat16", "int8", "float64", "float8"]
"""The arithmetic a matmul or convolution runs in (the key of ``DeviceInfo.peak_flops_by_precision``)."""

Pair = tuple[int, int]


class OpAttrs(WiaModel):
    """Base of the attribute models. An op without parameters takes exactly this class (``NO_ATTRS``)."""


NO_ATTRS = OpAttrs()


class FillAttrs(OpAttrs):
    """``fill``: every element of the output becomes ``value`` (converted to the output's dtype)."""

    value: float | int | bool = 0


class GeluAttrs(OpAttrs):
    """``gelu``: ``x·Φ(x)`` (``none``, the erf form) or the tanh approximation."""

    approximate: Literal["none", "tanh"] = "none"


class ReduceAttrs(OpAttrs):
    """``sum`` / ``max`` over ``axis`` (sorted, distinct, non-negative; all axes for a full reduction)."""

    axis: tuple[int, ...]
    keepdims: bool = False


class AxisAttrs(OpAttrs):
    """``softmax`` along ``axis``; ``concat`` joining along ``axis`` (non-negative)."""

    axis: int = Field(ge=0)


class MatmulAttrs(OpAttrs):
    """``matmul`` (also ``batch_matmul`` and ``matmul_optimized``): NumPy's matmul rules; operands rounded to
    ``arithmetic``, accumulation in float32 (int32 for int8, float64 for float64); ``algorithm`` is a
    ``MatmulAlgorithm`` name, a hint a backend may ignore."""

    arithmetic: Arithmetic
    algorithm: Literal["AUTO", "TILED_64", "TILED_128", "TILED_256", "SPLIT_K", "STREAM_K"] = "AUTO"


class ConvAttrs(OpAttrs):
    """``conv2d``: NCHW input, OIHW weight, optional bias (a third input); geometry per axis; ``algorithm`` is a
    ``ConvAlgorithm`` name (a hint); ``arithmetic`` as for matmul."""

    padding: Pair = (0, 0)
    stride: Pair = (1, 1)
    dilation: Pair = (1, 1)
    groups: int = Field(1, ge=1)
    algorithm: Literal["AUTO", "IMPLICIT_GEMM", "WINOGRAD", "DIRECT"] = "AUTO"
    arithmetic: Arithmetic


class BatchNormAttrs(OpAttrs):
    """``batch_norm`` (inference): ``(x - mean) / sqrt(variance + eps) * scale + bias`` over axis 1."""

    eps: float = Field(1e-5, gt=0)


class Pool2dAttrs(OpAttrs):
    """``pool2d``: MAX or AVG windows of ``kernel_size`` at ``stride`` with ``padding`` (AVG divides by the whole
    window, padding included; MAX ignores padded positions)."""

    type: Literal["MAX", "AVG"]
    kernel_size: Pair
    stride: Pair
    padding: Pair = (0, 0)


ATTRS: dict[OpName, type[OpAttrs]] = {
    "fill": FillAttrs,
    "copy": OpAttrs,
    "add": OpAttrs,
    "mul": OpAttrs,
    "relu": OpAttrs,
    "gelu": GeluAttrs,
    "sigmoid": OpAttrs,
    "sum": ReduceAttrs,
    "max": ReduceAttrs,
    "softmax": AxisAttrs,
    "concat": AxisAttrs,
    "matmul": MatmulAttrs,
    "conv2d": ConvAttrs,
    "batch_norm": BatchNormAttrs,
    "pool2d": Pool2dAttrs,
}
"""The attribute model of each op: what ``launch_op`` receives as ``attrs``."""

__all__ = [
    "ATTRS",
    "NO_ATTRS",
    "OP_NAMES",
    "Arithmetic",
    "AxisAttrs",
    "BatchNormAttrs",
    "ConvAttrs",
    "FillAttrs",
    "GeluAttrs",
    "MatmulAttrs",
    "OpAttrs",
    "OpName",
    "Pool2dAttrs",
    "ReduceAttrs",
]
