"""Config and info types of the API (pydantic): a bad config is an ``INVALID_VALUE`` naming the field."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from wia_hal.enums import ContextFlags, DeviceType, ProfileFormat
from wia_hal.errors import InvalidValueError, did_you_mean

if TYPE_CHECKING:
    from rich.console import RenderableType


def describe_validation_error(model: type[BaseModel], error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        field = ".".join(str(p) for p in item["loc"]) or "(model)"
        if item["type"] == "extra_forbidden":
            name = str(item["loc"][-1])
            fields = list(model.model_fields)
            parts.append(
                f"{field}: no such field{did_you_mean(name, fields)} (got {item.get('input')!r}); "
                f"{model.__name__}'s fields: {', '.join(fields)}"
            )
        else:
            parts.append(f"{field}: {item['msg']} (got {item.get('input')!r})")
    return f"invalid {model.__name__}: " + "; ".join(parts)


class WiaModel(BaseModel):
    """Base of the API's pydantic types: validation failures raise ``InvalidValueError``, never pydantic's own."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as e:
            raise InvalidValueError(describe_validation_error(type(self), e)) from None


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
    model_file: str = Field(
        "",
        description="the hardware model file a simulated device's figures were loaded from (which chip a what-if "
        "run used); empty for a real device",
    )
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
    supports_fault_injection: bool = Field(
        False,
        description="an extension (docs/faults.md): the backend implements inject_fault and clear_faults, so that "
        "recovery code can be exercised on demand",
    )


class ContextConfig(WiaModel):
    """SPEC R-3.3-02. ``max_streams=None`` takes the device's limit.

    Every context holds a memory pool (R-3.3-01) that serves its tensors, as frameworks' caching allocators do:
    ``memory_pool_size`` bytes reserved up front (0: it grows on demand). ``default_pool=False`` (an extension)
    gives a context whose tensors each pay a device allocation and free, for studying raw allocation cost."""

    device_id: int = Field(0, ge=0, strict=True)
    memory_pool_size: int = Field(
        0, ge=0, strict=True, description="bytes the default pool reserves up front; 0 = it grows on demand"
    )
    default_pool: bool = Field(
        True, strict=True, description="False: no default pool; each tensor allocates and frees device memory"
    )
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


class MemoryUsage(WiaModel):
    """What a context holds from its device's memory now and at most since it was created (or since
    :func:`wia_hal.reset_peak_memory`): the figure a capacity study needs to say whether a model fits.
    ``bytes_allocated`` counts what the device gave the context (pool segments whole, direct allocations);
    ``bytes_in_use`` counts live allocations (pool blocks at their rounded size, direct allocations)."""

    device: int = Field(ge=0)
    bytes_allocated: int = Field(ge=0)
    peak_bytes_allocated: int = Field(ge=0)
    bytes_in_use: int = Field(ge=0)
    peak_bytes_in_use: int = Field(ge=0)
    memory_size: int = Field(ge=0, description="the device's memory (DeviceInfo.memory_size)")
    memory_limit: int | None = Field(None, description="the context's limit (context_set_memory_limit), if any")


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

    def __rich__(self) -> RenderableType:
        """``rich.print(report)``: the breakdown as a table (:func:`wia_hal.tables.op_report`)."""
        from wia_hal.tables import op_report

        return op_report(self)

    def __str__(self) -> str:
        """``print(report)``: the same table as plain text."""
        from wia_hal.tables import op_report, plain_text

        return plain_text(op_report(self))


class ProfilerConfig(WiaModel):
    """R-3.10-01. ``enable_timing``: device and host time of every call and piece of work (off: the report keeps
    counts only, every time is 0). ``enable_memory_tracking``: peak memory and the memory counters of the timeline.
    ``enable_kernel_profiling``: per-kernel statistics (``kernel_stats``, ``op_stats``) and each kernel's slice in
    the timeline. ``output_format``: what ``save_profile`` writes when it is not told."""

    enable_timing: bool = Field(True, strict=True)
    enable_memory_tracking: bool = Field(True, strict=True)
    enable_kernel_profiling: bool = Field(True, strict=True)
    output_format: ProfileFormat = ProfileFormat.JSON


class KernelStats(WiaModel):
    """R-3.10-03: one kernel (a built-in op or a custom kernel, by name) over the profiled window."""

    name: str
    call_count: int = Field(ge=0)
    total_time_ms: float = Field(ge=0.0)
    min_time_ms: float = Field(ge=0.0)
    mean_time_ms: float = Field(ge=0.0)
    max_time_ms: float = Field(ge=0.0)
    flops: float = Field(0.0, ge=0.0, description="FLOPs (OPs for int8) of all calls, where the backend counts them")
    bytes: float = Field(0.0, ge=0.0, description="device memory bytes read plus written by all calls")


class OpStats(WiaModel):
    """One kernel at one signature (its inputs' and output's shapes and dtypes, its attributes): what a roofline
    plots. Achieved rates are over the calls' device time; ``bound`` is what the backend said (``compute``,
    ``memory``, ``launch``; "" where it cannot say)."""

    name: str
    signature: str
    call_count: int = Field(ge=0)
    total_time_ms: float = Field(ge=0.0)
    flops: float = Field(ge=0.0)
    bytes: float = Field(ge=0.0)
    bound: str = ""
    algorithm: str = ""
    precision: str = ""
    achieved_flops: float = Field(ge=0.0, description="FLOP/s over the calls' device time")
    achieved_bandwidth: float = Field(ge=0.0, description="bytes/s over the calls' device time")
    arithmetic_intensity: float = Field(ge=0.0, description="FLOPs per byte (0 when no bytes)")


class BusyStats(WiaModel):
    """How long one stream or engine was busy in the window (overlapping work counted once) and how long idle."""

    name: str
    busy_ms: float = Field(ge=0.0)
    idle_ms: float = Field(ge=0.0)
    utilization: float = Field(ge=0.0, le=1.0)
    count: int = Field(ge=0, description="pieces of work")


class ProfileReport(WiaModel):
    """R-3.10-03, and what the project adds to it (``docs/profiling.md``).

    Every time is milliseconds of the window ``[start, end]`` the profiler covered. ``kernel_time_ms`` is the time
    during which at least one kernel ran, ``memory_time_ms`` the time during which at least one transfer or
    migration ran, so neither exceeds ``total_time_ms``; a kernel's ``total_time_ms`` in ``kernel_stats`` adds its
    calls' durations, so kernels that overlapped on two streams add up to more than ``kernel_time_ms``.
    ``peak_memory_bytes`` is the most memory the context held from the device at once (pool segments included);
    ``peak_memory_in_use_bytes`` counts allocations only (pool blocks at their rounded size, direct allocations).
    """

    backend: str
    device: str
    total_time_ms: float = Field(ge=0.0)
    kernel_time_ms: float = Field(ge=0.0)
    memory_time_ms: float = Field(ge=0.0)
    host_time_ms: float = Field(ge=0.0, description="time the host spent inside API calls")
    peak_memory_bytes: int = Field(ge=0)
    peak_memory_in_use_bytes: int = Field(0, ge=0)
    num_kernels: int = Field(ge=0)
    num_transfers: int = Field(0, ge=0)
    bytes_transferred: float = Field(0.0, ge=0.0)
    num_api_calls: int = Field(0, ge=0)
    kernel_stats: list[KernelStats] = Field(default_factory=list, description="by total time, longest first")
    op_stats: list[OpStats] = Field(default_factory=list, description="by total time, longest first")
    streams: list[BusyStats] = Field(default_factory=list)
    engines: list[BusyStats] = Field(
        default_factory=list, description="compute, each copy path (h2d, d2h, d2d, host), migrations"
    )
    bound_time_ms: dict[str, float] = Field(
        default_factory=dict,
        description="time during which a kernel bound by compute, memory or launch ran (where the backend says)",
    )
    peak_flops_by_precision: dict[str, float] = Field(default_factory=dict)
    memory_bandwidth: float = Field(0.0, description="the device's bytes/s, for the roofline")

    def __rich__(self) -> RenderableType:
        """``rich.print(report)``: the summary as tables (:func:`wia_hal.tables.profile_summary`)."""
        from wia_hal.tables import profile_summary

        return profile_summary(self)

    def __str__(self) -> str:
        """``print(report)``: the same summary as plain text."""
        from wia_hal.tables import plain_text, profile_summary

        return plain_text(profile_summary(self))


PeerPath = Literal["direct", "switch", "multi-hop", "host", "none"]


class PeerInfo(WiaModel):
    """How data moves between two devices (``get_peer_info``): ``supported`` is whether ``copy_peer_to_peer``
    works for the pair (a peer path: ``direct``, through a ``switch``, or ``multi-hop`` through other devices);
    ``host`` means the pair reaches each other only through host memory (copy via a host tensor), ``none`` that the
    backend moves nothing between them. ``bandwidth`` (bytes/s, per direction) and ``latency_ms`` are of an idle
    path, where the backend knows them (0 where it does not)."""

    src_device: int = Field(ge=0)
    dst_device: int = Field(ge=0)
    supported: bool
    path: PeerPath
    bandwidth: float = Field(0.0, ge=0.0)
    latency_ms: float = Field(0.0, ge=0.0)
    hops: int = Field(0, ge=0)
    interface: str = ""


CollectiveKind = Literal["all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"]
ReduceOpName = Literal["sum", "prod", "max", "min", "avg"]
CollectiveAlgorithm = Literal["auto", "ring", "tree", "pairwise", "direct", "switch"]


class CollectiveAttrs(WiaModel):
    """What a backend's ``collective`` hook is asked to do, validated by the front end (``docs/collectives.md``):
    ``op`` for the reducing collectives, ``root`` (an index into the call's list) for broadcast."""

    kind: CollectiveKind
    op: ReduceOpName = "sum"
    algorithm: CollectiveAlgorithm = "auto"
    root: int = Field(0, ge=0)


class CollectiveReport(WiaModel):
    """What one collective call cost (``explain_collective``), in nccl-tests' terms: ``bytes`` is the message size
    nccl-tests reports (each device's input; all-gather: its output), ``algbw`` = bytes / time, ``busbw`` = algbw
    times 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for broadcast
    (bytes/s). ``alternatives``: each algorithm the collective has, at its predicted time on an idle fabric."""

    kind: CollectiveKind
    algorithm: str
    devices: list[int]
    bytes: int = Field(ge=0)
    time_ms: float = Field(ge=0.0)
    algbw: float = Field(ge=0.0)
    busbw: float = Field(ge=0.0)
    steps: int = Field(ge=0)
    alternatives: list[AlgorithmChoice] = Field(default_factory=list)
    started_ms: float | None = None
    ended_ms: float | None = None


class FaultStats(WiaModel):
    """What the fault-injection extension did on one device so far (``get_fault_stats``): a corrected ECC error
    leaves the data intact and is visible only here, as ``nvidia-smi -q -d ECC`` counts them."""

    device: int = Field(ge=0)
    faults_pending: int = Field(ge=0, description="injected faults that have not fired yet")
    faults_fired: int = Field(ge=0)
    ecc_corrected: int = Field(ge=0, description="corrected (single-bit) ECC errors: counted, data intact")
    ecc_uncorrectable: int = Field(ge=0, description="uncorrectable ECC errors: reading the buffer loses the device")
    lost: bool = Field(description="the device is lost until reset_device")
    hung: bool = Field(description="the device makes no progress (a HANG fault) until it ends, or reset_device")
    failed_links: list[int] = Field(default_factory=list, description="peer devices whose link to this one failed")
