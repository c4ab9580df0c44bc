"""Integers that are affine functions of a work-item's coordinates, kept as their coefficients.

``get_global_id(0) + 1``, ``row * N + col`` or ``t * TS + get_local_id(0)`` (``t`` the same in every lane) need
no array of one entry per lane: they are ``base + sum(g[d] * group_id[d]) + sum(l[d] * local_id[d])``. Carried
that way (``spaces.Value.affine``, ``spaces.Pointer.affine``), an access ``a[i]`` knows its lowest and highest
offset, its alignment and whether two work-items share an address without looking at a lane, reads and writes
memory through a strided view instead of a gather or scatter, and records itself for the race checks in O(1)
(``races.RaceTracker.compact``). The array is made only where a lane-wise operation needs it (``values``).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels import scratch
from wia_sim.kernels.ctype import COMPARE
from wia_sim.kernels.lanes import Geometry, lanes_of

__all__ = ["CONVERSE", "MIN_LANES", "Affine"]

Array = NDArray[Any]
Coefficients = tuple[int, int, int]

MIN_LANES = 4096
"""Launches of fewer work-items keep their ids as arrays: an array operation over a few thousand lanes costs about
what the coefficients' bookkeeping costs in Python per operation (a few microseconds), so below this the
coefficients would only add to the time."""


class Affine:
    """``base + sum(g[d] * group_id[d] + l[d] * local_id[d])`` over the work-items of ``geometry``.

    Coordinates run over the launch's box: group ids ``0 .. num_groups[d] - 1``, local ids ``0 ..
    local_size[d] - 1``; lanes are ordered group by group (``lanes.Lanes``), so ``grid`` (the six extents, slowest
    first) reshaped C-order is the lane order.

    Immutable by convention, compared by value and hashed once (a plain class, not a frozen dataclass: the
    executor makes several per statement of an affine kernel and looks accesses up by them, where the dataclass's
    construction and hashing cost microseconds each)."""

    base: int
    g: Coefficients
    l: Coefficients  # noqa: E741 (the local ids' coefficients, as g is the groups')
    geometry: Geometry

    def __init__(self, base: int, g: Coefficients, l: Coefficients, geometry: Geometry) -> None:  # noqa: E741
        self.base, self.g, self.l, self.geometry = base, g, l, geometry

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Affine):
            return NotImplemented
        return (self.base, self.g, self.l, self.geometry) == (other.base, other.g, other.l, other.geometry)

    def __hash__(self) -> int:
        return self._hash

    @functools.cached_property
    def _hash(self) -> int:
        return hash((self.base, self.g, self.l, self.geometry))

    def __repr__(self) -> str:
        return f"Affine({self.base}, g={self.g}, l={self.l})"

    # -- the sources
    @classmethod
    def work_item(cls, name: str, d: int, geometry: Geometry) -> Affine | None:
        """``get_global_id(d)``, ``get_local_id(d)`` or ``get_group_id(d)``, or None for other functions and for
        launches under ``MIN_LANES`` work-items."""
        if geometry.total < MIN_LANES:
            return None
        unit: Coefficients = (int(d == 0), int(d == 1), int(d == 2))
        zero = (0, 0, 0)
        if name == "get_global_id":
            return cls(geometry.global_offset[d], _times(unit, geometry.local_size[d]), unit, geometry)
        if name == "get_local_id":
            return cls(0, zero, unit, geometry)
        if name == "get_group_id":
            return cls(0, unit, zero, geometry)
        return None

    @classmethod
    def rows(cls, per: str, stride: int, geometry: Geometry) -> Affine:
        """The byte where each lane's row of a memory object begins: its work-group's (``per`` "group"), its own
        (``per`` "lane") or the one row (``per`` "none"), rows ``stride`` bytes apart."""
        zero = (0, 0, 0)
        if per == "none":
            return cls(0, zero, zero, geometry)
        ng, ls = geometry.num_groups, geometry.local_size
        group_rows = (1, ng[0], ng[0] * ng[1])
        if per == "group":
            return cls(0, _times(group_rows, stride), zero, geometry)
        local_rows = (1, ls[0], ls[0] * ls[1])
        return cls(0, _times(group_rows, geometry.group_size * stride), _times(local_rows, stride), geometry)

    # -- arithmetic (exact: callers check the range fits the C type)
    def __add__(self, other: Affine | int) -> Affine:
        if isinstance(other, Affine):
            g, h, l, m = self.g, other.g, self.l, other.l  # noqa: E741
            return Affine(
                self.base + other.base,
                (g[0] + h[0], g[1] + h[1], g[2] + h[2]),
                (l[0] + m[0], l[1] + m[1], l[2] + m[2]),
                self.geometry,
            )
        return Affine(self.base + other, self.g, self.l, self.geometry)

    def __radd__(self, other: int) -> Affine:
        return self + other

    def __neg__(self) -> Affine:
        return self.scaled(-1)

    def __sub__(self, other: Affine | int) -> Affine:
        return self + (-other)

    def __rsub__(self, other: int) -> Affine:
        return -self + other

    def scaled(self, k: int) -> Affine:
        return Affine(self.base * k, _times(self.g, k), _times(self.l, k), self.geometry)

    def in_units(self, k: int) -> Affine:
        """The value counted in units of ``k`` (rounded down; the coefficients are multiples of ``k``, so every
        lane's is exact)."""
        g, l = self.g, self.l  # noqa: E741
        return Affine(
            self.base // k, (g[0] // k, g[1] // k, g[2] // k), (l[0] // k, l[1] // k, l[2] // k), self.geometry
        )

    # -- what it spans
    @functools.cached_property
    def terms(self) -> tuple[tuple[int, int], ...]:
        """(coefficient, extent) of every coordinate that varies and counts, slowest first (``grid`` order)."""
        geo = self.geometry
        pairs = [(self.g[d], geo.num_groups[d]) for d in (2, 1, 0)]
        pairs += [(self.l[d], geo.local_size[d]) for d in (2, 1, 0)]
        return tuple((c, n) for c, n in pairs if c != 0 and n > 1)

    @functools.cached_property
    def bounds(self) -> tuple[int, int]:
        """The lowest and the highest value over every work-item."""
        lo = hi = self.base
        for c, n in self.terms:
            span = c * (n - 1)
            lo, hi = (lo + span, hi) if span < 0 else (lo, hi + span)
        return lo, hi

    def fits(self, lo: int, hi: int) -> bool:
        return lo <= self.bounds[0] and self.bounds[1] <= hi

    @functools.cached_property
    def injective(self) -> bool:
        """Whether no two work-items have the same value."""
        return self.separated(1)

    def separated(self, size: int) -> bool:
        """Whether any two work-items' values lie at least ``size`` apart (a sufficient test: every coefficient,
        smallest first, exceeds ``size - 1`` plus the span of those below it, as row-major indexing does)."""
        geo = self.geometry
        extents = [geo.num_groups[d] for d in range(3)] + [geo.local_size[d] for d in range(3)]
        coefficients = list(self.g) + list(self.l)
        if any(c == 0 and n > 1 for c, n in zip(coefficients, extents, strict=True)):
            return False
        reach = size - 1
        for c, n in sorted((abs(c), n) for c, n in self.terms):
            if c <= reach:
                return False
            reach += c * (n - 1)
        return True

    @functools.cached_property
    def _gcd(self) -> int:
        return math.gcd(*(c for c, _ in self.terms))

    def divisible(self, k: int) -> bool:
        """Whether every coefficient that counts is a multiple of ``k`` (the base need not be)."""
        return self._gcd % k == 0

    @functools.cached_property
    def lane_step(self) -> int | None:
        """The value's step from one lane to the next when it is an affine function of the lane index alone (a 1-D
        launch's global id, and any multiple of it), else None; lanes run group by group, local id 0 fastest."""
        geo = self.geometry
        extents = [geo.local_size[0], geo.local_size[1], geo.local_size[2]]
        extents += [geo.num_groups[0], geo.num_groups[1], geo.num_groups[2]]
        coefficients = list(self.l) + list(self.g)
        step: int | None = None
        weight = 1
        for c, n in zip(coefficients, extents, strict=True):
            if n > 1:
                if step is None:
                    step = c
                elif c != step * weight:
                    return None
                weight *= n
        return 0 if step is None else step

    # -- compared
    def lanes_where(self, op: str, c: int) -> Array:
        """The lane mask of ``value op c`` (``op`` a C comparison, exact integers), without an array of values.
        An affine function of the lane index alone (``lane_step``) is monotone in the lane: the lanes that hold
        form one run (two for ``!=``), found by arithmetic. Otherwise the comparison is made over the coordinates
        the value varies with (``row < M`` over a row's group and local ids, a few hundred values) and spread
        over the others."""
        step = self.lane_step
        if step is None:
            shape = tuple(n if k != 0 else 1 for k, n in zip(self.strides, self.grid, strict=True))
            small = np.asarray(self.base, np.int64)
            for axis, (k, n) in enumerate(zip(self.strides, shape, strict=True)):
                if n > 1:
                    small = small + k * np.arange(n, dtype=np.int64).reshape(_axis_shape(axis))
            held = COMPARE[op](small, c)
            out = np.empty(self.grid, bool)
            out[...] = held
            return out.reshape(-1)
        base, n = self.base, self.geometry.total
        if step < 0:  # value op c  <=>  -value op' -c, and -value rises with the lane
            base, step, c, op = -base, -step, -c, CONVERSE[op]
        if step == 0:
            return np.full(n, COMPARE[op](base, c))
        below = min(max(-((base - c) // step), 0), n)  # lanes whose value < c: ceil((c - base) / step)
        upto = min(max((c - base) // step + 1, 0), n)  # lanes whose value <= c
        lo, hi, inside = {
            "<": (0, below, True),
            "<=": (0, upto, True),
            ">": (upto, n, True),
            ">=": (below, n, True),
            "==": (below, upto, True),
            "!=": (below, upto, False),
        }[op]
        mask = np.zeros(n, bool) if inside else np.ones(n, bool)
        mask[lo:hi] = inside
        return mask

    # -- made concrete
    @property
    def grid(self) -> tuple[int, int, int, int, int, int]:
        geo = self.geometry
        ng, ls = geo.num_groups, geo.local_size
        return (ng[2], ng[1], ng[0], ls[2], ls[1], ls[0])

    @property
    def strides(self) -> tuple[int, int, int, int, int, int]:
        """The coefficients in ``grid`` order (for a strided view whose unit is what ``self`` counts)."""
        return (self.g[2], self.g[1], self.g[0], self.l[2], self.l[1], self.l[0])

    def at(self, lanes: Array) -> Array:
        """The values of the lanes ``lanes`` alone (int64), from their ids."""
        ids = lanes_of(self.geometry)
        out = np.full(lanes.size, self.base, np.int64)
        for d in range(3):
            if self.g[d]:
                out += self.g[d] * ids.group_id[d][lanes]
            if self.l[d]:
                out += self.l[d] * ids.local_id[d][lanes]
        return out

    def values(self, dtype: np.dtype[Any] | type = np.int64) -> Array:
        """One entry per lane, of ``dtype`` (the range fits it: the caller made sure)."""
        shape = self.grid
        total = self.geometry.total
        out = scratch.empty((total,), dtype)
        step = self.lane_step
        if step:  # a 1-D launch's global id, and multiples of it: from the lanes' own ids
            np.multiply(lanes_of(self.geometry).ids, step, out=out, casting="unsafe")
            if self.base:
                np.add(out, self.base, out=out, casting="unsafe")
            return out
        group = np.asarray(self.base, np.int64)
        for axis, c in ((0, self.g[2]), (1, self.g[1]), (2, self.g[0])):
            if c and shape[axis] > 1:
                group = group + c * np.arange(shape[axis], dtype=np.int64).reshape(_axis_shape(axis))
        local = np.asarray(0, np.int64)
        for axis, c in ((3, self.l[2]), (4, self.l[1]), (5, self.l[0])):
            if c and shape[axis] > 1:
                local = local + c * np.arange(shape[axis], dtype=np.int64).reshape(_axis_shape(axis))
        np.add(group, local, out=out.reshape(shape), casting="unsafe")
        return out


CONVERSE = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
"""The comparison with its operands swapped (``x < y`` is ``y > x``), which also holds of the negated operands
(``-x > -y``)."""


def _times(c: Coefficients, k: int) -> Coefficients:
    return (c[0] * k, c[1] * k, c[2] * k)


def _axis_shape(axis: int) -> tuple[int, ...]:
    return tuple(-1 if k == axis else 1 for k in range(6))
