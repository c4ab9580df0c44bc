"""Loops that cannot end. The executor is deterministic: a loop iteration after which the launch is as it was before
it (every variable in scope, every memory object, the same lanes still looping) is followed by the same iteration
forever. That is a spin-wait on work-items the simulator runs only after the loop: it runs a launch's work-items in
lockstep, one side of a divergent branch after the other, so a work-group waiting for a flag that another
work-group sets in the other side of the branch waits forever, where a device schedules the two independently
(OpenCL C 1.2 promises no such progress, but code relies on it: clSPARSE's ``csrmv_adaptive`` with
``-DEXTENDED_PRECISION``), or a loop whose condition nothing in it changes. Such a loop is reported as soon as it is
seen, a ``step_limit`` fault (the one a loop that never ends gets after the step limit, minutes later) naming what
it waits for. The state is compared at the iterations ``2**k`` from ``FIRST_CHECK`` on and the next one, where the
launch has run enough steps since the last comparison that its digests of memory cost about a tenth of them
(``Watch``): none for a short loop, a few for a long one, and few for an inner loop a long outer one runs again
and again over a large buffer."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels.lvalues import Var
from wia_sim.kernels.spaces import KernelFault, KernelTimeout, Pointer, Region, Value, sized

if TYPE_CHECKING:
    from wia_sim.kernels.exec_state import ExecutorState

__all__ = ["FIRST_CHECK", "IN_ORDER_BUDGET", "MIN_GAP", "STEPS_PER_BYTE", "Watch", "hang", "relied_on"]

Array = NDArray[Any]

IN_ORDER_BUDGET = 1 << 28
"""The most work-groups times work-items a launch runs again in order for (``executor.run_kernel``): each group's
run is over all the launch's lanes, so the rerun costs about as many lockstep runs as there are groups (2,048
groups of 64 work-items, 2**28, took 7.8 s here for a chained scan)."""
FIRST_CHECK = 256
"""The first iteration of a loop whose state is compared with the next one's."""
STEPS_PER_BYTE = 1 / 256
"""Steps the launch runs between two comparisons, per byte a digest hashes (a step takes 3 us or more, a byte about
1 ns to hash: a tenth), and at least ``MIN_GAP``."""
MIN_GAP = 1024


class Watch:
    """When a launch's loops compare their state: at iterations ``2**k`` from ``FIRST_CHECK`` on, once the launch
    has run ``gap`` steps since its last digest, ``gap`` sized by the bytes that digest hashed."""

    def __init__(self) -> None:
        self.last = 0
        self.gap = MIN_GAP

    def due(self, trip: int, steps: int) -> bool:
        """Whether the state before iteration ``trip`` (1, 2, ...) is compared with the state before the next."""
        return trip >= FIRST_CHECK and trip & (trip - 1) == 0 and steps - self.last >= self.gap

    def digest(self, ex: ExecutorState, active: Array) -> bytes:
        digest, hashed = _state_digest(ex, active)
        self.last, self.gap = ex.steps, max(MIN_GAP, int(hashed * STEPS_PER_BYTE))
        return digest


def _state_digest(ex: ExecutorState, active: Array) -> tuple[bytes, int]:
    """A digest of everything the next iteration of a loop can read: the lanes in it, the variables in scope (with
    checks off, those the loop's body leaves in storage for its next trip), the launch's memory objects; and the
    bytes it hashed."""
    h = hashlib.blake2b(digest_size=20)
    seen: set[int] = set()
    hashed = 0

    def region(r: Region | None) -> None:
        nonlocal hashed
        if r is not None and id(r) not in seen:
            seen.add(id(r))
            data = np.ascontiguousarray(r.data)
            h.update(data.data)
            hashed += data.nbytes

    def result(v: Any) -> None:
        if isinstance(v, Pointer):
            h.update(id(v.region).to_bytes(8, "little") + bytes(v.null is not None))
            region(v.region)
            h.update(np.ascontiguousarray(v.off).data)
            if v.null is not None:
                h.update(np.ascontiguousarray(v.null).data)
        elif isinstance(v, Value):
            h.update(np.ascontiguousarray(v.raw).data)

    h.update(np.ascontiguousarray(active).data)
    named: list[tuple[object, Var]] = [item for scope in ex.frame.scopes for item in scope.items()]
    for name, var in [*named, *ex.frame.storage.items()]:
        h.update(str(name).encode())
        result(var.value)
        for held in (var.mem, var.array):
            if held is not None:
                region(held.region)
    for r in (*ex.local_regions, *ex.addresses.regions()):
        region(r)
    return h.digest(), hashed


def hang(ex: ExecutorState, line: int, active: Array) -> KernelTimeout:
    """The fault of a loop at ``line`` that an iteration left as it found, ``active`` its lanes."""
    lanes = ex.lanes
    # every other work-item of the run waits for the loop to end (those that broke out of it, or returned from the
    # function it is in, go on after it), except those that returned from the kernel
    waiting = ex.base & ~active
    if ex.kernel_frame.ret is not None:
        waiting &= ~ex.kernel_frame.ret
    looping = np.unique(lanes.group[active])
    message = (
        f"kernel '{ex.kernel.name}' never leaves this loop: an iteration changed no variable and no memory, so the "
        f"next ones are the same ({sized(int(np.count_nonzero(active)), 'work-item')} in it, of work-group"
        f"{'s' if looping.size > 1 else ''} {_listed(looping)})"
    )
    others = np.zeros(0, np.int64)
    if waiting.any():
        others = np.setdiff1d(np.unique(lanes.group[waiting]), looping)
        count = int(np.count_nonzero(waiting))
        message += (
            f". {sized(count, 'other work-item')} {'is' if count == 1 else 'are'} not in it: the simulator runs a "
            "launch's work-items in lockstep, one side of a divergent branch after the other, so those run only "
            "after it ends; a loop that waits for them (a spin on a flag they set) waits forever"
        )
        if others.size:
            plural = others.size > 1
            message += (
                f". Of those, work-group{'s' if plural else ''} {_listed(others)} {'are' if plural else 'is'} not the "
                "loop's: OpenCL C 1.2 promises a work-group no progress while another waits for it, which a device's "
                "scheduling may give"
            )
    rerun = not ex.in_order and others.size > 0
    if rerun and ex.groups * ex.n > IN_ORDER_BUDGET:
        rerun = False
        message += (
            f". Run again with its work-groups one at a time, in order, as Oclgrind runs them, it may end, but that "
            f"costs about {ex.groups:,} lockstep runs over its {ex.n:,} work-items, more than the simulator "
            "undertakes: a launch of fewer work-groups or work-items runs so"
        )
    later = ex.groups - 1 - int(looping.max())
    if ex.in_order and later:
        message += (
            f". The launch ran its work-groups one at a time, in order, as Oclgrind does, because a lockstep run "
            f"waited for another group; {sized(later, 'later work-group')} had not started, and a loop that waits "
            "for one of them waits forever there"
        )
    source = ex.st.quote(line)
    file, at = ex.program.where(line)
    quoted = f"\n    {source}" if source else ""
    waits_for = tuple(int(g) for g in others) if rerun else ()
    fault = KernelTimeout(ex.kernel.name, at, f"{file}:{at}: {message}{quoted}", source, file, waits_for)
    first = int(np.argmax(active))  # the loop's first work-item in launch order, and how many are in it
    gid, grp = lanes.global_id, lanes.group_id
    fault.work_item = (int(gid[0][first]), int(gid[1][first]), int(gid[2][first]))
    fault.group = (int(grp[0][first]), int(grp[1][first]), int(grp[2][first]))
    fault.work_items, fault.groups = int(np.count_nonzero(active)), int(looping.size)
    return fault


def relied_on(hung: KernelTimeout, ended: bool = True) -> KernelFault:
    """The lower-severity finding of a launch run again with its work-groups in order because the loop of ``hung``
    (the lockstep run's fault) waited for work-groups OpenCL C 1.2 does not promise to run meanwhile; ``ended``:
    the rerun did (else its own fault says why not)."""
    groups = np.asarray(hung.waits_for)
    plural = groups.size > 1
    message = (
        f"{hung.file}:{hung.line}: kernel '{hung.kernel}' waits in this loop for work-group{'s' if plural else ''} "
        f"{_listed(groups)}, which {'make' if plural else 'makes'} no progress meanwhile in the simulator's lockstep "
        "run: it ran again with its work-groups one at a time, in order (as Oclgrind runs them)"
    )
    message += (
        ", and ended. OpenCL C 1.2 promises a work-group no progress while another waits for it: a device that does "
        "not run the groups waited for first, or at once, hangs here"
        if ended
        else ", which did not end either (the launch's error)"
    )
    if hung.source_line:
        message += f"\n    {hung.source_line}"
    return KernelFault(
        "forward_progress",
        message,
        hung.kernel,
        hung.line,
        hung.work_item,
        hung.group,
        work_items=hung.work_items,
        groups=hung.groups,
        source_line=hung.source_line,
        file=hung.file,
    )


def _listed(groups: Array) -> str:
    shown = ", ".join(str(int(g)) for g in groups[:4])
    return shown + (f" and {groups.size - 4:,} more" if groups.size > 4 else "")
