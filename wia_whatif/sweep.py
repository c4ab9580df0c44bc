"""A sweep: one workload over a grid of hardware points and parameter sets, run in parallel, results in grid order.

The grid is the hardware models × the cartesian product of the varied fields (``vary``) × the cartesian product of
the varied parameters, with the fixed fields (``set``) on every point. Points run in worker processes (the
default: each imports the HAL once and runs many points) or as Ray tasks (a cluster, or a local one); both run
:func:`wia_whatif.run.run_point`, which is deterministic, so the executors give equal rows (but ``wall_s``).
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Literal

from pydantic import Field

import wia_hal as wia
from wia_hal.errors import ErrorCode, WiaError, error_for
from wia_hal.models import WiaModel
from wia_whatif.run import run_point
from wia_whatif.workload import RunReport, available_workloads, get_workload

ExecutorName = Literal["process", "ray"]
EXECUTORS: tuple[ExecutorName, ...] = ("process", "ray")


class Point(WiaModel):
    """One run of the grid: a hardware model, its changed fields, and the workload's parameter overrides."""

    hardware: str | None = Field(description="a model, system or TOML path; None: the sim backend's choice")
    overrides: dict[str, str] = Field(default_factory=dict)
    params: dict[str, Any] = Field(default_factory=dict)

    def describe(self) -> str:
        changes = ";".join(f"{k}={v}" for k, v in self.overrides.items())
        params = ",".join(f"{k}={v}" for k, v in self.params.items())
        return " ".join(part for part in (self.hardware or "(default hardware)", changes, params) if part)


class Sweep(WiaModel):
    """What to run: ``workload`` (a registered name) with ``preset``, on every point of the grid."""

    workload: str
    preset: str | None = None
    hardware: list[str] = Field(
        default_factory=list, description="models, systems or TOML paths; none: the sim backend's choice"
    )
    set: dict[str, str] = Field(default_factory=dict, description="fields changed on every point")
    vary: dict[str, list[str]] = Field(default_factory=dict, description="fields, each over its values")
    params: dict[str, list[Any]] = Field(default_factory=dict, description="parameters, each over its values")
    numerics: bool = False
    profile: bool = True
    warmup: int = Field(1, ge=0, description="untimed steps before the timed one (run_point's warmup)")
    host_threads: Literal["one", "per-device"] = Field(
        "per-device", description="the sim's host model (run_point's host_threads)"
    )
    graph: bool = Field(True, description="launch each step as a captured graph (run_point's graph); False: eager")

    def points(self) -> list[Point]:
        """The grid, in order: hardware outermost, then the varied fields, then the parameters (the last of each
        varies fastest)."""
        for name, values in (*self.vary.items(), *self.params.items()):
            if not values:
                raise wia.InvalidValueError(f"sweep: {name} is varied over no values")
        clash = sorted(set(self.set) & set(self.vary))
        if clash:
            raise wia.InvalidValueError(f"sweep: {', '.join(clash)} is both set and varied; give it once")
        models: list[str | None] = [*self.hardware] or [None]
        fields = list(self.vary)
        names = list(self.params)
        return [
            Point(hardware=hardware, overrides=self.set | dict(zip(fields, changes, strict=True)),
                  params=dict(zip(names, values, strict=True)))
            for hardware in models
            for changes in itertools.product(*self.vary.values())
            for values in itertools.product(*self.params.values())
        ]  # fmt: skip

    def check(self) -> None:
        """The workload, preset and every parameter set are valid (before any worker starts)."""
        workload = get_workload(self.workload)
        for values in itertools.product(*self.params.values()):
            workload.params(self.preset, **dict(zip(self.params, values, strict=True)))


Progress = Callable[[int, int, RunReport], None]
"""Told ``(done, total, report)`` as each point finishes (in completion order)."""


def _point(sweep: Sweep, point: Point) -> RunReport | tuple[str, str]:
    """Run one point; a WiaError comes back as ``(code, message)`` (exceptions do not always cross processes)."""
    workload = get_workload(sweep.workload)
    try:
        params = workload.params(sweep.preset, **point.params)
        report = run_point(
            workload, params, hardware=point.hardware, set=point.overrides, numerics=sweep.numerics,
            profile=sweep.profile, warmup=sweep.warmup, host_threads=sweep.host_threads, graph=sweep.graph,
        )  # fmt: skip
    except WiaError as e:
        return e.code.name, f"{point.describe()}: {e.message}"
    return report.model_copy(update={"preset": sweep.preset})


def _result(outcome: RunReport | tuple[str, str]) -> RunReport:
    if isinstance(outcome, RunReport):
        return outcome
    code, message = outcome
    raise error_for(ErrorCode[code], message)


def _warm() -> None:
    """A worker's start: import the HAL, the simulator and the workloads once, not per point."""
    wia.set_backend("sim", hardware="wia-tiny")
    available_workloads()


def run_sweep(
    sweep: Sweep,
    *,
    executor: ExecutorName = "process",
    workers: int | None = None,
    ray_address: str | None = None,
    progress: Progress | None = None,
) -> list[RunReport]:
    """Every point of ``sweep``, in grid order. ``workers``: processes (default ``os.cpu_count()``; 1 runs the
    points here, in this process) or, with Ray, tasks in flight (default: all)."""
    if executor not in EXECUTORS:
        raise wia.InvalidValueError(f"sweep: no executor {executor!r}; the executors are {', '.join(EXECUTORS)}")
    if workers is not None and (isinstance(workers, bool) or workers < 1):
        raise wia.InvalidValueError(f"sweep: workers must be a positive number, got {workers!r}")
    sweep.check()
    points = sweep.points()
    outcomes = _run_ray(sweep, points, ray_address) if executor == "ray" else _run_local(sweep, points, workers)
    reports: list[RunReport | None] = [None] * len(points)
    for done, (index, outcome) in enumerate(outcomes, 1):
        report = reports[index] = _result(outcome)
        if progress is not None:
            progress(done, len(points), report)
    return [r for r in reports if r is not None]


def _run_local(sweep: Sweep, points: list[Point], workers: int | None) -> Iterator[tuple[int, Any]]:
    count = min(workers or os.cpu_count() or 1, len(points))
    if count <= 1:
        for index, point in enumerate(points):
            yield index, _point(sweep, point)
        return
    context = multiprocessing.get_context("spawn")  # fork would copy a parent's live backend and threads
    with ProcessPoolExecutor(max_workers=count, mp_context=context, initializer=_warm) as pool:
        pending: dict[Future[Any], int] = {pool.submit(_point, sweep, p): i for i, p in enumerate(points)}
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    yield pending.pop(future), future.result()
        finally:
            for future in pending:
                future.cancel()


RAY_MISSING = (
    "the ray executor needs Ray, which is not installed: pip install 'wia[ray]' (or run the sweep with "
    "--executor process)"
)


def _run_ray(sweep: Sweep, points: Sequence[Point], address: str | None) -> Iterator[tuple[int, Any]]:
    try:
        import ray
    except ImportError:
        raise wia.NotSupportedError(RAY_MISSING) from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    try:
        task = ray.remote(_point)
        shared = ray.put(sweep)
        pending = {task.remote(shared, point): i for i, point in enumerate(points)}
        while pending:
            finished, _ = ray.wait(list(pending), num_returns=1)
            for ref in finished:
                yield pending.pop(ref), ray.get(ref)
    finally:
        if started:
            ray.shutdown()


def parse_values(text: str) -> list[str]:
    """``"54,108,216"`` as its values (a list value in brackets, ``[4, 4]``, keeps its commas)."""
    values, depth, current = [], 0, ""
    for char in text:
        depth += (char == "[") - (char == "]")
        if char == "," and depth == 0:
            values.append(current.strip())
            current = ""
        else:
            current += char
    values.append(current.strip())
    if any(not v for v in values):
        raise wia.InvalidValueError(f"{text!r}: an empty value in the list (values are separated by ',')")
    return values


def parse_assignment(text: str, what: str) -> tuple[str, str]:
    """``FIELD=VALUE`` as its two sides (``what`` names the option in the message)."""
    name, sep, value = (part.strip() for part in text.partition("="))
    if not sep or not name or not value:
        raise wia.InvalidValueError(f"{what} {text!r}: expected NAME=VALUE (e.g. memory.bandwidth=2x)")
    return name, value


def by_name(assignments: Sequence[str], what: str) -> Mapping[str, str]:
    """``NAME=VALUE`` options as a mapping; a name given twice is an error."""
    found: dict[str, str] = {}
    for text in assignments:
        name, value = parse_assignment(text, what)
        if name in found:
            raise wia.InvalidValueError(f"{what} {name} is given twice ({found[name]!r} and {value!r})")
        found[name] = value
    return found
