"""Custom kernels: the simulator's executor against real OpenCL devices (PoCL's CPU device and the Oclgrind
simulator, through PyOpenCL) and hand-vectorized NumPy, side by side in one run (issue 16's speed targets).

Part 1, six kernels at size:
- vector add of 1,000,000 floats (target for the simulator with checks on: <= 10 ms);
- a 256x256x256 tiled matmul with 16x16 tiles in ``__local`` memory (target: <= 60 ms with checks on);
- a divergent loop, Collatz steps of 262,144 work-items (no target: what a loop whose trips differ by work-item
  costs at size; its NumPy column is the lockstep floor, ``lockstep_floor.collatz_steps``);
- a search loop, a binary search of 16,384 keys in a sorted table of 100,000 floats (no target: a loop that reads
  memory at an index it computes; its NumPy column is ``np.searchsorted``, compiled C rather than a lockstep floor);
- sparse rows, a CSR matrix of 16,384 rows of 1 to 200 entries (a power law) times a vector (no target: a batched
  loop whose rows thin out; its NumPy column is ``np.add.reduceat`` over the products);
- GELU with ``erf`` of 1,000,000 floats, an activation every transformer runs (no target: what a special function
  costs at size; NumPy has no ``erf``, so no NumPy column).
Part 2, every kernel of the project's corpus (``tests/kernels/corpus``) at the size its case draws (seeded), on the
simulator with checks on and on PoCL: the ratio, against the target that no corpus kernel takes more than 30x
PoCL's time; then an empty kernel's launch on both, the fixed cost under each of those ratios. Both parts also
give checks off (target: at least 2x faster than checks on); part 1 also the
simulator with ``kernel_fp_contract`` (checks on), whose ``a * b + c`` is rounded once as PoCL's: what that costs.

Wall-clock per launch through the public HAL (the sim backend, ``kernel_checks`` on or off) and through PyOpenCL
(enqueue and ``finish``) on PoCL, in two alternating rounds, best of ``--repeats`` (and of the rounds), warm: the first
launch builds and is not counted. Oclgrind interprets every work-item (about a second for the vector add, ten for
the matmul), so it runs once per kernel, only in part 1 and not for the three loops. Part 3: the lockstep NumPy
floor (``lockstep_floor.py``) of the corpus's worst kernels beside part 2's times, how much of each ratio the design
itself costs. Run: ``python benchmarks/kernels.py`` (about three minutes here) or ``--quick`` (part 1 only, no
Oclgrind).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table
from timing import best

import wia_hal as wia

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the corpus and its OpenCL runner are test code, found from the checkout

import lockstep_floor  # noqa: E402

from tests.kernels import cldevices, corpus  # noqa: E402

VECTOR_ADD = """
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, int n) {
    int gid = get_global_id(0);
    if (gid < n) c[gid] = a[gid] + b[gid];
}
"""
EMPTY = "__kernel void empty(__global float* a) { }"
"""What a launch costs before its first statement: the HAL, the event simulation, the cost model, the
executor's setup (PoCL: its enqueue and ``finish``). A floor under every ratio of part 2."""
MATMUL = (corpus.CORPUS_DIR / "matmul_tiled.cl").read_text()
COLLATZ = """
__kernel void collatz(__global const uint* a, __global int* steps, int n) {
    int gid = get_global_id(0);
    if (gid >= n) return;
    uint v = a[gid];
    int s = 0;
    while (v != 1u) {
        v = (v & 1u) ? 3u * v + 1u : v >> 1;
        ++s;
    }
    steps[gid] = s;
}
"""
"""A loop whose trip count differs by work-item (1 to 238 here): the lanes that leave drop out of the trips
(``private_loops.py``), what a large launch of a divergent loop costs."""
SEARCH = """
__kernel void search(__global const float* sorted, __global const float* keys, __global int* pos, int n) {
    int gid = get_global_id(0);
    const float key = keys[gid];
    int lo = 0, hi = n;
    while (lo < hi) {
        const int mid = (lo + hi) >> 1;
        if (sorted[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    pos[gid] = lo;
}
"""
"""A loop that reads memory at an index it computes, a binary search (each key's first position in a sorted table):
its reads by the lanes still in it (``private_loops.py``)."""
N_ADD, N_MM, N_LOOP = 1_000_000, 256, 262_144
N_KEYS, N_TABLE = 16_384, 100_000
SPARSE_ROWS = """
__kernel void spmv(__global const int* rowptr, __global const int* col, __global const float* val,
                   __global const float* x, __global float* y, int rows) {
    int r = get_global_id(0);
    if (r >= rows) return;
    float sum = 0.0f;
    for (int j = rowptr[r]; j < rowptr[r + 1]; j++)
        sum += val[j] * x[col[j]];
    y[r] = sum;
}
"""
"""A sparse matrix times a vector (CSR) whose rows' lengths fall off as a power law (1 to 200 entries, 7 on
average): a batch of its rows' iterations, then their sparse tail on the lanes still in it (``batch_loops.SPARSE``)."""
N_ROWS = 16_384
GELU = """
__kernel void gelu(__global const float* x, __global float* y, int n) {
    int gid = get_global_id(0);
    if (gid < n) y[gid] = 0.5f * x[gid] * (1.0f + erf(x[gid] * 0.70710678f));
}
"""
"""The exact GELU (Hendrycks and Gimpel 2016), ``x * Phi(x)`` through ``erf``: a special function on every element
(``accurate.erf``: Cody's approximations on whole arrays)."""
TARGETS = {"vector add": 10e-3, "tiled matmul": 60e-3}
CORPUS_RATIO_TARGET = 30.0
SEED = 20261202

Runner = Callable[[], object]


def headline_launches(rng: np.random.Generator) -> dict[str, corpus.Launch]:
    """Part 1's two launches in the corpus's terms, so that every device runs the same arguments."""
    f32 = np.float32
    add = corpus.Launch(
        {
            "a": corpus.Buffer(rng.random(N_ADD, f32)),
            "b": corpus.Buffer(rng.random(N_ADD, f32)),
            "c": corpus.Buffer(np.zeros(N_ADD, f32), "out"),
            "n": corpus.Scalar(N_ADD, np.int32),
        },
        (1_000_192,),
        (256,),
    )
    n = corpus.Scalar(N_MM, np.int32)
    mm = corpus.Launch(
        {
            "M": n,
            "N": n,
            "K": n,
            "A": corpus.Buffer(rng.random((N_MM, N_MM), f32)),
            "B": corpus.Buffer(rng.random((N_MM, N_MM), f32)),
            "C": corpus.Buffer(np.zeros((N_MM, N_MM), f32), "out"),
        },
        (N_MM, N_MM),
        (16, 16),
    )
    loop = corpus.Launch(
        {
            "a": corpus.Buffer(rng.integers(1, 5000, N_LOOP).astype(np.uint32)),
            "steps": corpus.Buffer(np.zeros(N_LOOP, np.int32), "out"),
            "n": corpus.Scalar(N_LOOP, np.int32),
        },
        (N_LOOP,),
        (256,),
    )
    search = corpus.Launch(
        {
            "sorted": corpus.Buffer(np.sort(rng.random(N_TABLE, f32))),
            "keys": corpus.Buffer(rng.random(N_KEYS, f32)),
            "pos": corpus.Buffer(np.zeros(N_KEYS, np.int32), "out"),
            "n": corpus.Scalar(N_TABLE, np.int32),
        },
        (N_KEYS,),
        (64,),
    )
    lengths = np.minimum((rng.pareto(1.5, N_ROWS) * 4 + 1).astype(np.int32), 200)
    rowptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    sparse = corpus.Launch(
        {
            "rowptr": corpus.Buffer(rowptr),
            "col": corpus.Buffer(rng.integers(0, N_ROWS, int(rowptr[-1])).astype(np.int32)),
            "val": corpus.Buffer(rng.random(int(rowptr[-1]), f32)),
            "x": corpus.Buffer(rng.random(N_ROWS, f32)),
            "y": corpus.Buffer(np.zeros(N_ROWS, f32), "out"),
            "rows": corpus.Scalar(N_ROWS, np.int32),
        },
        (N_ROWS,),
        (64,),
    )
    gelu = corpus.Launch(
        {
            "x": corpus.Buffer((rng.standard_normal(N_ADD) * 2).astype(f32)),
            "y": corpus.Buffer(np.zeros(N_ADD, f32), "out"),
            "n": corpus.Scalar(N_ADD, np.int32),
        },
        (1_000_192,),
        (256,),
    )
    return {
        "vector add": add,
        "tiled matmul": mm,
        "divergent loop": loop,
        "search loop": search,
        "sparse rows": sparse,
        "gelu (erf)": gelu,
    }


class _Source:
    """What the OpenCL runner needs of a case: its source, kernel name and build options."""

    def __init__(self, name: str, text: str, kernel: str) -> None:
        self.name, self.text, self.kernel, self.options = name, text, kernel, ""

    def source(self) -> str:
        return self.text


def sim_runner(ctx: Any, case: Any, launch: corpus.Launch) -> Runner:
    """A warm launch of ``case`` on the sim backend's context ``ctx``: built and its buffers filled once."""
    kernel = wia.compile_kernel(ctx, case.source(), case.kernel, case.options)
    values: list[Any] = []
    for arg in launch.args.values():
        if isinstance(arg, corpus.Buffer):
            data = arg.array.reshape(-1).view(np.uint8)
            staging = wia.alloc(ctx, data.size, wia.MemoryType.HOST)
            wia.memory_ptr(staging)[:] = data
            device = wia.alloc(ctx, data.size)
            wia.copy_async(staging, device, data.size)
            values.append(device)
        elif isinstance(arg, corpus.Local):
            values.append(arg.nbytes)
        else:
            assert isinstance(arg, corpus.Scalar)
            values.append(arg.numpy())
    config = wia.LaunchConfig(global_size=launch.global_size, local_size=launch.local_size)
    wia.context_synchronize(ctx)

    def run() -> None:
        wia.launch_kernel(kernel, config, *values)

    run()
    return run


def opencl_runner(device: cldevices.CLDevice, case: Any, launch: corpus.Launch) -> Runner:
    """A warm launch on a PyOpenCL device: built and its buffers made once, each run enqueued and finished."""
    import pyopencl as cl

    kernel = cl.Kernel(device.build(case), case.kernel)
    mf = cl.mem_flags
    args: list[Any] = []
    for arg in launch.args.values():
        if isinstance(arg, corpus.Buffer):
            args.append(cl.Buffer(device.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=arg.array))
        elif isinstance(arg, corpus.Local):
            args.append(cl.LocalMemory(arg.nbytes))
        else:
            assert isinstance(arg, corpus.Scalar)
            args.append(arg.numpy())
    offset = getattr(case, "global_offset", None)

    def run() -> None:
        kernel(device.queue, launch.global_size, launch.local_size, *args, global_offset=offset)
        device.queue.finish()

    run()
    return run


def devices() -> dict[str, cldevices.CLDevice]:
    return {d.key: d for d in cldevices.usable_devices()}


def time_sim(
    cases: list[tuple[Any, corpus.Launch]], checks: bool, repeats: int, fp_contract: bool = False
) -> dict[str, float | str]:
    """Best-of-``repeats`` seconds per case on a fresh sim context (destroyed after); a failure is its message."""
    wia.set_backend("sim", hardware="nvidia-a100-sxm4-80gb", kernel_checks=checks, kernel_fp_contract=fp_contract)
    ctx = wia.create_context()
    times: dict[str, float | str] = {}
    try:
        for case, launch in cases:
            try:
                times[case.name] = best(repeats, sim_runner(ctx, case, launch))
            except wia.WiaError as e:
                times[case.name] = f"{e.code.name}: {str(e).splitlines()[0][:80]}"
    finally:
        wia.destroy_context(ctx)
    return times


Times = dict[str, float | str]


def time_alternating(
    cases: list[tuple[Any, corpus.Launch]], repeats: int, device: cldevices.CLDevice | None, rounds: int = 2
) -> tuple[Times, Times, Times]:
    """The simulator with checks on and off and the OpenCL ``device``, in alternating rounds (on, off, device, on,
    ...), each case's best over all rounds: the machine's drift (other load, caches, the allocator's state) falls
    on all three alike instead of on whichever ran last."""
    on: Times = {}
    off: Times = {}
    real: Times = {}
    for _ in range(rounds):
        for into, times in (
            (on, lambda: time_sim(cases, True, repeats)),
            (off, lambda: time_sim(cases, False, repeats)),
            (real, lambda: time_opencl(device, cases, repeats)),
        ):
            for name, t in times().items():
                kept = into.get(name)
                better = kept is None or isinstance(kept, str) or (not isinstance(t, str) and t < kept)
                into[name] = t if better else kept
    return on, off, real


def time_opencl(
    device: cldevices.CLDevice | None, cases: list[tuple[Any, corpus.Launch]], repeats: int
) -> dict[str, float | str]:
    if device is None:
        return {case.name: "no such device here" for case, _ in cases}
    times: dict[str, float | str] = {}
    for case, launch in cases:
        try:
            times[case.name] = best(repeats, opencl_runner(device, case, launch))
        except Exception as e:  # a driver that cannot build or run the case says why
            times[case.name] = str(e).splitlines()[0][:80]
    return times


def _ms(t: float | str) -> str:
    return "—" if isinstance(t, str) else f"{t * 1e3:,.2f} ms"


def _us(t: float | str) -> str:
    return t if isinstance(t, str) else f"{t * 1e6:,.0f} us"


def _ratio(a: float | str, b: float | str) -> float | None:
    return None if isinstance(a, str) or isinstance(b, str) or b <= 0 else a / b


def part1(repeats: int, oclgrind: bool, console: Console) -> None:
    launches = headline_launches(np.random.default_rng(SEED))
    cases = [
        (_Source("vector add", VECTOR_ADD, "vector_add"), launches["vector add"]),
        (_Source("tiled matmul", MATMUL, "matmul_tiled"), launches["tiled matmul"]),
        (_Source("divergent loop", COLLATZ, "collatz"), launches["divergent loop"]),
        (_Source("search loop", SEARCH, "search"), launches["search loop"]),
        (_Source("sparse rows", SPARSE_ROWS, "spmv"), launches["sparse rows"]),
        (_Source("gelu (erf)", GELU, "gelu"), launches["gelu (erf)"]),
    ]
    found = devices()
    on, off, pocl = time_alternating(cases, repeats, found.get("pocl"))
    fused = time_sim(cases, True, repeats, fp_contract=True)
    grind: Times = {c.name: "not run (--quick)" for c, _ in cases}
    if oclgrind:  # (the loops would take it minutes: each work-item's trips one by one)
        straight = [case for case in cases if case[0].name in ("vector add", "tiled matmul", "gelu (erf)")]
        grind = {
            **{c.name: "not run (minutes)" for c, _ in cases},
            **time_opencl(found.get("oclgrind"), straight, 1),
        }
    rng = np.random.default_rng(SEED)
    a, b = rng.random(N_ADD, np.float32), rng.random(N_ADD, np.float32)
    ma, mb = rng.random((N_MM, N_MM), np.float32), rng.random((N_MM, N_MM), np.float32)
    starts = launches["divergent loop"].args["a"].array
    table_, keys = (launches["search loop"].args[k].array for k in ("sorted", "keys"))
    rowptr, col, val, x = (launches["sparse rows"].args[k].array for k in ("rowptr", "col", "val", "x"))
    numpy_t: Times = {
        "vector add": best(repeats, lambda: np.add(a, b)),
        "tiled matmul": best(repeats, lambda: ma @ mb),
        "divergent loop": best(repeats, lambda: lockstep_floor.collatz_steps(starts)),  # (lockstep, lanes dropped)
        "search loop": best(repeats, lambda: np.searchsorted(table_, keys, side="left")),  # (C, not lockstep)
        "sparse rows": best(repeats, lambda: np.add.reduceat(val * x[col], rowptr[:-1])),  # (every row has an entry)
        "gelu (erf)": "no erf",
    }
    table = Table(title=f"Custom kernels at size: wall-clock per launch, best of {repeats} (Oclgrind: one run)")
    for column in ("kernel", "sim, checks on", "sim, checks off", "sim, a*b+c fused", "PoCL", "Oclgrind", "NumPy"):
        table.add_column(column, justify="left" if column == "kernel" else "right")
    for column in ("on / PoCL", "on / off", "fused / on", "target (checks on)"):
        table.add_column(column, justify="right")
    for name, _ in cases:
        n = name.name
        vs_pocl, speedup, cost = _ratio(on[n], pocl[n]), _ratio(on[n], off[n]), _ratio(fused[n], on[n])
        target = TARGETS.get(n)
        met = "—" if isinstance(on[n], str) or target is None else ("met" if on[n] <= target else "missed")
        table.add_row(
            n,
            _ms(on[n]),
            _ms(off[n]),
            _ms(fused[n]),
            _ms(pocl[n]),
            _ms(grind[n]),
            _ms(numpy_t[n]),
            "—" if vs_pocl is None else f"{vs_pocl:,.0f}x",
            "—" if speedup is None else f"{speedup:.2f}x",
            "—" if cost is None else f"{cost:.2f}x",
            "none" if target is None else f"<= {target * 1e3:.0f} ms: {met}",
        )
    console.print(table)
    for label, times in (("PoCL", pocl), ("Oclgrind", grind)):
        for n, t in times.items():
            if isinstance(t, str):
                console.print(f"{label}, {n}: {t}")


def part2(repeats: int, console: Console) -> tuple[list[tuple[Any, corpus.Launch]], Times, Times, Times]:
    """The corpus table; its cases, launches and times (checks on, off, PoCL), for part 3."""
    rng = np.random.default_rng(SEED)
    cases = [
        (case, case.draw(rng)) for case in corpus.CASES if not getattr(case, "global_offset", None)
    ]  # the HAL's LaunchConfig has no global work offset
    on, off, pocl = time_alternating(cases, repeats, devices().get("pocl"))
    table = Table(title=f"The corpus ({len(cases)} kernels, sizes as drawn): wall-clock per launch, best of {repeats}")
    for column in ("kernel", "work-items", "sim, checks on", "sim, checks off", "PoCL", "on / PoCL", "on / off"):
        table.add_column(column, justify="left" if column == "kernel" else "right")
    worst: list[tuple[float, str]] = []
    speedups: list[float] = []
    for case, launch in cases:
        n = case.name
        vs_pocl, speedup = _ratio(on[n], pocl[n]), _ratio(on[n], off[n])
        if vs_pocl is not None:
            worst.append((vs_pocl, n))
        if speedup is not None:
            speedups.append(speedup)
        flag = "" if vs_pocl is None or vs_pocl <= CORPUS_RATIO_TARGET else " (over)"
        table.add_row(
            n,
            f"{int(np.prod(launch.global_size)):,}",
            _ms(on[n]),
            _ms(off[n]),
            _ms(pocl[n]),
            "—" if vs_pocl is None else f"{vs_pocl:,.1f}x{flag}",
            "—" if speedup is None else f"{speedup:.2f}x",
        )
    console.print(table)
    for label, times in (("sim", on), ("PoCL", pocl)):
        for n, t in times.items():
            if isinstance(t, str):
                console.print(f"{label}, {n}: {t}")
    if worst:
        worst.sort(reverse=True)
        over = [n for r, n in worst if r > CORPUS_RATIO_TARGET]
        console.print(
            f"corpus, checks on / PoCL: median {np.median([r for r, _ in worst]):.1f}x, worst {worst[0][0]:.1f}x "
            f"({worst[0][1]}); over {CORPUS_RATIO_TARGET:.0f}x: {len(over)} of {len(worst)}"
            + (f" ({', '.join(over)})" if over else "")
        )
    if speedups:
        console.print(f"corpus, checks on / off: median {np.median(speedups):.2f}x, lowest {min(speedups):.2f}x")
    empty = [
        (
            _Source("empty", EMPTY, "empty"),
            corpus.Launch({"a": corpus.Buffer(np.zeros(256, np.float32))}, (256,), (64,)),
        )
    ]
    e_on, e_off, e_pocl = time_alternating(empty, 5 * repeats, devices().get("pocl"))
    vs = _ratio(e_on["empty"], e_pocl["empty"])
    console.print(
        f"an empty kernel (256 work-items), the fixed cost of a launch: checks on {_us(e_on['empty'])}, off "
        f"{_us(e_off['empty'])}, PoCL {_us(e_pocl['empty'])}" + ("" if vs is None else f" ({vs:.1f}x)")
    )
    return cases, on, off, pocl


def part3(
    cases: list[tuple[Any, corpus.Launch]], on: Times, off: Times, pocl: Times, repeats: int, console: Console
) -> None:
    """The lockstep NumPy floor (``lockstep_floor.py``) of the kernels that have one, beside part 2's times of
    the same launches: how far over PoCL the design itself is, and how far over the floor the simulator."""
    table = Table(title=f"The lockstep NumPy floor: the least a NumPy executor spends (floor: best of {4 * repeats})")
    columns = ("kernel", "work-items", "PoCL", "floor", "floor / PoCL", "sim, checks on", "on / floor", "off / floor")
    for column in columns:
        table.add_column(column, justify="left" if column == "kernel" else "right")
    out_of_reach: list[str] = []
    for case, launch in cases:
        floor = lockstep_floor.FLOORS.get(case.name)
        if floor is None:
            continue
        args = lockstep_floor.arguments(launch)
        wrong = case.check(launch, floor(args))
        if wrong:  # a floor that computes something else times nothing
            console.print(f"floor of {case.name} is wrong, not timed: {wrong[0]}")
            continue
        n = case.name
        t = best(4 * repeats, lambda: floor(args))  # noqa: B023 (called here; a few ms, so more runs)
        vs_pocl, over_on, over_off = _ratio(t, pocl[n]), _ratio(on[n], t), _ratio(off[n], t)
        if vs_pocl is not None and vs_pocl > CORPUS_RATIO_TARGET:
            out_of_reach.append(n)
        table.add_row(
            n,
            f"{int(np.prod(launch.global_size)):,}",
            _ms(pocl[n]),
            _ms(t),
            "—" if vs_pocl is None else f"{vs_pocl:,.1f}x",
            _ms(on[n]),
            "—" if over_on is None else f"{over_on:,.1f}x",
            "—" if over_off is None else f"{over_off:,.1f}x",
        )
    console.print(table)
    console.print(
        f"floors over {CORPUS_RATIO_TARGET:.0f}x PoCL (the target out of reach of a lockstep NumPy executor): "
        + (", ".join(out_of_reach) if out_of_reach else "none")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="part 1 only, without Oclgrind")
    args = parser.parse_args()
    console = Console(width=160)
    part1(args.repeats, not args.quick, console)
    if not args.quick:
        part3(*part2(args.repeats, console), args.repeats, console)


if __name__ == "__main__":
    main()
