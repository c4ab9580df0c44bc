"""Brace-enclosed initializers of multi-dimensional arrays (C99 6.7.8): each inner list fills one row from its
start and the rest of the row is zero, in ``__private`` and program-scope ``__constant`` arrays of every
element type. The simulator once read nested lists off as one flat list (``{{1}, {4, 5}}`` gave 1, 4, 5, 0, 0, 0
instead of 1, 0, 0, 4, 5, 0). Through the public HAL, on the simulator and, where installed, on PoCL and
Oclgrind, against NumPy."""

from __future__ import annotations

import re

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia
from wia_sim.kernels.frontend import compile_source

ROWS = r"""
__constant ELEM c[3][4] = {{1, 2}, {5}, {9, 10, 11, 12}};

__kernel void k(__global ELEM* out, const ELEM bias)
{
    const int i = get_global_id(0);
    ELEM p[2][3] = {{7}, {bias, 3}};
    ELEM q[2][2][2] = {{{1}, {2, 3}}, {{4}}};
    out[i] = c[i / 4 % 3][i % 4] + p[i % 2][i % 3] + q[i % 2][i / 2 % 2][i / 4 % 2];
}

__constant ELEM e[][3] = {1, 2, 3, 4};

__kernel void elided(__global ELEM* out, const ELEM bias)
{
    const int i = get_global_id(0);
    ELEM f[2][3] = {bias, 2, 3, {4, 5}};
    ELEM g[2][1][3] = {1, 2, 3, 4, 5};
    ELEM h[][2] = {{1}, 2, 3, 4};
    out[i] = e[i / 3 % 2][i % 3] + f[i / 3 % 2][i % 3] + g[i % 2][0][i / 2 % 3] + h[i % 3][i / 3 % 2]
             + (ELEM)(sizeof(e) / sizeof(ELEM)) + (ELEM)(sizeof(h) / sizeof(ELEM));
}
"""


def reference(n: int, bias: float, dtype: np.dtype) -> np.ndarray:
    c = np.array([[1, 2, 0, 0], [5, 0, 0, 0], [9, 10, 11, 12]], np.float64)
    p = np.array([[7, 0, 0], [bias, 3, 0]], np.float64)
    q = np.zeros((2, 2, 2))
    q[0, 0, 0], q[0, 1, 0], q[0, 1, 1], q[1, 0, 0] = 1, 2, 3, 4
    i = np.arange(n)
    return (c[i // 4 % 3, i % 4] + p[i % 2, i % 3] + q[i % 2, i // 2 % 2, i // 4 % 2]).astype(dtype)


def elided_reference(n: int, bias: float, dtype: np.dtype) -> np.ndarray:
    e = np.array([[1, 2, 3], [4, 0, 0]], np.float64)
    f = np.array([[bias, 2, 3], [4, 5, 0]], np.float64)
    g = np.array([[1, 2, 3], [4, 5, 0]], np.float64)
    h = np.array([[1, 0], [2, 3], [4, 0]], np.float64)
    i = np.arange(n)
    return (e[i // 3 % 2, i % 3] + f[i // 3 % 2, i % 3] + g[i % 2, i // 2 % 3] + h[i % 3, i // 3 % 2] + 6 + 6).astype(
        dtype
    )


N = 48


def run_rows(ctx: wia.Context, kernel: str, ctype: str, dtype: type, bias: int) -> np.ndarray:
    """``kernel`` of ``ROWS`` on ``N`` work-items with its arrays of ``ctype``: what it wrote."""
    k = wia.compile_kernel(ctx, ROWS.replace("ELEM", ctype), kernel)
    out = wia.alloc(ctx, N * np.dtype(dtype).itemsize)
    wia.launch_kernel(k, wia.LaunchConfig(global_size=N, local_size=8), out, dtype(bias))
    staging = wia.alloc(ctx, out.size, wia.MemoryType.HOST)
    wia.copy_async(out, staging, out.size)
    wia.context_synchronize(ctx)
    return np.frombuffer(wia.memory_ptr(staging).tobytes(), dtype)


@pytest.mark.parametrize(("ctype", "dtype"), [("int", np.int32), ("float", np.float32), ("short", np.int16)])
def test_inner_lists_fill_their_own_rows(device_ctx: wia.Context, ctype: str, dtype: type) -> None:
    bias = int(np.random.default_rng(41).integers(-50, 50))
    got = run_rows(device_ctx, "k", ctype, dtype, bias)
    np.testing.assert_array_equal(got, reference(N, bias, np.dtype(dtype)))


@pytest.mark.parametrize(("ctype", "dtype"), [("int", np.int32), ("float", np.float32)])
def test_rows_without_braces_are_filled_in_order(device_ctx: wia.Context, ctype: str, dtype: type) -> None:
    """Brace elision (C99 6.7.8p20): items without braces fill the rows in order, a brace list starts a row, and
    an array of unknown length has as many rows as its items reach."""
    bias = int(np.random.default_rng(43).integers(-50, 50))
    got = run_rows(device_ctx, "elided", ctype, dtype, bias)
    np.testing.assert_array_equal(got, elided_reference(N, bias, np.dtype(dtype)))


def test_more_rows_than_the_array_has_are_dropped_with_clangs_warning() -> None:
    """Excess items are a warning in C and in Clang's OpenCL C, not an error (``test_kernel_struct_elision.py``)."""
    src = "__kernel void k(__global int* out) { int a[2][3] = {1, 2, 3, 4, 5, 6, 7}; out[0] = a[1][2]; }"
    assert compile_source(src).build_log == "kernel.cl:1:71: warning: excess elements in array initializer"


STRINGS = r"""
__constant char digits[] = "0123456789abcdef";

__kernel void k(__global char* out)
{
    const int i = get_global_id(0);
    char word[] = "kernel";
    uchar fits[3] = "abc";        /* exactly its length: no room for the NUL, none stored */
    char padded[6] = "ab\0c";     /* the rest of the array is zero */
    char accent[] = "\xe9\u00e9";
    out[i] = digits[i % 16] + word[i % 7] + (char)fits[i % 3] + padded[i % 6] + accent[i % 4]
        + (char)sizeof(word) + (char)sizeof(digits) + (char)sizeof(accent);
}
"""


def test_char_arrays_initialized_from_string_literals(device_ctx: wia.Context) -> None:
    """C99 6.7.8p14: a string literal initializes a char array with its bytes, then the terminating NUL if there
    is room (an array of unknown size has it); the simulator refused it ("must be initialized with a brace-enclosed
    list"). Non-ASCII characters are their UTF-8 bytes, as Clang stores them."""
    n = 48
    kernel = wia.compile_kernel(device_ctx, STRINGS, "k")
    out = wia.zeros(n, dtype="int8", ctx=device_ctx)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=n, local_size=16), out)
    i = np.arange(n)
    digits = np.frombuffer(b"0123456789abcdef\0", np.int8)
    word = np.frombuffer(b"kernel\0", np.int8)
    fits = np.frombuffer(b"abc", np.int8)
    padded = np.frombuffer(b"ab\0c\0\0", np.int8)
    accent = np.frombuffer(b"\xe9\xc3\xa9\0", np.int8)
    want = digits[i % 16].astype(np.int64) + word[i % 7] + fits[i % 3] + padded[i % 6] + accent[i % 4] + 7 + 17 + 4
    np.testing.assert_array_equal(out.numpy(), ((want + 128) % 256 - 128).astype(np.int8))


NESTED_STRINGS = r"""
__constant char names[3][4] = {"ab", "cde", {'x', 'y'}};
__constant char unsized[][3] = {"ab", "c", "de"};
typedef struct { char s[4]; int n; } R;
__constant R recs[2] = {"ab", 1, {"xyz", 2}};
__constant R late[2] = {[1] = {"q", 3}};
__kernel void k(__global int* out) {
    char loc[2][3] = {"hi", "yo"};
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            out[r * 4 + c] = names[r][c];
    out[12] = sizeof(unsized) * 100 + unsized[2][1];
    out[13] = recs[0].s[1] * 1000 + recs[1].s[2] * 10 + recs[1].n;
    out[14] = late[1].s[0] + late[1].n * 1000 + loc[1][1] * 100000;
    out[15] = loc[0][0];
}
"""


def test_strings_inside_brace_lists(device_ctx: wia.Context) -> None:
    """A string literal initializes a char array anywhere in a list (6.7.8p14): rows of a 2-D array, an array of
    unknown length sized by them, a struct's member where the struct's braces are left out (the string is the
    array's whole initializer, not the struct's), after a designator. Was a build error ("cannot convert")."""
    (out,) = run_arrays(device_ctx, NESTED_STRINGS, "k", [np.zeros(16, np.int32)], 1, 1)
    want = [97, 98, 0, 0, 99, 100, 101, 0, 120, 121, 0, 0]
    want += [9 * 100 + ord("e"), ord("b") * 1000 + ord("z") * 10 + 2, ord("q") + 3000 + ord("o") * 100000, ord("h")]
    np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize(
    ("decl", "message"),
    [
        ('int a[] = "ab";', "a string literal initializes an array of char, not 'int[]'"),
        ('char a[] = "\\x4142";', "hex escape sequence out of range"),
    ],
)
def test_string_initializers_that_do_not_fit(decl: str, message: str) -> None:
    with pytest.raises(Exception, match=re.escape(message)):
        compile_source("__kernel void k(__global int* o) { " + decl + " o[0] = 1; }")


def test_a_string_longer_than_its_array_is_cut_with_a_warning(device_ctx: wia.Context) -> None:
    """C99 6.7.8p14 takes the characters that fit (Clang warns "initializer-string for char array is too long";
    the simulator had refused it)."""
    source = 'kernel void k(__global int* o) { char c[2] = "abc"; o[0] = c[0]; o[1] = c[1]; }'
    (out,) = run_arrays(device_ctx, source, "k", [np.zeros(2, np.int32)], 1, 1)
    np.testing.assert_array_equal(out, [ord("a"), ord("b")])
    if wia.get_backend().name == "sim":
        assert (
            "initializer-string for char array is too long"
            in compile_source(source.replace("kernel ", "__kernel ", 1)).build_log
        )
