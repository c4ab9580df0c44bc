"""Every misuse of the API raises the WiaError of the right code, with a message, and leaves no partial state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import wia_hal as wia
from wia_hal.runtime import runtime

E = wia.ErrorCode


def _expect(code: wia.ErrorCode, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> wia.WiaError:
    with pytest.raises(wia.WiaError) as info:
        fn(*args, **kwargs)
    error = info.value
    assert error.code is code, f"{fn.__name__}: got {error.code.name} ({error}), but should be {code.name}"
    assert type(error) is wia.errors.ERROR_CLASSES[code]  # type: ignore[attr-defined]
    assert str(error), "the message must say what was wrong"
    return error


@pytest.fixture
def world() -> dict[str, Any]:
    """A context with a stream, memories of each type, tensors and events; and a destroyed context's objects."""
    ctx = wia.create_context()
    dead = wia.create_context()
    dead_stream = wia.create_stream(dead)
    dead_mem = wia.alloc(dead, 64)
    dead_tensor = wia.tensor(np.ones(4, np.float32), ctx=dead)
    wia.destroy_context(dead)
    other = wia.create_context()
    freed = wia.alloc(ctx, 64)
    wia.free(freed)
    released = wia.tensor(np.ones(4, np.float32), ctx=ctx)
    wia.release_tensor(released)
    destroyed_stream = wia.create_stream(ctx)
    wia.destroy_stream(destroyed_stream)
    destroyed_event = wia.create_event()
    wia.destroy_event(destroyed_event)
    profiled = wia.create_context(wia.ContextConfig(enable_profiling=True))
    prof = wia.begin_profiling(profiled)
    wia.end_profiling(prof)
    dead_prof = wia.begin_profiling(profiled)
    wia.destroy_profiler(dead_prof)
    return {
        "prof": prof,
        "ended_prof": prof,
        "dead_prof": dead_prof,
        "ctx": ctx,
        "dead": dead,
        "dead_stream": dead_stream,
        "dead_mem": dead_mem,
        "dead_tensor": dead_tensor,
        "other": other,
        "other_stream": wia.create_stream(other),
        "other_mem": wia.alloc(other, 64),
        "other_tensor": wia.tensor(np.ones(4, np.float32), ctx=other),
        "stream": wia.create_stream(ctx),
        "mem": wia.alloc(ctx, 64),
        "host": wia.alloc(ctx, 64, wia.MemoryType.HOST),
        "freed": freed,
        "t": wia.tensor(np.ones(4, np.float32), ctx=ctx),
        "t16": wia.tensor(np.ones(4, np.float16), ctx=ctx),
        "t3": wia.tensor(np.ones(3, np.float32), ctx=ctx),
        "host_t": wia.tensor(np.ones(4, np.float32), ctx=ctx, memory=wia.MemoryType.HOST),
        "released": released,
        "destroyed_stream": destroyed_stream,
        "destroyed_event": destroyed_event,
        "event": wia.create_event(),
    }


CASES: list[tuple[str, wia.ErrorCode, Callable[[dict[str, Any]], Any]]] = [
    # 3.2 discovery
    ("device index past the count", E.INVALID_DEVICE, lambda w: wia.get_device(wia.get_device_count())),
    ("negative device index", E.INVALID_DEVICE, lambda w: wia.get_device(-1)),
    ("device index of the wrong type", E.INVALID_DEVICE, lambda w: wia.get_device("0")),
    ("bool as device index", E.INVALID_DEVICE, lambda w: wia.get_device(True)),
    ("info of a non-device", E.INVALID_DEVICE, lambda w: wia.get_device_info(0)),
    ("capabilities of a non-device", E.INVALID_DEVICE, lambda w: wia.get_device_capabilities(None)),
    ("device_type_to_string of a non-type", E.INVALID_VALUE, lambda w: wia.device_type_to_string(99)),
    # 3.3 contexts
    ("config of the wrong type", E.INVALID_VALUE, lambda w: wia.create_context({"device_id": 0})),
    ("negative device_id", E.INVALID_VALUE, lambda w: wia.ContextConfig(device_id=-1)),
    ("unknown config key", E.INVALID_VALUE, lambda w: wia.ContextConfig(devices=2)),
    ("max_streams zero", E.INVALID_VALUE, lambda w: wia.ContextConfig(max_streams=0)),
    (
        "max_streams past the device",
        E.INVALID_VALUE,
        lambda w: wia.create_context(wia.ContextConfig(max_streams=10**6)),
    ),
    ("string memory_pool_size", E.INVALID_VALUE, lambda w: wia.ContextConfig(memory_pool_size="1GB")),
    (
        "pool larger than the device",
        E.OUT_OF_MEMORY,
        lambda w: wia.create_context(wia.ContextConfig(memory_pool_size=2**50)),
    ),
    ("negative context flags", E.INVALID_VALUE, lambda w: wia.ContextConfig(flags=-1)),
    ("unknown context flag bit", E.INVALID_VALUE, lambda w: wia.ContextConfig(flags=2)),
    ("profiling a context that did not enable it", E.INVALID_VALUE, lambda w: wia.begin_profiling(w["ctx"])),
    ("a profiler config of the wrong type", E.INVALID_VALUE, lambda w: wia.enable_profiling(w["ctx"], {})),
    ("a report of a non-profiler", E.INVALID_VALUE, lambda w: wia.get_profile_report(w["ctx"])),
    ("saving a profile in an unknown format", E.INVALID_VALUE, lambda w: wia.save_profile(w["prof"], "/tmp/x", 7)),
    ("ending a profiler twice", E.INVALID_VALUE, lambda w: wia.end_profiling(w["ended_prof"])),
    ("using a destroyed profiler", E.INVALID_VALUE, lambda w: wia.get_profile_report(w["dead_prof"])),
    ("a stream scope of a non-stream", E.INVALID_VALUE, lambda w: wia.use_stream(w["ctx"])),
    ("unknown device", E.INVALID_DEVICE, lambda w: wia.create_context(wia.ContextConfig(device_id=7))),
    ("destroy twice", E.INVALID_CONTEXT, lambda w: wia.destroy_context(w["dead"])),
    ("destroy a non-context", E.INVALID_CONTEXT, lambda w: wia.destroy_context("ctx")),
    ("stream on a destroyed context", E.INVALID_CONTEXT, lambda w: wia.create_stream(w["dead"])),
    ("alloc on a destroyed context", E.INVALID_CONTEXT, lambda w: wia.alloc(w["dead"], 64)),
    ("limit on a destroyed context", E.INVALID_CONTEXT, lambda w: wia.context_set_memory_limit(w["dead"], 64)),
    ("zero memory limit", E.INVALID_VALUE, lambda w: wia.context_set_memory_limit(w["ctx"], 0)),
    ("float memory limit", E.INVALID_VALUE, lambda w: wia.context_set_memory_limit(w["ctx"], 1.5)),
    ("negative timeout", E.INVALID_VALUE, lambda w: wia.context_set_timeout(w["ctx"], -1)),
    ("zero timeout", E.INVALID_VALUE, lambda w: wia.set_timeout(w["ctx"], 0)),
    ("compute_in_context with a non-callable", E.INVALID_VALUE, lambda w: wia.compute_in_context(w["ctx"], 3)),
    (
        "compute_in_context on a destroyed context",
        E.INVALID_CONTEXT,
        lambda w: wia.compute_in_context(w["dead"], print),
    ),
    ("synchronize a destroyed context", E.INVALID_CONTEXT, lambda w: wia.context_synchronize(w["dead"])),
    # 3.4 streams and events
    ("stream flags out of range", E.INVALID_VALUE, lambda w: wia.create_stream(w["ctx"], 8)),
    ("synchronize a non-stream", E.INVALID_VALUE, lambda w: wia.stream_synchronize(w["ctx"])),
    ("synchronize a destroyed stream", E.INVALID_VALUE, lambda w: wia.stream_synchronize(w["destroyed_stream"])),
    ("stream of a destroyed context", E.INVALID_CONTEXT, lambda w: wia.stream_synchronize(w["dead_stream"])),
    ("destroy the default stream", E.INVALID_VALUE, lambda w: wia.destroy_stream(w["ctx"].default_stream)),
    ("record into a destroyed stream", E.INVALID_VALUE, lambda w: wia.event_record(w["event"], w["destroyed_stream"])),
    ("record a destroyed event", E.INVALID_VALUE, lambda w: wia.event_record(w["destroyed_event"], w["stream"])),
    ("query a non-event", E.INVALID_VALUE, lambda w: wia.event_query(w["stream"])),
    ("elapsed of unrecorded events", E.INVALID_VALUE, lambda w: wia.event_elapsed_time(w["event"], w["event"])),
    ("wait on a destroyed event", E.INVALID_VALUE, lambda w: wia.stream_wait_event(w["stream"], w["destroyed_event"])),
    ("streams of two contexts", E.INVALID_CONTEXT, lambda w: wia.stream_wait_stream(w["stream"], w["other_stream"])),
    # 3.5.1 memory
    ("alloc size 0", E.INVALID_VALUE, lambda w: wia.alloc(w["ctx"], 0)),
    ("alloc negative size", E.INVALID_VALUE, lambda w: wia.alloc(w["ctx"], -64)),
    ("alloc float size", E.INVALID_VALUE, lambda w: wia.alloc(w["ctx"], 64.0)),
    ("alloc unknown memory type", E.INVALID_VALUE, lambda w: wia.alloc(w["ctx"], 64, 9)),
    ("alloc memory type by name", E.INVALID_VALUE, lambda w: wia.alloc(w["ctx"], 64, "DEVICE")),
    ("alloc larger than the device", E.OUT_OF_MEMORY, lambda w: wia.alloc(w["ctx"], 2**40)),
    ("double free", E.INVALID_MEMORY, lambda w: wia.free(w["freed"])),
    ("free memory of a destroyed context", E.INVALID_MEMORY, lambda w: wia.free(w["dead_mem"])),
    ("free a non-memory", E.INVALID_VALUE, lambda w: wia.free(b"bytes")),
    ("memory_ptr of DEVICE memory", E.INVALID_VALUE, lambda w: wia.memory_ptr(w["mem"])),
    ("memory_ptr after free", E.INVALID_MEMORY, lambda w: wia.memory_ptr(w["freed"])),
    ("copy from freed memory", E.INVALID_MEMORY, lambda w: wia.copy_async(w["freed"], w["mem"], 8)),
    ("copy into another context's memory", E.INVALID_MEMORY, lambda w: wia.copy_async(w["mem"], w["other_mem"], 8)),
    ("copy size 0", E.INVALID_VALUE, lambda w: wia.copy_async(w["mem"], w["host"], 0)),
    ("copy past the end", E.INVALID_VALUE, lambda w: wia.copy_async(w["mem"], w["host"], 65)),
    (
        "copy with an offset past the end",
        E.INVALID_VALUE,
        lambda w: wia.copy_async(w["mem"], w["host"], 8, dst_offset=60),
    ),
    ("copy with a negative offset", E.INVALID_VALUE, lambda w: wia.copy_async(w["mem"], w["host"], 8, src_offset=-1)),
    (
        "copy on another context's stream",
        E.INVALID_CONTEXT,
        lambda w: wia.copy_async(w["mem"], w["host"], 8, w["other_stream"]),
    ),
    (
        "copy on a destroyed stream",
        E.INVALID_VALUE,
        lambda w: wia.copy_async(w["mem"], w["host"], 8, w["destroyed_stream"]),
    ),
    ("copy from a tensor, not memory", E.INVALID_VALUE, lambda w: wia.copy_async(w["t"], w["host"], 8)),
    # 3.7 tensors and ops
    ("add of a list", E.INVALID_VALUE, lambda w: wia.add([1, 2], w["t"])),
    ("add of a numpy array", E.INVALID_VALUE, lambda w: wia.add(w["t"], np.ones(4, np.float32))),
    ("add with a missing operand", E.INVALID_VALUE, lambda w: wia.add(w["t"])),
    ("add of two dtypes", E.INVALID_VALUE, lambda w: wia.add(w["t"], w["t16"])),
    ("mul of shapes that do not broadcast", E.INVALID_VALUE, lambda w: wia.mul(w["t"], w["t3"])),
    ("relu of a released tensor", E.INVALID_VALUE, lambda w: wia.relu(w["released"])),
    ("numpy of a released tensor", E.INVALID_VALUE, lambda w: w["released"].numpy()),
    ("release twice", E.INVALID_VALUE, lambda w: wia.release_tensor(w["released"])),
    ("tensor of a destroyed context", E.INVALID_CONTEXT, lambda w: wia.relu(w["dead_tensor"])),
    ("tensors of two contexts", E.INVALID_MEMORY, lambda w: wia.add(w["t"], w["other_tensor"])),
    (
        "op with another context's stream",
        E.INVALID_CONTEXT,
        lambda w: wia.add(w["t"], w["t"], stream=w["other_stream"]),
    ),
    (
        "op with ctx and a stream of another",
        E.INVALID_CONTEXT,
        lambda w: wia.relu(w["t"], ctx=w["other"], stream=w["stream"]),
    ),
    ("op on HOST memory", E.INVALID_MEMORY, lambda w: wia.relu(w["host_t"])),
    ("tensor of an unsupported dtype", E.INVALID_VALUE, lambda w: wia.tensor(np.arange(4))),
    ("tensor with dtype None-like garbage", E.INVALID_VALUE, lambda w: wia.tensor([1.0], dtype="float128")),
    ("tensor of objects", E.INVALID_VALUE, lambda w: wia.tensor([object()])),
    ("tensor of a tensor", E.INVALID_VALUE, lambda w: wia.tensor(w["t"])),
    ("empty with a negative dimension", E.INVALID_VALUE, lambda w: wia.empty((2, -1))),
    ("empty with a float dimension", E.INVALID_VALUE, lambda w: wia.empty((2.5,))),
    ("empty with a string shape", E.INVALID_VALUE, lambda w: wia.empty("2x2")),
    ("zeros larger than the device", E.OUT_OF_MEMORY, lambda w: wia.zeros((2**20, 2**20))),
    ("tensor in a destroyed context", E.INVALID_CONTEXT, lambda w: wia.tensor([1.0], ctx=w["dead"])),
    # 3.9 errors
    ("error string of a non-code", E.INVALID_VALUE, lambda w: wia.get_error_string(99)),
    ("error details of a non-context", E.INVALID_CONTEXT, lambda w: wia.get_error_details("ctx")),
    # backend selection
    ("unknown backend", E.INVALID_VALUE, lambda w: wia.set_backend("cuda-on-a-potato")),
    ("unknown backend option", E.INVALID_VALUE, lambda w: wia.set_backend("sim", hardware="wia-tiny", turbo=True)),
    ("backend with zero devices", E.INVALID_VALUE, lambda w: wia.set_backend("sim", hardware="wia-tiny", devices=0)),
    ("backend numerics not a bool", E.INVALID_VALUE, lambda w: wia.set_backend("sim", numerics="maybe")),
    ("switch backend with live contexts", E.INVALID_VALUE, lambda w: wia.set_backend("sim", hardware="wia-tiny")),
]


@pytest.mark.parametrize(("what", "code", "call"), CASES, ids=[c[0] for c in CASES])
def test_misuse_raises_the_right_code(
    world: dict[str, Any], what: str, code: wia.ErrorCode, call: Callable[[dict[str, Any]], Any]
) -> None:
    ctx = world["ctx"]
    allocated = ctx.bytes_allocated
    live = len(ctx.memories)
    host_memories = [m for m in ctx.memories.values()]
    _expect(code, call, world)
    assert ctx.bytes_allocated == allocated, f"{what}: left memory accounted after the error"
    assert len(ctx.memories) == live, f"{what}: left an allocation behind"
    assert list(ctx.memories.values()) == host_memories


def test_errors_inherit_the_matching_builtin() -> None:
    with pytest.raises(ValueError):
        wia.alloc(None, 0)
    with pytest.raises(IndexError):
        wia.get_device(99)
    with pytest.raises(MemoryError):
        wia.alloc(None, 2**40)


def test_memory_limit_failure_leaves_no_partial_state() -> None:
    ctx = wia.create_context(wia.ContextConfig(default_pool=False))  # each tensor its own allocation
    wia.context_set_memory_limit(ctx, 4096)
    keep = wia.alloc(ctx, 4000)
    backend_heap = wia.get_backend().machine.devices[0].heap  # type: ignore[attr-defined]
    in_use = backend_heap.bytes_in_use
    with pytest.raises(wia.OutOfMemoryError, match="memory limit"):
        wia.tensor(np.ones(64, np.float32), ctx=ctx)
    assert backend_heap.bytes_in_use == in_use
    assert ctx.bytes_allocated == 4000
    wia.free(keep)
    wia.tensor(np.ones(64, np.float32), ctx=ctx)


def test_unknown_backend_lists_the_installed_ones() -> None:
    error = _expect(E.INVALID_VALUE, wia.set_backend, "nope")
    assert "sim" in str(error)


def test_exclusive_context_refuses_others() -> None:
    exclusive = wia.create_context(wia.ContextConfig(flags=wia.ContextFlags.EXCLUSIVE))
    _expect(E.DEVICE_BUSY, wia.create_context)
    _expect(E.DEVICE_BUSY, wia.get_default_context)
    wia.destroy_context(exclusive)
    shared = wia.create_context()
    _expect(E.DEVICE_BUSY, wia.create_context, wia.ContextConfig(flags=wia.ContextFlags.EXCLUSIVE))
    wia.destroy_context(shared)


def test_objects_of_a_replaced_backend_are_invalid() -> None:
    device = wia.get_device(0)
    ctx = wia.create_context()
    wia.destroy_context(ctx)
    wia.set_backend("sim", hardware="wia-tiny")
    _expect(E.INVALID_DEVICE, wia.get_device_info, device)


def test_set_backend_releases_the_implicit_default_context() -> None:
    t = wia.tensor(np.ones(3, np.float32))  # creates the Level-1 default context
    assert runtime().default_context is not None
    wia.set_backend("sim", hardware="wia-tiny")
    assert runtime().default_context is None
    _expect(E.INVALID_CONTEXT, wia.relu, t)
