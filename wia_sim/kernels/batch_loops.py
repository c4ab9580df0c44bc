"""Counted loops that only accumulate, run as one batch over (iteration, lane) instead of iteration by iteration.

The inner loop of a matrix product, a convolution, a dot product or a sparse row, ``for (int k = 0; k < n; ++k)
acc += A[..k..] * B[..k..];``, costs the interpreter a pass over the statement per iteration. When the loop has
this shape, its iterations are evaluated together, each value as one array with an iteration axis:

- the loop is ``for (...; k OP bound; k++ / k-- / k += e / k -= e)`` over an integer counter ``k``, the bound an
  expression that stores nothing and reads no accumulator, ``e`` a constant or such an expression the same in
  every work-item; each work-item may start and stop where it does (its iterations are rows of lanes);
- its body is declarations (``const int j = clamp(...);``) and ``v += e``, ``v -= e``, ``v *= e`` or running
  extrema (``v = fmax(v, e)``, ``fmin``, ``max``, ``min``) statements, each on a private scalar variable of its
  own, whose expressions are made of constants, variables, the counter, casts, arithmetic, bitwise and comparison
  operators (not ``&&``, ``||``, ``?:``), pure built-ins and array subscripts, and read no accumulator: nothing
  they read changes while the loop runs;
- and at most one atomic update whose value is unused, ``atomic_inc(&bins[data[i] >> 2]);`` (``add``, ``sub``,
  ``inc``, ``dec``, ``min``, ``max``, ``and``, ``or``, ``xor``, ``atomic_`` or ``atom_``), and one store of a
  scalar, ``y[row * n + j] = exp(x[j] - m);`` (a ``__private`` array's too), each to memory nothing in the loop
  reads, its bound included (``y[k] = ...`` while ``k < row_ptr[i + 1]``: ``row_ptr`` is not ``y``): the final value
  of each element does not depend on the order of such updates, and a batched store stores no element twice (else
  the loop runs iteration by iteration), so they are made at once, after the race tracker has seen them as atomic
  reads and writes or as writes, iteration after iteration.

The first run of such a loop in a launch runs its first iteration as usual: it finds any fault of its own and
gives the counts (the timing model's operations and bytes) each iteration adds per lane; the rest, and every later
run from its first iteration, are batched when they are plainly well-behaved: every read lies in bounds (a declared
array's row too), aligned, initialized, and the race tracker takes it (in iteration order); otherwise nothing is
kept and the loop goes on iteration by iteration, which finds and reports whatever is wrong exactly as before.
Where work-items run different iterations and a long tail of them only a few run (``SPARSE``: a sparse matrix's few
long rows would cost every lane their length), the batch ends where the tail begins, and the tail runs as a batch
of its own on the columns of the lanes still in it (``_Batch.ids``), its own thinning tail likewise; where such a
batch is refused, the loop runs the tail on the lanes still in it (``private_loops``).
The accumulation keeps C's order: ``v`` and the iterations' values are reduced left to right along the iteration
axis in ``v``'s type (NumPy reduces an outer axis element by element, in order; in a launch of one work-item that
axis is contiguous, which NumPy would sum pairwise, so it is accumulated instead), a lane that has stopped adding
what changes nothing (``-0.0`` to a float sum), so the result is bit for bit the loop's.
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass

import numpy as np
from pycparser import c_ast

from wia_sim.kernels.atomics import apply_atomic
from wia_sim.kernels.builtins import MATH_FUNCTIONS
from wia_sim.kernels.contraction import Contraction, contracts, fused, fused_chain
from wia_sim.kernels.ctype import COMPARE, INT, CType, convert, wrap
from wia_sim.kernels.exec_calls import WORK_ITEM_FUNCTIONS
from wia_sim.kernels.exec_state import Array, ExecutorState, _line
from wia_sim.kernels.lanes import all_lanes
from wia_sim.kernels.lvalues import Var
from wia_sim.kernels.pointers import SEVERAL, PtrType
from wia_sim.kernels.spaces import KernelFault, Pointer, Region, UnsupportedKernel, Value, lane_count
from wia_sim.kernels.structs import StructType

__all__ = ["LoopBatcher", "LoopShape", "loop_shape", "names_read", "per_lane"]

MAX_ITERATIONS = 4096
"""The most iterations batched at once (a longer loop runs iteration by iteration)."""
MAX_ELEMENTS = 1 << 23
"""The most (iteration, lane) elements an operand may hold (8M: 32 MB of floats), else iteration by iteration."""
SPARSE = 4
"""A batch of iterations that differ by work-item, of a loop that can run on the lanes still in it
(``private_loops``), ends at the first iteration fewer than a quarter of the lanes that entered it run, where as
many iterations or more (and four at least) follow: every operand holds a row of every lane for each iteration, so
a sparse matrix's few long rows would cost the batch its lanes times their length; that tail runs on the columns of
the lanes still in it."""

_ACCUMULATE = {"+=": np.add, "-=": np.subtract, "*=": np.multiply}
_EXTREMA = {"fmax", "fmin", "max", "min"}
"""``v = fmax(v, e)`` and its like: folded iteration by iteration with the built-in itself (``_folded``)."""
_OPERATORS = {"+": np.add, "-": np.subtract, "*": np.multiply}
"""The operators a batch can write straight into its result's rows (``_Batch.written``)."""
_BINARY = {"/", "%", "<<", ">>", "&", "|", "^", *_OPERATORS, *COMPARE}
_UNARY = {"-", "+", "~", "!"}


@dataclass(frozen=True)
class LoopShape:
    """A loop that may be batched: its counter, the comparison ``counter op bound``, the counter's step per
    iteration and its body's statements in order: declarations (``const int j = ...;``) and accumulations."""

    counter: c_ast.ID
    op: str
    bound: c_ast.Node
    step: int  # with ``stride``: its sign (``k -= e``: -1)
    stride: c_ast.Node | None  # ``e`` of ``k += e``, the same in every work-item and iteration (None: a constant)
    items: tuple[c_ast.Decl | c_ast.Assignment | c_ast.FuncCall, ...]


_NAMES: weakref.WeakKeyDictionary[c_ast.Node, frozenset[str]] = weakref.WeakKeyDictionary()


def names_read(node: c_ast.Node) -> frozenset[str]:
    """The identifiers ``node`` reads, worked out once per node (a batch asks at every launch)."""
    found = _NAMES.get(node)
    if found is None:
        found = frozenset({node.name} if isinstance(node, c_ast.ID) else ())
        found = found.union(*(names_read(child) for _, child in node.children()))
        _NAMES[node] = found
    return found


def _plain(node: c_ast.Node, components: frozenset[int]) -> bool:
    """Whether ``node`` is made only of what a batch evaluates (``_Batch.value``): no assignment, call but a pure
    built-in's, address, ``sizeof``, ``?:``, ``&&``, ``||``, member or vector component."""
    match node:
        case c_ast.Constant():
            return bool(node.type != "string")
        case c_ast.ID():
            return True
        case c_ast.BinaryOp():
            return node.op in _BINARY and _plain(node.left, components) and _plain(node.right, components)
        case c_ast.UnaryOp():
            return node.op in _UNARY and _plain(node.expr, components)
        case c_ast.Cast():
            return _plain(node.expr, components)
        case c_ast.ArrayRef():
            return id(node) not in components and _plain(node.name, components) and _plain(node.subscript, components)
        case c_ast.FuncCall():  # a built-in of values only (a kernel cannot redefine one)
            args = node.args.exprs if node.args is not None else []
            pure = isinstance(node.name, c_ast.ID) and (_pure(node.name.name) or node.name.name in WORK_ITEM_FUNCTIONS)
            return pure and all(_plain(a, components) for a in args)
    return False


def _pure(name: str) -> bool:
    """Whether the built-in ``name`` is computed from its arguments' values alone, element by element."""
    base = name.removeprefix("native_").removeprefix("half_")
    return base in MATH_FUNCTIONS or name.startswith("convert_")


def _step(nxt: c_ast.Node | None, counter: str) -> tuple[int, c_ast.Node | None] | None:
    """The counter's change per iteration, for ``k++``, ``--k``, ``k += c``, ``k -= e``: its sign and the
    expression ``e`` (None for a constant: the sign is all of it, or ``c`` is); None for anything else."""
    if isinstance(nxt, c_ast.UnaryOp) and isinstance(nxt.expr, c_ast.ID) and nxt.expr.name == counter:
        sign = {"++": 1, "p++": 1, "--": -1, "p--": -1}.get(nxt.op)
        return None if sign is None else (sign, None)
    if not (
        isinstance(nxt, c_ast.Assignment)
        and nxt.op in ("+=", "-=")
        and isinstance(nxt.lvalue, c_ast.ID)
        and nxt.lvalue.name == counter
    ):
        return None
    sign = 1 if nxt.op == "+=" else -1
    if isinstance(nxt.rvalue, c_ast.Constant) and nxt.rvalue.type == "int":
        try:
            return sign * int(nxt.rvalue.value.rstrip("uUlL"), 0), None
        except ValueError:
            return None
    return sign, nxt.rvalue


def loop_shape(node: c_ast.For, components: frozenset[int]) -> LoopShape | None:
    """The shape of ``node`` when its iterations may be batched (the module's rules), else None; ``components``:
    the subscripts that pick a vector's component (``Program.vector_subscripts``), which a batch does not take."""
    cond = node.cond
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in COMPARE and isinstance(cond.left, c_ast.ID)):
        return None
    counter = cond.left.name
    stepping = _step(node.next, counter)
    if stepping is None or not stepping[0]:
        return None
    step, stride = stepping
    if stride is not None and (counter in names_read(stride) or not _plain(stride, components)):
        return None
    body = node.stmt
    items = body.block_items or [] if isinstance(body, c_ast.Compound) else [body]
    items = [item for item in items if not isinstance(item, c_ast.Pragma)]  # (FP_CONTRACT's: no statement)
    declared: set[str] = set()
    accumulators: set[str] = set()
    atomics = stores = False  # one atomic update and one store at most
    read: set[str] = set()  # every name the body's expressions read
    for item in items:
        if isinstance(item, c_ast.Decl):
            if (
                item.init is None
                or not isinstance(item.type, c_ast.TypeDecl)
                or item.storage
                or item.name in declared | {counter}
                or not _plain(item.init, components)
            ):
                return None
            read |= names_read(item.init)
            declared.add(item.name)
        elif _store(item, components) and not stores:
            read |= names_read(item.lvalue) | names_read(item.rvalue)
            stores = True
        elif (
            isinstance(item, c_ast.Assignment)
            and isinstance(item.lvalue, c_ast.ID)
            and item.lvalue.name not in declared | accumulators | {counter}
            and _plain(item.rvalue, components)
        ):
            name = item.lvalue.name
            other = _extremum(item.rvalue, name) if item.op == "=" else None
            if item.op in _ACCUMULATE:
                read |= names_read(item.rvalue)
            elif other is not None:
                read |= names_read(other)
            else:
                return None
            accumulators.add(name)
        elif _atomic_update(item, components) is not None and not atomics:
            args = item.args.exprs
            read |= set().union(*(names_read(a) for a in args))
            atomics = True
        else:
            return None
    if not (accumulators or atomics or stores) or accumulators & (read | declared | names_read(cond.right)):
        return None
    if stride is not None and accumulators & names_read(stride):
        return None
    if counter in names_read(cond.right) or not _plain(cond.right, components):
        return None
    return LoopShape(cond.left, cond.op, cond.right, step, stride, tuple(items))


_ATOMIC_UPDATE = re.compile(r"(?:atomic|atom)_(add|sub|inc|dec|min|max|and|or|xor)")
"""The atomics a batch applies: their result unused, the final value of each address does not depend on the
order of the updates (integer ``+`` wraps, and is associative and commutative as the others are)."""


def _atomic_update(node: c_ast.Node, components: frozenset[int]) -> str | None:
    """For a statement ``atomic_op(&a[i], v)`` (``atom_op``; ``inc`` and ``dec`` without ``v``) whose address and
    operand a batch evaluates, ``op``; else None."""
    if not (isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.args is not None):
        return None
    m = _ATOMIC_UPDATE.fullmatch(node.name.name)
    args = node.args.exprs
    if m is None or len(args) != (1 if m.group(1) in ("inc", "dec") else 2):
        return None
    target = args[0]
    if not (isinstance(target, c_ast.UnaryOp) and target.op == "&" and isinstance(target.expr, c_ast.ArrayRef)):
        return None
    if not all(_plain(a, components) for a in (target.expr, *args[1:])):
        return None
    return m.group(1)


def _store(node: c_ast.Node, components: frozenset[int]) -> bool:
    """Whether ``node`` is a statement ``a[i] = e;`` whose element and value a batch evaluates."""
    return (
        isinstance(node, c_ast.Assignment)
        and node.op == "="
        and isinstance(node.lvalue, c_ast.ArrayRef)
        and _plain(node.lvalue, components)
        and _plain(node.rvalue, components)
    )


def _extremum(node: c_ast.Node, name: str) -> c_ast.Node | None:
    """For ``v = fmax(v, e)`` (``fmin``, ``max``, ``min``; ``v`` either argument), ``e``; else None."""
    if not (isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name in _EXTREMA):
        return None
    args = node.args.exprs if node.args is not None else []
    if len(args) != 2:
        return None
    mine = [isinstance(a, c_ast.ID) and a.name == name for a in args]
    if mine == [True, False]:
        return args[1]
    if mine == [False, True]:
        return args[0]
    return None


def _repeats(idx: Array, size: int) -> bool:
    """Whether some element index in ``idx`` (below ``size``) comes twice: by a flag per element where the memory
    is not much larger than the indices (a sort of a quarter of a million indices takes 11 ms, the flags 1 ms),
    else by sorting."""
    if idx.size < 2:
        return False
    if size <= 8 * idx.size:
        flags = np.zeros(size, np.bool_)
        flags[idx] = True
        return int(np.count_nonzero(flags)) < idx.size
    ordered = np.sort(idx)
    return bool((ordered[1:] == ordered[:-1]).any())


def _uniform(v: Value, active: Array) -> int | None:
    """The integer scalar ``v``'s one value in the lanes of ``active``, or None when they differ (or it is not
    an integer scalar every lane defined)."""
    if v.undef is not None or v.t.width > 1 or v.t.kind not in ("int", "uint"):
        return None
    a = np.asarray(v.a)
    if a.ndim == 0:
        return int(a)
    seen = a[active]
    return int(seen[0]) if seen.size and bool((seen == seen[0]).all()) else None


def _arithmetic(t: CType) -> bool:
    return not isinstance(t, StructType | PtrType) and t.width == 1 and t.kind in ("int", "uint", "float")


class _Fallback(Exception):
    """The batch cannot be evaluated: the loop runs iteration by iteration."""


class LoopBatcher(ExecutorState):
    """The batched-loop method of ``_Executor``."""

    def batch_iterations(
        self,
        shape: LoopShape,
        active: Array,
        cond: dict[str, int],
        body: dict[str, int],
        sparse: bool = False,
        tail: bool = False,
    ) -> Array | None:
        """Run the remaining iterations of the loop ``shape`` (the counter holds its next value) at once, for the
        lanes of ``active`` (the lanes that go on to test its condition), and give the lanes that ran the last of
        them (the condition is tested once more for them, and fails where the batch ran them all); ``sparse``: the
        loop can run a sparse tail of iterations on the lanes still in it (``private_loops``), where the batch
        then ends (``SPARSE``) and the tail runs as a batch of its own on the lanes still in it, their columns alone
        (``tail``), where it can. None when they cannot be batched (nothing was changed, but possibly the race
        tracker's records of reads the loop makes anyway: run them one by one). ``cond`` and ``body``: the counts an
        iteration's condition and body add per lane (``per_lane``)."""
        counter = self.lookup_var(shape.counter.name)
        if counter is None or counter.ctype is None or not isinstance(counter.value, Value):
            return None
        k = counter.value
        if k.undef is not None or k.t.width > 1 or k.t.kind not in ("int", "uint"):
            return None
        lanes = lane_count(active)
        saved = dict(self.counts)
        try:
            bound = self.value(shape.bound, active)
        except (KernelFault, UnsupportedKernel):
            return self._restored(saved)
        if bound.undef is not None or bound.t.width > 1 or bound.t.kind not in ("int", "uint"):
            return self._restored(saved)
        step = shape.step
        if shape.stride is not None:
            try:
                stride = _uniform(self.value(shape.stride, active), active)
            except (KernelFault, UnsupportedKernel):
                return self._restored(saved)
            if stride is None:
                return self._restored(saved)
            step *= stride
        ids = np.flatnonzero(active) if tail else None  # (a tail: the columns of its lanes alone)
        iterations = self._iterations(k, shape, bound, active, step, sparse, ids)
        if iterations is None:
            return self._restored(saved)
        ks, rows, final, cut = iterations
        count = ks.shape[0]
        if count < 2 or count * (self.n if ids is None else ids.size) > MAX_ELEMENTS:
            return self._restored(saved)
        for item in shape.items:
            if isinstance(item, c_ast.Assignment) and isinstance(item.lvalue, c_ast.ID):
                var = self.lookup_var(item.lvalue.name)
                value = var.value if var is not None else None
                if not isinstance(value, Value) or value.undef is not None or not _arithmetic(value.t):
                    return self._restored(saved)
        statements = 1 + len(shape.items)  # a step for the condition and each statement, per iteration
        if self.steps - self.steps_from + statements * count > self.step_limit:
            return self._restored(saved)
        batch = _Batch(self, shape.counter.name, counter, k.t, ks, rows, active, ids)
        results: list[tuple[c_ast.ID, Value]] = []
        updates: list[_Update | _Store] = []
        line = self.st.line
        try:
            for item in shape.items:
                self.st.line = _line(item)  # (the race tracker records each access with its statement's line)
                if isinstance(item, c_ast.Decl):
                    batch.declare(item)
                    continue
                if isinstance(item, c_ast.FuncCall):
                    updates.append(batch.atomic(item))
                    continue
                if isinstance(item.lvalue, c_ast.ArrayRef):
                    updates.append(batch.store(item))
                    continue
                var = self.lookup_var(item.lvalue.name)
                assert var is not None and isinstance(var.value, Value)
                if item.op == "=":
                    results.append((item.lvalue, self._folded(var.value, item.rvalue, batch, item.lvalue)))
                else:
                    folded = self._accumulated(var.value, item, batch)
                    results.append((item.lvalue, folded))
            if updates:  # (the bound and stride are read again at every test: memory no update may change)
                for e in (shape.bound, shape.stride):
                    if e is not None:
                        batch.reads_of(e)
            regions = [id(u.region) for u in updates]
            if len(set(regions)) < len(regions) or not batch.read.isdisjoint(regions):  # (read after the update)
                raise _Fallback
        except (_Fallback, KernelFault, UnsupportedKernel):
            return None
        finally:  # (what the batch's own evaluations counted is dropped: each iteration's counts are added below)
            counter.value = k
            self.counts.clear()
            self.counts.update(saved)
            self.st.line = line
        for update in updates:
            update.apply()
        for target, result in results:
            self.lref(target, active).set(batch.whole(result), active)
        self.lref(shape.counter, active).set(batch.whole(Value(k.t, final)), active)
        sizes = [lanes] * count if rows is None else [int(n) for n in rows.sum(axis=1)]
        tests = sum([lanes, *sizes[:-1]])  # each iteration's condition, tested by the lanes of the one before
        for weights, total in ((cond, tests), (body, sum(sizes))):
            for kind, c in weights.items():
                self.counts[kind] = self.counts.get(kind, 0) + c * total
        if rows is None:
            self.steps_for(active, statements * count)
            return active
        # each lane's steps: its iterations' (one per row it runs), the lockstep run's: every row's
        per_lane = batch.whole(Value(INT, rows.sum(axis=0, dtype=np.int32) * statements))
        self.steps_per_lane(np.asarray(per_lane.a), statements * count)
        last = batch.lanes_of(rows[-1])
        if cut:  # the lanes still in the loop go on as a batch of their own, where they can (their tests: its own)
            rest = self.batch_iterations(shape, last, cond, body, sparse, tail=True)
            return last if rest is None else rest
        return last

    def _restored(self, saved: dict[str, int]) -> Array | None:
        """None (not batched), with ``counts`` back to ``saved``."""
        self.counts.clear()
        self.counts.update(saved)
        return None

    def _iterations(
        self, k: Value, shape: LoopShape, bound: Value, active: Array, step: int, sparse: bool, ids: Array | None
    ) -> tuple[Array, Array | None, Array, bool] | None:
        """The counter's value in each remaining iteration (rows; one column when it is the same in every work-item,
        else one per lane, or per lane of ``ids`` alone: a tail's), the lanes each runs (None: all of ``active``,
        every time), the counter's value at the end in each lane (of ``ids``) and whether the iterations were cut
        short: they go on while ``k op bound`` holds (compared in the operands' common type, as C compares them) in
        some lane, each lane stops at its first failure; with ``sparse``, up to the first iteration that fewer than
        a ``SPARSE``-th of the lanes run, where as many iterations or more follow it (the lanes still running then
        hold its counter, untested: the cut); None past ``MAX_ITERATIONS``."""
        t = self.binary_type(shape.op, k.t, bound.t, shape.bound)
        if t.kind not in ("int", "uint"):
            return None
        compare = COMPARE[shape.op]
        start, limit = (None, None) if ids is not None else (_uniform(k, active), _uniform(bound, active))
        if start is not None and limit is not None:  # one counter for all: worked out in Python integers
            ks: list[int] = []
            value, last = start, wrap(limit, t)
            while compare(wrap(value, t), last):
                if len(ks) >= MAX_ITERATIONS:
                    return None
                ks.append(value)
                value = wrap(value + step, k.t)  # (``k += e`` in any type, converted back: modulo its bits)
            return np.asarray(ks, k.t.dtype).reshape(-1, 1), None, np.asarray(value, k.t.dtype), False
        value_a = np.broadcast_to(np.asarray(k.a), (self.n,)).astype(k.t.dtype)
        last_a = np.broadcast_to(convert(np.asarray(bound.a), bound.t, t), (self.n,))
        live = active
        if ids is not None:
            value_a, last_a, live = value_a[ids], last_a[ids], np.ones(ids.size, dtype=bool)
        delta = np.asarray(wrap(step, k.t)).astype(k.t.dtype)  # (k += step in the counter's type: it wraps as C's does)
        final = value_a.copy()
        values: list[Array] = []
        rows: list[Array] = []
        entered = lane_count(live)
        cut: tuple[int, Array] | None = None  # the first sparse iteration, and the counters the batch leaves there
        while True:
            holds = live & compare(convert(value_a, k.t, t), last_a)
            np.copyto(final, value_a, where=live ^ holds)  # (the lanes that stop here: the counter they fail at)
            if not holds.any():
                break
            if sparse and cut is None and len(values) >= 2 and lane_count(holds) * SPARSE < entered:
                left = final.copy()
                left[holds] = value_a[holds]
                cut = (len(values), left)
            if cut is not None and len(values) - cut[0] >= max(cut[0], SPARSE):  # (a long sparse tail: the loop's)
                return np.stack(values[: cut[0]]), np.stack(rows[: cut[0]]), cut[1], True
            if len(values) >= MAX_ITERATIONS:
                return None
            values.append(value_a)
            rows.append(holds)
            value_a = value_a + delta
            live = holds
        if not values:
            return np.zeros((0, final.size), k.t.dtype), None, final, False
        return np.stack(values), np.stack(rows), final, False

    def _accumulated(self, v: Value, item: c_ast.Assignment, batch: _Batch) -> Value:
        """``v op= expr`` over the iterations, in order, in ``v``'s type: ``v`` and each iteration's value as the
        rows of one array (written there by the last operation), reduced along them. A lane an iteration does not
        run adds what changes nothing, bit for bit (``-0.0`` to a float sum: ``x + -0.0`` is ``x``, ``-0.0`` too)."""
        op, expr, target = item.op, item.rvalue, item.lvalue
        contraction = self.program.contractions.get(id(item)) if self.program.contractions else None
        if contraction is not None:
            chained = batch.fused_steps(v, contraction, item)
            if chained is not None:
                return chained
        stacked = np.empty((batch.ks.shape[0] + 1, batch.n), v.t.dtype)
        stacked[0] = batch.columns(v.a)
        et, values = batch.written(expr, stacked[1:])
        if self.binary_type(op[0], v.t, et, target) != v.t:  # each step would convert back: not one reduction
            raise _Fallback
        if values is not None:  # (else written in place)
            values = convert(values, et, v.t) if et != v.t else values
            stacked[1:] = values.reshape(values.shape[0], -1)  # (what no iteration changes: one row for each)
        if batch.rows is not None:
            neutral = 1 if op == "*=" else (-0.0 if op == "+=" and v.t.kind == "float" else 0)
            np.copyto(stacked[1:], np.asarray(neutral).astype(v.t.dtype), where=~batch.rows)
        if batch.n == 1:  # a column of one lane: NumPy would sum it pairwise (a contiguous axis), not in C's order
            return Value(v.t, _ACCUMULATE[op].accumulate(stacked, axis=0)[-1])
        return Value(v.t, _ACCUMULATE[op].reduce(stacked, axis=0))

    def _folded(self, v: Value, call: c_ast.FuncCall, batch: _Batch, target: c_ast.ID) -> Value:
        """``v = fmax(v, e)`` (or ``fmin``, ``max``, ``min``, ``v`` either argument) over the iterations: ``e`` for
        all of them at once, then the executor's own built-in applied iteration by iteration, in order (its NaN and
        signed-zero rules kept), each to the lanes that run that iteration."""
        first = isinstance(call.args.exprs[0], c_ast.ID) and call.args.exprs[0].name == target.name
        other = _extremum(call, target.name)
        assert other is not None
        et, values = batch.value(other)
        rows = np.broadcast_to(values.reshape(values.shape[0], -1), (batch.ks.shape[0], batch.n))
        acc = batch.columns(v.a)
        for k, row in enumerate(rows):
            args = [Value(v.t, acc), Value(et, row)]
            r = self.builtin(call.name.name, args if first else args[::-1], batch.active, call)
            if not isinstance(r, Value) or r.t != v.t or r.undef is not None:
                raise _Fallback
            acc = np.where(batch.entered if batch.rows is None else batch.rows[k], np.asarray(r.a), acc)
        return Value(v.t, acc)


def per_lane(counts: dict[str, int], lanes: int) -> dict[str, int] | None:
    """``counts`` made by ``lanes`` lanes, per lane; None when one is not a whole multiple of them."""
    if not lanes:
        return None
    if any(c % lanes for c in counts.values()):
        return None
    return {kind: c // lanes for kind, c in counts.items() if c}


@dataclass(frozen=True)
class _Update:
    """A batched atomic update, applied once the batch is complete: ``op`` on the elements ``idx`` of ``t`` in
    ``region`` with ``operands`` (one per update, in order)."""

    op: str
    region: Region
    t: CType
    idx: Array
    operands: list[Array]

    def apply(self) -> None:
        if self.idx.size:
            apply_atomic(self.op, self.region.view(self.t.dtype), self.idx, self.operands, self.t)


@dataclass(frozen=True)
class _Store:
    """A batched store, made once the batch is complete: ``values`` (one per store, in order) into the elements
    ``idx`` of ``t`` in ``region``, none twice."""

    region: Region
    t: CType
    idx: Array
    values: Array

    def apply(self) -> None:
        self.region.view(self.t.dtype)[self.idx] = self.values
        self.region.mark_written(self.idx, self.t.dtype.itemsize)


class _Batch:
    """The values of expressions over a loop's remaining iterations: arrays with the iteration on their first axis
    (length ``len(ks)``, or 1 for what does not change), then the lanes, flat (one axis, length ``n`` or 1) or on
    the launch's grid of ids (six axes: a strided view of memory)."""

    def __init__(
        self,
        ex: LoopBatcher,
        name: str,
        counter: Var,
        kt: CType,
        ks: Array,
        rows: Array | None,
        active: Array,
        ids: Array | None = None,
    ) -> None:
        self.ex, self.name, self.counter, self.kt, self.ks, self.rows = ex, name, counter, kt, ks, rows
        self.active = active  # (the launch's lanes: what the executor's own evaluations run under)
        self.ids = ids  # the lanes of the columns, where they are a tail's (else a column per lane of the launch)
        self.n = ex.n if ids is None else ids.size
        self.entered = active if ids is None else np.ones(self.n, dtype=bool)  # (the columns' lanes in the loop)
        self.reads = self.entered if rows is None else rows  # the lanes each iteration reads for, by column
        self.grid: tuple[int, ...] | None = None
        self.declared: dict[str, tuple[CType, Array]] = {}  # the body's variables so far, by name
        self.read: set[int] = set()  # the memory objects the batch reads, by id

    def columns(self, a: Array) -> Array:
        """A value of the launch's lanes (one per lane, or one for all) at the batch's columns."""
        whole = np.broadcast_to(np.asarray(a), (self.ex.n,))
        return whole if self.ids is None else whole[self.ids]

    def lanes_of(self, cols: Array) -> Array:
        """A mask of the batch's columns as one of the launch's lanes."""
        if self.ids is None:
            return cols
        lanes = np.zeros(self.ex.n, dtype=bool)
        lanes[self.ids[cols]] = True
        return lanes

    def whole(self, v: Value) -> Value:
        """A value of the batch's columns as one of the launch's lanes (lanes outside them: 0, for a store under the
        loop's mask)."""
        if self.ids is None:
            return v
        a = np.zeros(self.ex.n, dtype=v.t.dtype)
        a[self.ids] = v.a
        return Value(v.t, a)

    def declare(self, decl: c_ast.Decl) -> None:
        """The body's ``T name = init;``: its value in each iteration, converted to ``T``."""
        t = self.ex._ct(self.ex.program.type_of(decl))
        if not _arithmetic(t):
            raise _Fallback
        et, a = self.value(decl.init)
        self.declared[decl.name] = (t, convert(a, et, t) if et != t else a)

    def fused_steps(self, v: Value, c: Contraction, item: c_ast.Assignment) -> Value | None:
        """``v += a * b`` (``-=``) over the iterations where it contracts (``contraction.py``): a chain of fused
        steps, each rounded to ``v``'s type (``fused_chain``; a lane an iteration does not run keeps its sum), or None
        where the types do not fuse (the operators' way). Of doubles, whose products float64 does not hold
        exactly, the loop runs iteration by iteration."""
        (ta, a), (tb, b) = self.value(c.product.left), self.value(c.product.right)
        t = self.ex.binary_type("*", ta, tb, c.product)
        if not contracts(t, self.ex.binary_type(item.op[0], v.t, t, item), self.ex.cast_types(c)) or v.t != t:
            return None
        if t.name != "float":
            raise _Fallback
        shape = (self.ks.shape[0], *(self.grid or (self.n,)))
        x, y = (
            np.broadcast_to(self._aligned(convert(z, tz, t) if tz != t else z), shape) for tz, z in ((ta, a), (tb, b))
        )
        return Value(v.t, fused_chain(self.columns(v.a), x, y, c.negate_product, self.rows))

    def _varies(self, node: c_ast.Node) -> bool:
        """Whether ``node`` reads the counter or a variable the body declares (else it is the same in every
        iteration)."""
        names = names_read(node)
        return self.name in names or not names.isdisjoint(self.declared)

    def written(self, node: c_ast.Node, out: Array) -> tuple[CType, Array | None]:
        """``node``'s type and values, or None for the values when its operator wrote them into ``out``
        (iterations, lanes), whose type and shape they have (no copy of the result)."""
        if not isinstance(node, c_ast.BinaryOp) or node.op not in _OPERATORS or not self._varies(node):
            return self.value(node)
        if id(node) in self.ex.program.contractions:
            return self._binary(node)
        t, a, b = self._operands(node)
        into = out.reshape(out.shape[0], *self.grid) if self.grid is not None else out
        if t.dtype != out.dtype or np.broadcast_shapes(a.shape, b.shape) != into.shape:
            return t, _OPERATORS[node.op](a, b)
        _OPERATORS[node.op](a, b, out=into)
        return t, None

    def _binary(self, node: c_ast.BinaryOp) -> tuple[CType, Array]:
        """``left op right``: ``+ - *`` by their ufuncs on any layout (what ``_Executor.binop`` applies to them),
        the others by ``binop`` itself on (iterations, lanes) rows (a comparison gives int 0 or 1; an integer
        division or remainder by zero it finds, with checks on, is a finding the loop notes: not batched)."""
        contraction = self.ex.program.contractions.get(id(node)) if self.ex.program.contractions else None
        if contraction is not None:
            product = contraction.product
            (ta, a), (tb, b) = self.value(product.left), self.value(product.right)
            t = self.ex.binary_type("*", ta, tb, product)
            tz, z = self.value(node.right if contraction.first else node.left)
            if contracts(t, self.ex.binary_type(node.op, t, tz, node), self.ex.cast_types(contraction)):
                a, b, z = (self._aligned(convert(x, tx, t) if tx != t else x) for tx, x in ((ta, a), (tb, b), (tz, z)))
                return t, fused(a, b, z, t, contraction)
        if node.op in _OPERATORS:
            t, a, b = self._operands(node)
            return t, _OPERATORS[node.op](a, b)
        (ta, a), (tb, b) = self.value(node.left), self.value(node.right)
        rows = [Value(t, x.reshape(x.shape[0], -1) if x.ndim > 2 else x) for t, x in ((ta, a), (tb, b))]
        r = self.ex.binop(node.op, rows[0], rows[1], self.reads, node, note=False)
        if not isinstance(r, Value):
            raise _Fallback
        return r.t, np.asarray(r.a)

    def _operands(self, node: c_ast.BinaryOp) -> tuple[CType, Array, Array]:
        """The type of ``node`` and its operands' values converted to it, on a common layout of lanes."""
        (ta, a), (tb, b) = self.value(node.left), self.value(node.right)
        t = self.ex.binary_type(node.op, ta, tb, node)
        a = convert(a, ta, t) if ta != t else a
        b = convert(b, tb, t) if tb != t else b
        return t, self._aligned(a), self._aligned(b)

    def value(self, node: c_ast.Node) -> tuple[CType, Array]:
        """``node``'s type and values."""
        if not self._varies(node):  # the same in every iteration: evaluated once
            self.reads_of(node)
            v = self.ex.value(node, self.active)
            if v.undef is not None or not _arithmetic(v.t):
                raise _Fallback
            a = np.asarray(v.a)
            if a.ndim and self.ids is not None:
                a = a[self.ids]
            return v.t, a.reshape(1, -1) if a.ndim else a.reshape(1, 1)
        if isinstance(node, c_ast.ID):
            if node.name in self.declared:
                return self.declared[node.name]
            return self.kt, self.ks
        if isinstance(node, c_ast.FuncCall):
            return self._call(node)
        if isinstance(node, c_ast.Cast):
            t = self.ex._ct(self.ex.program.type_of(node.to_type))
            et, a = self.value(node.expr)
            if not _arithmetic(t):
                raise _Fallback
            return t, (convert(a, et, t) if et != t else a)
        if isinstance(node, c_ast.UnaryOp):
            et, a = self.value(node.expr)
            r = self.ex.unary(node.op, Value(et, a), self.active, node)
            return r.t, np.asarray(r.a)
        if isinstance(node, c_ast.BinaryOp):
            return self._binary(node)
        assert isinstance(node, c_ast.ArrayRef)
        return self._load(node)

    def reads_of(self, node: c_ast.Node) -> None:
        """Put the memory objects the subscripts in ``node`` read (an expression the same in every iteration,
        evaluated once) in ``read``: a batched update of one of them would change what it reads (else
        ``_Fallback``: an object not known here)."""
        for _, child in node.children():
            self.reads_of(child)
        if isinstance(node, c_ast.ArrayRef):
            base = self.ex.array_object(node.name, self.active)[0] if isinstance(node.name, c_ast.ID) else None
            if not isinstance(base, Pointer) or base.region is None or base.region is SEVERAL:
                raise _Fallback
            self.read.add(id(base.region))

    def _aligned(self, a: Array) -> Array:
        """``a`` on the grid's axes when an operand is (a flat array reshaped: free)."""
        if self.grid is None or a.ndim > 2:
            return a
        lanes = a.shape[1]
        return a.reshape(a.shape[0], *(self.grid if lanes > 1 else (1,) * len(self.grid)))

    def _pointer(self, node: c_ast.ArrayRef, row: int) -> Pointer:
        """The element ``node`` designates in iteration ``row``, as the executor finds it."""
        ks = self.ks[row]
        if self.ids is not None:  # (the executor's counter holds a value per lane of the launch)
            ks = self.whole(Value(self.kt, ks)).a
        self.counter.value = Value(self.kt, ks[0] if ks.size == 1 else ks)
        return self.ex.index(node, self.active if self.rows is None else self.lanes_of(self.rows[row]))

    def _load(self, node: c_ast.ArrayRef) -> tuple[CType, Array]:
        if not names_read(node).isdisjoint(self.declared):
            return self._gathered(node)
        count = self.ks.shape[0]
        first, second, last = (self._pointer(node, row) for row in (0, 1, count - 1))
        t = first.elem
        if (
            first.region is None
            or first.region is SEVERAL
            or t is None
            or not _arithmetic(t)
            or first.dims
            or first.packed
            or any(p.region is not first.region or p.elem != t or p.null is not None for p in (first, second, last))
        ):
            raise _Fallback
        region = first.region
        if self.rows is None and first.affine is not None and second.affine is not None and last.affine is not None:
            step = second.affine - first.affine
            if step.g == (0, 0, 0) and step.l == (0, 0, 0) and last.affine == first.affine + step.base * (count - 1):
                self.read.add(id(region))
                view = region.load_steps_strided(self.ex.st, first.affine, step.base, count, self.active, t)
                if view is not None:
                    self.grid = view.shape[1:]
                    return t, view
        a = self.columns(np.asarray(first.off, np.int64))
        d = self.columns(np.asarray(second.off, np.int64)) - a
        z = self.columns(np.asarray(last.off, np.int64))
        if bool(((a + d * (count - 1) != z) & self.entered).any()):  # not linear in the counter
            return self._gathered(node)
        return t, self._read(region, a + np.arange(count, dtype=np.int64)[:, None] * d, t)

    def _gathered(self, node: c_ast.ArrayRef) -> tuple[CType, Array]:
        """``base[subscript]`` with the subscript's value in each iteration (a clamped or a declared index), the
        base the same in all: the subscript held to a declared array's bounds, as ``index_member`` holds it."""
        base, bound, t, sub = self._subscripted(node)
        assert base.region is not None
        index = np.broadcast_to(sub.reshape(sub.shape[0], -1), (self.ks.shape[0], self.n)).astype(np.int64)
        whole = isinstance(node.name, c_ast.ID) and base.region.space != "private"  # (the region checks those)
        outside = bound is not None and self.ex.checks and not whole and ((index < 0) | (index >= bound)) & self.reads
        if outside is not False and bool(np.any(outside)):
            raise _Fallback
        offsets = self.columns(np.asarray(base.off, np.int64)) + index * base.elem_size
        return t, self._read(base.region, offsets, t)

    def _subscripted(self, node: c_ast.ArrayRef) -> tuple[Pointer, int | None, CType, Array]:
        """``base[subscript]`` with a base the same in every iteration, of one memory object and of arithmetic
        scalars (else ``_Fallback``): the base, the declared array's length (None for a pointer), the element type
        and the subscript's integer values (iterations, lanes)."""
        if self._varies(node.name):
            raise _Fallback
        base, bound, _ = self.ex.array_object(node.name, self.active)
        if not isinstance(base, Pointer) or base.dims or base.region is None or base.region is SEVERAL:
            raise _Fallback
        t = base.elem
        if t is None or not _arithmetic(t) or base.null is not None or base.packed:
            raise _Fallback
        st, sub = self.value(node.subscript)
        if st.kind not in ("int", "uint"):
            raise _Fallback
        return base, bound, t, sub

    def _element(self, target: c_ast.ArrayRef, atomic: bool) -> tuple[Region, CType, Array | None, Array, Array]:
        """The element ``target`` designates in every (iteration, lane) pair that runs, for an update of it: its
        memory object (``__global``, ``__local``, or ``__private`` for a store), its type, the pairs (flat indices
        of (iteration, lane), iteration after iteration, lanes in order within one; None: every pair), their lanes
        and their byte offsets in the object; checked as the update would be one by one (in bounds of the object
        and of a declared array, aligned), else ``_Fallback``: nothing was done, the loop runs iteration by
        iteration and finds what is wrong. Memory the batch reads is not updated: its values would change under
        the loop."""
        base, bound, t, sub = self._subscripted(target)
        region = base.region
        assert region is not None
        if (
            (atomic and t.kind == "float")
            or region.space not in (("global", "local") if atomic else ("global", "local", "private"))
            or region.read_only
            or (atomic and region.write_only)
            or id(region) in self.read
        ):
            raise _Fallback
        count, n = self.ks.shape[0], self.n
        every = self.rows is None and all_lanes(self.active)
        taken = None if every else np.flatnonzero(np.broadcast_to(self.reads, (count, n)))
        index = self._pairs(sub, taken).astype(np.int64, copy=False)
        if bound is not None and index.size and (int(index.min()) < 0 or int(index.max()) >= bound):
            raise _Fallback
        lanes = np.tile(np.arange(n), count) if taken is None else taken % n
        if self.ids is not None:  # (the columns' own lanes)
            lanes = self.ids[lanes]
        seen = np.broadcast_to(np.asarray(base.off, np.int64), (self.ex.n,))[lanes] + index * t.dtype.itemsize
        flat = region.rowed(self.ex.st, seen, lanes)
        if not region.plain_steps(self.ex.st, seen, flat, t, initialized=atomic):  # (an atomic reads too)
            raise _Fallback
        return region, t, taken, lanes, flat

    def _pairs(self, a: Array, taken: Array | None) -> Array:
        """The values of ``a`` (iterations or 1, lanes or 1, or on the grid) in the (iteration, lane) pairs
        ``taken`` (``_element``; None: every pair), one flat array."""
        whole = np.broadcast_to(a.reshape(a.shape[0], -1), (self.ks.shape[0], self.n))
        return whole.reshape(-1) if taken is None else whole.reshape(-1)[taken]

    def _operand(self, node: c_ast.Node, t: CType, taken: Array | None) -> Array:
        """``node``'s value in each pair of ``taken`` (``_element``), converted to ``t``."""
        et, a = self.value(node)
        a = self._pairs(a, taken)
        return convert(a, et, t) if et != t else a

    def atomic(self, call: c_ast.FuncCall) -> _Update:
        """The statement ``atomic_op(&a[i], v)`` (``_atomic_update``) over the iterations: every address and
        operand at once (``_element``), on initialized integers, given to the race tracker as atomic reads and
        writes, iteration after iteration; applied by the caller once the whole batch has been evaluated."""
        op = _ATOMIC_UPDATE.fullmatch(call.name.name).group(1)  # type: ignore[union-attr]
        args = call.args.exprs
        region, t, taken, lanes, flat = self._element(args[0].expr, atomic=True)
        operands = [self._operand(arg, t, taken) for arg in args[1:]]
        st = self.ex.st
        if st.checks and region.raced and flat.size:
            region._track(st, flat, lanes, t, write=False, atomic=True)
            region._track(st, flat, lanes, t, write=True, atomic=True)
        return _Update(op, region, t, flat >> (t.dtype.itemsize.bit_length() - 1), operands)

    def store(self, item: c_ast.Assignment) -> _Store:
        """The statement ``a[i] = e;`` over the iterations: every element and value at once (``_element``), no
        element twice (else the order of the stores matters: iteration by iteration), given to the race tracker
        as writes, iteration after iteration, and marked initialized; made by the caller once the whole batch has
        been evaluated."""
        region, t, taken, lanes, flat = self._element(item.lvalue, atomic=False)
        values = self._operand(item.rvalue, t, taken)
        shift = t.dtype.itemsize.bit_length() - 1
        idx = flat >> shift
        if _repeats(idx, region.data.size // t.dtype.itemsize):
            raise _Fallback
        st = self.ex.st
        if st.checks and region.raced and flat.size:
            word = np.dtype(f"u{t.dtype.itemsize}")

            def bits() -> tuple[Array, Array]:  # (the uniform-write test's: what is stored, what memory holds)
                return np.ascontiguousarray(values).view(word), region.view(word)[idx]

            region._track(st, flat, lanes, t, write=True, stored=bits)  # (at the store's line: batch_iterations)
        return _Store(region, t, idx, values)

    def _read(self, region: Region, offsets: Array, t: CType) -> Array:
        """The values at byte ``offsets`` (iterations, lanes) of ``region``, checked (``Region.load_steps``)."""
        self.read.add(id(region))
        values = region.load_steps(self.ex.st, offsets, self.reads, t, self.ids)
        if values is None:
            raise _Fallback
        return values if self.grid is None else values.reshape(values.shape[0], *self.grid)

    def _call(self, node: c_ast.FuncCall) -> tuple[CType, Array]:
        """A pure built-in (``_pure``) of scalars, by the executor's own function, on every iteration at once."""
        name = node.name.name
        if not _pure(name):
            raise _Fallback
        values = []
        for arg in node.args.exprs if node.args is not None else []:
            t, a = self.value(arg)
            values.append(Value(t, a))
        r = self.ex.builtin(name, values, self.active, node)
        if not isinstance(r, Value) or r.undef is not None or not _arithmetic(r.t):
            raise _Fallback
        return r.t, np.asarray(r.a)
