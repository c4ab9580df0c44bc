"""A system's fabric as the simulator runs it: directional links, each a SimPy resource, and the route of a pair.

A transfer crosses one or two *legs*. A leg holds every link it crosses for ``latency + bytes / bottleneck``
(cut-through: a multi-hop route through other devices pays each hop's latency but streams the bytes once, at
the slowest link's rate, as NVLink and ICI forwarding do), so that concurrent transfers over a shared link run
one after another at its full rate: two copies into one device's switch port take as long together as they would
sharing it. The two directions of a link are separate links. A pair with no path in the fabric (or a machine of
devices without a fabric) is staged through host memory: one leg device-to-host on the source's uplink, then one
host-to-device on the destination's, at their pinned rates, on the very engines ordinary copies use.

Links of a leg are taken in one global order (their index), so two legs that want the same links never hold
one each and wait for the other.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Generator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import simpy

from wia_sim.hwmodel import FabricSpec, HardwareModel
from wia_sim.resources import UnitPool

PathKind = Literal["local", "direct", "switch", "multi-hop", "host"]
Node = int | str
"""A device index, or ``"switch"``."""


@dataclass(eq=False)
class Link:
    """One direction of one link (or of a switch port): a resource of one unit, served in arrival order."""

    index: int
    src: Node
    dst: Node
    bandwidth: float
    pool: UnitPool

    @property
    def name(self) -> str:
        return f"{self.src}->{self.dst}"


@dataclass(frozen=True, eq=False)
class Leg:
    """Links crossed together: held for ``latency_s + bytes / bandwidth`` (the slowest link's)."""

    links: tuple[Link, ...]
    latency_s: float
    bandwidth: float

    def seconds(self, nbytes: int) -> float:
        return self.latency_s + nbytes / self.bandwidth


@dataclass(frozen=True, eq=False)
class Route:
    """How a transfer from ``src`` to ``dst`` goes: the kind of path, its legs, one after the other."""

    src: int
    dst: int
    kind: PathKind
    legs: tuple[Leg, ...]
    hops: int
    interface: str

    @property
    def device_hops(self) -> tuple[tuple[int, int], ...]:
        """The device-to-device links the route crosses, as (from, to) pairs (not a switch's ports, not the host)."""
        return tuple(
            (link.src, link.dst)
            for leg in self.legs
            for link in leg.links
            if isinstance(link.src, int) and isinstance(link.dst, int)
        )

    @property
    def peer(self) -> bool:
        """Whether the devices reach each other without host memory (a peer-to-peer path)."""
        return self.kind in ("direct", "switch", "multi-hop")

    @property
    def latency_s(self) -> float:
        return sum(leg.latency_s for leg in self.legs)

    @property
    def bandwidth(self) -> float:
        """The rate of a large transfer: bytes over the time the legs take, one after the other."""
        if not self.legs:
            return float("inf")
        return 1.0 / sum(1.0 / leg.bandwidth for leg in self.legs)

    def seconds(self, nbytes: int) -> float:
        """The time of a transfer of ``nbytes`` on an idle route."""
        return sum(leg.seconds(nbytes) for leg in self.legs)


def _coordinates(index: int, dims: Sequence[int]) -> list[int]:
    """Row-major coordinates (the last axis varies fastest)."""
    out = []
    for extent in reversed(dims):
        out.append(index % extent)
        index //= extent
    return out[::-1]


def _index(coords: Sequence[int], dims: Sequence[int]) -> int:
    index = 0
    for c, extent in zip(coords, dims, strict=True):
        index = index * extent + c
    return index


def _steps(a: int, b: int, extent: int, wrap: bool) -> list[int]:
    """The coordinates passed going from ``a`` to ``b`` along one axis: the shorter way round on a ring (ties go
    up), else straight."""
    if a == b:
        return []
    if wrap:
        up = (b - a) % extent
        direction = 1 if up <= extent - up else -1
        count = up if direction == 1 else extent - up
        return [(a + direction * (k + 1)) % extent for k in range(count)]
    direction = 1 if b > a else -1
    return list(range(a + direction, b + direction, direction))


class Topology:
    """The links of a system (``fabric`` None: no peer fabric, every pair through the host) on one SimPy
    environment; ``host_engines[i]`` are device ``i``'s ``h2d`` and ``d2h`` engines (shared by the devices of one
    host-link group), which a host-staged transfer uses."""

    def __init__(
        self,
        env: simpy.Environment,
        device: HardwareModel,
        count: int,
        fabric: FabricSpec | None,
        host_engines: Sequence[Mapping[str, UnitPool]],
    ) -> None:
        self.env = env
        self.device = device
        self.count = count
        self.fabric = fabric
        self.host_engines = host_engines
        self.links: dict[tuple[Node, Node], Link] = {}
        self._routes: dict[tuple[int, int] | tuple[int, str], Route] = {}
        if fabric is None:
            return
        if fabric.topology == "switch":
            for i in range(count):
                self._link(i, "switch")
                self._link("switch", i)
        elif fabric.topology == "mesh":
            for i, j in itertools.permutations(range(count), 2):
                self._link(i, j)
        else:
            dims = fabric.dims if fabric.topology == "torus" and fabric.dims else (count,)
            wrap = fabric.wraparound if fabric.topology == "torus" else True
            for i in range(count):
                for neighbour in self.neighbours(i, dims, wrap):
                    self._link(i, neighbour)

    def _link(self, src: Node, dst: Node) -> None:
        if (src, dst) not in self.links:
            assert self.fabric is not None
            pool = UnitPool(self.env, 1, f"link {src}->{dst}")
            rate = self.fabric.bandwidth * self.fabric.efficiency  # the achieved rate of a large transfer
            self.links[src, dst] = Link(len(self.links), src, dst, rate, pool)

    @staticmethod
    def neighbours(index: int, dims: Sequence[int], wrap: bool) -> list[int]:
        """The devices one link away on a ring or torus of ``dims``."""
        coords = _coordinates(index, dims)
        found: list[int] = []
        for axis, extent in enumerate(dims):
            for delta in (-1, 1):
                c = coords[axis] + delta
                if not 0 <= c < extent:
                    if not wrap:
                        continue
                    c %= extent
                moved = [*coords[:axis], c, *coords[axis + 1 :]]
                other = _index(moved, dims)
                if other != index and other not in found:
                    found.append(other)
        return found

    def route(self, src: int, dst: int) -> Route:
        """The path of a transfer from device ``src`` to device ``dst``."""
        key = (src, dst)
        found = self._routes.get(key)
        if found is None:
            found = self._routes[key] = self._route(src, dst)
        return found

    def _route(self, src: int, dst: int) -> Route:
        fabric = self.fabric
        if src == dst:
            return Route(src, dst, "local", (), 0, "device memory")
        if fabric is None:
            return self._host_route(src, dst)
        if fabric.topology == "switch":
            port = (self.links[src, "switch"], self.links["switch", dst])
            return Route(src, dst, "switch", (self._leg(port, 1),), 1, fabric.interface)
        if fabric.topology == "mesh":
            return Route(src, dst, "direct", (self._leg((self.links[src, dst],), 1),), 1, fabric.interface)
        dims = fabric.dims if fabric.topology == "torus" and fabric.dims else (self.count,)
        wrap = fabric.wraparound if fabric.topology == "torus" else True
        path = [src]
        coords = _coordinates(src, dims)
        target = _coordinates(dst, dims)
        for axis, extent in enumerate(dims):  # dimension-order routing: axis 0 first, then the next
            for c in _steps(coords[axis], target[axis], extent, wrap):
                coords[axis] = c
                path.append(_index(coords, dims))
        links = tuple(self.links[a, b] for a, b in itertools.pairwise(path))
        hops = len(links)
        kind: PathKind = "direct" if hops == 1 else "multi-hop"
        return Route(src, dst, kind, (self._leg(links, hops),), hops, fabric.interface)

    def port_route(self, device: int, into_switch: bool) -> Route:
        """A transfer between ``device`` and the switch itself (a switch that reduces or multicasts: the data
        crosses only the device's port, one way)."""
        key = (device, "into" if into_switch else "out of")
        found = self._routes.get(key)
        if found is not None:
            return found
        if self.fabric is None or self.fabric.topology != "switch":
            raise ValueError("only a switch fabric has ports to transfer into or out of")
        link = self.links[device, "switch"] if into_switch else self.links["switch", device]
        found = self._routes[key] = Route(device, device, "switch", (self._leg((link,), 1),), 1, self.fabric.interface)
        return found

    def _leg(self, links: tuple[Link, ...], hops: int) -> Leg:
        assert self.fabric is not None
        ordered = tuple(sorted(links, key=lambda link: link.index))
        return Leg(ordered, hops * self.fabric.latency, min(link.bandwidth for link in links))

    def _host_route(self, src: int, dst: int) -> Route:
        link = self.device.host_link
        d2h = self.host_engines[src]["d2h"]
        h2d = self.host_engines[dst]["h2d"]
        legs = (
            Leg((Link(-1, src, "host", link.pinned_d2h_bandwidth, d2h),), link.latency, link.pinned_d2h_bandwidth),
            Leg((Link(-1, "host", dst, link.pinned_h2d_bandwidth, h2d),), link.latency, link.pinned_h2d_bandwidth),
        )
        return Route(src, dst, "host", legs, 2, f"{link.interface} {link.generation} x{link.lanes} (host memory)")

    def transfer(
        self, route: Route, nbytes: int, started: Callable[[], None] | None = None
    ) -> Generator[simpy.Event, Any, None]:
        """A SimPy process body: move ``nbytes`` along ``route``, holding each leg's links while it crosses them;
        ``started`` is called once the first leg holds its links (the time spent waiting for busy links is not the
        transfer's)."""
        env = self.env
        for leg in route.legs:
            for link in leg.links:
                wait = link.pool.acquire(1)
                if wait is not None:
                    yield wait
            if started is not None:
                started()
                started = None
            yield env.timeout(leg.seconds(nbytes))
            for link in leg.links:
                link.pool.release(1)
        if started is not None:  # no legs (a device to itself): nothing to wait for
            started()

    def idle_copy(self) -> Topology:
        """The same fabric on a fresh environment with nothing else running (for predictions)."""
        env = simpy.Environment()
        engines: dict[int, dict[str, UnitPool]] = {}
        fresh = []
        for own in self.host_engines:
            key = id(own["h2d"])
            if key not in engines:  # devices of one host-link group share their engines
                engines[key] = {name: UnitPool(env, 1, name) for name in ("h2d", "d2h")}
            fresh.append(engines[key])
        return Topology(env, self.device, self.count, self.fabric, fresh)
