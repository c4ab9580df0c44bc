"""Loads and stores whose offsets are affine in the work-item's coordinates (``affine.py``): through one strided
view of the memory object, with their bounds, alignment, initialization and race checks decided without a pass
over the lanes' offsets.

An access takes this path only when it is plainly well-behaved: every work-item's element lies in bounds (or,
for an offset affine in the lane index alone, every one between the first and the last active lane), aligned,
initialized, and the race tracker can record it without looking lane by lane (``races.RaceTracker.compact``).
Otherwise ``load_strided``/``store_strided`` return False and the caller takes ``Region``'s general path, which
finds and reports whatever is wrong exactly as before. A mixin of ``Region``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels import scratch
from wia_sim.kernels.affine import Affine
from wia_sim.kernels.ctype import ALL_BYTES_WRITTEN, CType, elem_bytes
from wia_sim.kernels.races import RaceTracker

if TYPE_CHECKING:
    from wia_sim.kernels.spaces import LaunchState

__all__ = ["StridedAccess", "Viewed"]

Array = NDArray[Any]


_LAYOUTS = 1024
"""How many offsets' layouts a region keeps (``StridedAccess._layout``)."""


class _Placement:
    """Where an affine access lands: ``flat`` byte offsets in the region's data (its row added), and ``span``, the
    first and the last lane to look at when only those are in bounds (None: every lane)."""

    __slots__ = ("flat", "span")

    def __init__(self, flat: Affine, span: tuple[int, int] | None) -> None:
        self.flat = flat
        self.span = span


class StridedAccess(RaceTracker):
    """The strided-access methods of ``Region`` (which sets every attribute declared here and in
    ``RaceTracker``)."""

    nbytes: int
    per: str
    read_only: bool
    write_only: bool
    init: Array | None
    _all_init: bool
    _layouts: dict[tuple[Affine, str, int], tuple[Affine, bool, bool, Affine | None] | None]  # ``_layout``'s

    # ---------------------------------------------------------------------------------------------------------
    def load_strided(
        self, st: LaunchState, off: Affine, mask: Array, t: CType, grid: bool = False
    ) -> Array | Viewed | None:
        """The values of a load at byte offsets ``off``, one row per lane, or None: take the general path.
        ``grid``: a scalar load gives the strided view itself (``Viewed``), for a caller that uses it before
        anything stores (``spaces.Value.grid``)."""
        if self.write_only:
            return None
        place = self._place(st, off, mask, t, write=False)
        if place is None:
            return None
        self._counted(st, st.active(mask), t, "read")
        viewed = Viewed(self._view(place, t, self.data), place.span, st.lanes.total)
        return viewed if grid and t.width == 1 else viewed.per_lane()

    def store_strided(self, st: LaunchState, off: Affine, mask: Array, t: CType, values: Array) -> bool:
        """Store ``values`` (one row per lane, or one for all) at byte offsets ``off``; False: nothing was stored,
        take the general path."""
        if self.read_only:
            return False
        place = self._place(st, off, mask, t, write=True)
        if place is None:
            return False
        view = self._view(place, t, self.data)
        src = self._lanes_shaped(np.asarray(values, t.dtype), place, view.shape, t)
        where = self._lanes_shaped(mask, place, view.shape[: view.ndim - (t.width > 1)], None)
        if t.width > 1 and where.ndim:
            where = where[..., None]
        if where.ndim == 0 or bool(where.all()):
            view[...] = src
        else:
            np.copyto(view, src, where=where)
        self._counted(st, st.active(mask), t, "written")
        return True

    def load_steps_strided(
        self, st: LaunchState, off: Affine, step: int, count: int, mask: Array, t: CType
    ) -> Array | None:
        """The scalars ``t`` a loop's ``count`` iterations read at byte offsets ``off``, ``off + step``, ... (one
        row per iteration, each the launch's grid of ids: a strided view of memory, no copy), or None: take
        ``Region.load_steps``. Each iteration's read passes ``_place``'s checks, in order, as if it ran alone."""
        if self.write_only or t.width > 1:
            return None
        first: _Placement | None = None
        for k in range(count):
            place = self._place(st, off + step * k, mask, t, write=False)
            if place is None or place.span is not None:
                return None
            first = place if first is None else first
        assert first is not None
        flat = first.flat
        return np.ndarray(
            (count, *flat.grid), t.dtype, buffer=self.data, offset=flat.base, strides=(step, *flat.strides)
        )

    # ---------------------------------------------------------------------------------------------------------
    def _place(self, st: LaunchState, off: Affine, mask: Array, t: CType, write: bool) -> _Placement | None:
        """Where the access lands, after its checks; None when it needs the general path (out of bounds,
        misaligned, uninitialized, a possible race, memory NumPy cannot view)."""
        key = (off, t.name, t.width)
        layout = self._layouts.get(key)
        if layout is None and key not in self._layouts:
            if len(self._layouts) >= _LAYOUTS:  # a loop whose offsets move on: forget the old ones
                self._layouts.clear()
            layout = self._layouts[key] = self._layout(off, t)
        if layout is None:
            return None
        flat, in_box, separated, keys = layout
        span: tuple[int, int] | None = None
        if not in_box:
            size = elem_bytes(t)
            step = off.lane_step if self.per == "none" else None
            span = st.span(mask) if step is not None else None
            if step is None or span is None:
                return None
            first, last = off.base + step * span[0], off.base + step * span[1]
            if min(first, last) < 0 or max(first, last) > self.nbytes - size:
                return None
        if write and not separated:  # work-items would store over each other: the order matters
            return None
        place = _Placement(flat, span)
        if not st.checks:
            return place
        if self.init is not None and not self._all_init:
            esize = int(t.dtype.itemsize)
            flags = self._view(place, t, self.init, np.dtype(f"u{esize}"))
            written = ALL_BYTES_WRITTEN[esize]
            where = self._lanes_shaped(mask, place, flags.shape[: flags.ndim - (t.width > 1)], None)
            if t.width > 1 and where.ndim:
                where = where[..., None]
            if write:
                np.copyto(flags, np.asarray(written, flags.dtype), where=where)
            elif bool(np.any((flags != written) & where)):
                return None
        races = self.raced
        # kept by its granule where the access is exactly one (``_layout``'s keys; others, a 3-component vector's 12
        # bytes too: the general path, which refines the granules or records every one an element covers)
        if races and (keys is None or not self.compact(st, keys, mask, write)):
            return None
        return place

    def _layout(self, off: Affine, t: CType) -> tuple[Affine, bool, bool, Affine | None] | None:
        """What an access at ``off`` of a ``t`` is, whatever the lanes: its offsets in ``data`` (the row added),
        whether every work-item's lies in bounds, whether no two overlap, and its race tracker granules (None:
        an element is not one granule; the general path records it); None: misaligned, or memory NumPy cannot view."""
        esize = int(t.dtype.itemsize)
        size = elem_bytes(t)
        if off.base % esize or not off.divisible(esize) or not self.data.flags.c_contiguous:
            return None
        lo, hi = off.bounds
        in_box = lo >= 0 and hi <= self.nbytes - size
        flat = off + Affine.rows(self.per, self.stride, off.geometry)
        # (a layout is made for the granule of its time: ``refine`` forgets them; a 3-component vector's padding is
        # not accessed)
        whole = t.dtype.itemsize * t.width == self.granule
        keys = flat.in_units(self.granule) if whole and flat.divisible(self.granule) else None
        return flat, in_box, flat.separated(size), keys

    def _view(self, place: _Placement, t: CType, buffer: Array, dtype: np.dtype[Any] | None = None) -> Array:
        """The elements the access touches, as a strided view of ``buffer`` (laid out as ``data``): the launch's
        grid of coordinates (``Affine.grid``), or the lanes of ``place.span``; a trailing axis for a vector."""
        dtype = t.dtype if dtype is None else dtype
        esize = int(t.dtype.itemsize)
        flat = place.flat
        if place.span is None:
            shape: tuple[int, ...] = flat.grid
            strides: tuple[int, ...] = flat.strides
            origin = flat.base
        else:
            step = flat.lane_step
            assert step is not None
            lo, hi = place.span
            shape, strides, origin = (hi - lo + 1,), (step,), flat.base + step * lo
        if t.width > 1:
            shape, strides = (*shape, t.width), (*strides, esize)
        return np.ndarray(shape, dtype, buffer=buffer, offset=origin, strides=strides)

    @staticmethod
    def _lanes_shaped(a: Array, place: _Placement, shape: tuple[int, ...], t: CType | None) -> Array:
        """Per-lane ``a`` (one entry or row per lane, or one for all) in the shape of the access's view."""
        per_lane = a.ndim >= 1 and not (t is not None and t.width > 1 and a.ndim == 1)
        if not per_lane:
            return a
        if place.span is not None:
            lo, hi = place.span
            return a[lo : hi + 1]
        return a.reshape(shape)

    def _counted(self, st: LaunchState, lanes: int, t: CType, what: str) -> None:
        """Count the bytes ``lanes`` work-items read or wrote (``what``) as elements of ``t`` in this space."""
        key = f"{self.space}_bytes_{what}"
        st.counts[key] = st.counts.get(key, 0) + lanes * elem_bytes(t)


class Viewed:
    """A load's elements as a strided view of memory, in lane order: the launch's grid of ids (six axes,
    ``Affine.grid``) when ``span`` is None, else the lanes ``span`` (first, last) of ``total`` (one axis); a
    vector's components on a trailing axis."""

    __slots__ = ("span", "total", "view")

    def __init__(self, view: Array, span: tuple[int, int] | None, total: int) -> None:
        self.view, self.span, self.total = view, span, total

    def per_lane(self) -> Array:
        """The elements copied into one row per lane, in a recycled array (``scratch``); lanes outside the span
        (inactive: their values are never used) read zero."""
        view = self.view
        if self.span is None:
            out = scratch.empty((math.prod(view.shape[:6]), *view.shape[6:]), view.dtype)
            out.reshape(view.shape)[...] = view
            return out
        lo, hi = self.span
        out = scratch.empty((self.total, *view.shape[1:]), view.dtype)
        out[:lo] = 0
        out[hi + 1 :] = 0
        out[lo : hi + 1] = view
        return out
