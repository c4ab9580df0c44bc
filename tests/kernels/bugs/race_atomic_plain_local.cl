// Planted bug: a plain read of a __local counter that other work-items update atomically in the same barrier
// interval. Work-item 0 reads the group's count of positive inputs right after the atomic_inc, with no
// barrier(CLK_LOCAL_MEM_FENCE) in between, so it may see any partial count.
// Expected check: race_local, at line 17 (the plain read; the other work-items' atomic_inc is at line 15).

__kernel void count_positive(__global const float* x,
                             __global int* counts)
{
    __local int count;
    const int lid = get_local_id(0);
    if (lid == 0)
        count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x[get_global_id(0)] > 0.0f)
        atomic_inc(&count);
    /* missing: barrier(CLK_LOCAL_MEM_FENCE); */
    if (lid == 0) counts[get_group_id(0)] = count;    // FAULT
}
