"""Clang's feature-check macros: ``__has_feature(x)``, ``__has_extension(x)``, ``__has_builtin(x)`` and
``__has_attribute(x)``, which kernels test to pick a code path (``#if __has_extension(c_generic_selections)``).

Clang (PoCL 3.1's 15.0.6 and Oclgrind 21.10's 14.0.6, measured with ``-cl-std=CL1.2``) expands each to 1 or 0
anywhere, not only in ``#if``; it takes the identifier as written (never macro-expanded) and ``__x__`` as ``x``.
The simulator answers 1 only for what it builds and runs as Clang does, so that a kernel's fallback path is taken
for the rest: where Clang says 1 but the simulator has no support (``__builtin_isless``, ``_Atomic``,
``mode``), it says 0. Unknown names are 0, as in Clang.
"""

from __future__ import annotations

from wia_sim.kernels.clang_attributes import normalized

__all__ = ["CHECKS", "check"]

_FEATURES = frozenset(
    {
        # Clang: 1 for __has_feature and __has_extension in every language mode
        "attribute_ext_vector_type",
        "enumerator_attributes",
        "nullability",
        "attribute_overloadable",
        "attribute_deprecated_with_message",
        "attribute_unavailable_with_message",
        "attribute_availability",
    }
)
_EXTENSIONS = _FEATURES | {
    # C11 features Clang offers C99 (OpenCL C 1.2) as extensions: __has_feature says 0, __has_extension 1
    "c_generic_selections",
    "c_static_assert",
    "c_alignas",
    "c_alignof",
}
_BUILTINS = frozenset(
    {
        "__builtin_expect",
        "__builtin_unreachable",
        "__builtin_constant_p",
        "__builtin_offsetof",
        "__builtin_memcpy",
        "__builtin_memmove",
        "__builtin_memset",
    }
)
_ATTRIBUTES = frozenset(
    {
        "aligned",
        "packed",
        "reqd_work_group_size",
        "work_group_size_hint",
        "vec_type_hint",
        "nosvm",
        "opencl_unroll_hint",
        "ext_vector_type",
        "overloadable",
        "always_inline",
        "noinline",
        "const",
        "pure",
        "unused",
        "used",
        "deprecated",
        "unavailable",
        "availability",
        "cold",
        "hot",
        "noreturn",
        "section",
        "weak",
        "visibility",
    }
)
CHECKS: dict[str, frozenset[str]] = {
    "__has_feature": _FEATURES,
    "__has_extension": _EXTENSIONS,
    "__has_builtin": _BUILTINS,
    "__has_attribute": _ATTRIBUTES,
}
"""The feature-check macros and the names each answers 1 for (``__has_builtin`` also for the GNU library built-ins
``gnu_builtins`` rewrites: ``check``)."""


def check(macro: str, name: str) -> int:
    """``macro(name)``'s value: 1 or 0. Clang reads ``__x__`` as ``x`` (``__has_attribute(__aligned__)``), but for
    builtins, whose names are their own."""
    if macro != "__has_builtin":
        name = normalized(name)
    if macro == "__has_builtin" and name not in _BUILTINS:
        from wia_sim.kernels.gnu_builtins import ARITIES  # (here: it loads the parser, which a build loads anyway)

        return int(name in ARITIES)
    return int(name in CHECKS[macro])
