"""SPEC 3.3: contexts (creation, configuration, exclusivity, limits, timeouts, destruction)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import wia_hal as wia
from conformance import assertions as ph
from conformance import strategies as hh
from conformance.conftest import ContextFactory

E = wia.ErrorCode


@pytest.mark.req("R-3.3-01", "R-3.3-02", "R-3.3-07")
def test_create_and_destroy(device: wia.Device) -> None:
    ctx = wia.create_context(wia.ContextConfig(device_id=0))
    ph.assert_isinstance(ctx, wia.Context, "create_context(ContextConfig(device_id=0))")
    s = wia.create_stream(ctx)
    a = wia.alloc(ctx, 1024)
    b = wia.alloc(ctx, 1024)
    wia.copy_async(a, b, 1024, s)
    wia.stream_synchronize(s)
    wia.destroy_context(ctx)


@pytest.mark.req("R-3.3-01")
def test_a_context_holds_a_memory_pool_that_serves_its_tensors(device: wia.Device) -> None:
    ctx = wia.create_context()
    pool = ctx.default_pool
    ph.assert_isinstance(pool, wia.MemoryPool, "create_context().default_pool")
    assert pool is not None  # for the type checker: the line above fails the test otherwise
    ph.assert_true(pool in ctx.pools, ctx.pools, "the default pool among ctx.pools", "create_context().pools")
    data = np.random.default_rng(0).random(4096).astype(np.float32)
    t = wia.tensor(data, ctx=ctx)
    wia.release_tensor(t)
    u = wia.tensor(data, ctx=ctx)  # the released tensor's memory serves the next one
    stats = wia.get_pool_stats(pool)
    ph.assert_true(stats.num_allocations >= 2, stats.num_allocations, ">= 2 allocations", "get_pool_stats(default)")
    ph.assert_true(
        stats.cache_hit_rate > 0,
        stats.cache_hit_rate,
        "> 0: the second tensor reused the first's block",
        "get_pool_stats(default).cache_hit_rate",
    )
    ph.assert_array_equal(u.numpy(), data, "tensor(data) from the default pool")
    wia.destroy_context(ctx)


@pytest.mark.req("R-3.3-02")
def test_create_context_with_every_config_field(device: wia.Device) -> None:
    ph.requires_streams(2)
    config = wia.ContextConfig(
        device_id=0, memory_pool_size=0, max_streams=2, enable_profiling=False, flags=wia.ContextFlags.NONE
    )
    ctx = wia.create_context(config)
    wia.destroy_context(ctx)
    ctx = wia.create_context()  # the default config
    wia.destroy_context(ctx)


_BAD_CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("negative-memory_pool_size", {"memory_pool_size": -1}),
    ("zero-max_streams", {"max_streams": 0}),
    ("negative-max_streams", {"max_streams": -2}),
    ("str-device_id", {"device_id": "0"}),
    ("float-device_id", {"device_id": 0.5}),
    ("float-memory_pool_size", {"memory_pool_size": 1.5}),
    ("str-max_streams", {"max_streams": "4"}),
    ("str-enable_profiling", {"enable_profiling": "yes"}),
    ("str-flags", {"flags": "exclusive"}),
    ("unknown-key", {"no_such_field": 1}),
    ("unknown-flag-bit", {"flags": 2}),
    ("negative-flags", {"flags": -1}),
]


@pytest.mark.req("R-3.3-02")
@pytest.mark.parametrize("config", [c for _, c in _BAD_CONFIGS], ids=[n for n, _ in _BAD_CONFIGS])
def test_invalid_config_is_invalid_value(config: dict[str, Any], new_context: ContextFactory) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, new_context, **config)


@pytest.mark.req("R-3.3-02", "R-3.2.1-02")
def test_enable_profiling_follows_the_capability(new_context: ContextFactory, caps: wia.DeviceCapabilities) -> None:
    if caps.supports_profiling:
        new_context(enable_profiling=True)
    else:  # a feature reported as unsupported raises NOT_SUPPORTED when used, never silently does nothing
        ph.assert_raises_code(E.NOT_SUPPORTED, new_context, enable_profiling=True)


@pytest.mark.req("R-3.3-02")
@pytest.mark.parametrize("value", ["not a config", 0, {"device_id": 0}], ids=["str", "int", "dict"])
def test_create_context_rejects_non_configs(value: Any, device: wia.Device) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, wia.create_context, value)


@pytest.mark.req("R-3.3-02")
@pytest.mark.parametrize("offset", [0, 1, 100])
def test_unknown_device_is_invalid_device(offset: int, new_context: ContextFactory) -> None:
    device_id = wia.get_device_count() + offset
    ph.assert_raises_code(E.INVALID_DEVICE, new_context, device_id=device_id)


@pytest.mark.req("R-3.3-02")
def test_negative_device_id_is_rejected(new_context: ContextFactory) -> None:
    # The spec allows either reading: an invalid config value or an unknown device.
    ph.assert_raises_code((E.INVALID_VALUE, E.INVALID_DEVICE), new_context, device_id=-1)


@pytest.mark.req("R-3.3-03", "R-3.1-04")
def test_exclusive_context_refuses_others(new_context: ContextFactory) -> None:
    wia.destroy_context(wia.get_default_context())  # the Level-1 default context would hold device 0 too
    exclusive = new_context(device_id=0, flags=wia.ContextFlags.EXCLUSIVE)
    ph.assert_raises_code(E.DEVICE_BUSY, new_context, device_id=0)
    ph.assert_raises_code(E.DEVICE_BUSY, new_context, device_id=0, flags=wia.ContextFlags.EXCLUSIVE)
    ph.assert_raises_code(E.DEVICE_BUSY, wia.get_default_context)
    wia.destroy_context(exclusive)
    new_context(device_id=0)  # free again once the exclusive context is gone


@pytest.mark.req("R-3.3-03")
def test_exclusive_context_refused_while_another_is_alive(new_context: ContextFactory) -> None:
    new_context(device_id=0)
    ph.assert_raises_code(E.DEVICE_BUSY, new_context, device_id=0, flags=wia.ContextFlags.EXCLUSIVE)


@pytest.mark.req("R-3.3-04")
def test_memory_limit(ctx: wia.Context) -> None:
    chunk = 64 * hh.KiB
    wia.context_set_memory_limit(ctx, 16 * chunk)
    first = wia.alloc(ctx, 8 * chunk)
    ph.assert_raises_code(E.OUT_OF_MEMORY, wia.alloc, ctx, 9 * chunk)
    second = wia.alloc(ctx, 4 * chunk)  # below the limit still works
    wia.free(first)
    third = wia.alloc(ctx, 12 * chunk)  # freed memory counts no longer
    ph.assert_raises_code(E.OUT_OF_MEMORY, wia.alloc, ctx, 1 * chunk)
    for m in (second, third):
        wia.free(m)


@pytest.mark.req("R-3.3-04")
def test_memory_limit_covers_tensors(ctx: wia.Context) -> None:
    wia.context_set_memory_limit(ctx, 64 * hh.KiB)
    ph.assert_raises_code(E.OUT_OF_MEMORY, wia.zeros, (128 * hh.KiB // 4,), wia.float32, ctx=ctx)
    t = wia.zeros((1024,), wia.float32, ctx=ctx)
    ph.assert_equal(t.shape, (1024,), "zeros((1024,), ctx=ctx).shape under a 64 KiB limit")


@pytest.mark.req("R-3.3-04")
@pytest.mark.parametrize("value", [0, -1, 1.5, "1024", None], ids=["0", "-1", "float", "str", "None"])
def test_invalid_memory_limit(value: Any, ctx: wia.Context) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, wia.context_set_memory_limit, ctx, value)


def _long_work(ctx: wia.Context, info: wia.DeviceInfo) -> tuple[wia.Stream, wia.Event]:
    """Enqueue device-to-device copies that take a while (256 MiB, scaled to the device); returns the stream and an
    event recorded after them."""
    n = hh.work_bytes(info)
    a = wia.alloc(ctx, n)
    b = wia.alloc(ctx, n)
    s = wia.create_stream(ctx)
    wia.copy_async(a, b, n, s)
    wia.copy_async(b, a, n, s)
    done = wia.create_event()
    wia.event_record(done, s)
    return s, done


_WAITS = ["stream_synchronize", "context_synchronize", "event_synchronize"]


def _wait(kind: str, ctx: wia.Context, s: wia.Stream, e: wia.Event) -> None:
    if kind == "stream_synchronize":
        wia.stream_synchronize(s)
    elif kind == "context_synchronize":
        wia.context_synchronize(ctx)
    else:
        wia.event_synchronize(e)


@pytest.mark.req("R-3.3-05")
@pytest.mark.parametrize("wait", _WAITS)
def test_timeout(wait: str, ctx: wia.Context, info: wia.DeviceInfo) -> None:
    wia.context_set_timeout(ctx, 1e-6)
    s, done = _long_work(ctx, info)
    ph.assert_raises_code(E.TIMEOUT, _wait, wait, ctx, s, done)
    wia.set_timeout(ctx, 600_000.0)  # the alias of context_set_timeout
    _wait(wait, ctx, s, done)
    ph.assert_true(
        wia.event_query(done), False, "True after the wait with a longer timeout", f"{wait} then event_query"
    )


@pytest.mark.req("R-3.3-05")
def test_infinite_timeout(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    wia.context_set_timeout(ctx, 1e-6)
    wia.context_set_timeout(ctx, wia.TIMEOUT_INFINITE)
    s, done = _long_work(ctx, info)
    wia.stream_synchronize(s)
    ph.assert_true(wia.event_query(done), False, "True", "stream_synchronize with TIMEOUT_INFINITE, then event_query")


@pytest.mark.req("R-3.3-05")
@pytest.mark.parametrize("value", [0, -1.0, "10", None], ids=["0", "negative", "str", "None"])
def test_invalid_timeout(value: Any, ctx: wia.Context) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, wia.context_set_timeout, ctx, value)


def _level1_work() -> tuple[wia.Tensor, wia.Stream, wia.Memory, int]:
    t = wia.tensor(np.arange(4, dtype=np.float32))
    return wia.add(t, t), wia.create_stream(), wia.alloc(None, 64), 42


@pytest.mark.req("R-3.3-06", "R-3.1-04")
def test_compute_in_context_makes_level1_calls_use_it(ctx: wia.Context) -> None:
    out, stream, mem, value = wia.compute_in_context(ctx, _level1_work)
    call = "compute_in_context(ctx, fn)"
    ph.assert_equal(value, 42, f"{call}: the value fn returned")
    ph.assert_true(out.context is ctx, out.context, "ctx (the tensor's context)", f"{call}: add(...).context")
    ph.assert_true(stream.context is ctx, stream.context, "ctx (the stream's context)", f"{call}: create_stream()")
    ph.assert_true(mem.context is ctx, mem.context, "ctx (the memory's context)", f"{call}: alloc(None, 64)")
    ph.assert_array_close(out.numpy(), np.arange(4, dtype=np.float32) * 2, np.dtype(np.float32), f"{call}: add")
    after = wia.tensor(np.zeros(1, np.float32))
    ph.assert_true(after.context is not ctx, after.context, "the default context again", "tensor(...) after it")


@pytest.mark.req("R-3.3-06")
def test_compute_in_context_passes_arguments_and_exceptions(ctx: wia.Context) -> None:
    got = wia.compute_in_context(ctx, lambda a, b=0: a + b, 2, b=3)
    ph.assert_equal(got, 5, "compute_in_context(ctx, lambda a, b=0: a + b, 2, b=3)")

    def boom() -> None:
        raise KeyError("from fn")

    with pytest.raises(KeyError, match="from fn"):
        wia.compute_in_context(ctx, boom)


@pytest.mark.req("R-3.3-06")
def test_contexts_on_different_devices_are_independent(new_context: ContextFactory, info: wia.DeviceInfo) -> None:
    # On a one-device backend the two contexts share device 0; they must still be independent.
    second_device = min(1, wia.get_device_count() - 1)
    a = new_context(device_id=0)
    b = new_context(device_id=second_device)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    ta = wia.tensor(x, ctx=a)
    tb = wia.tensor(x * 10, ctx=b)
    sa, _ = _long_work(a, info)
    ra = wia.compute_in_context(a, lambda: wia.mul(ta, ta))
    rb = wia.compute_in_context(b, lambda: wia.add(tb, tb))
    wia.context_synchronize(b)
    ph.assert_array_close(rb.numpy(), x * 20, np.dtype(np.float32), "add in context b while a is busy")
    wia.destroy_context(b)
    ph.assert_array_close(ra.numpy(), x * x, np.dtype(np.float32), "mul in context a after b was destroyed")
    wia.stream_synchronize(sa)


def _destroyed(ctx: wia.Context) -> wia.Context:
    wia.destroy_context(ctx)
    return ctx


_DESTROYED_CALLS: list[tuple[str, Any]] = [
    ("create_stream", lambda c: wia.create_stream(c)),
    ("alloc", lambda c: wia.alloc(c, 64)),
    ("context_synchronize", lambda c: wia.context_synchronize(c)),
    ("context_set_timeout", lambda c: wia.context_set_timeout(c, 10.0)),
    ("context_set_memory_limit", lambda c: wia.context_set_memory_limit(c, 1 << 20)),
    ("compute_in_context", lambda c: wia.compute_in_context(c, lambda: None)),
    ("destroy_context", lambda c: wia.destroy_context(c)),
    ("tensor", lambda c: wia.tensor(np.zeros(2, np.float32), ctx=c)),
    ("zeros", lambda c: wia.zeros((2,), ctx=c)),
    ("empty", lambda c: wia.empty((2,), ctx=c)),
]


@pytest.mark.req("R-3.3-07")
@pytest.mark.parametrize("use", [u for _, u in _DESTROYED_CALLS], ids=[n for n, _ in _DESTROYED_CALLS])
def test_destroyed_context_is_invalid_context(use: Any, ctx: wia.Context) -> None:
    ph.assert_raises_code(E.INVALID_CONTEXT, use, _destroyed(ctx))


@pytest.mark.req("R-3.3-07", "R-3.5.1-06")
def test_destroy_context_releases_what_it_owns(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    mem = wia.alloc(ctx, 4096)
    host = wia.alloc(ctx, 4096, wia.MemoryType.HOST)
    stream = wia.create_stream(ctx)
    t = wia.tensor(np.ones(4, np.float32), ctx=ctx)
    wia.destroy_context(ctx)
    ph.assert_raises_code((E.INVALID_MEMORY, E.INVALID_CONTEXT), wia.free, mem)
    ph.assert_raises_code((E.INVALID_MEMORY, E.INVALID_CONTEXT), wia.memory_ptr, host)
    ph.assert_raises_code((E.INVALID_VALUE, E.INVALID_CONTEXT), wia.stream_synchronize, stream)
    ph.assert_raises_code((E.INVALID_VALUE, E.INVALID_CONTEXT, E.INVALID_MEMORY), wia.relu, t)


@pytest.mark.req("R-3.3-07")
def test_destroyed_context_memory_is_reusable(device: wia.Device, info: wia.DeviceInfo) -> None:
    # Only where a large share of device memory is cheap to ask for in a test (up to 2 GiB).
    big = info.memory_size * 3 // 5
    if big > 2 * 1024 * hh.MiB:
        big = 0
    for _ in range(2):
        ctx = wia.create_context(wia.ContextConfig(device_id=0))
        if big:
            wia.alloc(ctx, big)  # never freed: destroy_context must release it
        wia.destroy_context(ctx)


@pytest.mark.req("R-3.3-08")
@pytest.mark.parametrize("limit", [1, 2, 3])
def test_max_streams(limit: int, new_context: ContextFactory, caps: wia.DeviceCapabilities) -> None:
    limit = min(limit, caps.max_streams)
    ctx = new_context(max_streams=limit)
    streams = [wia.create_stream(ctx) for _ in range(limit)]
    ph.assert_raises_code(E.INVALID_VALUE, wia.create_stream, ctx)
    wia.destroy_stream(streams[0])
    streams[0] = wia.create_stream(ctx)  # a destroyed stream frees its place
    ph.assert_raises_code(E.INVALID_VALUE, wia.create_stream, ctx)
