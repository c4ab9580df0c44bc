"""Errors in declarations and statements in Clang's words and places (PoCL 3.1's and Oclgrind 21.10's front end,
OpenCL C 1.2: ``-cl-std=CL1.2``, which PoCL needs told), where the simulator gave its own: kernel parameters of
types OpenCL C 1.2 6.9 keeps out (through typedefs too: ``typedef size_t sz;`` had built), pointers into __private
memory or to pointers, incomplete struct types (a pointer to one is Clang's, and had been refused; a member of one
through it had built), member access on what has no members, case labels that are no integer constants (at the
part that is not), a value returned from a void function, variable length arrays. Each refusal is checked on every
backend, at Clang's line and column on the simulator."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import assert_refused, build_error, error_lines, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source

CL12 = "-cl-std=CL1.2"
PRIVATE_POINTER = (
    "pointer arguments to kernel functions must reside in '__global', '__constant' or '__local' address space"
)


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        (
            "__kernel void k(bool b, __global float* o) { o[0] = b; }",
            "1:22",
            "'__private bool' cannot be used as the type of a kernel parameter",
        ),
        (
            "__kernel void k(size_t n, __global float* o) { o[0] = n; }",
            "1:24",
            "'__private size_t' (aka '__private unsigned long') cannot be used as the type of a kernel parameter",
        ),
        (
            "typedef size_t sz;\n__kernel void k(sz n, __global float* o) { o[0] = n; }",
            "2:20",
            "'__private sz' (aka '__private unsigned long') cannot be used as the type of a kernel parameter",
        ),
        (
            "__kernel void k(ptrdiff_t n, __global float* o) { o[0] = n; }",
            "1:27",
            "'__private ptrdiff_t' (aka '__private long') cannot be used as the type of a kernel parameter",
        ),
        (
            "__kernel void k(event_t e, __global float* o) { o[0] = 1; }",
            "1:25",
            "'__private event_t' cannot be used as the type of a kernel parameter",
        ),
        ("__kernel void k(float* o) { o[0] = 1; }", "1:24", PRIVATE_POINTER),
        ("__kernel void k(__private float* o) { o[0] = 1; }", "1:34", PRIVATE_POINTER),
        ("__kernel void k(__global float** o) { }", "1:34", PRIVATE_POINTER),
        (
            "__kernel void k(__global float* __global* o) { }",
            "1:43",
            "kernel parameter cannot be declared as a pointer to a pointer",
        ),
        (
            "__kernel void k(half h, __global float* o) { o[0] = 1; }",
            "1:22",
            "declaring function parameter of type '__private half' is not allowed; did you forget * ?",
        ),
    ],
)
def test_kernel_parameters_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    assert_refused(device_ctx, request, source, message, at, CL12)


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        (
            "struct T;\n__kernel void k(__global float* o) { struct T t; o[0] = 1; }",
            "2:47",
            "variable has incomplete type '__private struct T'",
        ),
        (
            "typedef struct T S;\n__kernel void k(__global float* o) { S s; o[0] = 1; }",
            "2:40",
            "variable has incomplete type '__private S' (aka '__private struct T')",
        ),
        (
            "struct T;\n__kernel void k(__global float* o, struct T t) { o[0] = 1; }",
            "2:45",
            "variable has incomplete type '__private struct T'",
        ),
        (
            "struct T;\n__kernel void k(__global float* o) { struct T t[2]; o[0] = 1; }",
            None,
            "array has incomplete element type 'struct T'",
        ),
        (
            "struct T;\n__kernel void k(__global float* o, __global struct T* p) { o[0] = p->a; }",
            "2:68",
            "incomplete definition of type 'struct T'",
        ),
        (
            "__kernel void k(__global float* o) { float x = 1; o[0] = x.a; }",
            "1:59",
            "member reference base type '__private float' is not a structure or union",
        ),
        (
            "__kernel void k(__global float* o) { o[0] = o[1].a; }",
            "1:49",
            "member reference base type '__global float' is not a structure or union",
        ),
        (
            "__kernel void k(__global float* o) { o[0] = (1 + 2).a; }",
            "1:52",
            "member reference base type 'int' is not a structure or union",
        ),
        (
            "typedef struct { float a; } S;\n__kernel void k(__global float* o) { S s; s.a = 1; o[0] = s->a; }",
            "2:60",
            "member reference type 'S' is not a pointer; did you mean to use '.'?",
        ),
        (
            "typedef struct T { float a; } S;\n__kernel void k(__global float* o) { S s; s.a = 1; o[0] = s->a; }",
            "2:60",
            "member reference type 'S' (aka 'struct T') is not a pointer; did you mean to use '.'?",
        ),
        (
            "__kernel void k(__global float* o) { float x = 1; o[0] = x->a; }",
            "1:61",
            "member reference type 'float' is not a pointer",
        ),
        (
            "typedef struct { float a; } S;\n__kernel void k(__global float* o, __global S* p) { o[0] = p.a; }",
            "2:61",
            "member reference type '__global S *__private' is a pointer; did you mean to use '->'?",
        ),
    ],
)
def test_types_and_members_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str | None, message: str
) -> None:
    assert_refused(device_ctx, request, source, message, at, CL12)


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        (
            "__kernel void k(__global float* o, int n) { switch (n) { case n: o[1] = 1; } }",
            "1:63",
            "expression is not an integer constant expression",
        ),
        (
            "__kernel void k(__global float* o, int n) { switch (n) { case 1 + n: o[1] = 1; } }",
            "1:67",
            "expression is not an integer constant expression",
        ),
        (
            "__kernel void k(__global float* o, int n) { switch (n) { case 1.5: o[1] = 1; } }",
            "1:63",
            "integer constant expression must have integer type, not 'double'",
        ),
        ("__kernel void k(__global float* o) { return 1; }", "1:38", "void function 'k' should not return a value"),
        (
            "__kernel void k(__global float* o, int n) { float a[n + 1]; a[0] = 1; o[0] = a[0]; }",
            "1:53",
            "variable length arrays are not supported in OpenCL",
        ),
        (
            "__kernel void k(__global float* o) { static float x = 1; o[0] = x; }",
            "1:51",
            "variables in function scope cannot be declared static",
        ),
    ],
)
def test_statements_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    assert_refused(device_ctx, request, source, message, at, CL12)


def test_pointers_to_an_incomplete_struct_build_and_run(device_ctx: wia.Context) -> None:
    """A pointer to a struct nothing defines is a pointer all the same (Clang takes it): a parameter, a variable,
    passed on, compared, never dereferenced."""
    source = (
        "struct T;\n"
        "int same(__global struct T* a, __global struct T* b) { return a == b; }\n"
        "__kernel void k(__global float* o, __global struct T* p) {\n"
        "    __global struct T* q = p;\n"
        "    o[get_global_id(0)] = (float)same(p, q) + 2.0f;\n"
        "}\n"
    )
    out, _ = run_arrays(device_ctx, source, "k", [np.zeros(4, np.float32), np.zeros(4, np.float32)], 4, 4)
    np.testing.assert_array_equal(out, np.full(4, 3.0, np.float32))


@pytest.mark.parametrize(
    "source",
    [
        "__kernel void k(__global ulong* o) { o[0] = sizeof(void); }",
        "void f(void) {}\n__kernel void k(__global ulong* o) { o[0] = sizeof f(); }",
    ],
)
def test_sizeof_void_is_refused(device_ctx: wia.Context, request: pytest.FixtureRequest, source: str) -> None:
    """GNU C's ``sizeof(void)`` is 1; Clang refuses it in OpenCL C (the simulator built it)."""
    assert_refused(device_ctx, request, source, "invalid application of 'sizeof' to a void type", None, CL12)


S = "typedef struct { float a; } S;\nvoid f(void) {}\n"


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        (
            S + "__kernel void k(__global float* o) { S s; s.a = 1; if (s) o[0] = 1; }",
            "3:52",
            "statement requires expression of scalar type ('S' invalid)",
        ),
        (
            S + "__kernel void k(__global float* o) { S s; s.a = 1; do o[0] = 1; while (s); }",
            "3:52",
            "statement requires expression of scalar type ('S' invalid)",
        ),
        (
            S + "__kernel void k(__global float* o) { if (f()) o[0] = 1; }",
            "3:38",
            "statement requires expression of scalar type ('void' invalid)",
        ),
        (
            S + "__kernel void k(__global float* o) { int4 v = (int4)(1); while (v) o[0] = 1; }",
            "3:58",
            "statement requires expression of scalar type ('int4' (vector of 4 'int' values) invalid)",
        ),
        (
            S + "__kernel void k(__global float* o) { switch (o[0]) { case 1: o[1] = 1; } }",
            "3:38",
            "statement requires expression of integer type ('__global float' invalid)",
        ),
        (
            S + "__kernel void k(__global float* o) { switch (o) { case 1: o[1] = 1; } }",
            "3:38",
            "statement requires expression of integer type ('__global float *__private' invalid)",
        ),
        (
            S + "__kernel void k(__global float* o) { S s; s.a = 1; o[0] = s ? 1 : 2; }",
            "3:61",
            "used type 'S' where arithmetic or pointer type is required",
        ),
        (
            S + "__kernel void k(__global float* o) { S s; s.a = 1; o[0] = -s; }",
            "3:59",
            "invalid argument type 'S' to unary expression",
        ),
        (
            S + "__kernel void k(__global float* o) { float x = 1; o[0] = ~x; }",
            "3:58",
            "invalid argument type 'float' to unary expression",
        ),
        (
            S + "__kernel void k(__global float* o) { o[0] = *(-o); }",
            "3:47",
            "invalid argument type '__global float *' to unary expression",
        ),
        (
            S + "__kernel void k(__global float* o) { S s; s.a = 1; o[0] = s && 1; }",
            "3:61",
            "invalid operands to binary expression ('__private S' and 'int')",
        ),
        (
            "__kernel void k(__global float* o) { o[0] = o[1] % 2.0f; }",
            "1:50",
            "invalid operands to binary expression ('__global float' and 'float')",
        ),
        (
            "__kernel void k(__global int* o) { float x = 1; o[0] = x << 2; }",
            "1:58",
            "invalid operands to binary expression ('__private float' and 'int')",
        ),
        (
            "__kernel void k(__global float4* o) { float4 v = o[0]; o[1] = v & v; }",
            "1:65",
            "invalid operands to binary expression ('__private float4' (vector of 4 'float' values) and "
            "'__private float4')",
        ),
        (
            "__kernel void k(__global int4* o) { int4 a = o[0]; float4 f = (float4)(1); o[1] = a << f; }",
            "1:85",
            "used type 'float4' (vector of 4 'float' values) where integer is required",
        ),
        ("__kernel void k(__global float* o) {\n    goto   done;\n}", "2:12", "use of undeclared label 'done'"),
    ],
)
def test_operands_and_conditions_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """Conditions and a switch's expression at the statement's keyword (the condition's value type named, the
    switch's as an object's), unary and binary operands at the operator, a label nothing declares at its name."""
    assert_refused(device_ctx, request, source, message, at, CL12)


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        (
            "__kernel void k(__global float4* o) { o[0] = (float4)(1.0f, 2.0f, 3.0f); }",
            "1:54",
            "too few elements in vector initialization (expected 4 elements, have 3)",
        ),
        (
            "__kernel void k(__global float4* o) { o[0] = (float4)((1.0f), 2.0f); }",
            "1:54",
            "too few elements in vector initialization (expected 4 elements, have 2)",
        ),
        (
            "__kernel void k(__global float2* o) { o[0] = (float2)(1.0f, 2.0f, 3.0f); }",
            "1:67",
            "excess elements in vector initializer",
        ),
        (
            "__kernel void k(__global float4* o) { float2 a = (float2)(1); o[0] = (float4)(a, a, 1.0f); }",
            "1:78",
            "too many elements in vector initialization (expected 4 elements, have 5)",
        ),
    ],
)
def test_vector_literals_of_the_wrong_length(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """Too few components at the literal's ``(``; scalars past the end at the first of them; a vector component
    making too many at the ``(`` (the simulator said "vector literal for 'float4' has 3 components")."""
    assert_refused(device_ctx, request, source, message, at, CL12)


@pytest.mark.parametrize(
    ("source", "at", "message", "everywhere"),
    [
        (
            "__kernel void k(__global float* o) { atomic_add(o, 1.0f); }",
            "1:38",
            "call to 'atomic_add' is ambiguous",
            "is ambiguous",
        ),
        (
            "__kernel void k(__global float* o) { o[0] = min(1.0f, 2); }",
            "1:45",
            "call to 'min' is ambiguous",
            "is ambiguous",
        ),
        (
            "__kernel void k(__global float* o) { o[0] = sqrt(1.0f, 2.0f); }",
            "1:45",
            "no matching function for call to 'sqrt'",
            "no matching function",
        ),
        (
            "__kernel void k(__global float* o) { o[0] = sqrt(o); }",
            "1:45",
            "no matching function for call to 'sqrt'",
            "no matching function",
        ),
        (
            "__kernel void k(__global float* o) { float4 v = vload4(0, 5); o[0] = v.x; }",
            "1:49",
            "no matching function for call to 'vload4'",
            "no matching function",
        ),
        (
            "__kernel void k(__global float* o) { barrier(); }",
            "1:46",
            "too few arguments to function call, single argument 'flags' was not specified",
            "too few arguments to function call",
        ),
        (
            "__kernel void k(__global int* o) { o[0] = as_int((short)1); }",
            "1:43",
            "invalid reinterpretation: sizes of 'int' and 'short' must match",
            "invalid reinterpretation: sizes of 'int' and 'short' must match",
        ),
        (  # a scalar converts to every vector alike (the simulator had said its own words, and then that a
            # float4 cannot be assigned to a float)
            "__kernel void k(__global float* o) { o[0] = convert_float4(1); }",
            "1:45",
            "call to 'convert_float4' is ambiguous",
            "is ambiguous",
        ),
        (
            "__kernel void k(__global int* o) { int2 v = convert_int2((float4)(1.0f)); o[0] = v.x; }",
            "1:45",
            "no matching function for call to 'convert_int2'",
            "no matching function",
        ),
        (
            "__kernel void k(__global int* o) { o[0] = convert_int(o); }",
            "1:43",
            "no matching function for call to 'convert_int'",
            "no matching function",
        ),
    ],
)
def test_builtin_calls_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str, everywhere: str
) -> None:
    """Overload resolution's words (PoCL's renamed built-ins say '_cl_sqrt': only the words around the name are
    checked there), a built-in of one parameter's arity words, a reinterpretation between sizes, a conversion of
    another number of components; ``atomic_add`` of a float had built (OpenCL C 1.2 has int and uint ones: a float
    converts to both alike)."""
    refusal = assert_refused(device_ctx, request, source, everywhere, at if message == everywhere else None, CL12)
    if request.node.callspec.params["device_ctx"] == "sim":
        assert f"kernel.cl:{at}: error: {message}" in refusal


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        (
            "float f(void);\nint f(void) { return 1; }\n__kernel void k(__global float* o) { o[0] = f(); }",
            "2:5",
            "conflicting types for 'f'",
        ),
        (
            "float f(int a);\nfloat f(uint a) { return a; }\n__kernel void k(__global float* o) { o[0] = f(1); }",
            "2:7",
            "conflicting types for 'f'",
        ),
        (
            "__kernel void k(__global float* o);\n__kernel void k(__global int* o) { }",
            "2:15",
            "conflicting types for 'k'",
        ),
        (
            "struct S { int a; };\nstruct S { int b; };\n__kernel void k(__global float* o) { o[0] = 1; }",
            "2:8",
            "redefinition of 'S'",
        ),
        ("__kernel void k(__global float* o) { void v; o[0] = 1; }", "1:43", "variable has incomplete type 'void'"),
        (
            "__kernel void k(__global float* o) { void a[2]; o[0] = 1; }",
            "1:44",
            "array has incomplete element type 'void'",
        ),
        (
            "struct T;\n__kernel void k(__global float* o) { struct T t[2]; o[0] = 1; }",
            "2:48",
            "array has incomplete element type 'struct T'",
        ),
        (
            "__kernel void k(__global float* o) { float o = 1; }",
            "1:44",
            "redefinition of 'o' with a different type: '__private float' vs '__global float *__private'",
        ),
        ("__kernel void k(__global float* o) { int x = 1; int x = 2; o[0] = x; }", "1:53", "redefinition of 'x'"),
        (
            "__kernel void k(__global float* o) { __global float g; o[0] = g; }",
            "1:53",
            "function scope variable cannot be declared in global address space",
        ),
        (
            "enum E { A, A };\n__kernel void k(__global float* o) { o[0] = A; }",
            "1:13",
            "redefinition of enumerator 'A'",
        ),
    ],
)
def test_redeclarations_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """A function declared twice with other types, a struct defined twice, objects of type void, a name declared
    twice in one scope (both types named where they differ), and more of Clang's words (the first five had
    built)."""
    assert_refused(device_ctx, request, source, message, at, CL12)


def test_functions_declared_alike_build(device_ctx: wia.Context) -> None:
    """Declarations that give one function type: qualifiers of a parameter itself and an array parameter's
    pointer (C99 6.7.5.3p15), a prototype before its definition."""
    source = (
        "float f(const int n, __global const float a[4]);\n"
        "float f(int n, __global const float* a) { return a[n]; }\n"
        "__kernel void k(__global float* o) { o[1] = f(0, o); }\n"
    )
    (out,) = run_arrays(device_ctx, source, "k", [np.array([5.0, 0.0], np.float32)], 1, 1)
    np.testing.assert_array_equal(out, [5.0, 5.0])


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        (
            "__kernel void k(__global float* o) { int a[2] = {[3] = 1}; o[0] = a[0]; }",
            "1:51",
            "array designator index (3) exceeds array bounds (2)",
        ),
        (
            "__kernel void k(__global float* o) { int a[2] = {1, 2}; int b[2] = a; o[0] = b[0]; }",
            "1:61",
            "array initializer must be an initializer list",
        ),
    ],
)
def test_array_initializers_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    assert_refused(device_ctx, request, source, message, at, CL12)


def test_a_braced_string_initializes_a_char_array(device_ctx: wia.Context) -> None:
    """``char s[4] = {"abc"};`` is the string's initialization (C99 6.7.8p14: "optionally enclosed in braces"),
    which the simulator had refused; an array of unknown size is sized by it."""
    source = (
        '__kernel void k(__global int* o) { char c[4] = {"abc"}; uchar d[] = {"xy"}; '
        "o[0] = c[2]; o[1] = c[3]; o[2] = d[1] + (int)sizeof(d); }"
    )
    (out,) = run_arrays(device_ctx, source, "k", [np.zeros(3, np.int32)], 1, 1)
    np.testing.assert_array_equal(out, [ord("c"), 0, ord("y") + 3])


def test_unnamed_parameters_build_and_run(device_ctx: wia.Context) -> None:
    """A parameter without a name (C23's, which Clang takes in OpenCL C with a warning): its argument is passed
    and unused, a kernel's as a helper's (the simulator had refused "parameter name omitted")."""
    source = (
        "int twice(int, int b) { return 2 * b; }\n"
        "__kernel void k(__global const int*, __global int* q, int) {\n"
        "    q[get_global_id(0)] = twice(1, q[get_global_id(0)]);\n"
        "}\n"
    )
    rng = np.random.default_rng(44)
    unused, q = rng.integers(-50, 50, 8).astype(np.int32), rng.integers(-50, 50, 8).astype(np.int32)
    _, out = run_arrays(device_ctx, source, "k", [unused, q], 8, 4, np.int32(3), options=CL12)
    np.testing.assert_array_equal(out, 2 * q)


BODY = "__kernel void k(__global float* o, __global int* p, int n) {{ {} }}"
"""(The body's first character is at column 62.)"""


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        (BODY.format("half h = 1; o[0] = h;"), "1:67", "declaring variable of type '__private half' is not allowed"),
        (
            BODY.format("const half h = 1; o[0] = h;"),
            "1:73",
            "declaring variable of type 'const __private half' is not allowed",
        ),
        (BODY.format("half a[2]; o[0] = 1;"), "1:67", "declaring variable of type '__private half[2]' is not allowed"),
        (BODY.format("o[0] = (half)1.0f;"), "1:75", "casting to type 'half' is not allowed"),
        (
            "half f(void) { return 0; }\n__kernel void k(__global float* o) { o[0] = 1; }",
            "1:6",
            "declaring function return value of type 'half' is not allowed ; did you forget * ?",
        ),
        (BODY.format("extern int e;"), "1:73", "extern variable must reside in constant address space"),
        (
            BODY.format("struct S { int b : 3; } s; s.b = 1; p[0] = s.b;"),
            "1:77",
            "bit-fields are not supported in OpenCL",
        ),
        (
            BODY.format("struct S { __global int g; int y; } s; s.y = 1; p[0] = s.y;"),
            "1:86",
            "field may not be qualified with an address space",
        ),
        (
            "struct P { float* __local q; };\n__kernel void k(__global int* p) { p[0] = 1; }",
            "1:27",
            "field may not be qualified with an address space",
        ),
        (BODY.format("int x = sizeof(int[n]);"), "1:81", "variable length arrays are not supported in OpenCL"),
        (BODY.format("o->x = 1;"), "1:63", "member reference base type '__global float' is not a structure or union"),
        (BODY.format("int 3x = 1;"), "1:66", "expected identifier or '('"),
        (BODY.format("float 2f;"), "1:68", "expected identifier or '('"),
        (BODY.format("for (int i = 0; i < n; i++) int y = i;"), "1:90", "expected expression"),
        (BODY.format("if (n) int y = 1;"), "1:69", "expected expression"),
        (
            "__kernel void k(__global int* p) { p[0] = __alignof__(void); }",
            "1:43",
            "invalid application of '__alignof' to a void type",
        ),
        (
            "__kernel void k(__global int* p) { p[0] = _Alignof(void); }",
            "1:43",
            "invalid application of 'alignof' to a void type",
        ),
        ("__kernel void k(__global int* p) { p[0] = 1; ", "1:46", "expected '}'"),
        ("__kernel void k(__global int* p) {\n p[0] = 1;\n", "2:11", "expected '}'"),
    ],
)
def test_more_declarations_and_statements_in_clangs_words(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """A half value without cl_khr_fp16 (a variable, a cast, a function's result: the simulator had built the
    last), an extern variable in a function, a struct member of an address space (the simulator had taken it), a
    variable length array in ``sizeof``, ``->`` on a pointer to a non-struct (its pointee named), a number where a
    declarator must be, a declaration where an ``if`` or a loop needs a statement, ``_Alignof`` named as Clang
    names it ('alignof', or '__alignof' as GNU's spelling; the simulator had said '_Alignof'), and the end of the
    input inside a block (at its end, or at its last newline)."""
    if request.node.callspec.params["device_ctx"] == "oclgrind" and message == "expected '}'":
        pytest.skip("Oclgrind 21.10 counts the lines of its own prelude in an error at the end of the input")
    assert_refused(device_ctx, request, source, message, at, CL12)


FILE_SCOPE_REFUSED = """const uint three = 3u + nope;
extern int ext;
int plain[4] = {1, 2};
__kernel void k(__global uint* o) { o[get_global_id(0)] = three + ext + plain[1]; }"""

UNDEFINED_SIZES = """__kernel __attribute__((reqd_work_group_size(WORKGROUP_SIZE, 1, 1))) void k(__global int* p) {
  __local float t[BLOCK_SIZE][BLOCK_SIZE + 1]; int n = p[0]; float v[n];
  p[0] = t[0][0] + v[0];
}"""


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param(
            FILE_SCOPE_REFUSED,
            [
                ("1:12", "program scope variable must reside in constant address space"),
                ("1:25", "use of undeclared identifier 'nope'"),
                ("2:12", "extern variable must reside in constant address space"),
                ("3:5", "program scope variable must reside in constant address space"),
            ],
            id="file-scope",
        ),
        pytest.param(
            UNDEFINED_SIZES,
            [
                ("1:46", "use of undeclared identifier 'WORKGROUP_SIZE'"),
                ("2:19", "use of undeclared identifier 'BLOCK_SIZE'"),
                ("2:31", "use of undeclared identifier 'BLOCK_SIZE'"),
                ("2:70", "variable length arrays are not supported in OpenCL"),
            ],
            id="undefined-sizes",
        ),
    ],
)
def test_every_error_clang_gives_and_no_more(
    device_ctx: wia.Context, source: str, expected: list[tuple[str, str]]
) -> None:
    """The whole list of errors, word for word and place for place, PoCL 3.1's and Oclgrind 21.10's, where the
    simulator gave more. A program-scope variable (an extern one too) outside ``__constant`` memory is Clang's
    error, its initializer still checked and its name still declared: no "use of undeclared identifier" at each
    use of it (29 such lines for AMD's MonteCarloAsian sample). A kernel built without the ``-D`` that defines its
    sizes (Rodinia's BLOCK_SIZE, NVIDIA's WORKGROUP_SIZE): the undeclared names, in an array's dimension and in
    ``reqd_work_group_size`` alike, and nothing more about them (the simulator had added "variable length arrays
    are not supported" to each such dimension and said "attribute requires parameter 0 to be an integer constant"
    in place of the name's error); a dimension that is a variable is still that error."""
    refusal = build_error(device_ctx, source, options=CL12)
    assert all(message in refusal for _, message in expected)
    if wia.get_backend().name == "sim":
        errors = error_lines(refusal.splitlines())
        assert errors == [f"kernel.cl:{at}: error: {message}" for at, message in expected]


SPACES_TWICE = """typedef __private int PI;
typedef __global int GI;
typedef GI GI2;
typedef __global int GA[4];
typedef int* __global GPX;
void f(__local GI* p) { }
__kernel void k(__global int* out) {
    __local PI* a;
    __local GI2* b;
    __local GA* c;
    __local GPX d;
    int x = *(__local GI*)out;
    __local   __global int* e;
    out[0] = 1;
}"""

SPACES_REPEATED = """typedef __global int GI;
typedef __private int PI;
typedef __global int* GP;
__kernel void k(__global int* out) {
    __global GI* p = out;
    __global __global int* q = out;
    GI __global * r = out;
    __private PI y = 2;
    __local GP s;
    __local int t;
    p[0] = 1; q[1] = y; r[2] = 3;
}"""


def test_address_spaces_given_twice(device_ctx: wia.Context) -> None:
    """A type given two address spaces is Clang's error, and one given the same twice its warning, at the last one
    written (PoCL 3.1 and Oclgrind 21.10 say so at the same places), also where a typedef brings one of them: the
    simulator took ``__local GI* p`` of ``typedef __global int GI`` as a pointer to __local memory (and
    ``__local PI* a`` of a ``typedef __private int PI``, ``__local GI2*`` of a typedef of GI, an array typedef's
    and a pointer typedef's own), and warned of none. A pointer typedef's target's space is no space of its own
    (``__local GP s``: a __local pointer to __global memory)."""
    refusal = build_error(device_ctx, SPACES_TWICE, options=CL12)
    assert "multiple address spaces specified for type" in refusal
    (out,) = run_arrays(device_ctx, SPACES_REPEATED, "k", [np.zeros(4, np.int32)], 1, 1, options=CL12)
    np.testing.assert_array_equal(out, [1, 2, 3, 0])
    if wia.get_backend().name == "sim":
        errors = error_lines(refusal.splitlines())
        assert errors == [
            f"kernel.cl:{at}: error: multiple address spaces specified for type ({spaces}; {what})"
            for at, spaces, what in [
                ("6:8", "__global and __local", "parameter 'p'"),
                ("8:5", "__private and __local", "variable 'a'"),
                ("9:5", "__global and __local", "variable 'b'"),
                ("10:5", "__global and __local", "variable 'c'"),
                ("11:5", "__global and __local", "variable 'd'"),
                ("12:15", "__global and __local", "cast"),  # (and no word of the conversion to it)
                ("13:15", "__local and __global", "variable 'e'"),
            ]
        ]
        assert compile_source(SPACES_REPEATED, options=CL12).build_log.splitlines() == [
            f"kernel.cl:{at}: warning: multiple identical address spaces specified for type ({space}; variable '{v}')"
            for at, space, v in [
                ("5:5", "__global", "p"),
                ("6:14", "__global", "q"),
                ("7:8", "__global", "r"),
                ("8:5", "__private", "y"),
            ]
        ]


POINTER_SPACES_TWICE = """__kernel void k(__global int* out) {
    int* __local __global q;
    int* __global __global r = 0;
    __global int* __local const __local s;
    out[0] = 1;
}"""


def test_a_pointers_own_address_space_given_twice(device_ctx: wia.Context) -> None:
    """The same after a ``*``, where the spaces are the pointer object's own: two are the error (the simulator's
    parser had refused the declarator), the same twice the warning, and the first one given is the pointer's (a
    ``__global`` one in a function is the error of its own), each where PoCL 3.1 and Oclgrind 21.10 say it."""
    refusal = build_error(device_ctx, POINTER_SPACES_TWICE, options=CL12)
    assert "multiple address spaces specified for type" in refusal
    assert "function scope variable cannot be declared in global address space" in refusal
    if wia.get_backend().name == "sim":
        assert refusal.splitlines()[-4:] == [
            "kernel.cl:2:18: error: multiple address spaces specified for type (__local and __global; variable 'q')",
            "kernel.cl:3:19: warning: multiple identical address spaces specified for type (__global; variable 'r')",
            "kernel.cl:3:28: error: function scope variable cannot be declared in global address space",
            "kernel.cl:4:33: warning: multiple identical address spaces specified for type (__local; variable 's')",
        ]
