"""Predicted vs measured: the simulator against published measurements of real accelerators, cross-validated.

Every row of ``docs/fidelity/calibration.csv`` (or ``--csv``) is re-run on the simulated device of that name, the
way the row's method describes, through the same op library the HAL uses, and its figure read off the simulated
clocks. Kernels are issued back to back on one stream, one host launch call each (``launch_overhead`` of the
model), except where the method says the launches were captured in a CUDA graph (no host cost per kernel):

- ``matmul``: C[m,n] = A[m,k] @ B[k,n] of the row's dtype (``tf32``: float32 data on TF32 units; ``float8_e4m3``:
  float8 data, float32 result), AUTO algorithm; TFLOP/s = 2·m·n·k / time, or the time itself.
- ``add``, ``mul``, ``relu``, ``gelu``, ``sigmoid``: the element-wise op over ``m`` elements (float64 for
  BabelStream's ``add``: c = a + b).
- ``stream_copy`` / ``stream_scale`` / ``stream_triad``: one streaming kernel over ``m`` elements per array
  (2^25 float64 where the row gives no size); bytes = arrays · 8 · m.
- ``softmax``: ``m`` rows of ``n`` (one read and one write of the tensor per kernel, as the sources count bytes).
- ``d2d_copy``: one device-to-device copy of ``size_bytes`` / 2 bytes; ``h2d_pinned`` / ``d2h_pinned``: 1 GiB.
- ``launch_overhead``: back-to-back small kernels (the 64 kB ``scale`` of gpu-small-kernels); µs per kernel.

Rows of ops the simulator does not have (fused residual-add + RMSNorm) are counted as not covered. Errors are on
time: ``predicted time / measured time - 1`` (for a rate, ``measured / predicted - 1``).

Rows of a shipped *system* (``hardware_models/systems/``) for ``all_reduce``, ``all_gather``, ``reduce_scatter``,
``broadcast``, ``all_to_all`` or ``p2p_copy`` have a section of their own ("Collectives"): the system's fabric, idle,
runs the collective over its first ``N`` devices (``ranks=N`` in the method, else ``N GPUs``, else all) with a
message of ``size_bytes`` (nccl-tests' size; 1 GiB where none is given), by the algorithm the method forced
(``NCCL_ALGO=RING``, ``TREE``, ``NVLS``: ``ring``, ``tree``, ``switch``, where the system has it) or else the one
AUTO picks, plus the host launches of the row's harness (:func:`host_launches`); the prediction is printed beside
the measurement in the row's unit (bus bandwidth in GB/s as nccl-tests defines it, one direction's bandwidth for
``p2p_copy``, or the time in µs). Each system's ``fabric.efficiency`` and ``collectives.call_latency`` are fitted
from its large and small rows (:func:`fit_collectives`), and the rows are reported in-sample, with each source
left out, and with the system files as shipped, per system and per collective.

The efficiency terms of the model files (``[efficiency] memory`` and ``matmul``) are fitted per device from the
rows where that term bounds the time (where halving it would make the prediction at least 1.5× slower): the
median over those rows of the efficiency that makes each row exact. A device without such rows takes the mean of
its architecture family, else the median of the fitted devices. The report gives, per op kind and per device:

- **cross-validated** errors: leave one source out (a source is a publication: a repository, a site, a paper):
  fit on every other source, predict the left-out one's rows. This is the error to expect on data the model has
  not seen.
- **in-sample** errors: fit on all rows, predict them. This measures the fit, not the prediction.
- the shipped model files' errors, as they are.

Rows whose method says the time was taken around a framework call (wall clock through PyTorch or JAX, host
dispatch included) are reported apart: the simulator models the device and the raw launch, not a framework.

The last table is a device this machine can run, measured now: the CPU through PoCL (the opencl backend), each op of
``benchmarks/backends.py``'s quick set timed with events around repeated copies behind a long op (so the host's
own cost per call stays out, as the prediction leaves it out), against the shipped model of this CPU
(``host-cpu-amd-epyc-zen4-2vcpu``); ``--no-cpu`` skips it, and it says why when there is no PoCL device.

``--end-to-end`` adds the published figures of whole models on whole systems (``docs/fidelity/end_to_end.csv``)
predicted with the what-if workloads (``benchmarks/end_to_end.py`` has the method; about a minute, so not by default).

Run: ``python benchmarks/fidelity.py [--csv PATH] [--rows] [--fit] [--no-cpu] [--end-to-end]``.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import io
import math
import re
import statistics
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import ml_dtypes
import numpy as np
from rich.console import Console
from rich.table import Table

from wia_sim.collectives import Planner, busbw_factor
from wia_sim.commands import Command, Copy, Kernel
from wia_sim.console import print_table
from wia_sim.costmodel import KernelCost, elementwise_cost, transfer_cost
from wia_sim.hwmodel import HardwareModel, available_models, available_systems, load_model, load_system
from wia_sim.library import OPS, Operand
from wia_sim.machine import Machine
from wia_sim.memory import Buffer, MemoryKind

DTYPES = {
    "bfloat16": np.dtype(ml_dtypes.bfloat16),
    "float16": np.dtype(np.float16),
    "float32": np.dtype(np.float32),
    "tf32": np.dtype(np.float32),
    "float64": np.dtype(np.float64),
    "float8_e4m3": np.dtype(ml_dtypes.float8_e4m3fn),
}
ARITHMETIC = {
    "bfloat16": "bfloat16",
    "float16": "float16",
    "float32": "float32",
    "tf32": "tf32",
    "float64": "float64",
    "float8_e4m3": "float8",
}
ELEMENTWISE = {"add": 2, "mul": 2, "relu": 1, "gelu": 1, "sigmoid": 1}
"""Element-wise ops and their input count."""
STREAM = {"stream_copy": (2, 0), "stream_scale": (2, 1), "stream_triad": (3, 2)}
"""Arrays touched (read plus written) and FLOPs per element."""
STREAM_ELEMENTS = 1 << 25
LINK_BYTES = 1 << 30
KERNELS = 50
"""Back-to-back kernels per timed row: enough for the per-kernel time to settle to the steady state."""
RATE_UNITS = {"TFLOP/s": 1e12, "GB/s": 1e9, "TB/s": 1e12}
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6}
TERMS = ("memory", "matmul")
HOST_TIMER = re.compile(r"time\.time|perf_counter|timeit|wall[ -]clock", re.I)
FRAMEWORK = re.compile(r"torch|pytorch|jnp\.|jax|deepgemm|vllm", re.I)
"""A row is framework-timed when a host timer was read around calls of a framework: its time holds the
framework's dispatch (Python, the op's bookkeeping), which the simulator does not model. A host timer around raw
kernel launches (gpu-small-kernels) holds only the raw launch cost, which it does."""


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
    method: str
    source: str
    line: int = 0

    @property
    def publication(self) -> str:
        """The source's publication (its first word: a repository, a site): the unit left out in cross-validation."""
        return self.source.split()[0] if self.source else "?"

    @property
    def framework_timed(self) -> bool:
        return bool(HOST_TIMER.search(self.method) and FRAMEWORK.search(self.method))

    @property
    def graph(self) -> bool:
        return "graph" in self.method.lower()

    @property
    def term(self) -> str | None:
        if self.op == "matmul":
            return "matmul"
        if self.op in ELEMENTWISE or self.op in STREAM or self.op in ("softmax", "d2d_copy"):
            return "memory"
        return None

    @property
    def kind(self) -> str:
        return "element-wise" if self.op in ELEMENTWISE or self.op in STREAM else self.op


def read_rows(path: Path) -> list[Row]:
    rows = []
    with path.open(newline="") as f:
        for line, r in enumerate(csv.DictReader(f), start=2):
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
                    method=r["method"],
                    source=r["source"],
                    line=line,
                )
            )
    return rows


def not_covered(row: Row) -> str:
    """Why the simulator cannot predict ``row`` ("" when it can); a collective row of a shipped system is covered by
    the collectives section (:func:`collective_rows`), not here."""
    if row.device in available_systems() and row.op in COLLECTIVE_OPS:
        return "collectives section"
    if row.device not in available_models():
        return f"no hardware model {row.device}"
    if row.op in ("p2p_copy",) or row.op.startswith("allreduce"):
        return "multi-device"
    known = set(ELEMENTWISE) | set(STREAM) | {"matmul", "softmax", "d2d_copy", "h2d_pinned", "d2h_pinned"}
    if row.op not in known | {"launch_overhead"}:
        return f"no op {row.op} in the simulator"
    if row.unit not in RATE_UNITS and row.unit not in TIME_UNITS:
        return f"unit {row.unit}"
    if row.dtype and row.dtype not in DTYPES:
        return f"dtype {row.dtype}"
    if (row.op == "softmax" and not (row.m and row.n)) or (row.op == "matmul" and not (row.m and row.n and row.k)):
        return "shape not given in full"
    if row.op == "matmul" and not load_model(row.device).supports(ARITHMETIC[row.dtype]):
        return f"{row.device} has no {row.dtype} arithmetic in its model"
    return ""


Accesses = tuple[tuple[Buffer, int, int, bool], ...]


# -- collectives and peer copies on a system ---------------------------------------------------------------------------

COLLECTIVE_OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all", "p2p_copy")
RANKS_IN_METHOD = re.compile(r"\branks\s*=\s*(\d+)", re.I)
NCCL_ALGO_IN_METHOD = re.compile(r"NCCL_ALGO=(\w+)")
NCCL_ALGO = {"RING": "ring", "TREE": "tree", "NVLS": "switch"}
"""The algorithm a row forced (``NCCL_ALGO=``), by the simulator's name; ignored where the system lacks it (the
A100 rows' harness sets NVLS, which NCCL ignores there); else AUTO."""
GPUS_PER_PROCESS = re.compile(r"(?:^|\s)-g\s*(\d+)")
HOST_LAUNCHED = re.compile(r"nccl-tests|rccl-tests|_perf\b|torch", re.I)
"""A collective timed in a loop of host calls (nccl-tests, rccl-tests, torch.distributed), not captured in a graph,
has a host launch per call and per device the process drives; an XLA program's collective (TPU) has none."""
DEVICES_IN_METHOD = re.compile(r"(\d+)\s*(?:x\s*)?(?:GPUs?|devices?|chips?|ranks?)", re.I)


LARGE_BYTES = 32 << 20
"""Rows of at least this message size fit a system's ``fabric.efficiency`` (their time is the links' rate)."""
SMALL_BYTES = 128 << 10
"""Rows of at most this message size fit its ``collectives.call_latency`` (their time is fixed costs); rows between
the two fit nothing: they test how the two combine."""


@dataclass(frozen=True)
class CollectiveFit:
    """A system's fitted collective figures: ``fabric.efficiency`` and ``collectives.call_latency`` (seconds)."""

    efficiency: float
    call_latency: float


@dataclass
class CollectiveResult:
    row: Row
    algorithm: str
    devices: int
    seconds: float
    predicted: float
    """In the row's unit, with the figures fitted on all rows (in-sample)."""
    shipped: float = 0.0
    """In the row's unit, with the system file as shipped."""
    cross_validated: float = 0.0
    """In the row's unit, with the figures fitted without the row's source (leave one source out)."""

    @property
    def ratio(self) -> float:
        """Predicted over measured, in the row's unit (a rate above 1 is optimistic, a time above 1 pessimistic)."""
        return self.predicted / self.row.measured

    def error(self, which: str) -> float:
        """``predicted time / measured time - 1`` for the in-sample, shipped or cross-validated prediction."""
        value = {"in_sample": self.predicted, "shipped": self.shipped, "cross_validated": self.cross_validated}[which]
        ratio = value / self.row.measured
        return ratio - 1 if self.row.unit in TIME_UNITS else 1 / ratio - 1


def collective_rows(rows: Iterable[Row]) -> list[Row]:
    return [r for r in rows if r.device in available_systems() and r.op in COLLECTIVE_OPS]


def _ranks(row: Row, count: int) -> int:
    found = RANKS_IN_METHOD.search(row.method) or DEVICES_IN_METHOD.search(row.method)
    return min(count, int(found[1])) if found else count


def _factor(row: Row, n: int) -> float:
    return 1.0 if row.op == "p2p_copy" else busbw_factor(row.op, n)


def _measured_collective_seconds(row: Row) -> float:
    """The row's time: as published, or the size over the rate (bus bandwidth undone by nccl-tests' factor)."""
    if row.unit in TIME_UNITS:
        return row.measured * TIME_UNITS[row.unit]
    n = _ranks(row, load_system(row.device).model.count)
    return (int(row.size_bytes) or LINK_BYTES) * _factor(row, n) / (row.measured * RATE_UNITS[row.unit])


def predict_collective(row: Row, fit: CollectiveFit | None = None) -> CollectiveResult:
    """The row on its system's idle fabric (with ``fit``'s figures in place of the file's): time, and the figure
    in the row's unit."""
    system = load_system(row.device)
    model = system.model
    if fit is not None:
        fabric = model.fabric.model_copy(update={"efficiency": fit.efficiency})
        library = model.collectives.model_copy(update={"call_latency": fit.call_latency})
        model = model.model_copy(update={"fabric": fabric, "collectives": library})
    count = model.count
    n = _ranks(row, count)
    machine = Machine(system.device, count, numerics=False, hazards=False, system=model)
    planner = Planner(machine.topology, model.collectives.step_latency, model.collectives.call_latency)
    size = int(row.size_bytes) or LINK_BYTES
    devices = list(range(n))
    if row.op == "p2p_copy":
        algorithm = machine.topology.route(0, 1).kind
        t = machine.topology.route(0, 1).seconds(size)
    else:
        named = NCCL_ALGO.get(found[1].upper(), "") if (found := NCCL_ALGO_IN_METHOD.search(row.method)) else ""
        plan = planner.plan(row.op, named if named in planner.algorithms(row.op) else "auto", devices, size)
        algorithm, t = (
            plan.algorithm,
            plan.predicted[plan.algorithm] + host_launches(row) * system.device.host.launch_overhead,
        )
    timed = row.unit in TIME_UNITS
    value = t / TIME_UNITS[row.unit] if timed else size / t * _factor(row, n) / RATE_UNITS[row.unit]
    return CollectiveResult(row, algorithm, n, t, value)


def host_launches(row: Row) -> int:
    """Launch calls the host makes, one after the other, per timed collective: none in a graph or outside a host
    loop; else one per device the process drives (nccl-tests' ``-g N``: one thread launches on each GPU in turn,
    the last starting ``N`` launch calls after the first, which the timed loop waits for)."""
    if row.graph or not HOST_LAUNCHED.search(row.method):
        return 0
    found = GPUS_PER_PROCESS.search(row.method)
    return int(found[1]) if found else 1


def fit_collectives(rows: list[Row], pooled: CollectiveFit | None = None) -> CollectiveFit:
    """One system's figures from its rows: ``efficiency``, the geometric mean over its large collective rows
    (:data:`LARGE_BYTES`; peer copies are not the collective library, they only test the result) of predicted
    time at efficiency 1 over measured time, at most 1; then ``call_latency``, the median over its small rows
    (:data:`SMALL_BYTES`) of measured minus predicted time with no call cost, at least 0. Either falls back to
    ``pooled`` (the other systems' figures) where the system has no such rows, else to the schema's default."""
    default = pooled or CollectiveFit(1.0, 0.0)
    large = [r for r in rows if r.op != "p2p_copy" and (int(r.size_bytes) or LINK_BYTES) >= LARGE_BYTES]
    if large:
        logs = [
            math.log(predict_collective(r, CollectiveFit(1.0, 0.0)).seconds / _measured_collective_seconds(r))
            for r in large
        ]
        efficiency = min(1.0, math.exp(statistics.fmean(logs)))
    else:
        efficiency = default.efficiency
    small = [r for r in rows if r.op != "p2p_copy" and 0 < r.size_bytes <= SMALL_BYTES]
    if small:
        residuals = [
            _measured_collective_seconds(r) - predict_collective(r, CollectiveFit(efficiency, 0.0)).seconds
            for r in small
        ]
        call_latency = max(0.0, statistics.median(residuals))
    else:
        call_latency = default.call_latency
    return CollectiveFit(efficiency, call_latency)


def _pooled(fits: list[CollectiveFit]) -> CollectiveFit | None:
    """What a system with no rows of its own takes: the geometric mean efficiency and median call latency of the
    systems that have them."""
    if not fits:
        return None
    efficiency = math.exp(statistics.fmean(math.log(f.efficiency) for f in fits))
    return CollectiveFit(efficiency, statistics.median(f.call_latency for f in fits))


def _fit_all(rows: list[Row]) -> dict[str, CollectiveFit]:
    by_system: dict[str, list[Row]] = defaultdict(list)
    for r in rows:
        by_system[r.device].append(r)
    own = {name: fit_collectives(group) for name, group in by_system.items()}
    fitted = [own[name] for name, group in by_system.items() if _has_fit_rows(group)]
    pooled = _pooled(fitted)
    return {name: fit_collectives(group, pooled) for name, group in by_system.items()}


def _has_fit_rows(rows: list[Row]) -> bool:
    return any(r.op != "p2p_copy" and (int(r.size_bytes) or LINK_BYTES) >= LARGE_BYTES for r in rows) and any(
        r.op != "p2p_copy" and 0 < r.size_bytes <= SMALL_BYTES for r in rows
    )


def evaluate_collectives(rows: list[Row]) -> tuple[list[CollectiveResult], dict[str, CollectiveFit]]:
    """Every collective row predicted three ways: the system file as shipped, the figures fitted on all rows
    (in-sample), and the figures fitted without the row's source (leave one source out: the source's rows of
    every system are left out, and a system left with no rows of a kind takes the other systems' pooled fit)."""
    rows = collective_rows(rows)
    everything = _fit_all(rows)
    cross: dict[str, dict[str, CollectiveFit]] = {}
    for publication in {r.publication for r in rows}:
        cross[publication] = _fit_all([r for r in rows if r.publication != publication])
    pooled_without = {p: _pooled(list(fits.values())) for p, fits in cross.items()}
    results = []
    for r in rows:
        result = predict_collective(r, everything[r.device])
        result.shipped = predict_collective(r).predicted
        left_out = cross[r.publication].get(r.device) or pooled_without[r.publication] or CollectiveFit(1.0, 0.0)
        result.cross_validated = predict_collective(r, left_out).predicted
        results.append(result)
    return results, everything


def collectives_table(results: list[CollectiveResult], fits: dict[str, CollectiveFit], console: Console) -> None:
    table = Table(
        title="Collectives and peer copies on shipped systems: predicted (idle fabric, in-sample) vs measured"
    )
    for column in ("line", "system", "op", "size", "ranks", "algorithm", "measured", "predicted", "unit"):
        table.add_column(
            column,
            justify="right" if column in ("line", "size", "ranks", "measured", "predicted") else "left",
            no_wrap=column in ("system", "op"),
        )
    for column in ("pred/meas", "left-out"):
        table.add_column(column, justify="right")
    for r in results:
        row = r.row
        table.add_row(
            str(row.line), row.device.split("-", 1)[1], row.op, f"{row.size_bytes:.3g}" if row.size_bytes else "1 GiB",
            str(r.devices), r.algorithm, f"{row.measured:g}", f"{r.predicted:.4g}", row.unit, f"{r.ratio:.2f}",
            f"{r.cross_validated / row.measured:.2f}",
        )  # fmt: skip
    print_table(console, table)
    fitted = Table(title="Collective figures fitted on all rows (the values in the system files)")
    for column in ("system", "fabric.efficiency", "collectives.call_latency"):
        fitted.add_column(column, justify="left" if column == "system" else "right", no_wrap=column == "system")
    for name in sorted(fits):
        fitted.add_row(name, f"{fits[name].efficiency:.3f}", f"{fits[name].call_latency * 1e6:.2f} us")
    print_table(console, fitted)
    for title, key in (("system", lambda r: r.row.device), ("collective", lambda r: r.row.op)):
        summary_table = Table(title=f"Collective rows by {title}: |error on time| median / p90 / max")
        for column in ("", "rows", "cross-validated", "in-sample", "files as shipped"):
            summary_table.add_column(column, justify="left" if not column else "right", no_wrap=not column)
        groups: dict[str, list[CollectiveResult]] = defaultdict(list)
        for r in results:
            groups[key(r)].append(r)
        for name in [*sorted(groups), "all"]:
            group = results if name == "all" else groups[name]
            summary_table.add_row(
                name,
                str(len(group)),
                *(_stats([r.error(w) for r in group]) for w in ("cross_validated", "in_sample", "shipped")),
                style="bold" if name == "all" else None,
            )
        print_table(console, summary_table)


def _timed(
    model: HardwareModel,
    commands: Callable[[Machine], list[Command]],
    launches: bool,
    accesses: Callable[[Machine], list[Accesses]] | None = None,
) -> float:
    """Seconds per command when the host issues ``commands`` back to back on one stream (one launch call each when
    ``launches``), from the first start to the last end; ``accesses`` are the byte ranges each reads and writes
    (what the device's last-level cache sees)."""
    machine = Machine(model, numerics=False)
    stream = machine.devices[0].stream()
    submitted = []
    made = commands(machine)
    touched = accesses(machine) if accesses is not None else [()] * len(made)
    for command, ranges in zip(made, touched, strict=True):
        if launches:
            machine.host_spend(model.host.launch_overhead)
        submitted.append(stream.submit(command, ranges))
    machine.wait(submitted[-1])
    return (submitted[-1].ended - submitted[0].started) / len(submitted)


def _kernels(model: HardwareModel, cost: KernelCost, row: Row, arrays: list[int], rotate: bool) -> float:
    """``KERNELS`` back-to-back kernels over device arrays of ``arrays`` bytes, the last written, the others read;
    ``rotate``: each kernel writes the next array and reads the others (gpu-benches alternates A = f(B), B = f(A)),
    else every kernel reads and writes the same ones (a repeated GEMM)."""

    def accesses(machine: Machine) -> list[Accesses]:
        device = machine.devices[0]
        buffers = [device.allocate(MemoryKind.DEVICE, n) for n in arrays]
        result = []
        for i in range(KERNELS):
            out = i % len(buffers) if rotate else len(buffers) - 1
            result.append(tuple((b, 0, b.nbytes, j == out) for j, b in enumerate(buffers)))
        return result

    return _timed(model, lambda m: [Kernel(cost, None) for _ in range(KERNELS)], not row.graph, accesses)


def _op(model: HardwareModel, name: str, inputs: list[Operand], out: Operand, attrs: dict[str, object]) -> KernelCost:
    return OPS[name].cost(model, inputs, out, attrs)


def _stream_elements(row: Row) -> int:
    """Elements per array of a STREAM row: ``m``, else from the bytes read plus written, else the default."""
    return row.m or int(row.size_bytes // (STREAM[row.op][0] * 8)) or STREAM_ELEMENTS


def work(row: Row) -> float:
    """What the row's rate counts per kernel: FLOPs for TFLOP/s, bytes for GB/s and TB/s."""
    if row.op == "matmul":
        return 2.0 * row.m * row.n * row.k
    if row.op in STREAM:
        return STREAM[row.op][0] * 8 * _stream_elements(row)
    itemsize = DTYPES[row.dtype].itemsize if row.dtype else 8
    if row.op in ELEMENTWISE:
        return (ELEMENTWISE[row.op] + 1) * itemsize * (row.m or STREAM_ELEMENTS)
    if row.op == "softmax":
        return 2.0 * itemsize * row.m * row.n
    if row.op == "d2d_copy":
        return 2 * (int(row.size_bytes) // 2)
    return float(LINK_BYTES)


def seconds(model: HardwareModel, row: Row) -> float:
    """The row's time per kernel (or per copy) on the simulated device."""
    if row.op == "matmul":
        dtype = DTYPES[row.dtype]
        operands = [Operand((row.m, row.k), dtype), Operand((row.k, row.n), dtype)]
        out = Operand((row.m, row.n), np.dtype(np.float32) if dtype.itemsize == 1 else dtype)
        cost = _op(model, "matmul", operands, out, {"arithmetic": ARITHMETIC[row.dtype], "algorithm": "AUTO"})
        return _kernels(model, cost, row, [o.nbytes for o in (*operands, out)], rotate=False)
    if row.op in STREAM:
        arrays, flops = STREAM[row.op]
        elements = _stream_elements(row)
        cost = elementwise_cost(model, row.op, elements, flops, arrays * 8 * elements, "float64")
        return _kernels(model, cost, row, [8 * elements] * arrays, rotate=True)
    if row.op in ELEMENTWISE:
        dtype = DTYPES[row.dtype or "float64"]
        shape = (row.m or STREAM_ELEMENTS,)
        inputs = [Operand(shape, dtype)] * ELEMENTWISE[row.op]
        cost = _op(model, row.op, inputs, Operand(shape, dtype), {})
        return _kernels(model, cost, row, [Operand(shape, dtype).nbytes] * (len(inputs) + 1), rotate=True)
    if row.op == "softmax":
        dtype = DTYPES[row.dtype]
        x = Operand((row.m, row.n), dtype)
        return _kernels(model, _op(model, "softmax", [x], x, {"axis": -1}), row, [x.nbytes] * 2, rotate=True)
    if row.op == "d2d_copy":
        half = int(row.size_bytes // 2)
        return _copy(model, MemoryKind.DEVICE, MemoryKind.DEVICE, half)
    if row.op == "h2d_pinned":
        return _copy(model, MemoryKind.PINNED, MemoryKind.DEVICE, LINK_BYTES)
    if row.op == "d2h_pinned":
        return _copy(model, MemoryKind.DEVICE, MemoryKind.PINNED, LINK_BYTES)
    if row.op == "launch_overhead":
        elements = 4096  # gpu-small-kernels' smallest size: 2 × 4096 doubles = 64 kB per kernel
        cost = elementwise_cost(model, "scale", elements, 1, 2 * elements * 8, "float64")
        return _timed(model, lambda m: [Kernel(cost, None) for _ in range(2000)], launches=True)
    raise ValueError(f"no prediction for op {row.op!r}")


def _copy(model: HardwareModel, src: MemoryKind, dst: MemoryKind, nbytes: int) -> float:
    cost = transfer_cost(model, src, dst, nbytes)

    def commands(machine: Machine) -> list[Command]:
        device = machine.devices[0]
        a, b = Buffer(0, src, nbytes, None, False), Buffer(0, dst, nbytes, None, False)
        return [Copy(device.engines[cost.route], cost, a, 0, b, 0)]

    return _timed(model, commands, launches=False)


def measured_seconds(row: Row) -> float:
    if row.unit in TIME_UNITS:
        return row.measured * TIME_UNITS[row.unit]
    return work(row) / (row.measured * RATE_UNITS[row.unit])


def predicted_value(seconds_: float, row: Row) -> float:
    """A predicted time in the row's own unit."""
    if row.unit in TIME_UNITS:
        return seconds_ / TIME_UNITS[row.unit]
    return work(row) / seconds_ / RATE_UNITS[row.unit]


# -- fitting ----------------------------------------------------------------------------------------------------------

Efficiencies = dict[str, dict[str, float]]
"""Per device, per term: the fitted efficiency."""


def with_efficiency(model: HardwareModel, terms: dict[str, float]) -> HardwareModel:
    return model.model_copy(update={"efficiency": model.efficiency.model_copy(update=terms)})


def _exact_efficiency(model: HardwareModel, row: Row, term: str) -> float | None:
    """The efficiency of ``term`` that makes ``row`` exact, when the term bounds the row's time (None otherwise)."""
    full = seconds(with_efficiency(model, {term: 1.0}), row)
    half = seconds(with_efficiency(model, {term: 0.5}), row)
    if half < 1.5 * full:
        return None  # the term does not bound this row: it cannot say what the term is
    target = measured_seconds(row)
    efficiency = 1.0
    for _ in range(4):
        efficiency *= seconds(with_efficiency(model, {term: efficiency}), row) / target
        efficiency = min(max(efficiency, 0.05), 1.0)
    return efficiency


@dataclass
class Fit:
    efficiencies: Efficiencies = field(default_factory=dict)
    how: dict[tuple[str, str], str] = field(default_factory=dict)

    def model(self, device: str) -> HardwareModel:
        model = load_model(device)
        return with_efficiency(model, self.efficiencies.get(device, {}))


def fit(rows: Iterable[Row], cache: dict[tuple[int, str], float | None]) -> Fit:
    """Per device and term: the median of the rows' exact efficiencies; else the family's mean; else the median of
    the fitted devices; else the model file's own value."""
    exact: dict[tuple[str, str], list[float]] = defaultdict(list)
    for row in rows:
        term = row.term
        if term is None or row.framework_timed:
            continue
        key = (row.line, term)
        if key not in cache:
            cache[key] = _exact_efficiency(load_model(row.device), row, term)
        value = cache[key]
        if value is not None:
            exact[(row.device, term)].append(value)
    own = {key: statistics.median(values) for key, values in exact.items()}
    result = Fit()
    for name in available_models():
        architecture = load_model(name).architecture
        for term in TERMS:
            if (name, term) in own:
                value, how = own[(name, term)], f"own rows ({len(exact[(name, term)])})"
            else:
                family = [v for (d, t), v in own.items() if t == term and load_model(d).architecture == architecture]
                fitted = [v for (_, t), v in own.items() if t == term]
                if family:
                    value, how = statistics.fmean(family), "family"
                elif fitted:
                    value, how = statistics.median(fitted), "median of fitted devices"
                else:
                    continue
            result.efficiencies.setdefault(name, {})[term] = round(value, 3)
            result.how[(name, term)] = how
    return result


# -- the report -------------------------------------------------------------------------------------------------------


@dataclass
class Result:
    row: Row
    shipped: float
    in_sample: float
    cross_validated: float

    def error(self, which: str) -> float:
        """Signed error on time of one of the three predictions."""
        return getattr(self, which) / measured_seconds(self.row) - 1.0


def evaluate(rows: list[Row]) -> tuple[list[Result], Fit]:
    cache: dict[tuple[int, str], float | None] = {}
    covered = [r for r in rows if not not_covered(r)]
    everything = fit(covered, cache)
    folds = {r.publication for r in covered}
    cross: dict[int, float] = {}
    for left_out in sorted(folds):
        trained = fit([r for r in covered if r.publication != left_out], cache)
        for row in covered:
            if row.publication == left_out:
                cross[row.line] = seconds(trained.model(row.device), row)
    results = [
        Result(row, seconds(load_model(row.device), row), seconds(everything.model(row.device), row), cross[row.line])
        for row in covered
    ]
    return results, everything


def _quantiles(errors: list[float]) -> tuple[float, float, float]:
    """Median, 90th percentile (nearest rank) and largest of the errors' magnitudes."""
    magnitudes = sorted(abs(e) for e in errors)
    p90 = magnitudes[min(len(magnitudes) - 1, math.ceil(0.9 * len(magnitudes)) - 1)]
    return statistics.median(magnitudes), p90, magnitudes[-1]


def _stats(errors: list[float]) -> str:
    if not errors:
        return "—"
    median, p90, largest = _quantiles(errors)
    return f"{median:.0%} / {p90:.0%} / {largest:.0%}"


def summary(results: list[Result], console: Console, title: str, key: Callable[[Result], str]) -> None:
    table = Table(title=title)
    for column in ("", "rows", "cross-validated", "in-sample", "model files as shipped"):
        table.add_column(column, justify="left" if not column else "right")
    groups: dict[str, list[Result]] = defaultdict(list)
    for r in results:
        groups[key(r)].append(r)
    for name in sorted(groups):
        group = groups[name]
        table.add_row(
            name,
            str(len(group)),
            *(_stats([r.error(which) for r in group]) for which in ("cross_validated", "in_sample", "shipped")),
        )
    table.add_row(
        "all",
        str(len(results)),
        *(_stats([r.error(which) for r in results]) for which in ("cross_validated", "in_sample", "shipped")),
        style="bold",
    )
    console.print(table)


def per_row(results: list[Result], console: Console) -> None:
    table = Table(title="Every row (errors on time: predicted / measured - 1)")
    for column in ("line", "device", "op", "dtype", "shape", "measured", "unit", "cross-val.", "in-sample", "shipped"):
        table.add_column(column, justify="right" if column in ("line", "measured") else "left")
    for r in results:
        row = r.row
        size = f"{row.size_bytes:.3g} B" if row.size_bytes else ""
        shape = "×".join(str(x) for x in (row.m, row.n, row.k) if x) or size
        cells = [f"{r.error(w):+.0%}" for w in ("cross_validated", "in_sample", "shipped")]
        table.add_row(str(row.line), row.device, row.op, row.dtype, shape, f"{row.measured:g}", row.unit, *cells)
    console.print(table)


def fitted_table(result: Fit, console: Console) -> None:
    table = Table(title="Efficiency terms fitted on all rows (each model file's efficiency table)")
    for column in ("device", "memory", "matmul"):
        table.add_column(column)
    for name in available_models():
        cells = []
        for term in TERMS:
            value = result.efficiencies.get(name, {}).get(term)
            cells.append("—" if value is None else f"{value:.3f} ({result.how[(name, term)]})")
        table.add_row(name, *cells)
    console.print(table)


def cpu_table(console: Console) -> None:
    """The CPU through PoCL against the simulator's model of it (benchmarks/backends.py's part (a), quick set)."""
    spec = importlib.util.spec_from_file_location("backends", Path(__file__).with_name("backends.py"))
    assert spec is not None and spec.loader is not None
    backends = importlib.util.module_from_spec(spec)
    sys.modules["backends"] = backends
    spec.loader.exec_module(backends)
    table = backends.rows(quick=True)
    backends.predict(table, backends.MODEL)
    quiet = Console(file=io.StringIO())
    why = backends.measure(table, "pocl", 2, quiet)
    if why:
        console.print(f"The CPU through PoCL: not measured ({why})")
        return
    groups: dict[str, list[float]] = defaultdict(list)
    for row in table:
        kind = "kernel" if row.name.startswith("kernel") else row.name.split()[0]
        groups[kind].append(row.predicted_ms / row.measured_ms - 1.0)
    out = Table(title=f"The CPU through PoCL, measured now, against {backends.MODEL}: |error| median / p90 / max")
    for column in ("op", "rows", "as shipped"):
        out.add_column(column, justify="left" if column == "op" else "right")
    for kind in sorted(groups):
        out.add_row(kind, str(len(groups[kind])), _stats(groups[kind]))
    everything = [e for errors in groups.values() for e in errors]
    out.add_row("all", str(len(everything)), _stats(everything), style="bold")
    console.print(out)
    low = min(everything)
    console.print(
        f"the model is faster than PoCL on every row (predicted / measured - 1 from {low:+.0%} to "
        f"{max(everything):+.0%}): docs/cost_model.md, 'Fidelity against a device we can run', says why"
        if max(everything) < 0
        else f"errors from {low:+.0%} to {max(everything):+.0%}"
    )


def _sibling(name: str) -> ModuleType:
    """A module of benchmarks/ (a folder of scripts, not a package), imported by path."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def end_to_end_table(console: Console) -> None:
    """Published end-to-end figures against workload steps (benchmarks/end_to_end.py has the method)."""
    e2e = _sibling("end_to_end")
    e2e.table(e2e.predict_all(e2e.read_rows(e2e.default_csv())), console)


def _default_csv() -> Path:
    return Path(__file__).resolve().parent.parent / "docs" / "fidelity" / "calibration.csv"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--csv", type=Path, default=None)
    parser.add_argument("--rows", action="store_true", help="also print every row's errors")
    parser.add_argument("--fit", action="store_true", help="print the efficiency terms fitted on all rows")
    parser.add_argument("--no-cpu", action="store_true", help="skip measuring this machine's CPU through PoCL")
    parser.add_argument(
        "--end-to-end",
        action="store_true",
        help="also predict the published end-to-end figures (docs/fidelity/end_to_end.csv) with the workloads",
    )
    args = parser.parse_args()
    rows = read_rows(args.csv or _default_csv())
    console = Console()
    skipped = defaultdict(int)
    for row in rows:
        reason = not_covered(row)
        if reason and reason != "collectives section":
            skipped[reason] += 1
    results, everything = evaluate(rows)
    kernel_timed = [r for r in results if not r.row.framework_timed]
    framework = [r for r in results if r.row.framework_timed]
    if args.rows:
        per_row(results, console)
    if args.fit:
        fitted_table(everything, console)
    summary(kernel_timed, console, "Kernel-timed rows by op kind: |error| median / p90 / max", lambda r: r.row.kind)
    summary(kernel_timed, console, "Kernel-timed rows by device: |error| median / p90 / max", lambda r: r.row.device)
    if framework:
        summary(
            framework,
            console,
            "Rows timed around a framework call (host dispatch included; not modeled): |error| median / p90 / max",
            lambda r: f"{r.row.device} {r.row.kind}",
        )
    covered = len(results)
    collectives, collective_fits = evaluate_collectives(rows)
    console.print(
        f"{len(rows)} rows: {covered} predicted ({len(kernel_timed)} kernel-timed, {len(framework)} framework-timed) "
        f"and {len(collectives)} collective rows (their own section) "
        f"from {len({r.row.publication for r in results})} sources; not covered: "
        + ", ".join(f"{n} ({why})" for why, n in sorted(skipped.items()))
    )
    if kernel_timed:
        median, p90, _ = _quantiles([r.error("cross_validated") for r in kernel_timed])
        console.print(
            f"kernel-timed, cross-validated: median |error| {median:.1%} (target ≤ 10%), p90 {p90:.1%} (target ≤ 25%)"
        )
    if collectives:
        collectives_table(collectives, collective_fits, console)
    if args.end_to_end:
        end_to_end_table(console)
    if not args.no_cpu:
        cpu_table(console)


if __name__ == "__main__":
    main()
