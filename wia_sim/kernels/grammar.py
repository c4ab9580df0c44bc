"""The grammar the parser reads OpenCL C by: pycparserext's ``OpenCLCParser`` and its lexer, taking what Clang
takes beyond them (GNU's ``__typeof__``, statement expressions, case and designator ranges, attributes before a
statement, a declaration without a type), the nodes it makes that pycparser has no class for, and the prelude that
typedefs the OpenCL type names the parser does not predefine.

Apart from ``parsing.py``, which runs it, so that what the parser takes is decided in one place; what the rest of
the front end asks of the parser (``KEYWORDS``, a ``Parser``'s scope) is asked here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pycparser import c_ast
from pycparser import c_lexer as c_keywords
from pycparser.c_parser import Coord
from pycparserext.ext_c_lexer import OpenCLCLexer
from pycparserext.ext_c_parser import (
    AttributeSpecifier,
    OpenCLCParser,
    RangeExpression,
    StructExt,
    TypeOfDeclaration,
    TypeOfExpression,
)

from wia_sim.kernels.types import OPAQUE_TYPES, VECTOR_BASES, VECTOR_WIDTHS, named_type

__all__ = [
    "BUILTIN_FILE",
    "FOREIGN_TYPE_NAMES",
    "KEYWORDS",
    "PRELUDE",
    "PRELUDE_TYPES",
    "SOURCE_FILE",
    "TYPED_BUILTINS",
    "Parser",
    "StatementAttributes",
    "StatementExpression",
]

BUILTIN_FILE = "<builtins>"
SOURCE_FILE = "<source>"
_PLACED_KEYWORDS = frozenset(
    {"STATIC", "EXTERN", "AUTO", "REGISTER", "GLOBAL", "__GLOBAL__", "LOCAL", "__LOCAL__"}
    | {"CONSTANT", "__CONSTANT__", "PRIVATE", "__PRIVATE__"}
)
"""The storage-class and address-space keywords whose places the parser keeps (``ParseOutcome.keyword_places``)."""
# type names the parser must know; those its OpenCLCParser does not predefine are typedef'd in a prelude
PRELUDE_TYPES: dict[str, str] = {
    "cl_mem_fence_flags": "uint",
    **{f"{b}{w}": b for b in VECTOR_BASES for w in VECTOR_WIDTHS},
    **{name: "int" for name in OPAQUE_TYPES},
    **{name: "int" for name in ("uchar", "ushort", "uint", "ulong", "half", "bool", "size_t", "ptrdiff_t")},
}


class StatementExpression(c_ast.Compound):  # type: ignore[misc]
    """A GNU statement expression ``({ ... })``: a block that is an expression (told apart from a nested block,
    also a ``Compound``, by its class: the last item of one may be another)."""

    __slots__ = ()


FOREIGN_TYPE_NAMES = frozenset(n for n in OpenCLCParser.initial_type_symbols if named_type(n) is None)
"""Type names the parser predefines that OpenCL C does not have (C99's ``int32_t``, ``intmax_t``, ...): the parser
parses them as types, and the front end reports them undeclared unless the program defines them."""


def _prelude() -> str:
    known = OpenCLCParser.initial_type_symbols
    typedefs = [f"typedef {base} {name};" for name, base in PRELUDE_TYPES.items() if name not in known]
    return "\n".join(typedefs) + ("\n" if typedefs else "") + f'#line 1 "{SOURCE_FILE}"\n'


PRELUDE = _prelude()


@dataclass(frozen=True)
class StatementAttributes:
    """``__attribute__((...))`` lists before a statement: the statement (kept alive: the key is its ``id``), the
    attributes, and where the statement itself starts (Clang's place for a warning about it)."""

    statement: c_ast.Node
    attributes: list[c_ast.Node]
    start: Coord


_TYPEOF = {"__typeof__": "__TYPEOF__", "__typeof": "__TYPEOF"}
"""GNU's ``typeof`` operator, as Clang spells it in OpenCL C (plain ``typeof`` is no keyword there: C23's and GNU
C's, not C99's)."""
TYPED_BUILTINS = frozenset({"__builtin_astype", "__builtin_convertvector"})
"""Clang's built-ins behind ``as_T(e)`` and ``convert_T(e)``, whose second argument is a type name (Halide writes
``__builtin_astype(x, half)`` in every fp16 kernel): ``Parser._parse_typed_builtin``."""
_TYPEOF_TOKENS = frozenset(_TYPEOF.values())
_ATTRIBUTE_TOKENS = frozenset({"__ATTRIBUTE__", "__ATTRIBUTE"})
"""GNU's attribute keywords, as the lexer names them."""
_QUALIFIER_TOKENS = frozenset({"CONST", "VOLATILE", "RESTRICT"}) | {
    f"{prefix}{space}{suffix}"
    for space in ("GLOBAL", "LOCAL", "CONSTANT", "PRIVATE")
    for prefix, suffix in (("", ""), ("__", "__"))
}
"""The type qualifiers a type name may hold around a ``__typeof__`` (the lexer's tokens: C's and the address spaces)."""


class _Lexer(OpenCLCLexer):  # type: ignore[misc]
    """pycparserext's OpenCL C lexer, with ``_TYPEOF``'s keywords."""

    _extra_keywords = {**OpenCLCLexer._extra_keywords, **_TYPEOF}  # noqa: RUF012 (the base's class-level table)


class Parser(OpenCLCParser):  # type: ignore[misc]
    """pycparserext's parser, noting how many pairs of parentheses stood around each expression: pycparser's AST
    keeps none, and an OpenCL vector literal is told from C's cast and comma expression by them
    (``rewrites.vector_literals``). GNU's ``__typeof__`` as a type specifier too (pycparserext's GNU parser's
    ``TypeOfExpression``/``TypeOfDeclaration``; its OpenCL parser has none)."""

    lexer_class = _Lexer

    def __init__(self) -> None:
        super().__init__()
        self.parentheses: dict[int, tuple[c_ast.Node, int]] = {}  # by id: the node (kept alive) and the pairs
        self.literal_operands: dict[int, tuple[c_ast.Cast, Coord]] = {}  # ``sizeof (T)(x)``: by id, and the '('
        self.keyword_places: set[tuple[int, int, str]] = set()  # (``ParseOutcome.keyword_places``)
        self.empty_declarations: set[tuple[int, int]] = set()  # (``ParseOutcome.empty_declarations``)
        self.statement_attributes: dict[int, StatementAttributes] = {}  # (``ParseOutcome.statement_attributes``)
        self.implicit_ints: set[tuple[int, int]] = set()  # (``ParseOutcome.implicit_ints``)
        self._untyped: bool | None = None  # (``_parse_parameter_declaration``: whether its specifiers name no type)

    def _fix_decl_name_type(self, decl: Any, typename: list[Any]) -> Any:
        """A declaration with qualifiers but no type (``const x = 1;``) is an ``int`` with Clang's warning, as C89's
        implicit int (pycparser refuses it: "missing type in declaration")."""
        untyped = not typename and isinstance(decl, c_ast.Decl) and not isinstance(decl.type, c_ast.FuncDecl)
        after = self._peek() if untyped else None
        if untyped and not (after is not None and after.type in ("ID", "TYPEID")):  # (``const T x``: T unknown)
            typename = [c_ast.IdentifierType(["int"], coord=decl.coord)]
            self._implicit_int(decl)
        return super()._fix_decl_name_type(decl, typename)

    def _implicit_int(self, decl: c_ast.Decl) -> None:
        """Where Clang warns of ``decl``'s implicit int: at its name (past a pointer's ``*``)."""
        named = decl.type
        while not isinstance(named, c_ast.TypeDecl) and getattr(named, "type", None) is not None:
            named = named.type
        coord = named.coord if isinstance(named, c_ast.TypeDecl) and named.coord is not None else decl.coord
        if coord is not None and coord.column:
            self.implicit_ints.add((coord.line, coord.column))

    def _starts_declaration(self, tok: Any = None) -> bool:
        tok = tok or self._peek()
        return tok is not None and (tok.type in _TYPEOF_TOKENS or bool(super()._starts_declaration(tok)))

    def _parse_block_item(self) -> Any:
        """A block item that starts with GNU attributes is a statement where what follows them does not start a
        declaration (pycparserext reads attributes as a declaration's specifiers alone)."""
        if self._peek_type() in _ATTRIBUTE_TOKENS:
            after = self._peek(self._past_attributes())
            if after is not None and after.type != "_STATIC_ASSERT" and not self._starts_declaration(after):
                return self._parse_statement()
        return super()._parse_block_item()

    def _parse_statement(self) -> Any:
        """A statement, after the GNU attributes written before it (C2x's place for them; Clang takes GNU ones
        there in C too): kept beside it for the checker (``StatementAttributes``)."""
        if self._peek_type() not in _ATTRIBUTE_TOKENS:
            return super()._parse_statement()
        attributes = self._parse_attributes_opt().exprs
        start = self._peek()
        statement = self._parse_statement()
        coord = self._tok_coord(start) if start is not None else statement.coord
        self.statement_attributes[id(statement)] = StatementAttributes(statement, attributes, coord)
        return statement

    def _past_attributes(self) -> int:
        """How far ahead (``_peek``'s count) the first token after the attribute lists at the next token is."""
        k = 1
        while self._peek_type(k) in _ATTRIBUTE_TOKENS:
            k += 1
            depth = 0
            while self._peek_type(k) is not None:
                kind = self._peek_type(k)
                depth += 1 if kind == "LPAREN" else -1 if kind == "RPAREN" else 0
                k += 1
                if depth == 0:
                    break
        return k

    def _parse_typeof(self) -> c_ast.Node:
        """``__typeof__(type-name)`` or ``__typeof__(expression)``, as pycparserext's GNU parser reads them."""
        tok = self._advance()
        coord = self._tok_coord(tok)
        self._expect("LPAREN")
        if self._starts_declaration():
            node: c_ast.Node = TypeOfDeclaration(tok.value, self._parse_parameter_declaration(), coord)
        else:
            node = TypeOfExpression(tok.value, self._parse_expression(), coord)
        self._expect("RPAREN")
        return node

    def _with_typeof(self, run: Any) -> tuple[Any, bool, Any]:
        """Specifiers with a ``__typeof__`` among them: the runs before and after it parsed by ``run`` (the base's
        parser, giving a spec, whether it holds a type, and where it starts), the specifiers merged; a type
        specifier beside the ``__typeof__`` is Clang's error."""
        spec: Any = None
        saw_type, first = False, None
        while True:
            if self._peek_type() in _TYPEOF_TOKENS:
                first = first or self._tok_coord(self._peek())
                spec = self._add_declaration_specifier(spec, self._parse_typeof(), "type", append=True)
                saw_type = True
                continue
            # (after a type, a typedef name is the declarator's: ``__typeof__(x) T;`` declares T)
            more = self._starts_declaration() and not (saw_type and self._peek_type() == "TYPEID")
            if spec is not None and not more:
                break
            part, part_saw, part_first = run()
            if spec is None:
                spec, first = part, part_first
            else:
                for key, values in part.items():
                    spec[key] = [*spec.get(key, []), *values]
            saw_type = saw_type or part_saw
            if self._peek_type() not in _TYPEOF_TOKENS:
                break
        self._typeof_alone(spec["type"])
        return spec, saw_type, first

    def _typeof_alone(self, types: list[c_ast.Node]) -> None:
        """Clang's error for a type specifier beside a ``__typeof__`` (``types``: the specifiers, in order), at the
        first: the sign (``'typeof' cannot be signed or unsigned``), the width (``'long typeof' is invalid``), or
        the later of the two (``cannot combine with previous 'int' declaration specifier``)."""
        at = next(k for k, t in enumerate(types) if isinstance(t, TypeOfExpression | TypeOfDeclaration))
        others = [k for k in range(len(types)) if k != at]
        if not others:
            return
        k = others[0]
        other = types[k]
        if isinstance(other, c_ast.IdentifierType):
            word = other.names[0]
        elif isinstance(other, TypeOfExpression | TypeOfDeclaration):
            word = "typeof"
        else:  # a struct, union or enum specifier
            word = type(other).__name__.lower()
        if word in ("signed", "unsigned"):
            self._parse_error("'typeof' cannot be signed or unsigned", other.coord)
        if word in ("long", "short"):
            self._parse_error(f"'{word} typeof' is invalid", other.coord)
        if k < at:
            self._parse_error(f"cannot combine with previous '{word}' declaration specifier", types[at].coord)
        self._parse_error("cannot combine with previous 'typeof' declaration specifier", other.coord)

    def _parse_declaration_specifiers(self, allow_no_type: bool = False) -> tuple[Any, bool, Any]:
        if not self._typeof_ahead():
            found = super()._parse_declaration_specifiers(allow_no_type)
        else:
            found = self._with_typeof(lambda: super(Parser, self)._parse_declaration_specifiers(True))
        if self._untyped is None:  # (a parameter's, asked by ``_parse_parameter_declaration``)
            self._untyped = not found[0]["type"]
        return found  # type: ignore[no-any-return]

    def _parse_parameter_declaration(self) -> Any:
        """A parameter with qualifiers but no type (``const x``) is an ``int`` with Clang's warning, as a
        declaration's (``_fix_decl_name_type``; pycparser takes it without a word)."""
        outer, self._untyped = self._untyped, None
        try:
            node = super()._parse_parameter_declaration()
            if self._untyped and isinstance(node, c_ast.Decl) and node.name:
                self._implicit_int(node)
            return node
        finally:
            self._untyped = outer

    def _parse_specifier_qualifier_list(self) -> Any:
        """A type name's (a cast's, ``sizeof``'s, a member's), ``__typeof__`` among them too."""
        if not self._typeof_ahead():
            return super()._parse_specifier_qualifier_list()

        def run() -> tuple[Any, bool, Any]:  # (the base's list refuses one of qualifiers alone)
            if self._peek_type() not in _QUALIFIER_TOKENS:
                return super(Parser, self)._parse_specifier_qualifier_list(), True, None
            first = self._tok_coord(self._peek())
            spec = None
            while self._peek_type() in _QUALIFIER_TOKENS:
                spec = self._add_declaration_specifier(spec, self._advance().value, "qual", append=True)
            return spec, False, first

        return self._with_typeof(run)[0]

    def _typeof_ahead(self) -> bool:
        """Whether a ``__typeof__`` stands among the specifiers that start here (qualifiers and storage classes
        before it)."""
        k = 1
        while True:
            kind = self._peek_type(k)
            if kind in _TYPEOF_TOKENS:
                return True
            if (
                kind is None
                or kind in ("ID", "TYPEID", "LPAREN", "TIMES", "SEMI", "LBRACE")
                or not (self._starts_declaration(self._peek(k)))
            ):
                return False
            k += 1

    def _parse_decl_body_with_spec(self, spec: Any, saw_type: bool) -> list[c_ast.Node]:
        """A declaration of a type alone that is no struct, union or enum (``int ;``, CLSmith's): none, with Clang's
        warning (pycparser calls it invalid)."""
        types = spec["type"]
        tagged = len(types) == 1 and isinstance(types[0], c_ast.Struct | c_ast.Union | c_ast.Enum)
        if saw_type and not tagged and self._peek_type() == "SEMI" and not spec["storage"]:
            coord = getattr(types[0], "coord", None) if types else None
            if coord is not None and coord.file == SOURCE_FILE:
                self.empty_declarations.add((coord.line, coord.column or 0))
            return []
        result: list[c_ast.Node] = super()._parse_decl_body_with_spec(spec, saw_type)
        return result

    def _advance(self) -> Any:
        tok = super()._advance()
        if tok.type in _PLACED_KEYWORDS and tok.lineno is not None:  # (a token read again after a backtrack: once)
            coord = self._tok_coord(tok)
            if coord.file == SOURCE_FILE:
                self.keyword_places.add((coord.line, coord.column, tok.value))
        return tok

    def _parse_enumerator(self) -> c_ast.Node:
        """An enumerator with attributes (``A __attribute__((deprecated)) = 1``, C2x's place, which Clang takes in
        C99): the attributes dropped (the simulator has no use for them), pycparser refused them."""
        name_tok = self._expect("ID")
        self._parse_attributes_opt()
        value = self._parse_constant_expression() if self._accept("EQUALS") else None
        enum = c_ast.Enumerator(name_tok.value, value, self._tok_coord(name_tok))
        self._add_identifier(enum.name, enum.coord)
        return enum

    def _parse_primary_expression(self) -> c_ast.Node:
        tok = self._peek()  # (one look ahead for the three cases: a primary expression is parsed very often)
        kind = tok.type if tok is not None else None
        if kind == "LPAREN" and self._peek_type(2) == "LBRACE":  # a GNU statement expression
            self._advance()
            block = self._parse_compound_statement()
            self._expect("RPAREN")
            return StatementExpression(block.block_items, block.coord)
        if kind == "ID" and tok.value in TYPED_BUILTINS and self._peek_type(2) == "LPAREN":
            return self._parse_typed_builtin()
        wrapped = kind == "LPAREN"
        node = super()._parse_primary_expression()
        if wrapped:
            self.parentheses[id(node)] = (node, self.parentheses.get(id(node), (node, 0))[1] + 1)
        return node

    def _parse_typed_builtin(self) -> c_ast.FuncCall:
        """``__builtin_astype(e, T)`` or ``__builtin_convertvector(e, T)``: a call whose second argument is a type
        name, as pycparser's ``offsetof(T, m)`` (a ``Typename`` among the arguments); the checker judges both."""
        name_tok = self._advance()
        coord = self._tok_coord(name_tok)
        self._expect("LPAREN")
        operand = self._parse_assignment_expression()
        self._expect("COMMA")
        if not self._starts_declaration():
            tok = self._peek()
            unknown = tok is not None and tok.type == "ID" and self._peek_type(2) in ("RPAREN", "TIMES")
            words = f"unknown type name '{tok.value}'" if unknown else "expected a type"
            self._parse_error(words, self._tok_coord(tok) if tok is not None else coord)
        typ = self._parse_type_name()
        self._expect("RPAREN")
        return c_ast.FuncCall(c_ast.ID(name_tok.value, coord), c_ast.ExprList([operand, typ], coord), coord)

    def _parse_assignment_expression(self) -> c_ast.Node:
        """A GNU statement expression ``({ ... })`` as the primary expression it is (``_parse_primary_expression``):
        pycparser takes one that starts an assignment expression as the whole of it, so ``({...}) + 1`` failed."""
        if self._peek_type() == "LPAREN" and self._peek_type(2) == "LBRACE":
            node: c_ast.Node = self._parse_conditional_expression()
            return node
        result: c_ast.Node = super()._parse_assignment_expression()
        return result

    def _parse_conditional_expression(self) -> c_ast.Node:
        """GNU's ``x ?: y`` too (Clang takes it in OpenCL C): ``x ? x : y`` with ``x`` evaluated once, the same node
        as condition and first operand (the executor takes the condition's value for it)."""
        expr: c_ast.Node = self._parse_binary_expression()
        if self._peek_type() == "CONDOP" and self._peek_type(2) == "COLON":
            self._advance()
            self._advance()
            iffalse = self._parse_conditional_expression()
            return c_ast.TernaryOp(expr, expr, iffalse, expr.coord)
        if self._accept("CONDOP"):
            iftrue = self._parse_expression()
            self._expect("COLON")
            iffalse = self._parse_conditional_expression()
            return c_ast.TernaryOp(expr, iftrue, iffalse, expr.coord)
        return expr

    def _parse_labeled_statement(self) -> c_ast.Node:
        """GNU's case range ``case 1 ... 3:`` too (Clang takes it in OpenCL C), as pycparserext's GNU parser reads
        it: the case's expression a ``RangeExpression``."""
        if self._peek_type() != "CASE":
            result: c_ast.Node = super()._parse_labeled_statement()
            return result
        case_tok = self._advance()
        expr = self._parse_constant_expression()
        if self._accept("ELLIPSIS"):
            expr = RangeExpression(expr, self._parse_constant_expression(), coord=self._tok_coord(case_tok))
        self._expect("COLON")
        stmt = (
            self._parse_pragmacomp_or_statement()
            if self._starts_statement()
            else c_ast.EmptyStatement(self._tok_coord(case_tok))
        )
        return c_ast.Case(expr, [stmt], self._tok_coord(case_tok))

    def _parse_designator(self) -> c_ast.Node:
        """GNU's designator range ``[1 ... 3] = x`` too (Clang takes it in OpenCL C), as pycparserext's GNU parser
        reads it: a ``RangeExpression`` (``check_decls.expand_ranges`` writes out its elements)."""
        lbrack = self._accept("LBRACKET")
        if lbrack is None:
            result: c_ast.Node = super()._parse_designator()
            return result
        expr = self._parse_constant_expression()
        if self._accept("ELLIPSIS"):
            expr = RangeExpression(expr, self._parse_constant_expression(), coord=self._tok_coord(lbrack))
        self._expect("RBRACKET")
        return expr

    def _parse_initializer(self) -> c_ast.Node:
        """A brace list placed where its ``{`` stands, as Clang places it in its messages (pycparser gives a
        non-empty list its first item's place)."""
        brace = self._peek() if self._peek_type() == "LBRACE" else None
        node = super()._parse_initializer()
        if brace is not None and isinstance(node, c_ast.InitList):
            node.coord = self._tok_coord(brace)
        return node

    def _parse_unary_expression(self) -> c_ast.Node:
        """``_Alignof`` (and ``__alignof__``, rewritten to it) of an expression, as GCC and Clang take it: the
        alignment of its type (pycparser takes only a type name). ``sizeof``/``_Alignof`` of a parenthesized type
        followed by ``(`` or ``{``: of the OpenCL vector literal (``sizeof (int4)(v)``) or the compound literal
        (``sizeof (int){1}``) that starts there, as Clang reads them (pycparser stops after the type). Before any
        other type, ``(`` is Clang's error (``sizeof (int)(v)``: ``rewrites.vector_literals``)."""
        if self._peek_type() not in ("_ALIGNOF", "SIZEOF"):
            return super()._parse_unary_expression()
        tok = self._advance()
        named = self._try_parse_paren_type_name()
        if named is not None and self._peek_type() in ("LPAREN", "LBRACE"):
            after = self._peek()
            self._reset(named[1])
            operand = self._parse_cast_expression()
            if isinstance(operand, c_ast.Cast):
                self.literal_operands[id(operand)] = (operand, self._tok_coord(after))
        elif named is not None:
            operand = named[0]
        else:
            operand = self._parse_unary_expression()
        return c_ast.UnaryOp(tok.value, operand, self._tok_coord(tok))

    def _parse_struct_or_union_specifier(self) -> c_ast.Node:
        """pycparserext keeps ``__attribute__`` (``packed``, ``aligned(N)``) on a struct and drops it on a union:
        a union is parsed as a struct and turned back into a union, with its attributes (``UnionExt``)."""
        if self._peek_type() != "UNION":
            return super()._parse_struct_or_union_specifier()
        outermost = "_select_struct_union_class" not in vars(self)  # (a union inside a union: set already)
        self._select_struct_union_class = lambda token: c_ast.Struct
        try:
            node = super()._parse_struct_or_union_specifier()
        finally:
            if outermost:
                del self._select_struct_union_class
        union = UnionExt(node.name, node.decls, node.coord)
        if isinstance(node, StructExt):
            union.attrib = node.attrib
        return union


class UnionExt(c_ast.Union):  # type: ignore[misc]
    """A union that holds its ``__attribute__`` (``attrib``, an ``AttributeSpecifier``), as pycparserext's
    ``StructExt`` does for a struct."""

    attrib: AttributeSpecifier | None = None


KEYWORDS = frozenset(c_keywords._keyword_map) | frozenset(_Lexer._extra_keywords)
"""C's and OpenCL C's keywords (GCC's alternate ones are the standard ones by then: ``rewrites.gnu_keywords``)."""
