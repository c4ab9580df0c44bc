// async_aos_soa: points stored as an array of structures (x, y, z, x, y, z, ...) are gathered into three
// __local arrays with async_work_group_strided_copy (src_stride 3), transformed, and written back: the squared
// norms with async_work_group_copy (local -> global), the scaled points scattered into an array of structures
// with async_work_group_strided_copy (local -> global, dst_stride 3).
// Exercises: strided copies in both directions, three events waited for at once, local -> global copies, a
// barrier between computing into __local memory and copying it out.
#define WG 32

__kernel void async_aos_soa(__global const float* pts,
                            __global float* norm2,
                            __global float* scaled,
                            const float s)
{
    __local float xs[WG];
    __local float ys[WG];
    __local float zs[WG];
    __local float ns[WG];
    const int lid = get_local_id(0);
    const size_t base = get_group_id(0) * WG;

    event_t ev[3];
    ev[0] = async_work_group_strided_copy(xs, pts + 3 * base, WG, 3, 0);
    ev[1] = async_work_group_strided_copy(ys, pts + 3 * base + 1, WG, 3, 0);
    ev[2] = async_work_group_strided_copy(zs, pts + 3 * base + 2, WG, 3, 0);
    wait_group_events(3, ev);

    const float x = xs[lid], y = ys[lid], z = zs[lid];
    ns[lid] = x * x + y * y + z * z;
    barrier(CLK_LOCAL_MEM_FENCE);
    xs[lid] = s * x;
    ys[lid] = s * y;
    zs[lid] = s * z;
    barrier(CLK_LOCAL_MEM_FENCE);

    event_t out = async_work_group_copy(norm2 + base, ns, WG, 0);
    out = async_work_group_strided_copy(scaled + 3 * base, xs, WG, 3, out);
    out = async_work_group_strided_copy(scaled + 3 * base + 1, ys, WG, 3, out);
    out = async_work_group_strided_copy(scaled + 3 * base + 2, zs, WG, 3, out);
    wait_group_events(1, &out);
}
