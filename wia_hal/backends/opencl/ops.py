"""Enqueueing the built-in ops: tensors become (buffer, element offset, shape, element strides), dimensions are
coalesced where the layouts allow, and each op runs as one or a few kernels of ``templates``.

A tensor whose byte offset is not a multiple of its item size (a pool with a small block size can place one so)
cannot be addressed as typed elements: its bytes are staged through an aligned scratch buffer (copied in, and for
the output copied back), in the queue's order.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import product
from typing import Any

import numpy as np

from wia_hal.backend import TensorRef
from wia_hal.backends.opencl import buffers
from wia_hal.backends.opencl.discovery import Features
from wia_hal.backends.opencl.handles import Buffer, Queue
from wia_hal.backends.opencl.programs import Programs
from wia_hal.backends.opencl.status import checked, cl
from wia_hal.backends.opencl.templates import (
    BATCH_NORM_EXPR,
    CTYPES,
    MAX_RANK,
    RAW,
    WHERE_EXPR,
    CType,
    attention_source,
    binary_expr,
    cast_expr,
    conv2d_source,
    gather_source,
    map_source,
    matmul_source,
    norm_source,
    pool2d_source,
    prelude,
    reduce_source,
    softmax_source,
    unary_expr,
)
from wia_hal.enums import MemoryType
from wia_hal.errors import NotSupportedError
from wia_hal.opset import (
    OP_NAMES,
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

Ref = TensorRef[Buffer]
Strides = tuple[int, ...]

MAP_GROUP = 64
"""Work-items per work-group of the element-wise kernels."""


@dataclass(frozen=True)
class View:
    """A tensor as kernels address it: ``arg`` (a ``cl.Buffer`` or an SVM allocation), offset and strides in
    elements (a size-1 dimension's stride is 0)."""

    arg: Any
    offset: int
    shape: tuple[int, ...]
    strides: Strides
    dtype: np.dtype

    @property
    def ctype(self) -> CType:
        return CTYPES[self.dtype.name]

    @property
    def ndim(self) -> int:
        return len(self.shape)


def _long8(values: Sequence[int], fill: int) -> np.ndarray:
    """A ``long8`` argument (its 64 bytes: PyOpenCL passes any buffer of the parameter's size)."""
    return np.array([*values, *[fill] * (MAX_RANK - len(values))], np.int64)


def coalesce(shape: Sequence[int], strides: Sequence[Strides]) -> tuple[tuple[int, ...], list[Strides]]:
    """Drop size-1 dimensions and merge neighbours that every layout walks as one (``stride[d] == stride[d + 1] *
    shape[d + 1]``): a contiguous tensor becomes one dimension, and the kernels' index math gets shorter."""
    dims: list[tuple[int, list[int]]] = []
    for d, size in enumerate(shape):
        if size == 1:
            continue
        step = [s[d] for s in strides]
        if dims and all(p == q * size for p, q in zip(dims[-1][1], step, strict=True)):
            dims[-1] = (dims[-1][0] * size, step)
        else:
            dims.append((size, step))
    return tuple(size for size, _ in dims), [tuple(step[k] for _, step in dims) for k in range(len(strides))]


def split(shape: tuple[int, ...], strides: list[Strides]) -> Iterator[tuple[list[int], tuple[int, ...], list[Strides]]]:
    """The leading dimensions beyond :data:`MAX_RANK` as a host loop: per index, the offset of each layout and the
    inner shape and strides a kernel takes."""
    lead = len(shape) - MAX_RANK
    if lead <= 0:
        yield [0] * len(strides), shape, strides
        return
    inner = [s[lead:] for s in strides]
    for index in product(*(range(n) for n in shape[:lead])):
        yield [sum(i * st for i, st in zip(index, s[:lead], strict=True)) for s in strides], shape[lead:], inner


def _round_up(n: int, step: int) -> int:
    return -(-n // step) * step


def _group(n: int, limit: int) -> int:
    """Work-group size of a reduction over ``n`` elements: a power of two, few distinct ones (PoCL generates code
    per work-group size), within the kernel's limit."""
    size = 1 if n < 16 else 16 if n < 64 else 64 if n < 256 else 256
    while size > limit:
        size //= 2
    return max(size, 1)


class Ops:
    """The built-in ops of one device."""

    def __init__(self, context: Any, device: Any, features: Features, programs: Programs) -> None:
        self.context = context
        self.device = device
        self.features = features
        self.programs = programs
        self.prelude = prelude(features.fp64)
        self.options = ("-cl-fp32-correctly-rounded-divide-sqrt",) if features.correctly_rounded_divide else ()
        self.tile = 16 if features.max_work_group >= 256 else 8 if features.max_work_group >= 64 else 4
        self._limits: dict[int, int] = {}

    def launch(self, queue: Queue, op: OpName, inputs: Sequence[Ref], output: Ref, attrs: OpAttrs) -> None:
        if output.size == 0:
            return
        with checked(f"run {op}"):
            staged = [self._aligned(queue, ref) for ref in inputs]
            out = self._aligned(queue, output)
            views = [self._view(ref) for ref in staged]
            getattr(self, f"_{op}")(queue.cl, views, self._view(out), attrs)
            if out is not output:  # copy the staged output back, bytes between its elements included
                low, high = _span(output)
                buffers.copy(queue, out.buffer, 0, output.buffer, low, high - low)
            queue.submit()

    # -- addressing -------------------------------------------------------------------------------------------------

    def _aligned(self, queue: Queue, ref: Ref) -> Ref:
        """``ref`` itself when its offset is a multiple of its item size, else a copy of its bytes in a scratch
        DEVICE buffer (offset 0, same strides)."""
        if ref.offset % ref.dtype.itemsize == 0 or ref.size == 0:
            return ref
        low, high = _span(ref)
        scratch = Buffer(
            MemoryType.DEVICE, high - low, mem=cl.Buffer(self.context, cl.mem_flags.READ_WRITE, high - low)
        )
        buffers.copy(queue, ref.buffer, low, scratch, 0, high - low)
        return TensorRef(scratch, 0, ref.shape, ref.strides, ref.dtype)

    def _view(self, ref: Ref) -> View:
        size = ref.dtype.itemsize
        strides = []
        for n, s in zip(ref.shape, ref.strides, strict=True):
            if n > 1 and s % size:
                raise NotSupportedError(f"a tensor with stride {s} bytes for {ref.dtype.name} elements of {size}")
            strides.append(s // size if n > 1 else 0)
        return View(ref.buffer.mem, ref.offset // size, ref.shape, tuple(strides), ref.dtype)

    def _kernel(self, source: str, name: str) -> tuple[Any, int]:
        """The kernel and the largest work-group it can run with."""
        kernel = self.programs.kernel(self.prelude + source, name, self.options)
        limit = self._limits.get(id(kernel))
        if limit is None:
            limit = int(kernel.get_work_group_info(cl.kernel_work_group_info.WORK_GROUP_SIZE, self.device))
            self._limits[id(kernel)] = limit
        return kernel, limit

    def _run(
        self, q: Any, kernel: Any, args: Sequence[Any], global_size: tuple[int, ...], local: tuple[int, ...]
    ) -> None:
        kernel.set_args(*args)
        cl.enqueue_nd_range_kernel(q, kernel, global_size, local)

    # -- map: fill, copy, the element-wise ops, cast, batch_norm ------------------------------------------------

    def _map(
        self,
        q: Any,
        name: str,
        out: View,
        ins: Sequence[View],
        expr: str,
        types: tuple[CType, Sequence[CType]],
        scalars: Sequence[tuple[str, str, Any]] = (),
    ) -> None:
        """``out = expr(ins...)`` element by element; inputs broadcast to the output's shape (NumPy's rules:
        aligned on the right, size-1 and missing dimensions stride 0)."""
        out_type, in_types = types
        source = map_source(name, out_type, in_types, expr, [(t, n) for t, n, _ in scalars])
        kernel, limit = self._kernel(source, name)
        layouts = [out.strides] + [_broadcast(v, out.shape) for v in ins]
        shape, strides = coalesce(out.shape, layouts)
        local = min(MAP_GROUP, limit)
        for deltas, inner, steps in split(shape, strides):
            n = math.prod(inner)
            args: list[Any] = [out.arg, np.int64(out.offset + deltas[0])]
            for k, v in enumerate(ins):
                args += [v.arg, np.int64(v.offset + deltas[k + 1])]
            args += [np.int64(n), np.int32(len(inner)), _long8(inner, 1)]
            args += [_long8(s, 0) for s in steps]
            args += [value for _, _, value in scalars]
            self._run(q, kernel, args, (_round_up(n, local),), (local,))

    def _fill(self, q: Any, ins: list[View], out: View, attrs: FillAttrs) -> None:
        raw = RAW[out.dtype.itemsize]
        with np.errstate(all="ignore"):  # NumPy's conversion, as the reference backend's (np.copyto, unsafe)
            bits = np.asarray(attrs.value).astype(out.dtype).reshape(1).view(f"u{out.dtype.itemsize}")[0]
        self._map(q, "fill", out, [], "value", (raw, []), [(raw.storage, "value", bits)])

    def _copy(self, q: Any, ins: list[View], out: View, attrs: OpAttrs) -> None:
        raw = RAW[out.dtype.itemsize]
        self._map(q, "copy", out, ins, "x0", (raw, [raw]))

    def _binary(self, q: Any, op: str, ins: list[View], out: View, attrs: BinaryAttrs) -> None:
        """Two inputs, or one and the scalar (a kernel argument in the inputs' compute type)."""
        t = ins[0].ctype
        scalars: list[tuple[str, str, Any]] = []
        a, b = "x0", "x1"
        if attrs.scalar is not None:
            scalars = [(t.compute, "s", _scalar(t, attrs.scalar))]
            a, b = ("s", "x0") if attrs.scalar_first else ("x0", "s")
        self._map(q, f"{op}_map", out, ins, binary_expr(op, t, a, b), (out.ctype, [v.ctype for v in ins]), scalars)

    def _add(self, q: Any, ins: list[View], out: View, attrs: BinaryAttrs) -> None:
        self._binary(q, "add", ins, out, attrs)

    def _mul(self, q: Any, ins: list[View], out: View, attrs: BinaryAttrs) -> None:
        self._binary(q, "mul", ins, out, attrs)

    def _sub(self, q: Any, ins: list[View], out: View, attrs: BinaryAttrs) -> None:
        self._binary(q, "sub", ins, out, attrs)

    def _div(self, q: Any, ins: list[View], out: View, attrs: BinaryAttrs) -> None:
        self._binary(q, "div", ins, out, attrs)

    def _maximum(self, q: Any, ins: list[View], out: View, attrs: BinaryAttrs) -> None:
        self._binary(q, "maximum", ins, out, attrs)

    def _minimum(self, q: Any, ins: list[View], out: View, attrs: BinaryAttrs) -> None:
        self._binary(q, "minimum", ins, out, attrs)

    def _equal(self, q: Any, ins: list[View], out: View, attrs: BinaryAttrs) -> None:
        self._binary(q, "equal", ins, out, attrs)

    def _not_equal(self, q: Any, ins: list[View], out: View, attrs: BinaryAttrs) -> None:
        self._binary(q, "not_equal", ins, out, attrs)

    def _less(self, q: Any, ins: list[View], out: View, attrs: BinaryAttrs) -> None:
        self._binary(q, "less", ins, out, attrs)

    def _less_equal(self, q: Any, ins: list[View], out: View, attrs: BinaryAttrs) -> None:
        self._binary(q, "less_equal", ins, out, attrs)

    def _greater(self, q: Any, ins: list[View], out: View, attrs: BinaryAttrs) -> None:
        self._binary(q, "greater", ins, out, attrs)

    def _greater_equal(self, q: Any, ins: list[View], out: View, attrs: BinaryAttrs) -> None:
        self._binary(q, "greater_equal", ins, out, attrs)

    def _where(self, q: Any, ins: list[View], out: View, attrs: WhereAttrs) -> None:
        t = out.ctype
        scalars: list[tuple[str, str, Any]] = []
        choices = iter(f"x{k}" for k in range(1, len(ins)))
        picked = []
        for name, value in (("xs", attrs.x_scalar), ("ys", attrs.y_scalar)):
            if value is None:
                picked.append(next(choices))
            else:
                picked.append(name)
                scalars.append((t.compute, name, _scalar(t, value)))
        expr = WHERE_EXPR.format(x=picked[0], y=picked[1])
        self._map(q, "where_map", out, ins, expr, (t, [v.ctype for v in ins]), scalars)

    def _math(self, q: Any, op: str, ins: list[View], out: View) -> None:
        self._map(q, f"{op}_map", out, ins, unary_expr(op, out.ctype), (out.ctype, [out.ctype]))

    def _neg(self, q: Any, ins: list[View], out: View, attrs: OpAttrs) -> None:
        self._math(q, "neg", ins, out)

    def _abs(self, q: Any, ins: list[View], out: View, attrs: OpAttrs) -> None:
        self._math(q, "abs", ins, out)

    def _exp(self, q: Any, ins: list[View], out: View, attrs: OpAttrs) -> None:
        self._math(q, "exp", ins, out)

    def _log(self, q: Any, ins: list[View], out: View, attrs: OpAttrs) -> None:
        self._math(q, "log", ins, out)

    def _sqrt(self, q: Any, ins: list[View], out: View, attrs: OpAttrs) -> None:
        self._math(q, "sqrt", ins, out)

    def _rsqrt(self, q: Any, ins: list[View], out: View, attrs: OpAttrs) -> None:
        self._math(q, "rsqrt", ins, out)

    def _tanh(self, q: Any, ins: list[View], out: View, attrs: OpAttrs) -> None:
        self._math(q, "tanh", ins, out)

    def _silu(self, q: Any, ins: list[View], out: View, attrs: OpAttrs) -> None:
        self._math(q, "silu", ins, out)

    def _cast(self, q: Any, ins: list[View], out: View, attrs: OpAttrs) -> None:
        src = ins[0].ctype
        self._map(q, "cast_map", out, ins, cast_expr(src, out.ctype), (out.ctype, [src]))

    def _relu(self, q: Any, ins: list[View], out: View, attrs: OpAttrs) -> None:
        self._map(q, "relu", out, ins, unary_expr("relu", out.ctype), (out.ctype, [out.ctype]))

    def _sigmoid(self, q: Any, ins: list[View], out: View, attrs: OpAttrs) -> None:
        self._map(q, "sigmoid", out, ins, unary_expr("sigmoid", out.ctype), (out.ctype, [out.ctype]))

    def _gelu(self, q: Any, ins: list[View], out: View, attrs: GeluAttrs) -> None:
        expr = unary_expr("gelu", out.ctype, attrs.approximate)
        self._map(q, "gelu", out, ins, expr, (out.ctype, [out.ctype]))

    def _batch_norm(self, q: Any, ins: list[View], out: View, attrs: BatchNormAttrs) -> None:
        x, params = ins[0], ins[1:]
        channels = [
            View(p.arg, p.offset, x.shape, tuple(p.strides[0] if d == 1 else 0 for d in range(x.ndim)), p.dtype)
            for p in params
        ]
        t = out.ctype
        eps = np.float64(attrs.eps) if t.compute == "double" else np.float32(attrs.eps)
        self._map(q, "batch_norm", out, [x, *channels], BATCH_NORM_EXPR, (t, [t] * 5), [(t.compute, "eps", eps)])

    # -- reductions ---------------------------------------------------------------------------------------------

    def _reduce(self, q: Any, op: str, x: View, out: View, attrs: ReduceAttrs) -> None:
        axes = sorted(attrs.axis)
        kept = [d for d in range(x.ndim) if d not in axes]
        out_steps = tuple(out.strides[d] for d in kept) if attrs.keepdims else out.strides
        rshape, (rst_x,) = coalesce([x.shape[d] for d in axes], [tuple(x.strides[d] for d in axes)])
        if len(rshape) > MAX_RANK:  # too many to index: reduce a copy with the reduced dimensions last, contiguous
            order = kept + axes
            x = self._contiguous(q, View(x.arg, x.offset, *_permuted(x, order), x.dtype))
            kept, axes = list(range(len(kept))), list(range(len(kept), x.ndim))
            rshape, (rst_x,) = coalesce([x.shape[d] for d in axes], [tuple(x.strides[d] for d in axes)])
        oshape, (ost_out, ost_x) = coalesce([x.shape[d] for d in kept], [out_steps, tuple(x.strides[d] for d in kept)])
        kernel, limit = self._kernel(reduce_source(op, x.ctype, out.ctype), f"{op}_reduce")
        k = math.prod(rshape)
        size = _group(k, limit)
        scratch = cl.LocalMemory(size * 8)
        for (do, dx), inner, (so, sx) in split(oshape, [ost_out, ost_x]):
            args = [out.arg, np.int64(out.offset + do), x.arg, np.int64(x.offset + dx)]
            args += [np.int32(len(inner)), _long8(inner, 1), _long8(so, 0), _long8(sx, 0)]
            args += [np.int64(k), np.int32(len(rshape)), _long8(rshape, 1), _long8(rst_x, 0), scratch]
            self._run(q, kernel, args, (math.prod(inner) * size,), (size,))

    def _contiguous(self, q: Any, v: View) -> View:
        """A row-major copy of ``v`` in a scratch buffer (released when the queue no longer needs it)."""
        size = math.prod(v.shape)
        scratch = cl.Buffer(self.context, cl.mem_flags.READ_WRITE, max(size, 1) * v.dtype.itemsize)
        strides = [0] * v.ndim
        step = 1
        for d in reversed(range(v.ndim)):
            strides[d] = step if v.shape[d] > 1 else 0
            step *= v.shape[d]
        copy = View(scratch, 0, v.shape, tuple(strides), v.dtype)
        self._copy(q, [v], copy, OpAttrs())
        return copy

    def _sum(self, q: Any, ins: list[View], out: View, attrs: ReduceAttrs) -> None:
        self._reduce(q, "sum", ins[0], out, attrs)

    def _max(self, q: Any, ins: list[View], out: View, attrs: ReduceAttrs) -> None:
        self._reduce(q, "max", ins[0], out, attrs)

    def _softmax(self, q: Any, ins: list[View], out: View, attrs: AxisAttrs) -> None:
        x, axis = ins[0], attrs.axis
        kept = [d for d in range(x.ndim) if d != axis]
        oshape, (ost_out, ost_x) = coalesce(
            [x.shape[d] for d in kept], [tuple(out.strides[d] for d in kept), tuple(x.strides[d] for d in kept)]
        )
        kernel, limit = self._kernel(softmax_source(x.ctype), "softmax")
        k = x.shape[axis]
        size = _group(k, limit)
        scratch = cl.LocalMemory(size * 8)
        for (do, dx), inner, (so, sx) in split(oshape, [ost_out, ost_x]):
            args = [out.arg, np.int64(out.offset + do), x.arg, np.int64(x.offset + dx)]
            args += [np.int32(len(inner)), _long8(inner, 1), _long8(so, 0), _long8(sx, 0)]
            args += [np.int64(k), np.int64(out.strides[axis]), np.int64(x.strides[axis]), scratch]
            self._run(q, kernel, args, (math.prod(inner) * size,), (size,))

    # -- normalization and gather (docs/ops.md "Beyond the spec") --------------------------------------------

    def _norm(self, q: Any, kind: str, ins: list[View], out: View, eps: float, weight: bool, bias: bool) -> None:
        """A work-group per row of the last axis, as ``_softmax``; the parameters follow ``x`` in ``ins``."""
        x, params = ins[0], ins[1:]
        kept = list(range(x.ndim - 1))
        oshape, (ost_out, ost_x) = coalesce(
            [x.shape[d] for d in kept], [tuple(out.strides[d] for d in kept), tuple(x.strides[d] for d in kept)]
        )
        t = x.ctype
        kernel, limit = self._kernel(norm_source(kind, t, weight, bias), kind)
        k = x.shape[-1]
        size = _group(k, limit)
        scratch = cl.LocalMemory(size * 8)
        tail: list[Any] = []
        for p in params:
            tail += [p.arg, np.int64(p.offset), np.int64(p.strides[0])]
        tail += [np.float64(eps) if t.compute == "double" else np.float32(eps), scratch]
        for (do, dx), inner, (so, sx) in split(oshape, [ost_out, ost_x]):
            args = [out.arg, np.int64(out.offset + do), x.arg, np.int64(x.offset + dx)]
            args += [np.int32(len(inner)), _long8(inner, 1), _long8(so, 0), _long8(sx, 0)]
            args += [np.int64(k), np.int64(out.strides[-1]), np.int64(x.strides[-1]), *tail]
            self._run(q, kernel, args, (math.prod(inner) * size,), (size,))

    def _layer_norm(self, q: Any, ins: list[View], out: View, attrs: LayerNormAttrs) -> None:
        self._norm(q, "layer_norm", ins, out, attrs.eps, attrs.weight, attrs.bias)

    def _rms_norm(self, q: Any, ins: list[View], out: View, attrs: RmsNormAttrs) -> None:
        self._norm(q, "rms_norm", ins, out, attrs.eps, attrs.weight, False)

    def _gather(self, q: Any, ins: list[View], out: View, attrs: GatherAttrs) -> None:
        """Output dimensions walk ``a`` before and after the axis and ``indices`` in between (stride 0 elsewhere)."""
        a, idx = ins
        axis = attrs.axis
        lead, trail = axis, a.ndim - axis - 1
        st_a = (*a.strides[:axis], *[0] * idx.ndim, *a.strides[axis + 1 :])
        st_idx = (*[0] * lead, *idx.strides, *[0] * trail)
        shape, (st_out, sa, si) = coalesce(out.shape, [out.strides, st_a, st_idx])
        raw = RAW[out.dtype.itemsize]
        kernel, limit = self._kernel(gather_source(raw, idx.ctype), "gather")
        local = min(MAP_GROUP, limit)
        axis_st = a.strides[axis] if a.shape[axis] > 1 else 0
        for (do, da, di), inner, (so, sa_, si_) in split(shape, [st_out, sa, si]):
            n = math.prod(inner)
            args = [out.arg, np.int64(out.offset + do), a.arg, np.int64(a.offset + da), idx.arg]
            args += [np.int64(idx.offset + di), np.int64(n), np.int32(len(inner)), _long8(inner, 1)]
            args += [_long8(so, 0), _long8(sa_, 0), _long8(si_, 0), np.int64(a.shape[axis]), np.int64(axis_st)]
            self._run(q, kernel, args, (_round_up(n, local),), (local,))

    # -- layout -------------------------------------------------------------------------------------------------

    def _concat(self, q: Any, ins: list[View], out: View, attrs: AxisAttrs) -> None:
        """One copy kernel per input, into its slice of the output."""
        start = 0
        for v in ins:
            if math.prod(v.shape):
                part = View(out.arg, out.offset + start * out.strides[attrs.axis], v.shape, out.strides, out.dtype)
                self._copy(q, [v], part, OpAttrs())
            start += v.shape[attrs.axis]

    # -- matmul, conv2d, pool2d -----------------------------------------------------------------------------------

    def _matmul(self, q: Any, ins: list[View], out: View, attrs: MatmulAttrs) -> None:
        a, b = ins
        (m, k), (a_rs, a_cs), a_batch = _matrix(a, row=True)
        (_, n), (b_rs, b_cs), b_batch = _matrix(b, row=False)
        nb = out.ndim - (a.ndim > 1) - (b.ndim > 1)
        o_rs = out.strides[nb] if a.ndim > 1 else 0
        o_cs = out.strides[-1] if b.ndim > 1 else 0
        batch = out.shape[:nb]
        bshape, (a_bst, b_bst, o_bst) = coalesce(
            batch, [_align(a_batch, a.shape[:-2], batch), _align(b_batch, b.shape[:-2], batch), out.strides[:nb]]
        )
        tile = self.tile
        kernel, limit = self._kernel(matmul_source(a.ctype, out.ctype, attrs.arithmetic, tile), "matmul")
        while limit < tile * tile:  # the kernel needs more registers than the device has for 256 work-items
            tile //= 2
            kernel, limit = self._kernel(matmul_source(a.ctype, out.ctype, attrs.arithmetic, tile), "matmul")
        grid = (_round_up(n, tile), _round_up(m, tile))
        for (da, db, do), inner, (sa, sb, so) in split(bshape, [a_bst, b_bst, o_bst]):
            args = [out.arg, np.int64(out.offset + do), a.arg, np.int64(a.offset + da), b.arg, np.int64(b.offset + db)]
            args += [np.int64(v) for v in (m, n, k, a_rs, a_cs, b_rs, b_cs, o_rs, o_cs)]
            args += [np.int32(len(inner)), _long8(inner, 1), _long8(sa, 0), _long8(sb, 0), _long8(so, 0)]
            self._run(q, kernel, args, (*grid, math.prod(inner)), (tile, tile, 1))

    def _conv2d(self, q: Any, ins: list[View], out: View, attrs: ConvAttrs) -> None:
        x, w = ins[:2]
        bias = ins[2] if len(ins) == 3 else None
        n, _, h, wd = x.shape
        o, cg, kh, kw = w.shape
        _, _, oh, ow = out.shape
        source = conv2d_source(x.ctype, out.ctype, bias.ctype if bias else None, attrs.arithmetic)
        kernel, limit = self._kernel(source, "conv2d")
        args: list[Any] = [out.arg, np.int64(out.offset), x.arg, np.int64(x.offset), w.arg, np.int64(w.offset)]
        if bias is not None:
            args += [bias.arg, np.int64(bias.offset), np.int64(bias.strides[0])]
        args += [np.int64(v) for v in (n, o, h, wd, oh, ow, cg, kh, kw, o // attrs.groups)]
        args += [_long8(x.strides, 0), _long8(w.strides, 0), _long8(out.strides, 0)]
        args += [np.int64(v) for v in (*attrs.padding, *attrs.stride, *attrs.dilation)]
        local = min(MAP_GROUP, limit)
        self._run(q, kernel, args, (_round_up(n * o * oh * ow, local),), (local,))

    def _pool2d(self, q: Any, ins: list[View], out: View, attrs: Pool2dAttrs) -> None:
        x = ins[0]
        n, c, h, w = x.shape
        _, _, oh, ow = out.shape
        kernel, limit = self._kernel(pool2d_source(attrs.type, x.ctype), "pool2d")
        args: list[Any] = [out.arg, np.int64(out.offset), x.arg, np.int64(x.offset)]
        args += [np.int64(v) for v in (n, c, h, w, oh, ow, *attrs.kernel_size)]
        args += [_long8(x.strides, 0), _long8(out.strides, 0)]
        args += [np.int64(v) for v in (*attrs.stride, *attrs.padding)]
        local = min(MAP_GROUP, limit)
        self._run(q, kernel, args, (_round_up(n * c * oh * ow, local),), (local,))

    # -- attention ------------------------------------------------------------------------------------------------

    def _attention(self, q: Any, ins: list[View], out: View, attrs: AttentionAttrs) -> None:
        """One work-group per output row (``attention_source``); batch dimensions coalesced, beyond
        :data:`MAX_RANK` a host loop."""
        qv, kv, vv = ins[:3]
        mask = ins[3] if len(ins) == 4 else None
        *batch, hq, lq, d = qv.shape
        hkv, lk, dv = kv.shape[-3], kv.shape[-2], vv.shape[-1]
        nb = len(batch)
        layouts = [qv.strides[:nb], kv.strides[:nb], vv.strides[:nb], out.strides[:nb]]
        m_st = _broadcast(mask, (*batch, hq, lq, lk)) if mask is not None else ()
        if mask is not None:
            layouts.append(m_st[:nb])
        bshape, steps = coalesce(batch, layouts)
        source = attention_source(qv.ctype, attrs.arithmetic, mask.ctype if mask else None, attrs.mask == "additive")
        kernel, limit = self._kernel(source, "attention")
        size = _group(max(lk, dv), limit)
        wide = np.float64 if qv.ctype.compute == "double" else np.float32
        for deltas, inner, walk in split(bshape, steps):
            args: list[Any] = [out.arg, np.int64(out.offset + deltas[3])]
            for k, v in enumerate((qv, kv, vv)):
                args += [v.arg, np.int64(v.offset + deltas[k])]
            if mask is not None:
                args += [mask.arg, np.int64(mask.offset + deltas[4]), *(np.int64(x) for x in m_st[nb:])]
                args.append(_long8(walk[4], 0))
            args += [np.int64(x) for x in (hq, hq // hkv, lq, lk, d, dv)]
            args += [np.int64(x) for x in (*qv.strides[nb:], *kv.strides[nb:], *vv.strides[nb:], *out.strides[nb:])]
            args += [np.int32(len(inner)), _long8(inner, 1), *(_long8(w, 0) for w in walk[:4])]
            args += [wide(attrs.scale), np.int32(attrs.causal)]
            args += [cl.LocalMemory(size * 8), cl.LocalMemory(max(dv, 1) * 8)]
            self._run(q, kernel, args, (math.prod(inner) * hq * lq * size,), (size,))


OPS: frozenset[OpName] = frozenset(op for op in OP_NAMES if hasattr(Ops, f"_{op}"))
"""The ops of the closed set that run as OpenCL kernels (no host fall-back): those ``Ops`` has a method for."""


def _scalar(t: CType, value: float | int | bool) -> Any:
    """A scalar operand as the kernel argument of ``t``'s compute type."""
    if t.compute == "double":
        return np.float64(value)
    return np.float32(value) if t.compute == "float" else np.int32(value)


def _span(ref: Ref) -> tuple[int, int]:
    """The bytes ``[low, high)`` of the buffer the elements of ``ref`` lie in."""
    high = ref.offset + sum((n - 1) * s for n, s in zip(ref.shape, ref.strides, strict=True)) + ref.dtype.itemsize
    return ref.offset, high


def _broadcast(v: View, shape: tuple[int, ...]) -> Strides:
    """``v``'s element strides over ``shape`` (NumPy broadcasting: missing and size-1 dimensions stride 0)."""
    return _align(v.strides, v.shape, shape)


def _align(strides: Strides, own: tuple[int, ...], shape: tuple[int, ...]) -> Strides:
    """Strides of a layout of shape ``own`` over the broadcast ``shape``, aligned on the right."""
    lead = len(shape) - len(own)
    return tuple(0 if d < lead or own[d - lead] == 1 else strides[d - lead] for d in range(len(shape)))


def _permuted(v: View, order: Sequence[int]) -> tuple[tuple[int, ...], Strides]:
    return tuple(v.shape[d] for d in order), tuple(v.strides[d] for d in order)


def _matrix(v: View, row: bool) -> tuple[tuple[int, int], tuple[int, int], Strides]:
    """A matmul operand as (rows, cols), (row stride, column stride) and its batch strides; a 1-D ``a`` is a row,
    a 1-D ``b`` a column (the size-1 side's stride is 0)."""
    if v.ndim == 1:
        (size,), (step,) = v.shape, v.strides
        return ((1, size), (0, step), ()) if row else ((size, 1), (step, 0), ())
    return (v.shape[-2], v.shape[-1]), (v.strides[-2], v.strides[-1]), v.strides[:-2]


__all__ = ["OPS", "Ops", "coalesce", "split"]
