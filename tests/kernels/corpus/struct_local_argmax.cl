// A work-group argmax with an array of structs in __local memory: each step keeps, of two (value, index)
// pairs, the larger value (the smaller index on a tie).
#define WG 64

typedef struct {
    float value;
    int index;
} Pair;

__kernel void group_argmax(__global const float* x, __global float* best, __global int* where, const int n)
{
    __local Pair tile[WG];
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    Pair mine = {gid < n ? x[gid] : -INFINITY, gid};
    tile[lid] = mine;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = WG / 2; stride > 0; stride /= 2) {
        if (lid < stride) {
            Pair a = tile[lid];
            Pair b = tile[lid + stride];
            if (b.value > a.value || (b.value == a.value && b.index < a.index))
                tile[lid] = b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        best[get_group_id(0)] = tile[0].value;
        where[get_group_id(0)] = tile[0].index;
    }
}
