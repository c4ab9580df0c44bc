"""The report of a profiling window (R-3.10-03): totals, per-kernel and per-signature statistics, busy time per
stream and engine, the time spent bound by compute, memory or launch.

It reads the profiler's rows (one tuple per activity) directly: a report of a million-op window is built in
seconds, not in the minute that a record object per activity took."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Final

from wia_hal.models import BusyStats, KernelStats, OpStats, ProfileReport
from wia_hal.profiling.session import Profiler, Row

Interval = tuple[float, float]

# the fields of a row (see session.Row)
KIND: Final = 0
NAME: Final = 1
STREAM: Final = 2
ENGINE: Final = 3
SUBMITTED: Final = 4
STARTED: Final = 5
ENDED: Final = 6
BYTES: Final = 7
FLOPS: Final = 8
BOUND: Final = 9
ALGORITHM: Final = 10
PRECISION: Final = 11
SIGNATURE: Final = 12
TRANSFERS = ("copy", "migration")


def union_ms(intervals: Iterable[Interval]) -> float:
    """The length of the union of ``intervals``: overlapping work counts once."""
    total, end = 0.0, -float("inf")
    for lo, hi in sorted(intervals):
        if hi <= end:
            continue
        total += hi - (lo if lo > end else end)
        end = hi
    return total


def window(profiler: Profiler) -> tuple[float, float]:
    """The window's start and end: its end once ended, else now (never before the last completed work)."""
    end = profiler.end_ms if profiler.end_ms is not None else profiler.backend.clock_ms()
    last = max((row[ENDED] for row in profiler.rows), default=end)
    return profiler.start_ms, max(end, last, profiler.start_ms)


def _busy(name: str, spans: list[Interval], total: float, count: int) -> BusyStats:
    busy = min(union_ms(spans), total)
    return BusyStats(
        name=name,
        busy_ms=busy,
        idle_ms=max(total - busy, 0.0),
        utilization=busy / total if total > 0 else 0.0,
        count=count,
    )


def _duration(row: Row) -> float:
    return max(row[ENDED] - row[STARTED], 0.0)


def _kernel_stats(kernels: list[Row], timing: bool) -> list[KernelStats]:
    by_name: dict[str, list[Row]] = defaultdict(list)
    for row in kernels:
        by_name[row[NAME]].append(row)
    stats = []
    for name, calls in by_name.items():
        durations = [_duration(row) for row in calls] if timing else [0.0] * len(calls)
        total = sum(durations)
        stats.append(
            KernelStats(
                name=name,
                call_count=len(calls),
                total_time_ms=total,
                min_time_ms=min(durations),
                mean_time_ms=total / len(calls),
                max_time_ms=max(durations),
                flops=sum(row[FLOPS] for row in calls),
                bytes=sum(row[BYTES] for row in calls),
            )
        )
    return sorted(stats, key=lambda s: (-s.total_time_ms, s.name))


def _op_stats(profiler: Profiler, kernels: list[Row], timing: bool) -> list[OpStats]:
    groups: dict[tuple[str, int], list[Row]] = defaultdict(list)
    for row in kernels:  # by what was launched (a kernel without a known launch: by its name)
        groups[(row[NAME], row[SIGNATURE])].append(row)
    stats = []
    for (name, index), calls in groups.items():
        signature = profiler.signatures[index].signature if index >= 0 else name
        seconds = sum(_duration(row) for row in calls) / 1e3 if timing else 0.0
        flops = sum(row[FLOPS] for row in calls)
        nbytes = sum(row[BYTES] for row in calls)
        last = calls[-1]
        stats.append(
            OpStats(
                name=name,
                signature=signature,
                call_count=len(calls),
                total_time_ms=seconds * 1e3,
                flops=flops,
                bytes=nbytes,
                bound=last[BOUND],
                algorithm=last[ALGORITHM],
                precision=last[PRECISION],
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
    kernels: list[Row] = []
    transfers: list[Row] = []
    streams: dict[str, list[Interval]] = defaultdict(list)
    engines: dict[str, list[Interval]] = defaultdict(list)
    bound: dict[str, list[Interval]] = defaultdict(list)
    kernel_spans: list[Interval] = []
    transfer_spans: list[Interval] = []
    for row in profiler.rows:
        kind = row[KIND]
        if kind == "kernel":
            kernels.append(row)
            spans = kernel_spans
        elif kind in TRANSFERS:
            transfers.append(row)
            spans = transfer_spans
        else:
            continue
        lo = row[STARTED] if row[STARTED] > start else start  # clipped to the window
        hi = row[ENDED] if row[ENDED] > row[STARTED] else row[STARTED]
        span = (lo, hi if hi < end else end)
        spans.append(span)
        streams[row[STREAM]].append(span)
        engine = row[ENGINE] or kind
        engines[f"migration {engine}" if kind == "migration" else engine].append(span)
        if row[BOUND]:
            bound[row[BOUND]].append(span)

    def busy(name: str, spans: list[Interval]) -> BusyStats:
        return _busy(name, spans if timing else [], total, len(spans))

    info = profiler.context.device.info
    host = [(p[2], p[3]) for p in profiler.pieces if p[4] == 0]
    return ProfileReport(
        backend=info.backend or profiler.backend.name,
        device=info.name,
        total_time_ms=total,
        kernel_time_ms=min(union_ms(kernel_spans), total) if timing else 0.0,
        memory_time_ms=min(union_ms(transfer_spans), total) if timing else 0.0,
        host_time_ms=min(union_ms(host), total) if timing else 0.0,
        peak_memory_bytes=profiler.peak_reserved,
        peak_memory_in_use_bytes=profiler.peak_in_use,
        num_kernels=len(kernels),
        num_transfers=len(transfers),
        bytes_transferred=sum(row[BYTES] for row in transfers),
        num_api_calls=profiler.api_calls,
        kernel_stats=_kernel_stats(kernels, timing) if config.enable_kernel_profiling else [],
        op_stats=_op_stats(profiler, kernels, timing) if config.enable_kernel_profiling else [],
        streams=[busy(name, spans) for name, spans in streams.items()],
        engines=[busy(name, spans) for name, spans in sorted(engines.items())],
        bound_time_ms={name: min(union_ms(spans), total) if timing else 0.0 for name, spans in sorted(bound.items())},
        peak_flops_by_precision=dict(info.peak_flops_by_precision),
        memory_bandwidth=info.memory_bandwidth,
    )
