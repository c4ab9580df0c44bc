"""The kernel language (an OpenCL C subset): its preprocessor and front end, and the executor's building blocks.

``compile_source`` turns source text into a checked ``Program``; a bad source raises ``KernelCompileError``
whose ``build_log`` has one ``kernel.cl:LINE:COL: error: ...`` line per problem.
"""

from wia_sim.kernels.frontend import compile_source
from wia_sim.kernels.preprocess import PREDEFINED_MACROS, Diagnostic, PreprocessResult, preprocess
from wia_sim.kernels.program import (
    FunctionInfo,
    KernelCompileError,
    KernelInfo,
    KernelNotFound,
    LocalVar,
    Param,
    Program,
)
from wia_sim.kernels.signatures import BUILTIN_CONSTANTS, BUILTIN_FUNCTIONS, builtin_arity, is_builtin_function
from wia_sim.kernels.types import TypeInfo, swizzle_indices

__all__ = [
    "BUILTIN_CONSTANTS",
    "BUILTIN_FUNCTIONS",
    "PREDEFINED_MACROS",
    "Diagnostic",
    "FunctionInfo",
    "KernelCompileError",
    "KernelInfo",
    "KernelNotFound",
    "LocalVar",
    "Param",
    "PreprocessResult",
    "Program",
    "TypeInfo",
    "builtin_arity",
    "compile_source",
    "is_builtin_function",
    "preprocess",
    "swizzle_indices",
]
