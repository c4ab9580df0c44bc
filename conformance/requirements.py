"""The requirement table: every ID of SPEC.md with its conformance level and a title, and what this suite claims.

Verdicts count requirements, so the table is the yardstick: a level passes only when every requirement of it that
the suite claims has been shown in the run. A meta test keeps the table equal to the IDs of ``docs/spec/SPEC.md``
(the spec is not installed with the package, so the table is).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass

SECTION_TITLES: dict[str, str] = {
    "3.1": "Progressive disclosure",
    "3.2": "Device discovery and enumeration",
    "3.2.1": "Capabilities",
    "3.3": "Contexts",
    "3.4": "Streams and asynchronous execution",
    "3.4.1": "Dependencies and events",
    "3.5.1": "Memory types",
    "3.5.2": "Memory pools",
    "3.6.1": "High-level operation library",
    "3.6.2": "Custom kernels",
    "3.7": "Tensor operations",
    "3.8": "Synchronization",
    "3.9": "Errors and recovery",
    "3.10": "Profiling",
}

LEVEL_SECTIONS: dict[int, tuple[str, ...]] = {
    1: ("3.2", "3.2.1", "3.3", "3.4", "3.4.1", "3.5.1", "3.7", "3.8", "3.9"),
    2: ("3.5.2", "3.6.1", "3.10"),
    3: ("3.6.2",),
}
"""The sections each level adds (SPEC.md 3.1, binding). A level includes the levels below it."""

LEVEL_NAMES = {1: "Level 1 (portable)", 2: "Level 2 (performance hints)", 3: "Level 3 (expert control)"}

REQ_LEVELS: dict[str, int] = {
    "R-3.1-02": 2,
    "R-3.1-03": 3,
    "R-3.2.1-04": 3,  # peer-to-peer
    "R-3.5.1-04": 3,  # unified memory
    "R-3.5.1-05": 3,  # managed memory
    "R-3.8-03": 3,  # peer barriers
    "R-3.8-04": 3,  # fences
}
"""Requirements whose level is not their section's (SPEC.md 3.1: Level 3 adds peer-to-peer, fences, peer
barriers, unified and managed memory; 3.8 counts for Level 1 only in its stream, context and event parts).
R-3.2.1-03 stays Level 1: its DEVICE-tensor path is portable; tests of its unified path also carry R-3.5.1-04."""

TITLES: dict[str, str] = {
    "R-3.1-01": "Level 1: portable high-level API on every device",
    "R-3.1-02": "Level 2: ops with performance hints (matmul_optimized, configs)",
    "R-3.1-03": "Level 3: expert control (kernels, launch geometry, placement)",
    "R-3.1-04": "Level-1 calls need no context; every op takes ctx= and stream=",
    "R-3.2-01": "get_device_count() >= 0",
    "R-3.2-02": "get_device(i); a bad index raises INVALID_DEVICE",
    "R-3.2-03": "get_device_info(device) -> DeviceInfo",
    "R-3.2.1-01": "get_device_capabilities(device) -> DeviceCapabilities",
    "R-3.2.1-02": "Capabilities are truthful (unclaimed features raise NOT_SUPPORTED)",
    "R-3.2.1-03": "create_tensor_unified with unified memory, explicit copies without",
    "R-3.2.1-04": "copy_peer_to_peer between devices",
    "R-3.3-01": "A context holds device state, pool and streams; no hidden global state",
    "R-3.3-02": "create_context(ContextConfig(...)); invalid configs raise INVALID_VALUE",
    "R-3.3-03": "ContextFlags.EXCLUSIVE refuses other contexts (DEVICE_BUSY)",
    "R-3.3-04": "context_set_memory_limit: allocations past it raise OUT_OF_MEMORY",
    "R-3.3-05": "context_set_timeout: a wait past it raises TIMEOUT",
    "R-3.3-06": "Contexts run independently; compute_in_context",
    "R-3.3-07": "destroy_context releases everything; later use raises INVALID_CONTEXT",
    "R-3.3-08": "create_stream beyond max_streams raises INVALID_VALUE",
    "R-3.4-01": "create_stream; work on one stream runs in order",
    "R-3.4-02": "Work on different streams may overlap",
    "R-3.4-03": "copy_async for every pair of memory types",
    "R-3.4-04": "Async launches and ops with stream= return at once",
    "R-3.4.1-01": "Events: create_event, event_record, stream_wait_event",
    "R-3.4.1-02": "stream_wait_stream waits for work submitted so far",
    "R-3.4.1-03": "stream_synchronize blocks until the stream's work is done",
    "R-3.4.1-04": "destroy_event, event_query, event_elapsed_time",
    "R-3.5.1-01": "alloc/free for every supported memory type; bad sizes raise INVALID_VALUE",
    "R-3.5.1-02": "memory_ptr gives host access to host-visible memory",
    "R-3.5.1-03": "PINNED transfers faster than pageable HOST, and asynchronous",
    "R-3.5.1-04": "UNIFIED memory is coherent after synchronization",
    "R-3.5.1-05": "MANAGED memory migrates; results as with explicit copies",
    "R-3.5.1-06": "Double free, use after free, foreign memory raise INVALID_MEMORY",
    "R-3.5.2-01": "create_memory_pool, configure_pool(PoolConfig(...))",
    "R-3.5.2-02": "alloc_from_pool / free_to_pool reuse freed blocks",
    "R-3.5.2-03": "A pool grows up to max_size, then OUT_OF_MEMORY",
    "R-3.5.2-04": "get_pool_stats -> PoolStats, rates in [0, 1]",
    "R-3.5.2-05": "Fragmentation past the threshold compacts or releases",
    "R-3.5.2-06": "Pool allocation is far cheaper than device allocation",
    "R-3.6.1-01": "matmul with automatic optimization",
    "R-3.6.1-02": "conv2d(input, weight, ConvConfig(...)), NCHW/OIHW, algorithms",
    "R-3.6.1-03": "relu, batch_norm, max/avg pooling",
    "R-3.6.2-01": "The WIA kernel language (OpenCL C style)",
    "R-3.6.2-02": "compile_kernel; bad sources raise COMPILE_ERROR with the log",
    "R-3.6.2-03": "set_kernel_arg for buffers, tensors and scalars",
    "R-3.6.2-04": "LaunchConfig (global/local size, shared memory)",
    "R-3.6.2-05": "launch_kernel and launch_kernel_async",
    "R-3.6.2-06": "destroy_kernel",
    "R-3.7-01": "Element-wise: add, mul (broadcasting), relu, gelu, sigmoid",
    "R-3.7-02": "Reductions: sum, max, softmax",
    "R-3.7-03": "Layout: reshape, transpose, concat, slice",
    "R-3.7-04": "Linear algebra: matmul, batch_matmul",
    "R-3.7-05": "release_tensor; a released tensor raises INVALID_VALUE",
    "R-3.8-01": "stream_synchronize, context_synchronize",
    "R-3.8-02": "Events between streams",
    "R-3.8-03": "Peer barriers across devices",
    "R-3.8-04": "Fences: create_fence, submit_with_fence, wait_fence",
    "R-3.9-01": "Explicit error codes",
    "R-3.9-02": "get_error_string for every code",
    "R-3.9-03": "get_error_details(ctx) -> ErrorDetails of the last error",
    "R-3.9-04": "Recovery: memory_gc after OUT_OF_MEMORY, timeouts, device loss",
    "R-3.10-01": "enable_profiling(ctx, ProfilerConfig(...))",
    "R-3.10-02": "begin_profiling, end_profiling, destroy_profiler",
    "R-3.10-03": "get_profile_report -> ProfileReport",
    "R-3.10-04": "save_profile writes the report as JSON",
}
"""Every requirement ID of SPEC.md, in the spec's order, with a one-line title."""

NOT_CLAIMED: frozenset[str] = frozenset()
"""Requirements this suite version has no tests for: reported as "not in this suite version", never run, and not
counted in the verdicts. Claiming one (removing it here) is a promise that tests tagged with it exist."""

_REQ = re.compile(r"^R-(\d+(?:\.\d+)*)-\d+$")


@dataclass(frozen=True)
class Requirement:
    id: str
    section: str
    level: int
    title: str
    claimed: bool


def section_of_req(req: str) -> str:
    """``R-3.4.1-02`` -> ``3.4.1``."""
    match = _REQ.match(req)
    if not match:
        raise ValueError(f"{req!r} is not a requirement ID (R-<section>-<nn>)")
    return match.group(1)


def level_of_section(section: str) -> int | None:
    for level, sections in LEVEL_SECTIONS.items():
        if section in sections:
            return level
    return None


def level_of_req(req: str) -> int:
    """The conformance level a requirement belongs to (1 unless SPEC.md 3.1 puts it higher)."""
    if req in REQ_LEVELS:
        return REQ_LEVELS[req]
    section = section_of_req(req)
    while section:
        level = level_of_section(section)
        if level is not None:
            return level
        section = section.rpartition(".")[0]
    return 1


def section_key(section: str) -> tuple[int, ...]:
    """Sort key of a section number (``3.10`` after ``3.9``); anything else sorts last."""
    return tuple(int(p) for p in section.split(".")) if re.fullmatch(r"\d+(\.\d+)*", section) else (1 << 30,)


def req_key(req: str) -> tuple[tuple[int, ...], int, str]:
    """Sort key of a requirement ID in the spec's order (``R-3.2-03``, ``R-3.2.1-01``, ..., ``R-3.10-01``)."""
    if not _REQ.match(req):
        return ((1 << 30,), 0, req)
    return (section_key(section_of_req(req)), int(req.rpartition("-")[2]), req)


REQUIREMENTS: dict[str, Requirement] = {
    req: Requirement(req, section_of_req(req), level_of_req(req), title, req not in NOT_CLAIMED)
    for req, title in TITLES.items()
}

CLAIMED: frozenset[str] = frozenset(REQUIREMENTS) - NOT_CLAIMED
"""The requirements this suite version tests: a level's verdict needs each of them shown in the run."""


def claimed_of_level(level: int) -> list[str]:
    """The claimed requirements a level needs: its own and those of the levels below, in spec order."""
    return sorted((r for r in CLAIMED if REQUIREMENTS[r].level <= level), key=req_key)


def matching(patterns: Iterable[str], reqs: Iterable[str] | None = None) -> list[str]:
    """The requirement IDs (of the table, or of ``reqs``) that match any glob of ``patterns`` (``R-3.5.2-*``)."""
    pool = list(TITLES if reqs is None else reqs)
    pats = list(patterns)
    return [r for r in pool if any(fnmatch.fnmatchcase(r, p) for p in pats)]
