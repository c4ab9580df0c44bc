"""Normalization over the last axis, as transformer layers use it: ``layer_norm`` and ``rms_norm`` (extensions of
the spec's op library, docs/ops.md "Beyond the spec")."""

from __future__ import annotations

from typing import Literal

from wia_hal.context import Context
from wia_hal.errors import InvalidValueError, api
from wia_hal.ops.common import output, positive_eps, require_float, resolve
from wia_hal.opset import LayerNormAttrs, OpAttrs, RmsNormAttrs
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor, launch_op


def _normalize(
    name: Literal["layer_norm", "rms_norm"],
    x: Tensor,
    params: tuple[tuple[str, Tensor | None], ...],
    attrs: OpAttrs,
    ctx: Context | None,
    stream: Stream | None,
) -> Tensor:
    """Check ``x`` and its per-feature parameters (each None or of shape ``(x.shape[-1],)`` and ``x``'s dtype)
    and launch ``name``."""
    given = [(label, p) for label, p in params if p is not None]
    tensors = (x, *(p for _, p in given))
    context, s = resolve(name, tensors, ctx, stream, ("x", *(label for label, _ in given)))
    require_float(name, x)
    if x.ndim == 0:
        raise InvalidValueError(f"{name}: normalizes over the last axis, which a 0-d tensor lacks")
    for label, p in given:
        if p.shape != (x.shape[-1],) or p.dtype != x.dtype:
            raise InvalidValueError(
                f"{name}: {label} must be ({x.shape[-1]},) {x.dtype.name} for x {x.shape} {x.dtype.name}, "
                f"got {p.shape} {p.dtype.name}"
            )
    return launch_op(context, s, name, tensors, output(context, x.shape, x.dtype), attrs)


@api
def layer_norm(
    x: Tensor,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    *,
    eps: float = 1e-5,
    ctx: Context | None = None,
    stream: Stream | None = None,
) -> Tensor:
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the last axis (biased variance, as LayerNorm's
    definition and PyTorch's ``layer_norm``); ``weight`` and ``bias`` are optional ``(x.shape[-1],)`` tensors of
    ``x``'s dtype. Floating-point only; low precision computes in float32 and rounds once."""
    attrs = LayerNormAttrs(eps=positive_eps("layer_norm", eps), weight=weight is not None, bias=bias is not None)
    return _normalize("layer_norm", x, (("weight", weight), ("bias", bias)), attrs, ctx, stream)


@api
def rms_norm(
    x: Tensor,
    weight: Tensor | None = None,
    *,
    eps: float = 1e-6,
    ctx: Context | None = None,
    stream: Stream | None = None,
) -> Tensor:
    """``x / sqrt(mean(x²) + eps) * weight`` over the last axis (Llama's RMSNorm); ``weight`` is an optional
    ``(x.shape[-1],)`` tensor of ``x``'s dtype. Floating-point only; low precision computes in float32."""
    attrs = RmsNormAttrs(eps=positive_eps("rms_norm", eps), weight=weight is not None)
    return _normalize("rms_norm", x, (("weight", weight),), attrs, ctx, stream)


__all__ = ["layer_norm", "rms_norm"]
