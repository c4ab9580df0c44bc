"""scaled_dot_product_attention on the OpenCL backend (Oclgrind and PoCL): the online-softmax kernel against the
float64 reference and bound of ``test_attention`` and against the simulator, at small sizes (Oclgrind interprets
every work-item). Skipped, with the reason, without PyOpenCL or without the device."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from test_attention import random_data, reference

import wia_hal as wia
from wia_hal.runtime import runtime

pytest.importorskip("pyopencl", reason="PyOpenCL is not installed (pip install 'wia[opencl]')")

from wia_hal.backends.opencl import OpenCLBackend, discovery

_BACKENDS: dict[str, OpenCLBackend] = {}


@pytest.fixture(params=["pocl", "oclgrind"])
def device(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[OpenCLBackend]:
    name: str = request.param
    if not any(name in c.searched.lower() for c in discovery.candidates()):
        pytest.skip(f"no OpenCL device matches {name!r}")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WIA_CACHE_DIR", str(tmp_path_factory.mktemp("wia-cache")))
        if name not in _BACKENDS:
            _BACKENDS[name] = OpenCLBackend(device=name)
        yield _BACKENDS[name]
    for ctx in list(runtime().contexts):
        ctx.destroy()


def _on(backend: object, q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None, **kw: Any) -> np.ndarray:
    wia.set_backend(backend)  # type: ignore[arg-type]
    tensors = [wia.tensor(x) for x in (q, k, v)]
    if q.ndim == 4:  # read q through a transposed view: (batch, length, heads, dim) stored, (batch, heads, ...) used
        tensors[0] = wia.transpose(wia.tensor(np.ascontiguousarray(q.transpose(0, 2, 1, 3))), (0, 2, 1, 3))
    m = None if mask is None else wia.tensor(mask)
    result = wia.scaled_dot_product_attention(*tensors, mask=m, **kw).numpy()
    for ctx in list(runtime().contexts):
        ctx.destroy()
    return result


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16", "float64"])
def test_the_kernel_matches_float64_and_the_simulator(device: OpenCLBackend, dtype: str) -> None:
    wia.set_backend(device)
    if dtype == "float64" and not wia.get_device_capabilities(wia.get_device(0)).supports_float64:
        pytest.skip("the device has no float64")
    rng = np.random.default_rng()
    q, k, v = (
        random_data(rng, (2, 4, 3, 5), dtype),
        random_data(rng, (2, 2, 6, 5), dtype),
        random_data(rng, (2, 2, 6, 3), dtype),
    )
    keep = rng.random((3, 6)) < 0.6
    keep[1] = False  # query 1 sees no key: zeros
    bias = random_data(rng, (2, 1, 1, 6), dtype)
    bias[0, ..., 5] = -np.inf
    for mask, causal in ((None, False), (keep, False), (bias, True), (None, True)):
        got = _on(device, q, k, v, mask, causal=causal)
        ref, bound = reference(q, k, v, mask=mask, causal=causal)
        assert np.all(np.abs(got.astype(np.float64) - ref) <= bound), (dtype, mask is not None, causal)
        sim = _on("sim", q, k, v, mask, causal=causal)
        _, sim_bound = reference(q, k, v, mask=mask, causal=causal)
        assert np.all(np.abs(got.astype(np.float64) - sim.astype(np.float64)) <= 2 * sim_bound)
    assert np.all(_on(device, q, k, v, keep)[:, :, 1] == 0)


def test_more_queries_than_keys_and_no_keys(device: OpenCLBackend) -> None:
    rng = np.random.default_rng()
    q, k, v = (
        random_data(rng, (3, 7, 4), "float32"),
        random_data(rng, (3, 4, 4), "float32"),
        random_data(rng, (3, 4, 2), "float32"),
    )
    got = _on(device, q, k, v, None, causal=True)
    ref, bound = reference(q, k, v, causal=True)
    assert np.all(np.abs(got - ref) <= bound) and np.all(got[:, :3] == 0)
    empty = _on(device, q, k[:, :0], v[:, :0], None)
    assert empty.shape == (3, 7, 2) and np.all(empty == 0)
