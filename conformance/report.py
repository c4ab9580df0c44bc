"""Results of a conformance run: spec sections, conformance levels (SPEC.md 3.1, binding), verdicts, reports.

Pure data and functions: the plugin fills :class:`TestResult` records from pytest's reports, the CLI and the
``--wia-report-*`` options render a :class:`RunReport`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Outcome = Literal["passed", "failed", "not supported", "skipped"]
OUTCOMES: tuple[Outcome, ...] = ("passed", "failed", "not supported", "skipped")

SECTION_TITLES: dict[str, str] = {
    "3.1": "Progressive disclosure",
    "3.2": "Device discovery and enumeration",
    "3.2.1": "Capabilities",
    "3.3": "Contexts",
    "3.4": "Streams and asynchronous execution",
    "3.4.1": "Dependencies and events",
    "3.5.1": "Memory types",
    "3.5.2": "Memory pools",
    "3.6.1": "High-level operation library",
    "3.6.2": "Custom kernels",
    "3.7": "Tensor operations",
    "3.8": "Synchronization",
    "3.9": "Errors and recovery",
    "3.10": "Profiling",
}

LEVEL_SECTIONS: dict[int, tuple[str, ...]] = {
    1: ("3.2", "3.2.1", "3.3", "3.4", "3.4.1", "3.5.1", "3.7", "3.8", "3.9"),
    2: ("3.5.2", "3.6.1", "3.10"),
    3: ("3.6.2",),
}
"""The sections each level adds (SPEC.md 3.1, binding). A level includes the levels below it."""

LEVEL_NAMES = {1: "Level 1 (portable)", 2: "Level 2 (performance hints)", 3: "Level 3 (expert control)"}

REQ_LEVELS: dict[str, int] = {
    "R-3.1-02": 2,
    "R-3.1-03": 3,
    "R-3.2.1-04": 3,  # peer-to-peer
    "R-3.5.1-04": 3,  # unified memory
    "R-3.5.1-05": 3,  # managed memory
    "R-3.8-03": 3,  # peer barriers
    "R-3.8-04": 3,  # fences
}
"""Requirements whose level is not their section's (SPEC.md 3.1: Level 3 adds peer-to-peer, fences, peer
barriers, unified and managed memory; 3.8 counts for Level 1 only in its stream, context and event parts).
R-3.2.1-03 stays Level 1: its DEVICE-tensor path is portable; tests of its unified path also carry R-3.5.1-04."""

_REQ = re.compile(r"^R-(\d+(?:\.\d+)*)-\d+$")
_MODULE = re.compile(r"(?:^|[/\\.])test_(\d+(?:_\d+)*)_[A-Za-z]")


def section_of_req(req: str) -> str:
    """``R-3.4.1-02`` -> ``3.4.1``."""
    match = _REQ.match(req)
    if not match:
        raise ValueError(f"{req!r} is not a requirement ID (R-<section>-<nn>)")
    return match.group(1)


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
        return section_of_req(reqs[0])
    return "unknown"


def _section_key(section: str) -> tuple[int, ...]:
    return tuple(int(p) for p in section.split(".")) if re.fullmatch(r"\d+(\.\d+)*", section) else (1 << 30,)


def level_of_section(section: str) -> int | None:
    for level, sections in LEVEL_SECTIONS.items():
        if section in sections:
            return level
    return None


def level_of_req(req: str) -> int:
    """The conformance level a requirement belongs to (1 unless SPEC.md 3.1 puts it higher)."""
    if req in REQ_LEVELS:
        return REQ_LEVELS[req]
    section = section_of_req(req)
    while section:
        level = level_of_section(section)
        if level is not None:
            return level
        section = section.rpartition(".")[0]
    return 1


def sections_of_level(level: int) -> tuple[str, ...]:
    return tuple(s for lv in sorted(LEVEL_SECTIONS) if lv <= level for s in LEVEL_SECTIONS[lv])


@dataclass
class TestResult:
    """One test's record in a report."""

    __test__ = False  # not a pytest test class

    nodeid: str
    section: str
    reqs: list[str]
    outcome: Outcome
    duration_s: float = 0.0
    message: str = ""
    details: str = ""

    @property
    def level(self) -> int:
        return max((level_of_req(r) for r in self.reqs), default=1)

    @property
    def capability(self) -> str | None:
        """The capability a "not supported" outcome names (the first word after ``not supported:``)."""
        if self.outcome != "not supported":
            return None
        rest = self.message.split(":", 1)[1].split() if ":" in self.message else []
        return rest[0] if rest else None


def classify_skip(reason: str) -> Outcome:
    """A skip whose reason starts with ``not supported:`` is "not supported"; any other skip is "skipped"."""
    text = reason.strip()
    if text.startswith("Skipped:"):
        text = text[len("Skipped:") :].strip()
    return "not supported" if text.lower().startswith("not supported:") else "skipped"


@dataclass
class SectionSummary:
    section: str
    title: str
    counts: dict[str, int]
    duration_s: float

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass
class LevelVerdict:
    level: int
    name: str
    verdict: Literal["PASS", "FAIL", "INCOMPLETE"]
    counts: dict[str, int]
    missing_sections: list[str] = field(default_factory=list)
    not_supported: list[str] = field(default_factory=list)
    reason: str = ""


def count(results: Iterable[TestResult]) -> dict[str, int]:
    counts: dict[str, int] = dict.fromkeys(OUTCOMES, 0)
    for r in results:
        counts[r.outcome] += 1
    return counts


def summarize_sections(results: Sequence[TestResult]) -> list[SectionSummary]:
    sections = sorted({r.section for r in results}, key=_section_key)
    out = []
    for s in sections:
        rs = [r for r in results if r.section == s]
        out.append(SectionSummary(s, SECTION_TITLES.get(s, ""), count(rs), sum(r.duration_s for r in rs)))
    return out


def level_verdicts(results: Sequence[TestResult]) -> list[LevelVerdict]:
    """Per level: FAIL if any of its tests failed; INCOMPLETE if one of its sections has no test in this run or a
    test was skipped for a reason other than an unclaimed (optional) capability; else PASS."""
    verdicts = []
    for level in sorted(LEVEL_SECTIONS):
        rs = [r for r in results if r.level <= level]
        counts = count(rs)
        covered = {r.section for r in rs}
        missing = [s for s in sections_of_level(level) if s not in covered]
        unsupported = sorted({r.capability or "?" for r in rs if r.outcome == "not supported"})
        if counts["failed"]:
            verdict: Literal["PASS", "FAIL", "INCOMPLETE"] = "FAIL"
            reason = f"{counts['failed']} test(s) failed"
        elif missing:
            verdict = "INCOMPLETE"
            reason = f"no tests for section(s) {', '.join(missing)}"
        elif counts["skipped"]:
            verdict = "INCOMPLETE"
            reason = f"{counts['skipped']} test(s) skipped"
        else:
            verdict = "PASS"
            reason = "all tests passed" + (" (optional features not supported are listed)" if unsupported else "")
        verdicts.append(LevelVerdict(level, LEVEL_NAMES[level], verdict, counts, missing, unsupported, reason))
    return verdicts


@dataclass
class RunReport:
    """Everything a report shows: the run's setting and its results."""

    backend: str
    options: dict[str, str]
    device: dict[str, Any] | None
    capabilities: dict[str, Any] | None
    hypothesis: str
    results: list[TestResult]
    duration_s: float = 0.0

    @property
    def counts(self) -> dict[str, int]:
        return count(self.results)

    @property
    def sections(self) -> list[SectionSummary]:
        return summarize_sections(self.results)

    @property
    def levels(self) -> list[LevelVerdict]:
        return level_verdicts(self.results)

    def to_dict(self) -> dict[str, Any]:
        return {
            "suite": "wia-conformance",
            "spec": "WIA-AI-011 chapter 3 (docs/spec/SPEC.md)",
            "backend": self.backend,
            "options": self.options,
            "device": self.device,
            "capabilities": self.capabilities,
            "hypothesis": self.hypothesis,
            "duration_s": round(self.duration_s, 3),
            "summary": self.counts,
            "sections": [
                {"section": s.section, "title": s.title, **s.counts, "duration_s": round(s.duration_s, 3)}
                for s in self.sections
            ],
            "levels": [asdict(v) for v in self.levels],
            "tests": [
                {
                    "nodeid": r.nodeid,
                    "section": r.section,
                    "reqs": r.reqs,
                    "level": r.level,
                    "outcome": r.outcome,
                    "duration_s": round(r.duration_s, 4),
                    "message": r.message,
                    "details": r.details,
                }
                for r in self.results
            ],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def to_markdown(self) -> str:
        return render_markdown(self)


def _md_cell(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text.replace("|", "\\|")


def render_markdown(report: RunReport) -> str:
    lines = ["# WIA-AI-011 conformance report", ""]
    device = report.device or {}
    lines += [
        f"- backend: `{report.backend}`" + (f" (options: {report.options})" if report.options else ""),
        f"- device 0: {device.get('name', '(none)')} ({device.get('vendor', '')})",
        f"- hypothesis: {report.hypothesis}",
        f"- duration: {report.duration_s:.1f} s",
        "- totals: " + ", ".join(f"{n} {o}" for o, n in report.counts.items()),
        "",
        "## Verdict per conformance level",
        "",
        "| level | verdict | passed | failed | not supported | skipped | notes |",
        "|---|---|---|---|---|---|---|",
    ]
    for v in report.levels:
        notes = v.reason
        if v.not_supported:
            notes += "; not supported: " + ", ".join(v.not_supported)
        c = v.counts
        lines.append(
            f"| {v.name} | **{v.verdict}** | {c['passed']} | {c['failed']} | {c['not supported']} | {c['skipped']} "
            f"| {_md_cell(notes, 400)} |"
        )
    lines += [
        "",
        "A level passes when all its tests pass; a feature the device does not claim (an optional "
        "capability) is reported as not supported and does not fail the level.",
        "",
    ]
    lines += [
        "## Sections",
        "",
        "| section | title | passed | failed | not supported | skipped |",
        "|---|---|---|---|---|---|",
    ]
    for s in report.sections:
        c = s.counts
        lines.append(
            f"| {s.section} | {s.title} | {c['passed']} | {c['failed']} | {c['not supported']} | {c['skipped']} |"
        )
    for s in report.sections:
        lines += [
            "",
            f"### {s.section} {s.title}".rstrip(),
            "",
            "| test | requirements | outcome | time (s) | message |",
            "|---|---|---|---|---|",
        ]
        for r in (r for r in report.results if r.section == s.section):
            name = r.nodeid.split("::", 1)[-1]
            cells = [
                f"`{_md_cell(name, 120)}`",
                ", ".join(r.reqs),
                r.outcome,
                f"{r.duration_s:.3f}",
                _md_cell(r.message),
            ]
            lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return "\n".join(lines)
