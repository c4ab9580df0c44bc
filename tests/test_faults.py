"""Fault injection (wia_hal/faults.py, wia_sim/faults.py; docs/faults.md) and recovery (reset_device, R-3.9-04).

Every kind and trigger, determinism with a seed, the WIA_FAULTS grammar and its errors, DEVICE_LOST stickiness on
every kind of call (also for a backend without the extension that raises DeviceLostError from a hook), and what a
reset keeps and discards. Runs on wia-tiny (conftest.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import wia_hal as wia
from wia_hal.backends.reference import ReferenceBackend
from wia_hal.backends.sim import SimBackend
from wia_sim.faults import WATCHDOG_S, DeviceLost, FaultInjector

E = wia.ErrorCode
K = wia.FaultKind
KERNEL = "__kernel void twice(__global float* a) { int i = get_global_id(0); a[i] = 2.0f * a[i]; }"


def _expect(code: wia.ErrorCode, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> wia.WiaError:
    with pytest.raises(wia.WiaError) as info:
        fn(*args, **kwargs)
    error = info.value
    assert error.code is code, f"{fn.__name__}: got {error.code.name} ({error}), but should be {code.name}"
    return error


def _ones(ctx: wia.Context, n: int = 256) -> wia.Tensor:
    return wia.tensor(np.ones(n, np.float32), ctx=ctx)


def _lose(ctx: wia.Context) -> None:
    """Make ``ctx``'s device lost (at the next op) and observe it."""
    a = _ones(ctx)
    wia.inject_fault(wia.Fault(kind=K.DEVICE_LOST, device=ctx.device.index))
    out = wia.add(a, a)  # asynchronous: the launch itself succeeds
    _expect(E.DEVICE_LOST, out.numpy)


# -- the Fault model and inject_fault's checks -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"kind": K.DEVICE_LOST, "after_ops": 1, "at_ms": 1.0}, "one trigger"),
        ({"kind": K.DEVICE_LOST, "count": 2}, "count applies to OUT_OF_MEMORY"),
        ({"kind": K.HANG, "uncorrectable": True}, "uncorrectable applies to ECC_ERROR"),
        ({"kind": K.LINK_FAILURE}, "needs a peer"),
        ({"kind": K.LINK_FAILURE, "peer": 0}, "needs a peer"),
        ({"kind": K.DEVICE_LOST, "probability": 1.5}, "probability"),
        ({"kind": K.OUT_OF_MEMORY, "after_ops": -1}, "after_ops"),
        ({"kind": "meltdown"}, "kind"),
    ],
)
def test_a_bad_fault_is_invalid_value(fields: dict[str, Any], words: str) -> None:
    error = _expect(E.INVALID_VALUE, wia.Fault, **fields)
    assert words in str(error)


def test_inject_fault_checks_its_arguments(ctx: wia.Context) -> None:
    _expect(E.INVALID_VALUE, wia.inject_fault, "device_lost")
    _expect(E.INVALID_DEVICE, wia.inject_fault, wia.Fault(kind=K.DEVICE_LOST, device=3))
    host = wia.alloc(ctx, 64, wia.MemoryType.HOST)
    error = _expect(E.INVALID_VALUE, wia.inject_fault, wia.Fault(kind=K.ECC_ERROR, buffer=host, uncorrectable=True))
    assert "HOST memory" in str(error)
    wia.free(host)
    gone = _ones(ctx)
    wia.release_tensor(gone)
    _expect(E.INVALID_VALUE, wia.inject_fault, wia.Fault(kind=K.ECC_ERROR, buffer=gone))
    assert wia.get_fault_stats(0).faults_pending == 0  # nothing was armed by the failed calls


class _NoFaults(ReferenceBackend):
    """A backend that does not claim the extension (the opencl backend's case)."""

    name = "no-faults"

    def device_capabilities(self, device: int) -> wia.DeviceCapabilities:
        caps = super().device_capabilities(device)
        return caps.model_copy(update={"supports_fault_injection": False})


def test_the_extension_is_a_capability_and_not_supported_without_it() -> None:
    assert wia.get_device_capabilities(wia.get_device(0)).supports_fault_injection
    wia.set_backend(_NoFaults())
    assert not wia.get_device_capabilities(wia.get_device(0)).supports_fault_injection
    error = _expect(E.NOT_SUPPORTED, wia.inject_fault, wia.Fault(kind=K.DEVICE_LOST))
    assert "supports_fault_injection" in str(error)
    _expect(E.NOT_SUPPORTED, wia.clear_faults)
    _expect(E.NOT_SUPPORTED, wia.get_fault_stats)


# -- DEVICE_LOST: triggers, the failing op, stickiness ---------------------------------------------------------------


def test_device_lost_at_the_next_op_fails_that_op_and_is_seen_at_the_next_sync(ctx: wia.Context) -> None:
    a = _ones(ctx)
    before = wia.add(a, a).numpy()
    wia.inject_fault(wia.Fault(kind=K.DEVICE_LOST))
    out = wia.add(a, a)  # enqueued: the failure is asynchronous
    error = _expect(E.DEVICE_LOST, out.numpy)
    assert "op 1 (add" in str(error)
    np.testing.assert_array_equal(before, 2.0)
    stats = wia.get_fault_stats(0)
    assert (stats.lost, stats.faults_fired, stats.faults_pending) == (True, 1, 0)
    assert wia.get_error_details(ctx).code is E.DEVICE_LOST


def _run_until_lost(fault: wia.Fault, ops: int = 12) -> tuple[int, str, float]:
    """On a fresh backend, ops run one at a time (each synchronized) until one fails: how many succeeded, the
    error, the clock."""
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    a = _ones(ctx)
    wia.inject_fault(fault)
    done = 0
    try:
        for _ in range(ops):
            wia.add(a, a).numpy()
            done += 1
    except wia.DeviceLostError as e:
        return done, e.message, wia.get_backend().clock_ms()
    finally:
        wia.reset_device(ctx)
        wia.destroy_context(ctx)
    return done, "", wia.get_backend().clock_ms()


def test_after_ops_lets_exactly_n_ops_run() -> None:
    # each round is an add and the download of its result (a copy): after 4 ops, the 5th (the 3rd add) fails
    done, message, _ = _run_until_lost(wia.Fault(kind=K.DEVICE_LOST, after_ops=4))
    assert done == 2, message
    assert "at op 5 (add" in message


def test_device_lost_at_a_simulated_time(ctx: wia.Context, sim: SimBackend) -> None:
    a = wia.tensor(np.ones((256, 256), np.float32), ctx=ctx)
    at = sim.clock_ms() + 0.5
    wia.inject_fault(wia.Fault(kind=K.DEVICE_LOST, at_ms=at))
    with pytest.raises(wia.DeviceLostError) as info:  # seen at the sync, or at a submission once time passed it
        for _ in range(200):  # far more than 0.5 ms of work on wia-tiny
            wia.matmul(a, a)
        wia.context_synchronize(ctx)
    assert "at its time" in str(info.value)
    assert sim.machine.env.now * 1e3 == pytest.approx(at)  # the queued work after it was dropped, not run


def test_probability_faults_are_deterministic_with_a_seed() -> None:
    runs = [_run_until_lost(wia.Fault(kind=K.DEVICE_LOST, probability=0.2, seed=s), ops=40) for s in (7, 7, 8, 9)]
    assert runs[0] == runs[1]  # same program, fault and seed: same op, same message, same simulated time
    assert all(message for _, message, _ in runs)
    assert len({done for done, _, _ in runs[1:]}) > 1  # the seed matters


def test_after_ops_faults_are_deterministic() -> None:
    first = _run_until_lost(wia.Fault(kind=K.DEVICE_LOST, after_ops=9))
    assert _run_until_lost(wia.Fault(kind=K.DEVICE_LOST, after_ops=9)) == first


def test_queued_work_is_dropped(ctx: wia.Context, sim: SimBackend) -> None:
    a = wia.tensor(np.ones((256, 256), np.float32), ctx=ctx)
    a.numpy()
    start = sim.machine.env.now
    one = wia.matmul(a, a)
    wia.context_synchronize(ctx)
    matmul_s = sim.machine.env.now - start
    wia.inject_fault(wia.Fault(kind=K.DEVICE_LOST))
    start = sim.machine.env.now
    for _ in range(50):
        wia.matmul(a, a)
    _expect(E.DEVICE_LOST, wia.context_synchronize, ctx)
    assert sim.machine.env.now - start < 2 * matmul_s  # 50 matmuls were queued, none ran
    del one


def _every_call(ctx: wia.Context) -> dict[str, Callable[[], object]]:
    """One call of each kind on ``ctx`` (made while the device was healthy where they need objects)."""
    stream = wia.create_stream(ctx)
    event = wia.create_event()
    wia.event_record(event, stream)
    host = wia.alloc(ctx, 64, wia.MemoryType.HOST)
    dev = wia.alloc(ctx, 64)
    pool = wia.create_memory_pool(ctx)
    block = wia.alloc_from_pool(pool, 64)
    kernel = wia.compile_kernel(ctx, KERNEL, "twice")
    t = _ones(ctx, 16)
    return {
        "create_context": lambda: wia.create_context(wia.ContextConfig(device_id=ctx.device.index)),
        "create_stream": lambda: wia.create_stream(ctx),
        "stream_synchronize": lambda: wia.stream_synchronize(stream),
        "context_synchronize": lambda: wia.context_synchronize(ctx),
        "event_record": lambda: wia.event_record(event, stream),
        "event_synchronize": lambda: wia.event_synchronize(event),
        "event_query": lambda: wia.event_query(event),
        "alloc": lambda: wia.alloc(ctx, 64),
        "alloc_host": lambda: wia.alloc(ctx, 64, wia.MemoryType.HOST),
        "free": lambda: wia.free(dev),
        "memory_ptr": lambda: wia.memory_ptr(host),
        "copy_async": lambda: wia.copy_async(host, dev, 64),
        "create_memory_pool": lambda: wia.create_memory_pool(ctx),
        "alloc_from_pool": lambda: wia.alloc_from_pool(pool, 64),
        "free_to_pool": lambda: wia.free_to_pool(pool, block),
        "memory_gc": lambda: wia.memory_gc(ctx),
        "tensor": lambda: wia.tensor(np.ones(4, np.float32), ctx=ctx),
        "zeros": lambda: wia.zeros((4,), ctx=ctx),
        "add": lambda: wia.add(t, t),
        "numpy": t.numpy,
        "reshape": lambda: wia.reshape(t, (4, 4)),
        "release_tensor": lambda: wia.release_tensor(t),
        "compile_kernel": lambda: wia.compile_kernel(ctx, KERNEL, "twice"),
        "launch_kernel": lambda: wia.launch_kernel(kernel, wia.LaunchConfig(global_size=(16,)), t),
        "set_timeout": lambda: wia.context_set_timeout(ctx, 10.0),
        "compute_in_context": lambda: wia.compute_in_context(ctx, lambda: None),
    }


def test_after_device_lost_every_call_on_the_context_raises_device_lost(ctx: wia.Context) -> None:
    calls = _every_call(ctx)
    _lose(ctx)
    for name, call in calls.items():
        error = _expect(E.DEVICE_LOST, call)
        assert "reset_device" in str(error), name
    _expect(E.DEVICE_LOST, wia.create_context)  # no new context on a lost device either


def test_a_lost_context_can_be_destroyed(ctx: wia.Context, sim: SimBackend) -> None:
    _lose(ctx)
    wia.destroy_context(ctx)
    assert sim.machine.devices[0].heap.bytes_in_use == 0


class _FailingOnce(ReferenceBackend):
    """A backend without the extension whose device is lost at its second op: it raises DeviceLostError from a
    hook, once; the front end must make that sticky by itself."""

    name = "failing-once"

    def __init__(self) -> None:
        super().__init__()
        self.launches = 0

    def launch_op(self, *args: Any) -> Any:
        self.launches += 1
        if self.launches == 2:
            raise wia.DeviceLostError("the device fell off the bus")
        return super().launch_op(*args)


def test_device_lost_from_any_backend_hook_is_sticky_until_reset() -> None:
    backend = _FailingOnce()
    wia.set_backend(backend)
    ctx = wia.create_context()
    a = _ones(ctx, 8)
    host = wia.alloc(ctx, 8, wia.MemoryType.HOST)
    wia.memory_ptr(host)[:] = 5
    wia.add(a, a)
    _expect(E.DEVICE_LOST, wia.add, a, a)
    for call in (lambda: wia.add(a, a), lambda: wia.alloc(ctx, 8), lambda: wia.memory_ptr(host), a.numpy):
        error = _expect(E.DEVICE_LOST, call)
        assert "fell off the bus" in str(error)
    assert backend.launches == 2  # the backend was not asked again
    wia.reset_device(ctx)  # the default hook: waits for the queues
    np.testing.assert_array_equal(wia.memory_ptr(host), 5)
    b = _ones(ctx, 8)
    np.testing.assert_array_equal(wia.add(b, b).numpy(), 2.0)
    wia.destroy_context(ctx)


# -- reset_device ----------------------------------------------------------------------------------------------------


def test_reset_discards_device_memory_keeps_host_memory_and_the_context_works(ctx: wia.Context) -> None:
    other = wia.create_context()  # another context of the same device loses its device memory too
    t = _ones(ctx)
    view = wia.reshape(t, (16, 16))
    dev = wia.alloc(ctx, 64)
    unified = wia.alloc(ctx, 64, wia.MemoryType.UNIFIED)
    host = wia.alloc(ctx, 64, wia.MemoryType.HOST)
    pinned = wia.alloc(ctx, 64, wia.MemoryType.PINNED)
    pool = wia.create_memory_pool(ctx)
    block = wia.alloc_from_pool(pool, 1024)
    theirs = _ones(other)
    stream = wia.create_stream(ctx)
    event = wia.create_event()
    kernel = wia.compile_kernel(ctx, KERNEL, "twice")
    wia.memory_ptr(host)[:] = 3
    wia.memory_ptr(pinned)[:] = 4
    _lose(ctx)
    wia.reset_device(ctx)
    assert not wia.get_fault_stats(0).lost
    for gone in (t.numpy, view.numpy, theirs.numpy, lambda: wia.free(dev), lambda: wia.memory_ptr(unified)):
        error = _expect(E.INVALID_MEMORY, gone)
        assert "reset" in str(error)
    _expect(E.INVALID_MEMORY, wia.free_to_pool, pool, block)
    assert wia.get_pool_stats(pool).bytes_reserved == 0
    assert wia.get_pool_stats(ctx.default_pool).bytes_in_use == 0  # type: ignore[arg-type]
    np.testing.assert_array_equal(wia.memory_ptr(host), 3)
    np.testing.assert_array_equal(wia.memory_ptr(pinned), 4)
    assert ctx.bytes_in_use == 128  # the host and pinned allocations only: nothing left behind
    # the context, its streams, events and kernels work again, with correct results
    x = wia.tensor(np.arange(16, dtype=np.float32), ctx=ctx, stream=stream)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=(16,)), x)
    y = wia.add(x, x, stream=stream)
    wia.event_record(event, stream)
    wia.event_synchronize(event)
    np.testing.assert_array_equal(y.numpy(), 4 * np.arange(16, dtype=np.float32))
    np.testing.assert_array_equal(wia.add(_ones(other), _ones(other)).numpy(), 2.0)
    wia.destroy_context(other)


def test_reset_of_a_healthy_device_is_allowed(ctx: wia.Context, sim: SimBackend) -> None:
    t = _ones(ctx)
    for _ in range(20):
        wia.add(t, t)
    wia.reset_device(ctx)
    _expect(E.INVALID_MEMORY, t.numpy)
    assert sim.machine.devices[0].heap.bytes_in_use == 0
    np.testing.assert_array_equal(wia.add(_ones(ctx), _ones(ctx)).numpy(), 2.0)


def test_reset_leaves_other_devices_alone() -> None:
    wia.set_backend("sim", hardware="wia-tiny", devices=2)
    zero, one = wia.create_context(), wia.create_context(wia.ContextConfig(device_id=1))
    kept = _ones(one)
    _lose(zero)
    np.testing.assert_array_equal(wia.add(kept, kept).numpy(), 2.0)  # device 1 still works
    wia.reset_device(zero)
    np.testing.assert_array_equal(kept.numpy(), 1.0)
    wia.destroy_context(zero)
    wia.destroy_context(one)


def test_reset_device_checks_its_argument(ctx: wia.Context) -> None:
    _expect(E.INVALID_CONTEXT, wia.reset_device, 0)
    gone = wia.create_context()
    wia.destroy_context(gone)
    _expect(E.INVALID_CONTEXT, wia.reset_device, gone)


def test_reset_on_the_reference_backend() -> None:
    wia.set_backend("reference")
    ctx = wia.create_context()
    t, host = _ones(ctx, 8), wia.alloc(ctx, 8, wia.MemoryType.HOST)
    wia.memory_ptr(host)[:] = 9
    wia.add(t, t)
    wia.reset_device(ctx)
    _expect(E.INVALID_MEMORY, t.numpy)
    np.testing.assert_array_equal(wia.memory_ptr(host), 9)
    np.testing.assert_array_equal(wia.add(_ones(ctx, 8), _ones(ctx, 8)).numpy(), 2.0)
    wia.destroy_context(ctx)


# -- the reference backend: the simple part of the extension ---------------------------------------------------------


def test_the_reference_backend_injects_device_lost_after_n_ops() -> None:
    wia.set_backend("reference")
    ctx = wia.create_context()
    a = _ones(ctx, 8)
    wia.inject_fault(wia.Fault(kind=K.DEVICE_LOST, after_ops=2))
    np.testing.assert_array_equal(wia.add(a, a).numpy(), 2.0)  # ops 1 and 2: the add and its download
    out = wia.add(a, a)  # op 3 fails on the queue's worker
    error = _expect(E.DEVICE_LOST, out.numpy)
    assert "at op 3 (add)" in str(error) and error.details.file == __file__  # the user's call, not the worker's
    _expect(E.DEVICE_LOST, wia.alloc, ctx, 8)
    assert wia.get_fault_stats(0).lost
    wia.reset_device(ctx)
    assert not wia.get_fault_stats(0).lost
    np.testing.assert_array_equal(wia.add(_ones(ctx, 8), _ones(ctx, 8)).numpy(), 2.0)
    wia.destroy_context(ctx)


def test_the_reference_backend_injects_out_of_memory_and_refuses_the_rest() -> None:
    wia.set_backend("reference")
    ctx = wia.create_context(wia.ContextConfig(default_pool=False))
    wia.inject_fault(wia.Fault(kind=K.OUT_OF_MEMORY, after_ops=1, count=2))
    wia.free(wia.alloc(ctx, 64))
    _expect(E.OUT_OF_MEMORY, wia.alloc, ctx, 64)
    _expect(E.OUT_OF_MEMORY, wia.alloc, ctx, 64)
    wia.free(wia.alloc(ctx, 64))
    for fault in (wia.Fault(kind=K.HANG), wia.Fault(kind=K.DEVICE_LOST, at_ms=1.0), wia.Fault(kind=K.ECC_ERROR)):
        _expect(E.NOT_SUPPORTED, wia.inject_fault, fault)
    assert wia.get_fault_stats(0).faults_pending == 0
    wia.destroy_context(ctx)


# -- OUT_OF_MEMORY, HANG, ECC_ERROR, LINK_FAILURE ---------------------------------------------------------------------


def test_out_of_memory_at_the_next_allocation_then_retry_succeeds(raw_ctx: wia.Context) -> None:
    before = raw_ctx.bytes_allocated
    wia.inject_fault(wia.Fault(kind=K.OUT_OF_MEMORY, count=2))
    for _ in range(2):
        error = _expect(E.OUT_OF_MEMORY, wia.alloc, raw_ctx, 4096)
        assert "injected" in str(error)
        assert raw_ctx.bytes_allocated == before  # no partial state
    wia.free(wia.alloc(raw_ctx, 4096))  # the third succeeds
    wia.inject_fault(wia.Fault(kind=K.OUT_OF_MEMORY, after_ops=1))  # counts allocations
    wia.free(wia.alloc(raw_ctx, 64))
    _expect(E.OUT_OF_MEMORY, wia.alloc, raw_ctx, 64)


def test_out_of_memory_then_memory_gc_and_retry(ctx: wia.Context) -> None:
    """safe_compute's flow: the op needs a new pool segment, the allocation fails; gc, retry."""
    a = _ones(ctx, 1 << 20)
    wia.memory_gc(ctx)  # nothing cached: the next tensor needs a device allocation
    wia.inject_fault(wia.Fault(kind=K.OUT_OF_MEMORY))
    _expect(E.OUT_OF_MEMORY, wia.add, a, a)
    wia.memory_gc(ctx)
    np.testing.assert_array_equal(wia.add(a, a).numpy(), 2.0)


def test_a_hang_times_out_with_a_finite_timeout_and_reset_recovers(ctx: wia.Context) -> None:
    a = _ones(ctx)
    wia.context_set_timeout(ctx, 5.0)
    wia.inject_fault(wia.Fault(kind=K.HANG))
    out = wia.add(a, a)
    _expect(E.TIMEOUT, out.numpy)
    _expect(E.TIMEOUT, wia.context_synchronize, ctx)  # still hung: nothing moves
    assert wia.get_fault_stats(0).hung
    wia.reset_device(ctx)
    assert not wia.get_fault_stats(0).hung
    b = _ones(ctx)
    np.testing.assert_array_equal(wia.add(b, b).numpy(), 2.0)


def test_a_hang_without_timeout_ends_at_the_watchdog_as_device_lost(ctx: wia.Context, sim: SimBackend) -> None:
    a = _ones(ctx)
    wia.inject_fault(wia.Fault(kind=K.HANG))
    start = sim.clock_ms()
    out = wia.add(a, a)
    error = _expect(E.DEVICE_LOST, out.numpy)
    assert "watchdog" in str(error)
    assert sim.clock_ms() - start == pytest.approx(WATCHDOG_S * 1e3, rel=1e-3)
    wia.reset_device(ctx)


def test_a_hang_with_a_duration_ends_and_a_longer_timeout_succeeds(ctx: wia.Context) -> None:
    a = _ones(ctx)
    wia.context_set_timeout(ctx, 1.0)
    wia.inject_fault(wia.Fault(kind=K.HANG, duration_ms=20.0))
    out = wia.add(a, a)
    _expect(E.TIMEOUT, wia.context_synchronize, ctx)
    wia.context_set_timeout(ctx, 60_000.0)
    np.testing.assert_array_equal(out.numpy(), 2.0)


def test_a_corrected_ecc_error_is_counted_and_the_data_is_intact(ctx: wia.Context) -> None:
    a = _ones(ctx)
    wia.inject_fault(wia.Fault(kind=K.ECC_ERROR, buffer=a))
    np.testing.assert_array_equal(wia.add(a, a).numpy(), 2.0)
    stats = wia.get_fault_stats(0)
    assert (stats.ecc_corrected, stats.ecc_uncorrectable, stats.lost) == (1, 0, False)


def test_an_uncorrectable_ecc_error_loses_the_device_when_the_buffer_is_read(ctx: wia.Context) -> None:
    a, b = _ones(ctx), _ones(ctx)
    wia.inject_fault(wia.Fault(kind=K.ECC_ERROR, buffer=a, uncorrectable=True))
    np.testing.assert_array_equal(wia.add(b, b).numpy(), 2.0)  # the error struck a; b is read fine
    error = _expect(E.DEVICE_LOST, wia.add(a, a).numpy)
    assert "uncorrectable ECC" in str(error)
    _expect(E.DEVICE_LOST, b.numpy)  # sticky, as CUDA's cudaErrorECCUncorrectable
    assert wia.get_fault_stats(0).ecc_uncorrectable == 1
    wia.reset_device(ctx)
    np.testing.assert_array_equal(wia.add(_ones(ctx), _ones(ctx)).numpy(), 2.0)


def test_an_uncorrectable_ecc_error_in_unnamed_memory_loses_the_device(ctx: wia.Context) -> None:
    a = _ones(ctx)
    wia.inject_fault(wia.Fault(kind=K.ECC_ERROR, uncorrectable=True))
    _expect(E.DEVICE_LOST, wia.add(a, a).numpy)


def test_a_link_failure_is_recorded_for_the_pair_until_reset(sim: SimBackend) -> None:
    wia.set_backend("sim", hardware="wia-tiny", devices=2)
    backend = wia.get_backend()
    assert isinstance(backend, SimBackend)
    ctx = wia.create_context()
    a = _ones(ctx)
    wia.inject_fault(wia.Fault(kind=K.LINK_FAILURE, peer=1))
    injector = backend.machine.injector
    assert isinstance(injector, FaultInjector)
    assert not injector.link_failed(0, 1)
    wia.add(a, a).numpy()  # the trigger: the next op on device 0
    assert injector.link_failed(1, 0)
    assert wia.get_fault_stats(0).failed_links == [1] and wia.get_fault_stats(1).failed_links == [0]
    np.testing.assert_array_equal(wia.add(a, a).numpy(), 2.0)  # the device itself is fine
    with pytest.raises(DeviceLost, match="failed link"):  # what a peer copy over the link meets
        injector.check_link(0, 1)
    _expect(E.DEVICE_LOST, a.numpy)
    wia.reset_device(ctx)
    assert not injector.link_failed(0, 1)
    wia.destroy_context(ctx)


def test_peer_copies_and_collectives_over_a_failed_link_lose_the_sending_device() -> None:
    """Through the public API on a system with a fabric: the copy's source device is lost (and marked lost by the
    front end though the call's first argument is a device, and a collective's a list), the others keep working."""
    wia.set_backend("sim", hardware="wia-tiny-4x")
    contexts = [wia.create_context(wia.ContextConfig(device_id=i)) for i in range(4)]
    ts = [wia.tensor(np.full(8, i, np.float32), ctx=c) for i, c in enumerate(contexts)]
    wia.inject_fault(wia.Fault(kind=K.LINK_FAILURE, device=1, peer=2))
    wia.add(ts[1], ts[1]).numpy()  # the trigger: the next op on device 1
    np.testing.assert_array_equal(wia.copy_peer_to_peer(wia.get_device(1), wia.get_device(0), ts[1]).numpy(), 1.0)
    _expect(E.DEVICE_LOST, wia.copy_peer_to_peer, wia.get_device(2), wia.get_device(1), ts[2])
    _expect(E.DEVICE_LOST, wia.add, ts[2], ts[2])  # sticky on device 2
    wia.reset_device(contexts[2])
    ts[2] = wia.tensor(np.full(8, 2, np.float32), ctx=contexts[2])
    wia.inject_fault(wia.Fault(kind=K.LINK_FAILURE, device=0, peer=3))
    wia.add(ts[0], ts[0]).numpy()
    _expect(E.DEVICE_LOST, wia.all_reduce, ts, algorithm="ring")  # the ring 0 -> 1 -> 2 -> 3 -> 0 crosses it
    lost = [i for i, t in enumerate(ts) if i != 0 and i != 3]  # 1 and 2 keep working
    for i in lost:
        np.testing.assert_array_equal(wia.add(ts[i], ts[i]).numpy(), 2.0 * i)
    assert sum(wia.get_fault_stats(i).lost for i in (0, 3)) == 1  # the sender of the failed hop
    for c in contexts:
        wia.destroy_context(c)


def test_a_multi_hop_copy_through_a_failed_link_loses_its_sender() -> None:
    """On the 4-device ring, 0 -> 2 goes through device 1: a failed 1-2 link loses device 0 (the sender)."""
    wia.set_backend("sim", hardware="wia-tiny-4x")
    contexts = [wia.create_context(wia.ContextConfig(device_id=i)) for i in range(4)]
    t = wia.tensor(np.ones(8, np.float32), ctx=contexts[0])
    route = wia.get_peer_info(wia.get_device(0), wia.get_device(2))
    assert route.path == "multi-hop" and route.hops == 2
    wia.inject_fault(wia.Fault(kind=K.LINK_FAILURE, device=1, peer=2))
    x = wia.tensor(np.ones(8, np.float32), ctx=contexts[1])
    wia.add(x, x).numpy()  # the trigger: the next op on device 1
    error = _expect(E.DEVICE_LOST, wia.copy_peer_to_peer, wia.get_device(0), wia.get_device(2), t)
    assert "failed link between devices 1 and 2" in str(error)
    assert wia.get_fault_stats(0).lost and not wia.get_fault_stats(1).lost
    for c in contexts:
        wia.destroy_context(c)


def test_clear_faults_disarms_what_has_not_fired(ctx: wia.Context) -> None:
    a = _ones(ctx)
    wia.inject_fault(wia.Fault(kind=K.DEVICE_LOST, after_ops=3))
    wia.inject_fault(wia.Fault(kind=K.OUT_OF_MEMORY))
    assert wia.get_fault_stats(0).faults_pending == 2
    wia.clear_faults()
    assert wia.get_fault_stats(0).faults_pending == 0
    for _ in range(5):
        np.testing.assert_array_equal(wia.add(a, a).numpy(), 2.0)
    _expect(E.INVALID_DEVICE, wia.clear_faults, 5)


# -- WIA_FAULTS --------------------------------------------------------------------------------------------------------


def test_wia_faults_arms_faults_when_the_runtime_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_FAULTS", "device_lost:after_ops=5; oom:next_alloc")
    wia.set_backend("sim", hardware="wia-tiny")
    assert wia.get_fault_stats(0).faults_pending == 2
    ctx = wia.create_context(wia.ContextConfig(default_pool=False))
    _expect(E.OUT_OF_MEMORY, wia.alloc, ctx, 64)
    wia.destroy_context(ctx)
    done, message, _ = _run_until_lost(wia.Fault(kind=K.DEVICE_LOST, after_ops=1000))
    assert (done, "after_ops=5" in message) == (2, True)


def test_wia_faults_seed_sets_the_seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_FAULTS_SEED", "41")
    faults = wia.faults.parse_faults("device_lost:probability=0.1;hang:probability=0.1,seed=3", seed=41)
    assert [f.seed for f in faults] == [41, 3]
    monkeypatch.setenv("WIA_FAULTS", "device_lost:probability=0.1")
    wia.set_backend("sim", hardware="wia-tiny")
    monkeypatch.setenv("WIA_FAULTS_SEED", "x")
    error = _expect(E.INVALID_VALUE, wia.set_backend, "sim", hardware="wia-tiny")
    assert "WIA_FAULTS_SEED" in str(error)


def test_wia_faults_grammar() -> None:
    (lost, oom, ecc, hang, link) = wia.faults.parse_faults(
        "device_lost:at_ms=2.5,device=0;out_of_memory:count=3;ecc:uncorrectable;hang:duration_ms=4;link_failure:peer=1"
    )
    assert (lost.kind, lost.at_ms, lost.device) == (K.DEVICE_LOST, 2.5, 0)
    assert (oom.kind, oom.count) == (K.OUT_OF_MEMORY, 3)
    assert (ecc.kind, ecc.uncorrectable) == (K.ECC_ERROR, True)
    assert (hang.kind, hang.duration_ms) == (K.HANG, 4.0)
    assert (link.kind, link.peer) == (K.LINK_FAILURE, 1)
    assert wia.faults.parse_faults(" ; ") == []


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("device_los", "unknown fault kind 'device_los' (did you mean 'device_lost'?)"),
        ("hang:afterops=3", "unknown option 'afterops=3'"),
        ("oom:count=two", "count: 'two' is not an integer"),
        ("device_lost:after_ops=1,at_ms=3", "one trigger"),
        ("link_failure", "needs a peer"),
    ],
)
def test_wia_faults_errors_name_the_variable(monkeypatch: pytest.MonkeyPatch, text: str, words: str) -> None:
    monkeypatch.setenv("WIA_FAULTS", text)
    error = _expect(E.INVALID_VALUE, wia.set_backend, "sim", hardware="wia-tiny")
    assert "WIA_FAULTS" in str(error) and words in str(error)


def test_wia_faults_on_a_backend_without_the_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_FAULTS", "hang")
    error = _expect(E.NOT_SUPPORTED, wia.set_backend, "reference")
    assert "WIA_FAULTS='hang'" in str(error) and "not HANG" in str(error)
    monkeypatch.setenv("WIA_FAULTS", "device_lost:device=4")
    _expect(E.INVALID_DEVICE, wia.set_backend, "sim", hardware="wia-tiny")


# -- the example -------------------------------------------------------------------------------------------------------


def test_the_safe_compute_example_recovers_from_each_fault() -> None:
    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIA_")}
    done = subprocess.run(
        [sys.executable, str(root / "examples" / "safe_compute.py")],
        capture_output=True, text=True, timeout=120, cwd=root, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    for code in ("OUT_OF_MEMORY (8)", "TIMEOUT (11)", "DEVICE_LOST (9)"):
        assert f"code:     {code}" in out
    assert out.count("result: (1024, 1024) correct") == 3
    assert "result: DEVICE_LOST" in out and "faults fired: 3" in out
    assert "safe_compute.py:" in out and "function: compute" in out  # the user's call site, not the library's


def test_an_unmodified_program_runs_under_wia_faults() -> None:
    root = Path(__file__).resolve().parents[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("WIA_")}
    env["WIA_FAULTS"] = "device_lost:after_ops=2"
    done = subprocess.run(
        [sys.executable, str(root / "examples" / "quickstart.py")],
        capture_output=True, text=True, timeout=120, cwd=root, env=env, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert "DeviceLostError" in done.stderr and "injected device_lost (after_ops=2) at op 3 (add" in done.stderr
