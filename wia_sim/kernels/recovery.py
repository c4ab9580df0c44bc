"""Clang's recovery from a syntax error: the text as its parser goes on after one (a keyword corrected, a bracket
closed or dropped, a statement skipped to its ``;``, an operand put in) and what it reported on the way, so that
one error does not hide the next.

Apart from Clang's words for the error (``syntax_errors.py``), which it goes on from, and from ``parsing.py``,
which parses the text again after each repair (``recovered``): the missing ``;`` are ``semicolons.py``'s, the
other repairs this module's. Each keeps every other token where it stands, or says how far the rest of its line
moved (``Repairs.shifts``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wia_sim.kernels.grammar import KEYWORDS, Parser
from wia_sim.kernels.semicolons import (
    CLOSERS,
    Missing,
    Repair,
    bracket_depth,
    innermost_open,
    missing,
    repair_of,
    repaired,
    skipped_statement,
)
from wia_sim.kernels.syntax_errors import (
    HEADED,
    KEYWORD_FOLLOWERS,
    NO_OPERAND_AFTER,
    cast_open,
    controlled,
    declares_in,
    do_of,
    end_of,
    for_clauses,
    header_open,
    typedef_name,
)
from wia_sim.kernels.tokens import Token, blanked, closing, offset, significant, tokenize

__all__ = ["Repairs", "recovered"]


@dataclass
class Repairs:
    """What the recovery from missing ``;`` did (``recovered``)."""

    errors: list[tuple[int, int | None, str]] = field(default_factory=list)
    warnings: list[tuple[int, int, str]] = field(default_factory=list)
    judged: list[Repair] = field(default_factory=list)
    shifts: list[tuple[int, int, int]] = field(default_factory=list)
    broken: list[tuple[int, int]] = field(default_factory=list)


def recovered(
    text: str, error: tuple[int, int | None, str], parser: Parser, invalid: frozenset[tuple[int, int]]
) -> tuple[str, Repairs] | None:
    """``text`` as Clang's parser goes on after the syntax error ``error``, and what it reported; None where the
    simulator knows no such recovery (the declaration-by-declaration one of ``parse`` follows). Each keeps every
    other token where it stands: a ``;`` missing (``semicolons.py``: at a line's end, before a ``}``, after a
    struct's ``}``, where a blank takes it), a misspelt statement keyword or qualifier (corrected in place), a
    bracket Clang wanted closed or found too many, a statement in error (skipped to its ``;``), an operand missing
    in a control statement's head."""
    line, column, message = error
    if column is None:
        return None
    tokens = significant(tokenize(text, 1))
    k = next((k for k, t in enumerate(tokens) if (t.line, t.column) >= (line, column)), len(tokens))
    if k == 0 or k == len(tokens):
        return None
    before, after = tokens[k - 1], tokens[k]
    at_error = (after.line, after.column) == (line, column)  # (the error at a token's start, not just after one)
    done = Repairs()
    if message in ("expected ';' after struct", "expected ';' after union"):  # (Clang goes on as if it were there)
        done.errors.append((line, column, message))
        return repaired(text, tokens, k, Missing(line, column, message, "continue", (line, column)), False), done
    typo = re.match(r"use of undeclared identifier '(\w+)'; did you mean '(\w+)'\?$", message)
    if typo and typo.group(2) in KEYWORD_FOLLOWERS and at_error:
        done.errors.append((line, column, message))  # (the keyword in its place: Clang parses on with it)
        meant = typo.group(2)
        if len(meant) > len(after.text):  # (the rest of the line moves on: its diagnostics move back)
            done.shifts.append((line, column + len(after.text), len(meant) - len(after.text)))
        return _spelled_as(text, line, column, after.text, meant), done
    head = before.text in (";", "{", "}") and k + 1 < len(tokens) and tokens[k + 1].text == "("
    if message == f"use of undeclared identifier '{after.text}'" and at_error and head:
        return _statement_skipped(text, tokens, k, error, parser, blocks=True)  # (a keyword too far to correct)
    unknown = re.match(
        r"(unknown type name|use of undeclared identifier) '(\w+)'(?:; did you mean '(\w+)'\?)?$", message
    )
    typed = k + 1 < len(tokens) and tokens[k + 1].text in KEYWORDS and declares_in(parser)(tokens[k + 1])
    if unknown and at_error and after.text == unknown.group(2):
        if unknown.group(1) == "use of undeclared identifier" and typed:  # (``aonst float v`` in a block: skipped)
            done.errors.append((line, column, message))
            skip = Missing(line, column, message, "skip", (line, column), filler="{}")
            return repaired(text, tokens, k, skip, False), done
        if unknown.group(1) == "unknown type name":  # (Clang parses on with its correction, else the name dropped
            done.errors.append((line, column, message))  # before a type word, else an int in its place)
            meant = unknown.group(3) or ("" if typed else "int")
            if len(meant) > len(after.text):  # (the rest of the line moves on: its diagnostics move back)
                done.shifts.append((line, column + len(after.text), len(meant) - len(after.text)))
            return _spelled_as(text, line, column, after.text, meant), done
    if message == "expected 'while' in do/while loop" and do_of(tokens, k) is not None:
        return _while_missing(text, tokens, k, error)
    if message == "expected ';' in 'for' statement specifier" and for_clauses(tokens, k) is not None:
        return _for_semicolon(text, tokens, k, error)
    if re.fullmatch(r"expected '\(' after '\w+'", message) and before.text in HEADED:
        return _head_missing(text, tokens, k, error)
    if message in ("expected ')'", "expected ']'") and at_error:
        if message == "expected ']'" and after.text == ";":
            return _subscript_unclosed(text, tokens, k, error, parser)
        if after.text in (")", "]") and CLOSERS[tokens[innermost_open(tokens, k)].text] != after.text:
            return _statement_skipped(text, tokens, k, error, parser, left_open=True)  # (``f(a[i);``: skipped)
        if message == "expected ')'" and cast_open(tokens, k, parser) == k:
            return _cast_unclosed(text, tokens, k, error, parser)
        if message == "expected ')'" and header_open(tokens, k) is not None:
            return _header_unclosed(text, tokens, k, error)
        if message == "expected ')'" and _parameters_open(tokens, k):
            return _parameters_unclosed(text, tokens, k, error)
        return _closed_early(text, tokens, k, error)
    unexpected = re.fullmatch(r"unexpected type name '(\w+)': expected expression", message)
    alone = before.text != "return" or (k + 1 < len(tokens) and tokens[k + 1].text == ";")  # (``semicolons``)
    if unexpected and after.text == unexpected.group(1) and at_error and alone:
        done.errors.append((line, column, message))  # (Clang goes on with an invalid operand there)
        start = _expression_start(tokens, k)
        if start is not None:  # (a statement in error: no word of its unused result)
            done.broken.append((tokens[start].line, tokens[start].column))
        return _spelled_as(text, line, column, after.text, "0" * len(after.text)), done  # (a 0 as long as it)
    if message.startswith("expected ';'") and at_error and after.text in ")]":
        return _stray_closer(text, tokens, k, error)
    if message.startswith("extraneous") and after.text in (")", "]") and at_error:
        done.errors.append((line, column, message))  # (Clang drops the bracket and takes the ';')
        return _spelled_as(text, line, column, after.text, ""), done
    found = None
    place = offset(text, line, column)
    blank = text[place : place + 1] in (" ", "\t")  # (the ';' fits there)
    if before.text == "return" or after.line != before.line or after.text == "}" or blank:
        found = missing(tokens, k, declares_in(parser), typedef_name(parser))
    if found is None or (found.line, found.column, found.message) != (line, column, message):
        skipped_whole = _statement_skipped(text, tokens, k, error, parser)
        blank = _blank_before(text, line, column) and after.text in NO_OPERAND_AFTER  # (an operand goes before it)
        if skipped_whole is None and message == "expected expression" and blank:
            done.errors.append((line, column, message))  # (in a loop's or a condition's head: an operand there)
            operand = "1" if before.text in ("/", "%", "/=", "%=") else "0"
            return text[: place - 1] + operand + text[place:], done
        return skipped_whole
    skipped = found.at in invalid
    judged = None if skipped else repair_of(tokens, k, found, declares_in(parser))
    if judged is not None:
        done.judged.append(judged)
    if not skipped:
        (done.warnings if found.severity == "warning" else done.errors).append((line, column, message))
        done.errors += found.also
    return repaired(text, tokens, k, found, skipped), done


def _blank_before(text: str, line: int, column: int) -> bool:
    """Whether the character before ``column`` of ``line`` is a blank (a repair may write there: nothing moves)."""
    return column > 1 and text[offset(text, line, column) - 1] in (" ", "\t")


def _closed_early(
    text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]
) -> tuple[str, Repairs] | None:
    """``text`` with the tokens from ``tokens[k]`` to the bracket that closes the one open around it blanked: Clang
    wanted it closed there ("expected ')'", two operands with no operator between), and parses on after it."""
    j = innermost_open(tokens, k)
    if j < 0 or tokens[j].text == "{":
        return None
    shut = closing(tokens, j, ")" if tokens[j].text == "(" else "]")
    if shut is None or tokens[shut].line != tokens[k].line:
        return None
    a = offset(text, tokens[k].line, tokens[k].column)
    b = offset(text, tokens[shut].line, tokens[shut].column)
    done = Repairs()
    done.errors.append((error[0], error[1], error[2]))
    return text[:a] + " " * (b - a) + text[b:], done


def _statement_skipped(
    text: str,
    tokens: list[Token],
    k: int,
    error: tuple[int, int | None, str],
    parser: Parser,
    left_open: bool = False,
    blocks: bool = False,
) -> tuple[str, Repairs] | None:
    """``text`` with the statement that holds the syntax error ``error`` (at ``tokens[k]``) skipped, as Clang's
    parser skips an expression in error to its ``;`` (``semicolons.skipped_statement``): its error reported, the
    function's later statements parsed and checked. A declaration keeps its variable (its initializer alone is
    skipped); any other statement becomes an empty block (no ``if`` loses its body, no ``else`` its ``if``)."""
    found = skipped_statement(tokens, k, declares_in(parser), left_open, blocks)
    if found is None or error[1] is None:
        return None
    first, end, declaration = found
    a = offset(text, first.line, first.column)
    b = offset(text, end.line, end.column) + (0 if declaration else 1)
    gone = blanked(text[a:b])
    if not declaration:
        gone = "{}" + gone[2:] if len(gone) >= 2 and "\n" not in gone[:2] else gone
    done = Repairs()
    done.errors.append((error[0], error[1], error[2]))
    return text[:a] + gone + text[b:], done


def _spelled_as(text: str, line: int, column: int, word: str, meant: str) -> str:
    """``text`` with ``word`` at ``line`` and ``column`` replaced by ``meant``: padded with blanks to its length
    where it is shorter (nothing moves), else longer (the rest of its line moves on)."""
    at = offset(text, line, column)
    return text[:at] + meant.ljust(len(word)) + text[at + len(word) :]


def _skipped_to(tokens: list[Token], k: int, stops: tuple[str, ...]) -> int | None:
    """Where Clang's ``SkipUntil`` from ``tokens[k]`` stops: the first token of ``stops`` outside the brackets
    skipped (each skipped whole; a ``)``, ``]`` or ``}`` that closes nothing skipped too), None at the input's
    end."""
    depth = 0
    for m in range(k, len(tokens)):
        t = tokens[m].text
        if depth == 0 and t in stops:
            return m
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth = max(0, depth - 1)
    return None


def _head_missing(text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]) -> tuple[str, Repairs]:
    """After "expected '(' after 'if'" (``while``, ``for``, ``switch``) at ``tokens[k]``, Clang skips the statement
    to its first ``;`` (taking it; brackets skipped whole, a stray ``)`` too), or to the ``}`` that closes the
    block around it: the statement becomes an empty block, its other errors unreported."""
    m = _skipped_to(tokens, k, (";", "}"))
    end = len(tokens) - 1 if m is None else m - 1 if tokens[m].text == "}" else m
    keyword, last = tokens[k - 1], tokens[end]
    a = offset(text, keyword.line, keyword.column)
    b = offset(text, last.line, last.column) + len(last.text)
    gone = blanked(text[a:b])
    done = Repairs()
    done.errors.append((error[0], error[1], error[2]))
    return text[:a] + "{}" + gone[2:] + text[b:], done


def _stray_closer(text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]) -> tuple[str, Repairs]:
    """After "expected ';' ..." at a ``)`` or ``]`` that closes nothing (``tokens[k]``), Clang begins a statement
    there: "expected expression" at the bracket, and that statement skipped to its ``;``. The bracket becomes
    the ``;``, what follows it to the next ``;`` blanks."""
    depth, end = 0, len(tokens)
    for m in range(k + 1, len(tokens)):
        t = tokens[m].text
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(t, 0)
        if (t == ";" and depth <= 0) or depth < -1 or (t == "}" and depth < 0):
            end = m
            break
    bracket = tokens[k]
    a = offset(text, bracket.line, bracket.column)
    b = offset(text, tokens[end].line, tokens[end].column) if end < len(tokens) else len(text)
    gone = blanked(text[a + 1 : b])
    done = Repairs()
    done.errors += [(error[0], error[1], error[2]), (bracket.line, bracket.column, "expected expression")]
    return text[:a] + ";" + gone + text[b:], done


def _subscript_unclosed(
    text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str], parser: Parser
) -> tuple[str, Repairs] | None:
    """After "expected ']'" at the ``;`` (``tokens[k]``) of an expression statement whose subscript is not closed
    (``o[i = x;``), Clang has built and checked what the brackets hold and the operand before them, and nothing that
    waited for the subscript (an operator it is the right operand of, an assignment to it): the ``[`` becomes a
    comma (``o, i = x;``) where the operand begins the statement, else the statement up to the ``[`` blanks; the
    statement is marked broken (no word of the results it leaves unused)."""
    j = innermost_open(tokens, k)
    if j < 1 or tokens[j].text != "[":
        return None
    start = _expression_start(tokens, j)
    if start is None:
        return None
    if declares_in(parser)(tokens[start]):  # (a declaration: its variable declared, the initializer skipped)
        return _statement_skipped(text, tokens, k, error, parser, left_open=True)
    done = Repairs()
    done.errors.append((error[0], error[1], error[2]))
    a = offset(text, tokens[start].line, tokens[start].column)
    at = offset(text, tokens[j].line, tokens[j].column)
    postfix = all(t.kind == "id" or t.text in (".", "->") for t in tokens[start:j])  # (``o``, ``s.a``, ``p->b``)
    if postfix:
        done.broken.append((tokens[start].line, tokens[start].column))
        return text[:at] + "," + text[at + 1 :], done
    first = tokens[j + 1]
    if first is tokens[k]:
        return None
    done.broken.append((first.line, first.column))
    gone = blanked(text[a : at + 1])
    return text[:a] + gone + text[at + 1 :], done


def _expression_start(tokens: list[Token], j: int) -> int | None:
    """The first token of the expression statement that holds ``tokens[j]`` (past what controls it: an ``if``'s
    head, ``else``, a label); None where it is not a statement of a block."""
    s, depth = j - 1, 0
    while s > 0:
        depth += {")": 1, "]": 1, "(": -1, "[": -1}.get(tokens[s].text, 0)
        if depth < 0:  # (a bracket open around it: no statement of its own)
            return None
        prev = tokens[s - 1]
        if depth == 0 and (
            prev.text in (";", "{", "}", ":", "else", "do") or (prev.text == ")" and controlled(tokens, s - 1))
        ):
            return s
        s -= 1
    return None


def _for_semicolon(text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]) -> tuple[str, Repairs]:
    """After "expected ';' in 'for' statement specifier" at ``tokens[k]``, Clang goes on as if it stood there:
    put in a blank before the token, else put in (the rest of the line moved on)."""
    done = Repairs()
    done.errors.append((error[0], error[1], error[2]))
    token = tokens[k]
    at = offset(text, token.line, token.column)
    if _blank_before(text, token.line, token.column):
        return text[: at - 1] + ";" + text[at:], done
    done.shifts.append((token.line, token.column + 1, 1))
    return text[:at] + ";" + text[at:], done


def _while_missing(text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]) -> tuple[str, Repairs]:
    """After "expected 'while' in do/while loop" at ``tokens[k]``, Clang has checked the body, and skips to the
    next ``;``: the ``do`` blanks (its body a statement of its own), and what follows it to the ``;``."""
    do = do_of(tokens, k)
    assert do is not None
    end = next((m for m in range(k, len(tokens)) if tokens[m].text == ";" and bracket_depth(tokens, k, m) == 0), None)
    done = Repairs()
    done.errors.append((error[0], error[1], error[2]))
    a = offset(text, tokens[k].line, tokens[k].column)
    b = len(text) if end is None else offset(text, tokens[end].line, tokens[end].column) + 1
    at = offset(text, tokens[do].line, tokens[do].column)
    text = text[:a] + blanked(text[a:b]) + text[b:]
    return text[:at] + "  " + text[at + 2 :], done


def _parameters_open(tokens: list[Token], k: int) -> bool:
    """Whether ``tokens[k]`` stands in a function declarator's parameter list at file scope."""
    j = innermost_open(tokens, k)
    return j > 0 and tokens[j].text == "(" and tokens[j - 1].kind == "id" and innermost_open(tokens, j) < 0


def _parameters_unclosed(
    text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]
) -> tuple[str, Repairs] | None:
    """After "expected ')'" at ``tokens[k]`` in a function's parameter list, Clang skips to a ``)`` or ``;`` at file
    scope (a body in braces skipped whole): at a ``;`` the declaration ends there, unreported; at the end of the
    input, "expected function body after function declarator" there. The declaration blanks to where it ends."""
    stop = _skipped_to(tokens, k, (")", ";"))
    if stop is not None and tokens[stop].text == ")":  # (a ')' of the list's own, later: not followed)
        return None
    s = innermost_open(tokens, k) - 1
    while s > 0 and tokens[s - 1].text not in (";", "}"):
        s -= 1
    a = offset(text, tokens[s].line, tokens[s].column)
    done = Repairs()
    done.errors.append((error[0], error[1], error[2]))
    if stop is None:
        done.errors.append((*end_of(text), "expected function body after function declarator"))
        b = len(text)
    else:
        b = offset(text, tokens[stop].line, tokens[stop].column) + 1
    return text[:a] + blanked(text[a:b]) + text[b:], done


def _header_unclosed(
    text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]
) -> tuple[str, Repairs] | None:
    """After "expected ')'" at ``tokens[k]`` in a control statement's head, Clang skips to the next ``)`` (taking
    it for the head's), or stops before a ``;`` or the ``}`` of the block around it (brackets skipped whole),
    and parses the statement's body there: an empty statement at a ``;``, "expected statement" at a ``}``."""
    m = _skipped_to(tokens, k, (")", ";", "}"))
    if m is None:
        return None
    stop = tokens[m]
    a = offset(text, tokens[k].line, tokens[k].column)
    b = offset(text, stop.line, stop.column)
    gone = blanked(text[a:b])
    done = Repairs()
    done.errors.append((error[0], error[1], error[2]))
    if stop.text == ")":  # (the head closed there: the body follows it)
        return text[:a] + gone + text[b:], done
    if m == k:  # (``if (a;``: an empty body put in before the ';', the rest of the line moved on)
        if stop.text != ";":
            return None
        done.shifts.append((stop.line, stop.column + 3, 3))
        return text[:a] + "){}" + text[a:], done
    # the ')' where the skip began, an empty block for the body (no warning of Clang's for it) where two blanks
    # stand together, the last such
    room = next((j for j in range(len(gone) - 2, 0, -1) if gone[j : j + 2] == "  "), None)
    if room is None:
        return None
    if stop.text == "}":  # (no statement before the block's end)
        done.errors.append((stop.line, stop.column, "expected statement"))
    return text[:a] + ")" + gone[1:room] + "{}" + gone[room + 2 :] + text[b:], done


_NO_OPERAND = frozenset({";", "[", "]", ")", ","})
"""Tokens no expression begins with (where Clang looks for a cast's operand after skipping)."""


def _cast_unclosed(
    text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str], parser: Parser
) -> tuple[str, Repairs] | None:
    """After "expected ')'" at the operand of a cast whose ``)`` is missing (``syntax_errors.cast_open``), Clang
    skips to the next ``)`` (taking it) or before the statement's ``;``, and looks for the cast's operand there:
    where no expression can begin, "expected expression"; then the statement is skipped (``_statement_skipped``)."""
    m = _skipped_to(tokens, k, (";", ")", "]", "{", "}"))
    if m is None or tokens[m].text in ("]", "{", "}") or m + 1 >= len(tokens):
        return None
    nxt = tokens[m] if tokens[m].text == ";" else tokens[m + 1]
    if nxt.text not in _NO_OPERAND:
        return None
    j = innermost_open(tokens, k)
    while j > 0 and tokens[j].text != "{":  # (inside a call's arguments, Clang skips past the ';': not followed)
        j = innermost_open(tokens, j)
        caller = tokens[j - 1] if j > 0 else None
        if tokens[j].text == "(" and caller is not None and caller.kind == "id" and caller.text not in KEYWORDS:
            return None
    skipped = _statement_skipped(text, tokens, k, error, parser, left_open=True)
    if skipped is None:
        return None
    skipped[1].errors.append((nxt.line, nxt.column, "expected expression"))
    return skipped
