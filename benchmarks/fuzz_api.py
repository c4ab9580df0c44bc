"""Fuzz the public API for minutes: the abuse state machine of ``tests/abuse`` (the one ``tests/test_api_abuse.py``
runs briefly in CI), in batches of random sequences until the time is up.

Each batch is one hypothesis run with its own seed (``--seed`` plus the batch number), not derandomized and with no
example database, so every batch explores new sequences and any batch reproduces from its seed. A failure is
shrunk to its minimal sequence of calls and printed with it; the run goes on with the next batch, and repeats of a
failure already seen are counted, not printed again. The exit code is 1 when anything failed.

Run: ``python benchmarks/fuzz_api.py --minutes 5 [--seed S] [--backend sim|reference]``.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.reporting import with_reporter
from hypothesis.stateful import run_state_machine_as_test

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the machine is test code, found from the checkout (as its tests do)
from abuse import machine_for  # noqa: E402
from abuse.core import COUNTS, RULE_SECONDS  # noqa: E402

EXAMPLES_PER_BATCH = 50
"""Sequences per hypothesis run: about 10 s of generation on the simulator, so the run ends close to ``--minutes``
(a failing batch takes longer: hypothesis shrinks for at most 5 minutes)."""


@dataclass
class Failure:
    """One distinct failure: the first minimal sequence found, the seed of its batch, and how often it recurred."""

    summary: str
    seed: int
    report: str
    count: int = 1


@dataclass
class Totals:
    batches: int = 0
    failures: dict[str, Failure] = field(default_factory=dict)


def _signature(error: BaseException) -> str:
    """What identifies a failure across sequences: the exception and its first message line, without the numbers
    and object ids that differ from one sequence to the next."""
    errors = getattr(error, "exceptions", None) or [error]  # hypothesis raises a group for several distinct bugs
    lines = []
    for e in errors:
        first = re.sub(r"0x[0-9a-f]+|\d+", "N", (str(e).strip().splitlines() or [""])[0])
        lines.append(f"{type(e).__name__}: {first[:200]}")
    return " | ".join(sorted(lines))


def run_batch(backend: str, seed: int, steps: int, examples: int, totals: Totals) -> None:
    machine = hypothesis_seed(seed)(machine_for(backend))
    config = settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,  # the machine's own per-call guard (RULE_SECONDS) catches hangs
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )
    reported: list[str] = []
    try:
        with with_reporter(reported.append):
            run_state_machine_as_test(machine, settings=config)
    except BaseException as error:  # a failure of the machine, shrunk: report it and go on
        if isinstance(error, KeyboardInterrupt):
            raise
        summary = _signature(error)
        known = totals.failures.get(summary)
        if known is not None:
            known.count += 1
            print(f"  seed {seed}: the failure already reported ({summary[:100]}...) again")
            return
        detail = "".join(traceback.format_exception(error, limit=-3))
        totals.failures[summary] = Failure(summary, seed, "\n".join(reported) + "\n" + detail)
        print(f"\nFAILURE (batch seed {seed}, backend {backend}): {summary}")
        print("\n".join(reported))
        print(detail)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--minutes", type=float, required=True, help="how long to fuzz (wall-clock minutes)")
    parser.add_argument("--seed", type=int, default=None, help="the first batch's seed (default: from the clock)")
    parser.add_argument("--backend", choices=["sim", "reference"], default="sim")
    parser.add_argument("--steps", type=int, default=50, help="the most steps of one sequence (default 50)")
    parser.add_argument("--examples", type=int, default=EXAMPLES_PER_BATCH, help="sequences per batch")
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.steps < 1 or args.examples < 1:
        parser.error("--minutes, --steps and --examples must be positive")
    first_seed = args.seed if args.seed is not None else int(time.time())
    print(
        f"fuzzing the wia API on {args.backend} for {args.minutes:g} min: seed {first_seed}, up to {args.steps} "
        f"steps a sequence, {args.examples} sequences a batch, {RULE_SECONDS:.0f} s per call before it counts as hung"
    )
    started = time.monotonic()
    totals = Totals()
    while time.monotonic() - started < args.minutes * 60:
        seed = first_seed + totals.batches
        run_batch(args.backend, seed, args.steps, args.examples, totals)
        totals.batches += 1
        print(
            f"batch {totals.batches} (seed {seed}): {COUNTS.sequences} sequences, {COUNTS.steps} steps, "
            f"{COUNTS.calls} calls ({COUNTS.errors} refused with an allowed error), {COUNTS.values_checked} "
            f"results checked against NumPy; {time.monotonic() - started:.0f} s",
            flush=True,
        )
    elapsed = time.monotonic() - started
    print(
        f"\n{args.backend}: {totals.batches} batches in {elapsed / 60:.1f} min (seeds {first_seed}.."
        f"{first_seed + totals.batches - 1}): {COUNTS.sequences} sequences, {COUNTS.steps} steps, {COUNTS.calls} "
        f"calls, {COUNTS.errors} refused with an allowed error, {COUNTS.values_checked} results checked"
    )
    if not totals.failures:
        print("no failures")
        return 0
    print(f"{len(totals.failures)} distinct failure(s):")
    for failure in totals.failures.values():
        print(f"- {failure.summary} (first in the batch of seed {failure.seed}; seen {failure.count}x)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
