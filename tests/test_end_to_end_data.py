"""docs/fidelity/end_to_end.csv and the method of benchmarks/end_to_end.py that maps its rows to workload steps."""

from __future__ import annotations

import csv
import dataclasses
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from benchmark_scripts import benchmark_script

from wia_sim.hwmodel import available_models, available_systems, is_system, load_model, load_system

ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "docs" / "fidelity" / "end_to_end.csv"
SOURCES = ROOT / "docs" / "fidelity" / "sources_end_to_end.md"
UNITS = {"tokens/s", "tokens/s/GPU", "samples/s", "ms"}
MAPPINGS = {"serving", "static", "prefill", "samples"}
ASSUMABLE = {"input_len", "batch", "tp", "precision"}


@pytest.fixture(scope="module")
def e2e() -> ModuleType:
    return benchmark_script("end_to_end")


@pytest.fixture(scope="module")
def rows(e2e: ModuleType) -> list[Any]:
    return list(e2e.read_rows(CSV))


def test_every_row_parses_with_a_source_and_sane_units(rows: list[Any]) -> None:
    raw = list(csv.DictReader(CSV.open(newline="")))
    assert len(rows) == len(raw) >= 15
    assert len({r.id for r in rows}) == len(rows), "row ids are unique"
    hardware = set(available_models()) | set(available_systems())
    sources = SOURCES.read_text()
    for r, text in zip(rows, raw, strict=True):
        assert r.source.strip() and r.url.startswith("https://"), r.id
        assert text["conditions"].strip(), f"{r.id}: the conditions the source states"
        assert r.value > 0 and r.unit in UNITS, r.id
        assert r.system in hardware, f"{r.id}: {r.system} is not a shipped model or system"
        assert set(r.assumed) <= ASSUMABLE, r.id
        assert r.source.split()[0].split("/")[0] in sources or r.source.split()[0] in sources, r.id
        if r.predicted_kind is None:
            assert r.why_not, f"{r.id}: a row kept for reference says why it is not predicted"
            continue
        assert r.predicted_kind in MAPPINGS, r.id
        assert r.chips % r.devices == 0, f"{r.id}: {r.chips} chips in instances of {r.devices}"
        assert (r.devices > 1) == is_system(r.system), f"{r.id}: a multi-device instance runs on a system"
        if r.devices > 1:
            assert load_system(r.system).model.count >= r.devices, r.id
        # what each mapping needs is published or assumed
        needs = {"prefill": ["input_len"], "samples": ["batch"]}.get(r.predicted_kind, ["batch", "input_len"])
        for name in needs:
            assert r.need(name) > 0, r.id
        if r.predicted_kind in ("serving", "static"):
            assert r.need("output_len") > 0 and r.unit in ("tokens/s", "tokens/s/GPU"), r.id
        if r.predicted_kind == "prefill":
            assert r.unit == "ms" and r.batch == 1, r.id
        if r.predicted_kind == "samples":
            assert r.unit == "samples/s", r.id


def test_a_row_reads_what_it_needs_from_the_published_columns_before_the_assumed(rows: list[Any]) -> None:
    by_id = {r.id: r for r in rows}
    h100 = by_id["mlperf41-h100x8-llama2-offline"]
    assert (h100.need("batch"), h100.need("input_len"), h100.instances) == (896, 512, 4)
    mi300x = by_id["mlperf41-mi300x8-llama2-offline"]
    assert (mi300x.need("batch"), mi300x.devices, mi300x.instances) == (256, 1, 8)
    with pytest.raises(ValueError, match="no batch published or assumed"):
        dataclasses.replace(by_id["trtllm05-h100-llama70b-tp4-ttft-128"], batch=None).need("batch")


def test_low_precision_is_emulated_with_the_device_peak_and_halved_bytes(e2e: ModuleType) -> None:
    h100 = e2e.precision_overrides("fp8", "nvidia-hgx-h100")
    float8 = load_model("nvidia-h100-sxm5-80gb").compute.peak_flops["float8"]
    assert h100["device.compute.peak_flops.bfloat16"] == f"{float8 / 1e12:.6g} TFLOP/s" == "1978.9 TFLOP/s"
    assert h100["device.memory.bandwidth"] == h100["device.memory.size"] == "2x"
    assert e2e.precision_overrides("int8", "nvidia-a100-sxm4-80gb")["compute.peak_flops.bfloat16"] == "624 TFLOP/s"
    assert e2e.precision_overrides("fp16", "nvidia-dgx-a100") == {}
    assert e2e.precision_overrides("fp8", "nvidia-a100-sxm4-80gb") is None  # A100 has no float8


class FakeRunner:
    """Steps from a linear model: prefill a·tokens, decode b + c·batch·cache; fits up to ``max_batch``."""

    def __init__(self, max_batch: int = 1 << 20) -> None:
        self.max_batch = max_batch
        self.points: list[Any] = []

    def __call__(self, point: Any) -> Any:
        self.points.append(point)
        p = dict(point.params)
        if point.workload == "resnet50":
            return _step(p["batch"] * 1e-4, items=p["batch"])
        tokens = p["batch"] * (p["seq"] if p["phase"] == "prefill" else 1)
        if p["phase"] == "prefill":
            return _step(2e-6 * tokens, items=tokens)
        return _step(0.02 + 1e-8 * p["batch"] * p["seq"], items=p["batch"], fits=p["batch"] <= self.max_batch)


def _step(seconds: float, items: float, fits: bool = True) -> Any:
    module = sys.modules["end_to_end"]
    return module.Step(fits=fits, time_s=seconds, parameters=69_000_000_000, flops=1.4e11 * items, items=items)


def test_static_batch_throughput_is_output_tokens_over_prefill_and_decode_per_gpu(
    e2e: ModuleType, rows: list[Any]
) -> None:
    row = next(r for r in rows if r.id == "trtllm061-h100-llama70b-tp2-b64-2048-2048")
    run = FakeRunner()
    p = e2e.predict(row, run)
    prefill = 64 * 2e-6 * 2048
    decode = 0.02 + 1e-8 * 64 * (2048 + 1024)
    assert p.predicted == pytest.approx(64 * 2048 / (prefill + 2048 * decode) / 2)
    assert p.parameters == 69_000_000_000 and p.flops_per_item == pytest.approx(1.4e11)
    # every step ran on one instance of the row's tensor-parallel degree, on its system, emulating fp8
    assert {dict(pt.params)["devices"] for pt in run.points} == {2}
    assert all(pt.hardware == "nvidia-hgx-h100" and dict(pt.vary) for pt in run.points)
    assert {dict(pt.params)["phase"] for pt in run.points} == {"prefill", "decode"}


def test_serving_throughput_counts_every_instance_and_halves_a_batch_that_does_not_fit(
    e2e: ModuleType, rows: list[Any]
) -> None:
    row = next(r for r in rows if r.id == "mlperf41-h100x8-llama2-offline")
    fitting = e2e.predict(row, FakeRunner())
    halved = e2e.predict(row, FakeRunner(max_batch=300))
    assert fitting.notes and not any("does not fit" in n for n in fitting.notes)
    assert any("batch 896 does not fit: 224" in n for n in halved.notes)
    out = row.need("output_len")
    cache = 512 + int(out / 2)
    per_instance = 224 * out / (224 * 2e-6 * 512 + out * (0.02 + 1e-8 * 224 * cache))
    assert halved.predicted == pytest.approx(4 * per_instance)
    assert halved.error == pytest.approx(row.value / halved.predicted - 1)


def test_first_token_and_samples_rows_are_one_step(e2e: ModuleType, rows: list[Any]) -> None:
    ttft = next(r for r in rows if r.id == "trtllm05-a100-llama70b-tp4-ttft-2048")
    p = e2e.predict(ttft, FakeRunner())
    assert p.predicted == pytest.approx(2e-6 * 2048 * 1e3)  # ms
    assert p.error == pytest.approx(p.predicted / ttft.value - 1)  # a time: predicted / measured - 1
    resnet = next(r for r in rows if r.id == "mlperf41-h200x8-resnet50-offline")
    assert e2e.predict(resnet, FakeRunner()).predicted == pytest.approx(8 / 1e-4)


def test_rows_that_cannot_be_predicted_say_why(e2e: ModuleType, rows: list[Any]) -> None:
    run = FakeRunner()
    predictions = e2e.predict_all(rows, run)
    kept = [p for p in predictions if p.predicted is None]
    assert kept and all(p.why for p in kept)
    assert all(p.row.predicted_kind is None for p in kept)  # with the fake runner everything else fits
    training = next(p for p in kept if p.row.scenario == "training step")
    assert "closed form: 6 x 175." in training.notes[0]  # GPT-3's 175B parameters (Brown et al. 2020, table 2.1)
    n, median, p90 = e2e.summary(predictions)
    assert n == len(predictions) - len(kept) and 0 <= median <= p90
    # rows share steps: each distinct point ran once
    assert len(run.points) == len(set(run.points))


# The documented agreement (docs/fidelity.md, "End to end: models on systems") of rows that take one or two fast
# steps: predicted / published stays in these bands. A change of the cost model, the workloads or the hardware
# models that moves them out must update the table and the text.
BANDS = {
    "trtllm05-a100-llama70b-tp4-ttft-128": (0.65, 0.95),
    "mlperf30-a100x1-resnet50-offline": (0.35, 0.6),
    "mlperf41-mi300x1-llama2-offline": (0.8, 1.1),
}


def _sim_varies_hardware() -> bool:
    import wia_hal as wia

    try:
        wia.set_backend("sim", hardware="wia-tiny", set="memory.bandwidth=2x")
    except wia.InvalidValueError:
        return False
    return True


@pytest.mark.parametrize("row_id", sorted(BANDS))
def test_fast_rows_stay_in_their_documented_band(e2e: ModuleType, rows: list[Any], row_id: str) -> None:
    pytest.importorskip("wia_whatif.run", reason="the what-if runner is not in this build")
    row = next(r for r in rows if r.id == row_id)
    if e2e.precision_overrides(row.precision, row.system) and not _sim_varies_hardware():
        pytest.skip("the sim backend has no hardware variation (set=) in this build")
    low, high = BANDS[row_id]
    p = e2e.predict(row, e2e.run_with_whatif)
    assert p.ratio is not None, p.why
    assert low <= p.ratio <= high, f"{row_id}: predicted {p.predicted:.4g} against {row.value:.4g} {row.unit}"
