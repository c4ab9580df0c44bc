"""Graphs (docs/graphs.md): a capture records a program's device work, a launch replays it; numerics equal running
the program again, the host pays one launch, misuse is INVALID_VALUE, and a copy runs on other contexts."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import numpy as np
import pytest

import wia_hal as wia
from wia_whatif.run import run_point

H100 = "nvidia-h100-sxm5-80gb"


@pytest.fixture(params=["sim", "reference"])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "sim":
        wia.set_backend("sim", hardware="wia-tiny-4x", devices=2)
    else:
        wia.set_backend("reference", devices=2)
    yield request.param


def _program(x: wia.Tensor, w: wia.Tensor, cache: wia.Tensor, slot: int) -> wia.Tensor:
    """Ops of a decode step: a matmul, scalars, a function, a write into a slice of a cache, a view read back."""
    h = wia.matmul(x, w)
    y = wia.silu(wia.add(wia.mul(h, 0.5), 1.0))
    wia.copy_into(wia.slice(cache, (slot, 0), (slot + 1, y.shape[1])), y)
    return wia.sub(wia.slice(cache, (0, 0), (slot + 1, y.shape[1])), 0.25)


def _reference(x: np.ndarray, w: np.ndarray, cache: np.ndarray, slot: int) -> np.ndarray:
    h = x.astype(np.float64) @ w.astype(np.float64)
    z = h * 0.5 + 1.0
    cache[slot : slot + 1] = z / (1.0 + np.exp(-z))
    return cache[: slot + 1] - 0.25


def test_a_replay_computes_what_running_the_program_again_would(backend: str) -> None:
    rng = np.random.default_rng(1)
    x0, w0 = rng.standard_normal((1, 16)).astype(np.float32), rng.standard_normal((16, 8)).astype(np.float32)
    cache0 = rng.standard_normal((4, 8)).astype(np.float32)
    x, w, cache = wia.tensor(x0), wia.tensor(w0), wia.tensor(cache0)
    with wia.capture_graph() as graph:
        out = _program(x, w, cache, 2)
    assert graph.num_nodes >= 6
    expected_cache = cache0.astype(np.float64)
    wia.launch_graph(graph)
    np.testing.assert_allclose(out.numpy(), _reference(x0, w0, expected_cache, 2), rtol=1e-5, atol=1e-6)
    x1 = rng.standard_normal((1, 16)).astype(np.float32)  # new input written in place: the replay reads it
    wia.copy_into(x, wia.tensor(x1))
    wia.launch_graph(graph)
    np.testing.assert_allclose(out.numpy(), _reference(x1, w0, expected_cache, 2), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cache.numpy(), expected_cache, rtol=1e-5, atol=1e-6)
    wia.release_graph(graph)


def test_a_multi_device_capture_replays_the_collectives(backend: str) -> None:
    rng = np.random.default_rng(2)
    data = [rng.standard_normal(64).astype(np.float32) for _ in range(2)]
    contexts = [wia.create_context(wia.ContextConfig(device_id=d)) for d in range(2)]
    xs = [wia.tensor(a, ctx=ctx) for a, ctx in zip(data, contexts, strict=True)]
    with wia.capture_graph(contexts) as graph:
        total = wia.all_reduce([wia.mul(x, 3.0) for x in xs])
    wia.launch_graph(graph)
    for t in total:
        np.testing.assert_allclose(t.numpy(), 3.0 * (data[0].astype(np.float64) + data[1]), rtol=1e-6, atol=1e-6)
    with pytest.raises(wia.InvalidValueError, match="not captured"), wia.capture_graph(contexts[0]):
        wia.all_reduce(xs)  # the second device is not being captured
    for ctx in contexts:
        wia.destroy_context(ctx)


def test_the_host_launches_a_graph_once_and_the_device_time_stays() -> None:
    """200 small adds: eager, the host's 200 launch calls set the pace; a graph costs the host one launch and the
    device runs the kernels back to back (each still pays its device-side launch)."""
    wia.set_backend("sim", hardware=H100, numerics=False)
    x = wia.empty((256,))

    def step() -> None:  # each op with two views: the host's calls outlast the device's small kernels
        for _ in range(200):
            wia.add(wia.reshape(x, (16, 16)), wia.reshape(x, (16, 16)))

    def timed(run: object) -> float:
        start, end = wia.create_event(), wia.create_event()
        wia.event_record(start, wia.get_default_context().default_stream)
        run()  # type: ignore[operator]
        wia.event_record(end, wia.get_default_context().default_stream)
        wia.event_synchronize(end)
        return wia.event_elapsed_time(start, end)

    eager = timed(step)
    with wia.capture_graph() as graph:
        step()
    replayed = timed(lambda: wia.launch_graph(graph))
    y = wia.reshape(x, (16, 16))
    kernel_ms = wia.explain(wia.add(y, y)).duration_ms
    assert eager > 1.5 * replayed
    assert replayed == pytest.approx(200 * kernel_ms, rel=0.05)


def test_capture_refuses_what_needs_work_to_have_run_and_leaves_the_context_usable() -> None:
    wia.set_backend("sim", hardware="wia-tiny")
    x = wia.tensor(np.arange(8, dtype=np.float32))
    with pytest.raises(wia.InvalidValueError, match="while a graph is being captured"), wia.capture_graph():
        wia.add(x, x).numpy()
    with pytest.raises(wia.InvalidValueError, match="while a graph is being captured"), wia.capture_graph():
        wia.tensor(np.ones(4, np.float32))  # an upload
    np.testing.assert_array_equal(wia.add(x, x).numpy(), 2 * np.arange(8))  # eager again
    graph = wia.begin_capture()
    with pytest.raises(wia.InvalidValueError, match="already being captured"):
        wia.begin_capture()
    with pytest.raises(wia.InvalidValueError, match="still being captured"):
        wia.launch_graph(graph)
    ctx = wia.get_default_context()
    wia.enable_profiling(ctx)
    with pytest.raises(wia.InvalidValueError, match="being captured into a graph"):
        wia.begin_profiling(ctx)
    wia.end_capture(graph)
    with pytest.raises(wia.InvalidValueError, match="is not being captured"):
        wia.end_capture(graph)
    wia.release_graph(graph)
    with pytest.raises(wia.InvalidValueError, match="was released"):
        wia.launch_graph(graph)
    with pytest.raises(wia.InvalidValueError, match="expected a wia Graph"):
        wia.launch_graph("graph")  # type: ignore[arg-type]


def test_a_graph_whose_input_was_released_is_not_launched() -> None:
    wia.set_backend("sim", hardware="wia-tiny")
    x = wia.tensor(np.ones(8, np.float32))
    with wia.capture_graph() as graph:
        wia.add(x, x)
    wia.release_tensor(x)
    with pytest.raises(wia.InvalidValueError, match="released after the capture"):
        wia.launch_graph(graph)


def test_the_graph_keeps_the_memory_it_reuses_until_it_is_released() -> None:
    """Intermediates freed inside the capture are reused by later ones and stay the graph's: memory_gc does not
    take them; after release_graph it does."""
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.get_default_context()
    rng = np.random.default_rng(3)
    a = rng.standard_normal(1024).astype(np.float32)
    x = wia.tensor(a)
    with wia.capture_graph() as graph:
        y = x
        for _ in range(6):
            y = wia.add(wia.mul(y, 0.5), 1.0)
        out = wia.neg(y)
    held = wia.get_memory_usage(ctx).bytes_allocated
    wia.memory_gc(ctx)
    assert wia.get_memory_usage(ctx).bytes_allocated == held
    wia.launch_graph(graph)
    expected = a.astype(np.float64)
    for _ in range(6):
        expected = expected * 0.5 + 1.0
    np.testing.assert_allclose(out.numpy(), -expected, rtol=1e-5)
    del out, y
    wia.release_graph(graph)
    wia.memory_gc(ctx)
    assert wia.get_memory_usage(ctx).bytes_allocated < held


_LIVE: list[wia.Context] = []


def _decode_contexts(devices: int, **options: object) -> list[wia.Context]:
    """Contexts of a fresh sim backend (those of the last one are destroyed: a copy outlives its template's)."""
    for ctx in _LIVE:
        if not ctx.destroyed:
            wia.destroy_context(ctx)
    _LIVE.clear()
    wia.set_backend("sim", hardware="nvidia-hgx-h100", devices=devices, numerics=False, **options)
    _LIVE.extend(wia.create_context(wia.ContextConfig(device_id=d)) for d in range(devices))
    return list(_LIVE)


def _timed(contexts: list[wia.Context], graph: wia.Graph) -> float:
    starts, ends = [], []
    for ctx in contexts:
        event = wia.create_event()
        wia.event_record(event, ctx.default_stream)
        starts.append(event)
    wia.launch_graph(graph)
    for ctx in contexts:
        event = wia.create_event()
        wia.event_record(event, ctx.default_stream)
        ends.append(event)
    for event in ends:
        wia.event_synchronize(event)
    return max(wia.event_elapsed_time(s, e) for s, e in zip(starts, ends, strict=True))


def _capture_tp_step(contexts: list[wia.Context]) -> wia.Graph:
    """A tensor-parallel MLP block: two matmuls per device and an all-reduce."""
    xs = [wia.empty((32, 2048), dtype=wia.bfloat16, ctx=ctx) for ctx in contexts]
    w1 = [wia.empty((2048, 4096), dtype=wia.bfloat16, ctx=ctx) for ctx in contexts]
    w2 = [wia.empty((4096, 2048), dtype=wia.bfloat16, ctx=ctx) for ctx in contexts]
    with wia.capture_graph(contexts) as graph:
        parts = [wia.matmul(wia.silu(wia.matmul(x, a)), b) for x, a, b in zip(xs, w1, w2, strict=True)]
        wia.all_reduce(parts)
    graph.keep = (xs, w1, w2)  # type: ignore[attr-defined]
    return graph


def test_a_copy_on_other_contexts_times_what_a_capture_there_would() -> None:
    """instantiate_graph on a variation of the hardware gives the times of capturing the program on it."""
    template = _capture_tp_step(_decode_contexts(2))
    for changes in ({}, {"device.memory.bandwidth": "2x"}, {"device.compute.peak_flops.bfloat16": "0.5x"}):
        text = ";".join(f"{k}={v}" for k, v in changes.items()) or None
        contexts = _decode_contexts(2, set=text)
        copy = wia.instantiate_graph(template, contexts)
        _timed(contexts, copy)  # (the first launch also waits out the host's set-up calls: not compared)
        copied = _timed(contexts, copy)
        native = _capture_tp_step(_decode_contexts(2, set=text))
        _timed(list(native.contexts), native)
        assert _timed(list(native.contexts), native) == pytest.approx(copied, rel=1e-9)


def test_a_copy_that_does_not_fit_leaves_nothing_allocated() -> None:
    template = _capture_tp_step(_decode_contexts(2))
    contexts = _decode_contexts(2, set="device.memory.size=0.0002x")  # 16 MB: the weights are 32 MB per device
    before = [wia.get_memory_usage(ctx).bytes_allocated for ctx in contexts]
    with pytest.raises(wia.OutOfMemoryError):
        wia.instantiate_graph(template, contexts)
    assert [wia.get_memory_usage(ctx).bytes_allocated for ctx in contexts] == before
    with pytest.raises(wia.InvalidValueError, match="captured on 2 context"):
        wia.instantiate_graph(template, contexts[:1])


def test_a_graph_with_custom_kernels_is_not_copied() -> None:
    wia.set_backend("sim", hardware="wia-tiny")
    kernel = wia.compile_kernel(None, "__kernel void k(__global float* x) { x[get_global_id(0)] += 1.0f; }", "k")
    x = wia.tensor(np.zeros(16, np.float32))
    wia.set_kernel_arg(kernel, 0, x)
    with wia.capture_graph() as graph:
        wia.launch_kernel_async(kernel, wia.LaunchConfig(global_size=(16,)))
    wia.launch_graph(graph)
    with pytest.raises(wia.NotSupportedError, match="custom kernels"):
        wia.instantiate_graph(graph, wia.get_default_context())
    np.testing.assert_array_equal(x.numpy(), np.ones(16))  # the capture ran nothing, the launch once


def test_what_if_points_replay_one_capture_and_match_eager_timing() -> None:
    """run_point's graph mode: the second point of a workload runs a copy of the first one's capture, with the
    figures a fresh capture gives; eager differs only by the host's launch calls."""
    params = {"layers": 2, "hidden": 1024, "heads": 8, "kv_heads": 8, "mlp": 2816, "vocab": 4096, "phase": "decode",
              "batch": 8, "seq": 256, "devices": 2}  # fmt: skip
    first = run_point("transformer", params, hardware="nvidia-hgx-h100", set={"device.memory.bandwidth": "2x"})
    again = run_point("transformer", params, hardware="nvidia-hgx-h100", set={"device.memory.bandwidth": "2x"})
    assert first.graph and again.graph
    assert again.model_dump(exclude={"wall_s"}) == first.model_dump(exclude={"wall_s"})
    eager = run_point(
        "transformer", params, hardware="nvidia-hgx-h100", set={"device.memory.bandwidth": "2x"}, graph=False
    )
    assert eager.simulated_ops == first.simulated_ops
    assert eager.peak_memory_bytes == pytest.approx(first.peak_memory_bytes, rel=0.05)
    assert first.step_time_ms is not None and eager.step_time_ms is not None
    assert first.step_time_ms <= eager.step_time_ms


def test_explain_of_a_graph_s_output_explains_its_latest_launch() -> None:
    wia.set_backend("sim", hardware="wia-tiny-4x", devices=2)
    contexts = [wia.create_context(wia.ContextConfig(device_id=d)) for d in range(2)]
    rng = np.random.default_rng(4)
    xs = [wia.tensor(rng.standard_normal((64, 64)).astype(np.float32), ctx=ctx) for ctx in contexts]
    with wia.capture_graph(contexts) as graph:
        products = [wia.matmul(x, x) for x in xs]
        summed = wia.all_reduce(products)
    with pytest.raises(wia.InvalidValueError, match="has not run yet"):
        wia.explain(products[0])
    wia.launch_graph(graph)
    wia.context_synchronize(contexts[0])
    first = wia.explain(products[0])
    assert first.flops == 2 * 64**3 and first.started_ms is not None
    assert wia.explain_collective(summed[0]).algorithm
    wia.launch_graph(graph)
    wia.context_synchronize(contexts[0])
    second = wia.explain(products[0])
    assert second.started_ms is not None and second.started_ms > first.started_ms
    wia.release_graph(graph)
    with pytest.raises(wia.InvalidValueError, match="was released"):
        wia.explain(products[0])
    for ctx in contexts:
        wia.destroy_context(ctx)


def test_a_replay_is_checked_for_stream_hazards_like_the_program() -> None:
    """A read on one stream of what another wrote, with no event between: reported when the graph runs (the
    capture runs nothing), on every launch; with the event captured too, nothing is reported."""
    wia.set_backend("sim", hardware="wia-tiny", hazards="warn")
    ctx = wia.get_default_context()
    writer, reader = wia.create_stream(ctx), wia.create_stream(ctx)
    x = wia.tensor(np.ones(256, np.float32))
    wia.context_synchronize(ctx)
    for ordered in (False, True):
        with wia.capture_graph() as graph:
            y = wia.mul(x, 2.0, stream=writer)
            if ordered:
                wia.stream_wait_stream(reader, writer)
            wia.relu(y, stream=reader)
        wia.context_synchronize(ctx)
        for _ in range(2):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                wia.launch_graph(graph)
                wia.context_synchronize(ctx)
            hazards = [w for w in caught if w.category is wia.StreamHazardWarning]
            assert len(hazards) == (0 if ordered else 1)
        wia.release_graph(graph)


@pytest.mark.parametrize("numerics", [True, False])
def test_a_graph_on_a_lost_device_reports_device_lost(numerics: bool) -> None:
    """A fault the launch runs into is DEVICE_LOST (a timing-only replay takes its own path: the same errors)."""
    wia.set_backend("sim", hardware="wia-tiny", numerics=numerics)
    x = wia.empty((256,))
    with wia.capture_graph() as graph:
        for _ in range(4):
            wia.add(x, x)
    wia.launch_graph(graph)
    wia.inject_fault(wia.Fault(kind=wia.FaultKind.DEVICE_LOST, device=0, after_ops=2))
    with pytest.raises(wia.DeviceLostError):
        wia.launch_graph(graph)
        wia.context_synchronize(wia.get_default_context())
    with pytest.raises(wia.DeviceLostError):
        wia.launch_graph(graph)
