"""Predicted vs measured: the simulator against published measurements of real accelerators.

Every row of ``calibration.csv`` (``shared/fidelity/`` beside the checkout, or ``--csv``) is re-run on the
simulated device of that name, the way the row's method describes, and its figure read off the simulated clocks:

- ``matmul``: back-to-back products of the row's shape and dtype on one stream (the library's matmul cost: tiles
  in waves, the fitted efficiency, the launch); TFLOP/s = 2·m·n·k / time per product.
- ``stream_scale`` / ``stream_triad``: one streaming kernel over 2^27-element float64 arrays (read b, write a;
  read b and c, write a); GB/s = bytes read plus written / time.
- ``d2d_copy``: one device-to-device copy of ``size_bytes`` / 2 bytes; TB/s = bytes read plus written / time.
- ``launch_overhead``: 10,000 back-to-back small kernels (the 64 kB ``scale`` of gpu-small-kernels) issued by
  the host one launch call at a time; µs per kernel.
- ``h2d_pinned`` / ``d2h_pinned``: one 1 GiB copy between pinned host memory and the device; GB/s.

Rows of ops that come with multi-device support (``p2p_copy``, ``allreduce_8``) are listed as not covered.

``--fit`` prints the efficiency terms (``[efficiency]`` of the model files) that minimise the error: per device
where the device has rows, else per architecture family, else the median of the fitted devices.

Run: ``python benchmarks/fidelity.py [--csv PATH] [--fit]``.
"""

from __future__ import annotations

import argparse
import csv
import math
import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np
from rich.console import Console
from rich.table import Table

from wia_sim.commands import Command, Copy, Kernel
from wia_sim.costmodel import elementwise_cost, transfer_cost
from wia_sim.hwmodel import HardwareModel, available_models, load_model
from wia_sim.library import OPS, Operand
from wia_sim.machine import Machine
from wia_sim.memory import Buffer, MemoryKind

NOT_COVERED = {"p2p_copy", "allreduce_8"}
DTYPES = {
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float16": np.dtype(np.float16),
    "float32": np.dtype(np.float32),
    "float8_e4m3": np.dtype(ml_dtypes.float8_e4m3fn),
}
ARITHMETIC = {"bfloat16": "bfloat16", "float16": "float16", "float32": "float32", "float8_e4m3": "float8"}
STREAM_ELEMENTS = 1 << 27
LINK_BYTES = 1 << 30
UNIT_SCALE = {"TFLOP/s": 1e12, "GB/s": 1e9, "TB/s": 1e12, "us": 1e-6}


@dataclass
class Row:
    device: str
    op: str
    dtype: str
    m: int
    n: int
    k: int
    size_bytes: float
    measured: float
    unit: str
    source: str


def read_rows(path: Path) -> list[Row]:
    rows = []
    with path.open(newline="") as f:
        for r in csv.DictReader(f):
            rows.append(
                Row(
                    device=r["device"],
                    op=r["op"],
                    dtype=r["dtype"],
                    m=int(r["m"] or 0),
                    n=int(r["n"] or 0),
                    k=int(r["k"] or 0),
                    size_bytes=float(r["size_bytes"] or 0),
                    measured=float(r["measured"]),
                    unit=r["unit"],
                    source=r["source"],
                )
            )
    return rows


def _timed(model: HardwareModel, commands: Callable[[Machine], list[Command]], launches: int = 0) -> float:
    """Seconds per command when the host issues ``commands`` back to back on one stream (one launch call each
    when ``launches``), from the first start to the last end."""
    machine = Machine(model, numerics=False)
    stream = machine.devices[0].stream()
    submitted = []
    for command in commands(machine):
        if launches:
            machine.host_spend(model.host.launch_overhead)
        submitted.append(stream.submit(command))
    machine.wait(submitted[-1])
    return (submitted[-1].ended - submitted[0].started) / len(submitted)


def _matmul(model: HardwareModel, row: Row) -> float:
    dtype = DTYPES[row.dtype]
    operands = [Operand((row.m, row.k), dtype), Operand((row.k, row.n), dtype)]
    out = Operand((row.m, row.n), np.dtype(np.float32) if dtype.itemsize == 1 else dtype)
    cost = OPS["matmul"].cost(model, operands, out, {"arithmetic": ARITHMETIC[row.dtype], "algorithm": "AUTO"})
    seconds = _timed(model, lambda m: [Kernel(cost, None) for _ in range(10)], launches=1)
    return 2.0 * row.m * row.n * row.k / seconds


def _stream(model: HardwareModel, row: Row) -> float:
    arrays, flops = {"stream_scale": (2, 1), "stream_triad": (3, 2)}[row.op]
    nbytes = arrays * STREAM_ELEMENTS * 8
    cost = elementwise_cost(model, row.op, STREAM_ELEMENTS, flops, nbytes, "float64")
    return nbytes / _timed(model, lambda m: [Kernel(cost, None) for _ in range(3)], launches=1)


def _copy(model: HardwareModel, src: MemoryKind, dst: MemoryKind, nbytes: int) -> float:
    cost = transfer_cost(model, src, dst, nbytes)

    def commands(machine: Machine) -> list[Command]:
        device = machine.devices[0]
        a, b = Buffer(0, src, nbytes, None, False), Buffer(0, dst, nbytes, None, False)
        return [Copy(device.engines[cost.route], cost, a, 0, b, 0)]

    return _timed(model, commands)


def _launch(model: HardwareModel, row: Row) -> float:
    elements = 4096  # gpu-small-kernels' smallest size: 2 × 4096 doubles = 64 kB per kernel
    cost = elementwise_cost(model, "scale", elements, 1, 2 * elements * 8, "float64")
    return _timed(model, lambda m: [Kernel(cost, None) for _ in range(10_000)], launches=1)


def predict(model: HardwareModel, row: Row) -> float:
    """The row's figure on the simulated device, in the row's unit."""
    if row.op == "matmul":
        value = _matmul(model, row)
    elif row.op in ("stream_scale", "stream_triad"):
        value = _stream(model, row)
    elif row.op == "d2d_copy":
        half = int(row.size_bytes // 2)
        value = 2 * half / _copy(model, MemoryKind.DEVICE, MemoryKind.DEVICE, half)
    elif row.op == "h2d_pinned":
        value = LINK_BYTES / _copy(model, MemoryKind.PINNED, MemoryKind.DEVICE, LINK_BYTES)
    elif row.op == "d2h_pinned":
        value = LINK_BYTES / _copy(model, MemoryKind.DEVICE, MemoryKind.PINNED, LINK_BYTES)
    elif row.op == "launch_overhead":
        value = _launch(model, row)
    else:
        raise ValueError(f"no prediction for op {row.op!r}")
    return value / UNIT_SCALE[row.unit]


def report(rows: list[Row], console: Console) -> tuple[float, float]:
    table = Table(title="Predicted vs measured (calibration.csv)")
    for column in ("device", "op", "dtype", "shape / size", "measured", "predicted", "unit", "error"):
        table.add_column(column, justify="right" if column in ("measured", "predicted", "error") else "left")
    errors = []
    for row in rows:
        shape = f"{row.m}×{row.n}×{row.k}" if row.m else (f"{row.size_bytes:.3g} B" if row.size_bytes else "")
        if row.op in NOT_COVERED:
            table.add_row(row.device, row.op, row.dtype, shape, f"{row.measured:g}", "—", row.unit, "multi-device")
            continue
        predicted = predict(load_model(row.device), row)
        error = (predicted - row.measured) / row.measured
        errors.append(abs(error))
        style = "red" if abs(error) > 0.25 else ("yellow" if abs(error) > 0.10 else "green")
        table.add_row(
            row.device,
            row.op,
            row.dtype,
            shape,
            f"{row.measured:g}",
            f"{predicted:.4g}",
            row.unit,
            f"[{style}]{error:+.1%}[/{style}]",
        )
    console.print(table)
    median, worst = statistics.median(errors), max(errors)
    console.print(
        f"{len(errors)} rows: median absolute error {median:.1%} (target ≤ 10%), largest {worst:.1%} (target ≤ 25%)"
    )
    return median, worst


FIT_OPS = {"matmul": "matmul", "stream_scale": "memory", "stream_triad": "memory", "d2d_copy": "memory"}


def fit(rows: list[Row], console: Console) -> None:
    """Per term: the geometric mean of measured / predicted-at-efficiency-1 over the device's rows (prediction is
    inversely proportional to efficiency once launch and quantization are held fixed, so three passes settle)."""
    ratios: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in rows:
        term = FIT_OPS.get(row.op)
        if term is None:
            continue
        model = load_model(row.device)
        efficiency = 1.0
        for _ in range(3):
            trial = model.model_copy(update={"efficiency": model.efficiency.model_copy(update={term: efficiency})})
            efficiency *= row.measured / predict(trial, row)
            efficiency = min(efficiency, 1.0)
        ratios[(row.device, term)].append(efficiency)
    fitted = {key: math.exp(statistics.fmean(math.log(v) for v in values)) for key, values in ratios.items()}
    table = Table(title="Fitted efficiency terms (per device; family or median where a device has no rows)")
    for column in ("device", "architecture", "memory", "matmul"):
        table.add_column(column)
    medians = {term: statistics.median(v for (_, t), v in fitted.items() if t == term) for term in ("memory", "matmul")}
    for name in available_models():
        model = load_model(name)
        cells = []
        for term in ("memory", "matmul"):
            if (name, term) in fitted:
                cells.append(f"{fitted[(name, term)]:.3f} (own rows)")
                continue
            family = [
                v for (d, t), v in fitted.items() if t == term and load_model(d).architecture == model.architecture
            ]
            cells.append(f"{statistics.fmean(family):.3f} (family)" if family else f"{medians[term]:.3f} (median)")
        table.add_row(name, model.architecture, *cells)
    console.print(table)
    console.print(f"medians of the fitted devices: memory {medians['memory']:.3f}, matmul {medians['matmul']:.3f}")


def _default_csv() -> Path:
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "docs" / "fidelity" / "calibration.csv", here.parent / "shared/fidelity/calibration.csv"):
        if candidate.is_file():
            return candidate
    raise SystemExit("calibration.csv not found: pass --csv PATH")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--csv", type=Path, default=None)
    parser.add_argument("--fit", action="store_true", help="print the efficiency terms that fit the rows")
    args = parser.parse_args()
    rows = read_rows(args.csv or _default_csv())
    console = Console()
    if args.fit:
        fit(rows, console)
    report(rows, console)


if __name__ == "__main__":
    main()
