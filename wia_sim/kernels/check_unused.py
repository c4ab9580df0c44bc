"""The checker's warnings about work a statement throws away, as Clang gives them by default (``-Wunused-value``,
``-Wunused-result``'s const and pure functions, ``-Wempty-body``): ``x == 1;`` (meant ``x = 1``?), ``x + 1;``,
``sin(x);``, ``a, b`` whose left operand does nothing, ``if (c);``. In Clang's words and place (where it says an
expression is: its operator, a subscript's ``]``, a member's name), measured with ``clang-15 -cc1 -x cl
-cl-std=CL1.2``; not where a macro's own tokens hold the place (``#define IS0(a) a == 0`` used as a statement:
Clang says nothing there). A mixin of ``Checker``.
"""

from __future__ import annotations

import re

from pycparser import c_ast

from wia_sim.kernels.check_operator_warnings import OperatorWarnings
from wia_sim.kernels.check_state import _coord_of
from wia_sim.kernels.signatures import BUILTINS, conversion
from wia_sim.kernels.tables import POINTER_OUT

__all__ = ["UnusedResults"]

_UNUSED, _COMMA = "expression result unused", "left operand of comma operator has no effect"
_PURE = re.compile(r"vloada?_half\d*|vload\d+")
"""The built-ins opencl-c.h declares ``__attribute__((pure))``: they read memory."""
_EQUALITY, _RELATIONAL = frozenset(("==", "!=")), frozenset(("<", "<=", ">", ">="))
_EFFECTS = frozenset(("++", "--", "p++", "p--"))


def _attribute(name: str) -> str | None:
    """The attribute opencl-c.h gives the built-in ``name``, whose result alone is its work: ``pure`` for those
    that read memory (``vloadN``, ``vload_halfN``), ``const`` for every other function of values (math, integer,
    common, geometric, relational, conversions, ``shuffle``, the work-item functions); None for those that do more
    (an atomic, a store, a copy, a fence, one with a pointer it writes through) and for ``as_type``, which is no
    function."""
    if _PURE.fullmatch(name):
        return "pure"
    if conversion(name) is not None:
        return None if name.startswith("as_") else "const"
    found = BUILTINS.get(name)
    if found is None or found.result in ("void", "pointee", "event") or name in POINTER_OUT:
        return None
    return "const"


class UnusedResults(OperatorWarnings):
    """Clang's default warnings about results nothing uses."""

    def unused_result(self, node: c_ast.Node, comma: bool = False) -> None:
        """The warning for the expression statement ``node`` (``comma``: a comma operator's left operand) whose
        value nothing uses and whose evaluation does nothing else."""
        found = None if self.quiet else self.unused(node, statement=not comma)
        if found is None:
            return
        message, at = found
        if comma and message == _UNUSED:
            message = _COMMA
        if self.from_macro(at, body=True):  # (a macro's own tokens: nothing; an argument's are the user's)
            return
        if message in (_UNUSED, _COMMA):  # (Clang's DiagRuntimeBehavior: once the function is checked)
            self.runtime_warning(at, message)
        else:
            self.warning(at, message)

    def unused(self, node: c_ast.Node, statement: bool = True) -> tuple[str, c_ast.Node] | None:
        """What Clang says of ``node``'s unused value, and where; None where evaluating it does something."""
        if isinstance(node, c_ast.Assignment) or (isinstance(node, c_ast.UnaryOp) and node.op in _EFFECTS):
            return None
        if isinstance(node, c_ast.FuncCall):
            name = node.name.name if isinstance(node.name, c_ast.ID) else None
            if name is None or name in self.functions:
                return None
            attribute = _attribute(name)
            if attribute is None:
                return None
            return f"ignoring return value of function declared with {attribute} attribute", node.name
        if isinstance(node, c_ast.Cast):
            named = node.to_type.type
            void = isinstance(named, c_ast.TypeDecl) and getattr(named.type, "names", None) == ["void"]
            return None if void else (_UNUSED, self.start(node))
        if isinstance(node, c_ast.ExprList):  # (its left operands: ``expr_ExprList``)
            return self.unused(node.exprs[-1], statement) if node.exprs else None
        if isinstance(node, c_ast.TernaryOp):
            otherwise = self.unused(node.iffalse, statement=False)
            if otherwise is None or self.unused(node.iftrue, statement=False) is None:
                return None
            return otherwise
        if isinstance(node, c_ast.BinaryOp):
            if node.op in ("&&", "||"):
                return None if self.unused(node.right, statement=False) is None else (_UNUSED, self.operator(node))
            if node.op in _EQUALITY | _RELATIONAL and not (statement and self.bracketed(node)):
                kind = "equality" if node.op in _EQUALITY else "relational"
                return f"{kind} comparison result unused", self.operator(node)
            return _UNUSED, self.operator(node)
        if isinstance(node, c_ast.UnaryOp):
            at = node if node.op in ("sizeof", "_Alignof", "vec_step") else self.operator(node)
            return _UNUSED, at
        if isinstance(node, c_ast.ArrayRef):
            return _UNUSED, self.operator_marks.get((id(node), "]"), node)
        if isinstance(node, c_ast.StructRef):  # a struct's member at its name; a vector's components at the start
            vector = node.type == "." and self.expr_quiet(node.name).kind == "vector"
            return _UNUSED, self.start(node) if vector else node.field
        if isinstance(node, c_ast.ID | c_ast.Constant):
            return _UNUSED, node
        return None

    def bracketed(self, node: c_ast.BinaryOp) -> bool:
        """Whether the statement's expression ``node`` stands in brackets of its own (a comparison there is no
        "comparison result unused" to Clang, only an unused expression)."""
        return self.operator_marks.get((id(node), "whole"), node) is not node

    def empty_body(self, node: c_ast.If) -> None:
        """``if (c);``: an ``if`` without ``else`` whose body is an empty statement on the line of its condition's
        closing bracket (Clang's -Wempty-body), at the ``;``."""
        body = node.iftrue
        if node.iffalse is not None or not isinstance(body, c_ast.EmptyStatement) or body.coord is None:
            return
        close = self.operator_marks.get((id(node), ")"), node)
        same_line = close is not node and close.coord is not None and close.coord.line == body.coord.line
        if same_line and not self.from_macro(body):
            self.warning(body, "if statement has empty body")

    def empty_loop_body(self, node: c_ast.For | c_ast.While, following: c_ast.Node | None) -> None:
        """``while (c) ; x++;``: a loop whose body is an empty statement on the line of its closing bracket, and
        whose next statement looks like its body, a block or a statement further right than the loop (Clang's
        -Wempty-body), at the ``;``."""
        body = node.stmt
        if following is None or not isinstance(body, c_ast.EmptyStatement) or body.coord is None:
            return
        close = self.operator_marks.get((id(node), ")"), node)
        if close is node or close.coord is None or close.coord.line != body.coord.line or self.from_macro(body):
            return
        column = _coord_of(node)[1]
        if not isinstance(following, c_ast.Compound) and (_coord_of(self.start(following))[1] or 0) <= (column or 0):
            return
        self.warning(body, f"{'for' if isinstance(node, c_ast.For) else 'while'} loop has empty body")
