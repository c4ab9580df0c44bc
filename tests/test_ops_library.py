"""Every op of SPEC 3.6.1 and 3.7 against a float64 (int64) NumPy reference, Level-2 algorithms and precisions,
``explain`` reports, and views (no kernel, no device time).

Data come from ``np.random.default_rng(seed)`` with ``seed`` drawn by hypothesis (printed on failure); shapes include
size 1, size 0 where the op allows it, odd sizes and batches. Inputs are given contiguous or as non-contiguous views
(``transpose``, ``slice``): ``layout`` below. Tolerances are those of ``tests/numerics_reference.py``, explained in
``docs/numerics.md``: one rounding (plus a few ulps of float32 where a transcendental is evaluated) for element-wise
ops, ``eps(out)·|ref| + (K+1)·eps(acc)·Σ|terms|`` for reductions, matmul and convolution (plus ``eps(in)·Σ|terms|``
when inputs are rounded to TF32/FP16/BF16/FP8), exact for integers, ``max``, MAX pooling and layout ops.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ml_dtypes
import numerics_reference as nr
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from layouts import LAYOUTS, upload

import wia_hal as wia

DT: dict[str, np.dtype] = {
    name: np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)
    for name in ("float32", "float16", "bfloat16", "int8", "int32", "float64", "bool")
}
FLOATS = list(nr.FLOATS)
ALL_DTYPES = list(DT)
SEEDS = st.integers(0, 2**32 - 1)
P = wia.Precision
A = wia.MatmulAlgorithm
C = wia.ConvAlgorithm

# (precision, data dtype) -> (arithmetic, result dtype), as the Precision docstring states it
PRECISIONS: dict[tuple[str, str], tuple[str, str]] = {
    ("FP32", "float32"): ("float32", "float32"),
    ("TF32", "float32"): ("tf32", "float32"),
    ("FP16", "float16"): ("float16", "float16"),
    ("FP16", "float32"): ("float16", "float32"),
    ("BF16", "bfloat16"): ("bfloat16", "bfloat16"),
    ("BF16", "float32"): ("bfloat16", "float32"),
    ("MIXED", "float16"): ("float16", "float32"),
    ("MIXED", "bfloat16"): ("bfloat16", "float32"),
    ("MIXED", "float32"): ("bfloat16", "float32"),
    ("INT8", "int8"): ("int8", "int32"),
    ("FP64", "float64"): ("float64", "float64"),
    ("FP8", "float16"): ("float8", "float16"),
    ("FP8", "bfloat16"): ("float8", "bfloat16"),
    ("FP8", "float32"): ("float8", "float32"),
}
DEFAULT_PRECISION = {"float32": "FP32", "float16": "FP16", "bfloat16": "BF16", "int8": "INT8", "float64": "FP64"}
MATMUL_DTYPES = list(DEFAULT_PRECISION)
FLOOR = 2.0**-4  # smallest |input| / scale for matmul and conv data (normal range of every input format, FP8 too)

fast = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
thorough = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def supported(arithmetic: str) -> bool:
    return arithmetic in wia.get_device_info(wia.get_device(0)).peak_flops_by_precision


def precision_cases() -> list[tuple[str, str]]:
    return [key for key in PRECISIONS if hasattr(P, key[0])]


def flt(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64)


def assert_close(got: np.ndarray, ref: np.ndarray, bound: np.ndarray, dtype: str, what: str) -> None:
    __tracebackhide__ = True
    assert got.dtype == DT[dtype], f"{what}: dtype {got.dtype.name}, expected {dtype}"
    nr.assert_within(got, ref, bound, what)


# -- element-wise ---------------------------------------------------------------------------------------------------


@fast
@given(
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6),
    dtype=st.sampled_from(FLOATS),
    approximate=st.sampled_from(["none", "tanh"]),
    scale=st.sampled_from([0.5, 3.0]),
    layout=st.sampled_from(LAYOUTS),
    seed=SEEDS,
)
def test_gelu(shape: tuple[int, ...], dtype: str, approximate: str, scale: float, layout: str, seed: int) -> None:
    assume(shape != () or approximate == "tanh")  # see test_gelu_of_a_0d_tensor
    x = nr.values(np.random.default_rng(seed), DT[dtype], shape, scale)
    got = wia.gelu(upload(x, layout), approximate=approximate).numpy()
    ref = nr.gelu(flt(x), approximate)
    # the tanh form is evaluated as 0.5·x·(1 + tanh(u)) in the computing type: 1 + tanh(u) cancels for x < 0, an
    # absolute error of a few ulps of |x| (see test_gelu_tanh_is_relatively_accurate_for_negative_inputs)
    if approximate == "tanh":
        bound = nr.elementwise_bound(ref, dtype, np.maximum(np.abs(ref), np.abs(flt(x))))
    else:
        bound = nr.elementwise_bound(ref, dtype, condition=nr.gelu_condition(flt(x)))
    assert_close(got, ref, bound, dtype, f"gelu({approximate}) {dtype}")


def test_gelu_of_a_0d_tensor() -> None:
    out = wia.gelu(wia.tensor(np.float32(1.0))).numpy()
    assert out.shape == () and abs(float(out) - 0.8413447) < 1e-6, out


@pytest.mark.parametrize("dtype", FLOATS)
def test_gelu_erf_is_relatively_accurate_in_the_tails(dtype: str) -> None:
    x = np.array([-12.0, -9.0, -6.0, -3.0, -1e-3, 0.0, 1e-3, 3.0, 9.0], DT[dtype])
    got = wia.gelu(wia.tensor(x)).numpy()
    ref = nr.gelu(flt(x))
    bound = nr.elementwise_bound(ref, dtype, condition=nr.gelu_condition(flt(x)))
    assert_close(got, ref, bound, dtype, "gelu tails")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gelu_tanh_is_relatively_accurate_for_negative_inputs(dtype: str) -> None:
    x = np.array([-3.0, -4.0, -5.0, -6.0, -8.0], DT[dtype])
    got = wia.gelu(wia.tensor(x), approximate="tanh").numpy()
    ref = nr.gelu(flt(x), "tanh")
    assert_close(got, ref, nr.elementwise_bound(ref, dtype), dtype, "gelu tanh, negative x")


@fast
@given(
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=6),
    dtype=st.sampled_from(FLOATS),
    scale=st.sampled_from([1.0, 20.0]),
    layout=st.sampled_from(LAYOUTS),
    seed=SEEDS,
)
def test_sigmoid(shape: tuple[int, ...], dtype: str, scale: float, layout: str, seed: int) -> None:
    x = nr.values(np.random.default_rng(seed), DT[dtype], shape, scale)
    got = wia.sigmoid(upload(x, layout)).numpy()
    ref = nr.sigmoid(flt(x))
    assert_close(got, ref, nr.elementwise_bound(ref, dtype), dtype, f"sigmoid {dtype}")


@pytest.mark.parametrize("dtype", FLOATS)
def test_sigmoid_and_gelu_do_not_overflow(dtype: str) -> None:
    big = 6e4 if dtype == "float16" else 1e4
    x = np.array([-big, -100.0, -20.0, 0.0, 20.0, 100.0, big], DT[dtype])
    s = wia.sigmoid(wia.tensor(x)).numpy()
    for approximate in ("none", "tanh"):
        g = wia.gelu(wia.tensor(x), approximate=approximate).numpy()
        assert np.isfinite(flt(g)).all(), (approximate, g)
        assert flt(g)[-1] == flt(x)[-1] and flt(g)[0] == 0.0
    assert np.isfinite(flt(s)).all()
    assert flt(s)[0] == 0.0 and flt(s)[-1] == 1.0 and flt(s)[3] == 0.5


# -- reductions -----------------------------------------------------------------------------------------------------


@st.composite
def axes(draw: st.DrawFn, ndim: int) -> int | tuple[int, ...] | None:
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        return None
    if kind == "int" and ndim:
        return draw(st.integers(-ndim, ndim - 1))
    chosen = draw(st.lists(st.integers(0, max(ndim - 1, 0)), unique=True, max_size=ndim))
    return tuple(a - ndim if draw(st.booleans()) else a for a in chosen if ndim)


def reduced(shape: tuple[int, ...], axis: int | tuple[int, ...] | None) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(len(shape)))
    return tuple(sorted(a % len(shape) for a in ((axis,) if isinstance(axis, int) else axis)))


@thorough
@given(
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5),
    dtype=st.sampled_from(ALL_DTYPES),
    keepdims=st.booleans(),
    layout=st.sampled_from(LAYOUTS),
    seed=SEEDS,
    data=st.data(),
)
def test_sum(shape: tuple[int, ...], dtype: str, keepdims: bool, layout: str, seed: int, data: st.DataObject) -> None:
    axis = data.draw(axes(len(shape)), "axis")
    x = nr.values(np.random.default_rng(seed), DT[dtype], shape, 10.0)
    got = wia.sum(upload(x, layout), axis, keepdims=keepdims).numpy()
    if dtype in ("int8", "int32", "bool"):  # accumulate in int32, wrapping; result int32
        ref = np.sum(nr.wide(x).astype(np.int64), axis=axis, keepdims=keepdims).astype(np.int32)
        assert got.dtype == np.int32
        nr.assert_exact(got, np.asarray(ref), f"sum {dtype}")
        return
    k = math.prod(shape[a] for a in reduced(shape, axis))
    ref = np.sum(flt(x), axis=axis, keepdims=keepdims)
    bound = nr.sum_bound(ref, np.sum(np.abs(flt(x)), axis=axis, keepdims=keepdims), k, dtype)
    assert_close(got, np.asarray(ref), np.asarray(bound), dtype, f"sum {dtype} axis={axis}")


@thorough
@given(
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5),
    dtype=st.sampled_from(ALL_DTYPES),
    keepdims=st.booleans(),
    layout=st.sampled_from(LAYOUTS),
    seed=SEEDS,
    data=st.data(),
)
def test_max(shape: tuple[int, ...], dtype: str, keepdims: bool, layout: str, seed: int, data: st.DataObject) -> None:
    axis = data.draw(axes(len(shape)), "axis")
    assume(all(shape[a] for a in reduced(shape, axis)))  # a zero-size reduction is INVALID_VALUE (test_ops_errors)
    x = nr.values(np.random.default_rng(seed), DT[dtype], shape, 10.0)
    got = wia.max(upload(x, layout), axis, keepdims=keepdims).numpy()
    assert got.dtype == DT[dtype]
    nr.assert_exact(got, np.asarray(np.max(x, axis=axis, keepdims=keepdims)), f"max {dtype} axis={axis}")


def test_max_propagates_nan() -> None:
    x = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], np.float32)
    got = wia.max(wia.tensor(x), 1).numpy()
    assert np.isnan(got[0]) and got[1] == 6.0


@pytest.mark.parametrize(("dtype", "n"), [("float16", 3000), ("bfloat16", 1000)])
def test_low_precision_sums_accumulate_in_float32(dtype: str, n: int) -> None:
    # in its own type, the running sum of ones sticks at 2048 (float16) or 256 (bfloat16)
    got = wia.sum(wia.tensor(np.ones(n, DT[dtype]))).numpy()
    assert got.dtype == DT[dtype] and float(got) == n


def test_int_sums_wrap_in_int32() -> None:
    got = wia.sum(wia.tensor(np.full(4, 2**30, np.int32))).numpy()
    assert got.dtype == np.int32 and int(got) == 0
    got = wia.sum(wia.tensor(np.full((3, 200), 127, np.int8)), axis=1).numpy()
    np.testing.assert_array_equal(got, np.full(3, 200 * 127, np.int32))


@thorough
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=6),
    dtype=st.sampled_from(FLOATS),
    scale=st.sampled_from([1.0, 30.0, 1e4]),
    layout=st.sampled_from(LAYOUTS),
    seed=SEEDS,
    data=st.data(),
)
def test_softmax(shape: tuple[int, ...], dtype: str, scale: float, layout: str, seed: int, data: st.DataObject) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), "axis")
    assume(shape[axis] > 0)  # see test_softmax_over_a_zero_size_axis
    x = nr.values(np.random.default_rng(seed), DT[dtype], shape, scale)
    got = wia.softmax(upload(x, layout), axis).numpy()
    ref = nr.softmax(flt(x), axis)
    assert np.isfinite(flt(got)).all(), "softmax must be finite for any finite input"
    assert_close(got, ref, nr.softmax_bound(ref, flt(x), axis, dtype), dtype, f"softmax {dtype} axis={axis}")


@pytest.mark.parametrize("dtype", FLOATS)
def test_softmax_is_stable_for_large_inputs(dtype: str) -> None:
    x = np.array([[1e4, -1e4, 0.0, 1e4 - 64], [-1e4, -1e4, -1e4, -1e4]], DT[dtype])
    got = flt(wia.softmax(wia.tensor(x), axis=-1).numpy())
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got.sum(axis=1), 1.0, rtol=4 * nr.eps(dtype))
    np.testing.assert_allclose(got[1], 0.25, rtol=nr.eps(dtype))
    assert got[0, 0] == 1.0 or abs(got[0, 0] - 1.0) <= nr.eps(dtype)


def test_softmax_over_a_zero_size_axis() -> None:
    out = wia.softmax(wia.tensor(np.zeros((3, 0), np.float32)), axis=1).numpy()
    assert out.shape == (3, 0), out.shape


# -- layout ---------------------------------------------------------------------------------------------------------


def test_release_tensor_of_a_reshaped_copy_frees_the_copy(raw_ctx: wia.Context) -> None:
    """A reshape of a strided view returns a copy: releasing it frees the copy's memory, as for any op's result
    (it was a view of a hidden copy, whose memory stayed allocated while the result object lived; found by
    tests/test_api_abuse.py: bytes in use after teardown)."""
    t = wia.transpose(wia.tensor(np.ones((2, 4), np.float32), ctx=raw_ctx))
    held = raw_ctx.bytes_in_use
    r = wia.reshape(t, -1)
    assert raw_ctx.bytes_in_use > held
    wia.release_tensor(r)
    assert raw_ctx.bytes_in_use == held
    with pytest.raises(wia.InvalidValueError, match="released"):
        r.numpy()


@fast
@given(
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4),
    dtype=st.sampled_from(ALL_DTYPES),
    layout=st.sampled_from(LAYOUTS),
    seed=SEEDS,
    data=st.data(),
)
def test_reshape(shape: tuple[int, ...], dtype: str, layout: str, seed: int, data: st.DataObject) -> None:
    x = nr.values(np.random.default_rng(seed), DT[dtype], shape)
    # a new shape: the dimensions shuffled, neighbours merged, 1s inserted, maybe one of them as -1
    dims = data.draw(st.permutations(list(shape)), "order")
    merged: list[int] = []
    for d in dims:
        if merged and data.draw(st.booleans(), "merge"):
            merged[-1] *= d
        else:
            merged.append(d)
    if data.draw(st.booleans(), "insert 1"):
        merged.insert(data.draw(st.integers(0, len(merged)), "where"), 1)
    if merged and x.size and data.draw(st.booleans(), "use -1"):
        merged[data.draw(st.integers(0, len(merged) - 1), "which")] = -1
    t = upload(x, layout)
    got = wia.reshape(t, merged)
    want = x.reshape(merged)
    assert got.shape == want.shape and got.dtype == DT[dtype] and got.is_contiguous
    nr.assert_exact(got.numpy(), want, f"reshape {shape} -> {merged} ({layout})")


def test_reshape_of_a_transposed_tensor_follows_the_logical_order() -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = wia.transpose(wia.tensor(x), (2, 0, 1))
    assert not t.is_contiguous
    nr.assert_exact(wia.reshape(t, (4, -1)).numpy(), x.transpose(2, 0, 1).reshape(4, -1), "reshape of transpose")
    nr.assert_exact(wia.reshape(t, 24).numpy(), x.transpose(2, 0, 1).reshape(24), "flatten of transpose")


@fast
@given(
    shape=hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=4),
    dtype=st.sampled_from(ALL_DTYPES),
    layout=st.sampled_from(LAYOUTS),
    seed=SEEDS,
    data=st.data(),
)
def test_transpose(shape: tuple[int, ...], dtype: str, layout: str, seed: int, data: st.DataObject) -> None:
    x = nr.values(np.random.default_rng(seed), DT[dtype], shape)
    perm: list[int] | None = None
    if data.draw(st.booleans(), "explicit perm"):
        perm = [
            p - len(shape) if data.draw(st.booleans()) else p for p in data.draw(st.permutations(range(len(shape))))
        ]
    got = wia.transpose(upload(x, layout), perm)
    want = np.transpose(x, perm)
    assert got.shape == want.shape and got.dtype == DT[dtype]
    nr.assert_exact(got.numpy(), want, f"transpose {shape} perm={perm} ({layout})")


@fast
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=4),
    dtype=st.sampled_from(ALL_DTYPES),
    seed=SEEDS,
    data=st.data(),
)
def test_concat(shape: tuple[int, ...], dtype: str, seed: int, data: st.DataObject) -> None:
    rng = np.random.default_rng(seed)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), "axis")
    count = data.draw(st.integers(1, 4), "count")
    parts = []
    for _ in range(count):
        part_shape = list(shape)
        part_shape[axis] = data.draw(st.integers(0, 3), "size along axis")
        parts.append(nr.values(rng, DT[dtype], part_shape))
    layouts = [data.draw(st.sampled_from(LAYOUTS), "layout") for _ in parts]
    got = wia.concat([upload(p, lay) for p, lay in zip(parts, layouts, strict=True)], axis)
    want = np.concatenate(parts, axis=axis)
    assert got.shape == want.shape and got.dtype == DT[dtype]
    nr.assert_exact(got.numpy(), want, f"concat of {[p.shape for p in parts]} on axis {axis}")


@fast
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=5),
    dtype=st.sampled_from(ALL_DTYPES),
    layout=st.sampled_from(LAYOUTS),
    seed=SEEDS,
    data=st.data(),
)
def test_slice(shape: tuple[int, ...], dtype: str, layout: str, seed: int, data: st.DataObject) -> None:
    x = nr.values(np.random.default_rng(seed), DT[dtype], shape)
    n = data.draw(st.integers(0, len(shape)), "entries")
    starts = data.draw(st.lists(st.integers(-8, 8), min_size=n, max_size=n), "start")
    ends = data.draw(st.lists(st.integers(-8, 8), min_size=n, max_size=n), "end")
    got = wia.slice(upload(x, layout), starts, ends)
    want = x[tuple(slice(s, e) for s, e in zip(starts, ends, strict=True))]
    assert got.shape == want.shape and got.dtype == DT[dtype]
    nr.assert_exact(got.numpy(), want, f"slice {shape} [{starts}:{ends}] ({layout})")


def test_views_of_views() -> None:
    x = np.arange(5 * 6 * 7, dtype=np.int32).reshape(5, 6, 7)
    t = wia.slice(wia.transpose(wia.tensor(x), (1, 2, 0)), [1, -5, 0], [-1, 100, 3])
    want = x.transpose(1, 2, 0)[1:-1, -5:100, 0:3]
    nr.assert_exact(t.numpy(), want, "slice of transpose")
    nr.assert_exact(wia.transpose(t).numpy(), want.T, "transpose of slice of transpose")
    nr.assert_exact(wia.reshape(t, (-1, 3)).numpy(), want.reshape(-1, 3), "reshape of slice of transpose")


# -- matmul ---------------------------------------------------------------------------------------------------------


def matmul_operands(
    data: st.DataObject, max_k: int = 9, allow_1d: bool = True
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    batch = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3), "batch")
    m, n = data.draw(st.integers(0, 6), "m"), data.draw(st.integers(0, 6), "n")
    k = data.draw(st.one_of(st.integers(1, max_k), st.just(1)), "k")
    a_shape = (k,) if allow_1d and data.draw(st.booleans(), "A is 1-D") else (*batch.input_shapes[0], m, k)
    b_shape = (k,) if allow_1d and data.draw(st.booleans(), "B is 1-D") else (*batch.input_shapes[1], k, n)
    return a_shape, b_shape


def matmul_data(rng: np.random.Generator, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    return nr.values(rng, DT[dtype], shape, 1.0, floor=FLOOR)


def check_matmul(got: np.ndarray, a: np.ndarray, b: np.ndarray, precision: str, what: str) -> None:
    """``got`` against the float64 product of ``a`` and ``b`` at ``precision``; for rounded inputs also against the
    product of the rounded inputs with the accumulation bound alone (which shows the rounding really happens)."""
    __tracebackhide__ = True
    arithmetic, result = PRECISIONS[(precision, a.dtype.name)]
    assert got.dtype == DT[result], f"{what}: dtype {got.dtype.name}, expected {result}"
    if arithmetic == "int8":
        ref = np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(np.int32)
        nr.assert_exact(got, np.asarray(ref), what)
        return
    k = a.shape[-1]
    ref = np.matmul(flt(a), flt(b))
    terms = np.matmul(np.abs(flt(a)), np.abs(flt(b)))
    rounded = arithmetic in nr.LOW_PRECISION_INPUT and a.dtype.name != arithmetic
    nr.assert_within(got, ref, nr.dot_bound(ref, terms, k, result, arithmetic, rounded), what)
    if rounded:
        ra, rb = nr.round_to(flt(a), arithmetic), nr.round_to(flt(b), arithmetic)
        ref_r = np.matmul(ra, rb)
        bound = nr.dot_bound(ref_r, np.matmul(np.abs(ra), np.abs(rb)), k, result, arithmetic, False)
        nr.assert_within(got, ref_r, bound, f"{what} (against the {arithmetic}-rounded inputs)")


@thorough
@given(
    dtype=st.sampled_from(MATMUL_DTYPES),
    layouts=st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS)),
    seed=SEEDS,
    data=st.data(),
)
def test_matmul(dtype: str, layouts: tuple[str, str], seed: int, data: st.DataObject) -> None:
    a_shape, b_shape = matmul_operands(data)
    rng = np.random.default_rng(seed)
    a, b = matmul_data(rng, dtype, a_shape), matmul_data(rng, dtype, b_shape)
    out = wia.matmul(upload(a, layouts[0]), upload(b, layouts[1]))
    assert out.shape == np.matmul(flt(a), flt(b)).shape
    check_matmul(out.numpy(), a, b, DEFAULT_PRECISION[dtype], f"matmul {a.shape} @ {b.shape} {dtype}")


@fast
@given(
    dtype=st.sampled_from(MATMUL_DTYPES),
    batch=st.integers(0, 3),
    m=st.integers(1, 5),
    k=st.integers(1, 9),
    n=st.integers(1, 5),
    layouts=st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS)),
    seed=SEEDS,
)
def test_batch_matmul(dtype: str, batch: int, m: int, k: int, n: int, layouts: tuple[str, str], seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = matmul_data(rng, dtype, (batch, m, k)), matmul_data(rng, dtype, (batch, k, n))
    out = wia.batch_matmul(upload(a, layouts[0]), upload(b, layouts[1]))
    assert out.shape == (batch, m, n)
    check_matmul(out.numpy(), a, b, DEFAULT_PRECISION[dtype], f"batch_matmul {a.shape} @ {b.shape} {dtype}")


@pytest.mark.parametrize("dtype", MATMUL_DTYPES)
@pytest.mark.parametrize(("m", "k", "n"), [(1, 1, 1), (3, 1, 5), (2, 4096, 3), (1, 2049, 1)])
def test_matmul_k_extremes(dtype: str, m: int, k: int, n: int) -> None:
    rng = np.random.default_rng(m * 7 + k + n)
    a, b = matmul_data(rng, dtype, (m, k)), matmul_data(rng, dtype, (k, n))
    check_matmul(wia.matmul(wia.tensor(a), wia.tensor(b)).numpy(), a, b, DEFAULT_PRECISION[dtype], f"K={k}")


@thorough
@given(
    case=st.sampled_from(precision_cases()),
    algorithm=st.sampled_from(list(A)),
    layouts=st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS)),
    long_k=st.booleans(),
    seed=SEEDS,
    data=st.data(),
)
def test_matmul_optimized(
    case: tuple[str, str], algorithm: wia.MatmulAlgorithm, layouts: tuple[str, str], long_k: bool, seed: int, data: Any
) -> None:
    precision, dtype = case
    arithmetic = PRECISIONS[case][0]
    a_shape, b_shape = matmul_operands(data, max_k=700 if long_k else 9)
    rng = np.random.default_rng(seed)
    a, b = matmul_data(rng, dtype, a_shape), matmul_data(rng, dtype, b_shape)
    config = wia.MatmulConfig(algorithm=algorithm, precision=getattr(P, precision))
    ta, tb = upload(a, layouts[0]), upload(b, layouts[1])
    if not supported(arithmetic):
        with pytest.raises(wia.NotSupportedError):
            wia.matmul_optimized(ta, tb, config)
        return
    out = wia.matmul_optimized(ta, tb, config)
    check_matmul(out.numpy(), a, b, precision, f"{precision} {algorithm.name} {a.shape} @ {b.shape} {dtype}")
    report = wia.explain(out)
    assert report.precision == arithmetic and report.name == "matmul"


@pytest.mark.parametrize("algorithm", list(A), ids=lambda a: a.name)
@pytest.mark.parametrize(("a_shape", "b_shape"), [((8, 1024), (1024, 8)), ((3, 70, 33), (33, 65)), ((600,), (600,))])
def test_every_matmul_algorithm_is_within_tolerance(
    algorithm: wia.MatmulAlgorithm, a_shape: tuple[int, ...], b_shape: tuple[int, ...]
) -> None:
    rng = np.random.default_rng(len(a_shape) + a_shape[-1])
    a, b = matmul_data(rng, "float32", a_shape), matmul_data(rng, "float32", b_shape)
    out = wia.matmul_optimized(wia.tensor(a), wia.tensor(b), wia.MatmulConfig(algorithm=algorithm))
    check_matmul(out.numpy(), a, b, "FP32", algorithm.name)
    report = wia.explain(out)
    if algorithm is A.AUTO:
        assert report.algorithm in [alt.algorithm for alt in report.alternatives]
    elif algorithm is A.SPLIT_K:
        assert report.algorithm.startswith(("SPLIT_K", "TILED_128")), report.algorithm
        if a_shape == (8, 1024):  # one output tile, a long K: the slices are really split
            assert re.fullmatch(r"SPLIT_K×[2-9]\d*", report.algorithm), report.algorithm
    else:
        assert report.algorithm == algorithm.name


def test_every_precision_has_a_rule_here() -> None:
    # a new Precision needs its (data dtype -> arithmetic, result dtype) rules in PRECISIONS to be tested
    assert {p.name for p in P} <= {precision for precision, _ in PRECISIONS}
    for (precision, dtype), (arithmetic, _) in PRECISIONS.items():
        if hasattr(P, precision) and supported(arithmetic):
            a = wia.tensor(np.ones((2, 2), DT[dtype]))
            assert wia.explain(wia.matmul_optimized(a, a, wia.MatmulConfig(precision=getattr(P, precision)))).name


def test_tf32_rounds_float32_inputs_to_ten_mantissa_bits() -> None:
    a = np.array([[1 + 2.0**-12, 1 + 3 * 2.0**-11, 1 + 2.0**-10, 3.0]], np.float32)
    b = np.eye(4, dtype=np.float32)
    ta, tb = wia.tensor(a), wia.tensor(b)
    fp32 = wia.matmul_optimized(ta, tb, wia.MatmulConfig(precision=P.FP32)).numpy()
    tf32 = wia.matmul_optimized(ta, tb, wia.MatmulConfig(precision=P.TF32)).numpy()
    np.testing.assert_array_equal(fp32, a)
    # 1+2^-12 rounds down, 1+1.5·2^-10 is a tie that goes to even (1+2^-9), 1+2^-10 and 3 are exact
    np.testing.assert_array_equal(tf32, [[1.0, 1 + 2.0**-9, 1 + 2.0**-10, 3.0]])


def test_int8_matmul_accumulates_exactly_in_int32_and_wraps() -> None:
    a = np.full((1, 4096), -128, np.int8)
    b = np.full((4096, 2), -128, np.int8)
    got = wia.matmul(wia.tensor(a), wia.tensor(b)).numpy()
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, [[128 * 128 * 4096] * 2])
    k = 140_000  # 128·128·K passes 2^31: the int32 accumulator wraps
    v = np.full(k, -128, np.int8)
    got = wia.matmul(wia.tensor(v), wia.tensor(v)).numpy()
    assert got.shape == () and got.dtype == np.int32
    assert int(got) == np.array(128 * 128 * k, np.int64).astype(np.int32)


def test_fp8_on_a_device_with_float8(tmp_path: Path) -> None:
    from wia_sim.hwmodel import model_path

    if not hasattr(P, "FP8"):
        pytest.skip("no FP8 precision")
    text = model_path("wia-tiny").read_text()
    path = tmp_path / "tiny-fp8.toml"
    path.write_text(text.replace('int8 = "4 TOP/s"', 'int8 = "4 TOP/s"\nfloat8 = "8 TFLOP/s"'))
    wia.set_backend("sim", hardware=str(path))
    assert supported("float8")
    rng = np.random.default_rng(8)
    for dtype in ("float32", "float16", "bfloat16"):
        a, b = matmul_data(rng, dtype, (2, 5, 40)), matmul_data(rng, dtype, (40, 7))
        out = wia.matmul_optimized(wia.tensor(a), wia.tensor(b), wia.MatmulConfig(precision=P.FP8))
        check_matmul(out.numpy(), a, b, "FP8", f"FP8 {dtype}")


@pytest.mark.parametrize("dtype", ["float32", "int8"])
@pytest.mark.parametrize("op", ["matmul", "conv2d"])
def test_an_empty_reduction_gives_zeros(op: str, dtype: str) -> None:
    if op == "matmul":
        a, b = np.zeros((3, 0), DT[dtype]), np.zeros((0, 4), DT[dtype])
        got = wia.matmul(wia.tensor(a), wia.tensor(b)).numpy()
        want_shape: tuple[int, ...] = (3, 4)
    else:  # no input channels: K = C·KH·KW = 0
        x, w = np.zeros((1, 0, 4, 4), DT[dtype]), np.zeros((2, 0, 3, 3), DT[dtype])
        got = wia.conv2d(wia.tensor(x), wia.tensor(w)).numpy()
        want_shape = (1, 2, 2, 2)
    np.testing.assert_array_equal(got, np.zeros(want_shape))


# -- convolution ----------------------------------------------------------------------------------------------------


@st.composite
def conv_cases(draw: st.DrawFn, winograd_ok: bool = True) -> dict[str, Any]:
    winograd = winograd_ok and draw(st.booleans())
    groups = draw(st.integers(1, 3))
    k = (3, 3) if winograd else (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = (1, 1) if winograd else (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dilation = (1, 1) if winograd else (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
    extent = [d * (kk - 1) + 1 for d, kk in zip(dilation, k, strict=True)]
    hw = [draw(st.integers(max(1, e - 2 * p), e + 5)) for e, p in zip(extent, padding, strict=True)]
    return {
        "n": draw(st.integers(0, 2)),
        "c": groups * draw(st.integers(1, 3)),
        "o": groups * draw(st.integers(1, 3)),
        "hw": tuple(hw),
        "k": k,
        "groups": groups,
        "padding": padding,
        "stride": stride,
        "dilation": dilation,
        "winograd": winograd,
        "bias": draw(st.booleans()),
    }


def conv_check(
    got: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    bias: np.ndarray | None,
    cfg: wia.ConvConfig,
    precision: str,
    ran: str,
    what: str,
) -> None:
    """``got`` against the float64 convolution; ``ran`` is the algorithm that ran (``explain``), WINOGRAD's bound
    adds the roundings of its transforms."""
    __tracebackhide__ = True
    arithmetic, result = PRECISIONS[(precision, x.dtype.name)]
    assert got.dtype == DT[result], f"{what}: dtype {got.dtype.name}, expected {result}"
    geometry = {"padding": cfg.padding, "stride": cfg.stride, "dilation": cfg.dilation, "groups": cfg.groups}
    ref = nr.conv2d(x, w, bias, **geometry)
    if arithmetic == "int8":
        nr.assert_exact(got, ref.astype(np.int32), what)
        return
    terms = nr.conv2d(np.abs(flt(x)), np.abs(flt(w)), None if bias is None else np.abs(flt(bias)), **geometry)
    k = w.shape[1] * w.shape[2] * w.shape[3]
    rounded = arithmetic in nr.LOW_PRECISION_INPUT and x.dtype.name != arithmetic
    bound = nr.dot_bound(ref, terms, k, result, arithmetic, rounded)
    if ran == "WINOGRAD":
        # the transforms' intermediates exceed |x|·|w|: bound the roundings by the Winograd magnitudes
        acc = "float64" if arithmetic == "float64" else "float32"
        magnitude = nr.winograd_terms(x, w, cfg.padding, cfg.groups)
        if bias is not None:
            magnitude = magnitude + np.abs(flt(bias)).reshape(1, -1, 1, 1)
        own = 2 if acc == "float64" else 1
        bound = bound + own * (w.shape[1] + 24) * nr.eps(acc) * magnitude
    nr.assert_within(got, ref, bound, what)


@thorough
@given(
    case=conv_cases(),
    dtype=st.sampled_from(MATMUL_DTYPES),
    layout=st.sampled_from(LAYOUTS),
    seed=SEEDS,
    data=st.data(),
)
def test_conv2d(case: dict[str, Any], dtype: str, layout: str, seed: int, data: st.DataObject) -> None:
    rng = np.random.default_rng(seed)
    int8 = dtype == "int8"
    algorithms = [C.AUTO, C.IMPLICIT_GEMM, C.DIRECT] + ([C.WINOGRAD] if case["winograd"] and not int8 else [])
    algorithm = data.draw(st.sampled_from(algorithms), "algorithm")
    x = matmul_data(rng, dtype, (case["n"], case["c"], *case["hw"]))
    w = matmul_data(rng, dtype, (case["o"], case["c"] // case["groups"], *case["k"]))
    bias = None
    if case["bias"]:
        bias = nr.small_ints(rng, DT["int32"], (case["o"],), 1000) if int8 else matmul_data(rng, dtype, (case["o"],))
    cfg = wia.ConvConfig(
        padding=case["padding"],
        stride=case["stride"],
        dilation=case["dilation"],
        groups=case["groups"],
        algorithm=algorithm,
    )
    out = wia.conv2d(upload(x, layout), upload(w, layout), cfg, bias=None if bias is None else wia.tensor(bias))
    ran = wia.explain(out).algorithm
    what = f"conv2d {dtype} {algorithm.name} ({ran}) {x.shape} * {w.shape} {cfg}"
    conv_check(out.numpy(), x, w, bias, cfg, DEFAULT_PRECISION[dtype], ran, what)


@fast
@given(
    case=conv_cases(),
    precision_case=st.sampled_from([c for c in precision_cases() if c[1] == "float32"]),
    seed=SEEDS,
    data=st.data(),
)
def test_conv2d_precisions(case: dict[str, Any], precision_case: tuple[str, str], seed: int, data: Any) -> None:
    precision = precision_case[0]
    arithmetic, _ = PRECISIONS[precision_case]
    algorithms = [C.AUTO, C.IMPLICIT_GEMM, C.DIRECT] + ([C.WINOGRAD] if case["winograd"] else [])
    algorithm = data.draw(st.sampled_from(algorithms), "algorithm")
    rng = np.random.default_rng(seed)
    x = matmul_data(rng, "float32", (case["n"], case["c"], *case["hw"]))
    w = matmul_data(rng, "float32", (case["o"], case["c"] // case["groups"], *case["k"]))
    cfg = wia.ConvConfig(
        padding=case["padding"],
        stride=case["stride"],
        dilation=case["dilation"],
        groups=case["groups"],
        algorithm=algorithm,
        precision=getattr(P, precision),
    )
    if not supported(arithmetic):
        with pytest.raises(wia.NotSupportedError):
            wia.conv2d(wia.tensor(x), wia.tensor(w), cfg)
        return
    out = wia.conv2d(wia.tensor(x), wia.tensor(w), cfg)
    ran = wia.explain(out).algorithm
    conv_check(out.numpy(), x, w, None, cfg, precision, ran, f"conv2d {precision} {algorithm.name} ({ran}) {cfg}")


def test_winograd_differs_from_implicit_gemm_but_both_are_within_tolerance() -> None:
    rng = np.random.default_rng(2016)
    x = matmul_data(rng, "float32", (2, 8, 9, 9))
    w = matmul_data(rng, "float32", (8, 8, 3, 3))
    results = {}
    for algorithm in (C.IMPLICIT_GEMM, C.WINOGRAD, C.DIRECT):
        cfg = wia.ConvConfig(padding=1, algorithm=algorithm)
        out = wia.conv2d(wia.tensor(x), wia.tensor(w), cfg)
        assert wia.explain(out).algorithm.startswith(algorithm.name)
        results[algorithm] = out.numpy()
        conv_check(results[algorithm], x, w, None, cfg, "FP32", algorithm.name, f"conv2d {algorithm.name}")
    assert results[C.WINOGRAD].tobytes() != results[C.IMPLICIT_GEMM].tobytes(), "Winograd rounds differently"


def test_int8_conv2d_accumulates_in_int32() -> None:
    x = np.full((1, 64, 4, 4), -128, np.int8)
    w = np.full((2, 64, 3, 3), -128, np.int8)
    bias = np.array([5, -7], np.int32)
    for algorithm in (C.AUTO, C.IMPLICIT_GEMM, C.DIRECT):
        out = wia.conv2d(wia.tensor(x), wia.tensor(w), wia.ConvConfig(algorithm=algorithm), bias=wia.tensor(bias))
        got = out.numpy()
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, nr.conv2d(x, w, bias).astype(np.int32))


@pytest.mark.parametrize("precision", ["TF32", "BF16", "FP16", "MIXED"])
def test_conv2d_bias_is_added_in_the_accumulator_precision(precision: str) -> None:
    x = np.full((1, 1, 1, 1), 2.0**-20, np.float32)
    w = np.ones((1, 1, 1, 1), np.float32)
    bias = np.array([1 + 2.0**-20], np.float32)  # exact in float32, not in TF32/BF16/FP16
    cfg = wia.ConvConfig(precision=getattr(P, precision))
    got = wia.conv2d(wia.tensor(x), wia.tensor(w), cfg, bias=wia.tensor(bias)).numpy()
    assert float(got.reshape(-1)[0]) == 1 + 2.0**-19


# -- batch_norm and pool2d ------------------------------------------------------------------------------------------


@fast
@given(
    shape=st.one_of(
        hnp.array_shapes(min_dims=2, max_dims=2, min_side=0, max_side=5),
        hnp.array_shapes(min_dims=3, max_dims=4, min_side=1, max_side=4),
    ),
    dtype=st.sampled_from(FLOATS),
    eps=st.sampled_from([None, 1e-3, 0.25]),
    zero_variance=st.booleans(),
    layout=st.sampled_from(LAYOUTS),
    seed=SEEDS,
)
def test_batch_norm(
    shape: tuple[int, ...], dtype: str, eps: float | None, zero_variance: bool, layout: str, seed: int
) -> None:
    assume(shape[1] > 0)
    rng = np.random.default_rng(seed)
    c = shape[1]
    x = nr.values(rng, DT[dtype], shape, 3.0)
    scale, bias, mean = (nr.values(rng, DT[dtype], (c,)) for _ in range(3))
    var = rng.uniform(0.1, 2.0, c).astype(DT[dtype])
    if zero_variance:
        var[0] = 0  # then eps alone keeps the factor finite
    kwargs = {} if eps is None else {"eps": eps}
    params = [wia.tensor(p) for p in (scale, bias, mean, var)]
    got = wia.batch_norm(upload(x, layout), *params, **kwargs).numpy()
    ref, magnitude = nr.batch_norm(x, scale, bias, mean, var, 1e-5 if eps is None else eps)
    ct = nr.compute_type(dtype)
    bound = nr.eps(dtype) * np.abs(ref) + 4 * nr.eps(ct) * magnitude + 2 * nr.tiny(dtype)
    assert_close(got, ref, bound, dtype, f"batch_norm {shape} {dtype} eps={eps}")


@st.composite
def pool_cases(draw: st.DrawFn) -> dict[str, Any]:
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    padding = tuple(draw(st.integers(0, kk // 2)) for kk in k)
    stride = draw(st.one_of(st.none(), st.tuples(st.integers(1, 3), st.integers(1, 3))))
    hw = tuple(draw(st.integers(max(1, kk - 2 * p), kk + 5)) for kk, p in zip(k, padding, strict=True))
    return {"k": k, "padding": padding, "stride": stride, "hw": hw, "n": draw(st.integers(0, 2))}


@fast
@given(
    case=pool_cases(),
    kind=st.sampled_from(["MAX", "AVG"]),
    dtype=st.sampled_from([*FLOATS, "int8", "int32"]),
    c=st.integers(1, 3),
    layout=st.sampled_from(LAYOUTS),
    seed=SEEDS,
)
def test_pool2d(case: dict[str, Any], kind: str, dtype: str, c: int, layout: str, seed: int) -> None:
    assume(kind == "MAX" or dtype in FLOATS)
    x = nr.values(np.random.default_rng(seed), DT[dtype], (case["n"], c, *case["hw"]), 5.0)
    kwargs = {"type": getattr(wia.PoolType, kind), "kernel_size": case["k"], "padding": case["padding"]}
    if case["stride"] is not None:
        kwargs["stride"] = case["stride"]
    got = wia.pool2d(upload(x, layout), wia.PoolConfig(**kwargs)).numpy()
    stride = case["stride"] or case["k"]  # the default stride is the kernel size
    ref = nr.pool2d(x, kind, case["k"], stride, case["padding"])
    what = f"pool2d {kind} {x.shape} {dtype} {kwargs}"
    assert got.dtype == DT[dtype]
    if kind == "MAX":
        nr.assert_exact(got, ref.astype(DT[dtype]), what)
        return
    window = case["k"][0] * case["k"][1]
    magnitude = nr.pool2d(np.abs(flt(x)), "AVG", case["k"], stride, case["padding"])
    bound = nr.eps(dtype) * np.abs(ref) + (window + 1) * nr.eps(nr.compute_type(dtype)) * magnitude + 2 * nr.tiny(dtype)
    assert_close(got, ref, bound, dtype, what)


# -- non-contiguous inputs everywhere -------------------------------------------------------------------------------


def _noncontiguous(arr: np.ndarray, how: str) -> wia.Tensor:
    """``arr`` as a transposed view, a sliced view, a slice of a transpose, or a reshape of a transpose."""
    if how == "slice of transpose":
        big = np.zeros(tuple(d + 1 for d in arr.shape), arr.dtype)
        big[tuple(slice(1, None) for _ in arr.shape)] = arr
        view = wia.slice(wia.transpose(wia.tensor(np.ascontiguousarray(big.T))), [1] * arr.ndim, list(big.shape))
        return view
    if how == "reshape of transpose":
        flat = arr.reshape(-1, arr.shape[-1]) if arr.ndim > 1 else arr.reshape(1, -1)
        t = wia.transpose(wia.tensor(np.ascontiguousarray(flat.T)))
        return wia.reshape(t, arr.shape)
    return upload(arr, how)


VIEW_KINDS = ["transposed", "sliced", "slice of transpose", "reshape of transpose"]
OPS: dict[str, tuple[list[tuple[int, ...]], Callable[..., Any], Callable[..., np.ndarray], bool]] = {
    # name: (input shapes, op, float64 reference, exact)
    "add": ([(3, 4), (3, 4)], wia.add, lambda a, b: a + b, False),
    "mul": ([(3, 4), (4,)], wia.mul, lambda a, b: a * b, False),
    "relu": ([(3, 4)], wia.relu, lambda a: np.maximum(a, 0), True),
    "gelu": ([(3, 4)], wia.gelu, nr.gelu, False),
    "sigmoid": ([(3, 4)], wia.sigmoid, nr.sigmoid, False),
    "sum": ([(3, 4, 2)], lambda a: wia.sum(a, (0, 2)), lambda a: a.sum(axis=(0, 2)), False),
    "max": ([(3, 4, 2)], lambda a: wia.max(a, -1), lambda a: a.max(axis=-1), True),
    "softmax": ([(3, 4, 2)], lambda a: wia.softmax(a, 1), lambda a: nr.softmax(a, 1), False),
    "concat": ([(2, 3), (2, 5)], lambda a, b: wia.concat([a, b], 1), lambda a, b: np.concatenate([a, b], 1), True),
    "matmul": ([(2, 3, 4), (4, 5)], wia.matmul, np.matmul, False),
    "batch_matmul": ([(2, 3, 4), (2, 4, 5)], wia.batch_matmul, np.matmul, False),
    "conv2d": (
        [(1, 2, 5, 5), (3, 2, 3, 3)],
        lambda x, w: wia.conv2d(x, w, wia.ConvConfig(padding=1)),
        lambda x, w: nr.conv2d(x, w, padding=(1, 1)),
        False,
    ),
    "batch_norm": (
        [(2, 3, 2, 2), (3,), (3,), (3,), (3,)],
        wia.batch_norm,
        lambda x, s, b, m, v: nr.batch_norm(x, s, b, m, v, 1e-5)[0],
        False,
    ),
    "pool2d": (
        [(1, 2, 4, 5)],
        lambda x: wia.pool2d(x, wia.PoolConfig(type=wia.PoolType.AVG, kernel_size=2, stride=1)),
        lambda x: nr.pool2d(x, "AVG", (2, 2), (1, 1), (0, 0)),
        False,
    ),
}


@pytest.mark.parametrize("how", VIEW_KINDS)
@pytest.mark.parametrize("op", list(OPS))
def test_views_as_inputs_of_every_op(op: str, how: str) -> None:
    """Every input of every op as a non-contiguous view. A view read at the wrong offset or stride gives an O(1)
    error on O(1) data, so a loose bound (1e-5 of the magnitude) suffices; accuracy is tested op by op above."""
    shapes, fn, reference, exact = OPS[op]
    rng = np.random.default_rng(len(op))
    arrays = [nr.values(rng, DT["float32"], s, floor=FLOOR) for s in shapes]
    if op == "batch_norm":
        arrays[4] = np.abs(arrays[4])  # a variance
    got = fn(*[_noncontiguous(a, how) for a in arrays]).numpy()
    ref = reference(*[flt(a) for a in arrays])
    what = f"{op} of {how} views"
    assert got.dtype == np.float32, what
    if exact:
        nr.assert_exact(got, ref.astype(np.float32), what)
    else:
        nr.assert_within(got, ref, 1e-5 * (np.abs(ref) + 1.0), what)


# -- explain and views ----------------------------------------------------------------------------------------------


EXPLAINED = [
    "add",
    "mul",
    "relu",
    "gelu",
    "sigmoid",
    "sum",
    "max",
    "softmax",
    "concat",
    "matmul",
    "batch_matmul",
    "matmul_optimized",
    "conv2d",
    "batch_norm",
    "pool2d",
]


def _explained_ops() -> dict[str, tuple[Callable[[], wia.Tensor], float | None]]:
    rng = np.random.default_rng(0)

    def t(*shape: int, dtype: str = "float32") -> wia.Tensor:
        return wia.tensor(nr.values(rng, DT[dtype], shape))

    x = t(64, 96)
    img, weight = t(2, 8, 12, 12), t(16, 8, 3, 3)
    return {
        "add": (lambda: wia.add(x, x), None),
        "mul": (lambda: wia.mul(x, x), None),
        "relu": (lambda: wia.relu(x), None),
        "gelu": (lambda: wia.gelu(x), None),
        "sigmoid": (lambda: wia.sigmoid(x), None),
        "sum": (lambda: wia.sum(x, 0), None),
        "max": (lambda: wia.max(x), None),
        "softmax": (lambda: wia.softmax(x), None),
        "concat": (lambda: wia.concat([x, x], 1), None),
        "matmul": (lambda: wia.matmul(x, t(96, 40)), 2.0 * 64 * 40 * 96),
        "batch_matmul": (lambda: wia.batch_matmul(t(3, 5, 7), t(3, 7, 9)), 2.0 * 3 * 5 * 9 * 7),
        "matmul_optimized": (
            lambda: wia.matmul_optimized(t(2, 300), t(300, 3), wia.MatmulConfig(precision=P.TF32)),
            2.0 * 2 * 3 * 300,
        ),
        "conv2d": (lambda: wia.conv2d(img, weight, wia.ConvConfig(padding=1)), 2.0 * 2 * 12 * 12 * 16 * 8 * 9),
        "batch_norm": (lambda: wia.batch_norm(img, *(wia.tensor(np.ones(8, np.float32)) for _ in range(4))), None),
        "pool2d": (lambda: wia.pool2d(img, wia.PoolConfig(type=wia.PoolType.MAX, kernel_size=2)), None),
    }


@pytest.mark.parametrize("op", EXPLAINED)
def test_explain_reports_the_op(op: str, ctx: wia.Context) -> None:
    make, useful = _explained_ops()[op]
    out = make()
    report = wia.explain(out)
    kernel = {"batch_matmul": "matmul", "matmul_optimized": "matmul"}.get(op, op)
    assert report.name == kernel
    assert report.bound in {"compute", "memory", "launch"}
    terms = {"compute": report.compute_ms, "memory": report.memory_ms, "launch": report.launch_ms}
    assert terms[report.bound] == max(terms.values()), report
    assert min(terms.values()) >= 0 and report.duration_ms > 0
    assert math.isclose(report.duration_ms, report.launch_ms + max(report.compute_ms, report.memory_ms), rel_tol=1e-9)
    assert report.bytes > 0 and report.flops >= 0 and report.useful_flops >= 0
    if useful is not None:
        assert report.useful_flops == useful
    if op in ("matmul", "batch_matmul", "matmul_optimized", "conv2d"):  # AUTO: the cheapest of what it weighed
        names = [alt.algorithm for alt in report.alternatives]
        assert report.algorithm in names, (report.algorithm, names)
        cheapest = min(alt.duration_ms for alt in report.alternatives)
        assert math.isclose(report.duration_ms, cheapest, rel_tol=1e-9)
    if op.startswith(("matmul", "batch")):
        assert report.flops >= report.useful_flops  # tiles padded, never fewer FLOPs than the product
    out.numpy()  # runs it
    done = wia.explain(out)
    assert done.started_ms is not None and done.ended_ms is not None
    assert math.isclose(done.ended_ms - done.started_ms, done.duration_ms, rel_tol=1e-6, abs_tol=1e-9)


def test_explain_names_the_requested_algorithm_and_precision() -> None:
    a, b = wia.tensor(np.ones((40, 50), np.float32)), wia.tensor(np.ones((50, 30), np.float32))
    for algorithm in (x for x in A if x not in (A.AUTO, A.SPLIT_K)):
        assert (
            wia.explain(wia.matmul_optimized(a, b, wia.MatmulConfig(algorithm=algorithm))).algorithm == algorithm.name
        )
    for precision in (P.FP32, P.TF32, P.FP16, P.BF16, P.MIXED):
        arithmetic = PRECISIONS[(precision.name, "float32")][0]
        report = wia.explain(wia.matmul_optimized(a, b, wia.MatmulConfig(precision=precision)))
        assert report.precision == arithmetic
    x, w = wia.tensor(np.ones((1, 4, 8, 8), np.float32)), wia.tensor(np.ones((4, 4, 3, 3), np.float32))
    for algorithm in (C.IMPLICIT_GEMM, C.WINOGRAD, C.DIRECT):
        report = wia.explain(wia.conv2d(x, w, wia.ConvConfig(algorithm=algorithm)))
        assert report.algorithm.startswith(algorithm.name) and not report.alternatives


def test_explain_timing_matches_events(ctx: wia.Context) -> None:
    s = ctx.default_stream
    a = wia.tensor(np.ones((128, 128), np.float32), ctx=ctx)
    w = wia.tensor(np.ones((2, 1, 3, 3), np.float32), ctx=ctx)
    big = wia.tensor(np.ones((512, 512), np.float32), ctx=ctx)
    start, end = wia.create_event(), wia.create_event()
    busy = wia.matmul(big, big)  # keeps the stream busy (~0.5 ms), so the events measure device work only
    wia.event_record(start, s)
    out = wia.conv2d(wia.reshape(a, (1, 1, 128, 128)), w)
    wia.event_record(end, s)
    wia.event_synchronize(end)
    assert math.isclose(wia.event_elapsed_time(start, end), wia.explain(out).duration_ms, rel_tol=1e-6)
    del busy


def test_views_enqueue_no_kernel_and_take_no_device_time(raw_ctx: wia.Context) -> None:
    s = raw_ctx.default_stream
    a = wia.tensor(np.arange(24, dtype=np.float32).reshape(4, 6), ctx=raw_ctx)
    big = wia.tensor(np.ones((512, 512), np.float32), ctx=raw_ctx)
    e0, e1, e2 = wia.create_event(), wia.create_event(), wia.create_event()
    wia.context_synchronize(raw_ctx)
    allocated = raw_ctx.bytes_allocated
    product = wia.matmul(big, big)  # busy stream: an event after the views completes with the matmul
    wia.event_record(e0, s)
    views = [
        wia.transpose(a),
        wia.transpose(a, (1, 0)),
        wia.slice(a, [1, -4], [3, 100]),
        wia.slice(a, [0], [2]),
        wia.reshape(a, (6, 4)),
        wia.reshape(a, -1),
        wia.reshape(wia.slice(a, [1], [3]), (3, 4)),  # a slice along the first axis is contiguous
    ]
    wia.event_record(e1, s)
    copy = wia.reshape(wia.transpose(a), -1)  # not a view: a copy kernel makes it contiguous
    wia.event_record(e2, s)
    wia.event_synchronize(e2)
    assert wia.event_elapsed_time(e0, e1) == 0.0
    assert wia.event_elapsed_time(e1, e2) > 0.0
    for v in views:
        with pytest.raises(wia.InvalidValueError) as info:
            wia.explain(v)
        assert info.value.code is wia.ErrorCode.INVALID_VALUE
    del copy
    assert raw_ctx.bytes_allocated == allocated + product.nbytes  # nothing for the views
