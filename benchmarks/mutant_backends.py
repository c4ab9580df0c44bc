"""Mutant backends: the simulator backend (``wia_hal.backends.sim.SimBackend``) with one bug a vendor could ship.

Each mutant is a small subclass overriding one hook (or one op's numerics) and is registered in :data:`MUTANTS`
with a description and the requirement IDs of docs/spec/SPEC.md whose tests should catch it. ``benchmarks/mutants.py``
runs the conformance suite on each and reports which ones it kills. :func:`make` is the factory the suite's
``--backend-module`` option calls (``make(mutant="none")`` is the unmutated simulator, the control).

``scope`` says what constrains the behaviour a mutant breaks: ``spec`` (SPEC.md and its bindings, what the suite
must check) or ``docs`` (only the API's documentation, docs/ops.md and docs/numerics.md: NaN propagation and integer
wrap-around, which docs/conformance.md says the suite deliberately does not test).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import ml_dtypes
import numpy as np
from hypothesis import Phase, settings

from wia_hal.backend import KernelArg, KernelSignature, LocalArg, NDRange, ScalarArg, TensorRef
from wia_hal.backends.sim import SimBackend, SimKernel
from wia_hal.enums import MemoryType
from wia_hal.errors import CompileError, InvalidLaunchConfigError, OutOfMemoryError
from wia_hal.models import DeviceCapabilities, DeviceInfo
from wia_hal.opset import OpAttrs, OpName
from wia_sim.commands import Kernel, Marker
from wia_sim.costmodel import KernelCost, custom_kernel_cost
from wia_sim.heap import HeapFullError
from wia_sim.kernels.lanes import launch_geometry
from wia_sim.library import OpSpec
from wia_sim.library.spec import widened
from wia_sim.memory import Buffer, MemoryKind
from wia_sim.stream import Stream

HYPOTHESIS_PROFILE = "wia-mutants"
settings.register_profile(HYPOTHESIS_PROFILE, phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target))
"""Hypothesis without shrinking: whether a test fails is decided when an example fails, and shrinking it only makes
the report smaller (and a mutant's run many times longer). The runner loads this module as a pytest plugin and
selects the profile (``-p mutant_backends --hypothesis-profile wia-mutants``); the suite's own settings leave
``phases`` to the profile."""

Scope = Literal["spec", "docs"]
Compute = Callable[[Sequence[np.ndarray], Mapping[str, Any], np.dtype], np.ndarray]
MiB = 1 << 20


@dataclass(frozen=True)
class Mutant:
    name: str
    description: str
    expects: tuple[str, ...]
    """Requirement IDs whose tests should fail on this mutant (one failing test tagged with any of them kills it)."""
    backend: type[SimBackend]
    scope: Scope = "spec"


MUTANTS: dict[str, Mutant] = {}


def mutant(
    name: str, description: str, *expects: str, scope: Scope = "spec"
) -> Callable[[type[SimBackend]], type[SimBackend]]:
    """Register the decorated backend class as mutant ``name``."""

    def register(cls: type[SimBackend]) -> type[SimBackend]:
        if name in MUTANTS:
            raise ValueError(f"mutant {name!r} registered twice")
        MUTANTS[name] = Mutant(name, description, tuple(expects), cls, scope)
        return cls

    return register


def make(mutant: str = "none", hardware: str = "wia-tiny", **options: str) -> SimBackend:
    """The backend of mutant ``mutant`` on ``hardware`` (``none``: the unmutated simulator); other options go to
    ``SimBackend`` unchanged."""
    if mutant == "none":
        return SimBackend(hardware=hardware, **options)
    if mutant not in MUTANTS:
        raise ValueError(f"unknown mutant {mutant!r}; known: none, {', '.join(MUTANTS)}")
    return MUTANTS[mutant].backend(hardware=hardware, **options)


# -- helpers --------------------------------------------------------------------------------------------------------


def fit(result: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``result`` cut or zero-padded to ``shape`` (what a kernel that computed the wrong extent leaves in an output
    buffer sized for the right one; dimensions must agree in number)."""
    if result.shape == shape:
        return result
    if result.ndim != len(shape):
        flat = result.reshape(-1)
        return np.resize(flat, shape) if flat.size else np.zeros(shape, result.dtype)
    out = np.zeros(shape, result.dtype)
    common = tuple(slice(0, min(a, b)) for a, b in zip(result.shape, shape, strict=True))
    out[common] = result[common]
    return out


def truncate_to_bfloat16(x: np.ndarray) -> np.ndarray:
    """float32 values cut to bfloat16's 8-bit mantissa by dropping the low 16 bits (rounding toward zero)."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
    return bits.view(np.float32).reshape(x.shape)


@dataclass(frozen=True)
class OpCall:
    """One call of a mutated op's compute: its inputs (NumPy views), attributes (as the library reads them), the
    output's shape and dtype, and the library's own compute, which :meth:`run` calls with changed inputs or
    attributes."""

    op: str
    arrays: list[np.ndarray]
    attrs: Mapping[str, Any]
    shape: tuple[int, ...]
    dtype: np.dtype
    original: Compute

    def run(self, arrays: Sequence[np.ndarray] | None = None, **changes: Any) -> np.ndarray:
        inputs = list(self.arrays if arrays is None else arrays)
        return np.asarray(self.original(inputs, {**self.attrs, **changes}, self.dtype))


Rule = Callable[[OpCall], np.ndarray]


class OpMutant(SimBackend):
    """A backend whose built-in ops ``targets`` compute through ``rule`` instead of the library's kernel."""

    targets: ClassVar[frozenset[str]] = frozenset()
    rule: ClassVar[Rule]

    def _numerics(  # type: ignore[override]
        self,
        spec: OpSpec,
        arrays: list[np.ndarray],
        out: np.ndarray,
        attrs: Mapping[str, Any],
        cost: KernelCost,
    ) -> Callable[[], Callable[[], None]]:
        if spec.name in self.targets:
            original, name, shape, rule = spec.compute, spec.name, out.shape, type(self).rule

            def mutated(xs: Sequence[np.ndarray], at: Mapping[str, Any], dtype: np.dtype) -> np.ndarray:
                return rule(OpCall(name, list(xs), at, shape, dtype, original))

            spec = OpSpec(spec.name, spec.cost, mutated)
        return SimBackend._numerics(spec, arrays, out, attrs, cost)


def op_mutant(
    name: str, description: str, *expects: str, ops: set[str], scope: Scope = "spec"
) -> Callable[[Rule], Rule]:
    """Register the decorated rule as mutant ``name``: the simulator with ``ops`` computed by the rule."""

    def register(rule: Rule) -> Rule:
        cls = type(f"OpMutant_{name}", (OpMutant,), {"targets": frozenset(ops), "rule": staticmethod(rule)})
        mutant(name, description, *expects, scope=scope)(cls)
        return rule

    return register


# -- element-wise ops (R-3.7-01) -------------------------------------------------------------------------------------


def _is_float(a: np.ndarray) -> bool:
    return a.dtype.kind == "f" or a.dtype == np.dtype(ml_dtypes.bfloat16)


@op_mutant(
    "add_broadcast_as_tiling",
    "add reads a broadcast operand as its flat data tiled over the output ((n,1) + (1,m) goes wrong)",
    "R-3.7-01",
    ops={"add"},
)
def add_broadcast_as_tiling(c: OpCall) -> np.ndarray:
    size = int(np.prod(c.shape))
    tiled = []
    for a in c.arrays:
        if a.shape != c.shape and a.size and size:
            a = a.reshape(-1)[np.arange(size) % a.size].reshape(c.shape)
        tiled.append(a)
    return c.run(tiled)


@op_mutant(
    "sigmoid_overflows",
    "sigmoid as exp(x) / (1 + exp(x)) in the data's own type: inf / inf = NaN for large x",
    "R-3.7-01",
    ops={"sigmoid"},
)
def sigmoid_overflows(c: OpCall) -> np.ndarray:
    (x,) = c.arrays
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(x)
        return np.asarray(e / (x.dtype.type(1) + e))


@op_mutant(
    "gelu_tanh_for_erf",
    "gelu's default (erf) form is computed with the tanh approximation",
    "R-3.7-01",
    ops={"gelu"},
)
def gelu_tanh_for_erf(c: OpCall) -> np.ndarray:
    return c.run(approximate="tanh")


@op_mutant(
    "float64_in_float32",
    "claims float64 (supports_float64) but its op kernels compute float64 data in float32",
    "R-3.2.1-02",
    "R-3.7-01",
    "R-3.7-02",
    "R-3.7-04",
    ops={"add", "mul", "sum", "softmax", "sigmoid", "gelu", "matmul", "conv2d", "batch_norm", "pool2d"},
)
def float64_in_float32(c: OpCall) -> np.ndarray:
    if c.dtype != np.float64:
        return c.run()
    narrow = [a.astype(np.float32) if a.dtype == np.float64 else a for a in c.arrays]
    if c.attrs.get("arithmetic") == "float64":
        return c.run(narrow, arithmetic="float32")
    return c.run(narrow)


@op_mutant(
    "fill_writes_one",
    "the fill (memset) kernel writes 1 whatever the value: zeros() gives ones",
    "R-3.1-01",
    ops={"fill"},
)
def fill_writes_one(c: OpCall) -> np.ndarray:
    return c.run(value=1)


@op_mutant(
    "relu_nan_to_zero",
    "relu as fmax(x, 0): NaN becomes 0 (docs/ops.md: NaN stays NaN)",
    "R-3.7-01",
    "R-3.6.1-03",
    ops={"relu"},
    scope="docs",
)
def relu_nan_to_zero(c: OpCall) -> np.ndarray:
    (x,) = c.arrays
    return np.asarray(np.fmax(widened(x), 0)) if _is_float(x) else c.run()


@op_mutant(
    "int8_add_saturates",
    "int8 add saturates at -128/127 instead of wrapping (docs/ops.md: ints wrap)",
    "R-3.7-01",
    ops={"add"},
    scope="docs",
)
def int8_add_saturates(c: OpCall) -> np.ndarray:
    if c.dtype != np.int8:
        return c.run()
    a, b = (x.astype(np.int16) for x in c.arrays)
    return np.asarray(np.clip(a + b, -128, 127), dtype=np.int8)


# -- reductions (R-3.7-02) -------------------------------------------------------------------------------------------


@op_mutant(
    "sum_wrong_axis",
    "sum over one axis reduces axis - 1 instead (the output keeps its size)",
    "R-3.7-02",
    ops={"sum"},
)
def sum_wrong_axis(c: OpCall) -> np.ndarray:
    (x,) = c.arrays
    axis = tuple(c.attrs["axis"])
    if len(axis) != 1 or x.ndim < 2:
        return c.run()
    return fit(c.run(axis=((axis[0] - 1) % x.ndim,)), c.shape)


@op_mutant(
    "sum_int8_in_int8",
    "sum of int8 accumulates in int8 (wrapping at 127) and widens only the result to int32",
    "R-3.7-02",
    ops={"sum"},
)
def sum_int8_in_int8(c: OpCall) -> np.ndarray:
    (x,) = c.arrays
    if x.dtype != np.int8:
        return c.run()
    return np.asarray(np.sum(x, axis=c.attrs["axis"], keepdims=c.attrs["keepdims"], dtype=np.int8)).astype(np.int32)


@op_mutant(
    "max_ignores_nan",
    "max skips NaN (as nanmax) instead of propagating it (docs/numerics.md: NaN propagates)",
    "R-3.7-02",
    ops={"max"},
    scope="docs",
)
def max_ignores_nan(c: OpCall) -> np.ndarray:
    (x,) = c.arrays
    if not _is_float(x):
        return c.run()
    return np.asarray(np.fmax.reduce(x, axis=c.attrs["axis"], keepdims=c.attrs["keepdims"]))


@op_mutant(
    "softmax_without_max_shift",
    "softmax as exp(x) / sum(exp(x)) without subtracting the max: overflow to inf/NaN for large inputs",
    "R-3.7-02",
    ops={"softmax"},
)
def softmax_without_max_shift(c: OpCall) -> np.ndarray:
    wide = widened(c.arrays[0])
    if wide.size == 0:
        return wide
    with np.errstate(over="ignore", invalid="ignore"):
        e = np.exp(wide)
        return np.asarray(e / np.sum(e, axis=c.attrs["axis"], keepdims=True))


# -- layout (R-3.7-03) -----------------------------------------------------------------------------------------------


@op_mutant(
    "concat_flat",
    "concat appends the inputs' flat data one after another whatever the axis (right only for axis 0)",
    "R-3.7-03",
    ops={"concat"},
)
def concat_flat(c: OpCall) -> np.ndarray:
    return np.concatenate([a.reshape(-1) for a in c.arrays]).reshape(c.shape)


def _contiguous_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    strides, step = [], itemsize
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return tuple(reversed(strides))


@mutant(
    "copy_ignores_strides",
    "the copy kernel (which makes a strided view contiguous) reads its input as if it were contiguous",
    "R-3.7-03",
)
class CopyIgnoresStrides(SimBackend):
    def launch_op(
        self, queue: Stream, op: OpName, inputs: Sequence[TensorRef[Buffer]], output: TensorRef[Buffer], attrs: OpAttrs
    ) -> Kernel:
        if op == "copy":
            (x,) = inputs
            inputs = [TensorRef(x.buffer, x.offset, x.shape, _contiguous_strides(x.shape, x.dtype.itemsize), x.dtype)]
        return super().launch_op(queue, op, inputs, output, attrs)


@mutant(
    "view_offset_ignored",
    "op kernels read their inputs from the start of the buffer, ignoring the view's byte offset (slices, pool blocks)",
    "R-3.7-03",
    "R-3.5.2-02",
)
class ViewOffsetIgnored(SimBackend):
    def launch_op(
        self, queue: Stream, op: OpName, inputs: Sequence[TensorRef[Buffer]], output: TensorRef[Buffer], attrs: OpAttrs
    ) -> Kernel:
        moved = [TensorRef(x.buffer, 0, x.shape, x.strides, x.dtype) if x.offset else x for x in inputs]
        return super().launch_op(queue, op, moved, output, attrs)


# -- matmul and precisions (R-3.7-04, R-3.1-02) ----------------------------------------------------------------------


@op_mutant(
    "matmul_fp16_accumulator",
    "float16 matmul accumulates in float16 (each partial sum rounded) instead of float32",
    "R-3.7-04",
    "R-3.1-02",
    "R-3.6.1-01",
    ops={"matmul"},
)
def matmul_fp16_accumulator(c: OpCall) -> np.ndarray:
    if c.attrs["arithmetic"] != "float16":
        return c.run()
    a, b = (x.astype(np.float16) for x in c.arrays)
    a2 = a if a.ndim >= 2 else a[None, :]
    b2 = b if b.ndim >= 2 else b[:, None]
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    acc = np.zeros((*batch, a2.shape[-2], b2.shape[-1]), np.float16)
    for k in range(a2.shape[-1]):
        acc = (acc + a2[..., :, k : k + 1] * b2[..., k : k + 1, :]).astype(np.float16)
    if a.ndim == 1:
        acc = acc[..., 0, :]
    if b.ndim == 1:
        acc = acc[..., 0]
    return acc


@op_mutant(
    "matmul_batch_from_second_operand",
    "matmul sizes its batch grid from the second operand: with a broadcast batch only the first matrices are written",
    "R-3.7-04",
    ops={"matmul"},
)
def matmul_batch_from_second_operand(c: OpCall) -> np.ndarray:
    result = c.run()
    a, b = c.arrays
    if a.ndim < 2 or b.ndim < 2 or result.ndim < 3:
        return result
    flat = result.reshape(-1, *result.shape[-2:]).copy()
    flat[int(np.prod(b.shape[:-2])) :] = 0
    return flat.reshape(result.shape)


@op_mutant(
    "tf32_computed_as_bf16",
    "lists tf32 in peak_flops_by_precision but runs TF32 matmuls/convs on bfloat16 units (7-bit, not 10-bit operands)",
    "R-3.1-02",
    ops={"matmul", "conv2d"},
)
def tf32_computed_as_bf16(c: OpCall) -> np.ndarray:
    return c.run(arithmetic="bfloat16") if c.attrs["arithmetic"] == "tf32" else c.run()


@op_mutant(
    "tf32_computed_as_fp32",
    "lists tf32 in peak_flops_by_precision but runs TF32 matmuls/convs in full float32 (operands not rounded; "
    "docs/numerics.md: rounded to 10 bits)",
    "R-3.1-02",
    ops={"matmul", "conv2d"},
    scope="docs",
)
def tf32_computed_as_fp32(c: OpCall) -> np.ndarray:
    return c.run(arithmetic="float32") if c.attrs["arithmetic"] == "tf32" else c.run()


@op_mutant(
    "bf16_operands_truncated",
    "float32 operands of a bfloat16 matmul/conv are truncated to bfloat16 (docs/numerics.md: to nearest, ties to even)",
    "R-3.1-02",
    ops={"matmul", "conv2d"},
    scope="docs",
)
def bf16_operands_truncated(c: OpCall) -> np.ndarray:
    if c.attrs["arithmetic"] != "bfloat16":
        return c.run()
    return c.run([truncate_to_bfloat16(a) if a.dtype == np.float32 else a for a in c.arrays])


# -- library ops of 3.6.1 --------------------------------------------------------------------------------------------


@op_mutant("conv_ignores_dilation", "conv2d ignores dilation (reads a dense window)", "R-3.6.1-02", ops={"conv2d"})
def conv_ignores_dilation(c: OpCall) -> np.ndarray:
    return fit(c.run(dilation=(1, 1)), c.shape)


@op_mutant("conv_stride_of_first_axis", "conv2d uses the height stride for both axes", "R-3.6.1-02", ops={"conv2d"})
def conv_stride_of_first_axis(c: OpCall) -> np.ndarray:
    sh = c.attrs["stride"][0]
    return fit(c.run(stride=(sh, sh)), c.shape)


@op_mutant("conv_drops_bias", "conv2d ignores its bias input", "R-3.6.1-02", ops={"conv2d"})
def conv_drops_bias(c: OpCall) -> np.ndarray:
    return c.run(c.arrays[:2])


@op_mutant(
    "avg_pool_excludes_padding",
    "AVG pooling divides by the valid (unpadded) positions of the window instead of the whole window",
    "R-3.6.1-03",
    ops={"pool2d"},
)
def avg_pool_excludes_padding(c: OpCall) -> np.ndarray:
    result = c.run()
    if c.attrs["type"] != "AVG":
        return result
    share = c.run([np.ones_like(c.arrays[0])])  # valid positions / window size
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(result / share)


@op_mutant(
    "batch_norm_eps_zero", "batch_norm ignores eps (divides by sqrt(variance))", "R-3.6.1-03", ops={"batch_norm"}
)
def batch_norm_eps_zero(c: OpCall) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return c.run(eps=0.0)


@op_mutant("batch_norm_ignores_bias", "batch_norm leaves out the bias (shift) term", "R-3.6.1-03", ops={"batch_norm"})
def batch_norm_ignores_bias(c: OpCall) -> np.ndarray:
    x, scale, bias, mean, var = c.arrays
    return c.run([x, scale, np.zeros_like(bias), mean, var])


# -- memory and transfers (3.4, 3.5.1) -------------------------------------------------------------------------------


@mutant(
    "copy_ignores_src_offset",
    "copy reads from the start of the source buffer, ignoring src_offset (pool blocks, sub-ranges)",
    "R-3.4-03",
    "R-3.5.2-02",
)
class CopyIgnoresSrcOffset(SimBackend):
    def copy(self, queue: Stream, src: Buffer, src_offset: int, dst: Buffer, dst_offset: int, nbytes: int) -> None:
        super().copy(queue, src, 0, dst, dst_offset, nbytes)


@mutant(
    "copy_ignores_dst_offset",
    "copy writes to the start of the destination buffer, ignoring dst_offset",
    "R-3.4-03",
    "R-3.5.2-02",
)
class CopyIgnoresDstOffset(SimBackend):
    def copy(self, queue: Stream, src: Buffer, src_offset: int, dst: Buffer, dst_offset: int, nbytes: int) -> None:
        super().copy(queue, src, src_offset, dst, 0, nbytes)


@mutant(
    "pageable_copy_unordered",
    "a copy from or to pageable HOST memory goes to a separate DMA queue: it returns before the data moved and is "
    "not ordered with the stream's other work",
    "R-3.4-01",
    "R-3.4-03",
)
class PageableCopyUnordered(SimBackend):
    def copy(self, queue: Stream, src: Buffer, src_offset: int, dst: Buffer, dst_offset: int, nbytes: int) -> None:
        if MemoryKind.HOST in (src.kind, dst.kind):
            self._copy(queue.device.stream(), src, src_offset, dst, dst_offset, nbytes)
        else:
            super().copy(queue, src, src_offset, dst, dst_offset, nbytes)


@mutant(
    "free_leaks_device_memory",
    "free() of DEVICE memory never returns it to the device heap: memory leaks until allocations fail",
    "R-3.5.1-01",
    "R-3.3-07",
    "R-3.7-05",
    "R-3.9-04",
)
class FreeLeaksDeviceMemory(SimBackend):
    def free(self, buffer: Buffer) -> None:
        if buffer.kind is MemoryKind.DEVICE:
            buffer.freed = True  # marked free, but the heap keeps the bytes
            return
        super().free(buffer)


@mutant(
    "memory_size_in_mib",
    "device_info.memory_size is reported in MiB instead of bytes",
    "R-3.2-03",
    "R-3.5.1-01",
)
class MemorySizeInMib(SimBackend):
    def device_info(self, device: int) -> DeviceInfo:
        info = super().device_info(device)
        return info.model_copy(update={"memory_size": max(1, info.memory_size // MiB)})


@mutant(
    "pinned_is_pageable",
    "claims pinned memory, but PINNED allocations are ordinary pageable memory (staged, blocking, slow)",
    "R-3.5.1-03",
    "R-3.2.1-02",
)
class PinnedIsPageable(SimBackend):
    def allocate(self, device: int, nbytes: int, memory_type: MemoryType) -> Buffer:
        if memory_type is not MemoryType.PINNED:
            return super().allocate(device, nbytes, memory_type)
        try:
            return self.machine.devices[device].allocate(MemoryKind.HOST, nbytes)
        except HeapFullError as e:  # pragma: no cover - host memory has no heap
            raise OutOfMemoryError(str(e)) from None


@mutant(
    "unified_host_view_is_a_copy",
    "memory_ptr of UNIFIED memory gives a snapshot copy: host writes never reach the device",
    "R-3.5.1-04",
    "R-3.5.1-02",
    "R-3.2.1-02",
    "R-3.2.1-03",
)
class UnifiedHostViewIsACopy(SimBackend):
    def host_view(self, buffer: Buffer) -> np.ndarray:
        view = super().host_view(buffer)
        return view.copy() if buffer.kind is MemoryKind.UNIFIED else view


@mutant(
    "prefetch_drops_data",
    "prefetching MANAGED memory to the device moves the pages but not their contents (they arrive zeroed)",
    "R-3.5.1-05",
)
class PrefetchDropsData(SimBackend):
    def prefetch(self, queue: Stream, buffer: Buffer, offset: int, nbytes: int, to_device: bool) -> None:
        super().prefetch(queue, buffer, offset, nbytes, to_device)
        if to_device and buffer.data is not None and buffer.kind is MemoryKind.MANAGED:
            buffer.data[offset : offset + nbytes] = 0


# -- streams, events, synchronization (3.4, 3.4.1, 3.8) --------------------------------------------------------------


@mutant(
    "ops_not_in_stream_order",
    "each op kernel goes to whichever hardware queue is free: ops of one stream run concurrently, out of order",
    "R-3.4-01",
    "R-3.4-04",
)
class OpsNotInStreamOrder(SimBackend):
    def launch_op(
        self, queue: Stream, op: OpName, inputs: Sequence[TensorRef[Buffer]], output: TensorRef[Buffer], attrs: OpAttrs
    ) -> Kernel:
        return super().launch_op(queue.device.stream(), op, inputs, output, attrs)


@mutant(
    "wait_marker_noop",
    "stream_wait_event / stream_wait_stream do nothing: the waiting stream does not wait",
    "R-3.4.1-01",
    "R-3.4.1-02",
    "R-3.8-02",
)
class WaitMarkerNoop(SimBackend):
    def wait_marker(self, queue: Stream, marker: Marker) -> None:
        pass


@mutant(
    "synchronize_returns_early",
    "stream_synchronize returns at once, before the stream's work is done",
    "R-3.4.1-03",
    "R-3.8-01",
)
class SynchronizeReturnsEarly(SimBackend):
    def synchronize(self, queue: Stream, timeout_ms: float | None) -> bool:
        return True


@mutant(
    "event_wait_returns_early",
    "event_synchronize returns at once, before the recorded point is reached",
    "R-3.4.1-04",
    "R-3.4.1-03",
)
class EventWaitReturnsEarly(SimBackend):
    def wait(self, marker: Marker, timeout_ms: float | None) -> bool:
        return True


@mutant("query_always_true", "event_query always answers True, even while the work is pending", "R-3.4.1-04")
class QueryAlwaysTrue(SimBackend):
    def query(self, marker: Marker) -> bool:
        return True


@mutant(
    "events_on_the_host_clock",
    "events are time-stamped with the host clock when recorded (enqueued), not when the device reaches them",
    "R-3.4.1-04",
    "R-3.4-02",
    "R-3.5.1-03",
)
class EventsOnTheHostClock(SimBackend):
    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._stamps: dict[int, tuple[Marker, float]] = {}

    def record(self, queue: Stream) -> Marker:
        marker = super().record(queue)
        self._stamps[id(marker)] = (marker, self.machine.host_time)
        return marker

    def elapsed_ms(self, start: Marker, end: Marker) -> float:
        return (self._stamps[id(end)][1] - self._stamps[id(start)][1]) * 1e3


@mutant("elapsed_in_seconds", "event_elapsed_time in seconds instead of milliseconds (wrong units)", "R-3.4.1-04")
class ElapsedInSeconds(SimBackend):
    def elapsed_ms(self, start: Marker, end: Marker) -> float:
        return end.ended - start.ended


@mutant("elapsed_reversed", "event_elapsed_time(start, end) is start - end (negative)", "R-3.4.1-04")
class ElapsedReversed(SimBackend):
    def elapsed_ms(self, start: Marker, end: Marker) -> float:
        return (start.ended - end.ended) * 1e3


# -- devices (3.2) ---------------------------------------------------------------------------------------------------


@mutant(
    "device_count_off_by_one",
    "get_device_count counts one device more than the backend exposes",
    "R-3.2-01",
    "R-3.2-02",
    "R-3.2-03",
    "R-3.2.1-01",
    "R-3.3-02",
    "R-3.3-06",
)
class DeviceCountOffByOne(SimBackend):
    def device_count(self) -> int:
        return super().device_count() + 1


# -- custom kernels (3.6.2) ------------------------------------------------------------------------------------------


@mutant(
    "kernel_launch_noop",
    "claims supports_custom_kernels, but a launched kernel does nothing (completes without running)",
    "R-3.2.1-02",
    "R-3.6.2-05",
    "R-3.6.2-01",
)
class KernelLaunchNoop(SimBackend):
    def _kernel_start(
        self,
        command: Kernel,
        program: Any,
        info: Any,
        args: list[KernelArg[Buffer]],
        geometry: Any,
        local_bytes: int,
    ) -> Callable[[], Callable[[], None]]:
        return lambda: lambda: None


@mutant(
    "local_memory_unchecked",
    "launch_kernel does not check the kernel's __local memory against the device limit (no INVALID_LAUNCH_CONFIG)",
    "R-3.6.2-04",
)
class LocalMemoryUnchecked(SimBackend):
    def launch_kernel(
        self, queue: Stream, kernel: SimKernel, args: Sequence[KernelArg[Buffer]], ndrange: NDRange
    ) -> Kernel:
        self._beyond_the_call(self.model.host.launch_overhead)
        program, info = kernel
        geometry = launch_geometry(
            ndrange.global_size, ndrange.local_size, self.model.compute.max_work_group_size, ndrange.work_dim
        )
        local_bytes = info.static_local_bytes + sum(a.nbytes for a in args if isinstance(a, LocalArg))
        placeholder = custom_kernel_cost(
            self.model, info.name, {"work_groups": int(np.prod(geometry.num_groups))}, geometry.group_size, 0
        )
        command = Kernel(placeholder, None)
        command.start = self._kernel_start(command, program, info, list(args), geometry, local_bytes)
        queue.submit(command)
        return command


@mutant(
    "compile_error_swallowed",
    "compile_kernel of a bad source does not raise COMPILE_ERROR: it returns a kernel that does nothing",
    "R-3.6.2-02",
)
class CompileErrorSwallowed(SimBackend):
    def compile_kernel(self, device: int, source: str, name: str, options: str) -> tuple[SimKernel, KernelSignature]:
        try:
            return super().compile_kernel(device, source, name, options)
        except CompileError:
            return super().compile_kernel(device, f"__kernel void {name}(void) {{ }}\n", name, "")


@mutant("compile_options_ignored", "compile_kernel ignores the build options (-D definitions)", "R-3.6.2-02")
class CompileOptionsIgnored(SimBackend):
    def compile_kernel(self, device: int, source: str, name: str, options: str) -> tuple[SimKernel, KernelSignature]:
        return super().compile_kernel(device, source, name, "")


@mutant(
    "kernel_ignores_local_size",
    "launch_kernel ignores the local size asked for and picks its own work-group size",
    "R-3.6.2-04",
    "R-3.6.2-03",
    "R-3.6.2-01",
)
class KernelIgnoresLocalSize(SimBackend):
    def launch_kernel(
        self, queue: Stream, kernel: SimKernel, args: Sequence[KernelArg[Buffer]], ndrange: NDRange
    ) -> Kernel:
        return super().launch_kernel(queue, kernel, args, dataclasses.replace(ndrange, local_size=None))


REAL_WORK_GROUP = 32


@mutant(
    "work_group_size_overclaimed",
    f"claims max_work_group_size 256, but the hardware runs work-groups of at most {REAL_WORK_GROUP} work-items "
    "(larger ones fail with INVALID_LAUNCH_CONFIG)",
    "R-3.6.2-04",
    "R-3.2.1-02",
)
class WorkGroupSizeOverclaimed(SimBackend):
    def launch_kernel(
        self, queue: Stream, kernel: SimKernel, args: Sequence[KernelArg[Buffer]], ndrange: NDRange
    ) -> Kernel:
        if ndrange.local_size is not None and int(np.prod(ndrange.local_size)) > REAL_WORK_GROUP:
            raise InvalidLaunchConfigError(
                f"work-group of {int(np.prod(ndrange.local_size))} work-items; the hardware runs {REAL_WORK_GROUP}"
            )
        return super().launch_kernel(queue, kernel, args, ndrange)


@mutant(
    "shared_memory_overclaimed",
    "claims twice the __local memory per work-group (max_shared_memory) that launches really get",
    "R-3.6.2-04",
    "R-3.2.1-02",
)
class SharedMemoryOverclaimed(SimBackend):
    def device_capabilities(self, device: int) -> DeviceCapabilities:
        caps = super().device_capabilities(device)
        return caps.model_copy(update={"max_shared_memory": 2 * caps.max_shared_memory})


@mutant(
    "scalar_args_truncated",
    "floating-point scalar kernel arguments are passed as integers (truncated: 0.25 becomes 0)",
    "R-3.6.2-03",
)
class ScalarArgsTruncated(SimBackend):
    def launch_kernel(
        self, queue: Stream, kernel: SimKernel, args: Sequence[KernelArg[Buffer]], ndrange: NDRange
    ) -> Kernel:
        changed: list[KernelArg[Buffer]] = []
        for a in args:
            if isinstance(a, ScalarArg) and a.dtype.kind == "f":
                a = ScalarArg(np.trunc(a.value).astype(a.dtype), a.dtype)
            changed.append(a)
        return super().launch_kernel(queue, kernel, changed, ndrange)


_BARRIER = re.compile(r"\bbarrier\s*\([^;]*\)\s*;")


@mutant(
    "barrier_dropped",
    "the kernel compiler drops barrier() calls (work-items of a group are no longer synchronized; the simulator "
    "runs a group in lockstep, so its race check is what turns the missing barrier into a failure)",
    "R-3.6.2-01",
)
class BarrierDropped(SimBackend):
    def compile_kernel(self, device: int, source: str, name: str, options: str) -> tuple[SimKernel, KernelSignature]:
        return super().compile_kernel(device, _BARRIER.sub(";", source), name, options)


__all__ = ["HYPOTHESIS_PROFILE", "MUTANTS", "Mutant", "make"]
