"""Run corpus cases on real OpenCL devices through PyOpenCL: every usable device (PoCL's CPU device and the
Oclgrind simulator in CI), never just the first the ICD loader lists.

A device is usable when a trivial kernel builds and runs on it (PoCL built with an LLVM that does not know the
host CPU fails at build time, so "a device is listed" is not enough). Each device's context and queue are made
once per process, and each (source, options) pair is built once per device.
"""

from __future__ import annotations

import functools
import os
import shlex
from typing import Any

import numpy as np

from .corpus import Buffer, BugCase, KernelCase, Launch, Local, Null, Scalar, Span

try:
    import pyopencl as cl
except ImportError:  # CI without the opencl extra
    cl = None

# -cl-kernel-arg-info keeps parameter names, address spaces and type names queryable (kernel_signature)
BASE_OPTIONS = ["-cl-kernel-arg-info"]

_PROBE = """
__kernel void probe(__global int* out, const int k) { out[get_global_id(0)] = (int)get_global_id(0) * k; }
"""


KNOWN_LIMITS: dict[tuple[str, str], str] = {
    ("oclgrind", "uint_hash"): "Oclgrind 21.10 cannot execute llvm.fshl.i32, which rotate() lowers to",
    ("oclgrind", "scalar_bounds_denormals"): "Oclgrind 21.10 computes integer clamp/max/min with a scalar bound "
    "on vectors wrongly (garbage lanes), says isnormal() of a denormal is true and zeroes some float bitselect() "
    "results, though it reports CL_FP_DENORM",
    ("oclgrind", "duff_rows"): "Oclgrind 21.10 takes the default of `switch (count & 7)` for every count from 8 on "
    "once Clang has optimized the kernel (with -cl-opt-disable it takes the right cases)",
}
"""(device key, case name) -> why that device cannot run the case: a limitation of the implementation, not of the
case (the case passes on PoCL). Tests mark these as expected failures, strictly, so a fixed driver shows up."""


def _key(device: Any) -> str:
    """A short stable name for a device: ``oclgrind``, ``pocl``, else the platform's first word, lower-cased."""
    platform = device.platform.name.lower()
    label = f"{platform} {device.platform.version} {device.name}".lower()  # PoCL names itself in its version
    for known in ("oclgrind", "pocl"):
        if known in label:
            return known
    return (platform.split() or ["opencl"])[0]


class CLDevice:
    """One usable OpenCL device with its context and queue; programs are built once per (source, options)."""

    def __init__(self, device: Any) -> None:
        self.device = device
        self.key = _key(device)
        self.context = cl.Context([device])
        self.queue = cl.CommandQueue(self.context)
        self._programs: dict[tuple[str, str], Any] = {}

    def __repr__(self) -> str:
        return f"<CLDevice {self.key}: {self.description}>"

    @property
    def description(self) -> str:
        d = self.device
        return f"{d.name} ({d.platform.name} {d.platform.version}; {d.opencl_c_version})"

    def probe(self) -> str:
        """Why a trivial kernel does not build and run here ("" when it does)."""
        try:
            out = np.zeros(8, np.int32)
            buf = cl.Buffer(self.context, cl.mem_flags.WRITE_ONLY, out.nbytes)
            program = cl.Program(self.context, _PROBE).build(options=BASE_OPTIONS)
            program.probe(self.queue, (8,), None, buf, np.int32(3))
            cl.enqueue_copy(self.queue, out, buf)
            self.queue.finish()
        except Exception as exc:
            lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
            errors = [line for line in lines if line.startswith("error:")] or lines[:1]
            return f"cannot build and run a trivial kernel: {'; '.join(errors)[:300]}"
        if not np.array_equal(out, np.arange(8) * 3):
            return f"ran a trivial kernel wrongly: {out}"
        return ""

    def build(self, case: KernelCase | BugCase) -> Any:
        """The built program of a case (cached per source and options); raises with the build log on failure."""
        key = (case.source(), case.options)
        program = self._programs.get(key)
        if program is None:
            options = BASE_OPTIONS + shlex.split(case.options)
            program = self._programs[key] = cl.Program(self.context, key[0]).build(options=options)
        return program

    def kernel_signature(self, case: KernelCase | BugCase) -> list[tuple[str, str, str]]:
        """(name, address space, type name) of each parameter of the case's kernel, as the driver reports them;
        address space is one of global, constant, local, private."""
        kernel = cl.Kernel(self.build(case), case.kernel)
        spaces = {
            cl.kernel_arg_address_qualifier.GLOBAL: "global",
            cl.kernel_arg_address_qualifier.CONSTANT: "constant",
            cl.kernel_arg_address_qualifier.LOCAL: "local",
            cl.kernel_arg_address_qualifier.PRIVATE: "private",
        }
        info = cl.kernel_arg_info
        return [
            (
                kernel.get_arg_info(i, info.NAME),
                spaces[kernel.get_arg_info(i, info.ADDRESS_QUALIFIER)],
                kernel.get_arg_info(i, info.TYPE_NAME),
            )
            for i in range(kernel.num_args)
        ]

    def run_launch(
        self,
        case: KernelCase | BugCase,
        launch: Launch,
        *,
        pad_bytes: int = 0,
        global_offset: tuple[int, ...] | None = None,
    ) -> dict[str, np.ndarray]:
        """Run one launch; return the final contents of the output buffers (access "out" or "inout") as new arrays
        of the arguments' shapes and dtypes. ``pad_bytes`` allocates that much (NaN/0xff-filled) room past every
        buffer, so a planted out-of-bounds access stays inside memory the device owns; what lands there is not
        returned."""
        ctx, queue = self.context, self.queue
        kernel = cl.Kernel(self.build(case), case.kernel)
        mf = cl.mem_flags
        cl_args: list[Any] = []
        buffers: dict[str, Any] = {}
        for name, arg in launch.args.items():  # the buffers first: a span may come before its buffer
            if isinstance(arg, Buffer):
                flags = {"read_only": mf.READ_ONLY, "write_only": mf.WRITE_ONLY}.get(arg.memory_access, mf.READ_WRITE)
                if arg.host_data:
                    host = np.frombuffer(arg.array.tobytes() + b"\xff" * pad_bytes, dtype=np.uint8).copy()
                    buffers[name] = cl.Buffer(ctx, flags | mf.COPY_HOST_PTR, hostbuf=host)
                else:  # created without data: Oclgrind's uninitialized-value plugin tracks its bytes
                    buffers[name] = cl.Buffer(ctx, flags, arg.array.nbytes + pad_bytes)
        for name, arg in launch.args.items():
            if isinstance(arg, Buffer):
                cl_args.append(buffers[name])
            elif isinstance(arg, Span):  # a sub-buffer: the same memory
                cl_args.append(buffers[arg.of].get_sub_region(arg.offset, arg.nbytes))
            elif isinstance(arg, Null):
                cl_args.append(None)
            elif isinstance(arg, Local):
                cl_args.append(cl.LocalMemory(arg.nbytes))
            elif isinstance(arg, Scalar):
                cl_args.append(arg.numpy())
            else:  # pragma: no cover
                raise TypeError(f"{name}: unknown argument {arg!r}")
        if len(cl_args) != kernel.num_args:
            raise ValueError(f"{case.name}: {len(cl_args)} arguments given, kernel takes {kernel.num_args}")
        kernel.set_args(*cl_args)
        offset = global_offset if global_offset is not None else getattr(case, "global_offset", None)
        cl.enqueue_nd_range_kernel(queue, kernel, launch.global_size, launch.local_size, global_work_offset=offset)
        outputs: dict[str, np.ndarray] = {}
        for name, arg in launch.args.items():
            if isinstance(arg, Buffer) and arg.access in ("out", "inout"):
                out = np.empty_like(arg.array)
                cl.enqueue_copy(queue, out, buffers[name])
                outputs[name] = out
        queue.finish()
        return outputs


@functools.cache
def _survey() -> tuple[tuple[CLDevice, ...], tuple[str, ...]]:
    """Every device of every platform that builds and runs a trivial kernel, and why each other one does not.
    ``WIA_OPENCL_DEVICE`` (a substring of "platform / device", case-insensitive) keeps only the matching ones."""
    if cl is None:
        return (), ("pyopencl is not installed (pip install 'wia[opencl]')",)
    try:
        platforms = cl.get_platforms()
    except Exception as exc:  # no ICD loader / no platform
        return (), (f"no OpenCL platform: {exc}",)
    wanted = os.environ.get("WIA_OPENCL_DEVICE", "").lower()
    usable: list[CLDevice] = []
    reasons: list[str] = []
    for platform in platforms:
        for device in platform.get_devices():
            label = f"{platform.name} / {device.name}"
            if wanted and wanted not in label.lower():
                continue
            try:
                candidate = CLDevice(device)
                problem = candidate.probe()
            except Exception as exc:
                problem = f"cannot create a context: {exc}"
            if problem:
                reasons.append(f"{label}: {problem}")
            else:
                usable.append(candidate)
    if not usable and not reasons:
        reasons.append("no OpenCL device" + (f" matching WIA_OPENCL_DEVICE={wanted!r}" if wanted else ""))
    return tuple(usable), tuple(reasons)


def usable_devices() -> tuple[CLDevice, ...]:
    """The devices the corpus runs on (every usable one: PoCL and Oclgrind in CI)."""
    return _survey()[0]


def unusable_reasons() -> str:
    return "; ".join(_survey()[1])


def run_launch_hal(case: KernelCase | BugCase, launch: Launch) -> dict[str, np.ndarray]:
    """Run one launch through the public ``wia_hal`` API on the active backend (any backend that runs kernels):
    ``compile_kernel`` and a blocking ``launch_kernel`` in a new context, destroyed afterwards. Buffers are DEVICE
    memory filled from HOST staging with ``copy_async`` (the corpus's element types are wider than the HAL's
    tensor dtypes), ``__local`` arguments their byte count, scalars NumPy scalars of their type. Returns the final
    contents of the output buffers as new arrays of the arguments' shapes and dtypes; a fault of the kernel is the
    ``WiaError`` the backend raises. The HAL's ``LaunchConfig`` has no global work offset: a case that needs one
    raises ``ValueError`` (run ``dataclasses.replace(case, global_offset=None)``, whose reference follows).
    A buffer's ``memory_access`` is its allocation's ``wia.MemoryAccess``; one without ``host_data`` is allocated
    and not filled; a ``Null`` argument is ``None``."""
    import wia_hal as wia  # here: the raw PyOpenCL helpers above do not need the HAL

    if getattr(case, "global_offset", None):
        raise ValueError(f"{case.name}: the HAL's LaunchConfig has no global work offset")
    ctx = wia.create_context()
    try:
        kernel = wia.compile_kernel(ctx, case.source(), case.kernel, case.options)
        values: list[Any] = []
        buffers: dict[str, tuple[Any, Any]] = {}
        spanned = {arg.of for arg in launch.args.values() if isinstance(arg, Span)}
        for name, arg in launch.args.items():  # the buffers first: a span may come before its buffer
            if not isinstance(arg, Buffer):
                continue
            data = arg.array.reshape(-1).view(np.uint8)
            staging = wia.alloc(ctx, data.size, wia.MemoryType.HOST)
            wia.memory_ptr(staging)[:] = data
            access = wia.MemoryAccess[arg.memory_access.upper()]
            if name in spanned:  # a tensor, which a span slices (then a HAL dtype, 1-D)
                assert arg.host_data and arg.array.ndim == 1, f"{name}: a spanned buffer is 1-D, with data"
                buffers[name] = (wia.tensor(arg.array, ctx=ctx, access=access), staging)
                continue
            device = wia.alloc(ctx, data.size, access=access)
            if arg.host_data:
                wia.copy_async(staging, device, data.size)
            buffers[name] = (device, staging)
        for name, arg in launch.args.items():
            if isinstance(arg, Buffer):
                values.append(buffers[name][0])
            elif isinstance(arg, Span):
                whole = buffers[arg.of][0]
                size = whole.dtype.itemsize
                values.append(wia.slice(whole, [arg.offset // size], [(arg.offset + arg.nbytes) // size]))
            elif isinstance(arg, Null):
                values.append(None)
            elif isinstance(arg, Local):
                values.append(arg.nbytes)
            elif isinstance(arg, Scalar):
                values.append(arg.numpy())
            else:  # pragma: no cover
                raise TypeError(f"{name}: unknown argument {arg!r}")
        config = wia.LaunchConfig(global_size=launch.global_size, local_size=launch.local_size)
        wia.launch_kernel(kernel, config, *values)
        outputs = [name for name, arg in launch.args.items() if isinstance(arg, Buffer) and arg.access != "in"]
        for name in outputs:
            device, staging = buffers[name]
            if isinstance(device, wia.Tensor):
                device = device.memory
            wia.copy_async(device, staging, staging.size)
        wia.context_synchronize(ctx)
        result: dict[str, np.ndarray] = {}
        for name in outputs:
            arg = launch.args[name]
            assert isinstance(arg, Buffer)
            raw = wia.memory_ptr(buffers[name][1]).copy()
            result[name] = raw.view(arg.array.dtype).reshape(arg.array.shape)
        return result
    finally:
        wia.destroy_context(ctx)
