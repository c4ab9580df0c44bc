// Planted bug: write-write data race on __local memory. Between the two barriers, work-items 2k and 2k + 1
// both store into slot k with plain stores, and their values differ (x[2k] - x[2k+1] and its negation): the
// pairwise difference was meant to be stored by the even work-item only.
// Expected check: race_local, at line 14.
#define WG 64

__kernel void pair_diffs(__global const float* x,
                         __global float* y)
{
    __local float pair_diff[WG / 2];
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    pair_diff[lid / 2] = x[gid] - x[gid ^ 1];    // FAULT
    barrier(CLK_LOCAL_MEM_FENCE);
    y[gid] = pair_diff[lid / 2];
}
