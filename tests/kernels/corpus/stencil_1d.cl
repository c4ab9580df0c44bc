// stencil_1d: 3-point weighted stencil out[i] = wl * x[i-1] + wc * x[i] + wr * x[i+1] with zero outside
// [0, n); the work-group stages its block plus a one-element halo on each side in __local memory.
// Exercises: __local tile with halo loaded by the first and last work-items, boundary checks on both ends,
// the last group partially past n, a barrier between staging and use, three float scalar arguments.
#define WG 64

__kernel void stencil_1d(__global const float* x,
                         __global float* out,
                         const float wl,
                         const float wc,
                         const float wr,
                         const int n)
{
    __local float tile[WG + 2];
    const int gid = get_global_id(0);
    const int lid = get_local_id(0);

    tile[lid + 1] = gid < n ? x[gid] : 0.0f;
    if (lid == 0)
        tile[0] = gid > 0 && gid - 1 < n ? x[gid - 1] : 0.0f;
    if (lid == WG - 1)
        tile[WG + 1] = gid + 1 < n ? x[gid + 1] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);

    if (gid < n)
        out[gid] = wl * tile[lid] + wc * tile[lid + 1] + wr * tile[lid + 2];
}
