"""Atomics through a pointer to another type than their overloads take (OpenCL C 1.2 6.12.11: int and uint, float
for ``atomic_xchg``): Clang converts the pointer, with a warning, to the overload the values pick, or finds the
call ambiguous. Words, places and values as PoCL 3.1 and Oclgrind 21.10 give them."""

from __future__ import annotations

import numpy as np
from kernel_backends import build_error, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source

CONVERTED = r"""
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
__kernel void k(__global uchar* bytes, __global float* f, __global long* l, __global uint* sums)
{
    const int i = get_global_id(0);
    __local short counts[8];
    if (get_local_id(0) < 8)
        counts[get_local_id(0)] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(bytes + 4 * (i % 4), 3u);
    atomic_min(f + (i % 2), (uint)i);
    atomic_add(l + (i % 2), 1);
    atom_add(l + 2, (long)i << 33);
    atomic_inc((__local int*)counts + (i % 4));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        sums[get_group_id(0)] = ((__local uint*)counts)[0] + ((__local uint*)counts)[3];
}
"""


def test_an_atomic_through_a_pointer_to_another_type_takes_the_overload_clang_picks(device_ctx: wia.Context) -> None:
    """Atomics through a pointer to a type no overload of theirs takes (OpenCL C 1.2 6.12.11: int and uint)
    convert it, with Clang's warning, to the overload the values pick (``atomic_add(uchar_p, 3u)``: uint;
    ``atomic_min(float_p, (uint)i)``: uint, on the float's bits; ``atomic_add(long_p, 1)``: int, the long's low
    half), and update that type's bytes. The simulator had updated the pointee's own type (a 64-bit add on a
    long, a byte on a uchar), and built ``atomic_inc(char_p)``, which Clang refuses as ambiguous. The values are
    PoCL 3.1's and Oclgrind 21.10's as well."""
    if wia.get_backend().name == "sim":
        assert compile_source(CONVERTED).build_log.splitlines() == [
            f"kernel.cl:{at}: warning: incompatible pointer types passing {passed} to parameter of type "
            f"'volatile __global {param} *'"
            for at, passed, param in [
                ("10:16", "'__global uchar *' (aka '__global unsigned char *')", "unsigned int"),
                ("11:16", "'__global float *'", "unsigned int"),
                ("12:16", "'__global long *'", "int"),
            ]
        ]
    n, group = 32, 16
    rng = np.random.default_rng(1216)
    data = rng.integers(0, 50, 16).astype(np.uint8)
    arrays = [data, np.array([1.5, -2.0], np.float32), np.array([7, -1, 0], np.int64), np.zeros(2, np.uint32)]
    data_out, f, longs, sums = run_arrays(device_ctx, CONVERTED, "k", arrays, n, group)
    np.testing.assert_array_equal(data_out.view(np.uint32), data.view(np.uint32) + 3 * (n // 4))
    np.testing.assert_array_equal(f.view(np.uint32), [0, 1])  # the least of the bits and the lanes' ids
    low, high = np.array([7, -1], np.int64).view(np.uint32).reshape(2, 2).T
    np.testing.assert_array_equal(longs[:2].view(np.uint32).reshape(2, 2), np.stack([low + n // 2, high], axis=1))
    assert longs[2] == sum(i << 33 for i in range(n))
    np.testing.assert_array_equal(sums, [2 * (group // 4)] * (n // group))


def test_atomics_clang_finds_ambiguous_are_refused(device_ctx: wia.Context) -> None:
    """A pointer no overload takes and values that take int and uint alike (a float, a ulong, no value at all)."""
    source = (
        "__kernel void k(__global float* p, __global char* c, __global ulong* q) {\n"
        "    atomic_add(p, 1.0f); atomic_inc(c); atomic_and(q, 1UL); }"
    )
    refusal = build_error(device_ctx, source, options="-cl-std=CL1.2")
    if wia.get_backend().name == "sim":
        assert [line for line in refusal.splitlines() if "error:" in line] == [
            f"kernel.cl:2:{column}: error: call to '{name}' is ambiguous"
            for column, name in [(5, "atomic_add"), (26, "atomic_inc"), (41, "atomic_and")]
        ]


ARRAY_NAMES = r"""
typedef struct { int counts[4]; } Tally;
__kernel void k(__global Tally* t, __global int* out)
{
    __local int cnt[2];
    __local uint seen[1];
    const int l = get_local_id(0);
    if (l == 0) { cnt[0] = 0; cnt[1] = 100; seen[0] = 7u; }
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(cnt);
    atomic_add(cnt, 2);
    atom_inc(cnt);
    atomic_max(cnt, 0);
    atomic_min(seen, (uint)l + 3u);
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_cmpxchg(seen, 3u, 40u);
    atomic_add(t->counts, l);
    atomic_inc(t[0].counts);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) { out[2 * get_group_id(0)] = cnt[0]; out[2 * get_group_id(0) + 1] = (int)seen[0]; }
}
"""


def test_an_atomic_on_an_array_name_updates_its_first_element(device_ctx: wia.Context) -> None:
    """An array's name is a pointer to its first element, for the atomics too: Bullet3's sweep-and-prune kernel
    counts with ``atomic_inc(numActiveWgItems)`` of a ``__local int numActiveWgItems[1]``, and a struct's array
    member in ``__global`` memory decays alike. The simulator refused them ("the first argument of 'atomic_inc'
    must be a pointer to __global or __local memory"); PoCL 3.1 and Oclgrind 21.10 build and run them."""
    groups, size = 3, 8
    tally, out = run_arrays(
        device_ctx, ARRAY_NAMES, "k", [np.zeros(4, np.int32), np.zeros(2 * groups, np.int32)], groups * size, size
    )
    np.testing.assert_array_equal(out.reshape(groups, 2), [[4 * size, 40]] * groups)
    np.testing.assert_array_equal(tally, [groups * (sum(range(size)) + size), 0, 0, 0])
