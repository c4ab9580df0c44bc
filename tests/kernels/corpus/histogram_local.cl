// histogram_local: 64-bin histogram of bytes, privatized per work-group in __local memory then merged.
// Exercises: uchar input, a __local array cleared cooperatively (loop strided by the local size), atomic_inc
// on __local uint, atomic_add on __global uint to merge, barriers between the phases, a grid-stride loop.
#define NBINS 64

__kernel void histogram_local(__global const uchar* data,
                              __global uint* bins,      /* NBINS bins, accumulated */
                              const int n)
{
    __local uint local_bins[NBINS];
    const int lid = get_local_id(0);
    const int L = get_local_size(0);

    for (int b = lid; b < NBINS; b += L)
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        atomic_inc(&local_bins[data[i] >> 2]);
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int b = lid; b < NBINS; b += L) {
        const uint c = local_bins[b];
        if (c != 0)
            atomic_add(&bins[b], c);
    }
}
