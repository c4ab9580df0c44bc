"""Preprocessing numbers that are no constant (C99 6.4.8: the lexer cuts ``3x``, ``0x1e+5``, ``1.5e-`` as one
token each, then reads it as a constant), refused in Clang's words at Clang's place
(``numeric_literals.literal_error``): the simulator's parser had read ``3x`` as ``3`` and ``x`` ("syntax error
before 'x'") and built ``0x1e+5`` as ``0x1e + 5``. Each refusal is checked on every backend (PoCL 3.1's and
Oclgrind 21.10's Clang give these words), at Clang's line and column on the simulator; the constants Clang takes
build and give its values everywhere."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from kernel_backends import assert_refused, run_arrays

import wia_hal as wia
from wia_sim.kernels.numeric_literals import PP_NUMBER, literal_error

K = "__kernel void k(__global float* o) { o[0] = %s; }"
AT = 45
"""The column where the number starts in ``K``."""


@pytest.mark.parametrize(
    ("number", "offset", "message"),
    [
        ("3x", 1, "invalid suffix 'x' on integer constant"),
        ("0x", 1, "invalid suffix 'x' on integer constant"),
        ("0xg", 1, "invalid suffix 'xg' on integer constant"),
        ("0x1g", 3, "invalid suffix 'g' on integer constant"),
        ("0x1e+5", 4, "invalid suffix '+5' on integer constant"),
        ("0x1E-1", 4, "invalid suffix '-1' on integer constant"),
        ("1uu", 1, "invalid suffix 'uu' on integer constant"),
        ("1lul", 1, "invalid suffix 'lul' on integer constant"),
        ("1Ll", 1, "invalid suffix 'Ll' on integer constant"),
        ("5u8", 1, "invalid suffix 'u8' on integer constant"),
        ("1if", 1, "invalid suffix 'if' on integer constant"),
        ("1_000", 1, "invalid suffix '_000' on integer constant"),
        ("09", 1, "invalid digit '9' in octal constant"),
        ("0779", 3, "invalid digit '9' in octal constant"),
        ("0b", 1, "invalid digit 'b' in octal constant"),
        ("12abc", 2, "invalid digit 'a' in decimal constant"),
        ("0b102", 4, "invalid digit '2' in binary constant"),
        ("1e+", 1, "exponent has no digits"),
        ("1.5e-", 3, "exponent has no digits"),
        (".5e", 2, "exponent has no digits"),
        ("0e", 1, "exponent has no digits"),
        ("0x1p", 3, "exponent has no digits"),
        ("0x1.8", 5, "hexadecimal floating constant requires an exponent"),
        ("1.5x", 3, "invalid suffix 'x' on floating constant"),
        ("1e5x", 3, "invalid suffix 'x' on floating constant"),
        ("1.0d", 3, "invalid suffix 'd' on floating constant"),
        ("1.0fl", 3, "invalid suffix 'fl' on floating constant"),
        ("1.0lf", 3, "invalid suffix 'lf' on floating constant"),
        ("1..2", 2, "invalid suffix '.2' on floating constant"),
        ("1.2.3", 3, "invalid suffix '.3' on floating constant"),
    ],
)
def test_numbers_clang_refuses(
    device_ctx: wia.Context, request: pytest.FixtureRequest, number: str, offset: int, message: str
) -> None:
    assert literal_error(number) == (offset, message)
    assert_refused(device_ctx, request, K % number, message, f"1:{AT + offset}")


def test_the_first_bad_number_is_the_error_unless_the_parser_failed_before_it(
    device_ctx: wia.Context, request: pytest.FixtureRequest
) -> None:
    # a syntax error before the number is reported first; one after it is not
    assert_refused(
        device_ctx, request, "__kernel void k(__global float* o) { o[0] = ; o[1] = 3x; }", "expected expression", "1:45"
    )
    assert_refused(
        device_ctx,
        request,
        "__kernel void k(__global float* o) { o[1] = 3x; o[0] = ; }",
        "invalid suffix 'x' on integer constant",
        "1:46",
    )
    # a number in a string is text
    src = '__kernel void k(__global float* o) { printf("3x 0x1e+5\\n"); o[0] = 0x1e+5; }'
    assert_refused(device_ctx, request, src, "invalid suffix '+5' on integer constant", "1:72")


def test_constants_clang_takes_give_its_values(device_ctx: wia.Context) -> None:
    numbers = [
        "0x1.8p1",
        "09.5",
        "08e1",
        "1LL",
        "1llu",
        "1lu",
        "0b101",
        ".5f",
        "1.f",
        "0x1E",
        "1e+5",
        "0x1p-2",
        "017",
        "0X1.Ap+1f",
        "100ul",
    ]
    src = "__kernel void k(__global float* o) { " + " ".join(f"o[{k}] = {n};" for k, n in enumerate(numbers)) + " }"
    got = run_arrays(device_ctx, src, "k", [np.zeros(len(numbers), np.float32)], 1, 1)[0]
    want = [3.0, 9.5, 80.0, 1, 1, 1, 5, 0.5, 1.0, 30, 1e5, 0.25, 15, 3.25, 100]
    np.testing.assert_array_equal(got, np.array(want, np.float32))


_SUFFIXES = [
    "",
    "u",
    "U",
    "l",
    "L",
    "ul",
    "lu",
    "LL",
    "ull",
    "llu",
    "f",
    "F",
    "x",
    "uu",
    "lul",
    "e",
    "e+",
    "p",
    ".",
    "_",
    "g",
]


@given(
    digits=st.text("0123456789abcdefxXeEpP.", min_size=1, max_size=8).filter(lambda s: s[0].isdigit()),
    suffix=st.sampled_from(_SUFFIXES),
)
def test_any_number_reads_to_an_answer(digits: str, suffix: str) -> None:
    """Every preprocessing number reads to None or one error at an offset inside it (no exception, no offset past
    its end)."""
    number = digits + suffix
    m = PP_NUMBER.fullmatch(number)
    if m is None:
        return
    error = literal_error(number)
    if error is not None:
        offset, message = error
        assert 0 <= offset <= len(number)
        assert message.startswith(("invalid suffix", "invalid digit", "exponent has no digits", "hexadecimal floating"))
