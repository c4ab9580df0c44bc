// sgemm_local_args: C = alpha * A * B + beta * C with square tiles whose size is the work-group size,
// staged in __local buffers passed as kernel arguments (sized by the host at launch).
// Exercises: __local pointer arguments, a tile size known only at run time (get_local_size), 2-D indexing
// into flat local buffers, scalar float arguments, C read and written (in/out).
__kernel void sgemm_local_args(const int M, const int N, const int K,
                               const float alpha,
                               __global const float* A,
                               __global const float* B,
                               const float beta,
                               __global float* C,
                               __local float* Asub,    /* TS * TS floats */
                               __local float* Bsub)    /* TS * TS floats */
{
    const int ts = (int)get_local_size(0);
    const int lc = get_local_id(0);
    const int lr = get_local_id(1);
    const int col = get_group_id(0) * ts + lc;
    const int row = get_group_id(1) * ts + lr;

    float acc = 0.0f;
    for (int t = 0; t < K; t += ts) {
        Asub[lr * ts + lc] = (row < M && t + lc < K) ? A[row * K + t + lc] : 0.0f;
        Bsub[lr * ts + lc] = (t + lr < K && col < N) ? B[(t + lr) * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < ts; ++k)
            acc += Asub[lr * ts + k] * Bsub[k * ts + lc];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col < N) {
        const int at = row * N + col;
        C[at] = alpha * acc + beta * C[at];
    }
}
