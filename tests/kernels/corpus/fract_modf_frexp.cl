// OpenCL C 1.2 Table 6.8 math built-ins with pointer arguments: fract (pointer to private), modf (pointer into a
// __local array), frexp (pointer into a __global int4 buffer), and nan(uintn); ldexp rebuilds x from frexp's parts.
#define WG 64
__kernel void fract_modf_frexp(__global const float4* x, __global float4* parts, __global int4* exps,
                               __global int4* checks) {
    int i = get_global_id(0);
    int l = get_local_id(0);
    __local float4 whole[WG];
    float4 v = x[i];
    float4 fl;
    parts[5 * i] = fract(v, &fl);
    parts[5 * i + 1] = fl;
    parts[5 * i + 2] = modf(v, &whole[l]);
    parts[5 * i + 3] = whole[l];
    float4 m = frexp(v, &exps[i]);
    parts[5 * i + 4] = m;
    float4 back = ldexp(m, exps[i]);
    uint4 code = as_uint4(v) & 0xFFFFu;
    checks[i] = (int4)(all(isequal(back, v) | isnan(v)), all(isnan(nan(code))), vec_step(v), vec_step(fl.xyz));
}
