// Two corners of Tables 6.10, 6.11 and 6.14 that Oclgrind 21.10 gets wrong: integer clamp/max/min with scalar
// bounds on vectors (the sgentype forms), and float denormals through isnormal (false for them), select and
// bitselect on float values (which must copy the bits).
__kernel void scalar_bounds_denormals(__global const char16* c, __global const short8* s, __global const uint4* u,
                                      __global const float4* x, __global const float4* y, __global char16* oc,
                                      __global short8* os, __global uint4* ou, __global int4* classes,
                                      __global float4* picked) {
    int i = get_global_id(0);
    oc[i] = clamp(c[i], (char)-50, (char)50);
    os[2 * i] = max(s[i], (short)-1000);
    os[2 * i + 1] = min(s[i], (short)1000);
    ou[i] = min(max(u[i], 1000u), 4000000000u);
    float4 a = x[i], b = y[i];
    classes[i] = isnormal(a) + 2 * isless(a, b) + 4 * isequal(a, (float4)(0.0f)) + 8 * signbit(a);
    picked[2 * i] = select(a, b, isgreater(a, b));
    picked[2 * i + 1] = bitselect(a, b, as_float4((int4)(0x0F0F0F0F, 0x00FFFFFF, -1, 0x7F800000)));
}
