"""SPEC 3.4: streams, asynchronous execution and copies between every pair of memory types."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import wia_hal as wia
from conformance import assertions as ph
from conformance import strategies as hh

E = wia.ErrorCode
M = wia.MemoryType
F32 = np.dtype(np.float32)


@pytest.mark.req("R-3.4-01")
@pytest.mark.parametrize(
    "flags", [wia.StreamFlags.DEFAULT, wia.StreamFlags.NON_BLOCKING], ids=["DEFAULT", "NON_BLOCKING"]
)
def test_create_and_destroy_stream(flags: wia.StreamFlags, ctx: wia.Context) -> None:
    s = wia.create_stream(ctx, flags)
    ph.assert_isinstance(s, wia.Stream, f"create_stream(ctx, {flags!r})")
    wia.stream_synchronize(s)
    wia.destroy_stream(s)


@pytest.mark.req("R-3.4-01")
@pytest.mark.parametrize("flags", [-1, 1 << 10, "default", None], ids=["-1", "unknown-bit", "str", "None"])
def test_invalid_stream_flags(flags: Any, ctx: wia.Context) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, wia.create_stream, ctx, flags)


@pytest.mark.req("R-3.4-01", "R-3.4-04")
def test_ops_on_one_stream_run_in_order(ctx: wia.Context) -> None:
    s = wia.create_stream(ctx)
    one = wia.tensor(np.ones((64, 64), np.float32), ctx=ctx)
    x = wia.zeros((64, 64), wia.float32, ctx=ctx, stream=s)
    steps = 12
    for _ in range(steps):
        x = wia.add(x, one, stream=s)
    x = wia.mul(x, x, stream=s)
    wia.stream_synchronize(s)
    ph.assert_array_close(
        x.numpy(), np.full((64, 64), steps * steps, np.float32), F32, f"{steps} x add then mul on one stream"
    )


@pytest.mark.req("R-3.4-01", "R-3.4-03")
def test_copies_on_one_stream_run_in_order(ctx: wia.Context) -> None:
    n = 256 * hh.KiB
    s = wia.create_stream(ctx)
    pattern = (np.arange(n) * 7 % 251).astype(np.uint8)
    src = wia.alloc(ctx, n, M.HOST)
    wia.memory_ptr(src)[:] = pattern
    chain = [wia.alloc(ctx, n) for _ in range(4)]
    out = wia.alloc(ctx, n, M.HOST)
    wia.copy_async(src, chain[0], n, s)
    for a, b in itertools.pairwise(chain):
        wia.copy_async(a, b, n, s)
    wia.copy_async(chain[-1], out, n, s)
    wia.stream_synchronize(s)
    ph.assert_bytes_equal(wia.memory_ptr(out), pattern, "HOST -> DEVICE x4 -> HOST on one stream")


def _fill(ctx: wia.Context, mem: wia.Memory, data: npt.NDArray[np.uint8], s: wia.Stream) -> None:
    """Write ``data`` into ``mem``: directly for host-visible memory, through a HOST bounce buffer for DEVICE."""
    if mem.type is M.DEVICE:
        bounce = wia.alloc(ctx, data.size, M.HOST)
        wia.memory_ptr(bounce)[:] = data
        wia.copy_async(bounce, mem, data.size, s)
        wia.stream_synchronize(s)
        wia.free(bounce)
    else:
        wia.memory_ptr(mem)[: data.size] = data


def _read(ctx: wia.Context, mem: wia.Memory, s: wia.Stream) -> npt.NDArray[np.uint8]:
    """The bytes of ``mem`` after the stream's work (a copy, through a HOST bounce buffer for DEVICE)."""
    wia.stream_synchronize(s)
    if mem.type is M.DEVICE:
        bounce = wia.alloc(ctx, mem.size, M.HOST)
        wia.copy_async(mem, bounce, mem.size, s)
        wia.stream_synchronize(s)
        data = np.array(wia.memory_ptr(bounce))
        wia.free(bounce)
        return data
    return np.array(wia.memory_ptr(mem))


_PAIRS = list(itertools.product(list(M), list(M)))


@pytest.mark.req("R-3.4-03")
@pytest.mark.parametrize(("src_type", "dst_type"), _PAIRS, ids=[f"{a.name}-{b.name}" for a, b in _PAIRS])
def test_copy_async_every_pair(src_type: wia.MemoryType, dst_type: wia.MemoryType, ctx: wia.Context) -> None:
    ph.requires_memory(src_type)
    ph.requires_memory(dst_type)
    n = 64 * hh.KiB + 13
    size = n - 7  # the last 7 bytes of dst must stay as they were
    rng = np.random.default_rng(int(src_type) * 5 + int(dst_type))
    data = rng.integers(0, 256, n, dtype=np.uint8)
    before = rng.integers(0, 256, n, dtype=np.uint8)
    s = wia.create_stream(ctx)
    src = wia.alloc(ctx, n, src_type)
    dst = wia.alloc(ctx, n, dst_type)
    _fill(ctx, src, data, s)
    _fill(ctx, dst, before, s)
    wia.copy_async(src, dst, size, s)
    got = _read(ctx, dst, s)
    expected = np.concatenate([data[:size], before[size:]])
    ph.assert_bytes_equal(got, expected, f"copy_async({src_type.name} -> {dst_type.name}, {size} of {n} bytes)")
    ph.assert_bytes_equal(_read(ctx, src, s), data, f"the source after copy_async({src_type.name} -> {dst_type.name})")


@pytest.mark.req("R-3.4-03")
def test_copy_async_default_stream(ctx: wia.Context) -> None:
    n = 4096
    src = wia.alloc(ctx, n, M.HOST)
    dst = wia.alloc(ctx, n, M.HOST)
    wia.memory_ptr(src)[:] = 0xA5
    wia.copy_async(src, dst, n)
    wia.context_synchronize(ctx)
    ph.assert_bytes_equal(wia.memory_ptr(dst), np.full(n, 0xA5, np.uint8), "copy_async(src, dst, n) without stream")


_BAD_SIZES: list[tuple[str, Any]] = [
    ("0", 0),
    ("-1", -1),
    ("too-big", 4097),
    ("float", 16.0),
    ("str", "16"),
    ("None", None),
]


@pytest.mark.req("R-3.4-03")
@pytest.mark.parametrize("size", [v for _, v in _BAD_SIZES], ids=[n for n, _ in _BAD_SIZES])
def test_copy_async_invalid_size(size: Any, ctx: wia.Context) -> None:
    src = wia.alloc(ctx, 4096)
    dst = wia.alloc(ctx, 4096)
    ph.assert_raises_code(E.INVALID_VALUE, wia.copy_async, src, dst, size)


@pytest.mark.req("R-3.4-03")
@pytest.mark.parametrize("which", ["src", "dst"])
def test_copy_async_non_memory(which: str, ctx: wia.Context) -> None:
    mem = wia.alloc(ctx, 64)
    args: list[Any] = [b"x" * 64, mem] if which == "src" else [mem, b"x" * 64]
    ph.assert_raises_code((E.INVALID_VALUE, E.INVALID_MEMORY), wia.copy_async, *args, 64)


def _elapsed(
    ctx: wia.Context, copy: bool, compute: bool, n: int, x: wia.Tensor, src: wia.Memory, dst: wia.Memory
) -> float:
    """Device time, in ms, from a common start to the end of a pinned H2D copy on one stream and/or a chain of
    element-wise ops on another."""
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    start, end = wia.create_event(), wia.create_event()
    wia.event_record(start, s1)
    wia.stream_wait_event(s2, start)
    if copy:
        wia.copy_async(src, dst, n, s1)
    if compute:
        y = x
        for _ in range(16):
            y = wia.add(y, x, stream=s2)
    wia.stream_wait_stream(s1, s2)
    wia.event_record(end, s1)
    wia.stream_synchronize(s1)
    elapsed = wia.event_elapsed_time(start, end)
    wia.destroy_stream(s1)
    wia.destroy_stream(s2)
    return elapsed


@pytest.mark.req("R-3.4-02")
def test_copy_overlaps_compute_on_another_stream(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    ph.requires("supports_pinned_memory")  # a copy from pageable memory blocks the host, so nothing can overlap
    ph.requires_streams(2)
    n = hh.work_bytes(info, cap=64 * hh.MiB, fraction=16)
    src = wia.alloc(ctx, n, M.PINNED)
    dst = wia.alloc(ctx, n)
    x = wia.tensor(np.ones(max(1, n // 16), np.float32), ctx=ctx)
    _elapsed(ctx, True, True, n, x, src, dst)  # untimed: the first touches of the buffers are not timed
    copy = min(_elapsed(ctx, True, False, n, x, src, dst) for _ in range(2))
    compute = min(_elapsed(ctx, False, True, n, x, src, dst) for _ in range(2))
    both = min(_elapsed(ctx, True, True, n, x, src, dst) for _ in range(2))
    serial = copy + compute
    ph.assert_true(
        both < serial - 0.5 * min(copy, compute),
        f"{both:.4f} ms together",
        f"less than {serial - 0.5 * min(copy, compute):.4f} ms (copy {copy:.4f} ms + compute {compute:.4f} ms "
        "run one after the other, minus half of the shorter): a copy overlaps compute on another stream",
        "copy_async on s1 and 16 x add on s2",
    )


@pytest.mark.req("R-3.4-04")
def test_ops_with_stream_return_before_the_work_is_done(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    n = hh.op_elements(ctx, info, cap=64 * hh.MiB, fraction=16)
    s = wia.create_stream(ctx)
    x = wia.tensor(np.full(n, 0.5, np.float32), ctx=ctx)
    y = x
    for _ in range(20):
        y = wia.add(y, x, stream=s)
    after = wia.create_event()
    wia.event_record(after, s)
    ph.assert_true(
        not wia.event_query(after),
        "event_query(after)=True",
        "False: the ops returned before finishing",
        "20 x add(stream=s)",
    )
    wia.stream_synchronize(s)
    ph.assert_true(wia.event_query(after), False, "True after stream_synchronize", "event_query(after)")
    ph.assert_array_close(y.numpy(), np.full(n, 10.5, np.float32), F32, "20 x add(y, 0.5, stream=s)")


@pytest.mark.req("R-3.4-04")
@pytest.mark.parametrize("op", ["add", "mul", "relu", "zeros"])
def test_op_with_stream_is_correct_after_synchronize(op: str, ctx: wia.Context) -> None:
    s = wia.create_stream(ctx)
    a = np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6)
    b = np.linspace(1, 3, 6, dtype=np.float32)
    ta, tb = wia.tensor(a, ctx=ctx), wia.tensor(b, ctx=ctx)
    if op == "add":
        got, expected = wia.add(ta, tb, stream=s), a + b
    elif op == "mul":
        got, expected = wia.mul(ta, tb, stream=s), a * b
    elif op == "relu":
        got, expected = wia.relu(ta, stream=s), np.maximum(a, 0)
    else:
        got, expected = wia.zeros((4, 6), ctx=ctx, stream=s), np.zeros((4, 6), np.float32)
    wia.stream_synchronize(s)
    ph.assert_array_close(got.numpy(), expected.astype(np.float32), F32, f"{op}(..., stream=s)")


@pytest.mark.req("R-3.4-01")
def test_destroyed_stream_is_invalid_value(ctx: wia.Context) -> None:
    s = wia.create_stream(ctx)
    wia.destroy_stream(s)
    t = wia.tensor(np.ones(2, np.float32), ctx=ctx)
    m = wia.alloc(ctx, 64)
    e = wia.create_event()
    other = wia.create_stream(ctx)
    calls: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = [
        (wia.stream_synchronize, (s,), {}),
        (wia.destroy_stream, (s,), {}),
        (wia.event_record, (e, s), {}),
        (wia.stream_wait_event, (s, e), {}),
        (wia.stream_wait_stream, (s, other), {}),
        (wia.stream_wait_stream, (other, s), {}),
        (wia.copy_async, (m, m, 64, s), {}),
        (wia.add, (t, t), {"stream": s}),
        (wia.relu, (t,), {"stream": s}),
        (wia.zeros, ((2,),), {"ctx": ctx, "stream": s}),
    ]
    for fn, args, kwargs in calls:
        ph.assert_raises_code(E.INVALID_VALUE, fn, *args, **kwargs)


@pytest.mark.req("R-3.4-01")
def test_stream_of_another_context_is_invalid_context(new_context: Any) -> None:
    a, b = new_context(), new_context()
    sb = wia.create_stream(b)
    m1, m2 = wia.alloc(a, 64), wia.alloc(a, 64)
    ph.assert_raises_code(E.INVALID_CONTEXT, wia.copy_async, m1, m2, 64, sb)
    t = wia.tensor(np.ones(2, np.float32), ctx=a)
    ph.assert_raises_code((E.INVALID_CONTEXT, E.INVALID_MEMORY), wia.add, t, t, stream=sb)
    ph.assert_raises_code(E.INVALID_CONTEXT, wia.zeros, (2,), ctx=a, stream=sb)
