"""Pointers as values in memory (an array of pointers, a pointer member of a struct, ``*pp = p``) and pointers that
point into different memory objects in different work-items (``p = i & 1 ? a : b``, or ``rows[i & 1]``).

The executor's ``Pointer`` names one memory object (a ``Region``) and a byte offset per lane. A pointer stored in
memory is kept as a 64-bit address instead: the object's tag in the launch's ``AddressMap`` (0 for NULL) in the
bits from ``TAG_SHIFT`` up, the signed byte offset below (so an address one element before an object, or past its
end, still names that object, and the access is reported as out of its bounds). A pointer whose lanes point into
different objects is a ``Pointer`` into ``SEVERAL``, whose offsets are such addresses; a load, store or atomic
through it is performed object by object, each for the lanes that point into it (``AddressMap.split``), which is a
legal order: nothing orders work-items within a statement. Pointer size and layout are those of the 64-bit
devices the suite runs (PoCL's and Oclgrind's ``sizeof(void*)`` is 8).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels.ctype import SCALARS, CType
from wia_sim.kernels.lanes import per_lane
from wia_sim.kernels.spaces import Pointer, Region

__all__ = ["SEVERAL", "TAG_SHIFT", "AddressMap", "PtrType", "one_object"]

Array = NDArray[Any]

TAG_SHIFT = 40
"""Offsets within an object take the 40 bits below the tag (1 TiB, beyond any device's memory object)."""
_HALF = 1 << (TAG_SHIFT - 1)

SEVERAL = Region.allocate("global", "a pointer into different memory objects per work-item", 1, 0, "none")
"""The region of a pointer whose lanes point into different objects: its offsets are addresses (``AddressMap``).
Never read or written itself: ``AddressMap.split`` resolves it first."""


def one_object(a: Pointer, b: Pointer) -> bool:
    """Whether ``a`` and ``b`` point into one object in every lane, NULL in none: their offsets compare and merge
    as they are, with no addresses needed."""
    return (
        a.region is b.region and a.region is not None and a.region is not SEVERAL and a.null is None and b.null is None
    )


def _tags(addresses: Array) -> Array:
    """The object tag of each address (rounded, so that an offset a little before an object still names it)."""
    return (addresses + _HALF) >> TAG_SHIFT


@dataclass(frozen=True)
class PtrType(CType):
    """A pointer as an element of memory: stored as a 64-bit address (a ``ulong`` to the memory code). ``target``
    and ``dims`` are what the loaded pointer points to (``_pointee``). Two PtrTypes compare equal whatever they
    point to: the stored bits mean the same."""

    target: CType | None = field(default=None, compare=False)
    dims: tuple[int, ...] = field(default=(), compare=False)

    @staticmethod
    def to(target: CType | None, dims: tuple[int, ...] = ()) -> PtrType:
        u = SCALARS["ulong"]
        return PtrType(u.name, u.dtype, u.kind, u.rank, 1, target, dims)

    def __str__(self) -> str:
        return f"{self.target or 'void'}*"


class AddressMap:
    """The launch's memory objects by tag (1, 2, ...; 0 is NULL), given out when a pointer into one is first
    stored or merged with a pointer into another."""

    def __init__(self, n: int) -> None:
        self.n = n
        self._regions: list[Region | None] = [None]
        self._tags: dict[int, int] = {}

    def regions(self) -> list[Region]:
        """The objects given a tag so far."""
        return [r for r in self._regions if r is not None]

    def tag(self, region: Region) -> int:
        t = self._tags.get(id(region))
        if t is None:
            t = self._tags[id(region)] = len(self._regions)
            self._regions.append(region)
        return t

    def address(self, p: Pointer) -> Array:
        """``p`` as addresses (int64, per lane or one for all). In NULL lanes the offset is the address (NULL + k is
        k, tag 0), as it is for a pointer into no object."""
        off = np.asarray(p.off, np.int64)
        if p.region is SEVERAL or p.region is None:
            return off
        a = off + (self.tag(p.region) << TAG_SHIFT)
        return a if p.null is None else np.where(p.null, off, a)

    def pointer(self, addresses: Array, elem: CType | None, dims: tuple[int, ...], mask: Array) -> Pointer:
        """The pointer that ``addresses`` (int64 or the uint64 bits of a stored pointer) hold in the lanes of
        ``mask``: into one object (NULL in some lanes, ``Pointer.null``) where they name one, else into ``SEVERAL``."""
        a = np.asarray(addresses).astype(np.int64, copy=False)
        tags = _tags(a)
        seen = np.unique(per_lane(tags, (self.n,))[mask]) if tags.ndim else np.unique(tags)
        objects = [int(t) for t in seen if t != 0]
        if not objects:
            return Pointer(None, elem, a, dims)
        if len(objects) > 1 or objects[0] >= len(self._regions):
            return Pointer(SEVERAL, elem, a, dims)
        t = objects[0]
        if seen.size == 1:
            return Pointer(self._regions[t], elem, a - (t << TAG_SHIFT), dims)
        null = tags == 0
        return Pointer(self._regions[t], elem, np.where(null, a, a - (t << TAG_SHIFT)), dims, null)

    def split(self, p: Pointer, mask: Array) -> list[tuple[Pointer, Array]]:
        """A pointer into ``SEVERAL`` as one pointer per object with the lanes of ``mask`` that point into it (an
        address that names no object is NULL: dereferencing it is the ``null_pointer`` finding)."""
        a = per_lane(np.asarray(p.off, np.int64), (self.n,))
        tags = _tags(a)
        parts: list[tuple[Pointer, Array]] = []
        for t in np.unique(tags[mask]):
            t = int(t)
            region = self._regions[t] if 0 < t < len(self._regions) else None
            off = a - (t << TAG_SHIFT) if region is not None else a
            parts.append((Pointer(region, p.elem, off, p.dims, packed=p.packed), mask & (tags == t)))
        return parts
