"""The cost model's formulas, checked on their own (the fidelity benchmark checks them against measurements)."""

from __future__ import annotations

import itertools
import math

import ml_dtypes
import numpy as np
import pytest

from wia_sim.costmodel import (
    K_PIPELINE_OVERHEAD,
    TILINGS,
    ConvShape,
    Gemm,
    conv_cost,
    elementwise_cost,
    gemm_cost,
    kernel_overhead_s,
    streaming_memory_s,
)
from wia_sim.hwmodel import load_model
from wia_sim.library import OPS, Operand

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


# -- the small-kernel floor ------------------------------------------------------------------------------------------


def _add(model_name: str, elements: int) -> float:
    model = load_model(model_name)
    return elementwise_cost(model, "add", elements, 1, 12.0 * elements, "float32").duration_s


@pytest.mark.parametrize("name", ["nvidia-a100-sxm4-80gb", "nvidia-h100-sxm5-80gb", "amd-mi210", "wia-tiny"])
def test_a_tiny_kernel_costs_at_least_launch_and_one_memory_round_trip(name: str) -> None:
    model = load_model(name)
    floor = kernel_overhead_s(model) + model.memory.latency
    launch, cache = model.compute.kernel_launch_latency, model.memory.cache_latency
    assert floor == pytest.approx(launch - cache + model.memory.latency)
    for elements in (1, 256, 4096):
        assert _add(name, elements) >= floor
    assert _add(name, 1) == pytest.approx(floor, rel=1e-3)


@pytest.mark.parametrize("name", ["nvidia-a100-sxm4-80gb", "amd-mi210"])
def test_bandwidth_rises_with_size_and_saturates_at_the_streaming_bandwidth(name: str) -> None:
    model = load_model(name)
    stream = model.memory.bandwidth * model.efficiency.memory
    sizes = [1 << e for e in range(10, 31)]
    times = [_add(name, n) for n in sizes]
    achieved = [12.0 * n / t for n, t in zip(sizes, times, strict=True)]
    assert all(b > a for a, b in itertools.pairwise(times)), "time is monotone in size"
    assert all(b >= a for a, b in itertools.pairwise(achieved)), "achieved bandwidth rises with size"
    assert achieved[0] < 0.01 * stream  # a 12 kB kernel is all floor
    assert achieved[-1] == pytest.approx(stream, rel=0.01)  # 12 GB: the streaming bandwidth
    assert max(achieved) <= stream


def test_bytes_in_flight_bound_the_bandwidth_by_littles_law() -> None:
    # one unit with 32 KiB in flight and a 400 ns round trip streams at most 32 KiB / 400 ns = 82 GB/s
    tiny = load_model("wia-tiny")
    one_unit = tiny.model_copy(
        update={
            "compute": tiny.compute.model_copy(update={"compute_units": 1}),
            "memory": tiny.memory.model_copy(update={"bandwidth": 1e15}),
        }
    )
    nbytes = 12.0 * (1 << 24)
    cost = elementwise_cost(one_unit, "add", 1 << 24, 1, nbytes, "float32")
    in_flight = float(one_unit.compute.bytes_in_flight_per_compute_unit or 0)
    latency = one_unit.memory.latency
    assert cost.memory_s == pytest.approx(latency + (nbytes - in_flight) * latency / in_flight)
    assert nbytes / cost.memory_s <= in_flight / latency * (1 + 1e-9)


# -- skinny matmuls -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["nvidia-a100-sxm4-80gb", "nvidia-h100-sxm5-80gb", "amd-mi210"])
@pytest.mark.parametrize(("m", "n"), [(4096, 16), (16, 4096)])
def test_auto_runs_a_skinny_matmul_on_small_tiles_or_split_k(name: str, m: int, n: int) -> None:
    k = 4096
    g = Gemm(m, n, k, 1, (m * k + k * n + m * n) * 2)
    auto = gemm_cost(load_model(name), "matmul", g, "float16")
    wide = [t for a, t in auto.alternatives if a in ("TILED_256", "TILED_128")]
    assert auto.algorithm not in ("TILED_256", "TILED_128", "STREAM_K"), auto.algorithm
    assert auto.duration_s < min(wide)
    assert any(a.startswith("TILED_128x16" if n == 16 else "TILED_16x128") for a, _ in auto.alternatives)


def test_gemv_class_tiles_are_offered_only_to_skinny_products() -> None:
    g = Gemm(4096, 4096, 4096, 1, 3 * 4096 * 4096 * 2.0)
    names = {a for a, _ in gemm_cost(A100, "matmul", g, "float16").alternatives}
    assert not any("x16" in a or "16x" in a for a in names)


def _softmax_s(device: str, rows: int, columns: int) -> float:
    import numpy as np

    from wia_sim.library import OPS, Operand

    x = Operand((rows, columns), np.dtype(np.float32))
    return OPS["softmax"].cost(load_model(device), [x], x, {"axis": -1}).memory_s


def test_softmax_reads_a_row_once_when_it_fits_on_chip_else_again_from_the_cache_or_memory() -> None:
    """The second pass over a row: none when the row fits in a work-group's local memory (kept on chip), from
    the last-level cache when the rows in flight (one per compute unit) fit in it, else from device memory."""
    model = load_model("nvidia-a100-sxm4-80gb")
    local = int(model.compute.max_local_memory_per_work_group)
    stream = model.memory.bandwidth * model.efficiency.memory
    assert model.memory.cache_bandwidth is not None and model.memory.cache_bandwidth > stream

    def extra(rows: int, columns: int) -> float:  # the second pass's time: softmax less one read and one write
        nbytes = 2 * 4 * rows * columns
        return _softmax_s("nvidia-a100-sxm4-80gb", rows, columns) - streaming_memory_s(model, nbytes, 108)

    on_chip = local // 4  # a row of exactly the local memory
    assert extra(4096, on_chip) == pytest.approx(0.0, abs=1e-9)
    cached_row = 2 * local // 4  # too long for local memory; 108 rows of it (about 36 MiB) fit the 40 MiB L2
    rows = 4096
    assert 108 * cached_row * 4 <= model.memory.last_level_cache
    assert extra(rows, cached_row) == pytest.approx(rows * cached_row * 4 / model.memory.cache_bandwidth, rel=0.02)
    long_row = int(model.memory.last_level_cache) // 4  # 108 rows of it cannot stay cached
    assert extra(256, long_row) == pytest.approx(256 * long_row * 4 / stream, rel=0.02)


def test_a_batched_activation_times_one_weight_is_one_gemm_with_the_batch_in_m() -> None:
    """(240, 1, 8192) @ (8192, 14336) is the GEMM of (240, 8192) @ (8192, 14336), not 240 one-row products (which
    cost 20x more: each pays a whole tile of wasted rows)."""
    h100 = load_model("nvidia-h100-sxm5-80gb")
    bf16 = np.dtype(ml_dtypes.bfloat16)
    attrs = {"arithmetic": "bfloat16", "algorithm": "AUTO"}
    w = Operand((8192, 14336), bf16)

    def cost(a: tuple[int, ...], out: tuple[int, ...]) -> float:
        return OPS["matmul"].cost(h100, [Operand(a, bf16), w], Operand(out, bf16), attrs).duration_s

    folded = cost((240, 1, 8192), (240, 1, 14336))
    assert folded == pytest.approx(cost((240, 8192), (240, 14336)), rel=1e-12)
    assert cost((4, 60, 8192), (4, 60, 14336)) == pytest.approx(folded, rel=1e-12)
