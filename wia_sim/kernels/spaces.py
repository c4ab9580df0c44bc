"""Memory of a kernel launch: values, pointers, address spaces and the checks on every access.

A ``Region`` is one object in one address space: a ``__global``/``__constant`` buffer (the caller's bytes, one
row), a ``__local`` variable or ``__local`` argument (one row per work-group) or a ``__private`` array (one row per
lane). Loads and stores take a byte offset per lane and a lane mask; with checks on they report out-of-bounds
accesses, races (two work-items, one address, at least one writing, not both atomic, no barrier ordering that
memory in between; ``races.py``) and reads of local bytes nobody wrote, as ``KernelFault``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wia_sim.kernels.affine import Affine
from wia_sim.kernels.ctype import ALL_BYTES_WRITTEN, CType, elem_bytes
from wia_sim.kernels.diagnostics import origin
from wia_sim.kernels.lanes import Lanes, active_span, all_lanes, any_lane, per_lane
from wia_sim.kernels.strided import StridedAccess, Viewed

__all__ = [
    "KernelFault",
    "KernelTimeout",
    "LaunchState",
    "Pointer",
    "Region",
    "Uninit",
    "UnsupportedKernel",
    "Value",
    "a_sized",
    "lane_count",
    "sized",
    "undefined_lanes",
]

Array = NDArray[Any]


_CODES = {
    "out_of_bounds_global": "INVALID_MEMORY",
    "out_of_bounds_local": "INVALID_MEMORY",
    "out_of_bounds_constant": "INVALID_MEMORY",
    "out_of_bounds_private": "INVALID_MEMORY",
    "misaligned_global": "INVALID_MEMORY",
    "misaligned_local": "INVALID_MEMORY",
    "misaligned_constant": "INVALID_MEMORY",
    "misaligned_private": "INVALID_MEMORY",
    "uninitialized_local": "INVALID_MEMORY",
    "uninitialized_private": "INVALID_MEMORY",
    "uninitialized_global": "INVALID_MEMORY",
    "write_to_read_only": "INVALID_MEMORY",
    "read_from_write_only": "INVALID_MEMORY",
    "null_pointer": "INVALID_MEMORY",
    "step_limit": "TIMEOUT",
    "forward_progress": "TIMEOUT",
}


class KernelFault(Exception):
    """A check failed: ``check`` names it (``out_of_bounds_global``, ``race_local``, ...), ``line`` is the source
    line (the user's: the preprocessor keeps lines) and ``source_line`` its text, stripped; ``work_item`` is the
    global id and ``group`` the work-group id of the first offending work-item in launch order (work-group by
    work-group, in a 1-D launch the lowest global id; for a race, the later one of the first conflicting pair
    found), ``address`` its byte offset in the memory object.

    ``work_items`` and ``groups`` say how many work-items, in how many work-groups, hit the same finding at the
    access that raised it (in the lockstep step where it was found; later steps are not run), and
    ``address_range`` the lowest and the highest of their offsets. The message is one line for the finding and,
    when the line is known, a second one quoting it.

    What a faulting launch leaves: ``run_kernel`` reads and writes the caller's arrays in place, so after a fault
    they hold the writes of every access before the faulting one, in the executor's lockstep order (which is no
    device's order), and none of the faulting access itself (its checks run before any of its lanes stores). The
    HAL's sim backend runs a kernel on copies of the buffers it may write and copies them back only when it ends
    without a finding: through the HAL, no write of a faulting launch lands.
    """

    def __init__(
        self,
        check: str,
        message: str,
        kernel: str,
        line: int,
        work_item: tuple[int, int, int] | None = None,
        group: tuple[int, int, int] | None = None,
        address: int | None = None,
        *,
        work_items: int | None = None,
        groups: int | None = None,
        address_range: tuple[int, int] | None = None,
        source_line: str = "",
        file: str = "",
    ) -> None:
        super().__init__(message)
        self.wia_code = _CODES.get(check, "INVALID_KERNEL")
        """The HAL error code this finding maps to, by name (the simulator does not import the HAL)."""
        self.check = check
        self.message = message
        self.kernel = kernel
        self.line = line
        self.work_item = work_item
        self.group = group
        self.address = address
        single = 0 if work_item is None else 1
        self.work_items = single if work_items is None else work_items
        self.groups = single if groups is None else groups
        self.address_range = address_range if address_range is not None or address is None else (address, address)
        self.source_line = source_line
        self.file = file
        """The file of ``line``: the kernel's source, or a file it includes ("": not known)."""
        self.earlier: list[KernelFault] = []
        """The lower-severity findings the launch noted before this one stopped it (``LaunchState.note``)."""


class UnsupportedKernel(NotImplementedError):
    """The kernel uses something the executor does not implement (named in the message, with its line)."""

    wia_code = "NOT_SUPPORTED"


class KernelTimeout(KernelFault):
    """The kernel ran past its step limit, or into a loop that cannot end (``progress.py``); ``line`` is the
    innermost loop being executed. ``waits_for``: the work-groups, other than the loop's own, whose work-items the
    loop waits for (``progress.hang``): with them run first, it may end (``executor.run_kernel``)."""

    def __init__(
        self,
        kernel: str,
        line: int,
        message: str = "",
        source_line: str = "",
        file: str = "",
        waits_for: tuple[int, ...] = (),
    ) -> None:
        message = message or f"kernel '{kernel}' exceeded its step limit"
        super().__init__("step_limit", message, kernel, line, source_line=source_line, file=file)
        self.waits_for = waits_for


def sized(n: int, unit: str) -> str:
    """``n unit`` as a message says it: "1 byte", "4 bytes"."""
    return f"{n} {unit}" if n == 1 else f"{n} {unit}s"


def a_sized(n: int, unit: str) -> str:
    """ "a 4-byte", "an 8-element" (the article as the number is read: an eight, an eleven, an eighteen, an
    eighty-..., an eight hundred ..., by its leading group of three digits)."""
    lead = int(str(abs(n))[: (len(str(abs(n))) - 1) % 3 + 1])
    vowel = n >= 0 and (lead in (8, 11, 18) or 80 <= lead <= 89 or 800 <= lead <= 899)
    return f"{'an' if vowel else 'a'} {n}-{unit}"


def undefined_lanes(undef: Array) -> Array:
    """The lanes in which any component is undefined."""
    return undef if undef.ndim == 1 else np.asarray(undef.any(axis=1))


def byte_bits(flags: Array) -> Array:
    """Flags per byte (the last axis: byte k) as one mask each, bit k for byte k (``Uninit.unwritten``)."""
    places = np.arange(flags.shape[-1], dtype=np.uint64)
    return np.asarray((flags.astype(np.uint64) << places).sum(axis=-1, dtype=np.uint64))


def bit_bytes(masks: Array, size: int) -> Array:
    """``byte_bits`` undone: each mask's ``size`` bits as flags, on a new last axis."""
    return ((masks[..., None] >> np.arange(size, dtype=np.uint64)) & np.uint64(1)).astype(bool)


def byte_flags(flags: Array, esize: int) -> Array:
    """Flags per byte of ``esize``-byte elements (a row each) as one word per element, a byte's flag in its own
    byte (``Region.init``'s layout)."""
    return np.asarray(flags.astype(np.uint8).view(f"u{esize}")[:, 0].astype(np.uint64))


@dataclass(frozen=True, eq=False)
class Uninit:
    """Where an undefined value came from: the check its use reports (``uninitialized_<space>``), the object read
    (``what``), the line of the read (0: not read yet, a variable's declaration) and, for memory, the byte offset
    each lane's read began at (-1: not this read's lane; a vector's: one per component, a row per lane) and the
    element size (``undef.py``)."""

    st: LaunchState
    check: str
    what: str
    line: int = 0
    offsets: Array | None = None
    size: int = 0
    unwritten: Array | None = None
    """Per lane (and component, as ``offsets``), the bytes of its element nobody wrote, a bit each (``size`` bits
    set: none was written)."""
    stored: Array | None = None
    """Of ``unwritten``, the bytes an undefined value was stored to (not never written), as ``unwritten``."""
    exact: bool = False
    """The value is the bytes read, unchanged (a load, a copy of it): a store of it leaves uninitialized only the
    bytes ``unwritten`` names, as Oclgrind's shadow follows them byte by byte through loads and stores (a word
    copied before its other bytes are written, then completed, is defined); computing with it drops this."""
    bits: Array | None = None
    """Of a scalar integer computed from the read by bit-exact operators (shifts, masks, conversions between
    integers: ``bit_shadow.py``), its undefined bits, per lane: as Oclgrind's shadow follows them."""
    unspecified: bool = False
    """The value is one the language leaves undefined, not memory nobody wrote: the w of a 3-component vector's
    ``.hi``/``.odd`` (OpenCL C 1.2 6.1.7), Clang's undef, which LLVM lets a program store but not branch on or
    index with. A store of it is a lower-severity finding (the CTS's hiloeo test stores ``.hi`` of an ``int3`` and
    compares only its x); those uses stay the finding."""

    def read_at(self, line: int) -> Uninit:
        """This origin, read at ``line`` (a variable's: the line of the first read that carries it)."""
        return self if self.line else replace(self, line=line)

    def beside(self, mask: Array, other: Uninit) -> Uninit:
        """This origin in the lanes of ``mask`` and ``other`` in the rest (a variable assigned in some lanes): still
        ``exact`` there, each lane's unwritten bytes its own read's, all of them where ``other`` is not a read of
        the same element size."""
        mine = self.unwritten
        if not self.exact or mine is None or self.offsets is None:
            return self.computed()
        theirs = other.unwritten
        if not other.exact or theirs is None or other.size != self.size or theirs.shape != mine.shape:
            theirs = np.full_like(mine, (1 << self.size) - 1)
        lanes = mask if mine.ndim == 1 else mask[:, None]
        offsets = self.offsets if other.offsets is None or other.offsets.shape != mine.shape else other.offsets
        unwritten, offsets = np.where(lanes, mine, theirs), np.where(lanes, self.offsets, offsets)
        return replace(self, unwritten=unwritten, offsets=offsets, stored=None, bits=None)

    def undefined_bytes(self, undef: Array, t: CType) -> Array | None:
        """The bytes of a value of ``t`` undefined in it (``undef``: its lanes or components), one row per lane,
        from the bytes the read left unwritten; None where this is not the value read (``exact``) as ``t``."""
        unwritten = self.unwritten
        if not self.exact or unwritten is None or self.size != t.dtype.itemsize:
            return None
        rows = unwritten if unwritten.ndim == 2 else unwritten[:, None]
        if rows.shape[1] != t.width or undef.shape[0] != rows.shape[0]:
            return None
        shadow = undef if undef.ndim == 2 else undef[:, None]
        return np.asarray((bit_bytes(rows, self.size) & shadow[..., None]).reshape(rows.shape[0], -1))

    def computed(self) -> Uninit:
        """This origin, of a value computed from the one read (no longer its bytes: ``exact``; nor bits it knows)."""
        return replace(self, exact=False, bits=None) if self.exact or self.bits is not None else self

    def written_bytes(self, lanes: Array, esize: int, width: int) -> Array | None:
        """For a store of this value by ``lanes`` in elements of ``esize`` bytes (``width`` of them: a vector's
        components), the initialized flags of each element's bytes as one word (``Region.init``), a vector's
        components in a row each; None where the value is not the bytes read (``exact``) nor a scalar whose
        undefined bits are known (``bits``: a byte is written where all its bits are defined), or its shape is not
        the store's."""
        if self.bits is not None and width == 1 and self.bits.ndim == 1:
            places = np.arange(esize, dtype=np.uint64) * np.uint64(8)
            undefined = ((self.bits[lanes][:, None] >> places) & np.uint64(0xFF)) != 0
            return np.asarray(np.uint64(ALL_BYTES_WRITTEN[esize]) ^ byte_flags(undefined, esize))
        unwritten = self.unwritten
        if not self.exact or unwritten is None or self.size != esize:
            return None
        if (unwritten.ndim == 1 and width > 1) or (unwritten.ndim == 2 and unwritten.shape[1] != width):
            return None
        return np.asarray(
            np.uint64(ALL_BYTES_WRITTEN[esize]) ^ byte_flags(bit_bytes(unwritten[lanes].reshape(-1), esize), esize)
        )

    def picked(self, idx: tuple[int, ...] | Array) -> Uninit:
        """This origin, for the components ``idx`` of the vector it was read as (a swizzle's, or one per lane:
        ``v[i]``), so that a use of one component names that component's bytes."""
        if self.offsets is None or self.offsets.ndim == 1 or self.unwritten is None:
            return self
        width = self.offsets.shape[1]
        if isinstance(idx, tuple):
            cols: Any = np.minimum(np.asarray(idx, np.intp), width - 1)  # (a 3-vector's w: past its components)
            cols = cols[0] if cols.size == 1 else cols
            stored = None if self.stored is None else self.stored[:, cols]
            return replace(self, offsets=self.offsets[:, cols], unwritten=self.unwritten[:, cols], stored=stored)
        k = np.broadcast_to(np.clip(np.asarray(idx, np.intp), 0, width - 1), self.offsets.shape[:1])[:, None]
        offsets, unwritten = np.take_along_axis(self.offsets, k, 1), np.take_along_axis(self.unwritten, k, 1)
        stored = None if self.stored is None else np.take_along_axis(self.stored, k, 1)[:, 0]
        return replace(self, offsets=offsets[:, 0], unwritten=unwritten[:, 0], stored=stored)

    def _per_lane(self, undef: Array) -> tuple[Array, Array | None, Array | None]:
        """Each lane's read offset, unwritten bytes and bytes holding an undefined value (``offsets``,
        ``unwritten``, ``stored``); of a vector, those of the first component the use found undefined, else of the
        first with bytes nobody wrote."""
        assert self.offsets is not None
        if self.offsets.ndim == 1 or self.unwritten is None:
            return self.offsets, self.unwritten, self.stored
        unwritten = self.unwritten != 0
        if undef.ndim == 2 and undef.shape[1] == unwritten.shape[1]:
            both = unwritten & undef
            unwritten = np.where(both.any(axis=1)[:, None], both, unwritten)
        k = unwritten.argmax(axis=1)[:, None]
        offsets = np.where(unwritten.any(axis=1), np.take_along_axis(self.offsets, k, 1)[:, 0], -1)
        stored = None if self.stored is None else np.take_along_axis(self.stored, k, 1)[:, 0]
        return offsets, np.take_along_axis(self.unwritten, k, 1)[:, 0], stored

    def fault(self, undef: Array, use: str) -> KernelFault:
        """The finding for the lanes of ``undef`` that ``use`` the value (``use``: "and its value stored to ...")."""
        st = self.st
        lanes = undefined_lanes(undef)
        lane = int(np.flatnonzero(lanes)[0])
        at: int | None = None
        offs: Array | None = None
        what = f"read of uninitialized {self.what}"
        if self.offsets is not None:
            offsets, unwritten, stored = self._per_lane(undef)
            own = offsets[lanes]
            offs = own[own >= 0]
            at = int(offsets[lane]) if offsets[lane] >= 0 else (int(offs[0]) if offs.size else None)
            if at is not None:
                gaps = _unwritten_words(unwritten, lane, self.size, stored)
                what += f" ({sized(self.size, 'byte')} at offset {at}{gaps})"
        if undef.ndim == 2 and not bool(undef[lane].all()):  # some components of a vector
            parts = [str(k) for k in np.flatnonzero(undef[lane])]
            what += f" (its component{'s' if len(parts) > 1 else ''} {', '.join(parts)} of {undef.shape[1]})"
        if self.line and self.line != st.line:
            what += f" at {st.line_named(self.line)}"
        return st.fault(self.check, f"{what}, {use}", lane, at, lanes, offs)


class Value:
    """A scalar or vector value per lane: ``a`` has shape () or (lanes,), plus a trailing axis for vectors.

    ``affine``: an integer that is an affine function of the work-item's coordinates (``affine.py``); ``cond``: a
    scalar comparison's result as a lane mask (the value is 1 where it is set, else 0); ``grid``: a load's elements
    as a strided view of memory (``strided.Viewed``), only ever handed to the operator that
    consumes it before anything else runs (``executor._binary_plan``). With any of them, the array ``a`` is made
    only when first used: ``if (i < n)`` needs the mask, not an int per lane; ``As[y][k] * Bs[k][x]`` needs no
    copy of either operand.

    ``undef``: the lanes (a vector: the components, one row per lane) whose value came from memory or a variable
    nobody initialized, ``origin`` that read (``undef.py``). Such a value may be copied, computed with and kept in
    __private memory (``raw``, ``undef.py``'s helpers carry the shadow along); anything that takes its bits through
    ``a`` uses it, which is the finding."""

    __slots__ = ("_a", "affine", "cond", "grid", "origin", "t", "undef")

    def __init__(
        self,
        t: CType,
        a: Array | None,
        affine: Affine | None = None,
        cond: Array | None = None,
        grid: Viewed | None = None,
        undef: Array | None = None,
        origin: Uninit | None = None,
    ) -> None:
        self.t = t
        self._a = a
        self.affine = affine
        self.cond = cond
        self.grid = grid
        self.undef = undef
        self.origin = origin

    @property
    def a(self) -> Array:
        if self.undef is not None:
            assert self.origin is not None
            raise self.origin.fault(self.undef, "and its value used")
        a = self._a
        return self.raw if a is None else a

    @property
    def raw(self) -> Array:
        """The value per lane, defined or not (``undef``)."""
        if self._a is None:
            if self.grid is not None:  # copied before anything can store to the memory it views
                self._a, self.grid = self.grid.per_lane(), None
            elif self.cond is not None:
                self._a = self.cond.astype(self.t.dtype)
            else:
                assert self.affine is not None
                self._a = self.affine.values(self.t.dtype)
        return self._a

    def __repr__(self) -> str:
        return f"Value({self.t}, {self.affine if self._a is None else self._a})"


class Pointer:
    """Where a pointer points: a region (None for a null pointer), the pointee type (None for void) and a byte
    offset per lane. ``dims`` are the remaining array dimensions when the pointee is itself an array row.
    ``null``: the lanes in which a pointer into ``region`` is NULL instead (a variable assigned NULL in some
    work-items and an object in others), or None. ``packed``: a member of a packed struct, which may lie at any
    byte offset (read and written byte by byte, never called misaligned). ``affine``: the offset as an affine
    function of the work-item's coordinates (``affine.py``), its array ``off`` made only when first used."""

    __slots__ = ("_off", "affine", "dims", "elem", "null", "packed", "region")

    def __init__(
        self,
        region: Region | None,
        elem: CType | None,
        off: Array | None,
        dims: tuple[int, ...] = (),
        null: Array | None = None,
        packed: bool = False,
        affine: Affine | None = None,
    ) -> None:
        self.region = region
        self.elem = elem
        self._off = off
        self.dims = dims
        self.null = null
        self.packed = packed
        self.affine = affine

    @property
    def off(self) -> Array:
        if self._off is None:
            assert self.affine is not None
            self._off = self.affine.values(np.int64)
        return self._off

    def offsets_at(self, lanes: Array) -> Array:
        """The byte offset of the lanes ``lanes`` alone (no pass over every lane's)."""
        if self._off is None:
            assert self.affine is not None
            return self.affine.at(lanes)
        off = np.asarray(self._off, np.int64)
        return np.full(lanes.size, int(off), np.int64) if off.ndim == 0 else off[lanes]

    def __repr__(self) -> str:
        where = self.affine if self._off is None else self._off
        return f"Pointer({self.region and self.region.description}, {self.elem}, {where}, dims={self.dims})"

    @property
    def elem_size(self) -> int:
        if self.elem is None:
            return 1
        return elem_bytes(self.elem) * math.prod(self.dims)

    def moved(self, delta: Array) -> Pointer:
        off = delta if self.off.ndim == 0 and not self.off else self.off + delta
        return Pointer(self.region, self.elem, off, self.dims, self.null, self.packed)

    def moved_by(self, delta: Affine | int) -> Pointer:
        """Moved by ``delta`` bytes per lane (or in every lane), kept affine where the offset is or becomes."""
        if self.affine is not None:
            at = self.affine + delta
        elif isinstance(delta, Affine) and self._off is not None and self._off.ndim == 0:
            at = delta + int(self._off)
        else:
            return self.moved(delta.values() if isinstance(delta, Affine) else np.asarray(delta, np.int64))
        return Pointer(self.region, self.elem, None, self.dims, self.null, self.packed, at)

    def row(self) -> Pointer:
        """The first row of the array ``self`` points to (its first dimension dropped)."""
        return Pointer(self.region, self.elem, self._off, self.dims[1:], self.null, self.packed, self.affine)

    def retyped(self, elem: CType | None) -> Pointer:
        return Pointer(self.region, elem, self._off, self.dims, self.null, self.packed, self.affine)


def lane_count(mask: Array) -> int:
    return int(np.count_nonzero(mask))


_SPACE_CHECK = {"global": "out_of_bounds_global", "local": "out_of_bounds_local", "constant": "out_of_bounds_constant"}


@dataclass
class LaunchState:
    """What accesses need to know about the launch: lane ids, barrier epochs, counters, where faults go, and the
    user's source (``source_lines``, for quoting the line of a finding)."""

    lanes: Lanes
    kernel: str
    filename: str
    checks: bool
    counts: dict[str, int]
    epoch: Array = field(default_factory=lambda: np.zeros(0, np.int64))
    line: int = 0
    source_lines: Sequence[str] = ()
    origins: Sequence[tuple[str, int]] | None = None
    """Each line's file and line of the user's source when it includes files or runs a ``#line``
    (``Program.origins``)."""
    strict: bool = False
    """Lower-severity findings (``uniform_write``, ``division_by_zero``) raise, as races do, instead of being
    noted."""
    findings: list[KernelFault] = field(default_factory=list)
    """The lower-severity findings noted so far: the first at each line, per check."""
    deferred: tuple[Array, Uninit] | None = None
    """What the last deferring load (``Region.load(defer=True)``) read that nobody wrote, for its caller to take
    into the value (``undef.py``)."""
    misaligned: Array | None = None
    """With checks off, the lanes of the last ``Region._prepare`` whose access is misaligned inside the memory, for
    its caller to move byte by byte (x86 CPUs, PoCL's and Oclgrind's, access any byte offset)."""
    _counted: tuple[Array | None, int] = (None, 0)
    _spanned: tuple[Array | None, tuple[int, int] | None] = (None, None)

    def active(self, mask: Array) -> int:
        """How many lanes ``mask`` holds (counted once for consecutive accesses under one mask)."""
        counted, n = self._counted
        if mask is not counted:
            n = lane_count(mask)
            self._counted = (mask, n)
        return n

    def span(self, mask: Array) -> tuple[int, int] | None:
        """``active_span`` of ``mask`` (found once for consecutive accesses under one mask, as ``active``)."""
        spanned, span = self._spanned
        if mask is not spanned:
            span = active_span(mask)
            self._spanned = (mask, span)
        return span

    def note(self, finding: KernelFault) -> None:
        """A finding that does not stop the kernel (unless ``strict``): kept once per check and line."""
        if self.strict:
            raise finding
        if not any((f.check, f.line, f.file) == (finding.check, finding.line, finding.file) for f in self.findings):
            self.findings.append(finding)

    def where(self, line: int) -> tuple[str, int]:
        """The file and line of the user's source at line ``line`` of the program (``Program.where``)."""
        return origin(self.origins, self.filename, line)

    def line_named(self, line: int) -> str:
        """Line ``line`` of the program as a message names it: "line N" of the kernel's file, "line N of FILE" of
        a file it includes."""
        file, number = self.where(line)
        return f"line {number}" if file == self.filename else f"line {number} of {file}"

    def quote(self, line: int) -> str:
        """Line ``line`` of the user's source, stripped ("" when unknown), cut to ``_QUOTE_CHARS``."""
        if not 1 <= line <= len(self.source_lines):
            return ""
        text = self.source_lines[line - 1].strip()
        return text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 3] + "..."

    def fault(
        self,
        check: str,
        what: str,
        lane: int,
        address: int | None = None,
        offenders: Array | None = None,
        offsets: Array | None = None,
    ) -> KernelFault:
        """The finding ``what`` at the current line, with ``lane`` as the example. ``offenders``: every lane that
        hits the same finding at this access (a lane mask, or lane indices, repeats allowed), ``offsets`` their
        byte offsets (one per entry of the indices, or per set lane of the mask). Only called on the fault path:
        counting here costs nothing while the kernel is correct."""
        lanes = self.lanes
        gid = (int(lanes.global_id[0][lane]), int(lanes.global_id[1][lane]), int(lanes.global_id[2][lane]))
        grp = (int(lanes.group_id[0][lane]), int(lanes.group_id[1][lane]), int(lanes.group_id[2][lane]))
        # the work-items as one flag each (a set of a million lanes: np.unique's hashing took half a second)
        items = np.zeros(lanes.total, dtype=bool)
        if offenders is not None and offenders.dtype == bool:
            items |= offenders.reshape(lanes.total, -1).any(axis=1)  # (a lane's components: the lane)
        elif offenders is not None:
            items[np.asarray(offenders, np.int64)] = True
        items[lane] = True
        n_items = int(np.count_nonzero(items))
        n_groups = int(np.count_nonzero(items.reshape(-1, lanes.geometry.group_size).any(axis=1)))
        span: tuple[int, int] | None = None
        if offsets is not None and offsets.size:
            span = (int(offsets.min()), int(offsets.max()))
            if address is not None:
                span = (min(span[0], address), max(span[1], address))
        elif address is not None:
            span = (address, address)
        file, line = self.where(self.line)
        message = f"{file}:{line}: {what} by work-item {gid} in group {grp}"
        if n_items > 1:
            message += f", one of {n_items} work-items in {sized(n_groups, 'work-group')}"
            if span is not None and span[0] != span[1]:
                message += f" (offsets {span[0]} to {span[1]})"
        source = self.quote(self.line)
        if source:
            message += f"\n    {source}"
        return KernelFault(
            check,
            message,
            self.kernel,
            line,
            gid,
            grp,
            address,
            work_items=n_items,
            groups=n_groups,
            address_range=span,
            source_line=source,
            file=file,
        )


_QUOTE_CHARS = 160
"""The longest source line a finding quotes whole (longer ones are cut, keeping the message compact)."""


def _granules(
    starts: Array, lanes: Array, stored: Callable[[], tuple[Array, Array]] | None, esize: int, granule: int
) -> tuple[Array, Array, Callable[[], tuple[Array, Array]] | None]:
    """An access of ``esize``-byte elements at ``starts`` by ``lanes`` as one entry per ``granule`` bytes of each
    element (its race records), with what it stores (``stored``) cut to each (``esize``: a whole vector's bytes
    where a granule holds several of its components)."""
    parts = esize // granule
    spread = starts if parts == 1 else (starts[:, None] + np.arange(0, esize, granule)).reshape(-1)
    if stored is None:
        return spread, lanes if parts == 1 else np.repeat(lanes, parts), None
    bits = stored

    def cut() -> tuple[Array, Array]:  # each granule's own bits: the same bits stored there is no race
        word = np.dtype(f"u{granule}" if granule <= 8 else f"V{granule}")
        new, old = bits()
        return np.ascontiguousarray(new).view(word).reshape(-1), np.ascontiguousarray(old).view(word).reshape(-1)

    return spread, lanes if parts == 1 else np.repeat(lanes, parts), cut


def _whole(starts: Array, nbytes: int, granule: int) -> bool:
    """Whether accesses of ``nbytes`` from ``starts`` each cover whole granules (a struct copied as its bytes in
    pieces: ``struct_exec``): no granule is shared with another access, none needs refining."""
    return nbytes % granule == 0 and not int(np.bitwise_or.reduce(starts, initial=0)) % granule


class Region(StridedAccess):
    """One memory object. ``data`` is uint8 of shape (rows, stride); an access at byte offset ``off`` of lane ``l``
    touches row 0 (``per`` "none"), the lane's work-group (``per`` "group") or the lane itself (``per`` "lane")."""

    def __init__(
        self,
        space: str,
        description: str,
        data: Array,
        nbytes: int,
        per: str,
        granule: int = 1,
        track_races: bool = True,
        read_only: bool = False,
    ) -> None:
        self.space = space
        self.description = description
        self.data = data
        self.nbytes = nbytes
        self.per = per
        self.granule = max(1, granule)
        self.track_races = track_races
        self.read_only = read_only
        self.write_only = False  # a kernel may not read it (a buffer allocated write-only, memargs.GlobalBuffer)
        self._views: dict[str, Array] = {}
        self.w_lane: Array | None = None
        self.w_epoch: Array | None = None
        self.w_group: Array | None = None
        self.r_lane: Array | None = None
        self.r_first: Array | None = None  # (``races.RaceTracker``)
        self.r_other_line: Array | None = None
        self.r_epoch: Array | None = None
        self.r_group: Array | None = None
        self.a_lane: Array | None = None  # the last atomic updater (see races.RaceTracker._race)
        self.a_epoch: Array | None = None
        self.a_group: Array | None = None
        self.l_lane: Array | None = None  # the last atomic loader: a cmpxchg that stored nothing (races._atomic_load)
        self.l_epoch: Array | None = None
        self.l_group: Array | None = None
        self.w_line: Array | None = None  # the program's line of the access on record (races.RaceTracker._report)
        self.r_line: Array | None = None
        self.a_line: Array | None = None
        self.l_line: Array | None = None
        self.init: Array | None = None
        # memory that holds undefined values stored to it (``undef.py``): its bytes, flagged as ``init`` is, and
        # where each byte's value came from, for the finding when it is read back and used
        self.carrying: Array | None = None
        self.carried: list[Uninit] = []
        self.carried_at: Array | None = None  # per byte, the index in ``carried`` of where its value came from
        self._pending_reads: list[tuple[Array, Array, int, Array | None, int]] = []  # reads not yet recorded: _wait
        self._pending_size = 0
        self._probe: Array | None = None  # -1 per granule, a write's lanes set while it looks at them: _reads_clear
        self._written = False  # a write is on record in w_lane (or an atomic in a_lane)
        self._all_init = False  # every byte was written (__local memory: looked at at each barrier; __private
        # memory: once its stores could have covered it, ``mark_written``)
        self._marked = 0  # bytes marked written since ``_all_init`` was last looked at (``mark_written``)
        self._newly_written = True  # bytes marked written since a barrier last looked at the flags (``barrier``)
        self._row_starts: Array | None = None
        self._compact = []
        self._shadowed = False
        self._shares_records = False
        self._layouts = {}
        if space == "local":
            self.init = np.zeros(data.size, dtype=bool)

    @classmethod
    def allocate(cls, space: str, description: str, rows: int, nbytes: int, per: str, granule: int = 1) -> Region:
        stride = max(16, -(-nbytes // 16) * 16)
        return cls(space, description, np.zeros((rows, stride), np.uint8), nbytes, per, granule)

    def view(self, dtype: np.dtype[Any]) -> Array:
        key = dtype.str
        v = self._views.get(key)
        if v is None:
            flat = self.data.reshape(-1)
            usable = flat.size - flat.size % dtype.itemsize
            v = flat[:usable].view(dtype)
            self._views[key] = v
        return v

    def row_starts(self, st: LaunchState) -> Array | None:
        """The byte where each lane's row begins (its work-group's or its own), or None for one shared row;
        computed once, a region lives for one launch."""
        if self.per == "none":
            return None
        if self._row_starts is None:
            rows = st.lanes.group if self.per == "group" else st.lanes.ids
            self._row_starts = rows * self.stride
        return self._row_starts

    # ---------------------------------------------------------------------------------------------------------
    def _prepare(
        self, st: LaunchState, off: Array, mask: Array, t: CType, write: bool
    ) -> tuple[Array, Array, tuple[int, int] | None]:
        """Flat byte offsets of the accesses, the lanes that may touch memory and the first and last of them
        (``active_span``); faults if checking.

        Offsets of lanes outside the returned mask are meaningless (a guarded ``if (i < n) c[i] = ...`` computes
        ``c + i`` for every lane): callers gather with clipping and scatter only the lanes in the mask."""
        size = elem_bytes(t)
        off = np.asarray(off, dtype=np.int64)
        esize = t.dtype.itemsize
        if off.ndim == 0:  # one offset for every lane (a member of a variable, a constant index): no array to scan
            o = int(off)
            if 0 <= o <= self.nbytes - size and not o & (esize - 1):
                starts = self.row_starts(st)
                return (off if starts is None else starts + o), mask, st.span(mask)
        # reductions without temporaries decide the common case: every offset in bounds and aligned, looked at
        # between the first and the last active lane (a guard like ``if (i < n)`` switches off a tail whose
        # offsets lie past the end)
        span = st.span(mask)
        window = slice(span[0], span[1] + 1) if span is not None and off.ndim == 1 and off.size == mask.size else None
        seen = off if window is None else off[window]
        limit = self.nbytes - size
        # the offsets' bitwise OR is negative if one is, else at least the largest, and its low bits are set if
        # one is misaligned: one reduction decides the usual case
        bits = int(np.bitwise_or.reduce(seen, axis=None))
        if 0 <= limit < bits and not bits & (esize - 1) and seen.size and int(seen.max()) <= limit:
            # none negative, all aligned, and the largest in bounds: the OR only ran past the end (offsets up to a
            # buffer's last element, whose OR sets bits none of them has alone)
            bits = 0
        if window is not None and not (0 <= bits <= limit and not bits & (esize - 1)):
            # lanes a branch switched off between the active ones (``if (l < s) t[l] += t[l + s];`` in every group):
            # the active lanes' offsets alone
            bits = int(np.bitwise_or.reduce(seen, where=mask[window], initial=0))
        if 0 <= bits <= limit and not bits & (esize - 1):
            in_bounds = aligned = True
        else:  # one unsigned comparison finds negative offsets and those past the end alike
            in_bounds = limit >= 0 and not np.count_nonzero(seen.view(np.uint64) > np.uint64(limit))
            aligned = esize == 1 or not bits & (esize - 1)
        if not (in_bounds and aligned):
            # only the active lanes' count (a lane a branch switched off may compute any offset): none of those
            # bad, the mask stands as it is (a new one would be counted and spanned again by each access after)
            oob = off.view(np.uint64) > np.uint64(limit) if limit >= 0 else np.ones(off.shape, dtype=bool)
            misaligned = (off & (esize - 1)) != 0 if not aligned else np.zeros(off.shape, dtype=bool)
            bad = oob | misaligned if not aligned else oob
            hit = mask & bad
            if bool(hit.any()):
                if st.checks:
                    lanes = np.flatnonzero(hit)
                    offs = np.broadcast_to(off, mask.shape)[lanes]
                    raise self._misplaced(st, lanes, offs, np.broadcast_to(oob, mask.shape)[lanes], t, write)
                if not aligned:  # (checks off) those inside the memory are the caller's to move byte by byte
                    inside = np.broadcast_to(mask & misaligned & ~oob, mask.shape)
                    st.misaligned = inside if bool(inside.any()) else None
                mask = mask & ~bad
                span = active_span(mask)
        starts = self.row_starts(st)
        flat = off if starts is None else starts + off
        return flat, mask, span

    def _misplaced(self, st: LaunchState, lanes: Array, offs: Array, oob: Array, t: CType, write: bool) -> KernelFault:
        """The finding for accesses by ``lanes`` (in order) at byte ``offs`` that are out of bounds (``oob``) or
        else misaligned: the first one's kind, with every access of that kind as its offenders."""
        size = elem_bytes(t)
        same = oob if oob[0] else ~oob
        offenders = np.zeros(st.lanes.total, dtype=bool)
        offenders[lanes[same]] = True
        lane, at = int(lanes[0]), int(offs[0])
        access = "write" if write else "read"
        if not oob[0]:  # misaligned inside the buffer
            what = f"misaligned {access} of {sized(size, 'byte')} at offset {at} of {self.description}"
            return st.fault(f"misaligned_{self.space}", what, lane, at, offenders, offs[same])
        what = (
            f"out-of-bounds {access} of {sized(size, 'byte')} at offset {at} of {a_sized(self.nbytes, 'byte')} "
            f"{self.description}"
        )
        return st.fault(_SPACE_CHECK.get(self.space, "out_of_bounds_private"), what, lane, at, offenders, offs[same])

    def _placed(self, st: LaunchState, lanes: Array, off: Array, t: CType, write: bool) -> tuple[Array, Array]:
        """``_prepare`` for the accesses of ``lanes`` alone (``load_at``, ``store_at``): the lanes that may touch
        memory and the byte offsets of their elements in the region's data (faults if checking)."""
        size, esize = elem_bytes(t), t.dtype.itemsize
        limit = self.nbytes - size
        oob = off.view(np.uint64) > np.uint64(limit) if limit >= 0 else np.ones(off.shape, dtype=bool)
        bad = oob | ((off & (esize - 1)) != 0) if esize > 1 and st.checks else oob  # (``_gathered_bytes``)
        if bool(bad.any()):
            if st.checks:
                raise self._misplaced(st, lanes[bad], off[bad], oob[bad], t, write)
            lanes, off = lanes[~bad], off[~bad]
        return lanes, self.rowed(st, off, lanes)

    def load_at(self, st: LaunchState, lanes: Array, off: Array, t: CType, defer: bool = False) -> Array:
        """``load`` by the lanes ``lanes`` alone (in order), at byte offsets ``off`` (one per lane of ``lanes``):
        their values, of every lane of the launch (0 in the others). For a few lanes of a large launch, where a
        pass over every lane's offset costs more than the access."""
        values = np.zeros((st.lanes.total, t.width) if t.width > 1 else st.lanes.total, t.dtype)
        values[lanes] = self.load_lanes(st, lanes, off, t, defer)
        return values

    def load_lanes(self, st: LaunchState, lanes: Array, off: Array, t: CType, defer: bool = False) -> Array:
        """``load_at``'s values of the lanes ``lanes`` alone, in their order (``private_loops``: a loop's trips on
        arrays of the lanes still in it); with checks off, an access outside the memory reads 0."""
        placed, flat = self._placed(st, lanes, off, t, False)
        if self._off_alignment(st, flat, t):
            values = self._gathered_bytes(st, placed, flat, t)[lanes]
        else:
            idx = flat >> (t.dtype.itemsize.bit_length() - 1)
            values = self.view(t.dtype)[idx[:, None] + np.arange(t.width) if t.width > 1 else idx]
            if placed.size != lanes.size:  # (checks off: ``_placed`` dropped those outside the memory)
                kept = values
                values = np.zeros((lanes.size, *kept.shape[1:]), t.dtype)
                values[np.searchsorted(lanes, placed)] = kept
            self._counted(st, placed.size, t, "read")
        if st.checks and placed.size:
            if self.write_only:
                offs = np.zeros(st.lanes.total, np.int64)
                offs[placed] = flat
                self.refuse_read(st, _lanes_mask(st, placed), offs)
            if self._checked(None):
                self._check_at(st, placed, flat, t, write=False, atomic=False, defer=defer)
        return values

    def store_at(self, st: LaunchState, lanes: Array, off: Array, t: CType, values: Array) -> None:
        """``store`` by the lanes ``lanes`` alone (in order), at byte offsets ``off`` (one per lane of ``lanes``),
        of ``values`` (one per lane of the launch, or one for all), as ``load_at``."""
        if self.read_only and lanes.size:
            offs = np.zeros(st.lanes.total, np.int64)
            offs[lanes] = off
            self.refuse_write(st, _lanes_mask(st, lanes), off=offs)
        lanes, flat = self._placed(st, lanes, off, t, True)
        if not lanes.size:
            return
        if self._off_alignment(st, flat, t):
            self._scattered_bytes(st, lanes, flat, t, values)
            return
        n_lanes = st.lanes.total
        vals = per_lane(values, (n_lanes, t.width) if t.width > 1 else (n_lanes,))
        if st.checks and self._checked(None):
            self._check_at(st, lanes, flat, t, write=True, atomic=False, values=vals)
        idx = flat >> (t.dtype.itemsize.bit_length() - 1)
        self.view(t.dtype)[idx[:, None] + np.arange(t.width) if t.width > 1 else idx] = vals[lanes]
        self._counted(st, lanes.size, t, "written")

    def load(
        self, st: LaunchState, off: Array, mask: Array, t: CType, atomic: bool = False, defer: bool = False
    ) -> Array:
        """The elements at ``off`` per lane; ``defer``: bytes nobody wrote are not a finding here, they are left in
        ``st.deferred`` for the caller's value (``undef.py``: their use is)."""
        flat, ok, span = self._prepare(st, off, mask, t, False)
        if st.misaligned is not None:  # (checks off)
            return self._gathered_bytes(st, *self._misaligned_lanes(st, flat, ok), t)
        esize = t.dtype.itemsize
        view = self.view(t.dtype)
        idx = flat >> (esize.bit_length() - 1)
        columns = self.lane_columns(off, t) if self.per == "lane" else None
        start = _consecutive(idx, span) if span is not None and t.width == 1 and idx.ndim == 1 else None
        if columns is not None:  # each lane's own element at one offset: a copy of its column, no gather
            values = np.array(columns)
        elif span is not None and start is not None:  # a run of consecutive elements: one copy, no gather
            values = np.zeros(idx.shape, t.dtype)
            values[span[0] : span[1] + 1] = view[start : start + span[1] - span[0] + 1]
        else:
            if t.width > 1:
                idx = idx[..., None] + np.arange(t.width)
            values = view.take(idx, mode="clip")  # lanes outside ``ok`` read something harmless
        if ok is not mask:  # (checks off: an access outside the memory reads 0, as by lanes alone, ``load_lanes``)
            values[np.broadcast_to(mask, ok.shape) & ~ok] = 0
        n = st.active(ok)
        self._counted(st, n, t, "read")
        if st.checks and n:
            if self.write_only:
                self.refuse_read(st, ok, flat)
            self._check(st, flat, ok, t, write=False, atomic=atomic, defer=defer)
        return values

    def lane_columns(self, off: Array, t: CType) -> Array | None:
        """Of a region with a row per lane (``per`` "lane", which the callers test), each lane's element of ``t`` at
        the one byte offset ``off`` of its own row (a private struct's member, a private array's element at a
        constant index), as a strided view of ``data``, a column per component: ``load`` and ``store`` move it
        without index arrays. None for any other access, and for one outside the object (checks off: no lane takes
        part)."""
        esize = t.dtype.itemsize
        if np.ndim(off) != 0 or self.data.shape[1] % esize:
            return None
        o = int(off)
        if o % esize or not 0 <= o <= self.nbytes - elem_bytes(t):
            return None
        k = o // esize
        key = "rows" + t.dtype.str
        rows = self._views.get(key)
        if rows is None:
            rows = self._views[key] = self.data.view(t.dtype)  # (lanes, the row's elements)
        return rows[:, k] if t.width == 1 else rows[:, k : k + t.width]

    def refuse_read(self, st: LaunchState, mask: Array, flat: Array) -> None:
        """Raise the ``read_from_write_only`` finding for a load by the lanes in ``mask`` (offsets ``flat``)."""
        lanes = np.broadcast_to(mask, (st.lanes.total,))
        offs = np.broadcast_to(flat, (st.lanes.total,))
        lane = int(np.flatnonzero(lanes)[0])
        at = int(offs[lane])
        what = f"read of write-only {self.description} at offset {at}"
        raise st.fault("read_from_write_only", what, lane, at, lanes, offs[lanes])

    def refuse_write(self, st: LaunchState, mask: Array, what: str = "write", off: Array | None = None) -> None:
        """Raise the ``write_to_read_only`` finding for a store (or an atomic) by the lanes in ``mask`` (at byte
        offsets ``off``, when known)."""
        lanes = np.broadcast_to(mask, (st.lanes.total,))
        lane = int(np.flatnonzero(lanes)[0])
        if off is None:
            raise st.fault("write_to_read_only", f"{what} to read-only {self.description}", lane, None, lanes)
        offs = np.broadcast_to(np.asarray(off, np.int64), (st.lanes.total,))
        at = int(offs[lane])
        what = f"{what} to read-only {self.description} at offset {at}"
        raise st.fault("write_to_read_only", what, lane, at, lanes, offs[lanes])

    def store(
        self,
        st: LaunchState,
        off: Array,
        mask: Array,
        t: CType,
        values: Array,
        atomic: bool = False,
        undef: Array | None = None,
        origin: Uninit | None = None,
    ) -> None:
        """Store ``values`` per lane at ``off``; ``undef``: the lanes (components) whose value is undefined (from
        ``origin``), which leave their bytes uninitialized (``__private`` and ``__local`` memory, and a struct's bytes
        anywhere: the executor makes the store of an undefined scalar or vector to ``__global`` memory a use)."""
        if self.read_only and bool(mask.any()):  # even unchecked: the buffer may be the caller's own memory
            self.refuse_write(st, mask, off=off)
        flat, ok, span = self._prepare(st, off, mask, t, True)
        if st.misaligned is not None:  # (checks off)
            self._scattered_bytes(st, *self._misaligned_lanes(st, flat, ok), t, values)
            return
        esize = t.dtype.itemsize
        view = self.view(t.dtype)
        n_lanes = ok.shape[0]
        idx = per_lane(flat >> (esize.bit_length() - 1), (n_lanes,))
        vals = per_lane(values, (n_lanes, t.width) if t.width > 1 else (n_lanes,))
        n = st.active(ok)
        if n == 0:
            return
        if st.checks:
            self._check(st, flat, ok, t, write=True, atomic=atomic, values=vals, undef=undef, origin=origin)
        columns = self.lane_columns(off, t) if self.per == "lane" else None
        start = _consecutive(idx, span) if span is not None and t.width == 1 else None
        if columns is not None:  # each lane's own element at one offset: its column, no scatter
            if n == n_lanes:
                columns[...] = vals
            else:
                np.copyto(columns, vals, where=ok if t.width == 1 else ok[:, None])
        elif span is not None and start is not None:  # a run of consecutive elements: one masked copy, no scatter
            lo, hi = span
            np.copyto(view[start : start + hi - lo + 1], vals[lo : hi + 1], where=ok[lo : hi + 1])
        else:
            sel_idx, sel_vals = (idx, vals) if n == n_lanes else (idx[ok], vals[ok])
            if t.width > 1:
                sel_idx = sel_idx[:, None] + np.arange(t.width)
            view[sel_idx] = sel_vals
        self._counted(st, n, t, "written")

    def _gathered_bytes(self, st: LaunchState, lanes: Array, starts: Array, t: CType) -> Array:
        """The elements ``t`` at byte ``starts`` in ``data`` (one per lane of ``lanes``), read byte by byte: of every
        lane of the launch (0 in the others). With checks off, for accesses off their alignment (x86 CPUs, PoCL's
        and Oclgrind's, read any byte offset; the checks make them the ``misaligned_<space>`` finding)."""
        shape = (st.lanes.total, t.width) if t.width > 1 else (st.lanes.total,)
        values = np.zeros(shape, t.dtype)
        raw = self.data.reshape(-1)[starts[:, None] + np.arange(elem_bytes(t))]
        values[lanes] = np.ascontiguousarray(raw).view(t.dtype).reshape((lanes.size, *shape[1:]))
        self._counted(st, lanes.size, t, "read")
        return values

    def _scattered_bytes(self, st: LaunchState, lanes: Array, starts: Array, t: CType, values: Array) -> None:
        """Store ``values`` (one per lane of the launch, or one for all) of ``lanes`` at byte ``starts``, byte by
        byte, in lane order (``_gathered_bytes``)."""
        vals = per_lane(np.asarray(values, t.dtype), (st.lanes.total, t.width) if t.width > 1 else (st.lanes.total,))
        raw = np.ascontiguousarray(vals[lanes]).view(np.uint8).reshape(lanes.size, elem_bytes(t))
        self.data.reshape(-1)[starts[:, None] + np.arange(elem_bytes(t))] = raw
        self._counted(st, lanes.size, t, "written")

    @staticmethod
    def _off_alignment(st: LaunchState, flat: Array, t: CType) -> bool:
        """Whether, with checks off, some of the accesses ``load_at`` or ``store_at`` let through (``_placed``) lie
        off their alignment: byte by byte then (``_gathered_bytes``)."""
        return not st.checks and t.dtype.itemsize > 1 and bool((flat & (t.dtype.itemsize - 1)).any())

    def _misaligned_lanes(self, st: LaunchState, flat: Array, ok: Array) -> tuple[Array, Array]:
        """The lanes of an access that ``_prepare`` found misaligned (checks off: ``LaunchState.misaligned``) and
        the others it let through, with their byte offsets in ``data``."""
        lanes = np.flatnonzero(ok | st.misaligned)
        st.misaligned = None
        return lanes, np.broadcast_to(flat, ok.shape)[lanes]

    # ---------------------------------------------------------------------------------------------------------
    def _check(
        self,
        st: LaunchState,
        flat: Array,
        ok: Array,
        t: CType,
        write: bool,
        atomic: bool,
        values: Array | None = None,
        load: bool = False,
        defer: bool = False,
        undef: Array | None = None,
        origin: Uninit | None = None,
    ) -> None:
        """The uninitialized-read and race checks of an access; ``values``: what a plain store stores, per lane;
        ``load``: an atomic that stores nothing (``RaceTracker._race``); ``defer``: a read of bytes nobody wrote
        goes to ``st.deferred`` instead of being the finding; ``undef``: a store's undefined lanes (components),
        whose bytes it leaves uninitialized."""
        if not self._checked(undef):
            return
        n_lanes = ok.shape[0]
        flat = per_lane(flat, (n_lanes,))
        if st.active(ok) == n_lanes:
            lanes, starts = st.lanes.ids, flat
        else:
            lanes = ok.nonzero()[0]
            starts = flat[lanes]
        self._check_at(st, lanes, starts, t, write, atomic, values, load, defer, undef, origin)

    def _checked(self, undef: Array | None) -> bool:
        """Whether an access needs ``_check_at``: this memory has bytes nobody wrote, or the race tracker sees it
        (``undef``: a store's undefined lanes, which start the flags of bytes written)."""
        if undef is not None and self.init is None:  # every byte was initialized so far
            self.init = np.ones(self.data.size, dtype=bool)
        if undef is not None:
            self._all_init = False
        return (self.init is not None and not self._all_init) or self.raced

    def _check_at(
        self,
        st: LaunchState,
        lanes: Array,
        starts: Array,
        t: CType,
        write: bool,
        atomic: bool,
        values: Array | None = None,
        load: bool = False,
        defer: bool = False,
        undef: Array | None = None,
        origin: Uninit | None = None,
    ) -> None:
        """``_check`` of the accesses of ``lanes`` (in order) at byte ``starts`` in the region's data (``values``,
        ``undef``: one row per lane of the launch)."""
        races = self.raced
        n_lanes = st.lanes.total
        first_lanes, first_starts = lanes, starts
        esize = t.dtype.itemsize
        stored = None if values is None or not races else self._stored(values, lanes, starts, t)
        flags = None if self._all_init else self.init
        if t.width > 1 and (flags is not None or esize >= self.granule):  # one entry per component
            comps = np.arange(t.width) * esize
            starts = (starts[:, None] + comps).reshape(-1)
            lanes = np.repeat(lanes, t.width)
        if flags is not None:
            # one flag per byte, read and written as one unsigned word per element (accesses here are aligned)
            shift = esize.bit_length() - 1
            init = flags.view(np.dtype(f"u{esize}"))
            written = ALL_BYTES_WRITTEN[esize]
            if write:
                if undef is None:
                    self.mark_written(starts >> shift, esize)
                else:  # the undefined ones stay (become) uninitialized, carrying ``origin``
                    gone = np.broadcast_to(undef, (n_lanes, t.width) if t.width > 1 else (n_lanes,))[first_lanes]
                    kept = None if origin is None else origin.written_bytes(first_lanes, esize, t.width)
                    left = 0 if kept is None else kept.astype(init.dtype)  # (the bytes read unwritten: only they)
                    init[starts >> shift] = np.where(gone.reshape(-1), left, written).astype(init.dtype)
                    self._newly_written = True
                    if self.carrying is None:
                        self.carrying = np.zeros_like(self.init)
                        self.carried_at = np.full(flags.size, -1, np.int32)
                    holding = np.where(gone.reshape(-1), np.asarray(written ^ left, init.dtype), 0)
                    self.carrying.view(init.dtype)[starts >> shift] = holding
                    if origin is not None and (not self.carried or self.carried[-1] is not origin):
                        self.carried.append(origin)
                    held = starts[gone.reshape(-1)]
                    assert self.carried_at is not None
                    self.carried_at[held[:, None] + np.arange(esize)] = -1 if origin is None else len(self.carried) - 1
            else:
                missing = init[starts >> shift] != written
                if any_lane(missing) and defer:
                    carried = None
                    if self.carrying is not None and self.carried and self.carried_at is not None:
                        held = self.carrying.view(init.dtype)[starts >> shift][missing] == written
                        came = int(self.carried_at[int(starts[int(np.flatnonzero(missing)[0])])])  # (the first's)
                        carried = self.carried[came] if bool(held.all()) and came >= 0 else None
                    self._defer(st, first_lanes, first_starts, missing, t, carried)
                elif any_lane(missing):
                    k = int(np.flatnonzero(missing)[0])
                    at = int(starts[k]) % self.stride
                    gaps = self._unwritten(starts[k : k + 1], esize)
                    held = None if self.carrying is None else self._unwritten(starts[k : k + 1], esize, self.carrying)
                    what = f"read of uninitialized {self.description} ({esize} bytes at offset {at}"
                    what += f"{_unwritten_words(gaps, 0, esize, held)})"
                    raise st.fault(
                        f"uninitialized_{self.space}",
                        what,
                        int(lanes[k]),
                        at,
                        lanes[missing],
                        starts[missing] % self.stride,
                    )
        if races:
            spread = (starts, lanes) if starts is not first_starts else None
            self._track(st, first_starts, first_lanes, t, write, atomic, stored, load, spread)

    def _track(
        self,
        st: LaunchState,
        starts: Array,
        lanes: Array,
        t: CType,
        write: bool,
        atomic: bool = False,
        stored: Callable[[], tuple[Array, Array]] | None = None,
        load: bool = False,
        spread: tuple[Array, Array] | None = None,
    ) -> None:
        """Give the race tracker the elements ``lanes`` access at byte ``starts`` (one entry per element), in the
        granules it keeps (``_check``'s arguments); ``spread``: the same as one entry per component, where the
        caller has it."""
        esize = t.dtype.itemsize
        size = esize * t.width
        if self._compact:
            self.materialize(st)
        self._shadowed = True
        if esize < self.granule and not _whole(starts, size, self.granule):
            self.refine(st, esize)
        if self.granule > esize:  # a granule holds several whole components: one entry per granule covered
            starts, lanes, stored = _granules(starts, lanes, stored, size, self.granule)
        else:
            if t.width > 1:  # one entry per component
                if spread is None:
                    spread = (starts[:, None] + np.arange(t.width) * esize).reshape(-1), np.repeat(lanes, t.width)
                starts, lanes = spread
            if self.granule < esize:  # every record the element covers
                starts, lanes, stored = _granules(starts, lanes, stored, esize, self.granule)
        keys = (
            starts >> (self.granule.bit_length() - 1)
            if self.granule & (self.granule - 1) == 0
            else starts // self.granule
        )
        self._race(st, keys, lanes, write, atomic, stored, load)

    def plain_steps(self, st: LaunchState, seen: Array, flat: Array, t: CType, initialized: bool) -> bool:
        """Whether a batch's accesses of elements ``t`` at byte offsets ``seen`` (``flat``: the same with their
        rows' starts, ``rowed``) are all in bounds and aligned, and, where they read (``initialized``) with checks
        on, of written bytes: what each would be one by one without a finding (``batch_loops``, ``async_copy``)."""
        esize = t.dtype.itemsize
        if seen.size and (int(seen.min()) < 0 or int(seen.max()) > self.nbytes - elem_bytes(t)):
            return False
        if esize > 1 and seen.size and int(np.bitwise_or.reduce(seen, axis=None)) & (esize - 1):
            return False
        init = self.init if initialized and st.checks and not self._all_init else None
        if init is None:
            return True
        if t.width > 1:  # every component's word
            flat = (flat[:, None] + np.arange(t.width) * esize).reshape(-1)
        words = init.view(np.dtype(f"u{esize}"))[flat >> (esize.bit_length() - 1)]
        return not bool((words != ALL_BYTES_WRITTEN[esize]).any())

    def mark_written(self, idx: Array, esize: int) -> None:
        """The elements ``idx`` (in units of ``esize`` bytes) hold defined values now: their bytes initialized,
        carrying no undefined value (``_check_at``'s store; ``batch_loops``' batched one)."""
        if self.init is None or self._all_init:
            return
        word = np.dtype(f"u{esize}")
        self.init.view(word)[idx] = ALL_BYTES_WRITTEN[esize]
        self._newly_written = True
        if self.carrying is not None:
            self.carrying.view(word)[idx] = 0
        if self.space == "private":  # a private array filled once and read in a loop: no flags to look at after
            self._marked += idx.size * esize
            if self._marked >= self.data.size:  # (a look costs a pass over the flags: at most one per their size)
                self._marked = 0
                self._all_init = self._every_byte_written()

    def all_initialized(self) -> bool:
        """Whether every byte of every row holds a defined value (no access of it can read one nobody wrote): found
        by a pass over the flags where they are kept and not yet known to be all set (``_all_init``)."""
        if self.init is None or self._all_init:
            return True
        self._all_init = self._every_byte_written()
        return self._all_init

    def _every_byte_written(self) -> bool:
        """Whether every row's bytes (not the padding after them) are flagged initialized (``_all_init``)."""
        assert self.init is not None
        return bool(self.init.reshape(-1, self.stride)[:, : self.nbytes].all())

    def rowed(self, st: LaunchState, seen: Array, lanes: Array) -> Array:
        """Byte offsets ``seen`` of accesses by ``lanes`` in the region's data: with their rows' starts added
        (``row_starts``)."""
        starts = self.row_starts(st)
        return seen if starts is None else seen + starts[lanes]

    def load_steps(self, st: LaunchState, off: Array, mask: Array, t: CType, ids: Array | None = None) -> Array | None:
        """The scalars ``t`` at byte offsets ``off`` (one row per iteration of a loop, one column per lane, or per
        lane of ``ids``) that the lanes of ``mask`` read (one mask for every row, or one per row), in one pass
        (``batch_loops``), or None: some read is out of bounds, misaligned, of bytes nobody wrote, or of write-only
        memory; the loop runs iteration by iteration, and finds it. The reads are given to the race tracker,
        iteration after iteration. Entries no lane reads hold 0."""
        if self.write_only or t.width > 1:
            return None
        starts = self.row_starts(st)
        picked: Array | None
        if mask.ndim == 1 and ids is None:  # the same lanes in every iteration
            taken = np.flatnonzero(mask)
            every = taken.size == off.shape[1]
            rows_of = off if every else off[:, taken]
            picked = None if every else (np.arange(off.shape[0])[:, None] * off.shape[1] + taken).reshape(-1)
            lanes = np.tile(taken, off.shape[0])
            seen = rows_of.reshape(-1)
            flat = seen if starts is None else (rows_of + (starts if every else starts[taken])).reshape(-1)
        else:  # (iteration by iteration, each one's lanes in order; ``ids``: each column's lane)
            picked = np.flatnonzero(np.broadcast_to(mask, off.shape))
            lanes = picked % off.shape[1] if ids is None else ids[picked % off.shape[1]]
            seen = off.reshape(-1)[picked]
            flat = self.rowed(st, seen, lanes)
        if not self.plain_steps(st, seen, flat, t, initialized=True):
            return None
        shift = t.dtype.itemsize.bit_length() - 1
        values: Array
        if picked is None:
            values = self.view(t.dtype)[(flat >> shift).reshape(off.shape)]
        else:
            values = np.zeros(off.shape, t.dtype)
            values.reshape(-1)[picked] = self.view(t.dtype)[flat >> shift]
        if st.checks and self.raced and flat.size:
            self._track(st, flat, lanes, t, write=False)
        return values

    def _defer(
        self, st: LaunchState, lanes: Array, starts: Array, missing: Array, t: CType, carried: Uninit | None
    ) -> None:
        """Leave in ``st.deferred`` the lanes (components) of a read that found bytes nobody wrote: ``lanes`` read
        at byte ``starts``, ``missing`` per element read (lane by lane, a vector's components in a row); ``carried``:
        they hold an undefined value stored there, from that read."""
        n_lanes = st.lanes.total
        undef: Array
        if t.width > 1:
            undef = np.zeros((n_lanes, t.width), dtype=bool)
            undef[lanes] = missing.reshape(-1, t.width)
        else:
            undef = np.zeros(n_lanes, dtype=bool)
            undef[lanes] = missing
        if carried is not None:  # named by the read it came from; exact in the lane that read it (``__private``)
            st.deferred = (undef, carried if self.space == "private" else carried.computed())
            return
        size = t.dtype.itemsize
        width = missing.size // max(lanes.size, 1)
        if width > 1:  # a vector's components, a row per lane: each one's offset (``Uninit.picked``)
            rows = missing.reshape(lanes.size, width)
            missing = np.asarray(rows.any(axis=1))
            starts = starts[:, None] + np.arange(width) * size
        offsets = np.full((n_lanes, width) if width > 1 else n_lanes, -1, np.int64)  # (read every byte written: -1)
        offsets[lanes[missing]] = starts[missing] % self.stride
        unwritten = np.zeros(offsets.shape, np.uint64)
        unwritten[lanes[missing]] = self._unwritten(starts[missing].reshape(-1), size).reshape(-1, *offsets.shape[1:])
        stored = None
        if self.carrying is not None:  # (of them, those an undefined value was stored to)
            stored = np.zeros(offsets.shape, np.uint64)
            held = self._unwritten(starts[missing].reshape(-1), size, self.carrying)
            stored[lanes[missing]] = held.reshape(-1, *offsets.shape[1:])
        what = self.description
        origin = Uninit(st, f"uninitialized_{self.space}", what, st.line, offsets, size, unwritten, stored, True)
        st.deferred = (undef, origin)

    def _unwritten(self, starts: Array, size: int, carrying: Array | None = None) -> Array:
        """The bytes nobody wrote of the ``size``-byte elements at byte ``starts``, a bit each (``Uninit``); with
        ``carrying`` (``Region.carrying``), those that hold an undefined value stored there."""
        assert self.init is not None  # (bytes nobody wrote: flags to find them in)
        at = starts[:, None] + np.arange(size)
        return byte_bits(self.init[at] == 0 if carrying is None else carrying[at] != 0)

    def _stored(self, values: Array, lanes: Array, starts: Array, t: CType) -> Callable[[], tuple[Array, Array]]:
        """What a store by ``lanes`` at byte ``starts`` stores (``values``: one row per lane of the launch) and what
        memory holds there now, as unsigned words per entry (one per component), for the uniform-write test;
        computed only if writes conflict."""

        def bits() -> tuple[Array, Array]:
            esize = t.dtype.itemsize
            word = np.dtype(f"u{esize}")
            new = np.ascontiguousarray(values[lanes], dtype=t.dtype).view(word).reshape(-1)
            at = starts if t.width == 1 else (starts[:, None] + np.arange(t.width) * esize).reshape(-1)
            old = self.view(word)[at >> (esize.bit_length() - 1)]
            return new, old

        return bits

    def barrier(self, st: LaunchState, reached: Array, every: bool) -> None:
        """The work-groups flagged in ``reached`` (``every``: all of the launch's) passed a barrier. ``__local``
        memory belongs to one group, so its accesses before the barrier can no longer race with anything: their
        shadow rows are cleared (nothing to clear where nothing was recorded since every group passed the last)."""
        if self.space != "local":
            return
        if self._compact and not every:
            self.materialize(st)
        if self.init is not None and not self._all_init and self._newly_written:  # (else the flags are as they were)
            self._newly_written = False
            self._all_init = self._every_byte_written()
        if every and not self._shadowed and not self._compact:  # (the shadow as the last barrier left it: empty)
            return
        if every:
            self._compact.clear()
            self._shadowed = False
            self._pending_reads.clear()
            self._pending_size = 0
            self._written = False
        else:
            self._fold_reads()
        per_row = self.stride // self.granule
        for shadow in (self.w_lane, self.r_lane, self.a_lane, self.l_lane, self.r_first):
            if shadow is None:
                continue
            if every:
                shadow.fill(-1)
            else:
                shadow[: reached.size * per_row].reshape(reached.size, per_row)[reached] = -1


def _lanes_mask(st: LaunchState, lanes: Array) -> Array:
    """A lane mask of the launch with ``lanes`` set."""
    mask = np.zeros(st.lanes.total, dtype=bool)
    mask[lanes] = True
    return mask


def _consecutive(idx: Array, span: tuple[int, int]) -> int | None:
    """The first element when ``idx`` counts up by one from lane ``span[0]`` to lane ``span[1]``, else None."""
    lo, hi = span
    if idx.ndim != 1 or int(idx[hi]) - int(idx[lo]) != hi - lo:
        return None
    if hi > lo and not all_lanes(idx[lo + 1 : hi + 1] > idx[lo:hi]):
        return None
    return int(idx[lo])


def _unwritten_words(unwritten: Array | None, lane: int, size: int, stored: Array | None = None) -> str:
    """ "; bytes 4-7 of them never written" where only some of ``lane``'s ``size`` bytes were (Uninit.unwritten),
    and "; bytes 0-1 of them hold an undefined value stored there" for those of them an undefined value was stored
    to (``stored``)."""
    if unwritten is None:
        return ""
    every = (1 << size) - 1
    gaps, held = int(unwritten[lane]), 0 if stored is None else int(stored[lane]) & int(unwritten[lane])
    if held == every:
        return "; they hold an undefined value stored there"
    parts = [f"{_byte_runs(gaps & ~held, size)} of them never written"] if 0 < gaps & ~held < every else []
    if held:
        verb = "holds" if held & (held - 1) == 0 else "hold"
        parts.append(f"{_byte_runs(held, size)} of them {verb} an undefined value stored there")
    return "".join(f"; {part}" for part in parts)


def _byte_runs(bits: int, size: int) -> str:
    """The bytes ``bits`` names (bit k: byte k), in runs: "byte 3", "bytes 0-1 and 4"."""
    offsets = np.flatnonzero((bits >> np.arange(size)) & 1)
    cut = np.flatnonzero(np.diff(offsets) != 1) + 1
    runs = [f"{r[0]}-{r[-1]}" if r.size > 1 else f"{r[0]}" for r in np.split(offsets, cut)]
    words = runs[0] if len(runs) == 1 else f"{', '.join(runs[:-1])} and {runs[-1]}"
    return f"{'byte' if offsets.size == 1 else 'bytes'} {words}"
