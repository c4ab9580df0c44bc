# ruff: noqa: E501  (each expected line is one of Clang's log, whole)
"""Clang's -Wunsequenced (``check_sequence.py``) and -Wunevaluated-expression, on by default in PoCL 3.1's and Oclgrind 21.10's front end: a
variable modified twice, or modified and read, where C orders neither before the other (C99 6.5p2, undefined
behaviour). The simulator's build log said nothing of ``i = i++`` or ``a[i] = i++``. Every expected line is
``clang-15 -cc1 -x cl -cl-std=CL1.2 -triple spir64``'s, by script: which expressions (the comma, ``&&``, ``||`` and
``?:`` order their operands, a constant condition leaves a side unlooked at, a call orders its arguments before
it, only variables count), the place (the modification: its ``++`` or ``=``), the words, and the order (once the
function is checked). And a side effect in an operand nothing evaluates (``sizeof(i++)``: "expression with
side effects has no effect in an unevaluated context"), with ``_Alignof`` of an expression's GNU extension
warning."""

from __future__ import annotations

import pytest

from wia_sim.kernels import compile_source
from wia_sim.kernels.program import KernelCompileError

STATEMENTS = (
    "typedef struct { int a; int b; } S;\n"
    "int f(int x, int y) { return x + y; }\n"
    "__kernel void k(__global int* out, int n) {\n"
    "    int i = n, j = n, x = 0;\n"
    "    int arr[8] = {0};\n"
    "    S s; s.a = 1; s.b = 2;\n"
    "    i = i++;\n"
    "    out[i] = i++;\n"
    "    x = i++ + i++;\n"
    "    x = f(i++, i);\n"
    "    i = i + 1;\n"
    "    i += i++;\n"
    "    x = (i++, i);\n"
    "    x = i++ && i;\n"
    "    x = i ? i++ : i;\n"
    "    x = i++ ? i : 0;\n"
    "    arr[i] = i;\n"
    "    arr[i++] = i;\n"
    "    x = ++i + i;\n"
    "    i = ++i;\n"
    "    x = (i = 1) + i;\n"
    "    x = (i = 1) + (i = 2);\n"
    "    s.a = s.a++;\n"
    "    x = s.a++ + s.b++;\n"
    "    x = s.a++ + s.a;\n"
    "    out[j++] = out[j];\n"
    "    x = j++ * j--;\n"
    "    j = j-- - 1;\n"
    "    x = f(j = 1, j = 2);\n"
    "    x = i++ + f(i, 0);\n"
    "    x = (i++) + (i);\n"
    "    x = (x = 2);\n"
    "    x = x++ , x++;\n"
    "    int y = y++ + 1;\n"
    "    i++ + i++;\n"
    "    out[0] = x + i + j + y + arr[0] + s.a;\n"
    "}\n"
)
STATEMENTS_CLANG = [
    "7:10: warning: multiple unsequenced modifications to 'i'",
    "8:15: warning: unsequenced modification and access to 'i'",
    "9:10: warning: multiple unsequenced modifications to 'i'",
    "10:12: warning: unsequenced modification and access to 'i'",
    "12:11: warning: unsequenced modification and access to 'i'",
    "18:10: warning: unsequenced modification and access to 'i'",
    "19:9: warning: unsequenced modification and access to 'i'",
    "20:9: warning: multiple unsequenced modifications to 'i'",
    "21:12: warning: unsequenced modification and access to 'i'",
    "22:12: warning: multiple unsequenced modifications to 'i'",
    "26:10: warning: unsequenced modification and access to 'j'",
    "27:10: warning: multiple unsequenced modifications to 'j'",
    "28:10: warning: multiple unsequenced modifications to 'j'",
    "29:13: warning: multiple unsequenced modifications to 'j'",
    "30:10: warning: unsequenced modification and access to 'i'",
    "31:11: warning: unsequenced modification and access to 'i'",
    "32:12: warning: multiple unsequenced modifications to 'x'",
    "33:10: warning: multiple unsequenced modifications to 'x'",
    "35:9: warning: expression result unused",
    "35:6: warning: multiple unsequenced modifications to 'i'",
]

PLACES = (
    "int f(int x, int y) { return x + y; }\n"
    "int g(__private int* p) { return *p; }\n"
    "__kernel void k(__global int* out, int n) {\n"
    "    int i = n, j = n, x = 0;\n"
    "    int a2[2] = {i++, i++};\n"
    "    int y = i++ + i;\n"
    "    if (j++ < j) x++;\n"
    "    while (j-- > j) x++;\n"
    "    for (x = i++ + i; x < i++ - i; x += x++) {}\n"
    "    x = 1 && i++ ? i : 0;\n"
    "    x = 0 && i++ + i++;\n"
    "    x = 1 || i++ + i++;\n"
    "    x = (0 ? i++ : 1) + i++;\n"
    "    x = g(&i) + i++;\n"
    "    x = f(i++, 1) + i;\n"
    "    x = f(i, 1) + i++;\n"
    "    x = out[i] + (i = 2);\n"
    "    __global int* p = out;\n"
    "    x = *p++ + p[0];\n"
    "    p[x++] = x;\n"
    "    x = sizeof(i++) + i++;\n"
    "    float4 v = (float4)(1.0f);\n"
    "    v.x = v.x++;\n"
    "    x = (int)(i++) + (int)i;\n"
    "    x = -(i++) + i;\n"
    "    x = i++ + (j++, i);\n"
    "    switch (i++ + i) { default: break; }\n"
    "    out[0] = x + a2[0] + y + i + j + (int)v.x;\n"
    "    return;\n"
    "}\n"
    "int h(int i) { return i++ + i; }\n"
)
PLACES_CLANG = [
    "21:15: warning: expression with side effects has no effect in an unevaluated context",
    "5:19: warning: multiple unsequenced modifications to 'i'",
    "6:14: warning: unsequenced modification and access to 'i'",
    "7:10: warning: unsequenced modification and access to 'j'",
    "8:13: warning: unsequenced modification and access to 'j'",
    "9:15: warning: unsequenced modification and access to 'i'",
    "9:28: warning: unsequenced modification and access to 'i'",
    "9:42: warning: unsequenced modification and access to 'x'",
    "15:12: warning: unsequenced modification and access to 'i'",
    "16:20: warning: unsequenced modification and access to 'i'",
    "17:21: warning: unsequenced modification and access to 'i'",
    "19:11: warning: unsequenced modification and access to 'p'",
    "20:8: warning: unsequenced modification and access to 'x'",
    "24:16: warning: unsequenced modification and access to 'i'",
    "25:12: warning: unsequenced modification and access to 'i'",
    "26:10: warning: unsequenced modification and access to 'i'",
    "27:14: warning: unsequenced modification and access to 'i'",
    "31:24: warning: unsequenced modification and access to 'i'",
]

KINDS = (
    "typedef struct { int a; int b; } S;\n"
    "int f(int x) { return x; }\n"
    "__constant int G = 3;\n"
    "__kernel void k(__global int* out, int n, __global S* sp) {\n"
    "    int i = n, j = n, x = 0;\n"
    "    int4 v4 = (int4)(i++, i, 0, 0);\n"
    "    float2 v2 = (float2)(i++, i++);\n"
    "    x = ++i + ++i;\n"
    "    i = i--;\n"
    "    x = (i += 1) + i;\n"
    "    x = f(i++) + f(i++);\n"
    "    x = f(i++) + f(i);\n"
    "    x = sp++->a + sp->b;\n"
    "    sp->a = sp++->b;\n"
    "    x = G + G++;\n"
    "    x = (x = 1, x) + 1;\n"
    "    x = ({ int t = i++; t + i++; }) + i;\n"
    "    out[i++] = out[i++];\n"
    "    x = i-- + (i ? 1 : i++);\n"
    "    x = (i++ ? 2 : 3) + i;\n"
    "    x = out[0] ? i++ : i--;\n"
    "    j = (j = 1);\n"
    "    j += (j = 1);\n"
    "    out[0] = x + i + j + v4.x + (int)v2.x;\n"
    "}\n"
)
KINDS_CLANG = [
    "15:14: error: read-only variable is not assignable",
    "6:23: warning: unsequenced modification and access to 'i'",
    "7:27: warning: multiple unsequenced modifications to 'i'",
    "8:9: warning: multiple unsequenced modifications to 'i'",
    "9:10: warning: multiple unsequenced modifications to 'i'",
    "10:12: warning: unsequenced modification and access to 'i'",
    "11:12: warning: multiple unsequenced modifications to 'i'",
    "12:12: warning: unsequenced modification and access to 'i'",
    "13:11: warning: unsequenced modification and access to 'sp'",
    "14:15: warning: unsequenced modification and access to 'sp'",
    "18:10: warning: multiple unsequenced modifications to 'i'",
    "19:10: warning: unsequenced modification and access to 'i'",
    "20:11: warning: unsequenced modification and access to 'i'",
    "22:12: warning: multiple unsequenced modifications to 'j'",
    "23:13: warning: unsequenced modification and access to 'j'",
]


def _log(source: str) -> list[str]:
    try:
        return compile_source(source).build_log.splitlines()
    except KernelCompileError as e:
        return str(e).splitlines()


def test_unsequenced_statements_are_clangs_warnings() -> None:
    """Expression statements: twice modified, modified and read, through calls, commas, ``&&``, ``?:``; members
    of a struct are not tracked (Clang 15 does not); a declaration's initializer reads its own variable."""
    assert _log(STATEMENTS) == [f"kernel.cl:{line}" for line in STATEMENTS_CLANG]


def test_unsequenced_in_initializers_conditions_clauses_and_returns() -> None:
    """An initializer list's parts, a variable's initializer, ``if``/``while``/``switch`` conditions, the three
    ``for`` clauses, a helper's ``return``; a constant ``&&``, ``||`` or ``?:`` leaves the side it skips unlooked
    at; ``&i`` and ``sizeof(i++)`` take no value of ``i``; a pointer's ``*p++`` and ``p[0]``."""
    assert _log(PLACES) == [f"kernel.cl:{line}" for line in PLACES_CLANG]


def test_unsequenced_vector_literals_calls_and_errors() -> None:
    """A vector literal's parts are unordered (a comma expression's are not); two calls each ordered before
    themselves but not with each other; ``p++->a`` with ``p->b``; an expression in error says nothing more."""
    assert _log(KINDS) == [f"kernel.cl:{line}" for line in KINDS_CLANG]


@pytest.mark.parametrize(
    "statement",
    [
        "i = i + 1;",
        "i += 1;",
        "x = (i++, i);",
        "x = i++ && i;",
        "x = i ? i++ : i;",
        "x = i++ ? i : 0;",
        "a[i] = i;",
        "i = (j = 1) + 1;",
        "x = f(i) + f(i);",
        "s.a = s.a++;",
    ],
)
def test_ordered_or_untracked_expressions_say_nothing(statement: str) -> None:
    source = (
        "typedef struct { int a; } S;\n"
        "int f(int v) { return v; }\n"
        f"__kernel void k(__global int* o, int n) {{ int i = n, j = n, x = 0; int a[4] = {{0}}; S s; s.a = n; {statement} o[0] = i + j + x + a[0] + s.a; }}\n"
    )
    assert compile_source(source).build_log == ""


UNEVALUATED = (
    "int f(int x) { return x; }\n"
    "__kernel void k(__global int* out, int n) {\n"
    "    int i = n;\n"
    "    int x = sizeof(i++);\n"
    "    x += sizeof i++;\n"
    "    x += sizeof((i = 2));\n"
    "    x += sizeof(f(i));\n"
    "    x += sizeof(f(i++));\n"
    "    x += vec_step(i++);\n"
    "    x += __alignof__(i++);\n"
    "    x += _Alignof(i++);\n"
    "    x += sizeof(out[i++]);\n"
    "    x += sizeof(int) + sizeof(i) + _Alignof(i) + _Alignof(int);\n"
    "    x += sizeof (i++);\n"
    "    __typeof__(i++) j = 1;\n"
    "    x += _Generic(i++, int: 1, default: 0);\n"
    "    x += sizeof(sizeof(i++));\n"
    "    float4 v = (float4)(1.0f);\n"
    "    x += vec_step(v + (float)(i++));\n"
    "    out[0] = x + i + j;\n"
    "}\n"
)
UNEVALUATED_CLANG = [
    "4:19: warning: expression with side effects has no effect in an unevaluated context",
    "5:18: warning: expression with side effects has no effect in an unevaluated context",
    "6:16: warning: expression with side effects has no effect in an unevaluated context",
    "8:16: warning: expression with side effects has no effect in an unevaluated context",
    "9:20: warning: expression with side effects has no effect in an unevaluated context",
    "10:21: warning: expression with side effects has no effect in an unevaluated context",
    "11:10: warning: '_Alignof' applied to an expression is a GNU extension",
    "11:18: warning: expression with side effects has no effect in an unevaluated context",
    "12:16: warning: expression with side effects has no effect in an unevaluated context",
    "13:36: warning: '_Alignof' applied to an expression is a GNU extension",
    "14:17: warning: expression with side effects has no effect in an unevaluated context",
    "16:20: warning: expression with side effects has no effect in an unevaluated context",
    "17:23: warning: expression with side effects has no effect in an unevaluated context",
    "19:21: warning: expression with side effects has no effect in an unevaluated context",
]


def test_side_effects_in_unevaluated_operands_are_clangs_warnings() -> None:
    """``sizeof`` (at the operand's bracket, or its operator without one), ``_Alignof`` and ``__alignof__``,
    ``vec_step`` of an expression, ``_Generic``'s controlling expression, a nested ``sizeof`` once; a call alone
    is no side effect to Clang, nor is ``__typeof__``'s operand looked at; ``_Alignof`` of an expression is also
    Clang's GNU-extension warning."""
    assert _log(UNEVALUATED) == [f"kernel.cl:{line}" for line in UNEVALUATED_CLANG]


def test_a_generic_selection_evaluates_its_chosen_association_alone() -> None:
    """``_Generic``'s controlling expression is not evaluated (the unevaluated-context warning); its chosen
    association is, unordered with the rest of the expression; the others are not."""
    source = (
        "__kernel void k(__global int* out) {\n"
        "    int i = 0;\n"
        "    int x = _Generic(i, int: i++, default: 0) + i;\n"
        "    int y = _Generic(i++, int: 1, default: 0);\n"
        "    int z = _Generic(i, float: i++, default: 0) + i;\n"
        "    out[0] = x + y + z + i;\n"
        "}\n"
    )
    assert _log(source) == [
        "kernel.cl:4:23: warning: expression with side effects has no effect in an unevaluated context",
        "kernel.cl:3:31: warning: unsequenced modification and access to 'i'",
    ]
