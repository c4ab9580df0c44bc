// OpenCL C 1.2 Table 6.13 geometric built-ins on float3 and float4: cross, normalize, distance, dot, length, and
// the fast_ variants (fast_normalize, fast_length, fast_distance: reduced accuracy).
__kernel void geometry_normalize_cross(__global const float* p, __global const float* q, __global float4* vec,
                                       __global float* sc, __global float4* fast) {
    int i = get_global_id(0);
    float3 a = vload3(i, p), b = vload3(i, q);
    float4 c = vload4(i, p), d = vload4(i, q);
    vec[4 * i] = (float4)(cross(a, b), 0.0f);
    vec[4 * i + 1] = cross(c, d);
    vec[4 * i + 2] = normalize(c);
    vec[4 * i + 3] = (float4)(normalize(a), length(b));
    sc[3 * i] = dot(a, b);
    sc[3 * i + 1] = distance(c, d);
    sc[3 * i + 2] = length(a);
    fast[2 * i] = fast_normalize(d);
    fast[2 * i + 1] = (float4)(fast_length(b), fast_distance(c, d), fast_length(c.xy), fast_distance(a, b));
}
