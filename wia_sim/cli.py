"""``wia-sim``: the simulator's own tools (the shipped hardware models, checking a model file, explaining what a
matmul or convolution would cost on a model, running one custom kernel for its counts and modeled time, profiling
a script on a simulated device and plotting a profile's roofline: ``docs/profiling.md``)."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from wia_sim import kernels  # the kernel front end loads when a kernel is run (wia_sim/kernels/__init__.py)
from wia_sim.console import (
    bandwidth,
    duration,
    flop_rate,
    frequency,
    make_console,
    print_table,
    significant,
    size,
)
from wia_sim.costmodel import TILINGS
from wia_sim.hwmodel import (
    HardwareModel,
    HardwareModelError,
    System,
    available_models,
    available_systems,
    is_system,
    load_hardware,
    load_model,
    load_system,
    model_path,
)
from wia_sim.kernel_run import run_report
from wia_sim.kernels.spaces import KernelFault, KernelTimeout, UnsupportedKernel
from wia_sim.library import OPS, Operand
from wia_sim.library.spec import ARITHMETIC_DTYPES


def _peak(value: float | None) -> str:
    """A peak in the models table's TFLOP/s column: ``989.4``, ``—`` where the device has no such arithmetic."""
    return "—" if value is None else significant(value / 1e12)


def _link(model: HardwareModel) -> str:
    link = model.host_link
    return f"{link.interface} {link.generation} x{link.lanes}"


def models_table(console: Console) -> None:
    table = Table(title="Shipped hardware models (dense peaks at boost clock; `wia-sim models show NAME` for sources)")
    columns = (
        "name",
        "CUs",
        "clock MHz",
        "FP32 TFLOP/s",
        "BF16 TFLOP/s",
        "FP16 TFLOP/s",
        "memory",
        "GB/s",
        "host link",
    )
    for column in columns:
        table.add_column(
            column, justify="left" if column in ("name", "host link") else "right", no_wrap=column == "name"
        )
    for name in available_models():
        m = load_model(name)
        peaks = m.compute.peak_flops
        table.add_row(
            name,
            str(m.compute.compute_units),
            significant(m.compute.clock / 1e6),
            *(_peak(peaks.get(p)) for p in ("float32", "bfloat16", "float16")),
            size(m.memory.size).split(" (")[0],
            significant(m.memory.bandwidth / 1e9),
            _link(m),
        )
    print_table(console, table)
    systems_table(console)


def systems_table(console: Console) -> None:
    """The shipped systems: devices, fabric and per-direction bandwidth (``models show NAME`` for the sources)."""
    names = available_systems()
    if not names:
        return
    table = Table(title="Shipped systems (several devices and the fabric between them; `models show NAME`)")
    for column in ("name", "devices", "device model", "fabric", "interface", "GB/s per direction", "latency"):
        table.add_column(column, justify="right" if column in ("devices", "GB/s per direction") else "left")
    for name in names:
        system = load_system(name)
        fabric = system.model.fabric
        shape = f"torus {'x'.join(map(str, fabric.dims or ()))}" if fabric.topology == "torus" else fabric.topology
        table.add_row(
            name,
            str(system.model.count),
            system.device.name,
            shape,
            fabric.interface,
            significant(fabric.bandwidth / 1e9),
            duration(fabric.latency),
        )
    print_table(console, table)


SIZE_FIELDS = (
    "size",
    "last_level_cache",
    "alignment",
    "local_memory_per_compute_unit",
    "max_local_memory_per_work_group",
)
"""The fields of :class:`HardwareModel` counted in bytes (their type is :data:`wia_sim.units.Size`)."""

PROSE_WIDTH = 72
"""The widest a column of sentences gets, also in a log (it wraps at words)."""

NOT_SIMULATED = {"features.peer_to_peer": "peer copies need a system file"}
"""Features the chip has that the simulator does not offer from a device model alone: ``models show`` says so
beside the chip's value, as ``wia devices`` (the capabilities a backend on the simulator reports) shows them. (A
device model alone has no fabric between its devices; a system file gives one: ``wia-sim models list``.)"""


def describe(field: str, value: object, model: HardwareModel) -> str:
    """One field's value in human units, as ``wia devices`` shows the same fact."""
    leaf = field.rsplit(".", 1)[-1]
    if value is None:
        if field == "compute.vector_float64":
            if model.supports("float64"):
                return f"not modeled: vector FP64 runs at the float64 peak ({flop_rate(model.vector_peak('float64'))})"
            return "not modeled (no float64 arithmetic)"
        return "not modeled"
    if isinstance(value, bool):
        if field in NOT_SIMULATED and value:
            return f"no in the simulator (the chip: yes; {NOT_SIMULATED[field]})"
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if not isinstance(value, float):
        return str(value)
    if field.startswith("compute.peak_flops."):
        return flop_rate(value, "OP/s" if leaf.startswith("int") else "FLOP/s")
    if leaf == "vector_float64":
        return flop_rate(value)
    if leaf in SIZE_FIELDS:
        return size(value)
    if leaf.endswith("bandwidth"):
        return bandwidth(value)
    if leaf.endswith(("latency", "overhead")):
        return duration(value)
    if leaf == "clock":
        return frequency(value)
    if field.startswith("efficiency."):
        return f"{value:.1%} of the peak"
    return significant(value)


# -- the sources a shipped file gives in its comments (tomllib drops comments) -------------------------------------


def _split_comment(text: str) -> tuple[str, str]:
    """``value  # comment`` -> (``value``, ``comment``), a ``#`` inside a quoted string being part of the value."""
    quote = ""
    for i, char in enumerate(text):
        if quote:
            quote = "" if char == quote and text[i - 1] != "\\" else quote
        elif char in "\"'":
            quote = char
        elif char == "#":
            return text[:i].strip(), text[i + 1 :].strip()
    return text.strip(), ""


def model_sources(text: str) -> tuple[list[str], dict[str, list[str]]]:
    """The comments of a hardware model file: its header (the comment lines before the first key), and for each
    dotted field (``compute.clock``) or table (``efficiency``) the comment block right above it and its trailing
    ``# ...`` comment."""
    header: list[str] = []
    sources: dict[str, list[str]] = {}
    table, started = "", False
    pending: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            pending = []
            continue
        if line.startswith("#"):
            (pending if started else header).append(line[1:].strip())
            continue
        started = True
        if line.startswith("["):
            table, comment = _split_comment(line)
            table = table.strip("[] ")
            sources[table] = [*pending, *([comment] if comment else [])]
        else:
            key, sep, rest = line.partition("=")
            if sep:
                _, comment = _split_comment(rest)
                name = f"{table}.{key.strip()}" if table else key.strip()
                sources[name] = [*pending, *([comment] if comment else [])]
        pending = []
    return header, sources


def model_rows(model: HardwareModel, sources: dict[str, list[str]]) -> list[tuple[str, str, str]]:
    """``models show``'s rows: (dotted field, value in human units, its sources from the file's comments)."""

    def source(field: str) -> str:
        return " ".join(sources[field]) if field in sources else "(not in the file: the schema's default)"

    rows = [(f, str(getattr(model, f)), source(f)) for f in ("display_name", "vendor", "device_type", "architecture")]
    for section in ("compute", "memory", "host_link", "host", "peer_link", "features", "efficiency"):
        spec = getattr(model, section)
        if spec is None:
            rows.append((section, f"none (no [{section}] table)", source(section)))
            continue
        for field, value in spec:
            if field == "peak_flops":
                for precision, rate in value.items():
                    name = f"{section}.peak_flops.{precision}"
                    rows.append((name, describe(name, rate, model), source(name)))
            else:
                name = f"{section}.{field}"
                rows.append((name, describe(name, value, model), source(name)))
    return rows


def system_rows(system: System, sources: dict[str, list[str]]) -> list[tuple[str, str, str]]:
    """``models show``'s rows for a system: (dotted field, value in human units, its sources)."""

    def source(field: str) -> str:
        return " ".join(sources[field]) if field in sources else "(not in the file: the schema's default)"

    m = system.model
    rows = [(f, str(getattr(m, f)), source(f)) for f in ("display_name", "vendor", "device", "count")]
    for section in ("fabric", "collectives", "host"):
        for field, value in getattr(m, section):
            name = f"{section}.{field}"
            if value is None:
                text = "each device its own" if field == "host_link_groups" else "none"
            elif isinstance(value, tuple):
                text = str([list(v) if isinstance(v, tuple) else v for v in value])
            elif field == "bandwidth":
                text = bandwidth(value)
            elif field.endswith("latency"):
                text = duration(value)
            else:
                text = str(value)
            rows.append((name, text, source(name)))
    return rows


def show(console: Console, name: str) -> None:
    """Every field of one model with its value and its source (the file's comments), after the file's header."""
    path = model_path(name)
    header, sources = model_sources(path.read_text(encoding="utf-8"))
    if header:
        text = f"Sources ({path.name}): {' '.join(header)}\n"
        console.print(text, highlight=False, markup=False, soft_wrap=False)  # a paragraph: wrapped also in a log
    system = load_system(name) if is_system(name) else None
    if system is not None:
        title, rows = f"{system.model.display_name} ({system.name}): a system", system_rows(system, sources)
    else:
        model = load_model(name)
        title, rows = f"{model.display_name} ({model.name})", model_rows(model, sources)
    table = Table(title=title, caption=str(path))
    table.add_column("field", no_wrap=True)
    table.add_column("value", max_width=PROSE_WIDTH)
    table.add_column("source", max_width=PROSE_WIDTH)
    for row in rows:
        table.add_row(*row)
    print_table(console, table)
    if system is not None:
        console.print(f"The device model: `wia-sim models show {system.device.name}`.", highlight=False)


EXPLAIN_SIZES = {
    "matmul": ("M", "N", "K"),
    "conv2d": ("N", "C", "H", "W", "O", "KH", "KW"),
    "attention": ("B", "HQ", "HKV", "LQ", "LK", "D"),
}
"""The size arguments of ``wia-sim explain`` per op, in order."""


def whole_number(parser: argparse.ArgumentParser, name: str, text: str, least: int) -> int:
    """``text`` as an integer of at least ``least``, or the parser's usage error (exit status 2) naming the argument,
    the value as written and what it takes."""
    expected = "a size ≥ 0" if least == 0 else f"a whole number ≥ {least}"
    try:
        value = int(text)
    except ValueError:
        parser.error(f"argument {name}: {text!r} is not a whole number; expected {expected}")
    if value < least:
        parser.error(f"argument {name}: {text!r} is {'negative' if value < 0 else 'too small'}; expected {expected}")
    return value


def check_explain(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Sizes at least 0 (a size of 0 is explained: no FLOPs, the launch and what is still read), padding at least 0,
    stride at least 1, and a convolution window that fits its padded input; else a usage error."""
    names = EXPLAIN_SIZES[args.op]
    if len(args.dims) != len(names):
        parser.error(f"{args.op} takes {' '.join(names)}: {len(names)} sizes, got {len(args.dims)}")
    args.dims = [whole_number(parser, name, text, 0) for name, text in zip(names, args.dims, strict=True)]
    args.padding = whole_number(parser, "--padding", args.padding, 0)
    args.stride = whole_number(parser, "--stride", args.stride, 1)
    if args.op == "attention":
        _, hq, hkv, _, _, d = args.dims
        if hkv < 1 or d < 1 or hq % hkv:
            parser.error(f"arguments HQ HKV D: expected HKV ≥ 1, D ≥ 1 and HQ a multiple of HKV, got {hq} {hkv} {d}")
        if args.arithmetic not in ("float32", "float16", "bfloat16", "float64"):
            parser.error(f"attention runs on float32, float16, bfloat16 or float64 data, not {args.arithmetic}")
    if args.op == "conv2d":
        _, _, h, w, _, kh, kw = args.dims
        p = args.padding
        if kh > h + 2 * p or kw > w + 2 * p:
            parser.error(
                f"arguments KH KW: a {kh}×{kw} window does not fit the {h + 2 * p}×{w + 2 * p} input "
                f"(H W {h} {w} with padding {p}); expected KH ≤ H + 2×padding and KW ≤ W + 2×padding"
            )


def explain(console: Console, args: argparse.Namespace) -> None:
    """The cost model's breakdown of one matmul or convolution on a model, every algorithm side by side."""
    model = load_model(args.hardware)
    arithmetic = args.arithmetic
    if not model.supports(arithmetic):
        raise HardwareModelError(
            f"{model.name} has no {arithmetic} arithmetic (it has {', '.join(model.compute.peak_flops)})"
        )
    # the data as the library's kernels see it: tf32 reads float32, int8 accumulates into int32, float8 into float32
    data = ARITHMETIC_DTYPES.get(arithmetic, np.dtype(np.float32) if arithmetic == "tf32" else np.dtype(np.int8))
    result = {"int8": np.dtype(np.int32), "float8": np.dtype(np.float32)}.get(arithmetic, data)
    choice, caption, mark = "algorithm", "AUTO picks the shortest duration", " ← AUTO"
    if args.op == "attention":
        b, hq, hkv, lq, lk, d = args.dims
        operands = [Operand((b, hq, lq, d), data), Operand((b, hkv, lk, d), data), Operand((b, hkv, lk, d), data)]
        out = Operand((b, hq, lq, d), data)
        attrs: dict[str, object] = {"arithmetic": arithmetic, "scale": d**-0.5, "causal": args.causal, "mask": "none"}
        choice, algorithms = "implementation", ["flash", "unfused"]
        caption, mark = "scaled_dot_product_attention runs flash unless told otherwise", " ← default"
        causal = ", causal" if args.causal else ""
        title = f"attention q {b}×{hq}×{lq}×{d}, k/v {b}×{hkv}×{lk}×{d}{causal} {arithmetic} on {model.display_name}"
    elif args.op == "matmul":
        m, n, k = args.dims
        operands = [Operand((m, k), data), Operand((k, n), data)]
        out = Operand((m, n), result)
        algorithms = [*TILINGS, "SPLIT_K", "STREAM_K"]
        title = f"matmul {m}×{n}×{k} {arithmetic} on {model.display_name}"
        attrs = {"arithmetic": arithmetic}
    else:
        n, c, h, w, o, kh, kw = args.dims
        p, st = args.padding, args.stride
        operands = [Operand((n, c, h, w), data), Operand((o, c, kh, kw), data)]
        out = Operand((n, o, (h + 2 * p - kh) // st + 1, (w + 2 * p - kw) // st + 1), result)
        attrs = {"arithmetic": arithmetic, "padding": (p, p), "stride": (st, st), "dilation": (1, 1), "groups": 1}
        winograd = (kh, kw, st) == (3, 3, 1) and arithmetic != "int8"
        algorithms = ["IMPLICIT_GEMM", "DIRECT", *(["WINOGRAD"] if winograd else [])]
        title = (
            f"conv2d {n}×{c}×{h}×{w} * {o}×{c}×{kh}×{kw} (pad {p}, stride {st}) {arithmetic} on {model.display_name}"
        )
    spec = OPS[args.op]
    options = {a: spec.cost(model, operands, out, {**attrs, choice: a}) for a in algorithms}
    auto = options["flash"] if args.op == "attention" else spec.cost(model, operands, out, {**attrs, choice: "AUTO"})
    chosen = auto.algorithm
    table = Table(title=title, caption=caption)
    for column in (
        "algorithm",
        "duration µs",
        "compute µs",
        "memory µs",
        "launch µs",
        "bound",
        "waves",
        "efficiency",
        "TFLOP/s",
        "GB",
    ):
        table.add_column(column, justify="left" if column == "algorithm" else "right", no_wrap=column == "algorithm")
    for cost in options.values():
        table.add_row(
            cost.algorithm + (mark if cost.algorithm == chosen else ""),
            f"{cost.duration_s * 1e6:,.1f}",
            f"{cost.compute_s * 1e6:,.1f}",
            f"{cost.memory_s * 1e6:,.1f}",
            f"{cost.launch_s * 1e6:,.2f}",
            cost.bound,
            str(cost.waves),
            f"{cost.efficiency:.2f}",
            f"{cost.useful_flops / cost.duration_s / 1e12:,.1f}",
            f"{cost.bytes / 1e9:,.3f}",
        )
    print_table(console, table)


def _sizes(parser: argparse.ArgumentParser, name: str, text: str, least: int = 1) -> tuple[int, int, int]:
    """``--global``/``--local``: 1 to 3 sizes of at least 1 (``--offset``: of at least 0, ``least``), separated by
    commas, or a usage error."""
    parts = text.split(",")
    if not 1 <= len(parts) <= 3:
        parser.error(f"argument {name}: {text!r} has {len(parts)} sizes; expected 1 to 3 separated by commas")
    x, y, z = [*(whole_number(parser, name, part, least) for part in parts), least, least][:3]
    return x, y, z


def check_kernel(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The numeric options of ``wia-sim kernel`` (the kernel's own arguments are checked against its signature)."""
    dims = len(args.global_size.split(","))
    args.global_size = _sizes(parser, "--global", args.global_size)
    args.local_size = _sizes(parser, "--local", args.local_size) if args.local_size else None
    offsets = len(args.global_offset.split(",")) if args.global_offset else 0
    if offsets > dims:  # (as LaunchConfig refuses it)
        parser.error(
            f"argument --offset: {args.global_offset!r} has {offsets} offsets; the launch has {dims} dimension"
            f"{'s' if dims > 1 else ''} (--global): expected at most one offset per dimension"
        )
    args.global_offset = _sizes(parser, "--offset", args.global_offset, 0) if args.global_offset else (0, 0, 0)
    args.seed = whole_number(parser, "--seed", args.seed, 0)
    args.step_limit = whole_number(parser, "--step-limit", args.step_limit, 1)


def _findings(n: int) -> str:
    return f"checks on, {n or 'no'} finding{'' if n == 1 else 's'}"


def kernel(console: Console, args: argparse.Namespace) -> int:
    """Run one kernel, print its counts and its modeled time on each model; a check's finding exits 1."""
    try:
        report = run_report(
            args.file,
            args.name,
            args.args,
            args.global_size,
            args.local_size,
            args.hardware or ["nvidia-a100-sxm4-80gb"],
            " ".join(args.options),
            checks=not args.no_checks,
            fill=args.fill,
            seed=args.seed,
            step_limit=args.step_limit,
            global_offset=args.global_offset,
            fp_contract=args.fp_contract,
        )
    except kernels.KernelCompileError as e:
        console.print(e.build_log, highlight=False, markup=False)
        return 1
    except KernelTimeout as e:
        console.print(f"[red]wia-sim: {escape(str(e))}[/red]", highlight=False)
        return 1
    except KernelFault as e:
        console.print(f"[red]wia-sim: check {e.check} failed: {escape(str(e))}[/red]", highlight=False)
        return 1
    except ValueError as e:  # the command line's arguments do not fit the kernel: a usage error, as argparse's
        console.print(f"[red]wia-sim kernel: error: {escape(str(e))}[/red]", highlight=False)
        return 2
    except (kernels.KernelNotFound, UnsupportedKernel, OSError) as e:
        console.print(f"[red]wia-sim: {escape(str(e))}[/red]", highlight=False)
        return 1
    if report.output:  # the kernel's printf output first, as a device prints it when the kernel completes
        from wia_sim.kernels.printf import write_output  # (loaded: the kernel ran)

        console.file.flush()
        write_output(report.output)
    groups = report.counts.get("work_groups", 0)
    offset = f", offset {report.global_offset}" if any(report.global_offset) else ""
    console.print(
        f"kernel {report.kernel}: global {report.global_size}, local {report.local_size}{offset}, {groups:,} "
        "work-groups; "
        + (_findings(len(report.findings)) if report.checks else "checks off")
        + ("; a*b+c fused" if report.fp_contract else ""),
        highlight=False,
    )
    for finding in report.findings:  # lower severity (uniform writes): the kernel ran to the end
        console.print(f"[yellow]wia-sim: {escape(finding)}[/yellow]", highlight=False)
    counts = Table(title="what the kernel did (executor counts)")
    counts.add_column("count", no_wrap=True)
    counts.add_column("value", justify="right")
    for key, value in report.counts.items():
        counts.add_row(key.replace("_", " "), f"{value:,}")
    print_table(console, counts)
    timing = Table(title="modeled time, µs")
    for column in ("hardware", "duration", "compute", "memory", "launch", "bound", "waves", "busy"):
        timing.add_column(
            column, justify="left" if column in ("hardware", "bound") else "right", no_wrap=column == "hardware"
        )
    for t in report.timings:
        timing.add_row(
            t.hardware,
            f"{t.duration_us:,.2f}",
            f"{t.compute_us:,.2f}",
            f"{t.memory_us:,.2f}",
            f"{t.launch_us:,.2f}",
            t.bound,
            str(t.waves),
            f"{t.busy:.2f}",
        )
    print_table(console, timing)
    return 0


def cpu(console: Console, args: argparse.Namespace) -> int:
    """``models cpu``: the TOML of this machine's CPU model, printed or written, and checked by the schema."""
    from wia_sim.cpu_model import generate  # measures through PyOpenCL: imported only when asked

    text = generate(measure=not args.no_measure, device_hint=args.device, name=args.name, repeats=args.repeats)
    if args.output is None:
        print(text, end="")
        return 0
    args.output.write_text(text, encoding="utf-8")
    model = load_model(args.output)
    console.print(f"{args.output}: ok ({model.display_name})", highlight=False)
    return 0


PROFILE_PREFIX = "./wia-profile"
PLOT_EXTRA = "pip install 'wia[plot]'"


def profile_script(script: str, script_args: list[str], hardware: str | None, prefix: str) -> tuple[int, list[Path]]:
    """Run ``python script args`` on the simulator (``WIA_BACKEND=sim``, ``WIA_SIM_HARDWARE``) with
    ``WIA_PROFILE=prefix``; its exit status and the reports it wrote. A subprocess: the HAL profiles it, and
    wia_sim never imports the HAL."""
    if not Path(script).is_file():
        print(f"wia-sim profile: no such script: {script}", file=sys.stderr)
        return 2, []
    env = dict(os.environ, WIA_BACKEND="sim", WIA_PROFILE=prefix)
    if hardware:
        env["WIA_SIM_HARDWARE"] = hardware
    started = time.time()
    status = subprocess.run([sys.executable, script, *script_args], env=env, check=False).returncode
    stem = Path(prefix)
    candidates = [stem.with_name(stem.name + ".json"), *sorted(stem.parent.glob(f"{stem.name}.ctx*[0-9].json"))]
    reports = [path for path in candidates if path.is_file() and path.stat().st_mtime >= started - 1]
    if not reports:
        print(
            f"wia-sim profile: no profile was written under {prefix} (did the script make a context?)", file=sys.stderr
        )
    return (128 - status if status < 0 else status), reports


def _si(value: float, unit: str) -> str:
    for scale, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= scale:
            return f"{value / scale:,.3g} {prefix}{unit}"
    return f"{value:,.3g} {unit}"


class RooflineError(Exception):
    """A roofline that cannot be drawn: no matplotlib, or a file that is not a profile report."""


BOUND_MARKERS = {"compute": ("o", "tab:red"), "memory": ("s", "tab:blue"), "launch": ("^", "tab:orange")}


def load_report(path: Path) -> dict[str, Any]:
    """A profile report (the ``ProfileReport`` JSON schema of ``docs/profiling.md``) as plain data."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise RooflineError(f"cannot read the profile report {path}: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("op_stats"), list):
        raise RooflineError(f"{path} is not a wia profile report (the JSON of save_profile or WIA_PROFILE)")
    return data


def plot_roofline(report: dict[str, Any], output: Path) -> tuple[int, int]:
    """Draw the chip's roofline (the memory-bandwidth slope under one ceiling per precision the ops used) and each
    op signature at (arithmetic intensity, achieved FLOP/s), marked by what bound it; log-log. Ops plotted, and
    ops left out (no FLOPs or no bytes: they have no place on the axes)."""
    try:
        from matplotlib.figure import Figure  # type: ignore[import-not-found, unused-ignore]  # the plot extra
    except ImportError:
        raise RooflineError(f"wia-sim roofline draws with matplotlib, which is not installed: {PLOT_EXTRA}") from None
    ops = [o for o in report["op_stats"] if isinstance(o, dict)]
    points = [o for o in ops if o.get("flops", 0) > 0 and o.get("bytes", 0) > 0 and o.get("achieved_flops", 0) > 0]
    bandwidth = float(report.get("memory_bandwidth") or 0.0)
    peaks: dict[str, float] = {k: float(v) for k, v in (report.get("peak_flops_by_precision") or {}).items() if v}
    used = sorted({o.get("precision", "") for o in points} & set(peaks), key=lambda p: -peaks[p])
    intensities = [float(o["arithmetic_intensity"]) for o in points]
    ridges = [peaks[p] / bandwidth for p in used] if bandwidth > 0 else []
    low = min([*intensities, *ridges, 1.0]) / 8
    high = max([*intensities, *ridges, 1.0]) * 8
    x = np.geomspace(low, high, 400)
    figure = Figure(figsize=(10, 6.5), layout="constrained")
    axes = figure.add_subplot()
    axes.set_xscale("log")
    axes.set_yscale("log")
    if bandwidth > 0:
        top = max((peaks[p] for p in used), default=float(np.max(bandwidth * x)))
        axes.plot(
            x,
            np.minimum(bandwidth * x, top),
            color="black",
            linewidth=1,
            linestyle="--",
            zorder=2.5,
            label=f"memory bandwidth {_si(bandwidth, 'B/s')}",
        )
        for precision in used:
            peak = peaks[precision]
            unit = "OP/s" if precision.startswith("int") else "FLOP/s"
            axes.plot(
                x,
                np.minimum(bandwidth * x, peak),
                linewidth=1.5,
                label=f"{precision} peak {_si(peak, unit)} (ridge at {peak / bandwidth:,.3g} FLOP/B)",
            )
    for bound in sorted({o.get("bound", "") for o in points}):
        marker, color = BOUND_MARKERS.get(bound, ("x", "tab:gray"))
        group = [o for o in points if o.get("bound", "") == bound]
        axes.scatter(
            [o["arithmetic_intensity"] for o in group],
            [o["achieved_flops"] for o in group],
            marker=marker,
            color=color,
            s=40,
            zorder=3,
            label=f"{bound}-bound ops" if bound else "ops (bound not reported)",
        )
    for o in points:
        axes.annotate(
            str(o.get("name", "")),
            (o["arithmetic_intensity"], o["achieved_flops"]),
            textcoords="offset points",
            xytext=(5, 4),
            fontsize=8,
        )
    axes.set_xlim(low, high)
    axes.set_xlabel("arithmetic intensity (FLOP per byte of device memory)")
    axes.set_ylabel("achieved FLOP/s (OP/s for int8)")
    axes.set_title(f"Roofline: {report.get('device', '?')} ({report.get('backend', '?')} backend)")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, loc="lower right")
    output.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(output, dpi=120)
    return len(points), len(ops) - len(points)


def roofline(console: Console, args: argparse.Namespace) -> int:
    """``wia-sim roofline REPORT.json`` or ``wia-sim roofline script.py ARGS`` (profiled first, as by
    ``wia-sim profile``): a PNG per report."""
    status = 0
    if args.target.endswith(".py"):
        status, reports = profile_script(args.target, args.args, args.hardware, args.profile_output)
        if not reports:
            return status or 1
    else:
        after = argparse.ArgumentParser(prog="wia-sim roofline REPORT.json", add_help=False)
        after.add_argument("--output", "-o", type=Path, default=args.output)  # options may follow a report
        parsed, unknown = after.parse_known_args(args.args)
        if unknown:
            console.print(f"wia-sim roofline: unexpected arguments after a report: {unknown}", highlight=False)
            return 2
        args.output = parsed.output
        reports = [Path(args.target)]
    for path in reports:
        single = args.output is not None and len(reports) == 1
        output = args.output if single else path.with_name(path.name.removesuffix(".json") + ".roofline.png")
        plotted, left_out = plot_roofline(load_report(path), output)
        note = f", {left_out} without FLOPs left out" if left_out else ""
        console.print(f"{output}: roofline of {path} ({plotted} op signatures{note})", highlight=False, markup=False)
    return status


COMMANDS_GROUP = "wia_sim.commands"
"""Entry points that add subcommands: ``name = "module:register"``, where ``register(subparsers)`` adds the
parser ``name`` and returns the function that runs it (``args -> exit status``). The simulator imports none of
the packages above it; they add their commands here (``whatif`` from wia_whatif)."""

EXPECTED_COMMANDS = {"whatif": "wia_whatif.cli:register"}
"""Commands this project's packages add, for a clear message where one is not installed."""

Command = Callable[[argparse.Namespace], int]


def _not_installed(name: str, target: str, why: str) -> Command:
    def refuse(args: argparse.Namespace) -> int:
        print(
            f"wia-sim {name}: {why}: the command is the entry point {name} = {target!r} of group "
            f"{COMMANDS_GROUP!r}; reinstall the project (pip install -e .) to register it",
            file=sys.stderr,
        )
        return 1

    return refuse


def add_commands(sub: Any) -> dict[str, Command]:
    """The subcommands of the ``wia_sim.commands`` entry points, and a stand-in for each expected one that is
    missing or fails to load (it says so when run)."""
    commands: dict[str, Command] = {}
    for entry in entry_points(group=COMMANDS_GROUP):
        if entry.name in commands:
            continue
        try:
            commands[entry.name] = entry.load()(sub)
        except Exception as e:  # a broken plugin must not break the other commands
            why = f"it failed to load ({type(e).__name__}: {e})"
            commands[entry.name] = _stand_in(sub, entry.name, entry.value, why)
    for name, target in EXPECTED_COMMANDS.items():
        if name not in commands:
            commands[name] = _stand_in(sub, name, target, "it is not installed")
    return commands


def _stand_in(sub: Any, name: str, target: str, why: str) -> Command:
    stand_in = sub.add_parser(name, help=f"({why})", add_help=False)
    stand_in.set_defaults(stand_in=True)
    return _not_installed(name, target, why)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wia-sim", description="Tools of the wia simulator.")
    sub = parser.add_subparsers(dest="command", required=True)
    models = sub.add_parser("models", help="the shipped hardware models").add_subparsers(dest="action")
    models.add_parser("list", help="table of every shipped model with its headline numbers (the default)")
    show_parser = models.add_parser("show", help="every field of one model")
    show_parser.add_argument("name", help="a shipped model name or the path of a TOML file")
    check_parser = models.add_parser("check", help="validate model files; errors name the file and the field")
    check_parser.add_argument("paths", nargs="+", type=Path)
    cpu_parser = models.add_parser(
        "cpu",
        help="print a model of this machine's CPU as its OpenCL CPU device (PoCL) sees it, every number sourced",
        description="Reads /proc/cpuinfo, /proc/meminfo and /sys/devices/system/cpu, and measures peaks, bandwidth, "
        "launch, allocation and copy costs through PyOpenCL on the OpenCL CPU device (a few seconds); without one, "
        "the OpenCL figures are estimates and say so. Review the output before shipping it.",
    )
    cpu_parser.add_argument("--output", "-o", type=Path, help="write the TOML here (default: print it)")
    cpu_parser.add_argument(
        "--name", help="the model's name (default: from the CPU, e.g. host-cpu-amd-epyc-zen4-2vcpu)"
    )
    cpu_parser.add_argument("--device", default="", help="part of the OpenCL platform / device name (default: any CPU)")
    cpu_parser.add_argument("--no-measure", action="store_true", help="skip the OpenCL measurements")
    cpu_parser.add_argument("--repeats", default="5", help="runs per measurement (best or median of them)")
    explain_parser = sub.add_parser(
        "explain",
        help="the cost model's breakdown of a matmul (M N K), conv2d (N C H W O KH KW) or attention "
        "(B HQ HKV LQ LK D: flash and unfused), all algorithms",
    )
    explain_parser.add_argument("op", choices=tuple(EXPLAIN_SIZES))
    explain_parser.add_argument(
        "dims", nargs="+", metavar="SIZE", help="matmul: M N K; conv2d: N C H W O KH KW; attention: B HQ HKV LQ LK D"
    )
    explain_parser.add_argument("--hardware", default="nvidia-a100-sxm4-80gb")
    explain_parser.add_argument(
        "--arithmetic",
        default="bfloat16",
        choices=("float32", "tf32", "float16", "bfloat16", "float8", "int8", "float64"),
    )
    explain_parser.add_argument("--padding", default="0", help="conv2d: zeros added on each side (default: 0)")
    explain_parser.add_argument("--stride", default="1", help="conv2d: the window's step (default: 1)")
    explain_parser.add_argument("--causal", action="store_true", help="attention: a causal mask (bottom-right)")
    kernel_parser = sub.add_parser(
        "kernel",
        help="run one custom kernel on fresh data; print its counts and its modeled time on each --hardware",
        description="Arguments follow the kernel's parameters: an element count for a __global/__constant "
        "buffer (filled per --fill; random: floats in [0, 1), integers in [0, 100)), a size in bytes for a "
        "__local pointer, a value for a scalar (comma-separated for a vector).",
    )
    kernel_parser.add_argument("file", type=Path)
    kernel_parser.add_argument("name")
    kernel_parser.add_argument("args", nargs="*")
    kernel_parser.add_argument("--global", dest="global_size", required=True, help="e.g. 1048576 or 256,256")
    kernel_parser.add_argument("--local", dest="local_size", help="e.g. 256 or 16,16 (default: as a driver picks)")
    kernel_parser.add_argument(
        "--offset", dest="global_offset", help="the global work offset, e.g. 5 or 5,3 (get_global_offset; default 0)"
    )
    kernel_parser.add_argument("--hardware", action="append", help="a model name or TOML path; repeat to compare")
    kernel_parser.add_argument("-D", dest="options", action="append", default=[], type=lambda d: f"-D{d}")
    kernel_parser.add_argument(  # (shlex-quoted: the build options are one string, split as clBuildProgram's)
        "-I",
        dest="options",
        action="append",
        type=lambda d: f"-I{shlex.quote(d)}",
        help="a directory #include searches",
    )
    kernel_parser.add_argument("--fill", choices=("random", "index", "zeros"), default="random")
    kernel_parser.add_argument("--seed", default="0", help="the random fill's seed (default: 0)")
    kernel_parser.add_argument("--no-checks", action="store_true", help="skip the sanitizer checks (faster)")
    kernel_parser.add_argument(
        "--fp-contract",
        action="store_true",
        help="fuse a*b+c within an expression into one rounding, as Clang's default (-ffp-contract=on) does",
    )
    kernel_parser.add_argument(
        "--step-limit", default="1000000", help="lockstep steps before a runaway kernel is stopped"
    )
    profile_parser = sub.add_parser(
        "profile",
        help="run a Python script on the simulator with every context it makes profiled (report, trace, summary)",
        description="Runs `python SCRIPT ARGS` with WIA_BACKEND=sim, WIA_SIM_HARDWARE=MODEL (when given) and "
        "WIA_PROFILE=PREFIX: the report goes to PREFIX.json, the Chrome trace to PREFIX.trace.json (PREFIX.ctxN.* when "
        "it made several contexts), the summary to stderr. Exits with the script's status.",
    )
    profile_parser.add_argument(
        "--hardware", help="a model name or TOML path (default: $WIA_SIM_HARDWARE or the sim's)"
    )
    profile_parser.add_argument("--output", "-o", default=PROFILE_PREFIX, metavar="PREFIX", help="default: %(default)s")
    profile_parser.add_argument("script")
    profile_parser.add_argument("args", nargs=argparse.REMAINDER)
    roofline_parser = sub.add_parser(
        "roofline",
        help="plot a profile report's ops on the chip's roofline (PNG; needs the plot extra)",
        description="TARGET is a profile report (PREFIX.json of WIA_PROFILE or save_profile) or a Python script, "
        f"which is profiled first as by `wia-sim profile`. Needs matplotlib: {PLOT_EXTRA}.",
    )
    roofline_parser.add_argument("--output", "-o", type=Path, help="the PNG (default: the report's name .roofline.png)")
    roofline_parser.add_argument("--hardware", help="for a script: the model it runs on")
    roofline_parser.add_argument(
        "--profile-output", default=PROFILE_PREFIX, metavar="PREFIX", help="for a script: the profile's prefix"
    )
    roofline_parser.add_argument("target", help="REPORT.json, or script.py")
    roofline_parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    commands = add_commands(sub)
    args, unknown = parser.parse_known_args(argv)  # a stand-in takes any arguments (it only says it is missing)
    if unknown and not getattr(args, "stand_in", False):
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command in commands:
        return commands[args.command](args)
    console = make_console()
    try:
        if args.command == "profile":
            status, _ = profile_script(args.script, args.args, args.hardware, args.output)
            return status
        if args.command == "roofline":
            return roofline(console, args)
        if args.command == "kernel":
            check_kernel(kernel_parser, args)
            return kernel(console, args)
        if args.command == "explain":
            check_explain(explain_parser, args)
            explain(console, args)
        elif args.action == "show":
            show(console, args.name)
        elif args.action == "cpu":
            args.repeats = whole_number(cpu_parser, "--repeats", args.repeats, 1)
            return cpu(console, args)
        elif args.action == "check":
            for path in args.paths:
                loaded = load_hardware(path)
                title = loaded.model.display_name if isinstance(loaded, System) else loaded.display_name
                console.print(f"{path}: ok ({title})")
        else:
            models_table(console)
    except (HardwareModelError, RooflineError) as e:
        console.print(f"[red]wia-sim: {escape(str(e))}[/red]", highlight=False)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
