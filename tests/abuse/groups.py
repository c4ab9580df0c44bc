"""The rule groups of the public API of SPEC 3.2 to 3.10: devices, contexts, streams and events, memory, pools,
tensors and ops, custom kernels, profiling, and host threads.

Each rule makes its calls through ``self.attempt(rule, fn, ...)``; its group's ``CODES`` says which error codes the
rule's calls may raise (its arguments are drawn from everything made so far, dead or alive, of either device, so
most codes a misuse can earn are listed). A valid op's result is checked against a float64 NumPy reference when the
machine knows its inputs' values (``AbuseMachine.expect``) and no race between streams could have changed them.
"""

from __future__ import annotations

import gc
import math
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import ml_dtypes
import numerics_reference as nr
import numpy as np
from hypothesis import strategies as st
from hypothesis.stateful import multiple, rule

import wia_hal as wia
from abuse.core import (
    COUNTS,
    FAILED,
    Codes,
    E,
    Expected,
    RuleFailed,
    RuleGroup,
    abuse_group,
    assert_backend_empty,
    contexts,
    events,
    kernels,
    memories,
    pools,
    profilers,
    streams,
    tensors,
)

V, C, M = E.INVALID_VALUE, E.INVALID_CONTEXT, E.INVALID_MEMORY
OOM, NS = E.OUT_OF_MEMORY, E.NOT_SUPPORTED
USE = frozenset({V, C, M})
"""What using any object may earn: it is not of the right type or was released (INVALID_VALUE), its context is
destroyed or another (INVALID_CONTEXT), its memory is freed or another context's (INVALID_MEMORY)."""
OP = USE | {OOM, NS}
"""An op: misuse of its arguments, no memory for its result, an op, dtype or memory type the device lacks."""
LEVEL1 = frozenset({E.DEVICE_BUSY})
"""A call that names no context opens the Level-1 default context on device 0, which an exclusive context may hold."""


def failed(*results: Any) -> bool:
    """Whether any of the calls was refused (``is``: results may be arrays, whose ``==`` is element-wise)."""
    return any(r is FAILED for r in results)


def codes(*items: E | frozenset[E]) -> frozenset[E]:
    out: set[E] = set()
    for item in items:
        out |= item if isinstance(item, frozenset) else {item}
    return frozenset(out)


def out(result: Any) -> Any:
    """A rule's value for its bundle: nothing when the call was refused."""
    return multiple() if result is FAILED else result


def _stream_or_default(t: wia.Tensor, stream: wia.Stream | None) -> wia.Stream | None:
    if stream is not None:
        return stream
    ctx = t.memory.context
    return None if ctx.destroyed else ctx.default_stream


def _live_stream(stream: wia.Stream) -> bool:
    return not (stream.destroyed or stream.context.destroyed)


def _live_tensor(t: wia.Tensor) -> bool:
    """Not released, its memory (its base's, for a view) not freed, its context alive."""
    base = t.base
    gone = base is not None and base.released
    return not (t.released or gone or t.memory.freed or t.memory.context.destroyed)


# -- devices -----------------------------------------------------------------------------------------------------------


@abuse_group
class DeviceRules(RuleGroup):
    CODES: ClassVar[dict[str, Codes]] = {
        "device_query": codes(E.INVALID_DEVICE),
        "device_type_to_string": codes(V),
    }

    @rule(index=st.one_of(st.integers(-2, 3), st.sampled_from(["0", None, True, 1.0])))
    def device_query(self, index: Any) -> None:
        count = self.attempt("device_query", wia.get_device_count)
        device = self.attempt("device_query", wia.get_device, index)
        if device is FAILED:
            assert not (isinstance(index, int) and not isinstance(index, bool) and 0 <= index < count), index
            return
        info = self.attempt("device_query", wia.get_device_info, device)
        caps = self.attempt("device_query", wia.get_device_capabilities, device)
        assert info.memory_size > 0 and caps.max_streams >= 1
        self.attempt("device_query", wia.device_type_to_string, info.type)

    @rule(value=st.one_of(st.integers(-1, 8), st.just("GPU")))
    def device_type_to_string(self, value: Any) -> None:
        self.attempt("device_type_to_string", wia.device_type_to_string, value)


# -- contexts ----------------------------------------------------------------------------------------------------------


@abuse_group
class ContextRules(RuleGroup):
    CODES: ClassVar[dict[str, Codes]] = {
        "create_context": codes(V, E.INVALID_DEVICE, E.DEVICE_BUSY, OOM, NS),
        "default_context": codes(E.DEVICE_BUSY),
        "destroy_context": codes(C),
        "context_set_memory_limit": codes(C, V),
        "context_set_timeout": codes(C, V),
        "context_synchronize": codes(LEVEL1, C),
        "compute_in_context": OP,
        "get_error_details": codes(C),
        "switch_backend": codes(V),
    }

    @rule(
        target=contexts,
        device_id=st.integers(-1, 2),
        exclusive=st.booleans(),
        max_streams=st.sampled_from([None, 1, 2, 0, 10**6]),
        pool_size=st.sampled_from([0, 4096, 1 << 40]),
        default_pool=st.booleans(),
        profiling=st.booleans(),
    )
    def create_context(
        self,
        device_id: int,
        exclusive: bool,
        max_streams: int | None,
        pool_size: int,
        default_pool: bool,
        profiling: bool,
    ) -> Any:
        def make() -> wia.Context:
            config = wia.ContextConfig(
                device_id=device_id,
                flags=wia.ContextFlags.EXCLUSIVE if exclusive else wia.ContextFlags.NONE,
                max_streams=max_streams,
                memory_pool_size=pool_size,
                default_pool=default_pool,
                enable_profiling=profiling,
            )
            return wia.create_context(config)

        return out(self.attempt("create_context", make))

    @rule(target=contexts)
    def default_context(self) -> Any:
        return out(self.attempt("default_context", wia.get_default_context))

    @rule(ctx=contexts)
    def destroy_context(self, ctx: wia.Context) -> None:
        self.attempt("destroy_context", wia.destroy_context, ctx, waits=True, valid=not ctx.destroyed)

    @rule(ctx=contexts, nbytes=st.sampled_from([-1, 0, 1.5, 64, 4096, 1 << 20]))
    def context_set_memory_limit(self, ctx: wia.Context, nbytes: Any) -> None:
        self.attempt("context_set_memory_limit", wia.context_set_memory_limit, ctx, nbytes)

    @rule(ctx=contexts, ms=st.sampled_from([-1.0, 0, 1e-6, 0.01, 50.0, wia.TIMEOUT_INFINITE, True]))
    def context_set_timeout(self, ctx: wia.Context, ms: Any) -> None:
        if self.attempt("context_set_timeout", wia.context_set_timeout, ctx, ms) is not FAILED:
            self.may_time_out = self.may_time_out or not math.isinf(ms)

    @rule(ctx=st.one_of(st.none(), contexts))
    def context_synchronize(self, ctx: wia.Context | None) -> None:
        if self.attempt("context_synchronize", wia.context_synchronize, ctx, waits=True) is not FAILED:
            self.synced(ctx)

    @rule(ctx=contexts, t=tensors)
    def compute_in_context(self, ctx: wia.Context, t: wia.Tensor) -> None:
        """An op inside compute_in_context (it runs in its tensor's context, ``ctx`` or not)."""
        self.attempt("compute_in_context", wia.compute_in_context, ctx, wia.relu, t, waits=True)

    @rule()
    def switch_backend(self) -> None:
        """``set_backend`` again (refused while a context is alive): what the old backend's objects were is dead,
        and the old backend holds no memory (it released the Level-1 default context)."""
        old = wia.get_backend()
        if self.attempt("switch_backend", wia.set_backend, self.BACKEND, **self.BACKEND_OPTIONS) is not FAILED:
            assert_backend_empty(old)
            self.pending.clear()

    @rule(ctx=st.one_of(st.none(), contexts, st.just("ctx")))
    def get_error_details(self, ctx: Any) -> None:
        details = self.attempt("get_error_details", wia.get_error_details, ctx)
        if details is not FAILED:
            assert details.code is not E.INTERNAL


# -- streams and events ------------------------------------------------------------------------------------------------


@abuse_group
class StreamRules(RuleGroup):
    CODES: ClassVar[dict[str, Codes]] = {
        "create_stream": codes(LEVEL1, C, V),
        "destroy_stream": codes(C, V),
        "stream_synchronize": codes(C, V),
        "stream_wait_stream": codes(C, V),
        "create_event": codes(),
        "event_record": codes(C, V),
        "stream_wait_event": codes(C, V),
        "event_query": codes(C, V),
        "event_synchronize": codes(C, V),
        "event_elapsed_time": codes(C, V),
        "destroy_event": codes(V),
        "use_stream": OP,
    }

    @rule(target=streams, ctx=st.one_of(st.none(), contexts), flags=st.sampled_from([0, 1, 8, -1]))
    def create_stream(self, ctx: wia.Context | None, flags: int) -> Any:
        return out(self.attempt("create_stream", wia.create_stream, ctx, flags))

    @rule(stream=streams)
    def destroy_stream(self, stream: wia.Stream) -> None:
        valid = _live_stream(stream) and stream is not stream.context.default_stream
        if self.attempt("destroy_stream", wia.destroy_stream, stream, waits=True, valid=valid) is not FAILED:
            self.synced(stream=stream)

    @rule(stream=streams)
    def stream_synchronize(self, stream: wia.Stream) -> None:
        valid = _live_stream(stream)
        if self.attempt("stream_synchronize", wia.stream_synchronize, stream, waits=True, valid=valid) is not FAILED:
            self.synced(stream=stream)

    @rule(waiting=streams, waited=streams)
    def stream_wait_stream(self, waiting: wia.Stream, waited: wia.Stream) -> None:
        self.attempt("stream_wait_stream", wia.stream_wait_stream, waiting, waited)

    @rule(target=events)
    def create_event(self) -> Any:
        return out(self.attempt("create_event", wia.create_event))

    @rule(event=events, stream=streams)
    def event_record(self, event: wia.Event, stream: wia.Stream) -> None:
        self.attempt("event_record", wia.event_record, event, stream)

    @rule(stream=streams, event=events)
    def stream_wait_event(self, stream: wia.Stream, event: wia.Event) -> None:
        self.attempt("stream_wait_event", wia.stream_wait_event, stream, event)

    @rule(event=events)
    def event_query(self, event: wia.Event) -> None:
        done = self.attempt("event_query", wia.event_query, event, waits=True)
        assert done is FAILED or isinstance(done, bool)

    @rule(event=events)
    def event_synchronize(self, event: wia.Event) -> None:
        self.attempt("event_synchronize", wia.event_synchronize, event, waits=True)

    @rule(start=events, end=events)
    def event_elapsed_time(self, start: wia.Event, end: wia.Event) -> None:
        ms = self.attempt("event_elapsed_time", wia.event_elapsed_time, start, end, waits=True)
        assert ms is FAILED or (isinstance(ms, float) and math.isfinite(ms)), ms

    @rule(event=events)
    def destroy_event(self, event: wia.Event) -> None:
        self.attempt("destroy_event", wia.destroy_event, event, valid=not event.destroyed)

    @rule(stream=streams, t=tensors)
    def use_stream(self, stream: wia.Stream, t: wia.Tensor) -> None:
        """Level-1 calls in a ``use_stream`` block: the op goes to the block's stream."""

        def scoped() -> wia.Tensor:
            with wia.use_stream(stream):
                return wia.relu(t)

        result = self.attempt("use_stream", scoped, waits=True)
        if result is not FAILED:
            self.produced(result, stream if stream.context is t.memory.context else None)


# -- memory ------------------------------------------------------------------------------------------------------------

MEMORY_TYPES = st.sampled_from([0, 1, 2, 3, 4, 9, "DEVICE"])
SIZES = st.sampled_from([-8, 0, 1, 64, 4096, 1 << 40, 1.0])


@abuse_group
class MemoryRules(RuleGroup):
    CODES: ClassVar[dict[str, Codes]] = {
        "alloc": codes(LEVEL1, C, V, OOM, NS),
        "free": USE,
        "copy_async": USE,
        "memory_prefetch": USE,
        "memory_ptr": codes(USE, NS),
        "copy_roundtrip": codes(C, V, OOM, NS),  # V: the context has its maximum of streams
        "free_tensor_memory": USE,
    }

    @rule(target=memories, ctx=st.one_of(st.none(), contexts), size=SIZES, memory_type=MEMORY_TYPES)
    def alloc(self, ctx: wia.Context | None, size: Any, memory_type: Any) -> Any:
        return out(self.attempt("alloc", wia.alloc, ctx, size, memory_type))

    @rule(mem=memories)
    def free(self, mem: wia.Memory) -> None:
        valid = not (mem.freed or mem.context.destroyed or mem.tensor) and mem.pool is None
        self.attempt("free", wia.free, mem, valid=valid)

    @rule(t=tensors)
    def free_tensor_memory(self, t: wia.Tensor) -> None:
        """A tensor's memory is the tensor's: ``free`` refuses it."""
        result = self.attempt("free_tensor_memory", wia.free, t.memory)
        assert result is FAILED, f"free() released the memory of {t!r}"

    @rule(
        src=memories,
        dst=memories,
        size=st.sampled_from([1, 16, 64, 65, 0, -1]),
        src_offset=st.sampled_from([0, 8, -1]),
        dst_offset=st.sampled_from([0, 32]),
        stream=st.one_of(st.none(), streams),
    )
    def copy_async(
        self, src: wia.Memory, dst: wia.Memory, size: int, src_offset: int, dst_offset: int, stream: Any
    ) -> None:
        self.attempt(
            "copy_async",
            wia.copy_async,
            src,
            dst,
            size,
            stream,
            src_offset=src_offset,
            dst_offset=dst_offset,
            waits=True,
        )

    @rule(mem=memories, to_device=st.sampled_from([True, False, 1]), stream=st.one_of(st.none(), streams))
    def memory_prefetch(self, mem: wia.Memory, to_device: Any, stream: Any) -> None:
        self.attempt("memory_prefetch", wia.memory_prefetch, mem, to_device, stream)

    @rule(mem=memories)
    def memory_ptr(self, mem: wia.Memory) -> None:
        view = self.attempt("memory_ptr", wia.memory_ptr, mem, waits=True)
        if view is not FAILED:
            assert view.dtype == np.uint8 and view.size == mem.size

    @rule(
        ctx=contexts,
        via=st.sampled_from([wia.MemoryType.DEVICE, wia.MemoryType.UNIFIED, wia.MemoryType.MANAGED]),
        host=st.sampled_from([wia.MemoryType.HOST, wia.MemoryType.PINNED]),
        seed=st.integers(0, 2**16),
        use_stream=st.booleans(),
    )
    def copy_roundtrip(
        self, ctx: wia.Context, via: wia.MemoryType, host: wia.MemoryType, seed: int, use_stream: bool
    ) -> None:
        """Host bytes through device-visible memory and back, on a stream of their own: the bytes survive."""
        n = 256
        a = self.attempt("copy_roundtrip", wia.alloc, ctx, n, host)
        b = self.attempt("copy_roundtrip", wia.alloc, ctx, n, host)
        d = self.attempt("copy_roundtrip", wia.alloc, ctx, n, via)
        s = self.attempt("copy_roundtrip", wia.create_stream, ctx) if use_stream else None
        if failed(a, b, d, s):
            return
        view = self.attempt("copy_roundtrip", wia.memory_ptr, a, waits=True)
        data = np.random.default_rng(seed).integers(0, 256, n, dtype=np.uint8)
        if view is not FAILED:
            view[:] = data
        steps = [
            view,
            self.attempt("copy_roundtrip", wia.memory_prefetch, d, True, s),
            self.attempt("copy_roundtrip", wia.copy_async, a, d, n, s, waits=True),
            self.attempt("copy_roundtrip", wia.copy_async, d, b, n, s, waits=True),
            self.attempt("copy_roundtrip", wia.context_synchronize, ctx, waits=True),
        ]
        got = self.attempt("copy_roundtrip", wia.memory_ptr, b, waits=True)
        if not failed(*steps, got):  # (a wait may time out, under a finite timeout)
            np.testing.assert_array_equal(got, data, err_msg=f"{host.name} -> {via.name} -> {host.name} copy")
            COUNTS.values_checked += 1
        for mem in (a, b, d):
            self.attempt("copy_roundtrip", wia.free, mem)
        if s is not None:
            self.attempt("copy_roundtrip", wia.destroy_stream, s)


# -- memory pools ------------------------------------------------------------------------------------------------------


@abuse_group
class PoolRules(RuleGroup):
    CODES: ClassVar[dict[str, Codes]] = {
        "create_memory_pool": codes(LEVEL1, C, V, OOM),
        "configure_pool": codes(C, V, OOM),
        "alloc_from_pool": codes(USE, OOM),
        "free_to_pool": USE,
        "get_pool_stats": USE,
        "memory_gc": codes(LEVEL1, C),
        "destroy_pool": codes(C, V),
        "default_pool": codes(C),
    }

    @rule(
        target=pools,
        ctx=st.one_of(st.none(), contexts),
        initial=st.sampled_from([0, 4096, 1 << 40]),
        block=st.sampled_from([None, 256, 4096]),
        caching=st.booleans(),
    )
    def create_memory_pool(self, ctx: Any, initial: int, block: int | None, caching: bool) -> Any:
        def make() -> wia.MemoryPool:
            fields: dict[str, Any] = {"initial_size": initial, "enable_caching": caching}
            if block is not None:
                fields["block_size"] = block
            return wia.create_memory_pool(ctx, wia.PoolConfig(**fields))

        return out(self.attempt("create_memory_pool", make))

    @rule(target=pools, ctx=contexts)
    def default_pool(self, ctx: wia.Context) -> Any:
        """The context's own pool (the one its tensors use) in the bundle: user blocks and tensors share it."""
        if ctx.destroyed or ctx.default_pool is None:
            return multiple()
        return ctx.default_pool

    @rule(pool=pools, max_size=st.sampled_from([0, 1024, 1 << 20]), threshold=st.sampled_from([0.5, 2.0]))
    def configure_pool(self, pool: wia.MemoryPool, max_size: int, threshold: float) -> None:
        def configure() -> None:
            wia.configure_pool(pool, wia.PoolConfig(max_size=max_size, defragment_threshold=threshold))

        self.attempt("configure_pool", configure)

    @rule(target=memories, pool=pools, size=st.sampled_from([1, 100, 4096, 1 << 30, 0, -1]))
    def alloc_from_pool(self, pool: wia.MemoryPool, size: int) -> Any:
        return out(self.attempt("alloc_from_pool", wia.alloc_from_pool, pool, size))

    @rule(pool=pools, mem=memories)
    def free_to_pool(self, pool: wia.MemoryPool, mem: wia.Memory) -> None:
        valid = mem.pool is pool and not (mem.freed or pool.destroyed or pool.context.destroyed)
        self.attempt("free_to_pool", wia.free_to_pool, pool, mem, valid=valid)

    @rule(pool=pools)
    def get_pool_stats(self, pool: wia.MemoryPool) -> None:
        stats = self.attempt("get_pool_stats", wia.get_pool_stats, pool)
        if stats is not FAILED:
            assert stats.model_dump() and all(
                v >= 0 for v in stats.model_dump().values() if isinstance(v, (int, float))
            ), stats

    @rule(ctx=st.one_of(st.none(), contexts))
    def memory_gc(self, ctx: Any) -> None:
        released = self.attempt("memory_gc", wia.memory_gc, ctx)
        assert released is FAILED or (isinstance(released, int) and released >= 0), released

    @rule(pool=pools)
    def destroy_pool(self, pool: wia.MemoryPool) -> None:
        valid = not (pool.destroyed or pool.context.destroyed)
        self.attempt("destroy_pool", wia.destroy_pool, pool, waits=True, valid=valid)


# -- tensors and ops ---------------------------------------------------------------------------------------------------

SHAPES = [(4,), (2, 4), (4, 4), (4, 2), (2, 2, 4), (4, 1), (), (0,), (2, 3, 4, 4)]
DTYPES = {
    "float32": np.float32,
    "float16": np.float16,
    "int32": np.int32,
    "bfloat16": ml_dtypes.bfloat16,
    "int8": np.int8,
    "float64": np.float64,
}
EXACT_BELOW = {
    "float32": 2.0**24,
    "float16": 2.0**11,
    "bfloat16": 2.0**8,
    "float64": 2.0**53,
    "int32": 2.0**31,
    "int8": 128.0,
}
"""Integers of magnitude below this are exact in the dtype (its mantissa, or its range for ints)."""


def _exact(value: np.ndarray, dtype: np.dtype) -> np.ndarray | None:
    """``value`` when every element is an integer the dtype holds exactly, else None (the machine stops predicting)."""
    limit = EXACT_BELOW.get(np.dtype(dtype).name)
    if limit is None or value.size == 0:
        return value if limit is not None else None
    finite = np.isfinite(value).all()
    return value if finite and np.abs(value).max() < limit and (value == np.round(value)).all() else None


@abuse_group
class TensorRules(RuleGroup):
    CODES: ClassVar[dict[str, Codes]] = {
        "make_tensor": codes(LEVEL1, OP, E.INVALID_MEMORY),
        "release_tensor": USE,
        "binary_op": OP,
        "unary_op": OP,
        "reduction": OP,
        "matmul": OP,
        "layout": OP,
        "concat": OP,
        "nn_op": OP,
        "op_chain": OP,
        "read_tensor": codes(USE, NS),
        "explain": codes(USE, NS),
    }

    @rule(
        target=tensors,
        ctx=st.one_of(st.none(), contexts),
        shape=st.sampled_from(SHAPES),
        dtype=st.sampled_from(list(DTYPES)),
        memory=st.sampled_from([0, 0, 0, 1, 3, 4, 7]),
        how=st.sampled_from(["tensor", "tensor", "zeros", "empty", "device", "unified"]),
        pool=st.one_of(st.none(), pools),
        stream=st.one_of(st.none(), streams),
        seed=st.integers(0, 2**16),
    )
    def make_tensor(
        self, ctx: Any, shape: tuple[int, ...], dtype: str, memory: int, how: str, pool: Any, stream: Any, seed: int
    ) -> Any:
        data = np.random.default_rng(seed).integers(-3, 4, shape).astype(DTYPES[dtype])
        wia_dtype = getattr(wia, dtype)
        kwargs: dict[str, Any] = {"ctx": ctx}
        if how in ("tensor", "zeros", "empty"):
            kwargs |= {"memory": memory, "pool": pool}
        if how in ("tensor", "zeros"):
            kwargs["stream"] = stream
        makers: dict[str, Callable[..., wia.Tensor]] = {
            "tensor": lambda **kw: wia.tensor(data, dtype=wia_dtype, **kw),
            "zeros": lambda **kw: wia.zeros(shape, wia_dtype, **kw),
            "empty": lambda **kw: wia.empty(shape, wia_dtype, **kw),
            "device": lambda **kw: wia.create_tensor_device(shape, wia_dtype, **kw),
            "unified": lambda **kw: wia.create_tensor_unified(shape, wia_dtype, **kw),
        }
        t = self.attempt("make_tensor", makers[how], waits=True, **kwargs)
        if t is FAILED:
            return multiple()
        assert t.shape == shape and t.dtype == np.dtype(DTYPES[dtype]), (t, shape, dtype)
        if how == "tensor":
            self.expect(t, data.astype(np.float64))
        elif how == "zeros":
            self.expect(t, np.zeros(shape))
            self.produced(t, stream if stream is not None else t.memory.context.default_stream)
        return t

    @rule(t=tensors)
    def release_tensor(self, t: wia.Tensor) -> None:
        self.attempt("release_tensor", wia.release_tensor, t, valid=_live_tensor(t))

    def _inputs_known(self, inputs: list[wia.Tensor], stream: wia.Stream | None) -> list[np.ndarray] | None:
        """The inputs' exact values, if known and not racing with ``stream`` (the op's stream)."""
        values = []
        for t in inputs:
            expected = self.expected_of(t)
            if expected is None or not np.all(expected.bound == 0) or stream is None or self.racy(t, stream):
                return None
            values.append(expected.value)
        return values

    def _result(
        self, rule_name: str, result: Any, inputs: list[wia.Tensor], stream: Any, ref: Callable[..., Any]
    ) -> Any:
        """Record ``result``'s expected value (``ref`` of the inputs' values: an array, or (array, bound))."""
        if result is FAILED:
            return multiple()
        used = _stream_or_default(inputs[0], stream) if inputs else None
        self.produced(result, used)
        if not inputs:
            return result
        values = self._inputs_known(inputs, used)
        if values is None:
            return result
        try:
            computed = ref(*values)
        except ValueError:  # NumPy refuses what the HAL accepted: compare nothing, the shape check below is enough
            return result
        value, bound = computed if isinstance(computed, tuple) else (computed, 0.0)
        value = np.asarray(value, np.float64)
        assert result.shape == value.shape, f"{rule_name}: result shape {result.shape}, NumPy's {value.shape}"
        if isinstance(bound, float) and bound == 0.0:
            exact = _exact(value, result.dtype)
            if exact is not None:
                self.expect(result, exact)
        else:
            self.expect(result, value, bound)
        return result

    @rule(
        target=tensors, a=tensors, b=tensors, op=st.sampled_from(["add", "mul"]), stream=st.one_of(st.none(), streams)
    )
    def binary_op(self, a: wia.Tensor, b: wia.Tensor, op: str, stream: Any) -> Any:
        result = self.attempt("binary_op", getattr(wia, op), a, b, stream=stream, waits=True)
        return self._result("binary_op", result, [a, b], stream, np.add if op == "add" else np.multiply)

    @rule(
        target=tensors,
        a=tensors,
        op=st.sampled_from(["relu", "sigmoid", "gelu", "softmax"]),
        stream=st.one_of(st.none(), streams),
    )
    def unary_op(self, a: wia.Tensor, op: str, stream: Any) -> Any:
        result = self.attempt("unary_op", getattr(wia, op), a, stream=stream, waits=True)
        if result is FAILED:
            return multiple()
        name = result.dtype.name
        if op != "relu" and name not in nr.EPS:
            return self._result("unary_op", result, [], stream, np.negative)  # not predicted

        def reference(x: np.ndarray) -> Any:
            if op == "relu":
                return np.maximum(x, 0.0)
            if op == "sigmoid":
                ref = nr.sigmoid(x)
                return ref, nr.elementwise_bound(ref, name)
            if op == "gelu":
                ref = nr.gelu(x)
                return ref, nr.elementwise_bound(ref, name, condition=nr.gelu_condition(x))
            ref = nr.softmax(x, -1) if x.ndim else np.ones(())
            return ref, (nr.softmax_bound(ref, x, -1, name) if x.ndim else np.zeros(()))

        return self._result("unary_op", result, [a], stream, reference)

    @rule(
        target=tensors,
        a=tensors,
        op=st.sampled_from(["sum", "max"]),
        axis=st.sampled_from([None, 0, -1, 1, 5, (0, 1)]),
        keepdims=st.booleans(),
        stream=st.one_of(st.none(), streams),
    )
    def reduction(self, a: wia.Tensor, op: str, axis: Any, keepdims: bool, stream: Any) -> Any:
        result = self.attempt("reduction", getattr(wia, op), a, axis, keepdims=keepdims, stream=stream, waits=True)
        fn = np.sum if op == "sum" else np.max
        return self._result("reduction", result, [a], stream, lambda x: fn(x, axis=axis, keepdims=keepdims))

    @rule(
        target=tensors,
        a=tensors,
        b=tensors,
        how=st.sampled_from(["matmul", "batch_matmul", "optimized"]),
        algorithm=st.sampled_from(list(wia.MatmulAlgorithm)),
        precision=st.sampled_from([None, *wia.Precision]),
        stream=st.one_of(st.none(), streams),
    )
    def matmul(
        self, a: wia.Tensor, b: wia.Tensor, how: str, algorithm: wia.MatmulAlgorithm, precision: Any, stream: Any
    ) -> Any:
        if how == "optimized":
            config = wia.MatmulConfig(algorithm=algorithm, precision=precision)
            result = self.attempt("matmul", wia.matmul_optimized, a, b, config, stream=stream, waits=True)
            if precision not in (None, wia.Precision.FP32):  # rounded inputs: not predicted
                return out(self._result("matmul", result, [], stream, np.matmul))
        else:
            result = self.attempt("matmul", getattr(wia, how), a, b, stream=stream, waits=True)
        return self._result("matmul", result, [a, b], stream, np.matmul)

    @rule(
        target=tensors,
        a=tensors,
        op=st.sampled_from(["reshape", "transpose", "slice"]),
        arg=st.sampled_from([(-1,), (4, -1), (2, 2, -1), (16,), (-1, -1), (1, 0), None, (0,), (0, 1)]),
        end=st.sampled_from([(2,), (1, 3), (9, 9), (0,)]),
        stream=st.one_of(st.none(), streams),
    )
    def layout(self, a: wia.Tensor, op: str, arg: Any, end: Any, stream: Any) -> Any:
        if op == "reshape":
            result = self.attempt("layout", wia.reshape, a, arg if arg is not None else a.shape, stream=stream)
            return self._result("layout", result, [a], stream, lambda x: x.reshape(arg if arg is not None else x.shape))
        if op == "transpose":
            result = self.attempt("layout", wia.transpose, a, arg, stream=stream)
            return self._result("layout", result, [a], stream, lambda x: np.transpose(x, arg))
        start = arg if arg is not None and all(v >= 0 for v in arg) else (0,)
        result = self.attempt("layout", wia.slice, a, start, end, stream=stream)

        def sliced(x: np.ndarray) -> np.ndarray:
            index = tuple(builtin_slice(lo, hi) for lo, hi in zip(start, end, strict=True))
            return x[index]

        return self._result("layout", result, [a], stream, sliced)

    @rule(target=tensors, parts=st.lists(tensors, min_size=1, max_size=3), axis=st.sampled_from([0, 1, -1, 3]))
    def concat(self, parts: list[wia.Tensor], axis: int) -> Any:
        result = self.attempt("concat", wia.concat, parts, axis, waits=True)
        return self._result("concat", result, parts, None, lambda *xs: np.concatenate(xs, axis))

    @rule(
        ctx=contexts,
        op=st.sampled_from(["conv2d", "pool2d_max", "pool2d_avg", "batch_norm"]),
        dtype=st.sampled_from(["float32", "float16"]),
        padding=st.sampled_from([0, 1]),
        stride=st.sampled_from([1, 2]),
        seed=st.integers(0, 2**16),
    )
    def nn_op(self, ctx: wia.Context, op: str, dtype: str, padding: int, stride: int, seed: int) -> None:
        """A valid NCHW op on fresh inputs, checked against its float64 reference, then released."""
        rng = np.random.default_rng(seed)
        np_dtype = DTYPES[dtype]
        x_data = rng.integers(-2, 3, (1, 2, 5, 5)).astype(np_dtype)
        x = self.attempt("nn_op", wia.tensor, x_data, ctx=ctx, waits=True)
        if x is FAILED:
            return
        made = [x]
        bound: Any
        if op == "conv2d":
            w_data = rng.integers(-2, 3, (3, 2, 3, 3)).astype(np_dtype)
            w = self.attempt("nn_op", wia.tensor, w_data, ctx=ctx, waits=True)
            made.append(w)
            conv = wia.ConvConfig(padding=padding, stride=stride)
            y = FAILED if w is FAILED else self.attempt("nn_op", wia.conv2d, x, w, conv, waits=True)
            ref, bound = nr.conv2d(x_data, w_data, padding=(padding,) * 2, stride=(stride,) * 2), 0.0
        elif op.startswith("pool2d"):
            kind = wia.PoolType.MAX if op == "pool2d_max" else wia.PoolType.AVG
            pooling = wia.PoolConfig(type=kind, kernel_size=2, stride=stride, padding=padding % 2)
            y = self.attempt("nn_op", wia.pool2d, x, pooling, waits=True)
            ref = nr.pool2d(x_data, kind.name, (2, 2), (stride, stride), (padding % 2,) * 2)
            largest = float(np.abs(x_data.astype(np.float64)).max())  # bounds every window's mean of |x|
            window_terms = 5 * nr.eps(nr.compute_type(dtype)) * largest  # (window + 1) roundings, as test_ops_library
            bound = nr.eps(dtype) * np.abs(ref) + window_terms + 2 * nr.tiny(dtype)
        else:
            params = [rng.integers(1, 3, 2).astype(np_dtype) for _ in range(4)]
            ps = [self.attempt("nn_op", wia.tensor, p, ctx=ctx, waits=True) for p in params]
            made += ps
            y = FAILED if failed(*ps) else self.attempt("nn_op", wia.batch_norm, x, *ps, waits=True)
            ref, magnitude = nr.batch_norm(x_data, params[0], params[1], params[2], params[3], 1e-5)
            ct = nr.compute_type(dtype)  # the bound of test_ops_library's batch_norm test
            bound = nr.eps(dtype) * np.abs(ref) + 4 * nr.eps(ct) * magnitude + 2 * nr.tiny(dtype)
        if y is not FAILED:
            made.append(y)
            got = self.attempt("nn_op", y.numpy, waits=True)
            if got is not FAILED:
                self.synced(ctx)
                nr.assert_within(got, ref, np.broadcast_to(bound, np.shape(ref)), f"{op} {dtype}")
                COUNTS.values_checked += 1
        for t in made:
            if t is not FAILED:
                self.attempt("nn_op", wia.release_tensor, t)

    @rule(
        ctx=contexts,
        first=st.one_of(st.none(), streams),
        second=st.one_of(st.none(), streams),
        dtype=st.sampled_from(["float32", "float16", "int8"]),
        seed=st.integers(0, 2**16),
    )
    def op_chain(self, ctx: wia.Context, first: Any, second: Any, dtype: str, seed: int) -> None:
        """A correct program across two streams: a matmul on ``first``; its input released at once and the memory
        (reused by the pool) filled on ``second``; the work handed to ``second`` by an event; the results exact."""
        rng = np.random.default_rng(seed)
        a_data, b_data = (rng.integers(-3, 4, (4, 4)).astype(DTYPES[dtype]) for _ in range(2))
        a = self.attempt("op_chain", wia.tensor, a_data, ctx=ctx, waits=True)
        b = self.attempt("op_chain", wia.tensor, b_data, ctx=ctx, waits=True)
        if failed(a, b):
            return
        wide = a_data.astype(np.float64) @ b_data.astype(np.float64)
        c = self.attempt("op_chain", wia.matmul, a, b, stream=first, waits=True)
        self.attempt("op_chain", wia.release_tensor, a)
        z = self.attempt("op_chain", wia.zeros, (4, 4), c.dtype if c is not FAILED else dtype, ctx=ctx, stream=second)
        event = self.attempt("op_chain", wia.create_event)
        handed = [
            c,
            z,
            self.attempt("op_chain", wia.event_record, event, first or ctx.default_stream),
            self.attempt("op_chain", wia.stream_wait_event, second or ctx.default_stream, event),
        ]
        if failed(*handed):
            return
        d = self.attempt("op_chain", wia.add, c, z, stream=second, waits=True)
        e = self.attempt("op_chain", wia.relu, d, stream=second, waits=True) if d is not FAILED else FAILED
        f = self.attempt("op_chain", wia.sum, e, 0, stream=second, waits=True) if e is not FAILED else FAILED
        for t, ref in ((c, wide), (f, np.maximum(wide, 0).sum(axis=0))):
            got = self.attempt("op_chain", t.numpy, waits=True) if t is not FAILED else FAILED
            if got is not FAILED:
                self.synced(ctx)
                nr.assert_exact(got.astype(np.float64), ref, f"op_chain {dtype} on {first} then {second}")
                COUNTS.values_checked += 1
        for t in (b, c, z, d, e, f):
            if t is not FAILED:
                self.attempt("op_chain", wia.release_tensor, t)
        self.attempt("op_chain", wia.destroy_event, event)

    @rule(t=tensors)
    def read_tensor(self, t: wia.Tensor) -> None:
        """``numpy()`` of any tensor; of one whose value the machine knows, the value."""
        got = self.attempt("read_tensor", t.numpy, waits=True)
        if got is FAILED:
            return
        self.synced(t.memory.context)
        assert got.shape == t.shape and got.dtype == t.dtype, (got.shape, got.dtype, t)
        expected = self.expected_of(t)
        if expected is not None:
            bound = np.broadcast_to(np.asarray(expected.bound, np.float64), expected.value.shape)
            nr.assert_within(got.astype(np.float64), expected.value, bound, f"numpy() of {t!r}")
            COUNTS.values_checked += 1

    @rule(t=tensors)
    def explain(self, t: wia.Tensor) -> None:
        self.attempt("explain", wia.explain, t, waits=True)


builtin_slice = slice


# -- custom kernels ----------------------------------------------------------------------------------------------------

KERNEL_SOURCES = {
    "fill": "__kernel void fill(__global float* a, float s, int n) {\n"
    "  int i = get_global_id(0);\n  if (i < n) a[i] = s * i;\n}",
    "oob": "__kernel void oob(__global float* a, float s, int n) {\n"
    "  int i = get_global_id(0);\n  a[i + n] = s;\n}",  # faulty: writes past the buffer
    "spin": "__kernel void spin(__global float* a, float s, int n) {\n"
    "  int v = 1;\n  while (v != 0) { a[0] = s; }\n}",  # faulty: never ends
    "broken": "__kernel void broken(__global float* a) {\n  a[0] = undefined_name;\n}",
}
FAULTY = {"oob", "spin"}


@abuse_group
class KernelRules(RuleGroup):
    CODES: ClassVar[dict[str, Codes]] = {
        "compile_kernel": codes(LEVEL1, C, V, NS, E.COMPILE_ERROR, E.INVALID_KERNEL),
        "launch_kernel": codes(USE, E.INVALID_KERNEL, E.INVALID_LAUNCH_CONFIG),
        "launch_kernel_async": codes(USE, E.INVALID_KERNEL, E.INVALID_LAUNCH_CONFIG),
        "destroy_kernel": codes(C, E.INVALID_KERNEL),
        "kernel_result": codes(C, OOM, NS),
    }

    @rule(target=kernels, ctx=st.one_of(st.none(), contexts), which=st.sampled_from([*KERNEL_SOURCES, "missing"]))
    def compile_kernel(self, ctx: Any, which: str) -> Any:
        source = KERNEL_SOURCES.get(which, KERNEL_SOURCES["fill"])
        return out(self.attempt("compile_kernel", wia.compile_kernel, ctx, source, which))

    @rule(
        kernel=kernels,
        buffer=st.one_of(memories, tensors),
        scale=st.sampled_from([2.0, "x"]),
        n=st.sampled_from([4, 16, 2**40]),
        config=st.sampled_from([(16, 16), (64, None), (100, 64), (16, 4096)]),
    )
    def launch_kernel(self, kernel: wia.Kernel, buffer: Any, scale: Any, n: int, config: tuple[int, Any]) -> None:
        launch = wia.LaunchConfig(global_size=config[0], local_size=config[1])
        extra = codes(E.INVALID_MEMORY, E.TIMEOUT) if kernel.name in FAULTY else codes()
        result = self.attempt(
            "launch_kernel", wia.launch_kernel, kernel, launch, buffer, scale, n, waits=True, extra=extra
        )
        if result is not FAILED:
            self.synced(kernel.context)
            self.forget_values(kernel.context)  # the kernel may have written a tensor's memory

    @rule(kernel=kernels, stream=st.one_of(st.none(), streams))
    def launch_kernel_async(self, kernel: wia.Kernel, stream: Any) -> None:
        launch = wia.LaunchConfig(global_size=16, local_size=16)
        result = self.attempt("launch_kernel_async", wia.launch_kernel_async, kernel, launch, stream, waits=True)
        if result is not FAILED:
            # any kernel may fault: the arguments set by an earlier launch_kernel may be too small for this geometry
            self.fault_pending = True
            self.may_time_out = self.may_time_out or kernel.name in FAULTY
            self.forget_values(kernel.context)

    @rule(kernel=kernels)
    def destroy_kernel(self, kernel: wia.Kernel) -> None:
        valid = not (kernel.destroyed or kernel.context.destroyed)
        self.attempt("destroy_kernel", wia.destroy_kernel, kernel, valid=valid)

    @rule(ctx=contexts, scale=st.sampled_from([0.5, 3.0]))
    def kernel_result(self, ctx: wia.Context, scale: float) -> None:
        """A valid kernel on fresh device memory writes what its source says."""
        kernel = self.attempt("kernel_result", wia.compile_kernel, ctx, KERNEL_SOURCES["fill"], "fill")
        if kernel is FAILED:
            return
        n = 64
        mem = self.attempt("kernel_result", wia.alloc, ctx, n * 4)
        host = self.attempt("kernel_result", wia.alloc, ctx, n * 4, wia.MemoryType.HOST)
        if not failed(mem, host):
            config = wia.LaunchConfig(global_size=n, local_size=16)
            self.attempt("kernel_result", wia.launch_kernel, kernel, config, mem, scale, n, waits=True)
            self.attempt("kernel_result", wia.copy_async, mem, host, n * 4, waits=True)
            got = self.attempt("kernel_result", wia.memory_ptr, host, waits=True)
            if got is not FAILED:
                np.testing.assert_array_equal(got.view(np.float32), np.float32(scale) * np.arange(n, dtype=np.float32))
                COUNTS.values_checked += 1
        for m in (mem, host):
            if m is not FAILED:
                self.attempt("kernel_result", wia.free, m)
        self.attempt("kernel_result", wia.destroy_kernel, kernel)


# -- profiling ---------------------------------------------------------------------------------------------------------


@abuse_group
class ProfilingRules(RuleGroup):
    CODES: ClassVar[dict[str, Codes]] = {
        "enable_profiling": codes(LEVEL1, C, V, NS),
        "begin_profiling": codes(LEVEL1, C, V, NS),
        "end_profiling": codes(V),
        "get_profile_report": codes(V),
        "save_profile": codes(V),
        "destroy_profiler": codes(V),
    }

    @rule(ctx=st.one_of(st.none(), contexts), timing=st.booleans(), fmt=st.sampled_from(list(wia.ProfileFormat)))
    def enable_profiling(self, ctx: Any, timing: bool, fmt: wia.ProfileFormat) -> None:
        config = wia.ProfilerConfig(enable_timing=timing, output_format=fmt)
        self.attempt("enable_profiling", wia.enable_profiling, ctx, config)

    @rule(target=profilers, ctx=st.one_of(st.none(), contexts))
    def begin_profiling(self, ctx: Any) -> Any:
        return out(self.attempt("begin_profiling", wia.begin_profiling, ctx))

    @rule(profiler=profilers)
    def end_profiling(self, profiler: wia.Profiler) -> None:
        self.attempt("end_profiling", wia.end_profiling, profiler, waits=True)

    @rule(profiler=profilers)
    def get_profile_report(self, profiler: wia.Profiler) -> None:
        report = self.attempt("get_profile_report", wia.get_profile_report, profiler, waits=True)
        if report is not FAILED:
            assert report.model_dump_json()

    @rule(profiler=profilers, fmt=st.sampled_from([None, 0, 1, 7]), bad_path=st.booleans())
    def save_profile(self, profiler: wia.Profiler, fmt: Any, bad_path: bool) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / ("missing/dir/p.json" if bad_path else "p.json")
            self.attempt("save_profile", wia.save_profile, profiler, path, fmt, waits=True)

    @rule(profiler=profilers)
    def destroy_profiler(self, profiler: wia.Profiler) -> None:
        valid = not profiler.destroyed
        self.attempt("destroy_profiler", wia.destroy_profiler, profiler, waits=True, valid=valid)


# -- host threads ------------------------------------------------------------------------------------------------------

THREAD_JOIN_SECONDS = 30.0
"""As long as a rule may take (:data:`abuse.core.RULE_SECONDS`): a thread still running after it is hung."""


@abuse_group
class ThreadRules(RuleGroup):
    CODES: ClassVar[dict[str, Codes]] = {
        "thread_calls": codes(USE, OOM, E.DEVICE_BUSY),
    }

    @rule(
        ctx=contexts,
        own_context=st.lists(st.booleans(), min_size=1, max_size=3),
        matmuls=st.integers(1, 4),
        seed=st.integers(0, 2**16),
    )
    def thread_calls(self, ctx: wia.Context, own_context: list[bool], matmuls: int, seed: int) -> None:
        """A few calls on each of 1 to 3 host threads at once (each on its own context, or on ``ctx`` shared with
        this one), joined: the same contract holds there, nothing hangs, and the results are right."""
        data = np.random.default_rng(seed).integers(-3, 4, (4, 4)).astype(np.float32)
        wide = data.astype(np.float64)
        reference = wide
        for _ in range(matmuls):
            reference = reference @ wide / 4  # / 4 keeps every value exact in float32 (powers of two)
        caught: list[BaseException] = []
        results: list[np.ndarray] = []
        quarter = np.full((1,), 0.25, np.float32)

        def work(own: bool) -> None:
            try:
                context = wia.create_context() if own else ctx
                try:
                    t = wia.tensor(data, ctx=context)
                    q = wia.tensor(quarter, ctx=context)
                    u = t
                    for _ in range(matmuls):
                        u = wia.mul(wia.matmul(u, t), q)
                    results.append(u.numpy())
                    wia.release_tensor(t)
                    wia.release_tensor(q)
                finally:
                    if own:
                        wia.destroy_context(context)
            except BaseException as e:  # reported on the rule's thread
                caught.append(e)

        workers = [threading.Thread(target=work, args=(own,), name=f"abuse-{i}") for i, own in enumerate(own_context)]
        for worker in workers:
            worker.start()
        # this thread calls too, on ctx, while the workers run
        mine = self.attempt("thread_calls", wia.tensor, data, ctx=ctx, waits=True)
        if mine is not FAILED:
            doubled = self.attempt("thread_calls", wia.add, mine, mine, waits=True)
            got = self.attempt("thread_calls", doubled.numpy, waits=True) if doubled is not FAILED else FAILED
            if got is not FAILED:
                nr.assert_exact(got.astype(np.float64), 2 * wide, "add on the main thread beside the workers")
                COUNTS.values_checked += 1
            for t in (mine, doubled):
                if t is not FAILED:
                    self.attempt("thread_calls", wia.release_tensor, t)
        deadline = time.monotonic() + THREAD_JOIN_SECONDS
        for worker in workers:
            worker.join(max(deadline - time.monotonic(), 0.0))
        if any(worker.is_alive() for worker in workers):
            self.broken = True
            raise RuleFailed(f"thread_calls: a thread is still running after {THREAD_JOIN_SECONDS:.0f} s (hung)")
        gc.collect()  # the intermediate tensors the threads dropped: their memory is released now
        for error in caught:
            if not isinstance(error, wia.WiaError):
                self.broken = True
                raise RuleFailed(f"thread_calls: {type(error).__name__} (not a WiaError): {error}") from error
            self.check_error("thread_calls", error, self._allowed["thread_calls"] | self.wait_codes() | self.ambient)
        for got in results:
            nr.assert_exact(got.astype(np.float64), reference, f"{matmuls} matmuls on a host thread")
            COUNTS.values_checked += 1
        self.synced(ctx)


__all__ = [
    "ContextRules",
    "DeviceRules",
    "Expected",
    "KernelRules",
    "MemoryRules",
    "PoolRules",
    "ProfilingRules",
    "StreamRules",
    "TensorRules",
    "ThreadRules",
]
