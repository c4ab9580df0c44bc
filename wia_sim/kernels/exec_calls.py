"""The executor's calls: built-in functions (work-item functions, conversions, the math and integer tables,
vector loads and stores, atomics, barriers, async copies, ``printf``) and the program's own functions. A mixin of
``_Executor`` (``executor.py``), over the shared state of ``exec_state.py``, as the statements are
(``exec_statements.py``); named as the checker's calls (``check_calls.py``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from pycparser import c_ast

from wia_sim.kernels import builtins, tables
from wia_sim.kernels.affine import Affine
from wia_sim.kernels.async_copy import ASYNC_BUILTINS
from wia_sim.kernels.atomics import apply_atomic
from wia_sim.kernels.ctype import FLOAT, INT, SCALARS, CType, convert, elem_bytes
from wia_sim.kernels.exec_state import Array, ExecutorState, Result, _Frame, _line
from wia_sim.kernels.lanes import all_lanes, any_lane, per_lane
from wia_sim.kernels.lvalues import Var, merged
from wia_sim.kernels.operators import count_kind
from wia_sim.kernels.pointers import SEVERAL, PtrType
from wia_sim.kernels.program import FunctionInfo, Program
from wia_sim.kernels.signatures import BUILTIN_CONSTANTS, GNU_BUILTINS, MEMORY_BUILTINS
from wia_sim.kernels.spaces import Pointer, Region, Uninit, UnsupportedKernel, Value
from wia_sim.kernels.structs import StructType
from wia_sim.kernels.undef import carrying, defined, joined, reinterpreted_exactly, shaped, tainted, within

__all__ = ["WORK_ITEM_FUNCTIONS", "CallRunner"]

ULONG = SCALARS["ulong"]
UINT = SCALARS["uint"]

_LOCAL_FENCE = int(BUILTIN_CONSTANTS["CLK_LOCAL_MEM_FENCE"])
_GLOBAL_FENCE = int(BUILTIN_CONSTANTS["CLK_GLOBAL_MEM_FENCE"])

WORK_ITEM_FUNCTIONS = {
    "get_global_id",
    "get_local_id",
    "get_group_id",
    "get_global_size",
    "get_local_size",
    "get_num_groups",
    "get_work_dim",
    "get_global_offset",
}
_ATOMIC_RE = re.compile(r"(?:atomic|atom)_(add|sub|inc|dec|xchg|cmpxchg|min|max|and|or|xor)")
_VLOAD_RE = re.compile(r"v(load|store)(2|3|4|8|16)")
_VLOAD_HALF_RE = re.compile(r"v(load|store)(a?)_half(2|3|4|8|16)?(_rte|_rtz|_rtp|_rtn)?")


Counted = tuple[str, int] | None
"""The counter a call adds to and the width it counts per lane (None: it counts nothing)."""


@dataclass(frozen=True)
class ValueBuiltin:
    """A built-in of values only, on arguments every lane defined: ``apply`` computes its result and ``counted``
    says what it counts, from the arguments' and result's types alone (compiled trees, ``compiled.py``, count it
    once they are done)."""

    apply: Callable[[list[Value]], Value]
    counted: Callable[[list[Value], Value], Counted]

    def __call__(self, ex: CallRunner, values: list[Value], mask: Array) -> Value:
        r = self.apply(values)
        counted = self.counted(values, r)
        if counted is not None:
            ex.count(counted[0], mask, counted[1])
        return r


def _widest(values: list[Value]) -> int:
    return max(v.t.width for v in values)


def _converted(name: str) -> ValueBuiltin:
    return ValueBuiltin(
        lambda values: builtins.convert_to(name, values[0]), lambda values, r: (count_kind(r.t), r.t.width)
    )


def _reinterpreted(name: str) -> ValueBuiltin:
    return ValueBuiltin(lambda values: builtins.as_type(name, values[0]), lambda values, r: None)


def _tabled(name: str) -> ValueBuiltin:
    function = tables.FUNCTIONS[name]
    # (under the launch's ``np.errstate``: ``tables.call_table`` without its own)
    return ValueBuiltin(
        lambda values: function(name, values), lambda values, r: (tables.op_kind(name, values), _widest(values))
    )


def _single(v: Value) -> Value:
    """``v`` converted to ``float`` (of its width), as an argument of a ``native_`` or ``half_`` function."""
    if v.t.name == "float":
        return v
    t = FLOAT.vector(v.t.width)
    return Value(t, convert(np.asarray(v.a), v.t, t))


def _math(name: str) -> ValueBuiltin:
    base = name.removeprefix("native_").removeprefix("half_")
    special = base in builtins.SPECIAL

    def counted(values: list[Value], r: Value) -> Counted:
        return ("special_ops" if special else count_kind(r.t), _widest(values))

    if base == name:
        return ValueBuiltin(lambda values: builtins.evaluate(base, values), counted)
    # the native_ and half_ functions take and give floats alone (OpenCL C 1.2 6.12.2, Table 6.9): a double or half
    # argument converts to float first, as Clang resolves the call (the simulator computed in double precision)
    return ValueBuiltin(lambda values: builtins.evaluate(base, [_single(v) for v in values]), counted)


@functools.cache
def value_builtin(name: str) -> ValueBuiltin | None:
    """How the built-in ``name`` of values only (a conversion, a reinterpretation, a function of the tables or of
    math) computes, decided once per name; None for any other name."""
    if name.startswith("convert_"):
        return _converted(name)
    if name.startswith("as_"):
        return _reinterpreted(name)
    if name in tables.FUNCTIONS:
        return _tabled(name)
    base = name.removeprefix("native_").removeprefix("half_")
    return _math(name) if base in builtins.MATH_FUNCTIONS else None


_NOT_VALUES = {"offsetof", "printf", "barrier", "mem_fence", "read_mem_fence", "write_mem_fence", "vec_step"}
"""Built-ins that a name test alone does not tell from those of values only."""


def value_call(node: c_ast.FuncCall, program: Program) -> ValueBuiltin | None:
    """The built-in of values only that ``node`` calls (``value_builtin``), or None for every other call (the
    program's functions, work-item functions, memory and synchronization)."""
    if not isinstance(node.name, c_ast.ID):
        return None
    name = node.name.name
    if (
        program.callable(name) is not None
        or name in _NOT_VALUES
        or name in GNU_BUILTINS
        or name in WORK_ITEM_FUNCTIONS
        or name in ASYNC_BUILTINS
        or name in tables.POINTER_OUT
        or name in ("shuffle", "shuffle2")
        or _ATOMIC_RE.fullmatch(name)
        or _VLOAD_RE.fullmatch(name)
        or _VLOAD_HALF_RE.fullmatch(name)
    ):
        return None
    return value_builtin(name)


def call_plan(node: c_ast.FuncCall, program: Program) -> Callable[[CallRunner, Array], Result] | None:
    """How a call of a built-in of values only evaluates, decided once per node: its arguments, then the
    built-in's computation (``value_call``), where ``expr_FuncCall`` would sort the name out at every call; None
    for every other call."""
    compute = value_call(node, program)
    if compute is None:
        return None
    name = node.name.name
    args = tuple(node.args.exprs) if node.args is not None else ()

    def run(ex: CallRunner, mask: Array) -> Result:
        values = [ex.value(a, mask) for a in args]
        for v in values:
            if v.undef is not None:  # (an operand some lane left undefined: its shadow is followed)
                return ex.call_values(name, values, mask, node)
        assert compute is not None
        return compute(ex, values, mask)

    return run


class CallRunner(ExecutorState):
    """The call visitors of ``_Executor``: ``expr_FuncCall`` and what it dispatches to."""

    def expr_FuncCall(self, node: c_ast.FuncCall, mask: Array) -> Result:
        name = node.name.name
        args = list(node.args.exprs) if node.args is not None else []
        fn = self.program.callable(name)
        if fn is not None:
            return self.call_helper(fn, args, mask)
        if name == "offsetof":  # the checker's constant (``check_calls.offsetof``)
            return Value(ULONG, np.asarray(self.program.sizes[id(node)], np.uint64))
        if name in GNU_BUILTINS:  # (``check_calls.gnu_builtin``)
            if name in MEMORY_BUILTINS:
                return self.bytes_moved(name, args, mask)
            if name == "__builtin_constant_p":  # the checker's verdict; its operand is not evaluated
                return Value(INT, np.asarray(self.program.sizes[id(node)], np.int32))
            values = [self.value(a, mask) for a in args]
            if name == "__builtin_expect":
                return self.to_value(values[0], SCALARS["long"])
            return Value(INT, np.asarray(0, np.int32))  # __builtin_unreachable: nothing (reaching it is undefined)
        if name in WORK_ITEM_FUNCTIONS:
            return self.work_item(name, args, mask)
        if name in ASYNC_BUILTINS:
            return self.async_copies.call(name, args, mask, _line(node))
        if name == "printf":
            return self.printf.call(node, mask)
        if name in ("barrier", "mem_fence", "read_mem_fence", "write_mem_fence"):
            # a fence orders only its own work-item's accesses, which lockstep order keeps anyway: no effect
            if name == "barrier":
                self.barrier(mask, _line(node), self.fence_flags(args[0], mask))
            return Value(INT, np.asarray(0, np.int32))
        m = _ATOMIC_RE.fullmatch(name)
        if m:
            return self.atomic(m.group(1), args, mask, node)
        m = _VLOAD_RE.fullmatch(name)
        if m:
            return self.vload_store(m.group(1), int(m.group(2)), args, mask, call=node)
        m = _VLOAD_HALF_RE.fullmatch(name)
        if m:
            aligned, rounding = m.group(2) == "a", m.group(4) or ""
            return self.vload_store(m.group(1), int(m.group(3) or 1), args, mask, True, aligned, rounding)
        if name in tables.POINTER_OUT or name in ("vec_step", "shuffle", "shuffle2"):
            return self.call_table_special(name, args, mask, node)
        if name == "__builtin_shufflevector":
            return self.shufflevector(node, args, mask)
        return self.call_values(name, [self.value(a, mask) for a in args], mask, node)

    def call_values(self, name: str, values: list[Value], mask: Array, node: c_ast.FuncCall) -> Result:
        """A built-in of values only (``value_builtin``) on its evaluated arguments, their shadows (``undef.py``)
        taken care of."""
        shadow = joined(values)
        if shadow is not None and name.startswith("as_"):  # a reinterpretation: the bytes keep their shadow
            r = self.builtin(name, [defined(values[0])], mask, node)
            assert isinstance(r, Value)
            bytewise, origin = reinterpreted_exactly(shadow[0], shadow[1], values[0].t, r.t)
            return carrying(r.t, r.raw, bytewise, origin)
        if shadow is not None and name == "select":  # a choice, as ``?:`` is (Oclgrind: LLVM's select)
            r = self.builtin(name, [defined(v) for v in values], mask, node)
            assert isinstance(r, Value)
            return carrying(r.t, r.raw, self.selected_shadow(values, r.t), shadow[1])
        if shadow is not None and name == "bitselect":  # bits of both operands and the mask
            return tainted(self.builtin(name, [defined(v) for v in values], mask, node), shadow)
        if shadow is not None:  # a call looks at its arguments: Oclgrind's finding, which goes on (``undef.py``)
            for v in values:
                undef = None if v.undef is None else within(v.undef, mask)
                if undef is not None:
                    assert v.origin is not None
                    self.st.note(v.origin.fault(undef, f"and its value used by {name}()"))
                    break
            return tainted(self.builtin(name, [defined(v) for v in values], mask, node), shadow)
        return self.builtin(name, values, mask, node)

    def selected_shadow(self, values: list[Value], t: CType) -> Array:
        """The shadow of ``select(a, b, c)`` (a result of ``t``): the chosen operand's in each lane (component), and
        the selector's where it is undefined itself."""
        a, b, c = values
        shape = (self.n, t.width) if t.width > 1 else (self.n,)
        itype = INT.vector(t.width)

        def flags(v: Value) -> Value:
            u = np.zeros(shape, bool) if v.undef is None else np.broadcast_to(shaped(v.undef, t), shape)
            return Value(itype, u.astype(np.int32))

        chosen = builtins.call_math("select", [flags(a), flags(b), defined(c)])
        undef = np.broadcast_to(np.asarray(chosen.raw) != 0, shape)
        return undef | shaped(c.undef, t) if c.undef is not None else np.array(undef)

    def builtin(self, name: str, values: list[Value], mask: Array, node: c_ast.FuncCall) -> Result:
        """The built-in functions of values only (conversions, reinterpretations, the tables' and math)."""
        compute = value_builtin(name)
        if compute is None:
            raise UnsupportedKernel(f"line {_line(node)}: built-in '{name}' is not supported by the executor")
        return compute(self, values, mask)

    def call_table_special(self, name: str, args: list[c_ast.Node], mask: Array, node: c_ast.FuncCall) -> Result:
        """The math functions that store through a pointer argument (the store is checked and counted as any
        store), ``vec_step`` and ``shuffle``/``shuffle2``."""
        if name in tables.POINTER_OUT:
            at = tables.POINTER_OUT[name]
            values = [self.value(a, mask) for a in args[:at]]
            p = self.eval(args[at], mask)
            if not isinstance(p, Pointer) or p.elem is None:
                raise UnsupportedKernel(f"line {self.st.line}: '{name}' needs a pointer as its last argument")
            p = self.converted(p, node)
            assert p.elem is not None
            result, out = tables.call_pointer_out(name, values, p.elem)
            self.store(p, out, mask)
            kind = "special_ops" if name in ("sincos", "lgamma_r") else self._kind(result.t)
            self.count(kind, mask, result.t.width)
            return result
        if name == "vec_step":  # its operand is not evaluated, as sizeof's (a compile-time constant in Clang)
            t = self.value(args[0], np.zeros(self.n, dtype=bool)).t
            return Value(ULONG, np.asarray(4 if t.width == 3 else t.width, np.uint64))  # (a size_t, as Clang's)
        *xs, selector = [self.value(a, mask) for a in args]
        m = xs[0].t.width  # (only the low log2(m) or log2(2m) bits of each mask element count)
        index = np.asarray(defined(selector).a).astype(np.int64) & (m * len(xs) - 1)
        self.count("int_ops", mask, index.shape[-1])
        return self.picked(xs, index, selector)

    def shufflevector(self, node: c_ast.FuncCall, args: list[c_ast.Node], mask: Array) -> Value:
        """``__builtin_shufflevector(a, b, i...)``: the components of ``a`` then ``b`` that the constant indices pick
        (``Program.shuffles``), -1 a component LLVM leaves undefined; ``__builtin_shufflevector(a, m)``: component
        ``m[k]`` of ``a``, the index cut to the bits below ``a``'s width rounded up to a power of two, as Clang's
        code masks it (one that still points past a 3-vector is undefined too)."""
        indices = self.program.shuffles[id(node)]
        a, b = (self.value(e, mask) for e in args[:2])
        if indices:
            index = np.asarray([max(k, 0) for k in indices])
            past = np.asarray(indices) < 0
            self.count("int_ops", mask, index.size)
            what = "component of '__builtin_shufflevector' whose index is -1 (LLVM's undef)"
            return self.picked([a, b], index, None, past if past.any() else None, what)
        width = a.t.width
        index = np.asarray(defined(b).a).astype(np.int64) & ((1 << (width - 1).bit_length()) - 1)
        past = index >= width
        self.count("int_ops", mask, width)
        what = "component of '__builtin_shufflevector' whose index lies past its vector (LLVM's undef)"
        return self.picked([a], np.minimum(index, width - 1), b, past if past.any() else None, what)

    def picked(
        self, xs: list[Value], index: Array, selector: Value | None, past: Array | None = None, what: str = ""
    ) -> Value:
        """The components of ``xs`` laid end to end that ``index`` picks (``tables.picked``), not a use of them
        (LLVM's shufflevector, as Oclgrind sees it): a result component is undefined where the one it picks is,
        where the ``selector`` that gave its index is, and where ``past`` says its index picked none (``what``,
        when nothing else is undefined)."""
        shadow = joined([*xs, selector] if selector is not None else xs)
        if shadow is None and past is None:
            return tables.picked(xs, index)
        result = tables.picked([defined(x) for x in xs], index)
        shape = (self.n, index.shape[-1])
        flags = [shaped(x.undef, x.t) if x.undef is not None else np.zeros((self.n, x.t.width), bool) for x in xs]
        undef = np.take_along_axis(np.concatenate(flags, axis=-1), np.broadcast_to(index, shape), axis=-1)
        if selector is not None and selector.undef is not None:
            undef = undef | shaped(selector.undef, selector.t)
        if past is not None:
            undef = undef | past
        if shadow is not None:
            origin = shadow[1]
        else:
            origin = Uninit(self.st, "uninitialized_private", what, self.st.line, unspecified=True)
        return carrying(result.t, np.array(np.broadcast_to(result.raw, shape)), undef, origin)

    def call_helper(self, fn: FunctionInfo, args: list[c_ast.Node], mask: Array) -> Result:
        values = [self.eval(a, mask) for a in args]
        scope: dict[str, Var] = {}
        for p, v in zip(fn.params, values, strict=True):
            if p.kind == "pointer" and p.name not in self.program.address_taken:  # (``&p``: kept in memory, below)
                elem, dims = self._pt(p.type)
                if not isinstance(v, Pointer):  # an integer (``f(0)``: NULL): the address it holds, as a cast
                    v = self.addresses.pointer(np.asarray(self.used(v, mask, "as a pointer").a), elem, dims, mask)
                scope[p.name] = Var(value=Pointer(v.region, elem, v.off, dims, v.null), is_pointer=True, ptr_elem=elem)
            elif p.type.kind == "struct":
                st = self._ct(p.type)
                assert isinstance(st, StructType)
                copy_ = Pointer(
                    self.private_object(f"__private parameter '{p.name}'", st.size), st, np.asarray(0, np.int64)
                )
                self.struct_store(copy_, st, self.to_value(v, st), mask)
                scope[p.name] = Var(mem=copy_)
            else:  # (a pointer whose address is taken: its address in private memory, as a local's)
                scope[p.name] = self.parameter(p.name, self._ct(p.type), v, mask)
        ret_type = None if fn.return_type.kind == "void" else self._ct(fn.return_type)
        saved, line = self.frame, self.st.line
        self.frame = _Frame([self.globals, scope], ret_type=ret_type, loops=list(saved.loops))
        try:
            self.block(fn.node.body.block_items or [], mask)
            result, returned = self.frame.retval, self.frame.ret
        finally:
            self.frame = saved
        self.st.line = line  # the rest of the calling statement is on the caller's line
        if self.checks and ret_type is not None and not isinstance(ret_type, PtrType | StructType):
            ended = mask if returned is None else mask & ~returned
            if any_lane(ended):  # ran off the end of a non-void function: its value is undefined (C99 6.9.1p12)
                lost = self._undefined(ret_type, f"return value of '{fn.name}' (it ended without a return statement)")
                result = lost if result is None else merged(ended, lost, result, ret_type.width)
        if isinstance(ret_type, PtrType):  # the addresses each lane returned (0, NULL, where it returned none)
            a = np.zeros((), np.int64) if result is None else np.asarray(result.a)
            return self.addresses.pointer(a, ret_type.target, ret_type.dims, mask)
        if result is None:
            if ret_type is None:
                return Value(INT, np.asarray(0, np.int32))
            if isinstance(ret_type, StructType):
                return Value(ret_type, np.zeros(ret_type.size, np.uint8))
            return Value(ret_type, np.zeros((ret_type.width,) if ret_type.width > 1 else (), ret_type.dtype))
        return result

    def work_item(self, name: str, args: list[c_ast.Node], mask: Array) -> Value:
        g = self.geometry
        if name == "get_work_dim":
            return Value(UINT, np.asarray(g.work_dim, np.uint32))
        dv = self.value(args[0], mask)
        dims = np.asarray(dv.a)  # nearly always a constant: no pass over the lanes
        if dims.ndim:
            dims = np.unique(dims)
            if dims.size != 1:
                raise UnsupportedKernel(f"line {self.st.line}: {name} with a dimension that differs between work-items")
        d = int(dims.reshape(-1)[0])
        if not 0 <= d < 3 or d >= g.work_dim:
            default = 1 if name in ("get_global_size", "get_local_size", "get_num_groups") else 0
            return Value(ULONG, np.asarray(default, np.uint64))
        ids_of = Affine.work_item(name, d, g)
        if ids_of is not None:  # kept as coefficients: the array is made only if a lane-wise operation needs it
            return Value(ULONG, None, ids_of)
        value: Any  # only the ids asked for are computed: a launch of a million work-items pays for what it uses
        match name:
            case "get_global_id":
                value = self.lanes.global_id[d]
            case "get_local_id":
                value = self.lanes.local_id[d]
            case "get_group_id":
                value = self.lanes.group_id[d]
            case "get_global_size":
                value = g.global_size[d]
            case "get_local_size":
                value = g.local_size[d]
            case "get_num_groups":
                value = g.num_groups[d]
            case _:
                value = g.global_offset[d]
        ids = np.asarray(value)  # non-negative int64: viewed as size_t without a copy
        return Value(ULONG, ids.view(np.uint64) if ids.dtype == np.int64 else ids.astype(np.uint64))

    def fence_flags(self, arg: c_ast.Node, mask: Array) -> int:
        """A barrier's ``cl_mem_fence_flags``: the same for every work-item that reaches it (OpenCL C 1.2, 6.12.8)."""
        value = np.asarray(self.value(arg, mask).a)
        if value.ndim == 0:  # a constant, as nearly always: the same for every work-item
            return int(value)
        flags = np.unique(value[mask])
        if flags.size > 1:
            raise UnsupportedKernel(f"line {self.st.line}: barrier flags that differ between work-items")
        return int(flags[0]) if flags.size else 0

    def groups_reaching(self, mask: Array, check: str, what: str) -> Array:
        """The work-groups some work-item of which reached a group-wide call (``what``: a barrier, an async copy,
        a wait); with checks on, a group that only some of its work-items reach is the ``check`` finding."""
        if mask is self.all or all_lanes(mask):  # the usual case: every work-item of every group
            return np.ones(self.groups, dtype=bool)
        gs = self.geometry.group_size
        per_group = mask.reshape(-1, gs)
        reached = np.asarray(per_group.any(axis=1))
        if self.checks:
            mixed = np.flatnonzero(reached & ~per_group.all(axis=1))
            if mixed.size:
                g = int(mixed[0])
                k = int(np.count_nonzero(per_group[g]))
                missing = int(np.flatnonzero(~per_group[g])[0]) + g * gs
                absent = ~per_group  # the work-items of those groups that do not reach it
                absent[~reached | per_group.all(axis=1)] = False
                raise self.st.fault(
                    check,
                    f"{what} reached by {k} of the {gs} work-items of the work-group; not reached",
                    missing,
                    offenders=absent.reshape(-1),
                )
        return reached

    def barrier(self, mask: Array, line: int, flags: int = _LOCAL_FENCE | _GLOBAL_FENCE) -> None:
        """Work-items of a group wait for each other; ``flags`` say which memory the barrier orders between them:
        ``CLK_GLOBAL_MEM_FENCE`` ``__global`` memory (a new epoch of the group's accesses), ``CLK_LOCAL_MEM_FENCE``
        ``__local`` memory (its race shadow is forgotten). An access the barrier does not order still races."""
        self.st.line = line
        reached = self.groups_reaching(mask, "barrier_divergence", "barrier")
        n = int(np.count_nonzero(reached))
        if flags & _GLOBAL_FENCE:
            self.st.epoch = self.st.epoch + reached
        if flags & _LOCAL_FENCE:
            for region in self.local_regions:
                region.barrier(self.st, reached, n == self.groups)
        self.counts["barriers"] = self.counts.get("barriers", 0) + n

    def vload_store(
        self,
        kind: str,
        width: int,
        args: list[c_ast.Node],
        mask: Array,
        halves: bool = False,
        aligned: bool = False,
        rounding: str = "",
        call: c_ast.FuncCall | None = None,
    ) -> Result:
        """vloadN/vstoreN, and with ``halves`` vload_halfN/vstore_halfN: halves in memory, floats in registers
        (the store rounds to nearest even by default, else by its ``_rtz``/``_rtp``/``_rtn`` suffix); ``aligned``
        (vloada_halfN/vstorea_halfN) steps by 4 halves for a 3-vector. A vstoreN ``call`` through a pointer to
        other elements stores its data's (``converted``)."""
        stride = 4 if aligned and width == 3 else width
        if kind == "load":
            p, t, addr = self.vector_at(args[0], args[1], width, stride, mask, "vload of", halves)
            if width == 3:  # three packed scalars (12 bytes for floats), not a 16-byte 3-vector in memory
                size = t.dtype.itemsize
                parts = [self.load(Pointer(p.region, t.scalar, addr + k * size), mask) for k in range(3)]
                loaded: Result = self.packed(t, [part for part in parts if isinstance(part, Value)])
            else:
                loaded = self.load(Pointer(p.region, t, addr), mask, natural=False)
            if halves and isinstance(loaded, Value):
                return self.to_value(loaded, SCALARS["float"].vector(width))
            return loaded
        data = self.value(args[0], mask)
        p, t, addr = self.vector_at(args[1], args[2], width, stride, mask, "vstore to", halves, call)
        if halves and isinstance(data, Value) and data.t.name != "half":
            source = SCALARS["double" if data.t.name == "double" else "float"]
            wide = self.to_value(data, source.vector(width))
            data = Value(t, tables.round_to_half(np.asarray(wide.a), rounding))
        if width == 3:  # component by component, each with its shadow (a store to private memory keeps it)
            v = self.to_value(data, t)
            bits = np.asarray(defined(v).a)
            undef = shaped(v.undef, t) if v.undef is not None else None
            for k in range(3):
                origin = None if v.origin is None else v.origin.picked((k,))
                part = carrying(t.scalar, bits[..., k], None if undef is None else undef[:, k], origin)
                self.store(Pointer(p.region, t.scalar, addr + k * t.dtype.itemsize), part, mask)
        else:
            self.store(Pointer(p.region, t, addr), data, mask, natural=False)
        return Value(INT, np.asarray(0, np.int32))

    def packed(self, t: CType, parts: list[Value]) -> Value:
        """A vector of ``t`` from one scalar value per component, each component undefined where its part is
        (a load is not a use: vload3 reads three scalars)."""
        bits = np.stack(np.broadcast_arrays(*(np.asarray(defined(v).a) for v in parts)), axis=-1)
        if all(v.undef is None for v in parts):
            return Value(t, bits)
        undef = np.stack(
            [shaped(v.undef, v.t) if v.undef is not None else np.zeros(self.n, bool) for v in parts], axis=-1
        )
        origin = next(v.origin for v in parts if v.undef is not None)
        return carrying(t, np.broadcast_to(bits, (self.n, len(parts))), undef, origin)

    def converted(self, p: Pointer, call: c_ast.FuncCall) -> Pointer:
        """``p``, the pointer argument of the built-in ``call``, as its overload takes it: to another type where
        the argument points to one no overload takes (``Program.converted_pointers``, Clang's conversion)."""
        converted = self.program.converted_pointers.get(id(call))
        if converted is None:
            return p
        element, width = converted
        return p.retyped(SCALARS[element] if width == 1 else SCALARS[element].vector(width))

    def bytes_moved(self, name: str, args: list[c_ast.Node], mask: Array) -> Value:
        """``__builtin_memcpy``, ``__builtin_memmove`` (every byte loaded before any is stored: an overlap copies as
        memmove does, which memcpy leaves undefined) and ``__builtin_memset``, byte by byte in each lane, each byte
        an access the checks see. A byte nobody wrote is copied as such (its destination byte uninitialized), not
        used: Oclgrind's uninitialized-value plugin reports no copy (measured: memcpy of a half-written private
        array to __global)."""
        dst = self.eval(args[0], mask)
        source = self.eval(args[1], mask)
        count = self.value(args[2], mask)
        line = self.st.line
        if not isinstance(dst, Pointer) or (name != "__builtin_memset" and not isinstance(source, Pointer)):
            raise UnsupportedKernel(f"line {line}: '{name}' of a non-pointer")
        regions = [p.region for p in (dst, source) if isinstance(p, Pointer) and isinstance(p.region, Region)]
        limit = max((r.nbytes for r in regions), default=0) + 1  # (a negative size: a fault past the object, soon)
        n = per_lane(np.minimum(np.asarray(count.a).astype(np.uint64), np.uint64(limit)).astype(np.int64), (self.n,))
        most = int(n[mask].max()) if bool(mask.any()) else 0
        uchar = SCALARS["uchar"]
        loaded: list[tuple[Value, Array]] = []
        for k in range(most):
            m = mask & (n > k)
            if isinstance(source, Pointer):
                v = self.load(Pointer(source.region, uchar, source.off + k, null=source.null), m)
                assert isinstance(v, Value)
            else:
                v = Value(uchar, self._conv(source, uchar))
            loaded.append((v, m))
        for k, (v, m) in enumerate(loaded):
            self.st.line = line
            self.store(Pointer(dst.region, uchar, dst.off + k, null=dst.null), v, m, copied=True)
        return Value(INT, np.asarray(0, np.int32))

    def vector_at(
        self,
        offset: c_ast.Node,
        pointer: c_ast.Node,
        width: int,
        stride: int,
        mask: Array,
        what: str,
        halves: bool,
        call: c_ast.FuncCall | None = None,
    ) -> tuple[Pointer, CType, Array]:
        """Where a vloadN/vstoreN moves its vector (``what``: "vload of", "vstore to"): the pointer, the vector
        type and the byte address per lane, ``offset * stride`` scalars on from the pointer. ``halves``: the
        scalars are halves whatever the pointer's elements (Clang converts another pointer, with a warning:
        ``check_calls.halves_through``); ``call``: the pointer as its overload takes it (``converted``)."""
        off = self.value(offset, mask)
        p = self.eval(pointer, mask)
        if not isinstance(p, Pointer) or p.elem is None:
            raise UnsupportedKernel(f"line {self.st.line}: {what} a non-pointer")
        elem = (p if call is None else self.converted(p, call)).elem
        assert elem is not None
        scalar = SCALARS["half"] if halves else elem.scalar
        addr = p.off + np.asarray(off.a).astype(np.int64) * elem_bytes(scalar) * stride
        return p, scalar.vector(width), addr

    def atomic(self, op: str, args: list[c_ast.Node], mask: Array, node: c_ast.Node) -> Value:
        p = self.eval(args[0], mask)
        if not isinstance(p, Pointer) or p.region is None or p.elem is None:
            raise UnsupportedKernel(f"line {_line(node)}: atomic on a non-pointer")
        p = self.converted(p, node)
        t = p.elem
        assert t is not None
        operands = [self._conv(self.value(a, mask), t) for a in args[1:]]
        if p.region is SEVERAL:  # object by object (a legal order of the work-items' atomics)
            parts = [(self.atomic_at(op, q, operands, m, node), m) for q, m in self.addresses.split(p, mask)]
            result = self._gathered(parts, mask)
            assert isinstance(result, Value)
            return result
        return self.atomic_at(op, p, operands, mask, node)

    def atomic_at(self, op: str, p: Pointer, operands: list[Array], mask: Array, node: c_ast.Node) -> Value:
        """The atomic ``op`` on what ``p`` points to (one object, or NULL)."""
        if p.region is None or p.elem is None:
            raise self.null_fault(p, mask, "atomic update")
        t = p.elem
        region = p.region
        if region.space not in ("global", "local") or t.width > 1:
            raise UnsupportedKernel(f"line {_line(node)}: atomics on {region.space} {t}")
        if region.read_only and bool(mask.any()):  # even unchecked, as for stores: it may be the caller's memory
            region.refuse_write(self.st, mask, "atomic update")
        # reads and writes go through the region for checks and counts; the update itself is sequential
        flat, ok, _ = region._prepare(self.st, p.off, mask, t, True)
        if self.st.misaligned is not None:  # (checks off: an atomic off its alignment updates nothing)
            self.st.misaligned = None
        lanes_ = np.flatnonzero(ok)
        result = np.zeros(self.n, dtype=t.dtype)
        self.counts["atomics"] = self.counts.get("atomics", 0) + lanes_.size
        if lanes_.size == 0:
            return Value(t, result)
        if self.st.checks:
            region._check(self.st, flat, ok, t, write=False, atomic=True)
        view = region.view(t.dtype)
        idx = per_lane(flat // t.dtype.itemsize, (self.n,))[lanes_]
        ops = [per_lane(o, (self.n,))[lanes_] for o in operands]
        old = apply_atomic(op, view, idx, ops, t)
        result[lanes_] = old
        if self.st.checks:
            # a cmpxchg whose comparison fails stores nothing: an atomic load, as Oclgrind counts it
            stores = ok.copy()
            if op == "cmpxchg":
                stores[lanes_] = old == ops[0]
            region._check(self.st, flat, stores, t, write=True, atomic=True)
            if not bool(stores.all()) and bool((ok & ~stores).any()):
                region._check(self.st, flat, ok & ~stores, t, write=False, atomic=True, load=True)
        region._counted(self.st, lanes_.size, t, "read")
        region._counted(self.st, lanes_.size, t, "written")
        return Value(t, result)
