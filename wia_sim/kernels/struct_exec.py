"""The executor's part for structs, unions, brace initializers of aggregates and the bounds of declared arrays.

Structs live in memory (a ``__private`` region for variables and by-value parameters, the caller's buffer behind
a pointer): a member is a pointer into the struct, moved by the member's offset, so ``p[i].v.x += 1`` reads and
writes the buffer's bytes where a device would. A whole struct read is a ``Value`` of its ``StructType`` holding
the bytes (shape ``(size,)`` or ``(lanes, size)``); a struct value that is not in memory (a function's result) is
written to a temporary private region before a member is read.

An index into a declared array (a ``__private`` array, or an array member of a struct anywhere) is checked
against the array's own length, not only against the memory object: ``s.a[4]`` of ``int a[4]`` is out of bounds
even where the struct has bytes after ``a``.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pycparser import c_ast

from wia_sim.kernels.ctype import CType, elem_bytes
from wia_sim.kernels.exec_state import ExecutorState
from wia_sim.kernels.initializers import braced_scalar, designated_member, nested_designation, own_list
from wia_sim.kernels.spaces import Pointer, Region, UnsupportedKernel, Value, a_sized, undefined_lanes
from wia_sim.kernels.structs import Member, StructType, size_align
from wia_sim.kernels.types import TypeInfo, const_int

__all__ = ["StructOps", "byte_chunks"]

Array = NDArray[Any]
Result = Value | Pointer


def byte_chunks(size: int) -> list[tuple[int, CType]]:
    """A struct's bytes as (offset, uchar vector) pieces the regions can move (a uchar3 would move 4 bytes)."""
    out: list[tuple[int, CType]] = []
    off = 0
    while off < size:
        w = size - off if size - off != 3 else 2
        out.append((off, CType("uchar", np.dtype(np.uint8), "uint", 1, w)))
        off += w
    return out


class StructOps(ExecutorState):
    """Struct and aggregate operations, mixed into the executor (over the shared state of ``exec_state.py``)."""

    # -- whole structs
    def struct_load(self, p: Pointer, st: StructType, mask: Array) -> Value:
        """The struct's bytes per lane; bytes nobody wrote are undefined (one flag per byte, ``undef.py``): a
        struct is copied with its holes, and only the use of a member nobody set is a finding."""
        assert p.region is not None
        parts = []
        undef: Array | None = None
        origin = None
        for off, t in byte_chunks(st.size):
            a = np.asarray(p.region.load(self.st, p.off + off, mask, t, defer=self.checks))
            parts.append(a if t.width > 1 else a[..., None])
            deferred = self.st.deferred
            if deferred is not None:
                self.st.deferred = None
                if undef is None:
                    undef, origin = np.zeros((self.n, st.size), bool), deferred[1]
                undef[:, off : off + t.width] = deferred[0].reshape(self.n, -1)
        if not parts:  # an empty struct (GNU C, which Clang takes: 0 bytes)
            return Value(st, np.zeros((0,), np.uint8))
        a = parts[0] if len(parts) == 1 else np.concatenate(np.broadcast_arrays(*parts), axis=-1)
        if undef is None or origin is None:
            return Value(st, a)
        if origin.offsets is not None:  # named by the first byte nobody wrote, in each lane that read one
            first = np.broadcast_to(np.asarray(p.off, np.int64), (self.n,)) + np.argmax(undef, axis=1)
            origin = replace(origin, offsets=np.where(undef.any(axis=1), first, -1), size=1, unwritten=None)
        return Value(st, a, undef=undef, origin=origin)

    def struct_store(self, p: Pointer, st: StructType, v: Value, mask: Array) -> None:
        """Store the struct's bytes; undefined ones (``struct_load``) leave the bytes they land on uninitialized,
        in any address space (a copy, not a use)."""
        assert p.region is not None
        a = np.asarray(v.raw)
        undef = None if v.undef is None else np.broadcast_to(v.undef, (self.n, st.size))
        if undef is not None and p.region.space in ("global", "local"):  # a member's bytes there are a use
            used = undef & mask[:, None] & self.member_bytes(st)
            if bool(used.any()):
                assert v.origin is not None
                found = v.origin.fault(undefined_lanes(used), f"and its value stored to __{p.region.space} memory")
                if p.region.space == "global" and not v.origin.unspecified:
                    raise found
                self.st.note(found)  # (noted, its bytes left uninitialized: ``MemoryOps.store``)
        for off, t in byte_chunks(st.size):
            part = a[..., off : off + t.width]
            held = None if undef is None else undef[:, off : off + t.width]
            if held is not None and not bool(held.any()):
                held = None
            if held is not None and t.width == 1:
                held = held[:, 0]
            values = part if t.width > 1 else part[..., 0]
            p.region.store(self.st, p.off + off, mask, t, values, undef=held, origin=v.origin)

    def member_bytes(self, st: StructType) -> Array:
        """The bytes of ``st`` its members occupy: not the padding between and after them, nor a struct member's
        own padding, at any depth, nor a 3-component vector's fourth (OpenCL C 1.2 6.1.5: its size and alignment
        are a 4-vector's, the fourth component undefined): a copy of the struct carries them undefined, as
        Oclgrind's check of a struct's members does. (Blender Cycles copies structs of float3 members whose
        fourth components nothing wrote: the simulator stopped them as a use of uninitialized bytes.)"""
        held = np.zeros(st.size, dtype=bool)
        for m in (*st.members, *st.indirect):
            element = m.type.innermost
            size = size_align(element, self.types)[0]  # (of one element of an array member)
            inner = self._ct(element) if element.kind == "struct" else None
            if not isinstance(inner, StructType):
                data = size * 3 // 4 if element.kind == "vector" and element.width == 3 else size
                for k in range(math.prod(m.dims)):
                    held[m.offset + k * size : m.offset + k * size + data] = True
                continue
            inner_held = self.member_bytes(inner)
            for k in range(math.prod(m.dims)):
                held[m.offset + k * size : m.offset + (k + 1) * size] |= inner_held
        return held

    def private_object(self, what: str, nbytes: int) -> Region:
        """A fresh, zeroed ``__private`` object of ``nbytes`` for every lane."""
        return Region.allocate("private", what, self.n, max(nbytes, 1), "lane")

    def spill(self, v: Value, mask: Array) -> Pointer:
        """A struct value in memory (a temporary private object), so that its members can be read."""
        assert isinstance(v.t, StructType)
        region = self.private_object(f"temporary {v.t.name}", v.t.size)
        p = Pointer(region, v.t, np.asarray(0, np.int64))
        self.struct_store(p, v.t, v, mask)
        return p

    def struct_addr(self, node: c_ast.Node, mask: Array) -> Result:
        """Where the struct ``node`` denotes lies (a pointer to it), or, when ``node`` is not of a struct type,
        its value (evaluated once)."""
        if isinstance(node, c_ast.ID):
            var = self.lookup_var(node.name)
            if var is not None and var.mem is not None and isinstance(var.mem.elem, StructType):
                return var.mem
            return self.eval(node, mask)
        if isinstance(node, c_ast.ArrayRef):
            p = self.index(node, mask)
            if isinstance(p.elem, StructType) and not p.dims:
                return p
            return self.load(p, mask)
        if isinstance(node, c_ast.StructRef):
            m = self.member_ptr(node, mask)
            if m is None:
                return self.eval(node, mask)
            if isinstance(m.elem, StructType) and not m.dims:
                return m
            return self.load(m, mask)
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            q = self.eval(node.expr, mask)
            if isinstance(q, Pointer) and isinstance(q.elem, StructType) and not q.dims:
                return q
            if isinstance(q, Pointer):
                return self.load(q, mask)
            raise UnsupportedKernel(f"line {self.st.line}: '*' of a non-pointer")
        v = self.eval(node, mask)
        if isinstance(v, Value) and isinstance(v.t, StructType):
            return self.spill(v, mask)
        return v

    def member_ptr(self, node: c_ast.StructRef, mask: Array) -> Pointer | None:
        """The member ``node`` names, as a pointer (with the member array's dimensions); None when the base is
        not a struct (a vector swizzle)."""
        if id(node) not in self.member_refs:
            return None
        base = self.eval(node.name, mask) if node.type == "->" else self.struct_addr(node.name, mask)
        if not isinstance(base, Pointer) or not isinstance(base.elem, StructType) or base.dims:
            raise UnsupportedKernel(f"line {self.st.line}: '{node.type}' on a value that is not a struct")
        st = base.elem
        key = (id(node), st.name)
        found = self.program.members.get(key)
        if found is None:
            m = st.member(node.field.name)
            if m is None:
                raise UnsupportedKernel(f"line {self.st.line}: no member '{node.field.name}' in '{st.name}'")
            elem = self._ct(m.type.innermost)  # a pointer member: ``pointers.PtrType``
            found = self.program.members[key] = (elem, m.offset, m.dims, self._off_alignment(st, m, elem))
        elem, offset, dims, off_alignment = found
        off = base.off + offset if offset else base.off
        return Pointer(base.region, elem, off, dims, base.null, base.packed or off_alignment)

    @staticmethod
    def _off_alignment(st: StructType, m: Member, elem: CType) -> bool:
        """Whether member ``m`` may lie off its own alignment in any ``st``: a packed struct or member may put it
        there (read and written byte by byte, never misaligned); a packed struct around ``st`` may too (the
        pointer to ``st`` says so)."""
        natural = elem.align if isinstance(elem, StructType) else elem_bytes(elem)
        return st.align < natural or m.offset % natural != 0

    # -- declared arrays: their bounds
    def array_object(self, node: c_ast.Node, mask: Array) -> tuple[Result, int | None, bool]:
        """``node`` evaluated as the base of a subscript: its value (a declared array decays to a pointer to its
        first element), the array's length where ``node`` is a declared array (None otherwise) and whether it is
        a struct member."""
        if isinstance(node, c_ast.ID):
            var = self.lookup_var(node.name)
            if var is not None and var.array is not None and var.array.dims:
                return var.array.row(), var.array.dims[0], False
            if var is not None and var.array is None and var.mem is None and isinstance(var.value, Pointer):
                return var.value, None, False  # a pointer variable (``expr_ID``'s value, without a second lookup)
            return self.eval(node, mask), None, False
        if isinstance(node, c_ast.ArrayRef):
            p, member = self.index_member(node, mask)
            if p.dims:
                return p.row(), p.dims[0], member
            return self.load(p, mask), None, False
        if isinstance(node, c_ast.StructRef):
            m = self.member_ptr(node, mask)
            if m is not None:
                if m.dims:  # (a flexible array member's length is the memory's: no bound of its own)
                    return m.row(), m.dims[0] or None, True
                return self.load(m, mask), None, False
        return self.eval(node, mask), None, False

    def check_bound(self, base: Pointer, sub: Value, bound: int, member: bool, mask: Array, access: str) -> None:
        """An index into a declared array of ``bound`` elements (``__private``, ``__local`` or ``__constant``, or a
        struct's member) must lie in [0, bound) even where the memory object goes on (OpenCL C, as C99 6.5.6p8;
        Oclgrind: "Index (8) exceeds static array size (8)" for ``t[ly][lx + 8]`` of ``__local float t[4][8]``);
        where the element stays inside the object, a lower-severity finding. Buffers behind pointer arguments have
        no declared length: their bytes are checked (``spaces.Region``)."""
        if base.region is None or not (member or base.region.space in ("private", "local", "constant")):
            return
        if sub.affine is not None and sub._a is None:  # its lowest and highest value without the lanes
            lo, hi = sub.affine.bounds
            if lo >= 0 and hi < bound:
                return
        idx = np.asarray(sub.a)
        if idx.ndim == 0:  # one index for every lane (a loop's counter)
            lo = hi = int(idx)
        else:
            lo, hi = (int(idx.min()), int(idx.max())) if idx.size else (0, 0)
        if lo >= 0 and hi < bound:
            return
        bad = mask & ((np.broadcast_to(idx, mask.shape) < 0) | (np.broadcast_to(idx, mask.shape) >= bound))
        if not bool(bad.any()):
            return
        offs = np.broadcast_to(
            base.off + np.broadcast_to(idx, mask.shape).astype(np.int64) * base.elem_size, mask.shape
        )
        # an element that stays inside the object (the struct, or the array of rows) is a lower-severity finding:
        # its bytes are the object's (Oclgrind's "Index (8) exceeds static array size (8)", after which it goes on;
        # JtR's sha512crypt indexes a union's 8-byte member through the struct's array of them)
        leaving = bad & ((offs < 0) | (offs > base.region.nbytes - base.elem_size))
        inside = not bool(leaving.any())
        lane = int(np.flatnonzero(bad if inside else leaving)[0])
        i = int(np.broadcast_to(idx, mask.shape)[lane])
        space = base.region.space
        check = "out_of_bounds_private" if space == "private" else f"out_of_bounds_{space}"
        array = f"{a_sized(bound, 'element')} array" + (" member of a struct in" if member else ",")
        what = f"out-of-bounds {access} at index {i} of {array} {base.region.description}"
        if inside:
            self.st.note(self.st.fault(check, f"{what} (inside its memory)", lane, int(offs[lane]), bad, offs[bad]))
            return
        raise self.st.fault(check, what, lane, int(offs[lane]), leaving, offs[leaving])

    # -- initializers of aggregates
    def init_object(self, p: Pointer, t: TypeInfo, init: c_ast.Node, mask: Array) -> None:
        """Write the initializer ``init`` into the object of type ``t`` at ``p`` (zeroed already): brace lists
        positionally with brace elision (C99 6.7.8), designators ``.member =`` and ``[k] =``; a scalar for a
        vector element is a splat, as Clang gives it (``long16 d[] = {0, 1}``: two splats)."""
        if isinstance(init, c_ast.InitList):
            self._fill(p, t, list(init.exprs), 0, mask, braced=True)
        else:
            self._store_item(p, t, self.eval(init, mask), mask)

    def _store_item(self, p: Pointer, t: TypeInfo, v: Result, mask: Array) -> None:
        ct = self._ct(t)
        if isinstance(v, Pointer) and t.kind != "pointer":
            raise UnsupportedKernel(f"line {self.st.line}: a pointer in an initializer of '{t}'")
        self.store(Pointer(p.region, ct, p.off, packed=p.packed), self.to_value(v, ct), mask)

    def _sub_objects(self, p: Pointer, t: TypeInfo) -> list[tuple[str | int | None, Pointer, TypeInfo]]:
        if t.kind == "array" and t.target is not None:
            size = self._size(t.target)
            length = t.length if t.length is not None else 0
            return [(k, Pointer(p.region, None, p.off + k * size, packed=p.packed), t.target) for k in range(length)]
        st = self._ct(t)
        assert isinstance(st, StructType)
        subs: list[tuple[str | int | None, Pointer, TypeInfo]] = []
        for m in st.members:
            packed = p.packed or self._off_alignment(st, m, self._ct(m.type.innermost))
            mt = m.type
            if mt.kind == "array" and mt.length is None and mt.target is not None and p.region is not None:
                # a flexible array member: the elements its object has room for (a __constant one's initializer
                # gave them, GNU C; an automatic one has none)
                room = p.region.nbytes - m.offset - int(p.off) if np.ndim(p.off) == 0 else 0
                mt = replace(mt, length=max(room, 0) // self._size(mt.target))
            subs.append((m.name, Pointer(p.region, None, p.off + m.offset, packed=packed), mt))
        return subs

    def _size(self, t: TypeInfo) -> int:
        """Bytes of an object of type ``t`` as the executor lays it out: ``structs.size_align``'s (an event's 8, the
        executor's ulong: ``exec_setup.ctype_of``), as its arrays index it (``event_t all[2] = {a, b}``)."""
        return size_align(t, self.types)[0]

    def _fill(
        self,
        p: Pointer,
        t: TypeInfo,
        items: list[c_ast.Node],
        pos: int,
        mask: Array,
        braced: bool,
        designated: bool = False,
    ) -> int:
        """Fill the aggregate ``t`` at ``p`` from ``items[pos:]`` (brace elision and designators as
        ``initializers.py`` and the checker's ``check_fill`` read them; ``designated``: the first item's designator
        names a part of ``t``); returns the position after what it took. Items past the end of a braced list are
        dropped unevaluated (the checker warned), as Clang drops them."""
        if t.kind == "vector" and braced:  # {1, 2, 3, 4} for a vector: its components
            ct = self._ct(t)
            parts = [self.eval(e, mask) for e in items[pos:]]
            self.store(Pointer(p.region, ct, p.off, packed=p.packed), self.braced_vector(ct, parts), mask)
            return len(items)
        if t.kind not in ("array", "struct"):
            if pos < len(items):
                self._store_item(p, t, self.eval(braced_scalar(items[pos]), mask), mask)
            return pos + 1
        subs = self._sub_objects(p, t)
        union = t.kind == "struct" and t.name.startswith("union")
        k = 0
        first = pos
        while pos < len(items):
            item = items[pos]
            rest = items
            if isinstance(item, c_ast.NamedInitializer):
                if not braced and not (designated and pos == first):
                    return pos  # a designator belongs to the enclosing list
                k, anonymous = self._designated(t, item)
                if anonymous:  # ``.i = x`` for a member of an anonymous member: a list of its own, inside it
                    _, sp, stype = subs[k]
                    self._fill(sp, stype, [item], 0, mask, braced=True)
                    pos, k = pos + 1, len(subs) if union else k + 1
                    continue
                if len(item.name) > 1:  # ``.a.b = x``: ``a`` filled from ``.b = x`` on, its braces elided
                    _, sp, stype = subs[k]
                    rest = [*items[:pos], nested_designation(item), *items[pos + 1 :]]
                    pos = self._fill(sp, stype, rest, pos, mask, braced=False, designated=True)
                    k = len(subs) if union else k + 1
                    continue
                rest = [*items[:pos], item.expr, *items[pos + 1 :]]  # the designated object starts at its value
                item = item.expr
            if k >= len(subs):
                return len(items) if braced else pos
            _, sp, stype = subs[k]
            if isinstance(item, c_ast.InitList) and own_list(item, stype):
                self._fill(sp, stype, list(item.exprs), 0, mask, braced=True)
                pos += 1
            elif stype.kind == "array" or (stype.kind == "struct" and id(item) not in self.whole_items):
                pos = self._fill(sp, stype, rest, pos, mask, braced=False)
            else:
                self._store_item(sp, stype, self.eval(item, mask), mask)
                pos += 1
            k = len(subs) if union else k + 1  # a union's list initializes one member (a designator may pick it)
        return pos

    def _designated(self, t: TypeInfo, item: Any) -> tuple[int, bool]:
        """Where the designator of ``item`` starts in ``t``, and whether at an anonymous member holding the named
        one (``initializers.designated_member``; the checker saw that it names something)."""
        d = item.name[0]
        if isinstance(d, c_ast.ID):
            found = designated_member(self.types, t, d.name)
            if found is None:
                raise UnsupportedKernel(f"line {self.st.line}: no member '{d.name}' in '{t}'")
            return found
        value = const_int(d, self.enumerators, self.types)
        if value is None:
            raise UnsupportedKernel(f"line {self.st.line}: array designator is not a constant")
        return value, False

    def new_aggregate(self, what: str, t: TypeInfo, elem: CType, dims: tuple[int, ...]) -> Pointer:
        """A zeroed ``__private`` object of type ``t`` (elements ``elem``, array dimensions ``dims``)."""
        size = self._size(t) if t.kind != "array" or t.length is not None else 0
        region = self.private_object(what, size or elem.dtype.itemsize * math.prod(dims))
        return Pointer(region, elem, np.asarray(0, np.int64), dims)
