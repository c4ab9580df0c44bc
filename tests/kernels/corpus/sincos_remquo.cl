// sincos (its cosine stored into __local memory, then read back), remquo (the quotient's sign and low 3 bits are
// what every implementation keeps: OpenCL asks for at least 3) and lgamma_r (the sign of Gamma into private memory).
#define WG 64
__kernel void sincos_remquo(__global const float* x, __global const float* y, __global float* trig,
                            __global float* rem, __global int* quo, __global float* lg, __global int* sgn) {
    int i = get_global_id(0);
    int l = get_local_id(0);
    __local float cosines[WG];
    float s = sincos(x[i], &cosines[l]);
    barrier(CLK_LOCAL_MEM_FENCE);
    trig[2 * i] = s;
    trig[2 * i + 1] = cosines[l];
    int q;
    rem[i] = remquo(x[i], y[i], &q);
    quo[i] = q < 0 ? -((-q) & 7) : (q & 7);
    int sign;
    lg[i] = lgamma_r(y[i], &sign);
    sgn[i] = sign;
}
