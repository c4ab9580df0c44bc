"""Which tests a run runs (``--select``, ``--quick``, ``--skip-file``) and the command line that runs one again.

Pure functions over nodeids and requirement IDs; the plugin applies them to pytest's items.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from conformance import requirements as rq

QUICK_PARAMETRIZATIONS = 2
"""A ``--quick`` run keeps at most this many parametrizations of each test function (the first and the last)."""


def check_select(patterns: Sequence[str]) -> None:
    """Every ``--select`` glob must match a requirement of SPEC.md (a typo would silently select nothing)."""
    for pattern in patterns:
        if not rq.matching([pattern]):
            raise ValueError(f"--select {pattern!r} matches no requirement ID of SPEC.md (e.g. 'R-3.5.2-*')")


def selected(patterns: Sequence[str], reqs: Sequence[str]) -> bool:
    """Whether a test tagged ``reqs`` runs under ``--select patterns`` (all run when there are none)."""
    return not patterns or bool(rq.matching(patterns, reqs))


def quick_subset(groups: Sequence[str]) -> list[bool]:
    """For the items of a run, each named by its test function (module and name without parameters): whether a
    ``--quick`` run keeps it. The first and the last parametrization of each function are kept."""
    positions: dict[str, list[int]] = {}
    for i, group in enumerate(groups):
        positions.setdefault(group, []).append(i)
    keep = [False] * len(groups)
    for indices in positions.values():
        chosen = indices if len(indices) <= QUICK_PARAMETRIZATIONS else [indices[0], indices[-1]]
        for i in chosen:
            keep[i] = True
    return keep


@dataclass(frozen=True)
class SkipRule:
    """A line of a skip file: a requirement ID (or glob), or a nodeid (a prefix at ``::``/``[``, or a glob)."""

    pattern: str

    @property
    def is_requirement(self) -> bool:
        return self.pattern.startswith("R-")

    def matches(self, nodeid: str, reqs: Sequence[str]) -> bool:
        if self.is_requirement:
            return bool(rq.matching([self.pattern], reqs))
        node, pattern = _module_relative(nodeid), _module_relative(self.pattern)
        if "*" in pattern or "?" in pattern:
            regex = ".*".join(".".join(re.escape(p) for p in part.split("?")) for part in pattern.split("*"))
            return re.fullmatch(regex, node) is not None
        return node == pattern or node.startswith((pattern + "::", pattern + "["))


def _module_relative(nodeid: str) -> str:
    """``conformance/test_3_7_ops.py::t`` -> ``test_3_7_ops.py::t``: skip files work from any rootdir."""
    path, sep, rest = nodeid.partition("::")
    return PurePath(path).name + sep + rest


def parse_skip_file(text: str) -> list[SkipRule]:
    """One rule per line; ``#`` starts a comment; blank lines are ignored. A requirement line must name (or match)
    a requirement of SPEC.md."""
    rules = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].strip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        rule = SkipRule(line)
        if rule.is_requirement and not rq.matching([line]):
            raise ValueError(f"skip file line {number}: {line!r} matches no requirement ID of SPEC.md")
        rules.append(rule)
    return rules


def skip_reason(rules: Sequence[SkipRule], nodeid: str, reqs: Sequence[str]) -> str | None:
    """``skip-file: <the first matching line>``, or None when no rule matches."""
    for rule in rules:
        if rule.matches(nodeid, reqs):
            return f"skip-file: {rule.pattern}"
    return None


def command_line(
    backend: str | None,
    backend_module: str | None,
    options: Mapping[str, str],
    seed: object = None,
    quick: bool = False,
    tests: Sequence[str] = (),
) -> str:
    """The ``wia-conformance`` command that runs ``tests`` (or the suite) on the same backend, options, hypothesis
    seed and example count: what a failure's replay line shows."""
    args = ["wia-conformance"]
    args += ["--backend-module", backend_module] if backend_module else ["--backend", backend or "?"]
    for key, value in sorted(options.items()):
        args += ["--option", f"{key}={value}"]
    if seed is not None:
        args += ["--hypothesis-seed", str(seed)]
    if quick:
        args.append("--quick")
    return shlex.join([*args, *tests])


def function_of(nodeid: str) -> str:
    """``mod.py::test_x[a-b]`` -> ``mod.py::test_x``: the group of a test's parametrizations."""
    return nodeid.split("[", 1)[0]
