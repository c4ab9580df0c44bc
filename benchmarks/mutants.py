"""How strong is the conformance suite? Run it on mutant backends and count the ones it kills.

Each mutant (``benchmarks/mutant_backends.py``) is the simulator backend with one bug a vendor could ship, and names
the requirement IDs whose tests should catch it. This script runs ``wia-conformance`` on the unmutated simulator
first (the control: it must pass, or the table means nothing), then on every mutant, each in its own process
(``--backend-module benchmarks.mutants:make --option mutant=NAME --json ...``), and reads the JSON reports.

A mutant is **killed** when at least one test failed (or errored) and at least one failing test is tagged with one
of the mutant's expected requirement IDs; "caught elsewhere" means tests failed, but none of the expected
requirements'. Mutants of scope ``docs`` break behaviour that only the API docs constrain (NaN propagation, integer
wrap-around), which the suite deliberately does not test; they are counted apart.

Run from the repository root::

    python benchmarks/mutants.py [--only NAME[,NAME]] [--jobs 2] [--quick] [--hardware wia-tiny] [-k EXPR]

``--list`` prints the mutants. The exit status is 0 whatever survives; the survivors are printed at the end.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mutant_backends import HYPOTHESIS_PROFILE, MUTANTS, Mutant, make
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from wia_hal.backends.sim import SimBackend

ROOT = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent
FACTORY = "benchmarks.mutants:make"
CONTROL = Mutant("none", "the unmodified simulator backend (control)", (), SimBackend)


@dataclass
class Outcome:
    mutant: Mutant
    seconds: float
    status: str = "ran"
    """``ran``; ``timeout``; ``no report`` (the run ended without writing its JSON: see ``log``)."""
    tests: int = 0
    failing: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    """(node id, requirement IDs) of every failed or errored test."""
    log: str = ""

    @property
    def matching(self) -> list[str]:
        """Failing tests tagged with one of the expected requirement IDs."""
        expected = set(self.mutant.expects)
        return [nodeid for nodeid, reqs in self.failing if expected & set(reqs)]

    @property
    def killed(self) -> bool:
        return bool(self.matching)

    @property
    def verdict(self) -> str:
        if self.status != "ran":
            return self.status
        if self.killed:
            return "killed"
        return "caught elsewhere" if self.failing else "SURVIVED"

    def failing_reqs(self, limit: int = 4) -> str:
        """The failing tests' requirement IDs, most frequent first (expected ones first of all)."""
        counts = collections.Counter(req for _, reqs in self.failing for req in reqs)
        expected = set(self.mutant.expects)
        ranked = sorted(counts, key=lambda r: (r not in expected, -counts[r], r))
        shown = [f"{r}×{counts[r]}" if counts[r] > 1 else r for r in ranked[:limit]]
        return ", ".join(shown) + (f", +{len(ranked) - limit}" if len(ranked) > limit else "")


def conformance_command() -> list[str]:
    script = Path(sys.executable).with_name("wia-conformance")
    return [str(script)] if script.exists() else [sys.executable, "-m", "conformance.cli"]


def supports_quick() -> bool:
    help_text = subprocess.run([*conformance_command(), "--help"], capture_output=True, text=True, cwd=ROOT).stdout
    return "--quick" in help_text


def run_one(mutant: Mutant, args: argparse.Namespace, out_dir: Path, quick: bool) -> Outcome:
    report = out_dir / f"{mutant.name}.json"
    command = [
        *conformance_command(),
        "--backend-module",
        FACTORY,
        "--option",
        f"mutant={mutant.name}",
        "--option",
        f"hardware={args.hardware}",
        "--json",
        str(report),
        "-q",
    ]
    if quick:
        command.append("--quick")
    if args.k:
        command += ["-k", args.k]
    if not args.shrink:
        command += ["--", "-p", "mutant_backends", "--hypothesis-profile", HYPOTHESIS_PROFILE]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), str(HERE), env.get("PYTHONPATH", "")) if p
    )  # benchmarks.mutants (the factory) and mutant_backends (its sibling) importable
    started = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return Outcome(mutant, time.perf_counter() - started, status="timeout")
    seconds = time.perf_counter() - started
    log = (done.stdout + done.stderr)[-3000:]
    if not report.exists():
        return Outcome(mutant, seconds, status="no report", log=log)
    data: dict[str, Any] = json.loads(report.read_text())
    tests = [t for t in data.get("tests", []) if t.get("outcome") != "not run"]
    failing = [(t["nodeid"], tuple(t.get("reqs", ()))) for t in tests if t.get("outcome") in ("failed", "error")]
    return Outcome(mutant, seconds, tests=len(tests), failing=failing, log=log)


def print_table(console: Console, outcomes: Sequence[Outcome], title: str) -> None:
    table = Table(title=title, show_lines=False)
    table.add_column("mutant", no_wrap=True)
    table.add_column("description")
    table.add_column("expected")
    table.add_column("killed", no_wrap=True)
    table.add_column("failing", justify="right", no_wrap=True)
    table.add_column("failing tests' requirements")
    table.add_column("s", justify="right", no_wrap=True)
    style = {"killed": "green", "caught elsewhere": "yellow", "SURVIVED": "bold red"}
    for o in outcomes:
        name = o.mutant.name + (" (docs)" if o.mutant.scope == "docs" else "")
        verdict = o.verdict
        table.add_row(
            name,
            escape(o.mutant.description),
            ", ".join(o.mutant.expects),
            f"[{style.get(verdict, 'bold red')}]{'yes' if o.killed else 'no'}[/] " + ("" if o.killed else verdict),
            str(len(o.failing)),
            o.failing_reqs(),
            f"{o.seconds:.0f}" if o.seconds else "",
        )
    console.print(table)


def run_all(
    console: Console, args: argparse.Namespace, names: Sequence[str], out_dir: Path, quick: bool
) -> tuple[list[Outcome], float, bool]:
    """The control, then every mutant of ``names``: the outcomes, the mutants' wall time and whether the control
    passed."""
    control_ok = True
    if not args.no_control:
        control = run_one(CONTROL, args, out_dir, quick)
        control_ok = control.status == "ran" and control.tests > 0 and not control.failing
        line = (
            f"control (unmutated sim): {control.tests} tests, {len(control.failing)} failing, {control.seconds:.0f} s"
        )
        console.print(f"[{'green' if control_ok else 'bold red'}]{line}[/]", highlight=False)
        if not control_ok:
            console.print("[bold red]the control does not pass: the kill table below means little[/bold red]")
            for nodeid, reqs in control.failing[:20]:
                console.print(f"  FAILED {nodeid} ({', '.join(reqs)})", highlight=False, markup=False)
            if control.status != "ran" or not control.tests:
                console.print(control.log, markup=False, highlight=False)
    started = time.perf_counter()
    outcomes = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for outcome in pool.map(lambda n: run_one(MUTANTS[n], args, out_dir, quick), names):
            outcomes.append(outcome)
            line = (
                f"  {outcome.mutant.name}: {outcome.verdict} ({len(outcome.failing)} failing, {outcome.seconds:.0f} s)"
            )
            console.print(line, highlight=False)
    return outcomes, time.perf_counter() - started, control_ok


def save(path: Path, outcomes: Sequence[Outcome], wall: float, control_ok: bool, title: str) -> None:
    """The outcomes as JSON (``--from`` prints their table again)."""
    rows = [
        {"mutant": o.mutant.name, "seconds": o.seconds, "status": o.status, "tests": o.tests, "failing": o.failing}
        for o in outcomes
    ]
    path.write_text(json.dumps({"title": title, "wall_s": wall, "control_ok": control_ok, "outcomes": rows}, indent=1))


def load(path: Path) -> tuple[list[Outcome], float, bool, str]:
    data = json.loads(path.read_text())
    outcomes = [
        Outcome(
            MUTANTS[r["mutant"]],
            r["seconds"],
            status=r["status"],
            tests=r["tests"],
            failing=[(nodeid, tuple(reqs)) for nodeid, reqs in r["failing"]],
        )
        for r in data["outcomes"]
        if r["mutant"] in MUTANTS
    ]
    return outcomes, data["wall_s"], data["control_ok"], data["title"]


def summarize(console: Console, outcomes: Sequence[Outcome], wall: float, control_ok: bool, jobs: int) -> None:
    for scope, label in (("spec", "spec-constrained"), ("docs", "docs-only (NaN, wrap-around, operand rounding)")):
        group = [o for o in outcomes if o.mutant.scope == scope]
        if group:
            killed = sum(o.killed for o in group)
            console.print(
                f"kill rate, {label} mutants: {killed}/{len(group)} ({100 * killed / len(group):.0f}%)",
                highlight=False,
            )
    killed = sum(o.killed for o in outcomes)
    console.print(
        f"[bold]kill rate, all mutants: {killed}/{len(outcomes)} ({100 * killed / max(len(outcomes), 1):.0f}%)[/bold]"
        f"; wall time {wall:.0f} s for {len(outcomes)} suite runs, {jobs} at a time"
        + ("" if control_ok else "  [bold red](control failed)[/bold red]"),
        highlight=False,
    )
    survivors = [o for o in outcomes if not o.killed]
    if not survivors:
        console.print("[bold green]every mutant was killed by a test of an expected requirement[/bold green]")
        return
    console.print("[bold red]not killed:[/bold red]")
    for o in survivors:
        detail = f"{o.verdict}" + (f"; failing: {o.failing_reqs()}" if o.failing else "")
        console.print(
            f"  {o.mutant.name} (scope {o.mutant.scope}; {detail}): {o.mutant.description}",
            highlight=False,
            markup=False,
        )
        if o.status == "no report":
            console.print(o.log, markup=False, highlight=False)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--only", help="comma-separated mutant names (default: all)")
    parser.add_argument("--jobs", type=int, default=2, help="mutants run at once (default 2)")
    parser.add_argument("--quick", action="store_true", help="the suite's smoke subset (wia-conformance --quick)")
    parser.add_argument("--hardware", default="wia-tiny", help="hardware model (default wia-tiny)")
    parser.add_argument("-k", help="only suite tests matching EXPR (pytest's -k), for a quick look")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per suite run (default 900)")
    parser.add_argument("--no-control", action="store_true", help="skip the run of the unmutated simulator")
    parser.add_argument("--keep", metavar="DIR", help="keep the JSON reports and the outcomes (mutants.json) in DIR")
    parser.add_argument("--from", dest="from_dir", metavar="DIR", help="print the table of a --keep DIR again")
    parser.add_argument(
        "--shrink", action="store_true", help="let hypothesis shrink failing examples (slower; same kills)"
    )
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args(argv)
    console = Console(width=max(Console().width, 200))

    if args.list:
        for m in MUTANTS.values():
            console.print(f"{m.name:34} {m.scope:4} {', '.join(m.expects):40} {m.description}", highlight=False)
        return 0
    if args.from_dir:
        outcomes, wall, control_ok, title = load(Path(args.from_dir) / "mutants.json")
        print_table(console, outcomes, title)
        summarize(console, outcomes, wall, control_ok, args.jobs)
        return 0
    names = [n.strip() for n in args.only.split(",")] if args.only else list(MUTANTS)
    unknown = [n for n in names if n not in MUTANTS]
    if unknown:
        console.print(f"[red]unknown mutants: {', '.join(unknown)}[/red]")
        return 0
    quick = False
    if args.quick:
        quick = supports_quick()
        if not quick:
            console.print("[yellow]this wia-conformance has no --quick: running the full suite[/yellow]")
    suite = "the quick subset" if quick else ("tests matching -k " + repr(args.k) if args.k else "the full suite")
    title = f"Mutant backends ({suite}, {args.hardware})"
    console.print(f"[bold]Mutation testing of the conformance suite[/bold] ({suite}, hardware {args.hardware})")
    with tempfile.TemporaryDirectory(prefix="wia-mutants-") as tmp:
        out_dir = Path(args.keep) if args.keep else Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        outcomes, wall, control_ok = run_all(console, args, names, out_dir, quick)
        save(out_dir / "mutants.json", outcomes, wall, control_ok, title)
    print_table(console, outcomes, title)
    summarize(console, outcomes, wall, control_ok, args.jobs)
    return 0


__all__ = ["MUTANTS", "main", "make"]

if __name__ == "__main__":
    raise SystemExit(main())
