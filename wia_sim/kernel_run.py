"""One custom kernel run from the command line (``wia-sim kernel``): what it did and how long it would take.

The arguments come from the kernel's signature: a buffer parameter takes an element count (filled with fresh
data), a ``__local`` pointer a size in bytes, a scalar its value. The kernel runs once, with the checks unless
they are turned off, and its counts are timed on each hardware model asked for; no HAL, no context, nothing
kept.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from wia_sim import kernels  # the front end and executor load when a kernel is run, not with the CLI
from wia_sim.costmodel import custom_kernel_cost
from wia_sim.hwmodel import load_model
from wia_sim.kernels.ctype import elem_bytes, lookup
from wia_sim.kernels.lanes import launch_geometry

if TYPE_CHECKING:
    from wia_sim.kernels.program import KernelInfo, Param

Fill = Literal["random", "index", "zeros"]


class KernelTiming(BaseModel):
    """The modeled time of the run on one hardware model (microseconds)."""

    model_config = ConfigDict(frozen=True)

    hardware: str
    duration_us: float
    compute_us: float
    memory_us: float
    launch_us: float
    bound: str
    waves: int
    busy: float


class KernelRunReport(BaseModel):
    """What one run did (``counts``, in the executor's own names) and what it would cost on each model."""

    model_config = ConfigDict(frozen=True)

    kernel: str
    global_size: tuple[int, int, int]
    local_size: tuple[int, int, int]
    global_offset: tuple[int, int, int] = (0, 0, 0)
    checks: bool
    fp_contract: bool = False
    """``a * b + c`` within an expression was rounded once (``kernels/contraction.py``)."""
    counts: dict[str, int]
    timings: list[KernelTiming]
    output: str = ""
    """What the kernel printed with printf (the executor's stable order; bytes that are not UTF-8 as surrogates:
    ``printf.PrintfOutput.text``)."""
    findings: list[str] = []
    """Lower-severity findings that did not stop the kernel (uniform writes), as messages."""


def _buffer(param: Param, count: int, fill: Fill, rng: np.random.Generator) -> np.ndarray:
    t = lookup(param.type_name)
    n = count * elem_bytes(t) // t.dtype.itemsize  # a 3-vector takes four elements' room, as in memory
    dtype = t.dtype
    if fill == "zeros":
        data = np.zeros(n, dtype)
    elif fill == "index":
        data = np.arange(n).astype(dtype)
    elif np.issubdtype(dtype, np.floating):
        data = rng.random(n).astype(dtype)
    else:  # small non-negative integers: usable as values, bins or short loop bounds
        data = rng.integers(0, 100, n).astype(dtype)
    return data.view(np.uint8)


def _scalar(param: Param, text: str) -> Any:
    t = lookup(param.type_name)
    parts = text.split(",")
    if len(parts) != t.width:
        wanted = "one value" if t.width == 1 else f"{t.width} comma-separated values"
        raise ValueError(f"it is a {param.type_name}: give {wanted}, not {text!r}")
    parse = float if np.issubdtype(t.dtype, np.floating) else int
    try:
        values = np.asarray([parse(p) for p in parts], dtype=t.dtype)
    except (ValueError, OverflowError):
        raise ValueError(f"it is a {param.type_name}: {text!r} is not one") from None
    return values if t.width > 1 else values[0]


def kernel_arguments(info: KernelInfo, texts: list[str], fill: Fill, seed: int) -> list[Any]:
    """The executor's arguments for ``info`` from one text per parameter."""
    if len(texts) != len(info.params):
        wanted = ", ".join(
            f"{p.name} ({'element count' if p.kind == 'buffer' else 'bytes' if p.kind == 'local' else p.type_name})"
            for p in info.params
        )
        raise ValueError(f"kernel '{info.name}' takes {len(info.params)} arguments: {wanted}; got {len(texts)}")
    rng = np.random.default_rng(seed)
    args: list[Any] = []
    for param, text in zip(info.params, texts, strict=True):
        if param.kind in ("buffer", "local"):
            try:
                size = int(text)
            except ValueError:
                raise ValueError(f"argument '{param.name}' takes a whole number, not {text!r}") from None
            if size < 0:
                raise ValueError(f"argument '{param.name}' takes a size ≥ 0, not {size}")
            args.append(_buffer(param, size, fill, rng) if param.kind == "buffer" else size)
        else:
            try:
                args.append(_scalar(param, text))
            except ValueError as e:
                raise ValueError(f"argument '{param.name}': {e}") from None
    return args


def run_report(
    path: Path,
    name: str,
    texts: list[str],
    global_size: tuple[int, int, int],
    local_size: tuple[int, int, int] | None,
    hardware: list[str],
    options: str = "",
    checks: bool = True,
    fill: Fill = "random",
    seed: int = 0,
    step_limit: int = 1_000_000,
    global_offset: tuple[int, int, int] = (0, 0, 0),
    fp_contract: bool = False,
) -> KernelRunReport:
    """Compile ``name`` from ``path``, run it once and time its counts on each model in ``hardware``.

    Raises ``KernelCompileError``, ``KernelNotFound``, ``UnsupportedKernel``, ``KernelFault`` (a check's finding),
    ``ValueError`` (bad arguments or geometry) and ``HardwareModelError``."""
    models = [load_model(h) for h in hardware]
    # built for what every model asked for has: a kernel using doubles fails on a chip without them
    extensions = frozenset.intersection(*(m.kernel_extensions for m in models))
    program = kernels.compile_source(
        path.read_text(),
        options,
        filename=path.name,
        extensions=extensions,
        directory=str(path.parent),
        contract=fp_contract,
    )
    info = program.runnable(name)
    args = kernel_arguments(info, texts, fill, seed)
    max_group = min(m.compute.max_work_group_size for m in models)
    geometry = launch_geometry(global_size, local_size, max_group, global_offset=global_offset)
    if geometry.group_size > max_group:
        raise ValueError(f"a work-group of {geometry.group_size} work-items is over the models' maximum {max_group}")
    before = [(a, a.copy()) for a in args if isinstance(a, np.ndarray)]

    def restore() -> None:  # the buffers as generated, to run the launch again (``run_kernel``)
        for live, copy in before:
            live[:] = copy

    result = kernels.run_kernel(program, name, args, geometry, step_limit=step_limit, checks=checks, restore=restore)
    local_bytes = info.static_local_bytes + sum(a for p, a in zip(info.params, args, strict=True) if p.kind == "local")
    timings = []
    for model in models:
        cost = custom_kernel_cost(model, name, result.counts, geometry.group_size, local_bytes)
        timings.append(
            KernelTiming(
                hardware=model.display_name,
                duration_us=cost.duration_s * 1e6,
                compute_us=cost.compute_s * 1e6,
                memory_us=cost.memory_s * 1e6,
                launch_us=cost.launch_s * 1e6,
                bound=cost.bound,
                waves=cost.waves,
                busy=cost.efficiency,
            )
        )
    return KernelRunReport(
        findings=[str(f) for f in result.findings],
        kernel=name,
        global_size=geometry.global_size,
        local_size=geometry.local_size,
        global_offset=geometry.global_offset,
        checks=checks,
        fp_contract=fp_contract,
        counts=result.counts,
        timings=timings,
        output=result.output,
    )
