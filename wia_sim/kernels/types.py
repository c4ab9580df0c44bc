"""The front end's type model: ``TypeInfo``, the built-in type names, and declarations resolved to types.

``TypeResolver`` turns pycparser type nodes into ``TypeInfo``, knowing the program's typedefs and structs. Array
lengths are integer constant expressions and ``sizeof`` needs the resolver, so the constant folding (``const_int``)
lives here too. Values are computed with ``ctype.py``'s types; ``TypeInfo`` is how declarations and expressions
are typed in the checker and in ``Program.type_of``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pycparser import c_ast
from pycparserext.ext_c_parser import FuncDeclExt, TypeOfDeclaration, TypeOfExpression

from wia_sim.kernels.ctype import lookup, wrap
from wia_sim.kernels.literals import char_constant
from wia_sim.kernels.specifiers import read

__all__ = [
    "BUILTIN_TYPE_NAMES",
    "DOUBLE",
    "FLOAT",
    "FLOATS",
    "INT",
    "LONG",
    "OPAQUE_TYPES",
    "SCALAR_SIZES",
    "SPACES",
    "UINT",
    "ULONG",
    "UNKNOWN",
    "UNSIGNED_OF",
    "VECTOR_BASES",
    "VECTOR_WIDTHS",
    "VOID",
    "AddressSpace",
    "TypeInfo",
    "TypeKind",
    "TypeResolver",
    "const_int",
    "enum_underlying",
    "enumerator_types",
    "int_constant",
    "located",
    "named_type",
    "points_elsewhere",
    "scalar_or_vector",
    "swizzle_indices",
]

AddressSpace = Literal["global", "local", "constant", "private", "default"]
"""Where an object lives; "default" is Clang's no address space, a compound literal's in OpenCL C 1.2 (a pointer
to one converts to no address-spaced pointer: Clang's "changes address space of pointer")."""
TypeKind = Literal["scalar", "vector", "pointer", "array", "struct", "void", "opaque", "function", "unknown"]

SCALAR_SIZES: dict[str, int] = {
    "bool": 1,
    "char": 1,
    "uchar": 1,
    "short": 2,
    "ushort": 2,
    "int": 4,
    "uint": 4,
    "long": 8,
    "ulong": 8,
    "half": 2,
    "float": 4,
    "double": 8,
}
"""Bytes per scalar (OpenCL C 1.2, 6.1.1); a 3-component vector takes the space of 4 (6.1.5)."""

VECTOR_BASES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "half")
VECTOR_WIDTHS = (2, 3, 4, 8, 16)
FLOATS = frozenset({"half", "float", "double"})
_INTEGER_SCALARS = frozenset(SCALAR_SIZES) - FLOATS
UNSIGNED_OF = {"char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}

# one-word type names: the OpenCL scalars and the aliases the parser knows, to canonical scalar names
_SCALAR_NAMES: dict[str, str] = {
    **{name: name for name in SCALAR_SIZES},
    "_Bool": "bool",
    "void": "void",
    "unsigned": "uint",
    "signed": "int",
    "size_t": "ulong",
    "ptrdiff_t": "long",
    "intptr_t": "long",
    "uintptr_t": "ulong",
    "cl_mem_fence_flags": "uint",
}
"""(C99's ``<stdint.h>`` names, ``int32_t`` and the like, are no OpenCL C types: Clang's "unknown type name", as on
PoCL 3.1 and Oclgrind 21.10, unless the program defines them; the parser knows them as type names all the same.)"""
OPAQUE_TYPES = {
    "image1d_t": "images",
    "image1d_array_t": "images",
    "image1d_buffer_t": "images",
    "image2d_t": "images",
    "image2d_array_t": "images",
    "image3d_t": "images",
    "sampler_t": "samplers",
    "event_t": "events (async copies)",
    "cfloat_t": "complex types",
    "cdouble_t": "complex types",
}
_VECTOR_RE = re.compile(r"(char|uchar|short|ushort|int|uint|long|ulong|float|double|half)(2|3|4|8|16)")
BUILTIN_TYPE_NAMES = frozenset(
    {
        *_SCALAR_NAMES,
        *(f"{base}{width}" for base in VECTOR_BASES for width in VECTOR_WIDTHS),
        *(name for name, what in OPAQUE_TYPES.items() if what != "complex types"),
    }
)
"""The one-word type names OpenCL C 1.2 declares (Clang's typo correction offers them where a type is expected)."""

SPACES: dict[str, AddressSpace] = {
    "__global": "global",
    "global": "global",
    "__local": "local",
    "local": "local",
    "__constant": "constant",
    "constant": "constant",
    "__private": "private",
    "private": "private",
}


@dataclass(frozen=True)
class TypeInfo:
    """A type as the executor needs it.

    ``kind``: "scalar" or "vector" (``name`` is the element type, canonical OpenCL spelling: "float", "uint",
    ...; "?" where the checker could not tell), "pointer" (``target`` is the pointee, whose ``space`` says where
    the pointer points), "array" (``target`` is the element, ``length`` the count, None when an initializer
    gives it), "struct" (``name`` "struct S" or "union U"), "void", "opaque" (images, samplers: rejected),
    "function", or "unknown". ``space`` is where an object of this type lives; ``const`` whether it is read-only.
    """

    kind: TypeKind
    name: str = ""
    width: int = 1
    target: TypeInfo | None = None
    space: AddressSpace = "private"
    const: bool = False
    length: int | None = None
    unnamed: bool = field(default=False, compare=False)
    """A vector type no name spells: a vector comparison's, ``&&``'s, ``||``'s or ``!``'s result (and an operator's
    that takes its type from one), which Clang's errors write as ``'int __attribute__((ext_vector_type(4)))'``;
    the same type as ``int4`` otherwise."""
    implied: bool = field(default=False, compare=False)
    """``const`` only because the object is in ``__constant`` memory (OpenCL C 1.2 6.5.3), which Clang's errors do
    not write: '__constant float *', not 'const __constant float *'."""

    @property
    def type_name(self) -> str:
        """``float``, ``float4``, ``struct S``: the spelling without address space, const or pointers."""
        if self.kind == "vector":
            return f"{self.name}{self.width}"
        return self.name

    @property
    def written(self) -> str:
        """``type_name`` as Clang's errors write it: a vector without a name (``unnamed``) by its attribute."""
        if self.unnamed and self.kind == "vector":
            return f"{self.name} __attribute__((ext_vector_type({self.width})))"
        return self.type_name

    @property
    def own_const(self) -> bool:
        """Whether the type is const by its own qualifier (``__constant``'s read-only objects are no const type to
        Clang: ``implied``)."""
        return self.const and not self.implied

    @property
    def innermost(self) -> TypeInfo:
        """The type of an array's innermost elements (``float`` of ``float[2][3]``); the type itself otherwise."""
        t = self
        while t.kind == "array" and t.target is not None:
            t = t.target
        return t

    @property
    def is_arithmetic(self) -> bool:
        return self.kind in ("scalar", "vector")

    @property
    def element_size(self) -> int | None:
        """Bytes of one scalar or vector value (a 3-vector counts as 4); None for other kinds."""
        if self.kind not in ("scalar", "vector") or self.name not in SCALAR_SIZES:
            return None
        return SCALAR_SIZES[self.name] * (4 if self.width == 3 else self.width)

    def __str__(self) -> str:
        quals = ("const " if self.const else "") + (
            f"__{self.space} " if self.space not in ("private", "default") else ""
        )
        if self.kind == "pointer" and self.target is not None:
            return f"{self.target} *"
        if self.kind == "array" and self.target is not None:
            return f"{self.target}[{'' if self.length is None else self.length}]"
        return f"{quals}{self.type_name or self.kind}"


UNKNOWN = TypeInfo("unknown")
VOID = TypeInfo("void", "void")
INT = TypeInfo("scalar", "int")
UINT = TypeInfo("scalar", "uint")
ULONG = TypeInfo("scalar", "ulong")
LONG = TypeInfo("scalar", "long")
FLOAT = TypeInfo("scalar", "float")
DOUBLE = TypeInfo("scalar", "double")


def enum_underlying(values: list[int]) -> str:
    """An enum's type, as Clang (like GCC) picks it in C: ``uint`` when no value is negative, else ``int``, or the
    first of ``uint``, ``long``, ``ulong`` that holds every value (Clang's extension for values past ``int``, e.g.
    64-bit hash constants)."""
    low, high = min(values, default=0), max(values, default=0)
    if low >= 0:
        return "uint" if high < 2**32 else "long" if high < 2**63 else "ulong"
    return "int" if low >= -(2**31) and high < 2**31 else "long"


def enumerator_types(values: list[int]) -> list[str]:
    """The type of each enumerator of one enum: ``int`` where the value fits one (C99 6.7.2.2), else the enum's
    (``enum_underlying``)."""
    wide = enum_underlying(values)
    return ["int" if -(2**31) <= v < 2**31 else wide for v in values]


def located(t: TypeInfo, space: AddressSpace, const: bool, implied: bool = False) -> TypeInfo:
    """``t`` as a part of an object in ``space`` (a struct member): itself and, for an array, its elements down to
    the innermost, so that ``p->data`` decays to (and ``&p->data[i]`` is) a pointer into that space; ``const``
    where the object is, ``implied`` where only its ``__constant`` space makes it so (``TypeInfo.implied``)."""
    target = located(t.target, space, const, implied) if t.kind == "array" and t.target is not None else t.target
    only = implied and not t.const  # (a member's own const is written)
    return TypeInfo(t.kind, t.name, t.width, target, space, const or t.const, t.length, t.unnamed, only)


def points_elsewhere(a: TypeInfo, b: TypeInfo) -> bool:
    """Whether the pointers (or arrays, as the pointers they decay to) ``a`` and ``b`` point into different address
    spaces, at any level of indirection: OpenCL C 1.2 6.5 lets no conversion, not even a cast, change the space a
    pointer points into (an unqualified pointee is ``__private``: the generic space is OpenCL C 2.0's). False when
    either is not a pointer or an array."""
    if a.kind not in ("pointer", "array") or b.kind not in ("pointer", "array"):
        return False
    while a.target is not None and b.target is not None:
        if a.target.space != b.target.space:
            return True
        a, b = a.target, b.target
        if a.kind != "pointer" or b.kind != "pointer":
            return False
    return False


def pointer_conversion(target: TypeInfo, value: TypeInfo) -> str | None:
    """What Clang warns of when the pointer (or array, as the pointer it decays to) ``value`` converts to the
    pointer ``target`` in one address space: "incompatible pointer" for pointees of different types (at any level
    of indirection; ``void`` takes and gives any), "pointer sign" for integers that differ only in sign, "discards
    qualifiers" for a ``const`` pointee lost; None for none of these."""
    a, b = target.target, value.target
    if a is None or b is None or "?" in (a.name, b.name) or "unknown" in (a.kind, b.kind):
        return None
    if "void" in (a.kind, b.kind):  # (any pointee converts to and from ``void``, but for a const it drops)
        return "discards qualifiers" if b.own_const and not a.own_const else None
    if a.kind == b.kind == "pointer":  # (a pointer to pointers of another sign is another type too)
        return "incompatible pointer" if pointer_conversion(a, b) in ("incompatible pointer", "pointer sign") else None
    if (a.kind, a.name, a.width) != (b.kind, b.name, b.width):
        integers = a.kind == b.kind == "scalar" and a.name in _INTEGER_SCALARS and b.name in _INTEGER_SCALARS
        same_size = UNSIGNED_OF.get(a.name, a.name) == UNSIGNED_OF.get(b.name, b.name)
        return "pointer sign" if integers and same_size else "incompatible pointer"
    if b.own_const and not a.own_const:
        return "discards qualifiers"
    return None


def scalar_or_vector(name: str, width: int) -> TypeInfo:
    return TypeInfo("vector", name, width) if width > 1 else TypeInfo("scalar", name)


def named_type(name: str) -> TypeInfo | None:
    """A built-in type name (one word) as a type; None if it is not one."""
    if name in _SCALAR_NAMES:
        canonical = _SCALAR_NAMES[name]
        return VOID if canonical == "void" else TypeInfo("scalar", canonical)
    m = _VECTOR_RE.fullmatch(name)
    if m:
        return TypeInfo("vector", m.group(1), int(m.group(2)))
    if name in OPAQUE_TYPES:
        return TypeInfo("opaque", name)
    return None


def _keyword_type(names: Sequence[str]) -> TypeInfo | None:
    """Multi-word C spellings (``unsigned int``, ``long long``, ``short int``, in any order) to the OpenCL scalar
    (``specifiers.read``: the combinations C allows; the others are the front end's errors)."""
    spec = read(list(names))
    if spec.type == "char" and spec.width is None:
        base = "char"
    elif spec.type not in (None, "int"):
        return None
    else:
        base = {None: "int", "short": "short", "long": "long", "long long": "long"}[spec.width]
    return TypeInfo("scalar", UNSIGNED_OF[base] if spec.sign == "unsigned" else base)


class SwizzleError(ValueError):
    """A swizzle invalid on its vector: ``kind`` "name" (``char``, the first character that names no component),
    "range" (a component past the vector's) or "length" (``count`` components, not 1, 2, 3, 4, 8 or 16)."""

    def __init__(self, message: str, kind: str, char: str = "", count: int = 0) -> None:
        super().__init__(message)
        self.kind, self.char, self.count = kind, char, count


@functools.lru_cache(maxsize=1024)
def swizzle_indices(field_name: str, width: int) -> tuple[int, ...]:
    """The components a vector swizzle selects: ``.x``/``.xy``/``.wzyx`` (or OpenCL C 3.0's ``.rgba``, which
    compilers take in 1.2 with a warning), ``.s0``/``.s01``/``.sF``, ``.lo``/``.hi``/``.even``/``.odd``. Raises
    ValueError, with the reason, for a swizzle invalid on a ``width``-vector. Remembered: the executor asks at every
    access of a component."""
    if field_name in ("lo", "hi", "even", "odd"):
        # a 3-component vector is taken as a 4-component one whose w is undefined (OpenCL C 1.2 6.1.7): ``.hi`` and
        # ``.odd`` name component 3, which reads as 0 (``lvalues.with_undefined``) and takes no write
        w = 4 if width == 3 else width
        half = w // 2
        picks = {
            "lo": range(half),
            "hi": range(half, w),
            "even": range(0, w, 2),
            "odd": range(1, w, 2),
        }[field_name]
        return tuple(picks)
    if len(field_name) > 1 and field_name[0] in "sS" and all(c in "0123456789abcdefABCDEF" for c in field_name[1:]):
        indices = tuple(int(c, 16) for c in field_name[1:])
    elif field_name and all(c in "xyzw" for c in field_name):
        indices = tuple("xyzw".index(c) for c in field_name)
    elif field_name and all(c in "rgba" for c in field_name):  # (OpenCL C 3.0's names: the checker warns)
        indices = tuple("rgba".index(c) for c in field_name)
    else:
        digits = field_name[1:] if field_name[:1] in ("s", "S") else field_name
        names = "0123456789abcdefABCDEF" if field_name[:1] in ("s", "S") else "xyzw"
        bad = next((c for c in digits if c not in names), field_name[:1])  # (Clang names the first such character)
        raise SwizzleError(f"invalid vector component name '.{field_name}'", "name", bad)
    for index in indices:
        if index >= width:
            message = f"vector component '.{field_name}' is out of range for a {width}-component vector"
            raise SwizzleError(message, "range")
    if len(indices) not in (1, 2, 3, 4, 8, 16):
        message = f"swizzle '.{field_name}' selects {len(indices)} components (must be 1, 2, 3, 4, 8 or 16)"
        raise SwizzleError(message, "length", count=len(indices))
    return indices


def int_constant(text: str) -> int | None:
    text = text.rstrip("uUlL")
    try:
        if re.fullmatch(r"0[0-7]+", text):
            return int(text, 8)
        return int(text, 0)
    except ValueError:
        return None


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def const_int(node: c_ast.Node | None, enumerators: dict[str, int], types: TypeResolver | None = None) -> int | None:
    """Evaluate an integer constant expression on the AST (C99 6.6); None if it is not one. Computed in its C
    types (``_folded``): ``-1 < 1u`` is 0, as the usual arithmetic conversions make it. What the checker learnt
    of the expression's nodes comes through ``types`` (``TypeResolver.sizes`` and ``named``): without it, only
    ``sizeof(type)`` and no variable is a constant."""
    folded = _folded(node, enumerators, types)
    return None if folded is None else folded[0]


_RANKS = {"int": 32, "uint": 32, "long": 64, "ulong": 64}


def _promoted(name: str) -> str:
    """The type an integer of ``name`` takes in arithmetic (C99 6.3.1.1: narrower types become ``int``)."""
    return name if name in _RANKS else "int"


def _common(a: str, b: str) -> str:
    """The usual arithmetic conversions of two promoted integer types (C99 6.3.1.8)."""
    if a == b:
        return a
    signed_a, signed_b = not a.startswith("u"), not b.startswith("u")
    if signed_a == signed_b:
        return a if _RANKS[a] >= _RANKS[b] else b
    unsigned, signed = (b, a) if signed_a else (a, b)
    if _RANKS[unsigned] >= _RANKS[signed]:
        return unsigned
    return signed  # (a long holds every uint)


def _literal_type(text: str, value: int) -> str:
    """An integer constant's type by its suffix, base and value (C99 6.4.4.1, OpenCL's 64-bit ``long``)."""
    suffix = text[len(text.rstrip("uUlL")) :].lower()
    decimal = not text.lower().startswith("0") or text == "0"
    unsigned, is_long = "u" in suffix, "l" in suffix
    candidates = ["long"] if decimal and not unsigned else ["long", "ulong"]
    if not is_long:
        candidates = (["int"] if decimal and not unsigned else ["int", "uint"]) + candidates
    if unsigned:
        candidates = [c for c in candidates if c.startswith("u")]
    for name in candidates:
        bits = _RANKS[name]
        low, high = (0, (1 << bits) - 1) if name.startswith("u") else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        if low <= value <= high:
            return name
    return "ulong"


def _folded(node: c_ast.Node | None, enumerators: dict[str, int], types: TypeResolver | None) -> tuple[int, str] | None:
    """An integer constant expression's value and (promoted) type, or None."""
    if isinstance(node, c_ast.Constant):
        if node.type == "char" or node.value.startswith("'"):  # (pycparser types 'ab' as an int)
            try:
                return char_constant(node.value), "int"
            except ValueError:
                return None
        if "int" in node.type or "long" in node.type:
            v = int_constant(node.value)
            return None if v is None else (v, _literal_type(node.value, v))
        return None
    if isinstance(node, c_ast.ID):
        e = enumerators.get(node.name)
        if e is None:
            return types.named.get(id(node)) if types is not None else None
        return e, "int" if -(2**31) <= e < 2**31 else "long"
    if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name == "offsetof":
        known = types.sizes.get(id(node)) if types is not None else None  # (the checker's: ``CallChecks.offsetof``)
        return None if known is None else (known, "ulong")
    if isinstance(node, c_ast.UnaryOp):
        if node.op == "vec_step" or (node.op in ("sizeof", "_Alignof") and not isinstance(node.expr, c_ast.Typename)):
            known = types.sizes.get(id(node)) if types is not None else None
            return None if known is None else (known, "ulong")
        if node.op in ("sizeof", "_Alignof", "alignof"):
            resolver = types if types is not None else TypeResolver()
            ti = resolver.resolve(node.expr.type) if isinstance(node.expr, c_ast.Typename) else None
            if ti is not None and (ti.kind in ("struct", "array", "pointer") or node.op != "sizeof"):
                from wia_sim.kernels.structs import size_align  # structs.py builds on this module

                try:
                    return size_align(ti, resolver)[0 if node.op == "sizeof" else 1], "ulong"
                except ValueError:
                    return None
            return (ti.element_size, "ulong") if ti is not None and ti.element_size is not None else None
        inner = _folded(node.expr, enumerators, types)
        if inner is None:
            return None
        v, t = inner
        if node.op == "!":
            return int(v == 0), "int"
        if node.op not in ("-", "+", "~"):
            return None
        return wrap({"-": -v, "+": v, "~": ~v}[node.op], lookup(t)), t
    if isinstance(node, c_ast.Cast):
        inner = _folded(node.expr, enumerators, types)
        target = (types if types is not None else TypeResolver()).resolve(node.to_type)
        if inner is None or target.kind != "scalar" or target.name not in _INTEGER_SCALARS:
            return inner
        return wrap(inner[0], lookup(target.name)), _promoted(target.name)  # (uchar)300 is 44
    if isinstance(node, c_ast.TernaryOp):
        cond = _folded(node.cond, enumerators, types)
        yes = _folded(node.iftrue, enumerators, types)
        no = _folded(node.iffalse, enumerators, types)
        if cond is None or yes is None or no is None:
            return None
        both = _common(yes[1], no[1])
        return wrap((yes if cond[0] else no)[0], lookup(both)), both
    if isinstance(node, c_ast.BinaryOp):
        left = _folded(node.left, enumerators, types)
        right = _folded(node.right, enumerators, types)
        if left is None or right is None:
            return None
        return _binary(node.op, left, right)
    return None


def _binary(op: str, a: tuple[int, str], b: tuple[int, str]) -> tuple[int, str] | None:
    """``a op b`` of folded operands, in the type the usual arithmetic conversions give (shifts: the left's)."""
    if op in ("&&", "||"):
        return int(bool(a[0]) and bool(b[0]) if op == "&&" else bool(a[0]) or bool(b[0])), "int"
    if op in ("<<", ">>"):
        t = a[1]
        if not 0 <= b[0] < _RANKS[t]:
            return None  # (undefined: a shift by the width or more, or by a negative count)
        return wrap(a[0] << b[0] if op == "<<" else a[0] >> b[0], lookup(t)), t
    t = _common(a[1], b[1])
    x, y = wrap(a[0], lookup(t)), wrap(b[0], lookup(t))
    if op in ("<", "<=", ">", ">=", "==", "!="):
        return int({"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y, "==": x == y, "!=": x != y}[op]), "int"
    if op in ("/", "%"):
        if y == 0:
            return None
        q = _c_div(x, y)
        return wrap(q if op == "/" else x - y * q, lookup(t)), t
    table = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y}
    r = table.get(op)
    return None if r is None else (wrap(r, lookup(t)), t)


def ext_vector_width(node: c_ast.Node) -> int | None:
    """N of Clang's ``__attribute__((ext_vector_type(N)))`` on a declarator (pycparserext's ``TypeDeclExt``
    keeps a typedef's attributes), or None; the width as written (one past 2, 3, 4, 8 and 16, which Clang takes,
    is NOT_SUPPORTED by the executor at launch)."""
    return _attribute_argument(node, "ext_vector_type")


def vector_bytes(node: c_ast.Node) -> int | None:
    """N of GCC's ``__attribute__((vector_size(N)))`` on a declarator, or None: a vector of N bytes of the
    declarator's scalar type, which Clang takes in OpenCL C as an OpenCL vector of as many components."""
    return _attribute_argument(node, "vector_size")


def _attribute_argument(node: c_ast.Node, name: str) -> int | None:
    attributes = getattr(node, "attributes", None)
    for e in attributes.exprs if isinstance(attributes, c_ast.ExprList) else ():
        if (
            isinstance(e, c_ast.FuncCall)
            and isinstance(e.name, c_ast.ID)
            and e.name.name.strip("_") == name
            and e.args is not None
            and len(e.args.exprs) == 1
        ):
            return const_int(e.args.exprs[0], {})
    return None


def makes_vector(node: c_ast.Node) -> bool:
    """Whether a typedef's declarator makes a vector type (Clang's ``ext_vector_type``, GCC's ``vector_size``)."""
    return ext_vector_width(node) is not None or vector_bytes(node) is not None


class TypeResolver:
    """Type nodes to ``TypeInfo``, knowing the program's typedefs and struct/union definitions."""

    def __init__(self) -> None:
        self.typedefs: dict[str, TypeInfo] = {}
        self.aliases: dict[str, str] = {}  # a typedef of one type name (``typedef size_t sz;``): that name
        self.vector_typedefs: set[str] = set()  # typedefs that make a vector type (``ext_vector_type``), not alias one
        self.spaced_typedefs: dict[str, str] = {}
        """The address space a typedef's type was given (``typedef __global int GI;``: "__global"), as written: one
        written beside the typedef's name is a second (``__local GI* p``), which only an explicit one makes."""
        self.bound: dict[int, tuple[str, TypeInfo]] = {}
        """The typedef each use of a typedef name stood for where the checker met it, by the id of its
        ``IdentifierType``: a typedef inside a function holds in its block only (``Checker.local_typedef``), and a
        use resolved later (by the executor) must find that one, not one of the same name elsewhere."""
        self.structs: dict[str, c_ast.Node] = {}  # "struct S" -> the Struct/Union node with its members
        self._fields: dict[tuple[str, int], list[tuple[str, TypeInfo]]] = {}  # (``fields``, by tag and node)
        self.enumerators: dict[str, int] = {}
        self.enum_types: dict[str | int, str] = {}  # an enum's type (``enum_underlying``), by tag or id of its node
        self._anonymous: dict[int, str] = {}  # id(node) -> tag of an anonymous struct/union
        self.sizes: dict[int, int] = {}  # sizeof (_Alignof) of expressions, by the node's id (``Program.sizes``)
        self.packing: tuple[tuple[int, int], ...] = ()  # ``#pragma pack`` (``PreprocessResult.packing``)
        self.typeofs: dict[int, TypeInfo] = {}
        """The type each ``__typeof__`` stands for, by the id of its node: found where the checker met it (an
        expression's in its scope, ``typeof_operand``) and looked up here by whoever resolves it later."""
        self.typeof_spaced: set[int] = set()
        """The ``__typeof__`` nodes whose type has an address space of its own (an object's: Clang spells no
        other before it)."""
        self.typeof_operand: Callable[[c_ast.Node], tuple[TypeInfo, bool]] | None = None
        """The checker's type of an expression never evaluated, in the scope being checked, and whether it
        designates an object (its type keeps its qualifiers and address space; a value's has neither)."""
        self.named: dict[int, tuple[int, str]] = {}
        """The value and promoted type of each use of a ``const`` integer variable initialized with a constant, by
        the id of its identifier: Clang folds ``const int N = 4; float buf[N];`` to a fixed-size array (a C
        variable-length array otherwise), as real-world kernels use it."""

    def alias_chain(self, name: str) -> list[str]:
        """``name`` and the type names the typedefs it goes through alias (``sz``, ``size_t``)."""
        chain = [name]
        while chain[-1] in self.aliases and self.aliases[chain[-1]] not in chain:
            chain.append(self.aliases[chain[-1]])
        return chain

    def resolve(self, node: c_ast.Node | None) -> TypeInfo:
        if isinstance(node, c_ast.TypeDecl):
            base = self._base(node.type)
            width = ext_vector_width(node)
            nbytes, size = vector_bytes(node), SCALAR_SIZES.get(base.name)
            if width is None and nbytes is not None and size and nbytes % size == 0 and nbytes // size in (2, 4, 8, 16):
                width = nbytes // size  # (GCC's vector of bytes: its components, a power of two as GCC's rule)
            if width is not None and base.kind == "scalar":  # Clang's vector typedef, as opencl-c.h makes them
                base = TypeInfo("vector", base.name, width)
            return self._qualified(base, node.quals)
        if isinstance(node, c_ast.PtrDecl):
            target = self.resolve(node.type)
            return self._qualified(TypeInfo("pointer", target=target), node.quals)
        if isinstance(node, c_ast.ArrayDecl):
            element = self.resolve(node.type)
            length = const_int(node.dim, self.enumerators, self) if node.dim is not None else None
            return TypeInfo("array", target=element, space=element.space, const=element.const, length=length)
        if isinstance(node, c_ast.FuncDecl | FuncDeclExt):
            return TypeInfo("function", target=self.resolve(node.type))
        if isinstance(node, c_ast.Typename | c_ast.Decl | c_ast.Typedef):
            return self.resolve(node.type)
        return self._base(node)

    def _base(self, node: c_ast.Node | None) -> TypeInfo:
        if isinstance(node, c_ast.IdentifierType):
            names = list(node.names)
            if len(names) == 1:
                bound = self.bound.get(id(node))
                if bound is not None and bound[0] == names[0]:
                    return bound[1]
                if names[0] in self.typedefs:
                    t = self.typedefs[names[0]]
                    self.bound[id(node)] = (names[0], t)
                    return t
                named = named_type(names[0])
                if named is not None:
                    return named
            keyword = _keyword_type(names)
            return keyword if keyword is not None else UNKNOWN
        if isinstance(node, c_ast.Struct | c_ast.Union):
            word = "struct" if isinstance(node, c_ast.Struct) else "union"
            if node.name is None:
                if node.decls is None:
                    return UNKNOWN
                tag = self._anonymous.setdefault(id(node), f"{word} <anonymous#{len(self._anonymous) + 1}>")
            else:
                tag = f"{word} {node.name}"
            if node.decls is not None:
                self.structs.setdefault(tag, node)
            return TypeInfo("struct", tag)
        if isinstance(node, c_ast.Enum):  # (one not defined yet, or unknown: int)
            return TypeInfo("scalar", self.enum_types.get(node.name if node.name else id(node), "int"))
        if isinstance(node, TypeOfExpression | TypeOfDeclaration):
            return self._typeof(node)
        return UNKNOWN

    def _typeof(self, node: TypeOfExpression | TypeOfDeclaration) -> TypeInfo:
        """GNU's ``__typeof__``: the type named, or the expression's type, unconverted (an array stays one, its
        qualifiers and address space stay), the expression not evaluated."""
        found = self.typeofs.get(id(node))
        if found is None:
            if isinstance(node, TypeOfDeclaration):
                found = self.resolve(node.declaration)
                declared = node.declaration.type
                spaced = isinstance(declared, c_ast.TypeDecl | c_ast.PtrDecl) and bool(SPACES.keys() & declared.quals)
            elif self.typeof_operand is not None:
                found, spaced = self.typeof_operand(node.expr)
            else:  # (no checker: nothing to find it in)
                return UNKNOWN
            self.typeofs[id(node)] = found
            if spaced:
                self.typeof_spaced.add(id(node))
        return found

    @staticmethod
    def _qualified(t: TypeInfo, quals: Sequence[str]) -> TypeInfo:
        space = t.space
        const = t.const
        spaces = [SPACES[q] for q in quals if q in SPACES]
        if spaces:  # (two: Clang's error, which keeps the first)
            space = spaces[0]
        for q in quals:
            if q == "const":
                const = True
        implied = space == "constant" and not const
        return TypeInfo(t.kind, t.name, t.width, t.target, space, const or implied, t.length, implied=implied)

    def pack(self, tag: str) -> int:
        """The ``#pragma pack`` alignment in effect where ``tag`` is defined (0: none)."""
        node = self.structs.get(tag)
        line = node.coord.line if node is not None and node.coord is not None else 0
        value = 0
        for start, pack in self.packing:
            if start > line:
                break
            value = pack
        return value

    def fields(self, tag: str) -> list[tuple[str, TypeInfo]]:
        """The members of ``tag`` in order; an anonymous struct or union member (C11 6.7.2.1p13, which Clang takes
        in OpenCL C) has the name None."""
        node = self.structs.get(tag)
        if node is None or node.decls is None:
            return []
        key = (tag, id(node))  # (worked out once: every member access asks, and Mandelbulber's structs of 590
        found = self._fields.get(key)  # members took a 30,000-line build 30 s resolving them again each time)
        if found is None:
            found = [(d.name, self.resolve(d.type)) for d in node.decls if isinstance(d, c_ast.Decl)]
            self._fields[key] = found
        return found

    def find_member(self, tag: str, name: str) -> TypeInfo | None:
        """The type of ``tag``'s member ``name``, also one of an anonymous struct or union member's (None: none)."""
        for field_name, t in self.fields(tag):
            if field_name == name:
                return t
            if field_name is None and t.kind == "struct":
                found = self.find_member(t.name, name)
                if found is not None:
                    return found
        return None
