"""``wia``: look at the devices of a backend, as ``clinfo`` or ``nvidia-smi`` would show them; profile a script on
any backend that claims profiling (``wia profile``, ``docs/profiling.md``)."""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

import wia_hal as wia
from wia_hal.tables import bandwidth, exact_size, frequency, make_console, peak_rate, print_table


def _parse_options(pairs: list[str]) -> dict[str, str]:
    options = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise SystemExit(f"wia: --option expects KEY=VALUE, got {pair!r}")
        options[key] = value
    return options


def device_rows(info: wia.DeviceInfo, caps: wia.DeviceCapabilities) -> list[tuple[str, str]]:
    """``wia devices``' rows of one device: each fact in the units and words ``wia-sim models show`` uses."""
    rows = [
        ("name", info.name),
        ("vendor", info.vendor),
        ("type", wia.device_type_to_string(info.type)),
        ("architecture", info.architecture),
        ("compute units", f"{info.compute_units:,}"),
        ("clock", frequency(info.clock_rate_hz)),
        ("memory", exact_size(info.memory_size)),
        ("memory bandwidth", bandwidth(info.memory_bandwidth)),
        ("last-level cache", exact_size(info.last_level_cache_size)),
        ("peak FP32 (dense)", peak_rate(info.peak_flops)),
    ]
    for precision, rate in info.peak_flops_by_precision.items():
        rows.append((f"  peak {precision}", peak_rate(rate, "OP/s" if precision.startswith("int") else "FLOP/s")))
    rows += [
        ("host link", f"{info.host_link} ({bandwidth(info.host_link_bandwidth)} pinned H2D)"),
        ("backend", info.backend),
    ]
    if info.model_file:
        rows.append(("model file", info.model_file))
    for field, value in caps.model_dump().items():
        if isinstance(value, bool):
            shown = "yes" if value else "no"
        elif field == "max_shared_memory":
            shown = exact_size(value)
        else:
            shown = f"{value:,}"
        rows.append((field.replace("_", " "), shown))
    return rows


def devices(console: Console) -> int:
    count = wia.get_device_count()
    backend = wia.get_backend()
    if count == 0:
        console.print(f"backend {backend.name!r}: no devices")
        return 0
    table = Table(title=f"{count} device(s) on backend {backend.name!r}")
    table.add_column("", no_wrap=True)
    columns = []
    for index in range(count):
        device = wia.get_device(index)
        table.add_column(f"device {index}")
        columns.append(device_rows(wia.get_device_info(device), wia.get_device_capabilities(device)))
    for i, (label, _) in enumerate(columns[0]):
        table.add_row(label, *(column[i][1] for column in columns))
    print_table(console, table)
    return 0


def exit_status(code: object) -> int:
    """The process status of ``SystemExit(code)``: None is 0, an int is itself, anything else is printed and 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def profile(script: str, script_args: list[str], prefix: str) -> int:
    """Run ``script`` in this process as ``python script args`` would, with ``WIA_PROFILE=prefix``: every
    context it makes is profiled, and the files are written when it returns. The script's exit status."""
    from wia_hal.profiling import auto

    path = Path(script)
    if not path.is_file():
        print(f"wia profile: no such script: {script}", file=sys.stderr)
        return 2
    os.environ[auto.ENVIRONMENT] = prefix
    auto.install(prefix)
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *script_args]
    sys.path.insert(0, str(path.resolve().parent))  # as `python script.py` puts the script's folder first
    try:
        runpy.run_path(script, run_name="__main__")
        status = 0
    except SystemExit as e:
        status = exit_status(e.code)
    except KeyboardInterrupt:
        status = 130
    except BaseException:
        traceback.print_exc()
        status = 1
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path
        auto.finish()
    if not auto.written():
        print(f"wia profile: nothing was written under {prefix}: the script made no profiled context", file=sys.stderr)
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wia", description="The WIA-AI-011 HAL from the command line.")
    parser.add_argument("--backend", help="backend name (default: $WIA_BACKEND or 'sim')")
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="backend option, e.g. hardware=amd-mi300x"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("devices", help="table of every device with its info and capabilities")
    sub.add_parser("backends", help="the installed backends")
    profile_parser = sub.add_parser(
        "profile",
        help="run a Python script with every context it makes profiled; write the report and the trace",
        description="Runs SCRIPT in this process (sys.argv set to SCRIPT ARGS) with WIA_PROFILE=PREFIX: every "
        "context it makes on a device that supports profiling is profiled from its creation; when the context is "
        "destroyed or the script ends, the report is written to PREFIX.json, the Chrome trace to PREFIX.trace.json "
        "(PREFIX.ctxN.* when it made several contexts) and the summary is printed to stderr. Exits with the "
        "script's status.",
    )
    profile_parser.add_argument("--backend", default=argparse.SUPPRESS, help="backend name (as wia --backend)")
    profile_parser.add_argument(
        "--option", action="append", default=argparse.SUPPRESS, metavar="KEY=VALUE", help="backend option"
    )
    profile_parser.add_argument(
        "--output", "-o", default="./wia-profile", metavar="PREFIX", help="where the files go (default: ./wia-profile)"
    )
    profile_parser.add_argument("script", help="the Python script to run")
    profile_parser.add_argument("args", nargs=argparse.REMAINDER, help="its arguments")
    args = parser.parse_args(argv)
    console = make_console()
    try:
        if args.backend or args.option:
            wia.set_backend(args.backend or os.environ.get("WIA_BACKEND", "sim"), **_parse_options(args.option))
        if args.command == "backends":
            for name in wia.available_backends():
                console.print(name)
            return 0
        if args.command == "profile":
            return profile(args.script, args.args, args.output)
        return devices(console)
    except wia.WiaError as e:
        console.print(f"[red]wia: {e.code.name}: {escape(str(e))}[/red]")
        return 1


if __name__ == "__main__":
    sys.exit(main())
