// ndrange_info: every work-item of a 2-D NDRange launched with a global offset records what the work-item
// functions return, at the position its offset-free global id gives.
// Exercises: get_work_dim, get_global_offset, get_global_id (which includes the offset), get_global_size,
// get_local_size, get_num_groups, get_group_id, get_local_id, size_t -> int conversions.
#define FIELDS 12

__kernel void ndrange_info(__global int* info)
{
    const size_t gx = get_global_id(0), gy = get_global_id(1);
    const size_t ox = get_global_offset(0), oy = get_global_offset(1);
    const size_t row = gy - oy, col = gx - ox;
    __global int* r = info + (row * get_global_size(0) + col) * FIELDS;
    r[0] = (int)get_work_dim();
    r[1] = (int)gx;
    r[2] = (int)gy;
    r[3] = (int)ox;
    r[4] = (int)oy;
    r[5] = (int)get_num_groups(0);
    r[6] = (int)get_num_groups(1);
    r[7] = (int)get_group_id(0);
    r[8] = (int)get_group_id(1);
    r[9] = (int)(get_local_id(0) + 100 * get_local_id(1));
    r[10] = (int)(get_local_size(0) * 1000 + get_local_size(1));
    r[11] = (int)(get_global_size(0) * 1000 + get_global_size(1));
}
