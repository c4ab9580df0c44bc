"""A type name nothing defines, the commonest build error of a library kernel built without the ``-D T=float``
(``dim_t``, ``real``, ``DATA_TYPE``) its host code passes: Clang's words at Clang's column, "unknown type name 'T'"
in a parameter list, a struct, at file scope and after a qualifier, and "use of undeclared identifier 'T'" where a
statement or a cast may start. The simulator said "invalid declaration", "invalid specifier list" or "syntax error
before 'x'"; a syntax error of another kind keeps its message."""

from __future__ import annotations

import pytest
from kernel_backends import assert_refused, compile_errors

import wia_hal as wia
from wia_sim.kernels import KernelCompileError, compile_source

CASES = {
    "a parameter": ("__kernel void k(__global float* a, dim_t n) { a[0] = n; }", "unknown type name 'dim_t'", 36),
    "a pointer parameter": ("__kernel void k(__global T* a) { a[0] = 1; }", "unknown type name 'T'", 26),
    "a struct member": (
        "typedef struct { dim_t d[4]; } KParam; __kernel void k(__global int* a, KParam p) { a[0] = 1; }",
        "unknown type name 'dim_t'",
        18,
    ),
    "a helper's return type": (
        "T f(float x) { return x; } __kernel void k(__global float* a) { a[0] = f(1.0f); }",
        "unknown type name 'T'",
        1,
    ),
    "after a qualifier": ("__kernel void k(__global int* a) { const T x = 1; a[0] = x; }", "unknown type name 'T'", 42),
    "a declaration in a function": (
        "__kernel void k(__global float* a) { T x = 0; a[0] = x; }",
        "use of undeclared identifier 'T'",
        38,
    ),
    "a cast": ("__kernel void k(__global float* a) { a[0] = (T)a[1]; }", "use of undeclared identifier 'T'", 46),
    "a cast to a pointer in an address space": (  # (gpuowl's ``(atomic_uint*)`` built as OpenCL C 1.2)
        "__kernel void k(__global uint* a) { a[0] = *(__global T*)a; }",
        "unknown type name 'T'",
        55,
    ),
    "a cast to a pointer to const": (
        "__kernel void k(__global uint* a) { a[0] = *(const T*)a; }",
        "unknown type name 'T'",
        52,
    ),
}


@pytest.mark.parametrize("where", sorted(CASES))
def test_an_undefined_type_name_is_clangs_error(
    device_ctx: wia.Context, request: pytest.FixtureRequest, where: str
) -> None:
    source, message, column = CASES[where]
    assert_refused(device_ctx, request, source, message, f"1:{column}")


def test_a_variable_before_a_variable_is_no_unknown_type() -> None:
    """``b c;`` with ``b`` a variable (Clang: "expected ';' after expression") is no undefined type name."""
    with pytest.raises(KernelCompileError) as info:
        compile_source("__kernel void k(__global int* a) { int b = 1, c = 2; b c; a[0] = b; }")
    assert "unknown type name" not in str(info.value) and "undeclared identifier 'b'" not in str(info.value)


def test_a_block_after_a_case_label_holds_statements() -> None:
    """``case 1: { T x = 0; ... }``: the block is a block of statements (one classification of braces,
    ``semicolons.in_block``, for the parser's recovery and its words), so the unknown ``T`` starts a statement:
    Clang's "use of undeclared identifier 'T'" (the simulator said "unknown type name 'T'" there)."""
    source = "int k(int a)\n{\n    switch (a) { case 1: { T x = 0; return x; } }\n    return a;\n}\n"
    assert compile_errors(source) == [
        "kernel.cl:3:28: error: use of undeclared identifier 'T'",
        "kernel.cl:3:44: error: use of undeclared identifier 'x'",
    ]
