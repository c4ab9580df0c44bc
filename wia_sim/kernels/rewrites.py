"""The text rewritten around the parser where OpenCLCParser's grammar does not read OpenCL C as Clang does:
before parsing, GCC's alternate keywords spelt as the standard ones (``__extension__`` and Clang's nullability
qualifiers blanked), the address spaces after a ``*`` taken out and a half constant's ``h`` respelt; after it,
each put back on the AST, and vector literals read as Clang reads them.

Apart from the grammar (``grammar.py``): these edit the text and the tree, not the parser's rules, and each keeps
every column, so that the parser's places stay the source's.
"""

from __future__ import annotations

import re

from pycparser import c_ast
from pycparser.c_parser import Coord, ParseError

from wia_sim.kernels.grammar import PRELUDE_TYPES
from wia_sim.kernels.numeric_literals import PP_NUMBER, literal_error
from wia_sim.kernels.tokens import STRING_LITERAL
from wia_sim.kernels.types import VECTOR_BASES, VECTOR_WIDTHS, makes_vector

__all__ = [
    "gnu_keywords",
    "half_literals",
    "pointer_spaces",
    "restore_half_literals",
    "restore_pointer_spaces",
    "set_child",
    "vector_literals",
]

_SPACE_WORDS = r"__global|global|__local|local|__constant|constant|__private|private"
_POINTER_SPACE = re.compile(rf"\*((?:\s*(?:const|volatile|restrict|{_SPACE_WORDS})\b)*\s*(?:{_SPACE_WORDS})\b)")


def pointer_spaces(text: str) -> tuple[str, dict[tuple[int, int], list[str]], list[tuple[int, int, str]]]:
    """``text`` without the address spaces written after a ``*`` (``__global float* __local t[2]``: an array in
    ``__local`` memory of pointers to ``__global`` memory), which OpenCLCParser's declarator grammar does not take
    (it takes only ``const``, ``volatile`` and ``restrict`` there), blanked to keep every column; the ones after each
    ``*`` by the line and column of the ``*``, for ``restore_pointer_spaces``; and where each stood, as (line,
    column, keyword) (``ParseOutcome.keyword_places``)."""
    spaces: dict[tuple[int, int], list[str]] = {}
    places: list[tuple[int, int, str]] = []
    literals = [(m.start(), m.end()) for m in STRING_LITERAL.finditer(text)]

    def blank(m: re.Match[str]) -> str:
        at = m.start()
        if any(a <= at < b for a, b in literals):  # ``printf("x * local")``: text, not a declarator
            return m.group(0)
        line = text.count("\n", 0, at) + 1
        line_start = text.rfind("\n", 0, at) + 1
        words = m.group(1)
        kept = list(words)
        for word in re.finditer(rf"\b(?:{_SPACE_WORDS})\b", words):
            spaces.setdefault((line, at - line_start + 1), []).append("__" + word.group().strip("_"))
            places.append((line, m.start(1) + word.start() - line_start + 1, word.group()))
            kept[word.start() : word.end()] = " " * len(word.group())
        return "*" + "".join(kept)

    return _POINTER_SPACE.sub(blank, text), spaces, places


def restore_pointer_spaces(ast: c_ast.FileAST, spaces: dict[tuple[int, int], list[str]]) -> None:
    """Put each address space ``pointer_spaces`` took out back on its pointer (``PtrDecl.quals``): the space of
    the pointer object itself, as a qualifier after ``*`` means."""

    class Visitor(c_ast.NodeVisitor):  # type: ignore[misc]
        def visit_PtrDecl(self, node: c_ast.PtrDecl) -> None:
            coord = node.coord
            given = spaces.get((coord.line, coord.column)) if coord is not None else None
            if given is not None:
                node.quals = [*node.quals, *given]
            self.generic_visit(node)

    Visitor().visit(ast)


def half_literals(text: str) -> tuple[str, dict[tuple[int, int], str]]:
    """``text`` with each half constant (``1.5h``, ``2e-3H``: OpenCL C 1.2 6.1.1.1, with cl_khr_fp16) spelt as a
    float constant, whose suffix pycparser knows (the same length: columns stay); and each one's own spelling by
    the line and column where it starts, for ``restore_half_literals``."""
    halves: dict[tuple[int, int], str] = {}
    if "h" not in text and "H" not in text:
        return text, halves
    literals: list[tuple[int, int]] | None = None
    parts: list[str] = []
    done = 0
    for m in PP_NUMBER.finditer(text):
        number = m.group(0)
        if number[-1] not in "hH" or not _FLOAT_DIGITS.fullmatch(number[:-1]) or literal_error(number) is not None:
            continue
        if literals is None:
            literals = [(a.start(), a.end()) for a in STRING_LITERAL.finditer(text)]
        at = m.start()
        if any(a <= at < b for a, b in literals):
            continue
        halves[(text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at))] = number
        parts.append(text[done : m.end() - 1] + "f")
        done = m.end()
    return "".join(parts) + text[done:], halves


_FLOAT_DIGITS = re.compile(
    r"(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?=[eE]))(?:[eE][+-]?[0-9]+)?"
    r"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+"
)
"""A floating constant without its suffix: decimal, or hexadecimal with its binary exponent (before which an
``h`` would be one of its digits)."""


def restore_half_literals(ast: c_ast.FileAST, halves: dict[tuple[int, int], str]) -> None:
    """Give each constant ``half_literals`` respelt its own spelling back (the checker and the executor read
    its type from the suffix)."""

    class Visitor(c_ast.NodeVisitor):  # type: ignore[misc]
        def visit_Constant(self, node: c_ast.Constant) -> None:
            coord = node.coord
            spelt = halves.get((coord.line, coord.column)) if coord is not None else None
            if spelt is not None:
                node.value = spelt

    Visitor().visit(ast)


_VECTOR_NAME = re.compile(rf"({'|'.join(VECTOR_BASES)})({'|'.join(str(w) for w in VECTOR_WIDTHS)})")


def vector_literals(
    ast: c_ast.FileAST,
    parentheses: dict[int, tuple[c_ast.Node, int]],
    literal_operands: dict[int, tuple[c_ast.Cast, Coord]],
) -> None:
    """Vector literals read as Clang reads OpenCL's (OpenCL C 1.2 6.1.6: ``(type)(parts)``, a postfix
    expression), where pycparser's C reading differs:

    - a member, swizzle, subscript or postfix ``++``/``--`` after the literal is the literal's:
      ``(float4)(1, 2, 3, 4).y``, ``(int4)(v).y`` and ``(int2)(v.zw).y`` are a component of the literal, where C
      would cast ``(v).y``; ``(int4)((v).y)``, the operand in parentheses of its own, stays a literal of ``v.y``;
    - a comma expression in its own parentheses is one part: ``(int2)((1, 2))`` is ``(int2)(2)``, not ``(1, 2)``.

    A cast to a type that is not a vector (a scalar's, ``(float)(f).y``) keeps C's reading. Vector types are
    known by name: the built-in ones, every typedef of one, at file scope or in a function, and Clang's
    ``typedef int T __attribute__((ext_vector_type(3)))``."""
    vectors = {name for name in PRELUDE_TYPES if _VECTOR_NAME.fullmatch(name)}

    class Typedefs(c_ast.NodeVisitor):  # type: ignore[misc]
        def visit_Typedef(self, node: c_ast.Typedef) -> None:  # (in source order: chains of them resolve)
            if _type_name(node.type) in vectors or makes_vector(node.type):
                vectors.add(node.name)

    Typedefs().visit(ast)

    def depth(node: c_ast.Node) -> int:
        return parentheses.get(id(node), (node, 0))[1]

    def literal(cast: c_ast.Cast) -> c_ast.Node:
        if _type_name(cast.to_type.type) not in vectors:
            operand = literal_operands.get(id(cast))
            if operand is not None:  # ``sizeof (int)(v)``: Clang's words, at the '('
                message = "expression cannot be followed by a postfix '(' operator; add parentheses"
                raise ParseError(f"{operand[1]}: {message}")
            return cast
        if isinstance(cast.expr, c_ast.ExprList) and depth(cast.expr) >= 2:
            cast.expr = c_ast.ExprList([cast.expr], cast.expr.coord)
        if depth(cast.expr):  # ``(int4)(v)``, ``(int4)((v).y)``: the literal's parts, with nothing after it
            return cast
        node = cast.expr
        while True:  # down the postfix operators to the parenthesized primary the literal ends with
            if isinstance(node, c_ast.StructRef | c_ast.ArrayRef):
                field = "name"
            elif isinstance(node, c_ast.UnaryOp) and node.op in ("p++", "p--"):
                field = "expr"
            else:
                return cast
            inner = getattr(node, field)
            if depth(inner):
                setattr(node, field, literal(c_ast.Cast(cast.to_type, inner, cast.coord)))
                return cast.expr
            node = inner

    def visit(node: c_ast.Node) -> None:
        for name, child in node.children():
            fixed = literal(child) if isinstance(child, c_ast.Cast) else child
            if fixed is not child:
                set_child(node, name, fixed)
            visit(fixed)

    visit(ast)


def set_child(node: c_ast.Node, name: str, child: c_ast.Node) -> None:
    """Put ``child`` where ``node.children()`` names one (``"expr"``, ``"exprs[2]"``)."""
    field, _, index = name.partition("[")
    if index:
        getattr(node, field)[int(index[:-1])] = child
    else:
        setattr(node, field, child)


def _type_name(node: c_ast.Node) -> str | None:
    """The one name a declarator without pointers or arrays names its type by (``float4``), else None."""
    if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, c_ast.IdentifierType) and len(node.type.names) == 1:
        return str(node.type.names[0])
    return None


_GNU_KEYWORDS = {
    **{f"__{w}{tail}": w for w in ("inline", "const", "restrict", "volatile", "signed") for tail in ("", "__")},
    "__extension__": "",
    **dict.fromkeys(("_Nonnull", "_Nullable", "_Null_unspecified", "_Nullable_result"), ""),
}
"""GCC's alternate keywords, which Clang takes in OpenCL C (``__inline``, ``__const__``, ...), ``__extension__``
(it only silences pedantic warnings) and Clang's nullability qualifiers (``int* _Nonnull p``: a promise to its
static analyzer, nothing at run time), as the standard keyword each is, or nothing."""
_GNU_KEYWORD = re.compile(r"\b(" + "|".join(sorted(_GNU_KEYWORDS, key=len, reverse=True)) + r")\b")


def gnu_keywords(text: str) -> str:
    """``text`` with ``_GNU_KEYWORDS`` spelt as the standard keywords (padded with blanks: columns stay), outside
    string and character literals."""
    literals = [(m.start(), m.end()) for m in STRING_LITERAL.finditer(text)]

    def standard(m: re.Match[str]) -> str:
        if any(a <= m.start() < b for a, b in literals):
            return m.group(0)
        return _GNU_KEYWORDS[m.group(1)].ljust(len(m.group(1)))

    return _GNU_KEYWORD.sub(standard, text) if "__" in text or "_Nu" in text or "_No" in text else text
