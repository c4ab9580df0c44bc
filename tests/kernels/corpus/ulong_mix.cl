// ulong_mix: 64-bit integer arithmetic and size_t index math.
// Exercises: ulong multiply/add wraparound modulo 2^64 (splitmix64), 64-bit shifts, ulong and uint scalar
// arguments, size_t arithmetic and modulo for a strided gather, conversions ulong -> uint (truncation).

ulong splitmix64(ulong z)
{
    z += 0x9E3779B97F4A7C15UL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
    return z ^ (z >> 31);
}

__kernel void ulong_mix(__global const ulong* seeds,
                        __global ulong* out,
                        __global uint* folded,
                        const ulong stride,
                        const uint n)
{
    const size_t gid = get_global_id(0);
    if (gid >= n)
        return;
    const size_t j = (gid * (size_t)stride + 7) % (size_t)n;   /* gather from a strided position */
    const ulong z = splitmix64(seeds[j] + (ulong)gid);
    out[gid] = z;
    folded[gid] = (uint)(z >> 32) ^ (uint)z;
}
