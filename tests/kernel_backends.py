"""Custom-kernel tests that run the same kernel on the simulator and on real OpenCL devices, chosen by name."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

import wia_hal as wia
from wia_sim.kernels import compile_source, executor, private_loops
from wia_sim.kernels.executor import KernelFault, run_kernel
from wia_sim.kernels.lanes import Geometry
from wia_sim.kernels.program import KernelCompileError


def use_backend(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory, **sim_options: Any
) -> None:
    """Make ``name`` the active backend: ``sim`` (on wia-tiny, with ``sim_options``: ``kernel_checks=False``) or
    the OpenCL device whose name contains it (the test is skipped where there is none, or without PyOpenCL). The
    OpenCL backend's measured peaks go to the session's temporary directory, not the user's cache."""
    if name == "sim":
        wia.set_backend("sim", hardware="wia-tiny", **sim_options)
        return
    pytest.importorskip("pyopencl", reason="PyOpenCL is not installed")
    from wia_hal.backends.opencl import OpenCLBackend, discovery

    if not any(name in c.searched.lower() for c in discovery.candidates()):
        pytest.skip(f"no OpenCL device matches {name!r}")
    monkeypatch.setenv("WIA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "wia-cache"))
    wia.set_backend(OpenCLBackend(device=name))


@contextmanager
def context_on(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory, **sim_options: Any
) -> Iterator[wia.Context]:
    """A context on backend ``name`` (``use_backend``), destroyed after; the sim is the backend again after."""
    use_backend(name, monkeypatch, tmp_path_factory, **sim_options)
    try:
        context = wia.create_context()
        yield context
        wia.destroy_context(context)
    finally:
        wia.set_backend("sim")


def run_arrays(
    ctx: wia.Context,
    source: str,
    kernel: str,
    arrays: Sequence[np.ndarray],
    global_size: int,
    local_size: int,
    *scalars: np.generic,
    options: str = "",
) -> list[np.ndarray]:
    """``kernel`` of ``source`` (built with ``options``) launched once on ``ctx`` with ``arrays`` as its buffer
    arguments, in order, then ``scalars``: every array's contents after the launch, as new arrays of its shape and
    dtype. Buffers are DEVICE memory filled from HOST staging (kernel element types are wider than the HAL's tensor
    dtypes)."""
    compiled = wia.compile_kernel(ctx, source, kernel, options=options)
    staged = []
    for data in arrays:
        raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
        staging = wia.alloc(ctx, raw.size, wia.MemoryType.HOST)
        wia.memory_ptr(staging)[:] = raw
        device = wia.alloc(ctx, raw.size)
        wia.copy_async(staging, device, raw.size)
        staged.append((device, staging))
    config = wia.LaunchConfig(global_size=global_size, local_size=local_size)
    wia.launch_kernel(compiled, config, *(d for d, _ in staged), *scalars)
    for device, staging in staged:
        wia.copy_async(device, staging, device.size)
    wia.context_synchronize(ctx)
    return [
        np.frombuffer(wia.memory_ptr(s).tobytes(), a.dtype).reshape(a.shape)
        for (_, s), a in zip(staged, arrays, strict=True)
    ]


def build_error(ctx: wia.Context, source: str, kernel: str = "k", options: str = "") -> str:
    """The message of the ``COMPILE_ERROR`` that building ``source`` on ``ctx`` must give (its build log on the
    simulator; the device's own words on an OpenCL one): what a test of a program Clang refuses checks."""
    with pytest.raises(wia.WiaError) as info:
        wia.compile_kernel(ctx, source, kernel, options=options)
    assert info.value.code == wia.ErrorCode.COMPILE_ERROR, str(info.value)
    return str(info.value)


def error_lines(lines: Iterable[str]) -> list[str]:
    """The error lines of a build log or refusal (not its warnings, nor the source lines a device quotes)."""
    return [line for line in lines if ": error: " in line]


def refused_log(source: str, options: str = "") -> list[str]:
    """The lines of the simulator's build log of ``source``, whose build must fail: what a test holds line for
    line against ``clang-15 -cc1``'s."""
    with pytest.raises(KernelCompileError) as raised:
        compile_source(source, options)
    return str(raised.value).splitlines()


def compile_errors(source: str, options: str = "") -> list[str]:
    """The error lines of ``refused_log``."""
    return error_lines(refused_log(source, options))


def assert_refused(
    ctx: wia.Context,
    request: pytest.FixtureRequest,
    source: str,
    message: str,
    at: str | None = None,
    options: str = "",
) -> str:
    """Building ``source`` on ``ctx`` (a ``device_ctx``) with ``options`` is refused with ``message``, Clang's
    words, on every device; on the simulator, whose log is its own, at ``at`` too (Clang's "line:column"). The
    refusal."""
    refusal = build_error(ctx, source, options=options)
    assert message in refusal
    if at is not None and request.node.callspec.params.get("device_ctx") == "sim":
        assert f"kernel.cl:{at}: error: {message}" in refusal
    return refusal


def run_on_copies(
    source: str,
    arrays: Sequence[np.ndarray],
    geometry: Geometry,
    scalars: Sequence[Any] = (),
    contract: bool = False,
    **options: Any,
) -> tuple[list[np.ndarray], Any]:
    """The simulator's executor running kernel ``k`` of ``source`` (built to contract ``a * b + c`` with
    ``contract``) over copies of ``arrays`` (then ``scalars``): the arrays after it, and its ``RunResult`` or the
    finding it raised (a step-limit timeout too)."""
    copies = [a.copy() for a in arrays]
    args: list[Any] = [c.reshape(-1).view(np.uint8) for c in copies] + list(scalars)
    try:
        result: Any = run_kernel(compile_source(source, contract=contract), "k", args, geometry, **options)
    except KernelFault as e:
        result = e
    return copies, result


@contextmanager
def private_loops_off(off: bool = True) -> Iterator[None]:
    """With ``off``, the executor runs no loop on arrays of the lanes still in it (``private_loops``): the
    interpreter's trips alone, for a run to hold the path's against."""
    saved = executor._Executor.private_trips
    if off:
        executor._Executor.private_trips = lambda *args: None  # type: ignore[method-assign]
    try:
        yield
    finally:
        executor._Executor.private_trips = saved  # type: ignore[method-assign]


@contextmanager
def private_trips_ran() -> Iterator[list[int]]:
    """The trips each run of a loop on arrays of its own lanes (``private_loops``) ran, one entry per run; -1 for
    one that a finding ended."""
    ran: list[int] = []
    run = private_loops._Trips.run

    def spy(self: Any) -> tuple[Any, int]:
        try:
            result = run(self)
        except Exception:
            ran.append(-1)
            raise
        ran.append(result[1])
        return result

    private_loops._Trips.run = spy  # type: ignore[method-assign]
    try:
        yield ran
    finally:
        private_loops._Trips.run = run  # type: ignore[method-assign]


_FAULT_FIELDS = ("check", "line", "work_item", "group", "address", "work_items", "groups", "address_range")


def assert_same_runs(first: tuple[list[np.ndarray], Any], second: tuple[list[np.ndarray], Any]) -> None:
    """Two runs of one kernel (``run_on_copies``'s) by two paths of the executor that must agree: the same bits
    in every array, and the same counts, steps and noted findings, or the same finding word for word, with the
    same work-item, group, address and offenders."""
    (arrays_1, result_1), (arrays_2, result_2) = first, second
    for a, b in zip(arrays_1, arrays_2, strict=True):
        assert a.tobytes() == b.tobytes()
    if isinstance(result_2, Exception):
        assert type(result_1) is type(result_2) and str(result_1) == str(result_2)
        assert [getattr(result_1, f) for f in _FAULT_FIELDS] == [getattr(result_2, f) for f in _FAULT_FIELDS]
    else:
        assert result_1.counts == result_2.counts and result_1.steps == result_2.steps
        assert [str(f) for f in result_1.findings] == [str(f) for f in result_2.findings]
