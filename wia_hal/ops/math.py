"""Floating-point functions beyond the spec (docs/ops.md): ``exp log sqrt rsqrt tanh silu``.

Floating-point tensors only; float16/bfloat16 compute in float32 and round once (docs/numerics.md). IEEE results
outside the domain: ``log`` of 0 is -inf and of a negative number NaN, ``sqrt`` of a negative number NaN, ``rsqrt``
of 0 is inf.
"""

from __future__ import annotations

from wia_hal.context import Context
from wia_hal.errors import api
from wia_hal.ops.elementwise import unary
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor


@api
def exp(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``e^a`` (overflow is inf)."""
    return unary("exp", a, ctx, stream, float_only=True)


@api
def log(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """The natural logarithm."""
    return unary("log", a, ctx, stream, float_only=True)


@api
def sqrt(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``√a``."""
    return unary("sqrt", a, ctx, stream, float_only=True)


@api
def rsqrt(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``1 / √a``, as normalization layers use it."""
    return unary("rsqrt", a, ctx, stream, float_only=True)


@api
def tanh(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """The hyperbolic tangent."""
    return unary("tanh", a, ctx, stream, float_only=True)


@api
def silu(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``a · sigmoid(a)`` (SiLU, or swish), without overflow for large ``|a|``."""
    return unary("silu", a, ctx, stream, float_only=True)
