"""The shipped hardware model files: they load, they are named after their files, every figure in a real-device file
carries its source in a comment, and their numbers are consistent with one another the way a reader would expect."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wia_sim.hwmodel import HardwareModel, available_models, load_model, model_path

FICTIONAL = {"wia-tiny"}  # the test device; its numbers are chosen, not sourced

# The eight real devices the project ships, with the identity fields a reader expects of each.
EXPECTED_DEVICES = {
    "nvidia-v100-sxm2-32gb": ("NVIDIA", "GPU", "volta"),
    "nvidia-a100-sxm4-80gb": ("NVIDIA", "GPU", "ampere"),
    "nvidia-h100-sxm5-80gb": ("NVIDIA", "GPU", "hopper"),
    "nvidia-h200-sxm-141gb": ("NVIDIA", "GPU", "hopper"),
    "amd-mi210": ("AMD", "GPU", "cdna2"),
    "amd-mi300x": ("AMD", "GPU", "cdna3"),
    "intel-gaudi2": ("Intel", "NPU", "gaudi2"),
    "google-tpu-v5e": ("Google", "TPU", "tpu-v5e"),
}

REAL_MODELS = sorted(name for name in available_models() if name not in FICTIONAL)
# A CPU device has no matrix units (int8 runs at its int32 rate, below float32), its memory is host memory (no PCIe
# or peer link), and it boosts above 3 GHz: tests/test_cpu_model.py checks CPU models the way these tests check
# accelerators.
ACCELERATORS = [name for name in REAL_MODELS if load_model(name).device_type != "CPU"]

# Keys whose number is a file-format fact, not a device figure, so they need no source.
UNSOURCED_KEYS = {"schema_version"}

# A value line: `key = value` with an optional trailing comment (values in these files never contain '#').
_VALUE_LINE = re.compile(r"^\s*(?P<key>[A-Za-z0-9_.\"-]+)\s*=\s*(?P<value>[^#]*?)\s*(?:#(?P<comment>.*))?$")
_NUMBER = re.compile(r"^[-+]?(?:\d[\d_]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$")
_QUANTITY = re.compile(r"^\"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*[A-Za-z/]+\s*\"$")
# What makes a comment name a source: a link or document, a repository/issue, a tool output, or an honest derivation.
_SOURCE_MARKER = re.compile(
    r"https?://|www\.|\.com\b|\.org\b|\.io\b|\.edu\b|\.ai\b|\.(?:md|rst|pdf|html|txt|c|h|py)\b|github|[\w.-]+/[\w.-]{2,}|"
    r"datasheet|whitepaper|white paper|guide|docs?\b|"
    r"documentation|spec|table|measured|measurement|estimate|derived|decision|README|issue|PR #|#\d+|paper|arxiv|"
    r"deviceQuery|gpuinfo|rocminfo|nvidia-smi|rocm-smi|hl-smi|nvbandwidth|bandwidthTest|benchmark|driver|fitted|calibration",
    re.IGNORECASE,
)
MIN_SOURCE_CHARS = 20  # shorter than this is a label, not a citation


def _needs_source(value: str) -> bool:
    return bool(_NUMBER.match(value) or _QUANTITY.match(value))


def unsourced_lines(path: Path) -> list[str]:
    """Value lines holding a number or quantity without a source comment on the line or directly above it."""
    problems = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "[")):
            continue
        match = _VALUE_LINE.match(line)
        if match is None or not _needs_source(match["value"]):
            continue
        if match["key"] in UNSOURCED_KEYS:
            continue
        comments = [match["comment"] or ""]
        above = index - 1
        while above >= 0 and lines[above].strip().startswith("#"):  # the comment block directly above
            comments.append(lines[above].strip().lstrip("#"))
            above -= 1
        text = " ".join(c.strip() for c in comments if c and c.strip())
        if len(text) < MIN_SOURCE_CHARS or not _SOURCE_MARKER.search(text):
            problems.append(f"{path.name}:{index + 1}: {stripped!r} has no source comment")
    return problems


def _model(name: str) -> HardwareModel:
    return load_model(name)


@pytest.mark.parametrize("name", available_models())
def test_every_shipped_model_loads_and_is_named_after_its_file(name: str) -> None:
    model = load_model(name)
    assert model.name == name == model_path(name).stem


def test_the_eight_real_devices_are_shipped_with_the_expected_identity() -> None:
    assert set(EXPECTED_DEVICES) <= set(available_models())
    for name, (vendor, device_type, architecture) in EXPECTED_DEVICES.items():
        model = _model(name)
        assert (model.vendor, model.device_type, model.architecture) == (vendor, device_type, architecture), name


@pytest.mark.parametrize("name", REAL_MODELS)
def test_every_figure_in_a_real_device_file_carries_its_source(name: str) -> None:
    problems = unsourced_lines(model_path(name))
    assert not problems, "figures without a source comment:\n" + "\n".join(problems)


def test_the_source_check_catches_a_bare_or_unsourced_figure(tmp_path: Path) -> None:
    bad = tmp_path / "bad-device.toml"
    bad.write_text(
        "[compute]\n"
        "compute_units = 4\n"  # no comment at all
        'clock = "1 GHz"  # fast\n'  # a comment, but no source
        "# NVIDIA A100 datasheet, GPU Memory Bandwidth\n"
        'bandwidth = "2039 GB/s"\n'  # sourced by the line above
        'interface = "PCIe"\n'  # not a number: no source needed
        "\n"
        "# a datasheet table, but separated by a blank line\n"
        "\n"
        "lanes = 16\n",
        encoding="utf-8",
    )
    problems = unsourced_lines(bad)
    assert [p.split(":")[1] for p in problems] == ["2", "3", "10"]
    assert all(p.startswith("bad-device.toml:") for p in problems)


@pytest.mark.parametrize("name", ACCELERATORS)
def test_peak_rates_are_ordered_as_a_reader_expects(name: str) -> None:
    peaks = _model(name).compute.peak_flops
    fp32 = peaks["float32"]
    for precision in ("tf32", "float16", "bfloat16", "float8", "int8"):
        if precision in peaks:  # matrix-unit rates are never below the vector FP32 rate
            assert peaks[precision] >= fp32, f"{name}: {precision} peak below float32"
    if "float64" in peaks:  # FP64 (even on FP64 tensor cores) never exceeds the FP32 peak
        assert peaks["float64"] <= fp32 * 1.0001, f"{name}: float64 peak above float32"
    if "float8" in peaks and "bfloat16" in peaks:
        assert peaks["float8"] >= peaks["bfloat16"], f"{name}: float8 below bfloat16"
    if "bfloat16" in peaks and "float16" in peaks:
        assert peaks["bfloat16"] == pytest.approx(peaks["float16"]), f"{name}: fp16 and bf16 matrix rates differ"


@pytest.mark.parametrize("name", ACCELERATORS)
def test_memory_and_links_are_consistent(name: str) -> None:
    model = _model(name)
    memory, link, host = model.memory, model.host_link, model.host
    # pageable copies are staged through pinned buffers by a host memcpy: never faster than either
    for pageable, pinned in (
        (link.pageable_h2d_bandwidth, link.pinned_h2d_bandwidth),
        (link.pageable_d2h_bandwidth, link.pinned_d2h_bandwidth),
    ):
        assert pageable <= pinned, name
        assert pageable <= host.memcpy_bandwidth * 1.0001, f"{name}: pageable copy faster than host memcpy"
    # measured host-link rates stay under the PCIe payload rate of the stated generation and width
    per_lane = {3: 0.985e9, 4: 1.969e9, 5: 3.938e9}[link.generation]
    assert link.interface == "PCIe"
    assert max(link.pinned_h2d_bandwidth, link.pinned_d2h_bandwidth) <= per_lane * link.lanes, name
    # device memory is far faster than the host link and than a peer link; caches fit in memory
    assert memory.bandwidth > 10 * link.pinned_h2d_bandwidth, name
    assert model.peer_link is not None and model.peer_link.bandwidth < memory.bandwidth, name
    assert memory.last_level_cache < memory.size, name
    assert model.compute.local_memory_per_compute_unit < memory.size, name


@pytest.mark.parametrize("name", ACCELERATORS)
def test_times_and_clocks_are_in_plausible_ranges(name: str) -> None:
    model = _model(name)
    assert 0.5e9 <= model.compute.clock <= 3e9, name
    assert 0.5e-6 <= model.compute.kernel_launch_latency <= 20e-6, name
    assert 0.1e-6 <= model.host.api_overhead <= model.host.launch_overhead <= 50e-6, name
    assert 1e-6 <= model.host_link.latency <= 50e-6, name
    assert model.memory.free_latency <= model.memory.alloc_latency, name
    assert model.memory.alloc_latency <= model.host.pinned_alloc_latency, name
    assert model.peer_link is not None and 0.1e-6 <= model.peer_link.latency <= 20e-6, name


@pytest.mark.parametrize("name", [n for n in REAL_MODELS if EXPECTED_DEVICES.get(n, ("", "", ""))[1] == "GPU"])
def test_gpus_follow_the_cuda_and_hip_conventions(name: str) -> None:
    model = _model(name)
    assert model.compute.max_work_group_size == 1024, name
    assert model.features.custom_kernels and model.features.unified_memory and model.features.managed_memory, name
    assert model.features.peer_to_peer and model.features.pinned_memory, name
    assert model.memory.alignment >= 256, name
