"""The API's reports as tables: :class:`~wia_hal.models.OpReport` (what one op cost and why) and
:class:`~wia_hal.models.ProfileReport` (the summary of a profiling window), as rich renderables
(``rich.print(report)``) and as the same tables in plain text (``print(report)``).

It sits below the models in the HAL's layers (``.importlinter``) so that the models can render themselves: it
imports nothing of ``wia_hal`` at run time and reads the reports by their documented fields.

It also holds the project's policy for every table it prints (``wia``, ``wia-conformance``, these reports;
``wia_sim/console.py`` repeats it for ``wia-sim``, which cannot import the HAL):

- a name or ID column (``no_wrap=True``: device, kernel and op names, requirement IDs, section numbers, paths) never
  truncates and never breaks;
- every other column wraps at word boundaries, never below its longest word, and nothing is cut with an ellipsis;
- a table that cannot fit the terminal so is printed wider than it (the terminal wraps the lines, the names stay whole);
- when stdout is not a terminal (a log, CI, ``| cat``) there is no colour, the borders are ASCII and tables have their
  natural width (each row on one line), whatever ``COLUMNS`` says; ``str(report)`` is that plain form.
"""

from __future__ import annotations

import io
import math
from typing import TYPE_CHECKING

from rich import box
from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

if TYPE_CHECKING:
    from wia_hal.models import BusyStats, OpReport, ProfileReport

TOP = 10
"""Rows of the summary's kernel and op tables (the rest are counted in the caption)."""

NONE = "—"

ASCII_SIMPLE_HEAD = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)
"""``box.SIMPLE_HEAD`` drawn with ``-``: a rule under the header, no other lines."""

_OPEN_BOXES = (box.SIMPLE, box.SIMPLE_HEAD, box.SIMPLE_HEAVY, box.MINIMAL, box.MINIMAL_HEAVY_HEAD, box.HORIZONTALS)
_UNBOUNDED = 100_000


def _plain(cell: object) -> str | None:
    if isinstance(cell, Text):
        return cell.plain
    return cell if isinstance(cell, str) else None


def _texts(column: Column) -> list[str]:
    return [t for t in (_plain(c) for c in [column.header, *column.cells]) if t is not None]


def fit(table: Table) -> Table:
    """Give each column the least width the policy allows: a name column its longest line, any other its longest
    word; names get ``no_wrap``, the rest ``overflow="fold"`` (a word is folded only past that width, never cut)."""
    for column in table.columns:
        texts = _texts(column)
        if column.no_wrap:
            pieces = [line for t in texts for line in t.splitlines()]
        else:
            pieces = [word for t in texts for word in t.split()]
            column.overflow = "fold"
        widest = max((cell_len(piece) for piece in pieces), default=0)
        column.min_width = max(column.min_width or 0, widest)
    return table


def layout(console: Console, table: Table, width: int) -> int:
    """Fix the widths of ``table``'s columns (already :func:`fit`) for a total of ``width``: each column its
    natural width if all fit; else each its least, and what is left shared by how much each would still take
    (rich's own shrinking ignores the least widths). The table's width, more than ``width`` where the least widths
    need more."""
    natural = Measurement.get(console, console.options.update_width(_UNBOUNDED), table).maximum
    least = [column.min_width or 0 for column in table.columns]
    most = []
    for column, low in zip(table.columns, least, strict=True):
        longest = max((cell_len(line) for t in _texts(column) for line in t.splitlines()), default=0)
        most.append(max(low, min(longest, column.max_width or longest)))
    overhead = natural - sum(most)
    room = width - overhead
    if sum(most) <= room:
        return natural
    if sum(least) >= room:
        widths = least
    else:
        share, wanted = room - sum(least), [m - low for m, low in zip(most, least, strict=True)]
        widths = [low + share * w // sum(wanted) for low, w in zip(least, wanted, strict=True)]
        widths[wanted.index(max(wanted))] += room - sum(widths)
    for column, w in zip(table.columns, widths, strict=True):
        column.width = w
    return overhead + sum(widths)


def print_table(console: Console, table: Table) -> None:
    """Print ``table`` by the policy of this module: on a terminal at its width (wider where names need it), elsewhere
    at its natural width with ASCII borders."""
    fit(table)
    if console.is_terminal:
        width = layout(console, table, console.width)
    else:
        if table.box is not None:
            table.box = ASCII_SIMPLE_HEAD if table.box in _OPEN_BOXES else box.ASCII2
        width = layout(console, table, _UNBOUNDED)
    saved = console.width
    console.width = max(width, saved if console.is_terminal else 1)
    try:
        console.print(table)
    finally:
        console.width = saved


def make_console(stderr: bool = False) -> Console:
    """A console on stdout (or stderr): rich's own on a terminal; elsewhere no colour, highlighting or emoji codes."""
    console = Console(stderr=stderr)
    if console.is_terminal:
        return console
    return Console(stderr=stderr, color_system=None, highlight=False, emoji=False, soft_wrap=True)


def _plain_boxes(renderable: object) -> None:
    """ASCII borders on ``renderable``'s tables (a table, or a group of them)."""
    if isinstance(renderable, Group):
        for part in renderable.renderables:
            _plain_boxes(part)
    elif isinstance(renderable, Table) and renderable.box is not None:
        renderable.box = ASCII_SIMPLE_HEAD if renderable.box in _OPEN_BOXES else box.ASCII2


def significant(value: float, digits: int = 4) -> str:
    """``value`` to ``digits`` significant digits, with thousands separators and never an exponent: ``1,979``,
    ``66.9``, ``0.2325``."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def peak_rate(value: float, unit: str = "FLOP/s") -> str:
    """A peak in tera units, as ``wia-sim models`` shows it: ``989.4 TFLOP/s``, ``1,979 TOP/s``."""
    return f"{significant(value / 1e12)} T{unit}"


def bandwidth(value: float) -> str:
    """Bytes per second in GB/s: ``3,350 GB/s``, ``51 GB/s``."""
    return f"{significant(value / 1e9)} GB/s"


def exact_size(nbytes: float) -> str:
    """Bytes at a binary prefix with the exact count past 1 KiB: ``228 KiB (233,472 B)``, ``256 B``."""
    for scale, prefix in ((2**40, "Ti"), (2**30, "Gi"), (2**20, "Mi"), (2**10, "Ki")):
        if nbytes >= scale:
            return f"{significant(nbytes / scale)} {prefix}B ({nbytes:,.0f} B)"
    return f"{nbytes:,.0f} B"


def frequency(hz: float) -> str:
    """A clock in MHz: ``1,980 MHz``."""
    return f"{significant(hz / 1e6)} MHz"


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
    table.add_column("field", style="bold", no_wrap=True)
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
        return fit(table)
    weighed = Table(title="alternatives weighed", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    weighed.add_column("algorithm", no_wrap=True)
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
    return Group(fit(table), fit(weighed))


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
            kernels.add_column(column, justify="left" if column == "kernel" else "right", no_wrap=column == "kernel")
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
        ops.add_column("op (signature)")
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
            busy.add_column(column, justify="left" if column in ("", "name") else "right", no_wrap=column == "name")
        _busy(busy, "engine", report.engines)
        _busy(busy, "stream", report.streams)
        parts.append(busy)
    for part in parts:
        if isinstance(part, Table):
            fit(part)
    return Group(*parts)


def plain_text(renderable: RenderableType, width: int | None = None) -> str:
    """What ``rich.print(renderable)`` shows, as a log shows it: no colour or style, ASCII borders, tables at their
    natural width (or at ``width``, where their names allow)."""
    _plain_boxes(renderable)
    measured = Measurement.get(Console(width=_UNBOUNDED), Console(width=_UNBOUNDED).options, renderable).maximum
    out = io.StringIO()
    console = Console(file=out, width=max(width or measured, 1), color_system=None, force_terminal=False)
    console.print(renderable, highlight=False)
    return "\n".join(line.rstrip() for line in out.getvalue().rstrip("\n").splitlines())
