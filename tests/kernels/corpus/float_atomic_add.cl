// float_atomic_add: scatter-add of float weights into bins (a segment sum / weighted histogram) with a float
// atomic add built from atomic_cmpxchg on the bits of the float (OpenCL 1.2 has no float atomics).
// Exercises: a helper taking a volatile __global pointer, as_int / as_float reinterpretation, a
// compare-and-swap retry loop (do-while), pointer casts between float* and int*. The order of the additions
// is not deterministic, so the result is compared with a tolerance. The first read of the bin is atomic too
// (atomic_add of 0): a plain load beside other work-items' atomics is a data race (bugs/race_atomic_plain.cl).

void atomic_add_float(volatile __global float* addr, const float val)
{
    volatile __global int* as_ints = (volatile __global int*)addr;
    int expected, seen = atomic_add(as_ints, 0);
    do {
        expected = seen;
        const float updated = as_float(expected) + val;
        seen = atomic_cmpxchg(as_ints, expected, as_int(updated));
    } while (seen != expected);
}

__kernel void float_atomic_add(__global const int* bin_of,
                               __global const float* weight,
                               __global float* bins,
                               const int n)
{
    const int i = get_global_id(0);
    if (i < n)
        atomic_add_float(&bins[bin_of[i]], weight[i]);
}
