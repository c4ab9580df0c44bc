"""``wia-sim models show``: every field with its value in human units and its source from the file's comments, and
the same facts as ``wia devices`` shows for the same model."""

from __future__ import annotations

import re

import pytest

import wia_hal as wia
from wia_hal.cli import device_rows
from wia_hal.cli import main as wia_main
from wia_sim.cli import main as sim_main
from wia_sim.cli import model_rows, model_sources
from wia_sim.hwmodel import available_models, load_model, model_path

MODELS = available_models()


@pytest.fixture(autouse=True)
def wide(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "300")


def _show(name: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert sim_main(["models", "show", name]) == 0
    return capsys.readouterr().out


def _cells(out: str) -> dict[str, tuple[str, str]]:
    """The rows of ``models show``'s table as captured (ASCII borders): field -> (value, source), each cell's
    wrapped lines joined."""
    rows: dict[str, list[list[str]]] = {}
    field = ""
    for line in out.splitlines():
        cells = [c.strip() for c in line.split("|")[1:-1]]
        if len(cells) != 3 or set(line) <= set("+-"):
            continue
        field = cells[0] or field
        rows.setdefault(field, [[], []])
        for i in (0, 1):
            if cells[i + 1]:
                rows[field][i].append(cells[i + 1])
    return {f: (" ".join(v), " ".join(s)) for f, (v, s) in rows.items()}


def test_the_comment_parser() -> None:
    header, sources = model_sources(
        "# the header\n# its second line\nschema_version = 1  # a format number\n\n[memory]\n"
        '# a block above\n# of two lines\nsize = "1 GiB"  # trailing\nname = "a # not a comment"\n\n'
        "[host_link]\nlanes = 4\n"
    )
    assert header == ["the header", "its second line"]
    assert sources["schema_version"] == ["a format number"]
    assert sources["memory.size"] == ["a block above", "of two lines", "trailing"]
    assert sources["memory.name"] == [] and sources["host_link.lanes"] == []


@pytest.mark.parametrize("name", MODELS)
def test_show_prints_every_trailing_comment_and_the_header(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = model_path(name).read_text(encoding="utf-8")
    header, sources = model_sources(text)
    raw = _show(name, capsys)
    out, cells = " ".join(raw.split()), _cells(raw)
    for line in header:
        assert " ".join(line.split()) in out
    rows = {field: source for field, _, source in model_rows(load_model(name), sources)}
    trailing = 0
    table = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            table = line.strip("[] ")
            continue
        key, sep, rest = line.partition("=")
        if not sep or line.startswith("#") or "#" not in rest:
            continue
        field = f"{table}.{key.strip()}" if table else key.strip()
        comment = rest.split("#", 1)[1].strip()
        trailing += 1
        if field == "schema_version":
            continue  # the file format, not a device figure
        assert comment in rows[field], field
        assert " ".join(comment.split()) in cells[field][1], field
    assert trailing > 0 or name == "wia-tiny"  # a fictional device: nothing to cite


RAW_FLOAT = re.compile(r"\d\.\d+e[+-]\d+")


@pytest.mark.parametrize("name", MODELS)
def test_show_prints_values_in_human_units(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    rows = model_rows(load_model(name), {})
    for field, value, _ in rows:
        assert not RAW_FLOAT.search(value), (field, value)
        assert not re.search(r"\bNone\b", value), (field, value)
        assert value not in ("True", "False"), (field, value)
    out = _show(name, capsys)
    assert not RAW_FLOAT.search(out) and not re.search(r"\bNone\b", out)


def test_a_missing_vector_rate_is_said_in_words(capsys: pytest.CaptureFixture[str]) -> None:
    rows = {field: value for field, value, _ in model_rows(load_model("nvidia-v100-sxm2-32gb"), {})}
    assert rows["compute.vector_float64"] == "not modeled: vector FP64 runs at the float64 peak (7.8 TFLOP/s)"
    h100 = {field: value for field, value, _ in model_rows(load_model("nvidia-h100-sxm5-80gb"), {})}
    assert h100["compute.vector_float64"] == "33.5 TFLOP/s"
    assert h100["compute.kernel_launch_latency"] == "2.433 µs" and h100["memory.bandwidth"] == "3,350 GB/s"


# -- models show and wia devices agree ------------------------------------------------------------------------------

SHARED = {
    "name": "display_name",
    "vendor": "vendor",
    "type": "device_type",
    "architecture": "architecture",
    "compute units": "compute.compute_units",
    "clock": "compute.clock",
    "memory": "memory.size",
    "memory bandwidth": "memory.bandwidth",
    "last-level cache": "memory.last_level_cache",
    "peak FP32 (dense)": "compute.peak_flops.float32",
    "supports unified memory": "features.unified_memory",
    "supports managed memory": "features.managed_memory",
    "supports pinned memory": "features.pinned_memory",
    "supports peer to peer": "features.peer_to_peer",
    "supports custom kernels": "features.custom_kernels",
    "supports profiling": "features.profiling",
    "max work group size": "compute.max_work_group_size",
    "max shared memory": "compute.max_local_memory_per_work_group",
    "max streams": "features.max_streams",
}
"""``wia devices`` label -> ``models show`` field, for every fact both show."""


def _first_word(value: str) -> str:
    return value.split(" (")[0].split(" in the simulator")[0]


@pytest.mark.parametrize("name", MODELS)
def test_models_show_and_wia_devices_agree(
    name: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("WIA_SIM_HARDWARE", name)
    wia.set_backend("sim", hardware=name)
    device = wia.get_device(0)
    devices = dict(device_rows(wia.get_device_info(device), wia.get_device_capabilities(device)))
    model = load_model(name)
    shown = {field: value for field, value, _ in model_rows(model, {})}
    for label, field in SHARED.items():
        ours, theirs = devices[label], shown[field]
        if label.startswith("supports ") or label == "type":  # wia devices adds what a type is: "TPU (tensor ...)"
            assert _first_word(ours) == _first_word(theirs), (label, ours, theirs)
        else:
            assert ours == theirs, (label, ours, theirs)
    for precision in ("float16", "bfloat16", "int8", "float64"):
        has = f"compute.peak_flops.{precision}" in shown
        assert devices[f"supports {precision}"] == ("yes" if has else "no"), precision
        if has:
            assert devices[f"  peak {precision}"] == shown[f"compute.peak_flops.{precision}"]
    link = model.host_link
    assert devices["host link"] == (
        f"{link.interface} {link.generation} x{link.lanes} ({shown['host_link.pinned_h2d_bandwidth']} pinned H2D)"
    )
    # and the commands print them
    assert wia_main(["devices"]) == 0
    out = capsys.readouterr().out
    show = _show(name, capsys)
    for label, field in SHARED.items():
        assert devices[label] in out and shown[field] in show, label
