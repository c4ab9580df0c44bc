"""The ``opencl`` backend: WIA-AI-011 on an OpenCL device through PyOpenCL, written against the documented
protocol only (``wia_hal/backend.py``, ``docs/backend.md``).

- One device: the one the ``device`` option names, or the preferred one (``discovery``), exposed as device 0.
- Streams are in-order ``cl.CommandQueue``s with profiling; events are markers (``clEnqueueMarkerWithWaitList``),
  a stream waiting on an event enqueues a barrier on it, and elapsed times are the markers' profiling timestamps.
  Waits with a timeout poll the marker's status with short sleeps. Oclgrind runs commands in the calling thread
  when a queue is flushed, so its queues are not flushed at enqueue: work runs when the host waits for it (a wait
  that took longer than its timeout reports the timeout), or when it polls a pending marker a second time.
- Memory: DEVICE is a ``cl.Buffer``; HOST a NumPy array (pageable); PINNED a mapped ``CL_MEM_ALLOC_HOST_PTR``
  buffer, claimed only where it was measured faster than pageable memory; UNIFIED and MANAGED fine-grain buffer
  SVM, claimed only where the device has it (OpenCL 2.0+). ``buffers`` holds the copies.
- Every built-in op runs as OpenCL kernels (``ops``, ``templates``); custom kernels are built by the driver.
- Errors: every driver failure goes through ``status`` (the one mapping of OpenCL status codes to ``ErrorCode``).

Options (``set_backend("opencl", device=...)`` or ``WIA_OPENCL_DEVICE``): ``device``, a part of
``"platform / device (kind) [vendor]"`` (``oclgrind``, ``pocl``, ``cpu``, ``gpu``) or ``P:D`` indices; without
it the preferred device that works (a GPU, an accelerator, a CPU device, then Oclgrind).
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from wia_hal.backend import (
    Backend,
    BufferArg,
    KernelArg,
    KernelParam,
    KernelSignature,
    LocalArg,
    NDRange,
    NullArg,
    ParamKind,
    TensorRef,
)
from wia_hal.backends.opencl import buffers, discovery, programs
from wia_hal.backends.opencl.handles import Buffer, CompiledKernel, Marker, Queue
from wia_hal.backends.opencl.ops import OPS, Ops
from wia_hal.backends.opencl.status import check_event_status, checked, cl, require_pyopencl
from wia_hal.enums import MemoryAccess, MemoryType
from wia_hal.errors import InvalidLaunchConfigError, NotSupportedError
from wia_hal.models import DeviceCapabilities, DeviceInfo
from wia_hal.opset import OpAttrs, OpName

_SCALARS = {
    "char": "int8",
    "uchar": "uint8",
    "short": "int16",
    "ushort": "uint16",
    "int": "int32",
    "uint": "uint32",
    "long": "int64",
    "ulong": "uint64",
    "half": "float16",
    "float": "float32",
    "double": "float64",
}
_UNSIGNED = {"unsigned char": "uchar", "unsigned short": "ushort", "unsigned int": "uint", "unsigned long": "ulong"}


def _param(kernel: Any, index: int) -> KernelParam:
    """One parameter from ``clGetKernelArgInfo`` (the program is built with ``-cl-kernel-arg-info``)."""
    info = cl.kernel_arg_info
    name = str(kernel.get_arg_info(index, info.NAME))
    type_name = str(kernel.get_arg_info(index, info.TYPE_NAME)).strip()
    space = int(kernel.get_arg_info(index, info.ADDRESS_QUALIFIER))
    qualifiers = int(kernel.get_arg_info(index, info.TYPE_QUALIFIER))
    pointer = type_name.endswith("*")
    base = type_name.rstrip("*").strip()
    base = _UNSIGNED.get(base, base)
    found = re.fullmatch(r"([a-z_]+?)(2|3|4|8|16)?", base)
    elem, width = (found[1], int(found[2] or 1)) if found else (base, 1)
    dtype = np.dtype(_SCALARS[elem]) if elem in _SCALARS else None
    spaces = {
        int(cl.kernel_arg_address_qualifier.GLOBAL): "global",
        int(cl.kernel_arg_address_qualifier.CONSTANT): "constant",
        int(cl.kernel_arg_address_qualifier.LOCAL): "local",
    }
    address = spaces.get(space, "") if pointer else ""
    kind: ParamKind = "local" if address == "local" else "buffer" if pointer else "scalar"
    const = address == "constant" or bool(qualifiers & int(cl.kernel_arg_type_qualifier.CONST))
    return KernelParam(name, kind, base, dtype, width, address, const)


class OpenCLBackend(Backend[Buffer, Queue, Marker, CompiledKernel, None]):
    name: ClassVar[str] = "opencl"
    ops: ClassVar[frozenset[OpName]] = OPS

    def __init__(self, device: str | int | None = None) -> None:
        require_pyopencl()
        self.candidate = discovery.select(device)
        self.device = self.candidate.device
        self.features = discovery.Features.of(self.device)
        self.programs = programs.for_device(self.device)
        self.context = self.programs.context
        self.allocator = buffers.Allocator(self.context, self.features, self._drain)
        self.op_library = Ops(self.context, self.device, self.features, self.programs)
        self.queues: list[Queue] = []
        self._rates: discovery.Measured | None = None
        self.deferred = self.candidate.kind == "simulator"
        """Oclgrind runs a queue's commands in the calling thread when it is flushed: commands are then left
        queued until the host waits for them (see :meth:`wait` and :meth:`query`)."""

    def _measured(self) -> discovery.Measured:
        if self._rates is None:
            self._rates = discovery.measured(self.candidate, self.context, self.features)
        return self._rates

    def _drain(self) -> None:
        for queue in self.queues:
            with checked("finish a queue"):
                queue.cl.finish()
            queue.pending.clear()

    # discovery

    def device_count(self) -> int:
        return 1

    def device_info(self, device: int) -> DeviceInfo:
        return discovery.device_info(self.candidate, self.features, self._measured(), self.name)

    def device_capabilities(self, device: int) -> DeviceCapabilities:
        return discovery.device_capabilities(self.features, self._measured())

    # memory

    def allocate(self, device: int, nbytes: int, memory_type: MemoryType) -> Buffer:
        return self.allocator.allocate(nbytes, memory_type)

    def free(self, buffer: Buffer) -> None:
        self.allocator.free(buffer)

    def host_view(self, buffer: Buffer) -> np.ndarray:
        assert buffer.host is not None, "the front end asks only for host-visible memory"
        return buffer.host

    # queues and transfers

    def create_queue(self, device: int) -> Queue:
        with checked("create a command queue"):
            properties = cl.command_queue_properties.PROFILING_ENABLE
            queue = Queue(cl.CommandQueue(self.context, properties=properties), deferred=self.deferred)
        self.queues.append(queue)
        return queue

    def destroy_queue(self, queue: Queue) -> None:
        with checked("finish a queue"):
            queue.cl.finish()
        self.queues.remove(queue)

    def copy(self, queue: Queue, src: Buffer, src_offset: int, dst: Buffer, dst_offset: int, nbytes: int) -> None:
        buffers.copy(queue, src, src_offset, dst, dst_offset, nbytes)

    def upload(self, queue: Queue, dst: Buffer, offset: int, data: np.ndarray) -> None:
        buffers.upload(queue, dst, offset, data)

    def download(self, queue: Queue, src: Buffer, offset: int, nbytes: int) -> np.ndarray:
        return buffers.download(queue, src, offset, nbytes)

    def launch_op(
        self, queue: Queue, op: OpName, inputs: Sequence[TensorRef[Buffer]], output: TensorRef[Buffer], attrs: OpAttrs
    ) -> None:
        self.op_library.launch(queue, op, inputs, output, attrs)

    # custom kernels

    def compile_kernel(
        self, device: int, source: str, name: str, options: str
    ) -> tuple[CompiledKernel, KernelSignature]:
        kernel = self.programs.user_kernel(source, name, options)
        with checked(f"query the arguments of kernel {name!r}"):
            params = tuple(_param(kernel, i) for i in range(int(kernel.num_args)))
            local = int(kernel.get_work_group_info(cl.kernel_work_group_info.LOCAL_MEM_SIZE, self.device))
        by_value = [
            k
            for k, p in enumerate(params)
            if p.kind == "scalar" and p.dtype is None and not re.fullmatch(r"image\w*_t|sampler_t|event_t", p.type_name)
        ]
        if by_value:  # structs and unions by value: their size, as the device lays them out
            sizes = self.programs.sizes_of(source, options, [params[k].type_name for k in by_value])
            sized = list(params)
            for k, size in zip(by_value, sizes, strict=True):
                sized[k] = dataclasses.replace(params[k], nbytes=size)
            params = tuple(sized)
        signature = KernelSignature(name, params)
        return CompiledKernel(kernel, signature, local), signature

    def launch_kernel(
        self, queue: Queue, kernel: CompiledKernel, args: Sequence[KernelArg[Buffer]], ndrange: NDRange
    ) -> None:
        name = kernel.signature.name
        local_bytes = kernel.local_bytes + sum(a.nbytes for a in args if isinstance(a, LocalArg))
        if local_bytes > self.features.local_memory:
            raise InvalidLaunchConfigError(
                f"kernel {name} needs {local_bytes} bytes of __local memory per work-group ({kernel.local_bytes} "
                f"its own, the rest its __local arguments); the device allows {self.features.local_memory}"
            )
        copies_back: list[tuple[Buffer, Buffer, int, int]] = []
        params = kernel.signature.params
        shared = self._overlapping(queue, name, args, params, copies_back)
        values = [
            shared[k] if k in shared else self._argument(queue, a, p, copies_back)
            for k, (a, p) in enumerate(zip(args, params, strict=True))
        ]
        dims = max([ndrange.work_dim, *(d + 1 for d in range(3) if ndrange.global_size[d] > 1)])
        local = None if ndrange.local_size is None else ndrange.local_size[:dims]
        first_ids = ndrange.global_offset[:dims] if any(ndrange.global_offset) else None
        with checked(f"launch kernel {name} on {ndrange.global_size[:dims]} x {local}"):
            kernel.kernel.set_args(*values)
            cl.enqueue_nd_range_kernel(queue.cl, kernel.kernel, ndrange.global_size[:dims], local, first_ids)
        for staged, target, offset, nbytes in copies_back:
            buffers.copy(queue, staged, 0, target, offset, nbytes)
        queue.submit()

    def _overlapping(
        self,
        queue: Queue,
        name: str,
        args: Sequence[KernelArg[Buffer]],
        params: Sequence[KernelParam],
        copies_back: list[Any],
    ) -> dict[int, Any]:
        """The arguments over overlapping bytes of one DEVICE allocation that ``_argument`` would give scratch copies
        of their own (an offset off the alignment, an access flag), by index: one scratch copy of the bytes they
        span, each a sub-buffer of it, so that what the kernel stores through one the others see, as on the
        allocation itself. Sub-buffers start at multiples of CL_DEVICE_MEM_BASE_ADDR_ALIGN: arguments the kernel
        writes whose distance is not one cannot be one memory in OpenCL 1.2 (``NOT_SUPPORTED``; separate copies
        would compute something else). Arguments only read keep their own copies: nothing can differ."""
        align = self.features.base_align
        spans: dict[int, list[tuple[int, BufferArg[Buffer]]]] = {}
        for k, arg in enumerate(args):
            if isinstance(arg, BufferArg) and arg.buffer.memory_type is MemoryType.DEVICE and arg.nbytes:
                spans.setdefault(id(arg.buffer), []).append((k, arg))
        shared: dict[int, Any] = {}
        for members in spans.values():
            for group in _overlaps(members):
                direct = all(a.access is MemoryAccess.READ_WRITE and a.offset % align == 0 for _, a in group)
                writes = [k for k, a in group if not params[k].const and a.access is not MemoryAccess.READ_ONLY]
                if direct or not writes:
                    continue
                lo = min(a.offset for _, a in group)
                hi = max(a.offset + a.nbytes for _, a in group)
                apart = [(k, a) for k, a in group if (a.offset - lo) % align]
                if apart:
                    k, a = apart[0]
                    raise NotSupportedError(
                        f"kernel {name}: arguments {_names(params, group)} overlap in one allocation, and argument "
                        f"{k} ('{params[k].name}') starts {a.offset - lo} bytes after the first, not a multiple of "
                        f"the device's base address alignment ({align} bytes): OpenCL 1.2 cannot give the kernel "
                        "these as one memory (a sub-buffer starts at such a multiple), and separate copies would "
                        "not see each other's stores"
                    )
                scratch = Buffer(
                    MemoryType.DEVICE, hi - lo, mem=cl.Buffer(self.context, cl.mem_flags.READ_WRITE, hi - lo)
                )
                buffers.copy(queue, group[0][1].buffer, lo, scratch, 0, hi - lo)
                copies_back.append((scratch, group[0][1].buffer, lo, hi - lo))
                with checked("create a sub-buffer"):
                    for k, a in group:
                        shared[k] = scratch.mem.get_sub_region(a.offset - lo, a.nbytes)
        return shared

    def _argument(self, queue: Queue, arg: KernelArg[Buffer], param: KernelParam, copies_back: list[Any]) -> Any:
        """What ``set_arg`` takes for ``arg``. A DEVICE buffer at an offset is a sub-buffer where the offset is a
        multiple of CL_DEVICE_MEM_BASE_ADDR_ALIGN, else a scratch copy (copied back after the kernel unless the
        parameter is const); an SVM buffer is a pointer into it at any offset."""
        if isinstance(arg, LocalArg):
            return cl.LocalMemory(arg.nbytes)
        if isinstance(arg, NullArg):  # a NULL buffer: clSetKernelArg takes it
            return None
        if not isinstance(arg, BufferArg):
            value = arg.value
            if value.ndim == 0:
                return value[()]
            if value.size == 3 and param.vector_width == 3:  # a 3-vector takes the space of 4
                return np.concatenate([value, value[:1]])
            return np.ascontiguousarray(value)
        buffer = arg.buffer
        if buffer.memory_type is not MemoryType.DEVICE:
            assert buffer.host is not None
            return cl.SVM(buffer.host[arg.offset : arg.offset + arg.nbytes])
        mf = cl.mem_flags
        flags = {MemoryAccess.READ_ONLY: mf.READ_ONLY, MemoryAccess.WRITE_ONLY: mf.WRITE_ONLY}.get(
            arg.access, mf.READ_WRITE
        )
        if flags == mf.READ_WRITE:
            if arg.offset == 0:
                return buffer.mem
            if arg.offset % self.features.base_align == 0:
                with checked("create a sub-buffer"):
                    return buffer.mem.get_sub_region(arg.offset, arg.nbytes)
        # A read- or write-only allocation runs on a scratch buffer created with OpenCL's flag, which the driver
        # may check (Oclgrind does; it ignores the flags of sub-buffers): the HAL allocates every DEVICE buffer
        # read-write, since the host and the ops still use it. A read-only one is not copied back.
        scratch = Buffer(MemoryType.DEVICE, arg.nbytes, mem=cl.Buffer(self.context, flags, arg.nbytes))
        buffers.copy(queue, buffer, arg.offset, scratch, 0, arg.nbytes)
        if not param.const and flags != mf.READ_ONLY:
            copies_back.append((scratch, buffer, arg.offset, arg.nbytes))
        return scratch.mem

    # ordering and time

    def record(self, queue: Queue) -> Marker:
        with checked("record a marker"):
            event = cl.enqueue_marker(queue.cl)
            queue.submit()
        return Marker(event, queue)

    def wait_marker(self, queue: Queue, marker: Marker) -> None:
        with checked("enqueue a barrier on a marker"):
            cl.enqueue_barrier(queue.cl, wait_for=[marker.event])
            queue.submit()

    def synchronize(self, queue: Queue, timeout_ms: float | None) -> bool:
        done = self.wait(self.record(queue), timeout_ms)
        if done:
            queue.pending.clear()
        return done

    def wait(self, marker: Marker, timeout_ms: float | None) -> bool:
        """Poll the marker with short sleeps until it completes or ``timeout_ms`` passes. On a deferred queue the
        device runs in this thread: the wait runs the work, and reports a timeout when that took longer."""
        doing = "wait for a marker"
        event = marker.event
        started = time.perf_counter()
        with checked(doing):
            if timeout_ms is None or marker.queue.deferred:
                event.wait()
            else:
                delay = 50e-6
                while int(event.command_execution_status) > 0:
                    left = started + timeout_ms / 1e3 - time.perf_counter()
                    if left <= 0:
                        return False
                    time.sleep(min(delay, left))
                    delay = min(2 * delay, 2e-3)
            check_event_status(int(event.command_execution_status), doing)
        return timeout_ms is None or not marker.queue.deferred or (time.perf_counter() - started) * 1e3 <= timeout_ms

    def query(self, marker: Marker) -> bool:
        """The marker's status, without blocking; on a deferred queue a second query of a pending marker lets the
        device run up to it (a host polling in a loop must see progress)."""
        with checked("query a marker"):
            status = int(marker.event.command_execution_status)
            if status > 0 and marker.queue.deferred:
                if marker.polled:
                    marker.event.wait()
                    status = int(marker.event.command_execution_status)
                marker.polled = True
        check_event_status(status, "query a marker")
        return status == int(cl.command_execution_status.COMPLETE)

    def elapsed_ms(self, start: Marker, end: Marker) -> float:
        with checked("read the markers' profiling timestamps"):
            return float(end.event.profile.end - start.event.profile.end) / 1e6

    def close(self) -> None:
        self._drain()


__all__ = ["OpenCLBackend"]


def _overlaps(members: list[tuple[int, BufferArg[Buffer]]]) -> list[list[tuple[int, BufferArg[Buffer]]]]:
    """The groups of two or more arguments (with their index) whose bytes of one allocation overlap."""
    groups: list[list[tuple[int, BufferArg[Buffer]]]] = []
    current: list[tuple[int, BufferArg[Buffer]]] = []
    end = -1
    for k, arg in sorted(members, key=lambda m: m[1].offset):
        if current and arg.offset < end:
            current.append((k, arg))
            end = max(end, arg.offset + arg.nbytes)
            continue
        if len(current) > 1:
            groups.append(current)
        current, end = [(k, arg)], arg.offset + arg.nbytes
    if len(current) > 1:
        groups.append(current)
    return groups


def _names(params: Sequence[KernelParam], group: list[tuple[int, BufferArg[Buffer]]]) -> str:
    return " and ".join(f"{k} ('{params[k].name}')" for k, _ in sorted(group, key=lambda m: m[0]))
