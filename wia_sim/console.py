"""How ``wia-sim`` prints: tables whose names never truncate, plain output in logs, numbers in human units.

The table policy is the one of :mod:`wia_hal.tables` (the simulator cannot import the HAL, so it is repeated here):

- a name or ID column (``no_wrap=True``: model names, kernel names, file paths) never truncates and never breaks;
- every other column wraps at word boundaries, never below its longest word, and nothing is cut with an ellipsis;
- a table that cannot fit the terminal so is printed wider than it (the terminal wraps the lines, the names stay whole);
- when stdout is not a terminal (a log, CI, ``| cat``) there is no colour, the borders are ASCII and tables have their
  natural width (each row on one line), whatever ``COLUMNS`` says.
"""

from __future__ import annotations

import math

from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

ASCII_SIMPLE_HEAD = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)
"""``box.SIMPLE_HEAD`` drawn with ``-``: a rule under the header, no other lines."""

_OPEN_BOXES = (box.SIMPLE, box.SIMPLE_HEAD, box.SIMPLE_HEAVY, box.MINIMAL, box.MINIMAL_HEAVY_HEAD, box.HORIZONTALS)
_UNBOUNDED = 100_000


def make_console() -> Console:
    """A console on stdout: rich's own on a terminal; elsewhere no colour, highlighting or emoji codes, and lines
    that are not wrapped at 80 columns (``soft_wrap``: a log's reader or a pipe's program sees them whole)."""
    console = Console()
    if console.is_terminal:
        return console
    return Console(color_system=None, highlight=False, emoji=False, soft_wrap=True)


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


# -- numbers in human units -----------------------------------------------------------------------------------------


def significant(value: float, digits: int = 4) -> str:
    """``value`` to ``digits`` significant digits, with thousands separators and never an exponent: ``1,979``,
    ``66.9``, ``0.2325``."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(value))))
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def flop_rate(value: float, unit: str = "FLOP/s") -> str:
    """A peak as the models table shows peaks: ``989.4 TFLOP/s``, ``1,979 TOP/s``."""
    return f"{significant(value / 1e12)} T{unit}"


def bandwidth(value: float) -> str:
    """Bytes per second in GB/s: ``3,350 GB/s``, ``51 GB/s``."""
    return f"{significant(value / 1e9)} GB/s"


def size(nbytes: float) -> str:
    """Bytes at a binary prefix, with the exact count past 1 KiB: ``228 KiB (233,472 B)``, ``256 B``."""
    for scale, prefix in ((2**40, "Ti"), (2**30, "Gi"), (2**20, "Mi"), (2**10, "Ki")):
        if nbytes >= scale:
            return f"{significant(nbytes / scale)} {prefix}B ({nbytes:,.0f} B)"
    return f"{nbytes:,.0f} B"


def duration(seconds: float) -> str:
    """A time at a readable unit: ``2.433 µs``, ``50 µs``, ``1.5 ms``, ``250 ns``."""
    for scale, unit in ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs")):
        if abs(seconds) >= scale:
            return f"{significant(seconds / scale)} {unit}"
    return f"{significant(seconds * 1e9)} ns"


def frequency(hz: float) -> str:
    """A clock in MHz: ``1,980 MHz``."""
    return f"{significant(hz / 1e6)} MHz"
