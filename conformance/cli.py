"""``wia-conformance``: run the conformance suite against a backend and print a verdict per conformance level.

    wia-conformance [--backend NAME] [--option KEY=VALUE ...] [--json PATH] [--markdown PATH] [--junitxml PATH]
                    [-k EXPR] [-q] [--hypothesis-seed N] [-- PYTEST_ARGS ...]

It runs pytest in this process on the installed suite (the folder of :mod:`conformance`), with pytest's own
terminal output replaced by a progress bar, then prints a table per section, the verdict per level and each
failure. Exit status: 0 when no test failed, 1 otherwise (also for errors before the tests ran).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from conformance.report import RunReport, TestResult

SUITE_DIR = Path(__file__).resolve().parent
"""The installed suite: the folder of the ``conformance`` package (this module's folder)."""

_STYLE = {
    "passed": "green",
    "failed": "bold red",
    "not supported": "yellow",
    "skipped": "dim",
    "PASS": "bold green",
    "FAIL": "bold red",
    "INCOMPLETE": "yellow",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wia-conformance",
        description="Run the WIA-AI-011 conformance suite against a wia_hal backend.",
        epilog="Arguments after '--' go to pytest unchanged (e.g. -- -x -n 2).",
    )
    parser.add_argument(
        "--backend",
        default=os.environ.get("WIA_BACKEND", "sim"),
        help="backend to validate (default: $WIA_BACKEND, else 'sim')",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="backend option for wia.set_backend (repeatable); WIA_<BACKEND>_<KEY> variables also work",
    )
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--markdown", metavar="PATH", help="write a Markdown report with a verdict per level")
    parser.add_argument("--junitxml", metavar="PATH", help="write JUnit XML (pytest's --junitxml)")
    parser.add_argument("-k", metavar="EXPR", dest="keyword", help="only tests matching EXPR (pytest's -k)")
    parser.add_argument(
        "--hypothesis-seed", metavar="N", help="draw hypothesis examples from seed N (default: derandomized)"
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar; only verdicts and failures")
    return parser


def pytest_arguments(args: argparse.Namespace, extra: Sequence[str]) -> list[str]:
    argv = [
        str(SUITE_DIR),
        "-p",
        "no:terminal",  # the progress bar and the tables below replace pytest's output
        "-p",
        "no:cacheprovider",  # write nothing into the installed package
        "-o",
        "addopts=",  # a project's addopts may name options of the terminal plugin
        "--wia-backend",
        args.backend,
    ]
    for option in args.option:
        argv += ["--wia-option", option]
    for flag, value in (
        ("--wia-report-json", args.json),
        ("--wia-report-md", args.markdown),
        ("--junitxml", args.junitxml),
        ("-k", args.keyword),
        ("--hypothesis-seed", args.hypothesis_seed),
    ):
        if value:
            argv += [flag, value]
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):  # entry points are off: load what the suite needs
        argv += ["-p", "conformance.plugin", "-p", "hypothesis"]
    return [*argv, *extra]


class ProgressPlugin:
    """Advances a rich progress bar per test and keeps what the summary needs (passed to ``pytest.main``)."""

    def __init__(self, console: Console, show: bool) -> None:
        self.console = console
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
            disable=not show,
        )
        self.task: Any = None
        self.failed = 0
        self.collect_errors: list[tuple[str, str]] = []
        self.interrupted: str | None = None
        self.report: RunReport | None = None

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.collect_errors.append((report.nodeid or "(collection)", report.longreprtext))

    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        self.interrupted = str(getattr(excinfo.value, "msg", "") or excinfo.exconly())

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.progress.start()
        self.task = self.progress.add_task("conformance", total=len(session.items), status="")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed and report.when in ("setup", "call"):
            self.failed += 1

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        if self.task is not None:
            module = nodeid.split("::", 1)[0].rsplit("/", 1)[-1].removesuffix(".py")
            status = f"[red]{self.failed} failed[/red]" if self.failed else ""
            self.progress.update(self.task, advance=1, description=module, status=status)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.task is not None:
            self.progress.update(self.task, description="done")
            self.progress.stop()
        suite = session.config.pluginmanager.get_plugin("wia-conformance-suite")
        if suite is not None:
            self.report = suite.run_report()


def _counts_row(counts: dict[str, int]) -> list[str]:
    cells = []
    for outcome in ("passed", "failed", "not supported", "skipped"):
        n = counts[outcome]
        cells.append(f"[{_STYLE[outcome]}]{n}[/]" if n else "0")
    return cells


def print_summary(console: Console, report: RunReport, quiet: bool) -> None:
    device = report.device or {}
    console.print(
        f"[bold]WIA-AI-011 conformance[/bold]: backend [cyan]{report.backend}[/cyan]"
        + (f" {report.options}" if report.options else "")
        + f", device 0: {escape(str(device.get('name', '(none)')))}",
        highlight=False,
    )
    console.print(f"hypothesis: {report.hypothesis}")
    if not quiet:
        table = Table(title="Results per section")
        table.add_column("section", no_wrap=True)
        table.add_column("title")
        for column in ("passed", "failed", "unsupported", "skipped", "time (s)"):
            table.add_column(column, justify="right", no_wrap=True)
        for s in report.sections:
            table.add_row(s.section, s.title, *_counts_row(s.counts), f"{s.duration_s:.2f}")
        table.add_row("all", "", *_counts_row(report.counts), f"{report.duration_s:.2f}", style="bold")
        console.print(table)
    levels = Table(title="Verdict per conformance level (SPEC.md 3.1)")
    levels.add_column("level")
    levels.add_column("verdict", no_wrap=True)
    for column in ("passed", "failed", "unsupported", "skipped"):
        levels.add_column(column, justify="right", no_wrap=True)
    levels.add_column("notes")
    for v in report.levels:
        notes = v.reason + (f"; not supported: {', '.join(v.not_supported)}" if v.not_supported else "")
        levels.add_row(v.name, f"[{_STYLE[v.verdict]}]{v.verdict}[/]", *_counts_row(v.counts), notes)
    console.print(levels)


def print_failures(console: Console, failures: Sequence[TestResult], max_lines: int = 6) -> None:
    if not failures:
        return
    console.rule(f"[bold red]{len(failures)} failure(s)")
    for r in failures:
        console.print(f"[bold red]FAILED[/] {escape(r.nodeid)}  [dim]({', '.join(r.reqs)})[/dim]", highlight=False)
        lines = r.message.strip().splitlines() or ["(no message)"]
        for line in lines[:max_lines]:
            console.print(f"    {line}", highlight=False, markup=False)
        if len(lines) > max_lines:
            console.print(f"    ... ({len(lines) - max_lines} more lines; see --json or --junitxml)", style="dim")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and extra[0] == "--":
        extra = extra[1:]
    console = Console()
    plugin = ProgressPlugin(console, show=not args.quiet)
    rc = pytest.main(pytest_arguments(args, extra), plugins=[plugin])
    for nodeid, text in plugin.collect_errors:
        console.rule("[bold red]collection error")
        console.print(nodeid, style="bold red", highlight=False, markup=False)
        console.print(text, markup=False, highlight=False)
    if plugin.interrupted:
        console.print(f"[bold red]stopped:[/bold red] {escape(plugin.interrupted)}", highlight=False)
    report = plugin.report
    if report is not None and report.results:
        print_summary(console, report, args.quiet)
        print_failures(console, [r for r in report.results if r.outcome == "failed"])
    if rc == pytest.ExitCode.NO_TESTS_COLLECTED and not plugin.collect_errors:
        console.print("[yellow]no tests selected[/yellow]")
        return 0
    if rc != pytest.ExitCode.OK:
        if report is None or not report.results:
            console.print(f"[bold red]the suite did not run (pytest exit status {int(rc)})[/bold red]")
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
