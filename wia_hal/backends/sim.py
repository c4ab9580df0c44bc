"""The ``sim`` backend: the HAL on wia_sim's simulated machine.

Options (keyword arguments of ``set_backend("sim", ...)`` or ``WIA_SIM_*`` variables):
``hardware`` (a shipped device model or system name, or the path of a TOML file; default ``nvidia-a100-sxm4-80gb``),
``devices`` (identical devices: default 1, or a system's count; with a system, fewer selects its first devices;
a device model alone gives devices with no peer fabric, whose pairs reach each other through host memory),
``numerics`` (default true; false keeps allocation, capacity and timing exactly as a numeric run but computes
nothing, so that real sizes can be timed; custom kernels then run on zero-filled scratch copies of their buffers,
to count what they do), ``kernel_checks`` (default true: custom kernels are
checked for out-of-bounds accesses, races, barrier divergence and uninitialized local reads; false for speed;
``strict``: lower-severity findings, such as a uniform write, raise as races do instead of issuing a
``KernelFindingWarning``),
``kernel_step_limit`` (lockstep steps after which a custom kernel stops with ``TIMEOUT``, default 1,000,000),
``kernel_fp_contract`` (default false: every float operator of a custom kernel rounds its own result; true fuses
``a * b + c`` within an expression into one rounding as Clang's default does, which PoCL and GPU compilers follow,
so that results match theirs bit for bit; a batched accumulation loop then rounds step by step: slower),
``hazards`` (stream hazards: two accesses to the same bytes from different streams, at least one a write, with no
event, stream wait or host synchronization ordering them; ``warn``, the default, issues a ``StreamHazardWarning``
at the user's call, ``error`` raises ``StreamHazardError`` there with nothing enqueued, ``off`` does not check;
every finding is also kept in ``machine.hazards``; see docs/hazards.md), ``set`` (hardware variations: fields of the
model changed, ``"memory.bandwidth=2x;compute.compute_units=108"`` or a mapping; a system's device model's fields
as ``device.<field>``; see docs/hardware_models.md, "Variations"), ``host_threads`` (``one``, the default: the
program is one host thread with one clock that every call spends; ``per-device``: the program stands for one host
thread or process per device, as tensor-parallel engines run, so a call for device ``d`` spends and waits on ``d``'s
own host clock and eight devices' launches overlap instead of queueing on one thread; an API call that names no
device, a view, is charged to the last device's clock. A wait on one device's clock can run the simulation past
another's: work that device is given later then starts no earlier than the simulation's time, so the approximation
errs slow, never fast).
"""

from __future__ import annotations

import builtins
import functools
import gc
import math
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, ParamSpec, TypeAlias, TypeVar

import numpy as np
import simpy

import wia_sim
from wia_hal import reductions
from wia_hal.backend import (
    Activity,
    Backend,
    BufferArg,
    FaultRecord,
    GraphNode,
    KernelArg,
    KernelParam,
    KernelSignature,
    LocalArg,
    NDRange,
    NullArg,
    ParamKind,
    TensorRef,
)
from wia_hal.enums import DeviceType, MemoryAccess, MemoryType
from wia_hal.errors import (
    CompileError,
    DeviceLostError,
    ErrorCode,
    InvalidKernelError,
    InvalidLaunchConfigError,
    InvalidValueError,
    KernelFindingWarning,
    NotSupportedError,
    OutOfMemoryError,
    StreamHazardError,
    StreamHazardWarning,
    WiaError,
    error_for,
    register_internal_dir,
    warn_at_call_site,
    warn_build_log,
)
from wia_hal.models import (
    AlgorithmChoice,
    CollectiveAttrs,
    CollectiveReport,
    DeviceCapabilities,
    DeviceInfo,
    FaultStats,
    OpReport,
    PeerInfo,
)
from wia_hal.opset import OP_NAMES, OpAttrs, OpName
from wia_sim import (
    faults,
    kernels,  # the kernel front end and executor load on first use (wia_sim/kernels/__init__.py)
)
from wia_sim.collectives import Collective, message_bytes
from wia_sim.commands import Command, Copy, Kernel, Marker, PeerCopy, Prefetch, Wait
from wia_sim.costmodel import KernelCost, custom_kernel_cost, transfer_cost
from wia_sim.hazards import Access, StreamHazard
from wia_sim.heap import HeapFullError
from wia_sim.hwmodel import HardwareModel, HardwareModelError, System, load_hardware, model_path, vary
from wia_sim.kernels import scratch
from wia_sim.kernels.ctype import lookup
from wia_sim.kernels.lanes import Geometry, launch_geometry
from wia_sim.kernels.memargs import GlobalBuffer
from wia_sim.library import OPS, Operand, OpSpec
from wia_sim.machine import Machine
from wia_sim.memory import Buffer, MemoryKind
from wia_sim.migration import migrate
from wia_sim.stream import Stream

if TYPE_CHECKING:
    from wia_sim.kernels.program import KernelInfo, Param, Program

register_internal_dir(wia_sim.__file__ or "")
register_internal_dir(simpy.__file__ or "")

DEFAULT_HARDWARE = "nvidia-a100-sxm4-80gb"
_HAZARD_MODES = ("warn", "error", "off")
_HOST_THREADS = ("one", "per-device")
_KINDS = {t: MemoryKind[t.name] for t in MemoryType}
P = ParamSpec("P")
R = TypeVar("R")
SimKernel: TypeAlias = "tuple[Program, KernelInfo]"


_VALUE_ATTRS = frozenset({"value", "scalar", "x_scalar", "y_scalar"})
"""Attributes that carry a value the kernel computes with, not a shape it costs: the cost cache keys them by
presence only (a loop over changing scalars, or NaN, which equals nothing, would otherwise grow it without end)."""


def _finding(e: Exception) -> Exception:
    """The one place the simulator's findings become the HAL's errors: a kernel's bug (its check names the code
    it maps to), something the executor does not implement, a runaway kernel, an injected fault
    (:mod:`wia_sim.faults`). Any other exception is a fault of the simulator and reaches the user as
    ``INTERNAL``."""
    code = getattr(e, "wia_code", None)
    if isinstance(code, str) and code in ErrorCode.__members__:
        error = error_for(ErrorCode[code], str(e))
        if isinstance(error, DeviceLostError):
            error.device = getattr(e, "device", None)
        return error
    return e


def _translated(method: Callable[P, R]) -> Callable[P, R]:
    """Run a hook that advances simulated time (where kernels run and report) or submits work (which a lost
    device refuses) under :func:`_finding` (a ``try`` costs nothing until something raises)."""

    @functools.wraps(method)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except WiaError:
            raise
        except Exception as e:
            error = _finding(e)
            if error is e:
                raise
            raise error from e

    return wrapper


def _flag(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise InvalidValueError(f"sim backend option {name}={value!r}: expected a boolean (true/false, 1/0)")


def _count(name: str, value: object) -> int:
    try:
        number = int(str(value)) if not isinstance(value, bool) else -1
    except ValueError:
        number = -1
    if number < 1:
        raise InvalidValueError(f"sim backend option {name}={value!r}: expected a positive integer")
    return number


def _changes(value: object) -> dict[str, str]:
    """The ``set`` option as ``{field: value}``: ``"field=value;field=value"`` (``;`` separates, since values such
    as ``[4, 4]`` hold commas) or a mapping."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return {str(field).strip(): str(text).strip() for field, text in value.items()}
    if not isinstance(value, str):
        raise InvalidValueError(
            f"sim backend option set={value!r}: expected 'field=value;field=value' or a mapping of fields to values"
        )
    changes: dict[str, str] = {}
    for piece in filter(str.strip, value.split(";")):
        field, sep, text = (part.strip() for part in piece.partition("="))
        if not sep or not field or not text:
            raise InvalidValueError(
                f"sim backend option set={value!r}: {piece.strip()!r} is not field=value "
                "(e.g. 'memory.bandwidth=2x;compute.compute_units=108')"
            )
        if field in changes:
            raise InvalidValueError(f"sim backend option set={value!r}: {field} is set twice")
        changes[field] = text
    return changes


def _span(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> int:
    """Bytes from a strided view's first element to the end of its last (strides are never negative); 0 if empty."""
    span = itemsize
    for d, s in zip(shape, strides, strict=True):
        if not d:
            return 0
        span += (d - 1) * s
    return span


def _extent(ref: TensorRef[Buffer]) -> tuple[Buffer, int, int]:
    """The bytes of ``ref``'s buffer its elements span (a strided view's first to last element)."""
    return ref.buffer, ref.offset, ref.offset + _span(ref.shape, ref.strides, ref.dtype.itemsize)


_SPANS: dict[tuple[tuple[int, ...], tuple[int, ...], int], int] = {}
""":func:`_span` by layout: it is asked for every operand of every op (the hazard check), mostly for a few layouts."""


def _cached_span(layout: tuple[tuple[int, ...], tuple[int, ...], int]) -> int:
    if len(_SPANS) > 4096:
        _SPANS.clear()
    span = _SPANS[layout] = _span(*layout)
    return span


def _span_of(ref: TensorRef[Buffer]) -> int:
    layout = (ref.shape, ref.strides, ref.dtype.itemsize)
    span = _SPANS.get(layout)
    return _cached_span(layout) if span is None else span


def _op_accesses(inputs: Sequence[TensorRef[Buffer]], output: TensorRef[Buffer]) -> list[Access]:
    """What an op reads (its inputs' extents) and writes (its output's), for the hazard check: :func:`_extent`,
    inlined for 1-d operands and cached by layout for others (this runs for every op)."""
    accesses = []
    written = len(inputs)
    for i, ref in enumerate((*inputs, output)):
        shape = ref.shape
        if len(shape) == 1:
            span = (shape[0] - 1) * ref.strides[0] + ref.dtype.itemsize if shape[0] else 0
        else:
            span = _span_of(ref)
        offset = ref.offset
        accesses.append((ref.buffer, offset, offset + span, i == written))
    return accesses


def _tracked(queue: Stream) -> bool:
    """Whether the byte ranges an op touches are needed: by the hazard checker, the cache model or a fault."""
    device = queue.device
    return queue.machine.detector is not None or device.cache is not None or device.faults is not None


def _geometry(ndrange: NDRange, max_work_group: int) -> Geometry:
    return launch_geometry(
        ndrange.global_size, ndrange.local_size, max_work_group, ndrange.work_dim, ndrange.global_offset
    )


def _groups(geometry: Geometry) -> int:
    return math.prod(geometry.num_groups)


def _store(out: np.ndarray, result: np.ndarray) -> None:
    """Round once into the output's dtype (overflow to inf, as a hardware store does, without NumPy's warning, which
    only a narrowing cast can raise)."""
    if result.dtype == out.dtype:
        np.copyto(out, result)
        return
    with np.errstate(all="ignore"):
        np.copyto(out, result, casting="unsafe")


def _bytes_of(arg: BufferArg[Buffer]) -> np.ndarray | None:
    """The bytes a buffer argument covers in its buffer (None in timing-only mode)."""
    data = arg.buffer.data
    return None if data is None else data[arg.offset : arg.offset + arg.nbytes]


def _param(p: Param) -> KernelParam:
    """What the HAL needs of an executor parameter: its kind and the NumPy type of its values or elements."""
    try:
        dtype: np.dtype | None = lookup(p.elem_type).dtype
    except Exception:  # a struct or a void pointee: no host-side type
        dtype = None
    kind: ParamKind = "buffer" if p.kind == "pointer" else p.kind  # "pointer" is for helper functions only
    space = "" if kind == "scalar" else p.address_space
    return KernelParam(p.name, kind, p.type_name, dtype, p.vector_width, space, p.const, p.nbytes)


def _activity(command: Command) -> Activity[Stream]:
    """A completed command as the profiler sees it (times in milliseconds of the host clock)."""
    stream = command.stream
    assert stream is not None  # traced commands were all submitted
    submitted, started, ended = command.submitted * 1e3, command.started * 1e3, command.ended * 1e3
    if started < submitted:
        started = submitted
    if type(command) is Kernel:  # most are: the fast path first
        cost = command.cost
        return Activity(
            stream, "kernel", cost.name, "compute", submitted, started, ended, command, cost.bytes, cost.flops,
            cost.bound, cost.algorithm, cost.precision,
        )  # fmt: skip
    times = (submitted, started, ended)
    if isinstance(command, Copy):
        route = command.cost.route
        return Activity(stream, "copy", f"copy {route}", route, *times, nbytes=command.cost.nbytes)
    if isinstance(command, PeerCopy):
        return Activity(stream, "copy", f"copy p2p ({command.route.kind})", "p2p", *times, nbytes=command.nbytes)
    if isinstance(command, Collective):
        plan = command.plan
        name = f"{plan.kind} ({plan.algorithm})"
        return Activity(stream, "copy", name, "collective", *times, command, nbytes=plan.size)
    if isinstance(command, Prefetch):
        direction = "h2d" if command.to_device else "d2h"
        return Activity(stream, "migration", f"prefetch {direction}", direction, *times, nbytes=command.hi - command.lo)
    if isinstance(command, Wait):
        return Activity(stream, "wait", "wait for event", "", *times, command.marker)
    return Activity(stream, "marker", "event", "", times[0], times[2], times[2], command)


def _seconds(timeout_ms: float | None) -> float:
    return math.inf if timeout_ms is None else timeout_ms / 1e3


class SimBackend(Backend[Buffer, Stream, Marker, SimKernel, Kernel]):
    name: ClassVar[str] = "sim"
    ops: ClassVar[frozenset[OpName]] = frozenset(op for op in OP_NAMES if op in OPS)

    def __init__(
        self,
        hardware: str | Path = DEFAULT_HARDWARE,
        devices: int | str | None = None,
        numerics: bool | str = True,
        kernel_checks: bool | str = True,
        kernel_step_limit: int | str = 1_000_000,
        kernel_fp_contract: bool | str = False,
        hazards: str = "warn",
        set: str | Mapping[str, str] | None = None,
        host_threads: str = "one",
    ) -> None:
        try:
            self.model_file = model_path(hardware)
            loaded = load_hardware(self.model_file)
        except HardwareModelError as e:
            raise InvalidValueError(str(e)) from None
        try:
            loaded = vary(loaded, _changes(set))
        except ValueError as e:
            raise InvalidValueError(f"sim backend option set={set!r}: {e}") from None
        self.system: System | None = loaded if isinstance(loaded, System) else None
        self.model: HardwareModel = loaded.device if isinstance(loaded, System) else loaded
        default = self.system.model.count if self.system is not None else 1
        count = default if devices is None else _count("devices", devices)
        if self.system is not None and count > default:
            raise InvalidValueError(
                f"sim backend option devices={devices!r}: the system {self.system.name!r} has {default} devices"
            )
        self.hazards = str(hazards).strip().lower()
        if self.hazards not in _HAZARD_MODES:
            raise InvalidValueError(
                f"sim backend option hazards={hazards!r}: expected one of {', '.join(_HAZARD_MODES)}"
            )
        threads = str(host_threads).strip().lower()
        if threads not in _HOST_THREADS:
            raise InvalidValueError(
                f"sim backend option host_threads={host_threads!r}: expected one of {', '.join(_HOST_THREADS)}"
            )
        self.machine = Machine(
            self.model,
            count,
            _flag("numerics", numerics),
            hazards=self.hazards != "off",
            system=self.system.model if self.system is not None else None,
            host_per_device=threads == "per-device",
        )
        detector = self.machine.detector
        if detector is not None:
            detector.handler = self._hazard
            detector.strict = self.hazards == "error"
        self._warned: dict[Any, Any] = {}
        self.kernel_strict = str(kernel_checks).strip().lower() == "strict"
        """Lower-severity kernel findings (uniform writes) raise instead of warning."""
        try:
            self.kernel_checks = self.kernel_strict or _flag("kernel_checks", kernel_checks)
        except InvalidValueError:
            raise InvalidValueError(
                f"sim backend option kernel_checks={kernel_checks!r}: expected true/false (1/0) or strict"
            ) from None
        self.kernel_step_limit = _count("kernel_step_limit", kernel_step_limit)
        self.kernel_fp_contract = _flag("kernel_fp_contract", kernel_fp_contract)
        self._costs: dict[tuple[object, ...], KernelCost] = {}
        self._plans: dict[int, tuple[Sequence[GraphNode], list[Any]]] = {}
        """Per graph being replayed (its node list), each node's kernel plan (:meth:`_replay`)."""
        self._views: weakref.WeakKeyDictionary[TensorRef[Buffer], np.ndarray] = weakref.WeakKeyDictionary()
        host = self.model.host
        self._alloc_latency = {t: host.pinned_alloc_latency for t in MemoryType}
        self._alloc_latency[MemoryType.DEVICE] = self.model.memory.alloc_latency
        self._alloc_latency[MemoryType.HOST] = host.api_overhead
        self._profiled: builtins.set[int] = builtins.set()  # the option ``set`` hides the builtin here
        self._pending: dict[int, list[Activity[Stream]]] = {}

    @property
    def numerics(self) -> bool:
        return self.machine.numerics

    # discovery

    def device_count(self) -> int:
        return len(self.machine.devices)

    def device_info(self, device: int) -> DeviceInfo:
        m = self.model
        link = m.host_link
        return DeviceInfo(
            name=m.display_name,
            vendor=m.vendor,
            type=DeviceType[m.device_type],
            compute_units=m.compute.compute_units,
            memory_size=int(m.memory.size),
            memory_bandwidth=m.memory.bandwidth,
            peak_flops=m.compute.peak_flops["float32"],
            peak_flops_by_precision=dict(m.compute.peak_flops),
            clock_rate_hz=m.compute.clock,
            last_level_cache_size=int(m.memory.last_level_cache),
            host_link=f"{link.interface} {link.generation} x{link.lanes}",
            host_link_bandwidth=link.pinned_h2d_bandwidth,
            architecture=m.architecture,
            backend=self.name,
            model_file=str(self.model_file),
        )

    def device_capabilities(self, device: int) -> DeviceCapabilities:
        m = self.model
        f = m.features
        return DeviceCapabilities(
            supports_float16=m.supports("float16"),
            supports_bfloat16=m.supports("bfloat16"),
            supports_int8=m.supports("int8"),
            supports_float64=m.supports("float64"),
            supports_unified_memory=f.unified_memory,
            supports_managed_memory=f.managed_memory,
            supports_pinned_memory=f.pinned_memory,
            # Truthful (R-3.2.1-02): a peer path in the simulated fabric to another device, whatever the chip can do.
            supports_peer_to_peer=any(
                self.machine.topology.route(device, other).peer
                for other in range(self.device_count())
                if other != device
            ),
            supports_custom_kernels=f.custom_kernels,
            supports_profiling=f.profiling,
            max_work_group_size=m.compute.max_work_group_size,
            max_shared_memory=int(m.compute.max_local_memory_per_work_group),
            max_streams=f.max_streams,
            supports_fault_injection=True,
        )

    def close(self) -> None:
        # what the machine kept to go faster: freed now, not by a later collection of the machine's cycles
        self._plans.clear()
        self._costs.clear()

    def _replay(self, nodes: Sequence[GraphNode]) -> list[Any]:
        """A timing-only replay: each op node's kernel from its plan (cost, accesses, migrations: the same every
        replay, worked out at the first), the other nodes through their hooks (:meth:`Backend.launch_graph`)."""
        found = self._plans.get(id(nodes))
        if found is None or found[0] is not nodes:
            if len(self._plans) >= 4:  # the graphs being replayed: a few at a time
                del self._plans[next(iter(self._plans))]
            found = self._plans[id(nodes)] = (nodes, [self._plan(node) for node in nodes])
        results: list[Any] = []
        machine = self.machine
        for node, plan in zip(nodes, found[1], strict=True):
            if plan is None:
                results.append(super().launch_graph((node,))[0])
                continue
            queue, cost, touches, label, accesses = plan
            machine.use_lane(queue.device.index)
            kernel = Kernel(cost, None, touches, label)
            queue.submit(kernel, accesses if _tracked(queue) else ())
            results.append(kernel)
        return results

    def _plan(self, node: GraphNode) -> tuple[Stream, KernelCost, Any, Any, tuple[Access, ...]] | None:
        """What :meth:`launch_op` works out for an op node, once."""
        if node.hook != "launch_op":
            return None
        queue, op, inputs, output, attrs = node.args
        kernel = self._kernel(op, inputs, output, attrs)
        return queue, kernel.cost, kernel.touches, kernel.label_parts, tuple(_op_accesses(inputs, output))

    def api_call(self, function: str) -> None:
        self.machine.host_spend(self.model.host.api_overhead)

    @_translated
    def launch_graph(self, nodes: Sequence[GraphNode]) -> list[Any]:
        """One launch call per device the graph runs on (the host issues a graph as one launch: CUDA 12.6 made a
        straight-line graph's launch cost independent of its node count, NVIDIA technical blog "Constant Time
        Launch for Straight-Line CUDA Graphs and Other Performance Enhancements", 2024; taken as the model's
        ``launch_overhead``, an estimate), then the nodes as enqueued by the host at once: each kernel still pays
        its own device-side launch (``cost.launch_s``)."""
        devices: dict[int, None] = {}
        for node in nodes:
            first = node.args[0]
            for queue in first if node.hook == "collective" else (first,):
                devices[queue.device.index] = None
        for device in devices:
            self.machine.use_lane(device)
            self._beyond_the_call(self.model.host.launch_overhead)
        self.machine.replaying = True
        collecting = gc.isenabled()
        gc.disable()  # a replay makes many short-lived objects and keeps no cycles: the collector's passes over the
        try:  # whole heap (a model's handles, the graph) cost a third of a 12,000-node replay
            if self.numerics:  # each op's numerics reads its arrays when it runs: the ordinary hooks build it
                return super().launch_graph(nodes)
            return self._replay(nodes)
        finally:
            self.machine.replaying = False
            if collecting:
                gc.enable()

    def _beyond_the_call(self, seconds: float) -> None:
        """Charge what an operation costs the host beyond the API call :meth:`api_call` charged already: the
        model's launch and allocation figures are the host time of the whole call."""
        self.machine.host_spend(max(seconds - self.model.host.api_overhead, 0.0))

    # memory

    @_translated
    def allocate(self, device: int, nbytes: int, memory_type: MemoryType) -> Buffer:
        self.machine.use_lane(device)
        self._beyond_the_call(self._alloc_latency[memory_type])
        dev = self.machine.devices[device]
        try:
            buffer = dev.allocate(_KINDS[memory_type], nbytes)
        except HeapFullError as e:
            raise OutOfMemoryError(f"device {device} ({self.model.display_name}) is out of memory: {e}") from None
        if self.kernel_checks and self.numerics and nbytes:  # created without data: kernels must not read it first
            buffer.unset = [(0, nbytes)]
        return buffer

    def free(self, buffer: Buffer) -> None:
        self.machine.use_lane(buffer.device)
        if buffer.kind is MemoryKind.DEVICE:
            self._beyond_the_call(self.model.memory.free_latency)
        self.machine.devices[buffer.device].release(buffer)

    @_translated
    def host_view(self, buffer: Buffer) -> np.ndarray:
        assert buffer.data is not None
        self._host_touch(buffer, 0, buffer.nbytes)
        buffer.unset = None  # the host may write any of it through the view
        return buffer.data

    def _host_touch(self, buffer: Buffer, lo: int, hi: int) -> None:
        """The host reads or writes ``[lo, hi)``: UNIFIED/MANAGED data on the device migrates back first."""
        if buffer.residency is not None:
            self.machine.host_time += migrate(self.model, buffer, lo, hi, to_device=False, on_demand=True)

    @_translated
    def prefetch(self, queue: Stream, buffer: Buffer, offset: int, nbytes: int, to_device: bool) -> None:
        self.machine.use_lane(queue.device.index)
        if buffer.residency is None:
            return
        engine = queue.device.engines["h2d" if to_device else "d2h"]
        queue.submit(Prefetch(self.model, engine, buffer, offset, offset + nbytes, to_device))

    # queues and transfers

    def create_queue(self, device: int) -> Stream:
        return self.machine.devices[device].stream()

    def name_queue(self, queue: Stream, label: str) -> None:
        queue.label = label

    def destroy_queue(self, queue: Stream) -> None:
        pass

    def _copy(
        self, queue: Stream, src: Buffer, so: int, dst: Buffer, do: int, nbytes: int, accesses: Sequence[Access]
    ) -> Command:
        cost = transfer_cost(self.model, src.kind, dst.kind, nbytes)
        return queue.submit(Copy(queue.device.engines[cost.route], cost, src, so, dst, do), accesses)

    @_translated
    def copy(self, queue: Stream, src: Buffer, src_offset: int, dst: Buffer, dst_offset: int, nbytes: int) -> None:
        self.machine.use_lane(queue.device.index)
        accesses = ((src, src_offset, src_offset + nbytes, False), (dst, dst_offset, dst_offset + nbytes, True))
        command = self._copy(queue, src, src_offset, dst, dst_offset, nbytes, accesses)
        if dst.unset is not None:
            dst.mark_written(dst_offset, dst_offset + nbytes)
        if MemoryKind.HOST in (src.kind, dst.kind):
            self.machine.wait(command)  # pageable: the host stages the data itself

    def _staging(self, device: int, nbytes: int) -> Buffer:
        return Buffer(device, MemoryKind.HOST, nbytes, None, numerics=False)

    @_translated
    def upload(self, queue: Stream, dst: Buffer, offset: int, data: np.ndarray) -> None:
        self.machine.use_lane(queue.device.index)
        self._host_touch(dst, offset, offset + data.nbytes)
        staging = self._staging(dst.device, data.nbytes)
        if self.numerics:
            staging.data = data
        accesses = ((dst, offset, offset + data.nbytes, True),)  # the staging buffer is the call's own
        if dst.unset is not None:
            dst.mark_written(offset, offset + data.nbytes)
        self.machine.wait(self._copy(queue, staging, 0, dst, offset, data.nbytes, accesses))

    @_translated
    def download(self, queue: Stream, src: Buffer, offset: int, nbytes: int) -> np.ndarray:
        self.machine.use_lane(queue.device.index)
        self._host_touch(src, offset, offset + nbytes)
        staging = self._staging(src.device, nbytes)
        if self.numerics:
            staging.data = np.empty(nbytes, np.uint8)
        self.machine.wait(self._copy(queue, src, offset, staging, 0, nbytes, ((src, offset, offset + nbytes, False),)))
        assert staging.data is not None
        return staging.data

    def _view(self, ref: TensorRef[Buffer]) -> np.ndarray:
        """The live NumPy view of a tensor's region, made once per tensor."""
        view = self._views.get(ref)
        if view is None:
            view = self._views[ref] = np.ndarray(ref.shape, ref.dtype, ref.buffer.data, ref.offset, ref.strides)
        return view

    @_translated
    def launch_op(
        self,
        queue: Stream,
        op: OpName,
        inputs: Sequence[TensorRef[Buffer]],
        output: TensorRef[Buffer],
        attrs: OpAttrs,
    ) -> Kernel:
        self.machine.use_lane(queue.device.index)
        if not self.machine.replaying:  # (inside launch_graph: the graph's launch was charged)
            self._beyond_the_call(self.model.host.launch_overhead)
        kernel = self._kernel(op, inputs, output, attrs)
        queue.submit(kernel, _op_accesses(inputs, output) if _tracked(queue) else ())
        return kernel

    def _kernel(
        self, op: OpName, inputs: Sequence[TensorRef[Buffer]], output: TensorRef[Buffer], attrs: OpAttrs
    ) -> Kernel:
        """The op's kernel: its cost (cached by shapes and attributes), its numerics, the migrations it needs."""
        spec = OPS[op]
        mapping = attrs.__dict__  # the library's kernels read a mapping: the model's fields, flat (read only)
        key = (
            op,
            output.dtype,
            output.shape,
            *[(ref.shape, ref.dtype) for ref in inputs],
            *[(k, v is None) if k in _VALUE_ATTRS else (k, v) for k, v in mapping.items()],
        )
        cost = self._costs.get(key)
        if cost is None:
            operands = [Operand(ref.shape, ref.dtype) for ref in inputs]
            cost = self._costs[key] = spec.cost(self.model, operands, Operand(output.shape, output.dtype), mapping)
        start = None
        if self.machine.numerics:
            start = self._numerics(spec, [self._view(ref) for ref in inputs], self._view(output), mapping, cost)
            if output.buffer.unset is not None:
                output.buffer.mark_written(*_extent(output)[1:])
        touches = tuple(_extent(ref) for ref in (*inputs, output) if ref.buffer.residency is not None)
        return Kernel(cost, start, touches, (op, output.shape, output.dtype))

    @staticmethod
    def _numerics(
        spec: OpSpec, arrays: list[np.ndarray], out: np.ndarray, attrs: Mapping[str, Any], cost: KernelCost
    ) -> Callable[[], Callable[[], None]]:
        """Read and compute when the kernel starts; write (rounding once to the output dtype) when it ends."""
        if cost.algorithm != "direct":
            attrs = {**attrs, "chosen": cost.algorithm}

        def start() -> Callable[[], None]:
            with np.errstate(all="ignore"):  # IEEE results (inf - inf is NaN, overflow is inf), as on hardware
                result = spec.compute(arrays, attrs, out.dtype)
            return lambda: _store(out, result)

        return start

    def explain(self, record: Kernel) -> OpReport:
        cost = record.cost
        ms = 1e3
        return OpReport(
            name=cost.name,
            algorithm=cost.algorithm,
            precision=cost.precision,
            flops=cost.flops,
            useful_flops=cost.useful_flops if cost.useful_flops >= 0 else cost.flops,
            bytes=cost.bytes,
            compute_units=cost.compute_units,
            waves=cost.waves,
            efficiency=cost.efficiency,
            compute_ms=cost.compute_s * ms,
            memory_ms=cost.memory_s * ms,
            launch_ms=cost.launch_s * ms,
            duration_ms=cost.duration_s * ms,
            bound=cost.bound,
            alternatives=[AlgorithmChoice(algorithm=a, duration_ms=d * ms) for a, d in cost.alternatives],
            started_ms=record.started * ms if record.started >= 0 else None,
            ended_ms=record.ended * ms if record.done else None,
            counts=dict(record.counts or {}),
        )

    # several devices (Level 3 and the collectives extension): the fabric of wia_sim.topology

    def peer_info(self, src: int, dst: int) -> PeerInfo:
        route = self.machine.topology.route(src, dst)
        return PeerInfo(
            src_device=src,
            dst_device=dst,
            supported=route.peer,
            path="none" if route.kind == "local" else route.kind,
            bandwidth=route.bandwidth,
            latency_ms=route.latency_s * 1e3,
            hops=route.hops,
            interface=route.interface,
        )

    @staticmethod
    def _ordered(queues: Sequence[Stream], command: Command, accesses: Sequence[Access]) -> None:
        """Submit ``command`` on ``queues[0]`` after the work so far on every queue, and make every queue's later
        work wait for it (markers and waits, which the hazard detector follows too)."""
        leader = queues[0]
        for queue in queues[1:]:
            reached = Marker()
            queue.submit(reached)
            leader.submit(Wait(reached))
        leader.submit(command, accesses)
        done = Marker()
        leader.submit(done)
        for queue in queues[1:]:
            queue.submit(Wait(done))

    def _check_links(self, pairs: Iterable[tuple[int, int]]) -> None:
        """A transfer over a link a fault broke loses the sending device (:meth:`wia_sim.faults.FaultInjector
        .check_link`): the pair's own link, or any device-to-device link its route passes through (multi-hop)."""
        injector = self.machine.injector
        if injector is not None and injector.failed_links:
            for src, dst in pairs:
                injector.check_link(src, dst, self.machine.topology.route(src, dst).device_hops)

    @_translated
    def copy_peer(self, src_queue: Stream, src: TensorRef[Buffer], dst_queue: Stream, dst: TensorRef[Buffer]) -> None:
        self.machine.use_lane(src_queue.device.index)
        self._check_links([(src_queue.device.index, dst_queue.device.index)])
        topology = self.machine.topology
        route = topology.route(src_queue.device.index, dst_queue.device.index)
        nbytes = src.nbytes
        command = PeerCopy(topology, route, src.buffer, src.offset, dst.buffer, dst.offset, nbytes)
        if dst.buffer.unset is not None:
            dst.buffer.mark_written(dst.offset, dst.offset + nbytes)
        accesses = (
            (src.buffer, src.offset, src.offset + nbytes, False),
            (dst.buffer, dst.offset, dst.offset + nbytes, True),
        )
        self._ordered([src_queue, dst_queue], command, accesses)

    @_translated
    def collective(
        self,
        queues: Sequence[Stream],
        inputs: Sequence[TensorRef[Buffer]],
        outputs: Sequence[TensorRef[Buffer]],
        attrs: CollectiveAttrs,
    ) -> Collective:
        n = len(queues)
        devices = [q.device.index for q in queues]
        self.machine.use_lane(devices[0])
        size = message_bytes(attrs.kind, n, inputs[0].nbytes)
        try:
            plan = self.machine.collectives.plan(attrs.kind, attrs.algorithm, devices, size, attrs.root)
        except ValueError as e:  # an algorithm this fabric lacks (the in-switch reduction without switch_reduction)
            raise NotSupportedError(f"{attrs.kind}: {e}") from None
        self._check_links(
            (devices[t.src], devices[t.dst])
            for step in plan.steps
            for t in step.transfers
            if t.src is not None and t.dst is not None  # not a switch's own port
        )
        start = None
        if self.numerics:
            arrays = [self._view(ref) for ref in inputs]
            outs = [self._view(ref) for ref in outputs]

            def start() -> Callable[[], None]:
                results = reductions.results(attrs.kind, arrays, attrs.op, attrs.root)

                def finish() -> None:
                    for out, result in zip(outs, results, strict=True):
                        np.copyto(out, result.reshape(out.shape))

                return finish

        command = Collective(self.machine.topology, plan, start, self.machine.collectives.routes(plan))
        for ref in outputs:
            if ref.buffer.unset is not None:
                ref.buffer.mark_written(*_extent(ref)[1:])
        accesses = [(*_extent(ref), False) for ref in inputs] + [(*_extent(ref), True) for ref in outputs]
        self._ordered(queues, command, accesses)
        return command

    def explain_collective(self, record: Collective) -> CollectiveReport:
        plan = record.plan
        # Done: its time on the simulated machine (other work may have contended); not yet: the idle prediction.
        seconds = record.ended - record.started if record.done else plan.predicted[plan.algorithm]
        algbw = plan.size / seconds if seconds > 0 else 0.0
        return CollectiveReport(
            kind=plan.kind,
            algorithm=plan.algorithm,
            devices=list(plan.devices),
            bytes=plan.size,
            time_ms=seconds * 1e3,
            algbw=algbw,
            busbw=algbw * plan.busbw_factor,
            steps=len(plan.steps),
            alternatives=[AlgorithmChoice(algorithm=a, duration_ms=t * 1e3) for a, t in plan.predicted.items()],
            started_ms=record.started * 1e3 if record.started >= 0 else None,
            ended_ms=record.ended * 1e3 if record.done else None,
        )

    # custom kernels (Level 3)

    def compile_kernel(self, device: int, source: str, name: str, options: str) -> tuple[SimKernel, KernelSignature]:
        try:
            program = kernels.compile_source(
                source, options, extensions=self.model.kernel_extensions, reuse=True, contract=self.kernel_fp_contract
            )
            info = program.runnable(name)
        except kernels.KernelCompileError as e:
            raise CompileError(f"kernel build failed:\n{e.build_log}") from None
        except kernels.KernelNotFound as e:
            raise InvalidKernelError(str(e)) from None
        except kernels.UnsupportedKernel as e:  # (the program builds; this kernel cannot run here: images)
            raise NotSupportedError(str(e)) from None
        if program.build_log:
            warn_build_log(program.build_log, self._warned)
        return (program, info), KernelSignature(info.name, tuple(_param(p) for p in info.params))

    @_translated
    def launch_kernel(
        self, queue: Stream, kernel: SimKernel, args: Sequence[KernelArg[Buffer]], ndrange: NDRange
    ) -> Kernel:
        self.machine.use_lane(queue.device.index)
        if not self.machine.replaying:  # (inside launch_graph: the graph's launch was charged)
            self._beyond_the_call(self.model.host.launch_overhead)
        program, info = kernel
        reqd = info.reqd_work_group_size
        if reqd is not None and ndrange.local_size != reqd:  # OpenCL 1.2 clEnqueueNDRangeKernel: also when none
            given = "none" if ndrange.local_size is None else str(ndrange.local_size)
            raise InvalidLaunchConfigError(
                f"kernel {info.name} was compiled with reqd_work_group_size{reqd}: a launch must give that local "
                f"size, not {given}"
            )
        geometry = _geometry(ndrange, self.model.compute.max_work_group_size)
        local_bytes = info.static_local_bytes + sum(a.nbytes for a in args if isinstance(a, LocalArg))
        if local_bytes > self.model.compute.max_local_memory_per_work_group:
            raise InvalidLaunchConfigError(
                f"kernel {info.name} needs {local_bytes} bytes of __local memory per work-group; the device allows "
                f"{int(self.model.compute.max_local_memory_per_work_group)}"
            )
        placeholder = self._custom_cost(info.name, {"work_groups": _groups(geometry)}, geometry.group_size, local_bytes)
        command = Kernel(placeholder, None)
        command.label = f"kernel {info.name}"
        writes = kernels.kernel_writes(program, info)
        command.start = self._kernel_start(command, program, info, list(args), geometry, local_bytes, writes)
        accesses = tuple(
            (a.buffer, a.offset, a.offset + a.nbytes, w)
            for a, w in zip(args, writes, strict=True)
            if isinstance(a, BufferArg)
        )
        queue.submit(command, accesses)
        return command

    def _custom_cost(self, name: str, counts: dict[str, int], group_size: int, local_bytes: int) -> KernelCost:
        """``custom_kernel_cost`` on this backend's model, kept by its arguments: a kernel launched again alike asks
        again (a few microseconds a launch, twice: before it runs and from its counts)."""
        key = ("custom kernel", name, tuple(sorted(counts.items())), group_size, local_bytes)
        cost = self._costs.get(key)
        if cost is None:
            if len(self._costs) >= 65536:  # (counts that vary with the data: a few ops' costs are worked out again)
                self._costs.clear()
            cost = self._costs[key] = custom_kernel_cost(self.model, name, counts, group_size, local_bytes)
        return cost

    def _warn_findings(self, findings: Sequence[Exception]) -> None:
        """A ``KernelFindingWarning`` for each lower-severity finding of a launch, at the user's call."""
        for finding in findings:
            try:
                warn_at_call_site(str(finding), KernelFindingWarning, self._warned)
            except KernelFindingWarning:  # warnings turned into errors (-W error): the finding's HAL error
                raise finding from None

    def _kernel_start(
        self,
        command: Kernel,
        program: Program,
        info: KernelInfo,
        args: list[KernelArg[Buffer]],
        geometry: Geometry,
        local_bytes: int,
        writes: tuple[bool, ...],
    ) -> Callable[[], Callable[[], None]]:
        """Run the kernel when it starts (on copies of the buffers it may write, so that its writes land when it
        ends; it reads the others in place) and time it from what it did."""
        numerics, checks, limit = self.numerics, self.kernel_checks, self.kernel_step_limit
        strict = self.kernel_strict

        def start() -> Callable[[], None]:
            exec_args: list[Any] = []
            written: list[tuple[np.ndarray, np.ndarray]] = []
            flagged: list[tuple[Buffer, int, np.ndarray]] = []  # initialized flags of buffers with unwritten bytes
            zeros: list[np.ndarray] = []  # timing-only buffers' stand-ins
            # A buffer the kernel may write is copied once, over the span of every argument on it, so that two
            # arguments on one buffer see each other's writes, as they would on a device, and none is lost.
            on_buffer: dict[int, list[BufferArg[Buffer]]] = {}
            for value in args:
                if isinstance(value, BufferArg):
                    on_buffer.setdefault(id(value.buffer), []).append(value)
            copies: dict[int, tuple[int, np.ndarray]] = {}
            for value, write in zip(args, writes, strict=True):
                if not isinstance(value, BufferArg) or not write or id(value.buffer) in copies:
                    continue
                data = value.buffer.data
                if data is None:  # timing-only
                    continue
                shared = on_buffer[id(value.buffer)]
                first, end = min(a.offset for a in shared), max(a.offset + a.nbytes for a in shared)
                copy = scratch.empty((end - first,), np.uint8)  # recycled: fresh memory faults page by page
                copy[:] = data[first:end]
                copies[id(value.buffer)] = (first, copy)
                written.append((data[first:end], copies[id(value.buffer)][1]))
            for value in args:
                if isinstance(value, BufferArg):
                    copied = copies.get(id(value.buffer))
                    if copied is not None:
                        first, copy = copied
                        exec_args.append(copy[value.offset - first : value.offset - first + value.nbytes])
                    else:  # timing-only: zeros to count on; or only read (kernel_writes): read it in place
                        live = _bytes_of(value) if numerics else None
                        if live is None:
                            live = np.zeros(value.nbytes, np.uint8)
                            zeros.append(live)
                        exec_args.append(live)
                    flags = value.buffer.initialized(value.offset, value.offset + value.nbytes) if checks else None
                    if flags is not None:
                        flagged.append((value.buffer, value.offset, flags))
                    if flags is not None or value.access != "read_write":
                        exec_args[-1] = GlobalBuffer(exec_args[-1], MemoryAccess(value.access).value, flags)
                elif isinstance(value, NullArg):
                    exec_args.append(None)
                elif isinstance(value, LocalArg):
                    exec_args.append(value.nbytes)
                else:
                    exec_args.append(value.value)

            def restore() -> None:  # the copies as the launch found them, to run it again (``run_kernel``)
                for live, copy in written:
                    copy[:] = live
                for stand_in in zeros:
                    stand_in[:] = 0

            try:
                result = kernels.run_kernel(
                    program,
                    info.name,
                    exec_args,
                    geometry,
                    step_limit=limit,
                    checks=checks,
                    strict=strict,
                    restore=restore,
                )
            except kernels.KernelFault as e:  # what it noted before the finding that stopped it is said too
                command.findings = list(e.earlier)
                self._warn_findings(e.earlier)
                raise
            command.findings = list(result.findings)
            self._warn_findings(result.findings)
            for buffer, offset, flags in flagged:  # what the kernel's stores initialized
                buffer.mark_flags(offset, flags)
            cost = self._custom_cost(info.name, result.counts, geometry.group_size, local_bytes)
            command.cost, command.duration = cost, cost.duration_s
            command.counts = result.counts

            printed = result.output if numerics else ""  # timing-only data is zeros: its printing would mislead

            def finish() -> None:
                for live, copy in written:
                    live[:] = copy
                written.clear()  # the copies are free for the next launch (scratch.empty)
                if printed:  # the kernel's printf output, when it completes (as a device's at its end)
                    from wia_sim.kernels.printf import write_output  # (loaded: the kernel ran)

                    write_output(printed)

            return finish

        return start

    # ordering and time

    def _hazard(self, finding: StreamHazard) -> None:
        """A stream hazard, as the submission that found it is made: raised in strict mode (nothing is enqueued),
        else warned at the user's line (once per distinct finding and line)."""
        if self.hazards == "error":
            raise StreamHazardError(str(finding)) from finding
        try:
            warn_at_call_site(str(finding), StreamHazardWarning, self._warned)
        except StreamHazardWarning as e:  # warnings turned into errors (-W error): the HAL's error, not INTERNAL
            raise StreamHazardError(str(finding)) from e

    @_translated
    def record(self, queue: Stream) -> Marker:
        self.machine.use_lane(queue.device.index)
        marker = Marker()
        queue.submit(marker)
        return marker

    @_translated
    def wait_marker(self, queue: Stream, marker: Marker) -> None:
        self.machine.use_lane(queue.device.index)
        queue.submit(Wait(marker))

    @_translated
    def synchronize(self, queue: Stream, timeout_ms: float | None) -> bool:
        self.machine.use_lane(queue.device.index)
        last = queue.last
        return last is None or self.machine.wait(last, _seconds(timeout_ms))

    @_translated
    def wait(self, marker: Marker, timeout_ms: float | None) -> bool:
        if marker.stream is not None:
            self.machine.use_lane(marker.stream.device.index)
        return self.machine.wait(marker, _seconds(timeout_ms))

    @_translated
    def query(self, marker: Marker) -> bool:
        if marker.stream is not None:
            self.machine.use_lane(marker.stream.device.index)
        self.machine.catch_up()
        self.machine.observed(marker)
        stream = marker.stream
        if stream is not None and stream.device.faults is not None:  # dropped work is done, but was lost
            stream.device.faults.check("event query")
        return marker.done

    def elapsed_ms(self, start: Marker, end: Marker) -> float:
        return (end.ended - start.ended) * 1e3

    # profiling: the machine's trace of completed commands, as activities on the host clock

    def clock_ms(self, device: int | None = None) -> float:
        if device is None:
            return self.machine.host_time * 1e3
        return self.machine.host_clock(device) * 1e3

    def set_profiling(self, device: int, enabled: bool) -> None:
        if enabled:
            self._profiled.add(device)
            if self.machine.trace is None:
                self.machine.trace = []
        else:
            self._profiled.discard(device)
            self._pending.pop(device, None)
            if not self._profiled:
                self.machine.trace = None

    def activities(self, device: int) -> list[Activity[Stream]]:
        trace = self.machine.trace
        if trace:
            self.machine.trace = []
            if len(self.machine.devices) == 1:  # one device, profiled: every command is its
                self._pending.setdefault(0, []).extend(map(_activity, trace))
            else:
                for command in trace:
                    index = command.stream.device.index if command.stream is not None else -1
                    if index in self._profiled:
                        self._pending.setdefault(index, []).append(_activity(command))
        return self._pending.pop(device, [])

    # recovery, and the fault-injection extension (docs/faults.md): wia_sim.faults does what a fault does

    def reset_device(self, device: int, queues: Sequence[Stream]) -> None:
        faults.reset(self.machine.devices[device])

    def _injector(self) -> faults.FaultInjector:
        machine = self.machine
        if machine.injector is None:
            machine.injector = faults.FaultInjector(machine)
        return machine.injector

    def inject_fault(self, fault: FaultRecord[Buffer]) -> None:
        ms = 1e-3
        self._injector().arm(
            faults.Fault(
                kind=fault.kind.value,
                device=fault.device,
                after_ops=fault.after_ops,
                at_s=None if fault.at_ms is None else fault.at_ms * ms,
                probability=fault.probability,
                seed=fault.seed,
                count=fault.count,
                buffer=fault.buffer,
                lo=fault.offset,
                hi=fault.offset + fault.nbytes,
                uncorrectable=fault.uncorrectable,
                peer=fault.peer,
                duration_s=None if fault.duration_ms is None else fault.duration_ms * ms,
            )
        )

    def clear_faults(self, device: int | None) -> None:
        self._injector().clear(device)

    def fault_stats(self, device: int) -> FaultStats:
        injector = self._injector()
        state = injector.of(device)
        peers = sorted(b if a == device else a for a, b in injector.failed_links if device in (a, b))
        return FaultStats(
            device=device,
            faults_pending=len(state.pending),
            faults_fired=state.fired,
            ecc_corrected=state.ecc_corrected,
            ecc_uncorrectable=state.ecc_uncorrectable,
            lost=state.lost is not None,
            hung=state.hang is not None,
            failed_links=peers,
        )
