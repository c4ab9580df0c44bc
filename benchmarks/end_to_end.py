"""Published end-to-end figures against workload steps run on the simulated systems (``--end-to-end`` of fidelity.py).

Each row of ``docs/fidelity/end_to_end.csv`` (MLPerf Inference results, TensorRT-LLM's tables) is mapped to one or
two steps of a shipped workload (``transformer`` with a preset, ``resnet50``) run timing-only on the row's
hardware, one model instance of ``tp`` devices; the published figure covers ``chips / tp`` such instances serving in
parallel. The mappings (``docs/fidelity.md``, "End to end: models on systems"):

- ``prefill`` (first-token latency at batch 1): one prefill step of ``input_len`` tokens; the time in ms.
- ``static`` (a static batch of equal sequences, TensorRT-LLM's gptSessionBenchmark): output tokens per second per
  GPU = ``batch · out / (prefill(batch) + out · decode(batch, in + out/2)) / tp``.
- ``serving`` (MLPerf Offline, continuous batching): the same formula per instance at the submitter's batch, times
  the instances; with continuous batching the sequences in flight sit at every point of their output, so their mean
  cache is ``in + out/2`` tokens.
- ``samples`` (ResNet-50 Offline): ``chips · batch / step(batch)``, one replica per chip.

Decode time grows linearly with the cache (the KV read), so ``out`` decode steps cost ``out`` times the step at the
mean cache length: one decode run stands for the whole output. A prefill of ``batch`` sequences runs in chunks of
whole sequences (at most :data:`PREFILL_TOKENS` tokens each, as a serving engine's token budget does) and is scaled
to the batch. Where the decode step at the published batch does not fit the instance's memory, the batch is halved
until it does (MLPerf's batch sizes are caps; the KV cache in flight limits the concurrency) and the row says so.

Reduced precision is emulated, not computed: an ``fp8``/``int8`` row runs the bfloat16 model with the device's
bfloat16 matrix peak replaced by its float8/int8 peak, and memory bandwidth and capacity doubled (weights and KV
cache in one byte instead of two). A device model without that peak is not predicted.
"""

from __future__ import annotations

import csv
import math
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from wia_sim.hwmodel import HardwareModel, PrecisionName, is_system, load_model, load_system

PREFILL_TOKENS = 8192
"""Tokens of one prefill chunk (whole sequences): a choice, not a source's figure. Above ~2K tokens the GEMMs run at
full efficiency and the time per sequence barely moves (Llama-2-70B, H100 TP2, FP8 emulated, 512-token prompts:
32.4, 31.2 and 31.0 ms per sequence in chunks of 2K, 8K and 16K tokens)."""

LOW_PRECISION: dict[str, PrecisionName] = {"fp8": "float8", "int8": "int8"}
"""Row precisions that are emulated, and the peak-FLOP entry of the device model that stands in for bfloat16's."""

DTYPES = {"fp16": "float16", "bf16": "bfloat16", "fp8": "bfloat16", "int8": "bfloat16"}


@dataclass(frozen=True)
class Row:
    """One published figure, as the CSV gives it (``assumed`` separates what the method assumed)."""

    id: str
    system: str
    chips: int
    tp: int | None
    model: str
    preset: str
    scenario: str
    batch: int | None
    input_len: int | None
    output_len: float | None
    precision: str
    metric: str
    value: float
    unit: str
    mapping: str
    assumed: dict[str, str]
    source: str
    url: str

    @property
    def predicted_kind(self) -> str | None:
        """The mapping, or None for a row kept for reference (``none: why``)."""
        return None if self.mapping.startswith("none") else self.mapping

    @property
    def why_not(self) -> str:
        return self.mapping.partition(":")[2].strip()

    def need(self, name: str) -> float:
        """A parameter from the published columns, else from ``assumed``; a missing one is a data error."""
        published = getattr(self, name, None)
        if published is not None:
            return float(published)
        if name in self.assumed:
            return float(self.assumed[name])
        raise ValueError(f"end-to-end row {self.id}: no {name} published or assumed")

    @property
    def devices(self) -> int:
        return int(self.need("tp"))

    @property
    def instances(self) -> int:
        return self.chips // self.devices

    @property
    def is_time(self) -> bool:
        return self.unit in ("ms", "s")


def _int(text: str) -> int | None:
    return int(text) if text.strip() else None


def read_rows(path: Path) -> list[Row]:
    with path.open(newline="") as f:
        out = []
        for r in csv.DictReader(f):
            assumed = dict(kv.split("=", 1) for kv in r["assumed"].split(";") if kv.strip())
            out.append(
                Row(
                    id=r["id"],
                    system=r["system"],
                    chips=int(r["chips"]),
                    tp=_int(r["tp"]),
                    model=r["model"],
                    preset=r["preset"],
                    scenario=r["scenario"],
                    batch=_int(r["batch"]),
                    input_len=_int(r["input_len"]),
                    output_len=float(r["output_len"]) if r["output_len"].strip() else None,
                    precision=r["precision"],
                    metric=r["metric"],
                    value=float(r["value"]),
                    unit=r["unit"],
                    mapping=r["mapping"],
                    assumed=assumed,
                    source=r["source"],
                    url=r["url"],
                )
            )
        return out


def default_csv() -> Path:
    return Path(__file__).resolve().parent.parent / "docs" / "fidelity" / "end_to_end.csv"


@cache
def _device(hardware: str) -> HardwareModel:
    return load_system(hardware).device if is_system(hardware) else load_model(hardware)


def precision_overrides(precision: str, hardware: str) -> dict[str, str] | None:
    """The hardware variation that emulates ``precision`` on ``hardware`` (empty: none needed), or None where the
    device model has no peak for it."""
    if precision not in LOW_PRECISION:
        return {}
    peaks = _device(hardware).compute.peak_flops
    low = LOW_PRECISION[precision]
    if low not in peaks:
        return None
    prefix = "device." if is_system(hardware) else ""
    peak = float(peaks[low])
    return {
        f"{prefix}compute.peak_flops.bfloat16": f"{peak / 1e12:.6g} TFLOP/s",
        f"{prefix}memory.bandwidth": "2x",
        f"{prefix}memory.size": "2x",
    }


@dataclass(frozen=True)
class Point:
    """One simulated step: a workload, its preset and parameters, the hardware and the hardware variation."""

    workload: str
    preset: str
    params: tuple[tuple[str, Any], ...]
    hardware: str
    vary: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Step:
    """What the method needs of one simulated step (a :class:`wia_whatif.workload.RunReport`, reduced)."""

    fits: bool
    time_s: float
    parameters: int
    flops: float
    items: float
    error: str | None = None


Runner = Callable[[Point], Step]


def run_with_whatif(point: Point) -> Step:
    """The default runner: ``wia_whatif.run.run_point``, timing-only."""
    from wia_whatif.run import run_point
    from wia_whatif.workload import get_workload

    workload = get_workload(point.workload)
    preset = point.preset if point.preset in workload.presets else None
    params = workload.params(preset, **dict(point.params))
    report = run_point(workload, params, hardware=point.hardware, set=dict(point.vary), numerics=False, profile=False)
    return Step(
        fits=report.fits,
        time_s=(report.step_time_ms or 0.0) / 1e3,
        parameters=report.counts.parameters,
        flops=report.counts.flops,
        items=report.counts.items,
        error=report.error,
    )


@dataclass
class Prediction:
    row: Row
    predicted: float | None = None
    why: str = ""
    notes: list[str] = field(default_factory=list)
    parameters: int | None = None
    flops_per_item: float | None = None

    @property
    def ratio(self) -> float | None:
        """predicted / published, in the row's unit."""
        return None if self.predicted is None else self.predicted / self.row.value

    @property
    def error(self) -> float | None:
        """On time, as the rest of docs/fidelity.md: predicted time / measured time - 1 (a rate's time is 1 / rate)."""
        if self.ratio is None:
            return None
        return self.ratio - 1 if self.row.is_time else 1 / self.ratio - 1

    def closed_form(self, step: Step) -> None:
        self.parameters, self.flops_per_item = step.parameters, step.flops / step.items


@dataclass
class _Instance:
    """One model instance of a row (``tp`` devices of its system) and the steps it runs, memoized across rows."""

    row: Row
    vary: Mapping[str, str]
    run: Runner
    cache: dict[Point, Step]

    def step(self, workload: str, **params: Any) -> Step:
        base = {"devices": self.row.devices, "dtype": DTYPES.get(self.row.precision, "bfloat16")}
        point = Point(
            workload,
            self.row.preset,
            tuple(sorted({**base, **params}.items())),
            self.row.system,
            tuple(sorted(self.vary.items())),
        )
        if point not in self.cache:
            self.cache[point] = self.run(point)
        return self.cache[point]

    def prefill_per_sequence(self, batch: int) -> Step:
        """A prefill of whole sequences in chunks of at most :data:`PREFILL_TOKENS` tokens, per sequence."""
        length = int(self.row.need("input_len"))
        chunk = max(1, min(batch, PREFILL_TOKENS // length))
        s = self.step("transformer", phase="prefill", batch=chunk, seq=length)
        return Step(s.fits, s.time_s / chunk, s.parameters, s.flops / chunk, s.items / chunk, s.error)

    def decode_fitting(self, batch: int, cache: int) -> tuple[int, Step]:
        """The decode step at ``batch`` or, where it does not fit, at the largest halving of it that does."""
        while True:
            s = self.step("transformer", phase="decode", batch=batch, seq=cache)
            if s.fits or batch == 1:
                return batch, s
            batch //= 2


def training_check(row: Row) -> str:
    """The closed form beside a training row: 6 FLOPs per parameter per token (forward 2, backward 4; Kaplan et
    al. 2020, "Scaling Laws for Neural Language Models", section 2.1) at the published tokens/s per GPU."""
    from wia_whatif.workload import get_workload

    workload = get_workload("transformer")
    parameters = workload.counts(workload.params(row.preset, seq=int(row.need("input_len")))).parameters
    tflops = 6 * parameters * row.value / 1e12
    return (
        f"closed form: 6 x {parameters / 1e9:.1f} B parameters x {row.value:g} tokens/s = {tflops:.0f} TFLOP/s per GPU"
    )


def predict(row: Row, run: Runner, cache: dict[Point, Step] | None = None) -> Prediction:
    """The row's figure from the simulated steps (``run``), or why it is not predicted."""
    out = Prediction(row)
    kind = row.predicted_kind
    if kind is None:
        out.why = row.why_not
        if row.scenario == "training step" and row.unit == "tokens/s/GPU":
            out.notes.append(training_check(row))
        return out
    vary = precision_overrides(row.precision, row.system)
    if vary is None:
        out.why = f"{row.system} has no {LOW_PRECISION[row.precision]} peak to emulate {row.precision}"
        return out
    instance = _Instance(row, vary, run, {} if cache is None else cache)
    if kind == "samples":
        batch = int(row.need("batch"))
        step = instance.step("resnet50", batch=batch)
        if step.fits:
            out.predicted = row.chips * batch / step.time_s
            out.closed_form(step)
    elif kind == "prefill":
        step = instance.step("transformer", phase="prefill", batch=1, seq=int(row.need("input_len")))
        if step.fits:
            out.predicted = step.time_s * (1e3 if row.unit == "ms" else 1.0)
            out.closed_form(step)
    else:  # serving and static: every sequence's prefill, then `out` decode steps at the mean cache length
        batch = int(row.need("batch"))
        length, output = int(row.need("input_len")), row.need("output_len")
        fitted, step = instance.decode_fitting(batch, length + int(output / 2))
        if fitted != batch:
            out.notes.append(f"batch {batch} does not fit: {fitted}")
        prefill = instance.prefill_per_sequence(fitted)
        if step.fits and not prefill.fits:
            step = prefill
        elif step.fits:
            seconds = fitted * prefill.time_s + output * step.time_s
            tokens_per_s = fitted * output / seconds
            out.predicted = tokens_per_s / row.devices if row.unit.endswith("/GPU") else tokens_per_s * row.instances
            out.closed_form(step)
            out.notes.append(
                f"prefill {fitted * prefill.time_s * 1e3:.0f} ms + {output:.0f} x decode {step.time_s * 1e3:.1f} ms"
            )
    if out.predicted is None:
        out.why = f"does not fit: {step.error}"
    return out


def predict_all(rows: list[Row], run: Runner = run_with_whatif) -> list[Prediction]:
    cache: dict[Point, Step] = {}
    return [predict(row, run, cache) for row in rows]


def summary(predictions: list[Prediction]) -> tuple[int, float, float] | None:
    """(rows predicted, median |error|, p90 |error|) over the predicted rows."""
    errors = sorted(abs(p.error) for p in predictions if p.error is not None)
    if not errors:
        return None
    p90 = errors[min(len(errors) - 1, math.ceil(0.9 * len(errors)) - 1)]
    return len(errors), statistics.median(errors), p90


def _fmt(value: float | None) -> str:
    from wia_sim.console import significant

    return "—" if value is None else significant(value, 4)


def table(predictions: list[Prediction], console: Any) -> None:
    """Predicted against published, the closed-form figures beside, and the summary line."""
    from rich.table import Table

    from wia_sim.console import print_table

    out = Table(title="End to end: published figures against workload steps on the simulated systems")
    for column in (
        "row",
        "system",
        "chips/tp",
        "published",
        "predicted",
        "pred/pub",
        "params (B)",
        "GFLOP/item",
        "how",
    ):
        out.add_column(column, justify="left" if column in ("row", "system", "how") else "right")
    for p in predictions:
        r = p.row
        out.add_row(
            r.id,
            r.system,
            f"{r.chips}/{r.tp or '?'}",
            f"{_fmt(r.value)} {r.unit}",
            _fmt(p.predicted),
            "—" if p.ratio is None else f"{p.ratio:.2f}",
            "—" if p.parameters is None else f"{p.parameters / 1e9:.2f}",
            "—" if p.flops_per_item is None else f"{p.flops_per_item / 1e9:.1f}",
            "; ".join(p.notes) if p.predicted is not None else "; ".join([f"not predicted: {p.why}", *p.notes]),
        )
    print_table(console, out)
    stats = summary(predictions)
    if stats is None:
        console.print("end to end: no row predicted")
        return
    n, median, p90 = stats
    console.print(
        f"end to end, {n} of {len(predictions)} rows predicted: |error| on time median {median:.0%}, p90 {p90:.0%}"
    )


def markdown(predictions: list[Prediction]) -> str:
    """The table of docs/fidelity.md ("End to end: models on systems"), as this run gives it."""
    lines = [
        "| row | hardware (chips / tp) | published | predicted | pred / pub | params | GFLOP per item | how |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for p in predictions:
        r = p.row
        how = "; ".join(p.notes) if p.predicted is not None else "; ".join([f"not predicted: {p.why}", *p.notes])
        lines.append(
            f"| {r.id} | {r.system} ({r.chips} / {r.tp or '?'}) | {_fmt(r.value)} {r.unit} | {_fmt(p.predicted)} | "
            + ("—" if p.ratio is None else f"{p.ratio:.2f}")
            + " | "
            + ("—" if p.parameters is None else f"{p.parameters / 1e9:.1f} B")
            + " | "
            + ("—" if p.flops_per_item is None else f"{p.flops_per_item / 1e9:.0f}")
            + f" | {how} |"
        )
    stats = summary(predictions)
    if stats is not None:
        n, median, p90 = stats
        lines.append("")
        lines.append(f"{n} of {len(predictions)} rows predicted: |error| on time median {median:.0%}, p90 {p90:.0%}.")
    return "\n".join(lines)


def main() -> None:
    import argparse

    from rich.console import Console

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--csv", type=Path, default=None)
    parser.add_argument("--markdown", action="store_true", help="print the table as docs/fidelity.md holds it")
    parser.add_argument("ids", nargs="*", help="only these rows (default: all)")
    args = parser.parse_args()
    rows = read_rows(args.csv or default_csv())
    if args.ids:
        unknown = set(args.ids) - {r.id for r in rows}
        if unknown:
            parser.error(f"no rows {', '.join(sorted(unknown))}")
        rows = [r for r in rows if r.id in args.ids]
    predictions = predict_all(rows)
    if args.markdown:
        print(markdown(predictions))
    else:
        table(predictions, Console())


if __name__ == "__main__":
    main()
