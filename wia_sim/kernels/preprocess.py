"""The kernel language's C preprocessor: macros, conditional compilation and build options.

The simulator has its own because kernel source is data: no system ``cpp`` is run (most hosts have none, and its
behaviour varies), and ``#if`` expressions are evaluated by a small recursive-descent evaluator, never ``eval``.

Supported: object-like and function-like ``#define`` (variadic ``...``/``__VA_ARGS__`` too), ``#undef``,
``#ifdef``/``#ifndef``/``#if``/``#elif``/``#else``/``#endif`` with C's integer constant expressions and
``defined``, ``#pragma`` (ignored), ``#error``, ``#warning``, ``__LINE__``/``__FILE__``, and the OpenCL C 1.2
predefined macros. Rejected with an error: ``#include``, ``#line``, the ``#`` and ``##`` operators, and unknown
directives. Build options: ``-D NAME``, ``-D NAME=value``, ``-DNAME=value``; ``-cl-*`` options are accepted and
ignored; anything else is an error.

The output has exactly one line per input line (directive lines and skipped lines become blank lines; lines
joined by ``\\`` or by a macro invocation that spans lines are followed by the blank lines they consumed), so the
parser's line numbers are the user's. Columns are the user's on lines that expand no macro.
"""

from __future__ import annotations

import math
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

__all__ = [
    "FLOAT_EXTENSIONS",
    "PREDEFINED_MACROS",
    "Diagnostic",
    "Macro",
    "PreprocessResult",
    "format_log",
    "parse_build_options",
    "preprocess",
]

COMMAND_LINE = "<command line>"
EXPANSION_LIMIT = 500_000
"""Tokens the macro expander may process for one source; far above any real kernel, it stops exponential
macro bombs with an error instead of exhausting memory."""
"""The file name diagnostics about build options carry (gcc's spelling)."""

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Diagnostic:
    """One build-log entry; ``str()`` is the compiler-style line ``file:line:col: error: message``."""

    filename: str
    line: int | None
    column: int | None
    message: str
    severity: Severity = "error"

    def __str__(self) -> str:
        where = self.filename
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.severity}: {self.message}"

    @property
    def sort_key(self) -> tuple[int, int, int]:
        # command-line problems first, then by position
        return (0 if self.line is None else 1, self.line or 0, self.column or 0)


def format_log(diagnostics: Iterable[Diagnostic]) -> str:
    """The build log: one line per diagnostic, in source order, duplicates dropped."""
    seen: set[Diagnostic] = set()
    unique = []
    for d in diagnostics:
        if d not in seen:
            seen.add(d)
            unique.append(d)
    return "\n".join(str(d) for d in sorted(unique, key=lambda d: d.sort_key))


# ---------------------------------------------------------------------------------------------------------------
# Tokens

TokenKind = Literal["nl", "ws", "id", "num", "str", "char", "punct"]

_TOKEN_RE = re.compile(
    r"""
     (?P<nl>\n)
    |(?P<ws>[ \t\r\f\v]+)
    |(?P<id>[A-Za-z_][A-Za-z_0-9]*)
    |(?P<num>\.?[0-9](?:[eEpP][+-]|[A-Za-z_0-9.])*)
    |(?P<str>"(?:\\.|[^"\\\n])*")
    |(?P<char>'(?:\\.|[^'\\\n])*')
    |(?P<punct>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[*/%+\-&^|]=|\#\#|[^\s])
    """,
    re.VERBOSE | re.ASCII,
)


@dataclass(frozen=True, slots=True)
class Token:
    """A preprocessing token. ``hide`` is the set of macros whose expansion produced it (Prosser's hide sets)."""

    kind: TokenKind
    text: str
    line: int
    column: int
    hide: frozenset[str] = frozenset()


def _tokenize(text: str, line: int, column: int = 1) -> list[Token]:
    tokens = []
    pos = 0
    col = column
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        assert m is not None and m.lastgroup is not None  # the last alternative matches any character
        kind: TokenKind = m.lastgroup  # type: ignore[assignment]
        tokens.append(Token(kind, m.group(), line, col))
        pos = m.end()
        if kind == "nl":
            line += 1
            col = 1
        else:
            col += len(m.group())
    return tokens


def _would_paste(left: str, right: str) -> bool:
    """Would ``left`` and ``right`` written side by side lex as something other than these two tokens?"""
    m = _TOKEN_RE.match(left + right)
    return m is None or m.end() != len(left)


def _join(tokens: Iterable[Token]) -> str:
    parts: list[str] = []
    prev: Token | None = None
    for tok in tokens:
        if (
            prev is not None
            and prev.kind not in ("ws", "nl")
            and tok.kind not in ("ws", "nl")
            and (prev.hide or tok.hide)
            and _would_paste(prev.text, tok.text)
        ):
            parts.append(" ")
        parts.append(tok.text)
        prev = tok
    return "".join(parts)


def _rehome(body: Sequence[Token], at: Token, hide: frozenset[str]) -> list[Token]:
    """A macro's replacement tokens, reversed for the expander's stack, placed at the invocation ``at`` and
    hidden from the macros in ``hide``."""
    line, column = at.line, at.column
    return [Token(t.kind, t.text, line, column, (t.hide | hide) if t.hide else hide) for t in reversed(body)]


def _significant(tokens: Iterable[Token]) -> list[Token]:
    return [t for t in tokens if t.kind not in ("ws", "nl")]


# ---------------------------------------------------------------------------------------------------------------
# Macros


@dataclass(frozen=True)
class Macro:
    """A macro definition. ``params`` is None for object-like macros; a variadic macro's last parameter is
    ``__VA_ARGS__``. ``line`` is None for predefined and command-line macros."""

    name: str
    params: tuple[str, ...] | None
    body: tuple[Token, ...]
    variadic: bool = False
    line: int | None = None

    @property
    def text(self) -> str:
        return _join(self.body)


def _f32(value: float) -> str:
    return f"{value!r}f"


PREDEFINED_MACROS: dict[str, str] = {
    # OpenCL C 1.2, section 6.10
    "__OPENCL_VERSION__": "120",
    "__OPENCL_C_VERSION__": "120",
    "CL_VERSION_1_0": "100",
    "CL_VERSION_1_1": "110",
    "CL_VERSION_1_2": "120",
    "__ENDIAN_LITTLE__": "1",
    "__WIA_SIM__": "1",
    # OpenCL C 1.2, 6.1.1: "true expands to the integer constant 1 and false to 0"
    "true": "1",
    "false": "0",
    # OpenCL C 1.2, section 6.12.2.1 (math constants) and 6.12.3 (integer limits)
    "CHAR_BIT": "8",
    "SCHAR_MAX": "127",
    "SCHAR_MIN": "(-127-1)",
    "CHAR_MAX": "127",
    "CHAR_MIN": "(-127-1)",
    "UCHAR_MAX": "255",
    "SHRT_MAX": "32767",
    "SHRT_MIN": "(-32767-1)",
    "USHRT_MAX": "65535",
    "INT_MAX": "2147483647",
    "INT_MIN": "(-2147483647-1)",
    "UINT_MAX": "0xffffffffU",
    "LONG_MAX": "0x7fffffffffffffffL",
    "LONG_MIN": "(-0x7fffffffffffffffL-1)",
    "ULONG_MAX": "0xffffffffffffffffUL",
    "FLT_DIG": "6",
    "FLT_MANT_DIG": "24",
    "FLT_RADIX": "2",
    "FLT_MAX": "3.402823466e+38f",
    "FLT_MIN": "1.175494351e-38f",
    "FLT_EPSILON": "1.1920928955078125e-07f",
    "MAXFLOAT": "3.402823466e+38f",
    "M_E_F": _f32(math.e),
    "M_LOG2E_F": _f32(1 / math.log(2)),
    "M_LOG10E_F": _f32(1 / math.log(10)),
    "M_LN2_F": _f32(math.log(2)),
    "M_LN10_F": _f32(math.log(10)),
    "M_PI_F": _f32(math.pi),
    "M_PI_2_F": _f32(math.pi / 2),
    "M_PI_4_F": _f32(math.pi / 4),
    "M_1_PI_F": _f32(1 / math.pi),
    "M_2_PI_F": _f32(2 / math.pi),
    "M_2_SQRTPI_F": _f32(2 / math.sqrt(math.pi)),
    "M_SQRT2_F": _f32(math.sqrt(2)),
    "M_SQRT1_2_F": _f32(math.sqrt(0.5)),
    "M_E": repr(math.e),
    "M_LN2": repr(math.log(2)),
    "M_LN10": repr(math.log(10)),
    "M_PI": repr(math.pi),
    "M_PI_2": repr(math.pi / 2),
    "M_PI_4": repr(math.pi / 4),
    "M_1_PI": repr(1 / math.pi),
    "M_2_PI": repr(2 / math.pi),
    "M_SQRT2": repr(math.sqrt(2)),
    "M_SQRT1_2": repr(math.sqrt(0.5)),
}
"""Macros every kernel sees. INFINITY, NAN and HUGE_VALF have no literal spelling: the front end treats them as
built-in constants instead."""


# ---------------------------------------------------------------------------------------------------------------
# #if expressions

_U64 = (1 << 64) - 1
_INT_RE = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)([uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)?")
_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8, "f": 12, "v": 11, "?": 63}


class _ExprError(Exception):
    pass


@dataclass(frozen=True)
class _Value:
    """A preprocessor arithmetic value: intmax_t or uintmax_t (64-bit), as C99 6.10.1 says."""

    value: int
    unsigned: bool = False

    @staticmethod
    def of(value: int, unsigned: bool) -> _Value:
        value &= _U64
        if not unsigned and value >= 1 << 63:
            value -= 1 << 64
        return _Value(value, unsigned)


def _int_literal(text: str) -> _Value:
    m = _INT_RE.fullmatch(text)
    if m is None:
        if re.fullmatch(r"[0-9.]+([eE][+-]?[0-9]+)?[fFlLhH]?|0[xX][0-9a-fA-F.]*[pP][+-]?[0-9]+[fFlLhH]?", text):
            raise _ExprError("floating constant in preprocessor expression")
        raise _ExprError(f"invalid integer constant '{text}'")
    digits, suffix = m.group(1), (m.group(2) or "")
    if digits[:2] in ("0x", "0X"):
        value = int(digits[2:], 16)
    elif digits[:2] in ("0b", "0B"):
        value = int(digits[2:], 2)
    elif digits.startswith("0"):
        value = int(digits, 8)
    else:
        value = int(digits)
    if value > _U64:
        raise _ExprError(f"integer constant '{text}' is too large")
    return _Value(value, "u" in suffix.lower() or value >= 1 << 63)


def _char_literal(text: str) -> _Value:
    body = text[1:-1]
    if body.startswith("\\"):
        esc = body[1:]
        if esc in _ESCAPES:
            value = _ESCAPES[esc]
        elif re.fullmatch(r"x[0-9a-fA-F]{1,2}", esc):
            value = int(esc[1:], 16)
        elif re.fullmatch(r"[0-7]{1,3}", esc):
            value = int(esc, 8) & 0xFF
        else:
            raise _ExprError(f"invalid character constant {text}")
    elif len(body) == 1:
        value = ord(body)
    else:
        raise _ExprError(f"invalid character constant {text}")
    return _Value(value - 256 if value > 127 else value)


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


class _IfEvaluator:
    """Recursive descent over C's conditional-expression grammar; operands not evaluated (the unchosen side of
    ``&&``, ``||`` and ``?:``) are parsed but raise no division-by-zero errors."""

    def __init__(self, tokens: list[Token], is_defined: Callable[[str], bool]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.skip = 0
        self.is_defined = is_defined

    def evaluate(self) -> int:
        if not self.tokens:
            raise _ExprError("#if with no expression")
        result = self._conditional()
        if self.pos < len(self.tokens):
            raise _ExprError(f"missing binary operator before token '{self.tokens[self.pos].text}'")
        return result.value

    def _peek(self) -> str | None:
        return self.tokens[self.pos].text if self.pos < len(self.tokens) else None

    def _next(self) -> Token:
        if self.pos >= len(self.tokens):
            raise _ExprError("unexpected end of #if expression")
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def _expect(self, text: str) -> None:
        if self._peek() != text:
            found = self._peek()
            raise _ExprError(f"expected '{text}' in #if expression" + (f" before '{found}'" if found else ""))
        self.pos += 1

    def _conditional(self) -> _Value:
        cond = self._binary(0)
        if self._peek() != "?":
            return cond
        self.pos += 1
        take_first = cond.value != 0
        self.skip += not take_first
        first = self._conditional()
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
                left = self._apply(op, left, self._binary(level + 1))
        return left

    def _apply(self, op: str, a: _Value, b: _Value) -> _Value:
        if op in ("<<", ">>"):
            count = b.value
            if not 0 <= count < 64:
                if self.skip:
                    return _Value(0, a.unsigned)
                raise _ExprError(f"shift count {count} out of range in #if expression")
            return _Value.of(a.value << count if op == "<<" else a.value >> count, a.unsigned)
        unsigned = a.unsigned or b.unsigned
        x, y = (a.value & _U64, b.value & _U64) if unsigned else (a.value, b.value)
        if op in ("/", "%"):
            if y == 0:
                if self.skip:
                    return _Value(0, unsigned)
                raise _ExprError("division by zero in #if expression")
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
            v = self._conditional()
            self._expect(")")
            return v
        if tok.kind == "num":
            return _int_literal(tok.text)
        if tok.kind == "char":
            return _char_literal(tok.text)
        if tok.kind == "id":
            if tok.text == "defined":
                paren = self._peek() == "("
                if paren:
                    self.pos += 1
                name = self._next()
                if name.kind != "id":
                    raise _ExprError("operator 'defined' requires an identifier")
                if paren:
                    self._expect(")")
                return _Value(int(self.is_defined(name.text)))
            return _Value(0)  # C99 6.10.1p4: identifiers left after macro expansion are 0
        if tok.kind == "str":
            raise _ExprError("string literal in preprocessor expression")
        raise _ExprError(f"token '{tok.text}' is not valid in preprocessor expressions")


# ---------------------------------------------------------------------------------------------------------------
# Comments and line splices


def _splice_lines(source: str) -> str:
    """Join ``\\``-continued lines; the consumed lines follow the joined one as blank lines."""
    lines = source.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        joined = lines[i]
        consumed = 0
        while joined.endswith("\\") and i + consumed + 1 < len(lines):
            consumed += 1
            joined = joined[:-1] + lines[i + consumed]
        if joined.endswith("\\"):
            joined = joined[:-1]
        out.append(joined)
        out.extend([""] * consumed)
        i += consumed + 1
    return "\n".join(out)


def _strip_comments(text: str, report: Callable[[int, int, str], None]) -> str:
    """Comments become spaces; newlines inside a comment are kept where they are, except in a directive line,
    where the comment becomes one space and its newlines follow the directive's end."""
    out: list[str] = []
    i, n = 0, len(text)
    line, col = 1, 1
    directive = False  # the current line is a preprocessing directive
    line_start = True  # nothing but white space seen on this line yet
    deferred = 0
    while i < n:
        c = text[i]
        if c == "\n":
            out.append("\n" * (1 + deferred))
            line += 1 + deferred
            deferred = 0
            col = 1
            i += 1
            directive, line_start = False, True
            continue
        if c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            col += end - i
            i = end
            continue
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                report(line, col, "unterminated comment")
                end = n
            else:
                end += 2
            comment = text[i:end]
            newlines = comment.count("\n")
            if directive and newlines:
                out.append(" ")
                deferred += newlines
                col += 1
            else:
                out.append(re.sub(r"[^\n]", " ", comment))
                line += newlines
                if newlines:
                    col = len(comment) - comment.rfind("\n")
                    directive, line_start = False, False
                else:
                    col += len(comment)
            i = end
            continue
        if c in "\"'":
            # a literal runs to its closing quote or, unterminated, to the end of the line
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" and j + 1 < n and text[j + 1] != "\n" else 1
            j = min(j + 1, n) if j < n and text[j] == c else j
            out.append(text[i:j])
            col += j - i
            i = j
            line_start = False
            continue
        if line_start and c == "#":
            directive = True
        if not c.isspace():
            line_start = False
        out.append(c)
        col += 1
        i += 1
    out.append("\n" * deferred)
    return "".join(out)


# ---------------------------------------------------------------------------------------------------------------
# The preprocessor


@dataclass
class PreprocessResult:
    """What the preprocessor made of a source: the text to parse (one line per input line), the macros defined
    at the end, and the diagnostics (errors and warnings)."""

    text: str
    macros: dict[str, Macro]
    diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]


@dataclass
class _Conditional:
    directive: str
    line: int
    parent_active: bool
    taken: bool  # some branch of this #if has been taken already
    active: bool
    seen_else: bool = False


class _Preprocessor:
    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.macros: dict[str, Macro] = {}
        self.diagnostics: list[Diagnostic] = []
        self.budget = EXPANSION_LIMIT  # tokens the expander may still produce: a runaway macro stops here

    # -- diagnostics
    def error(self, line: int | None, column: int | None, message: str) -> None:
        filename = self.filename if line is not None else COMMAND_LINE
        self.diagnostics.append(Diagnostic(filename, line, column, message))

    def warning(self, line: int | None, column: int | None, message: str) -> None:
        filename = self.filename if line is not None else COMMAND_LINE
        self.diagnostics.append(Diagnostic(filename, line, column, message, "warning"))

    # -- definitions
    def define(self, tokens: list[Token], line: int | None, column: int | None) -> None:
        """``tokens`` is what follows ``#define``."""
        pos = 0
        while pos < len(tokens) and tokens[pos].kind == "ws":
            pos += 1
        if pos >= len(tokens) or tokens[pos].kind != "id":
            self.error(line, column, "macro names must be identifiers")
            return
        name = tokens[pos].text
        if name == "defined":
            self.error(line, column, "'defined' cannot be used as a macro name")
            return
        pos += 1
        params: list[str] | None = None
        variadic = False
        if pos < len(tokens) and tokens[pos].text == "(":
            params = []
            pos += 1
            sig = []
            while pos < len(tokens) and tokens[pos].text != ")":
                if tokens[pos].kind != "ws":
                    sig.append(tokens[pos])
                pos += 1
            if pos >= len(tokens):
                self.error(line, column, f"missing ')' in the parameter list of macro '{name}'")
                return
            pos += 1
            for k, tok in enumerate(sig):
                expect_name = k % 2 == 0
                if expect_name and tok.text == "...":
                    if k != len(sig) - 1:
                        self.error(line, column, f"'...' must be the last parameter of macro '{name}'")
                        return
                    variadic = True
                    params.append("__VA_ARGS__")
                elif expect_name and tok.kind == "id":
                    if tok.text in params:
                        self.error(line, column, f"duplicate macro parameter '{tok.text}'")
                        return
                    params.append(tok.text)
                elif not expect_name and tok.text == ",":
                    pass
                else:
                    self.error(line, column, f"expected a parameter name in macro '{name}', found '{tok.text}'")
                    return
            if sig and sig[-1].text == ",":
                self.error(line, column, f"expected a parameter name after ',' in macro '{name}'")
                return
        body = tokens[pos:]
        while body and body[0].kind == "ws":
            body = body[1:]
        while body and body[-1].kind in ("ws", "nl"):
            body = body[:-1]
        collapsed: list[Token] = []
        for tok in body:
            if tok.kind in ("ws", "nl"):
                if collapsed and collapsed[-1].kind != "ws":
                    collapsed.append(replace(tok, kind="ws", text=" "))
                continue
            if tok.text == "##":
                self.error(line, column, f"the '##' token-paste operator is not supported (macro '{name}')")
                return
            if tok.text == "#" and params is not None:
                self.error(line, column, f"the '#' stringize operator is not supported (macro '{name}')")
                return
            collapsed.append(tok)
        self.macros[name] = Macro(name, None if params is None else tuple(params), tuple(collapsed), variadic, line)

    # -- expansion
    def expand(self, tokens: list[Token]) -> list[Token]:
        """Macro-expand ``tokens`` (Prosser's algorithm without ``#``/``##``). Newlines inside a function-like
        macro's arguments are moved after the line the invocation ends on, keeping the line count."""
        stack = tokens[::-1]
        out: list[Token] = []
        deferred: list[Token] = []
        while stack:
            tok = stack.pop()
            self.budget -= 1
            if self.budget < 0:
                if self.budget == -1:
                    self.error(
                        tok.line, tok.column, f"macro expansion exceeds {EXPANSION_LIMIT} tokens (runaway macro?)"
                    )
                break
            if tok.kind == "nl":
                out.append(tok)
                out.extend(deferred)
                deferred = []
                continue
            if tok.kind != "id" or tok.text in tok.hide:
                out.append(tok)
                continue
            name = tok.text
            macro = self.macros.get(name)
            if macro is None:
                if name == "__LINE__":
                    out.append(Token("num", str(tok.line), tok.line, tok.column, tok.hide | {name}))
                elif name == "__FILE__":
                    quoted = '"' + self.filename.replace("\\", "\\\\").replace('"', '\\"') + '"'
                    out.append(Token("str", quoted, tok.line, tok.column, tok.hide | {name}))
                else:
                    out.append(tok)
                continue
            if macro.params is None:
                hide = tok.hide | {name}
                stack.extend(_rehome(macro.body, tok, hide))
                continue
            # function-like: an invocation only if '(' follows, possibly on later lines
            j = len(stack) - 1
            while j >= 0 and stack[j].kind in ("ws", "nl"):
                j -= 1
            if j < 0 or stack[j].text != "(":
                out.append(tok)
                continue
            while len(stack) - 1 > j:
                skipped = stack.pop()
                if skipped.kind == "nl":
                    deferred.append(skipped)
            stack.pop()
            collected = self._collect_arguments(stack, deferred)
            if collected is None:
                self.error(tok.line, tok.column, f"unterminated argument list invoking macro '{name}'")
                break
            args, rparen = collected
            body = self._substitute(macro, args, tok)
            if body is None:
                out.append(tok)  # arity error reported; keep the name so later errors still make sense
                continue
            hide = (tok.hide & rparen.hide) | {name}
            stack.extend(_rehome(body, tok, hide))
        out.extend(deferred)
        return out

    @staticmethod
    def _collect_arguments(stack: list[Token], deferred: list[Token]) -> tuple[list[list[Token]], Token] | None:
        args: list[list[Token]] = [[]]
        depth = 0
        while stack:
            tok = stack.pop()
            if tok.kind == "nl":
                deferred.append(tok)
                tok = replace(tok, kind="ws", text=" ")
            if tok.text == "(":
                depth += 1
            elif tok.text == ")":
                if depth == 0:
                    return args, tok
                depth -= 1
            elif tok.text == "," and depth == 0:
                args.append([])
                continue
            args[-1].append(tok)
        return None

    def _substitute(self, macro: Macro, args: list[list[Token]], at: Token) -> list[Token] | None:
        assert macro.params is not None
        params = macro.params
        if len(params) == 0 and len(args) == 1 and not _significant(args[0]):
            args = []
        if macro.variadic:
            fixed = len(params) - 1
            if len(args) < fixed:
                self._arity_error(macro, len(args), at)
                return None
            rest: list[Token] = []
            for k, arg in enumerate(args[fixed:]):
                if k:
                    rest.append(Token("punct", ",", at.line, at.column))
                rest.extend(arg)
            args = [*args[:fixed], rest]
        elif len(args) != len(params):
            self._arity_error(macro, len(args), at)
            return None
        expanded = [self._strip(self.expand(arg)) for arg in args]
        result: list[Token] = []
        for tok in macro.body:
            if tok.kind == "id" and tok.text in params:
                result.extend(expanded[params.index(tok.text)])
            else:
                result.append(tok)
        return result

    @staticmethod
    def _strip(tokens: list[Token]) -> list[Token]:
        start, end = 0, len(tokens)
        while start < end and tokens[start].kind == "ws":
            start += 1
        while end > start and tokens[end - 1].kind == "ws":
            end -= 1
        return tokens[start:end]

    def _arity_error(self, macro: Macro, given: int, at: Token) -> None:
        assert macro.params is not None
        wanted = len(macro.params) - (1 if macro.variadic else 0)
        what = f"at least {wanted}" if macro.variadic else str(wanted)
        plural = "" if wanted == 1 and not macro.variadic else "s"
        self.error(at.line, at.column, f"macro '{macro.name}' expects {what} argument{plural}, got {given}")

    # -- #if
    def condition(self, tokens: list[Token], line: int, column: int) -> bool:
        # 'defined X' is resolved before expansion so that X itself is not expanded
        resolved: list[Token] = []
        sig = tokens
        k = 0
        while k < len(sig):
            tok = sig[k]
            if tok.kind == "id" and tok.text == "defined":
                rest = [(i, t) for i, t in enumerate(sig[k + 1 :], k + 1) if t.kind != "ws"]
                if rest and rest[0][1].kind == "id":
                    resolved.append(Token("num", str(int(rest[0][1].text in self.macros)), tok.line, tok.column))
                    k = rest[0][0] + 1
                    continue
                if len(rest) >= 3 and rest[0][1].text == "(" and rest[1][1].kind == "id" and rest[2][1].text == ")":
                    resolved.append(Token("num", str(int(rest[1][1].text in self.macros)), tok.line, tok.column))
                    k = rest[2][0] + 1
                    continue
                self.error(line, column, "operator 'defined' requires an identifier")
                return False
            resolved.append(tok)
            k += 1
        expanded = _significant(self.expand(resolved))
        try:
            return _IfEvaluator(expanded, lambda name: name in self.macros).evaluate() != 0
        except _ExprError as e:
            self.error(line, column, str(e))
        except RecursionError:
            self.error(line, column, "#if expression nests too deeply")
        return False

    # -- driver
    def run(self, source: str) -> str:
        source = source.replace("\r\n", "\n").replace("\r", "\n")
        text = _strip_comments(_splice_lines(source), lambda ln, col, msg: self.error(ln, col, msg))
        lines = text.split("\n")
        out: list[str] = []
        pending: list[str] = []  # consecutive text lines, expanded together
        pending_start = 1
        stack: list[_Conditional] = []

        def flush() -> None:
            nonlocal pending
            if not pending:
                return
            tokens = _tokenize("\n".join(pending), pending_start)
            for tok in tokens:
                if tok.kind == "punct" and tok.text in ("'", '"'):
                    self.error(tok.line, tok.column, f"missing terminating {tok.text} character")
            expanded = _join(self.expand(tokens)).split("\n")
            # the expander keeps the line count; guard it anyway so coordinates can never drift
            if len(expanded) != len(pending):
                expanded = (expanded + [""] * len(pending))[: len(pending)]
            out.extend(expanded)
            pending = []

        for number, line in enumerate(lines, 1):
            active = stack[-1].active if stack else True
            stripped = line.lstrip(" \t\f\v")
            if not stripped.startswith("#"):
                if active:
                    if not pending:
                        pending_start = number
                    pending.append(line)
                else:
                    flush()
                    out.append("")
                continue
            flush()
            out.append("")
            column = len(line) - len(stripped) + 1
            self._directive(stripped[1:], number, column, stack, active)
        flush()
        for cond in stack:
            self.error(cond.line, None, f"unterminated #{cond.directive}")
        return "\n".join(out)

    def _directive(self, rest: str, line: int, column: int, stack: list[_Conditional], active: bool) -> None:
        tokens = _tokenize(rest, line, column + 1)
        while tokens and tokens[0].kind == "ws":
            tokens = tokens[1:]
        if not tokens:
            return  # the null directive
        name = tokens[0].text
        args = tokens[1:]
        sig = _significant(args)
        if name in ("if", "ifdef", "ifndef"):
            if not active:
                stack.append(_Conditional(name, line, False, True, False))
                return
            if name == "if":
                value = self.condition(args, line, column)
            elif not sig or sig[0].kind != "id":
                self.error(line, column, f"#{name} requires a macro name")
                value = False
            else:
                value = (sig[0].text in self.macros) == (name == "ifdef")
            stack.append(_Conditional(name, line, True, value, value))
            return
        if name == "elif":
            if not stack:
                self.error(line, column, "#elif without #if")
                return
            top = stack[-1]
            if top.seen_else:
                self.error(line, column, "#elif after #else")
                top.active = False
                return
            if top.parent_active and not top.taken:
                top.active = self.condition(args, line, column)
                top.taken = top.active
            else:
                top.active = False
            return
        if name == "else":
            if not stack:
                self.error(line, column, "#else without #if")
                return
            top = stack[-1]
            if top.seen_else:
                self.error(line, column, "#else after #else")
                top.active = False
                return
            top.seen_else = True
            top.active = top.parent_active and not top.taken
            top.taken = True
            return
        if name == "endif":
            if not stack:
                self.error(line, column, "#endif without #if")
                return
            stack.pop()
            return
        if not active:
            return  # other directives in skipped groups are not processed (C99 6.10p4)
        if name == "define":
            self.define(args, line, column)
        elif name == "undef":
            if not sig or sig[0].kind != "id":
                self.error(line, column, "#undef requires a macro name")
            else:
                self.macros.pop(sig[0].text, None)
        elif name == "include":
            self.error(line, column, "includes are not supported: #include (paste the code into the kernel source)")
        elif name == "pragma":
            pass  # e.g. '#pragma OPENCL EXTENSION cl_khr_fp64 : enable', '#pragma unroll'
        elif name == "error":
            self.error(line, column, f"#error {_join(args).strip()}".rstrip())
        elif name == "warning":
            self.warning(line, column, f"#warning {_join(args).strip()}".rstrip())
        elif name == "line":
            self.error(line, column, "#line is not supported")
        else:
            self.error(line, column, f"invalid preprocessing directive #{name}")


def parse_build_options(options: str) -> tuple[list[tuple[str, str]], list[Diagnostic]]:
    """Split OpenCL build options into ``-D`` definitions (``(name, value)``, value ``"1"`` when none is given)
    and diagnostics for options that are not supported. ``-cl-*`` options are accepted and ignored."""
    diagnostics: list[Diagnostic] = []

    def error(message: str) -> None:
        diagnostics.append(Diagnostic(COMMAND_LINE, None, None, message))

    try:
        words = shlex.split(options)
    except ValueError as e:
        error(f"malformed build options: {e}")
        return [], diagnostics
    defines: list[tuple[str, str]] = []
    k = 0
    while k < len(words):
        word = words[k]
        k += 1
        if word == "-D":
            if k >= len(words):
                error("macro name missing after '-D'")
                break
            spec = words[k]
            k += 1
        elif word.startswith("-D"):
            spec = word[2:]
        elif word.startswith("-cl-"):
            continue
        elif word.startswith("-I"):
            error(f"includes are not supported: build option '{word}'")
            continue
        else:
            error(f"unsupported build option '{word}'")
            continue
        name, eq, value = spec.partition("=")
        defines.append((name, value if eq else "1"))
    return defines, diagnostics


FLOAT_EXTENSIONS = frozenset({"cl_khr_fp64", "cl_khr_fp16"})
"""The optional floating-point extensions of OpenCL C 1.2 (9.3, 9.4): ``double`` and ``half`` arithmetic."""


def preprocess(
    source: str, options: str = "", filename: str = "kernel.cl", extensions: frozenset[str] = FLOAT_EXTENSIONS
) -> PreprocessResult:
    """Preprocess ``source`` with the OpenCL build ``options``; check ``result.errors`` before using the text.
    Each supported extension in ``extensions`` is a macro defined to 1 (OpenCL 1.2, 9.1)."""
    pp = _Preprocessor(filename)
    for name, value in PREDEFINED_MACROS.items():
        pp.define(_tokenize(f"{name} {value}", 0), None, None)
    for name in sorted(extensions):
        pp.define(_tokenize(f"{name} 1", 0), None, None)
    defines, option_errors = parse_build_options(options)
    pp.diagnostics.extend(option_errors)
    for name, value in defines:
        head = re.match(r"[A-Za-z_][A-Za-z_0-9]*(\([^)]*\))?$", name)
        if head is None:
            pp.error(None, None, f"macro names must be identifiers: '-D{name}'")
            continue
        pp.define(_tokenize(f"{name} {value}", 0), None, None)
    text = pp.run(source)
    return PreprocessResult(text, dict(pp.macros), pp.diagnostics)
