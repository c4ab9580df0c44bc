"""OpenCL C 1.2, 6.12.10: ``async_work_group_copy``, ``async_work_group_strided_copy``, ``wait_group_events`` and
``prefetch``, with ``event_t``; the checker's rules for the calls and the executor's copies.

A copy belongs to the work-group: every work-item of the group must reach the call with the same arguments (else
the ``async_copy_divergence`` finding, Oclgrind's "Work-group divergence detected (async copy)"), the group's copy
is made once, and its data is only guaranteed after ``wait_group_events``. As Oclgrind does (``WorkGroup``:
``async_copy`` registers the copy, the wait is a barrier whose release performs it), the simulator performs the
copies at the wait, in the order they were issued, then lets the group pass the wait as a barrier. The copy's
accesses are the group's: bounds-checked, counted once per group, and tracked for races as accesses of the group's
work-items (element ``e`` as an access of the work-item with local index ``group_size - 1 - e % group_size``, so
that a work-item touching "its own" element of the destination before the wait conflicts with the copy; the
copies into one object that a wait makes together count their elements one after another, as one copy).
A work-group that ends with copies it never waited for is the ``unwaited_event`` finding (Oclgrind: "Work-item
finished without waiting for events"), named at the kernel's closing line, where the work-group finishes; a wait
for an event no copy of the group has in flight (0, or one a wait has released) is ``invalid_wait_event``
(Oclgrind: "Invalid wait event").

Events are ``uint`` values in the executor: 0 is "no event"; a call with event 0 gets a fresh one, a call given an
event returns it (the copies chain on one event, and waiting for it performs them all).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray
from pycparser import c_ast

from wia_sim.kernels.ctype import SCALARS, CType, elem_bytes
from wia_sim.kernels.lanes import any_lane
from wia_sim.kernels.overloads import unresolved
from wia_sim.kernels.pointers import SEVERAL
from wia_sim.kernels.spaces import Pointer, Region, UnsupportedKernel, Value
from wia_sim.kernels.types import VOID, TypeInfo

if TYPE_CHECKING:
    from wia_sim.kernels.executor import _Executor

__all__ = ["ASYNC_BUILTINS", "EVENT", "AsyncCopies", "check_call", "event_mismatch", "kernel_end_line"]

Array = NDArray[Any]
EVENT = TypeInfo("opaque", "event_t")
ULONG = SCALARS["ulong"]
ASYNC_BUILTINS = frozenset({"async_work_group_copy", "async_work_group_strided_copy", "wait_group_events", "prefetch"})

_INTEGERS = {"char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "bool", "?"}
_ORDINALS = ("first", "second", "third", "fourth", "fifth")


# -- the checker's side ----------------------------------------------------------------------------------------------


def _integer(t: TypeInfo) -> bool:
    return t.kind == "unknown" or (t.kind == "scalar" and t.name in _INTEGERS)


def _decayed(t: TypeInfo) -> TypeInfo:
    """An array argument is a pointer to its first element (C99 6.3.2.1)."""
    if t.kind == "array" and t.target is not None:
        return TypeInfo("pointer", target=t.target)
    return t


def check_call(
    error: Callable[[c_ast.Node, str], None],
    node: c_ast.FuncCall,
    name: str,
    args: list[c_ast.Node],
    types: list[TypeInfo],
) -> TypeInfo:
    """The type of a call of one of ``ASYNC_BUILTINS`` (arity already checked); each wrong argument is an error
    naming it and what the built-in expects."""

    types = [_decayed(t) for t in types]

    def what(k: int) -> str:
        return f"the {_ORDINALS[k]} argument of '{name}'"

    def integer(k: int) -> None:
        if not _integer(types[k]):
            error(args[k], f"{what(k)} must be an integer, not '{types[k]}'")

    if name == "prefetch":
        p = types[0]
        if p.kind != "unknown" and (p.kind != "pointer" or p.target is None or p.target.space != "global"):
            error(args[0], f"{what(0)} must be a pointer to __global memory, not '{p}'")
        elif p.kind == "pointer" and p.target is not None and p.target.kind not in ("scalar", "vector", "unknown"):
            error(args[0], f"{what(0)} must point to a scalar or vector type, not '{p.target}'")
        integer(1)
        return VOID
    if name == "wait_group_events":
        integer(0)
        p = types[1]
        events = p.kind in ("pointer", "array") and p.target is not None and p.target.name == "event_t"
        if p.kind != "unknown" and not events:
            error(args[1], f"{what(1)} must be a pointer to event_t (the events to wait for), not '{p}'")
        return VOID
    dst, src = types[0], types[1]
    for k, p in ((0, dst), (1, src)):
        if p.kind not in ("pointer", "unknown"):
            error(args[k], f"{what(k)} must be a pointer to __local or __global memory, not '{p}'")
            return EVENT
    if dst.kind == "pointer" and src.kind == "pointer" and dst.target is not None and src.target is not None:
        spaces = (dst.target.space, src.target.space)
        if spaces not in (("local", "global"), ("global", "local")):  # (__global to __local or the reverse)
            error(node, unresolved(name, "no matching function"))
        elif dst.target.const:
            error(args[0], f"{what(0)} (the destination) cannot point to read-only memory")
        elif dst.target.kind not in ("scalar", "vector") or src.target.kind not in ("scalar", "vector"):
            error(node, f"'{name}' copies scalars or vectors, not '{dst.target.type_name or dst.target.kind}'")
        elif dst.target.type_name != src.target.type_name and "?" not in (dst.target.name, src.target.name):
            # (a pointer to another element type converts, with a warning, to every overload's alike)
            error(node, unresolved(name, "the call is ambiguous"))
    integer(2)
    if name == "async_work_group_strided_copy":
        integer(3)
    last = len(args) - 1
    ev = types[last]
    null = isinstance(args[last], c_ast.Constant) and args[last].value == "0"
    if ev.kind != "unknown" and ev.name != "event_t" and not null:
        error(args[last], f"{what(last)} must be an event_t (or 0 for none), not '{ev}'")
    return EVENT


def event_mismatch(target: TypeInfo, value: TypeInfo, node: c_ast.Node) -> bool:
    """Whether storing ``value`` into ``target`` by ``node`` (an assignment, a ``return`` or an initializer's
    expression) is refused because either is an ``event_t``: an event takes another event, or a literal 0 as its
    declaration's initializer (as in Clang, which refuses an integer assigned to one afterwards)."""
    events = (target.kind == "opaque" and target.name == "event_t", value.kind == "opaque" and value.name == "event_t")
    if not any(events) or all(events):
        return False
    initialized_with_zero = isinstance(node, c_ast.Constant) and node.value == "0"  # (an initializer's expression)
    return not (events[0] and initialized_with_zero)


def kernel_end_line(source_lines: Sequence[str], start: int, fallback: int) -> int:
    """The line of the closing brace of the function that starts at line ``start`` (braces counted outside
    comments, strings and character literals); ``fallback`` if it cannot be found."""
    depth = 0
    opened = False
    in_block = False
    for number in range(max(start, 1), len(source_lines) + 1):
        text = source_lines[number - 1]
        k = 0
        while k < len(text):
            c = text[k]
            if in_block:
                if text.startswith("*/", k):
                    in_block = False
                    k += 1
            elif text.startswith("//", k):
                break
            elif text.startswith("/*", k):
                in_block = True
                k += 1
            elif c in "\"'":
                end = k + 1
                while end < len(text) and text[end] != c:
                    end += 2 if text[end] == "\\" else 1
                k = end
            elif c == "{":
                depth += 1
                opened = True
            elif c == "}":
                depth -= 1
                if opened and depth == 0:
                    return number
            k += 1
    return fallback


# -- the executor's side ---------------------------------------------------------------------------------------------


@dataclass
class _Copy:
    """One issued copy, for every work-group that issued it (``groups``), with its per-group arguments."""

    event: Array  # uint64 per group
    groups: Array  # bool per group: issued and not yet waited for
    dst: Pointer
    src: Pointer
    dst_off: Array  # int64 per group
    src_off: Array
    count: Array
    src_stride: Array
    dst_stride: Array
    elem: CType
    line: int
    name: str  # async_work_group_copy or async_work_group_strided_copy


def _apart(counts: Array, starts: Array, steps: Array, size: int) -> bool:
    """Whether, in every work-group (a column), the destinations of a run's copies (rows: ``counts`` elements of
    ``size`` bytes each, from byte ``starts`` on, ``steps`` bytes apart) are disjoint byte ranges, none of them
    storing one place twice: the order of their stores then changes nothing."""
    if bool(((counts > 1) & (steps < size)).any()):
        return False
    last = np.iinfo(np.int64).max
    lo = np.where(counts > 0, starts, last)
    hi = np.where(counts > 0, starts + (counts - 1) * steps + size, last)
    order = np.argsort(lo, axis=0, kind="stable")
    lo, hi = np.take_along_axis(lo, order, axis=0), np.take_along_axis(hi, order, axis=0)
    return not bool((hi[:-1] > lo[1:]).any())


class AsyncCopies:
    """The copies a launch has issued and not yet waited for, per work-group."""

    def __init__(self, ex: _Executor) -> None:
        self.ex = ex
        self.pending: list[_Copy] = []
        self.next_event = 1
        self._first: tuple[Array | None, Array] = (None, np.zeros(0, np.int64))

    # ------------------------------------------------------------------ per-group values
    def _per_group(self, a: Array, mask: Array, what: str, divergent: list[tuple[str, Array]]) -> Array:
        """The value of a uniform argument per group (its first active lane's); lanes whose value differs from
        it are noted in ``divergent``."""
        ex = self.ex
        a = np.asarray(a)
        if not a.ndim:  # the same in every lane (a constant, a kernel argument)
            return np.full(ex.groups, a)
        gs = ex.geometry.group_size
        if self._first[0] is not mask:  # the arguments of one call share its mask: its first lanes found once
            per_group = mask.reshape(-1, gs)
            self._first = (mask, per_group.argmax(axis=1) + np.arange(0, ex.n, gs))
        value = a[self._first[1]]
        if ex.checks:
            differ = mask.reshape(-1, gs) & (a.reshape(-1, gs) != value[:, None])
            if any_lane(differ):
                divergent.append((what, differ.reshape(-1)))
        return value

    # ------------------------------------------------------------------ the built-ins
    def call(self, name: str, args: list[c_ast.Node], mask: Array, line: int) -> Value:
        ex = self.ex
        ex.st.line = line
        if name == "prefetch":  # a hint: the arguments are evaluated, memory is not touched
            ex.eval(args[0], mask)
            ex.value(args[1], mask)
            return Value(SCALARS["int"], np.asarray(0, np.int32))
        if name == "wait_group_events":
            self.wait(args, mask, line)
            return Value(SCALARS["int"], np.asarray(0, np.int32))
        return self.copy(name, args, mask, line)

    def copy(self, name: str, args: list[c_ast.Node], mask: Array, line: int) -> Value:
        ex = self.ex
        dst = ex.eval(args[0], mask)
        src = ex.eval(args[1], mask)
        count = ex.value(args[2], mask)
        strided = name == "async_work_group_strided_copy"
        stride = ex.value(args[3], mask) if strided else Value(SCALARS["ulong"], np.asarray(1, np.uint64))
        event = ex.value(args[-1], mask)
        ex.st.line = line
        if not isinstance(dst, Pointer) or not isinstance(src, Pointer) or dst.region is None or src.region is None:
            raise UnsupportedKernel(f"line {line}: '{name}' through a null pointer")
        if dst.elem is None or src.elem is None:
            raise UnsupportedKernel(f"line {line}: '{name}' of void pointers")
        if SEVERAL in (dst.region, src.region):
            raise UnsupportedKernel(
                f"line {line}: '{name}' through a pointer into different memory objects per work-item"
            )
        reached = self.ex.groups_reaching(mask, "async_copy_divergence", f"'{name}'")
        divergent: list[tuple[str, Array]] = []
        dst_off = self._per_group(dst.off, mask, "destination", divergent)
        src_off = self._per_group(src.off, mask, "source", divergent)
        # a count past both memory objects (a negative int passed as size_t) is cut to one element past them:
        # the copy then faults out of bounds rather than looping for ever
        limit = max(dst.region.nbytes, src.region.nbytes) // elem_bytes(dst.elem) + 1
        counts = np.minimum(np.asarray(count.a).astype(np.uint64), np.uint64(limit)).astype(np.int64)
        n = self._per_group(counts, mask, "number of elements", divergent)
        st = self._per_group(np.asarray(stride.a).astype(np.int64), mask, "stride", divergent)
        ev = self._per_group(np.asarray(event.a).astype(np.uint64), mask, "event", divergent)
        if divergent:
            offenders = np.zeros(ex.n, dtype=bool)
            for _, lanes in divergent:
                offenders |= lanes
            lane = int(np.flatnonzero(offenders)[0])
            names = ", ".join(w for w, lanes in divergent if lanes[lane])
            raise ex.st.fault(
                "async_copy_divergence",
                f"work-group divergence in '{name}': arguments that differ between the work-items of a group ({names})",
                lane,
                offenders=offenders,
            )
        fresh = ev == 0
        if bool((fresh & reached).any()):
            ev = np.where(fresh, np.uint64(self.next_event), ev).astype(np.uint64)
            self.next_event += 1
        one = np.ones_like(st)
        self.pending.append(
            _Copy(
                ev,
                reached.copy(),
                dst,
                src,
                dst_off,
                src_off,
                n,
                st if strided and src.region.space != "local" else one,
                st if strided and src.region.space == "local" else one,
                dst.elem,
                line,
                name,
            )
        )
        gs = ex.geometry.group_size
        return Value(ULONG, np.repeat(np.where(reached, ev, 0).astype(np.uint64), gs))

    def wait(self, args: list[c_ast.Node], mask: Array, line: int) -> None:
        ex = self.ex
        count = ex.value(args[0], mask)
        events = ex.eval(args[1], mask)
        ex.st.line = line
        if not isinstance(events, Pointer) or events.region is None:
            raise UnsupportedKernel(f"line {line}: wait_group_events without an event list")
        reached = self.ex.groups_reaching(mask, "barrier_divergence", "wait_group_events (a barrier)")
        divergent: list[tuple[str, Array]] = []
        n = self._per_group(np.asarray(count.a).astype(np.int64), mask, "number of events", divergent)
        waited: list[Array] = []
        most = int(n[reached].max()) if bool(reached.any()) else 0
        lane_n = np.repeat(n, ex.geometry.group_size)
        for k in range(most):
            at = Pointer(events.region, ULONG, events.off + 8 * k)
            m = mask & (lane_n > k)
            values = np.asarray(ex.to_value(ex.load(at, m), ULONG).a)
            waited.append(np.where(n > k, self._per_group(values, m, f"event {k}", divergent), 0))
        if divergent:
            offenders = np.zeros(ex.n, dtype=bool)
            for _, lanes in divergent:
                offenders |= lanes
            lane = int(np.flatnonzero(offenders)[0])
            raise ex.st.fault(
                "barrier_divergence",
                "wait_group_events with events that differ between work-items of the work-group",
                lane,
                offenders=offenders,
            )
        if ex.checks:
            self._check_events(waited, n, reached)
        due: list[tuple[_Copy, Array]] = []  # the copies this wait performs, in the order they were issued
        for c in self.pending:
            do = c.groups & reached
            if waited and bool(do.any()):
                hit = np.zeros_like(do)
                for w in waited:
                    hit |= w == c.event
                do &= hit
                if bool(do.any()):
                    due.append((c, do))
        if not self._perform_together(due):
            for c, do in due:
                self._perform(c, do)
        for c, do in due:
            c.groups &= ~do
        self.pending = [c for c in self.pending if bool(c.groups.any())]
        ex.barrier(mask, line)

    def _check_events(self, waited: list[Array], n: Array, reached: Array) -> None:
        """Each event a work-group waits for must be one of its copies' in flight: returned by a copy and not yet
        waited for (6.12.10: the events are released after the wait), else the ``invalid_wait_event`` finding
        (Oclgrind's "Invalid wait event"), for the group's first work-item. One event twice in a list is fine."""
        ex = self.ex
        bad = np.zeros(ex.groups, dtype=bool)
        value = np.zeros(ex.groups, dtype=np.int64)
        for k, w in enumerate(waited):
            live = np.zeros(ex.groups, dtype=bool)
            for c in self.pending:
                live |= c.groups & (c.event == w)
            new = reached & (n > k) & ~live & ~bad
            value[new] = w[new]
            bad |= new
        if not bool(bad.any()):
            return
        g = int(np.flatnonzero(bad)[0])
        gs = ex.geometry.group_size
        what = "no event (0)" if value[g] == 0 else f"event {value[g]}"
        raise ex.st.fault(
            "invalid_wait_event",
            f"wait_group_events for {what}, which is no async copy's in flight in the work-group (never returned "
            "by a copy, or already waited for: a wait releases its events)",
            g * gs,
            offenders=np.repeat(bad, gs),
        )

    def _perform(self, c: _Copy, groups: Array) -> None:
        """The copy for the work-groups in ``groups``, in rounds of one element per work-item."""
        ex = self.ex
        gs = ex.geometry.group_size
        lanes = ex.lanes
        group = lanes.group
        mine = groups[group]
        n = c.count[group]
        size = elem_bytes(c.elem)
        assert c.src.region is not None and c.dst.region is not None
        rounds = -(-int(c.count[groups].max()) // gs) if bool(groups.any()) else 0
        for r in range(rounds):
            e = r * gs + (gs - 1 - lanes.local_index)
            active = mine & (e < n)
            if not bool(active.any()):
                continue
            src_off = c.src_off[group] + e * c.src_stride[group] * size
            dst_off = c.dst_off[group] + e * c.dst_stride[group] * size
            values = c.src.region.load(ex.st, src_off, active, c.elem, defer=ex.checks)
            deferred, ex.st.deferred = ex.st.deferred, None
            if deferred is not None:  # bytes nobody wrote, copied: a use, named at the copy (Oclgrind checks the call)
                undef, origin = deferred
                ex.st.line = c.line
                space = c.dst.region.space
                raise replace(origin, line=c.line).fault(undef, f"and its value stored to __{space} memory by {c.name}")
            c.dst.region.store(ex.st, dst_off, active, c.elem, values)

    def _perform_together(self, due: list[tuple[_Copy, Array]]) -> bool:
        """The copies ``due`` at a wait (each with its work-groups), those into one memory object as one: each
        group's elements of all of them, copy after copy, in rounds of one element per work-item (``_perform``'s
        order, counted across the copies), every load before any store. False, having changed nothing: the
        copies must be made one by one, in the order they were issued (``_perform``), because a copy reads an
        object another writes, two copies into one object come from different objects or are of different
        types, the destinations of two meet in a group (the later one's elements win), or an element would be a
        finding (out of bounds, misaligned, never written, a write-only source or a read-only destination: the
        copy it belongs to reports it, as one by one).

        Otherwise no copy reads what another writes, and copies into different objects touch different memory:
        loading them all first, then storing object by object, gives what copying one after another gives. The
        race tracker sees each element as an access of the work-item that moves it, counted across the run: a
        copy after the first of a run may name another work-item of the group in a race than alone."""
        ex = self.ex
        runs: dict[int, list[tuple[_Copy, Array]]] = {}
        for c, do in due:
            runs.setdefault(id(c.dst.region), []).append((c, do))
        if all(len(run) == 1 for run in runs.values()):  # nothing to make together: one by one costs less
            return False
        if not {id(c.src.region) for c, _ in due}.isdisjoint(runs):
            return False
        if any(c.src.region.write_only or c.dst.region.read_only for c, _ in due):  # type: ignore[union-attr]
            return False
        if any(
            c.src.region is not run[0][0].src.region or c.elem != run[0][0].elem
            for run in runs.values()
            for c, _ in run
        ):
            return False
        gs = ex.geometry.group_size
        lanes = ex.lanes
        group = lanes.group
        planned: list[tuple[Region, Region, CType, Array, Array, Array]] = []  # nothing is touched before all pass
        for run in runs.values():
            first = run[0][0]
            src, dst, elem = first.src.region, first.dst.region, first.elem
            assert src is not None and dst is not None
            size = elem_bytes(elem)
            # one row per copy, one column per group: its elements there, where they start in memory and in the
            # group's elements of the run (the copies before it), and its strides
            counts = np.stack([np.where(do, c.count, 0) for c, do in run])
            src_at, dst_at = (np.stack([getattr(c, a) for c, _ in run]) for a in ("src_off", "dst_off"))
            src_step, dst_step = (
                np.stack([getattr(c, a) for c, _ in run]) * size for a in ("src_stride", "dst_stride")
            )
            if not _apart(counts, dst_at, dst_step, size):
                return False
            before = np.cumsum(counts, axis=0) - counts
            for r in range(-(-int(counts.sum(axis=0).max()) // gs)):
                e = r * gs + (gs - 1 - lanes.local_index)  # (``_perform``'s order, over the run's elements)
                k = np.count_nonzero(e >= before[:, group], axis=0) - 1  # the copy of each lane's element
                at = k * counts.shape[1] + group
                own = e - before.reshape(-1)[at]
                active = own < counts.reshape(-1)[at]
                src_off = src_at.reshape(-1)[at] + own * src_step.reshape(-1)[at]
                dst_off = dst_at.reshape(-1)[at] + own * dst_step.reshape(-1)[at]
                who = np.flatnonzero(active)
                sources, targets = src_off[who], dst_off[who]
                if not (
                    src.plain_steps(ex.st, sources, src.rowed(ex.st, sources, who), elem, initialized=True)
                    and dst.plain_steps(ex.st, targets, dst.rowed(ex.st, targets, who), elem, initialized=False)
                ):
                    return False
                planned.append((src, dst, elem, src_off, dst_off, active))
        loaded = [(dst, e, to, active, src.load(ex.st, at, active, e)) for src, dst, e, at, to, active in planned]
        for dst, elem, dst_off, active, values in loaded:
            dst.store(ex.st, dst_off, active, elem, values)
        return True

    def finish(self, end_line: int) -> None:
        """At the end of the kernel: a work-group with copies it never waited for is a finding."""
        ex = self.ex
        left = np.zeros(ex.groups, dtype=bool)
        for c in self.pending:
            left |= c.groups
        if not ex.checks or not bool(left.any()):
            return
        first = next(c for c in self.pending if bool(c.groups.any()))
        gs = ex.geometry.group_size
        g = int(np.flatnonzero(left)[0])
        ex.st.line = end_line
        raise ex.st.fault(
            "unwaited_event",
            f"work-group finished without waiting for the event of the async copy at {ex.st.line_named(first.line)}",
            g * gs + gs - 1,
            offenders=np.repeat(left, gs),
        )
