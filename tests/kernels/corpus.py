"""The OpenCL C kernel corpus: what each kernel is given, what it must produce, and how close is close enough.

Every kernel in ``corpus/`` has one :class:`KernelCase`. A case is backend-neutral data, so the same cases run on
real OpenCL devices (``cldevices.py``) and, later, through the simulator's kernel executor:

- ``make(rng)`` draws fresh random inputs and returns a :class:`Launch` ``(args, global_size, local_size)``.
  ``args`` is ordered like the kernel's parameters and keyed by the parameter names; each value is a
  :class:`Buffer` (a NumPy array uploaded as the buffer's initial content: inputs, in/out buffers and the
  sentinel-filled contents of output buffers alike), a :class:`Local` (``__local`` pointer argument of
  ``nbytes``) or a :class:`Scalar` (a value with its NumPy dtype: ``int`` is ``np.int32``, ``uint``
  ``np.uint32``, ``ulong`` ``np.uint64``, ``float`` ``np.float32``).
- ``reference(inputs)`` computes the expected final contents of every output buffer (``access`` ``"out"`` or
  ``"inout"``) from the initial contents, in float64 for float data and exactly for integer data.
- ``tolerances`` gives one :class:`Tolerance` per output buffer with the reasoning behind it; :func:`compare`
  applies it.

Every :class:`BugCase` is a kernel from ``bugs/`` with one planted fault, the check the simulator must report
for it and the source line it must name.

Notes for a harness:

- ``local_size`` is always given and must be used as is: several kernels size ``__local`` arrays with a
  ``#define`` equal to the work-group size (``WG``/``TS``/``TILE``) or build power-of-two trees. Every work-group
  has at most 256 work-items and uses at most 16 KiB of local memory, so all cases fit the ``wia-tiny`` model.
- ``global_offset`` (only ``ndrange_info``) is the NDRange's global work offset (``get_global_offset``).
- ``options`` are OpenCL build options; only ``-D NAME`` / ``-D NAME=VALUE`` are used.
- ``size_t`` is 64 bits wide (as on every 64-bit OpenCL device); ``ulong_mix`` relies on it wrapping modulo 2**64.
- Buffers are uploaded as raw bytes of their arrays; outputs are read back into arrays of the same shape and
  dtype. Output buffers start as NaN (float) or 0xDEADBEEF / -559038737 (integer) sentinels.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal, NamedTuple, get_args

import numpy as np

HERE = Path(__file__).resolve().parent
CORPUS_DIR = HERE / "corpus"
BUGS_DIR = HERE / "bugs"

EPS32 = float(np.finfo(np.float32).eps)  # 2**-23: one ulp of 1.0f; u = EPS32 / 2 is the unit roundoff

Access = Literal["in", "out", "inout"]
Space = Literal["global", "constant"]
Flags = Literal["default", "read_write", "read_only", "write_only"]


# --------------------------------------------------------------------------------------------------------------
# Argument descriptions
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Buffer:
    """A ``__global`` or ``__constant`` pointer argument; ``array`` (C-contiguous) is the buffer's initial content.

    The buffer holds exactly ``array.nbytes`` bytes: an access past it is out of bounds. The kernel's pointer type
    may be a vector type over the same scalar type (``float4*`` over a float32 array of shape ``(n, 4)``).

    ``flags``: what the kernel may do with the buffer (OpenCL's ``CL_MEM_READ_ONLY``/``CL_MEM_WRITE_ONLY``, the
    HAL's ``wia.MemoryAccess``); ``"default"`` is read-only for inputs (``access="in"``), read-write otherwise.
    ``host_data=False``: the host creates the buffer without data (no ``CL_MEM_COPY_HOST_PTR``, no upload); the
    array only sizes it."""

    array: np.ndarray
    access: Access = "in"
    space: Space = "global"
    flags: Flags = "default"
    host_data: bool = True

    @property
    def memory_access(self) -> str:
        """``read_write``, ``read_only`` or ``write_only``: ``flags`` with its default resolved."""
        if self.flags != "default":
            return self.flags
        return "read_only" if self.access == "in" else "read_write"

    def __post_init__(self) -> None:
        if self.access not in ("in", "out", "inout"):
            raise ValueError(f"access must be in/out/inout, got {self.access!r}")
        if self.space not in ("global", "constant"):
            raise ValueError(f"space must be global/constant, got {self.space!r}")
        if self.space == "constant" and self.access != "in":
            raise ValueError("a __constant buffer is read-only (access='in')")
        if not self.array.flags.c_contiguous or self.array.size == 0:
            raise ValueError("a buffer's array must be C-contiguous and not empty")


@dataclass(frozen=True)
class Local:
    """A ``__local`` pointer argument: ``nbytes`` of work-group local memory, allocated per work-group."""

    nbytes: int


@dataclass(frozen=True)
class Scalar:
    """A by-value argument: ``value`` converted to ``dtype`` (a NumPy scalar type)."""

    value: int | float | np.ndarray
    dtype: type[np.generic] | np.dtype

    def numpy(self) -> Any:
        """A NumPy scalar; for a vector or a struct by value (``value`` an array: the vector's components, or a
        0-d structured array) the array itself."""
        if isinstance(self.value, np.ndarray):
            return self.value
        return np.dtype(self.dtype).type(self.value)


@dataclass(frozen=True)
class Null:
    """A NULL ``__global`` pointer argument (``clSetKernelArg`` with a NULL buffer; ``None`` through the HAL)."""


SPAN_ALIGN = 128
"""A ``Span``'s offset is a multiple of this: CL_DEVICE_MEM_BASE_ADDR_ALIGN of PoCL and Oclgrind (1,024 bits), the
alignment OpenCL requires of a sub-buffer's origin (and the OpenCL backend of a sub-buffer it passes as is)."""


@dataclass(frozen=True)
class Span:
    """A ``__global`` pointer argument over ``nbytes`` of the buffer argument ``of``, from byte ``offset``: the
    same memory, not a copy (OpenCL: a sub-buffer; through the HAL: a slice of the buffer's tensor, whose 1-D array
    must then be of a HAL dtype). What the kernel stores through it is read back through ``of``."""

    of: str
    offset: int
    nbytes: int

    def __post_init__(self) -> None:
        if self.offset % SPAN_ALIGN or self.offset < 0 or self.nbytes <= 0:
            raise ValueError(f"a span's offset is a multiple of {SPAN_ALIGN} and it has bytes: {self}")


Arg = Buffer | Local | Scalar | Null | Span


class Launch(NamedTuple):
    """What ``make(rng)`` returns: the arguments in kernel order and the NDRange (OpenCL style: global sizes are
    multiples of local sizes, as OpenCL 1.2 requires)."""

    args: dict[str, Arg]
    global_size: tuple[int, ...]
    local_size: tuple[int, ...] | None


class Inputs(dict[str, Any]):
    """What ``reference`` reads: argument name -> initial value (a copy of a buffer's array, a NumPy scalar for a
    scalar, the byte count for a ``__local`` argument), plus the launch geometry as attributes."""

    def __init__(self, launch: Launch, global_offset: tuple[int, ...] | None) -> None:
        super().__init__()
        for name, arg in launch.args.items():
            if isinstance(arg, Buffer):
                self[name] = arg.array.copy()
            elif isinstance(arg, Scalar):
                self[name] = arg.numpy()
            elif isinstance(arg, Local):
                self[name] = arg.nbytes
        self.global_size = launch.global_size
        self.local_size = launch.local_size
        self.global_offset = global_offset or (0,) * len(launch.global_size)


# --------------------------------------------------------------------------------------------------------------
# Tolerances
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tolerance:
    """How far an output may be from the float64 reference.

    ``exact``: integer (or bit-exact float) outputs must be equal. Otherwise an element passes when
    ``|actual - expected| <= ulp * ulp32(expected) + atol``, where ``ulp32(e)`` is the float32 spacing at ``|e|``
    (so ``ulp=0.5`` means "correctly rounded") and ``atol`` is a number or a function of the inputs giving a
    per-element bound, usually ``k * EPS32 * (sum of the magnitudes of the terms)``: the classic forward error
    bound of a k-operation float32 sum or dot product. NaN expected means "not written": the element must still
    hold the NaN sentinel it was given."""

    reason: str
    exact: bool = False
    ulp: float = 0.0
    atol: float | Callable[[Inputs], Any] = 0.0


def exact(reason: str = "integer results are exact") -> Tolerance:
    return Tolerance(reason=reason, exact=True)


CORRECTLY_ROUNDED = Tolerance(
    ulp=0.5,
    reason="one correctly rounded float32 operation per element (+, -, *, fma, or none at all): "
    "within half an ulp of the exact result",
)


def ulp32(values: np.ndarray) -> np.ndarray:
    """The float32 spacing at |values| (float64 array in, float64 array out)."""
    mags = np.abs(np.asarray(values, dtype=np.float64)).astype(np.float32)
    return np.spacing(mags).astype(np.float64)


def compare(name: str, actual: np.ndarray, expected: np.ndarray, tol: Tolerance, inputs: Inputs) -> str | None:
    """None when ``actual`` is within ``tol`` of ``expected``, else a message naming the worst element."""
    actual = np.asarray(actual)
    expected = np.asarray(expected)
    if actual.shape != expected.shape:
        return f"{name}: shape {actual.shape}, expected {expected.shape}"
    if tol.exact:
        if actual.dtype.kind == "f":
            ok = (actual == expected) | (np.isnan(actual) & np.isnan(expected))
        else:
            ok = actual == expected
        if ok.all():
            return None
        bad = np.flatnonzero(~ok.reshape(-1))
        at = np.unravel_index(bad[0], actual.shape)
        return (
            f"{name}: {bad.size} of {actual.size} elements differ; first at {tuple(int(i) for i in at)}: "
            f"got {actual[at]!r}, expected {expected[at]!r}"
        )
    got = actual.astype(np.float64)
    want = expected.astype(np.float64)
    unwritten = np.isnan(want)
    atol = tol.atol(inputs) if callable(tol.atol) else tol.atol
    bound = tol.ulp * ulp32(np.where(unwritten, 0.0, want)) * (1 + 2.0**-20) + np.broadcast_to(atol, want.shape)
    with np.errstate(invalid="ignore"):
        err = np.abs(got - want)
        ok = np.where(unwritten, np.isnan(got), err <= bound)
    if ok.all():
        return None
    bad = np.flatnonzero(~ok.reshape(-1))
    flat_err = np.where(np.isnan(err), np.inf, err).reshape(-1)
    worst = bad[np.argmax(flat_err[bad])]
    at = np.unravel_index(worst, actual.shape)
    ulps = err[at] / ulp32(want[at]) if not unwritten[at] else float("nan")
    return (
        f"{name}: {bad.size} of {actual.size} elements out of tolerance ({tol.reason}); worst at "
        f"{tuple(int(i) for i in at)}: got {got[at]!r}, expected {want[at]!r}, error {err[at]:.3g} "
        f"({ulps:.3g} ulp), allowed {np.broadcast_to(bound, want.shape)[at]:.3g}"
    )


# --------------------------------------------------------------------------------------------------------------
# Cases
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KernelCase:
    name: str
    file: str  # relative to corpus/
    kernel: str  # the __kernel function's name
    exercises: str
    make: Callable[[np.random.Generator], Launch]
    reference: Callable[[Inputs], dict[str, np.ndarray]]
    tolerances: Mapping[str, Tolerance]
    options: str = ""  # build options, e.g. "-D DEGREE=5"
    global_offset: tuple[int, ...] | None = None  # passed as the NDRange's global work offset
    notes: tuple[str, ...] = ()  # the lower-severity findings the simulator notes on a correct run (check names)

    @property
    def path(self) -> Path:
        return CORPUS_DIR / self.file

    def source(self) -> str:
        return self.path.read_text()

    def draw(self, rng: np.random.Generator) -> Launch:
        """``make(rng)`` with its geometry and outputs checked against the case."""
        launch = Launch(*self.make(rng))
        check_geometry(self.name, launch)
        outs = output_names(launch)
        if set(outs) != set(self.tolerances):
            raise AssertionError(f"{self.name}: outputs {outs} but tolerances for {sorted(self.tolerances)}")
        return launch

    def inputs(self, launch: Launch) -> Inputs:
        return Inputs(launch, self.global_offset)

    def check(self, launch: Launch, outputs: Mapping[str, np.ndarray]) -> list[str]:
        """Compare ``outputs`` (name -> final buffer contents) with the reference; one message per failing output."""
        inputs = self.inputs(launch)
        expected = self.reference(inputs)
        failures = []
        for name, tol in self.tolerances.items():
            arg = launch.args[name]
            assert isinstance(arg, Buffer)
            got = outputs[name]
            if got.dtype != arg.array.dtype:
                failures.append(f"{name}: dtype {got.dtype}, expected {arg.array.dtype}")
                continue
            message = compare(name, got, np.asarray(expected[name]).reshape(arg.array.shape), tol, inputs)
            if message:
                failures.append(message)
        return failures


def output_names(launch: Launch) -> list[str]:
    return [n for n, a in launch.args.items() if isinstance(a, Buffer) and a.access in ("out", "inout")]


def check_geometry(name: str, launch: Launch) -> None:
    g, loc = launch.global_size, launch.local_size
    if not 1 <= len(g) <= 3 or any(v < 1 for v in g):
        raise AssertionError(f"{name}: bad global size {g}")
    if loc is not None:
        if len(loc) != len(g) or any(gi % li for gi, li in zip(g, loc, strict=True)):
            raise AssertionError(f"{name}: global size {g} is not a multiple of local size {loc}")
        if math.prod(loc) > 256:
            raise AssertionError(f"{name}: work-group {loc} is larger than 256 work-items (wia-tiny's limit)")
    for arg in launch.args.values():
        if isinstance(arg, Span):
            of = launch.args.get(arg.of)
            if not isinstance(of, Buffer) or arg.offset + arg.nbytes > of.array.nbytes:
                raise AssertionError(f"{name}: {arg} is not inside a buffer argument")
    local_bytes = sum(a.nbytes for a in launch.args.values() if isinstance(a, Local))
    if local_bytes > 16 * 1024:
        raise AssertionError(f"{name}: {local_bytes} bytes of __local arguments")


# --------------------------------------------------------------------------------------------------------------
# Helpers for the makers and references
# --------------------------------------------------------------------------------------------------------------


def _round_up(n: int, m: int) -> int:
    return -(-n // m) * m


def _size(rng: np.random.Generator, lo: int, hi: int, avoid_multiple_of: int | None = None) -> int:
    """A size in [lo, hi); when ``avoid_multiple_of`` is given, never a multiple of it (so the last work-group
    is partly past the end and bound checks matter)."""
    n = int(rng.integers(lo, hi))
    if avoid_multiple_of and n % avoid_multiple_of == 0:
        n += 1
    return n


def _uniform(rng: np.random.Generator, lo: float, hi: float, shape: Any) -> np.ndarray:
    return rng.uniform(lo, hi, shape).astype(np.float32)


def _signed(rng: np.random.Generator, lo: float, hi: float, shape: Any) -> np.ndarray:
    """Magnitudes in [lo, hi) with random signs: no zeros, no denormals."""
    mags = rng.uniform(lo, hi, shape)
    return np.where(rng.random(shape) < 0.5, -mags, mags).astype(np.float32)


def _log_uniform(rng: np.random.Generator, lo: float, hi: float, shape: Any) -> np.ndarray:
    return np.exp(rng.uniform(np.log(lo), np.log(hi), shape)).astype(np.float32)


def _nan_out(shape: Any) -> Buffer:
    """An output buffer filled with NaN, so an element the kernel fails to write is caught."""
    return Buffer(np.full(shape, np.nan, np.float32), "out")


def _sentinel_out(shape: Any, dtype: type[np.generic]) -> Buffer:
    """An integer output buffer filled with a recognizable value (-559038737 / 0xDEADBEEF)."""
    value = 0xDEADBEEF if np.dtype(dtype).kind == "u" else -559038737
    return Buffer(np.full(shape, value, dtype), "out")


def _i32(v: int) -> Scalar:
    return Scalar(int(v), np.int32)


def _u32(v: int) -> Scalar:
    return Scalar(int(v), np.uint32)


def _f32(v: float) -> Scalar:
    return Scalar(float(np.float32(v)), np.float32)


def _f64(a: Any) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


M32 = (1 << 32) - 1
M64 = (1 << 64) - 1


# --------------------------------------------------------------------------------------------------------------
# Vector operations
# --------------------------------------------------------------------------------------------------------------


def _make_vector_add(rng: np.random.Generator) -> Launch:
    n = _size(rng, 1000, 4000, 64)
    args = {
        "a": Buffer(_signed(rng, 0.01, 100.0, n)),
        "b": Buffer(_signed(rng, 0.01, 100.0, n)),
        "c": _nan_out(n),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_vector_add(i: Inputs) -> dict[str, np.ndarray]:
    return {"c": _f64(i["a"]) + _f64(i["b"])}


def _make_saxpy(rng: np.random.Generator) -> Launch:
    n = _size(rng, 1000, 4000, 128)
    args = {
        "a": _f32(float(_signed(rng, 0.5, 3.0, 1)[0])),
        "x": Buffer(_signed(rng, 0.01, 10.0, n)),
        "y": Buffer(_signed(rng, 0.01, 10.0, n), "inout"),
        "n": _u32(n),
    }
    return Launch(args, (_round_up(n, 128),), (128,))


def _ref_saxpy(i: Inputs) -> dict[str, np.ndarray]:
    return {"y": float(i["a"]) * _f64(i["x"]) + _f64(i["y"])}


def _make_scale_shift(rng: np.random.Generator) -> Launch:
    n = _size(rng, 1000, 4000, 64)
    extra = int(rng.integers(1, 40))  # elements past n that the kernel must leave alone
    args = {
        "x": Buffer(_signed(rng, 0.01, 50.0, n + extra), "inout"),
        "idx": Buffer(rng.integers(-(10**6), 10**6, n + extra).astype(np.int32), "inout"),
        "alpha": _f32(float(_signed(rng, 0.1, 4.0, 1)[0])),
        "offset": _i32(int(rng.integers(-(10**5), 10**5))),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_scale_shift(i: Inputs) -> dict[str, np.ndarray]:
    n = int(i["n"])
    x = _f64(i["x"])
    x[:n] *= float(i["alpha"])
    idx = i["idx"].copy()
    idx[:n] += i["offset"]
    return {"x": x, "idx": idx}


# --------------------------------------------------------------------------------------------------------------
# Element-wise math built-ins
# --------------------------------------------------------------------------------------------------------------


def _make_math_unary(rng: np.random.Generator) -> Launch:
    n = _size(rng, 1000, 3000, 64)
    args: dict[str, Arg] = {
        "x": Buffer(_log_uniform(rng, 0.1, 100.0, n)),
        "y": Buffer(_signed(rng, 0.001, 4.0, n)),
        "t": Buffer(_signed(rng, 0.001, 10.0, n)),
    }
    for out in ("sqrt", "rsqrt", "exp", "log", "pow", "sin", "cos"):
        args[f"out_{out}"] = _nan_out(n)
    args["n"] = _i32(n)
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_math_unary(i: Inputs) -> dict[str, np.ndarray]:
    x, y, t = _f64(i["x"]), _f64(i["y"]), _f64(i["t"])
    return {
        "out_sqrt": np.sqrt(x),
        "out_rsqrt": 1.0 / np.sqrt(x),
        "out_exp": np.exp(y),
        "out_log": np.log(x),
        "out_pow": np.power(x, y),
        "out_sin": np.sin(t),
        "out_cos": np.cos(t),
    }


def _spec_ulp(ulp: float, builtin: str) -> Tolerance:
    return Tolerance(ulp=ulp, reason=f"OpenCL 1.2 section 7.4 (single precision): {builtin} <= {ulp:g} ulp")


def _make_math_misc(rng: np.random.Generator) -> Launch:
    n = _size(rng, 1000, 3000, 64)
    args = {
        "a": Buffer(_signed(rng, 0.001, 2.0, n)),
        "b": Buffer(_signed(rng, 0.001, 2.0, n)),
        "c": Buffer(_signed(rng, 0.001, 2.0, n)),
        "p": Buffer(rng.integers(-1000, 1001, n).astype(np.int32)),
        "q": Buffer(rng.integers(-1000, 1001, n).astype(np.int32)),
        "out_f": _nan_out((n, 6)),
        "out_i": _sentinel_out((n, 4), np.int32),
        "out_mad": _nan_out(n),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_math_misc(i: Inputs) -> dict[str, np.ndarray]:
    a, b, c = _f64(i["a"]), _f64(i["b"]), _f64(i["c"])
    p, q = i["p"], i["q"]
    out_f = np.stack(
        [np.abs(a), np.minimum(a, b), np.maximum(a, b), a * b + c, np.clip(a, -0.5, 0.75), np.where(p > q, b, a)],
        axis=1,
    )
    out_i = np.stack([np.minimum(p, q), np.maximum(p, q), np.clip(p, -100, 100), np.abs(p)], axis=1)
    return {"out_f": out_f, "out_i": out_i.astype(np.int32), "out_mad": a * b + c}


def _make_float4_geometry(rng: np.random.Generator) -> Launch:
    n = _size(rng, 500, 2000, 64)
    args = {
        "p": Buffer(_signed(rng, 0.01, 10.0, 4 * n)),
        "q": Buffer(_signed(rng, 0.01, 10.0, 4 * n)),
        "out_vec": _nan_out(4 * n),
        "out_dot": _nan_out(n),
        "out_len": _nan_out(n),
        "out_mix": _nan_out((n, 4)),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _float4_parts(i: Inputs) -> tuple[np.ndarray, np.ndarray]:
    return _f64(i["p"]).reshape(-1, 4), _f64(i["q"]).reshape(-1, 4)


def _ref_float4_geometry(i: Inputs) -> dict[str, np.ndarray]:
    a, b = _float4_parts(i)
    vec = np.stack([2 * a[:, 3] + b[:, 0], 2 * a[:, 2] + b[:, 1], 2 * a[:, 0] + b[:, 3], a[:, 0] - b[:, 3]], axis=1)
    mix = np.stack([a[:, 0] * a[:, 0], b[:, 1] * a[:, 2], a[:, 2] * b[:, 1], b[:, 3]], axis=1)
    return {
        "out_vec": vec.reshape(-1),
        "out_dot": (a * b).sum(axis=1),
        "out_len": np.sqrt(((a - b) ** 2).sum(axis=1)),
        "out_mix": mix,
    }


def _dot4_bound(i: Inputs) -> np.ndarray:
    a, b = _float4_parts(i)
    return 4 * EPS32 * np.abs(a * b).sum(axis=1)


# --------------------------------------------------------------------------------------------------------------
# Integer kernels
# --------------------------------------------------------------------------------------------------------------


def _make_uint_hash(rng: np.random.Generator) -> Launch:
    n = _size(rng, 1000, 4000, 64)
    args = {
        "keys": Buffer(rng.integers(1, 1 << 32, n, dtype=np.uint64).astype(np.uint32)),
        "shifts": Buffer(rng.integers(0, 64, n).astype(np.uint32)),
        "hashes": _sentinel_out(n, np.uint32),
        "mixed": _sentinel_out(n, np.uint32),
        "counts": _sentinel_out(2 * n, np.uint32),
        "seed": _u32(int(rng.integers(1, 1 << 32, dtype=np.uint64))),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _fmix32(h: np.ndarray) -> np.ndarray:
    h = h ^ (h >> np.uint64(16))
    h = (h * np.uint64(0x85EBCA6B)) & np.uint64(M32)
    h = h ^ (h >> np.uint64(13))
    h = (h * np.uint64(0xC2B2AE35)) & np.uint64(M32)
    return h ^ (h >> np.uint64(16))


def _rotl32(k: np.ndarray, s: np.ndarray) -> np.ndarray:
    s = s.astype(np.uint64) & np.uint64(31)
    return ((k << s) & np.uint64(M32)) | (k >> ((np.uint64(32) - s) & np.uint64(31)))


def _ref_uint_hash(i: Inputs) -> dict[str, np.ndarray]:
    k = i["keys"].astype(np.uint64)
    s = i["shifts"].astype(np.uint64)
    n = k.size
    idx = np.arange(n, dtype=np.uint64)
    seed = np.uint64(int(i["seed"]))
    hashes = (_fmix32(k ^ seed) + idx * np.uint64(2654435761) + np.uint64((1 << 32) - 0x9E3779B9)) & np.uint64(M32)
    m = _rotl32(k, s)  # (k << s) | (k >> (32 - s)) with OpenCL's shift counts taken modulo 32
    m ^= _rotl32(k, np.full(n, 7, np.uint64)) & (~(k >> np.uint64(3)) & np.uint64(M32))
    m = (m + (k & np.uint64(0x00FF00FF)) * np.uint64(257)) & np.uint64(M32)
    bit_length = np.array([int(v).bit_length() for v in i["keys"]], dtype=np.uint32)
    popcount = np.array([int(v).bit_count() for v in i["keys"]], dtype=np.uint32)
    counts = np.stack([popcount, 32 - bit_length], axis=1).reshape(-1)
    return {"hashes": hashes.astype(np.uint32), "mixed": m.astype(np.uint32), "counts": counts.astype(np.uint32)}


def _make_ulong_mix(rng: np.random.Generator) -> Launch:
    n = _size(rng, 1000, 4000, 64)
    args = {
        "seeds": Buffer(rng.integers(1, 1 << 64, n, dtype=np.uint64)),
        "out": _sentinel_out(n, np.uint64),
        "folded": _sentinel_out(n, np.uint32),
        "stride": Scalar(int(rng.integers(1 << 40, 1 << 64, dtype=np.uint64)), np.uint64),  # gid * stride wraps
        "n": _u32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _splitmix64(z: int) -> int:
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def _ref_ulong_mix(i: Inputs) -> dict[str, np.ndarray]:
    n, stride = int(i["n"]), int(i["stride"])
    seeds = [int(v) for v in i["seeds"]]
    out = []
    for gid in range(n):
        j = ((gid * stride + 7) & M64) % n  # size_t arithmetic wraps modulo 2**64
        out.append(_splitmix64((seeds[j] + gid) & M64))
    folded = [((z >> 32) ^ z) & M32 for z in out]
    return {"out": np.array(out, dtype=np.uint64), "folded": np.array(folded, dtype=np.uint32)}


# --------------------------------------------------------------------------------------------------------------
# Matrix multiplication
# --------------------------------------------------------------------------------------------------------------


def _make_matmul_tiled(rng: np.random.Generator) -> Launch:
    m, n, k = (_size(rng, 17, 72, 16) for _ in range(3))
    args = {
        "M": _i32(m),
        "N": _i32(n),
        "K": _i32(k),
        "A": Buffer(_signed(rng, 0.01, 1.0, (m, k))),
        "B": Buffer(_signed(rng, 0.01, 1.0, (k, n))),
        "C": _nan_out((m, n)),
    }
    return Launch(args, (_round_up(n, 16), _round_up(m, 16)), (16, 16))


def _ref_matmul(i: Inputs) -> dict[str, np.ndarray]:
    return {"C": _f64(i["A"]) @ _f64(i["B"])}


def _matmul_bound(i: Inputs) -> np.ndarray:
    # a K-term dot product accumulated in float32 (in any order, fused or not): |error| <= K u sum|a_ik b_kj|;
    # K * EPS32 is that with a factor-2 margin
    return int(i["K"]) * EPS32 * (np.abs(_f64(i["A"])) @ np.abs(_f64(i["B"])))


def _make_sgemm_local_args(rng: np.random.Generator) -> Launch:
    ts = 8
    m, n, k = (_size(rng, 9, 60, ts) for _ in range(3))
    args = {
        "M": _i32(m),
        "N": _i32(n),
        "K": _i32(k),
        "alpha": _f32(float(_signed(rng, 0.25, 2.0, 1)[0])),
        "A": Buffer(_signed(rng, 0.01, 1.0, (m, k))),
        "B": Buffer(_signed(rng, 0.01, 1.0, (k, n))),
        "beta": _f32(float(_signed(rng, 0.25, 2.0, 1)[0])),
        "C": Buffer(_signed(rng, 0.01, 1.0, (m, n)), "inout"),
        "Asub": Local(ts * ts * 4),
        "Bsub": Local(ts * ts * 4),
    }
    return Launch(args, (_round_up(n, ts), _round_up(m, ts)), (ts, ts))


def _ref_sgemm(i: Inputs) -> dict[str, np.ndarray]:
    return {"C": float(i["alpha"]) * (_f64(i["A"]) @ _f64(i["B"])) + float(i["beta"]) * _f64(i["C"])}


def _sgemm_bound(i: Inputs) -> np.ndarray:
    alpha, beta = abs(float(i["alpha"])), abs(float(i["beta"]))
    ab = np.abs(_f64(i["A"])) @ np.abs(_f64(i["B"]))
    # the K-term dot product, then alpha * acc, beta * C and their sum (three more roundings)
    return alpha * _matmul_bound(i) + 2 * EPS32 * (alpha * ab + beta * np.abs(_f64(i["C"])))


# --------------------------------------------------------------------------------------------------------------
# Reductions and scans
# --------------------------------------------------------------------------------------------------------------


def _make_reduce_sum(rng: np.random.Generator) -> Launch:
    wg, groups = 128, int(rng.integers(3, 9))
    n = _size(rng, 5000, 20000, wg)
    args = {
        "x": Buffer(_signed(rng, 0.001, 1.0, n)),
        "partial": _nan_out(groups),
        "scratch": Local(wg * 4),
        "n": _i32(n),
    }
    return Launch(args, (wg * groups,), (wg,))


def _per_item_strided(x: np.ndarray, total_items: int) -> np.ndarray:
    """Sum over x[gid::total_items] for every gid (the grid-stride loop of each work-item)."""
    padded = np.zeros(_round_up(x.size, total_items))
    padded[: x.size] = x
    return padded.reshape(-1, total_items).sum(axis=0)


def _ref_reduce_sum(i: Inputs) -> dict[str, np.ndarray]:
    (gsize,), (wg,) = i.global_size, i.local_size
    return {"partial": _per_item_strided(_f64(i["x"]), gsize).reshape(-1, wg).sum(axis=1)}


def _reduce_sum_bound(i: Inputs) -> np.ndarray:
    (gsize,), (wg,) = i.global_size, i.local_size
    per_item_terms = -(-int(i["n"]) // gsize)
    abs_sums = _per_item_strided(np.abs(_f64(i["x"])), gsize).reshape(-1, wg).sum(axis=1)
    # each partial: a sequential sum of per_item_terms values, then log2(wg) levels of pairwise sums
    return (per_item_terms + math.log2(wg)) * EPS32 * abs_sums


def _make_reduce_max(rng: np.random.Generator) -> Launch:
    wg = 128
    n = _size(rng, 3000, 9000, wg)
    groups = -(-n // wg)
    # values on a coarse grid so that maxima are often tied: the first index must win
    x = (rng.integers(-800, 800, n) / 8.0).astype(np.float32)
    args = {
        "x": Buffer(x),
        "group_max": _nan_out(groups),
        "group_arg": _sentinel_out(groups, np.int32),
        "n": _i32(n),
    }
    return Launch(args, (groups * wg,), (wg,))


def _ref_reduce_max(i: Inputs) -> dict[str, np.ndarray]:
    x = i["x"]
    (wg,) = i.local_size
    starts = range(0, x.size, wg)
    return {
        "group_max": np.array([x[s : s + wg].max() for s in starts], dtype=np.float64),
        "group_arg": np.array([s + int(np.argmax(x[s : s + wg])) for s in starts], dtype=np.int32),
    }


def _make_reduce_atomic_int(rng: np.random.Generator) -> Launch:
    wg = 128
    n = _size(rng, 5000, 20000, wg)
    args = {
        "x": Buffer(rng.integers(-1000, 1001, n).astype(np.int32)),
        "total": Buffer(np.array([rng.integers(-(10**6), 10**6)], dtype=np.int32), "inout"),
        "positives": Buffer(np.array([rng.integers(1, 1000)], dtype=np.int32), "inout"),
        "scratch": Local(wg * 4),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, wg),), (wg,))


def _ref_reduce_atomic_int(i: Inputs) -> dict[str, np.ndarray]:
    x = i["x"].astype(np.int64)
    return {
        "total": (i["total"] + x.sum()).astype(np.int32),
        "positives": (i["positives"] + (x > 0).sum()).astype(np.int32),
    }


def _make_scan_hillis_steele(rng: np.random.Generator) -> Launch:
    wg = 64
    n = _size(rng, 1000, 5000, wg)
    groups = -(-n // wg)
    args = {
        "x": Buffer(rng.integers(-100, 101, n).astype(np.int32)),
        "y": _sentinel_out(n, np.int32),
        "block_sums": _sentinel_out(groups, np.int32),
        "buf_a": Local(wg * 4),
        "buf_b": Local(wg * 4),
        "n": _i32(n),
    }
    return Launch(args, (groups * wg,), (wg,))


def _blocks(x: np.ndarray, size: int, fill: Any = 0) -> np.ndarray:
    padded = np.full(_round_up(x.size, size), fill, dtype=x.dtype)
    padded[: x.size] = x
    return padded.reshape(-1, size)


def _ref_scan_hillis_steele(i: Inputs) -> dict[str, np.ndarray]:
    x = i["x"]
    (wg,) = i.local_size
    scanned = np.cumsum(_blocks(x.astype(np.int64), wg), axis=1)
    return {"y": scanned.reshape(-1)[: x.size].astype(np.int32), "block_sums": scanned[:, -1].astype(np.int32)}


def _make_scan_blelloch(rng: np.random.Generator) -> Launch:
    wg = 64
    n = _size(rng, 1000, 5000, 2 * wg)
    groups = -(-n // (2 * wg))
    args = {
        "x": Buffer(_signed(rng, 0.001, 1.0, n)),
        "y": _nan_out(n),
        "block_sums": _nan_out(groups),
        "n": _i32(n),
    }
    return Launch(args, (groups * wg,), (wg,))


def _ref_scan_blelloch(i: Inputs) -> dict[str, np.ndarray]:
    x = _f64(i["x"])
    (wg,) = i.local_size
    blocks = _blocks(x, 2 * wg)
    inclusive = np.cumsum(blocks, axis=1)
    exclusive = inclusive - blocks
    return {"y": exclusive.reshape(-1)[: x.size], "block_sums": inclusive[:, -1]}


def _scan_blelloch_bounds(i: Inputs) -> tuple[np.ndarray, np.ndarray]:
    (wg,) = i.local_size
    x = _f64(i["x"])
    abs_prefix = np.cumsum(_blocks(np.abs(x), 2 * wg), axis=1)
    # every output is built by at most log2(2 wg) up-sweep and log2(2 wg) down-sweep additions of partial sums
    # of the block's prefix: |error| <= 2 log2(2 wg) u sum|x| over the prefix (inclusive, to be generous)
    levels = 2 * math.log2(2 * wg)
    return levels * EPS32 * abs_prefix.reshape(-1)[: x.size], levels * EPS32 * abs_prefix[:, -1]


# --------------------------------------------------------------------------------------------------------------
# Histograms and radix sort
# --------------------------------------------------------------------------------------------------------------


def _make_histogram_global(rng: np.random.Generator) -> Launch:
    n = _size(rng, 3000, 10000, 64)
    args = {
        "keys": Buffer(rng.integers(1, 1 << 32, n, dtype=np.uint64).astype(np.uint32)),
        "bins": Buffer(rng.integers(0, 1000, 256).astype(np.uint32), "inout"),
        "shift": _u32(int(rng.choice([0, 8, 16, 24]))),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_histogram_global(i: Inputs) -> dict[str, np.ndarray]:
    digits = (i["keys"] >> np.uint32(i["shift"])) & np.uint32(0xFF)
    return {"bins": (i["bins"] + np.bincount(digits, minlength=256)).astype(np.uint32)}


def _make_histogram_local(rng: np.random.Generator) -> Launch:
    n = _size(rng, 5000, 20000, 64)
    groups = int(rng.integers(3, 8))
    # a skewed byte distribution: some bins are hot, some stay empty in some groups
    data = np.minimum(rng.exponential(60.0, n), 255).astype(np.uint8)
    data[0] = 255
    args = {
        "data": Buffer(data),
        "bins": Buffer(rng.integers(0, 1000, 64).astype(np.uint32), "inout"),
        "n": _i32(n),
    }
    return Launch(args, (64 * groups,), (64,))


def _ref_histogram_local(i: Inputs) -> dict[str, np.ndarray]:
    return {"bins": (i["bins"] + np.bincount(i["data"] >> 2, minlength=64)).astype(np.uint32)}


def _make_radix_count(rng: np.random.Generator) -> Launch:
    wg = 64
    n = _size(rng, 2000, 8000, wg)
    groups = -(-n // wg)
    args = {
        "keys": Buffer(rng.integers(1, 1 << 32, n, dtype=np.uint64).astype(np.uint32)),
        "counts": _sentinel_out(16 * groups, np.uint32),
        "shift": _u32(4 * int(rng.integers(0, 8))),
        "n": _i32(n),
    }
    return Launch(args, (groups * wg,), (wg,))


def _ref_radix_count(i: Inputs) -> dict[str, np.ndarray]:
    (wg,) = i.local_size
    keys = i["keys"]
    digits = ((keys >> np.uint32(i["shift"])) & np.uint32(15)).astype(np.int64)
    groups = -(-keys.size // wg)
    counts = np.zeros((16, groups), dtype=np.uint32)
    for g in range(groups):
        counts[:, g] = np.bincount(digits[g * wg : (g + 1) * wg], minlength=16)
    return {"counts": counts.reshape(-1)}


def _make_radix_split(rng: np.random.Generator) -> Launch:
    wg = 128
    n = _size(rng, 1000, 4000, wg)
    gsize = _round_up(n, wg)
    args = {
        "keys": Buffer(rng.integers(1, (1 << 32) - 1, n, dtype=np.uint64).astype(np.uint32)),
        "out": _sentinel_out(gsize, np.uint32),
        "bit": _u32(int(rng.integers(0, 32))),
        "n": _i32(n),
    }
    return Launch(args, (gsize,), (wg,))


def _ref_radix_split(i: Inputs) -> dict[str, np.ndarray]:
    (wg,) = i.local_size
    blocks = _blocks(i["keys"], wg, fill=np.uint32(0xFFFFFFFF))
    is_one = ((blocks >> np.uint32(i["bit"])) & np.uint32(1)).astype(bool)
    rows = [np.concatenate([b[~o], b[o]]) for b, o in zip(blocks, is_one, strict=True)]  # stable partition
    return {"out": np.concatenate(rows).astype(np.uint32)}


# --------------------------------------------------------------------------------------------------------------
# Layout and stencils
# --------------------------------------------------------------------------------------------------------------


def _make_transpose_local(rng: np.random.Generator) -> Launch:
    rows, cols = _size(rng, 20, 75, 16), _size(rng, 20, 75, 16)
    args = {
        "src": Buffer(_signed(rng, 0.01, 100.0, (rows, cols))),
        "dst": _nan_out((cols, rows)),
        "rows": _i32(rows),
        "cols": _i32(cols),
    }
    return Launch(args, (_round_up(cols, 16), _round_up(rows, 16)), (16, 16))


def _ref_transpose_local(i: Inputs) -> dict[str, np.ndarray]:
    return {"dst": i["src"].T.copy()}


def _make_stencil_1d(rng: np.random.Generator) -> Launch:
    n = _size(rng, 500, 4000, 64)
    args = {
        "x": Buffer(_signed(rng, 0.01, 10.0, n)),
        "out": _nan_out(n),
        "wl": _f32(rng.uniform(0.1, 0.5)),
        "wc": _f32(rng.uniform(-1.0, -0.5)),
        "wr": _f32(rng.uniform(0.1, 0.5)),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _stencil_1d_terms(i: Inputs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = _f64(i["x"])
    padded = np.concatenate([[0.0], x, [0.0]])
    return float(i["wl"]) * padded[:-2], float(i["wc"]) * x, float(i["wr"]) * padded[2:]


def _ref_stencil_1d(i: Inputs) -> dict[str, np.ndarray]:
    left, centre, right = _stencil_1d_terms(i)
    return {"out": left + centre + right}


def _stencil_1d_bound(i: Inputs) -> np.ndarray:
    # three products and two additions: |error| <= 3 u sum|terms|, i.e. 1.5 EPS32; 2 EPS32 for margin
    return 2 * EPS32 * sum(np.abs(t) for t in _stencil_1d_terms(i))


def _make_pair_sums(rng: np.random.Generator) -> Launch:
    n = _size(rng, 500, 4000, 64)
    args = {"x": Buffer(_signed(rng, 0.01, 10.0, n)), "y": _nan_out(-(-n // 2)), "n": _i32(n)}
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_pair_sums(i: Inputs) -> dict[str, np.ndarray]:
    x = _f64(i["x"])
    return {"y": x[0::2] + np.append(x[1::2], [0.0] * (x.size % 2))}


def _make_stencil_2d(rng: np.random.Generator) -> Launch:
    rows, cols = _size(rng, 20, 60, 8), _size(rng, 20, 60, 8)
    args = {
        "u": Buffer(_signed(rng, 0.01, 10.0, (rows, cols))),
        "v": _nan_out((rows, cols)),
        "rows": _i32(rows),
        "cols": _i32(cols),
        "c": _f32(rng.uniform(0.2, 0.6)),
        "e": _f32(rng.uniform(0.05, 0.2)),
    }
    return Launch(args, (_round_up(cols, 8), _round_up(rows, 8)), (8, 8))


def _ref_stencil_2d(i: Inputs) -> dict[str, np.ndarray]:
    u = _f64(i["u"])
    v = u.copy()
    around = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
    v[1:-1, 1:-1] = float(i["c"]) * u[1:-1, 1:-1] + float(i["e"]) * around
    return {"v": v}


def _stencil_2d_bound(i: Inputs) -> np.ndarray:
    u = np.abs(_f64(i["u"]))
    bound = np.zeros_like(u)
    around = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
    # 3 additions for the neighbours, 2 products, 1 addition: |error| <= 6 u sum|terms| = 3 EPS32 sum|terms|
    bound[1:-1, 1:-1] = 3 * EPS32 * (abs(float(i["c"])) * u[1:-1, 1:-1] + abs(float(i["e"])) * around)
    return bound


def _make_conv2d_constant(rng: np.random.Generator) -> Launch:
    h, w = _size(rng, 16, 40, 4), _size(rng, 16, 50, 16)
    filt = _signed(rng, 0.01, 1.0, 25)
    args = {
        "img": Buffer(_signed(rng, 0.01, 10.0, (3, h, w))),
        "filt": Buffer(filt / np.float32(np.abs(filt).sum()), space="constant"),
        "out": _nan_out((3, h, w)),
        "height": _i32(h),
        "width": _i32(w),
    }
    return Launch(args, (_round_up(w, 16), _round_up(3 * h, 4)), (16, 4))


_CHANNEL_GAIN = np.array([1.0, 0.5, 2.0])


def _conv2d(img: np.ndarray, filt: np.ndarray) -> np.ndarray:
    _, h, w = img.shape
    padded = np.pad(img, ((0, 0), (2, 2), (2, 2)), mode="edge")  # clamp-to-edge addressing
    acc = np.zeros_like(img)
    for dy in range(5):
        for dx in range(5):
            acc += filt[dy * 5 + dx] * padded[:, dy : dy + h, dx : dx + w]
    return acc * _CHANNEL_GAIN[:, None, None]


def _ref_conv2d_constant(i: Inputs) -> dict[str, np.ndarray]:
    return {"out": _conv2d(_f64(i["img"]), _f64(i["filt"]))}


def _conv2d_bound(i: Inputs) -> np.ndarray:
    # a 25-term dot product per pixel (|error| <= 25 u sum|f p|, with a factor-2 margin); the gains are powers of 2
    return 25 * EPS32 * _conv2d(np.abs(_f64(i["img"])), np.abs(_f64(i["filt"])))


# --------------------------------------------------------------------------------------------------------------
# Row-wise ML kernels
# --------------------------------------------------------------------------------------------------------------


def _make_softmax_rows(rng: np.random.Generator) -> Launch:
    rows, cols = int(rng.integers(4, 12)), _size(rng, 65, 300, 64)
    args = {
        "x": Buffer(_signed(rng, 0.001, 8.0, (rows, cols))),
        "y": _nan_out((rows, cols)),
        "cols": _i32(cols),
    }
    return Launch(args, (64 * rows,), (64,))


def _ref_softmax_rows(i: Inputs) -> dict[str, np.ndarray]:
    x = _f64(i["x"])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"y": e / e.sum(axis=1, keepdims=True)}


def _make_layernorm_rows(rng: np.random.Generator) -> Launch:
    rows, cols, wg = int(rng.integers(3, 10)), _size(rng, 70, 400, 64), 64
    shift = rng.uniform(-5, 5, (rows, 1))  # rows with a nonzero mean
    args = {
        "x": Buffer((_signed(rng, 0.001, 3.0, (rows, cols)) + shift).astype(np.float32)),
        "gamma": Buffer(_uniform(rng, 0.5, 1.5, cols)),
        "beta": Buffer(_signed(rng, 0.001, 0.5, cols)),
        "y": _nan_out((rows, cols)),
        "red": Local(wg * 4),
        "cols": _i32(cols),
        "eps": _f32(1e-5),
    }
    return Launch(args, (wg * rows,), (wg,))


def _layernorm_parts(i: Inputs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    x = _f64(i["x"])
    mean = x.mean(axis=1, keepdims=True)
    centred = x - mean
    inv_std = 1.0 / np.sqrt((centred**2).mean(axis=1, keepdims=True) + float(i["eps"]))
    return x, centred, inv_std


def _ref_layernorm_rows(i: Inputs) -> dict[str, np.ndarray]:
    _, centred, inv_std = _layernorm_parts(i)
    return {"y": centred * inv_std * _f64(i["gamma"]) + _f64(i["beta"])}


def _layernorm_bound(i: Inputs) -> np.ndarray:
    x, centred, inv_std = _layernorm_parts(i)
    (wg,) = i.local_size
    cols = x.shape[1]
    k = -(-cols // wg) + math.log2(wg)  # additions behind each sum: a strided loop, then the tree
    gamma, beta = np.abs(_f64(i["gamma"])), np.abs(_f64(i["beta"]))
    # the mean is off by k u mean|x| (the sum) plus 2.5 ulp (the division)
    d_mean = k * EPS32 * np.abs(x).mean(axis=1, keepdims=True) + 3 * EPS32 * np.abs(x.mean(axis=1, keepdims=True))
    # inv_std is off relatively by the variance's sum (k u), the division (2.5 ulp), + eps, rsqrt (2 ulp), all
    # halved by the square root except rsqrt's own error
    rel_inv = (k / 2 + 8) * EPS32
    y_mag = np.abs(centred) * inv_std * gamma
    # y = (x - mean) * inv_std * gamma + beta: the error of (x - mean) scaled, inv_std's relative error, and
    # the roundings of the subtraction, two products and the sum; doubled for margin
    return 2 * ((d_mean + EPS32 * np.abs(centred)) * inv_std * gamma + y_mag * (rel_inv + 2 * EPS32) + EPS32 * beta)


def _make_bias_gelu_2d(rng: np.random.Generator) -> Launch:
    rows, cols = _size(rng, 10, 50, 4), _size(rng, 30, 100, 16)
    args = {
        "x": Buffer(_signed(rng, 0.001, 4.0, (rows, cols))),
        "bias": Buffer(_signed(rng, 0.001, 0.5, cols)),
        "y": _nan_out((rows, cols)),
        "rows": _i32(rows),
        "cols": _i32(cols),
    }
    return Launch(args, (_round_up(cols, 16), _round_up(rows, 4)), (16, 4))


_SQRT_2_OVER_PI = float(np.float32(0.7978845608028654))  # the kernel's float literal, rounded to float32


def _gelu_parts(i: Inputs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    v = _f64(i["x"]) + _f64(i["bias"])
    inner = _SQRT_2_OVER_PI * (v + float(np.float32(0.044715)) * v**3)
    return v, inner, 0.5 * v * (1.0 + np.tanh(inner))


def _ref_bias_gelu_2d(i: Inputs) -> dict[str, np.ndarray]:
    return {"y": _gelu_parts(i)[2]}


def _gelu_bound(i: Inputs) -> np.ndarray:
    v, inner, y = _gelu_parts(i)
    # v = x + bias is rounded (u|v|; gelu' <= 1.13 carries it through); inner has ~5 roundings (5 u |inner|,
    # tanh' <= 1 carries it); tanh itself is within 5 ulp (OpenCL 1.2 section 7.4), at most 5 EPS32 below 1;
    # 1 + tanh, 0.5 v and the final product round once each (3 u |y|). All doubled for margin.
    tanh_err = 2.5 * EPS32 * np.abs(inner) + 5 * EPS32
    return 2 * (1.13 * 0.5 * EPS32 * np.abs(v) + 0.5 * np.abs(v) * tanh_err + 1.5 * EPS32 * np.abs(y))


# --------------------------------------------------------------------------------------------------------------
# Preprocessor, control flow, atomics, NDRange queries
# --------------------------------------------------------------------------------------------------------------


def _make_box_filter_macros(rng: np.random.Generator) -> Launch:
    n = _size(rng, 500, 4000, 64)
    args = {
        "x": Buffer(_signed(rng, 0.01, 10.0, n)),
        "mean": _nan_out(n),
        "mean_sq": _nan_out(n),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


_INV_WIDTH = float(np.float32(1.0) / np.float32(7))  # (1.0f / WIDTH) is folded in float32


def _box_windows(i: Inputs) -> np.ndarray:
    x = _f64(i["x"])
    n = x.size
    idx = np.clip(np.arange(n)[:, None] + np.arange(-3, 4)[None, :], 0, n - 1)
    return x[idx]


def _ref_box_filter_macros(i: Inputs) -> dict[str, np.ndarray]:
    w = _box_windows(i)
    return {"mean": w.sum(axis=1) * _INV_WIDTH, "mean_sq": (w**2).sum(axis=1) * _INV_WIDTH}


def _box_bound(square: bool) -> Callable[[Inputs], np.ndarray]:
    def bound(i: Inputs) -> np.ndarray:
        w = np.abs(_box_windows(i))
        terms = (w**2 if square else w).sum(axis=1)
        # a 7-term sum (with 7 squares for mean_sq), then the multiply by the folded float32 1/7
        return 8 * EPS32 * terms * _INV_WIDTH

    return bound


_POLY_DEGREE = 5


def _make_poly_build_option(rng: np.random.Generator) -> Launch:
    n = _size(rng, 500, 4000, 64)
    args = {
        "x": Buffer(_signed(rng, 0.001, 1.5, n)),
        "coeffs": Buffer(_signed(rng, 0.05, 1.0, _POLY_DEGREE + 1), space="constant"),
        "y": _nan_out(n),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _horner(coeffs: np.ndarray, x: np.ndarray) -> np.ndarray:
    acc = np.full_like(x, coeffs[0])
    for c in coeffs[1:]:
        acc = acc * x + c
    return acc


def _ref_poly_build_option(i: Inputs) -> dict[str, np.ndarray]:
    return {"y": np.maximum(_horner(_f64(i["coeffs"]), _f64(i["x"])), 0.0)}


def _poly_bound(i: Inputs) -> np.ndarray:
    # Horner's rule in float32: |error| <= 2 d u sum|c_k| |x|^k (Higham, Accuracy and Stability, 5.1) = d EPS32 ...;
    # max(., 0) does not increase the error. Doubled for margin.
    return 2 * _POLY_DEGREE * EPS32 * _horner(np.abs(_f64(i["coeffs"])), np.abs(_f64(i["x"])))


def _make_control_flow(rng: np.random.Generator) -> Launch:
    n = _size(rng, 500, 2000, 64)
    args = {
        "a": Buffer(rng.integers(1, 5001, n).astype(np.uint32)),
        "b": Buffer(rng.integers(0, 5001, n).astype(np.uint32)),
        "v": Buffer(rng.integers(-50, 51, n).astype(np.int32)),
        "out": _sentinel_out((n, 5), np.int32),
        "limit": _i32(int(rng.integers(10, 40))),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _collatz_steps(v: int) -> int:
    steps = 0
    while v != 1:
        v = 3 * v + 1 if v & 1 else v >> 1
        steps += 1
    return steps


def _first_above(v: list[int], start: int, limit: int) -> int:
    for j in range(8):
        if start + j >= len(v):
            break
        w = v[start + j]
        if w < 0:
            continue
        if w == 0:
            break
        if w > limit:
            return j
    return -1


def _ref_control_flow(i: Inputs) -> dict[str, np.ndarray]:
    a, b, v = (i[k].tolist() for k in ("a", "b", "v"))
    limit = int(i["limit"])
    rows = [
        [
            _collatz_steps(ai),
            math.gcd(ai, bi),
            sum(int(d) for d in str((ai * 7919 + bi) & M32)),
            _first_above(v, k, limit),
            (ai > bi) - (ai < bi),
        ]
        for k, (ai, bi) in enumerate(zip(a, b, strict=True))
    ]
    return {"out": np.array(rows, dtype=np.int32)}


_SWITCH_OPS = (-3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ord("h"), ord("n"), 12)


def _make_switch_opcodes(rng: np.random.Generator) -> Launch:
    n = _size(rng, 500, 2000, 64)
    args = {
        "op": Buffer(rng.choice(_SWITCH_OPS, n).astype(np.int32)),
        "a": Buffer(_uniform(rng, -4.0, 4.0, n)),
        "b": Buffer(_uniform(rng, -4.0, 4.0, n)),
        "c": Buffer(rng.integers(0, 201, n).astype(np.int32)),
        "out": _nan_out(n),
        "count": _sentinel_out(n, np.int32),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _switch_opcode(op: int, x: float, y: float, c: int) -> tuple[float, int]:
    """One element of switch_opcodes: (out, count), NaN and the sentinel where the kernel returns early."""
    if op in (-1, -2):
        return math.nan, -559038737
    if op == 0:
        return x + y, 0
    if op in (1, 2):
        return (2 * (x - y) if op == 1 else x * y), 2
    if op == ord("h"):
        return 0.5 * x, ord("h")
    if op == ord("n"):
        return (x, y, max(x, y), max(x, y))[c & 3], 7
    if op == 4:
        k = math.isqrt(c) + 1  # the first k with k * k > c
        return float(k), k * (k - 1) // 2
    if op == 5:
        s = 0
        for j in range(8):
            r = (c + j) % 3
            if r == 0:
                continue
            s += j if r == 1 else -1
            s += 100
        return -x, s
    if op == 6:
        return y, abs(c - 100)
    if op == 12:
        return x * y, 12
    return abs(x), 3 if op == 3 else 43  # the default falls into case 3


def _ref_switch_opcodes(i: Inputs) -> dict[str, np.ndarray]:
    columns = (i["op"].tolist(), _f64(i["a"]).tolist(), _f64(i["b"]).tolist(), i["c"].tolist())
    rows = [_switch_opcode(op, x, y, c) for op, x, y, c in zip(*columns, strict=True)]
    return {"out": np.array([r for r, _ in rows]), "count": np.array([s for _, s in rows], dtype=np.int32)}


def _make_switch_local_groups(rng: np.random.Generator) -> Launch:
    groups = int(rng.integers(4, 20))
    n = 64 * groups
    args = {
        "keys": Buffer(rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)),
        "v": Buffer(rng.integers(-1000, 1001, n).astype(np.int32)),
        "out": _sentinel_out(n, np.int32),
    }
    return Launch(args, (n,), (64,))


def _ref_switch_local_groups(i: Inputs) -> dict[str, np.ndarray]:
    keys = i["keys"].astype(np.int64).reshape(-1, 64)
    x = i["v"].astype(np.int64).reshape(-1, 64)
    low = keys % 6
    t = np.select([low == 0, low == 1, (low == 2) | (low == 3), low == 4], [x, -x, 2 * x, x * x], 7)
    lid = np.arange(64)
    mirror = t[:, ::-1]
    r = np.select(
        [lid % 5 == 0, lid % 5 == 1, lid % 5 == 2],
        [mirror + np.roll(t, -1, axis=1), (mirror - t) ^ 0x55, mirror ^ 0x55],
        mirror,
    )
    sel = (keys >> 16) % 3
    out = np.select([sel == 0, sel == 1], [np.roll(r, -5, axis=1) + r, np.roll(r, 1, axis=1)], r)
    return {"out": out.reshape(-1).astype(np.int32)}


def _make_duff_rows(rng: np.random.Generator) -> Launch:
    n = 32 * int(rng.integers(2, 9))
    counts = rng.integers(1, 17, n).astype(np.int32)
    counts[:16] = np.arange(1, 17)  # every count: each entry point of both switches
    args = {
        "src": Buffer(rng.integers(-1000, 1001, (n, 16)).astype(np.int32)),
        "counts": Buffer(counts),
        "dst": _sentinel_out((n, 16), np.int32),
        "kind": _sentinel_out(n, np.int32),
    }
    return Launch(args, (n,), (32,))


def _ref_duff_rows(i: Inputs) -> dict[str, np.ndarray]:
    src, counts = i["src"].astype(np.int64), i["counts"]
    dst = i["dst"].astype(np.int64).copy()
    copied = np.arange(16)[None, :] < counts[:, None]
    dst[copied] = 3 * src[copied] + 1
    low = counts & 7
    kind = np.select(
        [(low == 0) & (counts > 8), low == 0, low == 1, low == 5, low == 6],
        [110, 101, 10, 2 * 1007, 7 + 1007],
        1,  # (default: entered at the label inside the else branch)
    )
    return {"dst": dst.astype(np.int32), "kind": kind.astype(np.int32)}


def _make_float_atomic_add(rng: np.random.Generator) -> Launch:
    n = _size(rng, 2000, 8000, 64)
    nbins = int(rng.integers(8, 40))
    bin_of = np.minimum(rng.geometric(0.15, n) - 1, nbins - 1).astype(np.int32)  # a few hot bins
    args = {
        "bin_of": Buffer(bin_of),
        "weight": Buffer(_signed(rng, 0.01, 1.0, n)),
        "bins": Buffer(_signed(rng, 0.01, 10.0, nbins), "inout"),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_float_atomic_add(i: Inputs) -> dict[str, np.ndarray]:
    bins = _f64(i["bins"])
    return {"bins": bins + np.bincount(i["bin_of"], weights=_f64(i["weight"]), minlength=bins.size)}


def _float_atomic_bound(i: Inputs) -> np.ndarray:
    bins = np.abs(_f64(i["bins"]))
    count = np.bincount(i["bin_of"], minlength=bins.size)
    mass = bins + np.bincount(i["bin_of"], weights=np.abs(_f64(i["weight"])), minlength=bins.size)
    # count additions in an order the atomics choose: |error| <= count u (|initial| + sum|w|); factor-2 margin
    return count * EPS32 * mass


def _make_math_more_unary(rng: np.random.Generator) -> Launch:
    n = _size(rng, 500, 2000, 64)
    args = {
        "x": Buffer(rng.uniform(0.05, 0.45, n).astype(np.float32)),
        "trig": Buffer(np.full(15 * n, np.nan, np.float32), "out"),
        "expo": Buffer(np.full(8 * n, np.nan, np.float32), "out"),
        "exact": Buffer(np.full(2 * n, np.nan, np.float32), "out"),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _vmath(fn: Callable[..., float], *args: np.ndarray) -> np.ndarray:
    return np.asarray(np.frompyfunc(fn, len(args), 1)(*(_f64(a) for a in args)), dtype=np.float64)


def _ref_math_more_unary(i: Inputs) -> dict[str, np.ndarray]:
    v32 = i["x"]
    w32 = np.float32(1) + np.float32(8) * v32  # the kernel's float32 arithmetic (8 v is exact: no fma question)
    v, w = _f64(v32), _f64(w32)
    pi = math.pi
    trig = [np.arccos(v), np.arcsin(v), np.arctan(w), np.arccos(v) / pi, np.arcsin(v) / pi, np.arctan(w) / pi]
    trig += [np.cos(pi * v), np.sin(pi * v), np.tan(pi * v), np.arcsinh(w), np.arctanh(v), np.arccosh(w)]
    trig += [np.cosh(w), np.sinh(w), np.cbrt(_f64(w32 - np.float32(3)))]
    expo = [10.0**w, np.expm1(v), np.log10(w), np.log1p(v), _vmath(math.erf, v), _vmath(math.erfc, w)]
    expo += [_vmath(math.gamma, w), _vmath(math.lgamma, _f64(w32 + np.float32(2)))]
    exact = [np.floor(np.log2(_f64(w32 * np.float32(100)))), np.rint(_f64(w32 * np.float32(10)))]
    return {
        "trig": np.stack(trig, axis=1).ravel(),
        "expo": np.stack(expo, axis=1).ravel(),
        "exact": np.stack(exact, axis=1).ravel(),
    }


def _make_math_binary4(rng: np.random.Generator) -> Launch:
    n = 64 * int(rng.integers(4, 16))
    args = {
        "x": Buffer(_signed(rng, 0.01, 10.0, (n, 4))),
        "y": Buffer(_signed(rng, 0.01, 10.0, (n, 4))),
        "k": Buffer(rng.integers(1, 8, (n, 4)).astype(np.int32)),
        "angles": Buffer(np.full((4 * n, 4), np.nan, np.float32), "out"),
        "exact": Buffer(np.full((7 * n, 4), np.nan, np.float32), "out"),
        "ilog": Buffer(np.full((n, 4), -559038737, np.int32), "out"),
    }
    return Launch(args, (n,), (64,))


def _ref_math_binary4(i: Inputs) -> dict[str, np.ndarray]:
    a32, b32, m = i["x"], i["y"], i["k"]
    a, b = _f64(a32), _f64(b32)
    r = _f64(np.abs(a32) + np.float32(0.5)) ** (1.0 / m)
    angles = [np.arctan2(a, b), np.arctan2(a, b) / math.pi, np.hypot(a, b), r]
    maxmag = np.where(np.abs(a) > np.abs(b), a, np.where(np.abs(b) > np.abs(a), b, np.fmax(a, b)))
    minmag = np.where(np.abs(a) < np.abs(b), a, np.where(np.abs(b) < np.abs(a), b, np.fmin(a, b)))
    exact = [np.copysign(a, b), np.where(a > b, a - b, 0.0), maxmag, minmag, _vmath(math.remainder, a, b)]
    exact += [_f64(np.nextafter(a32, b32)), np.ldexp(a, m - 4)]
    ilog = np.frexp(a32 * np.float32(1000))[1] - 1
    return {
        "angles": np.stack(angles, axis=1).reshape(-1, 4),
        "exact": np.stack(exact, axis=1).reshape(-1, 4),
        "ilog": ilog.astype(np.int32),
    }


def _make_atomic_minmax_xchg(rng: np.random.Generator) -> Launch:
    n = _size(rng, 1000, 5000, 64)
    nseg = int(rng.integers(4, 32))
    args = {
        "vals": Buffer(rng.integers(-(10**6), 10**6, n).astype(np.int32)),
        "seg": Buffer(rng.integers(0, nseg, n).astype(np.int32)),
        "perm": Buffer(rng.permutation(n).astype(np.int32)),
        "seg_min": Buffer(rng.integers(-(10**6), 10**6, nseg).astype(np.int32), "inout"),
        "seg_max": Buffer(rng.integers(-(10**6), 10**6, nseg).astype(np.int32), "inout"),
        "seg_bits": Buffer(rng.integers(0, 1 << 32, nseg, dtype=np.uint64).astype(np.uint32) & 0x0F0F0F0F, "inout"),
        "slots": Buffer(rng.integers(-(10**6), 10**6, n).astype(np.int32), "inout"),
        "old": _sentinel_out(n, np.int32),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_atomic_minmax_xchg(i: Inputs) -> dict[str, np.ndarray]:
    vals, seg, perm = i["vals"], i["seg"], i["perm"]
    seg_min, seg_max, seg_bits, slots = (i[k].copy() for k in ("seg_min", "seg_max", "seg_bits", "slots"))
    np.minimum.at(seg_min, seg, vals)
    np.maximum.at(seg_max, seg, vals)
    np.bitwise_or.at(seg_bits, seg, (np.uint32(1) << (vals & 31).astype(np.uint32)).astype(np.uint32))
    old = slots[perm].copy()
    slots[perm] = vals
    return {"seg_min": seg_min, "seg_max": seg_max, "seg_bits": seg_bits, "slots": slots, "old": old}


_NDRANGE_OFFSET = (5, 3)


def _make_ndrange_info(rng: np.random.Generator) -> Launch:
    lx, ly = ((8, 4), (4, 8), (16, 2))[int(rng.integers(0, 3))]
    gx, gy = lx * int(rng.integers(2, 6)), ly * int(rng.integers(2, 5))
    return Launch({"info": _sentinel_out((gy, gx, 12), np.int32)}, (gx, gy), (lx, ly))


def _ref_ndrange_info(i: Inputs) -> dict[str, np.ndarray]:
    (gx, gy), (lx, ly), (ox, oy) = i.global_size, i.local_size, i.global_offset
    info = np.zeros((gy, gx, 12), dtype=np.int32)
    for row in range(gy):
        for col in range(gx):
            info[row, col] = [
                2,
                col + ox,
                row + oy,
                ox,
                oy,
                gx // lx,
                gy // ly,
                col // lx,
                row // ly,
                col % lx + 100 * (row % ly),
                lx * 1000 + ly,
                gx * 1000 + gy,
            ]
    return {"info": info}


# -- OpenCL C 1.2 section 6.12 built-in tables (issue 16)


def _int_full(rng: np.random.Generator, dtype: Any, shape: Any) -> np.ndarray:
    """Integers over the type's whole range, with its edges (MIN, MAX, 0, 1, -1 or MAX - 1) in the first lanes."""
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    edges = [info.min, info.max, 0, 1, -1 if info.min < 0 else info.max - 1, info.min + 1]
    flat = a.reshape(-1)
    flat[: 3 * len(edges)] = np.array([edges[k % len(edges)] for k in range(3 * len(edges))], dtype=object)
    rng.shuffle(flat[: 6 * len(edges)])
    return a


def _int_out(shape: Any, dtype: type[np.generic]) -> Buffer:
    """An output of any integer type filled with 0x5A bytes (a recognizable value for every width)."""
    return Buffer(np.full(np.prod(shape) * np.dtype(dtype).itemsize, 0x5A, np.uint8).view(dtype).reshape(shape), "out")


def _half_out(shape: Any) -> Buffer:
    return Buffer(np.full(shape, np.nan, np.float16), "out")


def python_ints(a: np.ndarray) -> np.ndarray:
    """Python ints, for exact integer references."""
    return np.asarray(a).astype(object)


def wrap_to(x: np.ndarray, dtype: Any) -> np.ndarray:
    bits = np.dtype(dtype).itemsize * 8
    return np.asarray(np.asarray(x) % (1 << bits)).astype(np.uint64).astype(dtype)


def saturate_to(x: np.ndarray, dtype: Any) -> np.ndarray:
    info = np.iinfo(dtype)
    return np.minimum(np.maximum(x, int(info.min)), int(info.max)).astype(dtype)


def _make_fract_modf_frexp(rng: np.random.Generator) -> Launch:
    n = 64 * int(rng.integers(2, 8))
    x = (rng.standard_normal((n, 4)) * np.exp2(rng.integers(-20, 40, (n, 4)))).astype(np.float32)
    edges = [0.0, -0.0, -1e-10, 1e-10, 3.0, -3.0, 0.5, -0.5, 1e30, -1e30, 2.0**-126, -(2.0**-126), 1e-40, -3e-39]
    x.reshape(-1)[: len(edges)] = edges
    args = {
        "x": Buffer(x),
        "parts": _nan_out((5 * n, 4)),
        "exps": _sentinel_out((n, 4), np.int32),
        "checks": _sentinel_out((n, 4), np.int32),
    }
    return Launch(args, (n,), (64,))


def _ref_fract_modf_frexp(i: Inputs) -> dict[str, np.ndarray]:
    x32 = i["x"]
    x = _f64(x32)
    fl = np.floor(x)
    cap = np.nextafter(np.float32(1), np.float32(0))
    fr = np.minimum((x - fl).astype(np.float32), cap).astype(np.float64)  # the float32 difference, capped below 1
    fr = np.where(x == 0, x, fr)
    frac, whole = np.modf(x)
    mant, exp = np.frexp(x)
    parts = np.stack([fr, fl, frac, whole, mant], axis=1).reshape(-1, 4)
    checks = np.tile(np.array([1, 1, 4, 4], np.int32), (x.shape[0], 1))
    return {"parts": parts, "exps": exp.astype(np.int32), "checks": checks}


def _make_sincos_remquo(rng: np.random.Generator) -> Launch:
    n = 64 * int(rng.integers(2, 10))
    x = _signed(rng, 0.0, 100.0, n)
    x[:4] = [0.0, -0.0, 7.5, -7.5]
    whole = rng.integers(0, 6, n)
    y = (whole + rng.uniform(0.15, 0.85, n)) * np.where(rng.random(n) < 0.5, -1, 1)  # far from the poles
    y = y.astype(np.float32)
    y[:4] = [0.5, 2.5, 2.0 + 2.0**-20, -1.5]
    args = {
        "x": Buffer(x),
        "y": Buffer(y),
        "trig": _nan_out(2 * n),
        "rem": _nan_out(n),
        "quo": _sentinel_out(n, np.int32),
        "lg": _nan_out(n),
        "sgn": _sentinel_out(n, np.int32),
    }
    return Launch(args, (n,), (64,))


def _remquo_parts(x: float, y: float) -> tuple[float, int]:
    r = math.remainder(x, y)
    q = int((Fraction(x) - Fraction(r)) / Fraction(y))
    low = abs(q) & 7
    return r, (-low if (x < 0) != (y < 0) and low else low)


def _ref_sincos_remquo(i: Inputs) -> dict[str, np.ndarray]:
    x, y = _f64(i["x"]), _f64(i["y"])
    rq = [_remquo_parts(a, b) for a, b in zip(x.tolist(), y.tolist(), strict=True)]
    lg = np.array([math.lgamma(v) for v in y.tolist()])
    fl = np.floor(y)
    sgn = np.where(y > 0, 1, np.where(np.fmod(fl, 2) != 0, -1, 1))
    return {
        "trig": np.stack([np.sin(x), np.cos(x)], axis=1).reshape(-1),
        "rem": np.array([r for r, _ in rq]),
        "quo": np.array([q for _, q in rq], np.int32),
        "lg": lg,
        "sgn": sgn.astype(np.int32),
    }


def _make_saturating_int(rng: np.random.Generator) -> Launch:
    n = 32 * int(rng.integers(2, 8))
    args = {
        "c": Buffer(_int_full(rng, np.int8, (2 * n, 16))),
        "s": Buffer(_int_full(rng, np.int16, (2 * n, 8))),
        "a": Buffer(_int_full(rng, np.int32, (2 * n, 4))),
        "u": Buffer(_int_full(rng, np.uint32, (2 * n, 4))),
        "oc": _int_out((4 * n, 16), np.int8),
        "os": _int_out((3 * n, 8), np.int16),
        "oa": _int_out((3 * n, 4), np.int32),
        "ou": _int_out((3 * n, 4), np.uint32),
    }
    return Launch(args, (n,), (32,))


def _ref_saturating_int(i: Inputs) -> dict[str, np.ndarray]:
    c0, c1 = python_ints(i["c"][0::2]), python_ints(i["c"][1::2])
    s0, s1 = python_ints(i["s"][0::2]), python_ints(i["s"][1::2])
    a0, a1 = python_ints(i["a"][0::2]), python_ints(i["a"][1::2])
    u0, u1 = python_ints(i["u"][0::2]), python_ints(i["u"][1::2])
    i8, i16, i32, u32 = np.int8, np.int16, np.int32, np.uint32
    oc = [saturate_to(c0 + c1, i8), saturate_to(c0 - c1, i8), wrap_to(abs(c0 - c1), i8)]
    oc.append(np.minimum(np.maximum((c0 + c1) >> 1, -50), 50).astype(i8))
    os_ = [saturate_to(s0 * s1 + s0, i16), wrap_to((s0 + s1 + 1) >> 1, i16)]
    os_.append(np.maximum(saturate_to(s0 - s1, i16), np.int16(-1000)))
    oa = [
        saturate_to(a0 + a1, i32),
        saturate_to(a0 * a1 + a0, i32),
        wrap_to(((a0 + a1) >> 1) - ((a0 + a1 + 1) >> 1), i32),
    ]
    ou = [
        saturate_to(u0 + u1, u32),
        saturate_to(u0 - u1, u32),
        np.minimum(saturate_to(u0 * u1 + u0, u32), np.uint32(4000000000)),
    ]
    return {
        "oc": np.stack(oc, axis=1).reshape(-1, 16),
        "os": np.stack(os_, axis=1).reshape(-1, 8),
        "oa": np.stack(oa, axis=1).reshape(-1, 4),
        "ou": np.stack(ou, axis=1).reshape(-1, 4),
    }


def _make_bit_ops(rng: np.random.Generator) -> Launch:
    n = 32 * int(rng.integers(2, 8))
    args = {
        "b": Buffer(_int_full(rng, np.uint8, (n, 16))),
        "w": Buffer(_int_full(rng, np.uint64, (2 * n, 2))),
        "u": Buffer(_int_full(rng, np.uint32, (2 * n, 4))),
        "s": Buffer(_int_full(rng, np.int64, (2 * n, 2))),
        "small": Buffer(rng.integers(-(2**23), 2**23, 2 * n).astype(np.int32)),
        "ob": _int_out((3 * n, 16), np.uint8),
        "ow": _int_out((3 * n, 2), np.uint64),
        "ou": _int_out((2 * n, 4), np.uint32),
        "os": _int_out((2 * n, 2), np.int64),
        "o24": _int_out(2 * n, np.int32),
    }
    return Launch(args, (n,), (32,))


def _clz_of(v: np.ndarray, bits: int) -> np.ndarray:
    return np.vectorize(lambda x: bits - int(x).bit_length(), otypes=[object])(v)


def _rotl(v: np.ndarray, s: np.ndarray, bits: int) -> np.ndarray:
    s = s % bits
    return ((v << s) | (v >> ((bits - s) % bits))) % (1 << bits)


def _ref_bit_ops(i: Inputs) -> dict[str, np.ndarray]:
    b = python_ints(i["b"])
    pop = np.vectorize(lambda x: int(x).bit_count(), otypes=[object])
    ob = [_clz_of(b, 8), pop(b), _rotl(b, b[:, ::-1], 8)]
    w0, w1 = python_ints(i["w"][0::2]), python_ints(i["w"][1::2])
    ow = [_clz_of(w0, 64) + pop(w1), _rotl(w0, w1, 64), (w0 * w1) >> 64]
    u0, u1 = python_ints(i["u"][0::2]), python_ints(i["u"][1::2])
    ou = [(u0 * u1) >> 32, ((u0 * u1) >> 32) + u0]
    s0, s1 = python_ints(i["s"][0::2]), python_ints(i["s"][1::2])
    os_ = [(s0 * s1) >> 64, ((s0 >> 32) << 32) | (s1 % (1 << 32))]
    x, y = python_ints(i["small"][0::2]), python_ints(i["small"][1::2])
    return {
        "ob": wrap_to(np.stack(ob, axis=1), np.uint8).reshape(-1, 16),
        "ow": wrap_to(np.stack(ow, axis=1), np.uint64).reshape(-1, 2),
        "ou": wrap_to(np.stack(ou, axis=1), np.uint32).reshape(-1, 4),
        "os": wrap_to(np.stack(os_, axis=1), np.int64).reshape(-1, 2),
        "o24": wrap_to(np.stack([x * y, x * y + x], axis=1), np.int32).reshape(-1),
    }


def _make_geometry_normalize_cross(rng: np.random.Generator) -> Launch:
    n = 64 * int(rng.integers(2, 8))
    args = {
        "p": Buffer(_signed(rng, 0.01, 10.0, 4 * n)),
        "q": Buffer(_signed(rng, 0.01, 10.0, 4 * n)),
        "vec": _nan_out((4 * n, 4)),
        "sc": _nan_out(3 * n),
        "fast": _nan_out((2 * n, 4)),
    }
    return Launch(args, (n,), (64,))


def _geometry_parts(i: Inputs) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    p, q = _f64(i["p"]), _f64(i["q"])
    n = p.size // 4
    return p[: 3 * n].reshape(n, 3), q[: 3 * n].reshape(n, 3), p.reshape(n, 4), q.reshape(n, 4)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.sqrt((v * v).sum(axis=1, keepdims=True))


def _ref_geometry_normalize_cross(i: Inputs) -> dict[str, np.ndarray]:
    a, b, c, d = _geometry_parts(i)
    zero = np.zeros((a.shape[0], 1))
    vec = [np.hstack([np.cross(a, b), zero]), np.hstack([np.cross(c[:, :3], d[:, :3]), zero]), _unit(c)]
    vec.append(np.hstack([_unit(a), np.sqrt((b * b).sum(axis=1, keepdims=True))]))
    length = np.sqrt
    sc = [(a * b).sum(axis=1), length(((c - d) ** 2).sum(axis=1)), length((a * a).sum(axis=1))]
    fast = [_unit(d)]
    fast.append(
        np.stack(
            [
                length((b * b).sum(axis=1)),
                length(((c - d) ** 2).sum(axis=1)),
                length((c[:, :2] ** 2).sum(axis=1)),
                length(((a - b) ** 2).sum(axis=1)),
            ],
            axis=1,
        )
    )
    return {
        "vec": np.stack(vec, axis=1).reshape(-1, 4),
        "sc": np.stack(sc, axis=1).reshape(-1),
        "fast": np.stack(fast, axis=1).reshape(-1, 4),
    }


def _cross_terms(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """|u_y v_z| + |u_z v_y| and its rotations: what each cross component's rounding error scales with."""
    au, av = np.abs(u), np.abs(v)
    return np.stack(
        [au[:, 1] * av[:, 2] + au[:, 2] * av[:, 1], au[:, 2] * av[:, 0] + au[:, 0] * av[:, 2],
         au[:, 0] * av[:, 1] + au[:, 1] * av[:, 0], np.zeros(u.shape[0])],
        axis=1,
    )  # fmt: skip


def _geometry_vec_bound(i: Inputs) -> np.ndarray:
    a, b, c, d = _geometry_parts(i)
    zero = np.zeros_like(c)
    rows = [_cross_terms(a, b), _cross_terms(c[:, :3], d[:, :3]), zero, zero]
    return 4 * EPS32 * np.stack(rows, axis=1).reshape(-1, 4)


def _geometry_sc_bound(i: Inputs) -> np.ndarray:
    a, b, _, _ = _geometry_parts(i)
    zero = np.zeros(a.shape[0])
    return np.stack([4 * EPS32 * np.abs(a * b).sum(axis=1), zero, zero], axis=1).reshape(-1)


def _make_relational_masks(rng: np.random.Generator) -> Launch:
    n = 64 * int(rng.integers(2, 8))
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 2.0**-126, -(2.0**-126), 1.0, -1.0, 3.0], np.float32)
    x = _signed(rng, 0.1, 4.0, (n, 4))
    y = np.where(rng.random((n, 4)) < 0.25, x, _signed(rng, 0.1, 4.0, (n, 4))).astype(np.float32)
    pick = rng.random((n, 4)) < 0.2
    x[pick] = rng.choice(specials, int(pick.sum()))
    pick = rng.random((n, 4)) < 0.2
    y[pick] = rng.choice(specials, int(pick.sum()))
    x[0], y[0] = specials[:4], specials[4:8]
    args = {
        "x": Buffer(x),
        "y": Buffer(y),
        "masks": _sentinel_out((6 * n, 4), np.int32),
        "flags": _sentinel_out(4 * n, np.int32),
        "picked": _nan_out((2 * n, 4)),
        "bits": _sentinel_out((2 * n, 4), np.int32),
    }
    return Launch(args, (n,), (64,))


def _ref_relational_masks(i: Inputs) -> dict[str, np.ndarray]:
    a, b = i["x"], i["y"]
    with np.errstate(invalid="ignore"):
        less, ge, gt = a < b, a >= b, a > b
        lg = (a < b) | (a > b)
    na, nb = np.isnan(a), np.isnan(b)
    m = lambda c: -np.asarray(c, np.int32)  # noqa: E731 (a vector relational's -1/0 mask)
    normal = np.isfinite(a) & (np.abs(a) >= np.finfo(np.float32).tiny)
    masks = [m(less), m(ge), m(lg), m(na | nb) | (m(na) << 1), m(np.isfinite(a)) + m(np.isinf(b)) + m(np.signbit(a))]
    masks.append(m(normal) & m(~na & ~nb))
    with np.errstate(invalid="ignore"):
        f2 = (a[:, 0] == b[:, 0]) + 2 * (a[:, 1] != b[:, 1]) + 4 * (a[:, 2] > b[:, 2])
        f3 = (a[:, 3] <= b[:, 3]) + 2 * nb[:, 3] + 4 * np.signbit(b[:, 0])
    flags = np.stack([less.any(axis=1), less.all(axis=1), f2, f3], axis=1).astype(np.int32)
    ua, ub = a.view(np.uint32), b.view(np.uint32)
    sel = (m(less).view(np.uint32) ^ np.uint32(0x0F0F0F0F)).astype(np.uint32)
    picked = [np.where(less, b, a), np.where(gt, b, a)]
    cbits = np.array([0x00FF00FF, 0xFFFFFFFF, 0, 0x12345678], np.uint32)
    bits = [((ua & ~sel) | (ub & sel)).view(np.int32), ((ua & ~cbits) | (ub & cbits)).view(np.int32)]
    return {
        "masks": np.stack(masks, axis=1).reshape(-1, 4),
        "flags": flags.reshape(-1),
        "picked": np.stack(picked, axis=1).reshape(-1, 4),
        "bits": np.stack(bits, axis=1).reshape(-1, 4),
    }


def _make_vload_vstore_offsets(rng: np.random.Generator) -> Launch:
    n = 32 * int(rng.integers(2, 8))
    args = {
        "src": Buffer(rng.integers(-(10**6), 10**6, 6 * n + 6).astype(np.int32)),
        "csrc": Buffer(rng.integers(-(2**15), 2**15, 8 * n + 3).astype(np.int16), space="constant"),
        "out3": _sentinel_out(3 * n, np.int32),
        "out8": _int_out(8 * n, np.int16),
        "out2": _sentinel_out(2 * n, np.int32),
    }
    return Launch(args, (n,), (32,))


def _ref_vload_vstore_offsets(i: Inputs) -> dict[str, np.ndarray]:
    src, csrc = i["src"].astype(np.int64), i["csrc"]
    n = (src.size - 6) // 6
    v = src[3 : 3 + 6 * n].reshape(n, 2, 3)[:, 0, :]  # vload3(2 i + 1): elements 6 i + 3 .. 6 i + 5
    rotated = v[:, [2, 0, 1]].reshape(-1, 32, 3)  # vstore3(v.zxy, l, tile), per work-group of 32
    w = np.roll(rotated, -1, axis=1).reshape(n, 3)  # vload3((l + 1) % 32, tile)
    out8 = csrc[3 : 3 + 8 * n].reshape(n, 8)[:, ::-1]
    out2 = np.stack([v[:, 0] + v[:, 2], v[:, 1] + v[:, 2]], axis=1)
    return {
        "out3": (w + v).astype(np.int32).reshape(-1),
        "out8": out8.reshape(-1),
        "out2": out2.astype(np.int32).reshape(-1),
    }


def _make_half_rounding(rng: np.random.Generator) -> Launch:
    n = 64 * int(rng.integers(2, 8))
    x = (rng.standard_normal(5 * n) * np.exp2(rng.integers(-26, 17, 5 * n))).astype(np.float32)
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, 65520.0, -65520.0, 1e6, -1e6, 2.0**-24, 2.0**-25]
    edges += [3e-8, -3e-8, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, -(1.0 + 2.0**-11), 1.0 + 2.0**-12, 0.1, -0.1]
    x[: len(edges)] = edges
    x[n : n + len(edges)] = edges
    args = {
        "x": Buffer(x),
        "rte": _half_out(n),
        "rtz": _half_out(n),
        "rtp": _half_out(n),
        "rtn": _half_out(n),
        "dflt4": _half_out(4 * n),
        "aligned3": _half_out(4 * n),
        "back": _nan_out(2 * n),
    }
    return Launch(args, (n,), (64,))


def _half_round(x: np.ndarray, mode: str) -> np.ndarray:
    """float32 -> half by ``mode`` from the sorted grid of every finite half (independent of NumPy's conversion)."""
    grid = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16)
    grid = np.unique(grid[np.isfinite(grid)].astype(np.float64))
    v = _f64(x)
    above = np.searchsorted(grid, v, side="right")  # the first grid value above v
    lo = np.where(above > 0, grid[np.maximum(above - 1, 0)], -np.inf)
    hi = np.where(lo == v, v, np.where(above < grid.size, grid[np.minimum(above, grid.size - 1)], np.inf))
    if mode == "rtz":
        r = np.where(v >= 0, np.minimum(lo, 65504.0), np.maximum(hi, -65504.0))
    elif mode == "rtp":
        r = np.maximum(hi, -65504.0)
    elif mode == "rtn":
        r = np.minimum(lo, 65504.0)
    else:  # nearest, ties to the even one (the even half has a zero lowest mantissa bit); past 65520: inf
        lo_f, hi_f = np.maximum(lo, -65504.0), np.minimum(hi, 65504.0)
        even = (lo_f.astype(np.float16).view(np.uint16) & 1) == 0
        with np.errstate(invalid="ignore"):  # inf - inf for infinite inputs, replaced below
            near_lo = (v - lo_f < hi_f - v) | ((v - lo_f == hi_f - v) & even)
        r = np.where(near_lo, lo_f, hi_f)
        r = np.where(np.abs(v) >= 65520.0, np.copysign(np.inf, v), r)
    r = np.where(np.isinf(v), v, np.copysign(r, v))
    return np.where(np.isnan(v), np.nan, r).astype(np.float16)


def _ref_half_rounding(i: Inputs) -> dict[str, np.ndarray]:
    x = i["x"]
    n = x.size // 5
    v, q = x[:n], x[n:].reshape(n, 4)
    out = {mode: _half_round(v, mode) for mode in ("rte", "rtz", "rtp", "rtn")}
    dflt4 = _half_round(q, "rte")
    r = dflt4.astype(np.float32)
    aligned3 = dflt4.copy()
    aligned3[:, 3] = _half_round(r[:, 0] + np.float32(1), "rte")  # the kernel's own write after vstorea_half3
    with np.errstate(invalid="ignore"):
        back = np.stack([out["rtz"].astype(np.float32) + r[:, 1], r[:, 0] - r[:, 2]], axis=1)
    return {**out, "dflt4": dflt4.reshape(-1), "aligned3": aligned3.reshape(-1), "back": back.reshape(-1)}


def _make_shuffle_masks(rng: np.random.Generator) -> Launch:
    n = 64 * int(rng.integers(2, 6))
    args = {
        "x": Buffer(_signed(rng, 0.5, 9.0, (n, 4))),
        "y": Buffer(_signed(rng, 0.5, 9.0, (n, 4))),
        "m": Buffer(_int_full(rng, np.uint32, (n, 8))),
        "b": Buffer(_int_full(rng, np.uint8, (n, 16))),
        "bm": Buffer(_int_full(rng, np.uint8, (n, 16))),
        "of": _nan_out((3 * n, 8)),
        "ob": _int_out((2 * n, 16), np.uint8),
        "steps": _sentinel_out(n, np.int32),
    }
    return Launch(args, (n,), (64,))


def _ref_shuffle_masks(i: Inputs) -> dict[str, np.ndarray]:
    x, y, b, bm = i["x"], i["y"], i["b"], i["bm"]
    m = i["m"].astype(np.int64)
    take = lambda src, idx: np.take_along_axis(src, idx, axis=1)  # noqa: E731
    xy, yx = np.hstack([x, y]), np.hstack([y, x])
    third = np.hstack([take(y, m[:, [3, 7]] & 3), take(yx, m[:, [0, 2, 4, 6]] & 7), take(x, m[:, [1, 1]] & 3)])
    of = np.stack([take(x, m & 3), take(xy, m & 7), third], axis=1).reshape(-1, 8)
    ob = np.stack([take(b, bm.astype(np.int64) & 15), take(np.hstack([b, bm]), b.astype(np.int64) & 31)], axis=1)
    return {"of": of, "ob": ob.reshape(-1, 16), "steps": np.full(x.shape[0], 4841, np.int32)}


def _make_common_mix_step(rng: np.random.Generator) -> Launch:
    n = 64 * int(rng.integers(2, 8))
    x = rng.uniform(-4, 4, (n, 4)).astype(np.float32)
    y = np.where(rng.random((n, 4)) < 0.2, x, rng.uniform(-4, 4, (n, 4))).astype(np.float32)
    x[0], y[0] = [0.0, -0.0, 2.0, -2.0], [0.0, 0.0, -2.0, 3.0]
    t = rng.uniform(0, 1, n).astype(np.float32)
    t[:3] = [0.0, 1.0, 0.5]
    args = {
        "x": Buffer(x),
        "y": Buffer(y),
        "t": Buffer(t),
        "exact": _nan_out((5 * n, 4)),
        "approx": _nan_out((5 * n, 4)),
    }
    return Launch(args, (n,), (64,))


def _smooth(e0: np.ndarray, e1: np.ndarray, v: np.ndarray) -> np.ndarray:
    s = np.clip((v - e0) / (e1 - e0), 0.0, 1.0)
    return s * s * (3 - 2 * s)


def _ref_common_mix_step(i: Inputs) -> dict[str, np.ndarray]:
    a32, b32, s32 = i["x"], i["y"], i["t"][:, None]
    exact = [np.clip(a32, -2, 2), np.maximum(a32, s32) + np.minimum(b32, s32)]
    exact.append(np.where(a32 < b32, 0, 1) + 2 * np.where(b32 < s32, 0, 1))
    exact.append(np.sign(a32) + 4 * np.sign(b32 - a32))
    exact.append(np.clip(a32, np.minimum(b32, s32), np.maximum(b32, s32)))
    a, b, s = _f64(a32), _f64(b32), _f64(s32)
    quarter = np.array([0.25, 0.5, 0.75, 0.0]) + np.where(np.arange(4) == 3, s, 0.0)
    e0, e1 = _f64(b32 - np.float32(3)), _f64(b32 + np.float32(3))
    approx = [np.degrees(a), np.radians(b), a + (b - a) * s, a + (b - a) * quarter]
    approx.append(_smooth(-1.0, 1.5, a) + _smooth(e0, e1, np.broadcast_to(s, a.shape)))
    return {
        "exact": np.stack([_f64(e) for e in exact], axis=1).reshape(-1, 4),
        "approx": np.stack(approx, axis=1).reshape(-1, 4),
    }


def _common_approx_bound(i: Inputs) -> np.ndarray:
    a, b, s = _f64(i["x"]), _f64(i["y"]), _f64(i["t"])[:, None]
    mix = 3 * EPS32 * (np.abs(a) + np.abs(b - a) + np.abs(b))
    zero = np.zeros_like(a)
    return np.stack([zero, zero, mix, mix, np.full_like(a, 16 * EPS32)], axis=1).reshape(-1, 4) + 0 * s.sum()


def _make_scalar_bounds_denormals(rng: np.random.Generator) -> Launch:
    n = 64 * int(rng.integers(2, 6))
    denormals = np.array([1e-40, -1e-40, 2.0**-149, -(2.0**-149), 5.9e-39, 0.0, -0.0, 1e-30], np.float32)
    x = np.where(rng.random((n, 4)) < 0.5, rng.choice(denormals, (n, 4)), _signed(rng, 1e-38, 1e-37, (n, 4)))
    y = np.where(rng.random((n, 4)) < 0.5, rng.choice(denormals, (n, 4)), _signed(rng, 1e-38, 1e-37, (n, 4)))
    args = {
        "c": Buffer(_int_full(rng, np.int8, (n, 16))),
        "s": Buffer(_int_full(rng, np.int16, (n, 8))),
        "u": Buffer(_int_full(rng, np.uint32, (n, 4))),
        "x": Buffer(x.astype(np.float32)),
        "y": Buffer(y.astype(np.float32)),
        "oc": _int_out((n, 16), np.int8),
        "os": _int_out((2 * n, 8), np.int16),
        "ou": _int_out((n, 4), np.uint32),
        "classes": _sentinel_out((n, 4), np.int32),
        "picked": _nan_out((2 * n, 4)),
    }
    return Launch(args, (n,), (64,))


def _ref_scalar_bounds_denormals(i: Inputs) -> dict[str, np.ndarray]:
    c, s, u, a, b = i["c"], i["s"], i["u"], i["x"], i["y"]
    normal = np.isfinite(a) & (np.abs(a) >= np.finfo(np.float32).tiny)
    classes = -(normal.astype(np.int32) + 2 * (a < b) + 4 * (a == 0) + 8 * np.signbit(a))
    sel = np.array([0x0F0F0F0F, 0x00FFFFFF, 0xFFFFFFFF, 0x7F800000], np.uint32)
    ua, ub = a.view(np.uint32), b.view(np.uint32)
    picked = np.stack([np.where(a > b, b, a), ((ua & ~sel) | (ub & sel)).view(np.float32)], axis=1)
    return {
        "oc": np.clip(c, -50, 50).astype(np.int8),
        "os": np.stack([np.maximum(s, -1000), np.minimum(s, 1000)], axis=1).reshape(-1, 8).astype(np.int16),
        "ou": np.minimum(np.maximum(u, 1000), 4000000000).astype(np.uint32),
        "classes": classes.astype(np.int32),
        "picked": picked.reshape(-1, 4),
    }


# --------------------------------------------------------------------------------------------------------------
# The corpus
# --------------------------------------------------------------------------------------------------------------

# -- async copies and prefetch (issue 16)


def _make_async_stencil_1d(rng: np.random.Generator) -> Launch:
    n = _size(rng, 500, 4000, 64)
    groups = -(-n // 64)
    xp = np.zeros(groups * 64 + 2, np.float32)  # xp[0] is x[-1] and everything past x[n - 1] is 0
    xp[1 : n + 1] = _signed(rng, 0.01, 10.0, n)
    args = {
        "xp": Buffer(xp),
        "out": _nan_out(n),
        "wl": _f32(rng.uniform(0.1, 0.5)),
        "wc": _f32(rng.uniform(-1.0, -0.5)),
        "wr": _f32(rng.uniform(0.1, 0.5)),
        "n": _i32(n),
    }
    return Launch(args, (groups * 64,), (64,))


def _async_stencil_terms(i: Inputs) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = int(i["n"])
    xp = _f64(i["xp"])
    return float(i["wl"]) * xp[:n], float(i["wc"]) * xp[1 : n + 1], float(i["wr"]) * xp[2 : n + 2]


def _ref_async_stencil_1d(i: Inputs) -> dict[str, np.ndarray]:
    left, centre, right = _async_stencil_terms(i)
    return {"out": left + centre + right}


def _async_stencil_bound(i: Inputs) -> np.ndarray:
    return 2 * EPS32 * sum(np.abs(t) for t in _async_stencil_terms(i))


def _make_async_matmul_rows(rng: np.random.Generator) -> Launch:
    m, n, k = (8 * int(rng.integers(2, 9)) for _ in range(3))
    args = {
        "M": _i32(m),
        "N": _i32(n),
        "K": _i32(k),
        "A": Buffer(_signed(rng, 0.01, 1.0, (m, k))),
        "B": Buffer(_signed(rng, 0.01, 1.0, (k, n))),
        "C": _nan_out((m, n)),
    }
    return Launch(args, (n, m), (8, 8))


def _make_async_aos_soa(rng: np.random.Generator) -> Launch:
    n = 32 * int(rng.integers(2, 9))
    args = {
        "pts": Buffer(_signed(rng, 0.01, 10.0, (n, 3))),
        "norm2": _nan_out(n),
        "scaled": _nan_out((n, 3)),
        "s": _f32(rng.uniform(-3.0, 3.0)),
    }
    return Launch(args, (n,), (32,))


def _ref_async_aos_soa(i: Inputs) -> dict[str, np.ndarray]:
    p = _f64(i["pts"])
    return {"norm2": (p * p).sum(axis=1), "scaled": float(i["s"]) * p}


def _async_norm2_bound(i: Inputs) -> np.ndarray:
    # three products and two additions: 3 u sum p^2, 2 EPS32 with margin
    return 2 * EPS32 * (_f64(i["pts"]) ** 2).sum(axis=1)


def _make_async_float4_axpy(rng: np.random.Generator) -> Launch:
    n = _size(rng, 100, 400, 32)
    args = {
        "x": Buffer(_signed(rng, 0.01, 10.0, (n, 4))),
        "y": Buffer(_signed(rng, 0.01, 10.0, (n, 4)), "inout"),
        "tag": _sentinel_out((n, 4), np.int32),
        "a": _f32(rng.uniform(-2.0, 2.0)),
        "n": _i32(n),
    }
    return Launch(args, (128,), (32,))  # 4 groups stride over the blocks


def _ref_async_float4_axpy(i: Inputs) -> dict[str, np.ndarray]:
    n = int(i["n"])
    start = np.arange(n) // 32 * 32
    tag = np.stack([np.arange(n), start // 32 % 4, np.minimum(32, n - start), -(np.arange(n) % 32)], axis=1)
    return {"y": float(i["a"]) * _f64(i["x"]) + _f64(i["y"]), "tag": tag.astype(np.int32)}


def _async_axpy_bound(i: Inputs) -> np.ndarray:
    # a product and an addition (fused or not): 2 u (|a x| + |y|)
    return EPS32 * (abs(float(i["a"])) * np.abs(_f64(i["x"])) + np.abs(_f64(i["y"])))


def _make_prefetch_rows(rng: np.random.Generator) -> Launch:
    rows, cols4 = _size(rng, 20, 100, 32), int(rng.integers(5, 30))
    args = {
        "m": Buffer(_signed(rng, 0.01, 10.0, (rows, cols4 * 4))),
        "sums": _nan_out(rows),
        "rows": _i32(rows),
        "cols4": _i32(cols4),
    }
    return Launch(args, (_round_up(rows, 32),), (32,))


def _ref_prefetch_rows(i: Inputs) -> dict[str, np.ndarray]:
    return {"sums": _f64(i["m"]).sum(axis=1)}


def _prefetch_rows_bound(i: Inputs) -> np.ndarray:
    # a sum of 4 * cols4 terms in float32, in any order: (terms - 1) u sum|m|; terms * EPS32 with margin
    m = _f64(i["m"])
    return m.shape[1] * EPS32 * np.abs(m).sum(axis=1)


# -- structs, unions, vector arguments by value, long16 initializers (issue 16)


def _struct_dtype(fields: list[tuple[str, Any, int]], itemsize: int) -> np.dtype:
    """A NumPy structured dtype with OpenCL C's offsets (NumPy's ``align=True`` aligns a vector member only to its
    element: a float4 at 4 bytes, where OpenCL C puts it at 16)."""
    return np.dtype(
        {"names": [f[0] for f in fields], "formats": [f[1] for f in fields], "offsets": [f[2] for f in fields],
         "itemsize": itemsize}
    )  # fmt: skip


_PARAMS = _struct_dtype(
    [("dt", np.float32, 0), ("drag", np.float32, 4), ("steps", np.int32, 8), ("gravity", (np.float32, 4), 16)], 32
)
_RECORD = _struct_dtype(
    [("tag", np.int8, 0), ("flags", np.int16, 2), ("key", np.int32, 4), ("weight", np.float32, 8),
     ("scale", (np.float32, 2), 16)], 24
)  # fmt: skip


def _make_struct_particles(rng: np.random.Generator) -> Launch:
    n = _size(rng, 200, 1000, 64)
    ps = np.concatenate([_signed(rng, 0.1, 10.0, (n, 4)), _signed(rng, 0.1, 3.0, (n, 4))], axis=1)
    q = np.zeros((), _PARAMS)
    q["dt"], q["drag"], q["steps"] = rng.uniform(0.01, 0.1), rng.uniform(0.0, 0.2), rng.integers(1, 5)
    q["gravity"] = _signed(rng, 0.5, 10.0, 4)
    args = {"ps": Buffer(ps, "inout"), "q": Scalar(q, _PARAMS), "n": _i32(n)}
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_struct_particles(i: Inputs) -> dict[str, np.ndarray]:
    q = i["q"]
    dt, drag, steps = float(q["dt"]), float(q["drag"]), int(q["steps"])
    g = _f64(q["gravity"])[:3]
    ps = _f64(i["ps"]).copy()
    for _ in range(steps):
        ps[:, 4:7] = ps[:, 4:7] * (1.0 - drag) + g * dt
        ps[:, 0:3] += ps[:, 4:7] * dt
    ps[:, 7] += 1.0
    return {"ps": ps}


def _particles_bound(i: Inputs) -> np.ndarray:
    """Per step a handful of roundings on values bounded by |p| + s dt (|v| + s dt |g|): 16 u per step, summed."""
    q = i["q"]
    dt, steps = float(q["dt"]), int(q["steps"])
    g = float(np.abs(_f64(q["gravity"])[:3]).max())
    ps = np.abs(_f64(i["ps"]))
    vmax = ps[:, 4:8].max(axis=1, keepdims=True) + steps * dt * g
    bound = np.concatenate([np.repeat(ps[:, 0:4].max(axis=1, keepdims=True) + steps * dt * vmax, 4, 1),
                            np.repeat(vmax + 1.0, 4, 1)], axis=1)  # fmt: skip
    return 16 * steps * EPS32 * bound


def _make_union_bits(rng: np.random.Generator) -> Launch:
    n = _size(rng, 500, 2000, 64)
    x = _signed(rng, 1e-3, 1e3, n)
    x[:4] = [0.0, -0.0, 1.0, -2.5]
    args = {
        "x": Buffer(x),
        "fields": _sentinel_out(3 * n, np.uint32),
        "twice_negated": _nan_out(n),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_union_bits(i: Inputs) -> dict[str, np.ndarray]:
    u = i["x"].view(np.uint32).astype(np.int64)
    sign, exponent, mantissa = u >> 31, (u >> 23) & 0xFF, u & 0x7FFFFF
    fields = np.stack([sign, exponent, mantissa ^ (u >> 24)], axis=1).reshape(-1)
    out = (((sign ^ 1) << 31) | (((exponent + 1) & 0xFF) << 23) | mantissa).astype(np.uint32).view(np.float32)
    return {"fields": fields, "twice_negated": out.astype(np.float64)}


def _make_struct_complex(rng: np.random.Generator) -> Launch:
    n = _size(rng, 500, 2000, 64)

    def ints() -> np.ndarray:  # small integer parts: every product and sum is exact in float32
        return rng.integers(-100, 101, (n, 2)).astype(np.float32)

    args = {
        "a": Buffer(ints()),
        "b": Buffer(ints()),
        "out": _nan_out((n, 2)),
        "norms": _nan_out(n),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_struct_complex(i: Inputs) -> dict[str, np.ndarray]:
    a, b = _f64(i["a"]), _f64(i["b"])
    re = a[:, 0] * b[:, 0] - a[:, 1] * b[:, 1] + a[:, 0]
    im = a[:, 0] * b[:, 1] + a[:, 1] * b[:, 0] - a[:, 1]
    odd = (np.arange(len(a)) % 2 == 1)[:, None]
    pick = np.where(odd, a, b)
    return {"out": np.stack([re, im], axis=1), "norms": (pick**2).sum(axis=1)}


def _make_vector_args(rng: np.random.Generator) -> Launch:
    n = _size(rng, 500, 2000, 64)
    args = {
        "x": Buffer(rng.integers(-(2**31), 2**31, (n, 4)).astype(np.int32)),
        "y": _sentinel_out((n, 4), np.int32),
        "f": Buffer(rng.integers(-1000, 1001, (n, 4)).astype(np.float32)),
        "dots": _nan_out(n),
        "scale": Scalar(rng.integers(-1000, 1000, 4).astype(np.int32), np.int32),
        "offset": Scalar(rng.integers(-(2**31), 2**31, 4).astype(np.int32), np.int32),
        "weight": Scalar(rng.integers(-64, 65, 4).astype(np.float32) / 8, np.float32),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_vector_args(i: Inputs) -> dict[str, np.ndarray]:
    y = i["x"].astype(np.int64) * i["scale"].astype(np.int64) + i["offset"][::-1].astype(np.int64)
    wrapped = ((y + 2**31) % 2**32 - 2**31).astype(np.int64)
    return {"y": wrapped, "dots": _f64(i["f"]) @ _f64(i["weight"])}


_ROW = 12


def _make_struct_nested_private(rng: np.random.Generator) -> Launch:
    rows = _size(rng, 100, 600, 64)
    x = rng.integers(-50, 51, (rows, _ROW)).astype(np.float32)
    args = {"x": Buffer(x), "out": _nan_out((rows, 5)), "rows": _i32(rows)}
    return Launch(args, (_round_up(rows, 64),), (64,))


def _ref_struct_nested_private(i: Inputs) -> dict[str, np.ndarray]:
    x = _f64(i["x"])
    low = np.sort(x, axis=1)
    return {"out": np.stack([(x > 0).sum(axis=1), low[:, 0], low[:, 1], x.sum(axis=1), (x * x).sum(axis=1)], axis=1)}


def _make_struct_local_argmax(rng: np.random.Generator) -> Launch:
    n = _size(rng, 500, 3000, 64)
    groups = -(-n // 64)
    x = rng.integers(-500, 500, n).astype(np.float32)  # ties happen: the smaller index wins
    args = {"x": Buffer(x), "best": _nan_out(groups), "where": _sentinel_out(groups, np.int32), "n": _i32(n)}
    return Launch(args, (64 * groups,), (64,))


def _ref_struct_local_argmax(i: Inputs) -> dict[str, np.ndarray]:
    x = _f64(i["x"])
    groups = -(-len(x) // 64)
    padded = np.full(groups * 64, -np.inf)
    padded[: len(x)] = x
    blocks = padded.reshape(groups, 64)
    at = blocks.argmax(axis=1)  # the first maximum: the smallest index
    return {"best": blocks.max(axis=1), "where": at + 64 * np.arange(groups)}


def _make_long16_table(rng: np.random.Generator) -> Launch:
    n = _size(rng, 300, 1500, 64)
    x = rng.integers(-(2**40), 2**40, n).astype(np.int64)
    args = {"x": Buffer(x), "out": _sentinel_out(2 * n, np.int64), "n": _i32(n)}
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_long16_table(i: Inputs) -> dict[str, np.ndarray]:
    x = i["x"].astype(np.int64)
    k = np.arange(len(x))
    v = (k % 3) * x + np.array([3, -2, 7])[k % 3] + np.where(k % 4 == 0, 5, 0)
    return {"out": np.stack([2 * v, 3000 + v], axis=1).reshape(-1)}


def _make_struct_records(rng: np.random.Generator) -> Launch:
    n = _size(rng, 300, 1500, 64)
    recs = np.zeros(n, _RECORD)
    recs["tag"] = rng.choice(np.frombuffer(b"xyz", np.int8), n)
    recs["flags"] = rng.integers(-(2**15), 2**15, n)
    recs["key"] = rng.integers(-(2**20), 2**20, n)
    recs["weight"] = _signed(rng, 0.1, 100.0, n)
    recs["scale"] = _signed(rng, 0.1, 10.0, (n, 2))
    args = {"recs": Buffer(recs), "score": _nan_out(n), "keys": _sentinel_out(n, np.int32), "n": _i32(n)}
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_struct_records(i: Inputs) -> dict[str, np.ndarray]:
    r = i["recs"]
    scale = np.where((r["flags"] & 1) == 1, r["scale"][:, 0], r["scale"][:, 1]).astype(np.float64)
    s = _f64(r["weight"]) * scale
    s = np.where(r["tag"] == ord("x"), -s, s)
    return {"score": s, "keys": r["key"].astype(np.int64) + 24 * 1000}


def _make_pointer_tables(rng: np.random.Generator) -> Launch:
    n = _size(rng, 200, 1500, 64)
    a, b, c = (_signed(rng, 0.5, 50.0, n) for _ in range(3))
    args = {
        "a": Buffer(a),
        "b": Buffer(b),
        "c": Buffer(c),
        "out": _nan_out(4 * n),
        "which": _sentinel_out(n, np.int32),
        "n": _i32(n),
    }
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_pointer_tables(i: Inputs) -> dict[str, np.ndarray]:
    a, b, c = (_f64(i[k]) for k in "abc")
    n = a.size
    k = np.arange(n)
    mine = np.choose(k % 3, [a, b, c])
    odd = (k & 1) == 1
    viewed = np.where(odd, b[(k // 2) * 2 % n], a[(k // 2) % n])
    alt = np.where(odd, mine, c)
    after = np.minimum(k + 1, n - 1)  # p is `mine` moved on by one element
    nxt = np.where(k + 1 < n, np.choose(k % 3, [a[after], b[after], c[after]]), 0.0)
    big_a = a >= b
    out = np.stack([mine, viewed + alt, nxt, np.where(big_a, a, b)], axis=1).reshape(-1)
    alt_is_c = ~odd  # views[0].fallback is c; views[1] has none, so alt is `mine` (c only when i % 3 == 2)
    alt_is_c = alt_is_c | (odd & (k % 3 == 2))
    which = big_a.astype(np.int64) + 2 * (k % 3 != 1) + 4 * alt_is_c
    return {"out": out, "which": which}


def _make_bug_oob_private(rng: np.random.Generator) -> Launch:
    n = _size(rng, 100, 1000, 64)
    x = rng.uniform(0.0, 0.999, n).astype(np.float32)
    x[int(rng.integers(0, n))] = 1.0  # one work-item's bin is BINS
    return Launch({"x": Buffer(x), "y": _sentinel_out(n, np.int32), "n": _i32(n)}, (_round_up(n, 64),), (64,))


def _make_bug_oob_struct_array(rng: np.random.Generator) -> Launch:
    n = _size(rng, 100, 1000, 64)
    lag = rng.integers(0, 3, n).astype(np.int32)
    lag[int(rng.integers(0, n))] = 3  # one work-item reads past the struct
    args = {"x": Buffer(_signed(rng, 0.1, 1.0, n)), "lag": Buffer(lag), "y": _nan_out(n), "n": _i32(n)}
    return Launch(args, (_round_up(n, 64),), (64,))


# -- race tracker: atomics beside plain accesses, fence spaces, uniform writes (issue 16)
def _make_count_positive_groups(rng: np.random.Generator) -> Launch:
    n = _size(rng, 300, 3000, 64)
    groups = -(-n // 64)
    args = {
        "x": Buffer(_signed(rng, 0.1, 1.0, n)),
        "counts": _sentinel_out(groups, np.int32),
        "scaled": _nan_out(n),
        "n": _i32(n),
    }
    return Launch(args, (64 * groups,), (64,))


def _ref_count_positive_groups(i: Inputs) -> dict[str, np.ndarray]:
    x = _f64(i["x"])
    groups = -(-x.size // 64)
    padded = np.zeros(groups * 64)
    padded[: x.size] = x
    return {"counts": 2 * (padded.reshape(groups, 64) > 0).sum(axis=1), "scaled": 2 * x + 1}


def _make_bug_count_positive(rng: np.random.Generator) -> Launch:
    groups = int(rng.integers(2, 8))
    args = {"x": Buffer(_signed(rng, 0.1, 1.0, 64 * groups)), "counts": _sentinel_out(groups, np.int32)}
    return Launch(args, (64 * groups,), (64,))


def _make_bug_pair_sums(rng: np.random.Generator) -> Launch:
    gsize = 64 * int(rng.integers(2, 8))
    args = {"x": Buffer(_signed(rng, 0.1, 1.0, gsize)), "scratch": _nan_out(gsize), "y": _nan_out(gsize)}
    return Launch(args, (gsize,), (64,))


def _make_bug_any_negative(rng: np.random.Generator) -> Launch:
    n = _size(rng, 200, 1000, 64)
    args = {"x": Buffer(_signed(rng, 0.1, 1.0, n)), "found": Buffer(np.zeros(1, np.int32), "inout"), "n": _i32(n)}
    return Launch(args, (_round_up(n, 64),), (64,))


def _make_chained_scan(rng: np.random.Generator) -> Launch:
    n = _size(rng, 300, 2500, 64)
    groups = -(-n // 64)
    args = {
        "in": Buffer(rng.integers(-1000, 1000, n).astype(np.int32)),
        "out": _sentinel_out(n, np.int32),
        "totals": _sentinel_out(groups, np.int32),
        "ready": Buffer(rng.integers(0, 1000, groups).astype(np.int32), "inout"),  # (an earlier launch's epochs)
        "epoch": _i32(int(rng.integers(1000, 2000))),
        "n": _i32(n),
    }
    return Launch(args, (64 * groups,), (64,))


def _ref_chained_scan(i: Inputs) -> dict[str, np.ndarray]:
    x = np.asarray(i["in"], np.int64)
    groups = -(-x.size // 64)
    padded = np.zeros(groups * 64, np.int64)
    padded[: x.size] = x
    totals = np.cumsum(padded.reshape(groups, 64).sum(axis=1))
    return {"out": np.cumsum(x), "totals": totals, "ready": np.full(groups, int(i["epoch"]))}


# -- packed structs and members, vector components in memory (issue 16)

_PACKED_REC = _struct_dtype(
    [("kind", np.int8, 0), ("count", np.int32, 1), ("delta", np.int16, 5), ("w", (np.float32, 2), 7)], 15
)
_MIXED = _struct_dtype([("tag", np.int8, 0), ("v", np.int32, 1), ("scale", np.float32, 8)], 12)


def _make_packed_records(rng: np.random.Generator) -> Launch:
    """Values that float32 holds exactly (eighths and quarters times small integers), so the outputs are exact."""
    n = _size(rng, 300, 1500, 64)
    recs = np.zeros(n, _PACKED_REC)
    recs["kind"] = rng.integers(-100, 100, n)
    recs["count"] = rng.integers(-4000, 4000, n)
    recs["delta"] = rng.integers(-(2**15), 2**15, n)
    recs["w"] = rng.integers(-64, 64, (n, 2)) / 8.0
    mixed = np.zeros(n, _MIXED)
    mixed["tag"] = rng.integers(-100, 100, n)
    mixed["v"] = rng.integers(-(2**20), 2**20, n)
    mixed["scale"] = rng.integers(-16, 16, n) / 4.0
    out = Buffer(np.full((n, 4), np.nan, np.float32), "out", flags="write_only")
    args = {"recs": Buffer(recs), "mixed": Buffer(mixed), "out": out, "counts": _sentinel_out(n, np.int32),
            "n": _i32(n)}  # fmt: skip
    return Launch(args, (_round_up(n, 64),), (64,))


def _ref_packed_records(i: Inputs) -> dict[str, np.ndarray]:
    r, m = i["recs"], i["mixed"]
    w = _f64(r["w"])
    out = np.stack(
        [w[:, 0] * r["count"] + w[:, 1], _f64(r["delta"]), _f64(m["scale"]) * m["v"],
         _f64(r["kind"].astype(np.int64) + m["tag"])], axis=1
    )  # fmt: skip
    return {"out": out, "counts": r["count"].astype(np.int64) + m["v"] - 15 * 1000 - 12}


CASES: list[KernelCase] = [
    KernelCase(
        "vector_add",
        "vector_add.cl",
        "vector_add",
        "1-D element-wise add, bound check against an NDRange rounded up",
        _make_vector_add,
        _ref_vector_add,
        {"c": CORRECTLY_ROUNDED},
    ),
    KernelCase(
        "saxpy",
        "saxpy.cl",
        "saxpy",
        "float scalar argument, in/out buffer, uint bound against size_t index, a*x+y (may be contracted to fma)",
        _make_saxpy,
        _ref_saxpy,
        {
            "y": Tolerance(
                ulp=0.5,
                atol=lambda i: EPS32 * np.abs(float(i["a"]) * _f64(i["x"])),
                reason="a * x + y: half an ulp for the sum, plus the product's rounding (u |a x|, doubled) when "
                "the compiler does not contract to fma",
            )
        },
    ),
    KernelCase(
        "scale_shift",
        "scale_shift.cl",
        "scale_shift",
        "float and int scalars, two in/out buffers of different types, early return, elements past n untouched",
        _make_scale_shift,
        _ref_scale_shift,
        {"x": CORRECTLY_ROUNDED, "idx": exact()},
    ),
    KernelCase(
        "math_unary",
        "math_unary.cl",
        "math_unary",
        "sqrt, rsqrt, exp, log, pow, sin, cos, each into its own buffer with its own ULP bound",
        _make_math_unary,
        _ref_math_unary,
        {
            "out_sqrt": _spec_ulp(3, "sqrt"),
            "out_rsqrt": _spec_ulp(2, "rsqrt"),
            "out_exp": _spec_ulp(3, "exp"),
            "out_log": _spec_ulp(3, "log"),
            "out_pow": _spec_ulp(16, "pow"),
            "out_sin": _spec_ulp(4, "sin"),
            "out_cos": _spec_ulp(4, "cos"),
        },
    ),
    KernelCase(
        "math_misc",
        "math_misc.cl",
        "math_misc",
        "fabs, fmin, fmax, fma, clamp, select (float); min, max, clamp, abs (int); mad; rows written through a "
        "__global pointer offset",
        _make_math_misc,
        _ref_math_misc,
        {
            "out_f": Tolerance(
                ulp=0.5,
                reason="fabs, fmin, fmax, clamp and select are exact and fma is correctly rounded (OpenCL 1.2 "
                "section 7.4: 0 ulp)",
            ),
            "out_i": exact(),
            "out_mad": Tolerance(
                ulp=0.5,
                atol=lambda i: EPS32 * np.abs(_f64(i["a"]) * _f64(i["b"])),
                reason="mad: OpenCL 1.2 allows any accuracy; later versions (and every real implementation) give "
                "fma or a rounded multiply then a rounded add: half an ulp plus u |a b| (x2)",
            ),
        },
    ),
    KernelCase(
        "float4_geometry",
        "float4_geometry.cl",
        "float4_geometry",
        "float4: vload4/vstore4, swizzles (.wzyx .xy .yx .s0 .s3 .hi .lo .even .odd), constructors, splats, "
        "float4* buffer, dot, length",
        _make_float4_geometry,
        _ref_float4_geometry,
        {
            "out_vec": Tolerance(ulp=0.5, reason="2a + b and a - b: one rounding each (2a is exact)"),
            "out_dot": Tolerance(
                atol=_dot4_bound,
                reason="dot of 4 terms: 4 products and 3 additions, |error| <= 4 u sum|a_i b_i| (with margin)",
            ),
            "out_len": Tolerance(
                ulp=8,
                reason="length is not in the 7.4 table: the rounded differences (u each), the sum of squares "
                "(~4 u relative, halved by the root) and sqrt's 3 ulp give about 6 ulp; 8 allowed",
            ),
            "out_mix": Tolerance(ulp=0.5, reason="one product per component (the last one is exact)"),
        },
    ),
    KernelCase(
        "uint_hash",
        "uint_hash.cl",
        "uint_hash",
        "uint wraparound (multiply, add, subtract), shifts by constants and by counts >= 32 (taken modulo 32 in "
        "OpenCL C), rotate, popcount, clz, bit ops, helper function",
        _make_uint_hash,
        _ref_uint_hash,
        {"hashes": exact(), "mixed": exact(), "counts": exact()},
    ),
    KernelCase(
        "ulong_mix",
        "ulong_mix.cl",
        "ulong_mix",
        "ulong arithmetic wrapping modulo 2**64 (splitmix64), ulong scalar, size_t index products that wrap, "
        "size_t modulo, ulong -> uint truncation",
        _make_ulong_mix,
        _ref_ulong_mix,
        {"out": exact(), "folded": exact()},
    ),
    KernelCase(
        "matmul_tiled",
        "matmul_tiled.cl",
        "matmul_tiled",
        "2-D NDRange, 16x16 __local tiles declared in the kernel, two barriers per tile, guarded loads in "
        "ternaries, M, N, K not multiples of 16",
        _make_matmul_tiled,
        _ref_matmul,
        {"C": Tolerance(ulp=0.5, atol=_matmul_bound, reason="K-term dot products: |error| <= K u sum|a b| (x2)")},
    ),
    KernelCase(
        "sgemm_local_args",
        "sgemm_local_args.cl",
        "sgemm_local_args",
        "__local pointer arguments sized at launch, tile size from get_local_size, alpha/beta, C in/out",
        _make_sgemm_local_args,
        _ref_sgemm,
        {
            "C": Tolerance(
                ulp=0.5,
                atol=_sgemm_bound,
                reason="|alpha| K u sum|a b| (x2) for the dot product, then u for alpha*acc, beta*C and the sum",
            )
        },
    ),
    KernelCase(
        "reduce_sum",
        "reduce_sum.cl",
        "reduce_sum",
        "grid-stride accumulation, tree reduction in a __local argument, one partial sum per work-group",
        _make_reduce_sum,
        _ref_reduce_sum,
        {
            "partial": Tolerance(
                atol=_reduce_sum_bound,
                reason="sum of m strided terms then log2(L) tree levels: |error| <= (m + log2 L) u sum|x| (x2)",
            )
        },
    ),
    KernelCase(
        "reduce_max",
        "reduce_max.cl",
        "reduce_max",
        "max with argmax payload (first index on ties), -INFINITY identity, __local arrays in the kernel",
        _make_reduce_max,
        _ref_reduce_max,
        {"group_max": Tolerance(exact=True, reason="max selects an input: exact"), "group_arg": exact()},
    ),
    KernelCase(
        "reduce_atomic_int",
        "reduce_atomic_int.cl",
        "reduce_atomic_int",
        "two-level int sum: local tree, then atomic_add on __global; atomic_inc on a __global counter",
        _make_reduce_atomic_int,
        _ref_reduce_atomic_int,
        {"total": exact(), "positives": exact()},
    ),
    KernelCase(
        "scan_hillis_steele",
        "scan_hillis_steele.cl",
        "scan_hillis_steele",
        "inclusive int scan per work-group, double-buffered __local arguments with swapped __local pointers",
        _make_scan_hillis_steele,
        _ref_scan_hillis_steele,
        {"y": exact(), "block_sums": exact()},
    ),
    KernelCase(
        "scan_blelloch",
        "scan_blelloch.cl",
        "scan_blelloch",
        "exclusive float scan per work-group (Blelloch up-sweep/down-sweep), 2 elements per work-item",
        _make_scan_blelloch,
        _ref_scan_blelloch,
        {
            "y": Tolerance(
                atol=lambda i: _scan_blelloch_bounds(i)[0],
                reason="each prefix is a tree of at most 2 log2(2L) additions: |error| <= 2 log2(2L) u sum|x| (x2)",
            ),
            "block_sums": Tolerance(
                atol=lambda i: _scan_blelloch_bounds(i)[1],
                reason="the up-sweep's root: log2(2L) levels of pairwise sums (bound shared with y)",
            ),
        },
    ),
    KernelCase(
        "histogram_global",
        "histogram_global.cl",
        "histogram_global",
        "atomic_inc on __global uint bins that already hold counts, bin from shift and mask",
        _make_histogram_global,
        _ref_histogram_global,
        {"bins": exact()},
    ),
    KernelCase(
        "histogram_local",
        "histogram_local.cl",
        "histogram_local",
        "uchar input, per-group __local bins cleared cooperatively, atomic_inc on __local, atomic_add merge",
        _make_histogram_local,
        _ref_histogram_local,
        {"bins": exact()},
    ),
    KernelCase(
        "transpose_local",
        "transpose_local.cl",
        "transpose_local",
        "2-D tiles through a padded 16x17 __local array, edge tiles guarded in both dimensions",
        _make_transpose_local,
        _ref_transpose_local,
        {"dst": Tolerance(exact=True, reason="a transpose moves values: exact")},
    ),
    KernelCase(
        "stencil_1d",
        "stencil_1d.cl",
        "stencil_1d",
        "3-point stencil with a __local tile and halo, zero boundary at both ends, three float scalars",
        _make_stencil_1d,
        _ref_stencil_1d,
        {
            "out": Tolerance(
                ulp=0.5, atol=_stencil_1d_bound, reason="3 products and 2 additions: 3 u sum|w x| (with margin)"
            )
        },
    ),
    KernelCase(
        "stencil_2d",
        "stencil_2d.cl",
        "stencil_2d",
        "5-point Jacobi step on a 2-D NDRange, border cells copied, boundary checks in both dimensions",
        _make_stencil_2d,
        _ref_stencil_2d,
        {
            "v": Tolerance(
                ulp=0.5,
                atol=_stencil_2d_bound,
                reason="border: a copy (exact); interior: 4 additions and 2 products, 6 u sum|terms|",
            )
        },
    ),
    KernelCase(
        "conv2d_constant",
        "conv2d_constant.cl",
        "conv2d_constant",
        "__constant filter argument, program-scope __constant table, clamp-to-edge, channels folded into dim 1",
        _make_conv2d_constant,
        _ref_conv2d_constant,
        {"out": Tolerance(ulp=0.5, atol=_conv2d_bound, reason="25-term dot products: 25 u sum|f p| (x2)")},
    ),
    KernelCase(
        "softmax_rows",
        "softmax_rows.cl",
        "softmax_rows",
        "work-group per row, max and sum tree reductions reusing one __local array, broadcast through __local "
        "scalars, exp, division",
        _make_softmax_rows,
        _ref_softmax_rows,
        {
            "y": Tolerance(
                ulp=32,
                reason="relative error: x - max rounded (u |x - max| <= 8 ulp for |x - max| < 16) in the numerator "
                "and in every term of the sum, exp 3 ulp twice, the sum of cols/64 + 6 positive terms, the "
                "division 2.5 ulp: about 28 ulp; 32 allowed",
            )
        },
    ),
    KernelCase(
        "layernorm_rows",
        "layernorm_rows.cl",
        "layernorm_rows",
        "two-pass mean/variance with tree reductions in a helper function taking a __local pointer, rsqrt, "
        "per-column gamma/beta",
        _make_layernorm_rows,
        _ref_layernorm_rows,
        {
            "y": Tolerance(
                atol=_layernorm_bound,
                reason="propagated bound: the mean's sum and division, the variance's sum, rsqrt 2 ulp, then the "
                "affine map's roundings (x2)",
            )
        },
    ),
    KernelCase(
        "bias_gelu_2d",
        "bias_gelu_2d.cl",
        "bias_gelu_2d",
        "2-D NDRange over a matrix, bias broadcast along rows, tanh-approximated GELU in a helper function",
        _make_bias_gelu_2d,
        _ref_bias_gelu_2d,
        {
            "y": Tolerance(
                atol=_gelu_bound,
                reason="tanh 5 ulp (OpenCL 1.2 section 7.4) and the roundings of the argument, carried through "
                "gelu's derivative; absolute near gelu's zero crossings (x2)",
            )
        },
    ),
    KernelCase(
        "radix_count",
        "radix_count.cl",
        "radix_count",
        "radix-sort counting step: atomic_inc on __local counters, digit-major output with get_num_groups",
        _make_radix_count,
        _ref_radix_count,
        {"counts": exact()},
    ),
    KernelCase(
        "radix_split",
        "radix_split.cl",
        "radix_split",
        "radix-sort split/scatter step: stable partition by one bit via an in-place __local scan and a "
        "data-dependent __local scatter",
        _make_radix_split,
        _ref_radix_split,
        {"out": exact()},
    ),
    KernelCase(
        "box_filter_macros",
        "box_filter_macros.cl",
        "box_filter_macros",
        "object-like and function-like #define macros, #ifndef/#if/#error, private array sized by a macro",
        _make_box_filter_macros,
        _ref_box_filter_macros,
        {
            "mean": Tolerance(ulp=0.5, atol=_box_bound(False), reason="7-term sum then a product (x2)"),
            "mean_sq": Tolerance(ulp=0.5, atol=_box_bound(True), reason="7 squares, a 7-term sum, a product (x2)"),
        },
    ),
    KernelCase(
        "poly_build_option",
        "poly_build_option.cl",
        "poly_build_option",
        "-D build option values (DEGREE, USE_RELU), #ifdef on an option, __constant coefficients, Horner",
        _make_poly_build_option,
        _ref_poly_build_option,
        {"y": Tolerance(atol=_poly_bound, reason="Horner's rule: 2 d u sum|c_k||x|^k (x2)")},
        options=f"-D DEGREE={_POLY_DEGREE} -D USE_RELU",
    ),
    KernelCase(
        "control_flow",
        "control_flow.cl",
        "control_flow",
        "helper functions, while, do-while, for with continue/break, return inside a loop, nested ternary, "
        "divergent trip counts",
        _make_control_flow,
        _ref_control_flow,
        {"out": exact()},
    ),
    KernelCase(
        "switch_opcodes",
        "switch_opcodes.cl",
        "switch_opcodes",
        "switch: fallthrough, default in the middle, negative, char-literal and macro labels, return in a case, "
        "nested switch, break in a loop in a case, continue of the loop around a switch, divergent cases",
        _make_switch_opcodes,
        _ref_switch_opcodes,
        {
            "out": Tolerance(
                ulp=0.5,
                reason="at most one correctly rounded float32 operation per element (x + y, x * y, x - y then "
                "an exact doubling; |x|, -x, x / 2, copies are exact): within half an ulp",
            ),
            "count": exact(),
        },
    ),
    KernelCase(
        "switch_local_groups",
        "switch_local_groups.cl",
        "switch_local_groups",
        "switches on uint, size_t and ushort whose cases diverge inside each work-group, between barriers "
        "outside them, exchanging values through __local memory",
        _make_switch_local_groups,
        _ref_switch_local_groups,
        {"out": exact()},
    ),
    KernelCase(
        "duff_rows",
        "duff_rows.cl",
        "duff_rows",
        "switch labels inside nested statements: Duff's device (labels in a do-while's body), labels inside an "
        "if-statement's branches and a for loop, divergent entry points in one work-group",
        _make_duff_rows,
        _ref_duff_rows,
        {"dst": exact(), "kind": exact()},
    ),
    KernelCase(
        "float_atomic_add",
        "float_atomic_add.cl",
        "float_atomic_add",
        "float atomic add from atomic_cmpxchg on reinterpreted bits (as_int/as_float), do-while retry loop",
        _make_float_atomic_add,
        _ref_float_atomic_add,
        {
            "bins": Tolerance(
                atol=_float_atomic_bound,
                reason="count additions in a nondeterministic order: |error| <= count u (|initial| + sum|w|) (x2)",
            )
        },
    ),
    KernelCase(
        "atomic_minmax_xchg",
        "atomic_minmax_xchg.cl",
        "atomic_minmax_xchg",
        "atomic_min, atomic_max, atomic_xchg (return value used) on __global int, atomic_or on __global uint",
        _make_atomic_minmax_xchg,
        _ref_atomic_minmax_xchg,
        {"seg_min": exact(), "seg_max": exact(), "seg_bits": exact(), "slots": exact(), "old": exact()},
    ),
    KernelCase(
        "math_more_unary",
        "math_more_unary.cl",
        "math_more_unary",
        "OpenCL C 1.2 Table 6.8 unary math: acos asin atan acospi asinpi atanpi cospi sinpi tanpi asinh atanh acosh "
        "cosh sinh cbrt exp10 expm1 log10 log1p erf erfc tgamma lgamma logb rint, on arguments inside their domains",
        _make_math_more_unary,
        _ref_math_more_unary,
        {
            "trig": Tolerance(
                ulp=6,
                reason="one call each on an exactly known float32 argument: Table 7.1 allows acos/asin/cosh/sinh/"
                "acosh/asinh/cospi/sinpi 4 ulp, atan/atanh/acospi/asinpi/atanpi 5, tanpi 6, cbrt 2: the largest, 6",
            ),
            "expo": Tolerance(
                ulp=16,
                reason="Table 7.1: exp10/expm1/log10 3 ulp, log1p 2, erf/erfc/tgamma 16; lgamma has no bound in "
                "1.2, so its argument is kept in [3.4, 6.6] where lgamma >= 1 and 16 ulp holds on PoCL and Oclgrind",
            ),
            "exact": Tolerance(
                ulp=0.5,
                reason="logb and rint are exact (0 ulp in Table 7.1) of a correctly rounded float32 product",
            ),
        },
    ),
    KernelCase(
        "math_binary4",
        "math_binary4.cl",
        "math_binary4",
        "Table 6.8 two-argument math on float4: atan2 atan2pi hypot copysign fdim maxmag minmag remainder nextafter; "
        "ldexp, rootn (float4, int4) and ilogb -> int4",
        _make_math_binary4,
        _ref_math_binary4,
        {
            "angles": Tolerance(
                ulp=6,
                reason="one call each on exact float32 arguments: atan2/atan2pi 6 ulp, hypot 4, rootn 4 "
                "(Table 7.1); the rootn argument |a| + 0.5f is a correctly rounded float32 sum, computed alike",
            ),
            "exact": Tolerance(
                ulp=0.5,
                reason="copysign, maxmag, minmag, remainder, nextafter and ldexp are exact; fdim is one correctly "
                "rounded subtraction (0 ulp in Table 7.1): all within half an ulp of the float64 reference",
            ),
            "ilog": exact("ilogb of a correctly rounded float32 product (never 0, inf or NaN): an exact integer"),
        },
    ),
    KernelCase(
        "ndrange_info",
        "ndrange_info.cl",
        "ndrange_info",
        "get_work_dim, get_global_offset (launched with offset (5, 3)), get_num_groups, get_group_id, "
        "get_local_id, get_local_size, get_global_size on a 2-D NDRange",
        _make_ndrange_info,
        _ref_ndrange_info,
        {"info": exact()},
        global_offset=_NDRANGE_OFFSET,
    ),
    # -- OpenCL C 1.2 section 6.12 built-in tables (issue 16)
    KernelCase(
        "fract_modf_frexp",
        "fract_modf_frexp.cl",
        "fract_modf_frexp",
        "fract (private pointer), modf (__local pointer), frexp (__global int4 pointer) on float4, ldexp rebuilding "
        "x, nan(uint4), isequal/isnan/all, vec_step",
        _make_fract_modf_frexp,
        _ref_fract_modf_frexp,
        {
            "parts": exact(
                "fract, floor, modf's parts and frexp's mantissa are exact (fract's one float32 rounding "
                "is computed alike, capped at 0x1.fffffep-1)"
            ),
            "exps": exact("frexp's exponents, denormals included"),
            "checks": exact("ldexp(frexp(x)) == x, nan() is a NaN, vec_step of float4 and float3: 4"),
        },
    ),
    KernelCase(
        "sincos_remquo",
        "sincos_remquo.cl",
        "sincos_remquo",
        "sincos with its cosine stored to __local memory, remquo (remainder and the quotient's sign and low 3 bits), "
        "lgamma_r with its sign stored to private memory",
        _make_sincos_remquo,
        _ref_sincos_remquo,
        {
            "trig": Tolerance(ulp=4, reason="Table 7.1: sin and cos 4 ulp (sincos: each of them)"),
            "rem": exact("remquo's remainder is exact (0 ulp in Table 7.1)"),
            "quo": exact(
                "the sign of x/y and the low 3 bits of the integral quotient, which every implementation "
                "keeps (PoCL keeps 7, Oclgrind 3)"
            ),
            "lg": Tolerance(
                ulp=16,
                atol=64 * EPS32,
                reason="lgamma_r has no bound in Table 7.1: 16 ulp, plus an "
                "absolute 64 u for results near lgamma's zeros (the arguments keep 0.15 from the poles)",
            ),
            "sgn": exact("the sign of Gamma(y): +1 for y > 0, else by floor(y)'s parity"),
        },
    ),
    KernelCase(
        "saturating_int",
        "saturating_int.cl",
        "saturating_int",
        "add_sat, sub_sat, mad_sat, hadd, rhadd, abs_diff, clamp and max/min with scalar bounds on char16, short8, "
        "int4 and uint4 over the whole ranges (MIN, MAX, 0, -1 among them)",
        _make_saturating_int,
        _ref_saturating_int,
        {"oc": exact(), "os": exact(), "oa": exact(), "ou": exact()},
    ),
    KernelCase(
        "bit_ops",
        "bit_ops.cl",
        "bit_ops",
        "clz, popcount, rotate on uchar16 and ulong2; mul_hi and mad_hi on uint4, ulong2 and long2 (64-bit high "
        "halves); upsample int2/uint2 -> long2; mul24 and mad24",
        _make_bit_ops,
        _ref_bit_ops,
        {"ob": exact(), "ow": exact(), "ou": exact(), "os": exact(), "o24": exact()},
    ),
    KernelCase(
        "geometry_normalize_cross",
        "geometry_normalize_cross.cl",
        "geometry_normalize_cross",
        "cross (float3, float4), normalize, dot, distance, length on float3/float4 from vload3/vload4, and "
        "fast_normalize, fast_length, fast_distance",
        _make_geometry_normalize_cross,
        _ref_geometry_normalize_cross,
        {
            "vec": Tolerance(
                ulp=8,
                atol=_geometry_vec_bound,
                reason="cross: 2 products and a difference per "
                "component, |error| <= 4 u (|u_y v_z| + |u_z v_y|); normalize and length: the sum of "
                "squares, its root and a division, about 6 ulp; 8 allowed",
            ),
            "sc": Tolerance(
                ulp=8,
                atol=_geometry_sc_bound,
                reason="dot of 3 terms: 4 u sum|a_i b_i|; distance and length 8 ulp, as float4_geometry",
            ),
            "fast": Tolerance(
                ulp=8192,
                reason="the fast_ geometric functions' accuracy is the implementation's; "
                "8192 ulp, the bound later OpenCL versions give (half_sqrt's)",
            ),
        },
    ),
    KernelCase(
        "relational_masks",
        "relational_masks.cl",
        "relational_masks",
        "isless isgreaterequal islessgreater isunordered isnan isfinite isinf signbit isnormal isordered on float4 "
        "(-1/0 masks) and isequal isnotequal isgreater islessequal on floats (1/0), with NaN, inf, -0 and denormals; "
        "any, all, select with int4 and uint4 masks, bitselect on float4 and int4",
        _make_relational_masks,
        _ref_relational_masks,
        {"masks": exact(), "flags": exact(), "picked": exact("selects and bitselects copy bits"), "bits": exact()},
    ),
    KernelCase(
        "vload_vstore_offsets",
        "vload_vstore_offsets.cl",
        "vload_vstore_offsets",
        "vload3/vstore3 at odd offsets through __global and __local memory, vload8 from __constant short at an "
        "offset pointer, vload2/vstore2 on a private array",
        _make_vload_vstore_offsets,
        _ref_vload_vstore_offsets,
        {"out3": exact(), "out8": exact(), "out2": exact()},
    ),
    KernelCase(
        "half_rounding",
        "half_rounding.cl",
        "half_rounding",
        "vstore_half_rte/_rtz/_rtp/_rtn on overflow, ties, half denormals, +-0, inf and NaN; vstore_half4, "
        "vstorea_half3 (4-half stride; the 4th half untouched), vload_half, vloada_half3",
        _make_half_rounding,
        _ref_half_rounding,
        {
            "rte": exact("round to nearest even, from the grid of all halves"),
            "rtz": exact("toward zero (overflow gives 65504)"),
            "rtp": exact("toward +inf"),
            "rtn": exact("toward -inf"),
            "dflt4": exact("vstore_half4 rounds to nearest even"),
            "aligned3": exact(
                "vstorea_half3 writes halves 4i..4i+2 (what it does to 4i+3 is the implementation's: PoCL 3.1 "
                "writes 0 there; the kernel writes it afterwards)"
            ),
            "back": exact("halves widen exactly; one float32 addition or subtraction, computed alike"),
        },
    ),
    KernelCase(
        "shuffle_masks",
        "shuffle_masks.cl",
        "shuffle_masks",
        "shuffle and shuffle2 on float4 with uint8/uint2/uint4 masks over the whole uint range (only the low bits "
        "count), on uchar16 with uchar16 masks; vec_step of values and of a type name",
        _make_shuffle_masks,
        _ref_shuffle_masks,
        {"of": exact("shuffles copy elements"), "ob": exact(), "steps": exact()},
    ),
    KernelCase(
        "common_mix_step",
        "common_mix_step.cl",
        "common_mix_step",
        "clamp with scalar bounds, max/min with a scalar, step (vector and scalar edge), sign, degrees, radians, mix "
        "(scalar and vector weights), smoothstep (scalar and vector edges) on float4",
        _make_common_mix_step,
        _ref_common_mix_step,
        {
            "exact": exact(
                "clamp, max, min, step and sign are exact; the sums of two are one float32 rounding, computed alike"
            ),
            "approx": Tolerance(
                ulp=2,
                atol=_common_approx_bound,
                reason="Table 7.1: degrees and radians 2 ulp; "
                "mix (implementation-defined) as x + (y - x) a in float: 3 u (|x| + |y - x| + |y|); "
                "smoothstep's polynomial: 16 u absolute",
            ),
        },
    ),
    KernelCase(
        "scalar_bounds_denormals",
        "scalar_bounds_denormals.cl",
        "scalar_bounds_denormals",
        "clamp/max/min with scalar bounds on char16, short8, uint4; isnormal, isless, isequal, signbit, select and "
        "bitselect on float4 denormals",
        _make_scalar_bounds_denormals,
        _ref_scalar_bounds_denormals,
        {
            "oc": exact(),
            "os": exact(),
            "ou": exact(),
            "classes": exact("classifications and comparisons of denormals are exact (the devices support them)"),
            "picked": exact("select and bitselect copy bits, denormals included"),
        },
    ),
    # -- async copies and prefetch (issue 16)
    KernelCase(
        "async_stencil_1d",
        "async_stencil_1d.cl",
        "async_stencil_1d",
        "async_work_group_copy global -> local of a block with its halo (WG + 2 elements by WG work-items), "
        "event 0, wait_group_events, event_t",
        _make_async_stencil_1d,
        _ref_async_stencil_1d,
        {
            "out": Tolerance(
                ulp=0.5, atol=_async_stencil_bound, reason="3 products and 2 additions: 3 u sum|w x| (with margin)"
            )
        },
    ),
    KernelCase(
        "async_matmul_rows",
        "async_matmul_rows.cl",
        "async_matmul_rows",
        "tiled matmul whose tiles are loaded row by row by async copies chained on one event per tile, two events "
        "in an event_t array waited for at once, a barrier before a tile is overwritten",
        _make_async_matmul_rows,
        _ref_matmul,
        {"C": Tolerance(ulp=0.5, atol=_matmul_bound, reason="K-term dot products: |error| <= K u sum|a b| (x2)")},
    ),
    KernelCase(
        "async_aos_soa",
        "async_aos_soa.cl",
        "async_aos_soa",
        "array of structures to __local structure of arrays with async_work_group_strided_copy (src_stride 3), "
        "local -> global write-back with async_work_group_copy and a strided scatter (dst_stride 3)",
        _make_async_aos_soa,
        _ref_async_aos_soa,
        {
            "norm2": Tolerance(ulp=0.5, atol=_async_norm2_bound, reason="3 products, 2 additions: 3 u sum p^2"),
            "scaled": Tolerance(ulp=0.5, reason="one float32 product, correctly rounded"),
        },
    ),
    KernelCase(
        "async_float4_axpy",
        "async_float4_axpy.cl",
        "async_float4_axpy",
        "async copies of float4 and int4 in a grid-stride loop, a last block shorter than the group, two events "
        "waited for one by one, a local -> global write-back chained with a second copy",
        _make_async_float4_axpy,
        _ref_async_float4_axpy,
        {
            "y": Tolerance(ulp=0.5, atol=_async_axpy_bound, reason="a product and an addition: 2 u (|a x| + |y|)"),
            "tag": exact(),
        },
    ),
    KernelCase(
        "prefetch_rows",
        "prefetch_rows.cl",
        "prefetch_rows",
        "prefetch of float4 chunks in a loop, the last prefetch past the end of the buffer (a hint: no fault)",
        _make_prefetch_rows,
        _ref_prefetch_rows,
        {"sums": Tolerance(ulp=0.5, atol=_prefetch_rows_bound, reason="a float32 sum of 4 cols4 terms: n u sum|m|")},
    ),
    # -- structs, unions, vector arguments by value, long16 initializers (issue 16)
    KernelCase(
        "struct_particles",
        "struct_particles.cl",
        "advance_particles",
        "array of structs in a __global buffer updated in place (whole-struct load and store, member swizzles), "
        "a struct kernel argument by value (a NumPy structured scalar) with a float4 member",
        _make_struct_particles,
        _ref_struct_particles,
        {"ps": Tolerance(atol=_particles_bound, reason="a few roundings per step on bounded values: 16 u per step")},
    ),
    KernelCase(
        "union_bits",
        "union_bits.cl",
        "float_fields",
        "union type punning (float, uint, uchar[4] share bytes, little-endian), union copies",
        _make_union_bits,
        _ref_union_bits,
        {"fields": exact(), "twice_negated": exact("bit manipulation: exact")},
    ),
    KernelCase(
        "struct_complex",
        "struct_complex.cl",
        "complex_fma",
        "structs as helper parameters and return values by value, struct brace initializers from expressions, "
        "'?:' between structs, __global struct pointers",
        _make_struct_complex,
        _ref_struct_complex,
        {"out": exact("small integer parts: exact in float32"), "norms": exact("small integer parts: exact")},
    ),
    KernelCase(
        "vector_args",
        "vector_args.cl",
        "affine_int4",
        "int4 and float4 kernel arguments by value, int4 wrap-around arithmetic, a swizzle of an argument",
        _make_vector_args,
        _ref_vector_args,
        {"y": exact(), "dots": exact("weights in eighths, integer data: every product and sum is exact")},
    ),
    KernelCase(
        "struct_nested_private",
        "struct_nested_private.cl",
        "row_stats",
        "a private struct nesting a struct and an array member, a brace initializer, a whole-struct copy",
        _make_struct_nested_private,
        _ref_struct_nested_private,
        {"out": exact("integer-valued data: counts, minima and sums are exact")},
    ),
    KernelCase(
        "struct_local_argmax",
        "struct_local_argmax.cl",
        "group_argmax",
        "an array of structs in __local memory, whole-struct loads and stores between barriers",
        _make_struct_local_argmax,
        _ref_struct_local_argmax,
        {"best": exact("max selects an input"), "where": exact()},
    ),
    KernelCase(
        "long16_table",
        "long16_table.cl",
        "long16_table",
        "arrays of long16 initialized from scalars (one splat per element), private and __constant, partial "
        "initializers, sizeof of an array",
        _make_long16_table,
        _ref_long16_table,
        {"out": exact()},
    ),
    KernelCase(
        "struct_records",
        "struct_records.cl",
        "score_records",
        "a __global buffer of mixed-type records written as a NumPy structured array (char, short, int, float, "
        "float2 members at C's offsets), member reads and a whole-record copy, sizeof of a struct",
        _make_struct_records,
        _ref_struct_records,
        {"score": CORRECTLY_ROUNDED, "keys": exact()},
    ),
    KernelCase(
        "pointer_tables",
        "pointer_tables.cl",
        "pointer_tables",
        "pointers in memory and into a different buffer per work-item: a __private array of pointers indexed per "
        "work-item, structs with pointer members (an array of them, a whole copy), &p of a pointer moved in a "
        "helper, a helper returning one of two buffers, ?: between a buffer and NULL, pointer == and !=",
        _make_pointer_tables,
        _ref_pointer_tables,
        {"out": CORRECTLY_ROUNDED, "which": exact()},
    ),
    # -- race tracker: atomics beside plain accesses, fence spaces, uniform writes (issue 16)
    KernelCase(
        "count_positive_groups",
        "count_positive_groups.cl",
        "count_positive_groups",
        "a __local atomic counter read after a barrier; mem_fence, read_mem_fence and write_mem_fence around a "
        "work-item's own __global accesses; one work-item's atomic and plain reads of one address",
        _make_count_positive_groups,
        _ref_count_positive_groups,
        {"counts": exact(), "scaled": CORRECTLY_ROUNDED},
    ),
    KernelCase(
        "chained_scan",
        "chained_scan.cl",
        "chained_scan",
        "a single-pass scan whose work-groups wait for the one before them: a spin on another group's flag, "
        "atomics as the only communication between groups, a double-buffered Hillis-Steele scan in __local memory",
        _make_chained_scan,
        _ref_chained_scan,
        {"out": exact(), "totals": exact(), "ready": exact()},
        notes=("forward_progress",),
    ),
    # -- packed structs and members, vector components in memory (issue 16)
    KernelCase(
        "packed_records",
        "packed_records.cl",
        "packed_records",
        "members off their natural alignment: a packed struct (int at offset 1, float2 at 7) and a packed member "
        "of a 12-byte struct, through pointers and a whole copy; float4 components stored one or two at a time "
        "into a write-only buffer",
        _make_packed_records,
        _ref_packed_records,
        {"out": exact("eighths and quarters times integers below 2^24: exact in float32"), "counts": exact()},
    ),
    KernelCase(
        "pair_sums",
        "pair_sums.cl",
        "pair_sums",
        "sums of neighbouring pairs through __local memory; the last work-item of a group reads padding nobody "
        "wrote and never uses it",
        _make_pair_sums,
        _ref_pair_sums,
        {"y": CORRECTLY_ROUNDED},
    ),
]


# --------------------------------------------------------------------------------------------------------------
# Planted bugs
# --------------------------------------------------------------------------------------------------------------

Check = Literal[
    "out_of_bounds_global",
    "out_of_bounds_local",
    "out_of_bounds_constant",
    "out_of_bounds_private",
    "misaligned_global",
    "race_local",
    "race_global",
    "barrier_divergence",
    "uninitialized_local",
    "step_limit",
    "uninitialized_private",
    "uninitialized_global",
    "write_to_read_only",
    "read_from_write_only",
    "null_pointer",
    "async_copy_divergence",
    "unwaited_event",
    "invalid_wait_event",
    "uniform_write",
]
CHECKS: tuple[str, ...] = get_args(Check)


@dataclass(frozen=True)
class BugCase:
    """A kernel with one planted fault: the simulator must stop (or report) with ``check`` at ``line`` (1-based,
    in ``bugs/<file>``; the line is also marked ``// FAULT`` in the source). For races the line is the access
    that completes the conflict in program order (the second one)."""

    name: str
    file: str  # relative to bugs/
    kernel: str
    check: str
    line: int
    make: Callable[[np.random.Generator], Launch]
    # safe to run on a real device: a stray global/constant access stays inside padding that cldevices.py adds, a
    # race or an uninitialized read only gives a wrong value; never true for hangs, divergent barriers or
    # out-of-bounds __local stores
    safe_to_run: bool
    options: str = ""
    notes: str = ""
    related_lines: tuple[int, ...] = field(default=())
    # lines Oclgrind may name as well, or not, from run to run: an uninitialized value's later uses, which its plugin
    # follows only while the garbage bits it read keep the loop going
    maybe_lines: tuple[int, ...] = field(default=())

    @property
    def path(self) -> Path:
        return BUGS_DIR / self.file

    def source(self) -> str:
        return self.path.read_text()

    def draw(self, rng: np.random.Generator) -> Launch:
        launch = Launch(*self.make(rng))
        check_geometry(self.name, launch)
        return launch


def _bug_1d(n_min: int, n_max: int, wg: int = 64) -> Callable[[Callable[[np.random.Generator, int], dict]], Any]:
    """Decorator for bug makers taking (rng, n): n is never a multiple of wg, the NDRange is rounded up."""

    def wrap(fn: Callable[[np.random.Generator, int], dict[str, Arg]]) -> Callable[[np.random.Generator], Launch]:
        def make(rng: np.random.Generator) -> Launch:
            n = _size(rng, n_min, n_max, wg)
            return Launch(fn(rng, n), (_round_up(n, wg),), (wg,))

        return make

    return wrap


@_bug_1d(100, 1000)
def _make_bug_oob_global_write(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    return {"y": _nan_out(n), "delta": _f32(0.5), "n": _i32(n)}


@_bug_1d(100, 1000)
def _make_bug_oob_global_read(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    return {"x": Buffer(_signed(rng, 0.1, 1.0, n)), "dx": _nan_out(n), "n": _i32(n)}


@_bug_1d(100, 1000)
def _make_bug_misaligned_global(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    stream = rng.integers(0, 256, 5 * n, dtype=np.uint8)  # n records: a 1-byte tag, then a 4-byte value
    return {
        "stream": Buffer(stream),
        "tag": _sentinel_out(n, np.int32),
        "value": _sentinel_out(n, np.int32),
        "n": _i32(n),
    }


@_bug_1d(100, 1000)
def _make_bug_oob_local(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    return {"x": Buffer(_signed(rng, 0.1, 1.0, n)), "y": _nan_out(n), "n": _i32(n)}


@_bug_1d(100, 1000)
def _make_bug_oob_constant(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    return {
        "x": Buffer(_signed(rng, 0.1, 1.0, n)),
        "taps": Buffer(_signed(rng, 0.1, 1.0, 5), space="constant"),
        "y": _nan_out(n),
        "n": _i32(n),
    }


def _make_bug_full_groups(rng: np.random.Generator) -> Launch:
    """x and y cover the whole NDRange (these kernels have no bound check)."""
    gsize = 64 * int(rng.integers(2, 8))
    return Launch({"x": Buffer(_signed(rng, 0.1, 1.0, gsize)), "y": _nan_out(gsize)}, (gsize,), (64,))


def _make_bug_race_global(rng: np.random.Generator) -> Launch:
    n = _size(rng, 200, 1000, 64)
    groups = -(-n // 64)
    args = {"x": Buffer(_signed(rng, 0.1, 1.0, n)), "result": _nan_out(groups), "n": _i32(n)}
    return Launch(args, (64 * groups,), (64,))


def _make_bug_race_overlapping_args(rng: np.random.Generator) -> Launch:
    n = 64 * int(rng.integers(2, 8))
    shift = SPAN_ALIGN * int(rng.integers(1, 3))  # 32 or 64 floats on: another work-group's
    data = Buffer(_signed(rng, 0.1, 1.0, n + shift // 4), "inout")
    args = {"in": Span("data", shift, 4 * n), "out": Span("data", 0, 4 * n), "data": data, "n": _i32(n)}
    return Launch(args, (n,), (32,))


@_bug_1d(100, 1000)
def _make_bug_runaway(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    return {
        "x": Buffer(rng.integers(1, 1 << 32, n, dtype=np.uint64).astype(np.uint32)),
        "bits": _sentinel_out(n, np.uint32),
        "n": _i32(n),
    }


# -- memory checks (issue 16)


@_bug_1d(100, 1000)
def _make_bug_private(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    return {"x": Buffer(_signed(rng, 0.1, 1.0, n)), "y": _nan_out(n), "n": _i32(n)}


@_bug_1d(100, 1000)
def _make_bug_uninitialized_global(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    return {
        "x": Buffer(_signed(rng, 0.1, 1.0, n)),
        "bias": Buffer(np.zeros(n, np.float32), host_data=False),
        "y": _nan_out(n),
        "n": _i32(n),
    }


@_bug_1d(100, 1000)
def _make_bug_write_read_only(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    return {
        "x": Buffer(_signed(rng, 0.1, 2.0, n), flags="read_only"),
        "y": _nan_out(n),
        "lo": _f32(-1.0),
        "hi": _f32(1.0),
        "n": _i32(n),
    }


@_bug_1d(100, 1000)
def _make_bug_read_write_only(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    return {
        "x": Buffer(_signed(rng, 0.1, 1.0, n)),
        "y": Buffer(_signed(rng, 0.1, 1.0, n), access="inout", flags="write_only"),
        "a": _f32(float(rng.uniform(0.5, 2.0))),
        "n": _i32(n),
    }


@_bug_1d(100, 1000)
def _make_bug_null_deref(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    return {
        "x": Buffer(_signed(rng, 0.1, 1.0, n)),
        "bias": Null(),
        "y": _nan_out(n),
        "scale": _f32(float(rng.uniform(0.5, 2.0))),
        "has_bias": _i32(0),
        "n": _i32(n),
    }


@_bug_1d(100, 1000)
def _make_bug_null_table(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    half = -(-n // 2)
    return {"x": Buffer(_signed(rng, 0.1, 1.0, n)), "even": _nan_out(half), "odd": _nan_out(half), "n": _i32(n)}


@_bug_1d(100, 1000)
def _make_bug_null_private(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    return {
        "x": Buffer(_signed(rng, 0.1, 1.0, n)),
        "even": _nan_out(n),
        "odd": _nan_out(n),
        "which": _i32(2),
        "n": _i32(n),
    }


# -- async copies (issue 16)


@_bug_1d(100, 1000)
def _make_bug_async_divergence(rng: np.random.Generator, n: int) -> dict[str, Arg]:
    return {"x": Buffer(_signed(rng, 0.1, 1.0, n)), "y": _nan_out(n), "s": _f32(rng.uniform(0.5, 2.0)), "n": _i32(n)}


def _make_bug_unwaited(rng: np.random.Generator) -> Launch:
    gsize = 64 * int(rng.integers(2, 8))
    args = {"x": Buffer(_signed(rng, 0.1, 1.0, gsize)), "y": _nan_out(gsize), "s": _f32(rng.uniform(0.5, 2.0))}
    return Launch(args, (gsize,), (64,))


def _make_bug_invalid_wait(rng: np.random.Generator) -> Launch:
    groups = int(rng.integers(3, 8))
    nb = 64 * int(rng.integers(1, groups))  # b has blocks for the first groups only
    gsize = 64 * groups
    args = {
        "a": Buffer(_signed(rng, 0.1, 1.0, gsize)),
        "b": Buffer(_signed(rng, 0.1, 1.0, nb)),
        "out": _nan_out(gsize),
        "nb": _i32(nb),
    }
    return Launch(args, (gsize,), (64,))


BUGS: list[BugCase] = [
    BugCase(
        "oob_global_write",
        "oob_global_write.cl",
        "fill_ramp",
        "out_of_bounds_global",
        10,
        _make_bug_oob_global_write,
        safe_to_run=True,
        notes="`i <= n`: the work-item with i == n stores y[n]; n is never a multiple of 64, so it exists",
    ),
    BugCase(
        "oob_global_read",
        "oob_global_read.cl",
        "forward_diff",
        "out_of_bounds_global",
        10,
        _make_bug_oob_global_read,
        safe_to_run=True,
        notes="the work-item with i == n - 1 loads x[n]",
    ),
    BugCase(
        "misaligned_global",
        "misaligned_global.cl",
        "unpack_records",
        "misaligned_global",
        12,
        _make_bug_misaligned_global,
        safe_to_run=True,  # (a CPU reads an int at any byte; every read stays inside the stream)
        notes="the value of record i lies at byte 5i + 1: misaligned for an int but where 5i + 1 is a multiple of "
        "4 (the first at i = 3); work-item 0 reads at offset 1",
    ),
    BugCase(
        "oob_local",
        "oob_local.cl",
        "shift_right",
        "out_of_bounds_local",
        15,
        _make_bug_oob_local,
        safe_to_run=False,
        notes="tile has WG floats; the last work-item of every group stores tile[WG]",
    ),
    BugCase(
        "oob_constant",
        "oob_constant.cl",
        "fir_filter",
        "out_of_bounds_constant",
        14,
        _make_bug_oob_constant,
        safe_to_run=True,
        notes="`k <= TAPS` loads taps[5] from a 5-float __constant buffer",
    ),
    BugCase(
        "race_local",
        "race_local.cl",
        "pair_diffs",
        "race_local",
        14,
        _make_bug_full_groups,
        safe_to_run=True,
        notes="work-items 2k and 2k+1 store different values into pair_diff[k] in one barrier interval",
    ),
    BugCase(
        "race_global",
        "race_global.cl",
        "block_sum",
        "race_global",
        21,
        _make_bug_race_global,
        safe_to_run=True,
        notes="work-item 0 of every work-group stores result[0]; there are at least 4 groups",
    ),
    BugCase(
        "race_overlapping_args",
        "race_overlapping_args.cl",
        "shift_down",
        "race_global",
        13,
        _make_bug_race_overlapping_args,
        safe_to_run=True,
        notes="in and out are views of one buffer, in starting 32 or 64 floats on: work-item i reads in[i], the "
        "float work-item i + 32 (or + 64), of another work-group, stores as out[i + 32]",
    ),
    BugCase(
        "race_local_rw",
        "race_local_rw.cl",
        "neighbour_diff",
        "race_local",
        15,
        _make_bug_full_groups,
        safe_to_run=True,
        notes="the load of tile[lid + 1] (line 15) and the neighbour's store (line 13) share a barrier interval",
        related_lines=(13,),
    ),
    BugCase(
        "barrier_divergence",
        "barrier_divergence.cl",
        "partial_barrier",
        "barrier_divergence",
        15,
        _make_bug_full_groups,
        safe_to_run=False,
        notes="16 of 64 work-items reach the barrier",
    ),
    BugCase(
        "uninitialized_local",
        "uninitialized_local.cl",
        "even_only",
        "uninitialized_local",
        16,
        _make_bug_full_groups,
        safe_to_run=True,
        notes="odd work-items load tile[lid], which nobody stored",
    ),
    BugCase(
        "uninitialized_async_copy",
        "uninitialized_async_copy.cl",
        "copy_even_only",
        "uninitialized_local",
        16,
        _make_bug_full_groups,
        safe_to_run=True,
        notes="the odd slots of the tile, which nobody stored, are copied to y by async_work_group_copy",
    ),
    BugCase(
        "uninitialized_local_branch",
        "uninitialized_local_branch.cl",
        "climb",
        "uninitialized_local",
        17,
        _make_bug_full_groups,
        safe_to_run=True,
        notes="the last work-item of each group reads tile[64], which nobody stored, and loops on it",
    ),
    BugCase(
        "runaway_loop",
        "runaway_loop.cl",
        "count_bits",
        "step_limit",
        12,
        _make_bug_runaway,
        safe_to_run=False,
        notes="every x is nonzero and never changes inside the loop",
    ),
    # -- memory checks (issue 16)
    BugCase(
        "uninitialized_private",
        "uninitialized_private.cl",
        "last_of_window",
        "uninitialized_private",
        15,
        _make_bug_private,
        safe_to_run=True,
        notes="`last` is assigned in a loop that runs i % 4 times: work-items with i % 4 == 0 never assign it",
    ),
    BugCase(
        "uninitialized_goto",
        "uninitialized_goto.cl",
        "skip_init",
        "uninitialized_private",
        12,
        _make_bug_full_groups,
        safe_to_run=True,
        notes="work-items with a negative x jump into the loop past `int k = 0`, and its test reads k",
        maybe_lines=(17,),  # (Oclgrind: "Uninitialized value written to global memory" at y[i] = acc, in some runs)
    ),
    BugCase(
        "uninitialized_private_array",
        "uninitialized_private_array.cl",
        "scaled_pick",
        "uninitialized_private",
        15,
        _make_bug_private,
        safe_to_run=True,
        notes="taps[7] of `float taps[8]` is never stored; work-items with i & 7 == 7 read it",
    ),
    BugCase(
        "uninitialized_global",
        "uninitialized_global.cl",
        "add_bias",
        "uninitialized_global",
        12,
        _make_bug_uninitialized_global,
        safe_to_run=True,
        notes="`bias` is created without data (host_data=False) and nothing writes it before the launch",
    ),
    BugCase(
        "write_read_only",
        "write_read_only.cl",
        "clamp_copy",
        "write_to_read_only",
        13,
        _make_bug_write_read_only,
        safe_to_run=False,
        notes="x is allocated read-only; the kernel stores into it (a device may fault, or drop the store)",
    ),
    BugCase(
        "read_write_only",
        "read_write_only.cl",
        "axpy_into",
        "read_from_write_only",
        12,
        _make_bug_read_write_only,
        safe_to_run=False,
        notes="y is allocated write-only; the kernel loads y[i] before storing it",
    ),
    BugCase(
        "null_deref",
        "null_deref.cl",
        "scale_add",
        "null_pointer",
        14,
        _make_bug_null_deref,
        safe_to_run=False,
        notes="bias is NULL (has_bias is 0) and every work-item with i < n loads bias[i]",
    ),
    BugCase(
        "null_private",
        "null_private.cl",
        "route",
        "null_pointer",
        18,
        _make_bug_null_private,
        safe_to_run=False,
        notes="which == 2 leaves `out` NULL: every work-item with i < n stores through it",
    ),
    BugCase(
        "null_table",
        "null_table.cl",
        "split_parity",
        "null_pointer",
        15,
        _make_bug_null_table,
        safe_to_run=False,
        notes="the table's second entry is NULL: every odd work-item with i < n stores through it",
    ),
    # -- async copies (issue 16)
    BugCase(
        "async_copy_divergence",
        "async_copy_divergence.cl",
        "scale_blocks",
        "async_copy_divergence",
        14,
        _make_bug_async_divergence,
        safe_to_run=False,
        notes="the count min(WG, n - gid) differs between the work-items of the groups that hold x's last 64 "
        "elements; n is never a multiple of 64",
    ),
    BugCase(
        "unwaited_event",
        "unwaited_event.cl",
        "scale_in_place",
        "unwaited_event",
        17,
        _make_bug_unwaited,
        safe_to_run=False,
        notes="the local -> global copy's event is never waited for; reported where the kernel ends (its closing "
        "brace), as Oclgrind does",
    ),
    BugCase(
        "invalid_wait_event",
        "invalid_wait_event.cl",
        "add_blocks",
        "invalid_wait_event",
        19,
        _make_bug_invalid_wait,
        safe_to_run=False,
        notes="the groups past b's blocks start one copy and wait for two events: ev[1] is still 0",
    ),
    # -- structs, unions, vector arguments by value, long16 initializers (issue 16)
    BugCase(
        "oob_private",
        "oob_private.cl",
        "private_histogram",
        "out_of_bounds_private",
        16,
        _make_bug_oob_private,
        safe_to_run=False,
        notes="seen has BINS ints; the one work-item whose x is 1.0 stores seen[BINS], past the whole private "
        "array (Oclgrind checks private accesses against the allocation, the simulator against the array)",
    ),
    BugCase(
        "oob_struct_array",
        "oob_struct_array.cl",
        "window_tap",
        "out_of_bounds_private",
        17,
        _make_bug_oob_struct_array,
        safe_to_run=False,
        notes="taps is the struct's last member: lag 3 reads past the array and past the whole struct (an index "
        "past a member array that stays inside the struct is found by the simulator only)",
    ),
    # -- race tracker: atomics beside plain accesses, fence spaces, uniform writes (issue 16)
    BugCase(
        "race_atomic_plain",
        "race_atomic_plain.cl",
        "segment_sum",
        "race_global",
        15,
        _make_float_atomic_add,
        safe_to_run=True,
        notes="a plain load of the bin (line 11) beside other work-items' atomic_cmpxchg on it; a few hot bins",
        related_lines=(11,),
    ),
    BugCase(
        "race_atomic_plain_local",
        "race_atomic_plain_local.cl",
        "count_positive",
        "race_local",
        17,
        _make_bug_count_positive,
        safe_to_run=True,
        notes="work-item 0 reads the __local counter the others atomic_inc (line 15) with no barrier in between",
        related_lines=(15,),
    ),
    BugCase(
        "race_fence_space_local",
        "race_fence_space_local.cl",
        "rotate_left",
        "race_local",
        15,
        _make_bug_full_groups,
        safe_to_run=True,
        notes="barrier(CLK_GLOBAL_MEM_FENCE) between the __local store (line 13) and the neighbour's read",
        related_lines=(13,),
    ),
    BugCase(
        "race_fence_space_global",
        "race_fence_space_global.cl",
        "pair_sums",
        "race_global",
        14,
        _make_bug_pair_sums,
        safe_to_run=True,
        notes="barrier(CLK_LOCAL_MEM_FENCE) between the __global store (line 12) and the partner's read",
        related_lines=(12,),
    ),
    BugCase(
        "uniform_write",
        "uniform_write.cl",
        "any_negative",
        "uniform_write",
        14,
        _make_bug_any_negative,
        safe_to_run=True,
        notes="every work-item with a negative input stores 1 into found[0]; about half the inputs are negative",
    ),
]

CASES_BY_NAME = {case.name: case for case in CASES}
BUGS_BY_NAME = {bug.name: bug for bug in BUGS}
