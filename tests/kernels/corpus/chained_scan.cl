// chained_scan: a single-pass inclusive scan (prefix sum) of ints. Each work-group scans its block in __local
// memory (Hillis-Steele, double-buffered), then its last work-item waits for the group before it to publish its
// inclusive total, adds it and publishes its own: the chained scan of single-pass scans (StreamScan; CUB's
// decoupled look-back in its simplest form). Exercises: a spin-wait on another work-group's flag. OpenCL C 1.2
// promises no progress to a work-group while another waits for it; PoCL and Oclgrind run the groups so that it
// ends, the simulator's lockstep cannot and runs the launch again with its work-groups in order (a lower-severity
// forward_progress finding). Atomics on __global ints are the groups' only communication: plain accesses to
// totals or ready from two groups would race. A group is ready when its flag holds this launch's epoch, so the
// flags need no clearing between launches.

#define WG 64

__kernel void chained_scan(__global const int* in,
                           __global int* out,
                           volatile __global int* totals, /* inclusive total up to each group */
                           volatile __global int* ready,  /* epoch once the group's total is published */
                           const int epoch,
                           const int n)
{
    __local int buf[2][WG];
    __local int carry;
    const int l = get_local_id(0);
    const int g = get_group_id(0);
    const int i = get_global_id(0);
    buf[0][l] = i < n ? in[i] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int src = 0;
    for (int d = 1; d < WG; d <<= 1) {
        int x = buf[src][l];
        if (l >= d)
            x += buf[src][l - d];
        buf[1 - src][l] = x;
        src = 1 - src;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    const int inclusive = buf[src][l];
    if (l == WG - 1) {
        int before = 0;
        if (g > 0) {
            while (atomic_or(&ready[g - 1], 0) != epoch)
                ;
            before = atomic_or(&totals[g - 1], 0);
        }
        atomic_xchg(&totals[g], before + inclusive);
        atomic_xchg(&ready[g], epoch);
        carry = before;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n)
        out[i] = carry + inclusive;
}
