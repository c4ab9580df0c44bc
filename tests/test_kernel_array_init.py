"""Brace-enclosed initializers of multi-dimensional arrays (C99 6.7.8): each inner list fills one row from its
start and the rest of the row is zero, in ``__private`` and program-scope ``__constant`` arrays of every
element type. The simulator once read nested lists off as one flat list (``{{1}, {4, 5}}`` gave 1, 4, 5, 0, 0, 0
instead of 1, 0, 0, 4, 5, 0). Through the public HAL, on the simulator and, where installed, on PoCL and
Oclgrind, against NumPy."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from kernel_backends import use_backend

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
"""


def reference(n: int, bias: float, dtype: np.dtype) -> np.ndarray:
    c = np.array([[1, 2, 0, 0], [5, 0, 0, 0], [9, 10, 11, 12]], np.float64)
    p = np.array([[7, 0, 0], [bias, 3, 0]], np.float64)
    q = np.zeros((2, 2, 2))
    q[0, 0, 0], q[0, 1, 0], q[0, 1, 1], q[1, 0, 0] = 1, 2, 3, 4
    i = np.arange(n)
    return (c[i // 4 % 3, i % 4] + p[i % 2, i % 3] + q[i % 2, i // 2 % 2, i // 4 % 2]).astype(dtype)


@pytest.fixture(params=["sim", "pocl", "oclgrind"])
def ctx(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[wia.Context]:
    use_backend(request.param, monkeypatch, tmp_path_factory)
    try:
        context = wia.create_context()
        yield context
        wia.destroy_context(context)
    finally:
        wia.set_backend("sim")


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
