# ruff: noqa: E501  (the expected lines are Clang's log, whole)
"""Clang's warnings for operations that build but are suspect: a pointer compared with an integer that is no null
pointer constant ("ordered" for ``<``, ``>``, ``<=``, ``>=``) or with a pointer to another type (``void*`` compares
with any), and an integer division or remainder by a constant zero, which Clang gives once the function around it
is checked (so after the function's other warnings in the log). Every program builds on every device; on the
simulator its log is Clang's, word for word, place for place and in Clang's order (PoCL 3.1's and Oclgrind
21.10's logs, measured)."""

from __future__ import annotations

import pytest
from kernel_backends import refused_log

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.program import KernelCompileError

SOURCE = """__kernel void k(__global int* p, __global float* f, __global uint* u, __global void* v, int n) {
  if (p == 1) p[0] = 1;
  if (2 < p) p[0] = 1;
  if (p == f) p[2] = 3;
  if (p != u) p[2] = 3;
  if (p == v || p == 0 || p == (__global int*)0) p[3] = 1;
  if (p >= f) p[3] = 1;
  int a = n / 0, b = n % 0, c = n / 0u, d = 1.0f / 0, e = n / (1 - 1);
  long z = (long)p; if (p == z) p[0] = a + b + c + d + e;
  int4 q = (int4)(n) / 0; a /= 0; p[4] = a + q.x;
}
__kernel void k2(__global int* p) { p[0] = p[1] / 0; p[2] = (p == 3); }
"""

WARNINGS = [
    ("2:9", "comparison between pointer and integer ('__global int *' and 'int')"),
    ("3:9", "ordered comparison between pointer and integer ('int' and '__global int *')"),
    ("4:9", "comparison of distinct pointer types ('__global int *' and '__global float *')"),
    (
        "5:9",
        "comparison of distinct pointer types ('__global int *' and '__global uint *' (aka '__global unsigned int *'))",
    ),
    ("7:9", "comparison of distinct pointer types ('__global int *' and '__global float *')"),
    ("9:27", "comparison between pointer and integer ('__global int *' and 'long')"),
    ("8:13", "division by zero is undefined"),
    ("8:24", "remainder by zero is undefined"),
    ("8:35", "division by zero is undefined"),
    ("8:61", "division by zero is undefined"),
    ("10:29", "division by zero is undefined"),
    ("12:64", "comparison between pointer and integer ('__global int *' and 'int')"),
    ("12:49", "division by zero is undefined"),
]


def test_the_log_is_clangs() -> None:
    assert compile_source(SOURCE).build_log.splitlines() == [
        f"kernel.cl:{at}: warning: {message}" for at, message in WARNINGS
    ]


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")
def test_every_device_builds_them(device_ctx: wia.Context) -> None:
    for kernel in ("k", "k2"):
        wia.compile_kernel(device_ctx, SOURCE, kernel, options="-cl-std=CL1.2")


def test_werror_makes_them_errors() -> None:

    with pytest.raises(KernelCompileError) as info:
        compile_source("__kernel void k(__global int* p) { p[0] = p[1] / 0; }", options="-Werror")
    assert "kernel.cl:1:48: error: division by zero is undefined" in str(info.value)


BOUNDS = """typedef struct { int a[3]; float b; } S;
__constant int tbl[4] = {1, 2, 3, 4};
__kernel void k(__global int* p) {
  int arr[4] = {0}; arr[5] = 1; arr[4] = 2; __private int* q = &arr[4]; arr[-1] = 3;
  int m[2][3] = {{0}}; m[1][3] = 1; m[2][0] = 2;
  S s; s.a[3] = 1; s.a[2 + 1] = 2;
  __local float l[8]; l[8] = 1.0f;
  p[0] = tbl[4] + arr[1] + *q + p[9];
  p[1] = arr[3]; int x = 4; p[2] = arr[x];
  __private int* r = &arr[5]; p[3] = sizeof(arr[7]) + *r + (int)(&arr[4] - r) + sizeof(p[0] / 0);
  p[4] = arr[2 * 2 + 1] + arr[(int)2.0f];
}
"""

PAST = "past the end of the array (which contains"
BOUNDS_WARNINGS = [
    ("4:21", f"array index 5 is {PAST} 4 elements)"),
    ("4:33", f"array index 4 is {PAST} 4 elements)"),  # (&arr[4], one past the end, is no access)
    ("4:73", "array index -1 is before the beginning of the array"),
    ("5:24", f"array index 3 is {PAST} 3 elements)"),
    ("5:37", f"array index 2 is {PAST} 2 elements)"),
    ("6:8", f"array index 3 is {PAST} 3 elements)"),  # a member's array, a constant expression as the index
    ("6:20", f"array index 3 is {PAST} 3 elements)"),
    ("7:23", f"array index 8 is {PAST} 8 elements)"),
    ("8:10", f"array index 4 is {PAST} 4 elements)"),
    ("10:23", f"array index 5 is {PAST} 4 elements)"),  # (&arr[5] is; sizeof's operand is never evaluated)
    ("11:10", f"array index 5 is {PAST} 4 elements)"),
]


def test_constant_indices_out_of_an_array_are_clangs_warnings() -> None:
    """A constant index outside an array whose length the type gives (a private, local or __constant array, a
    member's, a row of a 2-D array), at the subscript expression's start; a pointer's index, a variable index and
    an operand of ``sizeof`` are not looked at. The kernel still builds: with checks on, running such an access is
    the out-of-bounds finding."""
    assert compile_source(BOUNDS).build_log.splitlines() == [
        f"kernel.cl:{at}: warning: {message}" for at, message in BOUNDS_WARNINGS
    ]


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")
def test_every_device_builds_the_out_of_bounds_indices(device_ctx: wia.Context) -> None:
    wia.compile_kernel(device_ctx, BOUNDS, "k", options="-cl-std=CL1.2")


CONDITIONS = """#define SET(v) v = 3
#define COND (x = 4)
__kernel void k(__global int* p) {
  int x = p[0], y = p[1];
  if (x = 5) p[0] = 1;
  if ((x = 6)) p[0] = 2;
  while (y = x - 1) { x--; if (x < 0) break; }
  for (; y = 0;) { }
  for (; (y = 0);) { }
  do { } while (x = 0);
  p[1] = (x = 1) ? 2 : 3;
  if (x == 1 && (y = 2)) p[3] = 2;
  if (!(x = 3)) p[4] = 0;
  if (x += 1) p[5] = 1;
  if ((x) = 7) p[6] = 1;
  if (SET(x)) p[1] = 2; if COND p[2] = 3; while (SET(x)) break;
}
"""


def test_an_assignment_as_a_condition_is_clangs_warning() -> None:
    """``=`` as the condition of an ``if``, a loop or a ``do`` (not ``?:``'s, nor inside another operator), unless
    in parentheses of its own (``if ((x = 6))``, ``for (; (y = 0);)``; ``(x) = 7`` has none), at the ``=``; from a
    macro too, at its expansion, as Clang places it."""
    assert compile_source(CONDITIONS).build_log.splitlines() == [
        f"kernel.cl:{at}: warning: using the result of an assignment as a condition without parentheses"
        for at in ("5:9", "7:12", "8:12", "10:19", "15:11", "16:7", "16:28", "16:50")
    ]


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")
def test_every_device_builds_the_assignments_as_conditions(device_ctx: wia.Context) -> None:
    wia.compile_kernel(device_ctx, CONDITIONS, "k", options="-cl-std=CL1.2")


FALLS = """int f1(int x) { if (x) return 1; else return 2; }
int f2(int x) { switch (x) { case 0: return 1; default: return 2; } }
int f3(int x) { while (1) { if (x) return 1; x++; } }
int f4(int x) { for (;;) { if (x > 3) break; x++; } }
int f5(int x) { if (x) return 1; }
int f6(int x) { do { return x; } while (0); }
int f7(int x) { if (1) return x; }
int f8(int x) { return x; x++; }
float f9(void) { }
int f10(int x) { switch (x) { case 0: return 1; } }
int f11(int x) { goto end; end: return x; }
int f12(int x) { while (x) { return 1; } }
int f13(int x) { if (x) { return 1; } else { x++; } }
int f14(int x) { for (int i = 0; ; i++) { if (i > x) return i; } }
int f15(int x) { while (1) { if (x) break; } return 0; }
int f16(int x) { switch (x) { case 0: return 1; default: break; } }
int f17(int x) { {{ return x; }} }
__kernel void k(__global int* p) {
    p[0] = f1(1) + f2(1) + f3(1) + f4(1) + f5(1) + f6(1) + f7(1) + f8(1) + f9() + f10(1) + f11(1) + f12(1)
           + f13(1) + f14(1) + f15(1) + f16(1) + f17(1);
}
"""


def test_a_function_that_returns_a_value_and_runs_off_its_end_is_clangs_warning() -> None:
    """At the closing brace: "does not return a value" where no path returns one, "... in all control paths"
    where some path does. A constant condition takes its one branch (``if (1)``), a loop forever ends only by a
    ``break``, a switch without ``default`` goes past its cases; a kernel returns nothing."""
    none, some = (
        "non-void function does not return a value",
        "non-void function does not return a value in all control paths",
    )
    assert compile_source(FALLS).build_log.splitlines() == [
        f"kernel.cl:{at}: warning: {message}"
        for at, message in [
            ("4:53", none),
            ("5:34", some),
            ("9:18", none),
            ("10:51", some),
            ("12:42", some),
            ("13:53", some),
            ("16:67", some),
        ]
    ]


POINTERS = """typedef struct { int a; } S; typedef struct { int b; } T;
__global float* r1(__global int* p) { return p; }
__global int* r2(const __global int* p) { return p; }
void h(__global float* f, __global uint* u, __global int* i) { }
__kernel void k(__global int* p, __global const int* cp, __global uint* up, __global S* s, __global void* v) {
  __global float* f = p;
  __global int* q = cp;
  __global int* w = up;
  __global T* t = s;
  __global float4* f4 = (__global float*)p;
  __global void* vv = p; __global int* fromv = v;
  f = p; q = cp; w = up;
  h(p, p, up);
  __local ushort arr[8]; __local uint2* l2 = arr;
  int x; __private float* px = &x;
  __global int** pp; __global float** fp = pp;
  r1(p); r2(p);
}
"""

INCOMPATIBLE, SIGN = "incompatible pointer types", "converts between pointers to integer types with different sign"
GI, CGI = "'__global int *__private'", "'const __global int *__private'"
GU = "'__global uint *__private' (aka '__global unsigned int *__private')"
POINTER_WARNINGS = [
    ("2:46", f"{INCOMPATIBLE} returning {GI} from a function with result type '__global float *'"),
    ("3:50", f"returning {CGI} from a function with result type '__global int *' discards qualifiers"),
    ("6:19", f"{INCOMPATIBLE} initializing '__global float *__private' with an expression of type {GI}"),
    ("7:17", f"initializing {GI} with an expression of type {CGI} discards qualifiers"),
    ("8:17", f"initializing {GI} with an expression of type {GU} {SIGN}"),
    ("9:15", f"{INCOMPATIBLE} initializing '__global T *__private' with an expression of type '__global S *__private'"),
    (
        "10:20",
        f"{INCOMPATIBLE} initializing '__global float4 *__private' with an expression of type '__global float *'",
    ),
    ("12:5", f"{INCOMPATIBLE} assigning to '__global float *__private' from {GI}"),
    ("12:12", f"assigning to {GI} from {CGI} discards qualifiers"),
    ("12:20", f"assigning to {GI} from {GU} {SIGN}"),
    ("13:5", f"{INCOMPATIBLE} passing {GI} to parameter of type '__global float *'"),
    ("13:8", f"passing {GI} to parameter of type '__global uint *' (aka '__global unsigned int *') {SIGN}"),
    ("13:11", f"passing {GU} to parameter of type '__global int *' {SIGN}"),
    (
        "14:41",
        f"{INCOMPATIBLE} initializing '__local uint2 *__private' with an expression of type '__local ushort[8]' (aka "
        "'__local unsigned short[8]')",
    ),
    ("15:27", f"{INCOMPATIBLE} initializing '__private float *__private' with an expression of type '__private int *'"),
    (
        "16:39",
        f"{INCOMPATIBLE} initializing '__global float *__private *__private' with an expression of type '__global int "
        "*__private *__private'",
    ),
]


def test_a_pointer_to_another_type_is_clangs_warning() -> None:
    """A pointer initialized, assigned, returned or passed from one to another type (at any level of indirection;
    ``void*`` takes and gives any): "incompatible pointer types ...", "... converts between pointers to integer
    types with different sign" for ``int*`` and ``uint*``, "... discards qualifiers" where a ``const`` is lost; at
    the variable's name, the ``=``, the returned expression or the argument; an array spelled as its type. The
    simulator built these without a word (it still runs them: the bytes read as the pointer's type)."""
    assert compile_source(POINTERS).build_log.splitlines() == [
        f"kernel.cl:{at}: warning: {message}" for at, message in POINTER_WARNINGS
    ]


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")
def test_every_device_builds_the_pointer_conversions(device_ctx: wia.Context) -> None:
    wia.compile_kernel(device_ctx, POINTERS, "k", options="-cl-std=CL1.2")


def test_pointers_to_pointers_of_other_types_are_distinct() -> None:
    """Compared pointers are distinct where one converts to the other only with Clang's pointer warning
    (``types.pointer_conversion``): pointers to pointers of other types too; a ``const`` pointee is no other type."""
    source = (
        "__kernel void k(__global int* p) { __global int** a; __global float** b; __global const int* c; "
        "p[0] = (a == b) + (c == p) + (a == (__global int**)b);\n}\n"
    )
    assert compile_source(source).build_log.splitlines() == [
        "kernel.cl:1:107: warning: comparison of distinct pointer types ('__global int *__private *' and "
        "'__global float *__private *')"
    ]


def test_a_const_lost_from_a_constant_pointee_is_clangs_warning() -> None:
    """``__constant`` memory is read-only, but to Clang its pointee is ``const`` only where the source writes it: a
    pointer to ``const __constant float`` converted to one to ``__constant float`` discards qualifiers, the
    reverse nothing (the simulator took every ``__constant`` pointee for ``const`` and said neither). Clang's log,
    line for line (clang-15 -cc1)."""
    source = (
        "float f(__constant float* p) { return p[0]; }\n"
        "__kernel void k(__global float* o, __constant float* c, const __constant float* cc) {\n"
        "  __constant float* q = cc;\n"
        "  const __constant float* r = c;\n"
        "  c = cc; cc = q;\n"
        "  o[0] = f(cc) + f(r) + f(q) + q[0] + r[0] + c[0];\n}\n"
    )
    lost = "'const __constant float *__private'"
    assert compile_source(source).build_log.splitlines() == [
        f"kernel.cl:3:21: warning: initializing '__constant float *__private' with an expression of type {lost} "
        "discards qualifiers",
        f"kernel.cl:5:5: warning: assigning to '__constant float *__private' from {lost} discards qualifiers",
        f"kernel.cl:6:12: warning: passing {lost} to parameter of type '__constant float *' discards qualifiers",
        f"kernel.cl:6:20: warning: passing {lost} to parameter of type '__constant float *' discards qualifiers",
    ]


PRECEDENCE = (
    "#define ISZ(a) a & 1 == 0\n"
    "__kernel void k(__global int* o, int n) {\n"
    "    int x = n;\n"
    "    uint u = n;\n"
    "    x = x & 1 == 0;\n"
    "    x = x == 1 & n;\n"
    "    x = (x == 1) & n;\n"
    "    x = x | (1 < 2);\n"
    "    x = (x) == 1 ^ n;\n"
    "    x = x & 1 != n & 2;\n"
    "    x = x < 1 | x > 2;\n"
    "    x = (x < 1) | x > 2;\n"
    "    x = (x & n) & 1 == 0;\n"
    "    u = u << n + 1;\n"
    "    u = u + 1 >> n;\n"
    "    u = (u << n) - 1;\n"
    "    u = u << (n - 1);\n"
    "    u = 1 << n - 1 << 2;\n"
    "    x = ISZ(x);\n"
    "    int4 v = (int4)x << n - 1;\n"
    "    o[0] = x + u + v.x;\n"
    "}\n"
)


def test_a_surprising_precedence_is_clangs_warning() -> None:
    """Clang's -Wparentheses (on by default): a comparison beside ``&``, ``|`` or ``^`` (not where both or neither
    operand is one, nor beside another bitwise operation) and ``+`` or ``-`` inside a shift (``<<`` of integers
    only: not of a vector), each unless in brackets of its own, a macro's argument too; Clang's log line for line
    (clang-15 -cc1, its notes aside: the simulator gives none). The simulator said nothing of them."""
    assert compile_source(PRECEDENCE).build_log.splitlines() == [
        "kernel.cl:5:11: warning: & has lower precedence than ==; == will be evaluated first",
        "kernel.cl:6:16: warning: & has lower precedence than ==; == will be evaluated first",
        "kernel.cl:9:18: warning: ^ has lower precedence than ==; == will be evaluated first",
        "kernel.cl:10:11: warning: & has lower precedence than !=; != will be evaluated first",
        "kernel.cl:12:17: warning: | has lower precedence than >; > will be evaluated first",
        "kernel.cl:13:17: warning: & has lower precedence than ==; == will be evaluated first",
        "kernel.cl:14:16: warning: operator '<<' has lower precedence than '+'; '+' will be evaluated first",
        "kernel.cl:15:11: warning: operator '>>' has lower precedence than '+'; '+' will be evaluated first",
        "kernel.cl:18:16: warning: operator '<<' has lower precedence than '-'; '-' will be evaluated first",
        "kernel.cl:19:9: warning: & has lower precedence than ==; == will be evaluated first",
    ]


SUSPICIOUS = (
    "#define ONE 1\n"
    "#define TWO 2\n"
    "#define SAME(a) (a == a)\n"
    "__kernel void k(__global int* o, __global uint* u, int n) {\n"
    "    char c = n;\n"
    "    uchar uc = n;\n"
    "    int x = c == 300;\n"
    "    x += (n > 1) == 2;\n"
    "    x += !n == 2;\n"
    "    x += (!n) == 2;\n"
    "    x += !n & 4;\n"
    "    x += !n == !x;\n"
    "    x += n == n;\n"
    "    x += o[0] >= o[0];\n"
    "    x += o[n] != o[n];\n"
    "    x += o[n + 1] == o[n + 1];\n"
    "    x += SAME(n);\n"
    "    x += n && 2;\n"
    "    x += n || 0;\n"
    "    x += n && ONE;\n"
    "    x += n && TWO;\n"
    "    x += (n > 1) && 1;\n"
    "    __global int* p = u;\n"
    "    x += uc == -1;\n"
    "    x += u[0] == -1;\n"
    "    x += c == 4294967295u;\n"
    "    x += (short)n < 40000;\n"
    "    x += 300 > c;\n"
    "    x += c != -129;\n"
    "    o[0] = x + p[0];\n"
    "}\n"
)


def test_comparisons_and_logical_operators_that_mean_something_else_are_clangs_warnings() -> None:
    """Clang's default warnings (clang-15 -cc1, line for line, its notes aside) for operators that most likely do
    not mean what they say: ``!`` on a comparison's or bitwise operation's left operand alone (not in brackets of
    its own, nor beside a truth value); a variable or element compared with itself (not ``o[n + 1]`` twice, nor in
    a macro); an integer constant after ``&&`` or ``||`` (a macro's 0 or 1 aside); a constant outside every value
    the other operand can take (its type's, a truth value's; not where the comparison is unsigned), given once
    the function is checked. The simulator said nothing of them."""
    assert compile_source(SUSPICIOUS).build_log.splitlines() == [
        "kernel.cl:9:10: warning: logical not is only applied to the left hand side of this comparison",
        "kernel.cl:11:10: warning: logical not is only applied to the left hand side of this bitwise operator",
        "kernel.cl:13:12: warning: self-comparison always evaluates to true",
        "kernel.cl:14:15: warning: self-comparison always evaluates to true",
        "kernel.cl:15:15: warning: self-comparison always evaluates to false",
        "kernel.cl:18:12: warning: use of logical '&&' with constant operand",
        "kernel.cl:19:12: warning: use of logical '||' with constant operand",
        "kernel.cl:21:12: warning: use of logical '&&' with constant operand",
        "kernel.cl:22:18: warning: use of logical '&&' with constant operand",
        "kernel.cl:23:19: warning: initializing '__global int *__private' with an expression of type '__global uint *__private' (aka '__global unsigned int *__private') converts between pointers to integer types with different sign",
        "kernel.cl:7:15: warning: result of comparison of constant 300 with expression of type '__private char' is always false",
        "kernel.cl:8:18: warning: result of comparison of constant 2 with boolean expression is always false",
        "kernel.cl:9:13: warning: result of comparison of constant 2 with boolean expression is always false",
        "kernel.cl:10:15: warning: result of comparison of constant 2 with boolean expression is always false",
        "kernel.cl:24:13: warning: result of comparison of constant -1 with expression of type '__private uchar' (aka '__private unsigned char') is always false",
        "kernel.cl:27:19: warning: result of comparison of constant 40000 with expression of type 'short' is always true",
        "kernel.cl:28:14: warning: result of comparison of constant 300 with expression of type '__private char' is always true",
        "kernel.cl:29:12: warning: result of comparison of constant -129 with expression of type '__private char' is always true",
    ]


def test_a_member_of_a_constant_struct_is_no_const_pointee() -> None:
    """An array member reached through a ``__constant`` struct pointer decays to a pointer to ``__constant`` (not
    ``const``) elements, as Clang has it: no "discards qualifiers" when it initializes one (the simulator said it
    eight times of Mandelbulber's ``Nv = fractal->genFoldBox.Nv_dodeca``)."""
    source = (
        "typedef struct { float3 a[4]; float b[2]; } S;\n"
        "__kernel void k(__global float* o, __constant S* s) {\n"
        "  __constant float3* p = s->a;\n  __constant float* q = s->b;\n  p = &s->a[1];\n"
        "  o[0] = p[0].x + q[0];\n}\n"
    )
    assert compile_source(source).build_log == ""


def test_an_array_member_is_spelled_as_clang_spells_it() -> None:
    """An array member's type, in any address space: its space before its element, no ``const`` the space
    implies, an element's own ``const`` twice ('const __constant const float[2]', Clang's print of the qualifiers
    it moved from the elements to the array); decayed where an error names the value ('const __constant float *').
    The simulator said 'const __constant float[2]' for both members and 'float[2]' for a private struct's."""
    members = (
        "typedef struct { float b[2]; const float c[2]; } T;\n"
        "__kernel void k(__global float* o, __constant T* s, __global T* gt) {\n"
        "  T t; t.b[0] = 1; t.b[1] = 2;\n"
        "  float* p1 = t.c;\n"
        "  __global float* p2 = gt->c;\n"
        "  __constant int* p3 = s->b;\n"
        "  __constant int* p4 = s->c;\n"
        "  int* p5 = t.b;\n"
        "  o[0] = p1[0] + p2[0] + p3[0] + p4[0] + p5[0];\n"
        "}\n"
    )
    assert compile_source(members).build_log.splitlines() == [
        "kernel.cl:4:10: warning: initializing '__private float *__private' with an expression of type 'const __private const float[2]' discards qualifiers",
        "kernel.cl:5:19: warning: initializing '__global float *__private' with an expression of type 'const __global const float[2]' discards qualifiers",
        "kernel.cl:6:19: warning: incompatible pointer types initializing '__constant int *__private' with an expression of type '__constant float[2]'",
        "kernel.cl:7:19: warning: incompatible pointer types initializing '__constant int *__private' with an expression of type 'const __constant const float[2]'",
        "kernel.cl:8:8: warning: incompatible pointer types initializing '__private int *__private' with an expression of type '__private float[2]'",
    ]
    through = (
        "typedef struct { float b[2]; const float c[2]; float d; const float e; } S;\n"
        "__constant S gs = {{1, 2}, {3, 4}, 5, 6};\n"
        "__kernel void k(__global float* o, __constant S* s) {\n"
        "  __global float* g1 = s->b;\n"
        "  __global float* g2 = s->c;\n"
        "  __global float* g3 = &s->d;\n"
        "  __global float* g4 = &s->e;\n"
        "  __global float* g5 = gs.c;\n"
        "  __constant float* q = s->c;\n"
        "  q = gs.c;\n"
        "  o[0] = g1[0] + g2[0] + g3[0] + g4[0] + g5[0] + q[0];\n"
        "}\n"
    )
    assert refused_log(through) == [
        "kernel.cl:4:19: error: initializing '__global float *__private' with an expression of type '__constant float *' changes address space of pointer",
        "kernel.cl:5:19: error: initializing '__global float *__private' with an expression of type 'const __constant float *' changes address space of pointer",
        "kernel.cl:6:19: error: initializing '__global float *__private' with an expression of type '__constant float *' changes address space of pointer",
        "kernel.cl:7:19: error: initializing '__global float *__private' with an expression of type 'const __constant float *' changes address space of pointer",
        "kernel.cl:8:19: error: initializing '__global float *__private' with an expression of type 'const __constant float *' changes address space of pointer",
        "kernel.cl:9:21: warning: initializing '__constant float *__private' with an expression of type 'const __constant const float[2]' discards qualifiers",
        "kernel.cl:10:5: warning: assigning to '__constant float *__private' from 'const __constant const float[2]' discards qualifiers",
    ]


def test_a_const_pointee_converted_to_or_from_void_is_clangs_warning() -> None:
    """``void`` pointers convert to and from any pointee, but a ``const`` one's const drops: Clang's "discards
    qualifiers" (clFFT passes its ``const __global float2* restrict`` input to a user callback's ``__global void*``
    parameter); the simulator said nothing."""
    source = (
        "float2 cb(__global void* in, uint k) { return ((__global float2*)in)[k]; }\n"
        "__kernel void k(__global const float2* restrict g, __global float2* o, __global const float* c) {\n"
        "  __global void* v = c;\n  const __global void* cv = c;\n  __global float* f = cv;\n"
        "  __global const float* h = v;\n  o[0] = cb(g, 0) + f[0] + h[0];\n}\n"
    )
    assert compile_source(source).build_log.splitlines() == [
        "kernel.cl:3:18: warning: initializing '__global void *__private' with an expression of type 'const __global "
        "float *__private' discards qualifiers",
        "kernel.cl:5:19: warning: initializing '__global float *__private' with an expression of type 'const __global "
        "void *__private' discards qualifiers",
        "kernel.cl:7:13: warning: passing 'const __global float2 *restrict __private' to parameter of type '__global "
        "void *' discards qualifiers",
    ]


POINTER_SIZES = (
    "typedef struct { float4 v; } S;\n"
    "__kernel void k(__global int* o, __global S* s, int n) {\n"
    "    int a[4];\n"
    "    __global int* p = o;\n"
    "    int x = sizeof(o) / sizeof(o[0]);\n"
    "    x += sizeof(o) / sizeof(int);\n"
    "    x += sizeof(p) / sizeof(*p);\n"
    "    x += sizeof o / sizeof o[0];\n"
    "    x += sizeof(a) / sizeof(a[0]);\n"
    "    x += sizeof(o) / sizeof(char);\n"
    "    x += sizeof(s) / sizeof(S);\n"
    "    x += sizeof(o) / sizeof(uint);\n"
    "    x += (sizeof(o)) / sizeof(o[0]);\n"
    "    x += sizeof((o)) / sizeof(o[0]);\n"
    "    o[0] = x + a[0];\n"
    "}\n"
)


def test_a_pointers_size_divided_as_an_arrays_is_clangs_warning() -> None:
    """Clang's -Wsizeof-pointer-div (clang-15 -cc1, line for line): ``sizeof(p) / sizeof(p[0])`` with a pointer
    ``p`` (a kernel's argument: an array's count meant), the second ``sizeof`` of what ``p`` points to, at the
    ``/``, the operand written as the source has it; not of an array, another type, or a first ``sizeof`` in
    brackets of its own."""
    assert compile_source(POINTER_SIZES).build_log.splitlines() == [
        "kernel.cl:5:23: warning: 'sizeof (o)' will return the size of the pointer, not the array itself",
        "kernel.cl:6:20: warning: 'sizeof (o)' will return the size of the pointer, not the array itself",
        "kernel.cl:7:20: warning: 'sizeof (p)' will return the size of the pointer, not the array itself",
        "kernel.cl:8:19: warning: 'sizeof o' will return the size of the pointer, not the array itself",
        "kernel.cl:11:20: warning: 'sizeof (s)' will return the size of the pointer, not the array itself",
        "kernel.cl:14:22: warning: 'sizeof ((o))' will return the size of the pointer, not the array itself",
    ]
