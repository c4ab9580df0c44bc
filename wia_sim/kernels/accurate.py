"""Float built-ins that "evaluate in float64, round once" gets wrong, computed to OpenCL C 1.2's accuracy (Table
7.1) and special values (7.5, C99 Annex F.9) for ``float`` and ``double`` alike: a fused ``fma`` (0 ulp), ``round``
halfway away from zero (0 ulp), ``powr``'s own special cases (7.5.1), the pi functions with an exact argument
reduction, ``rootn`` and the Euclidean norm without overflow or underflow in between, a double's ``cbrt`` where
glibc's is past Table 7.2's bound, and ``remainder``/``remquo`` exact on whole arrays. Found by a sweep against
PoCL 3.1, Oclgrind 21.10 and a 200-bit reference (glibc, mpmath, exact fractions), and by ArrayFire's math
kernels.

All take and give float64 arrays; a ``float`` argument is exact in float64, so what holds for ``double`` holds
for it before the one rounding to float32 (``fma``'s is made safe for that rounding by rounding to odd).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "cbrt",
    "cospi",
    "erf",
    "erfc",
    "fma",
    "norm",
    "powr",
    "remquo",
    "rootn",
    "round_half_away",
    "sinpi",
    "tanpi",
    "tgamma_pole",
]

Array = NDArray[Any]

_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitting constant for 53-bit doubles (Dekker 1971)
_PI_HI = math.pi
_PI_LO = 1.2246467991473532e-16  # pi - float64(pi), so that pi * f is taken to about 2**-106 (Table 7.1: 4 ulp)


def _two_sum(a: Array, b: Array) -> tuple[Array, Array]:
    """``s + e == a + b`` exactly, ``s`` the rounded sum (Knuth's TwoSum: no condition on the operands' sizes)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_product(a: Array, b: Array) -> tuple[Array, Array]:
    """``p + e == a * b`` exactly (Dekker's product with Veltkamp's splitting), when neither operand is beyond
    2**995 nor the product's low part below the normal range: ``fma`` checks that first."""
    p = a * b
    ca, cb = _SPLIT * a, _SPLIT * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd(s: Array, e: Array) -> Array:
    """The exact ``s + e`` (``s`` its rounding to nearest) rounded to odd: ``s`` where exact, else whichever of ``s``
    and its neighbour toward ``e`` has an odd last bit. Rounding that once more to fewer bits (2 or more fewer)
    rounds the exact value correctly (Boldo and Melquiond 2008)."""
    odd = (s.view(np.int64) & 1).astype(bool)
    step = np.nextafter(s, np.where(e > 0, np.inf, -np.inf))
    return np.where((e == 0) | odd, s, step)


def fma(a: Array, b: Array, c: Array, single: bool) -> Array:
    """``a * b + c`` rounded once (Table 7.1: correctly rounded). ``single``: the operands are floats, whose product
    float64 holds exactly; the sum is rounded to odd for the caller's rounding to float32 (53 >= 2 * 24 + 2 bits).
    Doubles: Boldo and Melquiond's emulated FMA (exact product, TwoSum, the low parts rounded to odd), and exact
    fractions for the lanes at the edges of the exponent range where the exact product does not hold."""
    a, b, c = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64))
    with np.errstate(all="ignore"):
        plain = a * b + c
        if single:
            s, e = _two_sum(a * b, c)  # (a float's product is exact in float64)
            return np.where(np.isfinite(plain), _round_to_odd(s, e), plain)
        uh, ul = _two_product(a, b)
        th, tl = _two_sum(c, uh)
        v = _round_to_odd(*_two_sum(tl, ul))
        fused = th + v
        finite = np.isfinite(a) & np.isfinite(b)
        nonzero = finite & np.isfinite(c) & (a != 0) & (b != 0)  # (a zero product: plain is exact, a zero's sign too)
        product = np.abs(uh)  # (uh is a * b, rounded)
        tiny = product < 2.0**-969  # the product's low part would be below the normal range (or all of it)
        # (and where a partial sum overflowed: c near the largest double, the exact result finite or not)
        edge = nonzero & ((np.maximum(np.abs(a), np.abs(b)) > 2.0**995) | tiny | (product > 2.0**1000))
        edge |= nonzero & np.isfinite(c) & ~np.isfinite(fused)
    out = np.where(nonzero, fused, np.where(finite & np.isinf(c), c, plain))  # (a finite product cannot cancel inf)
    for k in np.flatnonzero(edge):
        out.flat[k] = _fma_exact(float(a.flat[k]), float(b.flat[k]), float(c.flat[k]))
    return out


def _fma_exact(a: float, b: float, c: float) -> float:
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    if exact == 0:
        return a * b + c  # the sign of an exact zero: IEEE 754's for the sum, which float64 gives
    try:
        return float(exact)  # (Fraction's float() rounds to nearest, ties to even)
    except OverflowError:
        return math.inf if exact > 0 else -math.inf


def cbrt(x: Array, y: Array) -> Array:
    """The cube root of doubles ``x`` from ``y``, one within a few ulp (the C library's: glibc's is up to 2.7 ulp
    off, past Table 7.2's 2 for ``double``): one Newton step whose residual ``x - y**3`` is exact (Dekker's
    products; ``x - q`` is, ``q`` within a factor 2 of ``x``), which leaves about half an ulp. The step runs on
    ``x`` scaled by ``2**(-3k)`` to near 1 and ``y`` by ``2**-k``, both exact, and its root is scaled back exactly
    (a double's cube root is a normal number): the products stay in the normal range for every ``x``, denormals
    and the largest included. Zeros, infinities and NaN keep ``y``."""
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    usable = np.isfinite(x) & (x != 0)
    k = np.where(usable, np.round(np.frexp(x)[1] / 3.0), 0).astype(np.int32)
    xs, ys = np.ldexp(x, -3 * k), np.ldexp(y, -k)
    with np.errstate(all="ignore"):
        p, e = _two_product(ys, ys)
        q, f = _two_product(p, ys)
        refined = np.ldexp(ys + ((xs - q) - (f + e * ys)) / (3.0 * p), k)
    return np.where(usable & np.isfinite(refined), refined, y)


_BERNOULLI = (Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30), Fraction(5, 66),
              Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510))  # fmt: skip
"""B_2, B_4, ..., B_16 (DLMF 24.2.1, Table 24.2.1)."""
_EULER_GAMMA = 0.5772156649015329
"""The Euler-Mascheroni constant, 0.57721 56649 01532 86060... (DLMF 5.2.3), rounded to double."""


def _zeta_minus_one(s: int, n: int = 12) -> float:
    """zeta(s) - 1 for an integer s >= 2, within an ulp: the sum to ``n - 1`` and Euler-Maclaurin's tail (DLMF
    25.2.9) with the Bernoulli terms above (checked against a 200-bit zeta for s = 2..39)."""
    terms = [float(k) ** -s for k in range(2, n)] + [n ** (1 - s) / (s - 1), 0.5 * n**-s]
    rising = Fraction(s)  # s (s + 1) ... (s + 2j - 2)
    for j, b in enumerate(_BERNOULLI, start=1):
        terms.append(float(b / math.factorial(2 * j) * rising) * float(n) ** (-s - 2 * j + 1))
        rising *= (s + 2 * j - 1) * (s + 2 * j)
    return math.fsum(terms)


_LGAMMA_TERMS = 32
_ZETAS = [(k, _zeta_minus_one(k)) for k in range(2, _LGAMMA_TERMS)]  # zeta(k) - 1, each made once
_ABOUT_ONE = [0.0, -_EULER_GAMMA] + [(-1) ** k * (1.0 + zm1) / k for k, zm1 in _ZETAS]
_ABOUT_TWO = [0.0, 1.0 - _EULER_GAMMA] + [(-1) ** k * zm1 / k for k, zm1 in _ZETAS]
_ABOUT_THREE_HALVES = [-0.12078223763524522, 0.03648997397857652] + [
    (-1) ** k * ((2.0**k - 1.0) * zm1 - 1.0) / k for k, zm1 in _ZETAS
]
"""ln Gamma(c + z) as power series in z about c = 1, 2 and 3/2: the coefficients of 1, z, z**2, ... (DLMF 5.7.3,
with ln(1 + z) added for 2; about 3/2 from the polygamma values psi^(n)(3/2) = (-1)^(n+1) n! ((2^(n+1) - 1)
zeta(n+1) - 2^(n+1)), DLMF 5.15.3 and 5.15.5, with ln Gamma(3/2) = ln(sqrt(pi) / 2) and psi(3/2) = 2 - gamma -
2 ln 2, DLMF 5.4.6 and 5.4.13, each rounded to double)."""

_LGAMMA_PIECES = (  # (from, to, centre, coefficients, shift): x - shift in the series' window, then recurred
    (0.5, 0.75, 1.5, _ABOUT_THREE_HALVES, 1.0),
    (0.75, 1.25, 1.0, _ABOUT_ONE, 0.0),
    (1.25, 1.75, 1.5, _ABOUT_THREE_HALVES, 0.0),
    (1.75, 2.25, 2.0, _ABOUT_TWO, 0.0),
    (2.25, 2.75, 1.5, _ABOUT_THREE_HALVES, -1.0),
    (2.75, 3.25, 2.0, _ABOUT_TWO, -1.0),
)
"""Where each series is summed: within 1/4 of its centre, the arguments a quarter beyond moved there by
Gamma(x + 1) = x Gamma(x)."""


def _series(z: Array, coefficients: list[float]) -> Array:
    """sum c_k z**k, its constant and linear terms added last, the linear one rounded once (the larger part)."""
    tail = np.zeros_like(z)
    for c in reversed(coefficients[2:]):
        tail = tail * z + c
    lead, error = _two_product(np.full_like(z, coefficients[1]), z)
    return np.asarray(coefficients[0] + (lead + (error + tail * z * z)), np.float64)


def lgamma(x: Array, y: Array) -> Array:
    """ln |Gamma(x)| of doubles ``x`` from ``y``, Python's ``math.lgamma`` (CPython's own Lanczos sum), which is
    up to 61 ulp off on [0.5, 3] and whose relative error near the zeros at 1 and 2 grows without bound (2,344 ulp
    at 0x1.001420ca43d10p+0, where PoCL 3.1's is 0.66, found by the math probe; billions a few ulp from 1): on
    [0.5, 3.25) the series about 1, 3/2 or 2 instead (``_LGAMMA_PIECES``), with a logarithm where the argument was
    moved, within about 2 ulp."""
    x = np.asarray(x, np.float64)
    out = np.array(y, np.float64, copy=True)
    for lo, hi, centre, coefficients, shift in _LGAMMA_PIECES:
        piece = (x >= lo) & (x < hi)
        if not piece.any():
            continue
        xs = x[piece]
        z = xs + shift - centre  # (exact: Sterbenz, the shift and the centre small multiples of 1/2)
        value = _series(z, coefficients)
        if shift > 0:  # ln Gamma(x) = ln Gamma(x + 1) - ln x
            value = value - np.log(xs)
        elif shift < 0:  # ln Gamma(x) = ln Gamma(x - 1) + ln(x - 1)
            value = value + np.log(xs - 1.0)
        out[piece] = value
    return out


def round_half_away(x: Array) -> Array:
    """``round``: the nearest integer, halfway cases away from zero (``x - trunc(x)`` is exact, so
    0.49999999999999994 stays 0, where ``floor(x + 0.5)`` rounds the sum up to 1)."""
    t = np.trunc(x)
    with np.errstate(invalid="ignore"):
        return np.where(np.abs(x - t) >= 0.5, t + np.copysign(1.0, x), t)


# W. J. Cody, "Rational Chebyshev approximations for the error function", Math. Comp. 23 (1969) 631-638, with the
# coefficients of SPECFUN's CALERF (netlib.org/specfun/erf, Cody 1990): near-minimax rational approximations to 18
# significant digits, of erf on |x| <= 0.46875 (A/B), erfc on 0.46875 < |x| <= 4 (C/D) and on |x| > 4 (P/Q).
_ERF_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02, 3.20937758913846947e03,
          1.85777706184603153e-1)  # fmt: skip
_ERF_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03, 2.84423683343917062e03)
_ERFC_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01, 2.98635138197400131e02,
           8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03, 1.23033935479799725e03,
           2.15311535474403846e-8)  # fmt: skip
_ERFC_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02, 1.62138957456669019e03,
           3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03, 1.23033935480374942e03)  # fmt: skip
_ERFC_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1, 1.60837851487422766e-2,
           6.58749161529837803e-4, 1.63153871373020978e-2)  # fmt: skip
_ERFC_Q = (2.56852019228982242e00, 1.87295284992346047e00, 5.27905102951428412e-1, 6.05183413124413191e-2,
           2.33520497626869185e-3)  # fmt: skip
_ERF_SMALL, _ERFC_ZERO = 0.46875, 27.3  # (CALERF's THRESH; past 27.3 erfc rounds to 0 in double: 4e-326)


def _rational(z: Array, num: tuple[float, ...], den: tuple[float, ...]) -> Array:
    """CALERF's Horner scheme: ``num``'s last coefficient leads, ``den`` is monic, both end in a constant term (in
    place: two arrays however many terms)."""
    xnum, xden = num[-1] * z, np.array(z)
    for a, b in zip(num[:-2], den[:-1], strict=False):
        xnum += a
        xnum *= z
        xden += b
        xden *= z
    xnum += num[-2]
    xden += den[-1]
    xnum /= xden
    return xnum


def _gauss_tail(y: Array, r: Array) -> Array:
    """``exp(-y * y) * r`` with ``y * y`` split at a sixteenth so that the exponent's rounding costs nothing (the
    small factor last: a denormal result is rounded once)."""
    ysq = np.trunc(y * 16.0)
    ysq /= 16.0
    low = (y - ysq) * (y + ysq)
    np.negative(low, out=low)
    r *= np.exp(low, out=low)
    np.multiply(ysq, ysq, out=ysq)
    np.negative(ysq, out=ysq)
    return np.exp(ysq, out=ysq) * r


def _erf_parts(x: Array) -> tuple[Array, Array, Array]:
    """``erf(x)`` where ``|x| <= 0.46875`` and ``erfc(|x|)`` elsewhere (NaN stays), and the mask of the first: each
    piece computed on its own lanes."""
    x = np.asarray(x, np.float64)
    y = np.abs(x)
    small = y <= _ERF_SMALL
    out = np.array(x, np.float64)  # (NaN lanes keep theirs)
    at_small, at_mid, at_big = (np.flatnonzero(m) for m in (small, (y > _ERF_SMALL) & (y <= 4.0), y > 4.0))
    with np.errstate(all="ignore"):
        ys = y.take(at_small)
        out.put(at_small, x.take(at_small) * _rational(ys * ys, _ERF_A, _ERF_B))
        ym = y.take(at_mid)
        out.put(at_mid, _gauss_tail(ym, _rational(ym, _ERFC_C, _ERFC_D)))
        yb = y.take(at_big)
        z = 1.0 / (yb * yb)
        tail = (0.56418958354775628695 - z * _rational(z, _ERFC_P, _ERFC_Q)) / yb  # (1 / sqrt(pi))
        out.put(at_big, np.where(yb >= _ERFC_ZERO, 0.0, _gauss_tail(yb, tail)))  # (where y * y would overflow too)
    return out, small, x < 0


def erf(x: Array) -> Array:
    """The error function on whole arrays, for ``float`` and ``half`` results (``double`` keeps the C library's, lane
    by lane): Cody's approximations, within 2 double ulp of glibc's (``erfc`` 5) on 2 million points over
    [-30, 30], so the float rounded from it is glibc's but at the rare near-ties (Table 7.1 allows 16 ulp); 40 ms
    for a million lanes, ``math.erf`` lane by lane 100 ms."""
    r, small, negative = _erf_parts(x)
    whole = (0.5 - r) + 0.5
    return np.where(small, r, np.where(negative, -whole, whole))


def erfc(x: Array) -> Array:
    """The complementary error function on whole arrays (``erf``'s way): 2 - erfc(|x|) for negative ``x``."""
    r, small, negative = _erf_parts(x)
    return np.where(small, 1.0 - r, np.where(negative, 2.0 - r, r))


def remquo(x: Array, y: Array, bits: int) -> tuple[Array, Array]:
    """IEEE 754's ``remainder(x, y)`` (``x - n y``, ``n`` the quotient rounded to nearest, ties to even) and the low
    ``bits`` bits of ``|n|`` with the quotient's sign, exactly and on whole arrays (it was Python's
    ``math.remainder`` and fractions, lane by lane). ``fmod`` is exact, so ``x`` reduced modulo ``2**(bits+1) |y|``
    keeps ``n``'s low bits and its parity (the tie's rule); the reduced quotient, below ``2**(bits+1)``, is then an
    integer that one division gets to well within a half. Past the largest double, ``2**(bits+1) |y|`` is infinite
    and ``|x| / |y|`` is below ``2**(bits+1)`` already. NaN (quotient 0) where ``x`` is infinite or NaN or ``y`` is
    zero or NaN; ``x`` itself (quotient 0) where ``y`` is infinite."""
    x, y = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(y, np.float64))
    ax, ay = np.abs(x), np.abs(y)
    with np.errstate(all="ignore"):
        a = np.fmod(ax, ay * 2.0 ** (bits + 1))
        r = np.fmod(a, ay)  # (both exact)
        n = np.rint((a - r) / ay)  # the truncated quotient of the reduced x
        # past half of |y|, or at half with an even quotient to reach, the remainder is r - |y| (exact: Sterbenz)
        up = (r > ay - r) | ((r == ay - r) & (np.fmod(n, 2.0) == 1))
        r = np.where(up, r - ay, r)
        n = np.where(up, n + 1, n)
    nan = ~np.isfinite(x) | np.isnan(y) | (y == 0)
    keep = np.isinf(y) & ~nan
    r = np.where(nan, np.nan, np.where(keep, x, np.where(np.signbit(x), -r, r)))  # (a zero remainder: x's sign)
    q = np.where(nan | keep, 0, np.fmod(np.where(nan | keep, 0.0, n), 2.0**bits)).astype(np.int64)
    return r, np.where(np.signbit(x) != np.signbit(y), -q, q)


def powr(x: Array, y: Array) -> Array:
    """``powr``: ``exp2(y * log2(x))`` for ``x >= 0``, with 7.5.1's special cases, not ``pow``'s: NaN for ``x < 0``,
    for ``powr(+-0, +-0)``, ``powr(+inf, +-0)``, ``powr(+1, +-inf)`` and any NaN; ``-0`` is ``+0``."""
    with np.errstate(all="ignore"):
        r = np.power(np.abs(x), y)
        nan = (x < 0) | np.isnan(x) | np.isnan(y)
        nan |= ((x == 0) & (y == 0)) | ((x == np.inf) & (y == 0)) | ((x == 1) & np.isinf(y))
    return np.where(nan, np.nan, r)


def _half_turns(r: Array) -> tuple[Array, Array]:
    """``r == f + n / 2`` with ``|f| <= 1/4`` and ``n`` an integer (both exact: ``r`` is below 2 in size)."""
    n = np.rint(2.0 * r)
    return r - 0.5 * n, n.astype(np.int64)


def _sin_cos_pi(f: Array) -> tuple[Array, Array]:
    """``sin(pi f)`` and ``cos(pi f)`` for ``|f| <= 1/4``, with pi taken to twice float64's precision."""
    angle = _PI_HI * f + _PI_LO * f
    return np.sin(angle), np.cos(angle)


def sinpi(x: Array) -> Array:
    with np.errstate(invalid="ignore"):
        r = np.fmod(x, 2.0)  # exact; sin(pi x) has period 2
        f, n = _half_turns(r)
        s, c = _sin_cos_pi(f)
        q = n % 4
        v = np.where(q == 0, s, np.where(q == 1, c, np.where(q == 2, -s, -c)))
    return np.where(r == np.trunc(r), np.copysign(0.0, x), v)  # sinpi(n): a zero of x's sign


def cospi(x: Array) -> Array:
    with np.errstate(invalid="ignore"):
        r = np.fmod(np.abs(x), 2.0)
        f, n = _half_turns(r)
        s, c = _sin_cos_pi(f)
        q = n % 4
        v = np.where(q == 0, c, np.where(q == 1, -s, np.where(q == 2, -c, s)))
    return np.where(r - 0.5 == np.trunc(r - 0.5), 0.0, v)  # cospi(n + 1/2) is +0


def tanpi(x: Array) -> Array:
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.fmod(x, 1.0)  # tan(pi x) has period 1
        f, n = _half_turns(r)
        s, c = _sin_cos_pi(f)
        v = np.where(n % 2 == 0, s / c, -c / s)
        v = np.where(np.abs(f) == 0.25, np.where(n % 2 == 0, 1.0, -1.0) * np.sign(f), v)  # tan(pi/4) is 1 exactly
        even = np.fmod(x, 2.0) == 0
        zero = np.where(even, np.copysign(0.0, x), -np.copysign(0.0, x))  # tanpi(n): +-0, the sign by n's parity
        half = np.where(np.fmod(x - 0.5, 2.0) == 0, np.inf, -np.inf)  # tanpi(n + 1/2): +inf for even n, else -inf
    return np.where(r == 0, zero, np.where(np.abs(r) == 0.5, half, v))


def rootn(x: Array, k: Array) -> Array:
    """``x`` to the power ``1/k``: 7.5's special cases from ``pow``'s rules, and for finite nonzero ``x`` the root
    taken as ``2**((log2(m) + rem) / |k|) * 2**q`` with ``|x| = m * 2**(q |k| + rem)``: the exponent is below 1 in
    size, so ``1/k``'s rounding costs nothing however large the result (``pow(|x|, 1.0 / k)`` lost 60 ulp at
    ``rootn(0x1p-1074, 3)``)."""
    k = np.asarray(k, np.int64)
    with np.errstate(all="ignore"):
        n = np.where(k == 0, 1, k)
        odd = (k % 2) != 0
        special = np.power(np.abs(x), 1.0 / n.astype(np.float64))
        special = np.where(odd, np.copysign(special, x), np.where(x < 0, np.nan, special))
        m, e = np.frexp(np.abs(x))
        size = np.abs(n)
        q = e.astype(np.int64) // size
        rem = e - q * size
        root = np.exp2(np.sign(n) * (np.log2(m) + rem) / size)
        root = np.ldexp(root, np.clip(np.sign(n) * q, -4000, 4000).astype(np.int32))
        root = np.where(odd, np.copysign(root, x), np.where(x < 0, np.nan, root))
    finite = np.isfinite(x) & (x != 0)
    return np.where(k == 0, np.nan, np.where(finite, root, special))


def tgamma_pole(x: float) -> float:
    """``tgamma`` where ``math.gamma`` raises, as F.9.5.4 gives it: a pole at +-0 (+-inf), NaN at the negative
    integers and -inf, and overflow to an infinity of the function's sign (for ``x`` in ``(-n, 1 - n)`` the sign of
    ``(-1)**n``: ``tgamma(-0x1p-1074)`` is -inf; it was NaN)."""
    if x == 0:
        return math.copysign(math.inf, x)
    if x > 0:
        return math.inf
    if math.isinf(x) or x == math.floor(x):
        return math.nan
    return -math.inf if math.ceil(-x) % 2 else math.inf


def norm(x: Array, vector: bool, double: bool = True) -> Array:
    """The Euclidean norm of the last axis (``vector``) or the magnitude: scaled by the largest element so that no
    square overflows or underflows (``length((double2)(1e200, 1e200))`` is 1.4e200, not inf), in extended precision
    where the platform has it (x86's 64-bit significand), so that a double norm is rounded about once: within
    0.5 ulp and a hair, where float64 arithmetic drifted to 2.5 ulp for a double4 (found by the CTS sweep).
    Elements of a narrower type (not ``double``) are summed in float64 as they are: their squares are exact there
    and 16 of them neither overflow nor underflow (float's range squared is inside double's), so the float result
    is the extended path's (equal on 7 million random float2-16 vectors over float's range) at an eighth of its
    cost."""
    if not vector:
        return np.asarray(np.abs(x))
    if not double:
        with np.errstate(all="ignore"):
            return np.asarray(np.sqrt(np.sum(x * x, axis=-1)))
    x = np.asarray(x, np.longdouble)
    with np.errstate(all="ignore"):
        m = np.max(np.abs(x), axis=-1)
        plain = np.sqrt(np.sum(x * x, axis=-1))
        scale = np.where((m > 0) & np.isfinite(m), m, 1.0)
        scaled = scale * np.sqrt(np.sum((x / scale[..., None]) ** 2, axis=-1))
    return np.asarray(np.where((m > 0) & np.isfinite(m), scaled, plain))
