"""Preprocessed source to a pycparser AST with pycparserext's ``OpenCLCParser``, reporting every syntax error,
not only the first.

The parser predefines few OpenCL type names, so a prelude (in ``grammar.BUILTIN_FILE``) typedefs the others. After a
syntax error each top-level declaration is parsed on its own, so that one error does not hide the next, and the
names the broken ones declare are returned so that the checker does not also report them as undeclared.

This module ties the parts together: the grammar (``grammar.py``), the rewrites of the text around it
(``rewrites.py``), Clang's words for a syntax error (``syntax_errors.py``) and its recovery after one
(``recovery.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pycparser import c_ast
from pycparser.c_parser import ParseError

from wia_sim.kernels import rewrites
from wia_sim.kernels.grammar import BUILTIN_FILE, PRELUDE, SOURCE_FILE, Parser, StatementAttributes
from wia_sim.kernels.recovery import Repairs, recovered
from wia_sim.kernels.semicolons import Missing, Repair, records_run_on, repaired, unended_members
from wia_sim.kernels.syntax_errors import RECORD_FOLLOWERS, bad_number, clang_words, parse_error_message, stray_brace
from wia_sim.kernels.tokens import blanked, significant, tokenize

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


def _parse_once(text: str) -> tuple[c_ast.FileAST | None, tuple[int, int | None, str] | None, Parser]:
    """The AST of ``text`` or its first syntax error, and the parser (what it noted: ``ParseOutcome``). A
    preprocessing number that is no constant is Clang's error where it stands, unless the parser failed before the
    number starts (``syntax_errors.bad_number``: the parser reads ``3x`` as ``3`` and ``x``, ``0x1e+5`` as
    ``0x1e + 5``)."""
    parser = Parser()
    text, pointer_spaces, places = rewrites.pointer_spaces(rewrites.gnu_keywords(text))
    parser.keyword_places.update(places)
    number = bad_number(text)
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
            return None, clang_words(text, at, parser) or (*at, parse_error_message(m.group("msg")))
        # no position in the message ("Invalid expression", "Unmatched '}'"): the next token is where it failed
        raw = m.group("msg") if m else message.split(": ", 1)[-1]
        if raw == "Unmatched '}'":  # (Clang's words, at the first '}' that closes nothing)
            stray = stray_brace(text)
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
        return None, clang_words(text, (line, col), parser) or (line, col, parse_error_message(raw))
    except RecursionError:  # (past ``recursion.FRAMES``: far past Clang's bracket depth of 256)
        return None, (max(1, text.rstrip().count("\n") + 1), None, "the source nests too deeply to parse")
    except Exception as e:  # pycparser's internal errors on malformed input: still a compile error, not a crash
        return None, (max(1, text.rstrip().count("\n") + 1), None, f"cannot parse the source: {e}")
    return ast, None


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
    repairs: Repairs,
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


_REPAIRS = 20
"""At most this many syntax errors recovered from in one text (each parses it again; Clang stops at 20 errors)."""


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
    (``recovery.recovered``; ``invalid``: the places of statements without their ``;`` that the checker found in error:
    skipped, as Clang's parser skips them), the others recovered from declaration by declaration."""
    repairs = Repairs()
    records = "struct" in text or "union" in text
    tokens = significant(tokenize(text, 1)) if records else []
    run_on = records_run_on(tokens, RECORD_FOLLOWERS)  # (a struct's missing ';' the parser may take no note of)
    for k, word in reversed(run_on):
        shut = tokens[k - 1]
        line, column, message = shut.line, shut.column + 1, f"expected ';' after {word}"
        repairs.errors.insert(0, (line, column, message))
        text = repaired(text, tokens, k, Missing(line, column, message, "continue", (line, column)), False)
    given = text
    ast, error, parser = _parse_once(text)
    for _ in range(_REPAIRS):
        step = None if ast is not None or error is None else recovered(text, error, parser, invalid)
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
