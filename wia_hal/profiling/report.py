"""The report of a profiling window (R-3.10-03): totals, per-kernel and per-signature statistics, busy time per
stream and engine, the time spent bound by compute, memory or launch."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from wia_hal.models import BusyStats, KernelStats, OpStats, ProfileReport
from wia_hal.profiling.session import DeviceWork, Profiler

Interval = tuple[float, float]


def union_ms(intervals: Iterable[Interval]) -> float:
    """The length of the union of ``intervals``: overlapping work counts once."""
    total, end = 0.0, -float("inf")
    for lo, hi in sorted(intervals):
        if hi <= end:
            continue
        total += hi - max(lo, end)
        end = hi
    return total


def window(profiler: Profiler) -> tuple[float, float]:
    """The window's start and end: its end once ended, else now (never before the last completed work)."""
    end = profiler.end_ms if profiler.end_ms is not None else profiler.backend.clock_ms()
    last = max((w.activity.ended_ms for w in profiler.work), default=end)
    return profiler.start_ms, max(end, last, profiler.start_ms)


def _span(work: DeviceWork, start: float, end: float) -> Interval:
    a = work.activity
    return max(a.started_ms, start), min(max(a.ended_ms, a.started_ms), end)


def _busy(name: str, spans: list[Interval], total: float, count: int) -> BusyStats:
    busy = min(union_ms(spans), total)
    return BusyStats(
        name=name,
        busy_ms=busy,
        idle_ms=max(total - busy, 0.0),
        utilization=busy / total if total > 0 else 0.0,
        count=count,
    )


def _kernel_stats(kernels: list[DeviceWork], timing: bool) -> list[KernelStats]:
    by_name: dict[str, list[DeviceWork]] = defaultdict(list)
    for w in kernels:
        by_name[w.activity.name].append(w)
    stats = []
    for name, calls in by_name.items():
        durations = [max(w.activity.ended_ms - w.activity.started_ms, 0.0) if timing else 0.0 for w in calls]
        total = sum(durations)
        stats.append(
            KernelStats(
                name=name,
                call_count=len(calls),
                total_time_ms=total,
                min_time_ms=min(durations),
                mean_time_ms=total / len(calls),
                max_time_ms=max(durations),
                flops=sum(w.activity.flops for w in calls),
                bytes=sum(w.activity.nbytes for w in calls),
            )
        )
    return sorted(stats, key=lambda s: (-s.total_time_ms, s.name))


def _op_stats(kernels: list[DeviceWork], timing: bool) -> list[OpStats]:
    groups: dict[object, list[DeviceWork]] = defaultdict(list)
    for w in kernels:  # grouped by what was launched, formatted once per group
        groups[(w.activity.name, w.launch.key) if w.launch is not None else w.activity.name].append(w)
    stats = []
    for calls in groups.values():
        first = calls[0]
        name = first.activity.name
        signature = first.launch.signature if first.launch is not None else name
        seconds = sum(max(w.activity.ended_ms - w.activity.started_ms, 0.0) for w in calls) / 1e3 if timing else 0.0
        flops = sum(w.activity.flops for w in calls)
        nbytes = sum(w.activity.nbytes for w in calls)
        last = calls[-1].activity
        stats.append(
            OpStats(
                name=name,
                signature=signature,
                call_count=len(calls),
                total_time_ms=seconds * 1e3,
                flops=flops,
                bytes=nbytes,
                bound=last.bound,
                algorithm=last.algorithm,
                precision=last.precision,
                achieved_flops=flops / seconds if seconds > 0 else 0.0,
                achieved_bandwidth=nbytes / seconds if seconds > 0 else 0.0,
                arithmetic_intensity=flops / nbytes if nbytes > 0 else 0.0,
            )
        )
    return sorted(stats, key=lambda s: (-s.total_time_ms, s.signature))


def build_report(profiler: Profiler) -> ProfileReport:
    config = profiler.config
    timing = config.enable_timing
    start, end = window(profiler)
    total = end - start if timing else 0.0
    kernels = [w for w in profiler.work if w.activity.kind == "kernel"]
    transfers = [w for w in profiler.work if w.activity.kind in ("copy", "migration")]
    busy = kernels + transfers

    span = {id(w): _span(w, start, end) for w in busy} if timing else {}

    def spans(works: Iterable[DeviceWork]) -> list[Interval]:
        return [span[id(w)] for w in works] if timing else []

    streams: dict[str, list[DeviceWork]] = defaultdict(list)
    engines: dict[str, list[DeviceWork]] = defaultdict(list)
    bound: dict[str, list[DeviceWork]] = defaultdict(list)
    for w in busy:
        streams[w.stream].append(w)
        engine = w.activity.engine or w.activity.kind
        engines[f"migration {engine}" if w.activity.kind == "migration" else engine].append(w)
        if w.activity.bound:
            bound[w.activity.bound].append(w)
    info = profiler.context.device.info
    return ProfileReport(
        backend=info.backend or profiler.backend.name,
        device=info.name,
        total_time_ms=total,
        kernel_time_ms=min(union_ms(spans(kernels)), total),
        memory_time_ms=min(union_ms(spans(transfers)), total),
        host_time_ms=min(union_ms((p[2], p[3]) for p in profiler.pieces if p[4] == 0), total) if timing else 0.0,
        peak_memory_bytes=profiler.peak_reserved,
        peak_memory_in_use_bytes=profiler.peak_in_use,
        num_kernels=len(kernels),
        num_transfers=len(transfers),
        bytes_transferred=sum(w.activity.nbytes for w in transfers),
        num_api_calls=profiler.api_calls,
        kernel_stats=_kernel_stats(kernels, timing) if config.enable_kernel_profiling else [],
        op_stats=_op_stats(kernels, timing) if config.enable_kernel_profiling else [],
        streams=[_busy(name, spans(ws), total, len(ws)) for name, ws in streams.items()],
        engines=[_busy(name, spans(ws), total, len(ws)) for name, ws in sorted(engines.items())],
        bound_time_ms={name: min(union_ms(spans(ws)), total) for name, ws in sorted(bound.items())},
        peak_flops_by_precision=dict(info.peak_flops_by_precision),
        memory_bandwidth=info.memory_bandwidth,
    )
