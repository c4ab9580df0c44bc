"""The race check against a brute-force reference: kernels of two to four read or write phases with random
barriers between them and random address tables, on ``__global`` and ``__local`` memory. The executor keeps only
the last writer and the last reader(s) per address; the reference compares every pair of accesses."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from wia_sim.kernels import compile_source
from wia_sim.kernels.executor import KernelFault, run_kernel
from wia_sim.kernels.lanes import Geometry

SLOTS = 8


def multi_phase_kernel(space: str, phases: list[tuple[str, bool]]) -> tuple[str, list[int]]:
    """A kernel running ``phases`` in order: (kind, barrier before it); phase p uses index table row p. The source
    and each phase's line."""
    mem = "buf" if space == "global" else "t"
    lines = [
        "__kernel void k(__global const int* idx, __global int* buf, __global int* out, const int n) {",
        "    const int g = get_global_id(0);",
        "    __local int t[8];",
        "    if (get_local_id(0) == 0) for (int i = 0; i < 8; i++) t[i] = 0;",
        "    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
        "    int v = 0;",
    ]
    at = []
    for p, (kind, barrier) in enumerate(phases):
        if barrier:
            lines.append("    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);")
        slot = f"idx[{p} * n + g]"
        access = f"v += {mem}[{slot}];" if kind == "read" else f"{mem}[{slot}] = g;"
        lines.append(f"    if ({slot} >= 0) {access}")
        at.append(len(lines))
    lines += ["    out[g] = v;", "}"]
    return "\n".join(lines), at


def multi_phase_reference(table: list[list[int]], phases: list[tuple[str, bool]], wg: int, space: str) -> int | None:
    """The phase whose statement first sees a race, or None. Accesses (work-item, phase, address) race when the
    work-items differ, share the memory (one work-group for local), one writes, and no barrier lies between their
    phases inside one work-group; the race shows at the later phase."""
    accesses = [(item, p, addr) for p, row in enumerate(table) for item, addr in enumerate(row) if addr >= 0]
    barrier_before = [b for _, b in phases]
    first: int | None = None
    for (a, pa, xa), (b, pb, xb) in itertools.combinations(accesses, 2):
        if a == b or xa != xb or "write" not in (phases[pa][0], phases[pb][0]):
            continue
        same_group = a // wg == b // wg
        if space == "local" and not same_group:
            continue
        lo, hi = min(pa, pb), max(pa, pb)
        if same_group and any(barrier_before[lo + 1 : hi + 1]):
            continue
        first = hi if first is None else min(first, hi)
    return first


@pytest.mark.parametrize("space", ["global", "local"])
@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    wg=st.sampled_from([1, 2, 4, 8]),
    groups=st.integers(1, 3),
    phases=st.lists(st.tuples(st.sampled_from(["read", "write"]), st.booleans()), min_size=2, max_size=4),
)
def test_race_check_matches_pairwise_reference(
    data: st.DataObject, wg: int, groups: int, phases: list[tuple[str, bool]], space: str
) -> None:
    n = wg * groups
    row = st.lists(st.integers(-1, SLOTS - 1), min_size=n, max_size=n)
    table = [data.draw(row, f"phase {p} addresses") for p in range(len(phases))]
    src, line = multi_phase_kernel(space, phases)
    program = compile_source(src)
    args = [np.asarray(table, np.int32).reshape(-1).view(np.uint8)]
    args += [np.zeros(SLOTS, np.int32).view(np.uint8), np.zeros(n, np.int32).view(np.uint8), n]
    expected = multi_phase_reference(table, phases, wg, space)
    event(f"race in phase {expected}")
    if expected is None:
        run_kernel(program, "k", args, Geometry((n, 1, 1), (wg, 1, 1)))
        return
    with pytest.raises(KernelFault) as info:
        run_kernel(program, "k", args, Geometry((n, 1, 1), (wg, 1, 1)))
    assert (info.value.check, info.value.line) == (f"race_{space}", line[expected]), str(info.value)


def test_a_barrier_only_some_work_groups_execute_orders_only_their_accesses() -> None:
    """Reads waiting to be recorded must survive a barrier that other work-groups skip (uniformly per group, so
    it is no divergence): group 0 is ordered by it, group 1 races."""
    src = """__kernel void k(__global int* out, const int ordered_groups) {
        __local int t[4];
        const int l = get_local_id(0);
        t[l] = l;
        barrier(CLK_LOCAL_MEM_FENCE);
        const int v = t[(l + 1) % 4];
        if (get_group_id(0) < ordered_groups) barrier(CLK_LOCAL_MEM_FENCE);
        t[l] = v;
        out[get_global_id(0)] = v;
    }"""
    program = compile_source(src)
    out = np.zeros(8, np.int32)
    run_kernel(program, "k", [out.view(np.uint8), 2], Geometry((8, 1, 1), (4, 1, 1)))
    assert out.tolist() == [1, 2, 3, 0] * 2
    with pytest.raises(KernelFault) as info:
        run_kernel(program, "k", [out.view(np.uint8), 1], Geometry((8, 1, 1), (4, 1, 1)))
    assert (info.value.check, info.value.line, info.value.group) == ("race_local", 8, (1, 0, 0))


@pytest.mark.parametrize(
    ("reads", "writes", "wg", "barrier"),
    [
        ([0, 0, 0, 0], [-1, -1, 0, 1], 2, True),  # readers of two groups in one access, then one of them writes
        ([1, 1, 1, 1], [-1, 1, -1, -1], 2, True),  # the writer's own group read too: still the other group races
        ([0, 0, 0, 0], [-1, -1, -1, 0], 4, True),  # one group: the barrier orders every reader
    ],
)
def test_race_check_cases_found_by_the_property_test(
    reads: list[int], writes: list[int], wg: int, barrier: bool
) -> None:
    phases = [("read", False), ("write", barrier)]
    src, line = multi_phase_kernel("global", phases)
    program = compile_source(src)
    n = len(reads)
    args = [np.asarray([reads, writes], np.int32).reshape(-1).view(np.uint8)]
    args += [np.zeros(SLOTS, np.int32).view(np.uint8), np.zeros(n, np.int32).view(np.uint8), n]
    expected = multi_phase_reference([reads, writes], phases, wg, "global")
    if expected is None:
        run_kernel(program, "k", args, Geometry((n, 1, 1), (wg, 1, 1)))
        return
    with pytest.raises(KernelFault) as info:
        run_kernel(program, "k", args, Geometry((n, 1, 1), (wg, 1, 1)))
    assert (info.value.check, info.value.line) == ("race_global", line[expected])
