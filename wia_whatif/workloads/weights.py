"""How a workload gets its tensors: random values where the backend computes, bare allocations where it does not,
and one allocation per device and dtype for all of them.

A timing-only run (``set_backend("sim", numerics=False)``) of a 70B model must not build 140 GB of host arrays, so
values are built only when the backend computes them (a backend without a ``numerics`` switch always does). The
weights and caches live in one buffer (an arena) per dtype, each tensor a view of it, as inference engines load
them: a device's memory then holds a few large blocks beside the step's activations, whatever the layer count.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

import wia_hal as wia

Values = Callable[[], np.ndarray]
"""Builds a tensor's values on demand (never called in timing-only mode)."""


def computes_numbers() -> bool:
    """Whether the active backend computes values (``Backend.numerics``: the simulator's option; True elsewhere)."""
    return wia.get_backend().numerics


class Arena:
    """Collects a device's tensors (:meth:`add`), then allocates one buffer per dtype and hands out views of it
    (:meth:`build`), uploading the values in one transfer when the backend computes."""

    def __init__(self, ctx: wia.Context, dtype: str, numbers: bool) -> None:
        self.ctx = ctx
        self.dtype = dtype
        self.numbers = numbers
        self._wanted: dict[str, tuple[tuple[int, ...], Values, str]] = {}
        self.buffers: list[wia.Tensor] = []
        """The arenas themselves (the views keep them alive too)."""

    def add(self, name: str, shape: Sequence[int], values: Values, dtype: str | None = None) -> None:
        self._wanted[name] = (tuple(shape), values, self.dtype if dtype is None else dtype)

    def build(self) -> dict[str, wia.Tensor]:
        found: dict[str, wia.Tensor] = {}
        for kind in dict.fromkeys(d for _, _, d in self._wanted.values()):
            names = [n for n, (_, _, d) in self._wanted.items() if d == kind]
            sizes = [math.prod(self._wanted[n][0]) for n in names]
            total = sum(sizes)
            if self.numbers:
                flat = np.concatenate([self._values(n).reshape(-1) for n in names]) if names else np.zeros(0)
                buffer = wia.tensor(flat, ctx=self.ctx, dtype=kind)
            else:
                buffer = wia.empty((total,), kind, ctx=self.ctx)
            self.buffers.append(buffer)
            offset = 0
            for name, size in zip(names, sizes, strict=True):
                part = wia.slice(buffer, (offset,), (offset + size,))
                found[name] = wia.reshape(part, self._wanted[name][0])
                offset += size
        return found

    def _values(self, name: str) -> np.ndarray:
        shape, values, _ = self._wanted[name]
        array = np.asarray(values())
        if array.shape != shape:
            raise wia.InternalError(f"arena: values of {name} have shape {array.shape}, the tensor {shape}")
        return array.astype(np.float64) if array.dtype.kind == "f" else array


def normal(rng: np.random.Generator, shape: Sequence[int], scale: float) -> np.ndarray:
    """Gaussian values of standard deviation ``scale`` (``1/sqrt(fan_in)`` keeps a layer's output near unit size)."""
    return rng.standard_normal(tuple(shape)) * scale
