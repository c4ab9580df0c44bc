"""The race check against a brute-force reference: random read/write index tables, with and without a barrier
between the two phases, on ``__global`` and ``__local`` memory. The executor keeps only the last writer and the
last reader(s) per address; the reference compares every pair of accesses."""

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
PHASES = {
    "read": "if (ridx[g] >= 0) v = MEM[ridx[g]];",
    "write": "if (widx[g] >= 0) MEM[widx[g]] = g;",
}


def kernel(space: str, order: tuple[str, str], barrier: bool) -> tuple[str, dict[str, int]]:
    """The source and the line of each phase."""
    mem = "buf" if space == "global" else "t"
    lines = [
        "__kernel void k(__global const int* ridx, __global const int* widx, __global int* buf, __global int* out) {",
        "    const int g = get_global_id(0);",
        "    __local int t[8];",
        "    if (get_local_id(0) == 0) for (int i = 0; i < 8; i++) t[i] = 0;",
        "    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
        "    int v = 0;",
    ]
    at = {}
    for i, phase in enumerate(order):
        if i == 1 and barrier:
            lines.append("    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);")
        lines.append("    " + PHASES[phase].replace("MEM", mem))
        at[phase] = len(lines)
    lines += ["    out[g] = v;", "}"]
    return "\n".join(lines), at


def reference(
    ridx: list[int], widx: list[int], wg: int, space: str, order: tuple[str, str], barrier: bool
) -> str | None:
    """The phase at which the first race is seen, or None: two different work-items, one address (in one work-group
    for local memory), at least one writing, and no barrier between them inside one work-group."""

    def ordered(a: int, b: int) -> bool:  # a barrier separates the phases of a and b
        return barrier and a // wg == b // wg

    def same_memory(a: int, b: int) -> bool:
        return space == "global" or a // wg == b // wg

    n = len(ridx)
    pairs = [(a, b) for a, b in itertools.permutations(range(n), 2) if same_memory(a, b)]
    write_write = any(widx[a] >= 0 and widx[a] == widx[b] for a, b in pairs)
    read_write = any(ridx[a] >= 0 and ridx[a] == widx[b] and not ordered(a, b) for a, b in pairs)
    if order == ("read", "write"):
        return "write" if write_write or read_write else None
    if write_write:
        return "write"
    return "read" if read_write else None


@pytest.mark.parametrize("space", ["global", "local"])
@pytest.mark.parametrize("order", [("read", "write"), ("write", "read")])
@settings(max_examples=100, deadline=None)
@given(data=st.data(), wg=st.sampled_from([1, 2, 4, 8]), groups=st.integers(1, 3), barrier=st.booleans())
def test_race_check_matches_pairwise_reference(
    data: st.DataObject, wg: int, groups: int, barrier: bool, space: str, order: tuple[str, str]
) -> None:
    n = wg * groups
    index = st.lists(st.integers(-1, SLOTS - 1), min_size=n, max_size=n)
    ridx, widx = data.draw(index, "ridx"), data.draw(index, "widx")
    src, line = kernel(space, order, barrier)
    program = compile_source(src)
    args = [np.asarray(x, np.int32).view(np.uint8) for x in (ridx, widx)]
    args += [np.zeros(SLOTS, np.int32).view(np.uint8), np.zeros(n, np.int32).view(np.uint8)]
    expected = reference(ridx, widx, wg, space, order, barrier)
    event(f"race at {expected}")
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
    ("ridx", "widx", "wg", "barrier"),
    [
        ([0, 0, 0, 0], [-1, -1, 0, 1], 2, True),  # readers of two groups in one access, then one of them writes
        ([1, 1, 1, 1], [-1, 1, -1, -1], 2, True),  # the writer's own group read too: still the other group races
        ([0, 0, 0, 0], [-1, -1, -1, 0], 4, True),  # one group: the barrier orders every reader
    ],
)
def test_race_check_cases_found_by_the_property_test(ridx: list[int], widx: list[int], wg: int, barrier: bool) -> None:
    src, line = kernel("global", ("read", "write"), barrier)
    program = compile_source(src)
    n = len(ridx)
    args = [np.asarray(x, np.int32).view(np.uint8) for x in (ridx, widx)]
    args += [np.zeros(SLOTS, np.int32).view(np.uint8), np.zeros(n, np.int32).view(np.uint8)]
    expected = reference(ridx, widx, wg, "global", ("read", "write"), barrier)
    if expected is None:
        run_kernel(program, "k", args, Geometry((n, 1, 1), (wg, 1, 1)))
        return
    with pytest.raises(KernelFault) as info:
        run_kernel(program, "k", args, Geometry((n, 1, 1), (wg, 1, 1)))
    assert (info.value.check, info.value.line) == ("race_global", line[expected])
