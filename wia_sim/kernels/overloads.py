"""Which overload of a built-in a call picks, as Clang's overload resolution picks among the declarations of
OpenCL C's headers (``opencl-c.h``): for each argument the conversion to the parameter is ranked, exact match over
integer or float promotion over conversion over a scalar's splat to a vector, and the one overload at least as good
for every argument and better for one wins; when none does the call is ambiguous (``max(f, 1)``, ``sqrt(2)``,
``clamp(x, 0, 1)`` for a float ``x``), a build error on every device. Vectors convert to nothing but themselves.

An overload family is its element types and its forms: which parameters take the gentype (the element type at the
call's vector width) and which its scalar (``max(gentype, sgentype)``)."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "CONVERSION",
    "EXACT",
    "INTEGERS",
    "SPLAT",
    "Arg",
    "best",
    "candidates",
    "floats",
    "rank",
    "resolve",
    "unresolved",
]

INTEGERS = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong")
_PROMOTED_TO_INT = frozenset({"bool", "char", "uchar", "short", "ushort"})
EXACT, _PROMOTION, CONVERSION, SPLAT = 4, 3, 2, 1

Arg = tuple[str, int]
"""An argument's element type and width (1: a scalar)."""


def floats(fp64: bool, fp16: bool) -> tuple[str, ...]:
    """The floating-point element types a device's headers declare built-ins for."""
    return ("float", *(("double",) if fp64 else ()), *(("half",) if fp16 else ()))


def rank(arg: Arg, element: str, width: int) -> int | None:
    """How an argument converts to a parameter of ``element`` at ``width`` (None: it does not)."""
    name, w = arg
    if w > 1:  # a vector: only itself
        return EXACT if (name, w) == (element, width) else None
    if width > 1:
        return SPLAT
    if name == element:
        return EXACT
    if (element == "int" and name in _PROMOTED_TO_INT) or (element == "double" and name == "float"):
        return _PROMOTION
    return CONVERSION


_SIZE = {"char": 1, "uchar": 1, "short": 2, "ushort": 2, "half": 2, "int": 4, "uint": 4, "float": 4}
_SIGNED = {1: "char", 2: "short", 4: "int", 8: "long"}


def _parameter(element: str, marker: str) -> str:
    """The element type of a parameter marked ``marker`` in an overload of gentype ``element``: ``g``/``s`` the
    element itself, ``i``/``u`` the signed/unsigned integer of its size (``select``'s third parameter), ``n``/``m``
    an ``int`` at the gentype's width/a scalar ``int`` (``rootn(floatn, intn)``, ``ldexp(floatn, int)``)."""
    if marker in "gs":
        return element
    if marker in "nm":
        return "int"
    signed = _SIGNED[_SIZE.get(element, 8)]
    return signed if marker == "i" else "u" + signed


def resolve(args: Sequence[Arg], elements: Sequence[str], forms: Sequence[str]) -> Arg | str:
    """The gentype (element type, width) of the overload ``args`` call, among ``elements`` in ``forms`` (one letter
    per parameter: ``g`` the gentype, ``s`` its scalar, ``i``/``u`` the signed/unsigned integer gentype of its
    element's size, ``n``/``m`` an int gentype/scalar: ``_parameter``); or why there is none: "no matching
    function" or "the call is ambiguous". The width is the vector arguments' (they must agree), else 1."""
    widths = {w for _, w in args if w > 1}
    if len(widths) > 1:
        return "no matching function (vector arguments of different lengths)"
    viable = candidates(args, elements, forms)
    chosen = best(viable)
    if isinstance(chosen, str):
        return chosen
    return viable[chosen][0], widths.pop() if widths else 1


def candidates(args: Sequence[Arg], elements: Sequence[str], forms: Sequence[str]) -> list[tuple[str, list[int]]]:
    """The overloads ``args`` can call, as (element type, each argument's rank) pairs: what ``best`` picks from,
    alone or beside a program's own function of the built-in's name (``check_calls.call_overload``)."""
    widths = {w for _, w in args if w > 1}
    if len(widths) > 1:
        return []
    width = widths.pop() if widths else 1
    viable: list[tuple[str, list[int]]] = []
    for element in elements:
        for form in forms:
            if len(form) != len(args) or (width == 1 and ("s" in form or "m" in form)):
                continue  # (at width 1 an s-form is its g-form, an m-form its n-form)
            ranks = [
                rank(a, _parameter(element, f), 1 if f in "sm" else width) for a, f in zip(args, form, strict=True)
            ]
            if all(r is not None for r in ranks):
                viable.append((element, [r for r in ranks if r is not None]))
    return viable


def unresolved(name: str, why: str) -> str:
    """Clang's error for a call of ``name`` that overload resolution leaves without one best candidate (``why``:
    ``best``'s or ``resolve``'s reason)."""
    if why == "the call is ambiguous":
        return f"call to '{name}' is ambiguous"
    return f"no matching function for call to '{name}'"


def best(viable: Sequence[tuple[str, list[int]]]) -> str | int:
    """The index of the candidate whose ranks are at least as good as every other's for each argument and better
    for one (``viable``: (name, ranks) pairs), or why there is none."""
    winners = [
        k
        for k, (_, ranks) in enumerate(viable)
        if all(
            all(a >= b for a, b in zip(ranks, other, strict=True)) and ranks != other
            for j, (_, other) in enumerate(viable)
            if j != k
        )
    ]
    if len(winners) != 1:
        return "no matching function" if not viable else "the call is ambiguous"
    return winners[0]
