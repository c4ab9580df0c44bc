// OpenCL C 1.2 Table 6.14 relational built-ins: vector results are -1/0 masks (int4 for float4), scalar ones 1/0;
// select with signed and unsigned masks (the most significant bit decides), bitselect on float bits, any, all.
// (Denormals and bitselect on float values are in scalar_bounds_denormals.cl.)
__kernel void relational_masks(__global const float4* x, __global const float4* y, __global int4* masks,
                               __global int* flags, __global float4* picked, __global int4* bits) {
    int i = get_global_id(0);
    float4 a = x[i], b = y[i];
    masks[6 * i] = isless(a, b);
    masks[6 * i + 1] = isgreaterequal(a, b);
    masks[6 * i + 2] = islessgreater(a, b);
    masks[6 * i + 3] = isunordered(a, b) | isnan(a) << 1;
    masks[6 * i + 4] = isfinite(a) + isinf(b) + signbit(a);
    masks[6 * i + 5] = isnormal(a) & isordered(a, b);
    int4 m = isless(a, b);
    flags[4 * i] = any(m);
    flags[4 * i + 1] = all(m);
    flags[4 * i + 2] = isequal(a.x, b.x) + 2 * isnotequal(a.y, b.y) + 4 * isgreater(a.z, b.z);
    flags[4 * i + 3] = islessequal(a.w, b.w) + 2 * isnan(b.w) + 4 * signbit(b.x);
    picked[2 * i] = select(a, b, m);
    picked[2 * i + 1] = select(a, b, as_uint4(isgreater(a, b)));
    bits[2 * i] = bitselect(as_int4(a), as_int4(b), m ^ (int4)(0x0F0F0F0F));
    bits[2 * i + 1] = bitselect(as_int4(a), as_int4(b), (int4)(0x00FF00FF, -1, 0, 0x12345678));
}
