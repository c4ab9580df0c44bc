"""Assertion helpers of the suite (imported as ``ph``), in the style of array-api-tests.

Every helper hides itself from tracebacks (``__tracebackhide__``) and fails with one message shape::

    got X, but should be Y [call(args)]

so that a report line says what the backend did, what the spec asks and which call showed it. The tolerance
table for comparing results with a float64 NumPy reference lives here too (:data:`TOLERANCES`).
"""

from __future__ import annotations

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


TOLERANCES: dict[str, Tolerance] = {
    "float64": Tolerance(1e-12, 5e-324, "53-bit mantissa; atol is the smallest subnormal"),
    "float32": Tolerance(1e-6, 1e-45, "24-bit mantissa (one ulp is 1.2e-7 relative); atol is the smallest subnormal"),
    "float16": Tolerance(
        1e-3, 6e-8, "11-bit mantissa (one ulp is up to 9.8e-4 relative); atol is the smallest subnormal"
    ),
    "bfloat16": Tolerance(
        1e-2, 9.2e-41, "8-bit mantissa (one ulp is up to 7.8e-3 relative); atol is the smallest subnormal"
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


def assert_array_close(got: object, expected: npt.NDArray[Any], dtype: np.dtype[Any], call: str) -> None:
    """``got`` is an array of ``expected``'s shape and ``dtype`` and within :data:`TOLERANCES` of it."""
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
    if tol.rtol == 0 and tol.atol == 0:
        bad = got != expected
    else:
        g = got.astype(np.float64)
        e = expected.astype(np.float64)
        bad = ~(np.abs(g - e) <= tol.atol + tol.rtol * np.abs(e))
        bad &= ~(np.isnan(g) & np.isnan(e))
    if bad.any():
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        fail(
            f"{fmt(got)} ({int(bad.sum())} of {bad.size} elements differ; first at {index}: {got[index]!r})",
            f"{fmt(expected)} (at {index}: {expected[index]!r}; rtol={tol.rtol}, atol={tol.atol})",
            call,
        )


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
