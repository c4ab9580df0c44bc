"""Collectives over several devices: an extension beyond the spec (``docs/collectives.md``).

Each call takes one tensor per device (each in a live context of its device) and returns new tensors, one per
input, in the same contexts, as the ops do. The work is ordered like ``copy_peer_to_peer`` on every participant's
current stream: after what was enqueued there before, before what is enqueued after. ``explain_collective`` of
any returned tensor says what the call cost (bytes, time, algbw and busbw as nccl-tests defines them).
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

import numpy as np

from wia_hal.backend import AnyBackend
from wia_hal.enums import MemoryType
from wia_hal.errors import InvalidDeviceError, InvalidValueError, api, did_you_mean
from wia_hal.models import CollectiveAttrs, CollectiveReport
from wia_hal.streams import Stream, stream_for
from wia_hal.tensor import Tensor, check_tensor, contiguous, new_tensor

REDUCE_OPS = ("sum", "prod", "max", "min", "avg")
ALGORITHMS = {
    "all_reduce": ("auto", "ring", "tree", "direct", "switch"),
    "all_gather": ("auto", "ring", "direct"),
    "reduce_scatter": ("auto", "ring", "direct"),
    "broadcast": ("auto", "ring", "tree"),
    "all_to_all": ("auto", "pairwise", "direct"),
}

_records: weakref.WeakKeyDictionary[Tensor, tuple[AnyBackend, object]] = weakref.WeakKeyDictionary()
"""Per returned tensor: the backend and its record of the collective that wrote it."""


def _checked(kind: str, tensors: object) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, Sequence):
        raise InvalidValueError(f"{kind}: expected a list of tensors, one per device, got {type(tensors).__name__}")
    if len(tensors) < 1:
        raise InvalidValueError(f"{kind}: expected at least one tensor (one per device), got none")
    checked = [check_tensor(t) for t in tensors]
    first = checked[0]
    seen: dict[int, int] = {}
    for i, t in enumerate(checked):
        device = t.memory.context.device
        if device.index in seen:
            raise InvalidDeviceError(
                f"{kind}: tensors {seen[device.index]} and {i} are both on device {device.index}; a collective takes "
                "one tensor per device"
            )
        seen[device.index] = i
        if (t.shape, t.dtype) != (first.shape, first.dtype):
            raise InvalidValueError(
                f"{kind}: tensor {i} is {t.shape} {t.dtype.name}, tensor 0 is {first.shape} {first.dtype.name}; "
                "every participant's tensor must have the same shape and dtype"
            )
        if t.memory_type is not MemoryType.DEVICE:
            raise InvalidValueError(
                f"{kind}: tensor {i} is in {t.memory_type.name} memory; collectives move DEVICE memory"
            )
    return checked


def _choice(kind: str, name: str, value: object, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        hint = did_you_mean(value, list(choices)) if isinstance(value, str) else ""
        raise InvalidValueError(f"{kind}: {name}={value!r}{hint}: expected one of {', '.join(choices)}")
    return value


def _blocks(kind: str, t: Tensor, n: int) -> None:
    if not t.shape or t.shape[0] % n:
        raise InvalidValueError(
            f"{kind}: the tensors' first dimension must divide into {n} blocks (one per device), got shape {t.shape}"
        )


def _run(kind: str, tensors: list[Tensor], out_shape: tuple[int, ...], attrs: CollectiveAttrs) -> list[Tensor]:
    backend = tensors[0].memory.context.backend
    streams: list[Stream] = [stream_for(t.memory.context, None) for t in tensors]
    packed = [contiguous(t, s) for t, s in zip(tensors, streams, strict=True)]
    outs: list[Tensor] = []
    try:
        for t in tensors:
            outs.append(new_tensor(t.memory.context, out_shape, t.dtype, MemoryType.DEVICE))
        for p, o, s in zip(packed, outs, streams, strict=True):
            p.memory.used_by(s)
            o.memory.used_by(s)
        record = backend.collective([s.queue for s in streams], [p.ref for p in packed], [o.ref for o in outs], attrs)
    except BaseException:
        for o in outs:
            o.release()
        raise
    for o in outs:
        _records[o] = (backend, record)
    return outs


def _reducing(kind: str, tensors: object, op: object, algorithm: object) -> tuple[list[Tensor], CollectiveAttrs]:
    checked = _checked(kind, tensors)
    op_name = _choice(kind, "op", op, REDUCE_OPS)
    dtype = checked[0].dtype
    if dtype == np.dtype(bool) and op_name in ("sum", "prod", "avg"):
        raise InvalidValueError(f"{kind}: op={op_name!r} is not defined for bool tensors (max or min are)")
    if op_name == "avg" and dtype.kind in "iu":
        raise InvalidValueError(f"{kind}: op='avg' is for floating-point tensors, got {dtype.name}")
    algo = _choice(kind, "algorithm", algorithm, ALGORITHMS[kind])
    return checked, CollectiveAttrs(kind=kind, op=op_name, algorithm=algo)


@api
def all_reduce(tensors: Sequence[Tensor], op: str = "sum", *, algorithm: str = "auto") -> list[Tensor]:
    """Every device gets the elementwise reduction (``sum``, ``prod``, ``max``, ``min``, ``avg``) of all inputs.
    ``algorithm``: ``auto`` (the backend's choice), ``ring`` or ``tree``."""
    checked, attrs = _reducing("all_reduce", tensors, op, algorithm)
    return _run("all_reduce", checked, checked[0].shape, attrs)


@api
def reduce_scatter(tensors: Sequence[Tensor], op: str = "sum", *, algorithm: str = "auto") -> list[Tensor]:
    """Device ``i`` (the ``i``-th tensor's) gets block ``i`` along the first dimension of the reduction of all
    inputs; the first dimension must divide by the number of devices."""
    checked, attrs = _reducing("reduce_scatter", tensors, op, algorithm)
    n = len(checked)
    _blocks("reduce_scatter", checked[0], n)
    shape = (checked[0].shape[0] // n, *checked[0].shape[1:])
    return _run("reduce_scatter", checked, shape, attrs)


@api
def all_gather(tensors: Sequence[Tensor], *, algorithm: str = "auto") -> list[Tensor]:
    """Every device gets the inputs concatenated along the first dimension, in the list's order."""
    checked = _checked("all_gather", tensors)
    first = checked[0]
    if not first.shape:
        raise InvalidValueError("all_gather: the tensors need at least one dimension (they are concatenated along it)")
    algo = _choice("all_gather", "algorithm", algorithm, ALGORITHMS["all_gather"])
    shape = (first.shape[0] * len(checked), *first.shape[1:])
    return _run("all_gather", checked, shape, CollectiveAttrs(kind="all_gather", algorithm=algo))


@api
def broadcast(tensors: Sequence[Tensor], root: int = 0, *, algorithm: str = "auto") -> list[Tensor]:
    """Every device gets a copy of ``tensors[root]``."""
    checked = _checked("broadcast", tensors)
    if isinstance(root, bool) or not isinstance(root, (int, np.integer)) or not 0 <= root < len(checked):
        raise InvalidValueError(f"broadcast: root={root!r} must index the list of {len(checked)} tensor(s)")
    algo = _choice("broadcast", "algorithm", algorithm, ALGORITHMS["broadcast"])
    attrs = CollectiveAttrs(kind="broadcast", algorithm=algo, root=int(root))
    return _run("broadcast", checked, checked[0].shape, attrs)


@api
def all_to_all(tensors: Sequence[Tensor], *, algorithm: str = "auto") -> list[Tensor]:
    """Device ``j`` gets block ``j`` (along the first dimension) of every input, concatenated in the list's order;
    the first dimension must divide by the number of devices."""
    checked = _checked("all_to_all", tensors)
    _blocks("all_to_all", checked[0], len(checked))
    algo = _choice("all_to_all", "algorithm", algorithm, ALGORITHMS["all_to_all"])
    return _run("all_to_all", checked, checked[0].shape, CollectiveAttrs(kind="all_to_all", algorithm=algo))


@api
def explain_collective(t: Tensor) -> CollectiveReport:
    """What the collective that returned ``t`` cost: bytes, time, algbw and busbw (nccl-tests' definitions), the
    algorithm and the alternatives AUTO weighed (``NOT_SUPPORTED`` where the backend cannot say)."""
    t = check_tensor(t)
    found = _records.get(t)
    if found is None:
        raise InvalidValueError(f"explain_collective: {t!r} was not returned by a collective")
    backend, record = found
    return backend.explain_collective(record)
