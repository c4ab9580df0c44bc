// reduce_sum: first level of a sum reduction. Each work-item accumulates a grid-stride slice of x, then the
// work-group sums its items with a tree in __local memory and writes one partial sum per group.
// Exercises: a __local pointer argument sized at launch, grid-stride loop (get_global_size), tree reduction
// with a barrier per level (local size must be a power of two), get_group_id, one writer per group.
__kernel void reduce_sum(__global const float* x,
                         __global float* partial,
                         __local float* scratch,
                         const int n)
{
    const int lid = get_local_id(0);
    const int stride = get_global_size(0);

    float s = 0.0f;
    for (int i = get_global_id(0); i < n; i += stride)
        s += x[i];
    scratch[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int offset = get_local_size(0) / 2; offset > 0; offset >>= 1) {
        if (lid < offset)
            scratch[lid] += scratch[lid + offset];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = scratch[0];
}
