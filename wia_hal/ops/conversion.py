"""Converting between dtypes: the ``cast`` op, and NumPy's promotion (NEP 50) of a tensor with a scalar operand,
which casts the tensor first (a visible ``cast`` kernel) when the scalar widens it.

The rules, those of NumPy 2 (NEP 50) applied to the WIA dtypes:

- A Python ``bool``, ``int`` or ``float`` is *weak*: it takes the tensor's dtype where its kind fits (a float with a
  float tensor, an int with an int or float tensor, a bool with any), so ``x * 0.5`` stays float16 for a float16
  ``x``, bfloat16 included (ml_dtypes itself promotes that to float64; NEP 50's rule is the one followed). A Python
  float with an int or bool tensor gives float64, a Python int with a bool tensor int64 (not a WIA dtype:
  ``INVALID_VALUE``). An int that does not fit the tensor's integer dtype is ``INVALID_VALUE`` (NumPy 2 raises
  ``OverflowError``).
- A NumPy scalar (``np.float32(2)``) is *strong*: the result dtype is ``np.result_type`` of both dtypes.
- When the result dtype is not the tensor's, the tensor is cast to it first; a result dtype the device does not
  claim is ``NOT_SUPPORTED`` (as for any dtype the device lacks), one that is not a WIA dtype ``INVALID_VALUE``.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Literal

import numpy as np

from wia_hal.context import Context
from wia_hal.dtypes import DTYPES, as_dtype, check_supported, float64
from wia_hal.errors import InvalidValueError, api
from wia_hal.ops.common import broadcast, output, resolve
from wia_hal.opset import BinaryAttrs, Scalar
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor, launch_op

SCALAR_TYPES = (bool, int, float, complex, np.generic)
"""What an operand that takes scalars accepts besides a tensor (a 0-d NumPy array is neither: pass a scalar)."""


Operand = Tensor | bool | int | float | np.generic
"""An operand that takes a scalar: a tensor, a Python number (weak) or a NumPy scalar (strong)."""


def is_scalar(value: object) -> bool:
    return isinstance(value, SCALAR_TYPES)


def is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or dtype.name == "bfloat16"


def promoted(name: str, dtype: np.dtype, value: object) -> np.dtype:
    """The dtype an op computes in between a tensor of ``dtype`` and the scalar ``value`` (NEP 50)."""
    if isinstance(value, np.generic):
        try:
            result = np.result_type(dtype, value.dtype)
        except TypeError:  # NumPy's DTypePromotionError is a TypeError
            result = None
    elif isinstance(value, bool):
        result = dtype
    elif isinstance(value, int):
        result = np.dtype(np.int64) if dtype.kind == "b" else dtype
    elif isinstance(value, float):
        result = dtype if is_float(dtype) else float64
    else:
        result = None
    if result is None or result.name not in DTYPES:
        got = "no common dtype" if result is None else result.name
        raise InvalidValueError(
            f"{name}: a {dtype.name} tensor and the scalar {value!r} ({type(value).__name__}) promote to {got} "
            f"under NumPy's rules, which is not a WIA dtype; pass a scalar of the tensor's kind, or cast the tensor "
            "first (wia.cast)"
        )
    return DTYPES[result.name]


def converted(name: str, value: object, dtype: np.dtype) -> Scalar:
    """``value`` in ``dtype`` as a Python number that holds it exactly (how ``BinaryAttrs.scalar`` travels)."""
    try:
        with np.errstate(over="ignore"):  # a float too large for float16 is inf, as NumPy converts it
            exact = np.array(value, dtype=dtype)
    except OverflowError:  # an int outside the tensor's integer range, or one too large for any float
        limits = f" (range {np.iinfo(dtype).min}..{np.iinfo(dtype).max})" if dtype.kind in "iu" else ""
        raise InvalidValueError(
            f"{name}: the scalar {value!r} does not fit the {dtype.name} operand{limits}; cast the tensor to a "
            "wider dtype first (wia.cast), or pass a float"
        ) from None
    if dtype.kind == "b":
        return bool(exact)
    if dtype.kind in "iu":
        return int(exact)
    return float(exact)


Kinds = Literal["all", "numbers", "floats"]
"""The dtypes an op computes in: every one, not bool, or floating-point only."""

_KIND_NAMES = {"numbers": "a numeric (non-bool)", "floats": "a floating-point"}


def require_kind(name: str, dtype: np.dtype, kinds: Kinds, hint: str = "") -> None:
    if kinds == "all" or (kinds == "floats" and is_float(dtype)) or (kinds == "numbers" and dtype.kind != "b"):
        return
    raise InvalidValueError(f"{name}: needs {_KIND_NAMES[kinds]} dtype, got {dtype.name}{hint}")


@dataclass(frozen=True, slots=True)
class Operands:
    """A binary op's call resolved: its context and stream, its tensor inputs (in the computing dtype), the output
    shape, the computing dtype and the attributes carrying a scalar operand."""

    context: Context
    stream: Stream
    inputs: tuple[Tensor, ...]
    shape: tuple[int, ...]
    dtype: np.dtype
    attrs: BinaryAttrs


_TENSORS = BinaryAttrs()


def binary_operands(
    name: str, a: object, b: object, ctx: Context | None, stream: Stream | None, kinds: Kinds, hint: str = ""
) -> Operands:
    """Two tensors of one dtype, or a tensor and a scalar promoted by NEP 50 (the tensor cast first when the scalar
    widens it, once everything is validated); ``kinds`` are the computing dtypes the op accepts."""
    a_scalar, b_scalar = is_scalar(a), is_scalar(b)
    if a_scalar and b_scalar:
        raise InvalidValueError(f"{name}: both operands are scalars ({a!r}, {b!r}); at least one must be a wia Tensor")
    if not a_scalar and not b_scalar:
        context, s = resolve(name, (a, b), ctx, stream, ("a", "b"))
        ta, tb = typing.cast(Tensor, a), typing.cast(Tensor, b)
        if ta.dtype != tb.dtype:
            raise InvalidValueError(
                f"{name}: dtypes differ: {ta.dtype.name} {ta.shape} and {tb.dtype.name} {tb.shape}; two tensor "
                "operands must have one dtype (only a scalar operand promotes): cast one first (wia.cast)"
            )
        require_kind(name, ta.dtype, kinds, hint)
        return Operands(context, s, (ta, tb), broadcast(name, ta, tb), ta.dtype, _TENSORS)
    value, t = (a, b) if a_scalar else (b, a)
    context, s = resolve(name, (t,), ctx, stream, ("b" if a_scalar else "a",))
    tensor = typing.cast(Tensor, t)
    dtype = promoted(name, tensor.dtype, value)
    require_kind(name, dtype, kinds, hint)
    attrs = BinaryAttrs(scalar=converted(name, value, dtype), scalar_first=a_scalar)
    if dtype != tensor.dtype:
        require_supported(context, dtype)
        tensor = to_dtype(context, s, tensor, dtype)
    return Operands(context, s, (tensor,), tensor.shape, dtype, attrs)


def to_dtype(context: Context, stream: Stream, t: Tensor, dtype: np.dtype) -> Tensor:
    """``t`` in ``dtype``: ``t`` itself, or the output of a ``cast`` kernel on ``stream``."""
    if t.dtype == dtype:
        return t
    return launch_op(context, stream, "cast", (t,), output(context, t.shape, dtype))


def require_supported(context: Context, dtype: np.dtype) -> None:
    """``NOT_SUPPORTED`` when a promoted dtype is one the device lacks."""
    check_supported(dtype, context.device.capabilities, context.device.info.name)


@api
def cast(a: Tensor, dtype: object, *, ctx: Context | None = None, stream: Stream | None = None) -> Tensor:
    """``a`` converted to ``dtype`` (a new tensor; any WIA dtype to any). Floats to narrower floats round to nearest,
    ties to even; floats to integers truncate toward zero (NaN, infinities and values outside the integer's range
    give unspecified values); anything to bool is ``!= 0`` (NaN is True); bool to numbers is 0 or 1; integers to
    narrower integers wrap."""
    context, s = resolve("cast", (a,), ctx, stream, ("a",))
    target = as_dtype(dtype)
    require_supported(context, target)
    return launch_op(context, s, "cast", (a,), output(context, a.shape, target))
