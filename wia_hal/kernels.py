"""SPEC 3.6.2 (Level 3): custom kernels and their launch geometry.

The HAL owns what is the same on every backend: the launch configuration in both styles and its checks against
the device's limits (``INVALID_LAUNCH_CONFIG``), argument indices, handles. Compiling and running a kernel is the
backend's (``Backend.compile_kernel`` and ``Backend.launch_kernel``); a device that does not claim
``supports_custom_kernels`` raises ``NOT_SUPPORTED`` (R-3.2.1-02).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from pydantic import Field, model_validator

from wia_hal.backend import (
    BufferArg,
    KernelArg,
    KernelParam,
    KernelSignature,
    LocalArg,
    NDRange,
    NullArg,
    ScalarArg,
)
from wia_hal.context import Context, current_context
from wia_hal.errors import (
    ErrorDetails,
    InvalidKernelError,
    InvalidLaunchConfigError,
    InvalidMemoryError,
    InvalidValueError,
    NotSupportedError,
    api,
)
from wia_hal.memory import Memory, check_memory
from wia_hal.models import WiaModel
from wia_hal.streams import Stream, stream_for
from wia_hal.tensor import NO_RECORD, Tensor, check_tensor

Dims = tuple[int, int, int]


def _dims(value: Any, least: int = 1) -> Dims | None:
    """1 to 3 sizes (Python or NumPy integers) of at least ``least`` as three dimensions (the missing ones 1, or 0
    for offsets: ``least`` 0)."""
    if value is None:
        return None
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    what = "positive" if least == 1 else "non-negative"
    try:
        if not 1 <= len(items) <= 3 or any(isinstance(v, bool) for v in items):
            raise TypeError
        sizes = tuple(operator.index(v) for v in items)
    except TypeError:
        raise ValueError(f"expected an int or 1 to 3 {what} ints, got {value!r}") from None
    if any(v < least for v in sizes):
        raise ValueError(f"expected an int or 1 to 3 {what} ints, got {value!r}")
    x, y, z = (*sizes, least, least)[:3]
    return (x, y, z)


class LaunchConfig(WiaModel):
    """R-3.6.2-04: ``LaunchConfig(global_size, local_size, shared_memory)`` (OpenCL style) or
    ``LaunchConfig(grid_dim, block_dim, shared_mem)`` (CUDA style: global = grid × block). Sizes are 1 to 3 ints;
    ``local_size`` may be omitted (the backend picks one). Use one style, not both. ``work_dim`` (what
    ``get_work_dim()`` returns) is the number of sizes given, ``global_size=(1024, 1)`` is 2-D, unless set.
    ``global_offset`` (OpenCL style, beyond the spec's binding) is OpenCL's global work offset: the first
    ``get_global_id`` of each dimension, what ``get_global_offset`` returns (``clEnqueueNDRangeKernel``'s
    ``global_work_offset``); one per dimension of ``work_dim`` at most."""

    global_size: Dims | None = None
    local_size: Dims | None = None
    shared_memory: int = Field(0, ge=0, strict=True)
    global_offset: Dims | None = None
    grid_dim: Dims | None = None
    block_dim: Dims | None = None
    shared_mem: int = Field(0, ge=0, strict=True)
    work_dim: int | None = Field(None, ge=1, le=3, strict=True)

    @model_validator(mode="before")
    @classmethod
    def _one_style(cls, data: Any) -> Any:
        if isinstance(data, dict):
            given_keys = ("global_size", "local_size", "shared_memory", "global_offset")
            opencl = [k for k in given_keys if data.get(k) not in (None, 0)]
            cuda = [k for k in ("grid_dim", "block_dim", "shared_mem") if data.get(k) not in (None, 0)]
            if opencl and cuda:
                raise ValueError(f"use the OpenCL style {opencl} or the CUDA style {cuda}, not both")
            if (not opencl and not cuda) or ("global_size" not in opencl and "grid_dim" not in cuda):
                raise ValueError("give global_size (OpenCL style) or grid_dim and block_dim (CUDA style)")
            if cuda and "block_dim" not in cuda:
                raise ValueError("the CUDA style needs block_dim with grid_dim")
            given = [data[k] for k in ("global_size", "local_size", "grid_dim", "block_dim") if data.get(k) is not None]
            if data.get("work_dim") is None:
                lengths = [len(v) if isinstance(v, (tuple, list)) else 1 for v in given]
                data = {**data, "work_dim": min(max(lengths, default=1), 3)}
            for key in ("global_size", "local_size", "grid_dim", "block_dim"):
                if key in data:
                    data = {**data, key: _dims(data[key])}
            offset = data.get("global_offset")
            if offset is not None:
                offset_dims = len(offset) if isinstance(offset, (tuple, list)) else 1
                if offset_dims > data["work_dim"]:
                    raise ValueError(
                        f"global_offset {offset!r} has {offset_dims} dimensions; the launch has {data['work_dim']} "
                        "(work_dim)"
                    )
                data = {**data, "global_offset": _dims(offset, least=0)}
        return data

    @property
    def global_dims(self) -> Dims:
        if self.grid_dim is not None and self.block_dim is not None:
            return (
                self.grid_dim[0] * self.block_dim[0],
                self.grid_dim[1] * self.block_dim[1],
                self.grid_dim[2] * self.block_dim[2],
            )
        assert self.global_size is not None
        return self.global_size

    @property
    def offset_dims(self) -> Dims:
        return self.global_offset or (0, 0, 0)

    @property
    def local_dims(self) -> Dims | None:
        return self.block_dim if self.block_dim is not None else self.local_size

    @property
    def shared_bytes(self) -> int:
        return self.shared_mem or self.shared_memory


class Kernel:
    """A compiled kernel of a context (R-3.6.2-02). Create with :func:`compile_kernel`.

    ``signature`` is what the backend learned of its parameters; ``args`` holds each argument as the user gave it,
    checked when set and turned into the backend's record at every launch (memory freed since is
    ``INVALID_MEMORY`` then)."""

    __slots__ = ("args", "context", "destroyed", "handle", "last_launch", "name", "signature")

    def __init__(self, context: Context, handle: object, signature: KernelSignature) -> None:
        self.context = context
        self.handle = handle
        self.name = signature.name
        self.signature = signature
        self.args: dict[int, object] = {}
        self.last_launch: object = None
        self.destroyed = False

    @property
    def num_args(self) -> int:
        return len(self.signature.params)

    def __repr__(self) -> str:
        return f"<wia.Kernel {self.name}{' destroyed' if self.destroyed else ''}>"

    def _record_error(self, details: ErrorDetails) -> None:
        self.context.last_error = details


def _claims_kernels(ctx: Context) -> None:
    if not ctx.device.capabilities.supports_custom_kernels:
        raise NotSupportedError(
            f"{ctx.device.info.name} on the {ctx.backend.name!r} backend does not run custom kernels "
            "(supports_custom_kernels is False)"
        )


def check_kernel(kernel: object) -> Kernel:
    if not isinstance(kernel, Kernel):
        raise InvalidKernelError(f"expected a wia Kernel (from compile_kernel), got {type(kernel).__name__}")
    if kernel.destroyed:
        raise InvalidKernelError(f"{kernel!r} was destroyed")
    kernel.context.check()
    return kernel


def check_launch(ctx: Context, config: object) -> LaunchConfig:
    """The geometry the device can run (R-3.6.2-04), or ``INVALID_LAUNCH_CONFIG``."""
    if not isinstance(config, LaunchConfig):
        raise InvalidValueError(f"expected a LaunchConfig, got {type(config).__name__}")
    caps = ctx.device.capabilities
    local = config.local_dims
    if local is not None:
        items = math.prod(local)
        if items > caps.max_work_group_size:
            raise InvalidLaunchConfigError(
                f"a work-group of {local} has {items} work-items; the device allows {caps.max_work_group_size}"
            )
        if config.local_size is not None and any(g % size for g, size in zip(config.global_dims, local, strict=True)):
            raise InvalidLaunchConfigError(
                f"global size {config.global_dims} is not a multiple of local size {local} (OpenCL 1.2 rule)"
            )
    if config.shared_bytes > caps.max_shared_memory:
        raise InvalidLaunchConfigError(
            f"{config.shared_bytes} bytes of shared memory requested; the device allows {caps.max_shared_memory} "
            "per work-group"
        )
    return config


def _buffer_arg(kernel: Kernel, index: int, param: KernelParam, value: object) -> BufferArg[object] | NullArg:
    """A ``Memory`` or contiguous ``Tensor`` that is live, of the kernel's context and device-visible (R-3.5.1-06:
    freed and foreign memory are ``INVALID_MEMORY``), or ``None`` (a NULL pointer)."""
    where = f"argument {index} ('{param.name}') of {kernel.name}"
    ctx = kernel.context
    if value is None:  # NULL, as clSetKernelArg allows for a buffer argument
        return NullArg()
    if isinstance(value, Memory):
        mem = check_memory(value, ctx)
        offset, nbytes = mem.offset, mem.size
    elif isinstance(value, Tensor):
        mem = check_tensor(value, ctx).memory
        if not value.is_contiguous:
            raise InvalidValueError(f"{where}: a kernel needs a contiguous tensor, got a strided view {value.shape}")
        offset, nbytes = value.offset, value.nbytes
    else:
        raise InvalidValueError(
            f"{where} is a __{param.address_space} {param.type_name} buffer: pass a Memory, a Tensor or None, got "
            f"{type(value).__name__}"
        )
    if not mem.type.device_visible:
        raise InvalidMemoryError(
            f"{where}: {mem.type.name} memory is not visible to the device; kernels take DEVICE, UNIFIED or MANAGED "
            "memory (copy HOST or PINNED data there first)"
        )
    return BufferArg(mem.buffer, offset, nbytes, mem.access)


def _scalar_arg(kernel: Kernel, index: int, param: KernelParam, value: object) -> ScalarArg:
    """A number (or, for a vector parameter, a number for every lane or a sequence of ``vector_width``; for a
    ``float2`` or ``double2``, a complex number too) converted to the parameter's type; an integer out of the type's
    range, a fraction for an integer or a complex number elsewhere is ``INVALID_VALUE``."""
    if param.nbytes is not None or (param.dtype is None and isinstance(value, (np.void, np.ndarray, bytes, bytearray))):
        return _struct_arg(kernel, index, param, value)
    where = f"argument {index} ('{param.name}') of {kernel.name} is a {param.type_name} scalar"
    dtype = param.dtype
    if dtype is None:
        raise InvalidValueError(f"{where} of a type the backend cannot pass from the host")
    if param.vector_width > 1 and _structured(value):  # (PyOpenCL's cltypes.float4: a record of its components)
        value = _components(where, np.asarray(value), dtype, param.vector_width)
    items = list(value) if isinstance(value, (list, tuple, np.ndarray)) and param.vector_width > 1 else [value]
    if isinstance(value, (complex, np.complexfloating)) and param.vector_width == 2 and dtype.kind == "f":
        items = [value.real, value.imag]  # (a complex number is its two parts: float2 or double2, as PyOpenCL's)
    if len(items) not in (1, param.vector_width):
        raise InvalidValueError(f"{where}: give one number or {param.vector_width}, got {len(items)}")
    for item in items:
        if isinstance(item, (Memory, Tensor)) or not isinstance(item, (int, float, np.number, bool, np.bool_)):
            raise InvalidValueError(f"{where}: got {type(item).__name__}")
        if isinstance(item, (complex, np.complexfloating)):  # (NumPy would drop its imaginary part)
            raise InvalidValueError(
                f"{where}: got the complex number {item!r}; a complex is passed to a float2 or double2 (its real "
                "and imaginary parts)"
            )
        if dtype.kind in "iu":
            if isinstance(item, (float, np.floating)):
                raise InvalidValueError(f"{where}: got the fraction {item!r}; pass an int")
            info = np.iinfo(dtype)
            if not info.min <= int(item) <= info.max:
                raise InvalidValueError(f"{where}: {item!r} is outside [{info.min}, {info.max}]")
    array = np.asarray(items, dtype=dtype)
    if param.vector_width > 1:
        return ScalarArg(np.broadcast_to(array, (param.vector_width,)).copy(), dtype)
    return ScalarArg(array.reshape(()), dtype)


def _structured(value: object) -> bool:
    """A NumPy structured scalar (``np.void``) or 0-d structured array."""
    return isinstance(value, np.void) or (isinstance(value, np.ndarray) and value.ndim == 0 and bool(value.dtype.names))


def _components(where: str, record: np.ndarray, dtype: np.dtype, width: int) -> list[object]:
    """The components of a vector given as a record of them, each field of the vector's element type (a 3-vector's
    record may have a fourth, as ``cl_float3`` has): its fields in order."""
    names = record.dtype.names or ()
    types = {record.dtype.fields[name][0] for name in names} if record.dtype.fields else set()
    if types != {dtype} or len(names) not in (width, 4 if width == 3 else width):
        raise InvalidValueError(
            f"{where}: a record for it has {width} fields of {dtype.name} (PyOpenCL's cltypes), got {record.dtype}"
        )
    return [record[name].item() for name in names[:width]]


def _struct_arg(kernel: Kernel, index: int, param: KernelParam, value: object) -> ScalarArg:
    """A struct or union by value, or a value of a type the backend cannot name (a ``typedef float real;``, which
    kernel argument info spells ``real``): a NumPy structured scalar (``np.void``), a 0-d structured array, a NumPy
    scalar or array of that type's bytes, or ``bytes``, of exactly its size in the kernel (``nbytes``; a backend
    that cannot tell leaves it to the device)."""
    where = f"argument {index} ('{param.name}') of {kernel.name} is a {param.type_name} by value"
    if isinstance(value, np.void) or (isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.names):
        raw = np.frombuffer(np.asarray(value).tobytes(), np.uint8)
    elif isinstance(value, np.number | np.bool_) or (isinstance(value, np.ndarray) and value.dtype.kind in "biuf"):
        raw = np.frombuffer(np.ascontiguousarray(value).tobytes(), np.uint8)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        raw = np.frombuffer(bytes(value), np.uint8)
    else:
        raise InvalidValueError(
            f"{where}: pass a NumPy scalar or array of its bytes (np.float32(x) for a typedef of float), a NumPy "
            f"structured scalar (np.void), a 0-d structured array or bytes, got {type(value).__name__}"
        )
    if param.nbytes is not None and raw.size != param.nbytes:
        raise InvalidValueError(f"{where}: it takes {param.nbytes} bytes (sizeof in the kernel), got {raw.size}")
    return ScalarArg(raw.copy(), np.dtype(np.uint8))


def _argument(kernel: Kernel, index: int, value: object) -> KernelArg[object]:
    """The record the backend receives for ``value`` as argument ``index``, checked against its parameter."""
    param = kernel.signature.params[index]
    if param.kind == "buffer":
        return _buffer_arg(kernel, index, param, value)
    if param.kind == "local":
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
            raise InvalidValueError(
                f"argument {index} ('{param.name}') of {kernel.name} is __local memory: pass its size in bytes, "
                f"got {value!r}"
            )
        return LocalArg(int(value))
    return _scalar_arg(kernel, index, param, value)


@api
def compile_kernel(ctx: Context | None, source: str, name: str, options: str = "") -> Kernel:
    """R-3.6.2-02: build ``name`` from WIA kernel language ``source`` (``options``: ``-D`` definitions)."""
    context = current_context(ctx)
    for what, value in (("source", source), ("name", name), ("options", options)):
        if not isinstance(value, str):
            raise InvalidValueError(f"compile_kernel: {what} must be a str, got {type(value).__name__}")
    _claims_kernels(context)
    handle, signature = context.backend.compile_kernel(context.device.index, source, name, options)
    return Kernel(context, handle, signature)


@api
def set_kernel_arg(kernel: Kernel, index: int, value: Any) -> None:
    """R-3.6.2-03: argument ``index`` is a buffer (``Memory``), a tensor or a scalar; ``None`` for a buffer
    parameter is a NULL pointer, which the kernel must not dereference."""
    kernel = check_kernel(kernel)
    _checked_argument(kernel, index, value)  # checked now, so a bad argument is refused where it is set
    kernel.args[index] = value


def _checked_argument(kernel: Kernel, index: object, value: object) -> KernelArg[object]:
    """``set_kernel_arg``'s checks of ``index`` and ``value``: the record the backend receives."""
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < kernel.num_args:
        raise InvalidValueError(
            f"set_kernel_arg: {kernel.name} takes arguments 0 to {kernel.num_args - 1}, got {index!r}"
        )
    return _argument(kernel, index, value)


def _enqueue(kernel: Kernel, config: LaunchConfig, stream: Stream, given: Sequence[KernelArg[object]] = ()) -> None:
    """Launch ``kernel`` with the arguments set: the first ``len(given)`` records checked just now (the arguments
    ``launch_kernel`` was passed), the others checked again (their memory may have been freed since they were
    set)."""
    missing = [i for i in range(kernel.num_args) if i not in kernel.args]
    if missing:
        raise InvalidValueError(f"{kernel.name}: arguments {missing} are not set (set_kernel_arg)")
    args = [*given, *(_argument(kernel, index, kernel.args[index]) for index in range(len(given), kernel.num_args))]
    ndrange = NDRange(
        config.global_dims, config.local_dims, config.work_dim or 1, config.shared_bytes, config.offset_dims
    )
    for value in kernel.args.values():
        memory = value if isinstance(value, Memory) else value.memory if isinstance(value, Tensor) else None
        if memory is not None:
            memory.used_by(stream)
    launched = kernel.context.backend.launch_kernel(stream.queue, kernel.handle, args, ndrange)
    kernel.last_launch = NO_RECORD if launched is None else launched
    profiler = kernel.context.profiler
    if profiler is not None:
        profiler.on_kernel(launched, kernel.name, ndrange, args)


@api
def launch_kernel(kernel: Kernel, config: LaunchConfig, *args: Any) -> None:
    """R-3.6.2-05: set ``args`` (if given; each checked before any is set) and run the kernel, blocking until it
    is done."""
    kernel = check_kernel(kernel)
    config = check_launch(kernel.context, config)
    given = [_checked_argument(kernel, index, value) for index, value in enumerate(args)]  # (all, before any is set)
    kernel.args.update(enumerate(args))
    stream = kernel.context.default_stream
    _enqueue(kernel, config, stream, given)
    stream.synchronize()


@api
def launch_kernel_async(kernel: Kernel, config: LaunchConfig, stream: Stream | None = None) -> None:
    """R-3.6.2-05: run the kernel with the arguments set so far, in ``stream``'s order; returns at once."""
    kernel = check_kernel(kernel)
    config = check_launch(kernel.context, config)
    _enqueue(kernel, config, stream_for(kernel.context, stream))


@api
def destroy_kernel(kernel: Kernel) -> None:
    """R-3.6.2-06."""
    kernel = check_kernel(kernel)
    kernel.context.backend.release_kernel(kernel.handle)
    kernel.destroyed = True
    kernel.args.clear()
