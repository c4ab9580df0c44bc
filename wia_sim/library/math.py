"""Element-wise arithmetic with scalar operands, comparisons, selection, floating-point functions and casts: one
streaming kernel each (one work-item per output element), like ``elementwise``'s.

A scalar operand arrives in the attributes already converted to the op's computing dtype (``scalar``, first when
``scalar_first``; ``where``'s ``x_scalar``/``y_scalar``): it travels as a kernel argument and reads no bytes.
float16/bfloat16 data compute in float32 and round once when stored; integers wrap; bool ``add``/``maximum`` are or,
``mul``/``minimum`` and.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from wia_sim.costmodel import SPECIAL_FUNCTION_COST
from wia_sim.library.elementwise import Compute, streaming_kernel
from wia_sim.library.spec import Attrs

DIVIDE = SPECIAL_FUNCTION_COST + 1
"""A float division as GPUs run it: a reciprocal on the special-function units and a multiply."""
EXP = SPECIAL_FUNCTION_COST + 1
"""``exp(x)`` (and ``log``) as ``ex2(x·log2 e)``: one special function and one scaling multiply."""


def _binary(fn: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> Compute:
    """``fn(a, b)`` of two arrays, or of the array and the scalar (a NumPy scalar of the array's computing dtype,
    so NumPy keeps that dtype: int8 stays int8 and wraps)."""

    def compute(arrays: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
        scalar = attrs["scalar"]
        if scalar is None:
            return fn(arrays[0], arrays[1])
        x = arrays[0]
        s = x.dtype.type(scalar)
        return fn(s, x) if attrs["scalar_first"] else fn(x, s)

    return compute


def _where(arrays: Sequence[np.ndarray], attrs: Attrs) -> np.ndarray:
    condition, rest = arrays[0], list(arrays[1:])
    dtype = rest[0].dtype
    x = rest.pop(0) if attrs["x_scalar"] is None else dtype.type(attrs["x_scalar"])
    y = rest.pop(0) if attrs["y_scalar"] is None else dtype.type(attrs["y_scalar"])
    return np.where(condition, x, y)


def _silu(x: np.ndarray) -> np.ndarray:
    # x·sigmoid(x) with exp of a non-positive argument only: no overflow for large |x|
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, x / (1 + e), x * e / (1 + e))


def _tanh(x: np.ndarray) -> np.ndarray:
    return np.tanh(x)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return 1 / np.sqrt(x)


def _unary(fn: Callable[[np.ndarray], np.ndarray]) -> Compute:
    return lambda arrays, attrs: fn(arrays[0])


MATH_OPS = [
    # FLOPs per element as the kernels execute them: an arithmetic operation, comparison or select is 1; special
    # functions (reciprocal, sqrt, ex2, lg2) count SPECIAL_FUNCTION_COST each (costmodel.py: the quarter-rate SFUs of
    # the CUDA C Programming Guide's throughput table), the convention of the custom-kernel cost model
    streaming_kernel("add", 1, _binary(np.add)),
    streaming_kernel("sub", 1, _binary(np.subtract)),
    streaming_kernel("mul", 1, _binary(np.multiply)),
    streaming_kernel("div", DIVIDE, _binary(np.divide)),
    streaming_kernel("maximum", 1, _binary(np.maximum)),  # NaN propagates; bool: or
    streaming_kernel("minimum", 1, _binary(np.minimum)),
    streaming_kernel("equal", 1, _binary(np.equal)),
    streaming_kernel("not_equal", 1, _binary(np.not_equal)),
    streaming_kernel("less", 1, _binary(np.less)),
    streaming_kernel("less_equal", 1, _binary(np.less_equal)),
    streaming_kernel("greater", 1, _binary(np.greater)),
    streaming_kernel("greater_equal", 1, _binary(np.greater_equal)),
    streaming_kernel("where", 1, _where),
    streaming_kernel("neg", 1, _unary(np.negative)),  # int8/int32 wrap
    streaming_kernel("abs", 1, _unary(np.abs)),  # abs(int8 -128) wraps to -128
    streaming_kernel("exp", EXP, _unary(np.exp)),
    streaming_kernel("log", EXP, _unary(np.log)),
    streaming_kernel("sqrt", SPECIAL_FUNCTION_COST, _unary(np.sqrt)),
    # rsqrt: a sqrt, then a correctly rounded divide
    streaming_kernel("rsqrt", SPECIAL_FUNCTION_COST + DIVIDE, _unary(_rsqrt)),
    streaming_kernel("tanh", EXP + DIVIDE + 3, _unary(_tanh)),  # (1 - e)/(1 + e) of e = exp(-2|x|), the sign put back
    streaming_kernel("silu", EXP + DIVIDE + 2, _unary(_silu)),  # x / (1 + exp(-x)), stable: exp(-|x|), a select
    streaming_kernel("cast", 1, lambda arrays, attrs: arrays[0], widen=False),  # one conversion; the store rounds
]
