"""A profiling window of one context: the host's API calls and what they spent their time on, the device work the
backend reports (:class:`~wia_hal.backend.Activity`), and the context's memory over time. The report
(:mod:`wia_hal.profiling.report`) and the timeline (:mod:`wia_hal.profiling.chrome`) are both made from it.

The front end aggregates (DESIGN.md): a backend only keeps activities while :meth:`Backend.set_profiling` is on
and hands them over when asked, so every backend that claims profiling gets the same report and timeline.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from threading import get_ident
from typing import TYPE_CHECKING, Any, ClassVar

from wia_hal.backend import Activity, ActivityKind, AnyBackend, BufferArg, KernelArg, NDRange, TensorRef
from wia_hal.errors import set_call_tracer
from wia_hal.models import ProfilerConfig
from wia_hal.opset import OpAttrs

if TYPE_CHECKING:
    from wia_hal.context import Context

DRAIN_EVERY = 1024
"""Outermost API calls between two collections of completed activities while profiling: the backend then holds
at most about this many, whatever the program's length."""


Row = tuple[ActivityKind, str, str, str, float, float, float, float, float, str, str, str, int, int]
"""One activity as kept: kind, name, stream, engine, submitted, started, ended, bytes, FLOPs, bound, algorithm,
precision, the index of its launch's signature and of its handle (-1: none)."""

HostPiece = tuple[int, str, float, float, int]
"""How a host slice is kept while profiling: thread ident, name, start, end, depth (a tuple: one per call)."""


@dataclass(slots=True)
class HostSlice:
    """Host time: an outermost API call (``depth`` 0) or a backend call it made (``depth`` 1: allocation, launch,
    waiting), on the thread that made it."""

    thread: int
    thread_name: str
    name: str
    start_ms: float
    end_ms: float
    depth: int
    args: dict[str, Any] | None = None


class Launch:
    """What the front end knows of a launch that the backend's activity does not: the op or kernel and its
    operands (shapes, dtypes, attributes), so that the report can group by signature and the timeline show them.
    Kept as given and formatted only when read (a profiled program makes one per launch)."""

    __slots__ = ("_attrs", "inputs", "name", "output")

    def __init__(
        self,
        name: str,
        inputs: tuple[tuple[tuple[int, ...], Any], ...],
        output: tuple[tuple[int, ...], Any] | None,
        attrs: OpAttrs | dict[str, Any] | None,
    ) -> None:
        self.name = name
        self.inputs = inputs
        self.output = output
        self._attrs = attrs

    @property
    def key(self) -> object:
        """What two launches of one signature share (hashable)."""
        attrs: object = self._attrs
        try:
            hash(attrs)
        except TypeError:  # a dict, or a model with a list field
            attrs = repr(attrs)
        return (self.name, self.inputs, self.output, attrs)

    @property
    def attrs(self) -> dict[str, Any]:
        attrs = self._attrs
        if attrs is None:
            return {}
        return attrs if isinstance(attrs, dict) else _attrs(attrs)

    @property
    def signature(self) -> str:
        def operand(shape: tuple[int, ...], dtype: Any) -> str:
            return f"{getattr(dtype, 'name', dtype)}[{','.join(map(str, shape))}]"

        text = ", ".join(operand(*i) for i in self.inputs)
        attrs = self.attrs
        if attrs:
            text += (", " if text else "") + ", ".join(f"{k}={v}" for k, v in attrs.items())
        out = f" -> {operand(*self.output)}" if self.output is not None else ""
        return f"{self.name}({text}){out}"


@dataclass(slots=True)
class DeviceWork:
    """One completed activity of the profiled context, with the name of its stream and what was launched."""

    activity: Activity[Any]
    stream: str
    launch: Launch | None


@dataclass(slots=True)
class MemorySample:
    """The context's memory after a change: held from the device (pool segments included) and in use."""

    time_ms: float
    reserved: int
    in_use: int


def _attrs(attrs: OpAttrs) -> dict[str, Any]:
    """The attributes that differ from their defaults, as plain values (enums by name)."""
    out: dict[str, Any] = {}
    for name, value in attrs:
        if value == type(attrs).model_fields[name].default:
            continue
        out[name] = getattr(value, "name", value)
    return out


@dataclass(eq=False)
class Profiler:
    """A profiling window of one context (R-3.10-02). Create with :func:`begin_profiling`."""

    context: Context
    config: ProfilerConfig
    backend: AnyBackend
    start_ms: float
    end_ms: float | None = None
    destroyed: bool = False
    pieces: list[HostPiece] = field(default_factory=list)
    threads: dict[int, str] = field(default_factory=dict)
    samples: list[tuple[float, int, int]] = field(default_factory=list)
    launches: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    """Launches whose activity has not come back yet, by the id of the backend's record (kept alive meanwhile)."""
    rows: list[Row] = field(default_factory=list)
    """The window's device work, one tuple of plain values per activity: a long profile then costs the garbage
    collector nothing (tuples of numbers and strings are not tracked), where an object per activity made
    profiling half again as slow."""
    signatures: list[Launch] = field(default_factory=list)
    signature_index: dict[object, int] = field(default_factory=dict)
    handles: list[object] = field(default_factory=list)
    handle_index: dict[int, int] = field(default_factory=dict)
    _work: list[DeviceWork] | None = None
    api_calls: int = 0

    def __repr__(self) -> str:
        state = "destroyed" if self.destroyed else ("ended" if self.end_ms is not None else "active")
        return f"<wia.Profiler {state} of {self.context!r}>"

    @property
    def active(self) -> bool:
        return self.end_ms is None and not self.destroyed

    @property
    def device(self) -> int:
        return self.context.device.index

    def end(self) -> None:
        """End the window now (its context is being destroyed)."""
        if self.active:
            stop(self)

    # what the front end tells the profiler

    def on_launch(self, record: object, launch: Launch) -> None:
        if record is not None:
            self.launches[id(record)] = (record, launch)  # the record is kept: its id stays unique

    def on_op(
        self, record: object, op: str, inputs: Sequence[TensorRef[Any]], out: TensorRef[Any], attrs: OpAttrs
    ) -> None:
        if self.config.enable_kernel_profiling and record is not None:
            operands = tuple([(ref.shape, ref.dtype) for ref in inputs])  # not the refs: they hold the buffers
            self.launches[id(record)] = (record, op, operands, (out.shape, out.dtype), attrs)

    def on_kernel(self, record: object, name: str, ndrange: NDRange, args: Sequence[KernelArg[Any]]) -> None:
        if self.config.enable_kernel_profiling:
            buffers = tuple(((a.nbytes,), "bytes") for a in args if isinstance(a, BufferArg))
            dims = ndrange.work_dim
            attrs: dict[str, Any] = {"global": list(ndrange.global_size[:dims])}
            if ndrange.local_size is not None:
                attrs["local"] = list(ndrange.local_size[:dims])
            if any(ndrange.global_offset):
                attrs["offset"] = list(ndrange.global_offset[:dims])
            self.on_launch(record, Launch(name, buffers, None, attrs))

    def on_memory(self) -> None:
        """Sample the context's memory (only while tracking memory: see :meth:`Context.memory_changed`)."""
        ctx = self.context
        self.samples.append((self.backend.clock_ms(), ctx.bytes_allocated, ctx.bytes_in_use))

    @property
    def peak_reserved(self) -> int:
        return max((sample[1] for sample in self.samples), default=0)

    @property
    def peak_in_use(self) -> int:
        return max((sample[2] for sample in self.samples), default=0)

    def on_host(self, piece: HostPiece) -> None:
        if piece[4] == 0:
            self.api_calls += 1
        if self.config.enable_timing:
            self.pieces.append(piece)
            if piece[0] not in self.threads:
                self.threads[piece[0]] = threading.current_thread().name

    @property
    def host(self) -> list[HostSlice]:
        """The host's slices, in the order they ended."""
        names = self.threads
        return [HostSlice(t, names.get(t, str(t)), n, a, b, d) for t, n, a, b, d in self.pieces]

    @property
    def memory(self) -> list[MemorySample]:
        return [MemorySample(*sample) for sample in self.samples]

    def take(self, activities: Sequence[Activity[Any]], streams: dict[int, str]) -> None:
        """Keep the activities of this context's queues submitted inside the window."""
        start, end = self.start_ms, self.end_ms
        if end is None:
            end = float("inf")
        pop, signature_of, handle_of = self.launches.pop, self._signature, self._handle
        append = self.rows.append
        for a in activities:
            label = streams.get(id(a.queue))
            if label is None or not start <= a.submitted_ms <= end:
                continue
            signature = handle = -1
            kind = a.kind
            if a.handle is not None:
                if kind == "kernel":
                    found = pop(id(a.handle), None)
                    if found is not None:
                        signature = signature_of(found)
                elif kind in ("marker", "wait"):
                    handle = handle_of(a.handle)
            append(
                (kind, a.name, label, a.engine, a.submitted_ms, a.started_ms, a.ended_ms, a.nbytes, a.flops,
                 a.bound, a.algorithm, a.precision, signature, handle)
            )  # fmt: skip
        self._work = None

    def _signature(self, found: tuple[Any, ...]) -> int:
        """The index of a launch's signature, from what ``on_op`` (record, op, input refs, output ref, attribute
        model) or ``on_kernel`` (record, Launch) kept."""
        if len(found) == 2:
            launch: Launch = found[1]
            key = launch.key
        else:
            _, op, operands, output, attrs = found
            values = tuple(attrs.__dict__.values())
            key = (op, operands, output, type(attrs), values)
            try:
                hash(key)
            except TypeError:  # a model with a list field
                key = (op, operands, output, repr(attrs))
        index = self.signature_index.get(key)
        if index is None:
            if len(found) != 2:
                launch = Launch(op, operands, output, attrs)
            index = self.signature_index[key] = len(self.signatures)
            self.signatures.append(launch)
        return index

    def _handle(self, handle: object) -> int:
        index = self.handle_index.get(id(handle))
        if index is None:
            index = self.handle_index[id(handle)] = len(self.handles)
            self.handles.append(handle)  # kept: its id stays unique
        return index

    @property
    def work(self) -> list[DeviceWork]:
        """The window's device work as records (made on first use after new work came in)."""
        if self._work is None:
            signatures, handles = self.signatures, self.handles
            self._work = [
                DeviceWork(
                    Activity(None, kind, name, engine, sub, st, en, handles[h] if h >= 0 else None, nb, fl, b, al, pr),
                    stream,
                    signatures[sig] if sig >= 0 else None,
                )
                for kind, name, stream, engine, sub, st, en, nb, fl, b, al, pr, sig, h in self.rows
            ]
        return self._work

    def forget(self) -> None:
        """Drop everything kept (``destroy_profiler``)."""
        for kept in (self.pieces, self.samples, self.rows, self.signatures, self.handles):
            kept.clear()
        for index in (self.launches, self.signature_index, self.handle_index):
            index.clear()
        self._work = None


# -- the profilers alive in this process and the hooks they install ---------------------------------------------------

_active: list[Profiler] = []
_since_drain = 0


def active_profilers() -> list[Profiler]:
    return _active


class _Tracer:
    """The call tracer (see :func:`wia_hal.errors.set_call_tracer`): a host slice per outermost API call, and a
    collection of completed activities every :data:`DRAIN_EVERY` calls."""

    def __init__(self) -> None:
        self.since_drain = 0

    def enter(self, function: str) -> float:
        return _active[0].backend.clock_ms() if _active else 0.0

    def exit(self, function: str, started: float) -> None:
        if not _active:  # the call ended the last window
            return
        backend = _active[0].backend
        piece = (get_ident(), function, started, backend.clock_ms(), 0)
        for profiler in _active:
            profiler.on_host(piece)
        self.since_drain += 1
        if self.since_drain >= DRAIN_EVERY:
            self.since_drain = 0
            for device in {p.device for p in _active}:
                collect(backend, device)


_tracer = _Tracer()


def stream_labels(ctx: Context) -> dict[int, str]:
    return {id(queue): label for queue, label in ctx.queue_labels.values()}


def collect(backend: AnyBackend, device: int) -> None:
    """Hand the activities ``device`` completed to the profilers of its contexts."""
    activities = backend.activities(device)
    if not activities:
        return
    for profiler in _active:
        if profiler.device == device:
            profiler.take(activities, stream_labels(profiler.context))


class TimedBackend:
    """The context's backend while it is profiled: the backend calls that take host time (allocation, launch,
    transfers, waits) become host slices nested in the API call that made them."""

    _TIMED: ClassVar[dict[str, str]] = {
        "allocate": "allocate",
        "free": "free",
        "launch_op": "launch",
        "launch_kernel": "launch kernel",
        "compile_kernel": "compile kernel",
        "copy": "enqueue copy",
        "upload": "upload",
        "download": "download",
        "synchronize": "synchronize",
        "wait": "wait for event",
        "host_view": "host access",
        "prefetch": "enqueue prefetch",
    }

    def __init__(self, backend: AnyBackend, profiler: Profiler) -> None:
        self._backend = backend
        self.ops, self.name = backend.ops, backend.name  # read by every launch: no __getattr__ for them
        if profiler.config.enable_timing:
            for name, label in self._TIMED.items():
                setattr(self, name, self._timed(getattr(backend, name), name, label, profiler))

    def __getattr__(self, name: str) -> Any:  # what is not timed is the backend's own
        return getattr(self._backend, name)

    @staticmethod
    def _timed(method: Callable[..., Any], name: str, label: str, profiler: Profiler) -> Callable[..., Any]:
        clock, pieces = profiler.backend.clock_ms, profiler.pieces
        profiler.threads.setdefault(get_ident(), threading.current_thread().name)
        if name == "launch_op":  # the slice names the op: "launch matmul"

            def launch(queue: Any, op: str, *args: Any) -> Any:
                start = clock()
                try:
                    return method(queue, op, *args)
                finally:
                    pieces.append((get_ident(), f"launch {op}", start, clock(), 1))

            return launch
        if name == "allocate":  # "allocate 4096 B DEVICE"

            def allocate(device: int, nbytes: int, memory_type: Any) -> Any:
                start = clock()
                try:
                    return method(device, nbytes, memory_type)
                finally:
                    pieces.append((get_ident(), f"allocate {nbytes} B {memory_type.name}", start, clock(), 1))

            return allocate

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return method(*args, **kwargs)
            finally:
                pieces.append((get_ident(), label, start, clock(), 1))

        return timed


def start(profiler: Profiler) -> None:
    """Make ``profiler`` the context's and switch on what it needs."""
    ctx = profiler.context
    if not any(p.device == profiler.device for p in _active):
        profiler.backend.set_profiling(profiler.device, True)
        profiler.backend.activities(profiler.device)  # nothing from before the window
    _active.append(profiler)
    ctx.profiler = profiler
    ctx.backend = TimedBackend(profiler.backend, profiler)  # type: ignore[assignment]
    set_call_tracer(_tracer)
    ctx.memory_changed()


def stop(profiler: Profiler) -> None:
    """Close the window: the context's work submitted in it is waited for and collected first."""
    ctx = profiler.context
    backend = profiler.backend
    if not ctx.destroyed:
        for stream in (ctx.default_stream, *ctx.streams):
            backend.synchronize(stream.queue, None)
    collect(backend, profiler.device)
    profiler.end_ms = max(backend.clock_ms(profiler.device), profiler.start_ms)
    _active.remove(profiler)
    if ctx.profiler is profiler:
        ctx.profiler = None
        ctx.backend = backend
    if not any(p.device == profiler.device for p in _active):
        backend.set_profiling(profiler.device, False)
    if not _active:
        set_call_tracer(None)
