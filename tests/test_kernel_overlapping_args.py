"""Kernel arguments over overlapping bytes of one allocation (slices of one tensor), on the simulator and the real
OpenCL devices: what the kernel stores through one argument it reads through the other, as on one memory.

The OpenCL backend gives a slice at an offset OpenCL 1.2 allows a sub-buffer to start at (a multiple of
CL_DEVICE_MEM_BASE_ADDR_ALIGN, 128 bytes on PoCL and Oclgrind) as a sub-buffer, and any other as a scratch copy;
overlapping slices that need copies share one, and slices the kernel writes whose distance is not such a multiple
cannot be one memory there, which it says (``NOT_SUPPORTED``) instead of computing on separate copies. The races
between such arguments are in ``test_kernel_memchecks.py`` and the planted bug ``race_overlapping_args``."""

from __future__ import annotations

import numpy as np
import pytest

import wia_hal as wia

N = 64
WRITE_THEN_READ = """
__kernel void k(__global float* a, __global const float* b, __global float* out, const int ahead)
{
    const int i = get_global_id(0);
    a[i] = 2.0f * (float)i + 0.5f;
    out[i] = b[i + ahead];   /* a[i]: the same work-item's store, through the other argument */
}
"""
SUM = """
__kernel void k(__global const float* a, __global const float* b, __global float* out)
{
    const int i = get_global_id(0);
    out[i] = a[i] + b[i];
}
"""
CONFIG = wia.LaunchConfig(global_size=(N,), local_size=(16,))


def _launch(ctx: wia.Context, first: int, ahead: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """WRITE_THEN_READ with ``a`` the slice from float ``first + ahead`` and ``b`` from ``first``: the kernel's
    ``out``, the whole tensor after it and the tensor before."""
    before = np.random.default_rng(first * 100 + ahead).uniform(-1.0, 1.0, first + ahead + N).astype(np.float32)
    base = wia.tensor(before, ctx=ctx)
    a = wia.slice(base, [first + ahead], [first + ahead + N])
    b = wia.slice(base, [first], [first + ahead + N])
    out = wia.empty(N, ctx=ctx)
    wia.launch_kernel(wia.compile_kernel(ctx, WRITE_THEN_READ, "k"), CONFIG, a, b, out, np.int32(ahead))
    return out.numpy(), base.numpy(), before


@pytest.mark.parametrize(("first", "ahead"), [(0, 32), (4, 32), (3, 64)])
def test_a_store_through_one_slice_is_read_through_the_other(device_ctx: wia.Context, first: int, ahead: int) -> None:
    """Slices 32 or 64 floats (128 or 256 bytes) apart, at the allocation's start or off the alignment (the
    OpenCL backend: one scratch copy of both, each a sub-buffer of it)."""
    out, after, before = _launch(device_ctx, first, ahead)
    stored = 2.0 * np.arange(N, dtype=np.float32) + 0.5
    np.testing.assert_array_equal(out, stored)
    np.testing.assert_array_equal(after[first + ahead :], stored)
    np.testing.assert_array_equal(after[: first + ahead], before[: first + ahead])  # bytes no slice stores to


def test_slices_that_cannot_be_one_memory_on_opencl(request: pytest.FixtureRequest, device_ctx: wia.Context) -> None:
    """Written slices 4 floats (16 bytes) apart: the simulator computes on the one memory; an OpenCL 1.2 device
    cannot be given them as one (no sub-buffer starts there) and the backend says so."""
    if request.node.callspec.params.get("device_ctx") == "sim":
        out, after, _ = _launch(device_ctx, 0, 4)
        stored = 2.0 * np.arange(N, dtype=np.float32) + 0.5
        np.testing.assert_array_equal(out, stored)
        np.testing.assert_array_equal(after[4:], stored)
        return
    with pytest.raises(wia.NotSupportedError, match=r"arguments 0 \('a'\) and 1 \('b'\) overlap .* 16 bytes after"):
        _launch(device_ctx, 0, 4)


def test_overlapping_slices_only_read(device_ctx: wia.Context) -> None:
    """Read-only slices at any distance: copies cannot differ, every backend computes the sum."""
    data = np.random.default_rng(7).uniform(-1.0, 1.0, N + 5).astype(np.float32)
    base = wia.tensor(data, ctx=device_ctx)
    out = wia.empty(N, ctx=device_ctx)
    a, b = wia.slice(base, [5], [N + 5]), wia.slice(base, [1], [N + 1])
    wia.launch_kernel(wia.compile_kernel(device_ctx, SUM, "k"), CONFIG, a, b, out)
    np.testing.assert_array_equal(out.numpy(), data[5:] + data[1 : N + 1])
