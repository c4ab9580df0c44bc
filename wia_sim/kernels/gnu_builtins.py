"""Clang's GNU library built-ins (``__builtin_popcount``, ``__builtin_fabsf``, ``__builtin_nanf``, ...), which
Clang offers OpenCL C as it offers C: each call is rewritten, before the program is checked, into the OpenCL C it
means (``expanded``): the arguments converted to the C prototype's parameter types (Clang's Builtins.def), an
OpenCL built-in or a few operators, the result as the prototype's type. The checker and the executor then see
OpenCL C only, placed at the call (its line and column), so findings and diagnostics point where the user wrote it.

C's library functions are not OpenCL C's: ``abs(int)`` is an ``int`` (OpenCL's is a ``uint``), ``__builtin_clz``
is an ``int``, ``__builtin_isnan`` is 1 (OpenCL's relational functions give -1 for vectors). Where C leaves a
result undefined (``__builtin_clz(0)``, ``__builtin_ctz(0)``) the expansion gives the type's width, as OpenCL's
``clz(0)`` does. A statement expression holds an argument used twice (it is evaluated once, as a call's)."""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable

from pycparser import c_ast

from wia_sim.kernels.literals import c_string
from wia_sim.kernels.parsing import parse
from wia_sim.kernels.rewrites import set_child
from wia_sim.kernels.types import TypeInfo, int_constant

__all__ = ["ARITIES", "LIBRARY", "Passed", "expand_all"]


class Passed(c_ast.Cast):  # type: ignore[misc]
    """An argument of a GNU built-in converted to its parameter's type, as a call converts it (not as a cast: a
    vector or a pointer to a ``float`` is Clang's "passing ... to parameter of incompatible type" error), the type
    spelled as Clang's prototype spells it (``spelled``: 'unsigned long long'). ``generic``: a type-generic
    classification's (``__builtin_isnan``), any floating-point scalar, unconverted (the checker sets ``to_type`` to
    its type). ``signed``: the constant a 128-bit ``long long`` template tests (``F``), which the checker makes 1
    where the argument is of a signed type (its value extends with its sign) and 0 where unsigned. ``partner``: of
    an ordered comparison's first argument (``__builtin_isless``), the second: the checker converts both to their
    common type, which it finds at the first (and ``settled`` holds for the second)."""

    __slots__ = ("generic", "partner", "settled", "signed", "spelled")

    def __init__(self, cast: c_ast.Cast, spelled: str, generic: bool, signed: c_ast.Constant | None) -> None:
        super().__init__(cast.to_type, cast.expr, cast.coord)
        self.spelled, self.generic, self.signed = spelled, generic, signed
        self.partner: Passed | None = None
        self.settled: TypeInfo | None = None


def _reversed(bits: int, t: str) -> str:
    """``__builtin_bitreverse<bits>``: the halves of ever smaller groups of bits swapped (1, 2, 4, ... bits)."""
    steps = []
    shift = 1
    while shift < bits:
        group = (1 << shift) - 1
        mask = sum(group << k for k in range(0, bits, 2 * shift))
        steps.append(f"__wia_v = ({t})(((__wia_v >> {shift}) & {mask:#x}UL) | ((__wia_v & {mask:#x}UL) << {shift}));")
        shift *= 2
    return f"({{ {t} __wia_v = ({t})(A); {' '.join(steps)} __wia_v; }})"


_INTEGER = {
    # popcount, clz, ctz, ffs, parity, clrsb: int __builtin_X(unsigned int / int), ...l (long)
    **{
        f"__builtin_{name}{suffix}": text.replace("U", unsigned).replace("S", signed).replace("W", width)
        for suffix, unsigned, signed, width in (("", "uint", "int", "31"), ("l", "ulong", "long", "63"))
        for name, text in (
            ("popcount", "(int)popcount((U)(A))"),
            ("clz", "(int)clz((U)(A))"),
            ("ctz", "({ U __wia_v = (U)(A); (int)popcount(~__wia_v & (__wia_v - 1)); })"),
            ("ffs", "({ U __wia_v = (U)(S)(A); __wia_v ? (int)popcount(__wia_v ^ (__wia_v - 1)) : 0; })"),
            ("parity", "(int)(popcount((U)(A)) & 1)"),
            ("clrsb", "({ S __wia_v = (S)(A); (int)clz(__wia_v ^ (__wia_v >> W)) - 1; })"),
        )
    },
    # ...ll: Clang's OpenCL targets make ``long long`` 128 bits wide (PoCL 3.1: __builtin_clzll(1UL) is 127): the
    # 64-bit value with its upper half, all ones where a negative value of a signed type (``F``) extends
    "__builtin_popcountll": "({ ulong __wia_v = (ulong)(A); (int)popcount(__wia_v) + (F && (long)__wia_v < 0) * 64; })",
    "__builtin_clzll": "({ ulong __wia_v = (ulong)(A); F && (long)__wia_v < 0 ? 0 : (int)clz(__wia_v) + 64; })",
    "__builtin_ctzll": "({ ulong __wia_v = (ulong)(A); (int)popcount(~__wia_v & (__wia_v - 1)) + !__wia_v * 64; })",
    "__builtin_ffsll": "({ ulong __wia_v = (ulong)(long)(A); __wia_v ? (int)popcount(__wia_v ^ (__wia_v - 1)) : 0; })",
    "__builtin_parityll": "(int)(popcount((ulong)(A)) & 1)",
    "__builtin_clrsbll": "({ long __wia_v = (long)(A); !F && __wia_v < 0 ? 63 "
    ": (int)clz(__wia_v ^ (__wia_v >> 63)) + 63; })",
    **{
        f"__builtin_{name}{bits}": text.replace("T", t)
        for bits, t in ((8, "uchar"), (16, "ushort"), (32, "uint"), (64, "ulong"))
        for name, text in (
            ("rotateleft", "rotate((T)(A), (T)(B))"),
            ("rotateright", "rotate((T)(A), (T)((T)0 - (T)(B)))"),
            ("bitreverse", _reversed(bits, t)),
        )
    },
    "__builtin_bswap16": "as_ushort(as_uchar2((ushort)(A)).s10)",
    "__builtin_bswap32": "as_uint(as_uchar4((uint)(A)).s3210)",
    "__builtin_bswap64": "as_ulong(as_uchar8((ulong)(A)).s76543210)",
    "__builtin_abs": "(int)abs((int)(A))",
    "__builtin_labs": "(long)abs((long)(A))",
    "__builtin_llabs": "(long)abs((long)(A))",
}

_MATH_UNARY = "fabs sqrt floor ceil trunc round rint exp exp2 log log2 log10 sin cos".split()  # noqa: SIM905
_MATH_BINARY = "fmin fmax copysign pow fmod".split()  # noqa: SIM905
_MATH = {
    f"__builtin_{name}{suffix}": f"{name}({', '.join(f'({t})(' + a + ')' for a in args)})"
    for suffix, t in (("f", "float"), ("", "double"))
    for names, args in ((_MATH_UNARY, ("A",)), (_MATH_BINARY, ("A", "B")), (["fma"], ("A", "B", "C")))
    for name in names
} | {
    "__builtin_nearbyintf": "rint((float)(A))",
    "__builtin_nearbyint": "rint((double)(A))",
    "__builtin_inff": "INFINITY",
    "__builtin_huge_valf": "INFINITY",
    "__builtin_inf": "(double)INFINITY",
    "__builtin_huge_val": "(double)INFINITY",
}
"""The math Clang turns into LLVM's intrinsics or instructions (``llvm.sqrt``, ``llvm.pow``, ``frem``, ...), which
every device has: PoCL 3.1 builds and runs each of these."""

LIBRARY = {
    f"__builtin_{name}{suffix}": f"{name}{suffix}"
    for name in """cbrt expm1 log1p logb tan asin acos atan sinh cosh tanh asinh acosh atanh erf erfc tgamma lgamma
    hypot atan2 fdim nextafter remainder ldexp""".split()  # noqa: SIM905
    for suffix in ("f", "")
}
"""The math Clang leaves a call of the C library's function (``__builtin_atan2f`` calls ``atan2f``), which an
OpenCL device does not link: PoCL 3.1 fails the build ("Cannot find symbol atan2f in kernel library"), Oclgrind
21.10 the kernel's creation for the float ones (measured for each name). Refused, by the library name."""

_CLASSIFY = {  # type-generic: any floating-point argument (``Passed.generic``), an int 0 or 1
    **{
        f"__builtin_{name}": f"(int)({name}((float)(A)) != 0)"
        for name in ("isnan", "isinf", "isfinite", "isnormal", "signbit")
    },
}
"""The classifications."""

_ORDERED = {
    f"__builtin_{name}": f"(int){name}((float)(A), (float)(B))"
    for name in ("isless", "isgreater", "islessequal", "isgreaterequal", "islessgreater", "isunordered")
}
"""C's comparison macros, quiet on NaN: Clang converts the two arguments to their common type, which must be a real
floating type (``Passed.partner``: the checker finds it, as the usual arithmetic conversions of the pair), and
compares them; OpenCL's relational built-in of the scalar type gives C's 1 or 0."""

_HINTS = {
    "__builtin_assume": "(void)sizeof((A) != 0)",
    "__builtin_expect_with_probability": "((void)sizeof(B), (void)sizeof(C), (long)(A))",
}
"""``__builtin_assume(e)``: ``e`` is checked, never evaluated (Clang drops it; assuming a false ``e`` is undefined);
``__builtin_expect_with_probability(e, c, p)``: ``e`` (a hint, ``c`` and ``p`` checked, never evaluated)."""

_NAN = {"__builtin_nanf": "float", "__builtin_nan": "double"}
"""``__builtin_nanf("payload")``: a quiet NaN, the string's number (C's ``strtoull`` base 0) in its significand,
folded by Clang from a string literal only (the checker refuses another argument)."""

_TEMPLATES = _INTEGER | _MATH | _CLASSIFY | _ORDERED | _HINTS
_PLACEHOLDERS = ("A", "B", "C")
_ARGUMENTS = frozenset(f"__wia_{p}" for p in _PLACEHOLDERS)

ARITIES = (
    {name: sum(f"({p})" in text for p in _PLACEHOLDERS) for name, text in _TEMPLATES.items()}
    | {name: 0 for name in ("__builtin_inff", "__builtin_huge_valf", "__builtin_inf", "__builtin_huge_val")}
    | dict.fromkeys(_NAN, 1)
)
"""Every GNU built-in rewritten here, by its number of parameters."""


_C_SPELLINGS = {"uint": "unsigned int", "ushort": "unsigned short", "uchar": "unsigned char", "ulong": "unsigned long"}
"""Clang's spellings of the prototypes' parameter types (Builtins.def's): C's, ``long long`` for the ``ll``
built-ins."""


@functools.cache
def _template(name: str, text: str) -> c_ast.Node:
    """The expression ``text`` (with ``__wia_A`` ... for the arguments) parsed once, each conversion of an
    argument a ``Passed``."""
    for p in _PLACEHOLDERS:
        text = text.replace(f"({p})", f"(__wia_{p})")
    text = re.sub(r"\bF\b", "__wia_F", text)
    outcome = parse(f"void __wia_template(void) {{ {text}; }}")
    assert not outcome.errors, (text, outcome.errors)
    generic = name in _CLASSIFY
    longer = name.endswith("ll") and name in _INTEGER

    signed = c_ast.Constant("int", "0") if "__wia_F" in text else None
    arguments: list[Passed] = []

    def passed(node: c_ast.Node) -> c_ast.Node:
        if isinstance(node, c_ast.Cast) and isinstance(node.expr, c_ast.ID) and node.expr.name in _ARGUMENTS:
            t = " ".join(node.to_type.type.type.names)
            spelled = _C_SPELLINGS.get(t, t)
            if longer and spelled.endswith("long"):
                spelled += " long"
            arguments.append(Passed(node, spelled, generic, signed))
            return arguments[-1]
        if isinstance(node, c_ast.ID) and node.name == "__wia_F":
            assert signed is not None
            return signed
        return node

    tree = _transformed(outcome.ast.ext[-1].body.block_items[0], passed)
    if name in _ORDERED:
        arguments[0].partner = arguments[1]
    return tree


def _nan_bits(literal: str, kind: str) -> str:
    """The bits of ``__builtin_nan{f}(literal)``: a quiet NaN whose significand holds the number the string spells
    (0 where it spells none: APFloat::getNaN's fill, as Clang folds it)."""
    text = c_string(literal).strip()
    try:  # (C's base 0: a leading 0 is octal, which Python's is not)
        fill = int(text, 8) if text.startswith("0") and text.isdigit() else int(text, 0) if text else 0
    except ValueError:
        fill = 0
    if kind == "float":
        return f"as_float({0x7FC00000 | (fill & 0x7FFFFF):#x}u)"
    return f"as_double({0x7FF8000000000000 | (fill & 0xFFFFFFFFFFFFF):#x}UL)"


def expanded(node: c_ast.FuncCall) -> c_ast.Node | None:
    """The OpenCL C that the call ``node`` of a GNU built-in means, placed at the call, or None where it is no
    such call or has not its built-in's number of arguments (the checker reports that) or, for ``__builtin_nan``,
    no string literal."""
    name = node.name.name if isinstance(node.name, c_ast.ID) else None
    if name not in ARITIES:
        return None
    args = list(node.args.exprs) if node.args is not None else []
    if len(args) != ARITIES[name]:
        return None
    folded = _folded(name, args)
    if folded is not None:  # (an integer constant expression, as Clang folds it: an array's length, a __constant's)
        return c_ast.Constant("int", str(folded), node.coord)
    if name in _NAN:
        arg = args[0]
        if not (isinstance(arg, c_ast.Constant) and arg.type == "string"):
            return None
        tree = copy.deepcopy(_template(name, _nan_bits(arg.value, _NAN[name])))
    else:
        tree = copy.deepcopy(_template(name, _TEMPLATES[name]))
    bound = dict(zip((f"__wia_{p}" for p in _PLACEHOLDERS), args, strict=False))

    def placed(part: c_ast.Node) -> c_ast.Node:  # the arguments in, every node of the template's at the call
        if isinstance(part, c_ast.ID) and part.name in bound:
            return bound[part.name]
        part.coord = node.coord
        return part

    return _transformed(tree, placed)


def _literal(node: c_ast.Node) -> int | None:
    """The value of an integer literal (C's base 0: a leading 0 octal), or None for anything else."""
    if not isinstance(node, c_ast.Constant) or "int" not in node.type:
        return None
    return int_constant(node.value)


def _count(name: str, v: int, bits: int) -> int:
    """What the integer built-in ``name`` (without its ``l``/``ll``) gives for ``v`` in a type of ``bits``, as the
    templates compute it (the type's width where C leaves it undefined: ``clz(0)``)."""
    u = v % (1 << bits)
    if name == "popcount":
        return u.bit_count()
    if name == "parity":
        return u.bit_count() & 1
    if name == "clz":
        return bits - u.bit_length()
    if name == "ctz":
        return (u & -u).bit_length() - 1 if u else bits
    if name == "ffs":
        return (u & -u).bit_length() if u else 0
    signed = u - (1 << bits) if u >> (bits - 1) else u  # clrsb: the redundant sign bits
    return bits - (signed ^ (signed >> (bits - 1))).bit_length() - 1


_FOLDED = re.compile(r"__builtin_(popcount|parity|clz|ctz|ffs|clrsb)(l{0,2})")


def _folded(name: str, args: list[c_ast.Node]) -> int | None:
    """The int an integer built-in gives for literal arguments (Clang folds it: ``int a[__builtin_popcount(15u)]``
    is an array of 4, ``__constant int c = __builtin_ctz(8u);`` a constant), or None. A literal is never negative,
    so a ``long long``'s upper half is zeros."""
    m = _FOLDED.fullmatch(name)
    value = _literal(args[0]) if m is not None and len(args) == 1 else None
    if m is None or value is None:
        return None
    return _count(m.group(1), value, {"": 32, "l": 64, "ll": 128}[m.group(2)])


def _transformed(node: c_ast.Node, visit: Callable[[c_ast.Node], c_ast.Node]) -> c_ast.Node:
    """``node``'s tree with each node replaced by what ``visit`` gives for it, its children's first (in place)."""
    for name, child in node.children():
        done = _transformed(child, visit)
        if done is not child:
            set_child(node, name, done)
    return visit(node)


def expand_all(node: c_ast.Node) -> c_ast.Node:
    """``node`` with every GNU built-in call under it (and itself) rewritten (``expanded``), inner calls first."""
    return _transformed(node, lambda n: (expanded(n) if isinstance(n, c_ast.FuncCall) else None) or n)
