"""2-D convolution, NCHW input and OIHW weight (optional bias), by three real algorithms.

IMPLICIT_GEMM multiplies the im2col view by the weight in one product per group; DIRECT accumulates the kernel
window position by position; WINOGRAD (3×3, stride 1, dilation 1) runs F(2×2, 3×3): input tiles
``Bᵀ d B`` and filters ``G g Gᵀ`` multiplied element-wise and summed over channels, then ``Aᵀ m A`` (Lavin and
Gray, "Fast Algorithms for Convolutional Neural Networks", CVPR 2016). The three sum in different orders, so
their float results differ in the last bits, as they do on hardware.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from wia_sim.costmodel import ConvShape, KernelCost, conv_cost
from wia_sim.hwmodel import HardwareModel
from wia_sim.library.spec import Attrs, Operand, OpSpec, accumulated, as_arithmetic

# F(2x2, 3x3) transforms (Lavin and Gray 2016, section 4.1)
_BT = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], np.float32)
_G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], np.float32)
_AT = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], np.float32)


def conv_shape(x: Operand, w: Operand, out: Operand, attrs: Attrs) -> ConvShape:
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    return ConvShape(
        n=n,
        c=c,
        h=h,
        w=wd,
        o=o,
        kh=kh,
        kw=kw,
        oh=out.shape[2],
        ow=out.shape[3],
        groups=attrs["groups"],
        stride=attrs["stride"],
        dilation=attrs["dilation"],
        in_bytes=x.dtype.itemsize,
        out_bytes=out.dtype.itemsize,
    )


def _cost(model: HardwareModel, inputs: Sequence[Operand], out: Operand, attrs: Attrs) -> KernelCost:
    x, w = inputs[0], inputs[1]
    shape = conv_shape(x, w, out, attrs)
    return conv_cost(model, "conv2d", shape, attrs["arithmetic"], x.dtype.name, attrs["algorithm"])


def _windows(x: np.ndarray, kh: int, kw: int, attrs: Attrs) -> np.ndarray:
    """(N, C, OH, OW, KH, KW) view of the padded input under each output position."""
    (ph, pw), (sh, sw), (dh, dw) = attrs["padding"], attrs["stride"], attrs["dilation"]
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    span = sliding_window_view(padded, ((kh - 1) * dh + 1, (kw - 1) * dw + 1), axis=(2, 3))
    return span[:, :, ::sh, ::sw, ::dh, ::dw]


def _implicit_gemm(x: np.ndarray, w: np.ndarray, attrs: Attrs) -> np.ndarray:
    n, g = x.shape[0], attrs["groups"]
    o, cg, kh, kw = w.shape
    win = _windows(x, kh, kw, attrs)
    _, _, oh, ow, _, _ = win.shape
    cols = win.reshape(n, g, cg, oh, ow, kh, kw).transpose(1, 0, 3, 4, 2, 5, 6).reshape(g, n * oh * ow, cg * kh * kw)
    weights = w.reshape(g, o // g, cg * kh * kw).transpose(0, 2, 1)
    out = np.matmul(cols, weights)  # (g, n·oh·ow, o/g)
    return out.reshape(g, n, oh, ow, o // g).transpose(1, 0, 4, 2, 3).reshape(n, o, oh, ow)


def _direct(x: np.ndarray, w: np.ndarray, attrs: Attrs) -> np.ndarray:
    n, g = x.shape[0], attrs["groups"]
    o, cg, kh, kw = w.shape
    win = _windows(x, kh, kw, attrs)
    _, _, oh, ow, _, _ = win.shape
    grouped = win.reshape(n, g, cg, oh, ow, kh, kw)
    weights = w.reshape(g, o // g, cg, kh, kw)
    out = np.zeros((n, g, o // g, oh, ow), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("ngchw,goc->ngohw", grouped[..., i, j], weights[..., i, j])
    return out.reshape(n, o, oh, ow)


def _winograd(x: np.ndarray, w: np.ndarray, attrs: Attrs) -> np.ndarray:
    n, g = x.shape[0], attrs["groups"]
    o, cg, _, _ = w.shape
    ph, pw = attrs["padding"]
    oh, ow = x.shape[2] + 2 * ph - 2, x.shape[3] + 2 * pw - 2
    th, tw = -(-oh // 2), -(-ow // 2)
    # pad so that every 2×2 output tile has its full 4×4 input tile
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph + 2 * th - oh), (pw, pw + 2 * tw - ow)))
    tiles = sliding_window_view(padded, (4, 4), axis=(2, 3))[:, :, ::2, ::2]  # (n, c, th, tw, 4, 4)
    bt = _BT.astype(x.dtype)
    v = bt @ tiles @ bt.T
    u = _G.astype(x.dtype) @ w @ _G.T.astype(x.dtype)  # (o, cg, 4, 4)
    v = v.reshape(n, g, cg, th, tw, 4, 4)
    u = u.reshape(g, o // g, cg, 4, 4)
    m = np.einsum("ngctuij,gocij->ngotuij", v, u)
    at = _AT.astype(x.dtype)
    y = at @ m @ at.T  # (n, g, o/g, th, tw, 2, 2)
    y = y.transpose(0, 1, 2, 3, 5, 4, 6).reshape(n, o, 2 * th, 2 * tw)
    return y[:, :, :oh, :ow]


_ALGORITHMS = {"IMPLICIT_GEMM": _implicit_gemm, "DIRECT": _direct, "WINOGRAD": _winograd}


def _compute(arrays: Sequence[np.ndarray], attrs: Attrs, out_dtype: np.dtype) -> np.ndarray:
    arithmetic = attrs["arithmetic"]
    x, w = (as_arithmetic(a, arithmetic) for a in arrays[:2])
    algorithm = attrs["chosen"].partition("/")[0]
    out = accumulated(_ALGORITHMS[algorithm](x, w, attrs), arithmetic)
    if len(arrays) == 3:  # the bias (in the result dtype) joins the accumulator before the result is rounded once
        out = out + arrays[2].astype(out.dtype).reshape(1, -1, 1, 1)
    return out


CONV_OPS = [OpSpec("conv2d", _cost, _compute)]
