// saxpy: y = a * x + y (BLAS level 1), y updated in place.
// Exercises: a float scalar argument, an in/out buffer, an unsigned bound (uint n compared with size_t).
// OpenCL C allows the compiler to contract a * x + y into an fma (FP_CONTRACT is on by default).
__kernel void saxpy(const float a,
                    __global const float* x,
                    __global float* y,
                    const uint n)
{
    const size_t i = get_global_id(0);
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}
