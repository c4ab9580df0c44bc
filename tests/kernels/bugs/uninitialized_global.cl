// Planted bug: read of a __global buffer the host created without data. The host allocates `bias` but never
// uploads it (nor does anything write it before the launch): every work-item reads bytes nobody wrote.
// Expected check: uninitialized_global, at line 12.
__kernel void add_bias(__global const float* x,
                       __global const float* bias,
                       __global float* y,
                       const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    y[i] = x[i] + bias[i];    // FAULT
}
