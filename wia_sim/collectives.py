"""Collectives over a system's fabric, modeled step by step: an extension beyond the spec (docs/collectives.md).

An algorithm is a list of steps; a step is a set of concurrent transfers between the participating devices (by
their position in the call's list), each crossing the route :mod:`wia_sim.topology` gives its pair and holding
its links, so that transfers of one step (or of other work) that share a link contend. A step ends when its last
transfer does (or, for a reducing step, when the reduction's memory time on the device is over, if later: read two
chunks, write one, at the device's streaming bandwidth, overlapped with the transfers as NCCL's kernels reduce
while they receive), plus the library's per-step cost (``[collectives].step_latency`` of the system file).

Algorithms:

- ``ring`` (all-reduce, all-gather, reduce-scatter, broadcast): position ``i`` sends to ``i + 1``. All-reduce is a
  reduce-scatter then an all-gather, ``2(n-1)`` steps of ``size/n``; all-gather and reduce-scatter ``n-1`` steps of
  one device's block. Broadcast is pipelined along the ring from the root: the message in ``C`` pieces,
  ``C + n - 2`` steps, ``C`` the piece count that minimizes the idle-fabric time (at most 64).
- ``tree`` (all-reduce, broadcast): a binomial tree, ``ceil(log2 n)`` steps of the whole message up (reducing) and
  as many down, not pipelined. NCCL's double binary tree pipelines chunks through two trees; this one is a simpler
  model, with the right step count for small (latency-bound) messages and pessimistic for large ones, where ring
  is predicted faster anyway.
- ``pairwise`` (all-to-all): ``n-1`` steps; in step ``k`` position ``i`` sends its block for ``i + k``.

``auto`` picks the algorithm predicted fastest on an idle copy of the fabric (the prediction is exact for an idle
system: the same steps on the same links). Sizes and bus bandwidth are nccl-tests' (doc/PERFORMANCE.md):
:func:`message_bytes`, :func:`busbw_factor`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import simpy

from wia_sim.commands import Command, Steps

if TYPE_CHECKING:
    from wia_sim.stream import Stream
    from wia_sim.topology import Topology

CollectiveKind = Literal["all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"]
AlgorithmName = Literal["ring", "tree", "pairwise"]

ALGORITHMS: dict[str, tuple[AlgorithmName, ...]] = {
    "all_reduce": ("ring", "tree"),
    "all_gather": ("ring",),
    "reduce_scatter": ("ring",),
    "broadcast": ("ring", "tree"),
    "all_to_all": ("pairwise",),
}
"""The algorithms each collective has, the first the default when no prediction can choose."""

MAX_PIECES = 64
"""The most pieces a pipelined ring broadcast splits its message into (NCCL's chunking is of the same order)."""


def busbw_factor(kind: str, n: int) -> float:
    """nccl-tests' bus bandwidth over algorithm bandwidth: ``2(n-1)/n`` for all-reduce, ``(n-1)/n`` for all-gather,
    reduce-scatter and all-to-all, 1 for broadcast."""
    if kind == "all_reduce":
        return 2 * (n - 1) / n
    if kind == "broadcast":
        return 1.0
    return (n - 1) / n


def message_bytes(kind: str, n: int, input_nbytes: int) -> int:
    """The size nccl-tests reports for a call whose every input is ``input_nbytes``: the larger of one device's
    input and output buffers (all-gather's output is ``n`` inputs; the others' is at most their input)."""
    return input_nbytes * n if kind == "all_gather" else input_nbytes


@dataclass(frozen=True, slots=True)
class Transfer:
    src: int
    dst: int
    nbytes: int


@dataclass(frozen=True, slots=True)
class Step:
    """Transfers that run at once (positions in the call's device list) and the bytes each receiver reduces."""

    transfers: tuple[Transfer, ...]
    reduce_bytes: int = 0


def _ring(n: int, count: int, chunk: int, reduce: bool) -> list[Step]:
    transfers = tuple(Transfer(i, (i + 1) % n, chunk) for i in range(n))
    return [Step(transfers, chunk if reduce else 0) for _ in range(count)]


def _binomial_up(n: int, size: int, root: int) -> list[Step]:
    """Reduce to ``root``: in round ``k`` the positions ``2^k`` past a multiple of ``2^(k+1)`` (relative to the
    root) send to the one ``2^k`` before them."""
    steps = []
    span = 1
    while span < n:
        sends = tuple(Transfer((rel + root) % n, (rel - span + root) % n, size) for rel in range(span, n, 2 * span))
        steps.append(Step(sends, size))
        span *= 2
    return steps


def _binomial_down(n: int, size: int, root: int) -> list[Step]:
    """Broadcast from ``root``: in round ``k`` every position that has the data (relative ``< 2^k``) sends to the
    one ``2^k`` after it."""
    steps = []
    span = 1
    while span < n:
        sends = tuple(Transfer((rel + root) % n, (rel + span + root) % n, size) for rel in range(min(span, n - span)))
        steps.append(Step(sends))
        span *= 2
    return steps


def broadcast_pieces(n: int, size: int, latency_s: float, bandwidth: float) -> int:
    """The piece count ``C`` that minimizes ``(C + n - 2)(latency + size / (C bandwidth))``, the idle time of a
    pipelined ring broadcast: ``sqrt((n - 2) size / (latency bandwidth))``, between 1 and :data:`MAX_PIECES`."""
    if n <= 2 or size <= 0:
        return 1
    best = math.sqrt((n - 2) * size / (max(latency_s, 1e-12) * bandwidth))
    return max(1, min(MAX_PIECES, round(best), size))


def plan(kind: str, algorithm: str, n: int, size: int, root: int = 0, pieces: int = 1) -> list[Step]:
    """The steps of ``kind`` by ``algorithm`` over ``n`` positions; ``size`` is nccl-tests' message size."""
    if n == 1:
        return []
    if kind == "all_reduce":
        if algorithm == "tree":
            return _binomial_up(n, size, 0) + _binomial_down(n, size, 0)
        chunk = -(-size // n)
        return _ring(n, n - 1, chunk, True) + _ring(n, n - 1, chunk, False)
    if kind == "reduce_scatter":
        return _ring(n, n - 1, -(-size // n), True)
    if kind == "all_gather":
        return _ring(n, n - 1, -(-size // n), False)
    if kind == "broadcast":
        if algorithm == "tree":
            return _binomial_down(n, size, root)
        piece = -(-size // pieces)
        steps = []
        for s in range(pieces + n - 2):  # hop h (ring position root+h to root+h+1) carries piece s - h
            sends = tuple(
                Transfer((root + h) % n, (root + h + 1) % n, piece) for h in range(n - 1) if 0 <= s - h < pieces
            )
            steps.append(Step(sends))
        return steps
    if kind == "all_to_all":
        block = -(-size // n)
        return [Step(tuple(Transfer(i, (i + k) % n, block) for i in range(n))) for k in range(1, n)]
    raise ValueError(f"unknown collective {kind!r}")


def run_steps(
    topology: Topology, devices: Sequence[int], steps: Sequence[Step], step_latency: float, reduce_s_per_byte: float
) -> Generator[simpy.Event, Any, None]:
    """A SimPy process body: the steps one after another, each step's transfers at once."""
    env = topology.env
    for step in steps:
        events: list[simpy.Event] = [
            env.process(topology.transfer(topology.route(devices[t.src], devices[t.dst]), t.nbytes))
            for t in step.transfers
        ]
        if step.reduce_bytes:
            events.append(env.timeout(step.reduce_bytes * reduce_s_per_byte))
        if events:
            yield env.all_of(events)
        if step_latency > 0:
            yield env.timeout(step_latency)


@dataclass(frozen=True)
class CollectivePlan:
    """What one collective call will do: the chosen algorithm, its steps, and the idle-fabric time of each
    algorithm the collective has (AUTO's alternatives)."""

    kind: str
    algorithm: str
    devices: tuple[int, ...]
    size: int
    steps: tuple[Step, ...]
    predicted: dict[str, float]
    step_latency: float
    reduce_s_per_byte: float

    @property
    def busbw_factor(self) -> float:
        return busbw_factor(self.kind, len(self.devices))


class Planner:
    """Plans collectives on one topology: steps per algorithm, and AUTO's choice by idle-fabric prediction
    (predictions are cached per call shape)."""

    def __init__(self, topology: Topology, step_latency: float) -> None:
        self.topology = topology
        self.step_latency = step_latency
        memory = topology.device.memory
        efficiency = topology.device.efficiency.memory
        self.reduce_s_per_byte = 3.0 / (memory.bandwidth * efficiency)
        """A reduction reads two chunks and writes one at the device's streaming bandwidth."""
        self._predicted: dict[tuple[object, ...], float] = {}

    def steps(self, kind: str, algorithm: str, devices: Sequence[int], size: int, root: int) -> list[Step]:
        n = len(devices)
        pieces = 1
        if kind == "broadcast" and algorithm == "ring" and n > 2:
            hop = self.topology.route(devices[0], devices[1 % n])
            pieces = broadcast_pieces(n, size, hop.latency_s + self.step_latency, hop.bandwidth)
        return plan(kind, algorithm, n, size, root, pieces)

    def predict(self, kind: str, algorithm: str, devices: Sequence[int], size: int, root: int = 0) -> float:
        """Seconds the collective takes on an idle fabric."""
        key = (kind, algorithm, tuple(devices), size, root)
        found = self._predicted.get(key)
        if found is None:
            idle = self.topology.idle_copy()
            steps = self.steps(kind, algorithm, devices, size, root)
            idle.env.process(run_steps(idle, devices, steps, self.step_latency, self.reduce_s_per_byte))
            idle.env.run()
            found = self._predicted[key] = float(idle.env.now)
        return found

    def plan(self, kind: str, algorithm: str, devices: Sequence[int], size: int, root: int = 0) -> CollectivePlan:
        """``algorithm``: one of :data:`ALGORITHMS` for ``kind``, or ``auto`` (the fastest predicted)."""
        choices = ALGORITHMS[kind]
        predicted: dict[str, float] = {a: self.predict(kind, a, devices, size, root) for a in choices}
        chosen = min(choices, key=lambda a: predicted[a]) if algorithm == "auto" else algorithm
        steps = tuple(self.steps(kind, chosen, devices, size, root))
        return CollectivePlan(
            kind, chosen, tuple(devices), size, steps, predicted, self.step_latency, self.reduce_s_per_byte
        )


Finish = Callable[[], None]


class Collective(Command):
    """A collective as one command on the first participant's stream (the others' streams wait for it, and it
    for them: the sim backend orders them with markers). ``start`` (numerics only) reads every input when the
    collective starts and returns the function that writes every output when it ends."""

    __slots__ = ("plan", "start", "topology")

    def __init__(self, topology: Topology, plan: CollectivePlan, start: Callable[[], Finish] | None) -> None:
        super().__init__()
        self.topology = topology
        self.plan = plan
        self.start = start

    def __repr__(self) -> str:
        return f"<{self.plan.kind} ({self.plan.algorithm}) of {self.plan.size} bytes>"

    def _default_label(self) -> str:
        p = self.plan
        return f"{p.kind} ({p.algorithm}) of {p.size} bytes over devices {', '.join(map(str, p.devices))}"

    def run(self, stream: Stream) -> Steps:
        self.started = stream.env.now
        start, self.start = self.start, None
        finish = None
        if start is not None:
            try:
                finish = start()
            except Exception as e:
                stream.machine.fault(self, e)
        p = self.plan
        yield from run_steps(self.topology, p.devices, p.steps, p.step_latency, p.reduce_s_per_byte)
        if finish is not None:
            try:
                finish()
            except Exception as e:
                stream.machine.fault(self, e)
