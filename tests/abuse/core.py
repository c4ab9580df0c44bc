"""The abuse machine's core: every public call a rule makes goes through :meth:`AbuseMachine.attempt`, which holds
the checks of issue 14 ("an API that survives abuse"):

- the only exceptions are ``WiaError``s of the class of their code, with a message, and each rule may raise only
  the codes its group's ``CODES`` table lists for it (``INTERNAL`` never);
- nothing hangs: each call runs under a wall-clock guard (:data:`RULE_SECONDS`);
- :meth:`AbuseMachine.teardown` destroys everything the sequence made and checks that nothing stays allocated:
  every context's ``bytes_allocated`` is 0 before it is destroyed, and the backend holds no memory after.

A rule group is a mixin class decorated with :func:`abuse_group`: ``@rule`` methods that draw their objects from the
shared bundles below (:data:`contexts`, :data:`tensors`, ...), call the API through ``self.attempt(name, fn, ...)``,
and a class attribute ``CODES: dict[str, frozenset[ErrorCode]]`` naming the codes each rule may raise.
:func:`machine_for` composes every registered group into one ``RuleBasedStateMachine`` for a backend.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

import numpy as np
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant

import wia_hal as wia
from wia_hal.runtime import runtime

E = wia.ErrorCode
Codes = frozenset[wia.ErrorCode]

RULE_SECONDS = 30.0
"""The longest one rule's calls may take on wall-clock time: the machine's calls are on small data (a few KiB, a
64-work-item kernel), so each takes milliseconds; a call still running after this is hung, whatever the machine's
load (30 s leaves a hundredfold margin over the slowest rule seen on a 2-core CI machine)."""

contexts: Bundle[wia.Context] = Bundle("contexts")
streams: Bundle[wia.Stream] = Bundle("streams")
events: Bundle[wia.Event] = Bundle("events")
memories: Bundle[wia.Memory] = Bundle("memories")
pools: Bundle[wia.MemoryPool] = Bundle("pools")
tensors: Bundle[wia.Tensor] = Bundle("tensors")
kernels: Bundle[wia.Kernel] = Bundle("kernels")
profilers: Bundle[wia.Profiler] = Bundle("profilers")


class RuleHung(Exception):
    """A rule's calls ran past :data:`RULE_SECONDS` of wall-clock time."""


class RuleFailed(AssertionError):
    """A call broke the API's contract: an exception other than an allowed ``WiaError``."""


@dataclasses.dataclass
class RunCounts:
    """How much the machine ran in this process (``benchmarks/fuzz_api.py`` reports it)."""

    sequences: int = 0
    steps: int = 0
    calls: int = 0
    errors: int = 0
    """Calls that raised an allowed ``WiaError`` (the abuse the API refused properly)."""
    values_checked: int = 0
    """Results compared with their NumPy reference."""


COUNTS = RunCounts()

_groups: list[type] = []

G = TypeVar("G", bound=type)


def abuse_group(cls: G) -> G:
    """Register a rule group (a mixin of ``@rule`` methods with a ``CODES`` table) in the machine."""
    codes = getattr(cls, "CODES", None)
    if not isinstance(codes, dict):
        raise TypeError(f"{cls.__name__}: a rule group needs a CODES table (rule name -> allowed ErrorCodes)")
    if cls not in _groups:
        _groups.append(cls)
    return cls


def registered_groups() -> list[type]:
    return list(_groups)


@contextlib.contextmanager
def _wall_clock_guard(what: str, seconds: float) -> Iterator[None]:
    """Raise :class:`RuleHung` in the main thread when the block runs past ``seconds`` (a SIGALRM interrupts a
    blocked lock or wait); on another thread, fail after the fact."""
    started = time.monotonic()
    armed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if armed:

        def _hung(signum: int, frame: object) -> None:
            raise RuleHung(f"{what} still running after {seconds:.0f} s of wall-clock time")

        previous = signal.signal(signal.SIGALRM, _hung)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    elapsed = time.monotonic() - started
    if elapsed > seconds:
        raise RuleHung(f"{what} took {elapsed:.1f} s of wall-clock time (limit {seconds:.0f} s)")


FAILED: Any = object()
"""What :meth:`AbuseMachine.attempt` returns when the call raised an allowed ``WiaError``."""


@dataclasses.dataclass
class Expected:
    """What a tensor must hold: a float64 reference and the bound ``|got - ref| <= bound`` (0: exact)."""

    value: np.ndarray
    bound: np.ndarray | float = 0.0


class AbuseMachine(RuleBasedStateMachine):
    """State shared by the rule groups: every object the sequence made (for teardown), each tensor's expected value,
    and what may make a wait fail legitimately (a finite timeout, a faulty kernel launched asynchronously)."""

    BACKEND: ClassVar[str] = "sim"
    BACKEND_OPTIONS: ClassVar[dict[str, Any]] = {}
    CODES: ClassVar[dict[str, Codes]] = {
        # teardown_release: releasing what the sequence made, which may be released or dead already;
        # teardown: synchronizing and destroying the live contexts, valid calls (a wait may report a kernel's fault)
        "teardown": frozenset(),
        "teardown_release": frozenset({E.INVALID_VALUE, E.INVALID_CONTEXT, E.INVALID_MEMORY, E.INVALID_KERNEL}),
    }

    def __init__(self) -> None:
        super().__init__()
        _destroy_all()  # what a failed sequence left: every sequence starts on a fresh backend
        wia.set_backend(self.BACKEND, **self.BACKEND_OPTIONS)
        COUNTS.sequences += 1
        self.made: list[object] = []
        """Everything a call returned, in order (teardown destroys it)."""
        self.expected: dict[int, tuple[wia.Tensor, Expected]] = {}
        self.may_time_out = False
        """A context got a finite timeout, or a kernel that never ends was launched: waits may raise TIMEOUT."""
        self.fault_pending = False
        """A kernel was launched asynchronously (with arguments the machine does not check against its geometry):
        the call that runs it may report its fault."""
        self.pending: dict[int, tuple[wia.Tensor, wia.Stream | None]] = {}
        """Tensors an op wrote on a stream since the last synchronization that covers it (None: a stream the
        machine does not track): reading them on another stream is a race the program made, not a wrong result."""
        self.ambient: set[wia.ErrorCode] = set()
        """Codes any call may raise in the machine's present state, whatever its rule (a fault-injection group adds
        DEVICE_LOST while a device is lost, and takes it out after reset_device)."""
        self.broken = False
        self._allowed = self._merged_codes()

    @classmethod
    def _merged_codes(cls) -> dict[str, Codes]:
        table: dict[str, Codes] = {}
        for klass in reversed(cls.__mro__):
            table.update(getattr(klass, "CODES", {}))
        return table

    # -- the checks ---------------------------------------------------------------------------------------------

    def wait_codes(self) -> Codes:
        """The codes a call that waits for device work may raise besides its own: TIMEOUT under a finite timeout
        or a runaway kernel, and a faulty kernel's fault (reported by the call during which it runs)."""
        codes: set[wia.ErrorCode] = set()
        if self.may_time_out:
            codes.add(E.TIMEOUT)
        if self.fault_pending:  # the simulator's findings: out of bounds, a runaway kernel, a data race
            codes |= {E.INVALID_MEMORY, E.TIMEOUT, E.INVALID_KERNEL}
        return frozenset(codes)

    def attempt(
        self,
        rule: str,
        fn: Callable[..., Any],
        *args: Any,
        waits: bool = False,
        extra: Codes = frozenset(),
        valid: bool = False,
        **kwargs: Any,
    ) -> Any:
        """Call ``fn(*args, **kwargs)`` for ``rule``: its result, or :data:`FAILED` when it raised a ``WiaError``
        the rule may raise (``waits``: the call may wait for device work, see :meth:`wait_codes`; ``extra``: codes
        this call may raise besides the rule's, for what the machine knows of its arguments; ``valid``: the machine
        knows every argument is alive and right, so the rule's own codes are not allowed, only ``extra`` and the
        wait codes: the API must not refuse a valid call)."""
        allowed = self._allowed.get(rule)
        if allowed is None:
            raise RuleFailed(f"rule {rule!r} has no entry in its group's CODES table")
        allowed = (extra if valid else allowed | extra) | self.ambient
        if waits:
            allowed = allowed | self.wait_codes()
        what = f"{rule}: {getattr(fn, '__name__', fn)}"
        COUNTS.calls += 1
        try:
            with _wall_clock_guard(what, RULE_SECONDS), warnings.catch_warnings():
                warnings.simplefilter("ignore", wia.StreamHazardWarning)  # races are the program's, reported
                result = fn(*args, **kwargs)
        except wia.WiaError as e:
            self.check_error(what, e, allowed)
            COUNTS.errors += 1
            return FAILED
        except RuleHung:
            self.broken = True
            raise
        except Exception as e:
            self.broken = True
            raise RuleFailed(f"{what} raised {type(e).__name__} (not a WiaError): {e}") from e
        self.made.append(result)
        return result

    def check_error(self, what: str, e: wia.WiaError, allowed: Codes) -> None:
        if e.code is E.INTERNAL or e.code not in allowed or type(e) is not wia.errors.ERROR_CLASSES[e.code]:
            self.broken = True
            codes = ", ".join(sorted(c.name for c in allowed)) or "none"
            raise RuleFailed(
                f"{what} raised {type(e).__name__} {e.code.name}: {e} (this rule may raise: {codes})"
            ) from e
        if not str(e):
            self.broken = True
            raise RuleFailed(f"{what} raised {e.code.name} without a message")

    def expect(self, t: wia.Tensor, value: np.ndarray | None, bound: np.ndarray | float = 0.0) -> None:
        """Record what ``t`` must hold (None: unknown, e.g. after a race the program left in)."""
        if value is None:
            self.expected.pop(id(t), None)
        else:
            self.expected[id(t)] = (t, Expected(np.asarray(value, np.float64), bound))

    def expected_of(self, t: wia.Tensor) -> Expected | None:
        entry = self.expected.get(id(t))
        return entry[1] if entry is not None and entry[0] is t else None

    def produced(self, t: wia.Tensor, stream: wia.Stream | None) -> None:
        """An op wrote ``t`` in ``stream``'s order (None: an order the machine does not follow)."""
        self.pending[id(t)] = (t, stream)

    def racy(self, t: wia.Tensor, stream: wia.Stream) -> bool:
        """Whether work on ``stream`` may read ``t`` before the op that writes it has run."""
        entry = self.pending.get(id(t))
        if entry is None or entry[0] is not t:
            return False
        base = t.base
        return entry[1] is not stream or (base is not None and self.racy(base, stream))

    def synced(self, ctx: wia.Context | None = None, stream: wia.Stream | None = None) -> None:
        """The host waited for ``stream`` (or every stream of ``ctx``; of the current context when neither)."""
        if ctx is None and stream is None:
            ctx = runtime().default_context
        for key, (t, s) in list(self.pending.items()):
            if (stream is not None and s is stream) or (ctx is not None and t.memory.context is ctx):
                del self.pending[key]

    def forget_values(self, ctx: wia.Context) -> None:
        """Work the machine does not model (a kernel) may have written any memory of ``ctx``."""
        for key, (t, _) in list(self.expected.items()):
            if t.memory.context is ctx:
                del self.expected[key]

    @invariant()
    def _count_step(self) -> None:
        COUNTS.steps += 1

    # -- teardown: destroy everything, then nothing may stay allocated -------------------------------------------

    def teardown(self) -> None:
        failing = self.broken or sys.exc_info()[0] is not None  # (hypothesis tears down in a `finally`)
        try:
            if not failing:  # else the failure is reported already: only clean up for the next sequence
                self._release_everything_and_check()
        finally:
            _destroy_all()

    def _release_everything_and_check(self) -> None:
        made = list(self.made)
        for obj in made:
            if isinstance(obj, wia.Profiler):
                self.attempt("teardown_release", wia.destroy_profiler, obj, waits=True)
        for obj in made:
            if isinstance(obj, wia.Tensor):
                self.attempt("teardown_release", wia.release_tensor, obj, waits=True)
        for obj in made:
            if isinstance(obj, wia.Memory) and obj.pool is None:
                self.attempt("teardown_release", wia.free, obj, waits=True)
            elif isinstance(obj, wia.Memory) and obj.pool is not None:
                self.attempt("teardown_release", wia.free_to_pool, obj.pool, obj, waits=True)
            elif isinstance(obj, wia.Kernel):
                self.attempt("teardown_release", wia.destroy_kernel, obj, waits=True)
        for obj in made:
            if isinstance(obj, wia.MemoryPool):
                self.attempt("teardown_release", wia.destroy_pool, obj, waits=True)
        self.made.clear()
        self.expected.clear()
        del made
        gc.collect()  # tensors made and dropped inside the API (contiguous copies) are released by their finaliser
        live = list(runtime().contexts)
        for ctx in live:
            self.attempt("teardown", wia.context_set_timeout, ctx, wia.TIMEOUT_INFINITE)
            self.attempt("teardown", wia.context_synchronize, ctx, waits=True)
            self.attempt("teardown", wia.memory_gc, ctx)
            assert ctx.bytes_allocated == 0 and ctx.bytes_in_use == 0, (
                f"{ctx!r}: {ctx.bytes_allocated} bytes allocated ({ctx.bytes_in_use} in use) after every tensor, "
                f"allocation and pool was released and memory_gc ran; live memories: {list(ctx.memories.values())}"
            )
        for ctx in live:
            self.attempt("teardown", wia.destroy_context, ctx, waits=True)
        assert not runtime().contexts, f"contexts alive after destroy_context: {runtime().contexts}"
        assert_backend_empty(wia.get_backend())


def _destroy_all() -> None:
    for ctx in list(runtime().contexts):
        with contextlib.suppress(Exception):
            ctx.destroy()


def assert_backend_empty(backend: object) -> None:
    """The backend holds no memory: the simulator's device heaps are empty, the reference backend's budget is 0."""
    from wia_hal.backends.reference import ReferenceBackend
    from wia_hal.backends.sim import SimBackend

    if isinstance(backend, SimBackend):
        for index, device in enumerate(backend.machine.devices):
            used = device.heap.used_ranges()
            assert not used, f"sim device {index}: heap ranges still allocated after teardown: {used}"
    elif isinstance(backend, ReferenceBackend):
        assert backend.in_use == [0] * backend.devices, f"reference backend: bytes still budgeted {backend.in_use}"


if TYPE_CHECKING:
    RuleGroup = AbuseMachine  # a group's rules use the machine's state and checks
else:
    RuleGroup = object
"""The base of a rule group: a plain mixin at run time, the machine for the type checker."""

BACKEND_OPTIONS: dict[str, dict[str, Any]] = {
    # two devices: contexts on either, exclusive contexts, objects of one device used on the other (on the sim, the
    # first two of a ring of wia-tiny devices: a peer link between them)
    "sim": {"hardware": "wia-tiny-4x", "devices": 2, "kernel_step_limit": 20_000},
    "reference": {"devices": 2, "memory": 64 << 20},
}


def machine_for(backend: str) -> type[AbuseMachine]:
    """The machine of every registered rule group, on ``backend`` (a fresh backend for every sequence)."""
    if backend not in BACKEND_OPTIONS:
        raise ValueError(f"no abuse settings for backend {backend!r} (known: {', '.join(BACKEND_OPTIONS)})")
    name = f"AbuseMachine_{backend}"
    return type(
        name, (*reversed(_groups), AbuseMachine), {"BACKEND": backend, "BACKEND_OPTIONS": BACKEND_OPTIONS[backend]}
    )
