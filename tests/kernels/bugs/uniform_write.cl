// Planted finding: a uniform write. Every work-item that sees a negative input sets the shared flag to 1, with
// no barrier in between: a write-write race in which every write stores the same value, so every order leaves
// the same memory. A lower-severity finding (uniform_write), not a race: it does not stop the kernel unless the
// checks are strict (the sim backend's kernel_checks="strict"); Oclgrind reports it with OCLGRIND_UNIFORM_WRITES.
// Expected check: uniform_write, at line 14.

__kernel void any_negative(__global const float* x,
                           __global int* found,
                           const int n)
{
    const int i = get_global_id(0);

    if (i < n && x[i] < 0.0f)
        found[0] = 1;    // FAULT
}
