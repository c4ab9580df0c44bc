"""Fixtures of the conformance tests. The backend is selected by the plugin (:mod:`conformance.plugin`)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import wia_hal as wia

ContextFactory = Callable[..., wia.Context]


@pytest.fixture
def device() -> wia.Device:
    """Device 0 of the backend under test."""
    if wia.get_device_count() == 0:
        pytest.skip("the backend exposes no device")
    return wia.get_device(0)


@pytest.fixture
def info(device: wia.Device) -> wia.DeviceInfo:
    return wia.get_device_info(device)


@pytest.fixture
def caps(device: wia.Device) -> wia.DeviceCapabilities:
    return wia.get_device_capabilities(device)


def _destroy_quietly(ctx: wia.Context) -> None:
    with contextlib.suppress(wia.InvalidContextError):  # the test destroyed it itself
        wia.destroy_context(ctx)


@pytest.fixture
def new_context(device: wia.Device) -> Iterator[ContextFactory]:
    """``new_context(**ContextConfig fields)``: a context that is destroyed after the test (if still alive)."""
    made: list[wia.Context] = []

    def create_context_with(**config: Any) -> wia.Context:
        ctx = wia.create_context(wia.ContextConfig(**config))
        made.append(ctx)
        return ctx

    yield create_context_with
    for ctx in reversed(made):
        _destroy_quietly(ctx)


@pytest.fixture
def ctx(new_context: ContextFactory) -> wia.Context:
    """A fresh context on device 0, destroyed after the test."""
    return new_context()
