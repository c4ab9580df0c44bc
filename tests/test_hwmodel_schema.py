"""A bad model file is an error that names the file, the field and what was expected."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import wia_hal as wia
from wia_sim.hwmodel import HardwareModelError, available_models, load_model, model_path

TINY = model_path("wia-tiny").read_text()


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "custom.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("edit", "field", "expected"),
    [
        (('bandwidth = "50 GB/s"', 'bandwidth = "-50 GB/s"'), "memory.bandwidth", "greater than 0"),
        (('bandwidth = "50 GB/s"', 'bandwidth = "50 GHz"'), "memory.bandwidth", "got unit 'GHz'"),
        (('bandwidth = "50 GB/s"', "bandwidth = 50"), "memory.bandwidth", "without a unit"),
        (('bandwidth = "50 GB/s"', ""), "memory.bandwidth", "required field is missing"),
        (('bandwidth = "50 GB/s"', 'bandwidth = "50 GB/s"\nbandwith = "1 GB/s"'), "memory.bandwith", "unknown key"),
        (("compute_units = 4", "compute_units = 0"), "compute.compute_units", "greater than 0"),
        (('float32 = "0.5 TFLOP/s"', ""), "compute", "must give float32"),
        (('device_type = "GPU"', 'device_type = "QPU"'), "device_type", "Input should be"),
        (
            ('pageable_h2d_bandwidth = "3 GB/s"', 'pageable_h2d_bandwidth = "9 GB/s"'),
            "host_link",
            "exceeds pinned_h2d_bandwidth",
        ),
        (('alignment = "256 B"', 'alignment = "300 B"'), "memory", "power of two"),
    ],
)
def test_bad_file_names_file_field_and_expectation(
    tmp_path: Path, edit: tuple[str, str], field: str, expected: str
) -> None:
    old, new = edit
    assert old in TINY
    path = _write(tmp_path, TINY.replace(old, new, 1))
    with pytest.raises(HardwareModelError) as info:
        load_model(path)
    message = str(info.value)
    assert str(path) in message
    assert re.search(rf"^  {re.escape(field)}: .*{re.escape(expected)}", message, re.MULTILINE), message


def test_not_toml(tmp_path: Path) -> None:
    path = _write(tmp_path, "name = [unclosed")
    with pytest.raises(HardwareModelError, match="not valid TOML") as info:
        load_model(path)
    assert str(path) in str(info.value)


def test_unknown_model_lists_shipped_ones() -> None:
    with pytest.raises(HardwareModelError) as info:
        load_model("nvidia-b300")
    for name in available_models():
        assert name in str(info.value)


def test_backend_reports_unknown_model_as_invalid_value() -> None:
    with pytest.raises(wia.InvalidValueError, match="unknown hardware model 'nvidia-b300'") as info:
        wia.set_backend("sim", hardware="nvidia-b300")
    assert "wia-tiny" in str(info.value)
    assert info.value.code is wia.ErrorCode.INVALID_VALUE


def test_custom_file_by_path(tmp_path: Path) -> None:
    path = _write(tmp_path, TINY.replace('bandwidth = "50 GB/s"', 'bandwidth = "100 GB/s"', 1))
    wia.set_backend("sim", hardware=str(path))
    info = wia.get_device_info(wia.get_device(0))
    assert info.memory_bandwidth == pytest.approx(100e9)
