// vector_add: c = a + b over n floats.
// Exercises: the basic 1-D pattern; the NDRange is rounded up to a multiple of the work-group size, so the
// bound check (i < n) keeps the extra work-items from touching memory past the end.
__kernel void vector_add(__global const float* a,
                         __global const float* b,
                         __global float* c,
                         const int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
