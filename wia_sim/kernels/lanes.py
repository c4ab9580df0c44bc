"""The work-items of one launch, as lanes: their ids, their work-groups, and which of them are executing.

The executor runs every work-item of a launch in lockstep; each private value is an array with one entry per
lane. Divergent control flow is a boolean mask over the lanes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

Dims = tuple[int, int, int]


@dataclass(frozen=True)
class Geometry:
    """An NDRange: global size, work-group (local) size and global offset, each in three dimensions."""

    global_size: Dims
    local_size: Dims
    global_offset: Dims = (0, 0, 0)
    work_dim: int = 1

    def __post_init__(self) -> None:
        for g, loc in zip(self.global_size, self.local_size, strict=True):
            if loc < 1 or g % loc:
                raise ValueError(f"global size {self.global_size} is not a multiple of local size {self.local_size}")

    @property
    def num_groups(self) -> Dims:
        g, loc = self.global_size, self.local_size
        return (g[0] // loc[0], g[1] // loc[1], g[2] // loc[2])

    @property
    def group_size(self) -> int:
        return math.prod(self.local_size)

    @property
    def total(self) -> int:
        return math.prod(self.global_size)


def launch_geometry(global_size: Dims, local_size: Dims | None, max_work_group: int) -> Geometry:
    """The NDRange of a launch; without a local size, the largest power-of-two work-group (up to 256 and the
    device's maximum) that divides the first dimension, as OpenCL drivers pick one."""
    if local_size is None:
        size = 1
        while size * 2 <= min(256, max_work_group) and global_size[0] % (size * 2) == 0:
            size *= 2
        local_size = (size, 1, 1)
    work_dim = 3 if global_size[2] > 1 else (2 if global_size[1] > 1 else 1)
    return Geometry(global_size=global_size, local_size=local_size, work_dim=work_dim)


class Lanes:
    """The ids of every work-item, ordered work-group by work-group (lanes of one group are contiguous).

    ``global_id[d]``, ``local_id[d]``, ``group_id[d]`` are int64 arrays of length ``total``; ``group`` is the flat
    work-group index of each lane and ``local_index`` its flat index inside the group.
    """

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry
        n_groups = geometry.num_groups
        loc = geometry.local_size
        group_flat = np.repeat(np.arange(math.prod(n_groups), dtype=np.int64), geometry.group_size)
        local_flat = np.tile(np.arange(geometry.group_size, dtype=np.int64), math.prod(n_groups))
        self.group = group_flat
        self.local_index = local_flat
        self.group_id = (
            group_flat % n_groups[0],
            group_flat // n_groups[0] % n_groups[1],
            group_flat // (n_groups[0] * n_groups[1]),
        )
        self.local_id = (local_flat % loc[0], local_flat // loc[0] % loc[1], local_flat // (loc[0] * loc[1]))
        offset = geometry.global_offset
        self.global_id = tuple(self.group_id[d] * loc[d] + self.local_id[d] + offset[d] for d in range(3))
        self.total = geometry.total
        self.all = np.ones(self.total, dtype=bool)

    def divergent_groups(self, mask: np.ndarray) -> np.ndarray:
        """Work-group indices where ``mask`` is neither all-true nor all-false (barrier divergence)."""
        per_group = mask.reshape(-1, self.geometry.group_size)
        mixed = per_group.any(axis=1) & ~per_group.all(axis=1)
        return np.flatnonzero(mixed)
