// Planted bug: read-write race on __local memory. Each work-item stores its value and then reads its right
// neighbour's slot with no barrier in between, so the read may see the old or the new value.
// Expected check: race_local, at line 15 (the read of tile[lid + 1], written by another work-item in the
// same barrier interval at line 13).
#define WG 64

__kernel void neighbour_diff(__global const float* x,
                             __global float* y)
{
    __local float tile[WG];
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    tile[lid] = x[gid];
    /* missing: barrier(CLK_LOCAL_MEM_FENCE); */
    const float right = lid + 1 < WG ? tile[lid + 1] : 0.0f;    // FAULT
    y[gid] = right - tile[lid];
}
