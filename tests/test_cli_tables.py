"""Every table the command-line tools print keeps its names whole: at 60, 80 and 120 columns on a terminal and in a
pipe, each model name, requirement ID, section number, device or kernel name appears intact on one line, and no
"…" appears anywhere; in a pipe the output is plain (no control codes, ASCII borders, natural width)."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

import wia_hal as wia
from conformance import cli as conformance_cli
from conformance import report as rp
from conformance import requirements as rq
from wia_hal import cli as hal_cli
from wia_hal.tables import plain_text
from wia_sim import cli as sim_cli
from wia_sim.hwmodel import available_models, load_model

WIDTHS = [60, 80, 120, None]  # None: a pipe
SAXPY = """__kernel void saxpy(__global const float* x, __global float* y, const float a, const int n) {
    const int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def render(draw: Callable[[Console], object], width: int | None) -> str:
    out = io.StringIO()
    if width is None:  # as make_console() makes it for a pipe, whatever COLUMNS says
        console = Console(file=out, width=80, color_system=None, highlight=False, emoji=False, soft_wrap=True)
    else:
        console = Console(file=out, width=width, force_terminal=True, color_system=None)
    draw(console)
    return out.getvalue()


def intact(text: str, names: list[str]) -> None:
    assert "…" not in text, text
    lines = text.splitlines()
    for name in names:
        assert any(name in line for line in lines), f"{name!r} is not whole on one line:\n{text}"


def plain(text: str) -> None:
    """No control codes and no box-drawing characters (ASCII borders)."""
    assert "\x1b" not in text, text
    assert not [c for c in text if 0x2500 <= ord(c) <= 0x257F], text


@pytest.mark.parametrize("width", WIDTHS)
def test_models_list(width: int | None) -> None:
    text = render(sim_cli.models_table, width)
    intact(text, available_models())
    h100 = next(line for line in text.splitlines() if "nvidia-h100" in line)
    h200 = next(line for line in text.splitlines() if "nvidia-h200" in line)
    assert h100 != h200
    if width is None:
        plain(text)
        assert "-+-" in text and all(len(line) > 80 for line in text.splitlines()[1:4])  # natural width, not 80


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", ["nvidia-h100-sxm5-80gb", "host-cpu-amd-epyc-zen4-2vcpu", "google-tpu-v5e"])
def test_models_show(width: int | None, name: str) -> None:
    text = render(lambda c: sim_cli.show(c, name), width)
    model = load_model(name)
    fields = [row[0] for row in sim_cli.model_rows(model, {})]
    intact(text, [name, model.display_name, *fields])
    if width is None:
        plain(text)


@pytest.mark.parametrize("width", WIDTHS)
def test_explain(width: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    def draw(console: Console) -> None:
        monkeypatch.setattr(sim_cli, "make_console", lambda: console)
        assert sim_cli.main(["explain", "matmul", "64", "64", "64", "--hardware", "wia-tiny"]) == 0

    text = render(draw, width)
    intact(text, ["TILED_128", "TILED_64 ← AUTO", "STREAM_K", "WIA Tiny (test device)"])


@pytest.mark.parametrize("width", WIDTHS)
def test_kernel(width: int | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "saxpy.cl"
    path.write_text(SAXPY)
    argv = ["kernel", str(path), "saxpy", "100", "100", "2", "100", "--global", "128", "--hardware", "wia-tiny"]
    argv += ["--hardware", "host-cpu-amd-epyc-zen4-2vcpu"]

    def draw(console: Console) -> None:
        monkeypatch.setattr(sim_cli, "make_console", lambda: console)
        assert sim_cli.main(argv) == 0

    text = render(draw, width)
    intact(
        text, ["WIA Tiny (test device)", load_model("host-cpu-amd-epyc-zen4-2vcpu").display_name, "global bytes read"]
    )


@pytest.mark.parametrize("width", WIDTHS)
def test_wia_devices(width: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_SIM_HARDWARE", "nvidia-h200-sxm-141gb")

    def draw(console: Console) -> None:
        monkeypatch.setattr(hal_cli, "make_console", lambda: console)
        assert hal_cli.main(["--backend", "sim", "--option", "devices=2", "devices"]) == 0

    text = render(draw, width)
    intact(text, ["NVIDIA H200 SXM 141GB", "supports custom kernels", "device 1"])
    if width is None:
        plain(text)


def _report() -> rp.RunReport:
    results = []
    for req in sorted(rq.CLAIMED, key=rq.req_key):
        section = rq.section_of_req(req)
        results.append(
            rp.TestResult(
                nodeid=f"conformance/test_{section.replace('.', '_')}_x.py::test_{req}",
                section=section,
                reqs=[req],
                outcome="passed",
            )
        )
    return rp.build_report(results, backend="sim", device={"name": "NVIDIA H100 SXM5 80GB"})


@pytest.mark.parametrize("width", WIDTHS)
def test_conformance_sections_and_summary(width: int | None) -> None:
    report = _report()
    text = render(lambda c: conformance_cli.print_report(c, report, quiet=False), width)
    titles = [s.title for s in report.sections]
    intact(text, [s.section for s in report.sections] + [w for t in titles for w in t.split()])
    intact(text, ["NVIDIA H100 SXM5 80GB"])
    if width is None:
        plain(text)
        intact(text, titles)  # natural width: each title on its row's line


@pytest.mark.parametrize("width", WIDTHS)
def test_profile_summary_and_op_report(width: int | None) -> None:
    import numpy as np

    ctx = wia.create_context(wia.ContextConfig(enable_profiling=True))
    a = wia.tensor(np.ones((64, 64), np.float32), ctx=ctx)
    profiler = wia.begin_profiling(ctx)
    b = wia.matmul(a, a)
    wia.softmax(b)
    wia.end_profiling(profiler)
    report = wia.get_profile_report(profiler)
    op = wia.explain(b)
    if width is None:
        text = str(report) + "\n" + str(op)
        plain(text.replace("←", "").replace("×", "").replace("—", "").replace("µ", ""))
    else:
        text = render(lambda c: (c.print(report), c.print(op)), width)
    intact(text, [k.name for k in report.kernel_stats] + [op.algorithm])
    wia.destroy_context(ctx)


def test_piped_output_ignores_columns_and_has_no_control_codes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    text = plain_text(sim_like_table())
    assert max(len(line) for line in text.splitlines()) > 80 and "…" not in text


def sim_like_table() -> object:
    from rich.table import Table

    from wia_hal.tables import fit

    table = Table(title="t")
    table.add_column("name", no_wrap=True)
    table.add_column("note")
    table.add_row("a-very-long-device-name-that-must-stay-whole", "a note " * 20)
    return fit(table)


def test_the_two_copies_of_the_table_policy_are_the_same_code() -> None:
    """wia_sim cannot import the HAL, so wia_sim/console.py repeats wia_hal/tables.py's table policy and unit
    formatting; this keeps the copies from drifting apart."""
    import inspect

    import wia_hal.tables as hal
    import wia_sim.console as sim

    shared = ("_plain", "_texts", "fit", "layout", "print_table", "significant", "bandwidth", "frequency")
    for name in shared:
        assert inspect.getsource(getattr(sim, name)) == inspect.getsource(getattr(hal, name)), name
    assert str(sim.ASCII_SIMPLE_HEAD) == str(hal.ASCII_SIMPLE_HEAD) and sim.ASCII_SIMPLE_HEAD.ascii
    assert (sim._OPEN_BOXES, sim._UNBOUNDED) == (hal._OPEN_BOXES, hal._UNBOUNDED)
