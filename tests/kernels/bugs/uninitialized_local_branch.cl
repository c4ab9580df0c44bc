// Planted bug: a __local value nobody wrote decides a branch. Each work-item compares its value with its right
// neighbour's, but the last work-item of each group reads the padding slot past the tile, which nobody writes:
// reading it is harmless, letting it decide how many steps the loop takes is not.
// Expected check: uninitialized_local, at line 17 (the loop that uses it; the read is at line 15).
#define WG 64

__kernel void climb(__global const float* x, __global float* y)
{
    __local float tile[WG + 1];
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    tile[lid] = x[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    /* should read tile[min(lid + 1, WG - 1)] */
    const float next = tile[lid + 1];
    float v = tile[lid];
    while (v < next)    // FAULT
        v += 0.25f;
    y[gid] = v;
}
