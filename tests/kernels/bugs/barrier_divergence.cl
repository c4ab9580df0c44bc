// Planted bug: barrier divergence. Only the first 16 work-items of a 64-item group reach the barrier, which
// is undefined behaviour in OpenCL (every work-item of a group must execute the same barriers).
// Expected check: barrier_divergence, at line 15.
#define WG 64

__kernel void partial_barrier(__global const float* x,
                              __global float* y)
{
    __local float tile[WG];
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    tile[lid] = x[gid];
    if (get_local_id(0) < 16) {
        tile[lid] *= 2.0f;
        barrier(CLK_LOCAL_MEM_FENCE);    // FAULT
        y[gid] = tile[(lid + 1) % 16];
    }
}
