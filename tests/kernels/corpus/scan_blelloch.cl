// scan_blelloch: work-efficient exclusive prefix sum of floats (Blelloch up-sweep / down-sweep), two elements
// per work-item, in a __local array of 2 * WG floats declared in the kernel; writes the block totals too.
// Exercises: the classic up-sweep/down-sweep index arithmetic (ai/bi with a stride that doubles then
// halves), a barrier inside both loops, a single work-item clearing the root between the phases.
#define WG 64
#define B (2 * WG)

__kernel void scan_blelloch(__global const float* x,
                            __global float* y,
                            __global float* block_sums,
                            const int n)
{
    __local float temp[B];
    const int lid = get_local_id(0);
    const int base = get_group_id(0) * B;

    temp[2 * lid] = base + 2 * lid < n ? x[base + 2 * lid] : 0.0f;
    temp[2 * lid + 1] = base + 2 * lid + 1 < n ? x[base + 2 * lid + 1] : 0.0f;

    int offset = 1;
    for (int d = B >> 1; d > 0; d >>= 1) {          /* up-sweep */
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            const int ai = offset * (2 * lid + 1) - 1;
            const int bi = offset * (2 * lid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        block_sums[get_group_id(0)] = temp[B - 1];
        temp[B - 1] = 0.0f;
    }
    for (int d = 1; d < B; d *= 2) {                /* down-sweep */
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            const int ai = offset * (2 * lid + 1) - 1;
            const int bi = offset * (2 * lid + 2) - 1;
            const float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (base + 2 * lid < n)
        y[base + 2 * lid] = temp[2 * lid];
    if (base + 2 * lid + 1 < n)
        y[base + 2 * lid + 1] = temp[2 * lid + 1];
}
