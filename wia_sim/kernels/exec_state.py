"""What the executor's parts share: the call frame (``_Frame``), the helpers more than one of them needs, and the
attributes and methods of ``_Executor`` that its mixins use (declared on ``ExecutorState`` for mypy). A module of
its own so that the mixins import it and not ``executor.py``, which imports them (as the checker's
``check_state.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from numpy.typing import NDArray
from pycparser import c_ast

from wia_sim.kernels.ctype import CType
from wia_sim.kernels.lvalues import Var
from wia_sim.kernels.spaces import LaunchState, Pointer, Value

if TYPE_CHECKING:
    from collections.abc import Sequence

    from wia_sim.kernels.async_copy import AsyncCopies
    from wia_sim.kernels.batch_loops import LoopShape
    from wia_sim.kernels.cas_loops import CasShape
    from wia_sim.kernels.contraction import Contraction
    from wia_sim.kernels.lanes import Geometry, Lanes
    from wia_sim.kernels.lvalues import Ref
    from wia_sim.kernels.pointers import AddressMap
    from wia_sim.kernels.printf import PrintfOutput
    from wia_sim.kernels.program import KernelInfo, Program
    from wia_sim.kernels.progress import Watch
    from wia_sim.kernels.spaces import KernelFault, Region
    from wia_sim.kernels.structs import StructType
    from wia_sim.kernels.types import TypeInfo, TypeResolver

__all__ = ["ExecutorState"]

Array = NDArray[Any]
Result = Value | Pointer


@dataclass
class _Frame:
    scopes: list[dict[str, Var]]
    ret_type: CType | None = None
    retval: Value | None = None  # (a pointer is returned as its address: ``pointers.PtrType``)
    ret: Array | None = None
    brk: Array | None = None
    cont: Array | None = None
    loops: list[int] = field(default_factory=list)
    jumps: dict[str, Array] = field(default_factory=dict)
    """The lanes that took a ``goto``, by label: they wait until execution reaches it (``jumps.py``)."""
    storage: dict[int, Var] = field(default_factory=dict)
    """With checks off, the variables this call declared without an initializer, by declaration: reached again (a
    loop's next trip), one holds what the last trip left in it, as a device's storage does (C99 6.2.4p5 leaves it
    indeterminate; with checks on, using it is the finding)."""


def _designated(init: c_ast.Node | None) -> bool:
    """Whether a brace-enclosed initializer has a designator (``[k] =``, ``.m =``) anywhere in it."""
    if not isinstance(init, c_ast.InitList):
        return False
    return any(isinstance(e, c_ast.NamedInitializer) or _designated(e) for e in init.exprs)


def _nested(init: c_ast.Node | None) -> bool:
    """Whether a brace-enclosed initializer holds a brace-enclosed list (``{{1}, {4, 5}}``): its elements are then
    placed by position, row by row (``StructOps.init_object``), not read off in one flat list."""
    return isinstance(init, c_ast.InitList) and any(isinstance(e, c_ast.InitList) for e in init.exprs)


def _line(node: c_ast.Node | None) -> int:
    while node is not None:
        coord = getattr(node, "coord", None)
        if coord is not None and getattr(coord, "line", None):
            return int(coord.line)
        children = node.children()
        node = children[0][1] if children else None
    return 0


class ExecutorState:
    """What the executor's mixins share: the attributes ``_Executor.__init__`` sets, and (for mypy only) the
    methods of ``_Executor`` and ``StructOps`` they call, so that each module type-checks on its own while
    ``_Executor`` assembles them."""

    program: Program
    types: TypeResolver
    enumerators: dict[str, int]
    member_refs: frozenset[int]
    whole_items: frozenset[int]
    kernel: KernelInfo
    geometry: Geometry
    lanes: Lanes
    st: LaunchState
    frame: _Frame
    kernel_frame: _Frame
    """The kernel function's frame (``frame`` is the running call's)."""
    globals: dict[str, Var]
    n: int
    groups: int
    all: Array
    none: Array  # the mask of no lane
    base: Array
    """The lanes the kernel's body runs for: ``all``, or one work-group's with ``in_order``."""
    in_order: bool
    """The launch runs its work-groups one at a time, in order (``executor.run_kernel``), not all in lockstep."""
    checks: bool
    counts: dict[str, int]
    init_flags: list[tuple[Array, Array]]
    local_regions: list[Region]
    addresses: AddressMap
    local_constants: dict[int, Var]
    async_copies: AsyncCopies
    printf: PrintfOutput
    _locals: set[str]
    steps: int
    steps_from: int
    """``steps`` when the running work-group started (``in_order``: the limit is each group's), else 0."""
    step_limit: int
    progress: Watch
    """When the loops compare their state, to find one that cannot end (``progress.py``)."""
    trip_lanes: Array | None
    """While a loop runs on arrays of the lanes still in it (``private_loops``), those lanes of the launch, in order
    (None: every lane of the launch, or no such loop running): its reads of memory are theirs."""
    trip_columns: dict[tuple[str, int, CType], Array]
    """The struct members a private loop's run reads or writes, as columns of their variables' rows, by name, byte
    offset and type (``private_loops._column``: found once per run of the loop)."""
    trip_undo: list[tuple[Array, Array | None, Array]]
    """The struct members a private loop's trip has written so far (``private_loops``): each column, the lanes
    written (None: every one) and what they held, to put back where the trip is given back."""
    loop_weights: dict[int, tuple[dict[str, int], dict[str, int]]]
    """Per loop shape (by id), the counts one iteration's condition and body add per lane, from the first iteration
    of a run of the loop in this launch (``exec_statements.loop``, for ``batch_loops``)."""

    if TYPE_CHECKING:
        # defined in executor.py and struct_exec.py; declared here, not defined, so the MRO finds the real ones

        def live(self, mask: Array) -> Array: ...

        def count(self, kind: str, mask: Array, width: int = 1) -> None: ...

        def step(self, node: c_ast.Node, mask: Array) -> None: ...

        @staticmethod
        def _conv(v: Value, t: CType) -> Array: ...

        def to_value(self, v: Result, t: CType) -> Value: ...

        @staticmethod
        def used(v: Value, mask: Array, how: str) -> Value: ...

        @staticmethod
        def _kind(t: CType) -> str: ...

        def load(
            self, p: Pointer, mask: Array, atomic: bool = False, grid: bool = False, natural: bool = True
        ) -> Result: ...

        def _gathered(self, parts: Sequence[tuple[Result, Array]], mask: Array) -> Result: ...

        def null_fault(self, p: Pointer, mask: Array, access: str) -> KernelFault: ...

        def block(self, items: Sequence[c_ast.Node], mask: Array) -> None: ...

        def private_object(self, what: str, nbytes: int) -> Region: ...

        def struct_store(self, p: Pointer, st: StructType, v: Value, mask: Array) -> None: ...

        def truth(self, v: Result, mask: Array) -> Array: ...

        def eval(self, node: c_ast.Node, mask: Array) -> Result: ...

        def value(self, node: c_ast.Node, mask: Array) -> Value: ...

        def lookup_var(self, name: str) -> Var | None: ...

        def index(self, node: c_ast.ArrayRef, mask: Array) -> Pointer: ...

        def index_member(self, node: c_ast.ArrayRef, mask: Array, access: str = "read") -> tuple[Pointer, bool]: ...

        def literal_object(self, node: c_ast.CompoundLiteral, mask: Array) -> Pointer: ...

        def struct_load(self, p: Pointer, st: StructType, mask: Array) -> Value: ...

        def member_ptr(self, node: c_ast.StructRef, mask: Array) -> Pointer | None: ...

        def array_object(self, node: c_ast.Node, mask: Array) -> tuple[Result, int | None, bool]: ...

        def check_bound(
            self, base: Pointer, sub: Value, bound: int, member: bool, mask: Array, access: str
        ) -> None: ...

        def store(self, p: Pointer, v: Value, mask: Array, natural: bool = True, copied: bool = False) -> None: ...

        def vector_literal(self, ct: CType, parts: Sequence[Result]) -> Value: ...

        def braced_vector(self, ct: CType, parts: Sequence[Result]) -> Value: ...

        def _ct(self, t: TypeInfo, where: str = "") -> CType: ...

        def _pt(self, t: TypeInfo) -> tuple[CType | None, tuple[int, ...]]: ...

        def _aggregate_elements(self, t: TypeInfo) -> bool: ...

        def local_constant(self, decl: c_ast.Decl) -> Var: ...

        def parameter(self, name: str, ct: CType, v: Result, mask: Array) -> Var: ...

        def _undefined(self, ct: CType, what: str) -> Value: ...

        def cast_types(self, c: Contraction) -> tuple[CType, ...] | None: ...

        def _uniform(self, init: c_ast.Node | None) -> bool: ...

        def _declared(self, t: TypeInfo, init: c_ast.Node | None) -> TypeInfo: ...

        def _init_values(self, init: c_ast.Node | None, elem: CType) -> list[Any]: ...

        def new_aggregate(self, what: str, t: TypeInfo, elem: CType, dims: tuple[int, ...]) -> Pointer: ...

        def init_object(self, p: Pointer, t: TypeInfo, init: c_ast.Node, mask: Array) -> None: ...

        def steps_for(self, mask: Array, count: int) -> None: ...

        @staticmethod
        def binary_type(op: str, a: CType, b: CType, node: c_ast.Node) -> CType: ...

        def lref(self, node: c_ast.Node, mask: Array, store: bool = False) -> Ref: ...

        def batch_iterations(
            self, shape: LoopShape, active: Array, cond: dict[str, int], body: dict[str, int], sparse: bool = False
        ) -> Array | None: ...

        def takes_loop(self, cond: c_ast.Node | None, body: c_ast.Node, step: c_ast.Node | None, line: int) -> bool: ...

        def resolve_cas(self, shape: CasShape, active: Array, cond: dict[str, int], body: dict[str, int]) -> bool: ...

        def steps_per_lane(self, counts: Array, longest: int) -> None: ...

        def private_trips(
            self,
            cond: c_ast.Node | None,
            body: c_ast.Node,
            step: c_ast.Node | None,
            mask: Array,
            do_while: bool,
            line: int,
            start: int = 0,
        ) -> tuple[Array, int] | None: ...

        def decl(self, node: c_ast.Decl, mask: Array, key: int | None = None) -> None: ...

        def converted(self, p: Pointer, call: c_ast.FuncCall) -> Pointer: ...

        def builtin(self, name: str, values: list[Value], mask: Array, node: c_ast.FuncCall) -> Result: ...

        def binop(
            self,
            op: str,
            a: Result,
            b: Result,
            mask: Array,
            node: c_ast.Node,
            t: CType | None = None,
            note: bool = True,
        ) -> Result: ...

        def unary(self, op: str, v: Value, mask: Array, node: c_ast.UnaryOp) -> Value: ...
