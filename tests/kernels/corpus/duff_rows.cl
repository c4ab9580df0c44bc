// duff_rows: each work-item copies the first count[i] elements of its row, scaled, with Duff's device (the case
// labels inside the do-while's body), then classifies its count with case labels nested in if-statements and a
// for loop.
// Exercises: case and default labels inside nested statements of a switch's body (C99 6.8.4.2p3), work-items
// entering a loop at a label past its first test and an if-statement's branch whatever its condition, divergent
// entry points within one work-group.
#define WIDTH 16

__kernel void duff_rows(__global const int* src, __global const int* counts, __global int* dst, __global int* kind)
{
    const int i = get_global_id(0);
    __global const int* from = src + i * WIDTH;
    __global int* to = dst + i * WIDTH;
    const int count = counts[i];                    /* 1 .. WIDTH */
    int n = (count + 3) / 4;
    switch (count % 4) {
    case 0: do { *to++ = 3 * *from++ + 1;
    case 3:      *to++ = 3 * *from++ + 1;
    case 2:      *to++ = 3 * *from++ + 1;
    case 1:      *to++ = 3 * *from++ + 1;
            } while (--n > 0);
    }

    int k = 0, r = 0;
    switch (count & 7) {
    case 0:
        k = 100;
        if (count > 8) {
    case 1:
            k += 10;
        } else {
    default:
            k += 1;
        }
        break;
    case 5:
        for (r = 0; r < 2; ++r) {
            k += 1000;
    case 6:
            k += 7;
        }
    }
    kind[i] = k;
}
