"""Clang's loop hint pragmas, ``#pragma unroll``, ``#pragma unroll N`` or ``(N)``, ``#pragma nounroll`` and the
``unroll_and_jam`` pair, and OpenCL C 2.0's ``__attribute__((opencl_unroll_hint(N)))``: hints the simulator has no
use for, which Clang checks all the same. The preprocessor leaves such a line in the program with its count
macro-expanded (``preprocess.LOOP_PRAGMAS``), the front end turns the attribute into a ``_Pragma``; the checker
reads them here (``loop_hint``), holds the count to Clang's rules and the hint to the loop it must precede, then
takes the pragmas out of the tree (``strip``), so that the executor sees the program as it would without them."""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

from wia_sim.kernels.parsing import parse
from wia_sim.kernels.preprocess import LOOP_PRAGMAS
from wia_sim.kernels.rewrites import set_child
from wia_sim.kernels.tokens import Token, closing, significant, tokenize

__all__ = ["LOOP_HINTS", "LoopHint", "is_hint", "loop_hint", "strip"]

LOOP_HINTS = LOOP_PRAGMAS | {"opencl_unroll_hint"}


@dataclass(frozen=True)
class LoopHint:
    """One loop hint pragma: its word, the count's expression (None: none given, or none the parser reads without
    the program's own type names) and where the word, the count and any extra tokens after it stand."""

    word: str
    line: int | None
    column: int | None
    count: c_ast.Node | None
    count_column: int | None
    extra_column: int | None
    ignored: bool = False
    """Tokens follow a parenthesized count: Clang warns about them and drops the pragma unchecked."""
    pragma_line: bool = False
    """A ``#pragma`` line (not a ``_Pragma`` operator or an attribute, which share their line with code)."""

    @property
    def category(self) -> str:
        """Clang allows one ``#pragma`` hint of each category on a loop."""
        return self.word.removeprefix("no")

    @property
    def attribute(self) -> bool:
        """``opencl_unroll_hint``, which Clang checks in an attribute's words."""
        return self.word == "opencl_unroll_hint"

    def spelled(self, count: str | None) -> str:
        """As Clang names the hint in its diagnostics."""
        return f"#pragma {self.word}" + (f"({count})" if count is not None else "")


def loop_hint(pragma: c_ast.Pragma) -> LoopHint | None:
    """The loop hint a pragma the preprocessor left in the program gives, or None for another pragma."""
    text, start = pragma.string, pragma.coord.column if pragma.coord is not None else None
    operator = isinstance(text, c_ast.Constant)  # ``_Pragma("...")``, its coordinate at its "("
    if operator:
        text = text.value[1:-1]
    tokens = significant(tokenize(text, 1, 1))
    if not tokens or tokens[0].text.strip("_") not in LOOP_HINTS:
        return None
    line = pragma.coord.line if pragma.coord is not None else None
    attribute = tokens[0].text.strip("_") == "opencl_unroll_hint"  # (``frontend._loop_hint_pragma``'s)
    if operator and start is not None:
        # an attribute's name and count at their columns (the name is 2 after the "("); a user's ``_Pragma`` is
        # named at the operator, as Clang names what it finds in one
        start = start + 2 if attribute else start - len("_Pragma")

    def column(tok: Token) -> int | None:
        if operator and not attribute:
            return start
        return None if start is None or tok.column is None else start + tok.column - 1

    word, rest = tokens[0].text.strip("_"), tokens[1:]
    hint = functools.partial(LoopHint, word, line, start, pragma_line=not operator)
    if not rest:
        return hint(None, None, None)
    if word.startswith("no"):
        return hint(None, None, column(rest[0]))
    close = closing(rest, 0) if rest[0].text == "(" else None
    if close is not None and close + 1 < len(rest) and not attribute:  # ``#pragma unroll (N) more``
        return hint(None, None, column(rest[close + 1]), ignored=True)
    if close is not None:  # ``(N)``: the count is what the parentheses hold
        inner = rest[1:close]
        count = _expression(" ".join(t.text for t in inner)) if inner else None
        if count is not None:
            return hint(copy.deepcopy(count), _located(inner, count, column), None)
    for end in range(len(rest), 0, -1):  # (Clang reads one expression and warns about what follows it)
        count = _expression(" ".join(t.text for t in rest[:end]))
        if count is not None:
            extra = column(rest[end]) if end < len(rest) else None
            located = _located(rest[:end], count, column)
            return hint(copy.deepcopy(count), located, extra)  # (the checker's own copy)
    return hint(None, column(rest[0]), None)


def _located(tokens: list[Token], count: c_ast.Node, column: Callable[[Token], int | None]) -> int | None:
    """Where Clang names a count: a binary operator's expression at its operator (the one applied last: both
    sides of it parse), any other at its start."""
    if isinstance(count, c_ast.BinaryOp):
        depth = 0
        for k in range(len(tokens) - 1, 0, -1):
            text = tokens[k].text
            depth += (text == ")") - (text == "(")
            if depth == 0 and text == count.op:
                left, right = (" ".join(t.text for t in part) for part in (tokens[:k], tokens[k + 1 :]))
                if right and _expression(left) is not None and _expression(right) is not None:
                    return column(tokens[k])
    return column(tokens[0])


@functools.lru_cache(maxsize=256)
def _expression(text: str) -> c_ast.Node | None:
    """``text`` parsed as an expression, or None (a count repeats across a program's loops: parsed once)."""
    parsed = parse(f"int __wia_count = {text};")
    decl = parsed.ast.ext[-1] if not parsed.errors and parsed.ast.ext else None
    return decl.init if isinstance(decl, c_ast.Decl) else None


def strip(node: c_ast.Node) -> None:
    """Take the loop hint pragmas out of a checked tree: out of each block, and the block the parser made of a
    hint and the statement after it (``for (...) #pragma unroll for (...)``) becomes that statement."""
    for name, child in node.children():
        if isinstance(child, c_ast.Compound) and child.block_items:
            kept = [item for item in child.block_items if not is_hint(item)]
            wrapper = len(kept) == 1 and len(child.block_items) > 1 and _coord(child) == _coord(child.block_items[0])
            if wrapper and not isinstance(node, c_ast.FuncDef | c_ast.Compound):
                set_child(node, name, kept[0])
                strip(kept[0])
                continue
            child.block_items = kept
        strip(child)


def is_hint(node: c_ast.Node) -> bool:
    """Whether ``node`` is a loop hint's pragma (``loop_hint`` gives it, but reads no count)."""
    if not isinstance(node, c_ast.Pragma):
        return False
    text = node.string.value[1:] if isinstance(node.string, c_ast.Constant) else node.string
    word = re.match(r"\s*(\w+)", text)
    return word is not None and word.group(1).strip("_") in LOOP_HINTS


def _coord(node: c_ast.Node) -> tuple[int | None, int | None]:
    return (node.coord.line, node.coord.column) if node.coord is not None else (None, None)
