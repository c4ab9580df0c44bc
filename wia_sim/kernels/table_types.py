"""The checker's side of ``tables.py``: the argument types the OpenCL C 1.2 section 6.12 built-ins there accept,
and their result types.

The overload a call picks is Clang's (``overloads.resolve``): vectors do not convert, a scalar converts and is
splatted where a vector is wanted (``hadd(int4, 3)``, ``isequal(float4, 1)``), and scalars of different types
are an ambiguous call unless one overload is best for every argument (``add_sat(short, int)`` is ambiguous).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pycparser import c_ast

from wia_sim.kernels.overloads import best, rank, resolve, unresolved
from wia_sim.kernels.types import INT, ULONG, UNKNOWN, UNSIGNED_OF, TypeInfo, scalar_or_vector

__all__ = [
    "INTEGER_GENTYPE", "RELATIONAL1", "RELATIONAL2", "TABLE_FUNCTIONS", "check_table_call", "resolved_call",
    "upsample_overload",
]  # fmt: skip

Error = Callable[[c_ast.Node, str], None]
Converted = Callable[[c_ast.FuncCall, c_ast.Node, TypeInfo, TypeInfo], None]
"""Called for a call's argument pointer (at the node, of the first type) that converts to a pointer to the second
type, with Clang's warning (``check_calls.pointer_converted``)."""

_FLOATS = ("float", "double", "half")
_SIGNED = ("char", "short", "int", "long")
_INTEGERS = (*_SIGNED, "uchar", "ushort", "uint", "ulong")
_SIZES = {"char": 1, "uchar": 1, "short": 2, "ushort": 2, "int": 4, "uint": 4, "long": 8, "ulong": 8}
_SIZES.update({"half": 2, "float": 4, "double": 8})
_SIGNED_OF_SIZE = {1: "char", 2: "short", 4: "int", 8: "long"}
_UPSAMPLE = {"char": "short", "uchar": "ushort", "short": "int", "ushort": "uint", "int": "long", "uint": "ulong"}

INTEGER_GENTYPE = "add_sat sub_sat hadd rhadd mul_hi mad_hi mad_sat abs_diff".split()  # noqa: SIM905
RELATIONAL2 = frozenset(
    "isequal isnotequal isgreater isgreaterequal isless islessequal islessgreater isordered isunordered".split()  # noqa: SIM905
)
RELATIONAL1 = frozenset(("isfinite", "isinf", "isnan", "isnormal", "signbit"))

TABLE_FUNCTIONS: dict[str, tuple[int, int]] = {
    **dict.fromkeys(("fract", "frexp", "modf", "sincos", "lgamma_r"), (2, 2)),
    "remquo": (3, 3),
    "nan": (1, 1),
    **{n: (3, 3) if n in ("mad_hi", "mad_sat") else (2, 2) for n in INTEGER_GENTYPE},
    "mul24": (2, 2),
    "mad24": (3, 3),
    "upsample": (2, 2),
    **dict.fromkeys(("degrees", "radians", "sign", "fast_length", "fast_normalize"), (1, 1)),
    "mix": (3, 3),
    "step": (2, 2),
    "smoothstep": (3, 3),
    **dict.fromkeys(("distance", "fast_distance", "dot", "cross"), (2, 2)),
    **dict.fromkeys(("length", "normalize"), (1, 1)),
    **dict.fromkeys(RELATIONAL2, (2, 2)),
    **dict.fromkeys(RELATIONAL1, (1, 1)),
    **dict.fromkeys(("any", "all", "vec_step"), (1, 1)),
    "bitselect": (3, 3),
    "shuffle": (2, 2),
    "shuffle2": (3, 3),
}
"""The built-ins checked here, with their (fewest, most) arguments."""


def _known(t: TypeInfo) -> bool:
    return t.kind in ("scalar", "vector") and t.name != "?"


def _need(name: str, allowed: tuple[str, ...], types: list[TypeInfo], error: Error, node: c_ast.Node) -> bool:
    """Whether every argument is of an element among ``allowed``, else Clang's error (``_refused``)."""
    for t in types:
        if t.kind in ("pointer", "array", "struct", "void", "opaque") or (_known(t) and t.name not in allowed):
            _refused(name, t, error, node)
            return False
    return True


def _refused(name: str, t: TypeInfo, error: Error, node: c_ast.Node) -> None:
    """Clang's error at the call for an argument of type ``t`` that no overload of ``name`` takes as it is: a
    scalar converts to every overload's parameter alike ("call to ... is ambiguous"), a vector, a pointer or a
    struct to none ("no matching function for call to ...")."""
    ambiguous = t.kind == "scalar" and _known(t)
    error(node, unresolved(name, "the call is ambiguous" if ambiguous else "no matching function"))


def _result(types: list[TypeInfo]) -> TypeInfo:
    for t in types:
        if t.kind == "vector":
            return TypeInfo("vector", t.name, t.width)
    for t in types:
        if _known(t):
            return TypeInfo("scalar", t.name)
    return UNKNOWN


def _gentype_call(
    name: str, elements: Sequence[str], types: list[TypeInfo], error: Error, node: c_ast.Node
) -> TypeInfo:
    """The gentype of a built-in whose parameters all take it, among ``elements``, as Clang's overload resolution
    picks it: a vector argument only itself, a scalar converted and splatted (``hadd(int4, 3)``, ``isequal(f4,
    1)``), several scalars of different types ambiguous unless one overload is best (``hadd(int, short)`` is);
    UNKNOWN after the error."""
    for t in types:
        if t.kind in ("pointer", "array", "struct", "void", "opaque") or (
            t.kind == "vector" and _known(t) and t.name not in elements
        ):
            _refused(name, t, error, node)
            return UNKNOWN
    if not all(_known(t) for t in types):
        return _result(types)
    return resolved_call(name, types, elements, ["g" * len(types)], error, node)


def _truth_type(t: TypeInfo) -> TypeInfo:
    if t.kind == "vector":
        return TypeInfo("vector", _SIGNED_OF_SIZE[_SIZES[t.name]] if t.name in _SIZES else "?", t.width)
    return INT


def _pointer_out(
    name: str,
    args: list[c_ast.Node],
    types: list[TypeInfo],
    error: Error,
    node: c_ast.Node,
    floating: Sequence[str],
    converted: Converted,
) -> TypeInfo:
    """fract/modf/sincos(x, gentype*), frexp/lgamma_r(x, intn*), remquo(x, y, intn*), as Clang resolves them among
    the device's ``floating`` types: the overloads whose pointer parameter the pointer matches exactly, a scalar
    value converted and splatted (``remquo(float4, 1, &q4)``, ``fract(i, &f)``: a float). Where no overload takes
    the pointer, the values pick it and the pointer converts to its parameter's type (``converted``: Clang's
    warning; it stores through the pointer as that type, past the object it points to if that is smaller)."""
    values, p = types[:-1], types[-1]
    for t in values:
        if t.kind in ("pointer", "array", "struct", "void", "opaque") or (
            t.kind == "vector" and _known(t) and t.name not in floating
        ):
            _refused(name, t, error, node)
            return UNKNOWN
    x = _result(values)
    if p.kind not in ("pointer", "array", "unknown"):  # a value converts to no pointer, a null pointer constant to all
        null = isinstance(args[-1], c_ast.Constant) and args[-1].value in ("0", "0u", "0U", "0l", "0L")
        error(node, unresolved(name, "the call is ambiguous" if null else "no matching function"))
        return UNKNOWN
    target = p.target
    if target is None or not _known(target) or not all(_known(t) for t in values):
        return x if x.name in floating or x.kind == "unknown" else UNKNOWN
    if p.kind == "pointer" and (target.const or target.space == "constant"):  # (it stores through it)
        error(node, unresolved(name, "no matching function"))
        return UNKNOWN
    int_out = name in ("frexp", "lgamma_r", "remquo")
    width = target.width if target.kind == "vector" else 1
    viable: list[tuple[str, list[int]]] = []
    for element in floating:
        if target.name != ("int" if int_out else element):
            continue
        ranks = [rank((t.name, t.width if t.kind == "vector" else 1), element, width) for t in values]
        if all(r is not None for r in ranks):
            viable.append((element, [r for r in ranks if r is not None]))
    chosen = best(viable)
    if isinstance(chosen, int):
        return scalar_or_vector(viable[chosen][0], width)
    if not viable and x.name in floating:  # what the values alone call, and the pointer that would go with it
        converted(node, args[-1], p, scalar_or_vector("int", x.width if x.kind == "vector" else 1) if int_out else x)
        return x
    error(node, unresolved(name, chosen))
    return UNKNOWN


def _integer(name: str, types: list[TypeInfo], error: Error, node: c_ast.Node) -> TypeInfo:
    if name in ("mul24", "mad24"):
        if not _need(name, (*_INTEGERS, *_FLOATS), types, error, node):  # (an arithmetic scalar, an int or uint vector)
            return UNKNOWN
        if not all(_known(t) for t in types):
            return UNKNOWN
        return resolved_call(name, types, ("int", "uint"), ["g" * len(types)], error, node)
    r = _gentype_call(name, _INTEGERS, types, error, node)
    if name == "abs_diff" and _known(r):
        return TypeInfo(r.kind, UNSIGNED_OF.get(r.name, r.name), r.width)
    return r


def upsample_overload(hi: tuple[str, int], lo: tuple[str, int]) -> str | tuple[str, int]:
    """The overload of ``upsample`` that arguments of shapes ``hi`` and ``lo`` ((element, width)) call, as Clang
    resolves it among OpenCL C 1.2's (``short upsample(char hi, uchar lo)`` ... ``ulong upsample(uint hi, uint
    lo)``): its ``hi`` element and width (``upsample(1, 2)`` converts the 2 to a uint), or why there is none."""
    width = max(hi[1], lo[1])
    viable: list[tuple[str, list[int]]] = []
    for element in _UPSAMPLE:
        ranks = [rank(hi, element, width), rank(lo, UNSIGNED_OF.get(element, element), width)]
        if None not in ranks:
            viable.append((element, [r for r in ranks if r is not None]))
    chosen = best(viable)
    return chosen if isinstance(chosen, str) else (viable[chosen][0], width)


def _upsample(types: list[TypeInfo], error: Error, node: c_ast.Node) -> TypeInfo:
    if not _need("upsample", tuple(_UPSAMPLE), types, error, node):  # (integers of up to 32 bits)
        return UNKNOWN
    if not all(_known(t) for t in types):
        return UNKNOWN
    hi, lo = ((t.name, t.width if t.kind == "vector" else 1) for t in types)
    chosen = upsample_overload(hi, lo)
    if isinstance(chosen, str):
        error(node, unresolved("upsample", chosen))
        return UNKNOWN
    return scalar_or_vector(_UPSAMPLE[chosen[0]], chosen[1])


def _float_common(
    name: str,
    types: list[TypeInfo],
    error: Error,
    node: c_ast.Node,
    scalar_ok: set[int],
    floating: tuple[str, ...],
) -> TypeInfo:
    """Float gentype arguments; those at ``scalar_ok`` may be the scalar instead (``mix(v, v, 0.5f)``): the overload
    Clang picks among the device's ``floating`` types (``overloads.resolve``: ``mix(v, v, 1)`` converts the 1)."""
    if not all(_known(t) for t in types):
        return _result(types)
    forms = ["g" * len(types)]
    if scalar_ok:
        forms.append("".join("s" if k in scalar_ok else "g" for k in range(len(types))))
    return resolved_call(name, types, floating, forms, error, node)


def resolved_call(
    name: str, types: list[TypeInfo], elements: Sequence[str], forms: Sequence[str], error: Error, node: c_ast.Node
) -> TypeInfo:
    """The gentype of the overload of built-in ``name`` that arguments of ``types`` (known scalars and vectors)
    call, among ``elements`` in ``forms`` (``overloads.resolve``); UNKNOWN after Clang's error when none or more
    than one is best."""
    chosen = resolve([(t.name, t.width if t.kind == "vector" else 1) for t in types], elements, forms)
    if isinstance(chosen, str):
        error(node, unresolved(name, chosen))
        return UNKNOWN
    return scalar_or_vector(*chosen)


def _geometric(name: str, types: list[TypeInfo], error: Error, node: c_ast.Node, floating: tuple[str, ...]) -> TypeInfo:
    allowed = ("float",) if name.startswith("fast_") else floating
    r = _gentype_call(name, allowed, types, error, node)
    if (r.kind == "vector" and r.width > 4) or (name == "cross" and _known(r) and r.width not in (3, 4)):
        # (scalars convert to cross's float3 and float4 alike)
        scalars = name == "cross" and r.kind == "scalar"
        error(node, unresolved(name, "the call is ambiguous" if scalars else "no matching function"))
        return UNKNOWN
    if name in ("fast_normalize", "normalize", "cross") or r.kind == "unknown":
        return r
    return TypeInfo("scalar", r.name)


def _shuffle(name: str, types: list[TypeInfo], error: Error, node: c_ast.Node) -> TypeInfo:
    *xs, mask = types
    for t in types:
        if t.kind == "unknown":
            return UNKNOWN
        if t.kind != "vector" or t.width == 3:  # (2-, 4-, 8- or 16-component vectors)
            _refused(name, t, error, node)
            return UNKNOWN
    x = xs[0]
    unsigned = ("uchar", "ushort", "uint", "ulong")
    # two inputs of one type, a mask of the unsigned integers of their elements' size
    mismatched = len(xs) == 2 and xs[0].type_name != xs[1].type_name
    if mismatched or (
        _known(mask) and _known(x) and (mask.name not in unsigned or _SIZES[mask.name] != _SIZES.get(x.name))
    ):
        error(node, unresolved(name, "no matching function"))
        return UNKNOWN
    return TypeInfo("vector", x.name, mask.width)


def check_table_call(
    name: str,
    args: list[c_ast.Node],
    types: list[TypeInfo],
    error: Error,
    node: c_ast.Node,
    converted: Converted,
    floating: tuple[str, ...] = _FLOATS,
) -> TypeInfo:
    """The result type of a call to one of ``TABLE_FUNCTIONS`` (arity already checked); reports what is wrong.
    ``floating``: the device's floating-point types (``overloads.floats``), among which overloads are picked."""
    if name in ("fract", "frexp", "modf", "sincos", "lgamma_r", "remquo"):
        return _pointer_out(name, args, types, error, node, floating, converted)
    if name == "shuffle" or name == "shuffle2":
        return _shuffle(name, types, error, node)
    for t in types:
        if t.kind in ("pointer", "array", "struct", "void", "opaque"):
            _refused(name, t, error, node)
            return UNKNOWN
    if name == "vec_step":  # a size_t, as Clang's (PoCL 3.1 and Oclgrind 21.10: sizeof(vec_step(x)) is 8)
        return ULONG
    if name == "nan":
        codes = ("uint", "ulong", "ushort")
        if not _need(name, codes, types, error, node):
            return UNKNOWN
        t = types[0]
        element = {"uint": "float", "ulong": "double", "ushort": "half"}.get(t.name, "?")
        return TypeInfo(t.kind, element, t.width) if _known(t) else UNKNOWN
    if name in INTEGER_GENTYPE or name in ("mul24", "mad24"):
        return _integer(name, types, error, node)
    if name == "upsample":
        return _upsample(types, error, node)
    if name in ("degrees", "radians", "sign"):
        return _float_common(name, types, error, node, set(), floating)
    if name == "mix":
        return _float_common(name, types, error, node, {2}, floating)
    if name == "step":
        return _float_common(name, types, error, node, {0}, floating)
    if name == "smoothstep":
        return _float_common(name, types, error, node, {0, 1}, floating)
    if name in ("distance", "fast_distance", "fast_length", "fast_normalize", "dot", "cross", "length", "normalize"):
        return _geometric(name, types, error, node, floating)
    if name in RELATIONAL2 or name in RELATIONAL1:
        r = _gentype_call(name, floating, types, error, node)
        return _truth_type(r) if r.kind != "unknown" else UNKNOWN
    if name in ("any", "all"):
        if not _need(name, _SIGNED, types, error, node):
            return UNKNOWN
        return INT
    if name == "bitselect":
        return _gentype_call(name, (*_INTEGERS, *floating), types, error, node)
    raise AssertionError(name)
