// reduce_max: per-work-group maximum and the index where it occurs (first index on ties), tree reduction in
// __local arrays declared in the kernel (fixed work-group size WG).
// Exercises: -INFINITY, fmax-style comparisons carrying a payload, two __local arrays, `if` with a compound
// condition inside the tree, work-items past n contributing the identity.
#define WG 128

__kernel void reduce_max(__global const float* x,
                         __global float* group_max,
                         __global int* group_arg,
                         const int n)
{
    __local float best[WG];
    __local int where[WG];

    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    best[lid] = gid < n ? x[gid] : -INFINITY;
    where[lid] = gid < n ? gid : n;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int offset = WG / 2; offset > 0; offset /= 2) {
        if (lid < offset) {
            const float other = best[lid + offset];
            const int other_at = where[lid + offset];
            if (other > best[lid] || (other == best[lid] && other_at < where[lid])) {
                best[lid] = other;
                where[lid] = other_at;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        group_max[get_group_id(0)] = best[0];
        group_arg[get_group_id(0)] = where[0];
    }
}
