// float4_geometry: per-item 4-vectors loaded from flat float arrays.
// Exercises: vload4/vstore4, float4 arithmetic, swizzles (.wzyx, .xy, .yx, .s0, .s3, .hi, .lo, .even, .odd),
// vector constructors (float4)(float2, float2) and (float4)(scalars), splats (float4)(2.0f),
// a float4* buffer argument, dot and length.
__kernel void float4_geometry(__global const float* p,      /* n * 4 floats */
                              __global const float* q,      /* n * 4 floats */
                              __global float* out_vec,      /* n * 4 floats */
                              __global float* out_dot,
                              __global float* out_len,
                              __global float4* out_mix,
                              const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const float4 a = vload4(i, p);
    const float4 b = vload4(i, q);

    const float4 two = (float4)(2.0f);              /* splat */
    const float4 c = a * two + b.wzyx;              /* (2a.x + b.w, 2a.y + b.z, 2a.z + b.y, 2a.w + b.x) */
    float4 d = (float4)(c.hi, c.lo);                /* (c.z, c.w, c.x, c.y) */
    d.xy = d.yx;                                    /* (c.w, c.z, c.x, c.y) */
    d.s3 = a.s0 - b.s3;                             /* (c.w, c.z, c.x, a.x - b.w) */
    vstore4(d, i, out_vec);

    out_dot[i] = dot(a, b);
    out_len[i] = length(a - b);

    const float4 m = (float4)(a.x, b.y, a.z, 1.0f);
    out_mix[i] = m * (float4)(a.even, b.odd);       /* (a.x * a.x, b.y * a.z, a.z * b.y, b.w) */
}
