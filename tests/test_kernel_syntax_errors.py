# ruff: noqa: E501  (each kernel of the last tests is one line: the columns Clang gives are counted on it)
"""The commonest syntax errors in Clang's words and places (PoCL 3.1's and Oclgrind 21.10's front end), where the
simulator said pycparser's "syntax error before 'a'" one line late or "invalid expression": a missing ``;`` just
after the statement's last token, an unclosed ``(`` or ``[`` at the token that should have closed it, an operand
missing after an operator, ``else`` without ``if``, a ``)`` that closes nothing, the input ending inside a block;
``case``, ``default``, ``break`` and ``continue`` outside what they belong to; a repeated case value or
``default`` (at the value; at the first ``default``, as Clang places it). Each refusal here is Clang's
words on every backend, at Clang's line and column on the simulator."""

from __future__ import annotations

import pytest
from kernel_backends import assert_refused, build_error, error_lines

import wia_hal as wia

K = "__kernel void k(__global int* a) {\n    int i = get_global_id(0);\n    %s\n}\n"


@pytest.mark.parametrize(
    ("body", "at", "message"),
    [
        ("int j = ;", "3:13", "expected expression"),
        ("a[i] = 1 + ;", "3:16", "expected expression"),
        ("a[i] = 1 +* ;", "3:17", "expected expression"),
        ("else a[i] = 1;", "3:5", "expected expression"),
        ("a[i] = 1\n    a[0] = 2;", "3:13", "expected ';' after expression"),
        ("int x = 1\n    a[i] = x;", "3:14", "expected ';' at end of declaration"),
        ("if (i < 3 { a[i] = 1; }", "3:15", "expected ')'"),
        ("a[i] = min(1, 2;", "3:20", "expected ')'"),
        ("a[i = 1;", "3:12", "expected ']'"),
        ("a[i] = (1 + 2));", "3:19", "extraneous ')' before ';'"),
        ("case 1: a[i] = 1;", "3:5", "'case' statement not in switch statement"),
        ("default: a[i] = 1;", "3:5", "'default' statement not in switch statement"),
        ("break;", "3:5", "'break' statement not in loop or switch statement"),
        ("continue;", "3:5", "'continue' statement not in loop statement"),
        ("switch (i) { case 0: continue; }", "3:26", "'continue' statement not in loop statement"),
        ("switch (i) { case 1: break;\n    case 1: break; }", "4:10", "duplicate case value '1'"),
        ("switch (i) { case 'a': break; case 97: break; }", "3:40", "duplicate case value '97'"),
        ("switch (i) { default: break;\n    default: break; }", "3:18", "multiple default labels in one switch"),
    ],
)
def test_clangs_words_and_place(
    device_ctx: wia.Context, request: pytest.FixtureRequest, body: str, at: str, message: str
) -> None:
    assert_refused(device_ctx, request, K % body, message, at)


def test_the_input_ending_inside_a_block(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    """Clang's "expected '}'" just after the last token (PoCL's place; Oclgrind's column is past its own
    additions to the source)."""
    assert_refused(device_ctx, request, "__kernel void k(__global int* a) {\n    a[0] = 1;\n", "expected '}'", "2:14")


F = "float f(float x) { return x; }\nfloat g(float x, float y) { return x; }\n"


@pytest.mark.parametrize(
    ("source", "message", "at"),
    [
        (
            F + K % "a[i] = f(1.0f, 2.0f);",
            "too many arguments to function call, expected single argument 'x', have 2 arguments",
            "5:20",
        ),
        (F + K % "a[i] = g(1.0f);", "too few arguments to function call, expected 2, have 1", "5:18"),
        (F + K % "a[i] = g ( 1.0f ) ;", "too few arguments to function call, expected 2, have 1", "5:21"),
        (F + K % "a[i] = f();", "too few arguments to function call, single argument 'x' was not specified", "5:14"),
        ("__kernel int k2(__global int* a) { return 1; }\n", "kernel must have void return type", "1:14"),
        (K % "a[1.5f] = 1;", "array subscript is not an integer", "3:6"),
        (K % "int4 v = (int4)(1); a[(v)] = 1;", "array subscript is not an integer", "3:26"),
        (K % "a[i] = *(i + 1);", "indirection requires pointer operand ('int' invalid)", "3:12"),
        (K % "a[i] = i(2);", "called object type 'int' is not a function or function pointer", "3:13"),
    ],
    ids=[
        "too many",
        "too few",
        "too few, spaced",
        "none of one",
        "kernel result",
        "float subscript",
        "vector subscript",
        "indirection",
        "call an int",
    ],
)
def test_clangs_words_for_calls_and_operands(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, message: str, at: str | None
) -> None:
    """A call with the wrong number of arguments (at the first extra one, or the ``)`` where one is missing), a
    kernel returning a value, a float or vector subscript (at the ``[``), ``*`` of an int (at the ``*``), a call of
    an int (at the ``(``): Clang's words on every backend, at Clang's place on the simulator."""
    assert_refused(device_ctx, request, source, message, at)


def test_a_call_of_a_function_nothing_declares(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    """PoCL 3.1's Clang's words (Oclgrind 21.10's older Clang says "implicit declaration of function 'frobnicate' is
    invalid in OpenCL"); a function defined below the call adds why."""
    refusal = build_error(device_ctx, K % "a[i] = frobnicate(i);")
    assert "undeclared identifier 'frobnicate'" in refusal or "implicit declaration of function 'frobnicate'" in refusal
    if request.node.callspec.params.get("device_ctx") == "sim":
        assert "kernel.cl:3:12: error: use of undeclared identifier 'frobnicate'" in refusal


@pytest.mark.parametrize(
    ("prelude", "declared", "where"),
    [
        ("typedef struct { int x; } S;", "S s;", "'S'"),
        ("struct T { int x; };", "struct T s;", "'struct T'"),
    ],
    ids=["typedef of an anonymous struct", "tagged struct"],
)
def test_no_such_member_names_the_type_as_clang_does(
    device_ctx: wia.Context, prelude: str, declared: str, where: str
) -> None:
    """A struct without a tag is named by its typedef, as Clang names it (the simulator said 'struct
    <anonymous#1>')."""
    refusal = build_error(device_ctx, prelude + "\n" + K % f"{declared} s.y = 1;")
    assert f"no member named 'y' in {where}" in refusal


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        pytest.param(
            "#ifndef T\n#error No type defined.\n#endif\n__kernel void k(__global float* a) { a[0] = 1; }\n",
            "2:2",
            "No type defined.",
            id="error",
        ),
        pytest.param(
            "#ifndef T\n#  error   No type   defined.\n#endif\n__kernel void k(__global float* a) { a[0] = 1; }\n",
            "2:4",
            "No type   defined.",
            id="error-spaced",
        ),
        pytest.param(
            "#error first\n__kernel void k(__global float* a) { a[0] = b; }\n", "1:2", "first", id="error-then-more"
        ),
        pytest.param(
            "#if 0\nint x;\n#elif\nint y;\n#endif\n__kernel void k(__global float* a) { a[0] = 1; }\n",
            "3:6",
            "expected value in expression",
            id="bare-elif",
        ),
        pytest.param(
            "#if\nint y;\n#endif\n__kernel void k(__global float* a) { a[0] = 1; }\n",
            "1:4",
            "expected value in expression",
            id="bare-if",
        ),
        pytest.param(
            "#  if  \nint y;\n#endif\n__kernel void k(__global float* a) { a[0] = 1; }\n",
            "1:8",
            "expected value in expression",
            id="bare-if-spaced",
        ),
        pytest.param(
            "int x;\n__kernel void k(__global float* a) { a[0] = 1; }\n",
            "1:5",
            "program scope variable must reside in constant address space",
            id="global-var",
        ),
        pytest.param(
            "float y = 2.0f;\n__kernel void k(__global float* a) { a[0] = y; }\n",
            "1:7",
            "program scope variable must reside in constant address space",
            id="global-init",
        ),
        pytest.param(
            "__constant int c;\n__kernel void k(__global float* a) { a[0] = c; }\n",
            "1:16",
            "variable in constant address space must be initialized",
            id="constant-noinit",
        ),
        pytest.param(
            "__global int g;\n__kernel void k(__global float* a) { a[0] = 1; }\n",
            "1:14",
            "program scope variable must reside in constant address space",
            id="global-space",
        ),
        pytest.param(
            "__local int l;\n__kernel void k(__global float* a) { a[0] = 1; }\n",
            "1:13",
            "program scope variable must reside in constant address space",
            id="local-prog",
        ),
    ],
)
def test_directives_and_program_scope_variables(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """``#error``'s text as written at the directive's name (SHOC's stencil2d without a precision stops there), an
    ``#if`` or ``#elif`` without an expression at the end of its line (CLBlast's xgemm has a bare ``#elif``), and a
    program-scope variable outside ``__constant`` memory or one without an initializer: Clang's words on every
    backend, at Clang's place on the simulator."""
    assert_refused(device_ctx, request, source, message, at)


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        pytest.param(
            "__kernel void k(__global float* a) { float2 v = (float2)(1.0f); a[0] = v.z; }",
            "1:73",
            "vector component access exceeds type '__private float2' (vector of 2 'float' values)",
            id="z-of-2",
        ),
        pytest.param(
            "__kernel void k(__global float* a) { float3 v = (float3)(1.0f); a[0] = v.w; }",
            "1:73",
            "vector component access exceeds type '__private float3' (vector of 3 'float' values)",
            id="w-of-3",
        ),
        pytest.param(
            "__kernel void k(__global float* a) { float4 v = (float4)(1.0f); a[0] = v.s8; }",
            "1:73",
            "vector component access exceeds type '__private float4' (vector of 4 'float' values)",
            id="s8-of-4",
        ),
        pytest.param(
            "__kernel void k(__global float* a) { float4 v = (float4)(1.0f); a[0] = v.q; }",
            "1:73",
            "illegal vector component name 'q'",
            id="q",
        ),
        pytest.param(
            "__kernel void k(__global float* a) { float4 v = (float4)(1.0f); a[0] = v.xs1.x; }",
            "1:73",
            "illegal vector component name 's'",
            id="mixed",
        ),
        pytest.param(
            "__kernel void k(__global float* a) { float2 v = (float2)(1.0f); a[0] = (v + 1.0f).z; }",
            "1:82",
            "vector component access exceeds type 'float2' (vector of 2 'float' values)",
            id="rvalue-z",
        ),
        pytest.param(
            "__kernel void k(__global float2* a) { a[1].x = a[0].z; }",
            "1:52",
            "vector component access exceeds type '__global float2' (vector of 2 'float' values)",
            id="ptr-z",
        ),
        pytest.param(
            "__kernel void k(__global float* a) { float4 v = (float4)(1.0f); float8 w = v.xyzwxyzwx; a[0] = w.s0; }",
            "1:77",
            "vector component access has invalid length 9.  Supported: 1,2,3,4,8,16.",
            id="xyzw-too-many",
        ),
        pytest.param(
            "__kernel void k(__global uint* a) { uint2 v = (uint2)(1); a[0] = v.z; }",
            "1:67",
            "vector component access exceeds type '__private uint2' (vector of 2 'uint' values)",
            id="uint2",
        ),
    ],
)
def test_swizzles_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """A component past the vector's (the vector's type spelled as Clang spells it: an lvalue's with its address
    space), a name with a character that names no component (the first such), a swizzle of a length OpenCL does
    not have: Clang's words at the ``.`` (Clang's place) on the simulator, the words on every backend."""
    assert_refused(device_ctx, request, source, message, at)


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        pytest.param(
            "__kernel void k(__global float* a) { int4 i = (int4)(1); float2 f = (float2)(1); float2 r = i + f; a[0] = r.x; }",
            "1:95",
            "implicit conversions between vector types ('int4' (vector of 4 'int' values) and 'float2' (vector of 2 'float' values)) are not permitted",
            id="add-i4-f2",
        ),
        pytest.param(
            "__kernel void k(__global float* a) { float4 v = (float4)(1); float2 w = (float2)(1); float2 r = v + w; a[0] = r.x; }",
            "1:99",
            "implicit conversions between vector types ('float4' (vector of 4 'float' values) and 'float2' (vector of 2 'float' values)) are not permitted",
            id="add-f4-f2",
        ),
        pytest.param(
            "__kernel void k(__global int* a) { int4 v = (int4)(1); int2 w = (int2)(1); int2 r = v * w; a[0] = r.x; }",
            "1:87",
            "implicit conversions between vector types ('int4' (vector of 4 'int' values) and 'int2' (vector of 2 'int' values)) are not permitted",
            id="mul-i4-i2",
        ),
        pytest.param(
            "__kernel void k(__global float* a) { int4 i = (int4)(1); float4 f = (float4)(1); float4 r = i + f; a[0] = r.x; }",
            "1:95",
            "implicit conversions between vector types ('int4' (vector of 4 'int' values) and 'float4' (vector of 4 'float' values)) are not permitted",
            id="add-i4-f4",
        ),
        pytest.param(
            "__kernel void k(__global float* a) { float4 v = (float4)(1); float2 w = (float2)(1); int2 r = v < w; a[0] = r.x; }",
            "1:97",
            "implicit conversions between vector types ('float4' (vector of 4 'float' values) and 'float2' (vector of 2 'float' values)) are not permitted",
            id="cmp-f4-f2",
        ),
        pytest.param(
            "typedef struct { int x; } S;\n__kernel void k(__global int* a) {\n    S s = {.y = 1};\n    a[0] = s.x;\n}\n",
            "3:13",
            "field designator 'y' does not refer to any field in type '__private S'",
            id="designator",
        ),
        pytest.param(
            "struct T { int x; };\n__kernel void k(__global int* a) {\n    struct T s = {.y = 1};\n    a[0] = s.x;\n}\n",
            "3:20",
            "field designator 'y' does not refer to any field in type '__private struct T'",
            id="designator-tag",
        ),
        pytest.param(
            "__kernel void k(__global int* g, __local int* l) { g[0] = (g == l); }",
            "1:62",
            "comparison between  ('__global int *' and '__local int *') which are pointers to non-overlapping address spaces",
            id="cmp",
        ),
        pytest.param(
            "__kernel void k(__global int* g, __local int* l) { g[0] = g - l; }",
            "1:61",
            "arithmetic operation with operands of type  ('__global int *' and '__local int *') which are pointers to non-overlapping address spaces",
            id="sub",
        ),
        pytest.param(
            "__kernel void k(__global int* g, __local int* l) { int i = get_global_id(0); int* p = i ? g : l; }",
            "1:89",
            "conditional operator with the second and third operands of type  ('__global int *' and '__local int *') which are pointers to non-overlapping address spaces",
            id="tern",
        ),
        pytest.param(
            "__kernel void k(__global int* g) { __local int t[4]; g[0] = (g < t); }",
            "1:64",
            "comparison between  ('__global int *' and '__local int *') which are pointers to non-overlapping address spaces",
            id="cmp-var",
        ),
    ],
)
def test_operands_and_designators_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """Vector operands of other lengths or element types ("implicit conversions between vector types ... are not
    permitted"), pointers into different address spaces compared, subtracted or chosen between (Clang's words, with
    the two spaces its message has before the types), at the operator; a designator of no member, at its name:
    Clang's words on every backend, at Clang's place on the simulator."""
    assert_refused(device_ctx, request, source, message, at)


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        ("__kernel void k(__global float* o) { o[0] = 1 @ 2; }", "1:46", "expected ';' after expression"),
        ("__kernel void k(__global float* o) { @ o[0] = 1; }", "1:38", "expected expression"),
        ("__kernel void k(__global float* o) { o[0] = 1 ` 2; }", "1:46", "expected ';' after expression"),
        ("__kernel void k(__global float* o) { \\ o[0] = 1; }", "1:38", "expected expression"),
        ("__kernel void k(__global float* o) { o[0] = 1; # }", "1:48", "expected expression"),
        ("__kernel void k(__global float* o) { int x @; o[0] = 1; }", "1:43", "expected ';' at end of declaration"),
        ("__kernel void k(__global float* o) { int x = 1 @; o[0] = 1; }", "1:47", "expected ';' at end of declaration"),
        ("__kernel void k(__global float* o) { return @; }", "1:45", "expected expression"),
        ("__kernel void k(__global float* o) { o[0] = -@1; }", "1:46", "expected expression"),
        ("__kernel void k(__global float* o) { o[0 @] = 1; }", "1:42", "expected ']'"),
        ("__kernel void k(__global float* o) { o[0] = (1 @ 2); }", "1:48", "expected ')'"),
        ("__kernel void k(__global float* o) { if (o[0] @) o[1] = 1; }", "1:47", "expected ')'"),
        ("__kernel void k(__global float* o @) { o[0] = 1; }", "1:35", "expected ')'"),
        ("@\n__kernel void k(__global float* o) { o[0] = 1; }", "1:1", "expected identifier or '('"),
        ("__kernel void k(__global float* o) { o[0] = 1; } @", "1:50", "expected identifier or '('"),
    ],
)
def test_characters_that_begin_no_token(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """``@``, a backquote, a stray ``\\`` or ``#``: Clang's lexer makes each an unknown token, and its parser says
    what it expected there (the simulator said "illegal character '@'")."""
    assert_refused(device_ctx, request, source, message, at)


@pytest.mark.parametrize(
    ("source", "at", "message"),
    [
        ("struct S { int a; }\n__kernel void k(__global float* o) { o[0] = 1; }", "1:20", "expected ';' after struct"),
        (
            "union U { int a; float b; }\n__kernel void k(__global float* o) { o[0] = 1; }",
            "1:28",
            "expected ';' after union",
        ),
        (
            "struct S { struct T { int b; } t; int a; }\nfloat f(float x) { return x; }\n"
            "__kernel void k(__global float* o) { o[0] = f(1); }",
            "1:43",
            "expected ';' after struct",
        ),
    ],
)
def test_a_struct_without_its_semicolon(
    device_ctx: wia.Context, request: pytest.FixtureRequest, source: str, at: str, message: str
) -> None:
    """The next declaration right after a struct's ``}``: Clang's words just after it (pycparser said "invalid
    multiple types specified" at the tag)."""
    assert_refused(device_ctx, request, source, message, at)


def test_recovery_reparses_the_program_once_per_error_not_once_per_declaration(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After a syntax error the parser recovers declaration by declaration, each parsed with the good ones before
    it; the declarations up to the next error are taken in one parse. One reparse per declaration was quadratic:
    gpuowl's kernel, with an unknown type in a cast, took 15 s to fail (PoCL: 0.1 s)."""
    from wia_sim.kernels import parsing

    calls = 0
    parse_once = parsing._parse_once

    def counted(text: str) -> object:
        nonlocal calls
        calls += 1
        return parse_once(text)

    monkeypatch.setattr(parsing, "_parse_once", counted)
    helpers = "".join(f"float f{i}(float x) {{ return x * {i}.0f + 1.0f; }}\n" for i in range(300))
    source = (
        helpers
        + K % "my_type v = a[0];\n    a[1] = v;"
        + helpers.replace("float f", "float g")
        + K.replace("k(", "k2(") % "int j = ;"
    )
    outcome = parsing.parse(source)
    assert [message for _, _, message in outcome.errors] == [
        "use of undeclared identifier 'my_type'",
        "expected expression",
    ]
    assert calls <= 12, calls  # (a few per error, whatever the count of declarations: 600 here)


COMPOUND = (
    "__kernel void k(__global float4* o, __global const float16* in) {\n"
    "    float16 r = in[0]; float f = 0; float2 d = r.s01; int x = 1;\n"
    "    int4 i4 = (int4)1; uint4 u4 = (uint4)2; char4 c4 = (char4)1; float4 f4 = r.s0123; int2 i2 = (int2)1;\n"
    "    %s\n"
    "    o[0] = f4 + convert_float4(i4) + convert_float4(u4) + f + convert_float4(c4) + d.x + x + i2.x;\n}\n"
)


@pytest.mark.parametrize(
    ("body", "at", "message"),
    [
        (
            "i4 += u4;",
            "4:8",
            "implicit conversions between vector types ('int4' (vector of 4 'int' values) and 'uint4' (vector of 4 'uint' values)) are not permitted",
        ),
        (
            "f4 += i4;",
            "4:8",
            "implicit conversions between vector types ('float4' (vector of 4 'float' values) and 'int4' (vector of 4 'int' values)) are not permitted",
        ),
        (
            "i4.xy &= u4.zw;",
            "4:11",
            "implicit conversions between vector types ('int2' (vector of 2 'int' values) and 'uint2' (vector of 2 'uint' values)) are not permitted",
        ),
        (
            "d += r.s0123;",
            "4:7",
            "implicit conversions between vector types ('float2' (vector of 2 'float' values) and 'float4' (vector of 4 'float' values)) are not permitted",
        ),
        (
            "f += d;",
            "4:7",
            "assigning to '__private float' from incompatible type 'float2' (vector of 2 'float' values)",
        ),
        (
            "d.x *= f4;",
            "4:9",
            "assigning to '__private float' from incompatible type 'float4' (vector of 4 'float' values)",
        ),
        (
            "i4 %= f4;",
            "4:8",
            "invalid operands to binary expression ('__private int4' (vector of 4 'int' values) and '__private float4' (vector of 4 'float' values))",
        ),
        ("f %= 2.0f;", "4:7", "invalid operands to binary expression ('__private float' and 'float')"),
        (
            "float* p = 0; p += 1.5f;",
            "4:21",
            "invalid operands to binary expression ('__private float *__private' and 'float')",
        ),
        ("x <<= 1.5f;", "4:7", "invalid operands to binary expression ('__private int' and 'float')"),
        ("i4 >>= f4;", "4:8", "used type 'float4' (vector of 4 'float' values) where integer is required"),
        ("f4 <<= 1;", "4:8", "used type '__private float4' (vector of 4 'float' values) where integer is required"),
        (
            "x <<= i4;",
            "4:7",
            "requested shift is a vector of type '__private int4' (vector of 4 'int' values) but the first operand is not a vector ('__private int')",
        ),
        (
            "i4 <<= i2;",
            "4:8",
            "vector operands do not have the same number of elements ('__private int4' (vector of 4 'int' values) and 'int2' (vector of 2 'int' values))",
        ),
        (
            "i4 = x << i4;",
            "4:12",
            "requested shift is a vector of type '__private int4' (vector of 4 'int' values) but the first operand is not a vector ('__private int')",
        ),
        ("i4 = i4 << 1.0f;", "4:13", "used type 'float' where integer is required"),
        (
            "i4 = (int4)(i2 << i4, 1, 1);",
            "4:20",
            "vector operands do not have the same number of elements ('int2' (vector of 2 'int' values) and 'int4' (vector of 4 'int' values))",
        ),
        (
            "d += r.s01 + r.s1011 + r.s1213;",
            "4:16",
            "implicit conversions between vector types ('float2' (vector of 2 'float' values) and 'float4' (vector of 4 'float' values)) are not permitted",
        ),
        (
            "i4 = x ? i4 : u4;",
            "4:12",
            "implicit conversions between vector types ('int4' (vector of 4 'int' values) and 'uint4' (vector of 4 'uint' values)) are not permitted",
        ),
        (
            "i4 = i4 ? i4 : u4;",
            "4:13",
            "implicit conversions between vector types ('int4' (vector of 4 'int' values) and 'uint4' (vector of 4 'uint' values)) are not permitted",
        ),
        (
            "f4 = x ? f4 : i4;",
            "4:12",
            "implicit conversions between vector types ('float4' (vector of 4 'float' values) and 'int4' (vector of 4 'int' values)) are not permitted",
        ),
        (
            "i4 = x ? i4 : 1u;",
            "4:12",
            "scalar operand type has greater rank than the type of the vector element. ('int4' (vector of 4 'int' values) and 'unsigned int')",
        ),
        (
            "i4 = i4 + (1u + 1u);",
            "4:13",
            "scalar operand type has greater rank than the type of the vector element. ('int4' (vector of 4 'int' values) and 'unsigned int')",
        ),
    ],
)
def test_compound_assignments_vector_shifts_and_selections_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, body: str, at: str, message: str
) -> None:
    """``x op= y`` is checked as ``x op y``, then stored back to ``x``, in Clang's words: two vector types (other
    lengths or elements, a shift's aside) are its "implicit conversions", a vector stored to a scalar "assigning
    ... from incompatible type", an operator its operands do not take "invalid operands to binary expression"; a
    shift with a vector operand has Clang's own checks, in its order. Each error once, at the operator: the simulator
    built ``i4 += u4`` and ``f4 += i4``, which Clang refuses, said "cannot assign ... with '+='" or "integers needed"
    in its own words, and added that to an error already said in the value (the clBLAS probe's). ``?:`` with two
    vectors of one length and other elements is Clang's error too (the simulator built it and failed at run time);
    a constant operand is named by C's type ('unsigned int'), as Clang names it."""
    refusal = assert_refused(device_ctx, request, COMPOUND % body, message, at)
    if request.node.callspec.params.get("device_ctx") == "sim":
        assert refusal.count("error:") == 1, refusal


@pytest.mark.parametrize(
    ("body", "errors"),
    [
        (
            "float4 q = (f4 < f4);",
            [
                "4:12: error: initializing '__private float4' (vector of 4 'float' values) with an expression of incompatible type 'int __attribute__((ext_vector_type(4)))' (vector of 4 'int' values)"
            ],
        ),
        (
            "f4 = (f4 < f4) & i4;",
            [
                "4:8: error: assigning to '__private float4' (vector of 4 'float' values) from incompatible type 'int __attribute__((ext_vector_type(4)))' (vector of 4 'int' values)"
            ],
        ),
        (
            "f4 = x ? (f4 < f4) : i4;",
            [
                "4:8: error: assigning to '__private float4' (vector of 4 'float' values) from incompatible type 'int __attribute__((ext_vector_type(4)))' (vector of 4 'int' values)"
            ],
        ),
        (
            "f4 = !i4 + 1;",
            [
                "4:8: error: assigning to '__private float4' (vector of 4 'float' values) from incompatible type 'int __attribute__((ext_vector_type(4)))' (vector of 4 'int' values)"
            ],
        ),
        (
            "f4 = -(d > d).xyxy;",
            [
                "4:8: error: assigning to '__private float4' (vector of 4 'float' values) from incompatible type 'int4' (vector of 4 'int' values)"
            ],
        ),
        (
            "i4 = i4 && u4;",
            [
                "4:13: error: implicit conversions between vector types ('int4' (vector of 4 'int' values) and 'uint4' (vector of 4 'uint' values)) are not permitted",
                "4:13: error: invalid operands to binary expression ('__private int4' (vector of 4 'int' values) and '__private uint4' (vector of 4 'uint' values))",
            ],
        ),
        (
            "i4 = i4 || 1.5f;",
            [
                "4:13: error: scalar operand type has greater rank than the type of the vector element. ('int4' (vector of 4 'int' values) and 'float')",
                "4:13: error: invalid operands to binary expression ('__private int4' (vector of 4 'int' values) and 'float')",
            ],
        ),
        (
            "f4 = (float4)(f, i4.xy, f);",
            [
                "4:22: error: initializing 'float' with an expression of incompatible type '__private int2' (vector of 2 'int' values)"
            ],
        ),
        (
            "f4 = (float4)(f, convert_int2(d), f);",
            [
                "4:22: error: initializing 'float' with an expression of incompatible type 'int2' (vector of 2 'int' values)"
            ],
        ),
        (
            "f4 = (float4)(i4, f);",
            [
                "4:19: error: initializing 'float' with an expression of incompatible type '__private int4' (vector of 4 'int' values)",
                "4:18: error: too many elements in vector initialization (expected 4 elements, have 5)",
            ],
        ),
        (
            "f4 = (f4 == f4) * i4 + u4;",
            [
                "4:26: error: implicit conversions between vector types ('int __attribute__((ext_vector_type(4)))' (vector of 4 'int' values) and 'uint4' (vector of 4 'uint' values)) are not permitted"
            ],
        ),
    ],
)
def test_unnamed_vector_types_logical_operands_and_vector_literal_parts_as_clang_says(
    device_ctx: wia.Context, request: pytest.FixtureRequest, body: str, errors: list[str]
) -> None:
    """A vector comparison's, ``&&``'s, ``||``'s or ``!``'s result is a vector type no name spells, which Clang
    writes as 'int __attribute__((ext_vector_type(4)))', and an operator whose first vector operand is one gives
    it on (the simulator said 'int4'); ``&&`` and ``||`` whose vector operands do not convert are a second error,
    "invalid operands"; a vector literal's part of other elements is named with its object's address space and
    what it is, and the literal's count is checked too. Every error of Clang's (clang-15 -cc1, by script), each at
    its column, and no other; PoCL and Oclgrind give each message."""
    refusal = build_error(device_ctx, COMPOUND % body)
    for error in errors:
        assert error.split(": error: ", 1)[1] in refusal
    if request.node.callspec.params.get("device_ctx") == "sim":
        found = sorted(line.split("kernel.cl:", 1)[1] for line in error_lines(refusal.splitlines()))
        assert found == sorted(errors), refusal
