"""Custom-kernel tests that run the same kernel on the simulator and on real OpenCL devices, chosen by name."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

import wia_hal as wia


def use_backend(name: str, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Make ``name`` the active backend: ``sim`` (on wia-tiny) or the OpenCL device whose name contains it (the
    test is skipped where there is none, or without PyOpenCL). The OpenCL backend's measured peaks go to the
    session's temporary directory, not the user's cache."""
    if name == "sim":
        wia.set_backend("sim", hardware="wia-tiny")
        return
    pytest.importorskip("pyopencl", reason="PyOpenCL is not installed")
    from wia_hal.backends.opencl import OpenCLBackend, discovery

    if not any(name in c.searched.lower() for c in discovery.candidates()):
        pytest.skip(f"no OpenCL device matches {name!r}")
    monkeypatch.setenv("WIA_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "wia-cache"))
    wia.set_backend(OpenCLBackend(device=name))


@contextmanager
def context_on(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[wia.Context]:
    """A context on backend ``name`` (``use_backend``), destroyed after; the sim is the backend again after."""
    use_backend(name, monkeypatch, tmp_path_factory)
    try:
        context = wia.create_context()
        yield context
        wia.destroy_context(context)
    finally:
        wia.set_backend("sim")
