"""The data-race tracker of ``Region``: shadow memory per granule of ``__global`` and ``__local`` memory, holding
the last writer and the last reader(s) of each, checked on every access (``Region._check``) and forgotten for
``__local`` memory at each barrier (``Region.barrier``). A mixin of ``Region``, which owns the shadow arrays."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from wia_sim.kernels.spaces import LaunchState

__all__ = ["RaceTracker"]

Array = NDArray[Any]


class RaceTracker:
    """The race-check methods of ``Region`` (which sets every attribute declared here)."""

    space: str
    description: str
    data: Array
    granule: int
    w_lane: Array | None
    w_epoch: Array | None
    r_lane: Array | None
    r_epoch: Array | None
    r_group: Array | None
    _pending_reads: list[tuple[Array, Array]]
    _pending_size: int
    _written: bool

    @property
    def stride(self) -> int:
        return int(self.data.shape[1])

    def _race(self, st: LaunchState, keys: Array, lanes: Array, write: bool) -> None:
        """Shadow memory per granule: the last writer, the last reader (``-2``: several) and, for ``__global``
        memory, their barrier epochs and the readers' group (``-1``: several groups). ``__local`` memory needs
        neither: it belongs to one group and is forgotten at each barrier (``barrier``). Conflicts are checked
        against what earlier accesses recorded, so a buffer's first access in a launch costs one pass."""
        gs = st.lanes.geometry.group_size
        local = self.space == "local"
        if local and not write and not self._written:
            # nothing written since the last barrier: no conflict is possible now, and the reads matter only if a
            # write comes before the next barrier, so they wait (a barrier usually forgets them unexamined)
            self._pending_reads.append((keys, lanes))
            self._pending_size += keys.size
            if self._pending_size > _PENDING_READS:
                self._fold_reads()
            return
        if local and write:
            self._fold_reads()
        size = self.data.size // self.granule + 1
        at, distinct = _indexer(keys)
        my_group = lanes // gs
        my_epoch = st.epoch[my_group] if not local and bool(st.epoch.any()) else None
        check = "race_local" if local else "race_global"

        def live(other_group: Array, other_epoch: Array) -> Array | bool:
            # an earlier access conflicts unless a barrier of the same group lies between
            if my_epoch is None:
                return True
            return np.asarray((other_group != my_group) | (other_epoch == my_epoch))

        if self.w_lane is not None and self._written:
            assert self.w_epoch is not None
            wl = self.w_lane[at]
            conflict = (wl >= 0) & (wl != lanes)
            if bool(conflict.any()):
                conflict &= live(wl // gs, self.w_epoch[at])
                if bool(conflict.any()):
                    k = int(np.flatnonzero(conflict)[0])
                    self._report(st, check, write, "write", int(lanes[k]), int(wl[k]), keys, lanes, k, conflict)
        if write:
            if self.r_lane is not None:
                rl = self.r_lane[at]
                conflict = ((rl >= 0) & (rl != lanes)) | (rl == -2)
                if bool(conflict.any()) and not local:
                    assert self.r_group is not None and self.r_epoch is not None
                    rg = self.r_group[at]
                    conflict &= (rg < 0) | live(rg, self.r_epoch[at])
                if bool(conflict.any()):
                    k = int(np.flatnonzero(conflict)[0])
                    self._report(st, check, write, "read", int(lanes[k]), int(rl[k]), keys, lanes, k, conflict)
            if self.w_lane is None:
                self.w_lane = np.full(size, -1, np.int32)
                self.w_epoch = np.zeros(size, np.int32)
            assert self.w_epoch is not None
            self.w_lane[at] = lanes
            self._written = True
            if my_epoch is not None:
                self.w_epoch[at] = my_epoch
            if not distinct:
                dup = self.w_lane[keys] != lanes
                if bool(dup.any()):
                    key = keys[int(np.flatnonzero(dup)[0])]
                    same = np.flatnonzero(keys == key)  # report the second writer in lane order
                    shared = _shared_by_lanes(keys, lanes)  # every write of this access to an address another makes
                    self._report(
                        st,
                        check,
                        True,
                        "write",
                        int(lanes[same[1]]),
                        int(lanes[same[0]]),
                        keys,
                        lanes,
                        int(same[1]),
                        shared,
                    )
            return
        if local:
            self._pending_reads.append((keys, lanes))
            self._fold_reads()
            return
        fresh = self.r_lane is None
        if fresh:
            self.r_lane = np.full(size, -1, np.int32)
            self.r_epoch = np.zeros(size, np.int32)
            self.r_group = np.zeros(size, np.int32)
        self._record_global_reads(keys, lanes, at, distinct, my_group, my_epoch, fresh)

    def _fold_reads(self) -> None:
        """Record the waiting ``__local`` reads in the shadow, in the order they happened."""
        if not self._pending_reads:
            return
        if self.r_lane is None:
            self.r_lane = np.full(self.data.size // self.granule + 1, -1, np.int32)
        for keys, lanes in self._pending_reads:
            at, distinct = _indexer(keys)
            self._record_local_reads(keys, lanes, at, distinct)
        self._pending_reads.clear()
        self._pending_size = 0

    def _record_local_reads(self, keys: Array, lanes: Array, at: Array | slice, distinct: bool) -> None:
        assert self.r_lane is not None
        rl = self.r_lane[at]
        new = np.where((rl == -1) | (rl == lanes), lanes, -2)
        self.r_lane[at] = new
        if not distinct:
            several = self.r_lane[keys] != new  # lanes of this access that share an address
            if bool(several.any()):
                self.r_lane[keys[several]] = -2

    def _record_global_reads(
        self,
        keys: Array,
        lanes: Array,
        at: Array | slice,
        distinct: bool,
        my_group: Array,
        my_epoch: Array | None,
        fresh: bool,
    ) -> None:
        assert self.r_lane is not None and self.r_group is not None and self.r_epoch is not None
        stale: Array | None = None  # None: every reader takes its address over (fresh record, or all stale)
        if not fresh:
            rl = self.r_lane[at]
            rg = self.r_group[at]
            stale = (rl == -1) | (rl == lanes)  # no other reader on record, or one this group's barrier ordered
            if my_epoch is not None:
                old_epoch = self.r_epoch[at] != my_epoch
                stale = stale | (((rl >= 0) | (rl == -2)) & (rg == my_group) & old_epoch)
            if bool(stale.all()):
                stale = None
        multi: Array | None
        if stale is None:
            self.r_lane[at] = lanes
            if my_epoch is not None:
                self.r_epoch[at] = my_epoch
            self.r_group[at] = my_group
            multi = None if distinct else self.r_lane[keys] != lanes
        else:
            multi = ~stale
            if bool(stale.any()):
                ks, ls = keys[stale], lanes[stale]
                self.r_lane[ks] = ls
                if my_epoch is not None:
                    self.r_epoch[ks] = my_epoch[stale]
                self.r_group[ks] = my_group[stale]
                if not distinct:
                    multi |= stale & (self.r_lane[keys] != lanes)
        if multi is not None and bool(multi.any()):
            km = keys[multi]
            other_group = self.r_group[km] != my_group[multi]  # read before by, or now with, another group
            self.r_lane[km] = -2
            self.r_group[km[other_group]] = -1  # only ever -1 written: duplicates of a key cannot undo it
            if my_epoch is not None:
                self.r_epoch[km] = my_epoch[multi]

    def _report(
        self,
        st: LaunchState,
        check: str,
        write: bool,
        other_kind: str,
        lane: int,
        other: int,
        keys: Array,
        lanes_of: Array,
        k: int,
        racing: Array,
    ) -> None:
        """Raise the race found at entry ``k`` of the access (``keys``, ``lanes_of``): ``lane`` conflicts with
        ``other`` (``-2``: several); ``racing`` flags every entry of the access that conflicts likewise."""
        at = (int(keys[k]) * self.granule) % self.stride
        lanes = st.lanes
        if other >= 0:
            ogid = tuple(int(lanes.global_id[d][other]) for d in range(3))
            who = f"work-item {ogid}"
        else:
            who = "other work-items"
        what = (
            f"data race: {'write' if write else 'read'} of {self.description} at offset {at} conflicts with a "
            f"{other_kind} by {who} with no barrier in between"
        )
        raise st.fault(check, what, lane, at, lanes_of[racing], (keys[racing] * self.granule) % self.stride)


def _shared_by_lanes(keys: Array, lanes: Array) -> Array:
    """Which entries of one access touch a granule that another lane of the same access touches too."""
    order = np.lexsort((lanes, keys))
    k, ln = keys[order], lanes[order]
    # a run of one key with differing lanes: its first and last lanes differ
    starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    ends = np.r_[starts[1:], k.size] - 1
    mixed = ln[starts] != ln[ends]
    flags = np.repeat(mixed, ends - starts + 1)
    shared = np.zeros(keys.size, dtype=bool)
    shared[order] = flags
    return shared


_PENDING_READS = 1 << 22
"""How many ``__local`` read records may wait before they are written into the shadow (bounds their memory)."""


def _indexer(keys: Array) -> tuple[Array | slice, bool]:
    """``keys`` as a slice when they are consecutive (shadow memory is then read and written through views, not
    gathers), and whether they are known to be distinct (strictly increasing)."""
    if keys.size < 2:
        return keys, True
    if not bool((keys[1:] > keys[:-1]).all()):
        return keys, False
    if int(keys[-1]) - int(keys[0]) == keys.size - 1:
        return slice(int(keys[0]), int(keys[-1]) + 1), True
    return keys, True
