"""The backend boundary: what a backend receives, what the front end guarantees it, how backends are installed,
and the layering that keeps the HAL independent of the simulator."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest

import wia_hal as wia
from wia_hal.backends.sim import SimBackend
from wia_hal.opset import ATTRS, OP_NAMES

E = wia.ErrorCode


class OpsRecorder(SimBackend):
    """The simulator, recording every ``launch_op`` call as it arrives (to check what a backend receives)."""

    def __init__(self) -> None:
        super().__init__(hardware="wia-tiny")
        self.calls: list[tuple[str, Sequence[wia.TensorRef[Any]], wia.TensorRef[Any], object]] = []

    def launch_op(self, queue: Any, op: Any, inputs: Any, output: Any, attrs: Any) -> Any:
        self.calls.append((op, inputs, output, attrs))
        return super().launch_op(queue, op, inputs, output, attrs)


class WithoutOps(SimBackend):
    """A backend that runs no built-in op at all (a vendor's first day)."""

    ops = frozenset()

    def __init__(self) -> None:
        super().__init__(hardware="wia-tiny")


@pytest.fixture
def recorder() -> Iterator[OpsRecorder]:
    backend = OpsRecorder()
    wia.set_backend(backend)
    yield backend
    wia.set_backend("sim")


def test_set_backend_takes_an_instance_and_register_backend_a_factory() -> None:
    backend = WithoutOps()
    wia.set_backend(backend)
    assert wia.get_backend() is backend
    wia.register_backend("without_ops", WithoutOps)
    assert "without_ops" in wia.available_backends()
    wia.set_backend("without_ops")
    assert isinstance(wia.get_backend(), WithoutOps) and wia.get_backend() is not backend
    with pytest.raises(wia.InvalidValueError, match="options"):
        wia.set_backend(WithoutOps(), hardware="wia-tiny")
    with pytest.raises(wia.InvalidValueError, match=r"not a wia_hal\.Backend"):
        wia.register_backend("bogus", lambda: object())
        wia.set_backend("bogus")
    wia.set_backend("sim")


def test_every_op_has_one_attribute_model_and_the_sim_runs_them_all() -> None:
    assert set(ATTRS) == set(OP_NAMES)
    assert SimBackend.ops == frozenset(OP_NAMES)


def test_a_backend_receives_records_never_the_users_objects(recorder: OpsRecorder) -> None:
    a = wia.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    wia.sum(wia.transpose(a), axis=-1, keepdims=True).numpy()
    wia.zeros((2, 2)).numpy()
    ops = [call[0] for call in recorder.calls]
    assert ops == ["sum", "fill"]
    for _, inputs, output, attrs in recorder.calls:
        for ref in (*inputs, output):
            assert type(ref) is wia.TensorRef and not isinstance(ref, wia.Tensor)
        assert isinstance(attrs, wia.opset.OpAttrs)
    _, (view,), _, attrs = recorder.calls[0]
    assert view.shape == (3, 2) and view.strides == (4, 12)  # the transposed view, as byte strides
    assert attrs == wia.opset.ReduceAttrs(axis=(1,), keepdims=True)  # -1 normalised by the front end
    with pytest.raises(Exception):  # noqa: B017 (frozen: any attempt to change a record fails)
        view.offset = 8  # type: ignore[misc]


MISUSES = [
    ("add of mismatched shapes", lambda t, i: wia.add(t, wia.tensor(np.ones(5, np.float32)))),
    ("add of mixed dtypes", lambda t, i: wia.add(t, i)),
    ("sum over a missing axis", lambda t, i: wia.sum(t, axis=3)),
    ("softmax of ints", lambda t, i: wia.softmax(i)),
    ("matmul of mismatched inner dimensions", lambda t, i: wia.matmul(t, t)),
    ("concat of mismatched shapes", lambda t, i: wia.concat([t, wia.tensor(np.ones((3, 4), np.float32))], axis=0)),
    ("reshape to the wrong size", lambda t, i: wia.reshape(t, (7,))),
    ("transpose with a bad permutation", lambda t, i: wia.transpose(t, (0, 0))),
]


@pytest.mark.parametrize(("name", "misuse"), MISUSES, ids=[m[0] for m in MISUSES])
def test_misuse_is_invalid_value_even_on_a_backend_without_the_op(name: str, misuse: Any) -> None:
    """The front end validates every argument before it asks whether the backend has the op, so a misuse test
    means the same on every backend."""
    wia.set_backend(WithoutOps())
    t, i = wia.tensor(np.ones((2, 3), np.float32)), wia.tensor(np.ones((2, 3), np.int32))
    with pytest.raises(wia.WiaError) as info:
        misuse(t, i)
    assert info.value.code is E.INVALID_VALUE, str(info.value)
    wia.set_backend("sim")


def test_a_valid_call_on_a_backend_without_the_op_is_not_supported_and_leaves_nothing_behind() -> None:
    wia.set_backend(WithoutOps())
    ctx = wia.create_context()
    t = wia.tensor(np.ones((2, 3), np.float32), ctx=ctx)
    before = ctx.bytes_allocated
    with pytest.raises(wia.NotSupportedError, match="add: the 'sim' backend does not implement this op"):
        wia.add(t, t)
    with pytest.raises(wia.NotSupportedError, match="fill"):
        wia.zeros((4,), ctx=ctx)
    assert ctx.bytes_allocated == before  # the outputs of the refused calls were released
    view = wia.transpose(t)  # views need no op
    assert view.shape == (3, 2)
    wia.destroy_context(ctx)
    wia.set_backend("sim")


@pytest.mark.parametrize("fault", [KeyError("axis"), TypeError("bad operand"), ValueError("oops"), IndexError(3)])
def test_a_backends_own_exception_is_internal_chained_to_its_cause(fault: Exception) -> None:
    class Broken(SimBackend):
        def launch_op(self, *args: Any) -> Any:
            raise fault

    wia.set_backend(Broken(hardware="wia-tiny"))
    t = wia.tensor(np.ones(3, np.float32))
    with pytest.raises(wia.InternalError) as info:
        wia.relu(t)
    assert info.value.code is E.INTERNAL and info.value.__cause__ is fault
    wia.set_backend("sim")


def test_the_user_calling_with_missing_arguments_is_invalid_value() -> None:
    with pytest.raises(wia.InvalidValueError):
        wia.add(wia.zeros(2))  # type: ignore[call-arg]


def test_one_api_call_is_one_charge_of_host_time() -> None:
    backend = SimBackend(hardware="wia-tiny")
    wia.set_backend(backend)
    ctx = wia.create_context()
    a, b = wia.create_event(), wia.create_event()
    before = backend.machine.host_time
    wia.event_record(a, ctx.default_stream)
    wia.stream_wait_event(ctx.default_stream, a)
    wia.destroy_event(b)
    assert backend.machine.host_time - before == pytest.approx(3 * backend.model.host.api_overhead)
    wia.destroy_context(ctx)
    wia.set_backend("sim")


def test_import_wia_hal_does_not_import_the_simulator() -> None:
    code = (
        "import sys, wia_hal as wia\n"
        "wia.get_error_string(wia.ErrorCode.TIMEOUT)\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'wia_sim')\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
