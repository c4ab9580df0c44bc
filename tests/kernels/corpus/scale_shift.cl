// scale_shift: x = alpha * x in place for the first n elements, and an int offset added to an index buffer.
// Exercises: two scalar arguments of different types (float, int), in/out buffers of two element types,
// an early return for out-of-range work-items.
__kernel void scale_shift(__global float* x,
                          __global int* idx,
                          const float alpha,
                          const int offset,
                          const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    x[i] *= alpha;
    idx[i] += offset;
}
