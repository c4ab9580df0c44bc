"""SPEC 3.4, 3.4.1 and the stream half of 3.8: streams, events, waits (``create_stream``, which takes the Level-1
default context, is with the context, which owns its streams)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from wia_hal.enums import StreamFlags
from wia_hal.errors import ErrorDetails, InvalidContextError, InvalidValueError, api

if TYPE_CHECKING:
    from wia_hal.context import Context


class Stream:
    """An in-order queue of device work (R-3.4-01). Create with :func:`create_stream`."""

    __slots__ = ("context", "destroyed", "flags", "label", "queue")

    def __init__(self, context: Context, flags: StreamFlags, label: str) -> None:
        self.context = context
        self.flags = flags
        self.label = label
        """How reports, timelines and findings name the stream: ``stream 2 of context 1``."""
        backend = context.backend
        self.queue = backend.create_queue(context.device.index)
        backend.name_queue(self.queue, label)
        context.queue_labels[id(self.queue)] = (self.queue, label)
        self.destroyed = False

    def __repr__(self) -> str:
        return f"<wia.Stream {self.label}{' (destroyed)' if self.destroyed else ''}>"

    def _record_error(self, details: ErrorDetails) -> None:
        self.context.last_error = details

    def check(self) -> Stream:
        self.context.check()
        if self.destroyed:
            raise InvalidValueError(f"{self!r} was destroyed")
        return self

    def synchronize(self) -> None:
        ctx = self.context
        ok = ctx.backend.synchronize(self.queue, ctx.timeout_ms)
        ctx.wait_timeout("stream_synchronize", ok, ctx.timeout_ms)


class Event:
    """A point in a stream (R-3.4.1-01). Recording again moves the point; waits use the latest record."""

    __slots__ = ("context", "destroyed", "marker")

    def __init__(self) -> None:
        self.context: Context | None = None
        self.marker: object = None
        self.destroyed = False

    def __repr__(self) -> str:
        state = "destroyed" if self.destroyed else ("recorded" if self.marker is not None else "not recorded")
        return f"<wia.Event {state}>"

    def _record_error(self, details: ErrorDetails) -> None:
        if self.context is not None:
            self.context.last_error = details

    def check(self) -> Event:
        if self.destroyed:
            raise InvalidValueError(f"{self!r} was destroyed")
        return self


def check_stream(stream: object) -> Stream:
    if not isinstance(stream, Stream):
        raise InvalidValueError(f"expected a wia Stream (from create_stream), got {type(stream).__name__}")
    return stream.check()


def check_event(event: object) -> Event:
    if not isinstance(event, Event):
        raise InvalidValueError(f"expected a wia Event (from create_event), got {type(event).__name__}")
    return event.check()


class _Submissions(threading.local):
    """Per host thread: the streams each open :func:`tracking_submissions` block has seen work go to."""

    def __init__(self) -> None:
        self.blocks: list[dict[Stream, None]] = []


_submissions = _Submissions()


class tracking_submissions:
    """``with tracking_submissions() as streams:``: ``streams`` collects (in first-use order) every stream that work
    was submitted to by this thread inside the block (a fence covers them: :mod:`wia_hal.sync`). Blocks nest."""

    __slots__ = ("streams",)

    def __init__(self) -> None:
        self.streams: dict[Stream, None] = {}

    def __enter__(self) -> dict[Stream, None]:
        _submissions.blocks.append(self.streams)
        return self.streams

    def __exit__(self, *exc: object) -> None:
        _submissions.blocks.remove(self.streams)


def stream_for(ctx: Context, stream: Stream | None) -> Stream:
    """The stream work of ``ctx`` goes to: ``stream`` (checked to belong to ``ctx``); without one, the stream of
    the innermost ``with use_stream(s):`` block whose stream is of ``ctx``, else ``ctx``'s default stream.

    Every call that submits device work picks its stream here, which is what makes this the one place
    :class:`tracking_submissions` learns of it."""
    if stream is None:
        for scoped in reversed(ctx.runtime.stream_scopes):
            if scoped.context is ctx and not scoped.destroyed:
                stream = scoped
                break
        else:
            stream = ctx.default_stream
    else:
        stream = check_stream(stream)
        if stream.context is not ctx:
            raise InvalidContextError(f"{stream!r} belongs to another context than {ctx!r}")
    for block in _submissions.blocks:
        block[stream] = None
    return stream


class use_stream:
    """``with wia.use_stream(s):``: calls in the block that take a ``stream=`` and are given none use ``s`` (if it is
    of their context), and calls that take a ``ctx=`` and are given none use ``s``'s context.

    The rule for a call without ``stream=`` is then: the stream of the innermost ``use_stream`` block of the call's
    context, else that context's default stream; the default stream never waits for other streams by itself
    (``StreamFlags``), so work handed between streams still needs an event. Blocks nest; they are per process, not
    per thread.
    """

    __slots__ = ("stream",)

    def __init__(self, stream: Stream) -> None:
        self.stream = _scoped(stream)

    def __enter__(self) -> Stream:
        self.stream.context.runtime.stream_scopes.append(self.stream)
        return self.stream

    def __exit__(self, *exc: object) -> None:
        scopes = self.stream.context.runtime.stream_scopes
        for i in range(len(scopes) - 1, -1, -1):
            if scopes[i] is self.stream:
                del scopes[i]
                break


@api
def _scoped(stream: Stream) -> Stream:
    return check_stream(stream)


@api
def destroy_stream(stream: Stream) -> None:
    """Finish the stream's work and release it."""
    stream = check_stream(stream)
    ctx = stream.context
    if stream is ctx.default_stream:
        raise InvalidValueError("destroy_stream: the context's default stream lives as long as the context")
    try:
        ctx.backend.synchronize(stream.queue, None)
    finally:  # a failure the work reports (a kernel's fault) is raised, with the stream destroyed all the same
        ctx.backend.destroy_queue(stream.queue)
        ctx.streams.remove(stream)
        stream.destroyed = True


@api
def stream_synchronize(stream: Stream) -> None:
    """R-3.4.1-03: block the host until everything submitted to ``stream`` is done."""
    check_stream(stream).synchronize()


@api
def create_event() -> Event:
    """R-3.4.1-01."""
    return Event()


@api
def destroy_event(event: Event) -> None:
    """R-3.4.1-04."""
    check_event(event).destroyed = True


@api
def event_record(event: Event, stream: Stream) -> None:
    """R-3.4.1-01: mark the point after everything submitted to ``stream`` so far."""
    event = check_event(event)
    stream = check_stream(stream)
    event.marker = stream.context.backend.record(stream.queue)
    event.context = stream.context


@api
def stream_wait_event(stream: Stream, event: Event) -> None:
    """R-3.4.1-01: work submitted to ``stream`` from now on starts after ``event``'s recorded point.

    Waiting on an event never recorded is a no-op, as in CUDA.
    """
    stream = check_stream(stream)
    event = check_event(event)
    if event.marker is None:
        return
    if event.context is not stream.context:
        raise InvalidContextError(f"stream_wait_event: {event!r} was recorded in another context than {stream!r}")
    stream.context.backend.wait_marker(stream.queue, event.marker)


@api
def stream_wait_stream(waiting: Stream, waited: Stream) -> None:
    """R-3.4.1-02: work submitted to ``waiting`` from now on starts after everything submitted to ``waited``."""
    waiting = check_stream(waiting)
    waited = check_stream(waited)
    if waiting.context is not waited.context:
        raise InvalidContextError("stream_wait_stream: the two streams belong to different contexts")
    backend = waiting.context.backend
    backend.wait_marker(waiting.queue, backend.record(waited.queue))


@api
def event_synchronize(event: Event) -> None:
    """Block the host until ``event``'s recorded point is reached."""
    event = check_event(event)
    if event.marker is None or event.context is None:
        return
    ctx = event.context.check()
    ok = ctx.backend.wait(event.marker, ctx.timeout_ms)
    ctx.wait_timeout("event_synchronize", ok, ctx.timeout_ms)


@api
def event_query(event: Event) -> bool:
    """R-3.4.1-04: whether the recorded point has been reached, without blocking (True if never recorded)."""
    event = check_event(event)
    if event.marker is None or event.context is None:
        return True
    return event.context.check().backend.query(event.marker)


@api
def event_elapsed_time(start: Event, end: Event) -> float:
    """R-3.4.1-04: device time in milliseconds from ``start``'s point to ``end``'s; both must be complete."""
    start, end = check_event(start), check_event(end)
    for name, event in (("start", start), ("end", end)):
        if event.marker is None or event.context is None:
            raise InvalidValueError(f"event_elapsed_time: the {name} event was never recorded")
        event.context.check()
    if start.context is not end.context:
        raise InvalidValueError("event_elapsed_time: the events were recorded in different contexts")
    assert start.context is not None
    backend = start.context.backend
    for name, event in (("start", start), ("end", end)):
        if not backend.query(event.marker):
            raise InvalidValueError(
                f"event_elapsed_time: the {name} event is not complete yet; synchronize on it first"
            )
    return backend.elapsed_ms(start.marker, end.marker)
