"""``wia-sim whatif``: a workload over a grid of hardware variations and parameters, as a table, CSV, JSON and a
plot (docs/whatif.md).

``wia-sim`` finds this command through the entry-point group ``wia_sim.commands`` (the simulator does not import
the what-if tooling): :func:`register` adds the subcommand to its parser; :func:`main` runs it on its own.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

import wia_hal as wia
from wia_hal.errors import WiaError
from wia_hal.tables import make_console, print_table
from wia_whatif.results import check_metric, table, write_csv, write_json
from wia_whatif.sweep import EXECUTORS, Sweep, by_name, parse_assignment, parse_values, run_sweep
from wia_whatif.workload import RunReport, available_workloads, get_workload

HELP = "run a workload over a grid of hardware variations and parameters (table, CSV, JSON, plot)"
DESCRIPTION = (
    "Runs one step of WORKLOAD on every point of the grid: each --hardware model x every combination of the "
    "--vary values x every combination of the --param values, with the --set fields on every point, in timing-only "
    "mode unless --numerics. A field is any field of the hardware model's schema by dotted path (memory.bandwidth, "
    "compute.compute_units; a system's device model's as device.memory.bandwidth); a value is a factor of the "
    "model's own (2x, 0.5x) or a value in the units model files use ('3.35 TB/s', 108). docs/whatif.md."
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("workload", nargs="?", help="a registered workload (--list shows them)")
    parser.add_argument("--list", action="store_true", help="the workloads, their presets and parameters")
    parser.add_argument("--preset", help="the workload's named parameter set (default: its defaults)")
    parser.add_argument(
        "--param", action="append", default=[], metavar="NAME=V[,V2..]", help="a parameter, or its values to sweep"
    )
    parser.add_argument(
        "--hardware",
        metavar="A[,B..]",
        help="hardware models or systems, comma-separated (default: $WIA_SIM_HARDWARE or the sim backend's)",
    )
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=V", help="a field on every point")
    parser.add_argument("--vary", action="append", default=[], metavar="FIELD=V1,V2..", help="a field's values")
    parser.add_argument("--numerics", action="store_true", help="compute the values too (small sizes only)")
    parser.add_argument(
        "--warmup", default="1", metavar="N", help="untimed steps before the timed one (default: 1: steady state)"
    )
    parser.add_argument("--no-profile", action="store_true", help="skip the bound and op count (faster points)")
    parser.add_argument(
        "--host-threads",
        choices=("per-device", "one"),
        default="per-device",
        help="the host issuing the work: a thread per device, as tensor-parallel engines run (default), or one",
    )
    parser.add_argument(
        "--eager",
        action="store_true",
        help="launch every op from the host; default: each step captured once and launched as a graph, one host "
        "launch per device, as serving engines run with CUDA graphs",
    )
    parser.add_argument("--executor", choices=EXECUTORS, default="process", help="default: %(default)s")
    parser.add_argument("--workers", metavar="N", help="worker processes (default: the CPU count; 1: in-process)")
    parser.add_argument("--ray-address", metavar="ADDR", help="an existing Ray cluster (default: start a local one)")
    parser.add_argument("--csv", type=Path, metavar="PATH", help="write every field of every row as CSV")
    parser.add_argument("--json", type=Path, metavar="PATH", help="write the run reports as JSON")
    parser.add_argument("--plot", type=Path, metavar="PATH", help="draw --y against --x (PNG; the plot extra)")
    parser.add_argument("--x", metavar="FIELD", help="the plot's x axis: a --vary field or --param (default: first)")
    parser.add_argument("--y", default="step_time_ms", metavar="FIGURE", help="the plot's y (default: %(default)s)")


def register(subparsers: Any) -> Callable[[argparse.Namespace], int]:
    """Add ``whatif`` to ``wia-sim``'s subcommands; the function that runs it (the ``wia_sim.commands`` entry)."""
    parser = subparsers.add_parser("whatif", help=HELP, description=DESCRIPTION)
    add_arguments(parser)
    return lambda args: run(args, parser)


def main(argv: Sequence[str] | None = None) -> int:
    """``wia-sim whatif`` without ``wia-sim`` (the same arguments)."""
    parser = argparse.ArgumentParser(prog="wia-sim whatif", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv), parser)


def _workers(parser: argparse.ArgumentParser, text: str | None) -> int | None:
    if text is None:
        return None
    if not text.isdigit() or int(text) < 1:
        parser.error(f"--workers: expected a positive number, got {text!r}")
    return int(text)


def sweep_from(args: argparse.Namespace) -> Sweep:
    """The sweep the options describe (errors name the option)."""
    hardware = parse_values(args.hardware) if args.hardware else []
    params = {name: parse_values(text) for name, text in (parse_assignment(p, "--param") for p in args.param)}
    if len(params) < len(args.param):
        raise wia.InvalidValueError("--param: a parameter is given twice (give its values as NAME=V1,V2)")
    vary = {name: parse_values(text) for name, text in by_name(args.vary, "--vary").items()}
    return Sweep(
        workload=args.workload,
        preset=args.preset,
        hardware=hardware,
        set=dict(by_name(args.set, "--set")),
        vary=vary,
        params=params,
        numerics=args.numerics,
        profile=not args.no_profile,
        warmup=args.warmup,
        host_threads=args.host_threads,
        graph=not args.eager,
    )


def list_workloads(console: Console) -> None:
    for workload in available_workloads().values():
        result = Table(title=f"{workload.name}: {workload.description} (throughput in {workload.unit}/s)",
                       title_justify="left")  # fmt: skip
        result.add_column("parameter", no_wrap=True)
        result.add_column("default")
        for preset in workload.presets:
            result.add_column(f"preset {preset}")
        for name, field in workload.params_model.model_fields.items():
            preset_values = [str(p.get(name, "")) for p in workload.presets.values()]
            result.add_row(name, str(field.default), *preset_values)
        print_table(console, result)


class _Reporter:
    """Progress on stderr: a bar on a terminal, a line per point elsewhere (a log, a pipe)."""

    def __init__(self) -> None:
        self.console = make_console(stderr=True)
        self.bar: Progress | None = None
        if self.console.is_terminal:
            self.bar = Progress(
                TextColumn("whatif"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                console=self.console, transient=True,
            )  # fmt: skip
            self.task = self.bar.add_task("points", total=None)

    def __enter__(self) -> _Reporter:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def __call__(self, done: int, total: int, report: RunReport) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=done, total=total)
            return
        time = f"{report.step_time_ms:.6g} ms/step" if report.step_time_ms is not None else "does not fit"
        changes = ";".join(f"{k}={v}" for k, v in report.overrides.items())
        self.console.print(f"[{done}/{total}] {report.hardware} {changes} {time}", markup=False, highlight=False)


def _x_axis(args: argparse.Namespace, sweep: Sweep) -> str:
    """The plot's x: ``--x``, else the first varied field, else the first parameter with several values (checked
    before any point runs, as is ``--y``)."""
    check_metric(args.y)
    varied = [*sweep.vary, *(name for name, values in sweep.params.items() if len(values) > 1)]
    if args.x is not None:
        if args.x not in varied:
            raise wia.InvalidValueError(
                f"--x {args.x!r}: not varied; the varied fields and parameters: {', '.join(varied) or 'none'}"
            )
        return str(args.x)
    if not varied:
        raise wia.InvalidValueError("--plot: nothing varies to draw against (give --vary or --param values)")
    return varied[0]


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    console = make_console()
    if args.list:
        list_workloads(console)
        return 0
    if not args.workload:
        parser.error(f"name a workload ({', '.join(available_workloads())}) or give --list")
    workers = _workers(parser, args.workers)
    if not args.warmup.isdigit():
        parser.error(f"--warmup: expected a whole number of steps, got {args.warmup!r}")
    args.warmup = int(args.warmup)
    try:
        sweep = sweep_from(args)
        get_workload(sweep.workload)
        x = _x_axis(args, sweep) if args.plot is not None else None
        with _Reporter() as reporter:
            reports = run_sweep(
                sweep, executor=args.executor, workers=workers, ray_address=args.ray_address, progress=reporter
            )
        title = f"{sweep.workload}" + (f" ({sweep.preset})" if sweep.preset else "") + f": {len(reports)} point(s)"
        print_table(console, table(reports, title))
        if args.csv is not None:
            write_csv(reports, args.csv)
            console.print(f"{args.csv}: {len(reports)} row(s)", markup=False, highlight=False)
        if args.json is not None:
            write_json(reports, args.json)
            console.print(f"{args.json}: {len(reports)} report(s)", markup=False, highlight=False)
        if args.plot is not None and x is not None:
            from wia_whatif.plot import plot  # matplotlib loads only for a plot

            lines = plot(reports, x, args.y, args.plot, title)
            console.print(f"{args.plot}: {args.y} against {x}, {lines} line(s)", markup=False, highlight=False)
    except WiaError as e:
        make_console(stderr=True).print(f"wia-sim whatif: {e.message}", markup=False, highlight=False)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
