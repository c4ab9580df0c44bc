"""The race check against a brute-force reference: kernels of two to four read or write phases with random
barriers between them and random address tables, on ``__global`` and ``__local`` memory. The executor keeps only
the last writer and the last reader(s) per address; the reference compares every pair of accesses."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import wia_hal as wia
from wia_sim.kernels import compile_source, races
from wia_sim.kernels.executor import KernelFault, RunResult, UnsupportedKernel, run_kernel
from wia_sim.kernels.lanes import Geometry

SLOTS = 8


_PROLOGUE = [
    "__kernel void k(__global const int* idx, __global int* buf, __global int* out, const int n) {",
    "    const int g = get_global_id(0);",
    "    __local int t[8];",
    "    if (get_local_id(0) == 0) for (int i = 0; i < 8; i++) t[i] = 0;",
    "    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
    "    int v = 0;",
]


def phased_kernel(phases: list[tuple[str, str]]) -> tuple[str, list[int]]:
    """A kernel running ``phases`` in order: (a statement before the phase, "" for none; the phase's access, with
    ``SLOT`` for its address, index table row p). The source and each phase's line."""
    lines = list(_PROLOGUE)
    at = []
    for p, (before, access) in enumerate(phases):
        if before:
            lines.append(f"    {before}")
        slot = f"idx[{p} * n + g]"
        lines.append(f"    if ({slot} >= 0) {access.replace('SLOT', slot)}")
        at.append(len(lines))
    lines += ["    out[g] = v;", "}"]
    return "\n".join(lines), at


def multi_phase_kernel(space: str, phases: list[tuple[str, bool]]) -> tuple[str, list[int]]:
    """A kernel running ``phases`` in order: (kind, barrier before it); phase p uses index table row p. The source
    and each phase's line."""
    mem = "buf" if space == "global" else "t"
    access = {"read": f"v += {mem}[SLOT];", "write": f"{mem}[SLOT] = g;"}
    barrier = "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"
    return phased_kernel([(barrier if before else "", access[kind]) for kind, before in phases])


def multi_phase_reference(table: list[list[int]], phases: list[tuple[str, bool]], wg: int, space: str) -> int | None:
    """The phase whose statement first sees a race, or None: ``fenced_reference`` with a barrier on both address
    spaces where a phase has one (accesses race when the work-items differ, share the memory, one writes, and no
    barrier lies between their phases inside one work-group; the race shows at the later phase)."""
    return fenced_reference(table, [(kind, "both" if barrier else "none") for kind, barrier in phases], wg, space)


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


# -- atomics beside plain accesses, and fences that order one address space only (issue 16) ------------------------

FENCES = {
    "none": "",
    "local": "barrier(CLK_LOCAL_MEM_FENCE);",
    "global": "barrier(CLK_GLOBAL_MEM_FENCE);",
    "both": "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
    "mem_fence": "mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",  # orders nothing between work-items
}


def fenced_kernel(space: str, phases: list[tuple[str, str]]) -> tuple[str, list[int]]:
    """Like ``multi_phase_kernel``, with atomic updates (``atomic_add``) as a third kind of access and one of
    ``FENCES`` before each phase. Plain writes store ``1000 + g``: no two work-items store the same value."""
    mem = "buf" if space == "global" else "t"
    access = {
        "read": f"v += {mem}[SLOT];",
        "write": f"{mem}[SLOT] = 1000 + g;",
        "atomic": f"v += atomic_add(&{mem}[SLOT], 1);",
    }
    return phased_kernel([(FENCES[fence], access[kind]) for kind, fence in phases])


def fenced_reference(table: list[list[int]], phases: list[tuple[str, str]], wg: int, space: str) -> int | None:
    """The phase whose statement first sees a race, or None. Two accesses to one address by different
    work-items race unless both only read, both are atomic, or they are in one work-group with a barrier between
    them whose flags name the address space (``both``, or ``local``/``global`` matching ``space``)."""
    orders = {"both", space}
    accesses = [(item, p, addr) for p, row in enumerate(table) for item, addr in enumerate(row) if addr >= 0]
    first: int | None = None
    for (a, pa, xa), (b, pb, xb) in itertools.combinations(accesses, 2):
        ka, kb = phases[pa][0], phases[pb][0]
        if a == b or xa != xb or ka == kb == "read" or ka == kb == "atomic":
            continue
        same_group = a // wg == b // wg
        if space == "local" and not same_group:
            continue
        lo, hi = min(pa, pb), max(pa, pb)
        if same_group and any(fence in orders for _, fence in phases[lo + 1 : hi + 1]):
            continue
        first = hi if first is None else min(first, hi)
    return first


@pytest.mark.parametrize("space", ["global", "local"])
@settings(max_examples=200, deadline=None)
@given(
    data=st.data(),
    wg=st.sampled_from([1, 2, 4, 8]),
    groups=st.integers(1, 3),
    phases=st.lists(
        st.tuples(st.sampled_from(["read", "write", "atomic"]), st.sampled_from(list(FENCES))), min_size=2, max_size=4
    ),
)
def test_race_check_with_atomics_and_fences_matches_pairwise_reference(
    data: st.DataObject, wg: int, groups: int, phases: list[tuple[str, str]], space: str
) -> None:
    n = wg * groups
    row = st.lists(st.integers(-1, SLOTS - 1), min_size=n, max_size=n)
    table = [data.draw(row, f"phase {p} addresses") for p in range(len(phases))]
    src, line = fenced_kernel(space, phases)
    program = compile_source(src)
    args: list[object] = [np.asarray(table, np.int32).reshape(-1).view(np.uint8)]
    args += [np.zeros(SLOTS, np.int32).view(np.uint8), np.zeros(n, np.int32).view(np.uint8), n]
    expected = fenced_reference(table, phases, wg, space)
    event(f"race in phase {expected}")
    if expected is None:
        result = run_kernel(program, "k", args, Geometry((n, 1, 1), (wg, 1, 1)), strict=True)
        assert not result.findings
        return
    with pytest.raises(KernelFault) as info:
        run_kernel(program, "k", args, Geometry((n, 1, 1), (wg, 1, 1)), strict=True)
    assert (info.value.check, info.value.line) == (f"race_{space}", line[expected]), str(info.value)


def run_src(src: str, arrays: list[np.ndarray], n: int, wg: int, strict: bool = False) -> RunResult:
    args: list[object] = [a.view(np.uint8) for a in arrays]
    return run_kernel(compile_source(src), "k", args, Geometry((n, 1, 1), (wg, 1, 1)), strict=strict)


def fault(src: str, arrays: list[np.ndarray], n: int, wg: int, strict: bool = False) -> KernelFault:
    with pytest.raises(KernelFault) as info:
        run_src(src, arrays, n, wg, strict)
    return info.value


@pytest.mark.parametrize(
    ("second", "kinds"),
    [
        ("r[i] = c[0];", "read of __global buffer (argument 'c') at offset 0 conflicts with an atomic update"),
        ("c[0] = i;", "write of __global buffer (argument 'c') at offset 0 conflicts with an atomic update"),
    ],
)
def test_a_plain_access_after_other_work_items_atomics_is_a_race(second: str, kinds: str) -> None:
    src = f"""__kernel void k(__global int* c, __global int* r) {{
        const int i = get_global_id(0);
        atomic_inc(&c[0]);
        {second}
    }}"""
    f = fault(src, [np.zeros(2, np.int32), np.zeros(8, np.int32)], 8, 4)
    assert (f.check, f.line, f.address, f.work_items, f.groups) == ("race_global", 4, 0, 8, 2)
    assert kinds in str(f) and "no barrier(CLK_GLOBAL_MEM_FENCE)" in str(f)


def test_an_atomic_after_other_work_items_plain_read_is_a_race_and_atomics_never_race() -> None:
    src = """__kernel void k(__global int* c, __global int* r) {
        const int i = get_global_id(0);
        r[i] = c[i % 2];
        atomic_add(&c[0], 1);
    }"""
    f = fault(src, [np.zeros(2, np.int32), np.zeros(8, np.int32)], 8, 8)
    assert (f.check, f.line, f.address) == ("race_global", 4, 0)
    assert "atomic update of __global buffer (argument 'c') at offset 0 conflicts with a read" in str(f)
    # one work-item's own plain and atomic accesses never race, nor do atomics of many work-items
    src = """__kernel void k(__global int* c, __global int* r) {
        const int i = get_global_id(0);
        r[i] = c[1 + i];
        atomic_add(&c[1 + i], 1);
        atomic_add(&c[0], r[i]);
        atomic_max(&c[0], 0);
    }"""
    c = np.arange(9, dtype=np.int32)
    assert not run_src(src, [c, np.zeros(8, np.int32)], 8, 4, strict=True).findings
    assert c.tolist() == [36, *range(2, 10)]


def test_atomics_and_plain_accesses_in_other_barrier_intervals_do_not_race() -> None:
    src = """__kernel void k(__global int* c, __global int* out) {
        __local int count;
        const int l = get_local_id(0);
        if (l == 0) count = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        atomic_inc(&count);
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = count;
    }"""
    out = np.zeros(8, np.int32)
    run_src(src, [np.zeros(1, np.int32), out], 8, 4, strict=True)
    assert out.tolist() == [4] * 8
    f = fault(
        src.replace("atomic_inc(&count);\n        barrier(CLK_LOCAL_MEM_FENCE);", "atomic_inc(&count);"),
        [np.zeros(1, np.int32), out],
        8,
        4,
    )
    assert (f.check, f.line, f.work_items, f.groups) == ("race_local", 7, 8, 2)
    assert "read of __local variable 'count' at offset 0 conflicts with an atomic update" in str(f)


NEIGHBOUR_GLOBAL = """__kernel void k(__global int* b, __global int* out) {
    const int i = get_global_id(0);
    b[i] = i;
    FENCE;
    out[i] = b[i ^ 1];
}"""
NEIGHBOUR_LOCAL = """__kernel void k(__global int* b, __global int* out) {
    __local int t[4];
    const int l = get_local_id(0);
    t[l] = l;
    FENCE;
    out[get_global_id(0)] = t[l ^ 1];
}"""


@pytest.mark.parametrize(
    ("space", "fence", "races"),
    [
        ("global", "barrier(CLK_GLOBAL_MEM_FENCE)", False),
        ("global", "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)", False),
        ("global", "barrier(CLK_LOCAL_MEM_FENCE)", True),  # orders only __local memory
        ("global", "barrier(0)", True),
        ("global", "mem_fence(CLK_GLOBAL_MEM_FENCE)", True),  # a fence orders one work-item's own accesses
        ("global", "write_mem_fence(CLK_GLOBAL_MEM_FENCE); read_mem_fence(CLK_GLOBAL_MEM_FENCE)", True),
        ("local", "barrier(CLK_LOCAL_MEM_FENCE)", False),
        ("local", "barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE)", False),
        ("local", "barrier(CLK_GLOBAL_MEM_FENCE)", True),  # orders only __global memory
        ("local", "mem_fence(CLK_LOCAL_MEM_FENCE)", True),
        ("local", "read_mem_fence(CLK_LOCAL_MEM_FENCE); write_mem_fence(CLK_LOCAL_MEM_FENCE)", True),
    ],
)
def test_a_barrier_orders_only_the_memory_its_flags_name(space: str, fence: str, races: bool) -> None:
    src = (NEIGHBOUR_GLOBAL if space == "global" else NEIGHBOUR_LOCAL).replace("FENCE;", fence + ";")
    out = np.zeros(8, np.int32)
    if not races:
        run_src(src, [np.zeros(8, np.int32), out], 8, 4, strict=True)
        assert out.tolist() == ([1, 0, 3, 2, 5, 4, 7, 6] if space == "global" else [1, 0, 3, 2] * 2)
        return
    f = fault(src, [np.zeros(8, np.int32), out], 8, 4)
    assert (f.check, f.line, f.work_items, f.groups) == (f"race_{space}", 5 if space == "global" else 6, 8, 2)
    assert f"with no barrier(CLK_{space.upper()}_MEM_FENCE) in between" in str(f)


@pytest.mark.parametrize(("reader", "ordered_by"), [(3, "with no barrier(CLK_GLOBAL_MEM_FENCE) in between"), (4, "")])
def test_a_race_across_work_groups_says_no_barrier_orders_them(reader: int, ordered_by: str) -> None:
    """Work-item 1 writes what work-item 3 (its group) or 4 (the next group) reads after a local-only barrier: the
    message names the missing barrier only where one would order the two (found by a Rodinia sweep: particlefilter's
    normalize_weights_kernel reads weights other work-groups write)."""
    src = f"""__kernel void k(__global int* a, __global int* out) {{
        const int i = get_global_id(0);
        if (i == 1) a[0] = 5;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i == {reader}) out[0] = a[0];
    }}"""
    f = fault(src, [np.zeros(8, np.int32), np.zeros(8, np.int32)], 8, 4)
    assert (f.check, f.work_item, f.address) == ("race_global", (reader, 0, 0), 0)
    assert "a write by work-item (1, 0, 0)" in str(f)
    other_group = "of another work-group (no barrier orders the work-items of different work-groups)"
    assert (ordered_by or other_group) in str(f) and (other_group in str(f)) == (not ordered_by)


def test_barrier_flags_from_a_variable_and_flags_that_differ() -> None:
    src = NEIGHBOUR_GLOBAL.replace("FENCE;", "barrier(flags);").replace(
        "__global int* out)", "__global int* out, uint flags)"
    )
    program = compile_source(src)
    geometry = Geometry((8, 1, 1), (4, 1, 1))
    out = np.zeros(8, np.int32)
    run_kernel(program, "k", [np.zeros(8, np.int32).view(np.uint8), out.view(np.uint8), np.uint32(2)], geometry)
    with pytest.raises(KernelFault, match="race"):
        run_kernel(program, "k", [np.zeros(8, np.int32).view(np.uint8), out.view(np.uint8), np.uint32(1)], geometry)
    differs = NEIGHBOUR_GLOBAL.replace("FENCE;", "barrier(i % 2 ? CLK_GLOBAL_MEM_FENCE : CLK_LOCAL_MEM_FENCE);")
    with pytest.raises(UnsupportedKernel, match="barrier flags that differ"):
        run_src(differs, [np.zeros(8, np.int32), out], 8, 4)


# -- uniform writes ---------------------------------------------------------------------------------------------------


def test_a_uniform_write_is_a_finding_that_does_not_stop_the_kernel() -> None:
    src = """__kernel void k(__global int* flag, __global int* out) {
        const int i = get_global_id(0);
        out[i] = i;
        flag[1] = 7;
        out[i] += 1;
    }"""
    flag, out = np.zeros(2, np.int32), np.zeros(8, np.int32)
    result = run_src(src, [flag, out], 8, 4)
    assert flag.tolist() == [0, 7] and out.tolist() == list(range(1, 9))  # it ran to the end
    (finding,) = result.findings
    assert (finding.check, finding.line, finding.address, finding.work_items, finding.groups) == (
        "uniform_write",
        4,
        4,
        8,
        2,
    )
    assert finding.kernel == "k" and finding.work_item is not None and finding.group is not None
    assert str(finding).startswith("kernel.cl:4: uniform write: write of __global buffer (argument 'flag') at offset 4")
    assert finding.wia_code == "INVALID_KERNEL"
    flag[:] = 0
    f = fault(src, [flag, out], 8, 4, strict=True)
    assert (f.check, f.line) == ("uniform_write", 4)
    assert flag.tolist() == [0, 0]  # strict: it stopped before the store


@pytest.mark.parametrize(
    ("body", "outcome"),
    [
        ("f[0] = 1; f[0] = 1;", "uniform"),  # one finding per line, in any number of accesses
        ("if (i == 5) f[0] = 3; if (i == 2) f[0] = 3;", "uniform"),  # two accesses, two groups
        ("f[i / 2] = i / 2;", "uniform"),  # pairs of work-items
        ("vstore2((int2)(4, 5), 0, f);", "uniform"),  # vector stores, component by component
        ("if (i == 5) f[0] = 3; if (i == 2) f[0] = 4;", "race"),
        ("f[0] = i;", "race"),
        ("f[0] = i > 3;", "race"),  # some of the values differ: a race
        ("f[0] = 1; barrier(CLK_GLOBAL_MEM_FENCE); out[i] = f[0];", "race"),  # readers still race with it
        ("f[0] = 1; out[i] = f[0];", "race"),
        ("f[i % 4] = 2; barrier(CLK_GLOBAL_MEM_FENCE); if (i < 4) f[i] = 3;", "race"),  # group 1 wrote 2 there
        ("if (i < 4) f[0] = 1; barrier(CLK_GLOBAL_MEM_FENCE); if (i < 4) f[0] = 1;", "uniform"),
        ("if (i < 4) f[i] = 1; barrier(CLK_GLOBAL_MEM_FENCE); if (i < 4) f[3 - i] = 1;", "clean"),
        ("if (i < 2) f[0] = as_int(-0.0f); if (i == 2) f[0] = as_int(0.0f);", "race"),  # bits, not values
        # several writers of the same bits stay on record: another value from any of them races with the others
        ("f[0] = 0; if (i == 7) f[0] = 1;", "race"),  # 7: the last of the uniform writers
        ("if (i == 0) f[0] = 2; if (i == 1) f[0] = 2; if (i == 1) f[0] = 5;", "race"),
        ("if (i < 4) f[0] = 7; barrier(CLK_GLOBAL_MEM_FENCE); if (i == 0) f[0] = 5;", "uniform"),  # one group
        ("f[0] = 7; barrier(CLK_GLOBAL_MEM_FENCE); if (i == 0) f[0] = 5;", "race"),  # group 1 is not ordered
        ("if (i == 1 || i == 5) f[0] = 7; barrier(CLK_GLOBAL_MEM_FENCE); if (i == 0) f[0] = 5;", "race"),
    ],
)
def test_uniform_writes_and_races(body: str, outcome: str) -> None:
    src = f"""__kernel void k(__global int* f, __global int* out) {{
        const int i = get_global_id(0);
        {body}
    }}"""
    assert_outcome(src, [np.zeros(8, np.int32), np.zeros(8, np.int32)], outcome)


def assert_outcome(src: str, arrays: list[np.ndarray], outcome: str) -> None:
    """``src`` on 8 work-items in groups of 4 stops on a ``race_global``, or notes a uniform write, or runs clean."""
    if outcome == "race":
        assert fault(src, arrays, 8, 4).check == "race_global"
        return
    findings = run_src(src, arrays, 8, 4).findings
    assert [f.check for f in findings] == (["uniform_write"] if outcome == "uniform" else [])


@pytest.mark.parametrize(
    ("body", "race"),
    [
        ("s = 0; if (l == 3) s = 1;", True),  # SHOC's pattern: the order decides between 0 and 1
        ("s = 0; if (l == 1) s = 1;", True),
        ("s = 0; barrier(CLK_LOCAL_MEM_FENCE); if (l == 3) s = 1;", False),
        ("s = 3; if (l == 0) s = 3;", False),  # the same bits again: uniform
    ],
)
def test_a_store_over_a_uniform_write_of_local_memory(body: str, race: bool) -> None:
    """Every work-item stores 0, then one stores 1 with no barrier between: whether the others' 0 lands before or
    after it decides the value, a race (Oclgrind: "Write-write data race"); the simulator kept only the last of the
    uniform writers on record and missed it when that one stored the 1 (found by a SHOC/NVIDIA SDK sweep)."""
    src = f"""__kernel void k(__global int* out) {{
        __local int s;
        const int l = get_local_id(0);
        {body}
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = s;
    }}"""
    if race:
        f = fault(src, [np.zeros(8, np.int32)], 8, 4)
        assert (f.check, f.line) == ("race_local", 4)
        return
    assert [f.check for f in run_src(src, [np.zeros(8, np.int32)], 8, 4).findings] == ["uniform_write"]


def test_a_uniform_write_to_local_memory() -> None:
    src = """__kernel void k(__global int* out) {
        __local int flag;
        flag = 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = flag;
    }"""
    out = np.zeros(8, np.int32)
    (finding,) = run_src(src, [out], 8, 4).findings
    assert (finding.check, finding.line, finding.work_items, finding.groups) == ("uniform_write", 3, 8, 2)
    assert "__local variable 'flag'" in str(finding) and out.tolist() == [1] * 8


# -- through the HAL ----------------------------------------------------------------------------------------------

UNIFORM = """__kernel void k(__global const float* x, __global int* found, __global float* y) {
    const int i = get_global_id(0);
    y[i] = 2.0f * x[i];
    if (x[i] < 0.0f) found[0] = 1;
}"""


def _launch_uniform(**options: object) -> tuple[wia.Kernel, np.ndarray, np.ndarray]:
    wia.set_backend("sim", hardware="wia-tiny", **options)
    ctx = wia.create_context()
    x = np.linspace(-1.0, 1.0, 64, dtype=np.float32)
    tx, found, ty = wia.tensor(x, ctx=ctx), wia.zeros(1, dtype=np.int32, ctx=ctx), wia.zeros(64, ctx=ctx)
    kernel = wia.compile_kernel(ctx, UNIFORM, "k")
    try:
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=64, local_size=16), tx, found, ty)
        return kernel, found.numpy(), ty.numpy()
    finally:
        ctx.destroy()


def test_the_sim_backend_warns_of_a_uniform_write_and_keeps_it_on_the_launch_record() -> None:
    with pytest.warns(wia.KernelFindingWarning, match=r"kernel\.cl:4: uniform write: write of __global buffer") as w:
        kernel, found, y = _launch_uniform()
    assert w[0].filename == __file__  # at the user's call
    assert found.tolist() == [1]  # the kernel ran to the end and its writes landed
    np.testing.assert_array_equal(y, 2.0 * np.linspace(-1.0, 1.0, 64, dtype=np.float32))
    (finding,) = kernel.last_launch.findings  # type: ignore[attr-defined]
    assert (finding.check, finding.line, finding.address, finding.work_items) == ("uniform_write", 4, 0, 32)


def test_strict_kernel_checks_make_a_uniform_write_an_error() -> None:
    with pytest.raises(wia.InvalidKernelError, match=r"kernel\.cl:4: uniform write") as info:
        _launch_uniform(kernel_checks="strict")
    assert getattr(info.value.cause, "check", None) == "uniform_write"
    with warnings.catch_warnings():
        warnings.simplefilter("error", wia.KernelFindingWarning)  # -W error: the finding's error, not INTERNAL
        with pytest.raises(wia.InvalidKernelError, match="uniform write"):
            _launch_uniform()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _launch_uniform(kernel_checks=False)  # no checks, no finding
    with pytest.raises(wia.InvalidValueError, match=r"kernel_checks='loose': expected true/false \(1/0\) or strict"):
        wia.set_backend("sim", kernel_checks="loose")


# -- accesses of different widths to one memory (pointer casts) --------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "outcome"),
    [
        ("f[0] = (int4)(1, 2, 3, 4);", "uniform"),  # one record per vector, its 16 bytes compared
        ("f[i / 2] = (int4)(i / 2);", "uniform"),
        ("f[0] = (int4)(1, 2, 3, i > 3);", "race"),  # one component differs
        ("if (i == 1) f[0] = (int4)(7); if (i == 2) ((__global int*)f)[2] = 7;", "uniform"),  # a component alone
        ("if (i == 1) f[0] = (int4)(7); if (i == 2) ((__global int*)f)[2] = 8;", "race"),
        ("if (i < 4) ((__global int*)f)[i] = i;", "clean"),  # the components of one vector, one each
        ("if (i < 4) ((__global int*)f)[i] = i; if (i == 5) f[0].y = 9;", "race"),
        ("if (i < 4) f[i].w = i; if (i == 5) f[i].x = 2;", "clean"),
        ("if (i < 2) f[i] = (int4)(i); barrier(CLK_GLOBAL_MEM_FENCE); if (i < 2) f[1 - i].zw = (int2)(i);", "clean"),
        ("if (i == 0) f[0] = (int4)(1); if (i == 3) vstore2((int2)(5), 1, (__global int*)f);", "race"),
    ],
)
def test_races_and_uniform_writes_on_memory_of_vectors(body: str, outcome: str) -> None:
    """Memory declared as ``int4`` is on record vector by vector: a store of another work-item's same vector is a
    uniform write only if all 16 bytes match, and stores of its components alone (a cast pointer, a swizzle,
    ``vstore2``) race only where their bytes meet."""
    src = f"""__kernel void k(__global int4* f) {{
        const int i = get_global_id(0);
        {body}
    }}"""
    assert_outcome(src, [np.zeros(8 * 4, np.int32)], outcome)


@pytest.mark.parametrize(
    ("write", "race"),
    [
        ("((__global float*)f)[4 * i + 7] = 1.0f;", False),  # the next vector's w: its float3 read leaves it
        ("((__global float*)f)[4 * i + 6] = 1.0f;", True),  # its z: read by the next work-item
    ],
)
def test_a_float3_read_of_float4_memory_leaves_the_fourth_component_to_others(write: str, race: bool) -> None:
    """A launch large enough for the strided fast path (``affine.MIN_LANES``): a ``float3`` read of memory declared
    ``float4`` touches 12 of its 16 bytes, so another work-item's store to the w it skips is no race."""
    n = 4096
    src = f"""__kernel void k(__global float4* f, __global float* out) {{
        const int i = get_global_id(0);
        const float3 v = ((__global float3*)f)[i];
        out[i] = v.x + v.y + v.z;
        if (i < {n} - 1) {write}
    }}"""
    arrays = [np.random.default_rng(5).random(4 * n, np.float32), np.zeros(n, np.float32)]
    if race:
        assert fault(src, arrays, n, 64).check == "race_global"
    else:
        assert run_src(src, arrays, n, 64, strict=True).findings == []


_WIDTHS = {"uchar": 1, "ushort": 2, "uint": 4, "uchar4": 4, "ushort2": 4, "uint2": 8, "ushort4": 8, "uint4": 16}
"""Element types by size in bytes: the race tracker keeps one record per scalar, or per vector where memory is
declared as vectors, and refines them when narrower accesses come."""
BYTES = 32


def cast_kernel(space: str, base: str, phases: list[tuple[str, str, bool]]) -> tuple[str, list[int]]:
    """A kernel whose phase p (kind, element type, barrier before it) reads or writes element ``idx[p * n + g]``
    of ``BYTES`` bytes of memory declared of type ``base``, seen through a pointer to the phase's element type.
    Every store's value is distinct and not zero (a conflict is never a uniform write of equal bits). The source
    and each phase's line."""
    mem = "buf" if space == "global" else "t"
    count = BYTES // _WIDTHS[base]
    lines = [
        f"__kernel void k(__global const int* idx, __global {base}* buf, __global uint* out, const int n) {{",
        "    const int g = get_global_id(0);",
        f"    __local {base} t[{count}];",
        f"    if (get_local_id(0) == 0) for (int i = 0; i < {count}; i++) t[i] = 0;",
        "    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
        "    uint v = 0;",
    ]
    at = []
    for p, (kind, type_name, barrier) in enumerate(phases):
        if barrier:
            lines.append("    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);")
        space_q = "__global" if space == "global" else "__local"
        element = f"(({space_q} {type_name}*){mem})[idx[{p} * n + g]]"
        read = f"v += {element};" if type_name[-1].isalpha() else f"{{ {type_name} e = {element}; v += e.s0; }}"
        access = read if kind == "read" else f"{element} = ({type_name})(g * 8 + {p} + 1);"
        lines.append(f"    if (idx[{p} * n + g] >= 0) {access}")
        at.append(len(lines))
    lines += ["    out[g] = v;", "}"]
    return "\n".join(lines), at


def bytes_reference(table: list[list[int]], phases: list[tuple[str, str, bool]], wg: int) -> int | None:
    """The first phase whose accesses conflict with an earlier one's or with each other's: two work-items, bytes
    in common, one of them writes, no barrier of their (common) work-group between."""
    n = len(table[0])
    for p2, (kind2, type2, _) in enumerate(phases):
        for p1 in range(p2 + 1):
            kind1, type1, _ = phases[p1]
            if "write" not in (kind1, kind2):
                continue
            fenced = any(barrier for _, _, barrier in phases[p1 + 1 : p2 + 1])
            for g1, g2 in itertools.product(range(n), range(n)):
                e1, e2 = table[p1][g1], table[p2][g2]
                if g1 == g2 or e1 < 0 or e2 < 0 or (fenced and g1 // wg == g2 // wg):
                    continue
                w1, w2 = _WIDTHS[type1], _WIDTHS[type2]
                if e1 * w1 < (e2 + 1) * w2 and e2 * w2 < (e1 + 1) * w1:
                    return p2
    return None


@pytest.mark.parametrize("space", ["global", "local"])
@settings(max_examples=120, deadline=None)
@given(
    data=st.data(),
    wg=st.sampled_from([1, 2, 4]),
    groups=st.integers(1, 3),
    base=st.sampled_from(sorted(_WIDTHS)),
    phases=st.lists(
        st.tuples(st.sampled_from(["read", "write"]), st.sampled_from(sorted(_WIDTHS)), st.booleans()),
        min_size=2,
        max_size=4,
    ),
)
def test_race_check_of_accesses_of_different_widths_matches_a_byte_reference(
    data: st.DataObject, wg: int, groups: int, base: str, phases: list[tuple[str, str, bool]], space: str
) -> None:
    """Bytes of one memory, declared of scalars or vectors of 1 to 16 bytes, written and read as such by different
    work-items: a race exactly where two accesses share a byte (a uchar store beside another work-item's uchar
    store in one uint is none; a uint read or store over another's uchar store is one, and so is a uint store
    into another's uint4), whatever width touched the memory first and whatever its declared type."""
    if space == "local" and groups > 1:
        groups = 1  # (__local memory is per group: the reference's bytes are one group's)
    n = wg * groups
    table = [
        data.draw(st.lists(st.integers(-1, BYTES // _WIDTHS[t] - 1), min_size=n, max_size=n), f"phase {p}")
        for p, (_, t, _) in enumerate(phases)
    ]
    src, line = cast_kernel(space, base, phases)
    args = [np.asarray(table, np.int32).reshape(-1).view(np.uint8)]
    args += [np.arange(BYTES, dtype=np.uint8), np.zeros(n, np.uint32).view(np.uint8), n]
    expected = bytes_reference(table, phases, wg)
    event(f"race in phase {expected}")
    geometry = Geometry((n, 1, 1), (wg, 1, 1))
    if expected is None:
        run_kernel(compile_source(src), "k", args, geometry, strict=True)
        return
    with pytest.raises(KernelFault) as info:
        run_kernel(compile_source(src), "k", args, geometry, strict=True)
    assert info.value.check in (f"race_{space}", "uniform_write"), str(info.value)
    assert info.value.line == line[expected], str(info.value)


UNION_MEMBERS = """
typedef union { float f; uchar b[4]; } U;
typedef struct { int id; U u; } S;
__kernel void k(__global S* s)
{
    const int i = get_global_id(0);
    if (i % 2 == 0)
        s[i / 2].u.f = 1.0f;
    else
        s[i / 2].OTHER = 7;
}
"""


@pytest.mark.parametrize(("other", "race"), [("u.b[1]", True), ("u.b[0]", True), ("id", False)])
def test_members_of_a_union_of_different_sizes_race_where_their_bytes_meet(other: str, race: bool) -> None:
    """Work-item 2k stores a union's float, 2k + 1 one of its bytes (they race) or the struct's other member (no
    race): every byte the float covers is on record, not only its first."""
    program = compile_source(UNION_MEMBERS.replace("OTHER", other))
    raw = np.zeros(32 * 8, np.uint8)
    geometry = Geometry((64, 1, 1), (64, 1, 1))
    if not race:
        run_kernel(program, "k", [raw], geometry, strict=True)
        assert np.frombuffer(raw.tobytes(), np.int32)[::2].tolist() == [7] * 32
        return
    with pytest.raises(KernelFault) as info:
        run_kernel(program, "k", [raw], geometry, strict=True)
    assert (info.value.check, info.value.line, info.value.work_item) == ("race_global", 10, (1, 0, 0))
    assert "a write by work-item (0, 0, 0)" in str(info.value)


@pytest.mark.parametrize(
    ("src", "check"),
    [
        # a uint store over a uchar buffer's bytes 0-3, another work-item's store to byte 1 (found by Oclgrind)
        ("__global uchar* b) { if (i == 0) ((__global uint*)b)[0] = 1u; if (i == 1) b[1] = 7; }", "race_global"),
        ("__global float* f) { if (i == 0) ((__global ulong*)f)[0] = 1ul; if (i == 1) f[1] = 2.0f; }", "race_global"),
        ("__global S* s) { if (i == 0) s[0].b = 1; if (i == 1) ((__global short*)s)[3] = 2; }", "race_global"),
        (
            "__global uint* o) { __local uchar t[4]; if (i == 0) ((__local uint*)t)[0] = 1u; if (i == 1) t[3] = 2; "
            "barrier(CLK_LOCAL_MEM_FENCE); o[i] = t[i]; }",
            "race_local",
        ),
        # byte 0 is all the two stores share, and both store 5 there: a uniform write, not a race (Oclgrind:
        # reported only with OCLGRIND_UNIFORM_WRITES=1)
        (
            "__global uint* u) { if (i == 0) ((__global uchar*)u)[0] = 5; if (i == 1) u[0] = 0x11111105u; }",
            "uniform_write",
        ),
    ],
)
def test_an_access_wider_than_the_memorys_elements_records_every_byte(src: str, check: str) -> None:
    kernel = "typedef struct { int a; int b; } S;\n__kernel void k(" + src.replace(
        ") {", ") {\n    int i = get_global_id(0);\n   ", 1
    )
    with pytest.raises(KernelFault) as info:
        run_kernel(compile_source(kernel), "k", [np.zeros(16, np.uint8)], Geometry((2, 1, 1), (2, 1, 1)), strict=True)
    assert (info.value.check, info.value.work_item) == (check, (1, 0, 0)), str(info.value)


@settings(max_examples=200, deadline=None)
@given(
    keys=st.lists(st.integers(0, 6), min_size=1, max_size=60),
    data=st.data(),
    in_order=st.booleans(),
    void=st.booleans(),
)
def test_entries_sharing_a_granule_with_other_values_are_found_in_any_order(
    keys: list[int], data: st.DataObject, in_order: bool, void: bool
) -> None:
    """``races._mixed_by_key``: the entries whose granule another entry writes with other bits, for keys in lane
    order (runs together: compared neighbour by neighbour) and in any order (sorted first), values as integers or
    as void words (a vector's bytes, which have no order)."""
    k = np.asarray(sorted(keys) if in_order else keys, np.int64)
    values = np.asarray(data.draw(st.lists(st.integers(0, 2), min_size=k.size, max_size=k.size)), np.int64)
    v = values.astype(np.int32).view("V4") if void else values
    expected = [len({int(values[j]) for j in range(k.size) if k[j] == k[i]}) > 1 for i in range(k.size)]
    assert races._mixed_by_key(k, v).tolist() == expected


@pytest.mark.parametrize(
    ("body", "other"),
    [
        # a write kept by its coefficients (a[i], recorded in the shadow only when a[i / 2] needs it)
        ("a[i] = i;\n    a[i / 2] = 7 + i;", "a write by work-item (0, 0, 0) at line 4"),
        # a __local read waiting for a write (reads after a barrier are recorded when a write comes)
        (
            "t[l] = 0;\n    barrier(CLK_LOCAL_MEM_FENCE);\n    int x = t[(l + 1) & 63];\n    t[l] = x;",
            "a read by work-item (63, 0, 0) at line 6",
        ),
        ("atomic_add(&a[0], 1);\n    if (i == 5)\n        a[0] = 3;", "an atomic update by other work-items at line 4"),
        (
            "if (i == 9)\n        a[1] = atomic_cmpxchg(&a[0], 5, 6);\n    if (i == 2)\n        a[0] = 4;",
            "an atomic load by work-item (9, 0, 0) at line 5",
        ),
        # the writer's own read of its element on the next line (MIOpen's LRN backward, found by its probe): the
        # race is with the neighbour's read, in either order, not with the writer's own
        (
            "t[l] = l;\n    barrier(CLK_LOCAL_MEM_FENCE);\n    int x = t[(l + 1) & 63];\n    int y = t[l];\n"
            "    t[l] = x + y;",
            "a read by other work-items at line 6",
        ),
        (
            "t[l] = l;\n    barrier(CLK_LOCAL_MEM_FENCE);\n    int y = t[l];\n    int x = t[(l + 1) & 63];\n"
            "    t[l] = x + y;",
            "a read by other work-items at line 7",
        ),
        ("int x = a[(i + 1) & 63];\n    int y = a[i];\n    a[i] = x + y;", "a read by other work-items at line 4"),
        ("int y = a[i];\n    int x = a[(i + 1) & 63];\n    a[i] = x + y;", "a read by other work-items at line 5"),
        # the writer and a neighbour reading the element in one access: the neighbour's read is the race
        (
            "t[l] = l;\n    barrier(CLK_LOCAL_MEM_FENCE);\n    int x = t[l == 5 ? 6 : l];\n    t[l] = x;",
            "a read by other work-items at line 6",
        ),
        ("int x = a[i == 5 ? 6 : i];\n    a[i] = x;", "a read by other work-items at line 4"),
    ],
    ids=[
        "write",
        "local read",
        "atomic update",
        "atomic load",
        "local, own read after",
        "local, own read before",
        "global, own read after",
        "global, own read before",
        "local, own read in the same access",
        "global, own read in the same access",
    ],
)
def test_a_race_names_the_line_of_the_other_access(body: str, other: str) -> None:
    """Where the access on record was, as Oclgrind names both places: a write kept by its coefficients, a read of
    ``__local`` memory that waited for a write, an atomic, a compare-exchange that stored nothing; a read by
    another work-item than the writer, where the writer read the element too (before, after, or in the same access:
    whose record the writer's read then began)."""
    head = "__kernel void k(__global int* a) {\n    __local int t[64];\n"
    src = head + "    int i = get_global_id(0), l = get_local_id(0);\n    " + body + "\n}\n"
    with pytest.raises(KernelFault) as info:
        run_src(src, [np.zeros(64, np.int32)], 64, 64)
    assert f"conflicts with {other} with no barrier" in str(info.value)


@pytest.mark.parametrize("space", ["local", "global"])
@pytest.mark.parametrize("reads", [1, 3, races._PROBED_READS + 2])
@pytest.mark.parametrize("racing", [None, 0, -1])
def test_a_write_checks_every_read_still_waiting(space: str, reads: int, racing: int | None) -> None:
    """Reads wait unrecorded; a write that touches no granule another work-item read leaves them waiting
    (``RaceTracker._reads_clear``), one that does is the race, whichever read (``racing``: the first, the last or
    none) was another work-item's (work-items 5 and 6 swap elements), however many wait: named with that read's
    line."""
    m, i = ("t", "l") if space == "local" else ("w", "g")
    other = None if racing is None else racing % reads
    loads = [f"    v += {m}[{f'{i} == 5 ? 6 : {i} == 6 ? 5 : {i}' if k == other else i}];" for k in range(reads)]
    src = "\n".join(
        [
            "__kernel void k(__global const int* x, __global int* out, __global int* w) {",
            "    __local int t[16];",
            "    const int l = get_local_id(0), g = get_global_id(0);",
            f"    {m}[{i}] = x[g];",
            "    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
            "    int v = 0;",
            *loads,
            f"    {m}[{i}] = v;",
            "    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);",
            f"    out[g] = {m}[{i}] + {m}[{i} - l + 15 - l];",
            "}",
        ]
    )
    x = np.random.default_rng(reads).integers(-1000, 1000, 32).astype(np.int32)
    out, w = np.zeros(32, np.int32), np.zeros(32, np.int32)
    if racing is None:
        assert run_src(src, [x, out, w], 32, 16).findings == []
        v = (reads * x).reshape(2, 16)
        assert out.tolist() == (v + v[:, ::-1]).reshape(-1).tolist()
        return
    f = fault(src, [x, out, w], 32, 16)
    assert (f.check, f.line) == (f"race_{space}", 7 + reads)
    reader = "work-item (6, 0, 0)" if reads == 1 else "other work-items"  # (and the writer, of its own element)
    assert f"at offset 20 conflicts with a read by {reader} at line {7 + racing % reads} with no barrier" in str(f)


def test_a_finding_that_stops_the_kernel_leaves_the_earlier_lower_severity_ones_said() -> None:
    """A uniform write (line 4), then a race (line 5): the launch fails with the race, and the uniform write it
    noted first is still warned of at the user's call and kept on the launch record (it was dropped)."""
    src = (
        "__kernel void k(__global int* f, __global int* g) {\n"
        "    const int i = get_global_id(0);\n"
        "\n"
        "    f[0] = 7;\n"
        "    g[i / 2] = i;\n"
        "}\n"
    )
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    try:
        f, g = (wia.zeros(16, dtype=np.int32, ctx=ctx) for _ in range(2))
        kernel = wia.compile_kernel(ctx, src, "k")
        with (
            pytest.warns(wia.KernelFindingWarning, match=r"kernel\.cl:4: uniform write") as w,
            pytest.raises(wia.InvalidKernelError, match=r"kernel\.cl:5: data race"),
        ):
            wia.launch_kernel(kernel, wia.LaunchConfig(global_size=16, local_size=16), f, g)
        assert w[0].filename == __file__
        (finding,) = kernel.last_launch.findings  # type: ignore[attr-defined]
        assert (finding.check, finding.line) == ("uniform_write", 4)
        assert f.numpy().tolist() == [0] * 16  # (no write of a failed launch lands)
    finally:
        ctx.destroy()
