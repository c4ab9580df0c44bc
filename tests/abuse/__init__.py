"""A hypothesis state machine that drives random sequences of the whole public API (issue 14, "abuse").

The machine is composed of rule groups (:mod:`abuse.core` explains the contract): each group is a mixin of
``@rule`` methods and a table of the error codes each of its rules may raise. ``tests/test_api_abuse.py`` runs it
briefly; ``benchmarks/fuzz_api.py`` runs it for minutes. Importing the package registers every group module listed
in ``GROUP_MODULES``.

Adding a rule group (fences, fault injection, peer copies, ...):

1. a module ``tests/abuse/<family>.py`` with a class decorated ``@abuse_group``, subclassing ``RuleGroup``, with a
   ``CODES: ClassVar[dict[str, Codes]]`` entry for every rule name it passes to ``self.attempt``, and ``@rule``
   methods drawing from the shared bundles of :mod:`abuse.core` (``contexts``, ``streams``, ``tensors``, ...) or
   from a ``Bundle`` of its own (a rule with ``target=`` returns the new object, or ``multiple()`` when refused)::

       @abuse_group
       class FenceRules(RuleGroup):
           CODES: ClassVar[dict[str, Codes]] = {"create_fence": frozenset({E.INVALID_CONTEXT})}

           @rule(target=fences, ctx=contexts)
           def create_fence(self, ctx: wia.Context) -> Any:
               fence = self.attempt("create_fence", wia.create_fence, ctx)
               return multiple() if fence is FAILED else fence

2. its module name in ``GROUP_MODULES`` below.

A call that may wait for device work passes ``waits=True``; one the machine knows to be valid passes ``valid=True``
(then only wait codes, ``extra`` and ambient codes are allowed). State a group keeps goes in its ``__init__``
(``super().__init__()`` first); a state that lets every call fail (a lost device) adds its code to
``self.ambient`` for as long as it lasts; anything to undo before the leak checks goes in a ``teardown`` override
that ends with ``super().teardown()``.
"""

from __future__ import annotations

import importlib

from abuse.core import AbuseMachine, RunCounts, abuse_group, machine_for, registered_groups

GROUP_MODULES = ("abuse.groups", "abuse.sync_and_devices")
"""The modules whose ``@abuse_group`` classes make up the machine, in the order their rules are listed."""

for _module in GROUP_MODULES:
    importlib.import_module(_module)

__all__ = ["GROUP_MODULES", "AbuseMachine", "RunCounts", "abuse_group", "machine_for", "registered_groups"]
