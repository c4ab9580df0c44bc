// uint_hash: 32-bit hashing and bit manipulation, all in unsigned arithmetic that wraps modulo 2^32.
// Exercises: uint multiply/add/subtract wraparound, shifts by constants and by a variable amount
// (OpenCL C takes the shift count modulo the bit width: x << s is x << (s & 31) for uint, which C leaves
// undefined), xor/and/or/not, rotate, popcount, clz, a helper function, hex and unsigned literals.

uint fmix32(uint h)
{
    /* MurmurHash3 finalizer */
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

__kernel void uint_hash(__global const uint* keys,
                        __global const uint* shifts,   /* 0..63: counts past 31 wrap */
                        __global uint* hashes,
                        __global uint* mixed,
                        __global uint* counts,         /* popcount and clz, two per item */
                        const uint seed,
                        const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const uint k = keys[i];
    const uint s = shifts[i];

    hashes[i] = fmix32(k ^ seed) + (uint)i * 2654435761u - 0x9e3779b9u;

    uint m = (k << s) | (k >> (32u - (s & 31u)));      /* the OpenCL rule makes the s == 0 case defined */
    m ^= rotate(k, (uint)7) & ~(k >> 3);
    m += (k & 0x00ff00ffu) * 257u;
    mixed[i] = m;

    counts[2 * i] = popcount(k);
    counts[2 * i + 1] = clz(k);
}
