"""The kernel language's C arithmetic, lane by lane, against Python's exact integers and C's rules."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wia_sim.kernels.ctype import SCALARS, arithmetic, common_type, comparison_type, convert, lookup, promoted


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("char", "char", "int"),  # integer promotion
        ("uchar", "short", "int"),
        ("int", "uint", "uint"),  # same rank: unsigned wins
        ("long", "uint", "long"),  # signed can hold every uint
        ("int", "ulong", "ulong"),
        ("int", "float", "float"),
        ("float", "double", "double"),
        ("ulong", "float", "float"),
        ("half", "int", "half"),
    ],
)
def test_usual_arithmetic_conversions(a: str, b: str, expected: str) -> None:
    assert common_type(SCALARS[a], SCALARS[b]).name == expected
    assert common_type(SCALARS[b], SCALARS[a]).name == expected


def test_vectors() -> None:
    f4 = lookup("float4")
    assert f4.width == 4 and f4.name == "float" and str(f4) == "float4"
    assert common_type(f4, SCALARS["int"]) == f4  # the scalar widens to the vector
    assert comparison_type(f4) == lookup("int4")
    assert comparison_type(lookup("double2")) == lookup("long2")
    assert promoted(lookup("uchar4")) == lookup("uchar4")  # vector elements are not promoted
    with pytest.raises(TypeError, match="same type"):
        common_type(f4, lookup("int4"))
    assert lookup("size_t") == SCALARS["ulong"] and lookup("unsigned int") == SCALARS["uint"]
    with pytest.raises(KeyError):
        lookup("float5")


I32 = st.integers(-(2**31), 2**31 - 1)


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


@settings(max_examples=200, deadline=None)
@given(a=st.lists(I32, min_size=1, max_size=20), data=st.data())
def test_int_division_truncates_and_remainder_takes_the_dividends_sign(a: list[int], data: st.DataObject) -> None:
    b = data.draw(st.lists(I32.filter(lambda v: v != 0), min_size=len(a), max_size=len(a)))
    t = SCALARS["int"]
    x, y = np.array(a, np.int32), np.array(b, np.int32)
    quotient = arithmetic("/", x, y, t)
    remainder = arithmetic("%", x, y, t)
    for i, (p, q) in enumerate(zip(a, b, strict=True)):
        if p == -(2**31) and q == -1:
            continue  # overflow: undefined in C
        assert quotient[i] == _c_div(p, q)
        assert remainder[i] == p - _c_div(p, q) * q


@given(a=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=20), data=st.data())
def test_unsigned_arithmetic_wraps_modulo_2_to_the_32(a: list[int], data: st.DataObject) -> None:
    b = data.draw(st.lists(st.integers(0, 2**32 - 1), min_size=len(a), max_size=len(a)))
    t = SCALARS["uint"]
    x, y = np.array(a, np.uint32), np.array(b, np.uint32)
    for op, exact in (("+", lambda p, q: p + q), ("-", lambda p, q: p - q), ("*", lambda p, q: p * q)):
        got = arithmetic(op, x, y, t)
        assert [int(v) for v in got] == [exact(p, q) % 2**32 for p, q in zip(a, b, strict=True)]


def test_shift_counts_are_taken_modulo_the_width() -> None:
    t = SCALARS["uint"]
    x = np.array([1, 1, 0x80000000], np.uint32)
    assert list(arithmetic("<<", x, np.array([33, 31, 1], np.uint32), t)) == [2, 0x80000000, 0]
    s = SCALARS["int"]
    assert list(arithmetic(">>", np.array([-8], np.int32), np.array([1], np.int32), s)) == [-4]  # arithmetic shift


def test_division_by_zero_gives_zero_lanes_not_an_exception() -> None:
    t = SCALARS["int"]
    got = arithmetic("/", np.array([7, 8], np.int32), np.array([0, 2], np.int32), t)
    assert list(got) == [0, 4]


def test_conversions() -> None:
    f, i, u = SCALARS["float"], SCALARS["int"], SCALARS["uint"]
    assert list(convert(np.array([-2.7, 2.7], np.float32), f, i)) == [-2, 2]  # truncation toward zero
    assert list(convert(np.array([300], np.int32), i, SCALARS["uchar"])) == [44]  # wraps
    assert list(convert(np.array([-1], np.int32), i, u)) == [2**32 - 1]
    widened = convert(np.array([1.5, 2.5], np.float32), f, lookup("float4"))
    assert widened.shape == (2, 4) and (widened[1] == 2.5).all()
    with pytest.raises(TypeError, match="integer operands"):
        arithmetic("%", np.array([1.0], np.float32), np.array([2.0], np.float32), f)
