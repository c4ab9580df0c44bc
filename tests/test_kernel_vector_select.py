"""``c ? a : b`` with a vector condition (OpenCL C 1.2 6.3 i): ``select(b, a, c)``, component by component on the
most significant bit of ``c`` (1 and 0 choose ``b``, -1 and -3 choose ``a``), scalar operands widened to the
condition's length; both operands are evaluated. Through the public HAL on the simulator and, where installed,
on PoCL and Oclgrind, against NumPy; Clang's build errors for a float condition and for elements of another
size."""

from __future__ import annotations

import numpy as np
import pytest

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.program import KernelCompileError

SOURCE = r"""
__kernel void selection(__global const float4* v, __global const int4* m, __global float4* out, __global int4* q,
                        __global ulong2* w)
{
    const int i = get_global_id(0);
    out[i] = m[i] ? v[i] : -v[i];                  // vectors
    q[i] = m[i] ? 5 : i;                           // scalars widened to int4
    const long2 wide = (long2)(i - 4, 1L << 63);
    w[i] = wide ? (ulong2)(7, 8) : (ulong2)(i, 9);  // 64-bit components: the sign bit of each long
}
"""

N = 16


def test_vector_conditions_select_per_component(device_ctx: wia.Context) -> None:
    rng = np.random.default_rng(29)
    v = rng.uniform(-2, 2, (N, 4)).astype(np.float32)
    m = rng.choice(np.array([-3, -1, 0, 1, 2, 2**31 - 1, -(2**31)], np.int32), (N, 4))
    kernel = wia.compile_kernel(device_ctx, SOURCE, "selection")
    arrays = [v, m, np.full((N, 4), np.nan, np.float32), np.full((N, 4), -99, np.int32), np.zeros((N, 2), np.uint64)]
    staged = []
    for data in arrays:
        raw = data.reshape(-1).view(np.uint8)
        staging = wia.alloc(device_ctx, raw.size, wia.MemoryType.HOST)
        wia.memory_ptr(staging)[:] = raw
        device = wia.alloc(device_ctx, raw.size)
        wia.copy_async(staging, device, raw.size)
        staged.append((device, staging))
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=N, local_size=8), *(d for d, _ in staged))
    for device, staging in staged[2:]:
        wia.copy_async(device, staging, device.size)
    wia.context_synchronize(device_ctx)
    out, q, w = (
        np.frombuffer(wia.memory_ptr(s).tobytes(), a.dtype).reshape(a.shape)
        for (_, s), a in zip(staged[2:], arrays[2:], strict=True)
    )
    i = np.arange(N)
    np.testing.assert_array_equal(out, np.where(m < 0, v, -v))
    np.testing.assert_array_equal(q, np.where(m < 0, 5, i[:, None]))
    np.testing.assert_array_equal(w[:, 0], np.where(i - 4 < 0, 7, i).astype(np.uint64))
    np.testing.assert_array_equal(w[:, 1], np.full(N, 8, np.uint64))


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("(f > 0.0f ? f : f).x + ((float4)(1.0f) ? 1.0f : 2.0f).x", "a vector condition must have an integer type"),
        ("((short4)(1) ? f : f).x", "vector condition type 'short4' and result type 'float4' do not have elements"),
        ("((int2)(1) ? f : f).x", "vector condition 'int2' and result 'float4' differ in length"),
    ],
)
def test_vector_condition_build_errors(expr: str, message: str) -> None:
    source = f"__kernel void k(__global float* o) {{ float4 f = (float4)(1.0f); o[0] = {expr}; }}"
    with pytest.raises(KernelCompileError, match=message):
        compile_source(source)
