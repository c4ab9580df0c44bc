"""The checker's warnings about binary operators that Clang gives by default (``-Wparentheses``,
``-Wlogical-not-parentheses``, ``-Wtautological-compare``, ``-Wtautological-constant-out-of-range-compare``,
``-Wconstant-logical-operand``): code that builds and runs, and most likely does not mean what it says. Each in
Clang's words and place, measured with ``clang-15 -cc1 -x cl -cl-std=CL1.2`` (PoCL 3.1's and Oclgrind 21.10's
front end). Brackets of their own around an operand silence some of them: pycparser drops them, the source's
tokens tell (``operator_marks.OperatorMarks``, asked only where the tree shows a candidate). A mixin of ``Checker``.
"""

from __future__ import annotations

import re

from pycparser import c_ast

from wia_sim.kernels.check_exprs import _COMPARISONS
from wia_sim.kernels.check_state import CheckerState, _coord_of
from wia_sim.kernels.constant_conversions import value_range
from wia_sim.kernels.ctype import CType, common_type, promoted
from wia_sim.kernels.ctype import lookup as ctype_lookup
from wia_sim.kernels.types import FLOATS, TypeInfo, const_int

__all__ = ["OperatorWarnings"]

_BITWISE = frozenset({"&", "|", "^"})
_PLAIN_OPERAND = re.compile(r"(?:[\w()\[\].]|->)+")
"""An operand Clang writes back as the source's tokens joined: names, members, elements, brackets."""
_FLIPPED = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}
_SELF = {"==": "true", "<=": "true", ">=": "true", "!=": "false", "<": "false", ">": "false"}
"""What a comparison of a value with itself gives."""


def _same(a: c_ast.Node, b: c_ast.Node) -> bool:
    """Whether two operands name the same object alike: a variable, or an element of one at the same variable or
    constant index (Clang's ``isSameComparisonOperand``; a vector's component, a constant, ``*p`` or a cast, not)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, c_ast.ID):
        return bool(a.name == b.name)
    if isinstance(a, c_ast.ArrayRef):
        return _same(a.name, b.name) and _same_index(a.subscript, b.subscript)
    return False


def _same_index(a: c_ast.Node, b: c_ast.Node) -> bool:
    """Whether two subscripts are the same variable or the same constant (``o[n + 1]`` twice is not, to Clang)."""
    if isinstance(a, c_ast.Constant) and isinstance(b, c_ast.Constant):
        value = const_int(a, {})
        return value is not None and value == const_int(b, {})  # (by value: ``0x1`` is ``1``)
    return isinstance(a, c_ast.ID) and _same(a, b)


def _boolean(node: c_ast.Node) -> bool:
    """Whether ``node`` gives 0 or 1 alone (Clang's ``isKnownToHaveBooleanValue``): a comparison, ``!``, ``&&``
    or ``||``."""
    if isinstance(node, c_ast.BinaryOp):
        return node.op in _COMPARISONS or node.op in ("&&", "||")
    return isinstance(node, c_ast.UnaryOp) and node.op == "!"


def _direct(node: c_ast.Node) -> bool:
    """Whether the type of ``node`` is what its value ranges over: a variable, an element, a member, a cast (not
    an operation, whose range Clang works out otherwise)."""
    return isinstance(node, c_ast.ID | c_ast.ArrayRef | c_ast.StructRef | c_ast.Cast)


class OperatorWarnings(CheckerState):
    """Clang's default warnings about a binary operator's operands."""

    def operator_warnings(self, node: c_ast.BinaryOp, left: TypeInfo, right: TypeInfo) -> None:
        self.precedence(node, left)
        op = node.op
        if op in ("&&", "||"):
            self.constant_operand(node, left, right)
        if op in _COMPARISONS or op in _BITWISE:
            self.logical_not(node)
        if op in _COMPARISONS:
            self.self_comparison(node, left)
            self.out_of_range(node, left, right)
        if op == "/":
            self.pointer_size_division(node)

    def bare(self, operand: c_ast.Node) -> bool:
        """Whether ``operand`` stands in no brackets of its own (``operator_marks``)."""
        return self.operator_marks.get((id(operand), "parenthesized"), operand) is operand

    def from_macro(self, node: c_ast.Node, body: bool = False) -> bool:
        """Whether a macro's expansion made ``node``'s first token (``body``: its replacement list did, not an
        argument's)."""
        line, column = _coord_of(node)
        return line is not None and self.expanded(line, column, body)

    def precedence(self, node: c_ast.BinaryOp, left: TypeInfo) -> None:
        """Clang's -Wparentheses warnings (on by default) for a precedence that surprises: a comparison beside a
        bitwise operator (``x & 1 == 0``; not where both or neither operand is one, nor beside another bitwise
        operation), at the bitwise operator; ``+`` or ``-`` inside a shift (``1 << n - 1``; a ``<<`` of integers
        only), at the ``+``. An operand in brackets of its own says nothing."""
        op = node.op
        if op not in _BITWISE and op not in ("<<", ">>"):
            return
        watched = _COMPARISONS if op in _BITWISE else ("+", "-")
        if not any(isinstance(b, c_ast.BinaryOp) and b.op in watched for b in (node.left, node.right)):
            return  # (the usual case, decided without the source's tokens)
        sides = tuple(b if isinstance(b, c_ast.BinaryOp) and self.bare(b) else None for b in (node.left, node.right))
        if op in _BITWISE:
            compared = [b is not None and b.op in _COMPARISONS for b in sides]
            if compared[0] == compared[1] or any(b is not None and b.op in _BITWISE for b in sides):
                return
            other = sides[0] if compared[0] else sides[1]
            assert other is not None
            self.warning(
                self.operator(node), f"{op} has lower precedence than {other.op}; {other.op} will be evaluated first"
            )
        elif op == ">>" or (left.kind == "scalar" and left.name not in FLOATS):  # (a << of integers only)
            for b in sides:
                if b is not None and b.op in ("+", "-"):
                    self.warning(
                        self.operator(b),
                        f"operator '{op}' has lower precedence than '{b.op}'; '{b.op}' will be evaluated first",
                    )

    def constant_operand(self, node: c_ast.BinaryOp, left: TypeInfo, right: TypeInfo) -> None:
        """``x && 2``, ``x || 0``: an integer constant (not a bool, an enumerator, nor a macro's 0 or 1) after a
        logical operator whose left operand is an integer (Clang's -Wconstant-logical-operand: a bitwise operator
        meant?), at the operator."""
        integers = all(t.kind == "scalar" and t.name not in FLOATS and t.name != "bool" for t in (left, right))
        if not integers or (isinstance(node.right, c_ast.ID) and node.right.name in self.enumerators):
            return
        value = const_int(node.right, self.enumerators, self.types)
        if value is None or (value in (0, 1) and self.from_macro(node.right)):
            return
        if self.from_macro(self.operator(node)):  # (an operator a macro wrote, or an argument of one: nothing)
            return
        self.warning(self.operator(node), f"use of logical '{node.op}' with constant operand")

    def logical_not(self, node: c_ast.BinaryOp) -> None:
        """``!x == 2``, ``!x & m``: a ``!`` on the left operand alone, in no brackets of its own, beside a right
        operand that is no truth value (Clang's -Wlogical-not-parentheses), at the ``!``."""
        x = node.left
        if not (isinstance(x, c_ast.UnaryOp) and x.op == "!") or _boolean(node.right) or not self.bare(x):
            return
        what = "comparison" if node.op in _COMPARISONS else "bitwise operator"
        self.warning(self.operator(x), f"logical not is only applied to the left hand side of this {what}")

    def self_comparison(self, node: c_ast.BinaryOp, left: TypeInfo) -> None:
        """``x == x``, ``a[i] < a[i]``: a value compared with itself (not a floating one, which may be a NaN; not
        a macro's), always true or false (Clang's -Wtautological-compare), at the operator."""
        if left.name in FLOATS or not _same(node.left, node.right):
            return
        if self.from_macro(node.left) or self.from_macro(node.right):
            return
        self.warning(self.operator(node), f"self-comparison always evaluates to {_SELF[node.op]}")

    def pointer_size_division(self, node: c_ast.BinaryOp) -> None:
        """``sizeof(p) / sizeof(p[0])`` with a pointer ``p``: an array's count meant, a pointer's size divided
        (Clang's -Wsizeof-pointer-div), at the ``/``; the first ``sizeof`` in no brackets of its own, the second of
        the type ``p`` points to. Said where the operand is a name, a member or an element, which Clang writes as
        the source does; not of an operation, which it writes with spaces of its own."""
        x, y = node.left, node.right
        sized = (isinstance(n, c_ast.UnaryOp) and n.op == "sizeof" for n in (x, y))
        if not all(sized) or isinstance(x.expr, c_ast.Typename):
            return
        p = self.expr_quiet(x.expr)
        t = self.types.resolve(y.expr.type) if isinstance(y.expr, c_ast.Typename) else self.expr_quiet(y.expr)
        if p.kind != "pointer" or p.target is None or t.kind in ("pointer", "unknown"):
            return
        if (p.target.kind, p.target.name, p.target.width) != (t.kind, t.name, t.width):
            return
        written = self.operator_marks.sizeof_written(x)
        if written is None or written[1] != "/" or not _PLAIN_OPERAND.fullmatch(written[0]):
            return
        self.warning(
            self.operator(node), f"'sizeof {written[0]}' will return the size of the pointer, not the array itself"
        )

    def out_of_range(self, node: c_ast.BinaryOp, left: TypeInfo, right: TypeInfo) -> None:
        """``c == 300`` with a ``char c``, ``(x > 1) == 2``: an integer constant outside every value the other
        operand can take (its type's range; a truth value's 0 and 1), so that the comparison always gives one
        answer (Clang's -Wtautological-constant-out-of-range-compare, once the function is checked), at the
        operator. Where the comparison converts to an unsigned type a signed operand's values, Clang's ranges are
        not intervals: nothing is said."""
        sides = ((node.left, left, node.right, right, False), (node.right, right, node.left, left, True))
        for other, t, constant, ct, flipped in sides:
            value = const_int(constant, self.enumerators, self.types)
            if value is None or const_int(other, self.enumerators, self.types) is not None:
                continue
            if t.kind != "scalar" or ct.kind != "scalar" or t.name in FLOATS or ct.name in FLOATS:
                return
            boolean = _boolean(other)
            if not boolean and not _direct(other):
                return
            own, given = ctype_lookup(t.name), ctype_lookup(ct.name)
            common = _promoted_common(own, given)
            if common.kind == "uint" and own.kind != "uint" and not boolean:
                return
            low, high = (0, 1) if boolean else value_range(own.name)
            if common.kind == "uint":
                value %= 1 << (common.dtype.itemsize * 8)
            if low <= value <= high:
                return
            op = _FLIPPED[node.op] if flipped else node.op  # (as ``other op constant``)
            above = value > high
            result = _result(op, above)
            shown = "boolean expression" if boolean else f"expression of type {self.clang_type(other, t, True)}"
            self.runtime_warning(
                self.operator(node),
                f"result of comparison of constant {value} with {shown} is always {'true' if result else 'false'}",
            )
            return


def _result(op: str, above: bool) -> bool:
    """What ``x op c`` gives for every ``x`` when ``c`` lies above (else below) all of them."""
    if op in ("==", "!="):
        return op == "!="
    smaller = op in ("<", "<=")  # x < c: true when c lies above
    return smaller == above


def _promoted_common(a: CType, b: CType) -> CType:
    """The type a comparison of ``a`` and ``b`` converts both to (C99 6.3.1.8, after the integer promotions)."""
    return common_type(promoted(a), promoted(b))
