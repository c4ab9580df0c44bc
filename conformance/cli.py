"""``wia-conformance``: run the conformance suite against a backend, show what it covers, re-render a result.

    wia-conformance [run] (--backend NAME | --backend-module MOD:FACTORY) [--option KEY=VALUE ...]
                    [--select GLOB ...] [--quick] [--skip-file PATH] [--hypothesis-seed N|random]
                    [--json PATH] [--markdown PATH] [--junitxml PATH] [-k EXPR] [-q] [TEST ...] [-- PYTEST_ARGS ...]
    wia-conformance coverage [--json PATH]
    wia-conformance report RESULT.json [--markdown PATH] [--junitxml PATH] [-q]

``run`` (the default) runs pytest in this process on the installed suite (the folder of :mod:`conformance`), with
pytest's output replaced by a progress bar, then prints the counts, the verdict per level and why, and each failure
with its replay command. Exit status: 0 when no test failed or errored, 1 otherwise (also when the suite could not
run), 2 for a usage error (no backend named, an unknown one, a bad ``--select``).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Any

import pytest
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

import wia_hal as wia
from conformance import selection
from conformance.coverage import Coverage, collect_coverage
from conformance.plugin import load_factory, no_backend_message
from conformance.render import Line, failure_lines, render_junit, render_markdown, summary_lines
from conformance.report import RunReport
from wia_hal.tables import make_console, print_table

SUITE_DIR = Path(__file__).resolve().parent
"""The installed suite: the folder of the ``conformance`` package (this module's folder)."""

USAGE = 2

_STYLE = {
    "passed": "green",
    "failed": "bold red",
    "error": "bold magenta",
    "not supported": "yellow",
    "not applicable": "cyan",
    "skipped": "dim",
    "dim": "dim",
    "PASS": "bold green",
    "FAIL": "bold red",
    "INCOMPLETE": "yellow",
}


class UsageProblem(Exception):
    """A command line that cannot run: reported with exit status 2."""


# -- run ------------------------------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wia-conformance",
        description="Run the WIA-AI-011 conformance suite against a wia_hal backend. "
        "Other commands: 'wia-conformance coverage', 'wia-conformance report RESULT.json'.",
        epilog="Arguments after '--' go to pytest unchanged (e.g. -- -x -n 2).",
    )
    backend = parser.add_argument_group("backend (one is required)")
    backend.add_argument("--backend", metavar="NAME", help="an installed backend (entry point); default $WIA_BACKEND")
    backend.add_argument(
        "--backend-module",
        metavar="MOD:FACTORY",
        help="a backend that is not installed: FACTORY(**options) from module MOD returns a wia_hal.Backend",
    )
    backend.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="backend option (repeatable); with --backend, WIA_<BACKEND>_<KEY> variables also work",
    )
    choice = parser.add_argument_group("which tests")
    choice.add_argument(
        "--select", action="append", default=[], metavar="GLOB", help="requirement IDs, e.g. 'R-3.5.2-*' (repeatable)"
    )
    choice.add_argument("--quick", action="store_true", help="a smoke subset (well under a minute); no verdict")
    choice.add_argument("--skip-file", metavar="PATH", help="tests or requirement IDs to skip, one a line")
    choice.add_argument("-k", metavar="EXPR", dest="keyword", help="only tests matching EXPR (pytest's -k)")
    choice.add_argument("tests", nargs="*", metavar="TEST", help="test ids to run (e.g. from a replay line)")
    parser.add_argument(
        "--hypothesis-seed", metavar="N", help="draw hypothesis examples from seed N, or 'random' (default: fixed)"
    )
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    parser.add_argument("--markdown", metavar="PATH", help="write a Markdown report")
    parser.add_argument("--junitxml", metavar="PATH", help="write JUnit XML")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bar or section table")
    return parser


def suite_test(arg: str) -> str:
    """A test id of any rootdir (``conformance/test_3_7_ops.py::t``, ``test_3_7_ops.py::t``) as a path into the
    installed suite, so a replay line works from any folder."""
    path, sep, rest = arg.partition("::")
    candidate = SUITE_DIR / PurePath(path).name
    return f"{candidate}{sep}{rest}" if candidate.is_file() else arg


def check_run_arguments(args: argparse.Namespace) -> None:
    """Usage errors found before pytest starts (exit status 2)."""
    if args.backend and args.backend_module:
        raise UsageProblem("--backend and --backend-module: name one backend")
    if not args.backend_module:
        args.backend = args.backend or os.environ.get("WIA_BACKEND") or None
    if not (args.backend or args.backend_module):
        raise UsageProblem(no_backend_message())
    if args.backend and args.backend not in wia.available_backends():
        installed = ", ".join(wia.available_backends()) or "(none installed)"
        raise UsageProblem(f"unknown backend {args.backend!r}; installed: {installed} (or use --backend-module)")
    try:
        if args.backend_module:
            load_factory(args.backend_module)
        selection.check_select(args.select)
        if args.skip_file:
            selection.parse_skip_file(Path(args.skip_file).read_text(encoding="utf-8"))
    except (ValueError, OSError) as e:
        raise UsageProblem(str(e)) from e
    if args.hypothesis_seed == "random":
        args.hypothesis_seed = str(random.randrange(2**32))
    elif args.hypothesis_seed is not None and not args.hypothesis_seed.isdigit():
        raise UsageProblem(
            f"--hypothesis-seed: {args.hypothesis_seed!r} is not a seed; expected a whole number ≥ 0 or 'random'"
        )


def pytest_arguments(args: argparse.Namespace, extra: Sequence[str]) -> list[str]:
    argv = [suite_test(t) for t in args.tests] or [str(SUITE_DIR)]
    argv += [
        "-p",
        "no:terminal",  # the progress bar and the summary below replace pytest's output
        "-p",
        "no:cacheprovider",  # write nothing into the installed package
        "-o",
        "addopts=",  # a project's addopts may name options of the terminal plugin
        "--continue-on-collection-errors",  # a module that does not import is an error; the others still run
    ]
    if args.backend_module:
        argv += ["--wia-backend-module", args.backend_module]
    else:
        argv += ["--wia-backend", args.backend]
    for option in args.option:
        argv += ["--wia-option", option]
    for pattern in args.select:
        argv += ["--wia-select", pattern]
    if args.quick:
        argv.append("--wia-quick")
    for flag, value in (
        ("--wia-skip-file", args.skip_file),
        ("--wia-report-json", args.json),
        ("--wia-report-md", args.markdown),
        ("--wia-report-junit", args.junitxml),
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
        if suite is not None and (suite.results or suite.inventory):
            self.report = suite.run_report()


def print_lines(console: Console, lines: Sequence[Line]) -> None:
    for text, style in lines:
        console.print(text, style=_STYLE.get(style), highlight=False, markup=False, soft_wrap=True)


def rule(console: Console, text: str) -> None:
    """A heading line: rich's rule on a terminal, plain ASCII in a log."""
    if console.is_terminal:
        console.rule(f"[bold red]{text}")
    else:
        console.print(f"---- {text} ----", highlight=False, markup=False)


def print_sections(console: Console, report: RunReport) -> None:
    table = Table(title="Results per section")
    table.add_column("section", no_wrap=True)
    table.add_column("title")
    for column in ("passed", "failed", "errors", "unsupported", "n/a", "skipped", "time (s)"):
        table.add_column(column, justify="right", no_wrap=True)
    for s in report.sections:
        outcomes = ("passed", "failed", "error", "not supported", "not applicable", "skipped")
        cells = [str(s.counts.get(o, 0)) for o in outcomes]
        table.add_row(s.section, s.title, *cells, f"{s.duration_s:.2f}")
    print_table(console, table)


def print_report(console: Console, report: RunReport, quiet: bool) -> None:
    """The summary (counts, verdicts and why) and every failure with its replay command."""
    if not quiet:
        print_sections(console, report)
    print_lines(console, summary_lines(report))
    problems = report.problems
    if problems:
        rule(console, f"{len(problems)} failed or errored")
        print_lines(console, failure_lines(problems))


def run(argv: Sequence[str]) -> int:
    ours, extra = _split_at_dashes(argv)
    parser = build_parser()
    args, unknown = parser.parse_known_args(ours)
    console = make_console()
    try:
        check_run_arguments(args)
    except UsageProblem as e:
        err = make_console(stderr=True)
        err.print(f"wia-conformance: {e}", style="bold red", highlight=False, markup=False, soft_wrap=True)
        return USAGE
    if args.hypothesis_seed is not None:
        console.print(f"hypothesis seed: {args.hypothesis_seed}", highlight=False)
    plugin = ProgressPlugin(console, show=not args.quiet and console.is_terminal)  # a bar in a log is noise
    rc = pytest.main(pytest_arguments(args, [*unknown, *extra]), plugins=[plugin])
    for nodeid, text in plugin.collect_errors:
        rule(console, "collection error")
        console.print(nodeid, style="bold red", highlight=False, markup=False)
        console.print(text, markup=False, highlight=False)
    if plugin.interrupted:
        console.print(f"stopped: {plugin.interrupted}", style="bold red", highlight=False, markup=False)
    report = plugin.report
    if report is not None:
        print_report(console, report, args.quiet)
    if rc == pytest.ExitCode.USAGE_ERROR:
        return USAGE
    if rc == pytest.ExitCode.NO_TESTS_COLLECTED and not plugin.collect_errors:
        console.print("no tests selected", style="yellow")
        return 0
    if rc != pytest.ExitCode.OK:
        if report is None or not report.executed:
            console.print(f"the suite did not run (pytest exit status {int(rc)})", style="bold red")
        return 1
    return 0


def _split_at_dashes(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """Our arguments, and those after ``--`` (pytest's)."""
    args = list(argv)
    if "--" in args:
        i = args.index("--")
        return args[:i], args[i + 1 :]
    return args, []


# -- coverage -------------------------------------------------------------------------------------------------------


def print_coverage(console: Console, cov: Coverage) -> None:
    """One line per requirement (title last, so lines stay readable in a narrow log), then the problems."""
    header = f"{'requirement':<12} {'level':>5} {'tests':>5}  {'claimed':<7}  title"
    console.print(header, style="bold", highlight=False)
    for row in cov.rows:
        style = "red" if row.claimed and not row.tests else ("dim" if not row.claimed else None)
        text = f"{row.id:<12} {row.level:>5} {row.tests:>5}  {'yes' if row.claimed else 'no':<7}  {row.title}"
        console.print(text, style=style, highlight=False, markup=False, soft_wrap=True)
    n_claimed = sum(r.claimed for r in cov.rows)
    unclaimed = ", ".join(r.id for r in cov.rows if not r.claimed)
    console.print(f"{n_claimed} of {len(cov.rows)} requirements claimed, {cov.tests} tests", highlight=False)
    if unclaimed:
        console.print(f"not in this suite version: {unclaimed}", highlight=False, soft_wrap=True)
    for warning in cov.warnings:
        console.print(f"warning: {warning}", style="yellow", highlight=False, markup=False)
    for problem in cov.problems:
        console.print(f"problem: {problem}", style="bold red", highlight=False, markup=False)


def coverage(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="wia-conformance coverage",
        description="The requirement matrix: each SPEC.md requirement, its level and title, the number of tests "
        "tagged with it and whether this suite version claims it. Exit status 1 if a claimed requirement has no "
        "test, a test names an ID not in SPEC.md, or the suite does not collect. No backend is used.",
    )
    parser.add_argument("--json", metavar="PATH", help="write the matrix as JSON")
    args = parser.parse_args(argv)
    console = make_console()
    cov, errors = collect_coverage(SUITE_DIR)
    print_coverage(console, cov)
    for error in errors:
        console.print(f"collection error: {error}", style="bold red", highlight=False, markup=False)
    if args.json:
        Path(args.json).write_text(cov.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return 1 if cov.problems or errors else 0


# -- report ---------------------------------------------------------------------------------------------------------


def report(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="wia-conformance report",
        description="Show a saved JSON result (from --json) again, and optionally write it as Markdown or JUnit XML. "
        "Runs nothing. Exit status 1 if the result has failed or errored tests.",
    )
    parser.add_argument("result", metavar="RESULT.json")
    parser.add_argument("--markdown", metavar="PATH", help="write a Markdown report")
    parser.add_argument("--junitxml", metavar="PATH", help="write JUnit XML")
    parser.add_argument("-q", "--quiet", action="store_true", help="no section table")
    args = parser.parse_args(argv)
    console = make_console()
    try:
        saved = RunReport.model_validate_json(Path(args.result).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        console.print(f"wia-conformance report: cannot read {args.result}: {e}", style="bold red", markup=False)
        return USAGE
    print_report(console, saved, args.quiet)
    if args.markdown:
        Path(args.markdown).write_text(render_markdown(saved), encoding="utf-8")
    if args.junitxml:
        Path(args.junitxml).write_text(render_junit(saved), encoding="utf-8")
    return 1 if saved.problems else 0


COMMANDS = {"run": run, "coverage": coverage, "report": report}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in COMMANDS:
        return COMMANDS[args[0]](args[1:])
    return run(args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
