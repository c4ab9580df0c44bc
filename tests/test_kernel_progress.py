"""Loops that cannot end (``wia_sim/kernels/progress.py``): an iteration that leaves every variable and every memory
object as it found them repeats forever, so the simulator reports it as soon as it sees it, naming the work-items it
waits for, instead of running to the step limit minutes later. The clSPARSE probe found one: ``csrmv_adaptive`` with
``-DEXTENDED_PRECISION`` spins in one work-group on a flag another work-group sets in the other side of a branch,
which PoCL 3.1 and Oclgrind 21.10 run to the end and the lockstep simulator cannot."""

from __future__ import annotations

import numpy as np
import pytest

import wia_hal as wia
from wia_sim.kernels import compile_source
from wia_sim.kernels.executor import KernelTimeout, run_kernel
from wia_sim.kernels.lanes import Geometry

ACROSS_GROUPS = """__kernel void k(__global int* flag, __global int* out) {
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


def _run(source: str, args: list[np.ndarray], global_size: int, local_size: int, checks: bool = True) -> None:
    program = compile_source(source)
    raw = [a.view(np.uint8).reshape(-1) for a in args]
    geometry = Geometry((global_size, 1, 1), (local_size, 1, 1))
    run_kernel(program, "k", raw, geometry, step_limit=10_000_000, checks=checks)


@pytest.mark.parametrize("waiter", [0, 1])
@pytest.mark.parametrize("checks", [True, False])
def test_a_work_group_waiting_for_another_is_reported_at_once(waiter: int, checks: bool) -> None:
    source = ACROSS_GROUPS.replace("WAITER", str(waiter))
    with pytest.raises(KernelTimeout) as info:
        _run(source, [np.zeros(1, np.int32), np.zeros(2, np.int32)], 2, 1, checks)
    message = str(info.value)
    assert info.value.check == "step_limit" and info.value.line == 4
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


def test_through_the_hal_it_is_a_timeout_error_before_the_step_limit() -> None:
    """(The step limit's 1,000,000 steps of this spin take minutes.)"""
    wia.set_backend("sim", hardware="wia-tiny", kernel_checks=False)
    ctx = wia.create_context()
    kernel = wia.compile_kernel(ctx, ACROSS_GROUPS.replace("WAITER", "1"), "k")
    flag, out = wia.alloc(ctx, 4), wia.alloc(ctx, 8)
    with pytest.raises(wia.WiaError) as info:
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=2, local_size=1), flag, out)
        wia.context_synchronize(ctx)
    assert info.value.code == wia.ErrorCode.TIMEOUT and "never leaves this loop" in str(info.value)
