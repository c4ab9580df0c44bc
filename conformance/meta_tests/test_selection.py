"""--select, --quick, --skip-file and the replay command line choose what they say. No backend is used."""

from __future__ import annotations

import shlex

import pytest

from conformance import selection as sel
from conformance import strategies as hh


def test_check_select_rejects_globs_that_match_no_requirement() -> None:
    sel.check_select(["R-3.5.2-*", "R-3.10-01"])
    with pytest.raises(ValueError, match="matches no requirement ID"):
        sel.check_select(["R-3.5.9-*"])


def test_selected() -> None:
    assert sel.selected([], ["R-3.2-01"])
    assert sel.selected(["R-3.5.2-*"], ["R-3.9-04", "R-3.5.2-02"])
    assert not sel.selected(["R-3.5.2-*"], ["R-3.5.1-01"])
    assert not sel.selected(["R-3.5.2-*"], [])


def test_quick_keeps_the_first_and_last_parametrization_of_each_function() -> None:
    groups = ["m::a", "m::a", "m::a", "m::a", "m::b", "m::c", "m::c"]
    assert sel.quick_subset(groups) == [True, False, False, True, True, True, True]
    assert sel.function_of("m.py::test_add[float32-x]") == "m.py::test_add"


def test_suite_settings_cap_examples_in_quick_runs() -> None:
    try:
        hh.configure(None, quick=True)
        assert hh.suite_settings().max_examples == hh.QUICK_EXAMPLES
        assert hh.suite_settings(max_examples=2).max_examples == 2 and hh.suite_settings().derandomize
    finally:
        hh.configure(None)
    assert hh.suite_settings().max_examples == hh.MAX_EXAMPLES


SKIPS = """
# known problems of the acme backend
R-3.5.2-05                                   # compaction is not implemented
R-3.6.2-*
test_3_7_ops.py::test_softmax                # every parametrization
conformance/test_3_4_streams.py::test_overlap[copy-compute]
test_3_9_errors.py::test_*_recovery
"""
OVERLAP = "conformance/test_3_4_streams.py::test_overlap[copy-compute]"


@pytest.mark.parametrize(
    ("nodeid", "reqs", "rule"),
    [
        ("conformance/test_3_5_2_pools.py::test_defragment", ["R-3.5.2-05"], "R-3.5.2-05"),
        ("conformance/test_3_5_2_pools.py::test_grow", ["R-3.5.2-03"], None),
        ("conformance/test_3_6_2_kernels.py::test_x[a]", ["R-3.1-03", "R-3.6.2-04"], "R-3.6.2-*"),
        ("conformance/test_3_7_ops.py::test_softmax[float16]", ["R-3.7-02"], "test_3_7_ops.py::test_softmax"),
        ("conformance/test_3_7_ops.py::test_softmax", ["R-3.7-02"], "test_3_7_ops.py::test_softmax"),
        ("conformance/test_3_7_ops.py::test_softmax_rows", ["R-3.7-02"], None),
        ("test_3_4_streams.py::test_overlap[copy-compute]", ["R-3.4-02"], OVERLAP),
        ("conformance/test_3_4_streams.py::test_overlap[copy-copy]", ["R-3.4-02"], None),
        ("conformance/test_3_9_errors.py::test_timeout_recovery", ["R-3.9-04"], "test_3_9_errors.py::test_*_recovery"),
    ],
)
def test_skip_file_rules(nodeid: str, reqs: list[str], rule: str | None) -> None:
    rules = sel.parse_skip_file(SKIPS)
    assert len(rules) == 5
    assert sel.skip_reason(rules, nodeid, reqs) == (f"skip-file: {rule}" if rule else None)


def test_skip_file_rejects_unknown_requirements() -> None:
    with pytest.raises(ValueError, match=r"line 2: 'R-3\.5\.9-01' matches no requirement"):
        sel.parse_skip_file("# x\nR-3.5.9-01\n")


def test_command_line_replays_the_setting() -> None:
    line = sel.command_line("sim", None, {"hardware": "wia tiny", "devices": "2"}, 1234, True, ["t.py::f[a b]"])
    assert shlex.split(line) == [
        "wia-conformance", "--backend", "sim", "--option", "devices=2", "--option", "hardware=wia tiny",
        "--hypothesis-seed", "1234", "--quick", "t.py::f[a b]",
    ]  # fmt: skip
    module = sel.command_line(None, "acme.wia:make", {}, None, False)
    assert module == "wia-conformance --backend-module acme.wia:make"
