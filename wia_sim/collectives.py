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
- ``direct`` (all-reduce, all-gather, reduce-scatter, all-to-all): one step in which every position sends each
  other position its block at once (a one-shot reduce-scatter or all-gather; all-reduce is the two). Every
  device's links carry the transfers together, so the topology decides what overlaps: on a mesh each pair has
  its own link and the ``n-1`` transfers run in parallel (RCCL's many channels over the MI300X's 7 xGMI links);
  on a switch they queue at the device's port; on a torus the multi-hop routes share links.
- ``switch`` (all-reduce, on a switch with ``fabric.switch_reduction``): NCCL's NVLS. The switch reduces what
  the devices write into it and multicasts the result: each device sends its data into the switch once and
  receives its reduced block, sends that block up once and receives every block, ``(n+1)/n`` of the message
  each way per port against the ring's ``2(n-1)/n``. Pipelined in ``C`` pieces (``C + 1`` steps: step ``s``
  reduces piece ``s`` and multicasts piece ``s - 1``), ``C`` as for the ring broadcast.

Every call pays ``[collectives].call_latency`` once (the library's kernel start and the participants'
handshake), before its first step.

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
    from wia_sim.topology import Link, Route, Topology

CollectiveKind = Literal["all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"]
AlgorithmName = Literal["ring", "tree", "pairwise", "direct", "switch"]

ALGORITHMS: dict[str, tuple[AlgorithmName, ...]] = {
    "all_reduce": ("ring", "tree", "direct", "switch"),
    "all_gather": ("ring", "direct"),
    "reduce_scatter": ("ring", "direct"),
    "broadcast": ("ring", "tree"),
    "all_to_all": ("pairwise", "direct"),
}
"""The algorithms each collective has, the first the default when no prediction can choose (``switch`` only
where the fabric reduces in the switch: :meth:`Planner.algorithms`)."""

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
    """``nbytes`` from position ``src`` to position ``dst``; ``None`` for either is the switch itself (a
    reducing, multicasting switch: the transfer crosses only the other end's port)."""

    src: int | None
    dst: int | None
    nbytes: int


@dataclass(frozen=True, slots=True)
class Step:
    """Transfers that run at once (positions in the call's device list) and the bytes each receiver reduces;
    ``settles`` False for a round of a step the library runs as one (no step latency after it)."""

    transfers: tuple[Transfer, ...]
    reduce_bytes: int = 0
    settles: bool = True


def in_rounds(step: Step, n: int) -> list[Step]:
    """A :func:`_direct` step as its ``n - 1`` rounds of ``n`` transfers, one after the other: how a switch serves
    it, each device's port carrying one transfer at a time. (Started at once, the transfers would each hold the
    sender's port while queueing for a receiver's, which a real port does not.)"""
    rounds = [step.transfers[k * n : (k + 1) * n] for k in range(n - 1)]
    per_round = step.reduce_bytes // (n - 1)
    return [Step(r, per_round, k == n - 2) for k, r in enumerate(rounds)]


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
    return pipeline_pieces(n - 2, size, latency_s, bandwidth)


def pipeline_pieces(extra_steps: int, size: int, latency_s: float, bandwidth: float) -> int:
    """The piece count ``C`` that minimizes ``(C + extra)(latency + size / (C bandwidth))``:
    ``sqrt(extra size / (latency bandwidth))``, between 1 and :data:`MAX_PIECES`."""
    if extra_steps <= 0 or size <= 0:
        return 1
    best = math.sqrt(extra_steps * size / (max(latency_s, 1e-12) * bandwidth))
    return max(1, min(MAX_PIECES, round(best), size))


def _direct(n: int, block: int, reduce: bool) -> Step:
    """Every position sends ``block`` to every other at once (ordered by offset, so each round of ``n``
    transfers is a permutation: no port is asked twice before all were asked once)."""
    transfers = tuple(Transfer(i, (i + k) % n, block) for k in range(1, n) for i in range(n))
    return Step(transfers, (n - 1) * block if reduce else 0)


def _switch_all_reduce(n: int, size: int, pieces: int) -> list[Step]:
    """In-switch reduction, pipelined: step ``s`` writes piece ``s`` of every device into the switch (which
    reduces it and returns each device its block), and each device writes its reduced block of piece ``s - 1``
    up (the switch multicasts it to every device)."""
    piece = -(-size // pieces)
    block = -(-piece // n)
    steps = []
    for s in range(pieces + 1):
        sends: list[Transfer] = []
        if s < pieces:
            sends += [Transfer(i, None, piece) for i in range(n)] + [Transfer(None, i, block) for i in range(n)]
        if s > 0:
            sends += [Transfer(i, None, block) for i in range(n)] + [Transfer(None, i, piece) for i in range(n)]
        steps.append(Step(tuple(sends)))
    return steps


def plan(kind: str, algorithm: str, n: int, size: int, root: int = 0, pieces: int = 1) -> list[Step]:
    """The steps of ``kind`` by ``algorithm`` over ``n`` positions; ``size`` is nccl-tests' message size."""
    if n == 1:
        return []
    chunk = -(-size // n)
    if kind == "all_reduce":
        if algorithm == "tree":
            return _binomial_up(n, size, 0) + _binomial_down(n, size, 0)
        if algorithm == "direct":
            return [_direct(n, chunk, True), _direct(n, chunk, False)]
        if algorithm == "switch":
            return _switch_all_reduce(n, size, pieces)
        return _ring(n, n - 1, chunk, True) + _ring(n, n - 1, chunk, False)
    if kind == "reduce_scatter":
        return [_direct(n, chunk, True)] if algorithm == "direct" else _ring(n, n - 1, chunk, True)
    if kind == "all_gather":
        return [_direct(n, chunk, False)] if algorithm == "direct" else _ring(n, n - 1, chunk, False)
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
        if algorithm == "direct":
            return [_direct(n, chunk, False)]
        return [Step(tuple(Transfer(i, (i + k) % n, chunk) for i in range(n))) for k in range(1, n)]
    raise ValueError(f"unknown collective {kind!r}")


def _route(topology: Topology, devices: Sequence[int], t: Transfer) -> Route:
    if t.src is None:
        assert t.dst is not None
        return topology.port_route(devices[t.dst], into_switch=False)
    if t.dst is None:
        return topology.port_route(devices[t.src], into_switch=True)
    return topology.route(devices[t.src], devices[t.dst])


def resolve(topology: Topology, devices: Sequence[int], steps: Sequence[Step]) -> list[list[tuple[Route, float]]]:
    """Per step, each transfer's route and, for a route of one leg, its time (the steps of a pipelined call repeat
    a few transfers: each is worked out once)."""
    found: dict[Transfer, tuple[Route, float]] = {}
    out = []
    for step in steps:
        row = []
        for t in step.transfers:
            known = found.get(t)
            if known is None:
                route = _route(topology, devices, t)
                known = found[t] = (route, route.legs[0].seconds(t.nbytes) if len(route.legs) == 1 else 0.0)
            row.append(known)
        out.append(row)
    return out


def run_steps(
    topology: Topology,
    devices: Sequence[int],
    steps: Sequence[Step],
    step_latency: float,
    reduce_s_per_byte: float,
    call_latency: float = 0.0,
    routes: Sequence[Sequence[tuple[Route, float]]] | None = None,
) -> Generator[simpy.Event, Any, None]:
    """A SimPy process body: the call's fixed cost, then the steps one after another, each step's transfers at
    once.

    A step's transfers whose route is one leg with every link idle (nobody queued for it) take their links at
    once, and one that is queued only behind such a transfer of the same step on its single link holds it on from
    that transfer's end; this process's timeouts release them (a symmetric step: one timeout), rather than a
    process per transfer: the same holds and releases at the same times (a pipelined all-reduce over a switch
    has about a thousand transfers). Any other transfer runs as its own process (:meth:`Topology.transfer`),
    and no later transfer of the step takes its links ahead of it; a transfer that was waiting for a link this
    step released goes on before the next step takes links, as it does when every transfer is a process
    (tests/test_collective_steps.py compares the two, contended and not). ``routes``: per step, each transfer's
    route and (for one leg) its time, as :meth:`Planner.routes` gives them (else worked out here).
    """
    env = topology.env
    if steps and call_latency > 0:
        yield env.timeout(call_latency)
    if routes is None:
        routes = resolve(topology, devices, steps)
    for step, resolved in zip(steps, routes, strict=True):
        events: list[simpy.Event] = []
        busy: dict[Link, float] = {}
        """Per link this step's transfers hold, when they release it (seconds from the step's start)."""
        claimed: set[Link] = set()
        for t, (route, seconds) in zip(step.transfers, resolved, strict=True):
            legs = route.legs
            if len(legs) == 1:
                links = legs[0].links
                if len(links) == 1:  # (most: a port of a switch, a direct link)
                    k = links[0]
                    idle = k not in busy and k not in claimed and bool(k.pool.free) and not k.pool.waiting
                else:
                    idle = all(k not in busy and k not in claimed and k.pool.free and not k.pool.waiting for k in links)
                if idle:
                    for link in links:
                        link.pool.acquire(1)
                        busy[link] = seconds
                    continue
                if len(links) == 1 and links[0] in busy and links[0] not in claimed:
                    busy[links[0]] += seconds
                    continue
            claimed.update(link for leg in legs for link in leg.links)
            events.append(env.process(topology.transfer(route, t.nbytes)))
        if step.reduce_bytes:
            events.append(env.timeout(step.reduce_bytes * reduce_s_per_byte))
        releases: dict[float, list[Link]] = {}
        for link, end in busy.items():
            releases.setdefault(end, []).append(link)
        elapsed = 0.0
        woke = False
        for end in sorted(releases):
            yield env.timeout(end - elapsed)
            elapsed = end
            for link in releases[end]:
                woke = woke or bool(link.pool.waiting)
                link.pool.release(1)
        if woke:  # a transfer that waited for a link goes on before the next step takes links (first come first)
            yield env.timeout(0)
        if events:
            yield env.all_of(events)
        if step_latency > 0 and step.settles:
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
    call_latency: float = 0.0

    @property
    def busbw_factor(self) -> float:
        return busbw_factor(self.kind, len(self.devices))


class Planner:
    """Plans collectives on one topology: steps per algorithm, and AUTO's choice by idle-fabric prediction
    (predictions are cached per call shape)."""

    def __init__(self, topology: Topology, step_latency: float, call_latency: float = 0.0) -> None:
        self.topology = topology
        self.step_latency = step_latency
        self.call_latency = call_latency
        memory = topology.device.memory
        efficiency = topology.device.efficiency.memory
        self.reduce_s_per_byte = 3.0 / (memory.bandwidth * efficiency)
        """A reduction reads two chunks and writes one at the device's streaming bandwidth."""
        self._predicted: dict[tuple[object, ...], float] = {}
        self._plans: dict[tuple[object, ...], CollectivePlan] = {}
        """Plans per call shape (a model's layers repeat a few)."""
        self._routes: dict[int, tuple[CollectivePlan, list[list[tuple[Route, float]]]]] = {}
        """Per plan made here (by ``id``), the plan and its transfers' routes."""

    def algorithms(self, kind: str) -> tuple[str, ...]:
        """The algorithms ``kind`` has on this fabric (``switch`` needs a switch that reduces)."""
        fabric = self.topology.fabric
        reduces = fabric is not None and fabric.switch_reduction
        return tuple(a for a in ALGORITHMS[kind] if a != "switch" or reduces)

    def steps(self, kind: str, algorithm: str, devices: Sequence[int], size: int, root: int) -> list[Step]:
        n = len(devices)
        pieces = 1
        if kind == "broadcast" and algorithm == "ring" and n > 2:
            hop = self.topology.route(devices[0], devices[1 % n])
            pieces = broadcast_pieces(n, size, hop.latency_s + self.step_latency, hop.bandwidth)
        if kind == "all_reduce" and algorithm == "switch" and n > 1:
            port = self.topology.port_route(devices[0], into_switch=True)
            # a step holds each port for two transfers, (n+1)/n of a piece: that step's latency and rate
            pieces = pipeline_pieces(1, size, 2 * port.latency_s + self.step_latency, port.bandwidth * n / (n + 1))
        steps = plan(kind, algorithm, n, size, root, pieces)
        fabric = self.topology.fabric
        if algorithm == "direct" and n > 2 and fabric is not None and fabric.topology == "switch":
            steps = [r for step in steps for r in in_rounds(step, n)]
        return steps

    def predict(self, kind: str, algorithm: str, devices: Sequence[int], size: int, root: int = 0) -> float:
        """Seconds the collective takes on an idle fabric."""
        key = (kind, algorithm, tuple(devices), size, root)
        found = self._predicted.get(key)
        if found is None:
            idle = self.topology.idle_copy()
            steps = self.steps(kind, algorithm, devices, size, root)
            idle.env.process(
                run_steps(idle, devices, steps, self.step_latency, self.reduce_s_per_byte, self.call_latency)
            )
            idle.env.run()
            found = self._predicted[key] = float(idle.env.now)
        return found

    def plan(self, kind: str, algorithm: str, devices: Sequence[int], size: int, root: int = 0) -> CollectivePlan:
        """``algorithm``: one of :meth:`algorithms` for ``kind``, or ``auto`` (the fastest predicted)."""
        key = (kind, algorithm, tuple(devices), size, root)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._plan(kind, algorithm, devices, size, root)
            self._routes[id(plan)] = (plan, resolve(self.topology, plan.devices, plan.steps))
        return plan

    def routes(self, plan: CollectivePlan) -> list[list[tuple[Route, float]]] | None:
        """The routes of a plan :meth:`plan` made (None for another)."""
        found = self._routes.get(id(plan))
        return found[1] if found is not None and found[0] is plan else None

    def _plan(self, kind: str, algorithm: str, devices: Sequence[int], size: int, root: int) -> CollectivePlan:
        choices = self.algorithms(kind)
        if algorithm != "auto" and algorithm not in choices:
            raise ValueError(f"{kind} has no algorithm {algorithm!r} on this fabric; it has {', '.join(choices)}")
        predicted: dict[str, float] = {a: self.predict(kind, a, devices, size, root) for a in choices}
        chosen = min(choices, key=lambda a: predicted[a]) if algorithm == "auto" else algorithm
        steps = tuple(self.steps(kind, chosen, devices, size, root))
        return CollectivePlan(
            kind,
            chosen,
            tuple(devices),
            size,
            steps,
            predicted,
            self.step_latency,
            self.reduce_s_per_byte,
            self.call_latency,
        )


Finish = Callable[[], None]


class Collective(Command):
    """A collective as one command on the first participant's stream (the others' streams wait for it, and it
    for them: the sim backend orders them with markers). ``start`` (numerics only) reads every input when the
    collective starts and returns the function that writes every output when it ends."""

    __slots__ = ("plan", "routes", "start", "topology")

    def __init__(
        self,
        topology: Topology,
        plan: CollectivePlan,
        start: Callable[[], Finish] | None,
        routes: Sequence[Sequence[tuple[Route, float]]] | None = None,
    ) -> None:
        super().__init__()
        self.topology = topology
        self.plan = plan
        self.start = start
        self.routes = routes

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
        yield from run_steps(
            self.topology, p.devices, p.steps, p.step_latency, p.reduce_s_per_byte, p.call_latency, self.routes
        )
        if finish is not None:
            try:
                finish()
            except Exception as e:
                stream.machine.fault(self, e)
