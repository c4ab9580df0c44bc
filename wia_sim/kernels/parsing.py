"""Preprocessed source to a pycparser AST with pycparserext's ``OpenCLCParser``, reporting every syntax error,
not only the first.

The parser predefines few OpenCL type names, so a prelude (in ``grammar.BUILTIN_FILE``) typedefs the others. After a
syntax error each top-level declaration is parsed on its own, so that one error does not hide the next, and the
names the broken ones declare are returned so that the checker does not also report them as undeclared.

This module ties the parts together: the grammar (``grammar.py``) and the rewrites of the text around it
(``rewrites.py``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from pycparser import c_ast
from pycparser.c_parser import ParseError

from wia_sim.kernels import rewrites
from wia_sim.kernels.grammar import BUILTIN_FILE, KEYWORDS, PRELUDE, SOURCE_FILE, Parser, StatementAttributes
from wia_sim.kernels.numeric_literals import PP_NUMBER, literal_error
from wia_sim.kernels.semicolons import (
    Missing,
    Repair,
    bracket_depth,
    closes_list,
    file_scope,
    in_block,
    innermost_open,
    missing,
    records_run_on,
    repair_of,
    repaired,
    skipped_statement,
    unended_members,
)
from wia_sim.kernels.signatures import is_builtin_function
from wia_sim.kernels.specifiers import SPECIFIER_WORDS, read
from wia_sim.kernels.tokens import STRING_LITERAL, Token, blanked, closing, offset, significant, tokenize
from wia_sim.kernels.types import BUILTIN_TYPE_NAMES, named_type
from wia_sim.kernels.typos import TYPE_KEYWORDS, corrected

__all__ = ["ast_nodes", "parse"]

_PARSE_ERROR_RE = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<msg>.*)$", re.S)


@dataclass
class ParseOutcome:
    ast: c_ast.FileAST
    errors: list[tuple[int, int | None, str]]
    failed_names: set[str]
    keyword_places: list[tuple[int, int, str]] = field(default_factory=list)
    """Where each storage-class keyword (``static``, ``extern``, ``auto``, ``register``) and address-space keyword
    (``__global``, ``local``, ...) stands, as (line, column, keyword), in order: the AST keeps a declaration's
    keywords but not their places, which Clang's messages name."""
    empty_declarations: list[tuple[int, int]] = field(default_factory=list)
    """Where each declaration that declares nothing (``int ;``) stands: Clang's warning, and nothing declared."""
    statement_attributes: dict[int, StatementAttributes] = field(default_factory=dict)
    """The GNU attributes written before a statement (``__attribute__((fallthrough));``), by ``id`` of the
    statement: the checker's to judge (``check_statements``), the executor's to ignore."""
    warnings: list[tuple[int, int, str]] = field(default_factory=list)
    """The parser's warnings: a struct's last member without its ``;`` (``semicolons``)."""
    repairs: list[Repair] = field(default_factory=list)
    """The statements and declarations without their ``;`` taken as parsed (``semicolons.Repair``)."""
    text: str = ""
    """The text parsed: the one given, each missing ``;`` put in and what Clang skips after one blanked."""
    implicit_ints: list[tuple[int, int]] = field(default_factory=list)
    """Where each declaration without a type stands (``const x = 1;``): Clang's warning "type specifier missing,
    defaults to 'int'", and an ``int``."""
    shifts: list[tuple[int, int, int]] = field(default_factory=list)
    """Where a repair made ``text`` longer than the one given, in order: (line, column, columns added), from that
    column on (``spelled_before``)."""
    broken: frozenset[tuple[int, int]] = frozenset()
    """Where each expression statement starts that Clang's parser found in error though the text repaired parses
    (a subscript without its ``]``): the checker says nothing of its unused result."""

    def spelled_before(self, line: int | None, column: int | None) -> int | None:
        """The column in the text given of ``column`` on ``line`` of ``text``."""
        for at_line, at, added in reversed(self.shifts):
            if line == at_line and column is not None and column >= at:
                column -= added
        return column


def _parse_error_message(message: str) -> str:
    if message.startswith("before: "):
        return f"syntax error before '{message[len('before: ') :]}'"
    if message == "Invalid char constant ''":
        return "empty character constant"
    if message == "At end of input":
        return "syntax error at end of input (missing '}' or ';'?)"
    if message == "Invalid expression":  # (at a token no operand begins with: Clang's words there)
        return "expected expression"
    if message == "Invalid struct reference":  # (``s.`` or ``p->`` with no member name after it)
        return "expected identifier"
    return message[:1].lower() + message[1:]


def _bad_number(text: str) -> tuple[tuple[int, int], tuple[int, int, str]] | None:
    """The first preprocessing number of ``text`` that is no constant: where it starts, and where Clang reports
    it with its words (``numeric_literals.literal_error``); None if there is none."""
    literals: list[tuple[int, int]] | None = None
    for m in PP_NUMBER.finditer(text):
        error = literal_error(m.group(0))
        if error is None:
            continue
        if literals is None:
            literals = [(a.start(), a.end()) for a in STRING_LITERAL.finditer(text)]
        if any(a <= m.start() < b for a, b in literals):  # (``printf("3x")``: text)
            continue

        def place(at: int) -> tuple[int, int]:
            return text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)

        return place(m.start()), (*place(m.start() + error[0]), error[1])
    return None


def _parse_once(text: str) -> tuple[c_ast.FileAST | None, tuple[int, int | None, str] | None, Parser]:
    """The AST of ``text`` or its first syntax error, and the parser (what it noted: ``ParseOutcome``). A
    preprocessing number that is no constant is Clang's error where it stands, unless the parser failed before the
    number starts (``_bad_number``: the parser reads ``3x`` as ``3`` and ``x``, ``0x1e+5`` as ``0x1e + 5``)."""
    parser = Parser()
    text, pointer_spaces, places = rewrites.pointer_spaces(rewrites.gnu_keywords(text))
    parser.keyword_places.update(places)
    number = _bad_number(text)
    text, halves = rewrites.half_literals(text)
    ast, error = _parse_text(parser, text, pointer_spaces)
    if ast is not None and halves:
        rewrites.restore_half_literals(ast, halves)
    if number is not None and (error is None or error[1] is None or number[0] <= (error[0], error[1])):
        declarator = error is not None and error[2] == "expected identifier or '('" and number[0] == error[:2]
        if not declarator:  # (``int 3x``: a number where a declarator must be is the parser's error, as Clang's)
            return None, number[1], parser
    return ast, error, parser


def _parse_text(
    parser: Parser, text: str, pointer_spaces: dict[tuple[int, int], list[str]]
) -> tuple[c_ast.FileAST | None, tuple[int, int | None, str] | None]:
    """``_parse_once``'s parse of ``text`` by ``parser``: the AST or the first syntax error in Clang's words where
    they are known."""
    try:
        ast = parser.parse(PRELUDE + text, filename=BUILTIN_FILE)
        if pointer_spaces:
            rewrites.restore_pointer_spaces(ast, pointer_spaces)
        rewrites.vector_literals(ast, parser.parentheses, parser.literal_operands)
    except ParseError as e:
        message = str(e)
        m = _PARSE_ERROR_RE.match(message)
        if m and m.group("file") == SOURCE_FILE:
            col = m.group("col")
            at = (int(m.group("line")), int(col) if col else None)
            return None, _clang_words(text, at, parser) or (*at, _parse_error_message(m.group("msg")))
        # no position in the message ("Invalid expression", "Unmatched '}'"): the next token is where it failed
        raw = m.group("msg") if m else message.split(": ", 1)[-1]
        if raw == "Unmatched '}'":  # (Clang's words, at the first '}' that closes nothing)
            stray = _stray_brace(text)
            if stray is not None:
                return None, (*stray, "extraneous closing brace ('}')")
        line, col = None, None
        try:
            tok = parser._peek()
            if tok is not None:
                line, col = tok.lineno, tok.column
        except Exception:  # the token stream may itself be what failed
            pass
        if line is None:
            line = max(1, text.rstrip().count("\n") + 1)
        return None, _clang_words(text, (line, col), parser) or (line, col, _parse_error_message(raw))
    except RecursionError:  # (past ``recursion.FRAMES``: far past Clang's bracket depth of 256)
        return None, (max(1, text.rstrip().count("\n") + 1), None, "the source nests too deeply to parse")
    except Exception as e:  # pycparser's internal errors on malformed input: still a compile error, not a crash
        return None, (max(1, text.rstrip().count("\n") + 1), None, f"cannot parse the source: {e}")
    return ast, None


def _stray_brace(text: str) -> tuple[int, int] | None:
    """Where the first ``}`` that closes no ``{`` stands."""
    depth = 0
    for t in significant(tokenize(text, 1)):
        depth += {"{": 1, "}": -1}.get(t.text, 0)
        if depth < 0:
            return t.line, t.column
    return None


_DECLARATION_STARTS = frozenset({";", "{", "}", "(", ","}) | {
    "const", "volatile", "restrict", "static", "extern", "__global", "global", "__local", "local", "__constant",
    "constant", "__private", "private", "__kernel", "kernel", "inline", "__read_only", "read_only", "__write_only",
    "write_only", "__read_write", "read_write",
}  # fmt: skip
"""What stands before a declaration's type name: the end of a statement, the start of a block or a parameter
list, or a qualifier."""


def _clang_words(text: str, at: tuple[int, int | None], parser: Parser) -> tuple[int, int | None, str] | None:
    """Clang's words and place for the syntax error pycparser found at ``at`` in ``text``, where they are known
    (``_unknown_name``, ``_expected``), from the source's tokens."""
    tokens = significant(tokenize(text, 1))
    return (
        _record_without_semicolon(tokens, at)
        or _keyword_typo(tokens, at, parser)
        or _unknown_name(tokens, at, parser)
        or _expected(tokens, at, parser, _end_of(text))
        or _run_on(tokens, at, parser)
    )


_KEYWORD_FOLLOWERS = {"if": "(", "while": "(", "for": "(", "switch": "(", "goto": "id", "return": "any"}
"""The statements' keywords Clang's typo correction offers at a statement's start that a parse error there shows
(``brek;`` parses, and is the checker's), and what must follow each for the correction to parse."""


def _keyword_typo(
    tokens: list[Token], at: tuple[int, int | None], parser: Parser
) -> tuple[int, int | None, str] | None:
    """Clang's error for a statement whose first word is a misspelt keyword (``whle (a) {``, ``gto end;``): the name
    undeclared, and the keyword it corrects to (Clang then parses on as if it stood there: ``_repaired``)."""
    line, column = at
    e = next((k for k, t in enumerate(tokens) if (t.line, t.column) >= (line, column or 1 << 30)), len(tokens))
    s, depth = min(e, len(tokens)) - 1, 0
    while s > 0:
        depth += {")": 1, "]": 1, "(": -1, "[": -1}.get(tokens[s].text, 0)
        if depth <= 0 and tokens[s - 1].text in (";", "{", "}"):
            break
        s -= 1
    if s <= 0 or s + 1 >= len(tokens) or not in_block(tokens, s):
        return None
    first, after = tokens[s], tokens[s + 1]
    name = first.text
    if first.kind != "id" or name in KEYWORDS or named_type(name) is not None or parser._is_type_in_scope(name):
        return None
    if any(name in scope for scope in parser._scope_stack):
        return None
    meant = corrected(name, _KEYWORD_FOLLOWERS).name
    if meant is None:
        return None
    follows = _KEYWORD_FOLLOWERS[meant]
    if (follows == "(" and after.text != "(") or (follows == "id" and after.kind != "id") or after.text == ";":
        return None
    return first.line, first.column, f"use of undeclared identifier '{name}'; did you mean '{meant}'?"


def _run_on(tokens: list[Token], at: tuple[int, int | None], parser: Parser) -> tuple[int, int | None, str] | None:
    """A declaration at file scope without its ``;`` that the next line's declaration runs on into, where pycparser
    fails later ("invalid function definition" at ``} View`` before ``void f(...)``, or at the ``{`` of the
    function after ``} Bits``): Clang's error just after its last token, the nearest such break before the
    error (back to the declaration before) or a token or two after it."""
    line, column = at
    if column is None:
        return None
    e = next((k for k, t in enumerate(tokens) if (t.line, t.column) >= (line, column)), len(tokens))
    outside = file_scope(tokens)
    declares = _declares(parser)

    def breaks(k: int) -> bool:
        before, after = tokens[k - 1], tokens[k]
        ends = (before.kind in ("id", "num") and not declares(before)) or before.text in (")", "]")
        return ends and outside[k] and after.line > before.line and declares(after) and after.text != "{"

    for k in range(min(e + 2, len(tokens) - 1), 0, -1):
        if breaks(k):
            return _missing_semicolon(tokens, k, parser)
        if k <= e and outside[k - 1] and tokens[k - 1].text in (";", "}"):
            break
    return None


def _end_of(text: str) -> tuple[int, int]:
    """Where Clang places the end of the input: after its last character, or at its last newline."""
    last = len(text) - 1 if text.endswith("\n") else len(text)
    return text.count("\n", 0, last) + 1, last - text.rfind("\n", 0, last)


_RECORD_FOLLOWERS = frozenset(KEYWORDS) - {"const", "volatile", "restrict"} | {"__kernel", "kernel"}
"""Tokens after a struct's ``}`` that start another declaration: the struct's ``;`` is missing (a declarator,
``*``, ``;``, ``(`` or a qualifier would continue its declaration)."""


def _record_without_semicolon(tokens: list[Token], at: tuple[int, int | None]) -> tuple[int, int | None, str] | None:
    """Clang's "expected ';' after struct" (or union) just after the ``}`` of a definition that the next
    declaration follows without its ``;``, the commonest mistake pycparser calls "invalid multiple types
    specified" at the tag."""
    line, column = at
    k = next((k for k, t in enumerate(tokens) if (t.line, t.column) == (line, column)), None)
    if k is not None and k > 0 and tokens[k - 1].text in ("struct", "union"):  # (pycparser's place: the tag)
        k -= 1
    if k is None or tokens[k].text not in ("struct", "union"):
        return None
    opening = next((j for j in range(k + 1, min(k + 3, len(tokens))) if tokens[j].text == "{"), None)
    if opening is None:
        return None
    depth = 0
    for j in range(opening, len(tokens)):
        depth += {"{": 1, "}": -1}.get(tokens[j].text, 0)
        if depth == 0:
            after = tokens[j + 1] if j + 1 < len(tokens) else None
            if after is not None and after.text in _RECORD_FOLLOWERS:
                return tokens[j].line, tokens[j].column + 1, f"expected ';' after {tokens[k].text}"
            return None
    return None


def _unknown_name(
    tokens: list[Token], at: tuple[int, int | None], parser: Parser
) -> tuple[int, int | None, str] | None:
    """Clang's words for the commonest syntax error, a type name nothing defines (a kernel built without the
    ``-D T=float`` its library passes): "unknown type name 'T'" at it in a parameter list, a struct, at file scope
    or after a qualifier (``dim_t n``, ``__global T* p``, ``const T x``), "use of undeclared identifier 'T'" where
    a statement or a cast may start (``T x = 0;`` in a function, ``(T)x``); None when the error at ``at`` is not one
    of those (pycparser says "invalid declaration", "syntax error before 'x'")."""
    line, column = at
    limit = (line, column if column is not None else 1 << 30)
    tokens = [t for t in tokens if t.line <= line]
    up_to = [k for k, t in enumerate(tokens) if (t.line, t.column) <= limit]
    last = up_to[-1] if up_to else 0
    for k in range(last, max(last - 3, 0) - 1, -1):
        token = tokens[k]
        before = tokens[k - 1].text if k else ";"
        after = tokens[k + 1] if k + 1 < len(tokens) else None
        after2 = tokens[k + 2] if k + 2 < len(tokens) else None
        name = token.text
        if token.kind != "id" or name in KEYWORDS or named_type(name) is not None or is_builtin_function(name):
            continue  # (a built-in function's name used as a value: the checker's error, not an unknown name)
        if any(name in scope for scope in parser._scope_stack):  # (a type, or a variable: no unknown name)
            continue
        callee = tokens[k - 2] if k >= 2 else None  # (``f(T)``, a call's argument: not a cast)
        called = callee is not None and (
            (callee.kind == "id" and callee.text not in KEYWORDS) or callee.text in _ENDS_OPERAND
        )
        cast = before == "(" and after is not None and after.text == ")" and not called  # (``(T)x``)
        operand = after2 is not None and after2.kind in ("id", "num") and after2.text not in _STATEMENT_WORDS
        if cast and operand and after is not None and after2 is not None and after2.line == after.line:
            return token.line, token.column, f"use of undeclared identifier '{name}'"
        if after is None:
            continue
        statement = before in (";", "{", "}") and in_block(tokens, k)  # (where a statement may start)
        if not statement and before not in _DECLARATION_STARTS:
            continue
        if after.kind == "id" and after.text in KEYWORDS and _declares(parser)(after):  # (``aonst float* x``)
            if statement:  # (an expression to Clang: no type name corrected)
                return token.line, token.column, f"use of undeclared identifier '{name}'"
            meant = corrected(name, _type_names(parser), strict=True)
            did = f"; did you mean '{meant.name}'?" if meant.name is not None else ""
            return token.line, token.column, f"unknown type name '{name}'{did}"
        if not (after.text == "*" or (after.kind == "id" and after.text not in KEYWORDS)):
            continue
        meant = corrected(name, _type_names(parser), strict=True)  # Clang corrects a type name first
        if meant.name is not None:
            return token.line, token.column, f"unknown type name '{name}'; did you mean '{meant.name}'?"
        if statement and meant.tied:  # left to the expression, whose end is the first error
            return token.line, token.column + len(name), "expected ';' after expression"
        if statement:
            return token.line, token.column, f"use of undeclared identifier '{name}'"
        return token.line, token.column, f"unknown type name '{name}'"
    # qualifiers pycparser took for a declaration's whole type (``(global T*)x``: "missing type in declaration"):
    # the name after them
    k = last
    while k < len(tokens) and tokens[k].text in _QUALIFIERS:
        k += 1
    if last < k < len(tokens) - 1:
        token, after = tokens[k], tokens[k + 1]
        known = token.text in KEYWORDS or named_type(token.text) is not None
        if token.kind == "id" and not known and after.text in ("*", ")"):
            return token.line, token.column, f"unknown type name '{token.text}'"
    return None


_QUALIFIERS = _DECLARATION_STARTS - {";", "{", "}", "(", ","}


def _type_names(parser: Parser) -> set[str]:
    """The type names visible where the parser stands (the built-in ones, the program's typedefs that no inner
    declaration hides) and the keywords a type may be spelled with: what Clang's typo correction of an unknown type
    name weighs (``typos.py``)."""
    names = set(BUILTIN_TYPE_NAMES) | set(TYPE_KEYWORDS)
    for scope in parser._scope_stack:
        for name, is_type in scope.items():
            (names.add if is_type else names.discard)(name)
    return names


_NO_OPERAND_AFTER = frozenset(
    {";", ")", "]", ",", "/", "%", "<", ">", "<=", ">=", "==", "!=", "<<", ">>", "&&", "||", "|", "^", "?", ":"}
    | {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}
)
"""Tokens that cannot begin an operand: after an operator or an opening bracket, "expected expression" there."""
_ENDS_OPERAND = frozenset({")", "]", "++", "--"})
"""Punctuators that may end an expression (besides names, numbers and literals)."""
_CLOSERS = {"(": ")", "[": "]", "{": "}"}


def _expected(
    tokens: list[Token], at: tuple[int, int | None], parser: Parser, end: tuple[int, int] | None = None
) -> tuple[int, int | None, str] | None:
    """Clang's words and place for the commonest syntax errors at the token at ``at``, from the tokens around it:
    an unclosed ``(`` or ``[`` ("expected ')'", at the token), a ``)`` that closes nothing ("extraneous ')' before
    ';'"), an operator, ``=`` or ``else`` where an operand must be ("expected expression"), a statement on the next
    line after one without its ``;`` ("expected ';' after expression", "expected ';' at end of declaration", just
    after its last token), a number where a declarator must be ("expected identifier or '('"), a sign or width
    before ``bool`` or ``half`` (the list's error, ``specifiers.read``) and a type name after a type (Clang's
    declarator: "expected ';' at end of declaration" after it), the input ending inside brackets ("expected '}'"
    after its last token); None for others (pycparser's "syntax error before 'x'")."""
    line, column = at
    k = len(tokens)  # (no column: the end of the input)
    if column is not None:
        k = next((k for k, t in enumerate(tokens) if (t.line, t.column) >= (line, column)), len(tokens))
    if k == 0 and not (tokens and tokens[0].text in _UNKNOWN):
        return None
    opened: list[str] = []  # the brackets open before the token, innermost last
    headers: list[bool] = []  # (for each: whether it is a ``for``'s parenthesis, where ';' stands)
    for j, t in enumerate(tokens[:k]):
        if t.text in _CLOSERS:
            opened.append(t.text)
            headers.append(t.text == "(" and j > 0 and tokens[j - 1].text == "for")
        elif opened and t.text == _CLOSERS[opened[-1]]:
            opened.pop()
            headers.pop()
    header = bool(headers) and headers[-1]
    if k < len(tokens) and tokens[k].text in _UNKNOWN:
        return _unknown_token(tokens, k, opened, parser)
    before = tokens[k - 1]
    if k == len(tokens):  # the input ended with something open: the closer, at its end (``_end_of``)
        if not opened:
            return None
        line, column = end or (before.line, before.column + len(before.text))
        return line, column, f"expected '{_CLOSERS[opened[-1]]}'"
    token = tokens[k]
    after = tokens[k + 1].text if k + 1 < len(tokens) else ""
    if token.text != "while" and "{" in opened and _do_of(tokens, k) is not None:  # (``do {...} whle (c);``)
        return token.line, token.column, "expected 'while' in do/while loop"
    if before.text in _HEADED and token.text != "(" and "{" in opened:  # (``if i < n)``)
        return token.line, token.column, f"expected '(' after '{before.text}'"
    cast = _cast_open(tokens, k, parser) if "{" in opened else None
    if cast is not None:  # (``(float n * 2``: the type's ')' missing)
        return tokens[cast].line, tokens[cast].column, "expected ')'"
    crossed = token.text in (")", "]") and bool(opened) and _CLOSERS[opened[-1]] != token.text
    if crossed and opened[-1] in "([" and any(_CLOSERS[o] == token.text for o in opened):  # (``f(a[i);``)
        return token.line, token.column, f"expected '{_CLOSERS[opened[-1]]}'"
    stray = token.text in (")", "]") and (not opened or _CLOSERS[opened[-1]] != token.text)
    if stray and after == ";":
        return token.line, token.column, f"extraneous '{token.text}' before ';'"
    if stray and opened and opened[-1] == "{" and (before.kind in _CAST_OPERAND or before.text in _ENDS_OPERAND):
        return _missing_semicolon(tokens, k, parser)  # (``j++) o[j] = 1;``: the statement ends at the bracket)
    if token.text in (";", "{") and opened and opened[-1] in "([" and not (header and token.text == ";"):
        return token.line, token.column, f"expected '{_CLOSERS[opened[-1]]}'"
    if before.text in (".", "->") and token.kind != "id":  # (a member's name must follow)
        return token.line, token.column, "expected identifier"
    operator = before.kind == "punct" and before.text not in (";", ")", "]", ",", "(", "{", "}", "++", "--", ".", "->")
    returned = before.text == "return" and after == ";"  # (else a declaration on: ``semicolons``' words)
    if (operator or returned) and token.kind == "id" and _typedef_name(parser)(token):
        return token.line, token.column, f"unexpected type name '{token.text}': expected expression"  # (``= float4``)
    if token.text == "else" or (
        token.text in _NO_OPERAND_AFTER and before.kind == "punct" and before.text not in _ENDS_OPERAND
    ):
        return token.line, token.column, "expected expression"
    if token.kind == "num" and before.kind == "id" and (before.text in KEYWORDS or named_type(before.text)):
        return token.line, token.column, "expected identifier or '('"
    typed = token.kind == "id" and (token.text in SPECIFIER_WORDS or named_type(token.text) is not None)
    if typed and k + 1 < len(tokens) and tokens[k + 1].kind == "num":  # (``int 3x``: the parser stops at the type)
        return tokens[k + 1].line, tokens[k + 1].column, "expected identifier or '('"
    if typed and before.text == ")" and _controlled(tokens, k - 1):  # (``if (c) int x;``: a statement must follow)
        return token.line, token.column, "expected expression"
    if token.kind == "id" and k >= 2 and tokens[k - 2].text in SPECIFIER_WORDS:
        named = before.kind == "id" and (named_type(before.text) is not None or parser._is_type_in_scope(before.text))
        if named and before.text in ("bool", "half"):  # (Clang's keywords: the list's own error)
            return _specifier_error(tokens, k - 1)
        if named:  # a type name after a type: Clang's declarator, and the declaration goes on without its ';'
            return _missing_semicolon(tokens, k, parser)
    if before.text == "return" and token.text != ";":  # (no value where one must be)
        return _missing_semicolon(tokens, k, parser)
    ends = before.kind in ("id", "num", "str", "char") or before.text in _ENDS_OPERAND or closes_list(tokens, k)
    if ends and token.line > before.line and _header_open(tokens, k) is not None:  # (``if (a < b`` ending its line)
        return token.line, token.column, "expected ')'"
    body = before.text == ")" and token.text == "{"  # (a function's or a statement's: no ';' goes between)
    if ends and not body and (token.line > before.line or (token.text == "}" and opened and opened[-1] == "{")):
        return _missing_semicolon(tokens, k, parser)
    operand = token.kind in ("id", "num", "str", "char") and token.text not in KEYWORDS
    if ends and operand and (before.kind != "id" or before.text not in KEYWORDS):
        # two operands with no operator between: the bracket open around them must close first, else the ';'
        if header and _for_clauses(tokens, k) is not None:  # (a ``for``'s head short of its two ';')
            return token.line, token.column, "expected ';' in 'for' statement specifier"
        if opened and opened[-1] in "([":
            return token.line, token.column, f"expected '{_CLOSERS[opened[-1]]}'"
        return _missing_semicolon(tokens, k, parser)
    return None


def _controlled(tokens: list[Token], close: int) -> bool:
    """Whether the ``)`` at ``tokens[close]`` closes an ``if``'s, ``while``'s, ``for``'s or ``switch``'s
    parentheses (a statement comes next, not a declaration)."""
    depth = 0
    for j in range(close, -1, -1):
        depth += {")": 1, "(": -1}.get(tokens[j].text, 0)
        if depth == 0:
            return j > 0 and tokens[j - 1].text in ("if", "while", "for", "switch")
    return False


_HEADED = frozenset({"if", "while", "for", "switch"})
"""Statements whose keyword a parenthesis must follow."""


def _skipped_to(tokens: list[Token], k: int, stops: tuple[str, ...]) -> int | None:
    """Where Clang's ``SkipUntil`` from ``tokens[k]`` stops: the first token of ``stops`` outside the brackets
    skipped (each skipped whole; a ``)``, ``]`` or ``}`` that closes nothing skipped too), None at the input's
    end."""
    depth = 0
    for m in range(k, len(tokens)):
        t = tokens[m].text
        if depth == 0 and t in stops:
            return m
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth = max(0, depth - 1)
    return None


def _head_missing(text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]) -> tuple[str, _Repairs]:
    """After "expected '(' after 'if'" (``while``, ``for``, ``switch``) at ``tokens[k]``, Clang skips the statement
    to its first ``;`` (taking it; brackets skipped whole, a stray ``)`` too), or to the ``}`` that closes the
    block around it: the statement becomes an empty block, its other errors unreported."""
    m = _skipped_to(tokens, k, (";", "}"))
    end = len(tokens) - 1 if m is None else m - 1 if tokens[m].text == "}" else m
    keyword, last = tokens[k - 1], tokens[end]
    a = offset(text, keyword.line, keyword.column)
    b = offset(text, last.line, last.column) + len(last.text)
    gone = blanked(text[a:b])
    done = _Repairs()
    done.errors.append((error[0], error[1], error[2]))
    return text[:a] + "{}" + gone[2:] + text[b:], done


def _stray_closer(text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]) -> tuple[str, _Repairs]:
    """After "expected ';' ..." at a ``)`` or ``]`` that closes nothing (``tokens[k]``), Clang begins a statement
    there: "expected expression" at the bracket, and that statement skipped to its ``;``. The bracket becomes
    the ``;``, what follows it to the next ``;`` blanks."""
    depth, end = 0, len(tokens)
    for m in range(k + 1, len(tokens)):
        t = tokens[m].text
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(t, 0)
        if (t == ";" and depth <= 0) or depth < -1 or (t == "}" and depth < 0):
            end = m
            break
    bracket = tokens[k]
    a = offset(text, bracket.line, bracket.column)
    b = offset(text, tokens[end].line, tokens[end].column) if end < len(tokens) else len(text)
    gone = blanked(text[a + 1 : b])
    done = _Repairs()
    done.errors += [(error[0], error[1], error[2]), (bracket.line, bracket.column, "expected expression")]
    return text[:a] + ";" + gone + text[b:], done


def _subscript_unclosed(
    text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str], parser: Parser
) -> tuple[str, _Repairs] | None:
    """After "expected ']'" at the ``;`` (``tokens[k]``) of an expression statement whose subscript is not closed
    (``o[i = x;``), Clang has built and checked what the brackets hold and the operand before them, and nothing that
    waited for the subscript (an operator it is the right operand of, an assignment to it): the ``[`` becomes a
    comma (``o, i = x;``) where the operand begins the statement, else the statement up to the ``[`` blanks; the
    statement is marked broken (no word of the results it leaves unused)."""
    j = innermost_open(tokens, k)
    if j < 1 or tokens[j].text != "[":
        return None
    start = _expression_start(tokens, j)
    if start is None:
        return None
    if _declares(parser)(tokens[start]):  # (a declaration: its variable declared, the initializer skipped)
        return _statement_skipped(text, tokens, k, error, parser, left_open=True)
    done = _Repairs()
    done.errors.append((error[0], error[1], error[2]))
    a = offset(text, tokens[start].line, tokens[start].column)
    at = offset(text, tokens[j].line, tokens[j].column)
    postfix = all(t.kind == "id" or t.text in (".", "->") for t in tokens[start:j])  # (``o``, ``s.a``, ``p->b``)
    if postfix:
        done.broken.append((tokens[start].line, tokens[start].column))
        return text[:at] + "," + text[at + 1 :], done
    first = tokens[j + 1]
    if first is tokens[k]:
        return None
    done.broken.append((first.line, first.column))
    gone = blanked(text[a : at + 1])
    return text[:a] + gone + text[at + 1 :], done


def _expression_start(tokens: list[Token], j: int) -> int | None:
    """The first token of the expression statement that holds ``tokens[j]`` (past what controls it: an ``if``'s
    head, ``else``, a label); None where it is not a statement of a block."""
    s, depth = j - 1, 0
    while s > 0:
        depth += {")": 1, "]": 1, "(": -1, "[": -1}.get(tokens[s].text, 0)
        if depth < 0:  # (a bracket open around it: no statement of its own)
            return None
        prev = tokens[s - 1]
        if depth == 0 and (
            prev.text in (";", "{", "}", ":", "else", "do") or (prev.text == ")" and _controlled(tokens, s - 1))
        ):
            return s
        s -= 1
    return None


def _for_clauses(tokens: list[Token], k: int) -> int | None:
    """The ``(`` of the ``for`` head innermost open at ``tokens[k]`` where one of its two ``;`` is missing (one in
    all, the head closed on the same line), else None."""
    j = _header_open(tokens, k)
    if j is None or tokens[j - 1].text != "for":
        return None
    shut = closing(tokens, j, ")")
    if shut is None or tokens[shut].line != tokens[k].line:
        return None
    depth, found = 0, 0
    for t in tokens[j + 1 : shut]:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(t.text, 0)
        found += depth == 0 and t.text == ";"
    return j if found == 1 else None


def _for_semicolon(text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]) -> tuple[str, _Repairs]:
    """After "expected ';' in 'for' statement specifier" at ``tokens[k]``, Clang goes on as if it stood there:
    put in a blank before the token, else put in (the rest of the line moved on)."""
    done = _Repairs()
    done.errors.append((error[0], error[1], error[2]))
    token = tokens[k]
    at = offset(text, token.line, token.column)
    if _blank_before(text, token.line, token.column):
        return text[: at - 1] + ";" + text[at:], done
    done.shifts.append((token.line, token.column + 1, 1))
    return text[:at] + ";" + text[at:], done


def _do_of(tokens: list[Token], k: int) -> int | None:
    """The ``do`` whose body ``tokens[k - 1]`` ends (a block's ``}``, a statement's ``;``), or None."""
    e = k - 1
    if e < 1 or tokens[e].text not in ("}", ";"):
        return None
    depth, s = 0, e
    while s > 0:  # (to the block's '{', or past the statement to the token before it)
        depth += {"}": 1, ")": 1, "]": 1, "{": -1, "(": -1, "[": -1}.get(tokens[s].text, 0)
        if tokens[e].text == "}" and depth == 0:
            break
        if tokens[e].text == ";" and depth == 0 and s < e and tokens[s - 1].text in (";", "{", "}", "do"):
            break
        s -= 1
    return s - 1 if s > 0 and tokens[s - 1].text == "do" else None


def _while_missing(text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]) -> tuple[str, _Repairs]:
    """After "expected 'while' in do/while loop" at ``tokens[k]``, Clang has checked the body, and skips to the
    next ``;``: the ``do`` blanks (its body a statement of its own), and what follows it to the ``;``."""
    do = _do_of(tokens, k)
    assert do is not None
    end = next((m for m in range(k, len(tokens)) if tokens[m].text == ";" and bracket_depth(tokens, k, m) == 0), None)
    done = _Repairs()
    done.errors.append((error[0], error[1], error[2]))
    a = offset(text, tokens[k].line, tokens[k].column)
    b = len(text) if end is None else offset(text, tokens[end].line, tokens[end].column) + 1
    at = offset(text, tokens[do].line, tokens[do].column)
    text = text[:a] + blanked(text[a:b]) + text[b:]
    return text[:at] + "  " + text[at + 2 :], done


def _parameters_open(tokens: list[Token], k: int) -> bool:
    """Whether ``tokens[k]`` stands in a function declarator's parameter list at file scope."""
    j = innermost_open(tokens, k)
    return j > 0 and tokens[j].text == "(" and tokens[j - 1].kind == "id" and innermost_open(tokens, j) < 0


def _parameters_unclosed(
    text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]
) -> tuple[str, _Repairs] | None:
    """After "expected ')'" at ``tokens[k]`` in a function's parameter list, Clang skips to a ``)`` or ``;`` at file
    scope (a body in braces skipped whole): at a ``;`` the declaration ends there, unreported; at the end of the
    input, "expected function body after function declarator" there. The declaration blanks to where it ends."""
    stop = _skipped_to(tokens, k, (")", ";"))
    if stop is not None and tokens[stop].text == ")":  # (a ')' of the list's own, later: not followed)
        return None
    s = innermost_open(tokens, k) - 1
    while s > 0 and tokens[s - 1].text not in (";", "}"):
        s -= 1
    a = offset(text, tokens[s].line, tokens[s].column)
    done = _Repairs()
    done.errors.append((error[0], error[1], error[2]))
    if stop is None:
        done.errors.append((*_end_of(text), "expected function body after function declarator"))
        b = len(text)
    else:
        b = offset(text, tokens[stop].line, tokens[stop].column) + 1
    return text[:a] + blanked(text[a:b]) + text[b:], done


def _header_open(tokens: list[Token], k: int) -> int | None:
    """The ``(`` of an ``if``'s, ``while``'s, ``for``'s or ``switch``'s head innermost open at ``tokens[k]``."""
    j = innermost_open(tokens, k)
    return j if j > 0 and tokens[j].text == "(" and tokens[j - 1].text in _HEADED else None


def _header_unclosed(
    text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]
) -> tuple[str, _Repairs] | None:
    """After "expected ')'" at ``tokens[k]`` in a control statement's head, Clang skips to the next ``)`` (taking
    it for the head's), or stops before a ``;`` or the ``}`` of the block around it (brackets skipped whole),
    and parses the statement's body there: an empty statement at a ``;``, "expected statement" at a ``}``."""
    m = _skipped_to(tokens, k, (")", ";", "}"))
    if m is None:
        return None
    stop = tokens[m]
    a = offset(text, tokens[k].line, tokens[k].column)
    b = offset(text, stop.line, stop.column)
    gone = blanked(text[a:b])
    done = _Repairs()
    done.errors.append((error[0], error[1], error[2]))
    if stop.text == ")":  # (the head closed there: the body follows it)
        return text[:a] + gone + text[b:], done
    if m == k:  # (``if (a;``: an empty body put in before the ';', the rest of the line moved on)
        if stop.text != ";":
            return None
        done.shifts.append((stop.line, stop.column + 3, 3))
        return text[:a] + "){}" + text[a:], done
    # the ')' where the skip began, an empty block for the body (no warning of Clang's for it) where two blanks
    # stand together, the last such
    room = next((j for j in range(len(gone) - 2, 0, -1) if gone[j : j + 2] == "  "), None)
    if room is None:
        return None
    if stop.text == "}":  # (no statement before the block's end)
        done.errors.append((stop.line, stop.column, "expected statement"))
    return text[:a] + ")" + gone[1:room] + "{}" + gone[room + 2 :] + text[b:], done


_CAST_OPERAND = frozenset({"id", "num", "str", "char"})
_NO_OPERAND = frozenset({";", "[", "]", ")", ","})
"""Tokens no expression begins with (where Clang looks for a cast's operand after skipping)."""


def _cast_open(tokens: list[Token], k: int, parser: Parser) -> int | None:
    """Where the ``)`` of a cast is missing, the operand that stands in its place (``(float n``), if ``tokens[k]``
    is that operand or a word of the type name before it; else None. The parenthesis must open an expression
    (after an operator, ``=``, ``(``, ``,``, ``return``) and hold only a type's words and ``*``, the first a
    type's."""
    j = innermost_open(tokens, k)
    if j < 1 or tokens[j].text != "(" or j + 1 > k:
        return None
    opener = tokens[j - 1]
    expression = opener.kind == "punct" and opener.text not in _ENDS_OPERAND and opener.text not in "{};"
    if not (expression or opener.text == "return"):
        return None
    declares = _declares(parser)
    m = j + 1
    while m < len(tokens) and (tokens[m].text == "*" or (tokens[m].kind == "id" and declares(tokens[m]))):
        m += 1
    if m == j + 1 or m < k or m == len(tokens) or not declares(tokens[j + 1]):
        return None
    operand = tokens[m]
    if operand.kind not in _CAST_OPERAND or operand.text in KEYWORDS:
        return None
    return m


def _cast_unclosed(
    text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str], parser: Parser
) -> tuple[str, _Repairs] | None:
    """After "expected ')'" at the operand of a cast whose ``)`` is missing (``_cast_open``), Clang skips to the
    next ``)`` (taking it) or before the statement's ``;``, and looks for the cast's operand there: where no
    expression can begin, "expected expression"; then the statement is skipped (``_statement_skipped``)."""
    m = _skipped_to(tokens, k, (";", ")", "]", "{", "}"))
    if m is None or tokens[m].text in ("]", "{", "}") or m + 1 >= len(tokens):
        return None
    nxt = tokens[m] if tokens[m].text == ";" else tokens[m + 1]
    if nxt.text not in _NO_OPERAND:
        return None
    j = innermost_open(tokens, k)
    while j > 0 and tokens[j].text != "{":  # (inside a call's arguments, Clang skips past the ';': not followed)
        j = innermost_open(tokens, j)
        caller = tokens[j - 1] if j > 0 else None
        if tokens[j].text == "(" and caller is not None and caller.kind == "id" and caller.text not in KEYWORDS:
            return None
    skipped = _statement_skipped(text, tokens, k, error, parser, left_open=True)
    if skipped is None:
        return None
    skipped[1].errors.append((nxt.line, nxt.column, "expected expression"))
    return skipped


def _missing_semicolon(tokens: list[Token], k: int, parser: Parser) -> tuple[int, int | None, str]:
    """Clang's "expected ';' ..." just after ``tokens[k - 1]``, the last token of a statement, declaration or member
    that ``tokens[k]`` does not continue, in the words of its kind (``semicolons.missing``)."""
    found = missing(tokens, k, _declares(parser), _typedef_name(parser))
    if found is not None:
        return found.line, found.column, found.message
    before = tokens[k - 1]
    start = k - 1  # the statement's first token, to tell a declaration
    while start > 0 and tokens[start - 1].text not in (";", "{", "}"):
        start -= 1
    what = "at end of declaration" if _declares(parser)(tokens[start]) else "after expression"
    return before.line, before.column + len(before.text), f"expected ';' {what}"


_CLANG_TYPE_KEYWORDS = frozenset({"half", "bool"}) | {
    f"image{d}_t" for d in ("1d", "1d_array", "1d_buffer", "2d", "2d_array", "3d")
}
"""Built-in type names that are keywords in Clang, not typedefs (its errors tell the two apart)."""


def _typedef_name(parser: Parser) -> Callable[[Token], bool]:
    """Whether a token is a typedef's name where ``parser`` stands, as Clang sees it: the program's and the
    built-in ones (``uint``, ``float4``, ``size_t``, ``sampler_t``), not a keyword."""
    declares = _declares(parser)

    def typedef_name(token: Token) -> bool:
        return declares(token) and token.text not in KEYWORDS and token.text not in _CLANG_TYPE_KEYWORDS

    return typedef_name


def _declares(parser: Parser) -> Callable[[Token], bool]:
    """Whether a token may begin a declaration where ``parser`` stands (Clang's ``isDeclarationSpecifier``): a
    keyword but a statement's, a built-in type's name, a typedef in scope."""

    def declares(token: Token) -> bool:
        name = token.text
        keyword = name in KEYWORDS and name not in _STATEMENT_WORDS
        return keyword or named_type(name) is not None or bool(parser._is_type_in_scope(name))

    return declares


_UNKNOWN = frozenset("@\\`#'\"")
"""Characters that begin no token of C where the parser meets them (a ``#`` not starting a directive, a quote
left unterminated: the preprocessor blanked the rest of its line): Clang's lexer makes each an unknown token, and
its parser reports what it expected there instead."""


def _unknown_token(tokens: list[Token], k: int, opened: list[str], parser: Parser) -> tuple[int, int | None, str]:
    """Clang's error at ``tokens[k]``, a character of ``_UNKNOWN``, inside the brackets ``opened``: the closer of a
    parenthesis or subscript whose operand it follows, a declarator at file scope, the ``;`` of a statement it
    follows, else an expression (each checked against PoCL 3.1's Clang)."""
    token = tokens[k]
    before = tokens[k - 1] if k else None
    operand = before is not None and (
        before.kind in ("num", "str", "char")
        or (before.kind == "id" and before.text not in KEYWORDS)
        or before.text in _ENDS_OPERAND
    )
    if operand and opened and opened[-1] in "([":
        return token.line, token.column, f"expected '{_CLOSERS[opened[-1]]}'"
    declarator = before is None or before.kind == "id" or before.text in (";", "{", "}", ",", "*", "(")
    if "{" not in opened and (declarator or operand):
        return token.line, token.column, "expected identifier or '('"
    if operand:
        return _missing_semicolon(tokens, k, parser)
    return token.line, token.column, "expected expression"


_QUALIFIER_WORDS = _DECLARATION_STARTS - {";", "{", "}", "(", ","}


def _specifier_error(tokens: list[Token], last: int) -> tuple[int, int | None, str] | None:
    """Clang's first error for the specifier list that ends at ``tokens[last]`` (the words before it, past
    qualifiers), at the word it names (``specifiers.read``)."""
    words: list[Token] = []
    for t in reversed(tokens[: last + 1]):
        if t.text in SPECIFIER_WORDS or t is tokens[last]:
            words.append(t)
        elif t.text not in _QUALIFIER_WORDS:
            break
    words.reverse()
    errors = [(k, message) for k, message, severity in read([t.text for t in words]).problems if severity == "error"]
    if not errors:
        return None
    k, message = errors[0]
    return words[k].line, words[k].column, message


_STATEMENT_WORDS = frozenset({"return", "if", "else", "while", "do", "for", "switch", "case", "default", "goto",
                              "break", "continue", "sizeof", "_Alignof"})  # fmt: skip
"""Keywords that start a statement or an expression, not a declaration."""


def ast_nodes(root: c_ast.Node) -> list[c_ast.Node]:
    """Every node under ``root`` (itself included), in no particular order: one walk that the front end's passes
    over the whole program share."""
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(child for _, child in node.children())
    return found


def _outcome(
    ast: c_ast.FileAST,
    errors: list[tuple[int, int | None, str]],
    failed: set[str],
    parser: Parser,
    repairs: _Repairs,
    text: str,
) -> ParseOutcome:
    return ParseOutcome(
        ast,
        errors,
        failed,
        sorted(parser.keyword_places),
        sorted(parser.empty_declarations),
        parser.statement_attributes,
        repairs.warnings,
        repairs.judged,
        text,
        sorted(parser.implicit_ints),
        repairs.shifts,
        frozenset(repairs.broken),
    )


@dataclass
class _Repairs:
    """What the recovery from missing ``;`` did (``_repaired``)."""

    errors: list[tuple[int, int | None, str]] = field(default_factory=list)
    warnings: list[tuple[int, int, str]] = field(default_factory=list)
    judged: list[Repair] = field(default_factory=list)
    shifts: list[tuple[int, int, int]] = field(default_factory=list)
    broken: list[tuple[int, int]] = field(default_factory=list)


_REPAIRS = 20
"""At most this many syntax errors recovered from in one text (each parses it again; Clang stops at 20 errors)."""


def _repaired(
    text: str, error: tuple[int, int | None, str], parser: Parser, invalid: frozenset[tuple[int, int]]
) -> tuple[str, _Repairs] | None:
    """``text`` as Clang's parser goes on after the syntax error ``error``, and what it reported; None where the
    simulator knows no such recovery (the declaration-by-declaration one of ``parse`` follows). Each keeps every
    other token where it stands: a ``;`` missing (``semicolons.py``: at a line's end, before a ``}``, after a
    struct's ``}``, where a blank takes it), a misspelt statement keyword or qualifier (corrected in place), a
    bracket Clang wanted closed or found too many, a statement in error (skipped to its ``;``), an operand missing
    in a control statement's head."""
    line, column, message = error
    if column is None:
        return None
    tokens = significant(tokenize(text, 1))
    k = next((k for k, t in enumerate(tokens) if (t.line, t.column) >= (line, column)), len(tokens))
    if k == 0 or k == len(tokens):
        return None
    before, after = tokens[k - 1], tokens[k]
    at_error = (after.line, after.column) == (line, column)  # (the error at a token's start, not just after one)
    done = _Repairs()
    if message in ("expected ';' after struct", "expected ';' after union"):  # (Clang goes on as if it were there)
        done.errors.append((line, column, message))
        return repaired(text, tokens, k, Missing(line, column, message, "continue", (line, column)), False), done
    typo = re.match(r"use of undeclared identifier '(\w+)'; did you mean '(\w+)'\?$", message)
    if typo and typo.group(2) in _KEYWORD_FOLLOWERS and at_error:
        done.errors.append((line, column, message))  # (the keyword in its place: Clang parses on with it)
        meant = typo.group(2)
        if len(meant) > len(after.text):  # (the rest of the line moves on: its diagnostics move back)
            done.shifts.append((line, column + len(after.text), len(meant) - len(after.text)))
        return _spelled_as(text, line, column, after.text, meant), done
    unknown = re.match(
        r"(unknown type name|use of undeclared identifier) '(\w+)'(?:; did you mean '(\w+)'\?)?$", message
    )
    typed = k + 1 < len(tokens) and tokens[k + 1].text in KEYWORDS and _declares(parser)(tokens[k + 1])
    if unknown and at_error and after.text == unknown.group(2):
        if unknown.group(1) == "use of undeclared identifier" and typed:  # (``aonst float v`` in a block: skipped)
            done.errors.append((line, column, message))
            skip = Missing(line, column, message, "skip", (line, column), filler="{}")
            return repaired(text, tokens, k, skip, False), done
        if unknown.group(1) == "unknown type name":  # (Clang parses on with its correction, else the name dropped
            done.errors.append((line, column, message))  # before a type word, else an int in its place)
            meant = unknown.group(3) or ("" if typed else "int")
            if len(meant) > len(after.text):  # (the rest of the line moves on: its diagnostics move back)
                done.shifts.append((line, column + len(after.text), len(meant) - len(after.text)))
            return _spelled_as(text, line, column, after.text, meant), done
    if message == "expected 'while' in do/while loop" and _do_of(tokens, k) is not None:
        return _while_missing(text, tokens, k, error)
    if message == "expected ';' in 'for' statement specifier" and _for_clauses(tokens, k) is not None:
        return _for_semicolon(text, tokens, k, error)
    if re.fullmatch(r"expected '\(' after '\w+'", message) and before.text in _HEADED:
        return _head_missing(text, tokens, k, error)
    if message in ("expected ')'", "expected ']'") and at_error:
        if message == "expected ']'" and after.text == ";":
            return _subscript_unclosed(text, tokens, k, error, parser)
        if after.text in (")", "]") and _CLOSERS[tokens[innermost_open(tokens, k)].text] != after.text:
            return _statement_skipped(text, tokens, k, error, parser, left_open=True)  # (``f(a[i);``: skipped)
        if message == "expected ')'" and _cast_open(tokens, k, parser) == k:
            return _cast_unclosed(text, tokens, k, error, parser)
        if message == "expected ')'" and _header_open(tokens, k) is not None:
            return _header_unclosed(text, tokens, k, error)
        if message == "expected ')'" and _parameters_open(tokens, k):
            return _parameters_unclosed(text, tokens, k, error)
        return _closed_early(text, tokens, k, error)
    unexpected = re.fullmatch(r"unexpected type name '(\w+)': expected expression", message)
    alone = before.text != "return" or (k + 1 < len(tokens) and tokens[k + 1].text == ";")  # (``semicolons``)
    if unexpected and after.text == unexpected.group(1) and at_error and alone:
        done.errors.append((line, column, message))  # (Clang goes on with an invalid operand there)
        start = _expression_start(tokens, k)
        if start is not None:  # (a statement in error: no word of its unused result)
            done.broken.append((tokens[start].line, tokens[start].column))
        return _spelled_as(text, line, column, after.text, "0" * len(after.text)), done  # (a 0 as long as it)
    if message.startswith("expected ';'") and at_error and after.text in ")]":
        return _stray_closer(text, tokens, k, error)
    if message.startswith("extraneous") and after.text in (")", "]") and at_error:
        done.errors.append((line, column, message))  # (Clang drops the bracket and takes the ';')
        return _spelled_as(text, line, column, after.text, ""), done
    found = None
    place = offset(text, line, column)
    blank = text[place : place + 1] in (" ", "\t")  # (the ';' fits there)
    if before.text == "return" or after.line != before.line or after.text == "}" or blank:
        found = missing(tokens, k, _declares(parser), _typedef_name(parser))
    if found is None or (found.line, found.column, found.message) != (line, column, message):
        skipped_whole = _statement_skipped(text, tokens, k, error, parser)
        blank = _blank_before(text, line, column) and after.text in _NO_OPERAND_AFTER  # (an operand goes before it)
        if skipped_whole is None and message == "expected expression" and blank:
            done.errors.append((line, column, message))  # (in a loop's or a condition's head: an operand there)
            operand = "1" if before.text in ("/", "%", "/=", "%=") else "0"
            return text[: place - 1] + operand + text[place:], done
        return skipped_whole
    skipped = found.at in invalid
    judged = None if skipped else repair_of(tokens, k, found, _declares(parser))
    if judged is not None:
        done.judged.append(judged)
    if not skipped:
        (done.warnings if found.severity == "warning" else done.errors).append((line, column, message))
        done.errors += found.also
    return repaired(text, tokens, k, found, skipped), done


def _blank_before(text: str, line: int, column: int) -> bool:
    """Whether the character before ``column`` of ``line`` is a blank (a repair may write there: nothing moves)."""
    return column > 1 and text[offset(text, line, column) - 1] in (" ", "\t")


def _closed_early(
    text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str]
) -> tuple[str, _Repairs] | None:
    """``text`` with the tokens from ``tokens[k]`` to the bracket that closes the one open around it blanked: Clang
    wanted it closed there ("expected ')'", two operands with no operator between), and parses on after it."""
    j = innermost_open(tokens, k)
    if j < 0 or tokens[j].text == "{":
        return None
    shut = closing(tokens, j, ")" if tokens[j].text == "(" else "]")
    if shut is None or tokens[shut].line != tokens[k].line:
        return None
    a = offset(text, tokens[k].line, tokens[k].column)
    b = offset(text, tokens[shut].line, tokens[shut].column)
    done = _Repairs()
    done.errors.append((error[0], error[1], error[2]))
    return text[:a] + " " * (b - a) + text[b:], done


def _statement_skipped(
    text: str, tokens: list[Token], k: int, error: tuple[int, int | None, str], parser: Parser, left_open: bool = False
) -> tuple[str, _Repairs] | None:
    """``text`` with the statement that holds the syntax error ``error`` (at ``tokens[k]``) skipped, as Clang's
    parser skips an expression in error to its ``;`` (``semicolons.skipped_statement``): its error reported, the
    function's later statements parsed and checked. A declaration keeps its variable (its initializer alone is
    skipped); any other statement becomes an empty block (no ``if`` loses its body, no ``else`` its ``if``)."""
    found = skipped_statement(tokens, k, _declares(parser), left_open)
    if found is None or error[1] is None:
        return None
    first, end, declaration = found
    a = offset(text, first.line, first.column)
    b = offset(text, end.line, end.column) + (0 if declaration else 1)
    gone = blanked(text[a:b])
    if not declaration:
        gone = "{}" + gone[2:] if len(gone) >= 2 and "\n" not in gone[:2] else gone
    done = _Repairs()
    done.errors.append((error[0], error[1], error[2]))
    return text[:a] + gone + text[b:], done


def _spelled_as(text: str, line: int, column: int, word: str, meant: str) -> str:
    """``text`` with ``word`` at ``line`` and ``column`` replaced by ``meant``: padded with blanks to its length
    where it is shorter (nothing moves), else longer (the rest of its line moves on)."""
    at = offset(text, line, column)
    return text[:at] + meant.ljust(len(word)) + text[at + len(word) :]


def _top_level_chunks(text: str) -> list[tuple[int, int]]:
    """Spans of the top-level declarations and function definitions, found by bracket matching (for error
    recovery only: each is parsed on its own so one syntax error does not hide the next)."""
    chunks: list[tuple[int, int]] = []
    start = 0
    depth = 0
    braces_of_function: list[bool] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth = max(0, depth - 1)
        elif c == "{":
            if depth == 0 and not braces_of_function:
                head = text[start:i]
                braces_of_function.append(bool(re.search(r"\)\s*(__attribute__\s*\(\(.*\)\)\s*)?$", head, re.S)))
            else:
                braces_of_function.append(False)
        elif c == "}":
            if braces_of_function:
                is_function = braces_of_function.pop()
                if not braces_of_function and depth == 0 and is_function:
                    chunks.append((start, i + 1))
                    start = i + 1
            else:  # a stray '}': a chunk of its own
                chunks.append((start, i + 1))
                start = i + 1
        elif c == ";" and depth == 0 and not braces_of_function:
            chunks.append((start, i + 1))
            start = i + 1
        i += 1
    if text[start:].strip():
        chunks.append((start, n))
    return [(a, b) for a, b in chunks if text[a:b].strip()]


def _declared_names(chunk: str) -> set[str]:
    head = chunk.split("{", 1)[0]
    return set(re.findall(r"([A-Za-z_]\w*)\s*[(\[=;,]", head)) - {"__attribute__", "if", "for", "while", "return"}


def _indent(text: str, start: int, chunk: str) -> int:
    """Columns before the first character of ``chunk`` (which starts at ``start`` in ``text``) on its line."""
    first = start + (len(chunk) - len(chunk.lstrip()))
    return first - (text.rfind("\n", 0, first) + 1)


def parse(text: str, invalid: frozenset[tuple[int, int]] = frozenset()) -> ParseOutcome:
    """The AST of ``text`` and its syntax errors, Clang's recovery made at each where the simulator knows it
    (``_repaired``; ``invalid``: the places of statements without their ``;`` that the checker found in error:
    skipped, as Clang's parser skips them), the others recovered from declaration by declaration."""
    repairs = _Repairs()
    records = "struct" in text or "union" in text
    tokens = significant(tokenize(text, 1)) if records else []
    run_on = records_run_on(tokens, _RECORD_FOLLOWERS)  # (a struct's missing ';' the parser may take no note of)
    for k, word in reversed(run_on):
        shut = tokens[k - 1]
        line, column, message = shut.line, shut.column + 1, f"expected ';' after {word}"
        repairs.errors.insert(0, (line, column, message))
        text = repaired(text, tokens, k, Missing(line, column, message, "continue", (line, column)), False)
    given = text
    ast, error, parser = _parse_once(text)
    for _ in range(_REPAIRS):
        step = None if ast is not None or error is None else _repaired(text, error, parser, invalid)
        if step is None:
            break
        text, done = step
        repairs.errors += done.errors
        repairs.warnings += done.warnings
        repairs.judged += done.judged
        repairs.shifts += done.shifts
        repairs.broken += done.broken
        ast, error, parser = _parse_once(text)
    if records:  # (the tokens of the text repaired, if it was)
        tokens = tokens if text is given and not run_on else significant(tokenize(text, 1))
        message = "expected ';' at end of declaration list"
        repairs.warnings += [(line, column, message) for line, column in unended_members(tokens)]
    if ast is not None:
        return _outcome(ast, repairs.errors, set(), parser, repairs, text)
    # recover: parse the declarations one by one, each with the good ones before it (for their typedefs)
    errors: list[tuple[int, int | None, str]] = []
    failed: set[str] = set()
    good = blanked(text)
    good_ast = c_ast.FileAST([])
    good_parser = Parser()
    failed_indent: int | None = None  # indentation of the last declaration that failed to parse
    chunks = _top_level_chunks(text)
    ends: list[int] = []  # (the line each declaration ends on, counted on from the one before)
    line, counted = 1, 0
    for _, end in chunks:
        line, counted = line + text.count("\n", counted, end), end
        ends.append(line)
    k = 0
    while k < len(chunks):
        a, b = chunks[k]
        chunk = text[a:b]
        indent = _indent(text, a, chunk)
        if failed_indent is not None and (chunk.lstrip().startswith("}") or indent > failed_indent):
            # more indented than the broken declaration, or a stray '}': the remains of a function whose
            # braces the syntax error unbalanced, not a new declaration; no second round of errors for it
            failed |= _declared_names(chunk)
            k += 1
            continue
        # the declarations before the next error parse as they are: taken at once, not one reparse each (a
        # reparse costs the whole text: one per declaration was quadratic, 15 s for gpuowl's unknown type)
        rest_ast, rest_error, rest_parser = _parse_once(good[:a] + text[a:])
        if rest_ast is not None:
            good, good_ast, good_parser = good[:a] + text[a:], rest_ast, rest_parser
            break
        assert rest_error is not None
        last = next((j for j in range(k, len(chunks)) if ends[j] >= rest_error[0]), len(chunks)) - 1
        taken = False
        for upto_chunk in range(last, max(last - 2, k - 1), -1):  # (the broken one may end before the error: the
            upto = chunks[upto_chunk][1]  # input ending inside an unclosed function is an error at its end)
            before = good[:a] + text[a:upto] + good[upto:]
            before_ast, _, before_parser = _parse_once(before)
            if before_ast is not None:
                good, good_ast, good_parser = before, before_ast, before_parser
                failed_indent, k, taken = None, upto_chunk + 1, True
                break
        if taken:
            continue
        candidate = good[:a] + chunk + good[b:]
        chunk_ast, chunk_error, chunk_parser = _parse_once(candidate)
        failed_indent = indent if chunk_ast is None else None
        if chunk_ast is not None:
            good, good_ast, good_parser = candidate, chunk_ast, chunk_parser
        else:
            assert chunk_error is not None
            errors.append(chunk_error)
            failed |= _declared_names(chunk)
        k += 1
    if not errors and error is not None:
        errors.append(error)
    return _outcome(good_ast, repairs.errors + errors, failed, good_parser, repairs, text)
