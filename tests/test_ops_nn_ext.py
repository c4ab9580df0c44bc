"""The model-building ops of issue 15 that are not element-wise: ``layer_norm``, ``rms_norm``, ``gather`` and
``embedding``, N-D ``batch_matmul``, ``softmax`` along any axis, ``copy_into`` (docs/ops.md "Beyond the spec").

Each against a float64 (exact, for gather) NumPy reference within the bounds of ``tests/numerics_reference.py``
(``docs/numerics.md``), on the simulator and the reference backend, with hypothesis drawing shapes (size 0 and 1
included), dtypes, layouts (contiguous, a transpose, a slice with junk around it) and fresh data; errors with their
codes; the simulator's costs from shapes alone (timing-only runs cost the same).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
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
from wia_sim.library import OPS, Operand
from wia_sim.library.norms import LAYER_NORM_FLOPS, RMS_NORM_FLOPS

E = wia.ErrorCode
DT: dict[str, np.dtype[Any]] = {
    name: np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)
    for name in ("float32", "float16", "bfloat16", "float64", "int8", "int32", "bool")
}
FLOATS = list(nr.FLOATS)
SEEDS = st.integers(0, 2**32 - 1)
BACKENDS = ("sim", "reference")

fast = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each test on the simulator and on the reference backend (a test only the simulator passes is a bug)."""
    name: str = request.param
    if name == "reference":
        wia.set_backend("reference")
    yield name


# -- layer_norm and rms_norm -----------------------------------------------------------------------------------------


@fast
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=9),
    dtype=st.sampled_from(FLOATS),
    params=st.sampled_from([(True, True), (True, False), (False, True), (False, False)]),
    scale=st.sampled_from([1e-3, 1.0, 30.0]),
    eps=st.sampled_from([1e-5, 1e-2]),
    layout=st.sampled_from(LAYOUTS),
    seed=SEEDS,
)
def test_layer_norm(
    backend: str,
    shape: tuple[int, ...],
    dtype: str,
    params: tuple[bool, bool],
    scale: float,
    eps: float,
    layout: str,
    seed: int,
) -> None:
    rng = np.random.default_rng(seed)
    x = nr.values(rng, DT[dtype], shape, scale)
    w = nr.values(rng, DT[dtype], shape[-1:], 2.0) if params[0] else None
    b = nr.values(rng, DT[dtype], shape[-1:], 2.0) if params[1] else None
    got = wia.layer_norm(
        upload(x, layout), None if w is None else wia.tensor(w), None if b is None else wia.tensor(b), eps=eps
    ).numpy()
    ref, bound = nr.layer_norm(x, w, b, eps, dtype)
    assert got.dtype == DT[dtype]
    nr.assert_within(got, ref, bound, f"layer_norm {dtype} {shape} {layout} eps={eps} params={params}")


@fast
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=9),
    dtype=st.sampled_from(FLOATS),
    weight=st.booleans(),
    scale=st.sampled_from([1e-3, 1.0, 30.0]),
    eps=st.sampled_from([1e-6, 1e-2]),
    layout=st.sampled_from(LAYOUTS),
    seed=SEEDS,
)
def test_rms_norm(
    backend: str, shape: tuple[int, ...], dtype: str, weight: bool, scale: float, eps: float, layout: str, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    x = nr.values(rng, DT[dtype], shape, scale)
    w = nr.values(rng, DT[dtype], shape[-1:], 2.0) if weight else None
    got = wia.rms_norm(upload(x, layout), None if w is None else wia.tensor(w), eps=eps).numpy()
    ref, bound = nr.rms_norm(x, w, eps, dtype)
    assert got.dtype == DT[dtype]
    nr.assert_within(got, ref, bound, f"rms_norm {dtype} {shape} {layout} eps={eps} weight={weight}")


@pytest.mark.parametrize("op", ["layer_norm", "rms_norm"])
def test_norm_defaults_follow_pytorch_and_llama(backend: str, op: str) -> None:
    """The default eps (1e-5 for LayerNorm, 1e-6 for RMSNorm) matters when the variance is that small; the
    variance is the biased one (an unbiased one is off by sqrt(K / (K - 1)), 15% for K = 4)."""
    x = np.array([[1e-3, -1e-3, 2e-3, -2e-3]], np.float64)
    got = getattr(wia, op)(wia.tensor(x)).numpy()
    layer = (x - x.mean()) / np.sqrt(x.var() + 1e-5)
    expected = layer if op == "layer_norm" else x / np.sqrt((x * x).mean() + 1e-6)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_layer_norm_of_a_constant_row_is_the_bias(backend: str) -> None:
    x = np.full((2, 5), 7.0, np.float32)
    b = np.arange(5, dtype=np.float32)
    got = wia.layer_norm(wia.tensor(x), wia.tensor(np.ones(5, np.float32)), wia.tensor(b)).numpy()
    np.testing.assert_array_equal(got, np.broadcast_to(b, (2, 5)))


# -- gather and embedding --------------------------------------------------------------------------------------------


def take(a: np.ndarray, indices: np.ndarray, axis: int) -> np.ndarray:
    """The documented semantics by a loop over the index positions: negative from the end, zeros out of range."""
    n = a.shape[axis]
    out = np.zeros((*a.shape[:axis], *indices.shape, *a.shape[axis + 1 :]), a.dtype)
    for pos in np.ndindex(*indices.shape):
        i = int(indices[pos])
        i = i + n if i < 0 else i
        if 0 <= i < n:
            out[(slice(None),) * axis + pos] = np.take(a, i, axis=axis)
    return out


@fast
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5),
    index_shape=hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=4),
    dtype=st.sampled_from(list(DT)),
    index_dtype=st.sampled_from(["int32", "int8"]),
    layout=st.sampled_from(LAYOUTS),
    data=st.data(),
    seed=SEEDS,
)
def test_gather(
    backend: str,
    shape: tuple[int, ...],
    index_shape: tuple[int, ...],
    dtype: str,
    index_dtype: str,
    layout: str,
    data: st.DataObject,
    seed: int,
) -> None:
    rng = np.random.default_rng(seed)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    n = shape[axis]
    a = nr.values(rng, DT[dtype], shape)
    indices = rng.integers(-n - 2, n + 2, size=index_shape, endpoint=True).astype(index_dtype)
    got = wia.gather(upload(a, layout), upload(indices, layout), axis=axis).numpy()
    nr.assert_exact(got, take(a, indices, axis % len(shape)), f"gather {dtype} {shape} axis={axis} {indices!r}")


def test_embedding_is_gather_along_axis_0(backend: str) -> None:
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    ids = np.array([[3, 0], [-1, 9]], np.int32)
    got = wia.embedding(wia.tensor(table), wia.tensor(ids)).numpy()
    expected = np.array([[table[3], table[0]], [table[3], np.zeros(3)]], np.float32)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(wia.gather(wia.tensor(table), wia.tensor(ids)).numpy(), expected)


# -- N-D batch_matmul ------------------------------------------------------------------------------------------------


@fast
@given(
    batches=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=1, max_side=3),
    sides=st.tuples(*[st.integers(0, 5)] * 3),
    dtype=st.sampled_from(["float32", "float16", "bfloat16", "float64", "int8"]),
    layouts=st.tuples(st.sampled_from(LAYOUTS), st.sampled_from(LAYOUTS)),
    seed=SEEDS,
)
def test_batch_matmul_broadcasts_batch_dimensions(
    backend: str,
    batches: Any,
    sides: tuple[int, int, int],
    dtype: str,
    layouts: tuple[str, str],
    seed: int,
) -> None:
    (batch_a, batch_b), (m, k, n) = batches.input_shapes, sides
    assume(len(batch_a) + len(batch_b) > 0)  # one operand has a batch dimension
    assume(dtype in wia.get_device_info(wia.get_device(0)).peak_flops_by_precision or dtype == "float32")
    rng = np.random.default_rng(seed)
    a, b = (nr.values(rng, DT[dtype], shape, 2.0) for shape in ((*batch_a, m, k), (*batch_b, k, n)))
    if dtype == "int8":
        a, b = nr.small_ints(rng, DT[dtype], a.shape), nr.small_ints(rng, DT[dtype], b.shape)
    got = wia.batch_matmul(upload(a, layouts[0]), upload(b, layouts[1])).numpy()
    what = f"batch_matmul {a.shape} @ {b.shape} {dtype} {layouts}"
    if dtype == "int8":
        nr.assert_exact(got, np.matmul(a.astype(np.int64), b.astype(np.int64)).astype(np.int32), what)
        return
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    terms = np.matmul(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
    assert got.dtype == DT[dtype] and got.shape == ref.shape
    nr.assert_within(got, ref, nr.dot_bound(ref, terms, k, dtype, dtype, False), what)


def test_batch_matmul_costs_the_broadcast_batch_and_reads_a_shared_weight_once() -> None:
    """A (K, N) weight shared by every batch is one GEMM of (B·M)×K by K×N in memory traffic: the model streams
    each operand once (the tiles of a shared operand are re-read from on-chip memory and cache, as within any
    GEMM); the FLOPs are those of the broadcast product."""
    a = wia.zeros((2, 3, 8, 16))
    w = wia.zeros((16, 4))
    report = wia.explain(wia.batch_matmul(a, w))
    assert report.useful_flops == 2 * (2 * 3) * 8 * 4 * 16
    assert report.bytes == (a.size + w.size + 2 * 3 * 8 * 4) * 4
    both = wia.explain(wia.batch_matmul(wia.zeros((2, 1, 8, 16)), wia.zeros((3, 16, 4))))
    assert both.useful_flops == 2 * (2 * 3) * 8 * 4 * 16
    assert both.bytes == (2 * 8 * 16 + 3 * 16 * 4 + 2 * 3 * 8 * 4) * 4


# -- softmax along any axis ------------------------------------------------------------------------------------------


@fast
@given(
    shape=hnp.array_shapes(min_dims=1, max_dims=4, min_side=0, max_side=6),
    dtype=st.sampled_from(FLOATS),
    layout=st.sampled_from(LAYOUTS),
    offset=st.sampled_from([0.0, 1000.0]),
    data=st.data(),
    seed=SEEDS,
)
def test_softmax_along_every_axis(
    backend: str, shape: tuple[int, ...], dtype: str, layout: str, offset: float, data: st.DataObject, seed: int
) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1), label="axis")
    x = (nr.values(np.random.default_rng(seed), DT[dtype], shape, 3.0).astype(np.float64) + offset).astype(DT[dtype])
    got = wia.softmax(upload(x, layout), axis=axis).numpy()
    ref = nr.softmax(x, axis) if x.size else x.astype(np.float64)
    bound = nr.softmax_bound(ref, x, axis, dtype) if x.size else ref
    nr.assert_within(got, ref, bound, f"softmax {dtype} {shape} axis={axis} {layout} offset={offset}")


def test_softmax_costs_the_chosen_axis_as_its_row() -> None:
    """wia-tiny keeps 32 KiB of a row on chip: a 16 Ki-element float32 row (64 KiB) is read again, a 4-element row
    is not, whichever axis is the row and however the data lie."""
    long_rows = wia.explain(wia.softmax(wia.zeros((1 << 14, 4)), axis=0))
    same_rows = wia.explain(wia.softmax(wia.zeros((4, 1 << 14)), axis=1))
    short_rows = wia.explain(wia.softmax(wia.zeros((1 << 14, 4)), axis=1))
    moved = 2 * (1 << 16) * 4  # the input read and the output written once
    assert short_rows.bytes == moved
    assert long_rows.bytes == same_rows.bytes > moved
    assert long_rows.duration_ms == same_rows.duration_ms > short_rows.duration_ms


# -- copy_into -------------------------------------------------------------------------------------------------------


def test_copy_into_a_kv_cache_slice_and_read_the_whole_back(backend: str) -> None:
    cache = np.arange(2 * 8 * 3, dtype=np.float32).reshape(2, 8, 3)
    kv = wia.tensor(cache)
    new = np.full((2, 2, 3), -1.0, np.float32)
    dst = wia.slice(kv, [0, 5], [2, 7])
    assert wia.copy_into(dst, wia.tensor(new)) is dst
    expected = cache.copy()
    expected[:, 5:7] = new
    np.testing.assert_array_equal(kv.numpy(), expected)
    # a view of a view (a transposed slice), a broadcast source, then a 0-d one
    inner = wia.transpose(wia.slice(kv, [1, 0, 1], [2, 3, 3]), (2, 1, 0))  # (2, 3, 1)
    wia.copy_into(inner, wia.tensor(np.array([[5.0], [6.0], [7.0]], np.float32)))
    expected[1, 0:3, 1:3] = np.array([5.0, 6.0, 7.0])[:, None]
    np.testing.assert_array_equal(kv.numpy(), expected)
    wia.copy_into(wia.slice(kv, [0, 0, 0], [1, 1, 3]), wia.tensor(np.float32(9)))
    expected[0, 0, :] = 9
    np.testing.assert_array_equal(kv.numpy(), expected)


def test_copy_into_an_overlapping_source_reads_it_whole_first(backend: str) -> None:
    x = wia.tensor(np.arange(10, dtype=np.int32))
    wia.copy_into(wia.slice(x, [1], [10]), wia.slice(x, [0], [9]))  # shift right by one, in place
    np.testing.assert_array_equal(x.numpy(), [0, 0, 1, 2, 3, 4, 5, 6, 7, 8])
    wia.copy_into(x, x)  # onto itself: nothing changes
    np.testing.assert_array_equal(x.numpy(), [0, 0, 1, 2, 3, 4, 5, 6, 7, 8])


def test_copy_into_makes_the_copy_the_destination_s_producer() -> None:
    kv = wia.zeros((4, 16))
    dst = wia.slice(kv, [1], [3])
    wia.copy_into(dst, wia.zeros(16))
    report = wia.explain(dst)
    assert report.name == "copy" and report.bytes == (16 + 2 * 16) * 4


def test_a_failed_copy_into_leaves_the_destination_alive_and_unchanged() -> None:
    """The copy cannot be submitted (the device was lost): the user's tensor is not released, nor its producer
    replaced (an op's own output would be released)."""
    dst = wia.tensor(np.ones(4, np.float32))
    src = wia.zeros(4)
    wia.context_synchronize()
    wia.inject_fault(wia.Fault(kind=wia.FaultKind.DEVICE_LOST, after_ops=0))
    wia.relu(src)
    with pytest.raises(wia.DeviceLostError):
        wia.context_synchronize()
    with pytest.raises(wia.DeviceLostError):
        wia.copy_into(dst, src)
    assert not dst.released and dst.producer is None


def test_copy_into_a_slice_written_while_another_stream_reads_the_cache_is_a_hazard() -> None:
    """The sim's hazard check sees the write to the slice's bytes, not the whole cache's: a read of the rest of the
    cache on another stream is no hazard; a read of the cache as a whole is."""
    wia.set_backend("sim", hardware="wia-tiny", hazards="warn")
    ctx = wia.create_context()
    reader, writer = wia.create_stream(ctx), wia.create_stream(ctx)
    kv = wia.zeros((2, 1024), ctx=ctx)
    new = wia.zeros(1024, ctx=ctx)
    wia.context_synchronize(ctx)
    backend: Any = wia.get_backend()
    before = len(backend.machine.hazards)
    wia.relu(wia.slice(kv, [0], [1]), stream=reader)  # reads row 0
    with pytest.warns(wia.StreamHazardWarning, match="write-after-read"):
        wia.relu(kv, stream=reader)  # reads both rows
        wia.copy_into(wia.slice(kv, [1], [2]), new, stream=writer)  # writes row 1
    (finding,) = backend.machine.hazards[before:]
    assert (finding.lo, finding.hi) == (kv.offset + 4096, kv.offset + 8192)


def test_the_hazard_check_forgets_kv_cache_slots_the_host_saw_written() -> None:
    """Each decode step writes a new slot of the cache (a strided range no later write covers); once the host has
    seen a write complete it can never race again, so the detector drops it instead of scanning every past slot."""
    wia.set_backend("sim", hardware="wia-tiny", hazards="warn")
    kv = wia.zeros((4, 64, 8))
    step = wia.zeros((4, 1, 8))
    for pos in range(32):
        wia.copy_into(wia.slice(kv, [0, pos], [4, pos + 1]), step)
        wia.context_synchronize()
    backend: Any = wia.get_backend()
    shadow = backend.machine.detector.shadows[kv.memory.buffer]
    assert len(getattr(shadow, "cells", [None])) <= 2


# -- errors ----------------------------------------------------------------------------------------------------------


def _f(*shape: int, dtype: Any = np.float32) -> wia.Tensor:
    return wia.zeros(shape, dtype)


ERRORS: list[tuple[str, Callable[[], object], list[str]]] = [
    ("layer_norm ints", lambda: wia.layer_norm(_f(2, 3, dtype=np.int32)), ["floating-point", "int32"]),
    ("layer_norm 0-d", lambda: wia.layer_norm(_f()), ["0-d"]),
    ("layer_norm weight shape", lambda: wia.layer_norm(_f(2, 3), _f(2)), ["weight", "(3,)", "(2,)"]),
    ("layer_norm bias dtype", lambda: wia.layer_norm(_f(2, 3), None, _f(3, dtype=np.float16)), ["bias", "float16"]),
    ("layer_norm eps", lambda: wia.layer_norm(_f(2, 3), eps=0.0), ["eps", "positive"]),
    ("layer_norm numpy weight", lambda: wia.layer_norm(_f(2, 3), np.ones(3)), ["weight", "Tensor"]),
    ("rms_norm ints", lambda: wia.rms_norm(_f(3, dtype=np.int8)), ["floating-point", "int8"]),
    ("rms_norm weight shape", lambda: wia.rms_norm(_f(2, 3), _f(3, 1)), ["weight", "(3,)", "(3, 1)"]),
    ("rms_norm eps", lambda: wia.rms_norm(_f(3), eps=True), ["eps", "True"]),
    ("gather float indices", lambda: wia.gather(_f(4), _f(2)), ["indices", "int32", "float32"]),
    ("gather bool indices", lambda: wia.gather(_f(4), _f(2, dtype=np.bool_)), ["indices", "int8", "bool"]),
    ("gather axis", lambda: wia.gather(_f(4, 2), _f(2, dtype=np.int32), axis=2), ["axis 2", "out of range"]),
    ("gather axis type", lambda: wia.gather(_f(4, 2), _f(2, dtype=np.int32), axis=1.0), ["axis", "int"]),
    ("gather 0-d", lambda: wia.gather(_f(), _f(2, dtype=np.int32)), ["0-d"]),
    ("embedding ids", lambda: wia.embedding(_f(4, 3), _f(2)), ["ids", "float32"]),
    ("batch_matmul 2-D", lambda: wia.batch_matmul(_f(2, 3), _f(3, 4)), ["(2, 3)", "(3, 4)", "3-D"]),
    ("batch_matmul batch", lambda: wia.batch_matmul(_f(2, 2, 3), _f(3, 3, 4)), ["(2, 2, 3)", "broadcast"]),
    ("softmax axis", lambda: wia.softmax(_f(2, 3, 4), axis=-4), ["axis -4", "out of range"]),
    ("copy_into dtype", lambda: wia.copy_into(_f(3), _f(3, dtype=np.float16)), ["float16", "float32", "dtypes"]),
    ("copy_into shape", lambda: wia.copy_into(_f(3), _f(2, 3)), ["(2, 3)", "(3,)", "broadcast"]),
    ("copy_into host", lambda: wia.copy_into(wia.zeros(3, memory=wia.MemoryType.HOST), _f(3)), ["HOST"]),
]


@pytest.mark.parametrize(("what", "call", "needles"), ERRORS, ids=[e[0] for e in ERRORS])
def test_bad_calls_are_errors_that_say_what_was_wrong(
    what: str, call: Callable[[], object], needles: list[str]
) -> None:
    with pytest.raises(wia.WiaError) as info:
        call()
    code = E.INVALID_MEMORY if what == "copy_into host" else E.INVALID_VALUE
    assert info.value.code == code, f"{what}: {info.value.code.name}"
    for needle in needles:
        assert needle in str(info.value), f"{what}: {needle!r} not in {info.value}"


# -- the simulator's costs -------------------------------------------------------------------------------------------


def _program() -> list[wia.Tensor]:
    """One of each op, at sizes where rows stay on chip (layer norm) and do not (the long softmax row)."""
    x = wia.zeros((8, 2048), wia.float16)
    w = wia.zeros(2048, wia.float16)
    ids = wia.zeros((4, 3), wia.int32)
    kv = wia.zeros((2, 64, 32))
    return [
        wia.layer_norm(x, w, w),
        wia.rms_norm(x, w),
        wia.layer_norm(wia.zeros((2, 1 << 14))),
        wia.gather(x, ids),
        wia.embedding(x, wia.zeros(5, wia.int8)),
        wia.batch_matmul(wia.zeros((2, 3, 16, 32)), wia.zeros((3, 32, 8))),
        wia.softmax(wia.zeros((6, 40, 5)), axis=1),
        wia.copy_into(wia.slice(kv, [0, 7], [2, 9]), wia.zeros((2, 1, 32))),
    ]


def _costs(numerics: bool) -> list[tuple[str, float, float, float]]:
    wia.set_backend("sim", hardware="nvidia-h100-sxm5-80gb", numerics=numerics)
    reports = [wia.explain(t) for t in _program()]
    return [(r.name, r.flops, r.bytes, r.duration_ms) for r in reports]


def test_timing_only_runs_cost_the_same() -> None:
    assert _costs(numerics=False) == _costs(numerics=True)


def test_a_gather_costs_the_same_whatever_its_index_values() -> None:
    table = wia.zeros((1000, 64))
    near = wia.explain(wia.gather(table, wia.tensor(np.zeros(16, np.int32))))
    far = wia.explain(wia.gather(table, wia.tensor(np.arange(16, dtype=np.int32) * 61)))
    assert near == far.model_copy(update={"started_ms": near.started_ms, "ended_ms": near.ended_ms})
    assert near.bytes == 16 * 4 + 2 * 16 * 64 * 4  # the indices, the gathered rows, the output


def test_norm_costs_read_the_row_once_with_the_parameters_and_count_the_flops_they_execute() -> None:
    from wia_sim.hwmodel import load_model

    model = load_model("nvidia-h100-sxm5-80gb")
    x, w = Operand((64, 4096), np.dtype(np.float16)), Operand((4096,), np.dtype(np.float16))
    full = OPS["layer_norm"].cost(model, [x, w, w], x, {"weight": True, "bias": True, "eps": 1e-5})
    bare = OPS["layer_norm"].cost(model, [x], x, {"weight": False, "bias": False, "eps": 1e-5})
    rms = OPS["rms_norm"].cost(model, [x, w], x, {"weight": True, "eps": 1e-6})
    assert full.bytes == 2 * x.nbytes + 2 * w.nbytes and bare.bytes == 2 * x.nbytes
    assert rms.bytes == 2 * x.nbytes + w.nbytes
    assert full.flops == x.size * (LAYER_NORM_FLOPS + 2) and bare.flops == x.size * LAYER_NORM_FLOPS
    assert rms.flops == x.size * (RMS_NORM_FLOPS + 1)
    # a row too long for one work-group's local memory is read a second time (from the cache or memory)
    long = Operand((4, 1 << 16), np.dtype(np.float32))
    assert OPS["rms_norm"].cost(model, [long], long, {"weight": False, "eps": 1e-6}).bytes > 2 * long.nbytes
