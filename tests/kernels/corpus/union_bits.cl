// Type punning through a union: a float's bits as a uint (the same bytes, as on a device), split into sign,
// exponent and mantissa, and put back together with the sign flipped and the exponent raised by one.
typedef union {
    float f;
    uint u;
    uchar bytes[4];
} Bits;

__kernel void float_fields(__global const float* x,
                           __global uint* fields,
                           __global float* twice_negated,
                           const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    Bits b;
    b.f = x[i];
    const uint sign = b.u >> 31;
    const uint exponent = (b.u >> 23) & 0xffu;
    fields[3 * i] = sign;
    fields[3 * i + 1] = exponent;
    fields[3 * i + 2] = (b.u & 0x7fffffu) ^ (uint)b.bytes[3];
    Bits c = b;
    c.u = ((sign ^ 1u) << 31) | ((exponent + 1u) << 23) | (b.u & 0x7fffffu);
    twice_negated[i] = c.f;
}
