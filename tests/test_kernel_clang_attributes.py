# ruff: noqa: E501  (each expected line is one of Clang's log, whole)
"""Clang's warning for an attribute it does not know (``clang_attributes.py``; -Wunknown-attributes, on by
default in PoCL 3.1's and Oclgrind 21.10's front end): the attribute is dropped and the program builds. And GNU
attributes before a statement (``__attribute__((fallthrough));``), which the simulator refused as a declaration
without a type, where Clang judges each (``check_statements.attributed``). clFFT's
generated kernels put ``__attribute__((max_constant_size(N)))`` on their ``__constant`` parameters; the simulator's
build log said nothing of them. Every expected line is ``clang-15 -cc1 -x cl -cl-std=CL1.2 -triple spir64``'s, by
script: the name as written, the place (an attribute a macro's replacement list names is at the macro's name, one
from a macro's argument where the argument is), and nothing for a known attribute, whatever its spelling."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import refused_log, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.clang_attributes import KNOWN, normalized, unknown_attributes
from wia_sim.kernels.program import KernelCompileError

ATTRIBUTES = (
    "#define ATTR __attribute__((macro_attr))\n"
    "#define WRAP(x) __attribute__((x))\n"
    "typedef struct { int a __attribute__((member_attr)); float b; } S __attribute__((__typedef_attr__));\n"
    "__constant int g __attribute__((unknown_one, __aligned__(4), __other__)) = 3;\n"
    "ATTR int helper(int x) { return x; }\n"
    "WRAP(wrapped) int helper2(int x) __attribute__((const, __pure__, , noduplicate));\n"
    "int helper2(int x) { return x; }\n"
    "__kernel void k(__global float* out __attribute__((max_constant_size(16))),\n"
    "                __constant int* c __attribute__ ((max_constant_size (16 * (2)),\n"
    "                                                  endian(host))))\n"
    "__attribute__((reqd_work_group_size(1,1,1))) __attribute__((bogus))\n"
    "{\n"
    "    int v __attribute__((var_attr)) = 1;\n"
    '    printf("__attribute__((in_a_string)) %d\\n", v);\n'
    "    out[0] = v + helper(1) + helper2(2) + c[0] + g;\n"
    "}\n"
)
CLANG = [
    "3:39: warning: unknown attribute 'member_attr' ignored",
    "3:82: warning: unknown attribute '__typedef_attr__' ignored",
    "4:33: warning: unknown attribute 'unknown_one' ignored",
    "4:62: warning: unknown attribute '__other__' ignored",
    "5:1: warning: unknown attribute 'macro_attr' ignored",
    "6:6: warning: unknown attribute 'wrapped' ignored",
    "8:52: warning: unknown attribute 'max_constant_size' ignored",
    "9:51: warning: unknown attribute 'max_constant_size' ignored",
    "10:51: warning: unknown attribute 'endian' ignored",
    "11:61: warning: unknown attribute 'bogus' ignored",
    "13:26: warning: unknown attribute 'var_attr' ignored",
]


def test_unknown_attributes_are_clangs_warnings() -> None:
    """Members, typedefs, program-scope variables, functions (before the declarator and after the parameters),
    kernel parameters, locals; lists over several lines, empty entries, arguments with brackets; one in a string
    literal is text."""
    assert compile_source(ATTRIBUTES).build_log.splitlines() == [f"kernel.cl:{line}" for line in CLANG]


def test_werror_makes_them_errors_and_w_drops_them() -> None:
    source = "__kernel void k(__global int* o) __attribute__((bogus)) { o[0] = 1; }\n"
    assert compile_source(source, "-w").build_log == ""
    with pytest.raises(KernelCompileError, match=r"kernel\.cl:1:49: error: unknown attribute 'bogus' ignored"):
        compile_source(source, "-Werror")


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")
def test_every_device_builds_and_runs_past_them(device_ctx: wia.Context) -> None:
    out, c = np.zeros(1, np.float32), np.array([5], np.int32)
    out, _ = run_arrays(device_ctx, ATTRIBUTES, "k", [out, c], 1, 1)
    assert out.tolist() == [1 + 1 + 2 + 5 + 3]


@pytest.mark.parametrize(
    "name",
    [
        "aligned",
        "__aligned__",
        "const",
        "__const__",
        "packed",
        "nosvm",
        "overloadable",
        "noduplicate",
        "convergent",
        "opencl_unroll_hint",
        "device",
        "objc_root_class",
        "interrupt",
    ],
)
def test_known_names_in_any_spelling_are_silent(name: str) -> None:
    assert normalized(name) in KNOWN
    assert unknown_attributes(f"int v __attribute__(({name}));") == []


STATEMENT_ATTRIBUTES = (
    "void g(void) {}\n"
    "int h(int x) { __attribute__((musttail)) g(); return x; }\n"
    "__kernel void k(__global int* out, int n) {\n"
    "    int v = 0;\n"
    "    switch (n) { case 0: __attribute__((fallthrough)) v++; case 1: v++; }\n"
    "    __attribute__((nomerge)) { v++; }\n"
    "    __attribute__((nomerge)) { g(); }\n"
    "    __attribute__((__nomerge__)) v = v + 1;\n"
    "    __attribute__((noinline)) v++;\n"
    "    __attribute__((always_inline)) g();\n"
    "    __attribute__((__packed__)) ;\n"
    "    for (int i = 0; i < n; i++) { if (i) __attribute__((fallthrough)); }\n"
    "    switch (n) { case 0: for (;;) { __attribute__((fallthrough)); } case 1: break; }\n"
    "    __attribute__((aligned(4), nomerge, foo)) v++;\n"
    "    if (n) __attribute__((bar)) v++; else __attribute__((assume)) v--;\n"
    "    out[0] = v;\n"
    "}\n"
)
STATEMENT_CLANG = [
    "2:31: error: 'musttail' attribute only applies to return statements",
    "5:41: error: 'fallthrough' attribute only applies to empty statements",
    "6:30: warning: 'nomerge' attribute is ignored because there exists no call expression inside the statement",
    "8:34: warning: '__nomerge__' attribute is ignored because there exists no call expression inside the statement",
    "9:31: warning: attribute is ignored on this statement as it only applies to functions; use '[[clang::noinline]]' on statements",
    "10:36: warning: attribute is ignored on this statement as it only applies to functions; use '[[clang::always_inline]]' on statements",
    "11:20: error: '__packed__' attribute cannot be applied to a statement",
    "12:57: error: fallthrough annotation is outside switch statement",
    "12:70: warning: if statement has empty body",
    "14:20: error: 'aligned' attribute cannot be applied to a statement",
    "14:47: warning: 'nomerge' attribute is ignored because there exists no call expression inside the statement",
    "14:41: warning: unknown attribute 'foo' ignored",
    "15:27: warning: unknown attribute 'bar' ignored",
    "15:58: error: 'assume' attribute cannot be applied to a statement",
]


def test_statement_attributes_are_judged_as_clang_judges_them() -> None:
    """``fallthrough`` on a statement that is not empty or outside a switch, ``musttail`` off a ``return``, a
    declaration's attribute on a statement: errors at the attribute; ``nomerge`` with no call, ``noinline`` and
    ``always_inline``: warnings at the statement, in the attributes' order (an unknown one's too)."""
    assert refused_log(STATEMENT_ATTRIBUTES) == [f"kernel.cl:{line}" for line in STATEMENT_CLANG]


def test_attributes_before_a_loop_or_branch_body_are_judged_too() -> None:
    source = (
        "void g(void) {}\n"
        "__kernel void k(__global int* out, int n) {\n"
        "    int v = 0;\n"
        "    for (int i = 0; i < n; i++) __attribute__((aligned(4))) { v++; }\n"
        "    while (v < 3) __attribute__((nomerge)) { v++; }\n"
        "    if (n) __attribute__((__packed__)) { g(); }\n"
        "    out[0] = v;\n"
        "}\n"
    )
    assert refused_log(source) == [
        "kernel.cl:4:48: error: 'aligned' attribute cannot be applied to a statement",
        "kernel.cl:5:44: warning: 'nomerge' attribute is ignored because there exists no call expression inside the statement",
        "kernel.cl:6:27: error: '__packed__' attribute cannot be applied to a statement",
    ]


ATTRIBUTED_STATEMENTS = """
int twice(int x) { return 2 * x; }
__kernel void k(__global int* out, __global const int* in, __global const int* sel) {
    const int i = get_global_id(0);
    int v = in[i];
    int w = 0;
    switch (sel[i]) {  /* (not v & 3: Oclgrind 21.10 takes the default of a switch LLVM narrows to 2 bits) */
    case 0:
        w += v >> 4;
        __attribute__((fallthrough));
    case 1:
        w += 10 * (v >> 8);
        __attribute__((__fallthrough__));
    case 2:
        w += 100 * (v >> 12);
        break;
    default:
        __attribute__((nomerge)) w = twice(w + 1000);
    }
    for (int j = 0; j < (v & 7); j++) __attribute__((unrolled_please)) { w = 3 * w + j; }
    __attribute__((nomerge)) out[i] = twice(w);
}
"""


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")
def test_attributed_statements_run_as_written(device_ctx: wia.Context) -> None:
    rng = np.random.default_rng(5)
    data, sel = rng.integers(0, 1 << 16, 64).astype(np.int32), rng.integers(0, 5, 64).astype(np.int32)
    out, _, _ = run_arrays(device_ctx, ATTRIBUTED_STATEMENTS, "k", [np.zeros(64, np.int32), data, sel], 64, 16)
    expected = []
    for v, case in zip(data.tolist(), sel.tolist(), strict=True):
        parts = [v >> 4, 10 * (v >> 8), 100 * (v >> 12)]
        w = sum(parts[case:]) if case < 3 else 2 * 1000
        for j in range(v & 7):
            w = 3 * w + j
        expected.append(2 * w)
    assert out.tolist() == expected
