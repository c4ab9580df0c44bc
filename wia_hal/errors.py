"""Error codes (SPEC 3.9), the exception per code, and the record of the last error with the user's call site.

Every public function is wrapped by :func:`api`: a ``WiaError`` raised inside is recorded (globally and on the
context involved) with the file, line and function of the user's code that made the call; any other exception is
turned into a ``WiaError`` so that nothing else escapes the API.
"""

from __future__ import annotations

import builtins
import difflib
import enum
import functools
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterable
from typing import Any, ParamSpec, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict


class ErrorCode(enum.IntEnum):
    """WIA-AI-011 error codes (``WIA_SUCCESS`` ... ``WIA_ERROR_NOT_SUPPORTED``), plus ``INTERNAL`` for a fault
    inside an implementation (the spec lists these codes as a minimum)."""

    SUCCESS = 0
    INVALID_VALUE = 1
    INVALID_DEVICE = 2
    INVALID_CONTEXT = 3
    INVALID_MEMORY = 4
    INVALID_KERNEL = 5
    INVALID_LAUNCH_CONFIG = 6
    COMPILE_ERROR = 7
    OUT_OF_MEMORY = 8
    DEVICE_LOST = 9
    DEVICE_BUSY = 10
    TIMEOUT = 11
    NOT_SUPPORTED = 12
    INTERNAL = 13


_ERROR_STRINGS = {
    ErrorCode.SUCCESS: "success: no error",
    ErrorCode.INVALID_VALUE: "invalid value: an argument is of the wrong type, out of range or inconsistent",
    ErrorCode.INVALID_DEVICE: "invalid device: no device with that index or handle on the active backend",
    ErrorCode.INVALID_CONTEXT: "invalid context: the context was destroyed or does not own the object used",
    ErrorCode.INVALID_MEMORY: "invalid memory: freed, foreign, or of a type the operation cannot use",
    ErrorCode.INVALID_KERNEL: "invalid kernel: unknown kernel name, or the kernel was destroyed",
    ErrorCode.INVALID_LAUNCH_CONFIG: "invalid launch configuration: geometry or shared memory the device cannot run",
    ErrorCode.COMPILE_ERROR: "compile error: the kernel source did not build (see the build log)",
    ErrorCode.OUT_OF_MEMORY: "out of memory: the device, the pool or the context's limit cannot hold the request",
    ErrorCode.DEVICE_LOST: "device lost: the device stopped responding; reset it to use the context again",
    ErrorCode.DEVICE_BUSY: "device busy: another context holds the device exclusively",
    ErrorCode.TIMEOUT: "timeout: a wait exceeded the context's timeout",
    ErrorCode.NOT_SUPPORTED: "not supported: the device or backend does not offer this feature",
    ErrorCode.INTERNAL: "internal error: a fault inside the implementation (please report it)",
}


def get_error_string(code: ErrorCode | int) -> str:
    """A readable message for every error code."""
    try:
        return _ERROR_STRINGS[ErrorCode(code)]
    except (ValueError, TypeError):
        raise InvalidValueError(
            f"get_error_string: {code!r} is not an ErrorCode (expected one of {[c.name for c in ErrorCode]})"
        ) from None


class ErrorDetails(BaseModel):
    """The last error: its code, message and the user's call site that raised it."""

    model_config = ConfigDict(frozen=True)

    code: ErrorCode
    file: str
    line: int
    function: str
    message: str


def _is_internal(filename: str) -> bool:
    return filename.startswith(_INTERNAL_PREFIXES)


def _call_site() -> tuple[str, int, str]:
    """File, line and function of the first frame outside wia's packages (and the libraries they call)."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if not _is_internal(code.co_filename):
            return code.co_filename, frame.f_lineno, code.co_name
        frame = frame.f_back  # type: ignore[assignment]
    return "<unknown>", 0, "<unknown>"


_WIA_HAL_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_INTERNAL_PREFIXES: tuple[str, ...] = (_WIA_HAL_DIR,)


def register_internal_dir(path: str) -> None:
    """Treat frames under ``path`` as library frames (the simulator and backends register themselves)."""
    global _INTERNAL_PREFIXES
    prefix = os.path.dirname(os.path.abspath(path)) + os.sep
    if prefix not in _INTERNAL_PREFIXES:
        _INTERNAL_PREFIXES = (*_INTERNAL_PREFIXES, prefix)


class WiaError(Exception):
    """Base of every error the HAL raises; ``code`` says which, ``details`` where the user's call was."""

    code: ErrorCode = ErrorCode.INTERNAL

    cause: BaseException | None = None
    """The lower-level exception this error translates (a simulator's finding, a driver's error), for tools."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        file, line, function = _call_site()
        self.details = ErrorDetails(code=self.code, file=file, line=line, function=function, message=message)

    @property
    def message(self) -> str:
        return str(self.args[0])


class InvalidValueError(WiaError, ValueError):
    code = ErrorCode.INVALID_VALUE


class InvalidDeviceError(WiaError, IndexError):
    code = ErrorCode.INVALID_DEVICE


class InvalidContextError(WiaError, RuntimeError):
    code = ErrorCode.INVALID_CONTEXT


class InvalidMemoryError(WiaError, ValueError):
    code = ErrorCode.INVALID_MEMORY


class InvalidKernelError(WiaError, ValueError):
    code = ErrorCode.INVALID_KERNEL


class InvalidLaunchConfigError(WiaError, ValueError):
    code = ErrorCode.INVALID_LAUNCH_CONFIG


class CompileError(WiaError, SyntaxError):
    code = ErrorCode.COMPILE_ERROR


class OutOfMemoryError(WiaError, MemoryError):
    code = ErrorCode.OUT_OF_MEMORY


class DeviceLostError(WiaError, RuntimeError):
    code = ErrorCode.DEVICE_LOST

    device: int | None = None
    """The index of the device that was lost, where the backend says (set it when raising): the front end then marks
    that device lost whatever the call's arguments were (a peer copy or a collective touches several devices)."""


class DeviceBusyError(WiaError, RuntimeError):
    code = ErrorCode.DEVICE_BUSY


class TimedOutError(WiaError, builtins.TimeoutError):
    code = ErrorCode.TIMEOUT


class NotSupportedError(WiaError, NotImplementedError):
    code = ErrorCode.NOT_SUPPORTED


class InternalError(WiaError, RuntimeError):
    code = ErrorCode.INTERNAL


class StreamHazardError(InvalidValueError):
    """A backend that checks stream ordering strictly (the simulator's ``hazards="error"``) found that the call
    would access memory that another stream accesses with nothing ordering the two (no event, stream wait or host
    synchronization), at least one of them a write: the stream argument is inconsistent with where the data is
    produced or read. Nothing was enqueued. The message names both commands, both streams, the bytes and the fix."""


class StreamHazardWarning(UserWarning):
    """The same finding as :class:`StreamHazardError`, reported as a warning at the user's call (the simulator's
    default): the program goes on, with the race in it."""


class KernelFindingWarning(UserWarning):
    """A lower-severity finding of the simulator's kernel checks, such as a uniform write (work-items storing the
    same value to one address with no barrier in between: a race every order of which leaves the same memory).
    The kernel ran to the end and its writes landed; the finding is also kept on the launch record
    (``kernel.last_launch.findings`` on the sim backend). ``set_backend("sim", kernel_checks="strict")`` makes it
    an ``InvalidKernelError`` instead, as a race is."""


class KernelBuildWarning(UserWarning):
    """The warnings of a custom kernel's build that succeeded (OpenCL's build log), at the user's ``compile_kernel``
    on the sim backend: Clang's words at Clang's places ("vector component name 'r' is a feature from OpenCL
    version 3.0 onwards", "'N' macro redefined"). Warnings made errors (``-W error``), the build is a
    ``CompileError`` with the log, as the build option ``-Werror`` makes it. (The OpenCL backend gives none: PoCL
    3.1 leaves warnings out of its build log, and PyOpenCL's cache of built programs keeps no log.)"""


class OptionOverrideWarning(UserWarning):
    """An explicit backend option (``set_backend(..., hardware=...)``) replaced a different value the environment
    set (``WIA_SIM_HARDWARE``): the explicit one wins, and a run the user meant to point elsewhere says so."""


def warn_at_call_site(message: str, category: type[Warning], registry: dict[Any, Any] | None = None) -> None:
    """Issue a warning at the user's line (the first frame outside wia); with a ``registry``, once per message and
    line, as the warnings filters' "default" action counts them."""
    file, line, _ = _call_site()
    warnings.warn_explicit(message, category, file, line, registry=registry)


def warn_build_log(log: str, registry: dict[Any, Any] | None = None) -> None:
    """The warnings ``log`` holds as a ``KernelBuildWarning`` at the user's call (once per log and line with a
    ``registry``); warnings made errors, a ``CompileError``, so that only a ``WiaError`` leaves the API."""
    try:
        warn_at_call_site(f"kernel build warnings:\n{log}", KernelBuildWarning, registry)
    except KernelBuildWarning:
        raise CompileError(f"kernel build failed (warnings are errors):\n{log}") from None


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for a misspelt name, or ``""``: the choices that contain the word, else the
    close spellings."""
    options = sorted(choices)
    lower = word.lower()
    found = [c for c in options if lower and lower in c.lower()] or difflib.get_close_matches(word, options, n=3)
    return f" (did you mean {' or '.join(repr(c) for c in found[:3])}?)" if found else ""


ERROR_CLASSES: dict[ErrorCode, type[WiaError]] = {
    cls.code: cls
    for cls in (
        InvalidValueError,
        InvalidDeviceError,
        InvalidContextError,
        InvalidMemoryError,
        InvalidKernelError,
        InvalidLaunchConfigError,
        CompileError,
        OutOfMemoryError,
        DeviceLostError,
        DeviceBusyError,
        TimedOutError,
        NotSupportedError,
        InternalError,
    )
}


def error_for(code: ErrorCode, message: str) -> WiaError:
    """The exception of ``code``, for places that map a backend's status to the HAL's errors."""
    return ERROR_CLASSES[code](message)


_last_error: ErrorDetails | None = None


def last_error() -> ErrorDetails | None:
    return _last_error


def _no_lost_hook(device: int, reason: str) -> None:
    return None


_lost_hook: Callable[[int, str], None] = _no_lost_hook


def set_lost_hook(hook: Callable[[int, str], None] | None) -> None:
    """Install the function told of a :class:`DeviceLostError` that names its device (the runtime marks it lost)."""
    global _lost_hook
    _lost_hook = hook or _no_lost_hook


def _record(error: WiaError, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Keep the error as the last one, and as the last one of the context of the first argument that has one; a
    lost device the error names is reported to the runtime."""
    global _last_error
    _last_error = error.details
    if isinstance(error, DeviceLostError) and error.device is not None:
        _lost_hook(error.device, error.message)
    for arg in (*args, *kwargs.values()):
        record = getattr(arg, "_record_error", None)
        if record is not None:
            record(error.details)
            return


def _converted(name: str, e: Exception) -> WiaError:
    """The WiaError a non-WIA exception escaping a public function becomes.

    The front end validates every argument itself and raises ``WiaError``s; what else escapes is a fault of the
    implementation (most often of the backend), never the user's: ``INTERNAL``, chained to its cause. Only the
    host running out of memory is the user's to handle (``OUT_OF_MEMORY``).
    """
    if isinstance(e, MemoryError):
        return OutOfMemoryError(f"{name}: the host could not allocate memory: {e}")
    if isinstance(e, TypeError) and e.__traceback__ is not None and e.__traceback__.tb_next is None:
        return InvalidValueError(f"{name}: {e}")  # raised by the call itself: the arguments do not bind
    return InternalError(f"{name}: {type(e).__name__} inside the implementation: {e}")


def _for_user(error: WiaError) -> WiaError:
    """The error as the user's traceback shows it: one exception, raised at their call. The message says what was
    wrong and what was expected, so the library frames and the lower-level exception it translates (kept as
    ``error.cause``) would only repeat it. ``INTERNAL`` errors keep everything (they are bugs to report), and
    ``WIA_FULL_TRACEBACK=1`` keeps everything for every error."""
    if error.__cause__ is not None:
        error.cause = error.__cause__
    error.__suppress_context__ = True
    return error.with_traceback(None)


P = ParamSpec("P")
R = TypeVar("R")

_depth = 0
"""How many public calls are on the stack: only the outermost one is reported to the call hook."""

API_LOCK = threading.RLock()
"""Held by every public call, so that several host threads can drive the API: their calls run one at a time, each
whole (a backend, the simulator's one clock above all, sees one call at a time, and the simulated timeline follows
the order in which the calls were made). A finaliser that cannot take it leaves its release for later."""


def wait_unlocked(condition: threading.Condition, timeout_s: float | None) -> bool:
    """Wait on ``condition`` (made on :data:`API_LOCK`) from inside a public call, letting other threads' calls run
    meanwhile (a peer barrier's participants arrive from several threads). The lock is released however deeply it is
    held, and the call depth is set aside with it: the calls other threads make meanwhile are outermost calls."""
    global _depth
    depth, _depth = _depth, 0
    try:
        return condition.wait(timeout_s)
    finally:
        _depth = depth


def _no_hook(function: str) -> None:
    return None


_call_hook: Callable[[str], None] = _no_hook


def inside_api() -> bool:
    """Whether a public call is running (a finaliser triggered by its allocations must not change its state)."""
    return _depth > 0


def set_call_hook(hook: Callable[[str], None] | None) -> None:
    """Install the function told of every outermost public call (the runtime passes it to the backend's
    ``api_call``, where a simulator charges the call's host time)."""
    global _call_hook
    _call_hook = hook or _no_hook


class CallTracer(Protocol):
    """Told of each outermost public call as it starts and ends (the profiler's host track)."""

    def enter(self, function: str) -> float: ...

    def exit(self, function: str, started: float) -> None: ...


_tracer: CallTracer | None = None


def set_call_tracer(tracer: CallTracer | None) -> None:
    """Install (or remove, with None) the profiler's tracer of outermost public calls."""
    global _tracer
    _tracer = tracer


def api(fn: Callable[P, R]) -> Callable[P, R]:
    """Wrap a public function: report the call to the hook, record WiaErrors with the user's call site, convert
    anything else (see :func:`_converted`)."""
    name = fn.__name__

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        global _depth
        with API_LOCK:
            try:
                tracer = None
                if _depth == 0:
                    tracer = _tracer
                    if tracer is not None:
                        started = tracer.enter(name)
                    _call_hook(name)
                _depth += 1
                try:
                    return fn(*args, **kwargs)
                finally:
                    _depth -= 1
                    if tracer is not None:
                        tracer.exit(name, started)
            except WiaError as e:
                _record(e, args, kwargs)
                if _depth == 0 and e.code is not ErrorCode.INTERNAL and not os.environ.get("WIA_FULL_TRACEBACK"):
                    raise _for_user(e) from None
                raise
            except Exception as e:
                error = _converted(name, e)
                _record(error, args, kwargs)
                raise error from e

    return wrapper
