"""Constructs that real kernels use and the simulator refused, found by building 43 public kernels (Rodinia,
OpenCV, CLBlast, Bullet3, PLSSVM, ...) on the simulator, PoCL and Oclgrind: each reduced to a few lines, built on
every backend (the verdicts must agree: PoCL and Oclgrind with ``-cl-std=CL1.2``) and run against NumPy.

- an array member of a struct in ``__global``/``__local`` memory decays to a pointer into that space
  (``&p->data[i]``, ``p->data``: Rodinia's dwt2d); it was taken as ``__private``;
- GCC's alternate keywords ``__inline``, ``__const``, ``__restrict__``, ... and ``__extension__`` (Bullet3, OpenCV);
- ``mul24``/``mad24`` pick the ``int`` or ``uint`` overload as Clang does: a ``uchar`` argument promotes, a scalar
  beside a vector splats, mixed ``int``/``uint`` is ambiguous (OpenCV's lut.cl);
- a ``bool`` member of a struct behind a kernel's pointer parameter (Rodinia's b+tree; only by value is it an
  error);
- a kernel called ``main`` is an error (Clang's rule; the simulator took it)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia

SOURCE = r"""
struct Counts { int n; int data[8]; };
typedef struct { int key; bool leaf; } Node;

__inline int twice(__const int x) { return 2 * x; }
static __inline__ int add(int a, int b) { return a + b; }

__kernel void real_world(__global struct Counts* restrict c, __global const Node* __restrict__ nodes,
                         __global const uchar* bytes, __global int* out, const int s)
{
    const int i = get_global_id(0);
    __local struct Counts tally;
    if (get_local_id(0) == 0) {
        for (int k = 0; k < 8; k++)
            tally.data[k] = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __local int* mine = &tally.data[i & 7];
    atomic_add(mine, 1);
    atomic_add(&c->data[i & 7], (int)bytes[i]);
    barrier(CLK_LOCAL_MEM_FENCE);
    __global int* row = c->data;
    __volatile__ int v = __extension__ mul24(bytes[i], s);
    const int2 m = mad24((int2)(i, 1), s, (int2)(0, 3));
    out[4 * i] = add(v, twice(nodes[i].leaf ? nodes[i].key : -nodes[i].key));
    out[4 * i + 1] = m.x + m.y;
    out[4 * i + 2] = *mine;
    out[4 * i + 3] = mad24((uint)i, 3u, (uint)bytes[i]) + (row == &c->data[0]);
}
"""

NODE = np.dtype({"names": ["key", "leaf"], "formats": [np.int32, np.bool_], "offsets": [0, 4], "itemsize": 8})


def test_real_world_constructs_give_numpys_values(device_ctx: wia.Context) -> None:
    n, s = 32, 7
    rng = np.random.default_rng(1210)
    counts = np.zeros(9, np.int32)  # n, data[8]
    counts[1:] = rng.integers(0, 100, 8)
    nodes = np.zeros(n, NODE)
    nodes["key"], nodes["leaf"] = rng.integers(-500, 500, n), rng.integers(0, 2, n).astype(bool)
    data = rng.integers(0, 256, n).astype(np.uint8)
    c_after, _, _, out = run_arrays(
        device_ctx, SOURCE, "real_world", [counts, nodes, data, np.zeros(4 * n, np.int32)], n, 16, np.int32(s)
    )
    i, b = np.arange(n), data.astype(np.int64)
    key = np.where(nodes["leaf"], nodes["key"], -nodes["key"]).astype(np.int64)
    want = np.stack([b * s + 2 * key, i * s + s + 3, np.full(n, 2), i * 3 + b + 1], axis=1)
    np.testing.assert_array_equal(out.reshape(n, 4), want)
    added = np.bincount(i & 7, weights=b, minlength=8).astype(np.int32)
    np.testing.assert_array_equal(c_after[1:], counts[1:] + added)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("__kernel void main(__global int* o) { o[0] = 1; }", "kernel cannot be called 'main'"),
        (
            "__kernel void k(__global int* o, int s, uint u) { o[0] = mul24(s, u); }",
            "call to 'mul24' is ambiguous",
        ),
        (
            "__kernel void k(__global int* o, uchar2 c, int2 s) { o[0] = mul24(c, s).x; }",
            "no matching function",
        ),
        (
            "typedef struct { int a; bool b; } S;\n__kernel void k(__global int* o, S s) { o[0] = s.a; }",
            "a struct kernel argument cannot have a bool member",
        ),
    ],
)
def test_what_clang_refuses_every_backend_refuses(device_ctx: wia.Context, source: str, message: str) -> None:
    with pytest.raises(wia.WiaError) as info:
        wia.compile_kernel(device_ctx, source, "main" if "main" in source else "k", "-cl-std=CL1.2")
    assert info.value.code in (wia.ErrorCode.COMPILE_ERROR, wia.ErrorCode.INVALID_KERNEL)
    if wia.get_backend().name == "sim":
        assert message in str(info.value)


def test_a_typedef_scalar_argument_passes_on_every_backend(device_ctx: wia.Context) -> None:
    """PolyBench's ``typedef float DATA_TYPE;`` kernels: kernel argument info names such a parameter's type
    ``DATA_TYPE``, which the OpenCL backend cannot resolve; a NumPy scalar of its bytes passes (it was refused as a
    struct without a structured scalar)."""
    source = (
        "typedef float DATA_TYPE;\n__kernel void k(__global DATA_TYPE* o, DATA_TYPE s) { o[get_global_id(0)] = s; }\n"
    )
    (out,) = run_arrays(device_ctx, source, "k", [np.zeros(16, np.float32)], 16, 16, np.float32(2.5))
    np.testing.assert_array_equal(out, np.full(16, 2.5, np.float32))


def test_a_race_in_a_do_while_condition_names_the_conditions_line() -> None:
    """brandes-opencl's float AtomicAdd reads ``*source`` plainly beside other work-items' ``atomic_cmpxchg``, a
    race by the simulator's (and Oclgrind's) rules; the finding named the ``do {`` line, lines above the atomic."""
    source = (
        "inline void AtomicAdd(volatile __global float* source, const float operand) {\n"
        "    union { unsigned int i; float f; } nv, pv;\n"
        "    do {\n"
        "        pv.f = *source;\n"
        "        nv.f = pv.f + operand;\n"
        "    } while (atomic_cmpxchg((volatile __global unsigned int*)source, pv.i, nv.i) != pv.i);\n"
        "}\n"
        "__kernel void k(__global float* acc) { AtomicAdd(&acc[get_global_id(0) % 4], 1.0f); }\n"
    )
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    try:
        with pytest.raises(wia.WiaError) as info:
            run_arrays(ctx, source, "k", [np.zeros(4, np.float32)], 64, 64)
    finally:
        wia.destroy_context(ctx)
    assert info.value.code == wia.ErrorCode.INVALID_KERNEL
    assert str(info.value).startswith("kernel.cl:6: data race: atomic update")
