"""The sim's host model: one host thread (one clock every call spends) or one per device (a call for device d spends
and waits on d's clock), as a tensor-parallel engine runs one process per GPU."""

from __future__ import annotations

import numpy as np
import pytest

import wia_hal as wia
from wia_whatif.run import run_point


def _issue(host_threads: str, devices: int, launches: int) -> list[float]:
    """``launches`` small adds on each device, issued round-robin from this thread; each device's end (ms)."""
    wia.set_backend("sim", hardware="wia-tiny-4x", devices=devices, host_threads=host_threads, numerics=False)
    contexts = [wia.create_context(wia.ContextConfig(device_id=d)) for d in range(devices)]
    xs = [wia.empty((64,), ctx=ctx) for ctx in contexts]
    for _ in range(launches):
        for x in xs:
            wia.add(x, x)
    ends = []
    for ctx in contexts:
        wia.context_synchronize(ctx)
        ends.append(wia.get_backend().clock_ms())
    for ctx in contexts:
        wia.destroy_context(ctx)
    return ends


def test_one_thread_issues_every_device_s_launches_in_turn_and_per_device_threads_overlap_them() -> None:
    one = _issue("one", 4, 200)
    per_device = _issue("per-device", 4, 200)
    # one thread: 800 launches end the program; a thread per device: each device's 200, the same for all four
    assert max(per_device) < 0.4 * max(one)
    assert max(per_device) == pytest.approx(min(per_device), rel=0.01)  # (device 0 also paid the set-up calls)
    single = _issue("per-device", 1, 200)
    assert single == pytest.approx(_issue("one", 1, 200), rel=1e-12)  # one device: the same program, the same times


def test_per_device_threads_keep_results_and_cross_device_order() -> None:
    wia.set_backend("sim", hardware="wia-tiny-4x", devices=2, host_threads="per-device")
    rng = np.random.default_rng(7)
    data = [rng.standard_normal(256).astype(np.float32) for _ in range(2)]
    contexts = [wia.create_context(wia.ContextConfig(device_id=d)) for d in range(2)]
    xs = [wia.tensor(a, ctx=ctx) for a, ctx in zip(data, contexts, strict=True)]
    total = wia.all_reduce([wia.mul(x, 2.0) for x in xs])
    for t in total:
        np.testing.assert_allclose(t.numpy(), 2 * (data[0] + data[1]), rtol=1e-6)
    for ctx in contexts:
        wia.destroy_context(ctx)


def test_an_unknown_host_model_is_invalid_value_listing_the_choices() -> None:
    with pytest.raises(wia.InvalidValueError, match=r"host_threads='two'.*one, per-device"):
        wia.set_backend("sim", hardware="wia-tiny", host_threads="two")


def test_a_tensor_parallel_decode_step_is_not_host_bound_with_a_thread_per_device() -> None:
    params = {"layers": 4, "hidden": 1024, "heads": 8, "kv_heads": 8, "mlp": 2816, "vocab": 4096, "phase": "decode",
              "batch": 1, "seq": 256, "devices": 4}  # fmt: skip
    # eager: the host launches every op (a graph launch is one call per device: test_graphs.py)
    one = run_point("transformer", params, hardware="nvidia-hgx-h100", warmup=0, host_threads="one", graph=False)
    threads = run_point("transformer", params, hardware="nvidia-hgx-h100", warmup=0, graph=False)
    assert one.bound == "host"
    assert threads.step_time_ms is not None and one.step_time_ms is not None
    assert threads.step_time_ms < 0.5 * one.step_time_ms
    assert threads.time_by_bound_ms.get("host", 0.0) < one.time_by_bound_ms["host"]


def test_a_collective_counts_as_communication_on_every_device_not_as_host_idle() -> None:
    """Only one device's profile records a collective; the others wait in it too, so it is not 'host' time there
    (before: host idle about equal to the all-reduce time, and the parts of a step added up to more than it)."""
    params = {"layers": 4, "hidden": 1024, "heads": 8, "kv_heads": 8, "mlp": 2816, "vocab": 4096, "phase": "decode",
              "batch": 1, "seq": 256, "devices": 2}  # fmt: skip
    report = run_point("transformer", params, hardware="nvidia-hgx-h100", warmup=0)
    parts = report.time_by_bound_ms
    assert report.step_time_ms is not None
    assert parts["host"] < 0.5 * parts["communication"]
    assert sum(parts.values()) <= 1.02 * report.step_time_ms  # kernels, collectives and idle tile this step


def test_a_profiling_window_starts_on_its_own_device_s_host_clock() -> None:
    """With a host clock per device, a window opened for device 1 after device 0's host ran ahead keeps device 1's
    work (its start was read from the last call's clock, device 0's, and dropped everything device 1 submitted
    before that)."""
    wia.set_backend("sim", hardware="wia-tiny-4x", devices=2, host_threads="per-device", numerics=False)
    contexts = [wia.create_context(wia.ContextConfig(device_id=d, enable_profiling=True)) for d in range(2)]
    xs = [wia.empty((64,), ctx=ctx) for ctx in contexts]
    for _ in range(100):
        wia.add(xs[0], xs[0])  # device 0's host clock runs ahead
    profiler = wia.begin_profiling(contexts[1])
    for _ in range(10):
        wia.add(xs[1], xs[1])
    wia.end_profiling(profiler)
    assert wia.get_profile_report(profiler).num_kernels == 10
    for ctx in contexts:
        wia.destroy_context(ctx)
