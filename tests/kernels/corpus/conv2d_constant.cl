// conv2d_constant: 2-D correlation of an image with a small (2R+1) x (2R+1) filter held in __constant memory,
// clamp-to-edge addressing, plus a per-channel gain from a program-scope __constant table.
// Exercises: a __constant pointer argument, a program-scope __constant array, clamp on int coordinates,
// nested loops with negative bounds, 2-D NDRange with a 3rd "channel" index folded into dimension 1.
#define R 2
#define FW (2 * R + 1)

__constant float CHANNEL_GAIN[3] = { 1.0f, 0.5f, 2.0f };

__kernel void conv2d_constant(__global const float* img,     /* 3 channels x height x width */
                              __constant float* filt,        /* FW * FW taps */
                              __global float* out,           /* 3 channels x height x width */
                              const int height,
                              const int width)
{
    const int x = get_global_id(0);
    const int yc = get_global_id(1);        /* channel * height + y */
    if (x >= width || yc >= 3 * height)
        return;
    const int ch = yc / height;
    const int y = yc - ch * height;
    __global const float* plane = img + ch * height * width;

    float acc = 0.0f;
    for (int dy = -R; dy <= R; ++dy) {
        const int sy = clamp(y + dy, 0, height - 1);
        for (int dx = -R; dx <= R; ++dx) {
            const int sx = clamp(x + dx, 0, width - 1);
            acc += filt[(dy + R) * FW + (dx + R)] * plane[sy * width + sx];
        }
    }
    out[yc * width + x] = CHANNEL_GAIN[ch] * acc;
}
