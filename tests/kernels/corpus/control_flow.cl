// control_flow: integer helpers with data-dependent loops, one result row per item.
// Exercises: non-kernel helper functions (including one taking a __global pointer), while, do-while, for with
// continue and break, early return from a helper inside a loop, nested ternaries, uint division and modulo,
// loops whose trip counts differ between neighbouring work-items (divergence).

int collatz_steps(uint v)
{
    int steps = 0;
    while (v != 1u) {
        v = (v & 1u) ? 3u * v + 1u : v >> 1;
        ++steps;
    }
    return steps;
}

uint gcd(uint a, uint b)
{
    while (b != 0u) {
        const uint t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int digit_sum(uint v)
{
    int s = 0;
    do {
        s += (int)(v % 10u);
        v /= 10u;
    } while (v != 0u);
    return s;
}

/* index (relative to start) of the first value above `limit` among the next `len` values, skipping negative
   ones and stopping at a zero; -1 when there is none */
int first_above(__global const int* v, int start, int len, int total, int limit)
{
    for (int j = 0; j < len; ++j) {
        if (start + j >= total)
            break;
        const int w = v[start + j];
        if (w < 0)
            continue;
        if (w == 0)
            break;
        if (w > limit)
            return j;
    }
    return -1;
}

__kernel void control_flow(__global const uint* a,     /* 1 .. 5000 */
                           __global const uint* b,     /* 0 .. 5000 */
                           __global const int* v,      /* -50 .. 50 */
                           __global int* out,          /* n rows of 5 */
                           const int limit,
                           const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const uint ai = a[i];
    const uint bi = b[i];
    __global int* row = out + 5 * i;
    row[0] = collatz_steps(ai);
    row[1] = (int)gcd(ai, bi);
    row[2] = digit_sum(ai * 7919u + bi);
    row[3] = first_above(v, i, 8, n, limit);
    row[4] = ai > bi ? 1 : ai == bi ? 0 : -1;
}
