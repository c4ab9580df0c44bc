"""Backend factories for ``--backend-module`` runs of the meta tests (``conformance.meta_tests.backends:sim``)."""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any


def sim(**options: Any) -> object:
    """The simulator built from its options, as a vendor's factory builds its backend (not through a name)."""
    cls = entry_points(group="wia_hal.backends")["sim"].load()
    return cls(**options)
