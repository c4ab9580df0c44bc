"""What scaled dot-product attention costs: the fused FlashAttention kernel, and the chained ops it replaces.

Sources (cited beside each formula):

- [FA1] Dao, Fu, Ermon, Rudra, Ré, "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
  NeurIPS 2022: Algorithm 1 (tiling, block sizes), Theorem 2 (HBM accesses).
- [FA2] Dao, "FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning", 2023: section 3.1
  (the loop order: an outer loop over query blocks, K and V streamed past each), section 3.2 (parallel over batch,
  heads and query blocks: one work-group per query block), section 4.1 (forward FLOPs ``4·N²·d`` per head, causal
  about half).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from wia_sim.costmodel import (
    SPECIAL_FUNCTION_COST,
    Gemm,
    KernelCost,
    cached_reread_s,
    elementwise_cost,
    gemm_cost,
    kernel_overhead_s,
    streaming_memory_s,
    tile_rate,
)
from wia_sim.hwmodel import HardwareModel
from wia_sim.library.reductions import REDUCTION_OPS
from wia_sim.library.spec import Operand

FLASH_TILE = "TILED_128"
"""The GEMM tiling whose rate the fused kernel's two products run at: FlashAttention-2 runs 128-row query blocks
([FA2] section 4.1: block sizes {64, 128} × {64, 128}), and 128×128 is the tiling of :mod:`wia_sim.costmodel`
closest to a 128×Bc score tile."""

_SOFTMAX = next(spec for spec in REDUCTION_OPS if spec.name == "softmax")


@dataclass(frozen=True, slots=True)
class AttentionShape:
    """One attention call: ``batch`` (the product of the batch dimensions) × ``hq`` query heads of ``lq`` queries
    against ``hkv`` key/value heads of ``lk`` keys; head sizes ``d`` (q, k) and ``dv`` (v, out); ``itemsize`` of the
    data's ``dtype``; ``mask_bytes`` of the mask tensor (0 without one)."""

    batch: int
    hq: int
    hkv: int
    lq: int
    lk: int
    d: int
    dv: int
    dtype: np.dtype
    mask: str = "none"
    mask_bytes: int = 0
    causal: bool = False

    @property
    def heads(self) -> int:
        """Query heads over the whole batch: the (batch, head) pairs."""
        return self.batch * self.hq

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    def bytes_of(self, elements: int) -> int:
        return elements * self.itemsize


def visible_pairs(lq: int, lk: int, causal: bool) -> int:
    """(query, key) pairs one head computes: ``lq·lk``; causal (bottom-right aligned: query ``i`` sees key
    ``j <= i + lk - lq``), query ``i`` sees ``max(0, i + lk - lq + 1)`` keys, the last one all ``lk``: the sum of
    ``a .. lk`` with ``a = lk - lq + 1``, from 1 where ``a < 1`` (the first ``lq - lk`` queries see nothing)."""
    if not causal or lq == 0 or lk == 0:
        return lq * lk
    a = max(1, lk - lq + 1)
    return (lk * (lk + 1) - (a - 1) * a) // 2


def flash_blocks(model: HardwareModel, s: AttentionShape) -> tuple[int, int]:
    """``(Br, Bc)``, [FA1] Algorithm 1, line 1: ``Bc = ceil(M / 4d)``, ``Br = min(ceil(M / 4d), d)`` with ``M`` the
    on-chip memory of one work-group in elements of the data (four ``Bc × d`` tiles, of K, V and their
    neighbours, fit in it); each capped by the sequence it tiles."""
    m = model.compute.max_local_memory_per_work_group // s.itemsize
    bc = max(1, math.ceil(m / (4 * max(s.d, s.dv))))
    br = min(bc, s.d)
    return max(1, min(br, s.lq * (s.hq // s.hkv))), max(1, min(bc, s.lk))


def keys_per_block(s: AttentionShape, br: int, bc: int) -> list[tuple[int, int]]:
    """``(rows, keys loaded)`` of each query block of one key/value head, [FA2] section 3.1: every block streams
    the key blocks it needs; causal skips the key blocks entirely above the block's last query (the diagonal block
    is loaded whole, up to ``lk``). The ``G = hq / hkv`` query heads that share a key/value head are packed into
    the blocks query-major (row ``ρ`` is query ``ρ // G`` of head ``ρ mod G``), so a decode step (one query per
    head) reads K and V once per key/value head, as grouped-query decoding kernels do (a modeling choice, after
    the ``pack_gqa`` option of the flash-attention repository, Dao-AILab/flash-attention, hopper/)."""
    group = s.hq // s.hkv
    packed = group * s.lq
    blocks = []
    for r in range(math.ceil(packed / br)):
        rows = min(br, packed - r * br)
        keys = s.lk
        if s.causal:
            last = (r * br + rows - 1) // group
            keys = min(s.lk, math.ceil(max(0, last + s.lk - s.lq + 1) / bc) * bc)
        blocks.append((rows, keys))
    return blocks


def flash_attention_cost(model: HardwareModel, name: str, s: AttentionShape, arithmetic: str) -> KernelCost:
    """One fused kernel, [FA2] Algorithm 1 with section 3.2's parallelism: a work-group per (batch, key/value head,
    query block; :func:`keys_per_block`) holds its ``Br × d`` queries and ``Br × dv`` output on chip and streams K
    and V past them in ``Bc`` blocks; the scores never reach memory.

    Bytes: Q read once, O written once, the mask once; K and V read once per query block ([FA1] Theorem 2's
    ``Θ(N²d²/M)``: ``Tr = N/Br`` passes over ``N·d`` elements), from device memory unless the K/V heads the running
    work-groups share fit in the last-level cache, in which case device memory gives them once and the other
    passes are cache re-reads. FLOPs: the two products, ``2·(d + dv)`` per (query, key) pair computed ([FA2]
    section 4.1: ``4·N²·d`` per head for ``dv = d``), on the matrix units at ``efficiency.matmul`` times the
    128-row tiling's rate, less one key block of pipeline fill per work-group; plus the softmax's per-score vector
    work (scale, mask, max, subtract, exp, sum) and per-row rescaling, not overlapped with the products ([FA2]
    section 3.1 counts them apart because they run at the vector rate; overlapping them came later: Shah et al.,
    "FlashAttention-3", 2024, section 3.1).

    Where the query blocks leave compute units idle (a decode step: one block per key/value head), the keys are
    also split over work-groups whose partial rows a second kernel combines (Flash-Decoding: Dao, Haziza, Massa,
    Sizov, "Flash-Decoding for long-context inference", 2023), if that is faster; both are kept as alternatives.
    """
    br, bc = flash_blocks(model, s)
    blocks = keys_per_block(s, br, bc)
    groups = s.batch * s.hkv * len(blocks)
    options = [_fused(model, name, s, arithmetic, br, bc, blocks, 1)]
    splits = min(model.compute.compute_units // max(groups, 1), max((math.ceil(k / bc) for _, k in blocks), default=1))
    if splits > 1:
        options.append(_fused(model, name, s, arithmetic, br, bc, blocks, splits))
    best = min(options, key=lambda c: c.duration_s)
    return replace(best, alternatives=tuple((c.algorithm, c.duration_s) for c in options))


def _fused(
    model: HardwareModel,
    name: str,
    s: AttentionShape,
    arithmetic: str,
    br: int,
    bc: int,
    blocks: list[tuple[int, int]],
    splits: int,
) -> KernelCost:
    """The fused kernel with each query block's keys split over ``splits`` work-groups (1: FlashAttention-2)."""
    cus = model.compute.compute_units
    kv_heads = s.batch * s.hkv
    work_groups = kv_heads * len(blocks) * splits
    units = max(1, min(cus, work_groups))
    waves = math.ceil(work_groups / cus) if work_groups else 0
    busy = (min(work_groups, cus) / cus if waves <= 1 else work_groups / (waves * cus)) if work_groups else 1.0
    rows = kv_heads * sum(r for r, _ in blocks)
    pairs = kv_heads * sum(r * keys for r, keys in blocks)
    key_blocks = kv_heads * sum(r * math.ceil(keys / bc) for r, keys in blocks)  # (row, key block) steps
    product = 2.0 * (s.d + s.dv)
    flops = product * pairs
    useful = product * s.heads * visible_pairs(s.lq, s.lk, s.causal)
    fill = kv_heads * sum(math.ceil(keys / bc) for _, keys in blocks)  # key blocks streamed, one per step
    efficiency = model.efficiency.matmul * tile_rate(model, arithmetic, FLASH_TILE)
    efficiency *= fill / (fill + work_groups) if fill else 1.0  # each work-group fills its pipeline once
    per_score = 5 + SPECIAL_FUNCTION_COST + (s.mask != "none" or s.causal)  # scale, max, subtract, sum, select
    normalize = s.heads * s.lq * s.dv  # o / l, once per output element
    combine = rows * splits * (s.dv + 2 + SPECIAL_FUNCTION_COST) if splits > 1 else 0  # partial rows rescaled
    vector_ops = per_score * pairs + key_blocks * (s.dv + 2 + SPECIAL_FUNCTION_COST) + normalize + combine
    useful += per_score * s.heads * visible_pairs(s.lq, s.lk, s.causal) + normalize
    peak = model.compute.peak_flops[arithmetic]  # type: ignore[index]
    compute_s = flops / (peak * efficiency * busy) if flops else 0.0
    compute_s += vector_ops / (model.vector_peak("float32") * busy) if pairs else 0.0

    kv_row = s.bytes_of(s.d + s.dv)
    kv_passes = kv_heads * sum(keys for _, keys in blocks) * kv_row
    kv_heads_at_once = min(kv_heads, math.ceil(units / max(1, len(blocks) * splits)) + 1)
    kv_once = kv_heads * max((keys for _, keys in blocks), default=0) * kv_row
    cached = kv_heads_at_once * s.lk * kv_row <= model.memory.last_level_cache
    kv_dram = kv_once if cached else kv_passes
    reread = kv_passes - kv_dram
    partials = 2 * rows * splits * (s.dv + 2) * 4 if splits > 1 else 0  # float32 rows, max and sum: written, read
    dram = s.bytes_of(s.heads * s.lq * s.d) + kv_dram + s.mask_bytes + s.bytes_of(s.heads * s.lq * s.dv) + partials
    label = f"FLASH(Br={br},Bc={bc},Tr={len(blocks)})"
    return KernelCost(
        name=name,
        flops=flops + vector_ops,
        bytes=dram + reread,
        precision=arithmetic,
        compute_units=units,
        compute_s=compute_s,
        memory_s=streaming_memory_s(model, dram, units) + cached_reread_s(model, reread),
        launch_s=kernel_overhead_s(model) * (2 if splits > 1 else 1),
        algorithm=f"FLASH_DECODING×{splits}/{label}" if splits > 1 else label,
        useful_flops=useful,
        waves=waves,
        efficiency=efficiency * busy,
    )


def unfused_parts(model: HardwareModel, s: AttentionShape, arithmetic: str) -> list[KernelCost]:
    """The kernels of the chained ops, each costed as that op is: ``matmul`` (scores written), a ``mul`` by the
    scale, the mask (an add of the additive mask, or a select of the bool or causal one reading the mask), a
    last-axis ``softmax`` (read, write) and ``matmul`` of the probabilities by V. Scores are in the data's dtype,
    as ``matmul`` returns them."""
    scores = s.heads * s.lq * s.lk
    score_bytes = s.bytes_of(scores)
    q_bytes, out_bytes = s.bytes_of(s.heads * s.lq * s.d), s.bytes_of(s.heads * s.lq * s.dv)
    k_bytes, v_bytes = s.bytes_of(s.batch * s.hkv * s.lk * s.d), s.bytes_of(s.batch * s.hkv * s.lk * s.dv)
    parts = [
        gemm_cost(model, "scores", Gemm(s.lq, s.lk, s.d, s.heads, q_bytes + k_bytes + score_bytes), arithmetic),
        elementwise_cost(model, "scale", scores, 1, 2 * score_bytes, s.dtype.name),
    ]
    if s.mask != "none" or s.causal:
        mask_bytes = s.mask_bytes + (s.lq * s.lk if s.causal else 0)  # a causal mask: a (Lq, Lk) bool tensor
        parts.append(elementwise_cost(model, "mask", scores, 1, 2 * score_bytes + mask_bytes, s.dtype.name))
    probs = Operand((s.heads, s.lq, s.lk), s.dtype)
    parts.append(replace(_SOFTMAX.cost(model, [probs], probs, {"axis": 2}), name="softmax"))
    parts.append(
        gemm_cost(model, "probs@v", Gemm(s.lq, s.dv, s.lk, s.heads, score_bytes + v_bytes + out_bytes), arithmetic)
    )
    return parts


def unfused_attention_cost(model: HardwareModel, name: str, s: AttentionShape, arithmetic: str) -> KernelCost:
    """The chained ops as one record: their FLOPs, bytes and launches add up, and so do their durations (the time
    of each is its larger part; the record's larger part holds the sum of all, its bound the kind of the kernels
    that take most of the time)."""
    parts = unfused_parts(model, s, arithmetic)
    busy = [max(p.compute_s, p.memory_s) for p in parts]
    compute_bound = sum(b for p, b in zip(parts, busy, strict=True) if p.compute_s >= p.memory_s)
    total = sum(busy)
    memory_bound = total - compute_bound
    compute_s = total if compute_bound >= memory_bound else sum(p.compute_s for p in parts)
    memory_s = total if compute_bound < memory_bound else sum(p.memory_s for p in parts)
    return KernelCost(
        name=name,
        flops=sum(p.flops for p in parts),
        bytes=sum(p.bytes for p in parts),
        precision=arithmetic,
        compute_units=max(p.compute_units for p in parts),
        compute_s=compute_s,
        memory_s=memory_s,
        launch_s=sum(p.launch_s for p in parts),
        algorithm="UNFUSED(" + " + ".join(f"{p.name}:{p.algorithm}" for p in parts) + ")",
        useful_flops=2.0 * (s.d + s.dv) * s.heads * visible_pairs(s.lq, s.lk, s.causal),
        waves=sum(p.waves for p in parts),
        efficiency=parts[0].efficiency,
    )


__all__ = [
    "AttentionShape",
    "flash_attention_cost",
    "flash_blocks",
    "keys_per_block",
    "unfused_attention_cost",
    "unfused_parts",
    "visible_pairs",
]
