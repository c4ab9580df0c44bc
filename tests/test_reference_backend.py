"""The ``reference`` backend (NumPy on the host, no simulator) through the public API.

The conformance suite is its real test (``wia-conformance --backend reference``); these are quick checks of what
is particular to it: its options, its honest device description, its import isolation and a few numeric rules.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import ml_dtypes
import numpy as np
import pytest

import wia_hal as wia
from wia_hal.backends.reference import ReferenceBackend
from wia_hal.runtime import runtime

M = wia.MemoryType


def _destroy_contexts() -> None:
    for ctx in list(runtime().contexts):
        ctx.destroy()


@pytest.fixture
def reference() -> Iterator[ReferenceBackend]:
    backend = ReferenceBackend()
    wia.set_backend(backend)
    yield backend
    _destroy_contexts()
    wia.set_backend("sim")


def test_importing_it_does_not_import_the_simulator() -> None:
    code = "import wia_hal.backends.reference, sys; assert not any(m.startswith('wia_sim') for m in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_it_is_selectable_by_name_with_options_from_strings() -> None:
    wia.register_backend("reference", ReferenceBackend)
    try:
        wia.set_backend("reference", devices="2", memory="1MiB")
        assert wia.get_device_count() == 2
        info = wia.get_device_info(wia.get_device(1))
        assert info.memory_size == 1 << 20
        assert info.backend == "reference"
    finally:
        _destroy_contexts()
        wia.set_backend("sim")


@pytest.mark.parametrize("options", [{"devices": "0"}, {"devices": "two"}, {"memory": "-5"}, {"memory": True}])
def test_bad_options_are_invalid_value(options: dict[str, object]) -> None:
    with pytest.raises(wia.InvalidValueError, match="reference backend option"):
        ReferenceBackend(**options)  # type: ignore[arg-type]


def test_device_info_and_capabilities_are_honest(reference: ReferenceBackend) -> None:
    device = wia.get_device(0)
    info = wia.get_device_info(device)
    caps = wia.get_device_capabilities(device)
    assert info.type is wia.DeviceType.CPU
    assert info.vendor == "wia reference (NumPy)"
    assert "measured" in info.architecture
    assert info.memory_bandwidth > 0 and info.peak_flops == info.peak_flops_by_precision["float32"] > 0
    assert set(info.peak_flops_by_precision) == {"float32", "tf32", "float16", "bfloat16", "float8", "float64", "int8"}
    assert not (caps.supports_custom_kernels or caps.supports_peer_to_peer or caps.supports_profiling)
    assert caps.supports_unified_memory and caps.supports_managed_memory and caps.supports_pinned_memory


def test_what_it_does_not_offer_is_not_supported(reference: ReferenceBackend) -> None:
    ctx = wia.create_context()
    with pytest.raises(wia.NotSupportedError):
        wia.compile_kernel(ctx, "__kernel void k(__global float* x) { x[0] = 1.0f; }", "k")
    with pytest.raises(wia.NotSupportedError):
        wia.create_context(wia.ContextConfig(enable_profiling=True))


def test_explain_is_not_supported(reference: ReferenceBackend) -> None:
    with pytest.raises(wia.NotSupportedError):
        wia.explain(wia.relu(wia.tensor(np.ones(3, np.float32))))


def test_device_memory_is_a_budget(reference: ReferenceBackend) -> None:
    wia.set_backend(ReferenceBackend(memory="64KiB"))
    ctx = wia.create_context()
    kept = wia.alloc(ctx, 40 << 10)
    with pytest.raises(wia.OutOfMemoryError, match=r"32768 bytes requested, 40960 of 65536 bytes in use"):
        wia.alloc(ctx, 32 << 10, M.UNIFIED)
    host = wia.alloc(ctx, 1 << 20, M.PINNED)  # host memory is not the device's
    wia.free(kept)
    wia.free(wia.alloc(ctx, 64 << 10))
    wia.free(host)


def test_unified_memory_is_shared_with_the_host(reference: ReferenceBackend) -> None:
    t = wia.tensor(np.zeros(4, np.float32), memory=M.UNIFIED)
    wia.memory_ptr(t.memory)[:] = np.arange(4, dtype=np.float32).view(np.uint8)
    y = wia.add(t, t)
    np.testing.assert_array_equal(y.numpy(), [0, 2, 4, 6])


def test_queues_complete_at_enqueue_and_time_is_host_time(reference: ReferenceBackend) -> None:
    ctx = wia.create_context()
    s = wia.create_stream(ctx)
    start, end = wia.create_event(), wia.create_event()
    wia.event_record(start, s)
    x = wia.tensor(np.ones((64, 64), np.float32), ctx=ctx)
    y = wia.matmul(x, x, stream=s)
    wia.event_record(end, s)
    assert wia.event_query(end)
    assert wia.event_elapsed_time(start, end) >= 0.0
    np.testing.assert_array_equal(y.numpy(), np.full((64, 64), 64, np.float32))


def test_integer_and_bool_rules(reference: ReferenceBackend) -> None:
    a = wia.tensor(np.array([100, -100, 7], np.int8))
    np.testing.assert_array_equal(wia.add(a, a).numpy(), np.array([-56, 56, 14], np.int8))
    total = wia.sum(wia.tensor(np.full(300, 100, np.int8)))
    assert total.dtype == wia.int32 and int(total.numpy()) == 30000
    big = wia.tensor(np.array([2**31 - 1, 1], np.int32))
    assert int(wia.sum(big).numpy()) == -(2**31)
    p, q = wia.tensor(np.array([True, False, False])), wia.tensor(np.array([True, True, False]))
    np.testing.assert_array_equal(wia.add(p, q).numpy(), [True, True, False])
    np.testing.assert_array_equal(wia.mul(p, q).numpy(), [True, False, False])


def test_low_precision_computes_in_float32_and_rounds_once(reference: ReferenceBackend) -> None:
    bf16 = np.dtype(ml_dtypes.bfloat16)
    x = np.array([1.0, 2.0**-8, 3.0], bf16)
    got = wia.add(wia.tensor(x), wia.tensor(np.array([2.0**-8] * 3, bf16))).numpy()
    np.testing.assert_array_equal(got, (x.astype(np.float32) + np.float32(2.0**-8)).astype(bf16))


def test_matmul_precisions_round_the_operands(reference: ReferenceBackend) -> None:
    a = np.array([[1 + 2.0**-12, 1 + 2.0**-20]], np.float32)  # TF32 rounds 1 + 2^-12 to 1, keeps 1 + 2^-10
    b = np.ones((2, 1), np.float32)
    ta, tb = wia.tensor(a), wia.tensor(b)
    assert float(wia.matmul(ta, tb).numpy()[0, 0]) == np.float32(a.sum())
    tf32 = wia.matmul_optimized(ta, tb, wia.MatmulConfig(precision=wia.Precision.TF32))
    assert float(tf32.numpy()[0, 0]) == 2.0
    i8 = wia.tensor(np.full((1, 3), 127, np.int8))
    product = wia.matmul(i8, wia.tensor(np.full((3, 1), -128, np.int8)))
    assert product.dtype == wia.int32 and int(product.numpy()[0, 0]) == 3 * 127 * -128
    fp8 = wia.matmul_optimized(ta, tb, wia.MatmulConfig(precision=wia.Precision.FP8))
    assert float(fp8.numpy()[0, 0]) == 2.0


def _conv_loops(x: np.ndarray, w: np.ndarray, bias: np.ndarray, pad: int, stride: int, groups: int) -> np.ndarray:
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for b in range(n):
        for k in range(o):
            g = k // (o // groups)
            for i in range(oh):
                for j in range(ow):
                    window = xp[b, g * cg : (g + 1) * cg, i * stride : i * stride + kh, j * stride : j * stride + kw]
                    out[b, k, i, j] = np.sum(window * w[k]) + bias[k]
    return out


def test_conv2d_with_groups_stride_padding_and_bias(reference: ReferenceBackend) -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(-4, 5, (2, 4, 6, 5)).astype(np.float32)
    w = rng.integers(-4, 5, (6, 2, 3, 2)).astype(np.float32)
    bias = np.arange(6, dtype=np.float32)
    config = wia.ConvConfig(padding=1, stride=2, groups=2)
    got = wia.conv2d(wia.tensor(x), wia.tensor(w), config, bias=wia.tensor(bias)).numpy()
    np.testing.assert_array_equal(got, _conv_loops(x, w, bias, 1, 2, 2))


def test_pooling_padding_rules(reference: ReferenceBackend) -> None:
    x = wia.tensor(-np.ones((1, 1, 2, 2), np.float32))
    avg = wia.pool2d(x, wia.PoolConfig(type=wia.PoolType.AVG, kernel_size=2, stride=1, padding=1)).numpy()
    assert avg[0, 0, 0, 0] == -0.25  # one real element over the whole 2x2 window
    top = wia.pool2d(x, wia.PoolConfig(type=wia.PoolType.MAX, kernel_size=2, stride=1, padding=1)).numpy()
    np.testing.assert_array_equal(top, -np.ones((1, 1, 3, 3), np.float32))  # padding never wins


def test_ops_read_and_write_strided_views(reference: ReferenceBackend) -> None:
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    t = wia.transpose(wia.slice(wia.tensor(data), [1, 0], [4, 6]))  # (6, 3), neither contiguous nor at offset 0
    np.testing.assert_array_equal(t.numpy(), data[1:].T)
    np.testing.assert_allclose(wia.softmax(t, axis=0).numpy(), _softmax(data[1:].T, 0), rtol=1e-6)
    np.testing.assert_array_equal(wia.max(t, axis=(0,), keepdims=True).numpy(), data[1:].T.max(0, keepdims=True))


def _softmax(x: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(x - x.max(axis, keepdims=True))
    return np.asarray(e / e.sum(axis, keepdims=True))
