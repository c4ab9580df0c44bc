"""The kernel language's C preprocessor: macros, conditional compilation and build options.

The simulator has its own because kernel source is data: no system ``cpp`` is run (most hosts have none, and its
behaviour varies), and ``#if`` expressions are evaluated by a small recursive-descent evaluator, never ``eval``.

Supported: trigraphs and digraphs, object-like and function-like ``#define`` (variadic ``...``/``__VA_ARGS__``
too) with ``#`` and ``##``, ``#undef``, ``#ifdef``/``#ifndef``/``#if``/``#elif``/``#else``/``#endif`` with C's
integer constant expressions and ``defined``, ``#pragma`` and ``_Pragma`` (extension pragmas kept, the others
ignored; ``once``), ``#error``, ``#warning``, ``#line``, ``#ident``, ``#include`` with ``-I`` directories and
``__has_include``, ``__LINE__``/``__FILE__``/``__DATE__``/``__TIME__``/``__COUNTER__``/``__INCLUDE_LEVEL__``, and
the OpenCL C 1.2 predefined macros. Rejected with an error: unknown directives. Build options: ``options.py``.

The output has exactly one line per input line (directive lines and skipped lines become blank lines; lines
joined by ``\\`` or by a macro invocation that spans lines are followed by the blank lines they consumed), so the
parser's line numbers are the user's. Columns are the user's on lines that expand no macro. An ``#include`` puts
the file's lines after its own (blank) line: then ``PreprocessResult.origins`` says where each line came from, and
the front end and the executor name the user's file and line through it (``Program.where``).

This module runs the directives; its parts live beside it: ``tokens`` (splices, comments, tokens), ``macros``
(definitions, expansion), ``ifexpr`` (``#if`` expressions), ``options`` (build options) and ``diagnostics`` (the
build log's entries).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
import os
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field

from wia_sim.kernels.clang_macros import TARGET_MACROS, option_macros
from wia_sim.kernels.diagnostics import COMMAND_LINE, Diagnostic, Severity, format_log
from wia_sim.kernels.ifexpr import ExprError, IfEvaluator
from wia_sim.kernels.macros import Macro, MacroExpander, Unterminated
from wia_sim.kernels.options import FLOAT_EXTENSIONS, parse_build_options
from wia_sim.kernels.tokens import (
    Token,
    join,
    laid_out,
    replace_trigraphs,
    significant,
    splice_lines,
    strip_comments,
    tokenize,
)

__all__ = [
    "FLOAT_EXTENSIONS",
    "LOOP_PRAGMAS",
    "PREDEFINED_MACROS",
    "Diagnostic",
    "Macro",
    "PreprocessResult",
    "format_log",
    "parse_build_options",
    "preprocess",
]

_QUOTED = {"'": "'", '"': "'\"'"}
"""How Clang's "missing terminating ... character" names each quote."""


def _f32(value: float) -> str:
    return f"{value!r}f"


PREDEFINED_MACROS: dict[str, str] = {
    # OpenCL C 1.2, section 6.10
    "__OPENCL_VERSION__": "120",
    "__OPENCL_C_VERSION__": "120",
    "CL_VERSION_1_0": "100",
    "CL_VERSION_1_1": "110",
    "CL_VERSION_1_2": "120",
    "CL_VERSION_2_0": "200",  # (Clang defines the later versions' names too; kernels compare with them)
    "CL_VERSION_3_0": "300",
    "__ENDIAN_LITTLE__": "1",
    "NULL": "((void*)0)",  # (Clang's opencl-c-base.h, as PoCL 3.1 and Oclgrind 21.10 define it)
    "__WIA_SIM__": "1",
    **TARGET_MACROS,
    # Clang's, as PoCL 3.1's Clang 15.0.6 defines them (Oclgrind 21.10's is 14.0.6): kernels test them to pick
    # Clang's paths, whose language the front end follows
    "__clang__": "1",
    "__clang_major__": "15",
    "__clang_minor__": "0",
    "__clang_patchlevel__": "6",
    # C99 6.10.8, as Clang defines them for OpenCL C (PoCL 3.1 and Oclgrind 21.10: 1, 199901L, 1)
    "__STDC__": "1",
    "__STDC_VERSION__": "199901L",
    "__STDC_HOSTED__": "1",
    # OpenCL C 1.2, 6.1.1: "true expands to the integer constant 1 and false to 0"
    "true": "1",
    "false": "0",
    # OpenCL C 1.2, section 6.12.2.1 (math constants) and 6.12.3 (integer limits)
    "CHAR_BIT": "8",
    "SCHAR_MAX": "127",
    "SCHAR_MIN": "(-127-1)",
    "CHAR_MAX": "127",
    "CHAR_MIN": "(-127-1)",
    "UCHAR_MAX": "255",
    "SHRT_MAX": "32767",
    "SHRT_MIN": "(-32767-1)",
    "USHRT_MAX": "65535",
    "INT_MAX": "2147483647",
    "INT_MIN": "(-2147483647-1)",
    "UINT_MAX": "0xffffffffU",
    "LONG_MAX": "0x7fffffffffffffffL",
    "LONG_MIN": "(-0x7fffffffffffffffL-1)",
    "ULONG_MAX": "0xffffffffffffffffUL",
    "FLT_DIG": "6",
    "FLT_MANT_DIG": "24",
    "FLT_RADIX": "2",
    "FLT_MAX": "3.402823466e+38f",
    "FLT_MIN": "1.175494351e-38f",
    "FLT_EPSILON": "1.1920928955078125e-07f",
    "FLT_MAX_10_EXP": "+38",
    "FLT_MAX_EXP": "+128",
    "FLT_MIN_10_EXP": "-37",
    "FLT_MIN_EXP": "-125",
    # doubles' (6.12.2: defined whether or not the device has cl_khr_fp64, as Clang's headers define them)
    "DBL_DIG": "15",
    "DBL_MANT_DIG": "53",
    "DBL_MAX_10_EXP": "+308",
    "DBL_MAX_EXP": "+1024",
    "DBL_MIN_10_EXP": "-307",
    "DBL_MIN_EXP": "-1021",
    "DBL_RADIX": "2",
    "DBL_MAX": "0x1.fffffffffffffp1023",
    "DBL_MIN": "0x1.0p-1022",
    "DBL_EPSILON": "0x1.0p-52",
    # what ilogb returns for 0 and NaN (6.12.2: INT_MIN and INT_MAX on PoCL 3.1 and Oclgrind 21.10)
    "FP_ILOGB0": "(-2147483647-1)",
    "FP_ILOGBNAN": "2147483647",
    "MAXFLOAT": "3.402823466e+38f",
    "M_E_F": _f32(math.e),
    "M_LOG2E_F": _f32(1 / math.log(2)),
    "M_LOG10E_F": _f32(1 / math.log(10)),
    "M_LN2_F": _f32(math.log(2)),
    "M_LN10_F": _f32(math.log(10)),
    "M_PI_F": _f32(math.pi),
    "M_PI_2_F": _f32(math.pi / 2),
    "M_PI_4_F": _f32(math.pi / 4),
    "M_1_PI_F": _f32(1 / math.pi),
    "M_2_PI_F": _f32(2 / math.pi),
    "M_2_SQRTPI_F": _f32(2 / math.sqrt(math.pi)),
    "M_SQRT2_F": _f32(math.sqrt(2)),
    "M_SQRT1_2_F": _f32(math.sqrt(0.5)),
    "M_E": repr(math.e),
    "M_LOG2E": repr(math.log2(math.e)),
    "M_LOG10E": repr(math.log10(math.e)),
    "M_2_SQRTPI": repr(2 / math.sqrt(math.pi)),
    "M_LN2": repr(math.log(2)),
    "M_LN10": repr(math.log(10)),
    "M_PI": repr(math.pi),
    "M_PI_2": repr(math.pi / 2),
    "M_PI_4": repr(math.pi / 4),
    "M_1_PI": repr(1 / math.pi),
    "M_2_PI": repr(2 / math.pi),
    "M_SQRT2": repr(math.sqrt(2)),
    "M_SQRT1_2": repr(math.sqrt(0.5)),
    # no literal spelling: each expands to itself, a built-in constant of the front end, so that #ifdef sees it
    "INFINITY": "INFINITY",
    "NAN": "NAN",
    "HUGE_VALF": "HUGE_VALF",
    "HUGE_VAL": "HUGE_VAL",
    "CLK_LOCAL_MEM_FENCE": "CLK_LOCAL_MEM_FENCE",
    "CLK_GLOBAL_MEM_FENCE": "CLK_GLOBAL_MEM_FENCE",
    # image sampler flags and channel codes (6.12.14.1, 6.12.14.5), with Clang's values (opencl-c-base.h)
    "CLK_ADDRESS_NONE": "0",
    "CLK_ADDRESS_CLAMP_TO_EDGE": "2",
    "CLK_ADDRESS_CLAMP": "4",
    "CLK_ADDRESS_REPEAT": "6",
    "CLK_ADDRESS_MIRRORED_REPEAT": "8",
    "CLK_NORMALIZED_COORDS_FALSE": "0",
    "CLK_NORMALIZED_COORDS_TRUE": "1",
    "CLK_FILTER_NEAREST": "0x10",
    "CLK_FILTER_LINEAR": "0x20",
    **{
        name: hex(0x10D0 + k)
        for k, name in enumerate(
            """CLK_SNORM_INT8 CLK_SNORM_INT16 CLK_UNORM_INT8 CLK_UNORM_INT16 CLK_UNORM_SHORT_565
            CLK_UNORM_SHORT_555 CLK_UNORM_INT_101010 CLK_SIGNED_INT8 CLK_SIGNED_INT16 CLK_SIGNED_INT32
            CLK_UNSIGNED_INT8 CLK_UNSIGNED_INT16 CLK_UNSIGNED_INT32 CLK_HALF_FLOAT CLK_FLOAT""".split()  # noqa: SIM905
        )
    },
    **{
        name: hex(0x10B0 + k)
        for k, name in enumerate(
            """CLK_R CLK_A CLK_RG CLK_RA CLK_RGB CLK_RGBA CLK_BGRA CLK_ARGB CLK_INTENSITY CLK_LUMINANCE CLK_Rx
            CLK_RGx CLK_RGBx""".split()  # noqa: SIM905
        )
    },
    # 6.7.2's kernel attribute shorthand
    "__kernel_exec(X, typen)": "__kernel __attribute__((work_group_size_hint(X, 1, 1))) "
    "__attribute__((vec_type_hint(typen)))",
    "kernel_exec(X, typen)": "__kernel __attribute__((work_group_size_hint(X, 1, 1))) "
    "__attribute__((vec_type_hint(typen)))",
}
"""Macros every kernel sees."""

LOOP_PRAGMAS = frozenset({"unroll", "nounroll", "unroll_and_jam", "nounroll_and_jam"})
"""Clang's loop hint pragmas, whose lines stay in the program for the checker (``loop_hints.py``)."""

CORE_EXTENSIONS = frozenset(
    {
        "cl_khr_global_int32_base_atomics",
        "cl_khr_global_int32_extended_atomics",
        "cl_khr_local_int32_base_atomics",
        "cl_khr_local_int32_extended_atomics",
        "cl_khr_int64_base_atomics",
        "cl_khr_int64_extended_atomics",
        "cl_khr_byte_addressable_store",
    }
)
"""Extensions every device of the simulator has, defined as macros as PoCL and Oclgrind define them: the 32-bit
atomics and byte-addressable stores are core in OpenCL 1.2 (9.2), and the executor runs 64-bit ``atom_*`` too."""

# ---------------------------------------------------------------------------------------------------------------
# The preprocessor


@dataclass
class PreprocessResult:
    """What the preprocessor made of a source: the text to parse (one line per input line), the macros defined
    at the end, and the diagnostics (errors and warnings)."""

    text: str
    macros: dict[str, Macro]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    enabled: frozenset[str] = frozenset()
    """The extensions ``#pragma OPENCL EXTENSION name : enable`` left enabled at the end (``all`` for all)."""
    origins: list[tuple[str, int]] | None = None
    """Where each line of ``text`` came from, as (file, line) as messages name it (``#line`` renames them), when the
    source included a file or ran a ``#line``; None when it did neither (``text`` then has one line per line of the
    source)."""
    included_from: list[tuple[tuple[str, int], ...]] | None = None
    """With ``origins``, each line's chain of ``#include`` directives (``Diagnostic.included_from``)."""
    sources: dict[str, list[str]] = field(default_factory=dict)
    """The lines of each included file, by the name ``origins`` gives it."""
    packing: tuple[tuple[int, int], ...] = ()
    """``#pragma pack``: (line of ``text``, the largest member alignment from that line on; 0: none), in order."""
    c_version: int = 120
    """The OpenCL C version the build options ask for (``options.BuildOptions.c_version``)."""
    single_constants: bool = False
    """``-cl-single-precision-constant`` was given (``options.BuildOptions.single_constants``)."""
    inputs: dict[str, str | None] = field(default_factory=dict)
    """What the text was made from beside the source: each path an ``#include`` or ``__has_include`` looked at,
    as the search made it, with the digest of the file it read there (``input_digest``), "" for a file it found and
    did not read, None where there was none (``unchanged``)."""
    timed: bool = False
    """``__DATE__`` or ``__TIME__`` was expanded: the text depends on when it was made."""
    moved: dict[int, tuple[tuple[int, int, int, int], ...]] = field(default_factory=dict)
    """The lines of ``text`` where macro expansion moved tokens: each token's column there, and the line (of
    ``text``) and column of the source it came from, and whether a macro's expansion made it (``_BODY``: a
    replacement list's token, whose place is then the macro's name, Clang's expansion location; ``_ARGUMENT``: an
    argument's, at its own place; 0: neither), in order of column (``spelled``)."""
    physical: list[tuple[str, int]] | None = None
    """With ``origins``, where each line's text is, as (file, line) of ``sources`` or of the source itself (not
    what ``#line`` names)."""
    fatal: bool = False
    """An ``#include`` failed (Clang's fatal error): the text is not what the program meant, and no further
    diagnostics are worth giving. Other preprocessing errors (``#error``, a macro called with too few arguments)
    leave a text that Clang parses on, and so does the simulator."""

    def spelled(self, line: int, column: int | None) -> tuple[int, int | None]:
        """Where the character at ``line`` and ``column`` of ``text`` stands in the source (a line of ``text``):
        what a diagnostic of the parser or the checker names, as Clang names it."""
        moved = self.moved.get(line)
        if moved is None or column is None:
            return line, column
        k = bisect_right(moved, (column, 1 << 62)) - 1
        if k < 0:
            return line, column
        at, source_line, source_column, expanded = moved[k]
        return source_line, source_column if expanded else source_column + column - at

    def expanded(self, line: int, column: int | None, body: bool = False) -> bool:
        """Whether the token at ``line`` and ``column`` of ``text`` came of a macro's expansion, a replacement
        list's or an argument's (``body``: a replacement list's alone): Clang's location in a macro, where some of
        its warnings say nothing."""
        moved = self.moved.get(line)
        if moved is None or column is None:
            return False
        k = bisect_right(moved, (column, 1 << 62)) - 1
        return k >= 0 and moved[k][3] >= (_BODY if body else _ARGUMENT)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "warning"]


_ARGUMENT, _BODY = 1, 2
"""How a macro's expansion made a token (``PreprocessResult.moved``): it was an argument's, or the replacement
list's."""


@dataclass
class _Conditional:
    directive: str
    line: int
    parent_active: bool
    taken: bool  # some branch of this #if has been taken already
    active: bool
    seen_else: bool = False
    at: int = 1
    """The column of its directive's name (Clang's place for "unterminated conditional directive")."""


INCLUDE_DEPTH = 200
"""How deep ``#include`` may nest: Clang's limit ("#include nested too deeply"), which also stops a header that
includes itself without a guard."""


class _Preprocessor:
    def __init__(self, filename: str, include_dirs: Sequence[str] = ()) -> None:
        self.filename = filename
        self.directory = ""  # the current file's: the first place a quoted #include looks ("": the current one)
        self.include_dirs = list(include_dirs)
        self.diagnostics: list[Diagnostic] = []
        self.expander = MacroExpander(filename, self.error, self.warning)
        self.macros = self.expander.macros
        self.enabled: set[str] = set()
        self.out: list[str] = []  # the text's lines
        self.origins: list[tuple[str, int]] = []  # each one's (file, line), as ``#line`` names them
        self.physical: list[tuple[str, int]] = []  # each one's (file, line) where its text is
        self.relined = False  # a ``#line`` directive was run
        self.included_from: list[tuple[tuple[str, int], ...]] = []  # each one's chain of #include lines
        self.chain: tuple[tuple[str, int], ...] = ()  # the #include lines (file, line) that reached this file
        self.sources: dict[str, list[str]] = {}  # each included file's lines
        self.inputs: dict[str, str | None] = {}  # (``PreprocessResult.inputs``)
        self.once: set[str] = set()  # the files a ``#pragma once`` marked (real paths)
        self.fatal = False  # an #include failed: Clang stops there, and so does this
        self.pack = 0  # ``#pragma pack``'s largest member alignment now (0: none)
        self.pack_stack: list[tuple[str | None, int]] = []  # ``push``: (its label, the alignment it saved)
        self.packing: list[tuple[int, int]] = []  # (output line, alignment) at each change (PreprocessResult's)
        self.text_start = 1  # the output line of the first line being expanded (for ``_Pragma("pack(...)")``)
        self.moved: dict[int, tuple[tuple[int, int, int, int], ...]] = {}  # (``PreprocessResult.moved``)

    # -- diagnostics
    def error(self, line: int | None, column: int | None, message: str) -> None:
        self._note(line, column, message, "error")

    def warning(self, line: int | None, column: int | None, message: str) -> None:
        self._note(line, column, message, "warning")

    def _note(self, line: int | None, column: int | None, message: str, severity: Severity) -> None:
        if line is None:
            self.diagnostics.append(Diagnostic(COMMAND_LINE, None, column, message, severity))
        else:
            file, line = self.named(line)
            self.diagnostics.append(Diagnostic(file, line, column, message, severity, self.chain))

    def named(self, line: int) -> tuple[str, int]:
        """Line ``line`` of the file being read as messages name it: its file and line, or what ``#line`` made
        them (C99 6.10.4; Clang's diagnostics follow it too)."""
        return self.expander.filename, line + self.expander.line_offset

    # -- #if
    def condition(self, tokens: list[Token], line: int, column: int, end: int) -> bool:
        """The value of an ``#if`` or ``#elif`` (at ``column``; its line ends at ``end``, where Clang reports a
        missing expression)."""
        # 'defined X' is resolved before expansion so that X itself is not expanded
        resolved: list[Token] = []
        sig = tokens
        k = 0
        while k < len(sig):
            tok = sig[k]
            if tok.kind == "id" and tok.text == "__has_include":
                found = self._has_include(sig, k)
                if found is None:
                    self.error(line, column, '__has_include takes a header name in parentheses ("x.h" or <x.h>)')
                    return False
                resolved.append(Token("num", str(found[0]), tok.line, tok.column))
                k = found[1]
                continue
            if tok.kind == "id" and tok.text == "defined":
                rest = [(i, t) for i, t in enumerate(sig[k + 1 :], k + 1) if t.kind != "ws"]
                if rest and rest[0][1].kind == "id":
                    resolved.append(
                        Token("num", str(int(self.expander.is_defined(rest[0][1].text))), tok.line, tok.column)
                    )
                    k = rest[0][0] + 1
                    continue
                if len(rest) >= 3 and rest[0][1].text == "(" and rest[1][1].kind == "id" and rest[2][1].text == ")":
                    resolved.append(
                        Token("num", str(int(self.expander.is_defined(rest[1][1].text))), tok.line, tok.column)
                    )
                    k = rest[2][0] + 1
                    continue
                missing = next((t for _, t in rest if t.text != "("), None)  # (Clang: where the name should be)
                self.error(line, end if missing is None else missing.column, "macro name missing")
                return False
            resolved.append(tok)
            k += 1
        expanded = significant(self.expander.expand(resolved, in_if=True))
        evaluator = IfEvaluator(expanded, self.expander.is_defined)
        try:
            value = evaluator.evaluate() != 0
            for at, message in evaluator.warnings:
                self.warning(line, column if at.hide else at.column, message)
            return value
        except ExprError as e:
            where = end if e.at is None else column if e.at.hide else e.at.column  # (a macro's token: the line's)
            self.error(line, where, str(e))
        except RecursionError:
            self.error(line, column, "#if expression nests too deeply")
        return False

    # -- driver
    def run(self, source: str) -> None:
        """Preprocess the source (and the files it includes) into ``out`` and ``origins``."""
        source = replace_trigraphs(source.replace("\r\n", "\n").replace("\r", "\n"))
        spliced, self.expander.splices, spaced = splice_lines(source)
        text = strip_comments(spliced, lambda ln, col, msg: self.error(ln, col, msg))
        if "\x00" in text:
            text = self._null_characters(text)
        lines = text.split("\n")
        out, filename = self.out, self.filename

        def place(first: int, count: int) -> None:
            """Where the next ``count`` lines of ``out`` came from: the lines from ``first`` of this file."""
            self.origins.extend(self.named(line) for line in range(first, first + count))
            self.physical.extend((filename, line) for line in range(first, first + count))
            self.included_from.extend([self.chain] * count)

        pending: list[str] = []  # consecutive text lines, expanded together
        pending_start = 1
        group_start = 1  # the first line of the text being expanded (before ``pending`` when it reads on)
        reading_on: Unterminated | None = None  # the text so far ends inside a macro's argument list
        stack: list[_Conditional] = []

        def flush(final: bool = True) -> bool:
            """Expand the text lines read so far into ``out``; False (not ``final``): they end inside a macro's
            argument list, which reads on past the directive that follows (``reading_on``)."""
            nonlocal pending, reading_on, group_start
            if not pending:
                return True
            lines_from = pending_start if reading_on is None else pending_start - 1
            fresh = tokenize(("" if reading_on is None else "\n") + "\n".join(pending), lines_from)
            unterminated = [tok for tok in fresh if tok.kind == "punct" and tok.text in ("'", '"')]
            for tok in unterminated:  # (Clang's lexer: a warning, the rest of the line one invalid token)
                self.warning(tok.line, tok.column, f"missing terminating {_QUOTED[tok.text]} character")
                k = tok.line - pending_start
                pending[k] = pending[k][: tok.column] + " " * (len(pending[k]) - tok.column)
            if unterminated:  # (the quote alone left: the parser's "expected expression" there)
                fresh = tokenize(("" if reading_on is None else "\n") + "\n".join(pending), lines_from)
            if reading_on is None:
                group_start = pending_start
                self.text_start = len(out) + 1 - pending_start  # + an input line: its output line
                tokens, done = fresh, None
            else:  # the invocation's tokens so far, the end of their last line, and the lines since
                tokens, done = reading_on.rest + fresh, (reading_on.done, reading_on.deferred)
            try:
                result = self.expander.expand(tokens, open_ended=not final, done=done)
            except Unterminated as open_call:
                reading_on, pending = open_call, []
                return False
            reading_on = None
            result = self._pragma_operators(result)
            placed: list[tuple[int, int, Token]] | None = [] if any(t.hide for t in result) else None
            expanded = join(result, placed).split("\n")
            # the expander keeps the line count; guard it anyway so coordinates can never drift
            count = pending_start + len(pending) - group_start
            if len(expanded) != count:
                expanded = (expanded + [""] * count)[:count]
            if placed:
                self._moved(placed, len(out) + 1, group_start)
            out.extend(expanded)
            place(group_start, count)
            pending = []
            return True

        for number, line in enumerate(lines, 1):
            if self.fatal:
                return
            active = stack[-1].active if stack else True
            if active and number in spaced:  # (Clang skips a block without a word of it)
                for at, column in spaced[number]:
                    self.warning(at, column, "backslash and newline separated by space")
            stripped = line.lstrip(" \t\f\v")
            hash_size = 1 if stripped.startswith("#") else 2 if stripped.startswith("%:") else 0  # (6.4.6: %: is #)
            if not hash_size or stripped.startswith(("##", "%:%:")):
                if active:
                    if not pending:
                        pending_start = number
                    pending.append(line)
                elif reading_on is not None:  # a skipped line inside a macro's argument list
                    pending.append("")
                else:
                    flush()
                    out.append("")
                    place(number, 1)
                continue
            column = len(line) - len(stripped) + 1
            if _directive_name(stripped[hash_size:]) in _EMBEDDED and not flush(final=False):
                # inside a macro's argument list: the directive runs, its line blank among the arguments'
                pending, pending_start = [""], number
                self._directive(stripped[hash_size:], number, column, stack, active)
                continue
            flush()
            out.append("")
            place(number, 1)
            self._directive(stripped[hash_size:], number, column, stack, active)
        flush()
        if self.fatal:
            return
        for cond in stack:
            self.error(cond.line, cond.at, "unterminated conditional directive")

    def _moved(self, placed: list[tuple[int, int, Token]], first: int, source_start: int) -> None:
        """Keep, for each output line (from ``first`` on) where the expansion moved a token, where its tokens came
        from (``PreprocessResult.moved``); ``source_start``: the source line of output line ``first``."""
        lines: dict[int, list[tuple[int, int, int, int]]] = {}
        shifted: set[int] = set()
        for k, column, tok in placed:
            line = first + k
            origin = first + tok.line - source_start
            made = _BODY if tok.ends else _ARGUMENT if tok.hide else 0  # (a replacement list's token, an argument's)
            lines.setdefault(line, []).append((column, origin, tok.column, made))
            if tok.hide or origin != line or tok.column != column:
                shifted.add(line)
        for line in shifted:
            self.moved[line] = tuple(lines[line])

    def _directive(self, rest: str, line: int, column: int, stack: list[_Conditional], active: bool) -> None:
        tokens = tokenize(rest, line, column + 1)
        while tokens and tokens[0].kind == "ws":
            tokens = tokens[1:]
        if not tokens:
            return  # the null directive
        name = tokens[0].text
        args = tokens[1:]
        sig = significant(args)
        if name in ("if", "ifdef", "ifndef"):
            if not active:
                stack.append(_Conditional(name, line, False, True, False, at=tokens[0].column))
                return
            if name == "if":
                value = self.condition(args, line, column, column + 1 + len(rest))
            elif not self._macro_name(sig, line, column + 1 + len(rest.rstrip())):
                value = False
            else:
                value = self.expander.is_defined(sig[0].text) == (name == "ifdef")
            stack.append(_Conditional(name, line, True, value, value, at=tokens[0].column))
            return
        if name == "elif":
            if not stack:
                self.error(line, tokens[0].column, "#elif without #if")
                return
            top = stack[-1]
            if top.seen_else:
                self.error(line, tokens[0].column, "#elif after #else")
                top.active = False
                return
            if top.parent_active and not top.taken:
                top.active = self.condition(args, line, column, column + 1 + len(rest))
                top.taken = top.active
            else:
                top.active = False
            return
        if name == "else":
            if not stack:
                self.error(line, tokens[0].column, "#else without #if")
                return
            top = stack[-1]
            if top.seen_else:
                self.error(line, tokens[0].column, "#else after #else")
                top.active = False
                return
            top.seen_else = True
            top.active = top.parent_active and not top.taken
            top.taken = True
            return
        if name == "endif":
            if not stack:
                self.error(line, tokens[0].column, "#endif without #if")
                return
            stack.pop()
            return
        if not active:
            return  # other directives in skipped groups are not processed (C99 6.10p4)
        if name == "define":
            self.expander.define(args, line, column, column + 1 + len(rest.rstrip()))
        elif name == "undef":
            if self._macro_name(sig, line, column + 1 + len(rest.rstrip())):
                self.macros.pop(sig[0].text, None)
        elif name == "include":
            self._include(args, line, column)
        elif name == "pragma":
            self._pragma(sig, len(self.out), directive=True)
        elif name in ("ident", "sccs"):  # GCC's, which Clang takes: a string for the object file, ignored here
            if len(sig) != 1 or sig[0].kind != "str":
                self.error(
                    line, sig[0].column if sig else column + 1 + len(rest.rstrip()), f"invalid #{name} directive"
                )
        elif name in ("error", "warning"):  # Clang's: the text as written, at the directive's name
            (self.error if name == "error" else self.warning)(line, tokens[0].column, join(args).lstrip())
        elif name == "line":  # C99 6.10.4: what __LINE__ and __FILE__ give from the next line on
            given = significant(self.expander.expand(args))
            if not given or given[0].kind != "num" or not given[0].text.isdigit():
                at = given[0].column if given else column + 1 + len(rest.rstrip())
                self.error(line, at, "#line directive requires a positive integer argument")
            elif len(given) >= 2 and given[1].kind != "str":
                self.error(line, given[1].column, "invalid filename for #line directive")
            else:
                if len(given) > 2:  # (Clang's warning: the rest is ignored)
                    self.warning(line, given[2].column, "extra tokens at end of #line directive")
                    given = given[:2]
                self.expander.line_offset = int(given[0].text) - (line + 1)
                self.relined = True
                if len(given) == 2:
                    self.expander.filename = given[1].text[1:-1]
        else:
            self.error(line, tokens[0].column, "invalid preprocessing directive")  # (at its name, as Clang)

    def _macro_name(self, sig: list[Token], line: int, end: int) -> bool:
        """Whether ``sig`` (what follows ``#ifdef``, ``#ifndef``, ``#undef``) begins with a macro's name; else
        Clang's error: "macro name missing" at the line's end, "macro name must be an identifier" at the token."""
        if not sig:
            self.error(line, end, "macro name missing")
            return False
        if sig[0].kind != "id":
            self.error(line, sig[0].column, "macro name must be an identifier")
            return False
        return True

    # -- #include
    def _include(self, args: list[Token], line: int, column: int) -> None:
        """C99 6.10.2: the named file's preprocessed lines, in place of the directive. Its name is a "quoted" one
        (searched beside the current file, then in the ``-I`` directories) or an <angled> one (the ``-I``
        directories only), either as written or as macros expand it; a file not found stops the build, as in
        Clang."""
        named = _header_name(args) or _header_name(self.expander.expand(args))
        sig = significant(args)
        column = sig[0].column if sig else column  # (Clang points at the name)
        if named is None:
            self.error(line, column, '#include expects "FILENAME" or <FILENAME>')
            return
        name, angled = named
        path = self._find(name, angled)
        if path is None:
            self.fatal = True
            if angled and self._find(name, False) is not None:
                self.error(line, column, f"'{name}' file not found with <angled> include; use \"quotes\" instead")
            else:
                self.error(line, column, f"'{name}' file not found")
            return
        if os.path.realpath(path) in self.once:
            return
        if self.expander.include_level >= INCLUDE_DEPTH:
            self.fatal = True
            self.error(line, column, "#include nested too deeply")
            return
        try:
            with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
                source = f.read()
        except OSError as e:
            self.fatal = True
            self.error(line, column, f"cannot open file '{name}': {e.strerror}")
            return
        self.inputs[path] = input_digest(source)
        if path not in self.sources:  # (its lines, for quoting: split once however often it is included)
            self.sources[path] = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        ex = self.expander
        saved = (self.filename, self.directory, self.chain, ex.filename, ex.line_offset, ex.splices)
        self.chain = (*self.chain, self.named(line))
        self.filename = ex.filename = path
        self.directory = os.path.dirname(path)
        ex.line_offset = 0
        ex.include_level += 1
        try:
            self.run(source)
        finally:
            self.filename, self.directory, self.chain, ex.filename, ex.line_offset, ex.splices = saved
            ex.include_level -= 1

    def _find(self, name: str, angled: bool) -> str | None:
        """Where ``#include`` finds ``name``: the path (as the search made it), or None."""
        places = self.include_dirs if angled else [self.directory, *self.include_dirs]
        for path in [name] if os.path.isabs(name) else [os.path.join(place, name) for place in places]:
            found = os.path.isfile(path)
            self.inputs.setdefault(path, "" if found else None)  # (what it held, for a build made again)
            if found:
                return path
        return None

    def _has_include(self, tokens: list[Token], k: int) -> tuple[int, int] | None:
        """``__has_include("name")`` or ``__has_include(<name>)`` at ``tokens[k]`` in an ``#if``: 1 when
        ``#include`` would find the file, else 0, and the index after the closing parenthesis; None when
        malformed."""
        rest = [(i, t) for i, t in enumerate(tokens[k + 1 :], k + 1) if t.kind != "ws"]
        if not rest or rest[0][1].text != "(":
            return None
        close = next((i for i, t in rest if t.text == ")"), None)
        if close is None:
            return None
        named = _header_name(tokens[rest[0][0] + 1 : close])
        if named is None:
            return None
        return int(self._find(*named) is not None), close + 1

    def _pragma(self, words: list[Token], at: int, directive: bool = False) -> None:
        """OpenCL 1.2 9.1's extension pragmas, ``once`` and ``pack`` (from output line ``at`` on); the others
        (``unroll``, ``FP_CONTRACT``) are hints. A ``#pragma OPENCL FP_CONTRACT`` line (a ``directive``, not
        ``_Pragma``) stays in the output, its ``FP_CONTRACT`` at its column, for the checker: Clang takes it only at
        file scope or at the start of a compound statement. So does a ``#pragma unroll`` line, whose count Clang
        checks and which must precede a loop."""
        text = [t.text for t in words]
        hint = self._loop_hint(words) if directive else None
        if hint is not None and words[0].column is not None:  # (for the checker: ``loop_hints.py``)
            self.out[at - 1] = " " * max(words[0].column - 9, 0) + "#pragma " + hint
            return
        if directive and text[:2] == ["OPENCL", "FP_CONTRACT"] and len(text) == 3 and words[1].column is not None:
            self.out[at - 1] = " " * max(words[1].column - 16, 0) + "#pragma OPENCL FP_CONTRACT " + text[2]
            return
        if text[:2] == ["pack", "("] and text[-1] == ")":
            self._pack(text[2:-1], words[0], at)
            return
        if text == ["once"]:  # (the main source cannot be included again: Clang's warning)
            if self.expander.include_level:
                self.once.add(os.path.realpath(self.filename))
            elif words[0].column is not None:
                self.warning(words[0].line, words[0].column, "#pragma once in main file")
            return
        if len(text) == 5 and text[:2] == ["OPENCL", "EXTENSION"] and text[3] == ":":
            if text[4] == "enable":
                self.enabled.add(text[2])
            elif text[4] == "disable":
                self.enabled.discard(text[2])

    def _pack(self, args: list[str], where: Token, at: int) -> None:
        """``#pragma pack`` as GCC and Clang take it: ``(N)``, ``()``, ``(push[, label][, N])``, ``(pop[, label])``
        (a label pops down to its push), ``(show)``. N caps every member's alignment, even one an ``aligned(N)``
        attribute raised (``structs.layout``)."""
        parts = [a for a in args if a != ","]
        new = self.pack
        if parts[:1] == ["show"]:
            self.warning(where.line, where.column, f"value of #pragma pack(show) == {self.pack or 8}")
            return
        number = parts[-1] if parts and parts[-1].isdigit() else None
        if number is not None and int(number) not in (0, 1, 2, 4, 8, 16):
            self.warning(where.line, where.column, "expected #pragma pack parameter to be '1', '2', '4', '8', or '16'")
            return
        if parts[:1] == ["push"]:
            label = parts[1] if len(parts) > 1 and not parts[1].isdigit() else None
            self.pack_stack.append((label, self.pack))
        elif parts[:1] == ["pop"]:
            label = parts[1] if len(parts) > 1 and not parts[1].isdigit() else None
            pushes = range(len(self.pack_stack) - 1, -1, -1)  # (the latest first)
            found = next((k for k in pushes if label is None or self.pack_stack[k][0] == label), None)
            if found is None:
                what = f"with label '{label}' " if label is not None else ""
                self.warning(where.line, where.column, f"#pragma pack(pop, ...) failed: stack {what}empty")
                return
            new = self.pack_stack[found][1]
            del self.pack_stack[found:]
        elif len(parts) > 1 or (parts and number is None):
            self.warning(where.line, where.column, "unknown action for '#pragma pack' - ignored")
            return
        elif not parts:
            new = 0
        if number is not None:
            new = int(number)
        if new != self.pack:
            self.pack = new
            self.packing.append((at, new))

    def _pragma_operators(self, tokens: list[Token]) -> list[Token]:
        """C99 6.10.9: each ``_Pragma ( string-literal )`` of the expanded text runs as the ``#pragma`` its
        destringized literal spells and leaves nothing behind (but the newlines it spanned)."""
        if not any(t.text == "_Pragma" for t in tokens):
            return tokens
        out: list[Token] = []
        k = 0
        while k < len(tokens):
            tok = tokens[k]
            if tok.kind != "id" or tok.text != "_Pragma":
                out.append(tok)
                k += 1
                continue
            parts = [(j, t) for j, t in enumerate(tokens[k + 1 :], k + 1) if t.kind not in ("ws", "nl")][:3]
            texts = [t.text for _, t in parts]
            if len(parts) < 3 or texts[0] != "(" or parts[1][1].kind != "str" or texts[2] != ")":
                self.error(tok.line, tok.column, "_Pragma takes a parenthesized string literal")
                out.append(tok)
                k += 1
                continue
            literal = texts[1].removeprefix("L")[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            words = significant(tokenize(literal, tok.line, tok.column))
            hint = self._loop_hint(words)
            if hint is not None and '"' not in hint and "\\" not in hint:  # kept as a #pragma unroll line is
                string = parts[1][1]
                out.extend(t for t in tokens[k : parts[1][0]])
                out.append(dataclasses.replace(string, text=f'"{hint}"'))
                out.extend(t for t in tokens[parts[1][0] + 1 : parts[2][0] + 1])
            else:
                self._pragma(words, self.text_start + tok.line)
                out.extend(t for t in tokens[k : parts[2][0] + 1] if t.kind == "nl")
            k = parts[2][0] + 1
        return out

    def _null_characters(self, text: str) -> str:
        """Clang's way with NUL characters (Halide embeds its kernel source with its terminator): outside a literal
        one is ignored, a blank, with its warning; inside a literal kept, with its warning (in a comment, silently
        gone with the comment)."""
        pieces: list[str] = []
        for tok in tokenize(text, 1):
            spelled = tok.spelling or tok.text
            if "\x00" in spelled and tok.kind in ("str", "char"):
                what = "string" if tok.kind == "str" else "char"
                self.warning(
                    tok.line, tok.column + spelled.index("\x00"), f"null character(s) preserved in {what} literal"
                )
            elif spelled == "\x00":
                self.warning(tok.line, tok.column, "null character ignored")
                spelled = " "
            pieces.append(spelled)
        return "".join(pieces)

    def _loop_hint(self, words: list[Token]) -> str | None:
        """A pragma's loop hint (``unroll``, ...), Clang's, which the checker reads: its words with the count
        macro-expanded, each at its column; None for another pragma."""
        if not words or words[0].text not in LOOP_PRAGMAS:
            return None
        return laid_out([words[0], *significant(self.expander.expand(words[1:]))])


def _malformed_predefined(line: int | None, column: int | None, message: str) -> None:
    raise ValueError(f"a predefined macro is malformed: {message}")


@functools.cache
def _predefined(
    c_version: int, extensions: frozenset[str], by_options: tuple[tuple[str, str], ...]
) -> dict[str, Macro]:
    """The macros a build starts with (made once for each version, extension set and options: about 400)."""
    expander = MacroExpander("", _malformed_predefined)
    for name, value in [*PREDEFINED_MACROS.items(), *by_options]:
        value = str(c_version) if name == "__OPENCL_C_VERSION__" else value
        expander.define(tokenize(f"{name} {value}", 0), None, None)
    for name in sorted(extensions | CORE_EXTENSIONS):
        expander.define(tokenize(f"{name} 1", 0), None, None)
    return expander.macros


def preprocess(
    source: str,
    options: str = "",
    filename: str = "kernel.cl",
    extensions: frozenset[str] = FLOAT_EXTENSIONS,
    directory: str = "",
) -> PreprocessResult:
    """Preprocess ``source`` with the OpenCL build ``options``; check ``result.errors`` before using the text.
    Each supported extension in ``extensions`` is a macro defined to 1 (OpenCL 1.2, 9.1). ``directory``: the
    source file's, where a quoted ``#include`` looks first ("": the current directory, as PoCL and Oclgrind look
    for a program built from a string)."""
    options_given = parse_build_options(options)
    pp = _Preprocessor(filename, options_given.include_dirs)
    pp.directory = directory
    pp.macros.update(_predefined(options_given.c_version, extensions, tuple(option_macros(options.split()).items())))
    pp.diagnostics.extend(options_given.diagnostics)
    for name, value in options_given.defines:
        head = re.match(r"[A-Za-z_][A-Za-z_0-9]*(\([^)]*\))?$", name)
        if head is None:
            pp.error(None, None, f"macro names must be identifiers: '-D{name}'")
            continue
        pp.expander.define(tokenize(f"{name} {value}", 0), None, None)
    pp.run(source)
    placed = bool(pp.sources) or pp.relined
    return PreprocessResult(
        "\n".join(pp.out),
        dict(pp.macros),
        pp.diagnostics,
        frozenset(pp.enabled),
        pp.origins if placed else None,
        pp.included_from if placed else None,
        pp.sources,
        tuple(pp.packing),
        options_given.c_version,
        options_given.single_constants,
        dict(pp.inputs),
        pp.expander.timed,
        pp.moved,
        pp.physical if placed else None,
        pp.fatal,
    )


def input_digest(text: str) -> str:
    """The digest of a file's text as the preprocessor read it (``PreprocessResult.inputs``)."""
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


def unchanged(inputs: dict[str, str | None]) -> bool:
    """Whether every path in ``inputs`` (``PreprocessResult.inputs``) still holds what the preprocessor found there:
    the same text, a file, or none."""
    for path, digest in inputs.items():
        if digest is None or digest == "":
            if os.path.isfile(path) != (digest == ""):
                return False
            continue
        try:
            with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
                if input_digest(f.read()) != digest:
                    return False
        except OSError:
            return False
    return True


_EMBEDDED = frozenset({"if", "ifdef", "ifndef", "elif", "else", "endif", "define", "undef"})
"""The directives that may stand inside a macro's argument list, as Clang takes them (its -Wembedded-directive
extension: the conditionals pick the arguments' lines, a definition holds from there on); any other ends the
argument list unterminated."""


def _directive_name(rest: str) -> str:
    """The name of the directive ``#rest`` (the text after its ``#``), or ""."""
    found = _NAME.match(rest)
    return found.group(1) if found else ""


_NAME = re.compile(r"[ \t\f\v]*([A-Za-z_]\w*)")


def _header_name(tokens: list[Token]) -> tuple[str, bool] | None:
    """The file an ``#include`` (or ``__has_include``) names, and whether in <angles>; None if it names none. An
    angled name is the text of the tokens up to ``>``, as written (the tokenizer does not know header names)."""
    sig = significant(tokens)
    if not sig:
        return None
    if sig[0].kind == "str" and sig[0].text.startswith('"'):
        return sig[0].text[1:-1], False
    if sig[0].text != "<":
        return None
    close = next((k for k, t in enumerate(tokens) if t.text == ">"), None)
    start = next(k for k, t in enumerate(tokens) if t.text == "<")
    if close is None:
        return None
    name = join(tokens[start + 1 : close]).strip()
    return (name, True) if name else None
