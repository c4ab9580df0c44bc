"""Every test runs on a fresh sim backend (wia-tiny unless it asks for another model) and leaves nothing alive."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest
from benchmark_scripts import benchmark_script
from kernel_backends import context_on

import wia_hal as wia
from wia_hal.backends.sim import SimBackend
from wia_hal.runtime import runtime


def _teardown() -> None:
    rt = runtime()
    for ctx in list(rt.contexts):
        ctx.destroy()


@pytest.fixture(autouse=True)
def tiny() -> Iterator[None]:
    wia.set_backend("sim", hardware="wia-tiny")
    yield
    _teardown()


@pytest.fixture
def sim() -> SimBackend:
    """The active sim backend (for reading the machine's clocks and model in tests)."""
    backend = wia.get_backend()
    assert isinstance(backend, SimBackend)
    return backend


@pytest.fixture
def ctx() -> wia.Context:
    return wia.create_context()


@pytest.fixture(params=["sim", "pocl", "oclgrind"])
def device_ctx(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[wia.Context]:
    """A context on the simulator and, in turn, on each real OpenCL device installed (skipped where there is none):
    for custom-kernel tests that hold every device to one NumPy reference (``kernel_backends.context_on``)."""
    with context_on(request.param, monkeypatch, tmp_path_factory) as context:
        yield context


@pytest.fixture
def raw_ctx() -> wia.Context:
    """A context without a default pool: each tensor allocates and frees device memory of its own (for tests of
    allocation, residency and release, which a pool's caching would hide)."""
    return wia.create_context(wia.ContextConfig(default_pool=False))


@pytest.fixture
def fidelity() -> ModuleType:
    """benchmarks/fidelity.py, imported as a module (it is a script, not a package)."""
    return benchmark_script("fidelity")
