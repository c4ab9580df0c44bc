"""Values the same in every work-item (the executor keeps one, a 0-d array, for all lanes) through built-ins that
work on their bits: ``as_type`` reinterpretations and the bitwise table functions gave such a value back as a 1-d
array of one element, and a load, a store or a loop that used it as an index failed inside the simulator
(``IndexError``, a broadcast ``ValueError``) where PoCL 3.1 and Oclgrind 21.10 compute. Found by the Blender Cycles
probe: ``prim_addr = __float_as_int(leaf.x)`` then ``kernel_tex_fetch(__prim_tri_index, prim_addr)``."""

from __future__ import annotations

import numpy as np
from kernel_backends import run_arrays

import wia_hal as wia

UNIFORM_BITS = """
__kernel void k(__global const float* a, __global const uint* t, __global uint* out, __global uint* spill,
                __global float* f)
{
    const size_t g = get_global_id(0);
    out[g] = t[as_int(a[0])];                               /* an index */
    for (int p = as_int(a[0]); p < as_int(a[1]); p++)       /* a loop's bounds, then an index */
        out[16 + g] += t[p];
    spill[as_uint(a[1]) + g] = 5u;                          /* a store's index beside a per-lane part */
    out[32 + g] = as_int(a[1]) + (int)g;                    /* a value */
    f[g] = copysign(a[2], a[3]) + as_float(as_int(a[2]));  /* the bitwise table functions */
    f[16 + g] = bitselect(a[2], a[3], as_float(0x80000000u));
}
"""


def test_reinterpreted_values_the_same_in_every_work_item_index_memory(device_ctx: wia.Context) -> None:
    a = np.concatenate([np.array([0, 2], np.int32).view(np.float32), np.array([1.5, -2.0], np.float32)])
    t = np.array([7, 8, 9], np.uint32)
    out, spill, f = np.zeros(48, np.uint32), np.zeros(18, np.uint32), np.zeros(32, np.float32)
    _, _, out, spill, f = run_arrays(device_ctx, UNIFORM_BITS, "k", [a, t, out, spill, f], 16, 8)
    g = np.arange(16)
    assert out[:16].tolist() == [7] * 16
    assert out[16:32].tolist() == [7 + 8] * 16
    assert spill.tolist() == [0, 0] + [5] * 16
    assert out[32:].tolist() == (2 + g).tolist()
    assert f[:16].tolist() == [-1.5 + 1.5] * 16
    assert f[16:].tolist() == [-1.5] * 16
