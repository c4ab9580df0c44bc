"""A sweep's figure against one varied field or parameter: a line per combination of the others (hardware model,
the other fields and parameters). Needs the ``plot`` extra (matplotlib); drawn off-screen (Agg)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import wia_hal as wia
from wia_whatif.results import label, metric
from wia_whatif.workload import RunReport

PLOT_EXTRA = "pip install 'wia[plot]' (matplotlib)"
_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*x?\s*$")


def _x_value(report: RunReport, x: str) -> str:
    value = report.overrides.get(x) if x in report.overrides else report.params.get(x)
    return str(value)


def _position(values: Sequence[str]) -> tuple[list[float], bool]:
    """The x positions: the numbers (a factor ``2x`` as 2) when every value is one, else their order."""
    matches = [_NUMBER.match(v) for v in values]
    if all(matches):
        return [float(m.group(1)) for m in matches if m is not None], True
    return [float(i) for i in range(len(values))], False


def plot(reports: Sequence[RunReport], x: str, y: str, output: Path, title: str) -> int:
    """Draw ``y`` against ``x`` into ``output`` (PNG, SVG or PDF by its suffix); the lines drawn."""
    try:
        from matplotlib.figure import Figure  # type: ignore[import-not-found, unused-ignore]  # the plot extra
    except ImportError:
        raise wia.NotSupportedError(f"--plot draws with matplotlib, which is not installed: {PLOT_EXTRA}") from None
    if not any(x in r.overrides or x in r.params for r in reports):
        raise wia.InvalidValueError(f"--x {x!r}: no row varies it (give it with --vary or --param)")
    values = list(dict.fromkeys(_x_value(r, x) for r in reports))
    positions, numeric = _position(values)
    where = dict(zip(values, positions, strict=True))
    lines: dict[str, list[tuple[float, float]]] = {}
    for r in reports:
        others = [f"{k}={v}" for k, v in r.overrides.items() if k != x]
        others += [
            f"{k}={v}" for k, v in r.params.items() if k != x and len({str(o.params.get(k)) for o in reports}) > 1
        ]
        name = " ".join([r.hardware, *others])
        value = metric(r, y)
        if value is not None:
            lines.setdefault(name, []).append((where[_x_value(r, x)], value))
    figure = Figure(figsize=(9, 5.5), layout="constrained")
    axes = figure.add_subplot()
    for name, points in lines.items():
        points.sort()
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
    if not numeric:
        axes.set_xticks(positions, values)
    axes.set_xlabel(x)
    axes.set_ylabel(label(y, reports[0].unit if reports else "items"))
    axes.set_title(title)
    axes.grid(True, alpha=0.3)
    if lines:
        axes.legend(fontsize=8)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(output, dpi=120)
    except (OSError, ValueError) as e:
        raise wia.InvalidValueError(f"--plot {output}: cannot write it: {e}") from None
    return len(lines)
