// Planted bug: a wait for an event no copy returned. Each work-group loads its block of a and, where b has a
// block for it, of b, with async copies whose events it keeps in ev[2] (ev[1] is no event until b's copy starts);
// then it waits for both. In the groups past b's end the second copy never starts, ev[1] is still 0, and
// wait_group_events(2, ev) waits for an event that is no copy's (OpenCL C 1.2 6.12.10: events come from copies).
// Expected check: invalid_wait_event, at line 19.
#define WG 64

__kernel void add_blocks(__global const float* a, __global const float* b, __global float* out, const int nb)
{
    __local float ta[WG];
    __local float tb[WG];
    const int lid = get_local_id(0);
    const int block = get_group_id(0) * WG;
    event_t none = 0, ev[2];
    ev[0] = async_work_group_copy(ta, a + block, WG, 0);
    ev[1] = none;
    if (block < nb)
        ev[1] = async_work_group_copy(tb, b + block, WG, 0);
    wait_group_events(2, ev);    // FAULT
    out[block + lid] = ta[lid] + (block < nb ? tb[lid] : 0.0f);
}
