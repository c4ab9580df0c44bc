// Planted bug: read of uninitialized __local memory. Only the even work-items store into the tile, but after
// the barrier every work-item reads its own slot, so the odd slots are read without ever being written.
// Expected check: uninitialized_local, at line 16.
#define WG 64

__kernel void even_only(__global const float* x,
                        __global float* y)
{
    __local float tile[WG];
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    if ((lid & 1) == 0)
        tile[lid] = x[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* should read tile[lid & ~1] */
    y[gid] = tile[lid];    // FAULT
}
