"""How long work takes on a hardware model, and why.

Every duration is built from what the work must do: FLOPs at the peak of the precision, bytes at the memory or
link bandwidth, and a fixed latency. A kernel is a roofline: the larger of compute and memory time, plus the
device-side launch and drain. Memory time starts with one device-memory round trip and streams at the smaller of
the streaming bandwidth and what the bytes in flight allow (Little's law), so a small kernel has a floor that a
bandwidth roofline alone misses. Each result keeps its breakdown so a prediction can be explained.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from wia_sim.hwmodel import HardwareModel
from wia_sim.memory import MemoryKind

ELEMENTWISE_WORK_GROUP = 256
"""Work-items per work-group of the built-in element-wise kernels (one element per work-item)."""


@dataclass(frozen=True, slots=True)
class KernelCost:
    """The breakdown of one kernel's modeled time (seconds).

    ``flops`` is what the algorithm executes (padding of partial tiles included), ``useful_flops`` what the
    mathematical op needs; ``efficiency`` the fraction of the precision's peak the compute part reaches.
    """

    name: str
    flops: float
    bytes: float
    precision: str
    compute_units: int
    compute_s: float
    memory_s: float
    launch_s: float
    algorithm: str = "direct"
    useful_flops: float = -1.0
    waves: int = 1
    efficiency: float = 1.0
    alternatives: tuple[tuple[str, float], ...] = ()

    @property
    def duration_s(self) -> float:
        return self.launch_s + max(self.compute_s, self.memory_s)

    @property
    def bound(self) -> str:
        """What limits the kernel: ``compute``, ``memory`` or ``launch`` (when the launch latency dominates)."""
        if self.launch_s >= max(self.compute_s, self.memory_s):
            return "launch"
        return "compute" if self.compute_s >= self.memory_s else "memory"


@dataclass(frozen=True, slots=True)
class TransferCost:
    """The breakdown of one copy's modeled time (seconds)."""

    route: str
    nbytes: int
    bandwidth: float
    latency_s: float

    @property
    def duration_s(self) -> float:
        return self.latency_s + self.nbytes / self.bandwidth


def vector_precision(dtype_name: str) -> str:
    """The peak that element-wise work on ``dtype_name`` runs at: the vector units' FP32 rate, or FP64's.

    Element-wise kernels do not use matrix units, and low-precision element-wise work is computed in FP32.
    """
    return "float64" if dtype_name == "float64" else "float32"


def kernel_overhead_s(model: HardwareModel) -> float:
    """Launch and drain of one kernel as the device sees it, without the kernel's own memory round trip:
    ``compute.kernel_launch_latency`` is the measured interval of back-to-back tiny kernels, whose loads hit the
    cache (their data stay there between kernels), so the cache round trip is taken out of it."""
    return model.compute.kernel_launch_latency - model.memory.cache_latency


def streaming_memory_s(model: HardwareModel, nbytes: float, units: int) -> float:
    """Time to move ``nbytes`` through device memory with ``units`` compute units issuing the loads.

    The first bytes arrive one ``memory.latency`` after the kernel starts; from then on the kernel streams at the
    smaller of the streaming bandwidth (peak × ``efficiency.memory``) and what Little's law allows: bytes in flight
    (``units × compute.bytes_in_flight_per_compute_unit``) per latency. A kernel that fits in flight at once takes
    one round trip plus its bytes at the streaming bandwidth; a large one saturates the streaming bandwidth.
    """
    if nbytes <= 0:
        return 0.0
    latency = model.memory.latency
    streaming = nbytes / (model.memory.bandwidth * model.efficiency.memory)
    per_unit = model.compute.bytes_in_flight_per_compute_unit
    if per_unit is None:
        return latency + streaming
    in_flight = max(1, units) * per_unit
    return latency + max(streaming, max(0.0, nbytes - in_flight) * latency / in_flight)


def cached_reread_s(model: HardwareModel, nbytes: float) -> float:
    """Time to read again ``nbytes`` a kernel has just read and that are still in the last-level cache: at the
    cache's read bandwidth where the model gives it, else (not modeled) from device memory at the streaming rate."""
    if nbytes <= 0:
        return 0.0
    bandwidth = model.memory.cache_bandwidth
    if bandwidth is None:
        return nbytes / (model.memory.bandwidth * model.efficiency.memory)
    return nbytes / bandwidth


def elementwise_cost(
    model: HardwareModel,
    name: str,
    elements: int,
    flops_per_element: float,
    nbytes: float,
    dtype_name: str,
    reread_bytes: float = 0.0,
) -> KernelCost:
    """A streaming kernel (element-wise, reductions, layout copies): one work-item per element in work-groups of
    256, placed on as many compute units as it has work-groups (at most all); the units it occupies give it their
    share of the vector peak, and keep its loads in flight (:func:`streaming_memory_s`). ``reread_bytes``: bytes
    it reads a second time while they are still cached (:func:`cached_reread_s`), beyond the ``nbytes`` it moves
    through device memory."""
    precision = vector_precision(dtype_name)
    cus = model.compute.compute_units
    groups = max(1, math.ceil(elements / ELEMENTWISE_WORK_GROUP))
    units = min(cus, groups)
    share = units / cus
    flops = elements * flops_per_element
    return KernelCost(
        name=name,
        flops=flops,
        bytes=nbytes + reread_bytes,
        precision=precision,
        compute_units=units,
        compute_s=flops / (model.vector_peak(precision) * share),
        memory_s=streaming_memory_s(model, nbytes, units) + cached_reread_s(model, reread_bytes),
        launch_s=kernel_overhead_s(model),
        useful_flops=flops,
    )


def copy_route(src: MemoryKind, dst: MemoryKind) -> str:
    """The path a copy takes: ``h2d``, ``d2h``, ``d2d`` (within one device) or ``host`` (CPU memcpy)."""
    if src.on_host:
        return "host" if dst.on_host else "h2d"
    return "d2h" if dst.on_host else "d2d"


def transfer_cost(model: HardwareModel, src: MemoryKind, dst: MemoryKind, nbytes: int) -> TransferCost:
    """A copy of ``nbytes``: the link's latency plus bytes over the rate the memory types allow.

    Pageable (HOST) memory moves at the link's pageable rate (the driver stages it through a pinned bounce
    buffer); PINNED, UNIFIED and MANAGED memory are page-locked and move at the DMA engine's pinned rate.
    A device-to-device copy reads and writes device memory; a host-to-host copy is a CPU memcpy.
    """
    link = model.host_link
    route = copy_route(src, dst)
    if route == "h2d":
        pageable = src is MemoryKind.HOST
        bandwidth = link.pageable_h2d_bandwidth if pageable else link.pinned_h2d_bandwidth
        return TransferCost(route, nbytes, bandwidth, link.latency)
    if route == "d2h":
        pageable = dst is MemoryKind.HOST
        bandwidth = link.pageable_d2h_bandwidth if pageable else link.pinned_d2h_bandwidth
        return TransferCost(route, nbytes, bandwidth, link.latency)
    if route == "d2d":
        # read plus write of every byte at the streaming bandwidth
        bandwidth = model.memory.bandwidth * model.efficiency.memory / 2
        return TransferCost(route, nbytes, bandwidth, kernel_overhead_s(model) + model.memory.latency)
    return TransferCost(route, nbytes, model.host.memcpy_bandwidth, 0.0)


# -- matrix multiplication -----------------------------------------------------------------------------------------

K_PIPELINE_OVERHEAD = 64
"""Depth of K a tile spends outside its steady-state loop (loading the first operand slices, the epilogue that
writes the tile): a tile over K reaches ``K / (K + 64)`` of its steady rate. Modeling assumption: two to three
32-deep K steps of a software-pipelined GEMM main loop (CUTLASS's default multistage depth is 3)."""

TILINGS: dict[str, tuple[int, int, float]] = {
    # name: (tile rows, tile columns, rate relative to the largest tile). Smaller tiles load more operand bytes
    # per FLOP from shared memory and registers: the 128x128 tile's arithmetic intensity is 2/3 and the 64x64
    # tile's 1/3 of the 256x128 tile's, which costs them rate on matrix units fed at a fixed operand bandwidth.
    # The rates are modeling assumptions, not fits: the calibration rows are all large shapes, where AUTO picks
    # 256x128 tiles or stream-K, so they do not constrain the smaller tiles (see docs/cost_model.md).
    "TILED_256": (256, 128, 1.0),
    "TILED_128": (128, 128, 0.92),
    "TILED_64": (64, 64, 0.75),
    # GEMV-class tiles for a skinny product (N or M at most NARROW_TILE): 16 wide, as the matrix units' smallest
    # fragment (mma.m16n8k16, MFMA 16x16); the rate of the smallest tile above, times the operand-feed factor
    # (:func:`operand_feed`) that such a thin tile loses on fast matrix units.
    "TILED_128x16": (128, 16, 0.75),
    "TILED_16x128": (16, 128, 0.75),
}
NARROW_TILE = 16
"""A tile this narrow is offered only where the product is this narrow (N ≤ 16 for 128×16, M ≤ 16 for 16×128):
libraries run such shapes with GEMV-like kernels (cuBLAS gemv/gemvx, rocBLAS gemv, hipBLASLt's small-N
solutions) and use square-ish tiles elsewhere."""
OPERAND_BYTES = {"float64": 8, "float32": 4, "tf32": 4, "float16": 2, "bfloat16": 2, "float8": 1, "int8": 1}
SPLIT_K_TILE = "TILED_128"
STREAM_K_TILE = "TILED_256"
SPLIT_K_MIN_DEPTH = 256
"""Split-K never leaves a work-group with less than 256 of K (below it the pipeline overhead dominates)."""


@dataclass(frozen=True, slots=True)
class Gemm:
    """``batch`` independent products of ``m×k`` by ``k×n`` (a matmul, or a convolution as implicit GEMM);
    ``nbytes``: device memory the operands and the result take (each read or written once)."""

    m: int
    n: int
    k: int
    batch: int
    nbytes: float


def operand_feed(model: HardwareModel, precision: str, tm: int, tn: int) -> float:
    """The fraction of the matrix units' peak a ``tm×tn`` tile can feed from local memory: per K step it reads
    ``(tm + tn)`` operands for ``2·tm·tn`` FLOPs, at :data:`LOCAL_BYTES_PER_CLOCK` per unit and clock."""
    peak = model.compute.peak_flops[precision]  # type: ignore[index]
    flops_per_clock = peak / model.compute.compute_units / model.compute.clock
    needed = flops_per_clock * (tm + tn) * OPERAND_BYTES.get(precision, 4) / (2.0 * tm * tn)
    return min(1.0, LOCAL_BYTES_PER_CLOCK / needed)


def tile_rate(model: HardwareModel, precision: str, tiling: str) -> float:
    """A tiling's rate relative to the 256×128 tile (which ``efficiency.matmul`` is fitted with): its assumed rate
    times its operand feed relative to the 256×128 tile's."""
    tm, tn, rate = TILINGS[tiling]
    big_m, big_n, _ = TILINGS["TILED_256"]
    return rate * operand_feed(model, precision, tm, tn) / operand_feed(model, precision, big_m, big_n)


def _applies(tiling: str, g: Gemm) -> bool:
    tm, tn, _ = TILINGS[tiling]
    return (tn > NARROW_TILE or g.n <= NARROW_TILE) and (tm > NARROW_TILE or g.m <= NARROW_TILE)


def _tiled(
    model: HardwareModel, name: str, g: Gemm, precision: str, algorithm: str, splits: int, split_k: bool = False
) -> KernelCost:
    tm, tn, _ = TILINGS[algorithm]
    rate = tile_rate(model, precision, algorithm)
    cus = model.compute.compute_units
    k_per_tile = math.ceil(g.k / splits)
    tiles = g.batch * math.ceil(g.m / tm) * math.ceil(g.n / tn) * splits
    waves = math.ceil(tiles / cus) if tiles else 0
    efficiency = model.efficiency.matmul * rate * k_per_tile / (k_per_tile + K_PIPELINE_OVERHEAD)
    per_unit = model.compute.peak_flops[precision] / cus * efficiency  # type: ignore[index]
    tile_flops = 2.0 * tm * tn * k_per_tile
    if not tile_flops:  # K = 0: an empty sum, nothing to multiply; the zero result is still written
        waves = 0
    useful = 2.0 * g.batch * g.m * g.n * g.k
    nbytes = g.nbytes
    launch = kernel_overhead_s(model)
    memory_s = streaming_memory_s(model, nbytes, min(cus, max(tiles, 1)))
    if splits > 1:  # partial tiles in float32, written and read back by a reduction kernel (a second launch)
        partials = 2 * splits * g.batch * g.m * g.n * 4
        nbytes += partials
        memory_s += streaming_memory_s(model, partials, cus)
        launch *= 2
    label = f"SPLIT_K×{splits}" if split_k else algorithm
    if split_k and algorithm != SPLIT_K_TILE:
        label += f"/{algorithm}"
    return KernelCost(
        name=name,
        flops=tiles * tile_flops,
        bytes=nbytes,
        precision=precision,
        compute_units=max(1, min(cus, tiles)),
        compute_s=waves * tile_flops / per_unit if waves else 0.0,
        memory_s=memory_s,
        launch_s=launch,
        algorithm=label,
        useful_flops=useful,
        waves=waves,
        efficiency=efficiency,
    )


def _stream_k(model: HardwareModel, name: str, g: Gemm, precision: str) -> KernelCost:
    """Stream-K (Osama et al., "Stream-K: Work-centric Parallel Decomposition for Dense Matrix-Matrix
    Multiplication on the GPU", PPoPP 2023): the K-iterations of all 256×128 tiles are dealt out evenly to the
    compute units, so no wave is left part-empty; a unit whose share ends inside a tile writes a float32 partial
    tile that the tile's owner reads back and adds (the fixup)."""
    tm, tn, rate = TILINGS[STREAM_K_TILE]
    cus = model.compute.compute_units
    tiles = g.batch * math.ceil(g.m / tm) * math.ceil(g.n / tn) if g.k else 0
    per_unit_depth = tiles * g.k / cus  # K-depth of tile work per compute unit
    segments = math.ceil(tiles / cus) + (1 if tiles % cus else 0)  # K-ranges a unit starts (each pays the fill)
    partial_tiles = min(tiles, cus) if tiles % cus else 0
    efficiency = model.efficiency.matmul * rate
    per_unit = model.compute.peak_flops[precision] / cus * efficiency  # type: ignore[index]
    depth = per_unit_depth + K_PIPELINE_OVERHEAD * segments
    nbytes = g.nbytes + 2 * partial_tiles * tm * tn * 4
    return KernelCost(
        name=name,
        flops=2.0 * tiles * tm * tn * g.k,
        bytes=nbytes,
        precision=precision,
        compute_units=max(1, min(cus, tiles)),
        compute_s=2.0 * tm * tn * depth / per_unit if tiles else 0.0,
        memory_s=streaming_memory_s(model, nbytes, min(cus, max(tiles, 1))),
        launch_s=kernel_overhead_s(model),
        algorithm="STREAM_K",
        useful_flops=2.0 * g.batch * g.m * g.n * g.k,
        waves=math.ceil(tiles / cus) if tiles else 0,
        efficiency=efficiency * per_unit_depth / depth if tiles else 0.0,
    )


def _split_k_factor(model: HardwareModel, g: Gemm, tiling: str = SPLIT_K_TILE) -> int:
    tm, tn, _ = TILINGS[tiling]
    tiles = g.batch * math.ceil(g.m / tm) * math.ceil(g.n / tn)
    fill = model.compute.compute_units // max(tiles, 1)
    return max(1, min(fill, g.k // SPLIT_K_MIN_DEPTH))


def gemm_cost(model: HardwareModel, name: str, g: Gemm, precision: str, algorithm: str = "AUTO") -> KernelCost:
    """A (batched) matmul on ``precision``'s units: output tiles in waves over the compute units, each tile at
    the unit's share of the peak times the fitted ``efficiency.matmul``, the tiling's rate and the K-pipeline
    fill; operand and result bytes at the streaming bandwidth; the larger wins, plus the launch.

    ``algorithm``: a tiling name, ``SPLIT_K``, ``STREAM_K`` or ``AUTO`` (the cheapest of all; the others are kept as
    ``alternatives`` so the choice can be explained).
    """
    if algorithm == "SPLIT_K":
        return _tiled(model, name, g, precision, SPLIT_K_TILE, _split_k_factor(model, g), split_k=True)
    if algorithm == "STREAM_K":
        return _stream_k(model, name, g, precision)
    if algorithm != "AUTO":
        return _tiled(model, name, g, precision, algorithm, 1)
    tilings = [tiling for tiling in TILINGS if _applies(tiling, g)]
    options = [_tiled(model, name, g, precision, tiling, 1) for tiling in tilings]
    options.append(_stream_k(model, name, g, precision))
    for tiling in tilings:  # split-K of every tiling that leaves units idle (128×128 first: the SPLIT_K algorithm)
        splits = _split_k_factor(model, g, tiling)
        if splits > 1 and (tiling == SPLIT_K_TILE or TILINGS[tiling][2] < TILINGS[SPLIT_K_TILE][2]):
            options.append(_tiled(model, name, g, precision, tiling, splits, split_k=True))
    best = min(options, key=lambda c: c.duration_s)
    alternatives = tuple((c.algorithm, c.duration_s) for c in options)
    return replace(best, alternatives=alternatives)


# -- convolution ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConvShape:
    """NCHW input ``n×c×h×w``, OIHW weight ``o×(c/groups)×kh×kw``, output ``n×o×oh×ow``."""

    n: int
    c: int
    h: int
    w: int
    o: int
    kh: int
    kw: int
    oh: int
    ow: int
    groups: int
    stride: tuple[int, int]
    dilation: tuple[int, int]
    in_bytes: int
    out_bytes: int

    @property
    def winograd_eligible(self) -> bool:
        return (self.kh, self.kw) == (3, 3) and self.stride == (1, 1) and self.dilation == (1, 1)

    @property
    def useful_flops(self) -> float:
        return 2.0 * self.n * self.oh * self.ow * self.o * (self.c // self.groups) * self.kh * self.kw

    @property
    def io_bytes(self) -> int:
        weight = self.o * (self.c // self.groups) * self.kh * self.kw
        return (
            self.n * self.c * self.h * self.w + weight
        ) * self.in_bytes + self.n * self.o * self.oh * self.ow * self.out_bytes


def _implicit_gemm(model: HardwareModel, name: str, s: ConvShape, precision: str) -> KernelCost:
    # the input is read through the kernel window, not as an m×k im2col matrix: each byte once
    g = Gemm(
        m=s.n * s.oh * s.ow, n=s.o // s.groups, k=(s.c // s.groups) * s.kh * s.kw, batch=s.groups, nbytes=s.io_bytes
    )
    cost = gemm_cost(model, name, g, precision)
    return replace(cost, algorithm=f"IMPLICIT_GEMM/{cost.algorithm}", useful_flops=s.useful_flops, alternatives=())


WINOGRAD_TILE = 2  # F(2×2, 3×3): 2×2 outputs from 4×4 inputs, 16 products per tile instead of 36
WINOGRAD_TRANSFORM_FLOPS = (32, 24)
"""Additions per tile and channel of the input transform ``Bᵀ d B`` (two 4×4 passes of 4×4 adds) and of the output
transform ``Aᵀ m A`` (4×4 to 2×2: 24 adds), from the transform matrices of Lavin and Gray (2016), section 4.1."""


def _winograd(model: HardwareModel, name: str, s: ConvShape, precision: str) -> KernelCost:
    """Fused Winograd, as vendor libraries run it: the input and output transforms happen on chip around 16
    batched GEMMs of the transformed tiles; the filters are transformed once by a separate small kernel. Device
    memory sees the input, the output and the transformed filters; the transforms cost vector additions."""
    tiles = s.n * math.ceil(s.oh / WINOGRAD_TILE) * math.ceil(s.ow / WINOGRAD_TILE)
    cg, og = s.c // s.groups, s.o // s.groups
    filters = 16 * s.o * cg * 4
    g = Gemm(m=tiles, n=og, k=cg, batch=16 * s.groups, nbytes=s.io_bytes + filters)
    cost = gemm_cost(model, name, g, precision)
    input_adds, output_adds = WINOGRAD_TRANSFORM_FLOPS
    transform_flops = tiles * (s.c * input_adds + s.o * output_adds)
    transform_s = transform_flops / model.compute.peak_flops["float32"]
    return replace(
        cost,
        flops=cost.flops + transform_flops,
        compute_s=cost.compute_s + transform_s,
        launch_s=2 * kernel_overhead_s(model),
        algorithm="WINOGRAD",
        useful_flops=s.useful_flops,
        alternatives=(),
    )


def _direct(model: HardwareModel, name: str, s: ConvShape, dtype_name: str) -> KernelCost:
    """Direct convolution on the vector units: each work-item accumulates its outputs over the kernel window from
    registers, without a GEMM's shared-memory operand reuse: modeled at the smallest tile's rate of the fitted
    matmul efficiency, with the K-pipeline fill over the window (C/groups·KH·KW)."""
    precision = vector_precision(dtype_name)
    outputs = s.n * s.o * s.oh * s.ow
    units = min(model.compute.compute_units, max(1, math.ceil(outputs / ELEMENTWISE_WORK_GROUP)))
    share = units / model.compute.compute_units
    depth = (s.c // s.groups) * s.kh * s.kw
    efficiency = model.efficiency.matmul * TILINGS["TILED_64"][2] * depth / (depth + K_PIPELINE_OVERHEAD)
    rate = model.vector_peak(precision) * share * max(efficiency, 1e-30)
    return KernelCost(
        name=name,
        flops=s.useful_flops,
        bytes=s.io_bytes,
        precision=precision,
        compute_units=units,
        compute_s=s.useful_flops / rate,
        memory_s=streaming_memory_s(model, s.io_bytes, units),
        launch_s=kernel_overhead_s(model),
        algorithm="DIRECT",
        useful_flops=s.useful_flops,
        waves=math.ceil(math.ceil(outputs / ELEMENTWISE_WORK_GROUP) / model.compute.compute_units),
        efficiency=efficiency,
    )


def conv_cost(
    model: HardwareModel, name: str, s: ConvShape, precision: str, dtype_name: str, algorithm: str = "AUTO"
) -> KernelCost:
    """A convolution by ``algorithm`` (IMPLICIT_GEMM, WINOGRAD, DIRECT) or AUTO, the cheapest that applies.

    IMPLICIT_GEMM is the matmul model on M = N·OH·OW, N = O/groups, K = C/groups·KH·KW per group; WINOGRAD runs 16
    batched GEMMs of the transformed tiles with on-chip transforms; DIRECT runs on the vector units at the FP32
    (FP64) rate.
    """
    options = {
        "IMPLICIT_GEMM": _implicit_gemm(model, name, s, precision),
        "DIRECT": _direct(model, name, s, dtype_name),
    }
    if s.winograd_eligible and precision != "int8":
        options["WINOGRAD"] = _winograd(model, name, s, precision)
    if algorithm != "AUTO":
        return options[algorithm]
    best = min(options.values(), key=lambda c: c.duration_s)
    return replace(best, alternatives=tuple((c.algorithm, c.duration_s) for c in options.values()))


# -- custom kernels --------------------------------------------------------------------------------------------------

SPECIAL_FUNCTION_COST = 4
"""A special function (sqrt, exp, sin, ...) costs 4 vector operations: NVIDIA's SMs issue special functions at a
quarter of the FP32 rate or less (16 SFU results per clock against 64 or 128 FP32 lanes; CUDA C Programming Guide,
"Arithmetic Instructions" throughput table). A modeling assumption for the other vendors."""

LOCAL_BYTES_PER_CLOCK = 128
"""Local (shared) memory bandwidth per compute unit and clock: 32 banks of 4 bytes each per clock (CUDA C
Programming Guide, "Shared Memory": "32 banks ... successive 32-bit words"; AMD's LDS has the same 32 banks of
4 bytes per CU)."""


def custom_kernel_cost(
    model: HardwareModel, name: str, counts: dict[str, int], group_size: int, local_bytes_per_group: int
) -> KernelCost:
    """A custom kernel timed from what the executor counted.

    Work-groups are placed in waves over the compute units; how many a unit holds at once is limited by local
    memory (``local_memory_per_compute_unit // local bytes per group``) and by work-items (a unit is assumed to
    hold one maximal work-group's worth: an assumption, as the models give no per-unit thread capacity). The
    kernel's time is the largest of: its counted operations at the vector peaks (special functions at
    :data:`SPECIAL_FUNCTION_COST` operations), its global and constant bytes (and 8 bytes per atomic) at the
    streaming bandwidth, its local bytes at :data:`LOCAL_BYTES_PER_CLOCK` per unit; each slowed by the part of the
    machine its work-groups leave idle; plus the launch latency.
    """
    cus = model.compute.compute_units
    groups = max(counts.get("work_groups", 0), 1)
    by_local = model.compute.local_memory_per_compute_unit // local_bytes_per_group if local_bytes_per_group else groups
    by_items = max(1, model.compute.max_work_group_size // max(group_size, 1))
    per_unit = max(1, int(min(by_local, by_items)))
    slots = cus * per_unit
    waves = math.ceil(groups / slots)
    # one wave: the units without a work-group idle; several: the last wave's empty slots do
    busy = min(groups, cus) / cus if waves == 1 else groups / (waves * slots)
    vector_ops = counts.get("float32_ops", 0) + counts.get("int_ops", 0)
    special = counts.get("special_ops", 0) * SPECIAL_FUNCTION_COST
    compute_s = (vector_ops + special) / model.vector_peak("float32") + counts.get("float64_ops", 0) / (
        model.vector_peak("float64") if model.supports("float64") else model.vector_peak("float32")
    )
    global_bytes = (
        counts.get("global_bytes_read", 0)
        + counts.get("global_bytes_written", 0)
        + counts.get("constant_bytes_read", 0)
        + 8 * counts.get("atomics", 0)
    )
    # the round trip is paid once; the streaming part is slowed by the idle units like the rest
    latency = model.memory.latency if global_bytes else 0.0
    memory_s = streaming_memory_s(model, global_bytes, min(cus, groups)) - latency
    local_bytes = counts.get("local_bytes_read", 0) + counts.get("local_bytes_written", 0)
    local_s = local_bytes / (cus * LOCAL_BYTES_PER_CLOCK * model.compute.clock)
    return KernelCost(
        name=name,
        flops=float(vector_ops + special + counts.get("float64_ops", 0)),
        bytes=float(global_bytes),
        precision="float32",
        compute_units=min(cus, groups),
        compute_s=compute_s / busy,
        memory_s=latency + max(memory_s, local_s) / busy,
        launch_s=kernel_overhead_s(model),
        algorithm="custom",
        waves=waves,
        efficiency=busy,
    )
