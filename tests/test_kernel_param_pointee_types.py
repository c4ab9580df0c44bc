"""Pointers to ``bool``, ``size_t``, ``ptrdiff_t``, ``intptr_t`` and ``uintptr_t`` as kernel parameters. OpenCL C
1.2 6.9 k forbids those types for the arguments themselves (their sizes are the device's), not for what a pointer
argument points to; Clang, PoCL 3.1 and Oclgrind 21.10 build such kernels (Pannotia's sssp takes a
``__global bool* stop``), and the simulator refused them ("cannot point to bool"). A ``bool`` argument itself is
still Clang's error."""

from __future__ import annotations

import numpy as np
from kernel_backends import build_error, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source

SOURCE = r"""
__kernel void k(__global const int* v, __global bool* any, __global bool* each, __global size_t* ids,
                __global ptrdiff_t* d, __global uintptr_t* u) {
    size_t i = get_global_id(0);
    each[i] = v[i] > 2 && v[(i + 1) % get_global_size(0)] != 0;
    if (i == 0)
        *any = v[3] > 5 || v[4] > 5;
    ids[i] = i * 3000000000UL;
    d[i] = (ptrdiff_t)(&v[i] - &v[8]);
    u[i] = (uintptr_t)sizeof(size_t) + i;
}
"""


def test_pointers_to_types_of_the_devices_size(device_ctx: wia.Context) -> None:
    v = np.random.default_rng().integers(0, 7, 32).astype(np.int32)
    arrays = [v, np.zeros(1, np.uint8), np.zeros(32, np.uint8), np.zeros(32, np.uint64), np.zeros(32, np.int64)]
    _, any_, each, ids, d, u = run_arrays(device_ctx, SOURCE, "k", [*arrays, np.zeros(32, np.uint64)], 32, 8)
    i = np.arange(32)
    assert any_.tolist() == [int(v[3] > 5 or v[4] > 5)]
    assert each.tolist() == ((v > 2) & (np.roll(v, -1) != 0)).astype(np.uint8).tolist()
    assert ids.tolist() == [k * 3_000_000_000 for k in range(32)]
    assert d.tolist() == (i - 8).tolist()
    assert u.tolist() == (i + 8).tolist()


def test_a_local_pointer_to_bool_builds_and_a_bool_argument_does_not(device_ctx: wia.Context) -> None:
    compile_source("__kernel void k(__local bool* b, __global int* o) { b[0] = 1; o[0] = b[0]; }")
    assert "bool" in build_error(device_ctx, "__kernel void k(bool b, __global int* o) { o[0] = b; }")
