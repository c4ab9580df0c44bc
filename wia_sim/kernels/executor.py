"""The kernel executor: every work-item of a launch in lockstep, vectorized over lanes with NumPy.

``run_kernel`` walks the checked AST of a ``Program`` (never turning source into Python). Every private value is
an array with one entry per lane (a trailing axis for vectors; shape () while it is the same in every lane);
divergent control flow is a lane mask: both sides of an ``if``/``?:`` run under their own masks, a ``switch``'s
lanes join at their own labels and fall through, loops run until no lane's condition holds,
``break``/``continue``/``return`` switch lanes off. Memory lives in ``spaces.Region``
objects, which check every access when ``checks`` is on.

The statements (blocks, ``if``, loops, ``switch``, ``break``/``continue``/``return``, declarations) run in
``exec_statements.py``, a mixin of ``_Executor`` over the state shared in ``exec_state.py``; the expressions are
here. The visitor methods are named as the checker's (``check_statements.py``, ``check_exprs.py``):
``statement``/``substatement`` for statements, ``expr_<node type>`` for expressions (each evaluated through a plan
made once per program: ``plan``).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pycparser import c_ast

from wia_sim.kernels import builtins, scratch, tables
from wia_sim.kernels.affine import Affine
from wia_sim.kernels.async_copy import ASYNC_BUILTINS, AsyncCopies, kernel_end_line
from wia_sim.kernels.atomics import apply_atomic
from wia_sim.kernels.ctype import (
    INT,
    SCALARS,
    CType,
    arithmetic,
    common_type,
    comparison_type,
    convert,
    elem_bytes,
    lookup,
    promoted,
)
from wia_sim.kernels.exec_state import _designated, _Frame, _line, _nested
from wia_sim.kernels.exec_statements import StatementRunner
from wia_sim.kernels.initializers import elided_length, member_types
from wia_sim.kernels.lanes import Geometry, all_lanes, any_lane, lanes_of, per_lane
from wia_sim.kernels.lvalues import MemRef, Ref, SwizzleRef, Var, VarRef, merge_lanes, merged, swizzled
from wia_sim.kernels.memargs import unwrap
from wia_sim.kernels.pointers import SEVERAL, AddressMap, PtrType, one_object
from wia_sim.kernels.printf import PrintfOutput, c_string
from wia_sim.kernels.program import FunctionInfo, KernelInfo, Program
from wia_sim.kernels.signatures import BUILTIN_CONSTANTS
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
from wia_sim.kernels.structs import StructType, layout, size_align
from wia_sim.kernels.types import TypeInfo, TypeResolver, char_constant, swizzle_indices
from wia_sim.kernels.unaligned import load_unaligned, store_unaligned
from wia_sim.kernels.undef import defined, joined, masked, shaped, tainted, within

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
    """What the kernel's printf calls printed, in a stable order (``printf.PrintfOutput.text``)."""
    findings: list[KernelFault] = field(default_factory=list)
    """Lower-severity findings (``uniform_write``) that did not stop the kernel: the first at each line."""


_STEP_MASKS = 64
"""How many partial masks ``step`` holds (each kept alive, a lane mask's memory) before adding them to the lanes'
step counts."""

_LOCAL_FENCE = int(BUILTIN_CONSTANTS["CLK_LOCAL_MEM_FENCE"])
_GLOBAL_FENCE = int(BUILTIN_CONSTANTS["CLK_GLOBAL_MEM_FENCE"])

_COMPARE = {
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
    "==": np.equal,
    "!=": np.not_equal,
}
_COMPARISONS = set(_COMPARE)
_WORK_ITEM = {
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


def _ctype_of(t: TypeInfo, where: str = "", types: TypeResolver | None = None) -> CType:
    if t.kind == "opaque" and t.name == "event_t":  # an event is a uint: 0 for none (async_copy.py)
        return UINT
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
        return PtrType.to(*_pointee(t, types))
    raise UnsupportedKernel(f"type '{t}' is not supported by the executor{where}")


def _pointee(t: TypeInfo, types: TypeResolver | None = None) -> tuple[CType | None, tuple[int, ...]]:
    target = t.target
    dims: list[int] = []
    while target is not None and target.kind == "array":
        dims.append(target.length or 0)
        target = target.target
    if target is None or target.kind == "void":
        return None, tuple(dims)
    return _ctype_of(target, "", types), tuple(dims)


def _float_literal(text: str) -> float:
    t = text.rstrip("fFlLhH")
    if t.lower().startswith("0x"):
        return float.fromhex(t)
    return float(t)


def _int_literal(text: str) -> int:
    t = text.rstrip("uUlL")
    if re.fullmatch(r"0[0-7]+", t):
        return int(t, 8)
    return int(t, 0)


Plan = Callable[["_Executor", Array], Result]
"""How one expression node evaluates under a lane mask, made once per program (``_Executor.plan``)."""


_DIRECT = {
    "+": np.add,
    "-": np.subtract,
    "*": np.multiply,
    "&": np.bitwise_and,
    "|": np.bitwise_or,
    "^": np.bitwise_xor,
}
"""Operators whose C result is the NumPy ufunc's on operands converted to the common type (run under the launch's
``np.errstate(all="ignore")``: integers wrap, floats overflow to infinity quietly)."""


@dataclass(frozen=True)
class _Binary:
    """What ``a op b`` does for one pair of operand types: convert to ``t`` (unless already of it), count
    ``t.width`` ops of ``kind`` per lane, apply ``ufunc`` (None: the general ``binop``), then, for a comparison,
    give ``result`` (-1/0 per element for vectors)."""

    t: CType
    kind: str
    convert_a: bool
    convert_b: bool
    ufunc: Any
    result: CType | None
    affine: bool  # an integer + - *: kept affine (``affine.py``) where an operand is and the result fits ``t``


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


def _lanes_out(x: Array, y: Array, dtype: Any) -> Array | None:
    """Where a ufunc on per-lane ``x`` and ``y`` writes: an array recycled from earlier launches when it is large
    (``scratch``), else None (a fresh one)."""
    shape = x.shape if x.ndim >= y.ndim else y.shape
    if not shape or shape[0] < _RECYCLED_LANES or (x.ndim == y.ndim and x.shape != y.shape):
        return None
    return scratch.empty(shape, dtype)


_RECYCLED_LANES = 1 << 15
"""Launches of this many lanes or more write their arithmetic into recycled arrays (``scratch``)."""


def _on_grid(ufunc: Any, a: Value, b: Value, dtype: Any) -> Array:
    """``ufunc(a, b)`` with at least one operand a strided view in the launch's grid shape (``Value.grid``): the
    other reshaped to the grid (free for a per-lane array), the result one entry per lane."""
    shape = a.grid.shape if a.grid is not None else b.grid.shape  # type: ignore[union-attr]
    x, y = (v.grid if v.grid is not None else (v.a.reshape(shape) if v.a.ndim else v.a) for v in (a, b))
    out = scratch.empty((math.prod(shape),), dtype)
    ufunc(x, y, out=out.reshape(shape))
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
            return name in _WORK_ITEM and all(_stores_nothing(e) for e in args)
    return False


def _binary_plan(node: c_ast.BinaryOp) -> Plan:
    """``left op right``, with the operand conversions and the operation decided once per pair of operand types."""
    op, left, right = node.op, node.left, node.right
    specs: dict[tuple[str, int, str, int], _Binary] = {}
    compare = _COMPARE.get(op)
    direct = _DIRECT.get(op)

    # an operand that is an element of an array may be taken as a view of memory (no copy) when nothing can store
    # before the operator runs: the right one always (it is evaluated last), the left one if the right stores nothing
    view_right = isinstance(right, c_ast.ArrayRef)
    view_left = isinstance(left, c_ast.ArrayRef) and _stores_nothing(right)

    def run(ex: _Executor, mask: Array) -> Result:
        a = ex.load(ex.index(left, mask), mask, grid=True) if view_left else ex.eval(left, mask)
        b = ex.load(ex.index(right, mask), mask, grid=True) if view_right else ex.eval(right, mask)
        if not isinstance(a, Value) or not isinstance(b, Value) or a.undef is not None or b.undef is not None:
            return ex.binop(op, a, b, mask, node)
        ta, tb = a.t, b.t
        key = (ta.name, ta.width, tb.name, tb.width)
        spec = specs.get(key)
        if spec is None:
            t = ex.binary_type(op, ta, tb, node)
            ufunc = compare or (direct if t.kind != "float" or op in ("+", "-", "*") else None)
            result = comparison_type(t) if compare is not None else None
            affine = op in ("+", "-", "*") and t.width == 1 and t.kind in ("int", "uint")
            spec = specs[key] = _Binary(t, ex._kind(t), ta != t, tb != t, ufunc, result, affine)
        if spec.ufunc is None:
            return ex.binop(op, a, b, mask, node, spec.t)
        t = spec.t
        if (a.grid is not None or b.grid is not None) and not (spec.convert_a or spec.convert_b):
            r = _on_grid(spec.ufunc, a, b, bool if spec.result is not None else t.dtype)
            ex.count(spec.kind, mask, t.width)
            if spec.result is None:
                return Value(t, r)
            return Value(INT, None, cond=r)  # (grids are scalar: ``load_strided``)
        if spec.affine and (a.affine is not None or b.affine is not None):
            kept = _affine_result(op, a, b, t)
            if kept is not None:
                ex.count(spec.kind, mask)
                return kept
        x = ex._conv(a, t) if spec.convert_a else a.a
        y = ex._conv(b, t) if spec.convert_b else b.a
        ex.count(spec.kind, mask, t.width)
        r = spec.ufunc(x, y, out=_lanes_out(x, y, bool if spec.result is not None else t.dtype))
        if spec.result is None:
            return Value(t, np.asarray(r))
        if t.width > 1:
            return Value(spec.result, np.asarray(r).astype(spec.result.dtype) * spec.result.dtype.type(-1))
        r = np.asarray(r)
        return Value(INT, None, cond=r) if r.ndim else Value(INT, r.astype(np.int32))

    return run


def _aggregate(t: CType | None) -> bool:
    """A struct or a pointer kept in memory: stored as bytes, never with a shadow."""
    return isinstance(t, StructType | PtrType)


class _Executor(StructOps, StatementRunner):
    def __init__(self, program: Program, kernel: KernelInfo, geometry: Geometry, step_limit: int, checks: bool):
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
        self.steps = 0
        self.lane_steps = np.zeros(self.n, np.int64)
        self.full_steps = 0
        self._step_masks: dict[int, tuple[Array, list[int]]] = {}  # partial masks' steps, added up in max_lane_steps
        self._steps_added = False
        self._locals: set[str] = set()
        self.init_flags: list[tuple[Array, Array]] = []  # (caller's flags, the region's padded copy) per buffer
        self.local_regions: list[Region] = []
        self.counts: dict[str, int] = {}
        self.st = LaunchState(
            self.lanes, kernel.name, program.filename, checks, self.counts, source_lines=program.source_lines
        )
        self.st.epoch = np.zeros(self.groups, np.int64)
        self.checks = checks
        self.fp64 = "cl_khr_fp64" in program.extensions
        self.plans: dict[c_ast.Node, Plan] = program.plans
        self.globals: dict[str, Var] = {}
        self.frame = _Frame([self.globals])
        self.all = np.ones(self.n, dtype=bool)
        self.none = np.zeros(self.n, dtype=bool)
        self.addresses = AddressMap(self.n)
        self.async_copies = AsyncCopies(self)
        self.printf = PrintfOutput(self)
        self.local_constants: dict[int, Var] = {}  # by id of the declaration (``local_constant``)
        self._constants()

    # ------------------------------------------------------------------ setup
    def _ct(self, t: TypeInfo, where: str = "") -> CType:
        return _ctype_of(t, where, self.types)

    def _pt(self, t: TypeInfo) -> tuple[CType | None, tuple[int, ...]]:
        return _pointee(t, self.types)

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
            items = list(init.exprs)
            length = None
            if t.target is not None:
                members = functools.partial(member_types, self.types)
                length = elided_length(items, t.target, members, lambda item: id(item) in self.whole_items)
            length = len(items) if length is None else length
            return TypeInfo("array", t.name, t.width, t.target, t.space, t.const, length)
        return t

    def _constant_aggregate(self, name: str, t: TypeInfo, decl: c_ast.Decl) -> Var:
        t = self._declared(t, decl.init)
        elem, dims = self._pt(TypeInfo("pointer", target=t)) if t.kind == "array" else (self._ct(t), ())
        assert elem is not None
        region = Region.allocate("constant", f"__constant variable '{name}'", 1, size_align(t, self.types)[0], "none")
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

    def bind_args(self, args: Sequence[Any]) -> None:
        params = self.kernel.params
        if len(args) != len(params):
            raise TypeError(f"kernel '{self.kernel.name}' takes {len(params)} arguments, got {len(args)}")
        scope: dict[str, Var] = {}
        for p, arg in zip(params, args, strict=True):
            if p.kind == "buffer":
                if arg is None:  # a NULL pointer (clSetKernelArg with a NULL buffer): dereferencing it faults
                    elem, dims = _pointee(p.type)
                    scope[p.name] = Var(value=Pointer(None, elem, np.asarray(0, np.int64), dims), is_pointer=True)
                    continue
                arg, access, initialized = unwrap(arg)
                buf = np.asarray(arg)
                if buf.dtype != np.uint8 or buf.ndim != 1:
                    raise TypeError(f"argument '{p.name}': a buffer must be a 1-D uint8 array")
                elem, dims = self._pt(p.type)
                desc = f"__{p.address_space} buffer (argument '{p.name}')"
                granule = elem.dtype.itemsize if elem is not None and not isinstance(elem, StructType) else 1
                region = Region(
                    p.address_space,
                    desc,
                    buf.reshape(1, -1),
                    buf.size,
                    "none",
                    granule=granule,
                    track_races=not p.const,
                    read_only=p.address_space == "constant" or p.const or access == "read_only",
                )
                region.write_only = access == "write_only"
                if initialized is not None and self.checks and not bool(initialized.all()):
                    region.init = np.ones(-(-buf.size // 16) * 16, dtype=bool)  # padded: read as whole words
                    region.init[: buf.size] = initialized
                    self.init_flags.append((initialized, region.init))
                scope[p.name] = Var(value=Pointer(region, elem, np.asarray(0, np.int64), dims), is_pointer=True)
            elif p.kind == "local":
                elem, dims = self._pt(p.type)
                size = int(arg)
                granule = elem.dtype.itemsize if elem is not None and not isinstance(elem, StructType) else 1
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
                scope[p.name] = Var(ct, Value(ct, a))
        for lv in self.kernel.local_vars:
            inner = self.program.type_of(lv.node)
            while inner.kind == "array" and inner.target is not None:
                inner = inner.target
            elem = self._ct(inner)  # a scalar, vector, struct or pointer (``pointers.PtrType``)
            region = Region.allocate(
                "local",
                f"__local variable '{lv.name}'",
                self.groups,
                lv.size_bytes,
                "group",
                1 if isinstance(elem, StructType) else elem.dtype.itemsize,
            )
            self.local_regions.append(region)
            base = Pointer(region, elem, np.asarray(0, np.int64), lv.shape)
            scope[lv.name] = Var(mem=base) if not lv.shape else Var(array=base)
        self._locals = {lv.name for lv in self.kernel.local_vars}
        self.frame.scopes.append(scope)

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
        self.steps += 1
        if mask is self.all:
            self.full_steps += 1
        else:  # statements of one block share their mask: counted per mask, added to the lanes' counts later
            entry = self._step_masks.get(id(mask))
            if entry is None:
                if len(self._step_masks) >= _STEP_MASKS:
                    self.lane_steps_total()
                self._step_masks[id(mask)] = (mask, [1])
            else:
                entry[1][0] += 1
        if self.steps > self.step_limit:
            loops = self.frame.loops
            line = loops[-1] if loops else _line(node)
            source = self.st.quote(line)
            raise KernelTimeout(
                self.kernel.name,
                line,
                f"{self.program.filename}:{line}: kernel '{self.kernel.name}' exceeded its step limit of "
                f"{self.step_limit} steps (a loop that never ends?)" + (f"\n    {source}" if source else ""),
                source,
            )

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
            raise UnsupportedKernel(f"line {self.st.line}: a pointer used as a {t} value")
        if (isinstance(t, StructType) or isinstance(v.t, StructType)) and v.t != t:
            raise UnsupportedKernel(f"line {self.st.line}: a {v.t} value used as a {t}")
        if v.undef is not None and not isinstance(t, StructType):  # converted with its shadow
            r = self.to_value(defined(v), t)
            return Value(t, r.raw, undef=shaped(v.undef, t), origin=v.origin)
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
        """How to evaluate ``node``, decided once per program: a constant's value, a binary operator's types
        (cached per operand types), else the ``expr_<node type>`` method."""
        kind = type(node).__name__
        if kind == "Constant":
            constant = self.expr_Constant(node, self.all)
            return lambda ex, mask: constant
        if kind == "BinaryOp" and node.op not in ("&&", "||"):
            return _binary_plan(node)
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
        if typ == "char":
            return Value(INT, np.asarray(char_constant(text) or 0, np.int32))
        if typ in ("float", "double") or ("." in text or ("e" in text.lower() and not text.lower().startswith("0x"))):
            if typ == "double" and not text.rstrip().endswith(("f", "F")):
                t = SCALARS["double" if self.fp64 else "float"]
            elif typ == "double":
                t = SCALARS["float"]
            else:
                t = SCALARS.get(typ, SCALARS["float"])
            if typ not in ("float", "double"):
                t = SCALARS["double" if self.fp64 else "float"]
            return Value(t, np.asarray(_float_literal(text), t.dtype))
        if "p" in text.lower() and text.lower().startswith("0x"):
            t = SCALARS["float"] if text.rstrip().endswith(("f", "F")) or not self.fp64 else SCALARS["double"]
            return Value(t, np.asarray(_float_literal(text), t.dtype))
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

    def expr_ID(self, node: c_ast.ID, mask: Array) -> Result:
        var = self.lookup_var(node.name)
        if var is None:
            if node.name in BUILTIN_CONSTANTS:
                c = BUILTIN_CONSTANTS[node.name]
                if isinstance(c, int):
                    return Value(UINT, np.asarray(c, np.uint32))
                return Value(SCALARS["float"], np.asarray(c, np.float32))
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

    def load(self, p: Pointer, mask: Array, atomic: bool = False, grid: bool = False) -> Result:
        """What ``p`` points to; ``grid``: a strided view may stand for the values (``Value.grid``), for an operator
        that consumes them before anything else runs."""
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
        if p.packed:
            return Value(p.elem, load_unaligned(self.st, p.region, p.off, mask, p.elem))
        if p.affine is not None and not atomic:
            values = p.region.load_strided(self.st, p.affine, mask, p.elem, grid)
            if values is not None:
                return Value(p.elem, None, grid=values) if values.ndim == 6 else Value(p.elem, values)
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

    def value_at(self, p: Pointer, mask: Array) -> Array:
        """The scalar or vector ``p`` points to, per lane (``p`` points to an element, not to an array row)."""
        v = self.load(p, mask)
        assert isinstance(v, Value)
        return np.asarray(v.a)

    def null_fault(self, p: Pointer, mask: Array, access: str) -> KernelFault:
        """The ``null_pointer`` finding: a load or store through a NULL pointer (a NULL buffer argument, or a
        private pointer that holds 0) by the lanes of ``mask``. Raised with checks off too: there is no memory."""
        size = elem_bytes(p.elem) if p.elem is not None else 1
        offs = np.broadcast_to(np.asarray(p.off, np.int64), (self.n,))
        mask = np.broadcast_to(mask, (self.n,))
        lane = int(np.flatnonzero(mask)[0]) if bool(mask.any()) else 0
        at = int(offs[lane])
        what = f"{access} of {size} bytes through a NULL pointer (address {at})"
        return self.st.fault("null_pointer", what, lane, at, mask, offs[mask])

    def store(self, p: Pointer, v: Value, mask: Array) -> None:
        if p.region is SEVERAL:
            for q, m in self.addresses.split(p, mask):
                self.store(q, v, m)
            return
        if v.undef is not None:
            undef = within(v.undef, mask)
            if undef is None:
                v = defined(v)
            elif p.region is not None and p.region.space == "private" and not p.packed and not _aggregate(p.elem):
                # kept undefined in __private memory, as in a variable
                assert p.elem is not None
                values = self._conv(defined(v), p.elem)
                p.region.store(self.st, p.off, mask, p.elem, values, undef=shaped(undef, p.elem), origin=v.origin)
                return
            else:
                assert v.origin is not None
                space = p.region.space if p.region is not None else "private"
                raise v.origin.fault(undef, f"and its value stored to __{space} memory")
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
        if isinstance(p.elem, StructType):
            self.struct_store(p, p.elem, self.to_value(v, p.elem), mask)
            return
        if p.packed:
            store_unaligned(self.st, p.region, p.off, mask, p.elem, self._conv(v, p.elem))
            return
        values = self._conv(v, p.elem)
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
        if bound is not None and self.checks:
            self.check_bound(base, sub, bound, member, mask, access)
        self.count("int_ops", mask)
        if sub.affine is not None:
            return base.moved_by(sub.affine.scaled(base.elem_size)), member
        if base.affine is not None and sub.a.ndim == 0:
            return base.moved_by(int(sub.a) * base.elem_size), member
        return base.moved(np.multiply(sub.a, base.elem_size, dtype=np.int64, casting="unsafe")), member

    def expr_ArrayRef(self, node: c_ast.ArrayRef, mask: Array) -> Result:
        return self.load(self.index(node, mask), mask)

    def expr_UnaryOp(self, node: c_ast.UnaryOp, mask: Array) -> Result:
        op = node.op
        if op in ("++", "--", "p++", "p--"):
            ref = self.lref(node.expr, mask)
            old = ref.get(mask)
            one = Value(INT, np.asarray(1, np.int32))
            new = self.binop("+" if "+" in op else "-", old, one, mask, node)
            ref.set(new, mask)
            return old if op.startswith("p") else ref.get_after(new)
        if op == "&":
            return self.address(node.expr, mask)
        if op == "*":
            p = self.eval(node.expr, mask)
            if not isinstance(p, Pointer):
                raise UnsupportedKernel(f"line {_line(node)}: '*' of a non-pointer")
            return self.load(p, mask)
        if op in ("_Alignof", "alignof"):  # also __alignof__ (``frontend``): Clang's extension in OpenCL C
            if not isinstance(node.expr, c_ast.Typename):
                raise UnsupportedKernel(f"line {_line(node)}: {op} of an expression (give a type)")
            return Value(ULONG, np.asarray(size_align(self.program.type_of(node.expr), self.types)[1], np.uint64))
        if op == "sizeof":
            known = self.program.sizes.get(id(node))
            if known is not None:  # the operand's static type (the checker's): not evaluated
                return Value(ULONG, np.asarray(known, np.uint64))
            if isinstance(node.expr, c_ast.Typename):
                t = self.program.type_of(node.expr)
            else:
                return self._sizeof_expr(node.expr)
            size = self._size_of(t)
            return Value(ULONG, np.asarray(size, np.uint64))
        v = self.value(node.expr, mask)
        if v.undef is not None:  # computed on the bits, undefined where the operand is
            return tainted(self.unary(op, defined(v), mask, node), joined((v,)))
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

    def _size_of(self, t: TypeInfo) -> int:
        if t.kind == "pointer":
            return 8
        if t.kind == "array" and t.target is not None:
            return (t.length or 0) * self._size_of(t.target)
        if t.kind == "struct":
            return size_align(t, self.types)[0]
        size = t.element_size
        if size is None:
            raise UnsupportedKernel(f"sizeof({t})")
        return size

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

    @staticmethod
    def _kind(t: CType) -> str:
        if t.kind == "float":
            return "float64_ops" if t.name == "double" else "float32_ops"
        return "int_ops"

    @staticmethod
    def binary_type(op: str, a: CType, b: CType, node: c_ast.Node) -> CType:
        """The type both operands of ``a op b`` convert to (the shift's left operand's, for shifts)."""
        if op in ("<<", ">>"):
            t = promoted(a) if a.kind != "bool" else INT
            if b.width > 1 and t.width == 1:
                t = t.vector(b.width)
            return t
        try:
            return common_type(a if a.kind != "bool" else INT, b if b.kind != "bool" else INT)
        except TypeError as exc:
            raise UnsupportedKernel(f"line {_line(node)}: {exc}") from None

    def binop(self, op: str, a: Result, b: Result, mask: Array, node: c_ast.Node, t: CType | None = None) -> Result:
        """``a op b``; ``t``, when given, is ``binary_type`` of the operands' types (a plan caches it)."""
        if (isinstance(a, Value) and a.undef is not None) or (isinstance(b, Value) and b.undef is not None):
            return self.undefined_binop(op, a, b, mask, node, t)
        if isinstance(a, Pointer) or isinstance(b, Pointer):
            return self.pointer_op(op, a, b, mask, node)
        if t is None:
            t = self.binary_type(op, a.t, b.t, node)
        x = self._conv(a, t)
        y = self._conv(b, t)
        self.count(self._kind(t), mask, t.width)
        compare = _COMPARE.get(op)
        if compare is not None:
            r = compare(x, y)
            rt = comparison_type(t)
            if t.width > 1:
                return Value(rt, np.asarray(r).astype(rt.dtype) * rt.dtype.type(-1))
            return Value(INT, np.asarray(r).astype(np.int32))
        if op in ("/", "%") and t.kind != "float" and self.checks:
            zero = mask[:, None] & (y == 0) if t.width > 1 else mask & (y == 0)
            if bool(np.any(zero)):
                offenders = np.asarray(np.asarray(zero).reshape(self.n, -1).any(axis=1))
                lane = int(np.flatnonzero(offenders)[0])
                raise self.st.fault(
                    "division_by_zero",
                    f"integer {'division' if op == '/' else 'remainder'} by zero",
                    lane,
                    offenders=offenders,
                )
        if op == "%" and t.kind == "float":
            raise UnsupportedKernel(f"line {_line(node)}: % on floats")
        direct = _DIRECT.get(op)
        if direct is not None and (t.kind != "float" or op in ("+", "-", "*")):  # ``x += y`` and the like
            x, y = np.asarray(x), np.asarray(y)
            return Value(t, np.asarray(direct(x, y, out=_lanes_out(x, y, t.dtype))))
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
        return tainted(self.binop(op, x, y, mask, node, t), shadow)

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
            r = self.vector_logical(op, defined(a), defined(b), mask)
            return Value(r.t, r.raw, undef=shaped(shadow[0], r.t), origin=shadow[1])
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
        a = self.eval(node.iftrue, t_mask)
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
        return Value(t, merge_lanes(c, self._conv(a, t), self._conv(b, t), t.width))

    def vector_selection(self, node: c_ast.TernaryOp, cond: Value, mask: Array) -> Value:
        """``c ? a : b`` with a vector ``c`` (OpenCL C 1.2 6.3 i): ``select(b, a, c)``: both operands evaluated,
        each component taken from ``a`` where that component of ``c`` has its most significant bit set."""
        a, b = self.value(node.iftrue, mask), self.value(node.iffalse, mask)
        shadow = joined((cond, a, b))
        if shadow is not None:  # (a select, not a branch: undefined where an operand is)
            cond, a, b = defined(cond), defined(a), defined(b)
        t = self.binary_type("?:", a.t, b.t, node)
        t = t if t.width > 1 else t.vector(cond.t.width)
        bits = np.asarray(cond.a).view(np.dtype(f"i{cond.t.dtype.itemsize}"))
        self.count(self._kind(t), mask, t.width)
        r = Value(t, np.where(bits < 0, self._conv(a, t), self._conv(b, t)).astype(t.dtype))
        return r if shadow is None else Value(t, r.raw, undef=shaped(shadow[0], t), origin=shadow[1])

    def expr_Assignment(self, node: c_ast.Assignment, mask: Array) -> Result:
        ref = self.lref(node.lvalue, mask, store=node.op == "=")
        rhs = self.eval(node.rvalue, mask)
        if node.op != "=":
            old = ref.get(mask)
            rhs = self.binop(node.op[:-1], old, rhs, mask, node)
        ref.set(rhs, mask)
        return ref.get_after(rhs)

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
        if isinstance(v, Pointer):
            return Value(ct, np.asarray(v.off).astype(ct.dtype))
        if v.undef is not None:  # converted with its shadow (a scalar's spread to each component)
            return Value(ct, self._conv(defined(v), ct), undef=shaped(v.undef, ct), origin=v.origin)
        return Value(ct, self._conv(v, ct))

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
            return Value(ct, r.raw, undef=undef, origin=shadow[1])
        scalar = ct.scalar
        cols: list[Array] = []
        for p in parts:
            if isinstance(p, Pointer):
                raise UnsupportedKernel(f"line {self.st.line}: a pointer in a vector literal")
            a = self._conv(p, scalar.vector(p.t.width) if p.t.width > 1 else scalar)
            if p.t.width > 1:
                cols.extend(np.asarray(a)[..., k] for k in range(p.t.width))
            else:
                cols.append(np.asarray(a))
        if len(cols) == 1:
            return Value(ct, self._conv(Value(scalar, cols[0]), ct))
        if len(cols) != ct.width:
            raise UnsupportedKernel(f"line {self.st.line}: {len(cols)} components for a {ct}")
        shape = np.broadcast_shapes(*(c.shape for c in cols))
        return Value(ct, np.stack([np.broadcast_to(c, shape) for c in cols], axis=-1).astype(ct.dtype))

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
        if node.type == "." and (
            isinstance(node.name, c_ast.ArrayRef) or (isinstance(node.name, c_ast.UnaryOp) and node.name.op == "*")
        ):  # components of a vector in memory: only their bytes are read
            return self.lref(node, mask).get(mask)
        base = self.eval(node.name, mask)
        if isinstance(base, Pointer) or node.type != "." or base.t.width == 1:
            raise UnsupportedKernel(f"line {_line(node)}: structs and unions are not supported")
        return swizzled(base, swizzle_indices(node.field.name, base.t.width))

    def expr_FuncCall(self, node: c_ast.FuncCall, mask: Array) -> Result:
        name = node.name.name
        args = list(node.args.exprs) if node.args is not None else []
        fn = self.program.callable(name)
        if fn is not None:
            return self.call_helper(fn, args, mask)
        if name in _WORK_ITEM:
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
            return self.vload_store(m.group(1), int(m.group(2)), args, mask)
        m = _VLOAD_HALF_RE.fullmatch(name)
        if m:
            aligned, rounding = m.group(2) == "a", m.group(4) or ""
            return self.vload_store(m.group(1), int(m.group(3) or 1), args, mask, True, aligned, rounding)
        if name in tables.POINTER_OUT or name in ("vec_step", "shuffle", "shuffle2"):
            return self.call_table_special(name, args, mask)
        values = [self.value(a, mask) for a in args]
        shadow = joined(values)
        if shadow is not None and name.startswith("as_"):  # a reinterpretation: undefined where the operand is
            return tainted(self.builtin(name, [defined(v) for v in values], mask, node), shadow)
        if shadow is not None:  # a call: its arguments are used (``undef.py``)
            values = [self.used(v, mask, f"by {name}()") for v in values]
        return self.builtin(name, values, mask, node)

    def builtin(self, name: str, values: list[Value], mask: Array, node: c_ast.FuncCall) -> Result:
        """The built-in functions of values only (conversions, reinterpretations, the tables' and math)."""
        if name.startswith("convert_"):
            r = builtins.convert_to(name, values[0])
            self.count(self._kind(r.t), mask, r.t.width)
            return r
        if name.startswith("as_"):
            return builtins.as_type(name, values[0])
        base = name
        for prefix in ("native_", "half_"):
            if base.startswith(prefix):
                base = base[len(prefix) :]
        if name in tables.FUNCTIONS:
            r = tables.call_table(name, values)
            self.count(tables.op_kind(name, values), mask, max(v.t.width for v in values))
            return r
        if base in builtins.MATH_FUNCTIONS:
            r = builtins.call_math(base, values)
            kind = "special_ops" if base in builtins.SPECIAL else self._kind(r.t)
            width = max(v.t.width for v in values)
            self.count(kind, mask, width)
            return r
        raise UnsupportedKernel(f"line {_line(node)}: built-in '{name}' is not supported by the executor")

    def call_table_special(self, name: str, args: list[c_ast.Node], mask: Array) -> Result:
        """The math functions that store through a pointer argument (the store is checked and counted as any
        store), ``vec_step`` and ``shuffle``/``shuffle2``."""
        if name in tables.POINTER_OUT:
            at = tables.POINTER_OUT[name]
            values = [self.value(a, mask) for a in args[:at]]
            p = self.eval(args[at], mask)
            if not isinstance(p, Pointer) or p.elem is None:
                raise UnsupportedKernel(f"line {self.st.line}: '{name}' needs a pointer as its last argument")
            result, out = tables.call_pointer_out(name, values, p.elem)
            self.store(p, out, mask)
            kind = "special_ops" if name in ("sincos", "lgamma_r") else self._kind(result.t)
            self.count(kind, mask, result.t.width)
            return result
        if name == "vec_step":  # its operand is not evaluated, as sizeof's (a compile-time constant in Clang)
            t = self.value(args[0], np.zeros(self.n, dtype=bool)).t
            return Value(INT, np.asarray(4 if t.width == 3 else t.width, np.int32))
        values = [self.value(a, mask) for a in args]
        width = values[-1].t.width
        self.count("int_ops", mask, width)
        return tables.shuffle(values, width)

    def call_helper(self, fn: FunctionInfo, args: list[c_ast.Node], mask: Array) -> Result:
        values = [self.eval(a, mask) for a in args]
        scope: dict[str, Var] = {}
        for p, v in zip(fn.params, values, strict=True):
            if p.kind == "pointer":
                elem, dims = self._pt(p.type)
                if isinstance(v, Pointer):
                    scope[p.name] = Var(
                        value=Pointer(v.region, elem, v.off, dims, v.null), is_pointer=True, ptr_elem=elem
                    )
                else:
                    raise UnsupportedKernel(f"call of '{fn.name}': a value passed for pointer '{p.name}'")
            elif p.type.kind == "struct":
                st = self._ct(p.type)
                assert isinstance(st, StructType)
                copy_ = Pointer(
                    self.private_object(f"__private parameter '{p.name}'", st.size), st, np.asarray(0, np.int64)
                )
                self.struct_store(copy_, st, self.to_value(v, st), mask)
                scope[p.name] = Var(mem=copy_)
            else:
                ct = self._ct(p.type)
                scope[p.name] = Var(ct, self.to_value(v, ct))
        ret_type = None if fn.return_type.kind == "void" else self._ct(fn.return_type)
        saved, line = self.frame, self.st.line
        self.frame = _Frame([self.globals, scope], ret_type=ret_type, loops=list(saved.loops))
        try:
            self.block(fn.node.body.block_items or [], mask)
            result = self.frame.retval
        finally:
            self.frame = saved
        self.st.line = line  # the rest of the calling statement is on the caller's line
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
        if flags & _GLOBAL_FENCE:
            self.st.epoch = self.st.epoch + reached
        if flags & _LOCAL_FENCE:
            for region in self.local_regions:
                region.barrier(self.st, reached)
        self.counts["barriers"] = self.counts.get("barriers", 0) + int(np.count_nonzero(reached))

    def vload_store(
        self,
        kind: str,
        width: int,
        args: list[c_ast.Node],
        mask: Array,
        halves: bool = False,
        aligned: bool = False,
        rounding: str = "",
    ) -> Result:
        """vloadN/vstoreN, and with ``halves`` vload_halfN/vstore_halfN: halves in memory, floats in registers
        (the store rounds to nearest even by default, else by its ``_rtz``/``_rtp``/``_rtn`` suffix); ``aligned``
        (vloada_halfN/vstorea_halfN) steps by 4 halves for a 3-vector."""
        stride = 4 if aligned and width == 3 else width
        if kind == "load":
            off = self.value(args[0], mask)
            p = self.eval(args[1], mask)
            if not isinstance(p, Pointer) or p.elem is None:
                raise UnsupportedKernel(f"line {self.st.line}: vload of a non-pointer")
            t = p.elem.scalar.vector(width)
            addr = p.off + np.asarray(off.a).astype(np.int64) * elem_bytes(p.elem.scalar) * stride
            if width == 3:  # three packed scalars (12 bytes for floats), not a 16-byte 3-vector in memory
                scalar = p.elem.scalar
                parts = [self.value_at(Pointer(p.region, scalar, addr + k * t.dtype.itemsize), mask) for k in range(3)]
                loaded: Result = Value(t, np.stack(np.broadcast_arrays(*parts), axis=-1))
            else:
                loaded = self.load(Pointer(p.region, t, addr), mask)
            if halves and isinstance(loaded, Value):
                return self.to_value(loaded, SCALARS["float"].vector(width))
            return loaded
        data = self.value(args[0], mask)
        off = self.value(args[1], mask)
        p = self.eval(args[2], mask)
        if not isinstance(p, Pointer) or p.elem is None:
            raise UnsupportedKernel(f"line {self.st.line}: vstore to a non-pointer")
        t = p.elem.scalar.vector(width)
        addr = p.off + np.asarray(off.a).astype(np.int64) * elem_bytes(p.elem.scalar) * stride
        if halves and isinstance(data, Value) and data.t.name != "half":
            source = SCALARS["double" if data.t.name == "double" else "float"]
            wide = self.to_value(data, source.vector(width) if width > 1 else source)
            data = Value(t, tables.round_to_half(np.asarray(wide.a), rounding))
        if width == 3:
            packed = np.asarray(self.to_value(data, t).a)
            for k in range(3):
                part = Value(p.elem.scalar, packed[..., k])
                self.store(Pointer(p.region, p.elem.scalar, addr + k * t.dtype.itemsize), part, mask)
        else:
            self.store(Pointer(p.region, t, addr), data, mask)
        return Value(INT, np.asarray(0, np.int32))

    def atomic(self, op: str, args: list[c_ast.Node], mask: Array, node: c_ast.Node) -> Value:
        p = self.eval(args[0], mask)
        if not isinstance(p, Pointer) or p.region is None or p.elem is None:
            raise UnsupportedKernel(f"line {_line(node)}: atomic on a non-pointer")
        t = p.elem
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


def run_kernel(
    program: Program,
    name: str,
    args: Sequence[Any],
    geometry: Geometry,
    step_limit: int = 10_000_000,
    checks: bool = True,
    strict: bool = False,
) -> RunResult:
    """Run kernel ``name`` of ``program`` over ``geometry``; buffers (uint8 arrays) are read and written in place.

    Raises ``KernelFault`` when a check fails, ``KernelTimeout`` past ``step_limit`` lockstep steps and
    ``UnsupportedKernel`` for what the executor does not implement. After any of them the buffers hold the writes
    of the accesses before the one that raised (in lockstep order) and none of that access; a caller that must
    not see them passes copies and keeps them only on success, as the HAL's sim backend does.

    Lower-severity findings (a uniform write: work-items storing the same value to one address with no barrier
    in between) do not stop the kernel: they are in ``RunResult.findings``; ``strict`` raises them as faults.
    """
    kernel = program.kernel(name)
    # C's arithmetic: integers wrap, floats overflow and divide quietly
    with np.errstate(all="ignore"):
        ex = _Executor(program, kernel, geometry, step_limit, checks)
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
        finally:
            # the async-copy and printf helpers point back at the executor: without them the launch's arrays are
            # freed now, not at the next garbage collection (scratch.empty hands them out again)
            del ex.async_copies, ex.printf
    counts = {key: measured.get(key, 0) for key in COUNTS}  # private memory traffic is not reported
    return RunResult(counts, ex.steps, name, output=output, findings=ex.st.findings)
