"""Clang's warnings for work a statement throws away (``check_unused.py``), on by default in PoCL 3.1's and
Oclgrind 21.10's front end: ``x == 1;`` (meant ``x = 1``?), an expression statement without effect, a built-in of
values whose result is dropped, a comma operator's left operand without effect, ``if (c);``. The simulator said
nothing of them. Every expected line is ``clang-15 -cc1 -x cl -cl-std=CL1.2 -triple spir64``'s, by script: the
words, the place (an operator, a subscript's ``]``, a member's name), and the order (Clang gives "expression result
unused" once the function is checked, the others at once); its notes aside."""

from __future__ import annotations

import pytest

import wia_hal as wia
from wia_sim.kernels import compile_source

UNUSED = (
    "#define ID(a) a\n"
    "#define IS0(a) a == 0\n"
    "#define VAL 5\n"
    "typedef struct { int a; int4 v; } S;\n"
    "int twice(int a) { return 2 * a; }\n"
    "__kernel void k(__global int* o, __global float* fp, int n) {\n"
    "    int x = n;\n"
    "    float f = n;\n"
    "    S s;\n"
    "    s.a = n;\n"
    "    s.v = (int4)(n);\n"
    "    x == 1;\n"
    "    x < n;\n"
    "    ((x == 1));\n"
    "    x + 1;\n"
    "    o[n];\n"
    "    s.a;\n"
    "    s.v.x;\n"
    "    -x;\n"
    "    sizeof(int);\n"
    "    (int)f;\n"
    "    (void)f;\n"
    "    x ? 1 : 2;\n"
    "    x ? 1 : twice(2);\n"
    "    x && 1;\n"
    "    x && twice(1);\n"
    "    x == 1, x = 2;\n"
    "    twice(x), x;\n"
    "    x, n = 1;\n"
    "    sin(f);\n"
    "    get_global_id(0);\n"
    "    vload4(0, fp);\n"
    "    as_int(f);\n"
    "    atomic_inc(o);\n"
    "    fract(f, fp);\n"
    "    twice(x);\n"
    "    ID(x);\n"
    "    ID(x == 1);\n"
    "    IS0(x);\n"
    "    VAL;\n"
    "    for (x; x < n; x++) {}\n"
    "    for (; x < n; x + 1) {}\n"
    "    while (x == 1, x < n) x++;\n"
    "    if (x < n) ;\n"
    "    if (x < n); else x++;\n"
    "    o[0] = x + s.a;\n"
    "}\n"
)


def test_results_nothing_uses_are_clangs_warnings() -> None:
    """Not for a call of the program's functions, an atomic, a store through a pointer (``fract``), ``as_type``,
    ``(void)``, an assignment, ``?:`` or ``&&`` with an effect on a side, nor where a macro's own tokens are the
    place (``IS0(x);``, ``VAL;``: a macro's argument is the user's, ``ID(x == 1);``)."""
    assert compile_source(UNUSED).build_log.splitlines() == [
        "kernel.cl:12:7: warning: equality comparison result unused",
        "kernel.cl:13:7: warning: relational comparison result unused",
        "kernel.cl:25:7: warning: use of logical '&&' with constant operand",
        "kernel.cl:27:7: warning: equality comparison result unused",
        "kernel.cl:30:5: warning: ignoring return value of function declared with const attribute",
        "kernel.cl:31:5: warning: ignoring return value of function declared with const attribute",
        "kernel.cl:32:5: warning: ignoring return value of function declared with pure attribute",
        "kernel.cl:38:10: warning: equality comparison result unused",
        "kernel.cl:43:14: warning: equality comparison result unused",
        "kernel.cl:44:16: warning: if statement has empty body",
        "kernel.cl:14:9: warning: expression result unused",
        "kernel.cl:15:7: warning: expression result unused",
        "kernel.cl:16:8: warning: expression result unused",
        "kernel.cl:17:7: warning: expression result unused",
        "kernel.cl:18:5: warning: expression result unused",
        "kernel.cl:19:5: warning: expression result unused",
        "kernel.cl:20:5: warning: expression result unused",
        "kernel.cl:21:5: warning: expression result unused",
        "kernel.cl:23:13: warning: expression result unused",
        "kernel.cl:25:7: warning: expression result unused",
        "kernel.cl:28:15: warning: expression result unused",
        "kernel.cl:29:5: warning: left operand of comma operator has no effect",
        "kernel.cl:37:8: warning: expression result unused",
        "kernel.cl:41:10: warning: expression result unused",
        "kernel.cl:42:21: warning: expression result unused",
    ]


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")
def test_every_device_builds_the_unused_results(device_ctx: wia.Context) -> None:
    wia.compile_kernel(device_ctx, UNUSED, "k", options="-cl-std=CL1.2")


def test_a_loop_whose_empty_body_the_next_statement_looks_like_is_clangs_warning() -> None:
    """Clang's -Wempty-body for loops: a ``;`` body on the line of the loop's closing bracket, the next statement a
    block or further right than the loop (an oversight, most likely: Clang's words); a spin whose next statement
    starts a line at the loop's own column, or a ``;`` on a line of its own, says nothing."""
    source = (
        "__kernel void k(__global int* flag, __global int* out, int n) {\n    int x = 0;\n"
        "    while (atomic_add(flag, 0) == 0) ; out[0] = 1;\n"
        "    for (; x < n; x++) ;\n        out[1] = x;\n"
        "    for (; x < n; x++) ;\n    out[2] = x;\n"
        "    while (x < n) ; { x++; }\n"
        "    while (x < n)\n        ;\n    x++;\n"
        "    for (x = 0; x < n; x++);\n}\n"
    )
    assert compile_source(source).build_log.splitlines() == [
        "kernel.cl:3:38: warning: while loop has empty body",
        "kernel.cl:4:24: warning: for loop has empty body",
        "kernel.cl:8:19: warning: while loop has empty body",
    ]
