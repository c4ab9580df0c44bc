"""Types spelled as Clang's diagnostics spell them, from the declaration that wrote them.

Clang names a type in an error as the source wrote it, with its qualifiers and address space, and then what it is
when that differs: ``'const __private uint' (aka 'const __private unsigned int')``, ``'__global int *const
__private'``, ``'const __private float4' (vector of 4 'float' values)``. Measured on PoCL 3.1 and Oclgrind 21.10
(the same words): the address space follows ``const``; a pointer's own qualifiers and space follow its ``*``; an
unqualified pointee is ``__private`` (OpenCL C 1.2 6.5); a variable's array keeps the implicit ``__private`` before
``const`` once it has two dimensions (``'__private const int[2][3]'``, but ``'const __local int[2][2]'``); a vector
type name (``float4``, a typedef with ``ext_vector_type``) is followed by what it is, a typedef of anything else by
its ``aka``, down to the built-in types (an alias of a vector type down to the vector's name).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from pycparser import c_ast
from pycparserext.ext_c_generator import OpenCLCGenerator
from pycparserext.ext_c_parser import TypeOfDeclaration, TypeOfExpression

from wia_sim.kernels.specifiers import SPECIFIER_WORDS, read
from wia_sim.kernels.types import SPACES, AddressSpace, TypeInfo, TypeResolver, named_type

__all__ = ["C_NAMES", "clang_type", "described"]

C_NAMES = {
    "uchar": "unsigned char",
    "ushort": "unsigned short",
    "uint": "unsigned int",
    "ulong": "unsigned long",
    "size_t": "unsigned long",
    "uintptr_t": "unsigned long",
    "ptrdiff_t": "long",
    "intptr_t": "long",
}
"""OpenCL C's built-in typedefs of integer types, as Clang desugars them (64-bit devices: ``size_t`` is a long)."""

_GENERATOR = OpenCLCGenerator()


def clang_type(
    node: c_ast.Node,
    t: TypeInfo,
    types: TypeResolver,
    spelled: Callable[[str], str],
    space: AddressSpace | None,
    decayed: bool = False,
) -> str:
    """The type of the declaration type node ``node`` (resolved: ``t``), quoted, as Clang's diagnostics give it;
    ``space``: where the declared object lives (None: a struct member, which has no address space of its own);
    ``spelled`` names a struct type as the source does (``CheckerState.spelled``); ``decayed``: an array's value,
    a pointer to its first element."""
    if decayed and isinstance(node, c_ast.ArrayDecl) and t.target is not None:
        element, target = node.type, t.target
        written = _spell(element, target, types, spelled, space, desugar=False) + " *"
        plain = _spell(element, target, types, spelled, space, desugar=True) + " *"
        return f"'{written}'" if plain == written else f"'{written}' (aka '{plain}')"
    written = _spell(node, t, types, spelled, space, desugar=False)
    shown = f"'{written}'"
    inner = _declared(node)
    if isinstance(inner, c_ast.TypeDecl) and node is inner:
        name = _names(inner)
        vector = len(name) == 1 and (named_type(name[0]) is not None or name[0] in types.vector_typedefs)
        if t.kind == "vector" and vector:  # float4, or a typedef with ext_vector_type: what it is
            return f"{shown} (vector of {t.width} '{t.name}' values)"
    plain = _spell(node, t, types, spelled, space, desugar=True)
    return shown if plain == written else f"{shown} (aka '{plain}')"


def _declared(node: c_ast.Node) -> c_ast.Node:
    """The innermost type node of a declarator (below its pointers and arrays)."""
    while isinstance(node, c_ast.PtrDecl | c_ast.ArrayDecl):
        node = node.type
    return node


def _names(node: c_ast.TypeDecl) -> list[str]:
    return list(node.type.names) if isinstance(node.type, c_ast.IdentifierType) else []


def _quals(quals: list[str], space: AddressSpace | None) -> tuple[bool, AddressSpace | None, bool]:
    """Whether ``quals`` hold ``const``, the address space they name (else ``space``), and whether they name one."""
    named = next((SPACES[q] for q in quals if q in SPACES), None)
    return "const" in quals, named if named is not None else space, named is not None


_ALSO = ("volatile", "restrict")
"""The qualifiers Clang writes after ``const`` and before the address space, in its order."""


def _also(quals: list[str]) -> list[str]:
    """``volatile`` and ``restrict`` where ``quals`` hold them (``__volatile__``, ``__restrict`` alike)."""
    held = {q.strip("_") for q in quals}
    return [q for q in _ALSO if q in held]


def _spell(
    node: c_ast.Node,
    t: TypeInfo,
    types: TypeResolver,
    spelled: Callable[[str], str],
    space: AddressSpace | None,
    desugar: bool,
) -> str:
    if isinstance(node, c_ast.ArrayDecl):
        dims: list[str] = []
        while isinstance(node, c_ast.ArrayDecl):
            dims.append("" if t.length is None else str(t.length))
            node = node.type
            t = t.target if t.target is not None else t
        element = _spell(node, t, types, spelled, space, desugar)
        if isinstance(node, c_ast.TypeDecl) and len(dims) > 1 and space == "private":
            const, named, explicit = _quals(node.quals, space)
            if const and not explicit:  # Clang's order for a variable's array of arrays
                element = f"__private const {_base(node, t, types, spelled, desugar)}"
        return element + "".join(f"[{d}]" for d in dims)
    if isinstance(node, c_ast.PtrDecl):
        target = t.target if t.target is not None else t
        pointee = _spell(node.type, target, types, spelled, "private", desugar)
        const, named, _ = _quals(node.quals, space)
        own = (["const"] if const else []) + _also(node.quals) + ([f"__{named}"] if named is not None else [])
        return f"{pointee} *{' '.join(own)}"
    if isinstance(node, c_ast.TypeDecl) and isinstance(node.type, TypeOfExpression | TypeOfDeclaration):
        return _typeof(node, t, types, spelled, space, desugar)
    if isinstance(node, c_ast.TypeDecl):
        const, named, _ = _quals(node.quals, space)
        words = (["const"] if const or (desugar and _typedef_const(node, types)) else []) + _also(node.quals)
        words += [f"__{named}"] if named is not None else []
        return " ".join([*words, _base(node, t, types, spelled, desugar)])
    return str(t)


def _typeof(
    node: c_ast.TypeDecl,
    t: TypeInfo,
    types: TypeResolver,
    spelled: Callable[[str], str],
    space: AddressSpace | None,
    desugar: bool,
) -> str:
    """A ``__typeof__``'s type: as Clang writes it, ``typeof (c)`` (an address space before it only where the type
    it names has none: ``c``'s is its own), or what it names, with its qualifiers and address space."""
    named = types.resolve(node.type)
    const, own, explicit = _quals(node.quals, space)
    spaced = id(node.type) in types.typeof_spaced
    if desugar:
        where = own if explicit or not spaced else named.space
        words = (["const"] if const or named.const else []) + ([f"__{where}"] if where is not None else [])
        return " ".join([*words, _canonical(t, spelled)])
    inner = node.type
    words = (["const"] if const else []) + ([f"__{own}"] if own is not None and (explicit or not spaced) else [])
    if isinstance(inner, TypeOfDeclaration):  # (Clang's spacing: ``typeof(const int)``, ``typeof (c)``)
        return " ".join([*words, f"typeof({_GENERATOR.visit(inner.declaration)})"])
    return " ".join([*words, f"typeof ({_GENERATOR.visit(inner.expr)})"])


def _typedef_const(node: c_ast.TypeDecl, types: TypeResolver) -> bool:
    """Whether the typedef ``node`` names carries ``const`` of its own (shown once desugared)."""
    name = _names(node)
    return len(name) == 1 and name[0] in types.typedefs and types.typedefs[name[0]].const


def _base(node: c_ast.TypeDecl, t: TypeInfo, types: TypeResolver, spelled: Callable[[str], str], desugar: bool) -> str:
    """The type name of ``node`` without qualifiers: as written, or (``desugar``) what a typedef stands for."""
    inner = node.type
    if isinstance(inner, c_ast.Struct | c_ast.Union) and inner.name:
        return f"{'struct' if isinstance(inner, c_ast.Struct) else 'union'} {inner.name}"
    if isinstance(inner, c_ast.Enum) and inner.name:
        return f"enum {inner.name}"
    names = _names(node)
    if len(names) == 1 and names[0] not in SPECIFIER_WORDS and (names[0] in types.typedefs or named_type(names[0])):
        if not desugar:
            return names[0]
        return _canonical(t, spelled)
    if names:
        return _keywords(names)
    return _canonical(t, spelled)


def _canonical(t: TypeInfo, spelled: Callable[[str], str]) -> str:
    """What a typedef stands for, as Clang desugars it: a built-in integer type in C's words, a vector by its
    OpenCL name (Clang stops there), a struct by its tag (or, without one, the typedef that names it)."""
    if t.kind == "vector":
        return t.type_name
    if t.kind == "struct":
        return spelled(t.name)
    if t.kind == "pointer" and t.target is not None:  # what it points to, in its space (``__private`` too)
        return f"{_pointee(t.target, spelled, True)} *"
    return C_NAMES.get(t.name, t.name or str(t))


def _keywords(names: list[str]) -> str:
    """A type written in keywords (``int unsigned``, ``long int``, ``signed char``) as Clang names it."""
    spec = read(names)
    if spec.type == "char" and spec.width is None:
        return {"unsigned": "unsigned char", "signed": "signed char"}.get(spec.sign or "", "char")
    if spec.type not in (None, "int"):
        return " ".join(names)
    base = {None: "int", "short": "short", "long": "long", "long long": "long long"}.get(spec.width, "int")
    return f"unsigned {base}" if spec.sign == "unsigned" else base


def described(t: TypeInfo, spelled: Callable[[str], str]) -> str:
    """The type of a value no declaration spells (``*p``, a member, ``&x``, ``p + 1``), quoted, from what it is:
    its qualifiers and address space, then its name (a vector's followed by what it is); a pointer, what it points
    to (in its address space, ``__private`` too) and ``*``; an OpenCL name of a C type with its ``aka``."""
    if t.kind == "array":
        element = t.target
        if element is None or element.kind in ("array", "pointer") or element.space == "default":
            return f"'{t}'"
        # an array an object holds (a member): its address space before its element, no const the space implies,
        # an element's own const twice, as Clang prints the qualifiers it moved from the elements to the array
        length = "" if t.length is None else t.length
        head = f"const __{element.space} const" if element.own_const else f"__{element.space}"
        bare = replace(element, space="default", const=False, implied=False)
        return f"'{head} {_pointee(bare, spelled, False)}[{length}]'"
    target = t.target if t.kind == "pointer" else None  # (a pointer value: of no address space of its own)
    written, plain = (_pointee(target or t, spelled, d) + (" *" if target else "") for d in (False, True))
    if t.kind == "vector":
        return f"'{written}' (vector of {t.width} '{t.name}' values)"
    return f"'{written}'" if plain == written else f"'{written}' (aka '{plain}')"


def _pointee(t: TypeInfo, spelled: Callable[[str], str], desugar: bool) -> str:
    """``t`` spelled from what it is, unquoted: qualifiers, address space (none for "default"), name (``desugar``:
    a C type's words for an OpenCL name); a pointer, what it points to (in its space, ``__private`` too) and ``*``."""
    if t.kind == "pointer" and t.target is not None:
        own = (["const"] if t.const else []) + [f"__{t.space}"]
        return f"{_pointee(t.target, spelled, desugar)} *{' '.join(own)}"
    words = (["const"] if t.own_const else []) + ([f"__{t.space}"] if t.space != "default" else [])
    name = spelled(t.name) if t.kind == "struct" else t.written or str(t)
    return " ".join([*words, C_NAMES.get(name, name) if desugar else name])
