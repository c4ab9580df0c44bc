"""One workload on one hardware point: the sim backend with the point's options, one step timed with events on every
device, its memory high-water mark, and what the step waited on (a profiling window).

The same point run twice gives the same :class:`RunReport` (but ``wall_s``): the simulator is deterministic and
every figure here comes from simulated time and counts, never from the host clock.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import wia_hal as wia
from wia_whatif.workload import RunReport, Workload, WorkloadParams, get_workload

PROFILE = wia.ProfilerConfig(enable_memory_tracking=False, enable_kernel_profiling=False)
"""Only what the bound needs (each activity's span and bound): no per-kernel statistics, no memory timeline."""

COMMUNICATION = "communication"
"""The ``time_by_bound_ms`` key of the time during which a transfer or a collective ran."""


def set_text(overrides: Mapping[str, str]) -> str:
    """The sim backend's ``set=`` option (``field=value;field=value``) for ``overrides``."""
    return ";".join(f"{field}={value}" for field, value in overrides.items())


def _params(workload: Workload, params: WorkloadParams | Mapping[str, Any] | str | None) -> WorkloadParams:
    if isinstance(params, WorkloadParams):
        if not isinstance(params, workload.params_model):
            raise wia.InvalidValueError(
                f"run_point: {type(params).__name__} are not the parameters of workload {workload.name!r} "
                f"(expected {workload.params_model.__name__})"
            )
        return params
    if params is None or isinstance(params, str):
        return workload.params(params)
    if isinstance(params, Mapping):
        return workload.params(**params)
    raise wia.InvalidValueError(
        f"run_point: params must be a preset name, a mapping of parameters or {workload.params_model.__name__}, "
        f"got {type(params).__name__}"
    )


def _step_time_ms(starts: Sequence[tuple[wia.Event, float]], ends: Sequence[wia.Event]) -> float:
    """The latest end minus the earliest start. Events of different contexts cannot be compared directly
    (``event_elapsed_time`` takes one context's), so each device's interval is placed on the backend's clock by
    when its start event was recorded: the devices are idle then, so a start event completes as it is recorded."""
    first = min(at for _, at in starts)
    return max(at - first + wia.event_elapsed_time(start, end) for (start, at), end in zip(starts, ends, strict=True))


def _bounds(reports: Sequence[wia.ProfileReport]) -> dict[str, float]:
    """Per kind of bound, the longest over the devices (the device that waited longest on it sets the step)."""
    found: dict[str, float] = {}
    for report in reports:
        for name, ms in (*report.bound_time_ms.items(), (COMMUNICATION, report.memory_time_ms)):
            if ms > 0.0:
                found[name] = max(found.get(name, 0.0), ms)
    return dict(sorted(found.items()))


def run_point(
    workload: Workload | str,
    params: WorkloadParams | Mapping[str, Any] | str | None = None,
    *,
    hardware: str,
    set: Mapping[str, str] | None = None,
    numerics: bool = False,
    profile: bool = True,
) -> RunReport:
    """Run one step of ``workload`` with ``params`` (its parameters, a mapping of overrides, or a preset name) on
    ``hardware`` varied by ``set`` (``{"memory.bandwidth": "2x"}``, docs/hardware_models.md). ``OUT_OF_MEMORY``
    in the setup or the step gives ``fits=False`` with the message and no time. ``profile=False`` skips the
    profiling window (no bound, no op count) for speed."""
    began = time.perf_counter()
    load = get_workload(workload) if isinstance(workload, str) else workload
    p = _params(load, params)
    overrides = dict(set or {})
    options: dict[str, Any] = {"hardware": hardware, "devices": p.devices, "numerics": numerics}
    if overrides:
        options["set"] = set_text(overrides)
    wia.set_backend("sim", **options)
    contexts = [wia.create_context(wia.ContextConfig(device_id=i, enable_profiling=profile)) for i in range(p.devices)]
    info = wia.get_device_info(wia.get_device(0))
    report: dict[str, Any] = {
        "workload": load.name,
        "preset": params if isinstance(params, str) else None,
        "params": p.model_dump(),
        "hardware": hardware,
        "overrides": overrides,
        "devices": p.devices,
        "unit": load.unit,
        "counts": load.counts(p),
        "memory_size_bytes": info.memory_size,
    }
    try:
        report |= _measure(load, p, contexts, profile)
    finally:
        for ctx in contexts:
            wia.destroy_context(ctx)
    return RunReport(**report, wall_s=time.perf_counter() - began)


def _measure(load: Workload, p: WorkloadParams, contexts: list[wia.Context], profile: bool) -> dict[str, Any]:
    """The step's figures, or ``fits=False`` and why."""
    clock = wia.get_backend().clock_ms
    try:
        state = load.setup(p, contexts)
        for ctx in contexts:
            wia.context_synchronize(ctx)
            wia.reset_peak_memory(ctx)
        profilers = [wia.begin_profiling(ctx) for ctx in contexts] if profile else []
        starts = []
        for ctx in contexts:
            event = wia.create_event()
            wia.event_record(event, ctx.default_stream)
            starts.append((event, clock()))
        load.step(p, state)
        ends = []
        for ctx in contexts:
            event = wia.create_event()
            wia.event_record(event, ctx.default_stream)
            ends.append(event)
        for ctx in contexts:
            wia.context_synchronize(ctx)
    except wia.OutOfMemoryError as e:
        return {"fits": False, "error": e.message}
    for profiler in profilers:
        wia.end_profiling(profiler)
    reports = [wia.get_profile_report(profiler) for profiler in profilers]
    for profiler in profilers:
        wia.destroy_profiler(profiler)
    step_ms = _step_time_ms(starts, ends)
    bounds = _bounds(reports)
    counts = load.counts(p)
    return {
        "fits": True,
        "step_time_ms": step_ms,
        "throughput": counts.items / (step_ms / 1e3) if step_ms > 0 else None,
        "bound": max(bounds, key=lambda name: bounds[name]) if bounds else None,
        "time_by_bound_ms": bounds,
        "peak_memory_bytes": max(wia.get_memory_usage(ctx).peak_bytes_allocated for ctx in contexts),
        "simulated_ops": sum(r.num_kernels + r.num_transfers for r in reports),
    }
