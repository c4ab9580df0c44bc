// transpose_local: dst (cols x rows) = transpose of src (rows x cols) through a 16 x 17 __local tile (the extra
// column keeps a column read from hitting one memory bank 16 times).
// Exercises: 2-D NDRange and 2-D work-groups, a padded 2-D __local array, group-based index swapping so both
// the read and the write are row-contiguous, edge tiles guarded in both dimensions.
#define TILE 16

__kernel void transpose_local(__global const float* src,
                              __global float* dst,
                              const int rows,
                              const int cols)
{
    __local float tile[TILE][TILE + 1];
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);

    int x = get_group_id(0) * TILE + lx;   /* column in `src` */
    int y = get_group_id(1) * TILE + ly;   /* row in `src` */
    if (x < cols && y < rows)
        tile[ly][lx] = src[y * cols + x];
    barrier(CLK_LOCAL_MEM_FENCE);

    x = get_group_id(1) * TILE + lx;       /* column in `dst` = row in `src` */
    y = get_group_id(0) * TILE + ly;       /* row in `dst` = column in `src` */
    if (x < rows && y < cols)
        dst[y * rows + x] = tile[lx][ly];
}
