"""The ``reference`` backend: WIA-AI-011 on the host with NumPy, no simulator, no timing model.

It plays the part array-api-strict plays for array-api-tests: a small, plain implementation of the documented
protocol (``wia_hal/backend.py``, ``wia_hal/opset.py``, ``docs/backend.md``) that keeps the conformance suite
honest (a test only the simulator passes is a bug in the test), and the worked example of the vendor's guide. It
imports nothing of the HAL but its public modules, and nothing of the simulator.

- Memory: every buffer is a NumPy ``uint8`` array in host memory, whatever its type; DEVICE memory is still not
  host-viewable (the front end refuses ``memory_ptr`` for it). DEVICE, UNIFIED and MANAGED allocations count
  against the device's ``memory`` budget; HOST memory is the host's.
- Queues are asynchronous, as a device's are: each runs its commands in order on its own worker thread, so an op
  or a device copy returns at once (R-3.4-04), queries do not block, waits honour the context's timeout, and two
  queues' work overlaps (NumPy releases the GIL in its large loops). Uploads, downloads and copies from or to
  pageable HOST memory block the caller until the data has moved. An exception in a queued command is raised at
  the host's next wait on that queue (synchronize, wait, query of a later marker, download), and the queue goes
  on. Markers note the host time (``time.perf_counter``) at which the queue reached them, so
  ``event_elapsed_time`` is the real time between two points of a queue.
- Profiling (SPEC 3.10) is claimed: while the front end has it on for a device, each queue's worker notes the
  ``time.perf_counter`` time (the protocol's default ``clock_ms``, the one the front end times host calls with)
  around every command and keeps an :class:`~wia_hal.backend.Activity` for it: ops as ``kernel`` activities named
  by the op on the ``compute`` engine (with the bytes they read and write), copies, uploads and downloads as
  ``copy`` activities of their path (``h2d``, ``d2h``, ``d2d``, ``host``), markers and waits as the protocol
  documents. The front end makes the reports and timelines from them, as for any backend.
- Ops follow ``docs/numerics.md``: float16/bfloat16 compute in float32 and round once to the output dtype, float64
  in float64; integers wrap; matmul and conv2d round their operands to the arithmetic asked (TF32, FP16, BF16,
  FP8 e4m3) and accumulate in float32 (int32 for int8, float64 for float64).
- Fault injection (the extension of ``docs/faults.md``), its simple part: ``DEVICE_LOST`` and ``OUT_OF_MEMORY``
  triggered after N ops (allocations) or with a seeded per-op probability, counted in submission order. The op that
  hits a ``DEVICE_LOST`` fails on its worker (seen at the next wait), and every later submission, allocation and
  wait on the device raises ``DEVICE_LOST`` until ``reset_device``; work queued before it still runs (a queue
  cannot drop it). Other kinds and time triggers are ``NOT_SUPPORTED``.
- Not offered, and claimed as such: PINNED memory (it would be host memory with no faster or asynchronous
  transfer path than pageable HOST memory, which R-3.5.1-03 asks of it), custom kernels (no OpenCL C compiler
  here), ``explain`` and ``explain_collective`` (there is no cost model to explain with).
- Several devices (``devices`` > 1): every pair has a peer path (all memory is host memory), so peer-to-peer is
  claimed; peer copies and collectives (``docs/collectives.md``) run on the first participant's queue once every
  participant's queue has reached them (markers both ways), computed by :mod:`wia_hal.reductions`.

Options (keyword arguments of ``set_backend("reference", ...)`` or ``WIA_REFERENCE_*`` variables): ``devices``
(identical devices, default 1), ``memory`` (bytes of device memory per device, an integer with an optional
``KiB``/``MiB``/``GiB`` suffix, default 4 GiB).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import platform
import random
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import ml_dtypes
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from wia_hal import reductions
from wia_hal.backend import Activity, ActivityKind, Backend, FaultRecord, TensorRef
from wia_hal.enums import DeviceType, FaultKind, MemoryType
from wia_hal.errors import DeviceLostError, InvalidValueError, NotSupportedError, OutOfMemoryError
from wia_hal.models import CollectiveAttrs, DeviceCapabilities, DeviceInfo, FaultStats, PeerInfo
from wia_hal.opset import (
    Arithmetic,
    AttentionAttrs,
    AxisAttrs,
    BatchNormAttrs,
    BinaryAttrs,
    ConvAttrs,
    FillAttrs,
    GatherAttrs,
    GeluAttrs,
    LayerNormAttrs,
    MatmulAttrs,
    OpAttrs,
    OpName,
    Pool2dAttrs,
    ReduceAttrs,
    RmsNormAttrs,
    WhereAttrs,
)

GiB = 1 << 30
DEFAULT_MEMORY = 4 * GiB
_UNITS = {"": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}
_BUDGETED = frozenset({MemoryType.DEVICE, MemoryType.UNIFIED, MemoryType.MANAGED})

F16 = np.dtype(np.float16)
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
BF16 = np.dtype(ml_dtypes.bfloat16)
FP8 = np.dtype(ml_dtypes.float8_e4m3fn)


# -- options --------------------------------------------------------------------------------------------------------


def _positive(name: str, value: object) -> int:
    """A positive integer option: an int, or a string of digits with an optional KiB/MiB/GiB suffix."""
    number = -1
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str):
        found = re.fullmatch(r"\s*(\d+)\s*([KkMmGg]i[Bb])?\s*", value)
        if found:
            number = int(found[1]) * _UNITS[(found[2] or "").lower()]
    if number < 1:
        raise InvalidValueError(f"reference backend option {name}={value!r}: expected a positive integer")
    return number


# -- what the host can do, measured once ----------------------------------------------------------------------------


def _best_seconds(fn: Callable[[], object], budget_s: float = 0.03) -> float:
    """The fastest of repeated runs of ``fn`` within about ``budget_s`` (at least three)."""
    best, spent, runs = math.inf, 0.0, 0
    while runs < 3 or spent < budget_s:
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        best, spent, runs = min(best, dt), spent + dt, runs + 1
    return max(best, 1e-9)


@functools.cache
def _measured() -> tuple[float, float, float]:
    """Bytes/s of a NumPy copy (bytes read plus written), FLOP/s of a float32 and a float64 NumPy matmul on this
    host. The backend has no timing model, but ``DeviceInfo`` asks for numbers: these are what it really does
    (about 0.1 s, once per process)."""
    src = np.ones(16 << 20, np.uint8)
    dst = np.empty_like(src)
    bandwidth = 2 * src.nbytes / _best_seconds(lambda: np.copyto(dst, src))
    return bandwidth, _matmul_rate(F32), _matmul_rate(F64)


def _matmul_rate(dtype: np.dtype, n: int = 384) -> float:
    a = np.ones((n, n), dtype)
    return 2 * n**3 / _best_seconds(lambda: a @ a)


# -- the handles ----------------------------------------------------------------------------------------------------


@dataclass(eq=False)
class Buffer:
    """One allocation: ``data`` holds its bytes (host memory, whatever ``memory_type`` says)."""

    device: int
    memory_type: MemoryType
    data: np.ndarray
    freed: bool = False


@dataclass(frozen=True, eq=False)
class _Failure:
    """A command that raised in a queue's worker: its place in the queue, what it was, and the exception."""

    index: int
    what: str
    error: BaseException


@dataclass(frozen=True, slots=True, eq=False)
class Work:
    """What a queued command is, for error notes and for the profiler: the kind, name and engine of its
    :class:`~wia_hal.backend.Activity`, its handle (an op's :class:`Launch`, a :class:`Marker`) and the bytes it
    moves."""

    kind: ActivityKind
    name: str
    engine: str = ""
    handle: object = None
    nbytes: float = 0.0


class ActivityLog:
    """The activities of one device's completed commands while it is profiled, in completion order: the workers
    of its queues add to it, the host takes what is there (:meth:`ReferenceBackend.activities`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done: list[Activity[Queue]] = []

    def add(self, activity: Activity[Queue]) -> None:
        with self._lock:
            self._done.append(activity)

    def take(self) -> list[Activity[Queue]]:
        with self._lock:
            done, self._done = self._done, []
        return done


def _now_ms() -> float:
    """The clock of activities: ``time.perf_counter`` in milliseconds, as :meth:`Backend.clock_ms` by default."""
    return time.perf_counter() * 1e3


class Queue:
    """An in-order queue: commands (plain callables) run one after the other on the queue's own worker thread.

    Every command gets an index (1, 2, 3, ...) when enqueued; ``completed`` counts the commands that have run, so
    the point after command ``i`` is reached when ``completed >= i``. A command that raises does not stop the
    queue: the exception is kept, with its index, until the host waits for a point at or after it
    (:meth:`raise_failures`). The worker starts with the first command and ends at :meth:`stop`, after the work
    enqueued before it. While ``log`` is set (the device is profiled) each command's activity goes there, timed
    on the worker around the command.
    """

    def __init__(self, device: int, faults: Faults) -> None:
        self.device = device
        self.faults = faults
        """The device's injected faults: consulted at every submission."""
        self.label = "a reference queue"
        """The stream's name (:meth:`ReferenceBackend.name_queue`), for error notes."""
        self.log: ActivityLog | None = None
        self.submitted = 0
        self.completed = 0
        self._lock = threading.Lock()
        self._has_work = threading.Condition(self._lock)  # the worker waits here for commands
        self._progress = threading.Condition(self._lock)  # the host (and other queues' workers) wait here
        self._pending: deque[tuple[int, Work, Callable[[], object], float] | None] = deque()  # None: stop
        self._failures: list[_Failure] = []
        self._worker: threading.Thread | None = None

    def submit(self, work: Work, command: Callable[[], object]) -> int:
        """Enqueue ``command`` (``work`` says what it is, for error reports and the profiler) and return its index;
        returns at once."""
        submitted_ms = _now_ms()
        if self.faults.armed:
            command = self.faults.submitting(work, command)
        with self._lock:
            self.submitted += 1
            index = self.submitted
            self._pending.append((index, work, command, submitted_ms))
            if self._worker is None:
                self._start()
            self._has_work.notify()
        return index

    def _start(self) -> None:
        self._worker = threading.Thread(target=self._run, name=f"wia-reference-queue-{id(self):x}", daemon=True)
        self._worker.start()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._pending:
                    self._has_work.wait()
                item = self._pending.popleft()
            if item is None:
                return
            index, work, command, submitted_ms = item
            failure = None
            started_ms = _now_ms()
            try:
                command()
            except BaseException as error:  # kept for the host, which sees it at its next wait on this queue
                failure = _Failure(index, work.name, error)
            ended_ms = _now_ms()
            del item, command  # the command's references (arrays of freed buffers) go now, not at the next one
            log = self.log
            if log is not None:  # before the command counts as completed: a host that waited for it finds it here
                log.add(self._activity(work, submitted_ms, started_ms, ended_ms))
            with self._lock:
                if failure is not None:
                    self._failures.append(failure)
                self.completed = index
                self._progress.notify_all()

    def _activity(self, work: Work, submitted_ms: float, started_ms: float, ended_ms: float) -> Activity[Queue]:
        if isinstance(work.handle, Marker) and work.kind == "marker":  # an instant: when the queue reached it
            started_ms = ended_ms = work.handle.time_s * 1e3
        return Activity(
            self, work.kind, work.name, work.engine, submitted_ms, started_ms, ended_ms, work.handle, work.nbytes
        )

    def reached(self, index: int) -> bool:
        """Whether command ``index`` (and so everything before it) has run; never blocks."""
        return self.completed >= index

    def wait_until(self, index: int, timeout_ms: float | None) -> bool:
        """Block until command ``index`` has run; False if ``timeout_ms`` passed first (None: no limit)."""
        timeout_s = None if timeout_ms is None else max(timeout_ms, 0.0) / 1e3
        with self._lock:
            return self._progress.wait_for(lambda: self.completed >= index, timeout_s)

    def raise_failures(self, index: int) -> None:
        """Raise the first exception of the commands up to ``index`` not reported yet (the others are noted on
        it, and reported with it): what a device reports at the next synchronization after an asynchronous
        error."""
        with self._lock:
            due = [f for f in self._failures if f.index <= index]
            if not due:
                return
            self._failures = [f for f in self._failures if f.index > index]
        first = due[0]
        error = first.error
        if isinstance(error, _Lost):  # made on the host, where the user's call is, not on the worker
            raise DeviceLostError(str(error))
        if not isinstance(error, Exception):  # SystemExit and the like are the worker's, not the host's, to obey
            error = RuntimeError(f"{first.what} raised {first.error!r}")
            error.__cause__ = first.error
        error.add_note(f"raised by {first.what} (command {first.index} of {self.label}), run asynchronously")
        for later in due[1:]:
            error.add_note(f"later, {later.what} (command {later.index}) raised {later.error!r} too")
        raise error

    def stop(self) -> None:
        """End the worker once the work enqueued so far has run (a later command starts a new one)."""
        with self._lock:
            worker = self._worker
            if worker is None:
                return
            self._pending.append(None)
            self._has_work.notify()
        worker.join()
        with self._lock:
            self._worker = None
            if self._pending:  # enqueued while it was stopping
                self._start()


class _Lost(Exception):
    """What the op an injected ``DEVICE_LOST`` hit raises on its worker (``DEVICE_LOST`` at the host's next wait)."""


class Faults:
    """The injected faults of one device (the simple part of ``docs/faults.md``: ``DEVICE_LOST`` and
    ``OUT_OF_MEMORY`` after N ops or allocations, or with a seeded probability per op or allocation)."""

    def __init__(self, device: int) -> None:
        self.device = device
        self.pending: list[tuple[FaultRecord[Buffer], random.Random]] = []
        self.lost: str | None = None
        self.fired = self.ops = self.allocations = self.oom_left = 0

    @property
    def armed(self) -> bool:
        return bool(self.pending) or self.lost is not None or self.oom_left > 0

    def check(self) -> None:
        if self.lost is not None:
            raise DeviceLostError(f"reference device {self.device} is lost ({self.lost})")

    def _due(self, kind: FaultKind) -> FaultRecord[Buffer] | None:
        for i, (fault, rng) in enumerate(self.pending):
            if fault.kind is not kind:
                continue
            if fault.probability is not None:
                due = rng.random() < fault.probability
            else:
                due = not fault.after_ops
                if not due:
                    self.pending[i] = (dataclasses.replace(fault, after_ops=(fault.after_ops or 0) - 1), rng)
            if due:
                del self.pending[i]
                self.fired += 1
                return fault
        return None

    def submitting(self, work: Work, command: Callable[[], object]) -> Callable[[], object]:
        """``command``, or a command that fails because an injected ``DEVICE_LOST`` hit it."""
        self.check()
        if work.kind not in ("kernel", "copy"):
            return command
        self.ops += 1
        fault = self._due(FaultKind.DEVICE_LOST)
        if fault is None:
            return command
        self.lost = f"injected DEVICE_LOST at op {self.ops} ({work.name})"
        return functools.partial(_raise_lost, self.lost)

    def allocating(self, nbytes: int) -> None:
        self.check()
        self.allocations += 1
        fault = self._due(FaultKind.OUT_OF_MEMORY)
        if fault is not None:
            self.oom_left += fault.count
        if self.oom_left:
            self.oom_left -= 1
            raise OutOfMemoryError(
                f"injected OUT_OF_MEMORY: allocation of {nbytes} bytes on reference device {self.device} failed"
            )


def _raise_lost(reason: str) -> None:
    raise _Lost(reason)


@dataclass(eq=False)
class Marker:
    """A point of a queue: its command number ``index``, which notes when the queue reached it in ``time_s`` (host
    seconds, ``time.perf_counter``; NaN until then)."""

    queue: Queue
    index: int = 0
    time_s: float = math.nan


@dataclass(frozen=True, slots=True, eq=False)
class Launch:
    """What ``launch_op`` returns: the record of one op's launch, which its kernel activity carries as its handle
    (so that the front end can match the activity with the operands it launched). Nothing to explain with."""

    op: OpName


def _route(src: MemoryType, dst: MemoryType) -> str:
    """The path of a copy as a profile names it: ``h2d``, ``d2h``, ``d2d`` or ``host`` (every memory type but
    DEVICE is host memory the host reads and writes directly)."""
    if src is MemoryType.DEVICE:
        return "d2d" if dst is MemoryType.DEVICE else "d2h"
    return "h2d" if dst is MemoryType.DEVICE else "host"


# -- reading and writing tensors ------------------------------------------------------------------------------------


def _array(ref: TensorRef[Buffer]) -> np.ndarray:
    """The live NumPy view of a tensor's region (byte offset and byte strides, as NumPy's)."""
    if ref.size == 0:
        return np.empty(ref.shape, ref.dtype)
    return np.ndarray(ref.shape, ref.dtype, buffer=ref.buffer.data, offset=ref.offset, strides=ref.strides)


def _computing(dtype: np.dtype) -> np.dtype:
    """The type an op computes in: float64 for float64 data, float32 for every other float (docs/numerics.md)."""
    return F64 if dtype == F64 else F32


# -- the ops --------------------------------------------------------------------------------------------------------
# Each takes the input arrays, the output's dtype and the attributes, and returns the result as an array that
# broadcasts to the output; launch_op rounds it once into the output (np.copyto, casting="unsafe").


def _fill(xs: Sequence[np.ndarray], out: np.dtype, attrs: FillAttrs) -> np.ndarray:
    return np.asarray(attrs.value)


def _copy(xs: Sequence[np.ndarray], out: np.dtype, attrs: OpAttrs) -> np.ndarray:
    return xs[0]


def _operands(xs: Sequence[np.ndarray], attrs: BinaryAttrs) -> tuple[np.ndarray, np.ndarray]:
    """A binary op's two operands, float16/bfloat16 widened to float32; a scalar operand (already in the op's
    dtype) as a NumPy scalar of the array's computing dtype, so NumPy keeps that dtype (int8 stays int8, wrapping)."""
    x = xs[0].astype(F32) if xs[0].dtype in (F16, BF16) else xs[0]
    if attrs.scalar is None:
        y = xs[1].astype(F32) if xs[1].dtype in (F16, BF16) else xs[1]
        return x, y
    s = x.dtype.type(attrs.scalar)
    return (s, x) if attrs.scalar_first else (x, s)  # type: ignore[return-value]  (a NumPy scalar broadcasts)


def _binary(fn: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """A binary element-wise op: float16 and bfloat16 compute in float32; integers wrap; NumPy's bool ``add``,
    ``maximum`` are or, ``mul``, ``minimum`` and; comparisons give bool."""

    def op(xs: Sequence[np.ndarray], out: np.dtype, attrs: BinaryAttrs) -> np.ndarray:
        return np.asarray(fn(*_operands(xs, attrs)))

    return op


def _relu(xs: Sequence[np.ndarray], out: np.dtype, attrs: OpAttrs) -> np.ndarray:
    x = xs[0]
    if x.dtype.kind == "b":
        return x
    if x.dtype == BF16:
        x = x.astype(F32)  # exact both ways
    return np.asarray(np.maximum(x, 0))  # NaN stays NaN


_SQRT1_2 = 1 / math.sqrt(2)
_SQRT2_PI = math.sqrt(2 / math.pi)
_erfc = np.frompyfunc(math.erfc, 1, 1)


def _gelu(xs: Sequence[np.ndarray], out: np.dtype, attrs: GeluAttrs) -> np.ndarray:
    if attrs.approximate == "none":
        # x·Φ(x) = x/2·erfc(-x/√2); NumPy has no erfc, so math.erfc, in float64 (rounded once to the output)
        x64 = xs[0].astype(F64)
        return 0.5 * x64 * np.asarray(_erfc(-x64 * _SQRT1_2), F64)
    c = _computing(xs[0].dtype)
    x = xs[0].astype(c)
    u = c.type(_SQRT2_PI) * (x + c.type(0.044715) * x**3)
    return np.asarray(x / (1 + np.exp(-2 * u)))  # = x/2·(1 + tanh(u)), without its cancellation for x < 0


def _sigmoid(xs: Sequence[np.ndarray], out: np.dtype, attrs: OpAttrs) -> np.ndarray:
    x = xs[0].astype(_computing(xs[0].dtype))
    e = np.exp(-np.abs(x))  # never overflows
    return np.asarray(np.where(x >= 0, 1 / (1 + e), e / (1 + e)))


def _where(xs: Sequence[np.ndarray], out: np.dtype, attrs: WhereAttrs) -> np.ndarray:
    condition, rest = xs[0], list(xs[1:])
    x = rest.pop(0) if attrs.x_scalar is None else out.type(attrs.x_scalar)
    y = rest.pop(0) if attrs.y_scalar is None else out.type(attrs.y_scalar)
    return np.asarray(np.where(condition, x, y))


def _function(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[..., np.ndarray]:
    """A unary element-wise op in the computing dtype (float32 for float16/bfloat16), rounded once by the store."""

    def op(xs: Sequence[np.ndarray], out: np.dtype, attrs: OpAttrs) -> np.ndarray:
        x = xs[0]
        return np.asarray(fn(x.astype(_computing(x.dtype)) if x.dtype in (F16, BF16) else x))

    return op


def _silu(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))  # never overflows
    return np.where(x >= 0, x / (1 + e), x * e / (1 + e))


def _cast(xs: Sequence[np.ndarray], out: np.dtype, attrs: OpAttrs) -> np.ndarray:
    return xs[0]  # the store converts: NumPy's unsafe cast truncates floats toward zero, rounds floats to nearest


def _wrap_int32(exact: np.ndarray) -> np.ndarray:
    """Integers (exact, as int64 or integral float64) as int32 arithmetic gives them: modulo 2^32, wrapping."""
    wide = exact.astype(np.int64)
    return ((wide + 2**31) % 2**32 - 2**31).astype(np.int32)


def _sum(xs: Sequence[np.ndarray], out: np.dtype, attrs: ReduceAttrs) -> np.ndarray:
    x = xs[0]
    if x.dtype.kind in "biu":  # int8, int32, bool: an int32 result, wrapping
        return _wrap_int32(np.asarray(np.sum(x, axis=attrs.axis, keepdims=attrs.keepdims, dtype=np.int64)))
    c = _computing(x.dtype)
    return np.asarray(np.sum(x.astype(c), axis=attrs.axis, keepdims=attrs.keepdims, dtype=c))


def _max(xs: Sequence[np.ndarray], out: np.dtype, attrs: ReduceAttrs) -> np.ndarray:
    x = xs[0].astype(F32) if xs[0].dtype == BF16 else xs[0]
    return np.asarray(np.max(x, axis=attrs.axis, keepdims=attrs.keepdims))  # NaN propagates


def _softmax(xs: Sequence[np.ndarray], out: np.dtype, attrs: AxisAttrs) -> np.ndarray:
    x = xs[0].astype(_computing(xs[0].dtype))
    if x.size == 0:
        return x
    e = np.exp(x - np.max(x, axis=attrs.axis, keepdims=True))
    return np.asarray(e / np.sum(e, axis=attrs.axis, keepdims=True))


def _concat(xs: Sequence[np.ndarray], out: np.dtype, attrs: AxisAttrs) -> np.ndarray:
    return np.concatenate(xs, axis=attrs.axis)


def _round_tf32(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to TF32's 10 explicit mantissa bits: to nearest, ties to even (inf and NaN kept)."""
    x = np.ascontiguousarray(x, F32)
    bits = x.view(np.uint32)
    rounded = (bits + np.uint32(0x0FFF) + ((bits >> 13) & np.uint32(1))) & np.uint32(0xFFFFE000)
    return np.where(np.isfinite(x), rounded.view(F32), x)


_NARROW: dict[Arithmetic, np.dtype] = {"float16": F16, "bfloat16": BF16, "float8": FP8}


def _operand(x: np.ndarray, arithmetic: Arithmetic) -> np.ndarray:
    """A matmul or convolution operand as the arithmetic's units read it, in the type it accumulates in: float64
    for float64 and int8 (every int8 product sum is exact there), float32 otherwise; float16, bfloat16 and float8
    round the value once to that format (from float32, which holds every input exactly)."""
    if arithmetic in ("float64", "int8"):
        return x.astype(F64)
    x32 = x.astype(F32)
    if arithmetic == "tf32":
        return _round_tf32(x32)
    if arithmetic in _NARROW:
        return x32.astype(_NARROW[arithmetic]).astype(F32)
    return x32


def _matmul(xs: Sequence[np.ndarray], out: np.dtype, attrs: MatmulAttrs) -> np.ndarray:
    a, b = (_operand(x, attrs.arithmetic) for x in xs)
    result = np.matmul(a, b)  # NumPy's rules: 1-D operands, broadcast batch dimensions
    return _wrap_int32(result) if attrs.arithmetic == "int8" else result


def _conv2d(xs: Sequence[np.ndarray], out: np.dtype, attrs: ConvAttrs) -> np.ndarray:
    """Direct convolution (a cross-correlation) of NCHW ``x`` with OIHW ``w``: every output is the sum over its
    group's input channels and the kernel taps, accumulated in the arithmetic's accumulator, plus the bias."""
    x, w = (_operand(t, attrs.arithmetic) for t in xs[:2])
    n = x.shape[0]
    o, cg, kh, kw = w.shape
    g = attrs.groups
    (ph, pw), (sh, sw), (dh, dw) = attrs.padding, attrs.stride, attrs.dilation
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    extent = (dh * (kh - 1) + 1, dw * (kw - 1) + 1)
    # taps[n, c, i, j, p, q] = padded[n, c, i*sh + p*dh, j*sw + q*dw]
    taps = sliding_window_view(padded, extent, axis=(2, 3))[:, :, ::sh, ::sw, ::dh, ::dw]
    oh, ow = taps.shape[2:4]
    taps = taps.reshape(n, g, cg, oh, ow, kh, kw)
    weights = w.reshape(g, o // g, cg, kh, kw)
    y = np.einsum("ngchwpq,gocpq->ngohw", taps, weights, optimize=True).reshape(n, o, oh, ow)
    if len(xs) == 3:  # the bias joins the accumulator unrounded
        y = y + xs[2].astype(y.dtype).reshape(1, o, 1, 1)
    return _wrap_int32(y) if attrs.arithmetic == "int8" else y


def _batch_norm(xs: Sequence[np.ndarray], out: np.dtype, attrs: BatchNormAttrs) -> np.ndarray:
    c = _computing(xs[0].dtype)
    x, scale, bias, mean, variance = (t.astype(c) for t in xs)
    channels = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    factor = scale / np.sqrt(variance + c.type(attrs.eps))
    return np.asarray((x - mean.reshape(channels)) * factor.reshape(channels) + bias.reshape(channels))


def _pool2d(xs: Sequence[np.ndarray], out: np.dtype, attrs: Pool2dAttrs) -> np.ndarray:
    """MAX: padded positions never win (they hold the type's lowest value); AVG: the window's sum in the computing
    type divided by the whole window, padded zeros included."""
    x = xs[0]
    (kh, kw), (sh, sw), (ph, pw) = attrs.kernel_size, attrs.stride, attrs.padding
    pads = ((0, 0), (0, 0), (ph, ph), (pw, pw))
    if attrs.type == "MAX":
        x = x.astype(F32) if x.dtype == BF16 else x
        lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        windows = sliding_window_view(np.pad(x, pads, constant_values=lowest), (kh, kw), axis=(2, 3))
        return np.asarray(np.max(windows[:, :, ::sh, ::sw], axis=(-2, -1)))
    c = _computing(x.dtype)
    windows = sliding_window_view(np.pad(x.astype(c), pads), (kh, kw), axis=(2, 3))
    return np.asarray(np.sum(windows[:, :, ::sh, ::sw], axis=(-2, -1), dtype=c) / c.type(kh * kw))


# -- normalization and gather (docs/ops.md "Beyond the spec") ---------------------------------------------------------


def _layer_norm(xs: Sequence[np.ndarray], out: np.dtype, attrs: LayerNormAttrs) -> np.ndarray:
    """Mean, then the biased variance of the centred values (two passes), in the computing type."""
    c = _computing(xs[0].dtype)
    x = xs[0].astype(c)
    centred = x - np.mean(x, axis=-1, keepdims=True, dtype=c)
    y = centred / np.sqrt(np.mean(centred * centred, axis=-1, keepdims=True, dtype=c) + c.type(attrs.eps))
    params = iter(xs[1:])
    if attrs.weight:
        y = y * next(params).astype(c)
    if attrs.bias:
        y = y + next(params).astype(c)
    return np.asarray(y)


def _rms_norm(xs: Sequence[np.ndarray], out: np.dtype, attrs: RmsNormAttrs) -> np.ndarray:
    c = _computing(xs[0].dtype)
    x = xs[0].astype(c)
    y = x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True, dtype=c) + c.type(attrs.eps))
    return np.asarray(y * xs[1].astype(c) if attrs.weight else y)


def _gather(xs: Sequence[np.ndarray], out: np.dtype, attrs: GatherAttrs) -> np.ndarray:
    """``take`` with negative indices from the end and zeros for an index outside ``[-n, n)``."""
    a, indices = xs
    axis, n = attrs.axis, a.shape[attrs.axis]
    shape = (*a.shape[:axis], *indices.shape, *a.shape[axis + 1 :])
    i = indices.astype(np.int64)
    i = np.where(i < 0, i + n, i)
    valid = (i >= 0) & (i < n)
    if n == 0:
        return np.zeros(shape, a.dtype)
    taken = np.take(a, np.where(valid, i, 0), axis=axis)
    mask = valid.reshape((1,) * axis + indices.shape + (1,) * (a.ndim - axis - 1))
    return np.where(mask, taken, np.zeros((), a.dtype))


# -- attention (docs/ops.md, "Beyond the spec") ----------------------------------------------------------------------

ATTENTION_CHUNK = 1 << 22
"""Scores computed at once: queries go in chunks of at most this many (head, query, key) triples (16 MiB of float32
scores), so a 32k x 32k score matrix is never held whole."""


def _attention(xs: Sequence[np.ndarray], out: np.dtype, attrs: AttentionAttrs) -> np.ndarray:
    """The unfused math per key/value head and chunk of queries: scores ``scale · q kᵀ`` in the computing type from
    operands rounded to the arithmetic, plus the additive mask or minus infinity where the bool mask or causality
    hides a key; ``p = exp(s - max)``, rounded to the arithmetic as the second product's operand; ``(p v) / sum(p)``;
    zeros where a query sees no key. Query head ``h`` reads key/value head ``h // (Hq / Hkv)``."""
    q, k, v = xs[:3]
    c = _computing(q.dtype)
    *batch, hq, lq, _ = q.shape
    hkv, lk, dv = k.shape[-3], k.shape[-2], v.shape[-1]
    group = hq // hkv
    result = np.zeros((*batch, hq, lq, dv), c)
    if result.size == 0 or lk == 0:
        return result
    mask = np.broadcast_to(xs[3], (*batch, hq, lq, lk)) if len(xs) == 4 else None
    step = max(1, ATTENTION_CHUNK // (group * lk))
    for b in np.ndindex(*batch):
        for g in range(hkv):
            heads = slice(g * group, (g + 1) * group)
            kt, vg = _operand(k[b][g], attrs.arithmetic).T, _operand(v[b][g], attrs.arithmetic)
            for r0 in range(0, lq, step):
                rows = slice(r0, min(lq, r0 + step))
                s = (_operand(q[b][heads, rows], attrs.arithmetic) @ kt) * c.type(attrs.scale)
                if mask is not None and attrs.mask == "additive":
                    s = s + mask[b][heads, rows].astype(c)
                if mask is not None and attrs.mask == "bool":
                    s = np.where(mask[b][heads, rows], s, -np.inf)
                if attrs.causal:
                    visible = np.arange(rows.start, rows.stop)[:, None] + (lk - lq) >= np.arange(lk)[None, :]
                    s = np.where(visible, s, -np.inf)
                top = s.max(axis=-1, keepdims=True)
                none = top == -np.inf
                p = np.exp(s - np.where(none, 0, top))
                o = (_operand(p, attrs.arithmetic) @ vg) / p.sum(axis=-1, keepdims=True)
                result[b][heads, rows] = np.where(none, 0, o)
    return result


OPS: dict[OpName, Callable[..., np.ndarray]] = {
    "fill": _fill,
    "copy": _copy,
    "add": _binary(np.add),
    "mul": _binary(np.multiply),
    "relu": _relu,
    "gelu": _gelu,
    "sigmoid": _sigmoid,
    # beyond the spec: element-wise math, comparisons, where, cast (docs/ops.md)
    "sub": _binary(np.subtract),
    "div": _binary(np.divide),
    "maximum": _binary(np.maximum),
    "minimum": _binary(np.minimum),
    "equal": _binary(np.equal),
    "not_equal": _binary(np.not_equal),
    "less": _binary(np.less),
    "less_equal": _binary(np.less_equal),
    "greater": _binary(np.greater),
    "greater_equal": _binary(np.greater_equal),
    "where": _where,
    "neg": _function(np.negative),
    "abs": _function(np.abs),
    "exp": _function(np.exp),
    "log": _function(np.log),
    "sqrt": _function(np.sqrt),
    "rsqrt": _function(lambda x: 1 / np.sqrt(x)),
    "tanh": _function(np.tanh),
    "silu": _function(_silu),
    "cast": _cast,
    "sum": _sum,
    "max": _max,
    "softmax": _softmax,
    "concat": _concat,
    "matmul": _matmul,
    "conv2d": _conv2d,
    "batch_norm": _batch_norm,
    "pool2d": _pool2d,
    "layer_norm": _layer_norm,
    "rms_norm": _rms_norm,
    "gather": _gather,
    "attention": _attention,
}
"""Every op of :data:`wia_hal.opset.OP_NAMES`: ``op(inputs, output dtype, attrs) -> result``."""


def _run_op(op: Callable[..., np.ndarray], inputs: list[np.ndarray], output: np.ndarray, attrs: OpAttrs) -> None:
    """A queued op: compute and round the result once into the output."""
    with np.errstate(all="ignore"):  # inf and NaN are results here, as on any device (errstate is per thread)
        np.copyto(output, op(inputs, output.dtype, attrs), casting="unsafe")


def _stamp(marker: Marker) -> None:
    """A queued marker: note when the queue reached it."""
    marker.time_s = time.perf_counter()


def _nothing() -> None:
    """A queued op with an empty output: nothing to compute, but the launch is still a command of the queue."""


# -- the backend ----------------------------------------------------------------------------------------------------


class ReferenceBackend(Backend[Buffer, Queue, Marker, None, Launch]):
    name: ClassVar[str] = "reference"
    ops: ClassVar[frozenset[OpName]] = frozenset(OPS)

    def __init__(self, devices: int | str = 1, memory: int | str = DEFAULT_MEMORY) -> None:
        self.devices = _positive("devices", devices)
        self.memory = _positive("memory", memory)
        self.in_use = [0] * self.devices
        """Bytes of budgeted memory (DEVICE, UNIFIED, MANAGED) allocated per device."""
        self._lock = threading.Lock()
        self._queues: set[Queue] = set()
        self._logs: dict[int, ActivityLog] = {}
        """The activity log of each profiled device (:meth:`set_profiling`)."""
        self._faults = [Faults(device) for device in range(self.devices)]

    # discovery

    def device_count(self) -> int:
        return self.devices

    def device_info(self, device: int) -> DeviceInfo:
        bandwidth, fp32, fp64 = _measured()
        # The arithmetics the ops implement, each at the measured rate of the NumPy matmul it runs on: float64
        # for float64 and int8 (exact integer sums), float32 for the others (operands rounded first).
        peaks = {"float32": fp32, "tf32": fp32, "float16": fp32, "bfloat16": fp32, "float8": fp32}
        peaks |= {"float64": fp64, "int8": fp64}
        return DeviceInfo(
            name="wia reference device (NumPy on the host)",
            vendor="wia reference (NumPy)",
            type=DeviceType.CPU,
            compute_units=os.cpu_count() or 1,
            memory_size=self.memory,
            memory_bandwidth=bandwidth,
            peak_flops=fp32,
            peak_flops_by_precision=peaks,
            host_link="none: device memory is host memory",
            host_link_bandwidth=bandwidth,
            architecture=(
                f"{platform.machine() or 'host'} CPU, NumPy {np.__version__}; no timing model: memory bandwidth and "
                "FLOP/s are measured NumPy copy and matmul rates"
            ),
            backend=self.name,
        )

    def device_capabilities(self, device: int) -> DeviceCapabilities:
        return DeviceCapabilities(
            supports_float16=True,
            supports_bfloat16=True,
            supports_int8=True,
            supports_float64=True,
            supports_unified_memory=True,  # all host memory: host writes are the device's and vice versa
            supports_managed_memory=True,
            supports_pinned_memory=False,  # no faster, asynchronous DMA path than pageable memory (R-3.5.1-03)
            supports_peer_to_peer=self.devices > 1,  # every device's memory is host memory: any pair copies
            supports_custom_kernels=False,  # no OpenCL C compiler here
            supports_profiling=True,  # activities timed on the queues' workers; the front end does the rest
            max_work_group_size=1024,
            max_shared_memory=48 << 10,
            max_streams=64,
            supports_fault_injection=True,  # DEVICE_LOST and OUT_OF_MEMORY, op and allocation triggers only
        )

    # memory

    def allocate(self, device: int, nbytes: int, memory_type: MemoryType) -> Buffer:
        if self._faults[device].armed:
            self._faults[device].allocating(nbytes)
        with self._lock:  # free may run on any thread (a tensor's finaliser)
            if memory_type in _BUDGETED:
                used = self.in_use[device]
                if used + nbytes > self.memory:
                    raise OutOfMemoryError(
                        f"reference device {device} is out of memory: {nbytes} bytes requested, {used} of "
                        f"{self.memory} bytes in use"
                    )
                self.in_use[device] = used + nbytes
        return Buffer(device, memory_type, np.zeros(nbytes, np.uint8))

    def free(self, buffer: Buffer) -> None:
        # Commands still queued hold references to the array (views made at enqueue), so their work completes on
        # live memory, which Python releases after the last of them has run; the budget gets the bytes back now,
        # as cudaFree gives them to the next allocation.
        with self._lock:
            if buffer.memory_type in _BUDGETED and not buffer.freed:
                self.in_use[buffer.device] -= buffer.data.nbytes
            buffer.freed = True

    def host_view(self, buffer: Buffer) -> np.ndarray:
        return buffer.data  # the user synchronizes before reading results or writing inputs (SPEC 3.5.1)

    # queues and transfers: each queue runs its commands in order on its own thread

    def create_queue(self, device: int) -> Queue:
        queue = Queue(device, self._faults[device])
        with self._lock:
            self._queues.add(queue)
            queue.log = self._logs.get(device)
        return queue

    def name_queue(self, queue: Queue, label: str) -> None:
        queue.label = label

    def destroy_queue(self, queue: Queue) -> None:
        queue.stop()
        with self._lock:
            self._queues.discard(queue)

    def _finish(self, queue: Queue, index: int) -> None:
        """Block the host until command ``index`` of ``queue`` has run, then report the failures up to it."""
        queue.wait_until(index, None)
        queue.raise_failures(index)

    def copy(self, queue: Queue, src: Buffer, src_offset: int, dst: Buffer, dst_offset: int, nbytes: int) -> None:
        source = src.data[src_offset : src_offset + nbytes]
        target = dst.data[dst_offset : dst_offset + nbytes]
        route = _route(src.memory_type, dst.memory_type)
        work = Work("copy", f"copy {route}", route, nbytes=nbytes)
        index = queue.submit(work, functools.partial(np.copyto, target, source))
        if MemoryType.HOST in (src.memory_type, dst.memory_type):  # pageable: the host stages the data itself
            self._finish(queue, index)

    def upload(self, queue: Queue, dst: Buffer, offset: int, data: np.ndarray) -> None:
        # Blocking: the caller's (pageable) array is read before this returns, so it may change it afterwards.
        route = _route(MemoryType.HOST, dst.memory_type)
        work = Work("copy", f"copy {route}", route, nbytes=data.nbytes)
        index = queue.submit(work, functools.partial(np.copyto, dst.data[offset : offset + data.nbytes], data))
        self._finish(queue, index)

    def download(self, queue: Queue, src: Buffer, offset: int, nbytes: int) -> np.ndarray:
        out = np.empty(nbytes, np.uint8)
        route = _route(src.memory_type, MemoryType.HOST)
        work = Work("copy", f"copy {route}", route, nbytes=nbytes)
        index = queue.submit(work, functools.partial(np.copyto, out, src.data[offset : offset + nbytes]))
        self._finish(queue, index)
        return out

    def launch_op(
        self,
        queue: Queue,
        op: OpName,
        inputs: Sequence[TensorRef[Buffer]],
        output: TensorRef[Buffer],
        attrs: OpAttrs,
    ) -> Launch:
        launch = Launch(op)
        work = Work("kernel", op, "compute", launch, sum(ref.nbytes for ref in inputs) + output.nbytes)
        if output.size:  # the views are made now; the worker computes into them later
            views = [_array(ref) for ref in inputs]
            queue.submit(work, functools.partial(_run_op, OPS[op], views, _array(output), attrs))
        else:
            queue.submit(work, _nothing)
        return launch

    # several devices: peer copies and collectives, computed on the first queue once every queue has reached them

    def peer_info(self, src: int, dst: int) -> PeerInfo:
        bandwidth, _, _ = _measured()
        # every device's memory is host memory: a NumPy copy is the "direct" path (half the measured read+write)
        return PeerInfo(
            src_device=src,
            dst_device=dst,
            supported=True,
            path="direct",
            bandwidth=bandwidth / 2,
            hops=1,
            interface="host memory (NumPy copy)",
        )

    def _ordered(self, queues: Sequence[Queue], work: Work, command: Callable[[], object]) -> None:
        """Run ``command`` on ``queues[0]`` after the work so far on every queue; later work on every queue waits
        for it."""
        leader = queues[0]
        for queue in queues[1:]:
            self.wait_marker(leader, self.record(queue))
        leader.submit(work, command)
        done = self.record(leader)
        for queue in queues[1:]:
            self.wait_marker(queue, done)

    def copy_peer(self, src_queue: Queue, src: TensorRef[Buffer], dst_queue: Queue, dst: TensorRef[Buffer]) -> None:
        source = src.buffer.data[src.offset : src.offset + src.nbytes]
        target = dst.buffer.data[dst.offset : dst.offset + dst.nbytes]
        work = Work("copy", "copy p2p", "p2p", nbytes=src.nbytes)
        self._ordered([src_queue, dst_queue], work, functools.partial(np.copyto, target, source))

    def collective(
        self,
        queues: Sequence[Queue],
        inputs: Sequence[TensorRef[Buffer]],
        outputs: Sequence[TensorRef[Buffer]],
        attrs: CollectiveAttrs,
    ) -> None:
        arrays = [_array(ref) for ref in inputs]
        outs = [_array(ref) for ref in outputs]

        def run() -> None:
            for out, result in zip(outs, reductions.results(attrs.kind, arrays, attrs.op, attrs.root), strict=True):
                np.copyto(out, result.reshape(out.shape))

        work = Work("copy", attrs.kind, "collective", nbytes=sum(ref.nbytes for ref in inputs))
        self._ordered(queues, work, run)

    # ordering and time

    def record(self, queue: Queue) -> Marker:
        marker = Marker(queue)
        marker.index = queue.submit(Work("marker", "event", handle=marker), functools.partial(_stamp, marker))
        return marker

    def wait_marker(self, queue: Queue, marker: Marker) -> None:
        if marker.queue is not queue:  # a marker of the queue itself is behind everything enqueued from now on
            work = Work("wait", "wait for event", handle=marker)
            queue.submit(work, functools.partial(marker.queue.wait_until, marker.index, None))

    def synchronize(self, queue: Queue, timeout_ms: float | None) -> bool:
        queue.faults.check()
        index = queue.submitted
        if not queue.wait_until(index, timeout_ms):
            return False
        queue.raise_failures(index)
        return True

    def wait(self, marker: Marker, timeout_ms: float | None) -> bool:
        marker.queue.faults.check()
        if not marker.queue.wait_until(marker.index, timeout_ms):
            return False
        marker.queue.raise_failures(marker.index)
        return True

    def query(self, marker: Marker) -> bool:
        if not marker.queue.reached(marker.index):
            return False
        marker.queue.raise_failures(marker.index)
        return True

    def elapsed_ms(self, start: Marker, end: Marker) -> float:
        return (end.time_s - start.time_s) * 1e3

    # profiling: clock_ms is the protocol's default (time.perf_counter), the clock the workers time commands on

    def set_profiling(self, device: int, enabled: bool) -> None:
        with self._lock:
            log = self._logs.setdefault(device, ActivityLog()) if enabled else None
            if log is None:
                self._logs.pop(device, None)
            for queue in self._queues:
                if queue.device == device:
                    queue.log = log

    def activities(self, device: int) -> list[Activity[Queue]]:
        log = self._logs.get(device)
        return log.take() if log is not None else []

    def close(self) -> None:
        with self._lock:
            queues = list(self._queues)
            self._queues.clear()
        for queue in queues:
            queue.stop()

    # recovery, and the simple part of the fault-injection extension (docs/faults.md)

    def reset_device(self, device: int, queues: Sequence[Queue]) -> None:
        faults = self._faults[device]
        faults.lost = None  # first: the default then waits for the queues and takes their failures
        super().reset_device(device, queues)
        faults.oom_left = 0

    def inject_fault(self, fault: FaultRecord[Buffer]) -> None:
        if fault.kind not in (FaultKind.DEVICE_LOST, FaultKind.OUT_OF_MEMORY) or fault.at_ms is not None:
            trigger = "at_ms" if fault.at_ms is not None else "its trigger"
            raise NotSupportedError(
                f"the reference backend injects DEVICE_LOST and OUT_OF_MEMORY faults after N ops (allocations) or "
                f"with a probability only, not {fault.kind.name} with {trigger}; the sim backend injects every kind"
            )
        self._faults[fault.device].pending.append((fault, random.Random(fault.seed)))

    def clear_faults(self, device: int | None) -> None:
        for faults in self._faults:
            if device in (None, faults.device):
                faults.pending.clear()

    def fault_stats(self, device: int) -> FaultStats:
        faults = self._faults[device]
        return FaultStats(
            device=device, faults_pending=len(faults.pending), faults_fired=faults.fired, ecc_corrected=0,
            ecc_uncorrectable=0, lost=faults.lost is not None, hung=False,
        )  # fmt: skip
