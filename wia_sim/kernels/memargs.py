"""What a caller may say about a ``__global``/``__constant`` buffer argument beyond its bytes: how a kernel may
use it (OpenCL's ``CL_MEM_READ_ONLY``/``CL_MEM_WRITE_ONLY``) and which of its bytes hold data yet.

``run_kernel`` takes a plain uint8 array (read-write, every byte initialized) or a ``GlobalBuffer``. The checks
these enable (``write_to_read_only``, ``read_from_write_only``, ``uninitialized_global``) run only with checks on,
except the refusal of a write to read-only memory, which always holds (the buffer may be the caller's own).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

__all__ = ["Access", "GlobalBuffer"]

Access = Literal["read_write", "read_only", "write_only"]


@dataclass
class GlobalBuffer:
    """A buffer argument: ``data`` (1-D uint8, read and written in place), what a kernel may do with it
    (``access``) and ``initialized``, a bool per byte of ``data`` (None: every byte holds data). A kernel's stores
    set the flags of the bytes they write, in place, so that the caller learns what the launch initialized."""

    data: NDArray[np.uint8]
    access: Access = "read_write"
    initialized: NDArray[np.bool_] | None = None

    def __post_init__(self) -> None:
        if self.access not in ("read_write", "read_only", "write_only"):
            raise ValueError(f"access must be read_write, read_only or write_only, got {self.access!r}")
        if self.initialized is not None and self.initialized.shape != (np.asarray(self.data).size,):
            raise ValueError("initialized needs one flag per byte of data")


def unwrap(arg: Any) -> tuple[Any, Access, NDArray[np.bool_] | None]:
    """The bytes, access and initialized flags of a buffer argument (a plain array: read-write, all set)."""
    if isinstance(arg, GlobalBuffer):
        return arg.data, arg.access, arg.initialized
    return arg, "read_write", None
