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
    # extensions of the spec's op library (docs/ops.md, "Beyond the spec"): what models need
    "sub",
    "div",
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "where",
    "neg",
    "abs",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "tanh",
    "silu",
    "cast",
    "layer_norm",
    "rms_norm",
    "gather",
    "attention",
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


Scalar = float | int | bool
"""A scalar operand as it travels to a backend: already converted to the op's computing dtype by the front end
(so ``float(value)`` or ``int(value)`` in that dtype is exact)."""


class BinaryAttrs(OpAttrs):
    """A binary element-wise op (``add sub mul div maximum minimum`` and the comparisons). With ``scalar`` None
    the op has two tensor inputs; otherwise one, and ``scalar`` is the other operand: the first one when
    ``scalar_first`` (``2 - x`` is ``sub`` of input ``x`` with ``scalar=2, scalar_first=True``), else the second."""

    scalar: Scalar | None = None
    scalar_first: bool = False


class WhereAttrs(OpAttrs):
    """``where(condition, x, y)``: the inputs are the bool condition, then ``x`` unless ``x_scalar`` is set, then
    ``y`` unless ``y_scalar`` is set (scalars converted to the output dtype)."""

    x_scalar: Scalar | None = None
    y_scalar: Scalar | None = None


class LayerNormAttrs(OpAttrs):
    """``layer_norm`` over the last axis: ``(x - mean) / sqrt(var + eps) * weight + bias`` with the biased
    variance; the inputs are ``x``, then ``weight`` if ``weight``, then ``bias`` if ``bias`` (each of shape
    ``(x.shape[-1],)``)."""

    eps: float = Field(1e-5, gt=0)
    weight: bool = True
    bias: bool = True


class RmsNormAttrs(OpAttrs):
    """``rms_norm`` over the last axis: ``x / sqrt(mean(x²) + eps) * weight``; the inputs are ``x``, then
    ``weight`` if ``weight``."""

    eps: float = Field(1e-6, gt=0)
    weight: bool = True


class GatherAttrs(OpAttrs):
    """``gather``: ``take(a, indices, axis)``; inputs ``a`` and an integer ``indices`` tensor; output shape
    ``a.shape[:axis] + indices.shape + a.shape[axis + 1:]``. Negative indices count from the end; an index outside
    ``[-n, n)`` gives zeros (as TensorFlow's GPU gather does: a device kernel cannot raise)."""

    axis: int = Field(0, ge=0)


class AttentionAttrs(OpAttrs):
    """``attention``: scaled dot-product attention, ``softmax(scale · q kᵀ + mask) v`` per head.

    Inputs ``q (*batch, Hq, Lq, D)``, ``k (*batch, Hkv, Lk, D)``, ``v (*batch, Hkv, Lk, Dv)`` with ``Hq`` a multiple
    of ``Hkv`` (grouped-query attention: query head ``h`` reads key/value head ``h // (Hq / Hkv)``), then the mask
    if ``mask`` is not ``none``: broadcastable to ``(*batch, Hq, Lq, Lk)``, ``bool`` (True: attend) or ``additive``
    (a float tensor of q's dtype added to the scaled scores). ``causal``: query ``i`` sees key ``j`` only when
    ``j <= i + Lk - Lq`` (aligned at the bottom right, as with a KV cache). A query that sees no key gives zeros.
    Scores, softmax and both products accumulate in float32 for low-precision data (float64 for float64);
    ``arithmetic`` is the matrix arithmetic of the two products. ``implementation``: ``flash`` is one fused kernel
    that never writes the scores to memory (FlashAttention); ``unfused`` costs the materialized path (scores and
    probabilities written and read back); the numbers are the same."""

    scale: float
    causal: bool = False
    mask: Literal["none", "bool", "additive"] = "none"
    arithmetic: Arithmetic
    implementation: Literal["flash", "unfused"] = "flash"


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
    "add": BinaryAttrs,
    "mul": BinaryAttrs,
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
    "sub": BinaryAttrs,
    "div": BinaryAttrs,
    "maximum": BinaryAttrs,
    "minimum": BinaryAttrs,
    "equal": BinaryAttrs,
    "not_equal": BinaryAttrs,
    "less": BinaryAttrs,
    "less_equal": BinaryAttrs,
    "greater": BinaryAttrs,
    "greater_equal": BinaryAttrs,
    "where": WhereAttrs,
    "neg": OpAttrs,
    "abs": OpAttrs,
    "exp": OpAttrs,
    "log": OpAttrs,
    "sqrt": OpAttrs,
    "rsqrt": OpAttrs,
    "tanh": OpAttrs,
    "silu": OpAttrs,
    "cast": OpAttrs,
    "layer_norm": LayerNormAttrs,
    "rms_norm": RmsNormAttrs,
    "gather": GatherAttrs,
    "attention": AttentionAttrs,
}
"""The attribute model of each op: what ``launch_op`` receives as ``attrs``."""

__all__ = [
    "ATTRS",
    "NO_ATTRS",
    "OP_NAMES",
    "Arithmetic",
    "AttentionAttrs",
    "AxisAttrs",
    "BatchNormAttrs",
    "BinaryAttrs",
    "ConvAttrs",
    "FillAttrs",
    "GatherAttrs",
    "GeluAttrs",
    "LayerNormAttrs",
    "MatmulAttrs",
    "OpAttrs",
    "OpName",
    "Pool2dAttrs",
    "ReduceAttrs",
    "RmsNormAttrs",
    "Scalar",
    "WhereAttrs",
]
