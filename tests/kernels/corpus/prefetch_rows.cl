// prefetch_rows: each work-item sums one row of a row-major matrix in chunks of CH float4s, prefetching the next
// chunk of its row before it sums the current one; the last prefetch of a row (and of the matrix) points past
// the data: prefetch is a hint and must not fault.
// Exercises: prefetch on a float4 pointer in a loop, a prefetch past the end of the buffer, a work-item per row
// with a guard.
#define CH 4

__kernel void prefetch_rows(__global const float4* m,
                            __global float* sums,
                            const int rows,
                            const int cols4)
{
    const int r = get_global_id(0);
    if (r >= rows)
        return;
    __global const float4* row = m + r * cols4;
    float4 acc = (float4)(0.0f);
    for (int c = 0; c < cols4; c += CH) {
        prefetch(row + c + CH, CH);
        for (int k = c; k < c + CH && k < cols4; k++)
            acc += row[k];
    }
    sums[r] = acc.x + acc.y + acc.z + acc.w;
}
