"""SPEC 3.7: ``tensor``, ``empty``, ``zeros``, ``.numpy()``, the element-wise ops (``add``, ``mul``, ``relu``,
``gelu``, ``sigmoid``), the reductions (``sum``, ``max``, ``softmax``), the layout ops (``reshape``, ``transpose``,
``concat``, ``slice``), ``matmul``/``batch_matmul`` and ``release_tensor``, against float64 NumPy references rounded
to the data type (tolerances: ``ph.TOLERANCES``; sums and products: ``ph.assert_reduction_close``)."""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

import wia_hal as wia
from conformance import assertions as ph
from conformance import strategies as hh
from conformance.assertions import fmt

E = wia.ErrorCode
Shape = tuple[int, ...]

_REFERENCE: dict[str, Callable[..., npt.NDArray[np.float64]]] = {
    "add": np.add,
    "mul": np.multiply,
    "relu": lambda x: np.maximum(x, 0.0),
}


def reference(op: str, dtype: np.dtype[Any], *arrays: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """``op`` computed in float64 on the (already rounded) inputs, rounded to ``dtype``."""
    wide = [a.astype(np.float64) for a in arrays]
    return ph.round_to(np.asarray(_REFERENCE[op](*wide), dtype=np.float64), dtype)


@pytest.fixture(params=hh.ALL_DTYPES, ids=[d.name for d in hh.ALL_DTYPES])
def dtype(request: pytest.FixtureRequest, device: wia.Device) -> np.dtype[Any]:
    """Each WIA data type; the ones the device does not claim are reported as not supported."""
    d: np.dtype[Any] = request.param
    ph.requires_dtype(d)
    return d


def _describe(*arrays: npt.NDArray[Any]) -> str:
    return ", ".join(f"{a.dtype.name} {a.shape}" for a in arrays)


@pytest.mark.req("R-3.1-01")
@hh.suite_settings()
@given(shape=hh.shapes(), data=st.data())
def test_tensor_round_trip(dtype: np.dtype[Any], shape: Shape, data: st.DataObject) -> None:
    x = data.draw(hh.arrays(dtype, shape), label="x")
    t = wia.tensor(x)
    call = f"tensor({_describe(x)})"
    ph.assert_isinstance(t, wia.Tensor, call)
    ph.assert_equal((t.shape, np.dtype(t.dtype)), (shape, dtype), f"{call}: (shape, dtype)")
    ph.assert_array_close(t.numpy(), x, dtype, f"{call}.numpy()")
    wia.release_tensor(t)


@pytest.mark.req("R-3.1-01")
@hh.suite_settings()
@given(shape=hh.shapes(), data=st.data())
def test_tensor_with_dtype_converts(dtype: np.dtype[Any], shape: Shape, data: st.DataObject) -> None:
    x = data.draw(hh.arrays(dtype, shape), label="x")
    if dtype.name == "bool":
        source = x
    elif dtype.kind in "iu":
        source = x.astype(np.int64)
    else:
        source = x.astype(np.float64)  # every generated value is exact in float64, so the conversion is too
    t = wia.tensor(source, dtype=dtype)
    ph.assert_array_close(t.numpy(), x, dtype, f"tensor({_describe(source)}, dtype={dtype.name}).numpy()")


@pytest.mark.req("R-3.1-01")
@hh.suite_settings()
@given(shape=hh.shapes())
def test_zeros(dtype: np.dtype[Any], shape: Shape) -> None:
    t = wia.zeros(shape, dtype)
    ph.assert_array_close(t.numpy(), np.zeros(shape, dtype), dtype, f"zeros({shape}, {dtype.name}).numpy()")


@pytest.mark.req("R-3.1-01")
@hh.suite_settings()
@given(shape=hh.shapes())
def test_empty(dtype: np.dtype[Any], shape: Shape) -> None:
    t = wia.empty(shape, dtype)
    call = f"empty({shape}, {dtype.name})"
    ph.assert_equal((t.shape, np.dtype(t.dtype)), (shape, dtype), f"{call}: (shape, dtype)")
    got = t.numpy()
    ph.assert_equal((got.shape, got.dtype), (shape, dtype), f"{call}.numpy(): (shape, dtype)")


@pytest.mark.req("R-3.1-01")
def test_int_shape_means_one_dimension(device: wia.Device) -> None:
    ph.assert_equal(wia.zeros(5).shape, (5,), "zeros(5).shape")
    ph.assert_equal(wia.empty(0).shape, (0,), "empty(0).shape")


_BAD_SHAPES: list[tuple[str, Any]] = [
    ("negative", (-1,)),
    ("negative-inner", (2, -3)),
    ("float", (2.5,)),
    ("str", "3"),
    ("None", None),
]


@pytest.mark.req("R-3.1-01")
@pytest.mark.parametrize("shape", [v for _, v in _BAD_SHAPES], ids=[n for n, _ in _BAD_SHAPES])
@pytest.mark.parametrize("factory", [wia.zeros, wia.empty], ids=["zeros", "empty"])
def test_invalid_shape(factory: Callable[..., wia.Tensor], shape: Any, device: wia.Device) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, factory, shape)


@pytest.mark.req("R-3.1-01")
@pytest.mark.parametrize("dtype_value", ["complex64", np.complex128, "float8", "not-a-type", object], ids=str)
def test_unknown_dtype(dtype_value: Any, device: wia.Device) -> None:
    codes = (E.INVALID_VALUE, E.NOT_SUPPORTED)
    ph.assert_raises_code(codes, wia.zeros, (2,), dtype_value)
    ph.assert_raises_code(codes, wia.tensor, [1, 2], dtype=dtype_value)


@pytest.mark.req("R-3.1-01")
def test_data_of_non_wia_dtype(device: wia.Device) -> None:
    ph.assert_raises_code((E.INVALID_VALUE, E.NOT_SUPPORTED), wia.tensor, np.zeros(3, np.complex64))
    ph.assert_raises_code(E.INVALID_VALUE, wia.tensor, wia.zeros(3))


@pytest.mark.req("R-3.7-01")
@pytest.mark.parametrize("op", ["add", "mul"])
@hh.suite_settings()
@given(shapes=hh.broadcastable_shape_pairs(), data=st.data())
def test_binary_op(op: str, dtype: np.dtype[Any], shapes: tuple[Shape, Shape], data: st.DataObject) -> None:
    a = data.draw(hh.arrays(dtype, shapes[0]), label="a")
    b = data.draw(hh.arrays(dtype, shapes[1]), label="b")
    fn = getattr(wia, op)
    got = fn(wia.tensor(a), wia.tensor(b))
    call = f"{op}({_describe(a, b)})"
    ph.assert_equal(got.shape, np.broadcast_shapes(a.shape, b.shape), f"{call}.shape")
    ph.assert_array_close(got.numpy(), reference(op, dtype, a, b), dtype, call)


@pytest.mark.req("R-3.7-01")
@hh.suite_settings()
@given(shape=hh.shapes(), data=st.data())
def test_relu(dtype: np.dtype[Any], shape: Shape, data: st.DataObject) -> None:
    x = data.draw(hh.arrays(dtype, shape), label="x")
    got = wia.relu(wia.tensor(x))
    call = f"relu({_describe(x)})"
    ph.assert_equal(got.shape, shape, f"{call}.shape")
    ph.assert_array_close(got.numpy(), reference("relu", dtype, x), dtype, call)


@pytest.mark.req("R-3.7-01")
def test_ops_in_an_explicit_context(ctx: wia.Context) -> None:
    x = np.array([[-1.5, 0.0, 2.0]], np.float32)
    t = wia.tensor(x, ctx=ctx)
    for name, got in (("add", wia.add(t, t, ctx=ctx)), ("mul", wia.mul(t, t, ctx=ctx)), ("relu", wia.relu(t, ctx=ctx))):
        ph.assert_true(got.context is ctx, got.context, "the tensor's context", f"{name}(..., ctx=ctx).context")
        args = (x,) if name == "relu" else (x, x)
        ph.assert_array_close(
            got.numpy(), reference(name, np.dtype(np.float32), *args), np.dtype(np.float32), f"{name}(ctx=ctx)"
        )


@pytest.mark.req("R-3.7-01")
@pytest.mark.parametrize("op", ["add", "mul"])
@hh.suite_settings()
@given(shapes=hh.non_broadcastable_shape_pairs())
def test_non_broadcastable_shapes(op: str, shapes: tuple[Shape, Shape], device: wia.Device) -> None:
    a, b = (wia.zeros(s, wia.float32) for s in shapes)
    error = ph.assert_raises_code(E.INVALID_VALUE, getattr(wia, op), a, b)
    ph.assert_message_mentions(
        error,
        [ph.shape_spellings(shapes[0]), ph.shape_spellings(shapes[1])],
        f"{op}(float32 {shapes[0]}, float32 {shapes[1]})",
    )


@pytest.mark.req("R-3.7-01")
@pytest.mark.parametrize("op", ["add", "mul"])
def test_dtype_mismatch(op: str, caps: wia.DeviceCapabilities) -> None:
    claimed = ph.claimed_dtypes(caps)
    for first in claimed:
        for second in claimed:
            if first == second:
                continue
            a, b = wia.zeros((2, 3), first), wia.zeros((2, 3), second)
            call = f"{op}({first.name} (2, 3), {second.name} (2, 3))"
            error = ph.assert_raises_code(E.INVALID_VALUE, getattr(wia, op), a, b)
            ph.assert_message_mentions(error, [[first.name], [second.name]], call)


@pytest.mark.req("R-3.7-01")
@pytest.mark.parametrize("op", ["add", "mul", "relu"])
@pytest.mark.parametrize("value", [None, "1.0", np.ones(3, np.float32)], ids=["None", "str", "ndarray"])
def test_non_tensor_operands(op: str, value: Any, device: wia.Device) -> None:
    """Neither a tensor nor a number: ``INVALID_VALUE`` (a Python or NumPy number is an operand of the binary ops, an
    extension of the binding documented in docs/ops.md, "Beyond the spec")."""
    t = wia.zeros((3,))
    args = (value,) if op == "relu" else (t, value)
    ph.assert_raises_code(E.INVALID_VALUE, getattr(wia, op), *args)


_AFTER_RELEASE: list[tuple[str, Callable[[wia.Tensor, wia.Tensor], Any]]] = [
    ("add-first", lambda r, ok: wia.add(r, ok)),
    ("add-second", lambda r, ok: wia.add(ok, r)),
    ("mul", lambda r, ok: wia.mul(r, ok)),
    ("relu", lambda r, ok: wia.relu(r)),
    ("numpy", lambda r, ok: r.numpy()),
    ("release_tensor", lambda r, ok: wia.release_tensor(r)),
]


@pytest.mark.req("R-3.7-05")
@pytest.mark.parametrize("use", [u for _, u in _AFTER_RELEASE], ids=[n for n, _ in _AFTER_RELEASE])
def test_released_tensor_is_invalid_value(use: Callable[[wia.Tensor, wia.Tensor], Any], device: wia.Device) -> None:
    released = wia.tensor(np.ones((2, 2), np.float32))
    ok = wia.tensor(np.ones((2, 2), np.float32))
    wia.release_tensor(released)
    ph.assert_raises_code(E.INVALID_VALUE, use, released, ok)


@pytest.mark.req("R-3.7-05")
def test_release_frees_memory(ctx: wia.Context) -> None:
    wia.context_set_memory_limit(ctx, 256 * hh.KiB)
    for _ in range(8):  # 8 x 128 KiB only fits if each release gives the memory back
        t = wia.zeros((128 * hh.KiB // 4,), wia.float32, ctx=ctx)
        wia.release_tensor(t)
    out = wia.relu(wia.zeros((16,), ctx=ctx))
    wia.release_tensor(out)


# -- R-3.7-01: gelu and sigmoid -------------------------------------------------------------------------------------

FLOAT_DTYPES: tuple[np.dtype[Any], ...] = tuple(
    d for d in hh.ALL_DTYPES if d.name in ("float32", "float16", "bfloat16", "float64")
)


@pytest.fixture(params=FLOAT_DTYPES, ids=[d.name for d in FLOAT_DTYPES])
def float_dtype(request: pytest.FixtureRequest, device: wia.Device) -> np.dtype[Any]:
    """Each floating-point WIA data type (gelu, sigmoid and softmax take only these)."""
    d: np.dtype[Any] = request.param
    ph.requires_dtype(d)
    return d


@pytest.mark.req("R-3.7-01")
@pytest.mark.parametrize("approximate", ["none", "tanh"])
@hh.suite_settings()
@given(shape=hh.shapes(), data=st.data())
def test_gelu(
    float_dtype: np.dtype[Any], approximate: str, shape: Shape, data: st.DataObject, ctx: wia.Context
) -> None:
    x = data.draw(hh.arrays(float_dtype, shape), label="x")
    got = wia.gelu(wia.tensor(x, ctx=ctx), approximate=approximate)
    call = f"gelu({_describe(x)}, approximate={approximate!r})"
    ph.assert_equal(got.shape, shape, f"{call}.shape")
    x64 = x.astype(np.float64)
    expected = ph.round_to(ph.gelu_reference(x64, approximate), float_dtype)
    ph.assert_array_close(
        got.numpy(), expected, float_dtype, call, slack=ph.transcendental_slack(float_dtype, x64, "gelu")
    )


@pytest.mark.req("R-3.7-01")
@hh.suite_settings()
@given(shape=hh.shapes(), data=st.data())
def test_sigmoid(float_dtype: np.dtype[Any], shape: Shape, data: st.DataObject, ctx: wia.Context) -> None:
    x = data.draw(hh.arrays(float_dtype, shape), label="x")
    got = wia.sigmoid(wia.tensor(x, ctx=ctx))
    call = f"sigmoid({_describe(x)})"
    ph.assert_equal(got.shape, shape, f"{call}.shape")
    x64 = x.astype(np.float64)
    expected = ph.round_to(ph.sigmoid_reference(x64), float_dtype)
    ph.assert_array_close(
        got.numpy(), expected, float_dtype, call, slack=ph.transcendental_slack(float_dtype, x64, "sigmoid")
    )


def _extremes(dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    m = hh.MAGNITUDE[dtype.name]
    return np.array([-m, -m / 2, -30.0, -1.0, -0.0, 0.0, 1.0, 30.0, m / 2, m]).astype(dtype)


@pytest.mark.req("R-3.7-01")
@pytest.mark.parametrize("op", ["gelu-none", "gelu-tanh", "sigmoid"])
def test_gelu_and_sigmoid_at_large_inputs(float_dtype: np.dtype[Any], op: str) -> None:
    x = _extremes(float_dtype)
    x64 = x.astype(np.float64)
    if op == "sigmoid":
        got, ref, call = wia.sigmoid(wia.tensor(x)), ph.sigmoid_reference(x64), f"sigmoid({fmt(x)})"
    else:
        form = op.split("-")[1]
        got, ref = wia.gelu(wia.tensor(x), approximate=form), ph.gelu_reference(x64, form)
        call = f"gelu({fmt(x)}, approximate={form!r})"
    values = got.numpy()
    ph.assert_true(
        bool(np.isfinite(values.astype(np.float64)).all()), values, "finite values (no overflow to inf or NaN)", call
    )
    slack = ph.transcendental_slack(float_dtype, x64, op.split("-")[0])
    ph.assert_array_close(values, ph.round_to(ref, float_dtype), float_dtype, call, slack=slack)


@pytest.mark.req("R-3.7-01")
def test_gelu_default_is_the_erf_form(device: wia.Device) -> None:
    x = np.linspace(-3, 3, 13, dtype=np.float32)
    x64 = x.astype(np.float64)
    f32 = np.dtype(np.float32)
    expected = ph.round_to(ph.gelu_reference(x64, "none"), f32)
    got = wia.gelu(wia.tensor(x)).numpy()
    ph.assert_array_close(
        got, expected, f32, "gelu(x) (default: the erf form)", slack=ph.transcendental_slack(f32, x64, "gelu")
    )


@pytest.mark.req("R-3.7-01")
@pytest.mark.parametrize("approximate", ["fast", "", None, True], ids=["fast", "empty", "None", "True"])
def test_gelu_unknown_form(approximate: Any, device: wia.Device) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, wia.gelu, wia.zeros((3,)), approximate=approximate)


@pytest.mark.req("R-3.7-01", "R-3.7-02")
@pytest.mark.parametrize("op", ["gelu", "sigmoid", "softmax"])
@pytest.mark.parametrize("dtype_name", ["int32", "int8", "bool"])
def test_float_only_ops_reject_other_types(op: str, dtype_name: str, caps: wia.DeviceCapabilities) -> None:
    dtype = np.dtype(getattr(wia, "bool_" if dtype_name == "bool" else dtype_name))
    ph.requires_dtype(dtype, caps)
    t = wia.zeros((2, 3), dtype)
    error = ph.assert_raises_code(E.INVALID_VALUE, getattr(wia, op), t)
    ph.assert_message_mentions(error, [[dtype.name]], f"{op}({dtype.name} (2, 3))")


# -- R-3.7-02: sum, max, softmax ------------------------------------------------------------------------------------


def _reduced_axes(axis: int | tuple[int, ...] | None, ndim: int) -> tuple[int, ...]:
    if axis is None:
        return tuple(range(ndim))
    items = (axis,) if isinstance(axis, int) else axis
    return tuple(a % ndim for a in items)


def _sum_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """``sum`` of int8, int32 and bool gives int32 (the API's documented accumulator); other types keep theirs."""
    return np.dtype(np.int32) if dtype.kind in "iub" else dtype


@pytest.mark.req("R-3.7-02")
@hh.suite_settings()
@given(shape=hh.shapes(), data=st.data())
def test_sum(dtype: np.dtype[Any], shape: Shape, data: st.DataObject, ctx: wia.Context) -> None:
    x = data.draw(hh.arrays(dtype, shape), label="x")
    axis = data.draw(hh.reduction_axes(len(shape)), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    got = wia.sum(wia.tensor(x, ctx=ctx), axis, keepdims=keepdims)
    call = f"sum({_describe(x)}, axis={axis!r}, keepdims={keepdims})"
    x64 = x.astype(np.float64)
    ref = np.asarray(np.sum(x64, axis=axis, keepdims=keepdims))
    ph.assert_equal(got.shape, ref.shape, f"{call}.shape")
    result = _sum_dtype(dtype)
    terms = math.prod(shape[a] for a in _reduced_axes(axis, len(shape)))
    magnitude = np.sum(np.abs(x64), axis=axis, keepdims=keepdims)
    ph.assert_reduction_close(got.numpy(), ph.round_to(ref, result), result, call, magnitude=magnitude, terms=terms)


@pytest.mark.req("R-3.7-02")
@pytest.mark.parametrize("name", ["int8", "bool_"])
def test_sum_of_small_integers_accumulates_in_int32(name: str, ctx: wia.Context) -> None:
    """The binding's accumulator for int8 and bool is int32: sums past the input type's range are exact (the
    random tests' values are too small to leave int8's range). int32 sums wrap."""
    dtype = np.dtype(getattr(wia, name))
    ph.requires_dtype(dtype)
    rng = np.random.default_rng(7)
    if dtype.kind == "b":
        x = np.ones((3, 300), bool)
        x[1, rng.integers(0, 300, 40)] = False
    else:
        x = rng.integers(60, 128, size=(3, 300)).astype(np.int8)
        x[2] = -x[2]
    expected = x.astype(np.int64).sum(axis=1)
    got = wia.sum(wia.tensor(x, ctx=ctx), 1)
    call = f"sum({_describe(x)}, axis=1)"
    ph.assert_equal(np.dtype(got.dtype), np.dtype(np.int32), f"{call}.dtype")
    ph.assert_array_equal(got.numpy(), expected.astype(np.int32), call)
    big = np.full(4, 2**30, np.int32)
    wrapped = wia.sum(wia.tensor(big, ctx=ctx)).numpy()
    ph.assert_array_equal(wrapped, np.asarray(big.astype(np.int64).sum()).astype(np.int32), "sum(4 x 2**30, int32)")


@pytest.mark.req("R-3.7-02")
@hh.suite_settings()
@given(shape=hh.shapes(), data=st.data())
def test_max(dtype: np.dtype[Any], shape: Shape, data: st.DataObject, ctx: wia.Context) -> None:
    x = data.draw(hh.arrays(dtype, shape), label="x")
    axis = data.draw(hh.reduction_axes(len(shape)), label="axis")
    keepdims = data.draw(st.booleans(), label="keepdims")
    t = wia.tensor(x, ctx=ctx)
    call = f"max({_describe(x)}, axis={axis!r}, keepdims={keepdims})"
    if any(shape[a] == 0 for a in _reduced_axes(axis, len(shape))):
        ph.assert_raises_code(E.INVALID_VALUE, wia.max, t, axis, keepdims=keepdims)  # no identity for max
        return
    got = wia.max(t, axis, keepdims=keepdims)
    ref = ph.round_to(np.asarray(np.max(x.astype(np.float64), axis=axis, keepdims=keepdims)), dtype)
    ph.assert_equal(got.shape, ref.shape, f"{call}.shape")
    ph.assert_array_equal(got.numpy(), ref, call)


def _check_softmax(got: wia.Tensor, x: npt.NDArray[Any], axis: int, dtype: np.dtype[Any], call: str) -> None:
    __tracebackhide__ = True
    ref, slack = ph.softmax_reference(x, axis, dtype)
    values = got.numpy()
    ph.assert_array_close(values, ph.round_to(ref, dtype), dtype, call, slack=slack)
    if values.size == 0:
        return
    tol = ph.TOLERANCES[dtype.name]
    sums = np.sum(values.astype(np.float64), axis=axis)
    allowed = tol.rtol + np.sum(slack, axis=axis) + x.shape[axis] * (tol.atol + tol.tiny)
    worst = int(np.argmax(np.abs(sums - 1) - allowed))
    ph.assert_true(
        bool((np.abs(sums - 1) <= allowed).all()),
        f"a row summing to {sums.reshape(-1)[worst]!r}",
        f"rows that sum to 1 within {allowed.reshape(-1)[worst]:.3g}",
        call,
    )


@pytest.mark.req("R-3.7-02")
@hh.suite_settings()
@given(shape=hh.shapes(min_dims=1), data=st.data())
def test_softmax(float_dtype: np.dtype[Any], shape: Shape, data: st.DataObject, ctx: wia.Context) -> None:
    x = data.draw(hh.arrays(float_dtype, shape), label="x")
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    got = wia.softmax(wia.tensor(x, ctx=ctx), axis)
    call = f"softmax({_describe(x)}, axis={axis})"
    ph.assert_equal(got.shape, shape, f"{call}.shape")
    _check_softmax(got, x, axis, float_dtype, call)


@pytest.mark.req("R-3.7-02")
def test_softmax_default_axis_is_the_last(device: wia.Device) -> None:
    x = np.arange(12, dtype=np.float32).reshape(3, 4) / 4
    _check_softmax(wia.softmax(wia.tensor(x)), x, -1, np.dtype(np.float32), "softmax(float32 (3, 4))")


@pytest.mark.req("R-3.7-02")
@pytest.mark.parametrize("sign", [1, -1], ids=["large", "large-negative"])
def test_softmax_is_stable_for_large_inputs(float_dtype: np.dtype[Any], sign: int) -> None:
    m = hh.MAGNITUDE[float_dtype.name]
    x = np.stack([sign * m - np.arange(8.0) * 4, np.full(8, sign * m)]).astype(float_dtype)
    got = wia.softmax(wia.tensor(x), axis=-1)
    call = f"softmax({fmt(x)}, axis=-1)"
    values = got.numpy()
    ph.assert_true(
        bool(np.isfinite(values.astype(np.float64)).all()), values, "finite values (exp(x - max), no overflow)", call
    )
    _check_softmax(got, x, -1, float_dtype, call)


_BAD_AXES: list[tuple[str, str, Any]] = [
    ("sum-too-large", "sum", 2),
    ("sum-too-negative", "sum", -3),
    ("sum-repeated", "sum", (0, -2)),
    ("sum-float", "sum", 1.0),
    ("sum-str", "sum", "0"),
    ("max-too-large", "max", 2),
    ("max-repeated", "max", (1, 1)),
    ("softmax-too-large", "softmax", 2),
    ("softmax-too-negative", "softmax", -3),
    ("softmax-tuple", "softmax", (0, 1)),
    ("softmax-None", "softmax", None),
]


@pytest.mark.req("R-3.7-02")
@pytest.mark.parametrize(("op", "axis"), [(o, a) for _, o, a in _BAD_AXES], ids=[n for n, _, _ in _BAD_AXES])
def test_reduction_invalid_axis(op: str, axis: Any, device: wia.Device) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, getattr(wia, op), wia.zeros((2, 3)), axis)


@pytest.mark.req("R-3.7-02")
def test_softmax_of_a_0d_tensor(device: wia.Device) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, wia.softmax, wia.tensor(np.float32(1.0)))


# -- R-3.7-03: reshape, transpose, concat, slice --------------------------------------------------------------------


@pytest.mark.req("R-3.7-03")
@hh.suite_settings()
@given(shape=hh.shapes(), data=st.data())
def test_reshape(dtype: np.dtype[Any], shape: Shape, data: st.DataObject, ctx: wia.Context) -> None:
    x = data.draw(hh.arrays(dtype, shape), label="x")
    target = data.draw(hh.reshape_targets(shape), label="shape")
    got = wia.reshape(wia.tensor(x, ctx=ctx), target)
    expected = x.reshape(target)
    call = f"reshape({_describe(x)}, {target})"
    ph.assert_equal(got.shape, expected.shape, f"{call}.shape")
    ph.assert_array_equal(got.numpy(), expected, call)


@pytest.mark.req("R-3.7-03")
@hh.suite_settings()
@given(shape=hh.shapes(), data=st.data())
def test_transpose(dtype: np.dtype[Any], shape: Shape, data: st.DataObject, ctx: wia.Context) -> None:
    x = data.draw(hh.arrays(dtype, shape), label="x")
    perm = data.draw(st.none() | st.permutations(range(len(shape))).map(tuple), label="perm")
    view = wia.transpose(wia.tensor(x, ctx=ctx), perm)
    expected = np.transpose(x, perm)
    call = f"transpose({_describe(x)}, {perm})"
    ph.assert_equal(view.shape, expected.shape, f"{call}.shape")
    ph.assert_array_equal(view.numpy(), expected, call)
    # ops read the permuted layout, not the original one
    ph.assert_array_close(
        wia.mul(view, view).numpy(), reference("mul", dtype, expected, expected), dtype, f"mul(t, t) of t = {call}"
    )


@pytest.mark.req("R-3.7-03")
@hh.suite_settings()
@given(shape=hh.shapes(min_dims=1), data=st.data())
def test_slice(dtype: np.dtype[Any], shape: Shape, data: st.DataObject, ctx: wia.Context) -> None:
    x = data.draw(hh.arrays(dtype, shape), label="x")
    start, end = data.draw(hh.slice_bounds(shape), label="start, end")
    view = wia.slice(wia.tensor(x, ctx=ctx), start, end)
    expected = x[tuple(builtins.slice(lo, hi) for lo, hi in zip(start, end, strict=True))]
    call = f"slice({_describe(x)}, {start}, {end})"
    ph.assert_equal(view.shape, expected.shape, f"{call}.shape")
    ph.assert_array_equal(view.numpy(), expected, call)
    ph.assert_array_close(
        wia.mul(view, view).numpy(), reference("mul", dtype, expected, expected), dtype, f"mul(t, t) of t = {call}"
    )


@pytest.mark.req("R-3.7-03")
@hh.suite_settings()
@given(case=hh.concat_cases(), data=st.data())
def test_concat(dtype: np.dtype[Any], case: tuple[list[Shape], int], data: st.DataObject, ctx: wia.Context) -> None:
    shapes, axis = case
    parts = [data.draw(hh.arrays(dtype, s), label=f"part {i}") for i, s in enumerate(shapes)]
    got = wia.concat([wia.tensor(p, ctx=ctx) for p in parts], axis)
    expected = np.concatenate(parts, axis=axis)
    call = f"concat([{_describe(*parts)}], axis={axis})"
    ph.assert_equal(got.shape, expected.shape, f"{call}.shape")
    ph.assert_array_equal(got.numpy(), expected, call)


@pytest.mark.req("R-3.7-03")
def test_layout_ops_compose(device: wia.Device) -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    t = wia.tensor(x)
    steps = wia.reshape(wia.slice(wia.transpose(t, (2, 0, 1)), [1, 0], [-1, 2]), (-1, 3))
    expected = np.transpose(x, (2, 0, 1))[1:-1, 0:2].reshape(-1, 3)
    ph.assert_array_equal(steps.numpy(), expected, "reshape(slice(transpose(x, (2, 0, 1)), [1, 0], [-1, 2]), (-1, 3))")
    joined = wia.concat([steps, steps], axis=0)
    ph.assert_array_equal(joined.numpy(), np.concatenate([expected, expected]), "concat of two views")


_EMPTY_SLICES: list[tuple[str, Shape, list[int], list[int]]] = [
    ("rows-of-nothing", (2, 0), [1], [2]),
    ("no-rows", (0, 3), [0, 2], [0, 3]),
    ("end-before-start", (3, 4), [2, 1], [1, 3]),
    ("past-the-end", (3, 4), [5], [7]),
]


@pytest.mark.req("R-3.7-03", "R-3.7-01", "R-3.7-02")
@pytest.mark.parametrize(
    ("shape", "start", "end"), [(sh, a, b) for _, sh, a, b in _EMPTY_SLICES], ids=[n for n, *_ in _EMPTY_SLICES]
)
def test_ops_on_an_empty_slice(shape: Shape, start: list[int], end: list[int], ctx: wia.Context) -> None:
    """A slice with no elements is an empty view, and ops on it give empty results (NumPy's rules)."""
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    view = wia.slice(wia.tensor(x, ctx=ctx), start, end)
    expected = x[tuple(builtins.slice(lo, hi) for lo, hi in zip(start, end, strict=True))]
    call = f"slice(float32 {shape}, {start}, {end})"
    ph.assert_equal(view.shape, expected.shape, f"{call}.shape")
    ph.assert_array_equal(view.numpy(), expected, call)
    ph.assert_array_equal(wia.mul(view, view).numpy(), expected * expected, f"mul(v, v) of v = {call}")
    ph.assert_array_equal(wia.relu(view).numpy(), expected, f"relu(v) of v = {call}")
    ph.assert_array_equal(wia.sum(view, 0).numpy(), expected.sum(axis=0), f"sum(v, 0) of v = {call}")
    ph.assert_array_equal(
        wia.concat([view, view]).numpy(), np.concatenate([expected] * 2), f"concat([v, v]) of v = {call}"
    )


def _layout_error(fn: Callable[..., Any], *args: Any, mentions: Sequence[Sequence[str]] = (), **kwargs: Any) -> None:
    __tracebackhide__ = True
    error = ph.assert_raises_code(E.INVALID_VALUE, fn, *args, **kwargs)
    if mentions:
        ph.assert_message_mentions(error, mentions, ph.call_repr(fn, *args, **kwargs))


@pytest.mark.req("R-3.7-03")
def test_reshape_invalid(device: wia.Device) -> None:
    t = wia.zeros((2, 3))
    _layout_error(wia.reshape, t, (4,), mentions=[ph.shape_spellings((2, 3)), ph.shape_spellings((4,))])
    _layout_error(wia.reshape, t, (4, -1), mentions=[ph.shape_spellings((2, 3)), ph.shape_spellings((4, -1))])
    _layout_error(wia.reshape, t, (-1, -1))
    _layout_error(wia.reshape, t, (-2, -3))
    _layout_error(wia.reshape, t, (2.0, 3))
    _layout_error(wia.reshape, t, "6")
    _layout_error(wia.reshape, t, None)


@pytest.mark.req("R-3.7-03")
@pytest.mark.parametrize("perm", [(0,), (0, 0), (0, 2), (1, 0, 2), (0.0, 1.0), "10"], ids=str)
def test_transpose_invalid(perm: Any, device: wia.Device) -> None:
    _layout_error(wia.transpose, wia.zeros((2, 3)), perm)


@pytest.mark.req("R-3.7-03")
@pytest.mark.parametrize(
    ("start", "end"),
    [([0], [1, 2]), ([0, 0, 0], [1, 1, 1]), ([0.5], [1]), (None, [1]), ([0], "1")],
    ids=["lengths-differ", "too-many-dims", "float", "None", "str"],
)
def test_slice_invalid(start: Any, end: Any, device: wia.Device) -> None:
    _layout_error(wia.slice, wia.zeros((2, 3)), start, end)


@pytest.mark.req("R-3.7-03")
def test_concat_invalid(caps: wia.DeviceCapabilities) -> None:
    a, b = wia.zeros((2, 3)), wia.zeros((2, 4))
    _layout_error(wia.concat, [a, b], 0, mentions=[ph.shape_spellings((2, 3)), ph.shape_spellings((2, 4))])
    _layout_error(wia.concat, [a, wia.zeros((2, 3, 1))], 0)
    _layout_error(wia.concat, [a, a], 2)
    _layout_error(wia.concat, [a, a], -3)
    _layout_error(wia.concat, [], 0)
    _layout_error(wia.concat, [a, np.zeros((2, 3), np.float32)], 0)
    _layout_error(wia.concat, a, 0)
    scalar = wia.tensor(np.float32(1))
    _layout_error(wia.concat, [scalar, scalar], 0)
    other = np.dtype(wia.int32)
    _layout_error(wia.concat, [a, wia.zeros((2, 3), other)], 0, mentions=[["float32"], [other.name]])


# -- R-3.7-04: matmul and batch_matmul ------------------------------------------------------------------------------

MATRIX_DTYPES: tuple[np.dtype[Any], ...] = tuple(d for d in hh.ALL_DTYPES if d.name in ph.DEFAULT_PRECISION)


@pytest.fixture(params=MATRIX_DTYPES, ids=[d.name for d in MATRIX_DTYPES])
def matrix_dtype(request: pytest.FixtureRequest, info: wia.DeviceInfo) -> np.dtype[Any]:
    """Each data type with a matrix arithmetic; not supported unless the device claims the type and lists its
    arithmetic in ``peak_flops_by_precision`` (and then matmul must raise NOT_SUPPORTED)."""
    d: np.dtype[Any] = request.param
    ph.requires_matrix_arithmetic(d, info)
    return d


@pytest.mark.req("R-3.7-04")
@hh.suite_settings()
@given(shapes=hh.matmul_shape_pairs(), data=st.data())
def test_matmul(
    matrix_dtype: np.dtype[Any], shapes: tuple[Shape, Shape], data: st.DataObject, ctx: wia.Context
) -> None:
    a = data.draw(hh.operands(matrix_dtype, shapes[0]), label="a")
    b = data.draw(hh.operands(matrix_dtype, shapes[1]), label="b")
    ph.assert_matmul_close(
        wia.matmul(wia.tensor(a, ctx=ctx), wia.tensor(b, ctx=ctx)), a, b, f"matmul({_describe(a, b)})"
    )


@pytest.mark.req("R-3.7-04")
@hh.suite_settings()
@given(sides=st.tuples(*[st.integers(0, 4)] * 3, st.integers(0, 8)), data=st.data())
def test_batch_matmul(
    matrix_dtype: np.dtype[Any], sides: tuple[int, int, int, int], data: st.DataObject, ctx: wia.Context
) -> None:
    batch, m, n, k = sides
    a = data.draw(hh.operands(matrix_dtype, (batch, m, k)), label="a")
    b = data.draw(hh.operands(matrix_dtype, (batch, k, n)), label="b")
    ph.assert_matmul_close(
        wia.batch_matmul(wia.tensor(a, ctx=ctx), wia.tensor(b, ctx=ctx)), a, b, f"batch_matmul({_describe(a, b)})"
    )


@pytest.mark.req("R-3.7-04")
@pytest.mark.parametrize("dtype_name", ["int32", "bool"])
def test_matmul_without_matrix_arithmetic(dtype_name: str, caps: wia.DeviceCapabilities) -> None:
    """int32 and bool have no matrix arithmetic in the binding (``wia.MatmulConfig``): ``matmul`` raises
    INVALID_VALUE (or NOT_SUPPORTED); a backend that computes it anyway must be exact."""
    dtype = np.dtype(getattr(wia, "bool_" if dtype_name == "bool" else dtype_name))
    ph.requires_dtype(dtype, caps)
    a = (np.arange(6).reshape(2, 3) % 3).astype(dtype)
    b = (np.arange(12).reshape(3, 4) % 2).astype(dtype)
    call = f"matmul({_describe(a, b)})"
    try:
        got = wia.matmul(wia.tensor(a), wia.tensor(b))
    except wia.WiaError as e:
        ph.assert_true(
            e.code in (E.INVALID_VALUE, E.NOT_SUPPORTED), e, "INVALID_VALUE or NOT_SUPPORTED (or a result)", call
        )
        return
    exact = np.matmul(a.astype(np.int64), b.astype(np.int64))
    expected = (exact != 0) if dtype_name == "bool" else exact.astype(np.int32)
    ph.assert_array_equal(got.numpy(), np.asarray(expected), call)


_MATMUL_SHAPE_ERRORS: list[tuple[str, str, Shape, Shape]] = [
    ("inner", "matmul", (2, 3), (4, 5)),
    ("inner-1d", "matmul", (3,), (4,)),
    ("inner-batched", "matmul", (2, 2, 3), (2, 4, 3)),
    ("batch-broadcast", "matmul", (2, 3, 4), (3, 4, 5)),
    ("batch-sizes", "batch_matmul", (2, 3, 4), (3, 4, 5)),
    ("batch-2d", "batch_matmul", (3, 4), (4, 5)),
    ("batch-inner", "batch_matmul", (2, 3, 4), (2, 5, 6)),
]


@pytest.mark.req("R-3.7-04")
@pytest.mark.parametrize(
    ("op", "sa", "sb"), [(o, a, b) for _, o, a, b in _MATMUL_SHAPE_ERRORS], ids=[n for n, *_ in _MATMUL_SHAPE_ERRORS]
)
def test_matmul_shape_mismatch(op: str, sa: Shape, sb: Shape, device: wia.Device) -> None:
    error = ph.assert_raises_code(E.INVALID_VALUE, getattr(wia, op), wia.zeros(sa), wia.zeros(sb))
    ph.assert_message_mentions(
        error, [ph.shape_spellings(sa), ph.shape_spellings(sb)], f"{op}(float32 {sa}, float32 {sb})"
    )


@pytest.mark.req("R-3.7-04")
@pytest.mark.parametrize("op", ["matmul", "batch_matmul"])
def test_matmul_of_0d_or_non_tensors(op: str, device: wia.Device) -> None:
    fn = getattr(wia, op)
    t = wia.zeros((2, 2, 2))
    ph.assert_raises_code(E.INVALID_VALUE, fn, wia.tensor(np.float32(2)), t)
    ph.assert_raises_code(E.INVALID_VALUE, fn, t, np.ones((2, 2, 2), np.float32))
    ph.assert_raises_code(E.INVALID_VALUE, fn, None, t)


_PAIR_OPS: dict[str, tuple[Shape, Callable[[wia.Tensor, wia.Tensor], Any]]] = {
    "matmul": ((3, 3), lambda a, b: wia.matmul(a, b)),
    "batch_matmul": ((2, 3, 3), lambda a, b: wia.batch_matmul(a, b)),
    "concat": ((2, 3), lambda a, b: wia.concat([a, b], 0)),
}


@pytest.mark.req("R-3.7-03", "R-3.7-04")
@pytest.mark.parametrize("op", list(_PAIR_OPS))
def test_dtype_mismatch_names_both_dtypes(op: str, caps: wia.DeviceCapabilities) -> None:
    shape, fn = _PAIR_OPS[op]
    claimed = ph.claimed_dtypes(caps)
    for first in claimed:
        for second in claimed:
            if first == second:
                continue
            a, b = wia.zeros(shape, first), wia.zeros(shape, second)
            call = f"{op}({first.name} {shape}, {second.name} {shape})"
            error = ph.assert_raises_code(E.INVALID_VALUE, fn, a, b)
            ph.assert_message_mentions(error, [[first.name], [second.name]], call)


# -- R-3.7-05: every op refuses a released tensor and views of one ---------------------------------------------------

_RELEASED_IN: list[tuple[str, Shape, Callable[[wia.Tensor, wia.Tensor], Any]]] = [
    ("gelu", (2, 2), lambda r, ok: wia.gelu(r)),
    ("sigmoid", (2, 2), lambda r, ok: wia.sigmoid(r)),
    ("sum", (2, 2), lambda r, ok: wia.sum(r)),
    ("max", (2, 2), lambda r, ok: wia.max(r, 0)),
    ("softmax", (2, 2), lambda r, ok: wia.softmax(r)),
    ("reshape", (2, 2), lambda r, ok: wia.reshape(r, (4,))),
    ("transpose", (2, 2), lambda r, ok: wia.transpose(r)),
    ("slice", (2, 2), lambda r, ok: wia.slice(r, [0], [1])),
    ("concat-first", (2, 2), lambda r, ok: wia.concat([r, ok])),
    ("concat-second", (2, 2), lambda r, ok: wia.concat([ok, r])),
    ("matmul-first", (2, 2), lambda r, ok: wia.matmul(r, ok)),
    ("matmul-second", (2, 2), lambda r, ok: wia.matmul(ok, r)),
    ("batch_matmul-first", (1, 2, 2), lambda r, ok: wia.batch_matmul(r, ok)),
    ("batch_matmul-second", (1, 2, 2), lambda r, ok: wia.batch_matmul(ok, r)),
]


@pytest.mark.req("R-3.7-05")
@pytest.mark.parametrize(("shape", "use"), [(s, u) for _, s, u in _RELEASED_IN], ids=[n for n, _, _ in _RELEASED_IN])
def test_every_op_refuses_a_released_tensor(
    shape: Shape, use: Callable[[wia.Tensor, wia.Tensor], Any], device: wia.Device
) -> None:
    released = wia.tensor(np.ones(shape, np.float32))
    ok = wia.tensor(np.ones(shape, np.float32))
    wia.release_tensor(released)
    ph.assert_raises_code(E.INVALID_VALUE, use, released, ok)


_VIEWS: dict[str, Callable[[wia.Tensor], wia.Tensor]] = {
    "reshape": lambda t: wia.reshape(t, (-1,)),
    "transpose": lambda t: wia.transpose(t),
    "slice": lambda t: wia.slice(t, [1], [3]),
}

_VIEW_USES: list[tuple[str, Callable[[wia.Tensor], Any]]] = [
    ("numpy", lambda v: v.numpy()),
    ("relu", lambda v: wia.relu(v)),
    ("add", lambda v: wia.add(v, v)),
    ("sum", lambda v: wia.sum(v)),
    ("reshape", lambda v: wia.reshape(v, (-1,))),
    ("concat", lambda v: wia.concat([v, v])),
    ("release_tensor", lambda v: wia.release_tensor(v)),
]


@pytest.mark.req("R-3.7-05")
@pytest.mark.parametrize("view", list(_VIEWS))
def test_views_of_a_released_tensor_are_invalid_value(view: str, device: wia.Device) -> None:
    base = wia.tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    v = _VIEWS[view](base)
    wia.release_tensor(base)
    for _, use in _VIEW_USES:
        ph.assert_raises_code(E.INVALID_VALUE, use, v)


@pytest.mark.req("R-3.7-05")
@pytest.mark.parametrize("view", list(_VIEWS))
def test_releasing_a_view_leaves_its_base(view: str, device: wia.Device) -> None:
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    base = wia.tensor(x)
    v = _VIEWS[view](base)
    wia.release_tensor(v)
    ph.assert_raises_code(E.INVALID_VALUE, lambda: v.numpy())
    ph.assert_array_equal(base.numpy(), x, f"the base after release_tensor of its {view} view")
    ph.assert_array_equal(wia.relu(base).numpy(), x, f"relu(base) after release_tensor of its {view} view")
