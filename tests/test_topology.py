"""System files and the fabric: the schema's errors, routes per topology, link contention, host-staged pairs."""

from __future__ import annotations

from pathlib import Path

import pytest
import simpy

import wia_hal as wia
from wia_hal.backends.sim import SimBackend
from wia_sim.cli import model_sources
from wia_sim.hwmodel import (
    HardwareModelError,
    available_models,
    available_systems,
    load_hardware,
    load_model,
    load_system,
    model_path,
)
from wia_sim.machine import Machine
from wia_sim.topology import Topology

TINY_4X = model_path("wia-tiny-4x").read_text()
LATENCY = 2e-6
BANDWIDTH = 12.5e9


def _system(tmp_path: Path, fabric: str, count: int = 4, extra: str = "") -> Path:
    """A system of ``count`` wia-tiny devices with the given [fabric] lines (2 us, 12.5 GB/s)."""
    path = tmp_path / "system.toml"
    path.write_text(
        f'schema_version = 1\nkind = "system"\nname = "custom"\ndisplay_name = "x"\nvendor = "x"\n'
        f'device = "wia-tiny"\ncount = {count}\n{extra}\n[fabric]\n{fabric}\ninterface = "test"\n'
        f'bandwidth = "12.5 GB/s"\nlatency = "2 us"\n'
    )
    return path


def _machine(path: Path, devices: int | None = None) -> Machine:
    system = load_system(path)
    return Machine(system.device, devices or system.model.count, system=system.model)


def _run(topology: Topology, transfers: list[tuple[int, int, int]]) -> float:
    """Run the transfers at once on the topology's environment; the time the last one ends."""
    env = topology.env
    for src, dst, nbytes in transfers:
        env.process(topology.transfer(topology.route(src, dst), nbytes))
    env.run()
    return float(env.now)


# -- the schema -----------------------------------------------------------------------------------------------------


def test_shipped_test_system_loads_and_is_listed_apart_from_device_models() -> None:
    system = load_system("wia-tiny-4x")
    assert (system.model.count, system.device.name, system.model.fabric.topology) == (4, "wia-tiny", "ring")
    assert "wia-tiny-4x" in available_systems() and "wia-tiny-4x" not in available_models()
    assert isinstance(load_hardware("wia-tiny-4x"), type(system))
    assert load_hardware("wia-tiny").name == "wia-tiny"


@pytest.mark.parametrize("name", available_systems())
def test_every_figure_of_a_shipped_system_has_a_source(name: str) -> None:
    """The count, the device and every figure of [fabric], [collectives] and [host] carry a comment (on the line or
    right above it), as the device models' figures do."""
    system = load_system(name)
    _, sources = model_sources(model_path(name).read_text())
    sourced = ["count", "device", *(f"fabric.{k}" for k in system.model.fabric.model_fields_set)]
    for table in ("collectives", "host"):
        sourced += [f"{table}.{k}" for k in getattr(system.model, table).model_fields_set]
    missing = [field for field in sourced if not sources.get(field)]
    assert not missing, f"{name}: no source comment for {missing}"


@pytest.mark.parametrize(
    ("edit", "field", "expected"),
    [
        (('topology = "ring"', 'topolgy = "ring"'), "fabric.topolgy", "did you mean 'topology'"),
        (('topology = "ring"', 'topology = "star"'), "fabric.topology", "Input should be"),
        (('topology = "ring"', 'topology = "torus"'), "fabric", "a torus needs dims"),
        (('topology = "ring"', 'topology = "ring"\ndims = [2, 2]'), "fabric", "for a torus only"),
        (("[[0, 1], [2, 3]]", "[[0, 1], [1, 3]]"), "(top level)", "names device 1 twice"),
        (("[[0, 1], [2, 3]]", "[[0, 4]]"), "(top level)", "names device 4; the system has 4"),
        (('bandwidth = "12.5 GB/s"', 'bandwidth = "0 GB/s"'), "fabric.bandwidth", "greater than 0"),
        (("count = 4", "count = 0"), "count", "greater than 0"),
    ],
)
def test_bad_system_file_names_the_field(tmp_path: Path, edit: tuple[str, str], field: str, expected: str) -> None:
    old, new = edit
    assert old in TINY_4X
    path = tmp_path / "bad.toml"
    path.write_text(TINY_4X.replace(old, new, 1))
    with pytest.raises(HardwareModelError) as caught:
        load_system(path)
    message = str(caught.value)
    assert str(path) in message and f"  {field}: " in message and expected in message, message


def test_torus_dims_must_hold_count(tmp_path: Path) -> None:
    with pytest.raises(HardwareModelError, match=r"dims \[2, 3\] hold 6 devices, but count is 4"):
        load_system(_system(tmp_path, 'topology = "torus"\ndims = [2, 3]'))


def test_device_and_system_loaders_refuse_each_others_files(tmp_path: Path) -> None:
    with pytest.raises(HardwareModelError, match="describes a system"):
        load_model("wia-tiny-4x")
    with pytest.raises(HardwareModelError, match="not a system file"):
        load_system("wia-tiny")
    bad_device = _system(tmp_path, 'topology = "ring"').read_text().replace('"wia-tiny"', '"wia-tinny"')
    (tmp_path / "bad.toml").write_text(bad_device)
    with pytest.raises(HardwareModelError, match=r"device: unknown hardware model 'wia-tinny'.*did you mean"):
        load_system(tmp_path / "bad.toml")


def test_device_path_is_relative_to_the_system_file(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text(model_path("wia-tiny").read_text())
    path = _system(tmp_path, 'topology = "mesh"')
    path.write_text(path.read_text().replace('device = "wia-tiny"', 'device = "./mine.toml"'))
    assert load_system(path).device.name == "wia-tiny"


# -- routes ---------------------------------------------------------------------------------------------------------


def test_ring_routes_neighbours_directly_and_others_through_devices(tmp_path: Path) -> None:
    topology = _machine(_system(tmp_path, 'topology = "ring"')).topology
    assert len(topology.links) == 8  # two directions to each of two neighbours
    near, far, back = topology.route(0, 1), topology.route(0, 2), topology.route(0, 3)
    assert (near.kind, near.hops, back.kind) == ("direct", 1, "direct")
    assert (far.kind, far.hops, [link.name for link in far.legs[0].links]) == ("multi-hop", 2, ["0->1", "1->2"])
    assert far.peer and near.peer
    # cut-through: each hop's latency, the bytes once at the bottleneck
    assert far.seconds(10**6) == pytest.approx(2 * LATENCY + 10**6 / BANDWIDTH)


def test_switch_route_crosses_both_ports_with_one_latency(tmp_path: Path) -> None:
    topology = _machine(_system(tmp_path, 'topology = "switch"', count=8)).topology
    route = topology.route(3, 6)
    assert (route.kind, route.hops, [link.name for link in route.legs[0].links]) == (
        "switch",
        1,
        ["3->switch", "switch->6"],
    )
    assert route.seconds(10**6) == pytest.approx(LATENCY + 10**6 / BANDWIDTH)


def test_mesh_links_every_pair(tmp_path: Path) -> None:
    topology = _machine(_system(tmp_path, 'topology = "mesh"')).topology
    assert len(topology.links) == 12
    assert all(topology.route(i, j).kind == "direct" for i in range(4) for j in range(4) if i != j)


@pytest.mark.parametrize(
    ("wrap", "src", "dst", "hops"),
    [(True, 0, 3, 1), (True, 0, 5, 2), (True, 0, 10, 4), (False, 0, 3, 3), (False, 0, 15, 6)],
)
def test_torus_routes_by_dimension_order(tmp_path: Path, wrap: bool, src: int, dst: int, hops: int) -> None:
    fabric = f'topology = "torus"\ndims = [4, 4]\nwraparound = {str(wrap).lower()}'
    topology = _machine(_system(tmp_path, fabric, count=16)).topology
    route = topology.route(src, dst)
    assert route.hops == hops and route.kind == ("direct" if hops == 1 else "multi-hop")
    assert len(route.legs[0].links) == hops


def test_device_model_alone_stages_pairs_through_the_host() -> None:
    tiny = load_model("wia-tiny")
    machine = Machine(tiny, 2)
    route = machine.topology.route(0, 1)
    link = tiny.host_link
    assert (route.kind, route.peer, route.hops) == ("host", False, 2)
    n = 10**6
    expected = 2 * link.latency + n / link.pinned_d2h_bandwidth + n / link.pinned_h2d_bandwidth
    assert route.seconds(n) == pytest.approx(expected)
    # the legs are the devices' own copy engines: a staged transfer contends with ordinary copies
    assert route.legs[0].links[0].pool is machine.devices[0].engines["d2h"]
    assert route.legs[1].links[0].pool is machine.devices[1].engines["h2d"]


def test_host_link_groups_share_an_uplink() -> None:
    system = load_system("wia-tiny-4x")
    machine = Machine(system.device, 4, system=system.model)
    d = machine.devices
    assert d[0].engines["h2d"] is d[1].engines["h2d"] and d[2].engines["d2h"] is d[3].engines["d2h"]
    assert d[0].engines["h2d"] is not d[2].engines["h2d"]


# -- contention -----------------------------------------------------------------------------------------------------


def test_two_copies_into_one_switch_port_share_it(tmp_path: Path) -> None:
    topology = _machine(_system(tmp_path, 'topology = "switch"')).topology
    one = LATENCY + 10**6 / BANDWIDTH
    assert _run(topology.idle_copy(), [(0, 2, 10**6)]) == pytest.approx(one)
    assert _run(topology.idle_copy(), [(0, 2, 10**6), (1, 2, 10**6)]) == pytest.approx(2 * one)
    # different ports, and the two directions of one pair, do not contend
    assert _run(topology.idle_copy(), [(0, 2, 10**6), (1, 3, 10**6)]) == pytest.approx(one)
    assert _run(topology.idle_copy(), [(0, 2, 10**6), (2, 0, 10**6)]) == pytest.approx(one)


def test_multi_hop_transfer_holds_every_link_it_crosses(tmp_path: Path) -> None:
    topology = _machine(_system(tmp_path, 'topology = "ring"')).topology
    one = LATENCY + 10**6 / BANDWIDTH
    # 0 -> 2 crosses 0->1 and 1->2: a 1 -> 2 transfer waits for it
    assert _run(topology.idle_copy(), [(0, 2, 10**6), (1, 2, 10**6)]) == pytest.approx(one + LATENCY + one)


def test_idle_copy_is_a_fresh_environment(tmp_path: Path) -> None:
    topology = _machine(_system(tmp_path, 'topology = "ring"')).topology
    idle = topology.idle_copy()
    assert isinstance(idle.env, simpy.Environment) and idle.env is not topology.env
    assert set(idle.links) == set(topology.links)


# -- the sim backend on a system ------------------------------------------------------------------------------------


def test_backend_takes_the_systems_count_and_fewer_devices() -> None:
    wia.set_backend("sim", hardware="wia-tiny-4x")
    assert wia.get_device_count() == 4
    wia.set_backend("sim", hardware="wia-tiny-4x", devices=2)
    assert wia.get_device_count() == 2
    backend = wia.get_backend()
    assert isinstance(backend, SimBackend) and backend.machine.topology.route(0, 1).kind == "direct"
    with pytest.raises(wia.InvalidValueError, match="has 4 devices"):
        wia.set_backend("sim", hardware="wia-tiny-4x", devices=5)


def test_capabilities_claim_peer_to_peer_exactly_with_a_fabric() -> None:
    wia.set_backend("sim", hardware="wia-tiny", devices=2)
    assert not wia.get_device_capabilities(wia.get_device(0)).supports_peer_to_peer
    wia.set_backend("sim", hardware="wia-tiny-4x")
    assert all(wia.get_device_capabilities(wia.get_device(i)).supports_peer_to_peer for i in range(4))
    wia.set_backend("sim", hardware="wia-tiny-4x", devices=1)  # alone: no other device to reach
    assert not wia.get_device_capabilities(wia.get_device(0)).supports_peer_to_peer
