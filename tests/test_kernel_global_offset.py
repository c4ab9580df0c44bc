"""``LaunchConfig.global_offset``: OpenCL's global work offset through the HAL, on the simulator and on each real
OpenCL device, held to what OpenCL 1.2 (3.2 and 6.12.1) defines: global ids start at the offset,
``get_global_offset`` returns it, local and group ids and the sizes do not change."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia

Dims = tuple[int, int, int]

IDS = """
__kernel void ids(__global int* out) {
    const size_t row = (get_global_id(2) - get_global_offset(2)) * get_global_size(1) + get_global_id(1)
                       - get_global_offset(1);
    const size_t i = row * get_global_size(0) + get_global_id(0) - get_global_offset(0);
    __global int* o = out + 9 * i;
    for (uint d = 0; d < 3; d++) {
        o[3 * d] = (int)get_global_id(d);
        o[3 * d + 1] = (int)get_global_offset(d);
        o[3 * d + 2] = (int)(get_group_id(d) * get_local_size(d) + get_local_id(d));
    }
}
"""


def _expected(global_size: Dims, offset: Dims) -> np.ndarray:
    z, y, x = np.meshgrid(*(np.arange(n) for n in reversed(global_size)), indexing="ij")
    rows = []
    for d, ids in enumerate((x, y, z)):
        rows += [ids + offset[d], np.full_like(ids, offset[d]), ids]  # (group and local ids count from 0)
    return np.stack(rows, axis=-1).reshape(-1).astype(np.int32)


@pytest.mark.parametrize(
    ("global_size", "local_size", "offset"),
    [((8, 1, 1), (4, 1, 1), (5, 0, 0)), ((4, 2, 1), (2, 1, 1), (5, 3, 0)), ((2, 2, 2), (1, 2, 2), (1, 7, 1000))],
)
def test_global_ids_start_at_the_offset(
    device_ctx: wia.Context, global_size: Dims, local_size: Dims, offset: Dims
) -> None:
    dims = 3 if global_size[2] > 1 else 2 if global_size[1] > 1 else 1
    out = np.full(9 * int(np.prod(global_size)), -1, np.int32)
    kernel = wia.compile_kernel(device_ctx, IDS, "ids")
    staging = wia.alloc(device_ctx, out.nbytes, wia.MemoryType.HOST)
    wia.memory_ptr(staging)[:] = out.view(np.uint8)
    device = wia.alloc(device_ctx, out.nbytes)
    wia.copy_async(staging, device, out.nbytes)
    config = wia.LaunchConfig(
        global_size=global_size[:dims], local_size=local_size[:dims], global_offset=offset[:dims], work_dim=3
    )
    wia.launch_kernel(kernel, config, device)
    wia.copy_async(device, staging, out.nbytes)
    wia.context_synchronize(device_ctx)
    got = np.frombuffer(wia.memory_ptr(staging).tobytes(), np.int32)
    np.testing.assert_array_equal(got, _expected(global_size, offset))


def test_no_offset_is_offset_zero(device_ctx: wia.Context) -> None:
    (got,) = run_arrays(device_ctx, IDS, "ids", [np.zeros(9 * 8, np.int32)], 8, 4)
    np.testing.assert_array_equal(got, _expected((8, 1, 1), (0, 0, 0)))


def test_a_finding_names_the_work_item_by_its_global_id(ctx: wia.Context) -> None:
    kernel = wia.compile_kernel(ctx, "__kernel void k(__global int* o) { o[get_global_id(0)] = 1; }", "k")
    out = wia.alloc(ctx, 4 * 8)
    with pytest.raises(wia.InvalidMemoryError, match=r"offset 32 .* by work-item \(8, 0, 0\) in group \(1, 0, 0\)"):
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=4, local_size=2, global_offset=6), out)
