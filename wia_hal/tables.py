"""The API's reports as tables: :class:`~wia_hal.models.OpReport` (what one op cost and why) and
:class:`~wia_hal.models.ProfileReport` (the summary of a profiling window), as rich renderables
(``rich.print(report)``) and as the same tables in plain text (``print(report)``).

It sits below the models in the HAL's layers (``.importlinter``) so that the models can render themselves: it
imports nothing of ``wia_hal`` at run time and reads the reports by their documented fields.
"""

from __future__ import annotations

import io
import shutil
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from wia_hal.models import BusyStats, OpReport, ProfileReport

TOP = 10
"""Rows of the summary's kernel and op tables (the rest are counted in the caption)."""

NONE = "—"


def duration(ms: float) -> str:
    """A time at a readable unit: ``1.23 s``, ``40.6 ms``, ``3.14 µs``, ``250 ns``."""
    seconds = ms / 1e3
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(seconds) >= scale:
            return f"{seconds / scale:,.3g} {unit}" if seconds / scale < 1000 else f"{seconds / scale:,.0f} {unit}"
    return f"{seconds * 1e9:,.3g} ns" if seconds else "0"


def quantity(value: float, unit: str) -> str:
    """A count or a rate with a decimal prefix: ``6.61 TFLOP/s``, ``77.4 GB/s``, ``268 MFLOP``."""
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            return f"{value / scale:,.3g} {prefix}{unit}"
    return f"{value:,.3g} {unit}"


def size(nbytes: float) -> str:
    """Bytes at a binary prefix: ``3.0 MiB``, ``512 B``."""
    for scale, prefix in ((2**40, "Ti"), (2**30, "Gi"), (2**20, "Mi"), (2**10, "Ki")):
        if nbytes >= scale:
            return f"{nbytes / scale:,.1f} {prefix}B"
    return f"{nbytes:,.0f} B"


def share(part: float, whole: float) -> str:
    return f"{part / whole:.1%}" if whole > 0 else NONE


def _fields(title: str) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_header=False, pad_edge=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    return table


def op_report(report: OpReport) -> RenderableType:
    """One op: what ran, how much work, and where the time went (the cost model's breakdown)."""
    flop = "OP" if report.precision.startswith("int") else "FLOP"
    table = _fields(f"{report.name}: {duration(report.duration_ms)}, {report.bound}-bound")
    table.add_row("op", report.name)
    table.add_row("algorithm", report.algorithm or NONE)
    table.add_row("precision", report.precision or NONE)
    padded = report.flops - report.useful_flops
    work = f"{quantity(report.flops, flop)} executed, {quantity(report.useful_flops, flop)} useful"
    if padded > 0 and report.flops > 0:
        work += f" ({padded / report.flops:.1%} padding)"
    table.add_row(f"{flop}s", work)
    table.add_row("bytes", f"{size(report.bytes)} read + written ({report.bytes:,.0f} B)")
    table.add_row("compute units", f"{report.compute_units:,} in {report.waves:,} wave(s)")
    table.add_row("efficiency", f"{report.efficiency:.1%} of the {report.precision or 'arithmetic'} peak")
    table.add_row("compute", duration(report.compute_ms))
    table.add_row("memory", duration(report.memory_ms))
    table.add_row("launch", duration(report.launch_ms))
    table.add_row("duration", f"{duration(report.duration_ms)} (bound by {report.bound})")
    if report.started_ms is None or report.ended_ms is None:
        table.add_row("ran", "not yet")
    else:
        table.add_row("started", f"{report.started_ms:,.6f} ms device time")
        table.add_row("ended", f"{report.ended_ms:,.6f} ms device time")
    for key, value in report.counts.items():
        table.add_row(key.replace("_", " "), f"{value:,}")
    if not report.alternatives:
        return table
    weighed = Table(title="alternatives weighed", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    weighed.add_column("algorithm")
    weighed.add_column("duration", justify="right")
    weighed.add_column("vs. chosen", justify="right")
    for choice in sorted(report.alternatives, key=lambda c: c.duration_ms):
        chosen = choice.algorithm == report.algorithm
        ratio = choice.duration_ms / report.duration_ms if report.duration_ms > 0 else 0.0
        weighed.add_row(
            choice.algorithm + (" ← ran" if chosen else ""),
            duration(choice.duration_ms),
            NONE if chosen else f"{ratio:,.2f}×",
            style="bold" if chosen else None,
        )
    return Group(table, weighed)


def _rate(achieved: float, peak: float | None) -> str:
    """An achieved rate at a prefix over its share of the peak: ``6.61 T`` then ``33.9%``."""
    return f"{quantity(achieved, '').rstrip()}\n{achieved / peak:.1%}" if peak else quantity(achieved, "").rstrip()


def _plural(n: int, what: str) -> str:
    return f"{n:,} {what}{'' if n == 1 else 's'}"


def _busy(table: Table, kind: str, stats: list[BusyStats]) -> None:
    for s in stats:
        table.add_row(kind, s.name, duration(s.busy_ms), duration(s.idle_ms), f"{s.utilization:.1%}", f"{s.count:,}")


def profile_summary(report: ProfileReport, top: int = TOP) -> RenderableType:
    """The summary of a profiling window: totals, the kernels and ops that took the time (with their achieved
    rates against the chip's peaks), busy and idle time per engine and stream, and what bound the kernels."""
    total = report.total_time_ms
    totals = _fields(f"Profile: {report.device} ({report.backend} backend)")
    totals.add_row("window", duration(total))
    totals.add_row("kernel time", f"{duration(report.kernel_time_ms)} ({share(report.kernel_time_ms, total)})")
    totals.add_row("transfer time", f"{duration(report.memory_time_ms)} ({share(report.memory_time_ms, total)})")
    totals.add_row("host in API calls", f"{duration(report.host_time_ms)} ({share(report.host_time_ms, total)})")
    for bound, ms in report.bound_time_ms.items():
        totals.add_row(f"{bound}-bound", f"{duration(ms)} ({share(ms, report.kernel_time_ms)} of kernel time)")
    totals.add_row(
        "peak memory", f"{size(report.peak_memory_bytes)} held, {size(report.peak_memory_in_use_bytes)} in use"
    )
    totals.add_row(
        "counts",
        f"{_plural(report.num_kernels, 'kernel')}, {_plural(report.num_transfers, 'transfer')} "
        f"({size(report.bytes_transferred)}), {_plural(report.num_api_calls, 'API call')}",
    )
    parts: list[RenderableType] = [totals]

    if report.kernel_stats:
        kernels = Table(title="Kernels by total time", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for column in ("kernel", "calls", "total", "share", "mean", "min", "max"):
            kernels.add_column(column, justify="left" if column == "kernel" else "right")
        for k in report.kernel_stats[:top]:
            kernels.add_row(
                k.name,
                f"{k.call_count:,}",
                duration(k.total_time_ms),
                share(k.total_time_ms, total),
                duration(k.mean_time_ms),
                duration(k.min_time_ms),
                duration(k.max_time_ms),
            )
        more = f"; and {len(report.kernel_stats) - top} more kernels" if len(report.kernel_stats) > top else ""
        parts += [kernels, Text(f" a total adds its calls' durations: overlapping calls count twice{more}\n", "dim")]

    if report.op_stats:
        ops = Table(title="Top ops by total time", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        ops.add_column("op (signature)", overflow="fold", ratio=1, min_width=20)
        for column in ("calls", "total\nshare", "mean", "bound", "FLOP/s\n% peak", "B/s\n% peak"):
            ops.add_column(column, justify="left" if column == "bound" else "right", no_wrap=True)
        for o in report.op_stats[:top]:
            peak = report.peak_flops_by_precision.get(o.precision)
            ops.add_row(
                o.signature,
                f"{o.call_count:,}",
                f"{duration(o.total_time_ms)}\n{share(o.total_time_ms, total)}",
                duration(o.total_time_ms / max(o.call_count, 1)),
                o.bound or NONE,
                _rate(o.achieved_flops, peak) if o.flops else NONE,
                _rate(o.achieved_bandwidth, report.memory_bandwidth),
            )
        more = f"; and {len(report.op_stats) - top} more signatures" if len(report.op_stats) > top else ""
        note = (
            " rates over the op's device time, as a share of the chip's peak for the op's precision and of its "
            f"memory bandwidth{more}\n"
        )
        parts += [ops, Text(note, "dim")]

    if report.engines or report.streams:
        busy = Table(
            title="Busy and idle time (overlapping work counted once)",
            title_justify="left",
            box=box.SIMPLE_HEAD,
            pad_edge=False,
        )
        for column in ("", "name", "busy", "idle", "utilization", "work"):
            busy.add_column(column, justify="left" if column in ("", "name") else "right")
        _busy(busy, "engine", report.engines)
        _busy(busy, "stream", report.streams)
        parts.append(busy)
    return Group(*parts)


def plain_text(renderable: object, width: int | None = None) -> str:
    """What ``rich.print(renderable)`` shows, without colour or style: at the terminal's width (at least 100
    columns), or at ``width``."""
    if width is None:
        width = max(shutil.get_terminal_size((120, 24)).columns, 100)
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, force_terminal=False, highlight=False)
    console.print(renderable)
    return "\n".join(line.rstrip() for line in out.getvalue().rstrip("\n").splitlines())
