// Planted bug: a store through a __private pointer that is still NULL. The kernel picks its output buffer by
// `which`, but the case for which == 2 is missing: every work-item stores through the NULL pointer.
// Expected check: null_pointer, at line 18.
__kernel void route(__global const float* x,
                    __global float* even,
                    __global float* odd,
                    const int which,
                    const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    __global float* out = 0;
    if (which == 0)
        out = even;
    else if (which == 1)
        out = odd;
    out[i] = 2.0f * x[i];    // FAULT
}
