"""The collective step runner takes a step's idle links without a process per transfer (wia_sim.collectives
.run_steps): it must hold and release every link at the times a process per transfer would, alone or contending
with other transfers on the fabric."""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

import pytest
import simpy
from hypothesis import given, settings
from hypothesis import strategies as st

from wia_sim.collectives import ALGORITHMS, Planner, Step, _route, run_steps
from wia_sim.hwmodel import load_system
from wia_sim.machine import Machine
from wia_sim.topology import Topology

SYSTEMS = ("nvidia-hgx-h100", "amd-mi300x-platform", "wia-tiny-4x", "google-tpu-v5e-16")


def _per_transfer(
    topology: Topology, devices: Sequence[int], steps: Sequence[Step], step_latency: float, reduce_s: float
) -> Generator[simpy.Event, Any, None]:
    """The reference: every transfer of a step its own process (run_steps before it took idle links itself)."""
    env = topology.env
    for step in steps:
        events = [env.process(topology.transfer(_route(topology, devices, t), t.nbytes)) for t in step.transfers]
        if step.reduce_bytes:
            events.append(env.timeout(step.reduce_bytes * reduce_s))
        if events:
            yield env.all_of(events)
        if step_latency > 0 and step.settles:
            yield env.timeout(step_latency)


def _planner(name: str) -> Planner:
    system = load_system(name)
    machine = Machine(system.device, system.model.count, numerics=False, hazards=False, system=system.model)
    return Planner(machine.topology, system.model.collectives.step_latency)


def _finishes(
    planner: Planner, runner: Any, kind: str, algorithm: str, devices: list[int], size: int,
    others: list[tuple[int, int, int, float]],
) -> list[float]:  # fmt: skip
    """When the collective and each competing transfer (src, dst, bytes, start delay) end, on an idle copy."""
    topology = planner.topology.idle_copy()
    env = topology.env
    steps = planner.steps(kind, algorithm, devices, size, 0)
    ends: list[float] = [0.0] * (1 + len(others))

    def collective() -> Generator[simpy.Event, Any, None]:
        yield from runner(topology, devices, steps, planner.step_latency, planner.reduce_s_per_byte)
        ends[0] = env.now

    def other(i: int, src: int, dst: int, nbytes: int, delay: float) -> Generator[simpy.Event, Any, None]:
        yield env.timeout(delay)
        yield from topology.transfer(topology.route(src, dst), nbytes)
        ends[i] = env.now

    env.process(collective())
    for i, (src, dst, nbytes, delay) in enumerate(others, 1):
        env.process(other(i, src, dst, nbytes, delay))
    env.run()
    return ends


@settings(max_examples=60, deadline=None)
@given(
    system=st.sampled_from(SYSTEMS),
    kind=st.sampled_from(sorted(ALGORITHMS)),
    pick=st.integers(0, 3),
    count=st.integers(2, 8),
    size=st.integers(1, 64 << 20),
    others=st.lists(
        st.tuples(st.integers(0, 7), st.integers(0, 7), st.integers(1, 16 << 20), st.floats(0, 2e-3)), max_size=4
    ),
)
def test_steps_hold_links_as_a_process_per_transfer_would(
    system: str, kind: str, pick: int, count: int, size: int, others: list[tuple[int, int, int, float]]
) -> None:
    planner = _planner(system)
    n = min(count, planner.topology.count)
    algorithms = planner.algorithms(kind)
    algorithm = algorithms[pick % len(algorithms)]
    devices = list(range(n))
    competing = [(s % n, d % n, b, t) for s, d, b, t in others if s % n != d % n]
    fast = _finishes(planner, run_steps, kind, algorithm, devices, size, competing)
    reference = _finishes(planner, _per_transfer, kind, algorithm, devices, size, competing)
    assert fast == pytest.approx(reference, rel=1e-9, abs=1e-15)


def _every_algorithm() -> list[tuple[str, str, str]]:
    cases = []
    for system in SYSTEMS:
        planner = _planner(system)
        cases += [(system, kind, a) for kind in sorted(ALGORITHMS) for a in planner.algorithms(kind)]
    return cases


@pytest.mark.parametrize(("system", "kind", "algorithm"), _every_algorithm())
def test_every_algorithm_with_transfers_arriving_during_it(system: str, kind: str, algorithm: str) -> None:
    planner = _planner(system)
    n = min(8, planner.topology.count)
    others = [(0, 1, 1 << 20, 1e-5), (n - 1, 0, 4 << 20, 3e-5), (1, n - 1, 256 << 10, 0.0), (2 % n, 0, 1 << 22, 2e-4)]
    others = [o for o in others if o[0] != o[1]]
    for size in (4096, 64 << 20):
        fast = _finishes(planner, run_steps, kind, algorithm, list(range(n)), size, others)
        assert fast == pytest.approx(_finishes(planner, _per_transfer, kind, algorithm, list(range(n)), size, others))
