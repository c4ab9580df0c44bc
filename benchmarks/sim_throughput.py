"""Simulated ops per wall-clock second: the HAL path against raw SimPy doing the equivalent engine requests.

HAL: a Python loop issues tiny ``wia.add``s (16 float32) alternating over two streams, then synchronizes; numerics
on, so each add also computes and allocates its output, as a user's program would.

Raw SimPy, two variants of the same work without any HAL:
- ``store``: the Python loop puts each op into one of two ``simpy.Store`` queues; each stream is a process that
  takes the op, requests the shared compute resource, holds it for the op's time and releases it (what the HAL
  path must do: a host-side issue into a stream plus the engine request).
- ``bare``: each stream process already knows its ops: request, hold, release; nothing is issued from a loop.

The HAL path runs twice: as is, and inside a profiling window (the cost of profiling). Then, on a model with a
last-level cache (``--cached-hardware``), twice more: alone, and with ``--live`` other tensors alive that kernels
touched, so that the cache model holds a range for each: the cost of an op must not grow with what the program
keeps alive (``wia_sim/cache.py``).

Run: ``python benchmarks/sim_throughput.py [--ops 100000]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import simpy
from rich.console import Console
from rich.table import Table

import wia_hal as wia

OP_TIME_S = 3e-6


def hal_rate(ops: int, hardware: str, profile: bool = False, live: int = 0) -> float:
    """``profile``: the loop runs inside a profiling window (ended, so collected, before the clock stops);
    ``live``: that many other tensors of 1,024 floats stay alive, each written by a kernel before the loop."""
    wia.set_backend("sim", hardware=hardware)
    ctx = wia.create_context(wia.ContextConfig(enable_profiling=profile))
    streams = [wia.create_stream(ctx), wia.create_stream(ctx)]
    a = wia.tensor(np.random.default_rng(0).random(16, np.float32), ctx=ctx)
    b = wia.tensor(np.random.default_rng(1).random(16, np.float32), ctx=ctx)
    kept = [wia.relu(wia.empty(1024, ctx=ctx)) for _ in range(live)]
    wia.context_synchronize(ctx)
    start = time.perf_counter()
    profiler = wia.begin_profiling(ctx) if profile else None
    for i in range(ops):
        c = wia.add(a, b, stream=streams[i & 1])
    wia.context_synchronize(ctx)
    if profiler is not None:
        wia.end_profiling(profiler)
        assert wia.get_profile_report(profiler).num_kernels == ops
    elapsed = time.perf_counter() - start
    np.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())
    del kept
    wia.destroy_context(ctx)
    return ops / elapsed


def raw_store_rate(ops: int) -> float:
    env = simpy.Environment()
    compute = simpy.Resource(env, capacity=1)
    queues = [simpy.Store(env), simpy.Store(env)]

    def stream(queue: simpy.Store):  # type: ignore[no-untyped-def]
        while True:
            duration = yield queue.get()
            with compute.request() as request:
                yield request
                yield env.timeout(duration)

    for queue in queues:
        env.process(stream(queue))
    start = time.perf_counter()
    for i in range(ops):
        queues[i & 1].put(OP_TIME_S)
    env.run()
    return ops / (time.perf_counter() - start)


def raw_bare_rate(ops: int) -> float:
    env = simpy.Environment()
    compute = simpy.Resource(env, capacity=1)

    def stream(n: int):  # type: ignore[no-untyped-def]
        for _ in range(n):
            with compute.request() as request:
                yield request
                yield env.timeout(OP_TIME_S)

    env.process(stream(ops // 2))
    env.process(stream(ops - ops // 2))
    start = time.perf_counter()
    env.run()
    return ops / (time.perf_counter() - start)


def best_of(repeats: int, fn, *args):  # type: ignore[no-untyped-def]
    return max(fn(*args) for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs")
    parser.add_argument("--hardware", default="wia-tiny")
    parser.add_argument("--cached-hardware", default="nvidia-a100-sxm4-80gb", help="a model with a last-level cache")
    parser.add_argument("--live", type=int, default=10_000, help="other live tensors in the last two rows")
    args = parser.parse_args()

    hal = best_of(args.repeats, hal_rate, args.ops, args.hardware)
    profiled = best_of(args.repeats, hal_rate, args.ops, args.hardware, True)
    cached = best_of(args.repeats, hal_rate, args.ops, args.cached_hardware)
    crowded = best_of(args.repeats, hal_rate, args.ops, args.cached_hardware, False, args.live)
    store = best_of(args.repeats, raw_store_rate, args.ops)
    bare = best_of(args.repeats, raw_bare_rate, args.ops)

    table = Table(title=f"Simulated ops per wall-clock second ({args.ops:,} tiny ops over 2 streams)")
    table.add_column("path")
    table.add_column("ops/s", justify="right")
    table.add_column("µs/op", justify="right")
    table.add_column("HAL / this", justify="right")
    for name, rate in (
        ("wia.add through the HAL (sim backend, numerics on)", hal),
        ("the same inside a profiling window (begin/end_profiling)", profiled),
        ("raw SimPy: loop issues into 2 Stores, shared resource", store),
        ("raw SimPy: 2 processes, shared resource, no issue loop", bare),
        (f"wia.add on {args.cached_hardware} (a last-level cache model)", cached),
        (f"the same with {args.live:,} other live tensors, each in the cache model", crowded),
    ):
        table.add_row(name, f"{rate:,.0f}", f"{1e6 / rate:.2f}", f"{hal / rate:.2f}")
    Console().print(table)
    print(f"ratio HAL / raw SimPy (store) = {hal / store:.2f} (target >= 0.5)")
    print(f"profiling on costs {hal / profiled - 1:+.0%} wall time (target <= +20%)")
    print(f"{args.live:,} live tensors cost {cached / crowded - 1:+.0%} wall time per op")


if __name__ == "__main__":
    main()
