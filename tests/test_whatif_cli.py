"""``wia-sim whatif`` end to end (its main function, and wia-sim finding it through the wia_sim.commands entry
point): the table, CSV, JSON and plot it writes, --list, and its errors."""

from __future__ import annotations

import csv
import importlib.util
import json
from importlib.metadata import EntryPoint
from pathlib import Path

import pytest

from wia_sim import cli as sim_cli
from wia_whatif.cli import main
from wia_whatif.workload import RunReport

ARGS = ["mlp", "--preset", "tiny", "--hardware", "wia-tiny,nvidia-h100-sxm5-80gb", "--workers", "1"]


def test_a_sweep_prints_its_table_and_writes_csv_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    csv_path, json_path = tmp_path / "rows.csv", tmp_path / "rows.json"
    argv = [*ARGS, "--vary", "memory.bandwidth=1x,2x", "--param", "batch=8,16", "--set", "memory.size=2x"]
    assert main([*argv, "--csv", str(csv_path), "--json", str(json_path)]) == 0
    out = capsys.readouterr().out
    assert "mlp (tiny): 8 point(s)" in out
    for heading in ("hardware", "memory.bandwidth", "memory.size", "batch", "time / step", "samples / s", "fits"):
        assert heading in out
    assert out.count("nvidia-h100-sxm5-80gb") == 4 and "/ 159.3 GiB" in out  # the H100's 79.6 GiB doubled
    reports = [RunReport.model_validate(item) for item in json.loads(json_path.read_text())]
    assert [(r.hardware, r.overrides["memory.bandwidth"], r.params["batch"]) for r in reports][:3] == [
        ("wia-tiny", "1x", 8), ("wia-tiny", "1x", 16), ("wia-tiny", "2x", 8)
    ]  # fmt: skip
    rows = list(csv.DictReader(csv_path.open()))
    assert len(rows) == 8
    for column in ("params.batch", "overrides.memory.bandwidth", "counts.flops", "step_time_ms", "wall_s", "fits"):
        assert column in rows[0]
    assert [float(row["step_time_ms"]) for row in rows] == [r.step_time_ms for r in reports]


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib (the plot extra) is missing")
def test_the_plot_draws_a_line_per_hardware_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "sweep.png"
    assert main([*ARGS, "--vary", "memory.bandwidth=0.5x,1x,2x", "--plot", str(png), "--y", "throughput"]) == 0
    assert "throughput against memory.bandwidth, 2 line(s)" in capsys.readouterr().out
    assert png.read_bytes().startswith(b"\x89PNG")


def test_list_shows_the_workloads_presets_and_parameters(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert "mlp:" in out and "preset tiny" in out and "width" in out and "samples/s" in out


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([*ARGS, "--set", "memory.bandwith=2x"], "unknown field 'memory.bandwith' (did you mean 'bandwidth'"),
        ([*ARGS, "--set", "memory.size"], "--set 'memory.size': expected NAME=VALUE"),
        ([*ARGS, "--param", "batch=8", "--param", "batch=16"], "a parameter is given twice"),
        ([*ARGS, "--plot", "x.png", "--y", "speed"], "--y 'speed': not a figure of a run"),
        ([*ARGS, "--plot", "x.png"], "--plot: nothing varies to draw against"),
        (["mlp", "--preset", "huge"], "no preset 'huge'"),
        (["mpl"], "no workload 'mpl' (did you mean 'mlp'?)"),
    ],
)
def test_errors_say_what_was_wrong(argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("wia-sim whatif: ") and expected in err


def test_a_missing_workload_or_a_bad_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in ([], [*ARGS, "--workers", "0"], [*ARGS, "--warmup", "-1"]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2
    assert "--warmup: expected a whole number" in capsys.readouterr().err


def test_wia_sim_runs_whatif_from_its_entry_point(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = EntryPoint(name="whatif", value="wia_whatif.cli:register", group=sim_cli.COMMANDS_GROUP)
    monkeypatch.setattr(sim_cli, "entry_points", lambda group: [entry] if group == sim_cli.COMMANDS_GROUP else [])
    assert sim_cli.main(["whatif", *ARGS]) == 0
    assert "mlp (tiny): 2 point(s)" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        sim_cli.main(["whatif", "--help"])
    assert "--vary FIELD=V1,V2" in capsys.readouterr().out


def test_wia_sim_says_when_whatif_is_not_installed_or_broken(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sim_cli, "entry_points", lambda group: [])
    assert sim_cli.main(["whatif", "mlp", "--list"]) == 1
    assert "wia-sim whatif: it is not installed" in capsys.readouterr().err
    broken = EntryPoint(name="whatif", value="no_such_module:register", group=sim_cli.COMMANDS_GROUP)
    monkeypatch.setattr(sim_cli, "entry_points", lambda group: [broken])
    assert sim_cli.main(["whatif"]) == 1
    assert "failed to load (ModuleNotFoundError" in capsys.readouterr().err
    assert sim_cli.main(["models", "list"]) == 0  # the other commands still work
    with pytest.raises(SystemExit):
        sim_cli.main(["models", "--bogus"])
