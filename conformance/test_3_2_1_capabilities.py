"""SPEC 3.2.1: capabilities, and that they are truthful (a claim works, a non-claim raises NOT_SUPPORTED)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import wia_hal as wia
from conformance import assertions as ph

SPEC_FLAGS = (
    "supports_float16",
    "supports_bfloat16",
    "supports_int8",
    "supports_unified_memory",
    "supports_peer_to_peer",
)
BINDING_FLAGS = ("supports_managed_memory", "supports_pinned_memory", "supports_custom_kernels", "supports_profiling")
BINDING_LIMITS = ("max_work_group_size", "max_shared_memory", "max_streams")


@pytest.mark.req("R-3.2.1-01")
def test_capability_fields_and_types(device: wia.Device) -> None:
    caps = wia.get_device_capabilities(device)
    call = "get_device_capabilities(get_device(0))"
    ph.assert_isinstance(caps, wia.DeviceCapabilities, call)
    for name in (*SPEC_FLAGS, *BINDING_FLAGS):
        ph.assert_true(hasattr(caps, name), sorted(type(caps).model_fields), f"a field {name}", call)
        ph.assert_isinstance(getattr(caps, name), bool, f"{call}.{name}")
    for name in BINDING_LIMITS:
        ph.assert_true(hasattr(caps, name), sorted(type(caps).model_fields), f"a field {name}", call)
        # a device without custom kernels has no work-group memory to offer: 0 is truthful there
        least = 0 if name == "max_shared_memory" and not caps.supports_custom_kernels else 1
        ph.assert_int(getattr(caps, name), f"{call}.{name}", minimum=least)


@pytest.mark.req("R-3.2.1-01")
def test_capabilities_of_every_device() -> None:
    for i in range(wia.get_device_count()):
        caps = wia.get_device_capabilities(wia.get_device(i))
        ph.assert_isinstance(caps, wia.DeviceCapabilities, f"get_device_capabilities(get_device({i}))")


_PROBE_VALUES = [0, 1, 2, -3, 5]
F32 = np.dtype(np.float32)


@pytest.mark.req("R-3.2.1-02")
@pytest.mark.parametrize("dtype_name", list(ph.DTYPE_FLAGS))
def test_dtype_claim_is_truthful(dtype_name: str, caps: wia.DeviceCapabilities) -> None:
    dtype = np.dtype(getattr(wia, dtype_name))
    flag = ph.DTYPE_FLAGS[dtype_name]
    data = np.array(_PROBE_VALUES).astype(dtype)
    if getattr(caps, flag):
        t = wia.tensor(data)
        ph.assert_array_close(t.numpy(), data, dtype, f"tensor({ph.fmt(data)}).numpy() with {flag}=True")
        doubled = wia.add(t, t).numpy()
        ph.assert_array_close(
            doubled, (data.astype(np.float64) * 2).astype(dtype), dtype, f"add(t, t) with {flag}=True"
        )
        z = wia.zeros((2, 3), dtype)
        ph.assert_array_close(z.numpy(), np.zeros((2, 3), dtype), dtype, f"zeros((2, 3), {dtype_name})")
        e = wia.empty((4,), dtype)
        ph.assert_equal((e.shape, np.dtype(e.dtype)), ((4,), dtype), f"empty((4,), {dtype_name}): (shape, dtype)")
    else:
        code = wia.ErrorCode.NOT_SUPPORTED
        ph.assert_raises_code(code, wia.tensor, data)
        ph.assert_raises_code(code, wia.tensor, np.zeros(3, np.float32), dtype=dtype)
        ph.assert_raises_code(code, wia.zeros, (2, 3), dtype)
        ph.assert_raises_code(code, wia.empty, (4,), dtype)


_MEMORY_TYPES = list(ph.MEMORY_FLAGS)


@pytest.mark.req("R-3.2.1-02", "R-3.5.1-01")
@pytest.mark.parametrize("memory_type", _MEMORY_TYPES, ids=[t.name for t in _MEMORY_TYPES])
def test_memory_claim_is_truthful(memory_type: wia.MemoryType, caps: wia.DeviceCapabilities, ctx: wia.Context) -> None:
    flag = ph.MEMORY_FLAGS[memory_type]
    size = 4096
    if getattr(caps, flag):
        mem = wia.alloc(ctx, size, memory_type)
        view = wia.memory_ptr(mem)
        view[:] = (np.arange(size) % 256).astype(np.uint8)
        device = wia.alloc(ctx, size, wia.MemoryType.DEVICE)
        back = wia.alloc(ctx, size, memory_type)
        wia.copy_async(mem, device, size)
        wia.copy_async(device, back, size)
        wia.context_synchronize(ctx)
        ph.assert_bytes_equal(
            wia.memory_ptr(back),
            (np.arange(size) % 256).astype(np.uint8),
            f"{memory_type.name} -> DEVICE -> {memory_type.name} with {flag}=True",
        )
        t = wia.tensor(np.ones(3, np.float32), ctx=ctx, memory=memory_type)
        ph.assert_array_close(
            t.numpy(), np.ones(3, np.float32), np.dtype(np.float32), f"tensor(memory={memory_type.name})"
        )
        for m in (mem, device, back):
            wia.free(m)
    else:
        code = wia.ErrorCode.NOT_SUPPORTED
        ph.assert_raises_code(code, wia.alloc, ctx, size, memory_type)
        ph.assert_raises_code(code, wia.tensor, np.ones(3, np.float32), ctx=ctx, memory=memory_type)
        ph.assert_raises_code(code, wia.zeros, (3,), ctx=ctx, memory=memory_type)


@pytest.mark.req("R-3.2.1-02", "R-3.3-08")
def test_max_streams_claim_is_truthful(caps: wia.DeviceCapabilities, ctx: wia.Context) -> None:
    limit = caps.max_streams
    tried = min(limit, 128)
    streams = [wia.create_stream(ctx) for _ in range(tried)]
    ph.assert_equal(len(streams), tried, f"create_stream(ctx) x {tried} with max_streams={limit}")
    if tried == limit:
        ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.create_stream, ctx)
    for s in streams:
        wia.destroy_stream(s)


@pytest.mark.req("R-3.2.1-02")
@pytest.mark.parametrize("dtype_name", ph.REQUIRED_DTYPES)
def test_required_dtypes_work(dtype_name: str, device: wia.Device) -> None:
    dtype = np.dtype(getattr(wia, dtype_name))
    data = np.array(_PROBE_VALUES).astype(dtype)
    got: Any = wia.tensor(data).numpy()
    ph.assert_array_close(got, data, dtype, f"tensor({ph.fmt(data)}).numpy()")


@pytest.mark.req("R-3.2.1-03", "R-3.5.1-04")
def test_create_tensor_unified_follows_the_capability(caps: wia.DeviceCapabilities, ctx: wia.Context) -> None:
    if not caps.supports_unified_memory:
        ph.assert_raises_code(wia.ErrorCode.NOT_SUPPORTED, wia.create_tensor_unified, (4,), wia.float32, ctx=ctx)
        return
    t = wia.create_tensor_unified((2, 3), wia.float32, ctx=ctx)
    call = "create_tensor_unified((2, 3), float32, ctx=ctx)"
    ph.assert_equal((t.shape, np.dtype(t.dtype), t.memory_type), ((2, 3), F32, wia.MemoryType.UNIFIED), call)
    data = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    wia.memory_ptr(t.memory)[:] = data.reshape(-1).view(np.uint8)  # a host write, no copy
    ph.assert_array_close(wia.relu(t, ctx=ctx).numpy(), np.maximum(data, 0), F32, f"relu({call}) after a host write")


@pytest.mark.req("R-3.2.1-03", "R-3.4-03")
def test_create_tensor_device_with_explicit_copies(ctx: wia.Context) -> None:
    t = wia.create_tensor_device((2, 3), wia.float32, ctx=ctx)
    call = "create_tensor_device((2, 3), float32, ctx=ctx)"
    ph.assert_equal((t.shape, np.dtype(t.dtype), t.memory_type), ((2, 3), F32, wia.MemoryType.DEVICE), call)
    data = np.arange(6, dtype=np.float32).reshape(2, 3) * 1.5
    staging = wia.alloc(ctx, data.nbytes, wia.MemoryType.HOST)
    wia.memory_ptr(staging)[:] = data.reshape(-1).view(np.uint8)
    wia.copy_async(staging, t.memory, data.nbytes)
    ph.assert_array_close(wia.mul(t, t, ctx=ctx).numpy(), data * data, F32, f"mul({call}) after copy_async from HOST")
    ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.memory_ptr, t.memory)


# -- R-3.2.1-04: peer-to-peer copies between devices ----------------------------------------------------------------

_PEER_DTYPES = ("float32", "int32", "float16", "bfloat16", "int8", "float64")


def _peer_pairs() -> list[tuple[int, int]]:
    """The ordered pairs of devices that claim peer-to-peer and whose pair reports a peer path; skips the test as
    not supported where the backend has fewer than two devices or no such pair."""
    count = wia.get_device_count()
    if count < 2:
        pytest.skip(f"{ph.NOT_SUPPORTED_PREFIX} peer-to-peer needs two devices; the backend has {count}")
    claimed = [i for i in range(count) if wia.get_device_capabilities(wia.get_device(i)).supports_peer_to_peer]
    pairs = [
        (i, j)
        for i in claimed
        for j in claimed
        if i != j and wia.get_peer_info(wia.get_device(i), wia.get_device(j)).supported
    ]
    if not pairs:
        pytest.skip(f"{ph.NOT_SUPPORTED_PREFIX} no pair of devices claims a peer-to-peer path")
    return pairs


def _contexts(*indices: int) -> list[wia.Context]:
    return [wia.create_context(wia.ContextConfig(device_id=i)) for i in indices]


def _random(rng: np.random.Generator, dtype: np.dtype, n: int) -> np.ndarray:
    """Fresh random values of ``dtype``: integers over the whole range, floats normal (sd 3) rounded to the dtype."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, n, endpoint=True).astype(dtype)
    values: np.ndarray = (rng.standard_normal(n) * 3).astype(np.float32).astype(dtype)
    return values


@pytest.mark.req("R-3.2.1-04")
@pytest.mark.parametrize("dtype_name", _PEER_DTYPES)
def test_peer_copy_moves_data_exactly(dtype_name: str) -> None:
    dtype = np.dtype(getattr(wia, dtype_name))
    pairs = _peer_pairs()
    rng = np.random.default_rng(sum(map(ord, dtype_name)))
    for src, dst in pairs[:4]:  # a few pairs: on a ring or torus they include a multi-hop one only sometimes
        for index in (src, dst):
            ph.requires_dtype(dtype, wia.get_device_capabilities(wia.get_device(index)))
        src_ctx, dst_ctx = _contexts(src, dst)
        try:
            data = _random(rng, dtype, 1031)
            t = wia.tensor(data, ctx=src_ctx)
            call = f"copy_peer_to_peer(get_device({src}), get_device({dst}), tensor of {dtype_name})"
            copy = wia.copy_peer_to_peer(wia.get_device(src), wia.get_device(dst), t, ctx=dst_ctx)
            ph.assert_equal(copy.context.device.index, dst, f"{call}.context.device.index")
            ph.assert_equal((copy.shape, np.dtype(copy.dtype)), (data.shape, dtype), f"{call}: (shape, dtype)")
            ph.assert_bytes_equal(copy.numpy(), data, call)
        finally:
            for c in (src_ctx, dst_ctx):
                wia.destroy_context(c)


@pytest.mark.req("R-3.2.1-04", "R-3.4-01")
def test_peer_copy_is_ordered_after_earlier_work() -> None:
    src, dst = _peer_pairs()[0]
    src_ctx, dst_ctx = _contexts(src, dst)
    try:
        data = np.random.default_rng(4).standard_normal(4096).astype(np.float32)
        t = wia.tensor(data, ctx=src_ctx)
        doubled = wia.add(t, t, ctx=src_ctx)  # enqueued, not waited for: the copy must come after it
        copy = wia.copy_peer_to_peer(wia.get_device(src), wia.get_device(dst), doubled, ctx=dst_ctx)
        quadrupled = wia.add(copy, copy, ctx=dst_ctx)  # enqueued after the copy on the destination
        call = f"add(t, t) then copy_peer_to_peer({src} -> {dst}) with no host synchronization"
        ph.assert_bytes_equal(copy.numpy(), data + data, call)
        ph.assert_bytes_equal(quadrupled.numpy(), (data + data) + (data + data), f"{call}, then add(copy, copy)")
    finally:
        for c in (src_ctx, dst_ctx):
            wia.destroy_context(c)


@pytest.mark.req("R-3.2.1-04", "R-3.2.1-02")
def test_peer_copy_follows_peer_info() -> None:
    """Every ordered pair: get_peer_info is a PeerInfo of that pair; a pair without a peer path (or with a device
    that does not claim peer-to-peer) refuses a peer copy with NOT_SUPPORTED."""
    count = wia.get_device_count()
    if count < 2:
        pytest.skip(f"{ph.NOT_SUPPORTED_PREFIX} peer-to-peer needs two devices; the backend has {count}")
    contexts = _contexts(*range(count))
    try:
        for src in range(count):
            t = wia.tensor(np.arange(8, dtype=np.float32), ctx=contexts[src])
            for dst in range(count):
                if dst == src:
                    continue
                devices = (wia.get_device(src), wia.get_device(dst))
                call = f"get_peer_info(get_device({src}), get_device({dst}))"
                info = wia.get_peer_info(*devices)
                ph.assert_isinstance(info, wia.PeerInfo, call)
                ph.assert_equal((info.src_device, info.dst_device), (src, dst), f"{call}: (src_device, dst_device)")
                claimed = all(wia.get_device_capabilities(d).supports_peer_to_peer for d in devices)
                if not (info.supported and claimed):
                    ph.assert_raises_code(wia.ErrorCode.NOT_SUPPORTED, wia.copy_peer_to_peer, *devices, t)
    finally:
        for c in contexts:
            wia.destroy_context(c)
