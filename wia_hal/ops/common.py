"""What every op shares: finding its context and stream, checking inputs, explaining (launching is
:func:`wia_hal.tensor.launch_op`)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wia_hal.context import Context, check_context, current_context
from wia_hal.enums import MemoryType
from wia_hal.errors import InvalidMemoryError, InvalidValueError, NotSupportedError, api
from wia_hal.graphs import resolved
from wia_hal.kernels import Kernel
from wia_hal.models import OpReport
from wia_hal.streams import Stream, check_stream, stream_for
from wia_hal.tensor import NO_RECORD, Tensor, check_tensor, new_tensor

DEVICE_VISIBLE = frozenset(t for t in MemoryType if t.device_visible)
_BROADCAST_CACHE: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}


def resolve(
    name: str, tensors: Sequence[object], ctx: Context | None, stream: Stream | None, names: Sequence[str] = ()
) -> tuple[Context, Stream]:
    """The op's context (``ctx``, else the first tensor's, else the stream's) and stream; every tensor must be
    of that context (``INVALID_MEMORY``) and so must the stream (``INVALID_CONTEXT``). Whether the backend runs
    the op is asked last, at launch, once every argument is validated. ``names`` name the tensor arguments in
    messages."""
    for i, t in enumerate(tensors):
        if type(t) is not Tensor:
            _not_a_tensor(name, names[i] if i < len(names) else f"input {i + 1}" if len(tensors) > 1 else "input", t)
    if ctx is not None:
        context = check_context(ctx)
    elif tensors and type(tensors[0]) is Tensor:
        context = check_tensor(tensors[0]).memory.context
    elif stream is not None:
        context = check_stream(stream).context
    else:
        context = current_context()
    queue_stream = stream_for(context, stream)
    for t in tensors:
        if check_tensor(t, context).memory.type not in DEVICE_VISIBLE:
            raise InvalidMemoryError(
                f"{name}: an input is in {t.memory.type.name} memory, which the device cannot access; "  # type: ignore[attr-defined]
                "ops need DEVICE, UNIFIED or MANAGED memory"
            )
    return context, queue_stream


def _not_a_tensor(name: str, argument: str, value: object) -> None:
    kind = type(value).__name__
    if isinstance(value, (int, float, complex, np.number, np.bool_)):
        raise InvalidValueError(
            f"{name}: {argument} must be a wia Tensor, got the scalar {kind} {value!r}; this operand takes no "
            "scalar (the element-wise binary ops, the comparisons and where do: wia.mul(t, 0.5)); pass a 0-d "
            f"tensor, which broadcasts (wia.tensor(np.float32({value!r}), ctx=ctx), in the other operand's dtype)"
        )
    raise InvalidValueError(f"{name}: {argument} must be a wia Tensor, got {kind}")


def broadcast(name: str, a: Tensor, b: Tensor) -> tuple[int, ...]:
    if a.shape == b.shape:
        return a.shape
    key = (a.shape, b.shape)
    shape = _BROADCAST_CACHE.get(key)
    if shape is None:
        try:
            shape = np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise InvalidValueError(
                f"{name}: shapes {a.shape} and {b.shape} do not broadcast (NumPy rules: trailing dimensions "
                "must be equal or 1)"
            ) from None
        _BROADCAST_CACHE[key] = shape
    return shape


def same_dtype(name: str, tensors: Sequence[Tensor]) -> np.dtype:
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype != dtype:
            listed = ", ".join(f"{x.dtype.name} {x.shape}" for x in tensors)
            raise InvalidValueError(f"{name}: dtypes differ ({listed}); all inputs must have one dtype")
    return dtype


def require_float(name: str, t: Tensor) -> None:
    if t.dtype.kind != "f" and t.dtype.name != "bfloat16":
        raise InvalidValueError(f"{name}: needs a floating-point tensor, got {t.dtype.name} {t.shape}")


def positive_eps(name: str, eps: object) -> float:
    """A normalization's ``eps`` as a float, or ``INVALID_VALUE`` unless it is a positive number."""
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not eps > 0:
        raise InvalidValueError(f"{name}: eps must be a positive number, got {eps!r}")
    return float(eps)


def axis_index(name: str, axis: object, ndim: int) -> int:
    """A Python-style axis (negative from the end) as an index, or ``INVALID_VALUE``."""
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise InvalidValueError(f"{name}: axis must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise InvalidValueError(f"{name}: axis {axis} is out of range for a {ndim}-d tensor")
    return int(axis) % ndim


def output(context: Context, shape: tuple[int, ...], dtype: np.dtype) -> Tensor:
    return new_tensor(context, shape, dtype, MemoryType.DEVICE)


@api
def explain(t: Tensor | Kernel) -> OpReport:
    """What the op that produced ``t`` did and why it took its time: FLOPs, bytes, compute, memory and launch
    time, the bound, the algorithm (and the alternatives AUTO weighed), and when it ran; for a ``Kernel``, its
    last launch, with the executor's counts (a backend extension: ``NOT_SUPPORTED`` where the backend cannot say)."""
    if isinstance(t, Kernel):
        if t.last_launch is None:
            raise InvalidValueError(f"explain: {t!r} has not been launched")
        record, backend = t.last_launch, t.context.backend
    else:
        t = check_tensor(t)
        if t.producer is None:
            raise InvalidValueError(
                f"explain: {t!r} was not produced by an op (created, uploaded, a view, a peer copy, or a "
                "collective's result: explain_collective says what a collective cost)"
            )
        record, backend = t.producer, t.memory.context.backend
    if record is NO_RECORD:
        raise NotSupportedError(f"explain: the {backend.name!r} backend keeps no record of what its ops cost")
    return backend.explain(resolved(record))
