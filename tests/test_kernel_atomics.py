"""Atomics against the definition: each lane's read-modify-write applied one at a time in lane order, every lane
seeing the value the ones before it left (many lanes on one address, extremes of the type, every operation)."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from wia_sim.kernels.atomics import apply_atomic
from wia_sim.kernels.ctype import lookup

OPS = ("add", "sub", "inc", "dec", "xor", "xchg", "min", "max", "and", "or", "cmpxchg")


def sequential(op: str, view: np.ndarray, idx: np.ndarray, ops: list[np.ndarray]) -> np.ndarray:
    dtype = view.dtype
    bits = 8 * dtype.itemsize
    lo = -(1 << (bits - 1)) if dtype.kind == "i" else 0

    def wrap(x: int) -> Any:
        return dtype.type(((x - lo) % (1 << bits)) + lo)

    old = np.empty(idx.size, dtype)
    for k, i in enumerate(idx):
        cur = int(view[i])
        old[k] = view[i]
        a = int(ops[0][k]) if ops else 0
        b = int(ops[1][k]) if op == "cmpxchg" else 0
        new = {
            "add": cur + a,
            "sub": cur - a,
            "inc": cur + 1,
            "dec": cur - 1,
            "xor": cur ^ a,
            "xchg": a,
            "min": min(cur, a),
            "max": max(cur, a),
            "and": cur & a,
            "or": cur | a,
            "cmpxchg": b if cur == a else cur,
        }[op]
        view[i] = wrap(new)
    return old


@settings(max_examples=300, deadline=None)
@given(
    op=st.sampled_from(OPS),
    type_name=st.sampled_from(["int", "uint"]),
    slots=st.integers(1, 6),
    data=st.data(),
)
def test_atomics_match_one_lane_at_a_time(op: str, type_name: str, slots: int, data: st.DataObject) -> None:
    t = lookup(type_name)
    info = np.iinfo(t.dtype)
    n = data.draw(st.integers(1, 40), "lanes")
    values = st.one_of(st.integers(int(info.min), int(info.max)), st.integers(-3, 3).map(lambda v: v % (info.max + 1)))
    value_list = st.lists(values.filter(lambda v: info.min <= v <= info.max), min_size=n, max_size=n)
    idx = np.asarray(data.draw(st.lists(st.integers(0, slots - 1), min_size=n, max_size=n), "idx"), np.int64)
    start = np.asarray(data.draw(st.lists(values, min_size=slots, max_size=slots), "memory"), t.dtype)
    arity = {"inc": 0, "dec": 0, "cmpxchg": 2}.get(op, 1)
    ops = [np.asarray(data.draw(value_list, f"operand {k}"), t.dtype) for k in range(arity)]
    got_view, want_view = start.copy(), start.copy()
    got = apply_atomic(op, got_view, idx, ops, t)
    want = sequential(op, want_view, idx, ops)
    np.testing.assert_array_equal(got, want, err_msg=f"old values of atomic_{op}")
    np.testing.assert_array_equal(got_view, want_view, err_msg=f"memory after atomic_{op}")


@settings(max_examples=60, deadline=None)
@given(op=st.sampled_from(OPS), seed=st.integers(0, 2**32 - 1))
def test_atomics_on_memory_past_65536_elements_keep_the_lane_order(op: str, seed: int) -> None:
    """Lanes are ordered by address 16 bits of the index at a time (``atomics.stable_order``): in memory of more
    than 65,536 elements, lanes on one element (among elements whose indices share their low 16 bits) still
    update it in lane order, each seeing what the one before left, as one lane at a time does."""
    t = lookup("int")
    rng = np.random.default_rng(seed)
    n = 300
    size = 1 << 17
    idx = rng.choice(np.asarray([5, 5 + (1 << 16), 7, 70_000, size - 1], np.int64), n)
    start = rng.integers(-50, 50, size).astype(np.int32)
    arity = {"inc": 0, "dec": 0, "cmpxchg": 2}.get(op, 1)
    ops = [rng.integers(-3, 3, n).astype(np.int32) for _ in range(arity)]
    got_view, want_view = start.copy(), start.copy()
    got = apply_atomic(op, got_view, idx, ops, t)
    want = sequential(op, want_view, idx, ops)
    np.testing.assert_array_equal(got, want, err_msg=f"old values of atomic_{op}")
    np.testing.assert_array_equal(got_view, want_view, err_msg=f"memory after atomic_{op}")
