"""The kernel language's front end: OpenCL C source to a checked, typed description the executor can rely on.

``compile_source`` preprocesses (``preprocess.py``), parses with pycparserext's ``OpenCLCParser`` and checks the
program. Everything the executor does not support is rejected here, by line, so that nothing is silently
mis-executed; the build log holds every problem found, one ``kernel.cl:12:5: error: ...`` line each.

What the executor gets (see ``Program``): the pycparser AST (``c_ast`` nodes; the OpenCL parser's own node
classes are ``FuncDeclExt`` for function types and ``AttributeSpecifier`` in ``Decl.funcspec``), each kernel's
parameters already classified (buffer, local, scalar), its ``__local`` variables with their sizes, the helper
functions, the program-scope ``__constant`` variables and enumerators, and a type resolver for declarations.

After a successful compile these hold in every function body:

* statements are only ``Compound``, ``Decl``, ``If``, ``For``, ``While``, ``DoWhile``, ``Break``, ``Continue``,
  ``Return``, ``EmptyStatement``, ``StaticAssert`` (already checked: skip it) and expression statements;
* expressions are only ``ID``, ``Constant``, ``UnaryOp``, ``BinaryOp``, ``TernaryOp``, ``Assignment``,
  ``FuncCall`` (the callee is always an ``ID``: a helper function or a built-in), ``ArrayRef``, ``StructRef``,
  ``Cast``, ``ExprList`` (a comma expression, or the components of a vector literal under a ``Cast``) and
  ``InitList`` (only as a declaration's initializer);
* every identifier is declared (a variable, a parameter, a program-scope ``__constant``, an enumerator, or a name
  in ``BUILTIN_CONSTANTS``), every call has the callee's number of arguments, no function is recursive, every
  array size is a constant, every vector swizzle is valid for its vector (see ``swizzle_indices``), and
  ``__local`` variables are declared only at a kernel's outermost scope, without initializers.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, cast

from pycparser import c_ast
from pycparser.c_parser import ParseError
from pycparserext.ext_c_parser import Asm, AttributeSpecifier, FuncDeclExt, OpenCLCParser

from wia_sim.kernels.ctype import CType, common_type, comparison_type, promoted
from wia_sim.kernels.ctype import lookup as ctype_lookup
from wia_sim.kernels.preprocess import Diagnostic, format_log, preprocess

__all__ = [
    "BUILTIN_CONSTANTS",
    "BUILTIN_FUNCTIONS",
    "SCALAR_SIZES",
    "FunctionInfo",
    "KernelCompileError",
    "KernelInfo",
    "KernelNotFound",
    "LocalVar",
    "Param",
    "Program",
    "TypeInfo",
    "builtin_arity",
    "compile_source",
    "is_builtin_function",
    "swizzle_indices",
]

AddressSpace = Literal["global", "local", "constant", "private"]
ParamKind = Literal["buffer", "scalar", "local", "pointer"]
TypeKind = Literal["scalar", "vector", "pointer", "array", "struct", "void", "opaque", "function", "unknown"]

# ---------------------------------------------------------------------------------------------------------------
# Types

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

_VECTOR_BASES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "half")
VECTOR_WIDTHS = (2, 3, 4, 8, 16)
_FLOATS = frozenset({"half", "float", "double"})
_UNSIGNED_OF = {"char": "uchar", "short": "ushort", "int": "uint", "long": "ulong"}

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
    "intmax_t": "long",
    "uintmax_t": "ulong",
    "cl_mem_fence_flags": "uint",
    **{
        f"{p}int{b}_t": ("u" if p else "") + {8: "char", 16: "short", 32: "int", 64: "long"}[b]
        for p in ("", "u")
        for b in (8, 16, 32, 64)
    },
}
_OPAQUE_TYPES = {
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
# names OpenCL forbids as kernel arguments (OpenCL C 1.2, 6.9 k)
_NOT_KERNEL_ARG_TYPES = frozenset({"bool", "_Bool", "size_t", "ptrdiff_t", "intptr_t", "uintptr_t"})
_VECTOR_RE = re.compile(r"(char|uchar|short|ushort|int|uint|long|ulong|float|double|half)(2|3|4|8|16)")

_SPACES: dict[str, AddressSpace] = {
    "__global": "global",
    "global": "global",
    "__local": "local",
    "local": "local",
    "__constant": "constant",
    "constant": "constant",
    "__private": "private",
    "private": "private",
}
_ACCESS_QUALIFIERS = frozenset({"read_only", "write_only", "read_write", "__read_only", "__write_only", "__read_write"})

_BUILTIN_FILE = "<builtins>"
_SOURCE_FILE = "<source>"
# type names the parser must know; those its OpenCLCParser does not predefine are typedef'd in a prelude
_PRELUDE_TYPES: dict[str, str] = {
    "cl_mem_fence_flags": "uint",
    **{f"{b}{w}": b for b in _VECTOR_BASES for w in VECTOR_WIDTHS},
    **{name: "int" for name in _OPAQUE_TYPES},
    **{name: "int" for name in ("uchar", "ushort", "uint", "ulong", "half", "bool", "size_t", "ptrdiff_t")},
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

    @property
    def type_name(self) -> str:
        """``float``, ``float4``, ``struct S``: the spelling without address space, const or pointers."""
        if self.kind == "vector":
            return f"{self.name}{self.width}"
        return self.name

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
        quals = ("const " if self.const else "") + (f"__{self.space} " if self.space != "private" else "")
        if self.kind == "pointer" and self.target is not None:
            return f"{self.target} *"
        if self.kind == "array" and self.target is not None:
            return f"{self.target}[{'' if self.length is None else self.length}]"
        return f"{quals}{self.type_name or self.kind}"


UNKNOWN = TypeInfo("unknown")
_VOID = TypeInfo("void", "void")
_INT = TypeInfo("scalar", "int")
_UINT = TypeInfo("scalar", "uint")
_ULONG = TypeInfo("scalar", "ulong")
_LONG = TypeInfo("scalar", "long")
_FLOAT = TypeInfo("scalar", "float")
_DOUBLE = TypeInfo("scalar", "double")


def _scalar_or_vector(name: str, width: int) -> TypeInfo:
    return TypeInfo("vector", name, width) if width > 1 else TypeInfo("scalar", name)


def _named_type(name: str) -> TypeInfo | None:
    """A built-in type name (one word) as a type; None if it is not one."""
    if name in _SCALAR_NAMES:
        canonical = _SCALAR_NAMES[name]
        return _VOID if canonical == "void" else TypeInfo("scalar", canonical)
    m = _VECTOR_RE.fullmatch(name)
    if m:
        return TypeInfo("vector", m.group(1), int(m.group(2)))
    if name in _OPAQUE_TYPES:
        return TypeInfo("opaque", name)
    return None


def _keyword_type(names: Sequence[str]) -> TypeInfo | None:
    """Multi-word C spellings (``unsigned int``, ``long long``, ``short int``) to the OpenCL scalar."""
    words = list(names)
    unsigned = "unsigned" in words
    rest = [w for w in words if w not in ("unsigned", "signed", "int")]
    if not rest:
        return TypeInfo("scalar", "uint" if unsigned else "int")
    if rest in (["char"], ["short"], ["long"], ["long", "long"]):
        base = rest[0]
        return TypeInfo("scalar", _UNSIGNED_OF[base] if unsigned else base)
    return None


def swizzle_indices(field_name: str, width: int) -> tuple[int, ...]:
    """The components a vector swizzle selects: ``.x``/``.xy``/``.wzyx``, ``.s0``/``.s01``/``.sF``, ``.lo``/
    ``.hi``/``.even``/``.odd``. Raises ValueError, with the reason, for a swizzle invalid on a ``width``-vector.
    """
    if field_name in ("lo", "hi", "even", "odd"):
        if width == 3 and field_name in ("hi", "odd"):
            raise ValueError(f"'.{field_name}' of a 3-component vector reads an undefined component")
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
    elif field_name and all(c in "rgba" for c in field_name):
        raise ValueError(f"swizzle '.{field_name}' (OpenCL 3.0 .rgba names) is not supported; use .xyzw or .s0123")
    else:
        raise ValueError(f"invalid vector component name '.{field_name}'")
    for index in indices:
        if index >= width:
            raise ValueError(f"vector component '.{field_name}' is out of range for a {width}-component vector")
    if len(indices) not in (1, 2, 3, 4, 8, 16):
        raise ValueError(f"swizzle '.{field_name}' selects {len(indices)} components (must be 1, 2, 3, 4, 8 or 16)")
    return indices


# ---------------------------------------------------------------------------------------------------------------
# Built-ins

BUILTIN_CONSTANTS: dict[str, int | float] = {
    "CLK_LOCAL_MEM_FENCE": 1,
    "CLK_GLOBAL_MEM_FENCE": 2,
    "INFINITY": math.inf,
    "HUGE_VALF": math.inf,
    "HUGE_VAL": math.inf,
    "NAN": math.nan,
}
"""Identifiers the kernel language predefines, with their values (the fence flags are cl_mem_fence_flags
(uint), the rest float; OpenCL C 1.2, 6.12.2 and 6.12.8). Numeric limits and math constants such as FLT_MAX
and M_PI_F are predefined macros instead (``preprocess.PREDEFINED_MACROS``)."""


@dataclass(frozen=True)
class _Builtin:
    min_args: int
    max_args: int
    result: str  # how the result type follows from the arguments; see _Checker._builtin_result


def _table() -> dict[str, _Builtin]:
    table: dict[str, _Builtin] = {}
    for name in ("get_global_id", "get_local_id", "get_group_id", "get_global_size", "get_local_size"):
        table[name] = _Builtin(1, 1, "size_t")
    for name in ("get_num_groups", "get_global_offset"):
        table[name] = _Builtin(1, 1, "size_t")
    table["get_work_dim"] = _Builtin(0, 0, "uint")
    table["barrier"] = _Builtin(1, 1, "void")
    table["mem_fence"] = _Builtin(1, 1, "void")
    for prefix in ("atomic_", "atom_"):
        for op in ("add", "sub", "xchg", "min", "max", "and", "or", "xor"):
            table[prefix + op] = _Builtin(2, 2, "pointee")
        for op in ("inc", "dec"):
            table[prefix + op] = _Builtin(1, 1, "pointee")
        table[prefix + "cmpxchg"] = _Builtin(3, 3, "pointee")
    unary = ("sqrt", "rsqrt", "exp", "exp2", "log", "log2", "sin", "cos", "tan", "tanh", "fabs")
    for name in (*unary, "floor", "ceil", "round", "trunc"):
        table[name] = _Builtin(1, 1, "gentype")
    for name in ("pow", "powr", "fmin", "fmax", "fmod", "min", "max"):
        table[name] = _Builtin(2, 2, "gentype")
    table["pown"] = _Builtin(2, 2, "first")
    for name in ("fma", "mad"):
        table[name] = _Builtin(3, 3, "gentype")
    for name in ("clamp", "select"):
        table[name] = _Builtin(3, 3, "first")
    table["abs"] = _Builtin(1, 1, "ugentype")
    table["dot"] = _Builtin(2, 2, "scalar")
    table["length"] = _Builtin(1, 1, "scalar")
    table["normalize"] = _Builtin(1, 1, "first")
    table["cross"] = _Builtin(2, 2, "first")
    # integer functions beyond the list: the kernel corpus (tests/kernels/corpus/uint_hash.cl) uses them
    table["rotate"] = _Builtin(2, 2, "first")
    table["popcount"] = _Builtin(1, 1, "first")
    table["clz"] = _Builtin(1, 1, "first")
    for prefix in ("native_", "half_"):
        for name in ("cos", "exp", "exp2", "log", "log2", "rsqrt", "sin", "sqrt", "tan", "recip"):
            table[prefix + name] = _Builtin(1, 1, "gentype")
        for name in ("powr", "divide"):
            table[prefix + name] = _Builtin(2, 2, "gentype")
    for width in VECTOR_WIDTHS:
        table[f"vload{width}"] = _Builtin(2, 2, f"vload{width}")
        table[f"vstore{width}"] = _Builtin(3, 3, "void")
    return table


_BUILTINS = _table()
BUILTIN_FUNCTIONS: frozenset[str] = frozenset(_BUILTINS)
"""The built-in functions the simulator implements, by name; ``convert_<type>[_sat][_rte|_rtz|_rtp|_rtn]`` and
``as_<type>`` families come on top (``is_builtin_function``)."""

_TYPE_NAME = r"(char|uchar|short|ushort|int|uint|long|ulong|float|double|half)(2|3|4|8|16)?"
_CONVERT_RE = re.compile(rf"convert_{_TYPE_NAME}(_sat)?(_rte|_rtz|_rtp|_rtn)?")
_AS_RE = re.compile(rf"as_{_TYPE_NAME}")

# OpenCL C built-ins the simulator does not implement: a call gets "not supported", not "undeclared"
_UNSUPPORTED_BUILTINS = frozenset(
    """acos acosh acospi asin asinh asinpi atan atan2 atanh atanpi atan2pi cbrt copysign cosh cospi erfc erf exp10
    expm1 fdim fract frexp hypot ilogb ldexp lgamma lgamma_r log10 log1p logb maxmag minmag modf nan nextafter
    remainder remquo rint rootn sincos sinh sinpi tanpi tgamma native_exp10 native_log10 half_exp10 half_log10
    abs_diff add_sat hadd rhadd mad_hi mad_sat mul_hi sub_sat upsample mad24 mul24 degrees
    radians step smoothstep sign mix distance fast_distance fast_length fast_normalize isequal isnotequal isgreater
    isgreaterequal isless islessequal islessgreater isfinite isinf isnan isnormal isordered isunordered signbit any
    all bitselect vload_half vstore_half vloada_half vstorea_half shuffle shuffle2 vec_step async_work_group_copy
    async_work_group_strided_copy wait_group_events prefetch read_imagef read_imagei read_imageui write_imagef
    write_imagei write_imageui get_image_width get_image_height get_image_depth read_mem_fence write_mem_fence
    work_group_barrier atomic_load atomic_store atomic_init atomic_exchange atomic_fetch_add atomic_fetch_sub
    atomic_fetch_and atomic_fetch_or atomic_fetch_xor atomic_fetch_min atomic_fetch_max
    atomic_compare_exchange_strong atomic_compare_exchange_weak atomic_work_item_fence get_local_linear_id
    get_global_linear_id get_enqueued_local_size sub_group_barrier work_group_reduce_add work_group_reduce_min
    work_group_reduce_max work_group_broadcast work_group_all work_group_any""".split()  # noqa: SIM905
)


def _conversion(name: str) -> re.Match[str] | None:
    """``convert_<type>[_sat][_rounding]`` or ``as_<type>``; saturation only for integer destinations."""
    m = _CONVERT_RE.fullmatch(name)
    if m is not None and m.group(3) and m.group(1) in _FLOATS:
        return None
    return m or _AS_RE.fullmatch(name)


def is_builtin_function(name: str) -> bool:
    """Is ``name`` a built-in function the simulator implements?"""
    return name in _BUILTINS or _conversion(name) is not None


def builtin_arity(name: str) -> tuple[int, int] | None:
    """(fewest, most) arguments of a built-in function; None if ``name`` is not one."""
    if name in _BUILTINS:
        b = _BUILTINS[name]
        return (b.min_args, b.max_args)
    if _conversion(name) is not None:
        return (1, 1)
    return None


# ---------------------------------------------------------------------------------------------------------------
# The data model


@dataclass(frozen=True)
class Param:
    """A kernel or helper-function parameter.

    ``kind``: for kernels "buffer" (a ``__global`` or ``__constant`` pointer: the host passes a buffer), "local"
    (a ``__local`` pointer: the host passes only a size) or "scalar" (a value, possibly a vector); helper
    functions have "pointer" for every pointer parameter instead. ``elem_type`` is the canonical scalar name of
    the value or pointee (``float`` for ``float4``, ``uint`` for ``unsigned int``; "struct S" in helpers),
    ``vector_width`` 1 for scalars. ``address_space`` is the pointee's for pointers, "private" for values.
    ``const``: the value, or for pointers the pointee, is read-only (``__constant`` pointers are always const).
    """

    name: str
    kind: ParamKind
    elem_type: str
    vector_width: int
    address_space: AddressSpace
    const: bool
    line: int = 0
    type: TypeInfo = field(default=UNKNOWN, compare=False, repr=False)

    @property
    def type_name(self) -> str:
        """``float4``, ``uint``: the value's or pointee's type."""
        return f"{self.elem_type}{self.vector_width}" if self.vector_width > 1 else self.elem_type

    @property
    def is_pointer(self) -> bool:
        return self.kind != "scalar"


@dataclass(frozen=True)
class LocalVar:
    """A ``__local`` variable declared in a kernel: one instance per work-group. ``shape`` is () for a scalar,
    the array's dimensions otherwise."""

    name: str
    elem_type: str
    vector_width: int
    shape: tuple[int, ...]
    line: int
    node: c_ast.Decl = field(compare=False, repr=False)

    @property
    def size_bytes(self) -> int:
        per = SCALAR_SIZES.get(self.elem_type, 0) * (4 if self.vector_width == 3 else self.vector_width)
        return per * math.prod(self.shape)


@dataclass
class KernelInfo:
    """A ``__kernel`` function: its parameters in order, its AST (a ``c_ast.FuncDef``), where it starts, the
    ``reqd_work_group_size`` attribute if given, and its ``__local`` variables."""

    name: str
    params: list[Param]
    node: c_ast.FuncDef = field(repr=False)
    line: int
    reqd_work_group_size: tuple[int, int, int] | None = None
    local_vars: list[LocalVar] = field(default_factory=list)

    @property
    def static_local_bytes(self) -> int:
        """Local memory the kernel's own ``__local`` variables take per work-group (``__local`` pointer
        arguments come on top, sized at launch)."""
        return sum(v.size_bytes for v in self.local_vars)


@dataclass
class FunctionInfo:
    """A helper (non-kernel) function with a body. ``calls`` names the helpers it calls, in source order."""

    name: str
    params: list[Param]
    return_type: TypeInfo
    node: c_ast.FuncDef = field(repr=False)
    line: int
    calls: tuple[str, ...] = ()


class KernelCompileError(Exception):
    """The source does not compile; ``build_log`` has one ``file:line:col: error: ...`` line per problem."""

    def __init__(
        self, build_log: str, *, diagnostics: Sequence[Diagnostic] = (), source: str = "", options: str = ""
    ) -> None:
        super().__init__(build_log)
        self.build_log = build_log
        self.diagnostics = list(diagnostics)
        self.source = source
        self.options = options


class KernelNotFound(LookupError):
    """``Program.kernel(name)`` for a name the program does not define as a ``__kernel``."""

    def __init__(self, name: str, available: Sequence[str]) -> None:
        listing = ", ".join(available) if available else "none"
        super().__init__(f"kernel '{name}' not found; the program's kernels are: {listing}")
        self.name = name
        self.available = list(available)


@dataclass
class Program:
    """A compiled kernel source. ``ast`` is the whole translation unit; ``source_lines`` the user's source (for
    messages that quote it); ``build_log`` holds warnings (a failed build raises KernelCompileError instead)."""

    kernels: dict[str, KernelInfo]
    functions: dict[str, FunctionInfo]
    ast: c_ast.FileAST = field(repr=False)
    filename: str
    source_lines: list[str] = field(repr=False)
    constants: dict[str, c_ast.Decl] = field(default_factory=dict, repr=False)
    enumerators: dict[str, int] = field(default_factory=dict)
    options: str = ""
    build_log: str = ""
    preprocessed: str = field(default="", repr=False)
    _types: _TypeResolver | None = field(default=None, repr=False, compare=False)

    def kernel(self, name: str) -> KernelInfo:
        """The kernel called ``name``; KernelNotFound (listing the kernels) if there is none."""
        try:
            return self.kernels[name]
        except KeyError:
            raise KernelNotFound(name, list(self.kernels)) from None

    @property
    def kernel_names(self) -> list[str]:
        return list(self.kernels)

    def type_of(self, node: c_ast.Node) -> TypeInfo:
        """The type a ``Decl``, ``Typename``, ``Typedef`` or type node declares, user typedefs resolved."""
        resolver = self._types or _TypeResolver()
        if isinstance(node, c_ast.Decl | c_ast.Typename | c_ast.Typedef):
            return resolver.resolve(node.type)
        return resolver.resolve(node)

    def struct_fields(self, tag: str) -> list[tuple[str, TypeInfo]]:
        """The members of ``struct S``/``union U`` (pass the ``TypeInfo.name``), in order."""
        resolver = self._types or _TypeResolver()
        return resolver.fields(tag)

    def const_int(self, expr: c_ast.Node) -> int | None:
        """The value of an integer constant expression (array sizes, enumerators), None if it is not one."""
        return _const_int(expr, self.enumerators, self._types)


# ---------------------------------------------------------------------------------------------------------------
# AST helpers


def _coord_of(node: c_ast.Node | None) -> tuple[int | None, int | None]:
    """Line and column of a node, falling back on its first child that has them (pycparser leaves some None)."""
    if node is None:
        return None, None
    coord = getattr(node, "coord", None)
    if coord is not None and getattr(coord, "line", None):
        return coord.line, coord.column
    for _, child in node.children():
        line, column = _coord_of(child)
        if line is not None:
            return line, column
    return None, None


def _int_constant(text: str) -> int | None:
    text = text.rstrip("uUlL")
    try:
        if re.fullmatch(r"0[0-7]+", text):
            return int(text, 8)
        return int(text, 0)
    except ValueError:
        return None


def _char_constant(text: str) -> int | None:
    body = text[1:-1] if len(text) >= 2 else ""
    escapes = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8, "f": 12, "v": 11}
    if len(body) == 1:
        return ord(body)
    if len(body) == 2 and body[0] == "\\" and body[1] in escapes:
        return escapes[body[1]]
    m = re.fullmatch(r"\\x([0-9a-fA-F]{1,2})|\\([0-7]{1,3})", body)
    if m:
        return int(m.group(1), 16) if m.group(1) else int(m.group(2), 8)
    return None


def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _const_int(node: c_ast.Node | None, enumerators: dict[str, int], types: _TypeResolver | None = None) -> int | None:
    """Evaluate an integer constant expression on the AST (C99 6.6); None if it is not one."""
    if isinstance(node, c_ast.Constant):
        if node.type == "char":
            return _char_constant(node.value)
        if node.type in ("int", "unsigned int", "long int", "unsigned long int", "long long int"):
            return _int_constant(node.value)
        if "int" in node.type or "long" in node.type:
            return _int_constant(node.value)
        return None
    if isinstance(node, c_ast.ID):
        return enumerators.get(node.name)
    if isinstance(node, c_ast.UnaryOp):
        if node.op == "sizeof":
            resolver = types if types is not None else _TypeResolver()
            t = resolver.resolve(node.expr.type) if isinstance(node.expr, c_ast.Typename) else None
            return t.element_size if t is not None else None
        v = _const_int(node.expr, enumerators, types)
        if v is None:
            return None
        return {"-": -v, "+": v, "~": ~v, "!": int(v == 0)}.get(node.op)
    if isinstance(node, c_ast.Cast):
        return _const_int(node.expr, enumerators, types)
    if isinstance(node, c_ast.TernaryOp):
        c = _const_int(node.cond, enumerators, types)
        if c is None:
            return None
        return _const_int(node.iftrue if c else node.iffalse, enumerators, types)
    if isinstance(node, c_ast.BinaryOp):
        a = _const_int(node.left, enumerators, types)
        b = _const_int(node.right, enumerators, types)
        if a is None or b is None:
            return None
        op = node.op
        if op in ("/", "%"):
            if b == 0:
                return None
            q = _c_div(a, b)
            return q if op == "/" else a - b * q
        if op in ("<<", ">>"):
            if not 0 <= b < 64:
                return None
            return a << b if op == "<<" else a >> b
        table = {
            "+": a + b,
            "-": a - b,
            "*": a * b,
            "&": a & b,
            "|": a | b,
            "^": a ^ b,
            "<": int(a < b),
            "<=": int(a <= b),
            ">": int(a > b),
            ">=": int(a >= b),
            "==": int(a == b),
            "!=": int(a != b),
            "&&": int(bool(a) and bool(b)),
            "||": int(bool(a) or bool(b)),
        }
        return table.get(op)
    return None


class _TypeResolver:
    """Type nodes to ``TypeInfo``, knowing the program's typedefs and struct/union definitions."""

    def __init__(self) -> None:
        self.typedefs: dict[str, TypeInfo] = {}
        self.structs: dict[str, c_ast.Node] = {}  # "struct S" -> the Struct/Union node with its members
        self.enumerators: dict[str, int] = {}
        self._anonymous: dict[int, str] = {}  # id(node) -> tag of an anonymous struct/union

    def resolve(self, node: c_ast.Node | None) -> TypeInfo:
        if isinstance(node, c_ast.TypeDecl):
            return self._qualified(self._base(node.type), node.quals)
        if isinstance(node, c_ast.PtrDecl):
            target = self.resolve(node.type)
            return self._qualified(TypeInfo("pointer", target=target), node.quals)
        if isinstance(node, c_ast.ArrayDecl):
            element = self.resolve(node.type)
            length = _const_int(node.dim, self.enumerators, self) if node.dim is not None else None
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
                if names[0] in self.typedefs:
                    return self.typedefs[names[0]]
                named = _named_type(names[0])
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
        if isinstance(node, c_ast.Enum):
            return _INT
        return UNKNOWN

    @staticmethod
    def _qualified(t: TypeInfo, quals: Sequence[str]) -> TypeInfo:
        space = t.space
        const = t.const
        for q in quals:
            if q in _SPACES:
                space = _SPACES[q]
            elif q == "const":
                const = True
        if space == "constant":
            const = True
        return TypeInfo(t.kind, t.name, t.width, t.target, space, const, t.length)

    def fields(self, tag: str) -> list[tuple[str, TypeInfo]]:
        node = self.structs.get(tag)
        if node is None or node.decls is None:
            return []
        return [(d.name, self.resolve(d.type)) for d in node.decls if isinstance(d, c_ast.Decl)]


def _innermost_names(node: c_ast.Node | None) -> list[str]:
    while node is not None and not isinstance(node, c_ast.IdentifierType):
        node = getattr(node, "type", None)
    return list(node.names) if isinstance(node, c_ast.IdentifierType) else []


def _has_function_pointer(t: TypeInfo) -> bool:
    while t.target is not None:
        if t.kind in ("pointer", "array") and t.target.kind == "function":
            return True
        t = t.target
    return False


# ---------------------------------------------------------------------------------------------------------------
# Parsing


def _prelude() -> str:
    known = OpenCLCParser.initial_type_symbols
    typedefs = [f"typedef {base} {name};" for name, base in _PRELUDE_TYPES.items() if name not in known]
    return "\n".join(typedefs) + ("\n" if typedefs else "") + f'#line 1 "{_SOURCE_FILE}"\n'


_PRELUDE = _prelude()
_PARSE_ERROR_RE = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<msg>.*)$", re.S)


@dataclass
class _ParseOutcome:
    ast: c_ast.FileAST
    errors: list[tuple[int, int | None, str]]
    failed_names: set[str]


def _parse_error_message(message: str) -> str:
    if message.startswith("before: "):
        return f"syntax error before '{message[len('before: ') :]}'"
    if message == "At end of input":
        return "syntax error at end of input (missing '}' or ';'?)"
    return message[:1].lower() + message[1:]


def _parse_once(text: str) -> tuple[c_ast.FileAST | None, tuple[int, int | None, str] | None]:
    parser = OpenCLCParser()
    try:
        ast = parser.parse(_PRELUDE + text, filename=_BUILTIN_FILE)
    except ParseError as e:
        message = str(e)
        m = _PARSE_ERROR_RE.match(message)
        if m and m.group("file") == _SOURCE_FILE:
            col = m.group("col")
            return None, (int(m.group("line")), int(col) if col else None, _parse_error_message(m.group("msg")))
        # no position in the message ("Invalid expression", "Unmatched '}'"): the next token is where it failed
        raw = m.group("msg") if m else message.split(": ", 1)[-1]
        line, col = None, None
        try:
            tok = parser._peek()
            if tok is not None:
                line, col = tok.lineno, tok.column
        except Exception:  # the token stream may itself be what failed
            pass
        if line is None:
            line = max(1, text.rstrip().count("\n") + 1)
        return None, (line, col, _parse_error_message(raw))
    except Exception as e:  # pycparser's internal errors on malformed input: still a compile error, not a crash
        return None, (max(1, text.rstrip().count("\n") + 1), None, f"cannot parse the source: {e}")
    return ast, None


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


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def _declared_names(chunk: str) -> set[str]:
    head = chunk.split("{", 1)[0]
    return set(re.findall(r"([A-Za-z_]\w*)\s*[(\[=;,]", head)) - {"__attribute__", "if", "for", "while", "return"}


def _indent(text: str, start: int, chunk: str) -> int:
    """Columns before the first character of ``chunk`` (which starts at ``start`` in ``text``) on its line."""
    first = start + (len(chunk) - len(chunk.lstrip()))
    return first - (text.rfind("\n", 0, first) + 1)


def _parse(text: str) -> _ParseOutcome:
    ast, error = _parse_once(text)
    if ast is not None:
        return _ParseOutcome(ast, [], set())
    # recover: parse the declarations one by one, each with the good ones before it (for their typedefs)
    errors: list[tuple[int, int | None, str]] = []
    failed: set[str] = set()
    good = _blank(text)
    good_ast = c_ast.FileAST([])
    failed_indent: int | None = None  # indentation of the last declaration that failed to parse
    for a, b in _top_level_chunks(text):
        chunk = text[a:b]
        indent = _indent(text, a, chunk)
        if failed_indent is not None and (chunk.lstrip().startswith("}") or indent > failed_indent):
            # more indented than the broken declaration, or a stray '}': the remains of a function whose
            # braces the syntax error unbalanced, not a new declaration; no second round of errors for it
            failed |= _declared_names(chunk)
            continue
        candidate = good[:a] + chunk + good[b:]
        chunk_ast, chunk_error = _parse_once(candidate)
        failed_indent = indent if chunk_ast is None else None
        if chunk_ast is not None:
            good, good_ast = candidate, chunk_ast
        else:
            assert chunk_error is not None
            errors.append(chunk_error)
            failed |= _declared_names(chunk)
    if not errors and error is not None:
        errors.append(error)
    return _ParseOutcome(good_ast, errors, failed)


# ---------------------------------------------------------------------------------------------------------------
# Checking


@dataclass
class _Symbol:
    name: str
    kind: Literal["var", "param", "global", "enumerator"]
    type: TypeInfo
    line: int | None


@dataclass
class _Function:
    name: str
    params: list[TypeInfo]
    return_type: TypeInfo
    is_kernel: bool
    line: int | None
    variadic: bool = False
    node: c_ast.FuncDef | None = None
    calls: list[tuple[str, int | None]] = field(default_factory=list)


@dataclass
class _Context:
    function: _Function
    loops: int = 0
    depth: int = 0  # 1 in the function's outermost block
    local_vars: list[LocalVar] = field(default_factory=list)


_ASSIGNMENT_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^="})
_INTEGER_ONLY_OPS = frozenset({"%", "<<", ">>", "&", "|", "^"})
_COMPARISONS = frozenset({"<", "<=", ">", ">=", "==", "!="})


class _Checker:
    def __init__(self, filename: str, suppressed: set[str]) -> None:
        self.filename = filename
        self.suppressed = suppressed
        self.diagnostics: list[Diagnostic] = []
        self.types = _TypeResolver()
        self.scopes: list[dict[str, _Symbol]] = [{}]
        self.functions: dict[str, _Function] = {}
        self.constants: dict[str, c_ast.Decl] = {}
        self.kernels: dict[str, KernelInfo] = {}
        self.helpers: dict[str, FunctionInfo] = {}
        self.later_functions: set[str] = set()
        self.used_undefined: list[tuple[str, c_ast.Node]] = []
        self.caller: _Function | None = None  # the function whose body is being checked
        self.enumerators = self.types.enumerators

    # -- diagnostics
    def error(self, node: c_ast.Node | None, message: str) -> None:
        if isinstance(node, c_ast.Decl):
            # point at the declared name, not at the '*' of a pointer declarator
            inner = node.type
            while inner is not None and not isinstance(inner, c_ast.TypeDecl):
                inner = getattr(inner, "type", None)
            if isinstance(inner, c_ast.TypeDecl) and _coord_of(inner)[0] is not None:
                node = inner
        line, column = _coord_of(node)
        self.diagnostics.append(Diagnostic(self.filename, line, column, message))

    # -- the translation unit
    def run(self, ast: c_ast.FileAST) -> None:
        items = [n for n in ast.ext if _coord_of(n)[0] is None or getattr(n.coord, "file", None) != _BUILTIN_FILE]
        ast.ext = items
        for node in items:
            if isinstance(node, c_ast.FuncDef):
                self.later_functions.add(node.decl.name)
            elif isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl | FuncDeclExt):
                self.later_functions.add(node.name)
        for node in items:
            if isinstance(node, c_ast.FuncDef):
                self.function_definition(node)
            elif isinstance(node, c_ast.Decl):
                self.file_scope_decl(node)
            elif isinstance(node, c_ast.Typedef):
                self.typedef(node)
            elif isinstance(node, c_ast.StaticAssert):
                self.static_assert(node)
            elif isinstance(node, c_ast.Pragma):
                pass
            else:
                self.error(node, f"unsupported program-scope construct ({type(node).__name__})")
        for name, node in self.used_undefined:
            fn = self.functions.get(name)
            if fn is not None and fn.node is None:
                self.error(node, f"function '{name}' is declared but never defined")
        self.check_recursion()

    def typedef(self, node: c_ast.Typedef) -> None:
        t = self.types.resolve(node.type)
        if t.kind == "function" or _has_function_pointer(t):
            self.error(node, f"function pointers are not supported (typedef '{node.name}')")
        self.check_type_usable(t, node, f"typedef '{node.name}'")
        self.types.typedefs[node.name] = t
        self.register_enumerators(node.type)

    def register_enumerators(self, node: c_ast.Node | None) -> None:
        while node is not None and not isinstance(node, c_ast.Enum | c_ast.IdentifierType | c_ast.Struct):
            node = getattr(node, "type", None)
        if isinstance(node, c_ast.Struct | c_ast.Union) and node.decls:
            for member in node.decls:
                self.register_enumerators(member.type)
        if not isinstance(node, c_ast.Enum) or node.values is None:
            return
        value = 0
        for enumerator in node.values.enumerators:
            if enumerator.value is not None:
                v = _const_int(enumerator.value, self.enumerators, self.types)
                if v is None:
                    self.error(enumerator, f"enumerator '{enumerator.name}' is not an integer constant")
                    v = value
                value = v
            if enumerator.name in self.enumerators or enumerator.name in self.scopes[0]:
                self.error(enumerator, f"redefinition of '{enumerator.name}'")
            self.enumerators[enumerator.name] = value
            self.scopes[0][enumerator.name] = _Symbol(enumerator.name, "enumerator", _INT, _coord_of(enumerator)[0])
            value += 1

    def static_assert(self, node: c_ast.StaticAssert) -> None:
        value = _const_int(node.cond, self.enumerators, self.types)
        if value is None:
            self.error(node, "static assertion expression is not an integral constant expression")
        elif value == 0:
            message = node.message.value if node.message is not None else ""
            self.error(node, f"static assertion failed{': ' + message if message else ''}")

    def file_scope_decl(self, node: c_ast.Decl) -> None:
        if isinstance(node.type, c_ast.FuncDecl | FuncDeclExt):
            self.declare_function(node, None)
            return
        t = self.types.resolve(node.type)
        self.register_enumerators(node.type)
        if node.name is None:
            return  # struct, union or enum declaration
        if _has_function_pointer(t):
            self.error(node, "function pointers are not supported")
            return
        self.check_type_usable(t, node, f"variable '{node.name}'")
        if "extern" in node.storage:
            self.error(node, f"extern variables are not supported ('{node.name}')")
            return
        if t.space != "constant":
            self.error(node, f"program-scope variable '{node.name}' must be declared in the __constant address space")
            return
        if node.init is None:
            self.error(node, f"program-scope __constant variable '{node.name}' must be initialized")
        else:
            self.check_initializer(node.init, t, None)
        self.check_array_dims(node, None)
        if node.name in self.scopes[0] or node.name in self.functions:
            self.error(node, f"redefinition of '{node.name}'")
        self.scopes[0][node.name] = _Symbol(node.name, "global", t, _coord_of(node)[0])
        self.constants[node.name] = node

    def check_type_usable(self, t: TypeInfo, node: c_ast.Node, what: str) -> None:
        inner: TypeInfo | None = t
        while inner is not None:
            if inner.kind == "opaque":
                self.error(node, f"{_OPAQUE_TYPES.get(inner.name, inner.name)} are not supported ({what})")
                return
            inner = inner.target

    # -- functions
    def signature(self, decl: c_ast.Decl, is_kernel: bool) -> tuple[_Function, list[c_ast.Node]]:
        fdecl = decl.type
        ret = self.types.resolve(fdecl.type)
        params: list[TypeInfo] = []
        nodes: list[c_ast.Node] = []
        variadic = False
        if fdecl.args is not None:
            items = list(fdecl.args.params)
            if len(items) == 1 and isinstance(items[0], c_ast.Typename) and self.types.resolve(items[0]).kind == "void":
                items = []
            for p in items:
                if isinstance(p, c_ast.EllipsisParam):
                    variadic = True
                    continue
                t = self.types.resolve(p.type) if hasattr(p, "type") else UNKNOWN
                if t.kind == "array":  # C99 6.7.5.3p7: an array parameter is a pointer to its element
                    t = TypeInfo("pointer", target=t.target)
                params.append(t)
                nodes.append(p)
        fn = _Function(decl.name, params, ret, is_kernel, _coord_of(decl)[0], variadic)
        return fn, nodes

    def declare_function(self, decl: c_ast.Decl, definition: c_ast.FuncDef | None) -> _Function:
        is_kernel = any(spec in ("__kernel", "kernel") for spec in decl.funcspec if isinstance(spec, str))
        fn, nodes = self.signature(decl, is_kernel)
        name = decl.name
        if any(isinstance(p, c_ast.ID) for p in nodes) or (definition is not None and definition.param_decls):
            self.error(decl, f"old-style (K&R) parameter lists are not supported ('{name}')")
        if fn.variadic:
            self.error(decl, f"variadic functions are not supported ('{name}')")
        if is_builtin_function(name) or name in _UNSUPPORTED_BUILTINS or name == "printf":
            self.error(decl, f"redefinition of built-in function '{name}'")
        if _has_function_pointer(fn.return_type) or fn.return_type.kind == "function":
            self.error(decl, f"function pointers are not supported (return type of '{name}')")
        previous = self.functions.get(name)
        if previous is not None:
            if previous.node is not None and definition is not None:
                self.error(decl, f"redefinition of '{name}'")
            elif len(previous.params) != len(fn.params) or previous.is_kernel != fn.is_kernel:
                self.error(decl, f"conflicting types for '{name}'")
        elif name in self.scopes[0]:
            self.error(decl, f"redefinition of '{name}'")
        fn.node = definition if definition is not None else (previous.node if previous else None)
        if previous is not None and definition is None:
            return previous
        self.functions[name] = fn
        for p, pt in zip(nodes, fn.params, strict=True):
            if _has_function_pointer(pt) or pt.kind == "function":
                self.error(p, "function pointers are not supported")
        return fn

    def function_definition(self, node: c_ast.FuncDef) -> None:
        decl = node.decl
        if not isinstance(decl.type, c_ast.FuncDecl | FuncDeclExt):
            self.error(decl, f"invalid function definition ('{decl.name}' has no parameter list)")
            return
        fn = self.declare_function(decl, node)
        fn.node = node
        _, param_nodes = self.signature(decl, fn.is_kernel)
        params: list[Param] = []
        for p, t in zip(param_nodes, fn.params, strict=True):
            param = self.kernel_param(p, t, decl.name) if fn.is_kernel else self.helper_param(p, t)
            if param is not None:
                params.append(param)
        if fn.is_kernel and fn.return_type.kind != "void":
            self.error(decl, f"kernel function '{decl.name}' must return void (returns '{fn.return_type}')")
        if fn.is_kernel and "static" in decl.storage:
            self.error(decl, f"kernel function '{decl.name}' cannot be static")
        reqd = self.reqd_work_group_size(decl) if fn.is_kernel else None
        ctx = _Context(fn)
        scope: dict[str, _Symbol] = {}
        for p, t in zip(param_nodes, fn.params, strict=True):
            if not isinstance(p, c_ast.Decl) or p.name is None:
                if not fn.is_kernel and not isinstance(p, c_ast.ID):  # kernel_param reported it
                    self.error(p, f"parameter name omitted in the definition of '{decl.name}'")
                continue
            if p.name in scope:
                self.error(p, f"redefinition of parameter '{p.name}'")
            scope[p.name] = _Symbol(p.name, "param", t, _coord_of(p)[0])
        self.scopes.append(scope)  # the parameters share the body's outermost scope (C99 6.2.1)
        self.caller = fn
        self.compound(node.body, ctx, new_scope=False)
        self.caller = None
        self.scopes.pop()
        line = _coord_of(decl)[0] or 0
        if fn.is_kernel:
            if decl.name in self.kernels:
                return
            self.kernels[decl.name] = KernelInfo(decl.name, params, node, line, reqd, ctx.local_vars)
        else:
            calls = tuple(dict.fromkeys(name for name, _ in fn.calls))
            self.helpers[decl.name] = FunctionInfo(decl.name, params, fn.return_type, node, line, calls)

    def reqd_work_group_size(self, decl: c_ast.Decl) -> tuple[int, int, int] | None:
        attributes: list[c_ast.Node] = []
        for spec in decl.funcspec:
            if isinstance(spec, AttributeSpecifier) and spec.exprlist is not None:
                attributes.extend(spec.exprlist.exprs)
        ftype = decl.type
        if isinstance(ftype, FuncDeclExt) and ftype.attributes is not None:
            attributes.extend(ftype.attributes.exprs)
        for attr in attributes:
            if (
                isinstance(attr, c_ast.FuncCall)
                and isinstance(attr.name, c_ast.ID)
                and attr.name.name == "reqd_work_group_size"
            ):
                args = attr.args.exprs if attr.args is not None else []
                values = [_const_int(a, self.enumerators, self.types) for a in args]
                if len(values) != 3 or any(v is None or v < 1 for v in values):
                    self.error(attr, "reqd_work_group_size needs three positive integer constants")
                    return None
                x, y, z = (cast(int, v) for v in values)
                return (x, y, z)
        return None

    def kernel_param(self, p: c_ast.Node, t: TypeInfo, kernel: str) -> Param | None:
        if isinstance(p, c_ast.ID):
            return None  # a K&R parameter list: reported
        if isinstance(p, c_ast.Typename) or not isinstance(p, c_ast.Decl) or p.name is None:
            self.error(p, f"parameter name omitted in kernel '{kernel}'")
            return None
        name = p.name
        line = _coord_of(p)[0] or 0
        if _has_function_pointer(t) or t.kind == "function":
            self.error(p, f"function pointers are not supported (kernel parameter '{name}')")
            return None
        if any(q in _ACCESS_QUALIFIERS for q in p.quals) and not any(
            n in _OPAQUE_TYPES for n in _innermost_names(p.type)
        ):
            self.error(p, f"access qualifiers (read_only/write_only) apply only to images (parameter '{name}')")
        inner: TypeInfo | None = t
        while inner is not None:
            if inner.kind == "opaque":
                what = _OPAQUE_TYPES.get(inner.name, inner.name)
                self.error(p, f"{what} are not supported (kernel parameter '{name}' of type {inner.name})")
                return None
            inner = inner.target
        if t.kind == "struct":
            self.error(p, f"{t.name.split()[0]} kernel parameters are not supported ('{name}' is a {t.name})")
            return None
        spelled = _innermost_names(p.type)
        if t.kind == "pointer":
            target = t.target or UNKNOWN
            if target.kind in ("pointer", "array"):
                self.error(p, f"pointer-to-pointer kernel parameters are not supported ('{name}')")
                return None
            if target.kind == "struct":
                word = target.name.split()[0]
                self.error(p, f"{word} kernel parameters are not supported ('{name}' points to a {target.name})")
                return None
            if target.space == "private":
                explicit = any(_SPACES.get(q) == "private" for q in p.quals)
                why = "" if explicit else " (a pointer without an address space points to __private memory)"
                self.error(
                    p,
                    f"kernel pointer parameter '{name}' must point to __global, __constant or __local memory, "
                    f"not __private{why}",
                )
                return None
            if len(spelled) == 1 and spelled[0] in _NOT_KERNEL_ARG_TYPES:
                self.error(p, f"kernel parameter '{name}' cannot point to {spelled[0]} (its size is not portable)")
                return None
            kind: ParamKind = "local" if target.space == "local" else "buffer"
            elem = target.name if target.kind in ("scalar", "vector") else target.kind
            return Param(name, kind, elem, target.width, target.space, target.const, line, t)
        if len(spelled) == 1 and spelled[0] in _NOT_KERNEL_ARG_TYPES:
            self.error(p, f"kernel parameter '{name}' cannot be of type {spelled[0]}")
            return None
        if t.space != "private":
            self.error(p, f"scalar kernel parameter '{name}' cannot be in the __{t.space} address space")
            return None
        if t.kind not in ("scalar", "vector"):
            self.error(p, f"kernel parameter '{name}' has unsupported type '{t}'")
            return None
        return Param(name, "scalar", t.name, t.width, "private", t.const, line, t)

    def helper_param(self, p: c_ast.Node, t: TypeInfo) -> Param | None:
        if not isinstance(p, c_ast.Decl) or p.name is None:
            return None
        line = _coord_of(p)[0] or 0
        self.check_type_usable(t, p, f"parameter '{p.name}'")
        if t.kind in ("pointer", "array"):
            target = t.target or UNKNOWN
            elem = target.name if target.kind in ("scalar", "vector", "struct") else target.kind
            return Param(p.name, "pointer", elem, target.width, target.space, target.const, line, t)
        elem = t.name if t.kind in ("scalar", "vector", "struct") else t.kind
        return Param(p.name, "scalar", elem, t.width, "private", t.const, line, t)

    # -- recursion
    def check_recursion(self) -> None:
        defined = [name for name, fn in self.functions.items() if fn.node is not None]
        order = sorted(defined, key=lambda name: _coord_of(self.functions[name].node)[0] or 0)
        graph = {name: list(dict.fromkeys(c for c, _ in self.functions[name].calls if c in defined)) for name in order}
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        on_stack: set[str] = set()
        stack: list[str] = []
        components: list[list[str]] = []

        def visit(v: str) -> None:
            index[v] = low[v] = len(index)
            stack.append(v)
            on_stack.add(v)
            for w in graph.get(v, []):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                components.append(component)

        for v in order:
            if v not in index:
                visit(v)
        for component in components:
            members = set(component)
            first = min(component, key=order.index)
            if len(component) == 1 and first not in graph.get(first, []):
                continue
            cycle = self.cycle_from(first, members, graph)
            fn = self.functions[first]
            node = fn.node.decl if fn.node is not None else None
            if len(cycle) == 2:
                self.error(node, f"recursion is not supported: '{first}' calls itself")
            else:
                path = " -> ".join(f"'{c}'" for c in cycle)
                self.error(node, f"recursion is not supported: {path}")

    @staticmethod
    def cycle_from(start: str, members: set[str], graph: dict[str, list[str]]) -> list[str]:
        """The shortest call path from ``start`` back to itself within its strongly connected component."""
        paths: dict[str, list[str]] = {start: [start]}
        queue = [start]
        while queue:
            v = queue.pop(0)
            for w in graph.get(v, []):
                if w == start:
                    return [*paths[v], start]
                if w in members and w not in paths:
                    paths[w] = [*paths[v], w]
                    queue.append(w)
        return [start, start]

    # -- statements
    def compound(self, node: c_ast.Compound, ctx: _Context, new_scope: bool = True) -> None:
        if new_scope:
            self.scopes.append({})
        ctx.depth += 1
        for item in node.block_items or []:
            self.statement(item, ctx)
        ctx.depth -= 1
        if new_scope:
            self.scopes.pop()

    def statement(self, node: c_ast.Node | None, ctx: _Context) -> None:
        if node is None:
            return
        if isinstance(node, c_ast.Compound):
            self.compound(node, ctx)
        elif isinstance(node, c_ast.Decl):
            self.local_decl(node, ctx)
        elif isinstance(node, c_ast.DeclList):
            for d in node.decls:
                self.local_decl(d, ctx)
        elif isinstance(node, c_ast.If):
            self.condition(node.cond)
            self.substatement(node.iftrue, ctx)
            self.substatement(node.iffalse, ctx)
        elif isinstance(node, c_ast.For):
            self.scopes.append({})
            if isinstance(node.init, c_ast.DeclList):
                for d in node.init.decls:
                    self.local_decl(d, ctx)
            elif node.init is not None:
                self.expr(node.init)
            if node.cond is not None:
                self.condition(node.cond)
            if node.next is not None:
                self.expr(node.next)
            ctx.loops += 1
            self.substatement(node.stmt, ctx)
            ctx.loops -= 1
            self.scopes.pop()
        elif isinstance(node, c_ast.While | c_ast.DoWhile):
            self.condition(node.cond)
            ctx.loops += 1
            self.substatement(node.stmt, ctx)
            ctx.loops -= 1
        elif isinstance(node, c_ast.Break | c_ast.Continue):
            if ctx.loops == 0:
                word = "break" if isinstance(node, c_ast.Break) else "continue"
                self.error(node, f"'{word}' statement not in a loop")
        elif isinstance(node, c_ast.Return):
            self.return_statement(node, ctx)
        elif isinstance(node, c_ast.EmptyStatement | c_ast.Pragma):
            pass
        elif isinstance(node, c_ast.StaticAssert):
            self.static_assert(node)
        elif isinstance(node, c_ast.Goto):
            self.error(node, f"goto is not supported ('goto {node.name}')")
        elif isinstance(node, c_ast.Label):
            self.error(node, f"labels are not supported (label '{node.name}'; goto is not supported)")
            self.statement(node.stmt, ctx)
        elif isinstance(node, c_ast.Switch):
            self.error(node, "switch statements are not supported; use if/else")
            self.expr(node.cond)
            ctx.loops += 1  # 'break' inside is the switch's: not a second error
            self.statement(node.stmt, ctx)
            ctx.loops -= 1
        elif isinstance(node, c_ast.Case | c_ast.Default):
            if isinstance(node, c_ast.Case):
                self.expr(node.expr)
            for s in node.stmts or []:
                self.statement(s, ctx)
        elif isinstance(node, c_ast.Typedef):
            self.error(node, f"typedefs inside functions are not supported; declare '{node.name}' at program scope")
        elif isinstance(node, Asm):
            self.error(node, "inline assembly is not supported")
        elif isinstance(node, c_ast.FuncDef):
            self.error(node, "nested function definitions are not supported")
        else:
            self.expr(node)

    def substatement(self, node: c_ast.Node | None, ctx: _Context) -> None:
        if isinstance(node, c_ast.Compound):
            self.compound(node, ctx)
        else:
            self.scopes.append({})
            self.statement(node, ctx)
            self.scopes.pop()

    def condition(self, node: c_ast.Node) -> None:
        t = self.expr(node)
        if t.kind in ("struct", "void"):
            self.error(node, f"a condition must be a scalar, not '{t}'")
        elif t.kind == "vector":
            self.error(node, f"a condition must be a scalar, not the vector '{t.type_name}' (use any() or all())")

    def return_statement(self, node: c_ast.Return, ctx: _Context) -> None:
        fn = ctx.function
        t = self.expr(node.expr) if node.expr is not None else None
        if fn.return_type.kind == "void":
            if node.expr is not None and t is not None and t.kind != "void":
                what = "kernel" if fn.is_kernel else "void function"
                self.error(node, f"{what} '{fn.name}' should not return a value")
        elif node.expr is None:
            self.error(node, f"non-void function '{fn.name}' should return a value")
        elif t is not None:
            self.check_assignment_types(fn.return_type, t, node, f"returning '{t}' from '{fn.name}'")

    def local_decl(self, node: c_ast.Decl, ctx: _Context) -> None:
        t = self.types.resolve(node.type)
        self.register_enumerators(node.type)
        if node.name is None:
            return  # a struct/union/enum declaration
        if isinstance(node.type, c_ast.FuncDecl | FuncDeclExt):
            self.error(node, f"function declarations inside functions are not supported ('{node.name}')")
            return
        if _has_function_pointer(t):
            self.error(node, f"function pointers are not supported ('{node.name}')")
        self.check_type_usable(t, node, f"variable '{node.name}'")
        for storage in node.storage:
            if storage in ("static", "extern"):
                self.error(node, f"{storage} variables inside functions are not supported ('{node.name}')")
        space = t.space
        if space == "local":
            self.local_variable(node, t, ctx)
        elif space == "global":
            self.error(node, f"variable '{node.name}' cannot be declared in the __global address space")
        elif space == "constant":
            self.error(
                node,
                f"__constant variables inside functions are not supported; declare '{node.name}' at program scope",
            )
        self.check_array_dims(node, t)
        scope = self.scopes[-1]
        if node.name in scope:
            self.error(node, f"redefinition of '{node.name}'")
        scope[node.name] = _Symbol(node.name, "var", t, _coord_of(node)[0])
        if node.init is not None and space != "local":
            self.check_initializer(node.init, t, node)

    def local_variable(self, node: c_ast.Decl, t: TypeInfo, ctx: _Context) -> None:
        fn = ctx.function
        if not fn.is_kernel:
            self.error(node, f"__local variable '{node.name}' must be declared in a kernel, not in '{fn.name}'")
            return
        if ctx.depth != 1:
            self.error(node, f"__local variable '{node.name}' must be declared at the kernel's outermost scope")
            return
        if node.init is not None:
            self.error(node, f"__local variable '{node.name}' cannot have an initializer")
        shape: list[int] = []
        element = t
        while element.kind == "array" and element.target is not None:
            shape.append(element.length or 0)
            element = element.target
        if element.kind not in ("scalar", "vector"):
            self.error(node, f"__local variable '{node.name}' must be of scalar or vector type, not '{element}'")
            return
        if all(n > 0 for n in shape):
            line = _coord_of(node)[0] or 0
            ctx.local_vars.append(LocalVar(node.name, element.name, element.width, tuple(shape), line, node))

    def check_array_dims(self, node: c_ast.Decl, t: TypeInfo | None) -> None:
        arr = node.type
        first = True
        while isinstance(arr, c_ast.ArrayDecl):
            if arr.dim is None:
                if not (first and node.init is not None):
                    self.error(node, f"array '{node.name}' has no size")
            else:
                self.expr(arr.dim)
                size = _const_int(arr.dim, self.enumerators, self.types)
                if size is None:
                    what = f"the size of '{node.name}' is not a constant"
                    self.error(arr.dim, f"variable-length arrays are not supported ({what})")
                elif size <= 0:
                    self.error(arr.dim, f"array '{node.name}' must have a positive size, not {size}")
            first = False
            arr = arr.type

    def check_initializer(self, init: c_ast.Node, t: TypeInfo, decl: c_ast.Decl | None) -> None:
        if isinstance(init, c_ast.InitList):
            element = t.target if t.kind == "array" and t.target is not None else UNKNOWN
            if t.kind == "array" and t.length is not None and len(init.exprs) > t.length:
                self.error(init, f"too many initializers for an array of {t.length}")
            for item in init.exprs:
                if isinstance(item, c_ast.NamedInitializer):
                    self.error(item, "designated initializers are not supported")
                    continue
                if t.kind == "struct" or t.kind == "vector":
                    self.check_initializer(item, UNKNOWN, decl)
                else:
                    self.check_initializer(item, element, decl)
            if t.kind not in ("array", "struct", "unknown"):
                self.error(init, f"braces around an initializer of '{t}' are not supported; use (type)(...)")
            return
        value = self.expr(init)
        if t.kind == "array":
            self.error(init, "an array must be initialized with a brace-enclosed list")
            return
        name = decl.name if decl is not None else "variable"
        self.check_assignment_types(t, value, init, f"initializing '{name}'")

    # -- expressions
    def lookup(self, name: str) -> _Symbol | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def expr(self, node: c_ast.Node | None) -> TypeInfo:
        if node is None:
            return UNKNOWN
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            self.error(node, f"unsupported expression ({type(node).__name__})")
            return UNKNOWN
        return cast(TypeInfo, method(node))

    def expr_ID(self, node: c_ast.ID) -> TypeInfo:
        symbol = self.lookup(node.name)
        if symbol is not None:
            return symbol.type
        if node.name in BUILTIN_CONSTANTS:
            return _UINT if node.name.startswith("CLK_") else _FLOAT
        if node.name in self.functions or is_builtin_function(node.name):
            self.error(node, f"function pointers are not supported (function '{node.name}' used as a value)")
            return UNKNOWN
        if node.name not in self.suppressed:
            self.error(node, f"use of undeclared identifier '{node.name}'")
        return UNKNOWN

    def expr_Constant(self, node: c_ast.Constant) -> TypeInfo:
        kind = node.type
        value = node.value.lower()
        if kind == "char":
            return TypeInfo("scalar", "char")
        if kind == "string":
            return TypeInfo("pointer", target=TypeInfo("scalar", "char", space="constant", const=True))
        if "float" in kind or "double" in kind:
            if value.endswith("f"):
                return _FLOAT
            if value.endswith("h"):
                return TypeInfo("scalar", "half")
            return _DOUBLE  # an unsuffixed floating literal is a double in C, and in OpenCL C
        unsigned = "unsigned" in kind  # pycparser spells the suffix out: "unsigned long int"
        if "long" in kind:
            return _ULONG if unsigned else _LONG
        number = _int_constant(node.value)
        if number is not None and number > 0xFFFFFFFF:
            return _ULONG if unsigned else _LONG
        if number is not None and number > 0x7FFFFFFF and not unsigned:
            return _UINT if value.startswith("0") else _LONG
        return _UINT if unsigned else _INT

    def expr_ArrayRef(self, node: c_ast.ArrayRef) -> TypeInfo:
        base = self.expr(node.name)
        index = self.expr(node.subscript)
        if index.is_arithmetic and (index.kind == "vector" or index.name in _FLOATS):
            self.error(node.subscript, f"array subscript is not an integer (it is '{index.type_name}')")
        if base.kind in ("pointer", "array") and base.target is not None:
            if base.target.kind == "void":
                self.error(node, "subscript of a pointer to void")
                return UNKNOWN
            return base.target
        if base.kind == "vector":
            return TypeInfo("scalar", base.name, space=base.space, const=base.const)
        if base.kind == "unknown":
            return UNKNOWN
        self.error(node, f"subscripted value is not an array, pointer or vector (it is '{base}')")
        return UNKNOWN

    def expr_StructRef(self, node: c_ast.StructRef) -> TypeInfo:
        base = self.expr(node.name)
        member = node.field.name
        if node.type == "->":
            if base.kind == "unknown":
                return UNKNOWN
            if base.kind != "pointer" or base.target is None:
                self.error(node, f"member reference type '{base}' is not a pointer")
                return UNKNOWN
            base = base.target
        if base.kind == "vector":
            try:
                picked = swizzle_indices(member, base.width)
            except ValueError as e:
                self.error(node.field, str(e))
                return UNKNOWN
            return TypeInfo(
                "vector" if len(picked) > 1 else "scalar", base.name, len(picked), space=base.space, const=base.const
            )
        if base.kind == "struct":
            for name, t in self.types.fields(base.name):
                if name == member:
                    return TypeInfo(t.kind, t.name, t.width, t.target, base.space, base.const or t.const, t.length)
            if base.name in self.types.structs:
                self.error(node.field, f"no member named '{member}' in '{base.name}'")
            return UNKNOWN
        if base.kind == "unknown":
            return UNKNOWN
        if base.kind == "pointer":
            self.error(node, f"member reference type '{base}' is a pointer; did you mean '->'?")
            return UNKNOWN
        self.error(node, f"member reference base type '{base}' is not a structure or vector")
        return UNKNOWN

    def expr_UnaryOp(self, node: c_ast.UnaryOp) -> TypeInfo:
        op = node.op
        if op in ("sizeof", "_Alignof", "alignof"):
            if isinstance(node.expr, c_ast.Typename):
                t = self.types.resolve(node.expr.type)
                self.check_type_usable(t, node, op)
            else:
                self.expr(node.expr)
            return _ULONG
        operand = self.expr(node.expr)
        if op in ("++", "--", "p++", "p--"):
            self.check_assignable(node.expr, node)
            if operand.kind == "struct":
                self.error(node, f"cannot increment or decrement '{operand}'")
            return operand
        if op == "&":
            if isinstance(node.expr, c_ast.ID) and (
                node.expr.name in self.functions or is_builtin_function(node.expr.name)
            ):
                return UNKNOWN  # reported as a function pointer already
            if operand.kind == "unknown":
                return UNKNOWN
            return TypeInfo("pointer", target=operand)
        if op == "*":
            if operand.kind in ("pointer", "array") and operand.target is not None:
                return operand.target
            if operand.kind != "unknown":
                self.error(node, f"indirection requires a pointer operand ('{operand}' is not one)")
            return UNKNOWN
        if op == "!":
            if operand.kind == "vector":
                return TypeInfo("vector", _signed_of_size(operand.name), operand.width)
            return _INT
        if op == "~" and operand.is_arithmetic and operand.name in _FLOATS:
            self.error(node, f"invalid argument type '{operand.type_name}' to unary '~'")
            return UNKNOWN
        if op in ("-", "+", "~"):
            if operand.kind in ("pointer", "struct", "array"):
                self.error(node, f"invalid argument type '{operand}' to unary '{op}'")
                return UNKNOWN
            return _promote(operand)
        self.error(node, f"unsupported operator '{op}'")
        return UNKNOWN

    def expr_BinaryOp(self, node: c_ast.BinaryOp) -> TypeInfo:
        op = node.op
        left = self.expr(node.left)
        right = self.expr(node.right)
        if left.kind == "unknown" or right.kind == "unknown":
            if op in _COMPARISONS or op in ("&&", "||"):
                if left.kind == "vector" or right.kind == "vector":
                    v = left if left.kind == "vector" else right
                    return TypeInfo("vector", _signed_of_size(v.name), v.width)
                return _INT if "vector" not in (left.kind, right.kind) else UNKNOWN
            if op in ("+", "-") and "pointer" in (left.kind, right.kind):
                return left if left.kind == "pointer" else right if op == "+" else UNKNOWN
            if left.kind == "vector" or right.kind == "vector":
                v = left if left.kind == "vector" else right
                return TypeInfo("vector", "?", v.width)
            return UNKNOWN
        pointers = [t for t in (left, right) if t.kind in ("pointer", "array")]
        if pointers:
            return self.pointer_arithmetic(node, left, right)
        if not (left.is_arithmetic and right.is_arithmetic):
            self.error(node, f"invalid operands to binary '{op}' ('{left}' and '{right}')")
            return UNKNOWN
        if left.kind == "vector" and right.kind == "vector" and left.width != right.width:
            self.error(node, f"vector operands have different sizes ('{left.type_name}' and '{right.type_name}')")
            return UNKNOWN
        if (
            left.kind == "vector"
            and right.kind == "vector"
            and op not in ("<<", ">>")
            and "?" not in (left.name, right.name)
            and left.name != right.name
        ):
            self.error(
                node,
                f"vector operands have different element types ('{left.type_name}' and '{right.type_name}'); "
                f"use convert_{left.type_name}()",
            )
            return UNKNOWN
        if op in _INTEGER_ONLY_OPS and (left.name in _FLOATS or right.name in _FLOATS):
            self.error(
                node, f"invalid operands to binary '{op}': integers needed ('{left.type_name}' and '{right.type_name}')"
            )
            return UNKNOWN
        if op in _COMPARISONS or op in ("&&", "||"):
            if left.kind == "vector" or right.kind == "vector":
                v = left if left.kind == "vector" else right
                return TypeInfo("vector", _signed_of_size(v.name), v.width)
            return _INT
        if op in ("<<", ">>"):
            if left.kind == "scalar" and right.kind == "vector":
                return TypeInfo("vector", _promote(left).name, right.width)
            return _promote(left)
        return _arithmetic(left, right)

    def pointer_arithmetic(self, node: c_ast.BinaryOp, left: TypeInfo, right: TypeInfo) -> TypeInfo:
        op = node.op
        lp = left.kind in ("pointer", "array")
        rp = right.kind in ("pointer", "array")
        if op in _COMPARISONS or op in ("&&", "||"):
            return _INT
        if op == "-" and lp and rp:
            return _LONG
        integer = (right if lp else left).kind == "scalar" and (right if lp else left).name not in _FLOATS
        if op == "+" and (lp != rp) and integer:
            p = left if lp else right
            return TypeInfo("pointer", target=p.target) if p.kind == "array" else p
        if op == "-" and lp and not rp and integer:
            return TypeInfo("pointer", target=left.target) if left.kind == "array" else left
        self.error(node, f"invalid operands to binary '{op}' ('{left}' and '{right}')")
        return UNKNOWN

    def expr_TernaryOp(self, node: c_ast.TernaryOp) -> TypeInfo:
        cond = self.expr(node.cond)
        a = self.expr(node.iftrue)
        b = self.expr(node.iffalse)
        if cond.kind == "struct":
            self.error(node.cond, f"a condition must be a scalar, not '{cond}'")
        if a.kind == "unknown" or b.kind == "unknown":
            return a if b.kind == "unknown" else b
        if a.is_arithmetic and b.is_arithmetic:
            if a.kind == "vector" and b.kind == "vector" and a.width != b.width:
                self.error(node, f"vector operands have different sizes ('{a.type_name}' and '{b.type_name}')")
                return UNKNOWN
            return _arithmetic(a, b)
        return a

    def expr_Assignment(self, node: c_ast.Assignment) -> TypeInfo:
        target = self.expr(node.lvalue)
        value = self.expr(node.rvalue)
        self.check_assignable(node.lvalue, node)
        if node.op == "=":
            self.check_assignment_types(target, value, node, "assigning")
        elif target.kind != "unknown" and value.kind != "unknown":
            op = node.op[:-1]
            if target.kind == "pointer":
                if op not in ("+", "-") or not (value.kind == "scalar" and value.name not in _FLOATS):
                    self.error(node, f"invalid operands to '{node.op}' ('{target}' and '{value}')")
            elif not (target.is_arithmetic and value.is_arithmetic):
                self.error(node, f"invalid operands to '{node.op}' ('{target}' and '{value}')")
            elif op in _INTEGER_ONLY_OPS and (target.name in _FLOATS or value.name in _FLOATS):
                self.error(
                    node,
                    f"invalid operands to '{node.op}': integers needed ('{target.type_name}' and '{value.type_name}')",
                )
            elif value.kind == "vector" and (target.kind != "vector" or target.width != value.width):
                self.error(node, f"cannot assign '{value.type_name}' to '{target.type_name}' with '{node.op}'")
        return target

    def expr_Cast(self, node: c_ast.Cast) -> TypeInfo:
        target = self.types.resolve(node.to_type.type)
        self.check_type_usable(target, node, "cast")
        if isinstance(node.expr, c_ast.ExprList) and target.kind == "vector":
            self.vector_literal(node, target)
            return target
        value = self.expr(node.expr)
        if target.kind == "vector" and value.kind == "vector":
            if value.width != target.width:
                self.error(node, f"cannot cast '{value.type_name}' to '{target.type_name}': the sizes differ")
            elif value.name not in (target.name, "?"):
                self.error(
                    node,
                    f"cannot cast '{value.type_name}' to '{target.type_name}'; use convert_{target.type_name}() "
                    f"or as_{target.type_name}()",
                )
        elif target.kind == "scalar" and value.kind == "vector":
            self.error(node, f"cannot cast the vector '{value.type_name}' to the scalar '{target.type_name}'")
        elif target.kind in ("struct", "array"):
            self.error(node, f"cast to '{target}' is not supported")
        return TypeInfo(target.kind, target.name, target.width, target.target, "private", False, target.length)

    def vector_literal(self, node: c_ast.Cast, target: TypeInfo) -> None:
        parts = [self.expr(e) for e in node.expr.exprs]
        widths: list[int] = []
        for e, t in zip(node.expr.exprs, parts, strict=True):
            if t.kind == "vector":
                widths.append(t.width)
            elif t.kind == "scalar":
                widths.append(1)
            elif t.kind != "unknown":
                self.error(e, f"vector literal component must be a scalar or vector, not '{t}'")
                return
        if len(widths) != len(parts):
            return
        total = sum(widths)
        if total != target.width and not (len(parts) == 1 and total == 1):
            self.error(
                node,
                f"vector literal for '{target.type_name}' has {total} components, expected {target.width}"
                + (" (or 1 to fill all)" if len(parts) == 1 else ""),
            )

    def expr_ExprList(self, node: c_ast.ExprList) -> TypeInfo:
        result = UNKNOWN
        for e in node.exprs:
            result = self.expr(e)
        return result

    def expr_CompoundLiteral(self, node: c_ast.CompoundLiteral) -> TypeInfo:
        self.error(node.type, "compound literals are not supported; write vector literals as (float4)(a, b, c, d)")
        return UNKNOWN

    def expr_InitList(self, node: c_ast.InitList) -> TypeInfo:
        self.error(node, "a brace-enclosed list is only allowed as an initializer")
        return UNKNOWN

    def expr_Typename(self, node: c_ast.Typename) -> TypeInfo:
        self.error(node, "a type name is not an expression")
        return UNKNOWN

    def expr_FuncCall(self, node: c_ast.FuncCall) -> TypeInfo:
        args = list(node.args.exprs) if node.args is not None else []
        if not isinstance(node.name, c_ast.ID):
            self.expr(node.name)
            for a in args:
                self.expr(a)
            self.error(node, "calls through function pointers are not supported")
            return UNKNOWN
        name = node.name.name
        symbol = self.lookup(name)
        if symbol is None and name in self.functions and self.caller is not None:
            self.caller.calls.append((name, _coord_of(node)[0]))  # before the arguments' calls: source order
        arg_types = [self.expr(a) for a in args]
        if symbol is not None:
            self.error(node, f"called object '{name}' is not a function (it is '{symbol.type}')")
            return UNKNOWN
        if name in self.functions:
            return self.call_helper(node, name, args, arg_types)
        if name == "printf":
            self.error(node, "printf is not supported by the simulator")
            return _INT
        if is_builtin_function(name):
            return self.call_builtin(node, name, args, arg_types)
        if name in _UNSUPPORTED_BUILTINS:
            self.error(node, f"built-in function '{name}' is not supported by the simulator")
            return UNKNOWN
        if _CONVERT_RE.fullmatch(name):
            self.error(node, f"'{name}': saturation applies only to integer destinations")
            return UNKNOWN
        if name in self.suppressed:
            return UNKNOWN
        if name in self.later_functions:
            self.error(node, f"function '{name}' is used before it is declared; declare or define it first")
        else:
            self.error(node, f"call to undeclared function '{name}'")
        return UNKNOWN

    def call_helper(
        self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], arg_types: list[TypeInfo]
    ) -> TypeInfo:
        fn = self.functions[name]
        if fn.is_kernel:
            self.error(node, f"calling the kernel '{name}' from a function is not supported")
        if fn.node is None:
            self.used_undefined.append((name, node))
        wanted = len(fn.params)
        if len(args) != wanted and not (fn.variadic and len(args) >= wanted):
            plural = "" if wanted == 1 else "s"
            self.error(
                node,
                f"function '{name}' takes {wanted} argument{plural}, but {_given(len(args))}",
            )
            return fn.return_type
        for k, (a, t, p) in enumerate(zip(args, arg_types, fn.params, strict=False)):
            self.check_argument(a, t, p, f"argument {k + 1} of '{name}'")
        return fn.return_type

    def check_argument(self, node: c_ast.Node, value: TypeInfo, param: TypeInfo, what: str) -> None:
        if value.kind == "unknown" or param.kind == "unknown":
            return
        pointer_param = param.kind in ("pointer", "array")
        pointer_value = value.kind in ("pointer", "array")
        if pointer_param and not pointer_value and not _is_null(node):
            self.error(node, f"{what} must be a pointer, not '{value}'")
        elif pointer_value and not pointer_param:
            self.error(node, f"{what} must be '{param}', not the pointer '{value}'")
        elif param.is_arithmetic and value.kind == "vector" and (param.kind != "vector" or param.width != value.width):
            self.error(node, f"{what} must be '{param.type_name}', not '{value.type_name}'")

    def call_builtin(
        self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node], arg_types: list[TypeInfo]
    ) -> TypeInfo:
        arity = builtin_arity(name)
        assert arity is not None
        low, high = arity
        if not low <= len(args) <= high:
            wanted = str(low) if low == high else f"{low} to {high}"
            plural = "" if wanted == "1" else "s"
            self.error(
                node,
                f"built-in function '{name}' takes {wanted} argument{plural}, but {_given(len(args))}",
            )
            return UNKNOWN
        convert = _conversion(name)
        if convert:
            base = convert.group(1)
            width = int(convert.group(2) or 1)
            source = arg_types[0]
            result = _scalar_or_vector(base, width)
            if source.kind in ("pointer", "struct", "array"):
                self.error(node, f"'{name}' needs a scalar or vector argument, not '{source}'")
            elif name.startswith("as_"):
                have, need = source.element_size, result.element_size
                if have is not None and need is not None and have != need:
                    self.error(
                        node, f"'{name}' needs an argument of {need} bytes, not '{source.type_name}' ({have} bytes)"
                    )
            elif source.kind == "vector" and source.width != width:
                self.error(node, f"'{name}' needs a {width}-component argument, not '{source.type_name}'")
            elif source.kind == "scalar" and width > 1:
                self.error(node, f"'{name}' needs a {width}-component argument, not the scalar '{source.type_name}'")
            return result
        rule = _BUILTINS[name].result
        if rule == "size_t":
            return _ULONG
        if rule == "uint":
            return _UINT
        if rule == "void" and not name.startswith("vstore"):
            return _VOID
        if rule == "pointee":
            p = arg_types[0]
            if p.kind not in ("pointer", "unknown"):
                self.error(args[0], f"the first argument of '{name}' must be a pointer to __global or __local memory")
                return UNKNOWN
            if p.kind == "pointer" and p.target is not None:
                if p.target.space not in ("global", "local"):
                    where = p.target.space
                    self.error(args[0], f"'{name}' needs a pointer to __global or __local memory, not __{where}")
                elif p.target.const:
                    self.error(args[0], f"'{name}' cannot modify read-only memory")
                return p.target
            return UNKNOWN
        if name.startswith("vstore"):
            p = arg_types[2]
            if p.kind not in ("pointer", "array", "unknown"):
                self.error(args[2], f"the third argument of '{name}' must be a pointer")
            elif p.kind == "pointer" and p.target is not None and p.target.const:
                self.error(args[2], f"'{name}' cannot write to read-only memory")
            return _VOID
        if rule.startswith("vload"):
            p = arg_types[1]
            width = int(rule[5:])
            if p.kind not in ("pointer", "array", "unknown"):
                self.error(args[1], f"the second argument of '{name}' must be a pointer")
                return UNKNOWN
            if p.target is not None and p.target.kind == "scalar":
                return TypeInfo("vector", p.target.name, width)
            return TypeInfo("vector", "?", width)
        for a, t in zip(args, arg_types, strict=True):
            if t.kind in ("pointer", "struct", "array"):
                self.error(a, f"built-in function '{name}' needs scalar or vector arguments, not '{t}'")
                return UNKNOWN
        if any(t.kind == "unknown" for t in arg_types) and rule != "first":
            if rule == "scalar":
                return TypeInfo("scalar", "?")
            width = max((t.width for t in arg_types if t.kind == "vector"), default=0)
            return TypeInfo("vector", "?", width) if width else UNKNOWN
        first = arg_types[0]
        if rule == "first":
            return _promote(first) if first.kind != "unknown" else UNKNOWN
        if rule == "scalar":
            return TypeInfo("scalar", first.name)
        if rule == "ugentype":
            return TypeInfo(first.kind, _UNSIGNED_OF.get(first.name, first.name), first.width)
        widths = {t.width for t in arg_types if t.kind == "vector"}
        if len(widths) > 1:
            self.error(node, f"built-in function '{name}' has vector arguments of different sizes")
            return UNKNOWN
        names = {t.name for t in arg_types}
        element = names.pop() if len(names) == 1 else "?"
        width = widths.pop() if widths else 1
        return _scalar_or_vector(element, width) if element != "?" or width > 1 else TypeInfo("scalar", "?")

    # -- lvalues
    def check_assignable(self, target: c_ast.Node, at: c_ast.Node) -> None:
        problem = self.not_assignable(target)
        if problem:
            self.error(at, problem)

    def not_assignable(self, node: c_ast.Node) -> str | None:
        if isinstance(node, c_ast.ID):
            symbol = self.lookup(node.name)
            if symbol is None:
                if node.name in BUILTIN_CONSTANTS:
                    return f"cannot assign to the built-in constant '{node.name}'"
                return None  # undeclared: reported already
            if symbol.kind == "enumerator":
                return f"cannot assign to the enumerator '{node.name}'"
            if symbol.type.kind == "array":
                return f"array '{node.name}' is not assignable"
            if symbol.type.const:
                what = {"param": "parameter", "global": "__constant variable"}.get(symbol.kind, "variable")
                return f"cannot assign to const {what} '{node.name}'"
            return None
        if isinstance(node, c_ast.ArrayRef | c_ast.UnaryOp) and (isinstance(node, c_ast.ArrayRef) or node.op == "*"):
            base_node = node.name if isinstance(node, c_ast.ArrayRef) else node.expr
            base = self.expr_quiet(base_node)
            if base.kind in ("pointer", "array") and base.target is not None:
                if base.target.space == "constant":
                    return f"cannot write to __constant memory (through '{_describe(base_node)}')"
                if base.target.const:
                    return f"cannot assign through '{_describe(base_node)}': it points to const (read-only) memory"
                return None
            if base.kind == "vector":
                return self.not_assignable(base_node)
            return None
        if isinstance(node, c_ast.StructRef):
            base = self.expr_quiet(node.name)
            if node.type == "->":
                if base.kind == "pointer" and base.target is not None and base.target.const:
                    return f"cannot assign through '{_describe(node.name)}': it points to const memory"
                return None
            if base.kind == "vector":
                try:
                    picked = swizzle_indices(node.field.name, base.width)
                except ValueError:
                    return None  # reported already
                if len(set(picked)) != len(picked):
                    return f"vector swizzle '.{node.field.name}' with repeated components is not assignable"
            return self.not_assignable(node.name)
        if isinstance(node, c_ast.Cast | c_ast.FuncCall | c_ast.Constant | c_ast.BinaryOp | c_ast.TernaryOp):
            return "expression is not assignable"
        if isinstance(node, c_ast.UnaryOp | c_ast.Assignment | c_ast.ExprList):
            return "expression is not assignable"
        return None

    def expr_quiet(self, node: c_ast.Node) -> TypeInfo:
        """The type of an expression already checked (its errors are not reported twice)."""
        saved = len(self.diagnostics)
        saved_calls = len(self.caller.calls) if self.caller is not None else 0
        saved_undefined = len(self.used_undefined)
        t = self.expr(node)
        del self.diagnostics[saved:]
        if self.caller is not None:
            del self.caller.calls[saved_calls:]
        del self.used_undefined[saved_undefined:]
        return t

    def check_assignment_types(self, target: TypeInfo, value: TypeInfo, node: c_ast.Node, what: str) -> None:
        if target.kind == "unknown" or value.kind == "unknown":
            return
        if target.is_arithmetic and value.kind == "vector":
            if target.kind == "scalar":
                self.error(node, f"{what}: cannot convert the vector '{value.type_name}' to '{target.type_name}'")
            elif target.width != value.width:
                self.error(node, f"{what}: cannot convert '{value.type_name}' to '{target.type_name}'")
            elif value.name not in (target.name, "?"):
                self.error(
                    node,
                    f"{what}: cannot convert '{value.type_name}' to '{target.type_name}' implicitly; "
                    f"use convert_{target.type_name}()",
                )
        elif target.is_arithmetic and value.kind in ("pointer", "array", "struct"):
            self.error(node, f"{what}: cannot convert '{value}' to '{target.type_name}'")
        elif target.kind == "pointer" and (value.kind == "vector" or value.name in _FLOATS):
            self.error(node, f"{what}: cannot convert '{value}' to the pointer '{target}'")
        elif target.kind == "struct" and value.kind != "struct":
            self.error(node, f"{what}: cannot convert '{value}' to '{target}'")


def _given(count: int) -> str:
    return f"{count} {'was' if count == 1 else 'were'} given"


def _is_null(node: c_ast.Node) -> bool:
    return isinstance(node, c_ast.Constant) and node.value == "0"


def _describe(node: c_ast.Node) -> str:
    if isinstance(node, c_ast.ID):
        return str(node.name)
    if isinstance(node, c_ast.ArrayRef | c_ast.StructRef):
        return _describe(node.name)
    if isinstance(node, c_ast.UnaryOp | c_ast.Cast):
        return _describe(node.expr)
    return "expression"


def _signed_of_size(name: str) -> str:
    """The signed scalar of ``name``'s size (the element type of a vector comparison's result)."""
    return comparison_type(ctype_lookup(name).vector(2)).name if name in SCALAR_SIZES else "int"


def _ctype(t: TypeInfo) -> CType | None:
    try:
        scalar = ctype_lookup(t.name)
    except KeyError:
        return None
    return scalar.vector(t.width) if t.kind == "vector" else scalar


def _promote(t: TypeInfo) -> TypeInfo:
    """C's integer promotion, by the rules the executor computes with (:mod:`wia_sim.kernels.ctype`)."""
    c = _ctype(t) if t.kind == "scalar" else None
    if c is not None:
        return _scalar_or_vector(promoted(c).name, 1)
    if t.kind in ("scalar", "vector"):
        return TypeInfo(t.kind, t.name, t.width)
    return t


def _arithmetic(a: TypeInfo, b: TypeInfo) -> TypeInfo:
    """The usual arithmetic conversions (C99 6.3.1.8) with OpenCL's scalar-to-vector widening, as the executor
    applies them (:func:`wia_sim.kernels.ctype.common_type`); "?" where an operand's type is not known."""
    if a.kind == "vector" and b.kind == "vector" and a.name != b.name:
        return TypeInfo("vector", "?", a.width)
    ca, cb = _ctype(a), _ctype(b)
    if ca is None or cb is None:
        v = a if a.kind == "vector" else b
        return TypeInfo("vector", v.name, v.width) if v.kind == "vector" else TypeInfo("scalar", "?")
    try:
        c = common_type(ca, cb)
    except TypeError:
        return TypeInfo("vector", "?", max(a.width, b.width))
    return _scalar_or_vector(c.name, c.width)


# ---------------------------------------------------------------------------------------------------------------
# Entry point


# pycparserext cannot parse a type name inside an attribute: __attribute__((vec_type_hint(float4))) is a hint
# with no meaning for the simulator, so its argument becomes 0 (same length: columns stay the user's)
_VEC_TYPE_HINT_RE = re.compile(r"(vec_type_hint\s*\(\s*)([A-Za-z_]\w*)(\s*\))")


def _hide_type_hint(m: re.Match[str]) -> str:
    return m.group(1) + "0".ljust(len(m.group(2))) + m.group(3)


def compile_source(source: str, options: str = "", filename: str = "kernel.cl") -> Program:
    """Preprocess, parse and check ``source``; the program, or KernelCompileError with the whole build log."""
    diagnostics: list[Diagnostic] = []

    def fail() -> KernelCompileError:
        return KernelCompileError(format_log(diagnostics), diagnostics=diagnostics, source=source, options=options)

    try:
        pp = preprocess(source, options, filename)
    except RecursionError:
        diagnostics.append(Diagnostic(filename, None, None, "macro invocations nest too deeply"))
        raise fail() from None
    diagnostics.extend(pp.diagnostics)
    if pp.errors:
        raise fail()
    outcome = _parse(_VEC_TYPE_HINT_RE.sub(_hide_type_hint, pp.text))
    for line, column, message in outcome.errors:
        diagnostics.append(Diagnostic(filename, line, column, message))
    checker = _Checker(filename, outcome.failed_names)
    try:
        checker.run(outcome.ast)
    except RecursionError:
        checker.error(None, "the program nests too deeply to check")
    diagnostics.extend(checker.diagnostics)
    if any(d.severity == "error" for d in diagnostics):
        raise fail()
    return Program(
        kernels=checker.kernels,
        functions=checker.helpers,
        ast=outcome.ast,
        filename=filename,
        source_lines=source.replace("\r\n", "\n").split("\n"),
        constants=checker.constants,
        enumerators=checker.enumerators,
        options=options,
        build_log=format_log(diagnostics),
        preprocessed=pp.text,
        _types=checker.types,
    )
