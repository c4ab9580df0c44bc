"""Clang's recovery from a statement or declaration without its ``;``: its words, and where it goes on parsing, so
that one missing ``;`` does not hide the function's other errors.

Clang reports the ``;`` missing just after the last token, then (``Parser::ExpectAndConsumeSemi`` and the skips
its callers make; each case measured with clang 15):

- an expression statement whose expression parsed ("expected ';' after expression"): it goes on as if the ``;``
  were there, the next line a statement of its own;
- an expression statement in error already as it is parsed, as a call of a name nothing declares is at the
  statement's start (``FOO(x)`` of a macro the build did not define): no ``;`` error; the tokens up to the next
  ``;`` (or the ``}`` that closes the block) are skipped, their errors unreported. Only the checker tells the two
  apart (``Repair``);
- ``return``, ``break``, ``continue``, ``goto`` and a do-while ("expected ';' after return statement", ...): the
  tokens up to the next ``;`` skipped; a ``return`` whose value does not follow on the next line is "expected
  expression" there, and skipped whole;
- a declaration ("expected ';' at end of declaration"; at file scope "expected ';' after top level declarator"):
  it goes on where the next token may begin a declaration, else skips through the next ``;``; if its last
  initializer is in error as parsed, it skips through the next ``;`` and no ``;`` is missing;
- a member of a struct or union ("expected ';' at end of declaration list"; a warning before the ``}``): the
  tokens through the next ``;`` skipped (the next member lost).

Beside the ``;``: a struct's ``}`` that the next declaration runs on into (``records_run_on``: "expected ';' after
struct"), a struct's last member before its ``}`` (``unended_members``), and a statement with any other syntax
error, which Clang skips to its ``;`` (``skipped_statement``).

A repair edits the text without moving any token it keeps: skipped tokens become blanks (newlines kept), and the
``;`` goes where the skip ended on one, else just after the statement's last token, where nothing but blanks
follows on its line (a ``}`` right after it, the rare exception, moves one column). ``recovery.recovered`` makes
the repairs; the front end runs the checker on the result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from wia_sim.kernels.tokens import Token, blanked, closing, offset

__all__ = [
    "CLOSERS",
    "Missing",
    "Repair",
    "bracket_depth",
    "closes_list",
    "file_scope",
    "in_block",
    "innermost_open",
    "invalid_at_parse",
    "missing",
    "records_run_on",
    "repair_of",
    "repaired",
    "skipped_statement",
    "unended_members",
]

Mode = Literal["continue", "skip"]
Place = tuple[int, int]
"""A line and column."""
_SKIPPING_STATEMENTS = ("return", "break", "continue", "goto")
_CONTROL = ("if", "while", "for", "switch")
CLOSERS = {"(": ")", "[": "]", "{": "}"}
"""Each bracket's closer, by its opener."""
_FILE_SCOPE_ONLY = frozenset({"__kernel", "kernel"})
"""Words that begin a declaration in a block but not, after a declaration without its ``;``, at file scope (where
Clang skips a whole kernel after one: measured)."""


@dataclass(frozen=True)
class Missing:
    """A ``;`` missing just after ``tokens[k - 1]``: Clang's message, where it stands, and how Clang goes on."""

    line: int
    column: int
    message: str
    mode: Mode
    at: Place
    """Where the repair's ``;`` goes (and its skip begins): just after the last token, or at a ``return`` that has
    no value (its whole statement skipped)."""
    severity: Literal["error", "warning"] = "error"
    judged: Place | None = None
    """Where the part begins that Clang's parser may find in error already (an expression statement, a
    declaration's last initializer): if the checker finds it so (``invalid_at_parse``), the tokens after it are
    skipped and no ``;`` is reported missing."""
    called_at_once: bool = False
    """Whether a call at ``judged`` is resolved at once (a statement's first name: Clang classifies it there)."""
    also: tuple[tuple[int, int, str], ...] = ()
    """Errors Clang gives after ``message`` (line, column, message)."""
    filler: str = ";"
    """What the repair puts at ``at``: a ``;``, or for a ``return`` skipped whole an empty block (a statement
    that draws no warning of its own, as an empty ``if`` body would)."""


@dataclass(frozen=True)
class Repair:
    """A statement or declaration taken as parsed (its ``;`` put in, its error reported) that Clang's parser may
    have found in error already (``Missing.judged``). If the checker finds it so (``invalid_at_parse``), the front
    end parses again with its ``at`` among the invalid ones: no error for the ``;``, the tokens after it skipped."""

    at: Place
    start: Place
    at_once: frozenset[Place]
    """Where the names stand that Clang's parser resolves as it meets them (``_checked_at_once``): one of them
    undeclared is an error at once; any other undeclared name is typo-corrected later, when the statement is
    done."""


def missing(
    tokens: list[Token], k: int, declares: Callable[[Token], bool], typedef_name: Callable[[Token], bool]
) -> Missing | None:
    """The ``;`` missing before ``tokens[k]`` (the next token: on a later line than the one before, or a ``}``),
    where a statement, a declaration or a member ends; None where it is no such place (inside brackets, an
    initializer list, an enum). ``declares``: whether a token may begin a declaration; ``typedef_name``: whether
    it is a typedef's name (Clang's built-in ones too, but the types it makes keywords)."""
    if k == 0 or k > len(tokens):
        return None
    before = tokens[k - 1]
    line, column = before.line, before.column + len(before.text)
    end = (line, column)
    after = tokens[k] if k < len(tokens) else None
    if before.text == ")" and after is not None and after.text == "{":  # (a function's body, a statement's)
        return None
    if before.text == "return" and after is not None:  # (its value may be on the next line: none there)
        where = (before.line, before.column)
        if typedef_name(after):  # (Clang takes the name for the value, and then wants the ';')
            message = f"unexpected type name '{after.text}': expected expression"
            also = ((after.line, after.column + len(after.text), "expected ';' after return statement"),)
            return Missing(after.line, after.column, message, "skip", where, also=also, filler="{}")
        return Missing(after.line, after.column, "expected expression", "skip", where, filler="{}")
    block = _innermost_brace(tokens, k)
    if block == -2:  # inside parentheses or brackets
        return None
    if block >= 0:
        context = _brace_kind(tokens, block)
        if context == "members":
            last = after is not None and after.text == "}"
            severity: Literal["error", "warning"] = "warning" if last else "error"
            return Missing(line, column, "expected ';' at end of declaration list", "skip", end, severity)
        if context != "block":
            return None
    start = _statement_start(tokens, k, block)
    if start is None:
        return None
    first = tokens[start]
    goes_on = after is not None and declares(after)
    if block < 0:  # file scope: a declaration
        mode: Mode = "continue" if goes_on and after is not None and after.text not in _FILE_SCOPE_ONLY else "skip"
        message = "expected ';' after top level declarator"
        return Missing(line, column, message, mode, end, judged=_last_initializer(tokens, start, k))
    if first.text in _SKIPPING_STATEMENTS:
        return Missing(line, column, f"expected ';' after {first.text} statement", "skip", end)
    if first.text == "while" and _ends_do_while(tokens, start, k, block):
        return Missing(line, column, "expected ';' after do/while statement", "skip", end)
    if declares(first):
        mode = "continue" if goes_on else "skip"
        message = "expected ';' at end of declaration"
        return Missing(line, column, message, mode, end, judged=_last_initializer(tokens, start, k))
    at = (first.line, first.column)
    return Missing(line, column, "expected ';' after expression", "continue", end, judged=at, called_at_once=True)


def repaired(text: str, tokens: list[Token], k: int, found: Missing, invalid: bool) -> str:
    """``text`` as Clang goes on after ``found`` (``invalid``: what it judges in error, skipped)."""
    at = offset(text, *found.at)
    skip = found.mode == "skip" or invalid
    if skip:
        end, semicolon = _skipped(tokens, k)
        stop = len(text) if end is None else offset(text, end.line, end.column)
        text = text[:at] + blanked(text[at:stop]) + text[stop:]
        if semicolon and found.filler == ";":  # (the skip's own ';' ends the statement where it stands)
            return text
    fill = found.filler
    if text[at : at + len(fill)] == " " * len(fill):
        return text[:at] + fill + text[at + len(fill) :]
    return text[:at] + fill + text[at:]


_INVALID_AT_PARSE = ("array subscript is not an integer", "taking address of function is not allowed")
"""The checker's errors that leave Clang's parser with no expression at all. Most others it recovers from with
an expression marked in error (``RecoveryExpr``), which parses on: invalid operands, a member that is not there,
a call's arguments (each measured with clang 15)."""


def invalid_at_parse(repair: Repair, errors: list[tuple[int, int, str]]) -> bool:
    """Whether Clang's parser would have found the part of ``repair`` it judges in error before the ``;``, from the
    checker's ``errors`` (line, column, message) inside it: an undeclared name it resolves at once, an error it
    does not recover from."""
    for line, column, message in errors:
        if not repair.start <= (line, column) < repair.at:
            continue
        if message.startswith("use of undeclared identifier") and (line, column) in repair.at_once:
            return True
        if message.startswith(_INVALID_AT_PARSE):
            return True
    return False


def repair_of(tokens: list[Token], k: int, found: Missing, declares: Callable[[Token], bool]) -> Repair | None:
    """The ``Repair`` of ``found`` (which ends before ``tokens[k]``), where Clang may have found it in error."""
    if found.judged is None:
        return None
    start = next(j for j in range(k) if (tokens[j].line, tokens[j].column) >= found.judged)
    at_once = _checked_at_once(tokens, start, k, declares, found.called_at_once)
    return Repair(found.at, found.judged, at_once)


def _checked_at_once(
    tokens: list[Token], start: int, k: int, declares: Callable[[Token], bool], called_at_once: bool
) -> frozenset[Place]:
    """The places of the names in ``tokens[start:k]`` that Clang's parser resolves as it meets them (an undeclared
    one is an error there, what holds it invalid): any inside a subscript, brackets of their own, ``sizeof``'s or an
    initializer list, a cast's operand, a member's base, and with ``called_at_once`` a call at ``start`` (a
    statement's first name). Elsewhere (a call's arguments, an operator's operands) a name is resolved once the
    statement is done (Clang's delayed typo correction; each measured with clang 15)."""
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
        elif t.text in ("[", "{"):
            now.append(True)
        elif t.text in (")", "]", "}"):
            if now:
                now.pop()
        elif t.kind == "id" and not declares(t):
            called = j == start and called_at_once and j + 1 < k and tokens[j + 1].text == "("
            cast = j > start and tokens[j - 1].text == ")" and _cast(tokens, j - 1, declares)
            member = j + 1 < k and tokens[j + 1].text in (".", "->")  # (a member's base is resolved first)
            if called or cast or member or any(now):
                at_once.add((t.line, t.column))
    return frozenset(at_once)


def _last_initializer(tokens: list[Token], start: int, k: int) -> Place | None:
    """Where the last declarator's initializer of the declaration ``tokens[start:k]`` begins (None: it has
    none)."""
    depth = 0
    last = None
    for j in range(start, k):
        t = tokens[j].text
        if t in CLOSERS:
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and t == ",":
            last = None
        elif depth == 0 and t == "=" and j + 1 < k:
            last = (tokens[j + 1].line, tokens[j + 1].column)
    return last


def _cast(tokens: list[Token], close: int, declares: Callable[[Token], bool]) -> bool:
    """Whether the ``)`` at ``tokens[close]`` closes a cast's type name (only type words and ``*`` inside)."""
    j = close - 1
    while j >= 0 and (declares(tokens[j]) or tokens[j].text == "*"):
        j -= 1
    return j >= 0 and j < close - 1 and tokens[j].text == "("


def unended_members(tokens: list[Token]) -> list[Place]:
    """Where a struct's or union's last member lacks its ``;`` before the ``}`` (Clang's warning "expected ';' at
    end of declaration list", just after it): the parser takes such a member as it is."""
    places = []
    for j, t in enumerate(tokens):
        if t.text == "{" and _brace_kind(tokens, j) == "members":
            shut = _closing(tokens, j)
            if shut is not None and shut - 1 > j and tokens[shut - 1].text not in (";", "{", "}"):
                last = tokens[shut - 1]
                places.append((last.line, last.column + len(last.text)))
    return places


def skipped_statement(
    tokens: list[Token], k: int, declares: Callable[[Token], bool], left_open: bool = False, blocks: bool = False
) -> tuple[Token, Token, bool] | None:
    """Where Clang skips a statement in a function's body whose syntax error stands at ``tokens[k]``: the
    statement's first token skipped, its ``;``, and whether it is a declaration (then its last initializer alone
    is skipped, the variable declared: the first token is that initializer's ``=``). None where the statement and
    its ``;`` do not hold their brackets balanced (a ``(`` left open, a block), or no block holds it; with
    ``left_open``, the brackets open at the error may stay open at the ``;`` (a cast's ``)`` missing); with
    ``blocks``, a block on the way is skipped whole, as Clang's SkipUntil skips one (``whiel (1) {} x = 1;``)."""
    if not in_block(tokens, k):
        return None
    block = _enclosing_brace(tokens, k)
    s, depth = block + 1, 0  # (the statement begins after the last ';', '{' or '}' of the block's own level)
    for j in range(block + 1, min(k, len(tokens))):
        t = tokens[j].text
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(t, 0)
        if depth < 0:
            return None
        if depth == 0 and t in (";", "}"):  # (a statement's end, a block's)
            s = j + 1
    while s < k and tokens[s].text in ("if", "while", "for", "switch", "else", "do"):  # (past what controls it)
        if tokens[s].text in ("else", "do"):
            s += 1
            continue
        shut = _closing(tokens, s + 1) if s + 1 < len(tokens) and tokens[s + 1].text == "(" else None
        if shut is None or shut >= k:
            return None  # (the error in its head: no statement of its own to skip)
        s = shut + 1
    depth, end = 0, None
    allowed = bracket_depth(tokens, s, k) if left_open else 0
    for j in range(s, len(tokens)):
        t = tokens[j].text
        if t in CLOSERS:
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth < 0:
                return None
        elif t == ";" and depth <= allowed:
            end = j
            break
        if t == "{" and depth == 1 and j > 0 and tokens[j - 1].text not in ("=", ",") and not blocks:
            return None  # (a block: a control statement, not one Clang skips to its ';')
    if end is None or end < k or s == end:
        return None
    if declares(tokens[s]):
        equals = [j for j in range(s, k) if tokens[j].text == "=" and bracket_depth(tokens, s, j) == 0]
        if not equals:
            return None
        return tokens[equals[-1]], tokens[end], True
    return tokens[s], tokens[end], False


def bracket_depth(tokens: list[Token], start: int, j: int) -> int:
    """How many brackets ``tokens[start:j]`` leave open (negative: closed more than they opened)."""
    depth = 0
    for t in tokens[start:j]:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(t.text, 0)
    return depth


def file_scope(tokens: list[Token]) -> list[bool]:
    """For each token, whether it stands at file scope (outside every bracket; a closing one is outside)."""
    depth = 0
    outside = []
    for t in tokens:
        if t.text in (")", "]", "}"):
            depth = max(0, depth - 1)
        outside.append(depth == 0)
        if t.text in CLOSERS:
            depth += 1
    return outside


def records_run_on(tokens: list[Token], followers: frozenset[str]) -> list[tuple[int, str]]:
    """The tokens of ``followers`` (words that begin another declaration) right after a struct's or union's ``}``,
    by index, and the record's keyword: its ``;`` is missing (Clang's "expected ';' after struct"), which the
    parser may not notice (it takes ``struct A {...} struct B {...};`` for one declaration)."""
    found = []
    for j, t in enumerate(tokens[:-1]):
        if t.text == "}" and tokens[j + 1].text in followers:
            opened = _opening(tokens, j)
            if opened is not None and _brace_kind(tokens, opened) == "members":
                word = next(w.text for w in reversed(tokens[:opened]) if w.text in ("struct", "union"))
                found.append((j + 1, word))
    return found


def closes_list(tokens: list[Token], k: int) -> bool:
    """Whether ``tokens[k - 1]`` is the ``}`` of an initializer list (the end of a declaration's initializer)."""
    if k == 0 or tokens[k - 1].text != "}":
        return False
    depth = 0
    for j in range(k - 1, -1, -1):
        depth += {"}": 1, "{": -1}.get(tokens[j].text, 0)
        if depth == 0:
            return _brace_kind(tokens, j) == "list"
    return False


def innermost_open(tokens: list[Token], k: int) -> int:
    """The index of the bracket innermost open around ``tokens[k]`` (a ``(``, ``[`` or ``{``); -1 where none is."""
    opened: list[int] = []
    for j in range(min(k, len(tokens))):
        t = tokens[j].text
        if t in CLOSERS:
            opened.append(j)
        elif opened and t == CLOSERS[tokens[opened[-1]].text]:
            opened.pop()
    return opened[-1] if opened else -1


def _innermost_brace(tokens: list[Token], k: int) -> int:
    """The index of the ``{`` innermost around ``tokens[k]``: -1 at file scope, -2 inside ``(`` or ``[``."""
    j = innermost_open(tokens, k)
    return j if j < 0 or tokens[j].text == "{" else -2


def _enclosing_brace(tokens: list[Token], k: int) -> int:
    """The index of the ``{`` around ``tokens[k]``, through any brackets it stands in; -1 at file scope."""
    braces: list[int] = []
    for j in range(min(k, len(tokens))):
        if tokens[j].text == "{":
            braces.append(j)
        elif tokens[j].text == "}" and braces:
            braces.pop()
    return braces[-1] if braces else -1


def in_block(tokens: list[Token], k: int) -> bool:
    """Whether ``tokens[k]`` stands in a block of statements (a function's body, or a block in one), through any
    brackets: not at file scope, not in a struct's members or an initializer list."""
    block = _enclosing_brace(tokens, k)
    return block >= 0 and _brace_kind(tokens, block) == "block"


def _brace_kind(tokens: list[Token], j: int) -> str:
    """What the ``{`` at ``tokens[j]`` opens: "members" (a struct's or union's), "list" (an initializer's, an
    enum's) or "block"."""
    i = j - 1
    while i >= 0 and tokens[i].text == ")":  # (``struct __attribute__((packed)) {``: past its attributes)
        shut = _opening(tokens, i)
        if shut is None or shut < 1 or "attribute" not in tokens[shut - 1].text:
            break
        i = shut - 2
    if i >= 0 and tokens[i].kind == "id" and i >= 1 and tokens[i - 1].text in ("struct", "union", "enum"):
        i -= 1  # (its tag)
    word = tokens[i].text if i >= 0 else ""
    if word in ("struct", "union"):
        return "members"
    if word == "{":  # (a block's braces in a block, a list's in a list)
        return _brace_kind(tokens, i)
    if word in ("enum", "=", ",", "(", "return"):
        return "list"
    return "block"


def _closing(tokens: list[Token], k: int) -> int | None:
    """The index of the bracket that closes ``tokens[k]`` (``tokens.closing``, of the bracket's own kind)."""
    bracket = CLOSERS.get(tokens[k].text) if k < len(tokens) else None
    return None if bracket is None else closing(tokens, k, bracket)


def _opening(tokens: list[Token], close: int) -> int | None:
    """The index of the bracket that ``tokens[close]`` closes."""
    depth = 0
    for j in range(close, -1, -1):
        t = tokens[j].text
        if t in (")", "]", "}"):
            depth += 1
        elif t in CLOSERS:
            depth -= 1
            if depth == 0:
                return j
    return None


def _statement_start(tokens: list[Token], k: int, block: int) -> int | None:
    """The first token of the statement (or declaration) that ``tokens[k - 1]`` ends, past the ``if (...)``,
    ``else``, ``do`` and labels that control it."""
    depth = 0
    s = k - 1
    while True:  # (an initializer list's braces are the statement's: counted as brackets)
        depth += {")": 1, "]": 1, "}": 1, "(": -1, "[": -1, "{": -1}.get(tokens[s].text, 0)
        if s <= block + 1 or (depth == 0 and tokens[s - 1].text in (";", "{", "}")):
            break
        s -= 1
    while s < k - 1:
        t = tokens[s].text
        if t in _CONTROL and tokens[s + 1].text == "(":
            shut = _closing(tokens, s + 1)
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
    if _closing(tokens, start + 1) != k - 1 or start == 0:
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


def _skipped(tokens: list[Token], k: int) -> tuple[Token | None, bool]:
    """Where Clang's ``SkipUntil(r_brace, StopAtSemi | StopBeforeMatch)`` from ``tokens[k]`` stops: at a ``;``
    (True) or before the ``}`` that closes the block (False), brackets skipped whole; None: the input's end."""
    opened: list[str] = []
    for t in tokens[k:]:
        if t.text in CLOSERS:
            opened.append(CLOSERS[t.text])
        elif t.text in (")", "]", "}"):
            if opened and opened[-1] == t.text:
                opened.pop()
            elif t.text == "}" and not opened:
                return t, False
        elif t.text == ";" and not opened:
            return t, True
    return None, False
