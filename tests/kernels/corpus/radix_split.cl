// radix_split: the scatter step of a 1-bit radix pass inside one work-group: a stable partition of the
// group's keys by bit `bit` (zeros first, then ones), computed with an exclusive scan of the "bit is 0" flags
// in __local memory (Hillis-Steele on flags, in place with a register copy between two barriers).
// Exercises: a data-dependent scatter into __local memory, an in-place scan that needs two barriers per step
// (read, barrier, write, barrier), items past n treated as +infinity keys (0xffffffff) so they sort last.
#define WG 128

__kernel void radix_split(__global const uint* keys,
                          __global uint* out,
                          const uint bit,
                          const int n)
{
    __local uint flags[WG];
    __local uint sorted[WG];
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);

    const uint key = gid < n ? keys[gid] : 0xffffffffu;
    const uint is_zero = ((key >> bit) & 1u) == 0u ? 1u : 0u;
    flags[lid] = is_zero;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int offset = 1; offset < WG; offset <<= 1) {      /* inclusive scan of the zero flags */
        const uint add = lid >= offset ? flags[lid - offset] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        flags[lid] += add;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const uint zeros_before = flags[lid] - is_zero;        /* exclusive */
    const uint total_zeros = flags[WG - 1];
    const uint dest = is_zero ? zeros_before : total_zeros + (uint)lid - zeros_before;
    sorted[dest] = key;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[gid] = sorted[lid];       /* `out` holds the whole NDRange: padding keys land past n */
}
