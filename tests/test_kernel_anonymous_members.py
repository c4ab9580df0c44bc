"""Anonymous struct and union members (C11 6.7.2.1p13, which Clang takes in OpenCL C): their members are the
enclosing struct's, at the anonymous member's offset (``s.f`` beside ``s.i`` in a union, ``p->hi``), in its size
and layout, in positional initializers (the anonymous member takes one item or list) and designators (``.f = x``
starts inside it, C11 6.7.9p7); a union's list initializes one member, any a designator picks. The simulator
refused them all ("no member named 'i'"). Values on the simulator and, where installed, on PoCL and Oclgrind."""

from __future__ import annotations

import numpy as np
from kernel_backends import run_arrays

import wia_hal as wia

SOURCE = r"""
typedef struct { union { int i; float f; }; int n; } A;
typedef union { int i; float f; uchar4 c; } U;
typedef struct { int x; union { struct { short lo, hi; }; int w; }; float z; } B;

__kernel void anonymous(__global const float* y, __global B* rec, __global float* out)
{
    const int k = get_global_id(0);
    const float v = y[k];
    A t = {.f = v, .n = 2};
    A t2 = {.n = 4, .i = 7};
    A t3 = {{9}, 5};
    U u = {.f = 1.5f};
    U u2 = {.c = (uchar4)(1, 2, 3, 4)};
    B bb = {1, .hi = 3, 2.5f};
    B b2 = {.lo = 9, .z = v};
    __global B* r = rec + k;
    r->lo = (short)k;
    r->hi = -2;
    r->x = k * 3;
    r->z = v;
    __global float* o = out + 16 * k;
    o[0] = t.f; o[1] = t.n; o[2] = t2.i; o[3] = t2.n;
    o[4] = u.f; o[5] = (float)(u2.i & 0xffff); o[6] = bb.x; o[7] = bb.lo;
    o[8] = bb.hi; o[9] = bb.z; o[10] = b2.lo + b2.x + b2.hi; o[11] = b2.z;
    o[12] = (float)sizeof(B) + 100.0f * (float)sizeof(A); o[13] = t3.i + t3.n;
    o[14] = (float)(r->w == ((k & 0xffff) | (0xfffe << 16))); o[15] = (float)(t.i == as_int(v));
}
"""

B_DTYPE = np.dtype({"names": ["x", "lo", "hi", "z"], "formats": [np.int32, np.int16, np.int16, np.float32]})


def test_anonymous_members_read_write_and_initialize_as_clang_lays_them_out(device_ctx: wia.Context) -> None:
    n = 8
    y = np.random.default_rng(1208).uniform(-9.0, 9.0, n).astype(np.float32)
    _, rec, out = run_arrays(
        device_ctx, SOURCE, "anonymous", [y, np.zeros(n, B_DTYPE), np.full(16 * n, np.nan, np.float32)], n, 4
    )
    k = np.arange(n)
    want = np.zeros((n, 16), np.float64)
    want[:, 0], want[:, 1], want[:, 2], want[:, 3] = y, 2, 7, 4
    want[:, 4], want[:, 5], want[:, 6], want[:, 7] = 1.5, 0x0201, 1, 0
    want[:, 8], want[:, 9], want[:, 10], want[:, 11] = 3, 2.5, 9, y
    want[:, 12], want[:, 13], want[:, 14], want[:, 15] = 12 + 100 * 8, 14, 1, 1
    np.testing.assert_array_equal(out.reshape(n, 16), want.astype(np.float32))
    np.testing.assert_array_equal(rec["x"], 3 * k)
    np.testing.assert_array_equal(rec["lo"], k)
    np.testing.assert_array_equal(rec["hi"], -2)
    np.testing.assert_array_equal(rec["z"], y)
