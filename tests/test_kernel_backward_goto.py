"""Backward ``goto`` (a loop written with labels, as cephes' special functions in pyopencl's
``pyopencl-bessel-j.cl`` write one): the work-items that jump run again from the label while the others wait
after the ``goto``'s statement, in a helper, at a kernel's top level, inside a loop and from a nested block. The
simulator refused it at build time. On every backend against Python's loops (Oclgrind 21.10 cannot create this
kernel: an expected failure, with its message)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia

SOURCE = """
int collatz(int v) {
    int steps = 0;
again:
    if (v == 1)
        return steps;
    v = (v & 1) ? 3 * v + 1 : v / 2;
    steps++;
    goto again;
}

__kernel void k(__global int* out, __global const int* in) {
    int g = get_global_id(0);
    int i = 0, s = 0;
top:
    s += i * in[g];
    i++;
    if (i < (g % 5) + 1) goto top;
    int t = 0;
    for (int j = 0; j < 3; j++) {
        int r = 0;
    inner:
        r++;
        t += r;
        if (r < j + (g & 1)) goto inner;
    }
    int w = 0;
outer:
    {
        w += 2;
        if (w < 7) {
            if (g & 2) goto outer;
        }
    }
    out[4 * g] = s;
    out[4 * g + 1] = t;
    out[4 * g + 2] = w;
    out[4 * g + 3] = collatz(g + 1);
}
"""
N = 16


def _collatz(v: int) -> int:
    steps = 0
    while v != 1:
        v = 3 * v + 1 if v & 1 else v // 2
        steps += 1
    return steps


def _expected(values: np.ndarray) -> np.ndarray:
    rows = []
    for g, x in enumerate(values.tolist()):
        s = sum(i * x for i in range(g % 5 + 1))
        t = sum(sum(range(1, max(j + (g & 1), 1) + 1)) for j in range(3))
        w = 8 if g & 2 else 2
        rows.append([s, t, w, _collatz(g + 1)])
    return np.array(rows, np.int32).reshape(-1)


def test_backward_goto(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    if request.node.callspec.params.get("device_ctx") == "oclgrind":
        reason = "Oclgrind 21.10 cannot create this kernel (FATAL ERROR: Unsupported constant int size: 5 bytes)"
        request.applymarker(pytest.mark.xfail(strict=True, reason=reason))
    values = np.arange(3, 3 + N, dtype=np.int32)
    out, _ = run_arrays(device_ctx, SOURCE, "k", [np.zeros(4 * N, np.int32), values], N, N)
    np.testing.assert_array_equal(out, _expected(values))
