"""The one place OpenCL status codes become WIA error codes (and where PyOpenCL is imported).

Every call into the driver that can fail runs inside :func:`checked`; a failed command found later (a negative
event status) goes through :func:`check_event_status`. Both name the OpenCL status, keep the driver's message
(a build log for ``BUILD_PROGRAM_FAILURE``) and chain the native error.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from wia_hal.errors import ErrorCode, InvalidValueError, WiaError, error_for

try:
    import pyopencl as cl
except ImportError as e:  # the opencl extra is not installed: the backend says how to get it when it is created
    cl = None  # type: ignore[assignment]
    _IMPORT_ERROR = f"{type(e).__name__}: {e}"
else:
    _IMPORT_ERROR = ""

INSTALL_HINT = "pip install 'wia[opencl]'"

_CODES: dict[str, ErrorCode] = {
    "MEM_OBJECT_ALLOCATION_FAILURE": ErrorCode.OUT_OF_MEMORY,
    "OUT_OF_RESOURCES": ErrorCode.OUT_OF_MEMORY,
    "OUT_OF_HOST_MEMORY": ErrorCode.OUT_OF_MEMORY,
    "INVALID_BUFFER_SIZE": ErrorCode.OUT_OF_MEMORY,  # larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE
    "INVALID_WORK_GROUP_SIZE": ErrorCode.INVALID_LAUNCH_CONFIG,
    "INVALID_WORK_ITEM_SIZE": ErrorCode.INVALID_LAUNCH_CONFIG,
    "INVALID_GLOBAL_WORK_SIZE": ErrorCode.INVALID_LAUNCH_CONFIG,
    "INVALID_GLOBAL_OFFSET": ErrorCode.INVALID_LAUNCH_CONFIG,
    "INVALID_WORK_DIMENSION": ErrorCode.INVALID_LAUNCH_CONFIG,
    "BUILD_PROGRAM_FAILURE": ErrorCode.COMPILE_ERROR,
    "COMPILE_PROGRAM_FAILURE": ErrorCode.COMPILE_ERROR,
    "LINK_PROGRAM_FAILURE": ErrorCode.COMPILE_ERROR,
    "INVALID_BUILD_OPTIONS": ErrorCode.COMPILE_ERROR,
    "INVALID_COMPILER_OPTIONS": ErrorCode.COMPILE_ERROR,
    "INVALID_LINKER_OPTIONS": ErrorCode.COMPILE_ERROR,
    "COMPILER_NOT_AVAILABLE": ErrorCode.NOT_SUPPORTED,
    "INVALID_KERNEL_NAME": ErrorCode.INVALID_KERNEL,
    "INVALID_KERNEL_DEFINITION": ErrorCode.INVALID_KERNEL,
    "DEVICE_NOT_AVAILABLE": ErrorCode.DEVICE_LOST,
}
"""OpenCL status names and the WIA code each becomes; any other status is ``INTERNAL``."""


def require_pyopencl() -> None:
    """``INVALID_VALUE`` saying how to install PyOpenCL, where it does not import."""
    if cl is None:
        raise InvalidValueError(
            f"the opencl backend needs PyOpenCL, which does not import here ({_IMPORT_ERROR}): {INSTALL_HINT}"
        )


def status_name(code: int) -> str:
    """``OUT_OF_RESOURCES`` for -5; a vendor's own code by its number."""
    for name in dir(cl.status_code):
        if name.isupper() and getattr(cl.status_code, name) == code:
            return name
    return f"status {code}"


def wia_error(code: int, doing: str, detail: str = "") -> WiaError:
    """The WIA error of OpenCL status ``code`` met while ``doing`` something."""
    name = status_name(code)
    message = f"{doing}: OpenCL {name} ({code})"
    return error_for(_CODES.get(name, ErrorCode.INTERNAL), f"{message}: {detail}" if detail else message)


@contextlib.contextmanager
def checked(doing: str) -> Iterator[None]:
    """Run driver calls; a ``pyopencl.Error`` becomes the WIA error of its status, chained."""
    try:
        yield
    except cl.Error as e:
        code = getattr(e, "code", None)
        if not isinstance(code, int):
            raise error_for(ErrorCode.INTERNAL, f"{doing}: OpenCL error {e}") from e
        detail = str(e).strip() if _CODES.get(status_name(code)) is ErrorCode.COMPILE_ERROR else ""
        raise wia_error(code, doing, detail) from e


def check_event_status(status: int, doing: str) -> None:
    """A negative execution status of a finished command is the error it failed with."""
    if status < 0:
        raise wia_error(status, doing, "a command of the queue failed")


__all__ = ["INSTALL_HINT", "check_event_status", "checked", "cl", "require_pyopencl", "status_name", "wia_error"]
