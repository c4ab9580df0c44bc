"""Loops of private arithmetic, run on the lanes still in them.

A loop whose trip count differs by work-item, ``while (v != 1u) { v = (v & 1u) ? 3u * v + 1u : v >> 1; ++steps; }``,
costs the lockstep interpreter a pass over the launch's lanes per trip until its last lane leaves, each statement
dispatched, masked and merged into every lane's variable. When the loop's condition, body and step are all private
arithmetic that ``compiled.py`` compiles (its body expression statements and declarations of scalars or vectors
with an initializer; no branch, jump, call of the program's functions or memory), ``PrivateLoops.private_trips``
runs its trips on arrays of the lanes in the loop alone: each variable the loop reads or writes taken at those
lanes once (the variables themselves where every lane of the launch enters), the lanes that leave dropped from the
arrays (and their values put back) once a quarter of them have left, the trips' statements run straight on the
compiled trees, with no mask to merge while every lane of the arrays runs. What a trip counts, each lane's steps and the
variables it leaves are those of the interpreter's trips, bit for bit (``tests/test_kernel_private_loops.py``
compares the two on random loops).

It gives the loop back to the interpreter, at the start of a trip and with every variable as the trips so far left
it, where the next trip would pass the step limit or is one at which the interpreter compares the launch's state
(``progress.py``: a loop that cannot end), and where a tree gives itself back (``compiled.Fallback``, a division by
zero with checks on) or anything else goes wrong in a trip: the interpreter runs that trip and the rest, and
reports what it finds in its own words.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np
from pycparser import c_ast

from wia_sim.kernels.batch_loops import names_read
from wia_sim.kernels.compiled import (
    Code,
    Counts,
    Fallback,
    Root,
    Tally,
    compiled_expression,
    compiled_root,
    converted,
)
from wia_sim.kernels.ctype import CType
from wia_sim.kernels.exec_state import Array, ExecutorState
from wia_sim.kernels.lanes import all_lanes
from wia_sim.kernels.lvalues import Var
from wia_sim.kernels.spaces import Value
from wia_sim.kernels.structs import StructType

if TYPE_CHECKING:
    from collections.abc import Callable

    from wia_sim.kernels.executor import _Executor

__all__ = ["PrivateLoops"]

_COMPACT_AT = 0.75
"""The arrays are compacted once at most this fraction of their lanes is still in the loop (each compaction costs a
gather per variable, and a scatter per variable written of the lanes that left)."""
_UPDATES = frozenset({"++", "--", "p++", "p--"})


@dataclass(frozen=True)
class _Declared:
    """A declaration of the body: its name, type and initializer (converted to the type)."""

    name: str
    t: CType
    init: Callable[[_Executor, Array, Tally], Array]
    ops: Counts


@dataclass(frozen=True)
class _Loop:
    """A loop compiled: its condition (None: none), its body's statements and declarations in order, its step
    (``for``'s third clause), the variables of the enclosing scopes it reads or writes, those it writes."""

    cond: Code | None
    items: tuple[tuple[Root, Counts] | _Declared, ...]
    step: tuple[Root, Counts] | None
    outer: tuple[str, ...]
    written: frozenset[str]


_LOOPS: weakref.WeakKeyDictionary[c_ast.Node, _Loop | None] = weakref.WeakKeyDictionary()
"""Per loop body: the loop compiled, or None where it is not such a loop (decided once: the types of the variables
it reads are the program's)."""


def _statements(body: c_ast.Node) -> list[c_ast.Node] | None:
    """The body's statements, or None where one of them is not an expression statement or a declaration."""
    items = (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
    for item in items:
        if isinstance(item, c_ast.Decl):
            if item.init is None or isinstance(item.init, c_ast.InitList) or not isinstance(item.type, c_ast.TypeDecl):
                return None
        elif not isinstance(item, c_ast.Assignment | c_ast.UnaryOp):
            return None
    return items


def _target(node: c_ast.Node) -> str | None:
    """The variable an assignment or an increment stores to (``v`` of ``v.xy = e``)."""
    lvalue = node.lvalue if isinstance(node, c_ast.Assignment) else node.expr
    if isinstance(lvalue, c_ast.StructRef):
        lvalue = lvalue.name
    return lvalue.name if isinstance(lvalue, c_ast.ID) else None


class PrivateLoops(ExecutorState):
    """The private-loop method of ``_Executor``."""

    def _private_loop(self, cond: c_ast.Node | None, body: c_ast.Node, step: c_ast.Node | None) -> _Loop | None:
        """The loop compiled (types from the variables in scope at its first run), or None."""
        ex = cast("_Executor", self)
        items = _statements(body)
        if not items:
            return None
        code = None if cond is None else compiled_expression(ex, cond)
        stepped = None if step is None else compiled_root(ex, step)
        if (cond is not None and code is None) or (step is not None and stepped is None):
            return None
        if code is not None and not code.boolean and code.t.width > 1:  # (a vector condition: the checker's error)
            return None
        written: set[str] = set()
        declared: dict[str, Var] = {}
        compiled: list[tuple[Root, Counts] | _Declared] = []
        self.frame.scopes.append(declared)  # the body's names, with their types, for what follows them
        try:
            for item in items:
                if isinstance(item, c_ast.Decl):
                    t = self.program.type_of(item)
                    if t.kind not in ("scalar", "vector") or t.space in ("constant", "local"):
                        return None
                    if item.name in self.program.address_taken or item.name in declared:
                        return None
                    ct = self._ct(t)
                    init = compiled_expression(ex, item.init)
                    if type(ct) is not CType or init is None or self.lookup_var(item.name) is not None:
                        return None  # (one that shadows an outer name: the interpreter's)
                    compiled.append(_Declared(item.name, ct, converted(init, ct), init.ops))
                    declared[item.name] = Var(ct, name=item.name)
                    continue
                if isinstance(item, c_ast.UnaryOp) and item.op not in _UPDATES:
                    return None
                root = compiled_root(ex, item)
                name = _target(item)
                if root is None or name is None:
                    return None
                written.add(name)
                compiled.append(root)
        finally:
            self.frame.scopes.pop()
        if step is not None:
            name = _target(step) if isinstance(step, c_ast.Assignment | c_ast.UnaryOp) else None
            if name is None:
                return None
            written.add(name)
        nodes = [n for n in (cond, body, step) if n is not None]
        names = frozenset().union(*(names_read(n) for n in nodes))
        outer = tuple(sorted(n for n in names if n not in declared and self.lookup_var(n) is not None))
        return _Loop(code, tuple(compiled), stepped, outer, frozenset(written) - declared.keys())

    def private_trips(
        self, cond: c_ast.Node | None, body: c_ast.Node, step: c_ast.Node | None, mask: Array, do_while: bool
    ) -> tuple[Array, int] | None:
        """Run the loop's trips for the lanes of ``mask`` on their own arrays (the module's docstring), or None
        where it is not such a loop. Else the lanes still in it, where it gave the loop back to the interpreter
        (none once every lane has left), and how many trips it ran."""
        if body not in _LOOPS:
            _LOOPS[body] = self._private_loop(cond, body, step)
        loop = _LOOPS[body]
        if loop is None:
            return None
        found = [self.lookup_var(name) for name in loop.outer]
        outer: list[Var] = []
        for var in found:
            v = None if var is None else var.value
            if var is None or type(v) is not Value or v.undef is not None or isinstance(v.t, StructType):
                return None  # (a pointer, memory, an undefined lane: the interpreter's)
            if var.mem is not None or var.array is not None or var.is_pointer:
                return None
            outer.append(var)
        return _Trips(cast("_Executor", self), loop, outer, mask, do_while).run()


class _Trips:
    """One run of a compiled loop (``PrivateLoops.private_trips``). Until lanes leave, the arrays are the variables'
    own (no copy where every lane of the launch entered), a value the same in every lane stays one, and the trips
    are counted for all lanes at once: a loop whose lanes run alike costs what the interpreter's trips would."""

    def __init__(self, ex: _Executor, loop: _Loop, outer: list[Var], mask: Array, do_while: bool) -> None:
        self.ex, self.loop, self.do_while, self.mask = ex, loop, do_while, mask
        self.n = mask.shape[0]
        self.every = mask is ex.all or all_lanes(mask)  # (every lane of the launch entered)
        self.lanes: Array | None = None if self.every else np.flatnonzero(mask)  # the lanes the arrays hold
        self.vars = outer
        self.saved = [cast(Value, var.value) for var in outer]  # (their values as they came in)
        self.full: dict[int, Array] = {}  # a written variable's value in every lane, made at the first compaction
        self.alike = 0  # trips every lane of the arrays ran, before the first that some did not
        self.ran: Array | None = None  # the trips each lane of the arrays ran, from that one on
        self.ran_full: Array | None = None  # those of the lanes dropped from the arrays
        self.per_trip = 1 + len(loop.items)  # steps: the loop's own and one per statement of its body

    def run(self) -> tuple[Array, int]:
        ex = self.ex
        if self.lanes is not None:
            for var, v in zip(self.vars, self.saved, strict=True):
                a = np.asarray(v.raw)
                var.value = Value(v.t, a[self.lanes]) if _lane_rows(a, v.t) else Value(v.t, a)
        saved_all, saved_none = ex.all, ex.none
        if self.lanes is not None:
            ex.all, ex.none = np.ones(self.lanes.size, bool), np.zeros(self.lanes.size, bool)
        active = ex.all
        trips = 0
        try:
            while True:
                steps_now = ex.steps + trips * self.per_trip
                if steps_now + self.per_trip - ex.steps_from > ex.step_limit or ex.progress.due(trips + 1, steps_now):
                    break  # (the interpreter runs the trip that passes the limit, or compares the state)
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
            self._steps(trips)
        return remaining, trips

    def _trip(self, active: Array, trips: int) -> tuple[Array, int] | None:
        """One trip for the lanes of ``active`` (of the arrays): the lanes that ran it (``ex.all`` where that is
        every lane of the arrays: stores merge nothing) and how many, or None where a tree gave itself back
        (nothing of the trip kept)."""
        ex, loop = self.ex, self.loop
        before = [var.value for var in self.vars]
        tally: Tally = []
        counted: list[tuple[Counts, Array]] = []
        scope: dict[str, Var] = {}
        ex.frame.scopes.append(scope)
        try:
            going, lanes = active, -1
            if loop.cond is not None and not (self.do_while and trips == 0):
                c = np.asarray(loop.cond.run(ex, active, tally))
                truth = c if loop.cond.boolean else c != 0
                counted.append((loop.cond.ops, active))
                if not truth.ndim:
                    going = active if bool(truth) else ex.none
                else:
                    going = truth if active is ex.all else active & truth
                    lanes = int(np.count_nonzero(going))
                    if lanes == going.size:
                        going = ex.all
                if lanes == 0 or going is ex.none:
                    self._count(counted, tally)
                    return going, 0
            if lanes < 0:
                lanes = going.size if going is ex.all else int(np.count_nonzero(going))
            for item in loop.items:
                if isinstance(item, _Declared):
                    value = Value(item.t, np.asarray(item.init(ex, going, tally)))
                    scope[item.name] = Var(item.t, value, name=item.name)
                    counted.append((item.ops, going))
                else:
                    root, ops = item
                    root(ex, going, tally)
                    counted.append((ops, going))
            if loop.step is not None:
                root, ops = loop.step
                root(ex, going, tally)
                counted.append((ops, going))
        except Fallback:  # (a division by zero with checks on: the interpreter's trip finds it and says so)
            for var, v in zip(self.vars, before, strict=True):
                var.value = v
            return None
        finally:
            ex.frame.scopes.pop()
        self._count(counted, tally)
        if going is ex.all and self.ran is None:
            self.alike += 1
        else:
            if self.ran is None:
                self.ran = np.full(going.size, self.alike, np.int64)
            self.ran += going
        return going, lanes

    def _count(self, counted: list[tuple[Counts, Array]], tally: Tally) -> None:
        count = self.ex.count
        for ops, lanes in (*counted, *tally):
            for kind, width in ops:
                count(kind, lanes, width)

    def _full(self, k: int) -> Array:
        """Written variable ``k``'s value in every lane of the launch, as it came in (made once, then kept up)."""
        full = self.full.get(k)
        if full is None:
            v = self.saved[k]
            shape = (self.n,) if v.t.width == 1 else (self.n, v.t.width)
            full = self.full[k] = np.array(np.broadcast_to(np.asarray(v.raw), shape), dtype=v.t.dtype)
        return full

    def _compact(self, active: Array) -> Array:
        """The arrays of the lanes of ``active`` alone; the others' values put back."""
        lanes = np.arange(self.n) if self.lanes is None else self.lanes
        gone = ~active
        for k, name in enumerate(self.loop.outer):
            if name in self.loop.written:
                v = cast(Value, self.vars[k].value)
                a = np.asarray(v.raw)
                self._full(k)[lanes[gone]] = a[gone] if _lane_rows(a, v.t) else a
        assert self.ran is not None  # (a trip some lanes did not run came before)
        if self.ran_full is None:
            self.ran_full = np.zeros(self.n, np.int64)
        self.ran_full[lanes[gone]] = self.ran[gone]
        for var in self.vars:
            v = cast(Value, var.value)
            a = np.asarray(v.raw)
            if _lane_rows(a, v.t):
                var.value = Value(v.t, a[active])
        self.lanes, self.ran = lanes[active], self.ran[active]
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
                var.value = Value(self.saved[k].t, full)
        if self.lanes is None:  # (the arrays are the launch's: every lane entered, none dropped)
            return active
        remaining = np.zeros(self.n, bool)
        remaining[self.lanes[active]] = True
        return remaining

    def _steps(self, trips: int) -> None:
        """The trips' steps: the lockstep count, and each lane's (as one mask's where they ran alike)."""
        if not trips:
            return
        ex = self.ex
        if self.ran is None and self.ran_full is None:
            ex.steps_for(self.mask, trips * self.per_trip)
            return
        assert self.ran is not None  # (a compaction follows a trip that some lanes did not run)
        ran_full = np.zeros(self.n, np.int64) if self.ran_full is None else self.ran_full
        ran_full[slice(None) if self.lanes is None else self.lanes] = self.ran
        ex.steps_per_lane(ran_full * self.per_trip, trips * self.per_trip)


def _lane_rows(a: Array, t: CType) -> bool:
    """Whether ``a``, a value of ``t`` in the arrays, holds one per lane (not one for every lane)."""
    return a.ndim == (1 if t.width == 1 else 2)
