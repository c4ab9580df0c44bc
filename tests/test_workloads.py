"""The transformer and ResNet-50 workloads: closed-form counts against published figures and against what the
simulated ops count; at small sizes, the transformer's output on the sim and the reference backend against a
float64 NumPy decoder written here from the same weights; tensor parallelism equal to one device; a 70B model in
timing-only mode."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numerics_reference as nr
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wia_hal as wia
from wia_whatif.run import run_point
from wia_whatif.workload import get_workload
from wia_whatif.workloads.resnet import ResNetParams
from wia_whatif.workloads.resnet import full_weights as resnet_weights
from wia_whatif.workloads.transformer import TransformerParams, rotary_tables

TRANSFORMER = get_workload("transformer")
RESNET = get_workload("resnet50")
TINY = {"layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2, "mlp": 96, "vocab": 97, "seq": 8, "batch": 2}
GPT_LIKE = {"norm": "layer", "activation": "gelu", "position": "learned", "max_positions": 32, "bias": True}


# -- closed forms against published figures -------------------------------------------------------------------------


def _llama_params(layers: int, hidden: int, heads: int, kv: int, mlp: int, vocab: int) -> int:
    """Parameters of a Llama checkpoint derived by hand from its tensors: embed and lm_head (vocab x hidden each),
    per layer q/o (hidden²), k/v (hidden x kv·head_dim), gate/up/down (hidden x mlp), two RMSNorm weights; a final
    norm."""
    hd = hidden // heads
    layer = 2 * hidden * hidden + 2 * hidden * kv * hd + 3 * hidden * mlp + 2 * hidden
    return 2 * vocab * hidden + layers * layer + hidden


@pytest.mark.parametrize(
    ("preset", "published"),
    [
        # the released checkpoints' sizes (Hugging Face meta-llama model pages; Touvron et al. 2023 table 1 rounds
        # them to 7B, 13B, 70B)
        ("llama2-7b", 6_738_415_616),
        ("llama2-13b", 13_015_864_320),
        ("llama2-70b", 68_976_648_192),
    ],
)
def test_llama2_parameter_counts_are_exact(preset: str, published: int) -> None:
    p = TRANSFORMER.params(preset)
    assert isinstance(p, TransformerParams)
    count = TRANSFORMER.counts(p).parameters
    assert count == _llama_params(p.layers, p.hidden, p.heads, p.kv, p.mlp, p.vocab)
    assert count == published


def test_llama2_70b_is_69b_and_gpt3_is_175b() -> None:
    """Within 1% of the papers' figures: 69B (Touvron et al. 2023, table 1 and section 2.2: "Llama 2 70B", the
    checkpoint holds 69.0B) and 175.0B (Brown et al. 2020, table 2.1)."""
    assert TRANSFORMER.counts(TRANSFORMER.params("llama2-70b")).parameters == pytest.approx(69.0e9, rel=0.01)
    assert TRANSFORMER.counts(TRANSFORMER.params("gpt3-175b")).parameters == pytest.approx(175.0e9, rel=0.01)


def test_resnet50_parameters_and_multiply_adds() -> None:
    """25,557,032 parameters (torchvision's ResNet50_Weights.IMAGENET1K_V1 metadata); multiply-adds: 3.8e9 for the
    paper's network (He et al. 2016, table 1, "FLOPs" counting multiply-adds), 4.09e9 for v1.5 (torchvision's
    metadata, GFLOPS 4.09, also multiply-adds). Counts.flops is 2 per multiply-add."""
    v1 = RESNET.counts(RESNET.params("resnet50-v1"))
    v15 = RESNET.counts(RESNET.params("resnet50"))
    assert v1.parameters == v15.parameters == 25_557_032
    assert v1.flops / 2 == pytest.approx(3.8e9, rel=0.02)
    assert v15.flops / 2 == pytest.approx(4.09e9, rel=0.005)
    assert v1.items == 1.0


def test_decode_reads_the_kv_cache_and_prefill_counts_the_causal_triangle() -> None:
    decode = TRANSFORMER.params("llama2-70b", phase="decode", batch=32, devices=8)
    prefill = TRANSFORMER.params("llama2-70b", devices=8)
    assert isinstance(decode, TransformerParams) and isinstance(prefill, TransformerParams)
    d, f = TRANSFORMER.counts(decode), TRANSFORMER.counts(prefill)
    assert d.items == 32 and f.items == 4096
    # the weights of the matmuls: all parameters but the embedding and the norms
    matmul_weights = d.parameters - decode.vocab * decode.hidden - (2 * decode.layers + 1) * decode.hidden
    attention = 4 * decode.layers * decode.batch * decode.heads * decode.hd * (decode.seq + 1)
    assert d.flops == pytest.approx(2 * matmul_weights * 32 + attention, rel=1e-12)
    kv_cache = 2 * decode.layers * decode.batch * decode.kv * (decode.seq + 1) * decode.hd * 2  # bytes, bf16
    assert d.bytes > 2 * matmul_weights + kv_cache
    triangle = 4 * prefill.layers * prefill.heads * prefill.hd * (4096 * 4097 // 2)
    layers_weights = matmul_weights - prefill.hidden * prefill.vocab
    assert f.flops == pytest.approx(2 * layers_weights * 4096 + 2 * prefill.hidden * prefill.vocab + triangle)


def test_bad_parameters_are_invalid_value_naming_the_problem() -> None:
    with pytest.raises(wia.InvalidValueError, match="do not split over 3 devices"):
        TRANSFORMER.params("llama2-70b", devices=3)
    with pytest.raises(wia.InvalidValueError, match=r"no preset 'llama2-71b'.*llama2-70b"):
        TRANSFORMER.params("llama2-71b")
    with pytest.raises(wia.InvalidValueError, match="batch 3 does not split over 2 devices"):
        RESNET.params(batch=3, devices=2)


# -- what the simulated ops count -----------------------------------------------------------------------------------


@pytest.fixture
def useful_flops(monkeypatch: pytest.MonkeyPatch) -> dict[str, float]:
    """Per op, the FLOPs of the mathematical ops (``explain(...).useful_flops``: no tile padding) the workloads
    launch through ``wia.<op>``."""
    found: dict[str, float] = {}

    def recording(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def op(*args: Any, **kwargs: Any) -> Any:
            out = fn(*args, **kwargs)
            found[name] = found.get(name, 0.0) + wia.explain(out).useful_flops
            return out

        return op

    for name in ("matmul", "conv2d", "scaled_dot_product_attention"):
        monkeypatch.setattr(wia, name, recording(name, getattr(wia, name)))
    return found


def _contexts(n: int) -> list[wia.Context]:
    return [wia.create_context(wia.ContextConfig(device_id=i)) for i in range(n)]


@pytest.mark.parametrize(
    "overrides",
    [
        {"phase": "prefill", "seq": 256},
        {"phase": "decode", "seq": 300, "batch": 4},
        {"phase": "prefill", "seq": 128, "devices": 4, "kv_heads": 2, **GPT_LIKE, "max_positions": 512},
    ],
)
def test_simulated_matmul_and_attention_flops_equal_the_closed_form(
    overrides: dict[str, Any], useful_flops: dict[str, float]
) -> None:
    p = TRANSFORMER.params(layers=2, hidden=512, heads=8, mlp=1024, vocab=1000, **overrides)
    wia.set_backend("sim", hardware="nvidia-hgx-h100", devices=p.devices, numerics=False)
    state = TRANSFORMER.setup(p, _contexts(p.devices))
    TRANSFORMER.step(p, state)
    assert set(useful_flops) == {"matmul", "scaled_dot_product_attention"}
    assert sum(useful_flops.values()) == pytest.approx(TRANSFORMER.counts(p).flops, rel=0.01)


def test_simulated_resnet_flops_equal_the_closed_form(useful_flops: dict[str, float]) -> None:
    p = RESNET.params(batch=2, image=64, devices=2)
    wia.set_backend("sim", hardware="nvidia-hgx-h100", devices=2, numerics=False)
    state = RESNET.setup(p, _contexts(2))
    RESNET.step(p, state)
    assert sum(useful_flops.values()) == pytest.approx(RESNET.counts(p).flops, rel=1e-9)
    assert useful_flops["matmul"] == 2 * 2 * 2048 * 1000


# -- numbers: a float64 NumPy decoder -------------------------------------------------------------------------------


def _norm(p: TransformerParams, x: np.ndarray, w: dict[str, np.ndarray], prefix: str) -> np.ndarray:
    if p.norm == "rms":
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + p.eps) * w[f"{prefix}.w"]
    centered = x - x.mean(axis=-1, keepdims=True)
    return (
        centered / np.sqrt(np.mean(centered**2, axis=-1, keepdims=True) + p.eps) * w[f"{prefix}.w"] + w[f"{prefix}.b"]
    )


def _rope(p: TransformerParams, x: np.ndarray) -> np.ndarray:
    cos, sin = rotary_tables(p)
    half = p.hd // 2
    return x * cos + np.concatenate([-x[..., half:], x[..., :half]], axis=-1) * sin


def reference_decoder(p: TransformerParams, w: dict[str, np.ndarray]) -> np.ndarray:
    """The decoder in float64 from the full weights: the logits (batch, vocab) of the step's last token."""
    b, n, hd = p.batch, p.tokens, p.hd
    x = w["embed"][w["ids"]]
    if p.position == "learned":
        x = x + w["pos"][p.start : p.start + n]

    def bias(name: str) -> np.ndarray | float:
        return w[name] if p.bias else 0.0

    for i in range(p.layers):
        a = _norm(p, x, w, f"{i}.norm1")
        q = (a @ w[f"{i}.wq"] + bias(f"{i}.bq")).reshape(b, n, p.heads, hd).transpose(0, 2, 1, 3)
        k = (a @ w[f"{i}.wk"] + bias(f"{i}.bk")).reshape(b, n, p.kv, hd).transpose(0, 2, 1, 3)
        v = (a @ w[f"{i}.wv"] + bias(f"{i}.bv")).reshape(b, n, p.kv, hd).transpose(0, 2, 1, 3)
        if p.position == "rotary":
            q, k = _rope(p, q), _rope(p, k)
        if p.phase == "decode":
            k = np.concatenate([w[f"cache_k{i}"], k], axis=2)
            v = np.concatenate([w[f"cache_v{i}"], v], axis=2)
        group = p.heads // p.kv
        k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
        scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd)
        keys = k.shape[2]
        visible = np.arange(keys)[None, :] <= np.arange(n)[:, None] + keys - n
        scores = np.where(visible, scores, -np.inf)
        probs = np.exp(scores - scores.max(axis=-1, keepdims=True))
        probs /= probs.sum(axis=-1, keepdims=True)
        o = (probs @ v).transpose(0, 2, 1, 3).reshape(b, n, p.heads * hd)
        x = x + o @ w[f"{i}.wo"] + bias(f"{i}.bo")
        a = _norm(p, x, w, f"{i}.norm2")
        if p.activation == "swiglu":
            gate = a @ w[f"{i}.w1"] + bias(f"{i}.b1")
            act = gate / (1.0 + np.exp(-gate)) * (a @ w[f"{i}.w3"] + bias(f"{i}.b3"))
        else:
            act = nr.gelu(a @ w[f"{i}.w1"] + bias(f"{i}.b1"))
        x = x + act @ w[f"{i}.w2"] + bias(f"{i}.b2")
    return _norm(p, x[:, -1], w, "final") @ w["lm_head"]


def _logits(p: TransformerParams, state: Any) -> np.ndarray:
    """The full (batch, vocab) logits from device 0's all-gathered shards (row block d is device d's columns)."""
    out = state.output[0].numpy()
    t = p.devices
    shard = out.shape[1]
    return out.reshape(t, p.batch, shard).transpose(1, 0, 2).reshape(p.batch, t * shard)[:, : p.vocab]


def _bound(p: TransformerParams, ref: np.ndarray) -> np.ndarray:
    """Float32 rounding through the chain of reductions: Higham's (K + 1)·eps per dot product of K terms (as
    numerics_reference.dot_bound), K summed along the longest path (per layer the QKV, attention, output, up and down
    reductions; then the LM head), times 4 for the norms' and softmax's few roundings, on the scale of the terms
    (|ref| plus the logits' RMS: the terms of a dot product are not smaller than its result's typical size)."""
    keys = p.seq + (1 if p.phase == "decode" else 0)
    k = p.layers * (p.hidden + keys + p.heads * p.hd + p.hidden + p.mlp + 5) + p.hidden
    return 4 * (k + 1) * nr.eps("float32") * (np.abs(ref) + np.sqrt(np.mean(ref**2)))


def _run(p: TransformerParams, backend: str, **options: Any) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    wia.set_backend(backend, devices=p.devices, **options)
    contexts = _contexts(p.devices)
    state = TRANSFORMER.setup(p, contexts)
    TRANSFORMER.step(p, state)
    assert state.weights is not None
    logits = _logits(p, state)
    for ctx in contexts:  # the next run may switch backends
        wia.destroy_context(ctx)
    return logits, state.weights


BACKENDS = [("sim", {"hardware": "nvidia-hgx-h100"}), ("reference", {})]


@pytest.mark.parametrize(("backend", "options"), BACKENDS, ids=[b for b, _ in BACKENDS])
@pytest.mark.parametrize(
    "overrides", [{}, {"phase": "decode"}, GPT_LIKE], ids=["llama-prefill", "llama-decode", "gpt-prefill"]
)
def test_the_decoder_computes_what_a_float64_numpy_decoder_does(
    backend: str, options: dict[str, Any], overrides: dict[str, Any]
) -> None:
    p = TRANSFORMER.params(**TINY, dtype="float32", **overrides)
    assert isinstance(p, TransformerParams)
    got, weights = _run(p, backend, **options)
    ref = reference_decoder(p, weights)
    nr.assert_within(got, ref, _bound(p, ref), f"{backend} {p.phase} logits")


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    devices=st.sampled_from([2, 4]),
    kv_heads=st.sampled_from([1, 2, 4]),
    phase=st.sampled_from(["prefill", "decode"]),
    gpt=st.booleans(),
    seq=st.integers(1, 6),
    batch=st.integers(1, 3),
)
def test_tensor_parallel_equals_one_device_on_the_reference_backend(
    devices: int, kv_heads: int, phase: str, gpt: bool, seq: int, batch: int
) -> None:
    """Megatron's split (KV heads replicated when fewer than the devices, vocab padded) changes only the order of
    the sums: the logits match one device within the float32 bound."""
    config = {**TINY, "kv_heads": kv_heads, "seq": seq, "batch": batch, "phase": phase, "dtype": "float32"}
    config |= GPT_LIKE if gpt else {}
    one = TRANSFORMER.params(**config, devices=1)
    many = TRANSFORMER.params(**config, devices=devices)
    assert isinstance(one, TransformerParams) and isinstance(many, TransformerParams)
    single, _ = _run(one, "reference")
    split, _ = _run(many, "reference")
    nr.assert_within(split, single, 2 * _bound(one, single), f"TP={devices} against TP=1")


# -- timing-only at scale -------------------------------------------------------------------------------------------


def test_a_70b_decode_step_runs_in_timing_only_mode_on_eight_h100s() -> None:
    """Weights (138 GB over 8 devices) and a 32 x 4097-token KV cache are only allocated: the step runs here."""
    params = {**TRANSFORMER.presets["llama2-70b"], "phase": "decode", "batch": 32, "devices": 8}
    report = run_point("transformer", params, hardware="nvidia-hgx-h100", profile=False)
    assert report.fits and report.step_time_ms is not None
    p = TRANSFORMER.params(**params)
    assert isinstance(p, TransformerParams)
    cache = 2 * p.layers * p.batch * (p.kv // 8) * (p.seq + 1) * p.hd * 2  # one device's, bytes
    held = report.counts.weight_bytes / 8 + cache
    assert held < report.peak_memory_bytes < held * 1.05  # the step's activations are small beside them
    # no faster than one device reading its share of the bytes at the HBM bandwidth (3.35 TB/s, NVIDIA H100
    # Tensor Core GPU datasheet, 2023, SXM5)
    assert report.step_time_ms / 1e3 > (report.counts.bytes / 8) / 3.35e12


def test_a_70b_model_does_not_fit_one_h100() -> None:
    report = run_point("transformer", "llama2-70b", hardware="nvidia-h100-sxm5-80gb", profile=False)
    assert not report.fits and report.error is not None and "out of memory" in report.error.lower()


# -- ResNet-50 numbers ----------------------------------------------------------------------------------------------


def _resnet_reference(p: ResNetParams, w: dict[str, np.ndarray]) -> np.ndarray:
    from wia_whatif.workloads.resnet import blocks, stem

    def conv_bn(x: np.ndarray, c: Any, relu: bool) -> np.ndarray:
        y = nr.conv2d(x, w[c.name], None, (c.pad, c.pad), (c.stride, c.stride), (1, 1), 1)
        scale = w[f"{c.name}.scale"] / np.sqrt(w[f"{c.name}.var"] + 1e-5)
        y = (y - w[f"{c.name}.mean"][:, None, None]) * scale[:, None, None] + w[f"{c.name}.shift"][:, None, None]
        return np.maximum(y, 0) if relu else y

    x = conv_bn(w["images"], stem(p), True)
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    windows = np.lib.stride_tricks.sliding_window_view(padded, (3, 3), axis=(2, 3))[:, :, ::2, ::2]
    x = windows.max(axis=(4, 5))
    for block in blocks(p):
        a, b, c = block.convs
        y = conv_bn(conv_bn(conv_bn(x, a, True), b, True), c, False)
        x = np.maximum(y + (x if block.projection is None else conv_bn(x, block.projection, False)), 0)
    return x.mean(axis=(2, 3)) @ w["fc"] + w["fc.bias"]


@pytest.mark.parametrize(("backend", "options"), BACKENDS, ids=[b for b, _ in BACKENDS])
def test_resnet50_computes_what_numpy_does(backend: str, options: dict[str, Any]) -> None:
    p = RESNET.params(batch=2, image=32, devices=2, dtype="float32", classes=10, width=8)
    assert isinstance(p, ResNetParams)
    wia.set_backend(backend, devices=2, **options)
    state = RESNET.setup(p, _contexts(2))
    RESNET.step(p, state)
    assert state.output is not None and state.weights is not None
    got = np.concatenate([t.numpy() for t in state.output])
    ref = _resnet_reference(p, resnet_weights(p))
    depth = 50 * 3 * 3 * 8 * p.width  # the longest reductions along the 50 layers
    nr.assert_within(got, ref, 4 * depth * nr.eps("float32") * (np.abs(ref) + np.sqrt(np.mean(ref**2))), backend)
