"""Clang's -Wunsequenced (on by default): a variable modified twice, or modified and read, where C does not order
the two (C99 6.5p2: undefined behaviour). ``i = i++``, ``a[i] = i++``, ``f(i++, i)``: the build log says "multiple
unsequenced modifications to 'i'" or "unsequenced modification and access to 'i'", at the modification, once the
function is checked. The simulator runs such an expression in its own order, as PoCL and Oclgrind run it in theirs.

The rules are Clang 15's ``SequenceChecker`` for C, measured with ``clang-15 -cc1 -x cl -cl-std=CL1.2``: a full
expression's operands are unordered but for ``,``, ``&&``, ``||`` and ``?:`` (their first operand before the rest,
whose side not taken by a constant condition is not looked at); a call's arguments are ordered before the call, not
with the rest of the expression; an assignment, compound assignment or increment modifies its variable after its
operands are computed. Only variables are tracked (a member, a vector's component, an element are not), a read being
a variable's value taken (not an array's, which decays; not the operand of ``&``, of ``sizeof``, nor the variable an
assignment stores to). A mixin of ``Checker``."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from pycparser import c_ast

from wia_sim.kernels.check_state import CheckerState, _Symbol
from wia_sim.kernels.grammar import StatementExpression
from wia_sim.kernels.types import const_int

__all__ = ["SequenceChecks", "evaluated_nodes", "modifies"]

_USE, _MOD_AS_VALUE, _MOD_AS_SIDE_EFFECT = 0, 1, 2
"""Clang's usage kinds: a read; a modification ordered before the value of its expression (one a call's arguments
made, once the call is done); one that is not (``i++``, and in C ``++i`` and ``i = 1``)."""
_UPDATES = frozenset(("++", "--", "p++", "p--"))
_UNEVALUATED = frozenset(("sizeof", "_Alignof", "alignof", "vec_step"))
_MOD_MOD, _MOD_USE = "multiple unsequenced modifications to '{}'", "unsequenced modification and access to '{}'"


class _Regions:
    """Clang's ``SequenceTree``: a region is ordered after the regions before it with the same parent and
    unordered with its own parent's operations; a merged region's operations count as its parent's."""

    def __init__(self) -> None:
        self.parents = [0]
        self.merged = [False]

    def allocate(self, parent: int) -> int:
        self.parents.append(parent)
        self.merged.append(False)
        return len(self.parents) - 1

    def merge(self, region: int) -> None:
        self.merged[region] = True

    def representative(self, region: int) -> int:
        while self.merged[region]:
            region = self.parents[region]
        return region

    def unsequenced(self, current: int, old: int) -> bool:
        """Whether an operation in ``current`` is unordered with one recorded in ``old`` (an ancestor of it, or
        itself)."""
        c, target = self.representative(current), self.representative(old)
        while c >= target:
            if c == target:
                return True
            c = self.parents[c]
        return False


@dataclass
class _Usage:
    node: c_ast.Node | None = None
    region: int = 0


@dataclass
class _Object:
    name: str
    uses: list[_Usage] = field(default_factory=lambda: [_Usage(), _Usage(), _Usage()])
    diagnosed: bool = False


class _Sequencer:
    """One full expression's walk (``SequenceChecks.unsequenced``): ``found`` gets each finding's place (the
    modification) and words."""

    def __init__(
        self,
        variable: Callable[[str], _Symbol | None],
        constant: Callable[[c_ast.Node], int | None],
        vector_literal: Callable[[c_ast.Cast], bool],
        chosen: Callable[[c_ast.GenericSelection], c_ast.Node | None],
    ) -> None:
        self.variable = variable
        self.constant = constant
        self.vector_literal = vector_literal
        self.chosen = chosen
        self.regions = _Regions()
        self.region = 0
        self.objects: dict[int, _Object] = {}
        self.side_effects: list[tuple[_Object, _Usage]] | None = None
        self.found: list[tuple[c_ast.Node, str]] = []

    # -- Clang's bookkeeping (``addUsage``, ``checkUsage``, ``note{Pre,Post}{Use,Mod}``)
    def add(self, o: _Object, node: c_ast.Node | None, kind: int) -> None:
        u = o.uses[kind]
        if u.node is None or not self.regions.unsequenced(self.region, u.region):
            if kind == _MOD_AS_SIDE_EFFECT and self.side_effects is not None:
                self.side_effects.append((o, _Usage(u.node, u.region)))
            u.node, u.region = node, self.region

    def check(self, o: _Object, node: c_ast.Node, other: int, mod_mod: bool) -> None:
        u = o.uses[other]
        if o.diagnosed or u.node is None or not self.regions.unsequenced(self.region, u.region):
            return
        modification = node if other == _USE else u.node
        self.found.append((modification, (_MOD_MOD if mod_mod else _MOD_USE).format(o.name)))
        o.diagnosed = True

    def pre_use(self, o: _Object, node: c_ast.Node) -> None:
        self.check(o, node, _MOD_AS_VALUE, False)

    def post_use(self, o: _Object, node: c_ast.Node) -> None:
        self.check(o, node, _MOD_AS_SIDE_EFFECT, False)
        self.add(o, node, _USE)

    def pre_mod(self, o: _Object, node: c_ast.Node) -> None:
        self.check(o, node, _MOD_AS_VALUE, True)
        self.check(o, node, _USE, False)

    def post_mod(self, o: _Object, node: c_ast.Node) -> None:
        self.check(o, node, _MOD_AS_SIDE_EFFECT, True)
        self.add(o, node, _MOD_AS_SIDE_EFFECT)

    @contextmanager
    def sequenced(self) -> Iterator[None]:
        """Clang's ``SequencedSubexpression``: the side effects made inside are ordered before what comes after
        it, so they count as modifications with a value from then on."""
        outer, self.side_effects = self.side_effects, []
        try:
            yield
        finally:
            for o, before in reversed(self.side_effects):
                self.add(o, o.uses[_MOD_AS_SIDE_EFFECT].node, _MOD_AS_VALUE)
                o.uses[_MOD_AS_SIDE_EFFECT] = before
            self.side_effects = outer

    # -- objects
    def object(self, node: c_ast.Node, modified: bool) -> _Object | None:
        """The variable ``node`` designates (Clang's ``getObject``: through casts and a comma's last operand; an
        assignment's target where it is modified), or None."""
        while isinstance(node, c_ast.Cast):
            node = node.expr
        if isinstance(node, c_ast.ExprList) and node.exprs:
            return self.object(node.exprs[-1], modified)
        if modified and isinstance(node, c_ast.Assignment):
            return self.object(node.lvalue, modified)
        if modified and isinstance(node, c_ast.UnaryOp) and node.op in ("++", "--"):
            return self.object(node.expr, modified)
        if not isinstance(node, c_ast.ID):
            return None
        symbol = self.variable(node.name)
        if symbol is None or symbol.kind == "enumerator":
            return None
        o = self.objects.get(id(symbol))
        if o is None:
            o = self.objects[id(symbol)] = _Object(node.name)
        return o

    def read(self, node: c_ast.Node | None) -> None:
        """``node`` evaluated for its value: a use where it is a variable (Clang's lvalue-to-rvalue conversion;
        an array's decays, no value of it is taken)."""
        if not isinstance(node, c_ast.ID):
            self.visit(node)
            return
        symbol = self.variable(node.name)
        o = self.object(node, False) if symbol is not None and symbol.type.kind != "array" else None
        if o is not None:
            self.pre_use(o, node)
            self.post_use(o, node)

    # -- the walk
    def visit(self, node: c_ast.Node | None) -> None:
        if node is None or isinstance(node, StatementExpression):  # (Clang looks at no statement inside one)
            return
        if isinstance(node, c_ast.GenericSelection):  # the association the checker chose, alone evaluated
            self.read(self.chosen(node))
            return
        if isinstance(node, c_ast.ID):  # (an object, not its value: a member's, the target of ``&``)
            return
        if isinstance(node, c_ast.Assignment):
            self.assignment(node)
        elif isinstance(node, c_ast.UnaryOp):
            self.unary(node)
        elif isinstance(node, c_ast.BinaryOp) and node.op in ("&&", "||"):
            self.logical(node)
        elif isinstance(node, c_ast.TernaryOp):
            self.conditional(node)
        elif isinstance(node, c_ast.ExprList):  # the comma operator
            self.comma(node.exprs)
        elif isinstance(node, c_ast.FuncCall):  # (its name is a function's)
            with self.sequenced():
                for arg in node.args.exprs if node.args is not None else []:
                    self.read(arg)
        elif isinstance(node, c_ast.StructRef):
            if node.type == "->":
                self.read(node.name)
            else:  # (the member of an object: no value of it is taken)
                self.visit(node.name)
        elif isinstance(node, c_ast.ArrayRef):
            self.read(node.name)
            self.read(node.subscript)
        elif isinstance(node, c_ast.Cast) and self.vector_literal(node):
            assert isinstance(node.expr, c_ast.ExprList)
            for part in node.expr.exprs:
                self.read(part)
        elif isinstance(node, c_ast.Cast):
            self.read(node.expr)
        elif isinstance(node, c_ast.CompoundLiteral):
            self.visit(node.init)
        elif isinstance(node, c_ast.BinaryOp):
            self.read(node.left)
            self.read(node.right)
        else:
            for _, child in node.children():
                self.read(child)

    def assignment(self, node: c_ast.Assignment) -> None:
        o = self.object(node.lvalue, True)
        if o is not None:
            self.pre_mod(o, node)
        self.visit(node.lvalue)  # (the variable stored to is no read; an element's index is)
        if o is not None and node.op != "=":
            self.post_use(o, node)
        self.read(node.rvalue)
        if o is not None:
            self.post_mod(o, node)

    def unary(self, node: c_ast.UnaryOp) -> None:
        if node.op in _UNEVALUATED:
            return
        if node.op == "&":
            self.visit(node.expr)
            return
        if node.op not in _UPDATES:
            self.read(node.expr)
            return
        o = self.object(node.expr, True)
        if o is None:  # (an element, a member: its indices and pointers are read)
            self.visit(node.expr)
            return
        self.pre_mod(o, node)
        self.post_mod(o, node)

    def ordered(self, first: c_ast.Node, then: list[c_ast.Node | None]) -> None:
        """``first`` before each of ``then`` (regions of their own; a None is a side not looked at), all of them
        unordered with the rest of the expression afterwards."""
        parent = self.region
        regions = [self.regions.allocate(parent) for _ in range(1 + len(then))]
        with self.sequenced():
            self.region = regions[0]
            self.read(first)
        for region, node in zip(regions[1:], then, strict=True):
            if node is not None:
                self.region = region
                self.read(node)
        self.region = parent
        for region in regions:
            self.regions.merge(region)

    def comma(self, exprs: list[c_ast.Node]) -> None:
        if len(exprs) == 1:
            self.read(exprs[0])
        elif exprs:
            parent = self.region
            before, after = self.regions.allocate(parent), self.regions.allocate(parent)
            with self.sequenced():
                self.region = before
                self.comma(exprs[:-1])
            self.region = after
            self.read(exprs[-1])
            self.region = parent
            self.regions.merge(before)
            self.regions.merge(after)

    def logical(self, node: c_ast.BinaryOp) -> None:
        value = self.constant(node.left)
        skipped = value is not None and (bool(value) if node.op == "||" else not value)
        self.ordered(node.left, [None if skipped else node.right])

    def conditional(self, node: c_ast.TernaryOp) -> None:
        value = self.constant(node.cond)
        taken = node.iftrue if value is None or value else None
        other = node.iffalse if value is None or not value else None
        self.ordered(node.cond, [taken, other])


class SequenceChecks(CheckerState):
    """Clang's -Wunsequenced for the checker's full expressions."""

    def unsequenced(self, node: c_ast.Node | None, seen: int) -> None:
        """Clang's warnings for the full expression ``node`` (an expression statement, a condition, an
        initializer, a ``return``'s value, a ``for``'s clauses), given once the function is checked; none where
        checking it made an error after the first ``seen`` diagnostics (Clang has no expression then)."""
        if node is None or self.errors_since(seen):
            return
        count = sum(1 for n in evaluated_nodes(node) if modifies(n))
        if count == 0 or (count == 1 and modifies(node)):  # (``x = e``, ``i++``: no other access is ordered after)
            return
        walk = _Sequencer(
            self.lookup,
            lambda n: const_int(n, self.enumerators, self.types),
            self.is_vector_literal,
            lambda g: self.generic_choices.get(id(g)),
        )
        walk.read(node)
        for at, message in walk.found:
            self.runtime_warning(self.operator(at), message)

    def is_vector_literal(self, cast: c_ast.Cast) -> bool:
        """Whether ``cast`` is a vector literal, ``(int4)(a, b, c, d)``: its parts are unordered, not a comma
        expression's (``check_exprs.expr_Cast``)."""
        return isinstance(cast.expr, c_ast.ExprList) and self.types.resolve(cast.to_type.type).kind == "vector"


def modifies(node: c_ast.Node) -> bool:
    """Whether ``node`` itself modifies a variable (an assignment, compound or not, ``++``, ``--``)."""
    return isinstance(node, c_ast.Assignment) or (isinstance(node, c_ast.UnaryOp) and node.op in _UPDATES)


def evaluated_nodes(node: c_ast.Node) -> Iterator[c_ast.Node]:
    """``node`` and the nodes inside it that evaluating it would evaluate: not the operand of a ``sizeof``,
    ``_Alignof`` or ``vec_step`` inside it, nor a ``_Generic`` selection's controlling expression, nor a statement
    expression's statements."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, StatementExpression):
            continue
        yield n
        if isinstance(n, c_ast.GenericSelection):  # (its associations: one of them is evaluated)
            stack.extend(association.expr for association in n.associations)
        elif not (isinstance(n, c_ast.UnaryOp) and n.op in _UNEVALUATED):
            stack.extend(child for _, child in n.children())
