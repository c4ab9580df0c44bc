"""Collectives: results against a float64 NumPy reference on the sim and reference backends, the steps and times of
each algorithm on the fabric, nccl-tests' bus bandwidth, AUTO's choice, ordering, and validation."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import wia_hal as wia
from wia_hal.backends.sim import SimBackend
from wia_sim.collectives import Planner, broadcast_pieces, busbw_factor, message_bytes, plan
from wia_sim.hwmodel import FabricSpec, load_system
from wia_sim.machine import Machine

N = 4
LATENCY, BANDWIDTH, STEP = 2e-6, 12.5e9, 3e-6  # wia-tiny-4x's ring


@pytest.fixture(params=["sim", "reference"])
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "sim":
        wia.set_backend("sim", hardware="wia-tiny-4x")
    else:
        wia.set_backend("reference", devices=N)
    return str(request.param)


def _contexts(n: int = N) -> list[wia.Context]:
    return [wia.create_context(wia.ContextConfig(device_id=i)) for i in range(n)]


def _inputs(ctxs: list[wia.Context], dtype: np.dtype, shape: tuple[int, ...], seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    if dtype.kind in "iu":
        return [rng.integers(-1000, 1000, shape).astype(dtype) for _ in ctxs]
    return [rng.standard_normal(shape).astype(dtype) for _ in ctxs]


def _reference(kind: str, xs: list[np.ndarray], op: str, root: int = 0) -> list[np.ndarray]:
    """The float64 (int64 for integers) result of each participant."""
    exact = [x.astype(np.int64 if x.dtype.kind in "iu" else np.float64) for x in xs]
    reduce: dict[str, Callable[[list[np.ndarray]], np.ndarray]] = {
        "sum": lambda a: np.sum(a, axis=0),
        "prod": lambda a: np.prod(a, axis=0),
        "max": lambda a: np.max(a, axis=0),
        "min": lambda a: np.min(a, axis=0),
        "avg": lambda a: np.mean(a, axis=0),
    }
    n = len(xs)
    if kind == "all_reduce":
        return [reduce[op](exact)] * n
    if kind == "reduce_scatter":
        return np.split(reduce[op](exact), n)
    if kind == "all_gather":
        return [np.concatenate(exact)] * n
    if kind == "broadcast":
        return [exact[root]] * n
    return [np.concatenate([np.split(x, n)[j] for x in exact]) for j in range(n)]


TOLERANCE = {"float32": 1e-5, "float16": 2e-3, "bfloat16": 1.6e-2, "float64": 1e-12}
"""Relative tolerance: the dtype's rounding of a float32 (float64) accumulation, as docs/numerics.md's ops."""


@pytest.mark.parametrize(
    ("kind", "op"),
    [
        ("all_reduce", "sum"),
        ("all_reduce", "max"),
        ("all_reduce", "min"),
        ("all_reduce", "prod"),
        ("all_reduce", "avg"),
        ("reduce_scatter", "sum"),
        ("all_gather", ""),
        ("broadcast", ""),
        ("all_to_all", ""),
    ],
)
@pytest.mark.parametrize("dtype_name", ["float32", "float16", "int32"])
def test_results_match_a_float64_reference(backend: str, kind: str, op: str, dtype_name: str) -> None:
    if op == "avg" and dtype_name == "int32":
        pytest.skip("avg is for floating-point tensors")
    dtype = np.dtype(getattr(wia, dtype_name))
    ctxs = _contexts()
    xs = _inputs(ctxs, dtype, (8, 3))
    ts = [wia.tensor(x, ctx=c) for x, c in zip(xs, ctxs, strict=True)]
    call = getattr(wia, kind)
    args = {"root": 2} if kind == "broadcast" else {"op": op} if op else {}
    outs = call(ts, **args)
    expected = _reference(kind, xs, op or "sum", root=2)
    for i, (out, want) in enumerate(zip(outs, expected, strict=True)):
        assert out.context is ctxs[i] and out.dtype == dtype
        got = out.numpy()
        if dtype.kind in "iu":  # exact, wrapped to the width
            np.testing.assert_array_equal(got, want.astype(dtype))
        else:
            scale = np.max(np.abs(want)) if want.size else 1.0
            np.testing.assert_allclose(got.astype(np.float64), want, rtol=TOLERANCE[dtype_name], atol=1e-6 * scale)


def test_integer_sum_wraps_like_the_ops(backend: str) -> None:
    ctxs = _contexts(2)
    big = np.full(4, 2**31 - 1, np.int32)
    outs = wia.all_reduce([wia.tensor(big, ctx=c) for c in ctxs])
    np.testing.assert_array_equal(outs[0].numpy(), (big.astype(np.int64) * 2).astype(np.int32))


def test_collective_is_ordered_after_earlier_work_and_before_later(backend: str) -> None:
    ctxs = _contexts()
    xs = [np.full(64, i + 1, np.float32) for i in range(N)]
    ts = [wia.tensor(x, ctx=c) for x, c in zip(xs, ctxs, strict=True)]
    doubled = [wia.add(t, t, ctx=c) for t, c in zip(ts, ctxs, strict=True)]  # enqueued, not waited for
    summed = wia.all_reduce(doubled)
    after = wia.add(summed[3], summed[3], ctx=ctxs[3])
    np.testing.assert_array_equal(summed[0].numpy(), np.full(64, 20, np.float32))
    np.testing.assert_array_equal(after.numpy(), np.full(64, 40, np.float32))


# -- validation -----------------------------------------------------------------------------------------------------


def test_bad_calls_raise_clear_errors() -> None:
    wia.set_backend("sim", hardware="wia-tiny-4x")
    ctxs = _contexts()
    ts = [wia.tensor(np.ones(8, np.float32), ctx=c) for c in ctxs]
    with pytest.raises(wia.InvalidValueError, match="at least one tensor"):
        wia.all_reduce([])
    with pytest.raises(wia.InvalidValueError, match="a list of tensors"):
        wia.all_reduce(ts[0])  # type: ignore[arg-type]
    other = wia.tensor(np.ones(4, np.float32), ctx=ctxs[1])
    with pytest.raises(wia.InvalidValueError, match=r"tensor 1 is \(4,\) float32, tensor 0 is \(8,\) float32"):
        wia.all_reduce([ts[0], other])
    ints = wia.tensor(np.ones(8, np.int32), ctx=ctxs[1])
    with pytest.raises(wia.InvalidValueError, match="same shape and dtype"):
        wia.all_gather([ts[0], ints])
    again = wia.tensor(np.ones(8, np.float32), ctx=ctxs[0])
    with pytest.raises(wia.InvalidDeviceError, match="both on device 0"):
        wia.all_reduce([ts[0], again])
    with pytest.raises(wia.InvalidValueError, match=r"op='mean'.*expected one of sum, prod, max, min, avg"):
        wia.all_reduce(ts, "mean")
    with pytest.raises(wia.InvalidValueError, match="algorithm='tree'"):
        wia.all_gather(ts, algorithm="tree")
    with pytest.raises(wia.InvalidValueError, match="divide into 4 blocks"):
        wia.reduce_scatter([wia.tensor(np.ones(6, np.float32), ctx=c) for c in ctxs])
    with pytest.raises(wia.InvalidValueError, match="floating-point"):
        wia.all_reduce([wia.tensor(np.ones(4, np.int32), ctx=c) for c in ctxs], "avg")
    with pytest.raises(wia.InvalidValueError, match="root=4"):
        wia.broadcast(ts, root=4)
    wia.destroy_context(ctxs[2])
    with pytest.raises(wia.InvalidContextError):
        wia.all_reduce(ts)


# -- the model: steps, times, busbw ---------------------------------------------------------------------------------


def test_busbw_factors_and_sizes_are_nccl_tests() -> None:
    assert busbw_factor("all_reduce", 8) == pytest.approx(2 * 7 / 8)
    assert busbw_factor("all_gather", 8) == busbw_factor("reduce_scatter", 8) == pytest.approx(7 / 8)
    assert busbw_factor("all_to_all", 8) == pytest.approx(7 / 8) and busbw_factor("broadcast", 8) == 1.0
    assert message_bytes("all_gather", 8, 100) == 800 and message_bytes("reduce_scatter", 8, 800) == 800


def test_step_counts() -> None:
    assert len(plan("all_reduce", "ring", 8, 8000)) == 14
    assert len(plan("all_reduce", "tree", 8, 8000)) == 6
    assert len(plan("all_gather", "ring", 8, 8000)) == len(plan("reduce_scatter", "ring", 8, 8000)) == 7
    assert len(plan("all_to_all", "pairwise", 8, 8000)) == 7
    assert len(plan("broadcast", "tree", 8, 8000)) == 3
    assert len(plan("broadcast", "ring", 8, 8000, pieces=5)) == 5 + 8 - 2
    # every piece reaches every non-root position once
    received = [t.dst for step in plan("broadcast", "ring", 5, 500, root=2, pieces=3) for t in step.transfers]
    assert sorted(received) == sorted([0, 1, 3, 4] * 3)


def test_ring_all_reduce_time_busbw_and_report() -> None:
    wia.set_backend("sim", hardware="wia-tiny-4x")
    ctxs = _contexts()
    n_elems = 1 << 18  # 1 MiB of float32: link-bound on the ring
    outs = wia.all_reduce([wia.empty((n_elems,), wia.float32, ctx=c) for c in ctxs], algorithm="ring")
    wia.context_synchronize(ctxs[0])
    report = wia.explain_collective(outs[2])
    size = n_elems * 4
    step = LATENCY + (size / N) / BANDWIDTH + STEP  # the reduction (50 GB/s memory) hides under the transfer
    assert (report.kind, report.algorithm, report.devices, report.bytes) == ("all_reduce", "ring", [0, 1, 2, 3], size)
    assert report.steps == 2 * (N - 1)
    assert report.time_ms == pytest.approx(2 * (N - 1) * step * 1e3, rel=1e-9)
    assert report.algbw == pytest.approx(size / (report.time_ms / 1e3))
    assert report.busbw == pytest.approx(report.algbw * 2 * (N - 1) / N)
    assert {a.algorithm for a in report.alternatives} == {"ring", "tree", "direct"}  # no switch to reduce in


def test_auto_picks_tree_for_small_and_ring_for_large_all_reduce() -> None:
    wia.set_backend("sim", hardware="wia-tiny-4x")
    ctxs = _contexts()
    for elems, chosen in ((16, "tree"), (1 << 18, "ring")):
        outs = wia.all_reduce([wia.empty((elems,), wia.float32, ctx=c) for c in ctxs])
        report = wia.explain_collective(outs[0])
        predicted = {a.algorithm: a.duration_ms for a in report.alternatives}
        assert report.algorithm == chosen == min(predicted, key=lambda a: predicted[a]), predicted


def test_concurrent_copy_contends_with_a_collective() -> None:
    """A peer copy over a ring link the all-gather uses delays it: the collective's time on the machine exceeds its
    idle prediction."""
    wia.set_backend("sim", hardware="wia-tiny-4x")
    ctxs = _contexts()
    idle = wia.all_gather([wia.empty((1 << 16,), wia.float32, ctx=c) for c in ctxs])
    wia.context_synchronize(ctxs[0])
    alone = wia.explain_collective(idle[0])
    assert alone.time_ms == pytest.approx(min(a.duration_ms for a in alone.alternatives))
    source, destination = wia.create_stream(ctxs[2]), wia.create_stream(ctxs[3])  # not the collective's streams
    big = wia.empty((1 << 20,), wia.float32, ctx=ctxs[2])  # 4 MiB: 0.34 ms on the link
    wia.context_synchronize(ctxs[2])
    with wia.use_stream(source):  # over link 2->3, which the ring uses
        moved = wia.copy_peer_to_peer(wia.get_device(2), wia.get_device(3), big, stream=destination)
    # (kept alive: a released block would be reused by the all-gather's inputs, which then wait for the copy)
    busy = wia.all_gather([wia.empty((1 << 16,), wia.float32, ctx=c) for c in ctxs])
    wia.context_synchronize(ctxs[0])
    assert wia.explain_collective(busy[0]).time_ms > alone.time_ms * 1.5
    assert moved.shape == big.shape


def test_collectives_and_peer_copies_are_profiled_on_their_engines() -> None:
    wia.set_backend("sim", hardware="wia-tiny-4x")
    ctxs = _contexts()
    ts = [wia.empty((256,), wia.float32, ctx=c) for c in ctxs]
    wia.enable_profiling(ctxs[0], wia.ProfilerConfig())
    profiler = wia.begin_profiling(ctxs[0])
    outs = wia.all_reduce(ts)
    moved = wia.copy_peer_to_peer(wia.get_device(0), wia.get_device(1), ts[0])
    wia.context_synchronize(ctxs[0])
    wia.end_profiling(profiler)
    report = wia.get_profile_report(profiler)
    engines = {e.name: e.count for e in report.engines}
    assert engines.get("collective") == 1 and engines.get("p2p") == 1, engines
    assert report.bytes_transferred >= 256 * 4 * 2
    wia.destroy_profiler(profiler)
    assert len(outs) == N and moved.shape == (256,)


def test_system_step_latency_is_the_files() -> None:
    assert load_system("wia-tiny-4x").model.collectives.step_latency == pytest.approx(STEP)


def test_fidelity_predicts_collective_rows_of_a_system(tmp_path: Path, fidelity: ModuleType) -> None:
    """benchmarks/fidelity.py's collectives section, on rows written here (the shipped systems' rows are the
    calibration table's): busbw and time in the row's unit, the method's device count and algorithm."""
    path = tmp_path / "rows.csv"
    path.write_text(
        "device,op,dtype,m,n,k,size_bytes,measured,unit,method,source\n"
        f"wia-tiny-4x,all_reduce,float32,,,,{1 << 20},8.0,GB/s,-G 1 (graph) NCCL_ALGO=RING; ranks=4,test/one\n"
        "wia-tiny-4x,broadcast,float32,,,,1024,40,us,NCCL_ALGO=TREE on 2 GPUs,test/one\n"
        f"wia-tiny-4x,p2p_copy,,,,,{1 << 24},11,GB/s,one direction,test/one\n"
        "nvidia-a100-sxm4-80gb,stream_triad,float64,1048576,,,,1500,GB/s,best of a sweep,test/two\n"
    )
    rows = fidelity.read_rows(path)
    assert [fidelity.not_covered(r) for r in rows] == ["collectives section"] * 3 + [""]
    ring, bcast, p2p = (fidelity.predict_collective(r) for r in fidelity.collective_rows(rows))
    size = 1 << 20
    step = LATENCY + size / N / BANDWIDTH + STEP
    assert (ring.algorithm, ring.devices) == ("ring", 4)
    assert ring.predicted == pytest.approx(size / (2 * (N - 1) * step) * 2 * (N - 1) / N / 1e9)
    assert (bcast.algorithm, bcast.devices) == ("tree", 2)
    assert bcast.predicted == pytest.approx((LATENCY + 1024 / BANDWIDTH + STEP) * 1e6)
    assert p2p.predicted == pytest.approx((1 << 24) / (LATENCY + (1 << 24) / BANDWIDTH) / 1e9)
    assert p2p.ratio == pytest.approx(p2p.predicted / 11)


def _planner(name: str, **update: object) -> tuple[Planner, Machine]:
    """A planner on system ``name``'s idle fabric, with ``update`` ([fabric] fields) in place of the file's."""
    system = load_system(name)
    model = system.model
    if update:
        model = model.model_copy(update={"fabric": model.fabric.model_copy(update=update)})
    machine = Machine(system.device, model.count, numerics=False, hazards=False, system=model)
    library = model.collectives
    return Planner(machine.topology, library.step_latency, library.call_latency), machine


def test_direct_runs_every_link_of_a_mesh_at_once_and_queues_at_a_switch_port() -> None:
    """The one-shot all-gather: on a mesh the n-1 sends of a device take one link each, in parallel; through a
    switch they queue at the device's port, one after the other. The fabric's efficiency scales every link."""
    size = 64 << 20
    for name, serial in (("amd-mi300x-platform", 1), ("nvidia-dgx-a100", 7)):
        planner, machine = _planner(name)
        fabric = machine.topology.fabric
        assert fabric is not None and fabric.efficiency < 1
        n, rate = 8, fabric.bandwidth * fabric.efficiency
        expected = planner.call_latency + serial * (fabric.latency + size / n / rate)
        assert planner.predict("all_gather", "direct", range(n), size) == pytest.approx(expected, rel=1e-9)
    mesh, _ = _planner("amd-mi300x-platform")
    ring = mesh.predict("all_gather", "ring", range(8), size)
    assert ring > 5 * mesh.predict("all_gather", "direct", range(8), size)  # the ring uses 1 of 7 links


def test_fabric_efficiency_scales_link_rates_and_is_checked() -> None:
    full, machine = _planner("nvidia-dgx-a100", efficiency=1.0)
    half, halved = _planner("nvidia-dgx-a100", efficiency=0.5)
    assert halved.topology.route(0, 1).bandwidth == pytest.approx(machine.topology.route(0, 1).bandwidth / 2)
    size = 1 << 30
    t_full = full.predict("all_reduce", "ring", range(8), size) - full.call_latency
    t_half = half.predict("all_reduce", "ring", range(8), size) - half.call_latency
    assert t_half == pytest.approx(2 * t_full, rel=0.01)
    assert load_system("wia-tiny-4x").model.fabric.efficiency == 1.0  # the default where a file gives none
    base = {"interface": "a link", "bandwidth": "64 GB/s", "latency": "1 us"}
    for bad in ({"efficiency": 1.5}, {"efficiency": 0}):
        with pytest.raises(ValueError, match="efficiency"):
            FabricSpec.model_validate({**base, "topology": "switch", **bad})
    with pytest.raises(ValueError, match="switch_reduction is for a switch only"):
        FabricSpec.model_validate({**base, "topology": "mesh", "switch_reduction": True})


def test_switch_reduction_sends_each_port_n_plus_1_over_n_of_the_message() -> None:
    """NVLS: each port carries (n+1)/n of the message each way against the ring's 2(n-1)/n; only a switch that
    reduces offers it, and AUTO takes it for a large all-reduce there."""
    planner, machine = _planner("nvidia-hgx-h100")
    fabric = machine.topology.fabric
    assert fabric is not None and fabric.switch_reduction
    n, size = 8, 1 << 30
    ideal = size * (n + 1) / n / (fabric.bandwidth * fabric.efficiency)
    t = planner.predict("all_reduce", "switch", range(n), size) - planner.call_latency
    assert ideal < t < 1.05 * ideal  # the pipeline's fill and the per-piece latency on top
    chosen = planner.plan("all_reduce", "auto", list(range(n)), size)
    assert chosen.algorithm == "switch" and chosen.predicted["ring"] > 1.4 * chosen.predicted["switch"]
    a100, _ = _planner("nvidia-dgx-a100")
    assert "switch" not in a100.algorithms("all_reduce")
    with pytest.raises(ValueError, match="no algorithm 'switch'"):
        a100.plan("all_reduce", "switch", list(range(n)), size)


def test_call_latency_is_paid_once_per_call() -> None:
    planner, _ = _planner("amd-mi300x-platform")
    assert planner.call_latency > 0
    bare = Planner(planner.topology, planner.step_latency, 0.0)
    for kind, algorithm in (("all_reduce", "direct"), ("all_reduce", "ring"), ("all_to_all", "pairwise")):
        with_call = planner.predict(kind, algorithm, range(8), 1 << 20)
        assert with_call - bare.predict(kind, algorithm, range(8), 1 << 20) == pytest.approx(planner.call_latency)


@pytest.mark.parametrize("kind", ["all_reduce", "all_gather", "reduce_scatter", "all_to_all"])
def test_direct_on_a_mesh_is_exact_and_auto_picks_it(kind: str) -> None:
    """On the MI300X platform's mesh AUTO picks the one-shot algorithm; the results match NumPy."""
    wia.set_backend("sim", hardware="amd-mi300x-platform", devices=8)
    ctxs = _contexts(8)
    xs = _inputs(ctxs, np.dtype(np.float32), (64,), seed=3)
    ts = [wia.tensor(x, ctx=c) for x, c in zip(xs, ctxs, strict=True)]
    outs = getattr(wia, kind)(ts)
    wia.context_synchronize(ctxs[0])
    report = wia.explain_collective(outs[0])
    assert report.algorithm == "direct", {a.algorithm: a.duration_ms for a in report.alternatives}
    op = "sum"
    for got, want in zip(outs, _reference(kind, xs, op), strict=True):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5, atol=1e-5)


def test_fidelity_reads_ranks_and_fits_with_a_source_left_out(tmp_path: Path, fidelity: ModuleType) -> None:
    """``ranks=N`` selects the devices; a one-process ``-g N`` loop pays N host launches per call; the efficiency
    fit of a system is the large rows' ratio, and leaving a source out predicts it from the other's."""
    path = tmp_path / "rows.csv"
    path.write_text(
        "device,op,dtype,m,n,k,size_bytes,measured,unit,method,source\n"
        "google-tpu-v5e-16,all_gather,bfloat16,,,,131072,8,us,ranks=4: an XLA all-gather,a/one\n"
        "nvidia-dgx-a100,all_gather,float32,,,,1024,30,us,ranks=8 (one process -g 8); nccl-tests,a/one\n"
        "nvidia-dgx-a100,all_gather,float32,,,,1024,30,us,ranks=8; nccl-tests -G 1 (CUDA graph),a/one\n"
        f"nvidia-dgx-a100,all_gather,float32,,,,{1 << 30},150,GB/s,ranks=8; nccl-tests,a/one\n"
        f"nvidia-dgx-a100,all_gather,float32,,,,{1 << 30},250,GB/s,ranks=8; nccl-tests,b/two\n"
    )
    rows = fidelity.read_rows(path)
    tpu, eight, graph, slow, _ = (fidelity.predict_collective(r) for r in rows)
    assert tpu.devices == 4 and fidelity.host_launches(tpu.row) == 0
    assert [fidelity.host_launches(r.row) for r in (eight, graph, slow)] == [8, 0, 1]
    launch = load_system("nvidia-dgx-a100").device.host.launch_overhead
    assert eight.seconds - graph.seconds == pytest.approx(8 * launch)
    results, fits = fidelity.evaluate_collectives(rows)
    by_line = {r.row.line: r for r in results}
    # in-sample: one efficiency between the two sources; left out: each predicted from the other alone
    assert 150 < by_line[5].predicted < 250 and by_line[5].predicted == pytest.approx(by_line[6].predicted)
    assert by_line[5].cross_validated == pytest.approx(250, rel=0.01)
    assert by_line[6].cross_validated == pytest.approx(150, rel=0.01)
    assert 0.5 < fits["nvidia-dgx-a100"].efficiency < 0.9


def test_broadcast_pieces_minimize_the_pipelined_ring_time() -> None:
    """``C + n - 2`` steps of ``latency + size / (C bandwidth)``: the best ``C`` is ``sqrt((n-2) size / (l b))``."""
    n, size, latency, rate = 8, 1 << 20, 1e-6, 1e11
    best = broadcast_pieces(n, size, latency, rate)
    assert best == round(math.sqrt((n - 2) * size / (latency * rate)))
    times = {c: (c + n - 2) * (latency + size / (c * rate)) for c in range(1, 65)}
    assert times[best] == pytest.approx(min(times.values()), rel=0.01)


def test_the_hal_charges_the_call_cost_and_offers_every_algorithm_the_fabric_has() -> None:
    """Through the public API: each call pays the system's [collectives].call_latency once; direct and switch can be
    asked for by name, and switch only where the fabric reduces in the switch (else NOT_SUPPORTED)."""
    from wia_sim.hwmodel import load_system

    for name, switch in (("nvidia-dgx-a100", False), ("nvidia-hgx-h100", True)):
        wia.set_backend("sim", hardware=name, numerics=False)
        contexts = [wia.create_context(wia.ContextConfig(device_id=i)) for i in range(8)]
        tensors = [wia.empty((256,), np.float32, ctx=c) for c in contexts]
        costs = load_system(name).model.collectives
        assert costs.call_latency > 0
        backend = wia.get_backend()
        assert isinstance(backend, SimBackend)
        without_call = Planner(backend.machine.topology, costs.step_latency, 0.0)
        for algorithm in ("ring", "tree", "direct"):
            result = wia.all_reduce(tensors, algorithm=algorithm)
            wia.context_synchronize(contexts[0])
            report = wia.explain_collective(result[0])
            idle = without_call.plan("all_reduce", algorithm, list(range(8)), 1024, 0).predicted[algorithm]
            assert report.algorithm == algorithm
            assert report.time_ms * 1e-3 == pytest.approx(idle + costs.call_latency, rel=1e-9)
        if switch:
            assert wia.explain_collective(wia.all_reduce(tensors, algorithm="switch")[0]).algorithm == "switch"
        else:
            with pytest.raises(wia.NotSupportedError, match="no algorithm 'switch'"):
                wia.all_reduce(tensors, algorithm="switch")
        for c in contexts:
            wia.destroy_context(c)
