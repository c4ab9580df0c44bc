"""Beyond the spec: fused scaled dot-product attention (docs/ops.md), the ``attention`` op.

One call stands for the four ops a model would otherwise chain (scores, scale and mask, softmax, the weighted sum
of values) so that a backend can run it as one kernel that never writes the scores (FlashAttention) and the
simulator can cost it so; ``implementation="unfused"`` costs the chained path for comparison.
"""

from __future__ import annotations

import math

import numpy as np

from wia_hal.context import Context
from wia_hal.errors import InvalidValueError, api
from wia_hal.ops.common import output, require_float, resolve
from wia_hal.ops.linalg import arithmetic_for, require_arithmetic
from wia_hal.opset import AttentionAttrs
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor, launch_op

NAME = "scaled_dot_product_attention"
IMPLEMENTATIONS = ("flash", "unfused")


def _shapes(q: Tensor, k: Tensor, v: Tensor) -> tuple[int, ...]:
    """The output shape ``(*batch, Hq, Lq, Dv)`` once the three shapes agree."""
    if q.ndim < 3 or k.ndim != q.ndim or v.ndim != q.ndim:
        raise InvalidValueError(
            f"{NAME}: expects q (*batch, Hq, Lq, D), k (*batch, Hkv, Lk, D) and v (*batch, Hkv, Lk, Dv) of one rank "
            f"(at least 3), got {q.shape}, {k.shape} and {v.shape}"
        )
    *batch, hq, lq, d = q.shape
    if tuple(k.shape[:-3]) != tuple(batch) or tuple(v.shape[:-3]) != tuple(batch):
        raise InvalidValueError(
            f"{NAME}: batch dimensions differ: q {q.shape}, k {k.shape}, v {v.shape} (they must be equal; "
            "broadcast them explicitly)"
        )
    hkv, lk, dk = k.shape[-3:]
    if v.shape[-3:-1] != (hkv, lk):
        raise InvalidValueError(
            f"{NAME}: k {k.shape} and v {v.shape} must have the same heads and length (Hkv, Lk) = ({hkv}, {lk})"
        )
    if dk != d:
        raise InvalidValueError(f"{NAME}: q's head dimension {d} differs from k's {dk} (q {q.shape}, k {k.shape})")
    if d == 0:
        raise InvalidValueError(f"{NAME}: the head dimension D of q {q.shape} must be at least 1")
    if hkv == 0 or hq % hkv:
        raise InvalidValueError(
            f"{NAME}: q's {hq} heads must be a multiple of k and v's {hkv} (grouped-query attention: query head h "
            "reads key/value head h // (Hq / Hkv))"
        )
    return (*batch, hq, lq, v.shape[-1])


def _mask_kind(mask: Tensor, q: Tensor, scores: tuple[int, ...]) -> str:
    if mask.dtype.kind == "b":
        kind = "bool"
    elif mask.dtype == q.dtype:
        kind = "additive"
    else:
        raise InvalidValueError(
            f"{NAME}: the mask must be bool (True: attend) or additive in q's dtype {q.dtype.name}, "
            f"got {mask.dtype.name} {mask.shape}"
        )
    try:
        fits = np.broadcast_shapes(mask.shape, scores) == scores
    except ValueError:
        fits = False
    if not fits:
        raise InvalidValueError(
            f"{NAME}: the mask {mask.shape} does not broadcast to the scores' shape (*batch, Hq, Lq, Lk) = {scores}"
        )
    return kind


def _scale(scale: object, d: int) -> float:
    if scale is None:
        return 1.0 / math.sqrt(d)
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.integer, np.floating)):
        raise InvalidValueError(f"{NAME}: scale must be a number (default 1/sqrt(D)), got {scale!r}")
    if not math.isfinite(float(scale)):
        raise InvalidValueError(f"{NAME}: scale must be finite, got {scale!r}")
    return float(scale)


@api
def scaled_dot_product_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    *,
    mask: Tensor | None = None,
    causal: bool = False,
    scale: float | None = None,
    implementation: str = "flash",
    ctx: Context | None = None,
    stream: Stream | None = None,
) -> Tensor:
    """``softmax(scale · q kᵀ + mask) v`` per (batch, head): q ``(*batch, Hq, Lq, D)``, k ``(*batch, Hkv, Lk, D)``,
    v ``(*batch, Hkv, Lk, Dv)``, ``Hq`` a multiple of ``Hkv`` (grouped-query attention), one floating dtype; the
    result ``(*batch, Hq, Lq, Dv)`` in q's dtype.

    ``mask``: bool (True: attend) or additive (q's dtype), broadcastable to ``(*batch, Hq, Lq, Lk)``. ``causal``:
    query ``i`` sees key ``j <= i + Lk - Lq`` (aligned at the bottom right, as with a KV cache). A query that sees
    no key (all masked, or ``Lk == 0``) gives zeros; ``Lq == 0`` gives an empty result. ``scale`` defaults to
    ``1/sqrt(D)``. ``implementation``: ``"flash"`` (one fused kernel, scores never in memory) or ``"unfused"``
    (costed as the chained ops); the results are the same."""
    tensors = (q, k, v) if mask is None else (q, k, v, mask)
    context, s = resolve(NAME, tensors, ctx, stream, ("q", "k", "v", "mask"))
    require_float(NAME, q)
    if k.dtype != q.dtype or v.dtype != q.dtype:
        raise InvalidValueError(
            f"{NAME}: q, k and v must have one dtype, got {q.dtype.name}, {k.dtype.name} and {v.dtype.name}"
        )
    shape = _shapes(q, k, v)
    scores = (*q.shape[:-1], k.shape[-2])
    mask_kind = "none" if mask is None else _mask_kind(mask, q, scores)
    if not isinstance(causal, (bool, np.bool_)):
        raise InvalidValueError(f"{NAME}: causal must be True or False, got {causal!r}")
    if implementation not in IMPLEMENTATIONS:
        raise InvalidValueError(
            f"{NAME}: implementation must be one of {', '.join(map(repr, IMPLEMENTATIONS))}, got {implementation!r}"
        )
    factor = _scale(scale, q.shape[-1])
    arithmetic, _ = arithmetic_for(NAME, q.dtype, None)
    require_arithmetic(NAME, context, arithmetic, q.dtype, None)
    attrs = AttentionAttrs(
        scale=factor, causal=bool(causal), mask=mask_kind, arithmetic=arithmetic, implementation=implementation
    )
    return launch_op(context, s, "attention", tensors, output(context, shape, q.dtype), attrs)


__all__ = ["scaled_dot_product_attention"]
