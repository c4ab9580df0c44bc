// Planted bug: out-of-bounds read of __global memory (a forward difference that forgets the last element).
// Expected check: out_of_bounds_global, at line 10 (the work-item with i == n - 1 reads x[n]).
__kernel void forward_diff(__global const float* x,
                           __global float* dx,
                           const int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        /* should be guarded with i + 1 < n */
        dx[i] = x[i + 1] - x[i];    // FAULT
    }
}
