"""The kernel language's front end: OpenCL C source to a checked, typed description the executor can rely on.

``compile_source`` preprocesses (``preprocess.py``), parses with pycparserext's ``OpenCLCParser`` (``parsing.py``)
and checks the program (``checker.py``, with the type model of ``types.py`` and the built-in signatures of
``signatures.py``); ``program.py`` describes the result. Everything the executor does not support is rejected
here, by line, so that nothing is silently mis-executed; the build log holds every problem found, one
``kernel.cl:12:5: error: ...`` line each.

What the executor gets (see ``Program``): the pycparser AST (``c_ast`` nodes; the OpenCL parser's own node
classes are ``FuncDeclExt`` for function types and ``AttributeSpecifier`` in ``Decl.funcspec``), each kernel's
parameters already classified (buffer, local, scalar), its ``__local`` variables with their sizes, the helper
functions, the program-scope ``__constant`` variables and enumerators, and a type resolver for declarations.

After a successful compile these hold in every function body:

* statements are only ``Compound``, ``Decl``, ``If``, ``For``, ``While``, ``DoWhile``, ``Switch``, ``Break``,
  ``Continue``, ``Return``, ``EmptyStatement``, ``StaticAssert`` (already checked: skip it) and expression
  statements; a ``Switch``'s controlling expression has an integer type and its ``Case``/``Default`` labels are
  items of its body (or the body itself), never deeper: each ``Case`` value is an integer constant expression
  (``Program.const_int``), unique after conversion to the promoted controlling type, at most one ``Default``;
* expressions are only ``ID``, ``Constant``, ``UnaryOp``, ``BinaryOp``, ``TernaryOp``, ``Assignment``,
  ``FuncCall`` (the callee is always an ``ID``: a helper function or a built-in), ``ArrayRef``, ``StructRef``,
  ``Cast`` (a GNU built-in's argument a ``gnu_builtins.Passed``: the calls are rewritten into OpenCL C),
  ``ExprList`` (a comma expression, or the components of a vector literal under a ``Cast``) and
  ``InitList`` (only as a declaration's initializer);
* every identifier is declared (a variable, a parameter, a program-scope ``__constant``, an enumerator, or a name
  in ``BUILTIN_CONSTANTS``), every call has the callee's number of arguments, no function is recursive, every
  array size is a constant, every vector swizzle is valid for its vector (see ``swizzle_indices``), and
  ``__local`` variables are declared only at a kernel's outermost scope, without initializers.
"""

from __future__ import annotations

import os
import re
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import replace

from pycparser import c_ast

from wia_sim.kernels.checker import Checker
from wia_sim.kernels.clang_attributes import unknown_attributes
from wia_sim.kernels.contraction import contractions
from wia_sim.kernels.diagnostics import origin
from wia_sim.kernels.gnu_builtins import expand_all
from wia_sim.kernels.grammar import BUILTIN_FILE, FOREIGN_TYPE_NAMES
from wia_sim.kernels.operator_marks import OperatorMarks
from wia_sim.kernels.options import warnings_as
from wia_sim.kernels.parsing import ParseOutcome, ast_nodes, parse
from wia_sim.kernels.preprocess import (
    FLOAT_EXTENSIONS,
    Diagnostic,
    PreprocessResult,
    format_log,
    preprocess,
    unchanged,
)
from wia_sim.kernels.program import KernelCompileError, Program
from wia_sim.kernels.recursion import deep_recursion
from wia_sim.kernels.semicolons import invalid_at_parse
from wia_sim.kernels.specifiers import specifier_diagnostics
from wia_sim.kernels.structs import hoisted_attributes
from wia_sim.kernels.tokens import STRING_LITERAL, blanked, significant, tokenize
from wia_sim.kernels.types import VECTOR_BASES, VECTOR_WIDTHS

__all__ = ["compile_source"]


# pycparserext cannot parse a type name inside an attribute: __attribute__((vec_type_hint(float4))) is a hint
# with no meaning for the simulator, so its argument becomes 0 (same length: columns stay the user's), and the
# checker looks at the type name itself (``Checker.type_hints``)
_VEC_TYPE_HINT_RE = re.compile(r"(vec_type_hint\s*\(\s*)([A-Za-z_]\w*(?:[ \t]+[A-Za-z_]\w*)*[ \t]*\**)(\s*\))")


def _hidden_type_hints(text: str) -> tuple[str, list[tuple[int, int, int, str]]]:
    """``text`` with each ``vec_type_hint(T)``'s ``T`` hidden, and where each was: the line, the columns of the
    attribute's name and of ``T``, and ``T``."""
    hints: list[tuple[int, int, int, str]] = []

    def hide(m: re.Match[str]) -> str:
        at, start = m.start(1), m.start(2)
        line = text.count("\n", 0, at) + 1
        first = text.rfind("\n", 0, at) + 1
        hints.append((line, at - first + 1, start - first + 1, m.group(2)))
        return m.group(1) + "0".ljust(len(m.group(2))) + m.group(3)

    return _VEC_TYPE_HINT_RE.sub(hide, text), hints


# vec_step takes a type name as sizeof does (OpenCL C 1.2, 6.12.12), which the parser cannot read as an argument:
# for a built-in scalar or vector type the call becomes its value, padded to the same length
_SCALAR = "|".join(VECTOR_BASES)
_WIDTH = "|".join(str(w) for w in VECTOR_WIDTHS)
_QUALIFIERS = r"(?:(?:const|volatile|(?:__)?(?:global|local|constant|private))\s+)*"
_SPELLED = r"(?:(?:un)?signed\s+(?:char|short|int|long)|unsigned|signed)"  # (C's names of the scalars: one component)
_VEC_STEP_TYPE_RE = re.compile(rf"\bvec_step\s*\(\s*{_QUALIFIERS}(?:{_SPELLED}|(?:{_SCALAR})({_WIDTH})?)\s*\)")


def _lowered(ast: c_ast.Node, typed_calls: dict[int, str]) -> None:
    """Each call of ``__builtin_astype`` or ``__builtin_convertvector`` as the ``as_`` or ``convert_`` built-in the
    checker found it to be (``check_vector_builtins``): its name that built-in's, its operand its one argument."""
    for node in ast_nodes(ast):
        name = typed_calls.get(id(node))
        if name is not None:
            node.name = c_ast.ID(name, node.name.coord)
            node.args.exprs = node.args.exprs[:1]


_VEC_STEP_LITERAL_RE = re.compile(rf"\bvec_step(\s*)\(\s*(?:{_SCALAR})(?:{_WIDTH})\s*\)\s*\(")
"""``vec_step (int4)(v)``: of the vector literal that starts after the type, as Clang reads it."""


def _vec_step_literals(text: str) -> str:
    """``text`` with each ``vec_step (T)(parts)`` of a vector literal as ``vec_step((T)(parts))``, a call the
    parser reads (a blank after ``vec_step`` gives its place to the opening parenthesis, so that the literal keeps
    its columns; what follows on the line moves by one, or by two without the blank)."""
    pieces: list[str] = []
    done = 0
    for m in _VEC_STEP_LITERAL_RE.finditer(text):
        if m.start() < done:
            continue
        depth, end = 1, m.end()
        while end < len(text) and depth:  # to the literal's closing parenthesis
            depth += {"(": 1, ")": -1}.get(text[end], 0)
            end += 1
        if depth:
            break
        call = text[m.start() : end]
        blank = len(m.group(1))
        pieces += [text[done : m.start()], "vec_step" + " " * max(blank - 1, 0) + "(" + call[8 + blank :] + ")"]
        done = end
    return "".join(pieces) + text[done:] if pieces else text


_HINT = r"((?:__)?opencl_unroll_hint(?:__)?)\s*(?:\(([^()]*)\))?"
_LOOP_HINT_RE = re.compile(rf"\b__attribute__\s*\(\(\s*({_HINT}(?:\s*,\s*{_HINT})*)\s*\)\)")
"""``__attribute__((opencl_unroll_hint(N)))`` (OpenCL C 2.0's, which Clang takes in 1.2 too), or a list of them, an
attribute the parser cannot place on a statement (``_loop_hint_pragma``)."""
_HINT_RE = re.compile(_HINT)
_PRAGMA_OPENS = len('_Pragma("')


def _loop_hint_pragma(m: re.Match[str]) -> str:
    """An ``opencl_unroll_hint`` attribute as the ``_Pragma`` (one per hint of its list) the parser places before
    the statement it precedes, for the checks ``loop_hints.py`` makes: each name and count at its column where
    there is room (a second hint's ``_Pragma`` starts after the first), lines kept. One over several lines, with a
    string in it, or longer than the attribute with more on its line is blanked: the hint has no effect here."""
    text = m.group(0)
    out = ""
    for hint in _HINT_RE.finditer(text, m.start(1) - m.start()):
        count = "" if hint.group(2) is None else " " * (hint.start(2) - hint.end(1)) + hint.group(2)
        if '"' in count or "\\" in count:
            return blanked(text)
        out = out.ljust(max(hint.start(1) - _PRAGMA_OPENS, len(out))) + f'_Pragma("{hint.group(1)}{count}")'
    line_end = m.string.find("\n", m.end())
    rest = m.string[m.end() : line_end if line_end >= 0 else len(m.string)]
    if "\n" in text or (len(out) > len(text) and rest.strip()):
        return blanked(text)
    return out.ljust(len(text))


_GNU_ALIGNOF_RE = re.compile(rf"{STRING_LITERAL.pattern}|\b__alignof(?:__)?\b")
"""Clang's spellings of C11's ``_Alignof``, which the parser knows: rewritten to it, padded to keep columns."""
_BUILTIN_OFFSETOF_RE = re.compile(rf"{STRING_LITERAL.pattern}|\b__builtin_offsetof\b")
"""Clang's ``__builtin_offsetof``, rewritten to the ``offsetof`` pycparser parses (a type, then a designator)."""


def _literal(m: re.Match[str]) -> bool:
    """Whether ``m``, a match of a pattern whose first alternative is ``STRING_LITERAL``, is a string or character
    literal, whose text is the program's (``printf("__alignof")``), not code."""
    return m.group(0)[0] in "\"'"


def _in_code(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The matches of ``pattern`` outside literals (``_literal``)."""
    return (m for m in pattern.finditer(text) if not _literal(m))


def _places(pattern: re.Pattern[str], text: str) -> frozenset[tuple[int, int]]:
    """Where each match of ``pattern`` outside literals starts: (line, column), as the parser's coordinates."""
    return frozenset(
        (text.count("\n", 0, m.start()) + 1, m.start() - text.rfind("\n", 0, m.start()))
        for m in _in_code(pattern, text)
    )


def _rewritten(pattern: re.Pattern[str], word: str, text: str) -> str:
    """``text`` with each match of ``pattern`` outside literals replaced by ``word``, padded to keep columns."""
    return pattern.sub(lambda m: m.group(0) if _literal(m) else word.ljust(len(m.group(0))), text)


_UNDECLARED_RE = re.compile(rf"{STRING_LITERAL.pattern}|\b(?:offsetof|{'|'.join(sorted(FOREIGN_TYPE_NAMES))})\b")
"""``offsetof`` and C99's ``<stdint.h>`` type names as the user wrote them (string and character literals skipped):
OpenCL C has neither ``<stddef.h>`` nor ``<stdint.h>``, so on PoCL 3.1 and Oclgrind 21.10 they are undeclared."""


def _undeclared(text: str, filename: str) -> list[Diagnostic]:
    """Clang's error for each ``offsetof`` or ``<stdint.h>`` type name the preprocessed ``text`` still holds (a macro
    of that name would have been expanded), but for a type name the program typedefs itself."""
    found = []
    defined: dict[str, bool] = {"offsetof": False}  # (a type name's typedef looked for once per name)
    for m in _in_code(_UNDECLARED_RE, text):
        name = m.group(0)
        if name not in defined:
            defined[name] = re.search(rf"(\btypedef\b[^;{{}}]*|}}\s*)\b{name}\s*;", text) is not None
        if defined[name]:
            continue
        line = text.count("\n", 0, m.start()) + 1
        column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        message = (
            "implicit declaration of function 'offsetof' is invalid in OpenCL (use __builtin_offsetof)"
            if name == "offsetof"
            else f"use of undeclared identifier '{name}' (OpenCL C has no <stdint.h>)"
        )
        found.append(Diagnostic(filename, line, column, message))
    return found


def _vec_step_value(m: re.Match[str]) -> str:
    """The value of the ``vec_step`` call ``m`` of a built-in type, a ``size_t`` as Clang's (``4UL``), padded to
    the call's length."""
    width = int(m.group(1) or 1)
    return f"{4 if width == 3 else width}UL".ljust(len(m.group(0)))


_VEC_STEP_NAME_RE = re.compile(rf"{STRING_LITERAL.pattern}|\bvec_step(?=\s*\(\s*[A-Za-z_][\w\s*\[\]]*\))")
"""``vec_step(name)``: of a type name (a typedef's, ``__global int*``, ``int[4]``) or of a variable (an element
of one), which only the parser tells apart, in its scope."""


def _vec_step_of_names(text: str) -> tuple[str, frozenset[tuple[int, int]]]:
    """``text`` with each ``vec_step(name)`` as ``sizeof  (name)``, which the parser reads with a type name or an
    expression as the name's scope has it, and where each stands (line, column): its ``sizeof`` is ``vec_step``
    (``marked_vec_steps``)."""
    places = _places(_VEC_STEP_NAME_RE, text)
    return (_rewritten(_VEC_STEP_NAME_RE, "sizeof", text), places) if places else (text, places)


def _marked_vec_steps(nodes: list[c_ast.Node], places: frozenset[tuple[int, int]]) -> None:
    """The ``sizeof`` nodes ``_vec_step_of_names`` made, as the ``vec_step`` operator they stand for."""
    if not places:
        return  # (no walk of a program without them)
    for node in nodes:
        where = (node.coord.line, node.coord.column) if node.coord is not None else None
        if isinstance(node, c_ast.UnaryOp) and node.op == "sizeof" and where in places:
            node.op = "vec_step"


_IMPLICIT_INT = "type specifier missing, defaults to 'int'; ISO C99 and later do not support implicit int"


def _spelled_after(
    pp: PreprocessResult, text_lines: list[str], lines: list[str], line: int, column: int | None
) -> tuple[int, int | None]:
    """Where Clang places a diagnostic just after a token (a missing ``;``) at ``line`` and ``column`` of ``text``
    where macro expansion moved tokens: just after the token as the source spells it, or, for the last token of a
    macro's expansion, just after the invocation (its name, or its closing parenthesis: the outermost's, where it
    is an argument of another; a ')' after the last token is no token of the text, so an invocation's).
    ``text_lines``: the text's lines; ``lines``: the source's (``_source_lines``)."""
    tokens = significant(tokenize(text_lines[line - 1], line))
    last = next((t for t in reversed(tokens) if column is not None and t.column + len(t.text) <= column), None)
    if last is None:
        return pp.spelled(line, column)
    at_line, at = pp.spelled(line, last.column)
    if at is None or not pp.expanded(line, last.column):
        return at_line, None if at is None else at + len(last.text)
    spelled = lines[at_line - 1] if 1 <= at_line <= len(lines) else ""
    name = re.match(r"[A-Za-z_]\w*", spelled[at - 1 :])
    if pp.expanded(line, last.column, body=True) and name is not None:  # (at the macro's name: past its arguments)
        end = at - 1 + name.end()
        if not spelled[end:].lstrip().startswith("("):
            return at_line, end + 1
        opened = spelled.index("(", end)
        shut = _closing_parenthesis(spelled, opened + 1)
    else:  # (an argument's token: past the invocation's ')')
        end = at - 1 + len(last.text)
        shut = _closing_parenthesis(spelled, end)
    if shut is None:
        return at_line, end + 1
    while spelled[shut + 1 :].lstrip().startswith(")"):  # (the ')' of invocations around it: past them too)
        shut = spelled.index(")", shut + 1)
    return at_line, shut + 2


def _closing_parenthesis(text: str, start: int) -> int | None:
    """The index of the first ``)`` in ``text`` from ``start`` on that closes nothing opened after ``start``."""
    depth = 0
    for k in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[k], 0)
        if depth < 0:
            return k
    return None


def _source_lines(source: str, pp: PreprocessResult) -> list[str]:
    """The user's lines, one per line of the text the parser reads (with includes, each from its file)."""
    lines = source.replace("\r\n", "\n").split("\n")
    if pp.physical is None:
        return lines
    return [
        text[line - 1] if 1 <= line <= len(text := pp.sources.get(name, lines)) else "" for name, line in pp.physical
    ]


def compile_source(
    source: str,
    options: str = "",
    filename: str = "kernel.cl",
    extensions: frozenset[str] = FLOAT_EXTENSIONS,
    directory: str = "",
    reuse: bool = False,
    contract: bool = False,
) -> Program:
    """Preprocess, parse and check ``source``; the program, or KernelCompileError with the whole build log.
    ``directory``: the source file's, where a quoted ``#include`` looks first ("": the current directory).

    ``extensions`` are the device's: without ``cl_khr_fp64`` a ``double`` is an error and an unsuffixed floating
    literal is a float (as Clang does); without ``cl_khr_fp16`` ``half`` is only a storage type behind pointers.

    ``reuse``: a build of the same source with the same options, from the same directory, whose included files
    still hold what they held, gives the program built before (the last ``BUILT_PROGRAMS`` are kept), with the
    plans its launches made: the HAL creates a program's kernels one ``compile_kernel`` at a time, and a large one
    takes seconds to build (hashcat's, 8 s each). Without it, a new program (a test of the executor's paths needs
    one whose plans no other run made).

    ``contract``: fuse ``a * b + c`` within an expression into one rounding, as Clang does by default
    (``contraction.py``); the simulator's default rounds every operator."""
    key = (source, options, filename, extensions, directory, os.getcwd(), contract)
    built = _BUILT.get(key) if reuse else None
    if built is not None and built.inputs is not None and unchanged(built.inputs):
        _BUILT.move_to_end(key)
        return built
    with deep_recursion():  # (Clang's bracket depth, 256)
        program = _compile(source, options, filename, extensions, directory)
        if contract:
            program.contractions = contractions(program.ast, program.arithmetic_types)
    if reuse and program.inputs is not None:
        _BUILT[key] = program
        while len(_BUILT) > BUILT_PROGRAMS:
            _BUILT.popitem(last=False)
    return program


BUILT_PROGRAMS = 4
"""How many programs ``compile_source`` keeps for a build made again."""
_BUILT: OrderedDict[tuple[str, str, str, frozenset[str], str, str, bool], Program] = OrderedDict()


def _compile(source: str, options: str, filename: str, extensions: frozenset[str], directory: str) -> Program:
    diagnostics: list[Diagnostic] = []

    def fail() -> KernelCompileError:
        return KernelCompileError(format_log(diagnostics), diagnostics=diagnostics, source=source, options=options)

    try:
        pp = preprocess(source, options, filename, extensions, directory)
    except RecursionError:
        diagnostics.append(Diagnostic(filename, None, None, "macro invocations nest too deeply"))
        raise fail() from None
    diagnostics.extend(pp.diagnostics)
    if pp.fatal or any(d.line is None for d in pp.errors):  # (a failed #include, a bad option: Clang stops)
        raise fail()
    text, type_hints = _hidden_type_hints(hoisted_attributes(pp.text))
    text = _vec_step_literals(text)
    text = _VEC_STEP_TYPE_RE.sub(_vec_step_value, text)
    text = _LOOP_HINT_RE.sub(_loop_hint_pragma, text)
    gnu_alignof = _places(_GNU_ALIGNOF_RE, text)
    text = _rewritten(_GNU_ALIGNOF_RE, "_Alignof", text)
    bare = _undeclared(text, filename)
    text = _rewritten(_BUILTIN_OFFSETOF_RE, "offsetof", text)
    text, vec_steps = _vec_step_of_names(text)

    def checked(invalid: frozenset[tuple[int, int]]) -> tuple[ParseOutcome, Checker, list[Diagnostic]]:
        outcome = parse(text, invalid)
        found = bare + [Diagnostic(filename, line, column, message) for line, column, message in outcome.errors]
        found += [Diagnostic(filename, line, column, message, "warning") for line, column, message in outcome.warnings]
        found += [
            Diagnostic(filename, line, column, _IMPLICIT_INT, "warning") for line, column in outcome.implicit_ints
        ]
        nodes = ast_nodes(outcome.ast) if outcome.ast is not None else []
        _marked_vec_steps(nodes, vec_steps)
        found += specifier_diagnostics(nodes, outcome.text, filename, BUILTIN_FILE)
        found += [
            Diagnostic(filename, line, column, "declaration does not declare anything", "warning")
            for line, column in outcome.empty_declarations
        ]
        found += [
            Diagnostic(filename, line, column, f"unknown attribute '{name}' ignored", "warning")
            for line, column, name in unknown_attributes(pp.text)
        ]
        checker = Checker(
            filename,
            outcome.failed_names,
            extensions,
            pp.enabled,
            pp.packing,
            pp.c_version,
            outcome.keyword_places,
            pp.single_constants,
            type_hints,
            OperatorMarks(nodes, outcome.text),
            gnu_alignof,
            pp.expanded,
            outcome.statement_attributes,
            outcome.broken,
        )
        if "__builtin_" in text:
            expand_all(outcome.ast)
        try:
            checker.run(outcome.ast)
        except RecursionError:
            checker.error(None, "the program nests too deeply to check")
        found += checker.diagnostics
        return outcome, checker, found

    # an expression statement without its ';' that the checker finds in error is one Clang's parser skips
    # (``semicolons.py``): parsed and checked again without it, until none is left
    invalid: frozenset[tuple[int, int]] = frozenset()
    while True:
        outcome, checker, found = checked(invalid)
        errors = [
            (d.line, d.column, d.message)
            for d in checker.diagnostics
            if d.severity == "error" and d.line is not None and d.column is not None
        ]
        skipped = frozenset(r.at for r in outcome.repairs if invalid_at_parse(r, errors))
        if not skipped:
            break
        invalid |= skipped
    if checker.typed_calls:
        _lowered(outcome.ast, checker.typed_calls)
    first_error = min((d.sort_key for d in [*pp.errors, *found] if d.severity == "error"), default=None)
    if first_error is not None:  # (Clang's control-flow analysis stops at the first error)
        found = [d for d in found if not (d.analysis and d.sort_key > first_error)]
    if outcome.shifts:  # (a repair's text was longer on a line: the given text's columns)
        found = [replace(d, column=outcome.spelled_before(d.line, d.column)) for d in found]
    source_lines = _source_lines(source, pp)
    after_token = pp.moved and any(d.message.startswith("expected ';'") for d in found)  # (an error build's)
    text_lines = text.split("\n") if after_token else []
    for d in found:  # the parser's and the checker's lines are the text's: the user's file and line, with includes
        if d.line is not None and pp.moved:  # (where macro expansion moved a token: where it stands in the source)
            if d.message.startswith("expected ';'") and d.line in pp.moved and d.column is not None:
                line, column = _spelled_after(pp, text_lines, source_lines, d.line, d.column)
            else:
                line, column = pp.spelled(d.line, d.column)
            d = replace(d, line=line, column=column)
        if pp.origins is not None and d.line is not None:
            file, line = origin(pp.origins, filename, d.line)
            chain = pp.included_from[d.line - 1] if pp.included_from and 1 <= d.line <= len(pp.included_from) else ()
            d = replace(d, filename=file, line=line, included_from=chain)
        diagnostics.append(d)
    policy = warnings_as(options)
    if policy != "warning":  # -w drops warnings, -Werror makes them errors
        diagnostics[:] = [
            replace(d, severity="error") if d.severity == "warning" and policy == "error" else d
            for d in diagnostics
            if d.severity != "warning" or policy is not None
        ]
    if any(d.severity == "error" for d in diagnostics):
        raise fail()
    return Program(
        kernels=checker.kernels,
        functions=checker.helpers,
        ast=outcome.ast,
        filename=filename,
        source_lines=source_lines,
        origins=pp.origins,
        inputs=None if pp.timed else pp.inputs,
        constants=checker.constants,
        enumerators=checker.enumerators,
        enumerator_types=checker.enumerator_types,
        options=options,
        build_log=format_log(diagnostics),
        preprocessed=pp.text,
        extensions=extensions,
        double_constants=checker.double_constants,
        _types=checker.types,
        member_refs=frozenset(checker.member_refs),
        vector_subscripts=frozenset(checker.vector_subscripts),
        nested_labels=frozenset(checker.nested_labels),
        whole_items=frozenset(checker.whole_items),
        list_lengths=checker.list_lengths,
        sizes=checker.sizes,
        generic_choices=checker.generic_choices,
        converted_pointers=checker.converted_pointers,
        shuffles=checker.shuffles,
        arithmetic_types=checker.arithmetic_types,
    )
