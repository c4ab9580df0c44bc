"""The suite's pytest plugin (entry point ``pytest11: wia_conformance``).

Because it is installed as an entry point, pytest loads it in every run of this environment. It stays inert unless
the run collects conformance tests (modules ``conformance/test_*.py``) or names a backend with ``--wia-backend``:
only then does it select the backend, check the ``req`` markers, collect results and write reports.

What it does when active:

- selects the backend once, after collection and before the first test: ``wia.set_backend(name, **options)``
  with ``name`` from ``--wia-backend`` (else ``WIA_BACKEND``, else ``sim``) and options from the environment
  (``WIA_<BACKEND>_<KEY>=value``) overridden by ``--wia-option KEY=VALUE``. No test selects a backend.
- requires every conformance test to carry ``@pytest.mark.req("R-...")`` and records its section and requirement
  IDs as user properties (they travel to xdist's controller and into ``--junitxml``).
- records each test's outcome (passed, failed, not supported, skipped), duration and message, and writes
  ``--wia-report-json`` / ``--wia-report-md`` (see :mod:`conformance.report`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import wia_hal as wia
from conformance import strategies as hh
from conformance.assertions import is_req_id
from conformance.report import RunReport, TestResult, classify_skip, section_of

SUITE_DIR = Path(__file__).resolve().parent
META_DIR = SUITE_DIR / "meta_tests"
PLUGIN_NAME = "wia-conformance-suite"

_SECTION_PROP = "wia_section"
_REQ_PROP = "wia_req"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("wia-conformance", "WIA-AI-011 conformance suite (active only for conformance tests)")
    group.addoption(
        "--wia-backend",
        default=None,
        metavar="NAME",
        help="backend to validate (default: $WIA_BACKEND, else 'sim')",
    )
    group.addoption(
        "--wia-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="backend option passed to wia.set_backend (repeatable); WIA_<BACKEND>_<KEY> variables also work",
    )
    group.addoption("--wia-report-json", default=None, metavar="PATH", help="write the results as JSON")
    group.addoption(
        "--wia-report-md", default=None, metavar="PATH", help="write a Markdown report with a verdict per level"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "req(*ids): the WIA-AI-011 requirement IDs (SPEC.md, e.g. 'R-3.4.1-01') a conformance test checks"
    )
    hh.configure(_option(config, "hypothesis_seed"))
    config.pluginmanager.register(ConformanceSession(config), PLUGIN_NAME)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The suite's own meta tests run only when asked for by path (``pytest conformance/meta_tests``)."""
    if collection_path == META_DIR and not any("meta_tests" in str(a) for a in config.args):
        return True
    return None


def _option(config: pytest.Config, name: str) -> Any:
    try:
        return config.getoption(name)
    except ValueError:  # an option of a plugin that is not loaded
        return None


def is_suite_path(path: Path) -> bool:
    """Whether ``path`` is one of the suite's test modules (not a meta test)."""
    try:
        resolved = path.resolve()
    except OSError:
        return False
    return resolved.parent == SUITE_DIR and resolved.name.startswith("test_") and resolved.suffix == ".py"


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """``["hardware=wia-tiny", "devices=2"]`` -> ``{"hardware": "wia-tiny", "devices": "2"}``."""
    options: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise pytest.UsageError(f"--wia-option {pair!r}: expected KEY=VALUE")
        options[key.strip().lower()] = value
    return options


def environment_options(backend: str) -> dict[str, str]:
    """``WIA_<BACKEND>_<KEY>=value`` variables as options (``WIA_SIM_HARDWARE`` -> ``hardware``)."""
    prefix = f"WIA_{backend.upper()}_"
    return {k[len(prefix) :].lower(): v for k, v in sorted(os.environ.items()) if k.startswith(prefix) and k != prefix}


def _reqs_of(item: pytest.Item) -> list[str]:
    return [str(r) for marker in item.iter_markers("req") for r in marker.args]


class ConformanceSession:
    """Backend selection and the results collector of one pytest run (registered as ``wia-conformance-suite``)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.backend_name: str = _option(config, "wia_backend") or os.environ.get("WIA_BACKEND") or "sim"
        self.explicit = _option(config, "wia_backend") is not None
        self.cli_options = parse_options(_option(config, "wia_option") or [])
        self.active = self.explicit
        self.selected = False
        self.device: dict[str, Any] | None = None
        self.capabilities: dict[str, Any] | None = None
        self.results: dict[str, TestResult] = {}
        self.started = time.monotonic()

    # -- setting ----------------------------------------------------------------------------------------------------

    @property
    def options(self) -> dict[str, str]:
        return {**environment_options(self.backend_name), **self.cli_options}

    @property
    def hypothesis(self) -> str:
        seed = _option(self.config, "hypothesis_seed")
        if seed is not None:
            return f"seed {seed} (--hypothesis-seed={seed})"
        return "derandomized: each test's examples are fixed (pass --hypothesis-seed=N to draw others)"

    def select_backend(self) -> None:
        """``wia.set_backend`` once per process; the only place the suite selects a backend."""
        if self.selected:
            return
        self.selected = True
        try:
            wia.set_backend(self.backend_name, **self.options)
        except wia.WiaError as e:
            pytest.exit(f"wia-conformance: cannot select backend {self.backend_name!r}: {e}", returncode=4)
        try:
            if wia.get_device_count() > 0:
                device = wia.get_device(0)
                self.device = wia.get_device_info(device).model_dump(mode="json")
                self.capabilities = wia.get_device_capabilities(device).model_dump(mode="json")
        except wia.WiaError as e:
            self.device = {"error": f"{type(e).__name__}: {e}"}

    # -- collection -------------------------------------------------------------------------------------------------

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            if not is_suite_path(item.path):
                continue
            self.active = True
            reqs = _reqs_of(item)
            item.user_properties.append((_SECTION_PROP, section_of(item.nodeid, reqs)))
            item.user_properties.append((_REQ_PROP, ",".join(reqs)))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if self.active:
            self.select_backend()

    def pytest_report_header(self, config: pytest.Config) -> list[str] | None:
        if not self.explicit:
            return None
        return [
            f"wia-conformance: backend {self.backend_name!r}, options {self.options}",
            f"wia-conformance: hypothesis {self.hypothesis}",
        ]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if not is_suite_path(item.path):
            return
        reqs = _reqs_of(item)
        if not reqs:
            pytest.fail("conformance test without @pytest.mark.req('R-...'): every test names what it checks")
        bad = [r for r in reqs if not is_req_id(r)]
        if bad:
            pytest.fail(f"@pytest.mark.req: {bad} are not requirement IDs like 'R-3.4.1-01'")

    # -- results ----------------------------------------------------------------------------------------------------

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        section = props.get(_SECTION_PROP)
        if section is None:
            return
        self.active = True
        result = self.results.get(report.nodeid)
        if result is None:
            reqs = [r for r in str(props.get(_REQ_PROP, "")).split(",") if r]
            result = self.results[report.nodeid] = TestResult(report.nodeid, str(section), reqs, "passed")
        result.duration_s += report.duration
        if report.failed:
            if result.outcome != "failed":
                result.outcome = "failed"
                result.message, result.details = _failure_text(report)
                if report.when != "call":
                    result.message = f"error in {report.when}: {result.message}"
        elif report.skipped and result.outcome == "passed":
            reason = _skip_reason(report)
            result.outcome = classify_skip(reason)
            result.message = reason

    def run_report(self) -> RunReport:
        return RunReport(
            backend=self.backend_name,
            options=self.options,
            device=self.device,
            capabilities=self.capabilities,
            hypothesis=self.hypothesis,
            results=list(self.results.values()),
            duration_s=time.monotonic() - self.started,
        )

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workerinput"):  # an xdist worker: the controller writes the reports
            return
        json_path = _option(self.config, "wia_report_json")
        md_path = _option(self.config, "wia_report_md")
        if not (json_path or md_path):
            return
        if self.active and not self.selected and self.device is None:
            self.select_backend()  # the xdist controller collects nothing; it reports the device too
        report = self.run_report()
        if json_path:
            Path(json_path).write_text(report.to_json() + "\n", encoding="utf-8")
        if md_path:
            Path(md_path).write_text(report.to_markdown(), encoding="utf-8")

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not (self.active and self.results):
            return
        report = self.run_report()
        tr = terminalreporter
        tr.section("WIA-AI-011 conformance")
        name = (report.device or {}).get("name", "(no device)")
        tr.write_line(f"backend {report.backend!r} {report.options}, device 0: {name}")
        tr.write_line(f"hypothesis: {report.hypothesis}")
        for s in report.sections:
            c = s.counts
            tr.write_line(
                f"  {s.section:<6} {s.title:<36} passed {c['passed']:>3}  failed {c['failed']:>3}  "
                f"not supported {c['not supported']:>3}  skipped {c['skipped']:>3}"
            )
        for v in report.levels:
            tr.write_line(f"  {v.name:<28} {v.verdict:<10} {v.reason}")


def _failure_text(report: pytest.TestReport) -> tuple[str, str]:
    longrepr = report.longrepr
    crash = getattr(longrepr, "reprcrash", None)
    full = report.longreprtext or str(longrepr)
    message = str(getattr(crash, "message", "") or "")
    if message.startswith("Failed: "):  # pytest.fail, which the assertion helpers use
        message = message[len("Failed: ") :]
    if not message:
        lines = full.strip().splitlines()
        message = lines[-1] if lines else "failed"
    return message, full[-8000:]


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    reason = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason[len("Skipped: ") :] if reason.startswith("Skipped: ") else reason
