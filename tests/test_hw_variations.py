"""Hardware variations: ``set_backend("sim", set="memory.bandwidth=2x")`` / ``WIA_SIM_SET`` change a model's fields
(wia_sim.hwmodel.vary), for any program, and say so in the device's name; bad variations name the field and value."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wia_hal as wia
from wia_sim.hwmodel import load_model, load_system, vary

H100 = "nvidia-h100-sxm5-80gb"


def _memory_ms(**options: object) -> float:
    """The memory time of a large (memory-bound) element-wise add."""
    wia.set_backend("sim", hardware=H100, numerics=False, **options)
    ctx = wia.create_context()
    try:
        a = wia.empty((64, 1 << 20), "bfloat16", ctx=ctx)
        report = wia.explain(wia.add(a, a))
        assert report.bound == "memory"
        return report.memory_ms
    finally:
        wia.destroy_context(ctx)


def test_doubled_bandwidth_halves_a_memory_bound_ops_memory_time() -> None:
    latency_ms = load_model(H100).memory.latency * 1e3  # the first load's latency does not scale with bandwidth
    streaming = _memory_ms() - latency_ms
    assert streaming > 100 * latency_ms
    assert _memory_ms(set="memory.bandwidth=2x") - latency_ms == pytest.approx(streaming / 2, rel=1e-12)
    assert _memory_ms(set={"memory.bandwidth": "0.5x"}) - latency_ms == pytest.approx(streaming * 2, rel=1e-12)


def test_a_factor_and_the_absolute_value_give_the_same_model() -> None:
    model = load_model(H100)
    doubled = 2 * model.memory.bandwidth
    by_factor = vary(model, {"memory.bandwidth": "2x"})
    by_value = vary(model, {"memory.bandwidth": f"{doubled / 1e12} TB/s"})
    assert by_factor.memory.bandwidth == pytest.approx(doubled) == by_value.memory.bandwidth
    assert model.memory.bandwidth == doubled / 2  # the loaded model is not changed


def test_integers_round_mappings_scale_every_entry_and_other_fields_stay() -> None:
    model = load_model(H100)
    varied = vary(model, {"compute.compute_units": "0.5x", "compute.peak_flops": "2x", "memory.size": "141 GiB"})
    assert isinstance(varied, type(model))
    assert varied.compute.compute_units == round(model.compute.compute_units / 2)
    assert varied.compute.peak_flops == {k: 2 * v for k, v in model.compute.peak_flops.items()}
    assert varied.memory.size == 141 * 2**30
    assert varied.model_dump(exclude={"compute", "memory", "display_name"}) == model.model_dump(
        exclude={"compute", "memory", "display_name"}
    )
    one = vary(model, {"compute.peak_flops.bfloat16": "1000 TFLOP/s"})
    assert one.compute.peak_flops["bfloat16"] == 1e15
    assert one.compute.peak_flops["float32"] == model.compute.peak_flops["float32"]


@settings(max_examples=25, deadline=None)
@given(factor=st.floats(0.01, 100.0))
def test_any_factor_scales_the_field_by_it(factor: float) -> None:
    model = load_model(H100)
    varied = vary(model, {"memory.size": f"{factor!r}x"})
    assert varied.memory.size == pytest.approx(model.memory.size * factor, rel=1e-12)


def test_the_device_says_it_was_varied() -> None:
    wia.set_backend("sim", hardware=H100, set="memory.bandwidth=2x; compute.compute_units=108")
    info = wia.get_device_info(wia.get_device(0))
    assert info.name == "NVIDIA H100 SXM5 80GB (memory.bandwidth=2x; compute.compute_units=108)"
    assert info.compute_units == 108
    assert info.memory_bandwidth == pytest.approx(2 * load_model(H100).memory.bandwidth)


def test_a_system_varies_its_own_fields_and_its_device_models() -> None:
    system = load_system("nvidia-hgx-h100")
    wia.set_backend("sim", hardware="nvidia-hgx-h100", set="count=4;fabric.bandwidth=2x;device.memory.size=0.5x")
    assert wia.get_device_count() == 4
    info = wia.get_device_info(wia.get_device(3))
    assert info.memory_size == system.device.memory.size // 2
    assert "fabric.bandwidth=2x" in info.name
    varied = vary(system, {"fabric.bandwidth": "2x"})
    assert varied.model.fabric.bandwidth == 2 * system.model.fabric.bandwidth
    peer = wia.get_peer_info(wia.get_device(0), wia.get_device(1))
    wia.set_backend("sim", hardware="nvidia-hgx-h100", devices=2)
    assert peer.bandwidth > wia.get_peer_info(wia.get_device(0), wia.get_device(1)).bandwidth


def test_the_variable_sets_it_and_errors_name_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_SIM_SET", "memory.size=0.5x")
    wia.set_backend("sim", hardware=H100)
    assert wia.get_device_info(wia.get_device(0)).memory_size == load_model(H100).memory.size // 2
    monkeypatch.setenv("WIA_SIM_SET", "memory.size=-1x")
    with pytest.raises(wia.InvalidValueError, match=r"memory\.size.*greater than 0.*WIA_SIM_SET='memory\.size=-1x'"):
        wia.set_backend("sim", hardware=H100)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "memory.bandwith=2x",
            r"unknown field 'memory\.bandwith' \(did you mean 'bandwidth'.*fields of table "
            r"'memory': size, bandwidth",
        ),
        ("bandwidth=2x", r"unknown field 'bandwidth' \(did you mean 'memory\.bandwidth'.*the top level"),
        ("memory=2x", r"memory is a table; name one of its fields: size"),
        ("compute.compute_units.x=1", r"compute\.compute_units is a value, not a table"),
        ("compute.peak_flops.fp7=2x", r"peak_flops has no entry 'fp7'.*its entries: float64"),
        ("memory.bandwidth=fast", r"memory\.bandwidth: expected a bandwidth like .*got 'fast'"),
        ("memory.bandwidth=3e12", r"memory\.bandwidth: expected a bandwidth .*got '3e12'"),
        ("memory.bandwidth=0x", r"memory\.bandwidth: Input should be greater than 0"),
        ("memory.cache_latency=1 s", r"cache_latency exceeds latency"),
        ("name=2x", r"a factor scales a number only"),
        ("memory.bandwidth", r"'memory\.bandwidth' is not field=value"),
        ("memory.size=2x;memory.size=3x", r"memory\.size is set twice"),
    ],
)
def test_a_bad_variation_names_the_option_the_field_and_the_value(text: str, expected: str) -> None:
    with pytest.raises(wia.InvalidValueError, match="sim backend option set=") as info:
        wia.set_backend("sim", hardware=H100, set=text)
    assert info.match(expected)
    assert wia.get_backend().name == "sim"  # the previous backend stays


def test_a_system_refuses_another_device_and_its_unknown_fields() -> None:
    with pytest.raises(wia.InvalidValueError, match="vary its fields instead"):
        wia.set_backend("sim", hardware="nvidia-hgx-h100", set="device=amd-mi300x")
    with pytest.raises(wia.InvalidValueError, match=r"unknown field 'fabric\.bandwith'"):
        wia.set_backend("sim", hardware="nvidia-hgx-h100", set="fabric.bandwith=2x")
    with pytest.raises(wia.InvalidValueError, match=r"device model: write it device\.memory\.size"):
        wia.set_backend("sim", hardware="nvidia-hgx-h100", set="memory.size=2x")
