// Planted bug: a goto into a loop jumps over the initialization of its counter. The work-items whose x is
// negative go straight to `accumulate:` in the loop's body, past `uchar k = 0`: k holds nothing for them (C99
// 6.8.6.1), and the loop's test reads it (a uchar: whatever it holds, the loop ends).
// Expected check: uninitialized_private, at line 12.
__kernel void skip_init(__global const float* x, __global float* y)
{
    const int i = get_global_id(0);
    float acc = 0.0f;
    if (x[i] < 0.0f)
        goto accumulate;    /* should be a flag the loop tests */
    acc = x[i];
    for (uchar k = 0; k < 3; k++) {    // FAULT
        acc += x[i] * k;
    accumulate:
        acc += 1.0f;
    }
    y[i] = acc;
}
