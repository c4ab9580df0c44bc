"""Floating-point contraction (``wia_sim/kernels/contraction.py``): with the sim backend's ``kernel_fp_contract``,
``a * b + c`` within an expression is rounded once, as Clang's default (``-ffp-contract=on``) has PoCL 3.1 and
Oclgrind 21.10 compute it, so the simulator's results match theirs bit for bit; ``#pragma OPENCL FP_CONTRACT OFF``
turns it off in its scope; without the option every operator rounds its own result (the default).

Every device is held to one exact reference: each fused form rounded once from exact fractions, each unfused one
operator by operator in the type (NumPy's float32 and float64 operators round correctly)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from kernel_backends import context_on, run_arrays

from wia_sim.kernels import compile_source
from wia_sim.kernels.contraction import fused_chain

N = 512

FORMS: dict[str, tuple[str, bool]] = {
    # name: (the expression of a, b, c and d, whether Clang fuses it)
    "a*b + c": ("a * b + c", True),
    "c + a*b": ("c + a * b", True),
    "a*b - c": ("a * b - c", True),
    "c - a*b": ("c - a * b", True),
    "a*b + c*d": ("a * b + c * d", True),
    "-(a*b) + c": ("-(a * b) + c", False),  # (through a negation: neither device fuses)
    "(a*b + c)*d + a": ("(a * b + c) * d + a", True),
    "a*b + c + d": ("a * b + c + d", True),
    "a*b*c + d": ("a * b * c + d", True),
    "x += a*b": ("({ T x = c; x += a * b; x; })", True),
    "x -= a*b": ("({ T x = c; x -= a * b; x; })", True),
    "x += a*b + c": ("({ T x = d; x += a * b + c; x; })", True),
    "(T)(a*b) + c": ("(T)(a * b) + c", True),  # (a cast to the product's own type: Clang drops it)
    "x -= (T)(a*b)": ("({ T x = c; x -= (T)(a * b); x; })", True),
}
"""Each form, and whether Clang fuses it (the GNU statement expression ``({ ...; x; })`` is the value of ``x``
after the compound assignment; Clang and the simulator take it)."""


def _exact(x: np.ndarray) -> list[Fraction]:
    return [Fraction(float(v)) if np.isfinite(v) else Fraction(0) for v in x.ravel()]


def _round(values: list[Fraction], dtype: np.dtype) -> np.ndarray:
    """Exact values rounded once to ``dtype``: to float64 (Fraction's float() rounds to nearest, ties to even),
    then to float32 or half where it is one after rounding to odd first, so that the second rounding is exact too
    (53 >= 2p + 2 bits)."""
    out = np.empty(len(values), dtype)
    for k, v in enumerate(values):  # (past float's range: infinity, as the cast gives it)
        d = float(v)
        if dtype in (np.float32, np.float16) and Fraction(d) != v:
            bits = np.float64(d).view(np.int64)
            if not bits & 1:  # rounded to an even neighbour: take the odd one on the exact value's side
                d = float(np.nextafter(d, np.inf if v > Fraction(d) else -np.inf))
        with np.errstate(over="ignore"):
            out[k] = d
    return out


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a * b + c`` rounded once: from exact fractions, or in float64 where an operand is not finite or the exact
    result is 0 (the sign of a zero sum: IEEE 754's, which float64's exact product and sum give)."""
    with np.errstate(all="ignore"):
        plain = a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)
    finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(c)
    exact = [x * y + z for x, y, z in zip(_exact(a), _exact(b), _exact(c), strict=True)]
    out = _round(exact, a.dtype).reshape(a.shape)
    simple = ~finite | np.asarray([v == 0 for v in exact]).reshape(a.shape)
    with np.errstate(all="ignore"):
        out[simple] = plain[simple].astype(a.dtype)
    return out


def _reference(name: str, a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray, fuse: bool) -> np.ndarray:
    mul: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] = _fma if fuse else (lambda x, y, z: x * y + z)
    with np.errstate(all="ignore"):
        return {
            "a*b + c": lambda: mul(a, b, c),
            "c + a*b": lambda: mul(a, b, c),
            "a*b - c": lambda: mul(a, b, -c),
            "c - a*b": lambda: mul(-a, b, c),
            "a*b + c*d": lambda: mul(a, b, c * d),
            "-(a*b) + c": lambda: -(a * b) + c,
            "(a*b + c)*d + a": lambda: mul(mul(a, b, c), d, a),
            "a*b + c + d": lambda: mul(a, b, c) + d,
            "a*b*c + d": lambda: mul(a * b, c, d),
            "x += a*b": lambda: mul(a, b, c),
            "x -= a*b": lambda: mul(-a, b, c),
            "x += a*b + c": lambda: d + mul(a, b, c),
            "(T)(a*b) + c": lambda: mul(a, b, c),
            "x -= (T)(a*b)": lambda: mul(-a, b, c),
        }[name]()


def _source(t: str, pragma: str = "") -> str:
    lines = "\n".join(f"    o[{k} * N + i] = {expr.replace('T', t)};" for k, (expr, _) in enumerate(FORMS.values()))
    fp64 = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" if "double" in t else ""
    fp64 += "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" if "half" in t else ""
    return (
        f"{fp64}#define N {N}\n"
        f"__kernel void k(__global const {t}* in, __global {t}* o) {{\n{pragma}"
        f"    const int i = get_global_id(0);\n"
        f"    {t} a = in[i], b = in[N + i], c = in[2 * N + i], d = in[3 * N + i];\n{lines}\n}}\n"
    )


def _operands(dtype: type, width: int) -> np.ndarray:
    """Random operands of every sign over a few binades, each of a, b, c, d a row (vectors' components flat)."""
    rng = np.random.default_rng(20261205)
    x = rng.standard_normal(4 * N * width) * np.exp2(rng.integers(-4, 4, 4 * N * width))
    return x.astype(dtype)


def _launch(
    device: str,
    fp_contract: bool,
    request: pytest.FixtureRequest,
    source: str,
    arrays: list[np.ndarray],
    global_size: int,
    *scalars: Any,
) -> list[np.ndarray]:
    """``run_arrays`` of kernel ``k`` on ``device`` in work-groups of 16: the simulator with ``kernel_fp_contract``
    as given, or a real device (which contracts)."""
    fixtures = request.getfixturevalue("monkeypatch"), request.getfixturevalue("tmp_path_factory")
    with context_on(device, *fixtures, kernel_fp_contract=fp_contract) as ctx:
        return run_arrays(ctx, source, "k", arrays, global_size, 16, *scalars)


def _run(
    device: str, source: str, x: np.ndarray, width: int, fp_contract: bool, request: pytest.FixtureRequest
) -> np.ndarray:
    out = np.zeros(len(FORMS) * N * width, x.dtype)
    return _launch(device, fp_contract, request, source, [x, out], N)[1]


def _check(got: np.ndarray, x: np.ndarray, width: int, fused: bool | None) -> None:
    """Each form's outputs against its reference: fused as Clang fuses it (``fused`` None), else all fused or all
    not (True, False)."""
    a, b, c, d = (x[k * N * width : (k + 1) * N * width] for k in range(4))
    for k, (name, (_, fuses)) in enumerate(FORMS.items()):
        want = _reference(name, a, b, c, d, fuses if fused is None else fused and fuses)
        row = got[k * N * width : (k + 1) * N * width]
        assert row.tobytes() == want.tobytes(), f"{name}: {np.count_nonzero(row != want)} of {row.size} differ"


@pytest.mark.parametrize("device", ["sim", "pocl", "oclgrind"])
@pytest.mark.parametrize(("t", "dtype", "width"), [("float", np.float32, 1), ("float4", np.float32, 4)])
def test_a_product_and_a_sum_in_one_expression_round_once(
    device: str, t: str, dtype: type, width: int, request: pytest.FixtureRequest
) -> None:
    x = _operands(dtype, width)
    _check(_run(device, _source(t), x, width, True, request), x, width, None)


@pytest.mark.parametrize("device", ["sim", "pocl", "oclgrind"])
def test_doubles_round_once_too(device: str, request: pytest.FixtureRequest) -> None:
    x = _operands(np.float64, 2)
    _check(_run(device, _source("double2"), x, 2, True, request), x, 2, None)


def test_halves_round_once_too(request: pytest.FixtureRequest) -> None:
    """Clang 15 emits ``llvm.fmuladd.f16`` for ``half`` as for float; on the simulator alone (PoCL 3.1 has no
    cl_khr_fp16, Oclgrind 21.10's half results are wrong), which rounded each operator (found by the clpeak and
    mixbench probe)."""
    x = _operands(np.float16, 2)
    _check(_run("sim", _source("half2"), x, 2, True, request), x, 2, None)
    _check(_run("sim", _source("half2"), x, 2, False, request), x, 2, False)


@pytest.mark.parametrize("device", ["sim", "pocl", "oclgrind"])
def test_the_pragma_turns_contraction_off_in_its_scope(device: str, request: pytest.FixtureRequest) -> None:
    x = _operands(np.float32, 1)
    off = _source("float", "#pragma OPENCL FP_CONTRACT OFF\n")
    _check(_run(device, off, x, 1, True, request), x, 1, False)
    at_file_scope = "#pragma OPENCL FP_CONTRACT OFF\n" + _source("float", "#pragma OPENCL FP_CONTRACT ON\n")
    _check(_run(device, at_file_scope, x, 1, True, request), x, 1, None)


def _half_defined_source(t: str) -> str:
    """Each form computed by every work-item of a group of 16 from operands only the first 8 assigned, and stored by
    those 8 (clFFT's kernels compute their butterflies so, and store under a flag): the others' results are of
    undefined values, never used."""
    forms = "\n".join(f"    const {t} r{k} = {expr.replace('T', t)};" for k, (expr, _) in enumerate(FORMS.values()))
    stores = " ".join(f"o[{k} * N + i] = r{k};" for k in range(len(FORMS)))
    return (
        f"#define N {N}\n"
        f"__kernel void k(__global const {t}* in, __global {t}* o) {{\n"
        f"    const int i = get_global_id(0);\n"
        f"    {t} a, b, c, d;\n"
        f"    if ((i & 15) < 8) {{ a = in[i]; b = in[N + i]; c = in[2 * N + i]; d = in[3 * N + i]; }}\n"
        f"{forms}\n    if ((i & 15) < 8) {{ {stores} }}\n}}\n"
    )


@pytest.mark.parametrize(("device", "checks"), [("sim", True), ("sim", False), ("pocl", None), ("oclgrind", None)])
def test_work_items_whose_neighbours_computed_on_undefined_values_round_once_too(
    device: str, checks: bool | None, request: pytest.FixtureRequest
) -> None:
    """The lanes whose operands are defined get the fused bits, with checks on too: the simulator fused only where
    every lane of the launch had defined operands, so its results depended on ``kernel_checks`` (and on what the
    neighbours held), found by the clFFT probe."""
    x = _operands(np.float32, 4)
    options = {} if checks is None else {"kernel_checks": checks}
    fixtures = request.getfixturevalue("monkeypatch"), request.getfixturevalue("tmp_path_factory")
    with context_on(device, *fixtures, kernel_fp_contract=True, **options) as ctx:
        got = run_arrays(
            ctx, _half_defined_source("float4"), "k", [x, np.zeros(len(FORMS) * N * 4, np.float32)], N, 16
        )[1]
    stored = np.tile(np.repeat((np.arange(N) & 15) < 8, 4), len(FORMS))
    want = np.zeros_like(got)
    want[stored] = _reference_rows(x, 4)[stored]
    assert got.tobytes() == want.tobytes(), f"{np.count_nonzero(got != want)} of {got.size} differ"


def _reference_rows(x: np.ndarray, width: int) -> np.ndarray:
    """Every form's reference as Clang fuses it, the forms' rows one after another (``_check``'s order)."""
    a, b, c, d = (x[k * N * width : (k + 1) * N * width] for k in range(4))
    return np.concatenate([_reference(name, a, b, c, d, fuses) for name, (_, fuses) in FORMS.items()])


def test_without_the_option_every_operator_rounds(request: pytest.FixtureRequest) -> None:
    x = _operands(np.float32, 4)
    _check(_run("sim", _source("float4"), x, 4, False, request), x, 4, False)


ACCUMULATE = """__kernel void k(__global const float* a, __global const float* b, __global float* out, const int n) {
    const int i = get_global_id(0);
    float acc = 0.5f;
    for (int k = 0; k < n; k++) acc += a[i * n + k] * b[k];
    out[i] = acc;
    for (int k = 0; k < n; k++) out[N + i * n + k] = a[i * n + k] * b[k] - acc;
}
"""


@pytest.mark.parametrize("device", ["sim", "pocl", "oclgrind"])
def test_an_accumulation_loop_fuses_step_by_step(device: str, request: pytest.FixtureRequest) -> None:
    """``acc += a * b`` over a loop is a chain of fused steps, each rounded (the simulator's batched loops run it
    iteration by iteration); a store loop fuses each element."""
    n, items = 24, 64
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal(items * n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    out = np.zeros(items + items * n, np.float32)
    source = f"#define N {items}\n" + ACCUMULATE
    got = _launch(device, True, request, source, [a, b, out], items, np.int32(n))[2]
    acc = np.full(items, 0.5, np.float32)
    rows = a.reshape(items, n)
    for k in range(n):
        acc = _fma(rows[:, k].copy(), np.full(items, b[k], np.float32), acc)
    np.testing.assert_array_equal(got[:items], acc)
    want = _fma(rows, np.broadcast_to(b, rows.shape).copy(), -np.broadcast_to(acc[:, None], rows.shape))
    np.testing.assert_array_equal(got[items:].reshape(items, n), want)


RAGGED = """__kernel void k(__global const float* a, __global const float* b, __global const int* len,
                __global float* out, const int n) {
    const int i = get_global_id(0);
    float acc = out[i];
    for (int k = 0; k < len[i]; k++) acc OP a[i * n + k] * b[k];
    out[i] = acc;
}
"""


@pytest.mark.parametrize("op", ["+=", "-="])
@pytest.mark.parametrize("device", ["sim", "pocl", "oclgrind"])
def test_a_loop_of_ragged_lengths_fuses_each_lanes_steps(
    device: str, op: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``acc -= a * b`` is ``acc = fma(-a, b, acc)`` step by step, and a work-item whose loop ends early keeps its
    sum, a -0.0 too, while the others go on: the simulator's batched chain (``fused_chain`` with the rows each step
    runs). Some lanes' sums lie below float's normal range, where a step is rounded from the exact sum."""
    n, items = 20, 64
    rng = np.random.default_rng(12)
    a = (rng.standard_normal(items * n) * np.exp2(rng.integers(-20, 20, items * n))).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    lengths = rng.integers(0, n + 1, items).astype(np.int32)
    start = rng.standard_normal(items).astype(np.float32)
    lengths[:4], start[:4] = (0, 1, 3, 0), -0.0
    sign = -1.0 if op == "-=" else 1.0
    a[n : 3 * n] = np.tile(np.copysign(0.0, -sign * b), 2)  # products of -0.0: sums that stay -0.0 past their end
    a[4 * n : 8 * n] = (rng.standard_normal(4 * n) * 2.0**-128).astype(np.float32)  # denormal products and sums
    start[4:8] = (rng.standard_normal(4) * 2.0**-127).astype(np.float32)
    chains: list[bool] = []
    if device == "sim":
        from wia_sim.kernels import batch_loops

        def spy(*args: Any, **options: Any) -> np.ndarray:
            chains.append(args[4] is not None)  # (the rows each step runs)
            return fused_chain(*args, **options)

        monkeypatch.setattr(batch_loops, "fused_chain", spy)
    got = _launch(device, True, request, RAGGED.replace("OP", op), [a, b, lengths, start.copy()], items, np.int32(n))
    want = start.copy()
    rows = a.reshape(items, n) * np.float32(-1 if op == "-=" else 1)
    for k in range(n):
        want = np.where(lengths > k, _fma(rows[:, k].copy(), np.full(items, b[k], np.float32), want), want)
    np.testing.assert_array_equal(got[3].view(np.uint32), want.view(np.uint32))
    assert device != "sim" or chains == [True]


def test_a_build_with_and_without_contraction_are_two_programs() -> None:
    """The HAL reuses a build of the same source (``compile_source(reuse=True)``): contraction is part of what a
    build is."""
    source = _source("float")
    plain = compile_source(source, reuse=True)
    fusing = compile_source(source, reuse=True, contract=True)
    # the 14 fusing additions among the forms, not the 16 integer ones of the indices (``o[k * N + i]``), which the
    # checker's types rule out
    assert plain is not fusing and not plain.contractions and len(fusing.contractions) == 14
    assert compile_source(source, reuse=True, contract=True) is fusing


MIDPOINTS = """__kernel void k(__global const float* a, __global const float* b, __global float* acc, const int n) {
    const int i = get_global_id(0);
    float s = acc[i];
    for (int k = 0; k < n; k++) s += a[k * get_global_size(0) + i] * b[k * get_global_size(0) + i];
    acc[i] = s;
}
"""


@pytest.mark.parametrize("device", ["sim", "pocl", "oclgrind"])
def test_a_fused_step_whose_double_sum_is_a_float_midpoint_rounds_once(
    device: str, request: pytest.FixtureRequest
) -> None:
    """1 + 2**-23 plus the product 2**-24 - 2**-70 is just below the midpoint between 1 + 2**-23 and 1 + 2**-22,
    so it rounds down; its float64 sum is the midpoint itself, which rounds to the even 1 + 2**-22. A batched
    chain of fused steps adds in float64 (``contraction.fused_chain``) and must catch that lane, and the lanes
    whose sums fall below float's normal range, where a float's rounding point moves."""
    lanes, n = 16, 6
    rng = np.random.default_rng(5)
    a = rng.standard_normal((n, lanes)).astype(np.float32)
    b = rng.standard_normal((n, lanes)).astype(np.float32)
    start = rng.standard_normal(lanes).astype(np.float32)
    near = np.float32(2.0**-12)
    a[:, 0], b[:, 0], start[0] = near * np.float32(1 + 2.0**-23), near * np.float32(1 - 2.0**-23), 1 + 2.0**-23
    a[:, 1], b[:, 1], start[1] = np.float32(2.0**-70), np.float32(1.5 * 2.0**-60), np.float32(2.0**-126)  # subnormal
    a[:, 2], b[:, 2], start[2] = np.float32(2.0**-64), np.float32(-(2.0**-63)), np.float32(2.0**-126)
    got = _launch(device, True, request, MIDPOINTS, [a, b, start.copy()], lanes, np.int32(n))[2]
    want = start.copy()
    for k in range(n):
        want = _fma(a[k].copy(), b[k].copy(), want)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    assert got[0] == np.float32(1 + 2.0**-23)  # (each step stays below the midpoint)


def test_a_chain_of_fused_steps_rounds_each_once() -> None:
    """``fused_chain`` (a batched loop's contracted accumulation) against the exact reference step by step, on
    operands of every magnitude a float has, zeros of both signs, infinities and NaN."""
    rng = np.random.default_rng(20261205)
    steps, lanes = 12, 400
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0**-149, -(2.0**-130), 3.4e38, 1.0], np.float32)

    def draw(shape: tuple[int, ...]) -> np.ndarray:
        x = (rng.standard_normal(shape) * np.exp2(rng.integers(-140, 120, shape))).astype(np.float32)
        pick = rng.random(shape) < 0.05
        x[pick] = rng.choice(special, int(pick.sum()))
        return x

    a, b, start = draw((steps, lanes)), draw((steps, lanes)), draw((lanes,))
    with np.errstate(invalid="ignore"):  # (0 times infinity)
        got = fused_chain(start, a, b)
    want = start.copy()
    for k in range(steps):
        want = _fma(a[k].copy(), b[k].copy(), want)
    finite = np.isfinite(want)
    np.testing.assert_array_equal(got[finite].view(np.uint32), want[finite].view(np.uint32))
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)])


@pytest.mark.parametrize(("t", "dtype"), [("float4", np.float32), ("double2", np.float64), ("half2", np.float16)])
def test_mad_is_fma_in_every_type(t: str, dtype: type, request: pytest.FixtureRequest) -> None:
    """``mad`` may be computed any way (6.12.2); the simulator computes it as ``fma``, rounded once, as Oclgrind
    21.10 does, in every type: it rounded the product of doubles first, and summed floats' in float64 (the
    clpeak and mixbench probe found the two types apart)."""
    width = int(t[-1])
    x = _operands(dtype, width)
    extension = {"double2": "cl_khr_fp64", "half2": "cl_khr_fp16"}.get(t)
    source = (f"#pragma OPENCL EXTENSION {extension} : enable\n" if extension else "") + (
        f"__kernel void k(__global const {t}* in, __global {t}* o) {{\n"
        f"    int i = get_global_id(0); o[i] = mad(in[i], in[{N} + i], in[{2 * N} + i]);\n}}\n"
    )
    out = _launch("sim", False, request, source, [x, np.zeros(N * width, dtype)], N)[1]
    a, b, c = (x[k * N * width : (k + 1) * N * width] for k in range(3))
    assert out.tobytes() == _fma(a, b, c).tobytes()


INTEGER_LEFT = """{fp64}__kernel void k(__global const int* x, __global const {t}* in, __global {t}* o) {{
    int i = get_global_id(0);
    {t} h = in[i], y = in[{n} + i];
    o[i] = (x[i] * 3) - h * y;
    o[{n} + i] = (x[i] * 3) + h * y;
    o[{n2} + i] = (double)(x[i] * 3) - h * y;
}}
"""


@pytest.mark.parametrize("device", ["sim", "pocl", "oclgrind"])
@pytest.mark.parametrize(("t", "dtype"), [("float", np.float32), ("double", np.float64)])
def test_an_integer_product_on_the_left_leaves_the_right_one_to_fuse(
    device: str, t: str, dtype: type, request: pytest.FixtureRequest
) -> None:
    """Clang fuses the addition's left operand where that is a product of its own floating type, else its right
    one: ``(x * 3) - h * y`` of an ``int x`` is ``fma(-h, y, x * 3)``. The simulator took the integer product and
    fused nothing (found by the clRNG probe: its inventory example's ``c * (Xj - Yj) - h * Yj``)."""
    rng = np.random.default_rng(7)
    x = rng.integers(-300, 300, N).astype(np.int32)
    values = _operands(dtype, 1)[: 2 * N]
    fp64 = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" if t == "double" else ""
    source = INTEGER_LEFT.format(fp64=fp64, t=t, n=N, n2=2 * N)
    got = _launch(device, True, request, source, [x, values, np.zeros(3 * N, dtype)], N)[2]
    h, y, z = values[:N], values[N:], (x * 3).astype(dtype)
    assert got[:N].tobytes() == _fma(-h, y, z).tobytes()
    assert got[N : 2 * N].tobytes() == _fma(h, y, z).tobytes()
    if t == "double":  # (of floats, the double sum converts its float product: nothing fuses)
        assert got[2 * N :].tobytes() == _fma(-h, y, z).tobytes()
