// math_unary: one output per transcendental built-in, so each can be held to its own ULP bound
// (OpenCL 1.2 section 7.4: sqrt 3, rsqrt 2, exp 3, log 3, pow 16, sin/cos 4 ulp).
// Exercises: sqrt, rsqrt, exp, log, pow, sin, cos on float scalars.
__kernel void math_unary(__global const float* x,     /* positive: (0.1, 100) */
                         __global const float* y,     /* signed: (-4, 4) */
                         __global const float* t,     /* angles: (-10, 10) */
                         __global float* out_sqrt,
                         __global float* out_rsqrt,
                         __global float* out_exp,
                         __global float* out_log,
                         __global float* out_pow,
                         __global float* out_sin,
                         __global float* out_cos,
                         const int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        const float xi = x[i];
        const float yi = y[i];
        const float ti = t[i];
        out_sqrt[i] = sqrt(xi);
        out_rsqrt[i] = rsqrt(xi);
        out_exp[i] = exp(yi);
        out_log[i] = log(xi);
        out_pow[i] = pow(xi, yi);
        out_sin[i] = sin(ti);
        out_cos[i] = cos(ti);
    }
}
