"""A stream: one SimPy process draining its queue of commands in submission order.

One process per stream, not one per command: a process per command through a shared resource runs several times
slower, and a stream's order is the queue's order anyway.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Any

import simpy

from wia_sim.commands import Command, Kernel, Prefetch, Wait
from wia_sim.migration import migrate

if TYPE_CHECKING:
    from wia_sim.hazards import Access
    from wia_sim.machine import Device


QUEUE_DEPTH = 1024
"""Commands a stream holds before a submission blocks the host. CUDA's launch queue holds about a thousand
pending launches before ``cudaLaunchKernel`` blocks (observed as the launch-queue-full stalls Nsight Systems shows);
the bound also keeps the simulator's backlog, and so its memory and garbage-collection cost, small."""

CATCH_UP_DEPTH = 64
"""Past this many queued commands a submission first lets device time catch up with the host. That changes
nothing in the timeline (only events the host's time has already passed are run) but releases the buffers that
finished work still holds, so a long loop does not keep every intermediate result alive until it synchronizes."""


class Stream:
    __slots__ = (
        "_idle",
        "clock",
        "current",
        "device",
        "env",
        "epoch",
        "index",
        "label",
        "last",
        "machine",
        "queue",
        "snap_clocks",
        "snap_epochs",
    )

    def __init__(self, device: Device, label: str = "") -> None:
        self.device = device
        machine = self.machine = device.machine
        self.env = device.env
        self.queue: deque[Command] = deque()
        self.last: Command | None = None
        self.current: Command | None = None
        self._idle: simpy.Event | None = None
        self.index = machine.stream_count
        """The stream's number on its machine (the hazard detector's vector clocks are indexed by it)."""
        machine.stream_count += 1
        self.label = label or f"stream {self.index} of device {device.index}"
        """The name the stream's user knows it by (the sim backend's ``name_queue`` sets it), for reports."""
        self.epoch = 0
        """How many commands the stream has been given (counted while the machine checks hazards)."""
        self.clock: dict[int, int] = {}
        """Per other stream index, the latest epoch of it this stream's next command is ordered after (through
        waits for markers; see :mod:`wia_sim.hazards`)."""
        self.snap_epochs: list[int] = []
        self.snap_clocks: list[dict[int, int]] = []
        """``clock`` as it became at each of these epochs (it changes only at waits)."""
        self.env.process(self._drain())

    def submit(self, command: Command, accesses: Sequence[Access] = ()) -> Command:
        """Queue ``command`` at the current host time; it will not start before then.

        ``accesses`` are the byte ranges it reads and writes, for the hazard detector (when the machine has one),
        which checks them first: a detector that raises (strict mode) leaves nothing queued.
        """
        machine = self.machine
        faults = self.device.faults
        if faults is not None:  # wia_sim.faults: a lost device takes no work
            faults.submitted(self, command, accesses)
        detector = machine.detector
        if detector is not None:  # epochs are the detector's: without one they are not counted
            epoch = self.epoch + 1
            if accesses:
                detector.check(self, command, epoch, accesses)
            elif type(command) is Wait:
                detector.waited(self, command, epoch)
            elif type(command) is Prefetch:  # moving data reads it: a write racing it decides where it ends up
                detector.check(self, command, epoch, ((command.buffer, command.lo, command.hi, False),))
            self.epoch = command.epoch = epoch
        if len(self.queue) >= CATCH_UP_DEPTH and not machine.replaying:
            self._make_room()
        if accesses and self.device.cache is not None and type(command) is Kernel:
            command.accesses = tuple(accesses)
        command.submitted = machine.host_clock(self.device.index)
        command.stream = self
        self.queue.append(command)
        self.last = command
        idle = self._idle
        if idle is not None:
            self._idle = None
            idle.succeed()
        return command

    def _make_room(self) -> None:
        """Let device time catch up with the host; if the queue is then full, the host waits for a slot."""
        machine = self.machine
        machine.catch_up()
        while len(self.queue) >= QUEUE_DEPTH:  # a wait the user did not ask for: it orders nothing (observe=False)
            machine.wait(self.current if self.current is not None else self.queue[0], observe=False)

    @property
    def busy(self) -> bool:
        last = self.last
        return last is not None and not last.done

    def _drain(self) -> Generator[simpy.Event, Any, None]:
        env = self.env
        queue = self.queue
        compute = self.device.compute
        cache = self.device.cache
        machine = self.machine
        while True:
            if not queue:
                self._idle = env.event()
                yield self._idle
                continue
            command = self.current = queue.popleft()
            faults = self.device.faults
            if faults is not None and not (yield from faults.admit(self, command)):
                continue  # dropped: an injected fault made the device lost (wia_sim.faults)
            if command.submitted > env.now:
                yield env.timeout(command.submitted - env.now)
            if type(command) is Kernel:  # Kernel.run inlined for performance reasons: most commands are kernels
                if command.touches:  # UNIFIED/MANAGED data first comes to the device, over the H2D link
                    link = self.device.engines["h2d"]
                    seconds = sum(migrate(machine.model, *t, to_device=True, on_demand=True) for t in command.touches)
                    if seconds:
                        wait = link.acquire(1)
                        if wait is not None:
                            yield wait
                        yield env.timeout(seconds)
                        link.release(1)
                units = command.cost.compute_units
                wait = compute.acquire(units)
                if wait is not None:
                    yield wait
                command.started = env.now
                start = command.start
                command.start = None  # the inputs were read: the record (kept for explain) must not pin them
                finish = None
                if start is not None:
                    try:
                        finish = start()
                    except Exception as e:  # a fault of the kernel's numerics: report it, keep the device running
                        machine.fault(command, e)
                if cache is not None and command.accesses:
                    cache.run(command, command.accesses)
                yield env.timeout(command.duration)
                compute.release(units)
                if finish is not None:
                    try:
                        finish()
                    except Exception as e:
                        machine.fault(command, e)
            else:
                steps = command.run(self)
                if steps is not None:
                    yield from steps
            command.ended = env.now
            command.done = True
            self.current = None
            if machine.trace is not None:
                machine.trace.append(command)
