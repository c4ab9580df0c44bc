"""Pointers kept in memory and pointers into a different memory object per work-item (``wia_sim/kernels/
pointers.py``): arrays of pointers, pointer members, ``T**``, helpers returning pointers, ``?:`` and divergent
assignments between buffers, atomics and comparisons through such pointers. Values through the public HAL on the
simulator and, where installed, on PoCL and Oclgrind, against NumPy; the checks (bounds, NULL, uninitialized) on
the executor directly."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from kernel_backends import build_error, compile_errors, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source, run_kernel
from wia_sim.kernels.executor import KernelFault
from wia_sim.kernels.lanes import launch_geometry

N = 96
LOCAL = 32

KERNELS = r"""
__kernel void atomics(__global int* even, __global int* odd, __global const int* key)
{
    const int i = get_global_id(0);
    volatile __global int* counts = (i & 1) ? odd : even;       // a different buffer per work-item
    atomic_add(&counts[key[i]], i + 1);
    __global int* table[2] = {even, odd};
    atomic_inc(table[(i >> 1) & 1] + key[i] + 4);
}

__kernel void compare(__global const float* a, __global float* out)
{
    const int i = get_global_id(0);
    __global const float* marks[3] = {a + 3, a + 10, a + i % 7};
    __global const float* m = marks[i % 3];
    out[4 * i + 0] = (float)(marks[1] - marks[0]);
    out[4 * i + 1] = (float)(m > marks[0]) + 2.0f * (float)(m == marks[1]) + 4.0f * (float)(m != marks[2]);
    out[4 * i + 2] = m[1];
    out[4 * i + 3] = (float)(sizeof(marks) / sizeof(marks[0]));
}

__kernel void shared(__global const float* a, __global const float* b, __global float* out)
{
    __local int pick[2];                                       // written by one work-item, read by its group
    const int i = get_global_id(0), l = get_local_id(0);
    if (l == 0) {
        pick[0] = get_group_id(0) & 1;
        pick[1] = 1 - pick[0];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __global const float* table[2] = {a, b};
    __global const float* const* entry = &table[pick[l & 1]];  // a pointer to a pointer, chosen per work-item
    out[i] = (*entry)[i];
}

__kernel void local_table(__global const float* a, __global const float* b, __global float* out)
{
    __global const float* __local table[2];              // written by one work-item, read by its group
    __global const float* __local chosen;
    const int i = get_global_id(0), l = get_local_id(0);
    if (l == 0) {
        table[0] = (get_group_id(0) & 1) ? b : a;
        table[1] = (get_group_id(0) & 1) ? a : b;
        chosen = table[get_group_id(0) % 3 == 0];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    float* __private unused = 0;
    out[2 * i] = table[l & 1][i];
    out[2 * i + 1] = chosen[i] + (unused == 0);
}

typedef struct { __global float* dst; int scale; } Sink;

__kernel void sinks(__global const float* x, __global float* lo, __global float* hi)
{
    const int i = get_global_id(0);
    Sink s[2] = {{lo, 1}, {0, 3}};
    s[1].dst = hi;
    Sink mine = s[x[i] > 0.0f];
    __global float* none = 0;
    __global float* p = none;
    if (i % 5 != 0)
        p = mine.dst;                                          // NULL stays in the work-items that skip this
    if (p)
        p[i] = x[i] * mine.scale;
}
"""


def _run(ctx: wia.Context, name: str, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """``name`` of ``KERNELS`` over ``N`` work-items with ``arrays`` as its buffers: their contents after."""
    return run_arrays(ctx, KERNELS, name, arrays, N, LOCAL)


def test_atomics_through_a_pointer_per_work_item(device_ctx: wia.Context) -> None:
    key = np.random.default_rng(3).integers(0, 4, N).astype(np.int32)
    even, odd = _run(device_ctx, "atomics", [np.zeros(8, np.int32), np.zeros(8, np.int32), key])[:2]
    i = np.arange(N)
    want = [np.zeros(8, np.int64), np.zeros(8, np.int64)]
    np.add.at(want[0], key[i % 2 == 0], i[i % 2 == 0] + 1)
    np.add.at(want[1], key[i % 2 == 1], i[i % 2 == 1] + 1)
    np.add.at(want[0], key[(i >> 1) & 1 == 0] + 4, 1)
    np.add.at(want[1], key[(i >> 1) & 1 == 1] + 4, 1)
    np.testing.assert_array_equal(even, want[0])
    np.testing.assert_array_equal(odd, want[1])


def test_pointers_loaded_from_memory_compare_and_subtract(device_ctx: wia.Context) -> None:
    a = np.random.default_rng(4).uniform(-1, 1, 16).astype(np.float32)
    (_, out) = _run(device_ctx, "compare", [a, np.full(4 * N, np.nan, np.float32)])
    i = np.arange(N)
    at = np.choose(i % 3, [np.full(N, 3), np.full(N, 10), i % 7])  # the element each work-item's m points to
    flags = (at > 3) + 2 * (at == 10) + 4 * (at != i % 7)
    want = np.stack([np.full(N, 7.0), flags, a[at + 1], np.full(N, 3.0)], axis=1).reshape(-1)
    np.testing.assert_array_equal(out, want.astype(np.float32))


def test_a_pointer_to_a_table_entry_chosen_through_local_memory(device_ctx: wia.Context) -> None:
    rng = np.random.default_rng(5)
    a, b = (rng.uniform(-1, 1, N).astype(np.float32) for _ in range(2))
    out = _run(device_ctx, "shared", [a, b, np.full(N, np.nan, np.float32)])[2]
    i = np.arange(N)
    odd_group, odd_lane = (i // LOCAL) % 2 == 1, (i % LOCAL) % 2 == 1
    np.testing.assert_array_equal(out, np.where(odd_group ^ odd_lane, b, a))


def test_a_table_of_pointers_in_local_memory(device_ctx: wia.Context) -> None:
    """``T* __local t[2]``: pointers one work-item stores in ``__local`` memory and its group loads (the space
    after the ``*`` is the pointer's own: rewrites.py)."""
    rng = np.random.default_rng(8)
    a, b = (rng.uniform(-1, 1, N).astype(np.float32) for _ in range(2))
    out = _run(device_ctx, "local_table", [a, b, np.full(2 * N, np.nan, np.float32)])[2].reshape(N, 2)
    i = np.arange(N)
    group = i // LOCAL
    odd_group, odd_lane = group % 2 == 1, (i % LOCAL) % 2 == 1
    np.testing.assert_array_equal(out[:, 0], np.where(odd_group ^ odd_lane, b, a))
    table1 = np.where(odd_group, a, b)  # table[1]; chosen is table[1] where the group id is a multiple of 3
    chosen = np.where(group % 3 == 0, table1, np.where(odd_group, b, a))
    np.testing.assert_array_equal(out[:, 1], chosen + np.float32(1))


def test_pointer_members_and_null_in_some_work_items(device_ctx: wia.Context) -> None:
    x = np.random.default_rng(6).uniform(-1, 1, N).astype(np.float32)
    _, lo, hi = _run(device_ctx, "sinks", [x, np.full(N, np.nan, np.float32), np.full(N, np.nan, np.float32)])
    i = np.arange(N)
    stored = i % 5 != 0
    np.testing.assert_array_equal(lo, np.where(stored & (x <= 0), x, np.nan).astype(np.float32))
    np.testing.assert_array_equal(hi, np.where(stored & (x > 0), x * 3, np.nan).astype(np.float32))


# -- the checks, on the executor ----------------------------------------------------------------------------------


def _fault(src: str, args: list[Any], n: int = 64) -> KernelFault:
    program = compile_source(src, "")
    name = src.split("void", 1)[1].split("(", 1)[0].strip()
    with pytest.raises(KernelFault) as info:
        run_kernel(program, name, args, launch_geometry((n, 1, 1), (16, 1, 1), 256, 1))
    return info.value


def test_out_of_bounds_through_a_table_names_the_buffer_and_its_offset() -> None:
    src = """
__kernel void k(__global const float* a, __global const float* b, __global float* y)
{
    const int i = get_global_id(0);
    __global const float* t[2] = {a, b};
    y[i] = t[i & 1][i + (i == 61 ? 8 : 0)];
}
"""
    a, b, y = np.zeros(64, np.float32), np.zeros(64, np.float32), np.zeros(64, np.float32)
    f = _fault(src, [a.view(np.uint8), b.view(np.uint8), y.view(np.uint8)])
    assert (f.check, f.line, f.work_item, f.address, f.work_items) == ("out_of_bounds_global", 6, (61, 0, 0), 276, 1)
    assert "argument 'b'" in str(f)


def test_an_unset_entry_of_a_pointer_array_is_an_uninitialized_read() -> None:
    src = """
__kernel void k(__global const float* a, __global float* y)
{
    const int i = get_global_id(0);
    __global const float* t[2];
    t[0] = a;
    if (i != 9)
        t[1] = a + 1;
    y[i] = t[i & 1][0];
}
"""
    a, y = np.zeros(64, np.float32), np.zeros(64, np.float32)
    f = _fault(src, [a.view(np.uint8), y.view(np.uint8)])
    assert (f.check, f.line, f.work_item, f.work_items) == ("uninitialized_private", 9, (9, 0, 0), 1)


def test_a_pointer_into_another_work_items_private_memory_stays_its_own() -> None:
    """A pointer to private memory kept in a private array points into the same work-item's memory when loaded."""
    src = """
__kernel void k(__global float* y)
{
    const int i = get_global_id(0);
    float mine[2] = {(float)i, -(float)i};
    float* t[1] = {mine + 1};
    y[i] = *t[0] + mine[0] * 10.0f;
}
"""
    y = np.zeros(64, np.float32)
    run_kernel(compile_source(src, ""), "k", [y.view(np.uint8)], launch_geometry((64, 1, 1), (16, 1, 1), 256, 1))
    np.testing.assert_array_equal(y, np.arange(64, dtype=np.float32) * 9)


def test_an_address_space_after_a_star_inside_a_string_is_text(capsys: pytest.CaptureFixture[str]) -> None:
    """The parser's workaround for ``T* __local p`` (rewrites.py) leaves string literals as they are."""
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    source = '__kernel void k(__global int* o) { if (get_global_id(0) == 0) printf("x * local, y* __global\\n"); }'
    kernel = wia.compile_kernel(ctx, source, "k")
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=2, local_size=2), wia.alloc(ctx, 8))
    wia.context_synchronize(ctx)
    assert capsys.readouterr().out == "x * local, y* __global\n"


NULL_CONSTANTS = r"""
int is_null(__global const int* p) { return p == NULL; }
__global int* pick(__global int* p, int i) { if (i & 1) return NULL; return p; }
__kernel void k(__global int* out)
{
    const int i = get_global_id(0);
    __global int* g = NULL;                /* NULL converts to a pointer into any address space */
    __local int* l = NULL;
    __global int* h = (i & 2) ? out : NULL;
    g = 0L;                                /* an integer constant expression 0 is a null pointer constant too */
    out[i] = (g == NULL) + 2 * (l != NULL) + 4 * (h == NULL) + 8 * is_null(NULL) + 16 * (pick(out, i) == NULL)
             + 32 * (int)sizeof(NULL);
}
"""


def test_null_is_a_null_pointer_constant_for_every_address_space(device_ctx: wia.Context) -> None:
    """``NULL`` is Clang's ``((void*)0)`` (PoCL 3.1, Oclgrind 21.10), a null pointer constant (C99 6.3.2.3p3) that
    converts to a pointer into any space in an initialization, an assignment, a comparison, ``?:``, an argument and
    a return; the simulator did not define it, and took ``(void*)0`` as a private pointer."""
    (out,) = run_arrays(device_ctx, NULL_CONSTANTS, "k", [np.zeros(8, np.int32)], 8, 8)
    i = np.arange(8)
    np.testing.assert_array_equal(out, 1 + 4 * ((i & 2) == 0) + 8 + 16 * (i & 1) + 32 * 8)


def test_a_cast_of_null_to_another_address_space_is_a_build_error(device_ctx: wia.Context) -> None:
    """A cast is no implicit conversion: ``(__global int*)NULL`` changes the address space of a private ``void *``,
    Clang's error (PoCL 3.1 and Oclgrind 21.10)."""
    source = "__kernel void k(__global int* out) { __global int* p = (__global int*)NULL; out[0] = p == 0; }"
    refusal = build_error(device_ctx, source, "k")
    assert "changes address space of pointer" in refusal


POINTER_VALUES = r"""
struct T { int v; };
struct S { struct T* p; struct T** pp; };
int through(int* p) { int** pp = &p; return **pp + (p == *pp); }         /* the address of a pointer parameter */
__kernel void k(__global int* out)
{
    const int i = get_global_id(0);
    int x = i, y = 2 * i;
    int* a = &x;
    int* b;
    int** pb = &b;
    struct T t = {i};
    struct S s;
    s.pp = &s.p;
    out[4 * i] = (((*pb) = a) != &x) + 2 * ((*pb = &y) == &y);          /* an assignment's value, compared */
    out[4 * i + 1] = ((s.p = &t) == &t) + 2 * (((*s.pp) = &t) != &t);
    out[4 * i + 2] = through(&y);
    out[4 * i + 3] = *b + (*s.pp)->v;
}
"""


def test_assignments_of_pointers_in_memory_and_the_address_of_a_pointer_parameter(device_ctx: wia.Context) -> None:
    """The value of an assignment to a pointer kept in memory (``(*pb = a) != &x``, ``(s.p = &t) == &t``) is the
    pointer (the simulator gave its address as an integer, which no pointer compared with), and ``&p`` of a pointer
    parameter reaches it (the simulator refused it); both are in random CLSmith programs."""
    (out,) = run_arrays(device_ctx, POINTER_VALUES, "k", [np.zeros(4 * 8, np.int32)], 8, 8)
    i = np.arange(8)
    want = np.stack([np.full(8, 2), np.ones(8, np.int64), 2 * i + 1, 2 * i + i], axis=1)
    np.testing.assert_array_equal(out.reshape(8, 4), want)


NULL_ARGUMENT = """int f(__global const int* p) { return p == 0 ? -1 : p[1]; }
int g(const char* p) { return p == 0; }
__kernel void k(__global int* o) {
    o[0] = f(0);
    o[1] = f(o);
    o[2] = g(0);
    o[3] = f((__global const int*)0) + 10;
}
"""


def test_a_null_pointer_constant_passed_for_a_pointer_parameter(device_ctx: wia.Context) -> None:
    """``f(0)`` passes NULL (C99 6.3.2.3: 0 is a null pointer constant): the simulator refused the call at run time
    ("a value passed for pointer 'p'"; PoCL's own tests call ``f(0)``). Values as PoCL 3.1's and Oclgrind 21.10's."""
    (o,) = run_arrays(device_ctx, NULL_ARGUMENT, "k", [np.array([5, 7, 0, 0], np.int32)], 1, 1)
    np.testing.assert_array_equal(o, [-1, 7, 1, 9])


POINTERS_AS_SCALARS = r"""
int nulls(__global const int* p, int* q) { return !p + 2 * !q + 4 * (p && q) + 8 * (!p || !q) + (p ? 16 : 0); }
__kernel void k(__global int* out, __global const int* in)
{
    const int i = get_global_id(0);
    int v = in[i];
    __global int* none = 0;
    __global int* some = (i & 1) ? out : none;                   /* NULL in the even work-items */
    __global int* row = out + 4 * i;
    ulong a = (ulong)row;                                         /* the address, back to a pointer */
    __global int* next = (__global int*)(a + sizeof(int));
    next[0] = v + (int)((uintptr_t)(row + 3) - (uintptr_t)row);
    row[0] = nulls(out, &v) + 100 * nulls(none, &v);
    row[2] = !some + 2 * !!some + 4 * (some == 0) + 8 * (bool)some + 16 * ((ulong)some != 0);
    row[3] = (int)((ulong)row & 15) + 10 * !(row + 1) + 100 * (int)(bool)none;
}
"""


def test_a_pointer_is_a_scalar(device_ctx: wia.Context) -> None:
    """C99 6.5.3.3 and 6.3.1.2: ``!p`` is 1 where ``p`` is NULL, ``(bool)p`` 0 there and 1 elsewhere, and a pointer
    cast to an integer is its address, which cast back points where it did (clRNG tests ``if (!destStreams)`` in
    every device function; the simulator refused ``!p`` on a pointer, and cast a pointer to its offset in its
    object, so ``(bool)out`` was 0 and ``(__global int*)((ulong)p + 4)`` a NULL pointer)."""
    n = 16
    rng = np.random.default_rng(1205)
    values = rng.integers(-1000, 1000, n).astype(np.int32)
    out = run_arrays(device_ctx, POINTERS_AS_SCALARS, "k", [np.zeros(4 * n, np.int32), values], n, 8)[0]
    odd = np.arange(n) & 1
    want = np.stack(
        [
            np.full(n, (4 + 16) + 100 * (1 + 8)),
            values + 12,
            np.where(odd, 2 + 8 + 16, 1 + 4),
            np.zeros(n, np.int32),
        ],
        axis=1,
    )
    np.testing.assert_array_equal(out.reshape(n, 4), want)


SWAPPED = """__kernel void k(__global int* o, __global const int* a)
{
    const int i = get_global_id(0);
    __local int t[32];
    i[t] = a[i] * 2;
    barrier(CLK_LOCAL_MEM_FENCE);
    int p[3] = {1, 2, 3};
    o[i] = (31 - i)[t] + 1[p] + *(&(i % 3)[p]) + 100 * 2[a];
}
"""


def test_an_index_before_its_brackets_subscripts_the_pointer_after(device_ctx: wia.Context) -> None:
    """``i[p]`` is ``p[i]`` (C99 6.5.2.1: E1[E2] is *((E1)+(E2))), loaded, stored and addressed, on every device
    (the simulator said "subscripted value is not an array, pointer or vector")."""
    rng = np.random.default_rng()
    a = rng.integers(-1000, 1000, 32).astype(np.int32)
    out, _ = run_arrays(device_ctx, SWAPPED, "k", [np.zeros(32, np.int32), a], 32, 32)
    i = np.arange(32)
    np.testing.assert_array_equal(out, 2 * a[31 - i] + 2 + (i % 3 + 1) + 100 * a[2])


SUBSCRIPTED = "struct S { int x; };\nint k(__global int* o, int a, struct S s)\n{\n    %s\n    return a;\n}\n"


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("a = o[s];", "4:10: error: array subscript is not an integer"),
        ("a = o[o];", "4:10: error: array subscript is not an integer"),
        ("int2 v = 1; a = v[o];", "4:22: error: array subscript is not an integer"),
        ("a = s[1];", "4:10: error: subscripted value is not an array, pointer, or vector"),
    ],
)
def test_a_subscript_that_is_not_an_integer(line: str, error: str) -> None:
    """Clang's words, at the ``[`` (the simulator took a pointer or a struct for an index, and wrote its own words
    at the subscripted value)."""
    assert compile_errors(SUBSCRIPTED % line) == [f"kernel.cl:{error}"]


ADDRESSED = (
    "struct S { int x; };\nstruct S f(void) { struct S r = {1}; return r; }\n"
    "int k(__global int* o, int a, struct S s)\n{\n    %s\n    return a;\n}\n"
)


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("int* q = &3;", "5:14: error: cannot take the address of an rvalue of type 'int'"),
        ("int* q = &(a + 1);", "5:14: error: cannot take the address of an rvalue of type 'int'"),
        ("struct S* t = &f();", "5:19: error: cannot take the address of an rvalue of type 'struct S'"),
        (
            "float4 v = 1; float4* w = &(v + v);",
            "5:31: error: cannot take the address of an rvalue of type 'float4' (vector of 4 'float' values)",
        ),
        ("int* q = &a++;", "5:14: error: cannot take the address of an rvalue of type 'int'"),
        ("a = o.x;", "5:10: error: member reference base type '__global int *__private' is not a structure or union"),
    ],
)
def test_an_address_of_what_is_no_object_and_a_member_of_what_is_no_struct(line: str, error: str) -> None:
    """Clang's errors (the simulator took the address of a constant, an operator's or a call's result, and offered
    ``->`` for a pointer to an ``int``); ``&a``, ``&o[1]``, ``&*o`` and ``&(int){1}`` are objects (the last of no
    address space, as Clang has it: read through, not assigned to a private pointer)."""
    assert compile_errors(ADDRESSED % line) == [f"kernel.cl:{error}"]
    fine = "int* p = &a; __global int* q = &o[1]; q = &*o; a = *&(int){1}; struct S* t = &s;"
    compile_source(ADDRESSED % fine, "")


STRINGS = """__kernel void k(__global char* o)
{
    const int i = get_global_id(0);
    __constant char* s = "abc";
    constant char* t = &"xyz"[1];
    o[i] = s[i % 3] + t[i % 2];
}
"""


def test_a_string_literal_in_a_constant_pointer_draws_no_warning(device_ctx: wia.Context) -> None:
    """A string literal's chars are read-only in ``__constant`` memory but no const type to Clang (OpenCL C 1.2
    6.5.3): a ``__constant char*`` takes one without a word (the simulator warned "... discards qualifiers"), and
    reads it; stored to a pointer into another address space, Clang spells it as the pointer it decays to."""
    (out,) = run_arrays(device_ctx, STRINGS, "k", [np.zeros(32, np.int8)], 32, 32)
    i = np.arange(32)
    chars = np.frombuffer(b"abc", np.int8)[i % 3] + np.frombuffer(b"yz", np.int8)[i % 2]
    np.testing.assert_array_equal(out, chars.astype(np.int8))
    assert compile_source(STRINGS, "").build_log == ""
    refused = '__kernel void k(__global char* o) { __global char* g = "ab"; o[0] = g[0]; }\n'
    assert compile_errors(refused) == [
        "kernel.cl:1:52: error: initializing '__global char *__private' with an expression of type "
        "'__constant char *' changes address space of pointer"
    ]
