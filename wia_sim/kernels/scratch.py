"""Large per-lane arrays of a launch, recycled from the previous launches on the same thread.

Memory a process touches for the first time costs a page fault per page: measured here, 2.3 ms to fill a fresh
4 MB array against 0.09 ms for one already touched, so a million-work-item vector add spent two thirds of its time
faulting in its temporaries. A launch's loads, arithmetic results and materialized ids die with the launch (none
is kept by a program, a region or a result), so the next launch can take them over: ``launch_scratch`` opens a
launch's session, ``empty`` hands out arrays from the thread's pool, and a launch that ends normally returns every
array it took (one that raises keeps them: a traceback may still reach them).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["empty", "give_back", "launch_scratch", "take"]

Array = NDArray[Any]

_MIN_BYTES = 1 << 19
"""Smaller arrays come from the allocator's heap, which reuses them anyway (a million lanes' mask is above)."""
_POOL_BYTES = 256 << 20
"""The most a thread keeps between launches (a launch that used more returns only this much)."""

Key = tuple[tuple[int, ...], str]


class _Pool(threading.local):
    def __init__(self) -> None:
        self.free: dict[Key, list[Array]] = {}
        self.taken: list[Array] | None = None  # the open launch's arrays, or None outside a launch


_POOL = _Pool()


def empty(shape: tuple[int, ...], dtype: np.dtype[Any] | type) -> Array:
    """An uninitialized array, recycled when a launch is open on this thread and the array is large."""
    dt = np.dtype(dtype)
    taken = _POOL.taken
    if taken is None or dt.itemsize * int(np.prod(shape)) < _MIN_BYTES:
        return np.empty(shape, dt)
    stack = _POOL.free.get((shape, dt.str))
    a = stack.pop() if stack else np.empty(shape, dt)
    taken.append(a)
    return a


@contextmanager
def launch_scratch() -> Iterator[None]:
    """One launch: the arrays ``empty`` hands out inside return to the pool when it ends without an exception."""
    outer = _POOL.taken
    _POOL.taken = []
    try:
        yield
        kept = 0
        free: dict[Key, list[Array]] = {}
        for a in _POOL.taken:
            if kept + a.nbytes > _POOL_BYTES:
                break
            kept += a.nbytes
            free.setdefault((a.shape, a.dtype.str), []).append(a)
        for stack in _POOL.free.values():  # what this launch did not take stays, within the bound
            for a in stack:
                if kept + a.nbytes > _POOL_BYTES:
                    break
                kept += a.nbytes
                free.setdefault((a.shape, a.dtype.str), []).append(a)
        _POOL.free = free
    finally:
        _POOL.taken = outer


class _Kept(threading.local):
    def __init__(self) -> None:
        self.free: dict[int, list[Array]] = {}
        self.nbytes = 0


_KEPT = _Kept()


def take(nbytes: int) -> Array:
    """A uint8 array of ``nbytes`` that outlives a launch (the copy of a buffer a kernel writes, until its writes
    land), recycled from ``give_back`` when one of that size was given back on this thread."""
    stack = _KEPT.free.get(nbytes)
    if stack:
        _KEPT.nbytes -= nbytes
        return stack.pop()
    return np.empty(nbytes, np.uint8)


def give_back(a: Array) -> None:
    """``a`` (from ``take``) is no longer used by anyone: a later ``take`` of its size may hand it out."""
    if a.nbytes < _MIN_BYTES or _KEPT.nbytes + a.nbytes > _POOL_BYTES:
        return
    _KEPT.free.setdefault(a.nbytes, []).append(a)
    _KEPT.nbytes += a.nbytes
