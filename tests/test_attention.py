"""scaled_dot_product_attention: numerics on sim and reference against a float64 NumPy reference (GQA, causal,
masks, empty and non-contiguous inputs), the errors, and the FlashAttention / unfused cost model.

The error bound (docs/ops.md, "Beyond the spec: scaled dot-product attention"): a score ``s_j = scale·q·k_j`` is a
D-term dot product in the computing type ``c`` (float32, float64 for float64), erring by ``δs_j <= (D + 2)·eps(c)·
Σ|scale·q_d·k_jd|`` (plus one rounding of an additive mask's sum). An error ``δ`` in every score moves each
probability by at most ``2·δ`` relative (numerator and normalizer); the softmax itself adds ``eps(c)·(|s_j - max| +
Lk + TRANSCENDENTAL_ULPS)`` (:func:`numerics_reference.softmax_bound`), the probabilities' rounding to the
arithmetic ``eps(arithmetic)`` and the online rescaling of a fused kernel ``Lk·eps(c)``; the weighted sum adds
``(Lk + 1)·eps(c)`` (Higham eq. 4.4). All are relative to ``Σ_j p_j·|v_j|``; then one rounding into the dtype.
"""

from __future__ import annotations

import math
from typing import Any

import ml_dtypes
import numerics_reference as nr
import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wia_hal as wia
from wia_sim.costmodel import SPECIAL_FUNCTION_COST
from wia_sim.hwmodel import load_model
from wia_sim.library import attention as sim_attention
from wia_sim.library.attention_cost import (
    AttentionShape,
    flash_attention_cost,
    flash_blocks,
    keys_per_block,
    unfused_attention_cost,
    unfused_parts,
    visible_pairs,
)

E = wia.ErrorCode
F64 = npt.NDArray[np.float64]
DTYPES = {"float32": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float64": np.float64}
H100 = "nvidia-h100-sxm5-80gb"


def reference(
    q: np.ndarray,
    k: np.ndarray,
    v: np.ndarray,
    mask: np.ndarray | None = None,
    causal: bool = False,
    scale: float | None = None,
) -> tuple[F64, F64]:
    """The float64 result and its error bound (the module's docstring), element by element."""
    dtype = q.dtype.name
    c = nr.compute_type(dtype)
    q, k, v = (np.asarray(x, np.float64) for x in (q, k, v))
    group = q.shape[-3] // k.shape[-3]
    k, v = np.repeat(k, group, axis=-3), np.repeat(v, group, axis=-3)
    d, lq, lk = q.shape[-1], q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(d) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    delta = (d + 2) * nr.eps(c) * (np.abs(q * scale) @ np.abs(np.swapaxes(k, -1, -2)))
    if mask is not None and mask.dtype == np.bool_:
        s = np.where(mask, s, -np.inf)
    elif mask is not None:
        s = s + np.asarray(mask, np.float64)
        delta = delta + nr.eps(c) * np.abs(np.where(np.isfinite(s), s, 0))
    if causal:
        s = np.where(np.arange(lk) <= np.arange(lq)[:, None] + lk - lq, s, -np.inf)
    top = s.max(axis=-1, keepdims=True) if lk else np.full((*s.shape[:-1], 1), -np.inf)
    unseen = top == -np.inf
    with np.errstate(invalid="ignore"):
        p = np.exp(s - np.where(unseen, 0, top))
        total = p.sum(axis=-1, keepdims=True)
        probs = np.where(unseen, 0, p / np.where(unseen, 1, total))
        seen = np.isfinite(s)
        worst = np.where(seen, delta, 0).max(axis=-1, keepdims=True, initial=0)
        shift = np.where(seen, np.abs(s - top), 0).max(axis=-1, keepdims=True, initial=0)
    relative = (
        2 * worst
        + nr.eps(c) * (shift + 3 * lk + 1 + nr.TRANSCENDENTAL_ULPS)
        + (nr.eps(dtype) if dtype in ("float16", "bfloat16") else 0)
    )
    weight = probs @ np.abs(v)
    ref = probs @ v
    bound = nr.eps(dtype) * np.abs(ref) + relative * weight + 4 * (nr.tiny(dtype) + nr.tiny(c))
    return ref, bound


def random_data(rng: np.random.Generator, shape: tuple[int, ...], dtype: str, spread: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape) * spread).astype(DTYPES[dtype])


def _run(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None = None, **kw: Any) -> np.ndarray:
    m = None if mask is None else wia.tensor(mask)
    out = wia.scaled_dot_product_attention(wia.tensor(q), wia.tensor(k), wia.tensor(v), mask=m, **kw)
    return out.numpy()


def _check(got: np.ndarray, q: np.ndarray, k: np.ndarray, v: np.ndarray, **kw: Any) -> None:
    ref, bound = reference(q, k, v, **kw)
    assert got.dtype == q.dtype and got.shape == ref.shape
    err = np.abs(got.astype(np.float64) - ref)
    assert np.all(err <= bound), (
        f"worst excess {np.max(err - bound)} at {np.unravel_index(np.argmax(err - bound), err.shape)}"
    )


@pytest.fixture(params=["sim", "reference"])
def backend(request: pytest.FixtureRequest) -> str:
    if request.param == "reference":
        wia.set_backend("reference")
    return str(request.param)


# -- numerics -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_grouped_query_attention_matches_float64(backend: str, dtype: str) -> None:
    rng = np.random.default_rng()
    q, k, v = (
        random_data(rng, (2, 6, 5, 8), dtype),
        random_data(rng, (2, 2, 9, 8), dtype),
        random_data(rng, (2, 2, 9, 4), dtype),
    )
    _check(_run(q, k, v), q, k, v)
    _check(_run(q, k, v, scale=0.3), q, k, v, scale=0.3)


@pytest.mark.parametrize(("lq", "lk"), [(3, 7), (7, 7), (7, 3), (1, 6)])
def test_causal_is_aligned_at_the_bottom_right(backend: str, lq: int, lk: int) -> None:
    rng = np.random.default_rng()
    q, k, v = (
        random_data(rng, (3, lq, 4), "float32"),
        random_data(rng, (3, lk, 4), "float32"),
        random_data(rng, (3, lk, 5), "float32"),
    )
    got = _run(q, k, v, causal=True)
    _check(got, q, k, v, causal=True)
    assert np.all(got[:, : max(0, lq - lk)] == 0)  # queries before the first key see nothing
    if lq > 1:  # every query but the last misses a key
        assert not np.allclose(got, _run(q, k, v))


def test_bool_and_additive_masks_broadcast(backend: str) -> None:
    rng = np.random.default_rng()
    q, k, v = (
        random_data(rng, (2, 4, 5, 8), "float32"),
        random_data(rng, (2, 4, 6, 8), "float32"),
        random_data(rng, (2, 4, 6, 8), "float32"),
    )
    keep = rng.random((5, 6)) < 0.7  # one (Lq, Lk) mask for every batch and head
    _check(_run(q, k, v, keep), q, k, v, mask=keep)
    padding = np.ones((2, 1, 1, 6), bool)
    padding[1, ..., 4:] = False  # batch 1: its last two keys are padding
    got = _run(q, k, v, padding, causal=True)
    _check(got, q, k, v, mask=padding, causal=True)
    bias = random_data(rng, (4, 1, 6), "float32")
    bias[0, 0, 2] = -np.inf
    _check(_run(q, k, v, bias), q, k, v, mask=bias)


def test_a_query_that_sees_no_key_gives_zeros(backend: str) -> None:
    rng = np.random.default_rng()
    q, k, v = (
        random_data(rng, (2, 3, 4), "float16"),
        random_data(rng, (2, 5, 4), "float16"),
        random_data(rng, (2, 5, 4), "float16"),
    )
    keep = rng.random((2, 3, 5)) < 0.5
    keep[0, 1] = False
    bias = np.zeros((3, 5), np.float16)
    bias[2] = -np.inf
    got, additive = _run(q, k, v, keep), _run(q, k, v, bias)
    assert np.all(got[0, 1] == 0) and np.all(additive[:, 2] == 0)
    _check(got, q, k, v, mask=keep)
    none = _run(q, np.zeros((2, 0, 4), np.float16), np.zeros((2, 0, 3), np.float16))
    assert none.shape == (2, 3, 3) and np.all(none == 0)
    assert _run(q[:, :0], k, v).shape == (2, 0, 4)


def test_views_are_read_through_their_strides(backend: str) -> None:
    rng = np.random.default_rng()
    qs, ks, vs = (
        random_data(rng, (2, 5, 4, 8), "float32") for _ in range(3)
    )  # (batch, length, heads, dim), as projected
    q, k, v = (wia.transpose(wia.tensor(x), (0, 2, 1, 3)) for x in (qs, ks, vs))
    assert not q.is_contiguous
    got = wia.scaled_dot_product_attention(q, k, v, causal=True).numpy()
    _check(got, *(x.transpose(0, 2, 1, 3) for x in (qs, ks, vs)), causal=True)


def test_flash_and_unfused_give_the_same_numbers(backend: str) -> None:
    rng = np.random.default_rng()
    q, k, v = (
        random_data(rng, (4, 6, 16), "bfloat16"),
        random_data(rng, (2, 9, 16), "bfloat16"),
        random_data(rng, (2, 9, 16), "bfloat16"),
    )
    flash, unfused = _run(q, k, v, causal=True), _run(q, k, v, causal=True, implementation="unfused")
    np.testing.assert_array_equal(flash, unfused)


def test_sim_and_reference_agree_and_chunks_do_not_change_results(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng()
    q, k, v = (
        random_data(rng, (1, 4, 33, 8), "float32"),
        random_data(rng, (1, 2, 40, 8), "float32"),
        random_data(rng, (1, 2, 40, 8), "float32"),
    )
    whole = _run(q, k, v, causal=True)
    monkeypatch.setattr(sim_attention, "SCORE_CHUNK", 2 * 40 * 5)  # 5 queries of both heads at a time
    chunked = _run(q, k, v, causal=True)
    wia.set_backend("reference")
    on_reference = _run(q, k, v, causal=True)
    _check(chunked, q, k, v, causal=True)
    np.testing.assert_array_equal(whole, chunked)  # each row is computed the same way in any chunk
    _check(on_reference, q, k, v, causal=True)


@st.composite
def _cases(draw: st.DrawFn) -> dict[str, Any]:
    batch = tuple(draw(st.lists(st.integers(1, 2), max_size=2)))
    hkv, group = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    lq, lk, d, dv = draw(st.integers(0, 5)), draw(st.integers(0, 6)), draw(st.integers(1, 8)), draw(st.integers(1, 5))
    mask = draw(st.sampled_from(["none", "bool", "additive"]))
    mask_shape = tuple(draw(st.sampled_from([n, 1])) for n in (*batch, hkv * group, lq, lk))
    drop = draw(st.integers(0, len(mask_shape)))
    return {
        "q": (*batch, hkv * group, lq, d),
        "k": (*batch, hkv, lk, d),
        "v": (*batch, hkv, lk, dv),
        "dtype": draw(st.sampled_from(list(DTYPES))),
        "causal": draw(st.booleans()),
        "mask": mask,
        "mask_shape": mask_shape[drop:],
        "seed": draw(st.integers(0, 2**32 - 1)),
    }


@settings(max_examples=40, deadline=None)
@given(case=_cases())
def test_any_shape_dtype_and_mask_matches_float64(case: dict[str, Any]) -> None:
    rng = np.random.default_rng(case["seed"])
    dtype = case["dtype"]
    q, k, v = (random_data(rng, case[name], dtype, spread=2.0) for name in ("q", "k", "v"))
    mask = None
    if case["mask"] == "bool":
        mask = rng.random(case["mask_shape"]) < 0.6
    elif case["mask"] == "additive":
        mask = np.where(rng.random(case["mask_shape"]) < 0.2, -np.inf, rng.standard_normal(case["mask_shape"]))
        mask = mask.astype(DTYPES[dtype])
    _check(_run(q, k, v, mask, causal=case["causal"]), q, k, v, mask=mask, causal=case["causal"])


# -- errors -------------------------------------------------------------------------------------------------------


def _t(shape: tuple[int, ...], dtype: Any = np.float32) -> wia.Tensor:
    return wia.zeros(shape, dtype=dtype)


@pytest.mark.parametrize(
    ("args", "kwargs", "says"),
    [
        (((2, 4, 8), (2, 4), (2, 4, 8)), {}, "of one rank"),
        (((2, 4, 8), (2, 4, 8), (2, 4, 8)), {}, None),  # valid (a head axis, no batch): the control
        (((3, 2, 4, 8), (2, 2, 4, 8), (2, 2, 4, 8)), {}, "batch dimensions differ"),
        (((3, 4, 8), (2, 5, 8), (2, 6, 8)), {}, "same heads and length"),
        (((3, 4, 8), (3, 5, 4), (3, 5, 8)), {}, "head dimension 8 differs"),
        (((3, 4, 0), (3, 5, 0), (3, 5, 8)), {}, "at least 1"),
        (((3, 4, 8), (2, 5, 8), (2, 5, 8)), {}, "multiple of k and v's 2"),
        (((2, 4, 8), (2, 4, 8), (2, 4, 8)), {"scale": float("nan")}, "scale must be finite"),
        (((2, 4, 8), (2, 4, 8), (2, 4, 8)), {"scale": "0.1"}, "scale must be a number"),
        (((2, 4, 8), (2, 4, 8), (2, 4, 8)), {"implementation": "fast"}, "'flash', 'unfused'"),
        (((2, 4, 8), (2, 4, 8), (2, 4, 8)), {"causal": 1}, "causal must be True or False"),
    ],
)
def test_bad_shapes_and_arguments_are_invalid_value(
    ctx: wia.Context, args: tuple[tuple[int, ...], ...], kwargs: dict[str, Any], says: str | None
) -> None:
    tensors = [_t(shape) for shape in args]
    if says is None:
        assert wia.scaled_dot_product_attention(*tensors, **kwargs).shape == (2, 4, 8)
        return
    with pytest.raises(wia.WiaError, match=says) as e:
        wia.scaled_dot_product_attention(*tensors, **kwargs)
    assert e.value.code is E.INVALID_VALUE


def test_dtype_and_mask_errors(ctx: wia.Context) -> None:
    q = _t((2, 4, 8))
    cases = [
        ((_t((2, 4, 8), np.int32), _t((2, 4, 8), np.int32), _t((2, 4, 8), np.int32)), {}, "floating-point"),
        ((q, _t((2, 4, 8), np.float16), q), {}, "one dtype"),
        ((q, q, q), {"mask": _t((4, 4), np.float16)}, "bool .* or additive in q's dtype float32"),
        ((q, q, q), {"mask": _t((3, 4), np.bool_)}, r"does not broadcast to .* \(2, 4, 4\)"),
        ((q, q, q), {"mask": _t((1, 2, 4, 4), np.bool_)}, "does not broadcast"),
        ((q, q, q), {"mask": np.ones((4, 4), bool)}, "mask must be a wia Tensor"),
        ((q, q, 1.0), {}, "v must be a wia Tensor"),
    ]
    for args, kwargs, says in cases:
        with pytest.raises(wia.WiaError, match=says) as e:
            wia.scaled_dot_product_attention(*args, **kwargs)  # type: ignore[arg-type]
        assert e.value.code is E.INVALID_VALUE, says


# -- cost ---------------------------------------------------------------------------------------------------------


def _shape(b: int, hq: int, hkv: int, lq: int, lk: int, d: int = 128, **kw: Any) -> AttentionShape:
    return AttentionShape(b, hq, hkv, lq, lk, d, d, np.dtype(ml_dtypes.bfloat16), **kw)


@settings(max_examples=60, deadline=None)
@given(lq=st.integers(0, 40), lk=st.integers(0, 40))
def test_visible_pairs_is_the_count_of_the_causal_mask(lq: int, lk: int) -> None:
    counted = int(np.sum(np.arange(lk)[None, :] <= np.arange(lq)[:, None] + lk - lq))
    assert visible_pairs(lq, lk, causal=True) == counted
    assert visible_pairs(lq, lk, causal=False) == lq * lk


def test_flash_bytes_and_flops_match_the_closed_form() -> None:
    """[FA1] Algorithm 1 blocks on the H100's 227 KiB per work-group: M = 116,224 bf16 elements, Bc = ceil(M/4d) =
    227, Br = min(Bc, d) = 128; Q and O once, K and V once per query block (Tr = 4096/128 = 32)."""
    model = load_model(H100)
    s = _shape(2, 8, 8, 4096, 4096)
    assert flash_blocks(model, s) == (128, 227)
    cost = flash_attention_cost(model, "attention", s, "bfloat16")
    q_and_o = 2 * (2 * 8 * 4096 * 128 * 2)
    kv_per_pass = 2 * 8 * 4096 * 256 * 2
    assert cost.bytes == q_and_o + 32 * kv_per_pass
    pairs = 2 * 8 * 4096 * 4096
    per_score = 5 + SPECIAL_FUNCTION_COST
    assert cost.useful_flops == 4 * pairs * 128 + per_score * pairs + 2 * 8 * 4096 * 128
    causal = flash_attention_cost(model, "attention", _shape(2, 8, 8, 4096, 4096, causal=True), "bfloat16")
    keys = sum(min(4096, math.ceil(128 * (r + 1) / 227) * 227) for r in range(32))  # whole key blocks to the diagonal
    assert causal.bytes == q_and_o + 2 * 8 * keys * 256 * 2
    assert causal.useful_flops == (4 * 128 + per_score + 1) * 2 * 8 * (4096 * 4097 // 2) + 2 * 8 * 4096 * 128


def test_grouped_heads_share_their_key_value_reads() -> None:
    model = load_model(H100)
    mha = flash_attention_cost(model, "a", _shape(1, 8, 8, 1, 4096), "bfloat16")
    gqa = flash_attention_cost(model, "a", _shape(1, 8, 1, 1, 4096), "bfloat16")
    assert keys_per_block(_shape(1, 8, 1, 1, 4096), *flash_blocks(model, _shape(1, 8, 1, 1, 4096))) == [(8, 4096)]
    assert gqa.bytes < mha.bytes / 4


def test_decode_is_memory_bound_on_the_kv_cache_and_prefill_compute_bound() -> None:
    wia.set_backend("sim", hardware=H100, numerics=False)
    bf16 = ml_dtypes.bfloat16
    kv = (32, 8, 4096, 128)
    decode = wia.scaled_dot_product_attention(
        wia.empty((32, 64, 1, 128), dtype=bf16), wia.empty(kv, dtype=bf16), wia.empty(kv, dtype=bf16)
    )
    report = wia.explain(decode)
    kv_bytes = 2 * math.prod(kv) * 2
    assert report.bound == "memory" and kv_bytes <= report.bytes < 1.01 * kv_bytes
    big = (1, 64, 4096, 128)
    prefill = wia.scaled_dot_product_attention(
        wia.empty(big, dtype=bf16),
        wia.empty((1, 8, 4096, 128), dtype=bf16),
        wia.empty((1, 8, 4096, 128), dtype=bf16),
        causal=True,
    )
    assert wia.explain(prefill).bound == "compute"


def test_flash_is_cheaper_than_unfused_for_long_sequences_and_explain_says_which() -> None:
    model = load_model(H100)
    for n in (1024, 4096, 16384):
        s = _shape(1, 32, 8, n, n, causal=True)
        flash, unfused = (
            flash_attention_cost(model, "a", s, "bfloat16"),
            unfused_attention_cost(model, "a", s, "bfloat16"),
        )
        assert flash.duration_s < unfused.duration_s / 2, n
        assert flash.bytes < unfused.bytes
    wia.set_backend("sim", hardware=H100, numerics=False)
    q, kv = (
        wia.empty((1, 32, 4096, 128), dtype=ml_dtypes.bfloat16),
        wia.empty((1, 8, 4096, 128), dtype=ml_dtypes.bfloat16),
    )
    report = wia.explain(wia.scaled_dot_product_attention(q, kv, kv, implementation="unfused"))
    assert report.algorithm.startswith("UNFUSED(scores:") and "softmax" in report.algorithm
    assert [a.algorithm.split("(")[0] for a in report.alternatives] == ["FLASH", "UNFUSED"]


def test_unfused_costs_what_the_separate_ops_cost() -> None:
    wia.set_backend("sim", hardware=H100, numerics=False)
    bf16 = ml_dtypes.bfloat16
    q, k, v = (
        wia.empty((2, 4, 512, 64), dtype=bf16),
        wia.empty((2, 4, 512, 64), dtype=bf16),
        wia.empty((2, 4, 512, 64), dtype=bf16),
    )
    mask = wia.empty((512, 512), dtype=bf16)
    fused = wia.explain(wia.scaled_dot_product_attention(q, k, v, mask=mask, implementation="unfused"))
    scores = wia.matmul(q, wia.transpose(k, (0, 1, 3, 2)))
    scaled = wia.mul(scores, wia.empty((), dtype=bf16))
    masked = wia.add(scaled, mask)
    probs = wia.softmax(masked, axis=-1)
    out = wia.matmul(probs, v)
    reports = [wia.explain(t) for t in (scores, scaled, masked, probs, out)]
    assert fused.duration_ms == pytest.approx(sum(r.duration_ms for r in reports), rel=1e-3)
    assert fused.bytes == pytest.approx(sum(r.bytes for r in reports), rel=1e-3)
    parts = unfused_parts(
        load_model(H100),
        AttentionShape(2, 4, 4, 512, 512, 64, 64, np.dtype(bf16), "additive", 512 * 512 * 2),
        "bfloat16",
    )
    assert [p.name for p in parts] == ["scores", "scale", "mask", "softmax", "probs@v"]


def test_timing_only_runs_cost_the_same() -> None:
    rng = np.random.default_rng()
    q, k, v = (
        random_data(rng, (2, 4, 16, 8), "float16"),
        random_data(rng, (2, 2, 24, 8), "float16"),
        random_data(rng, (2, 2, 24, 8), "float16"),
    )
    reports = []
    for numerics in (True, False):
        wia.set_backend("sim", hardware="wia-tiny", numerics=numerics)
        out = wia.scaled_dot_product_attention(wia.tensor(q), wia.tensor(k), wia.tensor(v), causal=True)
        wia.context_synchronize(out.context)
        reports.append(wia.explain(out))
    timed, untimed = reports
    assert (timed.duration_ms, timed.bytes, timed.flops, timed.algorithm) == (
        untimed.duration_ms,
        untimed.bytes,
        untimed.flops,
        untimed.algorithm,
    )


def test_timing_only_runs_a_long_sequence_without_computing_it() -> None:
    wia.set_backend("sim", hardware=H100, numerics=False)
    q = wia.empty((1, 8, 32768, 128), dtype=ml_dtypes.bfloat16)
    out = wia.scaled_dot_product_attention(q, q, q, causal=True)
    wia.context_synchronize(out.context)
    assert wia.explain(out).duration_ms > 1
    with pytest.raises(wia.WiaError) as e:
        out.numpy()
    assert e.value.code is E.INVALID_VALUE


def test_wia_sim_explains_attention_flash_and_unfused(capsys: pytest.CaptureFixture[str]) -> None:
    from wia_sim.cli import main as sim_main

    argv = ["explain", "attention", "1", "8", "2", "512", "512", "64", "--causal", "--hardware", "wia-tiny"]
    assert sim_main(argv) == 0
    out = capsys.readouterr().out
    assert "← default" in out and "UNFUSED(scores:" in out and "causal" in out
    with pytest.raises(SystemExit):
        sim_main(["explain", "attention", "1", "8", "3", "512", "512", "64"])
    assert "HQ a multiple of HKV" in capsys.readouterr().err
