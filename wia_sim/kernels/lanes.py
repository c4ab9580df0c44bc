"""The work-items of one launch, as lanes: their ids, their work-groups, and which of them are executing.

The executor runs every work-item of a launch in lockstep; each private value is an array with one entry per
lane. Divergent control flow is a boolean mask over the lanes.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import DTypeLike, NDArray

Dims = tuple[int, int, int]
Array = NDArray[Any]


@dataclass(frozen=True)
class Geometry:
    """An NDRange: global size, work-group (local) size and global offset, each in three dimensions."""

    global_size: Dims
    local_size: Dims
    global_offset: Dims = (0, 0, 0)
    work_dim: int = 1

    num_groups: Dims = field(init=False, repr=False, compare=False)
    group_size: int = field(init=False, repr=False, compare=False)
    total: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for g, loc in zip(self.global_size, self.local_size, strict=True):
            if loc < 1 or g % loc:
                raise ValueError(f"global size {self.global_size} is not a multiple of local size {self.local_size}")
        gs, ls = self.global_size, self.local_size  # derived once: asked for at every access
        object.__setattr__(self, "num_groups", (gs[0] // ls[0], gs[1] // ls[1], gs[2] // ls[2]))
        object.__setattr__(self, "group_size", math.prod(ls))
        object.__setattr__(self, "total", math.prod(gs))


def launch_geometry(
    global_size: Dims,
    local_size: Dims | None,
    max_work_group: int,
    work_dim: int | None = None,
    global_offset: Dims = (0, 0, 0),
) -> Geometry:
    """The NDRange of a launch; without a local size, the largest power-of-two work-group (up to 256 and the
    device's maximum) that divides the first dimension, as OpenCL drivers pick one. Without ``work_dim``, the
    dimensions up to the last one above 1."""
    if local_size is None:
        size = 1
        while size * 2 <= min(256, max_work_group) and global_size[0] % (size * 2) == 0:
            size *= 2
        local_size = (size, 1, 1)
    if work_dim is None:
        work_dim = 3 if global_size[2] > 1 else (2 if global_size[1] > 1 else 1)
    return Geometry(global_size=global_size, local_size=local_size, global_offset=global_offset, work_dim=work_dim)


class Lanes:
    """The ids of every work-item, ordered work-group by work-group (lanes of one group are contiguous).

    ``global_id[d]``, ``local_id[d]``, ``group_id[d]`` are int64 arrays of length ``total``; ``group`` is the flat
    work-group index of each lane and ``local_index`` its flat index inside the group. Each is computed when first
    used: a launch of a million work-items that only asks for get_global_id(0) does not pay for the rest.
    """

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry
        self.total = geometry.total

    @functools.cached_property
    def ids(self) -> Array:
        """0, 1, 2, ...: each lane's own index (shared, never written)."""
        return np.arange(self.total, dtype=np.int64)

    @functools.cached_property
    def group(self) -> Array:
        return self.ids // self.geometry.group_size

    @functools.cached_property
    def local_index(self) -> Array:
        return self.ids % self.geometry.group_size

    def _split(self, flat: Array, sizes: Dims) -> tuple[Array, Array, Array]:
        zeros = np.zeros(self.total, dtype=np.int64)
        x = flat if sizes[1] * sizes[2] == 1 and sizes[0] == self.total else flat % sizes[0]
        y = zeros if sizes[1] == 1 else flat // sizes[0] % sizes[1]
        z = zeros if sizes[2] == 1 else flat // (sizes[0] * sizes[1])
        return (x, y, z)

    @functools.cached_property
    def group_id(self) -> tuple[Array, Array, Array]:
        return self._split(self.group, self.geometry.num_groups)

    @functools.cached_property
    def local_id(self) -> tuple[Array, Array, Array]:
        if self.geometry.num_groups == (1, 1, 1):
            return self._split(self.ids, self.geometry.local_size)
        return self._split(self.local_index, self.geometry.local_size)

    @functools.cached_property
    def global_id(self) -> tuple[Array, Array, Array]:
        g = self.geometry
        if g.local_size[1] == g.local_size[2] == 1 and g.num_groups[1] == g.num_groups[2] == 1:
            x = self.ids + g.global_offset[0] if g.global_offset[0] else self.ids
            zeros = np.zeros(self.total, dtype=np.int64)
            return (x, zeros + g.global_offset[1], zeros + g.global_offset[2])
        gid = self.group_id
        lid = self.local_id
        x, y, z = (gid[d] * g.local_size[d] + lid[d] + g.global_offset[d] for d in range(3))
        return (x, y, z)


_SHARED_LANES_MAX = 1 << 22
"""Launches up to this many work-items share their geometry's ids (at most a few int64 arrays of this length, for
the last two geometries); larger ones compute them per launch, so that nothing that size outlives its launch."""


@functools.lru_cache(maxsize=2)
def _shared_lanes(geometry: Geometry) -> Lanes:
    return Lanes(geometry)


def lanes_of(geometry: Geometry) -> Lanes:
    """The lanes of ``geometry``; a kernel launched again over the same NDRange reuses the ids the last launch
    computed (they are never written)."""
    return _shared_lanes(geometry) if geometry.total <= _SHARED_LANES_MAX else Lanes(geometry)


def active_span(mask: Array) -> tuple[int, int] | None:
    """The first and the last active lane of a lane mask, or None when none is active."""
    if mask.ndim != 1 or mask.size == 0:
        return None
    if mask[0] and mask[-1]:  # the usual case, without a pass
        return 0, mask.size - 1
    lo = int(mask.argmax())
    if not mask[lo]:
        return None
    return lo, _last_set(mask)


_TAIL = 4096
"""The first stretch ``_last_set`` looks at from the end; each next one is four times longer."""


def _last_set(mask: Array) -> int:
    """The last set lane of a mask with one set: searched from the end in growing stretches (``argmax`` of a
    reversed array copies all of it, a millisecond per million lanes, where the lane is mostly near the end)."""
    end, stretch = mask.size, _TAIL
    while True:
        start = max(0, end - stretch)
        part = mask[start:end][::-1]
        k = int(part.argmax())
        if part[k]:
            return end - 1 - k
        end, stretch = start, stretch * 4


_COUNT_BELOW = 1 << 14
"""Masks up to this many lanes are tested with ``np.count_nonzero`` (a quarter of ``ndarray.any``'s cost on a few
hundred lanes, where the executor's time is such calls); larger ones with ``any``/``all``, which stop early."""


FEW_LANES_FROM = 1 << 11
"""Launches of this many lanes or more access memory by the active lanes alone when they are few (``few_lanes``).
Measured on a tree reduction's seven steps in work-groups of 128 (``scratch[lid] += scratch[lid + offset]``): at
4,096 and 8,192 lanes the active lanes alone cost about a fifth less than passes over every lane's offset, at 2,048
a little less, below that the same."""


def few_lanes(mask: Array, active: Callable[[Array], int]) -> Array | None:
    """The lanes of ``mask``, in order, when the launch is large and they are at most a quarter of it (``active``
    counts a mask's lanes, asked only then): an access by them alone (``Region.load_at``) is then cheaper than
    passes over every lane's offset (a tree reduction's steps after its first, a tail of divergent work-items);
    else None."""
    if mask.ndim != 1 or mask.size < FEW_LANES_FROM or active(mask) * 4 > mask.size:
        return None
    return np.flatnonzero(mask)


def any_lane(mask: Array) -> bool:
    """Whether any lane of ``mask`` is set."""
    return bool(np.count_nonzero(mask)) if mask.size <= _COUNT_BELOW else bool(mask.any())


def all_lanes(mask: Array) -> bool:
    """Whether every lane of ``mask`` is set."""
    return np.count_nonzero(mask) == mask.size if mask.size <= _COUNT_BELOW else bool(mask.all())


def stacked(parts: Sequence[Array], dtype: DTypeLike) -> Array:
    """``parts`` (one per lane, or one for all) as the components of a new last axis, each spread over the lanes as
    it is assigned (``np.stack`` of broadcast views would make and then copy them)."""
    out = np.empty((*np.broadcast_shapes(*(np.shape(p) for p in parts)), len(parts)), dtype)
    for k, p in enumerate(parts):
        out[..., k] = p
    return out


def per_lane(a: Array, shape: tuple[int, ...]) -> Array:
    """``a`` broadcast to ``shape`` (one entry or row per lane): itself when it has that shape already, as it
    mostly has (``np.broadcast_to`` costs microseconds, more than the small launches' arithmetic)."""
    return a if a.shape == shape else np.broadcast_to(a, shape)
