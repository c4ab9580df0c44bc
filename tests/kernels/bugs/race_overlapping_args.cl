// Planted bug: data race through two arguments over one buffer. The host passes `in` and `out` as views of one
// allocation, `in` starting 32 or 64 floats after `out` (a shift meant to run from one buffer into another):
// work-item i reads in[i], the float that work-item i + 32 (or i + 64), of another work-group, stores as
// out[i + 32]. The `data` argument is the whole buffer (read back by the host), which the kernel does not touch.
// Expected check: race_global, at line 13.
__kernel void shift_down(__global const float* in,
                         __global float* out,
                         __global float* data,
                         const int n)
{
    const int i = get_global_id(0);
    if (i < n)
        out[i] = 0.5f * in[i];    // FAULT
}
