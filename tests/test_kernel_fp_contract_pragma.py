"""``#pragma OPENCL FP_CONTRACT`` (OpenCL C 1.2 6.10) where Clang takes it: at file scope or at the start of a
compound statement (after other pragmas too), else "'#pragma fp_contract' can only appear at file scope or at the
start of a compound statement" (and "this pragma cannot appear in struct declaration"). The simulator's
preprocessor dropped every pragma and took it anywhere; PoCL 3.1 and Oclgrind 21.10 refuse the misplaced ones."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import assert_refused, build_error, run_arrays

import wia_hal as wia

PLACED = """#pragma OPENCL FP_CONTRACT ON
__kernel void k(__global float* a) {
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL FP_CONTRACT OFF
    float x = a[0];
    for (int i = 1; i < 4; i++) {
#pragma OPENCL FP_CONTRACT DEFAULT
        a[i] = x * i + 1.0f;
    }
}
"""

MISPLACED = {
    "after a declaration": "__kernel void k(__global float* a) {\n float x;\n#pragma OPENCL FP_CONTRACT OFF\n x = 1; }",
    "at the end of a block": "__kernel void k(__global float* a) {\n a[1] = 1;\n#pragma OPENCL FP_CONTRACT OFF\n}",
    "a loop's body without braces": (
        "__kernel void k(__global float* a) {\n for (int i = 0; i < 2; i++)\n#pragma OPENCL FP_CONTRACT OFF\n"
        "   a[i] = 1;\n}"
    ),
    "an if's body without braces": (
        "__kernel void k(__global float* a) {\n if (a[0] > 0)\n#pragma OPENCL FP_CONTRACT OFF\n   a[1] = 1;\n}"
    ),
    "after a case label": (
        "__kernel void k(__global float* a) {\n switch ((int)a[0]) { case 1:\n#pragma OPENCL FP_CONTRACT OFF\n"
        " a[1] = 1; }\n}"
    ),
}


def test_the_pragma_where_clang_takes_it_changes_nothing(device_ctx: wia.Context) -> None:
    (a,) = run_arrays(device_ctx, PLACED, "k", [np.asarray([2.0, 0, 0, 0], np.float32)], 1, 1)
    assert a.tolist() == [2.0, 3.0, 5.0, 7.0]


@pytest.mark.parametrize("where", sorted(MISPLACED))
def test_the_pragma_elsewhere_is_clangs_error(
    device_ctx: wia.Context, request: pytest.FixtureRequest, where: str
) -> None:
    message = "'#pragma fp_contract' can only appear at file scope or at the start of a compound statement"
    assert_refused(device_ctx, request, MISPLACED[where], message, "3:16")  # (at FP_CONTRACT, as Clang)


def test_the_pragma_in_a_struct_declaration_is_clangs_error(device_ctx: wia.Context) -> None:
    source = "struct S {\n#pragma OPENCL FP_CONTRACT OFF\n int x; };\n__kernel void k(__global int* a) { a[0] = 1; }"
    assert "this pragma cannot appear in struct declaration" in build_error(device_ctx, source)
