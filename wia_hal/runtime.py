"""Which backend is active, found by name through the ``wia_hal.backends`` entry-point group.

Selection: ``set_backend(name, **options)``, or the environment (``WIA_BACKEND=sim``, options as
``WIA_SIM_HARDWARE=nvidia-h100-sxm5-80gb``, ``WIA_SIM_DEVICES=2``, ``WIA_SIM_NUMERICS=0``); an explicit option wins
over its variable, with an ``OptionOverrideWarning`` when they differ. The backend is
created on first use; ``set_backend`` may be called again whenever no context is alive. A backend that is not
installed as a package is installed in-process: ``set_backend(MyBackend())``, or ``register_backend("acme",
AcmeBackend)`` and then selected by name like an installed one.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any

from wia_hal.backend import AnyBackend, Backend
from wia_hal.errors import (
    DeviceLostError,
    InvalidValueError,
    OptionOverrideWarning,
    WiaError,
    api,
    did_you_mean,
    error_for,
    set_call_hook,
    set_lost_hook,
    warn_at_call_site,
)

if TYPE_CHECKING:
    from wia_hal.context import Context
    from wia_hal.devices import Device
    from wia_hal.streams import Stream

DEFAULT_BACKEND = "sim"
ENTRY_POINT_GROUP = "wia_hal.backends"


BackendFactory = Callable[..., AnyBackend]

_registered: dict[str, BackendFactory] = {}


def available_backends() -> list[str]:
    """Names of every installed (entry point) and registered (in-process) backend."""
    return sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)} | set(_registered))


@api
def register_backend(name: str, factory: BackendFactory) -> None:
    """Make ``factory`` (a ``Backend`` subclass, or a callable taking the options and returning a backend)
    selectable as ``name`` in this process, as an entry point would: ``set_backend(name)``, ``WIA_BACKEND=name``."""
    if not isinstance(name, str) or not name.isidentifier():
        raise InvalidValueError(f"register_backend: name must be an identifier-like str, got {name!r}")
    if not callable(factory):
        raise InvalidValueError(f"register_backend: factory must be callable, got {type(factory).__name__}")
    _registered[name] = factory


_installed: dict[str, BackendFactory] = {}
"""Entry-point backends already loaded, by name: scanning the installed distributions' metadata costs 10-20 ms,
which a program that switches backends often (a sweep: one ``set_backend`` per hardware point) would pay each
time."""


def _backend_class(name: str, origin: str) -> BackendFactory:
    if name in _registered:
        return _registered[name]
    if name in _installed:
        return _installed[name]
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == name]
    if not found:
        names = available_backends()
        raise InvalidValueError(
            f"unknown backend {name!r}{origin}{did_you_mean(name, names)}; "
            f"available backends: {', '.join(names) or '(none installed)'}"
        )
    try:
        cls = found[0].load()
    except Exception as e:  # a broken plugin must not look like a missing one
        raise InvalidValueError(f"backend {name!r} is installed but failed to load: {type(e).__name__}: {e}") from e
    if not (isinstance(cls, type) and issubclass(cls, Backend)):
        raise InvalidValueError(f"backend {name!r} entry point gives {cls!r}, not a wia_hal.backend.Backend subclass")
    _installed[name] = cls
    return cls


def options_from_environment(name: str) -> dict[str, str]:
    """``WIA_<NAME>_<OPTION>=value`` variables, as lower-case option names."""
    prefix = f"WIA_{name.upper()}_"
    return {key[len(prefix) :].lower(): value for key, value in sorted(os.environ.items()) if key.startswith(prefix)}


def _variable(backend: str, option: str) -> str:
    return f"WIA_{backend.upper()}_{option.upper()}"


def _accepted_options(factory: BackendFactory) -> list[str] | None:
    """The keyword options a factory takes, or None when it takes any (``**options``) or cannot be inspected."""
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return [p.name for p in parameters if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _check_options(name: str, factory: BackendFactory, explicit: dict[str, Any], environment: dict[str, str]) -> None:
    accepted = _accepted_options(factory)
    if accepted is None:
        return
    for option in sorted(set(explicit) | set(environment)):
        if option in accepted:
            continue
        where = f" (from {_variable(name, option)} in the environment)" if option not in explicit else ""
        raise InvalidValueError(
            f"backend {name!r} has no option {option!r}{where}{did_you_mean(option, accepted)}; "
            f"its options: {', '.join(accepted) or '(none)'}"
        )


def _warn_overrides(name: str, explicit: dict[str, Any], environment: dict[str, str]) -> None:
    for option in sorted(set(explicit) & set(environment)):
        if str(explicit[option]) != environment[option]:
            warn_at_call_site(
                f"{_variable(name, option)}={environment[option]!r} in the environment is overridden by the "
                f"explicit option {option}={explicit[option]!r}: explicit options win over the environment "
                "(to let the environment choose, leave the option out)",
                OptionOverrideWarning,
            )


class Runtime:
    """The active backend and what the HAL holds on it: live contexts, device handles, the default context."""

    def __init__(self, backend: AnyBackend) -> None:
        self.backend = backend
        self.contexts: list[Context] = []
        self.default_context: Context | None = None
        self.current: list[Context] = []
        self.stream_scopes: list[Stream] = []
        """The streams of the ``with use_stream(s):`` blocks being run, innermost last."""
        self.devices: dict[int, Device] = {}
        self.lost: dict[int, str] = {}
        """Devices a backend reported lost (``DEVICE_LOST``), with why: every call on a context of one raises
        ``DEVICE_LOST`` until ``reset_device`` (CUDA's sticky errors; ``docs/faults.md``)."""

    def check_alive(self, device: int) -> None:
        """``DEVICE_LOST`` if ``device`` was lost and not reset since."""
        reason = self.lost.get(device)
        if reason is not None:
            raise DeviceLostError(
                f"device {device} was lost ({reason}); every call on its contexts raises DEVICE_LOST until "
                "reset_device(ctx) re-initialises it"
            )


_runtime: Runtime | None = None

runtime_started: list[Callable[[Runtime], None]] = []
"""Told of every runtime as its backend is installed, before it is used: ``WIA_FAULTS`` (:mod:`wia_hal.faults`)
arms its faults here. A callback raises ``WiaError`` to refuse the backend."""


def _create(name: str, explicit: dict[str, Any], from_environment: bool = False) -> Runtime:
    """The runtime of backend ``name``: explicit options over ``WIA_<NAME>_<OPTION>`` variables over the
    backend's defaults. Errors say which values came from the environment."""
    origin = " (from WIA_BACKEND in the environment)" if from_environment else ""
    factory = _backend_class(name, origin)
    environment = options_from_environment(name)
    _check_options(name, factory, explicit, environment)
    _warn_overrides(name, explicit, environment)
    options = environment | explicit
    used = {option: value for option, value in environment.items() if option not in explicit}
    try:
        backend = factory(**options)
    except WiaError as e:
        if not used:
            raise
        settings = ", ".join(f"{_variable(name, option)}={value!r}" for option, value in used.items())
        raise error_for(e.code, f"{e.message} (set in the environment: {settings})") from e.__cause__
    except TypeError as e:
        raise InvalidValueError(f"backend {name!r}: bad options {sorted(options)}: {e}") from None
    return _install(backend, name)


def _install(backend: object, source: str) -> Runtime:
    if not isinstance(backend, Backend):
        raise InvalidValueError(f"backend {source!r} gives {type(backend).__name__}, not a wia_hal.Backend")
    rt = Runtime(backend)
    try:
        for started in runtime_started:
            started(rt)
    except BaseException:
        backend.close()
        raise
    set_call_hook(backend.api_call)
    return rt


def _mark_lost(device: int, reason: str) -> None:
    """A backend raised ``DEVICE_LOST`` naming ``device``: it is lost until ``reset_device`` (sticky)."""
    if _runtime is not None:
        _runtime.lost.setdefault(device, reason)


set_lost_hook(_mark_lost)


def runtime() -> Runtime:
    """The active runtime, created from the environment on first use."""
    global _runtime
    if _runtime is None:
        name = os.environ.get("WIA_BACKEND")
        _runtime = _create(name or DEFAULT_BACKEND, {}, from_environment=bool(name))
    return _runtime


@api
def set_backend(name: str | AnyBackend, **options: Any) -> None:
    """Select the backend (and its options) for everything that follows: by name, or an instance.

    Precedence: an option given here, else its ``WIA_<NAME>_<OPTION>`` variable, else the backend's default; so
    ``set_backend("sim")`` under ``WIA_SIM_HARDWARE=amd-mi300x`` uses that model, and ``set_backend("sim",
    hardware="wia-tiny")`` uses wia-tiny and warns (``OptionOverrideWarning``) that it overrides the variable.
    A ``Backend`` instance is installed as it is (no options).
    Allowed whenever no context is alive; the implicit Level-1 default context is released automatically.
    """
    global _runtime
    if isinstance(name, Backend):
        if options:
            raise InvalidValueError(f"set_backend: options {sorted(options)} go to the backend's constructor")
    elif not isinstance(name, str):
        raise InvalidValueError(
            f"set_backend: expected a backend name or a wia_hal.Backend instance, got {type(name).__name__}"
        )
    old = _runtime
    if old is not None:
        live = [ctx for ctx in old.contexts if ctx is not old.default_context]
        if live:
            raise InvalidValueError(
                f"set_backend: {len(live)} context(s) still alive on backend {old.backend.name!r}; "
                "destroy them first (destroy_context)"
            )
    new = _install(name, type(name).__name__) if isinstance(name, Backend) else _create(name, options)
    if old is not None:
        if old.default_context is not None:
            old.default_context.destroy()
        old.backend.close()
    _runtime = new


def get_backend() -> AnyBackend:
    """The active backend object (for tools and extensions; applications use the module functions)."""
    return runtime().backend
