"""Combinations of type specifiers (C99 6.7.2), checked as Clang checks them (its ``DeclSpec``): a second type, sign
or width cannot combine with the first (``long long`` aside), only ``char`` and ``int`` take a sign, only ``int`` a
width (and ``double`` a ``long``); the same sign, or ``short``, twice is a warning. The simulator built every one of
``int float``, ``unsigned float``, ``short long``, ``long char``, ``float4 int`` (the parser takes any list of
specifier words), which PoCL 3.1 and Oclgrind 21.10 refuse (a type name after a type is Clang's declarator: "expected
';' at end of declaration" after it); each refusal here is Clang's words on every backend (at
Clang's line and column on the simulator), and the valid orders give their type."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import assert_refused, build_error, run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source

BODY = "__kernel void k(__global int* a) {\n    int i = get_global_id(0);\n    %s x = 1;\n    a[i] = (int)x;\n}\n"


@pytest.mark.parametrize(
    ("words", "message", "column"),
    [
        ("int float", "cannot combine with previous 'int' declaration specifier", 9),
        ("float int", "cannot combine with previous 'float' declaration specifier", 11),
        ("int int", "cannot combine with previous 'int' declaration specifier", 9),
        ("void int", "cannot combine with previous 'void' declaration specifier", 10),
        ("float4 int", "cannot combine with previous 'type-name' declaration specifier", 12),
        ("size_t int", "cannot combine with previous 'type-name' declaration specifier", 12),
        ("short long", "cannot combine with previous 'short' declaration specifier", 11),
        ("long long long", "cannot combine with previous 'long long' declaration specifier", 15),
        ("signed unsigned int", "cannot combine with previous 'signed' declaration specifier", 12),
        ("unsigned float", "'float' cannot be signed or unsigned", 5),
        ("signed double", "'double' cannot be signed or unsigned", 5),
        ("unsigned void", "'void' cannot be signed or unsigned", 5),
        ("long char", "'long char' is invalid", 5),
        ("char short", "'short char' is invalid", 10),
        ("short double", "'short double' is invalid", 5),
        ("long float", "'long float' is invalid", 5),
        ("short unsigned char", "'short char' is invalid", 5),
        ("signed bool", "'bool' cannot be signed or unsigned", 5),
        ("const unsigned bool", "'bool' cannot be signed or unsigned", 11),
        ("long bool", "'long bool' is invalid", 5),
        ("int float4", "expected ';' at end of declaration", 15),
        ("unsigned size_t", "expected ';' at end of declaration", 20),
        ("short float4", "expected ';' at end of declaration", 17),
    ],
)
def test_specifiers_that_do_not_combine(
    device_ctx: wia.Context, request: pytest.FixtureRequest, words: str, message: str, column: int
) -> None:
    assert_refused(device_ctx, request, BODY % words, message, f"3:{column}")


def test_every_error_of_a_list_and_in_every_place(ctx: wia.Context) -> None:
    """Two types after an ``int``: two errors; in a cast, ``sizeof``, a struct member, a parameter, and a list that
    spans lines past a qualifier, each at its word."""
    source = (
        "typedef struct { int float m; } S;\n"
        "int f(short long v) { return v; }\n"
        "__kernel void k(__global int* a) {\n"
        "    int float double x = (int float)2.0f + sizeof(long char);\n"
        "    const unsigned\n"
        "      __private float y = 1;\n"
        "}\n"
    )
    log = build_error(ctx, source)
    for at, message in [
        ("1:22", "cannot combine with previous 'int' declaration specifier"),
        ("2:13", "cannot combine with previous 'short' declaration specifier"),
        ("4:9", "cannot combine with previous 'int' declaration specifier"),
        ("4:15", "cannot combine with previous 'int' declaration specifier"),
        ("4:31", "cannot combine with previous 'int' declaration specifier"),
        ("4:51", "'long char' is invalid"),
        ("5:11", "'float' cannot be signed or unsigned"),
    ]:
        assert f"kernel.cl:{at}: error: {message}" in log


@pytest.mark.parametrize(
    ("words", "size", "value"),
    [
        ("long unsigned", 8, 2**64 - 3),
        ("int unsigned", 4, 2**32 - 3),
        ("char unsigned", 1, 253),
        ("int long", 8, -3),
        ("signed long int", 8, -3),
        ("short int unsigned", 2, 65533),
    ],
)
def test_the_orders_c_allows(device_ctx: wia.Context, words: str, size: int, value: int) -> None:
    """Specifiers in any order make their type: its size and how -3 converts to it. (``long long``, a reserved
    type in OpenCL C 1.2 6.1.4, is 16 bytes to Clang and 8 to the simulator: not here.)"""
    source = f"__kernel void k(__global long* a) {{ {words} x = -3; a[0] = sizeof(x); a[1] = (long)x; }}"
    (out,) = run_arrays(device_ctx, source, "k", [np.zeros(2, np.int64)], 1, 1)
    assert out[0] == size and int(out[1]) % 2**64 == value % 2**64


@pytest.mark.parametrize(("words", "column"), [("unsigned unsigned", 14), ("short short", 11)])
def test_the_same_sign_or_short_twice_is_a_warning(words: str, column: int) -> None:
    """``unsigned unsigned`` builds (one ``unsigned``), with Clang's warning at the second."""
    program = compile_source(BODY % words)
    second = words.split()[1]
    assert program.build_log == f"kernel.cl:3:{column}: warning: duplicate '{second}' declaration specifier"


IMPLICIT_INT = """__kernel void k(__global int* o, const n)
{
    const x = n + 1;
    volatile y = x * 3;
    o[get_global_id(0)] = y - (int)get_global_id(0);
}
"""


def test_qualifiers_without_a_type_are_an_int_with_clangs_warning(device_ctx: wia.Context) -> None:
    """C89's implicit int, which Clang takes in OpenCL C with its warning (the simulator refused the kernel:
    "missing type in declaration"), for a parameter and a variable: at the name, and the values an int's."""
    n = np.int32(np.random.default_rng().integers(-1000, 1000))
    (out,) = run_arrays(device_ctx, IMPLICIT_INT, "k", [np.zeros(64, np.int32)], 64, 32, n)
    np.testing.assert_array_equal(out, (n + 1) * 3 - np.arange(64))
    warning = "type specifier missing, defaults to 'int'; ISO C99 and later do not support implicit int"
    log = compile_source(IMPLICIT_INT, "").build_log.splitlines()
    assert log == [f"kernel.cl:{at}: warning: {warning}" for at in ("1:40", "3:11", "4:14")]
