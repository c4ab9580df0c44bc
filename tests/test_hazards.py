"""Stream hazards (wia_sim/hazards.py, docs/hazards.md): two accesses to overlapping bytes of one buffer from
different streams, at least one a write, that no event, stream wait or host synchronization orders, are reported
at the later one's call, through the public API; ordered or read-only sharing is never reported."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wia_hal as wia
from wia_hal.backends.sim import SimBackend
from wia_sim.hazards import StreamHazard
from wia_sim.kernels import compile_source
from wia_sim.kernels.writes import kernel_writes

N = 1 << 12  # float32 elements: 16 KiB tensors
MiB = 1 << 20


@pytest.fixture
def warn() -> Iterator[SimBackend]:
    """A sim backend that warns (whatever WIA_SIM_HAZARDS says): the findings are what these tests look at."""
    wia.set_backend("sim", hardware="wia-tiny", hazards="warn")
    backend = wia.get_backend()
    assert isinstance(backend, SimBackend)
    yield backend


def _found(backend: SimBackend, action: Callable[[], Any]) -> list[StreamHazard]:
    """The hazards ``action`` submits (warnings checked to match the machine's record, one per finding)."""
    before = len(backend.machine.hazards)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        action()
    found = backend.machine.hazards[before:]
    assert [str(w.message) for w in caught if w.category is wia.StreamHazardWarning] == [str(f) for f in found]
    return found


def _busy(ctx: wia.Context, stream: wia.Stream) -> None:
    """Queue a long copy on ``stream`` so that what follows it there runs late."""
    wia.copy_async(wia.alloc(ctx, 8 * MiB, wia.MemoryType.PINNED), wia.alloc(ctx, 8 * MiB), 8 * MiB, stream)


def _written_on(ctx: wia.Context, stream: wia.Stream, value: float = 1.0) -> wia.Tensor:
    """A tensor whose latest write is a copy on ``stream`` (not yet ordered with anything)."""
    x = wia.zeros(N, ctx=ctx)
    staged = wia.alloc(ctx, x.nbytes, wia.MemoryType.PINNED)
    wia.memory_ptr(staged).view(np.float32)[:] = value
    wia.context_synchronize(ctx)
    _busy(ctx, stream)
    wia.copy_async(staged, x.memory, x.nbytes, stream)
    return x


# -- what is reported, and how ---------------------------------------------------------------------------------------


def test_read_after_write_names_both_commands_both_streams_the_bytes_and_the_fix(warn: SimBackend) -> None:
    ctx = wia.create_context(wia.ContextConfig(default_pool=False))  # each tensor its own allocation
    writer, reader = wia.create_stream(ctx), wia.create_stream(ctx)
    x = _written_on(ctx, writer)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = sys._getframe().f_lineno + 1
        y = wia.relu(x, stream=reader)
    (warning,) = caught
    assert warning.category is wia.StreamHazardWarning
    assert (warning.filename, warning.lineno) == (__file__, line)  # the user's line, not the HAL's
    (finding,) = warn.machine.hazards
    assert finding.kind == "read-after-write"
    assert (finding.earlier.command, finding.earlier.stream, finding.earlier.write) == (
        f"copy of {x.nbytes} bytes (h2d)",
        writer.label,
        True,
    )
    assert (finding.later.command, finding.later.stream, finding.later.write) == (
        f"relu -> ({N},) float32",
        reader.label,
        False,
    )
    assert (finding.lo, finding.hi) == (x.offset, x.offset + x.nbytes)
    assert f"{x.nbytes} bytes" in finding.buffer and "DEVICE" in finding.buffer
    assert finding.fix == (
        f"record an event after `copy of {x.nbytes} bytes (h2d)` on {writer.label} and make {reader.label} wait "
        f"for it (event_record / stream_wait_event) before `relu -> ({N},) float32`"
    )
    message = str(warning.message)
    for part in ("read-after-write", writer.label, reader.label, "relu", "copy of", "Fix: record an event"):
        assert part in message
    np.testing.assert_array_equal(y.numpy(), 0.0)  # and it did read the stale zeros


def test_stream_labels_are_the_ones_the_user_knows(warn: SimBackend) -> None:
    ctx = wia.create_context()
    other = wia.create_stream(ctx)
    x = _written_on(ctx, ctx.default_stream)
    (finding,) = _found(warn, lambda: wia.relu(x, stream=other))
    assert finding.earlier.stream == f"default stream of context {ctx.id}"
    assert finding.later.stream == other.label
    assert other.label.startswith("stream ") and other.label.endswith(f"of context {ctx.id}")


def test_a_queue_the_front_end_did_not_name_is_named_by_device() -> None:
    backend = SimBackend(hardware="wia-tiny")
    first, second = backend.create_queue(0), backend.create_queue(0)
    assert (first.label, second.label) == ("stream 0 of device 0", "stream 1 of device 0")
    backend.name_queue(second, "the copy stream")
    assert second.label == "the copy stream"


def test_write_after_read_and_write_after_write_are_reported(warn: SimBackend) -> None:
    ctx = wia.create_context()
    s1, s2, s3 = (wia.create_stream(ctx) for _ in range(3))
    x = wia.zeros(N, ctx=ctx)
    source = wia.alloc(ctx, x.nbytes)
    wia.context_synchronize(ctx)
    wia.relu(x, stream=s1)  # reads x
    (war,) = _found(warn, lambda: wia.copy_async(source, x.memory, x.nbytes, s2))  # writes x
    assert war.kind == "write-after-read"
    assert (war.earlier.stream, war.earlier.write, war.later.stream, war.later.write) == (
        s1.label,
        False,
        s2.label,
        True,
    )
    findings = _found(warn, lambda: wia.copy_async(source, x.memory, x.nbytes, s3))  # writes x again
    assert sorted(f.kind for f in findings) == ["write-after-read", "write-after-write"]
    assert {f.earlier.stream for f in findings} == {s1.label, s2.label}


def test_reads_on_two_streams_are_not_reported(warn: SimBackend) -> None:
    ctx = wia.create_context()
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    x = wia.tensor(np.ones(N, np.float32), ctx=ctx)
    assert _found(warn, lambda: [wia.relu(x, stream=s1), wia.add(x, x, stream=s2), wia.sum(x, stream=s1)]) == []


def test_one_stream_is_never_a_hazard(warn: SimBackend) -> None:
    ctx = wia.create_context()
    s = wia.create_stream(ctx)

    def program() -> None:
        x = wia.zeros(N, ctx=ctx, stream=s)
        for _ in range(5):
            x = wia.add(x, wia.relu(x, stream=s), stream=s)
            wia.copy_async(x.memory, wia.alloc(ctx, x.nbytes), x.nbytes, s)
            wia.copy_async(wia.alloc(ctx, x.nbytes), x.memory, x.nbytes, s)

    assert _found(warn, program) == []


# -- what orders two streams ------------------------------------------------------------------------------------------


def _event(writer: wia.Stream, reader: wia.Stream) -> None:
    done = wia.create_event()
    wia.event_record(done, writer)
    wia.stream_wait_event(reader, done)


def _event_synchronize(writer: wia.Stream, reader: wia.Stream) -> None:
    done = wia.create_event()
    wia.event_record(done, writer)
    wia.event_synchronize(done)


def _polled(writer: wia.Stream, reader: wia.Stream) -> None:
    done = wia.create_event()
    wia.event_record(done, writer)
    for _ in range(1_000_000):
        if wia.event_query(done):
            return
    raise AssertionError("the event never completed")


ORDERINGS: dict[str, Callable[[wia.Stream, wia.Stream], None]] = {
    "event_record + stream_wait_event": _event,
    "stream_wait_stream": lambda writer, reader: wia.stream_wait_stream(reader, writer),
    "stream_synchronize": lambda writer, reader: wia.stream_synchronize(writer),
    "context_synchronize": lambda writer, reader: wia.context_synchronize(writer.context),
    "event_synchronize": _event_synchronize,
    "event_query that returned True": _polled,
}


@pytest.mark.parametrize("order", ORDERINGS.values(), ids=ORDERINGS.keys())
def test_an_ordered_reader_is_not_reported(warn: SimBackend, order: Callable[[wia.Stream, wia.Stream], None]) -> None:
    ctx = wia.create_context()
    writer, reader = wia.create_stream(ctx), wia.create_stream(ctx)
    x = _written_on(ctx, writer, 7.0)
    order(writer, reader)
    assert _found(warn, lambda: wia.relu(x, stream=reader)) == []
    np.testing.assert_array_equal(wia.relu(x, stream=reader).numpy(), 7.0)


def test_an_event_query_that_returned_false_orders_nothing(warn: SimBackend) -> None:
    ctx = wia.create_context()
    writer, reader = wia.create_stream(ctx), wia.create_stream(ctx)
    x = _written_on(ctx, writer)
    done = wia.create_event()
    wia.event_record(done, writer)
    assert not wia.event_query(done)  # the long copy is still running
    assert [f.kind for f in _found(warn, lambda: wia.relu(x, stream=reader))] == ["read-after-write"]


def test_order_is_transitive_through_a_third_stream(warn: SimBackend) -> None:
    ctx = wia.create_context()
    s1, s2, s3 = (wia.create_stream(ctx) for _ in range(3))
    x = _written_on(ctx, s1)
    wia.stream_wait_stream(s2, s1)
    wia.relu(x, stream=s2)
    wia.stream_wait_stream(s3, s2)  # s3 waits for s2, which waited for s1's write
    assert _found(warn, lambda: wia.copy_async(wia.alloc(ctx, x.nbytes), x.memory, x.nbytes, s3)) == []


def test_an_event_waited_for_before_it_was_recorded_again_orders_only_up_to_its_old_point(warn: SimBackend) -> None:
    ctx = wia.create_context()
    writer, reader = wia.create_stream(ctx), wia.create_stream(ctx)
    done = wia.create_event()
    wia.event_record(done, writer)
    wia.stream_wait_event(reader, done)  # waits for the writer's point *before* the write
    x = _written_on(ctx, writer)
    wia.event_record(done, writer)  # moved after the write, but the reader's wait was already made
    assert [f.kind for f in _found(warn, lambda: wia.relu(x, stream=reader))] == ["read-after-write"]


# -- where the bytes are ----------------------------------------------------------------------------------------------


def test_disjoint_blocks_of_one_pool_segment_are_not_a_hazard(warn: SimBackend) -> None:
    ctx = wia.create_context()
    pool = wia.create_memory_pool(ctx)
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    a = wia.empty(N, pool=pool, ctx=ctx)
    b = wia.empty(N, pool=pool, ctx=ctx)
    assert a.memory.buffer is b.memory.buffer  # one backend buffer, two ranges of it
    source = wia.alloc(ctx, a.nbytes)
    wia.context_synchronize(ctx)
    assert _found(warn, lambda: wia.copy_async(source, a.memory, a.nbytes, s1)) == []
    assert _found(warn, lambda: wia.copy_async(source, b.memory, b.nbytes, s2)) == []
    assert _found(warn, lambda: wia.relu(b, stream=s2)) == []
    (finding,) = _found(warn, lambda: wia.relu(a, stream=s2))  # but a's bytes were written on s1
    assert (finding.lo, finding.hi) == (a.offset, a.offset + a.nbytes)


def test_a_copy_into_part_of_a_tensor_conflicts_with_a_reader_of_the_whole(warn: SimBackend) -> None:
    ctx = wia.create_context()
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    x = wia.tensor(np.ones(N, np.float32), ctx=ctx)
    wia.relu(x, stream=s1)
    (finding,) = _found(warn, lambda: wia.copy_async(wia.alloc(ctx, 64), x.memory, 64, s2, dst_offset=128))
    assert (finding.kind, finding.lo, finding.hi) == ("write-after-read", x.offset + 128, x.offset + 192)


def test_a_strided_view_covers_its_extent(warn: SimBackend) -> None:
    ctx = wia.create_context()
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    x = wia.tensor(np.ones((64, 64), np.float32), ctx=ctx)
    column = wia.slice(wia.transpose(x), (3, 0), (4, 64))  # x[:, 3]: from byte 12 to the last row's element
    wia.copy_async(wia.alloc(ctx, 4), x.memory, 4, s1, dst_offset=x.nbytes - 4 * 64 + 12)  # writes x[63, 3]
    (finding,) = _found(warn, lambda: wia.relu(column, stream=s2))
    assert finding.kind == "read-after-write"


# -- modes ------------------------------------------------------------------------------------------------------------


def test_strict_mode_raises_at_the_call_and_enqueues_nothing() -> None:
    wia.set_backend("sim", hardware="wia-tiny", hazards="error")
    backend = wia.get_backend()
    assert isinstance(backend, SimBackend)
    ctx = wia.create_context(wia.ContextConfig(default_pool=False))  # each tensor its own allocation
    writer, reader = wia.create_stream(ctx), wia.create_stream(ctx)
    x = _written_on(ctx, writer)
    allocated, epoch = ctx.bytes_allocated, reader.queue.epoch
    with pytest.raises(wia.StreamHazardError) as info:
        line = sys._getframe().f_lineno + 1
        wia.relu(x, stream=reader)
    error = info.value
    assert isinstance(error, wia.InvalidValueError)
    assert error.code is wia.ErrorCode.INVALID_VALUE
    assert (error.details.file, error.details.line) == (__file__, line)
    assert "read-after-write" in error.message and reader.label in error.message
    assert reader.queue.epoch == epoch and reader.queue.last is None  # nothing was enqueued
    assert ctx.bytes_allocated == allocated  # the output was released
    assert len(backend.machine.hazards) == 1
    wia.stream_wait_stream(reader, writer)  # the fix
    np.testing.assert_array_equal(wia.relu(x, stream=reader).numpy(), 1.0)


def test_strict_mode_leaves_the_shadow_state_as_it_was() -> None:
    wia.set_backend("sim", hardware="wia-tiny", hazards="error")
    ctx = wia.create_context()
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    x = _written_on(ctx, s1)
    for _ in range(2):  # the refused read left no trace: the same call is refused again for the same reason
        with pytest.raises(wia.StreamHazardError, match="read-after-write"):
            wia.add(x, x, stream=s2)


def test_off_checks_nothing() -> None:
    wia.set_backend("sim", hardware="wia-tiny", hazards="off")
    backend = wia.get_backend()
    assert isinstance(backend, SimBackend) and backend.machine.detector is None
    ctx = wia.create_context()
    writer, reader = wia.create_stream(ctx), wia.create_stream(ctx)
    x = _written_on(ctx, writer)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        wia.relu(x, stream=reader)
    assert backend.machine.hazards == []


def test_timing_only_mode_reports_too() -> None:
    wia.set_backend("sim", hardware="wia-tiny", numerics=False, hazards="warn")
    backend = wia.get_backend()
    assert isinstance(backend, SimBackend)
    ctx = wia.create_context()
    writer, reader = wia.create_stream(ctx), wia.create_stream(ctx)
    x = wia.empty(N, ctx=ctx)
    y = wia.relu(x, stream=writer)
    (finding,) = _found(backend, lambda: wia.add(y, x, stream=reader))
    assert (finding.kind, finding.earlier.command) == ("read-after-write", f"relu -> ({N},) float32")


@pytest.mark.parametrize("value", ["loud", "", "1"])
def test_a_bad_hazards_option_names_the_choices(value: str) -> None:
    with pytest.raises(wia.InvalidValueError, match=r"hazards=.*warn, error, off"):
        wia.set_backend("sim", hardware="wia-tiny", hazards=value)


def test_the_option_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_SIM_HAZARDS", "Error")
    wia.set_backend("sim", hardware="wia-tiny")
    backend = wia.get_backend()
    assert isinstance(backend, SimBackend)
    assert backend.hazards == "error" and backend.machine.detector is not None and backend.machine.detector.strict


def test_a_freed_buffer_forgets_its_accesses(warn: SimBackend) -> None:
    ctx = wia.create_context()
    s1 = wia.create_stream(ctx)
    memory = wia.alloc(ctx, 4096)
    wia.copy_async(wia.alloc(ctx, 4096), memory, 4096, s1)
    detector = warn.machine.detector
    assert detector is not None and memory.buffer in detector.shadows
    wia.free(memory)
    assert memory.buffer not in detector.shadows


# -- the user's case (issue 11) ---------------------------------------------------------------------------------------


def test_a_reshape_on_the_default_stream_read_by_a_matmul_on_another(warn: SimBackend) -> None:
    """A transformer layer: heads are transposed and reshaped (a copy of a non-contiguous view) on the default
    stream, and a matmul on another stream reads the result without an event."""
    ctx = wia.create_context()
    rng = np.random.default_rng(11)
    side = wia.create_stream(ctx)
    heads = wia.tensor(rng.random((8, 16, 32), np.float32), ctx=ctx)  # (heads, tokens, head_dim)
    weights = wia.tensor(rng.random((256, 64), np.float32), ctx=ctx)
    merged = wia.reshape(wia.transpose(heads, (1, 0, 2)), (16, 256))  # a copy kernel on the default stream
    (finding,) = _found(warn, lambda: wia.matmul(merged, weights, stream=side))
    assert finding.kind == "read-after-write"
    assert (finding.earlier.command, finding.earlier.stream) == (
        "copy -> (16, 8, 32) float32",
        ctx.default_stream.label,
    )
    assert (finding.later.command, finding.later.stream) == ("matmul -> (16, 64) float32", side.label)
    wia.stream_wait_stream(side, ctx.default_stream)  # the fix
    assert _found(warn, lambda: wia.matmul(merged, weights, stream=side)) == []


# -- custom kernels: which buffers they write ------------------------------------------------------------------------

SCALE = """
__kernel void scale(__global const float* x, __global float* y, float s) {
    int i = get_global_id(0);
    y[i] = s * x[i];
}
"""

READS_WITHOUT_CONST = """
__kernel void copy_sum(__global float* x, __global float* y) {
    int i = get_global_id(0);
    y[i] = x[i] + x[(i + 1) % get_global_size(0)];
}
"""


def test_custom_kernels_reading_one_buffer_on_two_streams_are_not_a_hazard(warn: SimBackend) -> None:
    ctx = wia.create_context()
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    x = wia.tensor(np.ones(N, np.float32), ctx=ctx)
    outs = [wia.empty(N, ctx=ctx) for _ in range(4)]
    config = wia.LaunchConfig(global_size=N, local_size=64)
    scale = wia.compile_kernel(ctx, SCALE, "scale")
    copy_sum = wia.compile_kernel(ctx, READS_WITHOUT_CONST, "copy_sum")  # x is not const, but only read

    def launches() -> None:
        for i, (kernel, stream) in enumerate([(scale, s1), (scale, s2), (copy_sum, s1), (copy_sum, s2)]):
            args = (x, outs[i], 2.0) if kernel is scale else (x, outs[i])
            for index, value in enumerate(args):
                wia.set_kernel_arg(kernel, index, value)
            wia.launch_kernel_async(kernel, config, stream)

    assert _found(warn, launches) == []
    np.testing.assert_array_equal(outs[3].numpy(), 2.0)


def test_a_custom_kernel_that_writes_a_buffer_another_stream_reads_is_reported(warn: SimBackend) -> None:
    ctx = wia.create_context()
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    x = wia.tensor(np.ones(N, np.float32), ctx=ctx)
    y = wia.empty(N, ctx=ctx)
    kernel = wia.compile_kernel(ctx, SCALE, "scale")
    for index, value in enumerate((x, y, 2.0)):
        wia.set_kernel_arg(kernel, index, value)
    wia.relu(y, stream=s1)
    (finding,) = _found(warn, lambda: wia.launch_kernel_async(kernel, wia.LaunchConfig(global_size=N), s2))
    assert (finding.kind, finding.later.command) == ("write-after-read", "kernel scale")


def _writes(source: str, name: str = "k") -> dict[str, bool]:
    program = compile_source(source)
    info = program.kernel(name)
    return {p.name: w for p, w in zip(info.params, kernel_writes(program, info), strict=True) if p.kind == "buffer"}


@pytest.mark.parametrize(
    "body",
    [
        "y[i] = x[i];",
        "y[i] = *(x + i) + x[0];",
        "__global float* p = x + i; y[i] = p[0] * p[1];",
        "float4 v = vload4(i, x); y[i] = v.x + v.y;",
        "y[i] = get(x, i);",
        "if (x != y && x[i] > 0.0f) y[i] = 1.0f;",
        "float2 x2 = (float2)(x[i], 1.0f); y[i] = x2.x;",  # x2.x: a swizzle named x, not the parameter
        "__global float* p = x; p++; y[i] = *p;",
    ],
)
def test_kernel_writes_knows_a_buffer_that_is_only_read(body: str) -> None:
    source = (
        "float get(__global float* b, int i) { return b[i]; }\n"
        f"__kernel void k(__global float* x, __global float* y) {{ int i = get_global_id(0); {body} }}"
    )
    assert _writes(source) == {"x": False, "y": True}


@pytest.mark.parametrize(
    "body",
    [
        "x[i] = 1.0f;",
        "x[i] += 1.0f;",
        "x[i]++;",
        "*(x + i) = 2.0f;",
        "__global float* p = x + i; p[0] = 3.0f;",
        "__global float* p; p = x; *p = 4.0f;",
        "put(x, i);",
        "vstore4((float4)(1.0f), i, x);",
        "((__global float4*)x)[i] = (float4)(0.0f);",
        "atomic_xchg((__global int*)&x[i], 1);",
        "__global float* p = i > 0 ? x : y; p[i] = 5.0f;",
    ],
)
def test_kernel_writes_knows_every_way_to_store(body: str) -> None:
    source = (
        "void put(__global float* b, int i) { b[i] = 0.0f; }\n"
        f"__kernel void k(__global float* x, __global float* y) {{ int i = get_global_id(0); {body} y[0] = 1.0f; }}"
    )
    assert _writes(source)["x"] is True


def test_kernel_writes_is_sound_on_the_corpus() -> None:
    """Every buffer a corpus kernel writes (its cases say which: out/inout) is one kernel_writes says it may."""
    from kernels.corpus import CASES, Buffer

    rng = np.random.default_rng(0)
    for case in CASES:
        program = compile_source(case.source(), case.options)
        info = program.kernel(case.kernel)
        launch = case.draw(rng)
        for param, writes in zip(info.params, kernel_writes(program, info), strict=True):
            arg = launch.args[param.name]
            if isinstance(arg, Buffer) and arg.access != "in":
                assert writes, f"{case.name}: {param.name} is written ({arg.access}) but kernel_writes says not"


# -- a bug of the HAL the detector found, fixed (a stream-ordered pool) --------------------------------------------


@pytest.mark.filterwarnings("ignore::wia_hal.errors.StreamHazardWarning")
def test_a_pool_block_freed_with_work_pending_on_one_stream_is_not_reused_by_another(warn: SimBackend) -> None:
    ones = wia.tensor(np.full(N, 1.0, np.float32))  # the Level-1 default context keeps tensors in a pool
    twos = wia.tensor(np.full(N, 2.0, np.float32))
    ctx = wia.get_default_context()
    s1, s2 = wia.create_stream(ctx), wia.create_stream(ctx)
    _busy(ctx, s1)
    b = wia.relu(ones, stream=s1)
    del b  # its block goes back to the pool while the relu is still queued on s1
    c = wia.relu(twos, stream=s2)
    assert warn.machine.hazards == []
    np.testing.assert_array_equal(c.numpy(), 2.0)


def test_a_block_freed_before_the_first_extra_stream_is_fenced_for_it(warn: SimBackend) -> None:
    """While the default stream is the context's only one, frees record nothing; making a second stream fences what
    the pool holds free at that moment, so its first owner on the new stream waits for the old work."""
    ones, twos = wia.tensor(np.full(N, 1.0, np.float32)), wia.tensor(np.full(N, 2.0, np.float32))
    ctx = wia.get_default_context()
    _busy(ctx, ctx.default_stream)
    b = wia.relu(ones)  # queued on the default stream behind the long copy
    del b
    s2 = wia.create_stream(ctx)
    c = wia.relu(twos, stream=s2)  # takes b's block
    assert warn.machine.hazards == []
    np.testing.assert_array_equal(c.numpy(), 2.0)


def test_single_stream_frees_record_nothing(warn: SimBackend) -> None:
    """A program on one stream pays nothing for the fences: its frees record no marker."""
    x = wia.tensor(np.ones(N, np.float32))
    ctx = wia.get_default_context()
    for _ in range(10):
        y = wia.relu(x)
        del y
    pool = ctx.default_pool
    assert pool is not None and all(not segment.fences for segment in pool.segments)


# -- the detector against a brute-force happens-before, on random programs -------------------------------------------


@dataclass
class _Access:
    command: int
    stream: int
    buffer: object
    lo: int
    hi: int
    write: bool


def _reachable(edges: dict[int, set[int]], start: int) -> set[int]:
    seen, todo = {start}, [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


COPY = st.tuples(
    st.just("copy"),
    st.integers(0, 2),  # stream
    st.integers(0, 3),  # source region
    st.integers(0, 3),  # destination region
    st.integers(0, 3),  # source offset, destination offset and size, in 64-byte blocks
    st.integers(0, 3),
    st.integers(1, 3),
)
RELU = st.tuples(st.just("relu"), st.integers(0, 2), st.integers(2, 3))
ORDER = st.one_of(
    st.tuples(st.just("record"), st.integers(0, 1), st.integers(0, 2)),
    st.tuples(st.just("wait_event"), st.integers(0, 2), st.integers(0, 1)),
    st.tuples(st.just("wait_stream"), st.integers(0, 2), st.integers(0, 2)),
)
HOST = st.one_of(
    st.tuples(st.just("sync_stream"), st.integers(0, 2)),
    st.tuples(st.just("sync_context")),
    st.tuples(st.just("sync_event"), st.integers(0, 1)),
    st.tuples(st.just("query"), st.integers(0, 1)),
)
STEPS = st.lists(
    st.tuples(st.one_of(COPY, RELU), st.one_of(st.none(), ORDER, st.none(), HOST, st.none(), ORDER)), max_size=20
).map(lambda pairs: [step for pair in pairs for step in pair if step is not None])
"""An access, then now and then something that orders (on the device, or by the host, which orders everything
before it)."""


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(program=STEPS)
def test_reported_iff_a_brute_force_happens_before_says_unordered(program: list[tuple[Any, ...]]) -> None:
    """Random programs of copies and ops over two plain allocations and two tensors of one pool segment, events,
    waits and host synchronizations on three streams: a command is reported exactly when one of its accesses
    overlaps an earlier one of another stream, one of the two writes, and no path of stream order, event waits
    and host observations leads from the earlier command to it."""
    wia.set_backend("sim", hardware="wia-tiny", hazards="warn")
    backend = wia.get_backend()
    assert isinstance(backend, SimBackend)
    ctx = wia.create_context(wia.ContextConfig(default_pool=False))  # each tensor its own allocation
    streams = [ctx.default_stream, wia.create_stream(ctx), wia.create_stream(ctx)]
    pool = wia.create_memory_pool(ctx)
    tensors = [wia.empty(64, pool=pool, ctx=ctx) for _ in range(2)]  # 256 bytes each, one segment
    regions = [wia.alloc(ctx, 256), wia.alloc(ctx, 256), tensors[0].memory, tensors[1].memory]
    events = [wia.create_event(), wia.create_event()]
    wia.context_synchronize(ctx)

    # the model: nodes are commands (and host observations); edges are what orders them
    edges: dict[int, set[int]] = {}
    last: dict[int, int] = {}  # stream -> its latest node
    recorded: dict[int, int] = {}  # event -> the node of its latest record
    observed: list[int] = []  # host observations so far (each orders every later submission)
    accesses: list[_Access] = []
    reported: set[int] = set()
    expected: set[int] = set()
    count = 0

    def node(stream: int | None) -> int:
        nonlocal count
        count += 1
        for before in ([last[stream]] if stream is not None and stream in last else []) + observed:
            edges.setdefault(before, set()).add(count)
        if stream is not None:
            last[stream] = count
        return count

    def observe(*nodes: int) -> None:
        host = node(None)
        for n in nodes:
            edges.setdefault(n, set()).add(host)
        observed.append(host)

    def submit(stream: int, action: Callable[[], Any], touched: list[tuple[wia.Memory, int, int, bool]]) -> None:
        me = node(stream)
        mine = [_Access(me, stream, m.buffer, m.offset + lo, m.offset + hi, w) for m, lo, hi, w in touched]
        for earlier in accesses:
            for access in mine:
                if (
                    earlier.stream != stream
                    and earlier.buffer is access.buffer
                    and earlier.lo < access.hi
                    and access.lo < earlier.hi
                    and (earlier.write or access.write)
                    and me not in _reachable(edges, earlier.command)
                ):
                    expected.add(me)
        accesses.extend(mine)
        before = len(backend.machine.hazards)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            action()
        if len(backend.machine.hazards) > before:
            reported.add(me)

    for step in program:
        kind = step[0]
        if kind == "copy":
            _, s, src, dst, src_block, dst_block, blocks = step
            so, do = 64 * src_block, 64 * dst_block
            size = min(64 * blocks, 256 - so, 256 - do)
            a, b = regions[src], regions[dst]
            submit(
                s,
                lambda a=a, b=b, size=size, so=so, do=do, s=s: wia.copy_async(
                    a, b, size, streams[s], src_offset=so, dst_offset=do
                ),
                [(a, so, so + size, False), (b, do, do + size, True)],
            )
        elif kind == "relu":  # reads one of the pool's tensors
            _, s, r = step
            submit(s, lambda t=tensors[r - 2], s=s: wia.relu(t, stream=streams[s]), [(regions[r], 0, 256, False)])
        elif kind == "record":
            _, e, s = step
            wia.event_record(events[e], streams[s])
            recorded[e] = node(s)
        elif kind == "wait_event":
            _, s, e = step
            wia.stream_wait_event(streams[s], events[e])
            if e in recorded:
                wait = node(s)
                edges.setdefault(recorded[e], set()).add(wait)
        elif kind == "wait_stream":
            _, waiting, waited = step
            wia.stream_wait_stream(streams[waiting], streams[waited])
            marker = node(waited)
            wait = node(waiting)
            edges.setdefault(marker, set()).add(wait)
        elif kind == "sync_stream":
            wia.stream_synchronize(streams[step[1]])
            if step[1] in last:
                observe(last[step[1]])
        elif kind == "sync_context":
            wia.context_synchronize(ctx)
            observe(*last.values())
        elif kind == "sync_event":
            wia.event_synchronize(events[step[1]])
            if step[1] in recorded:
                observe(recorded[step[1]])
        elif kind == "query" and wia.event_query(events[step[1]]) and step[1] in recorded:
            observe(recorded[step[1]])
    assert reported == expected
    wia.destroy_context(ctx)
