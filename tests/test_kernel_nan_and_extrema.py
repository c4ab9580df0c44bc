"""What a math built-in gives for a NaN argument, and ``min``/``max``/``fmin``/``fmax`` at NaNs and signed zeros,
held to the real devices bit for bit (OpenCL C 1.2 leaves NaN signs unspecified and ``max`` of a NaN undefined;
a kernel sees both through ``as_uint``, ``signbit`` and the value ``max(x, 0.0f)`` gives).

Measured on PoCL 3.1 and Oclgrind 21.10: a NaN argument's NaN is the result (``acos(-NaN)`` is -NaN on Oclgrind,
which calls the C library; PoCL gives +NaN for many), and ``max``/``min``/``fmax``/``fmin`` are x86's
``maxss``/``minss``, ``x > y ? x : y``: ``max(NaN, 1.5f)`` is 1.5, ``max(1.5f, NaN)`` NaN,
``fmax(0.0f, -0.0f)`` -0.0 (and so ``maxmag``, ``minmag`` and ``clamp`` at equal zeros). The simulator gave
NumPy's: ``acos(NaN)`` -NaN, ``cospi``/``logb``/``fdim``/``atan2`` of -NaN +NaN, ``max`` of a NaN always NaN,
``fmax(0.0f, -0.0f)`` and ``clamp(0.0f, -0.0f, 1.0f)`` +0.0."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import run_arrays

import wia_hal as wia

PROPAGATED = ["acos", "acospi", "cospi", "logb", "tanh", "sqrt", "sin", "log", "atan2(X, 1.5f)", "atan2(1.5f, X)",
              "atan2pi(1.5f, X)", "fdim(X, 1.5f)", "fdim(1.5f, X)", "fmod(X, 1.5f)", "hypot(X, 1.5f)"]  # fmt: skip
"""Calls of the NaN ``X`` whose result is ``X`` itself, sign and payload (``X`` alone: the function of ``X``)."""

NANS = np.array([0x7FC00000, 0xFFC00000, 0x7FC01234, 0xFFC00042], np.uint32)


def _call(template: str) -> str:
    return template if "(" in template else f"{template}(X)"


def test_a_nan_argument_is_the_result(device_ctx: wia.Context, request: pytest.FixtureRequest) -> None:
    calls = [_call(c) for c in PROPAGATED]
    body = "\n".join(f"    out[{k} * n + i] = as_uint({c.replace('X', 'x')});" for k, c in enumerate(calls))
    source = f"""__kernel void k(__global uint* out, __global const float* in, int n) {{
    const int i = get_global_id(0);
    const float x = in[i];
{body}
}}"""
    out = np.zeros(len(calls) * NANS.size, np.uint32)
    got, _ = run_arrays(device_ctx, source, "k", [out, NANS.view(np.float32)], NANS.size, 1, np.int32(NANS.size))
    got = got.reshape(len(calls), NANS.size)
    if request.node.callspec.params.get("device_ctx") == "pocl":  # (PoCL gives +NaN for several: a NaN is all)
        assert np.isnan(got.view(np.float32)).all(), calls
        return
    for call, row in zip(calls, got, strict=True):
        assert [hex(v) for v in row] == [hex(v) for v in NANS], call


EXTREMA = [
    ("max(X, Y)", [(np.nan, 1.5, 1.5), (1.5, np.nan, np.nan), (0.0, -0.0, -0.0), (-0.0, 0.0, 0.0), (2.0, 1.0, 2.0)]),
    ("min(X, Y)", [(np.nan, 1.5, 1.5), (1.5, np.nan, np.nan), (0.0, -0.0, -0.0), (-0.0, 0.0, 0.0), (2.0, 1.0, 1.0)]),
    ("fmax(X, Y)", [(np.nan, 1.5, 1.5), (1.5, np.nan, 1.5), (0.0, -0.0, -0.0), (-0.0, 0.0, 0.0), (2.0, 1.0, 2.0)]),
    ("fmin(X, Y)", [(np.nan, 1.5, 1.5), (1.5, np.nan, 1.5), (0.0, -0.0, -0.0), (-0.0, 0.0, 0.0), (2.0, 1.0, 1.0)]),
    ("max(X, (T)0)", [(np.nan, 0, 0.0), (-0.0, 0, 0.0), (-3.0, 0, 0.0), (3.0, 0, 3.0)]),  # a ReLU of a NaN is 0
    # fmax and fmin at equal magnitudes, and clamp's fmin(fmax(x, lo), hi): their rule at equal zeros too
    ("maxmag(X, Y)", [(0.0, -0.0, -0.0), (-0.0, 0.0, 0.0), (1.0, -1.0, 1.0), (-1.0, 1.0, 1.0), (-2.0, 1.0, -2.0)]),
    ("minmag(X, Y)", [(0.0, -0.0, -0.0), (-0.0, 0.0, 0.0), (1.0, -1.0, -1.0), (-1.0, 1.0, -1.0), (-2.0, 1.0, 1.0)]),
    ("clamp(X, Y, (T)1)", [(0.0, -0.0, -0.0), (-0.0, 0.0, 0.0), (np.nan, 0.5, 0.5), (2.0, -1.0, 1.0)]),
    ("clamp(X, (T)-1, Y)", [(0.0, -0.0, -0.0), (-0.0, 0.0, 0.0), (np.nan, 0.5, -1.0), (-2.0, 0.5, -1.0)]),
]


@pytest.mark.parametrize(("call", "rows"), EXTREMA, ids=[c for c, _ in EXTREMA])
@pytest.mark.parametrize("t", ["float", "double"])
def test_extrema_at_nans_and_signed_zeros(
    device_ctx: wia.Context, call: str, rows: list[tuple[float, float, float]], t: str
) -> None:
    dtype = np.float32 if t == "float" else np.float64
    a, b, expected = (np.array(column, dtype) for column in zip(*rows, strict=True))
    source = f"""__kernel void k(__global {t}* out, __global const {t}* x, __global const {t}* y) {{
    const int i = get_global_id(0);
    out[i] = {call.replace("X", "x[i]").replace("Y", "y[i]").replace("T", t)};
}}"""
    (got, _, _) = run_arrays(device_ctx, source, "k", [np.zeros(a.size, dtype), a, b], a.size, 1)
    bits = np.uint32 if t == "float" else np.uint64
    assert [hex(v) for v in got.view(bits)] == [hex(v) for v in expected.view(bits)], call
