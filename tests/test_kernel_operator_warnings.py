"""Clang's warnings for operations that build but are suspect: a pointer compared with an integer that is no null
pointer constant ("ordered" for ``<``, ``>``, ``<=``, ``>=``) or with a pointer to another type (``void*`` compares
with any), and an integer division or remainder by a constant zero, which Clang gives once the function around it
is checked (so after the function's other warnings in the log). Every program builds on every device; on the
simulator its log is Clang's, word for word, place for place and in Clang's order (PoCL 3.1's and Oclgrind
21.10's logs, measured)."""

from __future__ import annotations

import pytest

import wia_hal as wia
from wia_sim.kernels import compile_source

SOURCE = """__kernel void k(__global int* p, __global float* f, __global uint* u, __global void* v, int n) {
  if (p == 1) p[0] = 1;
  if (2 < p) p[0] = 1;
  if (p == f) p[2] = 3;
  if (p != u) p[2] = 3;
  if (p == v || p == 0 || p == (__global int*)0) p[3] = 1;
  if (p >= f) p[3] = 1;
  int a = n / 0, b = n % 0, c = n / 0u, d = 1.0f / 0, e = n / (1 - 1);
  long z = (long)p; if (p == z) p[0] = a + b + c + d + e;
  int4 q = (int4)(n) / 0; a /= 0; p[4] = a + q.x;
}
__kernel void k2(__global int* p) { p[0] = p[1] / 0; p[2] = (p == 3); }
"""

WARNINGS = [
    ("2:9", "comparison between pointer and integer ('__global int *' and 'int')"),
    ("3:9", "ordered comparison between pointer and integer ('int' and '__global int *')"),
    ("4:9", "comparison of distinct pointer types ('__global int *' and '__global float *')"),
    (
        "5:9",
        "comparison of distinct pointer types ('__global int *' and '__global uint *' (aka '__global unsigned int *'))",
    ),
    ("7:9", "comparison of distinct pointer types ('__global int *' and '__global float *')"),
    ("9:27", "comparison between pointer and integer ('__global int *' and 'long')"),
    ("8:13", "division by zero is undefined"),
    ("8:24", "remainder by zero is undefined"),
    ("8:35", "division by zero is undefined"),
    ("8:61", "division by zero is undefined"),
    ("10:29", "division by zero is undefined"),
    ("12:64", "comparison between pointer and integer ('__global int *' and 'int')"),
    ("12:49", "division by zero is undefined"),
]


def test_the_log_is_clangs() -> None:
    assert compile_source(SOURCE).build_log.splitlines() == [
        f"kernel.cl:{at}: warning: {message}" for at, message in WARNINGS
    ]


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")
def test_every_device_builds_them(device_ctx: wia.Context) -> None:
    for kernel in ("k", "k2"):
        wia.compile_kernel(device_ctx, SOURCE, kernel, options="-cl-std=CL1.2")


def test_werror_makes_them_errors() -> None:
    from wia_sim.kernels.program import KernelCompileError

    with pytest.raises(KernelCompileError) as info:
        compile_source("__kernel void k(__global int* p) { p[0] = p[1] / 0; }", options="-Werror")
    assert "kernel.cl:1:48: error: division by zero is undefined" in str(info.value)
