"""Where the data of UNIFIED and MANAGED buffers lives, and what moving it costs.

A MANAGED buffer is tracked in granules: each is unpopulated, on the host or on the device. The first touch of a
granule populates it where it is touched, free; a touch from the other side migrates it on demand, one fault per
granule, each fault serviced before the access goes on. A UNIFIED buffer moves as one piece: device access to data
the host wrote last (or the reverse) costs one transfer of the buffer over the host link. A prefetch moves
granules in bulk, as one DMA transfer, without faults.
"""

from __future__ import annotations

import math

import numpy as np

from wia_sim.hwmodel import HardwareModel
from wia_sim.memory import Buffer, MemoryKind

MIGRATION_GRANULE = 64 * 1024
"""Bytes a demand fault migrates. Measured: 30,078 fault-driven transfers moved 2,147 MB, 71 KB on average
(parallelArchitect/pascal-um-benchmark README, Nsight Systems on a GTX 1080, CUDA 12.0); modeled as the 64 KiB
granule closest to that average."""

FAULT_SERVICE_S = 5.6e-6
"""Time a demand fault adds beyond moving its data. Derived from the same measurement: the demand-paged kernel
took 382.6 ms over 30,078 faults, 12.7 us per fault, of which 7.1 us moved the 71 KB at the ~10 GB/s the link
sustained during migration (README: "PCIe bandwidth utilized: ~10 GB/s during migration"); the other 5.6 us is
fault service."""

UNPOPULATED, ON_HOST, ON_DEVICE = 0, 1, 2


def new_residency(kind: MemoryKind, nbytes: int) -> np.ndarray | None:
    """The residency map of a new buffer: per granule for MANAGED, one entry for UNIFIED, none otherwise."""
    if kind is MemoryKind.MANAGED:
        return np.full(max(1, math.ceil(nbytes / MIGRATION_GRANULE)), UNPOPULATED, np.int8)
    if kind is MemoryKind.UNIFIED:
        return np.full(1, UNPOPULATED, np.int8)
    return None


def migrate(model: HardwareModel, buffer: Buffer, lo: int, hi: int, to_device: bool, on_demand: bool) -> float:
    """Bring bytes ``[lo, hi)`` of ``buffer`` to the device (or the host); the seconds that takes.

    ``on_demand``: by faults (one per MANAGED granule); otherwise as one bulk transfer (a prefetch).
    """
    residency = buffer.residency
    if residency is None or hi <= lo:
        return 0.0
    if buffer.kind is MemoryKind.UNIFIED:
        first, last, granule = 0, 1, buffer.nbytes
    else:
        first, last, granule = lo // MIGRATION_GRANULE, math.ceil(hi / MIGRATION_GRANULE), MIGRATION_GRANULE
    span = residency[first:last]
    away = ON_HOST if to_device else ON_DEVICE
    moving = int(np.count_nonzero(span == away))
    span[:] = ON_DEVICE if to_device else ON_HOST
    if not moving:
        return 0.0
    link = model.host_link
    nbytes = min(moving * granule, buffer.nbytes)
    rate = link.pinned_h2d_bandwidth if to_device else link.pinned_d2h_bandwidth
    if on_demand and buffer.kind is MemoryKind.MANAGED:
        return moving * FAULT_SERVICE_S + nbytes / rate
    return link.latency + nbytes / rate
