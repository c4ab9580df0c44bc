"""Compare-and-swap retry loops, resolved address by address once their first trip has run.

OpenCL C 1.2 has no atomic float add, float max or product; kernels build them from ``atomic_cmpxchg``:

    do {
        expected = seen;
        const float updated = as_float(expected) + val;
        seen = atomic_cmpxchg(p, expected, as_int(updated));
    } while (seen != expected);

In lockstep each trip lets one work-item per address succeed (``atomics.apply_atomic``: lane order), so the loop
takes as many trips as the most work-items that update one address: a histogram's hot bin makes hundreds, each a
pass of the interpreter over the body. Yet after the first trip, once every work-item still in the loop has seen
its address's current value, the rest is fixed: at each address the work-items succeed one after the other in lane
order, each applying its update to what the one before it left. ``CasLoops.resolve_cas`` computes that sequence
with a scan of the update's operator (``as_float(expected) + val``: ``np.add.accumulate`` in float, rounded at
each step as each trip rounds), then checks it with the interpreter itself: one evaluation of the body, from the
value each work-item is claimed to see, must give the value the next one is claimed to see, bit for bit. Only then
is anything stored; the variables, memory, counts, steps and race records are those the trips would have left.
Any other shape, an update the scan does not cover or a value that differs leaves the loop to run trip by trip.

The shape: ``x = s;``, then declarations, then ``s = atomic_cmpxchg(p, x, N);`` (``atom_cmpxchg``) under
``while (s != x)`` (or ``x != s``, a ``do``-``while`` or a ``while``), where ``p`` reads neither ``x``, ``s`` nor
a declaration of the body, and ``N`` is ``x`` or ``as_T(x)`` combined by ``+ - * & | ^``, ``min``, ``max``,
``fmin`` or ``fmax`` with an operand that reads none of those, the result converted back through ``as_T`` (or not
at all), through the body's declarations or not. Nothing in the body stores or calls anything but pure built-ins;
what it reads of memory (``w[i]``) must be of another memory object than the one updated, at an address the loop
does not change, so that each trip reads the same.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np
from pycparser import c_ast

from wia_sim.kernels.atomics import stable_order
from wia_sim.kernels.batch_loops import names_read
from wia_sim.kernels.builtins import MATH_FUNCTIONS
from wia_sim.kernels.ctype import CType, convert
from wia_sim.kernels.exec_state import Array, ExecutorState, _line
from wia_sim.kernels.lanes import per_lane as broadcast
from wia_sim.kernels.operators import DIRECT, binary_spec
from wia_sim.kernels.pointers import SEVERAL
from wia_sim.kernels.spaces import KernelFault, Pointer, UnsupportedKernel, Value
from wia_sim.kernels.undef import within

__all__ = ["CasLoops", "CasShape", "cas_shape"]

_CAS = frozenset({"atomic_cmpxchg", "atom_cmpxchg"})
_EXTREMA = {"fmin": np.fmin, "fmax": np.fmax, "min": np.minimum, "max": np.maximum}
_UNARY = frozenset({"-", "+", "~", "!"})
_BINARY = frozenset({"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">", "<=", ">=", "==", "!="})


@dataclass(frozen=True)
class CasShape:
    """A retry loop ``resolve_cas`` may resolve (the module's docstring): the names of ``x`` and ``s``, the
    statements before the compare-and-swap, the call, and its update split as ``decoded OP operand``."""

    expected_node: c_ast.ID
    seen_node: c_ast.ID
    """``x`` and ``s`` as ``x = s;`` names them."""
    items: tuple[c_ast.Node, ...]
    call: c_ast.FuncCall
    op: str
    node: c_ast.Node
    """The update's operator (a ``BinaryOp``, or the call of an extremum)."""
    decoded: c_ast.Node
    """``x`` or ``as_T(x)``: what the update reads of the value seen."""
    operand: c_ast.Node
    reads: tuple[c_ast.Node, ...] = ()
    """The pointers the body reads memory through (``w[i]``, ``*q``): each must be into another memory object
    than the one updated, so that it reads the same in every trip."""


_SHAPES: weakref.WeakKeyDictionary[c_ast.Node, CasShape | None] = weakref.WeakKeyDictionary()
"""Each loop's shape, by its condition (a program's nodes live as long as its AST)."""


def cas_shape(cond: c_ast.Node | None, body: c_ast.Node | None) -> CasShape | None:
    """The retry loop ``while (cond) body`` is, or None; worked out once per loop."""
    if cond is None or body is None:
        return None
    if cond not in _SHAPES:
        _SHAPES[cond] = _shape(cond, body)
    return _SHAPES[cond]


def _shape(cond: c_ast.Node, body: c_ast.Node) -> CasShape | None:
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op == "!="):
        return None
    if not (isinstance(cond.left, c_ast.ID) and isinstance(cond.right, c_ast.ID)):
        return None
    items = body.block_items if isinstance(body, c_ast.Compound) else None
    if not items or len(items) < 2:
        return None
    first, last = items[0], items[-1]
    if not (_copy(first) and _copy(last, call=True)):
        return None
    x, s = first.lvalue.name, first.rvalue.name
    if {x, s} != {cond.left.name, cond.right.name} or x == s or last.lvalue.name != s:
        return None
    call = last.rvalue
    args = call.args.exprs if call.args is not None else []
    if len(args) != 3 or not (isinstance(args[1], c_ast.ID) and args[1].name == x):
        return None
    decls: dict[str, c_ast.Node] = {}
    reads: list[c_ast.ArrayRef | c_ast.UnaryOp] = []
    for item in items[1:-1]:
        if not (isinstance(item, c_ast.Decl) and item.init is not None and _values_only(item.init, reads)):
            return None
        if item.name in (x, s) or item.name in decls:
            return None
        decls[item.name] = item.init
    local = {x, s, *decls}
    if not _values_only(args[2], reads) or not _address_only(args[0]) or names_read(args[0]) & local:
        return None
    if any(names_read(read) & local for read in reads):  # (a read the same in every trip: of no value the loop changes)
        return None
    update = _through(_unencoded(args[2]), decls)
    if isinstance(update, c_ast.BinaryOp) and update.op in DIRECT:
        op, pair = update.op, (update.left, update.right)
    elif _called(update) in _EXTREMA and len(_args(update)) == 2:
        op, pair = _called(update), tuple(_args(update))
    else:
        return None
    for k, (side, operand) in enumerate((pair, pair[::-1])):
        decoded, other = _through(side, decls), _through(operand, decls)
        if _reads(decoded, x) and not names_read(other) & local and (k == 0 or op != "-"):
            bases = tuple(r.name if isinstance(r, c_ast.ArrayRef) else r.expr for r in reads)
            return CasShape(first.lvalue, first.rvalue, tuple(items[:-1]), call, op, update, decoded, other, bases)
    return None


def _copy(node: c_ast.Node, call: bool = False) -> bool:
    """``a = b;`` between names (``call``: ``a = atomic_cmpxchg(...);``)."""
    if not (isinstance(node, c_ast.Assignment) and node.op == "=" and isinstance(node.lvalue, c_ast.ID)):
        return False
    if call:
        return _called(node.rvalue) in _CAS
    return isinstance(node.rvalue, c_ast.ID)


def _called(node: c_ast.Node) -> str | None:
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID):
        return str(node.name.name)
    return None


def _args(node: c_ast.Node) -> list[c_ast.Node]:
    assert isinstance(node, c_ast.FuncCall)
    return list(node.args.exprs) if node.args is not None else []


def _unencoded(node: c_ast.Node) -> c_ast.Node:
    """``e`` of ``as_T(e)``, else ``node``."""
    name = _called(node)
    if name is not None and name.startswith("as_") and len(_args(node)) == 1:
        return _args(node)[0]
    return node


def _through(node: c_ast.Node, decls: dict[str, c_ast.Node]) -> c_ast.Node:
    """``node``, a name of a body's declaration replaced by its initializer (again while it is one)."""
    seen: set[str] = set()
    while isinstance(node, c_ast.ID) and node.name in decls and node.name not in seen:
        seen.add(node.name)
        node = decls[node.name]
    return node


def _reads(decoded: c_ast.Node, x: str) -> bool:
    """Whether ``decoded`` is ``x`` or ``as_T(x)``."""
    inner = _unencoded(decoded)
    return isinstance(inner, c_ast.ID) and inner.name == x


def _values_only(node: c_ast.Node, reads: list[c_ast.ArrayRef | c_ast.UnaryOp] | None = None) -> bool:
    """Whether ``node`` computes from values alone: names, constants, operators, casts and pure built-ins (no
    store, increment or call of a function of the program); with ``reads``, memory reads too (``a[i]``, ``*p``),
    each added to it."""
    match node:
        case c_ast.Constant():
            return bool(node.type != "string")
        case c_ast.ID():
            return True
        case c_ast.BinaryOp():
            return node.op in _BINARY and _values_only(node.left, reads) and _values_only(node.right, reads)
        case c_ast.UnaryOp() if node.op == "*" and reads is not None:
            reads.append(node)
            return _address_only(node.expr, reads)
        case c_ast.UnaryOp():
            return node.op in _UNARY and _values_only(node.expr, reads)
        case c_ast.ArrayRef() if reads is not None:
            reads.append(node)
            return _address_only(node.name, reads) and _values_only(node.subscript, reads)
        case c_ast.Cast():
            return _values_only(node.expr, reads)
        case c_ast.TernaryOp():
            return all(_values_only(n, reads) for n in (node.cond, node.iftrue, node.iffalse))
        case c_ast.FuncCall():
            name = _called(node) or ""
            pure = name.startswith(("as_", "convert_")) or name.removeprefix("native_") in MATH_FUNCTIONS
            return pure and all(_values_only(a, reads) for a in _args(node))
    return False


def _address_only(node: c_ast.Node, reads: list[c_ast.ArrayRef | c_ast.UnaryOp] | None = None) -> bool:
    """Whether ``node`` computes an address: names, casts, ``&a[i]``, pointer arithmetic, without reading memory
    (with ``reads``, as ``_values_only``: its reads added to it)."""
    match node:
        case c_ast.Cast():
            return _address_only(node.expr, reads)
        case c_ast.UnaryOp() if node.op == "&" and isinstance(node.expr, c_ast.ArrayRef):
            return _address_only(node.expr.name, reads) and _values_only(node.expr.subscript, reads)
        case c_ast.BinaryOp() if node.op in ("+", "-"):
            return _address_only(node.left, reads) and _values_only(node.right, reads)
    return _values_only(node, reads)


class CasLoops(ExecutorState):
    """The compare-and-swap loop method of ``_Executor``."""

    def resolve_cas(self, shape: CasShape, active: Array, cond: dict[str, int], body: dict[str, int]) -> bool:
        """Run the trips left of the retry loop ``shape`` for the lanes of ``active`` (each of which failed its
        compare-and-swap in the trip that ran, and tests the condition next) at once; False, with nothing changed,
        where they must run trip by trip. ``cond`` and ``body``: the counts a trip's test and body add per lane."""
        saved = dict(self.counts)
        line = self.st.line
        trips = None
        try:
            trips = self._resolved(shape, active)
        except (KernelFault, UnsupportedKernel):  # (the trips will meet it again, and report it)
            trips = None
        finally:  # what the evaluations here counted is dropped: the trips' counts take its place
            self.counts.clear()
            self.counts.update(saved)
            self.st.line = line
        if trips is None:
            return False
        for weights in (cond, body):
            for kind, c in weights.items():
                self.counts[kind] = self.counts.get(kind, 0) + c * trips
        return True

    def _resolved(self, shape: CasShape, active: Array) -> int | None:
        """``resolve_cas``'s work: the trips the lanes ran in all, or None (nothing changed)."""
        xv, sv = self.lookup_var(shape.expected_node.name), self.lookup_var(shape.seen_node.name)
        if xv is None or sv is None or xv.ctype is None or xv.ctype != sv.ctype:
            return None
        if not (isinstance(xv.value, Value) and isinstance(sv.value, Value)):
            return None
        if any(v.undef is not None and within(v.undef, active) is not None for v in (xv.value, sv.value)):
            return None
        args = _args(shape.call)
        p = self.eval(args[0], active)
        if not isinstance(p, Pointer) or p.region is None or p.region is SEVERAL or p.elem is None:
            return None
        p = self.converted(p, shape.call)
        t, region = p.elem, p.region
        if t is None or region is None or t.width > 1 or region.space not in ("global", "local"):
            return None
        if xv.ctype != t or region.read_only:
            return None
        for base in shape.reads:  # (memory read in every trip the same: not the memory updated)
            q = self.eval(base, active)
            if not isinstance(q, Pointer) or q.region is None or q.region is SEVERAL or q.region is region:
                return None
        flat, ok, _ = region._prepare(self.st, p.off, active, t, True)
        if self.st.misaligned is not None or bool((active & ~ok).any()):
            self.st.misaligned = None
            return None
        lanes = np.flatnonzero(active)
        view = region.view(t.dtype)
        idx = broadcast(np.asarray(flat) // t.dtype.itemsize, (self.n,))[lanes]
        seen = broadcast(np.asarray(sv.value.raw), (self.n,))[lanes].astype(t.dtype)
        if not bool((seen == view[idx]).all()):  # some lane has not seen its address's value: trip by trip
            return None
        order = stable_order(idx, view.size)
        iv = idx[order]
        starts = np.flatnonzero(np.r_[True, iv[1:] != iv[:-1]])
        lengths = np.diff(np.r_[starts, iv.size])
        claimed = self._scanned(shape, active, lanes, order, starts, lengths, view[iv[starts]], t)
        if claimed is None:
            return None
        old_sorted, final = claimed
        if not bool((old_sorted[starts] == view[iv[starts]]).all()):  # (``as_T`` not the bits themselves)
            return None
        # the check: the body, from the value each lane is claimed to see, gives the next one's (each lane's last
        # trip: ``x = s`` with ``s`` the value seen, then its declarations and the update)
        old = np.empty_like(old_sorted)
        old[order] = old_sorted
        saved = (xv.value, sv.value)
        full = np.zeros(self.n, t.dtype)
        full[lanes] = old
        seen_value = Value(t, full)
        self.frame.scopes.append({})
        try:
            self.lref(shape.seen_node, active).set(seen_value, active)
            for item in shape.items:
                if isinstance(item, c_ast.Decl):
                    self.decl(item, active)
                else:
                    self.eval(item, active)
            new_value = self.value(args[2], active)
        finally:
            self.frame.scopes.pop()
            xv.value, sv.value = saved
        new = broadcast(np.asarray(self._conv(new_value, t)), (self.n,))[lanes][order]
        ends = starts + lengths - 1
        chained = np.ones(iv.size, bool)
        chained[ends] = False
        if new_value.undef is not None or not bool((new[chained] == old_sorted[1:][chained[:-1]]).all()):
            return None
        if not bool((new[ends] == final).all()):
            return None
        # each lane's trips: one, and one more for each lane before it at its address that changed the value (the
        # lanes after such a lane see the change and fail; a lane that leaves the value as it was lets the next pass)
        changed = (new != old_sorted).astype(np.int64)
        run = np.repeat(np.arange(starts.size), lengths)
        before = np.cumsum(changed) - changed
        trips_sorted = 1 + before - before[starts][run]
        trips = np.zeros(self.n, np.int64)
        trips[lanes[order]] = trips_sorted
        statements = 1 + len(shape.items) + 1  # the loop's step, then one per statement of the body
        longest = int(trips_sorted.max())
        if self.steps - self.steps_from + statements * longest > self.step_limit:
            return None
        # commit: memory, its records, the variables, the steps
        view[iv[ends]] = final
        region.mark_written(iv[ends], t.dtype.itemsize)
        if self.st.checks:  # (the race tracker records each lane's update, at the statement's line)
            self.st.line = _line(shape.call)
            region._check(self.st, flat, active, t, write=True, atomic=True)
        self.lref(shape.seen_node, active).set(seen_value, active)
        self.lref(shape.expected_node, active).set(seen_value, active)
        self.steps_per_lane(trips * statements, statements * longest)
        return int(trips_sorted.sum())

    def _scanned(
        self,
        shape: CasShape,
        active: Array,
        lanes: Array,
        order: Array,
        starts: Array,
        lengths: Array,
        current: Array,
        t: CType,
    ) -> tuple[Array, Array] | None:
        """The value each lane (in address order) is claimed to see, and each address's final value, from a scan
        of the update over each address's lanes; None where the update is not one the scan covers."""
        xv = self.lookup_var(shape.expected_node.name)
        assert xv is not None
        full = np.zeros(self.n, t.dtype)
        full[lanes[order]] = np.repeat(current, lengths)
        saved = xv.value
        try:
            self.lref(shape.expected_node, active).set(Value(t, full), active)
            decoded = self.value(shape.decoded, active)
        finally:
            xv.value = saved
        w = self.value(shape.operand, active)
        if decoded.undef is not None or w.undef is not None or decoded.t.width > 1 or w.t.width > 1:
            return None
        if shape.op in _EXTREMA:
            ufunc: Any = _EXTREMA[shape.op]
            u = decoded.t
            if w.t != u:
                return None
        else:
            if id(shape.node) in (self.program.contractions or {}):
                return None
            spec = binary_spec(shape.op, decoded.t, w.t, shape.node)
            u = spec.t
            ufunc = spec.ufunc
            if ufunc is not DIRECT[shape.op] or u != decoded.t:
                return None
        if u.dtype.itemsize != t.dtype.itemsize:
            return None
        y0 = broadcast(np.asarray(decoded.a), (self.n,))[lanes][order][starts].astype(u.dtype)
        ws = np.asarray(convert(broadcast(np.asarray(w.a), (self.n,))[lanes][order], w.t, u)).astype(u.dtype)
        seen = np.empty(ws.size, u.dtype)
        final = np.empty(starts.size, u.dtype)
        with np.errstate(all="ignore"):
            if starts.size <= int(lengths.max()):  # few addresses: one scan each
                for k, (a, n) in enumerate(zip(starts.tolist(), lengths.tolist(), strict=True)):
                    run = ufunc.accumulate(np.r_[y0[k : k + 1], ws[a : a + n]], dtype=u.dtype)
                    seen[a : a + n] = run[:-1]
                    final[k] = run[-1]
            else:  # many: rank by rank, every address at once
                y = y0.copy()
                for rank in range(int(lengths.max())):
                    live = np.flatnonzero(lengths > rank)
                    seen[starts[live] + rank] = y[live]
                    y[live] = ufunc(y[live], ws[starts[live] + rank])
                final = y
        return seen.view(t.dtype), final.view(t.dtype)
