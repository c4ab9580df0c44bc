"""Expressions over private values, compiled once into closures on lane arrays.

The interpreter's plans (``executor._Executor.plan``) evaluate a node through a ``Value`` per operator and ask, at
every operator, what its operands hold: coefficients (``affine.py``), a comparison's mask, a view of memory, lanes
nobody defined (``undef.py``), a pointer. Most of a kernel's arithmetic is on private variables and constants that
hold none of those, of types the program fixes. ``compiled_plan`` works out once per node the types, conversions and
operator counts of such a tree (variables and their vector components, constants, arithmetic, comparison, bitwise,
shift and scalar logical operators, casts between arithmetic types, ``?:`` on a scalar condition, calls of built-ins
of values only, and at its root an assignment, compound assignment or increment of a variable, or an assignment to
components of a vector variable) and evaluates it as nested closures on the arrays themselves, adding its counts
once.

Where a variable holds anything else at run time, or a lane divides an integer by zero with checks on, the tree
gives itself back (``Fallback``) before any of its evaluation shows (its one store is its last act, its counts are
added after): the interpreter computes the same bits, counts and findings the long way. A node that only ever gives
itself back is left to the interpreter for good. Both take each operator's conversions and ufunc from
``operators.binary_spec``; ``tests/test_kernel_compiled.py`` compares the two on random programs.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray
from pycparser import c_ast

from wia_sim.kernels.contraction import Contraction, contracts, fused
from wia_sim.kernels.ctype import INT, CType, arithmetic, common_type, comparison_type, convert, promoted
from wia_sim.kernels.exec_calls import value_call
from wia_sim.kernels.lanes import all_lanes, any_lane
from wia_sim.kernels.lvalues import kept, merge_lanes, writable
from wia_sim.kernels.operators import binary_spec, count_kind, lanes_out, zero_divisors
from wia_sim.kernels.signatures import BUILTIN_CONSTANTS
from wia_sim.kernels.spaces import UnsupportedKernel, Value
from wia_sim.kernels.types import swizzle_indices

if TYPE_CHECKING:
    from wia_sim.kernels.executor import Plan, _Executor

__all__ = [
    "Code",
    "Counts",
    "Fallback",
    "Reads",
    "Root",
    "Tally",
    "as_value",
    "compiled_expression",
    "compiled_plan",
    "compiled_root",
    "converted",
    "incremented",
    "summed",
    "updated",
]

Array = NDArray[Any]
Counts = tuple[tuple[str, int], ...]
"""Operator counts, (kind, width) per operator, summed by kind."""
Tally = list[tuple[Counts, Array]]
"""Counts under masks of their own (the sides of ``?:``), added when the tree is done."""
Run = Callable[["_Executor", Array, Tally], Array]
Reads = Callable[["_Executor", c_ast.ArrayRef | c_ast.StructRef], "Code | None"]
"""How a caller compiles a read of memory, ``a[i]`` or a component of a vector there, ``a[i].w`` (``private_loops``:
a loop that stores to no memory); None where it does not compile it."""
_READS: ContextVar[Reads | None] = ContextVar("_READS", default=None)
"""The ``reads`` of the ``compiled_expression`` or ``compiled_root`` compiling now: without one, a tree reads no
memory (a plan runs anywhere, between stores: the interpreter's)."""


class Fallback(Exception):
    """The tree cannot evaluate this time: the interpreter does, from the start. (Raised new each time: one
    instance raised again would keep its last traceback, and with it the launch's frames and lane arrays, which
    ``scratch`` could then not hand out again.)"""


_GIVE_UP = 8
"""A node that gave itself back this many times and never evaluated is left to the interpreter."""

_COMPILED = (
    c_ast.Assignment,
    c_ast.BinaryOp,
    c_ast.TernaryOp,
    c_ast.Cast,
    c_ast.UnaryOp,
    c_ast.FuncCall,
    c_ast.StructRef,
)
"""The nodes worth compiling: a variable or a constant alone costs the interpreter no more (a vector's components
do: ``swizzled``)."""

_UPDATES = {"++": "+", "p++": "+", "--": "-", "p--": "-"}
_ONE = np.asarray(1, np.int32)


@dataclass(frozen=True)
class Code:
    """A compiled tree: ``run`` gives its value per lane (shape () where it is the same in every lane) of type
    ``t``, or (``boolean``) a scalar comparison's lanes; ``ops`` are counted under the mask it runs with."""

    t: CType
    run: Run
    ops: Counts
    boolean: bool = False


def summed(*parts: Counts) -> Counts:
    """The counts of ``parts`` together, one entry per kind (as ``Counts`` holds them)."""
    total: dict[str, int] = {}
    for part in parts:
        for kind, width in part:
            total[kind] = total.get(kind, 0) + width
    return tuple(total.items())


def _valued(code: Code) -> Run:
    """``code``'s value as its type holds it (a comparison's lanes as the int 1 or 0, as ``Value.raw`` makes them)."""
    if not code.boolean:
        return code.run
    run = code.run

    def as_int(ex: _Executor, mask: Array, tally: Tally) -> Array:
        return np.asarray(run(ex, mask, tally)).astype(np.int32)

    return as_int


def converted(code: Code, t: CType) -> Run:
    """``code``'s value converted to ``t`` (``_Executor._conv``)."""
    run = _valued(code)
    if code.t == t:
        return run
    source = code.t

    def conv(ex: _Executor, mask: Array, tally: Tally) -> Array:
        return np.asarray(convert(np.asarray(run(ex, mask, tally)), source, t))

    return conv


def as_value(code: Code, a: Array) -> Value:
    """What the interpreter's plan gives for ``code``'s result ``a``."""
    if code.boolean:
        return Value(INT, None, cond=a) if a.ndim else Value(INT, a.astype(np.int32))
    return Value(code.t, a)


def _plain(t: CType | None) -> bool:
    return type(t) is CType  # (not a struct's, nor a pointer kept as its address)


def _variable(ex: _Executor, node: c_ast.ID) -> Code | None:
    name = node.name
    var = ex.lookup_var(name)
    if var is None:
        if name not in BUILTIN_CONSTANTS:
            return None
        constant = ex.eval(node, ex.all)
        assert isinstance(constant, Value)
        a = constant.a

        def builtin(ex: _Executor, mask: Array, tally: Tally) -> Array:
            if ex.lookup_var(name) is not None:
                raise Fallback
            return a

        return Code(constant.t, builtin, ())
    t = var.ctype
    if not _plain(t) or var.mem is not None or var.array is not None:
        return None
    assert t is not None

    def variable(ex: _Executor, mask: Array, tally: Tally) -> Array:
        var = ex.lookup_var(name)
        v = None if var is None else var.value
        if type(v) is not Value or v.undef is not None or v.affine is not None or v._a is None:
            raise Fallback
        if v.t is not t and v.t != t:
            raise Fallback
        return v._a

    return Code(t, variable, ())


def _swizzle(ex: _Executor, node: c_ast.StructRef) -> tuple[Code, tuple[int, ...], CType] | None:
    """The vector variable ``v`` of ``v.xy`` (``v.s3``, ``v.lo``, ...) as a tree that reads it, the components named
    and their type, where ``v`` is a private value's vector and every component named is one of its own (not the
    undefined w of a 3-component vector's ``.hi``: the interpreter's)."""
    if node.type != "." or not isinstance(node.name, c_ast.ID) or id(node) in ex.member_refs:
        return None
    base = _variable(ex, node.name)
    if base is None or base.t.width == 1 or ex.lookup_var(node.name.name) is None:
        return None
    try:
        idx = swizzle_indices(node.field.name, base.t.width)
    except ValueError:  # (the checker said so)
        return None
    if max(idx) >= base.t.width:
        return None
    return base, idx, base.t.scalar if len(idx) == 1 else base.t.scalar.vector(len(idx))


def _component(ex: _Executor, node: c_ast.StructRef) -> Code | None:
    """``v.xy`` of a private vector variable (``executor.expr_StructRef``'s ``swizzled``): its components, copied."""
    found = _swizzle(ex, node)
    if found is None:
        return None
    base, idx, t = found
    read = base.run
    picked: Any = idx[0] if len(idx) == 1 else np.asarray(idx, np.intp)

    def component(ex: _Executor, mask: Array, tally: Tally) -> Array:
        return np.asarray(np.asarray(read(ex, mask, tally)).take(picked, axis=-1))

    return Code(t, component, ())


def _binary(ex: _Executor, node: c_ast.BinaryOp) -> Code | None:
    if node.op in ("&&", "||"):
        return _logical(ex, node)
    left, right = _expression(ex, node.left), _expression(ex, node.right)
    if left is None or right is None:
        return None
    contraction = ex.program.contractions.get(id(node)) if ex.program.contractions else None
    if contraction is not None:
        addend = right if contraction.first else left
        product = left if contraction.first else right
        fused = _fused(ex, contraction, product, addend, binary_spec(node.op, _typed(left), _typed(right), node).t)
        if fused is not None:
            return fused
    return _operator(node.op, left, right, node)


def _logical(ex: _Executor, node: c_ast.BinaryOp) -> Code | None:
    """``a && b``, ``a || b`` of scalars (``executor.expr_BinaryOp``): ``b`` for the lanes ``a`` leaves undecided
    alone (its counts, and a division by zero in it, only theirs); one int operation per lane. A vector operand is
    the interpreter's (component by component, no short circuit)."""
    left, right = _expression(ex, node.left), _expression(ex, node.right)
    if left is None or right is None or any(not c.boolean and c.t.width > 1 for c in (left, right)):
        return None
    first, second, right_ops, both = left.run, right.run, right.ops, node.op == "&&"

    def logical(ex: _Executor, mask: Array, tally: Tally) -> Array:
        x = ex.truth(as_value(left, np.asarray(first(ex, mask, tally))), mask)
        sub = mask & x if both else mask & ~x
        y = ex.truth(as_value(right, np.asarray(second(ex, sub, tally))), sub)
        tally.append((right_ops, sub))
        return np.asarray((x & y) if both else (x | y))

    return Code(INT, logical, summed(left.ops, (("int_ops", 1),)), boolean=True)


def _typed(code: Code) -> CType:
    """The type ``code``'s value takes part in an operator as (a comparison's lanes: an int)."""
    return INT if code.boolean else code.t


def _fused(ex: _Executor, c: Contraction, product: Code, addend: Code, total: CType) -> Code | None:
    """The product ``c.product`` (``product``, its value through the casts) and ``addend`` rounded once
    (``contraction.py``), evaluated in C's order, where their types fuse into the addition's ``total``."""
    if not contracts(product.t, total, ex.cast_types(c)):
        return None
    x, y = _expression(ex, c.product.left), _expression(ex, c.product.right)
    if x is None or y is None:
        return None
    t = binary_spec("*", _typed(x), _typed(y), c.product).t
    if t != product.t:
        return None
    a, b, z = converted(x, t), converted(y, t), converted(addend, t)
    first = c.first

    def fma(ex: _Executor, mask: Array, tally: Tally) -> Array:
        w = None if first else z(ex, mask, tally)
        p, q = a(ex, mask, tally), b(ex, mask, tally)
        return fused(p, q, z(ex, mask, tally) if w is None else w, t, c)

    return Code(t, fma, summed(x.ops, y.ops, addend.ops, ((count_kind(t), 2 * t.width),)))


def _operator(op: str, left: Code, right: Code, node: c_ast.Node) -> Code | None:
    """``left op right``: the interpreter's ``_Combine`` for operands that are plain arrays."""
    spec = binary_spec(op, INT if left.boolean else left.t, INT if right.boolean else right.t, node)
    t = spec.t
    if t.kind == "float" and op not in ("+", "-", "*", "/") and spec.result is None:
        return None  # (the checker refuses these)
    x, y = converted(left, t), converted(right, t)
    ops = summed(left.ops, right.ops, ((spec.kind, t.width),))
    ufunc = spec.ufunc
    if spec.result is not None:  # a comparison
        if t.width > 1:
            rt = spec.result
            minus = rt.dtype.type(-1)

            def vector_compare(ex: _Executor, mask: Array, tally: Tally) -> Array:
                a, b = x(ex, mask, tally), y(ex, mask, tally)
                return np.asarray(np.asarray(ufunc(a, b, out=lanes_out(a, b, bool))).astype(rt.dtype) * minus)

            return Code(rt, vector_compare, ops)

        def compare(ex: _Executor, mask: Array, tally: Tally) -> Array:
            a, b = x(ex, mask, tally), y(ex, mask, tally)
            return np.asarray(ufunc(a, b, out=lanes_out(a, b, bool)))

        return Code(INT, compare, ops, boolean=True)
    if ufunc is not None:
        dtype = t.dtype

        def direct(ex: _Executor, mask: Array, tally: Tally) -> Array:
            a, b = x(ex, mask, tally), y(ex, mask, tally)
            return np.asarray(ufunc(a, b, out=lanes_out(a, b, dtype)))

        return Code(t, direct, ops)
    if t.kind == "float":  # '/'

        def divide(ex: _Executor, mask: Array, tally: Tally) -> Array:
            return np.asarray(arithmetic(op, np.asarray(x(ex, mask, tally)), np.asarray(y(ex, mask, tally)), t))

        return Code(t, divide, ops)

    def integer_divide(ex: _Executor, mask: Array, tally: Tally) -> Array:
        a, b = np.asarray(x(ex, mask, tally)), np.asarray(y(ex, mask, tally))
        if ex.checks and bool(np.any(zero_divisors(mask, b, t))):  # a finding: the interpreter's (``binop``)
            raise Fallback
        return np.asarray(arithmetic(op, a, b, t))

    return Code(t, integer_divide, ops)


def _unary(ex: _Executor, node: c_ast.UnaryOp) -> Code | None:
    op = node.op
    if op not in ("-", "+", "~", "!"):
        return None
    operand = _expression(ex, node.expr)
    if operand is None:
        return None
    vt = INT if operand.boolean else operand.t
    run = _valued(operand)
    if op == "!":
        if vt.width > 1:
            rt = comparison_type(vt)

            def vector_not(ex: _Executor, mask: Array, tally: Tally) -> Array:
                return np.where(np.asarray(run(ex, mask, tally)) == 0, -1, 0).astype(rt.dtype)

            return Code(rt, vector_not, operand.ops)

        def negation(ex: _Executor, mask: Array, tally: Tally) -> Array:
            return np.asarray(np.asarray(run(ex, mask, tally)) == 0).astype(np.int32)

        return Code(INT, negation, operand.ops)
    ut = promoted(vt) if vt.kind != "bool" else INT
    if op == "~" and ut.kind == "float":
        return None
    conv = converted(Code(vt, run, ()), ut)
    ops = summed(operand.ops, ((count_kind(ut), ut.width),))
    if op == "+":
        return Code(ut, conv, ops)
    dtype = ut.dtype
    if op == "-":

        def minus(ex: _Executor, mask: Array, tally: Tally) -> Array:
            return np.asarray(-conv(ex, mask, tally)).astype(dtype)

        return Code(ut, minus, ops)

    def complement(ex: _Executor, mask: Array, tally: Tally) -> Array:
        return np.asarray(~conv(ex, mask, tally))

    return Code(ut, complement, ops)


def _cast(ex: _Executor, node: c_ast.Cast) -> Code | None:
    t = ex.program.type_of(node.to_type)
    if t.kind in ("void", "pointer") or isinstance(node.expr, c_ast.ExprList):
        return None
    try:
        ct = ex._ct(t)
    except UnsupportedKernel:
        return None
    operand = _expression(ex, node.expr)
    if operand is None or not _plain(ct):
        return None
    return Code(ct, converted(operand, ct), operand.ops)


def _select(ex: _Executor, node: c_ast.TernaryOp) -> Code | None:
    if node.iftrue is node.cond:  # (GNU's ``x ?: y``)
        return None
    cond, yes, no = (_expression(ex, e) for e in (node.cond, node.iftrue, node.iffalse))
    if cond is None or yes is None or no is None or (not cond.boolean and cond.t.width > 1):
        return None
    ta, tb = (INT if c.boolean or c.t.kind == "bool" else c.t for c in (yes, no))
    try:
        t = common_type(ta, tb)
    except TypeError:
        return None
    test, boolean, ct = cond.run, cond.boolean, INT if cond.boolean else cond.t
    a, b = converted(yes, t), converted(no, t)
    a_ops, b_ops, width = yes.ops, no.ops, t.width

    def select(ex: _Executor, mask: Array, tally: Tally) -> Array:
        r = test(ex, mask, tally)
        c = ex.truth(Value(INT, None, cond=r) if boolean and r.ndim else Value(ct, np.asarray(r)), mask)
        t_mask, f_mask = mask & c, mask & ~c
        x = a(ex, t_mask, tally)
        tally.append((a_ops, t_mask))
        y = b(ex, f_mask, tally)
        tally.append((b_ops, f_mask))
        if not any_lane(f_mask):  # every lane took one side: its value, with no merge
            return x
        if not any_lane(t_mask):
            return y
        return merge_lanes(c, x, y, width)

    return Code(t, select, cond.ops)


def _call(ex: _Executor, node: c_ast.FuncCall) -> Code | None:
    """A built-in of values only (``exec_calls.value_call``) on compiled arguments. Its result's type and what it
    counts depend on its arguments' types alone: found once, by calling it on zeros of those types."""
    builtin = value_call(node, ex.program)
    if builtin is None:
        return None
    args = [_expression(ex, e) for e in (node.args.exprs if node.args is not None else ())]
    if not args or any(c is None for c in args):
        return None
    codes = [c for c in args if c is not None]
    types = [INT if c.boolean else c.t for c in codes]
    zeros = [Value(t, np.zeros((t.width,) if t.width > 1 else (), t.dtype)) for t in types]
    try:
        tried = builtin.apply(zeros)
        counted = builtin.counted(zeros, tried)
    except (UnsupportedKernel, ArithmeticError, TypeError, ValueError):  # (the interpreter says so when it runs)
        return None
    if not _plain(tried.t) or tried.undef is not None:
        return None
    runs = [(t, _valued(c)) for t, c in zip(types, codes, strict=True)]
    apply = builtin.apply

    def call(ex: _Executor, mask: Array, tally: Tally) -> Array:
        return apply([Value(t, run(ex, mask, tally)) for t, run in runs]).raw

    return Code(tried.t, call, summed(*(c.ops for c in codes), () if counted is None else (counted,)))


def _expression(ex: _Executor, node: c_ast.Node) -> Code | None:
    """``node`` compiled, or None where it or a part of it is not a private value's arithmetic."""
    kind = type(node)
    if kind is c_ast.ID:
        return _variable(ex, node)
    if kind is c_ast.Constant:
        if node.type == "string":
            return None
        v = ex.expr_Constant(node, ex.all)
        assert isinstance(v, Value)
        a = v.a
        return Code(v.t, lambda ex, mask, tally: a, ())
    if kind is c_ast.BinaryOp:
        return _binary(ex, node)
    if kind is c_ast.UnaryOp:
        return _unary(ex, node)
    if kind is c_ast.Cast:
        return _cast(ex, node)
    if kind is c_ast.TernaryOp:
        return _select(ex, node)
    if kind is c_ast.FuncCall:
        return _call(ex, node)
    if kind is c_ast.StructRef:
        code = _component(ex, node)
        if code is not None:
            return code
    if kind is c_ast.ArrayRef or kind is c_ast.StructRef:
        reads = _READS.get()
        return None if reads is None else reads(ex, node)
    return None


def _target(ex: _Executor, node: c_ast.Node) -> tuple[Code, str] | None:
    """The variable an assignment stores to, as a tree that reads it (its type the variable's), and its name,
    where it is a private value's."""
    read = _variable(ex, node) if isinstance(node, c_ast.ID) else None
    if read is None or ex.lookup_var(node.name) is None:  # (a built-in constant is no variable)
        return None
    return read, node.name


def _store(ex: _Executor, name: str, t: CType, a: Array, mask: Array) -> Value:
    """``a`` (of ``t``) stored to the variable ``name`` in the lanes of ``mask``, as ``lvalues.VarRef.set`` stores
    a value; the value the assignment gives."""
    var = ex.lookup_var(name)
    if var is None or var.mem is not None or (var.ctype is not t and var.ctype != t):
        raise Fallback
    new = Value(t, a)  # (of the variable's type: ``to_value`` would change nothing)
    kept(var, new, mask, mask is ex.all or all_lanes(mask))
    return new


Root = Callable[["_Executor", Array, Tally], Value]


def _component_assignment(ex: _Executor, node: c_ast.Assignment) -> tuple[Root, Counts] | None:
    """``v.xy = e`` or ``v.xy op= e`` of a private vector variable ``v`` (``lvalues.SwizzleRef.set``): the
    variable's value with those components replaced, in the lanes of the mask."""
    found = _swizzle(ex, node.lvalue)
    rvalue = _expression(ex, node.rvalue)
    if found is None or rvalue is None:
        return None
    base, idx, t = found
    name, vt = node.lvalue.name.name, base.t
    if node.op != "=":
        read = _component(ex, node.lvalue)
        assert read is not None
        combined = updated(ex, node, read, rvalue)
        if combined is None:
            return None
        rvalue = combined
    value = converted(rvalue, t)
    whole = base.run
    targets: Any = idx[0] if len(idx) == 1 else np.asarray(idx, np.intp)

    def assign(ex: _Executor, mask: Array, tally: Tally) -> Value:
        part = np.asarray(value(ex, mask, tally))
        lanes = part.shape[:-1] if len(idx) > 1 else part.shape
        new = writable(np.asarray(whole(ex, mask, tally)), lanes, vt.width)
        new[..., targets] = part
        _store(ex, name, vt, new, mask)
        return Value(t, part)

    return assign, rvalue.ops


def updated(ex: _Executor, node: c_ast.Assignment, read: Code, rvalue: Code) -> Code | None:
    """The new value of ``x op= e``: ``x op e``, fused where ``e`` is a product that contracts with it."""
    contraction = ex.program.contractions.get(id(node)) if ex.program.contractions else None
    op = node.op[:-1]
    if contraction is not None:
        fused = _fused(ex, contraction, rvalue, read, binary_spec(op, _typed(read), _typed(rvalue), node).t)
        if fused is not None:
            return fused
    return _operator(op, read, rvalue, node)


def _assignment(ex: _Executor, node: c_ast.Assignment) -> tuple[Root, Counts] | None:
    """``x = e`` or ``x op= e`` (``executor._update_plan``) of a variable ``x``."""
    if isinstance(node.lvalue, c_ast.StructRef):
        return _component_assignment(ex, node)
    target = _target(ex, node.lvalue)
    rvalue = _expression(ex, node.rvalue)
    if target is None or rvalue is None:
        return None
    read, name = target
    t = read.t
    if node.op != "=":
        combined = updated(ex, node, read, rvalue)
        if combined is None:
            return None
        rvalue = combined
    value = converted(rvalue, t)

    def assign(ex: _Executor, mask: Array, tally: Tally) -> Value:
        return _store(ex, name, t, value(ex, mask, tally), mask)

    return assign, rvalue.ops


def incremented(read: Code, node: c_ast.UnaryOp) -> Code | None:
    """The new value of ``++x``, ``x++``, ``--x`` or ``x--`` (``node``), ``x`` read by ``read``: ``x + 1``."""
    return _operator(_UPDATES[node.op], read, Code(INT, lambda ex, mask, tally: _ONE, ()), node)


def _increment(ex: _Executor, node: c_ast.UnaryOp) -> tuple[Root, Counts] | None:
    """``++x``, ``x++``, ``--x``, ``x--`` of a variable ``x``: ``x += 1`` (``executor._update_plan``), the old
    value for the postfix ones."""
    target = _target(ex, node.expr)
    if target is None:
        return None
    read, name = target
    t = read.t
    combined = incremented(read, node)
    if combined is None:
        return None
    value = converted(combined, t)
    old = read.run

    if node.op.startswith("p"):

        def postfix(ex: _Executor, mask: Array, tally: Tally) -> Value:
            before = old(ex, mask, tally)
            _store(ex, name, t, value(ex, mask, tally), mask)
            return Value(t, before)

        return postfix, combined.ops

    def prefix(ex: _Executor, mask: Array, tally: Tally) -> Value:
        return _store(ex, name, t, value(ex, mask, tally), mask)

    return prefix, combined.ops


def _root(ex: _Executor, node: c_ast.Node) -> tuple[Root, Counts] | None:
    if isinstance(node, c_ast.Assignment):
        return _assignment(ex, node)
    if isinstance(node, c_ast.UnaryOp) and node.op in _UPDATES:
        return _increment(ex, node)
    code = _expression(ex, node)
    if code is None:
        return None
    run = code.run

    def expression(ex: _Executor, mask: Array, tally: Tally) -> Value:
        return as_value(code, run(ex, mask, tally))

    return expression, code.ops


def compiled_plan(ex: _Executor, node: c_ast.Node, interpreted: Plan) -> Plan | None:
    """``node``'s plan as a compiled tree that gives itself back to ``interpreted``, or None where it does not
    compile (made at the node's first evaluation: its variables' types are those in scope there)."""
    compiled = compiled_root(ex, node)
    if compiled is None:
        return None
    root, ops = compiled
    misses = [0]

    def plan(ex: _Executor, mask: Array) -> Value | Any:
        tally: Tally = []
        try:
            result = root(ex, mask, tally)
        except Fallback:
            misses[0] += 1
            if misses[0] >= _GIVE_UP:
                ex.plans[node] = interpreted
            return interpreted(ex, mask)
        misses[0] = 0
        count = ex.count
        for kind, width in ops:
            count(kind, mask, width)
        for part, lanes in tally:
            for kind, width in part:
                count(kind, lanes, width)
        return result

    return plan


def compiled_expression(ex: _Executor, node: c_ast.Node, reads: Reads | None = None) -> Code | None:
    """``node`` as a compiled tree of its own, for a caller that runs it outside ``compiled_plan``
    (``private_loops``), its reads of memory compiled by ``reads``: None where it does not compile. It stores
    nothing (an assignment is no expression here)."""
    token = _READS.set(reads)
    try:
        return _expression(ex, node)
    except UnsupportedKernel:
        return None
    finally:
        _READS.reset(token)


def compiled_root(ex: _Executor, node: c_ast.Node, reads: Reads | None = None) -> tuple[Root, Counts] | None:
    """``node`` as ``compiled_plan`` runs it (an assignment, an increment or an expression), without the plan
    around it, its reads of memory compiled by ``reads``: the caller counts ``Counts`` and catches ``Fallback``.
    None where it does not compile."""
    if not isinstance(node, _COMPILED):
        return None
    token = _READS.set(reads)
    try:
        return _root(ex, node)
    except UnsupportedKernel:  # (operands that do not go together: the interpreter says so when it runs)
        return None
    finally:
        _READS.reset(token)
