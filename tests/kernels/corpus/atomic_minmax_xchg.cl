// atomic_minmax_xchg: per-segment minimum, maximum and bit set with global atomics, and a permutation applied
// through atomic_xchg (each slot is exchanged exactly once, so the old values returned are deterministic).
// Exercises: atomic_min, atomic_max and atomic_xchg on __global int, atomic_or on __global uint (bit v mod 32
// of a negative v comes from its two's complement bits), atomics whose return value is used, targets indexed
// through another buffer.
__kernel void atomic_minmax_xchg(__global const int* vals,
                                 __global const int* seg,
                                 __global const int* perm,
                                 __global int* seg_min,
                                 __global int* seg_max,
                                 __global uint* seg_bits,
                                 __global int* slots,
                                 __global int* old,
                                 const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const int v = vals[i];
    const int s = seg[i];
    atomic_min(&seg_min[s], v);
    atomic_max(&seg_max[s], v);
    atomic_or(&seg_bits[s], 1u << (v & 31));
    old[i] = atomic_xchg(&slots[perm[i]], v);
}
