"""GNU C that Clang takes in OpenCL C and random-program generators emit (CLSmith's safe-math macros are
statement expressions, its kernels declare ``int ;``): statement expressions ``({ ... })`` with their own scope,
anywhere an expression may stand, a declaration that declares nothing (a warning), ``x ?: y``, case and designator
ranges, ``__typeof__``, and the built-ins ``__builtin_expect``, ``__builtin_constant_p`` and
``__builtin_unreachable``. On every backend, one expected answer (PoCL 3.1 and Oclgrind 21.10 build and run each)."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia
from wia_sim.kernels import KernelCompileError, compile_source

STATEMENT_EXPRESSIONS = r"""
#define SAFE_ADD(a, b) ({ int si1 = (a); int si2 = (b); \
    ((si1 > 0) && (si2 > 0) && (si1 > (2147483647 - si2))) ? si1 : (si1 + si2); })
__kernel void k(__global const int* in, __global long* out)
{
    const int i = get_global_id(0);
    const int t = 7;
    out[6 * i] = SAFE_ADD(in[i], 1000) + SAFE_ADD(i, 3) * 1000000000L;   /* in a binary expression, twice */
    out[6 * i + 1] = ({ int a = ({ int t = i; t * 2; }); a + t; });       /* nested; the inner t shadows */
    out[6 * i + 2] = ({ int s = 0; for (int j = 0; j < i; j++) { if (j == 3) break; s += j; } s; });
    out[6 * i + 3] = (i & 1) ? ({ int u = i; u * 100; }) : ({ long v = -i; v; });  /* divergent */
    ({ out[6 * i + 4] = in[i] * 3; });                                  /* void: a statement's worth */
    int ;                                                               /* declares nothing: a warning */
    out[6 * i + 5] = ({ int w = in[i]; switch (w & 3) { case 0: w = 10; break; default: w = -w; } w; });
}
"""


def test_statement_expressions(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    if request.node.callspec.params.get("device_ctx") == "oclgrind":
        request.applymarker(
            pytest.mark.xfail(
                strict=True,
                reason="Oclgrind 21.10 stops creating the kernel (fatal: 'Unsupported constant int size: 5 bytes'), "
                "as it does for a loop inside a statement expression alone",
            )
        )
    n = 16
    rng = np.random.default_rng(1214)
    a = rng.integers(-(2**31), 2**31, n, dtype=np.int64).astype(np.int32)
    a[:2] = [2147483600, 2147483000]  # (a SAFE_ADD that would overflow keeps its first operand)
    _, out = run_arrays(device_ctx, STATEMENT_EXPRESSIONS, "k", [a, np.zeros(6 * n, np.int64)], n, 8)
    i = np.arange(n, dtype=np.int64)
    a64 = a.astype(np.int64)
    safe = np.where((a64 > 0) & (a64 > 2147483647 - 1000), a64, a64 + 1000)
    want = np.stack(
        [
            safe + (i + 3) * 1000000000,
            2 * i + 7,
            np.minimum(i, 3) * (np.minimum(i, 3) - 1) // 2,
            np.where(i & 1, 100 * i, -i),
            ((a64 * 3 + 2**31) % 2**32) - 2**31,
            np.where((a64 & 3) == 0, 10, -a64),
        ],
        axis=1,
    )
    np.testing.assert_array_equal(out.reshape(n, 6), want)


NESTED = r"""
__kernel void k(__global long* out)
{
    const int i = get_global_id(0);
    int x = ({ int a = i; ({ int b = a + 1; b * 2; }); });        /* the value: the inner statement expression's */
    int4 y = ({ int4 a = (int4)(i); ({ int4 b = a + 1; b * 2; }); });
    ({ int a = i; { out[3 * i] = a * 3; } });                     /* a block last: void */
    out[3 * i + 1] = x;
    out[3 * i + 2] = ({ int4 a = (int4)(i); ({ a + 2; }); }).w;
    out[3 * i + 2] += y.x * 100;
}
"""


def test_a_statement_expression_ending_in_another(device_ctx: wia.Context) -> None:
    """Its value is the inner one's (CLSmith's safe_mad_hi macros have this shape; the simulator took the inner one
    for a block: a void value, 0, silently); a block last stays a statement (void)."""
    (out,) = run_arrays(device_ctx, NESTED, "k", [np.zeros(24, np.int64)], 8, 8)
    i = np.arange(8)
    want = np.stack([3 * i, 2 * (i + 1), i + 2 + 200 * (i + 1)], axis=1)
    np.testing.assert_array_equal(out.reshape(8, 3), want)


def test_an_empty_declaration_is_a_warning() -> None:
    program = compile_source("int;\n__kernel void k(__global int* o) { int ; unsigned long; o[0] = 1; }")
    assert program.build_log == (
        "kernel.cl:1:1: warning: declaration does not declare anything\n"
        "kernel.cl:2:36: warning: declaration does not declare anything\n"
        "kernel.cl:2:42: warning: declaration does not declare anything"
    )


@pytest.mark.parametrize(
    ("body", "word"),
    [
        ("int x = ({ if (i) return; 5; });", "return"),
        ("for (;;) { int x = ({ break; 5; }); }", "break"),
        ("int x = ({ goto out; 5; }); out: ;", "goto"),
    ],
)
def test_a_jump_out_of_a_statement_expression_is_refused(body: str, word: str) -> None:
    """Clang runs them; the simulator does not (a documented limit), and says so at the jump."""
    with pytest.raises(KernelCompileError) as info:
        compile_source(f"__kernel void k(__global int* o) {{ int i = get_global_id(0); {body} }}")
    assert f"error: '{word}' inside a statement expression is not supported" in info.value.build_log


@pytest.mark.parametrize("depth", [100, 256])
def test_expressions_nest_as_deep_as_clang_allows(device_ctx: wia.Context, depth: int) -> None:
    """Clang takes 256 nested brackets (``-fbracket-depth``), as CLSmith's kernels need; the simulator's recursive
    parser stopped at about 90 (Python's default recursion limit)."""
    sum_, calls = "i", "i"
    for _ in range(depth):
        sum_, calls = f"({sum_} + 1)", f"f({calls})"
    source = (
        "int f(int x) { return x + 1; }\n__kernel void k(__global long* o) {\n"
        f"  int i = get_global_id(0);\n  o[2 * i] = {sum_};\n  o[2 * i + 1] = {calls};\n}}\n"
    )
    (out,) = run_arrays(device_ctx, source, "k", [np.zeros(4, np.int64)], 2, 1)
    assert out.tolist() == [depth, depth, depth + 1, depth + 1]


def test_a_source_nested_past_any_limit_is_a_build_error() -> None:
    with pytest.raises(KernelCompileError) as info:
        compile_source("__kernel void k(__global long* o) { o[0] = " + "(" * 5000 + "1" + ")" * 5000 + "; }")
    assert info.value.build_log == "kernel.cl:1: error: the source nests too deeply to parse"


UNEVALUATED = r"""
__kernel void k(__global long* out)
{
    const int i = get_global_id(0);
    const long s = 7;
    out[4 * i] = (i < 100) || ({ int s = 2; s; });                   /* never evaluated: || decided */
    out[4 * i + 1] = (i & 1) ? 5 : ({ int t = i; t * 10; });        /* evaluated in half the work-items */
    out[4 * i + 2] = 1 ? -1 : ({ uint s = 2; s; });                  /* its own s, a uint: the ?: is a uint */
    out[4 * i + 3] = ((i & 2) && ({ int u = i; u > 2; })) + s;
}
"""


def test_a_statement_expression_no_work_item_evaluates(device_ctx: wia.Context) -> None:
    """The right side of ``||``/``&&`` a left side decides, the arm of ``?:`` no work-item takes: its names are
    declared all the same, and its type is its own (CLSmith's safe-math macros sit there; the simulator said
    "unknown identifier", or took an outer variable's type)."""
    (out,) = run_arrays(device_ctx, UNEVALUATED, "k", [np.zeros(4 * 8, np.int64)], 8, 8)
    i = np.arange(8)
    want = np.stack([np.ones(8), np.where(i & 1, 5, 10 * i), np.full(8, 2**32 - 1), ((i & 2) > 0) & (i > 2)], axis=1)
    want[:, 3] += 7
    np.testing.assert_array_equal(out.reshape(8, 4), want.astype(np.int64))


GNU_OPERATORS = r"""
__kernel void k(__global long* out)
{
    const int i = get_global_id(0);
    int j = i;
    out[4 * i] = ((j++ & 1) ?: 9) * 100 + j;                          /* x ?: y, x evaluated once */
    out[4 * i + 1] = (i & 1) ?: (i & 2) ?: 5;
    out[4 * i + 2] = __builtin_expect(i > 3, 0) ? 7 : 8;
    out[4 * i + 3] = __builtin_constant_p(3 * 4) + 10 * __builtin_constant_p(i) + sizeof(__builtin_expect(i, 1));
    if (i > 100)
        __builtin_unreachable();
}
"""


def test_gnu_operators_and_builtins(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    """``x ?: y`` (``x ? x : y``, x evaluated once), ``__builtin_expect(e, c)`` (e, a long), ``__builtin_constant_p``
    (1 for an integer constant expression), ``__builtin_unreachable()``: the simulator refused each."""
    if request.node.callspec.params.get("device_ctx") == "oclgrind":
        request.applymarker(
            pytest.mark.xfail(
                strict=True, reason="Oclgrind 21.10 cannot create a kernel that calls __builtin_unreachable"
            )
        )
    (out,) = run_arrays(device_ctx, GNU_OPERATORS, "k", [np.zeros(4 * 8, np.int64)], 8, 8)
    i = np.arange(8)
    first = np.where(i & 1, 1, 9) * 100 + i + 1
    chained = np.where(i & 1, 1, np.where(i & 2, 2, 5))
    want = np.stack([first, chained, np.where(i > 3, 7, 8), np.full(8, 1 + 8)], axis=1)
    np.testing.assert_array_equal(out.reshape(8, 4), want)


CASE_RANGES = r"""
__kernel void k(__global long* out)
{
    const int i = get_global_id(0);
    const uint u = i - 4;
    switch (i) { case 1 ... 3: out[2 * i] = 10; break; case 5: out[2 * i] = 5; break; default: out[2 * i] = 20; }
    switch (u) { case 0 ... 2: out[2 * i + 1] = 1; break; case 0xfffffffe ... 0xffffffff: out[2 * i + 1] = 2; break;
                 case 7 ... 6: out[2 * i + 1] = 4; break; default: out[2 * i + 1] = 3; }
}
"""


def test_case_ranges(device_ctx: wia.Context) -> None:
    """GNU's ``case lo ... hi:`` (bounds converted to the controlling expression's type; an empty range matches
    nothing, with Clang's warning); the simulator's parser refused it."""
    (out,) = run_arrays(device_ctx, CASE_RANGES, "k", [np.zeros(16, np.int64)], 8, 8)
    i = np.arange(8)
    u = (i - 4) % 2**32
    first = np.where((i >= 1) & (i <= 3), 10, np.where(i == 5, 5, 20))
    second = np.where(u <= 2, 1, np.where(u >= 2**32 - 2, 2, 3))
    np.testing.assert_array_equal(out.reshape(8, 2), np.stack([first, second], axis=1))


def test_overlapping_case_ranges_are_a_build_error() -> None:
    with pytest.raises(KernelCompileError) as info:
        compile_source("__kernel void k(__global int* o, int i) { switch (i) { case 1 ... 3: case 2: o[0] = 1; } }")
    assert "error: duplicate case value '2'" in info.value.build_log
    program = compile_source("__kernel void k(__global int* o, int i) { switch (i) { case 3 ... 1: o[0] = 1; } }")
    assert "warning: empty case range specified" in program.build_log


DESIGNATED_RANGES = r"""
typedef struct { int v[4]; int n; } S;
__constant int T[8] = { [0 ... 3] = 1, [4 ... 7] = 2 };
__kernel void k(__global long* out)
{
    const int i = get_global_id(0);
    int a[] = { [2 ... 4] = i, [0] = -1 };                       /* its length from the range: 5 */
    S s = { .v[1 ... 2] = 9, .n = i };
    int m[3][2] = { [0 ... 1] = { [0 ... 1] = 5 } };
    out[4 * i] = a[i % 5] + 100 * (long)sizeof(a);
    out[4 * i + 1] = s.v[0] + s.v[1] * 10 + s.v[2] * 100 + s.v[3] * 1000 + s.n * 10000;
    out[4 * i + 2] = m[i % 3][i & 1];
    out[4 * i + 3] = T[i];
}
"""


def test_designator_ranges(device_ctx: wia.Context) -> None:
    """GNU's ``[lo ... hi] = x`` in arrays, struct members, nested lists and ``__constant`` tables (the simulator's
    parser refused it): each element of the range initialized, an array of unknown length sized by it."""
    (out,) = run_arrays(device_ctx, DESIGNATED_RANGES, "k", [np.zeros(32, np.int64)], 8, 8)
    i = np.arange(8)
    a = np.where(i % 5 == 0, -1, np.where(i % 5 >= 2, i, 0)) + 2000
    m = np.where(i % 3 < 2, 5, 0)
    want = np.stack([a, 990 + 10000 * i, m, np.where(i < 4, 1, 2)], axis=1)
    np.testing.assert_array_equal(out.reshape(8, 4), want)


TYPEOF = r"""
#define SWAP(a, b) do { __typeof__(a) t_ = (a); (a) = (b); (b) = t_; } while (0)
typedef struct { int x; float y; } P;
struct M { __typeof__(1.0f) f; __typeof(short) s; };
int twice(__typeof__(1) a) { return 2 * a; }
__kernel void k(__global const float4* in, __global const int* ints, __global float* out, __global long* sizes)
{
    const int i = get_global_id(0);
    int n = ints[i];
    __typeof__(n) m = n * 3;                          /* int */
    short s = (short)n;
    __typeof__(s) wrapped = (__typeof__(s))(n * 1000); /* a short: wraps */
    __typeof__(s + 1) promoted = s + 1;               /* an int */
    __typeof__(in[i] * 2.0f) v = in[i] * 2.0f;        /* float4: a value's type has no address space */
    __typeof__(v.s01) lo = v.s23;                     /* float2 */
    __typeof__(float4) w = v + 1.0f;
    int a[3] = {n, n + 1, n + 2};
    __typeof__(a) b;                                  /* int[3] */
    for (int j = 0; j < 3; j++) b[j] = a[2 - j];
    P p = {n, 0.5f};
    __typeof__(p) q = p;
    q.x += 1;
    int x = n, y = -n;
    SWAP(x, y);
    __typeof__(n++) untouched = 7;                    /* never evaluated: n stays */
    struct M st = {1.5f, (short)n};
    const __typeof__(i) c = 4;
    __typeof__(out) at = out + 12 * i;                /* __global float* */
    at[0] = m; at[1] = wrapped; at[2] = promoted; at[3] = v.w; at[4] = lo.y; at[5] = w.x;
    at[6] = b[0]; at[7] = q.x + p.x; at[8] = x * 10 + y; at[9] = untouched + n;
    at[10] = st.f * st.s + twice(c); at[11] = (__typeof__(c))2.75f;
    sizes[i] = sizeof(m) + 10 * sizeof(wrapped) + 100 * sizeof(v) + 1000 * sizeof(lo) + 10000 * sizeof(b)
        + 100000 * sizeof(__typeof__(at)) + 1000000 * sizeof(struct M);
}
"""


def test_typeof(device_ctx: wia.Context) -> None:
    """GNU's ``__typeof__`` (and ``__typeof``) of an expression or a type name, as Clang takes it in OpenCL C:
    declarations, casts, ``sizeof``, struct members and parameters; the type unconverted (a short stays one, an
    array stays an array, a value's of no address space), its operand never evaluated. The simulator's parser
    refused the keyword."""
    n = 16
    rng = np.random.default_rng(1205)
    data = rng.uniform(-100, 100, (n, 4)).astype(np.float32)
    ints = rng.integers(-40000, 40000, n).astype(np.int32)
    out, sizes = run_arrays(
        device_ctx, TYPEOF, "k", [data, ints, np.zeros(12 * n, np.float32), np.zeros(n, np.int64)], n, 8
    )[2:]
    k = ints.astype(np.int64)
    v = data.astype(np.float32) * np.float32(2)
    want = np.stack(
        [
            k * 3,
            ((k * 1000 + 2**15) % 2**16) - 2**15,
            ((k + 2**15) % 2**16) - 2**15 + 1,
            v[:, 3],
            v[:, 3],
            v[:, 0] + np.float32(1),
            k + 2,
            2 * k + 1,
            -k * 10 + k,
            7 + k,
            np.float32(1.5) * (((k + 2**15) % 2**16) - 2**15) + 8,
            np.full(n, 2),
        ],
        axis=1,
    ).astype(np.float32)
    np.testing.assert_array_equal(out.reshape(n, 12), want)
    assert set(sizes) == {4 + 10 * 2 + 100 * 16 + 1000 * 8 + 10000 * 12 + 100000 * 8 + 1000000 * 8}


def test_a_typeof_of_an_object_in_an_address_space_is_no_member_type() -> None:
    """``__typeof__(C)`` of a ``__constant`` ``C`` is ``__constant const int``: a struct member of it is Clang's
    error, as a member written ``__constant int`` is (the simulator took both)."""
    with pytest.raises(KernelCompileError) as info:
        compile_source(
            "__constant int C = 3;\nstruct S { __typeof__(C) x; __typeof__(C + 1) y; };\n"
            "__kernel void k(__global int* o) { struct S s = {1, 2}; o[0] = s.y; }"
        )
    assert info.value.build_log == "kernel.cl:2:26: error: field may not be qualified with an address space"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        ("__typeof__(*o) x = 1;", "1:51: error: function scope variable cannot be declared in global address space"),
        ("__typeof__(o[0] + 1) x = 1;", None),  # (a value's type has no address space)
        (
            "const int c = 1; __typeof__(c) d = 2; d = 3;",
            "1:76: error: cannot assign to variable 'd' with const-qualified type 'typeof (c)' "
            "(aka 'const __private int')",
        ),
        (
            "__typeof__(const int) d = 2; d = 3;",
            "1:67: error: cannot assign to variable 'd' with const-qualified type '__private typeof(const int)' "
            "(aka 'const __private int')",
        ),
        ("__typeof__(nope) x = 1;", "1:47: error: use of undeclared identifier 'nope'"),
        ("int x = 1; __typeof__(x) int y = 2;", "1:61: error: cannot combine with previous 'typeof' declaration"),
        ("int x = 1; unsigned __typeof__(x) y = 2;", "1:47: error: 'typeof' cannot be signed or unsigned"),
        ("int x = 1; long __typeof__(x) y = 2;", "1:47: error: 'long typeof' is invalid"),
        ("int x = 1; float z = (int __typeof__(x))2;", "1:62: error: cannot combine with previous 'int' declaration"),
        (  # (at the qualifier, as Clang)
            "__local __typeof__(*o) *p = 0;",
            "1:36: error: multiple address spaces specified for type (__global and __local; variable 'p')",
        ),
    ],
)
def test_typeof_errors(body: str, error: str | None) -> None:
    """Clang's errors, at its columns (PoCL 3.1 gives the same)."""
    source = f"__kernel void k(__global int* o) {{ {body} }}"
    if error is None:
        compile_source(source)
        return
    with pytest.raises(KernelCompileError) as info:
        compile_source(source)
    assert f"kernel.cl:{error}" in info.value.build_log
