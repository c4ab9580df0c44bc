"""add, mul, relu against a float64 NumPy reference, over shapes (broadcasting, size 0 and 1) and every dtype.

Tolerance per dtype: float32 and float64 results of one add or multiply are correctly rounded, so they must equal
the float64 reference rounded once; float16 and bfloat16 are computed in float32 and rounded again, which may
differ from single rounding by one unit in the last place (rtol 2^-10 and 2^-7); integers wrap like hardware and
must be exact; bool add/mul are or/and.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import wia_hal as wia

DTYPES = ["float32", "float16", "bfloat16", "int8", "int32", "float64", "bool"]
ULP = {"float16": 2.0**-10, "bfloat16": 2.0**-7}


def _values(dtype: np.dtype, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)
    return (rng.standard_normal(shape) * 100).astype(dtype)


def _reference(op: str, *arrays: np.ndarray) -> np.ndarray:
    dtype = arrays[0].dtype
    if dtype.kind == "b":
        return {"add": np.logical_or, "mul": np.logical_and}[op](*arrays) if op != "relu" else arrays[0]
    wide = [a.astype(np.int64 if dtype.kind == "i" else np.float64) for a in arrays]
    result = {"add": np.add, "mul": np.multiply, "relu": lambda x: np.maximum(x, 0)}[op](*wide)
    return result.astype(dtype)  # integer results wrap, as the device's do


def _check(op: str, got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    name = got.dtype.name
    if name in ULP:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=ULP[name], atol=0)
    else:
        np.testing.assert_array_equal(got, want, err_msg=op)


shapes = hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6)


@settings(max_examples=60, deadline=None)
@given(
    shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, min_side=0, max_side=5),
    dtype=st.sampled_from(DTYPES),
    op=st.sampled_from(["add", "mul"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_binary_ops_broadcast_like_numpy(shapes: hnp.BroadcastableShapes, dtype: str, op: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    wdtype = wia.dtypes.as_dtype(dtype)  # type: ignore[attr-defined]
    a, b = (_values(wdtype, s, rng) for s in shapes.input_shapes)
    out = getattr(wia, op)(wia.tensor(a), wia.tensor(b)).numpy()
    _check(op, out, _reference(op, a, b))
    assert out.shape == shapes.result_shape


@settings(max_examples=40, deadline=None)
@given(shape=shapes, dtype=st.sampled_from(DTYPES), seed=st.integers(0, 2**32 - 1))
def test_relu(shape: tuple[int, ...], dtype: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = _values(wia.dtypes.as_dtype(dtype), shape, rng)  # type: ignore[attr-defined]
    _check("relu", wia.relu(wia.tensor(a)).numpy(), _reference("relu", a))


def test_relu_keeps_nan_and_signed_zero_inputs() -> None:
    a = np.array([np.nan, -0.0, 0.0, -np.inf, np.inf, -1e-45], np.float32)
    out = wia.relu(wia.tensor(a)).numpy()
    assert np.isnan(out[0])
    np.testing.assert_array_equal(out[1:], [0.0, 0.0, 0.0, np.inf, 0.0])


def test_int8_arithmetic_wraps() -> None:
    a = wia.tensor(np.array([127, -128, 100], np.int8))
    np.testing.assert_array_equal(wia.add(a, a).numpy(), np.array([-2, 0, -56], np.int8))


def test_bfloat16_rounds_once_from_float32() -> None:
    a = np.array([1.0, 3.0, 1e-3], ml_dtypes.bfloat16)
    b = np.array([2.0**-8, 2.0**-9, 1e-3], ml_dtypes.bfloat16)
    got = wia.add(wia.tensor(a), wia.tensor(b)).numpy()
    want = (a.astype(np.float32) + b.astype(np.float32)).astype(ml_dtypes.bfloat16)
    assert got.tobytes() == want.tobytes()


def test_large_tensor_round_trip_and_add() -> None:
    rng = np.random.default_rng(5)
    a = rng.random((1024, 1024), np.float32)
    b = rng.random(1024, np.float32)
    np.testing.assert_array_equal(wia.add(wia.tensor(a), wia.tensor(b)).numpy(), a + b)


def test_non_contiguous_input_is_copied_in_order() -> None:
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    view = base[:, ::2].T  # strided and transposed
    np.testing.assert_array_equal(wia.tensor(view).numpy(), view)


@pytest.mark.parametrize("dtype", DTYPES)
def test_zeros_and_empty_have_the_shape_and_dtype(dtype: str) -> None:
    z = wia.zeros((3, 0, 2), dtype)
    assert z.shape == (3, 0, 2) and z.dtype.name == dtype and z.numpy().shape == (3, 0, 2)
    z = wia.zeros((5, 4), dtype)
    assert not z.numpy().any()
    e = wia.empty(7, dtype)
    assert e.shape == (7,) and e.numpy().dtype.name == dtype


def test_scalar_tensors() -> None:
    a = wia.tensor(np.float32(2.5))
    assert a.shape == () and a.ndim == 0
    assert wia.mul(a, a).numpy() == np.float32(6.25)


def test_tensors_in_unified_and_managed_memory_are_device_visible() -> None:
    for memory in (wia.MemoryType.UNIFIED, wia.MemoryType.MANAGED):
        a = wia.tensor(np.array([1.0, -2.0], np.float32), memory=memory)
        host = wia.memory_ptr(a.memory).view(np.float32)
        host[1] = 7.0  # a host write, no explicit copy
        np.testing.assert_array_equal(wia.relu(a).numpy(), [1.0, 7.0])


def test_dropping_a_tensor_releases_its_memory() -> None:
    ctx = wia.create_context(wia.ContextConfig(default_pool=False))  # each tensor its own allocation
    wia.tensor(np.ones(1024, np.float32), ctx=ctx)  # not kept
    assert ctx.bytes_allocated == 0
    kept = wia.tensor(np.ones(1024, np.float32), ctx=ctx)
    assert ctx.bytes_allocated == kept.nbytes
    wia.release_tensor(kept)
    assert ctx.bytes_allocated == 0


def test_create_tensor_unified_and_device() -> None:
    u = wia.create_tensor_unified((2, 3), "float32")
    assert u.memory_type is wia.MemoryType.UNIFIED
    wia.memory_ptr(u.memory).view(np.float32)[:] = -1.5
    np.testing.assert_array_equal(wia.relu(u).numpy(), np.zeros((2, 3), np.float32))
    d = wia.create_tensor_device(4, "int32")
    assert d.memory_type is wia.MemoryType.DEVICE and d.shape == (4,)


def test_unified_tensor_on_a_device_without_unified_memory_is_not_supported(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from wia_sim.hwmodel import model_path

    text = model_path("wia-tiny").read_text().replace("unified_memory = true", "unified_memory = false")
    path = tmp_path / "no-unified.toml"
    path.write_text(text)
    wia.set_backend("sim", hardware=str(path))
    with pytest.raises(wia.NotSupportedError, match="UNIFIED"):
        wia.create_tensor_unified(4)


def test_python_numbers_default_to_float32_and_int32() -> None:
    assert wia.tensor([1.0, 2.0]).dtype == np.float32
    assert wia.tensor([[1, 2]]).dtype == np.int32
    assert wia.tensor(np.ones(2)).dtype == np.float64  # a NumPy array keeps its dtype
    with pytest.raises(wia.InvalidValueError, match="int32's range"):
        wia.tensor([2**40])
