"""Which ``goto`` statements the executor runs: jumps to a label in a block that encloses the ``goto`` (out of
loops, switches and nested blocks, or within one block), as the executor runs them in lockstep. Forward (``goto
done;``): the work-items that jump wait, like those that ``break``, until execution reaches the label, and go on
from there with the others. Backward (a loop written with labels, cephes' ``goto fstart``): the work-items that
jump run again from the label while the others wait after the ``goto``'s statement (``exec_statements.items``).
A ``goto`` into a block is refused at build time, naming the ``goto``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

__all__ = ["jump_problems", "labels_in"]


@dataclass
class _Label:
    block: int  # id of the Compound whose item it is (0: not an item of a block)
    position: int
    node: c_ast.Label


def labels_in(item: c_ast.Node) -> list[str]:
    """The labels an item of a block carries (``a: b: x = 1;`` carries two)."""
    names = []
    while isinstance(item, c_ast.Label):
        names.append(item.name)
        item = item.stmt
    return names


def jump_problems(body: c_ast.Compound) -> list[tuple[c_ast.Node, str]]:
    """What is wrong with the labels and ``goto`` statements of a function's body, as (node, message)."""
    labels: dict[str, _Label] = {}
    gotos: list[tuple[c_ast.Goto, list[tuple[int, int]]]] = []
    problems: list[tuple[c_ast.Node, str]] = []

    def visit(node: c_ast.Node | None, path: list[tuple[int, int]], block: int, position: int) -> None:
        if node is None:
            return
        if isinstance(node, c_ast.Label):
            if node.name in labels:
                problems.append((node, f"redefinition of label '{node.name}'"))
            else:
                labels[node.name] = _Label(block, position, node)
            visit(node.stmt, path, block, position)  # a label's statement is the same item of the block
            return
        if isinstance(node, c_ast.Goto):
            gotos.append((node, list(path)))
            return
        if isinstance(node, c_ast.Compound):
            for k, item in enumerate(node.block_items or []):
                visit(item, [*path, (id(node), k)], id(node), k)
            return
        if isinstance(node, c_ast.Case | c_ast.Default):
            for s in node.stmts or []:
                visit(s, path, 0, 0)
            return
        for _, child in node.children():
            visit(child, path, 0, 0)

    visit(body, [], 0, 0)
    for goto, path in gotos:
        target = labels.get(goto.name)
        if target is None:
            problems.append((goto, f"use of undeclared label '{goto.name}'"))
            continue
        where = dict(path)
        if target.block == 0 or target.block not in where:
            problems.append(
                (
                    goto,
                    f"a goto into a block is not supported ('goto {goto.name}': the label is not in a block around it)",
                )
            )
    return problems
