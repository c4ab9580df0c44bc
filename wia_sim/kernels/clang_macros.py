"""The target macros Clang predefines for OpenCL C on a 64-bit little-endian device, which kernels test to pick a
path (``__LITTLE_ENDIAN__``, ``__SIZEOF_POINTER__``, ``__BYTE_ORDER__``) or use as types and limits
(``__UINT64_TYPE__``, ``__FLT_EPSILON__``). They are the macros that ``clang-15 -cc1 -x cl -cl-std=CL1.2 -dM -E``
defines alike for the triples ``x86_64-pc-linux-gnu`` (PoCL 3.1's) and ``spir64-unknown-unknown`` (Oclgrind
21.10's), and that PoCL 3.1 and Oclgrind 21.10 both define in a kernel: OpenCL C 1.2 fixes the sizes (6.1.1:
``char`` 8 bits, ``short`` 16, ``int`` 32, ``long`` 64; the device's pointers are 64 bits wide). Left out: those of
one target only (``__x86_64__``, ``__SPIR64__``), of types OpenCL C 1.2 reserves (``long long``, ``long double``,
128-bit integers), ``__IMAGE_SUPPORT__`` (the simulator has no images; 6.10 defines it only for a device with
them) and Clang's announcements of its own extensions (``__cl_clang_function_pointers``), which the simulator
does not offer."""

from __future__ import annotations

__all__ = ["TARGET_MACROS", "option_macros"]


def _integer_macros() -> dict[str, str]:
    """``__INT32_TYPE__``, ``__UINT8_MAX__``, ``__INT_FAST16_WIDTH__``, ``__INT64_FMTd__``, ...: Clang's names for
    the exact-width, least and fast integer types (each the exact one of its width on both targets)."""
    kinds = {  # width: (signed type, unsigned type, constant suffix signed/unsigned, printf length)
        8: ("signed char", "unsigned char", "", "", "hh"),
        16: ("short", "unsigned short", "", "", "h"),
        32: ("int", "unsigned int", "", "U", ""),
        64: ("long int", "long unsigned int", "L", "UL", "l"),
    }
    out: dict[str, str] = {}
    for width, (signed, unsigned, s_suffix, u_suffix, length) in kinds.items():
        signed_max = f"{2 ** (width - 1) - 1}{s_suffix}"
        unsigned_max = f"{2**width - 1}{u_suffix}"
        for infix in (f"{width}", f"_LEAST{width}", f"_FAST{width}"):
            out[f"__INT{infix}_TYPE__"] = signed
            out[f"__INT{infix}_MAX__"] = signed_max
            out[f"__UINT{infix}_TYPE__"] = unsigned
            out[f"__UINT{infix}_MAX__"] = unsigned_max
            out.update({f"__INT{infix}_FMT{c}__": f'"{length}{c}"' for c in "di"})
            out.update({f"__UINT{infix}_FMT{c}__": f'"{length}{c}"' for c in "ouxX"})
            if infix != f"{width}":
                out[f"__INT{infix}_WIDTH__"] = str(width)
        out[f"__INT{width}_C_SUFFIX__"] = s_suffix
        out[f"__UINT{width}_C_SUFFIX__"] = u_suffix
    for name, is_signed in (("INTPTR", True), ("UINTPTR", False), ("PTRDIFF", True), ("SIZE", False)):
        out[f"__{name}_TYPE__"] = "long int" if is_signed else "long unsigned int"
        out[f"__{name}_MAX__"] = "9223372036854775807L" if is_signed else "18446744073709551615UL"
        out[f"__{name}_WIDTH__"] = "64"
        out.update({f"__{name}_FMT{c}__": f'"l{c}"' for c in ("di" if is_signed else "ouxX")})
    return out


def _floating_macros() -> dict[str, str]:
    """``__FLT_MAX__``, ``__DBL_EPSILON__``, ...: <float.h>'s values in Clang's spelling."""
    values = {
        "FLT": ("9", "1.40129846e-45F", "6", "1.19209290e-7F", "24", "38", "128", "3.40282347e+38F", "(-37)",
                "(-125)", "1.17549435e-38F"),
        "DBL": ("17", "4.9406564584124654e-324", "15", "2.2204460492503131e-16", "53", "308", "1024",
                "1.7976931348623157e+308", "(-307)", "(-1021)", "2.2250738585072014e-308"),
    }  # fmt: skip
    fields = ("DECIMAL_DIG", "DENORM_MIN", "DIG", "EPSILON", "MANT_DIG", "MAX_10_EXP", "MAX_EXP", "MAX", "MIN_10_EXP",
              "MIN_EXP", "MIN")  # fmt: skip
    out = {
        f"__{kind}_{field}__": value for kind, row in values.items() for field, value in zip(fields, row, strict=True)
    }
    out.update({f"__{kind}_HAS_{what}__": "1" for kind in values for what in ("DENORM", "INFINITY", "QUIET_NAN")})
    out["__FLT_RADIX__"] = "2"
    return out


TARGET_MACROS: dict[str, str] = {
    "__LITTLE_ENDIAN__": "1",
    "__ORDER_LITTLE_ENDIAN__": "1234",
    "__ORDER_BIG_ENDIAN__": "4321",
    "__ORDER_PDP_ENDIAN__": "3412",
    "__BYTE_ORDER__": "__ORDER_LITTLE_ENDIAN__",
    "__LP64__": "1",
    "_LP64": "1",
    "__CHAR_BIT__": "8",
    "__BOOL_WIDTH__": "8",
    "__POINTER_WIDTH__": "64",
    "__SIZEOF_SHORT__": "2",
    "__SIZEOF_INT__": "4",
    "__SIZEOF_LONG__": "8",
    "__SIZEOF_FLOAT__": "4",
    "__SIZEOF_DOUBLE__": "8",
    "__SIZEOF_POINTER__": "8",
    "__SIZEOF_SIZE_T__": "8",
    "__SIZEOF_PTRDIFF_T__": "8",
    "__SCHAR_MAX__": "127",
    "__SHRT_MAX__": "32767",
    "__INT_MAX__": "2147483647",
    "__LONG_MAX__": "9223372036854775807L",
    "__SHRT_WIDTH__": "16",
    "__INT_WIDTH__": "32",
    "__LONG_WIDTH__": "64",
    **_integer_macros(),
    **_floating_macros(),
    # the memory orders and scopes of Clang's atomic built-ins and OpenCL C 2.0's atomics
    **{
        f"__ATOMIC_{order}": str(k)
        for k, order in enumerate(["RELAXED", "CONSUME", "ACQUIRE", "RELEASE", "ACQ_REL", "SEQ_CST"])
    },
    **{
        f"__OPENCL_MEMORY_SCOPE_{scope}": str(k)
        for k, scope in enumerate(["WORK_ITEM", "WORK_GROUP", "DEVICE", "ALL_SVM_DEVICES", "SUB_GROUP"])
    },
    "__opencl_c_int64": "1",  # (OpenCL C 3.0's feature macro; Clang defines it for every version)
    "cles_khr_int64": "1",
    "__llvm__": "1",
    "__clang_version__": '"15.0.6 "',
    "__STRICT_ANSI__": "1",
    "__NO_MATH_ERRNO__": "1",
}
"""Clang's target macros, the same for every build."""


def option_macros(options: list[str]) -> dict[str, str]:
    """The macros Clang defines by the build options (PoCL 3.1 defines them so; Oclgrind 21.10 always builds as
    with -cl-opt-disable, and defines no fast-math macro): ``__OPTIMIZE__`` or, with -cl-opt-disable,
    ``__NO_INLINE__``; ``__FINITE_MATH_ONLY__`` 1 with -cl-finite-math-only or -cl-fast-relaxed-math, which also
    defines ``__FAST_MATH__`` and OpenCL C 1.2 6.10's ``__FAST_RELAXED_MATH__``."""
    out = {"__NO_INLINE__": "1"} if "-cl-opt-disable" in options else {"__OPTIMIZE__": "1"}
    relaxed = "-cl-fast-relaxed-math" in options
    out["__FINITE_MATH_ONLY__"] = "1" if relaxed or "-cl-finite-math-only" in options else "0"
    if relaxed:
        out |= {"__FAST_MATH__": "1", "__FAST_RELAXED_MATH__": "1"}
    return out
