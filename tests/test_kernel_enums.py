"""Enum types and constants as Clang types them in C: an enum with no negative value is ``unsigned int`` (as
GCC's), one with a negative value ``int``, and past ``int`` (Clang's extension, common for 64-bit hash constants:
xmrig's ``enum Blake2b_IV { iv0 = 0x6a09e667f3bcc908ul, ... }``) the first of ``uint``, ``long``, ``ulong`` that
holds its values; each constant is ``int`` where it fits one. The simulator typed every enum ``int`` and stopped
with an internal error (OverflowError) on a constant past ``int``. On every backend against C's values."""

from __future__ import annotations

import numpy as np
from kernel_backends import run_arrays

import wia_hal as wia

SOURCE = r"""
enum E { A, B };
enum F { C = -1, D };
enum G { iv0 = 0x6a09e667f3bcc908ul, iv1 = 0xbb67ae8584caa73bul };
enum H { h = 0xFFFFFFFFu, h2 = 1 };

__kernel void enums(__global ulong* out)
{
    enum E e = A;
    enum F f = D;
    enum H hh = h;
    out[0] = (e > -1);  /* unsigned: -1 converts to UINT_MAX */
    out[1] = (f > -1);
    out[2] = sizeof(enum G) * 100 + sizeof(enum E) * 10 + sizeof(iv0);
    out[3] = (hh > h2);
    out[4] = iv0 ^ iv1;
    out[5] = iv1 >> 60;
    out[6] = h;
    out[7] = (A - 1 < 0);  /* the constants themselves are int */
}
"""


def test_enums_have_clangs_types(device_ctx: wia.Context) -> None:
    (out,) = run_arrays(device_ctx, SOURCE, "enums", [np.zeros(8, np.uint64)], 1, 1)
    iv0, iv1 = 0x6A09E667F3BCC908, 0xBB67AE8584CAA73B
    np.testing.assert_array_equal(out, np.array([0, 1, 848, 1, iv0 ^ iv1, iv1 >> 60, 0xFFFFFFFF, 1], np.uint64))
