"""``wia-conformance`` end to end: backend naming, outcomes, replay lines that replay, --select, --skip-file,
--backend-module, coverage and report. Runs that install a backend run in a subprocess (on ``wia-tiny``)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import wia_hal as wia
from conformance import cli
from conformance import requirements as rq
from conformance.coverage import collect_coverage
from conformance.meta_tests import fake_suite
from conformance.report import RunReport


def _env() -> dict[str, str]:
    """The environment without a backend or its options, so that only the command line names them."""
    return {k: v for k, v in os.environ.items() if not k.startswith("WIA_") and k != "PYTEST_ADDOPTS"}


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**_env(), "COLUMNS": "200"}
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


# -- usage errors (no test runs) ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        ([], "name the backend to validate: --backend NAME (or WIA_BACKEND=NAME)"),
        (["-q"], "--backend-module pkg.mod:Factory"),
        (["--backend", "no-such-backend"], "unknown backend 'no-such-backend'; installed: "),
        (["--backend-module", "no_such_module_xyz:make"], "cannot import 'no_such_module_xyz'"),
        (["--backend", "sim", "--backend-module", "a:b"], "name one backend"),
        (["--backend", "sim", "--select", "R-3.5.9-*"], "--select 'R-3.5.9-*' matches no requirement ID"),
        (["run", "--backend", "sim", "--skip-file", "/no/such/skips.txt"], "No such file"),
        (["--backend", "sim", "--hypothesis-seed", "-5"], "--hypothesis-seed: '-5' is not a seed; expected a whole"),
    ],
)
def test_usage_errors_exit_2(
    argv: list[str], says: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("WIA_BACKEND", raising=False)
    assert cli.main(argv) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert says in err
    if not argv:
        assert f"installed: {', '.join(wia.available_backends())}" in err


def test_plain_pytest_of_the_suite_needs_a_backend(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("WIA_BACKEND", raising=False)
    rc = pytest.main([str(cli.SUITE_DIR / "test_3_2_devices.py"), "-p", "no:cacheprovider", "-q"])
    assert rc == pytest.ExitCode.USAGE_ERROR
    assert "name the backend to validate" in capsys.readouterr().err


def test_the_pytest_command() -> None:
    argv = ["--backend", "sim", "--option", "hardware=wia-tiny", "--json", "r.json", "-k", "memory", "--quick"]
    argv += ["--select", "R-3.5.2-*", "--junitxml", "j.xml", "conformance/test_3_7_ops.py::test_add[x]"]
    args = cli.build_parser().parse_args(argv)
    argv = cli.pytest_arguments(args, ["-x"])
    assert argv[0] == f"{cli.SUITE_DIR / 'test_3_7_ops.py'}::test_add[x]"  # a replayed id, from any folder
    joined = " ".join(argv)
    assert "--wia-backend sim" in joined and "--wia-option hardware=wia-tiny" in joined
    assert "--wia-report-json r.json" in joined and "-k memory" in joined and argv[-1] == "-x"
    assert "--wia-select R-3.5.2-*" in joined and "--wia-quick" in joined and "--wia-report-junit j.xml" in joined
    module = cli.build_parser().parse_args(["--backend-module", "acme:make"])
    assert cli.pytest_arguments(module, [])[0] == str(cli.SUITE_DIR)
    assert "--wia-backend-module acme:make" in " ".join(cli.pytest_arguments(module, []))


# -- outcomes and replays on a suite that fails on purpose ----------------------------------------------------------


def _falsifying(text: str) -> str:
    found = re.search(r"got (\d+), but should be a multiple of 8", text)
    assert found, text
    return found.group(1)


def test_outcomes_replay_lines_and_replays(tmp_path: Path) -> None:
    fake_suite.write(tmp_path)
    runner = ["-m", "conformance.meta_tests.fake_suite", str(tmp_path)]
    options = ["--backend", "sim", "--option", "hardware=wia-tiny", "--hypothesis-seed", "12345", "--quick"]
    done = _run([*runner, *options, "-q", "--json", "r.json"], tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    report = RunReport.model_validate_json((tmp_path / "r.json").read_text())
    outcomes = {t.nodeid.split("::")[-1]: t.outcome for t in report.tests}
    assert outcomes == {
        "test_passes": "passed",
        "test_parametrized[1]": "passed",
        "test_parametrized[2]": "not run",  # --quick keeps the first and the last
        "test_parametrized[3]": "not run",
        "test_parametrized[4]": "passed",
        "test_names_no_requirement_of_the_spec": "error",
        "test_assertion_fails": "failed",
        "test_wia_error_escapes": "failed",  # a WiaError the test did not expect: the backend's failure
        "test_suite_breaks": "error",  # an API that does not exist: the suite broke
        "test_not_supported": "not supported",
        "test_fixture_breaks": "error",
        "test_hypothesis_fails": "failed",
    }
    counts = "3 passed, 3 failed, 3 errors, 1 not supported, 0 not applicable, 0 skipped; 2 not run"
    assert f"10 tests: {counts}" in done.stdout
    # the three levels fail for the same reason: said once
    assert "Levels 1-3: FAIL: R-3.7-02, R-3.7-03, R-3.8-02 failed; R-3.7-04, R-3.7-99, R-3.8-01 errored" in (
        done.stdout
    )
    assert "Level 1 (portable)" not in done.stdout and "no verdict" not in done.stdout
    failed = next(t for t in report.tests if t.nodeid.endswith("test_hypothesis_fails"))
    assert failed.message.startswith("AssertionError: got ") and "hypothesis seed: 12345" in failed.replay
    replay = failed.replay.splitlines()[0].removeprefix("replay: ")
    assert f"replay: {replay}" in done.stdout
    assert replay == (
        "wia-conformance --backend sim --option hardware=wia-tiny --hypothesis-seed 12345 --quick "
        "test_3_7_fake.py::test_hypothesis_fails"
    )
    again = _run([*runner, *shlex.split(replay)[1:], "-q"], tmp_path)
    assert again.returncode == 1 and "1 tests: 0 passed, 1 failed" in again.stdout, again.stdout + again.stderr
    assert _falsifying(again.stdout) == _falsifying(failed.message)  # the same example


def test_coverage_of_a_suite_with_gaps(tmp_path: Path) -> None:
    fake_suite.write(tmp_path)
    cov, errors = collect_coverage(tmp_path)
    assert not errors and cov.tests == 12
    assert "test_3_7_fake.py::test_names_no_requirement_of_the_spec: 'R-3.7-99' is not a requirement ID of SPEC.md" in (
        cov.problems
    )
    assert "R-3.2-01 is claimed but no test is tagged with it" in cov.problems
    assert {r.id: r.tests for r in cov.rows}["R-3.7-01"] == 5


# -- the real suite -------------------------------------------------------------------------------------------------


def test_coverage_of_the_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["coverage"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^R-3\.5\.2-03 +2 +[1-9]\d* +yes +A pool grows up to max_size", out, re.M), out
    assert re.search(r"^R-3\.8-04 +3 +[1-9]\d* +yes +Fences", out, re.M)
    assert f"{len(rq.CLAIMED)} of {len(rq.TITLES)} requirements claimed" in out
    assert "problem:" not in out


def test_select_skip_file_backend_module_and_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "skips.txt").write_text("# known problems\nR-3.2-01  # says why\n")
    args = ["--backend-module", "conformance.meta_tests.backends:sim", "--option", "hardware=wia-tiny"]
    args += ["--select", "R-3.2-0[12]", "--skip-file", "skips.txt", "-q"]
    args += ["--json", "r.json", "--markdown", "r.md", "--junitxml", "r.xml"]
    done = _run(["-m", "conformance.cli", *args], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    report = RunReport.model_validate_json((tmp_path / "r.json").read_text())
    assert report.backend == "conformance.meta_tests.backends:sim" and report.device
    assert report.command == "wia-conformance --backend-module conformance.meta_tests.backends:sim " + (
        "--option hardware=wia-tiny"
    )
    assert report.device["name"].startswith("WIA Tiny")
    level1 = report.levels[0]
    assert level1.verdict == "INCOMPLETE"
    assert level1.incomplete["skipped (skip-file)"] == ["R-3.2-01"]
    assert "R-3.2-03" in level1.incomplete["did not run (--select)"]
    assert "R-3.2-01 skipped (skip-file)" in done.stdout and "R-3.2-03, R-3.2.1-01" in done.stdout
    assert report.summary["passed"] > 0 and report.summary["skipped"] == 1 and not report.problems
    junit = ET.parse(tmp_path / "r.xml").getroot()
    assert len(junit.findall(".//testcase")) == report.summary["passed"] + 1
    # re-rendering the saved result runs nothing and gives the same Markdown
    assert cli.main(["report", str(tmp_path / "r.json"), "--markdown", str(tmp_path / "again.md"), "-q"]) == 0
    out = capsys.readouterr().out
    assert f"{report.summary['passed'] + 1} tests: {report.summary['passed']} passed, 0 failed, 0 errors" in out
    assert "Level 1 (portable): INCOMPLETE: " in out
    assert (tmp_path / "again.md").read_text() == (tmp_path / "r.md").read_text()
    assert json.loads((tmp_path / "r.json").read_text())["levels"][0]["verdict"] == "INCOMPLETE"


def test_report_of_a_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    assert cli.main(["report", str(tmp_path / "none.json")]) == 2
