// scan_hillis_steele: inclusive prefix sum of ints within each work-group (Hillis-Steele, log2(L) steps),
// double-buffered in __local memory by swapping two __local pointers; also writes each group's total so a
// second pass could add block offsets.
// Exercises: __local pointer variables and swapping them, a loop whose trip count is log2(local size), a
// barrier per step, reading a neighbour's slot written before the barrier, items past n padded with 0.
__kernel void scan_hillis_steele(__global const int* x,
                                 __global int* y,
                                 __global int* block_sums,
                                 __local int* buf_a,
                                 __local int* buf_b,
                                 const int n)
{
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    const int L = get_local_size(0);

    __local int* src = buf_a;
    __local int* dst = buf_b;
    src[lid] = gid < n ? x[gid] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int offset = 1; offset < L; offset <<= 1) {
        dst[lid] = lid >= offset ? src[lid] + src[lid - offset] : src[lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        __local int* tmp = src;
        src = dst;
        dst = tmp;
    }
    if (gid < n)
        y[gid] = src[lid];
    if (lid == L - 1)
        block_sums[get_group_id(0)] = src[lid];
}
