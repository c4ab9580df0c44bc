"""Whether control can run off the end of a function's body: Clang's -Wreturn-type warning for a function that
returns a value ("non-void function does not return a value", "... in all control paths"). Worked out from the
statements' structure as Clang's CFG sees it: a ``return`` ends a path, so do ``break``, ``continue`` and ``goto``
(a label starts one again, a ``case`` and a ``default`` too), a loop whose condition is a nonzero constant (or a
``for`` without one) ends only through a ``break``, a condition that is a constant takes its one branch, and a
switch without ``default`` can go past its cases."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pycparser import c_ast

__all__ = ["falls_off"]

Constant = Callable[[c_ast.Node], int | None]


@dataclass(frozen=True)
class _Flow:
    """How control leaves a statement: past its end (``falls``), by a ``break`` or a ``continue`` of a loop or
    switch around it."""

    falls: bool
    breaks: bool = False
    continues: bool = False


_THROUGH = _Flow(True)


def falls_off(body: c_ast.Compound, constant: Constant) -> bool:
    """Whether some path through ``body`` reaches its end (``constant``: an integer constant expression's value,
    None for one that is not)."""
    return _flow(body, constant).falls


def _items(items: list[c_ast.Node], constant: Constant) -> _Flow:
    reachable, breaks, continues = True, False, False
    for item in items:
        if isinstance(item, c_ast.Label | c_ast.Case | c_ast.Default):
            reachable = True  # (a goto's or a switch's way in)
        if not reachable:
            continue
        flow = _flow(item, constant)
        breaks, continues, reachable = breaks or flow.breaks, continues or flow.continues, flow.falls
    return _Flow(reachable, breaks, continues)


def _flow(node: c_ast.Node | None, constant: Constant) -> _Flow:
    if node is None:
        return _THROUGH
    if isinstance(node, c_ast.Return | c_ast.Goto):
        return _Flow(False)
    if isinstance(node, c_ast.Break):
        return _Flow(False, breaks=True)
    if isinstance(node, c_ast.Continue):
        return _Flow(False, continues=True)
    if isinstance(node, c_ast.Compound):
        return _items(node.block_items or [], constant)
    if isinstance(node, c_ast.Label):
        return _flow(node.stmt, constant)
    if isinstance(node, c_ast.Case | c_ast.Default):
        return _items(node.stmts or [], constant)
    if isinstance(node, c_ast.If):
        value = constant(node.cond)
        branches = [node.iftrue] if value else [node.iffalse] if value == 0 else [node.iftrue, node.iffalse]
        flows = [_flow(b, constant) for b in branches]
        return _Flow(any(f.falls for f in flows), any(f.breaks for f in flows), any(f.continues for f in flows))
    if isinstance(node, c_ast.While | c_ast.For | c_ast.DoWhile):
        value = None if node.cond is None else constant(node.cond)
        forever = node.cond is None or bool(value)
        if isinstance(node, c_ast.While | c_ast.For) and value == 0:
            return _THROUGH  # (the body never runs)
        body = _flow(node.stmt, constant)
        if isinstance(node, c_ast.DoWhile):  # (its test is reached through the body)
            return _Flow(body.breaks or (not forever and (body.falls or body.continues)))
        return _Flow(body.breaks or not forever)
    if isinstance(node, c_ast.Switch):
        body = _flow(node.stmt, constant)
        items = node.stmt.block_items or [] if isinstance(node.stmt, c_ast.Compound) else [node.stmt]
        default = any(isinstance(item, c_ast.Default) for item in items)
        return _Flow(body.falls or body.breaks or not default, continues=body.continues)
    return _THROUGH
