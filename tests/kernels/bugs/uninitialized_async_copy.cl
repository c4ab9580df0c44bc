// Planted bug: an async copy of __local memory nobody wrote. Only the even work-items store into the tile, then
// the whole tile is copied out with async_work_group_copy, its odd slots never written.
// Expected check: uninitialized_local, at line 16 (the call: Oclgrind checks it there; the simulator performs the
// copy at the wait, as Oclgrind does, and names the call).
#define WG 64

__kernel void copy_even_only(__global const float* x,
                             __global float* y)
{
    __local float tile[WG];
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    if ((lid & 1) == 0)
        tile[lid] = 2.0f * x[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t done = async_work_group_copy(y + get_group_id(0) * WG, tile, WG, 0);    // FAULT
    wait_group_events(1, &done);
}
