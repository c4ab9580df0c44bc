"""The what-if runner (wia_whatif.run.run_point) on the MLP workload, whose counts have a closed form: the report's
figures against that arithmetic, the cost model's own sums (wia.explain), a roofline, and a float64 reference."""

from __future__ import annotations

import math

import numerics_reference as nr
import numpy as np
import pytest

import wia_hal as wia
from wia_hal.runtime import runtime
from wia_sim.hwmodel import load_model
from wia_whatif import WorkloadParams, get_workload
from wia_whatif.run import run_point
from wia_whatif.workloads.mlp import MLP, MlpParams

H100 = "nvidia-h100-sxm5-80gb"


def test_mlp_counts_are_the_cost_models_sums_of_its_ops() -> None:
    p = MLP.params(layers=3, width=96, batch=16, dtype="bfloat16")
    counts = MLP.counts(p)
    assert counts.parameters == 3 * (96 * 96 + 96)
    assert counts.flops == 2 * 16 * 3 * 96 * 96
    assert counts.weight_bytes == 2 * counts.parameters
    ctx = wia.create_context()
    (replica,) = MLP.setup(p, [ctx])
    flops = bytes_ = 0.0
    x = replica.x
    for weight, bias in zip(replica.weights, replica.biases, strict=True):  # the step, op by op
        reports = []
        y = wia.matmul(x, weight)
        reports.append(wia.explain(y))
        z = wia.add(y, bias)
        reports.append(wia.explain(z))
        x = wia.gelu(z)
        reports.append(wia.explain(x))
        flops += reports[0].useful_flops
        bytes_ += sum(r.bytes for r in reports)
    assert flops == counts.flops
    assert bytes_ == counts.bytes


def test_the_run_report_holds_the_counts_and_stays_above_the_roofline() -> None:
    p = MLP.params(layers=4, width=4096, batch=64)
    report = run_point(MLP, p, hardware=H100)
    model = load_model(H100)
    counts = MLP.counts(p)
    assert report.fits and report.error is None
    assert report.counts == counts and report.unit == "samples" and report.hardware == H100
    assert report.step_time_ms is not None and report.throughput is not None
    floor_s = max(counts.flops / model.compute.peak_flops["bfloat16"], counts.bytes / model.memory.bandwidth)
    assert report.step_time_ms > floor_s * 1e3
    assert report.throughput == pytest.approx(64 / (report.step_time_ms / 1e3))
    assert report.simulated_ops == 3 * 4
    assert report.bound in report.time_by_bound_ms
    assert max(report.time_by_bound_ms.values()) <= report.step_time_ms
    assert counts.weight_bytes <= report.peak_memory_bytes <= report.memory_size_bytes == model.memory.size
    assert not runtime().contexts  # the runner destroyed its contexts


def test_a_point_is_deterministic_and_profiling_does_not_change_its_time() -> None:
    args = ("mlp", {"layers": 3, "width": 512, "batch": 8})
    first = run_point(*args, hardware=H100, set={"memory.bandwidth": "2x"})
    second = run_point(*args, hardware=H100, set={"memory.bandwidth": "2x"})
    assert first.model_dump(exclude={"wall_s"}) == second.model_dump(exclude={"wall_s"})
    unprofiled = run_point(*args, hardware=H100, set={"memory.bandwidth": "2x"}, profile=False)
    assert unprofiled.step_time_ms == pytest.approx(first.step_time_ms, rel=1e-12)  # the clock is offset
    assert unprofiled.bound is None and unprofiled.simulated_ops == 0
    assert first.overrides == {"memory.bandwidth": "2x"}


def test_bandwidth_sets_a_memory_bound_steps_time() -> None:
    args = ("mlp", {"layers": 2, "width": 16384, "batch": 8})
    base = run_point(*args, hardware=H100)
    faster = run_point(*args, hardware=H100, set={"memory.bandwidth": "2x"})
    assert base.bound == faster.bound == "memory"
    assert base.step_time_ms is not None and faster.step_time_ms is not None
    assert 0.45 < faster.step_time_ms / base.step_time_ms < 0.55
    compute = run_point("mlp", {"layers": 2, "width": 8192, "batch": 8192}, hardware=H100)
    assert compute.bound == "compute"


def test_a_model_that_does_not_fit_gives_fits_false_and_why() -> None:
    report = run_point("mlp", {"layers": 8, "width": 4096, "batch": 8}, hardware="wia-tiny")
    assert not report.fits
    assert report.error is not None and "out of memory" in report.error
    assert report.step_time_ms is None and report.throughput is None and report.bound is None
    assert not runtime().contexts


def test_data_parallel_devices_each_run_their_share() -> None:
    one = run_point("mlp", {"layers": 2, "width": 2048, "batch": 64}, hardware="nvidia-hgx-h100")
    four = run_point("mlp", {"layers": 2, "width": 2048, "batch": 64, "devices": 4}, hardware="nvidia-hgx-h100")
    assert four.devices == 4 and four.simulated_ops == 4 * one.simulated_ops
    assert four.counts.flops == one.counts.flops
    assert four.counts.bytes == one.counts.bytes + 3 * one.counts.weight_bytes
    assert four.peak_memory_bytes < one.peak_memory_bytes + one.counts.weight_bytes  # per device, not summed
    with pytest.raises(wia.InvalidValueError, match="does not split evenly over 3 devices"):
        MLP.params(batch=64, devices=3)


def test_presets_parameters_and_errors() -> None:
    assert get_workload("mlp") is MLP
    assert run_point("mlp", "tiny", hardware="wia-tiny").preset == "tiny"
    with pytest.raises(wia.InvalidValueError, match=r"no workload 'mpl' \(did you mean 'mlp'"):
        get_workload("mpl")
    with pytest.raises(wia.InvalidValueError, match=r"no preset 'huge'.*tiny, small, large"):
        run_point("mlp", "huge", hardware="wia-tiny")
    with pytest.raises(wia.InvalidValueError, match="not the parameters of workload 'mlp'"):
        run_point("mlp", WorkloadParams(), hardware="wia-tiny")
    with pytest.raises(wia.InvalidValueError, match="unknown hardware model"):
        run_point("mlp", "tiny", hardware="no-such-chip")


def test_the_mlp_computes_what_numpy_computes() -> None:
    p = MlpParams(layers=1, width=48, batch=6, dtype="float32", seed=7)
    ctx = wia.create_context()
    (replica,) = MLP.setup(p, [ctx])
    MLP.step(p, [replica])
    assert replica.output is not None
    x, w, b = (t.numpy().astype(np.float64) for t in (replica.x, replica.weights[0], replica.biases[0]))
    arithmetic = wia.explain(wia.matmul(replica.x, replica.weights[0])).precision
    arithmetic = arithmetic if arithmetic in nr.EPS else "float32"
    z = x @ w + b
    z_bound = nr.dot_bound(x @ w, np.abs(x) @ np.abs(w), 48, "float32", arithmetic, arithmetic != "float32")
    z_bound = z_bound + nr.eps("float32") * (np.abs(z) + np.abs(b))  # the bias add's rounding
    gelu_slope = 1.13  # max |d/dz gelu(z)| = 1.1289 (at z = √2): an error in z grows by at most this
    ref = nr.gelu(z)
    bound = gelu_slope * z_bound + nr.elementwise_bound(ref, "float32", condition=nr.gelu_condition(z))
    nr.assert_within(replica.output.numpy(), ref, bound, "mlp layer")
    assert not math.isclose(float(np.abs(ref).max()), 0.0)


def test_warmup_times_the_steady_state_not_the_pools_first_growth() -> None:
    # eager: a graph's memory is allocated when it is captured or instantiated, so its first launch grows no pool
    args = ("mlp", {"layers": 4, "width": 1024, "batch": 512})
    first, steady, later = (run_point(*args, hardware=H100, warmup=n, graph=False) for n in (0, 1, 2))
    assert first.step_time_ms is not None and steady.step_time_ms is not None
    assert first.bound == "host" and first.time_by_bound_ms["host"] > 0.5 * first.step_time_ms  # device allocations
    assert steady.step_time_ms < first.step_time_ms / 2 and steady.bound != "host"
    assert later.step_time_ms == pytest.approx(steady.step_time_ms, rel=1e-12)
    assert (first.warmup, steady.warmup) == (0, 1)
    with pytest.raises(wia.InvalidValueError, match="warmup must be a whole number"):
        run_point(*args, hardware=H100, warmup=-1)


def test_without_hardware_the_sim_backend_chooses_and_the_report_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_SIM_HARDWARE", "wia-tiny")
    monkeypatch.setenv("WIA_SIM_SET", "memory.size=2x")
    report = run_point("mlp", "tiny")
    assert report.hardware == "wia-tiny"
    assert report.memory_size_bytes == 2 * load_model("wia-tiny").memory.size
