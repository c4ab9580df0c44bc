"""SPEC 3.7 (Level 1 part): ``tensor``, ``empty``, ``zeros``, ``.numpy()``, ``add``, ``mul``, ``relu`` and
``release_tensor``, against a float64 NumPy reference rounded to the data type (tolerances: ``ph.TOLERANCES``)."""

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
@pytest.mark.parametrize("value", [None, 1.0, np.ones(3, np.float32)], ids=["None", "float", "ndarray"])
def test_non_tensor_operands(op: str, value: Any, device: wia.Device) -> None:
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
