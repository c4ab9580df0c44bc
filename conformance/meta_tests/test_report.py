"""Verdicts count requirements; reports render and round-trip. No backend is used."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from conformance import report as rp
from conformance import requirements as rq
from conformance.render import counts_text, failure_lines, render_junit, render_markdown, summary_lines


def result(req: str, outcome: rp.Outcome = "passed", message: str = "", *more: str) -> rp.TestResult:
    section = rq.section_of_req(req)
    module = f"conformance/test_{section.replace('.', '_')}_x.py"
    return rp.TestResult(
        nodeid=f"{module}::test_{req}_{outcome.replace(' ', '_')}", section=section, reqs=[req, *more],
        outcome=outcome, duration_s=0.01, message=message,
    )  # fmt: skip


def everything_passes() -> list[rp.TestResult]:
    return [result(req) for req in sorted(rq.CLAIMED, key=rq.req_key)]


def verdicts(results: list[rp.TestResult], quick: bool = False) -> list[str]:
    return [v.verdict for v in rp.level_verdicts(results, quick)]


def test_every_claimed_requirement_passing_passes_every_level() -> None:
    levels = rp.level_verdicts(everything_passes())
    assert [v.verdict for v in levels] == ["PASS", "PASS", "PASS"]
    assert levels[0].reason == f"PASS: all {len(rq.claimed_of_level(1))} claimed requirements shown"
    assert levels[2].counts["passed"] == len(rq.CLAIMED)


def test_a_failure_fails_its_level_and_those_above_naming_the_requirement() -> None:
    results = [*everything_passes(), result("R-3.3-02", "failed", "got 1, but should be 2 [f()]")]
    levels = rp.level_verdicts(results)
    assert [v.verdict for v in levels] == ["FAIL", "FAIL", "FAIL"]
    assert levels[0].reason == "FAIL: R-3.3-02 failed" and levels[0].failed == ["R-3.3-02"]
    level3 = [*everything_passes(), result("R-3.6.2-03", "failed")]
    assert verdicts(level3) == ["PASS", "PASS", "FAIL"]


def test_an_error_fails_the_level_as_the_suite_broke() -> None:
    levels = rp.level_verdicts([*everything_passes(), result("R-3.5.2-04", "error", "TypeError: x")])
    assert [v.verdict for v in levels] == ["PASS", "FAIL", "FAIL"]
    assert levels[1].reason == "FAIL: R-3.5.2-04 errored (the suite broke)" and levels[1].errors == ["R-3.5.2-04"]


def test_a_collection_error_names_its_module() -> None:
    broken = rp.TestResult(nodeid="conformance/test_3_7_ops.py", section="3.7", reqs=[], outcome="error")
    levels = rp.level_verdicts([*everything_passes(), broken])
    assert levels[0].verdict == "FAIL" and "collection of conformance/test_3_7_ops.py" in levels[0].reason


def test_a_test_counts_for_its_highest_requirement() -> None:
    """A failing unified-memory test of R-3.2.1-03 fails Level 3 (R-3.5.1-04), not Level 1."""
    unified = result("R-3.2.1-03", "failed", "", "R-3.5.1-04")
    assert unified.level == 3
    assert verdicts([*everything_passes(), unified]) == ["PASS", "PASS", "FAIL"]
    assert rp.TestResult(nodeid="t", section="3.1", reqs=["R-3.1-04", "R-3.6.1-02"], outcome="passed").level == 2
    assert rp.TestResult(nodeid="t", section="3.6.2", reqs=[], outcome="error").level == 3


def test_not_supported_requirements_pass_and_are_listed() -> None:
    results = [r for r in everything_passes() if r.reqs != ["R-3.5.1-03"]]
    results.append(result("R-3.5.1-03", "not supported", "not supported: supports_pinned_memory is False"))
    levels = rp.level_verdicts(results)
    assert [v.verdict for v in levels] == ["PASS", "PASS", "PASS"]
    assert levels[0].not_supported == ["supports_pinned_memory"]


def test_requirements_that_did_not_run_make_the_level_incomplete_by_name() -> None:
    selected = [r for r in everything_passes() if r.reqs[0] not in ("R-3.5.2-03", "R-3.5.2-05")]
    selected += [result("R-3.5.2-03", "not run", "--select"), result("R-3.5.2-05", "not run", "--select")]
    levels = rp.level_verdicts(selected)
    assert [v.verdict for v in levels] == ["PASS", "INCOMPLETE", "INCOMPLETE"]
    assert levels[1].reason == "INCOMPLETE: R-3.5.2-03, R-3.5.2-05 did not run (--select)"
    assert levels[1].incomplete == {"did not run (--select)": ["R-3.5.2-03", "R-3.5.2-05"]}
    missing = [r for r in everything_passes() if r.reqs[0] != "R-3.9-02"]
    assert rp.level_verdicts(missing)[0].reason == "INCOMPLETE: R-3.9-02 did not run (not collected)"


def test_skips_make_the_level_incomplete_by_name() -> None:
    results = [*everything_passes(), result("R-3.4-02", "skipped", "skip-file: R-3.4-02")]
    results.append(result("R-3.3-06", "skipped", "the backend exposes one device"))
    level1 = rp.level_verdicts(results)[0]
    assert level1.verdict == "INCOMPLETE"
    assert "R-3.4-02 skipped (skip-file)" in level1.reason
    assert "R-3.3-06 skipped (the backend exposes one device)" in level1.reason
    partly = [*everything_passes(), result("R-3.7-01", "not run", "-k/-m")]
    assert rp.level_verdicts(partly)[0].reason == "INCOMPLETE: R-3.7-01 ran in part (-k/-m)"


def test_a_quick_run_is_never_a_pass() -> None:
    results = [*everything_passes(), result("R-3.7-01", "not run", "--quick")]
    levels = rp.level_verdicts(results, quick=True)
    assert [v.verdict for v in levels] == ["INCOMPLETE"] * 3
    assert levels[0].reason.startswith("INCOMPLETE: --quick is a smoke run")
    assert "R-3.7-01" not in levels[0].reason  # ran in part by design: not named
    assert levels[0].incomplete == {"ran in part (--quick)": ["R-3.7-01"]}
    failing = [*results, result("R-3.7-02", "failed")]
    assert verdicts(failing, quick=True) == ["FAIL"] * 3


@pytest.mark.usefixtures("unclaimed")
def test_unclaimed_requirements_are_listed_but_not_counted() -> None:
    report = rp.build_report(everything_passes(), backend="sim")
    assert report.not_in_suite == sorted(rq.NOT_CLAIMED, key=rq.req_key)
    assert [v.verdict for v in report.levels] == ["PASS"] * 3
    rows = {r.id: r for r in report.requirements}
    assert rows["R-3.8-03"].status == "not in this suite version" and rows["R-3.2-01"].status == "passed"
    fence = result("R-3.8-04", "failed")  # a test of an unclaimed requirement still counts when it fails
    assert verdicts([*everything_passes(), fence]) == ["PASS", "PASS", "FAIL"]


def test_not_applicable_tests_are_counted_apart_and_never_weigh_on_a_verdict() -> None:
    na = "not applicable: needs the fault-injection extension (supports_fault_injection is False)"
    alone = [r for r in everything_passes() if r.reqs != ["R-3.9-04"]] + [result("R-3.9-04", "not applicable", na)]
    report = rp.build_report(alone, backend="reference")
    assert [v.verdict for v in report.levels] == ["PASS"] * 3  # only not-applicable tests: not held against it
    assert {r.id: r.status for r in report.requirements}["R-3.9-04"] == "not applicable"
    mixed = [*everything_passes(), result("R-3.9-04", "not applicable", na)]
    report = rp.build_report(mixed, backend="reference")
    assert [v.verdict for v in report.levels] == ["PASS"] * 3 and report.levels[0].not_supported == []
    assert {r.id: r.status for r in report.requirements}["R-3.9-04"] == "passed"
    assert report.summary["not applicable"] == 1 and report.levels[0].counts["not applicable"] == 1
    lines = [text for text, _ in summary_lines(report)]
    assert ", 1 not applicable, 0 skipped" in lines[2]
    assert "not applicable (need a backend extension, or a part of one, that the backend does not offer; not " \
        "counted for any level): 1 test of R-3.9-04" in lines  # fmt: skip
    assert "| not applicable |" in render_markdown(report)
    skipped = ET.fromstring(render_junit(report)).findall(".//testcase/skipped")
    assert [s.get("message") for s in skipped] == [na]
    failing = [*mixed, result("R-3.9-04", "failed")]  # a failure next to them still fails
    assert verdicts(failing) == ["FAIL"] * 3


def test_classify_skip_and_sections() -> None:
    assert rp.classify_skip("Skipped: not applicable: needs the fault-injection extension") == "not applicable"
    assert rp.classify_skip("Skipped: not supported: supports_int8 is False") == "not supported"
    assert rp.classify_skip("not supported: bool") == "not supported"
    assert rp.classify_skip("the backend exposes no device") == "skipped"
    assert rp.section_of_module("conformance/test_3_4_1_events.py::test_x[a-b]") == "3.4.1"
    assert rp.section_of_module("conformance/test_3_10_profiling.py::t") == "3.10"
    assert rp.section_of_module("conformance/test_3_5_1_memory.py::test_z[test_3_9_x]") == "3.5.1"
    assert rp.section_of_module("conformance/meta_tests/test_helpers.py::test_a") is None
    assert rp.section_of("somewhere/test_misc.py::t", ["R-3.8-02", "R-3.4.1-01"]) == "3.8"
    assert rp.section_of("somewhere/test_misc.py::t", []) == "unknown"


# -- reports --------------------------------------------------------------------------------------------------------


def sample_report() -> rp.RunReport:
    results = [r for r in everything_passes() if r.reqs[0] not in ("R-3.7-01", "R-3.7-02", "R-3.3-02", "R-3.5.1-03")]
    results += [
        result("R-3.7-01", "failed", "got 1, but should be 2 [add | x]"),
        result("R-3.3-02", "error", "AttributeError: module 'wia_hal' has no attribute 'nope'"),
        result("R-3.5.1-03", "not supported", "not supported: supports_pinned_memory is False"),
        result("R-3.7-02", "not run", "--select"),
    ]
    results[-4].replay = "replay: wia-conformance --backend sim 'conformance/test_3_7_x.py::test_R-3.7-01_failed'"
    return rp.build_report(
        results, backend="sim", options={"hardware": "wia-tiny"}, device={"name": "Dev", "vendor": "V"},
        hypothesis="derandomized", command="wia-conformance --backend sim --option hardware=wia-tiny",
    )  # fmt: skip


def test_json_round_trips() -> None:
    report = sample_report()
    data = json.loads(report.to_json())
    assert data["summary"] == {
        "passed": len(rq.CLAIMED) - 4, "failed": 1, "error": 1, "not supported": 1, "not applicable": 0,
        "skipped": 0, "not run": 1,
    }  # fmt: skip
    assert data["levels"][0]["verdict"] == "FAIL" and data["tests"][0]["level"] in (1, 2, 3)
    assert rp.RunReport.model_validate_json(report.to_json()) == report
    assert [t.outcome for t in report.problems] == ["failed", "error"]


@pytest.mark.usefixtures("unclaimed")
def test_summary_lines_say_the_counts_and_why() -> None:
    lines = [text for text, _ in summary_lines(sample_report())]
    passed = len(rq.CLAIMED) - 4
    assert lines[2].startswith(f"{passed + 3} tests: {passed} passed, 1 failed, 1 errors, 1 not supported, ")
    assert lines[2].endswith("0 skipped; 1 not run")
    # the same reason for the three levels, said once; what the device does not support, once, with its requirements
    assert lines[3] == "Levels 1-3: FAIL: R-3.7-01 failed; R-3.3-02 errored (the suite broke)"
    assert lines[4] == "not supported by the device (allowed: not a failure): supports_pinned_memory (R-3.5.1-03)"
    assert lines[-1].startswith("not in this suite version (not counted): R-3.8-03, R-3.8-04")
    assert counts_text({"passed": 2}) == "2 passed, 0 failed, 0 errors, 0 not supported, 0 not applicable, 0 skipped"


def test_failure_lines_show_the_message_and_the_replay() -> None:
    text = [t for t, _ in failure_lines(sample_report().problems)]
    assert text[0].startswith("FAILED conformance/test_3_7_x.py::") and text[0].endswith("(R-3.7-01)")
    assert text[1] == "    got 1, but should be 2 [add | x]"
    assert text[2].startswith("    replay: wia-conformance --backend sim")
    assert text[3].startswith("ERROR ")


@pytest.mark.usefixtures("unclaimed")
def test_markdown() -> None:
    md = render_markdown(sample_report())
    assert "| Level 1 (portable) | **FAIL** | " in md
    assert "| R-3.7-02 | 1 | Reductions: sum, max, softmax | 0 | not run | --select |" in md
    assert "Not in this suite version (not counted): R-3.8-03" in md
    assert "### 3.7 Tensor operations" in md and "[add \\| x]" in md  # table cells are escaped
    assert "replay: wia-conformance --backend sim" in md


def test_junit() -> None:
    root = ET.fromstring(render_junit(sample_report()))
    cases = root.findall(".//testcase")
    assert len(cases) == len(rq.CLAIMED) - 1  # the test that did not run is not a case
    assert len(root.findall(".//testcase/failure")) == 1 and len(root.findall(".//testcase/error")) == 1
    skipped = root.findall(".//testcase/skipped")
    assert [s.get("message") for s in skipped] == ["not supported: supports_pinned_memory is False"]
    failure = root.find(".//testcase/failure")
    assert failure is not None and "replay: wia-conformance" in (failure.text or "")
    props = {p.get("name"): p.get("value") for p in root.findall("./properties/property")}
    assert props["backend"] == "sim" and (props["level1"] or "").startswith("FAIL")


@pytest.mark.parametrize("outcome", rp.OUTCOMES)
def test_counts_cover_every_outcome(outcome: rp.Outcome) -> None:
    assert rp.count([result("R-3.2-01", outcome)])[outcome] == 1


def test_a_quick_run_ends_with_one_plain_line_saying_why_there_is_no_verdict() -> None:
    results = [*everything_passes(), result("R-3.7-01", "not run", "--quick")]
    report = rp.build_report(
        results, backend="sim", quick=True, command="wia-conformance --backend sim --option hardware=wia-tiny --quick"
    )
    lines = [text for text, _ in summary_lines(report)]
    verdicts = [line for line in lines if "INCOMPLETE" in line or "verdict" in line]
    assert verdicts == [
        f"Levels 1-3: INCOMPLETE, no verdict: a --quick run samples {len(results) - 1} of the suite's {len(results)} "
        "tests (few parametrizations and examples); for the verdict run: "
        "wia-conformance --backend sim --option hardware=wia-tiny"
    ]
    assert not any("smoke run" in line for line in lines)
    # the report's own fields keep their wording (JSON, JUnit and Markdown are unchanged)
    assert all(v.reason.startswith("INCOMPLETE: --quick is a smoke run") for v in report.levels)


def test_levels_with_different_reasons_get_a_line_each() -> None:
    results = [*everything_passes(), result("R-3.6.2-03", "failed")]
    lines = [text for text, _ in summary_lines(rp.build_report(results, backend="sim"))]
    assert lines[3:6] == [
        f"Level 1 (portable): PASS: all {len(rq.claimed_of_level(1))} claimed requirements shown",
        f"Level 2 (performance hints): PASS: all {len(rq.claimed_of_level(2))} claimed requirements shown",
        "Level 3 (expert control): FAIL: R-3.6.2-03 failed",
    ]
