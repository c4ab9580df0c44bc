// switch_local_groups: the work-items of each work-group take different cases of switches around barriers that
// all of them reach (the barriers are outside the switches), exchanging values through __local memory.
// Exercises: divergent switch on a uint (u-suffixed labels), on a size_t (get_local_id), on a
// ushort (promoted to int), fallthrough, two consecutive case labels, a default that is not last.
// The controlling expressions are remainders by 6 and 5, not masks (key & 7u, lid % 4): Oclgrind 21.10 runs a
// switch on a value LLVM narrows to a few bits (trunc to i3, i2) without dropping the high bits, so it takes the
// wrong case; PoCL and the simulator agree on either spelling.

#define WG 64

__kernel void switch_local_groups(__global const uint* keys,  /* random 32-bit */
                                  __global const int* v,      /* -1000 .. 1000 */
                                  __global int* out)          /* global size */
{
    __local int tile[WG];
    const size_t lid = get_local_id(0);
    const size_t gid = get_global_id(0);
    const uint key = keys[gid];
    const int x = v[gid];
    int t;
    switch (key % 6u) {
    case 0u:
        t = x;
        break;
    case 1u:
        t = -x;
        break;
    default:    /* 5 */
        t = 7;
        break;
    case 2u:
    case 3u:
        t = 2 * x;
        break;
    case 4u:
        t = x * x;
    }
    tile[lid] = t;
    barrier(CLK_LOCAL_MEM_FENCE);
    int r = tile[WG - 1 - lid];
    switch (lid % 5) {
    case 0:
        r += tile[(lid + 1) % WG];
        break;
    case 1:
        r -= t;     /* falls through */
    case 2:
        r ^= 0x55;
        break;
    default:    /* 3, 4 */
        break;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[lid] = r;
    barrier(CLK_LOCAL_MEM_FENCE);
    const ushort sel = (ushort)(key >> 16);
    switch (sel % 3) {
    case 0:
        out[gid] = tile[(lid + 5) % WG] + r;
        break;
    case 1:
        out[gid] = tile[(lid + WG - 1) % WG];
        break;
    default:
        out[gid] = r;
    }
}
