"""The kernel executor: every work-item of a launch in lockstep, vectorized over lanes with NumPy.

``run_kernel`` walks the checked AST of a ``Program`` (never turning source into Python). Every private value is
an array with one entry per lane (a trailing axis for vectors; shape () while it is the same in every lane);
divergent control flow is a lane mask: both sides of an ``if``/``?:`` run under their own masks, a ``switch``'s
lanes join at their own labels and fall through, loops run until no lane's condition holds,
``break``/``continue``/``return`` switch lanes off. Memory lives in ``spaces.Region``
objects, which check every access when ``checks`` is on.

The executor is assembled from mixins over the state shared in ``exec_state.py``: the statements (blocks, ``if``,
loops, ``switch``, ``break``/``continue``/``return``, declarations) in ``exec_statements.py``, the calls (built-ins,
the program's functions) in ``exec_calls.py``, memory accesses in ``exec_memory.py``, the launch's setup (arguments,
``__local`` and ``__constant`` objects) in ``exec_setup.py``, struct values in ``struct_exec.py``; the other
expressions are here. The visitor methods are named as the checker's (``check_statements.py``, ``check_exprs.py``,
``check_calls.py``): ``statement``/``substatement`` for statements, ``expr_<node type>`` for expressions (each
evaluated through a plan made once per program: ``plan``).
"""

from __future__ import annotations

import math
import re
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pycparser import c_ast

from wia_sim.kernels import scratch
from wia_sim.kernels.affine import CONVERSE, Affine
from wia_sim.kernels.async_copy import AsyncCopies, kernel_end_line
from wia_sim.kernels.batch_loops import LoopBatcher
from wia_sim.kernels.bit_shadow import BIT_EXACT, bits_binop, bits_converted, bits_unary
from wia_sim.kernels.cas_loops import CasLoops
from wia_sim.kernels.compiled import compiled_plan
from wia_sim.kernels.contraction import Contraction, contracts, fused
from wia_sim.kernels.conversions import floating_literal
from wia_sim.kernels.ctype import (
    COMPARE,
    INT,
    SCALARS,
    CType,
    arithmetic,
    common_type,
    comparison_type,
    convert,
    elem_bytes,
    promoted,
)
from wia_sim.kernels.exec_calls import WORK_ITEM_FUNCTIONS, CallRunner, call_plan
from wia_sim.kernels.exec_memory import MemoryOps
from wia_sim.kernels.exec_setup import LaunchSetup
from wia_sim.kernels.exec_state import _Frame, _line
from wia_sim.kernels.exec_statements import StatementRunner
from wia_sim.kernels.lanes import Geometry, any_lane, lanes_of, per_lane, stacked
from wia_sim.kernels.literals import c_string, char_constant
from wia_sim.kernels.lvalues import (
    ComponentRef,
    MemRef,
    Ref,
    SwizzleRef,
    Var,
    VarRef,
    component,
    merge_lanes,
    merged,
    past_three,
    swizzled,
)
from wia_sim.kernels.operators import (
    DIRECT,
    Binary,
    binary_spec,
    binary_type,
    count_kind,
    lanes_out,
    zero_divisors,
)
from wia_sim.kernels.pointers import SEVERAL, AddressMap, PtrType, one_object
from wia_sim.kernels.printf import PrintfOutput
from wia_sim.kernels.private_loops import PrivateLoops
from wia_sim.kernels.program import KernelInfo, Program
from wia_sim.kernels.progress import Watch, relied_on
from wia_sim.kernels.recursion import deep_recursion
from wia_sim.kernels.signatures import BUILTIN_CONSTANTS, constant_type
from wia_sim.kernels.spaces import (
    KernelFault,
    KernelTimeout,
    LaunchState,
    Pointer,
    Region,
    UnsupportedKernel,
    Value,
)
from wia_sim.kernels.struct_exec import StructOps
from wia_sim.kernels.structs import StructType, size_align
from wia_sim.kernels.types import TypeInfo, swizzle_indices
from wia_sim.kernels.undef import Shadow, converted_exactly, defined, joined, masked, shaped, tainted, within

__all__ = ["COUNTS", "KernelFault", "KernelTimeout", "RunResult", "UnsupportedKernel", "run_kernel"]

COUNTS = (
    "work_items",
    "work_groups",
    "float32_ops",
    "float64_ops",
    "int_ops",
    "special_ops",
    "global_bytes_read",
    "global_bytes_written",
    "constant_bytes_read",
    "local_bytes_read",
    "local_bytes_written",
    "atomics",
    "barriers",
    "max_lane_steps",
)
"""What ``run_kernel`` counts: every key always present, in the order a report lists them."""

Array = NDArray[Any]
Result = Value | Pointer
ULONG = SCALARS["ulong"]
LONG = SCALARS["long"]
UINT = SCALARS["uint"]


@dataclass
class RunResult:
    """What a launch did: ``counts`` for the timing model and the number of lockstep steps executed."""

    counts: dict[str, int]
    steps: int
    kernel: str = ""
    output: str = ""
    """What the kernel's printf calls printed, in a stable order, bytes that are not UTF-8 kept as surrogates
    (``printf.PrintfOutput.text``; ``printf.write_output`` writes the bytes)."""
    findings: list[KernelFault] = field(default_factory=list)
    """Lower-severity findings (``uniform_write``, ``division_by_zero``) that did not stop the kernel: the first at
    each line."""


_STEP_MASKS = 64
"""How many partial masks ``step`` holds (each kept alive, a lane mask's memory) before adding them to the lanes'
step counts."""

_COMPARISONS = set(COMPARE)


def _int_literal(text: str) -> int:
    t = text.rstrip("uUlL")
    if re.fullmatch(r"0[0-7]+", t):
        return int(t, 8)
    return int(t, 0)


Plan = Callable[["_Executor", Array], Result]
"""How one expression node evaluates under a lane mask, made once per program (``_Executor.plan``)."""


_LIMITS = {
    name: (int(np.iinfo(t.dtype).min), int(np.iinfo(t.dtype).max))
    for name, t in SCALARS.items()
    if t.kind in ("int", "uint")
}


def _holds(t: CType, a: Affine) -> bool:
    """Whether every work-item's value of ``a`` is representable in ``t`` (an integer scalar type): converting to
    ``t`` changes none, and arithmetic in ``t`` did not wrap."""
    if t.width > 1 or t.kind not in ("int", "uint"):
        return False
    return a.fits(*_LIMITS[t.name])


def _affine_operand(v: Value, t: CType) -> Affine | int | None:
    """``v`` converted to ``t`` as coefficients or as the one value of every lane; None when it is neither."""
    if v.affine is not None:
        return v.affine if _holds(t, v.affine) else None
    a = v.a
    return None if a.ndim else int(convert(np.asarray(a), v.t, t))


def _affine_result(op: str, a: Value, b: Value, t: CType) -> Value | None:
    """``a op b`` (``+``, ``-``, ``*`` in the integer type ``t``) as coefficients, or None: compute it lane by lane."""
    x, y = _affine_operand(a, t), _affine_operand(b, t)
    if x is None or y is None:
        return None
    r: Affine | int
    if op == "+":
        r = x + y
    elif op == "-":
        r = x - y
    elif isinstance(x, Affine) and isinstance(y, int):
        r = x.scaled(y)
    elif isinstance(y, Affine) and isinstance(x, int):
        r = y.scaled(x)
    else:
        return None
    return Value(t, None, r) if isinstance(r, Affine) and _holds(t, r) else None


def _affine_comparison(op: str, a: Value, b: Value, t: CType) -> Array | None:
    """The lanes where ``a op b`` (a comparison in the integer type ``t``) holds, from coefficients
    (``Affine.lanes_where``), or None (an operand is neither coefficients nor one value that fit ``t``): compare
    lane by lane. Both operands hold their exact values in ``t``, so comparing those compares what C compares."""
    x, y = _affine_operand(a, t), _affine_operand(b, t)
    if x is None or y is None:
        return None
    if isinstance(x, int):
        assert isinstance(y, Affine)
        return y.lanes_where(CONVERSE[op], x)
    return (x - y).lanes_where(op, 0) if isinstance(y, Affine) else x.lanes_where(op, y)


def _on_grid(ufunc: Any, a: Value, b: Value, dtype: Any) -> Array:
    """``ufunc(a, b)`` with at least one operand a strided view of memory (``Value.grid``), the result one entry
    per lane. Over the launch's grid of ids, the other operand is reshaped to the grid (free for a per-lane
    array); over a span of lanes, it is sliced to the span, and the lanes outside it (inactive) get zero."""
    if a.grid is not None and b.grid is not None and a.grid.span != b.grid.span:
        b.raw  # noqa: B018 (views of two shapes: the right one copied per lane, ``Value.raw``)
    lead = a.grid if a.grid is not None else b.grid
    assert lead is not None
    span = lead.span
    if span is None:
        shape = lead.view.shape
        x, y = (v.grid.view if v.grid is not None else (v.a.reshape(shape) if v.a.ndim else v.a) for v in (a, b))
        out = scratch.empty((math.prod(shape),), dtype)
        ufunc(x, y, out=out.reshape(shape))
        return out
    lo, hi = span
    x, y = (v.grid.view if v.grid is not None else (v.a[lo : hi + 1] if v.a.ndim else v.a) for v in (a, b))
    out = scratch.empty((lead.total,), dtype)
    out[:lo] = 0
    out[hi + 1 :] = 0
    ufunc(x, y, out=out[lo : hi + 1])
    return out


def _stores_nothing(node: c_ast.Node) -> bool:
    """Whether evaluating ``node`` cannot store to memory: variables, constants, operators without assignment,
    casts, subscripts and members of those, and the work-item functions (a conservative test: anything else may)."""
    match node:
        case c_ast.ID() | c_ast.Constant():
            return True
        case c_ast.ArrayRef():
            return _stores_nothing(node.name) and _stores_nothing(node.subscript)
        case c_ast.BinaryOp():
            return _stores_nothing(node.left) and _stores_nothing(node.right)
        case c_ast.UnaryOp():
            return node.op not in ("++", "--", "p++", "p--") and _stores_nothing(node.expr)
        case c_ast.Cast():
            return _stores_nothing(node.expr)
        case c_ast.StructRef():
            return _stores_nothing(node.name)
        case c_ast.FuncCall():
            name = node.name.name if isinstance(node.name, c_ast.ID) else ""
            args = node.args.exprs if node.args is not None else []
            return name in WORK_ITEM_FUNCTIONS and all(_stores_nothing(e) for e in args)
    return False


_DEREFERENCED: weakref.WeakKeyDictionary[c_ast.StructRef, c_ast.StructRef] = weakref.WeakKeyDictionary()


def _dereferenced(node: c_ast.StructRef) -> c_ast.StructRef:
    """``p->m`` as ``(*p).m`` (C99 6.5.2.3p4), for ``->`` on a pointer to a vector (Clang takes it: a swizzle of
    the vector in memory); made once per node, and forgotten with it."""
    found = _DEREFERENCED.get(node)
    if found is None:
        found = _DEREFERENCED[node] = c_ast.StructRef(
            c_ast.UnaryOp("*", node.name, node.coord), ".", node.field, node.coord
        )
    return found


class _Combine:
    """``a op b`` on evaluated operands, with the operand conversions and the operation decided once per pair of
    operand types (the general ``binop`` works them out at every call): a binary operator's, and the operation of
    a compound assignment or an increment, made once per node."""

    __slots__ = ("node", "op", "specs")

    def __init__(self, op: str, node: c_ast.Node) -> None:
        self.op, self.node = op, node
        self.specs: dict[tuple[str, int, str, int], Binary] = {}

    def __call__(self, ex: _Executor, a: Result, b: Result, mask: Array) -> Result:
        op, node = self.op, self.node
        if not isinstance(a, Value) or not isinstance(b, Value) or a.undef is not None or b.undef is not None:
            return ex.binop(op, a, b, mask, node)
        ta, tb = a.t, b.t
        key = (ta.name, ta.width, tb.name, tb.width)
        spec = self.specs.get(key)
        if spec is None:
            spec = self.specs[key] = binary_spec(op, ta, tb, node)
        if spec.ufunc is None:
            return ex.binop(op, a, b, mask, node, spec.t)
        t = spec.t
        if (a.grid is not None or b.grid is not None) and not (spec.convert_a or spec.convert_b):
            r = _on_grid(spec.ufunc, a, b, bool if spec.result is not None else t.dtype)
            ex.count(spec.kind, mask, t.width)
            if spec.result is None:
                return Value(t, r)
            return Value(INT, None, cond=r)  # (grids are scalar: ``load_strided``)
        if a.affine is not None or b.affine is not None:
            if spec.affine:
                kept = _affine_result(op, a, b, t)
                if kept is not None:
                    ex.count(spec.kind, mask)
                    return kept
            elif spec.ordered:
                lanes = _affine_comparison(op, a, b, t)
                if lanes is not None:
                    ex.count(spec.kind, mask)
                    return Value(INT, None, cond=lanes)
        x = ex._conv(a, t) if spec.convert_a else a.a
        y = ex._conv(b, t) if spec.convert_b else b.a
        ex.count(spec.kind, mask, t.width)
        r = spec.ufunc(x, y, out=lanes_out(x, y, bool if spec.result is not None else t.dtype))
        if spec.result is None:
            return Value(t, np.asarray(r))
        if t.width > 1:
            return Value(spec.result, np.asarray(r).astype(spec.result.dtype) * spec.result.dtype.type(-1))
        r = np.asarray(r)
        return Value(INT, None, cond=r) if r.ndim else Value(INT, r.astype(np.int32))


def _binary_plan(node: c_ast.BinaryOp, components: frozenset[int]) -> Plan:
    """``left op right``: its operands evaluated, then combined (``_Combine``)."""
    left, right = node.left, node.right
    combine = _Combine(node.op, node)
    # an operand that is an element of an array may be taken as a view of memory (no copy) when nothing can store
    # before the operator runs: the right one always (it is evaluated last), the left one if the right stores nothing
    # (not a vector's component by index, ``components``: no memory to view)
    view_right = isinstance(right, c_ast.ArrayRef) and id(right) not in components
    view_left = isinstance(left, c_ast.ArrayRef) and id(left) not in components and _stores_nothing(right)

    def run(ex: _Executor, mask: Array) -> Result:
        a = ex.load(ex.index(left, mask), mask, grid=True) if view_left else ex.eval(left, mask)
        b = ex.load(ex.index(right, mask), mask, grid=True) if view_right else ex.eval(right, mask)
        return combine(ex, a, b, mask)

    return run


def _fused(
    ex: _Executor,
    a: Result,
    b: Result,
    z: Result,
    c: Contraction,
    casts: tuple[CType, ...],
    node: c_ast.Node,
    mask: Array,
) -> Result | None:
    """The product ``a * b`` and the addend ``z`` of the addition ``node`` rounded once (``contraction.py``), or
    None where their types (and the ``casts`` between) do not fuse. A lane whose operands are defined gets the fused
    bits whatever its neighbours hold; the result is undefined where the operators' would be (the product's shadow
    through the casts, then the sum's, in C's order)."""
    if type(a) is not Value or type(b) is not Value or type(z) is not Value:
        return None
    t = binary_type("*", a.t, b.t, c.product)
    if not contracts(t, binary_type("-" if c.subtract else "+", t, z.t, node), casts):
        return None
    ex.count(count_kind(t), mask, 2 * t.width)  # (a multiplication and an addition, as unfused)
    r = Value(t, fused(ex._conv(defined(a), t), ex._conv(defined(b), t), ex._conv(defined(z), t), t, c))
    if a.undef is None and b.undef is None and z.undef is None:
        return r
    product: Result = tainted(Value(t, r.raw), joined((a, b)))
    for ct in reversed(casts):  # (from the product out, as ``_contracted_plan``'s ``product``)
        product = ex.to_value(product, ct)
    return tainted(r, joined((product, z) if c.first else (z, product)))


def _contracted_plan(node: c_ast.BinaryOp | c_ast.Assignment, c: Contraction, casts: tuple[CType, ...]) -> Plan:
    """An addition that may fuse with its operand ``c.product`` through ``casts`` (``_fused``; else the
    operators, in C's order)."""
    times = _Combine("*", c.product)
    left, right = c.product.left, c.product.right

    def product(ex: _Executor, a: Result, b: Result, mask: Array) -> Result:
        p = times(ex, a, b, mask)
        for ct in reversed(casts):  # (from the product out)
            p = ex.to_value(p, ct)
        return p

    if isinstance(node, c_ast.Assignment):
        add = _Combine(node.op[:-1], node)
        target = node.lvalue

        def assign(ex: _Executor, mask: Array) -> Result:
            ref = ex.lref(target, mask)
            a, b = ex.eval(left, mask), ex.eval(right, mask)
            old = ref.get(mask)
            new = _fused(ex, a, b, old, c, casts, node, mask)
            if new is None:
                new = add(ex, old, product(ex, a, b, mask), mask)
            ref.set(new, mask)
            return ref.get_after(new)

        return assign
    add = _Combine(node.op, node)
    addend = node.right if c.first else node.left

    def run(ex: _Executor, mask: Array) -> Result:
        z = None if c.first else ex.eval(addend, mask)
        a, b = ex.eval(left, mask), ex.eval(right, mask)
        if z is None:
            z = ex.eval(addend, mask)
        r = _fused(ex, a, b, z, c, casts, node, mask)
        if r is not None:
            return r
        p = product(ex, a, b, mask)
        return add(ex, p, z, mask) if c.first else add(ex, z, p, mask)

    return run


def _update_plan(node: c_ast.Assignment | c_ast.UnaryOp) -> Plan:
    """A compound assignment ``x op= y``, or ``++``/``--`` (``x += 1``, the old value for the postfix ones): the
    target designated once, its operation combined as a binary operator's (``_Combine``)."""
    if isinstance(node, c_ast.Assignment):
        combine = _Combine(node.op[:-1], node)
        target, rvalue = node.lvalue, node.rvalue

        def assign(ex: _Executor, mask: Array) -> Result:
            ref = ex.lref(target, mask)
            rhs = ex.eval(rvalue, mask)
            new = combine(ex, ref.get(mask), rhs, mask)
            ref.set(new, mask)
            return ref.get_after(new)

        return assign
    combine = _Combine("+" if "+" in node.op else "-", node)
    target, postfix = node.expr, node.op.startswith("p")
    one = Value(INT, np.asarray(1, np.int32))

    def step(ex: _Executor, mask: Array) -> Result:
        ref = ex.lref(target, mask)
        old = ref.get(mask)
        new = combine(ex, old, one, mask)
        ref.set(new, mask)
        return old if postfix else ref.get_after(new)

    return step


class _Executor(StructOps, StatementRunner, CallRunner, MemoryOps, LaunchSetup, LoopBatcher, CasLoops, PrivateLoops):
    def __init__(
        self,
        program: Program,
        kernel: KernelInfo,
        geometry: Geometry,
        step_limit: int,
        checks: bool,
        in_order: bool = False,
    ):
        self.program = program
        self.types = program.types
        self.enumerators = program.enumerators
        self.member_refs = program.member_refs
        self.whole_items = program.whole_items
        self.kernel = kernel
        self.geometry = geometry
        self.lanes = lanes_of(geometry)
        self.n = self.lanes.total
        self.groups = math.prod(geometry.num_groups)
        self.step_limit = step_limit
        self.in_order = in_order
        self.progress = Watch()
        self.steps = 0
        self.steps_from = 0
        self.lane_steps = np.zeros(self.n, np.int64)
        self.full_steps = 0
        self._step_masks: dict[int, tuple[Array, list[int]]] = {}  # partial masks' steps, added up in max_lane_steps
        self._steps_added = False
        self._locals: set[str] = set()
        self.init_flags: list[tuple[Array, Array]] = []  # (caller's flags, the region's padded copy) per buffer
        self.local_regions: list[Region] = []
        self.counts: dict[str, int] = {}
        self.st = LaunchState(
            self.lanes,
            kernel.name,
            program.filename,
            checks,
            self.counts,
            source_lines=program.source_lines,
            origins=program.origins,
        )
        self.st.epoch = np.zeros(self.groups, np.int64)
        self.checks = checks
        self.double_constants = program.double_constants  # an unsuffixed floating literal's type
        self.plans: dict[c_ast.Node, Plan] = program.plans
        self.globals: dict[str, Var] = {}
        self.frame = self.kernel_frame = _Frame([self.globals])
        self.all = np.ones(self.n, dtype=bool)
        self.none = np.zeros(self.n, dtype=bool)
        self.base = self.all
        self.addresses = AddressMap(self.n)
        self.async_copies = AsyncCopies(self)
        self.printf = PrintfOutput(self)
        self.local_constants: dict[int, Var] = {}  # by id of the declaration (``local_constant``)
        self.strings: dict[int, Pointer] = {}  # string literals used as values, by id of the node (``string``)
        self.loop_weights = {}  # (``LoopBatcher``)
        self.trip_lanes = None  # (``PrivateLoops``)
        self.trip_undo = []
        self.trip_columns = {}
        self._constants()

    # ------------------------------------------------------------------ helpers
    def fault_line(self, node: c_ast.Node | None) -> None:
        self.st.line = _line(node)

    def lookup_var(self, name: str) -> Var | None:
        for scope in reversed(self.frame.scopes):
            v = scope.get(name)
            if v is not None:
                return v
        return None

    def live(self, mask: Array) -> Array:
        f = self.frame
        for off in (f.ret, f.brk, f.cont):
            if off is not None:
                mask = mask & ~off
        for waiting in f.jumps.values():
            mask = mask & ~waiting
        return mask

    def count(self, kind: str, mask: Array, width: int = 1) -> None:
        # consecutive operations of a statement share one mask: its lanes are counted once (LaunchState.active)
        self.counts[kind] = self.counts.get(kind, 0) + self.st.active(mask) * width

    def step(self, node: c_ast.Node, mask: Array) -> None:
        self.steps_for(mask, 1)
        if self.steps - self.steps_from > self.step_limit:
            loops = self.frame.loops
            at = loops[-1] if loops else _line(node)
            source = self.st.quote(at)
            file, line = self.program.where(at)
            raise KernelTimeout(
                self.kernel.name,
                line,
                f"{file}:{line}: kernel '{self.kernel.name}' exceeded its step limit of {self.step_limit:,} "
                "lockstep steps (statements run, each by all its lanes at once): a loop that never ends, or a "
                "kernel longer than the limit (the sim backend's kernel_step_limit, wia-sim's --step-limit, raises "
                "it)" + (f"\n    {source}" if source else ""),
                source,
                file,
            )

    def steps_for(self, mask: Array, count: int) -> None:
        """``count`` steps under ``mask`` (``step``'s, without the limit: a caller that adds several checked it)."""
        self.steps += count
        if mask is self.all:
            self.full_steps += count
            return
        # statements of one block share their mask: counted per mask, added to the lanes' counts later
        entry = self._step_masks.get(id(mask))
        if entry is None:
            if len(self._step_masks) >= _STEP_MASKS:
                self.lane_steps_total()
            self._step_masks[id(mask)] = (mask, [count])
        else:
            entry[1][0] += count

    def steps_per_lane(self, counts: Array, longest: int) -> None:
        """Steps that differ by lane, ``counts`` per lane, of which the lockstep run takes ``longest`` (a loop's
        trips run at once: ``cas_loops``)."""
        self.steps += longest
        np.add(self.lane_steps, counts, out=self.lane_steps)
        self._steps_added = True

    def lane_steps_total(self) -> Array:
        """Each lane's steps under partial masks (``step``): the masks on hold added in."""
        for mask, (count,) in self._step_masks.values():
            np.add(self.lane_steps, count, out=self.lane_steps, where=mask)
        self._step_masks.clear()
        self._steps_added = True
        return self.lane_steps

    def max_lane_steps(self) -> int:
        """The most steps any lane executed (the longest work-item's path, for the timing model)."""
        if not self.n:
            return 0
        held = list(self._step_masks.values())
        if not self._steps_added and len(held) <= 1:  # one partial mask at most: no per-lane sum needed
            partial = held[0][1][0] if held and bool(held[0][0].any()) else 0
            return partial + self.full_steps
        return int(self.lane_steps_total().max()) + self.full_steps

    @staticmethod
    def _conv(v: Value, t: CType) -> Array:
        if v.t is t or v.t == t:
            return v.a
        return np.asarray(convert(np.asarray(v.a), v.t, t))

    def to_value(self, v: Result, t: CType) -> Value:
        if isinstance(t, PtrType):  # a pointer to be stored: its address (an integer: 0 is NULL, as C's)
            a = self.addresses.address(v) if isinstance(v, Pointer) else self._conv(v, LONG)
            return Value(t, np.asarray(a).astype(np.uint64))
        if isinstance(v, Pointer):
            if t.name == "bool":  # (C99 6.3.1.2: NULL is false, any other pointer true)
                return Value(t, np.asarray(self.truth(v, self.all)).astype(t.dtype))
            raise UnsupportedKernel(f"line {self.st.line}: a pointer used as a {t} value")
        if (isinstance(t, StructType) or isinstance(v.t, StructType)) and v.t != t:
            raise UnsupportedKernel(f"line {self.st.line}: a {v.t} value used as a {t}")
        if v.undef is not None and (
            isinstance(t, StructType) or v.t == t
        ):  # the same type: bits and shadow as they are
            return v
        if v.undef is not None:  # converted with its shadow
            plain = self.to_value(defined(v), t)
            exact = converted_exactly(v, t, np.asarray(plain.a)) or bits_converted(v, plain)
            return exact if exact is not None else tainted(plain, joined((v,)))
        if v.affine is not None and _holds(t, v.affine):  # the conversion changes no lane's value
            return Value(t, v.a if v.t == t and v._a is not None else None, v.affine)
        return Value(t, self._conv(v, t))

    @staticmethod
    def used(v: Value, mask: Array, how: str) -> Value:
        """``v``, whose bits the lanes of ``mask`` need (``how``): the finding where one of them has an undefined
        lane (component), else its bits (``undef.py``)."""
        if v.undef is None:
            return v
        undef = within(v.undef, mask)
        if undef is not None:
            assert v.origin is not None
            raise v.origin.fault(undef, f"and its value used {how}")
        return defined(v)

    def truth(self, v: Result, mask: Array) -> Array:
        if isinstance(v, Pointer):  # a pointer is true where it is not NULL
            if v.region is SEVERAL:
                return np.asarray(mask & (per_lane(np.asarray(v.off), mask.shape) != 0))
            if v.region is None:
                return np.zeros_like(mask)
            return mask if v.null is None else np.asarray(mask & ~v.null)
        if v.undef is not None:
            v = self.used(v, mask, "in a condition")
        if v.cond is not None:
            if mask is self.all:
                return v.cond
            return np.logical_and(mask, v.cond, out=scratch.empty(mask.shape, bool))
        a = np.asarray(v.a)
        if v.t.width > 1:
            raise UnsupportedKernel(f"line {self.st.line}: a vector used as a condition")
        if a.ndim == 0:  # the same in every lane: the mask itself (kept, so that what follows knows it) or none
            return mask if a else self.none
        return np.asarray(mask & (a != 0))

    # ------------------------------------------------------------------ expressions
    def eval(self, node: c_ast.Node, mask: Array) -> Result:
        plan = self.plans.get(node)
        if plan is None:
            plan = self.plans[node] = self.plan(node)
        return plan(self, mask)

    def plan(self, node: c_ast.Node) -> Plan:
        """How to evaluate ``node``, decided once per program: arithmetic on private values compiled
        (``compiled.py``), which gives itself back to the interpreter's plan where it cannot evaluate."""
        interpreted = self.interpreted_plan(node)
        return compiled_plan(self, node, interpreted) or interpreted

    def interpreted_plan(self, node: c_ast.Node) -> Plan:
        """The interpreter's plan for ``node``: a constant's value, a binary operator's, compound assignment's or
        increment's types (cached per operand types), a built-in of values only (``call_plan``), else the
        ``expr_<node type>`` method."""
        kind = type(node).__name__
        if kind == "Constant" and node.type != "string":  # (a string is an object of the launch: ``string``)
            constant = self.expr_Constant(node, self.all)
            return lambda ex, mask: constant
        contraction = self.program.contractions.get(id(node)) if self.program.contractions else None
        casts = None if contraction is None else self.cast_types(contraction)
        if contraction is not None and casts is not None:
            return _contracted_plan(node, contraction, casts)
        if kind == "BinaryOp" and node.op not in ("&&", "||"):
            return _binary_plan(node, self.program.vector_subscripts)
        if (kind == "Assignment" and node.op != "=") or (kind == "UnaryOp" and node.op in ("++", "--", "p++", "p--")):
            return _update_plan(node)
        if kind == "FuncCall":
            call = call_plan(node, self.program)
            if call is not None:
                return call
        method = getattr(_Executor, "expr_" + kind, None)
        if method is None:
            message = f"line {_line(node)}: {kind} is not supported"

            def unsupported(ex: _Executor, mask: Array) -> Result:
                raise UnsupportedKernel(message)

            return unsupported
        return lambda ex, mask: method(ex, node, mask)

    def value(self, node: c_ast.Node, mask: Array) -> Value:
        v = self.eval(node, mask)
        if isinstance(v, Pointer):
            raise UnsupportedKernel(f"line {_line(node)}: a pointer where a value is needed")
        return v

    def expr_Constant(self, node: c_ast.Constant, mask: Array) -> Result:
        typ = node.type
        text = node.value
        if typ == "string":
            return self.string(node)
        if typ == "char" or text.startswith("'"):  # (the checker has refused invalid ones)
            return Value(INT, np.asarray(char_constant(text), np.int32))
        if typ in ("float", "double") or ("." in text or ("e" in text.lower() and not text.lower().startswith("0x"))):
            if typ == "double" and not text.rstrip().endswith(("f", "F")):
                t = SCALARS["double" if self.double_constants else "float"]
            elif typ == "double":
                t = SCALARS["float"]
            elif text.rstrip().endswith(("h", "H")):  # (cl_khr_fp16's half constant: ``rewrites.half_literals``)
                t = SCALARS["half"]
            else:
                t = SCALARS.get(typ, SCALARS["float"])
            if typ not in ("float", "double"):
                t = SCALARS["double" if self.double_constants else "float"]
            return Value(t, np.asarray(floating_literal(text, t)))
        if "p" in text.lower() and text.lower().startswith("0x"):
            single = text.rstrip().endswith(("f", "F")) or not self.double_constants
            t = SCALARS["float" if single else "double"]
            return Value(t, np.asarray(floating_literal(text, t)))
        v = _int_literal(text)
        unsigned = "unsigned" in typ
        is_long = "long" in typ
        decimal = not text.lower().startswith("0")
        if not is_long and not unsigned and v < 2**31:
            t = INT
        elif not is_long and (unsigned or not decimal) and v < 2**32:
            t = UINT
        elif not unsigned and v < 2**63:
            t = LONG
        else:
            t = ULONG
        return Value(t, np.asarray(v % (1 << 64) if t.kind == "uint" else v).astype(t.dtype))

    def string(self, node: c_ast.Constant) -> Pointer:
        """A string literal used as a value: a pointer to its chars and NUL in ``__constant`` memory (OpenCL C 1.2
        6.5.3), one read-only object per literal for the launch, made when first used."""
        p = self.strings.get(id(node))
        if p is None:
            data = np.frombuffer(c_string(node.value).encode("latin-1") + b"\0", np.uint8)
            region = Region.allocate(
                "constant", f"string literal at {self.st.line_named(_line(node))}", 1, data.size, "none"
            )
            region.view(data.dtype)[: data.size] = data
            region.read_only = True
            p = self.strings[id(node)] = Pointer(region, SCALARS["char"], np.asarray(0, np.int64))
        return p

    def expr_ID(self, node: c_ast.ID, mask: Array) -> Result:
        var = self.lookup_var(node.name)
        if var is None:
            if node.name in BUILTIN_CONSTANTS:
                t = SCALARS[constant_type(node.name, "cl_khr_fp64" in self.program.extensions)]
                return Value(t, np.asarray(BUILTIN_CONSTANTS[node.name], t.dtype))
            raise UnsupportedKernel(f"line {_line(node)}: unknown identifier '{node.name}'")
        if var.array is not None:
            return var.array.row()
        if var.mem is not None:
            return self.load(var.mem, mask)
        if isinstance(var.value, Value) and var.value.undef is not None:  # lanes that never assigned it
            return masked(var.value, mask, self.st.line)
        if var.value is None:
            if var.ctype is None:
                return Pointer(None, var.ptr_elem, np.asarray(0, np.int64))
            var.value = Value(var.ctype, np.zeros((var.ctype.width,) if var.ctype.width > 1 else (), var.ctype.dtype))
        return var.value

    def expr_ArrayRef(self, node: c_ast.ArrayRef, mask: Array) -> Result:
        if id(node) in self.program.vector_subscripts:
            base = self.value(node.name, mask)
            return component(base, self.component_index(node, base.t, mask))
        return self.load(self.index(node, mask), mask)

    def component_index(self, node: c_ast.ArrayRef, t: CType, mask: Array) -> Array:
        """The index of ``v[i]`` per lane, for a vector of ``t``: with checks on, one outside its components is an
        out-of-bounds access of private memory (Clang leaves it undefined)."""
        k = np.asarray(self.used(self.value(node.subscript, mask), mask, "as a vector's index").a).astype(np.int64)
        if self.checks:
            bad = mask & ((k < 0) | (k >= t.width)) if k.ndim else (mask if not 0 <= int(k) < t.width else self.none)
            if any_lane(bad):
                lane = int(np.flatnonzero(bad)[0])
                at = int(np.broadcast_to(k, (self.n,))[lane])
                what = f"component {at} of a {t} (it has {t.width}: 0 to {t.width - 1})"
                raise self.st.fault("out_of_bounds_private", what, lane, offenders=bad)
        return k

    def expr_UnaryOp(self, node: c_ast.UnaryOp, mask: Array) -> Result:
        op = node.op  # (``++`` and ``--``: ``_update_plan``)
        if op == "&":
            return self.address(node.expr, mask)
        if op == "*":
            p = self.eval(node.expr, mask)
            if not isinstance(p, Pointer):
                raise UnsupportedKernel(f"line {_line(node)}: '*' of a non-pointer")
            return self.load(p, mask)
        if op in ("_Alignof", "alignof"):  # also __alignof__ (``frontend``): Clang's extension in OpenCL C
            if not isinstance(node.expr, c_ast.Typename):  # of an expression's type (the checker's)
                return Value(ULONG, np.asarray(self.program.sizes[id(node)], np.uint64))
            return Value(ULONG, np.asarray(size_align(self.program.type_of(node.expr), self.types)[1], np.uint64))
        if op == "vec_step":  # of a name (``frontend``): the checker's value
            return Value(ULONG, np.asarray(self.program.sizes[id(node)], np.uint64))
        if op == "sizeof":
            known = self.program.sizes.get(id(node))
            if known is not None:  # the operand's static type (the checker's): not evaluated
                return Value(ULONG, np.asarray(known, np.uint64))
            if isinstance(node.expr, c_ast.Typename):  # (the checker sizes every type that has a size)
                raise UnsupportedKernel(f"line {_line(node)}: sizeof({self.program.type_of(node.expr)})")
            return self._sizeof_expr(node.expr)
        v = self.eval(node.expr, mask)
        if isinstance(v, Pointer):  # a pointer is a scalar (C99 6.5.3.3): ``!p`` is 1 where it is NULL
            if op != "!":
                raise UnsupportedKernel(f"line {_line(node.expr)}: a pointer where a value is needed")
            return Value(INT, np.asarray(~self.truth(v, self.all)).astype(np.int32))
        if v.undef is not None:  # computed on the bits, undefined where the operand is
            r = self.unary(op, defined(v), mask, node)
            return bits_unary(op, v, r) or tainted(r, joined((v,)))
        return self.unary(op, v, mask, node)

    def unary(self, op: str, v: Value, mask: Array, node: c_ast.UnaryOp) -> Value:
        """``op v`` for the arithmetic unary operators."""
        if op == "!":
            if v.t.width > 1:
                rt = comparison_type(v.t)
                return Value(rt, np.where(np.asarray(v.a) == 0, -1, 0).astype(rt.dtype))
            return Value(INT, (np.asarray(v.a) == 0).astype(np.int32))
        ut = promoted(v.t) if v.t.kind != "bool" else INT
        a = self._conv(v, ut)
        self.count(self._kind(ut), mask, ut.width)
        with np.errstate(over="ignore"):
            if op == "-":
                return Value(ut, np.asarray(-a).astype(ut.dtype))
            if op == "+":
                return Value(ut, a)
            if op == "~":
                return Value(ut, np.asarray(~a))
        raise UnsupportedKernel(f"line {_line(node)}: unary operator {op}")

    def _sizeof_expr(self, expr: c_ast.Node) -> Value:
        if isinstance(expr, c_ast.Constant) and expr.type == "string":  # its chars and the terminating NUL
            return Value(ULONG, np.asarray(len(c_string(expr.value)) + 1, np.uint64))
        if isinstance(expr, c_ast.ID):
            var = self.lookup_var(expr.name)
            if var is not None and var.array is not None and var.array.elem is not None:
                size = elem_bytes(var.array.elem) * math.prod(var.array.dims)
                return Value(ULONG, np.asarray(size, np.uint64))
            if var is not None and var.is_pointer:
                return Value(ULONG, np.asarray(8, np.uint64))
        v = self.eval(expr, np.zeros(self.n, dtype=bool))
        size = 8 if isinstance(v, Pointer) else elem_bytes(v.t)
        return Value(ULONG, np.asarray(size, np.uint64))

    _kind = staticmethod(count_kind)
    binary_type = staticmethod(binary_type)

    def binop(
        self, op: str, a: Result, b: Result, mask: Array, node: c_ast.Node, t: CType | None = None, note: bool = True
    ) -> Result:
        """``a op b``; ``t``, when given, is ``binary_type`` of the operands' types (a plan caches it). An integer
        division or remainder by zero gives 0 in the lane: OpenCL C 1.2 6.3 makes it an unspecified value, not an
        error, so with checks on it is a lower-severity finding that does not stop the kernel (``note``; raised
        where ``note`` is False: a batched loop gives itself back)."""
        if (isinstance(a, Value) and a.undef is not None) or (isinstance(b, Value) and b.undef is not None):
            return self.undefined_binop(op, a, b, mask, node, t)
        if isinstance(a, Pointer) or isinstance(b, Pointer):
            return self.pointer_op(op, a, b, mask, node)
        if t is None:
            t = self.binary_type(op, a.t, b.t, node)
        x = self._conv(a, t)
        y = self._conv(b, t)
        self.count(self._kind(t), mask, t.width)
        compare = COMPARE.get(op)
        if compare is not None:
            r = compare(x, y)
            rt = comparison_type(t)
            if t.width > 1:
                return Value(rt, np.asarray(r).astype(rt.dtype) * rt.dtype.type(-1))
            return Value(INT, np.asarray(r).astype(np.int32))
        if op in ("/", "%") and t.kind != "float" and self.checks:
            zero = zero_divisors(mask, y, t)
            if bool(np.any(zero)):
                offenders = np.asarray(zero.reshape(self.n, -1).any(axis=1))
                lane = int(np.flatnonzero(offenders)[0])
                what = "division" if op == "/" else "remainder"
                finding = self.st.fault(
                    "division_by_zero",
                    f"integer {what} by zero (its value is unspecified, OpenCL C 1.2 6.3; the simulator gives 0)",
                    lane,
                    offenders=offenders,
                )
                if not note:
                    raise finding
                self.st.note(finding)
        if op == "%" and t.kind == "float":
            raise UnsupportedKernel(f"line {_line(node)}: % on floats")
        direct = DIRECT.get(op)
        if direct is not None and (t.kind != "float" or op in ("+", "-", "*")):  # ``x += y`` and the like
            x, y = np.asarray(x), np.asarray(y)
            return Value(t, np.asarray(direct(x, y, out=lanes_out(x, y, t.dtype))))
        return Value(t, np.asarray(arithmetic(op, np.asarray(x), np.asarray(y), t)))

    def undefined_binop(
        self, op: str, a: Result, b: Result, mask: Array, node: c_ast.Node, t: CType | None = None
    ) -> Result:
        """``a op b`` with an undefined operand: computed on the bits, the result undefined where an operand is
        (an integer divided by an undefined value too, as Oclgrind sees it: no division by zero there); a pointer
        moved by an undefined value uses it."""
        if isinstance(a, Pointer) or isinstance(b, Pointer):
            how = "to move a pointer" if op in ("+", "-") else "beside a pointer"
            a = self.used(a, mask, how) if isinstance(a, Value) else a
            b = self.used(b, mask, how) if isinstance(b, Value) else b
            return self.binop(op, a, b, mask, node)
        shadow = joined((a, b))
        x, y = defined(a), defined(b)
        if op in ("/", "%") and b.t.kind != "float" and b.undef is not None:  # (undefined lanes: no zero to find)
            y = Value(y.t, np.where(shaped(b.undef, b.t), np.ones((), y.t.dtype), y.raw))
        if op in BIT_EXACT and shadow is not None and isinstance(a, Value) and isinstance(b, Value):
            r = self.binop(op, x, y, mask, node, t)
            if isinstance(r, Value):  # the bits each result bit comes from (``bit_shadow.py``)
                shift = op in ("<<", ">>")
                xs, ys = self._conv(x, r.t), np.asarray(y.a) if shift else self._conv(y, r.t)
                exact = bits_binop(op, a, b, np.asarray(xs), np.asarray(ys), r, shadow[1])
                if exact is not None:
                    return exact
            if op in ("&", "|"):
                shadow = self.absorbed(op, a, b, shadow)
            return tainted(r, shadow)
        return tainted(self.binop(op, x, y, mask, node, t), shadow)

    def absorbed(self, op: str, a: Value, b: Value, shadow: Shadow) -> Shadow | None:
        """The shadow of ``a & b`` or ``a | b`` without the lanes (components) a defined operand decides alone:
        ``x & 0`` is 0 and ``x | ~0`` all ones, whatever ``x`` (Valgrind's memcheck keeps a shadow per bit, and these
        bits are all defined; Oclgrind sees none of it where LLVM folded a constant operand, JtR's
        ``W[0] & (0xffffff00U << 24)`` of a word nobody wrote, and keeps the shadow where it runs the operation)."""
        t = common_type(a.t, b.t)
        undef = shaped(shadow[0], t)
        for v in (a, b):
            bits = np.asarray(self._conv(defined(v), t))
            decides = bits == 0 if op == "&" else ~bits == 0
            if v.undef is not None:
                decides = decides & ~shaped(v.undef, t)
            undef = undef & ~decides
        return (undef, shadow[1]) if bool(undef.any()) else None

    def pointer_op(self, op: str, a: Result, b: Result, mask: Array, node: c_ast.Node) -> Result:
        if isinstance(a, Pointer) and isinstance(b, Value) and op in ("+", "-") and b.affine is not None:
            return a.moved_by(b.affine.scaled(a.elem_size if op == "+" else -a.elem_size))
        if isinstance(b, Pointer) and isinstance(a, Value) and op == "+" and a.affine is not None:
            return b.moved_by(a.affine.scaled(b.elem_size))
        if isinstance(a, Pointer) and isinstance(b, Value) and op in ("+", "-"):
            d = np.asarray(b.a).astype(np.int64) * a.elem_size
            return a.moved(d if op == "+" else -d)
        if isinstance(b, Pointer) and isinstance(a, Value) and op == "+":
            return b.moved(np.asarray(a.a).astype(np.int64) * b.elem_size)
        if isinstance(a, Pointer) and isinstance(b, Pointer):
            if one_object(a, b):
                x, y = a.off, b.off
            else:  # into different objects (or NULL in some lanes): their addresses, unequal across objects
                x, y = self.addresses.address(a), self.addresses.address(b)
            if op == "-":
                return Value(LONG, np.asarray((x - y) // a.elem_size, np.int64))
            if op in _COMPARISONS:
                return self.binop(op, Value(LONG, x), Value(LONG, y), mask, node)
        if isinstance(a, Pointer) and isinstance(b, Value) and op in ("==", "!="):
            if a.region is SEVERAL:
                null = np.asarray(a.off) == 0
            else:
                null = np.asarray(a.region is None) if a.null is None else a.null
            return Value(INT, np.asarray(null == (op == "=="), np.int32))
        raise UnsupportedKernel(f"line {_line(node)}: pointer operation {op}")

    def expr_BinaryOp(self, node: c_ast.BinaryOp, mask: Array) -> Result:
        op = node.op
        if op in ("&&", "||"):
            first = self.eval(node.left, mask)
            if isinstance(first, Value) and first.t.width > 1:
                return self.vector_logical(op, first, self.value(node.right, mask), mask)
            left = self.truth(first, mask)
            sub = mask & left if op == "&&" else mask & ~left
            second = self.eval(node.right, sub)
            if isinstance(second, Value) and second.t.width > 1:  # scalar && vector: the scalar widened
                return self.vector_logical(op, Value(INT, left.astype(np.int32)), second, mask)
            right = self.truth(second, sub)
            r = (left & right) if op == "&&" else (left | right)
            self.count("int_ops", mask)
            return Value(INT, np.asarray(r).astype(np.int32))
        a = self.eval(node.left, mask)
        b = self.eval(node.right, mask)
        return self.binop(op, a, b, mask, node)

    def vector_logical(self, op: str, a: Value, b: Value, mask: Array) -> Value:
        """``a && b``, ``a || b`` with a vector operand (OpenCL C 1.2 6.3 g): component by component, -1 or 0 in
        the signed integer type of the vector's element size; both operands evaluated (no short circuit)."""
        shadow = joined((a, b))
        if shadow is not None:  # (no short circuit: undefined where an operand is)
            return tainted(self.vector_logical(op, defined(a), defined(b), mask), shadow)
        v = a if a.t.width > 1 else b
        t = comparison_type(v.t)
        x = np.asarray(a.a) != 0
        y = np.asarray(b.a) != 0
        if a.t.width == 1 and x.ndim:  # a scalar operand per lane: one value for every component
            x = x[:, None]
        if b.t.width == 1 and y.ndim:
            y = y[:, None]
        r = (x & y) if op == "&&" else (x | y)
        self.count("int_ops", mask, t.width)
        return Value(t, np.broadcast_to(r, np.broadcast_shapes(np.shape(r), (t.width,))).astype(t.dtype) * -1)

    def expr_TernaryOp(self, node: c_ast.TernaryOp, mask: Array) -> Result:
        cond = self.eval(node.cond, mask)
        if isinstance(cond, Value) and cond.t.width > 1:
            return self.vector_selection(node, cond, mask)
        c = self.truth(cond, mask)
        t_mask = mask & c
        f_mask = mask & ~c
        a = cond if node.iftrue is node.cond else self.eval(node.iftrue, t_mask)  # (GNU's ``x ?: y``: x once)
        b = self.eval(node.iffalse, f_mask)
        if isinstance(a, Pointer) or isinstance(b, Pointer):
            if not any_lane(f_mask):
                return a
            if not any_lane(t_mask):
                return b
            if isinstance(a, Pointer) and isinstance(b, Pointer) and one_object(a, b):
                return Pointer(a.region, a.elem, np.where(c, a.off, b.off), a.dims)
            # by address: the objects may differ per lane, an integer (a null pointer constant) is its address
            x = self.addresses.address(a) if isinstance(a, Pointer) else self._conv(a, LONG)
            y = self.addresses.address(b) if isinstance(b, Pointer) else self._conv(b, LONG)
            typed = a if isinstance(a, Pointer) else b
            assert isinstance(typed, Pointer)
            return self.addresses.pointer(np.where(c, x, y), typed.elem, typed.dims, mask)
        t = common_type(a.t if a.t.kind != "bool" else INT, b.t if b.t.kind != "bool" else INT)
        if isinstance(a.t, StructType):
            return Value(a.t, merge_lanes(c, self.to_value(a, a.t).a, self.to_value(b, a.t).a, 2))
        if a.undef is not None or b.undef is not None:  # each lane's operand with its shadow
            return merged(c, self.to_value(a, t), self.to_value(b, t), t.width)
        if not any_lane(f_mask):  # every lane took one side: its value, with no merge
            return self.to_value(a, t)
        if not any_lane(t_mask):
            return self.to_value(b, t)
        return Value(t, merge_lanes(c, self._conv(a, t), self._conv(b, t), t.width))

    def vector_selection(self, node: c_ast.TernaryOp, cond: Value, mask: Array) -> Value:
        """``c ? a : b`` with a vector ``c`` (OpenCL C 1.2 6.3 i): ``select(b, a, c)``: both operands evaluated,
        each component taken from ``a`` where that component of ``c`` has its most significant bit set."""
        a = cond if node.iftrue is node.cond else self.value(node.iftrue, mask)  # (``v ?: w``: v once)
        b = self.value(node.iffalse, mask)
        shadow = joined((cond, a, b))
        if shadow is not None:  # (a select, not a branch: undefined where an operand is)
            cond, a, b = defined(cond), defined(a), defined(b)
        # (two scalars of one type keep it, unpromoted, as Clang's: ``v ? (uchar)9 : (uchar)8`` is a uchar2)
        t = a.t if a.t == b.t and a.t.width == 1 else self.binary_type("?:", a.t, b.t, node)
        t = t if t.width > 1 else t.vector(cond.t.width)
        bits = np.asarray(cond.a).view(np.dtype(f"i{cond.t.dtype.itemsize}"))
        self.count(self._kind(t), mask, t.width)
        return tainted(Value(t, np.where(bits < 0, self._conv(a, t), self._conv(b, t)).astype(t.dtype)), shadow)

    def expr_Assignment(self, node: c_ast.Assignment, mask: Array) -> Result:
        """``x = y`` (a compound assignment: ``_update_plan``)."""
        ref = self.lref(node.lvalue, mask, store=True)
        rhs = self.eval(node.rvalue, mask)
        ref.set(rhs, mask)
        return ref.get_after(rhs)

    def expr_GenericSelection(self, node: c_ast.GenericSelection, mask: Array) -> Result:
        """C11's ``_Generic``: the association the checker chose (its controlling expression is not evaluated)."""
        return self.eval(self.program.generic_choices[id(node)], mask)

    def expr_ExprList(self, node: c_ast.ExprList, mask: Array) -> Result:
        result: Result | None = None
        for e in node.exprs:
            result = self.eval(e, mask)
        assert result is not None
        return result

    def expr_Cast(self, node: c_ast.Cast, mask: Array) -> Result:
        t = self.program.type_of(node.to_type)
        if t.kind == "void":
            self.eval(node.expr, mask)
            return Value(INT, np.asarray(0, np.int32))
        if t.kind == "pointer":
            p = self.eval(node.expr, mask)
            elem, dims = self._pt(t)
            if isinstance(p, Pointer):
                return Pointer(p.region, elem, p.off, dims, p.null)
            return self.addresses.pointer(self._conv(p, LONG), elem, dims, mask)  # an integer: an address
        ct = self._ct(t, f" (line {_line(node)})")
        if ct.width > 1 and isinstance(node.expr, c_ast.ExprList):
            parts = [self.eval(e, mask) for e in node.expr.exprs]
            return self.vector_literal(ct, parts)
        v = self.eval(node.expr, mask)
        if isinstance(v, Pointer):  # its address (``AddressMap``: the object's tag above its offset), as an integer
            address = np.asarray(self.addresses.address(v))
            if ct.kind == "bool":  # (C99 6.3.1.2: 0 for a null pointer, else 1)
                return Value(ct, np.asarray(address != 0).astype(ct.dtype))
            return Value(ct, address.astype(ct.dtype))
        return self.to_value(v, ct)  # (a scalar's shadow spread to each component; coefficients kept if they fit)

    expr_Passed = expr_Cast  # an argument converted to a GNU built-in's parameter (``gnu_builtins.Passed``)

    def vector_literal(self, ct: CType, parts: Sequence[Result]) -> Value:
        shadow = joined(parts)
        if shadow is not None:  # each component keeps its part's shadow
            r = self.vector_literal(ct, [p if isinstance(p, Pointer) else defined(p) for p in parts])
            shadows: list[Array] = []
            for p in parts:
                assert isinstance(p, Value)  # (a pointer is refused above)
                w = p.t.width
                u = np.zeros((self.n, w), bool) if p.undef is None else shaped(p.undef, p.t).reshape(self.n, w)
                shadows.append(u)
            undef = np.concatenate(shadows, axis=1)
            if undef.shape[1] != ct.width:  # one scalar for every component
                undef = np.broadcast_to(undef[:, :1], (self.n, ct.width))
            return Value(ct, r.raw, undef=undef, origin=shadow[1].computed())
        scalar = ct.scalar
        cols: list[Array] = []
        for p in parts:
            if isinstance(p, Pointer):
                raise UnsupportedKernel(f"line {self.st.line}: a pointer in a vector literal")
            a = self._conv(p, scalar.vector(p.t.width))
            if p.t.width > 1:
                cols.extend(np.asarray(a)[..., k] for k in range(p.t.width))
            else:
                cols.append(np.asarray(a))
        if len(cols) == 1:
            return Value(ct, self._conv(Value(scalar, cols[0]), ct))
        if len(cols) != ct.width:
            raise UnsupportedKernel(f"line {self.st.line}: {len(cols)} components for a {ct}")
        return Value(ct, stacked(cols, ct.dtype))

    def braced_vector(self, ct: CType, parts: Sequence[Result]) -> Value:
        """``{a, b, ...}`` for a scalar or vector: exactly its components (Clang's rule in OpenCL C: no splat, no
        zero fill), which the checker sees to where it knows the type; inside a struct it is checked here."""
        have = sum(p.t.width if isinstance(p, Value) else 1 for p in parts)
        if have != ct.width:
            few = "too few elements" if have < ct.width else "excess elements"
            raise UnsupportedKernel(
                f"line {self.st.line}: {few} in the initialization of a {ct} (expected {ct.width}, have {have})"
            )
        return self.vector_literal(ct, parts)

    def expr_CompoundLiteral(self, node: c_ast.CompoundLiteral, mask: Array) -> Result:
        """``(T){...}``: a new unnamed private object (C99 6.5.2.5); its value, or for an array its first element."""
        t = self.program.type_of(node.type)
        if t.kind in ("scalar", "vector"):
            return self.braced_vector(self._ct(t), [self.eval(e, mask) for e in node.init.exprs])
        p = self.literal_object(node, mask)
        return p.row() if p.dims else self.load(p, mask)

    def literal_object(self, node: c_ast.CompoundLiteral, mask: Array) -> Pointer:
        """The object a compound literal makes, initialized (what ``&(T){...}`` points to)."""
        t = self._declared(self.program.type_of(node.type), node.init)
        elem, dims = self._pt(TypeInfo("pointer", target=t)) if t.kind == "array" else (self._ct(t), ())
        assert elem is not None
        obj = self.new_aggregate("__private compound literal", t, elem, dims)
        if t.kind in ("scalar", "vector"):
            self.store(obj, self.braced_vector(elem, [self.eval(e, mask) for e in node.init.exprs]), mask)
        else:
            self.init_object(obj, t, node.init, mask)
        return obj

    def expr_StructRef(self, node: c_ast.StructRef, mask: Array) -> Result:
        m = self.member_ptr(node, mask)
        if m is not None:
            return self.load(m, mask)
        if node.type == "->":  # components of the vector a pointer points to: ``(*p).y``
            return self.lref(_dereferenced(node), mask).get(mask)
        if node.type == "." and (
            isinstance(node.name, c_ast.ArrayRef) or (isinstance(node.name, c_ast.UnaryOp) and node.name.op == "*")
        ):  # components of a vector in memory: only their bytes are read
            return self.lref(node, mask).get(mask)
        base = self.eval(node.name, mask)
        if isinstance(base, Pointer) or node.type != "." or base.t.width == 1:
            raise UnsupportedKernel(f"line {_line(node)}: structs and unions are not supported")
        idx = swizzle_indices(node.field.name, base.t.width)
        return past_three(swizzled(base, idx), idx, base.t.width, self.st, self.n)

    # ------------------------------------------------------------------ lvalues
    def lref(self, node: c_ast.Node, mask: Array, store: bool = False) -> Ref:
        """What ``node`` designates as an assignment target (``store``: a plain ``=``, which does not read it)."""
        if isinstance(node, c_ast.ID):
            var = self.lookup_var(node.name)
            if var is None:
                raise UnsupportedKernel(f"line {_line(node)}: assignment to unknown '{node.name}'")
            if var.mem is not None:
                return MemRef(self, var.mem)
            return VarRef(self, var)
        if isinstance(node, c_ast.ArrayRef) and id(node) in self.program.vector_subscripts:
            base = self.lref(node.name, mask)
            if isinstance(base, MemRef) and base.p.elem is not None and not base.p.dims:  # only that component
                t = base.p.elem
                k = self.component_index(node, t, mask)
                return MemRef(self, base.p.moved(k * t.scalar.dtype.itemsize).retyped(t.scalar))
            cur = base.peek() if isinstance(base, VarRef) else base.get(mask)
            if not isinstance(cur, Value) or cur.t.width == 1:
                raise UnsupportedKernel(f"line {_line(node)}: a component of a non-vector")
            return ComponentRef(self, base, self.component_index(node, cur.t, mask), cur.t)
        if isinstance(node, c_ast.ArrayRef):
            return MemRef(self, self.index_member(node, mask, "write" if store else "read")[0])
        if isinstance(node, c_ast.UnaryOp) and node.op == "*":
            p = self.eval(node.expr, mask)
            if isinstance(p, Pointer):
                return MemRef(self, p)
        if isinstance(node, c_ast.StructRef):
            m = self.member_ptr(node, mask)
            if m is not None:
                return MemRef(self, m)
            if node.type == "->":  # ``p->xy = ...`` on a pointer to a vector: ``(*p).xy``
                node = _dereferenced(node)
        if isinstance(node, c_ast.StructRef) and node.type == ".":
            base = self.lref(node.name, mask)
            # a vector in memory is not read to learn its type: a store to its components reads nothing
            vt: CType | None = None
            if isinstance(base, MemRef) and not base.p.dims:
                vt = base.p.elem
            else:
                cur = base.peek() if isinstance(base, VarRef) else base.get(mask)
                vt = cur.t if isinstance(cur, Value) else None
            if vt is not None and vt.width > 1:
                return SwizzleRef(self, base, swizzle_indices(node.field.name, vt.width), vt)
        raise UnsupportedKernel(f"line {_line(node)}: this assignment target is not supported")


_LINE = re.compile(r"\bline (\d+)\b")
"""How ``UnsupportedKernel``'s messages name the line of the program the executor was at."""


def run_kernel(
    program: Program,
    name: str,
    args: Sequence[Any],
    geometry: Geometry,
    step_limit: int = 10_000_000,
    checks: bool = True,
    strict: bool = False,
    restore: Callable[[], None] | None = None,
) -> RunResult:
    """Run kernel ``name`` of ``program`` over ``geometry``; buffers (uint8 arrays) are read and written in place.

    The work-items run in lockstep. A loop that waits for work-items of other work-groups that lockstep runs only
    after it (a spin on a flag another group sets: ``progress.py``) cannot end so; where the caller can put the
    buffers back as they were (``restore``), the launch runs again with its work-groups one at a time, in order,
    as Oclgrind runs them, and its ``forward_progress`` finding, lower-severity, says that it relied on that.

    Raises ``KernelFault`` when a check fails, ``KernelTimeout`` past ``step_limit`` lockstep steps and
    ``UnsupportedKernel`` for what the executor does not implement. After any of them the buffers hold the writes
    of the accesses before the one that raised (in lockstep order) and none of that access; a caller that must
    not see them passes copies and keeps them only on success, as the HAL's sim backend does.

    Lower-severity findings (a uniform write: work-items storing the same value to one address with no barrier
    in between; an integer division by zero, whose value is unspecified) do not stop the kernel: they are in
    ``RunResult.findings`` (or, where a finding stops it, in that ``KernelFault.earlier``); ``strict`` raises
    them as faults. A kernel the program builds but the simulator cannot run (it uses images) is
    ``UnsupportedKernel`` (``Program.runnable``)."""
    try:
        return _launch(program, name, args, geometry, step_limit, checks, strict, False)
    except KernelTimeout as e:
        if not e.waits_for or restore is None or strict:
            raise
        # (notes, not the fault itself: its traceback holds the first launch's frames and arrays)
        note, failed = relied_on(e), relied_on(e, ended=False)
    restore()
    try:
        result = _launch(program, name, args, geometry, step_limit, checks, strict, True)
    except KernelFault as e:
        e.earlier.insert(0, failed)
        raise
    result.findings.insert(0, note)
    return result


def _launch(
    program: Program,
    name: str,
    args: Sequence[Any],
    geometry: Geometry,
    step_limit: int,
    checks: bool,
    strict: bool,
    in_order: bool,
) -> RunResult:
    """``run_kernel``'s launch, in lockstep or with its work-groups ``in_order``."""
    kernel = program.runnable(name)
    # C's arithmetic: integers wrap, floats overflow and divide quietly
    with np.errstate(all="ignore"), deep_recursion():
        ex = _Executor(program, kernel, geometry, step_limit, checks, in_order)
        try:
            ex.st.strict = strict
            ex.bind_args(args)
            ex.run()
            if ex.async_copies.pending:  # copies never waited for: a finding where the kernel ends
                start = _line(kernel.node)
                ex.async_copies.finish(kernel_end_line(program.source_lines, start, start))
            measured = {
                **ex.counts,
                "work_groups": ex.groups,
                "work_items": ex.n,
                "max_lane_steps": ex.max_lane_steps(),
            }
            output = ex.printf.text()
        except KernelFault as e:
            e.earlier = [f for f in ex.st.findings if f is not e]
            raise
        except UnsupportedKernel as e:  # its message names a line of the program: the user's file and line
            if program.origins is None:
                raise
            raise UnsupportedKernel(
                _LINE.sub(lambda m: "line {1} of {0}".format(*program.where(int(m[1]))), str(e))
            ) from e
        finally:
            # the async-copy and printf helpers point back at the executor: without them the launch's arrays are
            # freed now, not at the next garbage collection (scratch.empty hands them out again)
            del ex.async_copies, ex.printf
    counts = {key: measured.get(key, 0) for key in COUNTS}  # private memory traffic is not reported
    return RunResult(counts, ex.steps, name, output=output, findings=ex.st.findings)
