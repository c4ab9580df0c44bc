"""SPEC 3.4.1: events, dependencies between streams, stream synchronization."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import wia_hal as wia
from conformance import assertions as ph
from conformance import strategies as hh
from conformance.conftest import ContextFactory

E = wia.ErrorCode
M = wia.MemoryType


def _d2d_work(ctx: wia.Context, s: wia.Stream, n: int) -> None:
    a, b = wia.alloc(ctx, n), wia.alloc(ctx, n)
    wia.copy_async(a, b, n, s)


@pytest.mark.req("R-3.4.1-01", "R-3.4.1-04")
def test_record_query_destroy(ctx: wia.Context) -> None:
    s = wia.create_stream(ctx)
    e = wia.create_event()
    ph.assert_isinstance(e, wia.Event, "create_event()")
    wia.event_record(e, s)
    wia.stream_synchronize(s)
    ph.assert_equal(wia.event_query(e), True, "event_query(e) after stream_synchronize")
    wia.destroy_event(e)


@pytest.mark.req("R-3.4.1-04")
def test_query_is_false_while_work_is_pending(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    s = wia.create_stream(ctx)
    _d2d_work(ctx, s, hh.work_bytes(info))
    e = wia.create_event()
    wia.event_record(e, s)
    ph.assert_equal(wia.event_query(e), False, "event_query(e) right after a long copy_async")
    wia.event_synchronize(e)
    ph.assert_equal(wia.event_query(e), True, "event_query(e) after event_synchronize")


@pytest.mark.req("R-3.4.1-04")
def test_elapsed_time_is_in_milliseconds(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    n = hh.work_bytes(info, cap=64 * hh.MiB)
    s = wia.create_stream(ctx)
    start, end = wia.create_event(), wia.create_event()
    wia.event_record(start, s)
    _d2d_work(ctx, s, n)
    wia.event_record(end, s)
    wia.stream_synchronize(s)
    ms = wia.event_elapsed_time(start, end)
    ph.assert_isinstance(ms, float, "event_elapsed_time(start, end)")
    # A device-to-device copy moves at least n bytes at no more than the memory bandwidth.
    floor_ms = n / info.memory_bandwidth * 1e3
    ph.assert_true(
        0.5 * floor_ms <= ms <= 100 * 2 * floor_ms + 10.0,
        f"{ms} ms",
        f"between {0.5 * floor_ms:.4g} and {200 * floor_ms + 10:.4g} ms for {n} bytes at "
        f"{info.memory_bandwidth:.3g} B/s (seconds or microseconds would be 1000x off)",
        "event_elapsed_time around copy_async(DEVICE -> DEVICE)",
    )


@pytest.mark.req("R-3.4.1-04")
def test_elapsed_times_add_up(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    n = hh.work_bytes(info, cap=16 * hh.MiB)
    s = wia.create_stream(ctx)
    a, b, c = wia.create_event(), wia.create_event(), wia.create_event()
    wia.event_record(a, s)
    _d2d_work(ctx, s, n)
    wia.event_record(b, s)
    _d2d_work(ctx, s, n)
    wia.event_record(c, s)
    wia.stream_synchronize(s)
    ab, bc, ac = (wia.event_elapsed_time(x, y) for x, y in ((a, b), (b, c), (a, c)))
    for name, value in (("(a, b)", ab), ("(b, c)", bc), ("(a, c)", ac)):
        ph.assert_true(value >= 0, value, ">= 0", f"event_elapsed_time{name}")
    ph.assert_true(
        abs(ab + bc - ac) <= 1e-3 + 1e-6 * ac, f"{ab} + {bc} = {ab + bc}", f"{ac} (elapsed(a, c))", "event_elapsed_time"
    )
    ph.assert_true(
        abs(wia.event_elapsed_time(a, a)) <= 1e-3, wia.event_elapsed_time(a, a), "0", "event_elapsed_time(a, a)"
    )


@pytest.mark.req("R-3.4.1-01")
def test_recording_again_moves_the_point(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    s = wia.create_stream(ctx)
    e = wia.create_event()
    wia.event_record(e, s)
    wia.stream_synchronize(s)
    _d2d_work(ctx, s, hh.work_bytes(info))
    wia.event_record(e, s)
    ph.assert_equal(wia.event_query(e), False, "event_query(e) after recording it again behind a long copy")
    wia.stream_synchronize(s)
    ph.assert_equal(wia.event_query(e), True, "event_query(e) after stream_synchronize")


def _ordered_copy(
    ctx: wia.Context, info: wia.DeviceInfo, order: Callable[[wia.Stream, wia.Stream, wia.Event], None]
) -> None:
    """s1 fills B from pinned/host memory (slow, on the H2D path); s2, ordered after s1 by ``order``, copies B to C
    on the device; C must hold the data."""
    n = hh.work_bytes(info, cap=32 * hh.MiB, fraction=16)
    caps = wia.get_device_capabilities(wia.get_device(0))
    source_type = M.PINNED if caps.supports_pinned_memory else M.HOST
    data = (np.arange(n) * 13 % 253).astype(np.uint8)
    src = wia.alloc(ctx, n, source_type)
    wia.memory_ptr(src)[:] = data
    b, c = wia.alloc(ctx, n), wia.alloc(ctx, n)
    out = wia.alloc(ctx, n, M.HOST)
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    e = wia.create_event()
    wia.copy_async(src, b, n, s1)
    wia.event_record(e, s1)
    order(s1, s2, e)
    wia.copy_async(b, c, n, s2)
    wia.stream_synchronize(s2)
    wia.copy_async(c, out, n, s2)
    wia.stream_synchronize(s2)
    ph.assert_bytes_equal(wia.memory_ptr(out), data, f"copy_async(B -> C) on s2 ordered after s1 by {order.__name__}")


def stream_wait_event(s1: wia.Stream, s2: wia.Stream, e: wia.Event) -> None:
    wia.stream_wait_event(s2, e)


def stream_wait_stream(s1: wia.Stream, s2: wia.Stream, e: wia.Event) -> None:
    wia.stream_wait_stream(s2, s1)


@pytest.mark.req("R-3.4.1-01")
def test_stream_wait_event_orders_streams(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    ph.requires_streams(2)
    _ordered_copy(ctx, info, stream_wait_event)


@pytest.mark.req("R-3.4.1-02")
def test_stream_wait_stream_orders_streams(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    ph.requires_streams(2)
    _ordered_copy(ctx, info, stream_wait_stream)


@pytest.mark.req("R-3.4.1-01")
def test_stream_wait_event_orders_ops(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    ph.requires_streams(2)
    n = hh.op_elements(ctx, info, cap=16 * hh.MiB, fraction=32)
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    x = wia.tensor(np.full(n, 1.5, np.float32), ctx=ctx)
    y = x
    for _ in range(8):
        y = wia.add(y, x, stream=s1)  # 13.5 after 8 adds
    e = wia.create_event()
    wia.event_record(e, s1)
    wia.stream_wait_event(s2, e)
    z = wia.mul(y, x, stream=s2)
    wia.stream_synchronize(s2)
    ph.assert_array_close(
        z.numpy(), np.full(n, 13.5 * 1.5, np.float32), np.dtype(np.float32), "mul on s2 after event on s1"
    )


@pytest.mark.req("R-3.4.1-01")
def test_waiting_on_an_unrecorded_event(ctx: wia.Context) -> None:
    s = wia.create_stream(ctx)
    wia.stream_wait_event(s, wia.create_event())  # nothing to wait for: no error, no deadlock
    t = wia.zeros((3,), ctx=ctx, stream=s)
    wia.stream_synchronize(s)
    ph.assert_array_close(t.numpy(), np.zeros(3, np.float32), np.dtype(np.float32), "zeros after waiting on no event")


@pytest.mark.req("R-3.4.1-03")
def test_stream_synchronize_blocks_until_done(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    s = wia.create_stream(ctx)
    _d2d_work(ctx, s, hh.work_bytes(info))
    e = wia.create_event()
    wia.event_record(e, s)
    wia.stream_synchronize(s)
    ph.assert_equal(wia.event_query(e), True, "event_query after stream_synchronize")


_DESTROYED_EVENT_CALLS: list[tuple[str, Callable[[wia.Event, wia.Event, wia.Stream], Any]]] = [
    ("event_record", lambda d, ok, s: wia.event_record(d, s)),
    ("event_query", lambda d, ok, s: wia.event_query(d)),
    ("event_synchronize", lambda d, ok, s: wia.event_synchronize(d)),
    ("event_elapsed_time-start", lambda d, ok, s: wia.event_elapsed_time(d, ok)),
    ("event_elapsed_time-end", lambda d, ok, s: wia.event_elapsed_time(ok, d)),
    ("stream_wait_event", lambda d, ok, s: wia.stream_wait_event(s, d)),
    ("destroy_event", lambda d, ok, s: wia.destroy_event(d)),
]


@pytest.mark.req("R-3.4.1-04")
@pytest.mark.parametrize("use", [u for _, u in _DESTROYED_EVENT_CALLS], ids=[n for n, _ in _DESTROYED_EVENT_CALLS])
def test_destroyed_event_is_invalid_value(
    use: Callable[[wia.Event, wia.Event, wia.Stream], Any], ctx: wia.Context
) -> None:
    s = wia.create_stream(ctx)
    dead, ok = wia.create_event(), wia.create_event()
    wia.event_record(dead, s)
    wia.event_record(ok, s)
    wia.stream_synchronize(s)
    wia.destroy_event(dead)
    ph.assert_raises_code(E.INVALID_VALUE, use, dead, ok, s)


@pytest.mark.req("R-3.4.1-04")
@pytest.mark.parametrize("which", ["start", "end", "both"])
def test_elapsed_time_of_unrecorded_event(which: str, ctx: wia.Context) -> None:
    s = wia.create_stream(ctx)
    recorded, unrecorded = wia.create_event(), wia.create_event()
    wia.event_record(recorded, s)
    wia.stream_synchronize(s)
    start = unrecorded if which in ("start", "both") else recorded
    end = unrecorded if which in ("end", "both") else recorded
    ph.assert_raises_code(E.INVALID_VALUE, wia.event_elapsed_time, start, end)


@pytest.mark.req("R-3.4.1-04")
@pytest.mark.parametrize("value", [None, "event", 0], ids=["None", "str", "int"])
def test_non_events_are_invalid_value(value: Any, ctx: wia.Context) -> None:
    s = wia.create_stream(ctx)
    ph.assert_raises_code(E.INVALID_VALUE, wia.event_record, value, s)
    ph.assert_raises_code(E.INVALID_VALUE, wia.event_query, value)
    ph.assert_raises_code(E.INVALID_VALUE, wia.destroy_event, value)
    ph.assert_raises_code(E.INVALID_VALUE, wia.stream_wait_event, s, value)


@pytest.mark.req("R-3.4.1-01", "R-3.4.1-02")
def test_cross_context_waits_are_invalid_context(new_context: ContextFactory) -> None:
    a, b = new_context(), new_context()
    sa, sb = wia.create_stream(a), wia.create_stream(b)
    e = wia.create_event()
    wia.event_record(e, sa)
    ph.assert_raises_code(E.INVALID_CONTEXT, wia.stream_wait_event, sb, e)
    ph.assert_raises_code(E.INVALID_CONTEXT, wia.stream_wait_stream, sb, sa)
    ph.assert_raises_code(E.INVALID_CONTEXT, wia.stream_wait_stream, sa, sb)
