"""The kernel language's types and C's arithmetic on them, lane-vectorized.

Every value the executor handles belongs to all work-items of a launch at once: a NumPy array with one lane per
work-item (and a trailing axis for vector types). The rules are those of C99 6.3.1 (integer promotion, the usual
arithmetic conversions) and OpenCL C 1.2 section 6 (scalars widen to vectors, shift counts are taken modulo the
width, vector comparisons give -1/0 of the same-size signed type).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class CType:
    """A scalar or vector type: ``name`` is the scalar's OpenCL name, ``width`` 1 for scalars."""

    name: str
    dtype: np.dtype
    kind: str  # "bool", "int", "uint" or "float"
    rank: int  # C integer conversion rank (floats: by precision)
    width: int = 1

    @property
    def is_vector(self) -> bool:
        return self.width > 1

    @property
    def scalar(self) -> CType:
        return SCALARS[self.name]

    def vector(self, width: int) -> CType:
        """This type's scalar with ``width`` components: the scalar itself for 1."""
        if width == 1:
            return self.scalar
        return CType(self.name, self.dtype, self.kind, self.rank, width)

    def __str__(self) -> str:
        return self.name + (str(self.width) if self.width > 1 else "")


def _t(name: str, dtype: type, kind: str, rank: int) -> CType:
    return CType(name, np.dtype(dtype), kind, rank)


SCALARS: dict[str, CType] = {
    t.name: t
    for t in (
        _t("bool", np.bool_, "bool", 0),
        _t("char", np.int8, "int", 1),
        _t("uchar", np.uint8, "uint", 1),
        _t("short", np.int16, "int", 2),
        _t("ushort", np.uint16, "uint", 2),
        _t("int", np.int32, "int", 3),
        _t("uint", np.uint32, "uint", 3),
        _t("long", np.int64, "int", 4),
        _t("ulong", np.uint64, "uint", 4),
        _t("half", np.float16, "float", 5),
        _t("float", np.float32, "float", 6),
        _t("double", np.float64, "float", 7),
    )
}
ALIASES = {
    "unsigned char": "uchar",
    "unsigned short": "ushort",
    "unsigned int": "uint",
    "unsigned": "uint",
    "unsigned long": "ulong",
    "signed char": "char",
    "size_t": "ulong",
    "ptrdiff_t": "long",
    "intptr_t": "long",
    "uintptr_t": "ulong",
}
VECTOR_WIDTHS = (2, 3, 4, 8, 16)
INT, UINT, FLOAT = SCALARS["int"], SCALARS["uint"], SCALARS["float"]
_SIGNED_OF_SIZE = {1: SCALARS["char"], 2: SCALARS["short"], 4: SCALARS["int"], 8: SCALARS["long"]}
_UNSIGNED_OF = {"char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}


def lookup(name: str) -> CType:
    """``float``, ``unsigned int``, ``size_t``, ``float4``, ``uchar16``, ...; KeyError for anything else."""
    name = ALIASES.get(name, name)
    if name in SCALARS:
        return SCALARS[name]
    for width in sorted(VECTOR_WIDTHS, reverse=True):
        suffix = str(width)
        if name.endswith(suffix) and name[: -len(suffix)] in SCALARS and name[: -len(suffix)] != "bool":
            return SCALARS[name[: -len(suffix)]].vector(width)
    raise KeyError(name)


def promoted(t: CType) -> CType:
    """C's integer promotion: types of rank below int become int (element-wise for vectors: OpenCL does not
    promote vector elements)."""
    if t.is_vector or t.kind == "float" or t.rank >= INT.rank:
        return t
    return INT


def common_type(a: CType, b: CType) -> CType:
    """The usual arithmetic conversions (C99 6.3.1.8), with OpenCL's scalar-to-vector widening (6.2.6)."""
    if a.is_vector or b.is_vector:
        if a.is_vector and b.is_vector and (a.width != b.width or a.name != b.name):
            raise TypeError(f"operands of types {a} and {b}: vectors must have the same type")
        return a if a.is_vector else b
    a, b = promoted(a), promoted(b)
    if a.kind == "float" or b.kind == "float":
        return a if (a.kind == "float" and (b.kind != "float" or a.rank >= b.rank)) else b
    if a.kind == b.kind:
        return a if a.rank >= b.rank else b
    unsigned, signed = (a, b) if a.kind == "uint" else (b, a)
    if unsigned.rank >= signed.rank:
        return unsigned
    if signed.dtype.itemsize > unsigned.dtype.itemsize:
        return signed
    return SCALARS[_UNSIGNED_OF[signed.name]]


def comparison_type(t: CType) -> CType:
    """Scalar comparisons give int; vector comparisons a signed vector of the same element size."""
    if t.is_vector:
        return _SIGNED_OF_SIZE[t.dtype.itemsize].vector(t.width)
    return INT


def convert(values: np.ndarray, source: CType, target: CType) -> np.ndarray:
    """``values`` of ``source`` as ``target``: integers wrap, floats to integers truncate toward zero (C), NaN and
    out-of-range floats give what the target's conversion gives on x86 (implementation-defined in C).

    Without an ``np.errstate`` of its own (a microsecond per call, on the executor's every operation): a launch
    runs under ``errstate(all="ignore")`` (``executor.run_kernel``); elsewhere NumPy may warn, with the same
    result."""
    if target.is_vector and not source.is_vector:
        values = np.repeat(values[..., None], target.width, axis=-1)
    if source.kind == "float" and target.kind in ("int", "uint"):
        values = np.trunc(values)
        if target.kind == "uint":  # out of range: x86's truncation to a long, then its low bits
            wrapped = values.astype(np.int64).astype(target.dtype)
            if target.dtype.itemsize < 8:
                return wrapped
            high = (values >= 2.0**63) & (values < 2.0**64)  # in range for a ulong, past a long's
            return np.where(high, np.where(high, values, 0).astype(np.uint64), wrapped) if high.any() else wrapped
    if target.kind == "bool":
        return values != 0
    return values.astype(target.dtype)


def wrap(value: int, t: CType) -> int:
    """The integer ``value`` converted to the integer scalar ``t`` as C converts it: modulo 2**bits, then read as
    signed where ``t`` is (``bool``: 0 or 1)."""
    if t.kind == "bool":
        return int(value != 0)
    bits = t.dtype.itemsize * 8
    v = value % (1 << bits)
    return v - (1 << bits) if t.kind == "int" and v >> (bits - 1) else v


_INT_DIVIDE = {"/", "%"}


COMPARE = {
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
    "==": np.equal,
    "!=": np.not_equal,
}
"""C's comparison operators as NumPy's (exact on integers of one type, as C compares after conversion)."""


def arithmetic(op: str, a: np.ndarray, b: np.ndarray, t: CType) -> np.ndarray:
    """``a op b`` for operands already converted to ``t``: + - * / % << >> & | ^ with C's semantics.

    Integer ``/`` truncates toward zero and ``%`` takes the dividend's sign; division by zero gives 0 in the lane
    (the executor reports it); shift counts are taken modulo the width in bits (OpenCL C 1.2, 6.3 j). Run under
    the launch's ``np.errstate``, as ``convert``.
    """
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if t.kind == "float":
        if op == "/":
            return a / b
        raise TypeError(f"operator {op} needs integer operands, got {t}")
    if op in _INT_DIVIDE:
        zero = b == 0
        safe = np.where(zero, np.ones_like(b), b)
        if op == "/":
            result = a // safe  # floor division; C truncates toward zero:
            if t.kind == "int":
                inexact = (a - result * safe) != 0
                result = np.where(inexact & ((a < 0) ^ (safe < 0)), result + 1, result)
        else:
            result = np.fmod(a, safe)
        return np.where(zero, np.zeros_like(result), result).astype(t.dtype)
    if op in ("<<", ">>"):
        count = (b & (t.dtype.itemsize * 8 - 1)).astype(t.dtype)
        return (a << count) if op == "<<" else (a >> count)
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    raise TypeError(f"unknown operator {op}")


def elem_bytes(t: CType) -> int:
    """The bytes a value of ``t`` takes in memory (a 3-vector as a 4-vector)."""
    return int(t.dtype.itemsize) * (4 if t.width == 3 else t.width)


ALL_BYTES_WRITTEN = {1: 0x01, 2: 0x0101, 4: 0x01010101, 8: 0x0101010101010101}
"""The per-byte initialization flags (one bool per byte) of an element whose every byte was written, read as one
unsigned word of the element's size."""
