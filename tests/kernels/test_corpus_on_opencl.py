"""The kernel corpus on every usable real OpenCL device (PoCL's CPU device and the Oclgrind simulator in CI): every
case against its float64 / exact reference at its documented tolerance, every planted-bug kernel at least built.
A case a device cannot run for a known limitation of the implementation is an expected (strict) failure there.

Data are random and fresh per round; the seed is fixed by default and printed in every failure. Set
``WIA_KERNEL_SEED=<int>`` to replay a failure or ``WIA_KERNEL_SEED=random`` for a new one, and
``WIA_KERNEL_ROUNDS`` for the number of random rounds per case (default 3).
"""

from __future__ import annotations

import os
import re
import secrets
import zlib

import numpy as np
import pytest

from . import cldevices, corpus
from .cldevices import CLDevice
from .corpus import BUGS, CASES, CHECKS, Buffer, Local, Scalar

DEVICES = cldevices.usable_devices()
if not DEVICES:
    pytest.skip(f"no usable OpenCL device: {cldevices.unusable_reasons()}", allow_module_level=True)

_seed_env = os.environ.get("WIA_KERNEL_SEED", "")
BASE_SEED = secrets.randbits(32) if _seed_env == "random" else int(_seed_env or 20250611)
ROUNDS = int(os.environ.get("WIA_KERNEL_ROUNDS", "3"))

# OpenCL C scalar type -> NumPy dtype of the buffer elements / scalar argument
_CL_TYPES = {
    "char": np.int8,
    "uchar": np.uint8,
    "short": np.int16,
    "ushort": np.uint16,
    "int": np.int32,
    "uint": np.uint32,
    "long": np.int64,
    "ulong": np.uint64,
    "half": np.float16,
    "float": np.float32,
    "double": np.float64,
}


def _rng(name: str, round_: int) -> tuple[np.random.Generator, str]:
    entropy = [BASE_SEED, zlib.crc32(name.encode()), round_]
    return np.random.default_rng(entropy), f"WIA_KERNEL_SEED={BASE_SEED} (case {name}, round {round_})"


@pytest.fixture(params=DEVICES, ids=lambda d: d.key)
def device(request: pytest.FixtureRequest) -> CLDevice:
    return request.param  # type: ignore[no-any-return]


def _known_limit(request: pytest.FixtureRequest, device: CLDevice, name: str) -> None:
    """Mark a case the device cannot run as a strict expected failure: it still runs, so a fixed driver shows."""
    reason = cldevices.KNOWN_LIMITS.get((device.key, name))
    if reason is not None:
        request.applymarker(pytest.mark.xfail(reason=reason, strict=True))


def _check_signature(device: CLDevice, case: corpus.KernelCase | corpus.BugCase, launch: corpus.Launch) -> None:
    """The launch's argument descriptions agree with what the driver says the kernel takes."""
    signature = device.kernel_signature(case)
    names = [s[0] for s in signature]
    assert names == list(launch.args), f"{case.name}: kernel parameters {names}, launch args {list(launch.args)}"
    for (name, space, type_name), arg in zip(signature, launch.args.values(), strict=True):
        if isinstance(arg, Buffer):
            assert space == arg.space, f"{case.name}.{name}: kernel says __{space}, descriptor says {arg.space}"
            base = re.fullmatch(r"(\w+?)(\d*)\*", type_name.replace(" ", ""))
            assert base, f"{case.name}.{name}: pointer type {type_name!r}"
            if base.group(1) not in _CL_TYPES:  # a struct: its layout is checked by the kernel's results
                continue
            assert np.dtype(_CL_TYPES[base.group(1)]) == arg.array.dtype, (
                f"{case.name}.{name}: {type_name} over a {arg.array.dtype} array"
            )
            width = int(base.group(2) or 1)
            assert arg.array.size % width == 0, f"{case.name}.{name}: {arg.array.size} elements for {type_name}"
        elif isinstance(arg, Local):
            assert space == "local", f"{case.name}.{name}: kernel says __{space}, descriptor says Local"
        elif isinstance(arg, corpus.Null | corpus.Span):
            assert space == "global", f"{case.name}.{name}: kernel says __{space}, descriptor says {arg}"
        else:
            assert isinstance(arg, Scalar)
            assert space == "private", f"{case.name}.{name}: kernel says __{space}, descriptor says Scalar"
            vector = re.fullmatch(r"([a-z]+?)(2|3|4|8|16)", type_name)
            if isinstance(arg.value, np.ndarray) and arg.value.dtype.names:  # a struct by value
                assert type_name not in _CL_TYPES and not vector, f"{case.name}.{name}: {type_name} is no struct"
                continue
            if vector:  # a vector by value: its components
                assert isinstance(arg.value, np.ndarray) and arg.value.size == int(vector.group(2)), name
                type_name = vector.group(1)
            assert np.dtype(_CL_TYPES[type_name]) == np.dtype(arg.dtype), (
                f"{case.name}.{name}: kernel takes {type_name}, descriptor gives {np.dtype(arg.dtype)}"
            )


def test_manifest() -> None:
    assert len(CASES) >= 25
    assert len({c.name for c in CASES}) == len(CASES)
    assert sorted(c.file for c in CASES) == sorted(p.name for p in corpus.CORPUS_DIR.glob("*.cl"))
    assert sorted(b.file for b in BUGS) == sorted(p.name for p in corpus.BUGS_DIR.glob("*.cl"))
    assert {b.check for b in BUGS} == set(CHECKS)
    for case in CASES:
        assert re.search(rf"__kernel\s+void\s+{case.kernel}\s*\(", case.source()), case.name
        launch = case.draw(np.random.default_rng(BASE_SEED))
        for name, arg in launch.args.items():
            if isinstance(arg, Buffer) and arg.access != "out":
                assert np.any(arg.array.view(np.uint8) != 0), f"{case.name}.{name}: all zeros"


@pytest.mark.parametrize("bug", BUGS, ids=lambda b: b.name)
def test_bug_fault_marker(bug: corpus.BugCase) -> None:
    """The line named in the manifest is the one marked // FAULT and the one the header comment names."""
    lines = bug.source().splitlines()
    marked = [n for n, text in enumerate(lines, 1) if text.rstrip().endswith("// FAULT")]
    assert marked == [bug.line], f"{bug.file}: FAULT marked on lines {marked}, manifest says {bug.line}"
    assert f"Expected check: {bug.check}, at line {bug.line}" in bug.source(), bug.file
    assert bug.check in CHECKS


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_case_matches_reference(request: pytest.FixtureRequest, device: CLDevice, case: corpus.KernelCase) -> None:
    _known_limit(request, device, case.name)
    for round_ in range(ROUNDS):
        rng, seed_note = _rng(case.name, round_)
        launch = case.draw(rng)
        if round_ == 0:
            _check_signature(device, case, launch)
        outputs = device.run_launch(case, launch)
        failures = case.check(launch, outputs)
        assert not failures, (
            f"{case.name} on {device.description}, {seed_note}, global {launch.global_size} local "
            f"{launch.local_size}:\n  " + "\n  ".join(failures)
        )


@pytest.mark.parametrize("bug", BUGS, ids=lambda b: b.name)
def test_bug_kernel_builds(device: CLDevice, bug: corpus.BugCase) -> None:
    """Every planted bug is valid OpenCL C. The ones that cannot hang or corrupt memory also run (with padding
    past every buffer, so the stray global/constant access lands in memory the device owns)."""
    rng, _ = _rng(bug.name, 0)
    launch = bug.draw(rng)
    _check_signature(device, bug, launch)
    if bug.safe_to_run:
        outputs = device.run_launch(bug, launch, pad_bytes=4096)
        assert set(outputs) == set(corpus.output_names(launch))
