"""Fences and command lists (R-3.8-04), peer barriers (R-3.8-03), and many host threads driving the simulator."""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import wia_hal as wia
from wia_hal.backends.sim import SimBackend
from wia_hal.errors import API_LOCK


def _long_copy(ctx: wia.Context, nbytes: int = 1 << 20) -> tuple[wia.Stream, Callable[[], None]]:
    s = wia.create_stream(ctx)
    a, b = wia.alloc(ctx, nbytes), wia.alloc(ctx, nbytes)
    return s, lambda: wia.copy_async(a, b, nbytes, s)


# -- fences --------------------------------------------------------------------------------------------------------


def test_a_finite_fence_timeout_expires_in_simulated_time(ctx: wia.Context, sim: SimBackend) -> None:
    s, copy = _long_copy(ctx, 4 << 20)
    fence = wia.create_fence()
    wia.submit_with_fence([copy], fence)
    started = sim.clock_ms()
    with pytest.raises(wia.TimedOutError, match=r"not complete within 0\.01 ms"):
        wia.wait_fence(fence, 0.01)
    assert sim.clock_ms() - started == pytest.approx(0.01, abs=0.005)  # the host waited exactly the timeout
    wia.wait_fence(fence, 1e6)
    last = s.queue.last
    assert last is not None and last.done and sim.clock_ms() >= last.ended * 1e3


def test_a_fence_covers_exactly_the_streams_its_commands_used(ctx: wia.Context) -> None:
    busy, other_copy = _long_copy(ctx, 8 << 20)
    other_copy()  # long work on another stream, submitted before and outside the fence
    s = wia.create_stream(ctx)
    a = wia.tensor(np.ones(64, np.float32), ctx=ctx)
    fence = wia.create_fence()
    wia.submit_with_fence([lambda: wia.relu(a, stream=s)], fence)
    wia.wait_fence(fence, 0.1)  # the short op is done long before the busy stream: no TIMEOUT from it
    assert [stream for stream, _ in fence.points] == [s]
    assert busy.queue.busy


def test_commands_default_to_the_given_stream_and_results_come_back_in_order(ctx: wia.Context) -> None:
    s = wia.create_stream(ctx)
    x = np.random.default_rng(1).standard_normal(256).astype(np.float32)
    a = wia.tensor(x, ctx=ctx)
    fence = wia.create_fence()
    results = wia.submit_with_fence([lambda: wia.relu(a), lambda: wia.mul(a, a), lambda: 7], fence, stream=s)
    assert [stream for stream, _ in fence.points] == [s]
    wia.wait_fence(fence)
    np.testing.assert_array_equal(results[0].numpy(), np.maximum(x, 0))
    np.testing.assert_allclose(results[1].numpy(), x.astype(np.float64) ** 2, rtol=1e-6)
    assert results[2] == 7


def test_a_command_that_raises_passes_through_and_the_fence_covers_what_ran(ctx: wia.Context) -> None:
    s, copy = _long_copy(ctx)

    def broken() -> None:
        raise KeyError("the user's own bug")

    fence = wia.create_fence()
    with pytest.raises(KeyError, match="the user's own bug"):
        wia.submit_with_fence([copy, broken], fence)
    assert [stream for stream, _ in fence.points] == [s]
    wia.wait_fence(fence)
    assert not s.queue.busy


def test_a_fence_outlives_the_context_of_its_work(raw_ctx: wia.Context) -> None:
    ctx = wia.create_context()
    _, copy = _long_copy(ctx)
    fence = wia.create_fence()
    wia.submit_with_fence([copy], fence)
    wia.destroy_context(ctx)  # finishes the work
    wia.wait_fence(fence, 0)


# -- peer barriers --------------------------------------------------------------------------------------------------


def test_a_barrier_waits_for_every_context_on_its_devices(sim: SimBackend) -> None:
    wia.set_backend("sim", hardware="wia-tiny", devices=3)
    contexts = [wia.create_context(wia.ContextConfig(device_id=i)) for i in (0, 1, 2, 2)]
    streams = [_long_copy(c, (16 if i == 0 else 1) << 20) for i, c in enumerate(contexts)]  # device 0's ends last
    for _, copy in streams:
        copy()
    barrier = wia.create_peer_barrier([wia.get_device(1), wia.get_device(2)])
    wia.peer_barrier_wait(barrier)
    assert [s.queue.busy for s, _ in streams] == [True, False, False, False]  # device 0 is not a participant
    assert barrier.round == 1 and not barrier.arrived


def test_a_round_that_times_out_on_device_work_fails_every_participant() -> None:
    wia.set_backend("sim", hardware="wia-tiny", devices=2)
    contexts = [wia.create_context(wia.ContextConfig(device_id=i)) for i in range(2)]
    _, copy = _long_copy(contexts[1], 8 << 20)
    copy()
    devices = [c.device for c in contexts]
    barrier = wia.create_peer_barrier(devices)
    errors: list[BaseException] = []

    def first() -> None:
        try:
            wia.peer_barrier_wait(barrier, devices[0])
        except wia.WiaError as e:
            errors.append(e)

    thread = threading.Thread(target=first)
    thread.start()
    while not barrier.arrived:  # device 0 is waiting for device 1
        threading.Event().wait(0.001)
    with pytest.raises(wia.TimedOutError, match="still busy"):
        wia.peer_barrier_wait(barrier, devices[1], timeout_ms=0.001)
    thread.join(10)
    assert len(errors) == 1 and errors[0].code is wia.ErrorCode.TIMEOUT and "still busy" in str(errors[0])
    assert barrier.round == 1 and not barrier.arrived
    wia.peer_barrier_wait(barrier)  # the next round passes once the work is done


def test_other_threads_calls_are_outermost_calls_while_one_waits_at_a_barrier(sim: SimBackend) -> None:
    """A participant waiting inside peer_barrier_wait must not make the others' calls look nested (their host time
    would not be charged, their errors not trimmed)."""
    wia.set_backend("sim", hardware="wia-tiny", devices=2)
    backend = wia.get_backend()
    assert isinstance(backend, SimBackend)
    devices = [wia.get_device(0), wia.get_device(1)]
    barrier = wia.create_peer_barrier(devices)
    thread = threading.Thread(target=wia.peer_barrier_wait, args=(barrier, devices[0]))
    thread.start()
    while not barrier.arrived:
        threading.Event().wait(0.001)
    before = backend.clock_ms()
    wia.get_device_count()
    assert backend.clock_ms() - before == pytest.approx(backend.model.host.api_overhead * 1e3)
    with pytest.raises(wia.InvalidDeviceError) as error:
        wia.get_device(7)
    assert len(error.traceback) <= 2  # trimmed: this line and the one frame that raises it (a nested call keeps all)
    wia.peer_barrier_wait(barrier, devices[1])
    thread.join(10)
    assert not thread.is_alive() and barrier.round == 1


def test_a_barrier_of_a_replaced_backend_is_stale() -> None:
    barrier = wia.create_peer_barrier([wia.get_device(0)])
    wia.set_backend("sim", hardware="wia-tiny")
    with pytest.raises(wia.InvalidDeviceError, match="no longer active"):
        wia.peer_barrier_wait(barrier)


def test_a_participant_cannot_arrive_twice_in_a_round() -> None:
    wia.set_backend("sim", hardware="wia-tiny", devices=2)
    devices = [wia.get_device(0), wia.get_device(1)]
    barrier = wia.create_peer_barrier(devices)
    with pytest.raises(wia.TimedOutError):
        wia.peer_barrier_wait(barrier, devices[0], timeout_ms=1)
    assert not barrier.arrived  # withdrawn
    thread = threading.Thread(target=wia.peer_barrier_wait, args=(barrier, devices[0]))
    thread.start()
    while not barrier.arrived:
        threading.Event().wait(0.001)
    with pytest.raises(wia.InvalidValueError, match="already arrived"):
        wia.peer_barrier_wait(barrier, devices[0])
    with pytest.raises(wia.InvalidValueError, match="waiting"):
        wia.destroy_peer_barrier(barrier)
    wia.peer_barrier_wait(barrier, devices[1])
    thread.join(10)
    wia.destroy_peer_barrier(barrier)


# -- many host threads: random interleavings, and a timeline that follows the order of submissions --------------


@pytest.fixture
def tiny_switch_interval() -> Iterator[None]:
    """Switch threads as often as the interpreter allows, so that interleavings vary from run to run."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


Step = tuple[int, int]
"""(thread, step): one API call of one thread's program."""


def _program(thread: int, contexts: list[wia.Context], state: dict[str, Any]) -> list[Callable[[], None]]:
    """One thread's calls: its own stream on a context (shared between pairs of threads), a few ops, an event
    handed to the next stream, a fence, a read-back; every result is checked by the caller."""
    ctx = contexts[thread % len(contexts)]
    rng = np.random.default_rng(thread)
    x = rng.standard_normal((32, 32)).astype(np.float32)
    mine: dict[str, Any] = state.setdefault(thread, {})

    def start() -> None:
        mine["s"], mine["s2"] = wia.create_stream(ctx), wia.create_stream(ctx)
        mine["a"] = wia.tensor(x, ctx=ctx, stream=mine["s"])

    def compute() -> None:
        mine["b"] = wia.relu(wia.matmul(mine["a"], mine["a"], stream=mine["s"]), stream=mine["s"])

    def hand_over() -> None:
        mine["e"] = wia.create_event()
        wia.event_record(mine["e"], mine["s"])
        wia.stream_wait_event(mine["s2"], mine["e"])
        mine["c"] = wia.add(mine["b"], mine["a"], stream=mine["s2"])

    def fenced() -> None:
        mine["f"] = wia.create_fence()
        mine["d"] = wia.submit_with_fence([lambda: wia.mul(mine["c"], mine["c"], stream=mine["s2"])], mine["f"])[0]
        wia.wait_fence(mine["f"])

    def read() -> None:
        mine["result"] = mine["d"].numpy()
        mine["expected"] = (np.maximum(x.astype(np.float64) @ x, 0) + x) ** 2
        wia.destroy_stream(mine["s"])
        wia.destroy_stream(mine["s2"])

    return [start, compute, hand_over, fenced, read]


def _run_threads(threads: int, order: list[Step] | None, seed: int) -> tuple[list[Step], float, dict[str, Any]]:
    """Run the programs on ``threads`` host threads (random jitter between calls), or, given ``order``, on this
    thread in exactly that order. Returns the order the calls were made in, the simulated end time and the state."""
    wia.set_backend("sim", hardware="wia-tiny")
    contexts = [wia.create_context() for _ in range(max(threads // 2, 1))]
    state: dict[str, Any] = {}
    programs = [_program(t, contexts, state) for t in range(threads)]
    made: list[Step] = []
    failures: list[str] = []

    def call(thread: int, step: int) -> None:
        with API_LOCK:  # the order calls are made in is the order they take the lock (the API holds it per call)
            made.append((thread, step))
            programs[thread][step]()

    if order is not None:
        for thread, step in order:
            call(thread, step)
    else:
        jitter = random.Random(seed)
        delays = [[jitter.random() * 1e-3 for _ in programs[t]] for t in range(threads)]

        def run(thread: int) -> None:
            try:
                for step, delay in enumerate(delays[thread]):
                    threading.Event().wait(delay)
                    call(thread, step)
            except Exception as e:
                failures.append(f"thread {thread}: {type(e).__name__}: {e}")

        pool = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
        for thread in pool:
            thread.start()
        for thread in pool:
            thread.join(60)
    assert failures == []
    for c in contexts:
        wia.destroy_context(c)
    backend = wia.get_backend()
    assert isinstance(backend, SimBackend)
    return made, backend.clock_ms(), state


@pytest.mark.usefixtures("tiny_switch_interval")
def test_random_interleavings_of_eight_threads_are_right_and_replay_to_the_same_timeline() -> None:
    """Eight threads, two per context, streams, events across streams and fences, random delays between calls, many
    repetitions: every result right, and the simulated timeline the same as running the calls in the order they
    were made on one thread (the simulator is deterministic for a given order of submissions)."""
    orders = set()
    for repetition in range(12):
        made, end_ms, state = _run_threads(8, None, seed=repetition)
        for thread in range(8):
            np.testing.assert_allclose(state[thread]["result"], state[thread]["expected"], rtol=2e-4, atol=1e-3)
        replayed, replay_end_ms, replay_state = _run_threads(8, made, seed=repetition)
        assert replayed == made
        assert replay_end_ms == end_ms
        for thread in range(8):
            np.testing.assert_array_equal(replay_state[thread]["result"], state[thread]["result"])
        orders.add(tuple(made))
    assert len(orders) > 1  # the interleavings did vary


def test_waiting_on_a_fence_of_a_lost_device_is_device_lost_until_reset(ctx: wia.Context) -> None:
    a = wia.tensor(np.ones(64, np.float32), ctx=ctx)
    fence = wia.create_fence()
    wia.submit_with_fence([lambda: wia.add(a, a)], fence)
    wia.inject_fault(wia.Fault(kind=wia.FaultKind.DEVICE_LOST))
    with pytest.raises(wia.DeviceLostError):
        wia.add(a, a).numpy()
    with pytest.raises(wia.DeviceLostError, match="until reset_device"):
        wia.wait_fence(fence, 0)
    wia.reset_device(ctx)
    wia.wait_fence(fence, 0)  # the dropped work is over: nothing to wait for
