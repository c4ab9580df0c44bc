"""Compiled expressions (``compiled.py``) against the interpreter they stand in for.

A tree of arithmetic on private values is compiled once into closures on arrays; where a variable holds anything
but a plain array (coefficients, lanes nobody defined) or a lane divides an integer by zero, it gives itself back
to the interpreter. That must change nothing but speed: every program here runs with compiled trees and with the
interpreter alone (``executor.compiled_plan`` giving none, and no loop run by ``private_loops``), with checks on and
off, and gives the same bits, counts, steps and findings. Random programs mix every scalar type, float4 and int4,
the operators, casts, ``?:``, ``&&``, ``||``, compound assignments and increments under divergent conditions and
loops, beside what stays interpreted (loads, built-in calls, coefficients of the work-item's id, a variable never
initialized)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from kernel_backends import assert_same_runs, private_loops_off, run_on_copies

from wia_sim.kernels import KernelCompileError, executor
from wia_sim.kernels.lanes import Geometry

N, WG = 64, 16

HEAD = """#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void k(__global const int* in, __global const float* fin, __global long* out, __global float* fout,
                __global double* dout) {
    const int i = get_global_id(0), l = get_local_id(0);
    int a = in[i], b = in[i + 64], p = i * 3 + 1, z;
    uint u = (uint)in[i + 128] * 2654435761u;
    char c = (char)b;
    short s = (short)(a * 977);
    long L = (long)a * 1000003L;
    ulong U = (ulong)u << 7;
    float f = fin[i], g = fin[i + 64];
    double d = (double)f * 3.25;
    float4 v = (float4)(f, g, 1.5f, -2.0f);
    int4 w = (int4)(a, b, 3, -4);
"""
TAIL = """
    out[8 * i] = a; out[8 * i + 1] = b; out[8 * i + 2] = u; out[8 * i + 3] = c;
    out[8 * i + 4] = s; out[8 * i + 5] = L; out[8 * i + 6] = (long)U; out[8 * i + 7] = p;
    fout[8 * i] = f; fout[8 * i + 1] = g; fout[8 * i + 2] = v.x; fout[8 * i + 3] = v.y;
    fout[8 * i + 4] = v.z; fout[8 * i + 5] = v.w; fout[8 * i + 6] = (float)(w.x ^ w.y); fout[8 * i + 7] = (float)w.w;
    dout[i] = d;
}
"""


def _arrays(rng: np.random.Generator) -> list[np.ndarray]:
    ints = rng.integers(-300, 300, 3 * N).astype(np.int32)
    ints[rng.random(3 * N) < 0.15] = 0
    floats = rng.normal(0, 4, 2 * N).astype(np.float32)
    return [ints, floats, np.zeros(8 * N, np.int64), np.zeros(8 * N, np.float32), np.zeros(N, np.float64)]


def _run(src: str, arrays: list[np.ndarray], compiling: bool, checks: bool, contract: bool = False) -> Any:
    saved = executor.compiled_plan
    if not compiling:
        executor.compiled_plan = lambda *args: None  # type: ignore[assignment]
    try:  # (nor loops of them: ``private_loops`` runs the compiled trees itself)
        with private_loops_off(not compiling):
            return run_on_copies(src, arrays, Geometry((N, 1, 1), (WG, 1, 1)), contract=contract, checks=checks)
    finally:
        executor.compiled_plan = saved  # type: ignore[assignment]


def _same(body: str, seed: int = 3, checks: bool = True, contract: bool = False) -> Any:
    src = HEAD + body + TAIL
    arrays = _arrays(np.random.default_rng(seed))
    first = _run(src, arrays, compiling=True, checks=checks, contract=contract)
    assert_same_runs(first, _run(src, arrays, compiling=False, checks=checks, contract=contract))
    return first


_INT_LEAVES = ["a", "b", "u", "c", "s", "L", "U", "p", "i", "l", "3", "-7", "0x7f", "5u", "2147483647", "31", "1L"]
_INT_RARE = ["z", "in[(a & 63) + 64]", "(a > 2 && b < 5)", "(b == 0 || a % b > 1)", "(int)get_local_id(0)", "w.y"]
_INT_CALLS = [
    "min(a, b)",
    "abs(s)",
    "convert_int_sat(f * 1e9f)",
    "as_int(g)",
    "rotate(u, 3u)",
    "select(a, b, a > b)",
    "isnan(f / g)",
    "mul_hi(a, b)",
    "popcount(U)",
    "clz(c)",
]
_INT_OPS = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", ">", "<=", ">=", "==", "!="]
_INT_TYPES = ["int", "uint", "char", "short", "long", "ulong", "uchar"]
_FLOAT_LEAVES = ["f", "g", "d", "1.5f", "-0.25f", "3.0f", "1e30f", "0.1", "fin[(l * 3) % 64]", "v.z"]
_FLOAT_CALLS = [
    "sqrt(fabs(g))",
    "clamp(f, -1.0f, 1.0f)",
    "mad(f, g, 1.0f)",
    "exp(g)",
    "sin(d)",
    "dot(v, v)",
    "length(v)",
    "fmax(f, (float)a)",
    "convert_float(u)",
    "native_divide(f, g)",
]


def _int(draw: st.DrawFn, depth: int) -> str:
    choice = draw(st.integers(0, 9)) if depth > 0 else 0
    if choice <= 1:
        pick = draw(st.integers(0, 9))
        return draw(st.sampled_from(_INT_RARE if pick == 0 else _INT_CALLS if pick == 1 else _INT_LEAVES))
    if choice <= 5:
        return f"({_int(draw, depth - 1)} {draw(st.sampled_from(_INT_OPS))} {_int(draw, depth - 1)})"
    if choice == 6:
        return f"({draw(st.sampled_from(['-', '~', '!']))}{_int(draw, depth - 1)})"
    if choice == 7:
        inner = _float(draw, depth - 1) if draw(st.booleans()) else _int(draw, depth - 1)
        return f"(({draw(st.sampled_from(_INT_TYPES))})({inner}))"
    if choice == 8:
        return f"({_float(draw, depth - 1)} {draw(st.sampled_from(['<', '>=', '==', '!=']))} {_float(draw, depth - 1)})"
    return f"({_int(draw, depth - 1)} ? {_int(draw, depth - 1)} : {_int(draw, depth - 1)})"


def _float(draw: st.DrawFn, depth: int) -> str:
    choice = draw(st.integers(0, 7)) if depth > 0 else 0
    if choice <= 1:
        return draw(st.sampled_from(_FLOAT_CALLS if draw(st.integers(0, 4)) == 0 else _FLOAT_LEAVES))
    if choice <= 4:
        return f"({_float(draw, depth - 1)} {draw(st.sampled_from(['+', '-', '*', '/']))} {_float(draw, depth - 1)})"
    if choice == 5:
        return f"(-{_float(draw, depth - 1)})"
    if choice == 6:
        return f"(({draw(st.sampled_from(['float', 'double']))})({_int(draw, depth - 1)}))"
    return f"({_int(draw, depth - 1)} ? {_float(draw, depth - 1)} : {_float(draw, depth - 1)})"


def _float4(draw: st.DrawFn, depth: int) -> str:
    choice = draw(st.integers(0, 5)) if depth > 0 else 0
    if choice <= 1:
        return draw(st.sampled_from(["v", "(float4)(f)", "v.wzyx", "fmin(v, (float4)(g))", "normalize(v)"]))
    if choice <= 3:
        right = _float4(draw, depth - 1) if draw(st.booleans()) else draw(st.sampled_from(["f", "2.0f"]))
        return f"({_float4(draw, depth - 1)} {draw(st.sampled_from(['+', '-', '*', '/']))} {right})"
    if choice == 4:
        return f"(-{_float4(draw, depth - 1)})"
    return f"({_int(draw, depth - 1)} ? {_float4(draw, depth - 1)} : {_float4(draw, depth - 1)})"


def _int4(draw: st.DrawFn, depth: int) -> str:
    choice = draw(st.integers(0, 6)) if depth > 0 else 0
    if choice <= 1:
        return draw(st.sampled_from(["w", "(int4)(a)", "w.yxwz", "max(w, (int4)(2))", "(int4)(mul24(a, 3))"]))
    if choice <= 3:
        right = _int4(draw, depth - 1) if draw(st.booleans()) else draw(st.sampled_from(["a", "3"]))
        op = draw(st.sampled_from(["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"]))
        return f"({_int4(draw, depth - 1)} {op} {right})"
    if choice == 4:
        return f"({_float4(draw, depth - 1)} {draw(st.sampled_from(['<', '==', '>=']))} {_float4(draw, depth - 1)})"
    if choice == 5:
        return f"({draw(st.sampled_from(['-', '~', '!']))}{_int4(draw, depth - 1)})"
    return f"({_int(draw, depth - 1)} ? {_int4(draw, depth - 1)} : {_int4(draw, depth - 1)})"


_TARGETS = {
    "a": "int",
    "b": "int",
    "u": "int",
    "c": "int",
    "s": "int",
    "L": "int",
    "U": "int",
    "z": "int",
    "p": "int",
    "f": "float",
    "g": "float",
    "d": "float",
    "v": "float4",
    "w": "int4",
    "v.x": "float",  # components of a vector variable: compiled too
    "v.s2": "float",
    "w.y": "int",
    "w.s3": "int",
    "v.wzyx": "float4",
    "w.yxwz": "int4",
}
_EXPRESSIONS = {"int": _int, "float": _float, "float4": _float4, "int4": _int4}
_COMPOUND = {
    "int": ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="],
    "float": ["+=", "-=", "*=", "/="],
    "float4": ["+=", "-=", "*=", "/="],
    "int4": ["+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="],
}
_GUARDS = ["", "", "if (l < 7) ", "if ((a & 1) == 0) ", "if (f > 0.5f) ", "for (int q = 0; q < 3; q++) "]


@st.composite
def _programs(draw: st.DrawFn) -> str:
    lines = []
    for _ in range(draw(st.integers(1, 6))):
        target = draw(st.sampled_from(sorted(_TARGETS)))
        domain = _TARGETS[target]
        kind = draw(st.integers(0, 5))
        if kind <= 2:
            source = domain if domain not in ("int", "float") else draw(st.sampled_from(["int", "float"]))
            statement = f"{target} = {_EXPRESSIONS[source](draw, 3)};"
        elif kind <= 4:
            statement = f"{target} {draw(st.sampled_from(_COMPOUND[domain]))} {_EXPRESSIONS[domain](draw, 2)};"
        else:
            statement = draw(st.sampled_from([f"{target}++;", f"--{target};", f"{target}--;", f"++{target};"]))
        lines.append(f"    {draw(st.sampled_from(_GUARDS))}{{ {statement} }}")
    return "\n".join(lines)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(body=_programs(), seed=st.integers(0, 2**16), checks=st.booleans())
def test_random_programs_give_the_interpreters_runs(body: str, seed: int, checks: bool) -> None:
    try:
        _same(body, seed, checks)
    except KernelCompileError:
        assume(False)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(body=_programs(), seed=st.integers(0, 2**16))
def test_random_programs_built_to_contract_give_the_interpreters_runs(body: str, seed: int) -> None:
    """``a * b + c`` fused (``contraction.py``): a compiled tree rounds it once as the interpreter does."""
    try:
        _same(body, seed, contract=True)
    except KernelCompileError:
        assume(False)


@pytest.mark.parametrize(
    "body",
    [
        # every fused form, on floats, a double and vectors, in divergent lanes and in a loop
        "    f = f * g + 1.5f; g -= f * 0.75f; v = v * (float4)(g) + v;\n"
        "    if (l < 9) { d += d * 0.5; f = g * f - f; d = 2.0 - d * d; }\n"
        "    for (int q = 0; q < 3; q++) { v.x += v.y * v.z; g = g * f + (float)q; v.zw -= v.xy * v.yx; }",
        # operands of other types: an int product, a float product in a double sum, a product in a comparison
        "    a = a * b + p; d = f * g + d; f = (f * g + 1.0f > g) ? f : g;\n"
        "    d = (double)(f * g) + d; f = (float)(f * g) - g; g += (float)(a * b); d -= (double)(d * d);",
        # a product undefined in some lanes: the operators' way, the same finding at the same use
        "    float h;\n    if (l < 8) h = f;\n    g = h * g + f;",
    ],
)
@pytest.mark.parametrize("checks", [True, False])
def test_programs_built_to_contract_give_the_interpreters_runs(body: str, checks: bool) -> None:
    _same(body, checks=checks, contract=True)


@pytest.mark.parametrize(
    "body",
    [
        # the Collatz steps of each lane: a loop whose trip count differs per lane, ?: on a divergent condition
        "    uint x = (uint)(a & 1023) + 1u; int n = 0;\n"
        "    while (x != 1u) { x = (x & 1u) ? 3u * x + 1u : x >> 1; ++n; }\n    a = n;",
        # a variable undefined in some lanes: the interpreter's finding, at the same use
        "    if (l < 8) z = a;\n    b = z + 1;",
        # an integer division by zero in some lanes: the interpreter's lower-severity finding, values the same
        "    a = a / (b & 3);\n    c %= (char)(b & 1);",
        # coefficients of the work-item's id: kept by the interpreter (a strided store), the same counts
        "    p += 5;\n    out[p % 64] = p;",
        # a variable declared in a loop: a new one at every iteration, compiled against the one in scope
        "    for (int q = 0; q < 4; q++) { float t = f * (float)q; t += g; g = t / 3.0f; }",
        # nested ?: whose sides each take some lanes, vectors with a scalar condition
        "    v = (a > 0) ? ((b > 0) ? v * 2.0f : -v) : v + (float4)(g);\n    w = (f < 0.0f) ? w << 3 : ~w;",
        # components of vector variables read and assigned, in divergent lanes and in a loop (salsa's shape)
        "    for (int q = 0; q < 4; q++) { w.s0 ^= rotate(w.s3 + w.s2, 7); w.s1 += w.s0 * q; }\n"
        "    if (l < 7) { v.yx = v.zw * 2.0f; v.z -= v.x; }\n    a = w.x + w.y; f = v.y + (float)(v.w = 3.5f);",
        # && and ||: the right side only for the lanes the left leaves undecided (a division by zero guarded
        # away is no finding), nested, with ?: and a float on either side, as values and as conditions
        "    a = (b != 0 && a / b > 2) + (c == 0 || s % c < 3);\n"
        "    p = (f > g && (a > 0 ? g : f) < 1.0f) || !(u & 4u);\n"
        "    if (L > 5 && (g || f < -1.0f)) b = a && (p || b);",
        # a loop whose condition is a && (a Mandelbrot's): each lane leaves when either side fails
        "    float x = 0.0f, y = 0.0f, cx = f / 64.0f, cy = g / 64.0f; int n = 0;\n"
        "    while (n < 40 && x * x + y * y <= 4.0f) {\n"
        "        float t = x * x - y * y + cx; y = 2.0f * x * y + cy; x = t; n++;\n    }\n"
        "    a = n; f = x; g = y;",
    ],
)
@pytest.mark.parametrize("checks", [True, False])
def test_programs_give_the_interpreters_runs(body: str, checks: bool) -> None:
    _same(body, checks=checks)


def test_arithmetic_on_private_values_runs_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The interpreter's operators never run for the line of trees that compile (the random programs would pass
    vacuously if every tree gave itself back)."""
    lines: list[int] = []

    def spied(method: Any, at: Any) -> Any:
        def spy(*args: Any) -> Any:
            lines.append(at(*args))
            return method(*args)

        return spy

    combine = executor._Combine.__call__
    monkeypatch.setattr(executor._Combine, "__call__", spied(combine, lambda plan, *args: plan.node.coord.line))
    for name in ("expr_TernaryOp", "expr_Cast"):
        method = getattr(executor._Executor, name)
        monkeypatch.setattr(executor._Executor, name, spied(method, lambda ex, node, mask: node.coord.line))
    body = "    for (int q = 0; q < 3; q++) { f = (a < b) ? f * g - 1.0f : -f; a += (int)f % 7; }"
    src = HEAD + body + TAIL
    arrays = _arrays(np.random.default_rng(1))
    expected = _run(src, arrays, compiling=False, checks=True)
    loop = HEAD.count("\n") + 1
    assert loop in lines
    lines.clear()
    assert_same_runs(_run(src, arrays, compiling=True, checks=True), expected)
    assert lines and loop not in lines
