// OpenCL C 1.2 6.12.12 shuffle and shuffle2: the mask's element type is the unsigned integer of the input element's
// size, and only its low log2(m) bits (log2(2m) for shuffle2) select; vec_step of values and of a type.
__kernel void shuffle_masks(__global const float4* x, __global const float4* y, __global const uint8* m,
                            __global const uchar16* b, __global const uchar16* bm, __global float8* of,
                            __global uchar16* ob, __global int* steps) {
    int i = get_global_id(0);
    uint8 mask = m[i];
    of[3 * i] = shuffle(x[i], mask);
    of[3 * i + 1] = shuffle2(x[i], y[i], mask);
    of[3 * i + 2] = (float8)(shuffle(y[i], mask.s37), shuffle2(y[i], x[i], mask.s0246), shuffle(x[i], mask.s11));
    ob[2 * i] = shuffle(b[i], bm[i]);
    ob[2 * i + 1] = shuffle2(b[i], bm[i], b[i]);
    steps[i] = vec_step(short3) * 1000 + vec_step(mask) * 100 + vec_step(x[i].xyz) * 10 + vec_step(1.0f);
}
