// Planted bug: read of an uninitialized __private variable. `last` is assigned only inside the loop, which runs
// i % 4 times: the work-items with i % 4 == 0 store `last` without ever having assigned it.
// Expected check: uninitialized_private, at line 15.
__kernel void last_of_window(__global const float* x,
                             __global float* y,
                             const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    float last;
    for (int k = 0; k < i % 4; k++)
        last = x[i - k];
    /* should start from float last = x[i]; */
    y[i] = last;    // FAULT
}
