"""The simulated machine's time model, seen through the HAL: copies, overlap, ordering, host clock, hazards."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import wia_hal as wia
from wia_hal.backends.sim import SimBackend
from wia_sim.commands import Command, Copy, Kernel

MiB = 2**20


def _traced(sim: SimBackend) -> list[Command]:
    trace: list[Command] = []
    sim.machine.trace = trace
    return trace


@pytest.mark.parametrize(
    ("src_type", "dst_type", "route", "bandwidth"),
    [
        (wia.MemoryType.PINNED, wia.MemoryType.DEVICE, "h2d", "pinned_h2d_bandwidth"),
        (wia.MemoryType.DEVICE, wia.MemoryType.PINNED, "d2h", "pinned_d2h_bandwidth"),
        (wia.MemoryType.HOST, wia.MemoryType.DEVICE, "h2d", "pageable_h2d_bandwidth"),
        (wia.MemoryType.DEVICE, wia.MemoryType.HOST, "d2h", "pageable_d2h_bandwidth"),
    ],
)
@pytest.mark.parametrize("nbytes", [1, 4096, 3 * MiB + 17])
def test_copy_takes_latency_plus_bytes_over_bandwidth(
    sim: SimBackend,
    ctx: wia.Context,
    src_type: wia.MemoryType,
    dst_type: wia.MemoryType,
    route: str,
    bandwidth: str,
    nbytes: int,
) -> None:
    link = sim.model.host_link
    expected = link.latency + nbytes / getattr(link, bandwidth)
    src, dst = wia.alloc(ctx, nbytes, src_type), wia.alloc(ctx, nbytes, dst_type)
    stream = wia.create_stream(ctx)
    trace = _traced(sim)
    start, end = wia.create_event(), wia.create_event()
    wia.event_record(start, stream)
    wia.copy_async(src, dst, nbytes, stream)
    wia.event_record(end, stream)
    wia.stream_synchronize(stream)
    (copy,) = [c for c in trace if isinstance(c, Copy)]
    assert copy.cost.route == route
    assert copy.ended - copy.started == pytest.approx(expected, rel=1e-12)
    # the copy call costs one API overhead of host time before the copy is submitted; a pageable copy also
    # blocks the host until it is done, so the end event is recorded one more API call later
    calls = 2 if wia.MemoryType.HOST in (src_type, dst_type) else 1
    assert wia.event_elapsed_time(start, end) == pytest.approx((calls * sim.model.host.api_overhead + expected) * 1e3)


def test_pageable_copy_blocks_the_host_and_pinned_does_not(sim: SimBackend, ctx: wia.Context) -> None:
    nbytes = 4 * MiB
    device = wia.alloc(ctx, nbytes, wia.MemoryType.DEVICE)
    for memory_type, blocks in ((wia.MemoryType.PINNED, False), (wia.MemoryType.HOST, True)):
        host = wia.alloc(ctx, nbytes, memory_type)
        wia.context_synchronize(ctx)
        before = sim.machine.host_time
        wia.copy_async(host, device, nbytes)
        spent = sim.machine.host_time - before
        transfer = nbytes / sim.model.host_link.pageable_h2d_bandwidth
        assert (spent > transfer) is blocks, memory_type


def test_pinned_transfers_faster_than_pageable(ctx: wia.Context) -> None:
    nbytes = 8 * MiB
    device = wia.alloc(ctx, nbytes)
    times = {}
    for memory_type in (wia.MemoryType.PINNED, wia.MemoryType.HOST):
        host = wia.alloc(ctx, nbytes, memory_type)
        start, end = wia.create_event(), wia.create_event()
        stream = wia.create_stream(ctx)
        wia.event_record(start, stream)
        wia.copy_async(host, device, nbytes, stream)
        wia.event_record(end, stream)
        wia.stream_synchronize(stream)
        times[memory_type] = wia.event_elapsed_time(start, end)
    assert times[wia.MemoryType.PINNED] < times[wia.MemoryType.HOST]


def test_copy_on_one_stream_overlaps_compute_on_another(sim: SimBackend, ctx: wia.Context) -> None:
    rng = np.random.default_rng(7)
    n = 1 << 20
    a = wia.tensor(rng.random(n, np.float32), ctx=ctx)
    b = wia.tensor(rng.random(n, np.float32), ctx=ctx)
    host = wia.alloc(ctx, 2 * MiB, wia.MemoryType.PINNED)
    dst = wia.alloc(ctx, 2 * MiB)
    copy_stream, compute_stream = wia.create_stream(ctx), wia.create_stream(ctx)
    wia.context_synchronize(ctx)
    trace = _traced(sim)
    t0 = sim.machine.host_time
    wia.copy_async(host, dst, 2 * MiB, copy_stream)
    c = wia.add(a, b, stream=compute_stream)
    wia.context_synchronize(ctx)
    total = sim.machine.host_time - t0
    (copy,) = [x for x in trace if isinstance(x, Copy)]
    (kernel,) = [x for x in trace if isinstance(x, Kernel)]
    copy_time, kernel_time = copy.ended - copy.started, kernel.ended - kernel.started
    assert min(copy_time, kernel_time) > 0.3 * max(copy_time, kernel_time), "pick sizes that make overlap visible"
    assert kernel.started < copy.ended and copy.started < kernel.ended, "they must run at the same time"
    assert total < copy_time + kernel_time
    # the max plus a few host-call overheads (API and launch calls, microseconds)
    assert total == pytest.approx(max(copy_time, kernel_time), abs=20e-6)
    np.testing.assert_array_equal(c.numpy(), a.numpy() + b.numpy())


def test_copies_share_a_link_direction_and_the_two_directions_overlap(sim: SimBackend, ctx: wia.Context) -> None:
    n = 2 * MiB
    pinned = [wia.alloc(ctx, n, wia.MemoryType.PINNED) for _ in range(3)]
    device = [wia.alloc(ctx, n) for _ in range(3)]
    streams = [wia.create_stream(ctx) for _ in range(3)]
    trace = _traced(sim)
    wia.copy_async(pinned[0], device[0], n, streams[0])
    wia.copy_async(pinned[1], device[1], n, streams[1])  # same direction: waits for the link
    wia.copy_async(device[2], pinned[2], n, streams[2])  # other direction: runs at once
    wia.context_synchronize(ctx)
    h2d_a, h2d_b, d2h = sorted((c for c in trace if isinstance(c, Copy)), key=lambda c: c.submitted)
    assert (h2d_a.cost.route, h2d_b.cost.route, d2h.cost.route) == ("h2d", "h2d", "d2h")
    assert h2d_b.started == h2d_a.ended
    assert d2h.started < h2d_a.ended


def test_two_ops_on_one_stream_never_overlap(sim: SimBackend, ctx: wia.Context) -> None:
    rng = np.random.default_rng(3)
    a = wia.tensor(rng.random(1 << 18, np.float32), ctx=ctx)
    wia.context_synchronize(ctx)
    trace = _traced(sim)
    stream = wia.create_stream(ctx)
    first = wia.add(a, a, stream=stream)
    second = wia.mul(a, a, stream=stream)
    wia.stream_synchronize(stream)
    k1, k2 = [x for x in trace if isinstance(x, Kernel)]
    assert k1.cost.name == "add" and k2.cost.name == "mul"
    assert k2.submitted < k1.ended, "the second op must be queued while the first runs"
    assert k2.started == k1.ended
    np.testing.assert_allclose(first.numpy(), a.numpy() * 2)
    np.testing.assert_allclose(second.numpy(), a.numpy() ** 2, rtol=1e-6)


def _hazard(ctx: wia.Context, with_event: bool) -> np.ndarray:
    """Stream A writes x by a long H2D copy; stream B reads x right after, with or without an event between."""
    n = 1 << 18
    x = wia.zeros(n, ctx=ctx)
    y = wia.tensor(np.full(n, 2.0, np.float32), ctx=ctx)
    staged = wia.alloc(ctx, x.nbytes, wia.MemoryType.PINNED)
    wia.memory_ptr(staged).view(np.float32)[:] = 1.0
    wia.context_synchronize(ctx)
    writer, reader = wia.create_stream(ctx), wia.create_stream(ctx)
    wia.copy_async(staged, x.memory, x.nbytes, writer)
    if with_event:
        written = wia.create_event()
        wia.event_record(written, writer)
        wia.stream_wait_event(reader, written)
    return wia.add(x, y, stream=reader).numpy()


def test_reader_without_event_sees_the_stale_value() -> None:
    wia.set_backend("sim", hardware="wia-tiny", hazards="warn")  # the missing event is the point: warned, not raised
    with pytest.warns(wia.StreamHazardWarning, match="read-after-write"):
        stale = _hazard(wia.create_context(), with_event=False)
    np.testing.assert_array_equal(stale, 2.0)


def test_reader_after_stream_wait_event_sees_the_new_value(ctx: wia.Context) -> None:
    np.testing.assert_array_equal(_hazard(ctx, with_event=True), 3.0)


def test_stream_wait_stream_orders_like_an_event(ctx: wia.Context) -> None:
    n = 1 << 18
    x = wia.zeros(n, ctx=ctx)
    staged = wia.alloc(ctx, x.nbytes, wia.MemoryType.PINNED)
    wia.memory_ptr(staged).view(np.float32)[:] = 5.0
    wia.context_synchronize(ctx)
    writer, reader = wia.create_stream(ctx), wia.create_stream(ctx)
    wia.copy_async(staged, x.memory, x.nbytes, writer)
    wia.stream_wait_stream(reader, writer)
    np.testing.assert_array_equal(wia.relu(x, stream=reader).numpy(), 5.0)


def test_ten_thousand_launches_cost_at_least_the_launch_overhead(sim: SimBackend, ctx: wia.Context) -> None:
    a = wia.tensor(np.ones(4, np.float32), ctx=ctx)
    t0 = sim.machine.host_time
    for _ in range(10_000):
        wia.add(a, a)
    assert sim.machine.host_time - t0 >= 10_000 * sim.model.host.launch_overhead
    device_done = sim.machine.env.now
    wia.context_synchronize(ctx)
    assert sim.machine.host_time >= device_done


def test_work_never_starts_before_it_was_submitted(sim: SimBackend, ctx: wia.Context) -> None:
    a = wia.tensor(np.ones(8, np.float32), ctx=ctx)
    trace = _traced(sim)
    for _ in range(50):
        wia.relu(a)
    wia.context_synchronize(ctx)
    kernels = [x for x in trace if isinstance(x, Kernel)]
    assert len(kernels) == 50
    assert all(k.started >= k.submitted for k in kernels)
    assert all(k2.started >= k1.ended for k1, k2 in itertools.pairwise(kernels))


def test_event_query_follows_the_host_clock(sim: SimBackend, ctx: wia.Context) -> None:
    src, dst = wia.alloc(ctx, 16 * MiB), wia.alloc(ctx, 16 * MiB)
    stream = wia.create_stream(ctx)
    done = wia.create_event()
    wia.copy_async(src, dst, 16 * MiB, stream)
    wia.event_record(done, stream)
    assert not wia.event_query(done)
    wia.event_synchronize(done)
    assert wia.event_query(done)


def test_timeout_then_longer_timeout_succeeds(sim: SimBackend, ctx: wia.Context) -> None:
    src, dst = wia.alloc(ctx, 16 * MiB), wia.alloc(ctx, 16 * MiB)
    stream = wia.create_stream(ctx)
    wia.copy_async(src, dst, 16 * MiB, stream)
    wia.context_set_timeout(ctx, 0.001)
    before = sim.machine.host_time
    with pytest.raises(wia.TimedOutError) as info:
        wia.stream_synchronize(stream)
    assert info.value.code is wia.ErrorCode.TIMEOUT
    assert sim.machine.host_time == pytest.approx(before + sim.model.host.api_overhead + 1e-6)
    wia.context_set_timeout(ctx, 1000.0)
    wia.stream_synchronize(stream)


def _program() -> tuple[list[tuple[str, float, float]], np.ndarray]:
    ctx = wia.create_context()
    rng = np.random.default_rng(11)
    streams = [wia.create_stream(ctx) for _ in range(3)]
    a = wia.tensor(rng.random((64, 64), np.float32), ctx=ctx)
    b = wia.tensor(rng.random(64, np.float32), ctx=ctx)
    host = wia.alloc(ctx, a.nbytes, wia.MemoryType.PINNED)
    out = a
    for i in range(30):
        s = streams[i % 3]
        out = wia.relu(wia.add(wia.mul(out, b, stream=s), a, stream=s), stream=s)
        wia.copy_async(out.memory, host, a.nbytes, streams[(i + 1) % 3])
    trace = wia.get_backend().machine.trace  # type: ignore[attr-defined]
    result = out.numpy()
    wia.destroy_context(ctx)
    return [(type(c).__name__, c.started, c.ended) for c in trace], result


def test_same_program_same_timeline_and_numbers() -> None:
    """Even a racy program (each stream reads the previous one's result, and the copies write one buffer, without
    events: the simulator reports those hazards) gives the same timeline and the same numbers, bit for bit."""
    runs = []
    for _ in range(2):
        wia.set_backend("sim", hardware="wia-tiny", hazards="warn")
        wia.get_backend().machine.trace = []  # type: ignore[attr-defined]
        with pytest.warns(wia.StreamHazardWarning):
            runs.append(_program())
    assert runs[0][0] == runs[1][0]
    assert runs[0][1].tobytes() == runs[1][1].tobytes()


def test_timing_only_mode_has_the_same_timeline() -> None:
    timelines = []
    for numerics in (True, False):
        wia.set_backend("sim", hardware="wia-tiny", numerics=numerics)
        backend = wia.get_backend()
        trace: list[Command] = []
        backend.machine.trace = trace  # type: ignore[attr-defined]
        ctx = wia.create_context()
        a = wia.tensor(np.ones((256, 256), np.float32), ctx=ctx)
        b = wia.empty((256, 256), ctx=ctx)
        s = wia.create_stream(ctx)
        for _ in range(20):  # the two streams take turns, each after the other's result (no hazard)
            wia.stream_wait_stream(s, ctx.default_stream)
            product = wia.mul(a, b, stream=s)
            wia.stream_wait_stream(ctx.default_stream, s)
            b = wia.add(product, a)
        wia.context_synchronize(ctx)
        timelines.append(
            ([(type(c).__name__, c.submitted, c.started, c.ended) for c in trace], backend.machine.host_time)
        )  # type: ignore[attr-defined]
        if not numerics:
            with pytest.raises(wia.InvalidValueError, match="timing-only mode"):
                b.numpy()
        wia.destroy_context(ctx)
    assert timelines[0] == timelines[1]


def test_timing_only_mode_times_real_sizes_quickly() -> None:
    wia.set_backend("sim", hardware="nvidia-a100-sxm4-80gb", numerics=False)
    info = wia.get_device_info(wia.get_device(0))
    a = wia.empty((32768, 32768))  # 4 GiB: far more than a unit test should touch for real
    c = wia.add(a, a)
    start, end = wia.create_event(), wia.create_event()
    ctx = c.context
    wia.event_record(start, ctx.default_stream)
    c = wia.add(c, a)
    wia.event_record(end, ctx.default_stream)
    wia.event_synchronize(end)
    nbytes = 3 * a.nbytes
    # memory-bound: 12 GiB moved at the streaming bandwidth (peak × the model's fitted efficiency), plus a launch
    streaming = info.memory_bandwidth * wia.get_backend().model.efficiency.memory  # type: ignore[attr-defined]
    assert wia.event_elapsed_time(start, end) == pytest.approx(nbytes / streaming * 1e3, rel=0.01)
    with pytest.raises(wia.OutOfMemoryError):
        [wia.empty((32768, 32768)) for _ in range(20)]


def test_out_of_memory_when_fragmented_names_the_largest_free_range(sim: SimBackend, ctx: wia.Context) -> None:
    size = int(sim.model.memory.size)
    blocks = [wia.alloc(ctx, MiB) for _ in range(size // MiB)]
    for block in blocks[::2]:
        wia.free(block)
    free_total = (size // MiB + 1) // 2 * MiB
    with pytest.raises(wia.OutOfMemoryError) as info:
        wia.alloc(ctx, 2 * MiB)
    message = str(info.value)
    assert f"requested {2 * MiB} bytes" in message
    assert f"largest free range {MiB} bytes" in message
    assert f"total free {free_total} bytes" in message


def test_finished_work_does_not_keep_dropped_buffers_alive(raw_ctx: wia.Context) -> None:
    import weakref

    x = wia.tensor(np.ones(1 << 16, np.float32), ctx=raw_ctx)
    storage = weakref.ref(x.memory.buffer.data)
    y = wia.relu(x)  # y's record stays readable by explain, but must not pin x's storage once it has run
    del x
    small = wia.tensor(np.ones(4, np.float32), ctx=raw_ctx)
    for _ in range(200):  # without a synchronization: only the host's progress lets device time catch up
        wia.add(small, small)
    assert storage() is None
    assert wia.explain(y).name == "relu"
