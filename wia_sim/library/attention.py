"""Scaled dot-product attention: the unfused math in NumPy, in pieces small enough for long sequences, and the cost
of the fused (FlashAttention) or the chained kernels (:mod:`wia_sim.library.attention_cost`).

The numbers are those of the FlashAttention-2 forward pass with the final row maximum: scores ``scale · q kᵀ`` (plus
an additive mask) in float32 (float64 for float64 data) from operands rounded to the arithmetic, ``p = exp(s - m)``
rounded to the arithmetic as the second product's operand (as the matrix units read it), ``o = (p v) / sum(p)``
with the sum of the unrounded ``p``. A query that sees no key gives zeros.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import replace

import numpy as np

from wia_sim.costmodel import KernelCost
from wia_sim.hwmodel import HardwareModel
from wia_sim.library.attention_cost import AttentionShape, flash_attention_cost, unfused_attention_cost
from wia_sim.library.spec import Attrs, Operand, OpSpec, as_arithmetic

SCORE_CHUNK = 1 << 22
"""Scores computed at once (16 MiB in float32): queries are taken in chunks of at most this many (head, query, key)
triples, so a 32k × 32k score matrix is never held whole."""


def attention_shape(inputs: Sequence[Operand], attrs: Attrs) -> AttentionShape:
    q, k, v = inputs[:3]
    *batch, hq, lq, d = q.shape
    return AttentionShape(
        batch=math.prod(batch),
        hq=hq,
        hkv=k.shape[-3],
        lq=lq,
        lk=k.shape[-2],
        d=d,
        dv=v.shape[-1],
        dtype=q.dtype,
        mask=attrs["mask"],
        mask_bytes=inputs[3].nbytes if len(inputs) == 4 else 0,
        causal=attrs["causal"],
    )


def _cost(model: HardwareModel, inputs: Sequence[Operand], out: Operand, attrs: Attrs) -> KernelCost:
    s = attention_shape(inputs, attrs)
    arithmetic = attrs["arithmetic"]
    flash = flash_attention_cost(model, "attention", s, arithmetic)
    unfused = unfused_attention_cost(model, "attention", s, arithmetic)
    chosen = flash if attrs["implementation"] == "flash" else unfused
    return replace(chosen, alternatives=(*flash.alternatives, (unfused.algorithm, unfused.duration_s)))


def _chunks(lq: int, per_query: int) -> Iterator[tuple[int, int]]:
    step = max(1, SCORE_CHUNK // max(per_query, 1))
    for start in range(0, lq, step):
        yield start, min(lq, start + step)


def _compute(arrays: Sequence[np.ndarray], attrs: Attrs, out_dtype: np.dtype) -> np.ndarray:
    q, k, v = arrays[:3]
    arithmetic, scale, causal = attrs["arithmetic"], attrs["scale"], attrs["causal"]
    wide = np.dtype(np.float64) if arithmetic == "float64" else np.dtype(np.float32)
    *batch, hq, lq, _ = q.shape
    hkv, lk, dv = k.shape[-3], k.shape[-2], v.shape[-1]
    group = hq // hkv
    out = np.zeros((*batch, hq, lq, dv), wide)
    if out.size == 0 or lk == 0:  # no query, or none sees a key: zeros
        return out
    mask = np.broadcast_to(arrays[3], (*batch, hq, lq, lk)) if len(arrays) == 4 else None
    keys = np.arange(lk)
    for index in np.ndindex(*batch):
        for g in range(hkv):
            heads = slice(g * group, (g + 1) * group)
            kt = as_arithmetic(k[index][g], arithmetic).T
            vg = as_arithmetic(v[index][g], arithmetic)
            for r0, r1 in _chunks(lq, group * lk):
                s = np.matmul(as_arithmetic(q[index][heads, r0:r1], arithmetic), kt) * wide.type(scale)
                if attrs["mask"] == "additive":
                    s = s + mask[index][heads, r0:r1].astype(wide)  # type: ignore[index]
                elif attrs["mask"] == "bool":
                    s = np.where(mask[index][heads, r0:r1], s, -np.inf)  # type: ignore[index]
                if causal:  # query i sees key j <= i + lk - lq
                    hidden = keys[None, :] > np.arange(r0, r1)[:, None] + (lk - lq)
                    s = np.where(hidden, -np.inf, s)
                top = np.max(s, axis=-1, keepdims=True)
                unseen = top == -np.inf
                p = np.exp(s - np.where(unseen, 0, top))
                total = np.sum(p, axis=-1, keepdims=True)
                o = np.matmul(as_arithmetic(p.astype(wide), arithmetic), vg) / total
                out[index][heads, r0:r1] = np.where(unseen, 0, o)
    return out


ATTENTION_OPS = [OpSpec("attention", _cost, _compute)]
