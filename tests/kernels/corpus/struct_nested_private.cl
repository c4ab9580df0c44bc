// A nested struct with arrays in private memory: per row, the count of positive values, the two smallest values
// (a sorted array member) and the sum and sum of squares (an inner struct), copied whole and written out.
#define ROW 12

struct Moments {
    float sum;
    float sq;
};

struct RowStats {
    int positive;
    float lowest[2];
    struct Moments m;
};

__kernel void row_stats(__global const float* x, __global float* out, const int rows)
{
    const int r = get_global_id(0);
    if (r >= rows)
        return;
    struct RowStats s = {0, {INFINITY, INFINITY}, {0.0f, 0.0f}};
    for (int k = 0; k < ROW; k++) {
        const float v = x[r * ROW + k];
        s.positive += v > 0.0f;
        if (v < s.lowest[0]) {
            s.lowest[1] = s.lowest[0];
            s.lowest[0] = v;
        } else if (v < s.lowest[1]) {
            s.lowest[1] = v;
        }
        s.m.sum += v;
        s.m.sq += v * v;
    }
    struct RowStats copy = s;
    out[5 * r] = (float)copy.positive;
    out[5 * r + 1] = copy.lowest[0];
    out[5 * r + 2] = copy.lowest[1];
    out[5 * r + 3] = copy.m.sum;
    out[5 * r + 4] = copy.m.sq;
}
