"""Variables and assignment targets of the executor: a name in scope (``Var``) and what an assignment, ``++`` or
compound assignment writes through (a variable, a memory location, a swizzle of a vector).

A ``Ref`` reads its current value and writes a new one under a lane mask, so that ``x += 1`` in divergent code
changes only the active lanes.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels.ctype import CType
from wia_sim.kernels.lanes import all_lanes, stacked
from wia_sim.kernels.pointers import AddressMap, PtrType, one_object
from wia_sim.kernels.spaces import LaunchState, Pointer, Region, Uninit, UnsupportedKernel, Value
from wia_sim.kernels.structs import StructType
from wia_sim.kernels.undef import carrying, joined, masked, shaped, undefined_lanes

__all__ = [
    "ComponentRef",
    "Executor",
    "MemRef",
    "Ref",
    "SwizzleRef",
    "Var",
    "VarRef",
    "component",
    "kept",
    "merge_lanes",
    "merged",
    "swizzled",
    "with_undefined",
    "writable",
]

Array = NDArray[Any]
Result = Value | Pointer


class Executor(Protocol):
    """What references need of the executor."""

    st: LaunchState
    all: Array  # the mask of every lane
    addresses: AddressMap

    def load(
        self, p: Pointer, mask: Array, atomic: bool = False, grid: bool = False, natural: bool = True
    ) -> Result: ...

    def store(self, p: Pointer, v: Value, mask: Array, natural: bool = True) -> None: ...

    def to_value(self, v: Result, t: CType) -> Value: ...


BLEND_FROM = 1 << 14
"""From this many lanes ``merge_lanes`` blends the bits without a branch: ``np.where`` branches per element, which a
mask set at random mispredicts (262,144 uint32 lanes, 90% set at random: 295 us for ``np.where``, 118 us blended)."""
_WORDS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def merge_lanes(mask: Array, new: Array, old: Array, width: int) -> Array:
    """``new`` in the lanes of ``mask``, ``old`` elsewhere (``width`` > 1: vectors, one row per lane)."""
    m = mask[:, None] if width > 1 else mask
    if mask.size < BLEND_FROM or mask.dtype != np.bool_:  # (the small launches' merges: nothing more to look at)
        return np.asarray(np.where(m, new, old))
    new, old = np.asarray(new), np.asarray(old)
    word = _WORDS.get(new.dtype.itemsize)
    if word is None or new.dtype != old.dtype or new.dtype.kind not in "biuf":
        return np.asarray(np.where(m, new, old))
    # old ^ ((new ^ old) & ones where the mask is set): each lane's bits, NaN payloads and signed zeros included
    ones = m.view(np.uint8).astype(word)
    np.negative(ones, out=ones)
    x, y = new.view(word), old.view(word)
    blended = np.bitwise_and(np.bitwise_xor(x, y), ones)
    blended ^= y
    return np.asarray(blended).view(new.dtype)


def merged(mask: Array, new: Value, old: Value, width: int) -> Value:
    """``merge_lanes`` of two values of one type, their shadows too (``undef.py``)."""
    a = merge_lanes(mask, new.raw, old.raw, width)
    if new.undef is None and old.undef is None:
        return Value(new.t, a)
    if isinstance(new.t, StructType):  # a struct's bytes
        shape: tuple[int, ...] = (mask.shape[0], new.t.size)
    else:
        shape = (mask.shape[0], width) if width > 1 else (mask.shape[0],)
    un = np.zeros(shape, bool) if new.undef is None else shaped(new.undef, new.t)
    uo = np.zeros(shape, bool) if old.undef is None else shaped(old.undef, old.t)
    origin = new.origin if new.undef is not None else old.origin
    if new.origin is not None and old.origin is not None and new.undef is not None and old.undef is not None:
        origin = new.origin.beside(mask, old.origin)  # (some lanes' bytes came from another read)
    return carrying(new.t, a, merge_lanes(mask, un, uo, width), origin)


def kept(var: Var, new: Value, mask: Array, full: bool) -> None:
    """``new`` (of the variable's own type) as ``var``'s value in the lanes of ``mask`` (``full``: in every lane),
    its old value in the others, shadows (``undef.py``) too."""
    old = var.value
    if full or old is None or not isinstance(old, Value):
        var.value = new
    elif new.undef is None and old.undef is None:
        var.value = Value(new.t, merge_lanes(mask, new.a, old.a, new.t.width))
    else:
        var.value = merged(mask, new, old, new.t.width)


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


@functools.cache
def _indices(idx: tuple[int, ...]) -> Array:
    """``idx`` as an index array, made once per swizzle (a list indexes at a microsecond a time more)."""
    return np.asarray(idx, np.intp)


def with_undefined(a: Array, idx: tuple[int, ...]) -> Array:
    """The components ``idx`` of the vectors ``a`` (components on the last axis), an index past them (the w of a
    3-component vector's ``.hi``/``.odd``: ``swizzle_indices``) reading 0. A copy, never a view."""
    if max(idx) < a.shape[-1]:
        return a.take(_indices(idx), axis=-1)
    padded = np.concatenate([a, np.zeros((*a.shape[:-1], max(idx) + 1 - a.shape[-1]), a.dtype)], axis=-1)
    return padded[..., list(idx)]


def past_three(v: Value, idx: tuple[int, ...], width: int, st: LaunchState, n: int) -> Value:
    """``v``, the components ``idx`` of a ``width``-vector, with a 3-component vector's w (the second component of
    ``.hi`` and ``.odd``) undefined, as OpenCL C 1.2 6.1.7 leaves it (Clang's undef: PoCL and Oclgrind drop a store
    of it): with checks on, using it is the ``uninitialized_private`` finding, a store of it a lower-severity one
    (``Uninit.unspecified``); it reads as 0 otherwise."""
    if width != 3 or max(idx) < 3 or not st.checks:
        return v
    undef = np.broadcast_to(np.asarray(idx) >= 3, (n, len(idx)))
    if v.undef is not None:
        undef = undef | shaped(v.undef, v.t)
    what = "component w of a 3-component vector ('.hi' and '.odd' name it; OpenCL C 1.2 6.1.7 leaves it undefined)"
    origin = v.origin or Uninit(st, "uninitialized_private", what, st.line, unspecified=True)
    return Value(v.t, np.array(np.broadcast_to(v.raw, undef.shape)), undef=undef, origin=origin)


def swizzled(v: Value, idx: tuple[int, ...]) -> Value:
    """The components ``idx`` of the vector ``v``, with their shadow (``undef.py``)."""
    a = with_undefined(np.asarray(v.raw), idx)
    t = v.t.scalar if len(idx) == 1 else v.t.scalar.vector(len(idx))
    u = None if v.undef is None else with_undefined(shaped(v.undef, v.t), idx)
    origin = None if v.origin is None else v.origin.picked(idx)
    if len(idx) == 1:
        return carrying(t, a[..., 0], None if u is None else u[..., 0], origin)
    return carrying(t, a, u, origin)


def component(v: Value, k: Array) -> Value:
    """The component ``k`` (per lane, or one for all; out-of-range ones clipped) of the vector ``v``, with its
    shadow (``v[i]``: ``executor.component_index``)."""
    width = v.t.width
    k = np.clip(k, 0, width - 1)
    a = np.asarray(v.raw)
    picked = a[..., k] if k.ndim == 0 else (a[k] if a.ndim == 1 else np.take_along_axis(a, k[:, None], 1)[:, 0])
    if v.undef is None:
        return Value(v.t.scalar, np.asarray(picked))
    undef = shaped(v.undef, v.t)
    u = (
        undef[:, int(k)]
        if k.ndim == 0
        else np.take_along_axis(undef, np.broadcast_to(k, undef.shape[:1])[:, None], 1)[:, 0]
    )
    return carrying(v.t.scalar, np.asarray(picked), u, None if v.origin is None else v.origin.picked(k))


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
        v = self.peek()
        if isinstance(v, Value) and v.undef is not None:  # lanes that never assigned it
            return masked(v, mask, self.ex.st.line)
        return v

    def peek(self) -> Result:
        """The value of every lane, assigned or not (a swizzle writes only some components)."""
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
                by_address = np.where(mask, addresses.address(new), addresses.address(old))
                var.value = addresses.pointer(by_address, old.elem, old.dims, self.ex.all)
            self.assigned = var.value
            return
        nv = self.ex.to_value(v, var.ctype)
        kept(var, nv, mask, full)
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
        elem = self.p.elem
        # a pointer kept in memory is stored as its address: the assignment's value is the pointer again
        self.assigned = (
            self.ex.addresses.pointer(nv.a, elem.target, elem.dims, mask) if isinstance(elem, PtrType) else nv
        )


class ComponentRef(Ref):
    """``v[i]`` of a vector that is not in memory (a variable): component ``k`` per lane of the vector ``t``."""

    def __init__(self, ex: Executor, base: Ref, k: Array, t: CType) -> None:
        super().__init__(ex)
        self.base = base
        self.k = np.clip(k, 0, t.width - 1)
        self.t = t

    def get(self, mask: Array) -> Result:
        cur = self.base.get(mask)
        assert isinstance(cur, Value)
        return component(cur, self.k)

    def set(self, v: Result, mask: Array) -> None:
        cur = self.base.peek() if isinstance(self.base, VarRef) else self.base.get(mask)
        assert isinstance(cur, Value)
        part = self.ex.to_value(v, self.t.scalar)
        n = self.ex.all.shape[0]
        lanes = np.arange(n)
        k = np.broadcast_to(self.k, (n,))
        new = np.array(np.broadcast_to(cur.raw, (n, self.t.width)))
        new[lanes, k] = np.broadcast_to(part.raw, (n,))
        undef = None
        if cur.undef is not None or part.undef is not None:
            undef = np.zeros((n, self.t.width), bool) if cur.undef is None else np.array(shaped(cur.undef, self.t))
            undef[lanes, k] = False if part.undef is None else np.broadcast_to(part.undef, (n,))
        origin = part.origin if part.undef is not None else cur.origin
        self.base.set(carrying(self.t, new, undef, origin), mask)
        self.assigned = part


def writable(old: Array, lanes: tuple[int, ...], width: int) -> Array:
    """A copy of the ``width``-vectors ``old`` to store components into, one per lane where ``old`` or what is
    stored (of lane shape ``lanes``) has one."""
    if old.ndim == 2:  # one vector per lane already (the usual case): what is stored broadcasts to it
        return old.copy()
    return np.array(np.broadcast_to(old, (*np.broadcast_shapes(old.shape[:-1], lanes), width)))


@functools.cache
def _kept(idx: tuple[int, ...], width: int) -> tuple[Array, Array]:
    """Which of the components ``idx`` of a ``width``-vector a store writes (not the undefined w of a
    3-component vector's ``.hi``/``.odd``), as positions in ``idx`` and as components: made once per swizzle."""
    kept = [j for j, k in enumerate(idx) if k < width]
    return np.asarray(kept, np.intp), np.asarray([idx[j] for j in kept], np.intp)


class SwizzleRef(Ref):
    def __init__(self, ex: Executor, base: Ref, idx: tuple[int, ...], t: CType) -> None:
        super().__init__(ex)
        self.base = base
        self.idx = idx
        self.t = t

    def _part(self) -> CType:
        s = self.t.scalar
        return s if len(self.idx) == 1 else s.vector(len(self.idx))

    def _components(self) -> list[Pointer | None] | None:
        """Pointers to the named components where the vector lies in memory (``p[i].x``, ``s->v.zy``), else
        None. A device reads and writes only those bytes: ``p[i].x = 1`` on a write-only buffer reads nothing, and
        reading ``p[i].y`` does not read the components nobody wrote. A run of consecutive components (``.s4567``)
        is one access, aligned as its scalar (``.yz`` of a float4 lies 4 bytes in: no misaligned float2); the
        undefined w of a 3-component vector (``.hi``) is None: no bytes, read as 0, not written."""
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

    def _private(self) -> bool:
        """Whether the vector lies in __private memory, read whole (one access, not one per component: salsa's
        ``w[3].wxyz``): no race to record there, and a component nobody wrote keeps its own shadow."""
        assert isinstance(self.base, MemRef)
        region = self.base.p.region
        return isinstance(region, Region) and region.space == "private"

    def get(self, mask: Array) -> Result:
        return past_three(self._get(mask), self.idx, self.t.width, self.ex.st, self.ex.all.shape[0])

    def _get(self, mask: Array) -> Value:
        parts = self._components()
        if parts is None or self._private():
            cur = self.base.get(mask)
            assert isinstance(cur, Value)
            return swizzled(cur, self.idx)
        loaded: list[Value | None] = []
        for c in parts:
            r = None if c is None else self.ex.load(c, mask, natural=False)  # (a run: its scalar's alignment)
            assert r is None or isinstance(r, Value)
            loaded.append(r)
        zero = np.zeros((), self.t.scalar.dtype)
        values = [zero if r is None else np.asarray(r.raw) for r in loaded]
        shadow = joined(r for r in loaded if r is not None)
        if len(values) == 1:  # one component, or one run of them
            a = values[0]
            undef = None if shadow is None else shaped(shadow[0], self._part())
        else:
            a = stacked(values, np.result_type(*values))
            n = self.ex.all.shape[0]
            undef = None
            if shadow is not None:  # each component's own
                none = np.zeros(n, bool)
                undef = np.stack(
                    [none if r is None or r.undef is None else undefined_lanes(r.undef) for r in loaded], 1
                )
        if shadow is None:
            return Value(self._part(), a)
        return Value(self._part(), a, undef=undef, origin=shadow[1])

    def set(self, v: Result, mask: Array) -> None:
        parts = self._components()
        part = self.ex.to_value(v, self._part())
        src = np.asarray(part.raw)
        undef = None if part.undef is None else shaped(part.undef, part.t)
        if parts is not None:
            for j, c in enumerate(parts):
                if c is None:  # the undefined w of a 3-component vector takes no write
                    continue
                assert c.elem is not None
                one = len(parts) == 1
                u = None if undef is None else (undef if one else undef[..., j])
                part_value = Value(c.elem, src if one else src[..., j], undef=u, origin=part.origin)
                self.ex.store(c, part_value, mask, natural=False)  # (a run of components: its scalar's alignment)
            self.assigned = part
            return
        cur = self.base.peek() if isinstance(self.base, VarRef) else self.base.get(mask)  # (VarRef: every lane)
        assert isinstance(cur, Value)
        new = writable(np.asarray(cur.raw), src.shape[:-1] if len(self.idx) > 1 else src.shape, self.t.width)
        kept, targets = _kept(self.idx, self.t.width)
        if len(self.idx) == 1:
            new[..., self.idx[0]] = src
        else:
            new[..., targets] = src[..., kept]
        if cur.undef is None and undef is None:
            self.base.set(Value(self.t, new), mask)
            return
        n = self.ex.all.shape[0]
        shadow = np.zeros((n, self.t.width), bool)
        if cur.undef is not None:
            shadow[:] = shaped(cur.undef, self.t)
        if len(self.idx) == 1:
            shadow[:, self.idx[0]] = False if undef is None else undef
        else:
            shadow[:, targets] = False if undef is None else undef[:, kept]
        origin = part.origin if part.undef is not None else cur.origin
        self.base.set(carrying(self.t, new, shadow, origin), mask)
