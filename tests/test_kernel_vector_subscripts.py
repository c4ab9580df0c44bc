"""A vector's component by index, ``v[i]`` (Clang's extension of OpenCL C, taken by PoCL and Oclgrind): read and
written in a variable, in memory (``p[g][k]`` stores that component only) and in a loop over the components. The
simulator built such kernels and stopped at run time ("subscript of a non-pointer"). On every backend against
NumPy; an index outside the vector is the ``out_of_bounds_private`` finding on the simulator. And ``as_type``
between 3- and 4-component vectors, which share their size."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source, run_kernel
from wia_sim.kernels.executor import KernelFault
from wia_sim.kernels.lanes import launch_geometry

SOURCE = """
__kernel void k(__global int* o, __global const int4* in, __global int4* io) {
    int g = get_global_id(0);
    int4 v = in[g];
    int s = 0;
    for (int i = 0; i < 4; i++)
        s += v[i] * (i + 1);
    v[g & 3] = 100 + g;
    io[g][(g + 1) & 3] = -g;
    float8 f = (float8)(1.0f);
    f[g & 7] += 2.0f;
    o[4 * g] = s;
    o[4 * g + 1] = v.x + v.y + v.z + v.w;
    o[4 * g + 2] = (int)(f[g & 7] + f[(g + 1) & 7]);
    o[4 * g + 3] = v[g & 3];
}
"""
N = 16


def test_components_by_index(device_ctx: wia.Context) -> None:
    rng = np.random.default_rng(11)
    vin = rng.integers(-50, 50, (N, 4)).astype(np.int32)
    vio = rng.integers(-50, 50, (N, 4)).astype(np.int32)
    o, io = run_arrays(device_ctx, SOURCE, "k", [np.zeros(4 * N, np.int32), vin, vio.copy()], N, N)[0::2]
    g = np.arange(N)
    v = vin.astype(np.int64).copy()
    expected_s = (v * np.arange(1, 5)).sum(axis=1)
    v[g, g & 3] = 100 + g
    want_io = vio.copy()
    want_io[g, (g + 1) & 3] = -g
    expected = np.stack([expected_s, v.sum(axis=1), np.full(N, 4), 100 + g], axis=1).reshape(-1)
    np.testing.assert_array_equal(o, expected)
    np.testing.assert_array_equal(io, want_io)


def test_an_index_outside_the_vector_is_out_of_bounds() -> None:
    src = "__kernel void k(__global int* o) { int4 v = (int4)(1, 2, 3, 4); o[get_global_id(0)] = v[get_global_id(0)]; }"
    with pytest.raises(KernelFault) as info:
        run_kernel(compile_source(src), "k", [np.zeros(8 * 4, np.uint8)], launch_geometry((8, 1, 1), (8, 1, 1), 256, 1))
    f = info.value
    assert (f.check, f.work_item, f.work_items) == ("out_of_bounds_private", (4, 0, 0), 4)
    assert "component 4 of a int4 (it has 4: 0 to 3)" in str(f)


AS_TYPE_3 = """
__kernel void k(__global const int* src, __global uint4* dst, __global float* f3) {
    int3 v = vload3(0, src);
    uint4 u = as_uint4(v);
    dst[0] = (uint4)(u.x, u.y, u.z, 0u);
    float4 w = (float4)(1.5f, 2.5f, -3.0f, 8.0f);
    vstore3(as_float3(w), 0, f3);
}
"""


def test_as_type_between_3_and_4_component_vectors(device_ctx: wia.Context) -> None:
    """A 3-vector takes a 4-vector's bytes (OpenCL C 1.2 6.1.5), so ``as_uint4(int3)`` and ``as_float3(float4)``
    are legal (the Khronos CTS's test_astype makes 16 of them); the simulator stopped with an internal error."""
    dst, f3 = run_arrays(
        device_ctx,
        AS_TYPE_3,
        "k",
        [np.array([1, 2, 3, 4], np.int32), np.zeros(4, np.uint32), np.zeros(3, np.float32)],
        1,
        1,
    )[1:]
    np.testing.assert_array_equal(dst, [1, 2, 3, 0])
    np.testing.assert_array_equal(f3, [1.5, 2.5, -3.0])
