// Planted bug: an event never waited for. The work-group loads its block with an async copy and waits for it,
// scales it in __local memory, then starts the copy back to y and ends without wait_group_events: the copy
// may never happen (its data is only guaranteed after the wait). The finding is where the work-group ends.
// Expected check: unwaited_event, at line 17.
#define WG 64

__kernel void scale_in_place(__global const float* x, __global float* y, const float s)
{
    __local float tile[WG];
    const int lid = get_local_id(0);
    event_t in = async_work_group_copy(tile, x + get_group_id(0) * WG, WG, 0);
    wait_group_events(1, &in);
    tile[lid] *= s;
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t out = async_work_group_copy(y + get_group_id(0) * WG, tile, WG, 0);
    (void)out;
}    // FAULT
