// async_matmul_rows: C = A * B (row-major, A is M x K, B is K x N, all multiples of TS) with TS x TS tiles of A
// and B staged in __local memory by async copies: one copy per tile row, the TS copies of a tile chained on one
// event (each call is given the event the previous one returned), both tiles waited for with one
// wait_group_events over an array of two events.
// Exercises: chained events, event_t arrays, copies into the middle of __local arrays (As + r * TS), a barrier
// before a tile is overwritten, a 2-D NDRange.
#define TS 8

__kernel void async_matmul_rows(const int M, const int N, const int K,
                                __global const float* A,
                                __global const float* B,
                                __global float* C)
{
    __local float As[TS * TS];
    __local float Bs[TS * TS];
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    const int lc = get_local_id(0);
    const int lr = get_local_id(1);
    const int row0 = get_group_id(1) * TS;
    const int col0 = get_group_id(0) * TS;

    float acc = 0.0f;
    for (int t = 0; t < K; t += TS) {
        event_t a = 0, b = 0;
        for (int r = 0; r < TS; r++) {
            a = async_work_group_copy(As + r * TS, A + (row0 + r) * K + t, TS, a);
            b = async_work_group_copy(Bs + r * TS, B + (t + r) * N + col0, TS, b);
        }
        event_t ev[2];
        ev[0] = a;
        ev[1] = b;
        wait_group_events(2, ev);
        for (int k = 0; k < TS; k++)
            acc += As[lr * TS + k] * Bs[k * TS + lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
