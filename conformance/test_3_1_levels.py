"""SPEC 3.1: progressive disclosure. Level 1: a program with no context, tensors in, ops, NumPy out (R-3.1-01);
Level 2: the same ops with performance hints, ``matmul_optimized`` with every ``MatmulAlgorithm`` and ``Precision``
and ``conv2d`` with every ``ConvAlgorithm`` and precision (R-3.1-02); every op takes ``ctx=`` (and the positional
context the spec shows) and ``stream=``, and returns before its work is done (R-3.1-04)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import wia_hal as wia
from conformance import assertions as ph
from conformance import strategies as hh

E = wia.ErrorCode
F32 = np.dtype(np.float32)
Shape = tuple[int, ...]


# -- R-3.1-01: Level 1 ----------------------------------------------------------------------------------------------


@pytest.mark.req("R-3.1-01", "R-3.1-04")
def test_level1_program_needs_no_context(device: wia.Device) -> None:
    """A two-layer perceptron and a few tensor ops, the way a Level-1 user writes them: no context, no stream,
    float32 (which every device supports), results read back with ``.numpy()``."""
    rng = np.random.default_rng(11)
    x = rng.uniform(-1, 1, (4, 8)).astype(np.float32)
    w1 = rng.uniform(-1, 1, (8, 16)).astype(np.float32)
    b1 = rng.uniform(-1, 1, (16,)).astype(np.float32)
    w2 = rng.uniform(-1, 1, (16, 3)).astype(np.float32)
    h = wia.relu(wia.add(wia.matmul(wia.tensor(x), wia.tensor(w1)), wia.tensor(b1)))
    logits = wia.matmul(h, wia.tensor(w2))
    probs = wia.softmax(logits, -1)
    total = wia.sum(wia.mul(probs, probs), 1)
    flat = wia.reshape(wia.transpose(probs), (-1,))
    default = wia.get_default_context()
    for name, t in (("relu", h), ("matmul", logits), ("softmax", probs), ("sum", total), ("reshape", flat)):
        ph.assert_true(t.context is default, t.context, "the Level-1 default context", f"{name}(...).context")

    h_ref = np.maximum(x.astype(np.float64) @ w1 + b1, 0)
    logits_ref = h_ref @ w2
    ph.assert_reduction_close(
        logits.numpy(),
        logits_ref.astype(np.float32),
        F32,
        "matmul(relu(add(matmul(x, w1), b1)), w2)",
        magnitude=(np.abs(x.astype(np.float64)) @ np.abs(w1) + np.abs(b1)) @ np.abs(w2),
        terms=8 + 1 + 16,
    )
    got_probs = probs.numpy()
    sums = got_probs.astype(np.float64).sum(axis=-1)
    ph.assert_true(bool(np.all(np.abs(sums - 1) < 1e-5)), sums, "rows summing to 1", "softmax(logits, -1)")
    ph.assert_reduction_close(
        total.numpy(),
        (got_probs.astype(np.float64) ** 2).sum(axis=1).astype(np.float32),
        F32,
        "sum(mul(p, p), 1)",
        magnitude=(got_probs.astype(np.float64) ** 2).sum(axis=1),
        terms=3 + 1,
    )
    ph.assert_array_equal(flat.numpy(), got_probs.T.reshape(-1), "reshape(transpose(p), (-1,))")


# -- R-3.1-02: Level 2, matmul_optimized ----------------------------------------------------------------------------

PRECISIONS = list(wia.Precision)
ALGORITHMS = list(wia.MatmulAlgorithm)

MATMUL_SHAPES: list[tuple[Shape, Shape]] = [
    ((5, 40), (40, 3)),
    ((65, 33), (33, 129)),  # tail tiles of 64, 128 and 256
    ((2, 8, 300), (300, 6)),  # a batch, few tiles and a long K
    ((40,), (40, 9)),  # a 1-D operand
]


def operand(rng: np.random.Generator, shape: Shape, dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """Values whose magnitude is 0.25 to 2 (random signs) as ``dtype``: normal numbers in every arithmetic down to
    float8 e4m3, so that rounding to it costs at most its ``eps`` relative; int8: -11 to 11."""
    if dtype.kind in "iu":
        return rng.integers(-11, 12, size=shape).astype(dtype)
    values: npt.NDArray[np.float64] = rng.uniform(0.25, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    return values.astype(dtype)


def _rules(precision: wia.Precision) -> dict[str, tuple[str, str]]:
    rules = ph.PRECISION_RULES.get(precision.name)
    if rules is None:
        pytest.skip(f"the suite has no rule for Precision.{precision.name} (update conformance PRECISION_RULES)")
    return rules


@pytest.mark.req("R-3.1-02")
@pytest.mark.parametrize("algorithm", ALGORITHMS, ids=[a.name for a in ALGORITHMS])
@pytest.mark.parametrize("precision", PRECISIONS, ids=[p.name for p in PRECISIONS])
def test_matmul_optimized(
    precision: wia.Precision,
    algorithm: wia.MatmulAlgorithm,
    caps: wia.DeviceCapabilities,
    info: wia.DeviceInfo,
    ctx: wia.Context,
) -> None:
    """Each data type the precision takes gives its documented result type, within the tolerance of the precision
    (operands rounded to its arithmetic: TF32 a 10-bit mantissa, float8 e4m3 3 bits; float32 accumulation); where
    the device does not list the arithmetic, the call raises NOT_SUPPORTED."""
    config = wia.MatmulConfig(algorithm=algorithm, precision=precision)
    rng = np.random.default_rng(int(precision) * 16 + int(algorithm))
    unsupported: list[str] = []
    for dtype_name, (arithmetic, _) in _rules(precision).items():
        dtype = np.dtype(getattr(wia, dtype_name))
        flag = ph.DTYPE_FLAGS.get(dtype_name)
        if flag is not None and not getattr(caps, flag):
            unsupported.append(f"{flag} is False")
            continue
        if arithmetic not in info.peak_flops_by_precision:
            probe = wia.zeros((2, 2), dtype, ctx=ctx)
            ph.assert_raises_code(E.NOT_SUPPORTED, wia.matmul_optimized, probe, probe, config)
            unsupported.append(f"peak_flops_by_precision[{arithmetic!r}] is missing")
            continue
        for sa, sb in MATMUL_SHAPES:
            a, b = operand(rng, sa, dtype), operand(rng, sb, dtype)
            got = wia.matmul_optimized(wia.tensor(a, ctx=ctx), wia.tensor(b, ctx=ctx), config)
            call = f"matmul_optimized({dtype_name} {sa}, {dtype_name} {sb}, {config!r})"
            ph.assert_matmul_close(got, a, b, call, precision=precision.name)
    if len(unsupported) == len(_rules(precision)):
        reasons = "; ".join(dict.fromkeys(unsupported))
        pytest.skip(f"{ph.NOT_SUPPORTED_PREFIX} {unsupported[0]} (Precision.{precision.name}: {reasons})")


@pytest.mark.req("R-3.1-02")
@pytest.mark.parametrize("precision", PRECISIONS, ids=[p.name for p in PRECISIONS])
def test_precision_of_another_data_type(
    precision: wia.Precision, caps: wia.DeviceCapabilities, ctx: wia.Context
) -> None:
    """A precision applied to a data type it does not take (``INT8`` of float32 data, ``TF32`` of float16, ...)
    is INVALID_VALUE."""
    rules = _rules(precision)
    for dtype in ph.claimed_dtypes(caps):
        if dtype.name in rules:
            continue
        t = wia.zeros((2, 2), dtype, ctx=ctx)
        config = wia.MatmulConfig(precision=precision)
        ph.assert_raises_code(E.INVALID_VALUE, wia.matmul_optimized, t, t, config)
        conv = wia.ConvConfig(precision=precision)
        ph.assert_raises_code(
            E.INVALID_VALUE,
            wia.conv2d,
            wia.zeros((1, 1, 3, 3), dtype, ctx=ctx),
            wia.zeros((1, 1, 1, 1), dtype, ctx=ctx),
            conv,
        )


@pytest.mark.req("R-3.1-02")
@pytest.mark.parametrize("algorithm", ALGORITHMS, ids=[a.name for a in ALGORITHMS])
def test_matmul_optimized_default_precision(
    algorithm: wia.MatmulAlgorithm, caps: wia.DeviceCapabilities, info: wia.DeviceInfo, ctx: wia.Context
) -> None:
    """``precision=None`` follows the data type, as plain ``matmul`` does."""
    rng = np.random.default_rng(int(algorithm))
    config = wia.MatmulConfig(algorithm=algorithm)
    for dtype in ph.claimed_dtypes(caps):
        if dtype.name not in ph.DEFAULT_PRECISION:
            continue
        arithmetic, _ = ph.matrix_arithmetic(dtype)
        if arithmetic not in info.peak_flops_by_precision:
            continue  # checked by test_matmul_optimized
        a, b = operand(rng, (9, 70), dtype), operand(rng, (70, 5), dtype)
        got = wia.matmul_optimized(wia.tensor(a, ctx=ctx), wia.tensor(b, ctx=ctx), config)
        ph.assert_matmul_close(got, a, b, f"matmul_optimized({dtype.name} (9, 70), {dtype.name} (70, 5), {config!r})")


@pytest.mark.req("R-3.1-02")
def test_invalid_matmul_config(ctx: wia.Context) -> None:
    for fields in ({"algorithm": 99}, {"precision": 99}, {"algorithm": -1}, {"tile": 64}, {"algorithm": "fast"}):
        ph.assert_raises_code(E.INVALID_VALUE, wia.MatmulConfig, **fields)
    t = wia.zeros((2, 2), ctx=ctx)
    for config in (None, {"algorithm": 1}, wia.ConvConfig()):
        ph.assert_raises_code(E.INVALID_VALUE, wia.matmul_optimized, t, t, config)


# -- R-3.1-02: Level 2, conv2d with each ConvAlgorithm and precision ------------------------------------------------


@dataclass(frozen=True)
class ConvProblem:
    name: str
    input_shape: Shape
    weight_shape: Shape
    config: dict[str, Any]
    winograd: bool


CONV_PROBLEMS = [
    ConvProblem(
        "3x3", (2, 4, 6, 5), (3, 4, 3, 3), {"padding": (1, 1), "stride": (1, 1), "dilation": (1, 1), "groups": 1}, True
    ),
    ConvProblem(
        "strided-grouped",
        (1, 4, 7, 8),
        (6, 2, 2, 3),
        {"padding": (1, 0), "stride": (2, 1), "dilation": (1, 2), "groups": 2},
        False,
    ),
]
CONV_ALGORITHMS = list(wia.ConvAlgorithm)


@pytest.mark.req("R-3.1-02", "R-3.6.1-02")
@pytest.mark.parametrize("algorithm", CONV_ALGORITHMS, ids=[a.name for a in CONV_ALGORITHMS])
@pytest.mark.parametrize("precision", [None, *PRECISIONS], ids=["default", *[p.name for p in PRECISIONS]])
def test_conv2d_with_precision_and_algorithm(
    precision: wia.Precision | None,
    algorithm: wia.ConvAlgorithm,
    caps: wia.DeviceCapabilities,
    info: wia.DeviceInfo,
    ctx: wia.Context,
) -> None:
    """conv2d with ``ConvConfig(algorithm=..., precision=...)``: the documented result type and the precision's
    tolerance for every data type it takes; WINOGRAD only where it applies (3x3, stride 1, dilation 1) and not
    necessarily for int8 data; NOT_SUPPORTED for an arithmetic the device does not list or an algorithm it does
    not offer."""
    rules = (
        {d: ph.PRECISION_RULES[p][d] for d, p in ph.DEFAULT_PRECISION.items()}
        if precision is None
        else _rules(precision)
    )
    rng = np.random.default_rng(7 + int(algorithm) + (0 if precision is None else 16 * int(precision)))
    unsupported: list[str] = []
    checked = 0
    for dtype_name, (arithmetic, _) in rules.items():
        dtype = np.dtype(getattr(wia, dtype_name))
        flag = ph.DTYPE_FLAGS.get(dtype_name)
        if flag is not None and not getattr(caps, flag):
            unsupported.append(f"{flag} is False")
            continue
        for problem in CONV_PROBLEMS:
            config = wia.ConvConfig(**problem.config, algorithm=algorithm, precision=precision)
            x = operand(rng, problem.input_shape, dtype)
            w = operand(rng, problem.weight_shape, dtype)
            tx, tw = wia.tensor(x, ctx=ctx), wia.tensor(w, ctx=ctx)
            call = f"conv2d({dtype_name} {problem.input_shape}, {dtype_name} {problem.weight_shape}, {config!r})"
            winograd = algorithm is wia.ConvAlgorithm.WINOGRAD
            if winograd and not problem.winograd:
                ph.assert_raises_code((E.INVALID_VALUE, E.NOT_SUPPORTED), wia.conv2d, tx, tw, config)
                continue
            if arithmetic not in info.peak_flops_by_precision:
                ph.assert_raises_code(E.NOT_SUPPORTED, wia.conv2d, tx, tw, config)
                unsupported.append(f"peak_flops_by_precision[{arithmetic!r}] is missing")
                break
            try:
                got = wia.conv2d(tx, tw, config)
            except (wia.InvalidValueError, wia.NotSupportedError) as e:
                if winograd and dtype.kind in "iu":
                    continue  # Winograd's fractional transforms need not apply to int8 data
                if isinstance(e, wia.NotSupportedError) and algorithm is not wia.ConvAlgorithm.AUTO:
                    unsupported.append(f"ConvAlgorithm.{algorithm.name} (conv2d raised NOT_SUPPORTED)")
                    break
                raise
            ph.assert_conv_close(
                got,
                x,
                w,
                problem.config,
                call,
                precision=None if precision is None else precision.name,
                winograd=winograd,
            )
            checked += 1
    if not checked and unsupported:
        pytest.skip(f"{ph.NOT_SUPPORTED_PREFIX} {unsupported[0]} ({'; '.join(dict.fromkeys(unsupported))})")


# -- R-3.1-04: every op takes ctx= and stream=, and returns at once --------------------------------------------------


def _ints(rng: np.random.Generator, shape: Shape, low: int = -3, high: int = 4) -> npt.NDArray[np.float32]:
    """Small integers as float32: sums and products of a few are exact."""
    return rng.integers(low, high, size=shape).astype(np.float32)


@dataclass(frozen=True)
class OpCase:
    """One op: its float32 inputs, how to call it on tensors (``**kw`` is ``ctx=`` or ``stream=``) and its float64
    reference on the arrays."""

    name: str
    reqs: tuple[str, ...]
    inputs: tuple[npt.NDArray[np.float32], ...]
    call: Callable[..., wia.Tensor]
    reference: Callable[..., npt.NDArray[np.float64]]
    positional: Callable[[Sequence[wia.Tensor], wia.Context], wia.Tensor] | None = None
    """The call with the context as the positional argument the spec shows (``matmul(A, B, ctx)``)."""


def _op_cases() -> list[OpCase]:
    rng = np.random.default_rng(3)
    a, b, a2 = _ints(rng, (3, 4)), _ints(rng, (4,)), _ints(rng, (2, 4))
    m, n = _ints(rng, (3, 5)), _ints(rng, (5, 2))
    x, w = _ints(rng, (1, 2, 4, 4)), _ints(rng, (3, 2, 3, 3), -1, 2)
    bn = (_ints(rng, (2,), 1, 3), _ints(rng, (2,)), _ints(rng, (2,)), _ints(rng, (2,), 0, 3))
    matmul_config, conv_config = wia.MatmulConfig(), wia.ConvConfig(padding=1)
    pool_config = wia.PoolConfig(type=wia.PoolType.MAX, kernel_size=2)
    f64 = np.float64

    def softmax(v: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        s, _ = ph.softmax_reference(v, -1, F32)
        return s

    def batch_norm(v: npt.NDArray[Any], *p: npt.NDArray[Any]) -> npt.NDArray[np.float64]:
        scale, bias, mean, var = (q.astype(f64).reshape(1, -1, 1, 1) for q in p)
        return np.asarray((v - mean) / np.sqrt(var + 1e-5) * scale + bias, dtype=f64)

    return [
        OpCase("add", ("R-3.7-01",), (a, b), lambda t, **kw: wia.add(t[0], t[1], **kw), lambda p, q: p + q),
        OpCase("mul", ("R-3.7-01",), (a, b), lambda t, **kw: wia.mul(t[0], t[1], **kw), lambda p, q: p * q),
        OpCase("relu", ("R-3.7-01",), (a,), lambda t, **kw: wia.relu(t[0], **kw), lambda p: np.maximum(p, 0)),
        OpCase(
            "gelu",
            ("R-3.7-01",),
            ((a / 2).astype(np.float32),),
            lambda t, **kw: wia.gelu(t[0], **kw),
            lambda p: ph.gelu_reference(p, "none"),
        ),
        OpCase("sigmoid", ("R-3.7-01",), (a,), lambda t, **kw: wia.sigmoid(t[0], **kw), ph.sigmoid_reference),
        OpCase("sum", ("R-3.7-02",), (a,), lambda t, **kw: wia.sum(t[0], 1, **kw), lambda p: p.sum(axis=1)),
        OpCase("max", ("R-3.7-02",), (a,), lambda t, **kw: wia.max(t[0], 0, **kw), lambda p: p.max(axis=0)),
        OpCase("softmax", ("R-3.7-02",), (a,), lambda t, **kw: wia.softmax(t[0], -1, **kw), softmax),
        OpCase("reshape", ("R-3.7-03",), (a,), lambda t, **kw: wia.reshape(t[0], (-1,), **kw), lambda p: p.reshape(-1)),
        OpCase("transpose", ("R-3.7-03",), (a,), lambda t, **kw: wia.transpose(t[0], **kw), lambda p: p.T),
        OpCase(
            "concat",
            ("R-3.7-03",),
            (a, a2),
            lambda t, **kw: wia.concat([t[0], t[1]], 0, **kw),
            lambda p, q: np.concatenate([p, q], 0),
        ),
        OpCase(
            "slice",
            ("R-3.7-03",),
            (a,),
            lambda t, **kw: wia.slice(t[0], [1, -3], [3, -1], **kw),
            lambda p: p[1:3, -3:-1],
        ),
        OpCase(
            "matmul",
            ("R-3.7-04", "R-3.6.1-01"),
            (m, n),
            lambda t, **kw: wia.matmul(t[0], t[1], **kw),
            lambda p, q: p @ q,
            positional=lambda t, c: wia.matmul(t[0], t[1], c),
        ),
        OpCase(
            "batch_matmul",
            ("R-3.7-04",),
            (m.reshape(1, 3, 5), n.reshape(1, 5, 2)),
            lambda t, **kw: wia.batch_matmul(t[0], t[1], **kw),
            lambda p, q: p @ q,
        ),
        OpCase(
            "matmul_optimized",
            ("R-3.1-02",),
            (m, n),
            lambda t, **kw: wia.matmul_optimized(t[0], t[1], matmul_config, **kw),
            lambda p, q: p @ q,
        ),
        OpCase(
            "conv2d",
            ("R-3.6.1-02",),
            (x, w),
            lambda t, **kw: wia.conv2d(t[0], t[1], conv_config, **kw),
            lambda p, q: ph.conv2d_reference(p, q, padding=(1, 1)),
            positional=lambda t, c: wia.conv2d(t[0], t[1], conv_config, c),
        ),
        OpCase(
            "batch_norm",
            ("R-3.6.1-03",),
            (x, *bn),
            lambda t, **kw: wia.batch_norm(t[0], t[1], t[2], t[3], t[4], **kw),
            batch_norm,
        ),
        OpCase(
            "pool2d",
            ("R-3.6.1-03",),
            (x,),
            lambda t, **kw: wia.pool2d(t[0], pool_config, **kw),
            lambda p: ph.pool2d_reference(p, "MAX", (2, 2)),
        ),
    ]


OP_CASES = _op_cases()


def _params(cases: Sequence[OpCase], *extra: str) -> list[Any]:
    return [pytest.param(c, marks=pytest.mark.req(*c.reqs, *extra), id=c.name) for c in cases]


def _check(case: OpCase, got: wia.Tensor, call: str) -> None:
    """The op's value, within a few float32 roundings of the float64 reference (the inputs are small integers, so
    sums and products are exact; exp, erf and square roots round)."""
    __tracebackhide__ = True
    ref = np.asarray(case.reference(*[i.astype(np.float64) for i in case.inputs]), dtype=np.float64)
    ph.assert_equal(got.shape, ref.shape, f"{call}.shape")
    slack = 4 * ph.ARITHMETIC_EPS["float32"] * (np.abs(ref) + 1)
    ph.assert_array_close(got.numpy(), ref.astype(np.float32), F32, call, slack=slack)


@pytest.mark.req("R-3.1-04")
@pytest.mark.parametrize("case", _params(OP_CASES))
def test_op_without_context_uses_the_default(case: OpCase, device: wia.Device) -> None:
    got = case.call([wia.tensor(i) for i in case.inputs])
    ph.assert_true(got.context is wia.get_default_context(), got.context, "the default context", f"{case.name}(...)")
    _check(case, got, f"{case.name}(...) without a context")


@pytest.mark.req("R-3.1-04")
@pytest.mark.parametrize("case", _params(OP_CASES))
def test_op_with_ctx_keyword(case: OpCase, ctx: wia.Context) -> None:
    got = case.call([wia.tensor(i, ctx=ctx) for i in case.inputs], ctx=ctx)
    ph.assert_true(got.context is ctx, got.context, "ctx", f"{case.name}(..., ctx=ctx).context")
    _check(case, got, f"{case.name}(..., ctx=ctx)")


@pytest.mark.req("R-3.1-04")
@pytest.mark.parametrize("case", _params([c for c in OP_CASES if c.positional is not None]))
def test_op_with_positional_context(case: OpCase, ctx: wia.Context) -> None:
    assert case.positional is not None
    got = case.positional([wia.tensor(i, ctx=ctx) for i in case.inputs], ctx)
    ph.assert_true(got.context is ctx, got.context, "ctx", f"{case.name}(..., ctx).context")
    _check(case, got, f"{case.name}(..., ctx)")


@pytest.mark.req("R-3.1-04")
@pytest.mark.parametrize("case", _params(OP_CASES))
def test_op_refuses_tensors_of_another_context(case: OpCase, new_context: Any) -> None:
    a, b = new_context(), new_context()
    tensors = [wia.tensor(i, ctx=a) for i in case.inputs]
    ph.assert_raises_code((E.INVALID_MEMORY, E.INVALID_CONTEXT), case.call, tensors, ctx=b)


@pytest.mark.req("R-3.1-04")
@pytest.mark.parametrize("case", _params(OP_CASES, "R-3.4-04"))
def test_op_with_stream_returns_before_its_work_is_done(case: OpCase, ctx: wia.Context, info: wia.DeviceInfo) -> None:
    """The op's inputs are made on the stream, then a long copy is queued on it, then the op: the call returns
    while the stream is still busy (an event recorded after it has not completed), and after
    ``stream_synchronize`` the result is right."""
    s = wia.create_stream(ctx)
    uploaded = [wia.tensor(i, ctx=ctx) for i in case.inputs]
    n = hh.work_bytes(info)
    busy_src, busy_dst = wia.alloc(ctx, n), wia.alloc(ctx, n)
    after = wia.create_event()
    staged = [wia.add(t, wia.zeros(t.shape, ctx=ctx, stream=s), stream=s) for t in uploaded]
    wia.copy_async(busy_src, busy_dst, n, s)
    got = case.call(staged, stream=s)
    wia.event_record(after, s)
    call = f"{case.name}(..., stream=s) behind a {n >> 20} MiB copy on s"
    ph.assert_equal(wia.event_query(after), False, f"event_query(event recorded after {call})")
    wia.stream_synchronize(s)
    ph.assert_equal(wia.event_query(after), True, f"event_query after stream_synchronize(s) [{call}]")
    ph.assert_true(got.context is ctx, got.context, "ctx (the stream's context)", f"{call}.context")
    _check(case, got, call)
    wia.destroy_stream(s)
