// OpenCL C 1.2 Table 6.10 bit built-ins: clz, popcount and rotate on uchar16 and ulong2, mul_hi and mad_hi on
// uint4 and long2 (64-bit high halves), upsample, mul24 and mad24 on 24-bit operands.
__kernel void bit_ops(__global const uchar16* b, __global const ulong2* w, __global const uint4* u,
                      __global const long2* s, __global const int* small, __global uchar16* ob,
                      __global ulong2* ow, __global uint4* ou, __global long2* os, __global int* o24) {
    int i = get_global_id(0);
    uchar16 b0 = b[i];
    ob[3 * i] = clz(b0);
    ob[3 * i + 1] = popcount(b0);
    ob[3 * i + 2] = rotate(b0, b0.sfedcba9876543210);
    ulong2 w0 = w[2 * i], w1 = w[2 * i + 1];
    ow[3 * i] = clz(w0) + popcount(w1);
    ow[3 * i + 1] = rotate(w0, w1);
    ow[3 * i + 2] = mul_hi(w0, w1);
    uint4 u0 = u[2 * i], u1 = u[2 * i + 1];
    ou[2 * i] = mul_hi(u0, u1);
    ou[2 * i + 1] = mad_hi(u0, u1, u0);
    long2 s0 = s[2 * i], s1 = s[2 * i + 1];
    os[2 * i] = mul_hi(s0, s1);
    os[2 * i + 1] = upsample(convert_int2(s0 >> 32), convert_uint2(s1));
    int x = small[2 * i], y = small[2 * i + 1];
    o24[2 * i] = mul24(x, y);
    o24[2 * i + 1] = mad24(x, y, x);
}
