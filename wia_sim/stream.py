"""A stream: one SimPy process draining its queue of commands in submission order.

One process per stream, not one per command: a process per command through a shared resource runs several times
slower, and a stream's order is the queue's order anyway.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import simpy

from wia_sim.commands import Command

if TYPE_CHECKING:
    from wia_sim.machine import Device


class Stream:
    __slots__ = ("_idle", "device", "env", "last", "machine", "queue")

    def __init__(self, device: Device) -> None:
        self.device = device
        self.machine = device.machine
        self.env = device.env
        self.queue: deque[Command] = deque()
        self.last: Command | None = None
        self._idle: simpy.Event | None = None
        self.env.process(self._drain())

    def submit(self, command: Command) -> Command:
        """Queue ``command`` at the current host time; it will not start before then."""
        command.submitted = self.machine.host_time
        self.queue.append(command)
        self.last = command
        idle = self._idle
        if idle is not None:
            self._idle = None
            idle.succeed()
        return command

    @property
    def busy(self) -> bool:
        last = self.last
        return last is not None and not last.done

    def _drain(self) -> Generator[simpy.Event, Any, None]:
        env = self.env
        queue = self.queue
        while True:
            if not queue:
                self._idle = env.event()
                yield self._idle
                continue
            command = queue.popleft()
            if command.submitted > env.now:
                yield env.timeout(command.submitted - env.now)
            steps = command.run(self)
            if steps is not None:
                yield from steps
            command.ended = env.now
            command.done = True
