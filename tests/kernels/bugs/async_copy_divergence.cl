// Planted bug: async-copy divergence. Each work-group stages its block of x in __local memory with one
// async_work_group_copy, but the element count is computed from the work-item's own global id instead of the
// group's first one: near the end of x the work-items of a group pass different counts, while every work-item
// of a group must reach the copy with the same arguments (OpenCL C 1.2, 6.12.10).
// Expected check: async_copy_divergence, at line 14.
#define WG 64

__kernel void scale_blocks(__global const float* x, __global float* y, const float s, const int n)
{
    __local float tile[WG];
    const int gid = get_global_id(0);
    const int lid = get_local_id(0);
    const int count = min(WG, n - gid);
    event_t e = async_work_group_copy(tile, x + get_group_id(0) * WG, (size_t)max(count, 0), 0);    // FAULT
    wait_group_events(1, &e);
    if (gid < n)
        y[gid] = s * tile[lid];
}
