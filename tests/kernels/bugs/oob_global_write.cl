// Planted bug: out-of-bounds write to __global memory (off-by-one bound: `<=` where `<` was meant).
// Expected check: out_of_bounds_global, at line 10 (the work-item with i == n writes y[n]).
__kernel void fill_ramp(__global float* y,
                        const float delta,
                        const int n)
{
    const int i = get_global_id(0);
    if (i <= n)                 /* should be i < n */
    {
        y[i] = delta * (float)i;     // FAULT
    }
}
