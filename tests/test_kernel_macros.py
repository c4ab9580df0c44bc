"""The preprocessor's ``#`` (stringize, C99 6.10.3.2) and ``##`` (token paste, 6.10.3.3), checked on the
standard's own examples (6.10.3.5) and on kernels that build vector types and kernel names with them, run on the
simulator and, where installed, on PoCL and Oclgrind against NumPy; and the build options on warnings."""

from __future__ import annotations

import re

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.preprocess import preprocess
from wia_sim.kernels.program import KernelCompileError


def expanded(source: str) -> str:
    """The preprocessed text, white space collapsed (the tests compare tokens, not layout)."""
    pp = preprocess(source, "", "kernel.cl", frozenset())
    assert not pp.errors, pp.diagnostics
    return re.sub(r"\s+", " ", pp.text).strip()


def test_placemarkers_of_empty_arguments() -> None:
    """C99 6.10.3.5 EXAMPLE 5: an empty argument beside ``##`` pastes as nothing."""
    source = (
        "#define t(x,y,z) x ## y ## z\n"
        "int j[] = { t(1,2,3), t(,4,5), t(6,,7), t(8,9,), t(10,,), t(,11,), t(,,12), t(,,) };\n"
    )
    assert expanded(source) == "int j[] = { 123, 45, 67, 89, 10, 11, 12, };"


def test_stringize_and_paste_in_the_order_the_standard_gives() -> None:
    """C99 6.10.3.5 EXAMPLE 4: ``#`` spells the argument before expansion, escaping quotes and backslashes in
    literals; ``xstr`` expands first; ``##`` pastes unexpanded arguments and the result is rescanned."""
    source = (
        "#define str(s) # s\n"
        "#define xstr(s) str(s)\n"
        "#define INCFILE(n) vers ## n\n"
        'a = str(strncmp("abc\\0d", "abc", \'\\4\') == 0);\n'
        "b = xstr(INCFILE(2).h);\n"
        "c = str( spaced    out\targs );\n"
    )
    assert expanded(source) == (
        r"""a = "strncmp(\"abc\\0d\", \"abc\", '\\4') == 0"; b = "vers2.h"; c = "spaced out args";"""
    )


def test_a_pasted_hash_hash_is_not_an_operator() -> None:
    """C99 6.10.3.5 EXAMPLE (6.10.3.3p4): ``# ## #`` makes a ``##`` token that is not pasted again."""
    source = (
        "#define hash_hash # ## #\n"
        "#define mkstr(a) # a\n"
        "#define in_between(a) mkstr(a)\n"
        "#define join(c, d) in_between(c hash_hash d)\n"
        "char p[] = join(x, y);\n"
    )
    assert expanded(source) == 'char p[] = "x ## y";'


SOURCE = r"""
#define VEC(t, n) t ## n
#define LOAD(n) vload ## n
#define KERNEL(name) kernel_ ## name
#define NAME(name) #name

__kernel void KERNEL(scale)(__global const float* x, __global VEC(float, 4)* out)
{
    const int i = get_global_id(0);
    VEC(float, 4) v = LOAD(4)(i, x);
    out[i] = v * (float)(sizeof(NAME(scale)) - 1);     // "scale": 5 characters
}
"""


def test_pasted_names_and_types_in_a_kernel(device_ctx: wia.Context) -> None:
    n = 16
    x = np.random.default_rng(41).uniform(-1, 1, 4 * n).astype(np.float32)
    got = run_arrays(device_ctx, SOURCE, "kernel_scale", [x, np.full(4 * n, np.nan, np.float32)], n, 8)[1]
    np.testing.assert_array_equal(got, x * 5)


@pytest.mark.parametrize(
    ("options", "log"),
    [
        ("", "kernel.cl:1:2: warning: careful"),
        ("-w", ""),
        ("-Werror -w", ""),
        ("-w -Werror", ""),
    ],
)
def test_warning_options(options: str, log: str) -> None:
    """``-w`` and ``-Werror`` (OpenCL 1.2 5.6.4.5; they were refused as unknown options): ``-w`` wins."""
    assert compile_source(WARNS, options).build_log == log


def test_werror_makes_a_warning_stop_the_build() -> None:
    with pytest.raises(KernelCompileError, match=r"kernel\.cl:1:2: error: careful"):
        compile_source(WARNS, "-Werror -cl-mad-enable")


WARNS = "#warning careful\n__kernel void k(__global float* o) { o[0] = 1.0f; }\n"


NAMED_VARIADIC = """
#define make_int2(x...) ((int2) (x))
#define SUM(first, rest...) (first + add(rest))
int add(int a, int b) { return a * 10 + b; }
__kernel void named(__global int2* out, __global int* o2) { out[0] = make_int2(1, 2); o2[0] = SUM(5, 3, 4); }
"""


def test_gnu_named_variadic_parameters(device_ctx: wia.Context) -> None:
    """``x...`` names the variadic parameter (GNU; Clang takes it: OpenMM's common.cl defines make_int2 so)."""
    assert expanded("#define F(a, rest...) g(a, rest)\nF(1, 2, 3)") == "g(1, 2, 3)"
    out, o2 = run_arrays(device_ctx, NAMED_VARIADIC, "named", [np.zeros(2, np.int32), np.zeros(1, np.int32)], 1, 1)
    np.testing.assert_array_equal(out, [1, 2])
    np.testing.assert_array_equal(o2, [5 + 34])
