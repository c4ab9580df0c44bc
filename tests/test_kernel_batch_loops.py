"""Counted loops that only accumulate, batched over their iterations (``wia_sim/kernels/batch_loops.py``).

A batch must change nothing but speed: every kernel here runs twice, with batching and without it (no loop
batched), and gives the same bits, the same counts for the timing model, the same step count, and, where it has a
bug, the same finding word for word. Each test also checks that the batched run did batch the loop it is about,
so none passes by never taking the path. Values are held to float64 NumPy references besides.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kernel_backends import assert_same_runs, private_loops_off, private_trips_ran, run_arrays, run_on_copies

import wia_hal as wia
from wia_sim.kernels import batch_loops
from wia_sim.kernels.lanes import launch_geometry
from wia_sim.kernels.spaces import KernelFault, KernelTimeout

EPS32 = float(np.finfo(np.float32).eps)


@pytest.fixture
def batched(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """Every ``batch_iterations`` outcome of the test, in order (True: a loop's iterations were batched)."""
    outcomes: list[bool] = []
    original = batch_loops.LoopBatcher.batch_iterations

    def recorded(self: Any, *args: Any, **options: Any) -> Any:
        outcome = original(self, *args, **options)
        outcomes.append(outcome is not None)
        return outcome

    monkeypatch.setattr(batch_loops.LoopBatcher, "batch_iterations", recorded)
    yield outcomes


@pytest.fixture
def widths(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The columns of every batch the test makes, in order (a sparse tail's: its own lanes')."""
    made: list[int] = []
    original = batch_loops._Batch.__init__

    def recorded(self: Any, *args: Any, **options: Any) -> None:
        original(self, *args, **options)
        made.append(self.n)

    monkeypatch.setattr(batch_loops._Batch, "__init__", recorded)
    yield made


def _run(
    source: str,
    arrays: list[np.ndarray],
    global_size: tuple[int, ...],
    local_size: tuple[int, ...],
    *scalars: np.generic,
    batch: bool = True,
    step_limit: int = 10_000_000,
    checks: bool = True,
) -> tuple[list[np.ndarray], Any]:
    """The kernel ``k`` run over copies of ``arrays`` (and ``scalars``): the arrays after it and its result (or
    the exception it raised). Without ``batch``, the interpreter's iterations alone: no loop is batched
    (``MAX_ITERATIONS`` of 0) nor run on its own arrays (``private_loops``, which runs what a batch leaves)."""
    dims = len(global_size)
    geometry = launch_geometry((*global_size, 1, 1)[:3], (*local_size, 1, 1)[:3], 1024, dims)
    saved = batch_loops.MAX_ITERATIONS
    batch_loops.MAX_ITERATIONS = saved if batch else 0
    try:
        with private_loops_off(not batch):
            return run_on_copies(source, arrays, geometry, scalars, step_limit=step_limit, checks=checks)
    finally:
        batch_loops.MAX_ITERATIONS = saved


def _same(source: str, arrays: list[np.ndarray], *launch: Any, **options: Any) -> tuple[list[np.ndarray], Any]:
    """Run batched and unbatched; both give the same bits, counts, steps and noted findings (or the same
    finding)."""
    batched = _run(source, arrays, *launch, **options)
    assert_same_runs(batched, _run(source, arrays, *launch, batch=False, **options))
    return batched


REDUCTIONS = """
__kernel void k(__global const float* a, __global const float* b, __global float* f, __global int* s,
                __global long* w, int n, int m) {
    int i = get_global_id(0);
    if (i >= n)
        return;
    float acc = 0.5f, prod = 1.0f, down = 0.0f;
    int count = 7;
    long wide = 0;
    for (int k = 0; k < m; ++k) {
        acc += a[i * m + k] * b[k] - (float)k * 0.25f;
        count += k * 3 - i;
        wide -= (long)k * (i + 2147483000);
        prod *= b[k] + 1.0f;
    }
    for (uint k = m; k > 0; k -= 2)
        down -= -a[i * m + k - 1];
    for (char c = 0; c < 5; c++)
        count *= 3;
    f[3 * i] = acc; f[3 * i + 1] = prod; f[3 * i + 2] = down;
    s[i] = count; w[i] = wide;
}
"""


@pytest.mark.parametrize(("lanes", "group"), [(256, 64), (5000, 100)])
def test_reductions_give_the_loops_bits_counts_and_steps(lanes: int, group: int, batched: list[bool]) -> None:
    """Float sums of products (C's order of rounding), int and long arithmetic that wraps, ``*=``, ``-=``, an
    unsigned counter counting down by 2 and a char counter, on a launch with a guard (the counter an array with
    one value in the active lanes) small and large (ids kept as coefficients)."""
    rng = np.random.default_rng()
    n, m = lanes - 7, 24
    a = rng.random(lanes * m, np.float32)
    b = rng.random(m, np.float32)
    arrays = [a, b, np.zeros(3 * lanes, np.float32), np.zeros(lanes, np.int32), np.zeros(lanes, np.int64)]
    (_, _, f, s, w), _ = _same(REDUCTIONS, arrays, (lanes,), (group,), np.int32(n), np.int32(m))
    assert batched.count(True) == 3  # the three loops, in the batched run
    a64, b64 = a[: n * m].astype(np.float64).reshape(n, m), b.astype(np.float64)
    ks = np.arange(m)
    np.testing.assert_allclose(f[0 : 3 * n : 3], 0.5 + a64 @ b64 - ks.sum() * 0.25, rtol=m * EPS32 * 4)
    np.testing.assert_allclose(f[1 : 3 * n : 3], np.prod(b64 + 1.0), rtol=m * EPS32 * 2)
    np.testing.assert_allclose(f[2 : 3 * n : 3], a64.sum(axis=1) - a64[:, ::2].sum(axis=1), rtol=m * EPS32 * 2)
    i = np.arange(n, dtype=np.int64)
    count = ((7 + (3 * ks.sum() - m * i)) * 3**5) % 2**32
    np.testing.assert_array_equal(s[:n].astype(np.int64) % 2**32, count)
    wide = -(ks.sum() * ((i + 2147483000 + 2**31) % 2**32 - 2**31))  # (i + 2147483000: an int, which wraps)
    np.testing.assert_array_equal(w[:n], wide)


MATMUL_TILED = """
#define TS 8
__kernel void k(__global const float* A, __global const float* B, __global float* C, int N) {
    int col = get_global_id(0), row = get_global_id(1), lc = get_local_id(0), lr = get_local_id(1);
    __local float As[TS][TS], Bs[TS][TS];
    float acc = 0.0f;
    for (int t = 0; t < N / TS; ++t) {
        As[lr][lc] = A[row * N + t * TS + lc];
        Bs[lr][lc] = B[(t * TS + lr) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < TS; ++j)
            acc += As[lr][j] * Bs[j][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float own = 0.0f;
    float w[TS];
    for (int j = 0; j < TS; ++j)
        w[j] = A[row * N + j] + (float)col;
    for (int j = 0; j < TS; ++j)
        own += w[j] * w[TS - 1 - j];
    C[row * N + col] = acc + own;
}
"""


@pytest.mark.parametrize("size", [32, 72])
def test_local_tiles_and_private_arrays_on_small_and_strided_launches(size: int, batched: list[bool]) -> None:
    """A tiled matrix product over ``__local`` tiles (read through strided views of memory on the 72x72 launch,
    whose ids are coefficients) and a private array filled in a batch, then read forwards and backwards."""
    rng = np.random.default_rng()
    a, b = rng.random((size, size), np.float32), rng.random((size, size), np.float32)
    (_, _, c), _ = _same(MATMUL_TILED, [a, b, np.zeros((size, size), np.float32)], (size, size), (8, 8), np.int32(size))
    assert batched.count(True) == size // 8 + 2
    a64 = a.astype(np.float64)
    w = a64[:, :8][:, None, :] + np.arange(size)[None, :, None]
    expected = a64 @ b.astype(np.float64) + (w * w[:, :, ::-1]).sum(axis=2)
    np.testing.assert_allclose(c, expected, rtol=size * EPS32 * 4)


STENCIL = """
__kernel void k(__global const float* img, __constant float* filt, __global float* out, __global int* taps,
                int w, int n) {
    int x = get_global_id(0);
    if (x >= n)
        return;
    float acc = 0.0f, mag = 0.0f, own = 0.0f;
    int count = 0;
    float priv[5];
    for (int j = 0; j < 5; j++)
        priv[j] = img[x] * j;
    for (int d = -2; d <= 2; ++d) {
        const int sx = clamp(x + d, 0, w - 1);
        float v = img[sx];
        acc += filt[d + 2] * v;
        mag += fabs(v - img[x]) + exp(-(float)(d * d));
        count += min(sx, 3) + (int)abs(d);
    }
    for (int d = 0; d < 5; d++) {
        int x = 4 - d;
        own += priv[x] * convert_float(x);
    }
    out[3 * x] = acc; out[3 * x + 1] = mag; out[3 * x + 2] = own;
    taps[x] = count;
}
"""


def test_declarations_built_ins_and_clamped_indices(batched: list[bool]) -> None:
    """A body that declares its index (``clamp``ed: read by gathering, not linear in the counter) and a value,
    calls built-ins (``fabs``, ``exp``, ``min``, ``abs``, ``convert_float``: the executor's own functions, on
    every iteration at once) and shadows an outer variable; the loop that fills a private array is batched too
    (a store to memory the loop does not read)."""
    rng = np.random.default_rng()
    n, w = 250, 256
    img = rng.random(w, np.float32)
    filt = rng.random(5, np.float32)
    arrays = [img, filt, np.zeros(3 * w, np.float32), np.zeros(w, np.int32)]
    (_, _, out, taps), _ = _same(STENCIL, arrays, (w,), (64,), np.int32(w), np.int32(n))
    assert batched.count(True) == 3
    x = np.arange(n)
    d = np.arange(-2, 3)
    sx = np.clip(x[:, None] + d, 0, w - 1)
    v = img.astype(np.float64)[sx]
    np.testing.assert_allclose(out[0 : 3 * n : 3], v @ filt.astype(np.float64), rtol=8 * EPS32)
    mag = (np.abs(v - img[x, None]) + np.exp(-(d * d))).sum(axis=1)
    np.testing.assert_allclose(out[1 : 3 * n : 3], mag, rtol=8 * EPS32)
    np.testing.assert_allclose(out[2 : 3 * n : 3], img[:n].astype(np.float64) * 30.0, rtol=8 * EPS32)
    np.testing.assert_array_equal(taps[:n], (np.minimum(sx, 3) + np.abs(d)).sum(axis=1))


EXTREMA = """
__kernel void k(__global const float* x, __global const int* v, __global float* f, __global int* m, int n) {
    int i = get_global_id(0);
    float hi = -INFINITY, lo = x[i];
    int top = -2147483647, least = 2147483647;
    for (int k = i % 3; k < n; k += 2) {
        hi = fmax(hi, x[k] * (float)(i - 10));
        lo = fmin(x[k] - 0.5f, lo);
        top = max(top, v[k] - i);
        least = min(v[(k * 7 + i) % n], least);
    }
    f[2 * i] = hi; f[2 * i + 1] = lo;
    m[2 * i] = top; m[2 * i + 1] = least;
}
"""


def test_running_extrema_keep_the_built_ins_rules(batched: list[bool]) -> None:
    """``v = fmax(v, e)``, ``fmin(e, v)``, ``max``, ``min``, over iterations that differ by work-item: folded in
    order with the executor's own built-ins (NaN, the signs of zeros), the same bits batched or not. ``x`` holds
    NaNs and zeros of both signs."""
    rng = np.random.default_rng()
    n = 40
    x = rng.random(64, np.float32) - 0.5
    x[rng.integers(0, n, 4)] = np.nan
    x[rng.integers(0, n, 4)] = -0.0
    x[rng.integers(0, n, 4)] = 0.0
    v = rng.integers(-1000, 1000, 64).astype(np.int32)
    arrays = [x, v, np.zeros(128, np.float32), np.zeros(128, np.int32)]
    (_, _, f, m), _ = _same(EXTREMA, arrays, (64,), (64,), np.int32(n))
    assert batched.count(True) == 1
    i = np.arange(64)
    with np.errstate(invalid="ignore"):
        hi = [np.fmax.reduce(x[k % 3 : n : 2].astype(np.float64) * (k - 10)) for k in i]
        lo = [np.fmin.reduce(np.append(x[k % 3 : n : 2] - np.float32(0.5), x[k])) for k in i]
    np.testing.assert_array_equal(f[0::2], np.maximum(np.float32(-np.inf), np.array(hi, np.float32)))
    np.testing.assert_array_equal(f[1::2], np.array(lo, np.float32))
    np.testing.assert_array_equal(m[0::2], [max(v[k % 3 : n : 2] - k) for k in i])
    np.testing.assert_array_equal(m[1::2], [min(v[(np.arange(k % 3, n, 2) * 7 + k) % n]) for k in i])


RAGGED = """
__kernel void k(__global const int* row_ptr, __global const int* col, __global const float* val,
                __global const float* x, __global float* y, __global float* part, __global int* seen, int n) {
    int i = get_global_id(0);
    if (i >= n)
        return;
    float sum = -0.0f;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
        sum += val[k] * x[col[k]];
    y[i] = sum;
    int lid = get_local_id(0), size = get_local_size(0);
    float s = 0.0f, p = 1.0f;
    int c = 0;
    for (int j = lid; j < n; j += size) {
        s -= x[j];
        p *= 1.0f + x[j] * 0.01f;
        c += j;
    }
    part[2 * i] = s;
    part[2 * i + 1] = p;
    seen[i] = c;
}
"""


def _power_law(rng: np.random.Generator, n: int = 256) -> np.ndarray:
    """``n`` row lengths falling off as a power law (most short, a few long: 1 to 60), the first three 60, 0 and 1."""
    lengths = np.minimum((rng.pareto(1.5, n) * 3 + 1).astype(np.int64), 60)
    lengths[:3] = (60, 0, 1)
    return lengths


def _sparse(rng: np.random.Generator, lengths: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """``RAGGED``'s arrays for a random sparse matrix whose rows hold ``lengths`` entries (CSR) and a random vector,
    and their product in float64."""
    n = lengths.size
    row_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    col = rng.integers(0, n, row_ptr[-1]).astype(np.int32)
    val = (rng.random(row_ptr[-1], np.float32) - 0.5).astype(np.float32)
    x = rng.random(n, np.float32)
    dense = np.zeros((n, n))
    np.add.at(dense, (np.repeat(np.arange(n), lengths), col), val.astype(np.float64))
    arrays = [row_ptr, col, val, x, np.zeros(256, np.float32), np.zeros(512, np.float32), np.zeros(256, np.int32)]
    return arrays, dense @ x.astype(np.float64)


def test_loops_whose_work_items_run_different_iterations(batched: list[bool]) -> None:
    """A sparse matrix-vector product (CSR: each row's own bounds, empty rows among them, a gathered ``x[col[k]]``)
    and a loop strided by the work-group's size from each work-item's own start: the iterations run as rows of
    lanes, a lane adding nothing where it has stopped (``-0.0`` stays ``-0.0`` in an empty row)."""
    rng = np.random.default_rng()
    n = 250
    lengths = rng.integers(0, 9, n)
    lengths[rng.integers(0, n, 20)] = 0
    arrays, product = _sparse(rng, lengths)
    (_, _, _, x, y, part, seen), _ = _same(RAGGED, arrays, (256,), (64,), np.int32(n))
    assert batched.count(True) == 2
    np.testing.assert_allclose(y[:n], product, atol=16 * EPS32)
    assert all(np.signbit(y[i]) for i in range(n) if lengths[i] == 0)
    lid = np.arange(n) % 64
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(part[0 : 2 * n : 2], [-x64[j::64].sum() for j in lid], rtol=8 * EPS32)
    np.testing.assert_allclose(part[1 : 2 * n : 2], [np.prod(1 + x64[j::64] * 0.01) for j in lid], rtol=8 * EPS32)
    np.testing.assert_array_equal(seen[:n], [np.arange(j, n, 64).sum() for j in lid])


DIVISION = """
__kernel void k(__global const float* a, __global float* out) {
    int i = get_global_id(0);
    int acc = 0, matches = 0;
    for (int k = 0; k < 8; k++) {
        matches += (a[i] > 0.5f) == (k & 1);
        acc += 100 / (k - 6);
    }
    out[i] = acc + matches;
}
"""

PRIVATE_OUT_OF_BOUNDS = """
__kernel void k(__global const float* a, __global float* out) {
    float priv[2][4];
    for (int j = 0; j < 8; j++)
        priv[j / 4][j % 4] = a[get_global_id(0)] + j;
    float s = 0.0f;
    for (int d = 0; d < 4; d++) {
        int j = d * 2;
        s += priv[0][j];
    }
    out[get_global_id(0)] = s;
}
"""

OUT_OF_BOUNDS = """
__kernel void k(__global const float* a, __global float* out, int m) {
    int i = get_global_id(0);
    float acc = 0.0f;
    for (int k = 0; k <= m; ++k)
        acc += a[i * m + k];
    out[i] = acc;
}
"""

UNINITIALIZED = """
__kernel void k(__global const float* a, __global float* out) {
    __local float t[64];
    int l = get_local_id(0);
    if (l != 37)
        t[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = 0.0f;
    for (int k = 1; k < 64; k += 4)
        acc += t[k] * 2.0f;
    out[get_global_id(0)] = acc;
}
"""

RACE = """
__kernel void k(__global const float* a, __global float* out) {
    __local float t[64];
    int l = get_local_id(0);
    t[l] = a[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 63)
        t[50] = 1.0f;
    float acc = 0.0f;
    for (int k = 0; k < 64; k++)
        acc += t[k];
    out[get_global_id(0)] = acc;
}
"""


@pytest.mark.parametrize("tails", [True, False], ids=["tail batched", "tail refused"])
def test_rows_that_thin_out_end_the_batch(widths: list[int], monkeypatch: pytest.MonkeyPatch, tails: bool) -> None:
    """Rows of a sparse matrix whose lengths fall off as a power law (most short, a few long): the batch ends at
    the first iteration fewer than a quarter of the lanes run (``SPARSE``), the lanes still in the loop go on as a
    batch of their own on their columns alone, and so on (or, where such a batch is refused, the loop's later
    iterations run on the lanes still in it: ``private_loops``); the same bits, counts and steps as the
    interpreter's iterations."""
    original = batch_loops.LoopBatcher.batch_iterations

    def tail(self: Any, *args: Any, **options: Any) -> Any:
        return original(self, *args, **options) if tails or not options.get("tail") else None

    monkeypatch.setattr(batch_loops.LoopBatcher, "batch_iterations", tail)
    rng = np.random.default_rng(7)
    n = 256
    arrays, product = _sparse(rng, _power_law(rng, n))
    with private_trips_ran() as ran:
        (_, _, _, _, y, _, _), _ = _same(RAGGED, arrays, (256,), (64,), np.int32(n))
    assert widths and widths[0] == n, widths
    if tails:  # (a tail's columns: the lanes that ran the last iteration of the batch before, fewer each time)
        tail_widths = [w for w in widths if w < n]
        assert tail_widths and tail_widths[0] < n // 2 and tail_widths == sorted(tail_widths, reverse=True), widths
        assert sum(ran) < 20, ran
    else:
        assert all(w == n for w in widths) and sum(ran) > 20, (widths, ran)
    np.testing.assert_allclose(y[:n], product, atol=64 * EPS32)


TAIL_FOLDS = """
__kernel void k(__global const int* row_ptr, __global const int* col, __global const float* val,
                __global const float* x, __global float* y, __global int* z) {
    int i = get_global_id(0);
    float m = -INFINITY, p = 1.0f;
    int c = -1;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        const int j = col[k];
        m = fmax(m, val[k] * x[j]);
        c = max(c, j);
        p *= 1.0f + val[k] * 0.01f;
    }
    y[i] = m + p;
    z[i] = c;
}
"""


def test_running_extrema_and_products_in_a_sparse_tail(widths: list[int]) -> None:
    """``fmax``, ``max`` and ``*=`` over power-law rows: the tails' batches fold them on their own columns, bit for
    bit as the interpreter's iterations (an empty row keeps -inf, -1 and 1)."""
    rng = np.random.default_rng()
    n = 256
    lengths = _power_law(rng, n)
    row_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    col = rng.integers(0, n, row_ptr[-1]).astype(np.int32)
    val = (rng.random(row_ptr[-1], np.float32) - 0.5).astype(np.float32)
    arrays = [row_ptr, col, val, rng.random(n, np.float32), np.zeros(n, np.float32), np.zeros(n, np.int32)]
    (*_, y, z), result = _same(TAIL_FOLDS, arrays, (n,), (64,))
    assert not isinstance(result, Exception), result
    assert widths[0] == n and any(w < n for w in widths), widths
    assert y[1] == -np.inf and z[1] == -1 and z[0] == col[:60].max()


def test_a_fault_in_a_sparse_tail_is_reported_as_without_batching(widths: list[int]) -> None:
    """The longest row gathers ``x`` past its end at its 51st entry, far into the tail the first batch leaves: the
    tail's batch sees the read out of bounds, changes nothing and gives the loop back; the finding names the same
    line, work-item and offset as the interpreter's iterations."""
    rng = np.random.default_rng()
    n = 256
    arrays, _ = _sparse(rng, _power_law(rng, n))
    arrays[1][50] = n + 3  # (row 0's entries start at 0)
    _, result = _same(RAGGED, arrays, (256,), (64,), np.int32(n))
    assert isinstance(result, KernelFault) and "out-of-bounds read" in str(result), result
    assert "work-item 0 " in str(result) or "work-item (0" in str(result), result
    assert any(w < n for w in widths), widths


TAIL_RACE = """
__kernel void k(__global const int* row_ptr, __global const int* col, __global float* x, __global float* y) {
    int i = get_global_id(0);
    float sum = 0.0f;
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
        sum += x[col[k]];
    y[i] = sum;
    if (i == 5)
        x[7] = 1.0f;
}
"""


def test_a_race_with_a_read_in_a_sparse_tail_names_its_work_item() -> None:
    """Work-item 200's long row reads ``x[7]`` at its 51st entry, in the tail's batch (its own column among a few),
    and work-item 5, of another work-group, writes it: the race names work-item 200 and the line of its read, as
    the interpreter's iterations do."""
    rng = np.random.default_rng()
    n = 256
    lengths = np.minimum((rng.pareto(1.5, n) * 3 + 1).astype(np.int64), 40)
    lengths[200] = 60
    row_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    col = rng.integers(8, n, row_ptr[-1]).astype(np.int32)  # (no other read of x[7])
    col[row_ptr[200] + 50] = 7
    arrays = [row_ptr, col, rng.random(n, np.float32), np.zeros(n, np.float32)]
    _, result = _same(TAIL_RACE, arrays, (n,), (64,))
    assert isinstance(result, KernelFault) and "race" in str(result), result
    assert "200" in str(result) and "line 6" in str(result), result


@pytest.mark.parametrize(
    ("source", "finding"),
    [
        (OUT_OF_BOUNDS, "out-of-bounds read"),
        (UNINITIALIZED, "read of uninitialized __local"),
        (RACE, "data race"),
        (PRIVATE_OUT_OF_BOUNDS, "out-of-bounds"),
        (DIVISION, "integer division by zero"),
    ],
)
def test_a_fault_at_a_later_iteration_is_reported_as_without_batching(
    source: str, finding: str, batched: list[bool]
) -> None:
    """The batch sees the out-of-bounds read at the last iteration (of the last work-item only), the uninitialized
    element at iteration 10, the race with another work-item's write at iteration 51 and the division by zero at
    iteration 6, and gives the loop back to run iteration by iteration: the finding names the same line,
    work-item, offset and count. The private one is an index past its row (``priv[0][6]`` of ``float
    priv[2][4]``), inside the array's memory (a lower-severity finding, noted): the batch holds a declared index to
    the row's bounds as the executor does."""
    a = np.random.default_rng().random(128 * 16, np.float32)
    arrays = [a, np.zeros(128, np.float32)]
    _, result = _same(source, arrays, (128,), (64,), *([np.int32(16)] if source is OUT_OF_BOUNDS else []))
    if source in (DIVISION, PRIVATE_OUT_OF_BOUNDS):  # (noted, the kernel run to its end: a lower-severity finding)
        (result,) = result.findings
    assert isinstance(result, KernelFault) and finding in str(result)
    assert False in batched


def test_the_step_limit_is_reached_at_the_same_step(batched: list[bool]) -> None:
    """A loop the step limit cuts short is not batched past it: the timeout names the loop, as without batching."""
    source = REDUCTIONS
    rng = np.random.default_rng()
    arrays = [rng.random(64 * 24, np.float32), rng.random(24, np.float32)]
    arrays += [np.zeros(3 * 64, np.float32), np.zeros(64, np.int32), np.zeros(64, np.int64)]
    _, result = _same(source, arrays, (64,), (64,), np.int32(64), np.int32(24), step_limit=30)
    assert isinstance(result, KernelTimeout)
    _, result = _same(source, arrays, (64,), (64,), np.int32(64), np.int32(24), step_limit=1000)
    assert not isinstance(result, Exception) and True in batched


_TYPES = {"int": np.int32, "uint": np.uint32, "long": np.int64, "float": np.float32}


@st.composite
def _loops(draw: st.DrawFn) -> tuple[str, list[str], int]:
    """A kernel with one random counted loop of accumulations: the counter's type, start, comparison, bound and
    step; one to three accumulators of random types updated with ``+=``, ``-=``, ``*=`` or a running ``fmax``,
    ``fmin``, ``max`` or ``min`` by expressions of the
    counter, the work-item, constants, casts, comparisons, shifts, bitwise operators, divisions (by zero in one
    iteration too) and reads of ``a`` (in bounds, or past them in the last iterations of
    the last work-items) and of a declared index, and a store to ``w`` or none; the accumulators' types and the
    launch's size."""
    counter_type = draw(st.sampled_from(["int", "uint", "long", "char", "short"]))
    step = draw(st.sampled_from([1, 2, 3, -1, -2]))
    trips = draw(st.integers(0, 16))
    start = draw(st.integers(0, 20)) if step > 0 else draw(st.integers(trips * -step, trips * -step + 8))
    end = start + step * trips
    op = ("<" if draw(st.booleans()) else "!=") if step > 0 else (">" if draw(st.booleans()) else ">=")
    if op == ">=":
        end -= step  # (the last value taken is the one before end)
    if op == "!=" and step != 1:
        op = "<"
    # each work-item its own start and bound (``op`` stays a test every lane ends), or a stride in a variable
    start_text = f"{start} + i % 3" if op == "<" and draw(st.booleans()) else str(start)
    end_text = f"{end} + i % 4" if op == "<" and draw(st.booleans()) else str(end)  # (no unsigned wrap: it ends)
    stride = f"(int)({step})" if draw(st.booleans()) else str(step)
    terms = [
        "k",
        "i",
        "(float)k * 0.5f",
        "a[i + k]",
        "a[(i * 3 + k) % 64]",
        "a[i * 2 + k]",
        "(long)k * 2000000000",
        "(int)a[k] * 3",
        "j * 2",
        "a[j]",
        "(a[k % 64] > 2.0f) + (k != 4)",
        "(int)a[k] / (k - 5) + k % 3",
        "(i >> (k & 7)) ^ ~k | !k",
        "a[k] / (float)(i + 1)",
    ]
    bodies = []
    declared = draw(st.booleans())
    for v in range(draw(st.integers(1, 3))):
        t = draw(st.sampled_from(sorted(_TYPES)))
        e = draw(st.sampled_from(terms))
        if not declared:
            e = e.replace("j", "k")
        e2 = draw(st.sampled_from(terms))
        if not declared:
            e2 = e2.replace("j", "k")
        combine = draw(st.sampled_from(["+", "-", "*"]))
        opname = draw(st.sampled_from(["+=", "-=", "*=", "="]))
        value = f"({t})({e}) {combine} ({t})({e2})"
        if opname == "=":  # a running extremum, the variable first or second
            fn = draw(st.sampled_from(["fmax", "fmin"] if t == "float" else ["max", "min"]))
            value = f"{fn}(v{v}, {value})" if draw(st.booleans()) else f"{fn}({value}, v{v})"
        bodies.append((t, f"v{v}", opname, value))
    decl = f"        const int j = clamp((int)k + i, 0, {draw(st.sampled_from([40, 200]))});\n" if declared else ""
    init = "".join(f"    {t} {name} = ({t})(i + 1);\n" for t, name, _, _ in bodies)
    body = decl + "".join(f"        {name} {opname} {e};\n" for _, name, opname, e in bodies)
    # and a store to ``w`` (4096 ints): one element per iteration and work-item, some past the end, one element for
    # all (a uniform write, or a race), or elements shared between work-items (races)
    where = draw(st.sampled_from(["", "i * 32 + (k & 31)", "(i * 40 + k) & 4095", "i * 64 + k", "3", "i / 2"]))
    if where:
        body += f"        w[{where}] = (int)({draw(st.sampled_from(terms)).replace('j', 'k')});\n"
    stores = "".join(f"    out{n}[i] = {name};\n" for n, (_, name, _, _) in enumerate(bodies))
    params = ", __global int* w" + "".join(f", __global {t}* out{n}" for n, (t, _, _, _) in enumerate(bodies))
    source = (
        f"__kernel void k(__global const float* a{params}) {{\n    int i = get_global_id(0);\n{init}"
        f"    for (int r = 0; r < {draw(st.sampled_from([1, 3]))}; r++)\n"  # (a second run: batched from its first)
        f"    for ({counter_type} k = {start_text}; k {op} {end_text}; k += {stride}) {{\n{body}    }}\n{stores}}}\n"
    )
    return source, [t for t, _, _, _ in bodies], draw(st.sampled_from([64, 128]))


@settings(max_examples=60, deadline=None)
@given(_loops(), st.booleans())
def test_random_loops_give_the_same_results_batched_or_not(loop: tuple[str, list[str], int], checks: bool) -> None:
    """Random counted loops (counters of five types stepping up or down by a constant or a variable, ``<``,
    ``!=``, ``>``, ``>=``, a start and a bound the same in every work-item or not; int, uint, long and float
    accumulators; reads in and out of bounds, a clamped declared index; a store or none, of one element per
    iteration and work-item or of elements several store, in bounds or not), run once or three times (then batched
    from their first iteration, with the counts of one from the first run), with checks on or off: batched or
    not, the same bits, counts and steps, or the same finding."""
    source, types, lanes = loop
    a = np.random.default_rng().random(256, np.float32) * 4
    w = np.zeros(4096, np.int32)
    _same(source, [a, w] + [np.zeros(lanes, _TYPES[t]) for t in types], (lanes,), (64,), checks=checks)


ONE_SUM = """
__kernel void k(__global const float* a, __global float* o, const int n) {
    float s = 0.0f;
    for (int i = 0; i < n; i++)
        s += a[i];
    o[get_global_id(0)] = s;
}
"""


@pytest.mark.parametrize("lanes", [1, 2])
def test_a_float_sum_of_one_work_item_keeps_cs_order(device_ctx: wia.Context, lanes: int) -> None:
    """A launch of one work-item batches a loop over a column of one lane, which NumPy would reduce pairwise (a
    contiguous axis): the sum must still be left to right in float (found by a sweep of SHOC's reduceNoLocal)."""
    a = np.random.default_rng(16).random(257).astype(np.float32)
    (_, o) = run_arrays(device_ctx, ONE_SUM, "k", [a, np.zeros(lanes, np.float32)], lanes, lanes, np.int32(a.size))
    want = np.float32(0.0)
    for x in a:
        want = np.float32(want + x)
    np.testing.assert_array_equal(o, np.full(lanes, want, np.float32))


ATOMIC_UPDATES = """
__kernel void k(__global const uchar* data, __global uint* bins, __global int* low, __global long* wide, int n) {
    __local uint local_bins[64];
    int lid = get_local_id(0);
    local_bins[lid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&local_bins[data[i] >> 2]);
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        const int d = (int)data[i] - 128;
        atom_add(&bins[data[i] & 15], (uint)(d * d));
    }
    for (int i = lid; i < n; i += 7)
        atomic_min(&low[(i + get_group_id(0)) % 16], (int)data[i] * 3 - 300 + i);
    for (uint r = 0; r < 40; r++)
        atom_xor(&wide[lid % 8], (long)data[r] << (r % 60));
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&bins[16 + lid], local_bins[lid]);
}
"""


@pytest.mark.parametrize("checks", [True, False])
def test_atomic_updates_in_a_loop_give_the_loops_values_counts_and_steps(checks: bool, batched: list[bool]) -> None:
    """A grid-stride loop of ``atomic_inc(&local_bins[data[i] >> 2])`` (a histogram), of ``atom_add`` to
    ``__global`` bins with a declared value, of ``atomic_min`` and of a 64-bit ``atom_xor``: each batched (its
    updates applied at once after the race tracker saw them as one by one), the same bins, counts and steps as
    iteration by iteration."""
    rng = np.random.default_rng()
    n = 3000
    data = np.minimum(rng.exponential(60.0, n), 255).astype(np.uint8)
    bins = rng.integers(0, 1000, 16 + 128).astype(np.uint32)
    low = rng.integers(-100, 100, 16).astype(np.int32)
    wide = rng.integers(-(2**62), 2**62, 8).astype(np.int64)
    (_, got_bins, got_low, got_wide), _ = _same(
        ATOMIC_UPDATES, [data, bins, low, wide], (128,), (64,), np.int32(n), checks=checks
    )
    assert batched.count(True) == 4  # the four loops, in the batched run
    expected = bins.astype(np.int64)
    np.add.at(expected, data & 15, (data.astype(np.int64) - 128) ** 2)
    expected[16:80] += np.bincount(data >> 2, minlength=64)  # (both groups' local bins, added to one range)
    assert got_bins.tolist() == (expected % 2**32).tolist()
    expected_low = low.copy()
    for g in range(2):
        for i in range(n):
            expected_low[(i + g) % 16] = min(expected_low[(i + g) % 16], int(data[i]) * 3 - 300 + i)
    assert got_low.tolist() == expected_low.tolist()
    expected_wide = [int(w) for w in wide]
    for lane in range(128):
        for r in range(40):
            expected_wide[lane % 64 % 8] ^= (int(data[r]) << (r % 60)) & (2**64 - 1)
    assert got_wide.tolist() == [w - (w >> 63 << 64) for w in (w & (2**64 - 1) for w in expected_wide)]


ATOMIC_READ_BACK = """
__kernel void k(__global uint* bins, __global uint* seen, int n) {
    int i = get_global_id(0);
    uint s = 0;
    for (int k = 0; k < n; k++) {
        s += bins[(i + k) % 16];
        atomic_inc(&bins[(i * 3 + k) % 16]);
    }
    seen[i] = s;
}
"""


def test_an_atomic_on_memory_the_loop_reads_is_not_batched(batched: list[bool]) -> None:
    """A loop that reads the memory its atomic updates would see other values batched: it runs iteration by
    iteration (the race of the plain reads with other work-items' atomics is the finding, as without batching)."""
    bins = np.zeros(16, np.uint32)
    _, result = _same(ATOMIC_READ_BACK, [bins, np.zeros(64, np.uint32)], (64,), (64,), np.int32(12))
    assert isinstance(result, KernelFault) and "data race" in str(result)
    assert True not in batched
    _, result = _same(ATOMIC_READ_BACK, [bins, np.zeros(1, np.uint32)], (1,), (1,), np.int32(12), checks=False)
    assert True not in batched


ATOMIC_OUT_OF_BOUNDS = """
__kernel void k(__global const int* idx, __global int* bins, int n) {
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_add(&bins[idx[i]], 2);
}
"""


def test_an_atomic_out_of_bounds_at_a_later_iteration_is_reported_as_without_batching(batched: list[bool]) -> None:
    """The batch sees the update past the bins at a later iteration and gives the loop back: the finding names
    the same work-item and offset, and the bins hold what the iterations before it added (``_same``)."""
    idx = np.random.default_rng().integers(0, 32, 640).astype(np.int32)
    idx[600] = 40
    _, result = _same(ATOMIC_OUT_OF_BOUNDS, [idx, np.zeros(32, np.int32)], (64,), (64,), np.int32(640))
    assert isinstance(result, KernelFault) and "out-of-bounds" in str(result)
    assert False in batched and True not in batched


ATOMIC_RACE = """
__kernel void k(__global const int* idx, __global int* bins, int n) {
    if (get_global_id(0) == 70)
        bins[5] = 1;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_add(&bins[idx[i]], 2);
}
"""


def test_an_atomic_racing_with_a_plain_write_is_reported_as_without_batching(batched: list[bool]) -> None:
    """A plain store of another work-group to a bin the batched atomics update at a later iteration: the data race
    (an atomic and a plain access in one barrier interval), word for word as iteration by iteration."""
    idx = np.random.default_rng().integers(6, 32, 640).astype(np.int32)
    idx[300] = 5
    _, result = _same(ATOMIC_RACE, [idx, np.zeros(32, np.int32)], (128,), (64,), np.int32(640))
    assert isinstance(result, KernelFault) and "data race" in str(result)
    assert False in batched


MAP_LOOPS = """
__kernel void k(__global const float* x, __global float* y, __global int* z, __global float* w, int cols) {
    __local float t[256];
    const int row = get_group_id(0), lid = get_local_id(0), L = get_local_size(0);
    __global const float* xr = x + row * cols;
    float s = 0.0f;
    for (int j = lid; j < cols; j += L) {
        const float d = xr[j] * 0.5f - 1.0f;
        y[row * cols + j] = exp(d) / (1.0f + d * d);
        s += d;
    }
    for (int j = lid; j < 256; j += L)
        t[j] = (float)j * s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = get_global_id(0); j < 3 * cols; j += get_global_size(0))
        z[j] = (int)(x[j] * 100.0f) >> 2;
    w[get_global_id(0)] = t[(lid * 7) & 255];
}
"""


@pytest.mark.parametrize("checks", [True, False])
def test_loops_that_store_give_the_loops_values_counts_and_steps(checks: bool, batched: list[bool]) -> None:
    """A row loop storing one element per iteration (softmax's last loop), a loop filling ``__local`` memory and a
    grid-stride loop storing ints: each batched (the stores made at once after the race tracker saw them as
    one by one), the same memory, counts and steps as iteration by iteration."""
    rng = np.random.default_rng()
    cols, rows = 300, 4
    x = rng.standard_normal(rows * cols).astype(np.float32)
    outputs = [np.zeros(rows * cols, np.float32), np.zeros(3 * cols, np.int32), np.zeros(rows * 64, np.float32)]
    (_, y, z, w), _ = _same(MAP_LOOPS, [x, *outputs], (rows * 64,), (64,), np.int32(cols), checks=checks)
    assert batched.count(True) == 3
    d = x * np.float32(0.5) - np.float32(1)
    np.testing.assert_allclose(y, np.exp(d.astype(np.float64)) / (1 + d.astype(np.float64) ** 2), rtol=1e-5)
    assert z.tolist() == ((x[: 3 * cols] * np.float32(100)).astype(np.int32) >> 2).tolist()
    assert np.isfinite(w).all()


STORE_TWICE = """
__kernel void k(__global const int* idx, __global int* out, int n) {
    if (get_global_id(0) == 70)
        out[5] = 7;
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        out[idx[i]] = IDX_VALUE;
}
"""


@pytest.mark.parametrize(
    ("value", "finding"),
    [("i", "data race"), ("7", "uniform write"), ("idx[i] * 0 + 3", None)],
)
def test_stores_that_meet_are_reported_as_without_batching(
    value: str, finding: str | None, batched: list[bool]
) -> None:
    """Two work-items storing to one element in the loop, or one storing where another work-item stored before
    the loop: the race (other bits) or the uniform write (the same bits), word for word as iteration by
    iteration; a store twice to one element (here by one work-item's iterations only, of one value) is not batched
    (the order of the stores would decide the value)."""
    n = 640
    idx = np.random.default_rng().permutation(n).astype(np.int32) + 10
    if finding is None:  # (element 3: stored by the iterations of one work-item, lane 3)
        idx[3::128] = 3
    else:
        idx[600] = 5  # (the 5th iteration of work-item 88, of another work-group than work-item 70)
    source = STORE_TWICE.replace("IDX_VALUE", value)
    (_, out), result = _same(source, [idx, np.zeros(n + 10, np.int32)], (128,), (64,), np.int32(n))
    if finding == "data race":  # (found by the batch, which gives the loop back: found again, one by one)
        assert isinstance(result, KernelFault) and finding in str(result)
        assert True not in batched
    elif finding == "uniform write":  # (noted by the batch, which goes on)
        assert [f.check for f in result.findings] == ["uniform_write"]
        assert batched.count(True) == 1
    else:
        assert out[3] == 3 and True not in batched


IN_PLACE = """
__kernel void k(__global float* y, __global const float* x, int n) {
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        y[i] = 2.0f * x[i] + y[i];
}
"""


def test_a_loop_that_reads_what_it_stores_is_not_batched(batched: list[bool]) -> None:
    """An in-place update reads the memory it stores to (a batch would read it before any store): iteration by
    iteration, the same values."""
    rng = np.random.default_rng()
    y, x = rng.random(1000, np.float32), rng.random(1000, np.float32)
    (got, _), _ = _same(IN_PLACE, [y, x], (128,), (64,), np.int32(1000))
    assert got.tolist() == (np.float32(2) * x + y).tolist()
    assert True not in batched


def test_a_store_out_of_bounds_at_a_later_iteration_is_reported_as_without_batching(batched: list[bool]) -> None:
    """The batch sees the store past the buffer at a later iteration and gives the loop back: the same finding,
    and the stores before it made."""
    idx = np.random.default_rng().permutation(640).astype(np.int32)
    idx[600] = 700
    source = STORE_TWICE.replace("IDX_VALUE", "i")
    _, result = _same(source, [idx, np.zeros(650, np.int32)], (64,), (64,), np.int32(640))
    assert isinstance(result, KernelFault) and "out-of-bounds" in str(result)
    assert False in batched and True not in batched


READ_ONCE = """
__kernel void k(__global float* y, __global const float* x, int n) {
    float s = 0.0f;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        s += x[0];
        y[i] = y[0] * 2.0f + (float)i;
    }
    y[n + get_global_id(0)] = s;
}
"""


def test_a_store_to_memory_read_the_same_in_every_iteration_is_not_batched(batched: list[bool]) -> None:
    """``y[0]``, the same in every iteration, is read once by a batch; iteration by iteration, work-item 0's first
    store changes it: the loop is not batched (``x[0]``, of memory no iteration stores to, is no reason)."""
    rng = np.random.default_rng()
    y, x = rng.random(200, np.float32), rng.random(4, np.float32)
    _same(READ_ONCE, [y, x], (1,), (1,), np.int32(100))
    assert True not in batched


PRIVATE_FILL = """
__kernel void k(__global const float* x, __global float* y, int n, int m) {
    int i = get_global_id(0);
    float p[8];
    for (int j = 0; j < m; j++)
        p[j] = x[(i + j) % n] * (float)(j + 1);
    float s = 0.0f;
    for (int j = 0; j < 8; j++)
        s += p[j] * (float)(j & 3);
    y[i] = s;
}
"""


@pytest.mark.parametrize("checks", [True, False])
def test_a_loop_filling_a_private_array_is_batched(checks: bool, batched: list[bool]) -> None:
    """Each work-item's row of a ``__private`` array filled in one batch (the elements marked written, as the
    stores one by one mark them), then summed: the same bits, counts and steps as iteration by iteration."""
    rng = np.random.default_rng()
    n, lanes = 500, 192
    x = rng.random(n, np.float32)
    (_, y), _ = _same(
        PRIVATE_FILL, [x, np.zeros(lanes, np.float32)], (lanes,), (64,), np.int32(n), np.int32(8), checks=checks
    )
    assert batched.count(True) == 2  # (the batched run's two loops)
    j = np.arange(8)
    p = x[(np.arange(lanes)[:, None] + j) % n].astype(np.float64) * (j + 1)
    np.testing.assert_allclose(y, (p * (j & 3)).sum(axis=1), rtol=8 * EPS32 * 4)


@pytest.mark.parametrize(("m", "finding"), [(7, "uninitialized"), (9, "out-of-bounds")])
def test_a_private_fill_that_falls_short_or_runs_past_is_reported_as_without_batching(
    m: int, finding: str, batched: list[bool]
) -> None:
    """Seven of eight elements filled in a batch, then all eight read: the read of the eighth is the finding,
    word for word; a ninth store, past the array at the last iteration: the batch gives the loop back, which
    finds it (Clang's ``float p[8]`` bounds, as one by one)."""
    x = np.random.default_rng().random(100, np.float32)
    _, result = _same(PRIVATE_FILL, [x, np.zeros(64, np.float32)], (64,), (64,), np.int32(100), np.int32(m))
    assert isinstance(result, KernelFault) and finding in str(result)
    assert batched[0] is (m == 7)


PRIVATE_KINDS = """
__kernel void k(__global const int* x, __global int* y) {
    int i = get_global_id(0);
    int u;
    int p[6], q[6];
    for (int j = 0; j < 6; j++)
        p[j] = x[i] + j;
    for (int j = 1; j < 6; j++)
        p[j] = p[j - 1] * 3;
    for (int j = 0; j < 6; j++)
        q[j] = (j == 5 && i == 9) ? u : j;
    y[i] = p[5] + q[WHICH];
}
"""


@pytest.mark.parametrize("which", ["4", "5"])
def test_private_stores_the_batch_leaves_to_the_loop(which: str, batched: list[bool]) -> None:
    """A private array updated in place (each iteration reads the one before: not batched), and one given an
    undefined value in one iteration (``?:`` keeps the loop from batching; the value's bytes stay uninitialized,
    and reading them is the finding, or nothing when the element is never read)."""
    x = np.arange(64, dtype=np.int32) * 5
    (_, y), result = _same(PRIVATE_KINDS.replace("WHICH", which), [x, np.zeros(64, np.int32)], (64,), (64,))
    assert batched[:2] == [True, False]
    if which == "5":
        assert isinstance(result, KernelFault) and "uninitialized" in str(result)
    else:
        assert y.tolist() == (x * 3**5 + 4).tolist()


READ_THEN_RACE = """
__kernel void k(__global float* x, __global float* y, int n) {
    int i = get_global_id(0);
    float s = 0.0f;
    for (int j = 0; j < n; j++)
        s += x[j] * 2.0f;
    y[i] = s;
    if (i == 40)
        x[3] = 1.0f;
}
"""


def test_a_race_with_a_batched_read_names_its_statement(batched: list[bool]) -> None:
    """A read the batch gave the race tracker, which a later write of another work-item races with: the race names
    the line of the loop's statement, word for word as iteration by iteration."""
    x = np.random.default_rng().random(16, np.float32)
    _, result = _same(READ_THEN_RACE, [x, np.zeros(64, np.float32)], (64,), (64,), np.int32(16))
    assert isinstance(result, KernelFault) and "conflicts with a read by other work-items at line 6" in str(result)
    assert True in batched


SCATTER_ROWS = """
__kernel void k(__global const int* row_ptr, __global const int* col, __global const float* val,
                __global float* y, __global int* hist) {
    int i = get_global_id(0);
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
        y[k] = val[k] * 2.0f - (float)col[k];
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; k += 2)
        atomic_add(&hist[col[k] & 15], k);
}
"""


def test_updates_in_loops_whose_bound_reads_other_memory(batched: list[bool]) -> None:
    """A store and an atomic update per entry of a CSR row: the bound (``row_ptr[i + 1]``) reads memory the loops do
    not update, so it holds still and the iterations batch; the same bits and counts as one by one."""
    rng = np.random.default_rng()
    n = 256
    lengths = rng.integers(0, 12, n)
    row_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    col = rng.integers(0, 1 << 20, row_ptr[-1]).astype(np.int32)
    val = rng.standard_normal(row_ptr[-1]).astype(np.float32)
    arrays = [row_ptr, col, val, np.full(row_ptr[-1], np.nan, np.float32), np.zeros(16, np.int32)]
    (_, _, _, y, hist), result = _same(SCATTER_ROWS, arrays, (n,), (64,))
    assert not isinstance(result, Exception), result
    assert batched.count(True) >= 2, batched
    np.testing.assert_array_equal(y, val * np.float32(2) - col.astype(np.float32))
    starts = np.concatenate([np.arange(a, b, 2) for a, b in itertools.pairwise(row_ptr)])
    np.testing.assert_array_equal(hist, np.bincount(col[starts] & 15, weights=starts, minlength=16).astype(np.int32))


BOUND_STORED = """
__kernel void k(__global int* lim, __global int* out) {
    int k;
    for (k = 1; k < lim[0]; ++k)
        lim[(k - 3) & 63] = 4;
    out[0] = k;
}
"""


def test_a_loop_that_stores_to_its_bounds_memory_runs_one_by_one(batched: list[bool]) -> None:
    """The third iteration stores 4 to ``lim[0]``, which the bound reads: the loop ends at k == 4, not at the 10
    the bound first read. Not batched."""
    lim = np.zeros(64, np.int32)
    lim[0] = 10
    (_, out), result = _same(BOUND_STORED, [lim, np.zeros(1, np.int32)], (1,), (1,))
    assert not isinstance(result, Exception), result
    assert out[0] == 4 and True not in batched, (out, batched)
