// Planted bug: a load from a buffer allocated write-only (CL_MEM_WRITE_ONLY; wia.MemoryAccess.WRITE_ONLY). The
// kernel accumulates into its output (y = a * x + y) although the host made y an output only.
// Expected check: read_from_write_only, at line 12.
__kernel void axpy_into(__global const float* x,
                        __global float* y,
                        const float a,
                        const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    y[i] = a * x[i] + y[i];    // FAULT
}
