"""What Clang says of a preprocessing number that is not a valid constant (C99 6.4.8, 6.4.4.1, 6.4.4.2).

The lexer cuts a pp-number greedily (``0x1e+5`` and ``3x`` are one token each), and only then is it read as an
integer or floating constant. The parser here reads constants by its own grammar, so ``3x`` was a syntax error
before ``x`` and ``0x1e+5`` built as ``0x1e + 5``. ``literal_error`` reads a pp-number as Clang's
``NumericLiteralParser`` does and gives its first error and where it stands in the number: "invalid suffix 'x' on
integer constant", "invalid digit '9' in octal constant", "exponent has no digits", "hexadecimal floating constant
requires an exponent" (each word checked against PoCL 3.1's Clang). A half constant's ``h`` is read by the parser
(``rewrites.half_literals``); suffixes Clang takes that this simulator does not (``q``, the imaginary ``i``/``j``)
are not errors here either: they stay the parser's.
"""

from __future__ import annotations

import re

__all__ = ["PP_NUMBER", "literal_error"]

PP_NUMBER = re.compile(r"(?<![A-Za-z_0-9.])\.?[0-9](?:[eEpP][+-]|[A-Za-z_0-9.])*")
"""A preprocessing number (C99 6.4.8) that does not continue an identifier or another number."""

_PLAIN = re.compile(r"(?:0[xX][0-9a-fA-F]+|[1-9][0-9]*|0[0-7]*)(?:[uU](?:ll|LL|[lL])?|(?:ll|LL|[lL])[uU]?)?")
_FLOATING = re.compile(r"(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?=[eE]))(?:[eE][+-]?[0-9]+)?[fFlL]?")
"""The usual constants, valid at a glance (most numbers of a kernel): no need to read them digit by digit."""

_HEX = "0123456789abcdefABCDEF"
_DIGITS = "0123456789"
_KINDS = {10: "decimal", 8: "octal", 2: "binary"}


def _skip(text: str, k: int, digits: str) -> int:
    while k < len(text) and text[k] in digits:
        k += 1
    return k


class _Reader:
    """One pp-number read as ``NumericLiteralParser`` reads it: ``error`` (offset, words) once it finds one."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.k = 0
        self.floating = False
        self.error: tuple[int, str] | None = None

    def at(self, k: int) -> str:
        return self.text[k] if k < len(self.text) else ""

    def fail(self, k: int, words: str) -> None:
        if self.error is None:
            self.error = (k, words)

    def read(self) -> tuple[int, str] | None:
        text = self.text
        if text[0] == "0":
            self.starting_with_zero()
        else:
            self.k = _skip(text, 0, _DIGITS)
            if self.k < len(text):
                self.decimal_or_octal(10)
        if self.error is not None:
            return self.error
        self.suffix()
        return self.error

    def starting_with_zero(self) -> None:
        text, k = self.text, 1
        c1, c2 = self.at(1), self.at(2)
        if c1 in "xX" and c2 != "" and (c2 in _HEX or c2 == "."):
            start = k = 2
            k = _skip(text, k, _HEX)
            significand = k > start
            if self.at(k) == ".":
                k += 1
                after = k
                k = _skip(text, k, _HEX)
                significand = significand or k > after
                self.floating = True
            if not significand:
                self.fail(k, "hexadecimal floating constant requires a significand")
                return
            if self.at(k) in ("p", "P"):
                end = self.exponent(k)
                if end is None:
                    return
                k = end
            elif self.floating:
                self.fail(k, "hexadecimal floating constant requires an exponent")
                return
            self.k = k
            return
        if c1 in "bB" and c2 in ("0", "1"):
            k = _skip(text, 2, "01")
            if k < len(text) and text[k] in _HEX:
                self.fail(k, f"invalid digit '{text[k]}' in binary constant")
            self.k = k
            return
        k = _skip(text, 1, "01234567")
        if k < len(text) and text[k] in _DIGITS:  # 094.123, 09e1: a decimal floating constant
            end = _skip(text, k, _DIGITS)
            if self.at(end) in (".", "e", "E"):
                self.k = end
                self.decimal_or_octal(10)
                return
        self.k = k
        if k < len(text):
            self.decimal_or_octal(8)

    def decimal_or_octal(self, radix: int) -> None:
        text, k = self.text, self.k
        c = self.at(k)
        if c and c in _HEX and c not in "eE":  # a digit of another base
            self.fail(k, f"invalid digit '{c}' in {_KINDS[radix]} constant")
            return
        if c == ".":
            k = _skip(text, k + 1, _DIGITS)
            self.floating = True
        if self.at(k) in ("e", "E"):
            end = self.exponent(k)
            if end is None:
                return
            k = end
        self.k = k

    def exponent(self, k: int) -> int | None:
        """The end of the exponent whose ``e`` or ``p`` is at ``k`` (a floating constant's), or None after Clang's
        error for one without digits."""
        start = k + 2 if self.at(k + 1) in ("+", "-") else k + 1
        end = _skip(self.text, start, _DIGITS)
        if end == start:
            self.fail(k, "exponent has no digits")
            return None
        self.floating = True
        return end

    def suffix(self) -> None:
        text, start = self.text, self.k
        unsigned = sized = imaginary = False
        k = start
        while k < len(text):
            c = text[k]
            if c in "fFhHqQ" and self.floating and not sized:
                sized = True
            elif c in "uU" and not self.floating and not unsigned:
                unsigned = True
            elif c in "lL" and not sized:
                sized = True
                if self.at(k + 1) == c:
                    if self.floating:
                        break
                    k += 1
            elif c in "iIjJ" and not imaginary:
                imaginary = True
            else:
                break
            k += 1
        if k < len(text):
            what = "floating" if self.floating else "integer"
            self.fail(start, f"invalid suffix '{text[start:]}' on {what} constant")


def literal_error(number: str) -> tuple[int, str] | None:
    """Clang's first error for the preprocessing number ``number`` and its offset in it, or None for a constant
    Clang reads (or one whose only fault is a suffix this simulator leaves to the parser)."""
    if _PLAIN.fullmatch(number) or _FLOATING.fullmatch(number):
        return None
    return _Reader(number).read()
