"""Affine index values (``wia_sim/kernels/affine.py``) and the strided accesses they allow (``strided.py``,
``races.RaceTracker.compact``): the coefficients against the lanes' ids, and every kernel run both ways (strided
path on, and off so that each access takes the general lane-by-lane path) with the same memory, counts and
findings, down to the work-item and address of a fault."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from wia_sim.kernels import affine, compile_source
from wia_sim.kernels.affine import Affine
from wia_sim.kernels.executor import KernelFault, RunResult, run_kernel
from wia_sim.kernels.lanes import Geometry, Lanes
from wia_sim.kernels.spaces import Region


@pytest.fixture(autouse=True)
def affine_at_every_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernels here are small; launches this small normally keep their ids as arrays (``affine.MIN_LANES``)."""
    monkeypatch.setattr(affine, "MIN_LANES", 0)


@st.composite
def geometries(draw: st.DrawFn) -> Geometry:
    local = tuple(draw(st.sampled_from([1, 2, 3, 4])) for _ in range(3))
    groups = tuple(draw(st.integers(1, 3)) for _ in range(3))
    offset = tuple(draw(st.integers(0, 5)) for _ in range(3))
    return Geometry(
        tuple(g * loc for g, loc in zip(groups, local, strict=True)),  # type: ignore[arg-type]
        local,  # type: ignore[arg-type]
        offset,  # type: ignore[arg-type]
        work_dim=3,
    )


coefficient = st.integers(-40, 40)
triple = st.tuples(coefficient, coefficient, coefficient)


def _brute(a: Affine) -> np.ndarray:
    lanes = Lanes(a.geometry)
    v = np.full(lanes.total, a.base, np.int64)
    for d in range(3):
        v += a.g[d] * lanes.group_id[d] + a.l[d] * lanes.local_id[d]
    return v


@settings(max_examples=300, deadline=None)
@given(geo=geometries(), base=st.integers(-100, 100), g=triple, loc=triple, size=st.sampled_from([1, 4, 8]))
def test_coefficients_agree_with_the_lanes_ids(
    geo: Geometry, base: int, g: tuple[int, int, int], loc: tuple[int, int, int], size: int
) -> None:
    a = Affine(base, g, loc, geo)
    values = _brute(a)
    assert np.array_equal(a.values(), values)
    assert a.bounds == (int(values.min()), int(values.max()))
    if a.separated(size):
        gaps = np.diff(np.sort(values))
        assert gaps.size == 0 or int(gaps.min()) >= size
    step = a.lane_step
    event(f"lane step {'none' if step is None else 'some'}; separated {a.separated(size)}")
    if step is not None:
        assert np.array_equal(values, base + step * np.arange(values.size))


_OPS = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal}


@st.composite
def lines(draw: st.DrawFn) -> Geometry:
    """A launch whose ids vary along dimension 0 only: every multiple of the global id is affine in the lane."""
    local, groups, offset = draw(st.integers(1, 8)), draw(st.integers(1, 4)), draw(st.integers(0, 5))
    return Geometry((local * groups, 1, 1), (local, 1, 1), (offset, 0, 0))


@settings(max_examples=400, deadline=None)
@given(
    geo=st.one_of(geometries(), lines()),
    base=st.integers(-100, 100),
    g=triple,
    loc=triple,
    op=st.sampled_from(sorted(_OPS)),
    at=st.integers(0, 1000),
    near=st.integers(-1, 1),
)
def test_comparisons_from_coefficients_agree_with_the_values(
    geo: Geometry, base: int, g: tuple[int, int, int], loc: tuple[int, int, int], op: str, at: int, near: int
) -> None:
    """``lanes_where``: the lanes of ``value op c`` without the values (by arithmetic where the value rises or
    falls with the lane, else over the coordinates it varies with), against the comparison of every lane's value;
    ``c`` one lane's value or next to it."""
    a = Affine(base, g, loc, geo)
    values = _brute(a)
    c = int(values[at % values.size]) + near
    event(f"lane step {'none' if a.lane_step is None else 'some'}")
    assert np.array_equal(a.lanes_where(op, c), _OPS[op](values, c))


def test_global_ids_and_rows_are_the_lanes_own() -> None:
    geo = Geometry((8, 6, 1), (4, 2, 1), (3, 1, 0), work_dim=2)
    lanes = Lanes(geo)
    for d in range(3):
        assert np.array_equal(Affine.work_item("get_global_id", d, geo).values(), lanes.global_id[d])  # type: ignore[union-attr]
        assert np.array_equal(Affine.work_item("get_local_id", d, geo).values(), lanes.local_id[d])  # type: ignore[union-attr]
        assert np.array_equal(Affine.work_item("get_group_id", d, geo).values(), lanes.group_id[d])  # type: ignore[union-attr]
    assert np.array_equal(Affine.rows("group", 32, geo).values(), lanes.group * 32)
    assert np.array_equal(Affine.rows("lane", 16, geo).values(), lanes.ids * 16)
    assert Affine.work_item("get_global_size", 0, geo) is None


def test_small_launches_keep_their_ids_as_arrays(monkeypatch: pytest.MonkeyPatch) -> None:
    geo = Geometry((64, 1, 1), (16, 1, 1))
    monkeypatch.setattr(affine, "MIN_LANES", 65)
    assert Affine.work_item("get_global_id", 0, geo) is None
    monkeypatch.setattr(affine, "MIN_LANES", 64)
    assert Affine.work_item("get_global_id", 0, geo) is not None


# ---------------------------------------------------------------------------------------------------- both ways
@contextmanager
def general_path_only() -> Iterator[None]:
    """Every access lane by lane, as before affine offsets existed."""
    mp = pytest.MonkeyPatch()
    mp.setattr(Region, "load_strided", lambda *args: None)
    mp.setattr(Region, "store_strided", lambda *args: False)
    try:
        yield
    finally:
        mp.undo()


def _outcome(src: str, args: list[object], geo: Geometry) -> tuple[RunResult | KernelFault, list[bytes]]:
    buffers = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
    try:
        result: RunResult | KernelFault = run_kernel(compile_source(src), "k", buffers, geo)
    except KernelFault as fault:
        result = fault
    return result, [b.tobytes() for b in buffers if isinstance(b, np.ndarray)]


def _fault_fields(f: KernelFault) -> tuple[object, ...]:
    return (f.check, f.line, f.work_item, f.group, f.address, f.work_items, f.groups, f.address_range, str(f))


def assert_same_both_ways(src: str, args: list[object], geo: Geometry) -> str:
    """Run ``src`` with strided accesses and without; the same memory, counts and finding. Returns the outcome's
    name (for ``event``)."""
    fast, fast_memory = _outcome(src, args, geo)
    with general_path_only():
        slow, slow_memory = _outcome(src, args, geo)
    if isinstance(slow, KernelFault):
        assert isinstance(fast, KernelFault), f"general path: {slow}; strided path: no fault"
        assert _fault_fields(fast) == _fault_fields(slow)
        return slow.check
    assert isinstance(fast, RunResult), f"strided path: {fast}; general path: no fault"
    assert fast.counts == slow.counts
    assert [(f.check, f.line, f.work_item) for f in fast.findings] == [
        (f.check, f.line, f.work_item) for f in slow.findings
    ]
    assert fast_memory == slow_memory
    return "ok"


_MAP = st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3), st.integers(-2, 40))
_SMALL_MAP = st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 1), st.integers(0, 4))


def _index(m: tuple[int, int, int, int], ids: tuple[str, str, str]) -> str:
    return f"({m[0]} * (int){ids[0]} + {m[1]} * (int){ids[1]} + {m[2]} * (int){ids[2]} + {m[3]})"


@settings(max_examples=200, deadline=None)
@given(
    load=_MAP,
    store=_MAP,
    second=_MAP,
    local_map=_MAP,
    barrier=st.sampled_from(["", "barrier(CLK_GLOBAL_MEM_FENCE);", "barrier(CLK_LOCAL_MEM_FENCE);"]),
    guard=st.booleans(),
    wg=st.sampled_from([(1, 1), (2, 1), (4, 2), (3, 2)]),
    groups=st.sampled_from([(1, 1), (2, 1), (2, 3)]),
    seed=st.integers(0, 2**32 - 1),
)
def test_strided_and_general_paths_agree(
    load: tuple[int, int, int, int],
    store: tuple[int, int, int, int],
    second: tuple[int, int, int, int],
    local_map: tuple[int, int, int, int],
    barrier: str,
    guard: bool,
    wg: tuple[int, int],
    groups: tuple[int, int],
    seed: int,
) -> None:
    """Random affine maps for a load, a store, a second access after an optional barrier and a ``__local`` round
    trip: in and out of bounds, misaligned never (element indices), racing or not, guarded or not."""
    gid = ("get_global_id(0)", "get_global_id(1)", "get_local_id(0)")
    lid = ("get_local_id(0)", "get_local_id(1)", "get_group_id(0)")
    cond = "if (i < n) " if guard else ""
    src = f"""__kernel void k(__global const float* a, __global float* b, __global float* c, const int n) {{
    __local float t[64];
    const int i = {_index(store, gid)};
    {cond}b[i] = a[{_index(load, gid)}] * 2.0f;
    {barrier}
    t[{_index(local_map, lid)}] = a[{_index(load, lid)}];
    barrier(CLK_LOCAL_MEM_FENCE);
    c[{_index(second, gid)}] = b[i + 1] + t[{_index(local_map, lid)}];
}}"""
    geo = Geometry((wg[0] * groups[0], wg[1] * groups[1], 1), (wg[0], wg[1], 1), work_dim=2)
    rng = np.random.default_rng(seed)
    args: list[object] = [
        rng.standard_normal(48).astype(np.float32).view(np.uint8),
        rng.standard_normal(48).astype(np.float32).view(np.uint8),
        np.zeros(48, np.float32).view(np.uint8),
        int(rng.integers(0, 48)),
    ]
    event(assert_same_both_ways(src, args, geo))


@settings(max_examples=150, deadline=None)
@given(
    store=_MAP,
    load=_MAP,
    private_store=_SMALL_MAP,
    private_load=_SMALL_MAP,
    wg=st.sampled_from([(1, 1), (4, 1), (2, 2)]),
    groups=st.sampled_from([(1, 1), (3, 1), (2, 2)]),
    seed=st.integers(0, 2**32 - 1),
)
def test_vectors_and_private_arrays_agree_both_ways(
    store: tuple[int, int, int, int],
    load: tuple[int, int, int, int],
    private_store: tuple[int, int, int, int],
    private_load: tuple[int, int, int, int],
    wg: tuple[int, int],
    groups: tuple[int, int],
    seed: int,
) -> None:
    """float4 loads and stores (16 bytes per work-item, recorded per component by the race tracker) and a
    __private array (one row per work-item) at random affine indices: reads of elements the work-item did not
    write, private indices past the array, overlapping vector stores."""
    gid = ("get_global_id(0)", "get_global_id(1)", "get_local_id(0)")
    lid = ("get_local_id(0)", "get_local_id(1)", "get_group_id(0)")
    src = f"""__kernel void k(__global const float4* a, __global float4* b) {{
    float p[12];
    p[{_index(private_store, lid)}] = 2.0f;
    p[{_index(private_store, lid)} + 1] = 3.0f;
    const float4 v = a[{_index(load, gid)}];
    b[{_index(store, gid)}] = v * p[{_index(private_load, lid)}];
}}"""
    geo = Geometry((wg[0] * groups[0], wg[1] * groups[1], 1), (wg[0], wg[1], 1), work_dim=2)
    rng = np.random.default_rng(seed)
    args: list[object] = [
        rng.standard_normal(4 * 24).astype(np.float32).view(np.uint8),
        np.zeros(4 * 24, np.float32).view(np.uint8),
    ]
    event(assert_same_both_ways(src, args, geo))


@pytest.mark.parametrize(
    ("body", "check"),
    [
        ("c[g] = 1.0f; c[g + 1] = 2.0f;", "race_global"),  # one map, then another over it
        ("c[g] = b[g]; c[g] = b[g + 1] + c[g];", "ok"),  # the same map: each address stays one work-item's
        ("float v = b[g + 1]; b[g] = v;", "race_global"),  # read by one, written by its neighbour
        ("b[g] = 1.0f; barrier(CLK_GLOBAL_MEM_FENCE); c[g] = b[g ^ 1];", "ok"),  # ordered: the same group
        ("b[g] = 1.0f; barrier(CLK_GLOBAL_MEM_FENCE); c[g] = b[(g + 4) % 16];", "race_global"),  # another group
        ("c[2 * g] = 1.0f; c[2 * g + 1] = c[2 * g];", "ok"),  # interleaved, never shared
        ("c[g / 2] = (float)g;", "race_global"),  # two work-items, one address (not affine: lane by lane)
        ("c[0] = b[0];", "uniform_write"),  # every work-item stores one value to one address
    ],
)
def test_compact_race_records_meet_other_accesses(body: str, check: str) -> None:
    src = f"""__kernel void k(__global float* b, __global float* c) {{
    const int g = get_global_id(0);
    {body}
}}"""
    b = np.arange(40, dtype=np.float32)
    args: list[object] = [b.view(np.uint8), np.zeros(40, np.float32).view(np.uint8)]
    outcome = assert_same_both_ways(src, args, Geometry((16, 1, 1), (4, 1, 1)))
    if check == "uniform_write":
        result, _ = _outcome(src, args, Geometry((16, 1, 1), (4, 1, 1)))
        assert isinstance(result, RunResult) and [f.check for f in result.findings] == ["uniform_write"]
    else:
        assert outcome == check


_SIDE = st.one_of(
    st.integers(-50, 50).map(str),
    st.tuples(st.integers(-3, 3), st.integers(-20, 20)).map(lambda m: f"({m[0]} * gx + {m[1]})"),
    _MAP.map(lambda m: _index(m, ("gx", "gy", "lx"))),
)


@settings(max_examples=200, deadline=None)
@given(
    left=_SIDE,
    right=_SIDE,
    op=st.sampled_from(sorted(_OPS)),
    types=st.tuples(*[st.sampled_from(["int", "uint", "long", "ulong", "short", "uchar"])] * 2),
    wg=st.sampled_from([(4, 1), (2, 2), (8, 1)]),
    groups=st.sampled_from([(1, 1), (3, 1), (2, 2)]),
)
def test_comparisons_in_kernels_agree_with_the_lanes_ids(
    left: str,
    right: str,
    op: str,
    types: tuple[str, str],
    wg: tuple[int, int],
    groups: tuple[int, int],
) -> None:
    """``i op j`` in a kernel, of every integer type (converted as C converts, sign changes included), with the
    ids as coefficients and with the ids as arrays: the same result in every work-item."""
    src = f"""__kernel void k(__global int* out) {{
    const int gx = get_global_id(0), gy = get_global_id(1), lx = get_local_id(0);
    out[gy * get_global_size(0) + gx] = ({types[0]})({left}) {op} ({types[1]})({right});
}}"""
    geo = Geometry((wg[0] * groups[0], wg[1] * groups[1], 1), (wg[0], wg[1], 1), work_dim=2)
    results = []
    for min_lanes in (0, 1 << 30):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(affine, "MIN_LANES", min_lanes)
            out = np.full(geo.total, -7, np.int32)
            run_kernel(compile_source(src), "k", [out.view(np.uint8)], geo)
        results.append(out)
    np.testing.assert_array_equal(results[0], results[1])


def test_vector_add_takes_the_strided_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guarded 1-D vector add (the tail's offsets past the end) stores through one view, and its values are
    NumPy's."""
    src = """__kernel void k(__global const float* a, __global const float* b, __global float* c, const int n) {
    const int gid = get_global_id(0);
    if (gid < n) c[gid] = a[gid] + b[gid];
}"""
    stores: list[bool] = []
    original = Region.store_strided

    def spy(self: Region, *args: object) -> bool:
        stored = original(self, *args)  # type: ignore[arg-type]
        stores.append(stored)
        return stored

    monkeypatch.setattr(Region, "store_strided", spy)
    rng = np.random.default_rng(7)
    n = 1000
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    c = np.zeros(n, np.float32)
    run_kernel(
        compile_source(src),
        "k",
        [a.view(np.uint8), b.view(np.uint8), c.view(np.uint8), n],
        Geometry((1024, 1, 1), (64, 1, 1)),
    )
    assert stores == [True]
    np.testing.assert_array_equal(c, a + b)


@pytest.mark.parametrize("guard", ["gid < n", "gid >= 5 && gid < n", "gid != 7", "1"])
@pytest.mark.parametrize("expr", ["a[gid] + b[gid]", "a[gid] * 3.0f", "(float)(a[gid] < b[gid])", "b[gid] - x"])
@pytest.mark.parametrize("sizes", [(64, 64), (64, 40), (40, 64)])
def test_operands_viewed_over_a_span_of_lanes(guard: str, expr: str, sizes: tuple[int, int]) -> None:
    """A 1-D launch past the buffers' ends, guarded: each operand read through a view of the active lanes'
    span (or of every lane, where all are in bounds), the two mixed; the same values, counts and findings as the
    general path, and NumPy's values."""
    src = f"""__kernel void k(__global const float* a, __global const float* b, __global float* c, const int n) {{
    const int gid = get_global_id(0);
    float x = 0.5f;
    if ({guard}) c[gid] = {expr};
}}"""
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal(sizes[0]).astype(np.float32), rng.standard_normal(sizes[1]).astype(np.float32)
    n = min(sizes)
    args: list[object] = [a.view(np.uint8), b.view(np.uint8), np.zeros(n, np.float32).view(np.uint8), n]
    geo = Geometry((64, 1, 1), (16, 1, 1))
    outcome = assert_same_both_ways(src, args, geo)
    if guard not in ("gid < n", "gid >= 5 && gid < n") and n < 64:
        assert outcome == "out_of_bounds_global"
        return
    assert outcome == "ok"
    c = np.zeros(n, np.float32)
    run_kernel(compile_source(src), "k", [a.view(np.uint8), b.view(np.uint8), c.view(np.uint8), n], geo)
    gid = np.arange(n)
    held = {"gid < n": gid < n, "gid >= 5 && gid < n": gid >= 5, "gid != 7": gid != 7, "1": gid >= 0}[guard]
    x, y = a[:n], b[:n]
    want = {
        "a[gid] + b[gid]": x + y,
        "a[gid] * 3.0f": x * np.float32(3),
        "(float)(a[gid] < b[gid])": (x < y).astype(np.float32),
        "b[gid] - x": y - np.float32(0.5),
    }[expr]
    np.testing.assert_array_equal(c, np.where(held, want, np.float32(0)))


@pytest.mark.parametrize("dims", list(itertools.product([1, 3], [1, 2])))
def test_two_d_tiles_through_local_memory_both_ways(dims: tuple[int, int]) -> None:
    """A transpose through a ``__local`` tile, the matmul's pattern: local rows per group, a barrier, reads
    across the tile."""
    src = """__kernel void k(__global const float* a, __global float* out, const int w) {
    __local float tile[4][4];
    const int x = get_global_id(0), y = get_global_id(1);
    const int lx = get_local_id(0), ly = get_local_id(1);
    tile[ly][lx] = a[y * w + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int ox = get_group_id(1) * 4 + lx, oy = get_group_id(0) * 4 + ly;
    out[oy * (int)get_global_size(1) + ox] = tile[lx][ly];
}"""
    gx, gy = 4 * dims[0], 4 * dims[1]
    a = np.random.default_rng(3).standard_normal(gx * gy).astype(np.float32)
    args: list[object] = [a.view(np.uint8), np.zeros(gx * gy, np.float32).view(np.uint8), gx]
    geo = Geometry((gx, gy, 1), (4, 4, 1), work_dim=2)
    assert assert_same_both_ways(src, args, geo) == "ok"
    out = np.zeros(gx * gy, np.float32)
    run_kernel(compile_source(src), "k", [a.view(np.uint8), out.view(np.uint8), gx], geo)
    np.testing.assert_array_equal(out.reshape(gx, gy), a.reshape(gy, gx).T)


def test_operands_viewed_in_memory_see_no_later_store(monkeypatch: pytest.MonkeyPatch) -> None:
    """``a[i] * b[k]`` reads both operands through views of memory (no copies); a left operand whose right
    neighbour may store is copied first, so the store the call makes is not seen through the view (the executor
    evaluates left to right)."""
    from wia_sim.kernels import executor

    grids: list[int] = []
    original = executor._on_grid

    def spy(*args: object) -> object:
        grids.append(1)
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(executor, "_on_grid", spy)
    src = """float bump(__global float* p, int i) { p[i] = 100.0f; return 1.0f; }
__kernel void k(__global float* a, __global const float* b, __global float* c, __global float* d) {
    const int i = get_global_id(0);
    c[i] = a[i] * b[(int)get_local_id(0)];
    d[i] = a[i] + bump(a, i);
}"""
    rng = np.random.default_rng(5)
    a = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    c, d = np.zeros(64, np.float32), np.zeros(64, np.float32)
    args: list[object] = [a.view(np.uint8), b.view(np.uint8), c.view(np.uint8), d.view(np.uint8)]
    geo = Geometry((64, 1, 1), (8, 1, 1))
    assert assert_same_both_ways(src, args, geo) == "ok"
    grids.clear()
    before = a.copy()
    run_kernel(compile_source(src), "k", args, geo)
    assert grids == [1]  # the product; the sum's left operand was copied, its right one is a call
    np.testing.assert_array_equal(c, before * np.tile(b, 8))
    np.testing.assert_array_equal(d, before + np.float32(1))  # not 101: the store came after the read
    assert (a == 100).all()
