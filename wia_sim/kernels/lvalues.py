"""Variables and assignment targets of the executor: a name in scope (``Var``) and what an assignment, ``++`` or
compound assignment writes through (a variable, a memory location, a swizzle of a vector).

A ``Ref`` reads its current value and writes a new one under a lane mask, so that ``x += 1`` in divergent code
changes only the active lanes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels.ctype import CType
from wia_sim.kernels.lanes import all_lanes, per_lane
from wia_sim.kernels.pointers import AddressMap, PtrType, one_object
from wia_sim.kernels.spaces import LaunchState, Pointer, UnsupportedKernel, Value

__all__ = [
    "Executor",
    "MemRef",
    "Ref",
    "SwizzleRef",
    "Var",
    "VarRef",
    "check_assigned",
    "mark_assigned",
    "merge_lanes",
    "with_undefined",
]

Array = NDArray[Any]
Result = Value | Pointer


class Executor(Protocol):
    """What references need of the executor."""

    st: LaunchState
    all: Array  # the mask of every lane
    addresses: AddressMap

    def load(self, p: Pointer, mask: Array, atomic: bool = False) -> Result: ...

    def store(self, p: Pointer, v: Value, mask: Array) -> None: ...

    def to_value(self, v: Result, t: CType) -> Value: ...

    def value_at(self, p: Pointer, mask: Array) -> Array: ...


def merge_lanes(mask: Array, new: Array, old: Array, width: int) -> Array:
    """``new`` in the lanes of ``mask``, ``old`` elsewhere (``width`` > 1: vectors, one row per lane)."""
    m = mask[:, None] if width > 1 else mask
    return np.asarray(np.where(m, new, old))


@dataclass
class Var:
    """A name in scope: a value per lane, a pointer, a memory-backed scalar or an array."""

    ctype: CType | None = None  # value variables
    value: Result | None = None
    mem: Pointer | None = None  # memory-backed (a __local scalar): reads and writes go to memory
    array: Pointer | None = None  # arrays: the base, dims are the full shape
    ptr_elem: CType | None = None
    is_pointer: bool = False
    name: str = ""
    # a scalar or vector declared without initializer, with checks on: the lanes that assigned it (a vector: each
    # component, one row per lane, so that ``v.xz = ...`` initializes only those components)
    init: Array | None = None


def with_undefined(a: Array, idx: tuple[int, ...]) -> Array:
    """The components ``idx`` of the vectors ``a`` (components on the last axis), an index past them (the w of a
    3-component vector's ``.hi``/``.odd``: ``swizzle_indices``) reading 0."""
    if max(idx) < a.shape[-1]:
        return a[..., list(idx)]
    padded = np.concatenate([a, np.zeros((*a.shape[:-1], max(idx) + 1 - a.shape[-1]), a.dtype)], axis=-1)
    return padded[..., list(idx)]


def check_assigned(st: LaunchState, var: Var, mask: Array, components: tuple[int, ...] | None = None) -> None:
    """Raise ``uninitialized_private`` when a lane of ``mask`` reads ``var`` (a vector: its ``components``, None:
    all) before it assigned it."""
    assert var.init is not None
    init = var.init
    if init.ndim == 2:
        if components is not None:  # (the undefined w of a 3-vector's ``.hi`` is never assigned)
            components = tuple(k for k in components if k < init.shape[1])
        init = np.asarray((init if components is None else init[:, list(components)]).all(axis=1))
    missing = per_lane(mask, init.shape) & ~init
    if bool(missing.any()):
        lane = int(np.flatnonzero(missing)[0])
        part = "" if var.init.ndim == 1 else "a component of "
        what = f"read of uninitialized {part}__private variable '{var.name}' (declared without an initializer)"
        raise st.fault("uninitialized_private", what, lane, None, missing)


def mark_assigned(var: Var, mask: Array, components: tuple[int, ...] | None = None) -> None:
    """The lanes of ``mask`` assigned ``var`` (a vector: its ``components``, None: all); forgets the flags once every
    lane assigned all of it."""
    assert var.init is not None
    init = var.init.copy()
    if init.ndim == 2:
        cols = slice(None) if components is None else [k for k in components if k < init.shape[1]]
        init[:, cols] |= np.broadcast_to(mask, init.shape[:1])[:, None]
    else:
        init |= mask
    var.init = None if bool(init.all()) else init


class Ref:
    """An assignment target. ``get_after`` is the value an assignment expression yields: what ``set`` stored,
    converted to the target's type, where the target keeps it."""

    def __init__(self, ex: Executor) -> None:
        self.ex = ex
        self.assigned: Result | None = None

    def get(self, mask: Array) -> Result:
        raise NotImplementedError

    def set(self, v: Result, mask: Array) -> None:
        raise NotImplementedError

    def get_after(self, v: Result) -> Result:
        return self.assigned if self.assigned is not None else v


class VarRef(Ref):
    def __init__(self, ex: Executor, var: Var) -> None:
        super().__init__(ex)
        self.var = var

    def get(self, mask: Array) -> Result:
        var = self.var
        if var.array is not None:
            raise UnsupportedKernel(f"line {self.ex.st.line}: assignment to an array")
        if var.init is not None:
            check_assigned(self.ex.st, var, mask)
        return self.peek()

    def peek(self) -> Result:
        """The value, without the uninitialized-read check (a swizzle reads or writes only some components)."""
        var = self.var
        if var.value is None:
            if var.ctype is None:
                return Pointer(None, var.ptr_elem, np.asarray(0, np.int64))
            t = var.ctype
            var.value = Value(t, np.zeros((t.width,) if t.width > 1 else (), t.dtype))
        return var.value

    def set(self, v: Result, mask: Array) -> None:
        var = self.var
        full = mask is self.ex.all or all_lanes(mask)
        if var.ctype is None:  # a pointer variable
            if not isinstance(v, Pointer):
                v = Pointer(None, var.ptr_elem, np.asarray(0, np.int64))
            new = v.retyped(var.ptr_elem if var.ptr_elem is not None else v.elem)
            new.packed = False
            old = var.value
            if full or not isinstance(old, Pointer) or (old.region is None and new.region is None):
                var.value = new
            elif one_object(old, new):
                var.value = Pointer(old.region, old.elem, np.where(mask, new.off, old.off), old.dims)
            else:  # NULL, or another object, in some lanes: kept by address (``pointers.py``)
                addresses = self.ex.addresses
                merged = np.where(mask, addresses.address(new), addresses.address(old))
                var.value = addresses.pointer(merged, old.elem, old.dims, self.ex.all)
            self.assigned = var.value
            return
        t = var.ctype
        nv = self.ex.to_value(v, t)
        if var.init is not None:
            mark_assigned(var, mask)
        if full or var.value is None or not isinstance(var.value, Value):
            var.value = nv
        else:
            var.value = Value(t, merge_lanes(mask, nv.a, var.value.a, t.width))
        self.assigned = nv


class MemRef(Ref):
    def __init__(self, ex: Executor, p: Pointer) -> None:
        super().__init__(ex)
        self.p = p

    def get(self, mask: Array) -> Result:
        return self.ex.load(self.p, mask)

    def set(self, v: Result, mask: Array) -> None:
        if self.p.elem is None or (isinstance(v, Pointer) and not isinstance(self.p.elem, PtrType)):
            raise UnsupportedKernel(f"line {self.ex.st.line}: storing a pointer where a value is kept")
        nv = self.ex.to_value(v, self.p.elem)
        self.ex.store(self.p, nv, mask)
        self.assigned = nv


class SwizzleRef(Ref):
    def __init__(self, ex: Executor, base: Ref, idx: tuple[int, ...], t: CType) -> None:
        super().__init__(ex)
        self.base = base
        self.idx = idx
        self.t = t

    def _part(self) -> CType:
        s = self.t.scalar
        return s if len(self.idx) == 1 else s.vector(len(self.idx))

    def _tracked(self) -> VarRef | None:
        """The base, if it is a vector variable whose components' initialization is tracked."""
        if isinstance(self.base, VarRef) and self.base.var.init is not None and self.base.var.init.ndim == 2:
            return self.base
        return None

    def _components(self) -> list[Pointer | None] | None:
        """Pointers to the named components where the vector lies in memory (``p[i].x``, ``s->v.zy``), else
        None. A device reads and writes only those bytes: ``p[i].x = 1`` on a write-only buffer reads nothing, and
        reading ``p[i].y`` does not read the components nobody wrote. A run of consecutive components (``.s4567``)
        is one access; the undefined w of a 3-component vector (``.hi``) is None: no bytes, read as 0, not written."""
        if not isinstance(self.base, MemRef):
            return None
        p = self.base.p
        if p.region is None or p.dims or p.elem is None or p.elem.width != self.t.width:
            return None
        size = self.t.scalar.dtype.itemsize
        first, count = self.idx[0], len(self.idx)
        width = self.t.width
        if count in (2, 4, 8, 16) and self.idx == tuple(range(first, first + count)) and first + count <= width:
            return [p.moved(np.asarray(first * size, np.int64)).retyped(self._part())]
        return [p.moved(np.asarray(k * size, np.int64)).retyped(self.t.scalar) if k < width else None for k in self.idx]

    def get(self, mask: Array) -> Result:
        parts = self._components()
        if parts is not None:
            zero = np.zeros((), self.t.scalar.dtype)
            values = [zero if c is None else np.asarray(self.ex.value_at(c, mask)) for c in parts]
            if len(values) == 1:  # one component, or one run of them
                return Value(self._part(), values[0])
            shape = np.broadcast_shapes(*(v.shape for v in values))
            return Value(self._part(), np.stack([np.broadcast_to(v, shape) for v in values], axis=-1))
        ref = self._tracked()
        if ref is not None:
            check_assigned(self.ex.st, ref.var, mask, self.idx)
        cur = ref.peek() if ref is not None else self.base.get(mask)
        assert isinstance(cur, Value)
        a = with_undefined(np.asarray(cur.a), self.idx)
        return Value(self._part(), a[..., 0] if len(self.idx) == 1 else a)

    def set(self, v: Result, mask: Array) -> None:
        parts = self._components()
        if parts is not None:
            part = self.ex.to_value(v, self._part())
            src = np.asarray(part.a)
            for j, c in enumerate(parts):
                if c is None:  # the undefined w of a 3-component vector takes no write
                    continue
                assert c.elem is not None
                self.ex.store(c, Value(c.elem, src if len(parts) == 1 else src[..., j]), mask)
            self.assigned = part
            return
        ref = self._tracked()
        cur = ref.peek() if ref is not None else self.base.get(mask)
        assert isinstance(cur, Value)
        part = self.ex.to_value(v, self._part())
        src = np.asarray(part.a)
        shape = np.broadcast_shapes(np.asarray(cur.a).shape[:-1], src.shape[:-1] if len(self.idx) > 1 else src.shape)
        new = np.array(np.broadcast_to(cur.a, (*shape, self.t.width)))
        if len(self.idx) == 1:
            new[..., self.idx[0]] = src
        else:
            kept = [j for j, k in enumerate(self.idx) if k < self.t.width]  # (not the undefined w of a 3-vector)
            new[..., [self.idx[j] for j in kept]] = src[..., kept]
        if ref is None:
            self.base.set(Value(self.t, new), mask)
            return
        var = ref.var
        init, var.init = var.init, None  # the whole vector is stored, only these components are assigned
        self.base.set(Value(self.t, new), mask)
        var.init = init
        mark_assigned(var, mask, self.idx)
