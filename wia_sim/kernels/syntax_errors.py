"""Clang's words and place for a syntax error where pycparser's differ (a type name nothing defines, a ``;`` or a
bracket missing, a misspelt keyword, a number that is no constant, an operand missing), read from the source's
tokens around where the parser stopped; and the readings of a statement's shape (``do_of``, ``header_open``,
``cast_open``, ...) that they and the recovery after the error share.

Apart from the grammar (``grammar.py``), which only finds where the text stops parsing: what is reported is
decided here, how parsing goes on after it elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable

from wia_sim.kernels.grammar import KEYWORDS, Parser
from wia_sim.kernels.numeric_literals import PP_NUMBER, literal_error
from wia_sim.kernels.semicolons import CLOSERS, closes_list, file_scope, in_block, innermost_open, missing
from wia_sim.kernels.signatures import is_builtin_function
from wia_sim.kernels.specifiers import SPECIFIER_WORDS, read
from wia_sim.kernels.tokens import STRING_LITERAL, Token, closing, significant, tokenize
from wia_sim.kernels.types import BUILTIN_TYPE_NAMES, named_type
from wia_sim.kernels.typos import TYPE_KEYWORDS, corrected

__all__ = [
    "HEADED",
    "KEYWORD_FOLLOWERS",
    "NO_OPERAND_AFTER",
    "RECORD_FOLLOWERS",
    "bad_number",
    "cast_open",
    "clang_words",
    "controlled",
    "declares_in",
    "do_of",
    "end_of",
    "for_clauses",
    "header_open",
    "parse_error_message",
    "stray_brace",
    "typedef_name",
]


def parse_error_message(message: str) -> str:
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


def bad_number(text: str) -> tuple[tuple[int, int], tuple[int, int, str]] | None:
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


def stray_brace(text: str) -> tuple[int, int] | None:
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


def clang_words(text: str, at: tuple[int, int | None], parser: Parser) -> tuple[int, int | None, str] | None:
    """Clang's words and place for the syntax error pycparser found at ``at`` in ``text``, where they are known
    (``_unknown_name``, ``_expected``), from the source's tokens."""
    tokens = significant(tokenize(text, 1))
    return (
        _record_without_semicolon(tokens, at)
        or _keyword_typo(tokens, at, parser)
        or _unknown_name(tokens, at, parser)
        or _expected(tokens, at, parser, end_of(text))
        or _run_on(tokens, at, parser)
    )


KEYWORD_FOLLOWERS = {"if": "(", "while": "(", "for": "(", "switch": "(", "goto": "id", "return": "id("}
"""The statements' keywords Clang's typo correction offers at a statement's start that a parse error there shows
(``brek;`` parses, and is the checker's), and what must follow each for the correction to parse ("id(": a name or
a ``(``, the tokens before which Clang's statement parser offers statements' keywords at all: ``retrun 1;`` is
"use of undeclared identifier 'retrun'")."""


def _keyword_typo(
    tokens: list[Token], at: tuple[int, int | None], parser: Parser
) -> tuple[int, int | None, str] | None:
    """Clang's error for a statement whose first word is a misspelt keyword (``whle (a) {``, ``gto end;``): the name
    undeclared, and the keyword it corrects to (Clang then parses on as if it stood there: ``recovery.recovered``)."""
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
    meant = corrected(name, KEYWORD_FOLLOWERS).name
    if meant is None:
        return None
    follows = KEYWORD_FOLLOWERS[meant]
    if not (after.text in follows or (after.kind == "id" and "id" in follows)):
        return None
    if corrected(name, KEYWORD_FOLLOWERS, strict=True).name is None:  # (too far for the statement parser, which
        # corrects at once: the name stays, its expression is in error, and Clang skips the statement, ``recovery``)
        return first.line, first.column, f"use of undeclared identifier '{name}'"
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
    declares = declares_in(parser)

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


def end_of(text: str) -> tuple[int, int]:
    """Where Clang places the end of the input: after its last character, or at its last newline."""
    last = len(text) - 1 if text.endswith("\n") else len(text)
    return text.count("\n", 0, last) + 1, last - text.rfind("\n", 0, last)


RECORD_FOLLOWERS = frozenset(KEYWORDS) - {"const", "volatile", "restrict"} | {"__kernel", "kernel"}
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
            if after is not None and after.text in RECORD_FOLLOWERS:
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
        if after.kind == "id" and after.text in KEYWORDS and declares_in(parser)(after):  # (``aonst float* x``)
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


NO_OPERAND_AFTER = frozenset(
    {";", ")", "]", ",", "/", "%", "<", ">", "<=", ">=", "==", "!=", "<<", ">>", "&&", "||", "|", "^", "?", ":"}
    | {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="}
)
"""Tokens that cannot begin an operand: after an operator or an opening bracket, "expected expression" there."""
_ENDS_OPERAND = frozenset({")", "]", "++", "--"})
"""Punctuators that may end an expression (besides names, numbers and literals)."""


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
        if t.text in CLOSERS:
            opened.append(t.text)
            headers.append(t.text == "(" and j > 0 and tokens[j - 1].text == "for")
        elif opened and t.text == CLOSERS[opened[-1]]:
            opened.pop()
            headers.pop()
    header = bool(headers) and headers[-1]
    if k < len(tokens) and tokens[k].text in _UNKNOWN:
        return _unknown_token(tokens, k, opened, parser)
    before = tokens[k - 1]
    if k == len(tokens):  # the input ended with something open: the closer, at its end (``end_of``)
        if not opened:
            return None
        line, column = end or (before.line, before.column + len(before.text))
        return line, column, f"expected '{CLOSERS[opened[-1]]}'"
    token = tokens[k]
    after = tokens[k + 1].text if k + 1 < len(tokens) else ""
    if token.text != "while" and "{" in opened and do_of(tokens, k) is not None:  # (``do {...} whle (c);``)
        return token.line, token.column, "expected 'while' in do/while loop"
    if before.text in HEADED and token.text != "(" and "{" in opened:  # (``if i < n)``)
        return token.line, token.column, f"expected '(' after '{before.text}'"
    cast = cast_open(tokens, k, parser) if "{" in opened else None
    if cast is not None:  # (``(float n * 2``: the type's ')' missing)
        return tokens[cast].line, tokens[cast].column, "expected ')'"
    crossed = token.text in (")", "]") and bool(opened) and CLOSERS[opened[-1]] != token.text
    if crossed and opened[-1] in "([" and any(CLOSERS[o] == token.text for o in opened):  # (``f(a[i);``)
        return token.line, token.column, f"expected '{CLOSERS[opened[-1]]}'"
    stray = token.text in (")", "]") and (not opened or CLOSERS[opened[-1]] != token.text)
    if stray and after == ";":
        return token.line, token.column, f"extraneous '{token.text}' before ';'"
    if stray and opened and opened[-1] == "{" and (before.kind in _CAST_OPERAND or before.text in _ENDS_OPERAND):
        return _missing_semicolon(tokens, k, parser)  # (``j++) o[j] = 1;``: the statement ends at the bracket)
    if token.text in (";", "{") and opened and opened[-1] in "([" and not (header and token.text == ";"):
        return token.line, token.column, f"expected '{CLOSERS[opened[-1]]}'"
    if before.text in (".", "->") and token.kind != "id":  # (a member's name must follow)
        return token.line, token.column, "expected identifier"
    operator = before.kind == "punct" and before.text not in (";", ")", "]", ",", "(", "{", "}", "++", "--", ".", "->")
    returned = before.text == "return" and after == ";"  # (else a declaration on: ``semicolons``' words)
    if (operator or returned) and token.kind == "id" and typedef_name(parser)(token):
        return token.line, token.column, f"unexpected type name '{token.text}': expected expression"  # (``= float4``)
    if token.text == "else" or (
        token.text in NO_OPERAND_AFTER and before.kind == "punct" and before.text not in _ENDS_OPERAND
    ):
        return token.line, token.column, "expected expression"
    if token.kind == "num" and before.kind == "id" and (before.text in KEYWORDS or named_type(before.text)):
        return token.line, token.column, "expected identifier or '('"
    typed = token.kind == "id" and (token.text in SPECIFIER_WORDS or named_type(token.text) is not None)
    if typed and k + 1 < len(tokens) and tokens[k + 1].kind == "num":  # (``int 3x``: the parser stops at the type)
        return tokens[k + 1].line, tokens[k + 1].column, "expected identifier or '('"
    if typed and before.text == ")" and controlled(tokens, k - 1):  # (``if (c) int x;``: a statement must follow)
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
    if ends and token.line > before.line and header_open(tokens, k) is not None:  # (``if (a < b`` ending its line)
        return token.line, token.column, "expected ')'"
    body = before.text == ")" and token.text == "{"  # (a function's or a statement's: no ';' goes between)
    if ends and not body and (token.line > before.line or (token.text == "}" and opened and opened[-1] == "{")):
        return _missing_semicolon(tokens, k, parser)
    operand = token.kind in ("id", "num", "str", "char") and token.text not in KEYWORDS
    if ends and operand and (before.kind != "id" or before.text not in KEYWORDS):
        # two operands with no operator between: the bracket open around them must close first, else the ';'
        if header and for_clauses(tokens, k) is not None:  # (a ``for``'s head short of its two ';')
            return token.line, token.column, "expected ';' in 'for' statement specifier"
        if opened and opened[-1] in "([":
            return token.line, token.column, f"expected '{CLOSERS[opened[-1]]}'"
        return _missing_semicolon(tokens, k, parser)
    return None


def controlled(tokens: list[Token], close: int) -> bool:
    """Whether the ``)`` at ``tokens[close]`` closes an ``if``'s, ``while``'s, ``for``'s or ``switch``'s
    parentheses (a statement comes next, not a declaration)."""
    depth = 0
    for j in range(close, -1, -1):
        depth += {")": 1, "(": -1}.get(tokens[j].text, 0)
        if depth == 0:
            return j > 0 and tokens[j - 1].text in ("if", "while", "for", "switch")
    return False


HEADED = frozenset({"if", "while", "for", "switch"})
"""Statements whose keyword a parenthesis must follow."""


def for_clauses(tokens: list[Token], k: int) -> int | None:
    """The ``(`` of the ``for`` head innermost open at ``tokens[k]`` where one of its two ``;`` is missing (one in
    all, the head closed on the same line), else None."""
    j = header_open(tokens, k)
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


def do_of(tokens: list[Token], k: int) -> int | None:
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


def header_open(tokens: list[Token], k: int) -> int | None:
    """The ``(`` of an ``if``'s, ``while``'s, ``for``'s or ``switch``'s head innermost open at ``tokens[k]``."""
    j = innermost_open(tokens, k)
    return j if j > 0 and tokens[j].text == "(" and tokens[j - 1].text in HEADED else None


_CAST_OPERAND = frozenset({"id", "num", "str", "char"})


def cast_open(tokens: list[Token], k: int, parser: Parser) -> int | None:
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
    declares = declares_in(parser)
    m = j + 1
    while m < len(tokens) and (tokens[m].text == "*" or (tokens[m].kind == "id" and declares(tokens[m]))):
        m += 1
    if m == j + 1 or m < k or m == len(tokens) or not declares(tokens[j + 1]):
        return None
    operand = tokens[m]
    if operand.kind not in _CAST_OPERAND or operand.text in KEYWORDS:
        return None
    return m


def _missing_semicolon(tokens: list[Token], k: int, parser: Parser) -> tuple[int, int | None, str]:
    """Clang's "expected ';' ..." just after ``tokens[k - 1]``, the last token of a statement, declaration or member
    that ``tokens[k]`` does not continue, in the words of its kind (``semicolons.missing``)."""
    found = missing(tokens, k, declares_in(parser), typedef_name(parser))
    if found is not None:
        return found.line, found.column, found.message
    before = tokens[k - 1]
    start = k - 1  # the statement's first token, to tell a declaration
    while start > 0 and tokens[start - 1].text not in (";", "{", "}"):
        start -= 1
    what = "at end of declaration" if declares_in(parser)(tokens[start]) else "after expression"
    return before.line, before.column + len(before.text), f"expected ';' {what}"


_CLANG_TYPE_KEYWORDS = frozenset({"half", "bool"}) | {
    f"image{d}_t" for d in ("1d", "1d_array", "1d_buffer", "2d", "2d_array", "3d")
}
"""Built-in type names that are keywords in Clang, not typedefs (its errors tell the two apart)."""


def typedef_name(parser: Parser) -> Callable[[Token], bool]:
    """Whether a token is a typedef's name where ``parser`` stands, as Clang sees it: the program's and the
    built-in ones (``uint``, ``float4``, ``size_t``, ``sampler_t``), not a keyword."""
    declares = declares_in(parser)

    def typedef_name(token: Token) -> bool:
        return declares(token) and token.text not in KEYWORDS and token.text not in _CLANG_TYPE_KEYWORDS

    return typedef_name


def declares_in(parser: Parser) -> Callable[[Token], bool]:
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
        return token.line, token.column, f"expected '{CLOSERS[opened[-1]]}'"
    declarator = before is None or before.kind == "id" or before.text in (";", "{", "}", ",", "*", "(")
    if "{" not in opened and (declarator or operand):
        return token.line, token.column, "expected identifier or '('"
    if operand:
        return _missing_semicolon(tokens, k, parser)
    return token.line, token.column, "expected expression"


def _specifier_error(tokens: list[Token], last: int) -> tuple[int, int | None, str] | None:
    """Clang's first error for the specifier list that ends at ``tokens[last]`` (the words before it, past
    qualifiers), at the word it names (``specifiers.read``)."""
    words: list[Token] = []
    for t in reversed(tokens[: last + 1]):
        if t.text in SPECIFIER_WORDS or t is tokens[last]:
            words.append(t)
        elif t.text not in _QUALIFIERS:
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
