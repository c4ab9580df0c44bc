"""Brace-enclosed initializers of multi-dimensional arrays (C99 6.7.8): each inner list fills one row from its
start and the rest of the row is zero, in ``__private`` and program-scope ``__constant`` arrays of every
element type. The simulator once read nested lists off as one flat list (``{{1}, {4, 5}}`` gave 1, 4, 5, 0, 0, 0
instead of 1, 0, 0, 4, 5, 0). Through the public HAL, on the simulator and, where installed, on PoCL and
Oclgrind, against NumPy."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from kernel_backends import context_on

import wia_hal as wia

ROWS = r"""
__constant ELEM c[3][4] = {{1, 2}, {5}, {9, 10, 11, 12}};

__kernel void k(__global ELEM* out, const ELEM bias)
{
    const int i = get_global_id(0);
    ELEM p[2][3] = {{7}, {bias, 3}};
    ELEM q[2][2][2] = {{{1}, {2, 3}}, {{4}}};
    out[i] = c[i / 4 % 3][i % 4] + p[i % 2][i % 3] + q[i % 2][i / 2 % 2][i / 4 % 2];
}

__constant ELEM e[][3] = {1, 2, 3, 4};

__kernel void elided(__global ELEM* out, const ELEM bias)
{
    const int i = get_global_id(0);
    ELEM f[2][3] = {bias, 2, 3, {4, 5}};
    ELEM g[2][1][3] = {1, 2, 3, 4, 5};
    ELEM h[][2] = {{1}, 2, 3, 4};
    out[i] = e[i / 3 % 2][i % 3] + f[i / 3 % 2][i % 3] + g[i % 2][0][i / 2 % 3] + h[i % 3][i / 3 % 2]
             + (ELEM)(sizeof(e) / sizeof(ELEM)) + (ELEM)(sizeof(h) / sizeof(ELEM));
}
"""


def reference(n: int, bias: float, dtype: np.dtype) -> np.ndarray:
    c = np.array([[1, 2, 0, 0], [5, 0, 0, 0], [9, 10, 11, 12]], np.float64)
    p = np.array([[7, 0, 0], [bias, 3, 0]], np.float64)
    q = np.zeros((2, 2, 2))
    q[0, 0, 0], q[0, 1, 0], q[0, 1, 1], q[1, 0, 0] = 1, 2, 3, 4
    i = np.arange(n)
    return (c[i // 4 % 3, i % 4] + p[i % 2, i % 3] + q[i % 2, i // 2 % 2, i // 4 % 2]).astype(dtype)


def elided_reference(n: int, bias: float, dtype: np.dtype) -> np.ndarray:
    e = np.array([[1, 2, 3], [4, 0, 0]], np.float64)
    f = np.array([[bias, 2, 3], [4, 5, 0]], np.float64)
    g = np.array([[1, 2, 3], [4, 5, 0]], np.float64)
    h = np.array([[1, 0], [2, 3], [4, 0]], np.float64)
    i = np.arange(n)
    return (e[i // 3 % 2, i % 3] + f[i // 3 % 2, i % 3] + g[i % 2, i // 2 % 3] + h[i % 3, i // 3 % 2] + 6 + 6).astype(
        dtype
    )


@pytest.fixture(params=["sim", "pocl", "oclgrind"])
def ctx(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[wia.Context]:
    with context_on(request.param, monkeypatch, tmp_path_factory) as context:
        yield context


@pytest.mark.parametrize(("ctype", "dtype"), [("int", np.int32), ("float", np.float32), ("short", np.int16)])
def test_inner_lists_fill_their_own_rows(ctx: wia.Context, ctype: str, dtype: type) -> None:
    n = 48
    bias = int(np.random.default_rng(41).integers(-50, 50))
    kernel = wia.compile_kernel(ctx, ROWS.replace("ELEM", ctype), "k")
    out = wia.alloc(ctx, n * np.dtype(dtype).itemsize)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=n, local_size=8), out, dtype(bias))
    staging = wia.alloc(ctx, out.size, wia.MemoryType.HOST)
    wia.copy_async(out, staging, out.size)
    wia.context_synchronize(ctx)
    got = np.frombuffer(wia.memory_ptr(staging).tobytes(), dtype)
    np.testing.assert_array_equal(got, reference(n, bias, np.dtype(dtype)))


@pytest.mark.parametrize(("ctype", "dtype"), [("int", np.int32), ("float", np.float32)])
def test_rows_without_braces_are_filled_in_order(ctx: wia.Context, ctype: str, dtype: type) -> None:
    """Brace elision (C99 6.7.8p20): items without braces fill the rows in order, a brace list starts a row, and
    an array of unknown length has as many rows as its items reach."""
    n = 48
    bias = int(np.random.default_rng(43).integers(-50, 50))
    kernel = wia.compile_kernel(ctx, ROWS.replace("ELEM", ctype), "elided")
    out = wia.alloc(ctx, n * np.dtype(dtype).itemsize)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=n, local_size=8), out, dtype(bias))
    staging = wia.alloc(ctx, out.size, wia.MemoryType.HOST)
    wia.copy_async(out, staging, out.size)
    wia.context_synchronize(ctx)
    got = np.frombuffer(wia.memory_ptr(staging).tobytes(), dtype)
    np.testing.assert_array_equal(got, elided_reference(n, bias, np.dtype(dtype)))


def test_more_rows_than_the_array_has_is_a_build_error() -> None:
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    try:
        src = "__kernel void k(__global int* out) { int a[2][3] = {1, 2, 3, 4, 5, 6, 7}; out[0] = a[1][2]; }"
        with pytest.raises(wia.WiaError, match="too many initializers for an array of 2"):
            wia.compile_kernel(ctx, src, "k")
    finally:
        wia.destroy_context(ctx)
