"""The macros OpenCL C 1.2 defines for every kernel (6.12.2 floating-point limits and math constants, 6.7.2's
``__kernel_exec``, the extensions a device has), with the values and ``#ifdef`` answers PoCL 3.1 and Oclgrind 21.10
give: real kernels use them (pyopencl's ``pyopencl-complex.h`` and special functions test ``DBL_MAX`` and
``DBL_EPSILON``; code guards atomics with ``#ifdef cl_khr_global_int32_base_atomics``). The simulator lacked the
``DBL_*`` limits, ``FLT_*_EXP``, ``M_LOG2E``, ``M_LOG10E``, ``M_2_SQRTPI``, ``FP_ILOGB0``/``FP_ILOGBNAN``,
``__kernel_exec`` and the extension macros, and ``#ifdef INFINITY`` was false. On every backend."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia

INTS = [
    "DBL_DIG",
    "DBL_MANT_DIG",
    "DBL_MAX_EXP",
    "DBL_MIN_EXP",
    "DBL_MAX_10_EXP",
    "DBL_MIN_10_EXP",
    "DBL_RADIX",
    "FLT_MAX_EXP",
    "FLT_MIN_EXP",
    "FLT_MAX_10_EXP",
    "FLT_MIN_10_EXP",
    "FP_ILOGB0",
    "FP_ILOGBNAN",
]
EXPECTED_INTS = [15, 53, 1024, -1021, 308, -307, 2, 128, -125, 38, -37, -(2**31), 2**31 - 1]

SOURCE = (
    "#ifdef cl_khr_fp64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#endif\n"
    "__kernel_exec(1, float4) void macros(__global int* io, __global float* fo)\n{\n"
    + "".join(f"    io[{k}] = {name};\n" for k, name in enumerate(INTS))
    + """
#if defined(INFINITY) && defined(NAN) && defined(HUGE_VALF) && defined(HUGE_VAL) && defined(CLK_LOCAL_MEM_FENCE)
    io[13] = 1;
#endif
    io[14] = cl_khr_global_int32_base_atomics + cl_khr_global_int32_extended_atomics
        + cl_khr_local_int32_base_atomics + cl_khr_local_int32_extended_atomics + cl_khr_int64_base_atomics
        + cl_khr_int64_extended_atomics + cl_khr_byte_addressable_store;
#ifdef cl_khr_fp64
    io[15] = (DBL_EPSILON == 2.220446049250313e-16) + 2 * (DBL_MIN == 2.2250738585072014e-308)
        + 4 * (DBL_MAX == 1.7976931348623157e+308) + 8 * (M_LOG10E == 0.4342944819032518)
        + 16 * (M_LOG2E == 1.4426950408889634) + 32 * (M_2_SQRTPI == 1.1283791670955126);
#else
    io[15] = 63;
#endif
    io[16] = ilogb(0.0f) == FP_ILOGB0 && ilogb(NAN) == FP_ILOGBNAN;
    fo[0] = (float)M_LOG10E;
    fo[1] = (float)M_2_SQRTPI;
    fo[2] = isinf(INFINITY) + isnan(NAN);
}
"""
)


def test_predefined_macros_have_the_devices_values(device_ctx: wia.Context) -> None:
    io, fo = run_arrays(device_ctx, SOURCE, "macros", [np.zeros(17, np.int32), np.zeros(3, np.float32)], 1, 1)
    np.testing.assert_array_equal(io[:13], EXPECTED_INTS)
    np.testing.assert_array_equal(io[13:], [1, 7, 63, 1])
    np.testing.assert_array_equal(fo, np.array([np.log10(np.e), 2 / np.sqrt(np.pi), 2], np.float32))


LINE_DIRECTIVE = """#line 40 "generated.cl"
__kernel void lines(__global int* o)
{
    o[0] = __LINE__;
    o[1] = sizeof(__FILE__);
#ifdef CL_VERSION_2_0
    o[2] = CL_VERSION_2_0 + CL_VERSION_3_0 / 100;
#endif
}
"""


def test_line_directive_and_later_version_macros(device_ctx: wia.Context) -> None:
    """``#line 40 "generated.cl"`` (the Khronos CTS starts its preprocessor test so; the simulator refused it) sets
    what ``__LINE__`` and ``__FILE__`` give from the next line on; ``CL_VERSION_2_0`` and ``CL_VERSION_3_0`` are
    defined (Clang's headers name them whatever the version: CTS kernels compare ``__OPENCL_VERSION__`` with
    them)."""
    (o,) = run_arrays(device_ctx, LINE_DIRECTIVE, "lines", [np.zeros(3, np.int32)], 1, 1)
    np.testing.assert_array_equal(o, [42, len("generated.cl") + 1, 203])


TARGET_MACROS = {  # as `clang-15 -cc1 -x cl -dM -E` gives them for x86_64 and spir64 alike
    "__LITTLE_ENDIAN__": "1",
    "__BYTE_ORDER__": "1234",
    "__SIZEOF_POINTER__": "8",
    "__SIZEOF_LONG__": "8",
    "__SIZEOF_SIZE_T__": "8",
    "__LP64__": "1",
    "__CHAR_BIT__": "8",
    "__INT_MAX__": "2147483647",
    "__UINT64_MAX__": "18446744073709551615UL",
    "__UINT32_C_SUFFIX__": "U",
    "__INT_FAST16_WIDTH__": "16",
    "__INT64_FMTd__": '"ld"',
    "__PTRDIFF_TYPE__": "long int",
    "__UINT8_TYPE__": "unsigned char",
    "__FLT_EPSILON__": "1.19209290e-7F",
    "__DBL_MAX__": "1.7976931348623157e+308",
    "__FLT_MIN_EXP__": "(-125)",
    "__ATOMIC_SEQ_CST": "5",
    "__OPENCL_MEMORY_SCOPE_DEVICE": "2",
    "__FINITE_MATH_ONLY__": "0",
}


def _expansions(ctx: wia.Context, names: list[str], options: str = "") -> list[str]:
    """What each macro expands to, through ``#``; "-" for one not defined."""
    prelude = "#define STR(x) #x\n#define XSTR(x) STR(x)\n" + "".join(
        f'#ifdef {name}\n#define V{k} XSTR({name})\n#else\n#define V{k} "-"\n#endif\n' for k, name in enumerate(names)
    )
    body = "".join(
        f"{{ __constant char* s = V{k}; for (int j = 0; j < 31 && s[j]; j++) out[{32 * k} + j] = s[j]; }}\n"
        for k in range(len(names))
    )
    source = prelude + "__kernel void k(__global char* out) {\n" + body + "}\n"
    (out,) = run_arrays(ctx, source, "k", [np.zeros(32 * len(names), np.uint8)], 1, 1, options=options)
    return [bytes(out[32 * k : 32 * (k + 1)]).rstrip(b"\0").decode() for k in range(len(names))]


def test_clangs_target_macros(device_ctx: wia.Context) -> None:
    """Kernels test ``__LITTLE_ENDIAN__``, ``__SIZEOF_POINTER__`` or ``__BYTE_ORDER__`` to pick a path and use
    ``__UINT64_TYPE__`` as a type; the simulator defined none of Clang's target macros."""
    assert _expansions(device_ctx, list(TARGET_MACROS)) == list(TARGET_MACROS.values())
    source = "__kernel void k(__global __UINT64_TYPE__* out, __global __INT8_TYPE__* b) { *out = sizeof(*b); }"
    (out, _) = run_arrays(device_ctx, source, "k", [np.zeros(1, np.uint64), np.zeros(1, np.int8)], 1, 1)
    assert out[0] == 1
    source = "__kernel void k(__global int* out) {\n#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__\n*out = 1;\n#endif\n}"
    assert run_arrays(device_ctx, source, "k", [np.zeros(1, np.int32)], 1, 1)[0][0] == 1


@pytest.mark.parametrize(
    ("options", "defined"),
    [
        ("", ["__OPTIMIZE__"]),
        ("-cl-opt-disable", ["__NO_INLINE__"]),
        ("-cl-finite-math-only", ["__OPTIMIZE__", "__FINITE_MATH_ONLY__"]),
        ("-cl-fast-relaxed-math", ["__OPTIMIZE__", "__FINITE_MATH_ONLY__", "__FAST_MATH__", "__FAST_RELAXED_MATH__"]),
    ],
)
def test_the_macros_build_options_define(
    device_ctx: wia.Context, request: pytest.FixtureRequest, options: str, defined: list[str]
) -> None:
    """As Clang defines them and PoCL 3.1 passes them on (Oclgrind 21.10 builds everything as with
    -cl-opt-disable and defines no fast-math macro)."""
    if request.node.callspec.params.get("device_ctx") == "oclgrind":
        defined = ["__NO_INLINE__"]
    names = ["__OPTIMIZE__", "__NO_INLINE__", "__FINITE_MATH_ONLY__", "__FAST_MATH__", "__FAST_RELAXED_MATH__"]
    finite = "1" if "__FINITE_MATH_ONLY__" in defined else "0"
    expected = [finite if name == "__FINITE_MATH_ONLY__" else "1" if name in defined else "-" for name in names]
    assert _expansions(device_ctx, names, options) == expected
