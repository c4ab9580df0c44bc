"""Random sequences of the whole public API (issue 14, "abuse"): only WiaErrors of the codes each rule may raise,
nothing hangs, valid results match NumPy, and teardown leaves nothing allocated. The machine is in ``tests/abuse``;
``benchmarks/fuzz_api.py`` runs it for minutes. Here a fixed seed and a bounded run keep CI fast and reproducible:
a failure prints the minimal sequence, and ``python benchmarks/fuzz_api.py --seed SEED`` searches further."""

from __future__ import annotations

import pytest
from abuse import machine_for
from hypothesis import HealthCheck, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.stateful import run_state_machine_as_test

SEED = 14_2026
"""The fixed seed of the CI run (printed with the run: a failure here reproduces with it)."""

CI_SETTINGS = settings(
    max_examples=12,
    stateful_step_count=40,
    deadline=None,  # each call has the machine's own wall-clock guard
    database=None,  # no replay of examples saved by other runs: the same sequences on every machine
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)


@pytest.mark.parametrize("backend", ["sim", "reference"])
def test_random_api_sequences_survive(backend: str, capsys: pytest.CaptureFixture[str]) -> None:
    machine = hypothesis_seed(SEED)(machine_for(backend))
    with capsys.disabled():
        print(f"\napi abuse on {backend}: hypothesis seed {SEED}")
    run_state_machine_as_test(machine, settings=CI_SETTINGS)
