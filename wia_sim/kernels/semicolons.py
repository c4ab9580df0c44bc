"""Clang's recovery from a statement or declaration without its ``;``: its words, and where it goes on parsing, so
that one missing ``;`` does not hide the function's other errors.

Clang reports the ``;`` missing just after the last token, then (``Parser::ExpectAndConsumeSemi`` and the skips
its callers make; each case measured with clang 15):

- an expression statement whose expression parsed ("expected ';' after expression"): it goes on as if the ``;``
  were there, the next line a statement of its own;
- an expression statement in error already as it is parsed, as a call of a name nothing declares is (``FOO(x)``
  of a macro the build did not define): no ``;`` error; the tokens up to the next ``;`` (or the ``}`` that closes
  the block) are skipped, their errors unreported. Only the checker tells the two apart (``ExpressionRepair``);
- ``return``, ``break``, ``continue``, ``goto`` and a do-while ("expected ';' after return statement", ...): the
  tokens up to the next ``;`` skipped; a ``return`` whose value does not follow on the next line is "expected
  expression" there, and skipped whole;
- a declaration ("expected ';' at end of declaration"; at file scope "expected ';' after top level declarator"):
  it goes on where the next token may begin a declaration, else skips through the next ``;``;
- a member of a struct or union ("expected ';' at end of declaration list"; a warning before the ``}``): the
  tokens through the next ``;`` skipped (the next member lost).

A repair edits the text without moving any token it keeps: skipped tokens become blanks (newlines kept), and the
``;`` goes where the skip ended on one, else just after the statement's last token, where nothing but blanks
follows on its line (a ``}`` right after it, the rare exception, moves one column).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from wia_sim.kernels.tokens import Token

__all__ = ["ExpressionRepair", "Missing", "invalid_at_parse", "missing", "repaired"]

Mode = Literal["continue", "skip", "expression"]
Place = tuple[int, int]
"""A line and column."""
_SKIPPING_STATEMENTS = ("return", "break", "continue", "goto")
_CONTROL = ("if", "while", "for", "switch")
_OPENERS = {"(": ")", "[": "]", "{": "}"}
_FILE_SCOPE_ONLY = frozenset({"__kernel", "kernel"})
"""Words that begin a declaration in a block but not, after a declaration without its ``;``, at file scope (where
Clang skips a whole kernel after one: measured)."""


@dataclass(frozen=True)
class Missing:
    """A ``;`` missing just after ``tokens[k - 1]``: Clang's message and how it goes on (``mode``)."""

    line: int
    column: int
    message: str
    severity: Literal["error", "warning"]
    mode: Mode
    start: Place
    """Where the statement without its ``;`` begins."""
    at: Place
    """Where the repair's ``;`` goes (and its skip begins): just after the last token, or at a ``return`` that has
    no value (its whole statement skipped)."""
    filler: str = ";"
    """What the repair puts at ``at``: a ``;``, or for a ``return`` skipped whole an empty block (a statement
    that draws no warning of its own, as an empty ``if`` body would)."""


@dataclass(frozen=True)
class ExpressionRepair:
    """An expression statement taken as parsed (its ``;`` put in, its error reported). If the checker finds the
    expression in error as Clang's parser would (``invalid_at_parse``), the front end parses again with its
    ``at`` among the invalid ones: no error for the ``;``, the tokens after it skipped."""

    at: Place
    start: Place
    at_once: frozenset[Place]
    """Where the names stand that Clang's parser resolves as it meets them (``_checked_at_once``): one of them
    undeclared is an error at once; any other undeclared name is typo-corrected later, when the statement is
    done."""


def missing(tokens: list[Token], k: int, declares: Callable[[Token], bool]) -> Missing | None:
    """The ``;`` missing before ``tokens[k]`` (the next token: on a later line than the one before, or a ``}``),
    where a statement, a declaration or a member ends; None where it is no such place (inside brackets, an
    initializer list, an enum)."""
    if k == 0 or k > len(tokens):
        return None
    before = tokens[k - 1]
    line, column = before.line, before.column + len(before.text)
    after = tokens[k] if k < len(tokens) else None
    if before.text == "return" and after is not None:  # (its value may be on the next line: none there)
        where = (before.line, before.column)
        return Missing(after.line, after.column, "expected expression", "error", "skip", where, where, "{}")
    block = _innermost_brace(tokens, k)
    if block == -2:  # inside parentheses or brackets
        return None
    if block >= 0:
        context = _brace_kind(tokens, block)
        if context == "members":
            closing = after is not None and after.text == "}"
            severity: Literal["error", "warning"] = "warning" if closing else "error"
            return Missing(
                line, column, "expected ';' at end of declaration list", severity, "skip", (line, 1), (line, column)
            )
        if context != "block":
            return None
    start = _statement_start(tokens, k, block)
    if start is None:
        return None
    first = tokens[start]
    at = (first.line, first.column)
    if block < 0:  # file scope: a declaration
        goes_on = after is not None and declares(after) and after.text not in _FILE_SCOPE_ONLY
        mode: Mode = "continue" if goes_on else "skip"
        return Missing(line, column, "expected ';' after top level declarator", "error", mode, at, (line, column))
    if first.text in _SKIPPING_STATEMENTS:
        return Missing(line, column, f"expected ';' after {first.text} statement", "error", "skip", at, (line, column))
    if first.text == "while" and _ends_do_while(tokens, start, k, block):
        return Missing(line, column, "expected ';' after do/while statement", "error", "skip", at, (line, column))
    if declares(first):
        mode = "continue" if after is not None and declares(after) else "skip"
        return Missing(line, column, "expected ';' at end of declaration", "error", mode, at, (line, column))
    return Missing(line, column, "expected ';' after expression", "error", "expression", at, (line, column))


def repaired(text: str, tokens: list[Token], k: int, found: Missing, invalid: bool) -> str:
    """``text`` as Clang goes on after ``found`` (``invalid``: an expression statement in error, skipped)."""
    starts = _line_starts(text)
    at = starts[found.at[0] - 1] + found.at[1] - 1
    skip = found.mode == "skip" or (found.mode == "expression" and invalid)
    if skip:
        end, semicolon = _skipped(tokens, k)
        stop = len(text) if end is None else starts[end.line - 1] + end.column - 1
        text = text[:at] + "".join(c if c == "\n" else " " for c in text[at:stop]) + text[stop:]
        if semicolon and found.filler == ";":  # (the skip's own ';' ends the statement where it stands)
            return text
    fill = found.filler
    if text[at : at + len(fill)] == " " * len(fill):
        return text[:at] + fill + text[at + len(fill) :]
    return text[:at] + fill + text[at:]


def invalid_at_parse(repair: ExpressionRepair, errors: list[tuple[int, int, str]]) -> bool:
    """Whether Clang's parser would have found the statement of ``repair`` in error before its ``;``, from the
    checker's ``errors`` (line, column, message) inside it: any but an undeclared name it resolves later."""
    for line, column, message in errors:
        if not repair.start <= (line, column) < repair.at:
            continue
        if message.startswith("use of undeclared identifier") and (line, column) not in repair.at_once:
            continue
        return True
    return False


def expression_repair(
    tokens: list[Token], k: int, found: Missing, declares: Callable[[Token], bool]
) -> ExpressionRepair:
    """The ``ExpressionRepair`` of the expression statement ``found`` ends, before ``tokens[k]``."""
    start = next(j for j in range(k) if (tokens[j].line, tokens[j].column) >= found.start)
    return ExpressionRepair(found.at, found.start, _checked_at_once(tokens, start, k, declares))


def _checked_at_once(tokens: list[Token], start: int, k: int, declares: Callable[[Token], bool]) -> frozenset[Place]:
    """The places of the names in ``tokens[start:k]`` that Clang's parser resolves as it meets them (an undeclared
    one is an error there, the expression invalid): a name called, any inside a subscript, brackets of their own or
    ``sizeof``'s, a cast's operand. Elsewhere (a call's arguments, an operator's operands) a name is resolved once
    the statement is done (Clang's delayed typo correction; each measured with clang 15)."""
    at_once: set[Place] = set()
    now: list[bool] = []  # for each bracket open: whether what is inside is resolved at once
    for j in range(start, k):
        t = tokens[j]
        if t.text == "(":
            prev = tokens[j - 1] if j > start else None
            call = prev is not None and (
                (prev.kind == "id" and not declares(prev) and prev.text != "sizeof")
                or prev.text == "]"
                or (prev.text == ")" and not _cast(tokens, j - 1, declares))
            )
            now.append(not call)
        elif t.text == "[":
            now.append(True)
        elif t.text in (")", "]"):
            if now:
                now.pop()
        elif t.kind == "id" and not declares(t):
            called = j + 1 < k and tokens[j + 1].text == "("
            cast = j > start and tokens[j - 1].text == ")" and _cast(tokens, j - 1, declares)
            if called or cast or any(now):
                at_once.add((t.line, t.column))
    return frozenset(at_once)


def _cast(tokens: list[Token], close: int, declares: Callable[[Token], bool]) -> bool:
    """Whether the ``)`` at ``tokens[close]`` closes a cast's type name (only type words and ``*`` inside)."""
    j = close - 1
    while j >= 0 and (declares(tokens[j]) or tokens[j].text == "*"):
        j -= 1
    return j >= 0 and j < close - 1 and tokens[j].text == "("


def _innermost_brace(tokens: list[Token], k: int) -> int:
    """The index of the ``{`` innermost around ``tokens[k]``: -1 at file scope, -2 inside ``(`` or ``[``."""
    opened: list[int] = []
    for j in range(k):
        t = tokens[j].text
        if t in _OPENERS:
            opened.append(j)
        elif opened and t == _OPENERS[tokens[opened[-1]].text]:
            opened.pop()
    if not opened:
        return -1
    return opened[-1] if tokens[opened[-1]].text == "{" else -2


def _brace_kind(tokens: list[Token], j: int) -> str:
    """What the ``{`` at ``tokens[j]`` opens: "members" (a struct's or union's), "list" (an initializer's, an
    enum's) or "block"."""
    before = [t.text for t in tokens[max(0, j - 2) : j]]
    if (before and before[-1] in ("struct", "union")) or (len(before) == 2 and before[0] in ("struct", "union")):
        return "members"
    if (before and before[-1] in ("enum", "=", ",", "{", "(", "return")) or (len(before) == 2 and before[0] == "enum"):
        return "list"
    return "block"


def _statement_start(tokens: list[Token], k: int, block: int) -> int | None:
    """The first token of the statement (or declaration) that ``tokens[k - 1]`` ends, past the ``if (...)``,
    ``else``, ``do`` and labels that control it."""
    depth = 0
    s = k - 1
    while True:
        depth += {")": 1, "]": 1, "(": -1, "[": -1}.get(tokens[s].text, 0)
        if s <= block + 1 or (depth == 0 and tokens[s - 1].text in (";", "{", "}")):
            break
        s -= 1
    while s < k - 1:
        t = tokens[s].text
        if t in _CONTROL and tokens[s + 1].text == "(":
            shut = _matching(tokens, s + 1)
            if shut is None or shut >= k - 1:
                break  # (``while (c)`` of a do-while: the statement itself)
            s = shut + 1
        elif t in ("else", "do"):
            s += 1
        elif (t == "default" and tokens[s + 1].text == ":") or (tokens[s].kind == "id" and tokens[s + 1].text == ":"):
            s += 2
        elif t == "case":
            colon = next((j for j in range(s + 1, k) if tokens[j].text == ":"), None)
            if colon is None:
                return None
            s = colon + 1
        else:
            break
    return s if s < k else None


def _ends_do_while(tokens: list[Token], start: int, k: int, block: int) -> bool:
    """Whether ``while (...)`` at ``tokens[start]``, ending at ``tokens[k - 1]``, ends a do-while (a ``}`` whose
    ``{`` follows ``do``, or a statement after ``do``, before it)."""
    if _matching(tokens, start + 1) != k - 1 or start == 0:
        return False
    if tokens[start - 1].text == "}":
        depth = 0
        for j in range(start - 1, block, -1):
            depth += {"}": 1, "{": -1}.get(tokens[j].text, 0)
            if depth == 0:
                return j > 0 and tokens[j - 1].text == "do"
        return False
    body = _statement_start(tokens, start - 1, block)
    return body is not None and body > 0 and tokens[body - 1].text == "do"


def _matching(tokens: list[Token], k: int) -> int | None:
    """The index of the bracket that closes ``tokens[k]``."""
    depth = 0
    for j in range(k, len(tokens)):
        t = tokens[j].text
        if t in _OPENERS:
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j
    return None


def _skipped(tokens: list[Token], k: int) -> tuple[Token | None, bool]:
    """Where Clang's ``SkipUntil(r_brace, StopAtSemi | StopBeforeMatch)`` from ``tokens[k]`` stops: at a ``;``
    (True) or before the ``}`` that closes the block (False), brackets skipped whole; None: the input's end."""
    opened: list[str] = []
    for t in tokens[k:]:
        if t.text in _OPENERS:
            opened.append(_OPENERS[t.text])
        elif t.text in (")", "]", "}"):
            if opened and opened[-1] == t.text:
                opened.pop()
            elif t.text == "}" and not opened:
                return t, False
        elif t.text == ";" and not opened:
            return t, True
    return None, False


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts += [i + 1 for i, c in enumerate(text) if c == "\n"]
    return starts
