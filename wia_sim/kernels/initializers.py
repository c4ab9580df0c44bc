"""Brace elision in initializers (C99 6.7.8p17-22): a sub-aggregate whose braces are left out takes as many items
of the list as it has elements or members, in order. ``int a[2][3] = {1, 2, 3, 4}`` fills the rows as if written
``{{1, 2, 3}, {4}}``; ``P a[2] = {1, 2, 3, 4}`` with ``struct {float4 v; int n;}`` gives ``{{1, 2}, {3, 4}}``, the
vector member taking one scalar, as a splat (Clang's reading in OpenCL C: only a vector's own braces list its
components). An item that is an expression of the struct type itself initializes that struct whole. Items past
the end of the object are dropped with Clang's warning "excess elements in ... initializer". A designator
(``.m =``, ``[k] =``) moves to the object it names, and the list goes on after it; a nested one (``.a.b =``,
``[i][j] =``) fills the first object it names from the rest of it, with that object's braces elided.

The checker checks lists this way (``check_decls.DeclarationChecks.check_fill``) and sizes arrays of unknown length
as it goes (``Program.list_lengths``); the executor places their values the same way
(``struct_exec.StructOps._fill``)."""

from __future__ import annotations

from pycparser import c_ast

from wia_sim.kernels.types import TypeInfo, TypeResolver

__all__ = [
    "StringItems",
    "braced_scalar",
    "designated_member",
    "excess_kind",
    "nested_designation",
    "own_list",
]


class StringItems(c_ast.InitList):  # type: ignore[misc]
    """A string literal's bytes as the brace list of the char array it initializes (C99 6.7.8p14), put in the
    literal's place by the checker: unlike a brace list, it belongs to that array even where the braces of the
    aggregates around it are left out (``struct {char s[4]; int n;} r[2] = {"ab", 1, "cd", 2}``)."""


def own_list(item: c_ast.Node, t: TypeInfo) -> bool:
    """Whether ``item`` initializes an object of type ``t`` whole, as a list in braces of its own: a brace list,
    or a string literal (or its ``StringItems``) for an array; a string for any other type is reached by eliding
    braces."""
    if isinstance(item, StringItems) or (isinstance(item, c_ast.Constant) and item.type == "string"):
        return t.kind == "array"
    return isinstance(item, c_ast.InitList)


def braced_scalar(item: c_ast.Node) -> c_ast.Node:
    """The expression a scalar's initializer item holds, inside any braces around it (``{{x}}`` is ``x``; the
    checker warned of the extra pairs, and refused an empty one)."""
    while isinstance(item, c_ast.InitList):
        item = item.exprs[0]
    return item


def nested_designation(item: c_ast.NamedInitializer) -> c_ast.NamedInitializer:
    """``.a.b = x`` (or ``[i].m = x``, ``[i][j] = x``) as seen from inside the object its first designator names:
    ``.b = x``, the first item of that object's list, braces elided (C99 6.7.8p17)."""
    return c_ast.NamedInitializer(item.name[1:], item.expr, item.coord)


def designated_member(types: TypeResolver, t: TypeInfo, name: str) -> tuple[int, bool] | None:
    """Which member of the struct ``t`` the designator ``.name =`` starts at: its position, and whether that is an
    anonymous struct or union member holding ``name`` (C11 6.7.9p7: the list then goes on inside it), or None."""
    for k, (field_name, mt) in enumerate(types.fields(t.name)):
        if field_name == name:
            return k, False
        if field_name is None and mt.kind == "struct" and types.find_member(mt.name, name) is not None:
            return k, True
    return None


def excess_kind(t: TypeInfo) -> str:
    """The word Clang's "excess elements in ... initializer" warning uses for ``t``."""
    if t.kind == "struct":
        return "union" if t.name.startswith("union") else "struct"
    return "array" if t.kind == "array" else "scalar"
