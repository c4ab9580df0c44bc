"""Where the operator of an operation stands in the source (``a + b``'s ``+``, a call's ``(`` and ``)``, a body's
closing brace), for the checker's diagnostics: Clang places an operator's errors there, pycparser's node at the
first operand.

Apart from the parser: the marks are read from the source's tokens once the program has parsed, and only when a
diagnostic asks for one (``OperatorMarks``).
"""

from __future__ import annotations

from pycparser import c_ast
from pycparser.c_parser import Coord

from wia_sim.kernels.grammar import SOURCE_FILE
from wia_sim.kernels.tokens import Token, closing, significant, tokenize

__all__ = ["OperatorMarks", "operator_marks"]


def operator_marks(nodes: list[c_ast.Node], text: str) -> dict[int | tuple[int, str], c_ast.Node]:
    """Where the operator of each operation among ``nodes`` (the program's, ``ast_nodes``) stands in ``text``, the
    source the program was parsed from, as a node to report at, by the id of its node: Clang places an operator's
    errors there, pycparser's node at the first operand. The operator of a binary operation, the ``?`` of a
    conditional operator, the ``=`` or ``+=`` of an assignment, the ``++``, ``*`` or ``-`` of a unary operator,
    the ``[`` of a subscript, the ``(`` of a call, the ``.`` or ``->`` of a member, the label a ``goto`` names, an
    array declarator's ``[``; a call's closing ``)`` and a vector literal's opening ``(`` too, by ``(id, ")")`` and
    ``(id, "(")``, and an expression's first token where pycparser's place is another, by ``(id, "start")``. A
    binary operator is the token before its right operand; another infix one the first such token at its first
    operand's bracket depth after that operand starts, within the statement; a prefix one the token just before its
    operand (and the brackets the operand starts with); a ``[`` the token before the subscript, a ``.`` the one
    before the member's name, a ``(`` the one after the called name."""
    marker = _Marker(text)
    for n in nodes:
        if n.coord is not None and n.coord.file == SOURCE_FILE:
            marker.visit(n)
    return marker.found


class _Marker:
    """``operator_marks``' work, node by node (``visit``): a node's marks are its own visit's, or (brackets around
    a condition or an operand, a body's closing brace) its parent's."""

    def __init__(self, text: str) -> None:
        self.found: dict[int | tuple[int, str], c_ast.Node] = {}
        self.tokens = tokens = significant(tokenize(text, 1))
        self.index = {(t.line, t.column): k for k, t in enumerate(tokens)}

    def at(self, node: c_ast.Node | None) -> int | None:
        coord = node.coord if node is not None else None
        return self.index.get((coord.line, coord.column)) if coord is not None else None

    def mark(self, key: int | tuple[int, str], k: int) -> None:
        t = self.tokens[k]
        self.found[key] = c_ast.ID(t.text, Coord(SOURCE_FILE, t.line, t.column))

    def before(self, k: int | None, op: str) -> int | None:
        """The ``op`` just before token ``k`` and its opening brackets."""
        tokens = self.tokens
        while k is not None and k > 0 and tokens[k - 1].text == "(" and op != "(":
            k -= 1
        return k - 1 if k is not None and k > 0 and tokens[k - 1].text == op else None

    def first(self, node: c_ast.Node) -> int | None:
        """The token an expression starts with (its brackets aside)."""
        if isinstance(node, c_ast.UnaryOp) and node.op not in ("p++", "p--", "sizeof", "_Alignof", "vec_step"):
            return self.before(self.first(node.expr), node.op)
        if isinstance(node, c_ast.BinaryOp):
            return self.first(node.left)
        if isinstance(node, c_ast.Assignment):
            return self.first(node.lvalue)
        if isinstance(node, c_ast.TernaryOp):
            return self.first(node.cond)
        if isinstance(node, c_ast.UnaryOp) and node.op == "sizeof":  # (the keyword, where pycparser places it)
            k = self.at(node)
            if k is not None and self.tokens[k].text == "sizeof":
                return k
        if isinstance(node, c_ast.UnaryOp):  # (a postfix ``++``)
            return self.first(node.expr)
        if isinstance(node, c_ast.ArrayRef | c_ast.StructRef | c_ast.FuncCall):
            return self.first(node.name)
        return self.at(node)

    def wrapped(self, operand: c_ast.BinaryOp | c_ast.UnaryOp, low: int, high: int) -> int | None:
        """The ``(`` of brackets around the whole of ``operand`` (a binary operation, or a prefix one), between
        tokens ``low`` and ``high`` (its operation's operator: after it for a right operand, before it for a left
        one), or None."""
        start = self.first(operand)
        inner = start if isinstance(operand, c_ast.UnaryOp) else self.before(self.first(operand.right), operand.op)
        if start is None or inner is None:
            return None
        k = start - 1
        while k > low and self.tokens[k].text == "(":
            close = closing(self.tokens, k)
            if close is not None and inner < close < high:
                return k
            k -= 1
        return None

    def visit(self, n: c_ast.Node) -> None:
        tokens, at, first, before, mark = self.tokens, self.at, self.first, self.before, self.mark
        start = first(n)
        if start is not None and start != at(n):
            mark((id(n), "start"), start)
        k: int | None = None
        if isinstance(n, c_ast.BinaryOp):  # the ``op`` just before the right operand
            k = before(first(n.right), n.op)
            if k is not None and n.op in _PRECEDENCE_CHECKED:  # (Clang's -Wparentheses: brackets silence it)
                for operand, low, high in ((n.left, -1, k), (n.right, k, len(tokens))):
                    bracket = self.wrapped(operand, low, high) if isinstance(operand, c_ast.BinaryOp) else None
                    if bracket is not None:
                        mark((id(operand), "parenthesized"), bracket)
            negated = isinstance(n.left, c_ast.UnaryOp) and n.left.op == "!"
            if k is not None and negated and n.op in _NOT_CHECKED:  # (-Wlogical-not-parentheses: the same)
                bracket = self.wrapped(n.left, -1, k)
                if bracket is not None:
                    mark((id(n.left), "parenthesized"), bracket)
        elif isinstance(n, c_ast.TernaryOp):
            k = _infix(tokens, at(n.cond), "?")
        elif isinstance(n, c_ast.Assignment):
            k = _infix(tokens, at(n.lvalue), n.op)
        elif isinstance(n, c_ast.UnaryOp) and n.op in ("p++", "p--"):
            k = _infix(tokens, at(n.expr), n.op[1:])
        elif isinstance(n, c_ast.UnaryOp) and n.op not in ("sizeof", "_Alignof", "vec_step"):
            k = start
        elif isinstance(n, c_ast.ArrayRef):
            k = before(first(n.subscript), "[")
            close = closing(tokens, k, "]") if k is not None else None
            if close is not None:
                mark((id(n), "]"), close)
        elif isinstance(n, c_ast.StructRef):
            k = before(at(n.field), n.type)
        elif isinstance(n, c_ast.Cast) and isinstance(n.expr, c_ast.ExprList) and n.expr.exprs:
            opening = first(n.expr.exprs[0])  # (a vector literal's list: its '(', before its first item's own)
            while opening is not None and opening > 0 and tokens[opening - 1].text == "(":
                opening -= 1
            if opening is not None and tokens[opening].text == "(":
                mark((id(n), "("), opening)
        elif isinstance(n, c_ast.ArrayDecl):  # (an array declarator's '[', after its name)
            k = at(n)
            k = k + 1 if k is not None and k + 1 < len(tokens) and tokens[k + 1].text == "[" else None
        elif isinstance(n, c_ast.Goto):  # (its label's name)
            k = at(n)
            k = k + 1 if k is not None and k + 1 < len(tokens) else None
        elif isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID):
            callee = at(n.name)
            after, depth = callee, 0  # (a callee in brackets of its own, ``(g)(3)``: a function's name not called)
            while (
                callee is not None
                and after is not None
                and callee - depth > 0
                and after + 1 < len(tokens)
                and tokens[callee - depth - 1].text == "("
                and tokens[after + 1].text == ")"
            ):
                depth, after = depth + 1, after + 1
            if depth and callee is not None:
                mark((id(n), "wrapped"), callee)
            opened = after is not None and after + 1 < len(tokens) and tokens[after + 1].text == "("
            k = after + 1 if opened and after is not None else None
            close = closing(tokens, k) if k is not None else None
            if close is not None:
                mark((id(n), ")"), close)
        elif isinstance(n, c_ast.FuncCall):  # (a callee of another form: the first '(' after it, ``(s.f)(2)``)
            k, depth = self.first(n.name), 0
            while k is not None and k < len(tokens) and not (tokens[k].text == "(" and depth <= 0):
                depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(tokens[k].text, 0)
                k += 1
            k = k if k is not None and k < len(tokens) else None
        if k is not None:
            mark(id(n), k)
        if isinstance(n, c_ast.FuncDef) and n.body is not None:  # (the body's closing brace)
            brace = _closing_brace(tokens, at(n.body))
            if brace is not None:
                mark((id(n.body), "}"), brace)
        if isinstance(n, c_ast.BinaryOp) and n.op in _NOT_CHECKED and n.op not in _PRECEDENCE_CHECKED:
            whole = self.wrapped(n, -1, len(tokens))  # (a comparison in brackets of its own, as a statement)
            if whole is not None:
                mark((id(n), "whole"), whole)
        if isinstance(n, c_ast.If | c_ast.While | c_ast.For):  # (its condition's closing bracket)
            keyword = at(n)
            opening = keyword + 1 if keyword is not None and keyword + 1 < len(tokens) else None
            close = closing(tokens, opening) if opening is not None and tokens[opening].text == "(" else None
            if close is not None:
                mark((id(n), ")"), close)
        if isinstance(n, c_ast.If | c_ast.While | c_ast.DoWhile | c_ast.For) and isinstance(n.cond, c_ast.Assignment):
            inner = _wrapped(tokens, first(n.cond), isinstance(n, c_ast.For))
            if inner is not None:
                mark((id(n.cond), "parenthesized"), inner)


_PRECEDENCE_CHECKED = frozenset(("&", "|", "^", "<<", ">>"))
_NOT_CHECKED = frozenset(("&", "|", "^", "<", "<=", ">", ">=", "==", "!="))
"""The binary operators whose operands Clang checks for a surprising precedence (``check_operator_warnings``): an
operand in brackets of its own is marked ``(id, "parenthesized")``; ``_NOT_CHECKED``'s, a ``!`` left operand."""


def _wrapped(tokens: list[Token], start: int | None, in_for: bool) -> int | None:
    """The ``(`` of parentheses of its own around a statement's condition whose first token (its brackets aside) is
    ``start``, or None: inside an ``if``'s, ``while``'s or ``do``'s own, or, in a ``for``, between its ``;``."""
    if start is None:
        return None
    k = start
    while k > 0 and tokens[k - 1].text == "(":
        k -= 1
    inner = k if in_for else k + 1  # (the statement's own '(' opens the run, except in a for)
    if inner >= start:
        return None
    close = closing(tokens, inner)
    if close is None or close + 1 >= len(tokens):
        return None
    if in_for:
        return inner if tokens[close + 1].text == ";" else None
    return inner if close + 1 == closing(tokens, k) else None


class OperatorMarks:
    """``operator_marks`` of a program, worked out node by node when first asked: only a diagnostic needs one, and
    tokenizing the whole source again costs a tenth of a build (marking every node of a 30,000-line program, as
    much again)."""

    def __init__(self, nodes: list[c_ast.Node], text: str) -> None:
        self._nodes, self._text = nodes, text
        self._marker: _Marker | None = None
        self._ours: dict[int, c_ast.Node] = {}  # the nodes of the source (not of an included file), by id
        self._parents: dict[int, c_ast.Node] = {}
        self._visited: set[int] = set()

    def _ensure(self) -> _Marker:
        """The source's tokens and the nodes' parents, made on the first ask."""
        if self._marker is None:
            self._marker = _Marker(self._text)
            for n in self._nodes:
                if n.coord is not None and n.coord.file == SOURCE_FILE:
                    self._ours[id(n)] = n
                for _, child in n.children():
                    self._parents[id(child)] = n
        return self._marker

    def get(self, key: int | tuple[int, str], default: c_ast.Node) -> c_ast.Node:
        marker = self._ensure()
        node = key if isinstance(key, int) else key[0]
        for n in (self._ours.get(node), self._parents.get(node)):  # (a node's marks: its own visit's or its parent's)
            if n is not None and id(n) in self._ours and id(n) not in self._visited:
                self._visited.add(id(n))
                marker.visit(n)
        return marker.found.get(key, default)

    def sizeof_written(self, node: c_ast.UnaryOp) -> tuple[str, str] | None:
        """The operand of the ``sizeof`` expression ``node`` as the source writes it, its tokens joined (``(o)``,
        ``((o))``, ``o``), and the token after the expression (None where it is no bracketed operand or single
        name)."""
        marker = self._ensure()
        tokens, k = marker.tokens, marker.at(node)
        if k is None or tokens[k].text != "sizeof" or k + 2 >= len(tokens):
            return None
        end = closing(tokens, k + 1) if tokens[k + 1].text == "(" else k + 1
        if end is None or end + 1 >= len(tokens) or (end == k + 1 and tokens[end].kind != "id"):
            return None
        return "".join(t.text for t in tokens[k + 1 : end + 1]), tokens[end + 1].text

    def bracket_after(self, node: c_ast.Node) -> c_ast.Node | None:
        """The ``(`` right after the keyword ``node`` starts with (``sizeof (x)``), as a node at its place, or
        None where another token follows."""
        marker = self._ensure()
        tokens, k = marker.tokens, marker.at(node)
        if k is None or k + 1 >= len(tokens) or tokens[k + 1].text != "(":
            return None
        t = tokens[k + 1]
        return c_ast.ID("(", Coord(SOURCE_FILE, t.line, t.column))

    def following(self, node: c_ast.Node) -> Token | None:
        """The source's token right after the one ``node`` starts with (an identifier's next), or None."""
        marker = self._ensure()
        k = marker.at(node)
        return None if k is None or k + 1 >= len(marker.tokens) else marker.tokens[k + 1]

    def spelling(self, node: c_ast.Node) -> str | None:
        """The source's token where ``node`` starts (a string literal's own, not the literals pycparser joined to
        it), or None."""
        marker = self._ensure()
        k = marker.at(node)
        return None if k is None else marker.tokens[k].text

    def next_after(self, line: int) -> tuple[int, int] | None:
        """The line and column of the first character after line ``line`` that is not blank (a ``#pragma`` line's
        next token: a block's closing brace), or None."""
        lines = self._text.split("\n")
        for number in range(line + 1, len(lines) + 1):
            text = lines[number - 1]
            if text.strip():
                return number, len(text) - len(text.lstrip()) + 1
        return None


def _infix(tokens: list[Token], k: int | None, op: str) -> int | None:
    """The first ``op`` at bracket depth 0 from token ``k`` on (the first operand's start), within the statement."""
    depth = 0
    while k is not None and k < len(tokens):
        t = tokens[k].text
        if t in ("(", "["):
            depth += 1
        elif t in (")", "]"):
            depth = max(depth - 1, 0)  # (a parenthesized operand starts inside its brackets)
        elif t == op and depth == 0:
            return k
        elif t in (";", "{", "}"):
            return None
        k += 1
    return None


def _closing_brace(tokens: list[Token], k: int | None) -> int | None:
    """The ``}`` that closes the ``{`` at token ``k``."""
    if k is None or tokens[k].text != "{":
        return None
    depth = 0
    for j in range(k, len(tokens)):
        depth += {"{": 1, "}": -1}.get(tokens[j].text, 0)
        if depth == 0:
            return j
    return None
