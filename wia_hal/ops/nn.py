"""R-3.6.1-02 and R-3.6.1-03: conv2d, inference batch_norm and pool2d, on NCHW tensors."""

from __future__ import annotations

from wia_hal.configs import ConvAlgorithm, ConvConfig, PoolConfig, PoolType
from wia_hal.context import Context
from wia_hal.errors import InvalidValueError, api
from wia_hal.ops.common import output, positive_eps, require_float, resolve, same_dtype
from wia_hal.ops.linalg import arithmetic_for, require_arithmetic
from wia_hal.opset import BatchNormAttrs, ConvAttrs, Pool2dAttrs
from wia_hal.streams import Stream
from wia_hal.tensor import Tensor, launch_op

_DEFAULT_CONV = ConvConfig()


def _out_size(name: str, size: int, kernel: int, pad: int, stride: int, dilation: int, axis: str) -> int:
    extent = dilation * (kernel - 1) + 1
    out = (size + 2 * pad - extent) // stride + 1
    if out < 1:
        raise InvalidValueError(
            f"{name}: the {axis} of {size} with padding {pad} is smaller than the kernel's extent {extent}"
        )
    return out


@api
def conv2d(
    input: Tensor,
    weight: Tensor,
    config: ConvConfig | None = None,
    ctx: Context | None = None,
    *,
    bias: Tensor | None = None,
    stream: Stream | None = None,
) -> Tensor:
    """R-3.6.1-02: NCHW ``input`` (N, C, H, W) and OIHW ``weight`` (O, C/groups, KH, KW), optional ``bias`` (O,),
    padding, stride, dilation and groups from ``config``; the algorithm is AUTO (the cheapest that applies) unless
    ``config.algorithm`` names one. Arithmetic as ``matmul``: int8 accumulates and returns int32 (bias int32)."""
    if config is None:
        config = _DEFAULT_CONV
    if not isinstance(config, ConvConfig):
        raise InvalidValueError(f"conv2d: expected a ConvConfig, got {type(config).__name__}")
    tensors = (input, weight) if bias is None else (input, weight, bias)
    context, s = resolve("conv2d", tensors, ctx, stream, ("input", "weight", "bias"))
    if input.ndim != 4 or weight.ndim != 4:
        raise InvalidValueError(
            f"conv2d: expects a 4-D NCHW input and OIHW weight, got {input.shape} and {weight.shape}"
        )
    same_dtype("conv2d", (input, weight))
    n, c, h, w = input.shape
    o, cg, kh, kw = weight.shape
    g = config.groups
    if c % g or o % g or cg != c // g:
        raise InvalidValueError(
            f"conv2d: input {input.shape} with {c} channels and weight {weight.shape} do not fit groups={g} "
            f"(need C and O divisible by groups and weight.shape[1] == C / groups)"
        )
    (ph, pw), (sh, sw), (dh, dw) = config.padding, config.stride, config.dilation
    oh = _out_size("conv2d", h, kh, ph, sh, dh, "height")
    ow = _out_size("conv2d", w, kw, pw, sw, dw, "width")
    arithmetic, result = arithmetic_for("conv2d", input.dtype, config.precision)
    if bias is not None and (bias.shape != (o,) or bias.dtype != result):
        raise InvalidValueError(
            f"conv2d: bias must be ({o},) {result.name} for this weight and arithmetic, "
            f"got {bias.shape} {bias.dtype.name}"
        )
    if config.algorithm is ConvAlgorithm.WINOGRAD and ((kh, kw) != (3, 3) or (sh, sw, dh, dw) != (1, 1, 1, 1)):
        raise InvalidValueError(
            f"conv2d: WINOGRAD needs a 3x3 kernel at stride 1 and dilation 1, got {kh}x{kw}, stride {config.stride}, "
            f"dilation {config.dilation}"
        )
    if config.algorithm is ConvAlgorithm.WINOGRAD and arithmetic == "int8":
        raise InvalidValueError("conv2d: WINOGRAD's fractional transforms do not apply to int8 data")
    require_arithmetic("conv2d", context, arithmetic, input.dtype, config.precision)
    attrs = ConvAttrs(
        padding=config.padding,
        stride=config.stride,
        dilation=config.dilation,
        groups=g,
        algorithm=config.algorithm.name,
        arithmetic=arithmetic,
    )
    return launch_op(context, s, "conv2d", tensors, output(context, (n, o, oh, ow), result), attrs)


@api
def batch_norm(
    x: Tensor,
    scale: Tensor,
    bias: Tensor,
    mean: Tensor,
    variance: Tensor,
    ctx: Context | None = None,
    *,
    eps: float = 1e-5,
    stream: Stream | None = None,
) -> Tensor:
    """R-3.6.1-03: inference batch normalization over axis 1 (channels) of an (N, C, ...) tensor:
    ``(x - mean) / sqrt(variance + eps) * scale + bias`` with (C,) parameters."""
    tensors = (x, scale, bias, mean, variance)
    context, s = resolve("batch_norm", tensors, ctx, stream, ("x", "scale", "bias", "mean", "variance"))
    require_float("batch_norm", x)
    same_dtype("batch_norm", tensors)
    if x.ndim < 2:
        raise InvalidValueError(f"batch_norm: expects (N, C, ...) input, got {x.shape}")
    for name, p in (("scale", scale), ("bias", bias), ("mean", mean), ("variance", variance)):
        if p.shape != (x.shape[1],):
            raise InvalidValueError(
                f"batch_norm: {name} must have shape ({x.shape[1]},) for input {x.shape}, got {p.shape}"
            )
    attrs = BatchNormAttrs(eps=positive_eps("batch_norm", eps))
    return launch_op(context, s, "batch_norm", tensors, output(context, x.shape, x.dtype), attrs)


@api
def pool2d(x: Tensor, config: PoolConfig, ctx: Context | None = None, *, stream: Stream | None = None) -> Tensor:
    """R-3.6.1-03: MAX or AVG pooling of an NCHW tensor; ``stride`` defaults to ``kernel_size``; padding at most
    half the kernel; AVG divides by the whole window, padding included."""
    if not isinstance(config, PoolConfig) or config.type is None or config.kernel_size is None:
        raise InvalidValueError(
            "pool2d: expected PoolConfig(type=PoolType.MAX or AVG, kernel_size=..., stride=..., padding=...), "
            f"got {config!r}"
        )
    context, s = resolve("pool2d", (x,), ctx, stream)
    if x.ndim != 4:
        raise InvalidValueError(f"pool2d: expects a 4-D NCHW tensor, got {x.shape}")
    if config.type is PoolType.AVG:
        require_float("pool2d AVG", x)
    elif x.dtype.kind == "b":
        raise InvalidValueError("pool2d: MAX pooling needs numbers, got a bool tensor")
    kh, kw = config.kernel_size
    sh, sw = config.stride or config.kernel_size
    ph, pw = config.padding
    if ph > kh // 2 or pw > kw // 2:
        raise InvalidValueError(f"pool2d: padding {config.padding} exceeds half the kernel {config.kernel_size}")
    oh = _out_size("pool2d", x.shape[2], kh, ph, sh, 1, "height")
    ow = _out_size("pool2d", x.shape[3], kw, pw, sw, 1, "width")
    attrs = Pool2dAttrs(type=config.type.name, kernel_size=(kh, kw), stride=(sh, sw), padding=(ph, pw))
    return launch_op(context, s, "pool2d", (x,), output(context, (*x.shape[:2], oh, ow), x.dtype), attrs)
