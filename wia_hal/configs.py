"""Level-2 hints and op configs (SPEC R-3.1-02, R-3.6.1-02, R-3.6.1-03)."""

from __future__ import annotations

import enum
from typing import Any

from pydantic import Field, field_validator, model_validator

from wia_hal.models import WiaModel


class Precision(enum.IntEnum):
    """The arithmetic a matmul or convolution uses (``WIA_PRECISION_*``).

    FP32: float32 on the vector units. TF32: float32 data rounded to TF32 (10-bit mantissa) on the matrix units,
    float32 accumulation. FP16 / BF16: data rounded to that type on the matrix units, float32 accumulation, result in
    the inputs' dtype. MIXED: float16/bfloat16 data (float32 data is rounded to bfloat16) on the matrix units with
    float32 accumulation and a float32 result. INT8: int8 data, int32 accumulation and result. FP64: float64.
    FP8: float16/bfloat16/float32 data rounded to float8 e4m3 on the matrix units, float32 accumulation, result in
    the inputs' dtype (per-tensor scaling is the caller's).
    """

    FP32 = 0
    TF32 = 1
    FP16 = 2
    BF16 = 3
    MIXED = 4
    INT8 = 5
    FP64 = 6
    FP8 = 7


class MatmulAlgorithm(enum.IntEnum):
    """Matmul implementations the cost model knows (``WIA_MATMUL_*``); AUTO picks the cheapest for the shape.

    TILED_64, TILED_128, TILED_256: output tiles of 64×64, 128×128 and 256×128 per work-group (smaller tiles fill
    more compute units on small shapes, larger ones reuse operands better); SPLIT_K: 128×128 tiles with K split
    over several work-groups and a reduction pass, for shapes with few tiles and a long K; STREAM_K: 256×128 tiles
    whose K-iterations are dealt evenly to all compute units (no part-empty last wave), with a fixup of the tiles
    split between units.
    """

    AUTO = 0
    TILED_64 = 1
    TILED_128 = 2
    TILED_256 = 3
    SPLIT_K = 4
    STREAM_K = 5


class ConvAlgorithm(enum.IntEnum):
    """Convolution implementations (binding: ``ConvConfig.algorithm``); AUTO picks the cheapest.

    IMPLICIT_GEMM: the convolution as a matmul on the matrix units without materialising im2col. WINOGRAD:
    F(2×2, 3×3) for 3×3 kernels at stride 1 and dilation 1: 2.25× fewer multiplies, on-chip transforms that cost
    vector additions, and a slightly different rounding. DIRECT: loops over the kernel window on the vector units.
    """

    AUTO = 0
    IMPLICIT_GEMM = 1
    WINOGRAD = 2
    DIRECT = 3


class PoolType(enum.IntEnum):
    MAX = 0
    AVG = 1


Pair = tuple[int, int]


def _pair(name: str, value: Any, minimum: int) -> Pair:
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an int or a pair of ints, got {value!r}")
    if isinstance(value, int):
        value = (value, value)
    if not (isinstance(value, (tuple, list)) and len(value) == 2) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise ValueError(f"{name} must be an int or a pair of ints (height, width), got {value!r}")
    if min(value) < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {tuple(value)}")
    return (value[0], value[1])


class MatmulConfig(WiaModel):
    """R-3.1-02: ``matmul_optimized(A, B, MatmulConfig(algorithm, precision))``; ``precision=None`` follows the
    inputs' dtype (float32 → FP32, float16 → FP16, bfloat16 → BF16, int8 → INT8, float64 → FP64)."""

    algorithm: MatmulAlgorithm = MatmulAlgorithm.AUTO
    precision: Precision | None = None


class ConvConfig(WiaModel):
    """R-3.6.1-02: padding, stride and dilation as an int or a (height, width) pair."""

    padding: Pair = (0, 0)
    stride: Pair = (1, 1)
    dilation: Pair = (1, 1)
    groups: int = Field(1, ge=1, strict=True)
    algorithm: ConvAlgorithm = ConvAlgorithm.AUTO
    precision: Precision | None = None

    @field_validator("padding", mode="before")
    @classmethod
    def _padding(cls, v: Any) -> Pair:
        return _pair("padding", v, 0)

    @field_validator("stride", "dilation", mode="before")
    @classmethod
    def _positive(cls, v: Any, info: Any) -> Pair:
        return _pair(info.field_name, v, 1)


_POOLING = ("type", "kernel_size", "stride", "padding")
_MEMORY = ("initial_size", "max_size", "block_size", "enable_caching", "defragment_threshold")


class PoolConfig(WiaModel):
    """SPEC binds one name to two configs: pooling for ``pool2d`` (R-3.6.1-03: ``type``, ``kernel_size``,
    ``stride``, ``padding``) and a memory pool for ``configure_pool`` (R-3.5.2-01: ``initial_size``, ``max_size``,
    ``block_size``, ``enable_caching``, ``defragment_threshold``). One config holds one kind: setting fields of
    both is ``INVALID_VALUE``. For pooling, ``stride`` defaults to ``kernel_size`` and ``padding`` to 0;
    AVG counts padded positions in the divisor (as PyTorch's default ``count_include_pad=True``).
    """

    type: PoolType | None = None
    kernel_size: Pair | None = None
    stride: Pair | None = None
    padding: Pair = (0, 0)
    initial_size: int = Field(0, ge=0, strict=True)
    max_size: int | None = Field(None, ge=1, strict=True)
    block_size: int = Field(256, ge=1, strict=True)
    enable_caching: bool = Field(True, strict=True)
    defragment_threshold: float = Field(
        1.0, ge=0.0, le=1.0, description="release free segments when fragmentation exceeds it; 1.0: never"
    )

    @field_validator("kernel_size", "stride", mode="before")
    @classmethod
    def _positive(cls, v: Any, info: Any) -> Pair | None:
        return None if v is None else _pair(info.field_name, v, 1)

    @field_validator("padding", mode="before")
    @classmethod
    def _padding(cls, v: Any) -> Pair:
        return _pair("padding", v, 0)

    @model_validator(mode="before")
    @classmethod
    def _one_kind(cls, data: Any) -> Any:
        if isinstance(data, dict):
            pooling = [k for k in _POOLING if k in data]
            memory = [k for k in _MEMORY if k in data]
            if pooling and memory:
                raise ValueError(
                    f"a PoolConfig is either for pool2d ({', '.join(_POOLING)}) or for a memory pool "
                    f"({', '.join(_MEMORY)}), not both: got {pooling} and {memory}"
                )
        return data

    @property
    def is_pooling(self) -> bool:
        return self.type is not None or self.kernel_size is not None
