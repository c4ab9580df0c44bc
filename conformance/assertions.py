"""Assertion helpers of the suite (imported as ``ph``), in the style of array-api-tests.

Every helper hides itself from tracebacks (``__tracebackhide__``) and fails with one message shape::

    got X, but should be Y [call(args)]

so that a report line says what the backend did, what the spec asks and which call showed it. The tolerance
table for comparing results with a float64 NumPy reference lives here too (:data:`TOLERANCES`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt
import pytest

import wia_hal as wia

# -- how values and calls are shown in messages -------------------------------------------------------------------

_MAX_REPR = 160


def fmt(value: object) -> str:
    """A short, readable representation of ``value`` for a failure message."""
    if isinstance(value, np.ndarray):
        if value.size <= 8:
            body = np.array2string(value.reshape(-1), separator=", ", threshold=8)
            return f"array({body}, shape={value.shape}, dtype={value.dtype.name})"
        return f"array(shape={value.shape}, dtype={value.dtype.name})"
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, BaseException):
        return f"{type(value).__name__}({str(value)[:_MAX_REPR]!r})"
    text = repr(value)
    return text if len(text) <= _MAX_REPR else text[: _MAX_REPR - 3] + "..."


def call_repr(fn: object, *args: object, **kwargs: object) -> str:
    """``name(arg, key=value)`` for the ``[...]`` part of a message."""
    name = getattr(fn, "__name__", None) or fmt(fn)
    parts = [fmt(a) for a in args] + [f"{k}={fmt(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def message(got: str, expected: str, call: str) -> str:
    """The one failure message shape of the suite."""
    return f"got {got}, but should be {expected} [{call}]"


def fail(got: str, expected: str, call: str) -> NoReturn:
    __tracebackhide__ = True
    pytest.fail(message(got, expected, call))


# -- plain values ---------------------------------------------------------------------------------------------------


def assert_equal(got: object, expected: object, call: str) -> None:
    __tracebackhide__ = True
    if not (got == expected):  # noqa: SIM201 (== is what is asked of the value; != may be defined differently)
        fail(fmt(got), fmt(expected), call)


def assert_true(condition: bool, got: object, expected: str, call: str) -> None:
    """Fail with ``got <got>, but should be <expected>`` unless ``condition`` holds."""
    __tracebackhide__ = True
    if not condition:
        fail(fmt(got), expected, call)


def assert_isinstance(value: object, types: type | tuple[type, ...], call: str) -> None:
    __tracebackhide__ = True
    if not isinstance(value, types):
        names = " or ".join(t.__name__ for t in (types if isinstance(types, tuple) else (types,)))
        fail(f"{fmt(value)} of type {type(value).__name__}", f"of type {names}", call)


def assert_int(value: object, call: str, *, minimum: int | None = None) -> None:
    """An ``int`` (not a ``bool``), at least ``minimum`` when given."""
    __tracebackhide__ = True
    if isinstance(value, bool) or not isinstance(value, int):
        fail(f"{fmt(value)} of type {type(value).__name__}", "an int", call)
    if minimum is not None and value < minimum:
        fail(fmt(value), f"an int >= {minimum}", call)


def assert_positive_number(value: object, call: str) -> None:
    """A finite ``int`` or ``float`` (not a ``bool``) greater than zero."""
    __tracebackhide__ = True
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fail(f"{fmt(value)} of type {type(value).__name__}", "a positive number", call)
    if not (np.isfinite(value) and value > 0):
        fail(fmt(value), "a finite positive number", call)


# -- errors ---------------------------------------------------------------------------------------------------------


def error_classes() -> dict[wia.ErrorCode, type[wia.WiaError]]:
    """The public ``WiaError`` subclass of each code, found in ``wia.__all__`` (one subclass per code)."""
    classes: dict[wia.ErrorCode, type[wia.WiaError]] = {}
    for name in wia.__all__:
        obj = getattr(wia, name)
        if isinstance(obj, type) and issubclass(obj, wia.WiaError) and obj is not wia.WiaError:
            code = getattr(obj, "code", None)
            if isinstance(code, wia.ErrorCode):
                classes.setdefault(code, obj)
    return classes


def _codes_text(codes: Sequence[wia.ErrorCode]) -> str:
    return " or ".join(c.name for c in codes)


def assert_raises_code(
    code: wia.ErrorCode | Sequence[wia.ErrorCode], fn: Callable[..., Any], *args: Any, **kwargs: Any
) -> wia.WiaError:
    """``fn(*args, **kwargs)`` raises the ``WiaError`` subclass of ``code`` (or one of several codes), with that
    ``.code``, a non-empty message and ``.details`` that agree; returns the exception."""
    __tracebackhide__ = True
    codes = [code] if isinstance(code, wia.ErrorCode) else list(code)
    call = call_repr(fn, *args, **kwargs)
    expected = f"WiaError {_codes_text(codes)}"
    try:
        result = fn(*args, **kwargs)
    except wia.WiaError as e:
        error = e
    except Exception as e:
        fail(f"{type(e).__name__}: {str(e)[:_MAX_REPR]}", expected, call)
    else:
        fail(f"no error (returned {fmt(result)})", expected, call)
    got_code = getattr(error, "code", None)
    if got_code not in codes:
        fail(f"{type(error).__name__} with code {fmt(got_code)}: {str(error)[:_MAX_REPR]}", expected, call)
    assert isinstance(got_code, wia.ErrorCode)
    cls = error_classes().get(got_code)
    if cls is None or not isinstance(error, cls):
        fail(
            f"{type(error).__name__}",
            f"an instance of the public subclass for {got_code.name} ({cls.__name__ if cls else 'none found'})",
            call,
        )
    if not str(error).strip():
        fail("an empty message", "a message that says what is wrong", call)
    details = getattr(error, "details", None)
    if not isinstance(details, wia.ErrorDetails) or details.code != got_code:
        fail(f".details={fmt(details)}", f"ErrorDetails with code {got_code.name}", call)
    return error


def assert_message_mentions(error: BaseException, needles: Iterable[Sequence[str]], call: str) -> None:
    """Each item of ``needles`` is a list of acceptable spellings; the message holds one spelling of each."""
    __tracebackhide__ = True
    text = str(error)
    for spellings in needles:
        if not any(s in text for s in spellings):
            fail(f"message {text!r}", f"a message naming {' or '.join(repr(s) for s in spellings)}", call)


def shape_spellings(shape: tuple[int, ...]) -> list[str]:
    """Ways a message may write a shape: ``(2, 3)``, ``[2, 3]``, ``2x3``."""
    spellings = [str(tuple(shape)), str(list(shape))]
    if shape:
        spellings.append("x".join(str(d) for d in shape))
    return spellings


# -- capabilities ---------------------------------------------------------------------------------------------------

CAPABILITY_FLAGS = (
    "supports_float16",
    "supports_bfloat16",
    "supports_int8",
    "supports_float64",
    "supports_unified_memory",
    "supports_peer_to_peer",
    "supports_managed_memory",
    "supports_pinned_memory",
    "supports_custom_kernels",
    "supports_profiling",
)
"""The boolean claims of :class:`wia.DeviceCapabilities`; every one is optional (a device may say False)."""

DTYPE_FLAGS: dict[str, str] = {
    "float16": "supports_float16",
    "bfloat16": "supports_bfloat16",
    "int8": "supports_int8",
    "float64": "supports_float64",
}
"""The capability flag that claims each optional data type; ``float32`` and ``int32`` are always required."""

REQUIRED_DTYPES = ("float32", "int32")

MEMORY_FLAGS: dict[wia.MemoryType, str] = {
    wia.MemoryType.PINNED: "supports_pinned_memory",
    wia.MemoryType.UNIFIED: "supports_unified_memory",
    wia.MemoryType.MANAGED: "supports_managed_memory",
}
"""The capability flag that claims each optional memory type; DEVICE and HOST are always required."""

NOT_SUPPORTED_PREFIX = "not supported:"
NOT_APPLICABLE_PREFIX = "not applicable:"
"""A test that reaches the spec's behaviour only through an optional backend extension beyond the spec (fault
injection: ``docs/faults.md``) is skipped with this prefix where the backend lacks it: counted apart, never against
a level (``conformance/report.py``)."""


def device_capabilities(device: wia.Device | None = None) -> wia.DeviceCapabilities:
    return wia.get_device_capabilities(device if device is not None else wia.get_device(0))


def requires(capability: str, caps: wia.DeviceCapabilities | None = None) -> None:
    """Skip the test as ``not supported: ...`` unless the device (device 0 by default) claims ``capability``.

    A claimed capability is tested like any other feature: if it then fails, the test fails.
    """
    __tracebackhide__ = True
    if capability not in CAPABILITY_FLAGS:
        raise ValueError(f"requires: {capability!r} is not a capability flag ({', '.join(CAPABILITY_FLAGS)})")
    caps = caps if caps is not None else device_capabilities()
    if not getattr(caps, capability):
        pytest.skip(f"{NOT_SUPPORTED_PREFIX} {capability} is False")


def requires_fault_injection(caps: wia.DeviceCapabilities | None = None) -> None:
    """Skip the test as ``not applicable: ...`` unless the backend offers the fault-injection extension on the
    device (device 0 by default; ``supports_fault_injection``): the suite injects faults only through the public
    extension API."""
    __tracebackhide__ = True
    caps = caps if caps is not None else device_capabilities()
    if not caps.supports_fault_injection:
        pytest.skip(
            f"{NOT_APPLICABLE_PREFIX} needs the fault-injection extension (supports_fault_injection is False); "
            "see docs/faults.md"
        )


def inject_fault(fault: wia.Fault) -> None:
    """``wia.inject_fault(fault)``; where the backend offers the extension but not this kind or trigger of fault
    (``NOT_SUPPORTED``: an extension may be implemented in part), the test is not applicable."""
    __tracebackhide__ = True
    try:
        wia.inject_fault(fault)
    except wia.NotSupportedError as e:
        pytest.skip(f"{NOT_APPLICABLE_PREFIX} the backend does not inject this fault: {e.message}")


def requires_streams(count: int, caps: wia.DeviceCapabilities | None = None) -> None:
    """Skip as not supported unless a context may create ``count`` streams (``max_streams``): ordering between
    streams cannot be tested on a device that offers fewer."""
    __tracebackhide__ = True
    caps = caps if caps is not None else device_capabilities()
    if caps.max_streams < count:
        pytest.skip(f"{NOT_SUPPORTED_PREFIX} max_streams is {caps.max_streams} (the test needs {count} streams)")


def requires_devices(count: int) -> None:
    """Skip as not supported unless the backend exposes ``count`` devices (work across devices)."""
    __tracebackhide__ = True
    exposed = wia.get_device_count()
    if exposed < count:
        pytest.skip(f"{NOT_SUPPORTED_PREFIX} get_device_count() is {exposed} (the test needs {count} devices)")


def requires_work_group(items: int, caps: wia.DeviceCapabilities | None = None) -> None:
    """Skip as not supported unless a work-group may have ``items`` work-items (``max_work_group_size``): a kernel
    written for that work-group size cannot run on a device that allows fewer."""
    __tracebackhide__ = True
    caps = caps if caps is not None else device_capabilities()
    if caps.max_work_group_size < items:
        pytest.skip(
            f"{NOT_SUPPORTED_PREFIX} the test needs work-groups of {items} work-items, max_work_group_size is "
            f"{caps.max_work_group_size}"
        )


def requires_dtype(dtype: np.dtype[Any], caps: wia.DeviceCapabilities | None = None) -> None:
    """Skip as not supported unless the device claims ``dtype``.

    ``bool`` has no capability flag (SPEC 3.7: "where a device supports them"): it counts as supported unless
    creating a ``bool`` tensor raises ``NOT_SUPPORTED``.
    """
    __tracebackhide__ = True
    flag = DTYPE_FLAGS.get(dtype.name)
    if flag is not None:
        requires(flag, caps)
    elif dtype.name == "bool":
        try:
            probe = wia.tensor(np.zeros(1, np.bool_))
        except wia.NotSupportedError:
            pytest.skip(
                f"{NOT_SUPPORTED_PREFIX} bool (no capability flag; creating a bool tensor raised NOT_SUPPORTED)"
            )
        wia.release_tensor(probe)


def requires_memory(memory_type: wia.MemoryType, caps: wia.DeviceCapabilities | None = None) -> None:
    """Skip as not supported unless the device claims ``memory_type``."""
    __tracebackhide__ = True
    flag = MEMORY_FLAGS.get(memory_type)
    if flag is not None:
        requires(flag, caps)


def claimed_dtypes(caps: wia.DeviceCapabilities) -> list[np.dtype[Any]]:
    """The data types the device claims: ``float32``, ``int32`` and each optional type whose flag is True."""
    names = [*REQUIRED_DTYPES, *(name for name, flag in DTYPE_FLAGS.items() if getattr(caps, flag))]
    return [np.dtype(getattr(wia, name)) for name in names]


def claimed_memory_types(caps: wia.DeviceCapabilities) -> list[wia.MemoryType]:
    return [t for t in wia.MemoryType if t not in MEMORY_FLAGS or getattr(caps, MEMORY_FLAGS[t])]


# -- numeric results ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tolerance:
    rtol: float
    atol: float
    why: str
    tiny: float = 0.0
    """The smallest normal number of the type (0 for exact types): below it, results of transcendental functions
    may be flushed to zero or lose precision (gradual underflow), so such ops allow this much more."""


TOLERANCES: dict[str, Tolerance] = {
    "float64": Tolerance(1e-12, 5e-324, "53-bit mantissa; atol is the smallest subnormal", 2.0**-1022),
    "float32": Tolerance(
        1e-6, 1e-45, "24-bit mantissa (one ulp is 1.2e-7 relative); atol is the smallest subnormal", 2.0**-126
    ),
    "float16": Tolerance(
        1e-3, 6e-8, "11-bit mantissa (one ulp is up to 9.8e-4 relative); atol is the smallest subnormal", 2.0**-14
    ),
    "bfloat16": Tolerance(
        1e-2,
        9.2e-41,
        "8-bit mantissa (one ulp is up to 7.8e-3 relative); atol is the smallest subnormal",
        2.0**-126,
    ),
    "int32": Tolerance(0.0, 0.0, "exact"),
    "int8": Tolerance(0.0, 0.0, "exact"),
    "bool": Tolerance(0.0, 0.0, "exact"),
}
"""Per data type: ``|got - expected| <= atol + rtol * |expected|`` where ``expected`` is the float64 NumPy
reference rounded to the data type. Documented in ``docs/conformance.md``."""


def round_to(reference: npt.NDArray[np.float64], dtype: np.dtype[Any]) -> npt.NDArray[Any]:
    """A float64 reference result as the device's data type: rounded to nearest for floats, exact for ints
    (callers keep integer results in range), ``!= 0`` for bool."""
    if dtype.name == "bool":
        return np.asarray(reference != 0)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if reference.size and (reference.min() < info.min or reference.max() > info.max):
            raise ValueError(f"round_to: the reference leaves the range of {dtype.name}; bound the inputs")
        return reference.astype(dtype)
    return reference.astype(dtype)


def assert_array_close(
    got: object,
    expected: npt.NDArray[Any],
    dtype: np.dtype[Any],
    call: str,
    *,
    slack: float | npt.NDArray[np.float64] = 0.0,
) -> None:
    """``got`` is an array of ``expected``'s shape and ``dtype`` and within :data:`TOLERANCES` of it:
    ``|got - expected| <= atol + rtol * |expected| + slack``. ``slack`` (a number or an array that broadcasts to
    ``expected``, default 0) is the documented error an op may add beyond one rounding (see
    :func:`assert_reduction_close`); with no slack, exact types compare exactly."""
    __tracebackhide__ = True
    if not isinstance(got, np.ndarray):
        fail(f"{fmt(got)} of type {type(got).__name__}", "a numpy array", call)
    if got.dtype != dtype:
        fail(f"dtype {got.dtype.name}", f"dtype {dtype.name}", call)
    if got.shape != expected.shape:
        fail(f"shape {got.shape}", f"shape {expected.shape}", call)
    if got.size == 0:
        return
    tol = TOLERANCES[dtype.name]
    extra = np.broadcast_to(np.asarray(slack, dtype=np.float64), expected.shape)
    if tol.rtol == 0 and tol.atol == 0 and not extra.any():
        bad = got != expected
        allowed = extra
    else:
        g = got.astype(np.float64)
        e = expected.astype(np.float64)
        allowed = tol.atol + tol.rtol * np.abs(e) + extra
        with np.errstate(invalid="ignore"):  # inf - inf: the same infinity is judged below
            bad = ~(np.abs(g - e) <= allowed)
        bad &= ~(np.isnan(g) & np.isnan(e))
        bad &= ~(np.isinf(e) & (g == e))
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        bound = f"rtol={tol.rtol}, atol={tol.atol}"
        if extra.any():
            bound += f", slack there {float(extra[index]):.3g}: |difference| <= {float(allowed[index]):.3g}"
        fail(
            f"{fmt(got)} ({int(bad.sum())} of {bad.size} elements differ; first at {index}: {got[index]!r})",
            f"{fmt(expected)} (at {index}: {expected[index]!r}; {bound})",
            call,
        )


def assert_array_equal(got: object, expected: npt.NDArray[Any], call: str) -> None:
    """``got`` is an array of ``expected``'s shape and dtype with exactly its values (layout ops, ``max``: they
    move or select values and never round)."""
    __tracebackhide__ = True
    if not isinstance(got, np.ndarray):
        fail(f"{fmt(got)} of type {type(got).__name__}", "a numpy array", call)
    if got.dtype != expected.dtype:
        fail(f"dtype {got.dtype.name}", f"dtype {expected.dtype.name}", call)
    if got.shape != expected.shape:
        fail(f"shape {got.shape}", f"shape {expected.shape}", call)
    bad = got != expected
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        fail(
            f"{fmt(got)} ({int(bad.sum())} of {bad.size} elements differ; first at {index}: {got[index]!r})",
            f"exactly {fmt(expected)} (at {index}: {expected[index]!r})",
            call,
        )


def ulp_of(reference: npt.NDArray[Any], dtype: np.dtype[Any]) -> npt.NDArray[np.float64]:
    """OpenCL's ulp of each real ``reference`` value in ``dtype`` (OpenCL 1.2 section 7.4): the gap between the two
    consecutive finite ``dtype`` numbers around it (for a representable value, the gap above its magnitude)."""
    mag = np.abs(np.asarray(reference, dtype=np.float64))
    with np.errstate(over="ignore"):
        low = mag.astype(dtype)
        low = np.where(low.astype(np.float64) > mag, np.nextafter(low, dtype.type(0)), low).astype(dtype)
    return np.asarray(np.spacing(low), dtype=np.float64)


def assert_ulp_close(got: object, reference: npt.NDArray[Any], dtype: np.dtype[Any], ulps: float, call: str) -> None:
    """``got`` (of ``dtype``) is within ``ulps`` units in the last place of the exact ``reference`` (float64, not
    rounded): ``|got - reference| <= ulps * ulp(reference)``, the measure of the OpenCL 1.2 accuracy tables
    (section 7.4, Table 7.1: e.g. ``sqrt`` 3 ulp, ``sin`` 4 ulp, ``pow`` 16 ulp; 0 ulp means correctly rounded,
    which allows half an ulp)."""
    __tracebackhide__ = True
    if not isinstance(got, np.ndarray):
        fail(f"{fmt(got)} of type {type(got).__name__}", "a numpy array", call)
    ref = np.asarray(reference, dtype=np.float64)
    if got.dtype != dtype:
        fail(f"dtype {got.dtype.name}", f"dtype {dtype.name}", call)
    if got.shape != ref.shape:
        fail(f"shape {got.shape}", f"shape {ref.shape}", call)
    allowed = max(float(ulps), 0.5) * ulp_of(ref, dtype)
    error = np.abs(got.astype(np.float64) - ref)
    bad = ~(error <= allowed)
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        worst = float(np.max(np.where(np.isfinite(error), error / ulp_of(ref, dtype), np.inf)))
        fail(
            f"{fmt(got)} ({int(bad.sum())} of {bad.size} elements off; first at {index}: {got[index]!r}, "
            f"{float(error[index] / ulp_of(ref, dtype)[index]):.3g} ulp; worst {worst:.3g} ulp)",
            f"within {ulps:g} ulp of the exact {float(ref[index])!r} at {index}",
            call,
        )


# -- sums, products and precisions ----------------------------------------------------------------------------------

ARITHMETIC_EPS: dict[str, float] = {
    "float64": 2.0**-52,
    "float32": 2.0**-23,
    "tf32": 2.0**-10,
    "float16": 2.0**-10,
    "bfloat16": 2.0**-7,
    "float8": 2.0**-3,
    "int8": 0.0,
    "int32": 0.0,
}
"""Machine epsilon (one ulp at 1: twice the unit roundoff) of each arithmetic: ``fl(a op b) = (a op b)(1 + d)``
with ``|d| <= eps`` for round to nearest (which needs only half) and for hardware that truncates. tf32 has a
10-bit mantissa, float8 is e4m3 (3 bits); the integer arithmetics are exact (callers keep results in range)."""


def accumulator_of(dtype: np.dtype[Any]) -> str:
    """The arithmetic a sum, matmul or convolution of ``dtype`` data accumulates in, as the API documents it:
    float32 for float16, bfloat16 and float32 data, float64 for float64, int32 (exact) for int8, int32 and bool."""
    if dtype.name == "float64":
        return "float64"
    if dtype.kind in "iub":
        return "int32"
    return "float32"


def accumulation_bound(terms: int, arithmetic: str) -> float:
    """``gamma_n = n * eps / (1 - n * eps)`` for ``n = terms`` and the ``eps`` of :data:`ARITHMETIC_EPS`.

    A sum of ``n`` terms, or an inner product of length ``n``, computed in any order in an arithmetic with that
    ``eps`` is within ``gamma_n * sum(|terms|)`` of the exact result (Higham, *Accuracy and Stability of Numerical
    Algorithms*, 2nd ed., eq. 3.5 and section 4.2): the tolerance of reductions and matmuls grows with their length
    and is measured against the sum of magnitudes, so that cancellation does not make it meaningless.
    """
    eps = ARITHMETIC_EPS[arithmetic]
    n = max(int(terms), 0)
    if n * eps >= 0.5:
        raise ValueError(f"accumulation_bound: {n} terms in {arithmetic} make the bound meaningless; sum fewer")
    return n * eps / (1 - n * eps)


def assert_reduction_close(
    got: object,
    expected: npt.NDArray[Any],
    dtype: np.dtype[Any],
    call: str,
    *,
    magnitude: npt.NDArray[np.float64] | float,
    terms: int,
    arithmetic: str | None = None,
    input_eps: float = 0.0,
    growth: float = 1.0,
) -> None:
    """A sum, matmul or convolution result, ``expected`` being the float64 reference rounded to ``dtype``:

    ``|got - expected| <= atol + rtol * |expected| + ((2 e + e^2) + growth * gamma_terms * (1 + e)^2) * magnitude``

    with ``rtol``/``atol`` of :data:`TOLERANCES` (the final rounding to ``dtype``), ``gamma`` from
    :func:`accumulation_bound` for ``arithmetic`` (default: :func:`accumulator_of` ``dtype``), ``e = input_eps``
    the relative error of rounding each operand to a narrower arithmetic (TF32, FP16, ... of float32 data; 0 when
    the data is used as it is), ``magnitude`` the same reduction of the absolute values (``sum(|x|)``,
    ``|A| @ |B|``) and ``growth`` how much an algorithm's transforms may magnify the rounding errors (Winograd).
    """
    __tracebackhide__ = True
    acc = arithmetic if arithmetic is not None else accumulator_of(dtype)
    factor = (2 * input_eps + input_eps**2) + growth * accumulation_bound(terms, acc) * (1 + input_eps) ** 2
    slack = factor * np.asarray(magnitude, dtype=np.float64)
    assert_array_close(got, expected, dtype, call, slack=slack)


PRECISION_RULES: dict[str, dict[str, tuple[str, str]]] = {
    "FP32": {"float32": ("float32", "float32")},
    "TF32": {"float32": ("tf32", "float32")},
    "FP16": {"float16": ("float16", "float16"), "float32": ("float16", "float32")},
    "BF16": {"bfloat16": ("bfloat16", "bfloat16"), "float32": ("bfloat16", "float32")},
    "MIXED": {
        "float16": ("float16", "float32"),
        "bfloat16": ("bfloat16", "float32"),
        "float32": ("bfloat16", "float32"),
    },
    "INT8": {"int8": ("int8", "int32")},
    "FP64": {"float64": ("float64", "float64")},
    "FP8": {"float16": ("float8", "float16"), "bfloat16": ("float8", "bfloat16"), "float32": ("float8", "float32")},
}
"""The binding of :class:`wia.Precision` (its docstring): per precision, the input data types it takes and for each
the arithmetic the units run (the key of ``DeviceInfo.peak_flops_by_precision``) and the result's data type. Any
other (precision, dtype) pair is ``INVALID_VALUE``; an arithmetic the device does not list is ``NOT_SUPPORTED``."""

DEFAULT_PRECISION: dict[str, str] = {
    "float32": "FP32",
    "float16": "FP16",
    "bfloat16": "BF16",
    "int8": "INT8",
    "float64": "FP64",
}
"""``precision=None`` (and plain ``matmul``/``conv2d``) follows the data type (:class:`wia.MatmulConfig`); other
data types have no matrix arithmetic."""


def input_eps(dtype: np.dtype[Any], arithmetic: str) -> float:
    """The relative error of rounding ``dtype`` data to ``arithmetic``: 0 when the arithmetic holds the data as it is
    (its own type, or a wider one), else the arithmetic's ``eps``."""
    if arithmetic in (dtype.name, "float32", "float64", "int8", "int32"):
        return 0.0
    return ARITHMETIC_EPS[arithmetic]


def requires_arithmetic(
    info: wia.DeviceInfo, arithmetic: str, fn: Callable[..., Any], *args: Any, **kwargs: Any
) -> None:
    """Skip as not supported unless ``DeviceInfo.peak_flops_by_precision`` lists ``arithmetic``; when it does not,
    first check that ``fn(*args, **kwargs)`` (an op that needs it) raises ``NOT_SUPPORTED`` (R-3.2.1-02)."""
    __tracebackhide__ = True
    if arithmetic in info.peak_flops_by_precision:
        return
    assert_raises_code(wia.ErrorCode.NOT_SUPPORTED, fn, *args, **kwargs)
    pytest.skip(
        f"{NOT_SUPPORTED_PREFIX} peak_flops_by_precision[{arithmetic!r}] is missing (the device lists "
        f"{', '.join(info.peak_flops_by_precision) or 'none'}; the op raised NOT_SUPPORTED as it should)"
    )


def matrix_arithmetic(dtype: np.dtype[Any], precision: str | None = None) -> tuple[str, np.dtype[Any]]:
    """The arithmetic a matmul or convolution of ``dtype`` data runs at ``precision`` (None: the data type's default,
    :data:`DEFAULT_PRECISION`) and the result's data type, from :data:`PRECISION_RULES`; ``KeyError`` when the
    binding has no such pair."""
    name = precision if precision is not None else DEFAULT_PRECISION[dtype.name]
    arithmetic, result = PRECISION_RULES[name][dtype.name]
    return arithmetic, np.dtype(getattr(wia, result))


def requires_matrix_arithmetic(dtype: np.dtype[Any], info: wia.DeviceInfo) -> None:
    """Skip as not supported unless the device claims ``dtype`` and lists the arithmetic of its default precision
    (checking, when it does not, that ``matmul`` raises ``NOT_SUPPORTED``)."""
    __tracebackhide__ = True
    requires_dtype(dtype)
    arithmetic, _ = matrix_arithmetic(dtype)
    if arithmetic not in info.peak_flops_by_precision:
        probe = wia.zeros((2, 2), dtype)
        requires_arithmetic(info, arithmetic, wia.matmul, probe, probe)


def assert_matmul_close(
    got: wia.Tensor,
    a: npt.NDArray[Any],
    b: npt.NDArray[Any],
    call: str,
    *,
    precision: str | None = None,
) -> None:
    """``got`` is ``a @ b`` under NumPy's rules (1-D operands, broadcast batch dimensions) at ``precision`` (None:
    the data type's default): the result type of :data:`PRECISION_RULES`, and values within
    :func:`assert_reduction_close` of the float64 product, for an inner product of length K accumulated as
    :func:`accumulator_of` says, with operands rounded to the arithmetic first (``input_eps``)."""
    __tracebackhide__ = True
    arithmetic, result = matrix_arithmetic(a.dtype, precision)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = np.asarray(np.matmul(a64, b64))
    got_dtype = np.dtype(got.dtype)
    if (got.shape, got_dtype) != (ref.shape, result):
        fail(f"shape {got.shape}, dtype {got_dtype.name}", f"shape {ref.shape}, dtype {result.name}", call)
    assert_reduction_close(
        got.numpy(),
        round_to(ref, result),
        result,
        call,
        magnitude=np.asarray(np.matmul(np.abs(a64), np.abs(b64))),
        terms=a.shape[-1],
        arithmetic=accumulator_of(a.dtype),
        input_eps=input_eps(a.dtype, arithmetic),
    )


# -- float64 references of the element-wise ops and softmax, and what they may err ------------------------------

_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def gelu_reference(x: npt.NDArray[np.float64], approximate: str) -> npt.NDArray[np.float64]:
    """GELU in float64: ``x * Phi(x) = 0.5 * x * erfc(-x / sqrt(2))``, or the tanh approximation
    ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``."""
    if approximate == "tanh":  # 0.5 * (1 + tanh(u)) = 1 / (1 + exp(-2u)), without the cancellation for x < 0
        u = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)
        with np.errstate(over="ignore"):
            return np.asarray(x / (1.0 + np.exp(-2.0 * u)), dtype=np.float64)
    return np.asarray(0.5 * x * _erfc(-x / math.sqrt(2.0)), dtype=np.float64)


def sigmoid_reference(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """``1 / (1 + exp(-x))`` in float64, without overflow."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def transcendental_slack(dtype: np.dtype[Any], x: npt.NDArray[np.float64], op: str) -> npt.NDArray[np.float64]:
    """What ``gelu`` and ``sigmoid`` may err beyond one rounding: the type's smallest normal (results below it may
    be flushed or lose precision) and, for GELU, ``2 * rtol * |x|``: ``0.5 * x * (1 + erf(x / sqrt(2)))`` (or
    ``1 + tanh``) cancels for negative ``x``, where one rounding of the sum near 1 costs about ``rtol * |x| / 2``."""
    tol = TOLERANCES[dtype.name]
    slack = np.full(x.shape, tol.tiny)
    if op == "gelu":
        slack = slack + 2 * tol.rtol * np.abs(x)
    return slack


def softmax_reference(
    x: npt.NDArray[Any], axis: int, dtype: np.dtype[Any]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Softmax in float64 and the error it may have beyond one rounding to ``dtype``.

    With ``d = x - max`` along ``axis``, ``s = exp(d) / sum(exp(d))`` and ``eps`` of the arithmetic it computes in
    (float32 for float16, bfloat16 and float32 data as the API documents, float64 for float64): rounding ``d``
    costs ``eps * |d|`` relative in ``exp(d)``, the sum of ``n`` terms ``gamma_n``, the division and exp a few
    ``eps``; so ``slack_i = eps * (n + 4 + |d_i| + sum_j s_j |d_j|) * s_i`` plus the type's smallest normal."""
    x64 = x.astype(np.float64)
    if x64.size == 0:  # no rows, or rows of no elements: nothing to compute
        return np.zeros(x.shape), np.zeros(x.shape)
    d = x64 - np.max(x64, axis=axis, keepdims=True)
    e = np.exp(d)
    s = e / np.sum(e, axis=axis, keepdims=True)
    n = x.shape[axis]
    eps = ARITHMETIC_EPS[accumulator_of(dtype)]
    spread = np.sum(s * np.abs(d), axis=axis, keepdims=True)
    slack = eps * (n + 4 + np.abs(d) + spread) * s + TOLERANCES[dtype.name].tiny
    return s, slack


# -- float64 references of the NCHW ops -----------------------------------------------------------------------------


def conv2d_reference(
    x: npt.NDArray[Any],
    w: npt.NDArray[Any],
    *,
    padding: tuple[int, int] = (0, 0),
    stride: tuple[int, int] = (1, 1),
    dilation: tuple[int, int] = (1, 1),
    groups: int = 1,
    bias: npt.NDArray[Any] | None = None,
) -> npt.NDArray[np.float64]:
    """The convolution of deep learning (a cross-correlation), computed directly in float64.

    ``x`` is NCHW (N, C, H, W), ``w`` OIHW (O, C/groups, KH, KW); output channel ``o`` belongs to group
    ``g = o // (O/groups)`` and sees input channels ``g*C/groups ...``; with ``xp`` = ``x`` zero-padded by
    ``padding`` on both sides of H and W::

        out[n, o, i, j] = bias[o] + sum over c < C/groups, p < KH, q < KW of
                          xp[n, g*C/groups + c, i*sh + p*dh, j*sw + q*dw] * w[o, c, p, q]

    for ``i < OH = (H + 2*ph - dh*(KH-1) - 1) // sh + 1`` (and likewise ``j``).
    """
    xf = np.asarray(x, dtype=np.float64)
    wf = np.asarray(w, dtype=np.float64)
    n, _, h, wd = xf.shape
    o, cg, kh, kw = wf.shape
    (ph, pw), (sh, sw), (dh, dw) = padding, stride, dilation
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    og = o // groups
    xp = np.pad(xf, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    out = np.zeros((n, o, oh, ow), dtype=np.float64)
    for g in range(groups):
        xg = xp[:, g * cg : (g + 1) * cg]  # (n, cg, H + 2ph, W + 2pw)
        wg = wf[g * og : (g + 1) * og]  # (og, cg, kh, kw)
        for p in range(kh):
            for q in range(kw):
                # the input element under kernel tap (p, q) for every output position (i, j)
                rows = xg[:, :, p * dh : p * dh + sh * (oh - 1) + 1 : sh, q * dw : q * dw + sw * (ow - 1) + 1 : sw]
                out[:, g * og : (g + 1) * og] += np.einsum("nchw,oc->nohw", rows, wg[:, :, p, q])
    if bias is not None:
        out += np.asarray(bias, dtype=np.float64).reshape(1, o, 1, 1)
    return out


WINOGRAD_TERMS = 24
"""The additions a Winograd F(2x2, 3x3) output adds to the channel sum: up to 4 per input-tile entry
(``B^T d B``), 9 per filter-tile entry (``G g G^T``), one product and 9 per output (``A^T m A``)."""


def winograd_magnitude(
    x: npt.NDArray[Any], w: npt.NDArray[Any], *, padding: tuple[int, int], groups: int
) -> npt.NDArray[np.float64]:
    """What the rounding errors of Winograd F(2x2, 3x3) (stride 1, dilation 1) are measured against, per output:
    ``9 * sum over c of ||d_c||_1 * ||g_(o,c)||_1``, with ``d_c`` the input around the output's tile (the 5x5
    padded-input window from one row and column before the output's 3x3 receptive field: every 4x4 tile holding
    it) and ``g`` the 3x3 filter. The 9 is the product of the largest row sums of ``|A^T|`` (3, both sides); the
    entries of ``|B|`` and ``|G|`` are at most 1. Unlike the direct sum, Winograd mixes misaligned input and
    filter values in its transforms, so its error is bounded normwise (Barabasz et al., "Error analysis and
    improving the accuracy of Winograd convolution for deep neural networks", ACM TOMS 46(4), 2020)."""
    xa = np.abs(np.asarray(x, dtype=np.float64))
    wa = np.abs(np.asarray(w, dtype=np.float64))
    n, c, h, wd = xa.shape
    o = wa.shape[0]
    ph, pw = padding
    oh, ow = h + 2 * ph - 2, wd + 2 * pw - 2
    xp = np.pad(xa, ((0, 0), (0, 0), (ph + 1, ph + 2), (pw + 1, pw + 2)))
    window = np.zeros((n, c, oh, ow))
    for p in range(5):
        for q in range(5):
            window += xp[:, :, p : p + oh, q : q + ow]
    cg, og = c // groups, o // groups
    norms = wa.sum(axis=(2, 3))  # (o, cg)
    out = np.zeros((n, o, oh, ow))
    for g in range(groups):
        out[:, g * og : (g + 1) * og] = np.einsum(
            "nchw,oc->nohw", window[:, g * cg : (g + 1) * cg], norms[g * og : (g + 1) * og]
        )
    return 9 * out


def assert_conv_close(
    got: wia.Tensor,
    x: npt.NDArray[Any],
    w: npt.NDArray[Any],
    config: dict[str, Any],
    call: str,
    *,
    bias: npt.NDArray[Any] | None = None,
    precision: str | None = None,
    winograd: bool = False,
) -> None:
    """``got`` is :func:`conv2d_reference` of ``x``, ``w`` (and ``bias``) with ``config`` (padding, stride,
    dilation, groups) at ``precision`` (None: the data type's default): the result type of
    :data:`PRECISION_RULES` and values within :func:`assert_reduction_close` for ``C/groups * KH * KW`` products
    plus the bias. ``winograd=True``: its transforms' rounding is measured against :func:`winograd_magnitude` over
    :data:`WINOGRAD_TERMS` more terms (rounding the data to the arithmetic still costs ``2 e`` of the direct
    magnitude: the transforms are exact in exact arithmetic)."""
    __tracebackhide__ = True
    arithmetic, result = matrix_arithmetic(x.dtype, precision)
    ref = conv2d_reference(x, w, bias=bias, **config)
    got_dtype = np.dtype(got.dtype)
    if (got.shape, got_dtype) != (ref.shape, result):
        fail(f"shape {got.shape}, dtype {got_dtype.name}", f"shape {ref.shape}, dtype {result.name}", call)
    magnitude = conv2d_reference(
        np.abs(x.astype(np.float64)),
        np.abs(w.astype(np.float64)),
        bias=None if bias is None else np.abs(bias.astype(np.float64)),
        **config,
    )
    _, cg, kh, kw = w.shape
    acc = accumulator_of(x.dtype)
    e = input_eps(x.dtype, arithmetic)
    if not winograd:
        assert_reduction_close(
            got.numpy(),
            round_to(ref, result),
            result,
            call,
            magnitude=magnitude,
            terms=cg * kh * kw + 1,
            arithmetic=acc,
            input_eps=e,
        )
        return
    transforms = winograd_magnitude(x, w, padding=config["padding"], groups=config["groups"])
    if bias is not None:
        transforms = transforms + np.abs(bias.astype(np.float64)).reshape(1, -1, 1, 1)
    slack = (2 * e + e**2) * magnitude + accumulation_bound(cg + WINOGRAD_TERMS, acc) * (1 + e) ** 2 * transforms
    assert_array_close(got.numpy(), round_to(ref, result), result, call, slack=slack)


def pool2d_reference(
    x: npt.NDArray[Any],
    kind: str,
    kernel: tuple[int, int],
    stride: tuple[int, int] | None = None,
    padding: tuple[int, int] = (0, 0),
) -> npt.NDArray[np.float64]:
    """2-D pooling of an NCHW array in float64: the window ``kernel`` moves by ``stride`` (default: ``kernel``)
    over ``x`` padded by ``padding``; ``kind="MAX"`` takes the largest element (padding never wins: it is -inf),
    ``kind="AVG"`` the window's sum divided by ``KH*KW`` (padded positions count as zeros in the divisor, the
    binding of :class:`wia.PoolConfig`). ``OH = (H + 2*ph - KH) // sh + 1``."""
    xf = np.asarray(x, dtype=np.float64)
    (kh, kw), (ph, pw) = kernel, padding
    sh, sw = stride if stride is not None else kernel
    n, c, h, w = xf.shape
    oh, ow = (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1
    fill = -np.inf if kind == "MAX" else 0.0
    xp = np.pad(xf, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=fill)
    out = np.full((n, c, oh, ow), fill)
    for p in range(kh):
        for q in range(kw):
            tap = xp[:, :, p : p + sh * (oh - 1) + 1 : sh, q : q + sw * (ow - 1) + 1 : sw]
            out = np.maximum(out, tap) if kind == "MAX" else out + tap
    return out if kind == "MAX" else out / (kh * kw)


def assert_bytes_equal(got: npt.NDArray[Any], expected: npt.NDArray[Any], call: str) -> None:
    """Two byte buffers are identical."""
    __tracebackhide__ = True
    g = np.asarray(got).reshape(-1).view(np.uint8)
    e = np.asarray(expected).reshape(-1).view(np.uint8)
    if g.shape != e.shape:
        fail(f"{g.size} bytes", f"{e.size} bytes", call)
    diff = np.flatnonzero(g != e)
    if diff.size:
        i = int(diff[0])
        fail(
            f"{diff.size} of {e.size} bytes differing (first at byte {i}: {int(g[i])})",
            f"byte-exact data (byte {i}: {int(e[i])})",
            call,
        )


_REQ_ID = re.compile(r"^R-\d+(\.\d+)*-\d{2}$")


def is_req_id(text: str) -> bool:
    """Whether ``text`` looks like a SPEC.md requirement ID (``R-3.4.1-02``)."""
    return bool(_REQ_ID.match(text))


# -- memory pools (SPEC 3.5.2) --------------------------------------------------------------------------------------

POOL_RATES = ("cache_hit_rate", "fragmentation")
"""The :class:`wia.PoolStats` fields that are rates in [0, 1] (R-3.5.2-04)."""


def rounded_to_block(size: int, block_size: int) -> int:
    """``size`` rounded up to a multiple of ``block_size`` (R-3.5.2-02), at least one block."""
    return max(block_size, -(-size // block_size) * block_size)


def assert_pool_stats_valid(stats: object, call: str) -> None:
    """``stats`` is a :class:`wia.PoolStats` whose values are in range and agree with each other (R-3.5.2-04):
    the spec's ``num_allocations`` (an int >= 0), ``cache_hit_rate`` and ``fragmentation`` (in [0, 1]); and where
    the binding's fields are present: counts and byte figures are ints >= 0, peaks are at least the current
    values, live blocks fit in the reserved memory, ``cache_hit_rate`` is ``cache_hits / (cache_hits +
    cache_misses)`` (0 before any request) and a hit is an allocation that was served."""
    __tracebackhide__ = True
    assert_isinstance(stats, wia.PoolStats, call)
    assert_int(getattr(stats, "num_allocations", None), f"{call}.num_allocations", minimum=0)
    for name in POOL_RATES:
        value = getattr(stats, name, None)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            fail(fmt(value), "a rate in [0, 1]", f"{call}.{name}")
    counts = ("num_frees", "cache_hits", "cache_misses", "num_segments", "num_segment_releases")
    sizes = ("bytes_in_use", "bytes_requested", "bytes_reserved", "peak_bytes_in_use", "peak_bytes_reserved")
    values: dict[str, int] = {}
    for name in (*counts, *sizes):
        if hasattr(stats, name):
            value = getattr(stats, name)
            assert_int(value, f"{call}.{name}", minimum=0)
            values[name] = value
    for peak, current in (("peak_bytes_in_use", "bytes_in_use"), ("peak_bytes_reserved", "bytes_reserved")):
        if peak in values and current in values and values[peak] < values[current]:
            fail(f"{peak}={values[peak]}", f"at least {current}={values[current]}", call)
    for low, high in (("bytes_in_use", "bytes_reserved"), ("bytes_requested", "bytes_in_use")):
        if low in values and high in values and values[low] > values[high]:
            fail(f"{low}={values[low]}", f"at most {high}={values[high]}", call)
    if "cache_hits" in values and "cache_misses" in values:
        hits, misses = values["cache_hits"], values["cache_misses"]
        rate = hits / (hits + misses) if hits + misses else 0.0
        got = stats.cache_hit_rate  # type: ignore[attr-defined]
        if not math.isclose(got, rate, rel_tol=1e-9, abs_tol=1e-12):
            fail(f"cache_hit_rate={got}", f"cache_hits / (cache_hits + cache_misses) = {rate}", call)
        allocations = stats.num_allocations  # type: ignore[attr-defined]
        if hits > allocations:
            fail(f"cache_hits={hits}", f"at most num_allocations={allocations}", call)
