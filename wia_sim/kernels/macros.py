"""Macro definitions and their expansion: Prosser's algorithm with hide sets (C99 6.10.3), with the ``#``
(stringize, 6.10.3.2) and ``##`` (token paste, 6.10.3.3) operators, bounded so that a macro bomb ends in an error
instead of exhausting memory."""

from __future__ import annotations

import datetime
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from wia_sim.kernels.features import CHECKS, check
from wia_sim.kernels.tokens import Splices, Token, join, significant, tokenize

__all__ = ["EXPANSION_LIMIT", "SOURCE_CREDIT", "Macro", "MacroExpander", "Unterminated"]

EXPANSION_LIMIT = 500_000
"""Tokens macro replacement may make for one source beyond ``SOURCE_CREDIT`` for each token of the source itself:
far above any real kernel's (hashcat's 2.4 MB inc_common.cl, every line a macro's use, makes about one per source
token), it stops exponential macro bombs with an error instead of exhausting memory. The source's own tokens cost
nothing: a kernel of 100,000 statements without a macro is no runaway expansion."""
SOURCE_CREDIT = 8

Report = Callable[[int | None, int | None, str], None]


class Unterminated(Exception):
    """The tokens of an open-ended expansion (``MacroExpander.expand``) end inside a function-like macro's argument
    list: ``done``, the expansion of what came before, with ``deferred``, the newlines it moved; ``rest``, the
    tokens from the macro's name on, to read on with the text after a directive."""

    def __init__(self, done: list[Token], deferred: list[Token], rest: list[Token]) -> None:
        super().__init__("unterminated macro argument list")
        self.done, self.deferred, self.rest = done, deferred, rest


@dataclass(frozen=True)
class Macro:
    """A macro definition. ``params`` is None for object-like macros; a variadic macro's last parameter is
    ``__VA_ARGS__`` (or GNU's named one: ``x`` of ``x...``). ``line`` is None for predefined and command-line macros."""

    name: str
    params: tuple[str, ...] | None
    body: tuple[Token, ...]
    variadic: bool = False
    line: int | None = None

    @property
    def text(self) -> str:
        return join(self.body)


def _rehome(
    body: Sequence[Token], at: Token, hide: frozenset[str], ends: int, kept: frozenset[int] = frozenset()
) -> list[Token]:
    """A macro's replacement tokens, reversed for the expander's stack, placed at the invocation ``at`` (but those
    whose ids are ``kept``: an argument's, which stay where the source has them, as Clang's spelling locations),
    hidden from the macros in ``hide``, and ending on the physical line ``ends`` (``Token.ends``)."""
    line, column = at.line, at.column
    return [
        Token(
            t.kind,
            t.text,
            t.line if id(t) in kept else line,
            t.column if id(t) in kept else column,
            (t.hide | hide) if t.hide else hide,
            t.spelling,
            t.ends if id(t) in kept else ends,
        )
        for t in reversed(body)
    ]


def _same_definition(a: Macro, b: Macro) -> bool:
    """Whether ``b`` defines its name again as ``a`` did, which C99 6.10.3p2 allows (Clang warns "macro redefined"
    otherwise): the same parameters, and replacement lists of the same tokens with white space between the same
    ones."""
    return (a.params, a.variadic) == (b.params, b.variadic) and [(t.kind, t.text) for t in a.body] == [
        (t.kind, t.text) for t in b.body
    ]


_COMPUTED = ("__LINE__", "__FILE__", "__COUNTER__", "__INCLUDE_LEVEL__", "__has_include", *CHECKS)
"""The names the expander computes (``__has_include``: the preprocessor's, in ``#if``; the feature checks,
``features.py``), which ``defined`` finds."""


class MacroExpander:
    """The macros defined so far (``macros``) and the expansion of token lists with them; problems go to
    ``error(line, column, message)``. ``budget`` counts the tokens macro replacement may still make, over the whole
    source (``EXPANSION_LIMIT``)."""

    def __init__(self, filename: str, error: Report, warning: Report | None = None) -> None:
        self.filename = filename
        self.error = error
        self.warning = warning
        self.line_offset = 0  # what ``#line`` added to the lines ``__LINE__`` gives
        self.splices: Splices = {}  # where joined lines' physical lines begin, for ``__LINE__``
        self.macros: dict[str, Macro] = {}
        self.budget = EXPANSION_LIMIT
        self.counter = 0  # the next ``__COUNTER__`` (Clang's extension, which kernels use for unique names)
        self.include_level = 0  # ``__INCLUDE_LEVEL__`` (Clang's): how many ``#include`` deep the text being read is
        now = datetime.datetime.now()
        self.timed = False  # ``__DATE__`` or ``__TIME__`` expanded: the text depends on when it was made
        self.dynamic = {  # C99 6.10.8's date and time of translation, as Clang spells them ("Dec  3 2026")
            "__DATE__": f'"{now:%b} {now.day:2d} {now.year}"',
            "__TIME__": f'"{now:%H:%M:%S}"',
        }

    def define(self, tokens: list[Token], line: int | None, column: int | None, end: int | None = None) -> None:
        """``tokens`` is what follows ``#define`` (its line ends at ``end``); errors in Clang's words and places."""
        pos = 0
        while pos < len(tokens) and tokens[pos].kind == "ws":
            pos += 1
        if pos >= len(tokens) or tokens[pos].kind == "nl":
            self.error(line, end if end is not None else column, "macro name missing")
            return
        if tokens[pos].kind != "id":
            self.error(line, tokens[pos].column, "macro name must be an identifier")
            return
        name, name_at = tokens[pos].text, tokens[pos].column
        if name == "defined":
            self.error(line, name_at, "'defined' cannot be used as a macro name")
            return
        pos += 1
        params: list[str] | None = None
        variadic = False
        if pos < len(tokens) and tokens[pos].text == "(":
            params = []
            pos += 1
            sig = []
            while pos < len(tokens) and tokens[pos].text != ")":
                if tokens[pos].kind not in ("ws", "nl"):
                    sig.append(tokens[pos])
                pos += 1
            closed = tokens[pos] if pos < len(tokens) else None
            last = tokens[-1] if tokens else None
            line_end = end if end is not None else (last.column + len(last.text) if last is not None else column)
            pos += 1
            named = len(sig) >= 2 and sig[-1].text == "..." and sig[-2].kind == "id"
            if named:  # GNU's named variadic parameter, ``x...`` (``#define make_int2(x...) ((int2)(x))``)
                sig = sig[:-1]
            for k, tok in enumerate(sig):
                expect_name = k % 2 == 0
                if expect_name and tok.text == "...":
                    if k != len(sig) - 1:
                        self.error(line, sig[k + 1].column, "missing ')' in macro parameter list")
                        return
                    variadic = True
                    params.append("__VA_ARGS__")
                elif expect_name and tok.kind == "id":
                    if tok.text in params:
                        self.error(line, tok.column, f"duplicate macro parameter name '{tok.text}'")
                        return
                    params.append(tok.text)
                elif not expect_name and tok.text == ",":
                    pass
                elif not expect_name:
                    self.error(line, tok.column, "expected comma in macro parameter list")
                    return
                else:
                    self.error(line, tok.column, "invalid token in macro parameter list")
                    return
            if closed is None:  # (the line ends inside the list)
                wanted = "identifier" if sig and sig[-1].text == "," else "comma"
                self.error(line, line_end, f"expected {wanted} in macro parameter list")
                return
            if sig and sig[-1].text == ",":
                self.error(line, closed.column, "expected identifier in macro parameter list")
                return
            variadic = variadic or named
        body = tokens[pos:]
        while body and body[0].kind == "ws":
            body = body[1:]
        while body and body[-1].kind in ("ws", "nl"):
            body = body[:-1]
        collapsed: list[Token] = []
        for tok in body:
            if tok.kind in ("ws", "nl"):
                if collapsed and collapsed[-1].kind != "ws":
                    collapsed.append(replace(tok, kind="ws", text=" "))
                continue
            collapsed.append(tok)
        marks = [k for k, tok in enumerate(collapsed) if tok.kind != "ws"]
        if marks and collapsed[marks[0]].text == "##":
            self.error(line, collapsed[marks[0]].column, "'##' cannot appear at start of macro expansion")
            return
        if marks and collapsed[marks[-1]].text == "##":
            self.error(line, collapsed[marks[-1]].column, "'##' cannot appear at end of macro expansion")
            return
        if params is not None:
            for at, k in enumerate(marks):
                after = collapsed[marks[at + 1]] if at + 1 < len(marks) else None
                if collapsed[k].text == "#" and (after is None or after.text not in params):
                    where = after or replace(collapsed[k], column=collapsed[k].column + 1)  # (what follows it)
                    self.error(line, where.column, "'#' is not followed by a macro parameter")
                    return
        macro = Macro(name, None if params is None else tuple(params), tuple(collapsed), variadic, line)
        before = self.macros.get(name)
        if before is not None and self.warning is not None and not _same_definition(before, macro):
            self.warning(line, name_at, f"'{name}' macro redefined")
        self.macros[name] = macro

    def is_defined(self, name: str) -> bool:
        """``defined name``: a macro, or one the expander computes (Clang's answer for ``__LINE__``, ``__DATE__``)."""
        return name in self.macros or name in _COMPUTED or name in self.dynamic

    def physical_line(self, token: Token) -> int:
        """The line ``__LINE__`` gives at ``token``: its physical line (a spliced line's continuation counts), or
        of a macro's replacement, the line its invocation ends on (``Token.ends``), moved by ``#line``."""
        return (token.ends or self._physical(token)) + self.line_offset

    def _physical(self, token: Token) -> int:
        return token.line + bisect_right(self.splices.get(token.line, ()), token.column)

    def expand(
        self,
        tokens: list[Token],
        in_if: bool = False,
        open_ended: bool = False,
        done: tuple[list[Token], list[Token]] | None = None,
    ) -> list[Token]:
        """Macro-expand ``tokens`` (Prosser's algorithm without ``#``/``##``). Newlines inside a function-like
        macro's arguments are moved after the line the invocation ends on, keeping the line count. ``in_if``:
        an ``#if`` expression, where the name after a ``defined`` that a macro produced is not expanded (Clang's
        reading of what C99 6.10.1p4 leaves undefined). ``open_ended``: text lines a directive follows, which may
        end inside a macro's argument list: ``Unterminated`` then, and the caller reads on past the directive, as
        Clang does (C99 6.10.3p11 leaves directives there undefined); ``done``: ``Unterminated``'s expansion so far
        and its moved newlines, which ``tokens`` (its ``rest`` and what followed) go on from."""
        stack = tokens[::-1]
        out: list[Token] = [] if done is None else done[0]
        deferred: list[Token] = [] if done is None else done[1]
        while stack:
            tok = stack.pop()
            if not tok.hide:  # the source's own
                self.budget += SOURCE_CREDIT
            else:
                self.budget -= 1
                if self.budget < 0:
                    if self.budget == -1:
                        self.error(
                            tok.line,
                            tok.column,
                            f"macro expansion makes more than {EXPANSION_LIMIT} tokens beyond {SOURCE_CREDIT} for each "
                            "token of the source (runaway macro?)",
                        )
                    break
            if tok.kind == "nl":
                out.append(tok)
                out.extend(deferred)
                deferred = []
                continue
            if tok.kind != "id" or tok.text in tok.hide:
                out.append(tok)
                continue
            name = tok.text
            macro = self.macros.get(name)
            if macro is None:
                if name == "__LINE__":
                    out.append(Token("num", str(self.physical_line(tok)), tok.line, tok.column, tok.hide | {name}))
                elif name == "__COUNTER__":
                    out.append(Token("num", str(self.counter), tok.line, tok.column, tok.hide | {name}))
                    self.counter += 1
                elif name == "__INCLUDE_LEVEL__":
                    out.append(Token("num", str(self.include_level), tok.line, tok.column, tok.hide | {name}))
                elif name == "__FILE__":
                    quoted = '"' + self.filename.replace("\\", "\\\\").replace('"', '\\"') + '"'
                    out.append(Token("str", quoted, tok.line, tok.column, tok.hide | {name}))
                elif name in self.dynamic:
                    self.timed = True
                    out.append(Token("str", self.dynamic[name], tok.line, tok.column, tok.hide | {name}))
                elif name in CHECKS:
                    value = self._feature_check(tok, stack)
                    out.append(Token("num", str(value), tok.line, tok.column, tok.hide | {name}))
                else:
                    if in_if and name == "defined":
                        self._protect_operand(stack)
                    out.append(tok)
                continue
            if macro.params is None:
                hide = tok.hide | {name}
                stack.extend(_rehome(self._paste(list(macro.body), tok), tok, hide, tok.ends or self._physical(tok)))
                continue
            # function-like: an invocation only if '(' follows, possibly on later lines
            j = len(stack) - 1
            while j >= 0 and stack[j].kind in ("ws", "nl"):
                j -= 1
            if j < 0 or stack[j].text != "(":
                out.append(tok)
                continue
            moved = len(deferred)
            taken = [tok]  # what the invocation reads, for ``Unterminated``
            while len(stack) - 1 > j:
                skipped = stack.pop()
                taken.append(skipped)
                if skipped.kind == "nl":
                    deferred.append(skipped)
            taken.append(stack.pop())
            collected = self._collect_arguments(stack, deferred, taken)
            if collected is None:
                if open_ended:
                    raise Unterminated(out, deferred[:moved], taken)
                self.error(tok.line, tok.column, "unterminated function-like macro invocation")
                break
            args, rparen = collected
            substituted = self._substitute(macro, args, tok, rparen)
            if substituted is None:
                out.append(tok)  # arity error reported; keep the name so later errors still make sense
                continue
            body, from_arguments = substituted
            hide = (tok.hide & rparen.hide) | {name}
            stack.extend(_rehome(body, tok, hide, rparen.ends or self._physical(rparen), from_arguments))
        out.extend(deferred)
        return out

    def _feature_check(self, tok: Token, stack: list[Token]) -> int:
        """``__has_feature(x)`` and its kin at ``tok`` (``features.py``), reading ``(x)`` off ``stack`` unexpanded,
        as Clang does; a malformed one is Clang's error, and 0."""

        def next_token() -> Token | None:
            while stack and stack[-1].kind == "ws":
                stack.pop()
            return stack.pop() if stack and stack[-1].kind != "nl" else None

        name = tok.text
        opening = next_token()
        if opening is None or opening.text != "(":
            if opening is not None:
                stack.append(opening)
            column = None if tok.column is None else tok.column + len(name)
            self.error(tok.line, column, f"missing '(' after '{name}'")
            return 0
        ident = next_token()
        if ident is not None and ident.kind != "id":
            self.error(ident.line, ident.column, "builtin feature check macro requires a parenthesized identifier")
            return 0
        closing = None if ident is None else next_token()
        if ident is None or closing is None:
            self.error(tok.line, tok.column, "unterminated function-like macro invocation")
            return 0
        if closing.text != ")":
            self.error(closing.line, closing.column, f"missing ')' after '{ident.text}'")
            return 0
        return check(name, ident.text)

    @staticmethod
    def _protect_operand(stack: list[Token]) -> None:
        """Hide the identifier after ``defined`` (or after its ``(``), next on ``stack``, from its own macro."""
        j = len(stack) - 1
        while j >= 0 and stack[j].kind == "ws":
            j -= 1
        if j >= 0 and stack[j].text == "(":
            j -= 1
            while j >= 0 and stack[j].kind == "ws":
                j -= 1
        if j >= 0 and stack[j].kind == "id":
            stack[j] = replace(stack[j], hide=stack[j].hide | {stack[j].text})

    @staticmethod
    def _collect_arguments(
        stack: list[Token], deferred: list[Token], taken: list[Token]
    ) -> tuple[list[list[Token]], Token] | None:
        """The arguments up to the ``)`` that closes the invocation, and that ``)``, or None: the tokens end first
        (``taken``: every token read, as read)."""
        args: list[list[Token]] = [[]]
        depth = 0
        while stack:
            tok = stack.pop()
            taken.append(tok)
            if tok.kind == "nl":
                deferred.append(tok)
                tok = replace(tok, kind="ws", text=" ")
            if tok.text == "(":
                depth += 1
            elif tok.text == ")":
                if depth == 0:
                    return args, tok
                depth -= 1
            elif tok.text == "," and depth == 0:
                args.append([])
                continue
            args[-1].append(tok)
        return None

    def _substitute(
        self, macro: Macro, args: list[list[Token]], at: Token, rparen: Token
    ) -> tuple[list[Token], frozenset[int]] | None:
        """The replacement list with its parameters replaced by the arguments (6.10.3.1), and the ids of the
        tokens that came from a macro-expanded argument; None: the wrong number of arguments (reported)."""
        assert macro.params is not None
        params = macro.params
        if len(params) == 0 and len(args) == 1 and not significant(args[0]):
            args = []
        if macro.variadic:
            fixed = len(params) - 1
            if len(args) < fixed:
                self._arity_error(macro, args, rparen)
                return None
            rest: list[Token] = []
            for k, arg in enumerate(args[fixed:]):
                if k:
                    rest.append(Token("punct", ",", at.line, at.column))
                rest.extend(arg)
            args = [*args[:fixed], rest]
        elif len(args) != len(params):
            self._arity_error(macro, args, rparen)
            return None
        raw = [self._strip(arg) for arg in args]
        expanded: dict[int, list[Token]] = {}
        body = macro.body
        marks = [k for k, tok in enumerate(body) if tok.kind != "ws"]
        result: list[Token] = []
        skip = -1
        for m, k in enumerate(marks):
            tok = body[k]
            if k <= skip:
                continue
            if k > (marks[m - 1] if m else -1) + 1 and result:
                result.append(body[k - 1])  # the space before this token
            before = body[marks[m - 1]].text if m else ""
            after = body[marks[m + 1]] if m + 1 < len(marks) else None
            if tok.text == "#" and after is not None and after.text in params:  # 6.10.3.2: the argument's spelling
                result.append(Token("str", _stringize(raw[params.index(after.text)]), tok.line, tok.column))
                skip = marks[m + 1]
            elif tok.kind == "id" and tok.text in params:
                n = params.index(tok.text)
                if before == "##" or (after is not None and after.text == "##"):  # pasted: not macro-expanded
                    result.extend(raw[n] or [Token("ws", "", tok.line, tok.column)])  # "": a placemarker
                else:
                    if n not in expanded:
                        expanded[n] = self._strip(self.expand(list(raw[n])))
                    result.extend(expanded[n])
            else:
                result.append(tok)
        operators = {id(t) for t in body if t.text == "##"}  # not a ## that came in with an argument
        from_arguments = frozenset(id(t) for arg in expanded.values() for t in arg)
        return self._paste(result, at, operators), from_arguments

    def _paste(self, tokens: list[Token], at: Token, operators: set[int] | None = None) -> list[Token]:
        """The ``##`` operators of a replacement list applied (6.10.3.3): each joins the tokens on either side
        (an empty argument's placemarker gives the other one), which must form one preprocessing token.
        ``operators``: the ids of the tokens that are operators (None: every ``##``, an object-like macro's); ``at``:
        the invocation's name, where Clang reports a paste that forms no token."""

        def operator(t: Token) -> bool:
            return t.text == "##" and (operators is None or id(t) in operators)

        if not any(operator(t) for t in tokens):
            return [t for t in tokens if t.kind != "ws" or t.text]
        out: list[Token] = []
        k = 0
        while k < len(tokens):
            tok = tokens[k]
            if not operator(tok):
                out.append(tok)
                k += 1
                continue
            while out and out[-1].kind == "ws" and out[-1].text:
                out.pop()
            left = out.pop() if out else Token("ws", "", tok.line, tok.column)
            k += 1
            while k < len(tokens) and tokens[k].kind == "ws" and tokens[k].text:
                k += 1
            right = tokens[k] if k < len(tokens) else Token("ws", "", tok.line, tok.column)
            k += 1
            text = left.text + right.text
            pasted = tokenize(text, left.line, left.column) if text else []
            if len(pasted) > 1:
                self.error(at.line, at.column, f"pasting formed '{text}', an invalid preprocessing token")
            out.extend(pasted or [Token("ws", "", left.line, left.column)])
        return [t for t in out if t.kind != "ws" or t.text]

    @staticmethod
    def _strip(tokens: list[Token]) -> list[Token]:
        start, end = 0, len(tokens)
        while start < end and tokens[start].kind == "ws":
            start += 1
        while end > start and tokens[end - 1].kind == "ws":
            end -= 1
        return tokens[start:end]

    def _arity_error(self, macro: Macro, args: list[list[Token]], rparen: Token) -> None:
        """Clang's error for an invocation with too few arguments (at its ``)``) or too many (at the first one
        past the parameters); the macro's name stays, unexpanded, its arguments gone, as Clang leaves it."""
        assert macro.params is not None
        wanted = len(macro.params) - (1 if macro.variadic else 0)
        if len(args) < wanted:
            self.error(rparen.line, rparen.column, "too few arguments provided to function-like macro invocation")
            return
        extra = next((t for t in args[wanted] if t.kind not in ("ws", "nl")), rparen)
        self.error(extra.line, extra.column, "too many arguments provided to function-like macro invocation")


def _stringize(tokens: Sequence[Token]) -> str:
    """``#arg``: the argument's spelling as a string literal, each run of white space one space, quotes and
    backslashes escaped inside string and character literals (C99 6.10.3.2p2)."""
    parts: list[str] = []
    for tok in tokens:
        if tok.kind in ("ws", "nl"):
            if parts and parts[-1] != " ":
                parts.append(" ")
            continue
        if tok.kind in ("str", "char"):
            parts.append(tok.text.replace("\\", "\\\\").replace('"', '\\"'))
        else:
            parts.append(tok.spelling or tok.text)
    return '"' + "".join(parts).strip() + '"'
