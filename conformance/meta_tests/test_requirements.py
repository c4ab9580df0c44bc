"""The requirement table is SPEC.md's, with the levels of SPEC.md 3.1."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conformance import requirements as rq

SPEC = Path(__file__).resolve().parents[2] / "docs" / "spec" / "SPEC.md"


def spec_ids() -> list[str]:
    """The requirement IDs of SPEC.md, in its order (each starts a list item: ``- R-3.5.2-03 ...``)."""
    if not SPEC.is_file():
        pytest.skip("docs/spec/SPEC.md is not here (an installed suite)")
    return re.findall(r"^- (R-\d+(?:\.\d+)*-\d+) ", SPEC.read_text(encoding="utf-8"), re.M)


def test_the_table_is_every_requirement_of_the_spec_in_its_order() -> None:
    ids = spec_ids()
    assert len(ids) == len(set(ids))
    assert list(rq.TITLES) == ids


def test_every_requirement_has_a_title_a_section_and_a_level() -> None:
    for req in rq.REQUIREMENTS.values():
        assert req.title and "\n" not in req.title and len(req.title) <= 80, req.id
        assert req.section in rq.SECTION_TITLES, req.id
        assert req.level in rq.LEVEL_NAMES, req.id


def test_claims() -> None:
    assert set(rq.TITLES) >= rq.NOT_CLAIMED
    assert set(rq.TITLES) - rq.NOT_CLAIMED == rq.CLAIMED
    assert all(rq.REQUIREMENTS[r].claimed == (r in rq.CLAIMED) for r in rq.TITLES)
    level1 = rq.claimed_of_level(1)
    assert "R-3.2-01" in level1 and "R-3.5.2-01" not in level1 and "R-3.5.1-04" not in level1
    assert set(rq.claimed_of_level(3)) == rq.CLAIMED


@pytest.mark.parametrize(
    ("req", "level"),
    [
        ("R-3.2-01", 1),
        ("R-3.2.1-02", 1),
        ("R-3.2.1-03", 1),
        ("R-3.2.1-04", 3),
        ("R-3.5.1-01", 1),
        ("R-3.5.1-04", 3),
        ("R-3.5.1-05", 3),
        ("R-3.5.2-01", 2),
        ("R-3.6.1-01", 2),
        ("R-3.6.2-01", 3),
        ("R-3.8-01", 1),
        ("R-3.8-02", 1),
        ("R-3.8-03", 3),
        ("R-3.8-04", 3),
        ("R-3.10-01", 2),
        ("R-3.1-01", 1),
        ("R-3.1-02", 2),
        ("R-3.1-03", 3),
        ("R-3.1-04", 1),
        ("R-3.9-04", 1),
    ],
)
def test_level_of_req(req: str, level: int) -> None:
    assert rq.level_of_req(req) == level == rq.REQUIREMENTS[req].level


def test_section_of_req_and_order() -> None:
    assert rq.section_of_req("R-3.4.1-02") == "3.4.1"
    with pytest.raises(ValueError):
        rq.section_of_req("3.4.1")
    assert sorted(["R-3.10-01", "R-3.2.1-01", "R-3.9-04", "R-3.2-03"], key=rq.req_key) == [
        "R-3.2-03",
        "R-3.2.1-01",
        "R-3.9-04",
        "R-3.10-01",
    ]


def test_matching() -> None:
    assert rq.matching(["R-3.5.2-*"]) == [f"R-3.5.2-0{i}" for i in range(1, 7)]
    assert rq.matching(["R-3.2-0?", "R-3.10-04"], ["R-3.2-01", "R-3.2.1-01", "R-3.10-04"]) == ["R-3.2-01", "R-3.10-04"]
    assert rq.matching(["R-9*"]) == []
