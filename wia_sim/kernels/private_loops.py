"""Loops of private arithmetic, reads of memory and private structs' members, run on the lanes still in them.

A loop whose trip count differs by work-item, ``while (v != 1u) { v = (v & 1u) ? 3u * v + 1u : v >> 1; ++steps; }``,
costs the lockstep interpreter a pass over the launch's lanes per trip until its last lane leaves, each statement
dispatched, masked and merged into every lane's variable. When the loop's condition, body and step are all private
arithmetic that ``compiled.py`` compiles (expression statements, declarations of scalars or vectors with an
initializer, ``if``/``else`` and ``switch`` of such statements, ``break``, ``continue``, ``return`` and inner loops
of them, run masked), reads of memory (``a[i]``, ``a[i].w``: ``_Compiler.read``) and reads and writes of the
members of private structs (``s.m.x``, ``s.v.xz``: ``_Compiler.member``, columns of the struct's rows), with no other
store to memory, call of the program's functions or ``goto``, ``PrivateLoops.private_trips`` runs its trips on
arrays of the lanes in the loop alone: each variable the loop reads or writes taken at those lanes once (the
variables themselves where every lane of the launch enters), the lanes that leave dropped from the arrays (and their
values put back) once a quarter of them have left, the trips' statements run straight on the compiled trees, with
no mask to merge while every lane of the arrays runs them, each read made by those lanes alone
(``Region.load_lanes``: the interpreter's checks and counts). What a trip counts, the lockstep steps, each lane's
steps and the variables it leaves are those of the interpreter's trips, bit for bit
(``tests/test_kernel_private_loops.py`` compares the two on random loops).

It gives the loop back to the interpreter, at the start of a trip and with every variable as the trips so far left
it, where the next trip, or an inner loop's, could pass the step limit or is one at which the interpreter compares
the launch's state (``progress.py``: a loop that cannot end), and where a tree gives itself back
(``compiled.Fallback``: a division by zero with checks on, a read through NULL or of bytes nobody wrote): the
interpreter runs that trip, reports what it finds in its own words, and gives the loop to the path again after it
(``StatementRunner.loop``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from pycparser import c_ast

from wia_sim.kernels.batch_loops import names_read
from wia_sim.kernels.compiled import (
    Code,
    Counts,
    Fallback,
    Root,
    Tally,
    as_value,
    compiled_expression,
    compiled_root,
    converted,
    incremented,
    summed,
    updated,
)
from wia_sim.kernels.ctype import INT, CType, elem_bytes, promoted, wrap
from wia_sim.kernels.exec_state import Array, ExecutorState, _line
from wia_sim.kernels.jumps import switch_items, switch_labels
from wia_sim.kernels.lanes import all_lanes, any_lane
from wia_sim.kernels.lvalues import Var, merged
from wia_sim.kernels.pointers import SEVERAL
from wia_sim.kernels.spaces import Pointer, Value
from wia_sim.kernels.structs import StructType
from wia_sim.kernels.types import swizzle_indices
from wia_sim.kernels.undef import carrying, within

if TYPE_CHECKING:
    from wia_sim.kernels.executor import _Executor

__all__ = ["PrivateLoops"]

_COMPACT_AT = 0.75
"""The arrays are compacted once at most this fraction of their lanes is still in the loop (each compaction costs a
gather per variable, and a scatter per variable written of the lanes that left)."""
_UPDATES = frozenset({"++", "--", "p++", "p--"})


@dataclass(frozen=True)
class _Expr:
    """An expression statement: an assignment or an increment (``line``: where a read of memory in it is)."""

    root: Root
    ops: Counts
    line: int


@dataclass(frozen=True)
class _Declared:
    """A declaration: its name, type and initializer (converted to the type)."""

    name: str
    t: CType
    init: Callable[[_Executor, Array, Tally], Array]
    ops: Counts
    line: int


@dataclass(frozen=True)
class _If:
    """``if (cond) then else orelse``; each branch a scope of its own, as ``StatementRunner.substatement`` makes."""

    cond: Code
    then: _Block | None
    orelse: _Block | None
    line: int


@dataclass(frozen=True)
class _Jump:
    """``break`` (``leaves``) or ``continue``."""

    leaves: bool


@dataclass(frozen=True)
class _Return:
    """``return`` (of ``value``, converted to the function's type ``t``; None: none): its lanes leave every loop and
    the function (``StatementRunner.statement``'s ``Return``)."""

    value: Callable[[_Executor, Array, Tally], Array] | None
    t: CType | None
    ops: Counts
    line: int


@dataclass(frozen=True)
class _Block:
    """Statements run in a scope of their own (a compound statement, or a branch or body of one statement)."""

    items: tuple[_Statement, ...]
    statements: int
    """How many statements it holds, nested ones too, an inner loop's once: the most steps a lane takes in it
    besides the inner loops' trips."""


@dataclass(frozen=True)
class _Inner:
    """A loop inside the loop (``StatementRunner.loop``'s trips, masked: its lanes are not compacted): its first
    clause (a ``for``'s declarations or expression, in a scope of their own), condition, body and step."""

    init: tuple[_Declared | _Expr, ...]
    cond: Code | None
    body: _Block
    step: _Expr | None
    do_while: bool
    line: int
    """Its condition's line (the loop's, where the condition has none)."""


@dataclass(frozen=True)
class _Switch:
    """``switch`` whose ``case`` and ``default`` labels are all items of its body (``StatementRunner.switch``):
    its value converted to its promoted type, the labels (each case's position among ``items``, its value or
    range in that type, whether a range, its line), the default's position, and the body's statements as one
    block (None: a label or an empty statement, no step)."""

    cond: Callable[[_Executor, Array, Tally], Array]
    ops: Counts
    cases: tuple[tuple[int, Array, Array, bool, int], ...]
    default: int | None
    items: tuple[_Statement | None, ...]
    statements: int
    """The most steps a lane takes in it besides its own: a label's comparison after the first, and the body's."""
    line: int


_Statement = _Expr | _Declared | _If | _Jump | _Return | _Block | _Inner | _Switch


def _steps(found: _Statement) -> int:
    """The most steps a lane takes in a compiled statement, an inner loop's trips once (``_Block.statements``)."""
    if isinstance(found, _Block):  # (a compound statement takes no step of its own)
        return found.statements
    if isinstance(found, _If):
        return 1 + sum(b.statements for b in (found.then, found.orelse) if b is not None)
    return 1 + (found.statements if isinstance(found, _Switch) else 0)


@dataclass(frozen=True)
class _Loop:
    """A loop compiled: its condition (None: none), its body, its step (``for``'s third clause), the variables of
    the enclosing scopes it reads or writes, those it writes."""

    cond: Code | None
    body: _Block
    step: _Expr | None
    outer: tuple[str, ...]
    written: frozenset[str]
    line: int
    """Its condition's line (the loop's, where the condition has none)."""
    reads: bool
    """Whether it reads memory: a trip given back (``Fallback``) then takes back the bytes it counted."""
    structs: tuple[str, ...]
    """The private struct variables whose members it reads or writes (``_Compiler.member``)."""


_LOOPS: weakref.WeakKeyDictionary[c_ast.Node, _Loop | None] = weakref.WeakKeyDictionary()
"""Per loop body: the loop compiled, or None where it is not such a loop (decided once: the types of the variables
it reads are the program's)."""


def _target(node: c_ast.Node) -> str | None:
    """The variable an assignment or an increment stores to (``v`` of ``v.xy = e``)."""
    lvalue = node.lvalue if isinstance(node, c_ast.Assignment) else node.expr
    if isinstance(lvalue, c_ast.StructRef):
        lvalue = lvalue.name
    return lvalue.name if isinstance(lvalue, c_ast.ID) else None


def _base(var: Var | None) -> Pointer | None:
    """What ``var[i]`` indexes where ``_Compiler.read`` takes it: a pointer variable's pointer, or the first element
    of a declared one-dimensional ``__local`` or ``__constant`` array (whose index only the memory's bounds hold:
    ``index_member``'s ``whole``); None for anything else (a ``__private`` array, whose index is held to its length;
    a memory-backed scalar)."""
    if var is None or var.mem is not None:
        return None
    a = var.array
    if a is None:
        return var.value if type(var.value) is Pointer else None
    if len(a.dims) != 1 or a.region is None or a.region is SEVERAL or a.region.space not in ("local", "constant"):
        return None
    return a.row()


def _lanes_of(ex: _Executor, mask: Array) -> tuple[Array | None, Array]:
    """The places of ``mask``'s lanes in the arrays of the loop running (None: every place) and those lanes of the
    launch, in order (``trip_lanes``)."""
    local = None if mask is ex.all else np.flatnonzero(mask)
    ids = ex.trip_lanes
    if ids is None:
        return local, ex.lanes.ids if local is None else local
    return local, ids if local is None else ids[local]


def _column(ex: _Executor, name: str, offset: int, t: CType) -> Array:
    """Member ``t`` at byte ``offset`` of the private struct variable ``name``, a column of its rows (one per lane
    of the launch: ``Region.lane_columns``), found once per run of the loop (``trip_columns``); the trip is given
    back where it is anything else at run time."""
    key = (name, offset, t)
    column = ex.trip_columns.get(key)
    if column is None:
        column = ex.trip_columns[key] = _member_column(ex, name, offset, t)
    return column


def _member_column(ex: _Executor, name: str, offset: int, t: CType) -> Array:
    var = ex.lookup_var(name)
    if not _struct_loop_ready(var):
        raise Fallback
    assert var is not None and var.mem is not None and var.mem.region is not None
    column = var.mem.region.lane_columns(np.asarray(int(var.mem.off) + offset, np.int64), t)
    if column is None:
        raise Fallback
    return column


def _put(ex: _Executor, column: Array, a: Array, lanes: tuple[Array | None, Array], vector: bool) -> None:
    """``a`` (the arrays' values, or one for all) stored to ``column`` in ``lanes`` (``_lanes_of``: their places in
    the arrays and their lanes of the launch), what they held logged first (``trip_undo``)."""
    local, ids = lanes
    if local is None and ex.trip_lanes is None:  # (every lane of the launch)
        ex.trip_undo.append((column, None, column.copy()))
        column[...] = a
        return
    ex.trip_undo.append((column, ids, column[ids]))
    column[ids] = a if a.ndim < (2 if vector else 1) or local is None else a[local]


def _components(field: str, t: CType) -> tuple[int, ...] | None:
    """The components of vector type ``t`` that ``.field`` names, or None: a scalar, or the undefined w of a
    3-component vector (``.hi``, ``.w`` of a float3: the interpreter's)."""
    if t.width == 1:
        return None
    try:
        picked = swizzle_indices(field, t.width)
    except ValueError:  # (the checker said so)
        return None
    return None if max(picked) >= t.width else picked


def _struct_loop_ready(var: Var | None) -> bool:
    """Whether a private loop may read and write the members of struct variable ``var`` as columns of its rows: a
    __private struct, not packed, every byte of it initialized (so no access is a finding: ``Region.init``)."""
    p = None if var is None else var.mem
    if p is None or not isinstance(p.elem, StructType) or p.packed or p.dims or np.ndim(p.off) != 0:
        return False
    region = p.region
    if region is None or region is SEVERAL or region.space != "private" or region.per != "lane":
        return False
    return region.all_initialized()


class _Compiler:
    """The compiled form of a loop's body, with the names it declares and writes (``PrivateLoops._private_loop``)."""

    def __init__(self, ex: _Executor) -> None:
        self.ex = ex
        self.declared: set[str] = set()
        self.written: set[str] = set()
        self.bases: set[str] = set()  # the pointers it reads memory through
        self.structs: set[str] = set()  # the struct variables whose members it reads or writes

    def block(self, node: c_ast.Node) -> _Block | None:
        items = (node.block_items or []) if isinstance(node, c_ast.Compound) else [node]
        scope: dict[str, Var] = {}
        self.ex.frame.scopes.append(scope)  # the block's names, with their types, for what follows them
        try:
            compiled: list[_Statement] = []
            for item in items:
                if isinstance(item, c_ast.EmptyStatement):  # (no step: ``StatementRunner.statement``)
                    continue
                found = self.statement(item, scope)
                if found is None:
                    return None
                compiled.append(found)
            return _Block(tuple(compiled), sum(_steps(found) for found in compiled))
        finally:
            self.ex.frame.scopes.pop()

    def condition(self, node: c_ast.Node) -> Code | None:
        """A loop's or an ``if``'s condition, or a ``switch``'s value, compiled where it is a scalar's (a vector's is
        the checker's error)."""
        code = compiled_expression(self.ex, node, self.read)
        return None if code is None or (not code.boolean and code.t.width > 1) else code

    def read(self, ex: _Executor, node: c_ast.ArrayRef | c_ast.StructRef) -> Code | None:
        """``a[i]``, a scalar or a vector read through a pointer variable (a buffer argument, a private pointer into
        one) or of a declared ``__local`` or ``__constant`` array (``_base``), with an index the loop computes
        (reads of memory too: ``x[col[j]]``), or one component of a vector there, ``a[i].w`` (its bytes alone, as
        ``lvalues.SwizzleRef`` reads them): ``exec_memory``'s ``index_member`` and ``load``, by the lanes of the
        arrays alone (``Region.load_lanes``). Nothing in the loop stores to memory, so what it reads stays put.
        Where the pointer holds anything else at run time (NULL, several objects, a ``__private`` vector, whose
        component the interpreter reads whole), a lane reads bytes nobody wrote (its value is undefined, its use
        the finding: ``undef.py``) or, with checks on, a vector lies off its size's alignment (``aligned_vector``'s
        finding), the trip is given back (``Fallback``): the interpreter reads and reports."""
        found = self.member(node)
        if found is not None:
            return self._member_read(*found)
        if isinstance(node, c_ast.StructRef) and not isinstance(node.name, c_ast.ArrayRef):
            return self._member_components(node)
        field = None
        if isinstance(node, c_ast.StructRef):
            if node.type != "." or id(node) in ex.member_refs or not isinstance(node.name, c_ast.ArrayRef):
                return None
            field, node = node.field.name, node.name
        name = node.name.name if isinstance(node.name, c_ast.ID) else None
        base = None if name is None else _base(ex.lookup_var(name))
        if name is None or base is None or type(base.elem) is not CType:
            return None
        vt = t = base.elem
        skip = 0  # (a component's bytes into its vector)
        if field is not None:
            picked = _components(field, vt)
            if picked is None or len(picked) != 1:  # (several components: the interpreter's, one by one)
                return None
            t, skip = vt.scalar, picked[0] * vt.scalar.dtype.itemsize
        index = compiled_expression(ex, node.subscript, self.read)
        if index is None or (not index.boolean and (index.t.width > 1 or index.t.kind not in ("int", "uint"))):
            return None
        size = elem_bytes(vt)
        at = converted(index, INT if index.boolean else index.t)
        self.bases.add(name)

        def load(ex: _Executor, mask: Array, tally: Tally) -> Array:
            p = _base(ex.lookup_var(name))
            if p is None or p.region is None or p.region is SEVERAL or p.elem != vt:
                raise Fallback
            if p.null is not None or p.packed or p.dims or (field is not None and p.region.space == "private"):
                raise Fallback
            i = np.asarray(at(ex, mask, tally))
            local, ids = _lanes_of(ex, mask)
            step = np.multiply(i if i.ndim == 0 or local is None else i[local], size, dtype=np.int64, casting="unsafe")
            offsets = p.offsets_at(ids) + step + skip
            if t.width > 1 and ex.checks and bool((offsets & (size - 1)).any()):  # (a vector's size: a power of 2)
                raise Fallback
            values = p.region.load_lanes(ex.st, ids, offsets, t, defer=ex.checks)
            if ex.st.deferred is not None:
                ex.st.deferred = None
                raise Fallback
            if local is None:
                return values
            out = np.zeros((mask.shape[0], t.width) if t.width > 1 else mask.shape[0], t.dtype)
            out[local] = values
            return out

        return Code(t, load, summed(index.ops, (("int_ops", 1),)))  # (the index's: ``index_member``'s count)

    def member(self, node: c_ast.Node) -> tuple[str, int, CType, bool] | None:
        """A member of a private struct variable, ``s.m.x`` (``.`` all the way), or an element of one of its
        one-dimensional array members at a constant index inside it, ``s.a[1]``: the variable's name, the member's
        byte offset in it, its type (a scalar or a vector) and whether it is indexed. None for anything else (a
        pointer's ``->``, a packed or misaligned member, an index the interpreter checks against the bounds)."""
        ex = self.ex
        index: int | None = None
        if isinstance(node, c_ast.ArrayRef):
            if id(node) in ex.program.vector_subscripts:
                return None
            index = ex.program.const_int(node.subscript)
            if index is None:
                return None
            node = node.name
        fields: list[str] = []
        while isinstance(node, c_ast.StructRef):
            if node.type != "." or id(node) not in ex.member_refs:
                return None
            fields.append(node.field.name)
            node = node.name
        if not fields or not isinstance(node, c_ast.ID) or not _struct_loop_ready(ex.lookup_var(node.name)):
            return None
        var = ex.lookup_var(node.name)
        assert var is not None and var.mem is not None and isinstance(var.mem.elem, StructType)
        st: CType = var.mem.elem
        offset, dims = 0, cast(tuple[int, ...], ())
        for k, name in enumerate(reversed(fields)):
            m = st.member(name) if isinstance(st, StructType) else None
            if m is None:
                return None
            elem = ex._ct(m.type.innermost)
            if ex._off_alignment(cast(StructType, st), m, elem):
                return None
            if k < len(fields) - 1 and (m.dims or not isinstance(elem, StructType)):
                return None
            st, offset, dims = elem, offset + m.offset, m.dims
        if type(st) is not CType:
            return None
        if index is not None:
            if len(dims) != 1 or not 0 <= index < dims[0]:
                return None
            offset += index * elem_bytes(st)
        elif dims:
            return None
        self.structs.add(node.name)
        return node.name, offset, st, index is not None

    def _member_read(self, name: str, offset: int, t: CType, indexed: bool) -> Code:
        """A member read (``exec_memory.load`` of the member's pointer: its bytes counted; an index's int op)."""

        def load(ex: _Executor, mask: Array, tally: Tally) -> Array:
            column = _column(ex, name, offset, t)
            ids = ex.trip_lanes
            return np.array(column) if ids is None else column[ids]  # (a copy either way)

        return Code(t, load, (("private_bytes_read", elem_bytes(t)), *((("int_ops", 1),) if indexed else ())))

    def _member_components(self, node: c_ast.StructRef) -> Code | None:
        """``s.v.xy``: components of a vector member, read whole first (``executor.expr_StructRef``)."""
        found = None if node.type != "." or id(node) in self.ex.member_refs else self.member(node.name)
        idx = None if found is None else _components(node.field.name, found[2])
        if found is None or idx is None:
            return None
        whole = self._member_read(*found)
        vt = found[2]
        picked: Any = idx[0] if len(idx) == 1 else np.asarray(idx, np.intp)
        read = whole.run

        def component(ex: _Executor, mask: Array, tally: Tally) -> Array:
            return np.asarray(np.asarray(read(ex, mask, tally)).take(picked, axis=-1))

        return Code(vt.scalar if len(idx) == 1 else vt.scalar.vector(len(idx)), component, whole.ops)

    def member_store(self, item: c_ast.Node, line: int) -> _Expr | None:
        """``s.m = e`` or ``s.m op= e`` of a member (``member``), or of components of a vector member,
        ``s.v.xz = e`` (``lvalues.SwizzleRef.set``: each component, or a run of them, stored by itself), or ``s.m++``
        (``_member_increment``): stored to the member's columns, its bytes counted (a compound one's read too: a
        vector member's whole), what each lane held kept for a trip given back (``trip_undo``)."""
        if isinstance(item, c_ast.UnaryOp):
            return self._member_increment(item, line)
        if not isinstance(item, c_ast.Assignment):
            return None
        ex, lvalue = self.ex, item.lvalue
        found, picked = self.member(lvalue), None
        if found is None and isinstance(lvalue, c_ast.StructRef) and lvalue.type == ".":
            found = None if id(lvalue) in ex.member_refs else self.member(lvalue.name)
            picked = None if found is None else _components(lvalue.field.name, found[2])
            if picked is None:
                return None
        rvalue = compiled_expression(ex, item.rvalue, self.read)
        if found is None or rvalue is None:
            return None
        name, offset, vt, indexed = found
        t = vt if picked is None else vt.scalar if len(picked) == 1 else vt.scalar.vector(len(picked))
        written = elem_bytes(vt) if picked is None else len(picked) * vt.scalar.dtype.itemsize
        ops: tuple[tuple[str, int], ...] = (("private_bytes_written", written),)
        if item.op != "=":
            read = self._member_read(*found) if picked is None else self._member_components(lvalue)
            combined = None if read is None else updated(ex, item, read, rvalue)
            if combined is None:
                return None
            rvalue = combined
        elif indexed:
            ops += (("int_ops", 1),)
        value = converted(rvalue, t)
        parts = None if picked is None else tuple(enumerate(picked))

        def assign(ex: _Executor, mask: Array, tally: Tally) -> Value:
            a = np.asarray(value(ex, mask, tally))
            column = _column(ex, name, offset, vt)
            lanes = _lanes_of(ex, mask)
            if parts is None:
                _put(ex, column, a, lanes, t.width > 1)
            else:  # (a component's column; one component: the value itself)
                for j, k in parts:
                    _put(ex, column[:, k], a if len(parts) == 1 else a[..., j], lanes, False)
            return Value(t, a)

        return _Expr(assign, summed(rvalue.ops, ops), line or _line(item))

    def _member_increment(self, item: c_ast.UnaryOp, line: int) -> _Expr | None:
        """``s.m++`` (``--``, prefix or postfix) of a scalar member: read, add one, store (``member_store``'s)."""
        found = self.member(item.expr)
        if found is None or found[2].width > 1:
            return None
        name, offset, t, _ = found
        combined = incremented(self._member_read(*found), item)
        if combined is None:
            return None
        value = converted(combined, t)

        def increment(ex: _Executor, mask: Array, tally: Tally) -> Value:
            a = np.asarray(value(ex, mask, tally))
            _put(ex, _column(ex, name, offset, t), a, _lanes_of(ex, mask), False)
            return Value(t, a)  # (a statement's: its value unused)

        return _Expr(increment, summed(combined.ops, (("private_bytes_written", elem_bytes(t)),)), line or _line(item))

    def statement(self, item: c_ast.Node, scope: dict[str, Var]) -> _Statement | None:
        if isinstance(item, c_ast.Compound):
            return self.block(item)
        if isinstance(item, c_ast.Switch):
            return self.switch(item)
        if isinstance(item, c_ast.For | c_ast.While | c_ast.DoWhile):
            return self.inner(item)
        if isinstance(item, c_ast.Break | c_ast.Continue):
            return _Jump(isinstance(item, c_ast.Break))
        if isinstance(item, c_ast.Return):
            return self.ret(item)
        if isinstance(item, c_ast.If):
            cond = self.condition(item.cond)
            if cond is None:
                return None
            then = None if item.iftrue is None else self.block(item.iftrue)
            orelse = None if item.iffalse is None else self.block(item.iffalse)
            if (item.iftrue is not None and then is None) or (item.iffalse is not None and orelse is None):
                return None
            return _If(cond, then, orelse, _line(item))
        if isinstance(item, c_ast.Decl):
            return self.declaration(item, scope)
        return self.expression(item)

    def switch(self, item: c_ast.Switch) -> _Switch | None:
        """A ``switch`` on a scalar, its labels all items of its body (one inside a nested statement, Duff's device,
        is the interpreter's, as is a declaration in the body: the lanes entering below it have it undefined)."""
        ex = self.ex
        code = self.condition(item.cond)  # (a scalar, as a condition)
        if code is None:
            return None
        t = promoted(INT if code.boolean else code.t)
        flat, labels = switch_items(item.stmt), switch_labels(item.stmt)
        at = {id(x): k for k, x in enumerate(flat)}
        if any(id(label) not in at for label in labels):
            return None
        cases: list[tuple[int, Array, Array, bool, int]] = []
        default = None
        for label in labels:
            if isinstance(label, c_ast.Default):
                default = at[id(label)]
                continue
            low, high, ranged = ex.case_bounds(label)
            lo, hi = (np.asarray(wrap(v, t), t.dtype) for v in (low, high))
            cases.append((at[id(label)], lo, hi, ranged, _line(label)))
        scope: dict[str, Var] = {}
        ex.frame.scopes.append(scope)  # (the body is one scope)
        try:
            items: list[_Statement | None] = []
            for sub in flat:
                if isinstance(sub, c_ast.Case | c_ast.Default | c_ast.EmptyStatement):
                    items.append(None)
                    continue
                found = None if isinstance(sub, c_ast.Decl | c_ast.DeclList) else self.statement(sub, scope)
                if found is None:
                    return None
                items.append(found)
        finally:
            ex.frame.scopes.pop()
        statements = max(len(cases) - 1, 0) + sum(_steps(found) for found in items if found is not None)
        return _Switch(converted(code, t), code.ops, tuple(cases), default, tuple(items), statements, _line(item))

    def ret(self, item: c_ast.Return) -> _Return | None:
        """``return`` of nothing, or of a value the function returns as a scalar or a vector."""
        t = self.ex.frame.ret_type
        if item.expr is None:
            return _Return(None, None, (), _line(item)) if t is None else None
        code = compiled_expression(self.ex, item.expr, self.read)
        if code is None or type(t) is not CType:  # (a pointer or a struct returned: the interpreter's)
            return None
        return _Return(converted(code, t), t, code.ops, _line(item))

    def inner(self, item: c_ast.For | c_ast.While | c_ast.DoWhile) -> _Inner | None:
        """A loop inside the loop; a ``for``'s first clause declares in a scope around the rest."""
        scope: dict[str, Var] = {}
        self.ex.frame.scopes.append(scope)
        try:
            init: list[_Declared | _Expr] = []
            first = item.init if isinstance(item, c_ast.For) else None
            at = _line(item)
            for part in first.decls if isinstance(first, c_ast.DeclList) else [] if first is None else [first]:
                found = self.declaration(part, scope, at) if isinstance(part, c_ast.Decl) else self.expression(part, at)
                if found is None:
                    return None
                init.append(found)
            cond = None if item.cond is None else self.condition(item.cond)
            if item.cond is not None and cond is None:
                return None
            nxt = item.next if isinstance(item, c_ast.For) else None
            step = None if nxt is None else self.expression(nxt, _line(nxt) or at)
            body = self.block(item.stmt)
            if body is None or (isinstance(item, c_ast.For) and item.next is not None and step is None):
                return None
            line = _line(item.cond) or at  # (a do-while's condition is lines below its 'do')
            return _Inner(tuple(init), cond, body, step, isinstance(item, c_ast.DoWhile), line)
        finally:
            self.ex.frame.scopes.pop()

    def declaration(self, item: c_ast.Decl, scope: dict[str, Var], line: int = 0) -> _Declared | None:
        """``item`` compiled; ``line``: the line it runs at, where not its own (a ``for``'s first clause runs at the
        loop's: ``StatementRunner.statement``)."""
        ex = self.ex
        if item.init is None or isinstance(item.init, c_ast.InitList) or not isinstance(item.type, c_ast.TypeDecl):
            return None
        t = ex.program.type_of(item)
        if t.kind not in ("scalar", "vector") or t.space in ("constant", "local"):
            return None
        if item.name in ex.program.address_taken or ex.lookup_var(item.name) is not None:
            return None  # (one that shadows a name in scope: the interpreter's)
        ct = ex._ct(t)
        init = compiled_expression(ex, item.init, self.read)
        if type(ct) is not CType or init is None:
            return None
        scope[item.name] = Var(ct, name=item.name)
        self.declared.add(item.name)
        return _Declared(item.name, ct, converted(init, ct), init.ops, line or _line(item))

    def expression(self, item: c_ast.Node, line: int = 0) -> _Expr | None:
        if not isinstance(item, c_ast.Assignment | c_ast.UnaryOp):
            return None
        if isinstance(item, c_ast.UnaryOp) and item.op not in _UPDATES:
            return None
        root = compiled_root(self.ex, item, self.read)
        name = _target(item)
        if root is None or name is None:
            return self.member_store(item, line)
        self.written.add(name)
        return _Expr(*root, line or _line(item))


class PrivateLoops(ExecutorState):
    """The private-loop method of ``_Executor``."""

    def _private_loop(
        self, cond: c_ast.Node | None, body: c_ast.Node, step: c_ast.Node | None, line: int
    ) -> _Loop | None:
        """The loop compiled (types from the variables in scope at its first run), or None."""
        compiler = _Compiler(cast("_Executor", self))
        code = None if cond is None else compiler.condition(cond)
        if cond is not None and code is None:
            return None
        stepped = None if step is None else compiler.expression(step, _line(step) or line)
        block = compiler.block(body)
        if block is None or (step is not None and stepped is None):
            return None
        names = frozenset().union(*(names_read(n) for n in (cond, body, step) if n is not None))
        # (a pointer read through, a struct whose members it reads or writes: looked up by the access)
        skipped = compiler.declared | compiler.bases | compiler.structs
        outer = tuple(sorted(n for n in names if n not in skipped and self.lookup_var(n) is not None))
        written = frozenset(compiler.written - compiler.declared)
        reads = bool(compiler.bases or compiler.structs)
        structs = tuple(sorted(compiler.structs))
        return _Loop(code, block, stepped, outer, written, _line(cond) or line, reads, structs)

    def takes_loop(self, cond: c_ast.Node | None, body: c_ast.Node, step: c_ast.Node | None, line: int) -> bool:
        """Whether ``private_trips`` takes the loop (compiled once, as it compiles it)."""
        if body not in _LOOPS:
            _LOOPS[body] = self._private_loop(cond, body, step, line)
        return _LOOPS[body] is not None

    def private_trips(
        self,
        cond: c_ast.Node | None,
        body: c_ast.Node,
        step: c_ast.Node | None,
        mask: Array,
        do_while: bool,
        line: int,
        start: int = 0,
    ) -> tuple[Array, int] | None:
        """Run the loop's trips for the lanes of ``mask`` on their own arrays (the module's docstring), or None
        where it is not such a loop; ``start``: the trips the loop has run so far in this run of it (the interpreter
        compares the launch's state at some: ``progress.py``). Else the lanes still in it, where it gave the loop
        back to the interpreter (none once every lane has left), and how many trips it ran."""
        if not self.takes_loop(cond, body, step, line):
            return None
        loop = _LOOPS[body]
        assert loop is not None
        if not all(_struct_loop_ready(self.lookup_var(name)) for name in loop.structs):
            return None  # (bytes nobody wrote: the interpreter's, whose use of them is the finding)
        outer: list[Var] = []
        for name in loop.outer:
            var = self.lookup_var(name)
            v = None if var is None else var.value
            if var is None or type(v) is not Value or isinstance(v.t, StructType):
                return None  # (a pointer, memory: the interpreter's)
            if v.undef is not None and within(v.undef, mask) is not None:
                return None  # (a lane in the loop undefined: the interpreter's, whose use of it is the finding)
            if var.mem is not None or var.array is not None or var.is_pointer:
                return None
            outer.append(var)
        return _Trips(cast("_Executor", self), loop, outer, mask, do_while, start).run()


class _Trips:
    """One run of a compiled loop (``PrivateLoops.private_trips``). Until lanes leave, the arrays are the variables'
    own (no copy where every lane of the launch entered), a value the same in every lane stays one, and the steps of
    statements every lane runs are counted for all lanes at once: a loop whose lanes run alike costs what the
    interpreter's trips would."""

    def __init__(self, ex: _Executor, loop: _Loop, outer: list[Var], mask: Array, do_while: bool, start: int) -> None:
        self.ex, self.loop, self.do_while, self.mask, self.start = ex, loop, do_while, mask, start
        self.n = mask.shape[0]
        every = mask is ex.all or all_lanes(mask)  # (every lane of the launch entered)
        self.lanes: Array | None = None if every else np.flatnonzero(mask)  # the lanes the arrays hold
        self.vars = outer
        self.saved = [cast(Value, var.value) for var in outer]  # (their values as they came in)
        self.full: dict[int, Array] = {}  # a written variable's value in every lane, made at the first compaction
        self.lockstep = 0  # the trips' steps as the launch counts them: one per statement any lane ran
        self.alike = 0  # steps every lane of the arrays took
        self.own: Array | None = None  # the steps each lane of the arrays took besides
        self.recent: Array | None = None  # the latest of those, in bytes (``_stepped``), and the most one may hold
        self.recent_most = 0
        self.dropped: Array | None = None  # the steps of the lanes dropped from the arrays, by lane of the launch
        self.most = 1 + loop.body.statements  # the most steps a trip takes
        # one trip's (``_trip``): its steps' masks, its counts, the lanes that broke out or went on to the next
        self.stepped: list[Array] = []
        self.counted: list[tuple[Counts, Array]] = []
        self.brk: Array | None = None
        self.cont: Array | None = None
        self.ret: Array | None = None  # the lanes that returned in the trip

    def run(self) -> tuple[Array, int]:
        ex = self.ex
        for var, v in zip(self.vars, self.saved, strict=True):
            if self.lanes is not None:  # (the lanes a variable leaves undefined are none of them: ``private_trips``)
                a = np.asarray(v.raw)
                var.value = Value(v.t, a[self.lanes]) if _lane_rows(a, v.t) else Value(v.t, a)
            elif v._a is None or v.affine is not None or v.undef is not None:  # (coefficients of the ids, a
                var.value = Value(v.t, np.asarray(v.raw))  # comparison's lanes: the trees read arrays)
        saved_all, saved_none = ex.all, ex.none
        if self.lanes is not None:
            ex.all, ex.none = np.ones(self.lanes.size, bool), np.zeros(self.lanes.size, bool)
        outside, ex.trip_lanes = ex.trip_lanes, self.lanes
        ex.trip_columns.clear()  # (the struct variables' regions, for this run of the loop)
        active = ex.all
        trips = 0
        try:
            while True:
                steps_now = ex.steps + self.lockstep
                due = ex.progress.due(self.start + trips + 1, steps_now)
                if steps_now + self.most - ex.steps_from > ex.step_limit or due:
                    break  # (the interpreter runs the trip that could pass the limit, or compares the state)
                ran = self._trip(active, trips)
                if ran is None:  # a tree gave itself back: the interpreter runs this trip
                    break
                active, going = ran
                if not going:
                    break
                trips += 1
                if going <= _COMPACT_AT * active.size:
                    active = self._compact(active)
        finally:
            remaining = self._put_back(active)
            ex.all, ex.none = saved_all, saved_none
            ex.trip_lanes = outside
            self._steps()
        return remaining, trips

    def _trip(self, active: Array, trips: int) -> tuple[Array, int] | None:
        """One trip for the lanes of ``active`` (of the arrays): the lanes still in the loop after it (``ex.all``
        where that is every lane of the arrays: stores merge nothing) and how many, or None where a tree gave itself
        back (nothing of the trip kept)."""
        ex, loop = self.ex, self.loop
        before = [var.value for var in self.vars]
        counts = dict(ex.counts) if loop.reads else None  # (the bytes its reads count as they go)
        returned = ex.frame.ret, ex.frame.retval
        ex.trip_undo.clear()
        tally: Tally = []
        self.stepped, self.counted, self.brk, self.cont, self.ret = [], [], None, None, None
        try:
            going, lanes = active, -1
            if loop.cond is not None and not (self.do_while and trips == 0):
                ex.st.line = loop.line
                going = ex.truth(as_value(loop.cond, np.asarray(loop.cond.run(ex, active, tally))), active)
                self.counted.append((loop.cond.ops, active))
                lanes = going.size if going is ex.all else int(np.count_nonzero(going))
                if lanes == going.size:
                    going = ex.all
                if not lanes:
                    self._count(tally)
                    return going, 0
            self.stepped.append(going)  # (the loop's own step: ``StatementRunner.loop``)
            self._block(loop.body, going, tally)
            for off in (self.brk, self.ret):  # (those lanes leave: the step is not theirs, nor the next trips)
                if off is not None:
                    going = going & ~off
                    lanes = -1
            if lanes < 0:
                lanes = going.size if going is ex.all else int(np.count_nonzero(going))
            if loop.step is not None and lanes:
                self._simple(loop.step, going, {}, tally)
        except Fallback:  # (a division by zero with checks on, a read of bytes nobody wrote, ...: the interpreter's
            for var, v in zip(self.vars, before, strict=True):  # trip finds it and says so)
                var.value = v
            if counts is not None:
                ex.counts.clear()
                ex.counts.update(counts)
            ex.frame.ret, ex.frame.retval = returned
            for column, rows, held in reversed(ex.trip_undo):  # (the members it wrote, as they were)
                if rows is None:
                    column[...] = held
                else:
                    column[rows] = held
            ex.trip_undo.clear()
            return None
        self._count(tally)
        self._stepped()
        return going, lanes

    def _block(self, block: _Block, mask: Array, tally: Tally) -> None:
        """The block's statements for the lanes of ``mask`` still in it (``StatementRunner.items``: those that broke
        out or went on to the next trip run no more of it), a step each."""
        ex = self.ex
        scope: dict[str, Var] = {}
        ex.frame.scopes.append(scope)
        try:
            m, flowed = mask, False
            for item in block.items:
                if flowed:  # (after a branch, a jump or a block: the lanes still running it)
                    m = self._running(mask)
                    if not any_lane(m):
                        return
                flowed = self._statement(item, m, scope, tally)
        finally:
            ex.frame.scopes.pop()

    def _running(self, mask: Array) -> Array:
        """The lanes of ``mask`` that have not broken out, gone on to the next trip or returned."""
        for off in (self.brk, self.cont, self.ret):
            if off is not None:
                mask = mask & ~off
        return mask

    def _statement(self, item: _Statement, m: Array, scope: dict[str, Var], tally: Tally) -> bool:
        """One statement for the lanes of ``m``, a step (a block's are its statements'); whether it may have sent
        lanes elsewhere (a branch, a jump, a block: the next statement's lanes are worked out again)."""
        if isinstance(item, _Block):
            self._block(item, m, tally)
            return True
        self.stepped.append(m)
        if isinstance(item, _Expr | _Declared):
            self._simple(item, m, scope, tally)
            return False
        if isinstance(item, _Inner):
            self._inner(item, m, tally)
        elif isinstance(item, _If):
            self._branch(item, m, tally)
        elif isinstance(item, _Switch):
            self._switch(item, m, tally)
        elif isinstance(item, _Return):
            self._return(item, m, tally)
        elif item.leaves:
            self.brk = m if self.brk is None else self.brk | m
        else:
            self.cont = m if self.cont is None else self.cont | m
        return True

    def _switch(self, item: _Switch, mask: Array, tally: Tally) -> None:
        """``switch`` for the lanes of ``mask`` (``StatementRunner.switch`` and ``switch_entries``): one comparison
        per case label for the lanes no earlier label took, each label after the first a step of those lanes;
        ``default`` takes the rest; each lane runs the body from its label on, until it breaks (a ``break`` of its
        own: the loop's lanes that broke stay as they were)."""
        ex = self.ex
        ex.st.line = item.line
        x = np.asarray(item.cond(ex, mask, tally))
        self.counted.append((item.ops, mask))
        entries: dict[int, Array] = {}
        remaining = mask
        for k, (at, lo, hi, ranged, line) in enumerate(item.cases):
            if not any_lane(remaining):
                break
            if k:
                ex.st.line = line
                self.stepped.append(remaining)
            self.counted.append(((("int_ops", 2 if ranged else 1),), remaining))
            hit = remaining & ((x >= lo) & (x <= hi) if ranged else (x == lo))
            entries[at] = hit
            remaining = remaining & ~hit
        if item.default is not None:
            entries[item.default] = remaining
        last = max(entries, default=-1)
        saved, self.brk = self.brk, None
        scope: dict[str, Var] = {}
        ex.frame.scopes.append(scope)
        try:
            entered: Array | None = None
            for k, sub in enumerate(item.items):
                if k in entries:
                    entered = entries[k] if entered is None else entered | entries[k]
                if entered is None:
                    continue
                m = self._running(entered)
                if not any_lane(m):
                    if k >= last:
                        return
                    continue
                if sub is not None:
                    self._statement(sub, m, scope, tally)
        finally:
            ex.frame.scopes.pop()
            self.brk = saved

    def _simple(self, item: _Expr | _Declared, mask: Array, scope: dict[str, Var], tally: Tally) -> None:
        """An expression statement, or a declaration into ``scope``, for the lanes of ``mask``, and its counts."""
        self.ex.st.line = item.line
        if isinstance(item, _Declared):
            value = Value(item.t, np.asarray(item.init(self.ex, mask, tally)))
            scope[item.name] = Var(item.t, value, name=item.name)
        else:
            item.root(self.ex, mask, tally)
        self.counted.append((item.ops, mask))

    def _inner(self, item: _Inner, mask: Array, tally: Tally) -> None:
        """An inner loop's trips for the lanes of ``mask`` (``StatementRunner.loop``'s, with its own ``break`` and
        ``continue``). A trip that could pass the step limit, or one at which the interpreter would compare the
        launch's state, gives the outer trip back (``Fallback``)."""
        ex = self.ex
        scope: dict[str, Var] = {}
        ex.frame.scopes.append(scope)
        saved = self.brk, self.cont
        self.brk = self.cont = None
        try:
            for part in item.init:  # (no step of their own: ``StatementRunner.statement``'s ``For``)
                self._simple(part, mask, scope, tally)
            active, trips = mask, 0
            while True:
                if item.cond is not None and not (item.do_while and trips == 0):
                    ex.st.line = item.line
                    c = ex.truth(as_value(item.cond, np.asarray(item.cond.run(ex, active, tally))), active)
                    self.counted.append((item.cond.ops, active))
                    active = c
                if not any_lane(active):
                    return
                trips += 1
                steps_now = ex.steps + self.lockstep + len(self.stepped)
                if steps_now + item.body.statements + self.most - ex.steps_from > ex.step_limit:
                    raise Fallback
                if ex.progress.due(trips, steps_now):
                    raise Fallback
                self.stepped.append(active)
                self._block(item.body, active, tally)
                self.cont = None
                for off in (self.brk, self.ret):  # (a return leaves every loop)
                    if off is not None:
                        active = active & ~off
                if item.step is not None and any_lane(active):
                    self._simple(item.step, active, scope, tally)
        finally:
            ex.frame.scopes.pop()
            self.brk, self.cont = saved

    def _return(self, item: _Return, mask: Array, tally: Tally) -> None:
        """``return`` for the lanes of ``mask``: the frame's returned lanes and value (of every lane of the launch,
        as the interpreter keeps them), and the lanes leave the loops (``ret``)."""
        ex = self.ex
        ex.st.line = item.line
        local, ids = _lanes_of(ex, mask)
        if not ids.size:
            return
        lanes = np.zeros(self.n, bool)
        lanes[ids] = True
        f = ex.frame
        if item.value is not None:
            assert item.t is not None
            a = np.asarray(item.value(ex, mask, tally))
            self.counted.append((item.ops, mask))
            t = item.t
            full = np.zeros((self.n, t.width) if t.width > 1 else self.n, t.dtype)
            full[ids] = a[local] if local is not None and _lane_rows(a, t) else a
            rv = Value(t, full)
            f.retval = rv if f.retval is None else merged(lanes, rv, f.retval, t.width)
        f.ret = lanes if f.ret is None else f.ret | lanes
        self.ret = mask if self.ret is None else self.ret | mask

    def _branch(self, item: _If, mask: Array, tally: Tally) -> None:
        """``if``/``else`` for the lanes of ``mask`` (``StatementRunner.statement``'s)."""
        ex = self.ex
        ex.st.line = item.line
        c = ex.truth(as_value(item.cond, np.asarray(item.cond.run(ex, mask, tally))), mask)
        self.counted.append((item.cond.ops, mask))
        if c is mask:
            t, e = mask, ex.none
        elif c is ex.none:
            t, e = ex.none, mask
        else:
            t, e = mask & c, mask & ~c
        if item.then is not None and any_lane(t):
            self._block(item.then, t, tally)
        if item.orelse is not None and any_lane(e):
            self._block(item.orelse, e, tally)

    def _count(self, tally: Tally) -> None:
        """Add the trip's counts (``_Executor.count``'s), each mask's lanes counted once: a trip's statements share
        a few masks."""
        counts, active = self.ex.counts, self.ex.st.active
        lanes_of: dict[int, int] = {}
        for ops, mask in (*self.counted, *tally):
            n = lanes_of.get(id(mask))
            if n is None:
                n = lanes_of[id(mask)] = active(mask)
            for kind, width in ops:
                counts[kind] = counts.get(kind, 0) + n * width

    def _stepped(self) -> None:
        """Add the trip's steps: one a statement to the lanes that ran it (a mask's statements at once), one to the
        launch's count."""
        self.lockstep += len(self.stepped)
        masks: dict[int, tuple[Array, int]] = {}
        for m in self.stepped:
            if m is self.ex.all:
                self.alike += 1
            else:
                seen = masks.get(id(m))
                masks[id(m)] = (m, 1 if seen is None else seen[1] + 1)
        for m, k in masks.values():
            # (tallied in a byte per lane, up to 255 steps, then added in: an int64 pass per mask cost more than
            # the trip's statements in a loop of a few statements over many lanes)
            if k > 255:
                self._fold()
                steps = m.astype(np.int64) * k
                self.own = steps if self.own is None else self.own + steps
                continue
            if self.recent is None or self.recent_most + k > 255:
                self._fold()
                self.recent = np.zeros(m.size, np.uint8)
            np.add(self.recent, m if k == 1 else m * np.uint8(k), out=self.recent, casting="unsafe")
            self.recent_most += k

    def _fold(self) -> None:
        """The steps tallied in bytes (``recent``) added to ``own``."""
        if self.recent is not None:
            self.own = self.recent.astype(np.int64) if self.own is None else self.own + self.recent
            self.recent, self.recent_most = None, 0

    def _full(self, k: int) -> Array:
        """Written variable ``k``'s value in every lane of the launch, as it came in (made once, then kept up)."""
        full = self.full.get(k)
        if full is None:
            v = self.saved[k]
            shape = (self.n,) if v.t.width == 1 else (self.n, v.t.width)
            full = self.full[k] = np.array(np.broadcast_to(np.asarray(v.raw), shape), dtype=v.t.dtype)
        return full

    def _compact(self, active: Array) -> Array:
        """The arrays of the lanes of ``active`` alone; the others' values and steps put back."""
        lanes = np.arange(self.n) if self.lanes is None else self.lanes
        # (the positions once: a boolean index finds them anew at each use)
        gone, kept = np.flatnonzero(~active), np.flatnonzero(active)
        left = lanes[gone]
        for k, name in enumerate(self.loop.outer):
            if name in self.loop.written:
                v = cast(Value, self.vars[k].value)
                a = np.asarray(v.raw)
                self._full(k)[left] = a[gone] if _lane_rows(a, v.t) else a
        self._fold()
        own = np.full(active.size, self.alike, np.int64) if self.own is None else self.own + self.alike
        if self.dropped is None:
            self.dropped = np.zeros(self.n, np.int64)
        self.dropped[left] = own[gone]
        self.own, self.alike = own[kept], 0
        for var in self.vars:
            v = cast(Value, var.value)
            a = np.asarray(v.raw)
            if _lane_rows(a, v.t):
                var.value = Value(v.t, a[kept])
        self.lanes = self.ex.trip_lanes = lanes[kept]
        self.ex.all, self.ex.none = np.ones(self.lanes.size, bool), np.zeros(self.lanes.size, bool)
        return self.ex.all

    def _put_back(self, active: Array) -> Array:
        """Every variable's value in every lane again; the lanes (of the launch) still in the loop."""
        for k, var in enumerate(self.vars):
            if self.loop.outer[k] not in self.loop.written:
                var.value = self.saved[k]
            elif self.lanes is not None:
                full = self._full(k)
                full[self.lanes] = np.asarray(cast(Value, var.value).raw)  # (one per lane of the arrays, or one)
                saved = self.saved[k]  # (lanes outside the loop left undefined stay so)
                var.value = carrying(saved.t, full, saved.undef, saved.origin)
        if self.lanes is None:  # (the arrays are the launch's: every lane entered, none dropped)
            return active
        remaining = np.zeros(self.n, bool)
        remaining[self.lanes[active]] = True
        return remaining

    def _steps(self) -> None:
        """The trips' steps: the lockstep count, and each lane's (as one mask's where every lane took them all)."""
        ex = self.ex
        if not self.lockstep:
            return
        self._fold()
        if self.own is None and self.dropped is None and self.alike == self.lockstep:
            ex.steps_for(self.mask, self.lockstep)
            return
        steps = np.zeros(self.n, np.int64) if self.dropped is None else self.dropped
        own = self.alike if self.own is None else self.own + self.alike
        if self.lanes is None:
            steps += own
        else:
            steps[self.lanes] = own
        ex.steps_per_lane(steps, self.lockstep)


def _lane_rows(a: Array, t: CType) -> bool:
    """Whether ``a``, a value of ``t`` in the arrays, holds one per lane (not one for every lane)."""
    return a.ndim == (1 if t.width == 1 else 2)
