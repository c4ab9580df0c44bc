"""An ``atomic_cmpxchg`` whose comparison fails stores nothing: for the race check it is an atomic load (as in
Oclgrind), which races with other work-items' plain writes but not with their plain reads nor with atomics."""

from __future__ import annotations

import numpy as np
import pytest

from wia_sim.kernels import compile_source
from wia_sim.kernels.executor import KernelFault, RunResult, run_kernel
from wia_sim.kernels.lanes import Geometry

CLAIM = """__kernel void k(__global int* c, __global int* out) {{
    __local int t[1];
    const int g = get_global_id(0);
    if (get_local_id(0) == 0) t[0] = 0;  // (c: zeroed by the host)
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    const int old = atomic_cmpxchg(&{mem}[0], 0, g + 1);
    {after}
}}"""


def run(mem: str, after: str, n: int = 8, wg: int = 8) -> tuple[RunResult, np.ndarray]:
    src = CLAIM.format(mem=mem, after=after)
    c, out = np.zeros(1, np.int32), np.full(n, -7, np.int32)
    result = run_kernel(
        compile_source(src), "k", [c.view(np.uint8), out.view(np.uint8)], Geometry((n, 1, 1), (wg, 1, 1)), strict=True
    )
    return result, out


@pytest.mark.parametrize("mem", ["c", "t"])
def test_the_winner_of_a_cmpxchg_may_read_plainly_beside_the_losers(mem: str) -> None:
    # the losers' cmpxchg stores nothing, so the winner's plain read sees the same value in every order
    result, out = run(mem, f"if (old == 0) out[g] = {mem}[0]; else out[g] = old;")
    assert not result.findings
    assert out.tolist() == [1] * 8


@pytest.mark.parametrize("mem", ["c", "t"])
def test_a_plain_write_beside_a_failed_cmpxchg_is_a_race(mem: str) -> None:
    # the winner overwrites the address plainly while the losers' cmpxchg read it: the order decides what they saw
    with pytest.raises(KernelFault) as info:
        run(mem, f"if (old == 0) {mem}[0] = 100; out[g] = old;")
    f = info.value
    space = "global" if mem == "c" else "local"
    assert (f.check, f.line, f.address) == (f"race_{space}", 7, 0), str(f)
    assert "write of" in str(f) and "conflicts with an atomic load" in str(f)


@pytest.mark.parametrize("mem", ["c", "t"])
def test_a_failed_cmpxchg_after_another_work_items_plain_write_is_a_race(mem: str) -> None:
    src = CLAIM.format(mem=mem, after="out[g] = old;").replace(
        f"    const int old = atomic_cmpxchg(&{mem}[0], 0, g + 1);",
        f"    if (g == 1) {mem}[0] = 5;\n    const int old = atomic_cmpxchg(&{mem}[0], 0, g + 1);",
    )
    c, out = np.zeros(1, np.int32), np.zeros(4, np.int32)
    with pytest.raises(KernelFault) as info:
        run_kernel(compile_source(src), "k", [c.view(np.uint8), out.view(np.uint8)], Geometry((4, 1, 1), (4, 1, 1)))
    f = info.value
    assert (f.check, f.line, f.work_items) == (f"race_{'global' if mem == 'c' else 'local'}", 7, 3)
    assert "atomic load of" in str(f) and "conflicts with a write by work-item (1, 0, 0)" in str(f)


def test_failed_cmpxchgs_in_other_work_groups_of_global_memory_still_race_with_plain_writes() -> None:
    # no barrier orders work-groups: group 1's failed cmpxchg (an atomic load) races with group 0's plain write
    with pytest.raises(KernelFault) as info:
        run("c", "if (old == 0) c[0] = 100; out[g] = old;", n=8, wg=4)
    assert info.value.check == "race_global"
