"""Room for deeply nested kernels: the parser, the checker and the executor walk an expression recursively, a few
Python frames per level, and Python's default limit (1000 frames) stops at about 90 nested parentheses, where
Clang takes 256 (its ``-fbracket-depth``): CLSmith's generated kernels nest that deep."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["deep_recursion"]

FRAMES = 20_000
"""Python frames allowed while a kernel is compiled or run: 256 levels at up to ~60 frames each, with room to
spare (Python 3.11 keeps pure-Python calls off the C stack, so this does not risk the process's own stack)."""


@contextmanager
def deep_recursion() -> Iterator[None]:
    """Python's recursion limit raised to ``FRAMES`` inside, restored after (never lowered)."""
    saved = sys.getrecursionlimit()
    sys.setrecursionlimit(max(saved, FRAMES))
    try:
        yield
    finally:
        sys.setrecursionlimit(saved)
