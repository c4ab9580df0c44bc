// Planted bug: data race on __global memory between work-groups. Every group's first work-item writes its
// partial sum to result[0] (meant: result[get_group_id(0)]), so different work-groups write one element.
// Expected check: race_global, at line 21.
#define WG 64

__kernel void block_sum(__global const float* x,
                        __global float* result,
                        const int n)
{
    __local float red[WG];
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    red[lid] = gid < n ? x[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            red[lid] += red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        result[0] = red[0];    // FAULT
}
