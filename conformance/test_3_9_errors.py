"""SPEC 3.9: error codes, error strings, error details with the user's call site, recovery."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import wia_hal as wia
from conformance import assertions as ph
from conformance import strategies as hh

E = wia.ErrorCode
LISTED_CODES = (
    "SUCCESS",
    "INVALID_VALUE",
    "INVALID_DEVICE",
    "INVALID_CONTEXT",
    "INVALID_MEMORY",
    "INVALID_KERNEL",
    "INVALID_LAUNCH_CONFIG",
    "COMPILE_ERROR",
    "OUT_OF_MEMORY",
    "DEVICE_LOST",
    "DEVICE_BUSY",
    "TIMEOUT",
    "NOT_SUPPORTED",
)


@pytest.mark.req("R-3.9-01")
@pytest.mark.parametrize("name", LISTED_CODES)
def test_listed_code_exists(name: str) -> None:
    names = sorted(c.name for c in wia.ErrorCode)
    ph.assert_true(hasattr(wia.ErrorCode, name), names, f"a member ErrorCode.{name}", "ErrorCode")


@pytest.mark.req("R-3.9-01")
def test_codes_are_distinct_and_success_is_zero() -> None:
    values = [int(getattr(wia.ErrorCode, n)) for n in LISTED_CODES]
    ph.assert_equal(len(set(values)), len(values), f"distinct values of {LISTED_CODES}")
    ph.assert_equal(int(wia.ErrorCode.SUCCESS), 0, "int(ErrorCode.SUCCESS)")


@pytest.mark.req("R-3.9-01")
@pytest.mark.parametrize("name", [n for n in LISTED_CODES if n != "SUCCESS"])
def test_each_error_code_has_an_exception_class(name: str) -> None:
    code = wia.ErrorCode[name]
    cls = ph.error_classes().get(code)
    ph.assert_true(cls is not None, None, f"a public WiaError subclass with code {name}", "wia.__all__")
    assert cls is not None
    error = cls("a message")
    ph.assert_isinstance(error, wia.WiaError, f"{cls.__name__}('a message')")
    ph.assert_equal(error.code, code, f"{cls.__name__}('a message').code")


@pytest.mark.req("R-3.9-02")
def test_error_strings_for_every_code() -> None:
    strings = {}
    for code in wia.ErrorCode:
        text = wia.get_error_string(code)
        call = f"get_error_string(ErrorCode.{code.name})"
        ph.assert_isinstance(text, str, call)
        ph.assert_true(bool(text.strip()), text, "a readable, non-empty message", call)
        strings[code] = text
        ph.assert_equal(wia.get_error_string(int(code)), text, f"get_error_string({int(code)}) (the code as an int)")
    ph.assert_equal(len(set(strings.values())), len(strings), "distinct strings for every code")


@pytest.mark.req("R-3.9-02")
@pytest.mark.parametrize("value", [999, -5, "TIMEOUT", None, 1.5], ids=["999", "-5", "str", "None", "float"])
def test_error_string_of_a_non_code(value: Any) -> None:
    ph.assert_raises_code(E.INVALID_VALUE, wia.get_error_string, value)


def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


def _check_details(
    details: wia.ErrorDetails, error: BaseException, tb_line: int, function: str, code: wia.ErrorCode, call: str
) -> None:
    __tracebackhide__ = True
    ph.assert_isinstance(details, wia.ErrorDetails, call)
    ph.assert_equal(details.code, code, f"{call}.code")
    ph.assert_true(_same_file(details.file, __file__), details.file, f"this test file {__file__}", f"{call}.file")
    ph.assert_equal(details.line, tb_line, f"{call}.line")
    ph.assert_equal(details.function, function, f"{call}.function")
    ph.assert_true(bool(details.message.strip()), details.message, "a non-empty message", f"{call}.message")
    ph.assert_equal(details.message, str(error), f"{call}.message vs the exception's message")


def _line_in_this_frame(excinfo: pytest.ExceptionInfo[wia.WiaError]) -> int:
    """The line, in the test function, of the call that raised (the first traceback entry is that frame)."""
    tb = excinfo.tb
    return tb.tb_lineno


@pytest.mark.req("R-3.9-03")
def test_error_details_of_a_context_call(ctx: wia.Context) -> None:
    with pytest.raises(wia.WiaError) as excinfo:
        wia.alloc(ctx, 0)
    line = _line_in_this_frame(excinfo)
    _check_details(
        wia.get_error_details(ctx),
        excinfo.value,
        line,
        "test_error_details_of_a_context_call",
        E.INVALID_VALUE,
        "get_error_details(ctx) after alloc(ctx, 0)",
    )


@pytest.mark.req("R-3.9-03")
def test_error_details_of_calls_on_objects_of_the_context(ctx: wia.Context) -> None:
    fn = "test_error_details_of_calls_on_objects_of_the_context"
    mem = wia.alloc(ctx, 64)
    with pytest.raises(wia.WiaError) as excinfo:
        wia.memory_ptr(mem)
    _check_details(
        wia.get_error_details(ctx),
        excinfo.value,
        _line_in_this_frame(excinfo),
        fn,
        E.INVALID_VALUE,
        "get_error_details(ctx) after memory_ptr(DEVICE memory of ctx)",
    )
    a = wia.zeros((2, 3), ctx=ctx)
    b = wia.zeros((4,), ctx=ctx)
    with pytest.raises(wia.WiaError) as excinfo:
        wia.add(a, b)
    _check_details(
        wia.get_error_details(ctx),
        excinfo.value,
        _line_in_this_frame(excinfo),
        fn,
        E.INVALID_VALUE,
        "get_error_details(ctx) after add((2, 3), (4,)) of tensors of ctx",
    )
    s = wia.create_stream(ctx)
    with pytest.raises(wia.WiaError) as excinfo:
        wia.copy_async(mem, mem, 65, s)
    _check_details(
        wia.get_error_details(ctx),
        excinfo.value,
        _line_in_this_frame(excinfo),
        fn,
        E.INVALID_VALUE,
        "get_error_details(ctx) after copy_async(mem of 64 bytes, ..., 65, stream of ctx)",
    )


@pytest.mark.req("R-3.9-03")
def test_error_details_of_calls_naming_the_context_by_keyword(ctx: wia.Context) -> None:
    fn = "test_error_details_of_calls_naming_the_context_by_keyword"
    with pytest.raises(wia.WiaError) as excinfo:
        wia.zeros((-1,), ctx=ctx)
    _check_details(
        wia.get_error_details(ctx),
        excinfo.value,
        _line_in_this_frame(excinfo),
        fn,
        E.INVALID_VALUE,
        "get_error_details(ctx) after zeros((-1,), ctx=ctx)",
    )
    with pytest.raises(wia.WiaError) as excinfo:
        wia.tensor(np.zeros(3, np.complex64), ctx=ctx)
    _check_details(
        wia.get_error_details(ctx),
        excinfo.value,
        _line_in_this_frame(excinfo),
        fn,
        excinfo.value.code,
        "get_error_details(ctx) after tensor(complex64 data, ctx=ctx)",
    )


def _a_helper_that_fails(ctx: wia.Context) -> int:
    with pytest.raises(wia.WiaError) as excinfo:
        wia.context_set_timeout(ctx, -1.0)
    return _line_in_this_frame(excinfo)


@pytest.mark.req("R-3.9-03")
def test_error_details_name_the_innermost_user_function(ctx: wia.Context) -> None:
    line = _a_helper_that_fails(ctx)
    details = wia.get_error_details(ctx)
    ph.assert_equal(
        (details.function, details.line),
        ("_a_helper_that_fails", line),
        "get_error_details(ctx): (function, line) of a call made in a helper of the test",
    )


@pytest.mark.req("R-3.9-03")
def test_error_details_without_context_give_the_last_error(device: wia.Device) -> None:
    with pytest.raises(wia.WiaError) as excinfo:
        wia.get_device(-1)
    _check_details(
        wia.get_error_details(),
        excinfo.value,
        _line_in_this_frame(excinfo),
        "test_error_details_without_context_give_the_last_error",
        E.INVALID_DEVICE,
        "get_error_details() after get_device(-1)",
    )


@pytest.mark.req("R-3.9-03")
def test_exception_details_match_get_error_details(ctx: wia.Context) -> None:
    with pytest.raises(wia.WiaError) as excinfo:
        wia.alloc(ctx, -8)
    ph.assert_equal(excinfo.value.details, wia.get_error_details(ctx), "exception.details vs get_error_details(ctx)")


@pytest.mark.req("R-3.9-04", "R-3.3-05")
def test_timeout_recovery(ctx: wia.Context, info: wia.DeviceInfo) -> None:
    n = hh.work_bytes(info)
    a, b = wia.alloc(ctx, n), wia.alloc(ctx, n)
    s = wia.create_stream(ctx)
    x = wia.tensor(np.arange(16, dtype=np.float32), ctx=ctx)
    wia.context_set_timeout(ctx, 1e-6)
    wia.copy_async(a, b, n, s)
    wia.copy_async(b, a, n, s)
    y = wia.mul(x, x, stream=s)
    ph.assert_raises_code(E.TIMEOUT, wia.stream_synchronize, s)
    wia.context_set_timeout(ctx, 600_000.0)
    wia.stream_synchronize(s)  # the retry with a longer timeout succeeds
    ph.assert_array_close(y.numpy(), np.arange(16, dtype=np.float32) ** 2, np.dtype(np.float32), "mul after recovery")
    z = wia.add(x, x, stream=s)  # and the context keeps working
    wia.stream_synchronize(s)
    ph.assert_array_close(z.numpy(), np.arange(16, dtype=np.float32) * 2, np.dtype(np.float32), "add after recovery")


@pytest.mark.req("R-3.9-01")
def test_nothing_but_wia_errors_escape(ctx: wia.Context) -> None:
    calls: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
        (wia.get_device, ("zero",)),
        (wia.alloc, (ctx, "many")),
        (wia.tensor, (object(),)),
        (wia.zeros, ({"a": 1},)),
        (wia.add, (1, 2)),
        (wia.context_set_timeout, (ctx, [1])),
    ]
    for fn, args in calls:
        try:
            fn(*args)
        except wia.WiaError:
            continue
        except Exception as e:
            ph.fail(f"{type(e).__name__}: {e}", "a WiaError", ph.call_repr(fn, *args))
        ph.fail("no error", "a WiaError", ph.call_repr(fn, *args))
