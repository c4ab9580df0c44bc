"""A :class:`~conformance.report.RunReport` as text lines, Markdown and JUnit XML.

One renderer per format, all from the report alone, so a saved JSON result renders the same later
(``wia-conformance report result.json``) as during the run.
"""

from __future__ import annotations

import shlex
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from conformance.report import LevelVerdict, RunReport, TestResult

Line = tuple[str, str]
"""A line of the terminal summary and its style key (a verdict, an outcome, or "" for plain)."""

_COUNTED = ("passed", "failed", "error", "not supported", "not applicable", "skipped")


def counts_text(counts: dict[str, int]) -> str:
    """``913 passed, 0 failed, 0 errors, 10 not supported, 3 not applicable, 0 skipped`` (and ``; 5 not run`` when
    some did not)."""
    words = {"error": "errors"}
    text = ", ".join(f"{counts.get(o, 0)} {words.get(o, o)}" for o in _COUNTED)
    if counts.get("not run"):
        text += f"; {counts['not run']} not run"
    return text


def full_run_command(report: RunReport) -> str:
    """The command of a run that gives the verdict: ``report.command`` without ``--quick``."""
    args = shlex.split(report.command) if report.command else ["wia-conformance", "--backend", report.backend]
    return shlex.join(a for a in args if a != "--quick")


def _levels(verdicts: Sequence[LevelVerdict]) -> str:
    """``Level 1 (portable)``, or ``Levels 1-3`` / ``Levels 1 and 3`` for several."""
    if len(verdicts) == 1:
        return verdicts[0].name
    numbers = [v.level for v in verdicts]
    if numbers == list(range(numbers[0], numbers[-1] + 1)) and len(numbers) > 2:
        return f"Levels {numbers[0]}-{numbers[-1]}"
    return f"Levels {', '.join(map(str, numbers[:-1]))} and {numbers[-1]}"


def _why(report: RunReport, v: LevelVerdict) -> str:
    """Why a level is not PASS, in plain words: what failed, or what was not shown (a --quick run's sampling is said
    once, apart)."""
    parts = [f"{', '.join(v.failed)} failed"] if v.failed else []
    parts += [f"{', '.join(v.errors)} errored (the suite broke)"] if v.errors else []
    if parts:
        return "; ".join(parts)  # what failed is the reason; what did not run besides is in the reports
    for why, reqs in v.incomplete.items():
        if report.quick and why.endswith("(--quick)"):
            continue  # a quick run leaves requirements in part or not run by design: said once, below
        parts.append(f"{', '.join(reqs)} {why}")
    return "; ".join(parts)


def summary_lines(report: RunReport) -> list[Line]:
    """The run in a few plain lines: setting, counts, each level's verdict and why (a reason shared by several levels
    said once), what the device does not support, what the suite does not test."""
    device = report.device or {}
    executed = sum(n for o, n in report.summary.items() if o != "not run")
    lines: list[Line] = [
        (
            f"WIA-AI-011 conformance: backend {report.backend}"
            + (f" {report.options}" if report.options else "")
            + f", device 0: {device.get('name', '(none)')}",
            "",
        ),
        (f"hypothesis: {report.hypothesis}", ""),
        (f"{executed} tests: {counts_text(report.summary)}", "failed" if report.problems else ""),
    ]
    groups: dict[tuple[str, str], list[LevelVerdict]] = {}
    for v in report.levels:
        why = v.reason.removeprefix("PASS: ") if v.verdict == "PASS" else _why(report, v)
        groups.setdefault((v.verdict, why), []).append(v)
    sampled: list[LevelVerdict] = []  # levels a --quick run leaves without a verdict and nothing else to say
    for (verdict, why), verdicts in groups.items():
        if verdict == "INCOMPLETE" and report.quick and not why:
            sampled += verdicts
            continue
        lines.append((f"{_levels(verdicts)}: {verdict}" + (f": {why}" if why else ""), verdict))
    if report.quick and any(v.verdict == "INCOMPLETE" for v in report.levels):
        quick = (
            f"no verdict: a --quick run samples {executed} of the suite's {len(report.tests)} tests (few "
            f"parametrizations and examples); for the verdict run: {full_run_command(report)}"
        )
        lines.append((f"{_levels(sampled)}: INCOMPLETE, {quick}" if sampled else quick, "INCOMPLETE"))
    unsupported: dict[str, set[str]] = {}
    for t in report.tests:
        if t.outcome == "not supported":
            unsupported.setdefault(t.capability or "?", set()).update(t.reqs)
    if unsupported:
        said = "; ".join(f"{cap} ({', '.join(sorted(reqs))})" for cap, reqs in sorted(unsupported.items()))
        lines.append((f"not supported by the device (allowed: not a failure): {said}", "not supported"))
    inapplicable = sorted({r for t in report.tests if t.outcome == "not applicable" for r in t.reqs})
    if inapplicable:
        n = report.summary.get("not applicable", 0)
        lines.append(
            (
                "not applicable (need a backend extension, or a part of one, that the backend does not offer; not "
                f"counted for any level): {n} test{'' if n == 1 else 's'} of {', '.join(inapplicable)}",
                "not applicable",
            )
        )
    if report.not_in_suite:
        lines.append((f"not in this suite version (not counted): {', '.join(report.not_in_suite)}", ""))
    return lines


def failure_lines(tests: Sequence[TestResult], max_lines: int = 6) -> list[Line]:
    """Each failed or errored test: its id and requirements, the first lines of its message, its replay command."""
    lines: list[Line] = []
    for t in tests:
        label = "FAILED" if t.outcome == "failed" else "ERROR"
        lines.append((f"{label} {t.nodeid}  ({', '.join(t.reqs) or 'no requirement'})", t.outcome))
        body = t.message.strip().splitlines() or ["(no message)"]
        lines += [(f"    {line}", "") for line in body[:max_lines]]
        if len(body) > max_lines:
            lines.append((f"    ... ({len(body) - max_lines} more lines; see --json or --junitxml)", "dim"))
        lines += [(f"    {line}", "dim") for line in t.replay.splitlines()]
    return lines


# -- Markdown -------------------------------------------------------------------------------------------------------


def _md_cell(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text.replace("|", "\\|")


def _count_cells(counts: dict[str, int]) -> str:
    return " | ".join(str(counts.get(o, 0)) for o in _COUNTED)


def render_markdown(report: RunReport) -> str:
    device = report.device or {}
    lines = [
        "# WIA-AI-011 conformance report",
        "",
        f"- backend: `{report.backend}`" + (f" (options: {report.options})" if report.options else ""),
        f"- device 0: {device.get('name', '(none)')} ({device.get('vendor', '')})",
        f"- command: `{report.command}`" if report.command else "- command: (not recorded)",
        f"- hypothesis: {report.hypothesis}",
        f"- duration: {report.duration_s:.1f} s",
        f"- totals: {counts_text(report.summary)}",
        "",
        "## Verdict per conformance level",
        "",
        "| level | verdict | passed | failed | errors | not supported | not applicable | skipped | why |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for v in report.levels:
        why = v.reason + (f"; not supported: {', '.join(v.not_supported)}" if v.not_supported else "")
        lines.append(f"| {v.name} | **{v.verdict}** | {_count_cells(v.counts)} | {_md_cell(why, 2000)} |")
    lines += [
        "",
        "A level passes when every requirement of it (and of the levels below) that this suite version claims was "
        "shown: a test of it passed, or all its tests were not supported (an optional capability the device does "
        "not claim), and no test of the level failed or errored. Tests not applicable to the backend (they need an "
        "extension beyond the spec, such as fault injection) are counted apart and do not weigh on a verdict.",
        "",
    ]
    if report.not_in_suite:
        lines += [f"Not in this suite version (not counted): {', '.join(report.not_in_suite)}.", ""]
    lines += ["## Requirements", "", "| requirement | level | title | tests | status | note |", "|" + "---|" * 6]
    for row in report.requirements:
        tests = sum(n for o, n in row.counts.items() if o != "not run")
        lines.append(
            f"| {row.id} | {row.level} | {_md_cell(row.title)} | {tests} | {row.status} | {_md_cell(row.note)} |"
        )
    problems = report.problems
    if problems:
        lines += ["", "## Failures and errors", ""]
        for t in problems:
            lines += [f"### {t.outcome}: `{t.nodeid}`", "", f"Requirements: {', '.join(t.reqs) or '(none)'}", ""]
            lines += ["```", t.message.strip() or "(no message)", *t.replay.splitlines(), "```", ""]
    lines += [
        "",
        "## Sections",
        "",
        "| section | title | passed | failed | errors | not supported | not applicable | skipped |",
        "|---|---|---|---|---|---|---|---|",
    ]
    lines += [f"| {s.section} | {s.title} | {_count_cells(s.counts)} |" for s in report.sections]
    for s in report.sections:
        rows = [t for t in report.tests if t.section == s.section and t.outcome != "not run"]
        if not rows:
            continue
        lines += ["", f"### {s.section} {s.title}".rstrip(), ""]
        lines += ["| test | requirements | outcome | time (s) | message |", "|---|---|---|---|---|"]
        for t in rows:
            name = t.nodeid.split("::", 1)[-1]
            cells = [f"`{_md_cell(name, 120)}`", ", ".join(t.reqs), t.outcome, f"{t.duration_s:.3f}"]
            lines.append("| " + " | ".join([*cells, _md_cell(t.message)]) + " |")
    lines.append("")
    return "\n".join(lines)


# -- JUnit XML ------------------------------------------------------------------------------------------------------


def _case_names(nodeid: str) -> tuple[str, str]:
    """``conformance/test_3_7_ops.py::test_add[x]`` -> (``conformance.test_3_7_ops``, ``test_add[x]``)."""
    parts = nodeid.split("::")
    classname = parts[0].removesuffix(".py").replace("/", ".").replace("\\", ".")
    return ".".join([classname, *parts[1:-1]]), parts[-1]


def render_junit(report: RunReport) -> str:
    """JUnit XML: a testsuite per section, a testcase per test that ran (failures as ``failure``, suite errors as
    ``error``, not supported, not applicable and skipped as ``skipped``), with the requirement IDs and outcome as
    properties."""
    root = ET.Element("testsuites", name="wia-conformance", time=f"{report.duration_s:.3f}")
    props = ET.SubElement(root, "properties")
    for name, value in (("backend", report.backend), ("command", report.command), ("hypothesis", report.hypothesis)):
        ET.SubElement(props, "property", name=name, value=value)
    for v in report.levels:
        ET.SubElement(props, "property", name=f"level{v.level}", value=v.reason)
    for s in report.sections:
        tests = [t for t in report.tests if t.section == s.section and t.outcome != "not run"]
        if not tests:
            continue
        suite = ET.SubElement(
            root,
            "testsuite",
            name=f"{s.section} {s.title}".strip(),
            tests=str(len(tests)),
            failures=str(s.counts["failed"]),
            errors=str(s.counts["error"]),
            skipped=str(s.counts["not supported"] + s.counts.get("not applicable", 0) + s.counts["skipped"]),
            time=f"{s.duration_s:.3f}",
        )
        for t in tests:
            classname, name = _case_names(t.nodeid)
            case = ET.SubElement(suite, "testcase", classname=classname, name=name, time=f"{t.duration_s:.3f}")
            case_props = ET.SubElement(case, "properties")
            for key, value in (("wia_req", ",".join(t.reqs)), ("wia_level", str(t.level)), ("wia_outcome", t.outcome)):
                ET.SubElement(case_props, "property", name=key, value=value)
            first_line = (t.message.strip().splitlines() or [""])[0]
            if t.outcome in ("failed", "error"):
                tag = "failure" if t.outcome == "failed" else "error"
                element = ET.SubElement(case, tag, message=first_line)
                element.text = "\n".join(filter(None, [t.details or t.message, t.replay]))
            elif t.outcome in ("not supported", "not applicable", "skipped"):
                ET.SubElement(case, "skipped", message=t.message)
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
