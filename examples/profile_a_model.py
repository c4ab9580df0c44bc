"""Profile a model's forward pass on a simulated chip: one transformer block (Q/K/V projections, attention with
softmax, output projection, a GELU MLP) in bfloat16, on two streams ordered by events, while the second stream
also uploads the next block's weights. Prints the profile's summary and where the time went for the largest
matmul, checks the result against NumPy, and saves the timeline (open it in ui.perfetto.dev).

Run: ``python examples/profile_a_model.py [--hardware MODEL] [--trace PATH]``; ``docs/profiling.md`` explains
what the summary and the timeline show.
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.markup import escape

import wia_hal as wia

SEQ, D_MODEL, HEADS, D_FF = 512, 1024, 16, 4096
D_HEAD = D_MODEL // HEADS


def weights(rng: np.random.Generator) -> dict[str, np.ndarray]:
    """One block's weights; the 1/sqrt(d_head) of attention is folded into W_q."""
    shapes = {"q": (D_MODEL, D_MODEL), "k": (D_MODEL, D_MODEL), "v": (D_MODEL, D_MODEL), "o": (D_MODEL, D_MODEL)}
    shapes |= {"up": (D_MODEL, D_FF), "down": (D_FF, D_MODEL)}
    w = {name: rng.standard_normal(shape, np.float32) / np.sqrt(shape[0]) for name, shape in shapes.items()}
    w["q"] /= np.sqrt(D_HEAD)
    return w


def heads(t: wia.Tensor, perm: tuple[int, int, int]) -> wia.Tensor:
    """[seq, d_model] as [heads, seq, d_head] (perm (1, 0, 2)) or [heads, d_head, seq] (perm (1, 2, 0))."""
    return wia.transpose(wia.reshape(t, (SEQ, HEADS, D_HEAD)), perm)


def block(x: wia.Tensor, w: dict[str, wia.Tensor], main: wia.Stream, side: wia.Stream) -> tuple[wia.Tensor, wia.Tensor]:
    """The forward pass: V on ``side`` while Q, K and the scores run on ``main``; an event orders them. The
    output, and the MLP's up projection (the block's largest matmul)."""
    with wia.use_stream(side):
        v = wia.matmul(x, w["v"])
        v_ready = wia.create_event()
        wia.event_record(v_ready, side)
    with wia.use_stream(main):  # calls without stream= below go to main
        q, k = wia.matmul(x, w["q"]), wia.matmul(x, w["k"])
        probs = wia.softmax(wia.batch_matmul(heads(q, (1, 0, 2)), heads(k, (1, 2, 0))), axis=-1)
        wia.stream_wait_event(main, v_ready)  # without it, P·V could read V before side wrote it
        attended = wia.batch_matmul(probs, heads(v, (1, 0, 2)))  # [heads, seq, d_head]
        merged = wia.reshape(wia.transpose(attended, (1, 0, 2)), (SEQ, D_MODEL))
        h = wia.add(x, wia.matmul(merged, w["o"]))
        up = wia.matmul(h, w["up"])
        return wia.add(h, wia.matmul(wia.gelu(up), w["down"])), up


def reference(x: np.ndarray, w: dict[str, np.ndarray]) -> np.ndarray:
    """The same block in float64 NumPy."""
    x = x.astype(np.float64)
    q, k, v = (x @ w[n] for n in ("q", "k", "v"))
    split = [a.reshape(SEQ, HEADS, D_HEAD).transpose(1, 0, 2) for a in (q, k, v)]
    scores = split[0] @ split[1].transpose(0, 2, 1)
    probs = np.exp(scores - scores.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    h = x + (probs @ split[2]).transpose(1, 0, 2).reshape(SEQ, D_MODEL) @ w["o"]
    u = h @ w["up"]
    gelu = 0.5 * u * (1 + np.vectorize(math.erf)(u / np.sqrt(2)))
    return h + gelu @ w["down"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--hardware",
        default=os.environ.get("WIA_SIM_HARDWARE", "nvidia-h100-sxm5-80gb"),
        help="a hardware model (wia-sim models list) or a .toml file (default: $WIA_SIM_HARDWARE, else the H100)",
    )
    parser.add_argument("--trace", type=Path, default=Path(tempfile.gettempdir()) / "wia-transformer-block.trace.json")
    args = parser.parse_args()
    console = Console()
    wia.set_backend("sim", hardware=args.hardware)
    chip = wia.get_device_info(wia.get_device(0))
    console.print(f"hardware model: {chip.name} ({escape(chip.model_file)})")
    rng = np.random.default_rng(0)
    host_w, host_x = weights(rng), rng.standard_normal((SEQ, D_MODEL), np.float32)

    ctx = wia.create_context(wia.ContextConfig(enable_profiling=True))
    main_stream, side_stream = wia.create_stream(ctx), wia.create_stream(ctx)
    bf16 = wia.bfloat16
    w = {name: wia.tensor(a.astype(bf16), ctx=ctx) for name, a in host_w.items()}
    x = wia.tensor(host_x.astype(bf16), ctx=ctx)
    next_layer = wia.alloc(ctx, w["up"].nbytes, wia.MemoryType.PINNED)  # the next block's W_up, staged on the host
    next_up = wia.alloc(ctx, w["up"].nbytes)
    wia.context_synchronize(ctx)

    profiler = wia.begin_profiling(ctx)
    y, up = block(x, w, main_stream, side_stream)
    wia.copy_async(next_layer, next_up, w["up"].nbytes, side_stream)  # overlaps the attention and the MLP
    wia.end_profiling(profiler)

    report = wia.get_profile_report(profiler)
    console.print(report)
    console.print(wia.explain(up))  # why the largest matmul took its time, and what else AUTO weighed

    rounded = {name: a.astype(bf16).astype(np.float32) for name, a in host_w.items()}
    error = np.abs(y.numpy().astype(np.float64) - reference(host_x.astype(bf16).astype(np.float32), rounded))
    console.print(f"result vs float64 NumPy: max abs error {error.max():.3g} (bfloat16 storage, float32 accumulation)")
    wia.save_profile(profiler, args.trace, wia.ProfileFormat.CHROME_TRACE)
    console.print(f"timeline: {args.trace} (open it in ui.perfetto.dev or chrome://tracing)")
    wia.destroy_profiler(profiler)
    wia.destroy_context(ctx)


if __name__ == "__main__":
    main()
