"""Config and info types of the API (pydantic): a bad config is an ``INVALID_VALUE`` naming the field."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from wia_hal.enums import ContextFlags, DeviceType
from wia_hal.errors import InvalidValueError


def describe_validation_error(model: str, error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        field = ".".join(str(p) for p in item["loc"]) or "(model)"
        parts.append(f"{field}: {item['msg']} (got {item.get('input')!r})")
    return f"invalid {model}: " + "; ".join(parts)


class WiaModel(BaseModel):
    """Base of the API's pydantic types: validation failures raise ``InvalidValueError``, never pydantic's own."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as e:
            raise InvalidValueError(describe_validation_error(type(self).__name__, e)) from None


class DeviceInfo(WiaModel):
    """SPEC R-3.2-03, plus what ``clinfo``/``nvidia-smi`` users expect to see."""

    name: str
    vendor: str
    type: DeviceType
    compute_units: int
    memory_size: int = Field(description="bytes")
    memory_bandwidth: float = Field(description="bytes/s")
    peak_flops: float = Field(description="dense FP32 FLOP/s")
    peak_flops_by_precision: dict[str, float] = Field(description="dense FLOP/s (OP/s for int8) per precision")
    clock_rate_hz: float = 0.0
    last_level_cache_size: int = 0
    host_link: str = ""
    host_link_bandwidth: float = Field(0.0, description="pinned host-to-device bytes/s")
    architecture: str = ""
    backend: str = ""
    measured: list[str] = Field(
        default_factory=list,
        description="fields the backend measured (a microbenchmark) because the device does not report them, "
        "e.g. memory_bandwidth and peak_flops on OpenCL; the rest are reported or from the hardware model",
    )


class DeviceCapabilities(WiaModel):
    """SPEC R-3.2.1-01 and its binding: truthful, so that a claimed feature works and an unclaimed one raises."""

    supports_float16: bool
    supports_bfloat16: bool
    supports_int8: bool
    supports_float64: bool
    supports_unified_memory: bool
    supports_peer_to_peer: bool
    supports_managed_memory: bool
    supports_pinned_memory: bool
    supports_custom_kernels: bool
    supports_profiling: bool
    max_work_group_size: int
    max_shared_memory: int = Field(description="bytes per work-group")
    max_streams: int


class ContextConfig(WiaModel):
    """SPEC R-3.3-02. ``max_streams=None`` takes the device's limit."""

    device_id: int = Field(0, ge=0, strict=True)
    memory_pool_size: int = Field(0, ge=0, strict=True, description="bytes; 0 = no default pool")
    max_streams: int | None = Field(None, ge=1, strict=True)
    enable_profiling: bool = Field(False, strict=True)
    flags: ContextFlags = ContextFlags.NONE

    @field_validator("flags", mode="before")
    @classmethod
    def _known_flags(cls, value: object) -> object:
        known = int(ContextFlags.EXCLUSIVE)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value & ~known:
            raise ValueError(f"flags must be ContextFlags.NONE or ContextFlags.EXCLUSIVE, got {value!r}")
        return value


class AlgorithmChoice(WiaModel):
    """One alternative the cost model weighed for an op."""

    algorithm: str
    duration_ms: float


class OpReport(WiaModel):
    """What one op did and why it took the time it took (the cost model's breakdown)."""

    name: str
    algorithm: str = Field(description="the algorithm that ran (what AUTO chose, or what was asked)")
    precision: str = Field(description="the arithmetic: float32 vector, tf32/bf16/fp16/int8 matrix units, ...")
    flops: float = Field(description="FLOPs (OPs for int8) the algorithm executes, padding of tiles included")
    useful_flops: float = Field(description="FLOPs of the mathematical op")
    bytes: float = Field(description="device memory bytes read plus written")
    compute_units: int = Field(description="compute units the kernel occupies")
    waves: int = Field(description="waves of work-groups (tiles) over those compute units")
    efficiency: float = Field(description="fraction of the precision's peak the compute reaches")
    compute_ms: float
    memory_ms: float
    launch_ms: float
    duration_ms: float
    bound: str = Field(description="compute, memory or launch")
    alternatives: list[AlgorithmChoice] = Field(default_factory=list)
    started_ms: float | None = Field(None, description="device time the op started (None until it ran)")
    ended_ms: float | None = None
    counts: dict[str, int] = Field(
        default_factory=dict, description="a custom kernel's counted operations, bytes, atomics and barriers"
    )
