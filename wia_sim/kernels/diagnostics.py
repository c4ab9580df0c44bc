"""The build log's entries: one diagnostic per problem, written as compilers write them
(``kernel.cl:LINE:COL: error: message``), so that tools that read GCC/Clang logs read the simulator's."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["COMMAND_LINE", "Diagnostic", "Severity", "format_log", "origin"]

COMMAND_LINE = "<command line>"
"""The file name diagnostics about build options carry (gcc's spelling)."""


def origin(origins: Sequence[tuple[str, int]] | None, filename: str, line: int) -> tuple[str, int]:
    """The file and line of the user's source that line ``line`` of the preprocessed text came from: by
    ``origins`` (``PreprocessResult.origins``, when the source included files or ran a ``#line``), else
    ``filename``'s own."""
    if origins is None or not 1 <= line <= len(origins):
        return filename, line
    return origins[line - 1]


Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Diagnostic:
    """One build-log entry; ``str()`` is the compiler-style line ``file:line:col: error: message``."""

    filename: str
    line: int | None
    column: int | None
    message: str
    severity: Severity = "error"
    included_from: tuple[tuple[str, int], ...] = ()
    """The ``#include`` directives (file, line) through which ``filename`` was reached, outermost first: the build
    log's "In file included from" notes, as Clang writes them."""
    after: tuple[int, int] | None = None
    """Where the log places it, if not at its own line and column: past the last of its function's tokens, for a
    warning Clang gives once the function is checked (``Checker.runtime_warning``)."""
    analysis: bool = False
    """A warning of Clang's analysis of a function's control flow (a path that runs off its end), which Clang
    skips once any error has been reported (``Sema::hasUncompilableErrorOccurred``): dropped after one."""

    def __str__(self) -> str:
        where = self.filename
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.severity}: {self.message}"

    @property
    def sort_key(self) -> tuple[int, int, int]:
        # command-line problems first, then by position
        if self.after is not None:
            return (1, *self.after)
        return (0 if self.line is None else 1, self.line or 0, self.column or 0)


def format_log(diagnostics: Iterable[Diagnostic]) -> str:
    """The build log: one line per diagnostic, in source order, duplicates dropped. A diagnostic in an included
    file is preceded by the chain of ``#include`` lines that reached it, as Clang does, unless the diagnostic
    before it was reached the same way."""
    seen: set[Diagnostic] = set()
    unique = []
    for d in diagnostics:
        if d not in seen:
            seen.add(d)
            unique.append(d)
    lines: list[str] = []
    shown: tuple[str, tuple[tuple[str, int], ...]] | None = None  # the last diagnostic's file and include chain
    for d in sorted(unique, key=lambda d: d.sort_key):
        if d.included_from and (d.filename, d.included_from) != shown:
            lines += [f"In file included from {file}:{line}:" for file, line in d.included_from]
        shown = (d.filename, d.included_from)
        lines.append(str(d))
    return "\n".join(lines)
