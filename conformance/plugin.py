"""The suite's pytest plugin (entry point ``pytest11: wia_conformance``).

Because it is installed as an entry point, pytest loads it in every run of this environment. It stays inert unless
the run collects conformance tests (modules ``conformance/test_*.py``) or names a backend: only then does it
install the backend, check the ``req`` markers, choose the tests, collect results and write reports.

What it does when active:

- installs the backend once per process, after collection and before the first test, from ``--wia-backend NAME``
  (else ``WIA_BACKEND``; options from ``WIA_<NAME>_<KEY>`` overridden by ``--wia-option KEY=VALUE``) or
  ``--wia-backend-module pkg.mod:Factory`` (``Factory(**options)`` with the ``--wia-option`` values). A run of the
  suite that names no backend stops with a usage error: the suite never picks one itself.
- requires every conformance test to carry ``@pytest.mark.req("R-...")`` with IDs of SPEC.md.
- chooses the tests: ``--wia-select GLOB`` (requirement IDs), ``--wia-quick`` (a smoke subset) and
  ``--wia-skip-file PATH``; deselected tests are remembered as "not run", so the verdicts can name them.
- records each test's outcome (passed, failed, error, not supported, skipped), duration, message and a replay
  command, and writes ``--wia-report-json`` / ``--wia-report-md`` / ``--wia-report-junit``.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

import wia_hal as wia
from conformance import requirements as rq
from conformance import selection
from conformance import strategies as hh
from conformance.render import render_junit, render_markdown, summary_lines
from conformance.report import RunReport, TestResult, build_report, classify_skip, section_of

SUITE_DIR = Path(__file__).resolve().parent
META_DIR = SUITE_DIR / "meta_tests"
PLUGIN_NAME = "wia-conformance-suite"

_SECTION_PROP = "wia_section"
_REQ_PROP = "wia_req"
_KIND_PROP = "wia_kind"
_REPLAY_SECTION = "wia-conformance replay"
_INVENTORY = "wia_inventory"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("wia-conformance", "WIA-AI-011 conformance suite (active only for conformance tests)")
    group.addoption("--wia-backend", default=None, metavar="NAME", help="backend to validate (default: $WIA_BACKEND)")
    group.addoption(
        "--wia-backend-module",
        default=None,
        metavar="MOD:FACTORY",
        help="a backend that is not installed: FACTORY(**options) of module MOD returns a wia_hal.Backend",
    )
    group.addoption(
        "--wia-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="backend option (repeatable); for --wia-backend, WIA_<BACKEND>_<KEY> variables also work",
    )
    group.addoption(
        "--wia-select",
        action="append",
        default=[],
        metavar="GLOB",
        help="only tests tagged with a requirement ID matching GLOB, e.g. 'R-3.5.2-*' (repeatable)",
    )
    group.addoption("--wia-quick", action="store_true", help="a smoke subset: few parametrizations and examples")
    group.addoption("--wia-skip-file", default=None, metavar="PATH", help="skip the tests or requirements listed")
    group.addoption("--wia-report-json", default=None, metavar="PATH", help="write the results as JSON")
    group.addoption("--wia-report-md", default=None, metavar="PATH", help="write a Markdown report")
    group.addoption("--wia-report-junit", default=None, metavar="PATH", help="write JUnit XML (one suite a section)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "req(*ids): the WIA-AI-011 requirement IDs (SPEC.md, e.g. 'R-3.4.1-01') a conformance test checks"
    )
    hh.configure(_option(config, "hypothesis_seed"), quick=bool(_option(config, "wia_quick")))
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


def no_backend_message() -> str:
    """What to do when no backend is named: the suite never falls back to one."""
    names = ", ".join(wia.available_backends()) or "(none installed)"
    return (
        "name the backend to validate: --backend NAME (or WIA_BACKEND=NAME) for an installed backend "
        f"(installed: {names}), or --backend-module pkg.mod:Factory for one that is not installed "
        "(pytest: --wia-backend / --wia-backend-module)"
    )


def load_factory(spec: str) -> Callable[..., Any]:
    """``pkg.mod:Factory`` (``Factory`` may be dotted) -> the callable; ValueError saying what is wrong."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"--backend-module {spec!r}: expected MODULE:FACTORY, e.g. acme_wia.backend:AcmeBackend")
    try:
        target: Any = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"--backend-module {spec!r}: cannot import {module_name!r}: {e}") from e
    for part in attr.split("."):
        if not hasattr(target, part):
            raise ValueError(f"--backend-module {spec!r}: {module_name!r} has no attribute {attr!r}")
        target = getattr(target, part)
    if not callable(target):
        raise ValueError(f"--backend-module {spec!r}: {attr!r} is not callable")
    return target  # type: ignore[no-any-return]


def names_suite(config: pytest.Config) -> bool:
    """Whether the command line names the suite or one of its modules (not only its meta tests)."""
    for arg in config.args:
        if arg == "conformance" or arg.startswith("conformance."):  # --pyargs
            return True
        path = (config.invocation_params.dir / arg.split("::", 1)[0]).resolve()
        if (path == SUITE_DIR or SUITE_DIR in path.parents) and path != META_DIR and META_DIR not in path.parents:
            return True
    return False


def _reqs_of(item: pytest.Item) -> list[str]:
    return [str(r) for marker in item.iter_markers("req") for r in marker.args]


def _in_suite(tb: TracebackType) -> bool:
    return Path(tb.tb_frame.f_code.co_filename).resolve().parent == SUITE_DIR


def failure_kind(exc: BaseException, tb: TracebackType | None) -> str:
    """``failed`` for what judges the backend: an assertion (``AssertionError``, ``pytest.fail``), a ``WiaError``
    the test did not expect, or any other exception raised inside the API (only ``WiaError`` may leave it).
    ``error`` for the rest: the suite broke (a ``TypeError`` in its own code, an API that does not exist)."""
    if isinstance(exc, BaseExceptionGroup):  # hypothesis: several distinct failures
        kinds = {failure_kind(e, e.__traceback__) for e in exc.exceptions}
        return "error" if "error" in kinds else "failed"
    if isinstance(exc, (AssertionError, pytest.fail.Exception, wia.WiaError)):
        return "failed"
    frames: list[TracebackType] = []
    while tb is not None:
        frames.append(tb)
        tb = tb.tb_next
    last_suite = max((i for i, f in enumerate(frames) if _in_suite(f)), default=-1)
    deeper = frames[last_suite + 1 :]
    if any(str(f.tb_frame.f_globals.get("__name__", "")).startswith("wia_hal") for f in deeper):
        return "failed"
    return "error"


class ConformanceSession:
    """Backend installation, test choice and the results collector of one run (registered as
    ``wia-conformance-suite``)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.backend_module: str | None = _option(config, "wia_backend_module")
        named = _option(config, "wia_backend")
        if named and self.backend_module:
            raise pytest.UsageError("--wia-backend and --wia-backend-module: name one backend")
        self.backend_name: str | None = named or (None if self.backend_module else os.environ.get("WIA_BACKEND"))
        self.explicit = bool(named or self.backend_module)
        self.cli_options = parse_options(_option(config, "wia_option") or [])
        self.select: list[str] = list(_option(config, "wia_select") or [])
        self.quick = bool(_option(config, "wia_quick"))
        self.skip_file: str | None = _option(config, "wia_skip_file")
        try:
            selection.check_select(self.select)
            self.skip_rules = selection.parse_skip_file(
                Path(self.skip_file).read_text(encoding="utf-8") if self.skip_file else ""
            )
        except (ValueError, OSError) as e:
            raise pytest.UsageError(str(e)) from e
        self.active = self.explicit
        self.installed = False
        self.device: dict[str, Any] | None = None
        self.capabilities: dict[str, Any] | None = None
        self.results: dict[str, TestResult] = {}
        self.inventory: dict[str, list[Any]] = {}
        """Every suite test collected: nodeid -> [section, reqs, why it did not run ("" when chosen to run)]."""
        self.started = time.monotonic()
        collect_only = bool(_option(config, "collectonly"))
        if not self.named and names_suite(config) and not collect_only:
            raise pytest.UsageError(no_backend_message())

    # -- setting ----------------------------------------------------------------------------------------------------

    @property
    def named(self) -> bool:
        return bool(self.backend_name or self.backend_module)

    @property
    def label(self) -> str:
        return self.backend_module or self.backend_name or "(none)"

    @property
    def options(self) -> dict[str, str]:
        if self.backend_module or not self.backend_name:
            return dict(self.cli_options)
        return {**environment_options(self.backend_name), **self.cli_options}

    @property
    def seed(self) -> object:
        return _option(self.config, "hypothesis_seed")

    @property
    def hypothesis(self) -> str:
        examples = f"; at most {hh.QUICK_EXAMPLES} examples per test (--quick)" if self.quick else ""
        if self.seed is not None:
            return f"seed {self.seed} (--hypothesis-seed {self.seed}){examples}"
        return "derandomized: each test's examples are fixed (--hypothesis-seed N draws others)" + examples

    def command(self, tests: Sequence[str] = ()) -> str:
        return selection.command_line(
            self.backend_name, self.backend_module, self.options, self.seed, self.quick, tests
        )

    def install_backend(self) -> None:
        """The suite's only backend selection, once per process."""
        if self.installed:
            return
        self.installed = True
        if not self.named:
            pytest.exit(f"wia-conformance: {no_backend_message()}", returncode=pytest.ExitCode.USAGE_ERROR)
        try:
            if self.backend_module:
                wia.set_backend(load_factory(self.backend_module)(**self.options))
            else:
                assert self.backend_name is not None
                wia.set_backend(self.backend_name, **self.options)
        except Exception as e:  # a factory may raise anything; the run cannot start either way
            pytest.exit(f"wia-conformance: cannot install backend {self.label}: {type(e).__name__}: {e}", returncode=3)
        try:
            if wia.get_device_count() > 0:
                device = wia.get_device(0)
                self.device = wia.get_device_info(device).model_dump(mode="json")
                self.capabilities = wia.get_device_capabilities(device).model_dump(mode="json")
        except wia.WiaError as e:
            self.device = {"error": f"{type(e).__name__}: {e}"}

    # -- collection -------------------------------------------------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Before any other plugin deselects: tag, inventory, skip-file, then ``--select`` and ``--quick``."""
        suite = [item for item in items if is_suite_path(item.path)]
        if not suite:
            return
        self.active = True
        for item in suite:
            reqs = _reqs_of(item)
            section = section_of(item.nodeid, reqs)
            item.user_properties.append((_SECTION_PROP, section))
            item.user_properties.append((_REQ_PROP, ",".join(reqs)))
            self.inventory[item.nodeid] = [section, reqs, ""]
            reason = selection.skip_reason(self.skip_rules, item.nodeid, reqs)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))
        dropped = [i for i in suite if not selection.selected(self.select, _reqs_of(i))]
        for item in dropped:
            self.inventory[item.nodeid][2] = "--select"
        if self.quick:
            chosen = [i for i in suite if not self.inventory[i.nodeid][2]]
            keep = selection.quick_subset([selection.function_of(i.nodeid) for i in chosen])
            for item, kept in zip(chosen, keep, strict=True):
                if not kept:
                    self.inventory[item.nodeid][2] = "--quick"
                    dropped.append(item)
        if dropped:
            gone = {id(i) for i in dropped}
            items[:] = [i for i in items if id(i) not in gone]
            config.hook.pytest_deselected(items=dropped)
        if hasattr(config, "workeroutput"):  # an xdist worker: the controller learns what did not run from it
            config.workeroutput[_INVENTORY] = self.inventory

    def pytest_deselected(self, items: Sequence[pytest.Item]) -> None:
        for item in items:
            entry = self.inventory.get(item.nodeid)
            if entry is not None and not entry[2]:
                entry[2] = "-k/-m"

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        """xdist's controller collects nothing itself: it merges the workers' inventories."""
        for nodeid, (section, reqs, reason) in getattr(node, "workeroutput", {}).get(_INVENTORY, {}).items():
            entry = self.inventory.setdefault(nodeid, [section, list(reqs), reason])
            entry[2] = entry[2] or reason

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if self.active and not _option(self.config, "collectonly"):
            self.install_backend()

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """A suite module that does not import is an error of the suite: its tests cannot run."""
        if report.failed and is_suite_path(self.config.rootpath / report.nodeid.split("::", 1)[0]):
            self.active = True
            self.results[report.nodeid] = TestResult(
                nodeid=report.nodeid,
                section=section_of(report.nodeid, []),
                reqs=[],
                outcome="error",
                message="the module could not be collected: " + _last_line(report.longreprtext),
                details=report.longreprtext[-8000:],
            )

    def pytest_report_header(self, config: pytest.Config) -> list[str] | None:
        if not self.active and not self.explicit:
            return None
        return [
            f"wia-conformance: backend {self.label}, options {self.options}",
            f"wia-conformance: hypothesis {self.hypothesis}",
            f"wia-conformance: {self.command()}",
        ]

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if not is_suite_path(item.path):
            return
        reqs = _reqs_of(item)
        if not reqs:
            pytest.fail("conformance test without @pytest.mark.req('R-...'): every test names what it checks")
        unknown = [r for r in reqs if r not in rq.TITLES]
        if unknown:
            pytest.fail(f"@pytest.mark.req: {unknown} are not requirement IDs of SPEC.md (like 'R-3.4.1-01')")

    # -- results ----------------------------------------------------------------------------------------------------

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """A failure's kind (failed, or error: the suite broke) and its replay command travel with the report."""
        report = yield
        if report.failed and is_suite_path(item.path) and call.excinfo is not None:
            kind = "error" if call.when != "call" else failure_kind(call.excinfo.value, call.excinfo.tb)
            report.user_properties.append((_KIND_PROP, kind))
            report.sections.append((_REPLAY_SECTION, self.replay_text(item, report)))
        return report

    def replay_text(self, item: pytest.Item, report: pytest.TestReport) -> str:
        lines = [f"replay: {self.command([item.nodeid])}"]
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False) or "Falsifying" in report.longreprtext:
            if self.seed is not None:
                lines.append(f"hypothesis seed: {self.seed}")
            else:
                lines.append("hypothesis: derandomized (this test's examples are fixed; the replay draws the same)")
        return "\n".join(lines)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = dict(report.user_properties)
        section = props.get(_SECTION_PROP)
        if section is None:
            return
        self.active = True
        result = self.results.get(report.nodeid)
        if result is None:
            reqs = [r for r in str(props.get(_REQ_PROP, "")).split(",") if r]
            result = TestResult(nodeid=report.nodeid, section=str(section), reqs=reqs, outcome="passed")
            self.results[report.nodeid] = result
        result.duration_s += report.duration
        if report.failed:
            if result.outcome not in ("failed", "error"):
                result.outcome = "error" if props.get(_KIND_PROP) == "error" else "failed"
                result.message, result.details = _failure_text(report)
                if report.when != "call":
                    result.message = f"error in {report.when}: {result.message}"
                result.replay = dict(report.sections).get(_REPLAY_SECTION, "")
        elif report.skipped and result.outcome == "passed":
            reason = _skip_reason(report)
            result.outcome = classify_skip(reason)
            result.message = reason

    def run_report(self) -> RunReport:
        """The report so far: the tests that ran, and a "not run" record for each collected one that did not."""
        results = list(self.results.values())
        for nodeid, (section, reqs, reason) in self.inventory.items():
            if nodeid not in self.results:
                why = reason or "not reached (the run stopped before it)"
                results.append(TestResult(nodeid=nodeid, section=section, reqs=reqs, outcome="not run", message=why))
        return build_report(
            results,
            backend=self.label,
            command=self.command(),
            options=self.options,
            device=self.device,
            capabilities=self.capabilities,
            hypothesis=self.hypothesis,
            quick=self.quick,
            select=self.select,
            skip_file=self.skip_file,
            duration_s=time.monotonic() - self.started,
        )

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workeroutput") or not self.active:  # an xdist worker: the controller writes them
            return
        paths = {name: _option(self.config, name) for name in ("wia_report_json", "wia_report_md", "wia_report_junit")}
        if not any(paths.values()):
            return
        if self.named and not self.installed:
            self.install_backend()  # the xdist controller collects nothing; it reports the device too
        report = self.run_report()
        renderers: dict[str, Callable[[], str]] = {
            "wia_report_json": lambda: report.to_json() + "\n",
            "wia_report_md": lambda: render_markdown(report),
            "wia_report_junit": lambda: render_junit(report),
        }
        for name, path in paths.items():
            if path:
                Path(path).write_text(renderers[name](), encoding="utf-8")

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not (self.active and (self.results or self.inventory)):
            return
        report = self.run_report()
        terminalreporter.section("WIA-AI-011 conformance")
        for text, _style in summary_lines(report):
            terminalreporter.write_line(text)


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def _failure_text(report: pytest.TestReport) -> tuple[str, str]:
    longrepr = report.longrepr
    crash = getattr(longrepr, "reprcrash", None)
    full = report.longreprtext or str(longrepr)
    message = str(getattr(crash, "message", "") or "")
    if message.startswith("Failed: "):  # pytest.fail, which the assertion helpers use
        message = message[len("Failed: ") :]
    if not message:
        message = _last_line(full) or "failed"
    return message, full[-8000:]


def _skip_reason(report: pytest.TestReport) -> str:
    if hasattr(report, "wasxfail"):  # an expected failure (a known deviation): skipped, with its reason
        return f"xfail: {report.wasxfail}"
    longrepr = report.longrepr
    reason = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason[len("Skipped: ") :] if reason.startswith("Skipped: ") else reason
