// poly_build_option: evaluates a polynomial of degree DEGREE (Horner's rule) whose coefficients live in
// __constant memory; DEGREE and the optional USE_RELU come from the build options (-D DEGREE=5 -D USE_RELU).
// Exercises: -D build option values (the kernel does not build without DEGREE), #ifdef on an option, a loop
// bound from a macro, __constant argument indexing, fmax.
#ifndef DEGREE
#error "build with -D DEGREE=<n>"
#endif

__kernel void poly_build_option(__global const float* x,
                                __constant float* coeffs,    /* DEGREE + 1, highest power first */
                                __global float* y,
                                const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const float xi = x[i];
    float acc = coeffs[0];
    for (int k = 1; k <= DEGREE; ++k)
        acc = acc * xi + coeffs[k];
#ifdef USE_RELU
    acc = fmax(acc, 0.0f);
#endif
    y[i] = acc;
}
