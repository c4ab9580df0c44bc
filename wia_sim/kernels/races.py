"""The data-race tracker of ``Region``: shadow memory per granule of ``__global`` and ``__local`` memory, holding
the last writer, the last reader(s) and the last atomic updater(s) of each, checked on every access
(``Region._check``); ``__global`` records carry their work-group's barrier epoch (advanced by barriers with
``CLK_GLOBAL_MEM_FENCE``), ``__local`` ones are forgotten at each barrier with ``CLK_LOCAL_MEM_FENCE``
(``Region.barrier``). Two accesses by different work-items to one granule race unless both read, both are
atomic, or a barrier of their group that orders the space lies between; a write whose conflicts are all writes of
the same bits is a uniform write, a lower-severity finding (``LaunchState.note``). A mixin of ``Region``, which
owns the shadow arrays."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels.affine import Affine
from wia_sim.kernels.lanes import all_lanes

if TYPE_CHECKING:
    from wia_sim.kernels.spaces import LaunchState

__all__ = ["RaceTracker"]

Array = NDArray[Any]


@dataclass
class _Compact:
    """An access kept by its coefficients instead of in the shadow (``RaceTracker.compact``): its granules per
    lane (``keys``), the lanes that made it, whether it wrote, and the barrier epochs when it happened."""

    keys: Affine
    mask: Array
    write: bool
    epoch: Array
    line: int  # the program's line of the access


LANE_RECORDS = ("w_lane", "r_lane", "a_lane", "l_lane", "r_first")
"""The shadow arrays of work-items on record per granule (-1: none; -2: several)."""
ZERO_RECORDS = (
    "w_epoch", "w_group", "w_line", "r_epoch", "r_group", "r_line", "r_other_line", "a_epoch", "a_group", "a_line",
    "l_epoch", "l_group", "l_line",
)  # fmt: skip
"""The shadow arrays of barrier epochs, groups and the program's lines of the accesses on record per granule (0
when nothing is on record)."""


class RaceTracker:
    """The race-check methods of ``Region`` (which sets every attribute declared here)."""

    space: str
    description: str
    data: Array
    track_races: bool
    granule: int
    w_lane: Array | None
    w_epoch: Array | None
    w_group: Array | None  # where ``w_lane`` is -2 (several writers of the same bits): their group, or -1: several
    r_lane: Array | None
    r_epoch: Array | None
    r_group: Array | None
    a_lane: Array | None
    a_epoch: Array | None
    a_group: Array | None
    l_lane: Array | None
    l_epoch: Array | None
    l_group: Array | None
    w_line: Array | None  # the line of the last write on record (a race names where the other access was)
    r_line: Array | None  # reads: the line of the last read by ``r_first``, the work-item whose read began the record
    r_first: Array | None
    r_other_line: Array | None  # the line of the last read on record by another work-item than ``r_first``
    a_line: Array | None
    l_line: Array | None
    _pending_reads: list[tuple[Array, Array, int, Array | None, int]]
    _pending_size: int
    _probe: Array | None
    _written: bool
    _compact: list[_Compact]
    _layouts: dict[Any, Any]  # ``strided.StridedAccess._layout``'s, whose race keys are in granules
    _shadowed: bool  # something is on record in the shadow (or waits to be: _pending_reads)
    _shares_records: bool  # another argument's region shares the shadow (``aliasing.share_records``)

    @property
    def raced(self) -> bool:
        """Whether the tracker sees this memory's accesses: ``__constant`` memory is never written and ``__private``
        memory belongs to one work-item; a ``const`` argument only where another argument may write it."""
        return self.track_races and self.space not in ("constant", "private")

    @property
    def stride(self) -> int:
        return int(self.data.shape[1])

    def refine(self, st: LaunchState, size: int) -> None:
        """An access of ``size``-byte pieces, smaller than a granule (through a pointer cast to a narrower type):
        from now on a granule is ``size`` bytes, each record repeated over the granules it covered, so that
        work-items touching different bytes of one old granule do not conflict (an access of wider elements
        records every granule it covers: ``Region._check``)."""
        if self._compact:
            self.materialize(st)
        self._fold_reads()
        finer = math.gcd(self.granule, size)
        factor = self.granule // finer
        keys = self.data.size // finer + 1
        for name in (*LANE_RECORDS, *ZERO_RECORDS):
            records = getattr(self, name)
            if records is not None:
                setattr(self, name, np.repeat(records, factor)[:keys])
        self.granule = finer
        self._probe = None
        self._layouts.clear()  # their race keys were in the old granules

    def compact(self, st: LaunchState, keys: Affine, mask: Array, write: bool) -> bool:
        """Record a plain access whose granule per lane is ``keys`` (affine in the work-item's coordinates) without
        looking lane by lane, when nothing on record can conflict with it: the shadow is empty, and every compact
        record it could conflict with (one of the two writes) has the same keys, no two work-items sharing a
        granule, so each granule is only ever touched by one work-item. False: check it lane by lane
        (``_race``), after ``materialize``."""
        if self._shadowed or (write and not keys.injective):
            return False
        for r in self._compact:
            if (r.write or write) and (r.keys != keys or not keys.injective):
                return False
        # lane masks and the epochs are never written in place (a change makes a new array): kept, not copied
        self._compact.append(_Compact(keys, mask, write, st.epoch, st.line))
        return True

    def materialize(self, st: LaunchState) -> None:
        """Put the compact records into the shadow, in the order they happened, each with the barrier epochs of
        its time, as if they had been checked lane by lane (none conflicts with another: ``compact``)."""
        records, self._compact = self._compact, []
        now = st.line
        for r in records:
            lanes = np.flatnonzero(r.mask)
            if lanes.size:
                self._shadowed = True
                st.line = r.line  # (the line it is recorded with)
                try:
                    self._race(st, r.keys.values()[lanes], lanes, r.write, epochs=r.epoch)
                finally:
                    st.line = now

    def _race(
        self,
        st: LaunchState,
        keys: Array,
        lanes: Array,
        write: bool,
        atomic: bool = False,
        stored: Callable[[], tuple[Array, Array]] | None = None,
        load: bool = False,
        epochs: Array | None = None,
    ) -> None:
        """Shadow memory per granule: the last writer, the last reader (``-2``: several), the last atomic updater
        (``-2``: several) and, for ``__global`` memory, their barrier epochs and the readers' and updaters' group
        (``-1``: several groups). ``__local`` memory needs neither: it belongs to one group and is forgotten at each
        barrier with ``CLK_LOCAL_MEM_FENCE`` (``barrier``). Conflicts are checked against what earlier accesses
        recorded, so a buffer's first access in a launch costs one pass.

        ``atomic``: the access is an atomic update (looked at once, as its write: its read half adds nothing). It
        conflicts with other work-items' plain reads and writes, never with another atomic. ``atomic`` without
        ``write`` adds nothing either, unless ``load``: an atomic that stores nothing (an ``atomic_cmpxchg`` whose
        comparison failed), an atomic load as Oclgrind counts it, which conflicts with other work-items' plain
        writes only (a plain read beside it reads the same value whatever the order). ``stored``, for a plain
        write: computes the bits each entry stores and the bits memory holds there now (the last write's), called
        only when writes conflict, to tell a uniform write (the same value) from a race. ``epochs``: the
        work-groups' barrier epochs the access happened under (a compact record's, ``materialize``), else the
        launch's now."""
        if atomic and not write:
            if load:
                self._atomic_load(st, keys, lanes)
            return
        gs = st.lanes.geometry.group_size
        local = self.space == "local"
        epochs = st.epoch if epochs is None else epochs
        quiet = not self._written if local else self.a_lane is None and (self.w_lane is None or not self._written)
        if not write and quiet:
            # nothing on record that a read can conflict with (no write or atomic update since the last barrier in
            # __local memory, none in __global memory): the read matters only if a write or an atomic update comes
            # (before the next barrier, for __local memory), so its record waits (``_wait``)
            self._wait(keys, lanes, st.line, None if local else epochs, gs)
            return
        size = self.data.size // self.granule + 1
        at, distinct = _indexer(keys)
        if write and (atomic or not self._reads_clear(keys, lanes, distinct, size)):
            self._fold_reads()  # the reads on record first: a write conflicts with them
        # (the barrier epochs of the access's groups matter once a group of the launch passed a global fence)
        timed = not local and not _no_epochs(epochs)
        my_group = lanes // gs if timed else None
        my_epoch = epochs[my_group] if timed else None
        check = "race_local" if local else "race_global"
        uniform: Array | None = None  # entries whose only conflicts are writes of the same value

        def live(other_group: Array, other_epoch: Array) -> Array | bool:
            # an earlier access conflicts unless a barrier of the same group lies between
            if my_epoch is None:
                return True
            return np.asarray((other_group != my_group) | (other_epoch == my_epoch))

        def several(shadow: Array, groups: Array | None, epochs: Array | None) -> Array:
            # conflicts with a record of readers or updaters: another work-item, or several
            seen = shadow[at]
            conflict = ((seen >= 0) & (seen != lanes)) | (seen == -2)
            if bool(conflict.any()) and not local:
                assert groups is not None and epochs is not None
                grp = groups[at]
                conflict &= (grp < 0) | live(grp, epochs[at])
            return np.asarray(conflict)

        writers: Array | None = None  # the group of the writers on record where they conflict
        if self.w_lane is not None and self._written:
            assert self.w_epoch is not None
            wl = self.w_lane[at]
            conflict = (wl != lanes) & (wl != -1)  # (another work-item's write, or several work-items': -2)
            if bool(conflict.any()):
                writers = self._writer_groups(wl, at, gs)
                conflict &= live(writers, self.w_epoch[at])
                if bool(conflict.any()):
                    if write and not atomic and stored is not None:
                        new, old = stored()
                        uniform = conflict & (new == old)
                        conflict &= new != old
                    if bool(conflict.any()):
                        k = int(np.flatnonzero(conflict)[0])
                        kind = "atomic" if atomic else "write" if write else "read"
                        self._report(st, check, kind, "write", int(lanes[k]), int(wl[k]), keys, lanes, k, conflict)
        if write and self.r_lane is not None:
            conflict = several(self.r_lane, self.r_group, self.r_epoch)
            if bool(conflict.any()):
                k = int(np.flatnonzero(conflict)[0])
                kind = "atomic" if atomic else "write"
                self._report(st, check, kind, "read", int(lanes[k]), int(self.r_lane[at][k]), keys, lanes, k, conflict)
        if write and not atomic and self.l_lane is not None:
            conflict = several(self.l_lane, self.l_group, self.l_epoch)
            if bool(conflict.any()):
                k = int(np.flatnonzero(conflict)[0])
                self._report(
                    st, check, "write", "load", int(lanes[k]), int(self.l_lane[at][k]), keys, lanes, k, conflict
                )
        if not atomic and self.a_lane is not None:
            conflict = several(self.a_lane, self.a_group, self.a_epoch)
            if bool(conflict.any()):
                k = int(np.flatnonzero(conflict)[0])
                kind = "write" if write else "read"
                self._report(
                    st, check, kind, "atomic", int(lanes[k]), int(self.a_lane[at][k]), keys, lanes, k, conflict
                )
        if atomic:
            fresh = self.a_lane is None
            if self.a_lane is None:
                self.a_lane = np.full(size, -1, np.int32)
                self.a_epoch = np.zeros(size, np.int32)
                self.a_group = np.zeros(size, np.int32)
                self.a_line = np.zeros(size, np.int32)
            assert self.a_line is not None
            self.a_line[at] = st.line
            self._written = True  # (for __local memory: reads must now be looked at)
            if local:
                _record_local(self.a_lane, keys, lanes, at, distinct)
            else:
                assert self.a_epoch is not None and self.a_group is not None
                _record_global(
                    self.a_lane, self.a_epoch, self.a_group, keys, lanes, at, distinct, lanes // gs, my_epoch, fresh
                )
            return
        if write:
            if self.w_lane is None:
                self.w_lane = np.full(size, -1, np.int32)
                self.w_epoch = np.zeros(size, np.int32)
                self.w_group = np.zeros(size, np.int32)
                self.w_line = np.zeros(size, np.int32)
            assert self.w_epoch is not None and self.w_line is not None
            earlier = uniform  # entries that wrote the bits an earlier work-item's write left there
            self.w_lane[at] = lanes
            self.w_line[at] = st.line
            self._written = True
            if my_epoch is not None:
                self.w_epoch[at] = my_epoch
            if not distinct:
                dup = self.w_lane[keys] != lanes
                if bool(dup.any()):
                    shared = _mixed_by_key(keys, lanes)  # every write of this access to an address another makes
                    if stored is not None:
                        new, _ = stored()
                        same = shared & ~_mixed_by_key(keys, new)
                        uniform = same if uniform is None else uniform | same
                        shared &= ~same
                    if bool(shared.any()):
                        key = keys[int(np.flatnonzero(shared)[0])]
                        same_key = np.flatnonzero(keys == key)  # report the second writer in lane order
                        first, second = int(same_key[0]), int(same_key[1])
                        self._report(
                            st,
                            check,
                            "write",
                            "write",
                            int(lanes[second]),
                            int(lanes[first]),
                            keys,
                            lanes,
                            second,
                            shared,
                        )
            if uniform is not None and bool(uniform.any()):
                self._several_writers(keys, uniform, lanes // gs, earlier, writers)
                self._uniform(st, keys, lanes, uniform)
            return
        # a read, checked: its record waits as well (the conflicts of a read are with records of writes and atomic
        # updates, which reads leave as they are)
        self._wait(keys, lanes, st.line, None if local else epochs, gs)

    def _wait(self, keys: Array, lanes: Array, line: int, epochs: Array | None, gs: int) -> None:
        """Keep a read's record (``lanes`` read granules ``keys`` at ``line``; ``__global`` memory: under the barrier
        epochs ``epochs`` of work-groups of ``gs`` work-items) until a write or an atomic update needs the readers
        on record (``_fold_reads``, which records them in the order they happened: the same shadow as recording
        each at once). Most memory is read and never written in a launch (a kernel's inputs), or read in one
        barrier interval and written in another, so most reads are never recorded at all. Memory whose records
        another argument shares (``aliasing``) records its reads at once: a write through the other argument would
        not see them."""
        self._pending_reads.append((keys, lanes, line, epochs, gs))
        self._pending_size += keys.size
        if self._pending_size > _PENDING_READS or self._shares_records:
            self._fold_reads()

    def _reads_clear(self, keys: Array, lanes: Array, distinct: bool, size: int) -> bool:
        """Whether none of the few reads waiting (``_wait``) is by another work-item of a granule that this plain
        write (``keys``, distinct, by ``lanes``) writes, whatever the barriers between: then they go on waiting
        (``__local`` memory's until a barrier mostly forgets them unrecorded: a tree reduction's step reads two
        elements and writes one, apart; ``__global`` memory's as a work-item's update of its own elements leaves
        them). Else they are recorded first, and a conflict found as any other (``_race``)."""
        if not self._pending_reads:
            return True
        if not distinct or len(self._pending_reads) > _PROBED_READS:
            return False
        probe = self._probe
        if probe is None:
            probe = self._probe = np.full(size, -1, np.int32)
        probe[keys] = lanes
        try:
            for read, readers, *_ in self._pending_reads:
                writers = probe[read]
                if bool(((writers != -1) & (writers != readers)).any()):
                    return False
            return True
        finally:
            probe[keys] = -1

    def _writer_groups(self, wl: Array, at: Array | slice, gs: int) -> Array:
        """The work-group of each writer on record in ``wl`` (``w_lane`` at ``at``): a single writer's own, else
        (-2, several writers) ``w_group``'s, -1 for writers in several groups."""
        if self.w_group is None or not bool((wl == -2).any()):
            return np.asarray(wl // gs)
        return np.where(wl >= 0, wl // gs, self.w_group[at])

    def _several_writers(
        self, keys: Array, uniform: Array, my_group: Array, earlier: Array | None, writers: Array | None
    ) -> None:
        """Put "several writers" (-2) on record where a uniform write leaves the same bits from more than one
        work-item (``uniform``: its entries; ``earlier``: those that met an earlier work-item's write, whose groups
        are ``writers``), with their work-group, or -1 for several: a later write of other bits by any of them, or a
        read by any, races with the others (a single writer on record would hide them)."""
        assert self.w_lane is not None and self.w_group is not None
        groups = np.asarray(my_group)
        if earlier is not None and writers is not None:
            groups = np.where(earlier & (writers != groups), -1, groups)
        ks, gs_of = keys[uniform], groups[uniform]
        self.w_lane[ks] = -2
        self.w_group[ks] = gs_of
        mixed = _mixed_by_key(ks, gs_of)
        if bool(mixed.any()):
            self.w_group[ks[mixed]] = -1

    def _atomic_load(self, st: LaunchState, keys: Array, lanes: Array) -> None:
        """An atomic that stores nothing (see ``_race``'s ``load``): a race with another work-item's plain write on
        record, else recorded (``l_lane``) for the plain writes that follow."""
        gs = st.lanes.geometry.group_size
        local = self.space == "local"
        at, distinct = _indexer(keys)
        my_group = lanes // gs
        my_epoch = st.epoch[my_group] if not local and bool(st.epoch.any()) else None
        if self.w_lane is not None and self._written:
            assert self.w_epoch is not None
            wl = self.w_lane[at]
            conflict = ((wl >= 0) & (wl != lanes)) | (wl == -2)
            if my_epoch is not None and bool(conflict.any()):
                conflict &= (self._writer_groups(wl, at, gs) != my_group) | (self.w_epoch[at] == my_epoch)
            if bool(conflict.any()):
                k = int(np.flatnonzero(conflict)[0])
                check = "race_local" if local else "race_global"
                self._report(st, check, "load", "write", int(lanes[k]), int(wl[k]), keys, lanes, k, conflict)
        fresh = self.l_lane is None
        if self.l_lane is None:
            size = self.data.size // self.granule + 1
            self.l_lane = np.full(size, -1, np.int32)
            self.l_epoch = np.zeros(size, np.int32)
            self.l_group = np.zeros(size, np.int32)
            self.l_line = np.zeros(size, np.int32)
        assert self.l_line is not None
        self.l_line[at] = st.line
        if local:
            _record_local(self.l_lane, keys, lanes, at, distinct)
        else:
            assert self.l_epoch is not None and self.l_group is not None
            _record_global(
                self.l_lane, self.l_epoch, self.l_group, keys, lanes, at, distinct, my_group, my_epoch, fresh
            )

    def _uniform(self, st: LaunchState, keys: Array, lanes: Array, uniform: Array) -> None:
        """Note (or, strict, raise) the uniform write at the entries flagged in ``uniform``: work-items store the
        value memory holds, or the same value as each other, with no barrier in between. A benign race: every
        order gives the same memory, so it is a lower-severity finding that does not stop the kernel."""
        k = int(np.flatnonzero(uniform)[0])
        at = (int(keys[k]) * self.granule) % self.stride
        what = (
            f"uniform write: write of {self.description} at offset {at} stores the value another work-item stores "
            "there with no barrier in between (a benign race: every order leaves the same value)"
        )
        st.note(
            st.fault(
                "uniform_write", what, int(lanes[k]), at, lanes[uniform], (keys[uniform] * self.granule) % self.stride
            )
        )

    def _fold_reads(self) -> None:
        """Record the waiting reads (``_wait``) in the shadow, in the order they happened."""
        if not self._pending_reads:
            return
        size = self.data.size // self.granule + 1
        for keys, lanes, line, epochs, gs in self._pending_reads:
            fresh = self.r_lane is None
            if fresh:
                self.r_lane = np.full(size, -1, np.int32)
                self.r_first = np.full(size, -1, np.int32)
                self.r_line = np.zeros(size, np.int32)
                self.r_other_line = np.zeros(size, np.int32)
                if epochs is not None:
                    self.r_epoch = np.zeros(size, np.int32)
                    self.r_group = np.zeros(size, np.int32)
            assert self.r_lane is not None and self.r_line is not None
            at, distinct = _indexer(keys)
            if epochs is None:
                _record_local(self.r_lane, keys, lanes, at, distinct)
            else:
                assert self.r_epoch is not None and self.r_group is not None
                my_group = lanes // gs
                my_epoch = epochs[my_group] if bool(epochs.any()) else None
                _record_global(
                    self.r_lane, self.r_epoch, self.r_group, keys, lanes, at, distinct, my_group, my_epoch, fresh
                )
            self._read_lines(keys, lanes, at, distinct, line)
        self._pending_reads.clear()
        self._pending_size = 0

    def _read_lines(self, keys: Array, lanes: Array, at: Array | slice, distinct: bool, line: int) -> None:
        """Where the reads on record were (a race with a write names a read by another work-item than the
        writer): the line of the read that began each record (by ``r_first``), or another work-item's, which may be
        in the same access (``distinct``: no two of its entries share a granule)."""
        assert self.r_lane is not None and self.r_first is not None
        assert self.r_line is not None and self.r_other_line is not None
        first = self.r_first[at]
        began = ((self.r_lane[at] == lanes) & (first != lanes)) | (first == -1)  # (a record begun or taken over)
        own = began | (first == lanes)
        if bool(began.any()):
            self.r_first[keys[began]] = lanes[began]
            self.r_other_line[keys[began]] = 0
        self.r_line[keys[own]] = line
        self.r_other_line[keys[~own]] = line
        if not distinct:  # (work-items reading one granule in this access: each is another's, whichever began it)
            shared = _mixed_by_key(keys, lanes)
            if bool(shared.any()):
                self.r_other_line[keys[shared]] = line

    def _report(
        self,
        st: LaunchState,
        check: str,
        kind: str,
        other_kind: str,
        lane: int,
        other: int,
        keys: Array,
        lanes_of: Array,
        k: int,
        racing: Array,
    ) -> None:
        """Raise the race found at entry ``k`` of the access (``keys``, ``lanes_of``): ``lane``'s ``kind`` of access
        (``read``, ``write``, ``atomic``) conflicts with ``other``'s ``other_kind`` (``-2``: several work-items);
        ``racing`` flags every entry of the access that conflicts likewise."""
        at = (int(keys[k]) * self.granule) % self.stride
        lanes = st.lanes
        fence = "CLK_LOCAL_MEM_FENCE" if self.space == "local" else "CLK_GLOBAL_MEM_FENCE"
        unordered = f"with no barrier({fence}) in between"
        if other >= 0:
            ogid = tuple(int(lanes.global_id[d][other]) for d in range(3))
            who = f"work-item {ogid}"
            if int(lanes.group[other]) != int(lanes.group[lane]):  # a barrier cannot help: it orders one group
                unordered = "of another work-group (no barrier orders the work-items of different work-groups)"
        else:
            who = "other work-items"
        lines = {"write": self.w_line, "read": self.r_line, "atomic": self.a_line, "load": self.l_line}[other_kind]
        if other_kind == "read" and self.r_first is not None and int(self.r_first[keys[k]]) == lane:
            lines = self.r_other_line  # (the writer's own read began the record: another work-item's is the race)
        line = int(lines[keys[k]]) if lines is not None else 0
        if line:  # where the other access is (Oclgrind names both places)
            who += f" at {st.line_named(line)}"
        what = (
            f"data race: {_ACCESS[kind]} of {self.description} at offset {at} conflicts with "
            f"{_ARTICLE[other_kind]} {_ACCESS[other_kind]} by {who} {unordered}; the {_ACCESS[kind]}"
        )  # (the fault goes on "by work-item ... in group ...": the first work-item, named apart from the other)
        raise st.fault(check, what, lane, at, lanes_of[racing], (keys[racing] * self.granule) % self.stride)


_ACCESS = {"read": "read", "write": "write", "atomic": "atomic update", "load": "atomic load"}
_ARTICLE = {"read": "a", "write": "a", "atomic": "an", "load": "an"}


_EPOCHS: list[Array] = [np.zeros(0, np.int64)]
"""The barrier epochs ``_no_epochs`` last found all zero (``LaunchState.epoch`` is replaced, never written in
place, when a barrier advances it)."""


def _no_epochs(epochs: Array) -> bool:
    """Whether no work-group has passed a barrier with ``CLK_GLOBAL_MEM_FENCE`` (looked at once per array)."""
    if epochs is _EPOCHS[0]:
        return True
    if bool(epochs.any()):
        return False
    _EPOCHS[0] = epochs
    return True


def _mixed_by_key(keys: Array, values: Array) -> Array:
    """Which entries of one access share their granule (``keys``) with an entry of another ``values`` (another lane,
    or other bits stored)."""
    if keys.size > 1 and all_lanes(keys[1:] >= keys[:-1]):  # (lane order, as nearly always: each key's run together)
        same_key = keys[1:] == keys[:-1]
        starts = np.flatnonzero(np.r_[True, ~same_key])
        changes = np.r_[False, same_key & (values[1:] != values[:-1])]  # (values may be void words: no order)
        return np.repeat(np.logical_or.reduceat(changes, starts), np.diff(np.r_[starts, keys.size]))
    order = np.lexsort((values, keys))
    k, v = keys[order], values[order]
    # a run of one key with differing values: its first and last values differ
    starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    ends = np.r_[starts[1:], k.size] - 1
    mixed = v[starts] != v[ends]
    flags = np.zeros(keys.size, dtype=bool)
    flags[order] = np.repeat(mixed, ends - starts + 1)
    return flags


_PROBED_READS = 4
"""How many waiting reads a plain write looks at before it records them instead (``_reads_clear``: each write would
look at every read waiting, a barrier interval's or a launch's, again)."""
_PENDING_READS = 1 << 22
"""How many ``__local`` read records may wait before they are written into the shadow (bounds their memory)."""


def _indexer(keys: Array) -> tuple[Array | slice, bool]:
    """``keys`` as a slice when they are consecutive (shadow memory is then read and written through views, not
    gathers), and whether they are known to be distinct (strictly increasing)."""
    if keys.size < 2:
        return keys, True
    if not all_lanes(keys[1:] > keys[:-1]):
        return keys, False
    if int(keys[-1]) - int(keys[0]) == keys.size - 1:
        return slice(int(keys[0]), int(keys[-1]) + 1), True
    return keys, True


def _record_local(shadow: Array, keys: Array, lanes: Array, at: Array | slice, distinct: bool) -> None:
    """Record the readers (or atomic updaters) of ``__local`` memory: one work-item per granule, or ``-2``."""
    rl = shadow[at]
    new = np.where((rl == -1) | (rl == lanes), lanes, -2)
    shadow[at] = new
    if not distinct:
        several = shadow[keys] != new  # lanes of this access that share an address
        if bool(several.any()):
            shadow[keys[several]] = -2


def _record_global(
    shadow: Array,
    epochs: Array,
    groups: Array,
    keys: Array,
    lanes: Array,
    at: Array | slice,
    distinct: bool,
    my_group: Array,
    my_epoch: Array | None,
    fresh: bool,
) -> None:
    """Record the readers (or atomic updaters) of ``__global`` memory: the work-item (``-2``: several), its
    barrier epoch and its group (``-1``: several), forgetting those a barrier of their own group ordered."""
    stale: Array | None = None  # None: every reader takes its address over (fresh record, or all stale)
    if not fresh:
        rl = shadow[at]
        rg = groups[at]
        stale = (rl == -1) | (rl == lanes)  # no other reader on record, or one this group's barrier ordered
        if my_epoch is not None:
            old_epoch = epochs[at] != my_epoch
            stale = stale | (((rl >= 0) | (rl == -2)) & (rg == my_group) & old_epoch)
        if bool(stale.all()):
            stale = None
    multi: Array | None
    if stale is None:
        shadow[at] = lanes
        if my_epoch is not None:
            epochs[at] = my_epoch
        groups[at] = my_group
        multi = None if distinct else shadow[keys] != lanes
    else:
        multi = ~stale
        if bool(stale.any()):
            ks, ls = keys[stale], lanes[stale]
            shadow[ks] = ls
            if my_epoch is not None:
                epochs[ks] = my_epoch[stale]
            groups[ks] = my_group[stale]
            if not distinct:
                multi |= stale & (shadow[keys] != lanes)
    if multi is not None and bool(multi.any()):
        km = keys[multi]
        other_group = groups[km] != my_group[multi]  # read before by, or now with, another group
        shadow[km] = -2
        groups[km[other_group]] = -1  # only ever -1 written: duplicates of a key cannot undo it
        if my_epoch is not None:
            epochs[km] = my_epoch[multi]
