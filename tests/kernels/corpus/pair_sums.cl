// pair_sums: neighbouring work-items sum their two values through __local memory. Every work-item reads its right
// neighbour's slot, so the last of each group reads the padding slot nobody writes; only the even work-items keep
// what they computed, so that value is never used (clSPARSE's csrmv_general does this with a subwave of 2).
// Exercises: a read of uninitialized __local memory whose value is never used is no error (Oclgrind's rule).
#define WG 64

__kernel void pair_sums(__global const float* x, __global float* y, const int n)
{
    __local float s[WG + 1];
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    s[lid] = gid < n ? x[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    const float sum = s[lid] + s[lid + 1];
    if ((lid & 1) == 0 && gid < n)
        y[gid / 2] = sum;
}
