"""SPEC 3.2: device discovery and enumeration."""

from __future__ import annotations

from typing import Any

import pytest

import wia_hal as wia
from conformance import assertions as ph


@pytest.mark.req("R-3.2-01")
def test_device_count_is_a_non_negative_int() -> None:
    count = wia.get_device_count()
    ph.assert_int(count, "get_device_count()", minimum=0)
    ph.assert_equal(wia.get_device_count(), count, "get_device_count() called twice")


@pytest.mark.req("R-3.2-02")
def test_get_device_for_each_index() -> None:
    for i in range(wia.get_device_count()):
        ph.assert_isinstance(wia.get_device(i), wia.Device, f"get_device({i})")


@pytest.mark.req("R-3.2-02")
@pytest.mark.parametrize("index", ["-1", "count", "count+1"])
def test_get_device_out_of_range_is_invalid_device(index: str) -> None:
    count = wia.get_device_count()
    value = {"-1": -1, "count": count, "count+1": count + 1}[index]
    ph.assert_raises_code(wia.ErrorCode.INVALID_DEVICE, wia.get_device, value)


@pytest.mark.req("R-3.2-02")
@pytest.mark.parametrize("index", ["0", 0.0, 0.5, None, [0]], ids=["str", "float-0.0", "float-0.5", "None", "list"])
def test_get_device_non_int_is_invalid_device(index: Any) -> None:
    ph.assert_raises_code(wia.ErrorCode.INVALID_DEVICE, wia.get_device, index)


@pytest.mark.req("R-3.2-03")
def test_device_info_fields(device: wia.Device) -> None:
    info = wia.get_device_info(device)
    call = "get_device_info(get_device(0))"
    ph.assert_isinstance(info, wia.DeviceInfo, call)
    for name in ("name", "vendor"):
        value = getattr(info, name)
        ph.assert_isinstance(value, str, f"{call}.{name}")
        ph.assert_true(bool(value.strip()), value, "a non-empty string", f"{call}.{name}")
    ph.assert_isinstance(info.type, wia.DeviceType, f"{call}.type")
    ph.assert_int(info.compute_units, f"{call}.compute_units", minimum=1)
    ph.assert_int(info.memory_size, f"{call}.memory_size", minimum=1)
    ph.assert_positive_number(info.memory_bandwidth, f"{call}.memory_bandwidth")
    ph.assert_positive_number(info.peak_flops, f"{call}.peak_flops")


@pytest.mark.req("R-3.2-03")
def test_device_info_of_every_device() -> None:
    for i in range(wia.get_device_count()):
        info = wia.get_device_info(wia.get_device(i))
        ph.assert_isinstance(info, wia.DeviceInfo, f"get_device_info(get_device({i}))")


@pytest.mark.req("R-3.2-03")
def test_peak_flops_by_precision(device: wia.Device) -> None:
    info = wia.get_device_info(device)
    caps = wia.get_device_capabilities(device)
    call = "get_device_info(get_device(0)).peak_flops_by_precision"
    table = info.peak_flops_by_precision
    ph.assert_isinstance(table, dict, call)
    ph.assert_true("float32" in table, sorted(table), "a table with a 'float32' entry", call)
    ph.assert_equal(table["float32"], info.peak_flops, f"{call}['float32'] vs .peak_flops")
    for dtype in ph.claimed_dtypes(caps):
        if dtype.name == "int32":
            continue  # the spec names no dense int32 peak
        ph.assert_true(dtype.name in table, sorted(table), f"an entry for the claimed precision {dtype.name}", call)
        ph.assert_positive_number(table[dtype.name], f"{call}[{dtype.name!r}]")


@pytest.mark.req("R-3.2-03")
def test_device_type_to_string_for_every_type() -> None:
    names = {}
    for t in wia.DeviceType:
        name = wia.device_type_to_string(t)
        call = f"device_type_to_string(DeviceType.{t.name})"
        ph.assert_isinstance(name, str, call)
        ph.assert_true(bool(name.strip()), name, "a non-empty string", call)
        names[t] = name
    ph.assert_equal(len(set(names.values())), len(names), f"distinct names for {len(names)} device types {names}")


@pytest.mark.req("R-3.2-03")
@pytest.mark.parametrize("value", [99, -1, "GPU", None], ids=["99", "-1", "str", "None"])
def test_device_type_to_string_rejects_non_types(value: Any) -> None:
    ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, wia.device_type_to_string, value)


@pytest.mark.req("R-3.2-03")
def test_device_handles_of_other_kinds_are_rejected() -> None:
    ph.assert_raises_code((wia.ErrorCode.INVALID_DEVICE, wia.ErrorCode.INVALID_VALUE), wia.get_device_info, "device 0")
