// softmax_rows: numerically stable softmax of each row of a rows x cols matrix, one work-group per row.
// The group finds the row maximum, then the sum of exp(x - max), both with tree reductions in __local memory,
// then every item normalizes its strided share of the row.
// Exercises: work-group-per-row mapping (get_group_id picks the row), strided loops over a row longer than
// the group and not a multiple of it, two local reductions reusing one __local array, a value broadcast
// through __local memory, exp and division, fmax.
#define WG 64

__kernel void softmax_rows(__global const float* x,
                           __global float* y,
                           const int cols)
{
    __local float red[WG];
    __local float row_max;
    __local float row_sum;

    const int row = get_group_id(0);
    const int lid = get_local_id(0);
    __global const float* xr = x + row * cols;
    __global float* yr = y + row * cols;

    float m = -INFINITY;
    for (int j = lid; j < cols; j += WG)
        m = fmax(m, xr[j]);
    red[lid] = m;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            red[lid] = fmax(red[lid], red[lid + s]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        row_max = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    const float mx = row_max;

    float acc = 0.0f;
    for (int j = lid; j < cols; j += WG)
        acc += exp(xr[j] - mx);
    red[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = WG / 2; s > 0; s >>= 1) {
        if (lid < s)
            red[lid] += red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        row_sum = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    const float total = row_sum;

    for (int j = lid; j < cols; j += WG)
        yr[j] = exp(xr[j] - mx) / total;
}
