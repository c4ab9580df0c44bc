"""What the suite covers: the tests tagged with each requirement of SPEC.md, found by collecting the suite.

Collection only (``pytest --collect-only``): no backend is installed and no test runs. The matrix is consistent
when every requirement the suite claims has a test and every tag names a requirement of SPEC.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from conformance import requirements as rq


class CoverageRow(BaseModel):
    id: str
    level: int
    title: str
    tests: int
    claimed: bool


class Coverage(BaseModel):
    rows: list[CoverageRow]
    tests: int
    problems: list[str] = Field(default_factory=list, description="each makes `wia-conformance coverage` exit 1")
    warnings: list[str] = Field(default_factory=list)


def coverage_of(tagged: Mapping[str, Sequence[str]]) -> Coverage:
    """The matrix of ``tagged`` (nodeid -> the requirement IDs of its ``req`` markers) against the table."""
    counts = dict.fromkeys(rq.TITLES, 0)
    problems: list[str] = []
    unclaimed_tags: dict[str, int] = {}
    for nodeid, reqs in tagged.items():
        if not reqs:
            problems.append(f"{nodeid}: no @pytest.mark.req")
        for req in dict.fromkeys(reqs):
            if req not in counts:
                problems.append(f"{nodeid}: {req!r} is not a requirement ID of SPEC.md")
                continue
            counts[req] += 1
            if req in rq.NOT_CLAIMED:
                unclaimed_tags[req] = unclaimed_tags.get(req, 0) + 1
    rows = [
        CoverageRow(id=r.id, level=r.level, title=r.title, tests=counts[r.id], claimed=r.claimed)
        for r in rq.REQUIREMENTS.values()
    ]
    problems += [f"{row.id} is claimed but no test is tagged with it" for row in rows if row.claimed and not row.tests]
    problems += [
        f"{req}: every test tagged with it counts for a higher level, so Level {rq.level_of_req(req)} never shows it"
        for req in _only_above_their_level(tagged)
    ]
    warnings = [
        f"{req} has {n} test(s) but is not claimed: remove it from requirements.NOT_CLAIMED to count it"
        for req, n in sorted(unclaimed_tags.items(), key=lambda kv: rq.req_key(kv[0]))
    ]
    return Coverage(rows=rows, tests=len(tagged), problems=problems, warnings=warnings)


def _only_above_their_level(tagged: Mapping[str, Sequence[str]]) -> list[str]:
    """Requirements whose every test also names a requirement of a higher level (a test counts for its highest)."""
    lowest: dict[str, int] = {}
    for reqs in tagged.values():
        known = [r for r in reqs if r in rq.TITLES]
        level = max((rq.level_of_req(r) for r in known), default=1)
        for req in known:
            lowest[req] = min(lowest.get(req, level), level)
    return sorted((r for r, level in lowest.items() if level > rq.level_of_req(r)), key=rq.req_key)


class CollectTags:
    """A pytest plugin for ``--collect-only`` runs: the ``req`` tags of every suite test, and collection errors."""

    def __init__(self, suite_dir: Path) -> None:
        self.suite_dir = suite_dir
        self.tagged: dict[str, list[str]] = {}
        self.errors: list[str] = []

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            lines = report.longreprtext.strip().splitlines()
            self.errors.append(f"{report.nodeid or '(collection)'}: {lines[-1] if lines else 'failed'}")

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        for item in session.items:
            if item.path.resolve().parent == self.suite_dir and item.path.name.startswith("test_"):
                self.tagged[item.nodeid] = [str(r) for m in item.iter_markers("req") for r in m.args]


def collect_coverage(suite_dir: Path, extra_args: Sequence[str] = ()) -> tuple[Coverage, list[str]]:
    """Collect the suite at ``suite_dir`` (no backend, no test run): its coverage and any collection errors."""
    plugin = CollectTags(suite_dir.resolve())
    args = [str(suite_dir), "--collect-only", "-p", "no:terminal", "-p", "no:cacheprovider", "-o", "addopts="]
    args += ["--rootdir", str(suite_dir)]  # node ids relative to the suite, wherever it is run from
    rc = pytest.main([*args, *extra_args], plugins=[plugin])
    errors = list(plugin.errors)
    if rc not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED) and not errors:
        errors.append(f"collection failed (pytest exit status {int(rc)})")
    return coverage_of(plugin.tagged), errors
