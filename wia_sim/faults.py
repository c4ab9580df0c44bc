"""Injected faults: what the simulated machine does when a device fails (``docs/faults.md``).

A fault is armed on one device and fires once, at its trigger: the op that starts after ``after_ops`` more ops
have started on the device (ops are kernels, copies and prefetches; markers and waits are not ops), the simulated
time ``at_s``, or each op with probability ``probability`` from a generator seeded with ``seed``. An
``out_of_memory`` fault counts allocations instead of ops, and its time is the host's. Every trigger is decided in
SimPy's order, so a program, its faults and their seeds fail at the same op and the same simulated time on every
run.

What a fired fault does:

- ``device_lost``: the op that hit it and all work after it on the device is dropped (marked done, outputs
  undefined); every later submission, allocation and wait on the device raises :class:`DeviceLost` until
  :func:`reset`.
- ``hang``: the device starts no more work. A wait with a finite timeout times out; if the hang has a duration it
  then ends by itself, else after :data:`WATCHDOG_S` of simulated time the watchdog declares the device lost (so a
  wait without timeout never blocks the simulator forever).
- ``ecc_error``: corrected, it is only counted; uncorrectable, the next op that reads the struck bytes loses the
  device (as CUDA's ``cudaErrorECCUncorrectable`` is fatal to the context).
- ``out_of_memory``: the next ``count`` allocations raise :class:`InjectedOutOfMemory`.
- ``link_failure``: :meth:`FaultInjector.link_failed` says so for the pair, until either end is reset; a peer copy
  over the link loses the copying device (:meth:`FaultInjector.check_link`).
"""

from __future__ import annotations

import random
from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import simpy

from wia_sim.commands import Command, Copy, Kernel, Marker, Prefetch
from wia_sim.memory import Buffer

if TYPE_CHECKING:
    from wia_sim.hazards import Access
    from wia_sim.machine import Device, Machine
    from wia_sim.stream import Stream

KINDS = ("device_lost", "ecc_error", "out_of_memory", "hang", "link_failure")

WATCHDOG_S = 2.0
"""How long a device may make no progress before it is declared lost: the 2 s default of Windows' GPU timeout
detection and recovery (``TdrDelay``, "Timeout Detection and Recovery (TDR)", Microsoft Learn, Windows drivers),
after which the driver resets the GPU and applications see their device removed."""

_OPS = (Kernel, Copy, Prefetch)


class DeviceLost(RuntimeError):
    """The device is lost: submissions, allocations and waits on it fail until it is reset."""

    wia_code = "DEVICE_LOST"

    def __init__(self, message: str, device: int) -> None:
        super().__init__(message)
        self.device = device
        """Which device was lost (a call may touch several: a peer copy, a collective)."""


class InjectedOutOfMemory(MemoryError):
    """An allocation an ``out_of_memory`` fault made fail."""

    wia_code = "OUT_OF_MEMORY"


@dataclass(eq=False)
class Fault:
    """One armed fault (see the module's docstring); exactly one of ``after_ops``, ``at_s``, ``probability``."""

    kind: str
    device: int
    after_ops: int | None = None
    at_s: float | None = None
    probability: float | None = None
    seed: int = 0
    count: int = 1
    buffer: Buffer | None = None
    lo: int = 0
    hi: int = 0
    uncorrectable: bool = False
    peer: int | None = None
    duration_s: float | None = None
    rng: random.Random = field(init=False)
    trigger: str = field(init=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; expected one of {', '.join(KINDS)}")
        if sum(t is not None for t in (self.after_ops, self.at_s, self.probability)) != 1:
            raise ValueError("a fault needs exactly one trigger: after_ops, at_s or probability")
        self.rng = random.Random(self.seed)
        self.trigger = (
            f"after_ops={self.after_ops}"
            if self.after_ops is not None
            else f"at {self.at_s * 1e3:g} ms"
            if self.at_s is not None
            else f"probability={self.probability:g} seed={self.seed}"
        )

    def due(self) -> bool:
        """One more op (allocation) is starting: whether the fault fires on it (counts down ``after_ops``)."""
        if self.probability is not None:
            return self.rng.random() < self.probability
        if self.after_ops is not None:
            if self.after_ops == 0:
                return True
            self.after_ops -= 1
        return False

    def describe(self) -> str:
        return f"injected {self.kind} ({self.trigger})"


class DeviceFaults:
    """The fault state of one device, consulted by its streams (:meth:`admit`, :meth:`submitted`), its
    allocations (:meth:`allocating`) and the machine's waits (:meth:`check`)."""

    def __init__(self, injector: FaultInjector, device: Device) -> None:
        self.injector = injector
        self.device = device
        self.env = device.env
        self.pending: list[Fault] = []
        self.lost: str | None = None
        self.hang: simpy.Event | None = None
        """Succeeds when the hang ends (by its duration, the watchdog, or a reset); streams wait on it."""
        self.resets = 0
        self.ops = 0
        self.fired = 0
        self.ecc_corrected = 0
        self.ecc_uncorrectable = 0
        self.oom_left = 0
        self.poisoned: list[tuple[Buffer, int, int, str]] = []
        self.reads: dict[int, list[tuple[Buffer, int, int]]] = {}
        """Per command id, the ranges it reads (kept only while a buffer is poisoned)."""

    # what the machine asks

    def check(self, what: str) -> None:
        if self.lost is not None:
            raise DeviceLost(f"{what}: device {self.device.index} is lost ({self.lost})", self.device.index)

    def submitted(self, stream: Stream, command: Command, accesses: Sequence[Access]) -> None:
        """A submission: refused on a lost device; the ranges it reads are kept while a buffer is poisoned."""
        self.check(f"cannot queue {command.label}")
        if self.poisoned or any(f.kind == "ecc_error" and f.uncorrectable for f in self.pending):
            reads = [(buffer, lo, hi) for buffer, lo, hi, write in accesses if not write]
            if reads:
                self.reads[id(command)] = reads

    def allocating(self, nbytes: int) -> None:
        """An allocation of ``nbytes``: refused on a lost device, or failed by an ``out_of_memory`` fault."""
        self.check(f"cannot allocate {nbytes} bytes")
        for fault in [f for f in self.pending if f.kind == "out_of_memory"]:
            if fault.at_s is not None and self.device.machine.host_time < fault.at_s:
                continue
            if fault.at_s is not None or fault.due():
                self.pending.remove(fault)
                self.fired += 1
                self.oom_left += fault.count
        if self.oom_left:
            self.oom_left -= 1
            raise InjectedOutOfMemory(
                f"injected OUT_OF_MEMORY: allocation of {nbytes} bytes on device {self.device.index} failed "
                f"({self.oom_left} more will fail)"
            )

    def admit(self, stream: Stream, command: Command) -> Generator[simpy.Event, Any, bool]:
        """The stream is about to start ``command``: whether it runs (False: dropped, on a lost device). Fires the
        op-triggered faults, holds the stream while the device hangs, and loses the device on a poisoned read."""
        resets = self.resets
        if self.hang is not None:
            yield self.hang
        reads = self.reads.pop(id(command), None)
        if self.lost is None and resets == self.resets and type(command) in _OPS:
            self.ops += 1
            for fault in [f for f in self.pending if f.kind != "out_of_memory" and f.at_s is None]:
                if fault.due():
                    self.fire(fault, command.label)
            if self.hang is not None:
                yield self.hang
            if reads and self.lost is None and resets == self.resets:
                self._read(reads, command)
        if self.lost is not None or resets != self.resets:
            drop(stream, command)
            return False
        return True

    # what faults do

    def fire(self, fault: Fault, where: str) -> None:
        if fault in self.pending:
            self.pending.remove(fault)
        self.fired += 1
        when = f"{fault.describe()} at op {self.ops} ({where}), t={self.env.now * 1e3:.6g} ms"
        if fault.kind == "device_lost":
            self.lose(when)
        elif fault.kind == "hang":
            self._hang(fault, when)
        elif fault.kind == "ecc_error":
            if not fault.uncorrectable:
                self.ecc_corrected += 1
            elif fault.buffer is None:  # in memory the program cannot name (the driver's): fatal at once
                self.ecc_uncorrectable += 1
                self.lose(f"uncorrectable ECC error in device memory ({when})")
            elif not fault.buffer.freed:
                self.ecc_uncorrectable += 1
                self.poisoned.append((fault.buffer, fault.lo, fault.hi, when))
        elif fault.kind == "link_failure" and fault.peer is not None:
            self.injector.failed_links.add(_pair(self.device.index, fault.peer))

    def lose(self, reason: str) -> None:
        """The device is lost: its queued work is dropped as its streams reach it, and a hang ends."""
        if self.lost is None:
            self.lost = reason
        self._end_hang()

    def _hang(self, fault: Fault, when: str) -> None:
        if self.hang is not None:
            return
        hang = self.hang = self.env.event()
        seconds = fault.duration_s if fault.duration_s is not None else WATCHDOG_S
        self.env.process(self._hang_ends(hang, seconds, fault.duration_s is None, when))

    def _hang_ends(self, hang: simpy.Event, seconds: float, watchdog: bool, when: str) -> Generator[Any, Any, None]:
        yield self.env.timeout(seconds)
        if self.hang is not hang:  # reset (or lost) since
            return
        if watchdog:
            self.lose(f"hung since {when}; the {WATCHDOG_S:g} s watchdog declared it lost")
        else:
            self._end_hang()

    def _end_hang(self) -> None:
        hang, self.hang = self.hang, None
        if hang is not None:
            hang.succeed()

    def _read(self, reads: list[tuple[Buffer, int, int]], command: Command) -> None:
        for buffer, lo, hi in reads:
            for struck, s_lo, s_hi, when in self.poisoned:
                if buffer is struck and lo < s_hi and s_lo < hi:
                    self.lose(f"{command.label} read bytes with an uncorrectable ECC error ({when})")
                    return

    def reset(self) -> None:
        """Re-initialise the device: queued work dropped, lost and hung states cleared, poisoned memory forgotten
        (the HAL frees the device's memory). Faults not fired yet stay armed."""
        self.resets += 1
        self.lost = None
        self._end_hang()
        self.poisoned.clear()
        self.reads.clear()
        self.oom_left = 0


class FaultInjector:
    """The machine's faults: one :class:`DeviceFaults` per device that had one armed, and the failed links."""

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.failed_links: set[tuple[int, int]] = set()

    def of(self, device: int) -> DeviceFaults:
        dev = self.machine.devices[device]
        if dev.faults is None:
            dev.faults = DeviceFaults(self, dev)
        return dev.faults

    def arm(self, fault: Fault) -> None:
        state = self.of(fault.device)
        state.pending.append(fault)
        if fault.at_s is not None and fault.kind != "out_of_memory":
            state.env.process(self._at(state, fault))

    def _at(self, state: DeviceFaults, fault: Fault) -> Generator[Any, Any, None]:
        yield state.env.timeout(max(fault.at_s - state.env.now, 0.0))  # type: ignore[operator]
        if fault in state.pending:
            state.fire(fault, "at its time")

    def clear(self, device: int | None) -> None:
        """Disarm the faults not fired yet (of ``device``, or of every device)."""
        for dev in self.machine.devices:
            if dev.faults is not None and device in (None, dev.index):
                dev.faults.pending.clear()

    def link_failed(self, a: int, b: int) -> bool:
        """Whether the link between devices ``a`` and ``b`` failed (until either is reset)."""
        return _pair(a, b) in self.failed_links

    def check_link(self, src: int, dst: int, via: Iterable[tuple[int, int]] = ()) -> None:
        """A peer copy from ``src`` to ``dst`` is being queued: over a failed link (the pair's own, or one of the
        device-to-device links ``via`` its route crosses) it loses ``src`` (an NVLink error, Xid 74 in NVIDIA's Xid
        catalogue, needs a GPU reset) and raises :class:`DeviceLost`."""
        for a, b in ((src, dst), *via):
            if self.link_failed(a, b):
                state = self.of(src)
                state.lose(f"a peer copy to device {dst} used the failed link between devices {a} and {b}")
                state.check("peer copy")


def reset(device: Device) -> None:
    """Re-initialise ``device`` whether or not faults were armed on it: every queued command of its streams is
    dropped (outputs undefined), its fault state cleared, the links to it restored."""
    for stream in device.streams:
        while stream.queue:
            drop(stream, stream.queue.popleft())
    if device.faults is not None:
        device.faults.reset()
        links = device.faults.injector.failed_links
        for pair in [p for p in links if device.index in p]:
            links.discard(pair)


def drop(stream: Stream, command: Command) -> None:
    """Complete ``command`` without running it (a lost device's work): its outputs are undefined; whoever waits
    for it (a marker's waiters on other streams too) goes on."""
    now = stream.env.now
    if command.started < 0:
        command.started = now
    if type(command) is Kernel:
        command.start = None
    elif type(command) is Marker:
        command.run(stream)
    command.ended = now
    command.done = True
    command.stream = stream
    if stream.current is command:
        stream.current = None


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a <= b else (b, a)
