// Planted bug: out-of-bounds access to an array inside a __private struct (the taps array is the struct's last
// member, so lag == 3 reads past the end of the whole struct, not only of the array).
// Expected check: out_of_bounds_private, at line 17 (the one work-item whose lag is 3 reads w.taps[3]).
typedef struct {
    int count;
    float taps[3];
} Window;

__kernel void window_tap(__global const float* x,
                         __global const int* lag,
                         __global float* y,
                         const int n)
{
    const int gid = get_global_id(0);
    if (gid < n) {
        Window w = {3, {x[gid], 0.5f * x[gid], 0.25f * x[gid]}};
        y[gid] = w.taps[lag[gid]] + (float)w.count;     // FAULT
    }
}
