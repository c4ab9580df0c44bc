"""ResNet-50 inference (He et al. 2016, "Deep Residual Learning for Image Recognition", table 1): a forward pass.

The 50-layer network is a 7x7/2 convolution and a 3x3/2 max pool, four stages of bottleneck blocks ([3, 4, 6, 3]
blocks of widths 64, 128, 256, 512, expanded 4x; the first block of each stage projects its shortcut with a 1x1
convolution), a global average pool and a 1000-way fully connected layer; batch normalization after every
convolution (section 3.4), in inference form. ``stride_on`` picks where a stage downsamples: the first 1x1
convolution (``v1``, the paper's Caffe model) or the 3x3 one (``v1.5``, torchvision's and MLPerf's). Only inference
is modeled (no backward pass or optimizer step). ``devices`` > 1 is data parallelism: each device runs
``batch / devices`` images with its own copy of the weights (inference needs no communication).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field, model_validator

import wia_hal as wia
from wia_whatif.workload import Counts, Workload, WorkloadParams
from wia_whatif.workloads.weights import Arena, Values, computes_numbers, normal

_ITEMSIZE = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2}
STAGES = ((1, 3), (2, 4), (4, 6), (8, 3))
"""He et al. 2016 table 1, 50-layer column: (bottleneck width in units of ``width``, blocks) of conv2_x .. conv5_x
(widths 64, 128, 256, 512 at the paper's ``width`` of 64)."""
EXPANSION = 4


class ResNetParams(WorkloadParams):
    """One forward pass over ``batch`` images of ``image`` x ``image`` pixels (3 channels)."""

    batch: int = Field(1, ge=1)
    image: int = Field(224, ge=32, description="input height and width")
    classes: int = Field(1000, ge=1)
    width: int = Field(64, ge=1, description="the stem's channels and conv2_x's bottleneck width (64 in the paper)")
    stride_on: Literal["v1", "v1.5"] = "v1.5"

    @model_validator(mode="after")
    def _fits(self) -> ResNetParams:
        if self.batch % self.devices:
            raise ValueError(f"batch {self.batch} does not split over {self.devices} devices (data parallel)")
        if self.dtype not in _ITEMSIZE:
            raise ValueError(f"dtype {self.dtype!r} is not one of {', '.join(_ITEMSIZE)}")
        return self


@dataclass(frozen=True)
class Conv:
    """One convolution (followed by batch norm) at the spatial size it reads."""

    name: str
    cin: int
    cout: int
    kernel: int
    stride: int
    size: int  # input height = width

    @property
    def pad(self) -> int:
        return self.kernel // 2

    @property
    def out(self) -> int:
        return (self.size + 2 * self.pad - self.kernel) // self.stride + 1

    @property
    def weights(self) -> int:
        return self.cout * self.cin * self.kernel * self.kernel

    def macs(self, batch: int) -> int:
        return batch * self.out * self.out * self.weights


@dataclass(frozen=True)
class Block:
    """A bottleneck block: its three convolutions and, for a stage's first, the projection shortcut."""

    convs: tuple[Conv, Conv, Conv]
    projection: Conv | None


def stem(p: ResNetParams) -> Conv:
    return Conv("conv1", 3, p.width, 7, 2, p.image)


def _pooled(size: int) -> int:
    """The 3x3/2 max pool (padding 1) after the stem."""
    return (size + 2 - 3) // 2 + 1


def blocks(p: ResNetParams) -> Iterator[Block]:
    """The bottleneck blocks in order, with the sizes they see."""
    size, cin = _pooled(stem(p).out), p.width
    for s, (scale, count) in enumerate(STAGES):
        width = scale * p.width
        for b in range(count):
            stride = 2 if b == 0 and s > 0 else 1
            first = stride if p.stride_on == "v1" else 1
            name = f"conv{s + 2}_{b + 1}"
            a = Conv(f"{name}a", cin, width, 1, first, size)
            mid = Conv(f"{name}b", width, width, 3, stride // first, a.out)
            c = Conv(f"{name}c", width, width * EXPANSION, 1, 1, mid.out)
            proj = Conv(f"{name}s", cin, width * EXPANSION, 1, stride, size) if b == 0 else None
            yield Block((a, mid, c), proj)
            size, cin = c.out, width * EXPANSION


def features(p: ResNetParams) -> int:
    """Channels into the classifier (2048 in the paper)."""
    return STAGES[-1][0] * p.width * EXPANSION


def convolutions(p: ResNetParams) -> list[Conv]:
    found = [stem(p)]
    for block in blocks(p):
        found += [*block.convs, *([block.projection] if block.projection else [])]
    return found


def resnet_counts(p: ResNetParams) -> Counts:
    """Parameters: convolution weights (no biases: batch norm follows), batch norm's scale and shift (its running
    mean and variance are buffers, not parameters, as in torchvision), the classifier's weights and bias.
    FLOPs: 2 per multiply-add of the convolutions and the classifier; batch norm, ReLU, the residual adds and the
    pools (under 1%) are not counted. He et al.'s "3.8 x 10^9 FLOPs" counts multiply-adds of the v1 network: half
    of ``flops`` here. Bytes: the weights once, each convolution's input read and output written, the classifier's
    input and output."""
    convs, size, b = convolutions(p), _ITEMSIZE[p.dtype], p.batch
    fc = features(p) * p.classes
    params = sum(c.weights + 2 * c.cout for c in convs) + fc + p.classes
    macs = sum(c.macs(b) for c in convs) + b * fc
    io = sum(b * (c.cin * c.size**2 + c.cout * c.out**2) for c in convs) + b * (features(p) + p.classes)
    return Counts(
        parameters=params,
        flops=2.0 * macs,
        bytes=float((params + io) * size),
        weight_bytes=params * size * p.devices,
        items=float(b),
    )


NORM = ("scale", "shift", "mean", "var")
"""Batch norm's tensors after each convolution, in ``wia.batch_norm``'s order."""


@dataclass
class Replica:
    """One device's weights and images (by name: ``conv2_1a``, ``conv2_1a.scale``, ..., ``fc``, ``images``)."""

    ctx: wia.Context
    t: dict[str, wia.Tensor]
    arenas: list[wia.Tensor]


@dataclass
class State:
    replicas: list[Replica]
    weights: dict[str, np.ndarray] | None
    output: list[wia.Tensor] | None = None


def full_weights(p: ResNetParams, seed: int = 0) -> dict[str, np.ndarray]:
    """The network's values in float64 (He-initialized convolutions; batch norm statistics near identity so
    activations stay of unit size through 50 layers) and the images of every device, ``images`` (batch, 3, H, W)."""
    rng = np.random.default_rng(seed)
    w: dict[str, np.ndarray] = {}
    for c in convolutions(p):
        w[c.name] = normal(rng, (c.cout, c.cin, c.kernel, c.kernel), (2.0 / (c.cin * c.kernel**2)) ** 0.5)
        w[f"{c.name}.scale"] = 1.0 + normal(rng, (c.cout,), 0.1)
        w[f"{c.name}.shift"] = normal(rng, (c.cout,), 0.1)
        w[f"{c.name}.mean"] = normal(rng, (c.cout,), 0.1)
        w[f"{c.name}.var"] = 1.0 + rng.random(c.cout)
    w["fc"] = normal(rng, (features(p), p.classes), features(p) ** -0.5)
    w["fc.bias"] = normal(rng, (p.classes,), 0.1)
    w["images"] = normal(rng, (p.batch, 3, p.image, p.image), 1.0)
    return w


def _add_conv(arena: Arena, c: Conv, w: dict[str, np.ndarray]) -> None:
    arena.add(c.name, (c.cout, c.cin, c.kernel, c.kernel), lambda: w[c.name])
    for s in NORM:
        key = f"{c.name}.{s}"
        arena.add(key, (c.cout,), lambda key=key: w[key])  # type: ignore[misc]


def _images(w: dict[str, np.ndarray], d: int, share: int) -> Values:
    return lambda: w["images"][d * share : (d + 1) * share]


class ResNet50(Workload):
    name = "resnet50"
    description = "ResNet-50 inference forward pass (He et al. 2016), data parallel over devices"
    params_model = ResNetParams
    unit = "samples"
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {"resnet50": {}, "resnet50-v1": {"stride_on": "v1"}}

    def counts(self, p: WorkloadParams) -> Counts:
        assert isinstance(p, ResNetParams)
        return resnet_counts(p)

    def setup(self, p: WorkloadParams, contexts: Sequence[wia.Context]) -> State:
        assert isinstance(p, ResNetParams)
        if len(contexts) != p.devices:
            raise wia.InvalidValueError(f"resnet50: {p.devices} devices in the params, {len(contexts)} contexts")
        numbers = computes_numbers()
        w = full_weights(p) if numbers else {}
        share = p.batch // p.devices
        replicas = []
        for d, ctx in enumerate(contexts):
            arena = Arena(ctx, p.dtype, numbers)
            for c in convolutions(p):
                _add_conv(arena, c, w)
            arena.add("images", (share, 3, p.image, p.image), _images(w, d, share))
            arena.add("fc", (features(p), p.classes), lambda: w["fc"])
            arena.add("fc.bias", (p.classes,), lambda: w["fc.bias"])
            t = arena.build()
            replicas.append(Replica(ctx, t, arena.buffers))
        return State(replicas, w or None)

    def step(self, p: WorkloadParams, state: object) -> None:
        assert isinstance(p, ResNetParams) and isinstance(state, State)
        state.output = [self._forward(p, r) for r in state.replicas]

    @staticmethod
    def _forward(p: ResNetParams, r: Replica) -> wia.Tensor:
        def conv_bn(x: wia.Tensor, c: Conv, relu: bool) -> wia.Tensor:
            config = wia.ConvConfig(padding=c.pad, stride=c.stride)
            scale, shift, mean, var = (r.t[f"{c.name}.{s}"] for s in NORM)
            y = wia.batch_norm(wia.conv2d(x, r.t[c.name], config), scale, shift, mean, var)
            return wia.relu(y) if relu else y

        x = conv_bn(r.t["images"], stem(p), relu=True)
        x = wia.pool2d(x, wia.PoolConfig(type=wia.PoolType.MAX, kernel_size=3, stride=2, padding=1))
        for block in blocks(p):
            a, b, c = block.convs
            y = conv_bn(conv_bn(conv_bn(x, a, True), b, True), c, False)
            shortcut = x if block.projection is None else conv_bn(x, block.projection, False)
            x = wia.relu(wia.add(y, shortcut))
        side = x.shape[2]
        x = wia.pool2d(x, wia.PoolConfig(type=wia.PoolType.AVG, kernel_size=side, stride=side))
        x = wia.reshape(x, (x.shape[0], features(p)))
        return wia.add(wia.matmul(x, r.t["fc"]), r.t["fc.bias"])


RESNET50 = ResNet50()
