"""The executor's statements: blocks and their scopes, ``if``, loops, ``switch`` with its labels,
``break``/``continue``/``return`` (lane masks switched off in the frame) and declarations. A mixin of
``_Executor`` (``executor.py``), over the shared state of ``exec_state.py``; the expressions stay in
``executor.py``.
"""

from __future__ import annotations

import copy
import functools
import math
import weakref
from collections.abc import Sequence

import numpy as np
from pycparser import c_ast
from pycparserext.ext_c_parser import FuncDeclExt, RangeExpression

from wia_sim.kernels.batch_loops import LoopShape, loop_shape, per_lane
from wia_sim.kernels.cas_loops import cas_shape
from wia_sim.kernels.ctype import INT, CType, elem_bytes, promoted, wrap
from wia_sim.kernels.exec_state import Array, ExecutorState, Result, _designated, _line, _nested
from wia_sim.kernels.initializers import braced_scalar
from wia_sim.kernels.jumps import case_key, labels_in, labels_within, switch_items, switch_labels, value_item
from wia_sim.kernels.lanes import any_lane
from wia_sim.kernels.lvalues import Var, merged
from wia_sim.kernels.progress import hang
from wia_sim.kernels.spaces import Pointer, Region, Uninit, UnsupportedKernel, Value, lane_count
from wia_sim.kernels.structs import StructType
from wia_sim.kernels.types import TypeInfo

__all__ = ["StatementRunner"]


_SHAPES: weakref.WeakKeyDictionary[c_ast.For, LoopShape | None] = weakref.WeakKeyDictionary()
"""Each ``for`` loop's ``LoopShape`` (None: never batched), made once per node and forgotten with it."""
_SWITCHES: weakref.WeakKeyDictionary[c_ast.Switch, tuple[list[c_ast.Node], list[c_ast.Case | c_ast.Default]]] = (
    weakref.WeakKeyDictionary()
)
"""Each switch's body as one block (``switch_items``) and its labels at any depth (``switch_labels``), worked out
once per node and forgotten with it."""
_CASE_BOUNDS: weakref.WeakKeyDictionary[c_ast.Case, tuple[int, int, bool]] = weakref.WeakKeyDictionary()


_STATEMENT_KINDS = frozenset(
    {
        c_ast.Compound,
        c_ast.EmptyStatement,
        c_ast.Pragma,
        c_ast.StaticAssert,
        c_ast.Case,
        c_ast.Default,
        c_ast.Label,
        c_ast.Decl,
        c_ast.DeclList,
        c_ast.If,
        c_ast.For,
        c_ast.While,
        c_ast.DoWhile,
        c_ast.Switch,
        c_ast.Typedef,
        c_ast.Goto,
        c_ast.Break,
        c_ast.Continue,
        c_ast.Return,
    }
)
"""The statements ``statement`` runs itself; any other node is an expression statement."""
_FLOWS = _STATEMENT_KINDS - {
    c_ast.Decl,
    c_ast.DeclList,
    c_ast.EmptyStatement,
    c_ast.Pragma,
    c_ast.StaticAssert,
    c_ast.Typedef,
}
"""The statements that may send work-items elsewhere (``break``, ``return``, ``goto``, ...) or let some join."""


def _lane_width(t: CType) -> int:
    """The width ``merge_lanes`` needs: a struct value has a trailing axis of bytes, as a vector's components."""
    return 2 if isinstance(t, StructType) else t.width


class StatementRunner(ExecutorState):
    """The statement visitors of ``_Executor``, named as the checker's (``check_statements.py``)."""

    # ------------------------------------------------------------------ statements
    def run(self) -> None:
        items = self.kernel.node.body.block_items or []
        if not self.in_order:
            self.frame.scopes.append({})
            self.block(items, self.all)
        else:  # each work-group to its end before the next starts
            for group in range(self.groups):
                self.base = np.asarray(self.lanes.group == group)
                self.steps_from = self.steps
                self.frame.scopes.append({})
                self.block(items, self.base)
                self.frame.scopes.pop()
        for flags, region_flags in self.init_flags:  # what the kernel's stores initialized, for the caller
            flags[:] = region_flags[: flags.size]

    def block(self, items: Sequence[c_ast.Node], mask: Array) -> None:
        f = self.frame
        f.scopes.append({})
        try:
            self.items(items, 0, len(items) - 1, mask, 0)
        finally:
            f.scopes.pop()

    def items(
        self,
        items: Sequence[c_ast.Node],
        start: int,
        stop: int,
        mask: Array,
        own: int,
        entries: dict[int, Array] | None = None,
    ) -> None:
        """Run ``items[start..stop]`` of a block under ``mask``. After each, the work-items that took a backward
        ``goto`` to a label of this block at ``own`` or later run again from it to there (as a loop would), until
        none jumps back, while the others wait; then all go on (a label before ``own`` is the caller's: the
        rerun of a range leaves its own first label to the loop in its caller, so that reruns iterate).
        ``entries``: a switch's work-items entering at its labels, by the label's position (they join there)."""
        f = self.frame
        last_entry = max(entries or (), default=-1)
        kept: Array | None = None  # the live lanes, as long as the statements run cannot change them
        for k in range(start, stop + 1):
            s = items[k]
            if entries is not None and k in entries:
                mask = mask | entries[k]
                kept = None
            m = self.live(mask) if kept is None else kept
            if kept is None and not any_lane(m):
                if k >= last_entry and (not f.jumps or not any(self.awaited(t) for t in items[k : stop + 1])):
                    break
                if not self.awaited(s):  # every lane waits for a label further on
                    if isinstance(s, c_ast.Decl | c_ast.DeclList):
                        self.declare(s)  # its name is in scope at the label (C99 6.8.6.1)
                    continue
            self.statement(s, m)
            # a declaration or an expression sends no work-item elsewhere: the next statement runs on the same lanes
            # (one mask for the run, whose lanes are counted once)
            kept = m if type(s) not in _FLOWS and not f.jumps else None
            while f.jumps:
                back = next((j for j in range(own, k + 1) if any(n in f.jumps for n in labels_in(items[j]))), None)
                if back is None:
                    break
                name = next(n for n in labels_in(items[back]) if n in f.jumps)
                lanes = f.jumps.pop(name, None)
                while lanes is not None:
                    self.items(items, back, k, lanes, back + 1)
                    lanes = f.jumps.pop(name, None)

    def expr_StatementExpression(self, node: c_ast.Compound, mask: Array) -> Result:
        """A GNU statement expression (``check_statements.expr_StatementExpression``: no jump leaves it): its
        statements in a scope of their own under ``mask``, then its last expression's value (void: an int 0)."""
        items = node.block_items or []
        value = value_item(items)
        line = self.st.line
        self.frame.scopes.append({})
        try:
            body = items[:-1] if value is not None else items
            if any_lane(self.live(mask)):
                self.items(body, 0, len(body) - 1, mask, 0)
            else:  # not evaluated (``x || ({...})``, the arm ``?:`` skips): its names still stand for its value's type
                for item in body:
                    if isinstance(item, c_ast.Decl | c_ast.DeclList):
                        self.declare(item)
            result: Result = Value(INT, np.asarray(0, np.int32))
            if value is not None:
                self.st.line = _line(value)
                result = self.eval(value, mask)
        finally:
            self.frame.scopes.pop()
        self.st.line = line  # (the rest of the enclosing statement is on its own line)
        return result

    def statement(self, node: c_ast.Node, mask: Array) -> None:
        self.st.line = _line(node)
        if type(node) not in _STATEMENT_KINDS:  # an expression (the most common statement): straight to it
            self.step(node, mask)
            self.eval(node, mask)
            return
        if isinstance(node, c_ast.Compound):
            if self.frame.jumps:  # work-items on their way to a label inside go in, and on after it (``jumps.py``)
                mask = self.bound_for(node, mask)
            self.block(node.block_items or [], mask)
            return
        if isinstance(node, c_ast.EmptyStatement | c_ast.StaticAssert | c_ast.Pragma):  # (FP_CONTRACT's: a hint)
            return
        f = self.frame
        if isinstance(node, c_ast.Case | c_ast.Default):  # a switch's label (``switch``: its lanes join there)
            if id(node) in self.program.nested_labels:  # inside a nested statement: sent here as by a ``goto``
                waiting = f.jumps.pop(case_key(node), None)
                if waiting is not None:
                    mask = mask | waiting
                if node.stmts:
                    self.items(node.stmts, 0, len(node.stmts) - 1, mask, 0)
            return
        if isinstance(node, c_ast.Label):
            waiting = f.jumps.pop(node.name, None)  # the lanes that jumped here go on with the others
            if waiting is not None:
                mask = mask | waiting
            if node.stmt is not None and any_lane(mask):
                self.statement(node.stmt, mask)
            return
        self.step(node, mask)
        if isinstance(node, c_ast.Decl):
            self.decl(node, mask)
        elif isinstance(node, c_ast.DeclList):
            for d in node.decls:
                self.decl(d, mask)
        elif isinstance(node, c_ast.If):
            # (no lane here but some on their way to a label inside: ``goto``, the only way in with none)
            c = self.none if f.jumps and not any_lane(mask) else self.truth(self.eval(node.cond, mask), mask)
            if c is mask:  # a condition the same in every lane keeps the mask (``truth``): no new one to count
                t, e = mask, self.none
            elif c is self.none:
                t, e = self.none, mask
            else:
                t, e = mask & c, mask & ~c
            if f.jumps:  # work-items on their way to a label inside a branch go in, whatever the condition
                t, e = self.bound_for(node.iftrue, t), self.bound_for(node.iffalse, e)
            if node.iftrue is not None and any_lane(t):
                self.substatement(node.iftrue, t)
            if node.iffalse is not None and any_lane(e):
                self.substatement(node.iffalse, e)
        elif isinstance(node, c_ast.For):
            self.frame.scopes.append({})
            try:
                if node.init is not None:
                    if isinstance(node.init, c_ast.DeclList):
                        for d in node.init.decls:
                            self.decl(d, mask)
                    else:
                        self.eval(node.init, mask)
                self.loop(node.cond, node.stmt, node.next, mask, _line(node), False, self.loop_shape(node))
            finally:
                self.frame.scopes.pop()
        elif isinstance(node, c_ast.While):
            self.loop(node.cond, node.stmt, None, mask, _line(node), False)
        elif isinstance(node, c_ast.DoWhile):
            self.loop(node.cond, node.stmt, None, mask, _line(node), True)
        elif isinstance(node, c_ast.Switch):
            self.switch(node, mask)
        elif isinstance(node, c_ast.Typedef):  # (the checker knows its type by name)
            pass
        elif isinstance(node, c_ast.Goto):  # to a label of a block around it (``jumps.py``; backward: ``items``)
            waiting = f.jumps.get(node.name)
            f.jumps[node.name] = mask if waiting is None else waiting | mask
        elif isinstance(node, c_ast.Break):
            f.brk = mask if f.brk is None else f.brk | mask
        elif isinstance(node, c_ast.Continue):
            f.cont = mask if f.cont is None else f.cont | mask
        elif isinstance(node, c_ast.Return):
            if node.expr is not None and f.ret_type is not None:
                # a pointer is returned as its address (``pointers.PtrType``) until every return is in
                rv = self.to_value(self.eval(node.expr, mask), f.ret_type)
                if f.retval is None:
                    f.retval = rv
                else:
                    f.retval = merged(mask, rv, f.retval, _lane_width(rv.t))
            f.ret = mask if f.ret is None else f.ret | mask
        else:
            self.eval(node, mask)

    def awaited(self, node: c_ast.Node) -> bool:
        """Whether work-items wait (a ``goto``) for a label inside ``node``."""
        return any(name in self.frame.jumps for name in labels_within(node, self.program.labels))

    def bound_for(self, node: c_ast.Node | None, mask: Array) -> Array:
        """``mask`` and the work-items that took a ``goto`` to a label inside ``node`` (``jumps.py``): they skip
        what comes before it there (``live`` leaves them out until the label)."""
        for name in labels_within(node, self.program.labels):
            waiting = self.frame.jumps.get(name)
            if waiting is not None:
                mask = mask | waiting
        return mask

    def substatement(self, node: c_ast.Node, mask: Array) -> None:
        if isinstance(node, c_ast.Compound):
            self.block(node.block_items or [], mask)
        else:
            self.frame.scopes.append({})
            try:
                self.statement(node, mask)
            finally:
                self.frame.scopes.pop()

    def loop_shape(self, node: c_ast.For) -> LoopShape | None:
        """``node``'s shape when its iterations may be batched (``batch_loops``), worked out once per node."""
        if node not in _SHAPES:
            _SHAPES[node] = loop_shape(node, self.program.vector_subscripts)
        return _SHAPES[node]

    def loop(
        self,
        cond: c_ast.Node | None,
        body: c_ast.Node | None,
        nxt: c_ast.Node | None,
        mask: Array,
        line: int,
        do_while: bool,
        shape: LoopShape | None = None,
    ) -> None:
        """The loop's iterations under ``mask``; ``shape``: they may be batched (``batch_loops``), from the first
        once an earlier run of the loop in this launch gave the counts of one iteration, else after the first."""
        f = self.frame
        saved = (f.brk, f.cont)
        f.brk = None
        f.cont = None
        f.loops.append(line)
        active = mask
        first = True
        known = self.loop_weights.get(id(shape)) if shape is not None and not f.jumps else None
        # (a batch may leave a sparse tail to the loop where its lanes can run it alone: ``private_loops``)
        tail = shape is not None and body is not None and self.takes_loop(cond, body, nxt, line)
        if known is not None and any_lane(mask):
            assert shape is not None
            last = self.batch_iterations(shape, mask, *known, sparse=tail)
            if last is not None:  # (its condition is tested once more below, and fails)
                active, first = last, False
        mark = dict(self.counts) if shape is not None and first else None  # the counts before the first iteration
        tested, after_test = 0, mark
        # a compare-and-swap retry loop (``cas_loops``): the counts around its first trip's body, then its test
        cas = cas_shape(cond, body) if nxt is None and not f.jumps else None
        trip_marks: tuple[dict[str, int], dict[str, int], int] | None = None
        trips, digest = 0, None  # (``progress.py``: an iteration that changes nothing repeats forever)
        # the trips on arrays of the lanes in the loop (``private_loops``), from the first (a loop that may be batched:
        # from the first after a batch, or after the iteration that gives the batch its counts) and again after each
        # trip it gave back (a trip at which the launch's state is compared runs here), while it runs any
        private = cas is None and body is not None
        try:
            while True:
                if private and mark is None and digest is None and not f.jumps and any_lane(active):
                    fused = self.private_trips(cond, body, nxt, active, do_while and first, line, trips)
                    private = fused is not None and fused[1] > 0
                    if fused is not None:
                        active, ran = fused
                        trips += ran
                        first = first and not ran
                        if not any_lane(active):
                            return
                if cond is not None and not (do_while and first):
                    self.st.line = _line(cond) or line  # (a do-while's condition is lines below its 'do')
                    if first and mark is not None:
                        tested = lane_count(active)
                    lanes_tested = lane_count(active) if trip_marks is not None else 0
                    active = self.truth(self.eval(cond, active), active)
                    if first and mark is not None:
                        after_test = dict(self.counts)
                    if trip_marks is not None and cas is not None and any_lane(active):
                        before, after, ran = trip_marks
                        test = per_lane({k: c - after.get(k, 0) for k, c in self.counts.items()}, lanes_tested)
                        trip = per_lane({k: c - before.get(k, 0) for k, c in after.items()}, ran)
                        if ran != lanes_tested or test is None or trip is None:
                            pass  # (a lane left the loop otherwise, or the counts differ by lane: trip by trip)
                        elif self.resolve_cas(cas, active, test, trip):
                            active = self.none
                    trip_marks = None
                if first and f.jumps:  # work-items on their way to a label inside go in untested (``jumps.py``)
                    active = self.bound_for(body, active)
                    mark = None
                first = False
                if not any_lane(active):
                    break
                trips += 1
                if digest is not None:
                    if self.progress.digest(self, active) == digest:
                        raise hang(self, line, active)
                    digest = None
                if self.progress.due(trips, self.steps):
                    digest = self.progress.digest(self, active)
                self.st.line = line
                self.step(cond or c_ast.EmptyStatement(), active)
                counts_before = dict(self.counts) if cas is not None and trips == 1 else None
                if body is not None:
                    self.substatement(body, active)
                f.cont = None
                if f.brk is not None:
                    active = active & ~f.brk
                for waiting in f.jumps.values():  # gone to a label after the loop
                    active = active & ~waiting
                if f.ret is not None:
                    active = active & ~f.ret
                if counts_before is not None and not f.jumps:
                    trip_marks = (counts_before, dict(self.counts), lane_count(active))
                if nxt is not None and any_lane(active):
                    self.st.line = _line(nxt) or line
                    self.eval(nxt, active)
                if (
                    mark is not None
                    and after_test is not None
                    and shape is not None
                    and any_lane(active)
                    and not f.jumps
                ):
                    cond_weights = per_lane({k: c - mark.get(k, 0) for k, c in after_test.items()}, tested)
                    body_weights = per_lane(
                        {k: c - after_test.get(k, 0) for k, c in self.counts.items()}, lane_count(active)
                    )
                    if cond_weights is not None and body_weights is not None:
                        self.loop_weights[id(shape)] = (cond_weights, body_weights)
                        last = self.batch_iterations(shape, active, cond_weights, body_weights, sparse=tail)
                        active = active if last is None else last  # (None: iteration by iteration)
                mark = None
        finally:
            f.loops.pop()
            f.brk, f.cont = saved

    def switch(self, node: c_ast.Switch, mask: Array) -> None:
        """Each lane enters the body at its label and runs on from there (falling through the labels after it)
        until it breaks; a lane that matches no label and finds no ``default`` runs none of it. The body is one
        scope: a declaration no lane reaches is still declared, for the lanes that enter below it."""
        known = _SWITCHES.get(node)
        if known is None:
            known = _SWITCHES[node] = (switch_items(node.stmt), switch_labels(node.stmt))
        flat, labels = known
        entries = self.switch_entries(node, labels, mask)
        f = self.frame
        saved = f.brk
        f.brk = None
        # one block of every case's statements (``switch_items``), gotos among them included; the lanes entering
        # at each label join there. Those entering at a label inside a nested statement (Duff's device) wait for it
        # as for a ``goto``'s label: the block's items route them there, and they go on with the items after it.
        at = {id(item): k for k, item in enumerate(flat)}
        joining: dict[int, Array] = {}
        start = np.zeros_like(mask)
        for label in labels:
            lanes = entries.get(id(label))
            if lanes is None or not any_lane(lanes):
                continue
            if id(label) in at:
                joining[at[id(label)]] = lanes
            else:
                f.jumps[case_key(label)] = lanes
                start = start | lanes
        self.frame.scopes.append({})
        try:
            self.items(flat, 0, len(flat) - 1, start, 0, joining)
        finally:
            self.frame.scopes.pop()
            for label in labels:  # (each was reached: the items route its lanes to it; a fault may leave some)
                f.jumps.pop(case_key(label), None)
            f.brk = saved

    def switch_entries(
        self, node: c_ast.Switch, items: Sequence[c_ast.Case | c_ast.Default], mask: Array
    ) -> dict[int, Array]:
        """The lanes entering at each label of ``items`` (by ``id`` of the label; the switch's, in source order).
        Counted as the equivalent ``if``/``else if`` chain: one comparison per case label for the lanes no earlier
        label took, each label after the first a step of those lanes (the first is the switch statement's own
        step); ``default`` takes the rest."""
        v = self.value(node.cond, mask)
        t = promoted(v.t)
        x = self._conv(v, t)
        entries: dict[int, Array] = {}
        remaining = mask
        labels = [item for item in items if isinstance(item, c_ast.Case)]
        for k, label in enumerate(labels):
            if not any_lane(remaining):
                break
            if k:
                self.st.line = _line(label)
                self.step(label, remaining)
            low, high, ranged = self.case_bounds(label)
            self.count("int_ops", remaining, 2 if ranged else 1)
            lo, hi = np.asarray(wrap(low, t), t.dtype), np.asarray(wrap(high, t), t.dtype)
            hit = remaining & ((x >= lo) & (x <= hi) if ranged else (x == lo))
            entries[id(label)] = hit
            remaining = remaining & ~hit
        for item in items:
            if isinstance(item, c_ast.Default):
                entries[id(item)] = remaining
        return entries

    def case_bounds(self, label: c_ast.Case) -> tuple[int, int, bool]:
        """The lowest and highest value ``label`` takes and whether it is a range (GNU's ``case 1 ... 3:``), worked
        out once per label (a switch in a loop asks at every iteration)."""
        known = _CASE_BOUNDS.get(label)
        if known is None:
            ranged = isinstance(label.expr, RangeExpression)
            first, last = (label.expr.first, label.expr.last) if ranged else (label.expr, label.expr)
            low, high = self.program.const_int(first), self.program.const_int(last)
            assert low is not None and high is not None  # the checker guarantees constants
            known = _CASE_BOUNDS[label] = (low, high, ranged)
        return known

    def declare(self, node: c_ast.Decl | c_ast.DeclList) -> None:
        """Declare without initializing: the names of a declaration control jumps over (C99 6.8.4.2)."""
        for d in node.decls if isinstance(node, c_ast.DeclList) else [node]:
            bare = copy.copy(d)
            bare.init = None
            self.decl(bare, np.zeros(self.n, dtype=bool), id(d))

    def decl(self, node: c_ast.Decl, mask: Array, key: int | None = None) -> None:
        """``key``: the declaration ``node`` stands for (``declare``'s copy without its initializer), by id."""
        if isinstance(node.type, c_ast.FuncDecl | FuncDeclExt):  # a function's prototype: nothing to make
            return
        scope = self.frame.scopes[-1]
        t = self.program.type_of(node)
        if t.space == "constant":  # one object for the launch (OpenCL C 1.2 6.5.3), made when first reached
            scope[node.name] = self.local_constant(node)
            return
        if node.name in self._locals and t.space == "local":  # (``T* __local p``: the pointer's own space)
            # bound at launch (one instance per work-group)
            kscope = self.frame.scopes[1]
            scope[node.name] = kscope[node.name]
            return
        if self.checks:
            self._variable(node, t, mask, scope)
            return
        key = id(node) if key is None else key
        storage = self.frame.storage
        if node.init is None and key in storage:  # its storage again, as the last trip left it (``_Frame``)
            scope[node.name] = storage[key]
            return
        self._variable(node, t, mask, scope)
        storage[key] = scope[node.name]

    def _variable(self, node: c_ast.Decl, t: TypeInfo, mask: Array, scope: dict[str, Var]) -> None:
        """A new object for the declaration ``node`` of type ``t``, initialized for the lanes of ``mask``, as
        ``name`` in ``scope``."""
        aggregate = t.kind == "array" and (self._aggregate_elements(t) or _designated(node.init) or _nested(node.init))
        if t.kind == "struct" or aggregate or (t.kind == "array" and not self._uniform(node.init)):
            t = self._declared(t, node.init)
            elem, dims = self._pt(TypeInfo("pointer", target=t)) if t.kind == "array" else (self._ct(t), ())
            assert elem is not None
            word = "array" if dims else "variable"
            obj = self.new_aggregate(f"__private {word} '{node.name}'", t, elem, dims)
            if node.init is not None:
                self.init_object(obj, t, node.init, mask)
            elif self.checks:  # no initializer: each lane's members hold nothing until it stores them
                assert obj.region is not None
                obj.region.init = np.zeros(obj.region.data.size, dtype=bool)
            scope[node.name] = Var(array=obj) if dims else Var(mem=obj)
            return
        if t.kind == "array":
            elem, dims = self._pt(TypeInfo("pointer", target=t))
            if elem is None:
                raise UnsupportedKernel(f"line {_line(node)}: array of '{t}'")
            if dims and dims[0] == 0 and isinstance(node.init, c_ast.InitList):
                dims = (self._declared(t, node.init).length or 0, *dims[1:])
            nbytes = math.prod(dims) * elem_bytes(elem)
            region = Region.allocate("private", f"__private array '{node.name}'", self.n, nbytes, "lane")
            base = Pointer(region, elem, np.asarray(0, np.int64), dims)
            if node.init is not None:
                values = self._init_values(node.init, elem)
                v = region.view(elem.scalar.dtype).reshape(self.n, -1)
                data = np.asarray(values, dtype=elem.scalar.dtype)[: math.prod(dims) * elem.width]  # (excess: dropped)
                v[:, : data.size] = data
            elif self.checks:  # no initializer: each lane's elements hold nothing until it stores them
                region.init = np.zeros(region.data.size, dtype=bool)
            scope[node.name] = Var(array=base)
            return
        if t.kind == "pointer" and node.name not in self.program.address_taken:  # (``&p``: kept in memory, below)
            elem, dims = self._pt(t)
            var = Var(is_pointer=True, ptr_elem=elem)
            if node.init is not None:
                p = self.eval(node.init, mask)
                if not isinstance(p, Pointer):
                    p = Pointer(None, elem, np.asarray(0, np.int64))
                var.value = Pointer(p.region, elem, p.off, dims, p.null)
            scope[node.name] = var
            return
        ct = self._ct(t, f" (line {_line(node)})")  # a pointer's: its address (``pointers.PtrType``)
        if node.name in self.program.address_taken:  # lives in private memory so that a pointer can reach it
            region = Region.allocate("private", f"__private variable '{node.name}'", self.n, elem_bytes(ct), "lane")
            if self.checks:
                region.init = np.zeros(region.data.size, dtype=bool)
            base = Pointer(region, ct, np.asarray(0, np.int64))
            scope[node.name] = Var(mem=base)
            if node.init is not None:
                self.store(base, self.initial_value(ct, node.init, mask), mask)
            return
        var = Var(ct, name=node.name)
        if node.init is None and self.checks:  # undefined in every lane until it assigns it (``undef.py``)
            var.value = self._undefined(ct, f"__private variable '{node.name}' (declared without an initializer)")
        if node.init is not None:
            var.value = self.initial_value(ct, node.init, mask)
            if self.checks and self.frame.jumps:  # a goto past the initializer leaves it undefined (C99 6.8.6.1)
                jumping = functools.reduce(np.logical_or, self.frame.jumps.values())
                if any_lane(jumping):
                    what = f"__private variable '{node.name}' (its initializer jumped over by a goto)"
                    var.value = merged(~jumping, self.to_value(var.value, ct), self._undefined(ct, what), ct.width)
        scope[node.name] = var

    def _undefined(self, ct: CType, what: str) -> Value:
        """A variable's value that no lane has assigned (``undef.py``: using it is the finding, naming ``what``)."""
        shape = (self.n,) if ct.width == 1 else (self.n, ct.width)
        origin = Uninit(self.st, "uninitialized_private", what)
        return Value(ct, np.zeros(shape, ct.dtype), undef=np.ones(shape, bool), origin=origin)

    def initial_value(self, ct: CType, init: c_ast.Node, mask: Array) -> Value:
        """A scalar's or vector's initializer: an expression, or braces (``{x}``; a vector's components, as many as
        it has: the checker saw to the count)."""
        if not isinstance(init, c_ast.InitList):
            return self.to_value(self.eval(init, mask), ct)
        if ct.width == 1:  # a scalar's first item: the others are dropped unevaluated (the checker warned)
            return self.to_value(self.eval(braced_scalar(init), mask), ct)
        return self.braced_vector(ct, [self.eval(e, mask) for e in init.exprs])
