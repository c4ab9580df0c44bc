# ruff: noqa: E501  (each expected line is one of Clang's log, whole)
"""Clang's warnings for a constant an implicit conversion changes (``constant_conversions.py``), on by default in
PoCL 3.1's and Oclgrind 21.10's front end: -Wconstant-conversion (``char c = 300``), -Wliteral-conversion (``int x =
1.5f``) and -Wimplicit-const-int-float-conversion (``float f = 16777217``). The simulator's build log said nothing of
them. Every expected line is ``clang-15 -cc1 -x cl -cl-std=CL1.2 -triple spir64``'s, by script: the words, the
values as Clang prints them, the place, and the order (a literal's warning at once, an integer constant's once its
function is checked)."""

from __future__ import annotations

import numpy as np
import pytest

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.constant_conversions import float_text, integer_change, integer_to_float, literal_change

CONVERSIONS = (
    "int4 widen(int4 a) { return a + 1; }\n"
    "char narrow(char a) { return a; }\n"
    "char back(void) { return 300; }\n"
    "__kernel void k(__global int* o, int n) {\n"
    "    int x = 1.5f;\n"
    "    char c = 300;\n"
    "    uchar u = -1;\n"
    "    uchar w = 'a' * 3;\n"
    "    short s = 65535;\n"
    "    bool b = -0.0f;\n"
    "    char t = n ? 300 : 1;\n"
    "    float f = 16777217;\n"
    "    int4 i4 = 2.5;\n"
    "    char4 c4 = (char4)(300, 1, (char)300, -129);\n"
    "    long big = 0xFFFFFFFFFL;\n"
    "    int y = big > 0 ? 0xFFFFFFFFFL : 1e-5f;\n"
    "    uint z = -1.5f;\n"
    "    x += narrow(511) + widen(0.25f).x + 2.0f;\n"
    "    o[0] = x + c + u + w + s + b + t + (int)f + i4.x + c4.x + y + z + back();\n"
    "}\n"
)
CLANG = [
    "3:26: warning: implicit conversion from 'int' to 'char' changes value from 300 to 44",
    "5:13: warning: implicit conversion from 'float' to 'int' changes value from 1.5 to 1",
    "10:14: warning: implicit conversion from 'float' to 'bool' changes value from -0 to false",
    "13:15: warning: implicit conversion from 'double' to 'int4' (vector of 4 'int' values) changes value from 2.5 to 2",
    "16:38: warning: implicit conversion from 'float' to 'int' changes value from 9.9999997E-6 to 0",
    "17:14: warning: implicit conversion of out of range value from 'float' to 'uint' (aka 'unsigned int') is undefined",
    "18:30: warning: implicit conversion from 'float' to 'int4' (vector of 4 'int' values) changes value from 0.25 to 0",
    "6:14: warning: implicit conversion from 'int' to 'char' changes value from 300 to 44",
    "8:19: warning: implicit conversion from 'int' to 'uchar' (aka 'unsigned char') changes value from 291 to 35",
    "9:15: warning: implicit conversion from 'int' to 'short' changes value from 65535 to -1",
    "11:18: warning: implicit conversion from 'int' to 'char' changes value from 300 to 44",
    "12:15: warning: implicit conversion from 'int' to 'float' changes value from 16777217 to 16777216",
    "14:43: warning: implicit conversion from 'int' to 'char' changes value from -129 to 127",
    "14:24: warning: implicit conversion from 'int' to 'char' changes value from 300 to 44",
    "16:23: warning: implicit conversion from 'long' to 'int' changes value from 68719476735 to -1",
    "18:17: warning: implicit conversion from 'int' to 'char' changes value from 511 to -1",
]


def test_constants_that_conversions_change_are_clangs_warnings() -> None:
    """Stores, initializers, returns, arguments of a program's functions, vector literals' parts (the last first,
    as Clang finds them) and each arm of ``?:``; casts, ``(char)300`` stored to a char, ``uchar u = -1`` and stores
    that keep the value say nothing."""
    assert compile_source(CONVERSIONS).build_log.splitlines() == [f"kernel.cl:{line}" for line in CLANG]


@pytest.mark.filterwarnings("ignore:Non-empty compiler output")
def test_every_device_builds_the_conversions(device_ctx: wia.Context) -> None:
    wia.compile_kernel(device_ctx, CONVERSIONS, "k", options="-cl-std=CL1.2")


def test_half_constants_are_rounded_as_clang_says() -> None:
    source = (
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
        "__kernel void k(__global half* h) {\n"
        "    h[0] = 70000;\n    h[1] = -70000;\n    h[2] = 2049;\n    h[3] = 1.5h;\n    int x = 2.5h;\n    h[4] = x;\n}\n"
    )
    assert compile_source(source).build_log.splitlines() == [
        "kernel.cl:7:13: warning: implicit conversion from 'half' to 'int' changes value from 2.5 to 2",
        "kernel.cl:3:12: warning: implicit conversion from 'int' to 'half' changes value from 70000 to +Inf",
        "kernel.cl:4:12: warning: implicit conversion from 'int' to 'half' changes value from -70000 to -Inf",
        "kernel.cl:5:12: warning: implicit conversion from 'int' to 'half' changes value from 2049 to 2048",
    ]


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        # Clang's own prints (``APFloat::toString``: 8 significant digits of a float, 16 of a double, half up;
        # positional up to three zeros after the point, else scientific)
        (float(np.float32(1e-5)), 8, "9.9999997E-6"),
        (float(np.float32(0.001)), 8, "0.001"),
        (0.0009765625, 8, "9.765625E-4"),
        (float(np.float32(123456.789)), 8, "123456.79"),
        (1.5e-3, 16, "0.0015"),
        (3.14159265358979, 16, "3.14159265358979"),
        (1e-7, 16, "1.0E-7"),
        (5e-324, 16, "4.940656458412465E-324"),
        (float(np.float32(1e-45)), 8, "1.4012985E-45"),
        (2.5e-4, 16, "2.5E-4"),
        (float(np.float32(0.00025)), 8, "2.5000001E-4"),
        (float(np.float32(0.3)), 8, "0.30000001"),
        (2147483647.5, 16, "2147483647.5"),
        (-0.0, 8, "-0"),
        (2.0, 8, "2"),
    ],
)
def test_floating_values_are_printed_as_clang_prints_them(value: float, digits: int, text: str) -> None:
    assert float_text(value, digits) == text


def test_which_integer_constants_a_narrower_type_changes() -> None:
    """A signed type's range; an unsigned one's own and its width's signed range (``uchar u = -1`` is silent);
    a type no narrower than the constant's never (``int x = 4294967295u``)."""
    cases = {
        (300, "int", "char"): 44,
        (255, "int", "char"): -1,
        (127, "int", "char"): None,
        (-129, "int", "char"): 127,
        (-1, "int", "uchar"): None,
        (-255, "int", "uchar"): 1,
        (256, "int", "uchar"): 0,
        (-32769, "int", "ushort"): 32767,
        (4294967295, "uint", "int"): None,
        (3000000000, "long", "int"): -1294967296,
        (400, "ulong", "char"): -112,
        (2, "int", "bool"): None,
    }
    assert {key: integer_change(*key) for key in cases} == cases


def test_which_literals_an_integer_type_changes() -> None:
    assert literal_change(1.5, "float", "int") == ("1.5", "1")
    assert literal_change(-0.5, "float", "uint") == ("-0.5", "0")
    assert literal_change(-1.5, "float", "uint") == ("-1.5", None)  # out of range: undefined
    assert literal_change(1e10, "float", "int") == ("1.0E+10", None)
    assert literal_change(2.0, "float", "int") is None
    assert literal_change(2.0, "float", "bool") == ("2", "true")
    assert literal_change(1.0, "float", "bool") is None
    assert integer_to_float(16777217, "float") == "16777216"
    assert integer_to_float(2**64 - 1, "float") == str(2**64)
    assert integer_to_float(16777216, "float") is None


LITERAL_RANGE = """#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void k(__global float* o)
{
    o[0] = 1e40f;
    o[1] = 1e-50f;
    o[2] = 1e-40f;
    o[3] = 1e400;
    o[4] = 1e-400;
    o[5] = 0x1p200f;
    o[6] = 3.5e38F;
    o[7] = 1.0e-46f;
    o[8] = 0.0f;
    o[9] = 1e39;
}
"""


def test_a_floating_literal_its_type_cannot_hold() -> None:
    """Clang's -Wliteral-range (on by default): a literal that rounds to infinity in its type, or a nonzero one that
    rounds to zero (a denormal, ``1e-40f``, holds; ``1e39`` is a double); the simulator said nothing."""
    big_f = "magnitude of floating-point constant too large for type 'float'; maximum is 3.40282347E+38"
    small_f = "magnitude of floating-point constant too small for type 'float'; minimum is 1.40129846E-45"
    big_d = "magnitude of floating-point constant too large for type 'double'; maximum is 1.7976931348623157E+308"
    small_d = "magnitude of floating-point constant too small for type 'double'; minimum is 4.9406564584124654E-324"
    log = compile_source(LITERAL_RANGE, "").build_log.splitlines()
    expected = [(4, big_f), (5, small_f), (7, big_d), (8, small_d), (9, big_f), (10, big_f), (11, small_f)]
    assert log == [f"kernel.cl:{line}:12: warning: {message}" for line, message in expected]
