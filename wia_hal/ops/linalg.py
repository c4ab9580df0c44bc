"""R-3.6.1-01, R-3.7-04, R-3.1-02: matmul, batch_matmul and matmul_optimized."""

from __future__ import annotations

import numpy as np

from wia_hal.configs import MatmulAlgorithm, MatmulConfig, Precision
from wia_hal.context import Context
from wia_hal.dtypes import bfloat16, float16, float32, float64, int8, int32
from wia_hal.errors import InvalidValueError, NotSupportedError, api
from wia_hal.ops.common import output, resolve
from wia_hal.opset import Arithmetic, MatmulAttrs
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor, launch_op

DEFAULT_PRECISION = {
    float32: Precision.FP32,
    float16: Precision.FP16,
    bfloat16: Precision.BF16,
    int8: Precision.INT8,
    float64: Precision.FP64,
}

# (precision, input dtype) -> (arithmetic the units run, result dtype)
_ARITHMETIC: dict[tuple[Precision, np.dtype], tuple[Arithmetic, np.dtype]] = {
    (Precision.FP32, float32): ("float32", float32),
    (Precision.TF32, float32): ("tf32", float32),
    (Precision.FP16, float16): ("float16", float16),
    (Precision.FP16, float32): ("float16", float32),
    (Precision.BF16, bfloat16): ("bfloat16", bfloat16),
    (Precision.BF16, float32): ("bfloat16", float32),
    (Precision.MIXED, float16): ("float16", float32),
    (Precision.MIXED, bfloat16): ("bfloat16", float32),
    (Precision.MIXED, float32): ("bfloat16", float32),
    (Precision.INT8, int8): ("int8", int32),
    (Precision.FP64, float64): ("float64", float64),
    (Precision.FP8, float16): ("float8", float16),
    (Precision.FP8, bfloat16): ("float8", bfloat16),
    (Precision.FP8, float32): ("float8", float32),
}


def arithmetic_for(name: str, dtype: np.dtype, precision: Precision | None) -> tuple[Arithmetic, np.dtype]:
    """The arithmetic and result dtype of a matmul or convolution of ``dtype`` data at ``precision`` (a
    combination the binding does not define is ``INVALID_VALUE``)."""
    if precision is None:
        if dtype not in DEFAULT_PRECISION:
            raise InvalidValueError(
                f"{name}: {dtype.name} data has no matrix arithmetic; use float32, float16, bfloat16, int8 or float64"
            )
        precision = DEFAULT_PRECISION[dtype]
    found = _ARITHMETIC.get((Precision(precision), dtype))
    if found is None:
        accepted = sorted({d.name for p, d in _ARITHMETIC if p == precision})
        raise InvalidValueError(
            f"{name}: precision {Precision(precision).name} does not apply to {dtype.name} data (it takes {accepted})"
        )
    return found


def require_arithmetic(
    name: str, context: Context, arithmetic: Arithmetic, dtype: np.dtype, precision: Precision | None
) -> None:
    """``NOT_SUPPORTED`` where the device lists no peak for ``arithmetic`` (checked after every argument)."""
    peaks = context.device.info.peak_flops_by_precision
    if arithmetic not in peaks:
        asked = Precision(precision if precision is not None else DEFAULT_PRECISION[dtype]).name
        raise NotSupportedError(
            f"{name}: {context.device.info.name} has no {arithmetic} arithmetic (precision {asked}; it offers "
            f"{', '.join(peaks) or 'none'})"
        )


def matmul_shape(name: str, a: Tensor, b: Tensor) -> tuple[int, ...]:
    """NumPy's matmul shape rules: 1-D operands are a row / a column, batch dimensions broadcast."""
    if a.ndim == 0 or b.ndim == 0:
        raise InvalidValueError(f"{name}: operands need at least one dimension, got {a.shape} and {b.shape}")
    ash = a.shape if a.ndim > 1 else (1, *a.shape)
    bsh = b.shape if b.ndim > 1 else (*b.shape, 1)
    if ash[-1] != bsh[-2]:
        raise InvalidValueError(
            f"{name}: inner dimensions differ: A {a.shape} has K={ash[-1]}, B {b.shape} has K={bsh[-2]}"
        )
    try:
        batch = np.broadcast_shapes(ash[:-2], bsh[:-2])
    except ValueError:
        raise InvalidValueError(f"{name}: batch dimensions of {a.shape} and {b.shape} do not broadcast") from None
    return (*batch, *((ash[-2],) if a.ndim > 1 else ()), *((bsh[-1],) if b.ndim > 1 else ()))


def _matmul(
    name: str, a: Tensor, b: Tensor, config: MatmulConfig, ctx: Context | None, stream: Stream | None
) -> Tensor:
    context, s = resolve(name, (a, b), ctx, stream, ("a", "b"))
    if a.dtype != b.dtype:
        raise InvalidValueError(f"{name}: dtypes differ: A is {a.dtype.name} {a.shape}, B is {b.dtype.name} {b.shape}")
    shape = matmul_shape(name, a, b)
    arithmetic, result = arithmetic_for(name, a.dtype, config.precision)
    require_arithmetic(name, context, arithmetic, a.dtype, config.precision)
    attrs = MatmulAttrs(arithmetic=arithmetic, algorithm=config.algorithm.name)
    return launch_op(context, s, "matmul", (a, b), output(context, shape, result), attrs)


_AUTO = MatmulConfig()


@api
def matmul(a: Tensor, b: Tensor, ctx: Context | None = None, *, stream: Stream | None = None) -> Tensor:
    """R-3.6.1-01: ``a @ b`` with NumPy's rules (1-D operands, broadcast batch dimensions), the arithmetic of
    the dtype (float32 on the vector units; float16/bfloat16 on the matrix units with float32 accumulation; int8
    with int32 accumulation and an int32 result) and the cheapest algorithm for the shape."""
    return _matmul("matmul", a, b, _AUTO, ctx, stream)


@api
def batch_matmul(a: Tensor, b: Tensor, ctx: Context | None = None, *, stream: Stream | None = None) -> Tensor:
    """R-3.7-04, extended to N-D (docs/ops.md "Beyond the spec"): a matrix product per batch index, ``a`` of shape
    ``(*batch_a, M, K)`` and ``b`` ``(*batch_b, K, N)`` with the batch dimensions broadcast as NumPy's ``matmul``
    does (a ``(K, N)`` weight applies to every batch; ``(B, 1, M, K) @ (H, K, N)`` gives ``(B, H, M, N)``).
    Arithmetic as ``matmul``."""
    if isinstance(a, Tensor) and isinstance(b, Tensor) and (a.ndim < 2 or b.ndim < 2):
        raise InvalidValueError(
            f"batch_matmul: expects matrices with optional batch dimensions (at least 2-D), got {a.shape} and "
            f"{b.shape}; matmul takes vectors"
        )
    return _matmul("batch_matmul", a, b, _AUTO, ctx, stream)


@api
def matmul_optimized(
    a: Tensor, b: Tensor, config: MatmulConfig, ctx: Context | None = None, *, stream: Stream | None = None
) -> Tensor:
    """R-3.1-02: ``matmul`` with an algorithm and a precision (see :class:`MatmulConfig`, :class:`Precision`)."""
    if not isinstance(config, MatmulConfig):
        raise InvalidValueError(f"matmul_optimized: expected a MatmulConfig, got {type(config).__name__}")
    return _matmul("matmul_optimized", a, b, config, ctx, stream)


__all__ = ["MatmulAlgorithm", "batch_matmul", "matmul", "matmul_optimized"]
