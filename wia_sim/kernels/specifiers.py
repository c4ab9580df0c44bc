"""C99 6.7.2's combinations of type specifiers (``unsigned long int``, ``long double``; not ``int float``), read as
Clang reads them (its ``DeclSpec``): the type they make, and its errors and warnings in its words, each at the
specifier it names. The parser takes any list of specifier words; this says which are C."""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from wia_sim.kernels.diagnostics import Diagnostic, Severity
from wia_sim.kernels.tokens import Token, significant, tokenize

__all__ = ["SPECIFIER_WORDS", "Specifiers", "read", "specifier_diagnostics"]

_SIGNS = ("signed", "unsigned")
_WIDTHS = ("short", "long")
_KEYWORDS = ("void", "char", "int", "float", "double", "bool", "half")
"""The type specifier keywords that name a type themselves; any other word of a specifier list is a type name
(a ``typedef``, ``float4``, ``size_t``: Clang's 'type-name')."""
SPECIFIER_WORDS = frozenset(_SIGNS + _WIDTHS + _KEYWORDS)
"""Every keyword a specifier list may hold."""


@dataclass(frozen=True)
class Specifiers:
    """What a specifier list says: its sign, width (``short``, ``long``, ``long long``) and type specifier (None:
    not given), and Clang's diagnostics for it: (the index of the word it names, message, severity)."""

    sign: str | None
    width: str | None
    type: str | None
    problems: tuple[tuple[int, str, Severity], ...]


def read(names: list[str] | tuple[str, ...]) -> Specifiers:
    """The words of one specifier list, in order, as Clang's ``DeclSpec`` takes them: a second sign, width or type
    specifier cannot combine with the first (``long long`` aside; the same sign or ``short`` twice is a warning),
    and, once all are read, only ``char`` and ``int`` take a sign, only ``int`` a width (and ``double`` ``long``)."""
    sign = width = tst = None
    sign_at = width_at = 0
    problems: list[tuple[int, str, Severity]] = []
    for k, word in enumerate(names):
        if word in _SIGNS:
            if sign is None:
                sign, sign_at = word, k
            elif sign == word:
                problems.append((k, f"duplicate '{word}' declaration specifier", "warning"))
            else:
                problems.append((k, f"cannot combine with previous '{sign}' declaration specifier", "error"))
        elif word in _WIDTHS:
            if width is None:
                width, width_at = word, k
            elif width == "long" and word == "long":
                width = "long long"
            elif width == word:
                problems.append((k, f"duplicate '{word}' declaration specifier", "warning"))
            else:
                problems.append((k, f"cannot combine with previous '{width}' declaration specifier", "error"))
        elif tst is None:
            tst = word if word in _KEYWORDS else "type-name"
        else:
            problems.append((k, f"cannot combine with previous '{tst}' declaration specifier", "error"))
    if sign is not None and tst not in (None, "char", "int"):
        problems.append((sign_at, f"'{tst}' cannot be signed or unsigned", "error"))
    if width is not None and tst not in (None, "int") and not (width == "long" and tst == "double"):
        problems.append((width_at, f"'{width} {tst}' is invalid", "error"))
    return Specifiers(sign, width, tst, tuple(problems))


def specifier_diagnostics(nodes: list[c_ast.Node], text: str, filename: str, skip_file: str) -> list[Diagnostic]:
    """Clang's diagnostics for every specifier list among ``nodes`` (the program's, parsed from ``text``; not those
    of ``skip_file``, the parser's prelude), at the specifier each names."""
    found: list[Diagnostic] = []
    tokens: list[Token] | None = None
    for node in nodes:
        if not isinstance(node, c_ast.IdentifierType) or len(node.names) < 2:
            continue
        if node.coord is None or node.coord.file == skip_file:
            continue
        problems = read(node.names).problems
        if not problems:
            continue
        if tokens is None:
            tokens = significant(tokenize(text, 1))
        where = _columns(tokens, node)
        for k, message, severity in problems:
            line, column = where[k] if k < len(where) else (node.coord.line, node.coord.column)
            found.append(Diagnostic(filename, line, column, message, severity))
    return found


def _columns(tokens: list[Token], node: c_ast.IdentifierType) -> list[tuple[int, int]]:
    """Where each word of ``node``'s specifier list stands: from its first word on (its coordinate), the words in
    order, past the qualifiers and attributes between them."""
    start = (node.coord.line, node.coord.column)
    k = next((k for k, t in enumerate(tokens) if (t.line, t.column) >= start), len(tokens))
    where: list[tuple[int, int]] = []
    for t in tokens[k:]:
        if len(where) == len(node.names):
            break
        if t.text == node.names[len(where)]:
            where.append((t.line, t.column))
    return where
