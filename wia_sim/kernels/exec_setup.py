"""The executor's launch setup: the types of the launch (``ctype_of``), the kernel's arguments bound to memory
regions and values (``bind_args``), its ``__local`` variables, and ``__constant`` objects (program scope, and a
kernel's outermost scope) with their initializers. A mixin of ``_Executor`` (``executor.py``) over the shared state
of ``exec_state.py``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from pycparser import c_ast

from wia_sim.kernels.aliasing import overlapping, share_records
from wia_sim.kernels.contraction import Contraction
from wia_sim.kernels.ctype import SCALARS, CType, elem_bytes, lookup
from wia_sim.kernels.exec_state import Array, ExecutorState, _designated, _nested
from wia_sim.kernels.lvalues import Var
from wia_sim.kernels.memargs import unwrap
from wia_sim.kernels.pointers import PtrType
from wia_sim.kernels.spaces import Pointer, Region, UnsupportedKernel, Value
from wia_sim.kernels.structs import StructType, layout, size_align
from wia_sim.kernels.types import TypeInfo, TypeResolver

__all__ = ["LaunchSetup", "ctype_of", "pointee_of"]

ULONG = SCALARS["ulong"]


def _granule(elem: CType | None) -> int:
    """The race tracker's granule for memory of ``elem``: its scalar's size, a whole vector's for a vector of 2, 4,
    8 or 16 components (one record per vector, not per component; an access of its components alone refines it:
    ``RaceTracker.refine``), a struct's ``granule``, 1 for void."""
    if elem is None:
        return 1
    if isinstance(elem, StructType):
        return elem.granule
    size = int(elem.dtype.itemsize)
    return size * elem.width if elem.width in (2, 4, 8, 16) else size


def ctype_of(t: TypeInfo, where: str = "", types: TypeResolver | None = None) -> CType:
    """The executor's type of a checked one (``where`` ends the message of a type it cannot run)."""
    if t.kind == "opaque" and t.name == "event_t":  # an event is a ulong, 8 bytes as on devices: 0 for none
        return ULONG  # (async_copy.py)
    if t.kind == "struct" and types is not None:
        try:
            return layout(t.name, types)
        except ValueError as exc:
            raise UnsupportedKernel(f"{exc}{where}") from None
    if t.kind in ("scalar", "vector"):
        try:
            return lookup(t.type_name)
        except KeyError:
            pass
    if t.kind == "pointer":  # a pointer kept in memory (an array of pointers, a member, what ``T**`` points to)
        return PtrType.to(*pointee_of(t, types))
    raise UnsupportedKernel(f"type '{t}' is not supported by the executor{where}")


def pointee_of(t: TypeInfo, types: TypeResolver | None = None) -> tuple[CType | None, tuple[int, ...]]:
    """What a pointer (or array) points to: the element type (None: void, or an incomplete struct) and the array
    dimensions in between."""
    target = t.target
    dims: list[int] = []
    while target is not None and target.kind == "array":
        dims.append(target.length or 0)
        target = target.target
    if target is None or target.kind == "void":
        return None, tuple(dims)
    if target.kind == "struct" and types is not None and target.name not in types.structs:
        return None, tuple(dims)  # (a struct nothing defines: a pointer to it is never dereferenced, as void's)
    return ctype_of(target, "", types), tuple(dims)


class LaunchSetup(ExecutorState):
    """The setup methods of ``_Executor``: what a launch holds before its first statement runs."""

    def _ct(self, t: TypeInfo, where: str = "") -> CType:
        return ctype_of(t, where, self.types)

    def cast_types(self, c: Contraction) -> tuple[CType, ...] | None:
        """The types of the casts between the addition ``c`` and its product (``contraction.py``), or None where
        one is not to an arithmetic type (that addition does not fuse)."""
        types = []
        for cast in c.casts:
            t = self.program.type_of(cast.to_type)
            if t.kind in ("pointer", "void"):
                return None
            try:
                ct = self._ct(t)
            except UnsupportedKernel:
                return None
            if type(ct) is not CType:
                return None
            types.append(ct)
        return tuple(types)

    def _pt(self, t: TypeInfo) -> tuple[CType | None, tuple[int, ...]]:
        found = self.program.pointees.get(t)
        if found is None:
            found = self.program.pointees[t] = pointee_of(t, self.types)
        return found

    def _constants(self) -> None:
        for name, value in self.program.enumerators.items():
            t = SCALARS[self.program.enumerator_types.get(name, "int")]
            self.globals[name] = Var(t, Value(t, np.asarray(value).astype(t.dtype)))
        for name, decl in self.program.constants.items():
            self.globals[name] = self.constant_var(name, decl)

    def constant_var(self, name: str, decl: c_ast.Decl) -> Var:
        """The ``__constant`` variable ``decl`` (program scope, or a function's: ``local_constant``), made for the
        launch: one read-only object every work-item sees."""
        t = self.program.type_of(decl)
        nested = _designated(decl.init) or _nested(decl.init)
        if t.kind == "struct" or (t.kind == "array" and (self._aggregate_elements(t) or nested)):
            return self._constant_aggregate(name, t, decl)
        if t.kind == "array":
            elem, dims = self._pt(TypeInfo("pointer", target=self._declared(t, decl.init)))
            assert elem is not None
            values = self._init_values(decl.init, elem)
            count = math.prod(dims)
            nbytes = count * elem_bytes(elem)
            region = Region.allocate("constant", f"__constant variable '{name}'", 1, nbytes, "none")
            region.read_only = True
            flat = region.view(elem.scalar.dtype)
            data = np.asarray(values, dtype=elem.dtype).reshape(-1)[: count * elem.width]  # (excess: dropped)
            flat[: data.size] = data
            return Var(array=Pointer(region, elem, np.asarray(0, np.int64), dims))
        ct = self._ct(t)
        v = self.eval(decl.init, self.all) if decl.init is not None else Value(ct, np.zeros((), ct.dtype))
        return Var(ct, self.to_value(v, ct))

    def local_constant(self, decl: c_ast.Decl) -> Var:
        """A kernel's ``__constant`` variable: made when first declared, the same object for the rest of the launch
        (also when the kernel is called as a function by another)."""
        var = self.local_constants.get(id(decl))
        if var is None:
            var = self.local_constants[id(decl)] = self.constant_var(decl.name, decl)
        return var

    def _aggregate_elements(self, t: TypeInfo) -> bool:
        """Arrays whose elements are structs or vectors: initialized element by element (``init_object``)."""
        elem, _ = self._pt(TypeInfo("pointer", target=t))
        return elem is not None and (isinstance(elem, StructType) or elem.width > 1)

    def _uniform(self, init: c_ast.Node | None) -> bool:
        """Whether an initializer is made of constants only (the same in every lane: written to every row at once;
        others go element by element, ``init_object``)."""
        if init is None or isinstance(init, c_ast.Constant):
            return True
        if isinstance(init, c_ast.InitList):
            return all(self._uniform(e) for e in init.exprs)
        if isinstance(init, c_ast.UnaryOp) and init.op in ("-", "+", "~", "!"):
            return self._uniform(init.expr)
        if isinstance(init, c_ast.Cast):
            return self._uniform(init.expr)
        if isinstance(init, c_ast.BinaryOp):
            return self._uniform(init.left) and self._uniform(init.right)
        return isinstance(init, c_ast.ID) and init.name in self.program.enumerators

    def _declared(self, t: TypeInfo, init: c_ast.Node | None) -> TypeInfo:
        """``t`` with an array's missing length taken from its brace-enclosed initializer."""
        if t.kind == "array" and t.length is None and isinstance(init, c_ast.InitList):
            length = self.program.list_lengths[id(init)]  # (the checker sized every such list)
            return TypeInfo("array", t.name, t.width, t.target, t.space, t.const, length)
        return t

    def _constant_aggregate(self, name: str, t: TypeInfo, decl: c_ast.Decl) -> Var:
        t = self._declared(t, decl.init)
        elem, dims = self._pt(TypeInfo("pointer", target=t)) if t.kind == "array" else (self._ct(t), ())
        assert elem is not None
        size = size_align(t, self.types)[0]
        flexible = self.program.list_lengths.get(id(decl.init)) if t.kind == "struct" else None
        if flexible and isinstance(elem, StructType):  # its flexible array member's elements (GNU C), past it
            last = elem.members[-1]
            assert last.type.target is not None
            size = max(size, last.offset + flexible * size_align(last.type.target, self.types)[0])
        region = Region.allocate("constant", f"__constant variable '{name}'", 1, size, "none")
        p = Pointer(region, elem, np.asarray(0, np.int64), dims)
        if decl.init is not None:
            first = np.zeros(self.n, dtype=bool)
            first[:1] = True  # one row, the same for every lane: written once
            self.init_object(p, t, decl.init, first)
        region.read_only = True
        return Var(array=p) if t.kind == "array" else Var(mem=p)

    def _init_values(self, init: c_ast.Node | None, elem: CType) -> list[Any]:
        if init is None:
            return []
        if isinstance(init, c_ast.InitList):
            out: list[Any] = []
            for e in init.exprs:
                out.extend(self._init_values(e, elem))
            return out
        v = self.eval(init, self.all)
        if isinstance(v, Pointer) or isinstance(elem, PtrType):
            v = self.to_value(v, elem)
        a = np.asarray(self._conv(v, elem.scalar if v.t.width == 1 else elem))
        return list(a.reshape(-1))

    def parameter(self, name: str, ct: CType, v: Value | Pointer, mask: Array) -> Var:
        """A by-value parameter of a kernel or helper (a pointer one: its address): a value, or where ``&name``
        appears in the program (``Program.address_taken``: cephes' ``bessel_recur(&n, x, &k, 1)`` of its parameter
        ``n``, CLSmith's ``&p`` of a pointer) a private object holding it, as a variable whose address is taken."""
        if name not in self.program.address_taken:
            return Var(ct, self.to_value(v, ct))
        region = Region.allocate("private", f"__private parameter '{name}'", self.n, elem_bytes(ct), "lane")
        base = Pointer(region, ct, np.asarray(0, np.int64))
        self.store(base, self.to_value(v, ct), mask)
        return Var(mem=base)

    def share_overlapping(self, spans: list[tuple[int, Region]]) -> None:
        """Arguments over overlapping bytes of one allocation: one memory for the checks (``aliasing.py``), each
        named in the others' findings."""
        for group in overlapping(spans):
            replaced = share_records(group)
            self.init_flags = [(flags, replaced.get(id(held), held)) for flags, held in self.init_flags]
            names = [region.description.split("(", 1)[1].rstrip(")") for _, region in group]
            for (_, region), own in zip(group, names, strict=True):
                others = " and ".join(name for name in names if name != own)
                region.description = f"{region.description[:-1]}, which overlaps {others})"

    def bind_args(self, args: Sequence[Any]) -> None:
        params = self.kernel.params
        if len(args) != len(params):
            raise TypeError(f"kernel '{self.kernel.name}' takes {len(params)} arguments, got {len(args)}")
        scope: dict[str, Var] = {}
        regions: dict[tuple[str, int, int], Region] = {}  # by space, first byte and size (``same``, below)
        spans: list[tuple[int, Region]] = []  # each buffer's region once, with its first byte's address
        for p, arg in zip(params, args, strict=True):
            if p.kind == "buffer":
                if arg is None:  # a NULL pointer (clSetKernelArg with a NULL buffer): dereferencing it faults
                    elem, dims = pointee_of(p.type)
                    scope[p.name] = Var(value=Pointer(None, elem, np.asarray(0, np.int64), dims), is_pointer=True)
                    continue
                arg, access, initialized = unwrap(arg)
                buf = np.asarray(arg)
                if buf.dtype != np.uint8 or buf.ndim != 1:
                    raise TypeError(f"argument '{p.name}': a buffer must be a 1-D uint8 array")
                elem, dims = self._pt(p.type)
                desc = f"__{p.address_space} buffer (argument '{p.name}')"
                granule = _granule(elem)
                read_only = p.address_space == "constant" or p.const or access == "read_only"
                same = (p.address_space, buf.__array_interface__["data"][0], buf.size)
                region = regions.get(same)
                if region is not None:  # one buffer as two arguments: one memory, one race record, one set of flags
                    region.description = (
                        region.description.replace("(argument '", "(arguments '")[:-1] + f" and '{p.name}')"
                    )
                    region.granule = math.gcd(region.granule, granule)
                    region.track_races = region.track_races or not p.const
                    region.read_only = region.read_only and read_only
                    region.write_only = region.write_only and access == "write_only"
                    if region.init is not None and initialized is not None:
                        self.init_flags.append((initialized, region.init))
                    scope[p.name] = Var(value=Pointer(region, elem, np.asarray(0, np.int64), dims), is_pointer=True)
                    continue
                region = regions[same] = Region(
                    p.address_space,
                    desc,
                    buf.reshape(1, -1),
                    buf.size,
                    "none",
                    granule=granule,
                    track_races=not p.const,
                    read_only=read_only,
                )
                region.write_only = access == "write_only"
                if initialized is not None and self.checks and not bool(initialized.all()):
                    region.init = np.ones(-(-buf.size // 16) * 16, dtype=bool)  # padded: read as whole words
                    region.init[: buf.size] = initialized
                    self.init_flags.append((initialized, region.init))
                spans.append((same[1], region))
                scope[p.name] = Var(value=Pointer(region, elem, np.asarray(0, np.int64), dims), is_pointer=True)
            elif p.kind == "local":
                elem, dims = self._pt(p.type)
                size = int(arg)
                granule = _granule(elem)
                region = Region.allocate(
                    "local", f"__local buffer (argument '{p.name}')", self.groups, size, "group", granule
                )
                self.local_regions.append(region)
                scope[p.name] = Var(value=Pointer(region, elem, np.asarray(0, np.int64), dims), is_pointer=True)
            elif p.type.kind == "struct":
                st = self._ct(p.type)
                assert isinstance(st, StructType)
                raw = np.frombuffer(np.ascontiguousarray(arg).tobytes(), np.uint8)
                if raw.size != st.size:
                    raise TypeError(f"argument '{p.name}': {st.name} takes {st.size} bytes, got {raw.size}")
                region = self.private_object(f"__private argument '{p.name}'", st.size)
                region.data[:, : st.size] = raw
                scope[p.name] = Var(mem=Pointer(region, st, np.asarray(0, np.int64)))
            else:
                ct = self._ct(p.type)
                a = np.asarray(arg).astype(ct.dtype)
                if ct.width > 1:
                    a = a.reshape(ct.width)
                scope[p.name] = self.parameter(p.name, ct, Value(ct, a), self.all)
        if self.checks:
            self.share_overlapping(spans)
        for lv in self.kernel.local_vars:
            inner = self.program.type_of(lv.node).innermost
            elem = self._ct(inner)  # a scalar, vector, struct or pointer (``pointers.PtrType``)
            region = Region.allocate(
                "local",
                f"__local variable '{lv.name}'",
                self.groups,
                lv.size_bytes,
                "group",
                _granule(elem),
            )
            self.local_regions.append(region)
            base = Pointer(region, elem, np.asarray(0, np.int64), lv.shape)
            scope[lv.name] = Var(mem=base) if not lv.shape else Var(array=base)
        self._locals = {lv.name for lv in self.kernel.local_vars}
        self.frame.scopes.append(scope)
