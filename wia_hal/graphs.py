"""Graphs: capture a program's device work once, replay it with one call (an extension; ``docs/graphs.md``).

As CUDA graphs do for a decode step: between :func:`begin_capture` and :func:`end_capture` the front end runs as
always (validation, shapes, allocations, so a capture that would not fit is ``OUT_OF_MEMORY`` there) but the work
it would enqueue on the captured contexts' streams is recorded instead (:class:`wia_hal.backend.GraphNode`), and
:func:`launch_graph` enqueues it again, every time, on the same streams, without the front end: the backend sees
the same hook calls in the same order, so results and device timing are those of running the program again, and
a backend that models the host charges one launch for the whole graph (the point of a graph).

Memory: what the program allocates from a context's default pool while it is captured comes from a pool of the
graph's own, which keeps its segments while the graph lives (``memory_gc`` leaves them), so a block the capture
freed and reused is still there for every replay, and nothing else is handed it. Tensors made during the capture
that the program keeps (its outputs) are written by every replay. Everything else the graph reads or writes (the
weights, a KV cache, inputs) must outlive it: a replay of a graph whose memory was released is ``INVALID_VALUE``.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from wia_hal.backend import BufferArg, CapturedMarker, GraphNode, TensorRef
from wia_hal.configs import PoolConfig
from wia_hal.context import Context, create_stream, current_context
from wia_hal.enums import MemoryType
from wia_hal.errors import ErrorDetails, InvalidValueError, NotSupportedError, api
from wia_hal.memory import allocate
from wia_hal.pool import MemoryPool, open_pool

if TYPE_CHECKING:
    from wia_hal.backend import AnyBackend
    from wia_hal.memory import Memory

_RECORDED = ("launch_op", "launch_kernel", "copy", "prefetch", "copy_peer", "collective")
"""Hooks that enqueue work: recorded, not run, while capturing (``record`` and ``wait_marker`` too, below)."""

_REFUSED = {
    "upload": "copy host data to the device",
    "download": "read device data on the host",
    "synchronize": "wait for a stream",
    "wait": "wait for an event",
    "elapsed_ms": "read an event's time",
    "host_view": "access memory from the host",
    "reset_device": "reset a device",
}
"""Hooks that need work to have run: a capture runs nothing, so they cannot be answered inside one."""


class Graph:
    """Device work captured from a program on one or more contexts (with :func:`capture_graph`), replayed with
    :func:`launch_graph` until :func:`release_graph`."""

    def __init__(self, contexts: Sequence[Context]) -> None:
        self.contexts = tuple(contexts)
        self.nodes: list[GraphNode] = []
        self.ops: list[tuple[int, Context]] = []
        """Per ``launch_op`` node (its index), the context whose profiler hears of its replays."""
        self.pools: dict[int, MemoryPool] = {}
        """Per context id, the graph's own pool (see the module docstring)."""
        self.memories: dict[int, Memory] = {}
        """What the nodes touch beyond the graph's pools: checked live at every launch."""
        self.owned: list[Memory] = []
        """An instance's own allocations (:func:`instantiate_graph`), freed with it."""
        self.slots: list[tuple[int, int, MemoryType]] = []
        self.places: dict[int, list[tuple[int, int, int]]] = {}
        self.queues: dict[int, tuple[int, int]] = {}
        """Made at the end of the capture, for :func:`instantiate_graph`: every allocation the nodes touch as
        ``(context index, bytes, memory type)``; per captured buffer (``id``), ``(start, end, slot)`` of the
        slots in it; per captured queue (``id``), ``(context index, stream index)`` (0: the default stream)."""
        self.capturing = False
        self.captured = False
        self.released = False
        self.records: list[Any] = []
        """What each node's hook returned in the latest launch (for ``explain``)."""

    def __repr__(self) -> str:
        state = "released" if self.released else "capturing" if self.capturing else f"{len(self.nodes)} nodes"
        return f"<wia.Graph {state} on {len(self.contexts)} context(s)>"

    def _record_error(self, details: ErrorDetails) -> None:
        for ctx in self.contexts:
            if not ctx.destroyed:
                ctx.last_error = details

    @property
    def num_nodes(self) -> int:
        return len(self.nodes)

    def uses(self, memory: Memory) -> None:
        """A node about to be recorded touches ``memory`` (from ``Memory.used_by``)."""
        pool = self.pools.get(memory.context.id)
        if memory.pool is None or memory.pool is not pool:
            self.memories[id(memory)] = memory


class GraphRecord:
    """What a hook recorded into a graph returns in place of the backend's record (a tensor's ``producer``, a
    kernel's ``last_launch``, a collective's): :func:`resolved` gives the record of the graph's latest launch."""

    __slots__ = ("graph", "index")

    def __init__(self, graph: Graph, index: int) -> None:
        self.graph, self.index = graph, index


def resolved(record: object) -> Any:
    """``record``, or for a :class:`GraphRecord` the record its node's latest launch returned (``explain`` of an
    output of a graph explains its latest launch)."""
    if not isinstance(record, GraphRecord):
        return record
    graph = record.graph
    if graph.released:
        raise InvalidValueError(f"explain: the op was captured into {graph!r}, which was released")
    if not graph.records:
        raise InvalidValueError(f"explain: the op was captured into {graph!r} and has not run yet; launch_graph first")
    found = graph.records[record.index]
    if found is None:
        raise NotSupportedError("explain: the backend keeps no record of what its ops cost")
    return found


class _Recorder:
    """A captured context's backend while it is captured: the hooks that enqueue work append to the graph."""

    def __init__(self, backend: AnyBackend, graph: Graph, context: Context) -> None:
        self._backend = backend
        self._graph = graph
        self._context = context
        self.ops, self.name = backend.ops, backend.name
        for hook in _RECORDED:
            setattr(self, hook, self._recording(hook))
        for hook, what in _REFUSED.items():
            setattr(self, hook, self._refusing(hook, what))

    def __getattr__(self, name: str) -> Any:  # allocation, queries, device info: the backend's own
        return getattr(self._backend, name)

    def _recording(self, hook: str) -> Any:
        nodes, graph, context = self._graph.nodes, self._graph, self._context

        def record(*args: Any) -> GraphRecord:
            if hook in ("collective", "copy_peer"):  # the only hooks given queues of other contexts
                queues = args[0] if hook == "collective" else (args[0], args[2])
                for queue in queues:
                    if not any(id(queue) in c.queue_labels for c in graph.contexts):
                        raise InvalidValueError(
                            f"{hook}: a device it involves is not captured into {graph!r}; capture every context "
                            "the program's collectives and peer copies span (begin_capture([ctx0, ctx1, ...]))"
                        )
            if hook == "launch_op":
                graph.ops.append((len(nodes), context))
            nodes.append(GraphNode(hook, args))
            return GraphRecord(graph, len(nodes) - 1)

        return record

    def _refusing(self, hook: str, what: str) -> Any:
        context = self._context

        def refuse(*args: Any, **kwargs: Any) -> None:
            raise InvalidValueError(
                f"cannot {what} while a graph is being captured on {context!r}: a capture records work without "
                "running it; end the capture (end_capture) first, or do this before begin_capture"
            )

        return refuse

    def record(self, queue: Any) -> CapturedMarker:
        marker = CapturedMarker()
        self._graph.nodes.append(GraphNode("record", (queue,), marker))
        return marker

    def wait_marker(self, queue: Any, marker: Any) -> None:
        self._graph.nodes.append(GraphNode("wait_marker", (queue, marker)))

    def query(self, marker: Any) -> bool:
        if isinstance(marker, CapturedMarker):  # recorded in this capture: it has not run
            return False
        return bool(self._backend.query(marker))

    def explain_collective(self, record: object) -> Any:  # (a collective keeps the backend that ran it: this one)
        return self._backend.explain_collective(resolved(record))


def _contexts(contexts: Context | Sequence[Context] | None) -> list[Context]:
    if contexts is None or isinstance(contexts, Context):
        return [current_context(contexts)]
    if isinstance(contexts, (str, bytes)) or not isinstance(contexts, Sequence) or not contexts:
        raise InvalidValueError(
            f"capture: expected a Context or a non-empty sequence of contexts, got {type(contexts).__name__}"
        )
    checked = [current_context(c) if isinstance(c, Context) else c for c in contexts]
    for c in checked:
        if not isinstance(c, Context):
            raise InvalidValueError(f"capture: expected wia Contexts, got a {type(c).__name__}")
    if len({c.id for c in checked}) != len(checked):
        raise InvalidValueError("capture: a context is listed twice")
    return checked


@api
def begin_capture(contexts: Context | Sequence[Context] | None = None) -> Graph:
    """Start capturing the device work of ``contexts`` (one, several for a multi-device program such as tensor
    parallelism, or None: the current one) into a new :class:`Graph`; :func:`end_capture` ends it."""
    checked = _contexts(contexts)
    for ctx in checked:
        if ctx.capture is not None:
            raise InvalidValueError(f"begin_capture: {ctx!r} is already being captured into {ctx.capture!r}")
    graph = Graph(checked)
    for ctx in checked:
        graph.pools[ctx.id] = pool = open_pool(ctx, PoolConfig())
        pool.graph = graph
        ctx.capture = graph
        ctx.capture_saved = (ctx.backend, ctx.default_pool)
        ctx.backend = _Recorder(ctx.backend, graph, ctx)  # type: ignore[assignment]
        ctx.default_pool = pool
    graph.capturing = True
    return graph


def _stop(graph: Graph) -> None:
    for ctx in graph.contexts:
        if ctx.capture is graph:
            ctx.backend, ctx.default_pool = ctx.capture_saved
            ctx.capture, ctx.capture_saved = None, None
    graph.capturing = False


@api
def end_capture(graph: Graph) -> Graph:
    """End the capture: the contexts run their work again; ``graph`` holds what was recorded."""
    graph = _check(graph, "end_capture")
    if not graph.capturing:
        raise InvalidValueError(f"end_capture: {graph!r} is not being captured")
    _stop(graph)
    graph.captured = True
    _describe(graph)
    return graph


def _describe(graph: Graph) -> None:
    """What :func:`instantiate_graph` needs to make the graph's memory and streams elsewhere: its slots and
    queues, by position rather than handle."""
    index = {ctx.id: i for i, ctx in enumerate(graph.contexts)}
    memories = [*graph.memories.values(), *(seg.memory for pool in graph.pools.values() for seg in pool.segments)]
    for memory in memories:
        slot = len(graph.slots)
        graph.slots.append((index[memory.context.id], memory.size, memory.type))
        graph.places.setdefault(id(memory.buffer), []).append((memory.offset, memory.offset + memory.size, slot))
    for i, ctx in enumerate(graph.contexts):
        for k, stream in enumerate((ctx.default_stream, *ctx.streams)):
            graph.queues[id(stream.queue)] = (i, k)


@contextmanager
def capture_graph(contexts: Context | Sequence[Context] | None = None) -> Iterator[Graph]:
    """``with wia.capture_graph(ctx) as g: step()``: :func:`begin_capture`, then :func:`end_capture` (on an
    exception the capture is abandoned and the graph released)."""
    graph = begin_capture(contexts)
    try:
        yield graph
    except BaseException:
        _stop(graph)
        _release(graph)
        raise
    end_capture(graph)


def _check(graph: object, function: str) -> Graph:
    if not isinstance(graph, Graph):
        raise InvalidValueError(f"{function}: expected a wia Graph (from begin_capture), got {type(graph).__name__}")
    if graph.released:
        raise InvalidValueError(f"{function}: {graph!r} was released")
    return graph


@api
def launch_graph(graph: Graph) -> None:
    """Enqueue the graph's work again on the streams it was captured from, after the work already there (each
    stream's order), with the host cost of one launch per device on a backend that models it."""
    graph = _check(graph, "launch_graph")
    if not graph.captured:
        raise InvalidValueError(f"launch_graph: {graph!r} is still being captured; end_capture first")
    for ctx in graph.contexts:
        ctx.check()
        if ctx.capture is not None:
            raise InvalidValueError(f"launch_graph: {ctx!r} is being captured; a graph cannot be launched into it")
    for memory in graph.memories.values():
        if memory.freed:
            raise InvalidValueError(
                f"launch_graph: {graph!r} uses {memory!r}, which was released after the capture; keep the tensors "
                "and memory a graph reads or writes alive while it is launched"
            )
    records = graph.records = graph.contexts[0].backend.launch_graph(graph.nodes)
    for index, ctx in graph.ops:
        if ctx.profiler is not None:
            _, op, refs, out, attrs = graph.nodes[index].args
            ctx.profiler.on_op(records[index], op, refs, out, attrs)


@api
def instantiate_graph(graph: Graph, contexts: Context | Sequence[Context]) -> Graph:
    """A copy of ``graph`` that runs on other contexts (as many as it was captured on, in the same order; of any
    device and backend instance, e.g. the same model on a variation of the hardware): every allocation the graph
    reads or writes is made anew there, uninitialised (``OUT_OF_MEMORY`` if it does not fit, with nothing left
    allocated), and the copy's nodes use it; streams beyond the default are created. Waits on events recorded
    before the capture order the graph after work outside it, which the new contexts do not have: they are
    dropped. What the copy computes is defined only once its inputs are written (``copy_into`` into the
    memory is not possible: it is the copy's own), so it serves timing-only what-if runs, where a capture's front
    end would cost as much as the run. Graphs that launch custom kernels are ``NOT_SUPPORTED`` (a compiled kernel
    belongs to its device)."""
    graph = _check(graph, "instantiate_graph")
    if not graph.captured:
        raise InvalidValueError(f"instantiate_graph: {graph!r} is still being captured; end_capture first")
    targets = _contexts(contexts)
    if len(targets) != len(graph.contexts):
        raise InvalidValueError(
            f"instantiate_graph: {graph!r} was captured on {len(graph.contexts)} context(s), got {len(targets)}"
        )
    for ctx in targets:
        if ctx.capture is not None:
            raise InvalidValueError(f"instantiate_graph: {ctx!r} is being captured")
    if any(node.hook == "launch_kernel" for node in graph.nodes):
        raise NotSupportedError(
            "instantiate_graph: the graph launches custom kernels, which are compiled for the device they were "
            "built on; capture it on the target contexts instead"
        )
    copy = Graph(targets)
    collecting = gc.isenabled()
    gc.disable()  # tens of thousands of new objects and no cycles: the collector's passes would cost half
    try:
        for i, nbytes, memory_type in graph.slots:
            copy.owned.append(allocate(targets[i], nbytes, memory_type))
        queues: dict[int, Any] = {}
        for key, (i, k) in graph.queues.items():
            ctx = targets[i]
            while len(ctx.streams) < k:
                create_stream(ctx)
            queues[key] = (ctx.default_stream, *ctx.streams)[k].queue
        copy.nodes = _Rebinder(graph, copy, queues).nodes()
        owners = {id(queue): targets[graph.queues[key][0]] for key, queue in queues.items()}
        copy.ops = [(i, owners[id(node.args[0])]) for i, node in enumerate(copy.nodes) if node.hook == "launch_op"]
    except BaseException:
        for memory in copy.owned:
            memory.release()
        raise
    finally:
        if collecting:
            gc.enable()
    copy.memories = {id(m): m for m in copy.owned}
    copy.captured = True
    return copy


class _Rebinder:
    """A captured graph's nodes with its handles replaced by an instance's (see :func:`instantiate_graph`)."""

    def __init__(self, graph: Graph, copy: Graph, queues: dict[int, Any]) -> None:
        self.graph, self.copy, self.queues = graph, copy, queues
        self.refs: dict[int, Any] = {}
        self.markers: dict[int, CapturedMarker] = {}

    def nodes(self) -> list[GraphNode]:
        out = []
        for node in self.graph.nodes:
            hook, args = node.hook, node.args
            if hook == "wait_marker" and not isinstance(args[1], CapturedMarker):
                continue  # ordered after work outside the graph: there is none on the new contexts
            new: tuple[Any, ...]
            if hook == "launch_op":  # most nodes: their arguments' kinds are known
                queue, op, inputs, output, attrs = args
                new = (self.queues[id(queue)], op, [self.ref(r) for r in inputs], self.ref(output), attrs)
            elif hook == "copy":
                queue, src, src_offset, dst, dst_offset, nbytes = args
                new = (self.queues[id(queue)], *self.place(src, src_offset), *self.place(dst, dst_offset), nbytes)
            elif hook == "prefetch":
                queue, buffer, offset, nbytes, to_device = args
                new = (self.queues[id(queue)], *self.place(buffer, offset), nbytes, to_device)
            else:
                new = tuple(self.value(a) for a in args)
            marker = None if node.marker is None else self.marker(node.marker)
            out.append(GraphNode(hook, new, marker))
        return out

    def place(self, buffer: object, offset: int) -> tuple[object, int]:
        """The instance's buffer and offset for ``offset`` in a captured buffer."""
        for start, end, slot in self.graph.places.get(id(buffer), ()):
            if start <= offset < end or offset == start:
                memory = self.copy.owned[slot]
                return memory.buffer, memory.offset + offset - start
        raise NotSupportedError(
            "instantiate_graph: a node touches memory the capture did not see used (the graph cannot be copied)"
        )

    def marker(self, marker: CapturedMarker) -> CapturedMarker:
        found = self.markers.get(id(marker))
        if found is None:
            found = self.markers[id(marker)] = CapturedMarker()
        return found

    def ref(self, ref: TensorRef[Any]) -> TensorRef[Any]:
        """One new ref per captured one (a backend may cache per ref)."""
        found = self.refs.get(id(ref))
        if found is None:
            buffer, offset = self.place(ref.buffer, ref.offset)
            found = self.refs[id(ref)] = TensorRef(buffer, offset, ref.shape, ref.strides, ref.dtype)
        return found

    def value(self, value: Any) -> Any:
        kind = type(value)
        if kind is TensorRef:
            return self.ref(value)
        if kind is BufferArg:
            found = self.refs.get(id(value))
            if found is None:
                buffer, offset = self.place(value.buffer, value.offset)
                found = self.refs[id(value)] = replace(value, buffer=buffer, offset=offset)
            return found
        if kind is list or kind is tuple:
            return kind(self.value(v) for v in value)
        if kind is CapturedMarker:
            return self.marker(value)
        queue = self.queues.get(id(value))
        return value if queue is None else queue


def _release(graph: Graph) -> None:
    graph.released = True
    graph.nodes.clear()
    graph.ops.clear()
    graph.records = []
    graph.memories.clear()
    for memory in graph.owned:
        if not memory.context.destroyed:
            memory.release()
    graph.owned.clear()
    for pool in graph.pools.values():
        pool.graph = None
        if not pool.destroyed and not pool.context.destroyed:
            pool.release_free_segments()


@api
def release_graph(graph: Graph) -> None:
    """Drop the graph: its pools' free memory goes back to the device (blocks of tensors the program kept stay
    until those are released)."""
    graph = _check(graph, "release_graph")
    if graph.capturing:
        raise InvalidValueError(f"release_graph: {graph!r} is being captured; end_capture first")
    _release(graph)


__all__ = [
    "Graph",
    "begin_capture",
    "capture_graph",
    "end_capture",
    "instantiate_graph",
    "launch_graph",
    "release_graph",
]
