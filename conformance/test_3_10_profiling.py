"""SPEC 3.10: profiling a context's work: enabling it (R-3.10-01), the profiler's life (R-3.10-02), the report and
its invariants (R-3.10-03), saving it as JSON or as a Chrome trace (R-3.10-04).

Profiling is optional (``supports_profiling``, a binding flag of R-3.2.1-01): on a device that does not claim it,
``enable_profiling``, ``ContextConfig(enable_profiling=True)`` and ``begin_profiling`` must raise ``NOT_SUPPORTED``
(``test_profiling_follows_the_capability``, which runs everywhere) and every other test here is "not supported".

Readings the suite makes:

- A window counts the work submitted between ``begin_profiling`` and ``end_profiling``: work submitted before is
  not counted even where it completes inside the window; work submitted inside and still running at
  ``end_profiling`` is counted, because ending the window waits for it. Destroying the context ends an open
  window the same way.
- A built-in op with contiguous inputs launches one kernel, reported under the op's name in the binding (``add``,
  ``matmul``, ``concat``): ``num_kernels`` counts the launches of the window, ``KernelStats.call_count`` those of
  one op. (A non-contiguous input may add a ``copy`` kernel; the suite gives contiguous ones.)
- ``peak_memory_bytes`` is at least the bytes of the allocations live together in the window (the context's
  memory held at once); ``total_time_ms`` is the window's length, and every time in the report is within it.
- ``enable_timing=False``: every time is 0, the counts stay; ``enable_memory_tracking=False``: the peak is 0;
  ``enable_kernel_profiling=False``: ``kernel_stats`` is empty, ``num_kernels`` still counts.
- A Chrome trace (``ProfileFormat.CHROME_TRACE``, the binding of R-3.10-04) is the Trace Event Format's JSON
  object: ``traceEvents``, each with ``ph`` and ``pid``; every event but metadata (``ph: "M"``, which the format
  gives no timestamp) has a numeric ``ts`` in microseconds. Complete slices (``"X"``) on one ``(pid, tid)`` track
  nest; every flow start has its end; processes and threads with slices are named by metadata; each op launched
  is a slice named by the op whose ``args`` mention its inputs' dtype and shapes.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
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
F32 = np.dtype(np.float32)
ROUNDING_US = 0.002
"""How far a Chrome trace's microseconds may be from the report's milliseconds × 1000: both ends of a slice
rounded to the nanosecond."""
REL = 1e-9
"""Relative slack for sums and means of floats that should agree exactly."""
PROGRAM_EXAMPLES = 10
TRACE_EXAMPLES = 6


def _requires_profiling(ctx: wia.Context, config: wia.ProfilerConfig | None = None) -> None:
    """Skip as not supported unless the device claims profiling; else enable it on ``ctx``."""
    __tracebackhide__ = True
    ph.requires("supports_profiling")
    wia.enable_profiling(ctx, config if config is not None else wia.ProfilerConfig())


# -- programs: ops on one or two streams ----------------------------------------------------------------------------

KERNEL_OPS = ("add", "mul", "relu", "gelu", "sigmoid", "sum", "max", "softmax", "matmul", "concat")
"""Built-in ops whose kernel carries the op's name (contiguous inputs: one kernel each)."""


@dataclass(frozen=True)
class Program:
    """Ops on ``(m, n)`` float32 operands (``matmul`` on an ``(n, m)`` one), each on stream 0 or 1; a ``wait``
    step makes that stream wait for an event recorded on the other one."""

    shape: tuple[int, int]
    steps: tuple[tuple[str, int], ...]

    @property
    def launched(self) -> Counter[str]:
        return Counter(op for op, _ in self.steps if op != "wait")


@st.composite
def programs(draw: st.DrawFn, max_steps: int = 8, waits: bool = False) -> Program:
    shape = (draw(st.integers(1, 4)), draw(st.integers(1, 4)))
    kinds = (*KERNEL_OPS, "wait") if waits else KERNEL_OPS
    steps = draw(st.lists(st.tuples(st.sampled_from(kinds), st.integers(0, 1)), max_size=max_steps))
    return Program(shape, tuple(steps))


def profiler_configs() -> st.SearchStrategy[wia.ProfilerConfig]:
    return st.builds(
        wia.ProfilerConfig,
        enable_timing=st.booleans(),
        enable_memory_tracking=st.booleans(),
        enable_kernel_profiling=st.booleans(),
        output_format=st.sampled_from(list(wia.ProfileFormat)),
    )


@dataclass
class Ran:
    """What a program did: the kernels it launched with their input shapes, the tensors it made (kept alive) and
    the bytes of every tensor alive at the end (its inputs included)."""

    launches: list[tuple[str, list[tuple[int, ...]]]]
    outputs: list[wia.Tensor]
    live_bytes: int


def _operands(ctx: wia.Context, shape: tuple[int, int]) -> tuple[wia.Tensor, wia.Tensor, wia.Tensor]:
    """Contiguous float32 operands ``a``, ``b`` (``shape``) and ``w`` (transposed shape), uploaded and complete."""
    m, n = shape
    values = (np.arange(m * n, dtype=np.float32) % 7 - 3) / 4
    a = wia.tensor(values.reshape(m, n), ctx=ctx)
    b = wia.tensor(values[::-1].reshape(m, n).copy(), ctx=ctx)
    w = wia.tensor(values.reshape(n, m), ctx=ctx)
    wia.context_synchronize(ctx)
    return a, b, w


def _nbytes(t: wia.Tensor) -> int:
    return math.prod(t.shape) * np.dtype(t.dtype).itemsize


def _run(program: Program, ctx: wia.Context, streams: list[wia.Stream]) -> Ran:
    """Launch ``program`` on ``streams`` (operands made first, outside any window the caller opens after)."""
    a, b, w = _operands(ctx, program.shape)
    return _launch(program, ctx, streams, (a, b, w))


def _launch(
    program: Program, ctx: wia.Context, streams: list[wia.Stream], operands: tuple[wia.Tensor, wia.Tensor, wia.Tensor]
) -> Ran:
    a, b, w = operands
    ops: dict[str, tuple[Callable[[wia.Stream], wia.Tensor], list[wia.Tensor]]] = {
        "add": (lambda s: wia.add(a, b, ctx=ctx, stream=s), [a, b]),
        "mul": (lambda s: wia.mul(a, b, ctx=ctx, stream=s), [a, b]),
        "relu": (lambda s: wia.relu(a, ctx=ctx, stream=s), [a]),
        "gelu": (lambda s: wia.gelu(a, ctx=ctx, stream=s), [a]),
        "sigmoid": (lambda s: wia.sigmoid(a, ctx=ctx, stream=s), [a]),
        "sum": (lambda s: wia.sum(a, axis=0, ctx=ctx, stream=s), [a]),
        "max": (lambda s: wia.max(a, axis=1, ctx=ctx, stream=s), [a]),
        "softmax": (lambda s: wia.softmax(a, axis=-1, ctx=ctx, stream=s), [a]),
        "matmul": (lambda s: wia.matmul(a, w, ctx=ctx, stream=s), [a, w]),
        "concat": (lambda s: wia.concat([a, b], axis=0, ctx=ctx, stream=s), [a, b]),
    }
    launches: list[tuple[str, list[tuple[int, ...]]]] = []
    outputs: list[wia.Tensor] = []
    for op, which in program.steps:
        stream = streams[which % len(streams)]
        if op == "wait":
            event = wia.create_event()
            wia.event_record(event, streams[(which + 1) % len(streams)])
            wia.stream_wait_event(stream, event)
            continue
        launch, inputs = ops[op]
        outputs.append(launch(stream))
        launches.append((op, [t.shape for t in inputs]))
    live = sum(_nbytes(t) for t in (a, b, w, *outputs))
    return Ran(launches, outputs, live)


# -- what every report must satisfy ---------------------------------------------------------------------------------


def _assert_time(value: object, call: str) -> float:
    __tracebackhide__ = True
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        ph.fail(ph.fmt(value), "a finite time >= 0 (ms)", call)
    return float(value)


def _assert_at_most(low: float, high: float, what: str, call: str) -> None:
    __tracebackhide__ = True
    if low > high * (1 + REL) + 1e-12:
        ph.fail(f"{low}", f"at most {what} = {high}", call)


def assert_report(
    report: object, config: wia.ProfilerConfig, launched: Counter[str], call: str, *, live_bytes: int = 0
) -> wia.ProfileReport:
    """The invariants of R-3.10-03 for a window in which ``launched`` kernels ran (by op name) while allocations
    of ``live_bytes`` were live together; what ``config`` switched off is zero or empty."""
    __tracebackhide__ = True
    ph.assert_isinstance(report, wia.ProfileReport, call)
    assert isinstance(report, wia.ProfileReport)
    total = _assert_time(report.total_time_ms, f"{call}.total_time_ms")
    kernel = _assert_time(report.kernel_time_ms, f"{call}.kernel_time_ms")
    memory = _assert_time(report.memory_time_ms, f"{call}.memory_time_ms")
    _assert_at_most(kernel, total, "total_time_ms", f"{call}.kernel_time_ms")
    _assert_at_most(memory, total, "total_time_ms", f"{call}.memory_time_ms")
    ph.assert_int(report.num_kernels, f"{call}.num_kernels", minimum=0)
    ph.assert_equal(report.num_kernels, sum(launched.values()), f"{call}.num_kernels (kernels launched: {launched})")
    ph.assert_int(report.peak_memory_bytes, f"{call}.peak_memory_bytes", minimum=0)
    if config.enable_memory_tracking:
        ph.assert_true(
            report.peak_memory_bytes >= live_bytes,
            report.peak_memory_bytes,
            f">= {live_bytes} bytes (allocations live together in the window)",
            f"{call}.peak_memory_bytes",
        )
    else:
        ph.assert_equal(report.peak_memory_bytes, 0, f"{call}.peak_memory_bytes with enable_memory_tracking=False")
    if not config.enable_timing:
        ph.assert_equal((total, kernel, memory), (0.0, 0.0, 0.0), f"{call}: (total, kernel, memory) ms, no timing")
    if not config.enable_kernel_profiling:
        ph.assert_equal(report.kernel_stats, [], f"{call}.kernel_stats with enable_kernel_profiling=False")
        return report
    counts = {}
    for i, stats in enumerate(report.kernel_stats):
        where = f"{call}.kernel_stats[{i}]"
        ph.assert_isinstance(stats, wia.KernelStats, where)
        assert_kernel_stats(stats, where)
        ph.assert_true(stats.name not in counts, stats.name, "one KernelStats per kernel name", where)
        counts[stats.name] = stats.call_count
        if config.enable_timing:
            _assert_at_most(stats.max_time_ms, kernel, "kernel_time_ms (one call is within it)", f"{where}.max")
        else:
            ph.assert_equal(stats.total_time_ms, 0.0, f"{where}.total_time_ms with enable_timing=False")
    ph.assert_equal(counts, dict(launched), f"{{name: call_count}} of {call}.kernel_stats")
    ph.assert_equal(sum(counts.values()), report.num_kernels, f"sum of {call}.kernel_stats call counts")
    if config.enable_timing:
        summed = sum(s.total_time_ms for s in report.kernel_stats)
        _assert_at_most(kernel, summed, "the sum of the kernels' total_time_ms", f"{call}.kernel_time_ms")
    return report


def assert_kernel_stats(stats: wia.KernelStats, call: str) -> None:
    """One kernel's statistics agree with each other: min <= mean <= max, total = mean x count."""
    __tracebackhide__ = True
    ph.assert_true(isinstance(stats.name, str) and bool(stats.name), stats.name, "a kernel name", f"{call}.name")
    ph.assert_int(stats.call_count, f"{call}.call_count", minimum=1)
    low, mean, high, total = (
        _assert_time(getattr(stats, f), f"{call}.{f}")
        for f in ("min_time_ms", "mean_time_ms", "max_time_ms", "total_time_ms")
    )
    _assert_at_most(low, mean, "mean_time_ms", f"{call}.min_time_ms")
    _assert_at_most(mean, high, "max_time_ms", f"{call}.mean_time_ms")
    ph.assert_true(
        math.isclose(total, mean * stats.call_count, rel_tol=REL, abs_tol=1e-12),
        total,
        f"mean_time_ms x call_count = {mean * stats.call_count}",
        f"{call}.total_time_ms",
    )


def _profile(ctx: wia.Context, config: wia.ProfilerConfig, body: Callable[[], Ran]) -> tuple[wia.Profiler, Ran]:
    """Run ``body`` in a window of ``ctx`` (profiling enabled with ``config``); the window is ended."""
    wia.enable_profiling(ctx, config)
    profiler = wia.begin_profiling(ctx)
    ran = body()
    wia.end_profiling(profiler)
    return profiler, ran


# -- R-3.10-01: enabling ----------------------------------------------------------------------------------------------


@pytest.mark.req("R-3.10-01", "R-3.10-02", "R-3.2.1-02")
def test_profiling_follows_the_capability(ctx: wia.Context, new_context: ContextFactory) -> None:
    caps = wia.get_device_capabilities(wia.get_device(0))
    if caps.supports_profiling:
        wia.enable_profiling(ctx, wia.ProfilerConfig())
        wia.end_profiling(wia.begin_profiling(ctx))
        other = new_context(enable_profiling=True)
        wia.end_profiling(wia.begin_profiling(other))
        return
    # a feature reported as unsupported raises NOT_SUPPORTED when used, never silently does nothing
    ph.assert_raises_code(E.NOT_SUPPORTED, wia.enable_profiling, ctx, wia.ProfilerConfig())
    ph.assert_raises_code(E.NOT_SUPPORTED, wia.enable_profiling, ctx)
    ph.assert_raises_code(E.NOT_SUPPORTED, new_context, enable_profiling=True)
    ph.assert_raises_code(E.NOT_SUPPORTED, wia.begin_profiling, ctx)


@pytest.mark.req("R-3.10-01", "R-3.10-03")
@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"enable_timing": False},
        {"enable_memory_tracking": False},
        {"enable_kernel_profiling": False},
        {"output_format": wia.ProfileFormat.CHROME_TRACE},
        {"enable_timing": False, "enable_memory_tracking": False, "enable_kernel_profiling": False},
    ],
    ids=["defaults", "no-timing", "no-memory", "no-kernels", "chrome", "counts-only"],
)
def test_enable_profiling_with_a_config(fields: dict[str, Any], ctx: wia.Context) -> None:
    ph.requires("supports_profiling")
    config = wia.ProfilerConfig(**fields)
    program = Program((2, 3), (("add", 0), ("matmul", 0), ("add", 0), ("relu", 0)))
    stream = wia.create_stream(ctx)
    profiler, ran = _profile(ctx, config, lambda: _run(program, ctx, [stream]))
    report = wia.get_profile_report(profiler)
    assert_report(report, config, program.launched, f"get_profile_report(p) with {config!r}", live_bytes=ran.live_bytes)
    if config.enable_timing:
        ph.assert_true(report.kernel_time_ms > 0, report.kernel_time_ms, "> 0 after 4 kernels", "kernel_time_ms")
    wia.destroy_profiler(profiler)


@pytest.mark.req("R-3.10-01", "R-3.10-03")
def test_enable_profiling_without_a_config_uses_the_defaults(ctx: wia.Context) -> None:
    ph.requires("supports_profiling")
    wia.enable_profiling(ctx)
    profiler = wia.begin_profiling(ctx)
    a, b, _ = _operands(ctx, (2, 2))
    out = wia.add(a, b, ctx=ctx)
    wia.end_profiling(profiler)
    report = wia.get_profile_report(profiler)
    assert_report(report, wia.ProfilerConfig(), Counter(add=1), "get_profile_report(p) after enable_profiling(ctx)")
    ph.assert_true(report.peak_memory_bytes >= _nbytes(out), report.peak_memory_bytes, "memory tracked", "peak")
    wia.destroy_profiler(profiler)


@pytest.mark.req("R-3.10-01", "R-3.10-02")
def test_context_config_enables_profiling(new_context: ContextFactory) -> None:
    ph.requires("supports_profiling")
    ctx = new_context(enable_profiling=True)
    a, b, _ = _operands(ctx, (3, 2))
    profiler = wia.begin_profiling(ctx)  # no enable_profiling call: the context's config enabled it
    outs = [wia.mul(a, b, ctx=ctx) for _ in range(2)]
    wia.end_profiling(profiler)
    report = wia.get_profile_report(profiler)
    live = sum(_nbytes(t) for t in (a, b, *outs))
    assert_report(report, wia.ProfilerConfig(), Counter(mul=2), "ContextConfig(enable_profiling=True)", live_bytes=live)
    wia.destroy_profiler(profiler)


@pytest.mark.req("R-3.10-01", "R-3.10-02")
def test_begin_without_enabling_is_invalid_value(ctx: wia.Context, new_context: ContextFactory) -> None:
    ph.requires("supports_profiling")
    ph.assert_raises_code(E.INVALID_VALUE, wia.begin_profiling, ctx)
    ph.assert_raises_code(E.INVALID_VALUE, wia.begin_profiling, new_context(enable_profiling=False))


_BAD_CONFIG_FIELDS: list[tuple[str, dict[str, Any]]] = [
    ("str-enable_timing", {"enable_timing": "yes"}),
    ("int-enable_memory_tracking", {"enable_memory_tracking": 1}),
    ("none-enable_kernel_profiling", {"enable_kernel_profiling": None}),
    ("int-output_format", {"output_format": 7}),
    ("str-output_format", {"output_format": "perfetto"}),
    ("unknown-field", {"sample_rate_hz": 1000}),
]


@pytest.mark.req("R-3.10-01")
@pytest.mark.parametrize("fields", [f for _, f in _BAD_CONFIG_FIELDS], ids=[n for n, _ in _BAD_CONFIG_FIELDS])
def test_bad_profiler_config_is_invalid_value(fields: dict[str, Any], ctx: wia.Context) -> None:
    ph.requires("supports_profiling")

    def enable_profiling_with(**config: Any) -> None:
        wia.enable_profiling(ctx, wia.ProfilerConfig(**config))

    ph.assert_raises_code(E.INVALID_VALUE, enable_profiling_with, **fields)
    ph.assert_raises_code(E.INVALID_VALUE, wia.begin_profiling, ctx)  # nothing was enabled


@pytest.mark.req("R-3.10-01")
@pytest.mark.parametrize(
    "config", ["json", {"enable_timing": True}, 1, wia.ContextConfig()], ids=["str", "dict", "int", "ContextConfig"]
)
def test_enable_profiling_rejects_non_configs(config: Any, ctx: wia.Context) -> None:
    ph.requires("supports_profiling")
    ph.assert_raises_code(E.INVALID_VALUE, wia.enable_profiling, ctx, config)
    ph.assert_raises_code(E.INVALID_VALUE, wia.begin_profiling, ctx)


# -- R-3.10-02: begin, end, destroy ----------------------------------------------------------------------------------


@pytest.mark.req("R-3.10-02")
def test_begin_end_destroy(ctx: wia.Context, tmp_path: Path) -> None:
    _requires_profiling(ctx)
    profiler = wia.begin_profiling(ctx)
    ph.assert_isinstance(profiler, wia.Profiler, "begin_profiling(ctx)")
    ph.assert_raises_code(E.INVALID_VALUE, wia.begin_profiling, ctx)  # one open window per context
    wia.end_profiling(profiler)
    ph.assert_raises_code(E.INVALID_VALUE, wia.end_profiling, profiler)  # ended twice
    assert_report(wia.get_profile_report(profiler), wia.ProfilerConfig(), Counter(), "report of an ended window")
    wia.save_profile(profiler, tmp_path / "ended.json")
    second = wia.begin_profiling(ctx)  # the window closed: a new one opens
    wia.end_profiling(second)
    wia.destroy_profiler(profiler)
    wia.destroy_profiler(second)


_DESTROYED_PROFILER_CALLS: list[tuple[str, Callable[[wia.Profiler, Path], Any]]] = [
    ("end_profiling", lambda p, d: wia.end_profiling(p)),
    ("get_profile_report", lambda p, d: wia.get_profile_report(p)),
    ("save_profile", lambda p, d: wia.save_profile(p, d / "p.json")),
    ("save_profile-chrome", lambda p, d: wia.save_profile(p, d / "p.trace.json", wia.ProfileFormat.CHROME_TRACE)),
    ("destroy_profiler", lambda p, d: wia.destroy_profiler(p)),
]


@pytest.mark.req("R-3.10-02")
@pytest.mark.parametrize("when", ["ended", "open"])
@pytest.mark.parametrize(
    "use", [u for _, u in _DESTROYED_PROFILER_CALLS], ids=[n for n, _ in _DESTROYED_PROFILER_CALLS]
)
def test_destroyed_profiler_is_invalid_value(
    use: Callable[[wia.Profiler, Path], Any], when: str, ctx: wia.Context, tmp_path: Path
) -> None:
    _requires_profiling(ctx)
    profiler = wia.begin_profiling(ctx)
    a, b, _ = _operands(ctx, (2, 2))
    wia.add(a, b, ctx=ctx)
    if when == "ended":
        wia.end_profiling(profiler)
    wia.destroy_profiler(profiler)  # destroying an open window ends it first
    ph.assert_raises_code(E.INVALID_VALUE, use, profiler, tmp_path)
    wia.end_profiling(wia.begin_profiling(ctx))  # the context can open a window again


@pytest.mark.req("R-3.10-02", "R-3.10-03", "R-3.10-04")
@pytest.mark.parametrize("value", [None, "profiler", 0], ids=["None", "str", "int"])
def test_non_profilers_are_invalid_value(value: Any, ctx: wia.Context, tmp_path: Path) -> None:
    _requires_profiling(ctx)
    for fn in (wia.end_profiling, wia.get_profile_report, wia.destroy_profiler):
        ph.assert_raises_code(E.INVALID_VALUE, fn, value)
    ph.assert_raises_code(E.INVALID_VALUE, wia.save_profile, value, tmp_path / "p.json")
    ph.assert_raises_code(E.INVALID_VALUE, wia.end_profiling, ctx)  # a context is not its profiler


@pytest.mark.req("R-3.10-02", "R-3.10-03")
def test_destroying_the_context_ends_an_open_window(ctx: wia.Context, tmp_path: Path) -> None:
    _requires_profiling(ctx)
    a, b, w = _operands(ctx, (3, 3))
    profiler = wia.begin_profiling(ctx)
    stream = wia.create_stream(ctx)
    for _ in range(3):
        wia.matmul(a, w, ctx=ctx, stream=stream)
    wia.relu(b, ctx=ctx)
    wia.destroy_context(ctx)
    call = "get_profile_report(p) after destroy_context(ctx) with the window open"
    assert_report(wia.get_profile_report(profiler), wia.ProfilerConfig(), Counter(matmul=3, relu=1), call)
    ph.assert_raises_code(E.INVALID_VALUE, wia.end_profiling, profiler)  # already ended by the context
    wia.save_profile(profiler, tmp_path / "p.json")
    wia.destroy_profiler(profiler)


@pytest.mark.req("R-3.10-02", "R-3.10-03")
def test_two_contexts_profiled_at_once_see_only_their_own_work(new_context: ContextFactory) -> None:
    ph.requires("supports_profiling")
    first, second, quiet = new_context(), new_context(), new_context()
    for ctx in (first, second):
        wia.enable_profiling(ctx, wia.ProfilerConfig())
    ops1, ops2, ops3 = (_operands(ctx, (2, 3)) for ctx in (first, second, quiet))
    stream = wia.create_stream(first)
    p1 = wia.begin_profiling(first)
    p2 = wia.begin_profiling(second)
    for _ in range(2):
        wia.add(ops1[0], ops1[1], ctx=first)
        wia.relu(ops2[0], ctx=second)
        wia.sigmoid(ops3[0], ctx=quiet)
    wia.mul(ops1[0], ops1[1], ctx=first, stream=stream)
    wia.end_profiling(p1)
    wia.relu(ops2[0], ctx=second)
    wia.add(ops1[0], ops1[1], ctx=first)  # after the first window ended: counted nowhere
    wia.matmul(ops2[0], ops2[2], ctx=second)
    wia.end_profiling(p2)
    first_report = wia.get_profile_report(p1)
    assert_report(first_report, wia.ProfilerConfig(), Counter(add=2, mul=1), "report of the first context's window")
    assert_report(
        wia.get_profile_report(p2), wia.ProfilerConfig(), Counter(relu=3, matmul=1), "report of the second context's"
    )
    ph.assert_equal(wia.get_profile_report(p1), first_report, "an ended window's report, asked again")
    for p in (p1, p2):
        wia.destroy_profiler(p)


# -- R-3.10-03: the report --------------------------------------------------------------------------------------------


@pytest.mark.req("R-3.10-03")
def test_reports_of_random_programs(ctx: wia.Context) -> None:
    ph.requires("supports_profiling")
    ph.requires_streams(2)
    streams = [wia.create_stream(ctx), wia.create_stream(ctx)]

    @hh.suite_settings(max_examples=PROGRAM_EXAMPLES)
    @given(program=programs(waits=True), config=profiler_configs())
    def check(program: Program, config: wia.ProfilerConfig) -> None:
        profiler, ran = _profile(ctx, config, lambda: _run(program, ctx, streams))
        call = f"get_profile_report(p) after {program} with {config!r}"
        assert_report(wia.get_profile_report(profiler), config, program.launched, call, live_bytes=ran.live_bytes)
        wia.destroy_profiler(profiler)
        for t in ran.outputs:
            wia.release_tensor(t)

    check()


@pytest.mark.req("R-3.10-03")
def test_an_empty_window(ctx: wia.Context) -> None:
    _requires_profiling(ctx)
    profiler = wia.begin_profiling(ctx)
    wia.end_profiling(profiler)
    report = assert_report(wia.get_profile_report(profiler), wia.ProfilerConfig(), Counter(), "an empty window")
    ph.assert_equal(
        (report.num_kernels, report.kernel_time_ms, report.memory_time_ms, report.kernel_stats),
        (0, 0.0, 0.0, []),
        "(num_kernels, kernel_time_ms, memory_time_ms, kernel_stats) of an empty window",
    )
    wia.destroy_profiler(profiler)


@pytest.mark.req("R-3.10-03")
def test_work_submitted_before_begin_is_not_counted(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    _requires_profiling(ctx)
    n = hh.op_elements(ctx, info, cap=16 * hh.MiB, fraction=32)
    x = wia.tensor(np.ones(n, np.float32), ctx=ctx)
    stream = wia.create_stream(ctx)
    small = _operands(ctx, (2, 2))
    wia.context_synchronize(ctx)
    y = x
    for _ in range(4):  # still running when the window opens (tens of ms of device time)
        y = wia.mul(y, x, ctx=ctx, stream=stream)
    profiler = wia.begin_profiling(ctx)
    wia.add(small[0], small[1], ctx=ctx)
    wia.end_profiling(profiler)
    call = "get_profile_report(p) of a window opened behind 4 muls"
    assert_report(wia.get_profile_report(profiler), wia.ProfilerConfig(), Counter(add=1), call)
    wia.stream_synchronize(stream)
    wia.destroy_profiler(profiler)


@pytest.mark.req("R-3.10-03", "R-3.10-02")
def test_work_pending_at_end_is_counted(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    _requires_profiling(ctx)
    n = hh.op_elements(ctx, info, cap=16 * hh.MiB, fraction=32)
    x = wia.tensor(np.ones(n, np.float32), ctx=ctx)
    stream = wia.create_stream(ctx)
    wia.context_synchronize(ctx)
    profiler = wia.begin_profiling(ctx)
    y = x
    for _ in range(4):
        y = wia.add(y, x, ctx=ctx, stream=stream)
    done = wia.create_event()
    wia.event_record(done, stream)
    wia.end_profiling(profiler)  # waits for the window's work
    ph.assert_equal(wia.event_query(done), True, "event_query(e recorded after the window's work) after end_profiling")
    call = "get_profile_report(p) of a window ended while 4 adds were running"
    report = assert_report(wia.get_profile_report(profiler), wia.ProfilerConfig(), Counter(add=4), call)
    ph.assert_true(report.kernel_time_ms > 0, report.kernel_time_ms, "> 0", f"{call}.kernel_time_ms")
    wia.destroy_profiler(profiler)


@pytest.mark.req("R-3.10-03")
def test_switched_off_parts_are_empty(ctx: wia.Context) -> None:
    ph.requires("supports_profiling")
    stream = wia.create_stream(ctx)
    program = Program((4, 4), (("add", 0), ("concat", 0), ("softmax", 0), ("add", 0)))
    for fields in ({"enable_kernel_profiling": False}, {"enable_timing": False}, {"enable_memory_tracking": False}):
        config = wia.ProfilerConfig(**fields)
        profiler, ran = _profile(ctx, config, lambda: _run(program, ctx, [stream]))
        report = wia.get_profile_report(profiler)
        call = f"get_profile_report(p) with {config!r}"
        assert_report(report, config, program.launched, call, live_bytes=ran.live_bytes)
        if not config.enable_timing:
            for s in report.kernel_stats:
                ph.assert_equal(
                    (s.total_time_ms, s.min_time_ms, s.mean_time_ms, s.max_time_ms), (0.0,) * 4, f"{call}: {s.name}"
                )
        wia.destroy_profiler(profiler)


@pytest.mark.req("R-3.10-03")
def test_peak_memory_covers_live_allocations(ctx: wia.Context) -> None:
    _requires_profiling(ctx)

    @hh.suite_settings(max_examples=PROGRAM_EXAMPLES)
    @given(sizes=st.lists(hh.byte_sizes(256 * hh.KiB), min_size=1, max_size=6), keep=st.data())
    def check(sizes: list[int], keep: st.DataObject) -> None:
        profiler = wia.begin_profiling(ctx)
        live: list[wia.Memory] = []
        most = 0
        for size in sizes:
            live.append(wia.alloc(ctx, size))
            most = max(most, sum(m.size for m in live))
            if keep.draw(st.booleans(), label="free the oldest"):
                wia.free(live.pop(0))
        wia.end_profiling(profiler)
        call = f"get_profile_report(p) after alloc(ctx, n) for n in {sizes}"
        report = assert_report(wia.get_profile_report(profiler), wia.ProfilerConfig(), Counter(), call, live_bytes=most)
        ph.assert_true(report.peak_memory_bytes >= max(sizes), report.peak_memory_bytes, ">= the largest", call)
        for m in live:
            wia.free(m)
        wia.destroy_profiler(profiler)

    check()


@pytest.mark.req("R-3.10-03")
def test_copies_count_as_memory_time(ctx: wia.Context) -> None:
    _requires_profiling(ctx)
    n = 4 * hh.MiB
    host, device = wia.alloc(ctx, n, wia.MemoryType.HOST), wia.alloc(ctx, n)
    profiler = wia.begin_profiling(ctx)
    wia.copy_async(host, device, n)
    wia.copy_async(device, host, n)
    wia.end_profiling(profiler)
    report = assert_report(wia.get_profile_report(profiler), wia.ProfilerConfig(), Counter(), "two 4 MiB copies")
    ph.assert_true(report.memory_time_ms > 0, report.memory_time_ms, "> 0 after two 4 MiB copies", "memory_time_ms")
    wia.destroy_profiler(profiler)


# -- R-3.10-04: saving ------------------------------------------------------------------------------------------------


@pytest.mark.req("R-3.10-04")
@pytest.mark.parametrize("explicit", [False, True], ids=["config-format", "ProfileFormat.JSON"])
def test_save_profile_writes_the_report_as_json(explicit: bool, ctx: wia.Context, tmp_path: Path) -> None:
    ph.requires("supports_profiling")
    ph.requires_streams(2)
    program = Program((3, 2), (("add", 0), ("matmul", 1), ("wait", 0), ("softmax", 0), ("sum", 1)))
    streams = [wia.create_stream(ctx), wia.create_stream(ctx)]
    profiler, _ = _profile(ctx, wia.ProfilerConfig(), lambda: _run(program, ctx, streams))
    path = tmp_path / "profile.json"
    if explicit:
        wia.save_profile(profiler, str(path), wia.ProfileFormat.JSON)
    else:
        wia.save_profile(profiler, path)
    saved = wia.ProfileReport.model_validate_json(path.read_text())
    ph.assert_equal(saved, wia.get_profile_report(profiler), f"ProfileReport read back from save_profile(p, {path})")
    wia.destroy_profiler(profiler)


@pytest.mark.req("R-3.10-04", "R-3.10-03")
def test_chrome_trace_of_random_programs(ctx: wia.Context, tmp_path: Path) -> None:
    ph.requires("supports_profiling")
    ph.requires_streams(2)
    streams = [wia.create_stream(ctx), wia.create_stream(ctx)]

    @hh.suite_settings(max_examples=TRACE_EXAMPLES)
    @given(program=programs(waits=True))
    def check(program: Program) -> None:
        profiler, ran = _profile(ctx, wia.ProfilerConfig(), lambda: _run(program, ctx, streams))
        path = tmp_path / "trace.json"
        wia.save_profile(profiler, path, wia.ProfileFormat.CHROME_TRACE)
        call = f"save_profile(p, path, CHROME_TRACE) after {program}"
        trace = _load_json(path, call)
        report = wia.get_profile_report(profiler)
        assert_chrome_trace(trace, report, ran.launches, call)
        wia.destroy_profiler(profiler)
        for t in ran.outputs:
            wia.release_tensor(t)

    check()


@pytest.mark.req("R-3.10-04", "R-3.10-01")
def test_the_config_output_format_is_the_default(ctx: wia.Context, tmp_path: Path) -> None:
    ph.requires("supports_profiling")
    config = wia.ProfilerConfig(output_format=wia.ProfileFormat.CHROME_TRACE)
    program = Program((2, 2), (("mul", 0), ("max", 0)))
    stream = wia.create_stream(ctx)
    profiler, ran = _profile(ctx, config, lambda: _run(program, ctx, [stream]))
    path = tmp_path / "default-format"
    wia.save_profile(profiler, path)
    call = "save_profile(p, path) with ProfilerConfig(output_format=CHROME_TRACE)"
    assert_chrome_trace(_load_json(path, call), wia.get_profile_report(profiler), ran.launches, call)
    wia.save_profile(profiler, path, wia.ProfileFormat.JSON)  # an explicit format wins
    report = wia.ProfileReport.model_validate_json(path.read_text())
    ph.assert_equal(report, wia.get_profile_report(profiler), "save_profile(p, path, ProfileFormat.JSON) read back")
    wia.destroy_profiler(profiler)


@pytest.mark.req("R-3.10-04")
@pytest.mark.parametrize("format", [7, -1, "json", 1.0, True, None], ids=["7", "-1", "str", "float", "bool", "None"])
def test_save_profile_rejects_bad_formats(format: Any, ctx: wia.Context, tmp_path: Path) -> None:
    _requires_profiling(ctx)
    profiler = wia.begin_profiling(ctx)
    wia.end_profiling(profiler)
    path = tmp_path / "p.json"
    if format is None:  # None means "the config's format": not an error
        wia.save_profile(profiler, path, format)
        ph.assert_true(path.exists(), path, "a file", "save_profile(p, path, None)")
    else:
        ph.assert_raises_code(E.INVALID_VALUE, wia.save_profile, profiler, path, format)
    wia.destroy_profiler(profiler)


@pytest.mark.req("R-3.10-04")
def test_save_profile_to_an_unwritable_path_is_invalid_value(ctx: wia.Context, tmp_path: Path) -> None:
    _requires_profiling(ctx)
    profiler = wia.begin_profiling(ctx)
    wia.end_profiling(profiler)
    for path in (tmp_path / "no-such-folder" / "p.json", tmp_path, 42, None):
        for format in wia.ProfileFormat:
            ph.assert_raises_code(E.INVALID_VALUE, wia.save_profile, profiler, path, format)
    wia.destroy_profiler(profiler)


# -- Chrome traces ----------------------------------------------------------------------------------------------------


def _load_json(path: Path, call: str) -> Any:
    __tracebackhide__ = True
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        ph.fail(ph.fmt(e), "a JSON file", call)


def _number(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)


def assert_chrome_trace(
    trace: object, report: wia.ProfileReport, launches: list[tuple[str, list[tuple[int, ...]]]], call: str
) -> None:
    """``trace`` is a Chrome trace (the Trace Event Format's object form) of a window whose report is ``report``
    and in which ``launches`` (op name, input shapes; float32) were launched."""
    __tracebackhide__ = True
    ph.assert_isinstance(trace, dict, call)
    assert isinstance(trace, dict)
    events = trace.get("traceEvents")
    ph.assert_isinstance(events, list, f"{call}: traceEvents")
    assert isinstance(events, list)
    timed: list[dict[str, Any]] = []
    for i, event in enumerate(events):
        where = f"{call}: traceEvents[{i}] = {ph.fmt(event)}"
        ph.assert_isinstance(event, dict, where)
        ph.assert_true(isinstance(event.get("ph"), str), event.get("ph"), "a phase string 'ph'", where)
        ph.assert_true(_number(event.get("pid")), event.get("pid"), "a numeric 'pid'", where)
        if event["ph"] == "M":
            ph.assert_true(isinstance(event.get("args"), dict), event.get("args"), "metadata 'args'", where)
            if "ts" in event:
                ph.assert_true(_number(event["ts"]), event["ts"], "a numeric 'ts' (us)", where)
            continue
        ph.assert_true(_number(event.get("ts")), event.get("ts"), "a numeric 'ts' (us)", where)
        if event["ph"] == "X":
            ph.assert_true(_number(event.get("dur")) and event["dur"] >= 0, event.get("dur"), "a 'dur' >= 0", where)
            ph.assert_true("tid" in event, sorted(event), "a 'tid'", where)
        timed.append(event)
    slices = [e for e in timed if e["ph"] == "X"]
    _assert_nested(slices, call)
    _assert_flows(timed, call)
    _assert_named(events, timed, call)
    _assert_kernel_slices(slices, report, launches, call)
    if timed:
        first = min(e["ts"] for e in timed)
        last = max(e["ts"] + e.get("dur", 0) for e in timed)
        ph.assert_true(
            last - first <= report.total_time_ms * 1e3 + ROUNDING_US,
            f"events spanning {last - first} us",
            f"at most the window, total_time_ms x 1000 = {report.total_time_ms * 1e3} us",
            call,
        )


def _assert_nested(slices: list[dict[str, Any]], call: str) -> None:
    """Complete slices on one track nest: each ends before the next starts, or contains it."""
    __tracebackhide__ = True
    tracks: dict[tuple[Any, Any], list[dict[str, Any]]] = {}
    for s in slices:
        tracks.setdefault((s["pid"], s["tid"]), []).append(s)
    for track, on_track in tracks.items():
        open_: list[dict[str, Any]] = []
        for s in sorted(on_track, key=lambda e: (e["ts"], -e["dur"])):
            while open_ and open_[-1]["ts"] + open_[-1]["dur"] <= s["ts"] + ROUNDING_US / 2:
                open_.pop()
            if open_:
                outer = open_[-1]
                ph.assert_true(
                    s["ts"] + s["dur"] <= outer["ts"] + outer["dur"] + ROUNDING_US / 2,
                    f"{s['name']!r} at {s['ts']} us for {s['dur']} us",
                    f"nested in {outer['name']!r} at {outer['ts']} us for {outer['dur']} us, or after it",
                    f"{call}: slices of track (pid, tid) = {track}",
                )
            open_.append(s)


def _assert_flows(timed: list[dict[str, Any]], call: str) -> None:
    __tracebackhide__ = True
    starts = {e.get("id") for e in timed if e["ph"] == "s"}
    ends = {e.get("id") for e in timed if e["ph"] == "f"}
    ph.assert_true(starts <= ends, sorted(map(str, starts - ends)), "no flow start without its end", call)
    ph.assert_true(None not in starts | ends, "a flow event without 'id'", "flow events with an 'id'", call)


def _assert_named(events: list[Any], timed: list[dict[str, Any]], call: str) -> None:
    """Every process with events and every track with slices is named by metadata, once."""
    __tracebackhide__ = True
    meta = [e for e in events if e["ph"] == "M"]
    processes = [e["pid"] for e in meta if e.get("name") == "process_name" and e["args"].get("name")]
    threads = [(e["pid"], e.get("tid")) for e in meta if e.get("name") == "thread_name" and e["args"].get("name")]
    for what, named in (("process", processes), ("thread (pid, tid)", threads)):
        twice = sorted({str(x) for x in named if named.count(x) > 1})
        ph.assert_true(not twice, twice, f"each {what} named once (one track, one name)", call)
    for e in timed:
        ph.assert_true(e["pid"] in processes, e["pid"], "a pid named by a process_name event", call)
        if e["ph"] == "X":
            track = (e["pid"], e["tid"])
            ph.assert_true(track in threads, track, "a (pid, tid) named by a thread_name event", call)


def _assert_kernel_slices(
    slices: list[dict[str, Any]],
    report: wia.ProfileReport,
    launches: list[tuple[str, list[tuple[int, ...]]]],
    call: str,
) -> None:
    """Each launch is a slice named by its op whose args name the dtype and the input shapes; a kernel's slices
    last what the report says its calls lasted (x 1000, within rounding)."""
    __tracebackhide__ = True

    def mentions(s: dict[str, Any], shapes: list[tuple[int, ...]]) -> bool:
        text = json.dumps(s.get("args", {}))
        return "float32" in text and all(any(sp in text for sp in ph.shape_spellings(sh)) for sh in shapes)

    wanted = Counter((op, tuple(shapes)) for op, shapes in launches)
    for (op, shapes), count in wanted.items():
        found = [s for s in slices if s.get("name") == op and mentions(s, list(shapes))]
        ph.assert_true(
            len(found) >= count,
            f"{len(found)} slices named {op!r} with float32 {list(shapes)} in their args",
            f"at least {count} (the launches)",
            call,
        )
    shapes_of: dict[str, list[list[tuple[int, ...]]]] = {}
    for op, inputs in launches:
        shapes_of.setdefault(op, []).append(inputs)
    for stats in report.kernel_stats:
        mine = [s for s in slices if s.get("name") == stats.name and any(mentions(s, x) for x in shapes_of[stats.name])]
        where = f"{call}: slices of kernel {stats.name!r} against its KernelStats {stats!r}"
        for s in mine:
            ph.assert_true(
                stats.min_time_ms * 1e3 - ROUNDING_US <= s["dur"] <= stats.max_time_ms * 1e3 + ROUNDING_US,
                s["dur"],
                f"between min_time_ms and max_time_ms x 1000 ({stats.min_time_ms * 1e3}, {stats.max_time_ms * 1e3})",
                where,
            )
        if stats.call_count == 1:
            ph.assert_true(
                any(abs(s["dur"] - stats.total_time_ms * 1e3) <= ROUNDING_US for s in mine),
                [s["dur"] for s in mine],
                f"a slice of total_time_ms x 1000 = {stats.total_time_ms * 1e3} us",
                where,
            )
