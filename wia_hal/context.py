"""SPEC 3.3: contexts, the Level-1 default context, and what a context owns (R-3.3-01: memory, pools, streams).

The calls that take an optional context (``create_stream``, ``alloc``, ``create_memory_pool``, ``memory_gc``) live
here, beside :func:`current_context`, which resolves it: the modules of streams, memory and pools sit below this
one and never import it.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from wia_hal.configs import PoolConfig
from wia_hal.devices import Device, device_at
from wia_hal.enums import ContextFlags, MemoryAccess, MemoryType, StreamFlags
from wia_hal.errors import (
    DeviceBusyError,
    DeviceLostError,
    ErrorCode,
    ErrorDetails,
    InvalidContextError,
    InvalidValueError,
    NotSupportedError,
    OutOfMemoryError,
    TimedOutError,
    WiaError,
    api,
    last_error,
)
from wia_hal.memory import Memory, access_of, allocate, memory_type_of, release_orphans
from wia_hal.models import ContextConfig, MemoryUsage, ProfilerConfig
from wia_hal.pool import MemoryPool, open_pool
from wia_hal.runtime import Runtime, runtime
from wia_hal.streams import Stream

if TYPE_CHECKING:
    from wia_hal.graphs import Graph
    from wia_hal.profiling import Profiler

TIMEOUT_INFINITE = math.inf
"""A timeout that never expires (``WIA_TIMEOUT_INFINITE``)."""

T = TypeVar("T")
_ids = itertools.count(1)

context_created: list[Callable[[Context], None]] = []
"""Told of every context as it is made (``create_context`` and the Level-1 default): automatic profiling
(``WIA_PROFILE``, :mod:`wia_hal.profiling.auto`) appends here. A callback must not raise."""


class Context:
    """Device state, the memory it allocated and its streams (R-3.3-01). Create with :func:`create_context`."""

    def __init__(self, rt: Runtime, device: Device, config: ContextConfig) -> None:
        self.runtime = rt
        self.id = next(_ids)
        self.backend = rt.backend
        self.device = device
        self.config = config
        self.max_streams = config.max_streams or device.capabilities.max_streams
        self.memories: dict[int, Memory] = {}
        self.pools: list[MemoryPool] = []
        self.default_pool: MemoryPool | None = None
        self.bytes_allocated = 0
        self.bytes_in_use = 0
        """Bytes of live allocations: direct ones, and pool blocks at their rounded size (not the pools' segments)."""
        self.peak_bytes_allocated = 0
        self.peak_bytes_in_use = 0
        self.memory_limit: int | None = None
        self.timeout_ms: float | None = None
        self._last_error: ErrorDetails | None = None
        self.destroyed = False
        self.profiler_config: ProfilerConfig | None = ProfilerConfig() if config.enable_profiling else None
        self.profiler: Profiler | None = None
        """The open profiling window, if any (it swaps ``backend`` for a timed view of it while open)."""
        self.queue_labels: dict[int, tuple[object, str]] = {}
        """Every queue the context made, with its stream's name (kept after the stream is destroyed, for reports)."""
        self.streams: list[Stream] = []
        self.streams_made = 0
        self.capture: Graph | None = None
        """The graph capturing the context's work, if any (it swaps ``backend`` for a recorder and ``default_pool``
        for the graph's own pool while it captures; :mod:`wia_hal.graphs`)."""
        self.capture_saved: Any = None
        """``(backend, default_pool)`` as they were before the capture."""
        self.default_stream = Stream(self, StreamFlags.DEFAULT, f"default stream of context {self.id}")

    def __repr__(self) -> str:
        state = " destroyed" if self.destroyed else ""
        return f"<wia.Context {self.id}{state} on device {self.device.index}>"

    @property
    def exclusive(self) -> bool:
        return bool(self.config.flags & ContextFlags.EXCLUSIVE)

    def _record_error(self, details: ErrorDetails) -> None:
        self.last_error = details

    @property
    def last_error(self) -> ErrorDetails | None:
        return self._last_error

    @last_error.setter
    def last_error(self, details: ErrorDetails | None) -> None:
        """Every error of a call on the context (or on its streams, memory, tensors, ...) is recorded here, so this
        is where a ``DEVICE_LOST`` from any backend hook makes the device lost for the front end (sticky until
        :func:`reset_device`)."""
        self._last_error = details
        if details is not None and details.code is ErrorCode.DEVICE_LOST:
            self.runtime.lost.setdefault(self.device.index, details.message)

    def check_handle(self) -> Context:
        """Live and of the active backend (whether or not its device was lost)."""
        if self.destroyed:
            raise InvalidContextError(f"{self!r} was destroyed; create a new context")
        if self.runtime is not runtime():
            raise InvalidContextError(f"{self!r} belongs to a backend that is no longer active")
        return self

    def check(self) -> Context:
        self.check_handle()
        if self.runtime.lost:
            self.runtime.check_alive(self.device.index)
        return self

    def reserve(self, nbytes: int) -> None:
        """Count an allocation against the context's memory limit (R-3.3-04)."""
        limit = self.memory_limit
        if limit is not None and self.bytes_allocated + nbytes > limit:
            raise OutOfMemoryError(
                f"allocation of {nbytes} bytes exceeds the context's memory limit: {self.bytes_allocated} of "
                f"{limit} bytes already allocated"
            )
        self.bytes_allocated += nbytes
        if self.bytes_allocated > self.peak_bytes_allocated:
            self.peak_bytes_allocated = self.bytes_allocated

    def unreserve(self, nbytes: int) -> None:
        self.bytes_allocated -= nbytes

    def in_use(self, nbytes: int) -> None:
        """Count ``nbytes`` more (or fewer) of live allocations."""
        self.bytes_in_use += nbytes
        if self.bytes_in_use > self.peak_bytes_in_use:
            self.peak_bytes_in_use = self.bytes_in_use

    def memory_changed(self) -> None:
        """An allocation or release is complete: the profiler samples the context's memory."""
        profiler = self.profiler
        if profiler is not None and profiler.config.enable_memory_tracking:
            profiler.on_memory()

    def wait_timeout(self, what: str, ok: bool, timeout_ms: float | None) -> None:
        if not ok:
            raise TimedOutError(
                f"{what}: the awaited work did not complete within the context's {timeout_ms} ms timeout"
            )

    def synchronize(self) -> None:
        for stream in (self.default_stream, *self.streams):
            stream.synchronize()

    def destroy(self) -> None:
        """Finish outstanding work, release memory and streams (R-3.3-07). On a lost device the work is dropped
        instead (it cannot finish), so a lost context can always be destroyed. A failure the work reports while it
        finishes (a kernel's fault) is raised once everything is released: the context is destroyed either way."""
        if self.destroyed:
            return
        lost = self.device.index in self.runtime.lost
        failure: WiaError | None = None
        backend = self.backend
        finishing: list[Callable[[], object]] = [self.profiler.end] if self.profiler is not None else []
        finishing += [
            functools.partial(backend.synchronize, s.queue, None) for s in (self.default_stream, *self.streams)
        ]
        for finish in finishing:
            try:
                finish()
            except WiaError as e:  # a device lost before the call drops its work: nothing to report
                if not (lost and isinstance(e, DeviceLostError)):
                    failure = failure or e
        for pool in list(self.pools):
            pool.destroy()
        for memory in list(self.memories.values()):
            memory.release()
        for stream in (*self.streams, self.default_stream):
            stream.destroyed = True
            backend.destroy_queue(stream.queue)
        self.streams.clear()
        self.destroyed = True
        rt = self.runtime
        rt.contexts.remove(self)
        if rt.default_context is self:
            rt.default_context = None
        if failure is not None:
            raise failure


def check_context(ctx: object) -> Context:
    if not isinstance(ctx, Context):
        raise InvalidContextError(f"expected a wia Context (from create_context), got {type(ctx).__name__}")
    return ctx.check()


def _open(rt: Runtime, config: ContextConfig) -> Context:
    """A context on ``config.device_id`` with its default pool (R-3.3-01) unless ``config.default_pool`` is False."""
    device = device_at(config.device_id)
    if rt.lost:
        rt.check_alive(device.index)
    if config.max_streams is not None and config.max_streams > device.capabilities.max_streams:
        raise InvalidValueError(
            f"ContextConfig.max_streams={config.max_streams} exceeds the device's limit of "
            f"{device.capabilities.max_streams} streams"
        )
    if config.memory_pool_size and not config.default_pool:
        raise InvalidValueError(
            f"ContextConfig: memory_pool_size={config.memory_pool_size} sizes the default pool, but default_pool "
            "is False; give one or the other"
        )
    if config.memory_pool_size > device.info.memory_size:
        raise OutOfMemoryError(
            f"ContextConfig.memory_pool_size={config.memory_pool_size} bytes exceeds the device's "
            f"{device.info.memory_size} bytes of memory"
        )
    if config.enable_profiling and not device.capabilities.supports_profiling:
        raise NotSupportedError(
            f"ContextConfig.enable_profiling: {device.info.name} on the {rt.backend.name!r} backend does not "
            "support profiling (supports_profiling is False)"
        )
    same_device = [c for c in rt.contexts if c.device is device]
    holder = next((c for c in same_device if c.exclusive), None)
    if holder is not None:
        raise DeviceBusyError(f"device {device.index} is held by an exclusive context ({holder!r})")
    if config.flags & ContextFlags.EXCLUSIVE and same_device:
        implicit = " (one is the Level-1 default context)" if rt.default_context in same_device else ""
        raise DeviceBusyError(
            f"cannot create an exclusive context on device {device.index}: "
            f"{len(same_device)} other context(s) are alive on it{implicit}"
        )
    ctx = Context(rt, device, config)
    rt.contexts.append(ctx)
    if config.default_pool:
        try:
            ctx.default_pool = open_pool(ctx, PoolConfig(initial_size=config.memory_pool_size))
        except BaseException:
            ctx.destroy()
            raise
    for callback in context_created:
        callback(ctx)
    return ctx


@api
def create_context(config: ContextConfig | None = None) -> Context:
    """R-3.3-02: a context on ``config.device_id``."""
    if config is None:
        config = ContextConfig()
    if not isinstance(config, ContextConfig):
        raise InvalidValueError(f"create_context: expected a ContextConfig, got {type(config).__name__}")
    return _open(runtime(), config)


@api
def destroy_context(ctx: Context) -> None:
    """R-3.3-07: finish the context's work and release everything it owns (on a lost device: drop the work)."""
    if not isinstance(ctx, Context):
        raise InvalidContextError(f"destroy_context: expected a wia Context, got {type(ctx).__name__}")
    ctx.check_handle().destroy()


def current_context(ctx: Context | None = None) -> Context:
    """``ctx`` if given; else the one ``compute_in_context`` made current; else that of the innermost
    ``use_stream`` block; else the Level-1 default (R-3.1-04)."""
    if ctx is not None:
        return check_context(ctx)
    rt = runtime()
    if rt.current:
        return rt.current[-1].check()
    if rt.stream_scopes:
        return rt.stream_scopes[-1].context.check()
    if rt.default_context is None:
        rt.default_context = _open(rt, ContextConfig())
    elif rt.lost:
        rt.check_alive(rt.default_context.device.index)
    return rt.default_context


@api
def get_default_context() -> Context:
    """The Level-1 default context on device 0 (created on first use)."""
    rt = runtime()
    if rt.default_context is None:
        rt.default_context = _open(rt, ContextConfig())
    return rt.default_context


@api
def context_set_memory_limit(ctx: Context, nbytes: int) -> None:
    """R-3.3-04: allocations that would take the context past ``nbytes`` raise ``OUT_OF_MEMORY``."""
    ctx = check_context(ctx)
    if not isinstance(nbytes, int) or isinstance(nbytes, bool) or nbytes <= 0:
        raise InvalidValueError(f"context_set_memory_limit: expected a positive number of bytes, got {nbytes!r}")
    ctx.memory_limit = nbytes


@api
def get_memory_usage(ctx: Context | None = None) -> MemoryUsage:
    """The device memory the context (the current one when None) holds now and its high-water mark: every
    backend, numerics or not, so a timing-only run of a model says whether it fits (an extension of the spec)."""
    context = current_context(ctx)
    return MemoryUsage(
        device=context.device.index,
        bytes_allocated=context.bytes_allocated,
        peak_bytes_allocated=context.peak_bytes_allocated,
        bytes_in_use=context.bytes_in_use,
        peak_bytes_in_use=context.peak_bytes_in_use,
        memory_size=context.device.info.memory_size,
        memory_limit=context.memory_limit,
    )


@api
def reset_peak_memory(ctx: Context | None = None) -> None:
    """Start the context's high-water marks again from what it holds now (to measure one step of a program)."""
    context = current_context(ctx)
    context.peak_bytes_allocated = context.bytes_allocated
    context.peak_bytes_in_use = context.bytes_in_use


@api
def context_set_timeout(ctx: Context, timeout_ms: float) -> None:
    """R-3.3-05: a wait longer than ``timeout_ms`` raises ``TIMEOUT`` (``TIMEOUT_INFINITE`` for none)."""
    ctx = check_context(ctx)
    if not isinstance(timeout_ms, (int, float)) or isinstance(timeout_ms, bool) or not timeout_ms > 0:
        raise InvalidValueError(
            f"context_set_timeout: expected a positive number of milliseconds or TIMEOUT_INFINITE, got {timeout_ms!r}"
        )
    ctx.timeout_ms = None if math.isinf(timeout_ms) else float(timeout_ms)


set_timeout = context_set_timeout


@api
def context_synchronize(ctx: Context | None = None) -> None:
    """R-3.8-01: block until every stream of the context is idle."""
    context = current_context(ctx)
    try:
        context.synchronize()
    except DeviceLostError as e:  # no argument names the context when ctx is None: record it here
        context.last_error = e.details
        raise


@api
def _enter(ctx: Context, fn: object) -> Context:
    ctx = check_context(ctx)
    if not callable(fn):
        raise InvalidValueError(f"compute_in_context: fn must be callable, got {type(fn).__name__}")
    return ctx


def compute_in_context(ctx: Context, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """R-3.3-06: run ``fn(*args, **kwargs)`` with ``ctx`` as the current context; returns what ``fn`` returns.

    Level-1 calls inside ``fn`` that name no context use ``ctx``. Exceptions ``fn`` raises are its own and pass
    through unchanged.
    """
    ctx = _enter(ctx, fn)
    stack = ctx.runtime.current
    stack.append(ctx)
    try:
        return fn(*args, **kwargs)
    finally:
        stack.pop()


@api
def get_error_details(ctx: Context | None = None) -> ErrorDetails:
    """R-3.9-03: the last error raised in calls on ``ctx`` (or in any call, without ``ctx``), with the user's
    file, line and function; ``SUCCESS`` when there was none."""
    if ctx is None:
        details = last_error()
    elif isinstance(ctx, Context):
        details = ctx.last_error  # a destroyed context's last error stays readable
    else:
        raise InvalidContextError(f"get_error_details: expected a wia Context or None, got {type(ctx).__name__}")
    if details is None:
        return ErrorDetails(code=ErrorCode.SUCCESS, file="", line=0, function="", message="no error")
    return details


# -- what a context creates and holds (R-3.3-01) ---------------------------------------------------------------------


@api
def create_stream(ctx: Context | None = None, flags: StreamFlags | int = StreamFlags.DEFAULT) -> Stream:
    """R-3.4-01; beyond the context's ``max_streams`` raises ``INVALID_VALUE`` (R-3.3-08)."""
    ctx = current_context(ctx)
    if not isinstance(flags, int) or isinstance(flags, bool) or flags & ~int(StreamFlags.NON_BLOCKING):
        raise InvalidValueError(f"create_stream: flags must be StreamFlags, got {flags!r}")
    if len(ctx.streams) >= ctx.max_streams:
        raise InvalidValueError(
            f"create_stream: the context already has its maximum of {ctx.max_streams} streams "
            "(ContextConfig.max_streams); destroy one first"
        )
    if not ctx.streams:  # until now the default stream ordered all work: fence what the pools hold free
        for pool in ctx.pools:
            pool.fence([ctx.default_stream])
    ctx.streams_made += 1
    stream = Stream(ctx, StreamFlags(flags), f"stream {ctx.streams_made} of context {ctx.id}")
    ctx.streams.append(stream)
    return stream


@api
def alloc(
    ctx: Context | None,
    size: int,
    memory_type: MemoryType = MemoryType.DEVICE,
    *,
    access: MemoryAccess = MemoryAccess.READ_WRITE,
) -> Memory:
    """R-3.5.1-01: ``size`` bytes of ``memory_type``; size 0 or negative is ``INVALID_VALUE``.

    ``access``: what a custom kernel may do with the memory (OpenCL's ``CL_MEM_READ_ONLY``/``CL_MEM_WRITE_ONLY``,
    see :class:`MemoryAccess`); the host and the op library may still read and write it. The contents are
    unspecified until written (the simulator's kernel checks report a kernel that reads them first)."""
    ctx = current_context(ctx)
    access = access_of(access, "alloc")
    if not isinstance(size, (int, np.integer)) or isinstance(size, bool):
        raise InvalidValueError(f"alloc: size must be an int number of bytes, got {type(size).__name__} {size!r}")
    if size <= 0:
        raise InvalidValueError(f"alloc: size must be positive, got {size} bytes")
    mem = allocate(ctx, int(size), memory_type_of(memory_type))
    mem.access = access
    return mem


@api
def create_memory_pool(ctx: Context | None = None, config: PoolConfig | None = None) -> MemoryPool:
    """R-3.5.2-01: an empty pool of ``ctx``'s device memory (configure it with ``configure_pool``)."""
    return open_pool(current_context(ctx), PoolConfig() if config is None else config)


@api
def memory_gc(ctx: Context | None = None) -> int:
    """R-3.9-04: release the cached (entirely free) segments of every pool of the context; the bytes released.

    The recovery from ``OUT_OF_MEMORY``: ``memory_gc(ctx)`` and a retry can succeed.
    """
    context = current_context(ctx)
    release_orphans()  # tensors dropped on other threads: their blocks first, so their segments can go too
    return sum(pool.release_free_segments() for pool in list(context.pools))


# -- recovery (R-3.9-04) -----------------------------------------------------------------------------------------------

LOST_AT_RESET = frozenset({MemoryType.DEVICE, MemoryType.UNIFIED, MemoryType.MANAGED})
"""What ``reset_device`` discards: DEVICE memory, and UNIFIED/MANAGED memory too, whose pages may be on the device
when it is lost (as ``cudaDeviceReset`` frees managed allocations). HOST and PINNED memory keep their data."""


def _discard_device_memory(ctx: Context) -> None:
    """Release what ``LOST_AT_RESET`` names: pools are emptied (their blocks lost), the rest released; a tensor or
    Memory object that held it is lost (using it is ``INVALID_MEMORY``, saying it was lost at reset)."""
    for pool in ctx.pools:
        for block in pool.discard_all():
            block.lost = True
    for memory in list(ctx.memories.values()):
        if memory.type in LOST_AT_RESET and not memory.segment:
            memory.lost = True
            memory.release()


@api
def reset_device(ctx: Context) -> None:
    """R-3.9-04: re-initialise ``ctx``'s device, the recovery from ``DEVICE_LOST`` (and from a hang).

    Work queued on every context of the device is dropped; their device memory (DEVICE, UNIFIED, MANAGED: see
    :data:`LOST_AT_RESET`) is gone, and pools are emptied; HOST and PINNED memory are intact. The contexts, their
    streams, events and kernels work again; the device is no longer lost. Resetting a healthy device is allowed
    (it discards the same things). See ``docs/faults.md``.
    """
    if not isinstance(ctx, Context):
        raise InvalidContextError(f"reset_device: expected a wia Context, got {type(ctx).__name__}")
    rt = ctx.check_handle().runtime
    device = ctx.device
    contexts = [c for c in rt.contexts if c.device is device]
    queues = [s.queue for c in contexts for s in (c.default_stream, *c.streams)]
    rt.backend.reset_device(device.index, queues)
    rt.lost.pop(device.index, None)
    for context in contexts:
        _discard_device_memory(context)
        context.memory_changed()
