"""The simulated machine: one host, its devices, and the two clocks.

The host clock advances by the modeled cost of every call the host makes. The SimPy environment (device time)
runs lazily: only a synchronization runs it, up to the awaited point, after which the host clock is set to
``max(host, that point)``. Work submitted at host time ``t`` never starts before ``t``, so the host clock is never
behind the device clock. Same-time events run in scheduling order, so a program and a model give the same
timeline and the same numbers on every run.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import simpy

from wia_sim.cache import LastLevelCache
from wia_sim.collectives import Planner
from wia_sim.commands import Command
from wia_sim.hazards import HazardDetector, StreamHazard
from wia_sim.heap import Heap
from wia_sim.hwmodel import HardwareModel, SystemModel
from wia_sim.memory import Buffer, MemoryKind
from wia_sim.migration import new_residency
from wia_sim.resources import UnitPool
from wia_sim.stream import Stream
from wia_sim.topology import Topology

if TYPE_CHECKING:
    from wia_sim.faults import DeviceFaults, FaultInjector


class SimulationStalled(RuntimeError):
    """A wait that no scheduled event can ever satisfy (a bug in whatever drives the machine)."""


class CommandFault(RuntimeError):
    """Work that raised while it ran (a fault of a kernel's numerics); the device went on with later work."""


class Device:
    """One accelerator: compute units, copy engines (H2D, D2H), a D2D path and a memory heap."""

    def __init__(self, machine: Machine, index: int, uplink: Device | None = None) -> None:
        model = machine.model
        env = machine.env
        self.machine = machine
        self.env = env
        self.index = index
        self.model = model
        self.compute = UnitPool(env, model.compute.compute_units, "compute units")
        # One path per link direction: however many DMA engines a chip has, transfers in one direction share the
        # link's bandwidth, so they are served one after another at the full rate; the two directions overlap.
        # Devices behind one host uplink (a system's host_link_groups) share its two directions.
        self.engines: dict[str, UnitPool] = {
            "h2d": uplink.engines["h2d"] if uplink is not None else UnitPool(env, 1, "H2D copy engine"),
            "d2h": uplink.engines["d2h"] if uplink is not None else UnitPool(env, 1, "D2H copy engine"),
            "d2d": UnitPool(env, 1, "D2D path"),
            "host": machine.host_copy,
        }
        self.heap = Heap(int(model.memory.size), int(model.memory.alignment))
        cached = model.memory.cache_bandwidth is not None and model.memory.last_level_cache > 0
        self.cache = LastLevelCache(model) if cached else None
        """What the last-level cache holds between kernels (models that give ``memory.cache_bandwidth``)."""
        self.streams: list[Stream] = []
        """Every stream made on the device (a reset drops their queued work)."""
        self.faults: DeviceFaults | None = None
        """Injected faults and their effects (:mod:`wia_sim.faults`), once one was armed on the device."""

    def stream(self, label: str = "") -> Stream:
        stream = Stream(self, label)
        self.streams.append(stream)
        return stream

    def allocate(self, kind: MemoryKind, nbytes: int) -> Buffer:
        """Allocate ``nbytes``; device memory is placed in the heap (raises ``HeapFullError`` when nothing fits)."""
        if self.faults is not None:
            self.faults.allocating(nbytes)
        address = self.heap.allocate(nbytes) if kind is MemoryKind.DEVICE else None
        buffer = Buffer(self.index, kind, nbytes, address, self.machine.numerics)
        buffer.residency = new_residency(kind, nbytes)
        return buffer

    def release(self, buffer: Buffer) -> None:
        if buffer.address is not None:
            self.heap.release(buffer.address)
        buffer.freed = True
        detector = self.machine.detector
        if detector is not None:  # its accesses no longer matter (HazardDetector.forget, inlined: once per free)
            detector.shadows.pop(buffer, None)


class Machine:
    """A host with ``num_devices`` identical devices of one hardware model; with a ``system``, the first
    ``num_devices`` of its devices, its fabric between them (:attr:`topology`) and its shared host uplinks.

    ``hazards``: check every submission for stream hazards (:mod:`wia_sim.hazards`); the findings are kept in
    :attr:`hazards`, and ``detector.handler`` (when set) is told of each as it is found.
    """

    def __init__(
        self,
        model: HardwareModel,
        num_devices: int = 1,
        numerics: bool = True,
        hazards: bool = True,
        system: SystemModel | None = None,
        host_per_device: bool = False,
    ) -> None:
        self.model = model
        self.system = system
        self.numerics = numerics
        self.stream_count = 0
        self.hazards: list[StreamHazard] = []
        """The stream hazards found, in the order the later command of each was submitted (the first
        ``hazards.KEPT_FINDINGS``; ``hazards_dropped`` counts the rest)."""
        self.hazards_dropped = 0
        self.detector: HazardDetector | None = HazardDetector(self) if hazards else None
        self.env = simpy.Environment()
        self.clocks = [0.0] * (num_devices if host_per_device else 1)
        """The host clock: one (the program's one thread issues everything), or one per device (the program stands
        for one host thread or process per device, as tensor-parallel engines run: a call for device ``d`` spends
        and waits on ``clocks[d]``; see :meth:`use_lane`)."""
        self.lane = 0
        """The clock the current call spends and waits on (its device's, with a clock per device)."""
        self.faults: list[tuple[Command, Exception]] = []
        self.trace: list[Command] | None = None
        """When a list, every completed command is appended to it in completion order (a timeline)."""
        self.replaying = False
        """A graph's commands are being submitted: the host issued them with one launch, so it neither waits for
        room in a stream's queue nor lets device time catch up between them (:mod:`wia_sim.stream`)."""
        self.host_copy = UnitPool(self.env, 1, "host memcpy")
        self.devices: list[Device] = []
        for i in range(num_devices):
            first = system.host_link_group(i) if system is not None else i
            self.devices.append(Device(self, i, self.devices[first] if first != i else None))
        self.topology = Topology(
            self.env,
            model,
            system.count if system is not None else num_devices,
            system.fabric if system is not None else None,
            [device.engines for device in self.devices],
        )
        """The links between the devices and the route of each pair (:mod:`wia_sim.topology`)."""
        costs = system.collectives if system is not None else None
        self.collectives = Planner(
            self.topology, costs.step_latency if costs else 0.0, costs.call_latency if costs else 0.0
        )
        """Plans collectives on :attr:`topology` (:mod:`wia_sim.collectives`)."""
        self.injector: FaultInjector | None = None
        """Armed faults (:mod:`wia_sim.faults`): made by whoever injects the first one."""

    def fault(self, command: Command, error: Exception) -> None:
        """Record that ``command`` raised while it ran: a finding about the user's work (an error with a
        ``wia_code``) is reported by the next wait for a command of the same stream; a fault of the simulator,
        by the next wait of any stream."""
        self.faults.append((command, error))

    def _report_faults(self, waited: Command | None = None) -> None:
        """Raise the first fault to report after a wait for ``waited`` (None: a wait for no stream's command in
        particular, which reports only the simulator's own faults): another stream's findings wait for their own
        stream, since the call that happened to run the simulator past them may be another context's."""
        if not self.faults:
            return
        stream = waited.stream if waited is not None else None
        mine: list[tuple[Command, Exception]] = []
        kept: list[tuple[Command, Exception]] = []
        for fault in self.faults:
            own = not hasattr(fault[1], "wia_code") or (stream is not None and fault[0].stream is stream)
            (mine if own else kept).append(fault)
        if not mine:
            return
        self.faults = kept
        (command, error), *rest = mine
        if hasattr(error, "wia_code"):  # a finding about the user's work (a kernel's bug), not a simulator fault
            raise error
        more = f" (and {len(rest)} more)" if rest else ""
        raise CommandFault(f"{command!r} failed while running: {type(error).__name__}: {error}{more}") from error

    @property
    def host_time(self) -> float:
        """The host clock of the current call (:attr:`lane`)."""
        return self.clocks[self.lane]

    @host_time.setter
    def host_time(self, value: float) -> None:
        self.clocks[self.lane] = value

    def use_lane(self, device: int) -> None:
        """The calls that follow are for ``device``: with a host clock per device they spend and wait on its clock
        (an API call that names no device, a view or a query, stays on the last device's)."""
        if len(self.clocks) > 1:
            self.lane = device

    def host_clock(self, device: int) -> float:
        """When work submitted now for ``device`` is submitted: its host clock."""
        clocks = self.clocks
        return clocks[device] if len(clocks) > 1 else clocks[0]

    def host_spend(self, seconds: float) -> None:
        """The host spends ``seconds`` in a call."""
        self.clocks[self.lane] += seconds

    def wait(self, command: Command, timeout_s: float = math.inf, observe: bool = True) -> bool:
        """Run device time until ``command`` completes or the host has waited ``timeout_s``.

        Returns False on timeout (the host clock then stands at the deadline). ``observe``: the host's program
        waited (a synchronization, a blocking transfer), so what it submits next is ordered after ``command``;
        False for a wait the machine imposes (a full queue), which orders nothing for the hazard detector.
        """
        env = self.env
        deadline = self.host_time + timeout_s
        while not command.done:
            when = env.peek()
            if when > deadline:
                self.host_time = deadline
                return False
            if when == math.inf:
                raise SimulationStalled(f"{type(command).__name__} can never complete: no event is scheduled")
            env.step()
        if command.ended > self.host_time:
            self.host_time = command.ended
        if observe and self.detector is not None:
            self.detector.observed(command)
        self._report_faults(command)
        stream = command.stream
        if stream is not None and stream.device.faults is not None:  # dropped work completes, but was lost
            stream.device.faults.check(f"waiting for {command.label}")
        return True

    def observed(self, command: Command) -> None:
        """The host found ``command`` complete without waiting (a query): later submissions are ordered after it."""
        if command.done and self.detector is not None:
            self.detector.observed(command)

    def catch_up(self) -> None:
        """Run device time up to the host clock (what a non-blocking query observes)."""
        env = self.env
        host = self.host_time
        while env.peek() <= host:
            env.step()
        self._report_faults()
