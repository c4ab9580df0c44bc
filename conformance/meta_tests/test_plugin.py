"""The plugin's parts: what counts as a failure or a suite error, the results collector, options and factories.
No backend is used."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace, TracebackType
from typing import Any, Literal

import pytest

import wia_hal as wia
from conformance import plugin
from conformance.plugin import ConformanceSession, environment_options, failure_kind, is_suite_path, parse_options


def _raised(source: str, filename: str, module: str) -> tuple[BaseException, TracebackType | None]:
    """Run ``source`` (which calls ``fail()`` defined in it) as if it were ``filename`` of ``module``."""
    namespace: dict[str, Any] = {"__name__": module}
    exec(compile(source, filename, "exec"), namespace)
    try:
        namespace["run"]()
    except Exception as e:
        return e, e.__traceback__
    raise AssertionError("did not raise")


def test_assertions_and_wia_errors_are_failures() -> None:
    assert failure_kind(AssertionError("x"), None) == "failed"
    try:
        pytest.fail("got 1, but should be 2 [f()]")
    except pytest.fail.Exception as e:
        assert failure_kind(e, e.__traceback__) == "failed"
    assert failure_kind(wia.InvalidValueError("raised where it should not"), None) == "failed"


def test_other_exceptions_of_the_suite_are_errors() -> None:
    suite_file = str(plugin.SUITE_DIR / "test_3_7_fake.py")
    exc, tb = _raised("def run():\n    return {}['missing']\n", suite_file, "conformance.test_3_7_fake")
    assert isinstance(exc, KeyError) and failure_kind(exc, tb) == "error"
    assert failure_kind(TypeError("bad call"), None) == "error"


def test_other_exceptions_escaping_the_api_are_failures() -> None:
    """Only WiaError may leave the API: a KeyError raised inside wia_hal, called from the suite, fails the test."""
    api_ns: dict[str, Any] = {"__name__": "wia_hal.fake"}
    exec(compile("def op():\n    return {}['missing']\n", "wia_hal/fake.py", "exec"), api_ns)
    suite_ns: dict[str, Any] = {"__name__": "conformance.test_3_7_fake", "op": api_ns["op"]}
    exec(compile("def run():\n    op()\n", str(plugin.SUITE_DIR / "test_3_7_fake.py"), "exec"), suite_ns)
    try:
        suite_ns["run"]()
    except KeyError as e:
        assert failure_kind(e, e.__traceback__) == "failed"


def test_exception_groups_are_errors_if_any_part_is() -> None:
    assert failure_kind(ExceptionGroup("two", [AssertionError("a"), wia.InvalidValueError("b")]), None) == "failed"
    assert failure_kind(ExceptionGroup("two", [AssertionError("a"), TypeError("b")]), None) == "error"


def test_is_suite_path() -> None:
    assert is_suite_path(plugin.SUITE_DIR / "test_3_2_devices.py")
    assert not is_suite_path(plugin.SUITE_DIR / "plugin.py")
    assert not is_suite_path(Path(__file__))
    assert not is_suite_path(Path("/elsewhere/test_3_2_devices.py"))


def test_parse_options() -> None:
    assert parse_options(["hardware=wia-tiny", "Devices=2", "path=a=b"]) == {
        "hardware": "wia-tiny",
        "devices": "2",
        "path": "a=b",
    }
    with pytest.raises(pytest.UsageError):
        parse_options(["novalue"])


def test_environment_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_METAB_HARDWARE", "x")
    monkeypatch.setenv("WIA_METAB_DEVICES", "2")
    monkeypatch.setenv("WIA_OTHER_HARDWARE", "y")
    assert environment_options("metab") == {"devices": "2", "hardware": "x"}


def test_load_factory() -> None:
    assert plugin.load_factory("conformance.meta_tests.backends:sim").__name__ == "sim"
    assert plugin.load_factory("os.path:join") is not None  # a dotted module, any callable
    for spec, says in (
        ("conformance.meta_tests.backends", "expected MODULE:FACTORY"),
        ("no_such_module_xyz:f", "cannot import 'no_such_module_xyz'"),
        ("conformance.meta_tests.backends:nope", "has no attribute 'nope'"),
        ("conformance.requirements:TITLES", "is not callable"),
    ):
        with pytest.raises(ValueError, match=says):
            plugin.load_factory(spec)


def test_no_backend_message_says_how_to_name_one() -> None:
    text = plugin.no_backend_message()
    assert "--backend NAME" in text and "WIA_BACKEND" in text and "--backend-module" in text
    assert all(name in text for name in wia.available_backends())


# -- the results collector ------------------------------------------------------------------------------------------


def _report(
    nodeid: str,
    when: Literal["setup", "call", "teardown"],
    outcome: Literal["passed", "failed", "skipped"],
    longrepr: Any = None,
    props: list[tuple[str, object]] | None = None,
    sections: list[tuple[str, str]] | None = None,
) -> pytest.TestReport:
    default_props: list[tuple[str, object]] = [("wia_section", "3.4"), ("wia_req", "R-3.4-01,R-3.4-03")]
    return pytest.TestReport(
        nodeid,
        ("f.py", 1, "t"),
        {},
        outcome,
        longrepr,
        when,
        sections=sections or [],
        duration=0.5,
        user_properties=default_props if props is None else props,
    )


def test_collector_merges_the_phases(pytestconfig: pytest.Config) -> None:
    session = ConformanceSession(pytestconfig)
    error_props: list[tuple[str, object]] = [("wia_section", "3.4"), ("wia_req", "R-3.4-01"), ("wia_kind", "error")]
    replay = [("wia-conformance replay", "replay: wia-conformance --backend sim b")]
    for when in ("setup", "call", "teardown"):
        session.pytest_runtest_logreport(_report("a", when, "passed"))
    session.pytest_runtest_logreport(_report("b", "setup", "passed"))
    session.pytest_runtest_logreport(_report("b", "call", "failed", "E   got 1, but should be 2 [f()]", None, replay))
    session.pytest_runtest_logreport(_report("b", "teardown", "passed"))
    session.pytest_runtest_logreport(
        _report("c", "setup", "skipped", ("f.py", 3, "Skipped: not supported: supports_int8 is False"))
    )
    session.pytest_runtest_logreport(_report("c", "teardown", "passed"))
    session.pytest_runtest_logreport(
        _report("d", "setup", "skipped", ("f.py", 3, "Skipped: the backend exposes no device"))
    )
    session.pytest_runtest_logreport(_report("e", "call", "passed"))
    session.pytest_runtest_logreport(_report("e", "teardown", "failed", "boom in teardown", error_props))
    session.pytest_runtest_logreport(_report("f", "call", "failed", "TypeError: x", error_props))
    session.pytest_runtest_logreport(_report("not-ours", "call", "failed", "x", props=[]))
    results = {r.nodeid: r for r in session.run_report().tests}
    assert set(results) == {"a", "b", "c", "d", "e", "f"}
    assert results["a"].outcome == "passed" and results["a"].duration_s == 1.5
    assert results["a"].reqs == ["R-3.4-01", "R-3.4-03"] and results["a"].section == "3.4"
    assert results["b"].outcome == "failed" and "got 1, but should be 2 [f()]" in results["b"].message
    assert results["b"].replay == "replay: wia-conformance --backend sim b"
    assert results["c"].outcome == "not supported" and results["c"].capability == "supports_int8"
    assert results["d"].outcome == "skipped" and results["d"].message == "the backend exposes no device"
    assert results["e"].outcome == "error" and results["e"].message.startswith("error in teardown")
    assert results["f"].outcome == "error" and results["f"].message == "TypeError: x"


def test_collector_reports_what_did_not_run(pytestconfig: pytest.Config) -> None:
    session = ConformanceSession(pytestconfig)
    session.inventory = {"a": ["3.4", ["R-3.4-01"], ""], "b": ["3.4", ["R-3.4-02"], "--select"]}
    session.pytest_runtest_logreport(_report("a", "call", "passed"))
    node = SimpleNamespace(workeroutput={"wia_inventory": {"c": ["3.4", ["R-3.4-03"], "--quick"]}})
    session.pytest_testnodedown(node, None)  # what an xdist worker collected
    results = {r.nodeid: r for r in session.run_report().tests}
    assert results["b"].outcome == "not run" and results["b"].message == "--select"
    assert results["c"].outcome == "not run" and results["c"].message == "--quick"


def test_collector_is_inert_outside_the_suite(pytestconfig: pytest.Config) -> None:
    session = ConformanceSession(pytestconfig)
    assert not session.active and not session.installed


def test_names_suite() -> None:
    config: Any = SimpleNamespace(invocation_params=SimpleNamespace(dir=plugin.SUITE_DIR.parent), args=[])
    for args, named in (
        (["conformance"], True),
        (["conformance/test_3_2_devices.py::test_x"], True),
        ([str(plugin.SUITE_DIR)], True),
        (["conformance/meta_tests"], False),
        (["tests"], False),
    ):
        config.args = args
        assert plugin.names_suite(config) is named, args
