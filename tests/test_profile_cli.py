"""Profiles a what-if user reads: reports as tables, WIA_PROFILE on an unmodified script, ``wia profile``,
``wia-sim profile`` and ``wia-sim roofline`` (docs/profiling.md)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import rich.console

import wia_hal as wia
from wia_sim.cli import main as sim_main

SCRIPT = """\
import sys
import numpy as np
import wia_hal as wia

a = wia.tensor(np.ones((64, 64), np.float32))
for _ in range(3):
    b = wia.matmul(a, a)
c = wia.gelu(b)
print("script ran", float(c.numpy()[0, 0]) > 0, sys.argv[1:])
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
"""

NO_PROFILING = """\
import numpy as np
import wia_hal as wia
from wia_hal.backends.sim import SimBackend


class NoProfiling(SimBackend):
    \"\"\"A backend whose device does not claim profiling.\"\"\"

    def device_capabilities(self, device):
        return super().device_capabilities(device).model_copy(update={"supports_profiling": False})


wia.set_backend(NoProfiling(hardware="wia-tiny"))
print("script ran", float(wia.relu(wia.tensor(np.ones(4, np.float32))).numpy()[0]) == 1.0)
"""

TWO_CONTEXTS = """\
import numpy as np
import wia_hal as wia

for _ in range(2):
    ctx = wia.create_context()
    wia.relu(wia.tensor(np.ones(256, np.float32), ctx=ctx))
    wia.destroy_context(ctx)
"""


def _profiled_window() -> tuple[wia.Profiler, wia.Tensor]:
    """Three matmuls and a softmax on one stream, two gelus on another: a small window with two of everything."""
    ctx = wia.create_context(wia.ContextConfig(enable_profiling=True))
    other = wia.create_stream(ctx)
    a = wia.tensor(np.random.default_rng(0).random((128, 128), np.float32), ctx=ctx)
    profiler = wia.begin_profiling(ctx)
    for _ in range(3):
        b = wia.matmul(a, a)
    wia.softmax(b)
    for _ in range(2):
        wia.gelu(a, stream=other)
    wia.end_profiling(profiler)
    return profiler, b


def test_profile_report_prints_as_tables_with_its_numbers() -> None:
    profiler, _ = _profiled_window()
    report = wia.get_profile_report(profiler)
    text = str(report)
    assert report.kernel_stats, "the window ran kernels"
    for k in report.kernel_stats:
        assert re.search(rf"^\s*{k.name}\s+{k.call_count}\s", text, re.MULTILINE), f"no row for {k.name}\n{text}"
    for section in ("window", "kernel time", "Top ops by total time", "Busy and idle time", "compute", "stream 1"):
        assert section in text
    matmul = next(o for o in report.op_stats if o.name == "matmul")
    peak = report.peak_flops_by_precision[matmul.precision]
    assert f"{matmul.achieved_flops / peak:.1%}" in text  # achieved FLOP/s as a share of the precision's peak
    assert f"{matmul.achieved_bandwidth / report.memory_bandwidth:.1%}" in text
    out = io.StringIO()
    rich.console.Console(file=out, width=160).print(report)  # __rich__
    assert "Top ops by total time" in out.getvalue()
    assert repr(report).startswith("ProfileReport(")  # repr stays pydantic's


def test_op_report_prints_its_breakdown_and_alternatives() -> None:
    _, b = _profiled_window()
    report = wia.explain(b)
    text = str(report)
    for expected in ("algorithm", report.algorithm, report.precision, "compute units", "efficiency", "launch"):
        assert expected in text
    assert "alternatives weighed" in text and "← ran" in text
    for choice in report.alternatives:
        assert choice.algorithm in text
    out = io.StringIO()
    rich.console.Console(file=out, width=100).print(report)
    assert report.algorithm in out.getvalue()


def test_tables_of_a_window_without_timing_render() -> None:
    ctx = wia.create_context()
    wia.enable_profiling(ctx, wia.ProfilerConfig(enable_timing=False))
    profiler = wia.begin_profiling(ctx)
    wia.relu(wia.tensor(np.ones(16, np.float32), ctx=ctx))
    wia.end_profiling(profiler)
    text = str(wia.get_profile_report(profiler))
    assert "relu" in text and "—" in text  # shares of a zero-length window are not numbers
    empty = wia.ProfileReport(
        backend="x", device="y", total_time_ms=0, kernel_time_ms=0, memory_time_ms=0, host_time_ms=0,
        peak_memory_bytes=0, num_kernels=0,
    )  # fmt: skip
    assert "Profile: y (x backend)" in str(empty)


# -- scripts under WIA_PROFILE, wia profile and wia-sim profile (subprocesses: the hook lives for the process) ------


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIA_")}
    return {**env, "WIA_SIM_HARDWARE": "wia-tiny", **extra}


def _run(args: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=_env(**extra), capture_output=True, text=True, timeout=120, check=False
    )


def _check_files(prefix: Path) -> wia.ProfileReport:
    report = wia.ProfileReport.model_validate_json(prefix.with_name(prefix.name + ".json").read_text())
    trace = json.loads(prefix.with_name(prefix.name + ".trace.json").read_text())
    assert trace["traceEvents"]
    return report


def test_wia_profile_environment_profiles_an_unmodified_script(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(SCRIPT)
    done = _run(["model.py"], tmp_path, WIA_PROFILE=str(tmp_path / "out" / "run"))
    assert done.returncode == 0, done.stderr
    assert "script ran True" in done.stdout
    report = _check_files(tmp_path / "out" / "run")
    assert {k.name: k.call_count for k in report.kernel_stats}["matmul"] == 3
    assert "Top ops by total time" in done.stderr and "matmul" in done.stderr
    assert str(tmp_path / "out" / "run.trace.json") in done.stderr


def test_wia_profile_runs_a_script_with_its_arguments_and_status(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(SCRIPT)
    done = _run(["-m", "wia_hal.cli", "profile", "--output", "p", "model.py", "3", "--output", "x"], tmp_path)
    assert done.returncode == 3, done.stderr
    assert "script ran True ['3', '--output', 'x']" in done.stdout  # what follows the script is the script's
    report = _check_files(tmp_path / "p")
    assert report.device == "WIA Tiny (test device)" and report.num_kernels == 4
    assert "gelu" in done.stderr
    chosen = ["--backend", "sim", "--option", "hardware=nvidia-h100-sxm5-80gb", "--output", "h100"]
    done = _run(["-m", "wia_hal.cli", "profile", *chosen, "model.py"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert _check_files(tmp_path / "h100").device == "NVIDIA H100 SXM5 80GB"


def test_wia_profile_numbers_the_files_of_several_contexts(tmp_path: Path) -> None:
    (tmp_path / "two.py").write_text(TWO_CONTEXTS)
    done = _run(["-m", "wia_hal.cli", "profile", "two.py"], tmp_path)
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in tmp_path.glob("wia-profile*"))
    assert len(written) == 4 and all(".ctx" in name for name in written), written  # the first was renamed
    for stem in {name.split(".ctx")[1].split(".")[0] for name in written}:
        assert _check_files(tmp_path / f"wia-profile.ctx{stem}").kernel_stats[0].name == "relu"


def test_wia_profile_on_a_backend_without_profiling_warns_and_runs(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(NO_PROFILING)
    done = _run(["-m", "wia_hal.cli", "profile", "model.py"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "script ran True" in done.stdout
    assert "does not support profiling" in done.stderr and "Traceback" not in done.stderr
    assert not list(tmp_path.glob("wia-profile*"))


def test_a_profile_that_cannot_be_written_is_reported_not_raised(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(SCRIPT)
    (tmp_path / "taken").write_text("a file where the output folder would go")
    done = _run(["-m", "wia_hal.cli", "profile", "--output", "taken/p", "model.py", "5"], tmp_path)
    assert done.returncode == 5
    assert "could not write the profile" in done.stderr and "Traceback" not in done.stderr


def test_wia_sim_profile_runs_a_script_on_the_simulator(tmp_path: Path) -> None:
    (tmp_path / "model.py").write_text(SCRIPT)
    args = ["-m", "wia_sim.cli", "profile", "--hardware", "nvidia-a100-sxm4-80gb", "-o", "sim", "model.py", "4"]
    done = _run(args, tmp_path, WIA_BACKEND="reference")  # wia-sim profile picks the simulator itself
    assert done.returncode == 4, done.stderr
    report = _check_files(tmp_path / "sim")
    assert report.backend == "sim" and report.device == "NVIDIA A100 SXM4 80GB"


# -- wia-sim roofline ---------------------------------------------------------------------------------------------


@pytest.fixture
def report_json(tmp_path: Path) -> Path:
    profiler, _ = _profiled_window()
    path = tmp_path / "report.json"
    wia.save_profile(profiler, path, wia.ProfileFormat.JSON)
    return path


def test_wia_sim_roofline_plots_a_report(report_json: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib", reason="the plot extra (pip install 'wia[plot]') is not installed")
    png = report_json.with_name("roof.png")
    assert sim_main(["roofline", str(report_json), "--output", str(png)]) == 0  # options may follow a report
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "3 op signatures" in capsys.readouterr().out  # matmul, softmax, gelu


def test_wia_sim_roofline_without_matplotlib_names_the_extra(
    report_json: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib.figure raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setenv("COLUMNS", "200")
    assert sim_main(["roofline", str(report_json)]) == 1
    assert "pip install 'wia[plot]'" in capsys.readouterr().out


def test_wia_sim_roofline_rejects_a_file_that_is_not_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "x.json").write_text(json.dumps({"traceEvents": []}))
    assert sim_main(["roofline", str(tmp_path / "x.json")]) == 1
    assert "not a wia profile report" in capsys.readouterr().out


def test_wia_sim_roofline_profiles_a_script_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("matplotlib", reason="the plot extra (pip install 'wia[plot]') is not installed")
    (tmp_path / "model.py").write_text(SCRIPT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WIA_SIM_HARDWARE", "wia-tiny")
    assert sim_main(["roofline", "model.py"]) == 0
    assert (tmp_path / "wia-profile.roofline.png").read_bytes()[:4] == b"\x89PNG"
