"""Clang's typo correction: the name an undeclared identifier was probably meant to be ("did you mean 'count'?").

Clang (``Sema::CorrectTypo``, ``TypoCorrectionConsumer::addName``) weighs every name the lookup at the typo could
find: a typo of fewer than 3 characters is never corrected; a name whose length alone differs by more than a third of
the typo's is not considered; one more than ``(len + 2) / 3`` edits away (Levenshtein: insertions, deletions and
replacements) is not either. The nearest name wins when no other lies as near; a tie corrects nothing. Where a type
name is expected (an unknown one at the start of a declaration), the correction must also be less than a third of
the typo's length away, or it is refused. Measured on PoCL 3.1's Clang (``-cl-std=CL1.2``): ``coutn`` gives
'count', ``heigth`` 'height', ``sum3`` beside ``sum1`` and ``sum2`` nothing, ``sizet x`` "unknown type name
'sizet'; did you mean 'size_t'?", ``unit x`` (``uint``, two edits in four letters) nothing.

What the lookup can find depends on where the typo stands (``checker``): in an expression, the variables,
parameters, enumerators and functions in scope (the program's and the built-ins') and the keywords a statement or
an expression may hold; in a call, the functions that take that many arguments and those keywords; where a type
is expected, the type names and the keywords a type may be spelled with.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from wia_sim.kernels import images
from wia_sim.kernels.signatures import BUILTINS, builtin_arity
from wia_sim.kernels.types import FLOATS, VECTOR_BASES, VECTOR_WIDTHS

__all__ = [
    "KEYWORDS", "STATEMENT_KEYWORDS", "TYPE_KEYWORDS", "Correction", "builtin_names", "callable_with", "corrected",
    "edit_distance", "nearest",
]  # fmt: skip

STATEMENT_KEYWORDS = ("do", "else", "for", "goto", "if", "return", "switch", "while")
"""Statements' keywords Clang offers for an identifier in a function (``AddKeywordsToConsumer``'s remaining
keywords; ``break`` and ``continue`` where they may stand). ``sizeof`` is an expression's keyword, offered apart.
(``true`` and ``false`` are macros of OpenCL C's headers, no declarations: never offered.)"""

KEYWORDS = frozenset((*STATEMENT_KEYWORDS, "sizeof", "break", "continue"))
"""Every keyword a correction in a function's body may give."""

TYPE_KEYWORDS = (
    "char", "const", "double", "enum", "float", "int", "long", "short", "signed", "struct", "union", "unsigned",
    "void", "volatile", "extern", "inline", "static", "typedef", "restrict", "bool",
)  # fmt: skip
"""Keywords Clang offers where a type is expected: the type specifiers and storage classes of C99."""


def edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance between ``a`` and ``b`` (insertions, deletions, replacements), or ``limit + 1`` once
    it is certain to exceed ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return min(previous[-1], limit + 1)


class Correction:
    """The outcome of correcting a typo: the name it was meant to be, or None; ``tied``: it failed because two
    names lay equally near (Clang then leaves the typo to the expression it stands in, ``syntax_errors``)."""

    __slots__ = ("name", "tied")

    def __init__(self, name: str | None, tied: bool = False) -> None:
        self.name, self.tied = name, tied


def nearest(typo: str, candidates: Iterable[str], strict: bool = False) -> set[str]:
    """The names among ``candidates`` nearest to ``typo`` within Clang's bounds (module docstring), several where
    they lie equally near; none if none is near enough. ``strict``: where a type name is expected, or where
    Clang's statement parser corrects at once."""
    n = len(typo)
    if n < 3:
        return set()
    bound = (n + 2) // 3
    best: set[str] = set()
    distance = bound + 1
    for name in candidates:
        spread = abs(len(name) - n)
        if (spread and n // spread < 3) or spread > distance or name == typo:
            continue
        d = edit_distance(typo, name, min(bound, distance))
        if d < distance:
            best, distance = {name}, d
        elif d == distance and d <= bound:
            best.add(name)
    if not best or (strict and n // distance < 3):
        return set()
    return best


def corrected(typo: str, candidates: Iterable[str], strict: bool = False) -> Correction:
    """The name among ``candidates`` that ``typo`` most probably meant, by Clang's rules (module docstring);
    ``strict``: where a type name is expected."""
    best = nearest(typo, candidates, strict)
    if len(best) > 1:
        return Correction(None, tied=True)
    return Correction(best.pop() if best else None)


@functools.cache
def builtin_names() -> frozenset[str]:
    """Every built-in function's name, as OpenCL C's header declares them: the table's, every ``convert_`` and
    ``as_`` of a scalar or vector type, the image functions and ``printf``."""
    types = [e + (str(w) if w > 1 else "") for e in VECTOR_BASES for w in (1, *VECTOR_WIDTHS)]
    roundings = ("", "_rte", "_rtz", "_rtp", "_rtn")
    converts = {
        f"convert_{t}{sat}{r}"
        for t in types
        for sat in ("", "_sat")
        for r in roundings
        if not (sat and t.rstrip("0123456789") in FLOATS)
    }
    return frozenset({*BUILTINS, *converts, *(f"as_{t}" for t in types), *images.BUILTINS, "printf"})


def callable_with(name: str, args: int) -> bool:
    """Whether the built-in ``name`` has a form taking ``args`` arguments."""
    arity = builtin_arity(name) or images.BUILTINS.get(name) or ((1, 1 << 30) if name == "printf" else None)
    return arity is not None and arity[0] <= args <= arity[1]
