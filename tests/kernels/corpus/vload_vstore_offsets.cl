// OpenCL C 1.2 Table 6.15 vloadn/vstoren at odd element offsets (offset * n elements) from and to __global,
// __constant, __local and __private memory: vload3 packs 3 scalars (not a 4-aligned 3-vector), vload8, vload2.
#define WG 32
__kernel void vload_vstore_offsets(__global const int* src, __constant short* csrc, __global int* out3,
                                   __global short* out8, __global int* out2) {
    int i = get_global_id(0);
    int l = get_local_id(0);
    __local int tile[3 * WG + 3];
    int priv[8];
    int3 v = vload3(2 * i + 1, src);
    vstore3(v.zxy, l, tile);
    barrier(CLK_LOCAL_MEM_FENCE);
    int3 w = vload3((l + 1) % WG, tile);
    vstore3(w + v, i, out3);
    short8 s = vload8(i, csrc + 3);
    vstore8(s.s76543210, i, out8);
    vstore2(v.xy, 1, priv);
    vstore2(v.zz, 3, priv);
    int2 p = vload2(1, priv) + vload2(3, priv);
    vstore2(p, i, out2);
}
