// layernorm_rows: layer normalization of each row (mean and variance over the row, then scale and shift by
// per-column gamma and beta), one work-group per row; the sums use a __local pointer argument.
// Exercises: a two-pass mean / variance with tree reductions, rsqrt, a float epsilon argument, per-column
// parameter vectors shared by all rows, a row length that is not a multiple of the work-group.
float group_sum(__local float* red, float v)
{
    const int lid = get_local_id(0);
    red[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            red[lid] += red[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const float total = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);      /* everyone has read red[0] before the next use overwrites it */
    return total;
}

__kernel void layernorm_rows(__global const float* x,
                             __global const float* gamma,
                             __global const float* beta,
                             __global float* y,
                             __local float* red,
                             const int cols,
                             const float eps)
{
    const int row = get_group_id(0);
    const int lid = get_local_id(0);
    const int L = get_local_size(0);
    __global const float* xr = x + row * cols;

    float s = 0.0f;
    for (int j = lid; j < cols; j += L)
        s += xr[j];
    const float mean = group_sum(red, s) / cols;

    float q = 0.0f;
    for (int j = lid; j < cols; j += L) {
        const float d = xr[j] - mean;
        q += d * d;
    }
    const float inv_std = rsqrt(group_sum(red, q) / cols + eps);

    for (int j = lid; j < cols; j += L)
        y[row * cols + j] = (xr[j] - mean) * inv_std * gamma[j] + beta[j];
}
