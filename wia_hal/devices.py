"""SPEC 3.2 and 3.2.1: device discovery, info and capabilities."""

from __future__ import annotations

from wia_hal.backend import AnyBackend
from wia_hal.enums import DeviceType
from wia_hal.errors import InvalidDeviceError, InvalidValueError, api
from wia_hal.models import DeviceCapabilities, DeviceInfo
from wia_hal.runtime import runtime


class Device:
    """A device of the active backend. Handles from a backend that was since replaced are invalid."""

    __slots__ = ("_caps", "_info", "backend", "index")

    def __init__(self, backend: AnyBackend, index: int) -> None:
        self.backend = backend
        self.index = index
        self._info: DeviceInfo | None = None
        self._caps: DeviceCapabilities | None = None

    @property
    def info(self) -> DeviceInfo:
        if self._info is None:
            self._info = self.backend.device_info(self.index)
        return self._info

    @property
    def capabilities(self) -> DeviceCapabilities:
        if self._caps is None:
            self._caps = self.backend.device_capabilities(self.index)
        return self._caps

    def __repr__(self) -> str:
        return f"<wia.Device {self.index} of backend {self.backend.name!r}>"


@api
def get_device_count() -> int:
    """R-3.2-01: the number of devices the active backend exposes."""
    backend = runtime().backend
    return backend.device_count()


def device_at(index: object) -> Device:
    """The handle for device ``index``, or ``INVALID_DEVICE``."""
    rt = runtime()
    if not isinstance(index, int) or isinstance(index, bool):
        raise InvalidDeviceError(f"device index must be an int, got {type(index).__name__} {index!r}")
    count = rt.backend.device_count()
    if not 0 <= index < count:
        raise InvalidDeviceError(f"no device {index}: the {rt.backend.name!r} backend has {count} device(s)")
    device = rt.devices.get(index)
    if device is None:
        device = rt.devices[index] = Device(rt.backend, index)
    return device


def check_device(device: object) -> Device:
    """``device`` if it is a live handle of the active backend, else ``INVALID_DEVICE``."""
    if not isinstance(device, Device):
        raise InvalidDeviceError(f"expected a wia Device (from get_device), got {type(device).__name__}")
    if device.backend is not runtime().backend:
        raise InvalidDeviceError(f"{device!r} belongs to a backend that is no longer active")
    return device


@api
def get_device(index: int) -> Device:
    """R-3.2-02: device ``index`` for ``0 <= index < get_device_count()``."""
    return device_at(index)


@api
def get_device_info(device: Device) -> DeviceInfo:
    """R-3.2-03."""
    return check_device(device).info


@api
def get_device_capabilities(device: Device) -> DeviceCapabilities:
    """R-3.2.1-01."""
    return check_device(device).capabilities


@api
def device_type_to_string(device_type: DeviceType) -> str:
    """A readable name of a device type (R-3.2-03)."""
    names = {
        DeviceType.GPU: "GPU",
        DeviceType.NPU: "NPU (neural processing unit)",
        DeviceType.TPU: "TPU (tensor processing unit)",
        DeviceType.CPU: "CPU",
        DeviceType.FPGA: "FPGA",
        DeviceType.DSP: "DSP",
        DeviceType.OTHER: "other accelerator",
    }
    try:
        return names[DeviceType(device_type)]
    except (ValueError, TypeError):
        raise InvalidValueError(
            f"device_type_to_string: {device_type!r} is not a DeviceType ({', '.join(t.name for t in DeviceType)})"
        ) from None
