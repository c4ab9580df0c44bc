"""Fixtures of the suite's own tests."""

from __future__ import annotations

import dataclasses

import pytest

from conformance import requirements as rq

UNCLAIMED = frozenset({"R-3.8-03", "R-3.8-04"})
"""Requirements the ``unclaimed`` fixture pretends this suite version has no tests for."""


@pytest.fixture
def unclaimed(monkeypatch: pytest.MonkeyPatch) -> frozenset[str]:
    """A suite version that does not claim :data:`UNCLAIMED` (every requirement is claimed today; the mechanism for
    a new one that has no tests yet must keep working)."""
    monkeypatch.setattr(rq, "NOT_CLAIMED", UNCLAIMED)
    monkeypatch.setattr(rq, "CLAIMED", frozenset(rq.REQUIREMENTS) - UNCLAIMED)
    requirements = {req: dataclasses.replace(r, claimed=req not in UNCLAIMED) for req, r in rq.REQUIREMENTS.items()}
    monkeypatch.setattr(rq, "REQUIREMENTS", requirements)
    return UNCLAIMED
