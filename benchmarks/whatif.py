"""How fast the what-if tooling answers: wall time of Llama-2-70B steps on simulated H100s, a sweep of hardware
points, and how wall time grows with layers, devices and sweep points (issue 15's speed targets).

Rows (timing-only, ``numerics=False``, no warm-up step; "profiled" is what a sweep row costs: a profiling window
gives the bound):
  (a) prefill, batch 1, 4096 tokens, one H100 (nvidia-h100-sxm5-80gb): 138 GB of weights do not fit 80 GB, so the
      point ends at OUT_OF_MEMORY; the same step on an H100 with 3x the memory shows what a fitting run costs;
  (b) the same prefill on 8 H100s, tensor-parallel (nvidia-hgx-h100); target < 2 s;
  (c) decode, batch 32, 4096 cached tokens, on 8 H100s (target < 1 s) and on one (3x memory, as in (a));
  (d) a sweep (``wia_whatif.sweep.run_sweep``, as ``wia-sim whatif`` runs it: one warm-up step per point, each
      step a graph, the profiling window for the bound) of (b) and (c) over 200 hardware points (20 memory
      bandwidths x 10 peak bfloat16 FLOP/s), two processes: 400 runs; target: < 2 min on this 2-core machine.
Then wall time against layers (10, 20, 40, 80; (b)), devices (1, 2, 4, 8; 20 layers, prefill) and sweep points
(10, 50, 200: the sweep's running total). Simulated ops per second = ops, kernels and collectives the step enqueued
over the point's wall time.

Rows (a) to (c) and the scaling rows run each step as a captured graph (``graph``: the default) and op by op
(``eager``), side by side. Run: ``python benchmarks/whatif.py`` (about 10 minutes here) or ``--quick`` (10-layer
models, an 8-point sweep, about a minute).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from wia_whatif.run import clear_captures, run_point
from wia_whatif.sweep import Sweep, run_sweep
from wia_whatif.workload import RunReport, get_workload

H100 = "nvidia-h100-sxm5-80gb"
HGX = "nvidia-hgx-h100"
LLAMA70B = dict(get_workload("transformer").presets["llama2-70b"])
PREFILL = {**LLAMA70B, "phase": "prefill", "batch": 1, "seq": 4096}
DECODE = {**LLAMA70B, "phase": "decode", "batch": 32, "seq": 4096}
FACTORS = ("1x", "2x", "0.5x", "0.75x", "1.25x", "1.5x", "2.5x", "3x", "0.6x", "0.9x")
BANDWIDTHS = tuple(f"{0.5 + 0.125 * i:g}x" for i in range(20))  # 0.5x to 2.875x
"""At most 3x: past 3.1x the H100's memory bandwidth would exceed its L2's (cache_bandwidth), which the schema
rejects (a what-if beyond it changes memory.cache_bandwidth too)."""

Point = tuple[str, dict[str, Any], str, dict[str, str], bool, bool]
"""A run: label, workload params, hardware, model fields changed, profiled, as a graph."""

FIRST = "graph, 1st point"
"""A sweep's first point of a workload: the setup and a capture of the step, then a launch of it."""
LATER = "graph copy, profiled"
"""A later point: a copy of that capture on the point's hardware (``wia.instantiate_graph``), launched."""


def _run(point: Point) -> tuple[str, RunReport]:
    label, params, hardware, changes, profile, graph = point
    if label.endswith(FIRST) or not label:
        clear_captures()  # the first point of a sweep captures the step
    report = run_point("transformer", params, hardware=hardware, set=changes, profile=profile, warmup=0, graph=graph)
    return label, report


def _row(table: Table, label: str, report: RunReport) -> None:
    ops = report.simulated_ops
    table.add_row(
        label,
        f"{report.wall_s:.2f}",
        "yes" if report.fits else "no",
        "" if report.step_time_ms is None else f"{report.step_time_ms:.2f}",
        report.bound or "",
        str(ops) if ops else "",
        f"{ops / report.wall_s:,.0f}" if ops else "",
    )


def _table(title: str) -> Table:
    table = Table(title=title)
    for column in ("run", "wall s", "fits", "step ms", "bound", "ops", "ops/s"):
        table.add_column(column, justify="left" if column == "run" else "right")
    return table


def scenarios(layers: int) -> list[Point]:
    """(a) to (c), each profiled (as a sweep row) and not."""
    sized = {"layers": layers}
    more = {"memory.size": "3x"}
    runs: list[tuple[str, dict[str, Any], str, dict[str, str]]] = [
        ("(a) prefill, 1 H100", {**PREFILL, **sized}, H100, {}),
        ("(a) prefill, 1 H100 with 3x memory", {**PREFILL, **sized}, H100, more),
        ("(b) prefill, 8 H100 TP8", {**PREFILL, **sized, "devices": 8}, HGX, {}),
        ("(c) decode b32, 8 H100 TP8", {**DECODE, **sized, "devices": 8}, HGX, {}),
        ("(c) decode b32, 1 H100 with 3x memory", {**DECODE, **sized}, H100, more),
    ]
    kinds = ((FIRST, False, True), (LATER, True, True), ("eager", False, False), ("eager, profiled", True, False))
    return [
        (f"{label}, {kind}", params, hw, changes, profile, graph)
        for label, params, hw, changes in runs
        for kind, profile, graph in kinds
    ]


def sweeps(values: int, layers: int) -> list[Sweep]:
    """(b) and (c), each over ``2 values`` x ``values`` hardware points (memory bandwidth x bfloat16 peak),
    profiled like any sweep row (the bound needs it)."""
    vary = {
        "device.memory.bandwidth": list(BANDWIDTHS[: 2 * values]),
        "device.compute.peak_flops.bfloat16": list(FACTORS[:values]),
    }
    return [
        Sweep(workload="transformer", preset="llama2-70b", hardware=[HGX], vary=vary, params={
            "layers": [layers], "devices": [8], "phase": [phase], "batch": [batch], "seq": [4096]})
        for phase, batch in (("prefill", 1), ("decode", 32))
    ]  # fmt: skip


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10-layer models, a 10-point sweep, fewer scaling runs")
    parser.add_argument("--processes", type=int, default=2, help="sweep worker processes")
    parser.add_argument(
        "--sweep-values",
        type=int,
        default=None,
        help="N: 2N bandwidths x N peaks (hardware points), each prefill and decode (default 10: 200 points)",
    )
    args = parser.parse_args(argv)
    console = Console()
    layers = 10 if args.quick else 80

    table = _table(f"Llama-2-70B shaped ({layers} layers), timing-only")
    for point in scenarios(layers):
        _row(table, *_run(point))
    console.print(table)

    table = _table("wall time against layers: (b) prefill on 8 H100s")
    for n in (10, 20) if args.quick else (10, 20, 40, 80):
        for graph in (True, False):
            params = {**PREFILL, "layers": n, "devices": 8}
            _row(table, f"{n} layers, {'graph' if graph else 'eager'}", _run(("", params, HGX, {}, False, graph))[1])
    console.print(table)

    table = _table("wall time against devices: prefill, 20 layers, tensor-parallel on nvidia-hgx-h100")
    for d in (1, 2) if args.quick else (1, 2, 4, 8):
        for graph in (True, False):
            params = {**PREFILL, "layers": 20, "devices": d}
            _row(table, f"{d} devices, {'graph' if graph else 'eager'}", _run(("", params, HGX, {}, False, graph))[1])
    console.print(table)

    values = args.sweep_values or (2 if args.quick else 10)  # 4 x 2 = 8 points quick, 20 x 10 = 200 full
    points = 2 * values * values
    total = 2 * points
    marks = {m for m in (8, 16, 50, 100, 200, 400) if m <= total}
    title = f"(d) sweep of (b) and (c) over {points} hardware points ({total} runs), {args.processes} processes"
    table = Table(title=title)
    for column in ("runs done", "wall s", "s per run", "simulated ops/s"):
        table.add_column(column, justify="right")
    start = time.perf_counter()
    done_before, ops, fits = 0, 0, 0
    for sweep in sweeps(values, layers):

        def progress(done: int, _total: int, report: RunReport, before: int = done_before) -> None:
            nonlocal ops, fits
            ops += report.simulated_ops
            fits += report.fits
            elapsed = time.perf_counter() - start
            if before + done in marks:
                n = before + done
                table.add_row(str(n), f"{elapsed:.1f}", f"{elapsed / n:.2f}", f"{ops / elapsed:,.0f}")

        run_sweep(sweep, workers=args.processes, progress=progress)
        done_before += len(sweep.points())
    console.print(table)
    console.print(f"{fits} of {total} points fit.")


if __name__ == "__main__":
    main()
