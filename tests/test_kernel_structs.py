"""Structs, unions, aggregate initializers and declared-array bounds on the simulator (issue 16).

Layouts are compared with NumPy structured dtypes (``align=True``, with a vector member's alignment given
explicitly: NumPy aligns a ``(float32, 4)`` field to 4 bytes, OpenCL C to 16); values with float64/exact NumPy
references over fresh random data; compile errors by message and line; HAL argument errors by error code.
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import run_arrays, use_backend

import wia_hal as wia
from wia_sim.kernels import run_kernel
from wia_sim.kernels.frontend import compile_source
from wia_sim.kernels.lanes import launch_geometry
from wia_sim.kernels.program import KernelCompileError
from wia_sim.kernels.structs import layout

LAYOUTS = r"""
struct A { char c; int i; short s; };
struct B { char c; double d; };
struct C { float3 v; char c; };
struct D { char c; float4 v; int a[3]; };
union U { char c; double d; int4 v; };
struct E { struct A a; char c; union U u; };
struct __attribute__((packed)) F { char c; int i; short s; };
struct __attribute__((aligned(32))) G { int i; };
__kernel void k(__global int* out) { out[0] = 0; }
"""


def _dtype(fields: list[tuple[str, object, int]], itemsize: int) -> np.dtype:
    return np.dtype(
        {
            "names": [f[0] for f in fields],
            "formats": [f[1] for f in fields],
            "offsets": [f[2] for f in fields],
            "itemsize": itemsize,
        }
    )


def test_layouts_follow_opencl_c_rules_and_match_numpy() -> None:
    types = compile_source(LAYOUTS).types
    a = layout("struct A", types)
    want_a = np.dtype([("c", np.int8), ("i", np.int32), ("s", np.int16)], align=True)
    assert (a.size, a.align) == (want_a.itemsize, want_a.alignment) == (12, 4)
    assert [m.offset for m in a.members] == [want_a.fields[n][1] for n in ("c", "i", "s")]
    b = layout("struct B", types)
    want_b = np.dtype([("c", np.int8), ("d", np.float64)], align=True)
    assert (b.size, b.members[1].offset) == (want_b.itemsize, want_b.fields["d"][1]) == (16, 8)
    c = layout("struct C", types)  # a float3 takes 16 bytes, aligned to 16
    assert (c.size, c.align, c.members[1].offset) == (32, 16, 16)
    d = layout("struct D", types)
    assert [m.offset for m in d.members] == [0, 16, 32] and d.size == 48
    u = layout("union U", types)
    assert (u.size, u.align) == (16, 16) and all(m.offset == 0 for m in u.members)
    e = layout("struct E", types)
    assert [m.offset for m in e.members] == [0, 12, 16] and e.size == 32
    f = layout("struct F", types)
    assert (f.size, [m.offset for m in f.members]) == (7, [0, 1, 5])
    assert layout("struct G", types).size == 32
    sized = compile_source(
        LAYOUTS.replace("out[0] = 0;", "int a[sizeof(struct D) / 4]; a[11] = 1; out[0] = a[11] + sizeof(union U[3]);")
    )
    assert sized.kernel("k")


PARTICLES = r"""
typedef struct { float4 pos; float4 vel; float mass; int id; } Particle;
typedef struct { float dt; float3 gravity; } Params;

Particle advance(Particle p, Params q) {
    p.vel.xyz += q.gravity * q.dt;
    p.pos += p.vel * q.dt;
    return p;
}

__kernel void update(__global Particle* ps, Params q, int4 flags) {
    int i = get_global_id(0);
    Particle p = ps[i];
    p = advance(p, q);
    p.id += flags.y;
    ps[i] = p;
    ps[i].mass *= 2.0f;
}
"""

PARTICLE = _dtype(
    [("pos", (np.float32, 4), 0), ("vel", (np.float32, 4), 16), ("mass", np.float32, 32), ("id", np.int32, 36)], 48
)
PARAMS = _dtype([("dt", np.float32, 0), ("gravity", (np.float32, 3), 16)], 32)


def test_struct_buffer_by_value_struct_and_vector_arguments(ctx: wia.Context) -> None:
    rng = np.random.default_rng(11)
    n = 64
    ps = np.zeros(n, PARTICLE)
    ps["pos"] = rng.standard_normal((n, 4))
    ps["vel"] = rng.standard_normal((n, 4))
    ps["mass"] = rng.random(n) + 0.5
    ps["id"] = rng.integers(0, 1000, n)
    q = np.zeros((), PARAMS)
    q["dt"], q["gravity"] = 0.25, (0.0, -9.8, 0.5)
    buf = wia.tensor(np.frombuffer(ps.tobytes(), np.int8).copy(), ctx=ctx)
    kernel = wia.compile_kernel(ctx, PARTICLES, "update")
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=n, local_size=16), buf, q[()], np.array([0, 7, 0, 0]))
    got = np.frombuffer(buf.numpy().tobytes(), PARTICLE)
    vel = ps["vel"].astype(np.float64)
    vel[:, :3] += np.float64(0.25) * np.array([0.0, -9.8, 0.5], np.float32).astype(np.float64)
    pos = ps["pos"] + vel * 0.25
    np.testing.assert_allclose(got["vel"], vel, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got["pos"], pos, rtol=1e-6, atol=1e-5)
    np.testing.assert_array_equal(got["mass"], ps["mass"] * 2)
    np.testing.assert_array_equal(got["id"], ps["id"] + 7)


def test_struct_argument_of_the_wrong_size_is_invalid_value(ctx: wia.Context) -> None:
    kernel = wia.compile_kernel(ctx, PARTICLES, "update")
    with pytest.raises(wia.InvalidValueError, match="32 bytes"):
        wia.set_kernel_arg(kernel, 1, b"\0" * 28)
    with pytest.raises(wia.InvalidValueError, match="structured"):
        wia.set_kernel_arg(kernel, 1, 3.0)
    with pytest.raises(wia.InvalidValueError, match="give one number or 4"):
        wia.set_kernel_arg(kernel, 2, [1, 2, 3])
    with pytest.raises(wia.InvalidValueError, match="outside"):
        wia.set_kernel_arg(kernel, 2, [1, 2, 3, 2**40])
    wia.set_kernel_arg(kernel, 1, b"\0" * 32)
    param = kernel.signature.params[1]
    assert (param.kind, param.type_name, param.nbytes) == ("scalar", "Params", 32)
    buffer = kernel.signature.params[0]
    assert (buffer.kind, buffer.type_name, buffer.dtype, buffer.address_space) == ("buffer", "Particle", None, "global")


PRIVATE = r"""
struct In { int a[3]; float4 v; };
struct Out { struct In in; char tag; union { float f; uint u; } pun; };
struct Out make(int x) {
    struct Out o = { { {x, x + 1, x + 2}, (float4)(1.0f, 2.0f, 3.0f, 4.0f) }, 'q', { 1.5f } };
    return o;
}
__kernel void k(__global int* out, __global const float* f) {
    int i = get_global_id(0);
    struct Out o = make(i);
    struct Out c = o;
    c.in.a[1] = 100;
    struct In arr[2] = { o.in, { .v = (float4)(9.0f), .a = {7} } };
    o.pun.f = f[i];
    long16 d[] = {0, 1, 2};
    out[i * 8 + 0] = o.in.a[0] + o.in.a[2];
    out[i * 8 + 1] = c.in.a[1] + o.in.a[1];
    out[i * 8 + 2] = (int)o.pun.u;
    out[i * 8 + 3] = arr[1].a[0] + (int)arr[1].v.w + arr[1].a[2] + arr[0].a[1];
    out[i * 8 + 4] = make(i).tag + (int)make(i).in.v.z;
    out[i * 8 + 5] = (int)(d[0].s0 + d[1].sF * 10 + d[2].s7 * 100);
    out[i * 8 + 6] = sizeof(struct Out) + sizeof(arr) * 1000;
    out[i * 8 + 7] = (i & 1 ? o : c).in.a[1];
}
"""


def test_private_structs_unions_initializers_and_long16_splats(ctx: wia.Context) -> None:
    n = 32
    rng = np.random.default_rng(5)
    f = rng.standard_normal(n).astype(np.float32)
    out = wia.zeros(n * 8, dtype=wia.int32, ctx=ctx)
    kernel = wia.compile_kernel(ctx, PRIVATE, "k")
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=n, local_size=8), out, wia.tensor(f, ctx=ctx))
    got = out.numpy().reshape(n, 8)
    i = np.arange(n)
    np.testing.assert_array_equal(got[:, 0], 2 * i + 2)
    np.testing.assert_array_equal(got[:, 1], 100 + i + 1)
    np.testing.assert_array_equal(got[:, 2], f.view(np.int32))
    np.testing.assert_array_equal(got[:, 3], 7 + 9 + 0 + i + 1)
    np.testing.assert_array_equal(got[:, 4], ord("q") + 3)
    np.testing.assert_array_equal(got[:, 5], 0 + 10 + 200)  # one splat per element, as Clang gives
    np.testing.assert_array_equal(got[:, 6], 48 + 64 * 1000)
    np.testing.assert_array_equal(got[:, 7], np.where(i & 1, i + 1, 100))


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("struct S { int a; }; __kernel void k(__global int* o) { struct S s; o[0] = s.b; }", "no member named 'b'"),
        ("struct S { int a; }; __kernel void k(__global struct S* p) { p.a = 1; }", "did you mean to use '->'?"),
        ("struct S { int a; }; __kernel void k(__global int* o) { struct S s; o[0] = s->a; }", "is not a pointer"),
        ("struct S; __kernel void k(__global int* o) { struct S s; o[0] = 0; }", "incomplete type"),
        ("struct S; __kernel void k(__global int* o) { o[0] = sizeof(struct S); }", "incomplete type"),
        (
            "struct S { int a; }; __kernel void k(__global int* o) { struct S s, t; s.a = 1; t = s + s; }",
            r"invalid operands to binary expression \('__private struct S' and '__private struct S'\)",
        ),
        (
            "struct S { int a; }; struct T { int a; }; void f(struct S s) { struct T t = s; }",
            "initializing '__private struct T' with an expression of incompatible type '__private struct S'",
        ),
        (
            "struct S { int a; }; __kernel void k(__global int* o) { struct S s = { .b = 1 }; }",
            "field designator 'b' does not refer to any field in type '__private struct S'",
        ),
        (
            "struct S { int a; }; __kernel void k(__global int* o) { struct S s = {1}; o[0] = (o[1] ? s : 2).a; }",
            "incompatible operand types",
        ),
        (
            "struct S { int a; }; int f(struct S s) { return s.a; } __kernel void k(__global int* o) { o[0] = f(1); }",
            "passing 'int' to parameter of incompatible type 'struct S'",
        ),
        (
            "struct S { char c; int a __attribute__((deprecated)); }; __kernel void k(__global struct S* o) { }",
            "attribute 'deprecated' on struct member 'a'",
        ),
        # Clang's errors, from a differential sweep of 675 struct and union kernels against PoCL and Oclgrind (the
        # simulator built these: ``!s`` and a struct holding itself then crashed, ``(int)s`` was NOT_SUPPORTED)
        (
            "struct S { int a; }; __kernel void k(__global int* o) { struct S s = {1}; o[0] = !s; }",
            "invalid argument type 'struct S' to unary expression",
        ),
        (
            "struct S { int a; }; __kernel void k(__global int* o) { struct S s = {1}; o[0] = (int)s; }",
            "operand of type 'struct S' where arithmetic or pointer type is required",
        ),
        (
            "struct S { int a; struct S b; }; __kernel void k(__global int* o) { o[0] = 1; }",
            "incomplete type 'struct S'",
        ),
        (
            "__kernel void k(__global int* o) { union U { int a; union U u[2]; }; o[0] = 1; }",
            "field has incomplete type 'union U'",
        ),
        ("struct S { int a; float a; }; __kernel void k(__global int* o) { o[0] = 1; }", "duplicate member 'a'"),
    ],
)
def test_compile_errors(source: str, message: str) -> None:
    with pytest.raises(KernelCompileError, match=message) as err:
        compile_source(source)
    assert "kernel.cl:1:" in err.value.build_log


def test_an_attribute_after_a_function_body_begins_the_next_function() -> None:
    """``}`` then ``__attribute__((always_inline))``: the next declaration's attribute, not a struct's (it was
    reported as one)."""
    source = """
struct S { int a; };
struct S make(int x) { struct S s; s.a = x; return s; }
__attribute__((always_inline)) int twice(int x) { return 2 * x; }
__kernel void k(__global int* o) { o[get_global_id(0)] = twice(make(3).a); }
"""
    o = np.zeros(4, np.int32)
    run_kernel(compile_source(source), "k", [o.view(np.uint8)], launch_geometry((4, 1, 1), (4, 1, 1), 256, 1))
    assert o.tolist() == [6, 6, 6, 6]


OOB = r"""
struct S { int a[4]; int after; };
__kernel void k(__global int* out, int n) {
    int i = get_global_id(0);
    struct S s = { {1, 2, 3, 4}, 5 };
    int p[2][4];
    p[0][i & 3] = i;
    out[i] = s.a[n] + p[0][i & 3];
}
"""


def test_an_index_past_a_struct_member_array_is_out_of_bounds_even_inside_the_struct(ctx: wia.Context) -> None:
    """Inside the struct (``s.a[4]`` is ``s.after``), a lower-severity finding: the struct's bytes read there, as
    every device reads them (JtR's sha512crypt indexes a union's 8-byte member so); past the struct, the finding
    that stops the kernel."""
    kernel = wia.compile_kernel(ctx, OOB, "k")
    out = wia.zeros(8, dtype=wia.int32, ctx=ctx)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=8), out, 3)
    np.testing.assert_array_equal(out.numpy(), 4 + np.arange(8))
    inside = (
        r"kernel.cl:8: out-of-bounds read at index 4 of a 4-element array member of a struct in __private "
        r"variable 's' \(inside its memory\)"
    )
    with pytest.warns(wia.KernelFindingWarning, match=inside):
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=8), out, 4)
    np.testing.assert_array_equal(out.numpy(), 5 + np.arange(8))
    with pytest.raises(wia.InvalidMemoryError, match=r"kernel.cl:8: out-of-bounds read at index 5 of a 4-element"):
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=8), out, 5)


DESIGNATED = r"""
__constant int table[6] = {[4] = 40, [1] = 10, 11};
__kernel void k(__global int* out) {
    int i = get_global_id(0);
    int t[5] = {[3] = 3, [0] = i};
    out[i * 2] = t[i % 5] + table[i % 6];
    int4 v[2] = {{1, 2, 3, 4}, 5};
    out[i * 2 + 1] = v[0].w + v[1].z;
}
"""


def test_array_designators_and_vector_elements(ctx: wia.Context) -> None:
    n = 16
    out = wia.zeros(n * 2, dtype=wia.int32, ctx=ctx)
    wia.launch_kernel(wia.compile_kernel(ctx, DESIGNATED, "k"), wia.LaunchConfig(global_size=n), out)
    i = np.arange(n)
    t = np.stack([i, 0 * i, 0 * i, 3 + 0 * i, 0 * i], axis=1)[i, i % 5]
    table = np.array([0, 10, 11, 0, 40, 0])
    got = out.numpy().reshape(n, 2)
    np.testing.assert_array_equal(got[:, 0], t + table[i % 6])
    np.testing.assert_array_equal(got[:, 1], 4 + 5)


VEC3 = r"""
typedef struct { int a; float3 v; } S3;
__kernel void k(__global float* out, float3 w, S3 s, uchar2 c) {
    int i = get_global_id(0);
    out[i] = w.x * i + w.y + w.z * 100.0f + s.v.z * 1000.0f + (float)(s.a + c.y);
}
"""


@pytest.mark.parametrize("backend", ["sim", "pocl"])
def test_struct_and_3_vector_arguments_through_the_hal_on_each_backend(
    backend: str, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A float3 argument is given as 3 numbers (the OpenCL backend passes the 16 bytes a 3-vector takes), a struct
    as a NumPy structured scalar of the kernel's size, the same on the simulator and on a real device."""
    use_backend(backend, monkeypatch, tmp_path_factory)
    try:
        ctx = wia.create_context()
        s = np.zeros((), _dtype([("a", np.int32, 0), ("v", (np.float32, 3), 16)], 32))
        s["a"], s["v"] = 7, (1.0, 2.0, 3.0)
        out = wia.zeros(16, ctx=ctx)
        kernel = wia.compile_kernel(ctx, VEC3, "k")
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=16), out, [0.5, 2.0, 3.0], s[()], (1, 9))
        i = np.arange(16)
        np.testing.assert_array_equal(out.numpy(), 0.5 * i + 2.0 + 300.0 + 3000.0 + 16.0)
        with pytest.raises(wia.InvalidValueError):
            wia.set_kernel_arg(kernel, 2, 5)
        with pytest.raises(wia.InvalidValueError, match="32 bytes"):  # the device's own sizeof on OpenCL
            wia.set_kernel_arg(kernel, 2, b"\0" * 20)
        assert kernel.signature.params[2].nbytes == 32
        wia.destroy_context(ctx)
    finally:
        wia.set_backend("sim")


@pytest.mark.parametrize("backend", ["sim", "pocl"])
def test_a_vector_argument_given_as_a_record_of_its_components(
    backend: str, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A vector by value as a NumPy record of its components, the form PyOpenCL's ``cltypes.float4`` and
    ``float3`` (four fields: ``cl_float3``'s) take, as OpenMM passes its box vectors; a record of other fields is
    refused with what it should be."""
    use_backend(backend, monkeypatch, tmp_path_factory)
    try:
        ctx = wia.create_context()
        float4 = np.dtype([("x", np.float32), ("y", np.float32), ("z", np.float32), ("w", np.float32)])
        w = np.array((0.5, 2.0, 3.0, 9.0), float4)[()]
        s = np.zeros((), _dtype([("a", np.int32, 0), ("v", (np.float32, 3), 16)], 32))
        s["a"], s["v"] = 7, (1.0, 2.0, 3.0)
        out = wia.zeros(16, ctx=ctx)
        kernel = wia.compile_kernel(ctx, VEC3, "k")
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=16), out, w, s[()], (1, 9))
        i = np.arange(16)
        np.testing.assert_array_equal(out.numpy(), 0.5 * i + 2.0 + 300.0 + 3000.0 + 16.0)
        with pytest.raises(wia.InvalidValueError, match="3 fields of float32"):
            wia.set_kernel_arg(kernel, 1, np.zeros((), [("x", np.float64), ("y", np.float64), ("z", np.float64)]))
        wia.destroy_context(ctx)
    finally:
        wia.set_backend("sim")


PRIVATE_OOB = r"""
__kernel void k(__global int* out, int j, int off) {
    int i = get_global_id(0);
    int p[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
    int* q = &p[0][0];
    out[i] = q[off] + p[1][j];
}
"""


@pytest.mark.parametrize(
    ("j", "off", "message"),
    [
        (4, 0, r"kernel.cl:6: out-of-bounds read at index 4 of a 4-element array, __private array 'p'"),
        (-5, 0, r"kernel.cl:6: out-of-bounds read at index -5 of a 4-element array, __private array 'p'"),
        (0, 8, r"kernel.cl:6: out-of-bounds read of 4 bytes at offset 32 of a 32-byte __private array 'p'"),
    ],
)
def test_private_arrays_are_bounded_by_each_dimension_and_by_the_allocation(
    ctx: wia.Context, j: int, off: int, message: str
) -> None:
    """An index past one dimension that leaves the array (p[1][4] would be p[2][0]; p[1][-5] p[0][-1]) stops the
    kernel (p[1][-1], inside it, is a lower-severity finding); a pointer into the array is bounded by the whole
    array. Both are INVALID_MEMORY; checks off, both run."""
    kernel = wia.compile_kernel(ctx, PRIVATE_OOB, "k")
    out = wia.zeros(4, dtype=wia.int32, ctx=ctx)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=4), out, 3, 7)
    np.testing.assert_array_equal(out.numpy(), [8 + 8] * 4)
    with pytest.raises(wia.InvalidMemoryError, match=message):
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=4), out, j, off)


PER_LANE_INIT = r"""
__kernel void k(__global int* out) {
    int i = get_global_id(0);
    int a[] = {i, 2 * i, 7};
    int m[2][2] = {{i, 1}, {-i}};
    out[i] = a[0] * 100 + a[1] * 10 + a[2] + m[1][0] * 1000 + m[1][1] + (int)sizeof(a);
}
"""


def test_array_initializers_that_differ_between_work_items(ctx: wia.Context) -> None:
    out = wia.zeros(64, dtype=wia.int32, ctx=ctx)
    wia.launch_kernel(wia.compile_kernel(ctx, PER_LANE_INIT, "k"), wia.LaunchConfig(global_size=64), out)
    i = np.arange(64)
    np.testing.assert_array_equal(out.numpy(), i * 100 + 20 * i + 7 - 1000 * i + 12)


ALIGNOF = """
typedef struct { char c; float4 v; } S;
typedef struct __attribute__((packed)) { char c; int i; } P;
__kernel void k(__global int* out)
{
    int sized[_Alignof(S) / 4];                      // a constant expression: an array length
    sized[0] = (int)__alignof__(float4);
    out[0] = sized[0];
    out[1] = (int)_Alignof(S);
    out[2] = (int)__alignof(P);
    out[3] = (int)__alignof__(float3);
    out[4] = (int)__alignof__(short2);
    out[5] = (int)__alignof__(__global int*);
    out[6] = (int)(sizeof(sized) / sizeof(int));
}
"""


def test_alignof_agrees_with_the_devices(device_ctx: wia.Context) -> None:
    """``_Alignof`` and Clang's ``__alignof__``/``__alignof`` of scalars, vectors (a 3-vector as a 4-vector),
    structs (packed ones too) and pointers: the layout rules the struct code uses, held to the devices'."""
    got = run_arrays(device_ctx, ALIGNOF, "k", [np.zeros(7, np.int32)], 1, 1)[0]
    assert got.tolist() == [16, 16, 1, 16, 4, 8, 4]


TRAILING_ATTRIBUTES = """
typedef union {
    struct { float x, y; } __attribute__ ((aligned (8)));
    struct { float real, imag; } __attribute__ ((aligned (8)));
} cfloat_t;
typedef struct { float a; int b; } __attribute__((aligned(16))) S16;
typedef struct { char c; int v; } __attribute__((packed)) Pk;
struct __attribute__((aligned(8))) T { char c; } __attribute__((aligned(32)));
__kernel void k(__global int* o, __global cfloat_t* out) {
    cfloat_t c; c.real = 1.0f; c.imag = 2.0f;
    out[0] = c;
    out[1].x = c.y;
    out[1].y = c.x;
    o[0] = sizeof(cfloat_t); o[1] = __alignof__(cfloat_t);
    o[2] = sizeof(S16); o[3] = __alignof__(S16);
    o[4] = sizeof(Pk); o[5] = sizeof(struct T); o[6] = __alignof__(struct T);
}
"""


def test_attributes_after_the_closing_brace(device_ctx: wia.Context) -> None:
    """``struct {...} __attribute__((aligned(16)))`` lays the struct out as GCC and Clang do (pyopencl's
    ``pyopencl-complex.h`` declares ``cfloat_t`` so; the simulator refused it): the sizes and alignments PoCL and
    Oclgrind give, and both members of the union's anonymous structs."""
    o, out = run_arrays(device_ctx, TRAILING_ATTRIBUTES, "k", [np.zeros(7, np.int32), np.zeros(4, np.float32)], 1, 1)
    np.testing.assert_array_equal(o, [8, 8, 16, 16, 5, 32, 32])
    np.testing.assert_array_equal(out, [1.0, 2.0, 2.0, 1.0])


def test_a_moved_attribute_keeps_the_lines_of_what_follows() -> None:
    source = "typedef struct {\n  int a;\n} __attribute__((packed)) P;\n__kernel void k(__global int* o) { o[0] = q; }"
    with pytest.raises(KernelCompileError) as err:
        compile_source(source)
    assert "kernel.cl:4:43: error: use of undeclared identifier 'q'" in err.value.build_log


COMPLEX = r"""
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void k(__global float2* o, float2 b, __global double2* d, double2 c) { o[0] = b; d[0] = c; }
__kernel void f(__global float* o, float x, float4 v) { o[0] = x + v.w; }
"""


def test_a_complex_number_is_a_float2_or_double2_argument(device_ctx: wia.Context) -> None:
    """NumPy's complex64 and complex128 are laid out as float2 and double2 (PyOpenCL passes them so, and ArrayFire's
    complex kernels take them): the real and imaginary parts. The HAL converted the number with NumPy, which drops
    the imaginary part, and splatted it: (3.5, 3.5). A complex number for any other parameter is refused."""
    ctx = device_ctx
    o, d = wia.zeros(2, ctx=ctx), wia.zeros(2, dtype="float64", ctx=ctx)
    kernel = wia.compile_kernel(ctx, COMPLEX, "k")
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=1), o, np.complex64(3.5 + 1.25j), d, 2.0 - 0.5j)
    np.testing.assert_array_equal(o.numpy(), [3.5, 1.25])
    np.testing.assert_array_equal(d.numpy(), [2.0, -0.5])
    other = wia.compile_kernel(ctx, COMPLEX, "f")
    with pytest.raises(wia.InvalidValueError, match="got the complex number"):
        wia.set_kernel_arg(other, 1, np.complex64(1 + 2j))
    with pytest.raises(wia.InvalidValueError, match="got the complex number"):
        wia.set_kernel_arg(other, 2, [1.0, 2.0, 3.0, np.complex128(4 + 1j)])
