"""Reads whose race records wait until a write or an atomic update needs them (``RaceTracker._wait``).

A read conflicts only with writes and atomic updates, so the tracker checks it against those at once and records
its readers only when a write or an atomic update of the same memory comes (``_fold_reads``, in the order the
reads happened). That must change nothing but speed: every program here runs with reads waiting and with each
read recorded at once (``_PENDING_READS`` below zero), and gives the same bits, counts, steps and findings word
for word, fields too. Random programs mix reads, writes, atomics and both kinds of barrier over ``__global`` and
``__local`` memory, across work-groups and barrier epochs (the record of a read depends on the epoch it happened
in)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_backends import assert_same_runs, run_on_copies

from wia_sim.kernels import races
from wia_sim.kernels.lanes import Geometry

N, WG = 64, 16


def _run(src: str, arrays: list[np.ndarray], waiting: bool, checks: bool = True) -> Any:
    saved = races._PENDING_READS
    races._PENDING_READS = saved if waiting else -1
    try:
        return run_on_copies(src, arrays, Geometry((N, 1, 1), (WG, 1, 1)), (N,), checks=checks)
    finally:
        races._PENDING_READS = saved


def _arrays(rng: np.random.Generator) -> list[np.ndarray]:
    return [
        rng.random(2 * N, dtype=np.float32),
        rng.random(2 * N, dtype=np.float32),
        rng.integers(0, 9, 2 * N, dtype=np.int32),
    ]


def _same(src: str, seed: int = 5) -> Any:
    arrays = _arrays(np.random.default_rng(seed))
    waited = _run(src, arrays, waiting=True)
    assert_same_runs(waited, _run(src, arrays, waiting=False))
    return waited


HEAD = """
__kernel void k(__global float* a, __global float* b, __global int* c, const int n) {
    __local float t[2 * 16];
    const int i = get_global_id(0), l = get_local_id(0);
    float v = 0.0f;
    t[l] = (float)l;
    t[l + 16] = 1.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
"""
TAIL = """
    b[n + i] = v;
}
"""


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """How many reads of ``__global`` memory went into the shadow in the test's runs."""
    calls: list[int] = []
    record = races._record_global

    def counted(shadow: Any, *args: Any) -> None:
        calls.append(1)
        record(shadow, *args)

    monkeypatch.setattr(races, "_record_global", counted)
    yield calls


def test_reads_of_memory_nothing_writes_are_never_recorded(recorded: list[int]) -> None:
    src = HEAD + "    v = a[i] + a[(i + 1) % n] + a[i ^ 17];\n    barrier(CLK_GLOBAL_MEM_FENCE);\n    v += a[i];" + TAIL
    _run(src, _arrays(np.random.default_rng(1)), waiting=True)
    assert not recorded
    _run(src, _arrays(np.random.default_rng(1)), waiting=False)
    assert recorded


@pytest.mark.parametrize(
    "body",
    [
        # a read by another work-item of the same group, then a write: a race (no barrier between)
        "    v = a[i ^ 1];\n    a[i] = v;",
        # ... ordered by a barrier of the group: none
        "    v = a[i ^ 1];\n    barrier(CLK_GLOBAL_MEM_FENCE);\n    a[i] = v;",
        # ... by a barrier that does not order __global memory: a race
        "    v = a[i ^ 1];\n    barrier(CLK_LOCAL_MEM_FENCE);\n    a[i] = v;",
        # reads of one element by work-items of two groups, in two barrier epochs, then a write by a third
        "    if (i == 3) v = a[40];\n    barrier(CLK_GLOBAL_MEM_FENCE);\n    if (i == 40) v = a[40];\n"
        "    barrier(CLK_GLOBAL_MEM_FENCE);\n    if (i == 41) a[40] = 2.0f;",
        # the same within one group: the first read is ordered by the barrier, the second is not
        "    if (i == 3) v = a[5];\n    barrier(CLK_GLOBAL_MEM_FENCE);\n    if (i == 4) v = a[5];\n"
        "    if (i == 5) a[5] = 2.0f;",
        # a read after a write of the same element by another work-item: checked at once
        "    if (i == 1) a[9] = 1.0f;\n    if (i == 2) v = a[9];",
        # reads, then an atomic update of the same int: a race; of another int: none
        "    v = (float)c[i % 8];\n    if (i == 9) atomic_add(&c[2], 1);",
        "    v = (float)c[i % 8];\n    if (i == 9) atomic_add(&c[20], 1);",
        # a read after an atomic update on record: checked at once
        "    atomic_inc(&c[i % 4]);\n    v = (float)c[(i + 1) % 4];",
        # an atomic that stores nothing beside reads (they never conflict), then a plain write
        "    v = (float)c[3];\n    atomic_cmpxchg(&c[3], -7, 1);\n    if (i == 0) c[5] = 2;",
        # __local reads, forgotten at a barrier, then written and read again; read, then written by others
        "    v = t[(l + 1) % 16];\n    barrier(CLK_LOCAL_MEM_FENCE);\n    t[l] = v;\n    v += t[l ^ 1];",
        "    v = t[(l + 1) % 16];\n    t[l] = v;",
        # a uniform write after reads of the same element
        "    v = a[7];\n    a[7] = 3.0f;",
        # many reads of one buffer in a loop, then a write over them
        "    for (int j = 0; j < 40; j++)\n        v += b[(i + j) % n];\n    barrier(CLK_GLOBAL_MEM_FENCE);\n"
        "    b[i] = v;\n    v += b[(i + 1) % n];",
    ],
)
def test_waiting_reads_change_nothing(body: str) -> None:
    _same(HEAD + body + TAIL)


def test_a_race_with_a_waiting_read_names_it() -> None:
    _, fault = _same(HEAD + "    v = a[i ^ 1];\n    a[i] = v;" + TAIL)
    assert fault.check == "race_global"
    assert "conflicts with a read by work-item (1, 0, 0) at line 9" in str(fault)


_INDEX = ["i", "i ^ 1", "(i + 16) % n", "l", "0", "i / 2", "n - 1 - i", "(i * 5) % n"]
_GUARD = ["", "if (l < 8) ", "if (i == 3) ", "if ((i & 1) == 0) ", "if (get_group_id(0) == 1) "]


@st.composite
def _programs(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 7))):
        kind = draw(st.sampled_from(["read", "read", "write", "atomic", "xchg", "barrier", "lread", "lwrite"]))
        guard = draw(st.sampled_from(_GUARD))
        at = draw(st.sampled_from(_INDEX))
        buf = draw(st.sampled_from(["a", "b"]))
        if kind == "read":
            lines.append(f"    {guard}v += {buf}[{at}];")
        elif kind == "write":
            value = draw(st.sampled_from(["v", "1.0f", "(float)l"]))
            lines.append(f"    {guard}{buf}[{at}] = {value};")
        elif kind == "atomic":
            lines.append(f"    {guard}atomic_add(&c[({at}) % 8], 1);")
        elif kind == "xchg":
            lines.append(f"    {guard}v += (float)c[({at}) % 8];")
        elif kind == "lread":
            lines.append(f"    {guard}v += t[({at}) % 32];")
        elif kind == "lwrite":
            lines.append(f"    {guard}t[({at}) % 32] = v;")
        else:
            fence = draw(st.sampled_from(["CLK_GLOBAL_MEM_FENCE", "CLK_LOCAL_MEM_FENCE"]))
            lines.append(f"    barrier({fence});")
    return HEAD + "\n".join(lines) + TAIL


@settings(max_examples=60, deadline=None)
@given(program=_programs(), seed=st.integers(0, 2**16))
def test_random_programs_give_the_same_runs(program: str, seed: int) -> None:
    _same(program, seed)
