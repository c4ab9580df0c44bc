"""Which ``goto`` statements the executor runs: jumps to a label in a block that encloses the ``goto`` (out of
loops, switches and nested blocks, or within one block: a switch's body is one, its cases' statements among its
items), as the executor runs them in lockstep. Forward (``goto
done;``): the work-items that jump wait, like those that ``break``, until execution reaches the label, and go on
from there with the others. Backward (a loop written with labels, cephes' ``goto fstart``): the work-items that
jump run again from the label while the others wait after the ``goto``'s statement (``exec_statements.items``).
A ``goto`` into a block further on (cephes' ``goto underf`` into nested ``if``s) routes the work-items that jump
into the blocks, if-statements and loops around the label, whatever their conditions (into a loop: past its
initialization and its first test, as C's jump does); one into a switch, or back into a block, is refused at
build time, naming the ``goto``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pycparser import c_ast

from wia_sim.kernels.grammar import StatementExpression

__all__ = [
    "case_key",
    "jump_problems",
    "jumps_out",
    "labels_in",
    "labels_within",
    "switch_items",
    "switch_labels",
    "value_item",
]


@dataclass
class _Label:
    path: list[tuple[int, int, bool]]  # the blocks around it, outermost first (``_Place``)
    tail: bool  # a switch lies between its innermost block's item and the label
    direct: bool  # the label is an item of its innermost block (not inside one of its statements)
    node: c_ast.Label


_Place = tuple[int, int, bool]
"""A block around a statement: its ``id``, the position of the item that holds the statement, and whether a switch
lies between the enclosing block's item and this block."""

_SWITCHES = (c_ast.Switch, c_ast.Case, c_ast.Default)


def switch_items(body: c_ast.Node) -> list[c_ast.Node]:
    """A switch's body as C reads it, one block whose items are its statements with the ``case`` and ``default``
    labels among them, each label an item of its own (pycparser puts a label's statements inside it): a ``goto``
    from one case to a label in the same or another case stays in that block."""
    flat: list[c_ast.Node] = []
    for item in (body.block_items or []) if isinstance(body, c_ast.Compound) else [body]:
        flat.append(item)
        if isinstance(item, c_ast.Case | c_ast.Default):
            flat.extend(item.stmts or [])
    return flat


def switch_labels(body: c_ast.Node) -> list[c_ast.Case | c_ast.Default]:
    """A switch's ``case`` and ``default`` labels in source order, at any depth of its body (C99 6.8.4.2p3), those
    of the switches inside it left to them."""
    found: list[c_ast.Case | c_ast.Default] = []

    def visit(node: c_ast.Node) -> None:
        if isinstance(node, c_ast.Case | c_ast.Default):
            found.append(node)
        for _, child in node.children():
            if not isinstance(child, c_ast.Switch):
                visit(child)

    visit(body)
    return found


def case_key(label: c_ast.Case | c_ast.Default) -> str:
    """What the work-items a switch sends to a label inside a nested statement of its body wait for, as a ``goto``'s
    wait for a label's name (no identifier has a space)."""
    return f"case {id(label)}"


def labels_in(item: c_ast.Node) -> list[str]:
    """The labels an item of a block carries (``a: b: x = 1;`` carries two)."""
    names = []
    while isinstance(item, c_ast.Label):
        names.append(item.name)
        item = item.stmt
    return names


def labels_within(node: c_ast.Node | None, known: dict[int, frozenset[str]]) -> frozenset[str]:
    """Every label in ``node``, at any depth (where a ``goto`` into a block leads: ``exec_statements``), and the
    ``case_key`` of every switch label there (where a switch sends work-items into nested statements), kept in
    ``known`` by the node's ``id`` (``Program.labels``: the program holds its nodes, so no id is reused)."""
    if node is None:
        return frozenset()
    names = known.get(id(node))
    if names is None:
        if isinstance(node, c_ast.Label):
            found = {node.name}
        else:
            found = {case_key(node)} if isinstance(node, c_ast.Case | c_ast.Default) else set()
        for _, child in node.children():
            found |= labels_within(child, known)
        names = known[id(node)] = frozenset(found)
    return names


def jump_problems(body: c_ast.Compound) -> list[tuple[c_ast.Node, str]]:
    """What is wrong with the labels and ``goto`` statements of a function's body, as (node, message)."""
    labels: dict[str, _Label] = {}
    gotos: list[tuple[c_ast.Goto, list[_Place]]] = []
    problems: list[tuple[c_ast.Node, str]] = []

    def visit(node: c_ast.Node | None, path: list[_Place], crossed: bool, direct: bool) -> None:
        if node is None:
            return
        if isinstance(node, c_ast.Label):
            if node.name in labels:
                problems.append((node, f"redefinition of label '{node.name}'"))
            else:
                labels[node.name] = _Label(list(path), crossed, direct, node)
            visit(node.stmt, path, crossed, direct)  # a label's statement is the same item of the block
            return
        if isinstance(node, c_ast.Goto):
            gotos.append((node, list(path)))
            return
        if isinstance(node, c_ast.Compound):
            for k, item in enumerate(node.block_items or []):
                visit(item, [*path, (id(node), k, crossed)], False, True)
            return
        if isinstance(node, c_ast.Switch):  # its body one block, the cases' statements among its items
            for k, item in enumerate(switch_items(node.stmt)):
                if not isinstance(item, c_ast.Case | c_ast.Default):  # (their statements are items themselves)
                    visit(item, [*path, (id(node), k, True)], False, True)
            return
        inside = crossed or isinstance(node, _SWITCHES)
        for _, child in node.children():
            visit(child, path, inside, False)

    visit(body, [], False, False)
    for goto, path in gotos:
        target = labels.get(goto.name)
        if target is None:
            problems.append((goto, f"use of undeclared label '{goto.name}'"))
            continue
        common = 0
        while common < min(len(path), len(target.path)) and path[common][0] == target.path[common][0]:
            common += 1
        if common == len(target.path) and target.direct:  # in a block around the goto: forward or backward
            continue
        deeper = target.path[common:]
        forward = common > 0 and target.path[common - 1][1] > path[common - 1][1]
        if forward and not target.tail and not any(crossed for _, _, crossed in deeper):
            continue  # on into blocks and if-statements further on (``exec_statements``: routed there)
        problems.append(
            (
                goto,
                f"a goto into a block is not supported here ('goto {goto.name}': the label is inside a switch, or "
                "before the goto; a later label inside blocks, if-statements and loops is)",
            )
        )
    return problems


# ---------------------------------------------------------------------------------------------------------------
# GNU statement expressions: no jump leaves one; its value is its last item's, when that is an expression

_JUMPS: dict[type, str] = {
    c_ast.Return: "return",
    c_ast.Break: "break",
    c_ast.Continue: "continue",
    c_ast.Goto: "goto",
    c_ast.Label: "label",
}
_STATEMENTS = (
    c_ast.Decl, c_ast.DeclList, c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch, c_ast.Compound,
    c_ast.EmptyStatement, c_ast.Typedef, c_ast.Pragma, c_ast.StaticAssert, c_ast.Case, c_ast.Default, *_JUMPS,
)  # fmt: skip


def jumps_out(items: list[c_ast.Node]) -> list[tuple[c_ast.Node, str]]:
    """The jumps among a statement expression's ``items`` that may leave it, and their words: a ``return``, a
    ``goto`` or label, a ``break``/``continue`` outside the loops (a ``break`` outside the switches) there."""
    found: list[tuple[c_ast.Node, str]] = []
    stack: list[tuple[c_ast.Node, bool, bool]] = [(item, False, False) for item in items]
    while stack:
        node, in_loop, in_switch = stack.pop()
        word = _JUMPS.get(type(node))
        inside = (isinstance(node, c_ast.Break) and (in_loop or in_switch)) or (
            isinstance(node, c_ast.Continue) and in_loop
        )
        if word is not None and not inside:
            found.append((node, word))
        loop = in_loop or isinstance(node, c_ast.For | c_ast.While | c_ast.DoWhile)
        switch = in_switch or isinstance(node, c_ast.Switch)
        stack.extend((child, loop, switch) for _, child in node.children())
    return found


def value_item(items: list[c_ast.Node]) -> c_ast.Node | None:
    """A statement expression's last item when it is an expression (the statement expression's value; another
    statement expression too, ``grammar.StatementExpression``, which a nested block is not), else None (the
    statement expression is void)."""
    if not items or (isinstance(items[-1], _STATEMENTS) and not isinstance(items[-1], StatementExpression)):
        return None
    return items[-1]
