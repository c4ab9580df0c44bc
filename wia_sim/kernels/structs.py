"""Structs and unions: their memory layout by OpenCL C's rules, and their type for the executor.

A struct's storage is bytes, laid out as on a device (C's rules, OpenCL C 1.2 6.1.5: a vector is aligned to its
size, a 3-component vector takes the size and alignment of 4, a pointer 8 bytes), little-endian, so that a buffer
the host writes as a NumPy structured array (``align=True``) reads right. ``__attribute__((packed))`` and
``__attribute__((aligned(N)))`` after the ``struct``/``union`` keyword or after the closing brace
(``hoisted_attributes`` moves those to the keyword) are honoured, and on a member (before its type or after its
declarator) as GCC and Clang lay them out.

The executor keeps every struct in memory (a region's bytes) and reads members through pointers to them; a struct
value (a whole struct read, a function's result) is a ``Value`` of a ``StructType`` holding the bytes, one row per
lane.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np
from pycparser import c_ast
from pycparserext.ext_c_parser import AttributeSpecifier

from wia_sim.kernels.ctype import CType
from wia_sim.kernels.tokens import blanked
from wia_sim.kernels.types import SCALAR_SIZES, TypeInfo, TypeResolver, const_int

__all__ = [
    "Member",
    "StructType",
    "check_struct",
    "hoisted_attributes",
    "is_struct",
    "layout",
    "member_alignment",
    "size_align",
]


@dataclass(frozen=True)
class Member:
    """A member: its name, byte offset, declared type and, for array members, the array's dimensions."""

    name: str | None  # None: an anonymous struct or union member
    offset: int
    type: TypeInfo
    dims: tuple[int, ...] = ()
    align: int = 1  # its alignment in the struct (``packed``, ``aligned(N)`` and ``#pragma pack`` applied)


@dataclass(frozen=True)
class StructType(CType):
    """A struct or union as the executor's value type: ``dtype`` is a void type of the struct's size, so that
    ``elem_bytes`` and pointer arithmetic see its size; ``members`` in declaration order (offset 0 for every
    member of a union). Two StructTypes are the same type when their tags (``name``) are."""

    members: tuple[Member, ...] = field(default=(), compare=False)
    align: int = field(default=1, compare=False)
    union: bool = field(default=False, compare=False)

    @property
    def size(self) -> int:
        return int(self.dtype.itemsize)

    indirect: tuple[Member, ...] = field(default=(), compare=False)
    """The members of anonymous struct and union members (C11 6.7.2.1p13), at their offsets in this struct."""
    granule: int = field(default=1, compare=False)
    """The largest size that divides the struct's size and every scalar's offset and size in it (at any depth): the
    race tracker's granule for memory of this struct (a member's access covers whole granules)."""

    def member(self, name: str) -> Member | None:
        for m in (*self.members, *self.indirect):
            if m.name == name:
                return m
        return None


def is_struct(t: CType | None) -> bool:
    return isinstance(t, StructType)


def _attributes(node: c_ast.Node) -> tuple[bool, int]:
    """``packed`` and the ``aligned(N)`` alignment (1 when absent) of a struct node's ``__attribute__``."""
    attrib = getattr(node, "attrib", None)
    if isinstance(attrib, AttributeSpecifier) and attrib.exprlist is not None:
        return _packed_aligned(attrib.exprlist.exprs)
    return False, 1


def member_attributes(decl: c_ast.Decl) -> list[c_ast.Node]:
    """The ``__attribute__`` expressions of a struct member: before its type (``__attribute__((aligned(8))) int
    x;``) or after its declarator (``int x __attribute__((packed));``, also after an array's or a pointer's)."""
    exprs: list[c_ast.Node] = []
    for spec in decl.funcspec or []:
        if isinstance(spec, AttributeSpecifier) and spec.exprlist is not None:
            exprs.extend(spec.exprlist.exprs)
    t = decl.type
    while t is not None:
        attrs = getattr(t, "attributes", None)
        if isinstance(attrs, c_ast.ExprList):
            exprs.extend(attrs.exprs)
        t = getattr(t, "type", None)
    return exprs


def unsupported_member_attribute(decl: c_ast.Decl) -> str | None:
    """The name of an attribute of a struct member other than ``packed`` and ``aligned`` (None: none)."""
    for e in member_attributes(decl):
        name = e.name.name if isinstance(e, c_ast.FuncCall) and isinstance(e.name, c_ast.ID) else None
        name = e.name if isinstance(e, c_ast.ID) else name
        if name not in ("packed", "__packed__", "aligned", "__aligned__"):
            return name or "?"
    return None


def _packed_aligned(exprs: list[c_ast.Node]) -> tuple[bool, int]:
    """``packed`` and the ``aligned(N)`` alignment (1 when absent) among ``__attribute__`` expressions."""
    packed, aligned = False, 1
    if exprs:
        for e in exprs:
            if isinstance(e, c_ast.ID) and e.name in ("packed", "__packed__"):
                packed = True
            elif (
                isinstance(e, c_ast.FuncCall)
                and isinstance(e.name, c_ast.ID)
                and e.name.name in ("aligned", "__aligned__")
            ):
                args = e.args.exprs if e.args is not None else []
                value = const_int(args[0], {}) if args else 16
                aligned = max(aligned, value or 1)
            elif isinstance(e, c_ast.ID) and e.name in ("aligned", "__aligned__"):
                aligned = max(aligned, 128)  # the largest alignment of any type (OpenCL: long16, 128 bytes)
    return packed, aligned


def size_align(t: TypeInfo, types: TypeResolver, _cache: dict[str, StructType] | None = None) -> tuple[int, int]:
    """Bytes and alignment of an object of type ``t`` (ValueError for a type without a size: void, incomplete)."""
    if t.kind in ("scalar", "vector") and t.name in SCALAR_SIZES:
        size = SCALAR_SIZES[t.name] * (4 if t.width == 3 else t.width)
        return size, size
    if t.kind in ("pointer", "opaque"):  # (an event, an image, a sampler: 8 bytes on PoCL 3.1 and Oclgrind 21.10, a
        return 8, 8  # handle; an event the executor's ulong, ``exec_setup.ctype_of``)
    if t.kind == "array" and t.target is not None:
        if t.length is None:
            raise ValueError(f"array '{t}' has no size")
        size, align = size_align(t.target, types, _cache)
        return size * t.length, align
    if t.kind == "struct":
        s = layout(t.name, types, _cache)
        return s.size, s.align
    raise ValueError(f"type '{t}' has no size")


def layout(tag: str, types: TypeResolver, _cache: dict[str, StructType] | None = None) -> StructType:
    """The layout of ``struct S``/``union U`` (``tag`` as in ``TypeInfo.name``); ValueError if it is incomplete."""
    cache = _cache if _cache is not None else _layouts(types)
    found = cache.get(tag)
    if found is not None:
        return found
    node = types.structs.get(tag)
    if node is None or node.decls is None:
        raise ValueError(f"'{tag}' is an incomplete type (declared but not defined)")
    union = tag.startswith("union")
    packed, aligned = _attributes(node)
    pack = types.pack(tag)
    members: list[Member] = []
    indirect: list[Member] = []
    granule = 0
    offset = 0
    size = 0
    align = 1
    decls = [d for d in node.decls if isinstance(d, c_ast.Decl)]
    for (name, mt), decl in zip(types.fields(tag), decls, strict=True):  # (name None: anonymous)
        if mt.kind == "array" and mt.length is None and mt.target is not None:  # a flexible array member (C99
            msize, malign = 0, size_align(mt.target, types, cache)[1]  # 6.7.2.1p16, the last: the checker's)
        else:
            msize, malign = size_align(mt, types, cache)
        # GCC's rules (which Clang follows): packed (the struct's or the member's) drops the member's alignment
        # to 1; aligned(N) on a member raises it to N, packed or not
        mpacked, maligned = _packed_aligned(member_attributes(decl))
        if packed or mpacked:
            malign = 1
        malign = max(malign, maligned)
        if pack:  # ``#pragma pack(N)`` caps it, whatever raised it (Clang: "overrides the aligned attribute")
            malign = min(malign, pack)
        start = 0 if union else -(-offset // malign) * malign
        dims: list[int] = []
        inner = mt
        while inner.kind == "array" and inner.target is not None:
            dims.append(inner.length or 0)
            inner = inner.target
        members.append(Member(name, start, mt, tuple(dims), malign))
        granule = math.gcd(granule, start, _granule(inner, types, cache))
        if name is None and mt.kind == "struct":  # an anonymous member: its members are this struct's
            inner_layout = layout(mt.name, types, cache)
            for m in (*inner_layout.members, *inner_layout.indirect):
                if m.name is not None:
                    indirect.append(Member(m.name, start + m.offset, m.type, m.dims, min(m.align, malign)))
        offset = start + msize
        size = max(size, offset)
        align = max(align, malign)
    align = max(align, aligned)
    size = -(-size // align) * align
    granule = math.gcd(granule, size) or 1
    st = StructType(tag, np.dtype(f"V{size}"), "struct", 99, 1, tuple(members), align, union, tuple(indirect), granule)
    cache[tag] = st
    return st


def member_alignment(st: StructType, name: str) -> int | None:
    """``__alignof__`` of the member ``name`` of ``st`` as Clang gives it: its own alignment, no more than what its
    offset and the struct's alignment guarantee (a member of a packed struct: 1); None if there is no such member."""
    m = st.member(name)
    if m is None:
        return None
    align = min(m.align, st.align)
    return min(align, m.offset & -m.offset) if m.offset else align


def _granule(t: TypeInfo, types: TypeResolver, cache: dict[str, StructType]) -> int:
    """The size of the scalars of a member of type ``t`` (an array's element's; a struct's granule)."""
    if t.kind == "struct":
        return layout(t.name, types, cache).granule
    if t.kind == "pointer":
        return 8
    return SCALAR_SIZES.get(t.name, 1) if t.kind in ("scalar", "vector") else 1


def _layouts(types: TypeResolver) -> dict[str, StructType]:
    """One cache of layouts per resolver (a program's structs do not change after its compile)."""
    cache = getattr(types, "_struct_layouts", None)
    if cache is None:
        cache = {}
        types._struct_layouts = cache  # type: ignore[attr-defined]
    return cache


def check_struct(t: TypeInfo, types: TypeResolver, by_value: bool = False) -> str | None:
    """What keeps the struct ``t`` from being used as an object (None: nothing): an incomplete type and, for a
    kernel argument passed ``by_value``, a ``bool`` member (OpenCL C 1.2 6.9 k: its size is not portable; behind a
    pointer Clang takes it, the device lays the buffer out) or a pointer member (the host has no device addresses
    to give it; Clang refuses it too)."""
    if t.name not in types.structs:
        return f"'{t.name}' is an incomplete type (declared but not defined)"
    for d in types.structs[t.name].decls or []:
        bad = unsupported_member_attribute(d) if isinstance(d, c_ast.Decl) else None
        if bad is not None:
            return (
                f"attribute '{bad}' on struct member '{d.name}' of '{t.name}' is not supported (expected packed or "
                "aligned(N))"
            )
    for name, mt in types.fields(t.name):
        inner = mt.innermost
        if inner.kind == "pointer" and by_value:  # Clang: "struct kernel parameters may not contain pointers"
            return f"a struct kernel argument cannot hold a pointer (member '{name}' of '{t.name}')"
        if inner.kind == "pointer":
            continue
        if inner.kind == "struct":
            problem = check_struct(inner, types, by_value)
            if problem:
                return problem
        elif by_value and inner.name == "bool":
            return f"a struct kernel argument cannot have a bool member ('{name}' of '{t.name}')"
        elif inner.kind not in ("scalar", "vector"):
            return f"member '{name}' of '{t.name}' has the unsupported type '{mt}'"
    return None


_TRAILING_ATTRIBUTE = re.compile(r"}(\s*)(__attribute__\s*\(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)\))")


def hoisted_attributes(text: str) -> str:
    """``text`` with each ``__attribute__((...))`` that follows the closing brace of a struct or union definition
    (``typedef struct {...} __attribute__((aligned(16))) S;``, pyopencl's ``union { struct {...}
    __attribute__((aligned(8))); ... }``) moved to just after its ``struct``/``union`` keyword, where the parser
    keeps it (GCC and Clang take both places). The attribute's old place turns blank, so lines and the columns
    after the keyword's line stay where they were. After a function's body an attribute begins the next
    declaration (``__attribute__((always_inline)) float f``) and stays."""
    moves: list[tuple[int, int, int, str]] = []  # (keyword end, attribute start, attribute end, attribute)
    for m in _TRAILING_ATTRIBUTE.finditer(text):
        keyword = _opening_keyword(text, m.start())
        if keyword is not None:
            moves.append((keyword, m.start(2), m.end(2), " ".join(m.group(2).split())))
    for keyword, start, end, attribute in reversed(moves):  # from the end: earlier positions stay valid
        blank = blanked(text[start:end])
        text = text[:start] + blank + text[end:]
        text = text[:keyword] + " " + attribute + text[keyword:]
    return text


_RECORD_KEYWORD = re.compile(r"\b(struct|union)\b")
_ATTRIBUTE = re.compile(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)")


def _opening_keyword(text: str, close: int) -> int | None:
    """Where the ``struct``/``union`` keyword of the definition the ``}`` at ``close`` ends stops, or None when that
    brace ends something else: the text between its ``{`` and the end of what came before (a ``;``, ``{`` or ``}``)
    names the keyword and does not end in ``)`` (a function's body)."""
    depth = 0
    k = close
    while k >= 0:
        if text[k] == "}":
            depth += 1
        elif text[k] == "{":
            depth -= 1
            if depth == 0:
                break
        k -= 1
    if k < 0:
        return None
    head_start = max(text.rfind(c, 0, k) for c in ";{}") + 1
    head = text[head_start:k]
    if _ATTRIBUTE.sub("", head).strip().endswith(")"):  # a function's body
        return None
    keywords = list(_RECORD_KEYWORD.finditer(head))
    return head_start + keywords[-1].end() if keywords else None
