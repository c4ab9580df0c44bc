"""Fidelity against a device we can run: the simulator's model of this machine's CPU against the CPU itself (PoCL,
through the opencl backend), and the wall time of one workload on the simulator, PoCL and Oclgrind.

(a) **Predicted against measured.** Each row runs one op or custom kernel through the public API on both backends
the same way: a long op first (so that the device is busy while the host enqueues), an event, ``R`` copies of the
row's op, an event; the time per op is the events' interval over ``R``. On the simulator (``--hardware``, default
the shipped ``host-cpu-amd-epyc-zen4-2vcpu``, timing only: no data) that is the prediction, once (it is
deterministic); on PoCL it is measured, best of ``--repeats`` after a warm-up that builds the kernels. The long op
keeps the host's own cost per call (the HAL's Python and PyOpenCL) out of the device time, as a prediction leaves it
out. Contexts have a default memory pool, so outputs reuse memory already touched (a fresh output on a CPU device
would pay page faults). ``error`` is (predicted - measured) / measured; ``bound`` is what the cost model says limits
the op (``wia.explain``).

(b) **Wall time of one workload on every backend.** A small MLP forward pass (batch 64, 784→256→10, relu, softmax,
the result read back) and the kernel corpus (``tests/kernels/corpus.py``: every case once: upload, launch, read back,
check against the reference), on the simulator (numerics and kernel checks on, as users run it), PoCL and
Oclgrind. ``cold`` is the first run (it builds the kernels), ``warm`` the best of ``--repeats`` after it. Oclgrind
interprets every instruction: one MLP pass takes about 20 s there, so it gets one warm run (none with ``--quick``);
the corpus is small enough to run whole everywhere (``--oclgrind-cases N`` keeps the first N), except what a device
cannot build (Oclgrind 21.10: ``uint_hash``) and the one case that needs a global work offset, which the HAL's
launch has not.

A missing device is reported with the reason and its rows are left empty. Run: ``python benchmarks/backends.py``
(about three minutes here; ``--quick``: fewer sizes, about a minute). Findings: docs/cost_model.md, "Fidelity
against a device we can run: the CPU".
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

import wia_hal as wia

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.kernels import corpus  # noqa: E402  (the corpus is test data, found from the checkout)

MODEL = "host-cpu-amd-epyc-zen4-2vcpu"
POOL = 64 << 20
BLOCKER = 384
"""The long op before each timed window: a 384×384×384 matmul (tens of milliseconds on PoCL, longer than the host
needs to enqueue a window's ops)."""
TARGET_MS = 2.0
"""A timed window holds ``R`` ops: enough for about 2 ms of predicted device time, at most 20."""

Run = Callable[[wia.Stream], object]
Make = Callable[[wia.Context, bool], Run]
"""A run enqueues the row's op once and returns what ``wia.explain`` takes for it (the output, or the kernel)."""


# -- (a) the rows ----------------------------------------------------------------------------------------------------


@dataclass
class Row:
    name: str
    make: Make  # (context, with data) -> a function that enqueues the row's op once on a stream
    predicted_ms: float = math.nan
    explained_ms: float = math.nan  # wia.explain's duration of one op (the window's time should equal it)
    bound: str = ""
    measured_ms: float = math.nan
    samples: list[float] = field(default_factory=list)

    @property
    def error(self) -> float:
        return (self.predicted_ms - self.measured_ms) / self.measured_ms


def _tensor(ctx: wia.Context, shape: tuple[int, ...], data: bool, value: float = 0.5) -> wia.Tensor:
    if not data:
        return wia.empty(shape, wia.float32, ctx=ctx)
    rng = np.random.default_rng(0)
    return wia.tensor((value * rng.standard_normal(shape)).astype(np.float32), ctx=ctx)


def _size_label(nbytes: int) -> str:
    return f"{nbytes >> 20} MiB" if nbytes >= 1 << 20 else f"{nbytes >> 10} KiB"


def _elementwise(op: str, nbytes: int) -> Row:
    n = nbytes // 4

    def make(ctx: wia.Context, data: bool) -> Run:
        a, b = _tensor(ctx, (n,), data), _tensor(ctx, (n,), data)
        fn: Any = getattr(wia, op)
        if op in ("add", "mul"):
            return lambda s: fn(a, b, stream=s)
        return lambda s: fn(a, stream=s)

    return Row(f"{op} {_size_label(nbytes)}", make)


def _op_row(name: str, shapes: list[tuple[int, ...]], call: Callable[..., object]) -> Row:
    def make(ctx: wia.Context, data: bool) -> Run:
        tensors = [_tensor(ctx, shape, data) for shape in shapes]
        return lambda s: call(*tensors, stream=s)

    return Row(name, make)


def _kernel_row(name: str, file: str, kernel: str, args: Callable[[wia.Context, bool], list[Any]], config: Any) -> Row:
    source = (corpus.CORPUS_DIR / file).read_text()

    def make(ctx: wia.Context, data: bool) -> Run:
        compiled = wia.compile_kernel(ctx, source, kernel)
        for index, value in enumerate(args(ctx, data)):
            wia.set_kernel_arg(compiled, index, value)

        def run(s: wia.Stream) -> wia.Kernel:
            wia.launch_kernel_async(compiled, config, s)
            return compiled  # what explain takes for a launch

        return run

    return Row(name, make)


def rows(quick: bool) -> list[Row]:
    sizes = [64 << 10, 16 << 20] if quick else [64 << 10, 1 << 20, 16 << 20, 256 << 20]
    table = [_elementwise(op, nbytes) for op in ("add", "mul", "relu", "gelu") for nbytes in sizes]
    table.append(_op_row("sum 16 MiB", [(4 << 20,)], lambda a, stream: wia.sum(a, stream=stream)))
    table.append(_op_row("softmax 4096×1024", [(4096, 1024)], lambda a, stream: wia.softmax(a, stream=stream)))
    for m in (256, 512) if quick else (256, 512, 1024):
        table.append(_op_row(f"matmul {m}", [(m, m), (m, m)], lambda a, b, stream: wia.matmul(a, b, stream=stream)))
    pad = wia.ConvConfig(padding=(1, 1))
    table.append(
        _op_row(
            "conv2d 4×64×56² * 64×3² pad 1",
            [(4, 64, 56, 56), (64, 64, 3, 3)],
            lambda x, w, stream: wia.conv2d(x, w, pad, stream=stream),
        )
    )
    if not quick:
        table.append(
            _op_row(
                "conv2d 4×256×28² * 128×1²",
                [(4, 256, 28, 28), (128, 256, 1, 1)],
                lambda x, w, stream: wia.conv2d(x, w, stream=stream),
            )
        )
    n = 4 << 20
    table.append(
        _kernel_row(
            "kernel vector_add 16 MiB",
            "vector_add.cl",
            "vector_add",
            lambda ctx, data: [*(_tensor(ctx, (n,), data) for _ in range(3)), n],
            wia.LaunchConfig(global_size=n, local_size=64),
        )
    )
    m = 256 if quick else 512
    table.append(
        _kernel_row(
            f"kernel matmul_tiled {m}",
            "matmul_tiled.cl",
            "matmul_tiled",
            lambda ctx, data: [m, m, m, *(_tensor(ctx, (m, m), data) for _ in range(3))],
            wia.LaunchConfig(global_size=(m, m), local_size=(16, 16)),
        )
    )
    return table


def _window_ms(stream: wia.Stream, run: Run, blocker: Run, reps: int) -> float:
    """Device time per op of ``reps`` back-to-back ops, enqueued while ``blocker`` keeps the device busy."""
    blocker(stream)
    start, end = wia.create_event(), wia.create_event()
    wia.event_record(start, stream)
    keep = [run(stream) for _ in range(reps)]  # outputs live until the window is timed
    wia.event_record(end, stream)
    wia.event_synchronize(end)
    del keep
    return wia.event_elapsed_time(start, end) / reps


def _reps(row: Row) -> int:
    return max(1, min(20, math.ceil(TARGET_MS / row.predicted_ms))) if row.predicted_ms > 0 else 1


def predict(table: list[Row], hardware: str) -> None:
    """The simulator's time per op of every row (timing only: shapes, no data)."""
    wia.set_backend("sim", hardware=hardware, numerics=False, kernel_checks=False)
    ctx = wia.create_context(wia.ContextConfig(memory_pool_size=POOL))
    stream = wia.create_stream(ctx)
    a = wia.empty((BLOCKER, BLOCKER), wia.float32, ctx=ctx)

    def blocker(s: wia.Stream) -> object:
        return wia.matmul(a, a, stream=s)

    for row in table:
        run = row.make(ctx, False)
        done = run(stream)
        wia.stream_synchronize(stream)  # a custom kernel is counted, and costed, when it runs
        report = wia.explain(done)  # type: ignore[arg-type]
        row.bound, row.explained_ms = report.bound, report.duration_ms
        row.predicted_ms = _window_ms(stream, run, blocker, 1)
    wia.destroy_context(ctx)


def measure(table: list[Row], device: str, repeats: int, console: Console) -> str:
    """PoCL's time per op of every row, best of ``repeats``; the empty string, or why there is no such device."""
    try:
        wia.set_backend("opencl", device=device)
        ctx = wia.create_context(wia.ContextConfig(memory_pool_size=POOL))
    except wia.WiaError as e:
        return f"{type(e).__name__}: {e}"
    stream = wia.create_stream(ctx)
    a = _tensor(ctx, (BLOCKER, BLOCKER), True)

    def blocker(s: wia.Stream) -> object:
        return wia.matmul(a, a, stream=s)

    blocker(stream)
    for row in table:
        run = row.make(ctx, True)
        run(stream)  # warm-up: builds the kernels, touches the pool's memory
        reps = _reps(row)
        row.samples = [_window_ms(stream, run, blocker, reps) for _ in range(repeats)]
        row.measured_ms = min(row.samples)
        console.print(f"  {row.name}: {row.measured_ms:.4g} ms", highlight=False)
    wia.destroy_context(ctx)
    return ""


def fidelity_table(table: list[Row], hardware: str, device_note: str) -> Table:
    out = Table(
        title=f"(a) predicted (sim, {hardware}) against measured (PoCL), time per op",
        caption=device_note or "error = (predicted - measured) / measured; bound: the cost model's",
    )
    for column in ("row", "bound", "predicted ms", "measured ms", "measured / predicted", "error"):
        out.add_column(column, justify="left" if column in ("row", "bound") else "right")
    for row in table:
        measured = not math.isnan(row.measured_ms)
        out.add_row(
            row.name,
            row.bound,
            f"{row.predicted_ms:.4g}",
            f"{row.measured_ms:.4g}" if measured else "—",
            f"{row.measured_ms / row.predicted_ms:.3g}×" if measured else "—",
            f"{row.error:+.0%}" if measured else "—",
        )
    return out


def summary(table: list[Row]) -> list[str]:
    done = [r for r in table if not math.isnan(r.measured_ms)]
    if not done:
        return ["no measured rows"]
    errors = [abs(r.error) for r in done]
    worst = max(done, key=lambda r: abs(r.error))
    lines = [
        f"{len(done)} rows: median |error| {statistics.median(errors):.0%}, worst {worst.name} "
        f"({worst.error:+.0%}: predicted {worst.predicted_ms:.4g} ms, measured {worst.measured_ms:.4g} ms)"
    ]
    groups: dict[str, list[Row]] = {}
    for r in done:
        groups.setdefault(r.name.split()[0] if not r.name.startswith("kernel") else "kernel", []).append(r)
    for name, members in groups.items():
        ratios = [r.measured_ms / r.predicted_ms for r in members]
        lines.append(
            f"  {name}: measured / predicted from {min(ratios):.3g}× to {max(ratios):.3g}× ({len(members)} rows)"
        )
    return lines


# -- (b) wall time of one workload -----------------------------------------------------------------------------------


def mlp(ctx: wia.Context, stream: wia.Stream) -> Callable[[], np.ndarray]:
    """A forward pass: softmax(relu(x W1 + b1) W2 + b2), batch 64, 784→256→10; the result read back."""
    rng = np.random.default_rng(0)

    def t(*shape: int, scale: float = 0.05) -> wia.Tensor:
        return wia.tensor((scale * rng.standard_normal(shape)).astype(np.float32), ctx=ctx)

    x, w1, b1, w2, b2 = t(64, 784, scale=1.0), t(784, 256), t(1, 256), t(256, 10), t(1, 10)

    def forward() -> np.ndarray:
        h = wia.relu(wia.add(wia.matmul(x, w1, stream=stream), b1, stream=stream), stream=stream)
        y = wia.softmax(wia.add(wia.matmul(h, w2, stream=stream), b2, stream=stream), stream=stream)
        return y.numpy()

    return forward


def corpus_cases() -> tuple[list[corpus.KernelCase], str]:
    """The cases a HAL launch can run (the HAL has no global work offset), and what was left out."""
    cases = [c for c in corpus.CASES if c.global_offset is None]
    skipped = [c.name for c in corpus.CASES if c.global_offset is not None]
    return cases, f"{len(cases)} of {len(corpus.CASES)} cases ({', '.join(skipped)}: needs a global offset)"


def corpus_run(
    ctx: wia.Context, stream: wia.Stream, cases: list[corpus.KernelCase], failed: dict[str, str]
) -> Callable[[], int]:
    """Every case once (kernels compiled on the first call only): upload, launch, read back, check. Returns the
    number of cases that match their reference; a case the device cannot build goes to ``failed`` with the error
    (Oclgrind 21.10 cannot run ``uint_hash``: ``tests/kernels/cldevices.py`` KNOWN_LIMITS) and is not run again."""
    kernels: dict[str, wia.Kernel] = {}
    draws = {c.name: c.draw(np.random.default_rng(20250611)) for c in cases}

    def run() -> int:
        passed = 0
        for case in cases:
            if case.name in failed:
                continue
            launch = draws[case.name]
            if case.name not in kernels:
                try:
                    kernels[case.name] = wia.compile_kernel(ctx, case.source(), case.kernel, case.options)
                except wia.WiaError as e:
                    failed[case.name] = e.code.name
                    continue
            kernel = kernels[case.name]
            buffers: dict[str, tuple[wia.Memory, np.ndarray]] = {}
            for index, (name, arg) in enumerate(launch.args.items()):
                if isinstance(arg, corpus.Buffer):  # raw bytes: the corpus has uint and ulong data, no HAL dtype
                    memory = _upload(ctx, stream, arg.array)
                    buffers[name] = (memory, arg.array)
                    wia.set_kernel_arg(kernel, index, memory)
                elif isinstance(arg, corpus.Local):
                    wia.set_kernel_arg(kernel, index, arg.nbytes)
                else:
                    wia.set_kernel_arg(kernel, index, arg.numpy())
            config = wia.LaunchConfig(global_size=launch.global_size, local_size=launch.local_size)
            wia.launch_kernel_async(kernel, config, stream)
            outputs = {name: _download(ctx, stream, *buffers[name]) for name in corpus.output_names(launch)}
            passed += not case.check(launch, outputs)
            for memory, _ in buffers.values():
                wia.free(memory)
        return passed

    return run


def _upload(ctx: wia.Context, stream: wia.Stream, array: np.ndarray) -> wia.Memory:
    """``array``'s bytes in DEVICE memory, copied from HOST memory in ``stream``'s order."""
    host = wia.alloc(ctx, array.nbytes, wia.MemoryType.HOST)
    wia.memory_ptr(host)[:] = np.ascontiguousarray(array).reshape(-1).view(np.uint8)
    device = wia.alloc(ctx, array.nbytes)
    wia.copy_async(host, device, array.nbytes, stream)
    wia.free(host)  # a copy from pageable memory returns once the data has moved
    return device


def _download(ctx: wia.Context, stream: wia.Stream, memory: wia.Memory, like: np.ndarray) -> np.ndarray:
    host = wia.alloc(ctx, like.nbytes, wia.MemoryType.HOST)
    wia.copy_async(memory, host, like.nbytes, stream)
    wia.stream_synchronize(stream)
    data = wia.memory_ptr(host).copy().view(like.dtype).reshape(like.shape)
    wia.free(host)
    return data


@dataclass
class Wall:
    backend: str
    workload: str
    cold_s: float = math.nan
    warm_s: float = math.nan
    device_ms: float = math.nan
    note: str = ""


DEVICE_CLOCK = {
    "sim": "simulated device time",
    "PoCL": "measured (profiling events)",
    "Oclgrind": "Oclgrind's own clock (it interprets)",
}


def wall_times(
    label: str, backend: str, options: dict[str, Any], repeats: int, mlp_repeats: int, max_cases: int = 0
) -> list[Wall]:
    """The two workloads on one backend (``mlp_repeats`` warm runs of the MLP, at most ``max_cases`` corpus cases
    when not 0); a missing device gives rows that say why."""
    results = [Wall(label, "MLP forward 64×784→256→10"), Wall(label, "kernel corpus")]
    try:
        wia.set_backend(backend, **options)
        ctx = wia.create_context(wia.ContextConfig(memory_pool_size=POOL))
    except wia.WiaError as e:
        for w in results:
            w.note = f"not run: {type(e).__name__}: {str(e).splitlines()[0][:90]}"
        return results
    stream = wia.create_stream(ctx)
    forward = mlp(ctx, stream)
    mlp_row, corpus_row = results
    t0 = time.perf_counter()
    forward()
    mlp_row.cold_s = time.perf_counter() - t0
    if mlp_repeats:
        mlp_row.warm_s = min(_timed(forward) for _ in range(mlp_repeats))
    start, end = wia.create_event(), wia.create_event()
    wia.event_record(start, stream)
    forward()
    wia.event_record(end, stream)
    wia.event_synchronize(end)
    mlp_row.device_ms = wia.event_elapsed_time(start, end)
    mlp_row.note = f"device ms: events around one pass, {DEVICE_CLOCK.get(label, 'measured')}"
    if mlp_repeats < repeats:
        mlp_row.note += f"; warm: {mlp_repeats} run(s)" if mlp_repeats else "; no warm run (--quick)"
    cases, note = corpus_cases()
    limited = _known_limits(label)
    if limited:
        cases = [c for c in cases if c.name not in limited]
        note = "; ".join(f"skipped {name}: {why}" for name, why in limited.items()) + "; " + note
    if max_cases and len(cases) > max_cases:
        cases = cases[:max_cases]
        note = f"first {len(cases)} cases only (--oclgrind-cases); " + note
    failed: dict[str, str] = {}
    run = corpus_run(ctx, stream, cases, failed)
    t0 = time.perf_counter()
    passed = run()
    corpus_row.cold_s = time.perf_counter() - t0
    corpus_row.warm_s = min(_timed(run) for _ in range(repeats))
    could_not = "; cannot build " + ", ".join(f"{k} ({v})" for k, v in failed.items()) if failed else ""
    corpus_row.note = f"{passed}/{len(cases)} match the reference{could_not}; {note}"
    wia.destroy_context(ctx)
    return results


def _known_limits(label: str) -> dict[str, str]:
    """Cases the device cannot run for a known limitation of its implementation (``tests/kernels/cldevices.py``)."""
    try:
        from tests.kernels.cldevices import KNOWN_LIMITS
    except ImportError:  # without PyOpenCL: nothing to skip on a device that is not there
        return {}
    return {case: why for (device, case), why in KNOWN_LIMITS.items() if device == label.lower()}


def _timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def wall_table(walls: list[Wall]) -> Table:
    out = Table(
        title="(b) wall time of one workload per backend (cold: the first run in this process, which builds the "
        "kernels (a) did not; warm: the best run after it)"
    )
    for column in ("backend", "workload", "cold s", "warm s", "device ms", "note"):
        out.add_column(column, justify="right" if column.endswith(("s", "ms")) else "left")
    for w in walls:
        out.add_row(
            w.backend,
            w.workload,
            "—" if math.isnan(w.cold_s) else f"{w.cold_s:.3g}",
            "—" if math.isnan(w.warm_s) else f"{w.warm_s:.3g}",
            "—" if math.isnan(w.device_ms) else f"{w.device_ms:.3g}",
            w.note,
        )
    return out


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per row and workload (best is kept)")
    parser.add_argument("--quick", action="store_true", help="fewer sizes and shapes (about a minute)")
    parser.add_argument("--hardware", default=MODEL, help="the simulator's model of this machine's CPU")
    parser.add_argument("--device", default="pocl", help="the opencl backend's CPU device (default: pocl)")
    parser.add_argument(
        "--oclgrind-cases", type=int, default=0, help="run only the first N corpus cases on Oclgrind (0: all)"
    )
    args = parser.parse_args(argv)
    console = Console()
    started = time.perf_counter()
    console.print(f"load average before: {_load()} (other processes on this machine slow the measured rows)")

    table = rows(args.quick)
    console.print(f"(a) predicting {len(table)} rows on the simulator ({args.hardware}) …", highlight=False)
    predict(table, args.hardware)
    console.print(f"(a) measuring them on PoCL (--device {args.device}), best of {args.repeats} …", highlight=False)
    why = measure(table, args.device, args.repeats, console)
    note = f"PoCL not measured: {why}" if why else ""
    console.print(fidelity_table(table, args.hardware, note))
    for line in summary(table):
        console.print(line, highlight=False)

    console.print("(b) wall time on each backend …", highlight=False)
    walls = wall_times("sim", "sim", {"hardware": args.hardware}, args.repeats, args.repeats)
    walls += wall_times("PoCL", "opencl", {"device": args.device}, args.repeats, args.repeats)
    # Oclgrind interprets every instruction: one MLP pass takes about 20 s here, so one warm run (none with --quick)
    slow = 0 if args.quick else 1
    walls += wall_times("Oclgrind", "opencl", {"device": "oclgrind"}, args.repeats, slow, args.oclgrind_cases)
    console.print(wall_table(walls))
    wia.set_backend("sim")
    console.print(f"total {time.perf_counter() - started:.0f} s; load average after: {_load()}", highlight=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
