"""Uninitialized values, as Oclgrind's uninitialized-value plugin (and Valgrind's memcheck) treat them.

Reading memory or a variable nobody initialized is not an error by itself: CUDA-style reductions read the padding
past the last element and never use what they read, structs are copied with their holes. The value read carries a
shadow (``Value.undef``: the lanes, or a vector's components, that are undefined) through copies, operators (a
division too), casts, ``as_type`` reinterpretations, swizzles, vector literals, variables, function arguments and
returns, ``__private`` and ``__local`` memory. Its use is the finding: storing it to ``__global`` memory,
branching on it (``if``, loops, ``&&``, ``?:``, ``switch``), or indexing or moving a pointer with it. Passing it to
a built-in function of values and storing it to ``__local`` memory are lower-severity findings, after which the
kernel goes on, as Oclgrind goes on after each (Oclgrind runs built-ins as calls, which check their operands:
``sqrt(x)`` of an undefined ``x`` is its "Controlflow depends on uninitialized value"; a store is its
"Uninitialized value written to local memory"); the built-in's result is undefined where an argument was (a
vectorized kernel's ``exp`` of the padding past its last element, which ``select`` then drops, stores nothing
undefined). Anything in the executor that takes a value's bits through ``Value.a`` uses it; the paths that carry
the shadow read ``Value.raw`` and use the helpers here. The finding names the read (what, which bytes, its line)
and reports at the line of the use, as Oclgrind does."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any, overload

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels.ctype import CType
from wia_sim.kernels.spaces import Pointer, Uninit, Value, byte_bits, undefined_lanes
from wia_sim.kernels.structs import StructType

__all__ = [
    "Shadow",
    "carrying",
    "defined",
    "joined",
    "masked",
    "reinterpreted",
    "shaped",
    "tainted",
    "undefined_lanes",
    "within",
]

Array = NDArray[Any]
Result = Value | Pointer


Shadow = tuple[Array, Uninit]
"""The undefined lanes (or components) of a result and where they came from."""


def shaped(undef: Array, t: CType) -> Array:
    """``undef`` fitted to a value of ``t``: per lane for a scalar (or a struct's bytes), per component for a
    vector (a scalar operand's shadow spread to every component; another width's: any of its components)."""
    if isinstance(t, StructType):  # one flag per byte (``struct_exec.struct_load``)
        return undef if undef.ndim == 2 else np.broadcast_to(undef[:, None], (undef.shape[0], t.size))
    width = t.width
    if width == 1:
        return undefined_lanes(undef)
    if undef.ndim == 2 and undef.shape[1] == width:
        return undef
    return np.broadcast_to(undefined_lanes(undef)[:, None], (undef.shape[0], width))


def within(undef: Array, mask: Array) -> Array | None:
    """The undefined lanes (components) among the lanes of ``mask``, or None when there are none."""
    u = undef & (mask[:, None] if undef.ndim == 2 and mask.ndim == 1 else mask)
    return u if bool(u.any()) else None


def carrying(t: CType, a: Array, undef: Array | None, origin: Uninit | None) -> Value:
    """A value of ``t`` with the bits ``a``, and the shadow ``undef`` (from ``origin``) where some lane (component)
    is undefined: none when no lane is."""
    if undef is None or not bool(undef.any()):
        return Value(t, a)
    return Value(t, a, undef=undef, origin=origin)


def defined(v: Value) -> Value:
    """``v``'s bits without its shadow: for computing a result whose shadow the caller adds (``tainted``)."""
    return Value(v.t, v.raw if v.undef is not None else v._a, v.affine, v.cond, v.grid)


def masked(v: Value, mask: Array, line: int) -> Value:
    """``v`` (a variable's value) as the lanes of ``mask`` read it at ``line``: undefined only where one of them
    reads a lane (component) nobody assigned."""
    assert v.undef is not None and v.origin is not None
    u = within(v.undef, mask)
    if u is None:
        return Value(v.t, v.raw)
    return Value(v.t, v.raw, undef=u, origin=v.origin.read_at(line))


def joined(values: Iterable[Result]) -> Shadow | None:
    """The shadow of a result computed from ``values``, with the origin of an operand undefined in the result's
    first undefined lane (the lane a finding names: ``u0 + u2`` names ``u2``'s read where only it is undefined);
    None when all are defined. Per component when every undefined operand has the same width, else per lane."""
    undef: Array | None = None
    origins: list[tuple[Array, Uninit]] = []
    for v in values:
        if not isinstance(v, Value) or v.undef is None:
            continue
        u = v.undef
        assert v.origin is not None
        origins.append((u, v.origin))
        if undef is None:
            undef = u
        elif undef.shape == u.shape:
            undef = undef | u
        else:
            undef = undefined_lanes(undef) | undefined_lanes(u)
    if undef is None:
        return None
    origin = origins[0][1]
    if len(origins) > 1 and any(o is not origin for _, o in origins):
        first = int(np.argmax(undefined_lanes(undef)))
        origin = next((o for u, o in origins if undefined_lanes(u)[first]), origin)
    return undef, origin


@overload
def tainted(r: Value, shadow: Shadow | None) -> Value: ...


@overload
def tainted(r: Result, shadow: Shadow | None) -> Result: ...


def tainted(r: Result, shadow: Shadow | None) -> Result:
    """``r`` carrying ``shadow`` (fitted to its type)."""
    if shadow is None or not isinstance(r, Value):
        return r
    undef, origin = shadow
    return Value(r.t, r.raw, undef=shaped(undef, r.t), origin=origin.computed())


def converted_exactly(v: Value, t: CType, a: Array) -> Value | None:
    """``v``, an integer value that is the bytes read (``Uninit.exact``), converted to an integer type ``t`` no
    wider (its bits ``a``): its low bytes, with their shadow, as Oclgrind keeps it through a truncation
    (``(uchar)w`` of a word whose low byte alone was written is defined); the low bytes read, still exact. None
    where ``v`` is not such a value, or ``t`` is wider (an extension: the operators' way, the whole value)."""
    origin, src = v.origin, v.t
    if origin is None or not origin.exact or origin.unwritten is None or origin.offsets is None:
        return None
    if origin.unwritten.ndim != 1 or src.width != 1 or t.width != 1 or origin.size != src.dtype.itemsize:
        return None
    if src.kind not in ("int", "uint") or t.kind not in ("int", "uint") or t.dtype.itemsize > src.dtype.itemsize:
        return None
    new = t.dtype.itemsize
    unwritten = origin.unwritten & np.uint64((1 << new) - 1)  # (little-endian: the low bytes at the read's offset)
    undef = np.asarray(v.undef) & (unwritten != 0)
    stored = None if origin.stored is None else origin.stored & unwritten
    return carrying(t, a, undef, replace(origin, size=new, unwritten=unwritten, stored=stored))


def reinterpreted_exactly(undef: Array, origin: Uninit, src: CType, dst: CType) -> tuple[Array, Uninit]:
    """``reinterpreted``, with the bytes a read left unwritten where ``origin`` knows them (``Uninit.exact``): the
    result's components undefined only where one of their bytes is (``as_uchar4`` of a word whose low bytes were
    written: its x and y defined), and its origin, still exact, in the result's elements."""
    octets = origin.undefined_bytes(undef, src)
    dsize, dwidth = dst.dtype.itemsize, max(dst.width, 1)
    if octets is None or octets.shape[1] != dsize * dwidth or origin.offsets is None:
        return reinterpreted(undef, src, dst), origin
    n = octets.shape[0]
    per = octets.reshape(n, dwidth, dsize)
    comps = np.asarray(per.any(axis=2))
    unwritten = byte_bits(per)
    base = origin.offsets if origin.offsets.ndim == 1 else origin.offsets[:, 0]
    offsets = np.where(base[:, None] >= 0, base[:, None] + np.arange(dwidth) * dsize, -1)
    if dst.width == 1:
        return comps[:, 0], replace(origin, size=dsize, unwritten=unwritten[:, 0], offsets=offsets[:, 0], stored=None)
    return comps, replace(origin, size=dsize, unwritten=unwritten, offsets=offsets, stored=None)


def reinterpreted(undef: Array, src: CType, dst: CType) -> Array:
    """The shadow of ``as_<dst>`` of a ``src`` value, byte by byte (as Oclgrind keeps it): a component of the result
    is undefined where one of its bytes came from an undefined component."""
    per = shaped(undef, src).reshape(undef.shape[0], -1)
    size = dst.dtype.itemsize
    octets = np.repeat(per, src.dtype.itemsize, axis=1)
    k = octets.shape[1] // size
    comps = np.asarray(octets[:, : k * size].reshape(-1, k, size).any(axis=2))
    if k < dst.width:
        comps = np.concatenate([comps, np.zeros((comps.shape[0], dst.width - k), bool)], axis=1)
    return comps[:, 0] if dst.width == 1 else comps[:, : dst.width]
