"""Results of a conformance run and the verdict per conformance level (SPEC.md 3.1, binding).

Pure data and functions: the plugin fills :class:`TestResult` records from pytest's reports and builds a
:class:`RunReport` with :func:`build_report`; :mod:`conformance.render` and the CLI show it. A report is saved and
loaded as JSON (``RunReport.model_validate_json``), so ``wia-conformance report`` re-renders one without running.

Verdicts count requirements, not sections: a level passes only when every requirement of it (and of the levels
below) that the suite claims was shown in this run: at least one test passed, or all of its tests were "not
supported" (an optional capability the device does not claim), and no test of the level failed or errored. A
"not applicable" test needs a backend extension beyond the spec (fault injection) that the backend does not
offer: it is counted apart and never weighs on a verdict.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, computed_field

from conformance import requirements as rq

Outcome = Literal["passed", "failed", "error", "not supported", "not applicable", "skipped", "not run"]
OUTCOMES: tuple[Outcome, ...] = (
    "passed", "failed", "error", "not supported", "not applicable", "skipped", "not run"
)  # fmt: skip
"""``error``: the suite itself broke (a fixture, setup or teardown failed, or the test raised something that is
neither an assertion failure nor a ``WiaError``). ``not applicable``: the test reaches the spec's behaviour through
an optional backend extension (fault injection) that the backend lacks. ``not run``: collected but deselected
(``--select``, ``--quick``, ``-k``) or never reached; such records only feed the verdicts."""

Verdict = Literal["PASS", "FAIL", "INCOMPLETE"]
ReqStatus = Literal[
    "passed",
    "not supported",
    "not applicable",
    "failed",
    "error",
    "skipped",
    "not run",
    "ran in part",
    "not in this suite version",
]

NOT_COLLECTED = "not collected"
SKIP_FILE = "skip-file"

_MODULE = re.compile(r"(?:^|[/\\.])test_(\d+(?:_\d+)*)_[A-Za-z]")


def section_of_module(path: str) -> str | None:
    """``conformance/test_3_4_1_events.py`` (or a nodeid in it) -> ``3.4.1``; None if the name has no section."""
    match = _MODULE.search(path.split("::", 1)[0])
    return match.group(1).replace("_", ".") if match else None


def section_of(nodeid: str, reqs: Sequence[str]) -> str:
    """A test's section: from its module's name, else from its first requirement ID."""
    section = section_of_module(nodeid)
    if section is not None:
        return section
    if reqs:
        return rq.section_of_req(reqs[0])
    return "unknown"


def classify_skip(reason: str) -> Outcome:
    """A skip whose reason starts with ``not supported:`` is "not supported", one with ``not applicable:`` "not
    applicable"; any other skip is "skipped"."""
    text = reason.strip()
    if text.startswith("Skipped:"):
        text = text[len("Skipped:") :].strip()
    lower = text.lower()
    if lower.startswith("not supported:"):
        return "not supported"
    return "not applicable" if lower.startswith("not applicable:") else "skipped"


class TestResult(BaseModel):
    """One test's record in a report."""

    __test__: ClassVar[bool] = False  # not a pytest test class

    nodeid: str
    section: str
    reqs: list[str]
    outcome: Outcome
    duration_s: float = 0.0
    message: str = ""
    details: str = ""
    replay: str = ""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def level(self) -> int:
        """The highest level among its requirements (a test without any counts for its section's level)."""
        levels = [rq.level_of_req(r) for r in self.reqs if r in rq.TITLES]
        if levels:
            return max(levels)
        return rq.level_of_section(self.section) or 1

    @property
    def capability(self) -> str | None:
        """The capability a "not supported" outcome names (the first word after ``not supported:``)."""
        if self.outcome != "not supported":
            return None
        rest = self.message.split(":", 1)[1].split() if ":" in self.message else []
        return rest[0] if rest else None

    @property
    def note(self) -> str:
        """Why a test was skipped or did not run, in a few words (``skip-file``, ``--select``)."""
        if self.outcome == "skipped" and self.message.startswith(SKIP_FILE):
            return SKIP_FILE
        return " ".join(self.message.split())[:80]


class SectionSummary(BaseModel):
    section: str
    title: str
    counts: dict[str, int]
    duration_s: float


class RequirementRow(BaseModel):
    """A requirement of SPEC.md in this run: what its tests did."""

    id: str
    level: int
    title: str
    claimed: bool
    status: ReqStatus
    counts: dict[str, int]
    note: str = ""


class LevelVerdict(BaseModel):
    level: int
    name: str
    verdict: Verdict
    counts: dict[str, int]
    failed: list[str] = Field(default_factory=list, description="requirements with a failed test")
    errors: list[str] = Field(default_factory=list, description="requirements with a test that errored")
    incomplete: dict[str, list[str]] = Field(
        default_factory=dict, description="why -> requirements not shown (did not run, skipped)"
    )
    not_supported: list[str] = Field(default_factory=list, description="capabilities reported as not supported")
    reason: str = ""


class RunReport(BaseModel):
    """Everything a report shows: the run's setting, its results and the verdicts computed from them."""

    suite: str = "wia-conformance"
    spec: str = "WIA-AI-011 chapter 3 (docs/spec/SPEC.md)"
    backend: str
    command: str = Field("", description="the wia-conformance command line that replays this run's setting")
    options: dict[str, str] = Field(default_factory=dict)
    device: dict[str, Any] | None = None
    capabilities: dict[str, Any] | None = None
    hypothesis: str = ""
    quick: bool = False
    select: list[str] = Field(default_factory=list)
    skip_file: str | None = None
    duration_s: float = 0.0
    summary: dict[str, int] = Field(default_factory=dict)
    sections: list[SectionSummary] = Field(default_factory=list)
    levels: list[LevelVerdict] = Field(default_factory=list)
    requirements: list[RequirementRow] = Field(default_factory=list)
    not_in_suite: list[str] = Field(default_factory=list, description="SPEC.md IDs this suite version does not test")
    tests: list[TestResult] = Field(default_factory=list)

    @property
    def executed(self) -> list[TestResult]:
        """The tests that ran (not the ``not run`` records)."""
        return [t for t in self.tests if t.outcome != "not run"]

    @property
    def problems(self) -> list[TestResult]:
        """The failed and errored tests, in run order."""
        return [t for t in self.tests if t.outcome in ("failed", "error")]

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)


def count(results: Iterable[TestResult]) -> dict[str, int]:
    counts: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
    for r in results:
        counts[r.outcome] += 1
    return counts


def summarize_sections(results: Sequence[TestResult]) -> list[SectionSummary]:
    sections = sorted({r.section for r in results}, key=rq.section_key)
    out = []
    for s in sections:
        rs = [r for r in results if r.section == s]
        title = rq.SECTION_TITLES.get(s, "")
        out.append(SectionSummary(section=s, title=title, counts=count(rs), duration_s=sum(r.duration_s for r in rs)))
    return out


def requirement_status(tests: Sequence[TestResult]) -> tuple[ReqStatus, str]:
    """A requirement's status from its tests, and a note saying why it is not shown (empty when it is). Tests not
    applicable to the backend are left out; a requirement with only such tests is "not applicable"."""
    applicable = [t for t in tests if t.outcome != "not applicable"]
    if tests and not applicable:
        return "not applicable", ""
    tests = applicable
    outcomes = {t.outcome for t in tests}
    if "error" in outcomes:
        return "error", ""
    if "failed" in outcomes:
        return "failed", ""
    if not tests:
        return "not run", NOT_COLLECTED
    not_run = sorted({t.note for t in tests if t.outcome == "not run"})
    if not_run:
        return ("ran in part" if outcomes != {"not run"} else "not run"), ", ".join(not_run)
    skipped = sorted({t.note for t in tests if t.outcome == "skipped"})
    if skipped:
        return "skipped", ", ".join(skipped)
    return ("passed" if "passed" in outcomes else "not supported"), ""


def _tests_by_req(results: Sequence[TestResult], level: int) -> dict[str, list[TestResult]]:
    by_req: dict[str, list[TestResult]] = {}
    for t in results:
        if t.level <= level:
            for r in t.reqs:
                by_req.setdefault(r, []).append(t)
    return by_req


def _join(reqs: Iterable[str]) -> str:
    return ", ".join(sorted(set(reqs), key=rq.req_key))


def _named(tests: Iterable[TestResult]) -> list[str]:
    """The requirements of ``tests`` (a collection error, which has none, is named by its module)."""
    names = {r for t in tests for r in (t.reqs or [f"collection of {t.nodeid}"])}
    return sorted(names, key=rq.req_key)


def level_verdict(level: int, results: Sequence[TestResult], quick: bool = False) -> LevelVerdict:
    """FAIL if a test of the level failed or errored; INCOMPLETE if a claimed requirement of the level was not
    shown (it did not run, ran in part, or was skipped for a reason other than an unclaimed capability), or the run
    was ``--quick``; else PASS. Not-supported capabilities are listed; they do not fail the level."""
    rs = [r for r in results if r.level <= level]
    by_req = _tests_by_req(rs, level)
    failed = _named(t for t in rs if t.outcome == "failed")
    errors = _named(t for t in rs if t.outcome == "error")
    incomplete: dict[str, list[str]] = {}
    for req in rq.claimed_of_level(level):
        status, note = requirement_status(by_req.get(req, []))
        if status in ("not run", "ran in part", "skipped"):  # "not applicable" is not held against the level
            why = "did not run" if status == "not run" else status
            incomplete.setdefault(f"{why} ({note})", []).append(req)
    unsupported = sorted({r.capability or "?" for r in rs if r.outcome == "not supported"})
    verdict: Verdict
    if failed or errors:
        verdict = "FAIL"
        parts = [f"{_join(failed)} failed"] if failed else []
        parts += [f"{_join(errors)} errored (the suite broke)"] if errors else []
        reason = "FAIL: " + "; ".join(parts)
    elif incomplete or quick:
        verdict = "INCOMPLETE"
        # a --quick run leaves most requirements in part by design: name only those it did not show at all
        shown = {why: reqs for why, reqs in incomplete.items() if not (quick and why == "ran in part (--quick)")}
        parts = [f"{_join(reqs)} {why}" for why, reqs in shown.items()]
        if quick:
            parts.insert(0, "--quick is a smoke run, not a verdict (few parametrizations and examples)")
        reason = "INCOMPLETE: " + "; ".join(parts)
    else:
        verdict = "PASS"
        reason = f"PASS: all {len(rq.claimed_of_level(level))} claimed requirements shown"
    return LevelVerdict(
        level=level,
        name=rq.LEVEL_NAMES[level],
        verdict=verdict,
        counts=count(rs),
        failed=failed,
        errors=errors,
        incomplete=incomplete,
        not_supported=unsupported,
        reason=reason,
    )


def level_verdicts(results: Sequence[TestResult], quick: bool = False) -> list[LevelVerdict]:
    return [level_verdict(level, results, quick) for level in sorted(rq.LEVEL_SECTIONS)]


def requirement_rows(results: Sequence[TestResult]) -> list[RequirementRow]:
    """Every SPEC.md requirement with its status over all its tests in the run."""
    by_req = _tests_by_req(results, max(rq.LEVEL_SECTIONS))
    rows = []
    for req in rq.REQUIREMENTS.values():
        tests = by_req.get(req.id, [])
        status, note = requirement_status(tests)
        if not req.claimed and not tests:
            status, note = "not in this suite version", ""
        row = RequirementRow(
            id=req.id, level=req.level, title=req.title, claimed=req.claimed, status=status, counts=count(tests),
            note=note,
        )  # fmt: skip
        rows.append(row)
    return rows


def build_report(results: Sequence[TestResult], **setting: Any) -> RunReport:
    """A :class:`RunReport` of ``results`` with its summary, sections, requirement rows and level verdicts;
    ``setting`` fills the other fields (``backend``, ``options``, ``device``, ...)."""
    quick = bool(setting.get("quick", False))
    return RunReport(
        **setting,
        summary=count(results),
        sections=summarize_sections(results),
        levels=level_verdicts(results, quick),
        requirements=requirement_rows(results),
        not_in_suite=sorted(rq.NOT_CLAIMED, key=rq.req_key),
        tests=list(results),
    )
