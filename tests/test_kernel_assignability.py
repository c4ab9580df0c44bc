# ruff: noqa: E501  (each kernel is one line: the columns Clang gives are counted on it)
"""Assignments (and increments) of what is not a modifiable lvalue, refused in Clang's words and at Clang's place
(PoCL 3.1's and Oclgrind 21.10's front end, ``check_exprs.check_assignable``): at the operator (the ``=``, ``+=``,
``++``); "expression is not assignable" for no lvalue, an enumerator or a call; the array type; a vector with a
component twice; for const, the first const member met on the way from the lvalue to its variable, else the variable
when its type is written const (after ``->``, what its pointer points to), else "read-only variable" (through a
pointer to const, ``__constant`` memory). Types are spelled as Clang spells them (``clang_types``): qualifiers and
address space, a typedef's ``aka``, what a vector type is. The simulator had said "cannot assign to const variable
'x'" one token early, and built an assignment to a const member."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import assert_refused, run_arrays

import wia_hal as wia

CASES = [
    pytest.param(
        "__kernel void k(__global int* o) { const int x = 1; x = 2; o[0] = x; }",
        "1:55",
        "cannot assign to variable 'x' with const-qualified type 'const __private int'",
        id="const-local",
    ),
    pytest.param(
        "__kernel void k(const int n, __global int* o) { n = 2; o[0] = n; }",
        "1:51",
        "cannot assign to variable 'n' with const-qualified type 'const __private int'",
        id="const-arg",
    ),
    pytest.param(
        "__kernel void k(__global const int* a, __global int* o) { a[0] = 2; o[0] = a[1]; }",
        "1:64",
        "read-only variable is not assignable",
        id="const-ptr",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const int x = 1; x++; o[0] = x; }",
        "1:54",
        "cannot assign to variable 'x' with const-qualified type 'const __private int'",
        id="const-inc",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const float x = 1; x += 2; o[0] = x; }",
        "1:57",
        "cannot assign to variable 'x' with const-qualified type 'const __private float'",
        id="const-compound",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const int4 v = (int4)(1); v.x = 2; o[0] = v.y; }",
        "1:66",
        "cannot assign to variable 'v' with const-qualified type 'const __private int4' (vector of 4 'int' values)",
        id="const-vec-comp",
    ),
    pytest.param(
        "typedef struct { int a; } S; __kernel void k(__global int* o) { const S s = {1}; s.a = 2; o[0] = s.a; }",
        "1:86",
        "cannot assign to variable 's' with const-qualified type 'const __private S'",
        id="const-struct-member",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const int t[2] = {1, 2}; t[0] = 3; o[0] = t[1]; }",
        "1:66",
        "cannot assign to variable 't' with const-qualified type 'const __private int[2]'",
        id="const-array",
    ),
    pytest.param(
        "__constant int c = 3; __kernel void k(__global int* o) { c = 2; o[0] = c; }",
        "1:60",
        "read-only variable is not assignable",
        id="constant-var",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { __local const int* p = 0; *p = 1; }",
        "1:65",
        "read-only variable is not assignable",
        id="local-const",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { int x = 1; (x + 1) = 2; o[0] = x; }",
        "1:55",
        "expression is not assignable",
        id="not-lvalue",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { int a[2], b[2] = {1,2}; a = b; o[0] = a[0]; }",
        "1:62",
        "array type '__private int[2]' is not assignable",
        id="assign-array",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { int4 v = (int4)(1); v.xx = (int2)(2); o[0] = v.x; }",
        "1:61",
        "vector is not assignable (contains duplicate components)",
        id="vec-dup-comp",
    ),
    pytest.param(
        "enum E { A, B }; __kernel void k(__global int* o) { A = 2; o[0] = B; }",
        "1:55",
        "expression is not assignable",
        id="enum",
    ),
    pytest.param(
        "__kernel void k(__global int* const p) { p = 0; }",
        "1:44",
        "cannot assign to variable 'p' with const-qualified type '__global int *const __private'",
        id="const-ptr-param",
    ),
    pytest.param(
        "__kernel void k(__constant int* p, __global int* o) { p[0] = 1; o[0] = p[1]; }",
        "1:60",
        "read-only variable is not assignable",
        id="constant-ptr",
    ),
    pytest.param(
        "typedef struct { int a; } S; __kernel void k(__global const S* p, __global int* o) { p->a = 1; o[0] = p->a; }",
        "1:91",
        "cannot assign to variable 'p' with const-qualified type 'const __global S *__private'",
        id="const-arrow",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const int x = 1; ++x; o[0] = x; }",
        "1:53",
        "cannot assign to variable 'x' with const-qualified type 'const __private int'",
        id="prefix-inc",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const int x = 1; (x) = 2; o[0] = x; }",
        "1:57",
        "cannot assign to variable 'x' with const-qualified type 'const __private int'",
        id="paren",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const int x = 1; int y; y = x = 2; o[0] = y; }",
        "1:66",
        "cannot assign to variable 'x' with const-qualified type 'const __private int'",
        id="nested-assign",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const int t[2][3] = {{1}}; t[1][2] = 3; o[0] = t[0][0]; }",
        "1:71",
        "cannot assign to variable 't' with const-qualified type '__private const int[2][3]'",
        id="arr2d",
    ),
    pytest.param(
        "struct T { int a; }; __kernel void k(__global int* o) { const struct T s = {1}; s.a = 2; o[0] = s.a; }",
        "1:85",
        "cannot assign to variable 's' with const-qualified type 'const __private struct T'",
        id="struct-tag",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { __local const int t[4]; t[0] = 3; o[0] = t[1]; }",
        "1:65",
        "cannot assign to variable 't' with const-qualified type 'const __local int[4]'",
        id="local-const-arr",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const uchar x = 1; x -= 2; o[0] = x; }",
        "1:57",
        "cannot assign to variable 'x' with const-qualified type 'const __private uchar' (aka 'const __private unsigned char')",
        id="const-uchar",
    ),
    pytest.param(
        "int f(void) { return 1; } __kernel void k(__global int* o) { f() = 2; o[0] = 1; }",
        "1:66",
        "expression is not assignable",
        id="assign-to-call",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { int4 v = (int4)(1); v.xx++; o[0] = v.x; }",
        "1:60",
        "vector is not assignable (contains duplicate components)",
        id="vec-dup-inc",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { int a[2]; a++; o[0] = 1; }",
        "1:47",
        "cannot increment value of type '__private int[2]'",
        id="array-inc",
    ),
    pytest.param(
        "typedef unsigned int U; __kernel void k(__global int* o) { const U x = 1; x = 2; o[0] = x; }",
        "1:77",
        "cannot assign to variable 'x' with const-qualified type 'const __private U' (aka 'const __private unsigned int')",
        id="uint-typedef",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const unsigned int x = 1; x = 2; o[0] = x; }",
        "1:64",
        "cannot assign to variable 'x' with const-qualified type 'const __private unsigned int'",
        id="unsigned-int",
    ),
    pytest.param(
        "typedef struct { int a; } S; __kernel void k(__global const S* p, __global int* o) { p[0].a = 1; o[0] = p[1].a; }",
        "1:93",
        "read-only variable is not assignable",
        id="ptr-idx-member",
    ),
    pytest.param(
        "typedef struct { int a; } S; __kernel void k(__global int* o) { const S cs[2] = {{1},{2}}; cs[0].a = 3; o[0] = cs[1].a; }",
        "1:100",
        "cannot assign to variable 'cs' with const-qualified type 'const __private S[2]'",
        id="const-arr-struct",
    ),
    pytest.param(
        "typedef struct { int a; } S; __kernel void k(__global const S* p, __global int* o) { (*p).a = 1; o[0] = p->a; }",
        "1:93",
        "read-only variable is not assignable",
        id="deref-member",
    ),
    pytest.param(
        "typedef struct { const int c; int d; } S; __kernel void k(__global int* o) { S s = {1, 2}; s.c = 3; o[0] = s.c; }",
        "1:96",
        "cannot assign to non-static data member 'c' with const-qualified type 'const int'",
        id="const-member",
    ),
    pytest.param(
        "typedef struct { const int c; } I; typedef struct { I in; int d; } O; __kernel void k(__global int* o) { O x = {{1}, 2}; x.in.c = 3; o[0] = x.d; }",
        "1:129",
        "cannot assign to non-static data member 'c' with const-qualified type 'const int'",
        id="nested-const-member",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const int4 t[2] = {(int4)(1), (int4)(2)}; t[0].x = 3; o[0] = t[1].y; }",
        "1:85",
        "cannot assign to variable 't' with const-qualified type 'const __private int4[2]'",
        id="vec-in-const-arr",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const int4 v = (int4)(1); v[1] = 2; o[0] = v.y; }",
        "1:67",
        "cannot assign to variable 'v' with const-qualified type 'const __private int4' (vector of 4 'int' values)",
        id="const-vec-idx",
    ),
    pytest.param(
        "typedef const int CI; __kernel void k(__global int* o) { CI x = 1; x = 2; o[0] = x; }",
        "1:70",
        "cannot assign to variable 'x' with const-qualified type '__private CI' (aka 'const __private int')",
        id="typedef-const",
    ),
    pytest.param(
        "typedef struct { __global const int* q; } S; __kernel void k(__global int* o) { S s = {o}; s.q[0] = 1; *s.q = 2; }",
        "1:99",
        "read-only variable is not assignable",
        id="member-ptr-const-target",
    ),
    pytest.param(
        "typedef struct { __global const int* q; } S; __kernel void k(__global S* p) { p->q[0] = 1; }",
        "1:87",
        "read-only variable is not assignable",
        id="arrow-member-arrow",
    ),
    pytest.param(
        "typedef struct { int a; } S; __kernel void k(__global int* o) { S s = {1}; s++; o[0] = s.a; }",
        "1:77",
        "cannot increment value of type '__private S'",
        id="struct-inc",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const size_t x = 1; x = 2; o[0] = x; }",
        "1:58",
        "cannot assign to variable 'x' with const-qualified type 'const __private size_t' (aka 'const __private unsigned long')",
        id="size-t",
    ),
    pytest.param(
        "typedef struct T { int a; } S; __kernel void k(__global int* o) { const S s = {1}; s.a = 2; o[0] = s.a; }",
        "1:88",
        "cannot assign to variable 's' with const-qualified type 'const __private S' (aka 'const __private struct T')",
        id="tagged-typedef",
    ),
    pytest.param(
        "union U { int a; float f; }; __kernel void k(__global int* o) { const union U u = {1}; u.a = 2; o[0] = u.a; }",
        "1:92",
        "cannot assign to variable 'u' with const-qualified type 'const __private union U'",
        id="union",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { const uint t[2] = {1, 2}; t[0] = 3; o[0] = t[1]; }",
        "1:67",
        "cannot assign to variable 't' with const-qualified type 'const __private uint[2]' (aka 'const __private unsigned int[2]')",
        id="arr-uint",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { __local const int t[2][2]; t[0][1] = 3; o[0] = t[1][0]; }",
        "1:71",
        "cannot assign to variable 't' with const-qualified type 'const __local int[2][2]'",
        id="arr-local-2d",
    ),
    pytest.param(
        "__kernel void k(__global uint* const p) { p = 0; }",
        "1:45",
        "cannot assign to variable 'p' with const-qualified type '__global uint *const __private' (aka '__global unsigned int *const __private')",
        id="ptr-uint",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { int a; int* b = &a; int* * const p = &b; p = 0; o[0] = 1; }",
        "1:79",
        "cannot assign to variable 'p' with const-qualified type '__private int *__private *const __private'",
        id="ptr-ptr",
    ),
    pytest.param(
        "typedef float4 F; __kernel void k(__global float* o) { const F v = (F)(1); v = (F)(2); o[0] = v.x; }",
        "1:78",
        "cannot assign to variable 'v' with const-qualified type 'const __private F' (aka 'const __private float4')",
        id="const-vec-typedef",
    ),
    pytest.param(
        "__kernel void k(__global const int* const p) { p = 0; }",
        "1:50",
        "cannot assign to variable 'p' with const-qualified type 'const __global int *const __private'",
        id="global-param-const-ptr-to-const",
    ),
    pytest.param(
        "typedef struct { const int v[2]; } S; __kernel void k(__global int* o) { S s = {{1,2}}; s.v[0] = 3; o[0] = s.v[1]; }",
        "1:96",
        "cannot assign to non-static data member 'v' with const-qualified type 'const int[2]'",
        id="member-arr-const",
    ),
    pytest.param(
        "typedef struct { const float4 v; } S; __kernel void k(__global float* o) { S s; s.v.x = 3; o[0] = 1; }",
        "1:87",
        "cannot assign to non-static data member 'v' with const-qualified type 'const float4' (vector of 4 'float' values)",
        id="member-vec-const",
    ),
    pytest.param(
        "__kernel void k(__global float* o) { float4 v = (float4)(1); v++; o[0] = v.x; }",
        "1:63",
        "cannot increment value of type '__private float4' (vector of 4 'float' values)",
        id="f4-inc",
    ),
    pytest.param(
        "struct T { int a; }; __kernel void k(__global int* o) { struct T s = {1}; --s; o[0] = s.a; }",
        "1:75",
        "cannot decrement value of type '__private struct T'",
        id="struct-dec",
    ),
    pytest.param(
        "typedef struct { int a; } S; __kernel void k(__global S* p) { (*p)++; }",
        "1:67",
        "cannot increment value of type '__global S'",
        id="ptr-struct-inc",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { int x = 1; (float)x = 2; o[0] = x; }",
        "1:47",
        "assignment to cast is illegal, lvalue casts are not supported",
        id="assign-cast",
    ),
    pytest.param(
        "typedef float F4 __attribute__((ext_vector_type(4))); __kernel void k(__global int* out) { F4 f = (F4)(1.0f); f++; }",
        "1:112",
        "cannot increment value of type '__private F4' (vector of 4 'float' values)",
        id="F4inc",
    ),
    pytest.param(
        "__constant const int c = 3; __kernel void k(__global int* o) { c = 2; o[0] = c; }",
        "1:66",
        "cannot assign to variable 'c' with const-qualified type 'const __constant int'",
        id="const-constant",
    ),
]


@pytest.mark.parametrize(("source", "at", "message"), CASES)
def test_clangs_words_and_place(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    assert_refused(device_ctx, request, source, message, at)


INCOMPATIBLE = [
    pytest.param(
        "typedef struct { int x; } S; __kernel void k(__global int* o) { S s = {1}; int j = s; o[0] = j; }",
        "1:80",
        "initializing '__private int' with an expression of incompatible type '__private S'",
        id="init-struct-int",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { int4 v = (int4)(1); int2 w = v; o[0] = w.x; }",
        "1:61",
        "initializing '__private int2' (vector of 2 'int' values) with an expression of incompatible type '__private int4' (vector of 4 'int' values)",
        id="init-vec-vec",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { int4 v = (int4)(1); int w = v; o[0] = w; }",
        "1:60",
        "initializing '__private int' with an expression of incompatible type '__private int4' (vector of 4 'int' values)",
        id="init-vec-scalar",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { float4 f = (float4)(1); int4 v = f; o[0] = v.x; }",
        "1:65",
        "initializing '__private int4' (vector of 4 'int' values) with an expression of incompatible type '__private float4' (vector of 4 'float' values)",
        id="init-vec-float",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { float f = 1; __global int* p = f; o[0] = *p; }",
        "1:63",
        "initializing '__global int *__private' with an expression of incompatible type '__private float'",
        id="init-ptr-float",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { int j = o; o[0] = j; }",
        "1:40",
        "incompatible pointer to integer conversion initializing '__private int' with an expression of type '__global int *__private'",
        id="init-int-ptr",
    ),
    pytest.param(
        "typedef struct { int x; } S; __kernel void k(__global int* o) { S s = {1}; int j; j = s; o[0] = j; }",
        "1:85",
        "assigning to '__private int' from incompatible type '__private S'",
        id="assign-struct-int",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { int4 v = (int4)(1); int2 w; w = v; o[0] = w.x; }",
        "1:66",
        "assigning to '__private int2' (vector of 2 'int' values) from incompatible type '__private int4' (vector of 4 'int' values)",
        id="assign-vec-vec",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { float4 f = (float4)(1); int4 v; v = f; o[0] = v.x; }",
        "1:70",
        "assigning to '__private int4' (vector of 4 'int' values) from incompatible type '__private float4' (vector of 4 'float' values)",
        id="assign-vec-float",
    ),
    pytest.param(
        "typedef struct { int x; } S; __kernel void k(__global int* o) { S s; s = 1; o[0] = s.x; }",
        "1:72",
        "assigning to '__private S' from incompatible type 'int'",
        id="assign-int-struct",
    ),
    pytest.param(
        "typedef struct { int x; } S; int f(S s) { return s; } __kernel void k(__global int* o) { }",
        "1:50",
        "returning '__private S' from a function with incompatible result type 'int'",
        id="ret-struct",
    ),
    pytest.param(
        "int2 f(int4 v) { return v; } __kernel void k(__global int* o) { }",
        "1:25",
        "returning '__private int4' (vector of 4 'int' values) from a function with incompatible result type 'int2' (vector of 2 'int' values)",
        id="ret-vec",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { int4 v = (int4)(1); int2 w; w = v + 1; o[0] = w.x; }",
        "1:66",
        "assigning to '__private int2' (vector of 2 'int' values) from incompatible type 'int4' (vector of 4 'int' values)",
        id="assign-rvalue-vec",
    ),
    pytest.param(
        "__kernel void k(__global int* o) { uint4 v = (uint4)(1); int4 w = v; o[0] = w.x; }",
        "1:63",
        "initializing '__private int4' (vector of 4 'int' values) with an expression of incompatible type '__private uint4' (vector of 4 'uint' values)",
        id="init-uint-vec",
    ),
    pytest.param(
        "__kernel void k(__global float* o) {\n    event_t e = 5;\n}",
        "2:13",
        "initializing '__private event_t' with an expression of incompatible type 'int'",
        id="ev-init5",
    ),
    pytest.param(
        "__kernel void k(__global float* o) {\n    event_t e = 0; e = 0;\n}",
        "2:22",
        "assigning to '__private event_t' from incompatible type 'int'",
        id="ev-assign0",
    ),
    pytest.param(
        "__kernel void k(__global float* o) {\n    event_t e = 0; int i = e;\n}",
        "2:24",
        "initializing '__private int' with an expression of incompatible type '__private event_t'",
        id="ev-to-int",
    ),
    pytest.param(
        "typedef struct { float4 v; int n; } P; __kernel void k(__global float* o) { P p = {(float2)(1, 2), (float2)(3, 4), 3}; o[0] = 1; }",
        "1:84",
        "initializing 'float4' (vector of 4 'float' values) with an expression of incompatible type 'float2' (vector of 2 'float' values)",
        id="elision",
    ),
    pytest.param(
        "struct S { int a; }; struct T { int a; }; void f(struct S s) { struct T t = s; } __kernel void k(__global float* o) { }",
        "1:73",
        "initializing '__private struct T' with an expression of incompatible type '__private struct S'",
        id="structs",
    ),
    pytest.param(
        "__kernel void k(__global float* o) { __global float* p = 5; o[0] = *p; }",
        "1:54",
        "incompatible integer to pointer conversion initializing '__global float *__private' with an expression of type 'int'",
        id="init-ptr-int",
    ),
    pytest.param(
        "__kernel void k(__global float* o) { long a = 8; __global float* p = a; o[0] = *p; }",
        "1:66",
        "incompatible integer to pointer conversion initializing '__global float *__private' with an expression of type '__private long'",
        id="init-ptr-long",
    ),
    pytest.param(
        "__kernel void k(__global float* o) { __global float* p = o; p = 5; o[0] = *p; }",
        "1:63",
        "incompatible integer to pointer conversion assigning to '__global float *__private' from 'int'",
        id="assign-ptr-int",
    ),
    pytest.param(
        "__global float* f(int a) { return a; }\n__kernel void k(__global float* o) { o[0] = *f(1); }",
        "1:35",
        "incompatible integer to pointer conversion returning '__private int' from a function with result type '__global float *'",
        id="return-ptr-int",
    ),
    pytest.param(
        "float g(__global float* p) { return *p; }\n__kernel void k(__global float* o) { o[0] = g(3); }",
        "2:47",
        "incompatible integer to pointer conversion passing 'int' to parameter of type '__global float *'",
        id="pass-ptr-int",
    ),
    pytest.param(
        "__kernel void k(__global float* o) { int x = 0; x = o; o[0] = x; }",
        "1:51",
        "incompatible pointer to integer conversion assigning to '__private int' from '__global float *__private'",
        id="assign-int-ptr",
    ),
    pytest.param(
        "float g(int p) { return p; }\n__kernel void k(__global float* o) { o[0] = g(o); }",
        "2:47",
        "incompatible pointer to integer conversion passing '__global float *__private' to parameter of type 'int'",
        id="pass-int-ptr",
    ),
    pytest.param(  # (a pointer to a floating type: no conversion, not even one Clang calls incompatible)
        "__kernel void k(__global float* o, __global int* p) { o[0] = p; }",
        "1:60",
        "assigning to '__global float' from incompatible type '__global int *__private'",
        id="assign-float-ptr",
    ),
    pytest.param(
        "__kernel void k(__global float* o) { float4 v = o; o[0] = v.x; }",
        "1:45",
        "initializing '__private float4' (vector of 4 'float' values) with an expression of incompatible type "
        "'__global float *__private'",
        id="init-vector-ptr",
    ),
    pytest.param(
        "float f(__global float* o) { return o; }\n__kernel void k(__global float* o) { o[0] = f(o); }",
        "1:37",
        "returning '__global float *__private' from a function with incompatible result type 'float'",
        id="return-float-ptr",
    ),
    pytest.param(  # a string literal is an array of its chars and the NUL
        '__kernel void k(__global int* p) { p[0] = "ab"; }',
        "1:41",
        "incompatible pointer to integer conversion assigning to '__global int' from '__constant char[3]'",
        id="assign-int-string",
    ),
    pytest.param(
        '__kernel void k(__global float* o) { o[0] = "abc"; }',
        "1:43",
        "assigning to '__global float' from incompatible type '__constant char[4]'",
        id="assign-float-string",
    ),
    pytest.param(  # the usual arithmetic conversions' type, which Clang spells without a typedef (uint + uint)
        "struct S { int x; };\n__kernel void k(__global int* o, uint a, uint b) { struct S s = a + b; o[0] = s.x; }",
        "2:61",
        "initializing '__private struct S' with an expression of incompatible type 'unsigned int'",
        id="init-arithmetic",
    ),
    pytest.param(  # as ?: spells its arms' (a size_t's 'unsigned long')
        "struct S { int x; };\n__kernel void k(__global int* o, ulong g, int c) { struct S s = c ? g : g; o[0] = s.x; }",
        "2:61",
        "initializing '__private struct S' with an expression of incompatible type 'unsigned long'",
        id="init-conditional",
    ),
    pytest.param(  # a shift keeps its left operand's
        "struct S { int x; };\n__kernel void k(__global int* o, uint a) { struct S s = a << 1; o[0] = s.x; }",
        "2:53",
        "initializing '__private struct S' with an expression of incompatible type 'uint' (aka 'unsigned int')",
        id="init-shift",
    ),
    pytest.param(  # an assignment as the initializer: the initialization is the error, not the assignment
        "struct S { int x; };\n__kernel void k(__global int* o, uint a) { struct S s = (a += 2); o[0] = s.x; }",
        "2:53",
        "initializing '__private struct S' with an expression of incompatible type 'uint' (aka 'unsigned int')",
        id="init-assignment",
    ),
]


@pytest.mark.parametrize(("source", "at", "message"), INCOMPATIBLE)
def test_incompatible_types_in_clangs_words(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """A value whose type does not convert to the target's: "initializing ... with an expression of incompatible
    type ..." at the variable's name (a member's item at the item, its type of no address space), "assigning to
    ... from incompatible type ..." at the ``=``, "returning ... from a function with incompatible result type ..."
    at the expression; an object's type with its address space, an operator's result without; a pointer stored to
    an integer is an "incompatible pointer to integer conversion", and the reverse an "incompatible integer to
    pointer conversion" (PoCL 3.1's errors, at the argument too; Oclgrind 21.10's older Clang only warns, and
    builds them)."""
    warned = message.startswith(("incompatible integer to pointer", "incompatible pointer to integer"))
    if request.node.callspec.params["device_ctx"] == "oclgrind" and warned:
        pytest.skip("Oclgrind 21.10's Clang takes an integer to or from pointer conversion with a warning")
    assert_refused(device_ctx, request, source, message, at)


@pytest.mark.parametrize(
    "body",
    [
        "p->a = 2 * p->a + 1;",  # a const pointer to what is not const
        "s.q[1] = 7; *s.q = 5;",  # a const struct's pointer to what is not const
        "t.v[0] += 3; t.v[1]++;",  # members of a struct that is not const
    ],
)
def test_what_is_assignable_runs(device_ctx: wia.Context, body: str) -> None:
    source = (
        "typedef struct { int a; } S; typedef struct { __global int* q; } P; typedef struct { int v[2]; } T;\n"
        "__kernel void k(__global S* const p, __global int* o) {\n"
        "    const P s = {o}; T t = {{o[2], o[3]}};\n"
        f"    {body}\n"
        "    o[2] = t.v[0]; o[3] = t.v[1];\n"
        "}\n"
    )
    rng = np.random.default_rng(7)
    a = rng.integers(-100, 100, 1).astype(np.int32)
    o = rng.integers(-100, 100, 4).astype(np.int32)
    got_a, got_o = run_arrays(device_ctx, source, "k", [a, o], 1, 1)
    want_a, want_o = a.copy(), o.copy()
    if body.startswith("p->a"):
        want_a[0] = 2 * a[0] + 1
    elif body.startswith("s.q"):
        want_o[1], want_o[0] = 7, 5
    else:
        want_o[2], want_o[3] = o[2] + 3, o[3] + 1
    np.testing.assert_array_equal(got_a, want_a)
    np.testing.assert_array_equal(got_o, want_o)


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        (
            "__kernel void k(__global float* o) { int4 a = 1; float4 b = (float4)a; o[0] = b.x; }",
            "1:61",
            "invalid conversion between ext-vector type 'float4' (vector of 4 'float' values) and 'int4' (vector of "
            "4 'int' values)",
        ),
        (
            "__kernel void k(__global float* o) { int2 a = 1; float4 b = (float4)a; o[0] = b.x; }",
            "1:61",
            "invalid conversion between ext-vector type 'float4' (vector of 4 'float' values) and 'int2' (vector of "
            "2 'int' values)",
        ),
        (
            "__kernel void k(__global float* o) { float4 v = 1; o[0] = (float)v; }",
            "1:59",
            "invalid conversion between vector type 'float4' (vector of 4 'float' values) and scalar type 'float'",
        ),
        ("__kernel void k(__global float* o) { o[0] = (float)o; }", "1:52", "pointer cannot be cast to type 'float'"),
    ],
)
def test_casts_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """A vector cast to a vector of other elements or length (``convert_`` or ``as_`` converts), a vector to a
    scalar, a pointer to a floating type (the simulator had built ``(float)o``, and worded the others its own
    way)."""
    assert_refused(device_ctx, request, source, message, at)


def test_a_pointer_converts_to_bool(device_ctx: wia.Context) -> None:
    """A pointer stored to a ``bool`` is whether it is NULL (C99 6.3.1.2), initialized, assigned or cast (the
    simulator had refused it as a pointer-to-integer conversion)."""
    source = (
        "__kernel void k(__global int* p, __global int* out) {\n"
        "    __global int* none = 0;\n"
        "    bool a = p; bool b; b = none; bool c = (bool)(p + 1);\n"
        "    out[0] = a; out[1] = b; out[2] = c;\n"
        "}\n"
    )
    _, out = run_arrays(device_ctx, source, "k", [np.zeros(4, np.int32), np.full(3, 7, np.int32)], 1, 1)
    np.testing.assert_array_equal(out, [1, 0, 1])


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        (
            "__kernel void k(__global int* p) { printf(1u); }",
            "1:43",
            "incompatible integer to pointer conversion passing 'unsigned int' to parameter of type 'const __constant "
            "char *'",
        ),
        (
            "__kernel void k(__global int* p) { printf(1.0f); }",
            "1:43",
            "passing 'float' to parameter of incompatible type 'const __constant char *'",
        ),
        (
            "__kernel void k(__global int* p) { printf(p); }",
            "1:43",
            "passing '__global int *__private' to parameter of type 'const __constant char *' changes address space "
            "of pointer",
        ),
        (
            "__kernel void k(__global int* p) { printf(); }",
            "1:43",
            "too few arguments to function call, at least argument 'st' must be specified",
        ),
        (
            "__kernel void k(__global int* p) { p = 5ul; }",
            "1:38",
            "incompatible integer to pointer conversion assigning to '__global int *__private' from 'unsigned long'",
        ),
        (
            "__kernel void k(__global int* p, __global float* o) { p[0] = 1u << o; }",
            "1:65",
            "invalid operands to binary expression ('unsigned int' and '__global float *__private')",
        ),
    ],
)
def test_printf_formats_pointer_operands_and_constants_in_clangs_words(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """printf's format is a ``const __constant char *`` parameter (opencl-c-base.h's ``st``): another type is
    Clang's conversion error, none its arity error; an integer constant's type is C's ('unsigned int', not
    'uint'); a pointer operand of an arithmetic operator "invalid operands to binary expression" at the operator
    (the simulator had worded all of them its own way)."""
    if request.node.callspec.params["device_ctx"] == "oclgrind" and "incompatible integer to pointer" in message:
        pytest.skip("Oclgrind 21.10's Clang takes an integer to pointer conversion with a warning")
    assert_refused(device_ctx, request, source, message, at)
