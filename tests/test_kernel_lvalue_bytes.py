"""Which bytes an access touches (issue 16): members of packed structs (or packed members), at any byte offset,
members aligned with ``aligned(N)``, and components of a
vector in memory (``p[i].y = v``, ``x = p[i].zw``), which read and write only their own bytes.

Values against NumPy references over fresh random data, through the public HAL, on the simulator and, where an
OpenCL device is installed, on PoCL and Oclgrind; the simulator's checks (write-only memory, uninitialized bytes,
misaligned pointers) by their findings.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import wia_hal as wia

N = 32

PACKED = r"""
struct __attribute__((packed)) Rec { char tag; int count; short delta; float4 v; };

__kernel void k(struct Rec base, __global struct Rec* recs, __global int* sums, __global float* ys)
{
    int i = get_global_id(0);
    sums[i] = base.count + recs[i].count * (int)recs[i].tag + recs[i].delta;
    ys[i] = recs[i].v.y * base.v.w + recs[i].v.z;
    recs[i].count = recs[i].count + base.delta;
    recs[i].v.x = (float)i;
    recs[i].delta = (short)(recs[i].delta - base.tag);
}
"""
REC = np.dtype([("tag", np.int8), ("count", np.int32), ("delta", np.int16), ("v", np.float32, (4,))], align=False)

COMPONENTS = r"""
__kernel void k(__global const int* x, __global int4* out, __global float2* hv, __global float* got)
{
    int i = get_global_id(0);
    out[i].y = x[i];
    out[i].wz = (int2)(x[i] * 2, -x[i]);
    hv[i].x = (float)x[i] * 0.5f;
    got[i] = hv[i].x + (float)(*(hv + i)).x;
}
"""


def _upload(ctx: wia.Context, data: np.ndarray, access: wia.MemoryAccess = wia.MemoryAccess.READ_WRITE) -> wia.Memory:
    raw = np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint8)
    staging = wia.alloc(ctx, raw.size, wia.MemoryType.HOST)
    wia.memory_ptr(staging)[:] = raw
    mem = wia.alloc(ctx, raw.size, access=access)
    wia.copy_async(staging, mem, raw.size)
    wia.context_synchronize(ctx)
    return mem


def _download(ctx: wia.Context, mem: wia.Memory, dtype: np.dtype) -> np.ndarray:
    staging = wia.alloc(ctx, mem.size, wia.MemoryType.HOST)
    wia.copy_async(mem, staging, mem.size)
    wia.context_synchronize(ctx)
    return np.frombuffer(wia.memory_ptr(staging).tobytes(), dtype)


def test_members_of_packed_structs_at_odd_offsets(device_ctx: wia.Context) -> None:
    """``count`` lies at offset 1 and ``v`` at 7 of a 23-byte record: legal align-1 accesses, not misaligned ones."""
    rng = np.random.default_rng(31)
    assert REC.itemsize == 23
    recs = np.zeros(N, REC)
    recs["tag"] = rng.integers(-5, 6, N)
    recs["count"] = rng.integers(-1000, 1000, N)
    recs["delta"] = rng.integers(-300, 300, N)
    recs["v"] = rng.standard_normal((N, 4))
    base = np.zeros((), REC)
    base["tag"], base["count"], base["delta"], base["v"] = 3, 1234567, -77, (0.5, 1.5, 2.5, -0.75)
    kernel = wia.compile_kernel(device_ctx, PACKED, "k")
    assert kernel.signature.params[0].nbytes in (None, 23)
    buf = _upload(device_ctx, recs)
    sums, ys = wia.alloc(device_ctx, 4 * N), wia.alloc(device_ctx, 4 * N)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=N, local_size=8), base[()], buf, sums, ys)
    count = recs["count"].astype(np.int64)
    want_sums = 1234567 + count * recs["tag"] + recs["delta"]
    np.testing.assert_array_equal(_download(device_ctx, sums, np.dtype(np.int32)), want_sums)
    want_ys = recs["v"][:, 1].astype(np.float64) * -0.75 + recs["v"][:, 2]
    np.testing.assert_allclose(_download(device_ctx, ys, np.dtype(np.float32)), want_ys, rtol=1e-6, atol=1e-6)
    out = _download(device_ctx, buf, REC)
    np.testing.assert_array_equal(out["count"], recs["count"] - 77)
    np.testing.assert_array_equal(out["delta"], recs["delta"] - 3)
    np.testing.assert_array_equal(out["tag"], recs["tag"])
    np.testing.assert_array_equal(out["v"][:, 0], np.arange(N, dtype=np.float32))
    np.testing.assert_array_equal(out["v"][:, 1:], recs["v"][:, 1:])


def test_vector_components_in_memory(device_ctx: wia.Context) -> None:
    """Stores to some components keep the others (written by the host); reads take the component only."""
    rng = np.random.default_rng(32)
    x = rng.integers(-(2**20), 2**20, N).astype(np.int32)
    keep = rng.integers(-100, 100, (N, 4)).astype(np.int32)
    kernel = wia.compile_kernel(device_ctx, COMPONENTS, "k")
    out = _upload(device_ctx, keep)
    halves = _upload(device_ctx, rng.standard_normal((N, 2)).astype(np.float32))
    got = wia.alloc(device_ctx, 4 * N)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=N, local_size=8), _upload(device_ctx, x), out, halves, got)
    want = keep.copy()
    want[:, 1], want[:, 3], want[:, 2] = x, 2 * x, -x
    np.testing.assert_array_equal(_download(device_ctx, out, np.dtype(np.int32)).reshape(N, 4), want)
    np.testing.assert_array_equal(_download(device_ctx, got, np.dtype(np.float32)), x.astype(np.float32))


@pytest.fixture
def sim() -> Iterator[wia.Context]:
    wia.set_backend("sim", hardware="wia-tiny")
    context = wia.create_context()
    yield context
    wia.destroy_context(context)


def test_a_component_store_to_write_only_memory_reads_nothing(sim: wia.Context) -> None:
    rng = np.random.default_rng(33)
    x = rng.integers(-1000, 1000, N).astype(np.int32)
    keep = rng.integers(-100, 100, (N, 4)).astype(np.int32)
    kernel = wia.compile_kernel(sim, COMPONENTS, "k")
    out = _upload(sim, keep, wia.MemoryAccess.WRITE_ONLY)
    halves = _upload(sim, np.zeros((N, 2), np.float32))
    got = wia.alloc(sim, 4 * N)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=N, local_size=8), _upload(sim, x), out, halves, got)
    want = keep.copy()
    want[:, 1], want[:, 3], want[:, 2] = x, 2 * x, -x
    np.testing.assert_array_equal(_download(sim, out, np.dtype(np.int32)).reshape(N, 4), want)
    reads = wia.compile_kernel(sim, "__kernel void k(__global int4* o, __global int* r) { r[0] = o[0].x; }", "k")
    with pytest.raises(wia.InvalidMemoryError, match="read of write-only"):  # a component read still is a read
        wia.launch_kernel(reads, wia.LaunchConfig(global_size=1), out, wia.alloc(sim, 4))


def test_a_component_read_does_not_read_the_unwritten_components(sim: wia.Context) -> None:
    """``hv`` is created without data: the kernel writes ``.x`` and reads ``.x`` back, never ``.y``."""
    rng = np.random.default_rng(34)
    x = rng.integers(-1000, 1000, N).astype(np.int32)
    kernel = wia.compile_kernel(sim, COMPONENTS, "k")
    got = wia.alloc(sim, 4 * N)
    cfg = wia.LaunchConfig(global_size=N, local_size=8)
    wia.launch_kernel(kernel, cfg, _upload(sim, x), wia.alloc(sim, 16 * N), wia.alloc(sim, 8 * N), got)
    np.testing.assert_array_equal(_download(sim, got, np.dtype(np.float32)), x.astype(np.float32))
    whole = COMPONENTS.replace("got[i] = hv[i].x", "got[i] = hv[i].y")
    with pytest.raises(wia.InvalidMemoryError, match="uninitialized"):
        wia.launch_kernel(
            wia.compile_kernel(sim, whole, "k"),
            cfg,
            _upload(sim, x),
            wia.alloc(sim, 16 * N),
            wia.alloc(sim, 8 * N),
            got,
        )


def test_a_misaligned_pointer_is_still_a_finding(sim: wia.Context) -> None:
    """Only members of packed structs may lie off their alignment: an int read through a cast char pointer at
    offset 2 is misaligned, as before."""
    src = r"""
    struct __attribute__((packed)) P { char c; int i; };
    __kernel void k(__global int* in, __global int* out, __global struct P* ps) {
        out[0] = ps[0].i;
        out[1] = *(__global int*)((__global char*)in + 2);
    }
    """
    kernel = wia.compile_kernel(sim, src, "k")
    ps = np.zeros(2, np.dtype([("c", np.int8), ("i", np.int32)], align=False))
    ps["i"] = (41, 42)
    args = (_upload(sim, np.arange(4, dtype=np.int32)), wia.alloc(sim, 8), _upload(sim, ps))
    with pytest.raises(wia.InvalidMemoryError, match="misaligned read of 4 bytes at offset 2"):
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=1), *args)


MEMBERS = r"""
struct M { char tag; int count __attribute__((packed)); char end; long big __attribute__((aligned(16))); };
__kernel void k(__global struct M* ms, __global long* out)
{
    int i = get_global_id(0);
    out[i] = ms[i].count * (long)ms[i].tag + ms[i].big + ms[i].end + (long)sizeof(struct M) * 1000000000000L;
    ms[i].count = -ms[i].count;
    ms[i].big = ms[i].big ^ 0x5555;
}
"""
MEMBER = np.dtype(
    {
        "names": ["tag", "count", "end", "big"],
        "formats": [np.int8, np.int32, np.int8, np.int64],
        "offsets": [0, 1, 5, 16],
        "itemsize": 32,
    }
)


def test_packed_and_aligned_attributes_on_members(device_ctx: wia.Context) -> None:
    """GCC's rules, as Clang applies them: ``packed`` on a member puts it right after the one before, ``aligned(16)``
    moves it to a multiple of 16 and makes the struct's alignment (and so its size) 16."""
    rng = np.random.default_rng(35)
    ms = np.zeros(N, MEMBER)
    ms["tag"] = rng.integers(-9, 10, N)
    ms["count"] = rng.integers(-(2**30), 2**30, N)
    ms["end"] = rng.integers(-100, 100, N)
    ms["big"] = rng.integers(-(2**40), 2**40, N)
    buf, out = _upload(device_ctx, ms), wia.alloc(device_ctx, 8 * N)
    wia.launch_kernel(
        wia.compile_kernel(device_ctx, MEMBERS, "k"), wia.LaunchConfig(global_size=N, local_size=8), buf, out
    )
    want = ms["count"].astype(np.int64) * ms["tag"] + ms["big"] + ms["end"] + 32 * 10**12
    np.testing.assert_array_equal(_download(device_ctx, out, np.dtype(np.int64)), want)
    got = _download(device_ctx, buf, MEMBER)
    np.testing.assert_array_equal(got["count"], -ms["count"])
    np.testing.assert_array_equal(got["big"], ms["big"] ^ 0x5555)
    np.testing.assert_array_equal(got[["tag", "end"]], ms[["tag", "end"]])


RUNS = r"""
__kernel void k(__global const int* x, __global int8* o)
{
    int i = get_global_id(0);
    o[i].s4567 = (int4)(x[i], x[i] + 1, x[i] + 2, x[i] + 3);
    o[i].s10 = (int2)(-x[i], x[i] * 3);
    o[i].s3 = x[i] ^ 0x5a5a;
    o[i].s2 = i;
}
"""


def test_runs_of_components_into_write_only_memory(device_ctx: wia.Context) -> None:
    """A run of consecutive components (``.s4567``) is stored as one access, others one component at a time;
    together they write the whole int8, nothing read."""
    rng = np.random.default_rng(36)
    x = rng.integers(-(2**20), 2**20, N).astype(np.int32)
    out = wia.alloc(device_ctx, 32 * N, access=wia.MemoryAccess.WRITE_ONLY)
    wia.launch_kernel(
        wia.compile_kernel(device_ctx, RUNS, "k"), wia.LaunchConfig(global_size=N), _upload(device_ctx, x), out
    )
    want = np.stack([x * 3, -x, np.arange(N), x ^ 0x5A5A, x, x + 1, x + 2, x + 3], axis=1).astype(np.int32)
    np.testing.assert_array_equal(_download(device_ctx, out, np.dtype(np.int32)).reshape(N, 8), want)
