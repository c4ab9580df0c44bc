"""A decoder-only transformer (Llama / GPT style): prefill or one decode step, tensor-parallel over devices.

Tensor parallelism follows Megatron-LM (Shoeybi et al. 2019, "Megatron-LM: Training Multi-Billion Parameter Language
Models Using Model Parallelism", section 3): the QKV and up/gate projections are split by columns (heads, MLP
columns), the attention output and down projections by rows, and each layer all-reduces twice (after attention,
after the MLP). KV heads fewer than devices are replicated (as vLLM does): each device keeps the one KV head its
query heads read, and the closed-form FLOPs and bytes count the replicas. The token embedding is replicated (a
gather needs no communication); the LM head is split over the vocabulary (padded to a multiple of the devices) and
its logit shards are all-gathered, as serving does before sampling. Prefill computes logits for the last token
only (what serving needs to sample the next one) and writes the prompt's keys and values into the KV cache; decode
embeds one new token per sequence, writes its keys and values at position ``seq`` of a cache preallocated with
``seq + 1`` positions, and attends over the whole cache. Rotary embeddings (Su et al. 2021, "RoFormer", section
3.4.2; the rotate-half form of the Llama code) run as element-wise ops on slices of q and k.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import numpy as np
from pydantic import Field, model_validator

import wia_hal as wia
from wia_whatif.workload import Counts, Workload, WorkloadParams
from wia_whatif.workloads.weights import Arena, computes_numbers, normal

_ITEMSIZE = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2}


class TransformerParams(WorkloadParams):
    """One decoder and one step of it. ``seq``: the prompt length (prefill) or the tokens already in the KV cache
    (decode); ``head_dim`` defaults to ``hidden // heads``, ``kv_heads`` to ``heads``; ``bias``: the linear layers
    have biases (GPT); ``position``: rotary (Llama) or learned absolute embeddings of ``max_positions`` (GPT)."""

    layers: int = Field(2, ge=1)
    hidden: int = Field(256, ge=1)
    heads: int = Field(4, ge=1)
    kv_heads: int | None = Field(None, ge=1)
    head_dim: int | None = Field(None, ge=2)
    mlp: int = Field(512, ge=1, description="intermediate size of the MLP")
    vocab: int = Field(1000, ge=1)
    norm: Literal["rms", "layer"] = "rms"
    activation: Literal["swiglu", "gelu"] = "swiglu"
    position: Literal["rotary", "learned"] = "rotary"
    max_positions: int = Field(4096, ge=1, description="rows of the learned position table")
    rope_theta: float = Field(10000.0, gt=0)
    bias: bool = False
    eps: float = Field(1e-5, gt=0)
    seq: int = Field(128, ge=1)
    batch: int = Field(1, ge=1)
    phase: Literal["prefill", "decode"] = "prefill"
    lm_head: bool = True
    attention: Literal["flash", "unfused"] = "flash"

    @property
    def kv(self) -> int:
        return self.heads if self.kv_heads is None else self.kv_heads

    @property
    def hd(self) -> int:
        return self.hidden // self.heads if self.head_dim is None else self.head_dim

    @property
    def tokens(self) -> int:
        """Tokens entering the layers this step: the prompt (prefill) or one per sequence (decode)."""
        return self.seq if self.phase == "prefill" else 1

    @property
    def start(self) -> int:
        """Position of the step's first token."""
        return 0 if self.phase == "prefill" else self.seq

    @model_validator(mode="after")
    def _divisible(self) -> TransformerParams:
        t, kv = self.devices, self.kv
        problems = []
        if self.head_dim is None and self.hidden % self.heads:
            problems.append(f"hidden {self.hidden} is not a multiple of heads {self.heads} (or give head_dim)")
        if self.hd % 2 and self.position == "rotary":
            problems.append(f"rotary embeddings need an even head_dim, got {self.hd}")
        if self.heads % kv:
            problems.append(f"heads {self.heads} is not a multiple of kv_heads {kv}")
        if self.heads % t:
            problems.append(f"heads {self.heads} do not split over {t} devices")
        if (kv % t) if kv >= t else (t % kv):
            problems.append(f"kv_heads {kv} neither split over nor replicate evenly onto {t} devices")
        if self.mlp % t:
            problems.append(f"mlp {self.mlp} does not split over {t} devices")
        if self.position == "learned" and self.start + self.tokens > self.max_positions:
            fits = self.max_positions - self.tokens if self.phase == "decode" else self.max_positions
            problems.append(
                f"positions up to {self.start + self.tokens} exceed max_positions {self.max_positions} (learned "
                f"positions: seq may be at most {fits} for {self.phase})"
            )
        if self.dtype not in _ITEMSIZE:
            problems.append(f"dtype {self.dtype!r} is not one of {', '.join(_ITEMSIZE)}")
        if problems:
            raise ValueError("; ".join(problems))
        return self


@dataclass(frozen=True)
class Shards:
    """How one device's share of the model is cut (Megatron-LM's column/row split)."""

    heads: int  # query heads per device
    kv: int  # KV heads per device (1 when replicated)
    mlp: int  # MLP columns per device
    vocab: int  # LM head columns per device (vocab padded to a multiple of the devices)

    @staticmethod
    def of(p: TransformerParams) -> Shards:
        t = p.devices
        return Shards(p.heads // t, max(p.kv // t, 1), p.mlp // t, -(-p.vocab // t))


def _matmul_params(p: TransformerParams, kv_heads: int, vocab: int) -> tuple[int, int]:
    """Weights (biases excluded) of one layer's matmuls, and of the LM head."""
    hd = p.hd
    attn = p.hidden * (p.heads + 2 * kv_heads) * hd + p.heads * hd * p.hidden
    mlp = (3 if p.activation == "swiglu" else 2) * p.hidden * p.mlp
    return attn + mlp, (p.hidden * vocab if p.lm_head else 0)


def parameter_count(p: TransformerParams) -> int:
    """Exact parameters of the architecture (the model, not the device replicas): embeddings, per layer the
    QKV/O/MLP weights, their biases and two norms, the final norm and the LM head (not tied to the embedding)."""
    hd, norm = p.hd, (2 if p.norm == "layer" else 1) * p.hidden
    layer, head = _matmul_params(p, p.kv, p.vocab)
    if p.bias:
        up = (2 if p.activation == "swiglu" else 1) * p.mlp
        layer += (p.heads + 2 * p.kv) * hd + p.hidden + up + p.hidden
    layer += 2 * norm
    embed = p.vocab * p.hidden + (p.max_positions * p.hidden if p.position == "learned" else 0)
    return embed + p.layers * layer + norm + head


def attention_pairs(p: TransformerParams) -> int:
    """(query, key) pairs one head scores per sequence: the causal triangle in prefill, the cache in decode."""
    if p.phase == "prefill":
        return p.seq * (p.seq + 1) // 2
    return p.seq + 1


def transformer_counts(p: TransformerParams) -> Counts:
    """FLOPs are Kaplan et al. 2020 ("Scaling Laws for Neural Language Models", section 2.1) forward accounting
    made exact: 2 FLOPs per multiply-add of every matmul (weights times tokens; the LM head for the last token of a
    prefill) plus attention ``4 · layers · batch · heads · head_dim · pairs`` (q·kᵀ and p·v over the causal pairs
    actually computed, as FlashAttention skips masked blocks). Norms, rotary, activations, residual adds and the
    softmax's per-score work (a few FLOPs per element or score: under 1% of a step at these sizes) are not counted.
    KV heads replicated over devices count once per replica, and the LM head at its padded vocabulary, because the
    devices compute them.

    Bytes: every matmul weight read once, the embedding rows gathered, the KV cache written (new tokens) and read
    by attention (decode: the whole cache), and each matmul's input read and output written once; element-wise
    traffic is not counted. ``weight_bytes``: what the devices hold (replicated embedding and KV heads included)."""
    sh, t, size, hd = Shards.of(p), p.devices, _ITEMSIZE[p.dtype], p.hd
    kv_eff, vocab_eff = sh.kv * t, sh.vocab * t
    layer_w, head_w = _matmul_params(p, kv_eff, vocab_eff)
    rows, pairs = p.batch * p.tokens, attention_pairs(p)
    flops = 2.0 * (layer_w * rows * p.layers + head_w * p.batch)
    flops += 4.0 * p.layers * p.batch * p.heads * hd * pairs
    up = (2 if p.activation == "swiglu" else 1) * p.mlp
    # per token and layer, the elements the matmuls read and write on all devices: every device reads the whole
    # normalized input of the column-parallel QKV and up projections and writes a whole partial sum of the
    # row-parallel output and down projections; the sharded sides add up to the model's widths
    matmul_io = 4 * t * p.hidden + (2 * p.heads + 2 * kv_eff) * hd + up + p.mlp
    # attention reads q and writes o; it reads k and v: the fresh ones (prefill) or the whole cache (decode)
    keys = p.tokens if p.phase == "prefill" else p.seq + 1
    attention_io = 2 * rows * p.heads * hd + 2 * p.batch * kv_eff * keys * hd
    cache_write = 2 * rows * kv_eff * hd
    elements = layer_w * p.layers + head_w + rows * p.hidden  # weights once, embedding rows gathered
    elements += p.layers * (rows * matmul_io + attention_io + cache_write)
    if p.lm_head:
        elements += p.batch * (t * p.hidden + vocab_eff)
    # what every device holds whole: the embeddings, the norms, the row-parallel projections' biases
    norm = (2 if p.norm == "layer" else 1) * p.hidden
    whole = parameter_count(p.model_copy(update={"layers": 0, "lm_head": False})) + p.layers * (
        2 * norm + (2 * p.hidden if p.bias else 0)
    )
    replicas = (kv_eff - p.kv) * 2 * (p.hidden * hd + (hd if p.bias else 0)) * p.layers
    held = parameter_count(p) + (t - 1) * whole + replicas + (vocab_eff - p.vocab) * p.hidden * p.lm_head
    return Counts(
        parameters=parameter_count(p),
        flops=flops,
        bytes=float(elements * size),
        weight_bytes=held * size,
        items=float(rows),
    )


@dataclass
class Device:
    """One device's weights, cache, inputs and rotary tables."""

    ctx: wia.Context
    embed: wia.Tensor
    ids: wia.Tensor
    layers: list[dict[str, wia.Tensor]]
    final: dict[str, wia.Tensor]
    positions: wia.Tensor | None = None  # learned: the position table
    cos: wia.Tensor | None = None
    sin: wia.Tensor | None = None
    arenas: list[wia.Tensor] = field(default_factory=list)


@dataclass
class State:
    """What :meth:`Transformer.step` runs on; ``weights`` are the full-model values (None in timing-only mode)."""

    devices: list[Device]
    weights: dict[str, np.ndarray] | None
    ids: np.ndarray | None
    output: list[wia.Tensor] = field(default_factory=list)
    """After a step: the logits on each device (all-gathered shards) or, without an LM head, the normalized hidden
    states ``(batch · tokens, hidden)``."""


def full_weights(p: TransformerParams, seed: int = 0) -> dict[str, np.ndarray]:
    """The whole model's values in float64 (what every device's shard is cut from, and what a NumPy reference
    runs), plus ``cache_k{i}``/``cache_v{i}`` of shape ``(batch, kv_heads, seq, head_dim)`` for a decode step."""
    rng = np.random.default_rng(seed)
    h, hd, q, kv = p.hidden, p.hd, p.heads * p.hd, p.kv * p.hd
    w: dict[str, np.ndarray] = {"embed": normal(rng, (p.vocab, h), 1.0)}
    if p.position == "learned":
        w["pos"] = normal(rng, (p.max_positions, h), 0.5)

    def norm(prefix: str) -> None:
        w[f"{prefix}.w"] = 1.0 + normal(rng, (h,), 0.1)
        if p.norm == "layer":
            w[f"{prefix}.b"] = normal(rng, (h,), 0.1)

    for i in range(p.layers):
        norm(f"{i}.norm1")
        for name, cols in (("wq", q), ("wk", kv), ("wv", kv)):
            w[f"{i}.{name}"] = normal(rng, (h, cols), h**-0.5)
        w[f"{i}.wo"] = normal(rng, (q, h), q**-0.5)
        norm(f"{i}.norm2")
        ups = ("w1", "w3") if p.activation == "swiglu" else ("w1",)
        for name in ups:
            w[f"{i}.{name}"] = normal(rng, (h, p.mlp), h**-0.5)
        w[f"{i}.w2"] = normal(rng, (p.mlp, h), p.mlp**-0.5)
        if p.bias:
            mlp_biases = ((b, p.mlp) for b in ("b1", "b3")[: len(ups)])
            for name, n in (("bq", q), ("bk", kv), ("bv", kv), ("bo", h), ("b2", h), *mlp_biases):
                w[f"{i}.{name}"] = normal(rng, (n,), 0.1)
        if p.phase == "decode":
            for name in ("cache_k", "cache_v"):
                w[f"{name}{i}"] = normal(rng, (p.batch, p.kv, p.seq, hd), 1.0)
    norm("final")
    if p.lm_head:
        w["lm_head"] = normal(rng, (h, p.vocab), h**-0.5)
    w["ids"] = rng.integers(0, p.vocab, (p.batch, p.tokens))
    return w


def rotary_tables(p: TransformerParams) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of shape ``(tokens, head_dim)`` for the step's positions (frequencies ``theta^(-2i/d)``,
    repeated over both halves, as the rotate-half form needs)."""
    half = p.hd // 2
    inv = p.rope_theta ** (-np.arange(half, dtype=np.float64) * 2 / p.hd)
    angles = np.arange(p.start, p.start + p.tokens, dtype=np.float64)[:, None] * inv[None, :]
    angles = np.concatenate([angles, angles], axis=1)
    return np.cos(angles), np.sin(angles)


def _kv_heads_of(p: TransformerParams, d: int) -> list[int]:
    """The KV heads device ``d`` holds: its block when they split, else the one its query heads read."""
    sh = Shards.of(p)
    if p.kv >= p.devices:
        return list(range(d * sh.kv, (d + 1) * sh.kv))
    return [d * sh.heads // (p.heads // p.kv)]


def _cols(heads: Sequence[int], hd: int) -> np.ndarray:
    return np.concatenate([np.arange(h * hd, (h + 1) * hd) for h in heads])


class Transformer(Workload):
    name = "transformer"
    description = "decoder-only transformer: prefill or one decode step with a KV cache, tensor-parallel"
    params_model = TransformerParams
    unit = "tokens"
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {
        # Touvron et al. 2023, "Llama 2: Open Foundation and Fine-Tuned Chat Models", table 1 and section 2.2, with
        # the released configs (hidden, heads, MLP size): 7B 32 layers/4096/32 heads/11008; 13B 40/5120/40/13824;
        # 70B 80/8192/64 heads with 8 KV heads (GQA)/28672; vocabulary 32000, RMSNorm eps 1e-5, SwiGLU, RoPE.
        "llama2-7b": {"layers": 32, "hidden": 4096, "heads": 32, "mlp": 11008, "vocab": 32000, "seq": 4096},
        "llama2-13b": {"layers": 40, "hidden": 5120, "heads": 40, "mlp": 13824, "vocab": 32000, "seq": 4096},
        "llama2-70b": {
            "layers": 80, "hidden": 8192, "heads": 64, "kv_heads": 8, "mlp": 28672, "vocab": 32000, "seq": 4096,
        },
        # Meta, "Llama 3 model card" (2024) and Dubey et al. 2024 "The Llama 3 Herd of Models", table 3: 8B has 32
        # layers, hidden 4096, MLP 14336, 32 heads, 8 KV heads, vocabulary 128256, RoPE theta 500000.
        "llama3-8b": {
            "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "mlp": 14336, "vocab": 128256,
            "rope_theta": 500000.0, "seq": 8192,
        },
        # Brown et al. 2020, "Language Models are Few-Shot Learners", table 2.1 (96 layers, d_model 12288, 96 heads
        # of 128, MLP 4 d_model, context 2048) and section 2.1 (GPT-2's architecture: LayerNorm, GELU, biases,
        # learned positions); GPT-2's BPE vocabulary of 50257. The LM head is counted untied (GPT-2 ties it to the
        # embedding: 0.6B fewer parameters, 0.35% of 175B).
        "gpt3-175b": {
            "layers": 96, "hidden": 12288, "heads": 96, "head_dim": 128, "mlp": 49152, "vocab": 50257,
            "norm": "layer", "activation": "gelu", "position": "learned", "max_positions": 2048, "bias": True,
            "seq": 2048,
        },
    }  # fmt: skip

    def counts(self, p: WorkloadParams) -> Counts:
        assert isinstance(p, TransformerParams)
        return transformer_counts(p)

    def setup(self, p: WorkloadParams, contexts: Sequence[wia.Context]) -> State:
        assert isinstance(p, TransformerParams)
        if len(contexts) != p.devices:
            raise wia.InvalidValueError(f"transformer: {p.devices} devices in the params, {len(contexts)} contexts")
        numbers = computes_numbers()
        w = full_weights(p) if numbers else {}
        devices = [self._device(p, d, ctx, w, numbers) for d, ctx in enumerate(contexts)]
        return State(devices, w or None, w.get("ids"))

    def _device(
        self, p: TransformerParams, d: int, ctx: wia.Context, w: dict[str, np.ndarray], numbers: bool
    ) -> Device:
        sh, hd, h = Shards.of(p), p.hd, p.hidden
        arena = Arena(ctx, p.dtype, numbers)
        qc = _cols(range(d * sh.heads, (d + 1) * sh.heads), hd)
        kc = _cols(_kv_heads_of(p, d), hd)
        mc = np.arange(d * sh.mlp, (d + 1) * sh.mlp)
        qkv_cols = (sh.heads + 2 * sh.kv) * hd

        def norm(prefix: str, into: str) -> None:
            arena.add(f"{into}.w", (h,), lambda: w[f"{prefix}.w"])
            if p.norm == "layer":
                arena.add(f"{into}.b", (h,), lambda: w[f"{prefix}.b"])

        arena.add("embed", (p.vocab, h), lambda: w["embed"])
        arena.add("ids", (p.batch, p.tokens), lambda: w["ids"], dtype="int32")
        ups = ("1", "3") if p.activation == "swiglu" else ("1",)
        cached = p.seq + (1 if p.phase == "decode" else 0)

        def layer(i: int) -> None:
            def get(name: str) -> np.ndarray:
                return w[f"{i}.{name}"]

            norm(f"{i}.norm1", f"{i}.norm1")
            norm(f"{i}.norm2", f"{i}.norm2")
            arena.add(
                f"{i}.wqkv",
                (h, qkv_cols),
                lambda: np.concatenate([get("wq")[:, qc], get("wk")[:, kc], get("wv")[:, kc]], 1),
            )
            arena.add(f"{i}.wo", (sh.heads * hd, h), lambda: get("wo")[qc])
            arena.add(f"{i}.wup", (h, len(ups) * sh.mlp), lambda: np.concatenate([get(f"w{u}")[:, mc] for u in ups], 1))
            arena.add(f"{i}.w2", (sh.mlp, h), lambda: get("w2")[mc])
            if p.bias:
                arena.add(
                    f"{i}.bqkv", (qkv_cols,), lambda: np.concatenate([get("bq")[qc], get("bk")[kc], get("bv")[kc]])
                )
                arena.add(f"{i}.bup", (len(ups) * sh.mlp,), lambda: np.concatenate([get(f"b{u}")[mc] for u in ups]))
                arena.add(f"{i}.bo", (h,), lambda: get("bo"))
                arena.add(f"{i}.b2", (h,), lambda: get("b2"))
            arena.add(f"{i}.cache_k", (p.batch, sh.kv, cached, hd), lambda: self._cache(p, w, "cache_k", i, d))
            arena.add(f"{i}.cache_v", (p.batch, sh.kv, cached, hd), lambda: self._cache(p, w, "cache_v", i, d))

        for i in range(p.layers):
            layer(i)
        norm("final", "final.norm")
        if p.lm_head:
            arena.add("final.lm_head", (h, sh.vocab), lambda: self._vocab_shard(w["lm_head"], d, sh.vocab))
        if p.position == "learned":
            arena.add("positions", (p.max_positions, h), lambda: w["pos"])
        else:
            arena.add("cos", (p.tokens, 1, hd), lambda: rotary_tables(p)[0][:, None])
            arena.add("sin", (p.tokens, 1, hd), lambda: rotary_tables(p)[1][:, None])
        t = arena.build()
        layers: list[dict[str, wia.Tensor]] = [{} for _ in range(p.layers)]
        final: dict[str, wia.Tensor] = {}
        for key, tensor in t.items():
            owner, _, name = key.partition(".")
            if owner.isdigit():
                layers[int(owner)][name] = tensor
            elif owner == "final":
                final[name] = tensor
        return Device(
            ctx,
            embed=t["embed"],
            ids=t["ids"],
            layers=layers,
            final=final,
            positions=t.get("positions"),
            cos=t.get("cos"),
            sin=t.get("sin"),
            arenas=arena.buffers,
        )

    @staticmethod
    def _cache(p: TransformerParams, w: dict[str, np.ndarray], name: str, i: int, d: int) -> np.ndarray:
        """Device ``d``'s KV cache of layer ``i``: prefill writes all of it; decode finds ``seq`` tokens there and
        writes position ``seq``."""
        shape = (p.batch, len(_kv_heads_of(p, d)), p.seq, p.hd)
        if p.phase == "prefill":
            return np.zeros(shape)
        past = w[f"{name}{i}"][:, _kv_heads_of(p, d)]
        return np.concatenate([past, np.zeros((p.batch, shape[1], 1, p.hd))], axis=2)

    @staticmethod
    def _vocab_shard(head: np.ndarray, d: int, width: int) -> np.ndarray:
        shard = head[:, d * width : (d + 1) * width]
        return np.pad(shard, ((0, 0), (0, width - shard.shape[1])))

    def step(self, p: WorkloadParams, state: object) -> None:
        assert isinstance(p, TransformerParams) and isinstance(state, State)
        devs = state.devices
        x = [wia.gather(dev.embed, dev.ids) for dev in devs]
        if p.position == "learned":
            rows = (p.start, p.start + p.tokens)
            x = [
                wia.add(xi, wia.slice(_present(dev.positions), (rows[0], 0), (rows[1], p.hidden)))
                for xi, dev in zip(x, devs, strict=True)
            ]
        # the residual stream is (tokens, hidden): each projection is one matmul over all the batch's tokens, as
        # serving engines flatten them (a (batch, 1, hidden) operand would be a batch of one-row matmuls)
        b, n, h = p.batch, p.tokens, p.hidden
        x = [wia.reshape(xi, (b * n, h)) for xi in x]
        for i in range(p.layers):
            attn = [
                self._attention(p, dev, dev.layers[i], _norm(p, xi, dev.layers[i], "norm1"))
                for xi, dev in zip(x, devs, strict=True)
            ]
            x = self._residual(p, x, attn, devs, i, "bo")
            mlp = [
                self._mlp(p, dev.layers[i], _norm(p, xi, dev.layers[i], "norm2"))
                for xi, dev in zip(x, devs, strict=True)
            ]
            x = self._residual(p, x, mlp, devs, i, "b2")
        if not p.lm_head:
            state.output = [_norm(p, xi, dev.final, "norm") for xi, dev in zip(x, devs, strict=True)]
            return
        last = [wia.reshape(wia.slice(wia.reshape(xi, (b, n, h)), (0, n - 1, 0), (b, n, h)), (b, h)) for xi in x]
        logits = [
            wia.matmul(_norm(p, li, dev.final, "norm"), dev.final["lm_head"])
            for li, dev in zip(last, devs, strict=True)
        ]
        state.output = wia.all_gather(logits) if len(devs) > 1 else logits

    @staticmethod
    def _residual(
        p: TransformerParams, x: list[wia.Tensor], parts: list[wia.Tensor], devs: list[Device], i: int, bias: str
    ) -> list[wia.Tensor]:
        """``x + all_reduce(parts) (+ bias)``: the row-parallel projection's partial sums summed over devices."""
        if len(parts) > 1:
            parts = wia.all_reduce(parts)
        if p.bias:
            parts = [wia.add(part, dev.layers[i][bias]) for part, dev in zip(parts, devs, strict=True)]
        return [wia.add(xi, part) for xi, part in zip(x, parts, strict=True)]

    @staticmethod
    def _attention(p: TransformerParams, dev: Device, t: dict[str, wia.Tensor], a: wia.Tensor) -> wia.Tensor:
        sh, hd, b, n = Shards.of(p), p.hd, p.batch, p.tokens
        qkv = wia.matmul(a, t["wqkv"])
        if p.bias:
            qkv = wia.add(qkv, t["bqkv"])
        qkv = wia.reshape(qkv, (b, n, sh.heads + 2 * sh.kv, hd))
        # q and k lie side by side in the fused projection: rotated in one pass
        rotary = p.position == "rotary"
        qk = _rotary(wia.slice(qkv, (0, 0, 0, 0), (b, n, sh.heads + sh.kv, hd)), dev) if rotary else qkv

        def heads(x: wia.Tensor, lo: int, hi: int) -> wia.Tensor:  # (b, heads, n, hd): a view
            return wia.transpose(wia.slice(x, (0, 0, lo, 0), (b, n, hi, hd)), (0, 2, 1, 3))

        q, k = heads(qk, 0, sh.heads), heads(qk, sh.heads, sh.heads + sh.kv)
        v = heads(qkv, sh.heads + sh.kv, sh.heads + 2 * sh.kv)
        cache_k, cache_v = t["cache_k"], t["cache_v"]
        at = p.start
        wia.copy_into(wia.slice(cache_k, (0, 0, at, 0), (b, sh.kv, at + n, hd)), k)
        wia.copy_into(wia.slice(cache_v, (0, 0, at, 0), (b, sh.kv, at + n, hd)), v)
        if p.phase == "prefill":  # the prompt attends to itself: the fresh k and v, not a read-back of the cache
            o = wia.scaled_dot_product_attention(q, k, v, causal=True, implementation=p.attention)
        else:
            o = wia.scaled_dot_product_attention(q, cache_k, cache_v, implementation=p.attention)
        o = wia.reshape(wia.transpose(o, (0, 2, 1, 3)), (b * n, sh.heads * hd))
        return wia.matmul(o, t["wo"])

    @staticmethod
    def _mlp(p: TransformerParams, t: dict[str, wia.Tensor], a: wia.Tensor) -> wia.Tensor:
        sh, b, n = Shards.of(p), p.batch, p.tokens
        up = wia.matmul(a, t["wup"])
        if p.bias:
            up = wia.add(up, t["bup"])
        if p.activation == "swiglu":
            gate = wia.slice(up, (0, 0), (b * n, sh.mlp))
            lin = wia.slice(up, (0, sh.mlp), (b * n, 2 * sh.mlp))
            act = wia.mul(wia.silu(gate), lin)
        else:
            act = wia.gelu(up)
        return wia.matmul(act, t["w2"])


def _norm(p: TransformerParams, x: wia.Tensor, t: dict[str, wia.Tensor], prefix: str) -> wia.Tensor:
    if p.norm == "rms":
        return wia.rms_norm(x, t[f"{prefix}.w"], eps=p.eps)
    return wia.layer_norm(x, t[f"{prefix}.w"], t[f"{prefix}.b"], eps=p.eps)


def _rotary(x: wia.Tensor, dev: Device) -> wia.Tensor:
    """``x·cos + rotate_half(x)·sin`` with ``rotate_half(x) = concat(-x[..., d/2:], x[..., :d/2])``; ``x`` is
    ``(batch, tokens, heads, head_dim)``, the tables ``(tokens, 1, head_dim)``."""
    b, n, heads, hd = x.shape
    half = hd // 2
    lo = wia.slice(x, (0, 0, 0, 0), (b, n, heads, half))
    hi = wia.slice(x, (0, 0, 0, half), (b, n, heads, hd))
    rotated = wia.concat([wia.neg(hi), lo], axis=3)
    return wia.add(wia.mul(x, _present(dev.cos)), wia.mul(rotated, _present(dev.sin)))


def _present(t: wia.Tensor | None) -> wia.Tensor:
    """A table the parameters promise (setup made it for this position scheme)."""
    if t is None:
        raise wia.InternalError("transformer: a position table the parameters need was not set up")
    return t


TRANSFORMER = Transformer()
