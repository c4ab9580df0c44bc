# ruff: noqa: E501  (each kernel of CLANGS_WORDS is one or two lines: the columns Clang gives are counted on them)
"""Pointers keep their address space (OpenCL C 1.2 6.5): no initialization, assignment, argument, return value or
cast makes a pointer into one space point into another, pointers into different spaces are not compared,
subtracted or chosen between by ``?:``, and an unqualified pointee is ``__private`` (the generic space is OpenCL
C 2.0's). The simulator built all of the refused kernels below, which real devices refuse to build. Each source
is built on the simulator and, where installed, on PoCL and Oclgrind through the public HAL: every backend must
refuse the same ones and build the others."""

from __future__ import annotations

import pytest
from kernel_backends import assert_refused, build_error

import wia_hal as wia

HEAD = "void g(__global float* p) { }\n__kernel void k(__global float* o, __local float* l, __constant float* c) {\n"

REFUSED = {
    "init-local-as-global": ("__global float* p = l;", "changes address space of pointer"),
    "init-local-array": ("__local float t[4]; __global float* p = t;", "changes address space of pointer"),
    "init-constant-as-global": ("__global float* p = c;", "changes address space of pointer"),
    "init-private-address": ("float x; __global float* p = &x;", "changes address space of pointer"),
    "init-global-as-private": ("float* p = o;", "changes address space of pointer"),
    "init-string-as-private": ('char* s = "abc";', "changes address space of pointer"),
    "init-void-pointer": ("__global void* v = l;", "changes address space of pointer"),
    "assign": ("__global float* p; p = l;", "changes address space of pointer"),
    "nested-pointer": ("__global float* __private* pp; __local float* q; pp = &q;", "changes address space"),
    "argument": ("g(l);", "changes address space of pointer"),
    "cast": ("__global float* p = (__global float*)l;", "casting"),
    "comparison": ("o[0] = (o == l);", "pointers to non-overlapping address spaces"),
    "subtraction": ("o[0] = o - l;", "pointers to non-overlapping address spaces"),
    "conditional": ("__global float* p = get_global_id(0) ? o : l;", "pointers to non-overlapping address spaces"),
}

BUILT = {
    "same-space": "__constant float* p = c; const __global float* q = o; __local float* r = l + 1; o[0] = *q;",
    "private-to-private": "float x; float* p = &x; __private float* q = p; *q = 1; o[0] = x;",
    "null-constants": "__local float* v = (__local float*)0; __global int* q = (__global int*)o; o[0] = (o == 0);",
    "string-as-constant": '__constant char* s = "abc"; o[0] = s[1];',
}


def _source(body: str) -> str:
    return HEAD + "    " + body + "\n}\n"


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_every_backend_refuses_a_change_of_address_space(device_ctx: wia.Context, case: str) -> None:
    body, message = REFUSED[case]
    refusal = build_error(device_ctx, _source(body), "k")
    if wia.get_backend().name == "sim":
        assert message in refusal


@pytest.mark.parametrize("case", sorted(BUILT))
def test_every_backend_builds_pointers_that_stay_in_their_space(device_ctx: wia.Context, case: str) -> None:
    wia.compile_kernel(device_ctx, _source(BUILT[case]), "k")


CLANGS_WORDS = [
    pytest.param(
        "void g(__local float* p) { p[0] = 1.0f; }\n__kernel void k(__global float* a) { g(a); }",
        "2:40",
        "passing '__global float *__private' to parameter of type '__local float *' changes address space of pointer",
        id="var",
    ),
    pytest.param(
        "void g(__local float* p) { p[0] = 1.0f; }\n__kernel void k(__global float* a) { g(a + 1); }",
        "2:40",
        "passing '__global float *' to parameter of type '__local float *' changes address space of pointer",
        id="rvalue",
    ),
    pytest.param(
        "void f(__global int* p) { *p = 1; } __kernel void k(__global int* o) { __local int t[4]; f(t); o[0] = t[0]; }",
        "1:92",
        "passing '__local int *' to parameter of type '__global int *' changes address space of pointer",
        id="array",
    ),
    pytest.param(
        "void g(__local uint* p) { p[0] = 1; }\n__kernel void k(__global uint* a) { g(a); }",
        "2:39",
        "passing '__global uint *__private' (aka '__global unsigned int *__private') to parameter of type '__local uint *' (aka '__local unsigned int *') changes address space of pointer",
        id="uint-argument",
    ),
    pytest.param(
        "void g(__local const float* p) { }\n__kernel void k(__global float* a) { g(a); }",
        "2:40",
        "passing '__global float *__private' to parameter of type 'const __local float *' changes address space of pointer",
        id="const-param",
    ),
    pytest.param(
        "void g(int x, __global float* p) { p[0] = x; }\n__kernel void k(__global float* a) { __local float t[2]; g(1, t); }",
        "2:63",
        "passing '__local float *' to parameter of type '__global float *' changes address space of pointer",
        id="second",
    ),
    pytest.param(
        "void g(__global float* p) { p[0] = 1.0f; }\n__kernel void k(__global float* a) { float x = 1; g(&x); }",
        "2:53",
        "passing '__private float *' to parameter of type '__global float *' changes address space of pointer",
        id="private-var",
    ),
    pytest.param(
        "void g(__global float* p) { p[0] = 1.0f; }\n__kernel void k(__global float* a) { float x = 1; float* q = &x; g(q); }",
        "2:68",
        "passing '__private float *__private' to parameter of type '__global float *' changes address space of pointer",
        id="private-ptr",
    ),
    pytest.param(
        "__kernel void k(__global float* o) { __local float l[4]; __global float* p = l; o[0] = p[0]; }",
        "1:74",
        "initializing '__global float *__private' with an expression of type '__local float *' changes address space of pointer",
        id="init",
    ),
    pytest.param(
        "__kernel void k(__global float* o, __local float* l) { __global float* p = l; o[0] = p[0]; }",
        "1:72",
        "initializing '__global float *__private' with an expression of type '__local float *__private' changes address space of pointer",
        id="init-var",
    ),
    pytest.param(
        "__kernel void k(__global float* o, __local float* l) { __global float* p; p = l; o[0] = p[0]; }",
        "1:77",
        "assigning '__local float *__private' to '__global float *__private' changes address space of pointer",
        id="assign",
    ),
    pytest.param(
        "__kernel void k(__global float* o) { float x; __global float* p = &x; o[0] = p[0]; }",
        "1:63",
        "initializing '__global float *__private' with an expression of type '__private float *' changes address space of pointer",
        id="init-private",
    ),
    pytest.param(
        "__global float* f(__local float* l) { return l; } __kernel void k(__global float* o) { }",
        "1:46",
        "returning '__local float *__private' from a function with result type '__global float *' changes address space of pointer",
        id="ret",
    ),
    pytest.param(
        "__kernel void k(__global uint* o, __local uint* l) { __global uint* p = l; o[0] = p[0]; }",
        "1:69",
        "initializing '__global uint *__private' (aka '__global unsigned int *__private') with an expression of type '__local uint *__private' (aka '__local unsigned int *__private') changes address space of pointer",
        id="init-uint",
    ),
    pytest.param(
        "__kernel void k(__global int* p, __global float* f) { if ((void*)p == (void*)f) p[1] = 2; }",
        "1:59",
        "casting '__global int *' to type '__private void *' changes address space of pointer",
        id="cast-to-void",
    ),
    pytest.param(
        "__kernel void k(__local uint* l) { __global float2* q = (__global float2*)l; q[0] = 0; }",
        "1:57",
        "casting '__local uint *' (aka '__local unsigned int *') to type '__global float2 *' changes address space of pointer",
        id="cast-uint",
    ),
    # ``__constant`` memory is read-only, but its pointee is no ``const`` type to Clang unless written so (the
    # simulator said 'const __constant float *' for both); a ``__constant`` array's value is a pointer too
    pytest.param(
        "__kernel void k(__global float* o, __constant float* c) { __global float* g = (__global float*)c; o[0] = g[0]; }",
        "1:79",
        "casting '__constant float *' to type '__global float *' changes address space of pointer",
        id="cast-constant",
    ),
    pytest.param(
        "__kernel void k(__global float* o, const __constant float* c) { o[0] = *(__global float*)c; }",
        "1:73",
        "casting 'const __constant float *' to type '__global float *' changes address space of pointer",
        id="cast-const-constant",
    ),
    pytest.param(
        "__constant float t[4] = {1, 2, 3, 4};\n__kernel void k(__global float* o) { o[0] = *(__global float*)t; }",
        "2:46",
        "casting '__constant float *' to type '__global float *' changes address space of pointer",
        id="cast-constant-array",
    ),
]


@pytest.mark.parametrize(("source", "at", "message"), CLANGS_WORDS)
def test_clangs_words_name_both_types_and_the_place(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """The change of address space in Clang's words (PoCL 3.1's and Oclgrind 21.10's front end), the types spelled as
    Clang spells them (a variable's with its own space, ``__private``; an array's value as a pointer to its first
    element; ``&x`` as a pointer into ``__private`` memory; a typedef's ``aka``), at Clang's place on the simulator:
    an argument's first token, an initialized variable's name, an assignment's ``=``, a returned expression."""
    assert_refused(device_ctx, request, source, message, at)


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        (
            "__kernel void k(__global float* o) {\n    if (get_group_id(0) < 4) {\n        __local float s[64];\n"
            "        o[0] = s[0];\n    }\n}\n",
            "3:23",
            "variables in the local address space can only be declared in the outermost scope of a kernel function",
        ),
        (
            "float f(void) { __local float t[4]; t[0] = 1.0f; return t[0]; }\n"
            "__kernel void k(__global float* o) { o[0] = f(); }\n",
            "1:31",
            "non-kernel function variable cannot be declared in local address space",
        ),
        (
            "__kernel void k(__global float* o) { __local float t = 1.0f; o[0] = t; }\n",
            "1:52",
            "'__local' variable cannot have an initializer",
        ),
    ],
    ids=["nested block", "non-kernel function", "initializer"],
)
def test_local_variables_where_clang_refuses_them(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """A ``__local`` variable only at a kernel's outermost scope, without an initializer (OpenCL C 1.2 6.5.2), in
    Clang's words on every backend (Rodinia's lavaMD declares one inside an ``if``), at Clang's place on the
    simulator."""
    assert_refused(device_ctx, request, source, message, at)
