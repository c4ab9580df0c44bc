// stencil_2d: one Jacobi step of the 5-point Laplacian stencil on a rows x cols grid; border cells keep their
// value (Dirichlet boundary), interior cells become c * u + e * (north + south + west + east).
// Exercises: 2-D NDRange with get_global_id(0) / get_global_id(1), boundary checks in both dimensions, a
// grid not a multiple of the work-group in either dimension, reads from global memory only.
__kernel void stencil_2d(__global const float* u,
                         __global float* v,
                         const int rows,
                         const int cols,
                         const float c,
                         const float e)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= cols || y >= rows)
        return;
    const int at = y * cols + x;
    if (x == 0 || y == 0 || x == cols - 1 || y == rows - 1) {
        v[at] = u[at];
    } else {
        const float around = u[at - cols] + u[at + cols] + u[at - 1] + u[at + 1];
        v[at] = c * u[at] + e * around;
    }
}
