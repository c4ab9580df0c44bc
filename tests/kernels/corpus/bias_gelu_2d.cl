// bias_gelu_2d: y = gelu(x + bias[col]) on a rows x cols matrix with the tanh approximation
// gelu(v) = 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3))).
// Exercises: 2-D NDRange over a matrix (get_global_id(1) is the row), tanh, a bias broadcast along rows,
// float literals with the f suffix, a #define'd float constant, a helper function returning float.
#define SQRT_2_OVER_PI 0.7978845608028654f

float gelu_tanh(const float v)
{
    const float inner = SQRT_2_OVER_PI * (v + 0.044715f * v * v * v);
    return 0.5f * v * (1.0f + tanh(inner));
}

__kernel void bias_gelu_2d(__global const float* x,
                           __global const float* bias,
                           __global float* y,
                           const int rows,
                           const int cols)
{
    const int c = get_global_id(0);
    const int r = get_global_id(1);
    if (r < rows && c < cols)
        y[r * cols + c] = gelu_tanh(x[r * cols + c] + bias[c]);
}
