// histogram_global: counts of 8-bit fields of 32-bit keys, every work-item incrementing a global bin.
// Exercises: atomic_inc on __global uint, a bin index from shifts and masks, bins that already hold counts
// (the histogram accumulates onto them), a scalar shift argument.
__kernel void histogram_global(__global const uint* keys,
                               __global uint* bins,     /* 256 bins */
                               const uint shift,
                               const int n)
{
    const int i = get_global_id(0);
    if (i < n)
        atomic_inc(&bins[(keys[i] >> shift) & 0xffu]);
}
