"""Table 6.10's 64-bit integer functions in uint64 arithmetic (``wia_sim/kernels/long_ints.py``) against exact
Python ints, lane by lane: random bit patterns and the values where carries and signs turn (0, 1, -1, the
limits, the 32-bit limb boundaries). The kernel-level tests (``test_kernel_builtins_tables.py``) run the same
functions through every backend; these reach far more operands per second."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from wia_sim.kernels.long_ints import LONG_FUNCTIONS, long_call, product

# bit patterns where a limb, a carry or a sign turns
EDGES = [0, 1, 2, 3, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1]
EDGES += [2**63 - 2, 2**63 - 1, 2**63, 2**63 + 1, 2**64 - 2, 2**64 - 1]

lane = st.one_of(st.sampled_from(EDGES), st.integers(0, 2**64 - 1))


def _value(u: int, signed: bool) -> int:
    return u - 2**64 if signed and u >= 2**63 else u


def _exact(name: str, x: int, y: int, z: int, signed: bool) -> int:
    """What the function gives on the values, as the 64 bits of the result (saturated where it saturates)."""
    lo, hi = (-(2**63), 2**63 - 1) if signed else (0, 2**64 - 1)
    saturate = lambda v: min(max(v, lo), hi)  # noqa: E731
    r = {
        "abs_diff": lambda: abs(x - y),
        "add_sat": lambda: saturate(x + y),
        "sub_sat": lambda: saturate(x - y),
        "hadd": lambda: (x + y) >> 1,
        "rhadd": lambda: (x + y + 1) >> 1,
        "mul_hi": lambda: (x * y) >> 64,
        "mad_hi": lambda: ((x * y) >> 64) + z,
        "mad_sat": lambda: saturate(x * y + z),
    }[name]()
    return r % 2**64


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(lane, lane, lane), min_size=1, max_size=24), st.booleans())
@example([(2**63, 2**64 - 1, 0), (2**63 - 1, 2**63 - 1, 2**63), (2**64 - 1, 2**64 - 1, 2**64 - 1)], True)
@example([(2**63, 2**63, 2**63), (2**63 - 1, 1, 0), (2**64 - 1, 2**64 - 1, 1), (2**32, 2**32, 2**64 - 1)], False)
@example([(2**63, 1, 2**64 - 1), (3 * 2**61, 2, 2**63), (2**32 - 1, 2**32 - 1, 2**63 - 1)], True)
def test_long_functions_are_exact(lanes: list[tuple[int, int, int]], signed: bool) -> None:
    dt = np.int64 if signed else np.uint64
    cols = [np.array([_value(t[k], signed) for t in lanes], dtype=dt) for k in range(3)]
    for name, fn in LONG_FUNCTIONS.items():
        arity = fn.__code__.co_argcount - 1
        got = long_call(name, cols[:arity], signed)
        assert got.dtype == np.uint64
        for (a, b, c), g in zip(lanes, got.tolist(), strict=True):
            want = _exact(name, _value(a, signed), _value(b, signed), _value(c, signed), signed)
            assert g == want, f"{name}({'long' if signed else 'ulong'}): {a:#x}, {b:#x}, {c:#x}: {g:#x}, not {want:#x}"


@given(lane, lane, st.booleans())
def test_one_lane_operands_broadcast_and_give_a_0d_result(a: int, b: int, signed: bool) -> None:
    """A lane-invariant argument is a 0-d array; the other may be one lane per work-item."""
    dt = np.int64 if signed else np.uint64
    x, y = np.asarray(_value(a, signed), dtype=dt), np.full(3, _value(b, signed), dtype=dt)
    with np.errstate(over="ignore"):
        both = long_call("mad_sat", [x, x, x], signed)
        spread = long_call("mul_hi", [x, y], signed)
    assert both.shape == () and int(both) == _exact("mad_sat", *(_value(a, signed),) * 3, signed)
    assert spread.shape == (3,) and (spread == _exact("mul_hi", _value(a, signed), _value(b, signed), 0, signed)).all()


@pytest.mark.parametrize("signed", [False, True])
def test_the_product_is_the_whole_128_bits(signed: bool) -> None:
    rng = np.random.default_rng()
    a, b = (rng.integers(0, 2**64, 4096, dtype=np.uint64, endpoint=False) for _ in range(2))
    a[:4], b[:4] = [0, 2**64 - 1, 2**63, 2**32], [2**64 - 1, 2**64 - 1, 2**63, 2**32]
    high, low = product(a, b, signed)
    for x, y, h, lo in zip(a.tolist(), b.tolist(), high.tolist(), low.tolist(), strict=True):
        full = (_value(x, signed) * _value(y, signed)) % 2**128
        assert (h, lo) == (full >> 64, full % 2**64)
