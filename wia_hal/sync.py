"""SPEC 3.8 beyond streams and events: fences over submitted commands (R-3.8-04) and barriers across devices
(R-3.8-03). Both are built in the front end on the protocol's markers and waits, so every backend has them.

A *command list* is a sequence of callables that take no arguments, each of which submits device work through the
API when called (``lambda: wia.matmul(a, b)``, ``functools.partial(wia.copy_async, src, dst, n, s)``, a function of
the user's that launches several kernels). ``submit_with_fence`` calls them in order, then arms the fence with a point
after everything they submitted, on every stream they submitted to, of any context and device; a list can be
submitted again (its callables run again). ``wait_fence`` blocks the host until that work is complete.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from wia_hal.context import TIMEOUT_INFINITE
from wia_hal.devices import Device, check_device
from wia_hal.errors import (
    API_LOCK,
    ErrorCode,
    InvalidDeviceError,
    InvalidValueError,
    TimedOutError,
    WiaError,
    api,
    error_for,
    wait_unlocked,
)
from wia_hal.runtime import runtime
from wia_hal.streams import Stream, check_stream, tracking_submissions, use_stream

if TYPE_CHECKING:
    from wia_hal.backend import AnyBackend

Command = Callable[[], Any]
"""One entry of a command list: a callable taking no arguments that submits device work."""


def _timeout(function: str, timeout_ms: object) -> float:
    """``timeout_ms`` checked: a number >= 0 of milliseconds, or ``TIMEOUT_INFINITE``."""
    if not isinstance(timeout_ms, (int, float)) or isinstance(timeout_ms, bool) or not timeout_ms >= 0:
        raise InvalidValueError(
            f"{function}: timeout_ms must be a number of milliseconds >= 0 or TIMEOUT_INFINITE, got {timeout_ms!r}"
        )
    return float(timeout_ms)


class _Deadline:
    """A finite or infinite timeout as time left, measured on the backend's clock (a simulator's host clock, so that
    a timeout expires in simulated time)."""

    __slots__ = ("backend", "end")

    def __init__(self, backend: AnyBackend, timeout_ms: float) -> None:
        self.backend = backend
        self.end = math.inf if math.isinf(timeout_ms) else backend.clock_ms() + timeout_ms

    def left_ms(self) -> float | None:
        """Milliseconds left (never negative), or None for no limit."""
        if math.isinf(self.end):
            return None
        return max(self.end - self.backend.clock_ms(), 0.0)


# -- fences (R-3.8-04) -----------------------------------------------------------------------------------------------


class Fence:
    """Signalled when every command of the latest ``submit_with_fence`` on it is complete. Create with
    :func:`create_fence`; a fence never submitted is signalled."""

    __slots__ = ("destroyed", "points", "submissions")

    def __init__(self) -> None:
        self.points: list[tuple[Stream, object]] = []
        """A marker after the submitted work on each stream the commands used."""
        self.submissions = 0
        self.destroyed = False

    def __repr__(self) -> str:
        if self.destroyed:
            return "<wia.Fence destroyed>"
        return f"<wia.Fence after submission {self.submissions} on {len(self.points)} stream(s)>"


def check_fence(fence: object) -> Fence:
    if not isinstance(fence, Fence):
        raise InvalidValueError(f"expected a wia Fence (from create_fence), got {type(fence).__name__}")
    if fence.destroyed:
        raise InvalidValueError(f"{fence!r} was destroyed")
    return fence


@api
def create_fence() -> Fence:
    """R-3.8-04: a fence, to arm with :func:`submit_with_fence` and wait on with :func:`wait_fence`."""
    return Fence()


@api
def destroy_fence(fence: Fence) -> None:
    """Release a fence (the work it covers goes on)."""
    check_fence(fence).destroyed = True


@api
def _submission(commands: object, fence: object, stream: object) -> tuple[list[Command], Fence, Stream | None]:
    """The arguments of :func:`submit_with_fence`, checked before any command runs."""
    fence = check_fence(fence)
    if isinstance(commands, (str, bytes)) or not isinstance(commands, Sequence):
        raise InvalidValueError(
            f"submit_with_fence: commands must be a sequence of callables (a command list), got "
            f"{type(commands).__name__}"
        )
    for i, command in enumerate(commands):
        if not callable(command):
            raise InvalidValueError(
                f"submit_with_fence: commands[{i}] is {type(command).__name__}, not a callable; a command is a "
                "callable taking no arguments that submits work, e.g. lambda: wia.matmul(a, b)"
            )
    return list(commands), fence, None if stream is None else check_stream(stream)


@api
def _arm(fence: Fence, streams: Sequence[Stream]) -> None:
    """Point ``fence`` after the work submitted so far on ``streams`` (those still alive)."""
    points = []
    for stream in streams:
        if not stream.destroyed and not stream.context.destroyed:
            points.append((stream, stream.context.backend.record(stream.queue)))
    fence.points = points
    fence.submissions += 1


def submit_with_fence(commands: Sequence[Command], fence: Fence, stream: Stream | None = None) -> list[Any]:
    """R-3.8-04: run the command list (see the module's docstring) and arm ``fence`` after all the work it submitted.

    Returns what each command returned (the tensors an op made, say), in order. The call does not wait for the work.
    ``stream``: where commands that name no stream submit (as in ``with use_stream(stream):``).
    An exception a command raises is its own and passes through unchanged; the fence is then armed after the work
    the commands before it submitted, so a wait still covers everything that was started.
    """
    command_list, fence, scoped = _submission(commands, fence, stream)
    results: list[Any] = []
    with tracking_submissions() as used:
        try:
            if scoped is None:
                for command in command_list:
                    results.append(command())
            else:
                with use_stream(scoped):
                    for command in command_list:
                        results.append(command())
        finally:
            _arm(fence, list(used))
    return results


@api
def wait_fence(fence: Fence, timeout_ms: float = TIMEOUT_INFINITE) -> None:
    """R-3.8-04: block until every command of the fence's latest submission is complete; ``TIMEOUT`` if
    ``timeout_ms`` (>= 0, or ``TIMEOUT_INFINITE``) passes first. Waiting again, longer, can then succeed (R-3.9-04);
    ``wait_fence(fence, 0)`` polls."""
    fence = check_fence(fence)
    limit = _timeout("wait_fence", timeout_ms)
    points = [(stream, marker) for stream, marker in fence.points if not stream.context.destroyed]
    if not points:
        return
    backend = points[0][0].context.backend
    deadline = _Deadline(backend, limit)
    for stream, marker in points:
        stream.context.check()  # a lost device: DEVICE_LOST (sticky until reset_device), whatever the backend says
        if not stream.context.backend.wait(marker, deadline.left_ms()):
            raise TimedOutError(
                f"wait_fence: the fence's commands were not complete within {timeout_ms} ms ({stream.label} was "
                "still busy); the fence stays armed: wait again with a longer timeout"
            )


# -- peer barriers (R-3.8-03) ----------------------------------------------------------------------------------------


class PeerBarrier:
    """A meeting point of ``count`` devices (R-3.8-03). Create with :func:`create_peer_barrier`.

    Each round, every device arrives once: all at once from one host thread (``peer_barrier_wait(barrier)``), or one
    per thread (``peer_barrier_wait(barrier, device)``, from ``count`` threads). The round ends when all have arrived
    and the work submitted to the devices before is complete; then every participant passes and the next round
    begins.
    """

    __slots__ = ("arrived", "condition", "count", "destroyed", "devices", "failed", "round")

    def __init__(self, devices: tuple[Device, ...]) -> None:
        self.devices = devices
        self.count = len(devices)
        self.arrived: set[int] = set()
        """The indexes of the devices that arrived in this round."""
        self.round = 0
        self.failed: BaseException | None = None
        """Why the last round ended without its devices' work completing (a participant re-raises it)."""
        self.condition = threading.Condition(API_LOCK)
        self.destroyed = False

    def __repr__(self) -> str:
        devices = ", ".join(str(d.index) for d in self.devices)
        state = " destroyed" if self.destroyed else f" round {self.round}, {len(self.arrived)}/{self.count} arrived"
        return f"<wia.PeerBarrier devices [{devices}]{state}>"


def check_barrier(barrier: object) -> PeerBarrier:
    if not isinstance(barrier, PeerBarrier):
        raise InvalidValueError(f"expected a wia PeerBarrier (from create_peer_barrier), got {type(barrier).__name__}")
    if barrier.destroyed:
        raise InvalidValueError(f"{barrier!r} was destroyed")
    for device in barrier.devices:
        check_device(device)  # a barrier of a backend since replaced is as stale as its devices
    return barrier


@api
def create_peer_barrier(devices: Sequence[Device], count: int | None = None) -> PeerBarrier:
    """R-3.8-03: a barrier over ``devices`` (distinct devices of the active backend); ``count``, the number of
    participants, is one per device (the C API's array length; it may be left out)."""
    if isinstance(devices, (str, bytes)) or not isinstance(devices, Sequence) or not devices:
        raise InvalidValueError(
            f"create_peer_barrier: devices must be a non-empty sequence of wia Devices, got {devices!r}"
        )
    checked = tuple(check_device(d) for d in devices)
    indexes = [d.index for d in checked]
    if len(set(indexes)) != len(indexes):
        raise InvalidValueError(f"create_peer_barrier: devices {indexes} name a device more than once")
    if count is None:
        count = len(checked)
    if not isinstance(count, int) or isinstance(count, bool) or count != len(checked):
        raise InvalidValueError(
            f"create_peer_barrier: count must equal the number of devices ({len(checked)}): one participant per "
            f"device; got {count!r}"
        )
    return PeerBarrier(checked)


@api
def destroy_peer_barrier(barrier: PeerBarrier) -> None:
    """R-3.8-03. Refused while participants wait at it (``DEVICE_BUSY`` would strand them): ``INVALID_VALUE``."""
    barrier = check_barrier(barrier)
    if barrier.arrived:
        raise InvalidValueError(
            f"destroy_peer_barrier: {len(barrier.arrived)} participant(s) are waiting at {barrier!r}; destroy it "
            "after the round ends"
        )
    barrier.destroyed = True


def _finish_round(barrier: PeerBarrier, deadline: _Deadline) -> None:
    """The last participant arrived: wait for the work of every live context on the devices, then release all."""
    indexes = {d.index for d in barrier.devices}
    try:
        barrier.failed = None
        for ctx in list(runtime().contexts):
            if ctx.device.index not in indexes or ctx.destroyed:
                continue
            for stream in (ctx.default_stream, *ctx.streams):
                if not ctx.backend.synchronize(stream.queue, deadline.left_ms()):
                    raise TimedOutError(
                        f"peer_barrier_wait: every device arrived, but {stream.label} on device {ctx.device.index} "
                        "was still busy when the timeout expired"
                    )
    except BaseException as e:
        barrier.failed = e
        raise
    finally:
        barrier.arrived.clear()
        barrier.round += 1
        barrier.condition.notify_all()


@api
def peer_barrier_wait(barrier: PeerBarrier, device: Device | None = None, timeout_ms: float = TIMEOUT_INFINITE) -> None:
    """R-3.8-03: arrive at the barrier and wait until every device has arrived and the work submitted to the
    devices before is complete.

    Without ``device`` the caller arrives for every device that has not arrived this round (one host thread driving
    all devices: the usual case). With ``device``, for that device only (one thread per device). ``timeout_ms``
    (>= 0, or ``TIMEOUT_INFINITE``) bounds the whole wait; on ``TIMEOUT`` the caller's arrival is withdrawn, so
    the barrier is as before the call.
    """
    barrier = check_barrier(barrier)
    limit = _timeout("peer_barrier_wait", timeout_ms)
    if device is None:
        mine = {d.index for d in barrier.devices} - barrier.arrived
    else:
        device = check_device(device)
        if device not in barrier.devices:
            raise InvalidDeviceError(
                f"peer_barrier_wait: {device!r} is not one of the barrier's devices "
                f"{[d.index for d in barrier.devices]}"
            )
        if device.index in barrier.arrived:
            raise InvalidValueError(
                f"peer_barrier_wait: device {device.index} already arrived in this round of {barrier!r}; one "
                "participant per device"
            )
        mine = {device.index}
    deadline = _Deadline(runtime().backend, limit)
    barrier.arrived |= mine
    if len(barrier.arrived) == barrier.count:
        _finish_round(barrier, deadline)
        return
    this_round = barrier.round
    # The others arrive from other threads, in real time whatever the backend's clock says: wait with the API lock
    # released so that they can.
    wall_end = None if math.isinf(limit) else time.monotonic() + limit / 1e3
    while barrier.round == this_round:
        left = None if wall_end is None else wall_end - time.monotonic()
        if left is not None and left <= 0:
            barrier.arrived -= mine
            raise TimedOutError(
                f"peer_barrier_wait: {barrier.count - len(barrier.arrived) - len(mine)} other device(s) had not "
                f"arrived at {barrier!r} within {timeout_ms} ms"
            )
        wait_unlocked(barrier.condition, left)
    failed = barrier.failed
    if failed is not None:  # the round ended without the devices' work complete: every participant hears why
        code = failed.code if isinstance(failed, WiaError) else ErrorCode.INTERNAL
        raise error_for(code, str(failed)) from failed
