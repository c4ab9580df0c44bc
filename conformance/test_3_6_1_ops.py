"""SPEC 3.6.1: the high-level operation library: ``matmul`` with and without a context (R-3.6.1-01), ``conv2d``
with ``ConvConfig`` (padding, stride, dilation, groups, bias, algorithm) on NCHW input and OIHW weight
(R-3.6.1-02), ``relu``, inference ``batch_norm`` and ``pool2d`` (R-3.6.1-03), against direct float64 references
(``ph.conv2d_reference``, ``ph.pool2d_reference``) with the tolerances of ``ph.assert_reduction_close``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

import wia_hal as wia
from conformance import assertions as ph
from conformance import strategies as hh
from conformance.conftest import ContextFactory

E = wia.ErrorCode
F32 = np.dtype(np.float32)
Shape = tuple[int, ...]

FLOAT_DTYPES: tuple[np.dtype[Any], ...] = tuple(
    d for d in hh.ALL_DTYPES if d.name in ("float32", "float16", "bfloat16", "float64")
)
MATRIX_DTYPES: tuple[np.dtype[Any], ...] = tuple(d for d in hh.ALL_DTYPES if d.name in ph.DEFAULT_PRECISION)
NUMERIC_DTYPES: tuple[np.dtype[Any], ...] = tuple(d for d in hh.ALL_DTYPES if d.name != "bool")


def _describe(*arrays: npt.NDArray[Any]) -> str:
    return ", ".join(f"{a.dtype.name} {a.shape}" for a in arrays)


@pytest.fixture(params=MATRIX_DTYPES, ids=[d.name for d in MATRIX_DTYPES])
def matrix_dtype(request: pytest.FixtureRequest, info: wia.DeviceInfo) -> np.dtype[Any]:
    """Each data type with a matrix arithmetic (conv2d and matmul take these); not supported unless the device
    claims the type and lists its arithmetic (and then the op must raise NOT_SUPPORTED)."""
    d: np.dtype[Any] = request.param
    ph.requires_matrix_arithmetic(d, info)
    return d


@pytest.fixture(params=FLOAT_DTYPES, ids=[d.name for d in FLOAT_DTYPES])
def float_dtype(request: pytest.FixtureRequest, device: wia.Device) -> np.dtype[Any]:
    d: np.dtype[Any] = request.param
    ph.requires_dtype(d)
    return d


@pytest.fixture(params=NUMERIC_DTYPES, ids=[d.name for d in NUMERIC_DTYPES])
def numeric_dtype(request: pytest.FixtureRequest, device: wia.Device) -> np.dtype[Any]:
    d: np.dtype[Any] = request.param
    ph.requires_dtype(d)
    return d


def _uniform(rng: np.random.Generator, shape: Shape, dtype: np.dtype[Any] = F32) -> npt.NDArray[Any]:
    """Values in [-1, 1] (int8: [-11, 11]) as ``dtype``."""
    if dtype.kind in "iu":
        return rng.integers(-11, 12, size=shape).astype(dtype)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


# -- R-3.6.1-01: matmul, with and without a context -----------------------------------------------------------------

MATMUL_SHAPES: list[tuple[Shape, Shape]] = [
    ((1, 1), (1, 1)),
    ((17, 33), (33, 9)),
    ((65, 130), (130, 70)),  # tail tiles of 64 and 128
    ((8, 1024), (1024, 8)),  # few output tiles, long K: where splitting K pays
    ((300, 16), (16, 260)),  # many tiles, short K
    ((3, 40, 24), (24, 50)),  # a batch of products sharing B
    ((40,), (40, 7)),
]
_SHAPE_IDS = [f"{a}@{b}" for a, b in MATMUL_SHAPES]


@pytest.mark.req("R-3.6.1-01", "R-3.1-04")
@pytest.mark.parametrize(("sa", "sb"), MATMUL_SHAPES, ids=_SHAPE_IDS)
def test_matmul_without_context(sa: Shape, sb: Shape, device: wia.Device) -> None:
    rng = np.random.default_rng(sum(sa) * 31 + sum(sb))
    a, b = _uniform(rng, sa), _uniform(rng, sb)
    got = wia.matmul(wia.tensor(a), wia.tensor(b))
    call = f"matmul({_describe(a, b)})"
    ph.assert_true(got.context is wia.get_default_context(), got.context, "the default context", f"{call}.context")
    ph.assert_matmul_close(got, a, b, call)


@pytest.mark.req("R-3.6.1-01")
@pytest.mark.parametrize("how", ["keyword", "positional"])
@pytest.mark.parametrize(("sa", "sb"), MATMUL_SHAPES, ids=_SHAPE_IDS)
def test_matmul_with_context(how: str, sa: Shape, sb: Shape, ctx: wia.Context) -> None:
    rng = np.random.default_rng(sum(sa) * 17 + sum(sb))
    a, b = _uniform(rng, sa), _uniform(rng, sb)
    ta, tb = wia.tensor(a, ctx=ctx), wia.tensor(b, ctx=ctx)
    got = wia.matmul(ta, tb, ctx=ctx) if how == "keyword" else wia.matmul(ta, tb, ctx)
    call = f"matmul({_describe(a, b)}, {'ctx=ctx' if how == 'keyword' else 'ctx'})"
    ph.assert_true(got.context is ctx, got.context, "ctx", f"{call}.context")
    ph.assert_matmul_close(got, a, b, call)


@pytest.mark.req("R-3.6.1-01")
def test_matmul_of_another_context(new_context: ContextFactory) -> None:
    a, b = new_context(), new_context()
    ta = wia.tensor(np.ones((2, 2), np.float32), ctx=a)
    tb = wia.tensor(np.ones((2, 2), np.float32), ctx=b)
    codes = (E.INVALID_MEMORY, E.INVALID_CONTEXT)
    ph.assert_raises_code(codes, wia.matmul, ta, tb)
    ph.assert_raises_code(codes, wia.matmul, ta, ta, ctx=b)
    ph.assert_raises_code(codes, wia.matmul, ta, ta, b)


@pytest.mark.req("R-3.6.1-01", "R-3.6.1-02")
@pytest.mark.parametrize("op", ["matmul", "conv2d"])
def test_explain_describes_the_op(op: str, ctx: wia.Context) -> None:
    """``explain`` is an optional extension (a backend may raise NOT_SUPPORTED); where it answers, it names the op
    and an algorithm and counts the op's own FLOPs."""
    if op == "matmul":
        out = wia.matmul(wia.zeros((3, 5, 7), ctx=ctx), wia.zeros((7, 4), ctx=ctx))
        useful = 2 * 3 * 5 * 7 * 4
    else:
        config = wia.ConvConfig(padding=1, stride=(2, 1), groups=2)
        out = wia.conv2d(wia.zeros((2, 4, 7, 6), ctx=ctx), wia.zeros((6, 2, 3, 2), ctx=ctx), config)
        n, o, oh, ow = out.shape
        useful = 2 * n * o * oh * ow * 2 * 3 * 2
    try:
        report = wia.explain(out)
    except wia.NotSupportedError:
        pytest.skip(f"{ph.NOT_SUPPORTED_PREFIX} explain (an optional extension: the backend raised NOT_SUPPORTED)")
    call = f"explain({op}(...))"
    ph.assert_isinstance(report, wia.OpReport, call)
    ph.assert_equal(report.name, op, f"{call}.name")
    ph.assert_true(bool(report.algorithm), report.algorithm, "the algorithm that ran", f"{call}.algorithm")
    ph.assert_equal(report.useful_flops, float(useful), f"{call}.useful_flops (2 FLOPs per multiply-add)")
    ph.assert_true(report.duration_ms >= 0, report.duration_ms, ">= 0", f"{call}.duration_ms")
    ph.assert_raises_code(E.INVALID_VALUE, wia.explain, wia.tensor(np.ones(2, np.float32), ctx=ctx))  # uploaded
    wia.release_tensor(out)
    ph.assert_raises_code(E.INVALID_VALUE, wia.explain, out)


# -- R-3.6.1-02: conv2d ---------------------------------------------------------------------------------------------


def _conv_call(case: hh.ConvCase, x: npt.NDArray[Any], w: npt.NDArray[Any], extra: str = "") -> str:
    return f"conv2d({_describe(x, w)}, ConvConfig({', '.join(f'{k}={v}' for k, v in case.config.items())}{extra}))"


@pytest.mark.req("R-3.6.1-02")
@hh.suite_settings()
@given(case=hh.conv_cases(), with_bias=st.booleans(), data=st.data())
def test_conv2d(
    matrix_dtype: np.dtype[Any], case: hh.ConvCase, with_bias: bool, data: st.DataObject, ctx: wia.Context
) -> None:
    x = data.draw(hh.operands(matrix_dtype, case.input_shape), label="input")
    w = data.draw(hh.operands(matrix_dtype, case.weight_shape), label="weight")
    _, result = ph.matrix_arithmetic(matrix_dtype)
    bias = data.draw(hh.operands(result, (case.weight_shape[0],)), label="bias") if with_bias else None
    tb = None if bias is None else wia.tensor(bias, ctx=ctx)
    got = wia.conv2d(wia.tensor(x, ctx=ctx), wia.tensor(w, ctx=ctx), wia.ConvConfig(**case.config), bias=tb)
    ph.assert_conv_close(got, x, w, case.config, _conv_call(case, x, w, ", bias" if with_bias else ""), bias=bias)


def _accepts(algorithm: wia.ConvAlgorithm, ctx: wia.Context) -> None:
    """Skip as not supported when the backend raises NOT_SUPPORTED for ``algorithm`` on a 3x3 float32 convolution
    where every algorithm applies; AUTO must always be accepted."""
    __tracebackhide__ = True
    config = wia.ConvConfig(padding=1, algorithm=algorithm)
    x, w = wia.zeros((1, 2, 4, 4), ctx=ctx), wia.zeros((2, 2, 3, 3), ctx=ctx)
    if algorithm is wia.ConvAlgorithm.AUTO:
        return
    try:
        wia.conv2d(x, w, config)
    except wia.NotSupportedError:
        pytest.skip(f"{ph.NOT_SUPPORTED_PREFIX} ConvAlgorithm.{algorithm.name} (conv2d raised NOT_SUPPORTED)")


def _run_algorithm(
    algorithm: wia.ConvAlgorithm, x: wia.Tensor, w: wia.Tensor, case: hh.ConvCase, dtype: np.dtype[Any]
) -> wia.Tensor | None:
    """conv2d with ``algorithm``; None where the binding lets it refuse: WINOGRAD of int8 data (its fractional
    transforms do not apply) may raise INVALID_VALUE or NOT_SUPPORTED."""
    config = wia.ConvConfig(**case.config, algorithm=algorithm)
    if algorithm is wia.ConvAlgorithm.WINOGRAD and dtype.kind in "iu":
        try:
            return wia.conv2d(x, w, config)
        except (wia.InvalidValueError, wia.NotSupportedError):
            return None
    return wia.conv2d(x, w, config)


@pytest.mark.req("R-3.6.1-02")
@pytest.mark.parametrize("algorithm", list(wia.ConvAlgorithm), ids=[a.name for a in wia.ConvAlgorithm])
@hh.suite_settings(max_examples=15)
@given(data=st.data())
def test_conv2d_algorithm(
    algorithm: wia.ConvAlgorithm, matrix_dtype: np.dtype[Any], data: st.DataObject, ctx: wia.Context
) -> None:
    """Every algorithm the backend accepts gives the convolution (WINOGRAD: 3x3 kernels at stride 1 and dilation
    1); so any two agree within the sum of their bounds."""
    _accepts(algorithm, ctx)
    case = data.draw(hh.conv_cases(winograd=algorithm is wia.ConvAlgorithm.WINOGRAD), label="case")
    x = data.draw(hh.operands(matrix_dtype, case.input_shape), label="input")
    w = data.draw(hh.operands(matrix_dtype, case.weight_shape), label="weight")
    got = _run_algorithm(algorithm, wia.tensor(x, ctx=ctx), wia.tensor(w, ctx=ctx), case, matrix_dtype)
    if got is not None:
        call = _conv_call(case, x, w, f", algorithm={algorithm.name}")
        ph.assert_conv_close(got, x, w, case.config, call, winograd=algorithm is wia.ConvAlgorithm.WINOGRAD)


@pytest.mark.req("R-3.6.1-02")
@hh.suite_settings(max_examples=15)
@given(case=hh.conv_cases(winograd=True), data=st.data())
def test_conv2d_algorithms_agree(
    matrix_dtype: np.dtype[Any], case: hh.ConvCase, data: st.DataObject, ctx: wia.Context
) -> None:
    x = data.draw(hh.operands(matrix_dtype, case.input_shape), label="input")
    w = data.draw(hh.operands(matrix_dtype, case.weight_shape), label="weight")
    tx, tw = wia.tensor(x, ctx=ctx), wia.tensor(w, ctx=ctx)
    for algorithm in wia.ConvAlgorithm:
        try:
            got = _run_algorithm(algorithm, tx, tw, case, matrix_dtype)
        except wia.NotSupportedError:
            if algorithm is wia.ConvAlgorithm.AUTO:
                raise
            continue  # an algorithm the backend does not offer (reported by test_conv2d_algorithm)
        if got is not None:
            call = _conv_call(case, x, w, f", algorithm={algorithm.name}")
            ph.assert_conv_close(got, x, w, case.config, call, winograd=algorithm is wia.ConvAlgorithm.WINOGRAD)


@pytest.mark.req("R-3.6.1-02")
@pytest.mark.parametrize(
    ("kernel", "stride", "dilation"),
    [((5, 5), 1, 1), ((1, 1), 1, 1), ((3, 2), 1, 1), ((3, 3), 2, 1), ((3, 3), (1, 2), 1), ((3, 3), 1, 2)],
    ids=["5x5", "1x1", "3x2", "stride-2", "stride-1x2", "dilation-2"],
)
def test_winograd_needs_3x3_stride_1(kernel: tuple[int, int], stride: Any, dilation: Any, ctx: wia.Context) -> None:
    config = wia.ConvConfig(stride=stride, dilation=dilation, algorithm=wia.ConvAlgorithm.WINOGRAD)
    x, w = wia.zeros((1, 2, 12, 12), ctx=ctx), wia.zeros((2, 2, *kernel), ctx=ctx)
    ph.assert_raises_code((E.INVALID_VALUE, E.NOT_SUPPORTED), wia.conv2d, x, w, config)


@pytest.mark.req("R-3.6.1-02")
def test_conv2d_layout_and_bias(ctx: wia.Context) -> None:
    """NCHW input, OIHW weight: a non-square input, more output than input channels, a 1x2 kernel and a bias
    per output channel; the output is (N, O, OH, OW)."""
    rng = np.random.default_rng(7)
    x = rng.integers(-3, 4, size=(2, 3, 4, 5)).astype(np.float32)
    w = rng.integers(-2, 3, size=(4, 3, 1, 2)).astype(np.float32)
    bias = np.array([0.5, -1.0, 2.0, 0.0], np.float32)
    got = wia.conv2d(wia.tensor(x, ctx=ctx), wia.tensor(w, ctx=ctx), bias=wia.tensor(bias, ctx=ctx))
    expected = ph.conv2d_reference(x, w, bias=bias).astype(np.float32)  # small integers: exact
    ph.assert_equal(got.shape, (2, 4, 4, 4), "conv2d(float32 (2, 3, 4, 5), float32 (4, 3, 1, 2)).shape")
    ph.assert_array_close(got.numpy(), expected, F32, "conv2d(x, w, bias=bias) with small integers (exact)")
    plain = wia.conv2d(wia.tensor(x, ctx=ctx), wia.tensor(w, ctx=ctx), None, ctx)
    ph.assert_array_close(plain.numpy(), ph.conv2d_reference(x, w).astype(np.float32), F32, "conv2d(x, w, None, ctx)")


_CONV_SHAPE_ERRORS: list[tuple[str, Shape, Shape, dict[str, Any]]] = [
    ("input-3d", (3, 8, 8), (4, 3, 3, 3), {}),
    ("input-5d", (1, 1, 3, 8, 8), (4, 3, 3, 3), {}),
    ("weight-3d", (1, 3, 8, 8), (4, 3, 3), {}),
    ("channels", (1, 3, 8, 8), (4, 2, 3, 3), {}),
    ("channels-per-group", (1, 4, 8, 8), (4, 4, 3, 3), {"groups": 2}),
    ("groups-divide-input", (1, 4, 8, 8), (3, 1, 3, 3), {"groups": 3}),
    ("groups-divide-output", (1, 4, 8, 8), (3, 2, 3, 3), {"groups": 2}),
]


@pytest.mark.req("R-3.6.1-02")
@pytest.mark.parametrize(
    ("sx", "sw", "config"), [(x, w, c) for _, x, w, c in _CONV_SHAPE_ERRORS], ids=[n for n, *_ in _CONV_SHAPE_ERRORS]
)
def test_conv2d_shape_mismatch(sx: Shape, sw: Shape, config: dict[str, Any], ctx: wia.Context) -> None:
    x, w = wia.zeros(sx, ctx=ctx), wia.zeros(sw, ctx=ctx)
    error = ph.assert_raises_code(E.INVALID_VALUE, wia.conv2d, x, w, wia.ConvConfig(**config))
    ph.assert_message_mentions(
        error, [ph.shape_spellings(sx), ph.shape_spellings(sw)], f"conv2d(float32 {sx}, float32 {sw}, {config})"
    )


@pytest.mark.req("R-3.6.1-02")
@pytest.mark.parametrize(
    ("sx", "sw", "config"),
    [
        ((1, 1, 2, 2), (1, 1, 3, 3), {}),
        ((1, 1, 4, 4), (1, 1, 3, 3), {"dilation": 2}),
        ((1, 1, 1, 5), (1, 1, 3, 3), {"padding": (0, 1)}),
    ],
    ids=["kernel-larger", "dilated-kernel-larger", "height-too-small"],
)
def test_conv2d_kernel_larger_than_input(sx: Shape, sw: Shape, config: dict[str, Any], ctx: wia.Context) -> None:
    ph.assert_raises_code(
        E.INVALID_VALUE, wia.conv2d, wia.zeros(sx, ctx=ctx), wia.zeros(sw, ctx=ctx), wia.ConvConfig(**config)
    )


@pytest.mark.req("R-3.6.1-02")
def test_conv2d_bias_must_fit(caps: wia.DeviceCapabilities, ctx: wia.Context) -> None:
    x, w = wia.zeros((1, 2, 5, 5), ctx=ctx), wia.zeros((4, 2, 3, 3), ctx=ctx)
    for bias in (wia.zeros((3,), ctx=ctx), wia.zeros((4, 1), ctx=ctx), wia.zeros((1, 4, 1, 1), ctx=ctx)):
        ph.assert_raises_code(E.INVALID_VALUE, wia.conv2d, x, w, bias=bias)
    ph.assert_raises_code(E.INVALID_VALUE, wia.conv2d, x, w, bias=np.zeros(4, np.float32))
    other = next((d for d in ph.claimed_dtypes(caps) if d.name != "float32"), None)
    if other is not None:
        ph.assert_raises_code(E.INVALID_VALUE, wia.conv2d, x, w, bias=wia.zeros((4,), other, ctx=ctx))


@pytest.mark.req("R-3.6.1-02")
def test_conv2d_dtype_mismatch(caps: wia.DeviceCapabilities, ctx: wia.Context) -> None:
    claimed = ph.claimed_dtypes(caps)
    for first in claimed:
        for second in claimed:
            if first == second:
                continue
            x, w = wia.zeros((1, 2, 5, 5), first, ctx=ctx), wia.zeros((3, 2, 3, 3), second, ctx=ctx)
            error = ph.assert_raises_code(E.INVALID_VALUE, wia.conv2d, x, w)
            ph.assert_message_mentions(
                error, [[first.name], [second.name]], f"conv2d({first.name} (1, 2, 5, 5), {second.name} (3, 2, 3, 3))"
            )


@pytest.mark.req("R-3.6.1-02")
@pytest.mark.parametrize(
    "fields",
    [
        {"padding": -1},
        {"padding": (1, 2, 3)},
        {"stride": 0},
        {"stride": (1, -1)},
        {"dilation": 0},
        {"groups": 0},
        {"groups": 1.5},
        {"stride": "1"},
        {"padding": True},
        {"algorithm": 99},
        {"precision": 99},
        {"kernel": 3},
    ],
    ids=str,
)
def test_invalid_conv_config(fields: dict[str, Any], device: wia.Device) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, wia.ConvConfig, **fields)


@pytest.mark.req("R-3.6.1-02")
@pytest.mark.parametrize("config", [{"padding": 1}, "same", 1], ids=["dict", "str", "int"])
def test_conv2d_config_must_be_a_conv_config(config: Any, ctx: wia.Context) -> None:
    x, w = wia.zeros((1, 1, 4, 4), ctx=ctx), wia.zeros((1, 1, 3, 3), ctx=ctx)
    ph.assert_raises_code(E.INVALID_VALUE, wia.conv2d, x, w, config)


@pytest.mark.req("R-3.6.1-02")
@pytest.mark.parametrize("dtype_name", ["int32", "bool"])
def test_conv2d_without_matrix_arithmetic(dtype_name: str, caps: wia.DeviceCapabilities, ctx: wia.Context) -> None:
    """int32 and bool have no matrix arithmetic in the binding: INVALID_VALUE (or NOT_SUPPORTED); a backend that
    computes it anyway must be exact."""
    dtype = np.dtype(getattr(wia, "bool_" if dtype_name == "bool" else dtype_name))
    ph.requires_dtype(dtype, caps)
    x = (np.arange(32).reshape(1, 2, 4, 4) % 3).astype(dtype)
    w = (np.arange(36).reshape(2, 2, 3, 3) % 2).astype(dtype)
    call = f"conv2d({_describe(x, w)})"
    try:
        got = wia.conv2d(wia.tensor(x, ctx=ctx), wia.tensor(w, ctx=ctx))
    except wia.WiaError as e:
        ph.assert_true(
            e.code in (E.INVALID_VALUE, E.NOT_SUPPORTED), e, "INVALID_VALUE or NOT_SUPPORTED (or a result)", call
        )
        return
    exact = ph.conv2d_reference(x, w)
    expected = (exact != 0) if dtype_name == "bool" else exact.astype(np.int32)
    ph.assert_array_equal(got.numpy(), np.asarray(expected), call)


# -- R-3.6.1-03: relu, batch_norm, pool2d ---------------------------------------------------------------------------


@pytest.mark.req("R-3.6.1-03")
@hh.suite_settings()
@given(shape=st.tuples(*[st.integers(0, 3)] * 4), data=st.data())
def test_relu_of_activations(numeric_dtype: np.dtype[Any], shape: Shape, data: st.DataObject, ctx: wia.Context) -> None:
    x = data.draw(hh.arrays(numeric_dtype, shape), label="x")
    got = wia.relu(wia.tensor(x, ctx=ctx))
    expected = ph.round_to(np.maximum(x.astype(np.float64), 0.0), numeric_dtype)
    ph.assert_array_equal(got.numpy(), expected, f"relu({_describe(x)})")


BN_MAGNITUDE = 10.0
"""The largest ``|x|`` and ``|mean|`` generated for batch_norm (scale, bias and variance: 4), so that
``(x - mean) / sqrt(0 + 1e-5) * scale`` stays within float16."""


def batch_norm_reference(
    x: npt.NDArray[Any],
    params: dict[str, npt.NDArray[Any]],
    eps: float,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``(x - mean) / sqrt(variance + eps) * scale + bias`` over axis 1 in float64, and its magnitude
    ``(|x| + |mean|) * |scale / sqrt(variance + eps)| + |bias|`` (the terms a backend rounds)."""
    shape = (1, -1) + (1,) * (x.ndim - 2)
    p = {k: v.astype(np.float64).reshape(shape) for k, v in params.items()}
    x64 = x.astype(np.float64)
    factor = p["scale"] / np.sqrt(p["variance"] + eps)
    ref = (x64 - p["mean"]) * factor + p["bias"]
    magnitude = (np.abs(x64) + np.abs(p["mean"])) * np.abs(factor) + np.abs(p["bias"])
    return ref, magnitude


def assert_batch_norm_close(
    got: wia.Tensor, x: npt.NDArray[Any], params: dict[str, npt.NDArray[Any]], eps: float, call: str
) -> None:
    """Within one rounding to the type plus ``6 * eps_dtype * magnitude``: a few roundings of each term in the
    input's own arithmetic (subtracting the mean, the factor's square root and division, the product, the bias)."""
    __tracebackhide__ = True
    ref, magnitude = batch_norm_reference(x, params, eps)
    dtype = x.dtype
    ph.assert_equal(got.shape, x.shape, f"{call}.shape")
    slack = 6 * ph.ARITHMETIC_EPS[dtype.name] * magnitude + ph.TOLERANCES[dtype.name].tiny
    ph.assert_array_close(got.numpy(), ph.round_to(ref, dtype), dtype, call, slack=slack)


_BN_PARAMS = ("scale", "bias", "mean", "variance")


@pytest.mark.req("R-3.6.1-03")
@hh.suite_settings()
@given(
    shape=st.tuples(st.integers(0, 3), st.integers(1, 4)).flatmap(
        lambda nc: st.lists(st.integers(0, 4), max_size=2).map(lambda rest: (*nc, *rest))
    ),
    eps=st.sampled_from([None, 1e-3, 0.5]),
    data=st.data(),
)
def test_batch_norm(
    float_dtype: np.dtype[Any], shape: Shape, eps: float | None, data: st.DataObject, ctx: wia.Context
) -> None:
    x = data.draw(hh.arrays(float_dtype, shape, BN_MAGNITUDE), label="x")
    c = (shape[1],)
    params = {
        "scale": data.draw(hh.arrays(float_dtype, c, 4.0), label="scale"),
        "bias": data.draw(hh.arrays(float_dtype, c, 4.0), label="bias"),
        "mean": data.draw(hh.arrays(float_dtype, c, BN_MAGNITUDE), label="mean"),
        "variance": np.abs(data.draw(hh.arrays(float_dtype, c, 4.0), label="variance")),
    }
    scale, bias, mean, variance = (wia.tensor(params[k], ctx=ctx) for k in _BN_PARAMS)
    tx = wia.tensor(x, ctx=ctx)
    if eps is None:
        got = wia.batch_norm(tx, scale, bias, mean, variance)
    else:
        got = wia.batch_norm(tx, scale, bias, mean, variance, eps=eps)
    call = f"batch_norm({_describe(x)}, scale, bias, mean, variance{'' if eps is None else f', eps={eps}'})"
    assert_batch_norm_close(got, x, params, 1e-5 if eps is None else eps, call)


@pytest.mark.req("R-3.6.1-03")
def test_batch_norm_default_eps_is_1e_5(ctx: wia.Context) -> None:
    """With zero variance the output is ``(x - mean) / sqrt(eps) * scale + bias``: it shows eps itself."""
    x = np.array([[[1.0, -2.0]], [[0.5, 3.0]]], np.float32).reshape(2, 1, 2)
    params = {
        k: np.array([v], np.float32) for k, v in {"scale": 2.0, "bias": 0.25, "mean": 0.5, "variance": 0.0}.items()
    }
    scale, bias, mean, variance = (wia.tensor(params[k], ctx=ctx) for k in _BN_PARAMS)
    got = wia.batch_norm(wia.tensor(x, ctx=ctx), scale, bias, mean, variance)
    assert_batch_norm_close(got, x, params, 1e-5, "batch_norm(x, scale, bias, mean, variance=0) (default eps)")
    positional = wia.batch_norm(wia.tensor(x, ctx=ctx), scale, bias, mean, variance, ctx)
    assert_batch_norm_close(positional, x, params, 1e-5, "batch_norm(x, scale, bias, mean, variance=0, ctx)")


@pytest.mark.req("R-3.6.1-03")
def test_batch_norm_invalid(caps: wia.DeviceCapabilities, ctx: wia.Context) -> None:
    x = wia.zeros((2, 3, 4), ctx=ctx)
    p = [wia.zeros((3,), ctx=ctx) for _ in _BN_PARAMS]
    ph.assert_raises_code(E.INVALID_VALUE, wia.batch_norm, wia.zeros((3,), ctx=ctx), *p)
    for i, name in enumerate(_BN_PARAMS):
        for bad_shape in ((4,), (1, 3), ()):
            args = list(p)
            args[i] = wia.zeros(bad_shape, ctx=ctx)
            error = ph.assert_raises_code(E.INVALID_VALUE, wia.batch_norm, x, *args)
            ph.assert_message_mentions(
                error, [ph.shape_spellings(bad_shape)], f"batch_norm(float32 (2, 3, 4), {name} of shape {bad_shape})"
            )
    for eps in (0.0, -1e-5, "1e-5", True, None):
        ph.assert_raises_code(E.INVALID_VALUE, wia.batch_norm, x, *p, eps=eps)
    ph.assert_raises_code(E.INVALID_VALUE, wia.batch_norm, x, *p[:3], np.zeros(3, np.float32))
    for other in ph.claimed_dtypes(caps):
        if other.name == "float32":
            continue
        args = [*p[:2], wia.zeros((3,), other, ctx=ctx), p[3]]
        error = ph.assert_raises_code(E.INVALID_VALUE, wia.batch_norm, x, *args)
        ph.assert_message_mentions(error, [["float32"], [other.name]], f"batch_norm(float32 x, {other.name} mean)")
    for int_name in ("int32", "int8"):
        dtype = np.dtype(getattr(wia, int_name))
        if dtype in ph.claimed_dtypes(caps):
            xi = wia.zeros((2, 3), dtype, ctx=ctx)
            pi = [wia.zeros((3,), dtype, ctx=ctx) for _ in _BN_PARAMS]
            ph.assert_raises_code(E.INVALID_VALUE, wia.batch_norm, xi, *pi)


def _pool_call(kind: str, x: npt.NDArray[Any], case: hh.PoolCase) -> str:
    stride = "" if case.stride is None else f", stride={case.stride}"
    fields = f"type={kind}, kernel_size={case.kernel_size}{stride}, padding={case.padding}"
    return f"pool2d({_describe(x)}, PoolConfig({fields}))"


def _pool_config(kind: str, case: hh.PoolCase) -> wia.PoolConfig:
    fields: dict[str, Any] = {"type": wia.PoolType[kind], "kernel_size": case.kernel_size, "padding": case.padding}
    if case.stride is not None:
        fields["stride"] = case.stride
    return wia.PoolConfig(**fields)


@pytest.mark.req("R-3.6.1-03")
@hh.suite_settings()
@given(case=hh.pool_cases(), data=st.data())
def test_max_pool(numeric_dtype: np.dtype[Any], case: hh.PoolCase, data: st.DataObject, ctx: wia.Context) -> None:
    x = data.draw(hh.arrays(numeric_dtype, case.input_shape), label="x")
    got = wia.pool2d(wia.tensor(x, ctx=ctx), _pool_config("MAX", case))
    expected = ph.round_to(ph.pool2d_reference(x, "MAX", case.kernel_size, case.stride, case.padding), numeric_dtype)
    ph.assert_array_equal(got.numpy(), expected, _pool_call("MAX", x, case))


@pytest.mark.req("R-3.6.1-03")
@hh.suite_settings()
@given(case=hh.pool_cases(), data=st.data())
def test_avg_pool(float_dtype: np.dtype[Any], case: hh.PoolCase, data: st.DataObject, ctx: wia.Context) -> None:
    x = data.draw(hh.arrays(float_dtype, case.input_shape), label="x")
    got = wia.pool2d(wia.tensor(x, ctx=ctx), _pool_config("AVG", case))
    ref = ph.pool2d_reference(x, "AVG", case.kernel_size, case.stride, case.padding)
    magnitude = ph.pool2d_reference(np.abs(x.astype(np.float64)), "AVG", case.kernel_size, case.stride, case.padding)
    kh, kw = case.kernel_size
    ph.assert_equal(got.shape, ref.shape, f"{_pool_call('AVG', x, case)}.shape")
    ph.assert_reduction_close(
        got.numpy(),
        ph.round_to(ref, float_dtype),
        float_dtype,
        _pool_call("AVG", x, case),
        magnitude=magnitude,
        terms=kh * kw + 1,
    )


@pytest.mark.req("R-3.6.1-03")
def test_pool_stride_defaults_to_the_kernel(ctx: wia.Context) -> None:
    x = np.arange(2 * 49, dtype=np.float32).reshape(1, 2, 7, 7)
    t = wia.tensor(x, ctx=ctx)
    for kernel, out in (((2, 2), (3, 3)), ((3, 3), (2, 2)), ((3, 2), (2, 3))):
        got = wia.pool2d(t, wia.PoolConfig(type=wia.PoolType.MAX, kernel_size=kernel))
        call = f"pool2d(float32 (1, 2, 7, 7), PoolConfig(type=MAX, kernel_size={kernel}))"
        ph.assert_equal(got.shape, (1, 2, *out), f"{call}.shape")
        ph.assert_array_equal(got.numpy(), ph.pool2d_reference(x, "MAX", kernel).astype(np.float32), call)


@pytest.mark.req("R-3.6.1-03")
def test_avg_pool_counts_padding(ctx: wia.Context) -> None:
    """AVG divides by the whole window, padded positions included (``count_include_pad``, the binding)."""
    x = np.ones((1, 1, 2, 2), np.float32)
    config = wia.PoolConfig(type=wia.PoolType.AVG, kernel_size=3, stride=1, padding=1)
    got = wia.pool2d(wia.tensor(x, ctx=ctx), config, ctx)
    expected = np.full((1, 1, 2, 2), 4 / 9, np.float32)
    ph.assert_array_close(got.numpy(), expected, F32, "pool2d(ones (1, 1, 2, 2), AVG 3x3, stride 1, padding 1)")


@pytest.mark.req("R-3.6.1-03")
def test_max_pool_ignores_padding(ctx: wia.Context) -> None:
    x = np.full((1, 1, 3, 3), -5.0, np.float32)
    config = wia.PoolConfig(type=wia.PoolType.MAX, kernel_size=3, stride=2, padding=1)
    got = wia.pool2d(wia.tensor(x, ctx=ctx), config)
    ph.assert_array_equal(got.numpy(), np.full((1, 1, 2, 2), -5.0, np.float32), "pool2d(-5s, MAX 3x3, padding 1)")


_POOL_ERRORS: list[tuple[str, Shape, dict[str, Any]]] = [
    ("3d-input", (1, 4, 4), {"type": wia.PoolType.MAX, "kernel_size": 2}),
    ("5d-input", (1, 1, 1, 4, 4), {"type": wia.PoolType.MAX, "kernel_size": 2}),
    ("padding-over-half", (1, 1, 6, 6), {"type": wia.PoolType.MAX, "kernel_size": 3, "padding": 2}),
    ("kernel-larger", (1, 1, 2, 2), {"type": wia.PoolType.AVG, "kernel_size": 3}),
    ("no-type", (1, 1, 4, 4), {"kernel_size": 2}),
    ("no-kernel", (1, 1, 4, 4), {"type": wia.PoolType.MAX}),
    ("memory-pool-config", (1, 1, 4, 4), {"block_size": 512}),
]


@pytest.mark.req("R-3.6.1-03")
@pytest.mark.parametrize(("shape", "fields"), [(s, f) for _, s, f in _POOL_ERRORS], ids=[n for n, *_ in _POOL_ERRORS])
def test_pool2d_invalid(shape: Shape, fields: dict[str, Any], ctx: wia.Context) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, wia.pool2d, wia.zeros(shape, ctx=ctx), wia.PoolConfig(**fields))


@pytest.mark.req("R-3.6.1-03")
@pytest.mark.parametrize(
    "fields",
    [
        {"type": wia.PoolType.MAX, "kernel_size": 0},
        {"type": wia.PoolType.MAX, "kernel_size": 2, "stride": 0},
        {"type": wia.PoolType.MAX, "kernel_size": 2, "padding": -1},
        {"type": wia.PoolType.MAX, "kernel_size": (2, 2, 2)},
        {"type": 7, "kernel_size": 2},
        {"type": wia.PoolType.MAX, "kernel_size": 2, "max_size": 1024},
    ],
    ids=["kernel-0", "stride-0", "padding-negative", "kernel-3-values", "type-unknown", "both-kinds"],
)
def test_invalid_pool_config(fields: dict[str, Any], device: wia.Device) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, wia.PoolConfig, **fields)


@pytest.mark.req("R-3.6.1-03")
def test_pool2d_data_types(caps: wia.DeviceCapabilities, ctx: wia.Context) -> None:
    """AVG needs floating-point data; MAX needs numbers (not bool)."""
    avg = wia.PoolConfig(type=wia.PoolType.AVG, kernel_size=2)
    ph.assert_raises_code(E.INVALID_VALUE, wia.pool2d, wia.zeros((1, 1, 4, 4), wia.int32, ctx=ctx), avg)
    ph.assert_raises_code(E.INVALID_VALUE, wia.pool2d, wia.zeros((1, 1, 4, 4), ctx=ctx), {"type": "MAX"})
    try:
        flags = wia.zeros((1, 1, 4, 4), wia.bool_, ctx=ctx)
    except wia.NotSupportedError:
        return
    ph.assert_raises_code(E.INVALID_VALUE, wia.pool2d, flags, wia.PoolConfig(type=wia.PoolType.MAX, kernel_size=2))


# -- R-3.7-05 in the 3.6.1 ops: released tensors ---------------------------------------------------------------------

_RELEASED_IN: list[tuple[str, int, Callable[[list[wia.Tensor]], Any]]] = [
    ("conv2d-input", 0, lambda t: wia.conv2d(t[0], t[1])),
    ("conv2d-weight", 1, lambda t: wia.conv2d(t[0], t[1])),
    ("conv2d-bias", 2, lambda t: wia.conv2d(t[0], t[1], bias=t[2])),
    ("batch_norm-x", 0, lambda t: wia.batch_norm(t[0], t[2], t[2], t[2], t[2])),
    ("batch_norm-variance", 2, lambda t: wia.batch_norm(t[0], t[3], t[3], t[3], t[2])),
    ("pool2d", 0, lambda t: wia.pool2d(t[0], wia.PoolConfig(type=wia.PoolType.MAX, kernel_size=2))),
]


@pytest.mark.req("R-3.6.1-02", "R-3.6.1-03", "R-3.7-05")
@pytest.mark.parametrize(("index", "use"), [(i, u) for _, i, u in _RELEASED_IN], ids=[n for n, *_ in _RELEASED_IN])
def test_released_tensor_is_invalid_value(index: int, use: Callable[[list[wia.Tensor]], Any], ctx: wia.Context) -> None:
    tensors = [
        wia.zeros((1, 2, 4, 4), ctx=ctx),
        wia.zeros((2, 2, 3, 3), ctx=ctx),
        wia.zeros((2,), ctx=ctx),
        wia.zeros((2,), ctx=ctx),
    ]
    wia.release_tensor(tensors[index])
    ph.assert_raises_code(E.INVALID_VALUE, use, tensors)
