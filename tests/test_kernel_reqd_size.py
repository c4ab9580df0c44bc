"""``__attribute__((reqd_work_group_size(X, Y, Z)))`` binds a kernel's launches to that local size (OpenCL 1.2
``clEnqueueNDRangeKernel``: ``CL_INVALID_WORK_GROUP_SIZE`` for another local size, and when none is given): the
HAL's ``INVALID_LAUNCH_CONFIG``. The simulator parsed the attribute and launched any local size."""

from __future__ import annotations

import numpy as np
import pytest

import wia_hal as wia

SOURCE = """
__kernel __attribute__((reqd_work_group_size(8, 2, 1)))
void k(__global float* out) { out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = get_local_size(1); }
"""


def _launch(ctx: wia.Context, local: tuple[int, int] | None) -> np.ndarray:
    kernel = wia.compile_kernel(ctx, SOURCE, "k")
    out = wia.alloc(ctx, 64 * 4)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=(16, 4), local_size=local), out)
    staging = wia.alloc(ctx, 64 * 4, wia.MemoryType.HOST)
    wia.copy_async(out, staging, 64 * 4)
    wia.context_synchronize(ctx)
    return np.frombuffer(wia.memory_ptr(staging).tobytes(), np.float32)


def test_the_required_local_size_launches(device_ctx: wia.Context) -> None:
    np.testing.assert_array_equal(_launch(device_ctx, (8, 2)), np.full(64, 2, np.float32))


@pytest.mark.parametrize("local", [(16, 1), (4, 2), (8, 4)])
def test_another_local_size_is_an_invalid_launch(device_ctx: wia.Context, local: tuple[int, int]) -> None:
    with pytest.raises(wia.WiaError) as info:
        _launch(device_ctx, local)
    assert info.value.code == wia.ErrorCode.INVALID_LAUNCH_CONFIG


def test_no_local_size_is_an_invalid_launch(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    if request.node.callspec.params.get("device_ctx") == "oclgrind":
        pytest.skip("Oclgrind 21.10 launches with the required size when none is given (the 1.2 spec says error)")
    with pytest.raises(wia.WiaError) as info:
        _launch(device_ctx, None)
    assert info.value.code == wia.ErrorCode.INVALID_LAUNCH_CONFIG
    if wia.get_backend().name == "sim":
        assert "reqd_work_group_size(8, 2, 1)" in str(info.value)


@pytest.mark.parametrize(
    ("source", "required"),
    [
        (
            "__kernel void k(__global int* o) __attribute__((reqd_work_group_size(4, 1, 1)));\n"
            "__kernel void k(__global int* o) { o[get_global_id(0)] = get_local_size(0); }",
            4,
        ),
        (  # the definition's own wins over the prototype's, as on PoCL 3.1 and Oclgrind 21.10
            "__kernel void k(__global int* o) __attribute__((reqd_work_group_size(4, 1, 1)));\n"
            "__kernel __attribute__((reqd_work_group_size(2, 1, 1)))\n"
            "void k(__global int* o) { o[get_global_id(0)] = get_local_size(0); }",
            2,
        ),
    ],
    ids=["prototype", "both"],
)
def test_a_prototypes_required_size_binds_the_definition(device_ctx: wia.Context, source: str, required: int) -> None:
    """Clang merges a kernel prototype's attributes into its definition: ``reqd_work_group_size`` on the prototype
    alone binds the launches (the simulator ignored it, and ran any local size; found by the CTS probe)."""
    kernel = wia.compile_kernel(device_ctx, source, "k")
    out = wia.alloc(device_ctx, 8 * 4)
    other = 8 // required
    with pytest.raises(wia.WiaError) as info:
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=8, local_size=other), out)
    assert info.value.code == wia.ErrorCode.INVALID_LAUNCH_CONFIG
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=8, local_size=required), out)
    staging = wia.alloc(device_ctx, 8 * 4, wia.MemoryType.HOST)
    wia.copy_async(out, staging, 8 * 4)
    wia.context_synchronize(device_ctx)
    assert np.frombuffer(wia.memory_ptr(staging).tobytes(), np.int32).tolist() == [required] * 8
