"""A hardware model of the CPU this runs on, as its OpenCL CPU device (PoCL) sees it: ``wia-sim models cpu``.

What the operating system says (``/proc/cpuinfo``, ``/proc/meminfo`` and ``/sys/devices/system/cpu``, the files
``lscpu`` reads) gives the cores, clock, flags and caches. What only running code can tell is measured through
PyOpenCL on the machine's OpenCL CPU device when there is one (PoCL): the multiply-add peaks, STREAM-like copy and
triad bandwidth, the launch, API, allocation and copy costs. Peaks come from the microarchitecture where it is known
(cores × clock × FLOP per cycle, with its source) and from the flags otherwise (an estimate). Where the measured
peaks imply a higher clock than the system reports (a hypervisor shows the nominal clock, not the boost clock), the
implied clock is used and says so; a measured peak above an estimated one replaces it. Without an OpenCL CPU device
the OpenCL-only figures are estimates taken from the shipped model of the machine the generator was written on, and
say so.

Every number of the TOML text carries a comment saying where it came from (``tests/test_hardware_models.py`` holds
shipped files to that), so the output can be reviewed and shipped as it is.
"""

from __future__ import annotations

import contextlib
import functools
import re
import statistics
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

# -- what the operating system says ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cache:
    level: int
    kind: str  # Data, Instruction, Unified
    size: int  # bytes, one instance
    instances: int  # how many of it the machine's online CPUs share out


@dataclass(frozen=True)
class CpuFacts:
    """The CPU as ``/proc/cpuinfo``, ``/proc/meminfo`` and ``/sys/devices/system/cpu`` describe it."""

    vendor_id: str  # AuthenticAMD, GenuineIntel, ...
    model_name: str
    family: int
    model: int
    logical_cpus: int
    physical_cores: int
    clock_hz: float  # the highest clock the system reports (cpufreq's maximum, else cpuinfo's "cpu MHz")
    clock_source: str
    flags: frozenset[str]
    caches: tuple[Cache, ...]
    memory_bytes: int

    @property
    def virtual(self) -> bool:
        return "hypervisor" in self.flags

    @property
    def vendor(self) -> str:
        return {"AuthenticAMD": "AMD", "GenuineIntel": "Intel"}.get(self.vendor_id, self.vendor_id or "unknown")

    def cache(self, level: int) -> Cache | None:
        found = [c for c in self.caches if c.level == level and c.kind in ("Data", "Unified")]
        return found[0] if found else None


def _size(text: str) -> int:
    """``32K``, ``1024K``, ``32768K``, ``2M`` (sysfs cache sizes) in bytes."""
    match = re.fullmatch(r"\s*(\d+)\s*([KMG]?)B?\s*", text)
    if match is None:
        raise ValueError(f"cannot read the cache size {text!r}")
    return int(match[1]) * {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}[match[2]]


def _cpu_list(text: str) -> set[int]:
    """``0-3,8`` as a set of CPU numbers."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        if part:
            lo, _, hi = part.partition("-")
            cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def read_caches(sysfs_cpu: Path) -> tuple[Cache, ...]:
    """The caches of ``cpu*/cache/index*`` under ``sysfs_cpu`` (``/sys/devices/system/cpu``), one entry per level
    and kind, with the number of distinct instances (an L3 shared by all cores counts once)."""
    seen: dict[tuple[int, str], tuple[int, set[frozenset[int]]]] = {}
    for index in sorted(sysfs_cpu.glob("cpu[0-9]*/cache/index[0-9]*")):
        try:
            level = int((index / "level").read_text())
            kind = (index / "type").read_text().strip()
            size = _size((index / "size").read_text())
            shared = frozenset(_cpu_list((index / "shared_cpu_list").read_text()))
        except (OSError, ValueError):
            continue
        entry = seen.setdefault((level, kind), (size, set()))
        entry[1].add(shared)
    return tuple(Cache(level, kind, size, len(groups)) for (level, kind), (size, groups) in sorted(seen.items()))


def read_cpu(cpuinfo: str, meminfo: str, caches: tuple[Cache, ...] = (), max_freq_khz: int | None = None) -> CpuFacts:
    """Parse ``/proc/cpuinfo`` and ``/proc/meminfo`` text (``caches`` from :func:`read_caches`, ``max_freq_khz``
    from ``cpufreq/cpuinfo_max_freq`` where the system has it)."""
    blocks = [b for b in re.split(r"\n\s*\n", cpuinfo) if "processor" in b]
    processors = []
    for block in blocks:
        entry: dict[str, str] = {}
        for line in block.splitlines():
            key, sep, value = line.partition(":")
            if sep:
                entry[key.strip()] = value.strip()
        processors.append(entry)
    if not processors:
        raise ValueError("no processor in /proc/cpuinfo")
    first = processors[0]
    cores = {(p.get("physical id", "0"), p.get("core id", p.get("processor", "0"))) for p in processors}
    if max_freq_khz:
        clock, source = max_freq_khz * 1e3, "cpufreq cpuinfo_max_freq"
    else:
        clock, source = float(first.get("cpu MHz", "0") or 0) * 1e6, '/proc/cpuinfo "cpu MHz"'
    memory = re.search(r"^MemTotal:\s*(\d+)\s*kB", meminfo, re.MULTILINE)
    return CpuFacts(
        vendor_id=first.get("vendor_id", ""),
        model_name=first.get("model name", "unknown CPU"),
        family=int(first.get("cpu family", "0") or 0),
        model=int(first.get("model", "0") or 0),
        logical_cpus=len(processors),
        physical_cores=len(cores),
        clock_hz=clock,
        clock_source=source,
        flags=frozenset(first.get("flags", "").split()),
        caches=caches,
        memory_bytes=int(memory[1]) * 1024 if memory else 0,
    )


def this_cpu() -> CpuFacts:
    """The CPU this runs on (Linux)."""
    sysfs = Path("/sys/devices/system/cpu")
    max_freq = None
    with contextlib.suppress(OSError, ValueError):
        max_freq = int((sysfs / "cpu0" / "cpufreq" / "cpuinfo_max_freq").read_text())
    return read_cpu(Path("/proc/cpuinfo").read_text(), Path("/proc/meminfo").read_text(), read_caches(sysfs), max_freq)


# -- what the microarchitecture gives -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Core:
    """Per-core vector arithmetic: FLOP per cycle of multiply-adds on every FMA pipe, per precision."""

    architecture: str
    fp32_per_cycle: int
    fp64_per_cycle: int
    source: str
    estimate: bool = False


ZEN4 = Core(
    "zen4",
    32,
    16,
    "AMD Zen 4 (family 25 = 0x19, models 0x10-0x1f Genoa, 0x60-0x7f, 0xa0-0xaf): two 256-bit FMA pipes (FP0, FP1), "
    "AVX-512 run on them as two 256-bit halves (AMD Software Optimization Guide for Family 19h, pub. 56665; "
    "numberworld.org/blogs/2024_8_7_zen5_avx512_teardown: Zen4 double-pumps 512-bit instructions into 256-bit "
    "hardware) = 2 pipes x 8 lanes x 2 FLOP (FP32), 2 x 4 x 2 (FP64) per cycle",
)


def core_of(cpu: CpuFacts) -> Core:
    """The per-core rates: from the microarchitecture where this module knows it (AMD Zen 4), else an estimate from
    the flags: two FMA pipes as wide as the widest vector extension (avx512f 512, avx2/fma 256, else 128 bits)."""
    if (
        cpu.vendor_id == "AuthenticAMD"
        and cpu.family == 0x19
        and (0x10 <= cpu.model <= 0x1F or 0x60 <= cpu.model <= 0x7F or 0xA0 <= cpu.model <= 0xAF)
    ):
        return ZEN4
    bits = 512 if "avx512f" in cpu.flags else 256 if {"avx2", "fma"} <= cpu.flags else 128
    fp32 = 2 * (bits // 32) * 2
    return Core(
        f"x86-{bits}bit" if cpu.flags else "unknown",
        fp32,
        fp32 // 2,
        f"estimate from /proc/cpuinfo flags: 2 FMA pipes of {bits} bits (the widest vector extension listed) x 2 FLOP; "
        "check the microarchitecture's optimization guide",
        estimate=True,
    )


# -- what only running code tells -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Figure:
    """One measured figure and how it was measured (the comment it gets)."""

    value: float
    how: str


@dataclass
class OpenCLDevice:
    """The OpenCL CPU device's own report and what was measured on it."""

    label: str
    compute_units: int
    clock_hz: float
    global_memory: int
    local_memory: int
    max_work_group_size: int
    base_align: int  # bytes
    fine_grain_svm: bool
    figures: dict[str, Figure] = field(default_factory=dict)


_CHAINS = 8


def _fma_source(width: int, fused: bool) -> str:
    """``fma_float32``, ``fma_int32`` and ``fma_float64``: :data:`_CHAINS` independent chains of ``width``-lane
    multiply-adds per work-item and iteration; for floats ``fma()`` where the device reports a fused multiply-add
    (PoCL 3.1 does not always fuse ``mad()``), else ``mad()``."""

    def kernel(name: str, scalar: str, step: str) -> str:
        t = f"{scalar}{width}"
        chains = "; ".join(f"{t} a{k} = ({t})(x + {k})" for k in range(_CHAINS))
        steps = " ".join(step.format(a=f"a{k}") for k in range(_CHAINS))
        total = " + ".join(f"a{k}" for k in range(_CHAINS))
        lanes = " + ".join(f"s.s{'0123456789abcdef'[i]}" for i in range(width))
        return (
            f"__kernel void {name}(__global {scalar} *out, {scalar} m, {scalar} c, int n) {{\n"
            f"  {scalar} x = ({scalar})get_global_id(0); {chains};\n"
            f"  for (int i = 0; i < n; ++i) {{ {steps} }}\n"
            f"  {t} s = {total}; out[get_global_id(0)] = {lanes};\n}}\n"
        )

    fma = "{a} = fma({a}, m, c);" if fused else "{a} = mad({a}, m, c);"
    return (
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
        + kernel("fma_float32", "float", fma)
        + kernel("fma_int32", "int", "{a} = {a} * m + c;")
        + kernel("fma_float64", "double", fma)
    )


_STREAM_SOURCE = """
__kernel void copy(__global const float4 *b, __global float4 *a) { size_t i = get_global_id(0); a[i] = b[i]; }
__kernel void triad(__global float4 *a, __global const float4 *b, __global const float4 *c, float s) {
    size_t i = get_global_id(0); a[i] = b[i] + s * c[i];
}
__kernel void empty(__global int *p) { }
"""


def _best(run: Callable[[], float], repeats: int) -> float:
    return max(min(run() for _ in range(repeats)), 1e-12)


def _median(run: Callable[[], float], repeats: int) -> float:
    return max(statistics.median(run() for _ in range(repeats)), 1e-12)


def find_cpu_device(hint: str = "") -> tuple[Any, Any] | str:
    """``(pyopencl module, device)``: the first OpenCL CPU device whose ``platform / device`` name contains ``hint``
    (Oclgrind, an interpreter, never), or why there is none."""
    try:
        import pyopencl as cl
    except ImportError as e:
        return f"PyOpenCL does not import ({e}); pip install 'wia[opencl]'"
    try:
        platforms = cl.get_platforms()
    except cl.Error:
        return "no OpenCL platform (install Debian's pocl-opencl-icd)"
    for platform in platforms:
        try:
            devices = platform.get_devices(device_type=cl.device_type.CPU)
        except cl.Error:
            continue
        for device in devices:
            label = f"{platform.name.strip()} / {device.name.strip()}"
            if "oclgrind" in label.lower() or hint.lower() not in label.lower():
                continue
            return cl, device
    return "no OpenCL CPU device" + (f" matching {hint!r}" if hint else "") + " (install Debian's pocl-opencl-icd)"


def measure_device(cl: Any, device: Any, cpu: CpuFacts, repeats: int = 5) -> OpenCLDevice:
    """Measure the figures of a hardware model on ``device`` (a few seconds on a small CPU). Throughputs are the
    best of ``repeats`` runs, latencies the median."""
    context = cl.Context([device])
    queue = cl.CommandQueue(context, properties=cl.command_queue_properties.PROFILING_ENABLE)
    platform = device.platform
    label = f"{platform.name.strip()} {device.driver_version.strip()} / {device.name.strip()}"
    svm = 0
    with contextlib.suppress(cl.Error, AttributeError):
        svm = int(device.svm_capabilities)
    result = OpenCLDevice(
        label=label,
        compute_units=int(device.max_compute_units),
        clock_hz=float(device.max_clock_frequency) * 1e6,
        global_memory=int(device.global_mem_size),
        local_memory=int(device.local_mem_size),
        max_work_group_size=int(device.max_work_group_size),
        base_align=max(1, int(device.mem_base_addr_align) // 8),
        fine_grain_svm=bool(svm & int(cl.device_svm_capabilities.FINE_GRAIN_BUFFER)),
    )
    figures = result.figures
    via = "through PyOpenCL on the OpenCL device"

    def device_s(event: Any) -> float:
        event.wait()
        return max(float(event.profile.end - event.profile.start) * 1e-9, 1e-12)

    # multiply-add peaks: 8 independent chains of vectors per work-item, 16 single-item work-groups per core; the
    # work grows until a run takes 5 ms (which also wakes every core: an idle vCPU joins a kernel late), then a run
    # is sized to about 20 ms
    width = 16 if int(device.preferred_vector_width_float) >= 16 else 8
    fused = bool(int(device.single_fp_config) & int(cl.device_fp_config.FMA))
    fma = cl.Program(context, _fma_source(width, fused)).build(options="-cl-mad-enable")
    items = result.compute_units * 16
    out = cl.Buffer(context, cl.mem_flags.READ_WRITE, items * 8)
    fp64 = "cl_khr_fp64" in device.extensions.split()
    runs: dict[str, tuple[Callable[[], float], int]] = {}
    for name, scalar in (("float32", np.float32), ("int32", np.int32), ("float64", np.float64)):
        if name == "float64" and not fp64:
            continue
        kernel = cl.Kernel(fma, f"fma_{name}")
        # floats converge to c / (1 - m) = 1 (normal at any length); integers count up, far from overflow
        factors = (scalar(1), scalar(1)) if name == "int32" else (scalar(0.999), scalar(0.001))

        def run(n: int, k: Any = kernel, mc: tuple[Any, Any] = factors) -> float:
            k.set_args(out, *mc, np.int32(n))
            return device_s(cl.enqueue_nd_range_kernel(queue, k, (items,), (1,)))

        n = 16
        seconds = run(n)
        while seconds < 0.005 and n < 1 << 24:
            n *= 4
            seconds = run(n)
        n = int(min(max(n * 0.02 / seconds, 16), 1 << 26))
        runs[name] = (functools.partial(run, n), n)
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(2 * repeats):  # interleaved, so that a quiet moment of a shared machine serves both precisions
        for name, (go, _n) in runs.items():
            best[name] = min(best[name], go())
    for name, (_go, n) in runs.items():
        figures[f"peak_{name}"] = Figure(
            2.0 * _CHAINS * width * n * items / max(best[name], 1e-12),
            f"measured {via}: {_CHAINS} independent chains of {width}-lane "
            f"{'a * m + c' if name == 'int32' else 'fma()' if fused else 'mad()'} per "
            f"work-item, {items} work-items in work-groups of 1, profiling events, best of {2 * repeats} runs of "
            f"about 20 ms",
        )

    # STREAM-like bandwidth over arrays four times the last-level cache (at least 64 MiB each)
    l3 = cpu.cache(3) or cpu.cache(2)
    llc = l3.size * l3.instances if l3 else 0
    size = min(max(64 << 20, 4 * llc), int(device.max_mem_alloc_size), result.global_memory // 8)
    size -= size % 4096
    stream = cl.Program(context, _STREAM_SOURCE).build()
    a, b, c = (cl.Buffer(context, cl.mem_flags.READ_WRITE, size) for _ in range(3))
    for buffer in (a, b, c):  # touch every page: untouched pages would read the zero page, from the cache
        cl.enqueue_fill_buffer(queue, buffer, np.ones(1, np.float32), 0, size)
    queue.finish()
    copy, triad = cl.Kernel(stream, "copy"), cl.Kernel(stream, "triad")
    copy.set_args(b, a)
    triad.set_args(a, b, c, np.float32(3))
    vectors = (size // 16,)
    for name, kernel, arrays in (("copy", copy, 2), ("triad", triad, 3)):
        cl.enqueue_nd_range_kernel(queue, kernel, vectors, None).wait()

        def once(k: Any = kernel) -> float:
            return device_s(cl.enqueue_nd_range_kernel(queue, k, vectors, None))

        seconds = _best(once, repeats)
        figures[f"stream_{name}"] = Figure(
            arrays * size / seconds,
            f"measured {via}: STREAM-like {name} kernel over float4 arrays of {size >> 20} MiB, bytes read plus "
            f"written (no write-allocate), profiling events, best of {repeats}",
        )

    # launches: the device-side interval of back-to-back empty kernels (all enqueued behind a user event, then
    # released), and the host time of one enqueue call
    empty = cl.Kernel(stream, "empty")
    empty.set_args(out)
    cl.enqueue_nd_range_kernel(queue, empty, (1,), (1,)).wait()
    count = 500

    def interval_s() -> float:
        gate = cl.UserEvent(context)
        cl.enqueue_barrier(queue, wait_for=[gate])
        events = [cl.enqueue_nd_range_kernel(queue, empty, (1,), (1,)) for _ in range(count)]
        gate.set_status(cl.command_execution_status.COMPLETE)
        queue.finish()
        return float(events[-1].profile.end - events[0].profile.start) * 1e-9 / (count - 1)

    figures["launch_interval"] = Figure(
        _median(interval_s, repeats),
        f"measured {via}: {count} empty kernels enqueued behind a user event, then released; (last end - first "
        f"start) / {count - 1} from profiling events, median of {repeats}",
    )

    def enqueue_s() -> float:
        t0 = time.perf_counter()
        for _ in range(count):
            cl.enqueue_nd_range_kernel(queue, empty, (1,), (1,))
        seconds = (time.perf_counter() - t0) / count
        queue.finish()
        return seconds

    figures["launch_call"] = Figure(
        _median(enqueue_s, repeats),
        f"measured {via}: host time of one clEnqueueNDRangeKernel of an empty kernel in a loop of {count}, median "
        f"of {repeats}",
    )
    marker = cl.enqueue_marker(queue)
    marker.wait()

    def query_s() -> float:
        t0 = time.perf_counter()
        for _ in range(count):
            _ = marker.command_execution_status
        return (time.perf_counter() - t0) / count

    figures["api_call"] = Figure(
        _median(query_s, repeats),
        f"measured {via}: host time of clGetEventInfo(COMMAND_EXECUTION_STATUS), a call that launches nothing, "
        f"loop of {count}, median of {repeats}",
    )

    # allocation: a 1 MiB buffer created and released; a PINNED buffer as the opencl backend makes one
    # (CL_MEM_ALLOC_HOST_PTR, then mapped)
    mib = 1 << 20
    created: list[float] = []
    released: list[float] = []
    pinned: list[float] = []
    for _ in range(max(repeats, 5) * 4):
        t0 = time.perf_counter()
        buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE, mib)
        t1 = time.perf_counter()
        buffer.release()
        t2 = time.perf_counter()
        created.append(t1 - t0)
        released.append(t2 - t1)
        t0 = time.perf_counter()
        staging = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.ALLOC_HOST_PTR, mib)
        access = cl.map_flags.READ | cl.map_flags.WRITE
        mapped = cl.enqueue_map_buffer(queue, staging, access, 0, (mib,), np.dtype(np.uint8))[0]
        pinned.append(time.perf_counter() - t0)
        mapped.base.release(queue)
        staging.release()
    tries = len(created)
    figures["alloc"] = Figure(
        statistics.median(created),
        f"measured {via}: host time of clCreateBuffer (1 MiB, READ_WRITE), median of {tries}; the driver may "
        "allocate the memory at first use",
    )
    figures["free"] = Figure(
        statistics.median(released), f"measured {via}: host time of clReleaseMemObject (1 MiB), median of {tries}"
    )
    figures["pinned_alloc"] = Figure(
        statistics.median(pinned),
        f"measured {via}: host time of clCreateBuffer(ALLOC_HOST_PTR, 1 MiB) plus its map (the opencl backend's "
        f"PINNED allocation), median of {tries}",
    )

    # host <-> device copies: a memcpy between two places in the same memory
    host = np.ones(size, np.uint8)

    def h2d_s() -> float:
        t0 = time.perf_counter()
        cl.enqueue_copy(queue, a, host, is_blocking=True)
        return time.perf_counter() - t0

    def d2h_s() -> float:
        t0 = time.perf_counter()
        cl.enqueue_copy(queue, host, a, is_blocking=True)
        return time.perf_counter() - t0

    for name, run_s in (("h2d", h2d_s), ("d2h", d2h_s)):
        figures[name] = Figure(
            size / _best(run_s, repeats),
            f"measured {via}: blocking clEnqueue{'Write' if name == 'h2d' else 'Read'}Buffer of {size >> 20} MiB "
            f"from/to a NumPy array, host wall time, best of {repeats}",
        )
    small = np.ones(64, np.uint8)
    figures["copy_latency"] = Figure(
        _median(lambda: _timed(lambda: cl.enqueue_copy(queue, a, small, is_blocking=True)), repeats * 20),
        f"measured {via}: host wall time of a blocking 64-byte clEnqueueWriteBuffer (enqueue, the device thread "
        f"wakes and copies, the host sees it done), median of {repeats * 20}",
    )
    queue.finish()
    return result


def _timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def measure_memcpy(cpu: CpuFacts, repeats: int = 5) -> Figure:
    """A single-threaded host memcpy (NumPy ``copyto``) of four last-level caches' worth (at least 64 MiB)."""
    l3 = cpu.cache(3) or cpu.cache(2)
    size = max(64 << 20, 4 * (l3.size * l3.instances if l3 else 0))
    src = np.ones(size, np.uint8)
    dst = np.zeros(size, np.uint8)
    seconds = _best(lambda: _timed(lambda: np.copyto(dst, src)), repeats)
    return Figure(
        size / seconds,
        f"measured: numpy.copyto of {size >> 20} MiB (one thread), bytes copied per second, best of {repeats}",
    )


# -- the model file -------------------------------------------------------------------------------------------------

REFERENCE = "host-cpu-amd-epyc-zen4-2vcpu"
"""The shipped model this generator was written against; its measured OpenCL figures stand in, as estimates, where
no OpenCL CPU device can be measured."""

_FALLBACK = {  # from hardware_models/host-cpu-amd-epyc-zen4-2vcpu.toml (PoCL 3.1 on 2 Zen 4 vCPUs)
    "launch_interval": 1.2e-6,
    "launch_call": 2.7e-6,
    "api_call": 0.2e-6,
    "alloc": 1.0e-6,
    "free": 0.3e-6,
    "pinned_alloc": 30e-6,
    "copy_latency": 30e-6,
}


def _rate(value: float, unit: str) -> str:
    for prefix, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if value >= scale:
            return f'"{value / scale:.4g} {prefix}{unit}"'
    return f'"{value:.4g} {unit}"'


def _duration(seconds: float) -> str:
    return f'"{seconds * 1e6:.3g} us"' if seconds >= 1e-7 else f'"{seconds * 1e9:.3g} ns"'


def _bytes(value: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale and value % scale == 0:
            return f'"{value // scale} {unit}"'
    return f'"{value} B"'


def model_name(cpu: CpuFacts, core: Core) -> str:
    """e.g. ``host-cpu-amd-epyc-zen4-2vcpu``: vendor, model name, microarchitecture, logical CPUs (``vcpu`` under a
    hypervisor, ``cpu`` otherwise)."""
    words = re.sub(r"\(.*?\)|\b(processor|cpu|\d+-core)\b", " ", cpu.model_name.lower())
    words = re.sub(r"[^a-z0-9]+", "-", words).strip("-")
    vendor = cpu.vendor.lower()
    words = words if words.startswith(vendor) else f"{vendor}-{words}"
    parts = [words, "" if core.estimate else core.architecture, f"{cpu.logical_cpus}{'vcpu' if cpu.virtual else 'cpu'}"]
    return "host-cpu-" + "-".join(p for p in parts if p)


class _Toml:
    """Lines of a model file: each value with its source as a comment, beside it where the line stays within 120
    characters, else above it."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def comment(self, text: str) -> None:
        self.lines += textwrap.wrap(text, 118, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False)

    def table(self, name: str) -> None:
        if self.lines:
            self.lines.append("")
        self.lines.append(f"[{name}]")

    def value(self, key: str, value: str, source: str) -> None:
        line = f"{key} = {value}"
        if len(f"{line}  # {source}") <= 120:
            self.lines.append(f"{line}  # {source}")
        else:
            self.comment(source)
            self.lines.append(line)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def render(
    cpu: CpuFacts,
    device: OpenCLDevice | None,
    memcpy: Figure,
    *,
    name: str | None = None,
    why_not_measured: str = "",
    command: str = "wia-sim models cpu",
) -> str:
    """The TOML text of the model, every number with its source."""
    core = core_of(cpu)
    figures = device.figures if device else {}
    out = _Toml()
    estimate = f"estimate: measured with PoCL on another machine (hardware_models/{REFERENCE}.toml)"

    def fallback(key: str, field_name: str, render_value: Callable[[float], str]) -> None:
        figure = figures.get(key)
        if figure:
            out.value(field_name, render_value(figure.value), figure.how)
        else:
            out.value(field_name, render_value(_FALLBACK[key]), estimate)

    clock, clock_source = cpu.clock_hz, f"measured: {cpu.clock_source}"
    if device and not clock:
        clock, clock_source = device.clock_hz, "measured: CL_DEVICE_MAX_CLOCK_FREQUENCY of the OpenCL device"
    cores = cpu.physical_cores
    per_cycle = {"float64": core.fp64_per_cycle, "float32": core.fp32_per_cycle}
    implied = max((f.value / (cores * per_cycle[p]) for p in per_cycle if (f := figures.get(f"peak_{p}"))), default=0.0)
    if not core.estimate and implied > 1.05 * clock:
        clock_source = (
            f"derived from measurement: the measured multiply-add peaks below / ({cores} cores x FLOP per cycle) "
            f"= {implied / 1e6:.0f} MHz, while {cpu.clock_source} says {clock / 1e6:.0f} MHz (nominal: the cores "
            "boost above it, and a hypervisor hides the boost clock)"
        )
        clock = round(implied / 1e7) * 1e7
    cpus = f"{cpu.logical_cpus} {'vCPUs' if cpu.virtual else 'CPUs'}"
    seen_by = f"as {device.label} sees it" if device else "without an OpenCL CPU device (OpenCL figures estimated)"
    hypervisor = " under a hypervisor" if cpu.virtual else ""
    out.comment(
        f"{cpu.model_name} ({core.architecture}, family {cpu.family} model {cpu.model}), {cpus}{hypervisor}, "
        f"{seen_by}. Generated by `{command}` from /proc/cpuinfo, /proc/meminfo and /sys/devices/system/cpu (what "
        "lscpu reads) and measurements on this machine; review before shipping (docs/cost_model.md, the section on "
        "the CPU)."
    )
    if not device:
        out.comment(f"No OpenCL CPU device was measured: {why_not_measured or 'not asked'}.")
    out.value("schema_version", "1", "wia_sim/hwmodel.py schema version (a format number, not a device figure)")
    out.lines.append(f'name = "{name or model_name(cpu, core)}"')
    out.lines.append(f'display_name = "{cpu.model_name} ({core.architecture}, {cpus})"')
    out.lines.append(f'vendor = "{cpu.vendor}"')
    out.lines.append('device_type = "CPU"')
    out.lines.append(f'architecture = "{core.architecture}"')

    out.table("compute")
    if device:
        out.value(
            "compute_units",
            str(device.compute_units),
            "measured: CL_DEVICE_MAX_COMPUTE_UNITS of the OpenCL device (a work-group runs on one CPU's thread)",
        )
    else:
        out.value("compute_units", str(cpu.logical_cpus), "measured: logical CPUs in /proc/cpuinfo")
    out.value("clock", f'"{clock / 1e6:.0f} MHz"', clock_source)
    if device:
        out.value(
            "max_work_group_size",
            str(device.max_work_group_size),
            "measured: CL_DEVICE_MAX_WORK_GROUP_SIZE of the OpenCL device",
        )
        local = "measured: CL_DEVICE_LOCAL_MEM_SIZE of the OpenCL device (host memory, cached)"
        out.value("local_memory_per_compute_unit", _bytes(device.local_memory), local)
        out.value("max_local_memory_per_work_group", _bytes(device.local_memory), local)
    else:
        l2 = cpu.cache(2)
        l2_size = l2.size if l2 else 256 << 10
        out.value("max_work_group_size", "4096", "estimate: PoCL 3.1's CL_DEVICE_MAX_WORK_GROUP_SIZE on CPUs")
        local = "estimate: one core's L2 (/sys/devices/system/cpu), where a CPU driver's local memory lives"
        out.value("local_memory_per_compute_unit", _bytes(l2_size), local)
        out.value("max_local_memory_per_work_group", _bytes(l2_size), local)
    fallback("launch_interval", "kernel_launch_latency", _duration)

    out.table("compute.peak_flops")
    for precision, flop in per_cycle.items():
        derived = cores * clock * flop
        kind = "estimate" if core.estimate else "derived"
        out.comment(
            f"{kind}: {cores} physical cores x {clock / 1e6:.0f} MHz (the clock above) x {flop} FLOP/cycle = "
            f"{derived / 1e9:.4g} GFLOP/s; {core.source}"
        )
        value = derived
        measured = figures.get(f"peak_{precision}")
        if measured:
            share = f"{measured.value / derived:.0%} of it" if derived else "no derived peak"
            out.comment(f"{measured.how}: {measured.value / 1e9:.4g} GFLOP/s ({share})")
            if measured.value > 1.05 * derived:  # only where the per-cycle rate is an estimate
                out.comment("the measurement beats the estimate: it is used")
                value = measured.value
        out.lines.append(f"{precision} = {_rate(value, 'FLOP/s')}")
    fp32_line = next(line for line in reversed(out.lines) if line.startswith("float32 = "))
    fp32_value = fp32_line.split("=", 1)[1].strip()
    out.comment(
        "no matrix units or narrower arithmetic in OpenCL C on a CPU device: the opencl backend rounds tf32, float16, "
        "bfloat16 and float8 operands and multiplies them on the float32 units, int8 on int32 units "
        "(wia_hal/backends/opencl/discovery.py, arithmetics()), so these are the float32 rate above"
    )
    for precision in ("tf32", "float16", "bfloat16", "float8"):
        out.value(precision, fp32_value, "derived: the float32 rate; the backend widens it to float32 (see above)")
    int32 = figures.get("peak_int32")
    if int32:
        out.value("int8", _rate(int32.value, "OP/s"), f"{int32.how} (int32 multiply-adds)")
    else:
        out.value("int8", fp32_value.replace("FLOP/s", "OP/s"), "estimate: the float32 rate (int32 not measured)")

    out.table("memory")
    if device:
        size_how = "measured: CL_DEVICE_GLOBAL_MEM_SIZE of the OpenCL device"
        out.value("size", _bytes(device.global_memory), size_how)
    else:
        out.value("size", _bytes(cpu.memory_bytes), "measured: MemTotal in /proc/meminfo")
    triad, copy = figures.get("stream_triad"), figures.get("stream_copy")
    if triad:
        if copy:
            out.comment(
                f"the copy kernel, same method: {copy.value / 1e9:.3g} GB/s (a CPU reads each line it writes into "
                "its cache first: a kernel that writes as much as it reads moves more bytes than it counts)"
            )
        out.value("bandwidth", _rate(triad.value, "B/s"), triad.how)
    else:
        out.comment(
            f"{memcpy.how}; bytes read plus written: a lower bound (one core, no OpenCL device to run a STREAM "
            "kernel on every core)"
        )
        out.lines.append(f"bandwidth = {_rate(2 * memcpy.value, 'B/s')}")
    llc = cpu.cache(3) or cpu.cache(2)
    if llc:
        count = f"{llc.instances} instance{'s' if llc.instances > 1 else ''} of {llc.size >> 10} KiB"
        out.value(
            "last_level_cache",
            _bytes(llc.size * llc.instances),
            f"measured: L{llc.level} in /sys/devices/system/cpu ({count})",
        )
    else:
        out.value("last_level_cache", '"0 B"', "measured: no cache listed in /sys/devices/system/cpu")
    if device:
        out.value(
            "alignment", _bytes(device.base_align), "measured: CL_DEVICE_MEM_BASE_ADDR_ALIGN / 8 of the OpenCL device"
        )
    else:
        out.value("alignment", '"64 B"', "measured: cache_alignment in /proc/cpuinfo (a cache line)")
    fallback("alloc", "alloc_latency", _duration)
    fallback("free", "free_latency", _duration)

    out.table("host_link")
    out.comment(
        "A CPU device's memory is host memory: a host <-> device copy is a memcpy within one DRAM (PoCL runs "
        "clEnqueueWrite/ReadBuffer as a memcpy on its pthread device); no PCIe, DMA engine or pinned path."
    )
    out.lines.append('interface = "none (host memory)"')
    no_link = "decision: no link, so none; the schema (wia_sim/hwmodel.py) needs a positive integer"
    out.value("generation", "1", no_link)
    out.value("lanes", "1", no_link)
    for direction in ("h2d", "d2h"):
        figure = figures.get(direction)
        rate = figure.value if figure else memcpy.value
        out.comment(figure.how if figure else f"estimate: the host memcpy below ({memcpy.how})")
        out.comment(
            "page-locked memory is no faster on a CPU device (the same memcpy): pinned and pageable are one rate"
        )
        out.lines.append(f"pinned_{direction}_bandwidth = {_rate(rate, 'B/s')}")
        out.value(f"pageable_{direction}_bandwidth", _rate(rate, "B/s"), "measured: the same copy (see above)")
    fallback("copy_latency", "latency", _duration)
    out.value(
        "copy_engines", "1", "decision: no DMA engine, the driver's threads copy (one direction's copies in turn)"
    )

    out.table("host")
    fallback("api_call", "api_overhead", _duration)
    fallback("launch_call", "launch_overhead", _duration)
    fastest = max([memcpy.value, *(f.value for k, f in figures.items() if k in ("h2d", "d2h"))])
    out.comment(
        f"{memcpy.how}: {memcpy.value / 1e9:.3g} GB/s; the driver's copies above are memcpys too, and the fastest of "
        "the three measured is the rate"
    )
    out.lines.append(f"memcpy_bandwidth = {_rate(fastest, 'B/s')}")
    fallback("pinned_alloc", "pinned_alloc_latency", _duration)

    out.table("features")
    svm = device.fine_grain_svm if device else False
    svm_how = (
        "measured: fine-grain buffer SVM in CL_DEVICE_SVM_CAPABILITIES of the OpenCL device"
        if device
        else ("estimate: no OpenCL device measured")
    )
    out.value("unified_memory", "true" if svm else "false", svm_how)
    out.value("managed_memory", "true" if svm else "false", svm_how)
    out.value("pinned_memory", "false", "decision: page-locked memory is no faster on a CPU device (see host_link)")
    out.value("peer_to_peer", "false", "decision: one device, no peer link")
    out.value("custom_kernels", "true", "OpenCL C kernels built by the driver (docs/kernels.md)")
    out.value("profiling", "true", "OpenCL profiling events (CL_QUEUE_PROFILING_ENABLE), as measured above")
    out.value("max_streams", "64", "decision: the opencl backend's bound (wia_hal/backends/opencl/discovery.py)")

    out.table("efficiency")
    out.value("memory", "1.0", "measured: memory.bandwidth is already the STREAM triad rate, not a datasheet peak")
    out.comment("matmul: no CPU row in docs/fidelity/calibration.csv; the default (the GPU fits' median) applies")
    return out.text()


def generate(*, measure: bool = True, device_hint: str = "", name: str | None = None, repeats: int = 5) -> str:
    """The TOML text of this machine's CPU model (measured through PyOpenCL where an OpenCL CPU device exists)."""
    cpu = this_cpu()
    device: OpenCLDevice | None = None
    why = "--no-measure"
    if measure:
        found = find_cpu_device(device_hint)
        if isinstance(found, str):
            why = found
        else:
            cl, cl_device = found
            device = measure_device(cl, cl_device, cpu, repeats)
    memcpy = measure_memcpy(cpu, repeats)
    command = "wia-sim models cpu" + (f" --device {device_hint}" if device_hint else "")
    command += f" --repeats {repeats}" if repeats != 5 else ""
    return render(cpu, device, memcpy, name=name, why_not_measured=why, command=command)


__all__ = [
    "REFERENCE",
    "ZEN4",
    "Cache",
    "Core",
    "CpuFacts",
    "Figure",
    "OpenCLDevice",
    "core_of",
    "find_cpu_device",
    "generate",
    "measure_device",
    "measure_memcpy",
    "model_name",
    "read_caches",
    "read_cpu",
    "render",
    "this_cpu",
]
