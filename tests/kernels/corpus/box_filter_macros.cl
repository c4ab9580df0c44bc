// box_filter_macros: moving mean and mean square over a window of 2 * RADIUS + 1 samples with clamp-to-edge,
// written with preprocessor macros throughout.
// Exercises: object-like and function-like #define macros (nested, parenthesized arguments), #ifndef with a
// default, #if arithmetic and #error, a macro used as the size of a private array and as a loop bound (the
// simulator must run a C preprocessor before parsing).
#ifndef RADIUS
#define RADIUS 3
#endif
#define WIDTH (2 * RADIUS + 1)
#define CLAMP_INDEX(i, n) clamp((i), 0, (n) - 1)
#define SQR(v) ((v) * (v))
#define INV_WIDTH (1.0f / WIDTH)

#if WIDTH > 15
#error "window too wide for this kernel"
#endif

__kernel void box_filter_macros(__global const float* x,
                                __global float* mean,
                                __global float* mean_sq,
                                const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    float window[WIDTH];
    for (int k = 0; k < WIDTH; ++k)
        window[k] = x[CLAMP_INDEX(i + k - RADIUS, n)];
    float s = 0.0f, s2 = 0.0f;
    for (int k = 0; k < WIDTH; ++k) {
        s += window[k];
        s2 += SQR(window[k]);
    }
    mean[i] = s * INV_WIDTH;
    mean_sq[i] = s2 * INV_WIDTH;
}
