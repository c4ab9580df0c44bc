"""``case`` and ``default`` labels inside nested statements of a switch's body (C99 6.8.4.2p3 only asks that a
label be in the switch's body, at any depth): Duff's device (the labels inside a ``do``'s body), labels inside
if-statements, blocks and a ``for`` (entered past its initialization and first test, as C's jump does), and a
nested switch whose own labels sit in a block. Through the public HAL on the simulator and, where installed, on
PoCL and Oclgrind, against NumPy; the checker's rules for the labels (duplicates, several defaults) hold at any
depth, and a declaration jumped over is uninitialized for the work-items that jumped."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.executor import KernelFault, run_kernel
from wia_sim.kernels.lanes import Geometry
from wia_sim.kernels.program import KernelCompileError

DUFF = r"""
__kernel void duff(__global const int* src, __global int* dst, __global const int* counts, const int width)
{
    const int i = get_global_id(0);
    __global const int* from = src + i * width;
    __global int* to = dst + i * width;
    const int count = counts[i];
    int n = (count + 3) / 4;
    switch (count % 4) {
    case 0: do { *to++ = *from++ * 2;
    case 3:      *to++ = *from++ * 2;
    case 2:      *to++ = *from++ * 2;
    case 1:      *to++ = *from++ * 2;
            } while (--n > 0);
    }
}
"""

NESTED = r"""
__kernel void nested(__global const int* x, __global int* out)
{
    const int i = get_global_id(0);
    const int v = x[i];
    int r = 0, k = 5;
    switch (v % 7) {
    case 0:
        r += 1;
        if (v > 20) {
    case 1:
            r += 10;
        } else {
            r += 100;
    default:
            r += 1000;
        }
        break;
    case 2:
        for (k = 0; k < 3; ++k) {
            r += 2;
    case 3:
            r += k * 20;
            if (r > 150)
                break;
        }
        r += 7;
        break;
    case 4:
        {
            switch (v % 3) {
            case 0: r += 3; break;
            default: { r += 4; case 1: r += 5; }
            }
        }
        r += 9;
    }
    out[i] = r;
}
"""


def duff_reference(src: np.ndarray, counts: np.ndarray) -> np.ndarray:
    out = np.full_like(src, -1)
    for row, count in enumerate(counts):
        out[row, :count] = src[row, :count] * 2
    return out


def nested_reference(x: np.ndarray) -> np.ndarray:
    def one(v: int) -> int:
        r, k, case = 0, 5, v % 7  # (C's %: v >= 0 here)
        if case in (0, 1, 5, 6):
            if case == 0:
                r += 1
            if case == 1 or (case == 0 and v > 20):
                r += 10
            else:
                if case == 0:
                    r += 100
                r += 1000
        elif case in (2, 3):
            k = 0 if case == 2 else k
            first = True
            while first or k < 3:
                if not (first and case == 3):
                    r += 2
                first = False
                r += k * 20
                if r > 150:
                    break
                k += 1
            r += 7
        elif case == 4:
            inner = v % 3
            r += 3 if inner == 0 else (4 + 5 if inner == 2 else 5)
            r += 9
        return r

    return np.array([one(int(v)) for v in x], np.int32)


def _on_sim(cases: str, x: np.ndarray, local: int) -> np.ndarray:
    """A kernel whose ``switch (x[i])`` has the body ``cases`` and stores its ``r``, run on the simulator's executor
    with one work-item per element of ``x``: what it stored."""
    source = (
        "__kernel void k(__global const int* x, __global int* out) {\n"
        "    const int i = get_global_id(0);\n    int r = 0;\n"
        f"    switch (x[i]) {{\n{cases}\n    }}\n    out[i] = r;\n}}\n"
    )
    out = np.full(x.size, -5, np.int32)
    geometry = Geometry((x.size, 1, 1), (local, 1, 1))
    run_kernel(compile_source(source), "k", [x.view(np.uint8), out.view(np.uint8)], geometry)
    return out


def test_duffs_device(device_ctx: wia.Context) -> None:
    rng = np.random.default_rng(7)
    rows, width = 64, 13
    src = rng.integers(-1000, 1000, (rows, width)).astype(np.int32)
    counts = rng.integers(1, width + 1, rows).astype(np.int32)
    counts[:4] = [1, 4, 8, 13]  # every remainder, and whole rounds of four
    dst = np.full((rows, width), -1, np.int32)
    got = run_arrays(device_ctx, DUFF, "duff", [src, dst, counts], rows, 16, np.int32(width))[1]
    np.testing.assert_array_equal(got, duff_reference(src, counts))


def test_labels_inside_ifs_blocks_loops_and_a_nested_switch(device_ctx: wia.Context) -> None:
    x = np.random.default_rng(8).integers(0, 60, 128).astype(np.int32)
    x[:14] = np.arange(14) * 3  # every label of both switches, above and below 20
    got = run_arrays(device_ctx, NESTED, "nested", [x, np.zeros_like(x)], x.size, 32)[1]
    np.testing.assert_array_equal(got, nested_reference(x))


def test_a_declaration_jumped_over_is_uninitialized_where_it_was_jumped() -> None:
    cases = "    case 0:\n        {\n            int t = 7;\n    case 1:\n            r = t;\n        }"
    x = np.zeros(8, np.int32)
    assert (_on_sim(cases, x, 8) == 7).all()  # every work-item went through the initializer
    x[5] = 1
    with pytest.raises(KernelFault) as caught:
        _on_sim(cases, x, 8)
    assert caught.value.check == "uninitialized_private"
    assert "'t'" in str(caught.value) and "jumped over" in str(caught.value)
    assert caught.value.work_item == (5, 0, 0)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("case 1: if (n) { case 1: a[0] = 1; }", "duplicate case value '1'"),
        ("default: if (n) { default: a[0] = 1; }", "multiple default labels in one switch"),
        ("case 1: a[0] = 1; } { case 2: a[0] = 2;", "'case' statement not in switch statement"),
    ],
)
def test_the_label_rules_hold_at_any_depth(body: str, message: str) -> None:
    source = f"__kernel void k(__global int* a, int n) {{\n    switch (n) {{ {body} }}\n}}\n"
    with pytest.raises(KernelCompileError, match=message):
        compile_source(source)


def test_a_nested_switch_keeps_its_own_labels() -> None:
    """A label in an inner switch belongs to it (C99 6.8.4.2p3), not to the switch around it."""
    cases = (
        "    case 0:\n        switch (x[i] + 1) { { case 1: r = 10; } }\n        break;\n"
        "    default:\n        if (x[i] > 5) { case 1: r += 1; }"
    )
    x = np.array([0, 1, 2, 9, 0, 1, 7, 3], np.int32)
    np.testing.assert_array_equal(_on_sim(cases, x, 4), [10, 1, 0, 1, 10, 1, 1, 0])
