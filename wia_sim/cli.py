"""``wia-sim``: the simulator's own tools (the shipped hardware models, checking a model file)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from wia_sim.hwmodel import HardwareModel, HardwareModelError, available_models, load_model, model_path


def _tera(value: float | None, unit: str = "TFLOP/s") -> str:
    return "—" if value is None else f"{value / 1e12:,.4g} {unit}".rstrip()


def _size(value: float) -> str:
    return f"{value / 2**30:,.1f} GiB" if value >= 2**30 else f"{value / 2**20:,.1f} MiB"


def _link(model: HardwareModel) -> str:
    link = model.host_link
    return f"{link.interface} {link.generation} x{link.lanes}"


def models_table(console: Console) -> None:
    table = Table(title="Shipped hardware models (dense peaks at boost clock; show NAME for sources and details)")
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
        table.add_column(column, justify="left" if column in ("name", "host link") else "right")
    for name in available_models():
        m = load_model(name)
        peaks = m.compute.peak_flops
        table.add_row(
            name,
            str(m.compute.compute_units),
            f"{m.compute.clock / 1e6:,.0f}",
            *(_tera(peaks.get(p), "") for p in ("float32", "bfloat16", "float16")),
            _size(m.memory.size),
            f"{m.memory.bandwidth / 1e9:,.0f}",
            _link(m),
        )
    console.print(table)


def _describe(field: str, value: object) -> str:
    if not isinstance(value, float):
        return str(value)
    if field in ("size", "last_level_cache", "alignment") or field.endswith(
        ("memory_per_compute_unit", "per_work_group")
    ):
        return f"{value:,.0f} B ({_size(value)})" if value >= 2**20 else f"{value:,.0f} B"
    if field.endswith("bandwidth"):
        return f"{value / 1e9:,.2f} GB/s"
    if field.endswith(("latency", "overhead")):
        return f"{value * 1e6:,.3g} us"
    if field == "clock":
        return f"{value / 1e6:,.0f} MHz"
    return f"{value:,.6g}"


def show(console: Console, name: str) -> None:
    model = load_model(name)
    table = Table(title=f"{model.display_name} ({model.name})", caption=str(model_path(name)))
    table.add_column("field")
    table.add_column("value")
    for field in ("vendor", "device_type", "architecture"):
        table.add_row(field, str(getattr(model, field)))
    for section in ("compute", "memory", "host_link", "host", "peer_link", "features"):
        spec = getattr(model, section)
        if spec is None:
            continue
        for field, value in spec:
            if field == "peak_flops":
                for precision, rate in value.items():
                    table.add_row(
                        f"{section}.peak_flops.{precision}", _tera(rate, "TOP/s" if precision == "int8" else "TFLOP/s")
                    )
            else:
                table.add_row(f"{section}.{field}", _describe(field, value))
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wia-sim", description="Tools of the wia simulator.")
    sub = parser.add_subparsers(dest="command", required=True)
    models = sub.add_parser("models", help="the shipped hardware models").add_subparsers(dest="action")
    models.add_parser("list", help="table of every shipped model with its headline numbers (the default)")
    show_parser = models.add_parser("show", help="every field of one model")
    show_parser.add_argument("name", help="a shipped model name or the path of a TOML file")
    check_parser = models.add_parser("check", help="validate model files; errors name the file and the field")
    check_parser.add_argument("paths", nargs="+", type=Path)
    args = parser.parse_args(argv)
    console = Console()
    try:
        if args.action == "show":
            show(console, args.name)
        elif args.action == "check":
            for path in args.paths:
                model = load_model(path)
                console.print(f"{path}: ok ({model.display_name})")
        else:
            models_table(console)
    except HardwareModelError as e:
        console.print(f"[red]wia-sim: {e}[/red]", highlight=False)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
