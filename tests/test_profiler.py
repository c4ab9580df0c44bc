"""The profiler front end (SPEC 3.10, ``wia_hal/profiling``) on the sim backend, beyond the conformance suite
(``conformance/test_3_10_profiling.py``, which checks what any backend must do): exact values where the simulator
makes them knowable, the timeline's structure (host, stream and engine tracks, flows), memory counters, windows
longer than the drain interval, and what profiling costs.

Every test runs on ``wia-tiny`` (conftest.py) unless it asks for the A100 model (``a100``), whose cost model the
exact values are taken from.
"""

from __future__ import annotations

import gc
import json
import statistics
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import wia_hal as wia
from wia_hal.backends.sim import SimBackend
from wia_hal.profiling.session import DRAIN_EVERY
from wia_sim.costmodel import transfer_cost
from wia_sim.memory import MemoryKind

A100 = "nvidia-a100-sxm4-80gb"
Event = dict[str, Any]


@pytest.fixture
def a100() -> Iterator[SimBackend]:
    wia.set_backend("sim", hardware=A100)
    backend = wia.get_backend()
    assert isinstance(backend, SimBackend)
    yield backend


def _profiled(**config: Any) -> wia.Context:
    # no default pool: these tests count the program's own waits and flows, and the pool's stream-ordered fences
    # (a block reused on another stream waits for its previous owners) add some of their own
    ctx = wia.create_context(wia.ContextConfig(default_pool=False))
    wia.enable_profiling(ctx, wia.ProfilerConfig(**config))
    return ctx


def _trace(profiler: wia.Profiler, tmp_path: Path) -> list[Event]:
    path = tmp_path / "trace.json"
    wia.save_profile(profiler, path, wia.ProfileFormat.CHROME_TRACE)
    events: list[Event] = json.loads(path.read_text())["traceEvents"]
    return events


def _thread_names(events: list[Event], pid: int) -> dict[int, str]:
    return {
        e["tid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == pid
    }


def _slices(events: list[Event], **match: Any) -> list[Event]:
    return [e for e in events if e["ph"] == "X" and all(e.get(k) == v for k, v in match.items())]


HOST, DEVICE = 1, 2  # the trace's pids: the host, device 0


# -- exact values ---------------------------------------------------------------------------------------------------


def test_a_single_add_is_what_explain_says(a100: SimBackend) -> None:
    n = 1 << 20
    ctx = _profiled()
    x = wia.tensor(np.ones(n, np.float32), ctx=ctx)
    wia.context_synchronize(ctx)
    profiler = wia.begin_profiling(ctx)
    y = wia.add(x, x, ctx=ctx)
    wia.end_profiling(profiler)
    report, op = wia.get_profile_report(profiler), wia.explain(y)
    assert report.backend == "sim" and report.device == "NVIDIA A100 SXM4 80GB"
    assert report.num_kernels == 1 and report.num_transfers == 0
    (stats,) = report.kernel_stats
    assert stats.name == "add" and stats.call_count == 1
    for value in (stats.total_time_ms, stats.min_time_ms, stats.max_time_ms, report.kernel_time_ms):
        assert value == pytest.approx(op.duration_ms, rel=1e-12)
    assert (stats.flops, stats.bytes) == (op.flops, op.bytes) == (n, 12 * n)
    assert report.bound_time_ms == {op.bound: pytest.approx(op.duration_ms, rel=1e-12)}
    (sig,) = report.op_stats
    assert sig.signature == f"add(float32[{n}], float32[{n}]) -> float32[{n}]"
    assert (sig.bound, sig.algorithm, sig.precision) == (op.bound, op.algorithm, op.precision)
    assert sig.achieved_bandwidth == pytest.approx(op.bytes / (op.duration_ms / 1e3), rel=1e-9)
    (compute,) = report.engines
    assert compute.name == "compute" and compute.count == 1 and compute.busy_ms == pytest.approx(op.duration_ms)
    assert compute.busy_ms + compute.idle_ms == pytest.approx(report.total_time_ms)
    assert op.ended_ms is not None and op.started_ms is not None
    assert report.total_time_ms >= op.duration_ms


def test_a_copy_keeps_its_engine_busy_for_its_modeled_duration(a100: SimBackend) -> None:
    n = 8 << 20
    ctx = _profiled()
    pinned, device = wia.alloc(ctx, n, wia.MemoryType.PINNED), wia.alloc(ctx, n)
    stream = wia.create_stream(ctx)
    profiler = wia.begin_profiling(ctx)
    wia.copy_async(pinned, device, n, stream)
    wia.end_profiling(profiler)
    report = wia.get_profile_report(profiler)
    expected_ms = transfer_cost(a100.model, MemoryKind.PINNED, MemoryKind.DEVICE, n).duration_s * 1e3
    engines = {e.name: e for e in report.engines}
    assert list(engines) == ["h2d"] and engines["h2d"].count == 1
    assert engines["h2d"].busy_ms == pytest.approx(expected_ms, rel=1e-12)
    assert report.memory_time_ms == pytest.approx(expected_ms, rel=1e-12)
    assert (report.num_transfers, report.bytes_transferred, report.num_kernels) == (1, n, 0)
    streams = {s.name: s for s in report.streams}
    assert streams[f"stream 1 of context {ctx.id}"].busy_ms == pytest.approx(expected_ms, rel=1e-12)


def test_host_slices_of_an_allocation_are_the_models_latency(a100: SimBackend, tmp_path: Path) -> None:
    ctx = _profiled()
    profiler = wia.begin_profiling(ctx)
    wia.alloc(ctx, 4096)
    wia.alloc(ctx, 4096, wia.MemoryType.PINNED)
    wia.end_profiling(profiler)
    events = _trace(profiler, tmp_path)
    host = a100.model.host
    latency_us = {"DEVICE": a100.model.memory.alloc_latency * 1e6, "PINNED": host.pinned_alloc_latency * 1e6}
    calls = _slices(events, pid=HOST, cat="api", name="alloc")
    inner = _slices(events, pid=HOST, cat="host")
    assert [c["dur"] for c in calls] == [pytest.approx(latency_us["DEVICE"]), pytest.approx(latency_us["PINNED"])]
    assert [s["name"] for s in inner] == ["allocate 4096 B DEVICE", "allocate 4096 B PINNED"]
    for call, piece, kind in zip(calls, inner, ("DEVICE", "PINNED"), strict=True):
        assert piece["dur"] == pytest.approx(latency_us[kind] - host.api_overhead * 1e6)  # the call's own overhead
        assert call["ts"] <= piece["ts"] and piece["ts"] + piece["dur"] <= call["ts"] + call["dur"] + 1e-6
    report = wia.get_profile_report(profiler)
    assert report.num_api_calls == 2
    assert report.host_time_ms == pytest.approx(sum(latency_us.values()) / 1e3)


# -- the timeline ---------------------------------------------------------------------------------------------------


def test_host_tracks_are_per_thread_with_calls_containing_their_backend_calls(tmp_path: Path) -> None:
    ctx = _profiled()
    x = wia.tensor(np.ones(64, np.float32), ctx=ctx)
    profiler = wia.begin_profiling(ctx)
    wia.add(x, x, ctx=ctx)
    worker = threading.Thread(target=lambda: wia.relu(x, ctx=ctx), name="profiled-worker")
    worker.start()
    worker.join()
    wia.mul(x, x, ctx=ctx)
    wia.end_profiling(profiler)
    events = _trace(profiler, tmp_path)
    threads = _thread_names(events, HOST)
    assert sorted(threads.values()) == ["host thread MainThread", "host thread profiled-worker"]
    main = next(tid for tid, name in threads.items() if name.endswith("MainThread"))
    other = next(tid for tid, name in threads.items() if name.endswith("profiled-worker"))
    assert [s["name"] for s in _slices(events, pid=HOST, tid=main, cat="api")] == ["add", "mul"]
    assert [s["name"] for s in _slices(events, pid=HOST, tid=other, cat="api")] == ["relu"]
    for tid in (main, other):
        calls = _slices(events, pid=HOST, tid=tid, cat="api")
        pieces = _slices(events, pid=HOST, tid=tid, cat="host")
        kinds = {p["name"].split(" ")[0] for p in pieces}
        assert {"allocate", "launch"} <= kinds <= {"allocate", "launch", "free"}  # free: a result dropped
        for piece in (p for p in pieces if not p["name"].startswith("free")):  # a finaliser may free outside calls
            # every allocation and launch lies inside the API call that made it
            assert any(c["ts"] <= piece["ts"] and piece["ts"] + piece["dur"] <= c["ts"] + c["dur"] for c in calls)


def test_one_track_per_stream_and_a_flow_from_producer_to_consumer(tmp_path: Path) -> None:
    ctx = _profiled()
    x = wia.tensor(np.ones((256, 256), np.float32), ctx=ctx)
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    wia.context_synchronize(ctx)
    profiler = wia.begin_profiling(ctx)
    y = wia.matmul(x, x, ctx=ctx, stream=s1)  # long enough that s2 reaches its wait before s1 reaches the event
    wia.add(x, x, ctx=ctx, stream=s1)
    ready = wia.create_event()
    wia.event_record(ready, s1)
    wia.sigmoid(x, ctx=ctx, stream=s2)  # before the wait: not the flow's target
    wia.stream_wait_event(s2, ready)
    wia.relu(y, ctx=ctx, stream=s2)  # the consumer
    wia.softmax(x, ctx=ctx)
    wia.end_profiling(profiler)
    events = _trace(profiler, tmp_path)
    tracks = _thread_names(events, DEVICE)
    by_name = {name: tid for tid, name in tracks.items()}
    default, first, second = (
        f"default stream of context {ctx.id}",
        *(f"stream {i} of context {ctx.id}" for i in (1, 2)),
    )
    assert {default, first, second} <= set(by_name)
    on_track = {
        name: [s["name"] for s in _slices(events, pid=DEVICE, tid=by_name[name], cat="device")]
        for name in (default, first, second)
    }
    assert on_track == {default: ["softmax"], first: ["matmul", "add"], second: ["sigmoid", "relu"]}
    for name in (default, first, second):
        for s in _slices(events, pid=DEVICE, tid=by_name[name], cat="device"):
            assert s["args"]["stream"] == name
    starts = [e for e in events if e["ph"] == "s"]
    ends = [e for e in events if e["ph"] == "f"]
    assert len(starts) == len(ends) == 1 and starts[0]["id"] == ends[0]["id"]
    (producer,) = _slices(events, pid=DEVICE, cat="device", name="add")  # the last work before the event
    (consumer,) = _slices(events, pid=DEVICE, cat="device", name="relu")
    assert (starts[0]["tid"], starts[0]["ts"]) == (by_name[first], producer["ts"])
    assert (ends[0]["tid"], ends[0]["ts"]) == (by_name[second], consumer["ts"])
    assert ends[0]["bp"] == "e"
    waits = _slices(events, pid=DEVICE, tid=by_name[second], cat="wait")
    assert [w["name"] for w in waits] == ["wait for event"]  # s2 idled until the event
    assert waits[0]["ts"] + waits[0]["dur"] <= consumer["ts"] + 1e-6


def test_the_compute_engine_gets_a_second_lane_when_kernels_overlap(a100: SimBackend, tmp_path: Path) -> None:
    ctx = _profiled()
    k = 8192  # one 64x64 tile with a long K: one compute unit for hundreds of microseconds, so both run at once
    a = wia.tensor(np.ones((4, k), np.float32), ctx=ctx)
    b = wia.tensor(np.ones((k, 4), np.float32), ctx=ctx)
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    wia.context_synchronize(ctx)
    config = wia.MatmulConfig(algorithm=wia.MatmulAlgorithm.TILED_64)
    profiler = wia.begin_profiling(ctx)
    wia.matmul_optimized(a, b, config, ctx=ctx, stream=s1)
    wia.matmul_optimized(a, b, config, ctx=ctx, stream=s2)
    wia.end_profiling(profiler)
    events = _trace(profiler, tmp_path)
    lanes = {tid: name for tid, name in _thread_names(events, DEVICE).items() if name.startswith("compute")}
    assert sorted(lanes.values()) == ["compute", "compute #2"]
    first, second = (_slices(events, pid=DEVICE, tid=tid, cat="engine") for tid in sorted(lanes))
    assert len(first) == len(second) == 1
    assert second[0]["ts"] < first[0]["ts"] + first[0]["dur"]  # they overlapped
    report = wia.get_profile_report(profiler)
    assert report.kernel_time_ms < sum(s.total_time_ms for s in report.kernel_stats)  # overlap counted once
    (compute,) = report.engines
    assert compute.busy_ms == pytest.approx(report.kernel_time_ms)


def test_memory_counters_follow_allocations_and_pools(tmp_path: Path) -> None:
    ctx = _profiled()
    kept = wia.alloc(ctx, 1000)
    profiler = wia.begin_profiling(ctx)
    a = wia.alloc(ctx, 3000)
    wia.free(kept)
    pool = wia.create_memory_pool(ctx, wia.PoolConfig(initial_size=1 << 20, block_size=256))
    block = wia.alloc_from_pool(pool, 100)
    wia.end_profiling(profiler)
    events = _trace(profiler, tmp_path)
    counters = [e for e in events if e["ph"] == "C"]
    assert {e["name"] for e in counters} == {f"memory of context {ctx.id} (bytes)"}
    held = [e["args"]["held from the device"] for e in counters]
    in_use = [e["args"]["in use"] for e in counters]
    assert held[:3] == [1000, 4000, 3000]  # at begin, after alloc(3000), after free(kept)
    segment = wia.get_pool_stats(pool).bytes_reserved  # at least initial_size, in the pool's granules
    assert held[-1] == 3000 + segment and in_use[-1] == 3000 + 256  # the pool's segment, its one block
    assert [e["ts"] for e in counters] == sorted(e["ts"] for e in counters)
    assert wia.get_profile_report(profiler).peak_memory_bytes == 3000 + segment
    wia.free_to_pool(pool, block)
    wia.free(a)


def test_work_beyond_the_drain_interval_is_all_counted(sim: SimBackend) -> None:
    ctx = _profiled()
    x = wia.tensor(np.ones(16, np.float32), ctx=ctx)
    stream = wia.create_stream(ctx)
    wia.context_synchronize(ctx)
    profiler = wia.begin_profiling(ctx)
    n = 2 * DRAIN_EVERY + 300
    for i in range(n):
        wia.add(x, x, ctx=ctx, stream=stream)
        if i % 256 == 255:
            wia.stream_synchronize(stream)
    collected_early = len(profiler.work)
    held = len(sim.machine.trace or ()) + sum(len(p) for p in sim._pending.values())
    wia.end_profiling(profiler)
    assert collected_early >= n - DRAIN_EVERY - 256  # taken from the backend along the way, not all at the end
    assert held <= DRAIN_EVERY + 256
    report = wia.get_profile_report(profiler)
    assert report.num_kernels == n and [(s.name, s.call_count) for s in report.kernel_stats] == [("add", n)]


# -- bugs found and fixed ------------------------------------------------------------------------------------------


def test_stream_and_engine_tracks_never_share_a_tid(tmp_path: Path) -> None:
    ctx = _profiled()
    for _ in range(100):
        wia.destroy_stream(wia.create_stream(ctx))
    x = wia.tensor(np.ones(8, np.float32), ctx=ctx)
    profiler = wia.begin_profiling(ctx)
    wia.add(x, x, ctx=ctx)
    wia.end_profiling(profiler)
    events = _trace(profiler, tmp_path)
    named = [e["tid"] for e in events if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == DEVICE]
    assert len(named) == len(set(named))


def test_a_growing_pool_is_not_memory_in_use() -> None:
    ctx = _profiled()
    profiler = wia.begin_profiling(ctx)
    pool = wia.create_memory_pool(ctx, wia.PoolConfig(initial_size=1 << 20, block_size=256))
    block = wia.alloc_from_pool(pool, 100)
    wia.end_profiling(profiler)
    report = wia.get_profile_report(profiler)
    assert report.peak_memory_bytes == wia.get_pool_stats(pool).bytes_reserved
    assert report.peak_memory_in_use_bytes == 256  # one block; the rest of the segment is the pool's free space
    wia.free_to_pool(pool, block)


# -- cost -----------------------------------------------------------------------------------------------------------

COST_TARGET = 1.2
"""Profiling should cost at most 20% more time than not profiling, in a loop of small ops."""


def _adds(profile: bool, n: int = 2000) -> tuple[float, float]:
    """CPU and wall seconds of ``n`` small adds (and the end of the window), from a collected heap."""
    ctx = _profiled()
    x = wia.tensor(np.ones(16, np.float32), ctx=ctx)
    wia.context_synchronize(ctx)
    gc.collect()
    cpu, wall = time.process_time(), time.perf_counter()
    profiler = wia.begin_profiling(ctx) if profile else None
    for _ in range(n):
        wia.add(x, x, ctx=ctx)
    wia.context_synchronize(ctx)
    if profiler is not None:
        wia.end_profiling(profiler)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if profiler is not None:
        assert wia.get_profile_report(profiler).num_kernels == n
        wia.destroy_profiler(profiler)
    wia.destroy_context(ctx)
    return cpu, wall


def test_what_profiling_costs(capsys: pytest.CaptureFixture[str]) -> None:
    """Off and on back to back, 7 pairs; the median of the pairs' ratios (a pair runs within a fraction of a second,
    so a shared machine's load, which changes more slowly, mostly cancels; CPU time, since the sim backend runs on the
    calling thread). Asserts only a bound for gross regressions (an accidental O(n^2) is far beyond it); the ratio is
    printed (``pytest -s``) against :data:`COST_TARGET`."""
    _adds(False), _adds(True)
    pairs = [(_adds(False), _adds(True)) for _ in range(7)]
    cpu_ratio = statistics.median(on[0] / off[0] for off, on in pairs)
    wall_ratio = statistics.median(on[1] / off[1] for off, on in pairs)
    with capsys.disabled():
        print(f"\nprofiling 2000 adds: {cpu_ratio:.2f}x CPU time, {wall_ratio:.2f}x wall time (target {COST_TARGET}x)")
    assert cpu_ratio <= 2.5
