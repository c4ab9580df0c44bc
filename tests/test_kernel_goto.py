"""Forward ``goto`` (C99 6.8.6.1, part of OpenCL C 1.2): out of nested loops, past the rest of a block, out of a
``switch``, in a helper function, to a label that several gotos share; the work-items that jump wait for the
others to reach the label (``wia_sim/kernels/jumps.py``). Through the public HAL on the simulator and, where
installed, on PoCL and Oclgrind, against NumPy; forward into nested blocks and if-statements (cephes' ``goto
underf``) and into loops (past their initialization and first test), whatever their conditions; what the
executor refuses (into a switch, back into a block) and what Clang refuses (undeclared or repeated labels) are build
errors. Backward gotos: ``test_kernel_backward_goto.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.program import KernelCompileError

SOURCE = r"""
int first_multiple(__global const int* v, int n, int k)
{
    int found = -1;
    for (int j = 0; j < n; ++j) {
        if (v[j] % k == 0) {
            found = j;
            goto done;
        }
    }
    found = -2;                                     // skipped by the work-items that jumped
done:
    return found;
}

__kernel void jumps(__global const int* v, __global int* out, const int n)
{
    const int i = get_global_id(0);
    int hits = 0;
    for (int r = 0; r < 6; ++r) {
        for (int c = 0; c < 6; ++c) {
            if (r * c > i % 17)
                goto out_of_both;
            hits += 1;
        }
    }
    hits += 1000;                                   // only where no row reached the bound
out_of_both:
    out[4 * i + 0] = hits;

    int code = 0;
    switch (i % 4) {
    case 0:
        code = 10;
        goto tagged;
    case 1:
        code = 20;
        break;
    default:
        if (i % 3 == 0)
            goto tagged;
        code = 30;
    }
    code += 1;
tagged:
    out[4 * i + 1] = code;

    int x = i;
    if (x & 1)
        goto odd;
    x *= 100;
    int later = x + 1;                              // a declaration the odd work-items jump past
    later -= 1;
odd:
    out[4 * i + 2] = x;
    out[4 * i + 3] = first_multiple(v, n, 2 + i % 5);
}
"""

N = 48
M = 12


def reference(v: np.ndarray) -> np.ndarray:
    out = np.zeros((N, 4), np.int64)
    for i in range(N):
        hits, jumped = 0, False
        for r in range(6):
            for c in range(6):
                if r * c > i % 17:
                    jumped = True
                    break
                hits += 1
            if jumped:
                break
        out[i, 0] = hits if jumped else hits + 1000
        code = {0: 10, 1: 20}.get(i % 4, 0 if i % 3 == 0 else 30)
        out[i, 1] = code if (i % 4 == 0 or (i % 4 > 1 and i % 3 == 0)) else code + 1
        out[i, 2] = i if i & 1 else i * 100
        hit = np.flatnonzero(v % (2 + i % 5) == 0)
        out[i, 3] = hit[0] if hit.size else -1
    return out


def test_forward_gotos(device_ctx: wia.Context) -> None:
    v = np.random.default_rng(23).integers(1, 60, M).astype(np.int32)
    got = run_arrays(device_ctx, SOURCE, "jumps", [v, np.full((N, 4), -99, np.int32)], N, 16, np.int32(M))[1]
    np.testing.assert_array_equal(got, reference(v))


def _k(body: str) -> str:
    return f"__kernel void k(__global int* a) {{\n{body}}}\n"


@pytest.mark.parametrize(
    ("source", "line", "message"),
    [
        (_k("    { inside: a[0] = 1; }\n    if (a[1]) goto inside;\n"), 3, "a goto into a block is not supported"),
        (_k("    switch (a[1]) { case 0: in_case: a[0] += 1; }\n    goto in_case;\n"), 3, "a goto into a block"),
        (_k("    goto nowhere;\n"), 2, "use of undeclared label 'nowhere'"),
        (_k("    goto x;\nx: a[0] = 1;\nx: a[1] = 2;\n"), 4, "redefinition of label 'x'"),
    ],
)
def test_gotos_the_executor_refuses(source: str, line: int, message: str) -> None:
    with pytest.raises(KernelCompileError) as info:
        compile_source(source)
    assert any(d.line == line and message in d.message for d in info.value.diagnostics), info.value.build_log


INTO_BLOCKS = """
__kernel void k(__global int* out, __global const int* in) {
    int g = get_global_id(0);
    int y = in[g];
    int r = 0;
    if (y < 3)
        goto underf;
    if (y < 100) {
        r += 1;
        if (y > 10) {
            r += 10;
            if (y % 2 == 0) {
underf:
                r += 100;
                goto done;
            }
            r += 1000;
        }
        r += 10000;
    } else
        r = -1;
done:
    out[g] = r + y;
}
"""


def _into_blocks(y: int) -> int:
    if y < 3:
        return 100 + y
    if y >= 100:
        return -1 + y
    r = 1
    if y > 10:
        r += 10
        if y % 2 == 0:
            return r + 100 + y
        r += 1000
    return r + 10000 + y


def test_a_goto_into_nested_blocks_and_ifs(device_ctx: wia.Context) -> None:
    values = np.array([0, 1, 2, 3, 5, 11, 12, 13, 14, 99, 100, 150, 2, 20, 21, 7], np.int32)
    (out, _) = run_arrays(device_ctx, INTO_BLOCKS, "k", [np.zeros(values.size, np.int32), values], values.size, 16)
    np.testing.assert_array_equal(out, [_into_blocks(int(y)) for y in values])


BARE_BLOCKS_AND_CASES = """
__kernel void k(__global int* out, __global const int* in) {
    int g = get_global_id(0);
    int y = in[g];
    int r = 0, again = 0;
    if (y & 1)
        goto inside;
    r = 10;
    {
        r += 100;
inside:
        r += 1000;
        r += 1;
    }
    goto all;
    r = -5;
    {
all:    r += 20000;
    }
    switch (y % 4) {
    case 0:
    twice:
        r += 100000;
        again += 1;  /* (a statement of its own: Oclgrind 21.10 loses side effects in conditions in some cases) */
        if (again < 2) goto twice;
        break;
    case 1:
        if (y > 8) goto shared;
        r += 300000;
    case 2:
    shared:
        r += 1000000;
        break;
    default:
        goto shared;
    }
    out[g] = r;
}
"""


def _bare_blocks_and_cases(y: int) -> int:
    r = 1001 if y & 1 else 10 + 100 + 1000 + 1
    r += 20000
    case = y % 4
    if case == 0:
        r += 200000
    elif case == 1:
        r += (0 if y > 8 else 300000) + 1000000
    else:  # 2, and 3 by its goto
        r += 1000000
    return r


def test_gotos_into_a_bare_block_and_among_a_switchs_cases(device_ctx: wia.Context) -> None:
    """C's blocks: the work-items that jump into one run on to its end (the simulator once dropped the rest of the
    block after the label), and a switch's body is one block, its labels among the cases (once refused)."""
    values = np.arange(16, dtype=np.int32)
    (out, _) = run_arrays(device_ctx, BARE_BLOCKS_AND_CASES, "k", [np.zeros(16, np.int32), values], 16, 8)
    np.testing.assert_array_equal(out, [_bare_blocks_and_cases(int(y)) for y in values])


ADDRESS_OF_PARAMETERS = """
void halve(double* v, int* steps) { *v = *v / 2.0; *steps += 1; }
double shrink(double n, int k) {
    while (n > 1.0)
        halve(&n, &k);
    return n + k;
}
__kernel void k(__global double* out, __global const double* x, int base) {
    int g = get_global_id(0);
    double unused = 4.0;
    halve(&unused, &base);
    out[g] = shrink(x[g], base);
}
"""


INTO_LOOPS = """
__kernel void k(__global int* o) {
    int i = get_global_id(0);
    int n = 0, s = 0;
    if (i & 1) goto inside;
    for (n = 0; n < 5; n++) {
        s += 100;
    inside:
        s += n;
    }
    o[i] = s * 10 + n;
    int w = i;
    if (i % 3 == 0) goto mid;
    while (w < 10) {
        w += 2;
    mid:
        w += 1;
    }
    o[8 + i] = w;
    int d = 0;
    if (i > 4) goto deep;
    do {
        d += 1;
        if (d > 100) {
        deep:
            d += 7;
        }
    } while (d < 20);
    o[16 + i] = d;
    int t = 0, j = 0, q = 0;
    if (i == 2) goto nested;
    for (j = 0; j < 3; j++) {
        for (q = 0; q < 2; q++) {
            t += 1;
            if (i == 6) break;
        nested:
            t += 10;
            if (t > 40) goto done;
        }
    }
done:
    o[24 + i] = t * 10 + j;
}
"""


def test_gotos_into_loops(device_ctx: wia.Context) -> None:
    """Into a for, a while and a do-while's body, and into a loop inside a loop: the work-items that jump skip the
    initialization and the first test, run on from the label, and loop from there as the others do (C99 6.8.6.1;
    values from PoCL 3.1 and Oclgrind 21.10; the simulator refused them at build)."""
    (out,) = run_arrays(device_ctx, INTO_LOOPS, "k", [np.full(32, -1, np.int32)], 8, 8)
    assert out.tolist() == [5105, 4105] * 4 + [10, 10, 11, 10, 10, 11, 10, 10] + [20] * 8 + [441, 441, 431] + [
        441
    ] * 3 + [33, 441]


def test_the_address_of_a_parameter(device_ctx: wia.Context) -> None:
    """``&n`` of a by-value parameter (cephes' ``bessel_recur(&n, x, &k, 1)``): the simulator stopped ("taking
    the address of this expression is not supported")."""
    x = np.array([0.5, 3.0, 17.0, 1000.0], np.float64)
    out, _ = run_arrays(device_ctx, ADDRESS_OF_PARAMETERS, "k", [np.zeros(4), x], 4, 4, np.int32(5))
    want = []
    for v in x.tolist():
        k = 6
        while v > 1.0:
            v, k = v / 2.0, k + 1
        want.append(v + k)
    np.testing.assert_array_equal(out, want)
