"""benchmarks/lockstep_floor.py: each floor computes its kernel's outputs (held to the case's reference at its
documented tolerance, on launches drawn from several seeds), without changing its inputs. A floor that computed less
than its kernel would make the benchmark's bound too low."""

from __future__ import annotations

import numpy as np
import pytest
from benchmark_scripts import benchmark_script

from tests.kernels import corpus

FLOORS = benchmark_script("lockstep_floor")
CASES = {case.name: case for case in corpus.CASES}


def test_every_floor_is_a_corpus_kernel() -> None:
    assert set(FLOORS.FLOORS) <= set(CASES)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("name", sorted(FLOORS.FLOORS))
def test_floor_meets_reference(name: str, seed: int) -> None:
    case = CASES[name]
    launch = case.draw(np.random.default_rng(seed))
    args = FLOORS.arguments(launch)
    before = {k: v.copy() for k, v in args.items() if isinstance(v, np.ndarray)}
    outputs = FLOORS.FLOORS[name](args)
    assert case.check(launch, outputs) == []
    for k, v in before.items():
        assert np.array_equal(args[k], v, equal_nan=True), f"{name} changed its input {k}"
