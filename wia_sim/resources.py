"""Resources of the machine: pools of identical units (compute units, copy engines) on SimPy events.

A thin counting resource with a FIFO queue: when units are free and nobody waits, ``acquire`` takes them without
scheduling an event (inlined for performance reasons: a stream of small kernels pays no resource events), and a
holder that cannot be served waits on an ordinary SimPy event. Waiters are served strictly in arrival order, so
a large request is never starved by later small ones, and the order is deterministic.
"""

from __future__ import annotations

from collections import deque

import simpy


class UnitPool:
    __slots__ = ("capacity", "env", "free", "name", "waiting")

    def __init__(self, env: simpy.Environment, capacity: int, name: str) -> None:
        if capacity < 1:
            raise ValueError(f"{name}: capacity must be at least 1, got {capacity}")
        self.env = env
        self.capacity = capacity
        self.free = capacity
        self.name = name
        self.waiting: deque[tuple[int, simpy.Event]] = deque()

    def acquire(self, units: int) -> simpy.Event | None:
        """Take ``units`` now (returns None) or get an event that fires once they are taken for the caller."""
        if not self.waiting and self.free >= units:
            self.free -= units
            return None
        event = self.env.event()
        self.waiting.append((units, event))
        return event

    def release(self, units: int) -> None:
        self.free += units
        waiting = self.waiting
        while waiting and waiting[0][0] <= self.free:
            units, event = waiting.popleft()
            self.free -= units
            event.succeed()

    @property
    def in_use(self) -> int:
        return self.capacity - self.free
