// Planted bug: a store through a NULL entry of a __private array of pointers. Each work-item picks its output
// buffer from a table by the parity of its index, but the table's second entry was never filled in: the odd
// work-items store through NULL while the even ones write their buffer.
// Expected check: null_pointer, at line 15.
__kernel void split_parity(__global const float* x,
                           __global float* even,
                           __global float* odd,
                           const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    __global float* table[2] = {even, 0};
    __global float* out = table[i & 1];
    out[i / 2] = x[i] * 0.5f;    // FAULT
}
