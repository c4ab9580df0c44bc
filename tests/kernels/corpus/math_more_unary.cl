// OpenCL C 1.2 Table 6.8 unary math built-ins, each on an argument inside its domain, away from poles.
__kernel void math_more_unary(__global const float* x, __global float* trig, __global float* expo,
                         __global float* exact, const int n) {
    int i = get_global_id(0);
    if (i >= n) return;
    float v = x[i];          // in [0.05, 0.45]
    float w = 1.0f + 8.0f * v;  // in [1.4, 4.6]
    __global float* t = trig + 15 * i;
    t[0] = acos(v); t[1] = asin(v); t[2] = atan(w); t[3] = acospi(v); t[4] = asinpi(v);
    t[5] = atanpi(w); t[6] = cospi(v); t[7] = sinpi(v); t[8] = tanpi(v); t[9] = asinh(w);
    t[10] = atanh(v); t[11] = acosh(w); t[12] = cosh(w); t[13] = sinh(w); t[14] = cbrt(w - 3.0f);
    __global float* e = expo + 8 * i;
    e[0] = exp10(w); e[1] = expm1(v); e[2] = log10(w); e[3] = log1p(v); e[4] = erf(v);
    e[5] = erfc(w); e[6] = tgamma(w); e[7] = lgamma(w + 2.0f);
    exact[2 * i] = logb(w * 100.0f);
    exact[2 * i + 1] = rint(w * 10.0f);
}
