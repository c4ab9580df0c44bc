"""Custom kernels: the simulator's executor against a real OpenCL device (PoCL through PyOpenCL, where it works)
and a hand-vectorized NumPy version of the same arithmetic, side by side.

- vector add of 1,000,000 floats (target for the simulator: ≤ 50 ms with checks on);
- a 256×256×256 tiled matmul with 16×16 tiles in ``__local`` memory.

Wall-clock per launch, best of ``--repeats``, warm (the first launch builds and is not counted). The simulator
runs twice: with its checks (out-of-bounds, races, barrier divergence, uninitialized local reads) and without.
Run: ``python benchmarks/kernels.py``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table
from timing import best

import wia_hal as wia

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "kernels" / "corpus"
VECTOR_ADD = """
__kernel void vector_add(__global const float* a, __global const float* b, __global float* c, int n) {
    int gid = get_global_id(0);
    if (gid < n) c[gid] = a[gid] + b[gid];
}
"""
MATMUL = (CORPUS / "matmul_tiled.cl").read_text()
N_ADD, N_MM = 1_000_000, 256


def sim_times(checks: bool, repeats: int) -> dict[str, float]:
    """Best-of-``repeats`` seconds per kernel on the simulator (its own context, destroyed after)."""
    wia.set_backend("sim", hardware="nvidia-a100-sxm4-80gb", kernel_checks=checks)
    ctx = wia.create_context()
    rng = np.random.default_rng(0)
    a, b = wia.tensor(rng.random(N_ADD, np.float32), ctx=ctx), wia.tensor(rng.random(N_ADD, np.float32), ctx=ctx)
    c = wia.zeros(N_ADD, ctx=ctx)
    add = wia.compile_kernel(ctx, VECTOR_ADD, "vector_add")
    add_config = wia.LaunchConfig(global_size=1_000_192, local_size=256)
    ma, mb = (wia.tensor(rng.random((N_MM, N_MM), np.float32), ctx=ctx) for _ in range(2))
    mc = wia.zeros((N_MM, N_MM), ctx=ctx)
    mm = wia.compile_kernel(ctx, MATMUL, "matmul_tiled")
    mm_config = wia.LaunchConfig(global_size=(N_MM, N_MM), local_size=(16, 16))
    wia.launch_kernel(add, add_config, a, b, c, N_ADD)  # warm
    wia.launch_kernel(mm, mm_config, N_MM, N_MM, N_MM, ma, mb, mc)
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy(), rtol=0)
    np.testing.assert_allclose(mc.numpy(), ma.numpy() @ mb.numpy(), rtol=1e-4)
    times = {
        "vector add": best(repeats, lambda: wia.launch_kernel(add, add_config, a, b, c, N_ADD)),
        "tiled matmul": best(repeats, lambda: wia.launch_kernel(mm, mm_config, N_MM, N_MM, N_MM, ma, mb, mc)),
    }
    wia.destroy_context(ctx)
    return times


def pocl_runs() -> dict[str, Callable[[], object]] | str:
    """PoCL's launches, or why they cannot run here."""
    try:
        import pyopencl as cl  # type: ignore[import-not-found]
    except ImportError:
        return "pyopencl is not installed (pip install pyopencl pocl-binary-distribution)"
    try:
        ctx = cl.create_some_context(interactive=False)
        queue = cl.CommandQueue(ctx)
        add = cl.Program(ctx, VECTOR_ADD).build().vector_add
        mm = cl.Program(ctx, MATMUL).build().matmul_tiled
    except Exception as e:  # a driver that cannot build on this CPU reports it here
        return f"OpenCL device unusable: {str(e).splitlines()[0][:100]}"
    rng = np.random.default_rng(0)
    mf = cl.mem_flags
    host: dict[str, Any] = {"a": rng.random(N_ADD, np.float32), "b": rng.random(N_ADD, np.float32)}
    a, b = (cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=host[k]) for k in "ab")
    c = cl.Buffer(ctx, mf.WRITE_ONLY, N_ADD * 4)
    ma, mb = (
        cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=rng.random(N_MM * N_MM, np.float32)) for _ in "ab"
    )
    mc = cl.Buffer(ctx, mf.WRITE_ONLY, N_MM * N_MM * 4)

    def run_add() -> None:
        add(queue, (1_000_192,), (256,), a, b, c, np.int32(N_ADD))
        queue.finish()

    def run_mm() -> None:
        n = np.int32(N_MM)
        mm(queue, (N_MM, N_MM), (16, 16), n, n, n, ma, mb, mc)
        queue.finish()

    run_add()
    run_mm()
    return {"vector add": run_add, "tiled matmul": run_mm}


def numpy_runs() -> dict[str, Callable[[], object]]:
    rng = np.random.default_rng(0)
    a, b = rng.random(N_ADD, np.float32), rng.random(N_ADD, np.float32)
    ma, mb = rng.random((N_MM, N_MM), np.float32), rng.random((N_MM, N_MM), np.float32)
    return {"vector add": lambda: np.add(a, b), "tiled matmul": lambda: ma @ mb}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    pocl = pocl_runs()
    columns: dict[str, dict[str, float] | str] = {
        "wia sim, checks on": sim_times(True, args.repeats),
        "wia sim, checks off": sim_times(False, args.repeats),
        "PoCL (OpenCL CPU)": pocl if isinstance(pocl, str) else {k: best(args.repeats, f) for k, f in pocl.items()},
        "NumPy, hand-vectorized": {k: best(args.repeats, f) for k, f in numpy_runs().items()},
    }
    table = Table(title=f"Custom kernels: wall-clock per launch, best of {args.repeats}")
    table.add_column("kernel")
    for name in columns:
        table.add_column(name, justify="right")
    table.add_column("sim (checks on) / PoCL", justify="right")
    for kernel in ("vector add", "tiled matmul"):
        cells = ["—" if isinstance(t, str) else f"{t[kernel] * 1e3:.2f} ms" for t in columns.values()]
        sim, ref = columns["wia sim, checks on"], columns["PoCL (OpenCL CPU)"]
        ratio = "—" if isinstance(sim, str) or isinstance(ref, str) else f"{sim[kernel] / ref[kernel]:,.0f}×"
        table.add_row(
            f"{kernel} ({'1,000,000 floats' if kernel == 'vector add' else '256×256×256, 16×16 tiles'})",
            *cells,
            ratio,
        )
    console = Console()
    console.print(table)
    for name, times in columns.items():
        if isinstance(times, str):
            console.print(f"{name}: {times}")
    console.print("target: the simulator's vector add ≤ 50 ms with checks on")


if __name__ == "__main__":
    main()
