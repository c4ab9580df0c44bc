"""The kernel language's preprocessor and front end: macros, build options, line numbers, parameter extraction,
and every construct the executor does not support rejected by line, in compiler style."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pycparser import c_ast

from wia_sim.kernels import (
    BUILTIN_FUNCTIONS,
    KernelCompileError,
    KernelNotFound,
    Program,
    builtin_arity,
    compile_source,
    is_builtin_function,
    preprocess,
    swizzle_indices,
)
from wia_sim.kernels.options import CL_OPTIONS
from wia_sim.kernels.structs import size_align

LOG_LINE = re.compile(r"^(<command line>|[\w.]+)(:\d+(:\d+)?)?: (error|warning): .+$")


def compile_ok(source: str, options: str = "") -> Program:
    return compile_source(textwrap.dedent(source), options)


def build_log(source: str, options: str = "", filename: str = "kernel.cl") -> str:
    with pytest.raises(KernelCompileError) as info:
        compile_source(textwrap.dedent(source), options, filename)
    log = info.value.build_log
    for line in log.splitlines():
        assert LOG_LINE.match(line), f"not compiler style: {line!r}"
    return log


def errors_at(source: str, options: str = "") -> list[tuple[int | None, str]]:
    """(line, message) of every error, in log order."""
    with pytest.raises(KernelCompileError) as info:
        compile_source(textwrap.dedent(source), options)
    return [(d.line, d.message) for d in info.value.diagnostics if d.severity == "error"]


def pp_lines(source: str, options: str = "") -> list[str]:
    result = preprocess(textwrap.dedent(source), options)
    assert not result.errors, result.errors
    return [line.strip() for line in result.text.split("\n")]


def pp_errors(source: str, options: str = "") -> list[str]:
    return [str(d) for d in preprocess(source, options).errors]


# ---------------------------------------------------------------------------------------------------------------
# The preprocessor


def test_object_and_function_like_macros() -> None:
    lines = pp_lines(
        """\
        #define N 256
        #define SQ(x) ((x) * (x))
        #define MAX(a, b) ((a) > (b) ? (a) : (b))
        int a = N;
        int b = SQ(N + 1);
        int c = MAX(SQ(2), N);
        int d = MAX((1, 2), 3);
        """
    )
    assert lines[3] == "int a = 256;"
    assert lines[4] == "int b = ((256 + 1) * (256 + 1));"
    assert lines[5] == "int c = ((((2) * (2))) > (256) ? (((2) * (2))) : (256));"
    assert lines[6] == "int d = (((1, 2)) > (3) ? ((1, 2)) : (3));"  # parenthesized commas stay in one argument


def test_nested_macros_expand_through_each_other_and_stop_at_themselves() -> None:
    lines = pp_lines(
        """\
        #define A B + 1
        #define B C * 2
        #define C 3
        #define SELF SELF + 1
        #define F(x) G(x) + x
        #define G(y) F(y)
        #define ID(x) x
        int a = A;
        int s = SELF;
        int f = F(1);
        int i = ID(ID)(7);
        """
    )
    assert lines[7] == "int a = 3 * 2 + 1;"
    assert lines[8] == "int s = SELF + 1;"
    assert lines[9] == "int f = F(1) + 1;"  # F is hidden inside its own expansion
    assert lines[10] == "int i = ID(7);"  # the argument ID is painted: not expanded again (as gcc)


def test_no_expansion_inside_string_and_char_literals() -> None:
    lines = pp_lines(
        """\
        #define X 1
        #define F(a) a
        char *s = "X F(2) // not a comment";
        char c = 'X';
        int x = X;
        """
    )
    assert lines[2] == 'char *s = "X F(2) // not a comment";'
    assert lines[3] == "char c = 'X';"
    assert lines[4] == "int x = 1;"


def test_expansions_never_paste_tokens_together() -> None:
    lines = pp_lines(
        """\
        #define NEG -
        #define PLUS +
        int a = -NEG 1;
        int b = 1 PLUS+ 2;
        """
    )
    assert lines[2] == "int a = - - 1;"
    assert lines[3] == "int b = 1 + + 2;"


def test_function_like_macro_name_without_parentheses_is_left_alone() -> None:
    lines = pp_lines(
        """\
        #define f(x) (x + 1)
        int f;
        int y = f(2);
        """
    )
    assert lines[1] == "int f;"
    assert lines[2] == "int y = (2 + 1);"


def test_variadic_macros_and_empty_arguments() -> None:
    lines = pp_lines(
        """\
        #define CALL(f, ...) f(__VA_ARGS__)
        #define EMPTY() 42
        #define ONE(x) [x]
        CALL(g, 1, 2, 3); CALL(h); EMPTY(); ONE();
        """
    )
    assert lines[3] == "g(1, 2, 3); h(); 42; [];"


def test_undef_and_redefinition() -> None:
    lines = pp_lines(
        """\
        #define X 1
        int a = X;
        #undef X
        int b = X;
        #define X 2
        int c = X;
        """
    )
    assert [lines[1], lines[3], lines[5]] == ["int a = 1;", "int b = X;", "int c = 2;"]


def test_line_and_predefined_macros() -> None:
    lines = pp_lines(
        """\
        int a = __LINE__;

        int b = __LINE__;
        int v = __OPENCL_VERSION__;
        float pi = M_PI_F;
        """
    )
    assert lines[0] == "int a = 1;"
    assert lines[2] == "int b = 3;"
    assert lines[3] == "int v = 120;"
    assert lines[4].startswith("float pi = 3.14159") and lines[4].endswith("f;")


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ("-D N=4", "4"),
        ("-DN=4", "4"),
        ("-D N", "1"),
        ("-DN", "1"),
        ("-D N=", ""),
        ("-D 'N=1 + 2'", "1 + 2"),
        ("-cl-fast-relaxed-math -DN=8 -cl-mad-enable -cl-std=CL1.2", "8"),
        (" ".join(sorted(CL_OPTIONS - {"-cl-std=CL1.1"})) + " -DN=3", "3"),
    ],
)
def test_build_option_defines(options: str, expected: str) -> None:
    assert pp_lines("int x = N;\n", options)[0] == f"int x = {expected};"


def test_function_like_define_on_the_command_line() -> None:
    assert pp_lines("int x = TWICE(3);\n", "-D'TWICE(v)=(2*(v))'")[0] == "int x = (2*(3));"


def test_source_definitions_override_option_defaults() -> None:
    source = """\
    #ifndef TILE
    #define TILE 16
    #endif
    int t = TILE;
    """
    assert pp_lines(source)[3] == "int t = 16;"
    assert pp_lines(source, "-DTILE=32")[3] == "int t = 32;"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ("-O2", "<command line>: error: unsupported build option '-O2'"),
        ("-I", "<command line>: error: argument to '-I' is missing (expected 1 value)"),
        ("-D", "<command line>: error: macro name missing after '-D'"),
        ("-D 9X=1", "<command line>: error: macro names must be identifiers: '-D9X'"),
        ("-D 'X=1", "<command line>: error: malformed build options"),
        # PoCL 3.1 and Oclgrind 21.10 refuse a misspelt -cl- option too (it was accepted and ignored)
        ("-cl-fast-relaxed-maths", "<command line>: error: unsupported build option '-cl-fast-relaxed-maths'"),
        ("-cl-std=CL2.0", "<command line>: error: build option '-cl-std=CL2.0': the simulator compiles OpenCL C 1.2"),
        ("-cl-std=CL1.0", "<command line>: error: build option '-cl-std=CL1.0'"),
    ],
)
def test_bad_build_options(options: str, message: str) -> None:
    errors = pp_errors("int x;\n", options)
    assert len(errors) == 1 and errors[0].startswith(message)


def test_build_option_errors_fail_the_build() -> None:
    log = build_log("__kernel void k(__global int* a) { a[0] = 1; }", "-Wall")
    assert log == "<command line>: error: unsupported build option '-Wall'"


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("1 + 2 * 3 == 7", True),
        ("(1 + 2) * 3 == 9", True),
        ("0x10 == 16 && 010 == 8 && 0b101 == 5", True),
        ("10 / 3 == 3 && -7 / 2 == -3 && -7 % 2 == -1", True),
        ("1 << 4 == 16 && 256 >> 4 == 16", True),
        ("-1 < 0", True),
        ("-1 < 0u", False),  # usual arithmetic conversions: -1 becomes UINTMAX_MAX
        ("0xffffffffffffffff == -1", False),  # (intmax_t is 128 bits on Clang's SPIR targets)
        ("0xffffffffffffffffu * 0xffffffffffffffffu == 1", False),
        ("~0 == -1 && !0 == 1 && !5 == 0", True),
        ("(5 & 3) == 1 && (5 | 3) == 7 && (5 ^ 3) == 6", True),
        ("1 ? 2 : 3", True),
        ("0 ? 2 : 0", False),
        ("0 && 1 / 0", False),  # not evaluated: no division-by-zero error
        ("1 || 1 / 0", True),
        ("100UL > 99 && 7LL == 7 && 5u == 5", True),
        ("'A' == 65 && '\\n' == 10", True),
        ("UNDEFINED_NAME == 0", True),  # C99 6.10.1p4
        ("defined(FOO) && !defined BAR", True),
        ("FOO * 2 == 6", True),
        ("defined FOO ? FOO : 0", True),
    ],
)
def test_if_expressions(expr: str, value: bool) -> None:
    lines = pp_lines(f"#if {expr}\nyes\n#else\nno\n#endif\n", "-DFOO=3")
    assert lines[1:4] == (["yes", "", ""] if value else ["", "", "no"])


def test_ifdef_ifndef_and_elif_chains() -> None:
    source = """\
    #ifdef MODE
    #if MODE == 1
    one
    #elif MODE == 2
    two
    #elif MODE == 3
    three
    #else
    other
    #endif
    #else
    none
    #endif
    #ifndef MODE
    no mode
    #endif
    """

    def kept(options: str) -> list[str]:
        return [line for line in pp_lines(source, options) if line]

    assert kept("") == ["none", "no mode"]
    assert kept("-DMODE=1") == ["one"]
    assert kept("-DMODE=2") == ["two"]
    assert kept("-DMODE=3") == ["three"]
    assert kept("-DMODE=4") == ["other"]


def test_only_the_first_true_elif_is_taken_and_skipped_groups_are_not_processed() -> None:
    lines = pp_lines(
        """\
        #if 1
        a
        #elif 1 / 0
        b
        #endif
        #if 0
        #include <nothing.h>
        #error not reached
        #bogus directive
        it's fine: " unbalanced quotes in skipped text
        #if 1
        nested
        #endif
        #else
        c
        #endif
        """
    )
    assert [line for line in lines if line] == ["a", "c"]


def test_pragmas_are_ignored_but_loop_hints_stay_for_the_checker() -> None:
    lines = pp_lines(
        """\
        #pragma OPENCL EXTENSION cl_khr_fp64 : enable
        #define N 4
        #pragma unroll   N
        int x;
        """
    )
    assert lines[:4] == ["", "", "#pragma unroll   4", "int x;"]


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("#include <math.h>\n", "kernel.cl:1:10: error: 'math.h' file not found"),
        ('  #include "mine-not-here.h"\n', "kernel.cl:1:12: error: 'mine-not-here.h' file not found"),
        ("int x;\n#error custom stop\n", "kernel.cl:2:2: error: custom stop"),
        ("#define S(x) #y\n", "kernel.cl:1:15: error: '#' is not followed by a macro parameter"),
        ("#define P(a, b) ## b\n", "kernel.cl:1:17: error: '##' cannot appear at start of macro expansion"),
        ("#define P x ##\n", "kernel.cl:1:13: error: '##' cannot appear at end of macro expansion"),
        (
            "#define P(a) a ## +\nint P(x);\n",
            "kernel.cl:2:5: error: pasting formed 'x+', an invalid preprocessing token",
        ),
        ("\n#if 1\nint x;\n", "kernel.cl:2:2: error: unterminated conditional directive"),
        ("#ifdef X\n#else\n#else\n#endif\n", "kernel.cl:3:2: error: #else after #else"),
        ("#if 1\n#else\n#elif 1\n#endif\n", "kernel.cl:3:2: error: #elif after #else"),
        ("#endif\n", "kernel.cl:1:2: error: #endif without #if"),
        ("#elif 1\n", "kernel.cl:1:2: error: #elif without #if"),
        ("#else\n", "kernel.cl:1:2: error: #else without #if"),
        ("#if 1 / 0\n#endif\n", "kernel.cl:1:7: error: division by zero in preprocessor expression"),
        ("#if 1.5 > 1\n#endif\n", "kernel.cl:1:5: error: floating point literal in preprocessor expression"),
        ("#if (1 + 2\n#endif\n", "kernel.cl:1:11: error: expected ')' in preprocessor expression"),
        (
            "#if 1 2\n#endif\n",
            "kernel.cl:1:7: error: token is not a valid binary operator in a preprocessor subexpression",
        ),
        ("#if\n#endif\n", "kernel.cl:1:4: error: expected value in expression"),
        ("#ifdef\n#endif\n", "kernel.cl:1:7: error: macro name missing"),
        ("#define 3 x\n", "kernel.cl:1:9: error: macro name must be an identifier"),
        ("#define defined 1\n", "kernel.cl:1:9: error: 'defined' cannot be used as a macro name"),
        ("#define F(a, a) a\n", "kernel.cl:1:14: error: duplicate macro parameter name 'a'"),
        ("#define F(a, 1) a\n", "kernel.cl:1:14: error: invalid token in macro parameter list"),
        ("#line ten\n", "kernel.cl:1:7: error: #line directive requires a positive integer argument"),
        ("#frobnicate\n", "kernel.cl:1:2: error: invalid preprocessing directive"),
        (
            "#define F(a, b) a\nint x = F(1);\n",
            "kernel.cl:2:12: error: too few arguments provided to function-like macro invocation",
        ),
        (
            "#define F(a) a\nint x = F(1, 2);\n",
            "kernel.cl:2:14: error: too many arguments provided to function-like macro invocation",
        ),
        ("#define F(a) a\nint x = F(1;\n", "kernel.cl:2:9: error: unterminated function-like macro invocation"),
        (
            "#define V(a, b, ...) a\nV(1);\n",
            "kernel.cl:2:4: error: too few arguments provided to function-like macro invocation",
        ),
        ("int x; /* never closed\n", "kernel.cl:1:8: error: unterminated /* comment"),
    ],
)
def test_preprocessor_errors(source: str, message: str) -> None:
    errors = pp_errors(source)
    assert any(message in e for e in errors), errors


def test_preprocessor_errors_are_all_reported_and_the_build_goes_on() -> None:
    """As Clang: a preprocessing error (``#error``, a bad macro) fails the build and the parser and checker go on
    (``nope`` is reported too); only a failed ``#include`` stops them, Clang's fatal error."""
    log = build_log(
        """\
        #warning first
        #define F(x) #
        __kernel void k(__global int* a) { a[0] = nope; }
        #error one more
        """
    )
    assert log.splitlines() == [
        "kernel.cl:1:2: warning: first",
        "kernel.cl:2:15: error: '#' is not followed by a macro parameter",
        "kernel.cl:3:43: error: use of undeclared identifier 'nope'",
        "kernel.cl:4:2: error: one more",
    ]


def test_warning_directive_lands_in_the_build_log_of_a_good_build() -> None:
    program = compile_ok(
        """\
        #warning slow path
        __kernel void k(__global int* a) { a[0] = 1; }
        """
    )
    assert program.build_log == "kernel.cl:1:2: warning: slow path"


# -- line structure


def test_one_output_line_per_input_line() -> None:
    source = textwrap.dedent(
        """\
        #define LONG(a, b) \\
            ((a) + \\
             (b))
        int x = LONG(1,
                     2); int after;
        /* a comment
           over lines */ int y;
        #if 0
        skipped
        #endif
        int z = 1; // trailing
        #define D 1 /* comment in
        a directive */
        int w = D;
        """
    )
    out = preprocess(source).text.split("\n")
    assert len(out) == len(source.split("\n"))
    assert out[3].split() == ["int", "x", "=", "((1)", "+", "(2));", "int", "after;"]
    assert out[4].strip() == ""
    assert out[6].strip() == "int y;"  # code after a multi-line comment stays on its own line
    assert out[11].strip() == ""
    assert out[13].strip() == "int w = 1;"


def test_columns_survive_comments() -> None:
    out = preprocess("int /* c */ x = y;\n").text
    assert out.index("x") == "int /* c */ x = y;".index("x")


def test_error_after_ten_lines_of_macros_points_at_the_users_line() -> None:
    source = "".join(f"#define M{k}(x) ((x) + {k})\n" for k in range(10))
    source += "__kernel void k(__global float* a) {\n"  # line 11
    source += "    a[0] = M3(M7(1));\n"  # line 12
    source += "    a[1] = undeclared_thing;\n"  # line 13
    source += "}\n"
    log = build_log(source)
    assert log == "kernel.cl:13:12: error: use of undeclared identifier 'undeclared_thing'"


def test_error_after_a_multi_line_macro_call_and_a_continued_line() -> None:
    source = """\
    #define ADD(a, b) ((a) + (b))
    #define LONG 1 + \\
                 2
    __kernel void k(__global float* a) {
        a[0] = ADD(1,
                   2) + LONG;
        a[1] = oops;
    }
    """
    assert errors_at(source) == [(7, "use of undeclared identifier 'oops'")]


def test_parse_error_line_after_macros() -> None:
    source = """\
    #define A 1
    #define B(x) (x)

    #ifdef A
    #define C 3
    #endif
    __kernel void k(__global float* a) {
        a[0] = B(A) + C
        a[1] = 2;
    }
    """
    assert errors_at(source) == [(8, "expected ';' after expression")]  # (Clang: just after the C)


# -- hypothesis


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_Expr = tuple[str, int | None]  # text, and its value (None: division by zero where it is evaluated)


def _binary(parts: tuple[_Expr, str, _Expr]) -> _Expr:
    (lt, lv), op, (rt, rv) = parts
    text = f"({lt} {op} {rt})"
    if op == "&&":
        return text, 0 if lv == 0 else (None if lv is None or rv is None else int(rv != 0))
    if op == "||":
        return text, None if lv is None else (1 if lv != 0 else (None if rv is None else int(rv != 0)))
    if lv is None or rv is None:
        return text, None
    if op in ("/", "%"):
        if rv == 0:
            return text, None
        q = _c_div(lv, rv)
        return text, q if op == "/" else lv - rv * q
    ops = {
        "+": lambda a, b: a + b,
        "-": lambda a, b: a - b,
        "*": lambda a, b: a * b,
        "&": lambda a, b: a & b,
        "|": lambda a, b: a | b,
        "^": lambda a, b: a ^ b,
        "<": lambda a, b: int(a < b),
        "<=": lambda a, b: int(a <= b),
        ">": lambda a, b: int(a > b),
        ">=": lambda a, b: int(a >= b),
        "==": lambda a, b: int(a == b),
        "!=": lambda a, b: int(a != b),
    }
    return text, ops[op](lv, rv)


def _unary(parts: tuple[str, _Expr]) -> _Expr:
    op, (t, v) = parts
    if v is None:
        return f"{op}({t})", None
    return f"{op}({t})", {"-": -v, "+": v, "~": ~v, "!": int(v == 0)}[op]


def _shift(parts: tuple[_Expr, str, int]) -> _Expr:
    (t, v), op, count = parts
    return f"({t} {op} {count})", None if v is None else (v << count if op == "<<" else v >> count)


def _ternary(parts: tuple[_Expr, _Expr, _Expr]) -> _Expr:
    (ct, cv), (at, av), (bt, bv) = parts
    return f"({ct} ? {at} : {bt})", None if cv is None else (av if cv != 0 else bv)


_BINARY_OPS = ["+", "-", "*", "/", "%", "&", "|", "^", "<", "<=", ">", ">=", "==", "!=", "&&", "||"]
_int_exprs = st.recursive(
    st.integers(0, 20).map(lambda n: (str(n), n)),
    lambda sub: st.one_of(
        st.tuples(sub, st.sampled_from(_BINARY_OPS), sub).map(_binary),
        st.tuples(st.sampled_from(["-", "+", "~", "!"]), sub).map(_unary),
        st.tuples(sub, st.sampled_from(["<<", ">>"]), st.integers(0, 4)).map(_shift),
        st.tuples(sub, sub, sub).map(_ternary),
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_int_exprs)
def test_if_evaluation_matches_python_arithmetic(expr: _Expr) -> None:
    text, value = expr
    result = preprocess(f"#if {text}\nyes\n#else\nno\n#endif\n")
    if value is None:
        assert [d.message for d in result.errors] == ["division by zero in preprocessor expression"]
    else:
        assert not result.errors, (text, result.errors)
        assert ("yes" in result.text) == (value != 0), (text, value)


_pp_lines = st.sampled_from(
    [
        "#define A 1",
        "#define F(x, y) ((x) + (y))",
        "#undef A",
        "#ifdef A",
        "#if A + 1 > 1",
        "#else",
        "#endif",
        "int v = F(A,",
        "  2);",
        "int w = A; /* open",
        "close */ int z;",
        "x = 1; \\",
        "// comment \\",
        "#pragma unroll",
        "",
        "y = F(1, 2) + A;",
    ]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_pp_lines, max_size=25))
def test_preprocessing_keeps_the_line_count(lines: list[str]) -> None:
    source = "\n".join(lines)
    assert len(preprocess(source).text.split("\n")) == len(source.split("\n"))


# ---------------------------------------------------------------------------------------------------------------
# The front end: parameters of realistic kernels

VECTOR_ADD = """\
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, const int n) {
    int i = get_global_id(0);
    if (i < n)
        c[i] = a[i] + b[i];
}
"""

TILED_MATMUL = """\
#define TILE 16
__kernel __attribute__((reqd_work_group_size(TILE, TILE, 1)))
void matmul(__global const float* A, __global const float* B, __global float* C, const uint N,
            __local float* Asub, __local float* Bsub) {
    const int row = get_local_id(1), col = get_local_id(0);
    const int grow = get_global_id(1), gcol = get_global_id(0);
    float acc = 0.0f;
    for (uint t = 0; t < N / TILE; t++) {
        Asub[row * TILE + col] = A[grow * N + t * TILE + col];
        Bsub[row * TILE + col] = B[(t * TILE + row) * N + gcol];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; ++k)
            acc = mad(Asub[row * TILE + k], Bsub[k * TILE + col], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[grow * N + gcol] = acc;
}
"""

REDUCTION = """\
__kernel void reduce_sum(__global const float* in, __global float* out, unsigned int n) {
    __local float scratch[256];
    __local int count;
    uint lid = get_local_id(0);
    size_t gid = get_global_id(0);
    scratch[lid] = gid < n ? in[gid] : 0.0f;
    if (lid == 0) count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&count);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = scratch[0];
}
"""

FLOAT4 = """\
__kernel void saxpy4(__global const float* x, __global float* y, const float alpha, float4 bias,
                     __constant float4* table, __global uchar16* bytes) {
    size_t i = get_global_id(0);
    float4 v = vload4(i, x);
    float4 w = vload4(i, y);
    float4 r = alpha * v + w + bias + table[0];
    r.xy = r.yx;
    r.s3 = (float)(r.lo.x + r.hi.y);
    float4 splat = (float4)(1.0f);
    float4 built = (float4)(r.xy, 0.5f, r.w) * splat;
    vstore4(built + (float4)(dot(v, w), length(v), 0.0f, 1.0f), i, y);
    int4 q = convert_int4_sat_rte(r);
    bytes[i] = as_uchar16(convert_float4(q));
}
"""

HELPERS = """\
typedef float real;
float square(float v);
inline real add3(real a, real b, real c) { return a + b + c; }
float square(float v) { return v * v; }
float norm2(__global const float* p, int n) {
    float s = 0.0f;
    for (int i = 0; i < n; ++i)
        s = add3(s, square(p[i]), 0.0f);
    return s;
}
__kernel void norms(__global const float* rows, __global float* out, int n) {
    int r = get_global_id(0);
    out[r] = sqrt(norm2(rows + r * n, n));
}
"""


MANY_VALID_CONSTRUCTS = """\
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef struct { float x, y; } Point;
struct Acc { float sum; int n; };
static inline float lerp1(float a, float b, float t) __attribute__((always_inline));
static inline float lerp1(float a, float b, float t) { return a + (b - a) * t; }
void inc(int* x) { (*x)++; }
void fill(__local float* tmp, int n) { for (int i = 0; i < n; ++i) tmp[i] = 0.0f; }
float4 relu4(float4 v) { return fmax(v, 0.0f); }
void add_point(struct Acc* acc, Point p) { acc->sum += p.x + p.y; acc->n++; }

__kernel void misc(__global float* a, __global const float4* v4in, __global int* counter,
                   __global half* h, __global double* d, int n, uint flags) {
    __local float scratch[64];
    size_t gid = get_global_id(0);
    ptrdiff_t diff = 3;
    __global float* row = a + gid * n;
    __global float4* a4 = (__global float4*)a;
    const __global float* const ro = a;
    row[0] = ro[1] + (float)gid / n;
    for (int i = 0, j = 1; i < n && j < n; i++, j += 2) { if (i == 5) continue; row[i] = j; }
    int k = 0;
    while (k < 3) { k++; if (k > 10) break; }
    do { k--; } while (k > 0);
    float acc[4] = {0};
    float m[2][2] = {{1, 2}, {3, 4}};
    Point p = {1.0f, 2.0f};
    struct Acc total = {0.0f, 0};
    add_point(&total, p);
    inc(&k);
    fill(scratch, 64);
    float4 v = v4in[gid];
    float4 w = v * 2 + 1.0f;
    float4 r = (k > 0) ? v : w;
    int4 mask = v > w;
    float4 s = select(v, w, mask);
    float4 rl = relu4(s);
    float dd = dot(v, w) + length(rl) + sqrt(2.0f) + native_exp(1.0f) + half_sqrt(4.0f);
    float4 c = clamp(v, 0.0f, 1.0f) + mad(v, w, r) + fma(v, w, r);
    v.xyz = (float3)(1.0f);
    v.w = v.s0 + v.odd.x + v.even.y + v.lo.x + v.hi.y;
    float2 t2 = (float2)(v.x, 2);
    int4 iv = (int4)(1, 2, 3, 4);
    uint4 uv = abs(iv);
    int bits = ~k & 0xff | (k << 2) ^ (k >> 1);
    bits <<= 1; bits %= 7; bits |= !k;
    a[0] += acc[0] + m[1][1] + p.x + total.sum + t2.y + dd + c.x + uv.x + bits + lerp1(1.0f, 2.0f, 0.5f);
    atomic_add(counter, 1); atom_inc(counter); atomic_cmpxchg(&counter[1], 0, 1);
    atomic_max(counter + 2, (int)gid);
    atomic_add(&((__local int*)scratch)[0], 1);
    float4 hv = convert_float4(vload4(0, h));
    double dv = d[0] * 2.0;
    float x = 0x1.8p3f + 1e-3f + 1.5e2f;
    unsigned int u = (unsigned int)x;
    long big = 1L << 40;
    ulong ub = 0xffffffffffffffffUL;
    bool flag = (flags & 1) != 0;
    if (flag && true || false) a[1] = hv.x + dv + u + big + ub + diff;
    a4[0] = r;
    int z = k = 3;
    int* pk = &k;
    *pk = z;
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (gid == 0) return;
    vstore2(t2, 0, a);
    float3 f3 = vload3(0, a);
    vstore3(f3, 1, a);
    a[2] = sizeof(float4) + sizeof(Point) + sizeof(k);
}
"""


def test_vector_add_parameters() -> None:
    program = compile_ok(VECTOR_ADD)
    kernel = program.kernel("vector_add")
    assert kernel.line == 1
    assert [(p.name, p.kind, p.elem_type, p.vector_width, p.address_space, p.const) for p in kernel.params] == [
        ("a", "buffer", "float", 1, "global", True),
        ("b", "buffer", "float", 1, "global", True),
        ("c", "buffer", "float", 1, "global", False),
        ("n", "scalar", "int", 1, "private", True),
    ]
    assert isinstance(kernel.node, c_ast.FuncDef) and kernel.node.decl.name == "vector_add"
    assert kernel.local_vars == [] and kernel.static_local_bytes == 0
    assert program.functions == {}
    assert program.kernel_names == ["vector_add"]
    assert program.build_log == ""


def test_tiled_matmul_with_local_pointer_arguments() -> None:
    kernel = compile_ok(TILED_MATMUL).kernel("matmul")
    assert [(p.name, p.kind, p.address_space) for p in kernel.params] == [
        ("A", "buffer", "global"),
        ("B", "buffer", "global"),
        ("C", "buffer", "global"),
        ("N", "scalar", "private"),
        ("Asub", "local", "local"),
        ("Bsub", "local", "local"),
    ]
    assert kernel.params[3].elem_type == "uint"
    assert kernel.reqd_work_group_size == (16, 16, 1)


def test_reduction_with_local_array_inside_the_kernel() -> None:
    kernel = compile_ok(REDUCTION).kernel("reduce_sum")
    assert [(p.name, p.kind, p.elem_type) for p in kernel.params] == [
        ("in", "buffer", "float"),
        ("out", "buffer", "float"),
        ("n", "scalar", "uint"),
    ]
    scratch, count = kernel.local_vars
    assert (scratch.name, scratch.elem_type, scratch.vector_width, scratch.shape, scratch.line) == (
        "scratch",
        "float",
        1,
        (256,),
        2,
    )
    assert (count.name, count.shape, count.size_bytes) == ("count", (), 4)
    assert kernel.static_local_bytes == 256 * 4 + 4


def test_float4_kernel_with_vload_and_vstore() -> None:
    kernel = compile_ok(FLOAT4).kernel("saxpy4")
    assert [(p.name, p.kind, p.type_name, p.address_space, p.const) for p in kernel.params] == [
        ("x", "buffer", "float", "global", True),
        ("y", "buffer", "float", "global", False),
        ("alpha", "scalar", "float", "private", True),
        ("bias", "scalar", "float4", "private", False),
        ("table", "buffer", "float4", "constant", True),  # __constant memory is read-only
        ("bytes", "buffer", "uchar16", "global", False),
    ]
    assert kernel.params[3].vector_width == 4 and kernel.params[3].elem_type == "float"


def test_helper_functions() -> None:
    program = compile_ok(HELPERS)
    assert list(program.functions) == ["add3", "square", "norm2"]
    norm2 = program.functions["norm2"]
    assert [(p.name, p.kind, p.elem_type, p.address_space, p.const) for p in norm2.params] == [
        ("p", "pointer", "float", "global", True),
        ("n", "scalar", "int", "private", False),
    ]
    assert norm2.calls == ("add3", "square")
    assert str(norm2.return_type) == "float"
    assert program.functions["add3"].return_type.name == "float"  # the typedef is resolved
    assert [p.name for p in program.kernel("norms").params] == ["rows", "out", "n"]


def test_several_kernels_and_lookup() -> None:
    program = compile_ok(VECTOR_ADD + REDUCTION)
    assert program.kernel_names == ["vector_add", "reduce_sum"]
    with pytest.raises(KernelNotFound) as info:
        program.kernel("vectoradd")
    assert "'vectoradd'" in str(info.value) and "vector_add, reduce_sum" in str(info.value)
    assert info.value.available == ["vector_add", "reduce_sum"]
    assert isinstance(info.value, LookupError)


def test_a_kernel_using_many_valid_constructs_compiles() -> None:
    program = compile_ok(MANY_VALID_CONSTRUCTS)
    assert list(program.functions) == ["lerp1", "inc", "fill", "relu4", "add_point"]
    assert program.functions["add_point"].params[0].elem_type == "struct Acc"
    kernel = program.kernel("misc")
    assert [p.kind for p in kernel.params] == ["buffer"] * 5 + ["scalar"] * 2
    assert kernel.params[3].elem_type == "half" and kernel.params[4].elem_type == "double"
    assert kernel.static_local_bytes == 64 * 4


@pytest.mark.parametrize(
    "head",
    [
        "__kernel __attribute__((reqd_work_group_size(8, 4, 1))) void k",
        "__kernel void __attribute__((reqd_work_group_size(8, 4, 1))) k",
        "__attribute__((reqd_work_group_size(8, 4, 1))) __kernel void k",
        "__kernel __attribute__((vec_type_hint(float4))) __attribute__((reqd_work_group_size(8,4,1))) void k",
    ],
)
def test_reqd_work_group_size_spellings(head: str) -> None:
    program = compile_ok(f"{head}(__global float* a) {{ a[0] = 1; }}")
    assert program.kernel("k").reqd_work_group_size == (8, 4, 1)


def test_array_parameters_are_pointers() -> None:
    program = compile_ok(
        """\
        float first(float w[4]) { w = w + 1; return w[0]; }
        __kernel void k(__global float a[], __local int s[16]) { float t[4]; a[0] = first(t) + s[0]; }
        """
    )
    assert [(p.name, p.kind, p.elem_type) for p in program.kernel("k").params] == [
        ("a", "buffer", "float"),
        ("s", "local", "int"),
    ]
    assert program.functions["first"].params[0].kind == "pointer"


def test_prototypes_before_definitions() -> None:
    program = compile_ok(
        """\
        __kernel void k(__global float* a);
        float twice(float x);
        __kernel void k(__global float* a) { a[0] = twice(a[1]); }
        float twice(float x) { return 2.0f * x; }
        """
    )
    assert program.kernel_names == ["k"] and list(program.functions) == ["twice"]


def test_bool_literals_and_locals() -> None:
    compile_ok("__kernel void k(__global int* a) { bool b = true; if (b && !false) a[0] = b; }")


def test_unsigned_spellings_and_kernel_keyword_spellings() -> None:
    program = compile_ok(
        """\
        kernel void k(global unsigned char* a, constant short* b, local unsigned long* c, unsigned n, long m) {}
        """
    )
    assert [(p.elem_type, p.kind, p.address_space) for p in program.kernel("k").params] == [
        ("uchar", "buffer", "global"),
        ("short", "buffer", "constant"),
        ("ulong", "local", "local"),
        ("uint", "scalar", "private"),
        ("long", "scalar", "private"),
    ]


def test_program_scope_constants_and_enums() -> None:
    program = compile_ok(
        """\
        enum Mode { ADD = 1, MUL, SHIFT = MUL << 2 };
        __constant float weights[3] = {0.25f, 0.5f, 0.25f};
        __constant int modes[SHIFT] = {ADD, MUL};
        __kernel void blur(__global float* a) {
            int i = get_global_id(0);
            a[i] = weights[0] * a[i] + weights[MUL] + modes[ADD];
        }
        """
    )
    assert program.enumerators == {"ADD": 1, "MUL": 2, "SHIFT": 8}
    assert list(program.constants) == ["weights", "modes"]
    t = program.type_of(program.constants["weights"])
    assert (t.kind, t.length, t.target and t.target.space, t.const) == ("array", 3, "constant", True)
    assert program.type_of(program.constants["modes"]).length == 8


def test_type_of_resolves_typedefs_and_vectors() -> None:
    program = compile_ok(
        """\
        typedef float4 vec;
        typedef struct { float x; int n; } Pair;
        __kernel void k(__global vec* out) {
            vec v = (vec)(0.0f);
            Pair p;
            p.x = v.x;
            out[0] = v;
        }
        """
    )
    body = program.kernel("k").node.body.block_items
    v = program.type_of(body[0])
    assert (v.kind, v.name, v.width, v.type_name) == ("vector", "float", 4, "float4")
    pair = program.type_of(body[1])
    assert pair.kind == "struct"
    assert [(n, t.type_name) for n, t in program.struct_fields(pair.name)] == [("x", "float"), ("n", "int")]
    assert program.kernel("k").params[0].type_name == "float4"


def test_const_int_evaluates_array_sizes() -> None:
    program = compile_ok(
        """\
        #define W 8
        __kernel void k(__global float* a) {
            __local float tile[W * 2][W + 1];
            tile[0][0] = a[0];
        }
        """
    )
    local = program.kernel("k").local_vars[0]
    assert local.shape == (16, 9) and local.size_bytes == 16 * 9 * 4
    dims = program.kernel("k").node.body.block_items[0].type
    assert program.const_int(dims.dim) == 16


def test_const_int_casts_convert_like_c() -> None:
    program = compile_ok("__kernel void k(__global int* a) { int t[(uchar)300]; int u[(char)-1 + 3]; t[0] = a[0]; }")
    t, u = program.kernel("k").node.body.block_items[:2]
    assert program.const_int(t.type.dim) == 44 and program.const_int(u.type.dim) == 2


def test_switch_case_labels_are_integer_constant_expressions() -> None:
    """Literals, negative values, char literals, macros, enumerators, arithmetic and casts on constants; each
    label is converted to the controlling expression's promoted type (so (uchar)300 is 44 and no duplicate of
    300 in an int switch); a controlling expression of any integer type, size_t included."""
    compile_ok(
        """\
        #define LIMIT 7
        enum mode { FIRST = 100, SECOND };
        __kernel void k(__global int* a, __global const uchar* c, ulong big) {
            size_t i = get_global_id(0);
            switch (a[i]) {
            case 0: case -1: case 'x': case '\\n': case LIMIT: case LIMIT * 2 + 1: case SECOND:
            case (uchar)300: case 300: case sizeof(int) + 50: case ~0 - 1: a[i] = 1; break;
            }
            switch (c[i]) { case 255: a[i] = 2; }
            switch (i) { case 0: a[i] = 3; break; default: break; }
            switch (big) { case 1ul << 40: a[i] = 4; }
            switch ((short)a[i]) { case -32768: a[i] = 5; }
            switch (a[i] > 2) { case 1: a[i] = 6; }
        }
        """
    )


def test_filename_appears_in_messages() -> None:
    log = build_log("__kernel void k(__global int* a) { a[0] = b; }", filename="my_kernels.cl")
    assert log == "my_kernels.cl:1:43: error: use of undeclared identifier 'b'"


def test_builtin_constants_and_macros_are_known() -> None:
    compile_ok(
        """\
        __kernel void k(__global float* a, __global int* b) {
            a[0] = INFINITY + NAN + FLT_MAX + FLT_EPSILON + M_PI_F + MAXFLOAT;
            b[0] = INT_MAX + INT_MIN + CHAR_BIT;
            barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
            mem_fence(CLK_GLOBAL_MEM_FENCE);
        }
        """
    )


_TABLE_CALLS = {
    **dict.fromkeys(("fract", "modf", "sincos"), "{}(x, p)"),
    **dict.fromkeys(("frexp", "lgamma_r"), "{}(x, ip)"),
    "remquo": "remquo(x, x, ip)",
    "cross": "cross((float4)(x), (float4)(x))",
    "nan": "nan(1u)",
    **dict.fromkeys(("upsample",), "upsample(1, 2u)"),
    **dict.fromkeys(("any", "all"), "{}(1)"),
    **dict.fromkeys(("shuffle",), "shuffle((float4)(x), (uint4)(1))"),
    **dict.fromkeys(("shuffle2",), "shuffle2((float4)(x), (float4)(x), (uint4)(1))"),
    **dict.fromkeys("abs_diff add_sat sub_sat hadd rhadd mul_hi mul24".split(), "{}(1, 2)"),  # noqa: SIM905
    **dict.fromkeys(("mad_hi", "mad_sat", "mad24"), "{}(1, 2, 3)"),
}
"""Calls of the section 6.12 built-ins whose arguments are not all floats (issue 16's tables)."""


def _call_for(name: str) -> str:
    if name in _TABLE_CALLS:
        return _TABLE_CALLS[name].format(name)
    if name.startswith(("vload_half", "vloada_half")):
        return f"{name}(0, hp)"
    if name.startswith(("vstore_half", "vstorea_half")):
        width = name.split("half")[1].split("_")[0]
        return f"{name}((float{width})(0.0f), 0, hp)"
    if name.startswith("vload"):
        return f"{name}(0, p)"
    if name.startswith("vstore"):
        width = int(name[6:])
        return f"{name}((float{width})(0.0f), 0, p)"
    if name.startswith(("atomic_", "atom_")):
        low, _ = builtin_arity(name) or (0, 0)
        return f"{name}(ip{', 1' * (low - 1)})"
    low, _ = builtin_arity(name) or (0, 0)
    if name in ("get_work_dim",):
        return f"{name}()"
    if name in ("barrier", "mem_fence"):
        return f"{name}(CLK_LOCAL_MEM_FENCE)"
    if name.startswith("get_"):
        return f"{name}(0)"
    if name in ("pown", "ldexp", "rootn"):
        return f"{name}(x, 2)"
    if name in ("abs", "clz", "popcount"):  # integers only (clz(1.5f) is ambiguous, as in Clang)
        return f"{name}(1)"
    if name == "rotate":  # integers only (rotate(float, float) is no overload's call)
        return "rotate(1, 2)"
    if name == "select":  # an integer selector of the element's size
        return "select(x, x, 1)"
    if name.startswith("async_work_group"):  # issue 16: async copies and prefetch
        return f"{name}(p, lp, 1{', 1' if 'strided' in name else ''}, 0)"
    if name == "wait_group_events":
        return "wait_group_events(0, (event_t*)0)"
    if name == "prefetch":
        return "prefetch(p, 1)"
    return f"{name}({', '.join(['x'] * low)})"


def test_every_builtin_function_compiles_with_its_arity() -> None:
    calls = "\n".join(f"    {_call_for(name)};" for name in sorted(BUILTIN_FUNCTIONS))
    source = (
        f"__kernel void k(__global float* p, __global int* ip, __global half* hp, float x, __local float* lp) {{\n"
        f"{calls}\n}}\n"
    )
    compile_ok(source)


@pytest.mark.parametrize(
    "name",
    ["convert_float", "convert_int4", "convert_uchar16_sat", "convert_int_sat_rte", "convert_float2_rtz", "as_uint"],
)
def test_conversion_families(name: str) -> None:
    assert is_builtin_function(name)
    width = re.search(r"(\d+)", name.split("_")[1])
    arg = f"(float{width.group(1)})(1.0f)" if width else "1.0f"
    compile_ok(f"__kernel void k(__global float* p) {{ {name}({arg}); }}")


def test_not_builtin_names() -> None:
    assert not is_builtin_function("convert_float_sat")
    assert not is_builtin_function("convert_bool")
    assert not is_builtin_function("read_imagef")
    assert builtin_arity("atomic_cmpxchg") == (3, 3)
    assert builtin_arity("get_work_dim") == (0, 0)
    assert builtin_arity("nothing") is None


# ---------------------------------------------------------------------------------------------------------------
# Rejected constructs, by line and name


def k(body: str, params: str = "__global float* a, int n") -> str:
    """A kernel around ``body`` (which starts on line 2)."""
    return f"__kernel void k({params}) {{\n{body}}}\n"


REJECTED = [
    pytest.param(k("    a[0] = 1;\n    done: a[1] = 2;\n    done: ;\n"), 4, "redefinition of label 'done'", id="label"),
    pytest.param(
        k("    float f = a[0];\n    switch (f) { case 0: break; }\n"),
        3,
        "statement requires expression of integer type ('__private float' invalid)",
        id="switch-on-float",
    ),
    pytest.param(
        k("    switch (a) { case 0: break; }\n"),
        2,
        "statement requires expression of integer type ('__global float *__private' invalid)",
        id="switch-on-pointer",
    ),
    pytest.param(
        k("    int4 v = (int4)(n);\n    switch (v) { case 0: break; }\n"),
        3,
        "statement requires expression of integer type ('__private int4' (vector of 4 'int' values) invalid)",
        id="switch-on-vector",
    ),
    pytest.param(
        k("    switch (n) {\n    case 1: a[0] = 1; break;\n    case 2 - 1: break;\n    }\n"),
        4,
        "duplicate case value '1'",
        id="switch-duplicate-case",
    ),
    pytest.param(
        k("    uint u = n;\n    switch (u) {\n    case -1: break;\n    case 0xFFFFFFFFu: break;\n    }\n"),
        5,
        "duplicate case value '4294967295'",
        id="switch-duplicate-case-after-conversion",
    ),
    pytest.param(
        k("    switch (n) {\n    default: break;\n    case 1: break;\n    default: a[0] = 1;\n    }\n"),
        3,  # (at the first, as Clang places it)
        "multiple default labels in one switch",
        id="switch-two-defaults",
    ),
    pytest.param(
        k("    switch (n) {\n    case n: break;\n    }\n"),
        3,
        "expression is not an integer constant expression",
        id="switch-case-not-constant",
    ),
    pytest.param(
        k("    switch (n) {\n    case 1.5f: break;\n    }\n"),
        3,
        "integer constant expression must have integer type, not 'float'",
        id="switch-case-float",
    ),
    pytest.param(k("    case 1: a[0] = 1;\n"), 2, "'case' statement not in switch statement", id="case-outside"),
    pytest.param(
        k("    if (n) {\n    default: a[0] = 1;\n    }\n"),
        3,
        "'default' statement not in switch statement",
        id="default-outside",
    ),
    pytest.param(
        k("    switch (n) {\n    case 1:\n        continue;\n    }\n"),
        4,
        "'continue' statement not in loop statement",
        id="continue-in-switch-outside-loop",
    ),
    pytest.param(
        "int twice(int x) { return x * 2; }\n" + k("    int (*f)(int) = twice;\n"),
        3,
        "function pointers are not supported",
        id="function-pointer-variable",
    ),
    pytest.param(
        "typedef int (*op)(int);\n" + k("    a[0] = 1;\n"),
        1,
        "function pointers are not supported (typedef 'op')",
        id="function-pointer-typedef",
    ),
    pytest.param(
        "int apply(int (*f)(int), int x) { return f(x); }\n" + k("    a[0] = 1;\n"),
        1,
        "function pointers are not supported",
        id="function-pointer-parameter",
    ),
    pytest.param(
        "int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }\n" + k("    a[0] = fact(n);\n"),
        1,
        "recursion is not supported: 'fact' calls itself",
        id="direct-recursion",
    ),
    pytest.param(
        "int odd(int n);\nint even(int n) { return n == 0 ? 1 : odd(n - 1); }\n"
        "int odd(int n) { return n == 0 ? 0 : even(n - 1); }\n" + k("    a[0] = even(n);\n"),
        2,
        "recursion is not supported: 'even' -> 'odd' -> 'even'",
        id="indirect-recursion",
    ),
    pytest.param(
        "struct S { __global float* x; };\n" + k("    a[0] = 0;\n", "__global float* a, struct S s"),
        2,
        "kernel parameter 's': a struct kernel argument cannot hold a pointer (member 'x' of 'struct S')",
        id="struct-parameter-with-a-pointer",
    ),
    pytest.param(
        "struct S { uint lo : 4; uint hi : 4; };\n" + k("    struct S s;\n    a[0] = 0;\n"),
        1,
        "bit-fields are not supported in OpenCL",
        id="bit-field",
    ),
    pytest.param(
        k("    float f = a[0];\n    f %= 2.0f;\n"),
        3,
        "invalid operands to binary expression ('__private float' and 'float')",
        id="float-remainder-assignment",
    ),
    pytest.param(
        k("    char4 c = (char4)(1);\n    c += 1;\n"),
        3,
        "scalar operand type has greater rank than the type of the vector element. ('char4' (vector of 4 'char' "
        "values) and 'int')",
        id="compound-assignment-outranking-scalar",
    ),
    pytest.param(
        k("    __local __global float* t[2];\n    a[0] = 0;\n"),
        2,
        "multiple address spaces specified for type (__local and __global; variable 't')",
        id="two-address-spaces",
    ),
    pytest.param(
        k("    a[0] = *(__global __constant float*)a;\n"),
        2,
        "multiple address spaces specified for type (__global and __constant; cast)",
        id="two-address-spaces-in-a-cast",
    ),
    pytest.param(
        k("    a[0] = 1;\n", "__global float* a, __global float** rows"),
        1,
        "pointer arguments to kernel functions must reside in '__global', '__constant' or '__local' address space",
        id="pointer-to-pointer",
    ),
    pytest.param(
        k("    float tmp[n];\n    a[0] = tmp[0];\n"),
        2,
        "variable length arrays are not supported in OpenCL",
        id="vla",
    ),
    pytest.param(
        "__kernel int k(__global int* a) { return a[0]; }\n",
        1,
        "kernel must have void return type",
        id="non-void-kernel",
    ),
    pytest.param(
        k("    a[0] = p[0];\n", "__global float* a, float* p"),
        1,
        "pointer arguments to kernel functions must reside in '__global', '__constant' or '__local' address space",
        id="private-pointer",
    ),
    pytest.param(
        k("    a[0] = p[0];\n", "__global float* a, __private float* p"),
        1,
        "pointer arguments to kernel functions must reside in '__global', '__constant' or '__local' address space",
        id="explicit-private-pointer",
    ),
    pytest.param(  # (images as parameters build: test_kernel_images.py)
        k("    image2d_t j = img;\n    a[0] = 1;\n", "__global float* a, read_only image2d_t img"),
        2,
        "type 'image2d_t' can only be used as a function parameter in OpenCL (variable 'j')",
        id="image-variable",
    ),
    pytest.param(
        k("    sampler_t s[2];\n    a[0] = 1;\n"),
        2,
        "array of 'sampler_t' type is invalid in OpenCL (variable 's')",
        id="sampler-array",
    ),
    pytest.param(k('    printf("%s\\n", n);\n'), 2, "printf argument 2 for '%s'", id="printf"),  # issue 16
    pytest.param(
        k("    if (n) {\n        __local float t[4];\n        t[0] = 1;\n    }\n"),
        3,
        "variables in the local address space can only be declared in the outermost scope of a kernel function",
        id="nested-local",
    ),
    pytest.param(
        "void h(void) { __local float t[4]; }\n" + k("    h();\n"),
        1,
        "non-kernel function variable cannot be declared in local address space",
        id="local-in-helper",
    ),
    pytest.param(
        k("    __local float t = 1.0f;\n    a[0] = t;\n"),
        2,
        "'__local' variable cannot have an initializer",
        id="local-init",
    ),
    pytest.param(k("    a[0] = mystery;\n"), 2, "use of undeclared identifier 'mystery'", id="undeclared"),
    pytest.param(
        k("    a[0] = frobnicate(1);\n"), 2, "use of undeclared identifier 'frobnicate'", id="undeclared-call"
    ),
    pytest.param(
        k("    a[0] = get_local_linear_id();\n"),
        2,
        "built-in function 'get_local_linear_id' is not supported by the simulator",
        id="unsupported-builtin",
    ),
    pytest.param(
        k("    a[0] = get_image_width(a);\n"),
        2,
        "the first argument of 'get_image_width' must be an image, not '__global float *'",
        id="image-builtin-of-a-buffer",
    ),
    pytest.param(
        "int add(int a, int b) { return a + b; }\n" + k("    a[0] = add(1);\n"),
        3,
        "too few arguments to function call, expected 2, have 1",
        id="helper-arity",
    ),
    pytest.param(
        k("    a[0] = get_global_id();\n"),
        2,
        "too few arguments to function call, expected 1, have 0",
        id="builtin-arity",
    ),
    pytest.param(
        k("    alpha = 2.0f;\n", "__global float* a, const float alpha"),
        2,
        "cannot assign to variable 'alpha' with const-qualified type 'const __private float'",
        id="const-parameter",
    ),
    pytest.param(
        k("    a[0] = 1.0f;\n", "__global const float* a"),
        2,
        "read-only variable is not assignable",
        id="const-buffer",
    ),
    pytest.param(
        k("    c[0] = 1.0f;\n", "__constant float* c"),
        2,
        "read-only variable is not assignable",
        id="constant-buffer",
    ),
    pytest.param(
        k("    n++;\n", "const int n"),
        2,
        "cannot assign to variable 'n' with const-qualified type 'const __private int'",
        id="const-increment",
    ),
    pytest.param(
        k("    int x = later(1);\n") + "int later(int v) { return v; }\n",
        2,
        "use of undeclared identifier 'later'",
        id="use-before-declaration",
    ),
    pytest.param(
        "int never(int v);\n" + k("    a[0] = never(1);\n"),
        3,
        "function 'never' is declared but never defined",
        id="undefined-function",
    ),
    pytest.param(
        k("    float4 v = (float4)(1.0f, 2.0f, 3.0f);\n"),
        2,
        "too few elements in vector initialization (expected 4 elements, have 3)",
        id="vector-literal",
    ),
    pytest.param(
        k("    float4 v = (float4)(0.0f);\n    a[0] = v.q;\n"), 3, "illegal vector component name 'q'", id="swizzle"
    ),
    pytest.param(
        k("    float2 v = (float2)(0.0f);\n    a[0] = v.z;\n"),
        3,
        "vector component access exceeds type '__private float2' (vector of 2 'float' values)",
        id="swizzle-range",
    ),
    pytest.param(
        k("    float4 v = (float4)(0.0f);\n    v.xx = (float2)(1.0f);\n"),
        3,
        "vector is not assignable (contains duplicate components)",
        id="swizzle-assign",
    ),
    pytest.param(
        k("    float4 v = (float4)(0.0f);\n    float2 w = v.xy + v;\n"),
        3,
        "implicit conversions between vector types ('float2' (vector of 2 'float' values) and 'float4' (vector of 4",
        id="vector-sizes",
    ),
    pytest.param(
        k("    float x = 1.5f;\n    int r = x % 2;\n"),
        3,
        "invalid operands to binary expression ('__private float' and 'int')",
        id="float-modulo",
    ),
    pytest.param(
        k("    float4 v = (float4)(0.0f);\n    float s = v;\n"),
        3,
        "initializing '__private float' with an expression of incompatible type '__private float4'",
        id="vector-to-scalar",
    ),
    pytest.param(
        k("    int4 i = (int4)(1);\n    float4 f = i;\n"),
        3,
        "initializing '__private float4' (vector of 4 'float' values) with an expression of incompatible type",
        id="implicit-vector-conversion",
    ),
    pytest.param(
        k("    int x = 1;\n    x.y = 2;\n"), 3, "member reference base type '__private int'", id="member-of-scalar"
    ),
    pytest.param(k("    int x = 1;\n    x[0] = 2;\n"), 3, "subscripted value is not an array", id="subscript-scalar"),
    pytest.param(k("    break;\n"), 2, "'break' statement not in loop or switch statement", id="break-outside-loop"),
    pytest.param(k("    return 1;\n"), 2, "void function 'k' should not return a value", id="kernel-returns-value"),
    pytest.param(
        "int f(void) { return; }\n" + k("    a[0] = f();\n"),
        1,
        "non-void function 'f' should return a value",
        id="missing-return-value",
    ),
    pytest.param(k("    int x = 1;\n    int x = 2;\n"), 3, "redefinition of 'x'", id="redefinition"),
    pytest.param(k("    int n = 2;\n"), 2, "redefinition of 'n'", id="parameter-shadowed-in-body"),
    pytest.param(
        "int f(int x) { return x; }\nint f(int x) { return x; }\n" + k("    a[0] = f(1);\n"),
        2,
        "redefinition of 'f'",
        id="function-redefinition",
    ),
    pytest.param(
        "float g = 1.0f;\n" + k("    a[0] = g;\n"),
        1,
        "program scope variable must reside in constant address space",
        id="global-variable",
    ),
    pytest.param(
        "__constant float t[2];\n" + k("    a[0] = t[0];\n"), 1, "must be initialized", id="uninitialized-constant"
    ),
    pytest.param(
        k("    if (a[0]) {\n        __constant float t[1] = {1.0f};\n    }\n"),
        3,
        "can only be declared in the outermost scope of a kernel function",
        id="inner-block-constant",
    ),
    pytest.param(
        k("    static int s = 0;\n"), 2, "variables in function scope cannot be declared static", id="static-local"
    ),
    pytest.param(
        k("    a[0] = 1;\n", "__global float* a, bool flag"),
        1,
        "'__private bool' cannot be used as the type of a kernel parameter",
        id="bool-parameter",
    ),
    pytest.param(
        k("    a[0] = 1;\n", "__global float* a, size_t n"),
        1,
        "'__private size_t' (aka '__private unsigned long') cannot be used as the type of a kernel parameter",
        id="size_t-parameter",
    ),
    pytest.param(
        k("    a[0] = 1;\n", "__global float* a, float w[4]"),
        1,
        "pointer arguments to kernel functions must reside in '__global', '__constant' or '__local' address space",
        id="private-array-parameter",
    ),
    pytest.param(
        k("    a[0] = 1;\n", "__global float* a, __global int n"),
        1,
        "cannot be in the __global address space",
        id="global-scalar",
    ),
    pytest.param(
        k("    a[0] = 1;\n", "__global float* a, ..."), 1, "variadic functions are not supported", id="variadic"
    ),
    pytest.param(
        "__kernel void k(__global float* a) { k3(a); }\n__kernel void k3(__global float* a) {}\n",
        1,
        "use of undeclared identifier 'k3'",
        id="kernel-before-declaration",
    ),
    pytest.param(
        "__kernel void k0(__global float* a) { __local float t; t = 1; a[0] = t; }\n" + k("    k0(a);\n"),
        3,
        "calling the kernel 'k0', which declares __local variables, is not supported",
        id="kernel-calls-kernel-with-locals",
    ),
    pytest.param(k('    asm("nop");\n'), 2, "inline assembly is not supported", id="asm"),
    pytest.param(
        k("    float4 v = (float4){1.0f, 2.0f};\n"),
        2,
        "too few elements in vector initialization (expected 4 elements, have 2)",
        id="short-vector-compound-literal",
    ),
    pytest.param(
        k("    int2 v = {1, 2, n};\n"),
        2,
        "excess elements in vector initialization (expected 2 elements, have 3)",
        id="long-vector-braces",
    ),
    pytest.param(
        k("    int t[2][2] = {[1].x = 3};\n"),
        2,
        "member designator '.x' in an initializer of 'int[2]', which is not a struct or union",
        id="nested-designator-on-a-row",
    ),
    pytest.param(
        k("    int x = 1;\n    int y = x(2);\n"),
        3,
        "called object type 'int' is not a function or function pointer",
        id="call-non-function",
    ),
    pytest.param(
        k("    float4 v = (float4)(0.0f);\n    if (v) a[0] = 1;\n"),
        3,
        "statement requires expression of scalar type ('float4' (vector of 4 'float' values) invalid)",
        id="vector-condition",
    ),
    pytest.param(
        k("    int x;\n    atomic_add(&x, 1);\n"),
        3,
        "'atomic_add' needs a pointer to __global or __local memory",
        id="private-atomic",
    ),
    pytest.param(
        k("    atomic_add(c, 1);\n", "__constant int* c"),
        2,
        "'atomic_add' needs a pointer to __global or __local memory, not __constant",
        id="constant-atomic",
    ),
    pytest.param(
        k("    float4 v = vload4(0, n);\n"),
        2,
        "no matching function for call to 'vload4'",
        id="vload-non-pointer",
    ),
    pytest.param(
        k("    vstore4((float4)(0.0f), 0, c);\n", "__constant float* c"),
        2,
        "no matching function for call to 'vstore4'",
        id="vstore-constant",
    ),
    pytest.param(
        k("    int2 v = convert_int2((float4)(0.0f));\n"),
        2,
        "no matching function for call to 'convert_int2'",
        id="convert-width",
    ),
    pytest.param(
        k("    a[0] = convert_float_sat(1);\n"),
        2,
        "'convert_float_sat': saturation applies only to integer destinations",
        id="convert-float-sat",
    ),
    pytest.param(
        k("    int x = as_int((float2)(0.0f));\n"),
        2,
        "invalid reinterpretation: sizes of 'int' and 'float2' (vector of 2 'float' values) must match",
        id="as-size",
    ),
    pytest.param(
        k("    int4 i = (int4)(1);\n    float4 f = (float4)i;\n"),
        3,
        "invalid conversion between ext-vector type 'float4' (vector of 4 'float' values) and 'int4'",
        id="vector-cast",
    ),
    pytest.param(
        k('    _Static_assert(sizeof(float4) == 8, "four floats");\n'),
        2,
        'static assertion failed: "four floats"',
        id="static-assert",
    ),
    pytest.param(
        k("    float x = 1.0f;\n    a[x] = 1;\n"), 3, "array subscript is not an integer", id="float-subscript"
    ),
]


@pytest.mark.parametrize(("source", "line", "message"), REJECTED)
def test_rejected_constructs(source: str, line: int, message: str) -> None:
    errors = errors_at(source)
    assert any(message in m and at == line for at, m in errors), errors


def test_rejected_messages_are_compiler_style_with_columns() -> None:
    log = build_log(k("    goto done;\n    a[0] = unknown;\n"))
    assert log.splitlines() == [
        "kernel.cl:2:10: error: use of undeclared label 'done'",
        "kernel.cl:3:12: error: use of undeclared identifier 'unknown'",
    ]


def test_recursion_through_three_functions_is_reported_once() -> None:
    source = """\
    int c(int n);
    int a(int n) { return n ? c(n - 1) : 0; }
    int b(int n) { return a(n); }
    int c(int n) { return b(n); }
    __kernel void k(__global int* out) { out[0] = a(3); }
    """
    errors = errors_at(source)
    assert errors == [(2, "recursion is not supported: 'a' -> 'c' -> 'b' -> 'a'")]


def test_non_recursive_call_chains_are_fine() -> None:
    compile_ok(
        """\
        int leaf(int x) { return x + 1; }
        int mid(int x) { return leaf(x) + leaf(x); }
        int top(int x) { return mid(x) * leaf(x); }
        __kernel void k(__global int* out) { out[0] = top(1) + mid(2); }
        """
    )


# ---------------------------------------------------------------------------------------------------------------
# Syntax errors and collecting every problem


def test_parse_error_in_compiler_style() -> None:
    log = build_log(
        """\
        __kernel void k(__global float* a) {
            a[0] = 1 +* ;
        }
        """
    )
    assert log == "kernel.cl:2:17: error: expected expression"


def test_parse_error_missing_semicolon_points_after_the_last_token() -> None:
    assert errors_at("__kernel void k(__global float* a) {\n    a[0] = 1\n    a[1] = 2;\n}\n") == [
        (2, "expected ';' after expression")
    ]


def test_parse_error_at_end_of_input() -> None:
    errors = errors_at("__kernel void k(__global float* a) {\n    a[0] = 1;\n")
    assert errors == [(2, "expected '}'")]


def test_lexer_error() -> None:  # (Clang's words for an unknown token: test_kernel_syntax_errors.py)
    assert errors_at("__kernel void k(__global float* a) {\n    a[0] = 1 @ 2;\n}\n") == [
        (2, "expected ';' after expression"),
        (2, "expected expression"),  # (Clang parses on at '@': clang-15's second error)
    ]


def test_many_errors_in_one_log() -> None:
    source = """\
    int fact(int n) { return n ? n * fact(n - 1) : 1; }
    __kernel void first(__global float* a) {
        a[0] = 1 +* ;
    }
    __kernel void second(__global float* a, float* p) {
        a[0] = unknown_one;
        goto out;
    }
    __kernel void third(__global float* a) {
        a[0] = 2
    }
    __kernel void fourth(__global float* a) {
        a[0] = fact(1, 2) + unknown_two;
    }
    """
    log = build_log(source)
    assert log.splitlines() == [
        "kernel.cl:1:5: error: recursion is not supported: 'fact' calls itself",
        "kernel.cl:3:17: error: expected expression",
        "kernel.cl:5:48: error: pointer arguments to kernel functions must reside in '__global', '__constant' or "
        "'__local' address space",
        "kernel.cl:6:12: error: use of undeclared identifier 'unknown_one'",
        "kernel.cl:7:10: error: use of undeclared label 'out'",
        "kernel.cl:10:13: error: expected ';' after expression",
        "kernel.cl:13:20: error: too many arguments to function call, expected single argument 'n', have 2 arguments",
        "kernel.cl:13:25: error: use of undeclared identifier 'unknown_two'",
    ]


def test_a_function_that_failed_to_parse_does_not_cascade() -> None:
    source = """\
    float helper(float x) {
        return x +* ;
    }
    __kernel void k(__global float* a) {
        a[0] = helper(1.0f);
    }
    """
    assert errors_at(source) == [(2, "expected expression")]


def test_a_missing_opening_brace_does_not_cascade() -> None:
    source = (
        "__kernel void k(__global float* a)\n"
        "    int i = get_global_id(0);\n"
        "    a[i] = 1;\n"
        "}\n"
        "__kernel void k2(__global float* a) { a[0] = nope; }\n"
    )
    assert errors_at(source) == [
        (1, "invalid function definition"),
        (5, "use of undeclared identifier 'nope'"),
    ]


def test_errors_are_collected_in_indented_sources_too() -> None:
    # e.g. a kernel written in an indented Python triple-quoted string
    source = (
        "    __kernel void k(__global float* a) {\n"
        "        a[0] = 1 +* ;\n"
        "    }\n"
        "    __kernel void k2(__global float* a) {\n"
        "        a[0] = nope;\n"
        "    }\n"
    )
    with pytest.raises(KernelCompileError) as info:
        compile_source(source)
    assert info.value.build_log.splitlines() == [
        "kernel.cl:2:21: error: expected expression",
        "kernel.cl:5:16: error: use of undeclared identifier 'nope'",
    ]


def test_compile_error_carries_source_options_and_diagnostics() -> None:
    with pytest.raises(KernelCompileError) as info:
        compile_source("__kernel void k(__global int* a) { a[0] = x; }", "-DFOO=1")
    e = info.value
    assert e.source.startswith("__kernel") and e.options == "-DFOO=1"
    assert [(d.line, d.column) for d in e.diagnostics] == [(1, 43)]
    assert str(e) == e.build_log


def test_empty_source_compiles_to_no_kernels() -> None:
    program = compile_source("")
    assert program.kernels == {} and program.functions == {}
    with pytest.raises(KernelNotFound, match="none"):
        program.kernel("k")


# ---------------------------------------------------------------------------------------------------------------
# What the executor relies on


def test_ast_shapes_the_executor_walks() -> None:
    program = compile_ok(
        """\
        __kernel void k(__global float4* v, __local float* s) {
            float4 x = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
            float2 y = x.xy + x.s01;
            s[0] = (float)(1.0f, 2.0f);
        }
        """
    )
    kernel = program.kernel("k")
    param = kernel.node.decl.type.args.params[0]
    assert "__global" in param.quals  # address spaces stay in Decl.quals (and the inner TypeDecl's)
    items = kernel.node.body.block_items
    literal = items[0].init
    assert isinstance(literal, c_ast.Cast) and isinstance(literal.expr, c_ast.ExprList)
    assert len(literal.expr.exprs) == 4
    swizzle = items[1].init.left
    assert isinstance(swizzle, c_ast.StructRef) and swizzle.type == "." and swizzle.field.name == "xy"
    comma = items[2].rvalue
    assert isinstance(comma, c_ast.Cast) and isinstance(comma.expr, c_ast.ExprList)  # a scalar cast of a comma
    assert all(getattr(n.coord, "file", None) != "<builtins>" for n in program.ast.ext)  # the prelude is gone


@pytest.mark.parametrize(
    ("name", "width", "indices"),
    [
        ("x", 4, (0,)),
        ("wzyx", 4, (3, 2, 1, 0)),
        ("s0", 2, (0,)),
        ("sF", 16, (15,)),
        ("s0123", 8, (0, 1, 2, 3)),
        ("lo", 8, (0, 1, 2, 3)),
        ("hi", 4, (2, 3)),
        ("even", 4, (0, 2)),
        ("odd", 16, (1, 3, 5, 7, 9, 11, 13, 15)),
        ("lo", 3, (0, 1)),
        ("even", 3, (0, 2)),
        ("xyz", 3, (0, 1, 2)),
    ],
)
def test_swizzle_indices(name: str, width: int, indices: tuple[int, ...]) -> None:
    assert swizzle_indices(name, width) == indices


@pytest.mark.parametrize(("name", "width"), [("w", 3), ("s4", 4), ("xs", 4), ("s", 4), ("xyzwx", 4)])
def test_invalid_swizzles(name: str, width: int) -> None:
    with pytest.raises(ValueError):
        swizzle_indices(name, width)


def test_hi_and_odd_of_three_components_name_the_undefined_w() -> None:
    """OpenCL C 1.2 6.1.7: a 3-component vector's .lo/.hi/.even/.odd are those of a 4-component one."""
    assert [swizzle_indices(h, 3) for h in ("lo", "hi", "even", "odd")] == [(0, 1), (2, 3), (0, 2), (1, 3)]


_TOKENS = st.sampled_from(
    [
        "__kernel",
        "void",
        "k",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        ";",
        ",",
        "__global",
        "__local",
        "float",
        "float4",
        "int",
        "*",
        "a",
        "b",
        "=",
        "+",
        "1",
        "2.0f",
        "if",
        "for",
        "return",
        ".x",
        "get_global_id",
        "#define X 1\n",
        "X",
        "\n",
        "struct",
        "goto",
        "switch",
        "case",
        ":",
        "'",
        '"',
        "/*",
        "*/",
        "\\\n",
        "#if 1\n",
        "#endif\n",
        "#define P(a, b) a ## b\n",
        "#define S(x) # x\n",
        "P(",
        "S(",
        "##",
        "* __local",
        "lbl:",
        "goto lbl;",
        "(float2){",
        "&&",
        "__alignof__(",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_TOKENS, max_size=40))
def test_arbitrary_token_soup_gives_a_program_or_a_compile_error(tokens: list[str]) -> None:
    source = " ".join(tokens)
    try:
        compile_source(source)
    except KernelCompileError as e:
        assert e.build_log
        for line in e.build_log.splitlines():
            assert LOG_LINE.match(line), line


def test_the_kernel_corpus_compiles_with_the_parameters_its_cases_pass() -> None:
    """Every kernel of tests/kernels/corpus and bugs compiles, and the parameters the front end extracts are the
    arguments each case passes: same names in the same order, buffers where it passes arrays (of the element
    type the kernel reads), __local pointers where it passes sizes, values where it passes scalars."""
    corpus = pytest.importorskip("kernels.corpus")
    for case in [*corpus.CASES, *corpus.BUGS]:
        program = compile_source(case.source(), case.options, case.file)
        kernel = program.kernel(case.kernel)
        args = case.make(np.random.default_rng(0)).args
        assert [p.name for p in kernel.params] == list(args), case.name
        for p in kernel.params:
            arg = args[p.name]
            if isinstance(arg, corpus.Buffer):
                assert (p.kind, p.address_space) == ("buffer", arg.space), (case.name, p)
                if p.type.target is not None and p.type.target.kind == "struct":  # structs: the bytes match
                    assert arg.array.nbytes % size_align(p.type.target, program.types)[0] == 0, (case.name, p)
                else:
                    assert arg.array.dtype == np.dtype(_NUMPY_TYPES[p.elem_type]), (case.name, p)
                assert arg.access == "in" or not p.const, (case.name, p)
            elif isinstance(arg, corpus.Local):
                assert p.kind == "local", (case.name, p)
            elif isinstance(arg, corpus.Null | corpus.Span):
                assert p.kind == "buffer", (case.name, p)
            elif p.nbytes is not None:  # a struct by value: a structured scalar of its size
                assert p.kind == "scalar" and np.dtype(arg.dtype).itemsize == p.nbytes, (case.name, p)
            else:
                assert p.kind == "scalar" and np.dtype(arg.dtype) == np.dtype(_NUMPY_TYPES[p.elem_type]), (case.name, p)
                assert np.size(arg.value) in (1, p.vector_width), (case.name, p)


_NUMPY_TYPES = {
    "char": np.int8,
    "uchar": np.uint8,
    "short": np.int16,
    "ushort": np.uint16,
    "int": np.int32,
    "uint": np.uint32,
    "long": np.int64,
    "ulong": np.uint64,
    "half": np.float16,
    "float": np.float32,
    "double": np.float64,
}


def test_kernels_package_does_not_import_the_hal() -> None:
    code = "import sys, wia_sim.kernels; assert not any(m.startswith('wia_hal') for m in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_if_expressions_clang_takes_with_a_warning_or_without_a_word() -> None:
    """A shift past intmax_t's width is Clang's warning "integer overflow in preprocessor expression" at the operator,
    and 0 (the simulator refused it: "shift count out of range"); a literal past 64 bits is taken as Clang takes it
    in ``#if``, without a word, its low 64 bits (the simulator refused it: "integer constant is too large")."""
    shifted = preprocess("#if 1 << 128\nyes\n#else\nno\n#endif\n")
    assert not shifted.errors
    assert [(d.line, d.column, d.message) for d in shifted.warnings] == [
        (1, 7, "integer overflow in preprocessor expression")
    ]
    assert "no" in shifted.text and "yes" not in shifted.text
    large = preprocess("#if 99999999999999999999\nyes\n#endif\n")
    assert not large.diagnostics and "yes" in large.text
