"""UNIFIED and MANAGED memory move between host and device, and the move shows in the simulated time."""

from __future__ import annotations

import numpy as np
import pytest

import wia_hal as wia
from wia_hal.backends.sim import SimBackend
from wia_sim.migration import FAULT_SERVICE_S, MIGRATION_GRANULE

MiB = 2**20


def _timed_relu(t: wia.Tensor) -> float:
    stream = t.context.default_stream
    start, end = wia.create_event(), wia.create_event()
    wia.event_record(start, stream)
    wia.relu(t)
    wia.event_record(end, stream)
    wia.event_synchronize(end)
    return wia.event_elapsed_time(start, end) / 1e3


def test_managed_pages_fault_to_the_device_on_first_touch_only(sim: SimBackend, raw_ctx: wia.Context) -> None:
    t = wia.tensor(np.ones(MiB // 4, np.float32), ctx=raw_ctx, memory=wia.MemoryType.MANAGED)  # written by the host
    first, second = _timed_relu(t), _timed_relu(t)
    pages = MiB // MIGRATION_GRANULE
    expected = pages * FAULT_SERVICE_S + MiB / sim.model.host_link.pinned_h2d_bandwidth
    assert first - second == pytest.approx(expected, rel=1e-9)
    np.testing.assert_array_equal(wia.relu(t).numpy(), 1.0)


def test_prefetch_moves_managed_memory_in_bulk_without_faults(sim: SimBackend, ctx: wia.Context) -> None:
    t = wia.tensor(np.ones(MiB // 4, np.float32), ctx=ctx, memory=wia.MemoryType.MANAGED)
    resident = _timed_relu(wia.tensor(np.ones(MiB // 4, np.float32), ctx=ctx))  # the same op on DEVICE memory
    stream = ctx.default_stream
    start, end = wia.create_event(), wia.create_event()
    wia.event_record(start, stream)
    wia.memory_prefetch(t.memory, to_device=True)
    wia.event_record(end, stream)
    wia.event_synchronize(end)
    link = sim.model.host_link
    bulk = link.latency + MiB / link.pinned_h2d_bandwidth
    assert wia.event_elapsed_time(start, end) / 1e3 == pytest.approx(sim.model.host.api_overhead + bulk, rel=1e-9)
    assert _timed_relu(t) == pytest.approx(resident, rel=1e-9)  # no faults left


def test_unified_memory_moves_as_one_transfer_each_way(sim: SimBackend, raw_ctx: wia.Context) -> None:
    t = wia.tensor(np.ones(MiB // 4, np.float32), ctx=raw_ctx, memory=wia.MemoryType.UNIFIED)
    first, second = _timed_relu(t), _timed_relu(t)
    link = sim.model.host_link
    assert first - second == pytest.approx(link.latency + MiB / link.pinned_h2d_bandwidth, rel=1e-9)
    before = sim.machine.host_time
    view = wia.memory_ptr(t.memory)  # the host touches data the device has: it comes back
    spent = sim.machine.host_time - before
    assert spent == pytest.approx(sim.model.host.api_overhead + link.latency + MiB / link.pinned_d2h_bandwidth)
    view.view(np.float32)[:] = -2.0
    np.testing.assert_array_equal(wia.relu(t).numpy(), 0.0)  # the host's write is seen, with no explicit copy


def test_explicit_copies_beat_demand_paging_for_managed_memory(sim: SimBackend, ctx: wia.Context) -> None:
    data = np.ones(4 * MiB // 4, np.float32)
    managed = wia.tensor(data, ctx=ctx, memory=wia.MemoryType.MANAGED)
    demand = _timed_relu(managed)
    device = wia.tensor(data, ctx=ctx)
    pinned = wia.alloc(ctx, data.nbytes, wia.MemoryType.PINNED)
    stream = ctx.default_stream
    start, end = wia.create_event(), wia.create_event()
    wia.event_record(start, stream)
    wia.copy_async(pinned, device.memory, data.nbytes, stream)
    wia.relu(device, stream=stream)
    wia.event_record(end, stream)
    wia.event_synchronize(end)
    explicit = wia.event_elapsed_time(start, end) / 1e3
    assert explicit < demand


def test_device_memory_never_migrates(sim: SimBackend, ctx: wia.Context) -> None:
    t = wia.tensor(np.ones(MiB // 4, np.float32), ctx=ctx)
    assert _timed_relu(t) == pytest.approx(_timed_relu(t), rel=1e-12)
    assert t.memory.buffer.residency is None
