"""Loops that cannot end (``wia_sim/kernels/progress.py``): an iteration that leaves every variable and every memory
object as it found them repeats forever, so the simulator reports it as soon as it sees it, naming the work-items it
waits for, instead of running to the step limit minutes later. The clSPARSE probe found one: ``csrmv_adaptive`` with
``-DEXTENDED_PRECISION`` spins in one work-group on a flag another work-group sets in the other side of a branch,
which PoCL 3.1 and Oclgrind 21.10 run to the end and the lockstep simulator cannot. Where the caller can put the
buffers back (the HAL's sim backend, ``wia-sim kernel``), such a launch runs again with its work-groups one at a
time, in order, as Oclgrind runs them, and says so in a lower-severity ``forward_progress`` finding."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

import wia_hal as wia
from wia_sim.cli import main as sim_main
from wia_sim.kernels import compile_source, progress
from wia_sim.kernels.executor import KernelTimeout, RunResult, run_kernel
from wia_sim.kernels.lanes import Geometry

ACROSS_GROUPS = """__kernel void k(__global int* flag, __global int* out, __global int* started) {
    atomic_inc(started);
    if (get_local_id(0) == 0) {
        if (get_group_id(0) == WAITER) {
            while (atomic_add(flag, 0) == 0)
                ;
            out[WAITER] = 1;
        } else {
            atomic_xchg(flag, 1);
            out[1 - WAITER] = 1;
        }
    }
}
"""


def _run(
    source: str,
    args: list[np.ndarray],
    global_size: int,
    local_size: int,
    checks: bool = True,
    restorable: bool = False,
) -> RunResult:
    program = compile_source(source)
    raw = [a.view(np.uint8).reshape(-1) for a in args]
    before = [a.copy() for a in raw]

    def restore() -> None:
        for live, copy in zip(raw, before, strict=True):
            live[:] = copy

    geometry = Geometry((global_size, 1, 1), (local_size, 1, 1))
    return run_kernel(
        program, "k", raw, geometry, step_limit=10_000_000, checks=checks, restore=restore if restorable else None
    )


def _buffers() -> list[np.ndarray]:
    """ACROSS_GROUPS's flag, out and started."""
    return [np.zeros(1, np.int32), np.zeros(2, np.int32), np.zeros(1, np.int32)]


@pytest.mark.parametrize("waiter", [0, 1])
@pytest.mark.parametrize("checks", [True, False])
def test_a_work_group_waiting_for_another_is_reported_at_once(waiter: int, checks: bool) -> None:
    source = ACROSS_GROUPS.replace("WAITER", str(waiter))
    with pytest.raises(KernelTimeout) as info:
        _run(source, _buffers(), 2, 1, checks)
    message = str(info.value)
    assert info.value.check == "step_limit" and info.value.line == 5
    assert info.value.waits_for == (1 - waiter,)
    assert info.value.work_item == info.value.group == (waiter, 0, 0) and info.value.work_items == 1
    assert "never leaves this loop: an iteration changed no variable and no memory" in message
    assert f"(1 work-item in it, of work-group {waiter})" in message
    assert f"Of those, work-group {1 - waiter} is not the loop's: OpenCL C 1.2 promises" in message
    assert "while (atomic_add(flag, 0) == 0)" in message


def test_a_work_item_waiting_for_another_of_its_group() -> None:
    source = """__kernel void k(__global volatile int* flag) {
    if (get_local_id(0) < 3) {
        while (*flag != 7)
            ;
    } else {
        *flag = 7;
    }
}"""
    with pytest.raises(KernelTimeout) as info:
        _run(source, [np.zeros(1, np.int32)], 8, 8)
    message = str(info.value)
    assert "(3 work-items in it, of work-group 0). 5 other work-items are not in it" in message
    assert "not the loop's" not in message


def test_a_loop_whose_condition_nothing_changes() -> None:
    source = """__kernel void k(__global int* out, int n) {
    int i = 0;
    while (n > 0) {
        out[get_global_id(0)] = i;
    }
}"""
    program = compile_source(source)
    with pytest.raises(KernelTimeout) as info:
        run_kernel(program, "k", [np.zeros(4, np.int32).view(np.uint8), np.int32(1)], Geometry((4, 1, 1), (4, 1, 1)))
    assert "never leaves this loop" in str(info.value) and "not in it" not in str(info.value)


def test_a_long_loop_that_changes_something_runs_to_its_end() -> None:
    """The state compared at iterations 256, 512, ... differs: nothing is reported, whether the change is in a
    variable or in memory only."""
    source = """__kernel void k(__global int* out, __global int* counter) {
    int i = 0;
    while (i < 3000) i++;
    out[get_global_id(0)] = i;
    while (atomic_inc(counter) < 5000)
        ;
}"""
    out, counter = np.zeros(4, np.int32), np.zeros(1, np.int32)
    _run(source, [out, counter], 4, 4)
    assert out.tolist() == [3000] * 4 and counter[0] >= 5000


@pytest.mark.parametrize("checks", [True, False])
def test_run_again_group_by_group_a_wait_for_an_earlier_group_ends(checks: bool) -> None:
    """Work-group 1 waits for work-group 0: run in order, 0 sets the flag before 1 starts. The first, lockstep run's
    writes are undone (``started`` counts each work-item once) and the launch's finding says what it relied on."""
    flag, out, started = buffers = _buffers()
    result = _run(ACROSS_GROUPS.replace("WAITER", "1"), buffers, 2, 1, checks, restorable=True)
    assert out.tolist() == [1, 1] and flag[0] == 1 and started[0] == 2
    note = result.findings[0]
    assert note.check == "forward_progress" and note.line == 5 and len(result.findings) == 1
    assert note.work_item == note.group == (1, 0, 0) and (note.work_items, note.groups) == (1, 1)
    assert str(note).startswith("kernel.cl:5: kernel 'k' waits in this loop for work-group 0, which makes no progress")
    assert "it ran again with its work-groups one at a time, in order (as Oclgrind runs them), and ended" in str(note)
    assert "while (atomic_add(flag, 0) == 0)" in str(note)


def test_run_again_group_by_group_a_wait_for_a_later_group_is_reported() -> None:
    with pytest.raises(KernelTimeout) as info:
        _run(ACROSS_GROUPS.replace("WAITER", "0"), _buffers(), 2, 1, restorable=True)
    message = str(info.value)
    assert "never leaves this loop" in message and "(1 work-item in it, of work-group 0)" in message
    assert "The launch ran its work-groups one at a time, in order, as Oclgrind does" in message
    assert "1 later work-group had not started" in message
    assert info.value.waits_for == ()


BROKEN_OUT = """void wait_for(volatile __global int* flags, int g) {
    while (1) {
        if (g == 0 || atomic_or(&flags[g - 1], 0))
            break;
    }
}

__kernel void k(volatile __global int* flags, __global int* out) {
    const int g = get_group_id(0);
    wait_for(flags, g);
    atomic_xchg(&out[g], g == 0 ? 1 : atomic_or(&out[g - 1], 0) + 1);
    atomic_xchg(&flags[g], 1);
}
"""
"""Group 0 leaves the loop by ``break`` at once and sets its flag after the call: it waits for the loop to end,
as the groups still in it wait for its flag."""


@pytest.mark.parametrize("checks", [True, False])
def test_work_items_that_broke_out_of_the_loop_are_waited_for_too(checks: bool) -> None:
    flags, out = np.zeros(4, np.int32), np.zeros(4, np.int32)
    result = _run(BROKEN_OUT, [flags, out], 4, 1, checks, restorable=True)
    assert out.tolist() == [1, 2, 3, 4] and flags.tolist() == [1] * 4
    assert [f.check for f in result.findings] == ["forward_progress"]
    assert "kernel.cl:2: kernel 'k' waits in this loop for work-group 0," in str(result.findings[0])


GLOBAL_BARRIER_THEN_LOCK = """__kernel void k(volatile __global int* count, volatile __global int* lock,
                __global int* n) {
    if (get_local_id(0) == 0) {
        atomic_inc(count);
        while (atomic_or(count, 0) < (int)get_num_groups(0))
            ;
        while (atomic_cmpxchg(lock, 0, 1) != 0)
            ;
        n[0] += 1;
        atomic_xchg(lock, 0);
    }
}
"""
"""Every group waits at a barrier made of a counter (which lockstep passes: every group counts at once), then for
a lock (which lockstep cannot pass: the winner waits at the loop's end for the others); in order the first group
waits at the counter for groups that have not started. PoCL 3.1 and Oclgrind 21.10 hang on it too (120 s)."""


def test_a_rerun_that_hangs_too_is_the_error_and_its_note_says_so() -> None:
    with pytest.raises(KernelTimeout) as info:
        _run(GLOBAL_BARRIER_THEN_LOCK, [np.zeros(1, np.int32) for _ in range(3)], 3, 1, restorable=True)
    assert info.value.line == 5 and "2 later work-groups had not started" in str(info.value)
    (note,) = info.value.earlier
    assert note.check == "forward_progress" and note.line == 7
    assert (
        str(note)
        .splitlines()[0]
        .endswith("in order (as Oclgrind runs them), which did not end either (the launch's error)")
    )


def test_a_launch_too_large_to_run_again_group_by_group_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """(The budget lowered: the real one, 2**28 work-groups times work-items, takes seconds to reach.)"""
    monkeypatch.setattr(progress, "IN_ORDER_BUDGET", 3)
    with pytest.raises(KernelTimeout) as info:
        _run(ACROSS_GROUPS.replace("WAITER", "1"), _buffers(), 2, 1, restorable=True)
    assert info.value.waits_for == ()
    assert "it may end, but that costs about 2 lockstep runs over its 2 work-items" in str(info.value)


CHAINED = """__kernel void k(__global const int* in, volatile __global int* partial, volatile __global int* flags,
                __global int* out) {
    __local int sum;
    const int g = get_group_id(0) + get_num_groups(0) * get_group_id(1);
    const int l = get_local_id(0) + get_local_size(0) * get_local_id(1);
    if (l == 0) sum = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&sum, in[get_global_id(0) + get_global_size(0) * get_global_id(1)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        int prefix = 0;
        if (g > 0) {
            while (atomic_or(&flags[g - 1], 0) == 0)
                ;
            prefix = READ;
        }
        WRITE;
        atomic_xchg(&flags[g], 1);
        out[g] = prefix + sum;
    }
}
"""
"""A chained scan of work-group sums (the single-pass scans' pattern): each group waits for the one before it, in
the linear order of 2-D group ids; PoCL 3.1 and Oclgrind 21.10 run it, and the variant with plain accesses to
``partial`` is a race both report (Oclgrind: "Read-write data race" at the read, line 15, by work-item 16 of group
1 against work-item 0's write at line 17)."""
ATOMIC = {"READ": "atomic_or(&partial[g - 1], 0)", "WRITE": "atomic_xchg(&partial[g], prefix + sum)"}
PLAIN = {"READ": "partial[g - 1]", "WRITE": "partial[g] = prefix + sum"}


def _chained(accesses: dict[str, str]) -> str:
    source = CHAINED
    for name, text in accesses.items():
        source = source.replace(name, text)
    return source


def _host(ctx: wia.Context, data: np.ndarray) -> wia.Memory:
    """``data`` in unified memory: the host writes and reads it, kernels take it."""
    mem = wia.alloc(ctx, data.nbytes, wia.MemoryType.UNIFIED)
    wia.memory_ptr(mem)[:] = data.reshape(-1).view(np.uint8)
    return mem


def _launch_chained(
    ctx: wia.Context, accesses: dict[str, str], data: np.ndarray, groups: tuple[int, int]
) -> np.ndarray:
    """The scan's output: one prefix per work-group of 4x4."""
    kernel = wia.compile_kernel(ctx, _chained(accesses), "k")
    n = groups[0] * groups[1]
    buffers = [_host(ctx, data), *(_host(ctx, np.zeros(n, np.int32)) for _ in range(3))]
    config = wia.LaunchConfig(global_size=(4 * groups[0], 4 * groups[1]), local_size=(4, 4))
    wia.launch_kernel(kernel, config, *buffers)
    wia.context_synchronize(ctx)
    return wia.memory_ptr(buffers[3]).view(np.int32).copy()


@pytest.mark.parametrize("checks", [True, False])
def test_through_the_hal_a_chained_scan_runs_and_warns(checks: bool) -> None:
    wia.set_backend("sim", hardware="wia-tiny", kernel_checks=checks)
    ctx = wia.create_context()
    data = np.random.default_rng(5).integers(-1000, 1000, (8, 12)).astype(np.int32)
    with pytest.warns(wia.KernelFindingWarning, match="waits in this loop for work-groups? 0"):
        out = _launch_chained(ctx, ATOMIC, data, (3, 2))
    groups = data.reshape(2, 4, 3, 4).sum(axis=(1, 3)).reshape(-1)  # by linear group id: x fastest
    assert out.tolist() == np.cumsum(groups).tolist()
    wia.destroy_context(ctx)


def test_through_the_hal_a_race_in_the_rerun_is_found_as_oclgrind_finds_it() -> None:
    wia.set_backend("sim", hardware="wia-tiny", kernel_checks=True)
    ctx = wia.create_context()
    data = np.random.default_rng(6).integers(-1000, 1000, (8, 12)).astype(np.int32)
    with pytest.raises(wia.WiaError) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore", wia.KernelFindingWarning)
        _launch_chained(ctx, PLAIN, data, (3, 2))
    message = str(info.value)
    assert info.value.code == wia.ErrorCode.INVALID_KERNEL
    assert "kernel.cl:15: data race: read of __global buffer (argument 'partial') at offset 0" in message
    assert "a write by work-item (0, 0, 0) at line 17 of another work-group" in message
    wia.destroy_context(ctx)


def test_timing_only_runs_it_again_from_zeros() -> None:
    """Without numerics the kernel runs on zeros for its counts; the rerun starts from zeros too. Work-group 1 loops
    as often as ``started`` says when it reads it: 2 in a run from zeros (7 atomics in all), 4 after the lockstep
    run's increments (9)."""
    source = """__kernel void k(__global int* flag, __global int* started, __global int* out) {
    atomic_inc(started);
    if (get_group_id(0) == 1) {
        while (atomic_add(flag, 0) == 0)
            ;
        const int c = atomic_add(started, 0);
        for (int i = 0; i < c; i++)
            atomic_inc(out);
    } else {
        atomic_xchg(flag, 1);
    }
}"""
    wia.set_backend("sim", hardware="wia-tiny", numerics=False)
    ctx = wia.create_context()
    kernel = wia.compile_kernel(ctx, source, "k")
    buffers = [wia.alloc(ctx, 4) for _ in range(3)]
    with pytest.warns(wia.KernelFindingWarning, match="waits in this loop for work-group 0"):
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=2, local_size=1), *buffers)
        wia.context_synchronize(ctx)
    assert kernel.last_launch is not None and kernel.last_launch.counts["atomics"] == 7
    wia.destroy_context(ctx)


def test_strict_checks_keep_the_lockstep_timeout() -> None:
    wia.set_backend("sim", hardware="wia-tiny", kernel_checks="strict")
    ctx = wia.create_context()
    kernel = wia.compile_kernel(ctx, ACROSS_GROUPS.replace("WAITER", "1"), "k")
    flag, out, started = (_host(ctx, b) for b in _buffers())
    with pytest.raises(wia.WiaError) as info:
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=2, local_size=1), flag, out, started)
        wia.context_synchronize(ctx)
    assert info.value.code == wia.ErrorCode.TIMEOUT and "never leaves this loop" in str(info.value)
    assert wia.memory_ptr(started).view(np.int32)[0] == 0  # (a faulting launch's writes do not land)
    wia.destroy_context(ctx)


def test_wia_sim_kernel_runs_it_again_and_prints_the_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "spin.cl"
    path.write_text(ACROSS_GROUPS.replace("WAITER", "1"))
    assert sim_main(["kernel", str(path), "k", "1", "2", "1", "--global", "2", "--local", "1", "--fill", "zeros"]) == 0
    out = capsys.readouterr().out
    assert "spin.cl:5: kernel 'k' waits in this loop for work-group 0" in out
