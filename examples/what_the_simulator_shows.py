"""Short demos of what the simulated device shows: overlap, a missing dependency (and the simulator's report of
it), a kernel bug, and a what-if across chips.

Run: ``python examples/what_the_simulator_shows.py``. ``WIA_SIM_HARDWARE=<model or file.toml>`` runs the overlap
demo on that chip and adds it to the what-if table; the other two demos use the small test chip on purpose.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.table import Table

import wia_hal as wia

MiB = 2**20
console = Console()


def overlap() -> None:
    """A copy on one stream overlaps compute on another: the total is the longer of the two, not the sum."""
    wia.set_backend("sim", hardware=os.environ.get("WIA_SIM_HARDWARE", "nvidia-a100-sxm4-80gb"))
    ctx = wia.create_context()
    chip = wia.get_device_info(ctx.device)
    a = wia.tensor(np.random.default_rng(1).random(1 << 26, np.float32), ctx=ctx)  # 256 MiB
    host = wia.alloc(ctx, 64 * MiB, wia.MemoryType.PINNED)
    dev = wia.alloc(ctx, 64 * MiB)
    copy_stream, compute_stream = wia.create_stream(ctx), wia.create_stream(ctx)
    events = [wia.create_event() for _ in range(6)]

    def timed(first: int, stream: wia.Stream, work) -> None:  # type: ignore[no-untyped-def]
        wia.event_record(events[first], stream)
        work()
        wia.event_record(events[first + 1], stream)

    wia.context_synchronize(ctx)
    wia.event_record(events[4], ctx.default_stream)
    timed(0, copy_stream, lambda: wia.copy_async(host, dev, 64 * MiB, copy_stream))
    timed(2, compute_stream, lambda: wia.add(a, a, stream=compute_stream))
    wia.context_synchronize(ctx)
    wia.event_record(events[5], ctx.default_stream)
    wia.event_synchronize(events[5])
    copy_ms = wia.event_elapsed_time(events[0], events[1])
    add_ms = wia.event_elapsed_time(events[2], events[3])
    total_ms = wia.event_elapsed_time(events[4], events[5])
    console.print(
        f"[bold]overlap[/bold] on {chip.name} ({escape(chip.model_file)}): 64 MiB pinned H2D copy {copy_ms:.3f} ms, "
        f"256 MiB add {add_ms:.3f} ms, "
        f"both on two streams {total_ms:.3f} ms (sum would be {copy_ms + add_ms:.3f} ms)"
    )
    wia.destroy_context(ctx)


def missing_dependency() -> None:
    """A reader on another stream without an event sees the old data, as it would on hardware; the simulator
    reports the missing dependency at the reader's call (a StreamHazardWarning naming both commands, both streams,
    the bytes and the fix), from what was submitted, whatever the timing happened to be."""
    wia.set_backend("sim", hardware="wia-tiny", hazards="warn")  # the default; "error" raises at the call instead
    ctx = wia.create_context()
    x = wia.zeros(1 << 18, ctx=ctx)
    staged = wia.alloc(ctx, x.nbytes, wia.MemoryType.PINNED)
    wia.memory_ptr(staged).view(np.float32)[:] = 1.0
    wia.context_synchronize(ctx)
    results = {}
    reports: dict[bool, list[str]] = {}
    for with_event in (False, True):
        writer, reader = wia.create_stream(ctx), wia.create_stream(ctx)
        wia.copy_async(staged, x.memory, x.nbytes, writer)
        if with_event:
            done = wia.create_event()
            wia.event_record(done, writer)
            wia.stream_wait_event(reader, done)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", wia.StreamHazardWarning)
            results[with_event] = float(wia.relu(x, stream=reader).numpy()[0])
        reports[with_event] = [str(w.message) for w in caught if issubclass(w.category, wia.StreamHazardWarning)]
        wia.context_synchronize(ctx)
        wia.copy_async(wia.alloc(ctx, x.nbytes, wia.MemoryType.PINNED), x.memory, x.nbytes)  # back to zeros
        wia.context_synchronize(ctx)
    console.print(
        f"[bold]missing dependency[/bold]: reader without stream_wait_event saw {results[False]:.0f} (stale), "
        f"with it {results[True]:.0f}"
    )
    for report in reports[False]:
        console.print(f"  the simulator's report, at the reader's line: {escape(report)}")
    console.print(f"  with the event: {len(reports[True])} reports")
    wia.destroy_context(ctx)


def kernel_bug() -> None:
    """A custom kernel with an off-by-one bound: hardware would corrupt memory silently; the simulator names it."""
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    source = """
__kernel void scale(__global float* x, float s, int n) {
    int i = get_global_id(0);
    if (i <= n) x[i] = s * x[i];   // should be i < n
}
"""
    kernel = wia.compile_kernel(ctx, source, "scale")
    x = wia.tensor(np.ones(1000, np.float32), ctx=ctx)
    try:
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=1024, local_size=256), x, 2.0, 1000)
    except wia.InvalidMemoryError as e:
        console.print(f"[bold]kernel bug[/bold]: {escape(str(e))}")
    wia.destroy_context(ctx)


def what_if() -> None:
    """The same programs timed on every shipped chip (and the environment's, if it names a file) at real size,
    without computing (numerics off)."""
    from wia_sim.hwmodel import available_models

    table = Table(title="what-if, numerics off: y = relu(x·w + w) on 16384×16384 float32; c = a @ a on 8192² bfloat16")
    for column in ("hardware model", "memory", "elementwise ms", "bound", "matmul ms", "TFLOP/s", "algorithm"):
        table.add_column(column, justify="left" if column in ("hardware model", "bound", "algorithm") else "right")
    chosen = os.environ.get("WIA_SIM_HARDWARE")
    for name in available_models() + ([chosen] if chosen and chosen not in available_models() else []):
        wia.set_backend("sim", hardware=name, numerics=False)
        ctx = wia.create_context()
        info = wia.get_device_info(ctx.device)
        row = [name, f"{info.memory_size / 2**30:,.1f} GiB"]
        try:
            x = wia.empty((16384, 16384), ctx=ctx)
            w = wia.empty(16384, ctx=ctx)
            y = wia.relu(wia.add(wia.mul(x, w), w))
            wia.context_synchronize(ctx)
            report = wia.explain(y)
            row += [f"{report.duration_ms:.3f} (relu)", report.bound]
            del x, w, y
        except wia.OutOfMemoryError:
            row += ["does not fit", ""]
        try:
            a = wia.empty((8192, 8192), wia.bfloat16, ctx=ctx)
            c = wia.matmul(a, a)
            report = wia.explain(c)
            row += [
                f"{report.duration_ms:.3f}",
                f"{report.useful_flops / report.duration_ms / 1e9:,.0f}",
                report.algorithm,
            ]
        except wia.OutOfMemoryError:
            row += ["does not fit", "", ""]
        except wia.NotSupportedError:
            row += ["no bfloat16", "", ""]
        table.add_row(*row)
        wia.destroy_context(ctx)
    console.print(table)


if __name__ == "__main__":
    overlap()
    missing_dependency()
    kernel_bug()
    what_if()
