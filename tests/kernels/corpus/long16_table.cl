// Arrays of long16 initialized from scalars: each scalar is one splat element ({0, 1, 2} is three vectors), in
// private memory and in a __constant table; a partial initializer leaves the rest zero.
__constant long16 weights[] = {3, -2, 7};

__kernel void long16_table(__global const long* x, __global long* out, const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    long16 data[] = {0, 1, 2};
    long16 partial[4] = {5};
    const long16 v = data[i % 3] * x[i] + weights[i % 3] + partial[i % 4];
    out[2 * i] = v.s0 + v.sf;
    out[2 * i + 1] = (long)(sizeof(data) / sizeof(data[0])) * 1000 + v.s7;
}
