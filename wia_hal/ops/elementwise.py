"""R-3.7-01 element-wise ops (and relu of R-3.6.1-03), and the arithmetic beyond the spec that models need (sub,
div, maximum, minimum, neg, abs); the binary ones take a scalar for either operand (``wia_hal.ops.conversion``)."""

from __future__ import annotations

from wia_hal.context import Context
from wia_hal.errors import InvalidValueError, api
from wia_hal.ops.common import output, require_float, resolve
from wia_hal.ops.conversion import Kinds, Operand, binary_operands, require_kind
from wia_hal.opset import NO_ATTRS, GeluAttrs, OpAttrs, OpName
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor, launch_op


def _binary(
    name: OpName,
    a: Operand,
    b: Operand,
    ctx: Context | None,
    stream: Stream | None,
    kinds: Kinds = "all",
    hint: str = "",
) -> Tensor:
    ops = binary_operands(name, a, b, ctx, stream, kinds, hint)
    return launch_op(ops.context, ops.stream, name, ops.inputs, output(ops.context, ops.shape, ops.dtype), ops.attrs)


def unary(
    name: OpName,
    a: Tensor,
    ctx: Context | None,
    stream: Stream | None,
    float_only: bool = False,
    attrs: OpAttrs = NO_ATTRS,
) -> Tensor:
    """A one-input element-wise op with the input's shape and dtype (``float_only``: floating-point inputs only)."""
    context, s = resolve(name, (a,), ctx, stream)
    if float_only:
        require_float(name, a)
    return launch_op(context, s, name, (a,), output(context, a.shape, a.dtype), attrs)


@api
def add(a: Operand, b: Operand, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-01: ``a + b`` with NumPy broadcasting (int8/int32 wrap; bool is logical or). Either operand may be a
    scalar (NumPy's promotion, ``wia_hal.ops.conversion``)."""
    return _binary("add", a, b, ctx, stream)


@api
def mul(a: Operand, b: Operand, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-01: ``a * b`` with NumPy broadcasting (int8/int32 wrap; bool is logical and); scalars as ``add``."""
    return _binary("mul", a, b, ctx, stream)


# -- beyond the spec (docs/ops.md): the arithmetic models need ----------------------------------------------------


@api
def sub(a: Operand, b: Operand, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``a - b`` with NumPy broadcasting and scalars (int8/int32 wrap); not for bool (NumPy refuses it too: use
    ``not_equal`` for a logical xor)."""
    return _binary("sub", a, b, ctx, stream, "numbers", " (NumPy refuses bool subtraction: not_equal is a logical xor)")


@api
def div(a: Operand, b: Operand, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """True division ``a / b`` computed in a floating-point dtype (IEEE: ``x / 0`` is ±inf or NaN); integer
    operands are not divided: cast them first."""
    return _binary("div", a, b, ctx, stream, "floats", " (integer division is not an op: cast to a float first)")


@api
def maximum(a: Operand, b: Operand, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """The larger of ``a`` and ``b`` element by element (NaN propagates; bool: or), broadcasting, scalars."""
    return _binary("maximum", a, b, ctx, stream)


@api
def minimum(a: Operand, b: Operand, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """The smaller of ``a`` and ``b`` element by element (NaN propagates; bool: and), broadcasting, scalars."""
    return _binary("minimum", a, b, ctx, stream)


@api
def neg(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``-a`` (int8/int32 wrap: ``-(-128)`` is -128); not for bool."""
    context, s = resolve("neg", (a,), ctx, stream)
    require_kind("neg", a.dtype, "numbers", " (use wia.equal(a, False) for a logical not)")
    return launch_op(context, s, "neg", (a,), output(context, a.shape, a.dtype))


@api
def abs(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``|a|`` (int8/int32 wrap: ``abs(-128)`` is -128 for int8, as NumPy's; bool unchanged)."""
    return unary("abs", a, ctx, stream)


@api
def relu(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-01, R-3.6.1-03: ``max(a, 0)`` (NaN stays NaN)."""
    return unary("relu", a, ctx, stream)


@api
def gelu(a: Tensor, *, approximate: str = "none", ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-01: ``x·Φ(x)`` in the erf form, or ``approximate="tanh"``:
    ``0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))``. Floating-point tensors only."""
    if approximate not in ("none", "tanh"):
        raise InvalidValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return unary("gelu", a, ctx, stream, float_only=True, attrs=GeluAttrs(approximate=approximate))


@api
def sigmoid(a: Tensor, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """R-3.7-01: ``1 / (1 + exp(-x))``, without overflow for large ``|x|``. Floating-point tensors only."""
    return unary("sigmoid", a, ctx, stream, float_only=True)
