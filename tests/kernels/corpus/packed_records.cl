// Members off their natural alignment: a packed struct (15 bytes, an int at offset 1, a float2 at 7) and a
// struct with one packed member (an int at offset 1 of a 12-byte struct), read through pointers and through a
// whole copy; and a float4 written one component (or two) at a time into a write-only buffer.
typedef struct __attribute__((packed)) {
    char kind;
    int count;
    short delta;
    float2 w;
} PackedRec;

struct Mixed {
    char tag;
    int v __attribute__((packed));
    float scale;
};

__kernel void packed_records(__global const PackedRec* recs, __global const struct Mixed* mixed,
                             __global float4* out, __global int* counts, const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const PackedRec r = recs[i];
    out[i].x = r.w.x * (float)r.count + r.w.y;
    out[i].y = (float)recs[i].delta;
    out[i].wz = (float2)((float)(r.kind + mixed[i].tag), mixed[i].scale * (float)mixed[i].v);
    counts[i] = recs[i].count + mixed[i].v - (int)sizeof(PackedRec) * 1000 - (int)sizeof(struct Mixed);
}
