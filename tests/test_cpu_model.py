"""``wia-sim models cpu`` (wia_sim/cpu_model.py): reading what the system says of its CPU, the per-core rates, the
generated file (it loads, every figure is sourced, its numbers are consistent), and the shipped CPU models."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_hardware_models import unsourced_lines

import wia_hal as wia
from wia_sim import cpu_model
from wia_sim.cli import main as sim_main
from wia_sim.cpu_model import Cache, CpuFacts, Figure, OpenCLDevice
from wia_sim.hwmodel import HardwareModel, available_models, load_model, model_path

# /proc/cpuinfo of the 2-vCPU Zen 4 VM the shipped model was generated on (flags shortened)
CPUINFO = "".join(
    f"""processor	: {n}
vendor_id	: AuthenticAMD
cpu family	: 25
model		: 17
model name	: AMD EPYC
stepping	: 1
cpu MHz		: 2596.144
cache size	: 1024 KB
physical id	: 0
siblings	: 2
core id		: {n}
cpu cores	: 2
flags		: fpu sse sse2 ht avx fma avx2 avx512f avx512dq avx512_bf16 hypervisor
cache_alignment	: 64

"""
    for n in range(2)
)
MEMINFO = "MemTotal:       24684084 kB\nMemFree:        22764312 kB\n"
CACHES = (Cache(1, "Data", 32 << 10, 2), Cache(1, "Instruction", 32 << 10, 2), Cache(2, "Unified", 1 << 20, 2))
L3 = Cache(3, "Unified", 32 << 20, 1)

CPU_MODELS = [name for name in available_models() if load_model(name).device_type == "CPU"]


def _cpu(**changes: Any) -> CpuFacts:
    return dataclasses.replace(cpu_model.read_cpu(CPUINFO, MEMINFO, (*CACHES, L3)), **changes)


def _device(**figures: float) -> OpenCLDevice:
    """An OpenCL device report with the figures of a measurement (seconds, bytes/s, FLOP/s)."""
    defaults = {
        "peak_float32": 2 * 2.6e9 * 32 * 0.9,
        "peak_float64": 2 * 2.6e9 * 16 * 0.9,
        "peak_int32": 2 * 2.6e9 * 24,
        "stream_copy": 28e9,
        "stream_triad": 31e9,
        "launch_interval": 1.2e-6,
        "launch_call": 2.5e-6,
        "api_call": 0.15e-6,
        "alloc": 0.8e-6,
        "free": 0.3e-6,
        "pinned_alloc": 30e-6,
        "h2d": 11e9,
        "d2h": 10e9,
        "copy_latency": 30e-6,
    }
    values = defaults | figures
    return OpenCLDevice(
        label="Portable Computing Language 3.1+debian / pthread-skylake-avx512-AMD EPYC",
        compute_units=2,
        clock_hz=2596e6,
        global_memory=7073902592,
        local_memory=1 << 20,
        max_work_group_size=4096,
        base_align=128,
        fine_grain_svm=False,
        figures={key: Figure(value, f"measured: a test figure for {key}") for key, value in values.items()},
    )


def cpu_model_problems(model: HardwareModel) -> list[str]:
    """What a reader would find inconsistent in a CPU model (the CPU counterpart of the accelerator checks in
    tests/test_hardware_models.py)."""
    problems = []
    link, host, memory, compute = model.host_link, model.host, model.memory, model.compute
    if model.device_type != "CPU":
        problems.append(f"device_type {model.device_type}")
    if model.peer_link is not None or model.features.peer_to_peer:
        problems.append("a peer link")
    for direction in ("h2d", "d2h"):
        pinned = getattr(link, f"pinned_{direction}_bandwidth")
        pageable = getattr(link, f"pageable_{direction}_bandwidth")
        if pinned != pageable:
            problems.append(f"{direction}: pinned and pageable differ (one memcpy on a CPU device)")
        if pageable > host.memcpy_bandwidth * 1.0001:
            problems.append(f"{direction}: faster than the host memcpy")
        if pinned > memory.bandwidth:
            problems.append(f"{direction}: a host copy faster than the memory's streaming rate")
    if model.features.pinned_memory:
        problems.append("pinned memory claimed (no faster on a CPU device)")
    if not 0.5e9 <= compute.clock <= 6e9:
        problems.append(f"clock {compute.clock}")
    if not 0.1e-6 <= compute.kernel_launch_latency <= 50e-6:
        problems.append(f"kernel_launch_latency {compute.kernel_launch_latency}")
    if not 10e-9 <= host.api_overhead <= host.launch_overhead <= 50e-6:
        problems.append(f"api_overhead {host.api_overhead} / launch_overhead {host.launch_overhead}")
    if not memory.free_latency <= memory.alloc_latency <= host.pinned_alloc_latency:
        problems.append("free, alloc and pinned alloc latencies out of order")
    if not 0.5e-6 <= link.latency <= 200e-6:
        problems.append(f"host_link.latency {link.latency}")
    if memory.last_level_cache >= memory.size or compute.local_memory_per_compute_unit >= memory.size:
        problems.append("a cache or local memory as large as the memory")
    peaks = compute.peak_flops
    widened = {p: peaks.get(p) for p in ("tf32", "float16", "bfloat16", "float8")}
    if any(rate != peaks["float32"] for rate in widened.values()):
        problems.append(f"narrow floats run on the float32 units, at its rate: {widened} vs {peaks['float32']}")
    if not 0 < peaks.get("int8", 0) <= 2 * peaks["float32"]:
        problems.append("int8 (int32 multiply-adds) missing or far above the float32 rate")
    if "float64" in peaks and peaks["float64"] > peaks["float32"]:
        problems.append("float64 peak above float32")
    return problems


# -- reading the system ----------------------------------------------------------------------------------------------


def test_cpuinfo_and_meminfo_are_read() -> None:
    cpu = _cpu()
    assert (cpu.vendor, cpu.model_name, cpu.family, cpu.model) == ("AMD", "AMD EPYC", 25, 17)
    assert (cpu.logical_cpus, cpu.physical_cores) == (2, 2)
    assert cpu.clock_hz == pytest.approx(2596.144e6)
    assert cpu.virtual and "avx512f" in cpu.flags
    assert cpu.memory_bytes == 24684084 * 1024
    assert cpu.cache(3) == L3 and cpu.cache(1) == CACHES[0]


def test_hyperthreads_are_not_counted_as_cores() -> None:
    smt = CPUINFO.replace("core id		: 1", "core id		: 0")
    cpu = cpu_model.read_cpu(smt, MEMINFO)
    assert (cpu.logical_cpus, cpu.physical_cores) == (2, 1)


def test_a_cpufreq_maximum_is_the_clock() -> None:
    cpu = cpu_model.read_cpu(CPUINFO, MEMINFO, max_freq_khz=3_700_000)
    assert cpu.clock_hz == 3.7e9 and "cpufreq" in cpu.clock_source


def test_caches_are_read_from_sysfs_with_their_instances(tmp_path: Path) -> None:
    for cpu in range(2):
        for index, (level, kind, size, shared) in enumerate(
            [(1, "Data", "32K", str(cpu)), (1, "Instruction", "32K", str(cpu)), (2, "Unified", "1024K", str(cpu)),
             (3, "Unified", "32768K", "0-1")]
        ):  # fmt: skip
            folder = tmp_path / f"cpu{cpu}" / "cache" / f"index{index}"
            folder.mkdir(parents=True)
            for name, value in (("level", level), ("type", kind), ("size", size), ("shared_cpu_list", shared)):
                (folder / name).write_text(f"{value}\n")
    assert cpu_model.read_caches(tmp_path) == (*CACHES, L3)


def test_zen4_rates_come_from_the_microarchitecture_others_are_estimates() -> None:
    assert cpu_model.core_of(_cpu()) is cpu_model.ZEN4
    assert (cpu_model.ZEN4.fp32_per_cycle, cpu_model.ZEN4.fp64_per_cycle) == (32, 16)
    intel = cpu_model.core_of(_cpu(vendor_id="GenuineIntel", family=6, model=143))
    assert intel.estimate and (intel.fp32_per_cycle, intel.fp64_per_cycle) == (64, 32)
    avx2 = cpu_model.core_of(_cpu(vendor_id="GenuineIntel", family=6, flags=frozenset({"avx2", "fma"})))
    assert avx2.estimate and avx2.fp32_per_cycle == 32


def test_the_name_says_vendor_model_architecture_and_cpus() -> None:
    assert cpu_model.model_name(_cpu(), cpu_model.ZEN4) == "host-cpu-amd-epyc-zen4-2vcpu"
    xeon = _cpu(model_name="Intel(R) Xeon(R) Gold 6430", vendor_id="GenuineIntel", family=6, model=143)
    bare = dataclasses.replace(xeon, flags=xeon.flags - {"hypervisor"})
    assert cpu_model.model_name(bare, cpu_model.core_of(bare)) == "host-cpu-intel-xeon-gold-6430-2cpu"


# -- the generated file ----------------------------------------------------------------------------------------------


def _load(tmp_path: Path, text: str) -> HardwareModel:
    path = tmp_path / "cpu.toml"
    path.write_text(text, encoding="utf-8")
    assert not unsourced_lines(path), unsourced_lines(path)
    return load_model(path)


def test_a_measured_model_loads_with_every_figure_sourced(tmp_path: Path) -> None:
    text = cpu_model.render(_cpu(), _device(), Figure(12e9, "measured: a test memcpy"))
    model = _load(tmp_path, text)
    assert model.name == "host-cpu-amd-epyc-zen4-2vcpu" and model.device_type == "CPU"
    assert model.compute.compute_units == 2 and model.compute.clock == pytest.approx(2596e6)
    assert model.compute.peak_flops["float32"] == pytest.approx(2 * 2596e6 * 32, rel=1e-3)  # derived, not measured
    assert model.memory.bandwidth == pytest.approx(31e9, rel=1e-3)  # the triad
    assert model.efficiency.memory == 1.0
    assert model.memory.size == 7073902592 and model.memory.last_level_cache == 32 << 20
    assert model.host.memcpy_bandwidth == pytest.approx(12e9, rel=1e-3)  # faster than the driver's copies
    assert model.host_link.pinned_h2d_bandwidth == model.host_link.pageable_h2d_bandwidth == pytest.approx(11e9)
    assert cpu_model_problems(model) == []


def test_measured_peaks_above_the_reported_clock_raise_it(tmp_path: Path) -> None:
    boosted = _device(peak_float32=2 * 3.6e9 * 32 * 0.99, peak_float64=2 * 3.6e9 * 16 * 1.01)
    text = cpu_model.render(_cpu(), boosted, Figure(12e9, "measured: a test memcpy"))
    model = _load(tmp_path, text)
    assert model.compute.clock == pytest.approx(3.64e9)  # from the float64 peak, rounded to 10 MHz
    assert model.compute.peak_flops["float32"] == pytest.approx(2 * 3.64e9 * 32, rel=1e-3)
    assert "derived from measurement" in text and "2596 MHz" in text


def test_without_an_opencl_device_the_opencl_figures_are_estimates(tmp_path: Path) -> None:
    text = cpu_model.render(_cpu(), None, Figure(12e9, "measured: a test memcpy"), why_not_measured="no PoCL")
    model = _load(tmp_path, text)
    assert "No OpenCL CPU device was measured: no PoCL" in text
    assert model.memory.size == 24684084 * 1024 and model.memory.bandwidth == pytest.approx(24e9, rel=1e-3)
    assert model.compute.kernel_launch_latency > 0 and "estimate: measured with PoCL on another machine" in text
    assert cpu_model_problems(model) == []


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc and /sys")
def test_wia_sim_models_cpu_writes_a_valid_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "this-cpu.toml"
    assert sim_main(["models", "cpu", "--no-measure", "--repeats", "1", "--name", "this-cpu", "-o", str(path)]) == 0
    assert "ok" in capsys.readouterr().out
    assert not unsourced_lines(path)
    assert load_model(path).name == "this-cpu"


def test_the_measurement_runs_on_an_opencl_cpu_device() -> None:
    found = cpu_model.find_cpu_device()
    if isinstance(found, str):
        pytest.skip(found)
    cl, device = found
    cpu = cpu_model.this_cpu()
    measured = cpu_model.measure_device(cl, device, cpu, repeats=1)
    for key in ("peak_float32", "stream_triad", "launch_interval", "launch_call", "alloc", "h2d", "copy_latency"):
        assert measured.figures[key].value > 0 and measured.figures[key].how.startswith("measured"), key


# -- the shipped CPU models ------------------------------------------------------------------------------------------


def test_this_machines_cpu_model_is_shipped() -> None:
    assert cpu_model.REFERENCE in CPU_MODELS


@pytest.mark.parametrize("name", CPU_MODELS)
def test_shipped_cpu_models_are_consistent(name: str) -> None:
    assert cpu_model_problems(load_model(name)) == [], model_path(name)


@pytest.mark.parametrize("name", CPU_MODELS)
def test_the_simulator_runs_on_a_shipped_cpu_model(name: str) -> None:
    wia.set_backend("sim", hardware=name)
    try:
        ctx = wia.create_context()
        a = wia.tensor(np.arange(1024, dtype=np.float32), ctx=ctx)
        c = wia.add(a, a)
        np.testing.assert_array_equal(c.numpy(), 2 * np.arange(1024, dtype=np.float32))
        report = wia.explain(c)
        assert report.duration_ms > 0
        info = wia.get_device_info(wia.get_device(0))
        assert info.type == wia.DeviceType.CPU and info.peak_flops == load_model(name).compute.peak_flops["float32"]
        wia.destroy_context(ctx)
    finally:
        wia.set_backend("sim")
