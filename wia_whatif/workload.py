"""What a workload is: parameters, closed-form counts, and the program that runs one step of it through the HAL.

A workload builds its weights, caches and inputs in :meth:`Workload.setup` (not timed) and enqueues one step in
:meth:`Workload.step` (timed by the runner with events on every device). It uses only the public ``wia_hal`` API,
so the same code runs in timing-only mode on a simulated 70B model and with numbers on a real backend at small sizes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import Field

import wia_hal as wia
from wia_hal.errors import did_you_mean
from wia_hal.models import WiaModel


class WorkloadParams(WiaModel):
    """Base of every workload's parameters: what all share. ``devices``: how many devices one step runs on (tensor
    parallelism for the transformer, data parallelism where a workload says so); ``dtype``: the weights' and
    activations' dtype."""

    devices: int = Field(1, ge=1)
    dtype: str = "bfloat16"


class Counts(WiaModel):
    """Closed-form figures of one step, from the workload's formulas (not from the simulator): what tests check the
    simulated run against and what the tables print beside it."""

    parameters: int = Field(ge=0, description="model parameters (all devices together)")
    flops: float = Field(ge=0.0, description="FLOPs of one step (multiply-add = 2), all devices together")
    bytes: float = Field(
        ge=0.0,
        description="minimum device-memory traffic of one step: weights read once, "
        "activations and caches as the formulas say, all devices together",
    )
    weight_bytes: int = Field(ge=0)
    items: float = Field(ge=0.0, description="tokens (or samples) one step produces, for throughput")


class Workload(ABC):
    """One family of programs. Subclasses set the class variables and implement the four methods."""

    name: ClassVar[str]
    description: ClassVar[str]
    params_model: ClassVar[type[WorkloadParams]]
    unit: ClassVar[str] = "tokens"
    """What :attr:`Counts.items` counts (``tokens``, ``samples``): throughput is items per second."""
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    """Named parameter sets (``llama2-70b``, ...), each a partial mapping over :attr:`params_model`'s defaults."""

    def params(self, preset: str | None = None, **overrides: Any) -> WorkloadParams:
        """The parameters of ``preset`` (or the defaults) with ``overrides``, validated (``INVALID_VALUE`` naming the
        field on a bad value, the presets on an unknown name)."""
        values: dict[str, Any] = {}
        if preset is not None:
            if preset not in self.presets:
                raise wia.InvalidValueError(
                    f"{self.name}: no preset {preset!r}{did_you_mean(preset, list(self.presets))}; the presets are "
                    f"{', '.join(self.presets) or 'none'}"
                )
            values.update(self.presets[preset])
        values.update(overrides)
        return self.params_model(**values)

    @abstractmethod
    def counts(self, p: WorkloadParams) -> Counts:
        """The closed-form counts of one step."""

    @abstractmethod
    def setup(self, p: WorkloadParams, contexts: Sequence[wia.Context]) -> object:
        """Allocate and initialize weights, caches and inputs on ``contexts`` (one per device, ``p.devices`` of
        them); returns the state :meth:`step` uses. In timing-only mode nothing is uploaded that has no values."""

    @abstractmethod
    def step(self, p: WorkloadParams, state: object) -> None:
        """Enqueue one step (a forward pass, a prefill, one decode token) on the contexts of ``state``; does not
        synchronize (the runner does, after recording its end events)."""


class RunReport(WiaModel):
    """One workload on one hardware point: what the sweep table, CSV and JSON hold per row."""

    workload: str
    preset: str | None = None
    params: dict[str, Any]
    hardware: str
    overrides: dict[str, str] = Field(default_factory=dict, description="the hardware model fields changed")
    devices: int = Field(ge=1)
    fits: bool
    error: str | None = Field(None, description="why it does not fit (the OUT_OF_MEMORY message), or None")
    step_time_ms: float | None = Field(None, ge=0.0)
    throughput: float | None = Field(None, ge=0.0, description="items per second")
    unit: str
    bound: str | None = Field(
        None,
        description="compute, memory, communication, launch or host (the devices waited for the host's calls): "
        "what most of the step waited on",
    )
    time_by_bound_ms: dict[str, float] = Field(default_factory=dict)
    peak_memory_bytes: int = Field(0, ge=0, description="the largest high-water mark over the devices")
    memory_size_bytes: int = Field(0, ge=0, description="one device's memory")
    counts: Counts
    simulated_ops: int = Field(0, ge=0, description="ops, kernels and collectives the step enqueued")
    warmup: int = Field(0, ge=0, description="untimed steps run before the timed one")
    graph: bool = Field(
        False, description="the step ran as a captured graph (one host launch per device), not op by op (eager)"
    )
    wall_s: float = Field(0.0, ge=0.0, description="host seconds the point took to simulate")


_REGISTRY: dict[str, Workload] = {}


def register(workload: Workload) -> Workload:
    """Add a workload to :func:`available_workloads` (the shipped ones register on import of
    ``wia_whatif.workloads``; a user's own can too)."""
    _REGISTRY[workload.name] = workload
    return workload


def available_workloads() -> dict[str, Workload]:
    import wia_whatif.workloads  # noqa: F401  (registers the shipped workloads)

    return dict(_REGISTRY)


def get_workload(name: str) -> Workload:
    found = available_workloads()
    if name not in found:
        raise wia.InvalidValueError(
            f"no workload {name!r}{did_you_mean(name, list(found))}; the workloads are {', '.join(sorted(found))}"
        )
    return found[name]
