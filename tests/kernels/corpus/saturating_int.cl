// OpenCL C 1.2 Table 6.10 saturating and halving integer built-ins on char16, short8, int4 and uint4 (add_sat,
// sub_sat, mad_sat, hadd, rhadd, abs_diff, and clamp/max/min with vector bounds; the scalar-bound forms are in
// scalar_bounds_denormals.cl).
__kernel void saturating_int(__global const char16* c, __global const short8* s, __global const int4* a,
                             __global const uint4* u, __global char16* oc, __global short8* os, __global int4* oa,
                             __global uint4* ou) {
    int i = get_global_id(0);
    char16 c0 = c[2 * i], c1 = c[2 * i + 1];
    oc[4 * i] = add_sat(c0, c1);
    oc[4 * i + 1] = sub_sat(c0, c1);
    oc[4 * i + 2] = as_char16(abs_diff(c0, c1));
    oc[4 * i + 3] = clamp(hadd(c0, c1), (char16)(-50), (char16)(50));
    short8 s0 = s[2 * i], s1 = s[2 * i + 1];
    os[3 * i] = mad_sat(s0, s1, s0);
    os[3 * i + 1] = rhadd(s0, s1);
    os[3 * i + 2] = max(sub_sat(s0, s1), (short8)(-1000));
    int4 a0 = a[2 * i], a1 = a[2 * i + 1];
    oa[3 * i] = add_sat(a0, a1);
    oa[3 * i + 1] = mad_sat(a0, a1, a0);
    oa[3 * i + 2] = hadd(a0, a1) - rhadd(a0, a1);
    uint4 u0 = u[2 * i], u1 = u[2 * i + 1];
    ou[3 * i] = add_sat(u0, u1);
    ou[3 * i + 1] = sub_sat(u0, u1);
    ou[3 * i + 2] = min(mad_sat(u0, u1, u0), (uint4)(4000000000u));
}
