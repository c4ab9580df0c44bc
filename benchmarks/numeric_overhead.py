"""What the simulator costs in wall-clock time over NumPy doing the same arithmetic directly.

- A large op: ``wia.matmul`` of two 1024×1024 float32 tensors (plus the synchronization that runs it) against
  ``a @ b`` in NumPy. Target: within 1.2× of NumPy.
- Tiny ops: 100,000 ``wia.add``s of 16-element float32 tensors on one stream (plus one synchronization) against
  100,000 ``np.add``s of the same arrays; the difference per op is the simulator's overhead (aim: ≤ 30 µs).

Run: ``python benchmarks/numeric_overhead.py [--ops 100000] [--repeats 5]``.
"""

from __future__ import annotations

import argparse

import numpy as np
from rich.console import Console
from rich.table import Table
from timing import best

import wia_hal as wia


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--hardware", default="nvidia-a100-sxm4-80gb")
    args = parser.parse_args()

    wia.set_backend("sim", hardware=args.hardware)
    ctx = wia.create_context()
    rng = np.random.default_rng(0)
    a_np, b_np = rng.random((1024, 1024), np.float32), rng.random((1024, 1024), np.float32)
    a, b = wia.tensor(a_np, ctx=ctx), wia.tensor(b_np, ctx=ctx)

    def sim_matmul() -> None:
        wia.matmul(a, b)
        wia.context_synchronize(ctx)

    np.testing.assert_allclose(wia.matmul(a, b).numpy(), a_np @ b_np, rtol=1e-5)
    large_sim = best(args.repeats, sim_matmul)
    large_np = best(args.repeats, lambda: a_np @ b_np)

    x_np, y_np = rng.random(16, np.float32), rng.random(16, np.float32)
    x, y = wia.tensor(x_np, ctx=ctx), wia.tensor(y_np, ctx=ctx)
    stream = wia.create_stream(ctx)

    def sim_tiny() -> None:
        for _ in range(args.ops):
            wia.add(x, y, stream=stream)
        wia.stream_synchronize(stream)

    def numpy_tiny() -> None:
        for _ in range(args.ops):
            np.add(x_np, y_np)

    tiny_repeats = max(1, args.repeats // 2)
    tiny_sim = best(tiny_repeats, sim_tiny)
    tiny_np = best(tiny_repeats, numpy_tiny)
    wia.destroy_context(ctx)

    table = Table(title=f"Wall-clock cost of simulation ({args.hardware}, numerics on, best of {args.repeats})")
    for column in ("workload", "wia (sim)", "NumPy", "ratio", "overhead per op"):
        table.add_column(column, justify="left" if column == "workload" else "right")
    table.add_row(
        "matmul 1024×1024×1024 float32",
        f"{large_sim * 1e3:.2f} ms",
        f"{large_np * 1e3:.2f} ms",
        f"{large_sim / large_np:.2f}× (target ≤ 1.2×)",
        f"{(large_sim - large_np) * 1e6:.0f} µs",
    )
    per_op = (tiny_sim - tiny_np) / args.ops * 1e6
    table.add_row(
        f"{args.ops:,} adds of 16 float32",
        f"{tiny_sim * 1e3:.0f} ms",
        f"{tiny_np * 1e3:.0f} ms",
        f"{tiny_sim / tiny_np:.1f}×",
        f"{per_op:.1f} µs (aim ≤ 30 µs)",
    )
    Console().print(table)


if __name__ == "__main__":
    main()
