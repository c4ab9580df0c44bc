"""Fault injection, an optional backend extension (``docs/faults.md``): make a device fail on demand, so that
recovery code (``memory_gc`` and retry, a longer timeout, ``reset_device``) is exercised without broken hardware.

A backend offers it by claiming ``DeviceCapabilities.supports_fault_injection`` and implementing the hooks of
:class:`wia_hal.backend.Backend`'s fault section; elsewhere :func:`inject_fault` is ``NOT_SUPPORTED``. The same
faults can be armed from the environment (``WIA_FAULTS``, ``WIA_FAULTS_SEED``) so that an unmodified program runs
under them.
"""

from __future__ import annotations

import os
from typing import Any

from pydantic import ConfigDict, Field, model_validator

from wia_hal.backend import FaultRecord
from wia_hal.context import LOST_AT_RESET
from wia_hal.devices import device_at
from wia_hal.enums import FaultKind
from wia_hal.errors import InvalidDeviceError, InvalidValueError, NotSupportedError, api, did_you_mean
from wia_hal.memory import Memory, check_memory
from wia_hal.models import FaultStats, WiaModel
from wia_hal.runtime import Runtime, runtime, runtime_started
from wia_hal.tensor import Tensor, check_tensor

FAULTS_VARIABLE = "WIA_FAULTS"
SEED_VARIABLE = "WIA_FAULTS_SEED"

_ONLY_FOR = {
    "count": (FaultKind.OUT_OF_MEMORY,),
    "buffer": (FaultKind.ECC_ERROR,),
    "uncorrectable": (FaultKind.ECC_ERROR,),
    "peer": (FaultKind.LINK_FAILURE,),
    "duration_ms": (FaultKind.HANG,),
}
_DEFAULTS: dict[str, Any] = {"count": 1, "buffer": None, "uncorrectable": False, "peer": None, "duration_ms": None}


class Fault(WiaModel):
    """A fault to inject on ``device``. Its trigger is one of ``after_ops`` (the op that starts after this many
    more ops have started on the device; 0, the default, is the next op; for ``OUT_OF_MEMORY`` it counts
    allocations), ``at_ms`` (the backend's clock, the one profiles use; for ``OUT_OF_MEMORY`` the first allocation
    from then on) or ``probability`` (each op, or allocation, fails with this probability, drawn from a generator
    seeded with ``seed``). A fault fires once."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    kind: FaultKind
    device: int = Field(0, ge=0, strict=True)
    after_ops: int | None = Field(None, ge=0, strict=True)
    at_ms: float | None = Field(None, ge=0.0)
    probability: float | None = Field(None, gt=0.0, le=1.0)
    seed: int = Field(0, strict=True)
    count: int = Field(1, ge=1, strict=True, description="OUT_OF_MEMORY: how many allocations in a row fail")
    buffer: Tensor | Memory | None = Field(
        None, description="ECC_ERROR: the tensor or Memory struck (None: memory the program cannot name)"
    )
    uncorrectable: bool = Field(False, strict=True, description="ECC_ERROR: uncorrectable (else corrected)")
    peer: int | None = Field(None, ge=0, strict=True, description="LINK_FAILURE: the device at the link's other end")
    duration_ms: float | None = Field(
        None, gt=0.0, description="HANG: how long the device stalls (None: until the watchdog or reset_device)"
    )

    @model_validator(mode="after")
    def _consistent(self) -> Fault:
        triggers = [name for name in ("after_ops", "at_ms", "probability") if getattr(self, name) is not None]
        if len(triggers) > 1:
            raise ValueError(f"give one trigger, not {' and '.join(triggers)}")
        for name, kinds in _ONLY_FOR.items():
            if getattr(self, name) != _DEFAULTS[name] and self.kind not in kinds:
                raise ValueError(f"{name} applies to {kinds[0].name} faults only, not {self.kind.name}")
        if self.kind is FaultKind.LINK_FAILURE and (self.peer is None or self.peer == self.device):
            raise ValueError(f"a LINK_FAILURE needs a peer device other than device {self.device} (peer=...)")
        return self


def _record(fault: Fault, rt: Runtime) -> FaultRecord[object]:
    """The fault as the backend receives it: the device and peer checked, the buffer as the backend's handle."""
    backend = rt.backend
    count = backend.device_count()
    for name, index in (("device", fault.device), ("peer", fault.peer)):
        if index is not None and index >= count:
            raise InvalidDeviceError(f"Fault.{name}={index}: the {backend.name!r} backend has {count} device(s)")
    caps = backend.device_capabilities(fault.device)
    if not caps.supports_fault_injection:
        raise NotSupportedError(
            f"the {backend.name!r} backend does not inject faults on device {fault.device} "
            "(supports_fault_injection is False); see docs/faults.md"
        )
    buffer: object = None
    offset = nbytes = 0
    if fault.buffer is not None:
        memory = check_tensor(fault.buffer).memory if isinstance(fault.buffer, Tensor) else check_memory(fault.buffer)
        if memory.context.device.index != fault.device:
            raise InvalidValueError(
                f"Fault.buffer is memory of device {memory.context.device.index}, not of Fault.device={fault.device}"
            )
        if memory.type not in LOST_AT_RESET:
            raise InvalidValueError(
                f"Fault.buffer is {memory.type.name} memory: an ECC_ERROR strikes device memory (DEVICE, UNIFIED "
                "or MANAGED); host memory's errors are the host's"
            )
        buffer, offset, nbytes = memory.buffer, memory.offset, memory.size
    trigger_given = fault.at_ms is not None or fault.probability is not None
    return FaultRecord(
        kind=fault.kind,
        device=fault.device,
        after_ops=None if trigger_given else (fault.after_ops or 0),
        at_ms=fault.at_ms,
        probability=fault.probability,
        seed=fault.seed,
        count=fault.count,
        buffer=buffer,
        offset=offset,
        nbytes=nbytes,
        uncorrectable=fault.uncorrectable,
        peer=fault.peer,
        duration_ms=fault.duration_ms,
    )


@api
def inject_fault(fault: Fault) -> None:
    """Arm ``fault`` on the active backend (``NOT_SUPPORTED`` where the device does not claim
    ``supports_fault_injection``). What each kind does, and how to recover, is in ``docs/faults.md``."""
    if not isinstance(fault, Fault):
        raise InvalidValueError(f"inject_fault: expected a wia Fault, got {type(fault).__name__}")
    rt = runtime()
    rt.backend.inject_fault(_record(fault, rt))


def _device_index(device: object) -> int:
    return device_at(device).index


@api
def clear_faults(device: int | None = None) -> None:
    """Disarm the faults of ``device`` (None: every device) that have not fired yet. What fired stays until
    ``reset_device`` (a lost or hung device, a failed link)."""
    rt = runtime()
    if device is not None:
        device = _device_index(device)
    for index in range(rt.backend.device_count()) if device is None else (device,):
        if not rt.backend.device_capabilities(index).supports_fault_injection:
            raise NotSupportedError(
                f"clear_faults: the {rt.backend.name!r} backend does not inject faults on device {index} "
                "(supports_fault_injection is False)"
            )
    rt.backend.clear_faults(device)


@api
def get_fault_stats(device: int = 0) -> FaultStats:
    """What injected faults did on ``device`` so far: fired and pending faults, ECC errors corrected (counted only:
    the data is intact) and uncorrectable, whether the device is lost or hung, failed links."""
    index = _device_index(device)
    rt = runtime()
    if not rt.backend.device_capabilities(index).supports_fault_injection:
        raise NotSupportedError(
            f"get_fault_stats: the {rt.backend.name!r} backend does not inject faults "
            "(supports_fault_injection is False)"
        )
    return rt.backend.fault_stats(index)


# -- WIA_FAULTS ------------------------------------------------------------------------------------------------------

_KIND_NAMES = {kind.value: kind for kind in FaultKind} | {"oom": FaultKind.OUT_OF_MEMORY, "ecc": FaultKind.ECC_ERROR}
_FLAGS = {"next_op": ("after_ops", 0), "next_alloc": ("after_ops", 0), "uncorrectable": ("uncorrectable", True)}
_FLAGS |= {"corrected": ("uncorrectable", False)}
_VALUES: dict[str, tuple[str, type]] = {
    "after_ops": ("after_ops", int),
    "after_allocs": ("after_ops", int),
    "at_ms": ("at_ms", float),
    "probability": ("probability", float),
    "seed": ("seed", int),
    "device": ("device", int),
    "peer": ("peer", int),
    "count": ("count", int),
    "duration_ms": ("duration_ms", float),
}
GRAMMAR = (
    "WIA_FAULTS is faults separated by ';', each KIND or KIND:OPTION,OPTION,... with KIND one of "
    f"{', '.join(sorted(_KIND_NAMES))} and OPTION one of {', '.join(sorted(_FLAGS))} or NAME=VALUE for NAME in "
    f"{', '.join(sorted(_VALUES))}; e.g. WIA_FAULTS='device_lost:after_ops=200;oom:next_alloc'"
)


def _value(text: str, kind: type, where: str) -> object:
    try:
        return kind(text)
    except ValueError:
        raise InvalidValueError(f"{where}: {text!r} is not {'an integer' if kind is int else 'a number'}") from None


def parse_faults(text: str, seed: int = 0) -> list[Fault]:
    """The faults ``WIA_FAULTS=text`` describes (``GRAMMAR``); the i-th fault's seed is ``seed + i`` unless it
    gives its own. Errors name the variable, the fault and what was expected."""
    faults = []
    for i, item in enumerate(part.strip() for part in text.split(";")):
        if not item:
            continue
        where = f"{FAULTS_VARIABLE} fault {i + 1} ({item!r})"
        name, _, rest = item.partition(":")
        kind = _KIND_NAMES.get(name.strip().lower())
        if kind is None:
            raise InvalidValueError(
                f"{where}: unknown fault kind {name.strip()!r}{did_you_mean(name.strip(), _KIND_NAMES)}; {GRAMMAR}"
            )
        fields: dict[str, Any] = {"kind": kind, "seed": seed + i}
        for option in (o.strip() for o in rest.split(",") if o.strip()) if rest.strip() else ():
            key, eq, text_value = option.partition("=")
            key = key.strip().lower()
            if not eq and key in _FLAGS:
                field, flag = _FLAGS[key]
                fields[field] = flag
            elif eq and key in _VALUES:
                field, cast = _VALUES[key]
                fields[field] = _value(text_value.strip(), cast, f"{where}: {key}")
            else:
                choices = [*_FLAGS, *_VALUES]
                raise InvalidValueError(f"{where}: unknown option {option!r}{did_you_mean(key, choices)}; {GRAMMAR}")
        try:
            faults.append(Fault(**fields))
        except InvalidValueError as e:
            raise InvalidValueError(f"{where}: {e.message}") from None
    return faults


def _from_environment(rt: Runtime) -> None:
    """Arm the faults of ``WIA_FAULTS`` on a runtime as it starts."""
    text = os.environ.get(FAULTS_VARIABLE, "").strip()
    if not text:
        return
    seed_text = os.environ.get(SEED_VARIABLE, "0").strip() or "0"
    try:
        seed = int(seed_text)
    except ValueError:
        raise InvalidValueError(f"{SEED_VARIABLE}={seed_text!r}: expected an integer seed") from None
    for fault in parse_faults(text, seed):
        try:
            rt.backend.inject_fault(_record(fault, rt))
        except (InvalidDeviceError, NotSupportedError) as e:
            raise type(e)(f"{FAULTS_VARIABLE}={text!r}: {e.message}") from None


runtime_started.append(_from_environment)

__all__ = [
    "FAULTS_VARIABLE",
    "GRAMMAR",
    "SEED_VARIABLE",
    "Fault",
    "clear_faults",
    "get_fault_stats",
    "inject_fault",
    "parse_faults",
]
