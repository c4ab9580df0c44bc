"""Directives inside a function-like macro's argument list: C99 6.10.3p11 leaves them undefined, and Clang (PoCL
3.1, Oclgrind 21.10) takes them (its -Wembedded-directive extension, silent without -pedantic): the conditionals
pick which lines the arguments have, a ``#define`` or ``#undef`` holds from there on (the arguments are expanded
after they are collected: both see the new definition, text before the invocation the old one). OpenCV's
``boxFilter.cl`` needs it (``EXTRAPOLATE(x, y,`` then ``#ifdef BORDER_ISOLATED``); the simulator refused it as an
unterminated argument list. On every backend, one expected answer."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import build_error, run_arrays

import wia_hal as wia

PICKED = """
#define ADD3(a, b, c) ((a) + (b) + (c))
__kernel void k(__global int* out) {
    int i = get_global_id(0);
    out[i] = ADD3(i,
#ifdef BIG
                  1000,
#else
                  10,
#endif
                  1);
}
"""


@pytest.mark.parametrize(("options", "added"), [("", 11), ("-D BIG", 1001)])
def test_a_conditional_picks_an_argument(device_ctx: wia.Context, options: str, added: int) -> None:
    (out,) = run_arrays(device_ctx, PICKED, "k", [np.full(4, -7, np.int32)], 4, 4, options=options)
    assert out.tolist() == [i + added for i in range(4)]


REDEFINED = """
#define ADD2(a, b) ((a) + (b))
#define X 1
__kernel void k(__global int* out) {
    int i = get_global_id(0); int before = X;
    out[i] = ADD2(X,
#undef X
#define X 100
       X) * 1000 + before + X * 10;
}
"""

NESTED = """
#define F(a, b) ((a) * (b))
#define G(a) (a)
__kernel void k(__global int* out) {
    int i = get_global_id(0);
    out[i] = F(
#if 1
#if 0
      5,
#elif defined(NOPE)
      6,
#else
      __LINE__,
#endif
#endif
      2) + __LINE__ + G(1
#ifdef NOPE
  + 1
#endif
  ) * 1000 + G(
#ifndef NOPE
  3
#endif
  ) * 10000;
}
"""


@pytest.mark.parametrize(
    ("source", "expected"),
    [(REDEFINED, 100 * 2 * 1000 + 1 + 100 * 10), (NESTED, 13 * 2 + 16 + 1000 + 30000)],
    ids=["redefined", "nested"],
)
def test_definitions_and_nested_conditionals_inside_arguments(
    device_ctx: wia.Context, source: str, expected: int
) -> None:
    """A macro redefined between two arguments (both see the new definition, the line before the old one);
    nested conditionals with ``#elif`` and ``__LINE__`` among the arguments, two invocations on one line with
    their own conditionals; the lines after keep their numbers."""
    (out,) = run_arrays(device_ctx, source, "k", [np.full(4, -7, np.int32)], 4, 4)
    assert out.tolist() == [expected] * 4


def test_an_error_after_them_keeps_its_line(ctx: wia.Context) -> None:
    """What follows such an invocation is where it was: an error two lines below names its line and column."""
    source = PICKED.replace("                  1);\n}", "                  1);\n    int j = nope;\n}")
    assert "kernel.cl:12:13: error: use of undeclared identifier 'nope'" in build_error(ctx, source)


@pytest.mark.parametrize(
    "ending",
    ["#ifdef BIG\n 1);\n#endif\n}\n", '1,\n#include "nowhere.h"\n 2);\n}\n'],
    ids=["end of file", "include"],
)
def test_an_argument_list_left_open_is_an_error(ctx: wia.Context, ending: str) -> None:
    """The list still open at the end of the file (its close skipped), or at an ``#include``, which no argument
    list takes: "unterminated function-like macro invocation" at the macro's name (Clang's words)."""
    source = "#define F(a, b) ((a) + (b))\n__kernel void k(__global int* out) {\n    out[0] = F(0,\n" + ending
    assert "kernel.cl:3:14: error: unterminated function-like macro invocation" in build_error(ctx, source)
