// Planted bug: a plain read beside atomics on __global memory. The float atomic add reads the bin with a plain
// (volatile) load before its atomic_cmpxchg retry loop while other work-items update the bin atomically: an
// atomic and a non-atomic access to one address in one barrier interval are a data race (the corrected kernel,
// corpus/float_atomic_add.cl, reads it with atomic_add(as_ints, 0)).
// Expected check: race_global, at line 15 (the atomic_cmpxchg, which other work-items' plain load at line 11
// read in the same barrier interval).

void atomic_add_float(volatile __global float* addr, const float val)
{
    volatile __global int* as_ints = (volatile __global int*)addr;
    int expected, seen = *as_ints;
    do {
        expected = seen;
        const float updated = as_float(expected) + val;
        seen = atomic_cmpxchg(as_ints, expected, as_int(updated));    // FAULT
    } while (seen != expected);
}

__kernel void segment_sum(__global const int* bin_of,
                          __global const float* weight,
                          __global float* bins,
                          const int n)
{
    const int i = get_global_id(0);
    if (i < n)
        atomic_add_float(&bins[bin_of[i]], weight[i]);
}
