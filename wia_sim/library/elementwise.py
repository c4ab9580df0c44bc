"""Element-wise kernels: one work-item per output element, streaming every input and output byte once."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from wia_sim.costmodel import KernelCost, elementwise_cost
from wia_sim.hwmodel import HardwareModel
from wia_sim.library.spec import Attrs, CostFn, Operand, OpSpec, widened

SQRT_HALF = math.sqrt(0.5)
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_math_erfc = np.frompyfunc(math.erfc, 1, 1)


_ERFCC = (
    -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
    0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277,
)  # fmt: skip
"""Coefficients of ``erfcc``, Numerical Recipes in C, 2nd ed., section 6.2 (fractional error below 1.2e-7)."""


def erfc(x: np.ndarray, exact: bool) -> np.ndarray:
    """Complementary error function of float64 ``x``, elementwise.

    ``exact``: the C library's ``erfc`` (for float64 results); otherwise the Chebyshev fit ``erfcc`` evaluated in
    float64, whose error is below one float32 ulp (for float32 and narrower results), and fast.
    """
    if exact:
        return np.asarray(_math_erfc(x), dtype=np.float64)
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = np.zeros_like(t)
    for coefficient in reversed(_ERFCC[1:]):
        poly = (poly + coefficient) * t
    ans = t * np.exp(-z * z + _ERFCC[0] + poly)
    return np.where(x >= 0, ans, 2.0 - ans)


def _gelu(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    exact = x.dtype == np.float64
    wide = x.astype(np.float64, copy=False)
    if attrs.get("approximate", "none") == "tanh":
        # 0.5·x·(1 + tanh(u)) written as x / (1 + e^(-2u)): the same function without the cancellation of
        # 1 + tanh(u) for negative x
        u = SQRT_2_OVER_PI * (wide + 0.044715 * wide * wide * wide)
        with np.errstate(over="ignore"):
            return wide / (1.0 + np.exp(-2.0 * u))
    # 0.5·x·erfc(-x/√2) is the erf form without the cancellation of 1 + erf(x/√2) for negative x
    return 0.5 * wide * erfc(-wide * SQRT_HALF, exact)


def _sigmoid(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    # exp of a non-positive argument only: no overflow for large |x|
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _relu(x: np.ndarray, attrs: Attrs) -> np.ndarray:
    if x.dtype == np.bool_:
        return x
    result: np.ndarray = np.maximum(x, x.dtype.type(0))
    return result


def streaming_cost(name: str, flops_per_element: float) -> CostFn:
    """The cost of a one-pass kernel: every input and the output move through memory once (a scalar operand is a
    kernel argument: no bytes); float64 work runs at the FP64 vector rate, everything else at FP32's."""

    def cost(model: HardwareModel, inputs: Sequence[Operand], out: Operand, attrs: Attrs) -> KernelCost:
        nbytes = sum(op.nbytes for op in inputs) + out.nbytes
        wide = out.dtype == np.float64 or any(op.dtype == np.float64 for op in inputs)
        return elementwise_cost(model, name, out.size, flops_per_element, nbytes, "float64" if wide else "float32")

    return cost


Compute = Callable[[Sequence[np.ndarray], Attrs], np.ndarray]
"""What a streaming kernel computes from its input arrays and attributes."""


def streaming_kernel(name: str, flops_per_element: float, compute: Compute, widen: bool = True) -> OpSpec:
    """A one-pass element-wise kernel (``streaming_cost``) computing ``compute`` of the inputs, low precision
    widened to float32 unless ``widen`` is False (a cast converts the data as stored)."""

    def run(arrays: Sequence[np.ndarray], attrs: Attrs, out_dtype: np.dtype) -> np.ndarray:
        return compute([widened(a) for a in arrays] if widen else arrays, attrs)

    return OpSpec(name, streaming_cost(name, flops_per_element), run)


def _elementwise(name: str, flops_per_element: float, fn: Callable[..., np.ndarray]) -> OpSpec:
    """A streaming kernel whose function takes the arrays as arguments, then the attributes."""
    return streaming_kernel(name, flops_per_element, lambda arrays, attrs: fn(*arrays, attrs))


ELEMENTWISE_OPS = [
    # FLOPs per element as the kernels execute them (transcendentals counted as the polynomial they evaluate);
    # add and mul, with their scalar operands, are in library/math.py.
    _elementwise("relu", 1, _relu),
    _elementwise("sigmoid", 4, _sigmoid),  # exp, add, divide, select
    _elementwise("gelu", 24, _gelu),  # erfc: 10-term polynomial in Horner form and one exp; scale and multiply
    _elementwise("copy", 0, lambda a, attrs: a),  # a strided read, a contiguous write (contiguous, reshape)
    _elementwise("fill", 0, lambda attrs: np.asarray(attrs["value"])),  # memset: writes only
]
