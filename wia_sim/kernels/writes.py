"""Which buffers a custom kernel may write: a static, conservative reading of its source.

The simulator's stream hazard check (wia_sim/hazards.py) counts a kernel's writes only to the buffers it may
store through, and the sim backend reads the others in place instead of copying them.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator

from pycparser import c_ast

from wia_sim.kernels.program import KernelInfo, Program

_READING_BUILTINS = frozenset(
    [f"vload{n}" for n in (2, 3, 4, 8, 16)] + ["vload_half"] + [f"vload_half{n}" for n in (2, 3, 4, 8, 16)]
)
"""Built-ins that only read through their pointer argument. Any other built-in given a pointer (``vstore``,
atomics, asynchronous copies) is taken to write through it."""

_STATEMENTS = (c_ast.Compound, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.If)
_COMPARISONS = frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||"})
_INCREMENTS = frozenset({"++", "--", "p++", "p--"})

_written_cache: weakref.WeakKeyDictionary[c_ast.FuncDef, tuple[bool, ...]] = weakref.WeakKeyDictionary()


def kernel_writes(program: Program, kernel: KernelInfo) -> tuple[bool, ...]:
    """For each parameter of ``kernel``: whether the kernel may store through it (False for values and for
    buffers it only reads).

    Static and conservative: a buffer parameter counts as read-only only if every use of it, and of every pointer
    derived from it (arithmetic, casts, variables it is assigned to, helper functions it is passed to), is a read
    of an element, a comparison, or a ``vload``. Anything else (a store, an increment, an atomic, ``vstore``, a
    pointer stored in memory or returned) counts as a write. ``const`` and ``__constant`` parameters are
    read-only (the executor refuses writes through them).
    """
    cached = _written_cache.get(kernel.node)
    if cached is None:
        cached = tuple(
            p.kind == "buffer"
            and not (p.const or p.address_space == "constant")
            and _may_write(program, kernel.node, p.name, set())
            for p in kernel.params
        )
        _written_cache[kernel.node] = cached
    return cached


def _walk(node: c_ast.Node, parent: dict[int, tuple[c_ast.Node, str]]) -> Iterator[c_ast.Node]:
    for field, child in node.children():
        parent[id(child)] = (node, field)
        yield child
        yield from _walk(child, parent)


def _may_write(program: Program, function: c_ast.FuncDef, name: str, active: set[tuple[int, str]]) -> bool:
    """Whether ``function`` may store through the pointer parameter ``name`` (or a pointer derived from it)."""
    key = (id(function), name)
    if key in active:  # the front end rejects recursion; be safe anyway
        return True
    active = active | {key}
    parent: dict[int, tuple[c_ast.Node, str]] = {}
    ids: dict[str, list[c_ast.ID]] = {}
    for node in _walk(function.body, parent):
        if isinstance(node, c_ast.ID):
            up, field = parent[id(node)]
            if not ((isinstance(up, c_ast.StructRef) and field == "field") or isinstance(up, c_ast.FuncCall)):
                ids.setdefault(node.name, []).append(node)  # a variable, not a member, swizzle or callee name
    aliases, pending = {name}, [name]
    while pending:
        for use in ids.get(pending.pop(), []):
            found = _pointer_use(program, use, parent, active)
            if found is True:
                return True
            if isinstance(found, str) and found not in aliases:
                aliases.add(found)
                pending.append(found)
    return False


def _pointer_use(
    program: Program, node: c_ast.Node, parent: dict[int, tuple[c_ast.Node, str]], active: set[tuple[int, str]]
) -> bool | str:
    """What happens to the pointer value ``node``: True (it may be written through), False (only read through),
    or the name of a variable it is stored in (whose uses must be looked at too)."""
    while True:
        up, field = parent.get(id(node), (None, ""))
        if isinstance(up, _STATEMENTS):
            return False  # a condition, or an expression statement whose value is discarded
        if isinstance(up, c_ast.ArrayRef):
            if field == "name":
                return _element_use(program, up, parent, active)
            return True  # i[p]: legal C, never seen; be safe
        if isinstance(up, c_ast.UnaryOp):
            if up.op == "*":
                return _element_use(program, up, parent, active)
            if up.op in ("!", "sizeof", "vec_step"):
                return False
            if up.op in _INCREMENTS:  # the pointer variable moves; its value goes on
                node = up
                continue
            return True
        if isinstance(up, c_ast.StructRef):
            if field == "name" and up.type == "->":
                return _element_use(program, up, parent, active)
            return True
        if isinstance(up, c_ast.BinaryOp):
            if up.op in _COMPARISONS:
                return False
            if up.op in ("+", "-"):
                node = up
                continue
            return True
        if isinstance(up, c_ast.Cast):
            node = up
            continue
        if isinstance(up, c_ast.TernaryOp):
            if field == "cond":
                return False
            node = up
            continue
        if isinstance(up, c_ast.Assignment):
            if field == "rvalue" and up.op == "=" and isinstance(up.lvalue, c_ast.ID):
                return str(up.lvalue.name)
            return field != "lvalue"  # as the left side, the variable itself is reassigned: no store through it
        if isinstance(up, c_ast.Decl):
            return str(up.name) if field == "init" and up.name else True
        if isinstance(up, c_ast.ExprList):
            call, _ = parent.get(id(up), (None, ""))
            if isinstance(call, c_ast.FuncCall) and isinstance(call.name, c_ast.ID):
                callee = str(call.name.name)
                if callee in _READING_BUILTINS:
                    return False
                helper = program.callable(callee)
                if helper is None:
                    return True
                position = next(i for i, arg in enumerate(up.exprs) if arg is node)
                if position >= len(helper.params):
                    return True
                return _may_write(program, helper.node, helper.params[position].name, active)
            return True
        return True


def _element_use(
    program: Program, node: c_ast.Node, parent: dict[int, tuple[c_ast.Node, str]], active: set[tuple[int, str]]
) -> bool | str:
    """What happens to the memory element ``node`` (``p[i]``, ``*p``, ``p->f``): stored to (True), read (False),
    or its address taken (then as for a pointer)."""
    while True:
        up, field = parent.get(id(node), (None, ""))
        if isinstance(up, c_ast.Assignment) and field == "lvalue":
            return True
        if isinstance(up, c_ast.UnaryOp):
            if up.op in _INCREMENTS:
                return True
            if up.op == "&":
                return _pointer_use(program, up, parent, active)
            return False
        if isinstance(up, c_ast.StructRef) and field == "name":
            node = up  # a member or vector component of the element
            continue
        if isinstance(up, c_ast.ArrayRef) and field == "name":
            node = up  # an element of an array element
            continue
        return False
