"""SPEC 3.5.1: memory types, host access, pinned transfers, unified and managed memory, invalid memory."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import wia_hal as wia
from conformance import assertions as ph
from conformance import strategies as hh
from conformance.conftest import ContextFactory

E = wia.ErrorCode
M = wia.MemoryType
F32 = np.dtype(np.float32)
_TYPES = list(M)
_HOST_VISIBLE = [t for t in M if t is not M.DEVICE]


@pytest.mark.req("R-3.5.1-01")
@pytest.mark.parametrize("memory_type", _TYPES, ids=[t.name for t in _TYPES])
def test_alloc_and_free_each_type(memory_type: wia.MemoryType, ctx: wia.Context) -> None:
    ph.requires_memory(memory_type)

    @hh.suite_settings()
    @given(size=hh.byte_sizes())
    def check(size: int) -> None:
        mem = wia.alloc(ctx, size, memory_type)
        call = f"alloc(ctx, {size}, MemoryType.{memory_type.name})"
        ph.assert_isinstance(mem, wia.Memory, call)
        ph.assert_equal(mem.size, size, f"{call}.size")
        ph.assert_equal(mem.type, memory_type, f"{call}.type")
        wia.free(mem)

    check()


@pytest.mark.req("R-3.5.1-01", "R-3.1-04")
def test_alloc_without_context_uses_the_default(device: wia.Device) -> None:
    mem = wia.alloc(None, 128)
    ph.assert_true(mem.context is wia.get_default_context(), mem.context, "the default context", "alloc(None, 128)")
    wia.free(mem)


_BAD_SIZES: list[tuple[str, Any]] = [
    ("0", 0),
    ("-1", -1),
    ("-4096", -4096),
    ("float", 64.0),
    ("str", "64"),
    ("None", None),
]


@pytest.mark.req("R-3.5.1-01")
@pytest.mark.parametrize("size", [v for _, v in _BAD_SIZES], ids=[n for n, _ in _BAD_SIZES])
@pytest.mark.parametrize("memory_type", _TYPES, ids=[t.name for t in _TYPES])
def test_alloc_invalid_size(size: Any, memory_type: wia.MemoryType, ctx: wia.Context) -> None:
    ph.requires_memory(memory_type)
    ph.assert_raises_code(E.INVALID_VALUE, wia.alloc, ctx, size, memory_type)


@pytest.mark.req("R-3.5.1-01")
@pytest.mark.parametrize("memory_type", [99, -1, "DEVICE", None], ids=["99", "-1", "str", "None"])
def test_alloc_invalid_memory_type(memory_type: Any, ctx: wia.Context) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, wia.alloc, ctx, 64, memory_type)


@pytest.mark.req("R-3.5.1-01", "R-3.3-04")
def test_alloc_beyond_device_memory_is_out_of_memory(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    ph.assert_raises_code(E.OUT_OF_MEMORY, wia.alloc, ctx, info.memory_size + 1)
    mem = wia.alloc(ctx, 4096)  # the context is still usable
    wia.free(mem)


@pytest.mark.req("R-3.5.1-02")
@pytest.mark.parametrize("memory_type", _HOST_VISIBLE, ids=[t.name for t in _HOST_VISIBLE])
def test_memory_ptr_is_a_writable_uint8_view(memory_type: wia.MemoryType, ctx: wia.Context) -> None:
    ph.requires_memory(memory_type)

    @hh.suite_settings()
    @given(size=hh.byte_sizes(256 * hh.KiB), seed=st.integers(0, 2**16))
    def check(size: int, seed: int) -> None:
        mem = wia.alloc(ctx, size, memory_type)
        call = f"memory_ptr(alloc(ctx, {size}, MemoryType.{memory_type.name}))"
        view = wia.memory_ptr(mem)
        ph.assert_isinstance(view, np.ndarray, call)
        ph.assert_equal(view.dtype, np.dtype(np.uint8), f"{call}.dtype")
        ph.assert_equal(view.shape, (size,), f"{call}.shape")
        ph.assert_true(bool(view.flags.writeable), False, "a writable view", f"{call}.flags.writeable")
        data = np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8)
        view[:] = data
        ph.assert_bytes_equal(wia.memory_ptr(mem), data, f"{call} read back after a write")
        wia.free(mem)

    check()


@pytest.mark.req("R-3.5.1-02")
def test_memory_ptr_of_device_memory_is_invalid_value(ctx: wia.Context) -> None:
    mem = wia.alloc(ctx, 256, M.DEVICE)
    ph.assert_raises_code(E.INVALID_VALUE, wia.memory_ptr, mem)


@pytest.mark.req("R-3.5.1-02")
@pytest.mark.parametrize("value", [None, b"bytes", np.zeros(4, np.uint8)], ids=["None", "bytes", "ndarray"])
def test_memory_ptr_of_non_memory(value: Any, ctx: wia.Context) -> None:
    ph.assert_raises_code((E.INVALID_VALUE, E.INVALID_MEMORY), wia.memory_ptr, value)


def _h2d_ms(ctx: wia.Context, src: wia.Memory, dst: wia.Memory, n: int) -> float:
    s = wia.create_stream(ctx)
    start, end = wia.create_event(), wia.create_event()
    wia.event_record(start, s)
    wia.copy_async(src, dst, n, s)
    wia.event_record(end, s)
    wia.stream_synchronize(s)
    ms = wia.event_elapsed_time(start, end)
    wia.destroy_stream(s)
    return ms


@pytest.mark.req("R-3.5.1-03")
def test_pinned_transfers_are_faster_than_pageable(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    ph.requires("supports_pinned_memory")
    n = hh.work_bytes(info, cap=64 * hh.MiB)
    pinned = wia.alloc(ctx, n, M.PINNED)
    pageable = wia.alloc(ctx, n, M.HOST)
    dst = wia.alloc(ctx, n)
    _h2d_ms(ctx, pageable, dst, n)  # untimed: the first touch of the destination is not timed
    pinned_ms = min(_h2d_ms(ctx, pinned, dst, n) for _ in range(3))
    pageable_ms = min(_h2d_ms(ctx, pageable, dst, n) for _ in range(3))
    ph.assert_true(
        pinned_ms < 0.9 * pageable_ms,
        f"{pinned_ms:.4f} ms from PINNED",
        f"at least 10% less than the {pageable_ms:.4f} ms from pageable HOST memory (faster, beyond timing noise)",
        f"copy_async({n} bytes -> DEVICE), best of 3, timed with events",
    )


@pytest.mark.req("R-3.5.1-03")
def test_pinned_transfers_can_be_asynchronous(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    ph.requires("supports_pinned_memory")
    n = hh.work_bytes(info, cap=64 * hh.MiB)
    pinned = wia.alloc(ctx, n, M.PINNED)
    dst = wia.alloc(ctx, n)
    s = wia.create_stream(ctx)
    wia.copy_async(pinned, dst, n, s)
    e = wia.create_event()
    wia.event_record(e, s)
    ph.assert_equal(wia.event_query(e), False, f"event_query right after copy_async(PINNED -> DEVICE, {n} bytes)")
    wia.stream_synchronize(s)


@pytest.mark.req("R-3.5.1-04", "R-3.2.1-03")
def test_unified_host_writes_are_seen_by_device_work(ctx: wia.Context) -> None:
    ph.requires("supports_unified_memory")
    shape = (3, 5)
    t = wia.tensor(np.zeros(shape, np.float32), ctx=ctx, memory=M.UNIFIED)
    ph.assert_equal(t.memory_type, M.UNIFIED, "tensor(..., memory=UNIFIED).memory_type")
    values = np.arange(15, dtype=np.float32).reshape(shape) - 7
    for round_ in range(2):  # a second write after device work is seen too
        data = values * (round_ + 1)
        wia.memory_ptr(t.memory)[:] = data.reshape(-1).view(np.uint8)
        y = wia.add(t, t, ctx=ctx)
        ph.assert_array_close(
            y.numpy(), data * 2, F32, f"add(t, t) after a host write to UNIFIED memory (round {round_})"
        )
        r = wia.relu(t, ctx=ctx)
        ph.assert_array_close(r.numpy(), np.maximum(data, 0), F32, f"relu(t) after a host write (round {round_})")


@pytest.mark.req("R-3.5.1-04")
def test_unified_device_results_are_seen_by_the_host(ctx: wia.Context) -> None:
    ph.requires("supports_unified_memory")
    # zeros() fills UNIFIED memory on the device; the host then reads it through memory_ptr, with no copy.
    t = wia.zeros((64,), wia.float32, ctx=ctx, memory=M.UNIFIED)
    wia.context_synchronize(ctx)
    got = wia.memory_ptr(t.memory).view(np.float32)
    ph.assert_array_close(got, np.zeros(64, np.float32), F32, "memory_ptr(zeros(memory=UNIFIED).memory)")
    wia.memory_ptr(t.memory)[:] = 0xFF
    u = wia.add(t, wia.zeros((64,), wia.float32, ctx=ctx, memory=M.UNIFIED), ctx=ctx)
    ph.assert_true(
        bool(np.isnan(u.numpy()).all()), u.numpy(), "NaN everywhere (0xFF bytes are NaN)", "add after a host write"
    )


@pytest.mark.req("R-3.5.1-05")
def test_managed_gives_the_same_results_as_explicit_copies(ctx: wia.Context) -> None:
    ph.requires("supports_managed_memory")

    @hh.suite_settings()
    @given(shapes=hh.broadcastable_shape_pairs(max_side=5), data=st.data())
    def check(shapes: tuple[tuple[int, ...], tuple[int, ...]], data: st.DataObject) -> None:
        a = data.draw(hh.arrays(F32, shapes[0]), label="a")
        b = data.draw(hh.arrays(F32, shapes[1]), label="b")
        managed = [wia.tensor(x, ctx=ctx, memory=M.MANAGED) for x in (a, b)]
        device = [wia.tensor(x, ctx=ctx, memory=M.DEVICE) for x in (a, b)]
        for op in (wia.add, wia.mul):
            got = op(*managed, ctx=ctx).numpy()
            expected = op(*device, ctx=ctx).numpy()
            ph.assert_array_close(got, expected, F32, f"{op.__name__}(MANAGED a {a.shape}, b {b.shape}) vs DEVICE")
        got = wia.relu(managed[0], ctx=ctx).numpy()
        ph.assert_array_close(got, wia.relu(device[0], ctx=ctx).numpy(), F32, f"relu(MANAGED {a.shape}) vs DEVICE")

    check()


@pytest.mark.req("R-3.5.1-05")
def test_prefetched_managed_memory_gives_the_same_results(ctx: wia.Context) -> None:
    ph.requires("supports_managed_memory")
    x = np.linspace(-4, 4, 4096, dtype=np.float32)
    managed = wia.tensor(x, ctx=ctx, memory=M.MANAGED)
    stream = wia.create_stream(ctx)
    wia.memory_prefetch(managed.memory, True, stream)  # a hint: the result may not change
    got = wia.relu(managed, stream=stream).numpy()
    ph.assert_array_close(got, np.maximum(x, 0), F32, "relu(MANAGED prefetched to the device)")
    wia.memory_prefetch(managed.memory, False, stream)
    wia.stream_synchronize(stream)
    host = wia.memory_ptr(managed.memory).view(np.float32)
    ph.assert_array_close(host, x, F32, "memory_ptr(MANAGED prefetched back to the host)")


@pytest.mark.req("R-3.5.1-05")
def test_managed_host_writes_migrate(ctx: wia.Context) -> None:
    ph.requires("supports_managed_memory")
    t = wia.tensor(np.zeros(8, np.float32), ctx=ctx, memory=M.MANAGED)
    data = np.linspace(-1, 1, 8, dtype=np.float32)
    wia.memory_ptr(t.memory)[:] = data.view(np.uint8)
    ph.assert_array_close(wia.mul(t, t, ctx=ctx).numpy(), data * data, F32, "mul(t, t) after a host write to MANAGED")
    host = wia.alloc(ctx, 32, M.HOST)
    wia.copy_async(t.memory, host, 32)
    wia.context_synchronize(ctx)
    ph.assert_bytes_equal(wia.memory_ptr(host), data.view(np.uint8), "copy_async(MANAGED -> HOST)")


@pytest.mark.req("R-3.5.1-06")
@pytest.mark.parametrize("memory_type", _TYPES, ids=[t.name for t in _TYPES])
def test_double_free_is_invalid_memory(memory_type: wia.MemoryType, ctx: wia.Context) -> None:
    ph.requires_memory(memory_type)
    mem = wia.alloc(ctx, 64, memory_type)
    wia.free(mem)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.free, mem)


@pytest.mark.req("R-3.5.1-06")
@pytest.mark.parametrize("memory_type", _TYPES, ids=[t.name for t in _TYPES])
def test_use_after_free_is_invalid_memory(memory_type: wia.MemoryType, ctx: wia.Context) -> None:
    ph.requires_memory(memory_type)
    mem = wia.alloc(ctx, 64, memory_type)
    other = wia.alloc(ctx, 64)
    wia.free(mem)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.copy_async, mem, other, 64)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.copy_async, other, mem, 64)
    if memory_type is not M.DEVICE:
        ph.assert_raises_code(E.INVALID_MEMORY, wia.memory_ptr, mem)


@pytest.mark.req("R-3.5.1-06")
def test_memory_of_another_context_is_invalid_memory(new_context: ContextFactory) -> None:
    a, b = new_context(), new_context()
    ma, mb = wia.alloc(a, 64), wia.alloc(b, 64)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.copy_async, ma, mb, 64)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.copy_async, mb, ma, 64)
    ta = wia.tensor(np.ones(2, np.float32), ctx=a)
    tb = wia.tensor(np.ones(2, np.float32), ctx=b)
    ph.assert_raises_code((E.INVALID_MEMORY, E.INVALID_CONTEXT), wia.add, ta, tb)
    ph.assert_raises_code((E.INVALID_MEMORY, E.INVALID_CONTEXT), wia.relu, ta, ctx=b)
