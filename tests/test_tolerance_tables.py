"""The project's error bounds (tests/numerics_reference.py) and the conformance suite's TOLERANCES describe the
same rounding; docs/numerics.md explains how they relate. This keeps the two from drifting apart."""

from __future__ import annotations

import numerics_reference as nr
import pytest

from conformance.assertions import TOLERANCES


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_one_rounding_in_our_bounds_is_within_the_suites_tolerance(dtype: str) -> None:
    # a single correctly rounded result errs by at most eps/2 relative: both tables must allow it, and the
    # suite's tolerance must stay within the factor 1.3 of ours that docs/numerics.md states
    ours = nr.EPS[dtype]
    suite = TOLERANCES[dtype].rtol
    assert suite >= nr.EPS[dtype] / 2
    assert suite <= 1.3 * (nr.TRANSCENDENTAL_ULPS + 1) * ours


@pytest.mark.parametrize("dtype", ["int8", "int32", "bool"])
def test_integers_are_exact_in_both(dtype: str) -> None:
    assert TOLERANCES[dtype].rtol == 0 and TOLERANCES[dtype].atol == 0
