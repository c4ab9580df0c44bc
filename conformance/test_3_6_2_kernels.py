"""SPEC 3.6.2 (Level 3): custom kernels, and the truthfulness of the capability that claims them (R-3.2.1-02).

Everything that runs a kernel is "not supported" on a device that does not claim ``supports_custom_kernels``;
on such a device ``compile_kernel`` must raise ``NOT_SUPPORTED``. The kernel is the spec's own example.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import wia_hal as wia
from conformance import assertions as ph
from conformance.strategies import exact_floats

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
    wia.launch_kernel(
        kernel, wia.LaunchConfig(global_size=1024, local_size=64), ta, tb, tc, n
    )  # groups of 64 fit every device
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


# -- R-3.6.2-02: compiling ------------------------------------------------------------------------------------------

BAD_SOURCES = {
    "syntax": "__kernel void broken(__global float* out) {\n    int i = get_global_id(0);\n    int y = 1 + ;\n"
    "    out[i] = y;\n}\n",
    "undeclared": "__kernel void broken(__global float* out) {\n    int i = get_global_id(0);\n"
    "    out[i] = not_declared_anywhere;\n}\n",
}


@pytest.mark.req("R-3.6.2-02")
@pytest.mark.parametrize("kind", list(BAD_SOURCES))
def test_compile_error_holds_the_build_log(ctx: wia.Context, kind: str) -> None:
    """A syntax error and an undeclared identifier, both on line 3: ``COMPILE_ERROR`` whose message is a build log
    naming that line (``:3:`` as compilers write it, or ``line 3``)."""
    ph.requires("supports_custom_kernels")
    error = ph.assert_raises_code(E.COMPILE_ERROR, wia.compile_kernel, ctx, BAD_SOURCES[kind], "broken")
    ph.assert_message_mentions(error, [[":3:", "line 3"]], f"compile_kernel(ctx, <{kind} error on line 3>, 'broken')")


HELPER_AND_KERNEL = """
float twice(float v) { return 2.0f * v; }
__kernel void scale(__global float* x) { x[get_global_id(0)] = twice(x[get_global_id(0)]); }
"""


@pytest.mark.req("R-3.6.2-02")
def test_unknown_kernel_name(ctx: wia.Context) -> None:
    """A name that is not in the source, and the name of a function that is not a ``__kernel``: ``INVALID_KERNEL``
    (as ``clCreateKernel``'s ``CL_INVALID_KERNEL_NAME``)."""
    ph.requires("supports_custom_kernels")
    ph.assert_raises_code(E.INVALID_KERNEL, wia.compile_kernel, ctx, HELPER_AND_KERNEL, "no_such_kernel")
    ph.assert_raises_code(E.INVALID_KERNEL, wia.compile_kernel, ctx, HELPER_AND_KERNEL, "twice")
    kernel = wia.compile_kernel(ctx, HELPER_AND_KERNEL, "scale")
    x = np.random.default_rng(3640).standard_normal(64).astype(np.float32)
    t = wia.tensor(x, ctx=ctx)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=64), t)
    ph.assert_array_close(t.numpy(), 2 * x, np.dtype(np.float32), "launch_kernel(scale, global_size=64, x)")
    wia.destroy_kernel(kernel)


DEFINES = """
#ifndef FLAG
#define FLAG 0
#endif
__kernel void defines(__global const int* x, __global int* out)
{
    const int i = get_global_id(0);
    out[i] = x[i] * SCALE + OFFSET + 1000 * FLAG;
}
"""


@pytest.mark.req("R-3.6.2-02")
def test_compile_options_define_macros(ctx: wia.Context) -> None:
    """``options`` with ``-D NAME=value``, ``-DNAME=value`` and ``-D NAME`` (defined as 1, as in OpenCL): the same
    source gives kernels that compute different things; without the definitions it does not compile."""
    ph.requires("supports_custom_kernels")
    rng = np.random.default_rng(3641)
    x = rng.integers(-1000, 1000, 256).astype(np.int32)
    tx = wia.tensor(x, ctx=ctx)
    config = wia.LaunchConfig(global_size=256, local_size=64)
    for options, scale, offset, flag in (
        ("-D SCALE=3 -D OFFSET=-2", 3, -2, 0),
        ("-DSCALE=-5 -DOFFSET=7 -D FLAG", -5, 7, 1),
    ):
        kernel = wia.compile_kernel(ctx, DEFINES, "defines", options)
        out = wia.tensor(np.full(256, -559038737, np.int32), ctx=ctx)
        wia.launch_kernel(kernel, config, tx, out)
        expected = (x.astype(np.int64) * scale + offset + 1000 * flag).astype(np.int32)
        ph.assert_array_equal(out.numpy(), expected, f"compile_kernel(ctx, DEFINES, 'defines', {options!r}), launched")
        wia.destroy_kernel(kernel)
    ph.assert_raises_code(E.COMPILE_ERROR, wia.compile_kernel, ctx, DEFINES, "defines")


# -- R-3.6.2-03: arguments ------------------------------------------------------------------------------------------

AXPY = """
__kernel void axpy(__global const float* x, __global float* y, const float a, const int n)
{
    const int i = get_global_id(0);
    if (i < n)
        y[i] = a * x[i] + y[i];
}
"""

LOCAL_ARG = """
__kernel void reverse_in_groups(__global const int* x, __global int* out, __local int* tmp)
{
    const int lid = get_local_id(0), wg = get_local_size(0);
    tmp[lid] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[wg - 1 - lid];
}
"""


@pytest.mark.req("R-3.6.2-03")
def test_set_kernel_arg_rejects_wrong_indices_and_types(ctx: wia.Context) -> None:
    """An index outside ``0 .. num_args - 1`` (or not an int), a scalar for a buffer, a buffer for a scalar, a
    buffer for a ``__local`` argument (it takes a size in bytes): ``INVALID_VALUE``; the same through
    ``launch_kernel`` with too many arguments."""
    ph.requires("supports_custom_kernels")
    kernel = wia.compile_kernel(ctx, AXPY, "axpy")
    t = wia.zeros(16, ctx=ctx)
    for index in (-1, 4, 100):
        ph.assert_raises_code(E.INVALID_VALUE, wia.set_kernel_arg, kernel, index, 1.0)
    ph.assert_raises_code(E.INVALID_VALUE, wia.set_kernel_arg, kernel, "0", t)
    ph.assert_raises_code(E.INVALID_VALUE, wia.set_kernel_arg, kernel, 0, 2.0)
    ph.assert_raises_code(E.INVALID_VALUE, wia.set_kernel_arg, kernel, 1, 3)
    ph.assert_raises_code(E.INVALID_VALUE, wia.set_kernel_arg, kernel, 2, t)
    ph.assert_raises_code(E.INVALID_VALUE, wia.set_kernel_arg, kernel, 3, t)
    config = wia.LaunchConfig(global_size=16)
    ph.assert_raises_code(E.INVALID_VALUE, wia.launch_kernel, kernel, config, t, t, 1.0, 16, 5)
    wia.destroy_kernel(kernel)
    local = wia.compile_kernel(ctx, LOCAL_ARG, "reverse_in_groups")
    ph.assert_raises_code(E.INVALID_VALUE, wia.set_kernel_arg, local, 2, wia.zeros(16, wia.int32, ctx=ctx))
    wia.destroy_kernel(local)


@pytest.mark.req("R-3.5.1-06", "R-3.6.2-03", "R-3.6.2-05")
def test_kernel_arguments_are_checked_like_every_other_memory_use(new_context: Any) -> None:
    """A freed ``Memory``, another context's ``Memory`` and memory the device cannot access (HOST, PINNED) are
    ``INVALID_MEMORY`` at ``set_kernel_arg``; memory freed after it was set is ``INVALID_MEMORY`` at launch (before
    the kernel writes it), and so is a released tensor's memory; the kernel never runs on it."""
    ph.requires("supports_custom_kernels")
    ctx, other = new_context(), new_context()
    caps = wia.get_device_capabilities(ctx.device)
    kernel = wia.compile_kernel(ctx, AXPY, "axpy")
    x = wia.tensor(np.ones(16, np.float32), ctx=ctx)
    freed = wia.alloc(ctx, 64)
    wia.free(freed)
    foreign = wia.alloc(other, 64)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.set_kernel_arg, kernel, 1, freed)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.set_kernel_arg, kernel, 1, foreign)
    host_types = [wia.MemoryType.HOST] + ([wia.MemoryType.PINNED] if caps.supports_pinned_memory else [])
    for memory_type in host_types:
        host = wia.alloc(ctx, 64, memory_type)
        ph.assert_raises_code(E.INVALID_MEMORY, wia.set_kernel_arg, kernel, 1, host)
        wia.free(host)
    config = wia.LaunchConfig(global_size=16)
    ph.assert_raises_code(E.INVALID_MEMORY, wia.launch_kernel, kernel, config, x, foreign, 1.0, 16)
    y = wia.alloc(ctx, 64)
    for index, value in enumerate((x, y, 2.0, 16)):
        wia.set_kernel_arg(kernel, index, value)
    wia.free(y)  # freed after it was set: the launch must refuse it, not write freed memory
    ph.assert_raises_code(E.INVALID_MEMORY, wia.launch_kernel_async, kernel, config)
    released = wia.tensor(np.ones(16, np.float32), ctx=ctx)
    wia.set_kernel_arg(kernel, 1, released)
    wia.release_tensor(released)
    ph.assert_raises_code((E.INVALID_MEMORY, E.INVALID_VALUE), wia.launch_kernel_async, kernel, config)
    wia.context_synchronize(ctx)
    ph.assert_array_equal(x.numpy(), np.ones(16, np.float32), "x after the refused launches")
    wia.destroy_kernel(kernel)


@pytest.mark.req("R-3.6.2-03", "R-3.6.2-05", "R-3.4-04")
def test_set_kernel_arg_then_launch_async_in_stream_order(ctx: wia.Context) -> None:
    """Arguments set one by one, then ``launch_kernel_async`` on a stream, twice with an argument changed in
    between: each launch uses the arguments set when it was enqueued (as ``clEnqueueNDRangeKernel``), runs after
    the work before it on the stream (the second reads the first's output), and the results are there after an
    event recorded behind them completes."""
    ph.requires("supports_custom_kernels")
    rng = np.random.default_rng(3642)
    n = 1000
    x = exact_floats(rng, n)
    y = exact_floats(rng, n)
    stream = wia.create_stream(ctx)
    tx, ty = wia.tensor(x, ctx=ctx), wia.tensor(y, ctx=ctx)
    kernel = wia.compile_kernel(ctx, AXPY, "axpy")
    for index, value in enumerate((tx, ty, 2.0, n)):
        wia.set_kernel_arg(kernel, index, value)
    config = wia.LaunchConfig(global_size=1024, local_size=64)
    wia.launch_kernel_async(kernel, config, stream)  # y = 2 x + y
    wia.set_kernel_arg(kernel, 2, -0.5)
    wia.launch_kernel_async(kernel, config, stream)  # y = -0.5 x + y, after the first
    done = wia.create_event()
    wia.event_record(done, stream)
    wia.event_synchronize(done)
    expected = -0.5 * x.astype(np.float64) + (2 * x.astype(np.float64) + y)
    call = "set_kernel_arg(axpy, 2, 2.0); launch_kernel_async(axpy, config, s); set_kernel_arg(axpy, 2, -0.5); ..."
    ph.assert_array_close(ty.numpy(), expected.astype(np.float32), np.dtype(np.float32), call)
    wia.destroy_event(done)
    wia.destroy_kernel(kernel)
    wia.destroy_stream(stream)


@pytest.mark.req("R-3.6.2-05", "R-3.4.1-01")
def test_kernels_on_two_streams_ordered_by_an_event(ctx: wia.Context) -> None:
    """A kernel on stream B waits (``stream_wait_event``) for an event recorded after a kernel on stream A and reads
    what that one wrote; the result is right after ``stream_synchronize(B)``."""
    ph.requires("supports_custom_kernels")
    ph.requires_streams(2)
    rng = np.random.default_rng(3643)
    n = 512
    x, y = exact_floats(rng, n), exact_floats(rng, n)
    a, b = wia.create_stream(ctx), wia.create_stream(ctx)
    tx, ty, tz = wia.tensor(x, ctx=ctx), wia.tensor(y, ctx=ctx), wia.tensor(np.zeros(n, np.float32), ctx=ctx)
    first = wia.compile_kernel(ctx, AXPY, "axpy")
    second = wia.compile_kernel(ctx, AXPY, "axpy")
    config = wia.LaunchConfig(global_size=n, local_size=64)
    for index, value in enumerate((tx, ty, 3.0, n)):
        wia.set_kernel_arg(first, index, value)
    for index, value in enumerate((ty, tz, 1.0, n)):
        wia.set_kernel_arg(second, index, value)
    written = wia.create_event()
    wia.launch_kernel_async(first, config, a)  # y = 3 x + y
    wia.event_record(written, a)
    wia.stream_wait_event(b, written)
    wia.launch_kernel_async(second, config, b)  # z = y + z
    wia.stream_synchronize(b)
    expected = 3 * x.astype(np.float64) + y
    call = "launch_kernel_async(axpy, config, A); event_record(e, A); stream_wait_event(B, e); launch on B"
    ph.assert_array_close(tz.numpy(), expected.astype(np.float32), np.dtype(np.float32), call)
    for kernel in (first, second):
        wia.destroy_kernel(kernel)
    wia.destroy_event(written)
    for stream in (a, b):
        wia.destroy_stream(stream)


@pytest.mark.req("R-3.6.2-03", "R-3.6.2-05")
def test_arguments_persist_and_launch_kernel_sets_them(ctx: wia.Context) -> None:
    """``launch_kernel(kernel, config, *args)`` sets the arguments it is given; arguments set with
    ``set_kernel_arg`` stay set, so a later ``launch_kernel(kernel, config)`` without arguments uses them."""
    ph.requires("supports_custom_kernels")
    rng = np.random.default_rng(3644)
    n = 256
    x, y = exact_floats(rng, n), exact_floats(rng, n)
    tx, ty = wia.tensor(x, ctx=ctx), wia.tensor(y, ctx=ctx)
    kernel = wia.compile_kernel(ctx, AXPY, "axpy")
    config = wia.LaunchConfig(global_size=n, local_size=64)
    wia.launch_kernel(kernel, config, tx, ty, 0.25, n)
    expected = 0.25 * x.astype(np.float64) + y
    ph.assert_array_close(
        ty.numpy(), expected.astype(np.float32), np.dtype(np.float32), "launch_kernel(axpy, config, x, y, 0.25, n)"
    )
    wia.set_kernel_arg(kernel, 2, 4.0)
    wia.launch_kernel(kernel, config)
    expected = 4 * x.astype(np.float64) + expected
    call = "set_kernel_arg(axpy, 2, 4.0); launch_kernel(axpy, config)"
    ph.assert_array_close(ty.numpy(), expected.astype(np.float32), np.dtype(np.float32), call)
    wia.destroy_kernel(kernel)


@pytest.mark.req("R-3.6.2-03")
def test_memory_buffers_as_arguments(ctx: wia.Context) -> None:
    """A ``Memory`` from ``alloc`` as a ``__global`` buffer argument (filled and read back with ``copy_async``
    through HOST memory), next to a tensor and a ``__local`` size."""
    ph.requires("supports_custom_kernels")
    rng = np.random.default_rng(3645)
    n, wg = 512, 64
    x = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int64).astype(np.int32)
    staging = wia.alloc(ctx, x.nbytes, wia.MemoryType.HOST)
    wia.memory_ptr(staging)[:] = x.view(np.uint8)
    buffer = wia.alloc(ctx, x.nbytes)
    wia.copy_async(staging, buffer, x.nbytes)
    out = wia.tensor(np.full(n, -559038737, np.int32), ctx=ctx)
    kernel = wia.compile_kernel(ctx, LOCAL_ARG, "reverse_in_groups")
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=n, local_size=wg), buffer, out, wg * 4)
    expected = x.reshape(-1, wg)[:, ::-1].reshape(-1)
    ph.assert_array_equal(out.numpy(), expected, "launch_kernel(reverse_in_groups, config, <Memory>, out, 256)")
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=n, local_size=wg), out, buffer, wg * 4)
    wia.copy_async(buffer, staging, x.nbytes)
    wia.context_synchronize(ctx)
    got = wia.memory_ptr(staging).copy().view(np.int32)
    ph.assert_array_equal(got, x, "launch_kernel(reverse_in_groups, config, out, <Memory>, 256) reverses it back")
    wia.destroy_kernel(kernel)
    wia.free(buffer)
    wia.free(staging)


# -- R-3.6.2-04: launch geometry ------------------------------------------------------------------------------------

GEOMETRY = """
__kernel void geometry(__global int* out)
{
    const size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    const size_t at = ((z * get_global_size(1) + y) * get_global_size(0) + x) * 4;
    out[at] = (int)(get_group_id(0) + 10 * get_group_id(1) + 100 * get_group_id(2));
    out[at + 1] = (int)(get_local_id(0) + 10 * get_local_id(1) + 100 * get_local_id(2));
    out[at + 2] = (int)(get_local_size(0) + 10 * get_local_size(1) + 100 * get_local_size(2));
    out[at + 3] = (int)(get_num_groups(0) + 10 * get_num_groups(1) + 100 * get_num_groups(2));
}
"""


def geometry_reference(grid: tuple[int, int, int], block: tuple[int, int, int]) -> Any:
    g = np.array(grid)[:, None]
    b = np.array(block)[:, None]
    size = tuple(int(p) for p in np.array(grid) * np.array(block))
    z, y, x = np.indices(size[::-1]).reshape(3, -1)
    gid = np.stack([x, y, z])
    weights = np.array([1, 10, 100])
    rows = [
        weights @ (gid // b),
        weights @ (gid % b),
        np.full(gid.shape[1], weights @ b[:, 0]),
        np.full(gid.shape[1], weights @ g[:, 0]),
    ]
    return np.stack(rows, axis=1).reshape(-1).astype(np.int32)


@pytest.mark.req("R-3.6.2-04", "R-3.1-03")
def test_cuda_style_gives_the_opencl_geometry(ctx: wia.Context) -> None:
    """``LaunchConfig(grid_dim, block_dim)`` runs the NDRange ``LaunchConfig(global_size=grid * block,
    local_size=block)`` does: every work-item sees the same group id, local id, local size and number of groups,
    in 2 and 3 dimensions; the spare ``shared_memory``/``shared_mem`` the device allows are accepted."""
    ph.requires("supports_custom_kernels")
    kernel = wia.compile_kernel(ctx, GEOMETRY, "geometry")
    for grid, block in (((4, 3, 1), (8, 4, 1)), ((2, 3, 2), (4, 2, 2))):
        size = tuple(gd * bd for gd, bd in zip(grid, block, strict=True))
        n = int(np.prod(size))
        results = {}
        for style, config in (
            ("cuda", wia.LaunchConfig(grid_dim=grid, block_dim=block, shared_mem=1024)),
            ("opencl", wia.LaunchConfig(global_size=size, local_size=block, shared_memory=1024)),
        ):
            out = wia.tensor(np.full(4 * n, -1, np.int32), ctx=ctx)
            wia.launch_kernel(kernel, config, out)
            results[style] = out.numpy()
        expected = geometry_reference(grid, block)
        ph.assert_array_equal(
            results["cuda"], expected, f"launch_kernel(geometry, LaunchConfig(grid_dim={grid}, block_dim={block}))"
        )
        ph.assert_array_equal(
            results["opencl"],
            expected,
            f"launch_kernel(geometry, LaunchConfig(global_size={size}, local_size={block}))",
        )
    wia.destroy_kernel(kernel)


@pytest.mark.req("R-3.6.2-04")
def test_local_size_may_be_left_to_the_backend(ctx: wia.Context) -> None:
    """Without ``local_size`` the backend picks a work-group; whatever it picks, it divides the global size and
    group id * local size + local id is the global id for every work-item."""
    ph.requires("supports_custom_kernels")
    kernel = wia.compile_kernel(ctx, GEOMETRY, "geometry")
    n = 96
    out = wia.tensor(np.full(4 * n, -1, np.int32), ctx=ctx)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=n), out)
    got = out.numpy().reshape(n, 4)
    local, groups = int(got[0, 2]) - 110, int(got[0, 3]) - 110  # dimensions 1 and 2 have size 1 (weights 10, 100)
    call = "launch_kernel(geometry, LaunchConfig(global_size=96))"
    ph.assert_true(local >= 1 and local * groups == n, (local, groups), "(local size, groups) with product 96", call)
    ph.assert_array_equal(got[:, 2:], np.tile(np.array([local + 110, groups + 110], np.int32), (n, 1)), call)
    ph.assert_array_equal(got[:, 0] * local + got[:, 1], np.arange(n, dtype=np.int32), f"{call}: group * local + lid")
    wia.destroy_kernel(kernel)


@pytest.mark.req("R-3.6.2-04")
def test_global_size_not_a_multiple_of_local_size(ctx: wia.Context) -> None:
    """A global size that is not a multiple of the local size in some dimension (OpenCL 1.2 rule):
    ``INVALID_LAUNCH_CONFIG`` from ``launch_kernel`` and ``launch_kernel_async``, and nothing runs."""
    ph.requires("supports_custom_kernels")
    kernel = wia.compile_kernel(ctx, GEOMETRY, "geometry")
    out = wia.tensor(np.full(4 * 64 * 64, -1, np.int32), ctx=ctx)
    wia.set_kernel_arg(kernel, 0, out)
    for config in (
        wia.LaunchConfig(global_size=1000, local_size=64),
        wia.LaunchConfig(global_size=(64, 30), local_size=(8, 8)),
        wia.LaunchConfig(global_size=(8, 8, 6), local_size=(2, 2, 4)),
    ):
        ph.assert_raises_code(E.INVALID_LAUNCH_CONFIG, wia.launch_kernel, kernel, config)
        ph.assert_raises_code(E.INVALID_LAUNCH_CONFIG, wia.launch_kernel_async, kernel, config)
    ph.assert_array_equal(out.numpy(), np.full(4 * 64 * 64, -1, np.int32), "out after the refused launches")
    wia.destroy_kernel(kernel)


@pytest.mark.req("R-3.6.2-04", "R-3.1-03")
def test_too_much_local_memory(ctx: wia.Context) -> None:
    """``__local`` memory beyond ``max_shared_memory`` per work-group, given as a ``__local`` argument's size:
    ``INVALID_LAUNCH_CONFIG`` at launch; the largest size the device allows runs."""
    ph.requires("supports_custom_kernels")
    caps = wia.get_device_capabilities(ctx.device)
    kernel = wia.compile_kernel(ctx, LOCAL_ARG, "reverse_in_groups")
    x = np.arange(64, dtype=np.int32)
    tx, out = wia.tensor(x, ctx=ctx), wia.zeros(64, wia.int32, ctx=ctx)
    config = wia.LaunchConfig(global_size=64, local_size=64)
    wia.launch_kernel(kernel, config, tx, out, caps.max_shared_memory)
    ph.assert_array_equal(
        out.numpy(), x[::-1].copy(), f"launch_kernel(reverse_in_groups, config, x, out, {caps.max_shared_memory})"
    )
    wia.set_kernel_arg(kernel, 2, caps.max_shared_memory + 4)
    ph.assert_raises_code(E.INVALID_LAUNCH_CONFIG, wia.launch_kernel_async, kernel, config)
    wia.destroy_kernel(kernel)


STATIC_LOCAL = """
__kernel void static_local(__global int* out)
{
    __local int words[WORDS];
    words[get_local_id(0)] = (int)get_global_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = words[(get_local_id(0) + 1) % 64];
}
"""


@pytest.mark.req("R-3.6.2-04", "R-3.6.2-02")
def test_too_much_static_local_memory(ctx: wia.Context) -> None:
    """A ``__local`` array of ``max_shared_memory`` bytes runs; one 4 bytes larger is refused, either by the build
    (``COMPILE_ERROR``) or at launch (``INVALID_LAUNCH_CONFIG``)."""
    ph.requires("supports_custom_kernels")
    words = wia.get_device_capabilities(ctx.device).max_shared_memory // 4
    out = wia.tensor(np.full(64, -1, np.int32), ctx=ctx)
    config = wia.LaunchConfig(global_size=64, local_size=64)
    kernel = wia.compile_kernel(ctx, STATIC_LOCAL, "static_local", f"-D WORDS={words}")
    wia.launch_kernel(kernel, config, out)
    expected = ((np.arange(64) + 1) % 64).astype(np.int32)
    ph.assert_array_equal(out.numpy(), expected, f"launch_kernel(static_local) with -D WORDS={words}")
    wia.destroy_kernel(kernel)
    options = f"-D WORDS={words + 1}"
    try:
        kernel = wia.compile_kernel(ctx, STATIC_LOCAL, "static_local", options)
    except wia.CompileError:
        return
    ph.assert_raises_code(E.INVALID_LAUNCH_CONFIG, wia.launch_kernel, kernel, config, out)
    wia.destroy_kernel(kernel)


# -- R-3.6.2-06: destroying -----------------------------------------------------------------------------------------


@pytest.mark.req("R-3.6.2-06", "R-3.6.2-05")
def test_destroyed_kernel(ctx: wia.Context) -> None:
    """A kernel destroyed right after ``launch_kernel_async`` still finishes that launch; after ``destroy_kernel``
    every use of it, a second destroy included, raises ``INVALID_KERNEL``."""
    ph.requires("supports_custom_kernels")
    rng = np.random.default_rng(3646)
    n = 256
    x, y = exact_floats(rng, n), exact_floats(rng, n)
    tx, ty = wia.tensor(x, ctx=ctx), wia.tensor(y, ctx=ctx)
    kernel = wia.compile_kernel(ctx, AXPY, "axpy")
    for index, value in enumerate((tx, ty, -2.0, n)):
        wia.set_kernel_arg(kernel, index, value)
    config = wia.LaunchConfig(global_size=n, local_size=64)
    wia.launch_kernel_async(kernel, config)
    wia.destroy_kernel(kernel)
    wia.context_synchronize(ctx)
    expected = -2 * x.astype(np.float64) + y
    call = "launch_kernel_async(axpy, config); destroy_kernel(axpy); context_synchronize(ctx)"
    ph.assert_array_close(ty.numpy(), expected.astype(np.float32), np.dtype(np.float32), call)
    ph.assert_raises_code(E.INVALID_KERNEL, wia.set_kernel_arg, kernel, 2, 1.0)
    ph.assert_raises_code(E.INVALID_KERNEL, wia.launch_kernel, kernel, config, tx, ty, 1.0, n)
    ph.assert_raises_code(E.INVALID_KERNEL, wia.launch_kernel_async, kernel, config)
    ph.assert_raises_code(E.INVALID_KERNEL, wia.destroy_kernel, kernel)
    ph.assert_array_close(ty.numpy(), expected.astype(np.float32), np.dtype(np.float32), f"{call}, then refused uses")
