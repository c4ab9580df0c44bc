"""The one protocol every backend implements (the vendor's guide is ``docs/backend.md``).

The HAL front end owns everything that is the same on every backend and does it first: argument validation,
handles, tensors, pools, context limits, error details. A backend implements only the hooks below and may assume
their arguments are valid: live, of the right device and memory type, in range. It never sees the user's objects:
the front end hands it records it built (:class:`TensorRef`, :class:`BufferArg`, :class:`LocalArg`,
:class:`ScalarArg`) and the op attributes as one typed model per op (:mod:`wia_hal.opset`).

A backend raises ``WiaError`` subclasses for conditions only it can see (``OutOfMemoryError`` when the device is
full, ``NotSupportedError``, ``CompileError``), mapping its native status codes to ``ErrorCode`` in one place. Any
other exception escaping a hook is a bug of the backend and reaches the user as ``INTERNAL``, chained to its cause.

The handle types (buffers, queues, markers, compiled kernels, op records) are the backend's own: the class is
generic in them, and the HAL stores them without looking inside.
"""

from __future__ import annotations

import contextlib
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, TypeVar

import numpy as np

from wia_hal.enums import FaultKind, MemoryAccess, MemoryType
from wia_hal.errors import NotSupportedError, WiaError
from wia_hal.models import (
    CollectiveAttrs,
    CollectiveReport,
    DeviceCapabilities,
    DeviceInfo,
    FaultStats,
    OpReport,
    PeerInfo,
)
from wia_hal.opset import OpAttrs, OpName

BufferT = TypeVar("BufferT")
QueueT = TypeVar("QueueT")
MarkerT = TypeVar("MarkerT")
KernelT = TypeVar("KernelT")
RecordT = TypeVar("RecordT")


@dataclass(frozen=True, slots=True, eq=False, weakref_slot=True)
class TensorRef(Generic[BufferT]):
    """A strided, typed region of a buffer: what an op reads or writes.

    ``offset`` and ``strides`` are in bytes; strides may be zero (broadcast views never reach a backend, but a
    size-1 dimension's stride is arbitrary) and never negative. The element at index ``i`` is at
    ``offset + sum(i[k] * strides[k])``. Identity, not value, is what two refs share: the front end makes one per
    tensor, so a backend may cache per ref (weak references work).
    """

    buffer: BufferT
    offset: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: np.dtype

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize


@dataclass(frozen=True, slots=True)
class BufferArg(Generic[BufferT]):
    """A kernel argument that is device memory: ``nbytes`` bytes at ``offset`` in ``buffer`` (a ``Memory`` or a
    contiguous tensor of the user's, checked live, of the kernel's context and device-visible)."""

    buffer: BufferT
    offset: int
    nbytes: int
    access: MemoryAccess = MemoryAccess.READ_WRITE
    """What the kernel may do with it: the allocation's ``MemoryAccess`` (OpenCL's memory flags)."""


@dataclass(frozen=True, slots=True)
class LocalArg:
    """A ``__local`` kernel argument: ``nbytes`` of work-group memory (OpenCL's ``clSetKernelArg(k, i, n, NULL)``)."""

    nbytes: int


@dataclass(frozen=True, slots=True)
class ScalarArg:
    """A value kernel argument, already converted to the parameter's element type ``dtype``: a 0-d array for a
    scalar, a 1-d array of the vector width for a vector (``float4``)."""

    value: np.ndarray
    dtype: np.dtype


@dataclass(frozen=True, slots=True)
class NullArg:
    """A NULL ``__global``/``__constant`` pointer argument (``set_kernel_arg(k, i, None)``, as OpenCL's
    ``clSetKernelArg`` with a NULL buffer): the kernel may pass it on or test it, not dereference it."""


KernelArg = BufferArg[BufferT] | LocalArg | ScalarArg | NullArg

ParamKind = Literal["buffer", "local", "scalar"]


@dataclass(frozen=True, slots=True)
class KernelParam:
    """One parameter of a compiled kernel, as the front end needs it to check and convert arguments.

    ``dtype`` is the NumPy type of the value's elements (``int32`` for ``int`` and ``int4``, ``float32`` for
    ``float``) for values, and of the pointee for buffers where it is a scalar type (None otherwise);
    ``vector_width`` is 1 for scalars. ``address_space``: ``global``, ``constant`` or ``local`` for pointers, ""
    for values. ``const``: a ``const``/``__constant`` buffer the kernel does not write.
    """

    name: str
    kind: ParamKind
    type_name: str
    dtype: np.dtype | None = None
    vector_width: int = 1
    address_space: str = ""
    const: bool = False
    nbytes: int | None = None
    """Bytes of a struct or union passed by value (``type_name`` names it); None where not known or not one."""


@dataclass(frozen=True, slots=True)
class KernelSignature:
    """What :meth:`Backend.compile_kernel` learned of the kernel's parameters, in order."""

    name: str
    params: tuple[KernelParam, ...]


@dataclass(frozen=True, slots=True)
class NDRange:
    """A checked launch geometry: global and local sizes in three dimensions (``local`` None: the backend picks),
    ``work_dim`` (what ``get_work_dim()`` returns), the dynamic shared memory asked for (bytes) and the global work
    offset (OpenCL's: the first global id of each dimension; a backend that cannot honour a nonzero one raises
    ``NotSupportedError``, never runs without it)."""

    global_size: tuple[int, int, int]
    local_size: tuple[int, int, int] | None
    work_dim: int
    shared_memory: int = 0
    global_offset: tuple[int, int, int] = (0, 0, 0)


ActivityKind = Literal["kernel", "copy", "migration", "marker", "wait"]


@dataclass(slots=True, eq=False)
class Activity(Generic[QueueT]):
    """One piece of device work that completed, as a backend that claims profiling reports it (the front end
    aggregates these into profiles and timelines; ``docs/profiling.md``).

    Times are milliseconds on :meth:`Backend.clock_ms`'s clock, the one the host's own time is measured on, so that
    host calls and device work line up. ``kind``: ``kernel`` (a built-in op or a custom kernel: ``handle`` is the
    record ``launch_op``/``launch_kernel`` returned), ``copy`` (``engine`` names the path: ``h2d``, ``d2h``, ``d2d``,
    ``host``), ``migration`` (UNIFIED/MANAGED data moved in bulk), ``marker`` (``handle`` is the marker ``record``
    returned; started = ended = when the queue reached it), ``wait`` (``handle`` is the awaited marker; from when
    the queue reached the wait to when the marker completed). ``nbytes`` is the memory traffic (bytes copied, or
    read plus written by a kernel), ``flops`` the arithmetic, where the backend knows them; ``bound`` (``compute``,
    ``memory`` or ``launch``), ``algorithm`` and ``precision`` (a key of ``DeviceInfo.peak_flops_by_precision``)
    only where it can say. Read-only once made (not frozen only because a profiled program makes one per piece of
    work, and a frozen dataclass costs five times as much to build).
    """

    queue: QueueT
    kind: ActivityKind
    name: str
    engine: str
    submitted_ms: float
    started_ms: float
    ended_ms: float
    handle: object = None
    nbytes: float = 0.0
    flops: float = 0.0
    bound: str = ""
    algorithm: str = ""
    precision: str = ""


class Backend(ABC, Generic[BufferT, QueueT, MarkerT, KernelT, RecordT]):
    """One implementation of WIA-AI-011. Constructed with its options (strings from the environment, or the
    keyword arguments of ``set_backend``); raises ``InvalidValueError`` for a bad option.

    Abstract methods are required (Level 1); the hooks that raise ``NotSupportedError`` by default are optional
    and must be implemented exactly when the device claims the matching capability (kernels, peer-to-peer).
    """

    name: ClassVar[str]
    ops: ClassVar[frozenset[OpName]] = frozenset()
    """The built-in ops this backend runs (names of :mod:`wia_hal.opset`). For any other op the front end raises
    ``NOT_SUPPORTED``, after validating the call."""

    @property
    def numerics(self) -> bool:
        """Whether memory holds data. A timing-only backend keeps sizes and time but computes nothing."""
        return True

    def api_call(self, function: str) -> None:
        """Called once per public API call (``function`` is its name), before the call does anything: the one place
        a simulator charges the host time of an API call. Nested API calls are not reported again."""

    # discovery
    @abstractmethod
    def device_count(self) -> int: ...

    @abstractmethod
    def device_info(self, device: int) -> DeviceInfo: ...

    @abstractmethod
    def device_capabilities(self, device: int) -> DeviceCapabilities: ...

    # memory
    @abstractmethod
    def allocate(self, device: int, nbytes: int, memory_type: MemoryType) -> BufferT:
        """``nbytes`` (> 0) of ``memory_type``, which the device claims; ``OutOfMemoryError`` when it is full."""

    @abstractmethod
    def free(self, buffer: BufferT) -> None:
        """Give the buffer back. Work already queued that uses it must still complete correctly (as OpenCL's
        reference counting and CUDA's ``cudaFree`` ensure): keep the memory until then."""

    @abstractmethod
    def host_view(self, buffer: BufferT) -> np.ndarray:
        """A writable ``uint8`` view of host-visible memory (HOST, PINNED, UNIFIED, MANAGED), valid until freed."""

    # queues and transfers
    @abstractmethod
    def create_queue(self, device: int) -> QueueT: ...

    @abstractmethod
    def destroy_queue(self, queue: QueueT) -> None:
        """Called after the queue's work is complete."""

    def name_queue(self, queue: QueueT, label: str) -> None:
        """The name the user knows the queue by (``stream 2 of context 1``), for the backend's own reports and
        findings (a simulator's hazard report names both streams). Optional."""

    @abstractmethod
    def copy(self, queue: QueueT, src: BufferT, src_offset: int, dst: BufferT, dst_offset: int, nbytes: int) -> None:
        """Enqueue a copy between any two buffers; it may block the host where the hardware would (pageable
        HOST memory)."""

    def prefetch(self, queue: QueueT, buffer: BufferT, offset: int, nbytes: int, to_device: bool) -> None:
        """Move UNIFIED/MANAGED data to the device (or the host) in ``queue``'s order: a hint, ignored by default."""

    @abstractmethod
    def upload(self, queue: QueueT, dst: BufferT, offset: int, data: np.ndarray) -> None:
        """Blocking write of ``data`` (contiguous ``uint8``, from pageable user memory) after the queue's work."""

    @abstractmethod
    def download(self, queue: QueueT, src: BufferT, offset: int, nbytes: int) -> np.ndarray:
        """Blocking read into pageable user memory after the queue's work; a new ``uint8`` array."""

    @abstractmethod
    def launch_op(
        self,
        queue: QueueT,
        op: OpName,
        inputs: Sequence[TensorRef[BufferT]],
        output: TensorRef[BufferT],
        attrs: OpAttrs,
    ) -> RecordT | None:
        """Enqueue the built-in op ``op`` (one of :attr:`ops`) reading ``inputs`` and writing ``output``.

        ``attrs`` is the op's validated attribute model (:data:`wia_hal.opset.ATTRS` names the class per op; its
        semantics are in ``docs/backend.md``). The output never overlaps an input. Returns a record of the launch
        for :meth:`explain`, or None.
        """

    # Level 3: a backend that claims supports_custom_kernels / supports_peer_to_peer implements these

    def compile_kernel(self, device: int, source: str, name: str, options: str) -> tuple[KernelT, KernelSignature]:
        """Build kernel ``name`` from OpenCL C ``source`` with build ``options`` (``-D`` definitions): its handle
        and signature. ``CompileError`` with the build log (line numbers), ``InvalidKernelError`` for a name that
        is not a kernel of the source."""
        raise NotSupportedError(f"the {self.name!r} backend does not compile kernels")

    def launch_kernel(
        self, queue: QueueT, kernel: KernelT, args: Sequence[KernelArg[BufferT]], ndrange: NDRange
    ) -> RecordT | None:
        """Enqueue the kernel; one argument per parameter, of the parameter's kind. The geometry is checked
        against the device's claimed limits; ``InvalidLaunchConfigError`` for limits only the backend knows
        (``__local`` memory of the kernel itself plus its local arguments)."""
        raise NotSupportedError(f"the {self.name!r} backend does not run kernels")

    def release_kernel(self, kernel: KernelT) -> None:
        """The user destroyed the kernel (its launches may still be queued)."""

    def peer_info(self, src: int, dst: int) -> PeerInfo:
        """How data moves from device ``src`` to device ``dst`` (two different devices): a backend claims
        ``supports_peer_to_peer`` for a device exactly when some pair of it has ``supported`` True, and implements
        :meth:`copy_peer` for those pairs. By default: no peer path."""
        return PeerInfo(src_device=src, dst_device=dst, supported=False, path="none")

    def copy_peer(self, src_queue: QueueT, src: TensorRef[BufferT], dst_queue: QueueT, dst: TensorRef[BufferT]) -> None:
        """Enqueue a copy of ``src`` (contiguous, on ``src_queue``'s device) into ``dst`` (same shape and dtype,
        contiguous, on ``dst_queue``'s device; a pair whose :meth:`peer_info` is supported) over the peer path.
        Asynchronous, and ordered on both queues: after the work enqueued so far on each, before the work
        enqueued later on each."""
        raise NotSupportedError(f"the {self.name!r} backend does not copy between devices")

    def collective(
        self,
        queues: Sequence[QueueT],
        inputs: Sequence[TensorRef[BufferT]],
        outputs: Sequence[TensorRef[BufferT]],
        attrs: CollectiveAttrs,
    ) -> object:
        """Enqueue a collective (an extension beyond the spec: ``docs/collectives.md`` gives each kind's result)
        over the devices of ``queues`` (one queue per participant, all of different devices), reading
        ``inputs[i]`` and writing ``outputs[i]`` (contiguous, on ``queues[i]``'s device, never overlapping an
        input). Ordered like :meth:`copy_peer` on every queue. Returns a record for :meth:`explain_collective`."""
        raise NotSupportedError(f"the {self.name!r} backend does not run collectives")

    def explain_collective(self, record: Any) -> CollectiveReport:
        """What a collective cost (an optional extension, as :meth:`explain`)."""
        raise NotSupportedError(f"the {self.name!r} backend does not explain its collectives")

    def explain(self, record: RecordT) -> OpReport:
        """What an op cost and why (an optional extension: a simulator can say, hardware usually cannot)."""
        raise NotSupportedError(f"the {self.name!r} backend does not explain its ops")

    # extension: graphs (docs/graphs.md)

    def launch_graph(self, nodes: Sequence[GraphNode]) -> list[Any]:
        """Replay a captured graph: every node's hook with its recorded arguments, in order (the front end checked
        that everything the nodes reference is live). Returns what each hook returned (records for ``explain``,
        None for the others). This default is exact on every backend; a backend overrides it to charge the host
        one launch for the whole graph instead of one per node, as a real graph launch does, or to replay faster."""
        results: list[Any] = []
        for node in nodes:
            hook, args = node.hook, node.args
            if hook == "record":
                assert node.marker is not None
                node.marker.marker = self.record(*args)
                results.append(None)
                continue
            if hook == "wait_marker":
                queue, marker = args
                if isinstance(marker, CapturedMarker):
                    marker = marker.marker
                self.wait_marker(queue, marker)
                results.append(None)
                continue
            results.append(getattr(self, hook)(*args))
        return results

    # ordering and time
    @abstractmethod
    def record(self, queue: QueueT) -> MarkerT:
        """A marker after everything enqueued so far on ``queue``."""

    @abstractmethod
    def wait_marker(self, queue: QueueT, marker: MarkerT) -> None:
        """Work enqueued on ``queue`` from now on starts only after ``marker`` completes (a marker of any queue
        of the same device)."""

    @abstractmethod
    def synchronize(self, queue: QueueT, timeout_ms: float | None) -> bool:
        """Block until the queue is idle; False if ``timeout_ms`` passed first (None: no limit)."""

    @abstractmethod
    def wait(self, marker: MarkerT, timeout_ms: float | None) -> bool:
        """Block until the marker completes; False if ``timeout_ms`` passed first."""

    @abstractmethod
    def query(self, marker: MarkerT) -> bool:
        """Whether the marker has completed, without blocking."""

    @abstractmethod
    def elapsed_ms(self, start: MarkerT, end: MarkerT) -> float:
        """Device time in milliseconds between two completed markers (≥ 0 when ``end`` was recorded after
        ``start`` on one queue)."""

    # profiling: a backend that claims supports_profiling implements set_profiling and activities

    def clock_ms(self, device: int | None = None) -> float:
        """Now, in milliseconds, on the clock :class:`Activity` times are measured on (a simulator's host clock;
        by default the host's ``perf_counter``). The front end times the host's calls with it. ``device``: the
        clock of the host thread that issues ``device``'s work, where a backend models one per device (None: the
        thread of the latest call)."""
        return time.perf_counter() * 1e3

    def set_profiling(self, device: int, enabled: bool) -> None:
        """Start (or stop) keeping an :class:`Activity` for each piece of work of ``device`` that completes."""
        raise NotSupportedError(f"the {self.name!r} backend does not profile")

    def activities(self, device: int) -> list[Activity[QueueT]]:
        """The activities of ``device`` completed since the last call (while profiling is on), in completion order;
        the front end calls it after waiting for the work it wants to see."""
        raise NotSupportedError(f"the {self.name!r} backend does not profile")

    def close(self) -> None:
        """Release the backend (called when another backend is selected)."""

    # recovery (R-3.9-04): every backend; the default suits a backend whose devices cannot be re-initialised

    def reset_device(self, device: int, queues: Sequence[QueueT]) -> None:
        """Re-initialise ``device`` (``reset_device``): drop the work queued on ``queues`` (every queue of the
        device's contexts; their outputs are undefined) and clear whatever made the device lost or hung. The front
        end then frees the device's DEVICE, UNIFIED and MANAGED memory and uses the queues again. The default waits
        for the queues' work instead, ignoring its errors: a backend that cannot drop work finishes it."""
        for queue in queues:
            with contextlib.suppress(WiaError):
                self.synchronize(queue, None)

    # extension: fault injection (docs/faults.md); a backend that claims supports_fault_injection implements these

    def inject_fault(self, fault: FaultRecord[BufferT]) -> None:
        """Arm ``fault`` (validated: its device and peer exist, its buffer is live memory of its device). From its
        trigger on, the backend raises what ``docs/faults.md`` says for its kind: ``DeviceLostError`` from every
        hook on a lost device, ``OutOfMemoryError`` from ``allocate``, ``synchronize``/``wait`` returning False on a
        hung device. Deterministic: the same program, faults and seeds fail at the same op and time."""
        raise NotSupportedError(f"the {self.name!r} backend does not inject faults")

    def clear_faults(self, device: int | None) -> None:
        """Disarm the faults of ``device`` (None: of every device) that have not fired yet."""
        raise NotSupportedError(f"the {self.name!r} backend does not inject faults")

    def fault_stats(self, device: int) -> FaultStats:
        """What the injected faults of ``device`` did so far."""
        raise NotSupportedError(f"the {self.name!r} backend does not inject faults")


class CapturedMarker:
    """A marker recorded while a graph was captured (:mod:`wia_hal.graphs`): it stands for the marker each replay
    records. ``marker`` is the latest replay's (None before the first); a backend's :meth:`Backend.launch_graph`
    resolves waits on it to the marker its replay recorded."""

    __slots__ = ("marker",)

    def __init__(self) -> None:
        self.marker: object = None


@dataclass(frozen=True, slots=True)
class GraphNode:
    """One recorded hook call of a captured graph: ``hook`` is a method name of :class:`Backend` (``launch_op``,
    ``launch_kernel``, ``copy``, ``prefetch``, ``copy_peer``, ``collective``, ``record``, ``wait_marker``) and
    ``args`` its arguments as the front end passed them at capture (markers recorded in the capture are
    :class:`CapturedMarker` s; ``record`` nodes carry theirs in ``marker``)."""

    hook: str
    args: tuple[Any, ...]
    marker: CapturedMarker | None = None


@dataclass(frozen=True, slots=True)
class FaultRecord(Generic[BufferT]):
    """A fault as the front end hands it to :meth:`Backend.inject_fault` (built from the user's ``Fault``).

    Trigger: ``after_ops`` (the fault hits the op that starts after this many more have started on the device,
    0 = the next one; for ``OUT_OF_MEMORY`` it counts allocations instead), ``at_ms`` (on the backend's
    :meth:`Backend.clock_ms` clock), or ``probability`` per op (allocation) drawn from a generator seeded with
    ``seed``; exactly one is set. ``count``: allocations that fail (``OUT_OF_MEMORY``). ``buffer``, ``offset``,
    ``nbytes``: the region an ``ECC_ERROR`` strikes, ``uncorrectable`` or corrected. ``peer``: the other end of a
    ``LINK_FAILURE``. ``duration_ms``: how long a ``HANG`` lasts (None: until the watchdog or a reset).
    """

    kind: FaultKind
    device: int
    after_ops: int | None = None
    at_ms: float | None = None
    probability: float | None = None
    seed: int = 0
    count: int = 1
    buffer: BufferT | None = None
    offset: int = 0
    nbytes: int = 0
    uncorrectable: bool = False
    peer: int | None = None
    duration_ms: float | None = None


AnyBackend = Backend[Any, Any, Any, Any, Any]
"""The type the front end holds a backend as: its handles are opaque there."""

__all__ = [
    "Activity",
    "ActivityKind",
    "AnyBackend",
    "Backend",
    "BufferArg",
    "CapturedMarker",
    "FaultRecord",
    "GraphNode",
    "KernelArg",
    "KernelParam",
    "KernelSignature",
    "LocalArg",
    "NDRange",
    "NullArg",
    "ParamKind",
    "ScalarArg",
    "TensorRef",
]
