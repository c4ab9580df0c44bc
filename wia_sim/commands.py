"""What a stream executes: kernels, copies, markers and waits.

A command's ``run`` returns ``None`` when it completes at once, or a generator of SimPy events. Numerics happen in
simulated-time order: a kernel or copy reads its inputs when it starts and writes its outputs when it ends, so
an unordered reader on another stream sees exactly what it would see on hardware.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import TYPE_CHECKING, Any

import numpy as np
import simpy

from wia_sim.costmodel import KernelCost, TransferCost
from wia_sim.hwmodel import HardwareModel
from wia_sim.memory import Buffer
from wia_sim.migration import migrate
from wia_sim.resources import UnitPool

if TYPE_CHECKING:
    from wia_sim.stream import Stream
    from wia_sim.topology import Route, Topology

Finish = Callable[[], None]
Steps = Generator[simpy.Event, Any, None]


Label = str | tuple[str, tuple[int, ...], np.dtype]
"""A command's description: text, or an op's ``(name, output shape, output dtype)``, formatted only when read
(formatting costs more than the rest of an op's bookkeeping)."""


def describe(label: Label) -> str:
    """``label`` as text: ``matmul -> (64, 64) float32`` for an op's parts."""
    if isinstance(label, str):
        return label
    name, shape, dtype = label
    return f"{name} -> {shape} {dtype.name}"


class Command:
    __slots__ = ("_label", "done", "ended", "epoch", "started", "stream", "submitted")

    def __init__(self) -> None:
        self.stream: Stream | None = None
        """The stream the command was submitted to (set by :meth:`Stream.submit`)."""
        self.submitted = 0.0
        self.started = -1.0
        self.ended = -1.0
        self.done = False
        self.epoch = 0
        """Its place in its stream: how many commands the stream had been given, this one included."""
        self._label: Label | None = None

    @property
    def label(self) -> str:
        """What the command is, in words a user recognizes (``matmul -> (64, 64) float32``, ``copy of 4096 bytes
        (h2d)``); whoever submits it may set it (text, or an op's parts: see :data:`Label`)."""
        label = self._label
        return self._default_label() if label is None else describe(label)

    @label.setter
    def label(self, value: Label) -> None:
        self._label = value

    @property
    def label_parts(self) -> Label:
        """The label as it was set, unformatted (for records that keep many labels cheaply)."""
        label = self._label
        return self._default_label() if label is None else label

    def _default_label(self) -> str:
        return type(self).__name__.lower()

    def run(self, stream: Stream) -> Steps | None:
        raise NotImplementedError(f"{type(self).__name__} must implement run")


class Kernel(Command):
    """A kernel on the compute units. ``start`` (numerics only) computes from the inputs and returns the
    function that writes the outputs. :meth:`Stream._drain` runs kernels inline."""

    __slots__ = ("accesses", "cost", "counts", "duration", "findings", "start", "touches")

    def __init__(
        self,
        cost: KernelCost,
        start: Callable[[], Finish] | None,
        touches: tuple[tuple[Buffer, int, int], ...] = (),
        label: Label | None = None,
    ) -> None:
        super().__init__()
        self._label = label
        self.cost = cost
        self.duration = cost.duration_s
        self.start = start
        self.counts: dict[str, int] | None = None
        """What a custom kernel did (operations, bytes, atomics, barriers, ...), once it has run."""
        self.findings: list[Exception] = []
        """A custom kernel's lower-severity findings (uniform writes), once it has run: they did not stop it."""
        self.touches = touches
        """Byte ranges of UNIFIED/MANAGED buffers the kernel accesses: migrated to the device before it runs."""
        self.accesses: tuple[tuple[Buffer, int, int, bool], ...] = ()
        """The byte ranges it reads and writes, kept where the device models its last-level cache."""

    def __repr__(self) -> str:
        return f"<kernel {self.cost.name} ({self.cost.algorithm})>"

    def _default_label(self) -> str:
        return self.cost.name


def _read(buffer: Buffer, offset: int, nbytes: int) -> np.ndarray | None:
    """The bytes a copy moves, taken when it starts (None in timing-only mode)."""
    data = buffer.data
    return None if data is None else data[offset : offset + nbytes].copy()


def _land(command: Command, stream: Stream, buffer: Buffer, offset: int, staged: np.ndarray | None) -> None:
    """Write what a copy took into its destination when it ends; a failure is the command's fault."""
    data = buffer.data
    if staged is not None and data is not None:
        try:
            data[offset : offset + staged.size] = staged
        except Exception as e:
            stream.machine.fault(command, e)


class Copy(Command):
    """A copy of bytes between two buffers on one of the machine's transfer paths."""

    __slots__ = ("cost", "dst", "dst_offset", "engine", "src", "src_offset")

    def __init__(
        self,
        engine: UnitPool,
        cost: TransferCost,
        src: Buffer,
        src_offset: int,
        dst: Buffer,
        dst_offset: int,
    ) -> None:
        super().__init__()
        self.engine = engine
        self.cost = cost
        self.src, self.src_offset = src, src_offset
        self.dst, self.dst_offset = dst, dst_offset

    def __repr__(self) -> str:
        return f"<{self.cost.route} copy of {self.cost.nbytes} bytes>"

    def _default_label(self) -> str:
        return f"copy of {self.cost.nbytes} bytes ({self.cost.route})"

    def run(self, stream: Stream) -> Steps:
        env = stream.env
        engine = self.engine
        wait = engine.acquire(1)
        if wait is not None:
            yield wait
        self.started = env.now
        staged = _read(self.src, self.src_offset, self.cost.nbytes)
        yield env.timeout(self.cost.duration_s)
        engine.release(1)
        _land(self, stream, self.dst, self.dst_offset, staged)


class PeerCopy(Command):
    """A copy of bytes from one device's memory to another's along the fabric's route between them (a
    host-staged route when they have none): reads the source when it starts, writes the destination when it
    ends, and holds the route's links meanwhile so that concurrent transfers contend."""

    __slots__ = ("dst", "dst_offset", "nbytes", "route", "src", "src_offset", "topology")

    def __init__(
        self, topology: Topology, route: Route, src: Buffer, src_offset: int, dst: Buffer, dst_offset: int, nbytes: int
    ) -> None:
        super().__init__()
        self.topology, self.route, self.nbytes = topology, route, nbytes
        self.src, self.src_offset = src, src_offset
        self.dst, self.dst_offset = dst, dst_offset

    def __repr__(self) -> str:
        return f"<peer copy of {self.nbytes} bytes ({self.route.kind})>"

    def _default_label(self) -> str:
        return f"peer copy of {self.nbytes} bytes, device {self.route.src} -> {self.route.dst} ({self.route.kind})"

    def run(self, stream: Stream) -> Steps:
        env = stream.env
        n = self.nbytes
        staged: np.ndarray | None = None

        def started() -> None:  # the links are held: read the source now
            nonlocal staged
            self.started = env.now
            staged = _read(self.src, self.src_offset, n)

        yield from self.topology.transfer(self.route, n, started)
        _land(self, stream, self.dst, self.dst_offset, staged)


class Prefetch(Command):
    """Move a range of a UNIFIED/MANAGED buffer to the device or the host in bulk, in stream order."""

    __slots__ = ("buffer", "engine", "hi", "lo", "model", "to_device")

    def __init__(
        self, model: HardwareModel, engine: UnitPool, buffer: Buffer, lo: int, hi: int, to_device: bool
    ) -> None:
        super().__init__()
        self.model, self.engine = model, engine
        self.buffer, self.lo, self.hi, self.to_device = buffer, lo, hi, to_device

    def __repr__(self) -> str:
        return f"<{self._default_label()}>"

    def _default_label(self) -> str:
        return f"prefetch of {self.hi - self.lo} bytes to the {'device' if self.to_device else 'host'}"

    def run(self, stream: Stream) -> Steps:
        env = stream.env
        wait = self.engine.acquire(1)
        if wait is not None:
            yield wait
        self.started = env.now
        seconds = migrate(self.model, self.buffer, self.lo, self.hi, self.to_device, on_demand=False)
        if seconds:
            yield env.timeout(seconds)
        self.engine.release(1)


class Marker(Command):
    """A recorded point in a stream (an event record); completes when everything before it has."""

    __slots__ = ("_reached",)

    def __init__(self) -> None:
        super().__init__()
        self._reached: simpy.Event | None = None

    def _default_label(self) -> str:
        return "event record"

    def run(self, stream: Stream) -> None:
        self.started = stream.env.now
        if self._reached is not None:
            self._reached.succeed()

    def reached(self, env: simpy.Environment) -> simpy.Event:
        """The SimPy event that fires when the stream reaches this marker."""
        if self._reached is None:
            self._reached = env.event()
        return self._reached


class Wait(Command):
    """Hold a stream until a marker on another stream is reached."""

    __slots__ = ("marker",)

    def __init__(self, marker: Marker) -> None:
        super().__init__()
        self.marker = marker

    def _default_label(self) -> str:
        return "wait for an event"

    def run(self, stream: Stream) -> Steps | None:
        if self.marker.done:
            self.started = stream.env.now
            return None
        return self._wait(stream)

    def _wait(self, stream: Stream) -> Steps:
        self.started = stream.env.now
        yield self.marker.reached(stream.env)
