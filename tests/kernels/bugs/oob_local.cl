// Planted bug: out-of-bounds access to __local memory (a halo tile one element too small: the shifted store of
// the last work-item lands one past the end of the array).
// Expected check: out_of_bounds_local, at line 15 (the work-item with lid == WG - 1 writes tile[WG]).
#define WG 64

__kernel void shift_right(__global const float* x,
                          __global float* y,
                          const int n)
{
    __local float tile[WG];         /* should be WG + 1 */
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    if (lid == 0)
        tile[0] = 0.0f;
    tile[lid + 1] = gid < n ? x[gid] : 0.0f;    // FAULT
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < n)
        y[gid] = tile[lid];
}
