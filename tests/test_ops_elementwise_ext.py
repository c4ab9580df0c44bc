"""The element-wise ops beyond the spec (docs/ops.md, "Beyond the spec"): sub, div, maximum, minimum, the
comparisons, where, neg, abs, exp, log, sqrt, rsqrt, tanh, silu, cast, and scalar operands of every binary op (add
and mul included), on the sim and reference backends, against float64 (int64) NumPy references.

Hypothesis draws the op, dtype, operand form (tensor-tensor, tensor-scalar, scalar-tensor), broadcast shapes (size
0 and 1 included), layouts (contiguous or non-contiguous views) and a seed for ``np.random.default_rng``.
Tolerances are ``tests/numerics_reference.py``'s (docs/numerics.md): one rounding for arithmetic, eight ulps of the
computing type more for the functions, exact for integers (which wrap), bool, comparisons, selection, maximum,
minimum, neg, abs and casts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import layouts
import ml_dtypes
import numerics_reference as nr
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from layouts import upload

import wia_hal as wia

DT: dict[str, np.dtype] = {
    name: np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)
    for name in ("float32", "float16", "bfloat16", "float64", "int8", "int32", "bool")
}
FLOATS = ["float32", "float16", "bfloat16", "float64"]
NUMBERS = [*FLOATS, "int8", "int32"]
SEEDS = st.integers(0, 2**32 - 1)
LAYOUTS = st.sampled_from(layouts.LAYOUTS)
FORMS = st.sampled_from(["tensor-tensor", "tensor-scalar", "scalar-tensor"])
E = wia.ErrorCode

fast = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(params=["sim", "reference"])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """The sim (wia-tiny, set by conftest) or the reference backend."""
    if request.param == "reference":
        wia.set_backend("reference")
    yield request.param


def data(rng: np.random.Generator, dtype: np.dtype, shape: tuple[int, ...], positive: bool = False) -> np.ndarray:
    """Normal floats (±6; magnitudes ≥ 1/16, so low-precision data stay normal), full-range ints, fair bools;
    ``positive``: magnitudes only."""
    x = nr.values(rng, dtype, shape, floor=2.0**-4)
    return np.abs(x) if positive else x


def scalar_for(rng: np.random.Generator, dtype: np.dtype) -> bool | int | float:
    """A Python scalar of the tensor's kind (weak: it takes the tensor's dtype)."""
    if dtype.kind == "b":
        return bool(rng.integers(0, 2))
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        return int(rng.integers(info.min, info.max, endpoint=True))
    return float(np.round(rng.standard_normal() * 4, 3))


def wrap(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """int64 results as the dtype's two's-complement arithmetic gives them."""
    bits = 8 * dtype.itemsize
    return ((x + 2 ** (bits - 1)) % 2**bits - 2 ** (bits - 1)).astype(dtype)


# -- binary ops: arithmetic and comparisons, with scalars ----------------------------------------------------------

ARITHMETIC: dict[str, Callable[..., Any]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "maximum": np.maximum,
    "minimum": np.minimum,
}
COMPARISONS: dict[str, Callable[..., Any]] = {
    "equal": np.equal,
    "not_equal": np.not_equal,
    "less": np.less,
    "less_equal": np.less_equal,
    "greater": np.greater,
    "greater_equal": np.greater_equal,
}
BINARY_DTYPES = {
    "add": list(DT),
    "sub": NUMBERS,
    "mul": list(DT),
    "div": FLOATS,
    "maximum": list(DT),
    "minimum": list(DT),
    **{name: list(DT) for name in COMPARISONS},
}


def check_binary(op: str, got: np.ndarray, a: Any, b: Any, dtype: np.dtype, what: str) -> None:
    """``got`` against ``op`` of ``a`` and ``b`` (arrays or NumPy scalars of ``dtype``) computed exactly."""
    fn = ARITHMETIC.get(op) or COMPARISONS[op]
    wa, wb = (nr.wide(np.asarray(x)) for x in (a, b))
    with np.errstate(all="ignore"):
        exact = np.asarray(fn(wa, wb))
    if op in COMPARISONS:
        assert got.dtype == np.bool_, what
        nr.assert_exact(got, exact, what)
        return
    assert got.dtype == dtype, what
    if dtype.kind == "b":
        nr.assert_exact(got, exact.astype(bool), what)  # NumPy's bool add/maximum are or, mul/minimum and
    elif dtype.kind == "i":
        nr.assert_exact(got, wrap(exact, dtype), what)
    elif op in ("maximum", "minimum"):
        nr.assert_exact(got, exact.astype(dtype), what)  # one of the inputs, or NaN
    else:
        nr.assert_within(got, exact, nr.elementwise_bound(exact, dtype.name, ulps=1), what)


@fast
@given(
    op=st.sampled_from(list(BINARY_DTYPES)),
    data_=st.data(),
    form=FORMS,
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, min_side=0, max_side=4),
    layouts=st.tuples(LAYOUTS, LAYOUTS),
    seed=SEEDS,
)
def test_binary_ops_against_numpy(
    backend: str, op: str, data_: st.DataObject, form: str, shapes: Any, layouts: tuple[str, str], seed: int
) -> None:
    dtype = DT[data_.draw(st.sampled_from(BINARY_DTYPES[op]), label="dtype")]
    rng = np.random.default_rng(seed)
    a, b = (data(rng, dtype, s) for s in shapes.input_shapes)
    fn = getattr(wia, op)
    if form == "tensor-tensor":
        got = fn(upload(a, layouts[0]), upload(b, layouts[1])).numpy()
    elif form == "tensor-scalar":
        s = scalar_for(rng, dtype)
        got = fn(upload(a, layouts[0]), s).numpy()
        b = dtype.type(s)
    else:
        s = scalar_for(rng, dtype)
        got = fn(s, upload(b, layouts[1])).numpy()
        a = dtype.type(s)
    assert got.shape == np.broadcast_shapes(np.shape(a), np.shape(b))
    check_binary(op, got, a, b, dtype, f"{op} {dtype.name} {form} on {backend}")


def test_every_binary_op_dtype_and_operand_form(backend: str) -> None:
    """The grid hypothesis samples from, whole: each op, each dtype it accepts, each operand form, broadcasting
    (3, 4) with (4,)."""
    rng = np.random.default_rng(15)
    for op, dtypes in BINARY_DTYPES.items():
        fn = getattr(wia, op)
        for name in dtypes:
            d = DT[name]
            a, b, s = data(rng, d, (3, 4)), data(rng, d, (4,)), scalar_for(rng, d)
            ta, tb = wia.tensor(a), wia.tensor(b)
            for form, got, x, y in (
                ("tensor-tensor", fn(ta, tb), a, b),
                ("tensor-scalar", fn(ta, s), a, d.type(s)),
                ("scalar-tensor", fn(s, tb), d.type(s), b),
            ):
                check_binary(op, got.numpy(), x, y, d, f"{op} {name} {form} on {backend}")


def test_nan_and_infinities_propagate(backend: str) -> None:
    x = np.array([np.nan, np.inf, -np.inf, 1.0, -0.0, 2.0], np.float32)
    y = np.array([1.0, np.nan, 1.0, np.inf, 0.0, -np.inf], np.float32)
    tx, ty = wia.tensor(x), wia.tensor(y)
    for op in [*ARITHMETIC, *COMPARISONS]:
        check_binary(op, getattr(wia, op)(tx, ty).numpy(), x, y, x.dtype, f"{op} with NaN/inf on {backend}")
    np.testing.assert_array_equal(wia.maximum(tx, ty).numpy(), [np.nan, np.nan, 1.0, np.inf, 0.0, 2.0])
    with np.errstate(divide="ignore", invalid="ignore"):  # the reference's own ±inf and NaN
        expected = x / np.float32(0.0)
    np.testing.assert_array_equal(wia.div(tx, 0.0).numpy(), expected)  # ±inf and NaN, as IEEE
    np.testing.assert_array_equal(wia.not_equal(tx, tx).numpy(), x != x)  # True only at NaN


def test_integers_wrap_and_bool_is_logic(backend: str) -> None:
    i8 = wia.tensor(np.array([127, -128, 5], np.int8))
    np.testing.assert_array_equal(wia.add(i8, 1).numpy(), [-128, -127, 6])
    np.testing.assert_array_equal(wia.sub(-128, i8).numpy(), [1, 0, 123])  # -128 - 127 wraps to 1
    np.testing.assert_array_equal(wia.neg(i8).numpy(), [-127, -128, -5])
    np.testing.assert_array_equal(wia.abs(i8).numpy(), [127, -128, 5])  # abs(-128) wraps, as NumPy's
    i32 = wia.tensor(np.array([2**31 - 1, -(2**31)], np.int32))
    np.testing.assert_array_equal(wia.mul(i32, 2).numpy(), [-2, 0])
    p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
    tp, tq = wia.tensor(p), wia.tensor(q)
    np.testing.assert_array_equal(wia.maximum(tp, tq).numpy(), p | q)
    np.testing.assert_array_equal(wia.minimum(tp, tq).numpy(), p & q)
    np.testing.assert_array_equal(wia.less(tp, tq).numpy(), p < q)
    np.testing.assert_array_equal(wia.abs(tp).numpy(), p)


# -- unary ops -----------------------------------------------------------------------------------------------------


def _silu(x: np.ndarray) -> np.ndarray:
    return x * nr.sigmoid(x)  # the stable float64 sigmoid (1 + tanh(x/2) cancels for x < 0)


FUNCTIONS: dict[str, tuple[Callable[[np.ndarray], np.ndarray], bool]] = {
    # name: (float64 reference, needs positive data)
    "exp": (np.exp, False),
    "log": (np.log, True),
    "sqrt": (np.sqrt, True),
    "rsqrt": (lambda x: 1 / np.sqrt(x), True),
    "tanh": (np.tanh, False),
    "silu": (_silu, False),
}


UNARY_DTYPES = {**{name: FLOATS for name in FUNCTIONS}, "neg": NUMBERS, "abs": list(DT)}


@fast
@given(
    op=st.sampled_from(list(UNARY_DTYPES)),
    data_=st.data(),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
    layout=LAYOUTS,
    seed=SEEDS,
)
def test_unary_ops_against_numpy(
    backend: str, op: str, data_: st.DataObject, shape: tuple[int, ...], layout: str, seed: int
) -> None:
    dtype = data_.draw(st.sampled_from(UNARY_DTYPES[op]), label="dtype")
    d = DT[dtype]
    rng = np.random.default_rng(seed)
    x = data(rng, d, shape, positive=FUNCTIONS.get(op, (None, False))[1])
    got = getattr(wia, op)(upload(x, layout)).numpy()
    what = f"{op} {dtype} on {backend}"
    assert got.dtype == d and got.shape == x.shape, what
    if op in ("neg", "abs"):
        exact = (np.negative if op == "neg" else np.abs)(nr.wide(x))
        nr.assert_exact(got, wrap(exact, d) if d.kind == "i" else exact.astype(d), what)
        return
    ref = FUNCTIONS[op][0](x.astype(np.float64))
    nr.assert_within(got, ref, nr.elementwise_bound(ref, dtype), what)


def test_functions_outside_their_domain_give_ieee_results(backend: str) -> None:
    x = np.array([0.0, -1.0, np.inf, np.nan, -np.inf, 100.0, -30.0], np.float32)
    t = wia.tensor(x)
    with np.errstate(all="ignore"):
        expected = {
            "log": np.log(x),
            "sqrt": np.sqrt(x),
            "rsqrt": 1 / np.sqrt(x),
            "exp": np.exp(x),
            "tanh": np.tanh(x),
            # silu(-inf) = -inf·sigmoid(-inf) = -inf·0: NaN, as x·sigmoid(x) gives it in PyTorch too
            "silu": np.array([0.0, _silu(np.float64(-1.0)), np.inf, np.nan, np.nan, 100.0, _silu(np.float64(-30.0))]),
        }
    for op, want in expected.items():
        got = getattr(wia, op)(t).numpy()
        ref = want.astype(np.float64)
        with np.errstate(invalid="ignore"):
            nr.assert_within(got, ref, nr.elementwise_bound(ref, "float32"), op)


# -- where and cast ------------------------------------------------------------------------------------------------


@fast
@given(
    dtype=st.sampled_from(list(DT)),
    form=st.sampled_from(["tensors", "x scalar", "y scalar"]),
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, min_side=0, max_side=4),
    layouts=st.tuples(LAYOUTS, LAYOUTS, LAYOUTS),
    seed=SEEDS,
)
def test_where_against_numpy(
    backend: str, dtype: str, form: str, shapes: Any, layouts: tuple[str, str, str], seed: int
) -> None:
    d = DT[dtype]
    rng = np.random.default_rng(seed)
    cs, xs, ys = shapes.input_shapes
    c = rng.random(cs) < 0.5
    x, y = data(rng, d, xs), data(rng, d, ys)
    tc = upload(c, layouts[0])
    if form == "tensors":
        got = wia.where(tc, upload(x, layouts[1]), upload(y, layouts[2])).numpy()
    elif form == "x scalar":
        s = scalar_for(rng, d)
        got, x = wia.where(tc, s, upload(y, layouts[2])).numpy(), np.asarray(d.type(s))
    else:
        s = scalar_for(rng, d)
        got, y = wia.where(tc, upload(x, layouts[1]), s).numpy(), np.asarray(d.type(s))
    assert got.dtype == d
    nr.assert_exact(got, np.where(c, x, y), f"where {dtype} {form} on {backend}")


def cast_data(rng: np.random.Generator, src: np.dtype, dst: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """Values every conversion defines: floats headed for an integer within (-100, 100) (NaN and out-of-range
    values are unspecified), ints headed for float16/bfloat16 small enough to be exact there."""
    if src.kind == "b":
        return rng.random(shape) < 0.5
    if src.kind == "i":
        return nr.values(rng, src, shape) if dst.kind == "i" else nr.small_ints(rng, src, shape, 100)  # ints wrap
    x = (np.clip(rng.standard_normal(shape), -6, 6) * (16.0 if dst.kind in "ib" else 1e3)).astype(src)
    x.reshape(-1)[: x.size // 4] = 0
    return x


@fast
@given(
    src=st.sampled_from(list(DT)),
    dst=st.sampled_from(list(DT)),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
    layout=LAYOUTS,
    seed=SEEDS,
)
def test_cast_between_every_pair_of_dtypes(
    backend: str, src: str, dst: str, shape: tuple[int, ...], layout: str, seed: int
) -> None:
    s, d = DT[src], DT[dst]
    x = cast_data(np.random.default_rng(seed), s, d, shape)
    got = wia.cast(upload(x, layout), dst).numpy()
    assert got.dtype == d and got.shape == x.shape
    # NumPy's conversions: floats truncate toward zero into integers, round to nearest even into narrower floats
    # (from float64 directly: one rounding), ints wrap, anything into bool is != 0
    wide = x.astype(np.float64) if s.kind == "f" or src == "bfloat16" else x
    with np.errstate(all="ignore"):
        expected = wide.astype(d) if d.kind != "i" else np.trunc(wide).astype(np.int64).astype(d)
    nr.assert_exact(got, expected, f"cast {src} -> {dst} on {backend}")


def test_cast_rounds_to_nearest_even_and_truncates_toward_zero(backend: str) -> None:
    ties = np.array([1 + 2.0**-11, 1 + 3 * 2.0**-11, -(1 + 2.0**-11)], np.float32)  # halfway between float16s
    np.testing.assert_array_equal(wia.cast(wia.tensor(ties), "float16").numpy(), np.array([1, 1 + 2.0**-9, -1]))
    f = np.array([2.9, -2.9, 0.5, -0.5, 0.0], np.float32)
    np.testing.assert_array_equal(wia.cast(wia.tensor(f), "int32").numpy(), [2, -2, 0, 0, 0])
    np.testing.assert_array_equal(wia.cast(wia.tensor(f), "bool").numpy(), [True, True, True, True, False])


# -- scalar promotion ----------------------------------------------------------------------------------------------


PROMOTIONS = [
    # tensor dtype, scalar, result dtype (NumPy 2's, NEP 50)
    ("float16", 0.1, "float16"),  # a Python float is weak
    ("int8", 3, "int8"),
    ("int32", 2.5, "float64"),  # a Python float with an int tensor: NumPy's default float
    ("bool", True, "bool"),
    ("float16", np.float32(2.5), "float32"),  # a NumPy scalar is strong
    ("float32", np.float64(0.1), "float64"),
    ("int8", np.int32(300), "int32"),
    ("bfloat16", 0.1, "bfloat16"),  # NEP 50's rule (ml_dtypes alone would give float64)
]


@pytest.mark.parametrize(("dtype", "scalar", "result"), PROMOTIONS, ids=[f"{p[0]}-{p[1]!r}" for p in PROMOTIONS])
def test_scalars_promote_as_numpy_does_and_a_widening_casts_first(
    backend: str, dtype: str, scalar: Any, result: str
) -> None:
    x = np.array([[1, 0], [3, 2]]).astype(DT[dtype])
    if dtype != "bfloat16":
        assert (x * scalar).dtype == DT[result]  # the table is NumPy's
    ctx = wia.create_context(wia.ContextConfig(enable_profiling=True))
    t = wia.tensor(x, ctx=ctx)
    profiler = wia.begin_profiling(ctx)
    got = wia.mul(t, scalar).numpy()
    wia.end_profiling(profiler)
    assert got.dtype == DT[result]
    expected = x.astype(DT[result]) * DT[result].type(scalar)
    nr.assert_exact(got, expected, f"{dtype} * {scalar!r}")
    kernels = {s.name: s.call_count for s in wia.get_profile_report(profiler).kernel_stats}
    assert kernels == ({"mul": 1} if dtype == result else {"cast": 1, "mul": 1})
    wia.destroy_profiler(profiler)


# -- errors --------------------------------------------------------------------------------------------------------


def test_errors(backend: str) -> None:
    f32 = wia.tensor(np.ones((2, 3), np.float32))
    i8 = wia.tensor(np.ones(3, np.int8))
    b = wia.tensor(np.ones(3, bool))
    cases: list[tuple[Callable[[], Any], wia.ErrorCode, str]] = [
        (lambda: wia.add(2, 3.0), E.INVALID_VALUE, "both operands are scalars"),
        (lambda: wia.sub(b, b), E.INVALID_VALUE, "needs a numeric"),
        (lambda: wia.sub(b, True), E.INVALID_VALUE, "NumPy refuses bool subtraction"),
        (lambda: wia.neg(b), E.INVALID_VALUE, "needs a numeric"),
        (lambda: wia.div(i8, i8), E.INVALID_VALUE, "cast to a float first"),
        (lambda: wia.div(i8, 2), E.INVALID_VALUE, "needs a floating-point"),
        (lambda: wia.exp(i8), E.INVALID_VALUE, "floating-point"),
        (lambda: wia.silu(b), E.INVALID_VALUE, "floating-point"),
        (lambda: wia.add(f32, i8), E.INVALID_VALUE, "dtypes differ"),
        (lambda: wia.add(i8, 1000), E.INVALID_VALUE, "does not fit the int8 operand"),
        (lambda: wia.mul(f32, 10**400), E.INVALID_VALUE, "does not fit the float32 operand"),
        (lambda: wia.where(b, i8, -129), E.INVALID_VALUE, "does not fit the int8 operand"),
        (lambda: wia.add(b, 1), E.INVALID_VALUE, "promote to int64"),
        (lambda: wia.mul(f32, 1j), E.INVALID_VALUE, "not a WIA dtype"),
        (lambda: wia.mul(i8, np.int64(2)), E.INVALID_VALUE, "promote to int64"),
        (lambda: wia.add(f32, [1.0]), E.INVALID_VALUE, "must be a wia Tensor"),
        (lambda: wia.add(f32, wia.tensor(np.ones(4, np.float32))), E.INVALID_VALUE, "do not broadcast"),
        (lambda: wia.less(1.0, 2.0), E.INVALID_VALUE, "both operands are scalars"),
        (lambda: wia.where(f32, f32, f32), E.INVALID_VALUE, "condition must be a bool tensor"),
        (lambda: wia.where(b, 1.0, 2.0), E.INVALID_VALUE, "both scalars"),
        (lambda: wia.where(b, wia.tensor(np.ones(2, np.float32)), 0.0), E.INVALID_VALUE, "do not broadcast"),
        (lambda: wia.where(b, i8, wia.tensor(np.ones(3, np.int32))), E.INVALID_VALUE, "dtypes differ"),
        (lambda: wia.cast(f32, "int64"), E.INVALID_VALUE, "not a WIA data type"),
        (lambda: wia.relu(2.0), E.INVALID_VALUE, "this operand takes no scalar"),
    ]
    for call, code, message in cases:
        with pytest.raises(wia.WiaError, match=message) as e:
            call()
        assert e.value.code == code, message


def test_a_promotion_the_device_cannot_hold_fails_before_anything_runs() -> None:
    wia.set_backend("sim", hardware="google-tpu-v5e")  # no float64
    ctx = wia.get_default_context()
    i32 = wia.tensor(np.arange(6, dtype=np.int32))
    before = wia.get_memory_usage(ctx).bytes_in_use
    with pytest.raises(wia.NotSupportedError, match="float64"):
        wia.mul(i32, 0.5)
    with pytest.raises(wia.NotSupportedError, match="float64"):
        wia.cast(i32, "float64")
    assert wia.get_memory_usage(ctx).bytes_in_use == before
    np.testing.assert_array_equal(wia.mul(wia.cast(i32, "float32"), 0.5).numpy(), np.arange(6) * 0.5)


# -- cost: timing-only runs cost the same; memory-bound on a large device ------------------------------------------


def _every_op(dtype: str = "float32", shape: tuple[int, ...] = (64, 96)) -> dict[str, wia.Tensor]:
    x = wia.empty(shape, dtype)
    y = wia.empty(shape[-1:], dtype)
    c = wia.empty(shape, "bool")
    out = {op: getattr(wia, op)(x, y) for op in [*ARITHMETIC, *COMPARISONS]}
    out |= {f"{op} scalar": getattr(wia, op)(x, 2.0) for op in ARITHMETIC}
    out |= {f"{op} first": getattr(wia, op)(2.0, x) for op in ("sub", "div")}
    out |= {op: getattr(wia, op)(x) for op in [*FUNCTIONS, "neg", "abs"]}
    out |= {"where": wia.where(c, x, y), "where scalar": wia.where(c, 0.0, x), "cast": wia.cast(x, "float16")}
    return out


def test_timing_only_runs_cost_the_same_as_numeric_runs() -> None:
    costs = {}
    for numerics in (True, False):
        wia.set_backend("sim", hardware="wia-tiny", numerics=numerics)
        ctx = wia.get_default_context()
        reports = {name: wia.explain(t) for name, t in _every_op().items()}
        wia.context_synchronize(ctx)
        costs[numerics] = {name: (r.duration_ms, r.flops, r.bytes) for name, r in reports.items()}
        ctx.destroy()
    assert costs[True] == costs[False]


def test_each_op_on_an_h100_is_memory_bound_near_bytes_over_bandwidth() -> None:
    wia.set_backend("sim", hardware="nvidia-h100-sxm5-80gb", numerics=False)
    model = wia.get_backend().model  # type: ignore[attr-defined]
    streaming = model.memory.bandwidth * model.efficiency.memory
    elements = 1 << 24
    for name, t in _every_op("float32", (1 << 12, 1 << 12)).items():
        r = wia.explain(t)
        assert r.bound == "memory", name
        assert r.bytes >= elements * (t.dtype.itemsize + 4), name  # the float32 input and the output, at least
        ideal_ms = r.bytes / streaming * 1e3
        assert ideal_ms <= r.duration_ms <= 1.1 * ideal_ms, (name, r.duration_ms, ideal_ms)  # + latency, launch


def test_the_sim_costs_a_scalar_op_once_whatever_the_scalar() -> None:
    """The cost cache keys a scalar by its presence: a loop over changing scalars (or NaN, equal to nothing) costs
    one entry, and every call still computes with its own value."""
    wia.set_backend("sim", hardware="wia-tiny")
    backend = wia.get_backend()
    x = wia.tensor(np.arange(8, dtype=np.float32))
    before = len(backend._costs)  # type: ignore[attr-defined]
    results = [wia.mul(x, float(v)) for v in (*np.linspace(0.5, 4.0, 50), float("nan"), float("nan"))]
    assert len(backend._costs) == before + 1  # type: ignore[attr-defined]
    np.testing.assert_array_equal(
        results[3].numpy(), np.arange(8, dtype=np.float32) * np.float32(np.linspace(0.5, 4.0, 50)[3])
    )
    assert np.isnan(results[-1].numpy()).all()
