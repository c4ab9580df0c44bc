// Planted bug: a barrier that orders the wrong address space. Each work-item stores a partial result into a
// __global scratch buffer and reads its partner's (gid ^ 1, in the same work-group) after
// barrier(CLK_LOCAL_MEM_FENCE), which orders only __local memory: the __global store and the read still race.
// Expected check: race_global, at line 14 (the read of the element the partner stored at line 12).

__kernel void pair_sums(__global const float* x,
                        __global float* scratch,
                        __global float* y)
{
    const int gid = get_global_id(0);

    scratch[gid] = 2.0f * x[gid];
    barrier(CLK_LOCAL_MEM_FENCE);    /* meant: CLK_GLOBAL_MEM_FENCE */
    y[gid] = scratch[gid] + scratch[gid ^ 1];    // FAULT
}
