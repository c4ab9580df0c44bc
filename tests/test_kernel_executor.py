"""The kernel executor (wia_sim.kernels.executor): each feature on a small kernel against NumPy, each check on a
tiny planted kernel (check name, line, work-item), the step limit and the counts."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from wia_sim.kernels import compile_source
from wia_sim.kernels.executor import KernelFault, KernelTimeout, run_kernel
from wia_sim.kernels.lanes import Geometry


def geo(n: int, wg: int) -> Geometry:
    return Geometry((n, 1, 1), (wg, 1, 1))


def run(src: str, args: list[Any], n: int, wg: int = 8, name: str | None = None, **kw: Any) -> Any:
    program = compile_source(src)
    kernel = name or program.kernel_names[0]
    raw = [a.view(np.uint8).reshape(-1) if isinstance(a, np.ndarray) else a for a in args]
    return run_kernel(program, kernel, raw, geo(n, wg), **kw)


def test_vector_add_and_scalars() -> None:
    src = """__kernel void k(__global const float* a, __global const float* b, __global float* c, const int n) {
        const int i = get_global_id(0);
        if (i < n) c[i] = a[i] + b[i];
    }"""
    a = np.arange(13, dtype=np.float32)
    b = np.full(13, 0.5, np.float32)
    c = np.full(16, np.nan, np.float32)
    run(src, [a, b, c, np.int32(13)], 16)
    np.testing.assert_array_equal(c[:13], a + b)
    assert np.isnan(c[13:]).all()


def test_control_flow_loops_break_continue_return_helpers() -> None:
    src = """
    int steps(uint v) { int s = 0; while (v != 1u) { v = (v & 1u) ? 3u * v + 1u : v >> 1; ++s; } return s; }
    int first_neg(__global const int* v, int n) {
        for (int j = 0; j < n; j++) { if (v[j] == 0) continue; if (v[j] < 0) return j; if (j > 100) break; }
        return -1;
    }
    __kernel void k(__global const int* v, __global int* out) {
        const int i = get_global_id(0);
        int d = 0;
        do { d += 2; } while (d < i);
        out[3 * i] = steps((uint)i + 1u);
        out[3 * i + 1] = first_neg(v + i, 4);
        out[3 * i + 2] = i % 3 == 0 ? d : (i > 4 && v[i] > 0) || i == 1;
    }"""
    n = 16
    v = np.array([0, 3, -1, 2, 0, 0, -5, 1, 1, 1, 1, -2, 0, 0, 0, 0, 0, 0, 0, 0], np.int32)
    out = np.zeros(3 * n, np.int32)
    run(src, [v, out], n)

    def collatz(x: int) -> int:
        s = 0
        while x != 1:
            x = 3 * x + 1 if x & 1 else x >> 1
            s += 1
        return s

    for i in range(n):
        assert out[3 * i] == collatz(i + 1)
        window = list(v[i : i + 4])
        assert out[3 * i + 1] == next((j for j, w in enumerate(window) if w < 0), -1)
        d = max(2, -(-i // 2) * 2)
        third = d if i % 3 == 0 else int((i > 4 and v[i] > 0) or i == 1)
        assert out[3 * i + 2] == third, i


def test_c_arithmetic_unsigned_wrap_division_shifts() -> None:
    src = """__kernel void k(__global const int* a, __global const int* b, __global int* q, __global uint* u) {
        const int i = get_global_id(0);
        q[2 * i] = a[i] / b[i];
        q[2 * i + 1] = a[i] % b[i];
        u[2 * i] = (uint)a[i] * 4000000000u;
        u[2 * i + 1] = 1u << (a[i] + 32);
    }"""
    a = np.array([7, -7, 7, -7, 100, -1, 3, 0], np.int32)
    b = np.array([2, 2, -2, -2, 7, 3, 5, 9], np.int32)
    q = np.zeros(16, np.int32)
    u = np.zeros(16, np.uint32)
    run(src, [a, b, q, u], 8)
    np.testing.assert_array_equal(q[0::2], np.trunc(a / b).astype(np.int32))
    np.testing.assert_array_equal(q[1::2], np.fmod(a, b))
    np.testing.assert_array_equal(u[0::2], (a.astype(np.uint64) * 4000000000) % 2**32)
    np.testing.assert_array_equal(u[1::2], (1 << (a.astype(np.int64) & 31)).astype(np.uint32))


def test_local_memory_barrier_reduction_and_pointer_swap() -> None:
    src = """__kernel void k(__global const int* x, __global int* y, __local int* a, __local int* b) {
        __local int total;
        const int lid = get_local_id(0);
        __local int* src = a; __local int* dst = b;
        src[lid] = x[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int off = 1; off < get_local_size(0); off <<= 1) {
            dst[lid] = lid >= off ? src[lid] + src[lid - off] : src[lid];
            barrier(CLK_LOCAL_MEM_FENCE);
            __local int* t = src; src = dst; dst = t;
        }
        if (lid == 0) total = src[get_local_size(0) - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
        y[get_global_id(0)] = src[lid] * 1000 + total;
    }"""
    x = np.arange(1, 33, dtype=np.int32)
    y = np.zeros(32, np.int32)
    r = run(src, [x, y, 32, 32], 32, 8)
    scan = np.cumsum(x.reshape(4, 8), axis=1)
    np.testing.assert_array_equal(y.reshape(4, 8), scan * 1000 + scan[:, -1:])
    assert r.counts["barriers"] == 4 * 5
    assert r.counts["local_bytes_written"] > 0


def test_static_local_2d_tile_transpose() -> None:
    src = """#define T 4
    __kernel void k(__global const float* s, __global float* d) {
        __local float tile[T][T + 1];
        const int x = get_local_id(0), y = get_local_id(1);
        tile[y][x] = s[get_global_id(1) * 8 + get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        d[(get_group_id(0) * T + y) * 8 + get_group_id(1) * T + x] = tile[x][y];
    }"""
    s = np.arange(64, dtype=np.float32)
    d = np.zeros(64, np.float32)
    program = compile_source(src)
    run_kernel(program, "k", [s.view(np.uint8), d.view(np.uint8)], Geometry((8, 8, 1), (4, 4, 1), work_dim=2))
    np.testing.assert_array_equal(d.reshape(8, 8), s.reshape(8, 8).T)


def test_atomics_global_and_local() -> None:
    src = """__kernel void k(__global const uint* keys, __global uint* bins, __global int* old, __global int* mm) {
        __local uint h[4];
        const int lid = get_local_id(0);
        if (lid < 4) h[lid] = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
        atomic_inc(&h[keys[get_global_id(0)] & 3u]);
        old[get_global_id(0)] = atomic_add(&mm[0], 1);
        atomic_min(&mm[1], (int)keys[get_global_id(0)]);
        atomic_max(&mm[2], (int)keys[get_global_id(0)]);
        atom_xor(&mm[3], (int)keys[get_global_id(0)]);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < 4) atomic_add(&bins[lid], h[lid]);
    }"""
    keys = np.array([5, 2, 7, 7, 1, 9, 3, 12, 4, 4, 4, 6, 8, 0, 11, 2], np.uint32)
    bins = np.zeros(4, np.uint32)
    old = np.zeros(16, np.int32)
    mm = np.array([0, 1000, -1000, 0], np.int32)
    r = run(src, [keys, bins, old, mm], 16)
    np.testing.assert_array_equal(bins, np.bincount(keys & 3, minlength=4))
    np.testing.assert_array_equal(old, np.arange(16))  # lane order
    assert mm[0] == 16 and mm[1] == 0 and mm[2] == 12
    assert mm[3] == np.bitwise_xor.reduce(keys.astype(np.int32))
    assert r.counts["atomics"] == 16 * 5 + 8


def test_cmpxchg_float_add_loop() -> None:
    src = """void add_f(volatile __global float* p, float v) {
        volatile __global int* q = (volatile __global int*)p;
        int e, seen = atomic_add(q, 0);  // an atomic read: a plain one would race with the others
        do { e = seen; seen = atomic_cmpxchg(q, e, as_int(as_float(e) + v)); } while (seen != e);
    }
    __kernel void k(__global const int* b, __global float* bins) { add_f(&bins[b[get_global_id(0)]], 1.5f); }"""
    b = np.array([0, 1, 0, 0, 2, 1, 0, 0], np.int32)
    bins = np.zeros(3, np.float32)
    run(src, [b, bins], 8)
    np.testing.assert_array_equal(bins, np.bincount(b, minlength=3) * 1.5)


def test_math_builtins() -> None:
    src = """__kernel void k(__global const float* x, __global float* o, __global int* io) {
        const int i = get_global_id(0);
        const float v = x[i];
        o[12 * i + 0] = sqrt(v); o[12 * i + 1] = rsqrt(v); o[12 * i + 2] = exp(-v); o[12 * i + 3] = log2(v);
        o[12 * i + 4] = pow(v, 1.5f); o[12 * i + 5] = sin(v) + native_cos(v); o[12 * i + 6] = fma(v, v, 1.0f);
        o[12 * i + 7] = clamp(v, 1.0f, 2.0f); o[12 * i + 8] = floor(v) + round(v * 2.0f);
        o[12 * i + 9] = fmod(v, 0.75f); o[12 * i + 10] = tanh(v) * pown(v, 3);
        o[12 * i + 11] = select(1.0f, 2.0f, i & 1);
        io[4 * i] = min(i, 3); io[4 * i + 1] = abs(i - 5); io[4 * i + 2] = popcount(i * 37); io[4 * i + 3] = clz(i);
    }"""
    x = np.linspace(0.3, 3.7, 8).astype(np.float32)
    o = np.zeros(96, np.float32)
    io = np.zeros(32, np.int32)
    run(src, [x, o, io], 8)
    v = x.astype(np.float64)
    want = np.stack(
        [
            np.sqrt(v),
            1 / np.sqrt(v),
            np.exp(-v),
            np.log2(v),
            v**1.5,
            np.sin(v) + np.cos(v),
            v * v + 1,
            np.clip(v, 1, 2),
            np.floor(v) + np.floor(v * 2 + 0.5),
            np.fmod(v, 0.75),
            np.tanh(v) * v**3,
            np.where(np.arange(8) & 1, 2.0, 1.0),
        ],
        axis=1,
    )
    np.testing.assert_allclose(o.reshape(8, 12), want, rtol=3e-7, atol=1e-7)
    i = np.arange(8)
    ints = np.stack(
        [np.minimum(i, 3), np.abs(i - 5), [bin(k * 37).count("1") for k in i], [32 - int(k).bit_length() for k in i]],
        axis=1,
    )
    np.testing.assert_array_equal(io.reshape(8, 4), ints)


def test_conversions_and_reinterpretation() -> None:
    src = """__kernel void k(__global const float* x, __global int* o, __global uint* u) {
        const int i = get_global_id(0);
        o[3 * i] = convert_int_sat(x[i] * 1e10f);
        o[3 * i + 1] = convert_int_rte(x[i]);
        o[3 * i + 2] = convert_int(x[i]);
        u[i] = as_uint(x[i]);
    }"""
    x = np.array([-2.5, -1.5, 0.5, 1.5, 2.5, 1e-12, -3.7, 3.7], np.float32)
    o = np.zeros(24, np.int32)
    u = np.zeros(8, np.uint32)
    run(src, [x, o, u], 8)
    big = np.clip(x.astype(np.float64) * np.float32(1e10), -(2**31), 2**31 - 1).astype(np.int32)
    np.testing.assert_array_equal(o[0::3], big)
    np.testing.assert_array_equal(o[1::3], np.rint(x).astype(np.int32))
    np.testing.assert_array_equal(o[2::3], np.trunc(x).astype(np.int32))
    np.testing.assert_array_equal(u, x.view(np.uint32))


def test_vector_types_swizzles_vload_vstore() -> None:
    src = """__kernel void k(__global const float* p, __global float* o, __global float4* o4, __global float* d) {
        const int i = get_global_id(0);
        const float4 a = vload4(i, p);
        float4 b = (float4)(a.hi, a.lo) * (float4)(2.0f) + 1.0f;
        b.xy = b.yx;
        b.s3 = a.s0;
        vstore4(b, i, o);
        o4[i] = (float4)(a.even, (float2)(dot(a, a), length(a)));
        d[i] = cross(a, b).z + normalize(a).x;
    }"""
    p = np.arange(1, 33, dtype=np.float32).reshape(8, 4)
    o = np.zeros((8, 4), np.float32)
    o4 = np.zeros((8, 4), np.float32)
    d = np.zeros(8, np.float32)
    run(src, [p, o, o4, d], 8)
    b = np.concatenate([p[:, 2:], p[:, :2]], axis=1) * 2 + 1
    b[:, [0, 1]] = b[:, [1, 0]]
    b[:, 3] = p[:, 0]
    np.testing.assert_array_equal(o, b)
    want4 = np.stack([p[:, 0], p[:, 2], (p * p).sum(1), np.sqrt((p * p).sum(1))], axis=1)
    np.testing.assert_allclose(o4, want4, rtol=1e-6)
    want_d = p[:, 0] * b[:, 1] - p[:, 1] * b[:, 0] + p[:, 0] / np.linalg.norm(p, axis=1)
    np.testing.assert_allclose(d, want_d, rtol=1e-6)


def test_private_arrays_and_constant_program_scope() -> None:
    src = """__constant int W[3] = {1, 10, 100};
    __kernel void k(__global int* o) {
        const int i = get_global_id(0);
        int a[3];
        for (int j = 0; j < 3; ++j) a[j] = (i + j) * W[j];
        int* p = &a[1];
        o[i] = a[0] + p[0] + *(p + 1);
    }"""
    o = np.zeros(8, np.int32)
    run(src, [o], 8)
    i = np.arange(8)
    np.testing.assert_array_equal(o, i + 10 * (i + 1) + 100 * (i + 2))


def test_guarded_load_does_not_fault() -> None:
    src = """__kernel void k(__global const float* x, __global float* y, const int n) {
        const int i = get_global_id(0);
        y[i] = (i < n && x[i] > 0.0f) ? x[i] : (i < n ? -x[i] : 0.0f);
    }"""
    x = np.array([1, -2, 3], np.float32)
    y = np.zeros(8, np.float32)
    run(src, [x, y, np.int32(3)], 8)
    np.testing.assert_array_equal(y, [1, 2, 3, 0, 0, 0, 0, 0])


# ------------------------------------------------------------------------------------------------------ checks
def fault_of(src: str, args: list[Any], n: int = 16, wg: int = 8) -> KernelFault:
    with pytest.raises(KernelFault) as info:
        run(src, args, n, wg)
    return info.value


def test_check_out_of_bounds_global_names_line_and_work_item() -> None:
    f = fault_of(
        """__kernel void k(__global float* out) {
        const int i = get_global_id(0);
        out[i + 1] = 1.0f;
    }""",
        [np.zeros(16, np.float32)],
    )
    assert (f.check, f.line, f.work_item, f.group) == ("out_of_bounds_global", 3, (15, 0, 0), (1, 0, 0))
    assert str(f) == (
        "kernel.cl:3: out-of-bounds write of 4 bytes at offset 64 of a 64-byte __global buffer (argument 'out') "
        "by work-item (15, 0, 0) in group (1, 0, 0)\n    out[i + 1] = 1.0f;"
    )


def test_check_out_of_bounds_local_and_constant() -> None:
    f = fault_of(
        """__kernel void k(__global float* o) {
        __local float t[8];
        t[get_local_id(0)] = 1.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        o[get_global_id(0)] = t[get_local_id(0) + 2];
    }""",
        [np.zeros(16, np.float32)],
    )
    assert (f.check, f.line, f.work_item) == ("out_of_bounds_local", 5, (6, 0, 0))
    f = fault_of(
        """__kernel void k(__constant float* c, __global float* o) {
        o[get_global_id(0)] = c[get_global_id(0) * 2];
    }""",
        [np.zeros(16, np.float32), np.zeros(16, np.float32)],
    )
    assert (f.check, f.line, f.work_item) == ("out_of_bounds_constant", 2, (8, 0, 0))


ROW = """__kernel void k(__global float* o) {
        __local float t[2][8];
        t[get_local_id(0) / 8][get_local_id(0) % 8] = get_local_id(0);
        barrier(CLK_LOCAL_MEM_FENCE);
        o[get_global_id(0)] = t[ROW][get_local_id(0) % 8 + 4];
    }"""


def test_a_row_index_past_its_row_of_a_local_or_constant_array() -> None:
    """C99 6.5.6p8: ``t[0][lx + 8]`` of ``__local float t[2][8]`` leaves its row though it stays in the array
    (Oclgrind: "Index (8) exceeds static array size (8)", after which it goes on): a lower-severity finding,
    the element the array's memory holds there read; one that leaves the array (``t[1][lx + 8]``) stops the
    kernel. Strict checks stop it at either."""
    o = np.zeros(16, np.float32)
    (f,) = run(ROW.replace("ROW", "0"), [o], 16, 16).findings
    assert (f.check, f.line, f.work_item, f.work_items) == ("out_of_bounds_local", 5, (4, 0, 0), 8)
    assert "at index 8 of an 8-element array, __local variable 't' (inside its memory)" in str(f)
    np.testing.assert_array_equal(o, (np.arange(16) % 8 + 4).astype(np.float32))
    with pytest.raises(KernelFault, match="at index 8 of an 8-element array"):
        run(ROW.replace("ROW", "0"), [o], 16, 16, strict=True)
    f = fault_of(ROW.replace("ROW", "1"), [o], wg=16)
    assert (f.check, f.line, f.work_item, f.work_items) == ("out_of_bounds_local", 5, (4, 0, 0), 8)
    assert "(inside its memory)" not in str(f)
    constant = """__constant int tab[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
    __kernel void k(__global int* o) {
        o[get_global_id(0)] = tab[0][get_global_id(0) % 8];
    }"""
    o = np.zeros(16, np.int32)
    (f,) = run(constant, [o], 16).findings
    assert (f.check, f.line, f.work_item, f.work_items) == ("out_of_bounds_constant", 3, (4, 0, 0), 8)
    np.testing.assert_array_equal(o, np.arange(16) % 8 + 1)


def test_check_races() -> None:
    f = fault_of(
        """__kernel void k(__global float* o) {
        __local float t[8];
        t[get_local_id(0)] = 1.0f;
        o[get_global_id(0)] = t[(get_local_id(0) + 1) % 8];
    }""",
        [np.zeros(16, np.float32)],
    )
    assert (f.check, f.line) == ("race_local", 4)
    f = fault_of(
        """__kernel void k(__global float* o) {
        o[get_group_id(0)] = (float)get_local_id(0);  // different values: not a uniform write
    }""",
        [np.zeros(16, np.float32)],
    )
    assert (f.check, f.line, f.work_item) == ("race_global", 2, (1, 0, 0))
    f = fault_of(
        """__kernel void k(__global float* o) {
        const float v = o[get_global_id(0) / 2];
        barrier(CLK_GLOBAL_MEM_FENCE);
        o[get_global_id(0)] = v;
    }""",
        [np.zeros(16, np.float32)],
    )
    assert (f.check, f.line) == ("race_global", 4)  # group 1 reads what group 0 ... writes; groups don't sync


def test_no_race_across_a_barrier_and_for_atomics() -> None:
    src = """__kernel void k(__global int* o) {
        __local int t[8];
        t[get_local_id(0)] = get_local_id(0);
        barrier(CLK_LOCAL_MEM_FENCE);
        t[get_local_id(0)] = t[7 - get_local_id(0)];
        atomic_add(&o[0], 1);
    }"""
    o = np.zeros(16, np.int32)
    with pytest.raises(KernelFault) as info:
        run(src, [o], 16)
    assert info.value.check == "race_local" and info.value.line == 5
    o = np.zeros(16, np.int32)
    run(src.replace("t[get_local_id(0)] = t[7", "o[1 + get_global_id(0) % 15] += t[7"), [o], 8)
    assert o[0] == 8


def test_check_barrier_divergence_and_uninitialized_local() -> None:
    f = fault_of(
        """__kernel void k(__global float* o) {
        if (get_local_id(0) < 3)
            barrier(CLK_LOCAL_MEM_FENCE);
    }""",
        [np.zeros(16, np.float32)],
    )
    assert (f.check, f.line, f.work_item) == ("barrier_divergence", 3, (3, 0, 0))
    f = fault_of(
        """__kernel void k(__global float* o) {
        __local float t[8];
        if (get_local_id(0) != 5) t[get_local_id(0)] = 1.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        o[get_global_id(0)] = t[get_local_id(0)];
    }""",
        [np.zeros(16, np.float32)],
    )
    assert (f.check, f.line, f.work_item) == ("uninitialized_local", 5, (5, 0, 0))


def test_division_by_zero_is_a_finding_that_does_not_stop_the_kernel() -> None:
    """OpenCL C 1.2 6.3: an integer divided by zero is an unspecified value, not an error (PoCL 3.1 gives 9 / 0 =
    9, Oclgrind 21.10 0 and no report): noted with checks on, the lane's value 0, raised only when strict."""
    src = """__kernel void k(__global int* o) {
        const int i = get_global_id(0);
        o[i] = 100 / (i - 3) + 7 % (i & 4);
    }"""
    want = np.array([(100 // (i - 3) if i > 3 else -(100 // (3 - i)) if i < 3 else 0) for i in range(16)])
    want += np.array([7 % (i & 4) if i & 4 else 0 for i in range(16)])
    for checks in (True, False):
        o = np.zeros(16, np.int32)
        result = run(src, [o], 16, checks=checks)
        np.testing.assert_array_equal(o, want)
        assert [(f.check, f.line, f.work_item) for f in result.findings] == (
            [("division_by_zero", 3, (3, 0, 0))] if checks else []  # (the first at the line: one per line)
        )
    with pytest.raises(KernelFault) as info:
        run(src, [np.zeros(16, np.int32)], 16, strict=True)
    f = info.value
    assert (f.check, f.line, f.work_item, f.work_items) == ("division_by_zero", 3, (3, 0, 0), 1)
    assert "unspecified" in str(f)


def test_step_limit() -> None:
    src = """__kernel void k(__global uint* o) {
        uint v = 1u;
        while (v != 0u) {
            o[get_global_id(0)] = v;
        }
    }"""
    with pytest.raises(KernelTimeout) as info:
        run(src, [np.zeros(16, np.uint32)], 16, step_limit=500)
    assert info.value.check == "step_limit" and info.value.line == 3 and info.value.kernel == "k"


def test_counts() -> None:
    src = """__kernel void k(__global const float* a, __global float* c, __local float* t) {
        const int i = get_global_id(0);
        t[get_local_id(0)] = a[i] * 2.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (i < 12) c[i] = sqrt(t[get_local_id(0)]);
    }"""
    a = np.arange(16, dtype=np.float32)
    c = np.zeros(16, np.float32)
    r = run(src, [a, c, 32], 16)
    counts = r.counts
    assert counts["global_bytes_read"] == 64 and counts["global_bytes_written"] == 48
    assert counts["local_bytes_written"] == 64 and counts["local_bytes_read"] == 48
    assert counts["float32_ops"] == 16 and counts["special_ops"] == 12
    assert counts["barriers"] == 2 and counts["work_groups"] == 2
    assert counts["max_lane_steps"] == r.steps == 5
    np.testing.assert_allclose(c[:12], np.sqrt(a[:12] * 2))


def test_a_switch_counts_like_the_equivalent_if_else_chain() -> None:
    """A switch compares each lane with one case label after another until one matches, like ``if (v == 0) ...
    else if (v == 1) ...``: the same comparisons (int_ops) and, per label after the first, the same step as an
    ``else if``; its ``break`` statements are steps of their own (as in a loop)."""
    body = "o[i] = 10; BREAK case 1: o[i] = 20; BREAK case 2: o[i] = 30; BREAK default: o[i] = 40;"
    switch = "switch (v) { case 0: " + body.replace("BREAK", "break;") + " }"
    chain = (
        "if (v == 0) { o[i] = 10; } else if (v == 1) { o[i] = 20; } else if (v == 2) { o[i] = 30; } else { o[i] = 40; }"
    )
    src = """__kernel void k(__global const int* x, __global int* o) {
        const int i = get_global_id(0);
        const int v = x[i];
        STATEMENT
    }"""
    rng = np.random.default_rng()
    x = rng.integers(0, 5, 64).astype(np.int32)
    x[:4] = (0, 1, 2, 4)  # every case is taken (3 breaks run)
    o_switch, o_chain = np.zeros(64, np.int32), np.zeros(64, np.int32)
    r_switch = run(src.replace("STATEMENT", switch), [x, o_switch], 64, 64)
    r_chain = run(src.replace("STATEMENT", chain), [x, o_chain], 64, 64)
    np.testing.assert_array_equal(o_switch, np.choose(np.minimum(x, 3), [10, 20, 30, 40]))
    np.testing.assert_array_equal(o_switch, o_chain)
    assert r_switch.counts["int_ops"] == r_chain.counts["int_ops"]
    compared = np.minimum(x, 2) + 1  # labels compared per lane: 0 -> 1, 1 -> 2, >= 2 -> 3
    index_ops = 2 * 64  # x[i] and o[i]
    assert r_switch.counts["int_ops"] == index_ops + int(compared.sum())
    assert r_switch.steps == r_chain.steps + 3
    assert r_switch.counts["max_lane_steps"] == r_chain.counts["max_lane_steps"] + 1  # a lane runs one break


def test_write_through_a_cast_away_const_pointer_is_reported_even_unchecked() -> None:
    """Const buffers are read in place (no copy), so a write through a cast must never reach them."""
    src = """__kernel void k(__global const float* a) {
        __global float* w = (__global float*)a;
        w[get_global_id(0)] = 1.0f;
    }"""
    a = np.zeros(8, np.float32)
    for checks in (True, False):
        with pytest.raises(KernelFault) as info:
            run(src, [a], 8, checks=checks)
        assert (info.value.check, info.value.line, info.value.wia_code) == ("write_to_read_only", 3, "INVALID_MEMORY")
    assert not a.any()


def test_half_as_a_storage_type() -> None:
    """vload_half/vstore_half (OpenCL C 1.2, 6.12.7): halves in memory, float arithmetic, round to nearest even
    on the way back; they need no cl_khr_fp16."""
    src = """__kernel void k(__global const half* x, __global half* y, __global float* f) {
        const int i = get_global_id(0);
        const float v = vload_half(i, x);
        f[i] = v;
        vstore_half(v * 3.0f + 0.1f, i, y);
        if (i == 0) {
            float4 q = vload_half4(1, x);
            vstore_half4_rte(q * 2.0f, 1, y + 64);
        }
    }"""
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(64) * 100).astype(np.float16)
    y = np.zeros(72, np.float16)
    f = np.zeros(64, np.float32)
    program = compile_source(src, extensions=frozenset())
    run_kernel(program, "k", [a.view(np.uint8) for a in (x, y, f)], geo(64, 8))
    np.testing.assert_array_equal(f, x.astype(np.float32))
    np.testing.assert_array_equal(y[:64], (x.astype(np.float32) * np.float32(3) + np.float32(0.1)).astype(np.float16))
    np.testing.assert_array_equal(y[68:72], (x[4:8].astype(np.float32) * 2).astype(np.float16))


def test_pointers_to_private_scalars_and_vectors() -> None:
    src = """void bump(int* p, int by) { *p += by; }
    __kernel void k(__global int* out) {
        int v = get_global_id(0);
        int* p = &v;
        *p += 2;
        if (v % 2) bump(&v, 10);
        float4 q = (float4)(1.0f);
        float* f = (float*)&q;
        f[2] = 5.0f;
        out[get_global_id(0)] = v + (int)q.z;
    }"""
    o = np.zeros(8, np.int32)
    run(src, [o], 8)
    gid = np.arange(8)
    np.testing.assert_array_equal(o, gid + 2 + np.where((gid + 2) % 2, 10, 0) + 5)


GUARDS = {
    "i % 3 != 0": lambda i: i % 3 != 0,
    "i >= 5 && i < 40": lambda i: (i >= 5) & (i < 40),
    "i == 17": lambda i: i == 17,
    "i < 0": lambda i: i < 0,
    "1": lambda i: np.ones(i.shape, bool),
}


@pytest.mark.parametrize("guard", GUARDS)
def test_guarded_consecutive_accesses_touch_only_active_lanes(guard: str) -> None:
    """Consecutive loads and stores (copied as one run, not gathered) with holes and edges in the active lanes."""
    src = f"""__kernel void k(__global const float* a, __global float* c, const int n) {{
        const int i = get_global_id(0);
        if (i < n && ({guard})) c[i] = a[i] * 2.0f + a[n - 1 - i];
    }}"""
    rng = np.random.default_rng(11)
    a = rng.random(50).astype(np.float32)
    c = np.full(50, -7.0, np.float32)
    run(src, [a, c, 50], 64)
    active = GUARDS[guard](np.arange(50))
    np.testing.assert_array_equal(c, np.where(active, a * np.float32(2) + a[::-1], np.float32(-7)))


@pytest.mark.parametrize("past", [None, 3, 15])
def test_switched_off_lanes_between_active_ones_may_point_past_the_array(past: int | None) -> None:
    """A tree step in every group, ``if (l < s) t[l] += t[l + s];``: the lanes a branch switched off, between the
    active ones, point past the array, which is no finding (``Region._prepare`` looks at the active lanes' offsets);
    an active lane's read past it is (``past``: the local id whose read reaches past ``t``), named with its
    work-item and offset."""
    bad = "" if past is None else f" + (l == {past} && g == 1 ? 100 : 0)"
    src = f"""__kernel void k(__global const float* x, __global float* y) {{
        __local float t[16];
        const int l = get_local_id(0), g = get_group_id(0);
        t[l] = x[get_global_id(0)];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < 4)
            t[l] += t[l + 12{bad}];
        barrier(CLK_LOCAL_MEM_FENCE);
        y[get_global_id(0)] = t[l];
    }}"""
    x = np.random.default_rng(5).random(64).astype(np.float32)
    y = np.zeros(64, np.float32)
    if past is None or past >= 4:  # (a switched-off lane's index past the array: none of its business)
        run(src, [x, y], 64, 16)
        t = x.reshape(4, 16).copy()
        t[:, :4] += t[:, 12:]
        np.testing.assert_array_equal(y, t.reshape(-1))
        return
    f = fault_of(src, [x, y], 64, 16)
    assert (f.check, f.line) == ("out_of_bounds_local", 7)
    assert f"out-of-bounds read of 4 bytes at offset {4 * (past + 112)}" in str(f)
    assert "work-item (19, 0, 0) in group (1, 0, 0)" in str(f)


def test_vload3_and_vstore3_touch_three_packed_elements() -> None:
    """vload3/vstore3 (and the half forms) move 3 scalars, 12 bytes for floats: the last three elements of a buffer
    are in bounds although a float3 variable occupies 16 bytes."""
    src = """__kernel void k(__global const float* a, __global float* o, __global const half* h, __global half* ho) {
        const int i = get_global_id(0);
        vstore3(vload3(i, a) * 2.0f, i, o);
        vstore_half3(vload_half3(i, h) + 1.0f, i, ho);
    }"""
    a = np.arange(9, dtype=np.float32)
    o = np.zeros(9, np.float32)
    h = np.linspace(-2, 2, 9).astype(np.float16)
    ho = np.zeros(9, np.float16)
    result = run(src, [a, o, h, ho], 3, 3)
    np.testing.assert_array_equal(o, a * 2)
    np.testing.assert_array_equal(ho, (h.astype(np.float32) + 1).astype(np.float16))
    assert result.counts["global_bytes_read"] == 9 * 4 + 9 * 2
