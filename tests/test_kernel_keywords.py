"""Type names that OpenCL C makes keywords (``half``, ``bool``, the image types) cannot name a variable or a
parameter: a build error naming the line, as Clang gives on PoCL and Oclgrind (issue 16). Built-in typedefs
(``float4``, ``size_t``, ``event_t``) may be shadowed, as Clang allows."""

from __future__ import annotations

import pytest

from wia_sim.kernels.frontend import compile_source
from wia_sim.kernels.program import KernelCompileError


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "__kernel void k(__global float* half) { half[0] = 1.0f; }",
            "kernel.cl:1:33: error: 'half' is a keyword of OpenCL C (a type name); it cannot name a parameter",
        ),
        (
            "__kernel void k(__global int* o) { int bool = 2; o[0] = bool; }",
            "kernel.cl:1:40: error: 'bool' is a keyword of OpenCL C (a type name); it cannot name a variable",
        ),
        (
            "__kernel void k(__global int* o) {\n  for (int image3d_t = 0; image3d_t < 2; image3d_t++) o[0] = 1;\n}",
            "kernel.cl:2:12: error: 'image3d_t' is a keyword",
        ),
    ],
)
def test_a_keyword_type_name_cannot_name_a_variable(source: str, message: str) -> None:
    with pytest.raises(KernelCompileError) as err:
        compile_source(source)
    assert message in err.value.build_log


def test_builtin_typedefs_may_be_shadowed() -> None:
    src = (
        "__kernel void k(__global int* o) { int float4 = 2; int size_t = 3; int event_t = 4; o[0] = float4 * size_t; }"
    )
    assert compile_source(src).kernel("k")
