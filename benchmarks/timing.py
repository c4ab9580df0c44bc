"""What the benchmark scripts share: timing a call."""

from __future__ import annotations

import time
from collections.abc import Callable


def best(repeats: int, fn: Callable[[], object]) -> float:
    """The fastest of ``repeats`` wall-clock runs of ``fn``, in seconds."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)
