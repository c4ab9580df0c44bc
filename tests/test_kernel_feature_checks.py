"""Clang's feature-check macros and version macros (``wia_sim/kernels/features.py``): kernels pick a code path with
``#if __has_extension(c_generic_selections) && (__clang_major__ < 6)`` (PoCL's own kernel tests start so: the
simulator refused that line, "missing binary operator before token '('"), ``__has_builtin(__builtin_expect)`` or
``__has_attribute(packed)``. Clang expands them to 1 or 0 anywhere (not only in ``#if``), takes the identifier
unexpanded and ``__x__`` as ``x``; the simulator says 1 only where it builds and runs what the name promises, so a
kernel falls back where it would not. Values and errors measured on PoCL 3.1 (Clang 15.0.6) and Oclgrind 21.10
(Clang 14.0.6); the device test holds every backend to the values where the simulator and both Clangs agree."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import assert_refused, run_arrays

import wia_hal as wia
from wia_sim.kernels.features import CHECKS

# (macro, name, the simulator's answer); Clang 14 and 15 answer 1 for every name below but those marked 0, 0
AGREED = [
    ("__has_extension", "c_generic_selections", 1),
    ("__has_feature", "c_generic_selections", 0),  # (a C11 feature: an extension in C99)
    ("__has_extension", "c_static_assert", 1),
    ("__has_extension", "c_alignof", 1),
    ("__has_feature", "attribute_ext_vector_type", 1),
    ("__has_extension", "no_such_feature", 0),  # (Clang: 0, 0)
    ("__has_builtin", "__builtin_expect", 1),
    ("__has_builtin", "__builtin_unreachable", 1),
    ("__has_builtin", "__builtin_offsetof", 1),
    ("__has_builtin", "__builtin_assume", 1),
    ("__has_builtin", "__builtin_memcpy", 1),
    ("__has_builtin", "__builtin_popcountll", 1),
    ("__has_builtin", "__builtin_nanf", 1),
    ("__has_builtin", "__builtin_isless", 1),
    ("__has_feature", "nullability", 1),
    ("__has_feature", "enumerator_attributes", 1),
    ("__has_builtin", "get_global_id", 0),  # (Clang: 0: a library function, not a builtin)
    ("__has_attribute", "packed", 1),
    ("__has_attribute", "__aligned__", 1),
    ("__has_attribute", "reqd_work_group_size", 1),
    ("__has_attribute", "nodiscard", 0),  # (Clang: 0 in C)
]
SIMULATOR_ONLY_NO = [
    # Clang says 1; the simulator has no support, so a kernel must take its fallback path there
    ("__has_builtin", "__builtin_atan2f"),  # (a call of the C library's atan2f, which no device links)
    ("__has_extension", "c_atomic"),
    ("__has_attribute", "mode"),
]

ANSWERS = "".join(f"    o[{k}] = {macro}({name});\n" for k, (macro, name, _) in enumerate(AGREED))
SOURCE = (
    "#define c_static_assert no_such_feature\n"  # (the argument is not expanded)
    "__kernel void k(__global int* o) {\n"
    + ANSWERS
    + f"#if defined(__clang__) && __clang_major__ >= 14 && defined(__has_feature) && defined(__has_builtin)\n"
    f"    o[{len(AGREED)}] = 1;\n"
    "#endif\n"
    "#if __has_extension(c_generic_selections) && (__clang_major__ < 6)\n"
    f"    o[{len(AGREED) + 1}] = _Generic((float)0, float: 2, default: 3);\n"
    "#else\n"
    f"    o[{len(AGREED) + 1}] = 4;\n"
    "#endif\n"
    "}\n"
)


def test_the_feature_checks_answer_as_clang_does(device_ctx: wia.Context) -> None:
    (o,) = run_arrays(device_ctx, SOURCE, "k", [np.zeros(len(AGREED) + 2, np.int32)], 1, 1)
    np.testing.assert_array_equal(o[: len(AGREED)], [answer for _, _, answer in AGREED])
    np.testing.assert_array_equal(o[len(AGREED) :], [1, 4])


@pytest.mark.parametrize(("macro", "name"), SIMULATOR_ONLY_NO)
def test_the_simulator_says_no_for_what_it_does_not_support(macro: str, name: str) -> None:
    assert name not in CHECKS[macro]
    ctx = wia.create_context()
    src = f"__kernel void k(__global int* o) {{\n#if {macro}({name})\n    o[0] = 1;\n#else\n    o[0] = 2;\n#endif\n}}\n"
    (o,) = run_arrays(ctx, src, "k", [np.zeros(1, np.int32)], 1, 1)
    assert o[0] == 2


@pytest.mark.parametrize(
    ("line", "message", "at"),
    [
        ("#if __has_feature\n#endif", "missing '(' after '__has_feature'", "1:18"),
        ("#if __has_feature(1)\n#endif", "builtin feature check macro requires a parenthesized identifier", "1:19"),
        ("#if __has_attribute(a b)\n#endif", "missing ')' after 'a'", "1:23"),
    ],
)
def test_a_malformed_check_is_clangs_error(
    device_ctx: wia.Context, request: pytest.FixtureRequest, line: str, message: str, at: str
) -> None:
    assert_refused(device_ctx, request, line + "\n__kernel void k(__global int* o) { o[0] = 1; }\n", message, at)
