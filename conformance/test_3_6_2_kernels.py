"""SPEC 3.6.2 (Level 3): custom kernels, and the truthfulness of the capability that claims them (R-3.2.1-02).

Everything that runs a kernel is "not supported" on a device that does not claim ``supports_custom_kernels``;
on such a device ``compile_kernel`` must raise ``NOT_SUPPORTED``. The kernel is the spec's own example.
"""

from __future__ import annotations

import numpy as np
import pytest

import wia_hal as wia
from conformance import assertions as ph

E = wia.ErrorCode
VECTOR_ADD = """
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, int n) {
    int gid = get_global_id(0);
    if (gid < n) {
        c[gid] = a[gid] + b[gid];
    }
}
"""


@pytest.mark.req("R-3.2.1-02", "R-3.6.2-02")
def test_compile_kernel_follows_the_capability(ctx: wia.Context) -> None:
    if wia.get_device_capabilities(ctx.device).supports_custom_kernels:
        kernel = wia.compile_kernel(ctx, VECTOR_ADD, "vector_add")
        ph.assert_isinstance(kernel, wia.Kernel, "compile_kernel(ctx, VECTOR_ADD, 'vector_add')")
        wia.destroy_kernel(kernel)
    else:
        ph.assert_raises_code(E.NOT_SUPPORTED, wia.compile_kernel, ctx, VECTOR_ADD, "vector_add")


@pytest.mark.req("R-3.6.2-04")
def test_launch_config_in_both_styles() -> None:
    opencl = wia.LaunchConfig(global_size=(1024, 1, 1), local_size=(256, 1, 1), shared_memory=0)
    cuda = wia.LaunchConfig(grid_dim=(128, 128, 1), block_dim=(16, 16, 1), shared_mem=49152)
    ph.assert_equal(opencl.global_dims, (1024, 1, 1), "LaunchConfig(global_size=(1024, 1, 1)).global_dims")
    ph.assert_equal(cuda.global_dims, (2048, 2048, 1), "LaunchConfig(grid_dim=(128,128,1), block_dim=(16,16,1))")
    ph.assert_raises_code(E.INVALID_VALUE, wia.LaunchConfig, global_size=1024, grid_dim=4, block_dim=256)


@pytest.mark.req("R-3.6.2-01", "R-3.6.2-03", "R-3.6.2-05", "R-3.6.2-06")
def test_the_spec_vector_add(ctx: wia.Context) -> None:
    ph.requires("supports_custom_kernels")
    n = 1000
    rng = np.random.default_rng(1)
    a, b = rng.random(n, np.float32), rng.random(n, np.float32)
    ta, tb, tc = wia.tensor(a, ctx=ctx), wia.tensor(b, ctx=ctx), wia.zeros(n, ctx=ctx)
    kernel = wia.compile_kernel(ctx, VECTOR_ADD, "vector_add")
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=1024, local_size=256), ta, tb, tc, n)
    ph.assert_array_close(tc.numpy(), a + b, np.dtype(np.float32), "vector_add(a, b, c, 1000)")
    wia.destroy_kernel(kernel)
    ph.assert_raises_code(E.INVALID_KERNEL, wia.launch_kernel_async, kernel, wia.LaunchConfig(global_size=1024))


@pytest.mark.req("R-3.6.2-04")
def test_geometry_the_device_cannot_run(ctx: wia.Context) -> None:
    ph.requires("supports_custom_kernels")
    caps = wia.get_device_capabilities(ctx.device)
    kernel = wia.compile_kernel(ctx, VECTOR_ADD, "vector_add")
    too_wide = wia.LaunchConfig(global_size=2 * caps.max_work_group_size, local_size=2 * caps.max_work_group_size)
    ph.assert_raises_code(E.INVALID_LAUNCH_CONFIG, wia.launch_kernel_async, kernel, too_wide)
    too_much = wia.LaunchConfig(global_size=256, local_size=64, shared_memory=caps.max_shared_memory + 1)
    ph.assert_raises_code(E.INVALID_LAUNCH_CONFIG, wia.launch_kernel_async, kernel, too_much)


@pytest.mark.req("R-3.2.1-02", "R-3.2.1-04")
def test_peer_to_peer_follows_the_capability(ctx: wia.Context) -> None:
    claimed = wia.get_device_capabilities(ctx.device).supports_peer_to_peer
    if claimed:
        pytest.skip(f"{ph.NOT_SUPPORTED_PREFIX} exercised by the multi-device tests")
    t = wia.tensor(np.ones(8, np.float32), ctx=ctx)
    ph.assert_raises_code(E.NOT_SUPPORTED, wia.copy_peer_to_peer, ctx.device, ctx.device, t)
