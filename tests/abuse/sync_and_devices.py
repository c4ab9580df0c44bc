"""Rule groups of SPEC 3.8's fences and peer barriers, the fault-injection extension with ``reset_device``
(R-3.9-04), and work across the two devices (``copy_peer_to_peer``, collectives)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, rule

import wia_hal as wia
from abuse.core import FAILED, Codes, E, RuleGroup, abuse_group, contexts, streams, tensors
from abuse.groups import OP, USE, V, out
from wia_hal.runtime import runtime

fences: Bundle[wia.Fence] = Bundle("fences")
barriers: Bundle[wia.PeerBarrier] = Bundle("barriers")

TIMEOUTS = st.sampled_from([-1.0, 0.0, 0.001, 5.0, wia.TIMEOUT_INFINITE, True])
WAIT = frozenset({V, E.TIMEOUT, E.INVALID_DEVICE})


def _devices(indexes: list[int]) -> list[Any]:
    """Devices by index; an index past the backend's count stays an int (a wrong argument)."""
    count = wia.get_device_count()
    return [wia.get_device(i) if 0 <= i < count else i for i in indexes]


@abuse_group
class SyncRules(RuleGroup):
    CODES: ClassVar[dict[str, Codes]] = {
        "create_fence": frozenset(),
        "submit_with_fence": OP | {E.DEVICE_BUSY},
        "wait_fence": WAIT,
        "destroy_fence": frozenset({V}),
        "create_peer_barrier": frozenset({V, E.INVALID_DEVICE}),
        "peer_barrier_wait": WAIT,
        "destroy_peer_barrier": frozenset({V, E.INVALID_DEVICE}),
    }

    @rule(target=fences)
    def create_fence(self) -> Any:
        return out(self.attempt("create_fence", wia.create_fence, valid=True))

    @rule(
        fence=fences,
        t=tensors,
        stream=st.one_of(st.none(), streams),
        commands=st.sampled_from(["ops", "not callables", "not a list", "empty"]),
    )
    def submit_with_fence(self, fence: wia.Fence, t: wia.Tensor, stream: wia.Stream | None, commands: str) -> None:
        lists: dict[str, Any] = {
            "ops": [lambda: wia.relu(t), lambda: wia.add(t, t)],
            "not callables": [lambda: wia.relu(t), t],
            "not a list": lambda: wia.relu(t),
            "empty": [],
        }
        results = self.attempt("submit_with_fence", wia.submit_with_fence, lists[commands], fence, stream)
        if results is FAILED:
            return
        self.made.extend(results)  # teardown releases the tensors the commands made
        for r in results:
            self.produced(r, None)

    @rule(fence=fences, timeout=TIMEOUTS)
    def wait_fence(self, fence: wia.Fence, timeout: float) -> None:
        if self.attempt("wait_fence", wia.wait_fence, fence, timeout, waits=True) is not FAILED:
            for stream, _ in fence.points:
                self.synced(stream=stream)

    @rule(fence=fences)
    def destroy_fence(self, fence: wia.Fence) -> None:
        self.attempt("destroy_fence", wia.destroy_fence, fence)

    @rule(
        target=barriers, indexes=st.lists(st.integers(-1, 2), max_size=3), count=st.one_of(st.none(), st.integers(0, 3))
    )
    def create_peer_barrier(self, indexes: list[int], count: int | None) -> Any:
        return out(self.attempt("create_peer_barrier", wia.create_peer_barrier, _devices(indexes), count))

    @rule(barrier=barriers, device=st.one_of(st.none(), st.integers(0, 2)), timeout=TIMEOUTS)
    def peer_barrier_wait(self, barrier: wia.PeerBarrier, device: int | None, timeout: float) -> None:
        """From this one thread: for every device at once, or for one (which then waits for the others, so only
        with a short timeout: nothing else arrives)."""
        who = None if device is None else _devices([device])[0]
        if who is not None and not (isinstance(timeout, float) and 0 <= timeout <= 5.0):
            timeout = 1.0
        if self.attempt("peer_barrier_wait", wia.peer_barrier_wait, barrier, who, timeout, waits=True) is FAILED:
            return
        for ctx in list(runtime().contexts):
            if ctx.device in barrier.devices:
                self.synced(ctx)

    @rule(barrier=barriers)
    def destroy_peer_barrier(self, barrier: wia.PeerBarrier) -> None:
        self.attempt("destroy_peer_barrier", wia.destroy_peer_barrier, barrier)


KINDS = st.sampled_from(list(wia.FaultKind))


@abuse_group
class FaultRules(RuleGroup):
    """Faults on demand, then recovery. Once a fault is armed any later call may meet it, so its codes become
    ambient, and values are no longer checked (a lost device drops work, leaving its outputs undefined)."""

    CODES: ClassVar[dict[str, Codes]] = {
        "inject_fault": USE | {E.NOT_SUPPORTED, E.INVALID_DEVICE},
        "clear_faults": frozenset({V, E.NOT_SUPPORTED, E.INVALID_DEVICE}),
        "get_fault_stats": frozenset({V, E.NOT_SUPPORTED, E.INVALID_DEVICE}),
        "reset_device": frozenset({V, E.INVALID_CONTEXT}),
        "teardown_reset": frozenset({E.NOT_SUPPORTED}),
    }

    def __init__(self) -> None:
        super().__init__()
        self.faults_armed = False

    def expect(self, t: wia.Tensor, value: np.ndarray | None, bound: np.ndarray | float = 0.0) -> None:
        super().expect(t, None if self.faults_armed else value, bound)  # type: ignore[safe-super]

    @rule(
        kind=KINDS,
        device=st.integers(0, 2),
        trigger=st.sampled_from(["next", "after 3", "at 0.05 ms", "p 0.2"]),
        t=st.one_of(st.none(), tensors),
        extra=st.sampled_from([{}, {"duration_ms": 0.5}, {"peer": 1}, {"peer": 0}, {"count": 2}]),
    )
    def inject_fault(self, kind: wia.FaultKind, device: int, trigger: str, t: Any, extra: dict[str, Any]) -> None:
        fields: dict[str, Any] = {"kind": kind, "device": device}
        if trigger.startswith("after"):
            fields["after_ops"] = 3
        elif trigger.startswith("at"):
            fields["at_ms"] = wia.get_backend().clock_ms() + 0.05
        elif trigger.startswith("p"):
            fields["probability"], fields["seed"] = 0.2, 7
        if kind is wia.FaultKind.ECC_ERROR:
            fields["buffer"], fields["uncorrectable"] = t, device == 1
        fields |= {k: v for k, v in extra.items() if (k == "peer") == (kind is wia.FaultKind.LINK_FAILURE)}
        try:
            fault = wia.Fault(**fields)
        except (wia.WiaError, ValueError):  # a combination the model refuses (pydantic's own error, or the HAL's)
            return
        if self.attempt("inject_fault", wia.inject_fault, fault) is FAILED:
            return
        self.faults_armed = True
        self.expected.clear()
        # From now on any call may meet the fault: a lost device, an injected OOM, a hang's TIMEOUT, memory lost
        # at a later reset.
        self.ambient |= {E.DEVICE_LOST, E.OUT_OF_MEMORY, E.TIMEOUT, E.INVALID_MEMORY}

    @rule(device=st.one_of(st.none(), st.integers(-1, 2)))
    def clear_faults(self, device: int | None) -> None:
        self.attempt("clear_faults", wia.clear_faults, device)

    @rule(device=st.integers(-1, 2))
    def get_fault_stats(self, device: int) -> None:
        stats = self.attempt("get_fault_stats", wia.get_fault_stats, device)
        if stats is not FAILED:
            assert isinstance(stats, wia.FaultStats) and stats.device == device

    @rule(ctx=contexts)
    def reset_device(self, ctx: wia.Context) -> None:
        """Device memory is gone after a reset: tensors on it may raise INVALID_MEMORY from then on."""
        if self.attempt("reset_device", wia.reset_device, ctx) is not FAILED:
            self.ambient.add(E.INVALID_MEMORY)
            self.forget_values(ctx)
            self.synced(ctx)

    def teardown(self) -> None:
        """Recover every device first (a lost device refuses the releases the leak check needs)."""
        if self.faults_armed:
            self.attempt("teardown_reset", wia.clear_faults, None)
            for ctx in list(runtime().contexts):
                self.attempt("teardown_reset", wia.reset_device, ctx)
        super().teardown()  # type: ignore[misc]


@abuse_group
class PeerRules(RuleGroup):
    """Peer copies and collectives between the two devices (a fabric on the simulator, the host on reference)."""

    CODES: ClassVar[dict[str, Codes]] = {
        "copy_peer_to_peer": OP | {E.INVALID_DEVICE, E.DEVICE_BUSY},
        "collective": OP | {E.INVALID_DEVICE},
        "explain_collective": USE | {E.NOT_SUPPORTED},
    }

    @rule(src=st.integers(0, 1), dst=st.integers(0, 2), t=tensors, ctx=st.one_of(st.none(), contexts))
    def copy_peer_to_peer(self, src: int, dst: int, t: wia.Tensor, ctx: wia.Context | None) -> None:
        devices = _devices([src, dst])
        copy = self.attempt("copy_peer_to_peer", wia.copy_peer_to_peer, *devices, t, ctx=ctx)
        if copy is FAILED:
            return
        self.produced(copy, None)
        expected = self.expected_of(t)
        if expected is not None and not self.racy(t, t.memory.context.default_stream):
            self.expect(copy, expected.value, expected.bound)

    @rule(
        kind=st.sampled_from(["all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all"]),
        ts=st.lists(tensors, min_size=1, max_size=3),
        algorithm=st.sampled_from(["auto", "ring", "tree", "direct", "switch", "pairwise", "bogus"]),
    )
    def collective(self, kind: str, ts: list[wia.Tensor], algorithm: str) -> None:
        results = self.attempt("collective", getattr(wia, kind), ts, algorithm=algorithm)
        if results is FAILED:
            return
        self.made.extend(results)
        for r in results:
            self.produced(r, None)
        report = self.attempt("explain_collective", wia.explain_collective, results[0])
        if report is not FAILED:
            assert report.kind == kind and len(report.devices) == len(ts), (report, kind, len(ts))
