"""The console scripts: what a newcomer types first."""

from __future__ import annotations

from pathlib import Path

import pytest

from wia_hal.cli import main as wia_main
from wia_sim.cli import main as sim_main
from wia_sim.hwmodel import available_models


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables as a 200-column terminal shows them (rich wraps cells at its default 80)."""
    monkeypatch.setenv("COLUMNS", "200")


def test_wia_devices_lists_every_device_with_info_and_capabilities(capsys: pytest.CaptureFixture[str]) -> None:
    assert wia_main(["--option", "hardware=wia-tiny", "--option", "devices=2", "devices"]) == 0
    out = capsys.readouterr().out
    assert "device 0" in out and "device 1" in out
    for field in ("WIA Tiny", "compute units", "memory bandwidth", "peak FP32", "supports bfloat16", "max streams"):
        assert field in out


def test_wia_reports_an_unknown_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert wia_main(["--option", "hardware=no-such-chip", "devices"]) == 1
    assert "INVALID_VALUE" in capsys.readouterr().out


def test_wia_sim_models_lists_every_shipped_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert sim_main(["models"]) == 0
    out = capsys.readouterr().out
    for name in available_models():
        assert name in out


def test_wia_sim_models_show_prints_every_section(capsys: pytest.CaptureFixture[str]) -> None:
    assert sim_main(["models", "show", "nvidia-h100-sxm5-80gb"]) == 0
    out = capsys.readouterr().out
    for field in ("compute.compute_units", "memory.bandwidth", "host_link.pinned_h2d_bandwidth", "efficiency.matmul"):
        assert field in out


def test_wia_sim_models_check_names_the_bad_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('schema_version = 1\nname = "bad"\n')
    assert sim_main(["models", "check", str(bad)]) == 1
    out = capsys.readouterr().out
    assert str(bad.name) in out and "compute: required field is missing" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["explain", "matmul", "1024", "2048", "512", "--hardware", "wia-tiny", "--arithmetic", "float16"],
        ["explain", "conv2d", "8", "16", "32", "32", "32", "3", "3", "--padding", "1", "--hardware", "wia-tiny"],
    ],
)
def test_wia_sim_explain_marks_the_algorithm_auto_picks(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert sim_main(argv) == 0
    assert "← AUTO" in capsys.readouterr().out


def test_wia_sim_explain_refuses_an_arithmetic_the_model_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    assert sim_main(["explain", "matmul", "64", "64", "64", "--hardware", "nvidia-v100-sxm2-32gb"]) == 1
    assert "no bfloat16" in capsys.readouterr().out
