"""How a workload gets its tensors: random values where the backend computes, bare allocations where it does not.

A timing-only run (``set_backend("sim", numerics=False)``) of a 70B model must not build 140 GB of host arrays, so
every weight, cache and input goes through :class:`Initializer`, which uploads values only when the backend computes
them (a backend without a ``numerics`` switch always does).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

import wia_hal as wia

Values = Callable[[], np.ndarray]
"""Builds a tensor's values on demand (never called in timing-only mode)."""


def computes_numbers() -> bool:
    """Whether the active backend computes values (the simulator's ``numerics`` option; True elsewhere)."""
    return bool(getattr(wia.get_backend(), "numerics", True))


class Initializer:
    """Makes a workload's tensors on one context: ``values`` uploaded when the backend computes, else ``empty``."""

    def __init__(self, ctx: wia.Context, dtype: str, numbers: bool) -> None:
        self.ctx = ctx
        self.dtype = dtype
        self.numbers = numbers

    def tensor(self, shape: Sequence[int], values: Values, dtype: str | None = None) -> wia.Tensor:
        kind = self.dtype if dtype is None else dtype
        if not self.numbers:
            return wia.empty(tuple(shape), kind, ctx=self.ctx)
        array = values()
        if array.shape != tuple(shape):
            raise wia.InternalError(f"initializer: values of shape {array.shape}, the tensor is {tuple(shape)}")
        return wia.tensor(array.astype(np.float64) if array.dtype.kind == "f" else array, ctx=self.ctx, dtype=kind)


def normal(rng: np.random.Generator, shape: Sequence[int], scale: float) -> np.ndarray:
    """Gaussian values of standard deviation ``scale`` (``1/sqrt(fan_in)`` keeps a layer's output near unit size)."""
    return rng.standard_normal(tuple(shape)) * scale
