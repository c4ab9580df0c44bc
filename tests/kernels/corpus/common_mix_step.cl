// OpenCL C 1.2 Table 6.11 common built-ins on float4 and float, with the scalar-argument forms: clamp, degrees,
// radians, max, min, mix, step, smoothstep, sign.
__kernel void common_mix_step(__global const float4* x, __global const float4* y, __global const float* t,
                              __global float4* exact, __global float4* approx) {
    int i = get_global_id(0);
    float4 a = x[i], b = y[i];
    float s = t[i];
    exact[5 * i] = clamp(a, -2.0f, 2.0f);
    exact[5 * i + 1] = max(a, s) + min(b, s);
    exact[5 * i + 2] = step(b, a) + 2.0f * step(s, b);
    exact[5 * i + 3] = sign(a) + 4.0f * sign(b - a);
    exact[5 * i + 4] = clamp(a, fmin(b, s), fmax(b, s));
    approx[5 * i] = degrees(a);
    approx[5 * i + 1] = radians(b);
    approx[5 * i + 2] = mix(a, b, s);
    approx[5 * i + 3] = mix(a, b, (float4)(0.25f, 0.5f, 0.75f, s));
    approx[5 * i + 4] = smoothstep(-1.0f, 1.5f, a) + smoothstep(b - 3.0f, b + 3.0f, (float4)(s));
}
