// Planted bug: read of an uninitialized __private array element. The loop fills taps[0..6] of an 8-element
// array, but the read index is i & 7: the work-items with i & 7 == 7 read taps[7], which nothing wrote.
// Expected check: uninitialized_private, at line 15.
__kernel void scaled_pick(__global const float* x,
                          __global float* y,
                          const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    float taps[8];
    /* should run k < 8 */
    for (int k = 0; k < 7; k++)
        taps[k] = x[i] * (float)k;
    y[i] = taps[i & 7];    // FAULT
}
