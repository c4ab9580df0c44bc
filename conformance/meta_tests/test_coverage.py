"""The coverage matrix finds claimed requirements without tests, unknown IDs and untagged tests."""

from __future__ import annotations

import pytest

from conformance import requirements as rq
from conformance.coverage import coverage_of


def _tagged_everything() -> dict[str, list[str]]:
    return {f"test_x.py::t{i}": [req] for i, req in enumerate(sorted(rq.CLAIMED))}


@pytest.mark.usefixtures("unclaimed")
def test_coverage_of_a_complete_suite() -> None:
    cov = coverage_of(_tagged_everything())
    assert not cov.problems and not cov.warnings and cov.tests == len(rq.CLAIMED)
    rows = {r.id: r for r in cov.rows}
    assert list(rows) == list(rq.TITLES)
    assert rows["R-3.2-01"].tests == 1 and rows["R-3.2-01"].claimed and rows["R-3.2-01"].level == 1
    assert rows["R-3.8-04"].tests == 0 and not rows["R-3.8-04"].claimed


@pytest.mark.usefixtures("unclaimed")
def test_coverage_problems() -> None:
    tagged = _tagged_everything()
    del tagged[next(k for k, v in tagged.items() if v == ["R-3.7-05"])]
    tagged["test_x.py::bad"] = ["R-3.7-99"]
    tagged["test_x.py::untagged"] = []
    tagged["test_x.py::fence"] = ["R-3.8-04"]
    cov = coverage_of(tagged)
    assert cov.problems == [
        "test_x.py::bad: 'R-3.7-99' is not a requirement ID of SPEC.md",
        "test_x.py::untagged: no @pytest.mark.req",
        "R-3.7-05 is claimed but no test is tagged with it",
    ]
    assert cov.warnings == [
        "R-3.8-04 has 1 test(s) but is not claimed: remove it from requirements.NOT_CLAIMED to count it"
    ]


def test_coverage_finds_a_requirement_only_tested_above_its_level() -> None:
    tagged = _tagged_everything()
    only = next(k for k, v in tagged.items() if v == ["R-3.2.1-03"])
    tagged[only] = ["R-3.2.1-03", "R-3.5.1-04"]  # the unified path only: a Level-3 test
    problems = coverage_of(tagged).problems
    assert problems == ["R-3.2.1-03: every test tagged with it counts for a higher level, so Level 1 never shows it"]
