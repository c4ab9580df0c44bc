"""Automatic profiling of an unmodified program: ``WIA_PROFILE=<prefix>`` (``docs/profiling.md``).

With ``WIA_PROFILE`` set when ``wia_hal`` is imported, every context the program makes (the Level-1 default one
included) is profiled from the moment it exists, where its device claims ``supports_profiling`` (elsewhere one
line on stderr says why nothing is profiled). When the context is destroyed, or at interpreter exit, its window
is ended, the JSON report is written to ``<prefix>.json`` and the Chrome trace to ``<prefix>.trace.json``, and
the summary is printed to stderr. A program that makes more than one profiled context gets ``.ctxN`` before the
suffix (``N`` the context's number, as its streams are named: ``stream 1 of context N``); files written under the
plain names before the second context appeared are renamed then.

Profiling never breaks the program: a failure here is reported on stderr, never raised. ``wia profile`` (in
process) and ``wia-sim profile`` (a subprocess) set the variable for a script.
"""

from __future__ import annotations

import atexit
import json
import os
import sys
from pathlib import Path

from rich.console import Console

from wia_hal.context import Context, context_created
from wia_hal.models import ProfilerConfig
from wia_hal.profiling.chrome import chrome_trace
from wia_hal.profiling.report import build_report
from wia_hal.profiling.session import Profiler, start, stop

ENVIRONMENT = "WIA_PROFILE"
"""The variable that turns automatic profiling on; its value is the output prefix."""


class AutoProfiler(Profiler):
    """A window ``WIA_PROFILE`` opened: ending it (the context destroyed, or the program exiting) writes its
    report and trace and prints its summary."""

    yields_to_program = True
    """The window gives way when the program opens its own on the context (``begin_profiling``)."""

    files: tuple[Path, Path] | None = None
    """Where the report and the trace were written, once they were."""

    def end(self) -> None:
        if self.active:
            try:
                super().end()
            except Exception as e:
                _warn(f"ending the window of {self.context!r} failed: {type(e).__name__}: {e}")
        _write(self)


_prefix: str | None = None
_profilers: list[AutoProfiler] = []
_exit_registered = False


def _warn(message: str) -> None:
    print(f"wia profile: {message}", file=sys.stderr, flush=True)


def paths(prefix: str, number: int | None = None) -> tuple[Path, Path]:
    """The report's and the trace's paths for ``prefix`` (``number``: the context, when there are several)."""
    stem = prefix if number is None else f"{prefix}.ctx{number}"
    return Path(f"{stem}.json"), Path(f"{stem}.trace.json")


def _console() -> Console:
    return Console(stderr=True, width=None if sys.stderr.isatty() else 120, highlight=False)


def _write(profiler: AutoProfiler) -> None:
    """Write the window's report and trace (once) and print its summary; failures go to stderr."""
    if profiler.files is not None or _prefix is None or profiler.destroyed:
        return
    try:
        number = profiler.context.id if len(_profilers) > 1 else None
        report_path, trace_path = paths(_prefix, number)
        profiler.files = (report_path, trace_path)
        report = build_report(profiler)
        report_path.parent.mkdir(parents=True, exist_ok=True)
        report_path.write_text(report.model_dump_json(indent=2))
        trace_path.write_text(json.dumps(chrome_trace(profiler), separators=(",", ":")))
        _console().print(report)
        _warn(f"{profiler.context!r}: report {report_path}, trace {trace_path} (open it in ui.perfetto.dev)")
    except Exception as e:
        _warn(f"could not write the profile of {profiler.context!r}: {type(e).__name__}: {e}")


def _renumber() -> None:
    """A second context appeared: what was written under the plain names moves to ``.ctxN``."""
    assert _prefix is not None
    for profiler in _profilers:
        if profiler.files is None or profiler.files != paths(_prefix):
            continue
        moved = paths(_prefix, profiler.context.id)
        try:
            for old, new in zip(profiler.files, moved, strict=True):
                old.replace(new)
        except OSError as e:
            _warn(f"could not rename {profiler.files[0]} to {moved[0]}: {e}")
            continue
        profiler.files = moved
        _warn(f"a second context was made: the profile of {profiler.context!r} moved to {moved[0]}, {moved[1]}")


def _on_context(ctx: Context) -> None:
    """The hook :func:`wia_hal.context._open` calls: open a window on every new context."""
    try:
        if _prefix is None or ctx.profiler is not None:
            return
        device = ctx.device
        if not device.capabilities.supports_profiling:
            _warn(
                f"nothing is profiled on {ctx!r}: {device.info.name} on the {ctx.runtime.backend.name!r} backend "
                "does not support profiling (supports_profiling is False)"
            )
            return
        backend = ctx.runtime.backend
        profiler = AutoProfiler(
            ctx, ctx.profiler_config or ProfilerConfig(), backend, start_ms=backend.clock_ms(ctx.device.index)
        )
        start(profiler)
        _profilers.append(profiler)
        if len(_profilers) == 2:
            _renumber()
    except Exception as e:
        _warn(f"could not profile {ctx!r}: {type(e).__name__}: {e}")


def finish() -> None:
    """End every window still open and write what was not written (run at interpreter exit; ``wia profile``
    calls it when the script returns)."""
    for profiler in _profilers:
        if profiler.active:
            try:
                stop(profiler)
            except Exception as e:
                _warn(f"ending the window of {profiler.context!r} failed: {type(e).__name__}: {e}")
    for profiler in _profilers:
        _write(profiler)


def written() -> list[tuple[Path, Path]]:
    """The report and trace of each window written so far."""
    return [p.files for p in _profilers if p.files is not None]


def install(prefix: str) -> None:
    """Profile every context made from now on, writing under ``prefix`` (what ``WIA_PROFILE`` does)."""
    global _prefix, _exit_registered
    _prefix = prefix
    if _on_context not in context_created:
        context_created.append(_on_context)
    if not _exit_registered:
        atexit.register(finish)
        _exit_registered = True


def install_from_environment() -> None:
    """:func:`install` with ``$WIA_PROFILE`` when it is set (and not empty)."""
    prefix = os.environ.get(ENVIRONMENT, "")
    if prefix:
        install(prefix)


install_from_environment()
