"""SPEC 3.6.2 R-3.6.2-01 (Level 3): the WIA kernel language, OpenCL C style, as a device that claims
``supports_custom_kernels`` runs it.

Each test compiles a small kernel through the public API, runs it on fresh random data
(``np.random.default_rng(<fixed seed>)``) and compares every value it wrote with a NumPy reference: address spaces,
work-item functions in 1 to 3 dimensions, barriers and ``__local`` memory, atomics, vector types, C semantics,
control flow and the math built-ins. The semantics are those of OpenCL C 1.2 (the language R-3.6.2-01 names).

Exactness: integer results must match exactly. Float inputs of the tests that are not about rounding are small
multiples of 1/8 (or 1/16), so that every product and sum the kernel forms is exact in ``float`` whatever the
order (tree reductions) or contraction (``a * b + c`` may become an fma, OpenCL C's ``FP_CONTRACT`` default):
the result must then equal the float64 reference. The math built-ins are held to the ulp bounds of OpenCL 1.2,
section 7.4, Table 7.1 (full profile), with ``ph.assert_ulp_close``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import wia_hal as wia
from conformance import assertions as ph
from conformance.strategies import exact_floats

F32 = np.dtype(np.float32)
I32 = np.dtype(np.int32)
U32 = np.dtype(np.uint32)


def run(ctx: wia.Context, source: str, name: str, config: wia.LaunchConfig, *args: Any) -> str:
    """Compile ``name``, run it once with ``args`` (blocking) and destroy it; returns the call for messages."""
    ph.requires("supports_custom_kernels")
    if config.local_dims is not None:
        ph.requires_work_group(int(np.prod(config.local_dims)))
    kernel = wia.compile_kernel(ctx, source, name)
    try:
        wia.launch_kernel(kernel, config, *args)
    finally:
        wia.destroy_kernel(kernel)
    geometry = f"global_size={config.global_dims}, local_size={config.local_dims}"
    return f"launch_kernel({name}, LaunchConfig({geometry}))"


def as_uint(t: wia.Tensor) -> npt.NDArray[np.uint32]:
    """A ``uint`` buffer the kernel wrote, held in an int32 tensor (same bits)."""
    return t.numpy().view(np.uint32)


# -- address spaces -------------------------------------------------------------------------------------------------

ADDRESS_SPACES = """
__constant float COEFF[4] = {0.5f, -1.25f, 2.0f, 3.5f};

__kernel void spaces(__global const float* x, __constant float* table, __global float* out,
                     __local float* scratch, const int table_len)
{
    __local float tile[64];
    __private float acc;
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    tile[lid] = x[gid];
    scratch[lid] = table[gid % table_len];
    barrier(CLK_LOCAL_MEM_FENCE);
    acc = tile[(lid + 1) % 64] * COEFF[lid % 4];
    acc += scratch[63 - lid];
    out[gid] = acc;
}
"""


@pytest.mark.req("R-3.6.2-01", "R-3.6.2-03")
def test_address_spaces(ctx: wia.Context) -> None:
    """``__global`` in and out, a program-scope ``__constant`` array, a ``__constant`` pointer argument, a
    ``__local`` array, a ``__local`` pointer argument (sized in bytes at launch) and a ``__private`` variable; the
    values read from ``__local`` memory are other work-items' (after the barrier)."""
    rng = np.random.default_rng(3621)
    n, wg, table_len = 512, 64, 40
    x = exact_floats(rng, n)
    table = exact_floats(rng, table_len, limit=16, step=16)
    out = wia.zeros(n, ctx=ctx)
    config = wia.LaunchConfig(global_size=n, local_size=wg)
    args = (wia.tensor(x, ctx=ctx), wia.tensor(table, ctx=ctx), out, wg * 4, table_len)
    call = run(ctx, ADDRESS_SPACES, "spaces", config, *args)
    gid = np.arange(n)
    lid = gid % wg
    base = gid - lid
    coeff = np.array([0.5, -1.25, 2.0, 3.5])
    expected = x[base + (lid + 1) % wg] * coeff[lid % 4] + table[(base + wg - 1 - lid) % table_len]
    ph.assert_array_close(out.numpy(), expected.astype(np.float32), F32, call)


# -- work-item functions --------------------------------------------------------------------------------------------

WORK_ITEMS = """
#define FIELDS 19
__kernel void work_items(__global int* out)
{
    const size_t gx = get_global_id(0), gy = get_global_id(1), gz = get_global_id(2);
    const size_t linear = (gz * get_global_size(1) + gy) * get_global_size(0) + gx;
    __global int* r = out + linear * FIELDS;
    r[0] = (int)get_work_dim();
    for (uint d = 0; d < 3; ++d) {
        r[1 + d] = (int)get_global_id(d);
        r[4 + d] = (int)get_local_id(d);
        r[7 + d] = (int)get_group_id(d);
        r[10 + d] = (int)get_local_size(d);
        r[13 + d] = (int)get_global_size(d);
        r[16 + d] = (int)get_num_groups(d);
    }
}
"""
WORK_ITEM_FIELDS = ("get_work_dim()", "get_global_id", "get_local_id", "get_group_id", "get_local_size")
GEOMETRIES: list[tuple[str, Any, Any, int]] = [
    ("1d", 96, 32, 1),
    ("2d", (16, 12), (8, 4), 2),
    ("3d", (8, 6, 4), (4, 3, 2), 3),
]


def work_item_reference(global_size: tuple[int, int, int], local: tuple[int, int, int], dims: int) -> Any:
    """The 19 values ``work_items`` writes per work-item, in its linear order (x fastest)."""
    gz, gy, gx = np.indices(global_size[::-1]).reshape(3, -1)
    gid = np.stack([gx, gy, gz])  # (3, n)
    g = np.array(global_size)[:, None]
    lsz = np.array(local)[:, None]
    n = gid.shape[1]
    fields = [
        np.full((1, n), dims),
        gid,
        gid % lsz,
        gid // lsz,
        np.broadcast_to(lsz, (3, n)),
        np.broadcast_to(g, (3, n)),
        np.broadcast_to(g // lsz, (3, n)),
    ]
    return np.concatenate(fields).T.astype(np.int32)


@pytest.mark.req("R-3.6.2-01", "R-3.6.2-04")
@pytest.mark.parametrize(
    ("global_size", "local_size", "dims"), [g[1:] for g in GEOMETRIES], ids=[g[0] for g in GEOMETRIES]
)
def test_work_item_functions(ctx: wia.Context, global_size: Any, local_size: Any, dims: int) -> None:
    """``get_work_dim``, ``get_global_id``, ``get_local_id``, ``get_group_id``, ``get_local_size``,
    ``get_global_size`` and ``get_num_groups`` for each dimension 0 to 2 (beyond the work dimension: sizes 1, ids
    0, as OpenCL 1.2 section 6.12.1 says), from every work-item of a 1-, 2- and 3-D NDRange."""
    config = wia.LaunchConfig(global_size=global_size, local_size=local_size)
    g, lsz = config.global_dims, config.local_dims
    assert lsz is not None
    n = int(np.prod(g))
    out = wia.tensor(np.full(n * 19, -1, np.int32), ctx=ctx)
    call = run(ctx, WORK_ITEMS, "work_items", config, out)
    got = out.numpy().reshape(n, 19)
    ph.assert_array_equal(got, work_item_reference(g, lsz, dims), f"{call}: one row per work-item")


# -- barriers and __local memory ------------------------------------------------------------------------------------

GROUP_SUM = """
__kernel void group_sum(__global const float* x, __global float* sums, __local float* part)
{
    const uint lid = get_local_id(0);
    part[lid] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            part[lid] += part[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[get_group_id(0)] = part[0];
}
"""


@pytest.mark.req("R-3.6.2-01", "R-3.6.2-03", "R-3.1-03")
@pytest.mark.parametrize("local_size", [16, 64])
def test_work_group_tree_reduction(ctx: wia.Context, local_size: int) -> None:
    """A tree reduction in a ``__local`` buffer whose size is given at launch (``local_size * 4`` bytes), with a
    barrier after every level; the data's sums are exact in float, so the order does not matter."""
    rng = np.random.default_rng(3622)
    n = 2048
    x = exact_floats(rng, n)
    sums = wia.tensor(np.full(n // local_size, np.nan, np.float32), ctx=ctx)
    config = wia.LaunchConfig(global_size=n, local_size=local_size)
    call = run(ctx, GROUP_SUM, "group_sum", config, wia.tensor(x, ctx=ctx), sums, local_size * 4)
    expected = x.astype(np.float64).reshape(-1, local_size).sum(axis=1)
    ph.assert_array_close(sums.numpy(), expected.astype(np.float32), F32, call)


TRANSPOSE = """
#define TILE 8
__kernel void transpose(__global const float* in, __global float* out, const int rows, const int cols)
{
    __local float tile[TILE][TILE + 1];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int col = get_group_id(0) * TILE + lx;
    const int row = get_group_id(1) * TILE + ly;
    tile[ly][lx] = in[row * cols + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    const int out_col = get_group_id(1) * TILE + lx;
    const int out_row = get_group_id(0) * TILE + ly;
    out[out_row * rows + out_col] = tile[lx][ly];
}
"""


@pytest.mark.req("R-3.6.2-01", "R-3.1-03")
def test_transpose_through_a_local_tile(ctx: wia.Context) -> None:
    """A 2-D ``__local`` tile, written row-wise and read column-wise by other work-items after a barrier."""
    rng = np.random.default_rng(3623)
    rows, cols = 48, 32
    a = rng.standard_normal((rows, cols)).astype(np.float32)
    out = wia.tensor(np.full((cols, rows), np.nan, np.float32), ctx=ctx)
    config = wia.LaunchConfig(global_size=(cols, rows), local_size=(8, 8))
    call = run(ctx, TRANSPOSE, "transpose", config, wia.tensor(a, ctx=ctx), out, rows, cols)
    ph.assert_array_equal(out.numpy(), np.ascontiguousarray(a.T), call)


GLOBAL_FENCE = """
__kernel void neighbours(__global int* buf, __global int* out)
{
    const int g = get_global_id(0), l = get_local_id(0), wg = get_local_size(0);
    buf[g] = buf[g] * 3 + 1;
    barrier(CLK_GLOBAL_MEM_FENCE);
    out[g] = buf[g - l + (l + 1) % wg];
}
"""


@pytest.mark.req("R-3.6.2-01")
def test_barrier_with_a_global_fence(ctx: wia.Context) -> None:
    """``barrier(CLK_GLOBAL_MEM_FENCE)``: ``__global`` writes of a work-group's work-items are visible to the other
    work-items of the group after it (OpenCL 1.2 section 6.12.8)."""
    rng = np.random.default_rng(3636)
    n, wg = 512, 64
    x = rng.integers(-(10**6), 10**6, n).astype(np.int32)
    buf, out = wia.tensor(x, ctx=ctx), wia.tensor(np.full(n, -559038737, np.int32), ctx=ctx)
    call = run(ctx, GLOBAL_FENCE, "neighbours", wia.LaunchConfig(global_size=n, local_size=wg), buf, out)
    updated = x * 3 + 1
    g = np.arange(n)
    ph.assert_array_equal(buf.numpy(), updated, f"{call}: buf")
    ph.assert_array_equal(out.numpy(), updated[g - g % wg + (g % wg + 1) % wg], f"{call}: out")


# -- atomics --------------------------------------------------------------------------------------------------------

HISTOGRAM = """
#define NBINS 16
__kernel void histogram(__global const int* data, __global int* bins, __global int* total,
                        __global int* counter, __global int* tickets, const int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        const int v = data[i];
        atomic_inc(&bins[v]);
        atomic_add(total, v);
        tickets[i] = atomic_add(counter, 1);
    }
}

__kernel void histogram_local(__global const int* data, __global int* bins)
{
    __local int lbins[NBINS];
    const int lid = get_local_id(0);
    if (lid < NBINS)
        lbins[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&lbins[data[get_global_id(0)]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < NBINS)
        atomic_add(&bins[lid], lbins[lid]);
}
"""


@pytest.mark.req("R-3.6.2-01")
def test_atomic_histograms(ctx: wia.Context) -> None:
    """``atomic_inc``/``atomic_add`` on ``__global`` and ``__local`` ints: exact counts, and the values
    ``atomic_add`` returns (the old ones) are each ticket 0 to n-1 exactly once."""
    rng = np.random.default_rng(3624)
    n, nbins = 1000, 16
    data = rng.integers(0, nbins, size=n, dtype=np.int32)
    bins = wia.tensor(np.full(nbins, 5, np.int32), ctx=ctx)  # atomics add to what is there
    total = wia.tensor(np.array([-3], np.int32), ctx=ctx)
    counter = wia.zeros(1, wia.int32, ctx=ctx)
    tickets = wia.tensor(np.full(n, -1, np.int32), ctx=ctx)
    config = wia.LaunchConfig(global_size=1024, local_size=64)
    call = run(ctx, HISTOGRAM, "histogram", config, wia.tensor(data, ctx=ctx), bins, total, counter, tickets, n)
    counts = np.bincount(data, minlength=nbins).astype(np.int32)
    ph.assert_array_equal(bins.numpy(), counts + 5, f"{call}: bins (atomic_inc)")
    ph.assert_array_equal(total.numpy(), np.array([data.sum() - 3], np.int32), f"{call}: total (atomic_add)")
    ph.assert_array_equal(counter.numpy(), np.array([n], np.int32), f"{call}: counter")
    ph.assert_array_equal(np.sort(tickets.numpy()), np.arange(n, dtype=np.int32), f"{call}: tickets, sorted")

    m = 2048
    data = rng.integers(0, nbins, size=m, dtype=np.int32)
    bins = wia.zeros(nbins, wia.int32, ctx=ctx)
    config = wia.LaunchConfig(global_size=m, local_size=64)
    call = run(ctx, HISTOGRAM, "histogram_local", config, wia.tensor(data, ctx=ctx), bins)
    ph.assert_array_equal(bins.numpy(), np.bincount(data, minlength=nbins).astype(np.int32), call)


ATOMICS = """
#define NSLOTS 8
__kernel void atomics(__global const int* data, __global int* extremes, __global int* group_extremes,
                      __global int* slots, __global int* seen, __global int* cell, __global int* swapped)
{
    __local int lmin, lmax;
    const int i = get_global_id(0);
    const int v = data[i];
    if (get_local_id(0) == 0) {
        lmin = 2147483647;
        lmax = -2147483647 - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_min(&lmin, v);
    atomic_max(&lmax, v);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        group_extremes[2 * get_group_id(0)] = lmin;
        group_extremes[2 * get_group_id(0) + 1] = lmax;
        atomic_min(&extremes[0], lmin);
        atomic_max(&extremes[1], lmax);
    }
    seen[i] = atomic_cmpxchg(&slots[i % NSLOTS], -1, i);
    swapped[i] = atomic_xchg(cell, i);
}
"""


@pytest.mark.req("R-3.6.2-01")
def test_atomic_min_max_cmpxchg_xchg(ctx: wia.Context) -> None:
    """``atomic_min``/``atomic_max`` on ``__local`` and ``__global`` ints, ``atomic_cmpxchg`` (exactly one
    work-item claims each slot; every other one sees the winner) and ``atomic_xchg`` (the old values handed out
    and the last value are each value exactly once)."""
    rng = np.random.default_rng(3625)
    n, wg, nslots = 512, 64, 8
    data = rng.integers(-1_000_000, 1_000_000, size=n, dtype=np.int32)
    extremes = wia.tensor(np.array([2**31 - 1, -(2**31)], np.int32), ctx=ctx)
    group_extremes = wia.zeros(2 * (n // wg), wia.int32, ctx=ctx)
    slots = wia.tensor(np.full(nslots, -1, np.int32), ctx=ctx)
    seen = wia.tensor(np.full(n, -2, np.int32), ctx=ctx)
    cell = wia.tensor(np.array([-7], np.int32), ctx=ctx)
    swapped = wia.tensor(np.full(n, -2, np.int32), ctx=ctx)
    config = wia.LaunchConfig(global_size=n, local_size=wg)
    args = (wia.tensor(data, ctx=ctx), extremes, group_extremes, slots, seen, cell, swapped)
    call = run(ctx, ATOMICS, "atomics", config, *args)
    ph.assert_array_equal(extremes.numpy(), np.array([data.min(), data.max()], np.int32), f"{call}: extremes")
    per_group = data.reshape(-1, wg)
    expected_groups = np.stack([per_group.min(axis=1), per_group.max(axis=1)], axis=1).reshape(-1)
    ph.assert_array_equal(group_extremes.numpy(), expected_groups, f"{call}: per-group __local min/max")

    winners = slots.numpy()
    ph.assert_array_equal(
        winners % nslots, np.arange(nslots, dtype=np.int32), f"{call}: slot k holds an i with i % 8 == k"
    )
    ids = np.arange(n)
    expected_seen = np.where(winners[ids % nslots] == ids, -1, winners[ids % nslots]).astype(np.int32)
    ph.assert_array_equal(seen.numpy(), expected_seen, f"{call}: atomic_cmpxchg's old values")

    handed_out = np.sort(np.concatenate([swapped.numpy(), cell.numpy()]))
    ph.assert_array_equal(handed_out, np.arange(-7, n, dtype=np.int32)[np.r_[0, 7 : n + 7]], f"{call}: atomic_xchg")


# -- vector types ---------------------------------------------------------------------------------------------------

VECTORS = """
__kernel void vectors(__global const float4* a, __global const float* b, __global float4* out4,
                      __global float* outs, __global float* scalars)
{
    const int i = get_global_id(0);
    const float4 v = a[i];
    const float4 w = vload4(i, b);
    const float4 s = v * 2.0f + w;
    float4 r = (float4)(s.hi, v.lo);
    r.xy = r.yx;
    out4[i] = r;
    const float2 p = (float2)(v.s0, w.s3);
    const float4 q = (float4)(1.5f) - v.wzyx + (float4)(p, p.y, w.x);
    vstore4(q, i, outs);
    scalars[i] = s.s2 - v.w + w.even.y * w.odd.x;
}
"""


@pytest.mark.req("R-3.6.2-01")
def test_vector_types(ctx: wia.Context) -> None:
    """``float4`` loads and stores through ``float4*``, ``vload4``/``vstore4``, scalar widening, constructors from
    scalars and smaller vectors, swizzles (``.xy``, ``.wzyx``, ``.s0``, ``.s3``, ``.hi``, ``.lo``, ``.even``,
    ``.odd``) read and written."""
    rng = np.random.default_rng(3626)
    n = 256
    a, b = exact_floats(rng, (n, 4)), exact_floats(rng, (n, 4))
    out4 = wia.tensor(np.full((n, 4), np.nan, np.float32), ctx=ctx)
    outs = wia.tensor(np.full(n * 4, np.nan, np.float32), ctx=ctx)
    scalars = wia.tensor(np.full(n, np.nan, np.float32), ctx=ctx)
    config = wia.LaunchConfig(global_size=n, local_size=64)
    args = (wia.tensor(a, ctx=ctx), wia.tensor(b.reshape(-1), ctx=ctx), out4, outs, scalars)
    call = run(ctx, VECTORS, "vectors", config, *args)
    v, w = a.astype(np.float64), b.astype(np.float64)
    s = v * 2 + w
    r = np.stack([s[:, 3], s[:, 2], v[:, 0], v[:, 1]], axis=1)
    ph.assert_array_close(out4.numpy(), r.astype(np.float32), F32, f"{call}: out4 (swizzles, constructor)")
    q = 1.5 - v[:, ::-1] + np.stack([v[:, 0], w[:, 3], w[:, 3], w[:, 0]], axis=1)
    ph.assert_array_close(outs.numpy(), q.reshape(-1).astype(np.float32), F32, f"{call}: outs (vstore4)")
    sc = s[:, 2] - v[:, 3] + w[:, 2] * w[:, 1]
    ph.assert_array_close(scalars.numpy(), sc.astype(np.float32), F32, f"{call}: scalars (.s2, .even, .odd)")


# -- C semantics ----------------------------------------------------------------------------------------------------

C_SEMANTICS = """
__kernel void c_semantics(__global const int* a, __global const int* b, __global const int* s,
                          __global int* out, __global uint* uout)
{
    const int i = get_global_id(0);
    const int x = a[i], y = b[i];
    const uint sh = (uint)s[i];
    const uint ux = (uint)x, uy = (uint)y;
    const char c1 = (char)(x % 128), c2 = (char)(y % 128);
    const uchar u1 = (uchar)(x & 0xff);
    __global int* r = out + i * 8;
    r[0] = x / y;
    r[1] = x % y;
    r[2] = x >> sh;
    r[3] = c1 * c2 + c1;
    r[4] = u1 + u1 * 2;
    r[5] = (uchar)(u1 * 3);
    r[6] = x < uy;
    r[7] = (x & 0x0ff0) | (y ^ -1);
    __global uint* u = uout + i * 8;
    u[0] = ux * 2654435761u + 12345u;
    u[1] = ux - uy - 1u;
    u[2] = ux << sh;
    u[3] = ux >> sh;
    u[4] = (uint)c1;
    u[5] = ~ux ^ (uy | 0x10u);
    u[6] = ux / (uy | 1u);
    u[7] = ux % (uy | 1u);
}
"""


@pytest.mark.req("R-3.6.2-01")
def test_c_integer_semantics(ctx: wia.Context) -> None:
    """C99 integer rules as OpenCL C 1.2 keeps them: division truncates toward zero and ``%`` has the sign of the
    dividend (C99 6.5.5); ``char``/``uchar`` operands are promoted to ``int`` (6.3.1.1), a conversion to an unsigned
    type is modulo 2^N (6.3.1.3), so ``uint`` arithmetic wraps and ``(uint)(char)-5`` is 2^32 - 5; in ``int <
    uint`` the ``int`` becomes ``uint`` (6.3.1.8). Shifts (OpenCL 1.2 section 6.3 j): the count is taken modulo
    the width (``x << 33 == x << 1``), ``>>`` of a negative ``int`` fills with ones."""
    rng = np.random.default_rng(3627)
    n = 1024
    x = rng.integers(-(2**31) + 1, 2**31, size=n, dtype=np.int64)
    x[: n // 4] = rng.integers(-300, 300, size=n // 4)  # small values too: |x| < |y| and exact multiples
    y = rng.integers(1, 100_000, size=n, dtype=np.int64) * rng.choice([-1, 1], size=n)
    y[n // 2 :] = rng.integers(1, 10, size=n - n // 2) * rng.choice([-1, 1], size=n - n // 2)
    s = rng.integers(0, 64, size=n, dtype=np.int64)
    out = wia.tensor(np.full(n * 8, -559038737, np.int32), ctx=ctx)
    uout = wia.tensor(np.full(n * 8, -559038737, np.int32), ctx=ctx)
    config = wia.LaunchConfig(global_size=n, local_size=64)
    args = [wia.tensor(v.astype(np.int32), ctx=ctx) for v in (x, y, s)]
    call = run(ctx, C_SEMANTICS, "c_semantics", config, *args, out, uout)

    q = np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y))
    c1, c2 = np.fmod(x, 128), np.fmod(y, 128)
    u1 = x & 0xFF
    ux, uy = x & 0xFFFFFFFF, y & 0xFFFFFFFF
    expected = np.stack(
        [
            q,
            x - q * y,
            x >> (s & 31),
            c1 * c2 + c1,
            u1 * 3,
            (u1 * 3) & 0xFF,
            (ux < uy).astype(np.int64),
            (x & 0x0FF0) | (y ^ -1),
        ],
        axis=1,
    )
    got = out.numpy().reshape(n, 8)
    names = ["x / y", "x % y", "x >> sh", "c1 * c2 + c1", "u1 + u1 * 2", "(uchar)(u1 * 3)", "x < uy", "bit ops"]
    for k, name in enumerate(names):
        ph.assert_array_equal(got[:, k], expected[:, k].astype(np.int32), f"{call}: r[{k}] = {name}")

    mask = 0xFFFFFFFF
    uexpected = np.stack(
        [
            (ux * 2654435761 + 12345) & mask,
            (ux - uy - 1) & mask,
            (ux << (s & 31)) & mask,
            ux >> (s & 31),
            c1 & mask,
            (~ux ^ (uy | 0x10)) & mask,
            ux // (uy | 1),
            ux % (uy | 1),
        ],
        axis=1,
    )
    ugot = as_uint(uout).reshape(n, 8)
    unames = ["ux * 2654435761u + 12345u", "ux - uy - 1u", "ux << sh", "ux >> sh", "(uint)c1", "~ux ^ (uy | 0x10u)"]
    unames += ["ux / (uy | 1u)", "ux % (uy | 1u)"]
    for k, name in enumerate(unames):
        ph.assert_array_equal(ugot[:, k], uexpected[:, k].astype(np.uint32), f"{call}: u[{k}] = {name}")


FLOAT_ROUNDING = """
__kernel void float_rounding(__global const float* x, __global const float* d, __global float* sums,
                             __global float* quotients, __global float* conversions, __global const int* big)
{
    const int i = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k < 8; ++k)
        acc += x[8 * i + k];
    sums[i] = acc;
    quotients[i] = x[8 * i] / d[i];
    conversions[i] = (float)big[i];
}
"""


@pytest.mark.req("R-3.6.2-01")
def test_float_arithmetic_rounds_to_float(ctx: wia.Context) -> None:
    """``float`` operations round to ``float`` at each step (OpenCL 1.2 Table 7.1: ``x + y`` correctly rounded,
    ``x / y`` within 2.5 ulp): a sequential sum of 8 floats equals NumPy's float32 sum in the same order, bit for
    bit (an implementation that adds in double gives other values); an ``int`` above 2^24 converts to the nearest
    float (round to nearest even, OpenCL 1.2 section 6.2.3.2)."""
    rng = np.random.default_rng(3635)
    n = 512
    x = (rng.standard_normal(8 * n) * 10.0 ** rng.integers(-3, 4, 8 * n)).astype(np.float32)
    d = rng.uniform(0.5, 3.0, n).astype(np.float32) * rng.choice(np.array([-1, 1], np.float32), n)
    big = rng.integers(2**24, 2**30, n).astype(np.int32)
    sums, quotients, conversions = (wia.tensor(np.full(n, np.nan, np.float32), ctx=ctx) for _ in range(3))
    config = wia.LaunchConfig(global_size=n, local_size=64)
    tensors = [wia.tensor(v, ctx=ctx) for v in (x, d)]
    call = run(
        ctx, FLOAT_ROUNDING, "float_rounding", config, *tensors, sums, quotients, conversions, wia.tensor(big, ctx=ctx)
    )
    expected = np.zeros(n, np.float32)
    for k in range(8):
        expected = (expected + x[k::8]).astype(np.float32)
    ph.assert_array_equal(sums.numpy(), expected, f"{call}: acc += x[8 * i + k], k = 0..7")
    ph.assert_ulp_close(quotients.numpy(), x[::8].astype(np.float64) / d, F32, 2.5, f"{call}: x / d")
    ph.assert_array_equal(conversions.numpy(), big.astype(np.float32), f"{call}: (float)big")


# -- control flow ---------------------------------------------------------------------------------------------------

CONTROL_FLOW = """
#define SQR(v) ((v) * (v))
#define LIMIT 50
#if defined(LIMIT) && LIMIT > 10
#define START 1
#else
#define START 1000
#endif

int gcd(int p, int q)
{
    while (q != 0) {
        const int t = p % q;
        p = q;
        q = t;
    }
    return p;
}

void order(int p, int q, int* lo, int* hi)
{
    *lo = p < q ? p : q;
    *hi = p < q ? q : p;
}

__kernel void control_flow(__global const int* a, __global const int* b, __global int* out)
{
    const int i = get_global_id(0);
    const int x = a[i], y = b[i];
    __global int* r = out + i * 8;

    int n = x, steps = 0;
    while (n != 1) {
        n = (n % 2) ? 3 * n + 1 : n / 2;
        ++steps;
    }
    r[0] = steps;

    int acc = 0;
    for (int k = START; k <= y; ++k) {
        if (k % 3 == 0)
            continue;
        acc += SQR(k);
        if (acc > x * LIMIT)
            break;
    }
    r[1] = acc;

    int digits = 0, v = x - 1;
    do {
        ++digits;
        v /= 10;
    } while (v > 0);
    r[2] = digits;

    r[3] = gcd(x, y);
    int pair[2];
    order(x, y, &pair[0], pair + 1);
    r[4] = pair[0] * 1000 + pair[1];

    int pairs = 0;
    for (int p = 0; p < 8; ++p) {
        for (int q = 0; q < 8; ++q) {
            if (p + q > x % 9)
                break;
            ++pairs;
        }
    }
    r[5] = pairs;
    r[6] = x > y ? x - y : (x == y ? 0 : -1);
#ifdef UNDEFINED_NAME
    r[7] = -1;
#else
    r[7] = __LINE__;
#endif
}
"""


def collatz_steps(x: int) -> int:
    steps = 0
    while x != 1:
        x = 3 * x + 1 if x % 2 else x // 2
        steps += 1
    return steps


def control_flow_reference(x: int, y: int) -> list[int]:
    acc = 0
    for k in range(1, y + 1):
        if k % 3 == 0:
            continue
        acc += k * k
        if acc > x * 50:
            break
    digits = len(str(x - 1))
    pairs = sum(1 for p in range(8) for q in range(8) if all(p + qq <= x % 9 for qq in range(q + 1)))
    diff = x - y if x > y else (0 if x == y else -1)
    a, b = min(x, y), max(x, y)
    gcd = int(np.gcd(x, y))
    line = CONTROL_FLOW.splitlines().index("    r[7] = __LINE__;") + 1  # line 1 is the empty one before #define
    return [collatz_steps(x), acc, digits, gcd, a * 1000 + b, pairs, diff, line]


@pytest.mark.req("R-3.6.2-01")
def test_control_flow(ctx: wia.Context) -> None:
    """``while`` with a data-dependent trip count, ``for`` with ``continue`` and ``break``, ``do``/``while`` (runs
    at least once), helper functions (a loop; results through pointers into a private array), nested loops whose
    ``break`` leaves only the inner one, nested ternaries, and the preprocessor (function-like macros, ``#if
    defined``, ``#ifdef``/``#else``, ``__LINE__``), all diverging between the work-items of a group."""
    rng = np.random.default_rng(3628)
    n = 256
    x = rng.integers(1, 300, size=n)
    y = rng.integers(1, 300, size=n)
    y[:16] = x[:16]  # equal pairs for the ternary
    out = wia.tensor(np.full(n * 8, -559038737, np.int32), ctx=ctx)
    config = wia.LaunchConfig(global_size=n, local_size=64)
    call = run(
        ctx,
        CONTROL_FLOW,
        "control_flow",
        config,
        wia.tensor(x.astype(np.int32), ctx=ctx),
        wia.tensor(y.astype(np.int32), ctx=ctx),
        out,
    )
    expected = np.array([control_flow_reference(int(a), int(b)) for a, b in zip(x, y, strict=True)], np.int32)
    got = out.numpy().reshape(n, 8)
    names = [
        "collatz (while)",
        "for/continue/break",
        "do-while",
        "gcd()",
        "order() via pointers",
        "nested break",
        "ternary",
        "#ifdef/__LINE__",
    ]
    for k, name in enumerate(names):
        ph.assert_array_equal(got[:, k], expected[:, k], f"{call}: r[{k}] = {name}")


POINTER_TO_PRIVATE = """
void order(int p, int q, int* lo, int* hi)
{
    *lo = p < q ? p : q;
    *hi = p < q ? q : p;
}

__kernel void private_pointers(__global const int* a, __global const int* b, __global int* out)
{
    const int i = get_global_id(0);
    int lo, hi;
    order(a[i], b[i], &lo, &hi);
    int* p = &lo;
    *p += 1;
    out[i] = lo * 1000 + hi;
}
"""


@pytest.mark.req("R-3.6.2-01", "R-3.2.1-02")
def test_pointers_to_private_scalars(ctx: wia.Context) -> None:
    """The address of a private scalar (``&lo``) passed to a helper function and through a local pointer: plain C,
    so a kernel the device compiles must run (a claimed feature works, R-3.2.1-02)."""
    rng = np.random.default_rng(3634)
    n = 128
    x, y = rng.integers(-500, 500, size=n), rng.integers(-500, 500, size=n)
    out = wia.tensor(np.full(n, -559038737, np.int32), ctx=ctx)
    config = wia.LaunchConfig(global_size=n, local_size=64)
    call = run(
        ctx,
        POINTER_TO_PRIVATE,
        "private_pointers",
        config,
        wia.tensor(x.astype(np.int32), ctx=ctx),
        wia.tensor(y.astype(np.int32), ctx=ctx),
        out,
    )
    expected = (np.minimum(x, y) + 1) * 1000 + np.maximum(x, y)
    ph.assert_array_equal(out.numpy(), expected.astype(np.int32), call)


# -- math built-ins -------------------------------------------------------------------------------------------------

MATH_ULP = """
__kernel void math_ulp(__global const float* x, __global const float* y, __global const float* t,
                       __global float* out, const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    out[0 * n + i] = sqrt(x[i]);
    out[1 * n + i] = rsqrt(x[i]);
    out[2 * n + i] = exp(y[i]);
    out[3 * n + i] = log(x[i]);
    out[4 * n + i] = pow(x[i], y[i]);
    out[5 * n + i] = sin(t[i]);
    out[6 * n + i] = cos(t[i]);
}
"""
# OpenCL 1.2 section 7.4, Table 7.1 (single precision, full profile): the most a result may differ from the
# exact value, in ulp of the exact value.
MATH_ULP_BOUNDS: list[tuple[str, float, Any]] = [
    ("sqrt(x)", 3, lambda x, y, t: np.sqrt(x)),
    ("rsqrt(x)", 2, lambda x, y, t: 1 / np.sqrt(x)),
    ("exp(y)", 3, lambda x, y, t: np.exp(y)),
    ("log(x)", 3, lambda x, y, t: np.log(x)),
    ("pow(x, y)", 16, lambda x, y, t: np.power(x, y)),
    ("sin(t)", 4, lambda x, y, t: np.sin(t)),
    ("cos(t)", 4, lambda x, y, t: np.cos(t)),
]


@pytest.mark.req("R-3.6.2-01")
def test_math_built_ins_within_the_opencl_ulp_bounds(ctx: wia.Context) -> None:
    """``sqrt``, ``rsqrt``, ``exp``, ``log``, ``pow``, ``sin``, ``cos`` of ``float``, each within its ulp bound
    (OpenCL 1.2 Table 7.1) of the float64 value of the same float inputs."""
    rng = np.random.default_rng(3629)
    n = 1000
    x = rng.uniform(0.1, 100.0, n).astype(np.float32)
    y = rng.uniform(-4.0, 4.0, n).astype(np.float32)
    t = rng.uniform(-10.0, 10.0, n).astype(np.float32)
    out = wia.tensor(np.full(7 * n, np.nan, np.float32), ctx=ctx)
    config = wia.LaunchConfig(global_size=1024, local_size=64)
    tensors = [wia.tensor(v, ctx=ctx) for v in (x, y, t)]
    call = run(ctx, MATH_ULP, "math_ulp", config, *tensors, out, n)
    got = out.numpy().reshape(7, n)
    x64, y64, t64 = (v.astype(np.float64) for v in (x, y, t))
    for k, (name, ulps, reference) in enumerate(MATH_ULP_BOUNDS):
        ph.assert_ulp_close(got[k], reference(x64, y64, t64), F32, ulps, f"{call}: {name}")


MATH_EXACT = """
__kernel void math_exact(__global const float* a, __global const float* b, __global const float* c,
                         __global const float* p, __global const float* q, __global const float4* v,
                         __global const float4* w, __global float* out, const int n)
{
    const int i = get_global_id(0);
    out[0 * n + i] = fabs(b[i]);
    out[1 * n + i] = fmin(a[i], b[i]);
    out[2 * n + i] = fmax(a[i], b[i]);
    out[3 * n + i] = fma(p[i], q[i], -(p[i] * q[i]));
    out[4 * n + i] = mad(a[i], b[i], c[i]);
    out[5 * n + i] = clamp(b[i], -1.5f, 2.25f);
    out[6 * n + i] = select(a[i], b[i], i % 3);
    out[7 * n + i] = min(a[i], c[i]);
    out[8 * n + i] = max(a[i], c[i]);
    out[9 * n + i] = dot(v[i], w[i]);
    const float4 sel = select(v[i], w[i], (int4)(-1, 0, 5, -2147483647 - 1));
    out[10 * n + i] = sel.x + 4.0f * sel.y + 16.0f * sel.z + 64.0f * sel.w;
    const float4 cl = clamp(v[i], (float4)(-1.0f), (float4)(2.0f));
    out[11 * n + i] = cl.x - cl.y + cl.z - cl.w;
}
"""


@pytest.mark.req("R-3.6.2-01")
def test_exact_math_built_ins(ctx: wia.Context) -> None:
    """Built-ins whose result is exact (OpenCL 1.2 Table 7.1: ``fabs``, ``fmin``, ``fmax`` 0 ulp; ``fma``
    correctly rounded; ``clamp``, ``select``, ``min``, ``max`` select values): checked for equality. ``fma(p, q,
    -(p * q))`` is the rounding error of the product, exact in float, where a multiply-then-add gives 0. ``mad``
    and ``dot`` may round their products or not (6.12.2, 6.12.5), so they get operands whose products and sums
    are exact. ``select`` on vectors takes ``b`` where the condition's most significant bit is set (6.12.6):
    components with -1 and INT_MIN, not 0 and 5."""
    rng = np.random.default_rng(3630)
    n = 512
    a, b, c = exact_floats(rng, n), exact_floats(rng, n), exact_floats(rng, n)
    p = rng.uniform(0.5, 2.0, n).astype(np.float32)
    q = rng.uniform(0.5, 2.0, n).astype(np.float32)
    v, w = exact_floats(rng, (n, 4), limit=4), exact_floats(rng, (n, 4), limit=4)
    out = wia.tensor(np.full(12 * n, np.nan, np.float32), ctx=ctx)
    config = wia.LaunchConfig(global_size=n, local_size=64)
    inputs = [wia.tensor(arr, ctx=ctx) for arr in (a, b, c, p, q, v, w)]
    call = run(ctx, MATH_EXACT, "math_exact", config, *inputs, out, n)
    got = out.numpy().reshape(12, n)
    a64, b64, c64, v64, w64 = (arr.astype(np.float64) for arr in (a, b, c, v, w))
    product = p.astype(np.float64) * q.astype(np.float64)  # exact: 24 + 24 bits
    idx = np.arange(n)
    sel = np.where(np.array([True, False, False, True]), w64, v64)
    cl = np.clip(v64, -1.0, 2.0)
    expected = [
        ("fabs(b)", np.abs(b64)),
        ("fmin(a, b)", np.minimum(a64, b64)),
        ("fmax(a, b)", np.maximum(a64, b64)),
        ("fma(p, q, -(p * q))", product - product.astype(np.float32).astype(np.float64)),
        ("mad(a, b, c)", a64 * b64 + c64),
        ("clamp(b, -1.5f, 2.25f)", np.clip(b64, -1.5, 2.25)),
        ("select(a, b, i % 3)", np.where(idx % 3 != 0, b64, a64)),
        ("min(a, c)", np.minimum(a64, c64)),
        ("max(a, c)", np.maximum(a64, c64)),
        ("dot(v, w)", (v64 * w64).sum(axis=1)),
        ("select(v, w, (int4)(-1, 0, 5, INT_MIN))", sel @ np.array([1.0, 4.0, 16.0, 64.0])),
        ("clamp(v, -1, 2)", cl[:, 0] - cl[:, 1] + cl[:, 2] - cl[:, 3]),
    ]
    for k, (name, ref) in enumerate(expected):
        ph.assert_array_equal(got[k], ref.astype(np.float32), f"{call}: {name}")


MATH_INT = """
__kernel void math_int(__global const int* a, __global const int* b, __global int* out, __global uint* uout)
{
    const int i = get_global_id(0);
    const int x = a[i], y = b[i];
    out[4 * i + 0] = min(x, y);
    out[4 * i + 1] = max(x, y);
    out[4 * i + 2] = clamp(x, -1000, 1000);
    out[4 * i + 3] = select(x, y, x < y);
    uout[2 * i + 0] = min((uint)x, (uint)y);
    uout[2 * i + 1] = abs(x);
}
"""


@pytest.mark.req("R-3.6.2-01")
def test_integer_built_ins(ctx: wia.Context) -> None:
    """``min``, ``max``, ``clamp``, ``select`` on ``int``; ``min`` on ``uint`` (negative ints become large); ``abs``
    of an ``int`` is a ``uint`` (OpenCL 1.2 section 6.12.3)."""
    rng = np.random.default_rng(3631)
    n = 512
    x = rng.integers(-5000, 5000, size=n)
    y = rng.integers(-5000, 5000, size=n)
    out = wia.tensor(np.full(4 * n, -559038737, np.int32), ctx=ctx)
    uout = wia.tensor(np.full(2 * n, -559038737, np.int32), ctx=ctx)
    config = wia.LaunchConfig(global_size=n, local_size=64)
    call = run(
        ctx,
        MATH_INT,
        "math_int",
        config,
        wia.tensor(x.astype(np.int32), ctx=ctx),
        wia.tensor(y.astype(np.int32), ctx=ctx),
        out,
        uout,
    )
    expected = np.stack([np.minimum(x, y), np.maximum(x, y), np.clip(x, -1000, 1000), np.where(x < y, y, x)], 1)
    ph.assert_array_equal(out.numpy().reshape(n, 4), expected.astype(np.int32), call)
    uexpected = np.stack([np.minimum(x & 0xFFFFFFFF, y & 0xFFFFFFFF), np.abs(x)], 1)
    ph.assert_array_equal(as_uint(uout).reshape(n, 2), uexpected.astype(np.uint32), f"{call}: uint results")


LENGTH = """
__kernel void lengths(__global const float4* v, __global float* out)
{
    const int i = get_global_id(0);
    out[i] = length(v[i]);
}
"""


@pytest.mark.req("R-3.6.2-01")
def test_length(ctx: wia.Context) -> None:
    """``length`` of a ``float4`` whose sum of squares is exact in float: held to ``sqrt``'s 3 ulp (OpenCL 1.2
    Table 7.1; the suite's reading: ``length`` is ``sqrt(dot(p, p))``, and the dot is exact here)."""
    rng = np.random.default_rng(3632)
    n = 512
    v = exact_floats(rng, (n, 4), limit=4)
    out = wia.tensor(np.full(n, np.nan, np.float32), ctx=ctx)
    call = run(ctx, LENGTH, "lengths", wia.LaunchConfig(global_size=n, local_size=64), wia.tensor(v, ctx=ctx), out)
    ph.assert_ulp_close(out.numpy(), np.sqrt((v.astype(np.float64) ** 2).sum(axis=1)), F32, 3, call)


DOUBLES = """
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void doubles(__global const double* x, __global double* out)
{
    const int i = get_global_id(0);
    const double big = 16777216.0;
    out[i] = (big + x[i]) - big;
}
"""


@pytest.mark.req("R-3.6.2-01")
def test_double_where_float64_is_claimed(ctx: wia.Context) -> None:
    """``double`` arithmetic (``cl_khr_fp64``) on a device that claims ``supports_float64`` (the suite's reading:
    the float64 data type is claimed for kernels too): ``(2^24 + x) - 2^24`` keeps ``x`` to a 2^-28 step, which
    float arithmetic would round to an integer."""
    ph.requires("supports_custom_kernels")
    ph.requires("supports_float64")
    rng = np.random.default_rng(3633)
    n = 256
    x = rng.integers(-(2**12), 2**12, size=n) / 2.0**8 + 2.0**-28
    out = wia.tensor(np.full(n, np.nan), dtype=wia.float64, ctx=ctx)
    config = wia.LaunchConfig(global_size=n, local_size=64)
    call = run(ctx, DOUBLES, "doubles", config, wia.tensor(x, dtype=wia.float64, ctx=ctx), out)
    ph.assert_array_equal(out.numpy(), x, call)
