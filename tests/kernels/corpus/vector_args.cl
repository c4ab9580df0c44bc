// Vector kernel arguments by value: an int4 scale and offset and a float4 weight, applied to int4 and float4
// buffers (integer arithmetic wraps modulo 2^32, as in C for unsigned and in OpenCL for int vectors).
__kernel void affine_int4(__global const int4* x,
                          __global int4* y,
                          __global const float4* f,
                          __global float* dots,
                          const int4 scale,
                          const int4 offset,
                          const float4 weight,
                          const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    y[i] = x[i] * scale + offset.wzyx;
    dots[i] = f[i].x * weight.x + f[i].y * weight.y + f[i].z * weight.z + f[i].w * weight.w;
}
