"""Struct and union layouts and GNU C extensions as Clang builds them (issue 16), from a 675-kernel differential
sweep of structs and unions against PoCL 3.1 and Oclgrind 21.10: every kernel here runs on the simulator and on
each real OpenCL device installed (``device_ctx``), held to the same values.

The expected sizes, alignments and offsets are C's layout rules worked by hand (each one below says how); both
devices give them. Before these fixes the simulator ignored ``#pragma pack`` and attributes on unions (wrong sizes
and offsets), gave an empty struct one byte, and refused ``__builtin_offsetof``, ``__alignof__`` of an expression,
``->`` on an array, a cast of a struct to its own type, a prototype inside a function and a flexible array member.
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import build_error, run_arrays

import wia_hal as wia
from wia_sim.kernels.frontend import compile_source
from wia_sim.kernels.program import KernelCompileError
from wia_sim.kernels.structs import layout

PRAGMA_PACK = """
#pragma pack(2)
struct A { char c; int i; };
#pragma pack(push, 1)
struct B { char c; long l; };
#pragma pack(pop)
struct C { char c; long l; };
#pragma pack()
struct D { char c; long l; };
#pragma pack(4)
struct E { char c; long l __attribute__((aligned(16))); };
struct __attribute__((aligned(16))) F { char c; long l; };
union G { char c[5]; long l; };
#pragma pack(push, r1, 1)
#pragma pack(push, 8)
struct H { char c; int i; };
#pragma pack(pop, r1)
struct I { char c; long l; };
_Pragma("pack(8)")
struct J { char c; int4 v; };
__kernel void k(__global ulong* out) {
    out[0] = sizeof(struct A) * 100 + _Alignof(struct A);
    out[1] = sizeof(struct B) * 100 + _Alignof(struct B);
    out[2] = sizeof(struct C) * 100 + _Alignof(struct C);
    out[3] = sizeof(struct D) * 100 + _Alignof(struct D);
    out[4] = sizeof(struct E) * 100 + _Alignof(struct E);
    out[5] = sizeof(struct F) * 100 + _Alignof(struct F);
    out[6] = sizeof(union G) * 100 + _Alignof(union G);
    out[7] = sizeof(struct H) * 100 + _Alignof(struct H);
    out[8] = sizeof(struct I) * 100 + _Alignof(struct I);
    out[9] = sizeof(struct J) * 100 + _Alignof(struct J);
}
"""


def test_pragma_pack_caps_member_alignment(device_ctx: wia.Context) -> None:
    """``#pragma pack`` with N, push/pop (with a label: popped down to it), reset, and ``_Pragma``. Each value is
    size * 100 + alignment: a member is aligned to min(its own, N), even one ``aligned(16)`` raised (E: 4 + 8 = 12
    bytes), while the struct's own ``aligned(16)`` still counts (F: 12 rounded up to 16)."""
    got = run_arrays(device_ctx, PRAGMA_PACK, "k", [np.zeros(10, np.uint64)], 1, 1)[0]
    assert got.tolist() == [602, 901, 1002, 1608, 1204, 1616, 804, 804, 1204, 2408]


PACKED_MEMBERS = """
#pragma pack(push, 1)
struct P { char c; int i; short s; long l; };
#pragma pack(pop)
__kernel void k(__global const int* in, __global uchar* scratch, __global long* out) {
    int g = get_global_id(0);
    struct P p;
    p.c = (char)g; p.i = in[g] * 1000 + 7; p.s = (short)in[g + 1]; p.l = (long)in[g + 2] << 33;
    __global struct P* q = (__global struct P*)(scratch + 64 * g);
    *q = p;
    q->i += 5;
    out[5 * g] = p.i; out[5 * g + 1] = q->i; out[5 * g + 2] = q->l; out[5 * g + 3] = q->s;
    out[5 * g + 4] = sizeof(p) * 100 + q->c;
}
"""


def test_members_a_pragma_pack_misaligns_are_read_and_written(device_ctx: wia.Context) -> None:
    """Under ``pack(1)`` the int sits at offset 1 and the long at 7 (15 bytes): copied whole and member by member
    through ``__private`` and ``__global`` memory, with random values."""
    n = 4
    values = np.random.default_rng().integers(-30000, 30000, n + 2).astype(np.int32)
    got = run_arrays(
        device_ctx, PACKED_MEMBERS, "k", [values, np.zeros(64 * n, np.uint8), np.zeros(5 * n, np.int64)], n, n
    )[2].reshape(n, 5)
    v = values.astype(np.int64)
    g = np.arange(n)
    np.testing.assert_array_equal(got[:, 0], v[:n] * 1000 + 7)
    np.testing.assert_array_equal(got[:, 1], v[:n] * 1000 + 12)
    np.testing.assert_array_equal(got[:, 2], v[2 : n + 2] << 33)
    np.testing.assert_array_equal(got[:, 3], v[1 : n + 1].astype(np.int16))
    np.testing.assert_array_equal(got[:, 4], 1500 + g)


UNIONS_AND_EMPTY = """
union __attribute__((packed)) UP { int4 a; char c; };
union UA { long m; } __attribute__((aligned(16)));
union O { int a; union I { char c[3]; short s; } __attribute__((packed)) in; struct { char x; int y; } st; };
struct E { };
struct H { int a; struct E e; int b; };
struct E make(void) { struct E e; return e; }
int use(struct E e, int x) { return x + 1; }
__kernel void k(__global const int* in, __global long* out) {
    struct E e = make(), f;
    f = e;
    struct E arr[3];
    struct H h = { 1, {}, 2 };
    struct E* pe = &arr[0];
    out[0] = sizeof(union UP) * 100 + _Alignof(union UP);
    out[1] = sizeof(union UA) * 100 + _Alignof(union UA);
    out[2] = sizeof(struct E) * 100 + _Alignof(struct E);
    out[3] = sizeof(struct H) * 100 + ((char*)&h.b - (char*)&h);
    out[4] = (char*)(pe + 2) - (char*)pe + sizeof(arr);
    out[5] = use(f, in[0]) + h.b;
    union O o; o.a = 0x01020304;
    out[6] = sizeof(union O) * 100 + _Alignof(union I);
    out[7] = o.in.c[1];
}
"""


def test_union_attributes_and_empty_structs(device_ctx: wia.Context) -> None:
    """``packed`` and ``aligned(N)`` on a union (packed: alignment 1; aligned(16): 16 bytes; a packed union
    inside a union too), and GNU C's empty
    struct, which Clang gives 0 bytes (alignment 1): it takes no room in a struct, in an array or in pointer
    arithmetic, and is passed and returned by value."""
    x = int(np.random.default_rng().integers(-1000, 1000))
    got = run_arrays(device_ctx, UNIONS_AND_EMPTY, "k", [np.array([x], np.int32), np.zeros(8, np.int64)], 1, 1)[1]
    assert got.tolist() == [1601, 1616, 1, 804, 0, x + 3, 801, 3]


OFFSETS_AND_ALIGNMENTS = """
struct In { char c; short s[3]; };
typedef struct { int a; struct In in[2]; double d; } W;
union U { char c; struct In i; };
typedef float4 F4;
__kernel void k(__global const int* in, __global long* out) {
    out[0] = __builtin_offsetof(W, d);
    out[1] = __builtin_offsetof(W, in[1].s[2]);
    out[2] = __builtin_offsetof(W, in[1]) * 100 + __builtin_offsetof(union U, i.s);
    int sized[__builtin_offsetof(W, d)];
    enum { E = __builtin_offsetof(struct In, s[1]) };
    out[3] = sizeof(sized) + E * 1000;
    W w; F4 v; char3 c3; __local int l[4]; long16 x;
    out[4] = __alignof__(w) * 100 + __alignof__(w.in[0].s);
    out[5] = _Alignof(v) * 100 + _Alignof(c3);
    out[6] = __alignof__(l) * 100 + __alignof__(in[0]);
    out[7] = __alignof__(x.s0) * 1000 + __alignof__(x);
    out[8] = __alignof__(v + 1.0f) + __alignof(int) * 1000 + __alignof__ w.a * 100000;
}
"""


def test_offsetof_and_the_alignment_of_expressions(device_ctx: wia.Context) -> None:
    """``__builtin_offsetof`` through members and constant subscripts, as an integer constant too (an array's
    length, an enumerator): W is int a (0), struct In in[2] (4, 8 bytes each: char, then short s[3] at 2), double
    d (24). ``__alignof__``/``_Alignof`` of an expression: its type's alignment (a float4 16, a char3 4)."""
    got = run_arrays(device_ctx, OFFSETS_AND_ALIGNMENTS, "k", [np.zeros(1, np.int32), np.zeros(9, np.int64)], 1, 1)
    assert got[1].tolist() == [24, 18, 1202, 4096, 802, 1604, 404, 8128, 404016]


MEMBER_ALIGNMENTS = """
struct __attribute__((packed)) P { char c; int i; short s; };
struct A { char c; int i __attribute__((aligned(16))); struct P p; double d; };
#pragma pack(2)
struct Q { char c; double d; };
#pragma pack()
union U { char c; long l; };
__kernel void k(__global uchar* scratch, __global long* out) {
    struct A a; struct P p; struct Q q; union U u; __global struct A* pa = (__global struct A*)scratch;
    out[0] = __alignof__(p.i) * 100 + __alignof__(p.c);
    out[1] = __alignof__(a.i) * 100 + __alignof__(a.p);
    out[2] = __alignof__(a.p.s) * 100 + __alignof__(a.d);
    out[3] = __alignof__(q.d) * 100 + __alignof__(u.l);
    out[4] = __alignof__(pa->p) * 100 + __alignof__(pa->i);
}
"""


def test_the_alignment_of_a_member_is_its_own(device_ctx: wia.Context) -> None:
    """``__alignof__(s.m)`` is the member's alignment in its struct, as Clang gives it: its type's, raised by
    ``aligned(16)``, and no more than its offset and the struct's alignment allow (a packed struct's members: 1;
    a double under ``#pragma pack(2)``: 2). A second sweep of 200 random kernels found it (the type's was used)."""
    got = run_arrays(device_ctx, MEMBER_ALIGNMENTS, "k", [np.zeros(64, np.uint8), np.zeros(5, np.int64)], 1, 1)
    assert got[1].tolist() == [101, 1601, 108, 208, 116]


ACCEPTED = """
struct B { int a; float f[2]; };
typedef struct { struct B in[3]; int n; } W;
typedef struct { int n; float v[]; } Rec;
struct D { char c; double d[]; };
__kernel void k(__global const int* in, __global uchar* scratch, __global long* out) {
    int g = get_global_id(0);
    int twice(int);
    float halved(float x), y = 2.0f;
    struct B x[2] = { {1, {2.0f, 3.0f}}, {in[g], {4.0f, 5.0f}} };
    W w; w.in[0].a = 7; w.in->f[1] = 9.5f; w.n = 3;
    (x + 1)->a += 100;
    x->a = 42;
    struct B z = (struct B)x[1];
    __global Rec* r = (__global Rec*)(scratch + 64 * g);
    r->n = 3;
    for (int i = 0; i < 3; i++) r->v[i] = in[g + i];
    float s = 0.0f;
    for (int i = 0; i < r->n; i++) s += r->v[i];
    out[8 * g] = x->a + 1000 * w.in->a;
    out[8 * g + 1] = (x + 1)->a;
    out[8 * g + 2] = ((struct B)z).a + (long)w.in->f[1];
    out[8 * g + 3] = twice(in[g]);
    out[8 * g + 4] = (long)(halved((float)in[g]) * y);
    out[8 * g + 5] = (long)s;
    out[8 * g + 6] = sizeof(Rec) * 100 + sizeof(struct D);
    out[8 * g + 7] = __builtin_offsetof(struct D, d) * 100 + (long)((__global char*)&r->v[2] - (__global char*)r);
}
int twice(int x) { return 2 * x; }
float halved(float x) { return x / 2; }
"""


def test_arrow_on_arrays_casts_to_the_own_type_local_prototypes_and_flexible_arrays(device_ctx: wia.Context) -> None:
    """What Clang builds and the simulator refused: ``->`` on an array (it decays to a pointer to its first
    element), a cast of a struct to its own type (the value), a function prototype inside a function, and a
    flexible array member (no size of its own: ``Rec`` is 4 bytes, ``struct D`` 8, its ``d`` at 8; indexed past
    the struct into the buffer without a bound of its own)."""
    n = 4
    values = np.random.default_rng().integers(-1000, 1000, n + 2).astype(np.int32)
    got = run_arrays(device_ctx, ACCEPTED, "k", [values, np.zeros(64 * n, np.uint8), np.zeros(8 * n, np.int64)], n, n)[
        2
    ].reshape(n, 8)
    v = values.astype(np.int64)
    assert (got[:, 0] == 7042).all()
    np.testing.assert_array_equal(got[:, 1], v[:n] + 100)
    np.testing.assert_array_equal(got[:, 2], v[:n] + 109)
    np.testing.assert_array_equal(got[:, 3], 2 * v[:n])
    np.testing.assert_array_equal(got[:, 4], v[:n])
    np.testing.assert_array_equal(got[:, 5], v[:n] + v[1 : n + 1] + v[2 : n + 2])
    assert (got[:, 6] == 408).all() and (got[:, 7] == 812).all()


@pytest.mark.parametrize(
    ("source", "messages"),
    [
        (
            "struct B { int a; } __attribute__((aligned(3)));\n__kernel void k(__global int* o) { o[0] = 1; }",
            ["kernel.cl:1:23: error: requested alignment is not a power of 2"],
        ),
        (
            "struct B { const int a; int b; };\nstruct N { int z; struct B in; };\n"
            "__kernel void k(__global int* o) {\n"
            "  struct N x = {1, {2, 3}}, y = {4, {5, 6}}; struct N arr[2] = {x, y};\n"
            "  x = y; arr[0] = y; x.in = y.in;\n  struct B* p = &x.in; *p = y.in;\n  o[0] = x.in.a;\n}",
            [
                "error: cannot assign to variable 'x' with nested const-qualified data member 'a'",
                "error: cannot assign to lvalue with nested const-qualified data member 'a'",
                "error: cannot assign to non-static data member 'in' with const-qualified data member 'a'",
                "error: cannot assign to lvalue with const-qualified data member 'a'",
            ],
        ),
        (
            "struct A { int a[]; int n; };\nstruct B { int a[]; };\nunion C { int n; int a[]; };\n"
            "__kernel void k(__global int* o) { o[0] = 1; }",
            [
                "kernel.cl:1:16: error: flexible array member 'a' with type 'int[]' is not at the end of struct",
                "kernel.cl:2:16: error: flexible array member 'a' not allowed in otherwise empty struct",
                "kernel.cl:3:22: error: flexible array member 'a' in a union is not allowed",
            ],
        ),
        (
            "struct B { int a; }; struct C { int a; };\n"
            "__kernel void k(__global int* o) { struct B x = {1}; o[0] = ((struct C)x).a + ((struct B)o[1]).a; }",
            [
                "error: used type 'struct C' where arithmetic or pointer type is required",
                "error: used type 'struct B' where arithmetic or pointer type is required",
            ],
        ),
    ],
)
def test_clang_errors(source: str, messages: list[str]) -> None:
    """Clang's errors, as PoCL and Oclgrind report them (the simulator built these; an assignment's error is placed
    at its target, Clang's at its ``=``)."""
    with pytest.raises(KernelCompileError) as err:
        compile_source(source)
    for message in messages:
        assert message in err.value.build_log
    assert err.value.build_log.count("error:") == len(messages)


def test_an_invalid_pragma_pack_is_a_warning_and_ignored() -> None:
    program = compile_source(
        "#pragma pack(3)\nstruct S { char c; int i; };\n#pragma pack(pop)\n"
        "__kernel void k(__global int* o) { o[0] = sizeof(struct S); }"
    )
    assert "kernel.cl:1:9: warning: expected #pragma pack parameter to be '1', '2', '4', '8', or '16'" in (
        program.build_log
    )
    assert "kernel.cl:3:9: warning: #pragma pack(pop, ...) failed: stack empty" in program.build_log
    assert layout("struct S", program.types).size == 8  # (no pack: the int at 4)


def test_offsetof_is_not_declared_in_opencl_c(device_ctx: wia.Context) -> None:
    """OpenCL C has no ``<stddef.h>``: a bare ``offsetof`` is an undeclared function on PoCL 3.1 and Oclgrind 21.10
    (the simulator took it as ``__builtin_offsetof``); a program may define it as a macro over the built-in."""
    body = "typedef struct { char c; int b; } S;\n__kernel void k(__global long* out) { out[0] = offsetof(S, b); }\n"
    refusal = build_error(device_ctx, body, "k")
    if wia.get_backend().name == "sim":
        assert "kernel.cl:2:48: error: implicit declaration of function 'offsetof'" in refusal
    defined = "#define offsetof(t, m) __builtin_offsetof(t, m)\n" + body
    assert run_arrays(device_ctx, defined, "k", [np.zeros(1, np.int64)], 1, 1)[0].tolist() == [4]


@pytest.mark.parametrize("name", ["int32_t", "uint8_t", "int64_t", "intmax_t", "uint_fast16_t"])
def test_stdint_names_are_not_opencl_types(device_ctx: wia.Context, name: str) -> None:
    """OpenCL C has no ``<stdint.h>``: ``int32_t`` and the like are undeclared on PoCL 3.1 and Oclgrind 21.10 (the
    simulator's parser knew them as types, and it ran them), unless the program defines them (a typedef, a macro)."""
    body = f"__kernel void k(__global long* out) {{ {name} x = 5; out[0] = x + sizeof({name}); }}\n"
    refusal = build_error(device_ctx, body, "k")
    assert f"use of undeclared identifier '{name}'" in refusal
    defined = f"typedef short {name};\n" + body
    assert run_arrays(device_ctx, defined, "k", [np.zeros(1, np.int64)], 1, 1)[0].tolist() == [7]
