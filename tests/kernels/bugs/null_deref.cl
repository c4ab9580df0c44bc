// Planted bug: a dereference of a NULL pointer. `bias` is optional (the host passes NULL when there is none and
// says so in has_bias), but the kernel reads it without looking at has_bias.
// Expected check: null_pointer, at line 14.
__kernel void scale_add(__global const float* x,
                        __global const float* bias,
                        __global float* y,
                        const float scale,
                        const int has_bias,
                        const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    y[i] = scale * x[i] + bias[i];    // FAULT
}
