"""Stream hazards: two accesses to overlapping bytes of one buffer from different streams, at least one a write,
that nothing orders (docs/hazards.md).

Ordering is happens-before, tracked with vector clocks as ThreadSanitizer tracks threads, so a finding depends
only on what the program submitted, never on the simulated timing that happened to hide the race:

- every stream has a machine-wide ``index`` and counts what it is given (``Stream.epoch``; a command's ``epoch``
  is its place in its stream); ``Stream.clock`` holds, per other stream, the latest epoch of it that the stream
  has waited for. Commands on one stream are ordered by the stream.
- a ``Wait`` for a ``Marker`` joins the marker's clock (its stream's clock at the marker, plus the marker itself)
  into the waiting stream's clock. A stream's clock changes only at such waits, so each stream keeps a snapshot
  where it changed and a command's clock is found by its epoch (no dictionary per command).
- the host has a clock too: when it sees a command complete (a synchronization, a blocking transfer, a query that
  finds a marker done) it joins that command's clock. A command submitted later is ordered after everything the
  host clock holds. Rather than joining the host clock into every stream at every submission, a check reads both
  (the host clock only grows, so this is the same order, for less work).

The shadow state of a buffer is a set of past accesses, grouped by their exact byte range in *cells* (most accesses
are to whole tensors, so a repeated range finds its cell in one dictionary look-up). An access is dropped once it
can never matter again: when the host clock has passed it, or when a later access that covers its range, is
ordered after it and is at least as strong (a write, or a read replacing a read) takes its place. What is kept is
exact: a command is reported if and only if one of its accesses conflicts with an earlier access it is not
ordered after.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wia_sim.commands import Command, Label, Wait, describe
from wia_sim.memory import Buffer, MemoryKind

if TYPE_CHECKING:
    from wia_sim.machine import Machine
    from wia_sim.stream import Stream

KEPT_FINDINGS = 10_000
"""Findings a machine keeps (``Machine.hazards``); past this a racy loop's further findings are only counted
(``Machine.hazards_dropped``), so that a long run with a known race does not fill the host's memory."""

Access = tuple[Buffer, int, int, bool]
"""``(buffer, lo, hi, write)``: a command reads (or writes, which includes reading) bytes ``[lo, hi)``."""

_Entry = tuple["Stream", int, bool, Label]
"""A past access: its stream, its command's epoch there, whether it wrote, the command's label."""


_Cell = list[Any]
"""The past accesses to one exact range: ``[lo, hi, writes, reads]``, the writes a tuple of entries (one, unless
unordered writes raced), the reads a dict of entries by stream index (a stream's later read of the range replaces
its earlier one) or None. A buffer accessed in only one range is shadowed by its cell alone. A list, not an object:
a buffer gets one at its first access (every op's output), and building an object costs five times as much."""
LO, HI, WRITES, READS = 0, 1, 2, 3


@dataclass(frozen=True)
class HazardAccess:
    """One side of a hazard: the command, the stream (by the name its user knows), what it did to which bytes."""

    command: str
    stream: str
    write: bool
    lo: int
    hi: int
    epoch: int

    @property
    def verb(self) -> str:
        return "writes" if self.write else "reads"


class StreamHazard(Exception):
    """Two unordered accesses to overlapping bytes of one buffer from different streams, at least one a write.

    ``earlier`` was submitted first, ``later`` is the command being submitted; ``lo``/``hi`` is the range both
    touch, in ``buffer`` (a description: kind, size, device, address) of ``buffer_nbytes`` bytes; ``kind`` is
    ``read-after-write``, ``write-after-read`` or ``write-after-write``; ``fix`` says what would order them, in
    plain words; ``host_time_s`` is the host clock when the later command was submitted.
    """

    def __init__(
        self,
        kind: str,
        buffer: str,
        buffer_nbytes: int,
        lo: int,
        hi: int,
        earlier: HazardAccess,
        later: HazardAccess,
        host_time_s: float,
    ) -> None:
        self.kind = kind
        self.buffer = buffer
        self.buffer_nbytes = buffer_nbytes
        self.lo, self.hi = lo, hi
        self.earlier, self.later = earlier, later
        self.host_time_s = host_time_s
        self.fix = (
            f"record an event after `{earlier.command}` on {earlier.stream} and make {later.stream} wait for it "
            f"(event_record / stream_wait_event) before `{later.command}`"
        )
        super().__init__(self.describe())

    def describe(self) -> str:
        e, s = self.earlier, self.later
        consequence = {
            "read-after-write": "the read may see the data from before the write",
            "write-after-read": "the read may see the data the later write stores",
            "write-after-write": "either write may land last",
        }[self.kind]
        where = "all" if (self.lo, self.hi) == (0, self.buffer_nbytes) else f"bytes [{self.lo}, {self.hi})"
        return (
            f"stream hazard ({self.kind}) on {where} of {self.buffer}: `{e.command}` on "
            f"{e.stream} {e.verb} them, then `{s.command}` on {s.stream} {s.verb} them, and no event, stream wait "
            f"or host synchronization orders the two, so {consequence}.\nFix: {self.fix}."
        )


def _describe_buffer(buffer: Buffer) -> str:
    where = f" at device address {buffer.address:#x}" if buffer.address is not None else ""
    kind = buffer.kind.name if isinstance(buffer.kind, MemoryKind) else str(buffer.kind)
    return f"the {kind} buffer of {buffer.nbytes} bytes{where} on device {buffer.device}"


class _Shadow:
    """The past accesses of a buffer accessed in more than one range, in cells by exact range ``(lo, hi)``.
    ``starts`` holds the ranges in order (a range's overlapping cells start less than ``widest`` bytes before it)
    and ``overlaps`` counts the overlapping pairs of cells: while it is 0, a range that has a cell overlaps nothing
    else."""

    __slots__ = ("cells", "overlaps", "starts", "widest")

    def __init__(self, cell: _Cell) -> None:
        key = (cell[LO], cell[HI])
        self.cells: dict[tuple[int, int], _Cell] = {key: cell}
        self.starts: list[tuple[int, int]] = [key]
        self.widest = cell[HI] - cell[LO]
        self.overlaps = 0

    def overlapping(self, lo: int, hi: int) -> list[tuple[int, int]]:
        """The ranges of the cells that overlap ``[lo, hi)``."""
        starts = self.starts
        first = bisect.bisect_left(starts, (lo - self.widest + 1,))
        last = bisect.bisect_left(starts, (hi,), first)
        return [key for key in starts[first:last] if key[1] > lo]

    def add(self, cell: _Cell) -> None:
        key = (cell[LO], cell[HI])
        self.overlaps += len(self.overlapping(*key))
        bisect.insort(self.starts, key)
        self.cells[key] = cell
        if key[1] - key[0] > self.widest:
            self.widest = key[1] - key[0]

    def remove(self, key: tuple[int, int]) -> None:
        del self.cells[key]
        starts = self.starts
        del starts[bisect.bisect_left(starts, key)]
        if starts:
            self.overlaps -= len(self.overlapping(*key))
        else:
            self.overlaps = self.widest = 0


_Conflict = tuple[_Entry, Buffer, int, int, bool, int, int]
"""An earlier entry, the buffer, the new access's range and kind, and the range both touch."""


class HazardDetector:
    """Happens-before over a machine's streams and the host; the shadow state of its buffers; the findings.

    ``handler`` is told of each finding as the command is submitted, before anything is queued. In ``strict``
    mode the accesses are first checked without being recorded, so that a handler that raises leaves the shadow
    state as it was (the command is then not submitted).
    """

    def __init__(self, machine: Machine) -> None:
        self.machine = machine
        self.host: dict[int, int] = {}
        """The host clock: per stream index, the latest epoch of that stream the host knows to be complete."""
        self.shadows: dict[Buffer, _Cell | _Shadow] = {}
        self.handler: Callable[[StreamHazard], None] | None = None
        self.strict = False

    # ordering

    def waited(self, stream: Stream, wait: Wait, epoch: int) -> None:
        """``stream`` was given ``wait`` as its ``epoch``-th command: it joins the marker's clock."""
        marker = wait.marker
        source = marker.stream
        if source is not None and source is not stream:
            self._join_into(stream, epoch, source, marker.epoch)

    def _join_into(self, stream: Stream, epoch: int, source: Stream, source_epoch: int) -> None:
        clock = stream.clock
        theirs = _clock_at(source, source_epoch)
        index = source.index
        if clock.get(index, 0) >= source_epoch and all(clock.get(k, 0) >= v for k, v in theirs.items()):
            return
        joined = dict(clock)
        for k, v in theirs.items():
            if joined.get(k, 0) < v:
                joined[k] = v
        if joined.get(index, 0) < source_epoch:
            joined[index] = source_epoch
        joined.pop(stream.index, None)
        stream.clock = joined
        stream.snap_epochs.append(epoch)
        stream.snap_clocks.append(joined)

    def observed(self, command: Command) -> None:
        """The host saw ``command`` complete: what is ordered before it is ordered before every later submission."""
        stream = command.stream
        if stream is None:
            return
        host = self.host
        index, epoch = stream.index, command.epoch
        if host.get(index, 0) >= epoch:  # a clock that holds a later epoch of a stream holds its clock there too
            return
        host[index] = epoch
        for k, v in _clock_at(stream, epoch).items():
            if host.get(k, 0) < v:
                host[k] = v

    def forget(self, buffer: Buffer) -> None:
        """The buffer was freed: its accesses no longer matter."""
        self.shadows.pop(buffer, None)

    # accesses

    def check(
        self, stream: Stream, command: Command, epoch: int, accesses: Sequence[Access], commit: bool = True
    ) -> None:
        """Check the accesses of ``command`` (about to be ``stream``'s ``epoch``-th) against earlier ones and, with
        ``commit``, record them one after another, dropping what they make redundant; report the conflicts.

        In strict mode the accesses are first checked without being recorded, so that a handler that raises
        leaves the shadow state as it was (and the command is not submitted)."""
        if commit and self.strict:
            self.check(stream, command, epoch, accesses, False)
        label = command._label
        if label is None:
            label = command.label_parts
        clock = stream.clock
        host = self.host
        shadows = self.shadows
        conflicts: list[_Conflict] = []
        t = stream.index
        # NOTE: this loop runs for every operand of every op: the common cases come first, with as few steps as
        # they allow (a cell is [lo, hi, writes, reads]; the checks that a range is not empty come after the
        # look-ups that an empty range cannot match)
        for buffer, lo, hi, write in accesses:
            shadow = shadows.get(buffer)
            if shadow is None:  # the buffer's first access (an op's new output)
                if commit and lo < hi:
                    mine: _Entry = (stream, epoch, write, label)
                    shadows[buffer] = [lo, hi, (mine,), None] if write else [lo, hi, (), {t: mine}]
                continue
            if shadow.__class__ is list:
                if shadow[0] == lo and shadow[1] == hi:  # the buffer's one range again
                    cell: _Cell = shadow
                elif lo < hi:  # a second range: the buffer needs cells by range
                    shadow = _Shadow(shadow)
                    if commit:
                        shadows[buffer] = shadow
                    self._scan_cells(shadow, stream, buffer, lo, hi, write, epoch, label, conflicts, commit)
                    continue
                else:
                    continue
            else:
                assert isinstance(shadow, _Shadow)
                found = shadow.cells.get((lo, hi))
                if found is None or shadow.overlaps:
                    if lo < hi:
                        self._scan_cells(shadow, stream, buffer, lo, hi, write, epoch, label, conflicts, commit)
                    continue
                cell = found
            writes = cell[2]
            if not write:  # a read conflicts only with writes, and replaces only the stream's own read
                if writes:
                    stale = False
                    for entry in writes:
                        other = entry[0]
                        if other is not stream:
                            i, e = other.index, entry[1]
                            if e <= host.get(i, 0):
                                stale = True
                            elif e > clock.get(i, 0):
                                conflicts.append((entry, buffer, lo, hi, write, lo, hi))
                    if stale and commit:
                        cell[2] = tuple(w for w in writes if w[1] > host.get(w[0].index, 0))
                if commit:
                    reads = cell[3]
                    if reads is None:
                        cell[3] = {t: (stream, epoch, False, label)}
                    else:
                        reads[t] = (stream, epoch, False, label)
                continue
            kept: tuple[_Entry, ...] = ()
            for entry in writes:
                other = entry[0]
                if other is not stream:
                    i, e = other.index, entry[1]
                    if e > host.get(i, 0) and e > clock.get(i, 0):
                        conflicts.append((entry, buffer, lo, hi, write, lo, hi))
                        kept = (*kept, entry)
            kept_reads: dict[int, _Entry] | None = None
            reads = cell[3]
            if reads:
                for i, entry in reads.items():
                    if i != t:
                        e = entry[1]
                        if e > host.get(i, 0) and e > clock.get(i, 0):
                            conflicts.append((entry, buffer, lo, hi, write, lo, hi))
                            if kept_reads is None:
                                kept_reads = {}
                            kept_reads[i] = entry
            if commit:
                cell[2] = (*kept, (stream, epoch, True, label))
                cell[3] = kept_reads
        if conflicts and not (commit and self.strict):
            self._report(stream, command, epoch, conflicts)

    def _scan_cells(
        self,
        shadow: _Shadow,
        stream: Stream,
        buffer: Buffer,
        lo: int,
        hi: int,
        write: bool,
        epoch: int,
        label: Label,
        conflicts: list[_Conflict],
        commit: bool,
    ) -> None:
        """:meth:`check` for a range that is new to the buffer, or that overlaps other ranges of it."""
        mine: _Entry = (stream, epoch, write, label)
        clock = stream.clock
        host = self.host
        t = stream.index
        cells = shadow.cells
        found = False
        for key in shadow.overlapping(lo, hi):
            cell = cells[key]
            covers = lo <= key[0] and key[1] <= hi
            overlap_lo, overlap_hi = max(lo, key[0]), min(hi, key[1])
            kept: list[_Entry] = []
            # an access the host has seen complete can never matter again, on this stream as on others (else the
            # cells of a stream's writes to many ranges no later one covers, a KV cache's slots, pile up)
            for entry in cell[WRITES]:
                other = entry[0]
                i, e = other.index, entry[1]
                if e <= host.get(i, 0):
                    continue
                if other is stream:
                    ordered = True
                else:
                    ordered = e <= clock.get(i, 0)
                    if not ordered:
                        conflicts.append((entry, buffer, lo, hi, write, overlap_lo, overlap_hi))
                if not (covers and ordered and write):
                    kept.append(entry)
            kept_reads: dict[int, _Entry] = {}
            for i, entry in (cell[READS] or {}).items():
                e = entry[1]
                if e <= host.get(i, 0):
                    continue
                if i == t:
                    ordered = True
                else:
                    ordered = e <= clock.get(i, 0)
                    if not ordered and write:
                        conflicts.append((entry, buffer, lo, hi, write, overlap_lo, overlap_hi))
                if not (covers and ordered):
                    kept_reads[i] = entry
            if not commit:
                continue
            if key == (lo, hi):
                found = True
                if write:
                    kept.append(mine)
                else:
                    kept_reads[t] = mine
            if kept or kept_reads:
                cell[WRITES], cell[READS] = tuple(kept), kept_reads or None
            else:
                shadow.remove(key)
        if commit and not found:
            shadow.add([lo, hi, (mine,), None] if write else [lo, hi, (), {t: mine}])

    def _report(self, stream: Stream, command: Command, epoch: int, conflicts: list[_Conflict]) -> None:
        seen: set[tuple[int, int]] = set()
        findings = []
        for entry, buffer, lo, hi, write, overlap_lo, overlap_hi in conflicts:
            other, e, w, label = entry
            if (other.index, e) in seen:
                continue
            seen.add((other.index, e))
            kind = "write-after-write" if w and write else ("read-after-write" if w else "write-after-read")
            earlier = HazardAccess(describe(label), other.label, w, overlap_lo, overlap_hi, e)
            later = HazardAccess(command.label, stream.label, write, lo, hi, epoch)
            finding = StreamHazard(
                kind,
                _describe_buffer(buffer),
                buffer.nbytes,
                overlap_lo,
                overlap_hi,
                earlier,
                later,
                self.machine.host_time,
            )
            machine = self.machine
            if len(machine.hazards) < KEPT_FINDINGS:
                machine.hazards.append(finding)
            else:
                machine.hazards_dropped += 1
            findings.append(finding)
        handler = self.handler
        if handler is not None:
            for finding in findings:
                handler(finding)


def _clock_at(stream: Stream, epoch: int) -> dict[int, int]:
    """The other streams' components of ``stream``'s clock when it was given its ``epoch``-th command."""
    epochs = stream.snap_epochs
    if not epochs or epochs[0] > epoch:
        return {}
    if epochs[-1] <= epoch:
        return stream.snap_clocks[-1]
    return stream.snap_clocks[bisect.bisect_right(epochs, epoch) - 1]
