"""The executor's memory accesses: loads and stores through a ``Pointer`` (checked by its ``Region``; through a
pointer into several objects, object by object; a NULL one is the ``null_pointer`` finding), array subscripts and
addresses. Undefined values (``undef.py``) become uses here when stored to ``__global`` memory and stay undefined
in ``__private`` and ``__local`` memory, a store to ``__local`` memory being a lower-severity finding. A mixin of
``_Executor`` (``executor.py``) over the shared state of ``exec_state.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pycparser import c_ast

from wia_sim.kernels.ctype import SCALARS, CType, elem_bytes
from wia_sim.kernels.exec_state import Array, ExecutorState, Result, _line
from wia_sim.kernels.lanes import few_lanes, per_lane
from wia_sim.kernels.lvalues import merge_lanes
from wia_sim.kernels.pointers import SEVERAL, PtrType
from wia_sim.kernels.spaces import KernelFault, Pointer, UnsupportedKernel, Value, a_sized, sized
from wia_sim.kernels.strided import Viewed
from wia_sim.kernels.structs import StructType
from wia_sim.kernels.unaligned import load_unaligned, store_unaligned
from wia_sim.kernels.undef import defined, shaped, within

__all__ = ["MemoryOps"]

ULONG = SCALARS["ulong"]


def _aggregate(t: CType | None) -> bool:
    """A struct or a pointer kept in memory: stored as bytes, never with a shadow."""
    return isinstance(t, StructType | PtrType)


class MemoryOps(ExecutorState):
    """The memory methods of ``_Executor``."""

    def load(self, p: Pointer, mask: Array, atomic: bool = False, grid: bool = False, natural: bool = True) -> Result:
        """What ``p`` points to; ``grid``: a strided view may stand for the values (``Value.grid``), for an operator
        that consumes them before anything else runs; ``natural``: a vector read as its type, aligned to its size
        (not vloadN's, aligned to its scalar's: ``aligned_vector``)."""
        if p.dims:
            return p.row()
        if p.region is SEVERAL:
            return self._gathered([(self.load(q, m, atomic), m) for q, m in self.addresses.split(p, mask)], mask)
        if isinstance(p.elem, PtrType):  # a pointer kept in memory: its address, loaded as a ulong
            bits = self.load(p.retyped(ULONG), mask, atomic)
            assert isinstance(bits, Value)
            return self.addresses.pointer(bits.a, p.elem.target, p.elem.dims, mask)
        if p.region is None and p.elem is not None:
            if not bool(np.any(mask)):  # no lane reads (the untaken side of ``p ? p[i] : 0``)
                return Value(p.elem, np.zeros((p.elem.width,) if p.elem.width > 1 else (), p.elem.dtype))
            raise self.null_fault(p, mask, "read")
        if p.null is not None and bool((p.null & mask).any()):
            raise self.null_fault(p, p.null & mask, "read")
        if p.region is None or p.elem is None:
            raise UnsupportedKernel(f"line {self.st.line}: dereference of a null or void pointer")
        if isinstance(p.elem, StructType):
            return self.struct_load(p, p.elem, mask)
        if natural and p.elem.width > 1 and self.checks and not p.packed:
            self.aligned_vector(p, mask, "read")
        few = None if atomic or p.packed else few_lanes(mask, self.st.active)
        if p.packed:  # byte by byte (``unaligned.py``)
            values = load_unaligned(self.st, p.region, p.off, mask, p.elem, defer=self.checks)
        elif few is not None:  # a few lanes of a large launch: by themselves
            values = p.region.load_at(self.st, few, p.offsets_at(few), p.elem, defer=self.checks)
        else:
            if p.affine is not None and not atomic:
                strided = p.region.load_strided(self.st, p.affine, mask, p.elem, grid)
                if strided is not None:
                    if isinstance(strided, Viewed):
                        return Value(p.elem, None, grid=strided)
                    return Value(p.elem, strided)
            values = p.region.load(self.st, p.off, mask, p.elem, atomic, defer=self.checks and not atomic)
        deferred = self.st.deferred
        if deferred is not None:  # bytes nobody wrote: undefined, their use is the finding (``undef.py``)
            self.st.deferred = None
            return Value(p.elem, values, undef=deferred[0], origin=deferred[1])
        return Value(p.elem, values)

    def _gathered(self, parts: Sequence[tuple[Result, Array]], mask: Array) -> Result:
        """One result from the results of the lanes of each part (disjoint masks): what a load through a pointer
        into several objects read."""
        first = parts[0][0]
        if isinstance(first, Pointer):
            elem, dims = first.elem, first.dims
            a = np.zeros(self.n, np.int64)
            for r, m in parts:
                assert isinstance(r, Pointer)
                a = np.where(m, self.addresses.address(r), a)
            return self.addresses.pointer(a, elem, dims, mask)
        width = 2 if isinstance(first.t, StructType) else first.t.width
        out = np.asarray(first.a)
        for r, m in parts[1:]:
            assert isinstance(r, Value)
            out = merge_lanes(
                m, np.asarray(r.a), per_lane(out, (self.n, *out.shape[-1:]) if width > 1 else (self.n,)), width
            )
        return Value(first.t, out)

    def aligned_vector(self, p: Pointer, mask: Array, access: str) -> None:
        """A vector read or written through a pointer to its type is aligned to its size (OpenCL C 1.2 6.1.5: a
        ``float4`` or ``float3`` to 16 bytes; Oclgrind: "not aligned to the pointed type"): a misaligned one, as
        ``*(float4*)(f + 1)``, is the finding (vloadN/vstoreN need only their scalar's alignment)."""
        assert p.region is not None and p.elem is not None
        size = elem_bytes(p.elem)
        if p._off is None and p.affine is not None and p.affine.base % size == 0 and p.affine.divisible(size):
            return
        off = np.asarray(p.off, np.int64)
        if not int(np.bitwise_or.reduce(off, axis=None)) & (size - 1):  # every lane's aligned (a vector's size is a
            return  # power of two: one reduction decides the usual case)
        bad = mask & (off % size != 0) if off.ndim else (mask if int(off) % size else np.zeros_like(mask))
        if not bool(bad.any()):
            return
        lane = int(np.flatnonzero(bad)[0])
        offs = np.broadcast_to(off, bad.shape)
        at = int(offs[lane])
        what = f"misaligned {access} of a {p.elem} ({a_sized(size, 'byte')} vector, aligned to {size} bytes)"
        what += f" at offset {at} of {p.region.description}"
        raise self.st.fault(f"misaligned_{p.region.space}", what, lane, at, bad, offs[bad])

    def null_fault(self, p: Pointer, mask: Array, access: str) -> KernelFault:
        """The ``null_pointer`` finding: a load or store through a NULL pointer (a NULL buffer argument, or a
        private pointer that holds 0) by the lanes of ``mask``. Raised with checks off too: there is no memory."""
        size = elem_bytes(p.elem) if p.elem is not None else 1
        offs = np.broadcast_to(np.asarray(p.off, np.int64), (self.n,))
        mask = np.broadcast_to(mask, (self.n,))
        lane = int(np.flatnonzero(mask)[0]) if bool(mask.any()) else 0
        at = int(offs[lane])
        what = f"{access} of {sized(size, 'byte')} through a NULL pointer (address {at})"
        return self.st.fault("null_pointer", what, lane, at, mask, offs[mask])

    def store(self, p: Pointer, v: Value, mask: Array, natural: bool = True, copied: bool = False) -> None:
        """Store ``v`` where ``p`` points; ``natural`` as ``load``'s; ``copied``: bytes a copy moves
        (``__builtin_memcpy``), an undefined one left unwritten in any address space, as in __private memory (a
        copy, not a use)."""
        if p.region is SEVERAL:
            for q, m in self.addresses.split(p, mask):
                self.store(q, v, m, natural, copied)
            return
        if isinstance(p.elem, PtrType):
            p, v = p.retyped(ULONG), Value(ULONG, v.a)
        if p.region is None and p.elem is not None:
            if not bool(np.any(mask)):
                return
            raise self.null_fault(p, mask, "write")
        if p.null is not None and bool((p.null & mask).any()):
            raise self.null_fault(p, p.null & mask, "write")
        if p.region is None or p.elem is None:
            raise UnsupportedKernel(f"line {self.st.line}: store through a null or void pointer")
        if v.undef is not None and not isinstance(p.elem, StructType):  # (a struct's bytes: ``struct_store``)
            undef = within(v.undef, mask)
            if undef is None:
                v = defined(v)
            elif (p.region.space != "global" or copied) and not _aggregate(p.elem):
                # kept undefined in __private memory, as in a variable (a packed struct's member too, byte by byte),
                # and in __local memory, where the store is a lower-severity finding: Oclgrind's "Uninitialized
                # value written to local memory", which goes on (a later use of what it stored is the finding)
                if p.region.space == "local" and not copied:
                    assert v.origin is not None
                    self.st.note(v.origin.fault(undef, "and its value stored to __local memory"))
                values = self._conv(defined(v), p.elem)
                gone = shaped(undef, p.elem)
                if p.packed:
                    store_unaligned(self.st, p.region, p.off, mask, p.elem, values, undef=gone, origin=v.origin)
                else:
                    p.region.store(self.st, p.off, mask, p.elem, values, undef=gone, origin=v.origin)
                return
            else:
                assert v.origin is not None
                found = v.origin.fault(undef, f"and its value stored to __{p.region.space} memory")
                if not v.origin.unspecified:
                    raise found
                self.st.note(found)  # (stored as what it reads as, as devices store what the register holds)
                v = defined(v)
        if isinstance(p.elem, StructType):
            self.struct_store(p, p.elem, self.to_value(v, p.elem), mask)
            return
        if p.packed:
            store_unaligned(self.st, p.region, p.off, mask, p.elem, self._conv(v, p.elem))
            return
        if natural and p.elem.width > 1 and self.checks:
            self.aligned_vector(p, mask, "write")
        values = self._conv(v, p.elem)
        few = few_lanes(mask, self.st.active)
        if few is not None:  # a few lanes of a large launch: by themselves
            p.region.store_at(self.st, few, p.offsets_at(few), p.elem, values)
            return
        if p.affine is not None and p.region.store_strided(self.st, p.affine, mask, p.elem, values):
            return
        p.region.store(self.st, p.off, mask, p.elem, values)

    def index(self, node: c_ast.ArrayRef, mask: Array) -> Pointer:
        return self.index_member(node, mask)[0]

    def index_member(self, node: c_ast.ArrayRef, mask: Array, access: str = "read") -> tuple[Pointer, bool]:
        """The element ``node`` designates, and whether it lies in an array member of a struct (``access``: how
        the element is used first, for the message of an index out of the array's bounds)."""
        base, bound, member = self.array_object(node.name, mask)
        sub = self.eval(node.subscript, mask)
        if isinstance(base, Value) and isinstance(sub, Pointer):  # i[p]
            base, sub, bound = sub, base, None
        if not isinstance(base, Pointer) or not isinstance(sub, Value):
            raise UnsupportedKernel(f"line {_line(node)}: subscript of a non-pointer")
        if sub.undef is not None:
            sub = self.used(sub, mask, "as an array index")
        # (the first index into a declared __local or __constant array: the region checks its bytes as well)
        whole = isinstance(node.name, c_ast.ID) and base.region is not None and base.region.space != "private"
        if bound is not None and self.checks and not whole:
            self.check_bound(base, sub, bound, member, mask, access)
        self.count("int_ops", mask)
        if sub.affine is not None:
            return base.moved_by(sub.affine.scaled(base.elem_size)), member
        if base.affine is not None and sub.a.ndim == 0:
            return base.moved_by(int(sub.a) * base.elem_size), member
        return base.moved(np.multiply(sub.a, base.elem_size, dtype=np.int64, casting="unsafe")), member

    def address(self, node: c_ast.Node, mask: Array) -> Pointer:
        if isinstance(node, c_ast.ArrayRef):
            p = self.index(node, mask)
            return p
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            q = self.eval(node.expr, mask)
            if isinstance(q, Pointer):
                return q
        if isinstance(node, c_ast.StructRef):
            m = self.member_ptr(node, mask)
            if m is not None:
                return m
        if isinstance(node, c_ast.ID):
            var = self.lookup_var(node.name)
            if var is not None and var.mem is not None:
                return var.mem
            if var is not None and var.array is not None:
                return var.array
        if isinstance(node, c_ast.CompoundLiteral):
            return self.literal_object(node, mask)
        raise UnsupportedKernel(f"line {_line(node)}: taking the address of this expression is not supported")
