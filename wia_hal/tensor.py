"""Tensors: typed, shaped views of a context's memory (SPEC 3.7, R-3.7-05)."""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Sequence

import numpy as np

from wia_hal.backend import TensorRef
from wia_hal.context import Context, current_context
from wia_hal.dtypes import as_dtype, check_supported, float32
from wia_hal.enums import MemoryAccess, MemoryType
from wia_hal.errors import (
    API_LOCK,
    ErrorDetails,
    InvalidContextError,
    InvalidMemoryError,
    InvalidValueError,
    NotSupportedError,
    api,
    inside_api,
)
from wia_hal.memory import Memory, access_of, allocate, lost_at_reset, memory_type_of, orphan, release_orphans
from wia_hal.opset import NO_ATTRS, FillAttrs, OpAttrs, OpName
from wia_hal.pool import MemoryPool, check_pool
from wia_hal.streams import Stream, stream_for


def contiguous_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """Row-major byte strides of ``shape``."""
    strides = []
    step = itemsize
    for dim in reversed(shape):
        strides.append(step)
        step *= max(dim, 1)
    return tuple(reversed(strides))


class Tensor:
    """An n-dimensional array in device-visible (or host) memory of one context.

    ``ref`` is the record a backend receives for it (buffer, byte offset, shape, byte strides, dtype), made once.
    A tensor made by allocation owns its memory and releases it when released (:func:`release_tensor`) or
    dropped; a view (``reshape``, ``transpose``, ``slice``) shares its ``base``'s memory with its own offset and
    strides, and keeps the base alive. ``producer`` is the backend's record of the op that wrote the tensor (see
    :func:`explain`).
    """

    __slots__ = ("__weakref__", "base", "memory", "producer", "ref", "released")

    def __init__(
        self,
        memory: Memory,
        shape: tuple[int, ...],
        dtype: np.dtype,
        base: Tensor | None = None,
        offset: int = 0,
        strides: tuple[int, ...] | None = None,
    ) -> None:
        if strides is None:
            strides = (dtype.itemsize,) if len(shape) == 1 else contiguous_strides(shape, dtype.itemsize)
        self.ref = TensorRef(memory.buffer, memory.offset + offset if base is None else offset, shape, strides, dtype)
        self.memory = memory
        self.base = base
        self.producer: object = None
        self.released = False

    @property
    def shape(self) -> tuple[int, ...]:
        return self.ref.shape

    @property
    def dtype(self) -> np.dtype:
        return self.ref.dtype

    @property
    def strides(self) -> tuple[int, ...]:
        """Byte strides, as NumPy's."""
        return self.ref.strides

    @property
    def offset(self) -> int:
        """Byte offset of the first element in the memory's backend buffer."""
        return self.ref.offset

    @property
    def is_contiguous(self) -> bool:
        return self.strides == contiguous_strides(self.shape, self.dtype.itemsize) or self.size <= 1

    @property
    def context(self) -> Context:
        return self.memory.context

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def memory_type(self) -> MemoryType:
        return self.memory.type

    def __repr__(self) -> str:
        if self.released:
            return "<wia.Tensor released>"
        return f"<wia.Tensor shape={self.shape} dtype={self.dtype.name} {self.memory.type.name}>"

    def __len__(self) -> int:
        if not self.shape:
            raise InvalidValueError("len() of a 0-d tensor")
        return self.shape[0]

    def _record_error(self, details: ErrorDetails) -> None:
        self.memory.context.last_error = details

    def numpy(self) -> np.ndarray:
        """The values as a new NumPy array; waits for the context's outstanding work first."""
        return to_numpy(self)

    def release(self) -> None:
        """Give back the memory this tensor owns (a view owns none) unless it is already gone; mark it released."""
        memory = self.memory
        if self.base is None and not self.released and not memory.freed and not memory.context.destroyed:
            memory.release()
        self.released = True

    def __del__(self) -> None:
        if self.base is not None:  # a view owns no memory: nothing to give back (and no lock to take)
            return
        locked = threading.current_thread() is _MAIN and API_LOCK.acquire(blocking=False)
        try:
            if not locked or inside_api():
                # the garbage collector may finalise a tensor on another thread, while another thread is inside
                # the API, or in the middle of a public call that is changing the very pool or context the
                # tensor's memory belongs to: the release waits for the next allocation, the next finaliser
                # that runs outside the API, or memory_gc
                if not self.released:
                    orphan(self.memory)
                return
            with contextlib.suppress(Exception):  # a finaliser must never raise
                release_orphans()
                self.release()
        finally:
            if locked:
                API_LOCK.release()


_MAIN = threading.main_thread()


def check_tensor(t: object, ctx: Context | None = None) -> Tensor:
    """A live tensor (of ``ctx`` when given)."""
    if type(t) is not Tensor:
        raise InvalidValueError(f"expected a wia Tensor, got {type(t).__name__}")
    if t.released:
        raise InvalidValueError(f"{t!r}: the tensor was released (release_tensor) and cannot be used")
    owner = t.memory.context
    if owner.destroyed:
        raise InvalidContextError(f"the tensor's context {owner!r} was destroyed")
    if owner.runtime.lost:
        owner.runtime.check_alive(owner.device.index)
    if t.memory.freed:
        if t.memory.lost:
            raise InvalidMemoryError(f"{t!r}: its memory {lost_at_reset(t.memory)}")
        pool = t.memory.pool
        if pool is not None and pool.destroyed:
            raise InvalidMemoryError(f"{t!r}: its memory pool was destroyed")
        raise InvalidValueError(f"{t!r}: the tensor's memory was released with the tensor it views")
    if ctx is not None and owner is not ctx:
        raise InvalidMemoryError(f"{t!r} belongs to another context ({owner!r}, not {ctx!r})")
    return t


def _shape(shape: object) -> tuple[int, ...]:
    dims = (shape,) if isinstance(shape, (int, np.integer)) else shape
    if not isinstance(dims, Sequence) or isinstance(dims, str):
        raise InvalidValueError(f"shape must be an int or a sequence of ints, got {shape!r}")
    out = []
    for dim in dims:
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 0:
            raise InvalidValueError(f"shape {tuple(dims)!r}: every dimension must be a non-negative int")
        out.append(int(dim))
    return tuple(out)


def new_tensor(
    ctx: Context, shape: tuple[int, ...], dtype: np.dtype, memory_type: MemoryType, pool: MemoryPool | None = None
) -> Tensor:
    """Allocate an uninitialised tensor (zero-size tensors still take one allocation granule): from ``pool``, else
    DEVICE memory from the context's default pool when it has one, else a device allocation of its own."""
    release_orphans()
    nbytes = max(math.prod(shape) * dtype.itemsize, 1)
    if pool is None and memory_type is MemoryType.DEVICE:
        pool = ctx.default_pool
    memory = pool.allocate(nbytes) if pool is not None else allocate(ctx, nbytes, memory_type)
    memory.tensor = True
    return Tensor(memory, shape, dtype)


NO_RECORD = object()
"""What ``Tensor.producer`` and ``Kernel.last_launch`` hold when the backend launched but keeps no record of it
(``launch_op`` and ``launch_kernel`` may return None): ``explain`` is then ``NOT_SUPPORTED``, not a misuse."""


def launch_op(
    context: Context, stream: Stream, op: OpName, inputs: Sequence[Tensor], out: Tensor, attrs: OpAttrs = NO_ATTRS
) -> Tensor:
    """Enqueue the built-in ``op`` in ``stream``'s order, writing ``out`` (the caller validated the call, so a
    backend without the op is ``NOT_SUPPORTED`` only for a valid call). Nothing enqueued: ``out`` is released."""
    try:
        launch_into(context, stream, op, inputs, out, attrs)
    except BaseException:
        out.release()
        raise
    return out


def launch_into(
    context: Context, stream: Stream, op: OpName, inputs: Sequence[Tensor], out: Tensor, attrs: OpAttrs = NO_ATTRS
) -> None:
    """:func:`launch_op` writing a tensor the caller owns (``copy_into``'s destination, perhaps a view): on failure
    ``out`` stays as it was, unreleased; on success it becomes the op's product (``explain(out)``)."""
    backend = context.backend
    if op not in backend.ops:
        raise NotSupportedError(f"{op}: the {backend.name!r} backend does not implement this op")
    refs = [t.ref for t in inputs]
    for t in inputs:
        t.memory.used_by(stream)
    out.memory.used_by(stream)
    record = backend.launch_op(stream.queue, op, refs, out.ref, attrs)
    out.producer = NO_RECORD if record is None else record
    if context.profiler is not None:
        context.profiler.on_op(record, op, refs, out.ref, attrs)


def contiguous(t: Tensor, stream: Stream) -> Tensor:
    """``t`` itself when contiguous, else a contiguous copy made by the device's ``copy`` op."""
    if t.is_contiguous:
        return t
    ctx = t.memory.context
    return launch_op(ctx, stream, "copy", (t,), new_tensor(ctx, t.shape, t.dtype, MemoryType.DEVICE))


_PYTHON_DEFAULTS = {np.dtype(np.float64): np.dtype(np.float32), np.dtype(np.int64): np.dtype(np.int32)}


def _pool_of(context: Context, pool: object, memory_type: MemoryType) -> MemoryPool | None:
    """``pool`` checked: live, of ``context``, for DEVICE memory."""
    if pool is None:
        return None
    checked = check_pool(pool)
    if checked.context is not context:
        raise InvalidMemoryError(f"{checked!r} belongs to another context than {context!r}")
    if memory_type is not MemoryType.DEVICE:
        raise InvalidValueError(f"a memory pool holds DEVICE memory; got memory={memory_type.name}")
    return checked


def _prepare(ctx: Context | None, dtype: object, memory: object) -> tuple[Context, np.dtype, MemoryType]:
    context = current_context(ctx)
    wia_dtype = as_dtype(dtype)
    check_supported(wia_dtype, context.device.capabilities, context.device.info.name)
    return context, wia_dtype, memory_type_of(memory)


@api
def tensor(
    data: object,
    *,
    ctx: Context | None = None,
    dtype: object = None,
    memory: MemoryType = MemoryType.DEVICE,
    stream: Stream | None = None,
    pool: MemoryPool | None = None,
    access: MemoryAccess = MemoryAccess.READ_WRITE,
) -> Tensor:
    """A tensor holding a copy of ``data`` (an array-like), uploaded through ``stream`` (blocking).

    ``dtype`` defaults to the data's own, which must be a WIA data type (a float64 NumPy array stays float64);
    Python numbers and lists default to float32 and int32, as accelerator frameworks do.
    ``pool``: take the memory from this pool (DEVICE memory of the pool's context). ``access``: what a custom
    kernel may do with it (:class:`MemoryAccess`; ops and the host are not bound by it).
    """
    access = access_of(access, "tensor")
    if isinstance(data, Tensor):
        raise InvalidValueError("tensor: data is already a wia Tensor; use it directly")
    array = np.asarray(data)
    if dtype is None:
        dtype = array.dtype
        if not isinstance(data, (np.ndarray, np.generic)):  # Python numbers: the accelerator defaults
            dtype = _PYTHON_DEFAULTS.get(array.dtype, array.dtype)
            info = np.iinfo(np.int32)
            if dtype == np.int32 and array.size and (array.min() < info.min or array.max() > info.max):
                raise InvalidValueError(
                    f"tensor: Python ints outside int32's range [{info.min}, {info.max}]; pass dtype= explicitly"
                )
    context, wia_dtype, memory_type = _prepare(ctx, dtype, memory)
    s = stream_for(context, stream)
    result = new_tensor(context, array.shape, wia_dtype, memory_type, _pool_of(context, pool, memory_type))
    result.memory.access = access
    result.memory.used_by(s)
    queue = s.queue
    if result.nbytes:
        host = np.ascontiguousarray(array, dtype=wia_dtype)
        context.backend.upload(queue, result.memory.buffer, result.offset, host.reshape(-1).view(np.uint8))
    return result


@api
def empty(
    shape: int | Sequence[int],
    dtype: object = float32,
    *,
    ctx: Context | None = None,
    memory: MemoryType = MemoryType.DEVICE,
    pool: MemoryPool | None = None,
    access: MemoryAccess = MemoryAccess.READ_WRITE,
) -> Tensor:
    """An allocated tensor whose contents are unspecified (the simulator gives zeros, and its kernel checks report
    a custom kernel that reads them before anything wrote them). ``access``: as for :func:`tensor`."""
    access = access_of(access, "empty")
    context, wia_dtype, memory_type = _prepare(ctx, dtype, memory)
    result = new_tensor(context, _shape(shape), wia_dtype, memory_type, _pool_of(context, pool, memory_type))
    result.memory.access = access
    return result


@api
def zeros(
    shape: int | Sequence[int],
    dtype: object = float32,
    *,
    ctx: Context | None = None,
    memory: MemoryType = MemoryType.DEVICE,
    stream: Stream | None = None,
    pool: MemoryPool | None = None,
) -> Tensor:
    """A tensor of zeros, filled on the device by a memset kernel in ``stream``'s order (by the host for HOST
    and PINNED memory)."""
    context, wia_dtype, memory_type = _prepare(ctx, dtype, memory)
    s = stream_for(context, stream)
    result = new_tensor(context, _shape(shape), wia_dtype, memory_type, _pool_of(context, pool, memory_type))
    if memory_type.device_visible:
        launch_op(context, s, "fill", (), result, FillAttrs(value=0))
    elif result.nbytes:  # the device cannot write HOST or PINNED memory: the host clears it
        context.backend.upload(s.queue, result.memory.buffer, result.offset, np.zeros(result.nbytes, np.uint8))
    return result


@api
def create_tensor_device(shape: int | Sequence[int], dtype: object = float32, *, ctx: Context | None = None) -> Tensor:
    """R-3.2.1-03: a tensor in DEVICE memory (fill it with ``copy_async`` or ops)."""
    context, wia_dtype, _ = _prepare(ctx, dtype, MemoryType.DEVICE)
    return new_tensor(context, _shape(shape), wia_dtype, MemoryType.DEVICE)


@api
def create_tensor_unified(shape: int | Sequence[int], dtype: object = float32, *, ctx: Context | None = None) -> Tensor:
    """R-3.2.1-03: a tensor in UNIFIED memory, visible to host (``memory_ptr(t.memory)``) and device without
    copies; ``NOT_SUPPORTED`` where the device does not claim unified memory."""
    context, wia_dtype, _ = _prepare(ctx, dtype, MemoryType.UNIFIED)
    return new_tensor(context, _shape(shape), wia_dtype, MemoryType.UNIFIED)


@api
def release_tensor(t: Tensor) -> None:
    """R-3.7-05: free the tensor's memory; using it afterwards is ``INVALID_VALUE``.

    Releasing a view releases only the view; releasing the tensor that owns the memory invalidates its views.
    """
    check_tensor(t).release()


def view(t: Tensor, shape: tuple[int, ...], strides: tuple[int, ...], offset: int) -> Tensor:
    """A tensor sharing ``t``'s memory (no copy, no device time)."""
    base = t.base if t.base is not None else t  # not `t.base or t`: a tensor's truth is len(), none for 0-d
    return Tensor(t.memory, shape, t.dtype, base=base, offset=offset, strides=strides)


@api
def to_numpy(t: Tensor) -> np.ndarray:
    """The tensor's values as a new NumPy array, after the context's outstanding work."""
    t = check_tensor(t)
    ctx = t.memory.context
    backend = ctx.backend
    if not backend.numerics:
        raise InvalidValueError(
            f"numpy(): {t!r} holds no values: the backend runs in timing-only mode (numerics=False), which keeps "
            "shapes, memory and time but computes nothing; run with numerics=True to read results"
        )
    ctx.synchronize()
    if not t.nbytes:
        return np.empty(t.shape, t.dtype)
    if t.is_contiguous:
        raw = backend.download(ctx.default_stream.queue, t.memory.buffer, t.offset, t.nbytes)
        return raw.view(t.dtype).reshape(t.shape)
    if t.memory.type.device_visible:  # as a framework does: a device copy makes it contiguous, then one transfer
        copy = contiguous(t, ctx.default_stream)
        ctx.synchronize()
        return to_numpy(copy)
    memory = t.memory  # host memory the device cannot copy: the host reads the strided view itself
    raw = backend.download(ctx.default_stream.queue, memory.buffer, memory.offset, memory.size)
    return np.ndarray(t.shape, t.dtype, raw, t.offset - memory.offset, t.strides).copy()
