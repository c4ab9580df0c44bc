"""Hypothesis strategies of the suite (imported as ``hh``), and the suite's hypothesis settings and sizes.

Shapes include size-1 and size-0 dimensions and 0-d shapes; values are finite and bounded so that ``add`` and
``mul`` of two of them stay in range for their data type (no overflow, no wrap-around: the spec says nothing about
either). Examples are few (:data:`MAX_EXAMPLES`) and, unless ``--hypothesis-seed`` is given, derandomized: every
run tries the same examples and a failure reproduces by running the test again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import numpy.typing as npt
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import wia_hal as wia
from conformance.assertions import claimed_dtypes

MAX_EXAMPLES = 25

ALL_DTYPES: tuple[np.dtype[Any], ...] = tuple(
    np.dtype(d) for d in (wia.float32, wia.float16, wia.bfloat16, wia.int8, wia.int32, wia.float64, wia.bool_)
)
"""Every WIA data type (SPEC 3.7 binding), required and optional."""

MAGNITUDE: dict[str, float] = {
    "float64": 1e4,
    "float32": 1e4,
    "float16": 200.0,  # 200 * 200 = 40000 < 65504, the largest float16
    "bfloat16": 1e4,
    "int32": 46340,  # floor(sqrt(2**31 - 1)): products stay in range
    "int8": 11,  # 11 * 11 = 121 <= 127
}
"""The largest ``|value|`` generated per data type, so that a sum or a product of two values stays in range."""

PRODUCT_MAGNITUDE: dict[str, float] = {
    **MAGNITUDE,
    "float16": 32.0,  # 48 products of 32 * 32 sum to 49152 < 65504
}
"""The largest ``|value|`` of matmul and convolution operands (at most :data:`MAX_TERMS` products per result)."""

MAX_TERMS = 48
"""The longest inner product the matmul and convolution strategies make (K, or C/groups * KH * KW)."""

QUICK_EXAMPLES = 3
"""The examples per ``@given`` test of a ``--quick`` run (a smoke run)."""

_SEEDED = False
_QUICK = False


def configure(seed: object, quick: bool = False) -> None:
    """Called by the plugin before the test modules are imported: with ``--hypothesis-seed`` the examples come from
    that seed, without it they are derandomized; ``--quick`` caps every test at :data:`QUICK_EXAMPLES`."""
    global _SEEDED, _QUICK
    _SEEDED = seed is not None
    _QUICK = quick


def seeded() -> bool:
    return _SEEDED


def suite_settings(max_examples: int = MAX_EXAMPLES) -> settings:
    """The settings every ``@given`` test of the suite uses (apply as a decorator)."""
    return settings(
        max_examples=min(max_examples, QUICK_EXAMPLES) if _QUICK else max_examples,
        deadline=None,
        derandomize=not _SEEDED,
        database=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# -- shapes ---------------------------------------------------------------------------------------------------------


def shapes(
    *, min_dims: int = 0, max_dims: int = 3, min_side: int = 0, max_side: int = 4
) -> st.SearchStrategy[tuple[int, ...]]:
    """Array shapes, 0-d included by default, with size-0 and size-1 dimensions."""
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


def broadcastable_shape_pairs(
    *, min_dims: int = 0, max_dims: int = 3, min_side: int = 0, max_side: int = 4
) -> st.SearchStrategy[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Pairs of shapes that broadcast together under NumPy rules (equal shapes included)."""
    mutual = hnp.mutually_broadcastable_shapes(
        num_shapes=2, min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side
    )
    return mutual.map(lambda r: (tuple(r.input_shapes[0]), tuple(r.input_shapes[1])))


@st.composite
def non_broadcastable_shape_pairs(draw: st.DrawFn) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Pairs of shapes that do not broadcast: one dimension (aligned from the right) differs and neither is 1."""
    a = draw(shapes(min_dims=1, max_dims=3, min_side=2, max_side=4))
    axis = draw(st.integers(0, len(a) - 1))
    other = draw(st.integers(2, 5).filter(lambda n: n != a[axis]))
    b = list(a)
    b[axis] = other
    lead = draw(st.integers(0, axis))  # drop leading dims of b, but keep the mismatched one
    return tuple(a), tuple(b[lead:])


# -- data types and values ------------------------------------------------------------------------------------------


def dtypes(caps: wia.DeviceCapabilities) -> st.SearchStrategy[np.dtype[Any]]:
    """The data types the device claims (``float32`` and ``int32`` always)."""
    return st.sampled_from(claimed_dtypes(caps))


def elements(dtype: np.dtype[Any], magnitude: float | None = None) -> st.SearchStrategy[Any]:
    """Scalar values for ``dtype``, as float64 or int (they are cast to ``dtype`` by :func:`arrays`), with
    ``|value| <= magnitude`` (default :data:`MAGNITUDE`); non-zero floats are at least ``1 / magnitude``."""
    if dtype.name == "bool":
        return st.booleans()
    bound = MAGNITUDE[dtype.name] if magnitude is None else min(magnitude, MAGNITUDE[dtype.name])
    if dtype.kind in "iu":
        return st.integers(-int(bound), int(bound))
    small = 1.0 / bound if bound > 1 else bound / 4
    magnitude_ = st.one_of(st.just(0.0), st.floats(small, bound, allow_nan=False, allow_infinity=False))
    return st.tuples(st.booleans(), magnitude_).map(lambda t: -t[1] if t[0] else t[1])


@st.composite
def arrays(
    draw: st.DrawFn, dtype: np.dtype[Any], shape: tuple[int, ...], magnitude: float | None = None
) -> npt.NDArray[Any]:
    """An array of ``dtype`` and ``shape`` with finite values within :data:`MAGNITUDE` (or ``magnitude``; floats
    are drawn as float64 and rounded to ``dtype``, so bfloat16 works without hypothesis knowing it)."""
    wide = (
        np.dtype(np.bool_)
        if dtype.name == "bool"
        else (np.dtype(np.int64) if dtype.kind in "iu" else np.dtype(np.float64))
    )
    values = draw(hnp.arrays(wide, shape, elements=elements(dtype, magnitude)))
    return np.asarray(values).astype(dtype)


def operands(dtype: np.dtype[Any], shape: tuple[int, ...]) -> st.SearchStrategy[npt.NDArray[Any]]:
    """Matmul and convolution operands: :func:`arrays` within :data:`PRODUCT_MAGNITUDE`."""
    return arrays(dtype, shape, PRODUCT_MAGNITUDE[dtype.name])


# -- op arguments ---------------------------------------------------------------------------------------------------


def reduction_axes(ndim: int) -> st.SearchStrategy[int | tuple[int, ...] | None]:
    """``axis`` of ``sum``/``max``: None, one axis (negative ones too) or a tuple of distinct axes."""
    if ndim == 0:
        return st.one_of(st.none(), st.just(()))
    one = st.integers(-ndim, ndim - 1)
    several = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).flatmap(
        lambda axes: st.tuples(*[st.sampled_from([a, a - ndim]) for a in axes])
    )
    return st.one_of(st.none(), one, several)


@st.composite
def reshape_targets(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape with as many elements as ``shape``, at most 4 dims, possibly with one ``-1`` (never beside a zero
    dimension: ``-1`` cannot be inferred there)."""
    size = math.prod(shape)
    if size == 0:
        dims = draw(st.lists(st.integers(0, 3), min_size=1, max_size=3).filter(lambda d: 0 in d))
        return tuple(dims)
    dims = []
    rest = size
    for _ in range(draw(st.integers(0, 3))):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        d = draw(st.sampled_from(divisors))
        dims.append(d)
        rest //= d
    dims.append(rest)
    dims = draw(st.permutations(dims))
    if draw(st.booleans()):
        dims[draw(st.integers(0, len(dims) - 1))] = -1
    return tuple(dims)


@st.composite
def slice_bounds(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """``start`` and ``end`` for ``slice`` over the first ``k <= ndim`` dims, with negative and out-of-range
    indices (Python's rules clamp them)."""
    k = draw(st.integers(0, len(shape)))
    start = [draw(st.integers(-shape[i] - 2, shape[i] + 2)) for i in range(k)]
    end = [draw(st.integers(-shape[i] - 2, shape[i] + 2)) for i in range(k)]
    return start, end


@st.composite
def concat_cases(draw: st.DrawFn) -> tuple[list[tuple[int, ...]], int]:
    """One to three shapes that agree except along ``axis``, and ``axis`` (possibly negative)."""
    base = draw(shapes(min_dims=1))
    index = draw(st.integers(0, len(base) - 1))
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        shape = list(base)
        shape[index] = draw(st.integers(0, 4))
        parts.append(tuple(shape))
    return parts, draw(st.sampled_from([index, index - len(base)]))


@st.composite
def matmul_shape_pairs(draw: st.DrawFn, max_side: int = 4, max_k: int = 8) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Operand shapes for NumPy's ``matmul`` rules: 1-D operands (a row / a column), 2-D, and stacks whose batch
    dimensions broadcast; sides from 0."""
    m, n = draw(st.integers(0, max_side)), draw(st.integers(0, max_side))
    k = draw(st.integers(0, max_k))
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, min_side=1, max_side=3))
    kinds = draw(st.tuples(st.sampled_from(["1d", "2d", "batched"]), st.sampled_from(["1d", "2d", "batched"])))
    a = (k,) if kinds[0] == "1d" else (*(batch.input_shapes[0] if kinds[0] == "batched" else ()), m, k)
    b = (k,) if kinds[1] == "1d" else (*(batch.input_shapes[1] if kinds[1] == "batched" else ()), k, n)
    return tuple(a), tuple(b)


@dataclass(frozen=True)
class ConvCase:
    """A valid ``conv2d`` problem: NCHW input shape, OIHW weight shape and the ``ConvConfig`` fields."""

    input_shape: tuple[int, int, int, int]
    weight_shape: tuple[int, int, int, int]
    padding: tuple[int, int]
    stride: tuple[int, int]
    dilation: tuple[int, int]
    groups: int

    @property
    def config(self) -> dict[str, Any]:
        return {"padding": self.padding, "stride": self.stride, "dilation": self.dilation, "groups": self.groups}

    @property
    def terms(self) -> int:
        """Products summed into each output element: C/groups * KH * KW."""
        _, cg, kh, kw = self.weight_shape
        return cg * kh * kw


@st.composite
def conv_cases(draw: st.DrawFn, winograd: bool = False) -> ConvCase:
    """Small convolutions with groups, padding, stride and dilation; ``winograd=True``: 3x3 kernels at stride 1
    and dilation 1 (where WINOGRAD applies). Inner products stay within :data:`MAX_TERMS`."""
    groups = draw(st.integers(1, 3))
    cg, og = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    if winograd:
        kernel, stride, dilation = (3, 3), (1, 1), (1, 1)
    else:
        kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        stride = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
        dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = (draw(st.integers(0, 2)), draw(st.integers(0, 2)))
    sides = []
    for k, p, d in zip(kernel, padding, dilation, strict=True):
        smallest = max(1, d * (k - 1) + 1 - 2 * p)
        sides.append(draw(st.integers(smallest, smallest + 5)))
    n = draw(st.integers(1, 2))
    return ConvCase((n, groups * cg, sides[0], sides[1]), (groups * og, cg, *kernel), padding, stride, dilation, groups)


@dataclass(frozen=True)
class PoolCase:
    """A valid ``pool2d`` problem: NCHW input shape and the ``PoolConfig`` fields (``stride`` None: the default)."""

    input_shape: tuple[int, int, int, int]
    kernel_size: tuple[int, int]
    stride: tuple[int, int] | None
    padding: tuple[int, int]


@st.composite
def pool_cases(draw: st.DrawFn) -> PoolCase:
    """Kernels up to 3x3, the default stride or one up to 3, padding up to half the kernel."""
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    stride = draw(st.none() | st.tuples(st.integers(1, 3), st.integers(1, 3)))
    padding = (draw(st.integers(0, kernel[0] // 2)), draw(st.integers(0, kernel[1] // 2)))
    sides = [draw(st.integers(max(1, k - 2 * p), max(1, k - 2 * p) + 5)) for k, p in zip(kernel, padding, strict=True)]
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), sides[0], sides[1])
    return PoolCase(shape, kernel, stride, padding)


# -- sizes ----------------------------------------------------------------------------------------------------------

KiB = 1 << 10
MiB = 1 << 20


def byte_sizes(max_size: int = MiB) -> st.SearchStrategy[int]:
    """Positive allocation sizes in bytes, small and odd ones favoured."""
    return st.one_of(st.integers(1, 64), st.integers(1, max_size))


def work_bytes(info: wia.DeviceInfo, cap: int = 256 * MiB, fraction: int = 8) -> int:
    """A buffer size for "long work": ``cap`` bytes, scaled down to ``1/fraction`` of the device's memory."""
    size = min(cap, info.memory_size // fraction)
    return max(64 * KiB, size - size % (64 * KiB))


_ADD_RATES: dict[tuple[str, str], float] = {}


def op_elements(ctx: wia.Context, info: wia.DeviceInfo, cap: int, fraction: int, per_op_ms: float = 20.0) -> int:
    """The float32 elements of "long work" made of element-wise ops: as many as one ``add`` processes in about
    ``per_op_ms`` of device time on this device (timed once per device with events), at most ``work_bytes(info, cap,
    fraction) // 4``. Sizing by memory alone would make an interpreting device (Oclgrind) run for minutes."""
    most = work_bytes(info, cap, fraction) // 4
    key = (info.backend, info.name)
    rate = _ADD_RATES.get(key)
    if rate is None:
        probe = min(most, 64 * 1024)
        x = wia.tensor(np.ones(probe, np.float32), ctx=ctx)
        stream = wia.create_stream(ctx)
        wia.add(x, x, stream=stream)  # untimed: a first launch may build the kernel
        start, end = wia.create_event(), wia.create_event()
        wia.event_record(start, stream)
        wia.add(x, x, stream=stream)
        wia.event_record(end, stream)
        wia.stream_synchronize(stream)
        rate = _ADD_RATES[key] = probe / max(wia.event_elapsed_time(start, end), 1e-6)
        wia.destroy_stream(stream)
    return max(4096, min(most, int(rate * per_op_ms)))


# -- memory pools ---------------------------------------------------------------------------------------------------

BLOCK_SIZES = (1, 256, 512, 4 * KiB, 64 * KiB)
"""``PoolConfig.block_size`` values the pool tests use: no rounding, the usual 256/512-byte granules, and large."""


@st.composite
def pool_configs(draw: st.DrawFn, max_size_limit: int = 16 * MiB) -> wia.PoolConfig:
    """Valid memory-pool configs (R-3.5.2-01): every field drawn, sizes at most ``max_size_limit`` (so that a pool
    fits a small device), ``initial_size`` a multiple of ``block_size`` no larger than ``max_size`` (an initial
    size that is not a multiple is tested on its own, ``test_3_5_2_pools.py``)."""
    block = draw(st.sampled_from(BLOCK_SIZES))
    max_size = draw(st.none() | st.integers(1, max_size_limit))
    ceiling = max_size_limit if max_size is None else max_size
    initial = draw(st.just(0) | st.integers(0, ceiling // block)) * block
    return wia.PoolConfig(
        initial_size=initial,
        max_size=max_size,
        block_size=block,
        enable_caching=draw(st.booleans()),
        defragment_threshold=draw(st.floats(0.0, 1.0)),
    )


def exact_floats(rng: np.random.Generator, shape: int | tuple[int, ...], limit: int = 64, step: int = 8) -> Any:
    """Random multiples of ``1/step`` in ``[-limit, limit)``, never all zero: sums and products of a few of them are
    exact in float32, so ``a * x + y`` fused or not, and in any order, gives the float64 reference (kernels)."""
    values = (rng.integers(-limit * step, limit * step, size=shape) / step).astype(np.float32)
    values.reshape(-1)[0] = 1.0 + 1.0 / step  # at least one value is not zero
    return values
