"""Floating-point functions beyond the spec (docs/ops.md): ``exp log sqrt rsqrt tanh silu``.

Floating-point tensors only; float16/bfloat16 compute in float32 and round once (docs/numerics.md). IEEE results
outside the domain: ``log`` of 0 is -inf and of a negative number NaN, ``sqrt`` of a negative number NaN, ``rsqrt``
of 0 is inf.
"""

from __future__ import annotations

from wia_hal.context import Context
from wia_hal.errors import api
from wia_hal.ops.common import output, require_float, resolve
from wia_hal.opset import OpName
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor, launch_op


def _function(name: OpName, a: Tensor, ctx: Context | None, stream: Stream | None) -> Tensor:
    context, s = resolve(name, (a,), ctx, stream)
    require_float(name, a)
    return launch_op(context, s, name, (a,), output(context, a.shape, a.dtype))


@api
def exp(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``e^a`` (overflow is inf)."""
    return _function("exp", a, ctx, stream)


@api
def log(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """The natural logarithm."""
    return _function("log", a, ctx, stream)


@api
def sqrt(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``√a``."""
    return _function("sqrt", a, ctx, stream)


@api
def rsqrt(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``1 / √a``, as normalization layers use it."""
    return _function("rsqrt", a, ctx, stream)


@api
def tanh(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """The hyperbolic tangent."""
    return _function("tanh", a, ctx, stream)


@api
def silu(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``a · sigmoid(a)`` (SiLU, or swish), without overflow for large ``|a|``."""
    return _function("silu", a, ctx, stream)
