// async_float4_axpy: y = a * x + y on float4 vectors, a block of the group at a time: x and y are copied into
// __local memory (two events), updated there, and copied back to y with a local -> global copy; groups loop
// over blocks (a grid-stride loop), reusing their __local arrays after a barrier.
// Exercises: async copies of a vector gentype (float4), int4 copies (the block's index bookkeeping), copies of
// fewer elements than work-items (the last block), a local -> global write-back waited for in the loop.
#define WG 32

__kernel void async_float4_axpy(__global const float4* x,
                                __global float4* y,
                                __global int4* tag,
                                const float a,
                                const int n)
{
    __local float4 xs[WG];
    __local float4 ys[WG];
    __local int4 ts[WG];
    const int lid = get_local_id(0);
    const int stride = get_num_groups(0) * WG;

    for (int start = get_group_id(0) * WG; start < n; start += stride) {
        const int count = min(WG, n - start);
        event_t e = async_work_group_copy(xs, x + start, (size_t)count, 0);
        event_t f = async_work_group_copy(ys, y + start, (size_t)count, 0);
        wait_group_events(1, &e);
        wait_group_events(1, &f);
        if (lid < count) {
            ys[lid] = a * xs[lid] + ys[lid];
            ts[lid] = (int4)(start + lid, (int)get_group_id(0), count, -lid);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        event_t back = async_work_group_copy(y + start, ys, (size_t)count, 0);
        back = async_work_group_copy(tag + start, ts, (size_t)count, back);
        wait_group_events(1, &back);
    }
}
