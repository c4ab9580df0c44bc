// Records of mixed member types in a __global buffer (written by the host as a NumPy structured array with C's
// alignment: char, short, int, float and a float2 member), read member by member and through a whole copy.
typedef struct {
    char tag;
    short flags;
    int key;
    float weight;
    float2 scale;
} Record;

__kernel void score_records(__global const Record* recs, __global float* score, __global int* keys, const int n)
{
    const int i = get_global_id(0);
    if (i >= n)
        return;
    const Record r = recs[i];
    float s = r.weight * ((r.flags & 1) ? r.scale.x : r.scale.y);
    if (recs[i].tag == 'x')
        s = -s;
    score[i] = s;
    keys[i] = r.key + (int)sizeof(Record) * 1000;
}
