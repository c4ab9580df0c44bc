"""Undefined bits of scalar integers (``wia_sim/kernels/bit_shadow.py``): a word some of whose bytes nobody wrote,
taken apart with shifts, masks and conversions, is defined where every bit that reaches the use was written, as
Oclgrind's shadow (bit by bit) and Valgrind's memcheck have it. Until then any operator made such a value
undefined as a whole, so ``(uchar)(w >> 8)`` of a word whose byte 1 alone was written was a finding here and
not on Oclgrind."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wia_sim.kernels import compile_source
from wia_sim.kernels.executor import KernelFault, run_kernel
from wia_sim.kernels.lanes import Geometry

WORD = """__kernel void k(__global uint* out, __global const uchar* bytes, uint written) {
    __local uint w[1];
    __local uchar* b = (__local uchar*)w;
    if (get_local_id(0) == 0) {
        for (int k = 0; k < 4; k++)
            if (written & (1u << k)) b[k] = bytes[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint v = w[0];
    out[get_global_id(0)] = USE;
}
"""
"""A word of which the bytes ``written`` names were written, and a use of it (line 10)."""


def _run(use: str, written: int, data: bytes = b"\x11\x5a\x33\x44") -> np.ndarray:
    out = np.zeros(2, np.uint32)
    args = [out.view(np.uint8), np.frombuffer(data, np.uint8).copy(), np.uint32(written)]
    run_kernel(compile_source(WORD.replace("USE", use)), "k", args, Geometry((2, 1, 1), (2, 1, 1)))
    return out


@pytest.mark.parametrize(
    ("use", "expected"),
    [
        ("(uchar)(v >> 8)", 0x5A),  # Oclgrind 21.10: nothing
        ("(v >> 8) & 0xFF", 0x5A),  # Oclgrind: nothing
        ("(uchar)((int)v >> 8)", 0x5A),  # Oclgrind: nothing
        ("(v & 0xFF00u) << 4", 0x5A000),  # Oclgrind reports it: its & is not memcheck's
        ("v | 0xFFFF00FFu", 0xFFFF5AFF),  # Oclgrind reports it too
        ("(uchar)~(v >> 8)", 0xA5),
        ("(uint)(uchar)(v >> 4) >> 4", 0xA),  # (bits 8-11 of v)
        ("(uint)(char)(v >> 8) >> 8", 0),  # (byte 1 sign-extended: its bit 7, written, in every new bit)
        ("(uchar)((v >> 8) * 3 + 1)", (0x5A * 3 + 1) & 0xFF),  # Oclgrind: nothing (LLVM narrows it to the byte)
        ("(uchar)-(v >> 8)", -0x5A & 0xFF),
    ],
)
def test_bits_that_were_written_are_defined(use: str, expected: int) -> None:
    assert _run(use, 0b0010).tolist() == [expected, expected]


@pytest.mark.parametrize(
    "use",
    [
        "(uchar)(v >> 12)",  # (bits 12-15 of byte 1, 16-19 of byte 2, unwritten) Oclgrind: uninitialized
        "(uchar)(v >> 16)",  # Oclgrind: uninitialized
        "(uchar)(v / 1)",  # any other operator: the whole value
        "(uchar)((v >> 4) + 1)",  # (a carry from bit 4 up: bits 4-7 of byte 0 unwritten)
        "(v >> 8) & 0x1FF",
        "(uint)(char)(v >> 16) >> 8",  # (byte 2's bit 7, unwritten, in every new bit)
    ],
)
def test_an_unwritten_bit_that_reaches_the_use_is_the_finding(use: str) -> None:
    with pytest.raises(KernelFault) as info:
        _run(use, 0b0010)
    assert info.value.check == "uninitialized_local" and info.value.line == 10
    assert "(4 bytes at offset 0; bytes 0 and 2-3 of them never written) at line 9" in str(info.value)


# -- a property: random chains of bit-exact operators against memcheck's rules computed here

_MASK = 0xFFFFFFFF


def _step(op: str, k: int, c: int, value: int, bits: int) -> tuple[str, int, int]:
    """The C text's template, the value and the undefined bits after one operator (uint in, uint out)."""
    if op == ">>":
        return f"((X) >> {k})", value >> k, bits >> k
    if op == "<<":
        return f"((X) << {k})", (value << k) & _MASK, (bits << k) & _MASK
    if op == "sar":  # arithmetic: the sign bit's shadow fills what is shifted in
        signed = value - (1 << 32) if value >> 31 else value
        fill = (_MASK ^ (_MASK >> k)) if bits >> 31 else 0
        return f"(uint)((int)(X) >> {k})", (signed >> k) & _MASK, (bits >> k) | fill
    if op == "&":
        return f"((X) & {c}u)", value & c, bits & c
    if op == "|":
        return f"((X) | {c}u)", value | c, bits & ~c & _MASK
    if op == "^":
        return f"((X) ^ {c}u)", value ^ c, bits
    if op == "~":
        return "(~(X))", ~value & _MASK, bits
    if op in ("+", "-", "*", "neg"):  # a carry moves upwards: the lowest undefined bit and all above it
        left = (bits | (-bits & _MASK)) & _MASK
        if op == "neg":
            return "(-(X))", -value & _MASK, left
        result = {"+": value + c, "-": value - c, "*": value * c}[op] & _MASK
        return f"((X) {op} {c}u)", result, left
    width = {"uchar": 8, "ushort": 16, "char": 8, "short": 16}[op]
    low, lbits = value & ((1 << width) - 1), bits & ((1 << width) - 1)
    if op in ("char", "short") and (low >> (width - 1)) & 1:
        low |= _MASK ^ ((1 << width) - 1)
    if op in ("char", "short") and (lbits >> (width - 1)) & 1:
        lbits |= _MASK ^ ((1 << width) - 1)
    return f"(uint)({op})(X)", low, lbits


_OPS = st.tuples(
    st.sampled_from([">>", "<<", "sar", "&", "|", "^", "~", "+", "-", "*", "neg", "uchar", "ushort", "char", "short"]),
    st.integers(0, 31),
    st.integers(0, _MASK),
)


@settings(max_examples=40, deadline=None)
@given(written=st.integers(0, 15), data=st.binary(min_size=4, max_size=4), chain=st.lists(_OPS, min_size=1, max_size=5))
def test_chains_of_bit_exact_operators_follow_memchecks_rules(
    written: int, data: bytes, chain: list[tuple[str, int, int]]
) -> None:
    value = int.from_bytes(bytes(b if written >> k & 1 else 0 for k, b in enumerate(data)), "little")
    bits = sum(0xFF << (8 * k) for k in range(4) if not written >> k & 1)
    text = "v"
    for op, k, c in chain:
        template, value, bits = _step(op, k, c, value, bits)
        text = template.replace("X", text)
    if bits:
        with pytest.raises(KernelFault) as info:
            _run(text, written, data)
        assert info.value.check == "uninitialized_local", text
    else:  # every bit of the use written: its value is the written bytes' whatever the others hold
        assert _run(text, written, data).tolist() == [value, value], text


STORED = """__kernel void k(__global uint* out, __global const uchar* bytes, uint written) {
    __local uint w[1];
    __local uint t[1];
    __local uchar* b = (__local uchar*)w;
    if (get_local_id(0) == 0) b[1] = bytes[1];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) t[0] = w[0] >> 8;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = USE;
}
"""


@pytest.mark.parametrize(("use", "expected"), [("(uchar)t[0]", 0x5A), ("t[0] >> 24", 0), ("(uchar)(t[0] >> 8)", None)])
def test_a_value_stored_leaves_only_its_undefined_bytes_uninitialized(use: str, expected: int | None) -> None:
    """``t[0] = w >> 8`` stores byte 1 of ``w`` (written) in byte 0, bytes 2-3 (unwritten) in bytes 1-2, a zero in
    byte 3: read back, byte 0 and byte 3 are defined and bytes 1-2 not, as on Oclgrind 21.10 (which, as the
    simulator, also notes the store of an undefined value to local memory)."""
    out = np.zeros(2, np.uint32)
    args = [out.view(np.uint8), np.frombuffer(b"\x11\x5a\x33\x44", np.uint8).copy(), np.uint32(0)]
    program = compile_source(STORED.replace("USE", use))
    geometry = Geometry((2, 1, 1), (2, 1, 1))
    if expected is None:
        with pytest.raises(KernelFault) as info:
            run_kernel(program, "k", args, geometry)
        assert "bytes 1-2 of them hold an undefined value stored there" in str(info.value), str(info.value)
        return
    result = run_kernel(program, "k", args, geometry)
    assert out.tolist() == [expected] * 2
    assert [f.check for f in result.findings] == ["uninitialized_local"]  # (the store, lower-severity)


def test_a_sum_stored_before_its_other_bytes_are_written_is_defined_once_they_are() -> None:
    """``a[0] + 1u`` of a word whose bytes 0-1 alone were written has its low 16 bits defined (a carry moves
    upwards), so the word stored and completed is defined; Oclgrind 21.10 reports it (its addition of a partly
    undefined word is undefined as a whole: tests/test_kernel_undefined_values.py holds a division instead)."""
    source = """__kernel void k(__global const uchar* in, __global uint* out) {
    uint a[1], b[1];
    ((uchar*)a)[0] = in[0];
    ((uchar*)a)[1] = in[1];
    b[0] = a[0] + 1u;
    ((uchar*)b)[2] = in[2];
    ((uchar*)b)[3] = in[3];
    out[get_global_id(0)] = b[0];
}"""
    out = np.zeros(2, np.uint32)
    args = [np.array([1, 2, 3, 4], np.uint8), out.view(np.uint8)]
    assert not run_kernel(compile_source(source), "k", args, Geometry((2, 1, 1), (2, 1, 1))).findings
    assert out.tolist() == [0x04030202] * 2
