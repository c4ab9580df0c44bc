"""Brace elision in initializers of multi-dimensional arrays (C99 6.7.8p20-22): ``int a[2][3] = {1, 2, 3, 4}``
fills the rows in order, as if written ``{{1, 2, 3}, {4}}``, and ``int a[][3] = {1, 2, 3, 4}`` has two rows.
The checker checks such lists and the executor sizes arrays of unknown length with ``elided_length``; the values
are placed by ``StructOps.init_object`` or, for lists of constants, in row-major order. A struct element takes one
item (a brace list or a value of the struct): its own braces cannot be left out here."""

from __future__ import annotations

from pycparser import c_ast

from wia_sim.kernels.types import TypeInfo

__all__ = ["consume", "elided_length", "takes_rows"]


def takes_rows(t: TypeInfo) -> bool:
    """Whether ``t`` is an array of arrays (down to scalars, vectors or structs), whose initializer may leave out
    the braces of its rows."""
    return t.kind == "array" and t.target is not None and t.target.kind == "array"


def consume(items: list[c_ast.Node], pos: int, t: TypeInfo) -> int:
    """The position after the items that initialize one object of type ``t`` from ``items[pos:]`` without braces
    of its own: an array takes its elements in order (each a brace list, or items taken the same way), anything
    else one item; a designator ends it (it belongs to the enclosing list)."""
    if t.kind != "array" or t.target is None:
        return pos + 1
    for _ in range(t.length or 0):
        if pos >= len(items) or isinstance(items[pos], c_ast.NamedInitializer):
            break
        pos = pos + 1 if isinstance(items[pos], c_ast.InitList) else consume(items, pos, t.target)
    return pos


def elided_length(items: list[c_ast.Node], element: TypeInfo) -> int | None:
    """How many elements of ``element`` the brace list ``items`` initializes in an array of unknown length, or
    None when it has designators (``[k] =``: the caller's rule)."""
    if any(isinstance(e, c_ast.NamedInitializer) for e in items):
        return None
    pos = count = 0
    while pos < len(items):
        pos = pos + 1 if isinstance(items[pos], c_ast.InitList) else consume(items, pos, element)
        count += 1
    return count
