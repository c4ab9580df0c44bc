// count_positive_groups: a per-work-group count of positive inputs with a __local atomic counter that one
// work-item reads after barrier(CLK_LOCAL_MEM_FENCE) (the corrected bugs/race_atomic_plain_local.cl), and a
// __global element each work-item updates twice around write_mem_fence/read_mem_fence: fences order one
// work-item's own accesses only, which is all this needs (no other work-item touches the element).
// Exercises: atomics and plain accesses to one __local address in different barrier intervals, mem_fence,
// read_mem_fence, write_mem_fence, a barrier with both fence flags, one work-item reading one address both
// atomically and plainly (its own accesses never race): counts holds twice the count.

__kernel void count_positive_groups(__global const float* x,
                                    __global int* counts,
                                    __global float* scaled,
                                    const int n)
{
    __local int count;
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    if (lid == 0)
        count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    const float v = gid < n ? x[gid] : 0.0f;
    if (v > 0.0f)
        atomic_inc(&count);
    if (gid < n)
        scaled[gid] = 2.0f * v;
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
    mem_fence(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (gid < n)
        scaled[gid] += 1.0f;
    read_mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (lid == 0)
        counts[get_group_id(0)] = atomic_add(&count, 0) + count;
}
