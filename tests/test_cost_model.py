"""The cost model's formulas, checked on their own (the fidelity benchmark checks them against measurements)."""

from __future__ import annotations

import math

import pytest

from wia_sim.costmodel import (
    K_PIPELINE_OVERHEAD,
    TILINGS,
    ConvShape,
    Gemm,
    conv_cost,
    elementwise_cost,
    gemm_cost,
)
from wia_sim.hwmodel import load_model

A100 = load_model("nvidia-a100-sxm4-80gb")
H100 = load_model("nvidia-h100-sxm5-80gb")


def test_elementwise_float64_runs_on_the_vector_units() -> None:
    n = 1 << 30
    cost = elementwise_cost(A100, "fma", n, 64, 1.0, "float64")  # compute-bound: 64 FLOPs per element, ~no bytes
    assert cost.compute_s == pytest.approx(64 * n / A100.vector_peak("float64"))
    assert A100.vector_peak("float64") == pytest.approx(9.7e12)
    assert A100.vector_peak("float64") < A100.compute.peak_flops["float64"]


def test_a_large_tiled_matmul_is_waves_of_tiles_at_the_fitted_efficiency() -> None:
    m, n, k = 4096, 4096, 4096
    g = Gemm(m, n, k, 1, (m * k + k * n + m * n) * 2)
    cost = gemm_cost(H100, "matmul", g, "bfloat16", "TILED_256")
    tm, tn, rate = TILINGS["TILED_256"]
    tiles = math.ceil(m / tm) * math.ceil(n / tn)
    waves = math.ceil(tiles / H100.compute.compute_units)
    per_unit = H100.compute.peak_flops["bfloat16"] / H100.compute.compute_units
    efficiency = H100.efficiency.matmul * rate * k / (k + K_PIPELINE_OVERHEAD)
    assert cost.waves == waves
    assert cost.compute_s == pytest.approx(waves * 2 * tm * tn * k / (per_unit * efficiency))
    assert cost.bound == "compute"


def test_auto_picks_the_cheapest_and_keeps_the_alternatives() -> None:
    g = Gemm(1280, 4096, 12032, 1, 1e8)
    auto = gemm_cost(H100, "matmul", g, "bfloat16")
    assert auto.duration_s == min(d for _, d in auto.alternatives)
    assert {a for a, _ in auto.alternatives} >= {"TILED_256", "TILED_128", "TILED_64", "STREAM_K"}


def test_split_k_wins_when_few_tiles_meet_a_long_k() -> None:
    g = Gemm(128, 128, 1 << 16, 1, (128 * 2 * (1 << 16) + 128 * 128) * 4)
    assert gemm_cost(A100, "matmul", g, "float32").algorithm.startswith("SPLIT_K×")


def test_a_skinny_matmul_is_memory_bound() -> None:
    g = Gemm(1, 8192, 8192, 1, (8192 + 8192 * 8192 + 8192) * 2)  # a matrix-vector product
    assert gemm_cost(A100, "matmul", g, "bfloat16").bound == "memory"


def _conv(kh: int, stride: int) -> ConvShape:
    oh = (56 + 2 - kh) // stride + 1
    return ConvShape(32, 64, 56, 56, 64, kh, kh, oh, oh, 1, (stride, stride), (1, 1), 2, 2)


def test_winograd_is_offered_only_for_3x3_stride_1() -> None:
    names = {a for a, _ in conv_cost(A100, "conv2d", _conv(3, 1), "bfloat16", "bfloat16").alternatives}
    assert "WINOGRAD" in names
    names = {a for a, _ in conv_cost(A100, "conv2d", _conv(3, 2), "bfloat16", "bfloat16").alternatives}
    assert "WINOGRAD" not in names
    names = {a for a, _ in conv_cost(A100, "conv2d", _conv(5, 1), "bfloat16", "bfloat16").alternatives}
    assert "WINOGRAD" not in names


def test_winograd_does_fewer_multiplies_than_implicit_gemm() -> None:
    shape = _conv(3, 1)
    winograd = conv_cost(A100, "conv2d", shape, "bfloat16", "bfloat16", "WINOGRAD")
    gemm = conv_cost(A100, "conv2d", shape, "bfloat16", "bfloat16", "IMPLICIT_GEMM")
    assert winograd.useful_flops == gemm.useful_flops == shape.useful_flops
    assert winograd.flops < gemm.flops
