"""Misuse of every op of SPEC 3.6.1 and 3.7 (R-3.7: shape or dtype mismatches raise INVALID_VALUE; R-3.2.1-02:
what the device lacks raises NOT_SUPPORTED).

Every case checks the code, the exception class (the public subclass of that code), that the message names what was
wrong and what was expected, and that the failed call left nothing behind: no memory (``ctx.bytes_allocated``
unchanged) and no device work (an event pair around the call on a busy stream measures no time).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import wia_hal as wia

E = wia.ErrorCode
P = wia.Precision
PT = wia.PoolType
C = wia.ConvAlgorithm


class World:
    """Tensors of one context, by name: ``f`` float32 (2, 3); ``h`` float16 (2, 3); ``v3`` float32 (3,); ..."""

    def __init__(self) -> None:
        self.ctx = wia.create_context()
        rng = np.random.default_rng(0)

        def t(shape: tuple[int, ...], dtype: Any = np.float32) -> Any:
            """A tensor of ``shape`` and ``dtype``; None where the device lacks the dtype."""
            data = rng.standard_normal(shape) + 2 if np.dtype(dtype).kind != "b" else np.ones(shape, bool)
            try:
                return wia.tensor(np.asarray(data).astype(dtype), ctx=self.ctx)
            except wia.NotSupportedError:
                return None

        self.f = t((2, 3))
        self.f34 = t((3, 4))
        self.f45 = t((4, 5))
        self.h = t((2, 3), np.float16)
        self.bf = t((2, 3), ml_dtypes.bfloat16)
        self.d = t((2, 3), np.float64)
        self.i8 = t((2, 3), np.int8)
        self.i32 = t((2, 3), np.int32)
        self.b = t((2, 3), np.bool_)
        self.v3 = t((3,))
        self.v4 = t((4,))
        self.s = t(())
        self.b234 = t((2, 3, 4))
        self.b345 = t((3, 4, 5))
        self.b245 = t((2, 4, 5))
        self.img = t((1, 2, 5, 5))
        self.img3 = t((1, 3, 5, 5))
        self.small = t((1, 2, 2, 2))
        self.img8 = t((1, 2, 5, 5), np.int8)
        self.imgh = t((1, 2, 5, 5), np.float16)
        self.w = t((4, 2, 3, 3))
        self.w5 = t((4, 2, 5, 5))
        self.w8 = t((4, 2, 3, 3), np.int8)
        self.bias4 = t((4,))
        self.bias3 = t((3,))
        self.bias4h = t((4,), np.float16)
        self.bias4i8 = t((4,), np.int8)
        self.bias4i32 = t((4,), np.int32)
        self.p3 = t((3,))
        self.p4 = t((4,))
        self.p3h = t((3,), np.float16)
        self.x23 = t((2, 3))
        self.x2354 = t((2, 3, 5, 4))
        self.x23i = t((2, 3), np.int32)
        self.b245h = t((2, 4, 5), np.float16)
        self.b345h32 = t((3, 4, 5))
        self.empty = t((2, 0))
        self.w3g = t((3, 1, 3, 3))
        self.wh = t((4, 2, 3, 3), np.float16)
        self.imgb = t((1, 2, 5, 5), np.bool_)
        self.imgi32 = t((1, 2, 5, 5), np.int32)
        self.wi32 = t((4, 2, 3, 3), np.int32)
        self.big = wia.tensor(np.ones((256, 256), np.float32), ctx=self.ctx)


def bn(w: World, x: wia.Tensor, *params: wia.Tensor, **kw: Any) -> wia.Tensor:
    scale, bias, mean, var = params or (w.p3, w.p3, w.p3, w.p3)
    return wia.batch_norm(x, scale, bias, mean, var, **kw)


def pool(kind: PT | None = PT.MAX, k: int = 2, **kw: Any) -> wia.PoolConfig:
    return wia.PoolConfig(type=kind, kernel_size=k, **kw)


def mo(precision: P | None = None, algorithm: wia.MatmulAlgorithm = wia.MatmulAlgorithm.AUTO) -> wia.MatmulConfig:
    return wia.MatmulConfig(algorithm=algorithm, precision=precision)


NOT_TENSORS: list[tuple[str, Any, str]] = [
    ("a list", [1.0, 2.0, 3.0], "list"),
    ("a numpy array", np.ones(3, np.float32), "ndarray"),
    ("None", None, "NoneType"),
]

# every op with each non-tensor in each tensor position it has
TENSOR_POSITIONS: list[tuple[str, Callable[[World, Any], Any]]] = [
    ("add(x, t)", lambda w, x: wia.add(x, w.f)),
    ("add(t, x)", lambda w, x: wia.add(w.f, x)),
    ("mul(x, t)", lambda w, x: wia.mul(x, w.f)),
    ("mul(t, x)", lambda w, x: wia.mul(w.f, x)),
    ("relu", lambda w, x: wia.relu(x)),
    ("gelu", lambda w, x: wia.gelu(x)),
    ("gelu tanh", lambda w, x: wia.gelu(x, approximate="tanh")),
    ("sigmoid", lambda w, x: wia.sigmoid(x)),
    ("sum", lambda w, x: wia.sum(x)),
    ("max", lambda w, x: wia.max(x, 0)),
    ("softmax", lambda w, x: wia.softmax(x)),
    ("reshape", lambda w, x: wia.reshape(x, (3,))),
    ("transpose", lambda w, x: wia.transpose(x)),
    ("slice", lambda w, x: wia.slice(x, [0], [1])),
    ("concat([t, x])", lambda w, x: wia.concat([w.v3, x])),
    ("concat([x, t])", lambda w, x: wia.concat([x, w.v3])),
    ("matmul(x, t)", lambda w, x: wia.matmul(x, w.f34)),
    ("matmul(t, x)", lambda w, x: wia.matmul(w.f, x)),
    ("batch_matmul(x, t)", lambda w, x: wia.batch_matmul(x, w.b345)),
    ("batch_matmul(t, x)", lambda w, x: wia.batch_matmul(w.b234, x)),
    ("matmul_optimized(x, t)", lambda w, x: wia.matmul_optimized(x, w.f34, mo())),
    ("matmul_optimized(t, x)", lambda w, x: wia.matmul_optimized(w.f, x, mo())),
    ("conv2d(x, w)", lambda w, x: wia.conv2d(x, w.w)),
    ("conv2d(t, x)", lambda w, x: wia.conv2d(w.img, x)),
    ("batch_norm(x, ...)", lambda w, x: bn(w, x)),
    ("batch_norm(t, scale=x)", lambda w, x: bn(w, w.x23, x, w.p3, w.p3, w.p3)),
    ("batch_norm(t, variance=x)", lambda w, x: bn(w, w.x23, w.p3, w.p3, w.p3, x)),
    ("pool2d", lambda w, x: wia.pool2d(x, pool())),
    ("explain", lambda w, x: wia.explain(x)),
]

# (id, code, call, needles): each needle is a list of acceptable spellings, the message must hold one of each
Case = tuple[str, wia.ErrorCode, Callable[[World], Any], list[list[str]]]
CASES: list[Case] = [
    # -- mismatched dtypes: the message names both
    ("add float32+float16", E.INVALID_VALUE, lambda w: wia.add(w.f, w.h), [["float32"], ["float16"]]),
    ("mul int8*int32", E.INVALID_VALUE, lambda w: wia.mul(w.i8, w.i32), [["int8"], ["int32"]]),
    (
        "matmul float32@float64",
        E.INVALID_VALUE,
        lambda w: wia.matmul(w.f, wia.transpose(w.d)),
        [["float32"], ["float64"]],
    ),
    ("batch_matmul dtypes", E.INVALID_VALUE, lambda w: wia.batch_matmul(w.b234, w.b245h), [["float32"], ["float16"]]),
    (
        "matmul_optimized dtypes",
        E.INVALID_VALUE,
        lambda w: wia.matmul_optimized(w.f, wia.transpose(w.bf), mo()),
        [["float32"], ["bfloat16"]],
    ),
    ("concat dtypes", E.INVALID_VALUE, lambda w: wia.concat([w.f, w.h]), [["float32"], ["float16"]]),
    ("conv2d input/weight dtypes", E.INVALID_VALUE, lambda w: wia.conv2d(w.imgh, w.w), [["float16"], ["float32"]]),
    (
        "batch_norm parameter dtype",
        E.INVALID_VALUE,
        lambda w: bn(w, w.x23, w.p3h, w.p3, w.p3, w.p3),
        [["float32"], ["float16"]],
    ),
    # -- shapes: the message names both
    ("add (3,)+(4,)", E.INVALID_VALUE, lambda w: wia.add(w.v3, w.v4), [["(3,)"], ["(4,)"], ["broadcast"]]),
    ("mul (2,3)*(4,)", E.INVALID_VALUE, lambda w: wia.mul(w.f, w.v4), [["(2, 3)"], ["(4,)"], ["broadcast"]]),
    ("matmul inner dims", E.INVALID_VALUE, lambda w: wia.matmul(w.f, w.f45), [["(2, 3)"], ["(4, 5)"], ["K=3", "3"]]),
    ("matmul 1-D inner dims", E.INVALID_VALUE, lambda w: wia.matmul(w.v3, w.v4), [["(3,)"], ["(4,)"]]),
    (
        "matmul batch dims",
        E.INVALID_VALUE,
        lambda w: wia.matmul(w.b234, w.b345h32),
        [["(2, 3, 4)"], ["(3, 4, 5)"], ["broadcast"]],
    ),
    ("matmul 0-d A", E.INVALID_VALUE, lambda w: wia.matmul(w.s, w.v3), [["()"], ["(3,)"], ["dimension"]]),
    ("matmul 0-d B", E.INVALID_VALUE, lambda w: wia.matmul(w.v3, w.s), [["()"], ["(3,)"], ["dimension"]]),
    ("batch_matmul 2-D", E.INVALID_VALUE, lambda w: wia.batch_matmul(w.f, w.f34), [["(2, 3)"], ["(3, 4)"], ["3-D"]]),
    ("batch_matmul 1-D", E.INVALID_VALUE, lambda w: wia.batch_matmul(w.v3, w.v3), [["(3,)"], ["3-D"]]),
    (
        "batch_matmul batch sizes",
        E.INVALID_VALUE,
        lambda w: wia.batch_matmul(w.b234, w.b345),
        [["(2, 3, 4)"], ["(3, 4, 5)"]],
    ),
    ("batch_matmul inner dims", E.INVALID_VALUE, lambda w: wia.batch_matmul(w.b234, w.b234), [["(2, 3, 4)"], ["K="]]),
    (
        "matmul_optimized inner dims",
        E.INVALID_VALUE,
        lambda w: wia.matmul_optimized(w.f, w.f45, mo()),
        [["(2, 3)"], ["(4, 5)"]],
    ),
    # -- axes
    ("sum axis out of range", E.INVALID_VALUE, lambda w: wia.sum(w.f, 2), [["2"], ["out of range"]]),
    ("sum negative axis out of range", E.INVALID_VALUE, lambda w: wia.sum(w.f, -3), [["-3"], ["out of range"]]),
    ("sum axis tuple out of range", E.INVALID_VALUE, lambda w: wia.sum(w.f, (0, 5)), [["5"], ["out of range"]]),
    ("sum duplicate axis", E.INVALID_VALUE, lambda w: wia.sum(w.f, (0, 0)), [["(0, 0)"], ["twice"]]),
    ("sum duplicate axis by sign", E.INVALID_VALUE, lambda w: wia.sum(w.f, (1, -1)), [["(1, -1)"], ["twice"]]),
    ("sum float axis", E.INVALID_VALUE, lambda w: wia.sum(w.f, 1.0), [["1.0"], ["int"]]),
    ("sum str axis", E.INVALID_VALUE, lambda w: wia.sum(w.f, "0"), [["'0'"], ["int"]]),
    ("sum bool axis", E.INVALID_VALUE, lambda w: wia.sum(w.f, True), [["True"], ["int"]]),
    ("sum float in axis tuple", E.INVALID_VALUE, lambda w: wia.sum(w.f, (0, 1.5)), [["1.5"], ["int"]]),
    ("sum keepdims not bool", E.INVALID_VALUE, lambda w: wia.sum(w.f, keepdims=1), [["keepdims"], ["bool"]]),
    ("max axis out of range", E.INVALID_VALUE, lambda w: wia.max(w.f, 2), [["2"], ["out of range"]]),
    ("max duplicate axis", E.INVALID_VALUE, lambda w: wia.max(w.f, [1, 1]), [["[1, 1]"], ["twice"]]),
    ("max float axis", E.INVALID_VALUE, lambda w: wia.max(w.f, 0.5), [["0.5"], ["int"]]),
    ("max zero-size reduction", E.INVALID_VALUE, lambda w: wia.max(w.empty, 1), [["(2, 0)"], ["zero-size"]]),
    ("softmax axis out of range", E.INVALID_VALUE, lambda w: wia.softmax(w.f, 2), [["2"], ["out of range"]]),
    ("softmax axis None", E.INVALID_VALUE, lambda w: wia.softmax(w.f, None), [["None"], ["int"]]),
    ("softmax axis tuple", E.INVALID_VALUE, lambda w: wia.softmax(w.f, (0, 1)), [["(0, 1)"], ["int"]]),
    ("softmax 0-d", E.INVALID_VALUE, lambda w: wia.softmax(w.s), [["0-d"], ["dimension"]]),
    ("concat axis out of range", E.INVALID_VALUE, lambda w: wia.concat([w.f, w.f], 2), [["2"], ["out of range"]]),
    ("concat float axis", E.INVALID_VALUE, lambda w: wia.concat([w.f, w.f], 0.0), [["0.0"], ["int"]]),
    # -- transpose perm
    ("transpose repeated perm", E.INVALID_VALUE, lambda w: wia.transpose(w.f, (0, 0)), [["(0, 0)"], ["permutation"]]),
    ("transpose short perm", E.INVALID_VALUE, lambda w: wia.transpose(w.f, (0,)), [["(0,)"], ["permutation"]]),
    (
        "transpose long perm",
        E.INVALID_VALUE,
        lambda w: wia.transpose(w.f, (0, 1, 2)),
        [["2"], ["out of range", "permutation"]],
    ),
    (
        "transpose perm out of range",
        E.INVALID_VALUE,
        lambda w: wia.transpose(w.f, (0, 2)),
        [["2"], ["out of range", "permutation"]],
    ),
    ("transpose str perm", E.INVALID_VALUE, lambda w: wia.transpose(w.f, "ab"), [["'ab'"], ["sequence of ints"]]),
    ("transpose float perm", E.INVALID_VALUE, lambda w: wia.transpose(w.f, (0.0, 1)), [["0.0"], ["sequence of ints"]]),
    # -- reshape sizes
    ("reshape wrong size", E.INVALID_VALUE, lambda w: wia.reshape(w.f, (4,)), [["(2, 3)"], ["(4,)"], ["6"]]),
    ("reshape two -1", E.INVALID_VALUE, lambda w: wia.reshape(w.f, (-1, -1)), [["(-1, -1)"], ["one -1"]]),
    ("reshape -2", E.INVALID_VALUE, lambda w: wia.reshape(w.f, (-2, -3)), [["(-2, -3)"], ["negative"]]),
    ("reshape -1 not inferable", E.INVALID_VALUE, lambda w: wia.reshape(w.f, (4, -1)), [["(4, -1)"], ["6"], ["infer"]]),
    ("reshape -1 with a zero", E.INVALID_VALUE, lambda w: wia.reshape(w.f, (0, -1)), [["(0, -1)"], ["infer"]]),
    ("reshape float dim", E.INVALID_VALUE, lambda w: wia.reshape(w.f, (2.0, 3)), [["2.0"], ["sequence of ints"]]),
    ("reshape str shape", E.INVALID_VALUE, lambda w: wia.reshape(w.f, "6"), [["'6'"], ["sequence of ints"]]),
    ("reshape None shape", E.INVALID_VALUE, lambda w: wia.reshape(w.f, None), [["None"], ["sequence of ints"]]),
    # -- slice arguments
    (
        "slice lengths differ",
        E.INVALID_VALUE,
        lambda w: wia.slice(w.f, [0, 0], [1]),
        [["(0, 0)"], ["(1,)"], ["same length"]],
    ),
    (
        "slice more entries than dims",
        E.INVALID_VALUE,
        lambda w: wia.slice(w.f, [0, 0, 0], [1, 1, 1]),
        [["(2, 3)"], ["at most"]],
    ),
    ("slice float start", E.INVALID_VALUE, lambda w: wia.slice(w.f, [0.5], [1]), [["0.5"], ["sequence of ints"]]),
    ("slice None end", E.INVALID_VALUE, lambda w: wia.slice(w.f, [0], [None]), [["None"], ["sequence of ints"]]),
    ("slice str start", E.INVALID_VALUE, lambda w: wia.slice(w.f, "0", [1]), [["'0'"], ["sequence of ints"]]),
    ("slice of a 0-d tensor", E.INVALID_VALUE, lambda w: wia.slice(w.s, [0], [1]), [["()"], ["at most"]]),
    # -- concat
    ("concat of an empty list", E.INVALID_VALUE, lambda w: wia.concat([]), [["[]"], ["non-empty sequence"]]),
    ("concat of a tensor", E.INVALID_VALUE, lambda w: wia.concat(w.f), [["non-empty sequence"]]),
    ("concat of different ndim", E.INVALID_VALUE, lambda w: wia.concat([w.f, w.v3]), [["(2, 3)"], ["(3,)"]]),
    (
        "concat of mismatched dims",
        E.INVALID_VALUE,
        lambda w: wia.concat([w.f, w.f34]),
        [["(2, 3)"], ["(3, 4)"], ["axis 0"]],
    ),
    (
        "concat on axis 1 mismatched",
        E.INVALID_VALUE,
        lambda w: wia.concat([w.f, w.f34], 1),
        [["(2, 3)"], ["(3, 4)"], ["axis 1"]],
    ),
    ("concat of 0-d tensors", E.INVALID_VALUE, lambda w: wia.concat([w.s, w.s]), [["0-d"], ["axis"]]),
    # -- conv2d
    ("conv2d 3-D input", E.INVALID_VALUE, lambda w: wia.conv2d(w.b234, w.w), [["(2, 3, 4)"], ["4-D"]]),
    ("conv2d 3-D weight", E.INVALID_VALUE, lambda w: wia.conv2d(w.img, w.b234), [["(2, 3, 4)"], ["4-D"]]),
    (
        "conv2d groups do not divide C",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.img3, w.w, wia.ConvConfig(groups=2)),
        [["groups=2"], ["(1, 3, 5, 5)"], ["divisible"]],
    ),
    (
        "conv2d groups do not divide O",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.img, w.w3g, wia.ConvConfig(groups=2)),
        [["groups=2"], ["(3, 1, 3, 3)"], ["divisible"]],
    ),
    (
        "conv2d weight channels",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.img3, w.w),
        [["(1, 3, 5, 5)"], ["(4, 2, 3, 3)"], ["groups"]],
    ),
    (
        "conv2d kernel larger than input",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.small, w.w),
        [["2"], ["3"], ["kernel"]],
    ),
    (
        "conv2d dilated kernel too large",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.img, w.w, wia.ConvConfig(dilation=3)),
        [["7"], ["kernel"]],
    ),
    (
        "conv2d bias shape",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.img, w.w, bias=w.bias3),
        [["(3,)"], ["(4,)"], ["bias"]],
    ),
    (
        "conv2d bias dtype",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.img, w.w, bias=w.bias4h),
        [["float16"], ["float32"], ["bias"]],
    ),
    (
        "conv2d int8 bias must be int32",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.img8, w.w8, bias=w.bias4i8),
        [["int8"], ["int32"], ["bias"]],
    ),
    (
        "conv2d WINOGRAD 5x5",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.img, w.w5, wia.ConvConfig(algorithm=C.WINOGRAD)),
        [["5x5"], ["3x3"]],
    ),
    (
        "conv2d WINOGRAD stride 2",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.img, w.w, wia.ConvConfig(algorithm=C.WINOGRAD, stride=2)),
        [["(2, 2)"], ["stride 1"]],
    ),
    (
        "conv2d WINOGRAD dilation 2",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.img, w.w, wia.ConvConfig(algorithm=C.WINOGRAD, dilation=2, padding=2)),
        [["(2, 2)"], ["dilation 1"]],
    ),
    (
        "conv2d WINOGRAD int8",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.img8, w.w8, wia.ConvConfig(algorithm=C.WINOGRAD)),
        [["WINOGRAD"], ["int8"]],
    ),
    (
        "conv2d config of the wrong type",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.img, w.w, {"padding": 1}),
        [["ConvConfig"], ["dict"]],
    ),
    (
        "ConvConfig negative padding",
        E.INVALID_VALUE,
        lambda w: wia.ConvConfig(padding=-1),
        [["padding"], ["at least 0"]],
    ),
    ("ConvConfig zero stride", E.INVALID_VALUE, lambda w: wia.ConvConfig(stride=(1, 0)), [["stride"], ["at least 1"]]),
    (
        "ConvConfig zero groups",
        E.INVALID_VALUE,
        lambda w: wia.ConvConfig(groups=0),
        [["groups"], ["greater than or equal to 1"]],
    ),
    ("ConvConfig bad pair", E.INVALID_VALUE, lambda w: wia.ConvConfig(padding=(1, 2, 3)), [["padding"], ["pair"]]),
    # -- pool2d
    (
        "pool2d memory-pool config",
        E.INVALID_VALUE,
        lambda w: wia.pool2d(w.img, wia.PoolConfig(initial_size=1024)),
        [["initial_size=1024"], ["kernel_size"]],
    ),
    (
        "pool2d empty config",
        E.INVALID_VALUE,
        lambda w: wia.pool2d(w.img, wia.PoolConfig()),
        [["PoolConfig("], ["PoolType.MAX or AVG"]],
    ),
    (
        "pool2d without kernel_size",
        E.INVALID_VALUE,
        lambda w: wia.pool2d(w.img, wia.PoolConfig(type=PT.MAX)),
        [["kernel_size=None"], ["kernel_size=..."]],
    ),
    (
        "pool2d config of the wrong type",
        E.INVALID_VALUE,
        lambda w: wia.pool2d(w.img, {"type": PT.MAX}),
        [["{"], ["PoolConfig("]],
    ),
    (
        "pool2d padding > kernel/2",
        E.INVALID_VALUE,
        lambda w: wia.pool2d(w.img, pool(k=2, padding=2)),
        [["(2, 2)"], ["half the kernel"]],
    ),
    (
        "pool2d padding > kernel/2 in width",
        E.INVALID_VALUE,
        lambda w: wia.pool2d(w.img, pool(k=3, padding=(1, 2))),
        [["(1, 2)"], ["half the kernel"]],
    ),
    ("pool2d 3-D input", E.INVALID_VALUE, lambda w: wia.pool2d(w.b234, pool()), [["(2, 3, 4)"], ["4-D"]]),
    (
        "pool2d kernel larger than input",
        E.INVALID_VALUE,
        lambda w: wia.pool2d(w.small, pool(k=3)),
        [["2"], ["3"], ["kernel"]],
    ),
    ("pool2d AVG of int8", E.INVALID_VALUE, lambda w: wia.pool2d(w.img8, pool(PT.AVG)), [["int8"], ["floating-point"]]),
    ("pool2d MAX of bool", E.INVALID_VALUE, lambda w: wia.pool2d(w.imgb, pool()), [["bool"], ["numbers"]]),
    (
        "PoolConfig of both kinds",
        E.INVALID_VALUE,
        lambda w: wia.PoolConfig(type=PT.MAX, kernel_size=2, block_size=64),
        [["pool2d"], ["memory pool"]],
    ),
    (
        "PoolConfig zero kernel",
        E.INVALID_VALUE,
        lambda w: wia.PoolConfig(type=PT.MAX, kernel_size=0),
        [["kernel_size"], ["at least 1"]],
    ),
    # -- batch_norm
    (
        "batch_norm scale shape",
        E.INVALID_VALUE,
        lambda w: bn(w, w.x23, w.p4, w.p3, w.p3, w.p3),
        [["scale"], ["(3,)"], ["(4,)"]],
    ),
    (
        "batch_norm bias shape",
        E.INVALID_VALUE,
        lambda w: bn(w, w.x23, w.p3, w.p4, w.p3, w.p3),
        [["bias"], ["(3,)"], ["(4,)"]],
    ),
    (
        "batch_norm mean shape",
        E.INVALID_VALUE,
        lambda w: bn(w, w.x23, w.p3, w.p3, w.f, w.p3),
        [["mean"], ["(3,)"], ["(2, 3)"]],
    ),
    (
        "batch_norm variance shape",
        E.INVALID_VALUE,
        lambda w: bn(w, w.x2354, w.p3, w.p3, w.p3, w.p4),
        [["variance"], ["(3,)"], ["(4,)"]],
    ),
    ("batch_norm eps 0", E.INVALID_VALUE, lambda w: bn(w, w.x23, eps=0.0), [["eps"], ["positive"], ["0.0"]]),
    (
        "batch_norm eps negative",
        E.INVALID_VALUE,
        lambda w: bn(w, w.x23, eps=-1e-5),
        [["eps"], ["positive"], ["-1e-05"]],
    ),
    (
        "batch_norm eps str",
        E.INVALID_VALUE,
        lambda w: bn(w, w.x23, eps="1e-5"),
        [["eps"], ["positive number"], ["'1e-5'"]],
    ),
    (
        "batch_norm eps bool",
        E.INVALID_VALUE,
        lambda w: bn(w, w.x23, eps=True),
        [["eps"], ["positive number"], ["True"]],
    ),
    ("batch_norm eps nan", E.INVALID_VALUE, lambda w: bn(w, w.x23, eps=float("nan")), [["eps"], ["positive"], ["nan"]]),
    ("batch_norm 1-D input", E.INVALID_VALUE, lambda w: bn(w, w.v3), [["(3,)"], ["(N, C, ...)"]]),
    ("batch_norm int input", E.INVALID_VALUE, lambda w: bn(w, w.x23i), [["int32"], ["floating-point"]]),
    # -- element-wise
    (
        "gelu approximate='fast'",
        E.INVALID_VALUE,
        lambda w: wia.gelu(w.f, approximate="fast"),
        [["'fast'"], ["'none' or 'tanh'"]],
    ),
    (
        "gelu approximate=None",
        E.INVALID_VALUE,
        lambda w: wia.gelu(w.f, approximate=None),
        [["None"], ["'none' or 'tanh'"]],
    ),
    (
        "gelu approximate=True",
        E.INVALID_VALUE,
        lambda w: wia.gelu(w.f, approximate=True),
        [["True"], ["'none' or 'tanh'"]],
    ),
    # -- contexts and streams of the wrong type
    ("relu ctx of the wrong type", E.INVALID_CONTEXT, lambda w: wia.relu(w.f, ctx="ctx"), [["Context"], ["str"]]),
    (
        "matmul stream of the wrong type",
        E.INVALID_VALUE,
        lambda w: wia.matmul(w.f, w.f34, stream=0),
        [["Stream"], ["int"]],
    ),
]

for _op, _call in [
    ("gelu", lambda t: wia.gelu(t)),
    ("gelu tanh", lambda t: wia.gelu(t, approximate="tanh")),
    ("sigmoid", wia.sigmoid),
    ("softmax", wia.softmax),
]:
    for _name in ("i8", "i32", "b"):
        _dtype = {"i8": "int8", "i32": "int32", "b": "bool"}[_name]
        CASES.append(
            (
                f"{_op} of {_dtype}",
                E.INVALID_VALUE,
                lambda w, call=_call, name=_name: call(getattr(w, name)),
                [[_dtype], ["floating-point"]],
            )
        )

# precision not applicable to the data's dtype: INVALID_VALUE naming both and what the precision takes
INAPPLICABLE = [
    ("TF32", "h", "float16"),
    ("TF32", "bf", "bfloat16"),
    ("FP32", "i8", "int8"),
    ("FP32", "d", "float64"),
    ("FP16", "d", "float64"),
    ("FP16", "bf", "bfloat16"),
    ("BF16", "h", "float16"),
    ("INT8", "f", "float32"),
    ("FP64", "f", "float32"),
    ("MIXED", "i8", "int8"),
    ("FP8", "i8", "int8"),
]
for _p, _name, _dtype in INAPPLICABLE:
    if not hasattr(P, _p):
        continue
    CASES.append(
        (
            f"matmul_optimized {_p} of {_dtype}",
            E.INVALID_VALUE,
            lambda w, p=_p, name=_name: wia.matmul_optimized(
                getattr(w, name), wia.transpose(getattr(w, name)), mo(getattr(P, p))
            ),
            [[_p], [_dtype], ["takes"]],
        )
    )
CASES += [
    (
        "conv2d TF32 of float16",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.imgh, w.wh, wia.ConvConfig(precision=P.TF32)),
        [["TF32"], ["float16"]],
    ),
    (
        "conv2d FP32 of int8",
        E.INVALID_VALUE,
        lambda w: wia.conv2d(w.img8, w.w8, wia.ConvConfig(precision=P.FP32)),
        [["FP32"], ["int8"]],
    ),
    (
        "matmul of int32",
        E.INVALID_VALUE,
        lambda w: wia.matmul(w.i32, wia.transpose(w.i32)),
        [["int32"], ["float32, float16, bfloat16, int8 or float64"]],
    ),
    (
        "matmul of bool",
        E.INVALID_VALUE,
        lambda w: wia.matmul(w.b, wia.transpose(w.b)),
        [["bool"], ["float32, float16, bfloat16, int8 or float64"]],
    ),
    ("conv2d of int32", E.INVALID_VALUE, lambda w: wia.conv2d(w.imgi32, w.wi32), [["int32"], ["float32"]]),
    (
        "matmul_optimized config of the wrong type",
        E.INVALID_VALUE,
        lambda w: wia.matmul_optimized(w.f, w.f34, {"precision": 0}),
        [["MatmulConfig"], ["dict"]],
    ),
    (
        "MatmulConfig unknown precision",
        E.INVALID_VALUE,
        lambda w: wia.MatmulConfig(precision=99),
        [["precision"], ["99"]],
    ),
    ("MatmulConfig unknown field", E.INVALID_VALUE, lambda w: wia.MatmulConfig(tile=64), [["tile"]]),
]
if hasattr(P, "FP8"):
    CASES.append(
        (
            "FP8 on a device without float8",
            E.NOT_SUPPORTED,
            lambda w: wia.matmul_optimized(w.f, w.f34, mo(P.FP8)),
            [["float8"], ["FP8"], ["offers"]],
        )
    )


@pytest.fixture
def world() -> World:
    return World()


def expect(code: wia.ErrorCode, fn: Callable[..., Any], w: World, needles: list[list[str]], what: str) -> wia.WiaError:
    """``fn(w)`` raises the public class of ``code`` whose message holds one spelling of each needle, and leaves
    neither memory nor device work behind."""
    __tracebackhide__ = True
    ctx = w.ctx
    stream = ctx.default_stream
    busy = wia.matmul(w.big, w.big)  # a busy stream: the events below measure device work only
    before, after = wia.create_event(), wia.create_event()
    allocated = ctx.bytes_allocated
    wia.event_record(before, stream)
    with pytest.raises(wia.WiaError) as info:
        fn(w)
    wia.event_record(after, stream)
    error = info.value
    assert error.code is code, f"{what}: got {error.code.name} ({error}), but should be {code.name}"
    assert type(error) is wia.errors.ERROR_CLASSES[code], f"{what}: {type(error).__name__}"  # type: ignore[attr-defined]
    assert isinstance(error, wia.WiaError) and error.details.code is code
    message = str(error)
    for spellings in needles:
        assert any(s in message for s in spellings), f"{what}: message {message!r} names none of {spellings}"
    assert ctx.bytes_allocated == allocated, f"{what}: the failed call left {ctx.bytes_allocated - allocated} bytes"
    wia.event_synchronize(after)
    assert wia.event_elapsed_time(before, after) == 0.0, f"{what}: the failed call enqueued device work"
    del busy
    return error


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_misuse(case: Case, world: World) -> None:
    what, code, fn, needles = case
    expect(code, fn, world, needles, what)


@pytest.mark.parametrize(("kind", "value", "type_name"), NOT_TENSORS, ids=[n[0] for n in NOT_TENSORS])
@pytest.mark.parametrize("position", TENSOR_POSITIONS, ids=[p[0] for p in TENSOR_POSITIONS])
def test_non_tensor_operands(
    position: tuple[str, Callable[[World, Any], Any]], kind: str, value: Any, type_name: str, world: World
) -> None:
    what, call = position
    expect(E.INVALID_VALUE, lambda w: call(w, value), world, [["Tensor"], [type_name]], f"{what} with {kind}")


@pytest.mark.parametrize("bias", [[1.0, 2.0, 3.0, 4.0], np.ones(4, np.float32)], ids=["list", "ndarray"])
def test_conv2d_bias_must_be_a_tensor(bias: Any, world: World) -> None:
    expect(E.INVALID_VALUE, lambda w: wia.conv2d(w.img, w.w, bias=bias), world, [["Tensor"]], "conv2d bias")


def _model_without(tmp_path: Path, *precisions: str) -> str:
    """wia-tiny without the given ``[compute.peak_flops]`` entries, as a hardware model file."""
    from wia_sim.hwmodel import model_path

    lines = model_path("wia-tiny").read_text().splitlines()
    kept, section = [], ""
    for line in lines:
        if line.startswith("["):
            section = line.strip()
        if section == "[compute.peak_flops]" and line.split("=")[0].strip() in precisions:
            continue
        kept.append(line)
    path = tmp_path / f"tiny-without-{'-'.join(precisions)}.toml"
    path.write_text("\n".join(kept) + "\n")
    return str(path)


@pytest.mark.parametrize(
    ("removed", "precision", "dtype"),
    [
        ("bfloat16", "BF16", np.float32),
        ("bfloat16", "MIXED", np.float32),  # float32 data at MIXED runs on the bfloat16 units
        ("tf32", "TF32", np.float32),
        ("float16", "FP16", np.float32),
    ],
)
def test_precision_the_device_lacks_is_not_supported(tmp_path: Path, removed: str, precision: str, dtype: Any) -> None:
    wia.set_backend("sim", hardware=_model_without(tmp_path, removed))
    w = World()
    config = mo(getattr(P, precision))
    message = [[removed], [precision], ["offers"]]
    expect(E.NOT_SUPPORTED, lambda w: wia.matmul_optimized(w.f, w.f34, config), w, message, f"matmul {precision}")
    conv = wia.ConvConfig(precision=getattr(P, precision))
    expect(E.NOT_SUPPORTED, lambda w: wia.conv2d(w.img, w.w, conv), w, message, f"conv2d {precision}")
    # the capability says so too (R-3.2.1-02: truthful)
    caps = wia.get_device_capabilities(wia.get_device(0))
    if removed in ("bfloat16", "float16"):
        assert not getattr(caps, f"supports_{removed}")
    # what remains still works
    np.testing.assert_allclose(
        wia.matmul(w.f, w.f34).numpy(), w.f.numpy().astype(np.float64) @ w.f34.numpy(), rtol=1e-5
    )


@pytest.mark.parametrize(
    ("removed", "dtype"), [("bfloat16", ml_dtypes.bfloat16), ("float16", np.float16), ("float64", np.float64)]
)
def test_dtype_the_device_lacks_is_not_supported(tmp_path: Path, removed: str, dtype: Any) -> None:
    wia.set_backend("sim", hardware=_model_without(tmp_path, removed))
    ctx = wia.create_context()
    allocated = ctx.bytes_allocated
    data = np.ones((2, 3), dtype)
    for make in (
        lambda: wia.tensor(data, ctx=ctx),
        lambda: wia.tensor(np.ones((2, 3), np.float32), ctx=ctx, dtype=removed),
        lambda: wia.zeros((2, 3), removed, ctx=ctx),
        lambda: wia.empty((2, 3), removed, ctx=ctx),
        lambda: wia.create_tensor_device((2, 3), removed, ctx=ctx),
    ):
        with pytest.raises(wia.NotSupportedError) as info:
            make()
        assert info.value.code is E.NOT_SUPPORTED
        assert removed in str(info.value) and "supports_" in str(info.value)
    assert ctx.bytes_allocated == allocated
