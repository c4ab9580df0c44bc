// Planted bug: a misaligned read of __global memory (a record stream of a 1-byte tag and a 4-byte value read by
// casting the value's byte address to an int pointer; OpenCL C 1.2 6.1.5: an int is aligned to 4 bytes).
// Expected check: misaligned_global, at line 12 (work-item 0 reads an int at byte offset 1).
__kernel void unpack_records(__global const uchar* stream,
                             __global int* tag,
                             __global int* value,
                             const int n)
{
    const int i = get_global_id(0);
    if (i < n) {
        tag[i] = stream[5 * i];
        value[i] = *(__global const int*)(stream + 5 * i + 1);    // FAULT
    }
}
