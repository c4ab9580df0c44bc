"""``#if`` expressions: C99 6.10.1's integer constant expressions over intmax_t/uintmax_t, by recursive descent
(never ``eval``). Clang's SPIR targets, which PoCL and Oclgrind compile for, make intmax_t 128 bits wide: there
``0xFFFFFFFFFFFFFFFF == -1`` is false and ``(1 << 63) < 0`` is false (a sweep of both devices); literals stay
within 64 bits."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from wia_sim.kernels.literals import char_constant
from wia_sim.kernels.tokens import Token

__all__ = ["ExprError", "IfEvaluator"]

_U64 = (1 << 64) - 1  # the largest literal
_BITS = 128  # intmax_t's width
_UMAX = (1 << _BITS) - 1
_INT_RE = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)([uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)?")


class ExprError(Exception):
    """An ``#if`` expression's error in Clang's words, at ``at`` (a token of the line), else at the line's end."""

    def __init__(self, message: str, at: Token | None = None) -> None:
        super().__init__(message)
        self.at = at


@dataclass(frozen=True)
class _Value:
    """A preprocessor arithmetic value: intmax_t or uintmax_t (``_BITS`` wide), as C99 6.10.1 says."""

    value: int
    unsigned: bool = False

    @staticmethod
    def of(value: int, unsigned: bool) -> _Value:
        value &= _UMAX
        if not unsigned and value >= 1 << (_BITS - 1):
            value -= 1 << _BITS
        return _Value(value, unsigned)


def _int_literal(tok: Token) -> _Value:
    text = tok.text
    m = _INT_RE.fullmatch(text)
    if m is None:
        if re.fullmatch(r"[0-9.]+([eE][+-]?[0-9]+)?[fFlLhH]?|0[xX][0-9a-fA-F.]*[pP][+-]?[0-9]+[fFlLhH]?", text):
            raise ExprError("floating point literal in preprocessor expression", tok)
        raise ExprError(f"invalid integer constant '{text}'", tok)
    digits, suffix = m.group(1), (m.group(2) or "")
    if digits[:2] in ("0x", "0X"):
        value = int(digits[2:], 16)
    elif digits[:2] in ("0b", "0B"):
        value = int(digits[2:], 2)
    elif digits.startswith("0"):
        value = int(digits, 8)
    else:
        value = int(digits)
    if value > _U64:  # (Clang says nothing in #if, and keeps the low 64 bits)
        return _Value(value & _U64, True)
    return _Value(value, "u" in suffix.lower())  # (below 2**64: an intmax_t holds any, signed)


def _char_literal(tok: Token) -> _Value:
    try:
        return _Value(char_constant(tok.text))
    except ValueError as e:
        raise ExprError(str(e), tok) from None


_BINARY_PRECEDENCE: list[tuple[str, ...]] = [
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", "<=", ">", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
]


class IfEvaluator:
    """Recursive descent over C's conditional-expression grammar; operands not evaluated (the unchosen side of
    ``&&``, ``||`` and ``?:``) are parsed but raise no division-by-zero errors."""

    def __init__(self, tokens: list[Token], is_defined: Callable[[str], bool]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.skip = 0
        self.is_defined = is_defined
        self.warnings: list[tuple[Token, str]] = []
        """Clang's warnings of the evaluation (a shift out of range: "integer overflow"), at their tokens."""

    def evaluate(self) -> int:
        if not self.tokens:
            raise ExprError("expected value in expression")  # (Clang's words, at the end of the line)
        result = self._comma()
        if self.pos < len(self.tokens):
            found = self.tokens[self.pos]
            raise ExprError("token is not a valid binary operator in a preprocessor subexpression", found)
        return result.value

    def _peek(self) -> str | None:
        return self.tokens[self.pos].text if self.pos < len(self.tokens) else None

    def _next(self) -> Token:
        if self.pos >= len(self.tokens):
            raise ExprError("expected value in expression")
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def _expect(self, text: str) -> None:
        if self._peek() != text:
            found = self.tokens[self.pos] if self.pos < len(self.tokens) else None
            where = " in preprocessor expression" if text == ")" else ""  # (Clang's two wordings)
            raise ExprError(f"expected '{text}'{where}", found)
        self.pos += 1

    def _comma(self) -> _Value:
        """C99 6.6p3 allows no comma outside an unevaluated operand; Clang takes one in ``#if`` (as an
        extension, warned of only with -pedantic), as do the devices: ``#if (1, 0)`` is false."""
        value = self._conditional()
        while self._peek() == ",":
            self.pos += 1
            value = self._conditional()
        return value

    def _conditional(self) -> _Value:
        cond = self._binary(0)
        if self._peek() != "?":
            return cond
        self.pos += 1
        take_first = cond.value != 0
        self.skip += not take_first
        first = self._comma()
        self.skip -= not take_first
        self._expect(":")
        self.skip += take_first
        second = self._conditional()
        self.skip -= take_first
        unsigned = first.unsigned or second.unsigned
        return _Value.of((first if take_first else second).value, unsigned)

    def _binary(self, level: int) -> _Value:
        if level == len(_BINARY_PRECEDENCE):
            return self._unary()
        left = self._binary(level + 1)
        while (op := self._peek()) in _BINARY_PRECEDENCE[level]:
            assert op is not None
            at = self.tokens[self.pos]
            self.pos += 1
            if op in ("&&", "||"):
                short = (left.value == 0) if op == "&&" else (left.value != 0)
                self.skip += short
                right = self._binary(level + 1)
                self.skip -= short
                if op == "&&":
                    left = _Value(int(left.value != 0 and right.value != 0))
                else:
                    left = _Value(int(left.value != 0 or right.value != 0))
            else:
                left = self._apply(at, left, self._binary(level + 1))
        return left

    def _apply(self, at: Token, a: _Value, b: _Value) -> _Value:
        op = at.text
        if op in ("<<", ">>"):
            count = b.value
            if not 0 <= count < _BITS:  # (Clang's warning, and 0)
                if not self.skip:
                    self.warnings.append((at, "integer overflow in preprocessor expression"))
                return _Value(0, a.unsigned)
            return _Value.of(a.value << count if op == "<<" else a.value >> count, a.unsigned)
        unsigned = a.unsigned or b.unsigned
        x, y = (a.value & _UMAX, b.value & _UMAX) if unsigned else (a.value, b.value)
        if op in ("/", "%"):
            if y == 0:
                if self.skip:
                    return _Value(0, unsigned)
                raise ExprError("division by zero in preprocessor expression", at)
            quotient = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)  # C truncates toward zero
            return _Value.of(quotient if op == "/" else x - y * quotient, unsigned)
        compare = {
            "==": x == y,
            "!=": x != y,
            "<": x < y,
            "<=": x <= y,
            ">": x > y,
            ">=": x >= y,
        }
        if op in compare:
            return _Value(int(compare[op]))
        result = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y}[op]
        return _Value.of(result, unsigned)

    def _unary(self) -> _Value:
        op = self._peek()
        if op in ("+", "-", "~", "!"):
            self.pos += 1
            v = self._unary()
            if op == "-":
                return _Value.of(-v.value, v.unsigned)
            if op == "~":
                return _Value.of(~v.value, v.unsigned)
            if op == "!":
                return _Value(int(v.value == 0))
            return v
        return self._primary()

    def _primary(self) -> _Value:
        tok = self._next()
        if tok.text == "(":
            v = self._comma()
            self._expect(")")
            return v
        if tok.kind == "num":
            return _int_literal(tok)
        if tok.kind == "char":
            return _char_literal(tok)
        if tok.kind == "id":
            if tok.text == "defined":
                paren = self._peek() == "("
                if paren:
                    self.pos += 1
                name = self.tokens[self.pos] if self.pos < len(self.tokens) else None
                if name is None or name.kind != "id":
                    raise ExprError("macro name missing", name)
                self.pos += 1
                if paren:
                    self._expect(")")
                return _Value(int(self.is_defined(name.text)))
            return _Value(0)  # C99 6.10.1p4: identifiers left after macro expansion are 0
        raise ExprError("invalid token at start of a preprocessor expression", tok)
