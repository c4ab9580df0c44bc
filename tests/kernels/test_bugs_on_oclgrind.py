"""The planted-bug kernels (``corpus.BUGS``, ``bugs/*.cl``) under two sets of checks: the simulator's (through the
public HAL on ``sim``) and Oclgrind's own (its memory checker, its barrier-divergence check and its data-race and
uninitialized-value plugins). For every bug both must report the same kind of fault at the same source line; where
Oclgrind cannot detect the class the difference is a strict expected failure with the reason, so that a change on
either side shows up.

The simulator's side: ``set_backend("sim", hardware="wia-tiny", kernel_checks="strict")``, compile and launch the
bug kernel, expect the ``WiaError`` the check maps to, naming the line (``kernel.cl:<line>:``) and the fault in
words (strict: a uniform write, a lower-severity finding that by default only warns, raises too).

Oclgrind's side: Oclgrind reads its settings (``OCLGRIND_DATA_RACES``, ``OCLGRIND_UNINITIALIZED``,
``OCLGRIND_LOG``, ...) when its ICD loads, so each run is a subprocess that builds and launches the kernel with
PyOpenCL on the Oclgrind platform (``cldevices.CLDevice`` without padding: an out-of-bounds access must fall
outside the buffer) and writes Oclgrind's log to a file, which is parsed: the message (``Invalid write of size 4
at global memory address ...``), ``Kernel: ...``, the work-item (``Entity: Global(...)``) and the source lines
(``At line N of input.cl``). Only the plugin of the bug's class is enabled, so every report in the log must be of
that class. Unsafe bugs (out of bounds in ``__local``, a divergent barrier) run to completion under Oclgrind, an
interpreter that checks every access: that is checked too.

The memory checks of issue 16 compare as well: the use of a value read from uninitialized __private, __local or
never-written __global memory (both sides report the use, not the read: its store to memory, a branch on it; a
buffer without ``host_data`` is created without ``CL_MEM_COPY_HOST_PTR``), read-only and write-only buffers
(``Buffer.flags``: ``CL_MEM_READ_ONLY``/``CL_MEM_WRITE_ONLY``) and NULL dereferences (Oclgrind's memory checker: an
address below its first buffer, the same offsets from NULL as the simulator's).

Controls and known differences: correct kernels run clean under every Oclgrind detector, and kernels with
atomics beside plain accesses in other barrier intervals under its race detector; an atomic and a plain access
to one address in one barrier interval are a race on both sides (``race_atomic_plain``: ``float_atomic_add``
with a plain first load, the difference this file used to pin); a barrier orders only the address spaces its
flags name, on both sides (``race_fence_space_*``); a uniform write (every writer stores the same value) is
suppressed by Oclgrind by default and reported as a write-write race with ``OCLGRIND_UNIFORM_WRITES=1``, which
is how it is compared with the simulator's ``uniform_write`` finding (a warning by default: also checked).
Oclgrind has no step limit (``runaway_loop``), and its uninitialized-value plugin cannot run two correct corpus
kernels (strict expected failures, with the reasons).

Skipped, with the reason, without PyOpenCL or Oclgrind (the simulator's side runs without them).
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

import wia_hal as wia
from wia_hal.runtime import runtime

from . import cldevices, corpus
from .corpus import BUGS, BugCase

ROOT = Path(__file__).resolve().parents[2]
SEED = 20250611
MAX_ERRORS = 16
"""Oclgrind stops reporting after this many errors (by default it reports every one: thousands for some bugs)."""

RUNAWAY_WAIT_S = 3.0
"""How long a kernel that never ends runs under Oclgrind before it is killed (every other bug ends in well under a
second of interpretation)."""


# -- what each check is called on each side -------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckClass:
    """One check of the simulator (``corpus.CHECKS``) and how each side reports it.

    ``error`` and ``sim_message`` (a regex, after ``kernel.cl:<line>:``): the simulator's ``WiaError``.
    ``plugin``: the Oclgrind settings that turn its detector on (its memory checker and barrier check are always
    on); ``oclgrind``: a regex of Oclgrind's message; ``why_not``: when Oclgrind has no detector of this class,
    why (the bug is then a strict expected failure)."""

    error: type[wia.WiaError]
    sim_message: str
    oclgrind: str = ""
    plugin: dict[str, str] = field(default_factory=dict)
    why_not: str = ""


CLASSES: dict[str, CheckClass] = {
    "out_of_bounds_global": CheckClass(
        wia.InvalidMemoryError,
        r"out-of-bounds (?P<access>read|write) of \d+ bytes .* __global buffer",
        r"Invalid (?P<access>read|write) of size \d+ at global memory address",
    ),
    # an element off its type's alignment (OpenCL C 1.2 6.1.5); Oclgrind says load or store where the simulator says
    # read or write
    "misaligned_global": CheckClass(
        wia.InvalidMemoryError,
        r"misaligned (?P<access>read|write) of \d+ bytes at offset \d+ of __global buffer",
        r"Invalid memory (?P<access>load|store) - (?:source|destination) pointer is not aligned to the pointed type",
    ),
    # Oclgrind keeps __constant buffers in its global memory: the message says global, the instruction
    # addresses LLVM's constant address space 2 (checked below)
    "out_of_bounds_constant": CheckClass(
        wia.InvalidMemoryError,
        r"out-of-bounds (?P<access>read) of \d+ bytes .* __constant buffer",
        r"Invalid (?P<access>read) of size \d+ at global memory address",
    ),
    "out_of_bounds_local": CheckClass(
        wia.InvalidMemoryError,
        r"out-of-bounds (?P<access>read|write) (?:of \d+ bytes|at index -?\d+) .*__local variable",
        r"Invalid (?P<access>read|write) of size \d+ at local memory address|Index \(\d+\) exceeds static array size",
    ),
    # the simulator checks an index against the declared array (a member array too); Oclgrind checks the access
    # against the whole private allocation, and a constant-size array's index where its type is still known
    # ("Index (4) exceeds static array size"): the planted bugs leave both the array and the allocation
    "out_of_bounds_private": CheckClass(
        wia.InvalidMemoryError,
        r"out-of-bounds (?P<access>read|write) (?:of \d+ bytes|at index -?\d+) .*__private",
        r"Invalid (?P<access>read|write) of size \d+ at private memory address|"
        r"Index \(\d+\) exceeds static array size",
    ),
    "race_local": CheckClass(
        wia.InvalidKernelError,
        r"data race: (?P<access>read|write|atomic update) of __local .* conflicts with an? "
        r"(?P<other>read|write|atomic update)",
        r"(?P<kinds>Read-write|Write-write) data race at local memory address",
        {"OCLGRIND_DATA_RACES": "1"},
    ),
    "race_global": CheckClass(
        wia.InvalidKernelError,
        r"data race: (?P<access>read|write|atomic update) of __global .* conflicts with an? "
        r"(?P<other>read|write|atomic update)",
        r"(?P<kinds>Read-write|Write-write) data race at global memory address",
        {"OCLGRIND_DATA_RACES": "1"},
    ),
    "barrier_divergence": CheckClass(
        wia.InvalidKernelError,
        r"barrier reached by (?P<reached>\d+) of the (?P<of>\d+) work-items of the work-group",
        r"Work-group divergence detected \(barrier\)",
    ),
    "uninitialized_local": CheckClass(
        wia.InvalidMemoryError,
        r"read of uninitialized __local variable",
        # Oclgrind reports the use of the value read, as the simulator does: its store to global memory
        # ("Uninitialized value written to ..."), or a branch on it ("Controlflow depends on uninitialized value")
        r"[Uu]ninitialized value",
        {"OCLGRIND_UNINITIALIZED": "1"},
    ),
    # -- memory checks (issue 16): Oclgrind reports the use of an uninitialized value (the store of what was read
    # to global memory, on the line of the read, or a branch on it), not the read itself
    "uninitialized_private": CheckClass(
        wia.InvalidMemoryError,
        r"read of uninitialized __private (variable|array)",
        r"Uninitialized value written to global memory|Controlflow depends on uninitialized value",
        {"OCLGRIND_UNINITIALIZED": "1"},
    ),
    "uninitialized_global": CheckClass(
        wia.InvalidMemoryError,
        r"read of uninitialized __global buffer",
        r"Uninitialized value written to global memory",
        {"OCLGRIND_UNINITIALIZED": "1"},
    ),
    "write_to_read_only": CheckClass(
        wia.InvalidMemoryError,
        r"write to read-only __global buffer",
        r"Invalid write to read-only buffer",
    ),
    "read_from_write_only": CheckClass(
        wia.InvalidMemoryError,
        r"read of write-only __global buffer",
        r"Invalid read from write-only buffer",
    ),
    # Oclgrind's memory checker: its global addresses carry the buffer's number above bit 48, so NULL + offset is
    # an address below 2**48 (at most 12 hex digits), which no buffer holds
    "null_pointer": CheckClass(
        wia.InvalidMemoryError,
        r"(?P<access>read|write) of \d+ bytes through a NULL pointer",
        r"Invalid (?P<access>read|write) of size \d+ at global memory address 0x(?P<address>[0-9a-f]{1,12})$",
    ),
    # Oclgrind suppresses uniform writes unless OCLGRIND_UNIFORM_WRITES is set; then they are write-write races
    "uniform_write": CheckClass(
        wia.InvalidKernelError,
        r"uniform write: write of __global .* stores the value another work-item stores there",
        r"Write-write data race at global memory address",
        {"OCLGRIND_DATA_RACES": "1", "OCLGRIND_UNIFORM_WRITES": "1"},
    ),
    "step_limit": CheckClass(
        wia.TimedOutError,
        r"kernel '\w+' exceeded its step limit of [\d,]+ lockstep steps",
        why_not="Oclgrind 21.10 has no step limit or watchdog: a kernel that never ends is interpreted until the "
        "process is killed, with nothing in its log",
    ),
    # issue 16: async copies. Oclgrind checks a copy's arguments against the first work-item's as each work-item
    # reaches it, and reports at the copy's line; a work-group that ends with an event it never waited for is
    # reported for the group's last work-item at the kernel's last line (its `ret`), where the simulator reports it
    "async_copy_divergence": CheckClass(
        wia.InvalidKernelError,
        r"work-group divergence in 'async_work_group_copy': arguments that differ between the work-items of a group "
        r"\((?P<args>[a-z ,]+)\)",
        r"Work-group divergence detected \(async copy\)",
    ),
    "unwaited_event": CheckClass(
        wia.InvalidKernelError,
        r"work-group finished without waiting for the event of the async copy at line \d+",
        r"Work-item finished without waiting for events",
    ),
    # a wait for an event no copy of the group has in flight: reported at the wait for the group's first work-item
    "invalid_wait_event": CheckClass(
        wia.InvalidKernelError,
        r"wait_group_events for (no event \(0\)|event \d+), which is no async copy's in flight in the work-group",
        r"Invalid wait event",
    ),
}


def test_every_check_has_a_class() -> None:
    assert set(CLASSES) == set(corpus.CHECKS)


# -- the simulator's side ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SimFinding:
    error: wia.WiaError
    check: str
    line: int
    kernel: str
    work_item: tuple[int, int, int] | None
    details: dict[str, str]
    address_range: tuple[int, int] | None = None


def sim_finding(bug: BugCase) -> SimFinding:
    """Launch the bug on the simulator through the HAL; the fault it must report, checked against the manifest."""
    __tracebackhide__ = True
    wia.set_backend("sim", hardware="wia-tiny", kernel_step_limit=20_000, kernel_checks="strict")
    cls = CLASSES[bug.check]
    try:
        with pytest.raises(wia.WiaError) as info:
            cldevices.run_launch_hal(bug, bug.draw(np.random.default_rng(SEED)))
    finally:
        for ctx in list(runtime().contexts):
            ctx.destroy()
    error = info.value
    assert isinstance(error, cls.error), f"{bug.name}: {type(error).__name__}: {error}"
    text = str(error)
    assert text.startswith(f"kernel.cl:{bug.line}:"), f"{bug.name}: the message names another line: {text}"
    found = re.search(cls.sim_message, text)
    assert found, f"{bug.name}: the message does not describe {bug.check} ({cls.sim_message!r}): {text}"
    cause = error.cause  # the executor's KernelFault: the check's own name (kept off the traceback)
    assert getattr(cause, "check", None) == bug.check and getattr(cause, "line", None) == bug.line, repr(cause)
    assert getattr(cause, "kernel", None) == bug.kernel
    item = getattr(cause, "work_item", None)
    return SimFinding(error, bug.check, bug.line, bug.kernel, item, found.groupdict(), cause.address_range)


@pytest.mark.parametrize("bug", BUGS, ids=lambda b: b.name)
def test_the_simulator_reports_the_bug_through_the_hal(bug: BugCase) -> None:
    sim_finding(bug)


# -- Oclgrind's side --------------------------------------------------------------------------------------------------

RUNNER = """
import sys
import numpy as np
from tests.kernels import cldevices, corpus

(device,) = [d for d in cldevices.usable_devices() if d.key == "oclgrind"]
for name in sys.argv[2:]:
    case = corpus.BUGS_BY_NAME.get(name) or corpus.CASES_BY_NAME[name]
    launch = case.draw(np.random.default_rng(int(sys.argv[1])))
    device.build(case)
    print("launching", name, flush=True)
    outputs = device.run_launch(case, launch)
    if isinstance(case, corpus.KernelCase):
        print("failures", name, case.check(launch, outputs), flush=True)
    print("finished", name, flush=True)
"""
"""Run corpus cases or bugs (by name) on the Oclgrind device, printing ``launching``/``finished`` per kernel."""


@dataclass(frozen=True)
class Report:
    """One error of Oclgrind's log: its first line, the kernel, the work-items (``Global(x,y,z)``) and source
    lines it names, and the whole text."""

    message: str
    kernel: str
    work_items: tuple[tuple[int, int, int], ...]
    lines: tuple[int, ...]
    text: str


@dataclass(frozen=True)
class OclgrindRun:
    reports: list[Report]
    stdout: str
    finished: bool
    """The process printed ``finished`` for every kernel and exited with status 0."""
    timed_out: bool
    log: str


def parse_log(text: str) -> list[Report]:
    """Oclgrind's log as reports: each starts at a line without indentation and runs to the next one; lines such
    as "Oclgrind: 16 errors generated - suppressing further errors" are not reports."""
    reports: list[Report] = []
    blocks: list[list[str]] = []
    for line in text.splitlines():
        if line.strip() and not line[0].isspace():
            blocks.append([line])
        elif blocks:
            blocks[-1].append(line)
    for block in blocks:
        head, body = block[0].strip(), "\n".join(block)
        if head.startswith("Oclgrind:"):
            continue
        kernel = re.search(r"Kernel:\s+(\w+)", body)
        items = re.findall(r"Global\((\d+),(\d+),(\d+)\)", body)
        reports.append(
            Report(
                head,
                kernel[1] if kernel else "",
                tuple((int(x), int(y), int(z)) for x, y, z in items),
                tuple(int(n) for n in re.findall(r"At line (\d+) ", body)),
                body,
            )
        )
    return reports


def run_on_oclgrind(
    names: list[str], plugin: dict[str, str], log: Path, *, kill_after_s: float | None = None
) -> OclgrindRun:
    """Build and launch the named kernels on Oclgrind in a subprocess with ``plugin``'s settings and the log in
    ``log``. ``kill_after_s``: the kernel is expected not to end; kill the process that long after it starts."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OCLGRIND_")}
    env.update(
        WIA_OPENCL_DEVICE="oclgrind",
        OCLGRIND_LOG=str(log),
        OCLGRIND_MAX_ERRORS=str(MAX_ERRORS),
        OCLGRIND_NUM_THREADS="1",  # one interpreter thread: a deterministic order of work-groups and reports
        PYTHONPATH=os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
        **plugin,
    )
    command = [sys.executable, "-c", RUNNER, str(SEED), *names]
    timed_out = False
    if kill_after_s is None:
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
        stdout, status = done.stdout + done.stderr, done.returncode
    else:
        with subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        ) as process:
            assert process.stdout is not None
            ready, _, _ = select.select([process.stdout], [], [], 300)  # "launching <name>": the kernel starts
            first = process.stdout.readline() if ready else ""
            deadline = time.monotonic() + kill_after_s
            while process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            if process.poll() is None:
                timed_out = True
                process.kill()
            rest, _ = process.communicate()
            stdout, status = first + rest, process.returncode
    text = log.read_text() if log.exists() else ""
    finished = status == 0 and all(f"finished {name}" in stdout for name in names)
    return OclgrindRun(parse_log(text), stdout, finished, timed_out, text)


class OclgrindMissed(AssertionError):
    """Oclgrind did not report a fault of the bug's class (an expected difference where it has no detector)."""


def _param(bug: BugCase) -> object:
    why = CLASSES[bug.check].why_not
    marks = [pytest.mark.xfail(reason=why, raises=OclgrindMissed, strict=True)] if why else []
    return pytest.param(bug, id=bug.name, marks=marks)


@pytest.fixture(scope="module")
def oclgrind() -> None:
    if not any(d.key == "oclgrind" for d in cldevices.usable_devices()):
        pytest.skip(f"no usable Oclgrind device: {cldevices.unusable_reasons() or 'not installed'}")


@pytest.mark.parametrize("bug", [_param(b) for b in BUGS])
def test_oclgrind_reports_what_the_simulator_reports(oclgrind: None, bug: BugCase, tmp_path: Path) -> None:
    sim = sim_finding(bug)
    cls = CLASSES[bug.check]
    runs_forever = bug.check == "step_limit"
    run = run_on_oclgrind(
        [bug.name], cls.plugin, tmp_path / "oclgrind.log", kill_after_s=RUNAWAY_WAIT_S if runs_forever else None
    )
    where = (
        f"{bug.name} ({bug.check} at line {bug.line}); Oclgrind's output:\n{run.stdout[-2000:]}\nlog:\n{run.log[:3000]}"
    )
    if runs_forever:
        assert f"launching {bug.name}" in run.stdout, where
        assert run.timed_out or run.reports, f"the kernel ended under Oclgrind, without a report: {where}"
        if run.timed_out and not run.reports:
            raise OclgrindMissed(f"{cls.why_not}; killed after {RUNAWAY_WAIT_S} s. {where}")
    else:
        # the unsafe bugs too: an interpreter checks every access, so the process ends normally
        assert run.finished, f"the kernel did not run to completion under Oclgrind: {where}"
    assert cls.oclgrind, f"Oclgrind now reports {bug.check}: give CLASSES[{bug.check!r}] its message. {where}"
    assert run.reports, f"Oclgrind reported nothing: {where}"
    strays = [r.message for r in run.reports if not re.search(cls.oclgrind, r.message)]
    assert not strays, f"reports of another class {strays}: {where}"
    assert {r.kernel for r in run.reports} == {bug.kernel}, where
    lines = {n for r in run.reports for n in r.lines}
    assert lines - set(bug.maybe_lines) == {bug.line, *bug.related_lines}, (
        f"Oclgrind names lines {sorted(lines)}: {where}"
    )
    found = [m for r in run.reports if (m := re.search(cls.oclgrind, r.message))]
    words = {"load": "read", "store": "write"}
    accesses = {words.get(a, a) for m in found if (a := (m.groupdict().get("access") or "").lower())}
    if bug.check.startswith(("out_of_bounds", "misaligned")) or bug.check == "null_pointer":  # the same access
        assert accesses == {sim.details["access"]}, f"the simulator reports a {sim.details['access']}: {where}"
    if bug.check == "null_pointer":  # the same offsets from NULL
        assert sim.address_range is not None
        lo, hi = sim.address_range
        assert all(lo <= int(m["address"], 16) <= hi for m in found), f"the simulator: {lo} to {hi}: {where}"
    if bug.check == "out_of_bounds_constant":  # the load addresses LLVM's constant address space
        assert all("addrspace(2)" in r.text for r in run.reports), where
    if "other" in sim.details:  # races: the same pair of accesses
        pair = {sim.details["access"], sim.details["other"]}
        assert {m["kinds"] for m in found} == {"Write-write" if pair == {"write"} else "Read-write"}, where
    if bug.check == "barrier_divergence":  # the same number of work-items at the barrier
        counts = {tuple(re.findall(r"Only (\d+) out of (\d+) work-items", r.text)) for r in run.reports}
        assert counts == {((sim.details["reached"], sim.details["of"]),)}, where
    offenders = {item for r in run.reports for item in r.work_items}
    if len(offenders) == 1:  # a single work-item at fault: the same one
        assert offenders == {sim.work_item}, f"the simulator names work-item {sim.work_item}: {where}"


# -- controls: correct kernels, and a difference of definitions -------------------------------------------------------

CLEAN = ["reduce_sum", "scan_blelloch", "transpose_local", "histogram_local", "pair_sums"]
"""Correct corpus kernels with __local memory, barriers and __local atomics."""


def test_oclgrind_finds_nothing_in_correct_kernels(oclgrind: None, tmp_path: Path) -> None:
    """With every detector on, Oclgrind reports nothing for correct kernels (the agreements above are not those
    of a checker that flags everything), and their results are right."""
    plugins = {"OCLGRIND_DATA_RACES": "1", "OCLGRIND_UNINITIALIZED": "1"}
    run = run_on_oclgrind(CLEAN, plugins, tmp_path / "oclgrind.log")
    assert run.finished, run.stdout[-2000:]
    assert not run.reports, run.log[:3000]
    for name in CLEAN:
        assert f"failures {name} []" in run.stdout, run.stdout[-2000:]


ATOMICS_CLEAN = ["float_atomic_add", "count_positive_groups", "histogram_global", "reduce_atomic_int"]
"""Correct corpus kernels with atomics: beside plain accesses only in other barrier intervals (or by the same
work-item), with mem_fence, read_mem_fence and write_mem_fence."""


def test_neither_side_finds_a_race_in_correct_kernels_with_atomics(oclgrind: None, tmp_path: Path) -> None:
    """``float_atomic_add`` reads its bin with ``atomic_add(p, 0)`` before the compare-and-swap loop (its plain
    load was a race on both sides: ``race_atomic_plain``); the others mix atomics and plain accesses across
    barriers. Both checkers find nothing, and the results are right."""
    wia.set_backend("sim", hardware="wia-tiny", kernel_checks="strict")
    try:
        for name in ATOMICS_CLEAN:
            case = corpus.CASES_BY_NAME[name]
            launch = case.draw(np.random.default_rng(SEED))
            assert not case.check(launch, cldevices.run_launch_hal(case, launch)), name
    finally:
        for ctx in list(runtime().contexts):
            ctx.destroy()
    run = run_on_oclgrind(ATOMICS_CLEAN, {"OCLGRIND_DATA_RACES": "1"}, tmp_path / "oclgrind.log")
    assert run.finished, run.stdout[-2000:]
    assert not run.reports, run.log[:3000]
    for name in ATOMICS_CLEAN:
        assert f"failures {name} []" in run.stdout, run.stdout[-2000:]


def test_a_uniform_write_is_benign_by_default_on_both_sides(oclgrind: None, tmp_path: Path) -> None:
    """Without strict checks the simulator warns (``KernelFindingWarning``, kept on the launch record) and the
    kernel's writes land; Oclgrind's race detector, without ``OCLGRIND_UNIFORM_WRITES``, reports nothing."""
    bug = corpus.BUGS_BY_NAME["uniform_write"]
    launch = bug.draw(np.random.default_rng(SEED))
    wia.set_backend("sim", hardware="wia-tiny")
    try:
        with pytest.warns(wia.KernelFindingWarning, match=rf"kernel.cl:{bug.line}: uniform write"):
            outputs = cldevices.run_launch_hal(bug, launch)
    finally:
        for ctx in list(runtime().contexts):
            ctx.destroy()
    assert outputs["found"].tolist() == [1]
    run = run_on_oclgrind([bug.name], {"OCLGRIND_DATA_RACES": "1"}, tmp_path / "oclgrind.log")
    assert run.finished and not run.reports, f"{run.stdout[-2000:]}\nlog:\n{run.log[:3000]}"


def test_the_log_parser() -> None:
    log = """
Invalid write of size 4 at global memory address 0x2000000000d84
\tKernel: fill_ramp
\tEntity: Global(865,0,0) Local(33,0,0) Group(13,0,0)
\t  store float %mul, float addrspace(1)* %arrayidx, align 4
\tAt line 10 (column 14) of input.cl:
\t  y[i] = delta * (float)i;     // FAULT
\t

Read-write data race at local memory address 0x1000000000004
\tKernel: neighbour_diff
\t
\tFirst entity:  Global(1,0,0) Local(1,0,0) Group(0,0,0)
\tAt line 13 (column 15) of input.cl:
\tSecond entity: Global(0,0,0) Local(0,0,0) Group(0,0,0)
\tAt line 15 (column 40) of input.cl:

Oclgrind: 2 errors generated - suppressing further errors
"""
    first, second = parse_log(log)
    assert first.message == "Invalid write of size 4 at global memory address 0x2000000000d84"
    assert (first.kernel, first.work_items, first.lines) == ("fill_ramp", ((865, 0, 0),), (10,))
    assert (second.kernel, second.work_items, second.lines) == ("neighbour_diff", ((1, 0, 0), (0, 0, 0)), (13, 15))
    assert re.search(CLASSES["race_local"].oclgrind, second.message)
    assert not re.search(CLASSES["race_global"].oclgrind, second.message)


UNINITIALIZED_LIMITS = {
    "control_flow": "Oclgrind 21.10's uninitialized-value plugin stops with a fatal error on LLVM's `freeze` "
    "instruction (Uninitialized.cpp: Unsupported instruction: freeze): the kernel never runs",
    "float4_geometry": "Oclgrind 21.10 crashes (SIGSEGV) in this float4 kernel with its uninitialized-value plugin on",
}
"""Correct corpus kernels that Oclgrind's uninitialized-value plugin cannot check: why that plugin is no oracle for
every kernel (the planted ``uninitialized_local`` bug above is one it handles)."""


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(reason=why, raises=AssertionError, strict=True))
        for n, why in UNINITIALIZED_LIMITS.items()
    ],
)
def test_oclgrind_checks_a_correct_kernel_for_uninitialized_values(oclgrind: None, name: str, tmp_path: Path) -> None:
    run = run_on_oclgrind([name], {"OCLGRIND_UNINITIALIZED": "1"}, tmp_path / "oclgrind.log")
    assert run.finished and not run.reports, f"{run.stdout[-1000:]}\nlog:\n{run.log[:1500]}"
    assert f"failures {name} []" in run.stdout, run.stdout[-1000:]
