"""The checker's Clang vector built-ins: ``__builtin_astype(e, T)`` (what ``as_T(e)`` expands to in Clang's
headers), ``__builtin_convertvector(e, T)`` and ``__builtin_shufflevector(a, b, i...)``, which OpenCL C code calls
directly (Halide's fp16 kernels, hand-vectorized code) with any type name, typedefs included. Their rules and words
are Clang 15's (SemaChecking.cpp: ``SemaBuiltinShuffleVector``, ``SemaConvertVectorExpr``; SemaExpr.cpp:
``BuildAsTypeExpr``), measured with ``clang-15 -cc1 -x cl -cl-std=CL1.2 -fsyntax-only``.

The first two become the ``as_`` or ``convert_`` built-in of the resolved type (``typed_calls``, which
``frontend._lowered`` writes into the tree), so that the executor runs one built-in for both spellings; a shuffle's
constant indices go to the executor by the call (``shuffles``; -1 picks a component the result leaves undefined)."""

from __future__ import annotations

from pycparser import c_ast

from wia_sim.kernels.check_state import CheckerState
from wia_sim.kernels.types import FLOATS, UNKNOWN, TypeInfo, const_int

__all__ = ["TYPED_PREFIXES", "VectorBuiltinChecks"]

TYPED_PREFIXES = {"__builtin_astype": "as_", "__builtin_convertvector": "convert_"}
"""The OpenCL C built-in family each typed built-in of Clang's is a call of."""

_WIDTHS = (2, 3, 4, 8, 16)
"""The component counts of OpenCL C's vector types: a shuffle's result has one of them, or no type the simulator
has (Clang makes a GCC vector of any count, which converts to the OpenCL vector of its size)."""

_SHUFFLE = "'__builtin_shufflevector'"
_POINTER_BYTES = 8
"""A pointer's size on the 64-bit targets the devices compile for (PoCL's x86_64, Oclgrind's spir64)."""


class VectorBuiltinChecks(CheckerState):
    """The Clang vector built-ins of ``Checker``."""

    def typed_builtin(self, node: c_ast.FuncCall, name: str, args: list[c_ast.Node]) -> TypeInfo:
        """``__builtin_astype(e, T)`` or ``__builtin_convertvector(e, T)`` (the parser gives ``T`` as a
        ``Typename``: ``grammar.Parser._parse_typed_builtin``)."""
        operand, typename = args
        source = self.expr(operand)
        target = self.types.resolve(typename.type)
        seen = len(self.diagnostics)
        self.check_type_usable(target, typename, "cast", named=True)
        if source.kind == "unknown" or target.kind == "unknown" or self.errors_since(seen):
            return UNKNOWN
        values = ("scalar", "vector")
        if name == "__builtin_astype":
            have, need = (_POINTER_BYTES if t.kind == "pointer" else t.element_size for t in (source, target))
            if have is not None and need is not None and have != need:
                shown = f"{self.spell(typename.type, target, None)} and {self.clang_type(operand, source, True)}"
                self.error(node, f"invalid reinterpretation: sizes of {shown} must match")
                return UNKNOWN
            if source.kind not in values or target.kind not in values:
                self.error(node, f"'{name}' of '{source}' to '{target}' is not supported by the simulator")
                return UNKNOWN
        elif source.kind != "vector":
            self.error(node, f"first argument to {name} must be a vector")
            return UNKNOWN
        elif target.kind != "vector":
            self.error(node, f"second argument to {name} must be a vector type")
            return UNKNOWN
        elif source.width != target.width:
            self.error(node, f"first two arguments to {name} must have the same number of elements")
            return UNKNOWN
        width = str(target.width) if target.kind == "vector" else ""
        self.typed_calls[id(node)] = f"{TYPED_PREFIXES[name]}{target.name}{width}"
        return TypeInfo(target.kind, target.name, target.width)

    def shufflevector(self, node: c_ast.FuncCall, args: list[c_ast.Node]) -> TypeInfo:
        """``__builtin_shufflevector(a, b, i0, i1, ...)``: components of ``a`` then ``b`` (vectors of one type) picked
        by constant indices, -1 for a component left undefined; ``__builtin_shufflevector(a, m)``: of ``a`` alone,
        by the integer vector ``m`` (its entry in ``shuffles`` is empty)."""
        types = [self.expr(a) for a in args]
        if len(args) < 2:
            missing = self.operator_marks.get((id(node), ")"), node)
            self.error(missing, f"too few arguments to function call, expected at least 2, have {len(args)}")
            return UNKNOWN
        a, b = types[:2]
        if a.kind == "unknown" or b.kind == "unknown":
            return UNKNOWN
        if a.kind != "vector" or b.kind != "vector":
            self.error(node, f"first two arguments to {_SHUFFLE} must be vectors")
            return UNKNOWN
        if len(args) == 2:  # a vector of indices, one per component: integers, as many as ``a`` has
            if b.name in FLOATS or b.width != a.width:
                self.error(node, f"first two arguments to {_SHUFFLE} must have the same type")
                return UNKNOWN
            self.shuffles[id(node)] = ()
            return TypeInfo("vector", a.name, a.width)
        if (a.name, a.width) != (b.name, b.width):
            self.error(node, f"first two arguments to {_SHUFFLE} must have the same type")
            return UNKNOWN
        indices: list[int] = []
        for index, t in zip(args[2:], types[2:], strict=True):
            k = const_int(index, self.enumerators, self.types) if t.kind == "scalar" and t.name not in FLOATS else None
            if k is None:
                self.error(node, "index for __builtin_shufflevector must be a constant integer")
                return UNKNOWN
            if k != -1 and not 0 <= k < 2 * a.width:
                bound = "less than the total number of vector elements"
                self.error(node, f"index for __builtin_shufflevector must be {bound}")
                return UNKNOWN
            indices.append(k)
        if len(indices) not in _WIDTHS:
            self.error(node, f"{_SHUFFLE} of {len(indices)} components is not supported by the simulator")
            return UNKNOWN
        self.shuffles[id(node)] = tuple(indices)
        return TypeInfo("vector", a.name, len(indices))
