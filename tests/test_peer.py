"""copy_peer_to_peer and get_peer_info on the simulator: the route's time, stream order, the errors of a bad call."""

from __future__ import annotations

import numpy as np
import pytest

import wia_hal as wia
from wia_hal.backends.sim import SimBackend
from wia_sim.commands import PeerCopy

LATENCY, BANDWIDTH = 2e-6, 12.5e9  # wia-tiny-4x's ring


@pytest.fixture
def ring() -> list[wia.Context]:
    wia.set_backend("sim", hardware="wia-tiny-4x")
    return [wia.create_context(wia.ContextConfig(device_id=i)) for i in range(4)]


def test_peer_info_describes_the_route(ring: list[wia.Context]) -> None:
    near = wia.get_peer_info(wia.get_device(0), wia.get_device(1))
    far = wia.get_peer_info(wia.get_device(0), wia.get_device(2))
    assert (near.supported, near.path, near.hops, near.bandwidth) == (True, "direct", 1, BANDWIDTH)
    assert (far.supported, far.path, far.hops) == (True, "multi-hop", 2)
    assert far.latency_ms == pytest.approx(2 * LATENCY * 1e3) and far.interface == "WIA test link"


def test_peer_info_without_a_fabric_is_the_host_path() -> None:
    wia.set_backend("sim", hardware="wia-tiny", devices=2)
    info = wia.get_peer_info(wia.get_device(0), wia.get_device(1))
    assert (info.supported, info.path, info.hops) == (False, "host", 2)
    assert 0 < info.bandwidth < 6e9  # the two legs of 6 GB/s pinned, one after the other
    t = wia.tensor(np.ones(4, np.float32))
    wia.create_context(wia.ContextConfig(device_id=1))
    with pytest.raises(wia.NotSupportedError, match="copy through the host"):
        wia.copy_peer_to_peer(wia.get_device(0), wia.get_device(1), t)


def test_copy_takes_the_routes_time(ring: list[wia.Context], sim: SimBackend) -> None:
    nbytes = 1 << 20
    t = wia.empty((nbytes // 4,), wia.float32, ctx=ring[0])
    for dst, hops in ((1, 1), (2, 2)):
        sim.machine.trace = []
        copy = wia.copy_peer_to_peer(wia.get_device(0), wia.get_device(dst), t)
        wia.context_synchronize(ring[0])
        (command,) = [c for c in sim.machine.trace if isinstance(c, PeerCopy)]
        expected = hops * LATENCY + nbytes / BANDWIDTH
        assert command.ended - command.started == pytest.approx(expected, rel=1e-9)
        assert command.stream is not None and command.stream.device.index == 0
        assert copy.context is ring[dst]


def test_copy_is_asynchronous(ring: list[wia.Context]) -> None:
    t = wia.empty((1 << 20,), wia.float32, ctx=ring[0])  # 4 MiB: 0.34 ms on the link
    wia.context_synchronize(ring[0])
    before = wia.get_backend().clock_ms()
    wia.copy_peer_to_peer(wia.get_device(0), wia.get_device(1), t)
    assert wia.get_backend().clock_ms() - before < 0.1  # the host did not wait for the transfer


def test_destination_stream_and_context(ring: list[wia.Context]) -> None:
    other = wia.create_context(wia.ContextConfig(device_id=1))
    s = wia.create_stream(ring[1])
    t = wia.tensor(np.arange(6, dtype=np.int32), ctx=ring[0])
    by_stream = wia.copy_peer_to_peer(wia.get_device(0), wia.get_device(1), t, stream=s)
    by_ctx = wia.copy_peer_to_peer(wia.get_device(0), wia.get_device(1), t, ctx=ring[1])
    newest = wia.copy_peer_to_peer(wia.get_device(0), wia.get_device(1), t)
    assert (by_stream.context, by_ctx.context, newest.context) == (ring[1], ring[1], other)
    for copy in (by_stream, by_ctx, newest):
        np.testing.assert_array_equal(copy.numpy(), np.arange(6, dtype=np.int32))


def test_strided_source_is_copied_by_value(ring: list[wia.Context]) -> None:
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = wia.transpose(wia.tensor(data, ctx=ring[0]), (1, 0))
    np.testing.assert_array_equal(wia.copy_peer_to_peer(wia.get_device(0), wia.get_device(3), t).numpy(), data.T)


def test_bad_calls(ring: list[wia.Context]) -> None:
    d = [wia.get_device(i) for i in range(4)]
    t = wia.tensor(np.ones(4, np.float32), ctx=ring[0])
    with pytest.raises(wia.InvalidValueError, match="same device"):
        wia.copy_peer_to_peer(d[0], d[0], t)
    with pytest.raises(wia.InvalidValueError, match="same device"):
        wia.get_peer_info(d[1], d[1])
    with pytest.raises(wia.InvalidValueError, match="is not on"):
        wia.copy_peer_to_peer(d[1], d[2], t)
    with pytest.raises(wia.InvalidContextError, match="is on"):
        wia.copy_peer_to_peer(d[0], d[1], t, ctx=ring[2])
    with pytest.raises(wia.InvalidContextError, match="another context"):
        wia.copy_peer_to_peer(d[0], d[1], t, ctx=ring[1], stream=wia.create_stream(ring[2]))
    with pytest.raises(wia.InvalidDeviceError):
        wia.get_peer_info(d[0], 7)  # type: ignore[arg-type]
    unified = wia.create_tensor_unified((4,), wia.float32, ctx=ring[0])
    with pytest.raises(wia.InvalidValueError, match="UNIFIED memory"):
        wia.copy_peer_to_peer(d[0], d[1], unified)
    wia.destroy_context(ring[3])
    with pytest.raises(wia.InvalidContextError, match="no live context"):
        wia.copy_peer_to_peer(d[0], d[3], t)


def test_copies_over_one_link_take_turns(ring: list[wia.Context], sim: SimBackend) -> None:
    """Two copies 0 -> 1 from two streams: the second starts when the first releases the link (its wait for the
    link is not part of its transfer), and ends a transfer time later."""
    t = wia.empty((1 << 18,), wia.float32, ctx=ring[0])
    streams = [wia.create_stream(ring[0]) for _ in range(2)]
    wia.context_synchronize(ring[0])
    sim.machine.trace = []
    copies = []
    for s in streams:
        with wia.use_stream(s):
            copies.append(
                wia.copy_peer_to_peer(wia.get_device(0), wia.get_device(1), t, stream=wia.create_stream(ring[1]))
            )
    wia.context_synchronize(ring[1])
    wia.context_synchronize(ring[0])
    first, second = sorted((c for c in sim.machine.trace if isinstance(c, PeerCopy)), key=lambda c: c.started)
    seconds = LATENCY + (1 << 20) / BANDWIDTH
    assert first.ended - first.started == pytest.approx(seconds)
    assert second.started == pytest.approx(first.ended) and second.ended - second.started == pytest.approx(seconds)
    assert len(copies) == 2


def test_the_multi_device_example_runs() -> None:
    """examples/multi_device.py (a `make run` demo): the peer table and the all-reduce sweep on every system."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, str(root / "examples" / "multi_device.py")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    for name in ("nvidia-dgx-a100", "nvidia-hgx-h100", "amd-mi300x-platform", "google-tpu-v5e-16", "multi-hop"):
        assert name in done.stdout
    assert done.stdout.count("GB/s") >= 16 and "Traceback" not in done.stderr
