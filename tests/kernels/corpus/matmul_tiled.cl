// matmul_tiled: C = A * B (row-major, A is M x K, B is K x N) with 16 x 16 tiles staged in __local memory.
// Exercises: a 2-D NDRange (get_global_id(1) is the row), __local arrays declared in the kernel, two
// barrier(CLK_LOCAL_MEM_FENCE) per tile, zero-padding of partial tiles through guarded loads (the ternary
// must not evaluate the load when the guard is false), M, N, K not multiples of the tile.
#define TS 16

__kernel void matmul_tiled(const int M, const int N, const int K,
                           __global const float* A,
                           __global const float* B,
                           __global float* C)
{
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    const int lc = get_local_id(0);
    const int lr = get_local_id(1);

    __local float As[TS][TS];
    __local float Bs[TS][TS];

    float acc = 0.0f;
    const int ntiles = (K + TS - 1) / TS;
    for (int t = 0; t < ntiles; ++t) {
        const int a_col = t * TS + lc;
        const int b_row = t * TS + lr;
        As[lr][lc] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bs[lr][lc] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; ++k)
            acc += As[lr][k] * Bs[k][lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}
