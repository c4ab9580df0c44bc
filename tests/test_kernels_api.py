"""The HAL side of SPEC 3.6.2: launch configurations, checks against the device, the kernel handle's life.

The HAL path is exercised through a test backend that records what it is asked; tests/test_kernels_sim.py runs
kernels on the sim backend itself."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pytest

import wia_hal as wia
import wia_hal.runtime as rt
from wia_hal.backends.sim import SimBackend
from wia_hal.models import DeviceCapabilities


class RecordingBackend(SimBackend):
    """The sim, claiming custom kernels: compiles anything to a kernel of a float buffer and a float scalar and
    records launches."""

    def __init__(self) -> None:
        super().__init__(hardware="wia-tiny")
        self.launches: list[tuple[str, list[wia.KernelArg[Any]], wia.NDRange]] = []

    def device_capabilities(self, device: int) -> DeviceCapabilities:
        return super().device_capabilities(device).model_copy(update={"supports_custom_kernels": True})

    def compile_kernel(self, device: int, source: str, name: str, options: str) -> tuple[Any, wia.KernelSignature]:
        if name not in source:
            raise wia.InvalidKernelError(f"no kernel {name!r} in the source")
        f32 = np.dtype(np.float32)
        params = (
            wia.KernelParam("a", "buffer", "float", f32, address_space="global"),
            wia.KernelParam("s", "scalar", "float", f32),
        )
        return name, wia.KernelSignature(name, params)

    def launch_kernel(self, queue: Any, kernel: Any, args: Sequence[wia.KernelArg[Any]], ndrange: wia.NDRange) -> None:
        self.launches.append((kernel, list(args), ndrange))


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> Iterator[RecordingBackend]:
    backend = RecordingBackend()
    monkeypatch.setattr(rt, "_runtime", rt.Runtime(backend))
    yield backend
    for ctx in list(rt.runtime().contexts):
        ctx.destroy()


def test_a_device_without_custom_kernels_says_so(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from wia_sim.hwmodel import model_path

    text = model_path("wia-tiny").read_text().replace("custom_kernels = true", "custom_kernels = false")
    path = tmp_path / "no-kernels.toml"
    path.write_text(text)
    wia.set_backend("sim", hardware=str(path))
    ctx = wia.create_context()
    assert not wia.get_device_capabilities(ctx.device).supports_custom_kernels
    with pytest.raises(wia.NotSupportedError, match="supports_custom_kernels is False"):
        wia.compile_kernel(ctx, "__kernel void k() {}", "k")


def test_peer_to_peer_is_not_supported_where_not_claimed() -> None:
    wia.set_backend("sim", hardware="wia-tiny", devices=2)
    ctx = wia.create_context()
    t = wia.tensor(np.ones(4, np.float32), ctx=ctx)
    with pytest.raises(wia.NotSupportedError, match="supports_peer_to_peer"):
        wia.copy_peer_to_peer(wia.get_device(0), wia.get_device(1), t)


def test_launch_config_styles() -> None:
    opencl = wia.LaunchConfig(global_size=(1024, 4), local_size=(256,), shared_memory=4096)
    assert opencl.global_dims == (1024, 4, 1) and opencl.local_dims == (256, 1, 1) and opencl.shared_bytes == 4096
    cuda = wia.LaunchConfig(grid_dim=(128, 128, 1), block_dim=(16, 16, 1), shared_mem=49152)
    assert cuda.global_dims == (2048, 2048, 1) and cuda.local_dims == (16, 16, 1) and cuda.shared_bytes == 49152
    # work_dim: how many sizes were given (clEnqueueNDRangeKernel's work_dim), or said
    assert (opencl.work_dim, cuda.work_dim) == (2, 3)
    assert wia.LaunchConfig(global_size=np.int64(64)).work_dim == 1
    assert wia.LaunchConfig(global_size=(64, 1)).work_dim == 2
    assert wia.LaunchConfig(global_size=64, work_dim=3).work_dim == 3
    # global_offset: OpenCL's global work offset, one per dimension of work_dim at most
    assert opencl.offset_dims == (0, 0, 0)
    assert wia.LaunchConfig(global_size=(64, 4), global_offset=(5, np.int32(3))).offset_dims == (5, 3, 0)
    assert wia.LaunchConfig(global_size=64, global_offset=7, work_dim=2).offset_dims == (7, 0, 0)


@pytest.mark.parametrize(
    "fields",
    [
        {"global_size": 1024, "grid_dim": 4, "block_dim": 256},
        {"local_size": 256},
        {"grid_dim": 4},
        {"global_size": (0, 1)},
        {"global_size": (1, 2, 3, 4)},
        {"global_size": 1024, "shared_memory": -1},
        {"global_size": "1024"},
        {"global_size": 1.5},
        {"global_size": True},
        {"global_size": 64, "work_dim": 4},
        {"global_size": 64, "global_offset": -1},
        {"global_size": 64, "global_offset": (1, 2)},  # more offsets than dimensions
        {"global_size": 64, "global_offset": True},
        {"global_size": (64, 2), "global_offset": (0, 1.5)},
        {"grid_dim": 4, "block_dim": 16, "global_offset": 8},  # the CUDA style has none
    ],
)
def test_bad_launch_configs_are_invalid_value(fields: dict[str, Any]) -> None:
    with pytest.raises(wia.InvalidValueError):
        wia.LaunchConfig(**fields)


def test_a_kernel_goes_through_the_backend(recording: RecordingBackend) -> None:
    ctx = wia.create_context()
    kernel = wia.compile_kernel(ctx, "__kernel void scale(__global float* a, float s) {}", "scale")
    buffer = wia.alloc(ctx, 4096)
    config = wia.LaunchConfig(global_size=1024, local_size=128)
    wia.launch_kernel(kernel, config, buffer, 2.0)
    stream = wia.create_stream(ctx)
    wia.launch_kernel_async(kernel, wia.LaunchConfig(grid_dim=8, block_dim=128), stream)
    assert [(name, float(args[1].value)) for name, args, _ in recording.launches] == [("scale", 2.0), ("scale", 2.0)]
    first_args = recording.launches[0][1]
    assert isinstance(first_args[0], wia.BufferArg) and first_args[0].nbytes == 4096
    assert [nd.global_size for _, _, nd in recording.launches] == [(1024, 1, 1), (1024, 1, 1)]
    wia.destroy_kernel(kernel)
    with pytest.raises(wia.InvalidKernelError, match="destroyed"):
        wia.launch_kernel_async(kernel, config, stream)


def test_kernel_misuse(recording: RecordingBackend) -> None:
    ctx = wia.create_context()
    with pytest.raises(wia.InvalidKernelError, match="no kernel"):
        wia.compile_kernel(ctx, "__kernel void a() {}", "b")
    with pytest.raises(wia.InvalidValueError, match="source must be a str"):
        wia.compile_kernel(ctx, b"bytes", "a")  # type: ignore[arg-type]
    kernel = wia.compile_kernel(ctx, "__kernel void k(__global float* a, float s) {}", "k")
    with pytest.raises(wia.InvalidValueError, match="arguments 0 to 1"):
        wia.set_kernel_arg(kernel, 2, 1)
    with pytest.raises(wia.InvalidValueError, match="buffer"):
        wia.set_kernel_arg(kernel, 0, 1.5)
    with pytest.raises(wia.InvalidValueError, match=r"arguments \[0, 1\] are not set"):
        wia.launch_kernel_async(kernel, wia.LaunchConfig(global_size=64))
    with pytest.raises(wia.InvalidKernelError):
        wia.destroy_kernel("kernel")  # type: ignore[arg-type]


def test_launch_arguments_are_all_checked_before_any_is_set(recording: RecordingBackend) -> None:
    """A launch whose arguments include a bad one sets none of them (no partial state): the kernel keeps the
    arguments it had, and a later launch with them checks them again (a buffer freed since is refused)."""
    ctx = wia.create_context()
    kernel = wia.compile_kernel(ctx, "__kernel void scale(__global float* a, float s) {}", "scale")
    kept, other = wia.alloc(ctx, 4096), wia.alloc(ctx, 4096)
    config = wia.LaunchConfig(global_size=1024, local_size=128)
    wia.launch_kernel(kernel, config, kept, 2.0)
    with pytest.raises(wia.InvalidValueError, match="'s'"):
        wia.launch_kernel(kernel, config, other, "three")
    with pytest.raises(wia.InvalidValueError, match="arguments 0 to 1"):
        wia.launch_kernel(kernel, config, other, 3.0, 4.0)
    wia.launch_kernel(kernel, config)  # (the arguments set by the first launch)
    assert [(args[0].nbytes, float(args[1].value)) for _, args, _ in recording.launches] == [(4096, 2.0)] * 2
    assert recording.launches[1][1][0].buffer is recording.launches[0][1][0].buffer
    wia.free(kept)
    with pytest.raises(wia.InvalidMemoryError, match="use after free"):
        wia.launch_kernel(kernel, config)
    assert len(recording.launches) == 2


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ({"global_size": 1024, "local_size": 512}, "the device allows 256"),
        ({"grid_dim": 1, "block_dim": (32, 32)}, "has 1024 work-items"),
        ({"global_size": 1000, "local_size": 64}, "not a multiple"),
        ({"global_size": 1024, "shared_memory": 1 << 20}, "shared memory"),
    ],
)
def test_geometry_the_device_cannot_run_is_invalid_launch_config(
    recording: RecordingBackend, config: dict[str, Any], fragment: str
) -> None:
    ctx = wia.create_context()
    kernel = wia.compile_kernel(ctx, "__kernel void k(__global float* a, int n) {}", "k")
    with pytest.raises(wia.InvalidLaunchConfigError, match=fragment) as info:
        wia.launch_kernel(kernel, wia.LaunchConfig(**config), wia.alloc(ctx, 64), 1)
    assert info.value.code is wia.ErrorCode.INVALID_LAUNCH_CONFIG
