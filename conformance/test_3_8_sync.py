"""SPEC 3.8 (stream, context and event parts, Level 1): synchronization."""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest

import wia_hal as wia
from conformance import assertions as ph
from conformance import strategies as hh

F32 = np.dtype(np.float32)


def _busy_stream(ctx: wia.Context | None, n: int) -> tuple[wia.Stream, wia.Event, list[wia.Memory]]:
    """A stream of ``ctx`` (the default context for None) with a long device copy, an event after it, and the
    memory it uses."""
    s = wia.create_stream(ctx)
    a, b = wia.alloc(ctx, n), wia.alloc(ctx, n)
    wia.copy_async(a, b, n, s)
    wia.copy_async(b, a, n, s)
    e = wia.create_event()
    wia.event_record(e, s)
    return s, e, [a, b]


@pytest.mark.req("R-3.8-01")
def test_context_synchronize_waits_for_every_stream(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    ph.requires_streams(3)
    n = hh.work_bytes(info, cap=32 * hh.MiB, fraction=32)
    events = [_busy_stream(ctx, n)[1] for _ in range(3)]
    x = wia.tensor(np.full(1024, 2.0, np.float32), ctx=ctx)
    y = wia.mul(x, x, ctx=ctx)  # on the context's default stream
    wia.context_synchronize(ctx)
    for i, e in enumerate(events):
        ph.assert_equal(
            wia.event_query(e), True, f"event_query(event after the work of stream {i}) after context_synchronize"
        )
    ph.assert_array_close(y.numpy(), np.full(1024, 4.0, np.float32), F32, "mul on the default stream")


@pytest.mark.req("R-3.8-01", "R-3.1-04")
def test_context_synchronize_without_context_uses_the_default(device: wia.Device, info: wia.DeviceInfo) -> None:
    n = hh.work_bytes(info, cap=16 * hh.MiB, fraction=32)
    s, e, memory = _busy_stream(None, n)
    wia.context_synchronize()
    ph.assert_equal(wia.event_query(e), True, "event_query after context_synchronize() on the default context")
    wia.destroy_stream(s)
    for m in memory:
        wia.free(m)


@pytest.mark.req("R-3.8-01")
def test_stream_synchronize_waits_for_its_stream(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    n = hh.work_bytes(info, cap=16 * hh.MiB, fraction=32)
    s, e, _ = _busy_stream(ctx, n)
    wia.stream_synchronize(s)
    ph.assert_equal(wia.event_query(e), True, "event_query after stream_synchronize")


@pytest.mark.req("R-3.8-02", "R-3.4.1-01")
def test_pipeline_of_streams_ordered_by_events(ctx: wia.Context) -> None:
    ph.requires_streams(3)
    s1, s2, s3 = (wia.create_stream(ctx) for _ in range(3))
    e1, e2 = wia.create_event(), wia.create_event()
    x = wia.tensor(np.arange(-8, 8, dtype=np.float32).reshape(4, 4), ctx=ctx)
    y = x
    for _ in range(6):
        y = wia.add(y, x, stream=s1)  # 7x
    wia.event_record(e1, s1)
    wia.stream_wait_event(s2, e1)
    z = wia.relu(y, stream=s2)
    wia.event_record(e2, s2)
    wia.stream_wait_event(s3, e2)
    w = wia.mul(z, x, stream=s3)
    wia.stream_synchronize(s3)
    expected = np.maximum(7 * np.arange(-8, 8, dtype=np.float32), 0) * np.arange(-8, 8, dtype=np.float32)
    ph.assert_array_close(w.numpy().reshape(-1), expected, F32, "s1: 6 x add -> e1 -> s2: relu -> e2 -> s3: mul")
    ph.assert_equal((wia.event_query(e1), wia.event_query(e2)), (True, True), "event_query(e1, e2) after s3 finished")


# -- fences (R-3.8-04): a command list is a sequence of callables that submit work --------------------------------


def _busy_commands(
    ctx: wia.Context, info: wia.DeviceInfo, streams: int
) -> tuple[list[Callable[[], object]], list[wia.Event]]:
    """A command list that keeps ``streams`` streams of ``ctx`` busy (two long copies each) and records an event
    after each stream's work, as the list's own last commands."""
    n = hh.work_bytes(info, cap=32 * hh.MiB, fraction=8 * streams)
    commands: list[Callable[[], object]] = []
    events = []
    for _ in range(streams):
        s = wia.create_stream(ctx)
        a, b = wia.alloc(ctx, n), wia.alloc(ctx, n)
        e = wia.create_event()
        events.append(e)
        commands += [
            functools.partial(wia.copy_async, a, b, n, s),
            functools.partial(wia.copy_async, b, a, n, s),
            functools.partial(wia.event_record, e, s),
        ]
    return commands, events


@pytest.mark.req("R-3.8-04")
def test_wait_fence_returns_when_every_command_is_complete(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    ph.requires_streams(2)
    commands, events = _busy_commands(ctx, info, 2)
    rng = np.random.default_rng()
    x = rng.standard_normal((64, 64)).astype(np.float32)
    a = wia.tensor(x, ctx=ctx)
    commands.append(lambda: wia.relu(wia.mul(a, a, ctx=ctx), ctx=ctx))
    fence = wia.create_fence()
    results = wia.submit_with_fence(commands, fence)
    ph.assert_equal(len(results), len(commands), "len(submit_with_fence(commands, fence)): one result per command")
    wia.wait_fence(fence, wia.TIMEOUT_INFINITE)
    done = [wia.event_query(e) for e in events]
    ph.assert_equal(done, [True] * len(events), "event_query of each stream's last command after wait_fence")
    ph.assert_array_close(results[-1].numpy(), np.maximum(x * x, 0), F32, "relu(mul(a, a)) submitted with a fence")
    wia.destroy_fence(fence)


@pytest.mark.req("R-3.8-04", "R-3.9-04")
def test_wait_fence_with_a_finite_timeout(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    """A timeout that expires raises TIMEOUT and leaves the fence armed: a longer wait then succeeds. (Work that
    finishes within the timeout passes the first wait; then it must really be complete.)"""
    ph.requires_streams(2)
    commands, events = _busy_commands(ctx, info, 2)
    fence = wia.create_fence()
    wia.submit_with_fence(commands, fence)
    try:
        wia.wait_fence(fence, 0)
    except wia.WiaError as e:
        ph.assert_equal(e.code, wia.ErrorCode.TIMEOUT, "wait_fence(fence, 0) on long work: the error's code")
        ph.assert_true(
            not all(wia.event_query(ev) for ev in events),
            "every command complete",
            "some command still running when wait_fence raised TIMEOUT",
            "event_query after wait_fence(fence, 0) raised TIMEOUT",
        )
        wia.wait_fence(fence, wia.TIMEOUT_INFINITE)
    done = [wia.event_query(e) for e in events]
    ph.assert_equal(done, [True] * len(events), "event_query of each command list's stream after wait_fence")


@pytest.mark.req("R-3.8-04")
def test_fence_covers_work_on_several_contexts_and_its_latest_submission(
    ctx: wia.Context, device: wia.Device, info: wia.DeviceInfo
) -> None:
    other = wia.create_context(wia.ContextConfig(device_id=device.index))
    try:
        first, first_events = _busy_commands(ctx, info, 1)
        second, second_events = _busy_commands(other, info, 1)
        fence = wia.create_fence()
        wia.submit_with_fence(first + second, fence)
        wia.wait_fence(fence)
        done = [wia.event_query(e) for e in first_events + second_events]
        ph.assert_equal(done, [True, True], "event_query on both contexts' streams after wait_fence")
        again, again_events = _busy_commands(ctx, info, 1)
        wia.submit_with_fence(again, fence)
        wia.wait_fence(fence, wia.TIMEOUT_INFINITE)
        ph.assert_equal(wia.event_query(again_events[0]), True, "event_query after waiting on a resubmitted fence")
    finally:
        wia.destroy_context(other)


@pytest.mark.req("R-3.8-04")
def test_fence_misuse(ctx: wia.Context) -> None:
    fence = wia.create_fence()
    wia.wait_fence(fence, 0)  # never submitted: nothing to wait for
    ran: list[int] = []
    bad = [lambda: ran.append(1), 42]
    ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.submit_with_fence, bad, fence)
    ph.assert_equal(ran, [], "commands run by a submit_with_fence that raised INVALID_VALUE (a non-callable)")
    ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.submit_with_fence, "not a list", fence)
    ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.submit_with_fence, [], object())
    ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.wait_fence, fence, -1)
    wia.destroy_fence(fence)
    ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.wait_fence, fence)
    ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.submit_with_fence, [], fence)


# -- peer barriers (R-3.8-03) ------------------------------------------------------------------------------------


def _contexts_on_every_device(limit: int = 4) -> list[wia.Context]:
    count = min(wia.get_device_count(), limit)
    return [wia.create_context(wia.ContextConfig(device_id=i)) for i in range(count)]


@pytest.mark.req("R-3.8-03")
def test_peer_barrier_from_one_host_thread_waits_for_every_device(info: wia.DeviceInfo) -> None:
    contexts = _contexts_on_every_device()
    try:
        devices = [c.device for c in contexts]
        barrier = wia.create_peer_barrier(devices, len(devices))
        events = []
        for c in contexts:
            events.append(_busy_stream(c, hh.work_bytes(info, cap=16 * hh.MiB, fraction=32))[1])
        wia.peer_barrier_wait(barrier)
        done = [wia.event_query(e) for e in events]
        ph.assert_equal(done, [True] * len(events), "event_query of each device's earlier work after peer_barrier_wait")
        wia.peer_barrier_wait(barrier)  # a barrier serves round after round
        wia.destroy_peer_barrier(barrier)
    finally:
        for c in contexts:
            wia.destroy_context(c)


@pytest.mark.req("R-3.8-03")
def test_peer_barrier_from_one_thread_per_device(info: wia.DeviceInfo) -> None:
    """No participant passes before all have arrived, and each device's earlier work is complete when one passes."""
    contexts = _contexts_on_every_device()
    try:
        devices = [c.device for c in contexts]
        barrier = wia.create_peer_barrier(devices, len(devices))
        arrived = [False] * len(devices)
        seen: list[list[bool]] = [[] for _ in devices]
        events: dict[int, wia.Event] = {}
        errors: list[BaseException] = []
        n = hh.work_bytes(info, cap=8 * hh.MiB, fraction=64)

        def participant(i: int) -> None:
            try:
                time.sleep(0.02 * i)  # arrive one after another
                _, events[i], _ = _busy_stream(contexts[i], n)
                arrived[i] = True
                wia.peer_barrier_wait(barrier, devices[i])
                seen[i] = list(arrived)
            except BaseException as e:
                errors.append(e)

        # daemon threads: a backend whose barrier never releases fails the test instead of hanging the suite
        threads = [threading.Thread(target=participant, args=(i,), daemon=True) for i in range(len(devices))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        stuck = [i for i, t in enumerate(threads) if t.is_alive()]
        ph.assert_equal(stuck, [], "participants still waiting at the barrier 120 s after all arrived")
        ph.assert_equal(errors, [], "errors raised in the participant threads")
        for i in range(len(devices)):
            ph.assert_equal(seen[i], [True] * len(devices), f"arrivals seen by participant {i} when it passed")
            ph.assert_equal(wia.event_query(events[i]), True, f"device {i}'s earlier work after the barrier")
    finally:
        for c in contexts:
            wia.destroy_context(c)


@pytest.mark.req("R-3.8-03")
def test_peer_barrier_misuse(device: wia.Device) -> None:
    ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.create_peer_barrier, [], 0)
    ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.create_peer_barrier, [device, device], 2)
    ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.create_peer_barrier, [device], 3)
    ph.assert_raises_code(wia.ErrorCode.INVALID_DEVICE, wia.create_peer_barrier, [object()], 1)
    barrier = wia.create_peer_barrier([device], 1)
    ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.peer_barrier_wait, barrier, None, -5)
    wia.destroy_peer_barrier(barrier)
    ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.peer_barrier_wait, barrier)


@pytest.mark.req("R-3.8-03", "R-3.9-04")
def test_peer_barrier_timeout_withdraws_the_arrival() -> None:
    ph.requires_devices(2)
    devices = [wia.get_device(0), wia.get_device(1)]
    barrier = wia.create_peer_barrier(devices, 2)
    error = ph.assert_raises_code(wia.ErrorCode.TIMEOUT, wia.peer_barrier_wait, barrier, devices[0], 10)
    ph.assert_message_mentions(error, [["arrived"]], "peer_barrier_wait(barrier, device 0, 10 ms) alone")
    wia.peer_barrier_wait(barrier)  # device 0's arrival was withdrawn: one thread now passes for both
    wia.destroy_peer_barrier(barrier)
