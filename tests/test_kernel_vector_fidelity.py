"""What a differential fuzz of vector and scalar expressions (2,800 kernels, the simulator against PoCL 3.1 and
Oclgrind 21.10) found the simulator doing otherwise than Clang: ``vec_step`` is a ``size_t``; scalar ``min``,
``max``, ``clamp`` and ``select`` of ``char``/``short`` keep their type (OpenCL C 1.2 6.12.3: no promotion; the
simulator carried them as ``int``); ``p->y`` on a pointer to a vector; a vector ``?:`` between two scalars of one
type keeps it; ``NAN`` is ``as_float(INT_MAX)``; ``++`` of a float vector and a vector literal from a vector of
another element type are build errors; a vector literal is a postfix expression, told by its parentheses. On every
backend, one expected answer."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from kernel_backends import assert_refused, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.program import KernelCompileError

SOURCE = """
__kernel void k(__global int* out) {
    char m1 = -1, z = 0, one = 1, two = 2;
    short s = 7;
    int4 v4;
    int i = 0;
    out[i++] = (vec_step(int4) - 5) < 0;
    out[i++] = (int)sizeof(vec_step(float2));
    out[i++] = (vec_step(v4) - 5) < 0;
    out[i++] = popcount(min(m1, z));
    out[i++] = clz(max(one, z));
    out[i++] = rotate((char)0x41, min(one, two));
    out[i++] = popcount(select(m1, m1, one));
    out[i++] = as_short(select(s, s, s));
    out[i++] = popcount(clamp(m1, m1, z));
    out[i++] = (int)sizeof(max(s, s));
    int2 q = (int2)(1, 2);
    int2* p = &q;
    out[i++] = p->y;
    p->x = 5;
    p->yx += (int2)(10, 20);
    out[i++] = q.x * 100 + q.y;
    uchar2 c = (uchar2)(1, 200);
    uchar2 r = c ? (uchar)9 : (uchar)8;
    out[i++] = r.x * 10 + r.y + 1000 * (int)sizeof(c ? (uchar)1 : (uchar)2);
    out[i++] = as_int(NAN);
    __global int4* g = (__global int4*)(out + 16);
    g->zw = (int2)(7, 8);
    g->xy = g->wz;
}
"""
EXPECTED = [0, 8, 0, 8, 7, -126, 8, 7, 8, 2, 2, 2512, 89 + 2000, 0x7FFFFFFF, -1, -1, 8, 7, 7, 8]


def test_vector_and_small_integer_expressions_on_every_device(device_ctx: wia.Context) -> None:
    (out,) = run_arrays(device_ctx, SOURCE, "k", [np.full(len(EXPECTED), -1, np.int32)], 1, 1)
    assert out.tolist() == EXPECTED


PARENTHESES = """
typedef float4 vec4;
__kernel void k(__global int* out) {
    int a = 5;
    int i = 0;
    int2 v = (int2)(a, (1, 2));
    out[i++] = v.x;
    out[i++] = v.y;
    int2 w = (int2)((1, 2));
    out[i++] = w.x;
    out[i++] = w.y;
    out[i++] = (int)sizeof((int4)(a).y);
    out[i++] = (int4)(a + 1).w;
    out[i++] = ((int4)(1, 2, 3, 4))[2];
    out[i++] = (int4)(a, 2, 3, 4)[3];
    float4 f = (float4)(1.5f, 2.5f, 3.5f, 4.5f);
    out[i++] = (int)((float)(f).y);
    out[i++] = (int)(vec4)(f).z;
    uint3 u = (uint3)(7, 8, 9);
    out[i++] = (uint3)(u).s2;
    out[i++] = (int)sizeof((int2)((1, 2)));
    out[i++] = (int)sizeof((int4)(a));
    int4 q = (int4)(a).y + (int4)(1, 2, 3, 4).zwxy.x;
    out[i++] = q.w;
    out[i++] = (int)((float2)(f.x, (f.y, f.z)).y * 10);
}

__kernel void more(__global int* out) {
    typedef int4 V;
    int4 v = (int4)(1, 2, 3, 4);
    int a[2] = {5, 6};
    int2 p = (int2)(7, 8);
    int i = 0;
    out[i++] = (int)sizeof((int2)(v.zw).y);
    out[i++] = (int2)(v.zw).y;
    out[i++] = (int)sizeof((int4)(a[1]).y);
    out[i++] = (int4)(a[1]).w;
    out[i++] = (int)sizeof((int4)((v).y));
    out[i++] = (int)vec_step((int2)((v).zw));
    out[i++] = (int)sizeof((V)(v).y);
    out[i++] = (V)(-3).y;
    out[i++] = (int)((0, p)).y;
    out[i++] = (int)(0, p).x;
    out[i++] = ((int4)((v).y)).w;
}
"""


def test_vector_literals_are_postfix_expressions_on_every_device(device_ctx: wia.Context) -> None:
    """What parentheses decide, which pycparser's AST drops: a member or subscript after ``(int4)(v)`` is the
    literal's, not ``v``'s (a scalar cast keeps C's reading), and ``((1, 2))`` is one part, a comma expression
    (PoCL 3.1 and Oclgrind 21.10 give these values; the simulator gave 1, 2 for ``(int2)((1, 2))`` and refused
    ``(int4)(a).y``)."""
    (out,) = run_arrays(device_ctx, PARENTHESES, "k", [np.full(16, -1, np.int32)], 1, 1)
    assert out.tolist() == [5, 2, 2, 2, 4, 6, 3, 4, 2, 3, 9, 8, 16, 8, 35, -1]
    # the literal ends at its parenthesized part, whatever that holds, and after it come the postfix operators;
    # the operand in parentheses of its own is the literal's part; a typedef in a function names a vector type;
    # a scalar cast of a parenthesized comma expression is C's (from a differential sweep of 600 kernels)
    (out,) = run_arrays(device_ctx, PARENTHESES, "more", [np.full(12, -1, np.int32)], 1, 1)
    assert out.tolist() == [4, 4, 4, 6, 16, 2, 4, -3, 8, 7, 2, -1]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("float2 f = (float2)(1.0f, 2.0f); f++;", "value of type '__private float2' (vector of 2 'float' values)"),
        ("double4 d = (double4)(1.0); --d.xy;", "value of type '__private double2' (vector of 2 'double' values)"),
        (
            "int2 i = (int2)(1, 2); float4 f = (float4)(i, 3.0f, 4.0f);",
            "initializing 'float' with an expression of incompatible type '__private int2' (vector of 2 'int' values)",
        ),
        ("int2 w = (int2)(5, 6); int2 z = (int2)(w)++;", "assignment to cast is illegal, lvalue casts are not"),
        ("int4 v = (int4)(1, 2, 3, 4); int4 z = (int4)(v).y++;", "expression is not assignable"),
        (  # (a random sweep's find: the simulator splatted the 7)
            "int4 v = (int4)(1, 2, 3, 4); int4 z = 7 >> v;",
            "requested shift is a vector of type '__private int4' (vector of 4 'int' values) but the first operand is "
            "not a vector ('int')",
        ),
    ],
)
def test_what_clang_refuses(body: str, message: str) -> None:
    source = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n__kernel void k(__global int* out) { " + body + " }"
    with pytest.raises(KernelCompileError) as e:
        compile_source(source)
    assert message in str(e.value)


EXT_VECTOR_TYPES = r"""
typedef int T __attribute__((ext_vector_type(3)));
typedef float F4 __attribute__((ext_vector_type(4)));
typedef uchar U16 __attribute__((__ext_vector_type__(16)));
__kernel void k(__global int* o) {
    T v = (T)(1, 2, 3);
    F4 f = (F4)(1.5f);
    U16 u = (U16)(200);
    int i = 0;
    o[i++] = sizeof(T);
    o[i++] = v.z;
    o[i++] = (int)(f.w * 2);
    o[i++] = (T)(4, 5, 6).y;
    o[i++] = vec_step(T);
    o[i++] = vec_step(F4);
    T w = v + (T)(10);
    o[i++] = w.x;
    o[i++] = (int)sizeof(f);
    o[i++] = (int)sizeof(u);
    o[i++] = (u + u).s7;
    int4 q = (int4)(v, 9);
    o[i++] = q.w * 10 + q.z;
}
"""


def test_clangs_vector_typedefs_on_every_device(device_ctx: wia.Context) -> None:
    """``typedef int T __attribute__((ext_vector_type(3)))`` (how Clang's opencl-c.h makes the vector types) is
    ``int3``: its literals, swizzles, arithmetic, ``sizeof`` and ``vec_step`` (the simulator took ``T`` for
    ``int``; found by hand beside the differential sweep)."""
    (out,) = run_arrays(device_ctx, EXT_VECTOR_TYPES, "k", [np.full(12, -1, np.int32)], 1, 1)
    assert out.tolist() == [16, 3, 3, 5, 4, 4, 11, 16, 16, 144, 93, -1]


GCC_VECTORS = """
typedef int v4si __attribute__((vector_size(16)));
typedef float v8sf __attribute__((__vector_size__(32)));
typedef uchar v16qu __attribute__((vector_size(16)));
__kernel void k(__global const int* in, __global int* o, __global float* f) {
    int i = get_global_id(0);
    v4si v = {1, 2, 3, in[i]};
    v = v + v * 3;
    v8sf s = (v8sf)(1.5f, 2.0f, 0.5f, 4.0f, 1.0f, 1.0f, 1.0f, (float)in[i]);
    s = s * 2.0f;
    v16qu c = {200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213, 214, 215};
    c = c + (uchar)100;
    v4si m = v > 8;
    int4 same = v;
    o[4 * i] = v[3];
    o[4 * i + 1] = c[5] + c[15] * 1000;
    o[4 * i + 2] = m[1] + m[2] * 10 + same.w * 100;
    o[4 * i + 3] = (int)sizeof(v8sf) + (int)sizeof(v16qu) * 100;
    f[i] = s[7] + s[0];
}
"""


def test_gcc_vector_size_typedefs_are_vectors_on_every_device(device_ctx: wia.Context) -> None:
    """GCC's ``typedef int v4si __attribute__((vector_size(16)))``, which Clang takes in OpenCL C: a vector of as
    many components as fit (the simulator took ``v4si`` for an ``int``: "excess elements in scalar initializer"):
    its brace lists, literals, arithmetic with a scalar, subscripts, comparisons and ``sizeof``."""
    data = np.array([5, -7, 40], np.int32)
    _, o, f = run_arrays(device_ctx, GCC_VECTORS, "k", [data, np.zeros(12, np.int32), np.zeros(3, np.float32)], 3, 1)
    v3 = data * 4
    assert o.reshape(3, 4).tolist() == [
        [int(x), (205 + 100) % 256 + (215 + 100) % 256 * 1000, 0 - 1 * 10 + int(x) * 100, 32 + 1600] for x in v3
    ]
    assert f.tolist() == (data.astype(np.float32) * 2 + 3).tolist()


RGBA = """
__kernel void k(__global const float4* src, __global float* out) {
    float4 v = src[0];
    float4 w = (float4)(0.0f);
    w.a = v.r;
    w.rgb = v.abg;
    vstore4(w, 0, out);
    vstore2(v.ga, 2, out);
    out[6] = (v.ba + v.rg).g;
}
"""


def test_rgba_component_names_build_with_clangs_warning_on_every_device(
    device_ctx: wia.Context, request: pytest.FixtureRequest
) -> None:
    """OpenCL C 3.0's ``.rgba`` names (the CTS's vector swizzle test uses them): Clang takes them in OpenCL C 1.2
    with a warning per use, naming its first component (a ``KernelBuildWarning`` at ``compile_kernel``), and PoCL
    3.1 and Oclgrind 21.10 run them as ``.xyzw`` (the simulator refused them)."""
    args = [np.array([1, 2, 3, 4], np.float32), np.zeros(7, np.float32)]
    if request.node.callspec.params.get("device_ctx") != "sim":  # (no build log through the OpenCL backend)
        (_, out) = run_arrays(device_ctx, RGBA, "k", args, 1, 1)
        assert out.tolist() == [4, 3, 2, 1, 2, 4, 6]
        return
    with pytest.warns(wia.KernelBuildWarning, match="vector component name 'a' is a feature from OpenCL version 3.0"):
        (_, out) = run_arrays(device_ctx, RGBA, "k", args, 1, 1)
    assert out.tolist() == [4, 3, 2, 1, 2, 4, 6]
    with warnings.catch_warnings():  # (``-W error``: the build fails, as ``-Werror`` makes it, with a WiaError)
        warnings.simplefilter("error", wia.KernelBuildWarning)
        with pytest.raises(wia.CompileError, match="vector component name 'r' is a feature"):
            wia.compile_kernel(device_ctx, RGBA, "k")
    log = compile_source(RGBA, "", "kernel.cl").build_log.splitlines()
    assert log == [
        f"kernel.cl:{line}:{column}: warning: vector component name '{c}' is a feature from OpenCL version 3.0 onwards"
        for line, column, c in [
            (5, 6, "a"),
            (5, 12, "r"),
            (6, 6, "r"),
            (6, 14, "a"),
            (8, 14, "g"),
            (9, 16, "b"),
            (9, 23, "r"),
            (9, 27, "g"),
        ]
    ]


VEC_STEP_SPELLED = """
__kernel void k(__global int* d) {
    int i = 0;
    d[i++] = vec_step(unsigned int);
    d[i++] = vec_step(unsigned char) + vec_step(signed short) * 10;
    d[i++] = vec_step(const float4);
    d[i++] = vec_step(__global int3);
    d[i++] = vec_step(volatile __local uchar16);
    d[i++] = vec_step(unsigned) + vec_step(const unsigned long) * 10;
    d[i++] = (int)sizeof(vec_step(unsigned short));
}
"""


def test_vec_step_of_a_type_spelled_in_words_or_qualified_on_every_device(device_ctx: wia.Context) -> None:
    """``vec_step`` of a type name takes any, as ``sizeof`` does: C's ``unsigned int``, qualified ones (``const
    float4``, ``__global int3``); the simulator refused them ("invalid expression"; found by the CTS probe)."""
    (out,) = run_arrays(device_ctx, VEC_STEP_SPELLED, "k", [np.full(7, -1, np.int32)], 1, 1)
    assert out.tolist() == [1, 11, 4, 4, 16, 11, 8]


VEC_STEP_SCOPED = """
typedef float4 T;
typedef T U;
__kernel void k(__global ulong* o) {
    o[0] = vec_step(T);
    o[1] = vec_step(U);
    { typedef int2 T; o[2] = vec_step(T); }
    o[3] = vec_step(T);
    { float3 T = (float3)(0); o[4] = vec_step(T); }
    int3 x; o[5] = vec_step(x);
    o[6] = vec_step ( U ) * 10;
    float a[vec_step(T)]; o[7] = sizeof(a);
    switch (o[0]) { case vec_step(U): o[8] = 1; }
    o[9] = vec_step(void);
}
"""


def test_vec_step_of_a_name_is_of_what_the_name_is_in_its_scope_on_every_device(device_ctx: wia.Context) -> None:
    """``vec_step(name)`` of a typedef (of a typedef) or a variable, the name taken as its scope has it: a block's
    own typedef, a variable that hides a typedef; in constant expressions too. The simulator read the name as the
    last file-wide typedef of that name, before it parsed the program (found by the CTS probe)."""
    (out,) = run_arrays(device_ctx, VEC_STEP_SCOPED, "k", [np.zeros(10, np.uint64)], 1, 1)
    assert out.tolist() == [4, 4, 2, 4, 4, 4, 40, 16, 1, 1]


@pytest.mark.parametrize(
    ("prelude", "local", "operand", "message"),
    [
        ("typedef struct { int x; } S;", "", "S", "'S' invalid"),
        ("typedef struct { int x; } S;", "S s;", "s", "'__private S' invalid"),
        ("", "int a[3];", "a", "'__private int[3]' invalid"),
        ("typedef __global float* P;", "", "P", "'P' (aka '__global float *') invalid"),
        ("typedef __global float* P; typedef P* PP;", "", "PP", "'PP' (aka '__global float *__private *') invalid"),
        ("", "", "__global int*", "'__global int *' invalid"),
        ("", "", "int*", "'__private int *' invalid"),
        ("", "", "int[4]", "'int[4]' invalid"),
        ("", "__global long* const restrict q = 0;", "q", "'__global long *const restrict __private' invalid"),
        ("", "volatile __global long* q = 0;", "q", "'volatile __global long *__private' invalid"),
    ],
)
def test_vec_step_of_a_name_of_no_scalar_or_vector_type_is_clangs_error(
    device_ctx: wia.Context, request: pytest.FixtureRequest, prelude: str, local: str, operand: str, message: str
) -> None:
    source = f"{prelude}\n__kernel void k(__global ulong* o) {{ {local} *o = vec_step({operand}); }}"
    assert_refused(device_ctx, request, source, f"'vec_step' requires built-in scalar or vector type, {message}")


@pytest.mark.parametrize(
    ("statement", "column"),
    [
        ("float s = sincos(o[0], &w.x);", 24),  # (VkFFT's double sincos without its twiddle table)
        ("float* p = &w.y;", 12),
        ("float* p = &(w[1]);", 12),
        ("struct { float2 v; } s; float* p = &s.v.x;", 36),
    ],
)
def test_the_address_of_a_vector_element_is_clangs_error(
    device_ctx: wia.Context, request: pytest.FixtureRequest, statement: str, column: int
) -> None:
    """The simulator took ``&w.x`` (and ran it as far as it could); PoCL 3.1 and Oclgrind 21.10 refuse it."""
    source = f"__kernel void k(__global float* o) {{\nfloat2 w = 1; {statement}\n}}\n"
    assert_refused(device_ctx, request, source, "address of vector element requested", f"2:{column + 14}")
