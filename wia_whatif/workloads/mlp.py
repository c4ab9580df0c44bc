"""A multi-layer perceptron: ``layers`` times ``x = gelu(x @ W + b)`` at ``width``, data parallel over ``devices``.

The smallest workload with a closed form for everything (parameters, FLOPs, bytes), so the runner, sweeps and the
CLI are checked against arithmetic rather than against themselves. It uses only the ops every backend has had from
the start (matmul, add with a broadcast bias, gelu).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from pydantic import Field, model_validator

import wia_hal as wia
from wia_hal.dtypes import as_dtype
from wia_whatif.workload import Counts, Workload, WorkloadParams, register


class MlpParams(WorkloadParams):
    """``batch`` samples split evenly over ``devices`` (each holds all the weights); ``seed``: upload random
    weights and inputs from it (a numeric run), or None: leave them uninitialized (timing only, nothing uploaded
    but what the step needs)."""

    layers: int = Field(4, ge=1)
    width: int = Field(1024, ge=1)
    batch: int = Field(32, ge=1)
    seed: int | None = None

    @model_validator(mode="after")
    def _split(self) -> MlpParams:
        if self.batch % self.devices:
            raise ValueError(f"batch {self.batch} does not split evenly over {self.devices} devices")
        return self


@dataclass
class _Replica:
    """One device's copy of the weights and its share of the batch."""

    weights: list[wia.Tensor]
    biases: list[wia.Tensor]
    x: wia.Tensor
    output: wia.Tensor | None = None


class Mlp(Workload):
    name = "mlp"
    description = "layers × gelu(x @ W + b) at one width; data parallel over devices"
    params_model = MlpParams
    unit = "samples"
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        "tiny": {"layers": 2, "width": 64, "batch": 8, "dtype": "float32"},
        "small": {"layers": 4, "width": 1024, "batch": 32},
        "large": {"layers": 8, "width": 8192, "batch": 512},
    }

    def counts(self, p: WorkloadParams) -> Counts:
        assert isinstance(p, MlpParams)
        item = as_dtype(p.dtype).itemsize
        w, b, n = p.width, p.batch, p.layers
        weight_bytes = n * (w * w + w) * item
        # per layer: matmul reads x and W and writes y; the bias add reads y and b and writes y; gelu reads and
        # writes y. Every device reads its own copy of the weights.
        activations = n * b * w * item * (2 + 3 + 2)
        return Counts(
            parameters=n * (w * w + w),
            flops=2.0 * b * n * w * w,
            bytes=float(p.devices * weight_bytes + activations),
            weight_bytes=weight_bytes,
            items=float(b),
        )

    def setup(self, p: WorkloadParams, contexts: Sequence[wia.Context]) -> list[_Replica]:
        assert isinstance(p, MlpParams)
        dtype = as_dtype(p.dtype)
        rows = p.batch // p.devices
        rng = np.random.default_rng(p.seed)

        def make(shape: tuple[int, ...], scale: float, ctx: wia.Context) -> wia.Tensor:
            if p.seed is None:
                return wia.empty(shape, dtype, ctx=ctx)
            return wia.tensor(rng.standard_normal(shape) * scale, dtype=dtype, ctx=ctx)

        replicas = []
        for ctx in contexts:
            weights = [make((p.width, p.width), p.width**-0.5, ctx) for _ in range(p.layers)]
            biases = [make((p.width,), 0.1, ctx) for _ in range(p.layers)]
            replicas.append(_Replica(weights, biases, make((rows, p.width), 1.0, ctx)))
        return replicas

    def step(self, p: WorkloadParams, state: object) -> None:
        assert isinstance(state, list)
        for replica in state:
            assert isinstance(replica, _Replica)
            x = replica.x
            for weight, bias in zip(replica.weights, replica.biases, strict=True):
                x = wia.gelu(wia.add(wia.matmul(x, weight), bias))
            replica.output = x


MLP = register(Mlp())
