"""Float64 NumPy references for the ops of SPEC 3.6.1 and 3.7, and the error bounds results are held to.

The reasoning behind every bound is in ``docs/numerics.md``; in short:

- ``eps(d)`` is the machine epsilon of ``d`` (the spacing of ``d`` at 1.0). Rounding to nearest errs by at most
  ``u = eps/2`` relative, so ``eps(d) * |x|`` is at least one ulp of ``x`` and covers one rounding with room to spare
  (also a double rounding through float32 into float16/bfloat16).
- ``tiny(d)`` is the smallest subnormal of ``d``: below the normal range the rounding error is absolute (at most
  half of it), so every bound adds it.
- An element-wise result is one rounding of the exact value, plus, where a transcendental is evaluated in the
  computing type (float32 for float32/float16/bfloat16 data, float64 for float64), ``TRANSCENDENTAL_ULPS`` of that
  type.
- A reduction of K terms (``sum``, a matmul or convolution dot product, an average pool window) accumulated in type
  ``acc``: ``|got - ref| <= eps(out)*|ref| + (K + 1) * eps(acc) * sum|term_i|`` (the worst-case bound of recursive
  summation, Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed., eq. 4.4, with eps = 2u for margin),
  plus ``eps(in) * sum|term_i|`` when the inputs are first rounded to a narrower type (TF32, FP16, BF16, FP8: each
  product of two rounded inputs errs by at most ``2u_in = eps(in)`` relative).

A bound is an array the size of the result: a test passes when ``|got - ref| <= bound`` holds element by element.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import ml_dtypes
import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

F64 = npt.NDArray[np.float64]

FLOATS = ("float32", "float16", "bfloat16", "float64")
INTS = ("int8", "int32")

EPS: dict[str, float] = {
    "float64": 2.0**-52,
    "float32": 2.0**-23,
    "tf32": 2.0**-10,  # TF32: float32's exponent, 10 explicit mantissa bits
    "float16": 2.0**-10,
    "bfloat16": 2.0**-7,
    "float8": 2.0**-3,  # float8 e4m3: 3 explicit mantissa bits
}
TINY: dict[str, float] = {
    "float64": 2.0**-1074,
    "float32": 2.0**-149,
    "tf32": 2.0**-149,
    "float16": 2.0**-24,
    "bfloat16": 2.0**-133,
    "float8": 2.0**-9,
}
TRANSCENDENTAL_ULPS = 8
"""Allowance, in ulps of the computing type, for an element-wise formula with a transcendental (exp, tanh, erfc,
sqrt) and a few arithmetic roundings: NumPy documents at most 4 ulp for its float32 ``exp``/``tanh`` and each further
operation adds half an ulp; 8 leaves room without hiding a wrong formula or constant (those err by 1e-4 or more)."""

LOW_PRECISION_INPUT = {"tf32", "float16", "bfloat16", "float8"}


def eps(name: str) -> float:
    return EPS[name]


def tiny(name: str) -> float:
    return TINY[name]


def compute_type(dtype: str) -> str:
    """The type the device computes element-wise and reduction work of ``dtype`` data in (the rule of the HAL:
    low-precision floats are computed in float32 and rounded once into the result)."""
    return "float64" if dtype == "float64" else "float32"


def wide(x: np.ndarray) -> np.ndarray:
    """``x`` exactly in float64 (int64 for ints, bool stays bool)."""
    if x.dtype.kind == "b":
        return x.copy()
    if x.dtype.kind in "iu":
        return x.astype(np.int64)
    return x.astype(np.float64)


# -- data -----------------------------------------------------------------------------------------------------------


def values(
    rng: np.random.Generator, dtype: np.dtype, shape: Sequence[int], scale: float = 1.0, *, floor: float = 0.0
) -> np.ndarray:
    """Random data of ``dtype`` (never all zeros): normal floats (clipped to ±6) times ``scale`` (magnitudes below
    ``floor * scale`` are raised to it, to keep low-precision inputs in their normal range), full-range ints, fair
    bools."""
    shape = tuple(shape)
    if dtype.kind == "b":
        out = rng.random(shape) < 0.5
    elif dtype.kind == "i":
        info = np.iinfo(dtype)
        out = rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)
    else:
        z = np.clip(rng.standard_normal(shape), -6.0, 6.0)  # 6 * 1e4 stays below float16's largest, 65504
        if floor:
            z = np.sign(z + (z == 0)) * np.maximum(np.abs(z), floor)
        out = (z * scale).astype(dtype)
    if out.size and not out.any():
        out.reshape(-1)[0] = 1
    return out


def small_ints(rng: np.random.Generator, dtype: np.dtype, shape: Sequence[int], bound: int = 8) -> np.ndarray:
    """Ints in [-bound, bound] (never all zeros)."""
    out = rng.integers(-bound, bound, size=tuple(shape), endpoint=True).astype(dtype)
    if out.size and not out.any():
        out.reshape(-1)[0] = 1
    return out


def round_to(x: np.ndarray, arithmetic: str) -> F64:
    """float64 ``x`` as the units of ``arithmetic`` read it (round to nearest, ties to even), back in float64.

    TF32 keeps float32's exponent and 11 significant bits; the inputs must be normal float32 numbers.
    """
    x = np.asarray(x, np.float64)
    if arithmetic == "tf32":
        mantissa, exponent = np.frexp(x.astype(np.float32).astype(np.float64))
        return np.ldexp(np.rint(mantissa * 2.0**11), exponent - 11)
    if arithmetic == "float8":
        return x.astype(ml_dtypes.float8_e4m3fn).astype(np.float64)
    if arithmetic in ("float16", "bfloat16", "float32"):
        return x.astype(np.dtype(ml_dtypes.bfloat16) if arithmetic == "bfloat16" else arithmetic).astype(np.float64)
    return x


# -- element-wise ---------------------------------------------------------------------------------------------------


def gelu(x: np.ndarray, approximate: str = "none") -> F64:
    """GELU in float64 without cancellation: ``x·Φ(x) = 0.5·x·erfc(-x/√2)`` (``math.erfc``: 1 + erf(t) loses
    every digit for t < -6), and the tanh form as ``x / (1 + exp(-2u))`` (= 0.5·x·(1 + tanh(u)), exactly)."""
    x = np.asarray(x, np.float64)
    if approximate == "tanh":
        u = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)
        with np.errstate(over="ignore"):
            return x / (1.0 + np.exp(-2.0 * u))
    erfc = np.vectorize(math.erfc, otypes=[np.float64])
    return 0.5 * x * erfc(-x / math.sqrt(2.0))


def sigmoid(x: np.ndarray) -> F64:
    x = np.asarray(x, np.float64)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def gelu_condition(x: np.ndarray) -> F64:
    """How much the erf form amplifies the rounding of its argument ``t = x/√2``: ``d log erfc(t) / d log t`` is
    about ``2t² = x²`` in the lower tail (x < 0) and below 1 elsewhere."""
    x = np.asarray(x, np.float64)
    return np.where(x < 0, x * x, 1.0)


def elementwise_bound(
    ref: F64,
    dtype: str,
    scale: F64 | None = None,
    ulps: float = TRANSCENDENTAL_ULPS,
    condition: F64 | float = 0.0,
) -> F64:
    """One rounding into ``dtype`` plus ``ulps + condition`` ulps of the computing type relative to ``scale``
    (default ``|ref|``); ``condition`` is the function's condition number where the rounding of an intermediate
    argument is amplified (``gelu_condition``)."""
    c = compute_type(dtype)
    magnitude = np.abs(ref) if scale is None else scale
    return eps(dtype) * np.abs(ref) + (ulps + condition) * eps(c) * magnitude + 2 * (tiny(dtype) + tiny(c))


# -- reductions -----------------------------------------------------------------------------------------------------


def sum_bound(ref: F64, abs_sum: F64, k: int, dtype: str) -> F64:
    """A sum of ``k`` terms accumulated in the computing type and rounded once into ``dtype``.

    For float64 data the float64 reference carries an error of the same order as the device's, so the
    accumulation term is doubled.
    """
    acc = compute_type(dtype)
    own = 2 if acc == "float64" else 1
    return eps(dtype) * np.abs(ref) + own * (k + 1) * eps(acc) * abs_sum + 2 * tiny(dtype)


def softmax(x: np.ndarray, axis: int) -> F64:
    x = np.asarray(x, np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def softmax_bound(ref: F64, x: np.ndarray, axis: int, dtype: str) -> F64:
    """Relative to each element: the rounding of ``x - max`` (an absolute error of ``u·|x - max|`` in the exponent,
    so a relative one in the exponential), the exponential, the K-term sum and the division, in the computing type;
    then one rounding into ``dtype``; absolute underflow at both ends."""
    c = compute_type(dtype)
    x = np.asarray(x, np.float64)
    k = x.shape[axis]
    shift = np.abs(x - x.max(axis=axis, keepdims=True))
    relative = eps(dtype) + eps(c) * (shift + k + TRANSCENDENTAL_ULPS)
    return relative * ref + 4 * (tiny(dtype) + tiny(c))


# -- normalization over the last axis (layer_norm, rms_norm) --------------------------------------------------------


def layer_norm(
    x: np.ndarray, weight: np.ndarray | None, bias: np.ndarray | None, eps_: float, dtype: str
) -> tuple[F64, F64]:
    """The float64 result and its bound: first-order propagation of every rounding in the computing type ``c``
    (``eps(c)`` per operation, twice ``u`` for margin): the mean (a ``K``-term sum), the centred values, the
    variance of the centred values (``K`` squares summed), ``+ eps``, the square root, the division, then
    ``· weight`` and ``+ bias``; one rounding into ``dtype``. The accumulation terms double for float64."""
    c = eps(compute_type(dtype))
    own = 2 if dtype == "float64" else 1
    x = np.asarray(x, np.float64)
    if x.size == 0:
        return x.copy(), x.copy()
    k = x.shape[-1]
    mean = x.mean(axis=-1, keepdims=True)
    d = x - mean
    var = (d * d).mean(axis=-1, keepdims=True)
    sigma = np.sqrt(var + eps_)
    y = d / sigma
    d_err = c * np.abs(d) + (k + 2) * c * np.abs(x).mean(axis=-1, keepdims=True)  # the mean's error reaches all
    var_err = (k + 2) * c * var + (2 * np.abs(d) * d_err + d_err**2).mean(axis=-1, keepdims=True)
    sigma_rel = var_err / (2 * (var + eps_)) + 3 * c  # + eps, sqrt (and the relative error halves under it)
    y_err = d_err / sigma + np.abs(y) * (sigma_rel + c)
    w = np.ones(x.shape[-1]) if weight is None else np.asarray(weight, np.float64)
    b = np.zeros(x.shape[-1]) if bias is None else np.asarray(bias, np.float64)
    ref = y * w + b
    err = y_err * np.abs(w) + c * np.abs(y * w) + c * np.abs(ref)
    return ref, eps(dtype) * np.abs(ref) + 2 * own * err + 4 * (tiny(dtype) + tiny(compute_type(dtype)))


def rms_norm(x: np.ndarray, weight: np.ndarray | None, eps_: float, dtype: str) -> tuple[F64, F64]:
    """The float64 result and its bound: the mean of ``K`` squares (positive terms: ``(K + 2)·eps(c)`` relative),
    ``+ eps`` and the square root (relative error halved), the division and ``· weight``, all relative to the
    element; one rounding into ``dtype``. The accumulation terms double for float64."""
    c = eps(compute_type(dtype))
    own = 2 if dtype == "float64" else 1
    x = np.asarray(x, np.float64)
    if x.size == 0:
        return x.copy(), x.copy()
    k = x.shape[-1]
    s = (x * x).mean(axis=-1, keepdims=True)
    w = np.ones(x.shape[-1]) if weight is None else np.asarray(weight, np.float64)
    ref = x / np.sqrt(s + eps_) * w
    relative = (k + 2) * c * s / (2 * (s + eps_)) + 4 * c
    return ref, eps(dtype) * np.abs(ref) + 2 * own * relative * np.abs(ref) + 4 * (
        tiny(dtype) + tiny(compute_type(dtype))
    )


# -- matmul and convolution -----------------------------------------------------------------------------------------


def dot_bound(ref: F64, terms: F64, k: int, out: str, arithmetic: str, inputs_rounded: bool) -> F64:
    """A dot product of ``k`` terms (``terms`` = ``sum|a_i·b_i|`` per result) in ``arithmetic``.

    ``inputs_rounded``: the data were rounded to the arithmetic's type first (float32 data at TF32, FP16, BF16,
    MIXED or FP8), which errs by ``eps(arithmetic)`` relative per product.
    """
    acc = "float64" if arithmetic == "float64" else "float32"
    own = 2 if acc == "float64" else 1
    bound = eps(out) * np.abs(ref) + own * (k + 1) * eps(acc) * terms + 2 * tiny(out)
    if inputs_rounded:
        bound = bound + eps(arithmetic) * terms
    return bound


def conv2d(
    x: np.ndarray,
    w: np.ndarray,
    bias: np.ndarray | None = None,
    padding: tuple[int, int] = (0, 0),
    stride: tuple[int, int] = (1, 1),
    dilation: tuple[int, int] = (1, 1),
    groups: int = 1,
) -> np.ndarray:
    """NCHW × OIHW convolution, exactly (int64 for ints) or in float64, as a direct loop over the kernel window:
    one einsum per kernel position over the channels of each group."""
    exact = x.dtype.kind in "iu"
    x = x.astype(np.int64 if exact else np.float64)
    w = w.astype(np.int64 if exact else np.float64)
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (ph, pw), (sh, sw), (dh, dw) = padding, stride, dilation
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    padded = np.zeros((n, c, h + 2 * ph, wd + 2 * pw), x.dtype)
    padded[:, :, ph : ph + h, pw : pw + wd] = x
    og = o // groups
    out = np.zeros((n, o, oh, ow), x.dtype)
    for g in range(groups):
        xs = padded[:, g * cg : (g + 1) * cg]
        ws = w[g * og : (g + 1) * og]
        for i in range(kh):
            for j in range(kw):
                rows = xs[:, :, i * dh : i * dh + sh * (oh - 1) + 1 : sh, j * dw : j * dw + sw * (ow - 1) + 1 : sw]
                out[:, g * og : (g + 1) * og] += np.einsum("nchw,oc->nohw", rows, ws[:, :, i, j])
    if bias is not None:
        out += bias.astype(out.dtype).reshape(1, -1, 1, 1)
    return out


_BT = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], np.float64)
_G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], np.float64)
_AT = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], np.float64)


def winograd_terms(x: np.ndarray, w: np.ndarray, padding: tuple[int, int], groups: int) -> F64:
    """Per output of a 3×3, stride-1 convolution by Winograd F(2×2, 3×3) (Lavin and Gray, CVPR 2016): the magnitude
    ``sum_c |Aᵀ| ((|Bᵀ| |d_c| |B|) ⊙ (|G| |g_c| |Gᵀ|)) |A|`` that each rounding of the transforms, the products and
    the channel sum is relative to (the transforms sum up to 4 terms of either sign, so their intermediates can
    exceed the direct products ``|x|·|w|``)."""
    x, w = np.abs(x.astype(np.float64)), np.abs(w.astype(np.float64))
    n, _, h, wd = x.shape
    o, cg = w.shape[:2]
    ph, pw = padding
    oh, ow = h + 2 * ph - 2, wd + 2 * pw - 2
    th, tw = -(-oh // 2), -(-ow // 2)
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph + 2 * th - oh), (pw, pw + 2 * tw - ow)))
    tiles = sliding_window_view(padded, (4, 4), axis=(2, 3))[:, :, ::2, ::2]
    bt, g_, at = np.abs(_BT), np.abs(_G), np.abs(_AT)
    v = (bt @ tiles @ bt.T).reshape(n, groups, cg, th, tw, 4, 4)
    u = (g_ @ w @ g_.T).reshape(groups, o // groups, cg, 4, 4)
    m = np.einsum("ngctuij,gocij->ngotuij", v, u)
    y = (at @ m @ at.T).transpose(0, 1, 2, 3, 5, 4, 6).reshape(n, o, 2 * th, 2 * tw)
    return np.asarray(y[:, :, :oh, :ow])


# -- normalisation and pooling --------------------------------------------------------------------------------------


def batch_norm(
    x: np.ndarray, scale: np.ndarray, bias: np.ndarray, mean: np.ndarray, var: np.ndarray, eps_: float
) -> tuple[F64, F64]:
    """The inference form in float64, and the magnitude ``|x - mean|·|factor| + |bias|`` its roundings are
    relative to."""
    shape = (1, -1) + (1,) * (x.ndim - 2)
    x = x.astype(np.float64)
    factor = (scale.astype(np.float64) / np.sqrt(var.astype(np.float64) + eps_)).reshape(shape)
    centred = x - mean.astype(np.float64).reshape(shape)
    b = bias.astype(np.float64).reshape(shape)
    return centred * factor + b, np.abs(centred * factor) + np.abs(b)


def pool2d(
    x: np.ndarray, kind: str, kernel: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int]
) -> np.ndarray:
    """MAX (padding never wins: -inf, or the int type's minimum) or AVG (padded positions count as zeros and in
    the divisor), by a loop over the output positions: exact for MAX, float64 for AVG."""
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding
    n, c, h, w = x.shape
    oh, ow = (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1
    if kind == "MAX":
        fill = -np.inf if x.dtype.kind == "f" or x.dtype == ml_dtypes.bfloat16 else np.iinfo(x.dtype).min
        data = x.astype(np.float64) if x.dtype.kind != "i" else x.astype(np.int64)
    else:
        fill, data = 0.0, x.astype(np.float64)
    padded = np.full((n, c, h + 2 * ph, w + 2 * pw), fill, data.dtype)
    padded[:, :, ph : ph + h, pw : pw + w] = data
    out = np.empty((n, c, oh, ow), data.dtype)
    for i in range(oh):
        for j in range(ow):
            window = padded[:, :, i * sh : i * sh + kh, j * sw : j * sw + kw]
            out[:, :, i, j] = window.max(axis=(2, 3)) if kind == "MAX" else window.sum(axis=(2, 3)) / (kh * kw)
    return out


# -- comparison -----------------------------------------------------------------------------------------------------


def assert_within(got: np.ndarray, ref: np.ndarray, bound: np.ndarray, what: str) -> None:
    """``|got - ref| <= bound`` everywhere (NaN only where the reference is NaN; infinities equal)."""
    __tracebackhide__ = True
    assert got.shape == ref.shape, f"{what}: shape {got.shape}, reference {ref.shape}"
    if got.size == 0:
        return
    g, r = got.astype(np.float64), np.asarray(ref, np.float64)
    b = np.broadcast_to(bound, r.shape)
    with np.errstate(invalid="ignore"):
        ok = (np.abs(g - r) <= b) | (np.isnan(g) & np.isnan(r)) | ((g == r) & np.isinf(r))
    if not ok.all():
        i = tuple(int(v) for v in np.argwhere(~ok)[0])
        raise AssertionError(
            f"{what}: {int((~ok).sum())} of {ok.size} elements out of tolerance; first at {i}: got {g[i]!r}, "
            f"reference {r[i]!r}, |error| {abs(g[i] - r[i]):.3g} > bound {b[i]:.3g} "
            f"(largest error/bound {np.nanmax(np.abs(g - r) / np.maximum(b, 1e-300)):.3g})"
        )


def assert_exact(got: np.ndarray, ref: np.ndarray, what: str) -> None:
    __tracebackhide__ = True
    assert got.shape == ref.shape, f"{what}: shape {got.shape}, reference {ref.shape}"
    bad = got != ref
    if got.dtype.kind == "f" or got.dtype == ml_dtypes.bfloat16:
        bad &= ~(np.isnan(got.astype(np.float64)) & np.isnan(ref.astype(np.float64)))
    if bad.any():
        i = tuple(int(v) for v in np.argwhere(bad)[0])
        raise AssertionError(f"{what}: {int(bad.sum())} of {bad.size} differ; first at {i}: {got[i]!r} != {ref[i]!r}")
