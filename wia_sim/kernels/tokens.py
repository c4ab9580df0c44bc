"""Preprocessing tokens (C99 6.4) and the two passes before them: line splices and comments.

Kernel source is data: it is cut into tokens by one regular expression, never handed to a system ``cpp``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "STRING_LITERAL",
    "Splices",
    "Token",
    "TokenKind",
    "blanked",
    "closing",
    "join",
    "laid_out",
    "replace_trigraphs",
    "significant",
    "splice_lines",
    "strip_comments",
    "tokenize",
]

TokenKind = Literal["nl", "ws", "id", "num", "str", "char", "punct"]

_TOKEN_RE = re.compile(
    r"""
     (?P<nl>\n)
    |(?P<ws>[ \t\r\f\v]+)
    |(?P<id>[A-Za-z_][A-Za-z_0-9]*)
    |(?P<num>\.?[0-9](?:[eEpP][+-]|[A-Za-z_0-9.])*)
    |(?P<str>"(?:\\.|[^"\\\n])*")
    |(?P<char>'(?:\\.|[^'\\\n])*')
    |(?P<punct>%:%:|<:|:>|<%|%>|%:|\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[*/%+\-&^|]=|\#\#|[^\s])
    """,
    re.VERBOSE | re.ASCII,
)
_DIGRAPHS = {"<:": "[", ":>": "]", "<%": "{", "%>": "}", "%:": "#", "%:%:": "##"}
"""C99 6.4.6p3: alternative spellings of six punctuators, "the same in all respects" but their spelling."""
_PLAIN_RUN = re.compile(r"[^\n/\"'#%]+")
"""Text without a newline, a comment's or a literal's start, or a directive's ``#`` (``%:``): ``strip_comments``
copies it as it is."""
_TRIGRAPH_RE = re.compile(r"\?\?([=(/)'<!>-])")
_TRIGRAPHS = dict(zip("=(/)'<!>-", "#[\\]^{|}~", strict=True))
STRING_LITERAL = re.compile(r'"(?:\\.|[^"\\\n])*"' + r"|'(?:\\.|[^'\\\n])*'")
"""A string or character literal (on one line), whose text the rewrites of the source leave as written."""


@dataclass(slots=True, unsafe_hash=True)
class Token:
    """A preprocessing token. ``hide`` is the set of macros whose expansion produced it (Prosser's hide sets).

    Never changed once made (``dataclasses.replace`` makes another), but not frozen: a frozen dataclass's
    ``__init__`` sets each field through ``object.__setattr__``, five times the cost, and a large program's build
    makes hundreds of thousands of tokens."""

    kind: TokenKind
    text: str
    line: int
    column: int
    hide: frozenset[str] = frozenset()
    spelling: str = ""
    """A digraph's own spelling (``<:`` for ``[``), which ``#`` keeps; empty for every other token."""
    ends: int = 0
    """Of a token a macro's replacement list made: the physical line that macro's invocation ends on (its closing
    parenthesis; the outermost's, through nested ones), which ``__LINE__`` gives there, as Clang does; 0: none."""


def tokenize(text: str, line: int, column: int = 1) -> list[Token]:
    tokens = []
    pos = 0
    col = column
    while pos < len(text):
        m = _TOKEN_RE.match(text, pos)
        assert m is not None and m.lastgroup is not None  # the last alternative matches any character
        kind: TokenKind = m.lastgroup  # type: ignore[assignment]
        spelled = m.group()
        digraph = _DIGRAPHS.get(spelled) if kind == "punct" else None
        tokens.append(Token(kind, digraph, line, col, spelling=spelled) if digraph else Token(kind, spelled, line, col))
        pos = m.end()
        if kind == "nl":
            line += 1
            col = 1
        else:
            col += len(spelled)
    return tokens


def _would_paste(left: str, right: str) -> bool:
    """Would ``left`` and ``right`` written side by side lex as something other than these two tokens?"""
    m = _TOKEN_RE.match(left + right)
    return m is None or m.end() != len(left)


def join(tokens: Iterable[Token], placed: list[tuple[int, int, Token]] | None = None) -> str:
    """The text of ``tokens``; ``placed`` receives each token that is not white space with the line (0: the
    first) and the column where the text has it."""
    parts: list[str] = []
    prev: Token | None = None
    line, column = 0, 1
    for tok in tokens:
        if (
            prev is not None
            and prev.kind not in ("ws", "nl")
            and tok.kind not in ("ws", "nl")
            and (prev.hide or tok.hide)
            and _would_paste(prev.text, tok.text)
        ):
            parts.append(" ")
            column += 1
        text = tok.text.ljust(len(tok.spelling))  # (a digraph keeps its width: columns stay the user's)
        parts.append(text)
        if placed is not None:
            if tok.kind == "nl":
                line, column = line + 1, 1
            else:
                if tok.kind != "ws":
                    placed.append((line, column, tok))
                column += len(text)
        prev = tok
    return "".join(parts)


def blanked(text: str) -> str:
    """``text`` with every character but its newlines a blank: gone, lines and columns kept."""
    return re.sub(r"[^\n]", " ", text)


def offset(text: str, line: int, column: int) -> int:
    """The index in ``text`` of the character at ``line`` and ``column`` (both from 1), as tokens count them."""
    at = 0
    for _ in range(line - 1):
        at = text.index("\n", at) + 1
    return at + column - 1


def significant(tokens: Iterable[Token]) -> list[Token]:
    return [t for t in tokens if t.kind not in ("ws", "nl")]


def replace_trigraphs(source: str) -> str:
    """C99 5.1.1.2's first phase: each of the nine trigraphs (5.2.1.1: ``??=`` ``??(`` ``??/`` ...) becomes the
    character it stands for, everywhere, before lines are spliced (``??/`` at a line's end splices it), as Clang
    does for OpenCL C."""
    return _TRIGRAPH_RE.sub(lambda m: _TRIGRAPHS[m.group(1)], source) if "??" in source else source


Splices = dict[int, list[int]]
"""For each line that ``\\`` joined to the next ones, the columns (of the joined line) where each of those next
physical lines begins: what ``__LINE__`` needs to give the physical line of a token (as Clang does)."""


def splice_lines(source: str) -> tuple[str, Splices, dict[int, list[tuple[int, int]]]]:
    """Join ``\\``-continued lines; the consumed lines follow the joined one as blank lines. A backslash with only
    spaces or tabs after it continues its line too (Clang's extension, which GCC shares): the third result holds,
    by the joined line's number, where Clang warns of each such backslash ("backslash and newline separated by
    space"; line, column): the blank after it, or the backslash itself in a ``//`` comment; none in a ``/* */``
    one."""
    lines = source.split("\n")
    out: list[str] = []
    splices: Splices = {}
    spaced: list[tuple[int, int, int, int]] = []  # each such backslash: its line, column, joined line, offset in it
    i = 0
    while i < len(lines):
        joined = _continued(lines[i], i + 1, i + 1, spaced, "")
        consumed = 0
        while joined.endswith("\\") and i + consumed + 1 < len(lines):
            consumed += 1
            joined = joined[:-1]
            splices.setdefault(i + 1, []).append(len(joined) + 1)
            joined += _continued(lines[i + consumed], i + consumed + 1, i + 1, spaced, joined)
        if joined.endswith("\\"):
            joined = joined[:-1]
        out.append(joined)
        out.extend([""] * consumed)
        i += consumed + 1
    text = "\n".join(out)
    return text, splices, _spaced_warnings(text, spaced) if spaced else {}


def _continued(line: str, number: int, first: int, spaced: list[tuple[int, int, int, int]], before: str) -> str:
    """``line`` (line ``number``, read on into the joined line ``first`` after ``before``) with the blanks after a
    last backslash dropped, the backslash noted in ``spaced``."""
    if not line.endswith((" ", "\t", "\f", "\v")):
        return line
    kept = line.rstrip(" \t\f\v")
    if kept.endswith("\\"):
        spaced.append((number, len(kept), first, len(before) + len(kept) - 1))
        return kept
    return line


_COMMENTS_RE = re.compile(r'//|/\*|\*/|"|\'|\\.|\n')
_OPENS = {"//": ("line", "\n"), "/*": ("block", "*/"), '"': ("text", '"'), "'": ("text", "'")}
"""What opens a comment or a literal, the state it opens and what closes it (a literal also ends at its line's
end)."""


def _spaced_warnings(text: str, spaced: list[tuple[int, int, int, int]]) -> dict[int, list[tuple[int, int]]]:
    """Where Clang warns of the spaced backslashes ``spaced`` of the joined ``text``, by joined line: after the
    backslash in code and literals, at it in a ``//`` comment, nowhere in a ``/* */`` comment."""
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    targets = sorted((starts[first - 1] + offset, number, column, first) for number, column, first, offset in spaced)
    found: dict[int, list[tuple[int, int]]] = {}
    state, close = "code", ""
    events = list(_COMMENTS_RE.finditer(text))
    e = 0
    for at, number, column, first in targets:
        while e < len(events) and events[e].start() < at:  # the state at ``at``
            token = events[e].group()
            if state == "code" and token in _OPENS:
                state, close = _OPENS[token]
            elif state != "code" and (token == close or (token == "\n" and state == "text")):
                state = "code"
            e += 1
        if state != "block":
            found.setdefault(first, []).append((number, column if state == "line" else column + 1))
    return found


def strip_comments(text: str, report: Callable[[int, int, str], None]) -> str:
    """Comments become spaces; newlines inside a comment are kept where they are, except in a directive line,
    where the comment becomes one space and its newlines follow the directive's end."""
    out: list[str] = []
    i, n = 0, len(text)
    line, col = 1, 1
    directive = False  # the current line is a preprocessing directive
    line_start = True  # nothing but white space seen on this line yet
    deferred = 0
    while i < n:
        plain = _PLAIN_RUN.match(text, i)  # (what needs no look character by character: a run at a time)
        if plain is not None:
            run = plain.group()
            out.append(run)
            col += len(run)
            i = plain.end()
            if line_start and not run.isspace():
                line_start = False
            continue
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
                report(line, col, "unterminated /* comment")
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
        if line_start and (c == "#" or text.startswith("%:", i)):
            directive = True
        if not c.isspace():
            line_start = False
        out.append(c)
        col += 1
        i += 1
    out.append("\n" * deferred)
    return "".join(out)


def closing(tokens: list[Token], k: int, bracket: str = ")") -> int | None:
    """The ``)`` (``bracket``: ``]`` or ``}``) that closes the bracket at token ``k`` (None where another bracket
    closes first, or none does)."""
    depth = 0
    for j in range(k, len(tokens)):
        t = tokens[j].text
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j if t == bracket else None
    return None


def laid_out(tokens: list[Token]) -> str:
    """The tokens' text, each at its column counted from the first's where the columns allow, right after the one
    before it where nothing stands between them and they do not paste (the tokens a macro expanded share its
    name's column: the first stands there, the others one space apart)."""
    parts: list[str] = []
    at = tokens[0].column or 1
    prev: Token | None = None
    for tok in tokens:
        if tok.column is not None and tok.column > at:
            pad = tok.column - at
        elif tok.column == at and (prev is None or not _would_paste(prev.text, tok.text)):
            pad = 0
        else:
            pad = int(bool(parts))
        prev = tok
        parts.append(" " * pad + tok.text)
        at += pad + len(tok.text)
    return "".join(parts)
