// Planted bug: out-of-bounds read of __constant memory (a FIR filter loop runs one tap too far).
// Expected check: out_of_bounds_constant, at line 14 (k == TAPS reads taps[TAPS]).
#define TAPS 5

__kernel void fir_filter(__global const float* x,
                         __constant float* taps,      /* TAPS floats */
                         __global float* y,
                         const int n)
{
    const int i = get_global_id(0);
    if (i + TAPS < n) {
        float acc = 0.0f;
        for (int k = 0; k <= TAPS; ++k)        /* should be k < TAPS */
            acc += taps[k] * x[i + k];    // FAULT
        y[i] = acc;
    }
}
