"""Floating-point contraction (OpenCL C 1.2 6.10, C99 6.5p8): which ``a * b + c`` a build fuses into one rounding.

Contraction is permitted, not required, and the simulator computes every operator on its own unless the sim
backend's ``kernel_fp_contract`` asks for Clang's default (``-ffp-contract=on``), which PoCL 3.1 and Oclgrind 21.10
follow (``llvm.fmuladd``, which both run as ``fma``): within one expression, an addition or subtraction one of
whose operands is a multiplication of the same floating type, the left operand first: ``a * b + c`` and
``c + a * b`` are ``fma(a, b, c)``, ``a * b - c`` is ``fma(a, b, -c)``, ``c - a * b`` is ``fma(-a, b, c)``,
``a * b + c * d`` is ``fma(a, b, c * d)``, ``x += a * b`` is ``x = fma(a, b, x)`` and ``x -= a * b`` is
``x = fma(-a, b, x)``; through a cast of the product to its own type (``(float)(a * b) + c``, which Clang drops),
not through a negation (``-(a * b) + c``: neither device fuses it), nor across statements, nor a product converted
to the sum's type (``a * b + 1.0`` of floats is a double sum). Measured on both devices with 4,096 random operands
per form. ``half`` fuses too, rounded once to half: Clang 15 emits ``llvm.fmuladd.f16`` for it as for the
others (neither device arbitrates: PoCL 3.1 has no ``cl_khr_fp16`` and Oclgrind 21.10's half results are wrong).
``#pragma OPENCL FP_CONTRACT OFF`` turns it off to the end of the compound statement it starts (at file scope, to
the next such pragma), ``ON`` and ``DEFAULT`` back on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pycparser import c_ast

from wia_sim.kernels import accurate
from wia_sim.kernels.ctype import CType
from wia_sim.kernels.types import FLOATS, TypeInfo

__all__ = ["Contraction", "contractions", "contracts", "fused", "fused_chain"]

Array = NDArray[Any]


@dataclass(frozen=True, slots=True)
class Contraction:
    """An addition (``+``, ``-``, ``+=``, ``-=``) that fuses with ``product``, its left operand when ``first``
    (evaluated before the other), else its right one (a compound assignment's value), through ``casts`` (from the
    addition's operand in)."""

    product: c_ast.BinaryOp
    first: bool
    subtract: bool
    casts: tuple[c_ast.Cast, ...] = ()

    @property
    def negate_product(self) -> bool:
        """``c - a * b``: ``fma(-a, b, c)``."""
        return self.subtract and not self.first

    @property
    def negate_addend(self) -> bool:
        """``a * b - c``: ``fma(a, b, -c)``."""
        return self.subtract and self.first


def _product(node: c_ast.Node) -> tuple[c_ast.BinaryOp, tuple[c_ast.Cast, ...]] | None:
    """The multiplication ``node`` is, through casts (its value converted: which fuse is known when they run)."""
    casts: list[c_ast.Cast] = []
    while isinstance(node, c_ast.Cast) and not isinstance(node.expr, c_ast.ExprList):
        casts.append(node)
        node = node.expr
    return (node, tuple(casts)) if isinstance(node, c_ast.BinaryOp) and node.op == "*" else None


def _switch(pragma: c_ast.Pragma) -> bool | None:
    """Whether ``#pragma OPENCL FP_CONTRACT ...`` turns contraction on (None: another pragma)."""
    words = str(pragma.string).split()
    if len(words) != 3 or words[0] != "OPENCL" or words[1] != "FP_CONTRACT":
        return None
    return words[2] != "OFF"


def contractions(ast: c_ast.FileAST, types: dict[int, TypeInfo] | None = None) -> dict[int, Contraction]:
    """The additions of ``ast`` that may fuse, by the ``id`` of the ``BinaryOp`` or compound ``Assignment``
    (whether they do depends on their operands' types, known when they run: ``contracts``). ``types``: the static
    type of each ``+``, ``-`` and ``*`` (``Program.arithmetic_types``): an addition fuses its left operand where
    that is a product of its own floating type, else its right one, as Clang does (``(x * 2) - h * y`` of an
    integer ``x`` fuses ``h * y``); without them, the left product."""
    found: dict[int, Contraction] = {}

    def fuses(product: tuple[c_ast.BinaryOp, tuple[c_ast.Cast, ...]] | None, total: c_ast.Node) -> bool:
        if product is None or types is None:
            return product is not None
        pt, tt = types.get(id(product[0])), types.get(id(total))
        return pt is not None and tt is not None and pt.name in FLOATS and (pt.name, pt.width) == (tt.name, tt.width)

    def visit(node: c_ast.Node, on: bool) -> None:
        if isinstance(node, c_ast.Compound):
            for item in node.block_items or []:
                if isinstance(item, c_ast.Pragma):
                    switch = _switch(item)
                    on = on if switch is None else switch
                else:
                    visit(item, on)
            return
        if on:
            if isinstance(node, c_ast.BinaryOp) and node.op in ("+", "-"):
                left, right = _product(node.left), _product(node.right)
                if left is not None and fuses(left, node):
                    found[id(node)] = Contraction(left[0], True, node.op == "-", left[1])
                elif right is not None and fuses(right, node):
                    found[id(node)] = Contraction(right[0], False, node.op == "-", right[1])
            elif isinstance(node, c_ast.Assignment) and node.op in ("+=", "-="):
                product = _product(node.rvalue)
                if product is not None:
                    found[id(node)] = Contraction(product[0], False, node.op == "-=", product[1])
        for _, child in node.children():
            visit(child, on)

    on = True
    for item in ast.ext:
        if isinstance(item, c_ast.Pragma):
            switch = _switch(item)
            on = on if switch is None else switch
        else:
            visit(item, on)
    return found


def contracts(product: CType, total: CType, casts: tuple[CType, ...] | None = ()) -> bool:
    """Whether a product of type ``product`` fuses with an addition of type ``total`` through ``casts`` between
    them (each must be to the product's type; None: one is not to an arithmetic type)."""
    if casts is None or any(ct != product for ct in casts):
        return False
    return product == total and product.kind == "float"


_MIDPOINT_BITS, _MIDPOINT = (1 << 29) - 1, 1 << 28
"""The low 29 bits of a float64's significand that a float drops, and their value at a float's midpoint."""
_FLOAT_NORMAL = 2.0**-126


def fused_chain(start: Array, x: Array, y: Array, negate: bool = False, rows: Array | None = None) -> Array:
    """``acc = fma(x, y, acc)`` (``fma(-x, y, acc)``: ``negate``) for the floats ``x`` and ``y`` (of one shape: a row
    per step, the lanes in the rest, broadcast views as they may be), from the floats ``start``, each step rounded
    to float: a loop's ``acc += x * y`` contracted. ``rows``: the lanes each step runs (a row per step, flat); the
    others keep their sum. A step's product is exact in float64 and its sum there, rounded to float, is the exact
    sum rounded once except where the float64 sum is a float's midpoint or lies below float's normal range: those
    lanes take ``accurate.fma`` (the product times 1, exact). Each step's products are made as it comes (a row of
    float64, not the whole loop's at once)."""
    acc = np.array(start, np.float32)
    add = np.subtract if negate else np.add
    one = np.ones(1)
    with np.errstate(all="ignore"):
        for k, (xk, yk) in enumerate(zip(x, y, strict=True)):
            p = np.multiply(xk, yk, dtype=np.float64).reshape(acc.shape)  # (exact: floats' products)
            s = add(acc, p)  # (float64: the float operand is exact in it)
            stepped = s.astype(np.float32)
            doubtful = ((s.view(np.int64) & _MIDPOINT_BITS) == _MIDPOINT) | (np.abs(s) < _FLOAT_NORMAL)
            if doubtful.any():
                q = -p[doubtful] if negate else p[doubtful]
                stepped[doubtful] = accurate.fma(q, one, acc[doubtful].astype(np.float64), single=True)
            acc = stepped if rows is None else np.where(rows[k], stepped, acc)
    return acc


def fused(x: Array, y: Array, z: Array, t: CType, c: Contraction) -> Array:
    """The contraction ``c`` of the product ``x * y`` and the addend ``z``, all of type ``t``: one rounding
    (``accurate.fma``, as the ``fma`` built-in)."""
    x, y, z = (np.asarray(v, np.float64) for v in (x, y, z))
    x = -x if c.negate_product else x
    z = -z if c.negate_addend else z
    with np.errstate(all="ignore"):
        return np.asarray(accurate.fma(x, y, z, single=t.name != "double")).astype(t.dtype)
