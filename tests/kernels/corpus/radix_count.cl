// radix_count: the counting step of one LSD radix-sort pass. Each work-group counts the 4-bit digit
// (key >> shift) & 15 of its block of keys in __local counters, then writes its 16 counts digit-major
// (counts[digit * num_groups + group]) so that one exclusive scan over `counts` gives every group's scatter
// offsets.
// Exercises: atomic_inc on __local uint, get_num_groups in an index computation, a #define'd radix,
// work-items past n not counting, a __local array cleared then read back after barriers.
#define RADIX_BITS 4
#define RADIX (1 << RADIX_BITS)

__kernel void radix_count(__global const uint* keys,
                          __global uint* counts,       /* RADIX * num_groups */
                          const uint shift,
                          const int n)
{
    __local uint hist[RADIX];
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);

    if (lid < RADIX)
        hist[lid] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);

    if (gid < n) {
        const uint digit = (keys[gid] >> shift) & (RADIX - 1);
        atomic_inc(&hist[digit]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (lid < RADIX)
        counts[lid * get_num_groups(0) + get_group_id(0)] = hist[lid];
}
