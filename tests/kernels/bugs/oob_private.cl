// Planted bug: out-of-bounds access to a __private array (a histogram with one bin too few: a value of exactly
// 1.0 falls into bin BINS, one past the end of the array and of its whole private allocation).
// Expected check: out_of_bounds_private, at line 16 (the one work-item whose x is 1.0 writes seen[BINS]).
#define BINS 4

__kernel void private_histogram(__global const float* x,
                                __global int* y,
                                const int n)
{
    const int gid = get_global_id(0);
    if (gid >= n)
        return;
    int seen[BINS] = {0, 0, 0, 0};          /* should be BINS + 1, or clamp the bin */
    const int bin = (int)(x[gid] * BINS);
    if (bin >= 0)
        seen[bin] = 1;                      // FAULT
    y[gid] = seen[0] + 2 * seen[1] + 4 * seen[2] + 8 * seen[3];
}
