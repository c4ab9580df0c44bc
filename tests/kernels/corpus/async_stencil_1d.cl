// async_stencil_1d: 3-point stencil out[i] = wl * x[i-1] + wc * x[i] + wr * x[i+1]; each work-group loads its
// block and a one-element halo on each side with one async_work_group_copy (global -> local) and waits for it.
// The input is padded by the host (xp[0] = x[-1] = 0 and zeros past n), so the copy stays in bounds.
// Exercises: async_work_group_copy with event 0 (a fresh event), wait_group_events, event_t, a copy of WG + 2
// elements by WG work-items (some copy two), the last group partly past n.
#define WG 64

__kernel void async_stencil_1d(__global const float* xp,
                               __global float* out,
                               const float wl,
                               const float wc,
                               const float wr,
                               const int n)
{
    __local float tile[WG + 2];
    const int gid = get_global_id(0);
    const int lid = get_local_id(0);

    event_t e = async_work_group_copy(tile, xp + get_group_id(0) * WG, (size_t)(WG + 2), 0);
    wait_group_events(1, &e);

    if (gid < n)
        out[gid] = wl * tile[lid] + wc * tile[lid + 1] + wr * tile[lid + 2];
}
