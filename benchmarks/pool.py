"""Pooled allocation against device allocation (SPEC R-3.5.2-06: "far cheaper", the original says 100×).

10,000 alloc/free pairs of 1 MiB through a caching pool (``alloc_from_pool`` / ``free_to_pool``, after one warm-up
pair that reserves the segment) against 10,000 pairs of ``alloc`` / ``free``, measured two ways:

- modeled: the simulated host clock (``machine.host_time``) the pairs advance: what the hardware model says the
  calls cost on the modeled machine (a pool call is one API call, ``host.api_overhead``; a device allocation
  ``memory.alloc_latency`` and a device free ``memory.free_latency``);
- wall-clock: what the pairs cost the simulator itself in Python (best of ``--repeats``). This is not a
  prediction for hardware: it says how expensive each path is to simulate.

Run: ``python benchmarks/pool.py [--pairs 10000] [--size 1048576] [--hardware NAME] [--repeats 3] [--no-numerics]``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from rich.console import Console
from rich.table import Table
from timing import best

import wia_hal as wia
from wia_hal.backends.sim import SimBackend


def modeled(sim: SimBackend, fn: Callable[[], object]) -> float:
    """The host time ``fn`` adds to the simulated clock, in seconds."""
    before = sim.machine.host_time
    fn()
    return sim.machine.host_time - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=10_000)
    parser.add_argument("--size", type=int, default=1 << 20, help="bytes per allocation")
    parser.add_argument("--hardware", default="nvidia-a100-sxm4-80gb")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-numerics", action="store_true", help="a timing-only backend (buffers hold no data)")
    args = parser.parse_args()

    wia.set_backend("sim", hardware=args.hardware, numerics=not args.no_numerics)
    sim = wia.get_backend()
    assert isinstance(sim, SimBackend)
    ctx = wia.create_context()
    pool = wia.create_memory_pool(ctx, wia.PoolConfig(enable_caching=True, defragment_threshold=1.0))
    n, size = args.pairs, args.size
    wia.free_to_pool(pool, wia.alloc_from_pool(pool, size))  # warm-up: reserves the segment

    def pooled() -> None:
        for _ in range(n):
            wia.free_to_pool(pool, wia.alloc_from_pool(pool, size))

    def plain() -> None:
        for _ in range(n):
            wia.free(wia.alloc(ctx, size))

    pool_model, plain_model = modeled(sim, pooled), modeled(sim, plain)
    pool_wall, plain_wall = best(args.repeats, pooled), best(args.repeats, plain)
    stats = wia.get_pool_stats(pool)
    assert stats.cache_misses == 1, stats  # every pair after the warm-up was served from the pool

    us = 1e6 / n
    table = Table(
        title=f"{n:,} alloc/free pairs of {size:,} bytes on {sim.model.display_name} "
        f"(numerics {'off' if args.no_numerics else 'on'})"
    )
    table.add_column("per alloc/free pair")
    table.add_column("modeled host time", justify="right")
    table.add_column("wall-clock", justify="right")
    table.add_row("pool (alloc_from_pool, free_to_pool)", f"{pool_model * us:.2f} µs", f"{pool_wall * us:.2f} µs")
    table.add_row("device (alloc, free)", f"{plain_model * us:.2f} µs", f"{plain_wall * us:.2f} µs")
    table.add_row(
        "pool speedup (device ÷ pool)",
        f"{plain_model / pool_model:.1f}×",
        f"{plain_wall / pool_wall:.2f}×",
        style="bold",
    )
    api, memory = sim.model.host.api_overhead, sim.model.memory
    table.caption = (
        f"SPEC R-3.5.2-06 claims 100×. Modeled: a pool call is one API call ({api * 1e6:g} µs); "
        f"alloc costs {memory.alloc_latency * 1e6:g} µs and free {memory.free_latency * 1e6:g} µs. "
        f"Wall-clock is the simulator's own cost; pool cache hit rate {stats.cache_hit_rate:.4f}."
    )
    Console(width=max(Console().width, 100)).print(table)
    wia.destroy_context(ctx)


if __name__ == "__main__":
    main()
