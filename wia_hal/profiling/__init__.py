"""SPEC 3.10: profiling a context's work (R-3.10-01..04); ``docs/profiling.md`` is the user's guide.

``enable_profiling(ctx, ProfilerConfig(...))`` (or ``ContextConfig(enable_profiling=True)``) lets the context be
profiled; ``begin_profiling(ctx)`` opens a window and returns its :class:`Profiler`; ``end_profiling`` waits for
the work submitted in the window and closes it; ``get_profile_report`` gives a :class:`ProfileReport` (of what
has completed so far, while the window is open); ``save_profile`` writes the report as JSON or the window as a
Chrome trace; ``destroy_profiler`` drops what it kept.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import wia_hal.profiling.auto  # noqa: F401  (WIA_PROFILE=<prefix>: every context profiled; docs/profiling.md)
from wia_hal.context import Context, current_context
from wia_hal.enums import ProfileFormat
from wia_hal.errors import InvalidValueError, NotSupportedError, api
from wia_hal.models import ProfilerConfig, ProfileReport
from wia_hal.profiling.chrome import chrome_trace
from wia_hal.profiling.report import build_report
from wia_hal.profiling.session import Profiler, active_profilers, collect, start, stop


def _require_profiling(ctx: Context, function: str) -> None:
    if not ctx.device.capabilities.supports_profiling:
        raise NotSupportedError(
            f"{function}: {ctx.device.info.name} on the {ctx.runtime.backend.name!r} backend does not support "
            "profiling (supports_profiling is False)"
        )


def _not_capturing(ctx: Context, function: str) -> None:
    """A window opens and closes by swapping the context's backend, which a graph capture has swapped too."""
    if ctx.capture is not None:
        raise InvalidValueError(
            f"{function}: {ctx!r} is being captured into a graph; open or close the profiling window before "
            "begin_capture or after end_capture (the window then sees the graph's launches)"
        )


@api
def enable_profiling(ctx: Context | None = None, config: ProfilerConfig | None = None) -> None:
    """R-3.10-01: let ``ctx`` be profiled, with ``config`` (what to keep, and the format ``save_profile`` writes)
    for the windows opened from now on."""
    context = current_context(ctx)
    if config is None:
        config = ProfilerConfig()
    if not isinstance(config, ProfilerConfig):
        raise InvalidValueError(f"enable_profiling: expected a ProfilerConfig, got {type(config).__name__}")
    _require_profiling(context, "enable_profiling")
    context.profiler_config = config


def _check(profiler: object, function: str) -> Profiler:
    if not isinstance(profiler, Profiler):
        raise InvalidValueError(
            f"{function}: expected a wia Profiler (from begin_profiling), got {type(profiler).__name__}"
        )
    if profiler.destroyed:
        raise InvalidValueError(f"{function}: {profiler!r} was destroyed (destroy_profiler)")
    return profiler


@api
def begin_profiling(ctx: Context | None = None) -> Profiler:
    """R-3.10-02: open a profiling window on ``ctx``: its API calls, device work and memory from now on."""
    context = current_context(ctx)
    _require_profiling(context, "begin_profiling")
    _not_capturing(context, "begin_profiling")
    config = context.profiler_config
    if config is None:
        raise InvalidValueError(
            f"begin_profiling: profiling is not enabled on {context!r}; call enable_profiling(ctx) first or create "
            "the context with ContextConfig(enable_profiling=True)"
        )
    if context.profiler is not None and getattr(context.profiler, "yields_to_program", False):
        context.profiler.end()  # WIA_PROFILE's window gives way to the program's own (its files are written now)
    if context.profiler is not None:
        raise InvalidValueError(
            f"begin_profiling: {context!r} already has an open window ({context.profiler!r}); end_profiling it first"
        )
    backend = context.runtime.backend
    profiler = Profiler(context, config, backend, start_ms=backend.clock_ms(context.device.index))
    start(profiler)
    return profiler


@api
def end_profiling(profiler: Profiler) -> None:
    """R-3.10-02: wait for the work submitted in the window, collect it, and close the window."""
    profiler = _check(profiler, "end_profiling")
    if profiler.end_ms is not None:
        raise InvalidValueError(f"end_profiling: {profiler!r} was already ended")
    _not_capturing(profiler.context, "end_profiling")
    stop(profiler)


@api
def get_profile_report(profiler: Profiler) -> ProfileReport:
    """R-3.10-03: the window's report (while it is open: of the work completed so far)."""
    profiler = _check(profiler, "get_profile_report")
    if profiler.active:
        collect(profiler.backend, profiler.device)
    return build_report(profiler)


@api
def save_profile(profiler: Profiler, path: str | os.PathLike[str], format: ProfileFormat | None = None) -> None:
    """R-3.10-04: write the report as JSON (``ProfileFormat.JSON``, the :class:`ProfileReport` schema) or the window
    as a Chrome trace (``ProfileFormat.CHROME_TRACE``); ``format`` defaults to the config's ``output_format``."""
    profiler = _check(profiler, "save_profile")
    if format is None:
        format = profiler.config.output_format
    if isinstance(format, bool) or not isinstance(format, int) or format not in ProfileFormat.__members__.values():
        raise InvalidValueError(f"save_profile: format must be a ProfileFormat, got {format!r}")
    if not isinstance(path, (str, os.PathLike)):
        raise InvalidValueError(f"save_profile: path must be a str or os.PathLike, got {type(path).__name__}")
    if profiler.active:
        collect(profiler.backend, profiler.device)
    if ProfileFormat(format) is ProfileFormat.JSON:
        text = build_report(profiler).model_dump_json(indent=2)
    else:
        text = json.dumps(chrome_trace(profiler), separators=(",", ":"))
    try:
        Path(path).write_text(text)
    except OSError as e:
        raise InvalidValueError(f"save_profile: cannot write {os.fspath(path)!r}: {e.strerror or e}") from None


@api
def destroy_profiler(profiler: Profiler) -> None:
    """R-3.10-02: drop the profiler and what it kept (an open window is ended first, as by ``end_profiling``)."""
    profiler = _check(profiler, "destroy_profiler")
    if profiler in active_profilers():
        stop(profiler)
    profiler.destroyed = True
    profiler.forget()


__all__ = [
    "Profiler",
    "begin_profiling",
    "destroy_profiler",
    "enable_profiling",
    "end_profiling",
    "get_profile_report",
    "save_profile",
]
