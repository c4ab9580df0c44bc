"""A hypothesis state machine that drives random sequences of the whole public API (issue 14, "abuse").

The machine is composed of rule groups (:mod:`abuse.core` explains the contract): each group is a mixin of
``@rule`` methods and a table of the error codes each of its rules may raise. ``tests/test_api_abuse.py`` runs it
briefly; ``benchmarks/fuzz_api.py`` runs it for minutes. Importing the package registers every group module listed
below; a new group is a module here with an ``@abuse_group`` class, and its name in ``GROUP_MODULES``.
"""

from __future__ import annotations

import importlib

from abuse.core import AbuseMachine, RunCounts, abuse_group, machine_for, registered_groups

GROUP_MODULES = ("abuse.groups",)
"""The modules whose ``@abuse_group`` classes make up the machine, in the order their rules are listed."""

for _module in GROUP_MODULES:
    importlib.import_module(_module)

__all__ = ["GROUP_MODULES", "AbuseMachine", "RunCounts", "abuse_group", "machine_for", "registered_groups"]
