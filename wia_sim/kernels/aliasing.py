"""Kernel arguments over overlapping bytes of one allocation (two views of one tensor at different offsets,
OpenCL's overlapping sub-buffers): one memory for the checks.

Each argument keeps its own ``Region``: its bounds (an access past the argument is out of bounds even where the
allocation goes on, which Oclgrind, seeing one address space, does not report) and its name in findings. What
they share is the record of the bytes: the race tracker's shadow (``races.RaceTracker``) and the initialized flags
are views of one array over the span the arguments cover, so an access through one argument races with another
work-item's access through the other (as Oclgrind reports it), and what one argument's stores initialize the other
reads as written. The same bytes given twice at the same offset are one ``Region`` already (``bind_args``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels.races import LANE_RECORDS, ZERO_RECORDS
from wia_sim.kernels.spaces import Region

__all__ = ["overlapping", "share_records"]

Array = NDArray[Any]


def overlapping(spans: Sequence[tuple[int, Region]]) -> list[list[tuple[int, Region]]]:
    """The groups of two or more regions whose bytes ``[address, address + nbytes)`` overlap (one chain of
    overlaps is one group), each member with its address; ``spans`` holds each region once."""
    groups: list[list[tuple[int, Region]]] = []
    current: list[tuple[int, Region]] = []
    end = -1
    for address, region in sorted(spans, key=lambda s: s[0]):
        if current and address < end:
            current.append((address, region))
            end = max(end, address + region.nbytes)
            continue
        if len(current) > 1:
            groups.append(current)
        current, end = [(address, region)], address + region.nbytes
    if len(current) > 1:
        groups.append(current)
    return groups


def share_records(group: Sequence[tuple[int, Region]]) -> dict[int, Array]:
    """Give the regions of ``group`` (overlapping, each with its address) one race record and one set of
    initialized flags; returns each replaced flags array's new view, by the old one's ``id`` (the executor hands
    the flags back to the caller after the launch).

    A race record covers one byte (a granule of 1): every member's records fall on the shared ones whatever their
    distances, and none ever needs refining (``RaceTracker.refine``, which would part a member's records from the
    others'). The shared records are made up front and flagged as holding something: the tracker's shortcuts
    for a memory nothing has touched yet look at one region's own state only."""
    lo = min(address for address, _ in group)
    keys = max(address - lo + region.data.size + 1 for address, region in group)
    shared = {name: np.full(keys, -1, np.int32) for name in LANE_RECORDS}
    shared.update({name: np.zeros(keys, np.int32) for name in ZERO_RECORDS})
    flags = _shared_flags(group, lo)
    replaced: dict[int, Array] = {}
    for address, region in group:
        first, count = address - lo, region.data.size + 1
        region.granule = 1
        for name, records in shared.items():
            setattr(region, name, records[first : first + count])
        region._written = region._shadowed = True
        region._shares_records = True
        region.track_races = True  # a const argument is read while another argument writes the same bytes
        if flags is not None:
            view = flags[address - lo : address - lo + _padded(region.nbytes)]
            if region.init is not None:
                replaced[id(region.init)] = view
            region.init = view
    return replaced


def _padded(nbytes: int) -> int:
    return -(-nbytes // 16) * 16  # flags are read as whole words (``Region._check``): room for the last one


def _shared_flags(group: Sequence[tuple[int, Region]], lo: int) -> Array | None:
    """One initialized flag per byte of the span, from the members' own (None: every byte holds data)."""
    if all(region.init is None for _, region in group):
        return None
    flags = np.ones(max(address - lo + _padded(region.nbytes) for address, region in group), dtype=bool)
    for address, region in group:
        if region.init is not None:
            flags[address - lo : address - lo + region.nbytes] &= region.init[: region.nbytes]
    return flags
