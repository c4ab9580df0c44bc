"""A sweep's rows as a table, CSV (every field, nested ones flattened to dotted names) and JSON (the reports as
they are), and what a row's named figure is (for the plot's axes)."""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table

import wia_hal as wia
from wia_hal.tables import NONE, duration, quantity, significant, size
from wia_whatif.workload import RunReport


def flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """Nested mappings as one level of dotted names (``counts.flops``, ``overrides.memory.bandwidth``)."""
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if isinstance(value, Mapping):
            flat |= flatten(value, f"{prefix}{key}.")
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _varied(reports: Sequence[RunReport], field: str) -> list[str]:
    """The keys of ``field`` (``overrides`` or ``params``) whose value differs between rows, or that a row sets."""
    keys: list[str] = []
    for report in reports:
        for key in getattr(report, field):
            if key not in keys:
                keys.append(key)
    if field == "params":
        keys = [k for k in keys if len({repr(r.params.get(k)) for r in reports}) > 1]
    return keys


def table(reports: Sequence[RunReport], title: str) -> Table:
    """The sweep's table: hardware, the fields changed, the parameters that vary, time per step, throughput, what
    bound the step, peak memory over one device's capacity, and whether it fits."""
    result = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    result.add_column("hardware", no_wrap=True)
    changed = _varied(reports, "overrides")
    params = _varied(reports, "params")
    for name in (*changed, *params):
        result.add_column(name, no_wrap=True)
    unit = reports[0].unit if reports else "items"
    for name in ("time / step", f"{unit} / s", "bound", "peak memory / capacity", "fits"):
        result.add_column(name, justify="right" if name not in ("bound", "fits") else "left")
    for r in reports:
        cells = [r.hardware, *(r.overrides.get(k, NONE) for k in changed), *(str(r.params.get(k)) for k in params)]
        memory = f"{size(r.peak_memory_bytes)} / {size(r.memory_size_bytes)}" if r.fits else NONE
        cells += [
            duration(r.step_time_ms) if r.step_time_ms is not None else NONE,
            significant(r.throughput) if r.throughput is not None else NONE,
            r.bound or NONE,
            memory,
            "yes" if r.fits else "no: out of memory",  # the allocation that failed: the row's error (CSV, JSON)
        ]
        result.add_row(*cells)
    return result


def write_json(reports: Sequence[RunReport], path: Path) -> None:
    text = json.dumps([r.model_dump(mode="json") for r in reports], indent=2)
    _write(path, text + "\n")


def write_csv(reports: Sequence[RunReport], path: Path) -> None:
    """One row per report, a column per field (nested ones dotted), in the order they first appear."""
    rows = [flatten(r.model_dump(mode="json")) for r in reports]
    columns: dict[str, None] = {}
    for row in rows:
        columns |= dict.fromkeys(row)
    try:
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(columns))
            writer.writeheader()
            writer.writerows(rows)
    except OSError as e:
        raise wia.InvalidValueError(f"cannot write {path}: {e.strerror or e}") from None


def _write(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise wia.InvalidValueError(f"cannot write {path}: {e.strerror or e}") from None


METRICS = (
    "step_time_ms",
    "throughput",
    "peak_memory_bytes",
    "simulated_ops",
    "wall_s",
    "counts.flops",
    "counts.bytes",
)
"""The figures ``--y`` may name (also any ``time_by_bound_ms.<bound>``)."""


def metric(report: RunReport, name: str) -> float | None:
    """The figure ``name`` of a row (None where the point does not fit)."""
    value = flatten(report.model_dump()).get(name)
    if name.startswith("time_by_bound_ms.") and report.fits:
        return float(value or 0.0)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def check_metric(name: str) -> None:
    if name not in METRICS and not name.startswith("time_by_bound_ms."):
        raise wia.InvalidValueError(
            f"--y {name!r}: not a figure of a run; the figures: {', '.join(METRICS)}, time_by_bound_ms.<bound>"
        )


def label(name: str, unit: str) -> str:
    """An axis label for a figure."""
    return {
        "step_time_ms": "time per step (ms)",
        "throughput": f"{unit} per second",
        "peak_memory_bytes": "peak memory (bytes)",
        "simulated_ops": "simulated ops",
        "wall_s": "wall time (s)",
        "counts.flops": "FLOPs per step",
        "counts.bytes": "bytes per step",
    }.get(name, name.replace("time_by_bound_ms.", "time bound by ") + " (ms)")


__all__ = ["METRICS", "flatten", "metric", "quantity", "table", "write_csv", "write_json"]
