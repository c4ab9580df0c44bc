"""``__attribute__((packed))`` and ``__attribute__((aligned(N)))`` on struct members (issue 16): the layout GCC and
Clang give (packed drops a member's alignment to 1, aligned(N) raises it to N), checked against NumPy structured
dtypes and through a kernel that stores whole structs into a byte buffer. (Reading or writing a packed member at
an offset its type does not divide is a misaligned access, which the executor does not do yet.)"""

from __future__ import annotations

import numpy as np
import pytest

import wia_hal as wia
from wia_sim.kernels.frontend import compile_source
from wia_sim.kernels.program import KernelCompileError
from wia_sim.kernels.structs import layout

LAYOUTS = r"""
struct P { char a; int b __attribute__((packed)); char c; };
struct __attribute__((packed)) Q { char a; int b __attribute__((packed)); char c; };
struct A { char a; int b __attribute__((aligned(8))); char c; };
struct B { char a; __attribute__((aligned(16))) short b; };
struct C { char a; int v[2] __attribute__((aligned(8))); };
struct __attribute__((packed)) D { char a; int b __attribute__((aligned(4))); char c; };
struct E { char a; struct P p; };
__kernel void k(__global int* out) { out[0] = 0; }
"""


def _dtype(names: list[str], formats: list[object], offsets: list[int], itemsize: int) -> np.dtype:
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": itemsize})


@pytest.mark.parametrize(
    ("tag", "offsets", "size", "align"),
    [
        ("struct P", [0, 1, 5], 6, 1),  # a packed member in a plain struct: no padding before it
        ("struct Q", [0, 1, 5], 6, 1),
        ("struct A", [0, 8, 12], 16, 8),
        ("struct B", [0, 16], 32, 16),  # the attribute before the type
        ("struct C", [0, 8], 16, 8),  # after an array declarator
        ("struct D", [0, 4, 8], 12, 4),  # aligned(N) raises a member's alignment even in a packed struct
        ("struct E", [0, 1], 7, 1),
    ],
)
def test_member_attributes_lay_out_as_gcc_and_clang_do(tag: str, offsets: list[int], size: int, align: int) -> None:
    s = layout(tag, compile_source(LAYOUTS).types)
    assert ([m.offset for m in s.members], s.size, s.align) == (offsets, size, align)


COPY = r"""
struct P { char a; int b __attribute__((packed)); char c; };
struct A { char a; int b __attribute__((aligned(8))); char c; };
__kernel void k(__global const int* in, __global int* p, __global struct A* q) {
    int i = get_global_id(0);
    p[i] = sizeof(struct P) + 100 * sizeof(struct A);
    struct A t = {(char)(50 + i), 0, (char)(-i)};
    t.b = in[i] * 3;
    q[i] = t;
    q[i].b += 1;
}
"""


def test_structs_with_member_attributes_store_the_device_layout(ctx: wia.Context) -> None:
    n = 16
    rng = np.random.default_rng(16)
    data = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    q_t = _dtype(["a", "b", "c"], [np.int8, np.int32, np.int8], [0, 8, 12], 16)
    p = wia.zeros(n, dtype=wia.int32, ctx=ctx)
    q = wia.zeros(n * 16, dtype=wia.int8, ctx=ctx)
    kernel = wia.compile_kernel(ctx, COPY, "k")
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=n, local_size=4), wia.tensor(data, ctx=ctx), p, q)
    i = np.arange(n)
    np.testing.assert_array_equal(p.numpy(), 6 + 100 * 16)
    got_q = q.numpy().view(q_t)
    np.testing.assert_array_equal(got_q["a"], (50 + i).astype(np.int8))
    np.testing.assert_array_equal(got_q["b"], (data.astype(np.int64) * 3 + 1).astype(np.int32))
    np.testing.assert_array_equal(got_q["c"], (-i).astype(np.int8))


def test_other_member_attributes_are_compile_errors() -> None:
    src = "struct S { char c; int a __attribute__((mode(DI))); }; __kernel void k(__global struct S* o) { }"
    with pytest.raises(KernelCompileError, match="attribute 'mode' on struct member 'a' of 'struct S'") as err:
        compile_source(src)
    assert "kernel.cl:1:" in err.value.build_log
