"""One workload on one hardware point: the sim backend with the point's options, one step timed with events on every
device, its memory high-water mark, and what the step waited on (a profiling window).

The same point run twice gives the same :class:`RunReport` (but ``wall_s``): the simulator is deterministic and
every figure here comes from simulated time and counts, never from the host clock.
"""

from __future__ import annotations

import functools
import gc
import json
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import wia_hal as wia
from wia_whatif.workload import RunReport, Workload, WorkloadParams, get_workload

PROFILE = wia.ProfilerConfig(enable_memory_tracking=False, enable_kernel_profiling=False)
"""Only what the bound needs (each activity's span and bound): no per-kernel statistics, no memory timeline."""

COMMUNICATION = "communication"
"""The ``time_by_bound_ms`` key of the time during which a transfer or a collective ran."""

HOST = "host"
"""The ``time_by_bound_ms`` key of the time a device waited for the host (its launch calls) with nothing to run."""


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


def _bounds(reports: Sequence[wia.ProfileReport], step_ms: float) -> dict[str, float]:
    """Per kind of bound, the longest over the devices (the device that waited longest on it sets the step), and
    ``host``: the step's time in which a device ran neither a kernel nor a transfer, waiting for the host to issue
    work (at least that much: a kernel that overlapped a transfer is counted once in each; a collective counts on every
    device, though only one device's profile records it)."""
    found: dict[str, float] = {}
    # a collective is recorded in one device's profile (the first queue's), but every participant waits in it
    collective = max((e.busy_ms for r in reports for e in r.engines if e.name == "collective"), default=0.0)
    for report in reports:
        idle = step_ms - report.kernel_time_ms - max(report.memory_time_ms, collective)
        for name, ms in (*report.bound_time_ms.items(), (COMMUNICATION, report.memory_time_ms), (HOST, idle)):
            if ms > 0.0:
                found[name] = max(found.get(name, 0.0), ms)
    return dict(sorted(found.items()))


def run_point(
    workload: Workload | str,
    params: WorkloadParams | Mapping[str, Any] | str | None = None,
    *,
    hardware: str | None = None,
    set: Mapping[str, str] | None = None,
    numerics: bool = False,
    profile: bool = True,
    warmup: int = 1,
    hazards: str = "off",
    host_threads: str = "per-device",
    graph: bool = True,
) -> RunReport:
    """Run one step of ``workload`` with ``params`` (its parameters, a mapping of overrides, or a preset name) on
    ``hardware`` (a shipped model or system, or a TOML path; None: the sim backend's choice, ``WIA_SIM_HARDWARE``
    or its default) varied by ``set`` (``{"memory.bandwidth": "2x"}``, docs/hardware_models.md). ``OUT_OF_MEMORY``
    in the setup or the step gives ``fits=False`` with the message and no time. ``profile=False`` skips the
    profiling window (no bound, no op count) for speed. ``warmup``: steps run (untimed) before the timed one, so
    that it finds the memory pool grown and the devices idle, as a steady state does (the first step of a program
    also pays its pool's device allocations). ``hazards``: the sim's stream-hazard checker (``off``, ``warn``,
    ``error``; docs/hazards.md), off here because a what-if point times a program whose dependencies its own tests
    checked, and the checker costs a 70B decode step a third of its wall time; ``warn`` or ``error`` for a new
    workload. ``host_threads``: the sim's host model (``per-device``: one host thread per device, as tensor-parallel
    serving engines run one process per GPU; ``one``: the whole program on one thread, whose launches for eight
    devices then queue behind each other and bound a small decode step). ``graph``: the step is captured once
    (:func:`wia_hal.capture_graph`) and launched as a graph, one host launch per device, as serving engines run
    their steps with CUDA graphs; False: every op is launched by the host (eager). In timing-only mode the capture
    is kept for the next point of the same workload, parameters, hardware model and device capabilities, which
    runs a copy of it (:func:`wia_hal.instantiate_graph`) instead of the workload's Python: a sweep over ``set``
    variations runs each program once per process (the workload's ops must depend only on its parameters and
    the device's capabilities, as the shipped ones do)."""
    collecting = gc.isenabled()
    gc.disable()  # a point's objects (a simulated machine, its commands) die together: collected once, below
    try:
        return _run_point(workload, params, hardware, set, numerics, profile, warmup, hazards, host_threads, graph)
    finally:
        if collecting:
            gc.enable()
            # the previous point's machine (garbage since this point's set_backend) and this point's are young:
            # a collection of the young generations frees them without the full passes over the kept captures
            gc.collect(1)


def _run_point(
    workload: Workload | str,
    params: WorkloadParams | Mapping[str, Any] | str | None,
    hardware: str | None,
    set: Mapping[str, str] | None,
    numerics: bool,
    profile: bool,
    warmup: int,
    hazards: str,
    host_threads: str,
    graph: bool,
) -> RunReport:
    began = time.perf_counter()
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise wia.InvalidValueError(f"run_point: warmup must be a whole number of steps (0 or more), got {warmup!r}")
    load = get_workload(workload) if isinstance(workload, str) else workload
    p = _params(load, params)
    overrides = dict(set or {})
    options: dict[str, Any] = {"devices": p.devices, "numerics": numerics, "hazards": hazards}
    options["host_threads"] = host_threads
    if hardware is not None:
        options["hardware"] = hardware
    if overrides:
        options["set"] = set_text(overrides)
    wia.set_backend("sim", **options)
    template = None
    if graph and not numerics:
        template = _template(load, p, options)
        wia.set_backend("sim", **options)  # a fresh machine: the capture's host time is not the point's
    contexts = [wia.create_context(wia.ContextConfig(device_id=i)) for i in range(p.devices)]
    if profile:
        for ctx in contexts:
            wia.enable_profiling(ctx, PROFILE)
    info = wia.get_device_info(wia.get_device(0))
    report: dict[str, Any] = {
        "workload": load.name,
        "preset": params if isinstance(params, str) else None,
        "params": p.model_dump(),
        "hardware": hardware or Path(info.model_file or info.name).stem,
        "overrides": overrides,
        "devices": p.devices,
        "unit": load.unit,
        "counts": load.counts(p),
        "memory_size_bytes": info.memory_size,
        "warmup": warmup,
        "graph": graph,
    }
    try:
        if isinstance(template, str):
            report |= {"fits": False, "error": template}
        else:
            report |= _measure(load, p, contexts, profile, warmup, graph, template)
    finally:
        for ctx in contexts:
            wia.destroy_context(ctx)
    return RunReport(**report, wall_s=time.perf_counter() - began)


_TEMPLATES: dict[str, wia.Graph] = {}
"""Captured steps by :func:`_template_key`, the latest few (a sweep alternates a handful of parameter sets)."""

_TEMPLATES_KEPT = 4


def clear_captures(keep: int = 0) -> None:
    """Forget the steps kept for later points (their graphs, and the simulated machines they were captured on),
    the oldest first, until ``keep`` are left."""
    while len(_TEMPLATES) > keep:
        wia.release_graph(_TEMPLATES.pop(next(iter(_TEMPLATES))))


def _template_key(load: Workload, p: WorkloadParams, options: Mapping[str, Any]) -> str:
    kept = {k: v for k, v in options.items() if k != "set"}  # what set= changes, figures, is the copy's to model
    device = wia.get_device(0)
    capabilities = wia.get_device_capabilities(device).model_dump_json()
    model = wia.get_device_info(device).model_file  # (the hardware option may be unset: the backend's choice)
    return json.dumps([load.name, p.model_dump(mode="json"), kept, model, capabilities], sort_keys=True, default=str)


def _template(load: Workload, p: WorkloadParams, options: Mapping[str, Any]) -> wia.Graph | str:
    """The step captured (in timing-only mode) on contexts of the backend just set, or kept from an earlier point;
    the ``OUT_OF_MEMORY`` message if the setup or the capture does not fit."""
    key = _template_key(load, p, options)
    found = _TEMPLATES.get(key)
    if found is not None:
        return found
    contexts = [wia.create_context(wia.ContextConfig(device_id=i)) for i in range(p.devices)]
    try:
        state = load.setup(p, contexts)
        with wia.capture_graph(contexts) as captured:
            load.step(p, state)
    except wia.OutOfMemoryError as e:
        return e.message
    finally:
        for ctx in contexts:
            wia.destroy_context(ctx)
    clear_captures(keep=_TEMPLATES_KEPT - 1)
    _TEMPLATES[key] = captured
    return captured


def _measure(
    load: Workload,
    p: WorkloadParams,
    contexts: list[wia.Context],
    profile: bool,
    warmup: int,
    graph: bool,
    template: wia.Graph | None,
) -> dict[str, Any]:
    """The step's figures, or ``fits=False`` and why."""
    clock = wia.get_backend().clock_ms
    launched: list[wia.Graph] = []
    try:
        if template is not None:
            launched.append(wia.instantiate_graph(template, contexts))
            step = functools.partial(wia.launch_graph, launched[0])
        else:
            state = load.setup(p, contexts)
            step = functools.partial(load.step, p, state)
            if graph:
                with wia.capture_graph(contexts) as captured:
                    step()
                launched.append(captured)
                step = functools.partial(wia.launch_graph, captured)
        for _ in range(warmup):
            step()
        for ctx in contexts:
            wia.context_synchronize(ctx)
            wia.reset_peak_memory(ctx)
        profilers = [wia.begin_profiling(ctx) for ctx in contexts] if profile else []
        starts = []
        for ctx in contexts:
            event = wia.create_event()
            wia.event_record(event, ctx.default_stream)
            starts.append((event, clock()))
        step()
        ends = []
        for ctx in contexts:
            event = wia.create_event()
            wia.event_record(event, ctx.default_stream)
            ends.append(event)
        for ctx in contexts:
            wia.context_synchronize(ctx)
    except wia.OutOfMemoryError as e:
        return {"fits": False, "error": e.message}
    finally:
        for used in launched:  # (its nodes and the backend's plan of them are garbage with the point's machine)
            wia.release_graph(used)
    for profiler in profilers:
        wia.end_profiling(profiler)
    reports = [wia.get_profile_report(profiler) for profiler in profilers]
    for profiler in profilers:
        wia.destroy_profiler(profiler)
    step_ms = _step_time_ms(starts, ends)
    bounds = _bounds(reports, step_ms)
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
