"""R-3.7-01 element-wise ops (and relu of R-3.6.1-03)."""

from __future__ import annotations

from wia_hal.context import Context
from wia_hal.errors import InvalidValueError, api
from wia_hal.ops.common import broadcast, output, require_float, resolve
from wia_hal.opset import NO_ATTRS, GeluAttrs, OpAttrs, OpName
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor, launch_op


def _binary(name: OpName, a: Tensor, b: Tensor, ctx: Context | None, stream: Stream | None) -> Tensor:
    context, s = resolve(name, (a, b), ctx, stream, ("a", "b"))
    if a.dtype != b.dtype:
        raise InvalidValueError(
            f"{name}: dtypes differ: {a.dtype.name} {a.shape} and {b.dtype.name} {b.shape}; both inputs must "
            "have one dtype"
        )
    return launch_op(context, s, name, (a, b), output(context, broadcast(name, a, b), a.dtype))


def _unary(
    name: OpName,
    a: Tensor,
    ctx: Context | None,
    stream: Stream | None,
    float_only: bool = False,
    attrs: OpAttrs = NO_ATTRS,
) -> Tensor:
    context, s = resolve(name, (a,), ctx, stream)
    if float_only:
        require_float(name, a)
    return launch_op(context, s, name, (a,), output(context, a.shape, a.dtype), attrs)


@api
def add(a: Tensor, b: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-01: ``a + b`` with NumPy broadcasting (int8/int32 wrap; bool is logical or)."""
    return _binary("add", a, b, ctx, stream)


@api
def mul(a: Tensor, b: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-01: ``a * b`` with NumPy broadcasting (int8/int32 wrap; bool is logical and)."""
    return _binary("mul", a, b, ctx, stream)


@api
def relu(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-01, R-3.6.1-03: ``max(a, 0)`` (NaN stays NaN)."""
    return _unary("relu", a, ctx, stream)


@api
def gelu(a: Tensor, *, approximate: str = "none", ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-01: ``x·Φ(x)`` in the erf form, or ``approximate="tanh"``:
    ``0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))``. Floating-point tensors only."""
    if approximate not in ("none", "tanh"):
        raise InvalidValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return _unary("gelu", a, ctx, stream, float_only=True, attrs=GeluAttrs(approximate=approximate))


@api
def sigmoid(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-01: ``1 / (1 + exp(-x))``, without overflow for large ``|x|``. Floating-point tensors only."""
    return _unary("sigmoid", a, ctx, stream, float_only=True)
