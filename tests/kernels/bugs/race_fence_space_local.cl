// Planted bug: a barrier that orders the wrong address space. Each work-item stores its value into a __local
// tile and reads its right neighbour's slot after barrier(CLK_GLOBAL_MEM_FENCE), which orders only __global
// memory between the work-items of the group: the __local store and the read still race.
// Expected check: race_local, at line 15 (the read of the slot another work-item stored at line 13).
#define WG 64

__kernel void rotate_left(__global const float* x,
                          __global float* y)
{
    __local float tile[WG];
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    tile[lid] = x[gid];
    barrier(CLK_GLOBAL_MEM_FENCE);    /* meant: CLK_LOCAL_MEM_FENCE */
    y[gid] = tile[(lid + 1) % WG];    // FAULT
}
