"""Designated initializers (C99 6.7.8) as Clang reads them: nested designators (``.a.b =``, ``[i].m =``,
``[i][j] =``) fill the object the first one names from the rest, braces elided, and the list goes on after it
(6.7.8p17: ``{.a.y = 5, 6, 7}`` gives ``a.z`` 6 and the next member 7); an array of unknown length is one past the
largest index its list initializes, designators and elided braces counted (6.7.8p22). The simulator once refused
nested designators and sized ``int a[] = {[5] = 1, 2}`` as two elements. Through the public HAL, on the simulator
and, where installed, on PoCL and Oclgrind: one expected answer, worked out by hand from the standard."""

from __future__ import annotations

import numpy as np
from kernel_backends import run_arrays

import wia_hal as wia

SOURCE = """
typedef struct { int x, y, z; } T;
typedef struct { T a; int b[3]; int c; } S;
typedef struct { int x, y; } P;

__constant int sized[] = {[3] = 4, 5};
__constant P table[] = {[1].y = 6, 7, [0] = {1, 2}};

__kernel void k(__global int* out, const int base)
{
    S s = {.a.y = base, 6, .b[1] = 7, 8, .a.x = 2};
    int m[2][3] = {[1][2] = 9, [0][1] = base, 4, 5};
    int a[] = {[5] = 1, base};
    P p[] = {[2] = {1, 2}, 3, 4, [1].y = base};
    S t = (S){.b[2] = base, base + 1, .a = {3}, .a.z = 4};
    int i = 0;
    out[i++] = s.a.x; out[i++] = s.a.y; out[i++] = s.a.z; out[i++] = s.b[0]; out[i++] = s.b[1]; out[i++] = s.b[2];
    out[i++] = s.c;
    out[i++] = m[0][0]; out[i++] = m[0][1]; out[i++] = m[0][2]; out[i++] = m[1][0]; out[i++] = m[1][2];
    out[i++] = sizeof(a) / sizeof(int); out[i++] = a[5]; out[i++] = a[6]; out[i++] = a[0];
    out[i++] = sizeof(p) / sizeof(P); out[i++] = p[1].y; out[i++] = p[3].x; out[i++] = p[3].y; out[i++] = p[2].y;
    out[i++] = sizeof((int[]){1, [4] = 2}) / sizeof(int); out[i++] = sizeof(sized) / sizeof(int); out[i++] = sized[4];
    out[i++] = sizeof(table) / sizeof(P); out[i++] = table[1].y; out[i++] = table[2].x; out[i++] = table[0].y;
    out[i++] = t.b[2]; out[i++] = t.c; out[i++] = t.a.x; out[i++] = t.a.z;
}
"""
EXPECTED = [
    *(2, 11, 6, 0, 7, 8, 0),  # s: .a.x re-designated after .a.y; 6 goes on into a.z; 8 after b[1]
    *(0, 11, 4, 5, 9),  # m: [0][1] then 4, 5 run on into the next row
    *(7, 1, 11, 0),  # a: seven elements
    *(4, 11, 3, 4, 2),  # p: [2] braced, then 3, 4 elide into p[3]; [1].y later
    *(5, 5, 5),  # a compound literal, sized
    *(3, 6, 7, 2),  # table: 7 runs on from table[1].y into table[2].x
    *(11, 12, 3, 4),  # t: .a = {3} then .a.z = 4 (into the a just initialized); b[2] and then c
]


def test_designators_nest_and_size_arrays_on_every_device(device_ctx: wia.Context) -> None:
    (out,) = run_arrays(device_ctx, SOURCE, "k", [np.full(len(EXPECTED), -1, np.int32)], 1, 1, np.int32(11))
    assert out.tolist() == EXPECTED
