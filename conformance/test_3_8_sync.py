"""SPEC 3.8 (stream, context and event parts, Level 1): synchronization."""

from __future__ import annotations

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
