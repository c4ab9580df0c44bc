"""What the simulator shows of a multi-device system: how each pair of devices is connected, what a peer copy
costs, and an all-reduce across message sizes on several shipped systems, in nccl-tests' terms (bus bandwidth).

Run: ``python examples/multi_device.py``. Timing only (``numerics=False``): sizes up to 1 GiB per device on eight
simulated devices cost no host memory. Collectives are an extension beyond the spec (docs/collectives.md).
"""

from __future__ import annotations

import numpy as np
from rich.table import Table

import wia_hal as wia
from wia_hal.tables import make_console, print_table

SYSTEMS = ("nvidia-dgx-a100", "nvidia-hgx-h100", "amd-mi300x-platform", "google-tpu-v5e-16")
SIZES = (1 << 10, 1 << 20, 64 << 20, 1 << 30)  # bytes per device: latency-bound to bandwidth-bound
console = make_console()


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n // scale} {unit}"
    return f"{n} B"


def peers(system: str) -> None:
    """How device 0 reaches the others: direct, through a switch, over several hops, or only through the host."""
    wia.set_backend("sim", hardware=system, numerics=False)
    table = Table(title=f"{system}: device 0 to each other device (wia.get_peer_info)")
    for column in ("to", "path", "hops", "GB/s", "latency (us)", "interface"):
        table.add_column(column, no_wrap=column == "interface")
    for dst in range(1, wia.get_device_count()):
        info = wia.get_peer_info(wia.get_device(0), wia.get_device(dst))
        table.add_row(
            str(dst), info.path, str(info.hops), f"{info.bandwidth / 1e9:.0f}", f"{info.latency_ms * 1e3:.2f}",
            info.interface,
        )  # fmt: skip
    print_table(console, table)


def all_reduce_sweep() -> None:
    """One all-reduce per size on every device of each system; the algorithm AUTO picked, the time and busbw."""
    table = Table(title="all_reduce (float32, sum) on every device of each system: busbw as nccl-tests defines it")
    table.add_column("system", no_wrap=True)
    table.add_column("devices")
    for size in SIZES:
        table.add_column(_size(size), justify="right")
    for system in SYSTEMS:
        wia.set_backend("sim", hardware=system, numerics=False)
        contexts = [wia.create_context(wia.ContextConfig(device_id=i)) for i in range(wia.get_device_count())]
        cells = []
        for size in SIZES:
            tensors = [wia.empty((size // 4,), np.float32, ctx=c) for c in contexts]
            results = wia.all_reduce(tensors)
            wia.context_synchronize(contexts[0])
            report = wia.explain_collective(results[0])
            cells.append(f"{report.busbw / 1e9:.3g} GB/s\n{report.time_ms * 1e3:.1f} us {report.algorithm}")
            for t in (*tensors, *results):
                wia.release_tensor(t)
        table.add_row(system, str(len(contexts)), *cells)
        for c in contexts:
            wia.destroy_context(c)
    print_table(console, table)


def main() -> None:
    peers("google-tpu-v5e-16")
    all_reduce_sweep()
    console.print(
        "Predicted against published nccl-tests/rccl-tests results: python benchmarks/fidelity.py (collectives)."
    )
    wia.set_backend("sim")


if __name__ == "__main__":
    main()
