"""The hardware model schema: what a device is, as the simulator needs to know it.

A model is one TOML file in ``hardware_models/`` (or anywhere, by path). Every dimensioned value carries its
unit (see :mod:`wia_sim.units`); every number in a shipped file carries its source in a comment. Peaks are dense
(no structured sparsity) and at boost clock, as datasheets state them.
"""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Annotated, Literal, TypeVar, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from wia_sim.units import SI_NUMBERS, Bandwidth, Duration, FlopRate, Frequency, Size

M = TypeVar("M", bound=BaseModel)
PrecisionName = Literal["float64", "float32", "tf32", "float16", "bfloat16", "float8", "int8"]
DeviceTypeName = Literal["GPU", "NPU", "TPU", "CPU", "FPGA", "DSP", "OTHER"]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ComputeSpec(_Spec):
    compute_units: int = Field(gt=0, description="SMs, CUs, TPCs or cores: the unit work-groups are placed on")
    clock: Frequency = Field(gt=0, description="boost clock")
    peak_flops: dict[PrecisionName, Annotated[FlopRate, Field(gt=0)]] = Field(
        description="dense peak per precision; a precision absent here is not supported by the device"
    )
    max_work_group_size: int = Field(gt=0)
    local_memory_per_compute_unit: Size = Field(gt=0)
    max_local_memory_per_work_group: Size = Field(gt=0)
    vector_float64: FlopRate | None = Field(
        None,
        gt=0,
        description="FP64 rate of the vector units where the matrix units' FP64 peak (peak_flops.float64) is higher",
    )
    kernel_launch_latency: Duration = Field(
        gt=0,
        description="device-side interval of back-to-back tiny kernels on one queue (their data stay in the cache "
        "between kernels): the launch, one cache round trip and the end-of-kernel drain",
    )
    bytes_in_flight_per_compute_unit: Size | None = Field(
        None,
        gt=0,
        description="memory bytes one compute unit can have requested and not yet received (resident work-items × "
        "one 16-byte load each); none: the device's DMA engines keep its memory busy whatever a kernel's size",
    )

    @model_validator(mode="after")
    def _check(self) -> ComputeSpec:
        if "float32" not in self.peak_flops:
            raise ValueError("peak_flops must give float32 (the spec's DeviceInfo.peak_flops is dense FP32)")
        if self.max_local_memory_per_work_group > self.local_memory_per_compute_unit:
            raise ValueError("max_local_memory_per_work_group exceeds local_memory_per_compute_unit")
        return self


DEFAULT_MEMORY_LATENCY = 400e-9
"""DRAM load latency when a model gives none: the pointer-chase figures of the measured devices are 316 to 405 ns
(te42kyfo/gpu-benches: V100 316, H100 PCIe 375, MI210 391, A100 405 ns)."""


class MemorySpec(_Spec):
    size: Size = Field(gt=0)
    bandwidth: Bandwidth = Field(gt=0, description="peak device memory bandwidth")
    last_level_cache: Size = Field(ge=0)
    latency: Duration = Field(
        DEFAULT_MEMORY_LATENCY, gt=0, description="load-to-use latency of device memory (unloaded pointer chase)"
    )
    cache_latency: Duration = Field(
        0.0, ge=0, description="load-to-use latency of a last-level cache hit (unloaded pointer chase)"
    )
    cache_bandwidth: Bandwidth | None = Field(
        None,
        gt=0,
        description="read bandwidth of the last-level cache, for data a kernel re-reads while it is still cached "
        "(softmax's second pass over a row); None: not modeled, re-reads come from device memory",
    )
    alignment: Size = Field(gt=0, description="alignment and granularity of device allocations")
    alloc_latency: Duration = Field(gt=0, description="host time of one device allocation")
    free_latency: Duration = Field(gt=0, description="host time of one device free")

    @model_validator(mode="after")
    def _check(self) -> MemorySpec:
        alignment = int(self.alignment)
        if alignment & (alignment - 1):
            raise ValueError(f"alignment must be a power of two, got {alignment} bytes")
        if self.cache_latency > self.latency:
            raise ValueError("cache_latency exceeds latency (a cache hit is faster than device memory)")
        if self.cache_bandwidth is not None and self.cache_bandwidth <= self.bandwidth:
            raise ValueError("cache_bandwidth must exceed bandwidth (a cache is faster than device memory)")
        return self


class HostLinkSpec(_Spec):
    interface: str = Field(min_length=1, description="e.g. 'PCIe'")
    generation: int = Field(gt=0)
    lanes: int = Field(gt=0)
    pinned_h2d_bandwidth: Bandwidth = Field(gt=0)
    pinned_d2h_bandwidth: Bandwidth = Field(gt=0)
    pageable_h2d_bandwidth: Bandwidth = Field(gt=0)
    pageable_d2h_bandwidth: Bandwidth = Field(gt=0)
    latency: Duration = Field(gt=0, description="fixed cost of one DMA transfer")
    copy_engines: int = Field(
        gt=0,
        description="DMA (copy) engines as the vendor tool reports them; shown to users, while the simulator "
        "serves the copies of one link direction one after another, since they share the link's bandwidth",
    )

    @model_validator(mode="after")
    def _check(self) -> HostLinkSpec:
        if self.pageable_h2d_bandwidth > self.pinned_h2d_bandwidth:
            raise ValueError("pageable_h2d_bandwidth exceeds pinned_h2d_bandwidth (pageable copies are staged)")
        if self.pageable_d2h_bandwidth > self.pinned_d2h_bandwidth:
            raise ValueError("pageable_d2h_bandwidth exceeds pinned_d2h_bandwidth (pageable copies are staged)")
        return self


class HostSpec(_Spec):
    api_overhead: Duration = Field(gt=0, description="host time of a runtime call that launches nothing")
    launch_overhead: Duration = Field(gt=0, description="host time of one kernel launch call")
    memcpy_bandwidth: Bandwidth = Field(gt=0, description="host memory to host memory copy")
    pinned_alloc_latency: Duration = Field(gt=0, description="host time of one page-locked allocation")


class PeerLinkSpec(_Spec):
    interface: str = Field(min_length=1, description="e.g. 'NVLink 4'")
    bandwidth: Bandwidth = Field(gt=0, description="per direction, between two devices")
    latency: Duration = Field(gt=0)


DEFAULT_MEMORY_EFFICIENCY = 0.835
"""Streaming bandwidth over peak when a model gives none: the median of the fits of the shipped models to the
STREAM and copy rows of docs/fidelity/calibration.csv (V100 0.899, A100 0.857, H200 0.814, MI210 0.797;
``python benchmarks/fidelity.py --fit``)."""

DEFAULT_MATMUL_EFFICIENCY = 0.785
"""Large-matmul FLOP/s over the matrix peak when a model gives none: the median of the fits to the matmul rows of
calibration.csv (A100 0.887, H100 0.773, H200 0.785, MI300X 0.516, Gaudi2 1.0; ``benchmarks/fidelity.py --fit``)."""


class EfficiencySpec(_Spec):
    """What fraction of the peaks real kernels reach: the cost model's fitted terms (see docs/cost_model.md)."""

    memory: float = Field(
        DEFAULT_MEMORY_EFFICIENCY, gt=0, le=1, description="streaming kernels: achieved / peak memory bandwidth"
    )
    matmul: float = Field(
        DEFAULT_MATMUL_EFFICIENCY,
        gt=0,
        le=1,
        description="a large, well-shaped matmul (256×128 tiles, long K): achieved / peak of its precision",
    )


class FeaturesSpec(_Spec):
    unified_memory: bool
    managed_memory: bool
    pinned_memory: bool
    peer_to_peer: bool
    custom_kernels: bool
    profiling: bool
    max_streams: int = Field(gt=0)


class HardwareModel(_Spec):
    schema_version: Literal[1]
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")
    display_name: str = Field(min_length=1)
    vendor: str = Field(min_length=1)
    device_type: DeviceTypeName
    architecture: str = Field(min_length=1)
    compute: ComputeSpec
    memory: MemorySpec
    host_link: HostLinkSpec
    host: HostSpec
    features: FeaturesSpec
    efficiency: EfficiencySpec = EfficiencySpec()
    peer_link: PeerLinkSpec | None = None

    @model_validator(mode="after")
    def _check(self) -> HardwareModel:
        if self.features.peer_to_peer and self.peer_link is None:
            raise ValueError("features.peer_to_peer is true but no [peer_link] table is given")
        if self.memory.cache_latency >= self.compute.kernel_launch_latency:
            raise ValueError("memory.cache_latency must be below compute.kernel_launch_latency (which includes it)")
        return self

    def supports(self, precision: str) -> bool:
        return precision in self.compute.peak_flops

    @property
    def kernel_extensions(self) -> frozenset[str]:
        """The optional OpenCL C extensions custom kernels get: ``double`` and ``half`` arithmetic where the device
        has it."""
        wanted = (("cl_khr_fp64", "float64"), ("cl_khr_fp16", "float16"))
        return frozenset(name for name, precision in wanted if self.supports(precision))

    def vector_peak(self, precision: str) -> float:
        """The peak of the vector units (element-wise and direct kernels) for ``float32`` or ``float64``."""
        if precision == "float64" and self.compute.vector_float64 is not None:
            return self.compute.vector_float64
        return self.compute.peak_flops[precision]  # type: ignore[index]


TopologyName = Literal["switch", "mesh", "ring", "torus"]


class FabricSpec(_Spec):
    """The links between a system's devices (docs/hardware_models.md, "Systems"): what a peer copy crosses."""

    topology: TopologyName = Field(
        description="switch: one port per device into a non-blocking switch; mesh: a link between every pair; "
        "ring: device i linked to i-1 and i+1; torus: a grid of dims, linked to the neighbours along each axis"
    )
    interface: str = Field(min_length=1, description="e.g. 'NVLink 3 + NVSwitch'")
    bandwidth: Bandwidth = Field(
        gt=0, description="per direction: of each device's switch port (switch), else of each link (one pair)"
    )
    latency: Duration = Field(gt=0, description="one-way, small transfer, device to device over one path")
    dims: tuple[Annotated[int, Field(gt=0)], ...] | None = Field(None, description="torus only: the grid's extents")
    wraparound: bool = Field(True, description="torus only: whether each axis closes into a ring")
    efficiency: float = Field(
        1.0,
        gt=0,
        le=1,
        description="achieved over peak link bandwidth for large transfers (protocol, flow control); each link "
        "runs at bandwidth x efficiency. A fit to a system's large-message collective rows (docs/collectives.md)",
    )
    switch_reduction: bool = Field(
        False,
        description="switch only: the switch reduces and multicasts (NVLink SHARP, NVSwitch gen 3), so an "
        "all-reduce may send each device's data into the switch once and receive the result once",
    )

    @model_validator(mode="after")
    def _check(self) -> FabricSpec:
        if self.topology == "torus" and not self.dims:
            raise ValueError("a torus needs dims (the grid's extent along each axis, e.g. [4, 4])")
        if self.topology != "torus" and self.dims is not None:
            raise ValueError(f"dims is for a torus only (topology is {self.topology!r})")
        if self.switch_reduction and self.topology != "switch":
            raise ValueError(f"switch_reduction is for a switch only (topology is {self.topology!r})")
        return self


class CollectivesSpec(_Spec):
    step_latency: Duration = Field(
        0.0, ge=0, description="the collective library's cost per algorithm step (protocol, synchronization)"
    )
    call_latency: Duration = Field(
        0.0,
        ge=0,
        description="the collective library's fixed cost per call (kernel start, the participants' handshake), "
        "before the first step; a fit to a system's small-message rows (docs/collectives.md)",
    )


class SystemHostSpec(_Spec):
    host_link_groups: tuple[tuple[Annotated[int, Field(ge=0)], ...], ...] | None = Field(
        None, description="devices that share one host uplink (a PCIe switch); default: each its own"
    )


class SystemModel(_Spec):
    """A system: ``count`` devices of one device model and the fabric between them (``kind = "system"``)."""

    schema_version: Literal[1]
    kind: Literal["system"]
    name: str = Field(pattern=r"^[a-z0-9][a-z0-9.-]*$")
    display_name: str = Field(min_length=1)
    vendor: str = Field(min_length=1)
    device: str = Field(min_length=1, description="a shipped device model name, or a path relative to this file")
    count: int = Field(gt=0, description="devices in the system")
    fabric: FabricSpec
    collectives: CollectivesSpec = CollectivesSpec()
    host: SystemHostSpec = SystemHostSpec()

    @model_validator(mode="after")
    def _check(self) -> SystemModel:
        dims = self.fabric.dims
        if dims is not None and math.prod(dims) != self.count:
            raise ValueError(f"fabric.dims {list(dims)} hold {math.prod(dims)} devices, but count is {self.count}")
        groups = self.host.host_link_groups or ()
        seen: set[int] = set()
        for group in groups:
            for index in group:
                if index >= self.count:
                    raise ValueError(f"host.host_link_groups names device {index}; the system has {self.count}")
                if index in seen:
                    raise ValueError(f"host.host_link_groups names device {index} twice")
                seen.add(index)
        return self

    def host_link_group(self, index: int) -> int:
        """The host uplink device ``index`` uses: the first device of its group (itself when in none)."""
        for group in self.host.host_link_groups or ():
            if index in group:
                return min(group)
        return index


@dataclass(frozen=True)
class System:
    """A loaded system file: its validated model, the device model it names, and where it came from."""

    model: SystemModel
    device: HardwareModel
    path: Path

    @property
    def name(self) -> str:
        return self.model.name


class HardwareModelError(ValueError):
    """A model file that is missing, unreadable or invalid; the message names the file and the field."""


SYSTEMS_FOLDER = "systems"
"""Where shipped system files live, inside ``hardware_models/``."""


def _listed(folder: Traversable) -> dict[str, Path]:
    if not folder.is_dir():
        return {}
    return {
        Path(entry.name).stem: Path(str(entry))
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".toml")
    }


def _shipped() -> dict[str, Path]:
    """Shipped device models and systems by name (systems live in ``hardware_models/systems/``)."""
    folder = resources.files("hardware_models")
    return {**_listed(folder / SYSTEMS_FOLDER), **_listed(folder)}


def available_models() -> list[str]:
    """Names of the shipped device models."""
    return sorted(_listed(resources.files("hardware_models")))


def available_systems() -> list[str]:
    """Names of the shipped systems (``hardware_models/systems/*.toml``)."""
    return sorted(_listed(resources.files("hardware_models") / SYSTEMS_FOLDER))


def did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str:
    """``" (did you mean 'x'?)"`` or ``""``, to append to a message that lists choices: the choices that contain
    the misspelt word (``h100`` for ``nvidia-h100-sxm5-80gb``), else its close spellings. (wia_hal.errors has the
    same for the HAL's messages: the simulator does not import the HAL.)"""
    lower = word.lower()
    found = [c for c in choices if lower and lower in c.lower()] or difflib.get_close_matches(word, choices, n=3)
    return f" (did you mean {' or '.join(repr(c) for c in found[:3])}?)" if found else ""


def _looks_like_path(text: str) -> bool:
    return text.endswith(".toml") or "/" in text or "\\" in text


def model_path(name_or_path: str | Path) -> Path:
    """The file of a shipped model name, or the given path to a TOML file."""
    shipped = _shipped()
    if isinstance(name_or_path, str) and name_or_path in shipped:
        return shipped[name_or_path]
    text = str(name_or_path)
    path = Path(name_or_path)
    if isinstance(name_or_path, Path) or _looks_like_path(text):
        if path.is_file():
            if path.suffix != ".toml":
                raise HardwareModelError(f"hardware model file {text}: expected a .toml file")
            return path
        what = "is a directory, not a file" if path.is_dir() else "no such file"
        hint = f" (resolved to {path.resolve()})" if not path.is_absolute() else ""
        raise HardwareModelError(f"hardware model file {text}: {what}{hint}")
    raise HardwareModelError(
        f"unknown hardware model {text!r}{did_you_mean(text, sorted(shipped))}: expected a shipped model "
        f"({', '.join(sorted(shipped))}) or the path of a .toml file"
    )


def _raw(data: object, loc: tuple[int | str, ...]) -> object:
    """The value at ``loc`` as the file wrote it (pydantic reports it after unit conversion)."""
    for part in loc:
        found = part in data if isinstance(data, dict) else isinstance(data, list) and isinstance(part, int)
        if not found or (isinstance(data, list) and int(part) >= len(data)):
            return None
        data = data[part]  # type: ignore[index]
    return data


def _fields(loc: tuple[int | str, ...], root: type[BaseModel] = HardwareModel) -> list[str]:
    """The field names of the table that holds ``loc``."""
    model: type[BaseModel] = root
    for part in loc[:-1]:
        field = model.model_fields.get(str(part))
        annotation = field.annotation if field is not None else None
        candidates = [a for a in (annotation, *getattr(annotation, "__args__", ())) if isinstance(a, type)]
        nested = [a for a in candidates if issubclass(a, BaseModel)]
        if not nested:
            return []
        model = nested[0]
    return list(model.model_fields)


def _format_errors(
    path: Path, data: dict[str, object], error: ValidationError, root: type[BaseModel] = HardwareModel
) -> str:
    lines = []
    for item in error.errors():
        loc = tuple(item["loc"])
        field = ".".join(str(part) for part in loc) or "(top level)"
        message = item["msg"].removeprefix("Value error, ")
        hint = ""
        if item["type"] == "missing":
            message = "required field is missing"
        elif item["type"] == "extra_forbidden":
            schema = "system" if root is SystemModel else "hardware model"
            message = f"unknown key (not in the {schema} schema)"
            hint = did_you_mean(str(loc[-1]), _fields(loc, root))
        written = _raw(data, loc)
        got = f" (got {written!r})" if item["type"] not in ("missing", "value_error") and written is not None else ""
        lines.append(f"  {field}: {message}{got}{hint}")
    return f"hardware model file {path}: {len(lines)} invalid field(s):\n" + "\n".join(lines)


def _read(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as e:
        raise HardwareModelError(f"hardware model file {path}: cannot read it: {e}") from e
    except tomllib.TOMLDecodeError as e:
        raise HardwareModelError(f"hardware model file {path}: not valid TOML: {e}") from e


def _validated(path: Path, data: dict[str, object], root: type[M]) -> M:
    try:
        model = root.model_validate(data)
    except ValidationError as e:
        raise HardwareModelError(_format_errors(path, data, e, root)) from None
    shipped = Path(str(resources.files("hardware_models")))
    name = getattr(model, "name", path.stem)
    if path.parent in (shipped, shipped / SYSTEMS_FOLDER) and name != path.stem:
        raise HardwareModelError(f"hardware model file {path}: name: {name!r} differs from the file name")
    return model


def is_system(name_or_path: str | Path) -> bool:
    """Whether the file a name or path selects describes a system (``kind = "system"``)."""
    return _read(model_path(name_or_path)).get("kind") == "system"


def load_model(name_or_path: str | Path) -> HardwareModel:
    """Load and validate a device model by shipped name or path (a system file: use :func:`load_hardware`)."""
    path = model_path(name_or_path)
    data = _read(path)
    if data.get("kind") == "system":
        raise HardwareModelError(
            f'hardware model file {path}: describes a system (kind = "system"), not one device: load it with '
            f"load_system, or name its device model ({data.get('device')!r})"
        )
    return _validated(path, data, HardwareModel)


def load_system(name_or_path: str | Path) -> System:
    """Load and validate a system file and the device model it names (shipped name, or path relative to it)."""
    path = model_path(name_or_path)
    data = _read(path)
    if data.get("kind") != "system":
        raise HardwareModelError(f'hardware model file {path}: not a system file (it needs kind = "system")')
    model = _validated(path, data, SystemModel)
    device = model.device
    if _looks_like_path(device) and not Path(device).is_absolute():
        device = str(path.parent / device)
    try:
        return System(model, load_model(device), path)
    except HardwareModelError as e:
        raise HardwareModelError(f"hardware model file {path}: device: {e}") from None


def load_hardware(name_or_path: str | Path) -> HardwareModel | System:
    """A device model or a system, whichever the file is (``hardware=`` selects either)."""
    return load_system(name_or_path) if is_system(name_or_path) else load_model(name_or_path)


# Variations: a model with some fields changed (``set_backend("sim", set="memory.bandwidth=2x")``)

_FACTOR = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*x\s*$")
DEVICE_PREFIX = "device."
"""In a system's variations, the fields of its device model (``device.memory.bandwidth``)."""


def _nested(annotation: object) -> type[BaseModel] | None:
    candidates = [a for a in (annotation, *getattr(annotation, "__args__", ())) if isinstance(a, type)]
    found = [a for a in candidates if issubclass(a, BaseModel)]
    return found[0] if found else None


def _leaves(root: type[BaseModel], prefix: str = "") -> list[str]:
    """Every field that can be varied, as a dotted path (a table's fields below it, a mapping as a whole)."""
    paths = []
    for name, field in root.model_fields.items():
        nested = _nested(field.annotation)
        if nested is not None:
            paths.extend(_leaves(nested, f"{prefix}{name}."))
        else:
            paths.append(f"{prefix}{name}")
    return paths


def _mapping_keys(annotation: object) -> tuple[str, ...] | None:
    """The keys a mapping field allows (``peak_flops``: the precisions), or None when the field is no mapping."""
    if get_origin(annotation) is not dict:
        return None
    return tuple(str(key) for key in get_args(get_args(annotation)[0]))


def _locate(root: type[BaseModel], path: str, leaves: list[str]) -> list[str]:
    """``path``'s parts, checked against the schema: each names a field of its table, the last a value (or a key
    of a mapping of precisions: ``compute.peak_flops.bfloat16``)."""
    parts = path.strip().split(".")
    model = root
    for i, part in enumerate(parts):
        here = ".".join(parts[: i + 1])
        field = model.model_fields.get(part)
        if field is None:
            table = ".".join(parts[:i])
            where = f"table {table!r}" if table else "the top level"
            hint = did_you_mean(part, list(model.model_fields)) or did_you_mean(part, leaves)
            raise ValueError(f"unknown field {path!r}{hint}; the fields of {where}: {', '.join(model.model_fields)}")
        nested = _nested(field.annotation)
        rest = parts[i + 1 :]
        if nested is not None:
            if not rest:
                raise ValueError(f"{here} is a table; name one of its fields: {', '.join(nested.model_fields)}")
            model = nested
            continue
        if not rest:
            return parts
        keys = _mapping_keys(field.annotation)
        if keys is None or len(rest) > 1:
            raise ValueError(f"{here} is a value, not a table: {path!r} names nothing in it")
        if rest[0] not in keys:
            raise ValueError(
                f"{here} has no entry {rest[0]!r}{did_you_mean(rest[0], keys)}; its entries: {', '.join(keys)}"
            )
        return parts
    raise AssertionError("unreachable")  # the loop returns or raises on its last part


def _scaled(current: object, factor: float, path: str) -> object:
    if isinstance(current, bool) or current is None:
        raise ValueError(f"{path} is {current!r}: a factor scales a number only")
    if isinstance(current, int):
        return round(current * factor)
    if isinstance(current, float):
        return current * factor
    if isinstance(current, dict):
        return {key: _scaled(value, factor, f"{path}.{key}") for key, value in current.items()}
    raise ValueError(f"{path} is {current!r}: a factor scales a number only")


def _new_value(current: object, text: str, path: str) -> object:
    """``text`` as the value of ``path``: a factor of the current value (``2x``, integers rounded), or a value as a
    model file writes it (``'3.35 TB/s'``, ``108``, ``true``, ``[4, 4]``), which the schema then checks."""
    factor = _FACTOR.match(text)
    if factor is not None:
        return _scaled(current, float(factor.group(1)), path)
    stripped = text.strip()
    if stripped.startswith("["):
        try:
            return tomllib.loads(f"value = {stripped}")["value"]
        except tomllib.TOMLDecodeError as e:
            raise ValueError(f"{path}={text!r}: not a list: {e}") from None
    return stripped


def _vary_model(model: M, changes: Mapping[str, str]) -> M:
    root = type(model)
    leaves = _leaves(root)
    data = model.model_dump()
    for path, text in changes.items():
        parts = _locate(root, path, leaves)
        holder = data
        for part in parts[:-1]:
            holder = holder[part]
        if parts[-1] not in holder:
            raise ValueError(f"{path}: the model has no {parts[-1]!r} (its entries: {', '.join(holder)})")
        holder[parts[-1]] = _new_value(holder[parts[-1]], text, path)
    try:
        return root.model_validate(data, context=SI_NUMBERS)
    except ValidationError as e:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in item['loc']) or '(model)'}: {item['msg'].removeprefix('Value error, ')}"
            for item in e.errors()
        )
        raise ValueError(f"the varied model is invalid: {problems}") from None


def describe_changes(changes: Mapping[str, str]) -> str:
    """``memory.bandwidth=2x; compute.compute_units=108``: how a varied model names its changes."""
    return "; ".join(f"{path}={text.strip()}" for path, text in changes.items())


def vary(hardware: HardwareModel | System, changes: Mapping[str, str]) -> HardwareModel | System:
    """A validated copy of a device model or a system with the fields ``changes`` names set: ``{"memory.bandwidth":
    "2x", "compute.compute_units": "108", "memory.size": "141 GiB"}`` (a factor of the current value, or a value in
    the units a model file accepts). A system's own fields (``fabric.bandwidth``, ``count``) and its device
    model's (``device.memory.bandwidth``). The device's display name says it was varied. ValueError naming the
    field and the value when a field is unknown, a value unreadable, or the schema rejects the result."""
    if not changes:
        return hardware
    suffix = f" ({describe_changes(changes)})"
    if isinstance(hardware, System):
        own = {k: v for k, v in changes.items() if not k.startswith(DEVICE_PREFIX)}
        device = {k.removeprefix(DEVICE_PREFIX): v for k, v in changes.items() if k.startswith(DEVICE_PREFIX)}
        if "device" in own:
            raise ValueError(
                "device: a system's device model is chosen by its file; vary its fields instead "
                "(device.memory.bandwidth=2x)"
            )
        for path in own:
            try:
                _locate(HardwareModel, path, [])
            except ValueError:
                continue
            raise ValueError(
                f"{path!r} is a field of the system's device model: write it {DEVICE_PREFIX}{path} "
                f"(the system's own fields: {', '.join(SystemModel.model_fields)})"
            )
        model = _vary_model(hardware.model, own)
        varied = _vary_model(hardware.device, device)
        varied = varied.model_copy(update={"display_name": varied.display_name + suffix})
        return System(model, varied, hardware.path)
    varied_model = _vary_model(hardware, changes)
    return varied_model.model_copy(update={"display_name": varied_model.display_name + suffix})
