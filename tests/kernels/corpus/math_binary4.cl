// OpenCL C 1.2 Table 6.8 two-argument math built-ins on float4, plus ilogb/ldexp/rootn with int4 arguments.
__kernel void math_binary4(__global const float4* x, __global const float4* y, __global const int4* k,
                           __global float4* angles, __global float4* exact, __global int4* ilog) {
    int i = get_global_id(0);
    float4 a = x[i], b = y[i];
    int4 m = k[i];  // in [1, 7]
    angles[4 * i] = atan2(a, b);
    angles[4 * i + 1] = atan2pi(a, b);
    angles[4 * i + 2] = hypot(a, b);
    angles[4 * i + 3] = rootn(fabs(a) + 0.5f, m);
    exact[7 * i] = copysign(a, b);
    exact[7 * i + 1] = fdim(a, b);
    exact[7 * i + 2] = maxmag(a, b);
    exact[7 * i + 3] = minmag(a, b);
    exact[7 * i + 4] = remainder(a, b);
    exact[7 * i + 5] = nextafter(a, b);
    exact[7 * i + 6] = ldexp(a, m - 4);
    ilog[i] = ilogb(a * 1000.0f);
}
