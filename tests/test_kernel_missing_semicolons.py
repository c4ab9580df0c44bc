# ruff: noqa: E501  (Clang's expected logs, one error a string)
"""A statement or declaration without its ``;``, and the errors after it, as Clang reports them.

The simulator's parser stopped at the first missing ``;`` of a function ("expected ';' after expression"), so
the function's other errors went unreported, and a call of a macro the build did not define (``FOO(x)`` on a line
of its own, OpenMM probe) was reported as a missing ``;`` where Clang says the name is undeclared. Clang goes on
after each missing ``;`` in a way of its own for each kind of statement (``semicolons.py``): after an expression
as if the ``;`` were there, after an expression already in error, ``return``, ``break``, ``continue``, ``goto``
and a do-while by skipping to the next ``;``, after a declaration by going on only where a declaration may begin.
Every expected line is ``clang-15 -cc1 -x cl -cl-std=CL1.2 -triple spir64 -fsyntax-only``'s, which PoCL 3.1 gives
too (Oclgrind 21.10's older Clang takes a call of an undeclared name for an implicit declaration, an expression
that parsed, and goes on after it); the simulator's log is in source order, Clang's in the order it found them.
"""

from __future__ import annotations

import re

import pytest
from kernel_backends import build_error, compile_errors, refused_log

import wia_hal as wia
from wia_sim.kernels import compile_source

STATEMENTS = """__kernel void k(__global int* o, int a)
{
    for (;;) {
        if (a) break
        if (a > 2) continue
        a++;
    }
    do { a--; } while (a > 3)
    a = q1;
    goto end
    a = q2;
end:
    a = q3;
    int x = 1, y
    a = q4;
    int z
    int w = q5;
    a = q6
    int v = q7;
    if (a) {
        o[a] = 1
    }
    UNDEFINED_CALL(o[a])
    o[a] = q8;
    o[0] = a + v }
"""
STATEMENT_ERRORS = [
    ("4:21", "expected ';' after break statement"),  # (then skipped: `if (a > 2) continue`)
    ("8:30", "expected ';' after do/while statement"),  # (skipped: `a = q1`)
    ("10:13", "expected ';' after goto statement"),  # (skipped: `a = q2`)
    ("13:9", "use of undeclared identifier 'q3'"),
    ("14:17", "expected ';' at end of declaration"),  # (`a` begins no declaration: skipped to its ';')
    ("16:10", "expected ';' at end of declaration"),  # (`int` does: on from there)
    ("17:13", "use of undeclared identifier 'q5'"),
    ("18:9", "use of undeclared identifier 'q6'"),  # (a name not called: corrected later, the expression parsed)
    ("18:11", "expected ';' after expression"),
    ("19:13", "use of undeclared identifier 'q7'"),
    ("21:17", "expected ';' after expression"),  # (before the '}' on the next line)
    ("23:5", "use of undeclared identifier 'UNDEFINED_CALL'"),  # (in error as parsed: no ';' error, q8 skipped)
    ("25:17", "expected ';' after expression"),  # (before a '}' on its line)
]


def _reported(refusal: str, at: str, message: str) -> bool:
    """Whether a device's refusal holds the error ``message`` at ``at`` (the simulator's and Oclgrind's
    ``file:line:col: error: message``, PoCL's ``error: file:line:col: message``)."""
    return re.search(rf":{at}: (error: )?{re.escape(message)}", refusal) is not None


def test_each_kind_of_statement_without_its_semicolon(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    """Every device reports each missing ``;`` in its statement's words and the errors Clang does not skip after
    it; the simulator exactly Clang's errors, none of what Clang skips (q1, q2, q4, q8)."""
    refusal = build_error(device_ctx, STATEMENTS)
    device = request.node.callspec.params.get("device_ctx")
    for at, message in STATEMENT_ERRORS:
        if device == "oclgrind" and "UNDEFINED_CALL" in message:
            continue  # ("implicit declaration of function 'UNDEFINED_CALL' is invalid in OpenCL", and on)
        assert _reported(refusal, at, message), (at, message, refusal)
    if device == "sim":
        assert compile_errors(STATEMENTS) == [f"kernel.cl:{at}: error: {message}" for at, message in STATEMENT_ERRORS]


UNDEFINED_MACRO = """__kernel void k(__global float* out, int n)
{
    int i = get_global_id(0);
    UNDEFINED_CALL(out[i])
    out[i] = foo + 1.0f;
    float y = bar(3);
    out[i] += y;
}
"""


def test_a_call_of_a_macro_the_build_did_not_define() -> None:
    """Clang's parser finds the call in error at once and skips to the next ``;``: the name is undeclared, no ``;``
    is missing, the line after it is not checked (the simulator said "expected ';' after expression" and nothing
    else)."""
    assert compile_errors(UNDEFINED_MACRO) == [
        "kernel.cl:4:5: error: use of undeclared identifier 'UNDEFINED_CALL'",
        "kernel.cl:6:15: error: use of undeclared identifier 'bar'",
    ]


FILE_SCOPE = """struct S { int a
           int b; float c };
constant int G = 3
G2 = zz;
constant int H = 4
constant int K = yy;
typedef int myint
myint f1(void) { return q1; }
int x1 = 5
__kernel void k(__global int* o) { o[0] = q2; }
__kernel void k2(__global int* o) { o[0] = 1 }
"""


def test_declarations_and_members_without_their_semicolon(
    device_ctx: wia.Context, request: pytest.FixtureRequest
) -> None:
    """At file scope Clang's words are "after top level declarator", and it skips to the next ``;`` unless a
    declaration may begin there (``__kernel`` may not: both kernels after ``x1`` are skipped); a member's missing
    ``;`` is an error, before the ``}`` a warning."""
    expected = [
        ("1:17", "error", "expected ';' at end of declaration list"),
        ("2:26", "warning", "expected ';' at end of declaration list"),
        ("3:19", "error", "expected ';' after top level declarator"),
        ("5:19", "error", "expected ';' after top level declarator"),
        ("6:18", "error", "use of undeclared identifier 'yy'"),
        ("7:18", "error", "expected ';' after top level declarator"),
        ("8:25", "error", "use of undeclared identifier 'q1'"),
        ("9:5", "error", "program scope variable must reside in constant address space"),
        ("9:11", "error", "expected ';' after top level declarator"),
    ]
    refusal = build_error(device_ctx, FILE_SCOPE)
    for at, severity, message in expected:
        assert re.search(rf":{at}: ({severity}: )?{re.escape(message)}", refusal), (at, message, refusal)
    if request.node.callspec.params.get("device_ctx") == "sim":
        assert refused_log(FILE_SCOPE) == [
            f"kernel.cl:{at}: {severity}: {message}" for at, severity, message in expected
        ]


def test_a_return_without_its_semicolon_skips_to_the_next() -> None:
    """``return`` skips to the next ``;``, even after an error in its value; a declaration whose next line begins
    no declaration skips it (the function's ``return``), and Clang's warning that the function returns no value is
    not given: its control-flow analysis stops at the first error."""
    source = (
        "int h1(int a)\n{\n    int b = a\n    return a + 1\n}\n"
        "int h2(int a)\n{\n    return a + q\n    a = 3;\n    return a;\n}\n"
        "int h3(int a)\n{\n    return a + 1\n    a = q;\n    return a;\n}\n"
    )
    assert refused_log(source) == [
        "kernel.cl:3:14: error: expected ';' at end of declaration",
        "kernel.cl:8:16: error: use of undeclared identifier 'q'",
        "kernel.cl:8:17: error: expected ';' after return statement",
        "kernel.cl:14:17: error: expected ';' after return statement",
    ]


def test_no_control_flow_warning_after_an_error() -> None:
    """ "non-void function does not return a value" is Clang's control-flow analysis, which it skips in every
    function after the first error (``Sema::hasUncompilableErrorOccurred``): the simulator gave it for all three."""
    source = (
        "int g(int a)\n{\n    if (a) return 1;\n}\n"
        "int h(int a)\n{\n    int b = zz;\n}\n"
        "int h2(int a)\n{\n    if (a) return a;\n}\n"
    )
    assert refused_log(source) == [
        "kernel.cl:4:1: warning: non-void function does not return a value in all control paths",
        "kernel.cl:7:13: error: use of undeclared identifier 'zz'",
    ]


JUDGED = "struct S { int x; };\nint k(__global int* o, int a, struct S s)\n{\n    %s\n    a = zz;\n    a = yy;\n    return a;\n}\n"


@pytest.mark.parametrize(
    ("line", "errors"),
    [
        (
            "a = min(q, 1)",
            [
                "4:13 use of undeclared identifier 'q'",
                "4:18 expected ';' after expression",
                "5:9 use of undeclared identifier 'zz'",
                "6:9 use of undeclared identifier 'yy'",
            ],
        ),
        ("a = o[q]", ["4:11 use of undeclared identifier 'q'", "6:9 use of undeclared identifier 'yy'"]),
        ("a = (q)", ["4:10 use of undeclared identifier 'q'", "6:9 use of undeclared identifier 'yy'"]),
        (
            "a = q + 1",
            [
                "4:9 use of undeclared identifier 'q'",
                "4:14 expected ';' after expression",
                "5:9 use of undeclared identifier 'zz'",
                "6:9 use of undeclared identifier 'yy'",
            ],
        ),
        ("a = (int)q", ["4:14 use of undeclared identifier 'q'", "6:9 use of undeclared identifier 'yy'"]),
        ("q(1)", ["4:5 use of undeclared identifier 'q'", "6:9 use of undeclared identifier 'yy'"]),
        (
            "a = qux(2) + 1",
            [
                "4:9 use of undeclared identifier 'qux'",
                "4:19 expected ';' after expression",
                "5:9 use of undeclared identifier 'zz'",
                "6:9 use of undeclared identifier 'yy'",
            ],
        ),
        ("a = sizeof(q)", ["4:16 use of undeclared identifier 'q'", "6:9 use of undeclared identifier 'yy'"]),
        ("a = o[min(q, 1)]", ["4:15 use of undeclared identifier 'q'", "6:9 use of undeclared identifier 'yy'"]),
        (
            "int c = qux(2)",
            [
                "4:13 use of undeclared identifier 'qux'",
                "4:19 expected ';' at end of declaration",
                "6:9 use of undeclared identifier 'yy'",
            ],
        ),
        ("int c = o[q]", ["4:15 use of undeclared identifier 'q'", "6:9 use of undeclared identifier 'yy'"]),
        ("int c = (int)q", ["4:18 use of undeclared identifier 'q'", "6:9 use of undeclared identifier 'yy'"]),
        (
            "int c = q",
            [
                "4:13 use of undeclared identifier 'q'",
                "4:14 expected ';' at end of declaration",
                "6:9 use of undeclared identifier 'yy'",
            ],
        ),
        ("int c[2] = {q, 1}", ["4:17 use of undeclared identifier 'q'", "6:9 use of undeclared identifier 'yy'"]),
        ("int c[2] = {1, 2}", ["4:22 expected ';' at end of declaration", "6:9 use of undeclared identifier 'yy'"]),
        (
            "a = s.zz",
            [
                "4:11 no member named 'zz' in 'struct S'",
                "4:13 expected ';' after expression",
                "5:9 use of undeclared identifier 'zz'",
                "6:9 use of undeclared identifier 'yy'",
            ],
        ),
        (
            "a = s + 1",
            [
                "4:11 invalid operands to binary expression ('__private struct S' and 'int')",
                "4:14 expected ';' after expression",
                "5:9 use of undeclared identifier 'zz'",
                "6:9 use of undeclared identifier 'yy'",
            ],
        ),
        ("a = o[s]", ["4:10 array subscript is not an integer", "6:9 use of undeclared identifier 'yy'"]),
    ],
)
def test_what_clangs_parser_finds_in_error_before_the_semicolon(line: str, errors: list[str]) -> None:
    """A statement or an initializer without its ``;`` is skipped, with no ``;`` error, where Clang's parser found it
    in error as it read it: a name it resolves at once is undeclared (called at a statement's start, in a
    subscript, in brackets of its own, in ``sizeof``, a cast's operand, in an initializer list). A name it resolves
    only when the statement is done (a call's argument, an operand), a call in an initializer, a missing member and
    invalid operands (which Clang recovers from; not a subscript that is no integer) leave it parsed: the ``;`` error, and the next line checked."""
    expected = [f"kernel.cl:{e.split(' ', 1)[0]}: error: {e.split(' ', 1)[1]}" for e in errors]
    assert compile_errors(JUDGED % line) == expected


def test_a_return_without_its_value_on_the_next_line() -> None:
    """``return`` at a line's end takes the next line for its value: a declaration there is "expected expression"
    (a keyword type), or "unexpected type name" and the ``;`` after it (a typedef's name: ``uint``, ``float4``),
    and the return is skipped whole (no "if statement has empty body", no "non-void function should return")."""
    source = (
        "int f(int a)\n{\n    if (a) return\n    int v = 3;\n    return 1;\n}\n"
        "int g(int a)\n{\n    if (a) return\n    float4 w = 3;\n    return 1;\n}\n"
        "int h(int a)\n{\n    if (a) return\n}\n"
    )
    assert refused_log(source) == [
        "kernel.cl:4:5: error: expected expression",
        "kernel.cl:10:5: error: unexpected type name 'float4': expected expression",
        "kernel.cl:10:11: error: expected ';' after return statement",
        "kernel.cl:16:1: error: expected expression",
    ]


def test_a_declaration_that_the_next_one_runs_on_into() -> None:
    """A typedef's ``}`` and name without the ``;`` before a function (pycparser failed later: "invalid function
    definition" at the name, a syntax error at the function's ``{``); a packed struct's members; a call at a line's
    end (``barrier(CLK_LOCAL_MEM_FENCE)``, which the parser took for a cast of an unknown type)."""
    source = "typedef union {\n    float f;\n    uint u;\n} Bits\n\nvoid skip(__global const float** p, int k)\n{\n}\n"
    assert compile_errors(source) == ["kernel.cl:4:7: error: expected ';' after top level declarator"]
    kernel = "__kernel void k(__global int* o)\n{\n    o[0] = 1;\n    barrier(CLK_LOCAL_MEM_FENCE)\n    o[1] = 2;\n}\n"
    assert compile_errors(kernel) == ["kernel.cl:4:33: error: expected ';' after expression"]
    packed = "typedef struct __attribute__((packed)) {\n    char kind\n    int count;\n    short delta;\n} R;\n"
    assert compile_errors(packed + "__kernel void k(__global R* r) { r->count = 1; }\n") == [
        "kernel.cl:2:14: error: expected ';' at end of declaration list",
        "kernel.cl:6:37: error: no member named 'count' in 'R'",
    ]


def test_a_last_member_without_its_semicolon_is_a_warning() -> None:
    """Clang's warning, and the build goes on (pycparser took the member as it is, without a word)."""
    source = "typedef struct {\n    float re;\n    float im\n} C;\n__kernel void k(__global float* o, C c) { o[0] = c.im; }\n"
    program = compile_source(source, "")
    assert program.build_log == "kernel.cl:3:13: warning: expected ';' at end of declaration list"


RECORDS = """struct Moments {
    float sum;
    float sq;
}

struct RowStats {
    int positive;
    struct Moments m;
};

typedef struct { float re; } Re;

__kernel void k(__global float* o, __global const float* x)
{
    struct RowStats s = {1, {2.0f, 3.0f}};
    o[0] = s.m.sq;
    b.f = x[0]
    o[1] = b.f;
    Re r = {x[0], q.im, 3.0f};
    zz.re = 2.0f;
    o[2] = r.re;
}
"""


def test_a_struct_the_next_runs_on_into_and_what_an_error_hides() -> None:
    """A struct's ``}`` and the next struct without the ``;`` between (the parser took both for one declaration and
    lost the second: "incomplete type" at each use), a member's base resolved at once (``b.f`` of an undeclared
    ``b``: skipped to the next ``;``), an excess item of a list checked (its error), without the excess warning in
    a list in error, and no "not assignable" for a member of an undeclared name: Clang's four errors."""
    assert compile_errors(RECORDS) == [
        "kernel.cl:4:2: error: expected ';' after struct",
        "kernel.cl:17:5: error: use of undeclared identifier 'b'",
        "kernel.cl:19:19: error: use of undeclared identifier 'q'",
        "kernel.cl:20:5: error: use of undeclared identifier 'zz'",
    ]


SKIPPED_STATEMENTS = """struct S { int x; };
int k(__global int* o, int a, struct S s)
{
    a = s.;
    o[0] ^= >> 16;
    int b = o->;
    if (a) a = (1 + ); else a = b;
    for (;;) { a = zz; break; }
    return a + b;
}
"""


def test_each_statement_with_a_syntax_error_is_skipped_to_its_semicolon() -> None:
    """Clang skips an expression in error to its ``;`` and parses on: each statement's error, and the errors
    after it (the simulator stopped at a function's first syntax error). A declaration whose initializer is in
    error keeps its variable (no "undeclared 'b'" after it); an ``if`` keeps its body and its ``else``."""
    assert compile_errors(SKIPPED_STATEMENTS) == [
        "kernel.cl:4:11: error: expected identifier",
        "kernel.cl:5:13: error: expected expression",
        "kernel.cl:6:16: error: expected identifier",
        "kernel.cl:7:21: error: expected expression",
        "kernel.cl:8:20: error: use of undeclared identifier 'zz'",
    ]


OPERANDS = """__kernel void k(__global int* o, int n)
{
    int i = get_global_id(0);
    if (i n) return;
    o[i i] = 1;
    for (int k = 0; k < ; ++k) o[k] = 2;
    o[0] = i n;
    const int c = 1;
    o[1] = *c;
}
"""


def test_two_operands_without_an_operator_and_an_operand_missing_in_a_head() -> None:
    """Clang's words for an operator left out (the bracket around must close there, else the ';' goes there), and
    it parses on: after the ')' or ']' it wanted, in a ``for`` whose condition lacks an operand, and at ``n`` as a
    statement of its own (its result unused); the simulator said "syntax error before 'n'" and nothing after."""
    assert refused_log(OPERANDS) == [
        "kernel.cl:4:11: error: expected ')'",
        "kernel.cl:5:9: error: expected ']'",
        "kernel.cl:6:25: error: expected expression",
        "kernel.cl:7:13: error: expected ';' after expression",
        "kernel.cl:9:12: error: indirection requires pointer operand ('int' invalid)",
        "kernel.cl:7:14: warning: expression result unused",
    ]


def test_a_function_name_without_its_parenthesis_and_a_bracket_too_many() -> None:
    """``barrier CLK_LOCAL_MEM_FENCE);`` (its '(' lost): Clang takes ``barrier`` for the address of a function, an
    error as it parses, and skips to the ';' (the simulator said "use of undeclared identifier 'barrier'"); a ')'
    too many before a ';' is dropped, and the function's later errors follow (the simulator lost the function)."""
    source = (
        "int helper(int v) { return v; }\n__kernel void k(__global int* o)\n{\n"
        "    barrier CLK_LOCAL_MEM_FENCE);\n    helper 3);\n    o[0] = (1 + 2));\n    o[1] = zz;\n}\n"
    )
    assert compile_errors(source) == [
        "kernel.cl:4:5: error: taking address of function is not allowed",
        "kernel.cl:5:5: error: taking address of function is not allowed",
        "kernel.cl:6:19: error: extraneous ')' before ';'",
        "kernel.cl:7:12: error: use of undeclared identifier 'zz'",
    ]
