"""The kernel language (an OpenCL C subset): its preprocessor and front end, and the executor's building blocks.

``compile_source`` turns source text into a checked ``Program``; a bad source raises ``KernelCompileError``
whose ``build_log`` has one ``kernel.cl:LINE:COL: error: ...`` line per problem.

The front end (pycparser and the checker, about 0.1 s to import) loads on first use of a name below, so that a
program that never compiles a kernel does not pay for it (PEP 562 module ``__getattr__``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Bound now, not lazily: the function shares its submodule's name, and importing the submodule later (as the front
# end does) would set the package's attribute to the module. It loads no parser (~10 ms).
from wia_sim.kernels.preprocess import PREDEFINED_MACROS, Diagnostic, PreprocessResult, preprocess

if TYPE_CHECKING:
    from wia_sim.kernels.executor import KernelFault, RunResult, UnsupportedKernel, run_kernel
    from wia_sim.kernels.frontend import compile_source
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
    from wia_sim.kernels.writes import kernel_writes

_HOME = {
    "compile_source": "frontend",
    "run_kernel": "executor",
    "kernel_writes": "writes",
    "RunResult": "executor",
    "KernelFault": "spaces",
    "UnsupportedKernel": "spaces",
    "FunctionInfo": "program",
    "KernelCompileError": "program",
    "KernelInfo": "program",
    "KernelNotFound": "program",
    "LocalVar": "program",
    "Param": "program",
    "Program": "program",
    "BUILTIN_CONSTANTS": "signatures",
    "BUILTIN_FUNCTIONS": "signatures",
    "builtin_arity": "signatures",
    "is_builtin_function": "signatures",
    "TypeInfo": "types",
    "swizzle_indices": "types",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "BUILTIN_CONSTANTS",
    "BUILTIN_FUNCTIONS",
    "PREDEFINED_MACROS",
    "Diagnostic",
    "FunctionInfo",
    "KernelCompileError",
    "KernelFault",
    "KernelInfo",
    "KernelNotFound",
    "LocalVar",
    "Param",
    "PreprocessResult",
    "Program",
    "RunResult",
    "TypeInfo",
    "UnsupportedKernel",
    "builtin_arity",
    "compile_source",
    "is_builtin_function",
    "kernel_writes",
    "preprocess",
    "run_kernel",
    "swizzle_indices",
]
