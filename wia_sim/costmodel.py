"""How long work takes on a hardware model, and why.

Every duration is built from what the work must do: FLOPs at the peak of the precision, bytes at the memory or
link bandwidth, and a fixed latency. A kernel is a roofline: the larger of compute and memory time, plus the
device-side launch latency. Each result keeps its breakdown so a prediction can be explained.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from wia_sim.hwmodel import HardwareModel
from wia_sim.memory import MemoryKind

ELEMENTWISE_WORK_GROUP = 256
"""Work-items per work-group of the built-in element-wise kernels (one element per work-item)."""


@dataclass(frozen=True, slots=True)
class KernelCost:
    """The breakdown of one kernel's modeled time (seconds)."""

    name: str
    flops: float
    bytes: float
    precision: str
    compute_units: int
    compute_s: float
    memory_s: float
    launch_s: float

    @property
    def duration_s(self) -> float:
        return self.launch_s + max(self.compute_s, self.memory_s)

    @property
    def bound(self) -> str:
        """What limits the kernel: ``compute``, ``memory`` or ``launch`` (when the launch latency dominates)."""
        if self.launch_s >= max(self.compute_s, self.memory_s):
            return "launch"
        return "compute" if self.compute_s >= self.memory_s else "memory"


@dataclass(frozen=True, slots=True)
class TransferCost:
    """The breakdown of one copy's modeled time (seconds)."""

    route: str
    nbytes: int
    bandwidth: float
    latency_s: float

    @property
    def duration_s(self) -> float:
        return self.latency_s + self.nbytes / self.bandwidth


def vector_precision(dtype_name: str) -> str:
    """The peak that element-wise work on ``dtype_name`` runs at: the vector units' FP32 rate, or FP64's.

    Element-wise kernels do not use matrix units, and low-precision element-wise work is computed in FP32.
    """
    return "float64" if dtype_name == "float64" else "float32"


def elementwise_cost(
    model: HardwareModel, name: str, elements: int, flops_per_element: float, nbytes: int, dtype_name: str
) -> KernelCost:
    """An element-wise kernel: one work-item per element in work-groups of 256, placed on as many compute units
    as it has work-groups (at most all); the units it occupies give it their share of peak and of bandwidth."""
    precision = vector_precision(dtype_name)
    cus = model.compute.compute_units
    groups = max(1, math.ceil(elements / ELEMENTWISE_WORK_GROUP))
    units = min(cus, groups)
    share = units / cus
    flops = elements * flops_per_element
    return KernelCost(
        name=name,
        flops=flops,
        bytes=nbytes,
        precision=precision,
        compute_units=units,
        compute_s=flops / (model.compute.peak_flops[precision] * share),  # type: ignore[index]
        memory_s=nbytes / (model.memory.bandwidth * share),
        launch_s=model.compute.kernel_launch_latency,
    )


def copy_route(src: MemoryKind, dst: MemoryKind) -> str:
    """The path a copy takes: ``h2d``, ``d2h``, ``d2d`` (within one device) or ``host`` (CPU memcpy)."""
    if src.on_host:
        return "host" if dst.on_host else "h2d"
    return "d2h" if dst.on_host else "d2d"


def transfer_cost(model: HardwareModel, src: MemoryKind, dst: MemoryKind, nbytes: int) -> TransferCost:
    """A copy of ``nbytes``: the link's latency plus bytes over the rate the memory types allow.

    Pageable (HOST) memory moves at the link's pageable rate (the driver stages it through a pinned bounce
    buffer); PINNED, UNIFIED and MANAGED memory are page-locked and move at the DMA engine's pinned rate.
    A device-to-device copy reads and writes device memory; a host-to-host copy is a CPU memcpy.
    """
    link = model.host_link
    route = copy_route(src, dst)
    if route == "h2d":
        pageable = src is MemoryKind.HOST
        bandwidth = link.pageable_h2d_bandwidth if pageable else link.pinned_h2d_bandwidth
        return TransferCost(route, nbytes, bandwidth, link.latency)
    if route == "d2h":
        pageable = dst is MemoryKind.HOST
        bandwidth = link.pageable_d2h_bandwidth if pageable else link.pinned_d2h_bandwidth
        return TransferCost(route, nbytes, bandwidth, link.latency)
    if route == "d2d":
        # read plus write of every byte at device memory bandwidth
        return TransferCost(route, nbytes, model.memory.bandwidth / 2, model.compute.kernel_launch_latency)
    return TransferCost(route, nbytes, model.host.memcpy_bandwidth, 0.0)
