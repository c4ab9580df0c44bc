"""C's literals as bytes (C99 6.4.4.4 character constants, 6.4.5 string literals): escapes undone, the source's
other characters as their UTF-8 bytes. One decoder serves the preprocessor's ``#if``, the checker's constant
expressions, the executor and printf."""

from __future__ import annotations

import re

__all__ = ["c_string", "char_constant"]

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "v": "\v", "f": "\f", "a": "\a", "b": "\b", "\\": "\\", "'": "'"}
_ESCAPES.update({'"': '"', "?": "?", "e": "\x1b"})  # (\e: GNU's escape, which Clang takes)
_SEGMENT = re.compile(r'"((?:[^"\\]|\\.)*)"', re.DOTALL)


def c_string(literal: str) -> str:
    """The bytes of a C string literal as pycparser gives it (quotes included; literals it joined keep ``" "``
    between them where joining their text would change an escape, ``"\\x41" "B"``), escapes undone (C99 5.1.1.2:
    before the joining), as characters 0-255, one per byte: other characters of the source are their UTF-8 bytes,
    as are universal character names (``\\u00e9``). ValueError for an escape out of a byte's range."""
    bodies = _SEGMENT.findall(literal) if literal.startswith('"') else [literal]
    return "".join(_unescaped(body) for body in bodies)


def _unescaped(body: str) -> str:
    out: list[str] = []
    k = 0
    while k < len(body):
        c = body[k]
        if c != "\\" or k + 1 == len(body):
            out.extend(map(chr, c.encode("utf-8")))
            k += 1
            continue
        nxt = body[k + 1]
        if nxt in _ESCAPES:
            out.append(_ESCAPES[nxt])
            k += 2
        elif nxt == "x":
            m = re.match(r"[0-9a-fA-F]+", body[k + 2 :])
            if m is None:
                raise ValueError("\\x used with no following hex digits")
            if int(m.group(0), 16) > 0xFF:
                raise ValueError(f"hex escape sequence out of range: \\x{m.group(0)}")
            out.append(chr(int(m.group(0), 16)))
            k += 2 + len(m.group(0))
        elif nxt in "01234567":
            m = re.match(r"[0-7]{1,3}", body[k + 1 :])
            assert m is not None
            if int(m.group(0), 8) > 0xFF:
                raise ValueError(f"octal escape sequence out of range: \\{m.group(0)}")
            out.append(chr(int(m.group(0), 8)))
            k += 1 + len(m.group(0))
        elif nxt in "uU":
            size = 4 if nxt == "u" else 8
            digits = body[k + 2 : k + 2 + size]
            if not re.fullmatch(rf"[0-9a-fA-F]{{{size}}}", digits) or int(digits, 16) > 0x10FFFF:
                raise ValueError(f"incomplete universal character name: \\{nxt}{digits}")
            out.extend(map(chr, chr(int(digits, 16)).encode("utf-8")))
            k += 2 + size
        else:
            out.append(nxt)
            k += 2
    return "".join(out)


def char_constant(literal: str) -> int:
    """The value of a character constant such as ``'a'``, ``'\\xe9'`` or ``'ab'`` (quotes included), an ``int``:
    one byte is a ``char``'s value (signed: ``'\\xe9'`` is -23, as on Clang's targets); several are a multi-character
    constant, each byte shifted in from the right and the result's low 32 bits read as an ``int`` (Clang's and GCC's
    implementation-defined value, 6.4.4.4p10: ``'ab'`` is 0x6162). ValueError, with Clang's words, for an empty
    constant or an escape out of range."""
    data = _unescaped(literal[1:-1]).encode("latin-1")
    if not data:
        raise ValueError("empty character constant")
    if len(data) == 1:
        return data[0] - 256 if data[0] > 127 else data[0]
    value = 0
    for byte in data:
        value = ((value << 8) | byte) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value
