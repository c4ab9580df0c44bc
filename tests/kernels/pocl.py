"""Run corpus cases on a real OpenCL device through PyOpenCL (PoCL's CPU device in CI).

The first device of the first platform is used; its context and queue are created once per process, and each
(source, options) pair is built once. ``available()`` is True only when PyOpenCL imports, a device exists and a
trivial kernel builds and runs on it (PoCL built with an LLVM that does not know the host CPU fails at build
time, so "a device is listed" is not enough).
"""

from __future__ import annotations

import functools
import shlex
from typing import Any

import numpy as np

from .corpus import Buffer, BugCase, KernelCase, Launch, Local, Scalar

try:
    import pyopencl as cl
except ImportError:  # CI without the opencl extra
    cl = None

# -cl-kernel-arg-info keeps parameter names, address spaces and type names queryable (kernel_signature)
BASE_OPTIONS = ["-cl-kernel-arg-info"]

_PROBE = """
__kernel void probe(__global int* out, const int k) { out[get_global_id(0)] = (int)get_global_id(0) * k; }
"""


class _State:
    def __init__(self, context: Any, queue: Any, device: Any) -> None:
        self.context = context
        self.queue = queue
        self.device = device


@functools.cache
def _state() -> _State | str:
    """The cached context and queue, or the reason there is none."""
    if cl is None:
        return "pyopencl is not installed (pip install 'wia[opencl]')"
    try:
        platforms = cl.get_platforms()
    except Exception as exc:  # no ICD loader / no platform
        return f"no OpenCL platform: {exc}"
    devices = [d for p in platforms for d in p.get_devices()]
    if not devices:
        return "no OpenCL device"
    device = devices[0]
    try:
        context = cl.Context([device])
        queue = cl.CommandQueue(context)
        program = cl.Program(context, _PROBE).build(options=BASE_OPTIONS)
        out = np.zeros(8, np.int32)
        buf = cl.Buffer(context, cl.mem_flags.WRITE_ONLY, out.nbytes)
        program.probe(queue, (8,), None, buf, np.int32(3))
        cl.enqueue_copy(queue, out, buf)
        queue.finish()
    except Exception as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("error:")] or lines[:1]
        return f"OpenCL device {device.name!r} cannot build and run a trivial kernel: {'; '.join(errors)[:300]}"
    if not np.array_equal(out, np.arange(8) * 3):
        return f"OpenCL device {device.name!r} ran a trivial kernel wrongly: {out}"
    return _State(context, queue, device)


def available() -> bool:
    """True when PyOpenCL imports, a device is present and a trivial kernel builds and runs on it."""
    return isinstance(_state(), _State)


def unavailable_reason() -> str:
    state = _state()
    return "" if isinstance(state, _State) else state


def _require() -> _State:
    state = _state()
    if not isinstance(state, _State):
        raise RuntimeError(state)
    return state


def device_description() -> str:
    state = _require()
    d = state.device
    return f"{d.name} ({d.platform.name} {d.platform.version}; {d.opencl_c_version})"


@functools.cache
def _build(source: str, options: str) -> Any:
    state = _require()
    return cl.Program(state.context, source).build(options=BASE_OPTIONS + shlex.split(options))


def build(case: KernelCase | BugCase) -> Any:
    """The built program of a case (cached per source and options); raises with the build log on failure."""
    return _build(case.source(), case.options)


def kernel_signature(case: KernelCase | BugCase) -> list[tuple[str, str, str]]:
    """(name, address space, type name) of each parameter of the case's kernel, as the driver reports them;
    address space is one of global, constant, local, private."""
    kernel = cl.Kernel(build(case), case.kernel)
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
    case: KernelCase | BugCase, launch: Launch, *, pad_bytes: int = 0, global_offset: tuple[int, ...] | None = None
) -> dict[str, np.ndarray]:
    """Run one launch; return the final contents of the output buffers (access "out" or "inout") as new arrays of
    the arguments' shapes and dtypes. ``pad_bytes`` allocates that much (NaN/0xff-filled) room past every buffer, so
    a planted out-of-bounds access stays inside memory the device owns; what lands there is not returned."""
    state = _require()
    ctx, queue = state.context, state.queue
    kernel = cl.Kernel(build(case), case.kernel)
    mf = cl.mem_flags
    cl_args: list[Any] = []
    buffers: dict[str, Any] = {}
    for name, arg in launch.args.items():
        if isinstance(arg, Buffer):
            flags = mf.READ_ONLY if arg.access == "in" else mf.READ_WRITE
            host = np.frombuffer(arg.array.tobytes() + b"\xff" * pad_bytes, dtype=np.uint8).copy()
            buf = cl.Buffer(ctx, flags | mf.COPY_HOST_PTR, hostbuf=host)
            buffers[name] = buf
            cl_args.append(buf)
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


def run_on_opencl(case: KernelCase, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Draw a launch of ``case`` from ``rng`` and run it; the outputs by argument name."""
    return run_launch(case, case.draw(rng))
