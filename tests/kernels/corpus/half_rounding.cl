// OpenCL C 1.2 6.12.7 half conversions: vstore_half with each rounding mode (_rte default, _rtz, _rtp, _rtn),
// vstore_half4, vstorea_half3 (aligned as 4 halves), vload_half and vloada_half3.
__kernel void half_rounding(__global const float* x, __global half* rte, __global half* rtz, __global half* rtp,
                            __global half* rtn, __global half* dflt4, __global half* aligned3, __global float* back) {
    int i = get_global_id(0);
    float v = x[i];
    vstore_half_rte(v, i, rte);
    vstore_half_rtz(v, i, rtz);
    vstore_half_rtp(v, i, rtp);
    vstore_half_rtn(v, i, rtn);
    float4 q = vload4(i, x + get_global_size(0));
    vstore_half4(q, i, dflt4);
    vstorea_half3(q.xyz, i, aligned3);
    float3 r = vloada_half3(i, aligned3);
    vstore_half(r.x + 1.0f, 4 * i + 3, aligned3);  // the padding half: vstorea_half3 may write it too
    back[2 * i] = vload_half(i, rtz) + r.y;
    back[2 * i + 1] = r.x - r.z;
}
