"""``sizeof`` of an expression is its operand's static type's size, never the operand evaluated (C99 6.5.3.4):
an array member of a struct is its whole array in any address space (the simulator gave 8, a pointer's size, so
``for (i = 0; i < sizeof(s.data) / sizeof(int); i++)`` ran twice instead of 64 times), an array parameter is a
pointer, and ``sizeof(i++)`` leaves ``i`` alone. The operand was evaluated at run time: a large ``__local`` struct
was loaded at every loop test (11 s for a loop PoCL ran in under a second). On every backend against C's sizes."""

from __future__ import annotations

import numpy as np
from kernel_backends import build_error, run_arrays

import wia_hal as wia

SOURCE = r"""
struct B { int hdr; int data[64]; };
typedef struct { float3 v; char c; } S;

float param_sizes(float p[10], __global float* q) { return sizeof(p) + sizeof(q[0]) + sizeof(*q); }

__kernel void sizes(__global int* o, __global struct B* g, __global float* f)
{
    __local struct B lb;
    struct B pb;
    int arr[64];
    S s, sa[3];
    int i = 0;
    float ten[10];
    o[0] = sizeof(lb.data);
    o[1] = sizeof(pb.data);
    o[2] = sizeof(g->data);
    o[3] = sizeof(g[0].data);
    o[4] = sizeof(arr);
    o[5] = sizeof(lb);
    o[6] = sizeof(pb.data) / sizeof(pb.data[0]);
    o[7] = sizeof((&lb)->data);
    o[8] = sizeof(s.v) + 100 * sizeof(sa) + 10000 * sizeof(sa[1].c);
    o[9] = sizeof(i++) + 10 * i;
    int n = 0;
    for (int k = 0; k < sizeof(lb.data) / sizeof(int); k++)
        n++;
    o[10] = n;
    f[0] = param_sizes(ten, f);
}
"""


def test_sizeof_is_the_static_types_size(device_ctx: wia.Context) -> None:
    o, _, f = run_arrays(
        device_ctx, SOURCE, "sizes", [np.full(11, -1, np.int32), np.zeros(65, np.int32), np.zeros(1, np.float32)], 1, 1
    )
    np.testing.assert_array_equal(o, [256, 256, 256, 256, 256, 260, 64, 256, 16 + 100 * 96 + 10000, 4, 64])
    np.testing.assert_array_equal(f, [8 + 4 + 4])


TYPE_NAMES = r"""
typedef struct { char c; int v; } P;
__kernel void type_sizes(__global int* o)
{
    o[0] = sizeof(int[3][2]);
    o[1] = sizeof(float4[2]);
    o[2] = sizeof(float3);
    o[3] = sizeof(__global int*);
    o[4] = sizeof(P[5]);
    o[5] = sizeof(char);
}
"""


def test_sizeof_of_a_type_name(device_ctx: wia.Context) -> None:
    (o,) = run_arrays(device_ctx, TYPE_NAMES, "type_sizes", [np.full(6, -1, np.int32)], 1, 1)
    np.testing.assert_array_equal(o, [24, 32, 16, 8, 40, 1])


HANDLES = """
__kernel void k(__global int* o) {
    o[0] = sizeof(image2d_t); o[1] = _Alignof(image3d_t); o[2] = sizeof(sampler_t); o[3] = __alignof__(sampler_t);
    o[4] = sizeof(image1d_buffer_t) + sizeof(image2d_array_t) + sizeof(image1d_t) + sizeof(image1d_array_t);
    o[5] = sizeof(event_t); o[6] = _Alignof(event_t);
}
"""


def test_sizeof_of_an_image_sampler_or_event_type_is_a_handles(device_ctx: wia.Context) -> None:
    """OpenCL C 1.2 6.3 k leaves it implementation-defined; PoCL 3.1 and Oclgrind 21.10 give 8 (CTS test_sizeof
    asks for image3d_t even where a device has no images). The simulator refused the image and sampler types:
    "type 'image3d_t' can only be used as a function parameter in OpenCL (sizeof)"."""
    (o,) = run_arrays(device_ctx, HANDLES, "k", [np.full(7, -1, np.int32)], 1, 1)
    np.testing.assert_array_equal(o, [8, 8, 8, 8, 32, 8, 8])


def test_sizeof_of_an_array_of_unknown_length_is_a_build_error(device_ctx: wia.Context) -> None:
    # Clang: both devices refuse it; the simulator built it, as 0
    refusal = build_error(device_ctx, "__kernel void k(__global int* o) { o[0] = sizeof(int[]); }", "k")
    if wia.get_backend().name == "sim":
        assert "kernel.cl:1:43: error: invalid application of 'sizeof' to an incomplete type 'int[]'" in refusal


LITERAL_OPERANDS = r"""
__kernel void literal_operands(__global ulong* o) {
    int4 v = (int4)(1, 2, 3, 4);
    o[0] = sizeof (int4)(v);
    o[1] = sizeof (float2)(1.0f, 2.0f);
    o[2] = sizeof (char3)(1);
    o[3] = sizeof (int){7};
    o[4] = __alignof__ (short8)(v.x);
    o[5] = vec_step (int4)(v) + 10 * vec_step(float3)(1.0f);
    o[6] = sizeof (long2)((v).y) * vec_step  (uchar16)((uchar4)(v.x), (uchar4)(2), (uchar8)(3));
}
"""


def test_sizeof_alignof_and_vec_step_of_a_literal(device_ctx: wia.Context) -> None:
    """``sizeof (int4)(v)``: Clang reads the operand as the vector literal that starts after the type (and ``(int)
    {7}`` as a compound literal); pycparser stopped after the type, and ``vec_step`` became its value before a call."""
    (o,) = run_arrays(device_ctx, LITERAL_OPERANDS, "literal_operands", [np.full(7, 99, np.uint64)], 1, 1)
    np.testing.assert_array_equal(o, [16, 8, 4, 4, 16, 4 + 10 * 4, 16 * 16])  # (a 3-vector steps as four)


def test_sizeof_of_a_scalar_type_then_parentheses_is_a_build_error(device_ctx: wia.Context) -> None:
    # Clang: a cast to a scalar type is no literal
    refusal = build_error(device_ctx, "__kernel void k(__global int* o) { int v = 1; o[0] = sizeof (int)(v); }", "k")
    if wia.get_backend().name == "sim":
        assert "kernel.cl:1:66: error: expression cannot be followed by a postfix '(' operator" in refusal


CONSTANT_SIZES = r"""
__kernel void constant_sizes(__global int* o) {
    float4 v = (float4)(1.0f);
    int b[4] = {1, 2, 3, 4};
    int a[sizeof(v)];
    int c[sizeof(b) / sizeof(b[0])];
    enum { N = sizeof(v) / sizeof(v.x) };
    _Static_assert(sizeof(c) == 16, "c holds four ints");
    for (int i = 0; i < sizeof(c) / sizeof(c[0]); i++)
        c[i] = b[i] * 2;
    o[0] = sizeof(a);
    o[1] = sizeof(c);
    o[2] = N;
    o[3] = c[3];
    switch (o[3]) {
    case sizeof(b) / 2: o[4] = 1; break;
    default: o[4] = 2;
    }
}
"""


def test_sizeof_of_an_expression_is_an_integer_constant(device_ctx: wia.Context) -> None:
    """C99 6.6p6: ``sizeof`` of an expression (not a variable-length array) is an integer constant expression:
    array lengths (``sizeof(b) / sizeof(b[0])``, the element count idiom), enumerators, ``_Static_assert`` and
    case labels take it (the simulator refused it as a variable-length array: from a differential sweep)."""
    (o,) = run_arrays(device_ctx, CONSTANT_SIZES, "constant_sizes", [np.full(5, -1, np.int32)], 1, 1)
    np.testing.assert_array_equal(o, [64, 16, 4, 8, 1])


CONST_LENGTHS = r"""
#define LOGN 6
__constant int M = 4;
__kernel void const_lengths(__global int* o) {
    const int N = (1 << LOGN);
    const uchar U = 300;
    float2 d[N + 8 * (LOGN - 2)];
    int m[M];
    int u[U];
    __local float t[M * 2];
    for (int i = 0; i < M; i++)
        m[i] = i * 3;
    o[0] = sizeof(d);
    o[1] = sizeof(m) + m[M - 1];
    o[2] = sizeof(u);
    o[3] = sizeof(t);
}
"""


def test_a_const_integer_initialized_with_a_constant_is_an_array_length(device_ctx: wia.Context) -> None:
    """Clang folds a ``const`` integer variable whose initializer is a constant where C wants an integer constant
    expression (in C it would make a variable-length array), in a function or at program scope, converted to its
    type (``(uchar)300`` is 44). Real-world kernels size arrays this way (Altera's FFT: ``const int N = (1 <<
    LOGN); float2 d[N + ...]``); the simulator refused them as variable-length arrays."""
    (o,) = run_arrays(device_ctx, CONST_LENGTHS, "const_lengths", [np.full(4, -1, np.int32)], 1, 1)
    np.testing.assert_array_equal(o, [8 * 96, 16 + 9, 4 * 44, 32])


LITERALS = """__kernel void k(__global int* o) {
    o[0] = "__alignof__(int)"[2];
    o[1] = "__builtin_offsetof"[2] + "__builtin_offsetof"[10];
    o[2] = sizeof("__alignof");
    o[3] = __alignof__(int) + '_';
}
"""


def test_the_gnu_spellings_are_not_rewritten_inside_literals(device_ctx: wia.Context) -> None:
    """``__alignof__`` and ``__builtin_offsetof`` are rewritten for the parser (padded to keep columns), but not
    inside a string or character literal, whose bytes are the program's (the simulator printed
    ``printf("__builtin_offsetof")`` as ``offsetof``, padded)."""
    (o,) = run_arrays(device_ctx, LITERALS, "k", [np.zeros(4, np.int32)], 1, 1)
    np.testing.assert_array_equal(o, [ord("a"), ord("b") + ord("o"), 10, 4 + ord("_")])
