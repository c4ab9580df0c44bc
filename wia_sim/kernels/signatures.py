"""The built-in functions and constants as the checker sees them: names, arities, and result types.

Only signatures live here; the executor's implementations of the math built-ins are in ``builtins.py``.
``UNSUPPORTED_BUILTINS`` lists the OpenCL C built-ins the simulator lacks, so that a call to one is reported as not
supported rather than as undeclared.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from wia_sim.kernels.table_types import INTEGER_GENTYPE, RELATIONAL1, RELATIONAL2, TABLE_FUNCTIONS
from wia_sim.kernels.types import FLOATS, VECTOR_WIDTHS

__all__ = [
    "BUILTINS",
    "BUILTIN_CONSTANTS",
    "BUILTIN_FUNCTIONS",
    "CONVERT_RE",
    "GNU_BUILTINS",
    "MEMORY_BUILTINS",
    "OVERLOADED",
    "SINCE_1_2",
    "UNSUPPORTED_BUILTINS",
    "builtin_arity",
    "constant_type",
    "conversion",
    "is_builtin_function",
]

BUILTIN_CONSTANTS: dict[str, int | float] = {
    "CLK_LOCAL_MEM_FENCE": 1,
    "CLK_GLOBAL_MEM_FENCE": 2,
    "INFINITY": math.inf,
    "HUGE_VALF": math.inf,
    "HUGE_VAL": math.inf,
    # Clang's opencl-c-base.h: ``as_float(INT_MAX)``, bits 0x7fffffff (PoCL 3.1, Oclgrind 21.10), not 0x7fc00000
    "NAN": float(np.uint32(0x7FFFFFFF).view(np.float32)),
}
"""Identifiers the kernel language predefines, with their values (the fence flags are cl_mem_fence_flags
(uint), the rest float; OpenCL C 1.2, 6.12.2 and 6.12.8). Numeric limits and math constants such as FLT_MAX
and M_PI_F are predefined macros instead (``preprocess.PREDEFINED_MACROS``)."""


@dataclass(frozen=True)
class _Builtin:
    min_args: int
    max_args: int
    result: str  # how the result type follows from the arguments; see Checker.call_builtin


MATH_UNARY = tuple(
    """acos acosh acospi asin asinh asinpi atan atanh atanpi cbrt cosh sinh cospi sinpi tanpi erf erfc exp10 expm1
    log10 log1p logb rint tgamma lgamma""".split()  # noqa: SIM905
)
MATH_BINARY = tuple("atan2 atan2pi copysign fdim hypot maxmag minmag nextafter remainder".split())  # noqa: SIM905


def _table() -> dict[str, _Builtin]:
    table: dict[str, _Builtin] = {}
    for name in ("get_global_id", "get_local_id", "get_group_id", "get_global_size", "get_local_size"):
        table[name] = _Builtin(1, 1, "size_t")
    for name in ("get_num_groups", "get_global_offset"):
        table[name] = _Builtin(1, 1, "size_t")
    table["get_work_dim"] = _Builtin(0, 0, "uint")
    table["barrier"] = _Builtin(1, 1, "void")
    for name in ("mem_fence", "read_mem_fence", "write_mem_fence"):
        table[name] = _Builtin(1, 1, "void")
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
    # OpenCL C 1.2, 6.12.2, Table 6.8: the math functions without pointer arguments
    for name in MATH_UNARY:
        table[name] = _Builtin(1, 1, "gentype")
    for name in MATH_BINARY:
        table[name] = _Builtin(2, 2, "samegentype")  # no (gentype, float) forms for these in Table 6.8
    table["ilogb"] = _Builtin(1, 1, "intn")
    for name in ("ldexp", "rootn", "pown"):
        table[name] = _Builtin(2, 2, "gentype")  # (gentype x, intn k): ``OVERLOADED``
    for name in ("fma", "mad"):
        table[name] = _Builtin(3, 3, "gentype")
    for name in ("clamp", "select"):
        table[name] = _Builtin(3, 3, "first")
    table["abs"] = _Builtin(1, 1, "ugentype")
    # integer functions beyond the list: the kernel corpus (tests/kernels/corpus/uint_hash.cl) uses them
    table["rotate"] = _Builtin(2, 2, "first")
    table["popcount"] = _Builtin(1, 1, "own")  # gentype popcount(gentype): clz(char) is a char (Table 6.10)
    table["clz"] = _Builtin(1, 1, "own")
    for prefix in ("native_", "half_"):
        for name in ("cos", "exp", "exp2", "exp10", "log", "log2", "log10", "rsqrt", "sin", "sqrt", "tan", "recip"):
            table[prefix + name] = _Builtin(1, 1, "gentype")
        for name in ("powr", "divide"):
            table[prefix + name] = _Builtin(2, 2, "gentype")
    # async copies and prefetch (6.12.10): checked and run by async_copy.py
    table["async_work_group_copy"] = _Builtin(4, 4, "event")
    table["async_work_group_strided_copy"] = _Builtin(5, 5, "event")
    table["wait_group_events"] = _Builtin(2, 2, "void")
    table["prefetch"] = _Builtin(2, 2, "void")
    for width in VECTOR_WIDTHS:
        table[f"vload{width}"] = _Builtin(2, 2, f"vload{width}")
        table[f"vstore{width}"] = _Builtin(3, 3, "void")
    # half as a storage type (OpenCL C 1.2, 6.12.7): floats in registers, halves in memory, on any device
    for suffix in ("", *(str(w) for w in VECTOR_WIDTHS)):
        table[f"vload_half{suffix}"] = _Builtin(2, 2, f"vload_half{suffix or 1}")
        for rounding in ("", "_rte", "_rtz", "_rtp", "_rtn"):
            table[f"vstore_half{suffix}{rounding}"] = _Builtin(3, 3, "void")
            if suffix:  # 6.12.7: vloada_halfN/vstorea_halfN, N-aligned (a 3-vector as 4)
                table[f"vstorea_half{suffix}{rounding}"] = _Builtin(3, 3, "void")
        if suffix:
            table[f"vloada_half{suffix}"] = _Builtin(2, 2, f"vload_half{suffix}")
    # the rest of OpenCL C 1.2, 6.12: table_types.py types them, tables.py evaluates them
    for name, (low, high) in TABLE_FUNCTIONS.items():
        table[name] = _Builtin(low, high, "table")
    return table


def _families() -> dict[str, tuple[str, tuple[str, ...]]]:
    """The built-ins whose overload a call picks by Clang's rules (``overloads.resolve``): their element types
    ("all", "floats" for the device's, "float" only, "integers", "uint" only) and forms, from OpenCL C 1.2
    6.12.1-6.12.6."""
    families: dict[str, tuple[str, tuple[str, ...]]] = {}
    for name in ("min", "max"):
        families[name] = ("all", ("gg", "gs"))
    families["clamp"] = ("all", ("ggg", "gss"))
    for name in ("fmin", "fmax"):
        families[name] = ("floats", ("gg", "gs"))
    for name in ("pow", "powr", "fmod", *MATH_BINARY):
        families[name] = ("floats", ("gg",))
    for name in ("mad", "fma"):
        families[name] = ("floats", ("ggg",))
    unary = ("sqrt", "rsqrt", "exp", "exp2", "log", "log2", "sin", "cos", "tan", "tanh", "fabs")
    for name in (*unary, "floor", "ceil", "round", "trunc", *MATH_UNARY):
        families[name] = ("floats", ("g",))
    for prefix in ("native_", "half_"):
        for name in ("cos", "exp", "exp2", "exp10", "log", "log2", "log10", "rsqrt", "sin", "sqrt", "tan", "recip"):
            families[prefix + name] = ("float", ("g",))
        for name in ("powr", "divide"):
            families[prefix + name] = ("float", ("gg",))
    for name in ("rootn", "pown"):
        families[name] = ("floats", ("gn",))
    families["ldexp"] = ("floats", ("gn", "gm"))
    families["rotate"] = ("integers", ("gg",))
    families["abs"] = ("integers", ("g",))  # (ugentype abs(gentype): ``abs(1.5f)`` is ambiguous, as in Clang)
    families["select"] = ("all", ("ggi", "ggu"))  # 6.12.6: the selector an integer of the element's size
    for name in ("clz", "popcount"):
        families[name] = ("integers", ("g",))  # (gentype clz(gentype): ``clz(1.5f)`` is ambiguous, as in Clang)
    # Table functions (``table_types`` checks them; here for ``check_calls.builtin_candidates``' ranks)
    for name in INTEGER_GENTYPE:
        families[name] = ("integers", ("ggg",) if name in ("mad_hi", "mad_sat") else ("gg",))
    for name in ("degrees", "radians", "sign", "length", "normalize", *RELATIONAL1):
        families[name] = ("floats", ("g",))
    for name in ("distance", "dot", "cross", *RELATIONAL2):
        families[name] = ("floats", ("gg",))
    for name in ("fast_length", "fast_normalize"):
        families[name] = ("float", ("g",))
    families["fast_distance"] = ("float", ("gg",))
    families["mix"] = ("floats", ("ggg", "ggs"))
    families["step"] = ("floats", ("gg", "sg"))
    families["smoothstep"] = ("floats", ("ggg", "ssg"))
    families["ilogb"] = ("floats", ("g",))
    for name in ("get_global_id", "get_local_id", "get_group_id", "get_global_size", "get_local_size"):
        families[name] = ("uint", ("g",))  # size_t get_global_id(uint dimindx)
    for name in ("get_num_groups", "get_global_offset"):
        families[name] = ("uint", ("g",))
    return families


BUILTINS = _table()
OVERLOADED = _families()
SINGLE_DECLARATIONS = frozenset(
    {"get_work_dim", "get_global_size", "get_global_id", "get_local_size", "get_local_id", "get_num_groups"}
    | {"get_group_id", "get_global_offset", "barrier", "mem_fence", "read_mem_fence", "write_mem_fence", "printf"}
    | {"wait_group_events"}
)
"""The built-ins Clang's header declares once (every other one is overloaded): a name of one used as a value is
"taking address of function is not allowed", of another "reference to overloaded function could not be resolved"
(measured with clang-15 -cc1)."""
BUILTIN_FUNCTIONS: frozenset[str] = frozenset(BUILTINS)
"""The built-in functions the simulator implements, by name; ``convert_<type>[_sat][_rte|_rtz|_rtp|_rtn]`` and
``as_<type>`` families come on top (``is_builtin_function``)."""

_TYPE_NAME = r"(char|uchar|short|ushort|int|uint|long|ulong|float|double|half)(2|3|4|8|16)?"
CONVERT_RE = re.compile(rf"convert_{_TYPE_NAME}(_sat)?(_rte|_rtz|_rtp|_rtn)?")
_AS_RE = re.compile(rf"as_{_TYPE_NAME}")

# OpenCL C built-ins the simulator does not implement: a call gets "not supported", not "undeclared"
UNSUPPORTED_BUILTINS = frozenset(
    """work_group_barrier atomic_load atomic_store atomic_init atomic_exchange atomic_fetch_add atomic_fetch_sub
    atomic_fetch_and atomic_fetch_or atomic_fetch_xor atomic_fetch_min atomic_fetch_max
    atomic_compare_exchange_strong atomic_compare_exchange_weak atomic_work_item_fence get_local_linear_id
    get_global_linear_id get_enqueued_local_size sub_group_barrier work_group_reduce_add work_group_reduce_min
    work_group_reduce_max work_group_broadcast work_group_all work_group_any""".split()  # noqa: SIM905
)


GNU_BUILTINS = {
    "__builtin_expect": 2,
    "__builtin_constant_p": 1,
    "__builtin_unreachable": 0,
    "__builtin_memcpy": 3,
    "__builtin_memmove": 3,
    "__builtin_memset": 3,
}
"""Clang's GNU built-ins that OpenCL C takes and real kernels use, with their number of arguments
(``check_calls.gnu_builtin``; the library ones that mean OpenCL C: ``gnu_builtins.py``)."""
MEMORY_BUILTINS = frozenset({"__builtin_memcpy", "__builtin_memmove", "__builtin_memset"})
"""The GNU built-ins that copy or fill bytes through pointers into any address space (``exec_calls.bytes_moved``)."""

SINCE_1_2 = frozenset({"popcount", "printf"})
"""The built-in functions OpenCL C 1.2 added (6.12.3, 6.12.13): under ``-cl-std=CL1.1`` they are not declared (Clang's
opencl-c.h; PoCL 3.1 and Oclgrind 21.10 agree), so a call is undeclared and a program may define its own."""


def constant_type(name: str, fp64: bool) -> str:
    """The type of the built-in constant ``name``: the fence flags ``uint``, ``HUGE_VAL`` a ``double`` on a device
    with doubles (6.12.2: Clang's ``__builtin_huge_val()``), the others ``float``."""
    if name.startswith("CLK_"):
        return "uint"
    return "double" if name == "HUGE_VAL" and fp64 else "float"


def conversion(name: str) -> re.Match[str] | None:
    """``convert_<type>[_sat][_rounding]`` or ``as_<type>``; saturation only for integer destinations."""
    m = CONVERT_RE.fullmatch(name)
    if m is not None and m.group(3) and m.group(1) in FLOATS:
        return None
    return m or _AS_RE.fullmatch(name)


def is_builtin_function(name: str) -> bool:
    """Is ``name`` a built-in function the simulator implements?"""
    return name in BUILTINS or conversion(name) is not None


def builtin_arity(name: str) -> tuple[int, int] | None:
    """(fewest, most) arguments of a built-in function; None if ``name`` is not one."""
    if name in BUILTINS:
        b = BUILTINS[name]
        return (b.min_args, b.max_args)
    if conversion(name) is not None:
        return (1, 1)
    return None
