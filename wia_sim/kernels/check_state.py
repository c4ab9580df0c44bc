"""What the checker's mixins (``check_*.py``) share: the symbols, functions and contexts they record, the
attributes of ``Checker`` they read and write (declared on ``CheckerState`` for mypy), and the helpers more than one
of them needs. A module of its own so that the mixins import it and not ``checker.py``, which imports them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pycparser import c_ast

from wia_sim.kernels.ctype import CType, promoted
from wia_sim.kernels.ctype import lookup as ctype_lookup
from wia_sim.kernels.grammar import StatementAttributes
from wia_sim.kernels.operator_marks import OperatorMarks
from wia_sim.kernels.preprocess import Diagnostic
from wia_sim.kernels.program import FunctionInfo, KernelInfo, LocalVar
from wia_sim.kernels.types import AddressSpace, TypeInfo, TypeResolver, scalar_or_vector

__all__ = ["CheckerState"]


def _coord_of(node: c_ast.Node | None) -> tuple[int | None, int | None]:
    """Line and column of a node, falling back on its first child that has them (pycparser leaves some None)."""
    if node is None:
        return None, None
    coord = getattr(node, "coord", None)
    if coord is not None and getattr(coord, "line", None):
        return coord.line, coord.column
    for _, child in node.children():
        line, column = _coord_of(child)
        if line is not None:
            return line, column
    return None, None


def _ctype(t: TypeInfo) -> CType | None:
    try:
        scalar = ctype_lookup(t.name)
    except KeyError:
        return None
    return scalar.vector(t.width) if t.kind == "vector" else scalar


def _promote(t: TypeInfo) -> TypeInfo:
    """C's integer promotion, by the rules the executor computes with (:mod:`wia_sim.kernels.ctype`)."""
    c = _ctype(t) if t.kind == "scalar" else None
    if c is not None:
        return scalar_or_vector(promoted(c).name, 1)
    if t.kind in ("scalar", "vector"):
        return TypeInfo(t.kind, t.name, t.width, unnamed=t.unnamed)
    return t


@dataclass
class _Symbol:
    name: str
    kind: Literal["var", "param", "global", "enumerator"]
    type: TypeInfo
    line: int | None
    value: int | None = None  # a const integer initialized with a constant: Clang folds it (``TypeResolver.named``)
    declared: c_ast.Node | None = None  # the type node that declared it (Clang's errors spell the type as written)


@dataclass
class _Function:
    name: str
    params: list[TypeInfo]
    return_type: TypeInfo
    is_kernel: bool
    line: int | None
    variadic: bool = False
    node: c_ast.FuncDef | None = None
    calls: list[tuple[str, int | None]] = field(default_factory=list)
    plain: bool = False
    """A member of an overload family declared without ``__attribute__((overloadable))`` (``check_decls.overload``)."""
    images: str = ""
    """What in the function uses images or samplers, first (``images.py``): the kernels reaching it are refused."""
    reqd: tuple[int, int, int] | None = None
    """A kernel prototype's ``reqd_work_group_size``, which the definition takes when it gives none (Clang merges a
    declaration's attributes into the definition)."""

    @property
    def shown(self) -> str:
        """The name as the source spells it (an overloadable function's is ``name.k`` here)."""
        return self.name.partition(".")[0]


@dataclass
class _Switch:
    """A switch statement being checked: its controlling expression's promoted type (None where that is not a
    known integer type), the case values seen (converted to that type), GNU's case ranges, its first default."""

    type: CType | None
    cases: set[int] = field(default_factory=set)
    ranges: set[tuple[int, int]] = field(default_factory=set)  # GNU's ``case 1 ... 3:``
    default: c_ast.Default | None = None


OVERLOADED_TYPE = "'<overloaded function type>'"
"""The type of an overloaded function's name as Clang's errors spell it (``ExpressionChecks.overloaded_ref``)."""


@dataclass
class _Context:
    function: _Function
    loops: int = 0
    switch: _Switch | None = None  # the innermost enclosing switch: a label at any depth of its body is its own
    depth: int = 0  # 1 in the function's outermost block
    local_vars: list[LocalVar] = field(default_factory=list)


class CheckerState:
    """What the checker's mixins share: the attributes ``Checker.__init__`` sets, and (for mypy only) the methods
    one mixin calls on another, so that each module type-checks on its own while ``Checker`` assembles them."""

    filename: str
    suppressed: set[str]
    gnu_alignof: frozenset[tuple[int, int]]
    c_version: int
    keyword_places: list[tuple[int, int, str]]
    statement_attributes: Mapping[int, StatementAttributes]
    broken: frozenset[tuple[int, int]]
    """Where the expression statements start that Clang's parser found in error (``ParseOutcome.broken``)."""
    quiet: bool
    """Checking such a statement: no word of the results it leaves unused (``check_unused``)."""
    statement_head: tuple[int, int] | None
    """Where the expression statement being checked starts: an undeclared name there is corrected as Clang's
    statement parser corrects it (``check_exprs.typo_correction``)."""
    abandoned: tuple[int, int] | None
    """Where Clang's parser gave up the statement being checked (a name corrected to a keyword that cannot stand
    there): its errors after that place are not Clang's. Set in any expression, read (and cleared before) by the
    expression statement and the ``return`` that drop those errors."""
    operator_marks: OperatorMarks
    expanded: Callable[[int, int | None, bool], bool]
    """Whether the token at a line and column came of a macro's expansion (``PreprocessResult.expanded``)."""
    undeclared_builtins: frozenset[str]
    fp64: bool
    double_constants: bool
    fp16: bool
    fp16_missing: str
    diagnostics: list[Diagnostic]
    types: TypeResolver
    scopes: list[dict[str, _Symbol]]
    typedef_scopes: list[set[str]]
    functions: dict[str, _Function]
    constants: dict[str, c_ast.Decl]
    kernels: dict[str, KernelInfo]
    helpers: dict[str, FunctionInfo]
    used_undefined: list[tuple[str, c_ast.Node]]
    caller: _Function | None
    context: _Context | None
    """The body being checked: its loops and switch (the keywords Clang's typo correction offers there)."""
    enumerators: dict[str, int]
    member_refs: set[int]
    vector_subscripts: set[int]
    generic_choices: dict[int, c_ast.Node]
    converted_pointers: dict[int, tuple[str, int]]
    typed_calls: dict[int, str]
    shuffles: dict[int, tuple[int, ...]]
    held_warnings: list[tuple[c_ast.Node, str]]
    nested_labels: set[int]
    whole_items: set[int]
    enumerator_types: dict[str, str]
    sizes: dict[int, int]
    arithmetic_types: dict[int, TypeInfo]
    hinted: bool  # a loop hint was checked: the tree has pragmas to strip (``loop_hints.strip``)
    list_lengths: dict[int, int]
    unloaded: set[int]
    unevaluated: int
    overloads: dict[str, list[_Function]]
    struct_names: dict[str, str]

    def spelled(self, tag: str) -> str:
        """How the source names the struct or union type ``tag``: by the typedef that names it when it has no tag
        of its own (Clang's 'S', the kernel argument info's type name), else as it is ('struct T')."""
        return self.struct_names.get(tag, tag)

    if TYPE_CHECKING:
        # defined in checker.py and the check_*.py mixins; declared here, not defined, so the MRO finds the real ones

        def error(self, node: c_ast.Node | None, message: str) -> None: ...

        def operator(self, node: c_ast.Node) -> c_ast.Node: ...

        def start(self, node: c_ast.Node) -> c_ast.Node: ...

        def spell(
            self, declared: c_ast.Node, t: TypeInfo, space: AddressSpace | None, decayed: bool = False
        ) -> str: ...

        def clang_type(self, node: c_ast.Node, t: TypeInfo, as_value: bool = False) -> str: ...

        def overloaded_ref(self, node: c_ast.Node) -> str | None: ...

        def report_store(
            self,
            problem: str,
            target: TypeInfo,
            value: TypeInfo,
            node: c_ast.Node,
            declared: c_ast.Node | None,
            place: c_ast.Node | None,
            assigned: bool,
            spelled: str | None = None,
        ) -> None: ...

        def operand_type(self, node: c_ast.Node, t: TypeInfo) -> str: ...

        def value_type(self, t: TypeInfo) -> str: ...

        def warning(self, node: c_ast.Node, message: str, analysis: bool = False) -> None: ...

        def errors_since(self, seen: int) -> bool: ...

        def runtime_warning(self, node: c_ast.Node, message: str) -> None: ...

        def unsequenced(self, node: c_ast.Node | None, seen: int) -> None: ...

        def side_effects_unevaluated(self, operand: c_ast.Node, bracket: c_ast.Node | None) -> None: ...

        def give_held_warnings(self, body: c_ast.Node) -> None: ...

        def whole_value(self, item: c_ast.Node) -> bool: ...

        def static_assert(self, node: c_ast.StaticAssert) -> None: ...

        def check_type_usable(self, t: TypeInfo, node: c_ast.Node, what: str, named: bool = False) -> None: ...

        def check_initializer(
            self, init: c_ast.Node, t: TypeInfo, decl: c_ast.Decl | None, nested: bool = False
        ) -> None: ...

        def local_decl(self, node: c_ast.Decl, ctx: _Context) -> None: ...

        def local_typedef(self, node: c_ast.Typedef) -> None: ...

        def compound(self, node: c_ast.Compound, ctx: _Context, new_scope: bool = True) -> None: ...

        def lookup(self, name: str) -> _Symbol | None: ...

        def shadows_builtin(self, name: str) -> bool: ...

        def uses_images(self, what: str) -> None: ...

        def builtin_candidates(
            self, node: c_ast.Node, name: str, args: list[c_ast.Node], arg_types: list[TypeInfo]
        ) -> list[list[int]]: ...

        def expr(self, node: c_ast.Node | None) -> TypeInfo: ...

        def undeclared(self, node: c_ast.Node, name: str, args: int | None = None) -> None: ...

        def expr_quiet(self, node: c_ast.Node) -> TypeInfo: ...

        def check_assignment_types(
            self,
            target: TypeInfo,
            value: TypeInfo,
            node: c_ast.Node,
            declared: c_ast.Node | None = None,
            place: c_ast.Node | None = None,
            initializer: bool = False,
        ) -> None: ...

        def constant_conversion(self, node: c_ast.Node, value: TypeInfo, target: TypeInfo) -> None: ...

        def operator_warnings(self, node: c_ast.BinaryOp, left: TypeInfo, right: TypeInfo) -> None: ...

        def unused_result(self, node: c_ast.Node, comma: bool = False) -> None: ...

        def empty_body(self, node: c_ast.If) -> None: ...

        def empty_loop_body(self, node: c_ast.For | c_ast.While, following: c_ast.Node | None) -> None: ...

        def constant(self, node: c_ast.Node) -> int | None: ...

        def null_pointer(self, node: c_ast.Node | None) -> bool: ...
