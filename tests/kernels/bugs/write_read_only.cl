// Planted bug: a store into a buffer allocated read-only (CL_MEM_READ_ONLY; wia.MemoryAccess.READ_ONLY). The
// kernel clamps its input in place instead of writing the output buffer.
// Expected check: write_to_read_only, at line 13.
__kernel void clamp_copy(__global float* x,
                         __global float* y,
                         const float lo,
                         const float hi,
                         const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    x[i] = clamp(x[i], lo, hi);    // FAULT
    y[i] = x[i];
}
