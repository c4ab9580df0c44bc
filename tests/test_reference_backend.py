"""The ``reference`` backend (NumPy on the host, no simulator) through the public API.

The conformance suite is its real test (``wia-conformance --backend reference``); these are quick checks of what
is particular to it: its options, its honest device description, its import isolation and a few numeric rules.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import wia_hal as wia
from wia_hal.backend import TensorRef
from wia_hal.backends import reference as reference_module
from wia_hal.backends.reference import ReferenceBackend
from wia_hal.opset import NO_ATTRS, BinaryAttrs, OpName
from wia_hal.runtime import runtime

M = wia.MemoryType


def _destroy_contexts() -> None:
    for ctx in list(runtime().contexts):
        ctx.destroy()


@pytest.fixture
def reference() -> Iterator[ReferenceBackend]:
    backend = ReferenceBackend()
    wia.set_backend(backend)
    yield backend
    _destroy_contexts()
    wia.set_backend("sim")


def test_importing_it_does_not_import_the_simulator() -> None:
    code = "import wia_hal.backends.reference, sys; assert not any(m.startswith('wia_sim') for m in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_it_is_selectable_by_name_with_options_from_strings() -> None:
    wia.register_backend("reference", ReferenceBackend)
    try:
        wia.set_backend("reference", devices="2", memory="1MiB")
        assert wia.get_device_count() == 2
        info = wia.get_device_info(wia.get_device(1))
        assert info.memory_size == 1 << 20
        assert info.backend == "reference"
    finally:
        _destroy_contexts()
        wia.set_backend("sim")


@pytest.mark.parametrize("options", [{"devices": "0"}, {"devices": "two"}, {"memory": "-5"}, {"memory": True}])
def test_bad_options_are_invalid_value(options: dict[str, object]) -> None:
    with pytest.raises(wia.InvalidValueError, match="reference backend option"):
        ReferenceBackend(**options)  # type: ignore[arg-type]


def test_device_info_and_capabilities_are_honest(reference: ReferenceBackend) -> None:
    device = wia.get_device(0)
    info = wia.get_device_info(device)
    caps = wia.get_device_capabilities(device)
    assert info.type is wia.DeviceType.CPU
    assert info.vendor == "wia reference (NumPy)"
    assert "measured" in info.architecture
    assert info.memory_bandwidth > 0 and info.peak_flops == info.peak_flops_by_precision["float32"] > 0
    assert set(info.peak_flops_by_precision) == {"float32", "tf32", "float16", "bfloat16", "float8", "float64", "int8"}
    assert not (caps.supports_custom_kernels or caps.supports_peer_to_peer)
    assert caps.supports_profiling  # activities timed on the queues' workers (test_profiling_activities)
    assert caps.supports_unified_memory and caps.supports_managed_memory
    assert not caps.supports_pinned_memory  # no faster, asynchronous transfer path than pageable memory
    with pytest.raises(wia.NotSupportedError, match="supports_pinned_memory"):
        wia.alloc(wia.create_context(), 64, M.PINNED)


def test_what_it_does_not_offer_is_not_supported(reference: ReferenceBackend) -> None:
    ctx = wia.create_context()
    with pytest.raises(wia.NotSupportedError):
        wia.compile_kernel(ctx, "__kernel void k(__global float* x) { x[0] = 1.0f; }", "k")


def test_explain_is_not_supported(reference: ReferenceBackend) -> None:
    with pytest.raises(wia.NotSupportedError):
        wia.explain(wia.relu(wia.tensor(np.ones(3, np.float32))))


def test_device_memory_is_a_budget(reference: ReferenceBackend) -> None:
    wia.set_backend(ReferenceBackend(memory="64KiB"))
    ctx = wia.create_context()
    kept = wia.alloc(ctx, 40 << 10)
    with pytest.raises(wia.OutOfMemoryError, match=r"32768 bytes requested, 40960 of 65536 bytes in use"):
        wia.alloc(ctx, 32 << 10, M.UNIFIED)
    host = wia.alloc(ctx, 1 << 20, M.HOST)  # host memory is not the device's
    wia.free(kept)
    wia.free(wia.alloc(ctx, 64 << 10))
    wia.free(host)


def test_unified_memory_is_shared_with_the_host(reference: ReferenceBackend) -> None:
    t = wia.tensor(np.zeros(4, np.float32), memory=M.UNIFIED)
    wia.memory_ptr(t.memory)[:] = np.arange(4, dtype=np.float32).view(np.uint8)
    y = wia.add(t, t)
    np.testing.assert_array_equal(y.numpy(), [0, 2, 4, 6])


MiB = 1 << 20
BIG = 64 * MiB
"""Work that takes tens of milliseconds on any host: far more than enqueuing it."""


@pytest.fixture
def gate(reference: ReferenceBackend, monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Make ``relu`` wait, in its queue's worker, until the test sets the event: work whose end the test decides
    (opened at teardown, before the reference fixture destroys the contexts, should the test fail first)."""
    opened = threading.Event()
    compute = reference_module.OPS["relu"]

    def gated(*args: object) -> np.ndarray:
        assert opened.wait(60), "the test never opened the gate"
        return compute(*args)

    monkeypatch.setitem(reference_module.OPS, "relu", gated)
    yield opened
    opened.set()


def _fail_with(monkeypatch: pytest.MonkeyPatch, error: BaseException, op: OpName = "relu") -> None:
    def failing(*args: object) -> np.ndarray:
        raise error

    monkeypatch.setitem(reference_module.OPS, op, failing)


def _queue_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("wia-reference-queue")]


def test_ops_on_a_stream_return_before_their_work_is_done(reference: ReferenceBackend) -> None:
    ctx = wia.create_context()
    s = wia.create_stream(ctx)
    x = wia.tensor(np.full(BIG // 4, 0.5, np.float32), ctx=ctx)
    start, end = wia.create_event(), wia.create_event()
    wia.event_record(start, s)
    t0 = time.perf_counter()
    y = x
    for _ in range(4):
        y = wia.add(y, x, stream=s)
    wia.event_record(end, s)
    enqueued_ms = (time.perf_counter() - t0) * 1e3
    assert not wia.event_query(end)  # the adds of 64 MiB are still running
    wia.stream_synchronize(s)
    assert wia.event_query(end) and wia.event_query(start)
    device_ms = wia.event_elapsed_time(start, end)
    assert device_ms > enqueued_ms  # the host went on while the queue worked
    np.testing.assert_array_equal(y.numpy(), np.full(BIG // 4, 2.5, np.float32))


def test_a_gated_op_keeps_its_queue_busy_and_no_other(reference: ReferenceBackend, gate: threading.Event) -> None:
    ctx = wia.create_context()
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    x = wia.tensor(np.arange(-2, 2, dtype=np.float32), ctx=ctx)
    y = wia.relu(x, stream=s1)  # returns although its work cannot run yet
    e1, e2 = wia.create_event(), wia.create_event()
    wia.event_record(e1, s1)
    z = wia.add(x, x, stream=s2)
    wia.event_record(e2, s2)
    wia.event_synchronize(e2)  # s2 does not wait for s1
    assert not wia.event_query(e1)
    wia.context_set_timeout(ctx, 50.0)
    with pytest.raises(wia.TimedOutError):
        wia.stream_synchronize(s1)
    gate.set()
    wia.stream_synchronize(s1)
    assert wia.event_query(e1)
    np.testing.assert_array_equal(y.numpy(), [0, 0, 0, 1])
    np.testing.assert_array_equal(z.numpy(), [-4, -2, 0, 2])


def test_a_tiny_timeout_times_out_on_big_work(reference: ReferenceBackend) -> None:
    ctx = wia.create_context()
    wia.context_set_timeout(ctx, 1e-6)
    s = wia.create_stream(ctx)
    a, b = wia.alloc(ctx, BIG), wia.alloc(ctx, BIG)
    wia.copy_async(a, b, BIG, s)  # DEVICE to DEVICE: returns at once
    wia.copy_async(b, a, BIG, s)
    done = wia.create_event()
    wia.event_record(done, s)
    with pytest.raises(wia.TimedOutError, match="stream_synchronize"):
        wia.stream_synchronize(s)
    with pytest.raises(wia.TimedOutError, match="event_synchronize"):
        wia.event_synchronize(done)
    wia.context_set_timeout(ctx, wia.TIMEOUT_INFINITE)
    wia.stream_synchronize(s)
    assert wia.event_query(done)


def test_a_worker_exception_surfaces_at_synchronize_and_the_queue_goes_on(
    reference: ReferenceBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fail_with(monkeypatch, ZeroDivisionError("boom"))
    # no default pool: a pool asks whether the markers fencing its free blocks are done, and that query reports a
    # failed command, as cudaEventQuery does in a caching allocator: the failure would surface at the allocation of
    # add's output, whenever the worker happens to have failed by then, instead of at the synchronize tested here
    ctx = wia.create_context(wia.ContextConfig(default_pool=False))
    s = wia.create_stream(ctx)
    x = wia.tensor(np.ones(8, np.float32), ctx=ctx)
    wia.relu(x, stream=s)  # fails in the worker, not here
    wia.relu(x, stream=s)
    y = wia.add(x, x, stream=s)
    with pytest.raises(wia.InternalError) as raised:
        wia.stream_synchronize(s)
    cause = raised.value.__cause__
    assert isinstance(cause, ZeroDivisionError)
    assert any("raised by relu" in note for note in cause.__notes__)
    assert any("later, relu" in note for note in cause.__notes__)  # the second failure is reported with the first
    wia.stream_synchronize(s)  # reported once
    np.testing.assert_array_equal(y.numpy(), np.full(8, 2, np.float32))  # the work after the failures ran


def test_a_worker_wia_error_keeps_its_code_at_the_next_wait(
    reference: ReferenceBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fail_with(monkeypatch, wia.OutOfMemoryError("scratch space"))
    ctx = wia.create_context()
    s = wia.create_stream(ctx)
    x = wia.tensor(np.ones(8, np.float32), ctx=ctx)
    before = wia.create_event()
    wia.event_record(before, s)
    wia.relu(x, stream=s)
    after = wia.create_event()
    wia.event_record(after, s)
    wia.event_synchronize(before)  # the failure is after this point: not reported here
    with pytest.raises(wia.OutOfMemoryError, match="scratch space"):
        wia.event_synchronize(after)
    assert wia.event_query(after)


def test_a_download_reports_the_failures_before_it(
    reference: ReferenceBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fail_with(monkeypatch, ValueError("bad"))
    x = wia.tensor(np.ones(8, np.float32))
    y = wia.relu(x)
    with pytest.raises(wia.InternalError):
        y.numpy()
    np.testing.assert_array_equal(x.numpy(), np.ones(8, np.float32))


def test_events_order_two_streams(reference: ReferenceBackend) -> None:
    ctx = wia.create_context()
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    a, b = wia.alloc(ctx, BIG), wia.alloc(ctx, BIG)
    x = wia.tensor(np.full(1024, 3.0, np.float32), ctx=ctx)
    wia.copy_async(a, b, BIG, s1)  # keeps s1 busy for a while
    wia.copy_async(b, a, BIG, s1)
    y = wia.add(x, x, stream=s1)  # 6
    ready = wia.create_event()
    wia.event_record(ready, s1)
    wia.stream_wait_event(s2, ready)
    z = wia.mul(y, x, stream=s2)  # 18, only once y is written
    done = wia.create_event()
    wia.event_record(done, s2)
    assert not wia.event_query(done)
    wia.stream_synchronize(s2)
    assert wia.event_query(ready)  # s2's point is after s1's
    np.testing.assert_array_equal(z.numpy(), np.full(1024, 18.0, np.float32))


def test_stream_wait_stream_orders_after_the_work_so_far(reference: ReferenceBackend, gate: threading.Event) -> None:
    ctx = wia.create_context()
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    x = wia.tensor(np.arange(-2, 2, dtype=np.float32), ctx=ctx)
    y = wia.relu(x, stream=s1)
    wia.stream_wait_stream(s2, s1)
    z = wia.add(y, y, stream=s2)
    done = wia.create_event()
    wia.event_record(done, s2)
    assert not wia.event_query(done)  # held behind s1's gated relu
    gate.set()
    wia.stream_synchronize(s2)
    np.testing.assert_array_equal(z.numpy(), [0, 0, 0, 2])


def test_pageable_copies_and_transfers_block_the_host(reference: ReferenceBackend) -> None:
    ctx = wia.create_context()
    s = wia.create_stream(ctx)
    data = (np.arange(BIG) % 251).astype(np.uint8)
    host, device, back = wia.alloc(ctx, BIG, M.HOST), wia.alloc(ctx, BIG), wia.alloc(ctx, BIG, M.HOST)
    wia.memory_ptr(host)[:] = data
    wia.copy_async(host, device, BIG, s)
    wia.memory_ptr(host)[:] = 0  # the copy has read it already
    wia.copy_async(device, back, BIG, s)
    np.testing.assert_array_equal(wia.memory_ptr(back), data)  # and written this, without a synchronize


def test_freeing_memory_with_work_queued(reference: ReferenceBackend, gate: threading.Event) -> None:
    ctx = wia.create_context(wia.ContextConfig(default_pool=False))  # each tensor its own allocation
    s = wia.create_stream(ctx)
    data = np.arange(-2, 2, dtype=np.float32)
    x = wia.tensor(data, ctx=ctx)
    wia.relu(x, stream=s)  # held at the gate
    middle, out = wia.alloc(ctx, 16), wia.alloc(ctx, 16, M.UNIFIED)
    wia.copy_async(x.memory, middle, 16, s)  # both queued behind the gate
    wia.copy_async(middle, out, 16, s)
    wia.release_tensor(x)
    wia.free(middle)
    assert reference.in_use[0] == 16  # the budget has the freed bytes back at once
    gate.set()
    wia.stream_synchronize(s)
    np.testing.assert_array_equal(wia.memory_ptr(out).view(np.float32), data)  # the work ran on live memory
    wia.free(out)
    assert reference.in_use[0] == 0


def test_destroying_streams_and_the_backend_ends_the_workers(reference: ReferenceBackend) -> None:
    before = len(_queue_threads())
    ctx = wia.create_context()
    streams = [wia.create_stream(ctx) for _ in range(3)]
    x = wia.tensor(np.ones(4, np.float32), ctx=ctx)
    for s in streams:
        wia.add(x, x, stream=s)
    assert len(_queue_threads()) >= before + 3
    wia.destroy_stream(streams[0])
    assert streams[0].queue._worker is None
    ctx.destroy()
    reference.close()
    assert len(_queue_threads()) == 0


def test_time_is_host_time(reference: ReferenceBackend) -> None:
    ctx = wia.create_context()
    s = wia.create_stream(ctx)
    start, end = wia.create_event(), wia.create_event()
    wia.event_record(start, s)
    x = wia.tensor(np.ones((64, 64), np.float32), ctx=ctx)
    y = wia.matmul(x, x, stream=s)
    wia.event_record(end, s)
    t0 = time.perf_counter()
    wia.event_synchronize(end)
    assert 0.0 <= wia.event_elapsed_time(start, end) <= (time.perf_counter() - t0) * 1e3 + 1e3
    np.testing.assert_array_equal(y.numpy(), np.full((64, 64), 64, np.float32))


def test_integer_and_bool_rules(reference: ReferenceBackend) -> None:
    a = wia.tensor(np.array([100, -100, 7], np.int8))
    np.testing.assert_array_equal(wia.add(a, a).numpy(), np.array([-56, 56, 14], np.int8))
    total = wia.sum(wia.tensor(np.full(300, 100, np.int8)))
    assert total.dtype == wia.int32 and int(total.numpy()) == 30000
    big = wia.tensor(np.array([2**31 - 1, 1], np.int32))
    assert int(wia.sum(big).numpy()) == -(2**31)
    p, q = wia.tensor(np.array([True, False, False])), wia.tensor(np.array([True, True, False]))
    np.testing.assert_array_equal(wia.add(p, q).numpy(), [True, True, False])
    np.testing.assert_array_equal(wia.mul(p, q).numpy(), [True, False, False])


def test_low_precision_computes_in_float32_and_rounds_once(reference: ReferenceBackend) -> None:
    bf16 = np.dtype(ml_dtypes.bfloat16)
    x = np.array([1.0, 2.0**-8, 3.0], bf16)
    got = wia.add(wia.tensor(x), wia.tensor(np.array([2.0**-8] * 3, bf16))).numpy()
    np.testing.assert_array_equal(got, (x.astype(np.float32) + np.float32(2.0**-8)).astype(bf16))


def test_matmul_precisions_round_the_operands(reference: ReferenceBackend) -> None:
    a = np.array([[1 + 2.0**-12, 1 + 2.0**-20]], np.float32)  # TF32 rounds 1 + 2^-12 to 1, keeps 1 + 2^-10
    b = np.ones((2, 1), np.float32)
    ta, tb = wia.tensor(a), wia.tensor(b)
    assert float(wia.matmul(ta, tb).numpy()[0, 0]) == np.float32(a.sum())
    tf32 = wia.matmul_optimized(ta, tb, wia.MatmulConfig(precision=wia.Precision.TF32))
    assert float(tf32.numpy()[0, 0]) == 2.0
    i8 = wia.tensor(np.full((1, 3), 127, np.int8))
    product = wia.matmul(i8, wia.tensor(np.full((3, 1), -128, np.int8)))
    assert product.dtype == wia.int32 and int(product.numpy()[0, 0]) == 3 * 127 * -128
    fp8 = wia.matmul_optimized(ta, tb, wia.MatmulConfig(precision=wia.Precision.FP8))
    assert float(fp8.numpy()[0, 0]) == 2.0


def _conv_loops(x: np.ndarray, w: np.ndarray, bias: np.ndarray, pad: int, stride: int, groups: int) -> np.ndarray:
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for b in range(n):
        for k in range(o):
            g = k // (o // groups)
            for i in range(oh):
                for j in range(ow):
                    window = xp[b, g * cg : (g + 1) * cg, i * stride : i * stride + kh, j * stride : j * stride + kw]
                    out[b, k, i, j] = np.sum(window * w[k]) + bias[k]
    return out


def test_conv2d_with_groups_stride_padding_and_bias(reference: ReferenceBackend) -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(-4, 5, (2, 4, 6, 5)).astype(np.float32)
    w = rng.integers(-4, 5, (6, 2, 3, 2)).astype(np.float32)
    bias = np.arange(6, dtype=np.float32)
    config = wia.ConvConfig(padding=1, stride=2, groups=2)
    got = wia.conv2d(wia.tensor(x), wia.tensor(w), config, bias=wia.tensor(bias)).numpy()
    np.testing.assert_array_equal(got, _conv_loops(x, w, bias, 1, 2, 2))


def test_pooling_padding_rules(reference: ReferenceBackend) -> None:
    x = wia.tensor(-np.ones((1, 1, 2, 2), np.float32))
    avg = wia.pool2d(x, wia.PoolConfig(type=wia.PoolType.AVG, kernel_size=2, stride=1, padding=1)).numpy()
    assert avg[0, 0, 0, 0] == -0.25  # one real element over the whole 2x2 window
    top = wia.pool2d(x, wia.PoolConfig(type=wia.PoolType.MAX, kernel_size=2, stride=1, padding=1)).numpy()
    np.testing.assert_array_equal(top, -np.ones((1, 1, 3, 3), np.float32))  # padding never wins


def test_ops_read_and_write_strided_views(reference: ReferenceBackend) -> None:
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    t = wia.transpose(wia.slice(wia.tensor(data), [1, 0], [4, 6]))  # (6, 3), neither contiguous nor at offset 0
    np.testing.assert_array_equal(t.numpy(), data[1:].T)
    np.testing.assert_allclose(wia.softmax(t, axis=0).numpy(), _softmax(data[1:].T, 0), rtol=1e-6)
    np.testing.assert_array_equal(wia.max(t, axis=(0,), keepdims=True).numpy(), data[1:].T.max(0, keepdims=True))


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis, keepdims=True))
    return np.asarray(e / e.sum(axis, keepdims=True))


# -- profiling: the hooks, and the front end's report and trace on them ---------------------------------------------


def _ref(buffer: reference_module.Buffer, n: int) -> TensorRef[reference_module.Buffer]:
    return TensorRef(buffer, 0, (n,), (4,), np.dtype(np.float32))


def test_profiling_activities_are_timed_on_the_workers() -> None:
    backend = ReferenceBackend()
    try:
        q1, q2 = backend.create_queue(0), backend.create_queue(0)
        device, host = backend.allocate(0, 64, M.DEVICE), backend.allocate(0, 64, M.HOST)
        backend.launch_op(q1, "relu", [_ref(device, 16)], _ref(device, 16), NO_ATTRS)  # before: not kept
        backend.synchronize(q1, None)
        backend.set_profiling(0, True)
        assert backend.activities(0) == []
        t0 = time.perf_counter() * 1e3
        x, y = backend.allocate(0, 64, M.DEVICE), backend.allocate(0, 64, M.DEVICE)
        backend.upload(q1, x, 0, np.ones(64, np.uint8))
        record = backend.launch_op(q1, "add", [_ref(x, 16), _ref(x, 16)], _ref(y, 16), BinaryAttrs())
        marker = backend.record(q1)
        backend.wait_marker(q2, marker)
        backend.copy(q2, y, 0, device, 0, 64)
        backend.copy(q2, device, 0, host, 0, 32)
        empty = backend.launch_op(q2, "relu", [_ref(x, 0)], _ref(y, 0), NO_ATTRS)  # nothing to compute, still a launch
        backend.synchronize(q2, None)
        backend.synchronize(q1, None)
        t1 = time.perf_counter() * 1e3
        got = {(a.queue is q2, a.kind, a.name, a.engine): a for a in backend.activities(0)}
        assert list(got) == [  # q1's work first: q2 waited for its marker
            (False, "copy", "copy h2d", "h2d"),
            (False, "kernel", "add", "compute"),
            (False, "marker", "event", ""),
            (True, "wait", "wait for event", ""),
            (True, "copy", "copy d2d", "d2d"),
            (True, "copy", "copy d2h", "d2h"),
            (True, "kernel", "relu", "compute"),
        ]
        kernel, event, wait = (
            got[False, "kernel", "add", "compute"],
            got[False, "marker", "event", ""],
            got[True, "wait", "wait for event", ""],
        )
        assert kernel.handle is record and got[True, "kernel", "relu", "compute"].handle is empty
        assert event.handle is marker and wait.handle is marker
        assert kernel.nbytes == 3 * 64 and got[True, "copy", "copy d2h", "d2h"].nbytes == 32
        assert event.started_ms == event.ended_ms == marker.time_s * 1e3  # an instant: when the queue reached it
        assert wait.ended_ms >= event.ended_ms  # the wait lasted until the marker completed
        for a in got.values():
            assert t0 <= a.submitted_ms <= a.started_ms <= a.ended_ms <= t1, a
        assert backend.activities(0) == []  # handed over once
        backend.set_profiling(0, False)
        backend.launch_op(q1, "add", [_ref(x, 16), _ref(x, 16)], _ref(y, 16), BinaryAttrs())
        backend.synchronize(q1, None)
        assert backend.activities(0) == []
    finally:
        backend.close()


def test_profiling_through_the_front_end(reference: ReferenceBackend, tmp_path: Path) -> None:
    ctx = wia.create_context(wia.ContextConfig(enable_profiling=True))
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    x = wia.tensor(np.ones((64, 64), np.float32), ctx=ctx)
    wia.context_synchronize(ctx)
    profiler = wia.begin_profiling(ctx)
    y = wia.matmul(x, x, ctx=ctx, stream=s1)
    done = wia.create_event()
    wia.event_record(done, s1)
    wia.stream_wait_event(s2, done)
    z = wia.add(y, x, ctx=ctx, stream=s2)
    np.testing.assert_array_equal(z.numpy(), np.full((64, 64), 65, np.float32))
    wia.end_profiling(profiler)
    report = wia.get_profile_report(profiler)
    assert report.backend == "reference" and report.num_kernels == 2 and report.num_transfers == 1
    assert {s.name: s.call_count for s in report.kernel_stats} == {"matmul": 1, "add": 1}
    assert {e.name for e in report.engines} == {"compute", "d2h"}
    assert report.bytes_transferred == 64 * 64 * 4
    path = tmp_path / "trace.json"
    wia.save_profile(profiler, path, wia.ProfileFormat.CHROME_TRACE)
    events = json.loads(path.read_text())["traceEvents"]
    flows = {e["ph"]: e for e in events if e["ph"] in "sf"}
    slices = {(e["tid"], e["name"]): e for e in events if e["ph"] == "X" and e.get("cat") == "device"}
    tid1 = next(tid for tid, name in slices if name == "matmul")
    tid2 = next(tid for tid, name in slices if name == "add")
    assert tid1 != tid2
    assert flows["s"]["tid"] == tid1 and flows["s"]["ts"] == slices[tid1, "matmul"]["ts"]  # from the producer...
    assert flows["f"]["tid"] == tid2 and flows["f"]["ts"] == slices[tid2, "add"]["ts"]  # ...to the consumer
    assert slices[tid2, "add"]["args"]["inputs"] == ["float32[64, 64]", "float32[64, 64]"]
