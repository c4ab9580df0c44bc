// Planted bug: a loop that never ends. The bit-counting loop forgets to shift v, so for any v != 0 the
// condition never changes; the executor must stop at its step limit with a clear error.
// Expected check: step_limit, at line 12 (the loop that does not terminate).
__kernel void count_bits(__global const uint* x,
                         __global uint* bits,
                         const int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        uint v = x[i];
        uint c = 0u;
        while (v != 0u) {    // FAULT
            c += v & 1u;
            /* missing: v >>= 1; */
        }
        bits[i] = c;
    }
}
