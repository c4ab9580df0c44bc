// reduce_atomic_int: two-level integer sum. The work-group reduces in __local memory, then its first item adds
// the group's partial to a global total with atomic_add; a second global counter counts positive values
// with atomic_inc from every work-item that sees one.
// Exercises: atomic_add and atomic_inc on __global int, a local tree reduction feeding a global atomic, the
// total starting from a nonzero value (atomics accumulate onto what is there).
__kernel void reduce_atomic_int(__global const int* x,
                                __global int* total,       /* one int, accumulated */
                                __global int* positives,   /* one int, accumulated */
                                __local int* scratch,
                                const int n)
{
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    const int v = gid < n ? x[gid] : 0;
    if (v > 0)
        atomic_inc(positives);
    scratch[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int offset = get_local_size(0) >> 1; offset > 0; offset >>= 1) {
        if (lid < offset)
            scratch[lid] += scratch[lid + offset];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        atomic_add(total, scratch[0]);
}
