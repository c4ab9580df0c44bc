"""Hypothesis strategies of the suite (imported as ``hh``), and the suite's hypothesis settings and sizes.

Shapes include size-1 and size-0 dimensions and 0-d shapes; values are finite and bounded so that ``add`` and
``mul`` of two of them stay in range for their data type (no overflow, no wrap-around: the spec says nothing about
either). Examples are few (:data:`MAX_EXAMPLES`) and, unless ``--hypothesis-seed`` is given, derandomized: every
run tries the same examples and a failure reproduces by running the test again.
"""

from __future__ import annotations

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

_SEEDED = False


def configure(seed: object) -> None:
    """Called by the plugin before the test modules are imported: with ``--hypothesis-seed`` the examples come from
    that seed, without it they are derandomized."""
    global _SEEDED
    _SEEDED = seed is not None


def seeded() -> bool:
    return _SEEDED


def suite_settings(max_examples: int = MAX_EXAMPLES) -> settings:
    """The settings every ``@given`` test of the suite uses (apply as a decorator)."""
    return settings(
        max_examples=max_examples,
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


def elements(dtype: np.dtype[Any]) -> st.SearchStrategy[Any]:
    """Scalar values for ``dtype``, as float64 or int (they are cast to ``dtype`` by :func:`arrays`)."""
    if dtype.name == "bool":
        return st.booleans()
    bound = MAGNITUDE[dtype.name]
    if dtype.kind in "iu":
        return st.integers(-int(bound), int(bound))
    small = 1.0 / bound
    magnitude = st.one_of(st.just(0.0), st.floats(small, bound, allow_nan=False, allow_infinity=False))
    return st.tuples(st.booleans(), magnitude).map(lambda t: -t[1] if t[0] else t[1])


@st.composite
def arrays(draw: st.DrawFn, dtype: np.dtype[Any], shape: tuple[int, ...]) -> npt.NDArray[Any]:
    """An array of ``dtype`` and ``shape`` with finite values within :data:`MAGNITUDE` (floats are drawn as float64
    and rounded to ``dtype``, so bfloat16 works without hypothesis knowing it)."""
    wide = (
        np.dtype(np.bool_)
        if dtype.name == "bool"
        else (np.dtype(np.int64) if dtype.kind in "iu" else np.dtype(np.float64))
    )
    values = draw(hnp.arrays(wide, shape, elements=elements(dtype)))
    return np.asarray(values).astype(dtype)


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
