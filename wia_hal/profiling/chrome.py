"""A profiling window as a Chrome trace (the Trace Event Format's JSON object form), which ui.perfetto.dev and
chrome://tracing open unchanged.

Layout: a ``host`` process with one track per host thread (API calls, and inside them the allocations, launches
and waits they spent time on); a process per device with one track per stream (its work in order, and the time it
waited for an event) and one per engine (compute, each copy path, migrations), an engine whose work overlapped
getting as many lanes as it needed, so that slices on every track nest properly. Flow arrows run from the work an
event recorded to the first work that waited for it; counters show the context's memory. Timestamps are
microseconds from the window's start, rounded to the nanosecond, and a slice's duration is computed from the
rounded ends, so that back-to-back slices touch instead of overlapping by a rounding error.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from wia_hal.profiling.report import build_report, window
from wia_hal.profiling.session import DeviceWork, HostSlice, Profiler

HOST_PID = 1
DEVICE_CATEGORY = "device"


def _us(ms: float, start: float) -> float:
    return round((ms - start) * 1e3, 3)


def _meta(pid: int, tid: int | None, kind: str, name: str, order: int | None = None) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"ph": "M", "pid": pid, "name": f"{kind}_name", "args": {"name": name}}]
    if tid is not None:
        events[0]["tid"] = tid
    if order is not None:
        event = {"ph": "M", "pid": pid, "name": f"{kind}_sort_index", "args": {"sort_index": order}}
        if tid is not None:
            event["tid"] = tid
        events.append(event)
    return events


def _slice(name: str, pid: int, tid: int, ts: float, end: float, cat: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "ph": "X",
        "name": name,
        "cat": cat,
        "pid": pid,
        "tid": tid,
        "ts": ts,
        "dur": round(end - ts, 3),
        "args": args,
    }


def _work_args(work: DeviceWork) -> dict[str, Any]:
    a = work.activity
    seconds = max(a.ended_ms - a.started_ms, 0.0) / 1e3
    args: dict[str, Any] = {"stream": work.stream, "engine": a.engine, "kind": a.kind}
    if work.launch is not None:
        launch = work.launch
        args["signature"] = launch.signature
        args["inputs"] = [f"{dtype}{list(shape)}" for shape, dtype in launch.inputs]
        if launch.output is not None:
            args["output"] = f"{launch.output[1]}{list(launch.output[0])}"
        args.update({f"attr.{k}": v for k, v in launch.attrs.items()})
    if a.nbytes:
        args["bytes"] = a.nbytes
        if seconds > 0:
            args["achieved GB/s"] = round(a.nbytes / seconds / 1e9, 3)
    if a.flops:
        args["flops"] = a.flops
        if seconds > 0:
            args["achieved TFLOP/s"] = round(a.flops / seconds / 1e12, 4)
    for key in ("bound", "algorithm", "precision"):
        if getattr(a, key):
            args[key] = getattr(a, key)
    return args


def _lanes(works: list[DeviceWork], start: float) -> list[int]:
    """The lane of each piece of work on one engine: the first lane free when it starts."""
    ends: list[float] = []
    lanes = []
    for w in works:
        lo = _us(w.activity.started_ms, start)
        hi = max(_us(w.activity.ended_ms, start), lo)
        for lane, end in enumerate(ends):
            if end <= lo:
                ends[lane] = hi
                lanes.append(lane)
                break
        else:
            ends.append(hi)
            lanes.append(len(ends) - 1)
    return lanes


def _host_events(host: list[HostSlice], start: float) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    tids: dict[int, int] = {}
    for piece in host:
        if piece.thread not in tids:
            tids[piece.thread] = tid = len(tids) + 1
            events += _meta(HOST_PID, tid, "thread", f"host thread {piece.thread_name}", tid)
    ordered = sorted(host, key=lambda p: (p.start_ms, -p.end_ms, p.depth))
    for piece in ordered:
        ts = _us(piece.start_ms, start)
        end = max(_us(piece.end_ms, start), ts)
        cat = "api" if piece.depth == 0 else "host"
        events.append(_slice(piece.name, HOST_PID, tids[piece.thread], ts, end, cat, piece.args or {}))
    return events


def chrome_trace(profiler: Profiler) -> dict[str, Any]:
    """The window as a Chrome trace object (``{"traceEvents": [...], ...}``)."""
    start, end = window(profiler)
    ctx = profiler.context
    device_pid = HOST_PID + 1 + ctx.device.index
    events: list[dict[str, Any]] = _meta(HOST_PID, None, "process", "host", 0)
    events += _host_events(profiler.host, start)
    info = ctx.device.info
    events += _meta(device_pid, None, "process", f"device {ctx.device.index}: {info.name} ({profiler.backend.name})", 1)

    stream_tid: dict[str, int] = {}
    for label in (s for _, s in ctx.queue_labels.values()):
        stream_tid.setdefault(label, len(stream_tid) + 1)
    for w in profiler.work:
        stream_tid.setdefault(w.stream, len(stream_tid) + 1)
    for label, tid in stream_tid.items():
        events += _meta(device_pid, tid, "thread", label, tid)

    busy = [w for w in profiler.work if w.activity.kind in ("kernel", "copy", "migration")]
    kernel_slices = profiler.config.enable_kernel_profiling
    shown = [w for w in busy if kernel_slices or w.activity.kind != "kernel"]
    first_for: dict[int, float] = {}  # id of a work item -> its slice's ts (what flows bind to)
    for w in shown:
        a = w.activity
        ts = _us(a.started_ms, start)
        first_for[id(w)] = ts
        events.append(
            _slice(
                a.name,
                device_pid,
                stream_tid[w.stream],
                ts,
                max(_us(a.ended_ms, start), ts),
                DEVICE_CATEGORY,
                _work_args(w),
            )
        )

    by_engine: dict[str, list[DeviceWork]] = defaultdict(list)
    for w in shown:
        a = w.activity
        by_engine[f"migration {a.engine}" if a.kind == "migration" else (a.engine or a.kind)].append(w)
    next_tid = len(stream_tid) + 1  # engine tracks follow the streams'
    for engine, works in sorted(by_engine.items()):
        works.sort(key=lambda w: (w.activity.started_ms, w.activity.ended_ms))
        lanes = _lanes(works, start)
        tids = {}
        for lane in sorted(set(lanes)):
            tids[lane] = next_tid
            events += _meta(device_pid, next_tid, "thread", engine if lane == 0 else f"{engine} #{lane + 1}", next_tid)
            next_tid += 1
        for w, lane in zip(works, lanes, strict=True):
            a = w.activity
            ts = _us(a.started_ms, start)
            events.append(
                _slice(
                    a.name, device_pid, tids[lane], ts, max(_us(a.ended_ms, start), ts), "engine", {"stream": w.stream}
                )
            )

    events += _waits_and_flows(profiler, shown, stream_tid, device_pid, start, first_for)
    if profiler.config.enable_memory_tracking:
        for sample in profiler.memory:
            events.append(
                {
                    "ph": "C",
                    "name": f"memory of context {ctx.id} (bytes)",
                    "pid": device_pid,
                    "ts": _us(sample.time_ms, start),
                    "args": {"held from the device": sample.reserved, "in use": sample.in_use},
                }
            )
    report = build_report(profiler)
    return {
        "traceEvents": events,
        "displayTimeUnit": "ms",
        "otherData": {
            "backend": report.backend,
            "device": report.device,
            "window_ms": round(end - start, 6),
            "total_time_ms": report.total_time_ms,
            "kernel_time_ms": report.kernel_time_ms,
            "memory_time_ms": report.memory_time_ms,
        },
    }


def _waits_and_flows(
    profiler: Profiler,
    shown: list[DeviceWork],
    stream_tid: dict[str, int],
    pid: int,
    start: float,
    first_for: dict[int, float],
) -> list[dict[str, Any]]:
    """Slices for the time a stream waited for an event, and an arrow from the work each awaited event recorded
    to the first work submitted after the wait."""
    events: list[dict[str, Any]] = []
    order: dict[str, list[DeviceWork]] = defaultdict(list)  # every activity of a stream, in completion order
    for w in profiler.work:
        order[w.stream].append(w)
    shown_ids = {id(w) for w in shown}
    marker_at: dict[int, tuple[str, int]] = {}  # id(marker) -> (stream, index in its order)
    for label, works in order.items():
        for i, w in enumerate(works):
            if w.activity.kind == "marker":
                marker_at[id(w.activity.handle)] = (label, i)
    flow = 0
    for label, works in order.items():
        for i, w in enumerate(works):
            a = w.activity
            if a.kind != "wait":
                continue
            ts = _us(a.started_ms, start)
            end = max(_us(a.ended_ms, start), ts)
            if end > ts:
                events.append(_slice("wait for event", pid, stream_tid[label], ts, end, "wait", {}))
            found = marker_at.get(id(a.handle))
            if found is None:
                continue
            src_label, j = found
            source = next((x for x in reversed(order[src_label][:j]) if id(x) in shown_ids), None)
            target = next((x for x in works[i + 1 :] if id(x) in shown_ids), None)
            if source is None or target is None:
                continue
            flow += 1
            common = {"name": "event", "cat": DEVICE_CATEGORY, "pid": pid, "id": flow}
            events.append({**common, "ph": "s", "tid": stream_tid[src_label], "ts": first_for[id(source)]})
            events.append({**common, "ph": "f", "bp": "e", "tid": stream_tid[label], "ts": first_for[id(target)]})
    return events
