// pointer_tables: pointers kept in memory and pointers that point into different buffers in different work-items.
// Each work-item picks its input buffer through a __private array of pointers (rows[i % 3]), reads a "view" (a
// struct with pointer members, copied whole and in an array of structs), moves a pointer through a pointer to it
// in a helper (T**), and takes a helper's pointer result that depends on its own data (two returns); ?: chooses
// between buffers and NULL, and pointers are compared. Exercises: arrays of pointers with an initializer, pointer
// members of structs, &p of a pointer variable, pointers returned from helpers, pointer == and !=.

typedef struct {
    __global const float* base;
    int stride;
    __global const float* fallback;
} View;

void skip(__global const float** p, int k)
{
    *p += k;
}

__global const float* larger(__global const float* x, __global const float* y, int i)
{
    if (x[i] >= y[i])
        return x;
    return y;
}

__kernel void pointer_tables(__global const float* a,
                             __global const float* b,
                             __global const float* c,
                             __global float* out,
                             __global int* which,
                             const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    __global const float* rows[3] = {a, b, c};
    __global const float* mine = rows[i % 3];             // a different buffer per work-item
    View views[2] = {{a, 1, c}, {b, 2, 0}};
    View v = views[i & 1];                                 // a whole struct with pointer members
    const float viewed = v.base[(i / 2) * v.stride % n];
    __global const float* alt = v.fallback ? v.fallback : mine;
    __global const float* p = mine;
    skip(&p, 1);                                           // p advanced through a pointer to it
    const float next = (i + 1 < n) ? p[i] : 0.0f;
    __global const float* big = larger(a, b, i);
    out[4 * i + 0] = mine[i];
    out[4 * i + 1] = viewed + alt[i];
    out[4 * i + 2] = next;
    out[4 * i + 3] = big[i];
    which[i] = (big == a ? 1 : 0) + (mine != b ? 2 : 0) + (alt == c ? 4 : 0);
}
