"""The kernel corpus on the simulator's executor: every case against its reference at its documented tolerance,
every planted bug caught by the right check at the right line.

Seeds as in ``test_corpus_on_opencl.py``: ``WIA_KERNEL_SEED`` and ``WIA_KERNEL_ROUNDS`` (default 2 here).
"""

from __future__ import annotations

import os
import secrets
import zlib

import numpy as np
import pytest

from wia_sim.kernels import compile_source
from wia_sim.kernels.executor import KernelFault, run_kernel
from wia_sim.kernels.lanes import Geometry
from wia_sim.kernels.memargs import GlobalBuffer

from . import corpus
from .corpus import BUGS, CASES, Buffer, Local, Scalar

_seed_env = os.environ.get("WIA_KERNEL_SEED", "")
BASE_SEED = secrets.randbits(32) if _seed_env == "random" else int(_seed_env or 20250611)
ROUNDS = int(os.environ.get("WIA_KERNEL_ROUNDS", "2"))

# cases the executor cannot run yet, with what is missing
XFAIL: dict[str, str] = {}


def _rng(name: str, round_: int) -> tuple[np.random.Generator, str]:
    entropy = [BASE_SEED, zlib.crc32(name.encode()), round_]
    return np.random.default_rng(entropy), f"WIA_KERNEL_SEED={BASE_SEED} (case {name}, round {round_})"


def _geometry(launch: corpus.Launch, offset: tuple[int, ...] | None) -> Geometry:
    g = tuple(launch.global_size)
    loc = tuple(launch.local_size or (1,) * len(g))
    off = tuple(offset or (0,) * len(g))
    pad = (1,) * (3 - len(g))
    zero = (0,) * (3 - len(g))
    return Geometry(g + pad, loc + pad, off + zero, work_dim=len(g))  # type: ignore[arg-type]


def run_launch(
    case: corpus.KernelCase | corpus.BugCase,
    launch: corpus.Launch,
    *,
    checks: bool = True,
    step_limit: int = 10_000_000,
    strict: bool = False,
    noted: list[KernelFault] | None = None,
) -> dict[str, np.ndarray]:
    """Run ``launch`` on the executor; the final contents of every output buffer, by name. ``strict``: findings
    of lower severity (uniform writes) raise too; else they go to ``noted``. The buffers are put back for a
    launch that runs again (``run_kernel``'s ``restore``), as the HAL's sim backend does."""
    program = compile_source(case.source(), case.options)
    args: list[object] = []
    arrays: dict[str, np.ndarray] = {}
    for name, arg in launch.args.items():  # the buffers first: a span may come before its buffer
        if isinstance(arg, Buffer):
            arrays[name] = arg.array.copy()
    for name, arg in launch.args.items():
        if isinstance(arg, Buffer | corpus.Span):
            whole = launch.args[arg.of] if isinstance(arg, corpus.Span) else arg
            assert isinstance(whole, Buffer)
            data = arrays[arg.of if isinstance(arg, corpus.Span) else name].reshape(-1).view(np.uint8)
            if isinstance(arg, corpus.Span):  # a view of the same bytes
                data = data[arg.offset : arg.offset + arg.nbytes]
            unset = None if whole.host_data else np.zeros(data.size, dtype=bool)
            args.append(GlobalBuffer(data, whole.memory_access, unset))  # type: ignore[arg-type]
        elif isinstance(arg, corpus.Null):
            args.append(None)
        elif isinstance(arg, Local):
            args.append(arg.nbytes)
        else:
            assert isinstance(arg, Scalar)
            args.append(arg.numpy())
    offset = getattr(case, "global_offset", None)
    geometry = _geometry(launch, offset)
    before = {name: a.copy() for name, a in arrays.items()}

    def restore() -> None:
        for name, a in arrays.items():
            a[...] = before[name]

    result = run_kernel(
        program, case.kernel, args, geometry, step_limit=step_limit, checks=checks, strict=strict, restore=restore
    )
    if noted is not None:
        noted.extend(result.findings)
    return {name: arrays[name] for name in corpus.output_names(launch)}


def _case_param(case: corpus.KernelCase) -> object:
    marks = [pytest.mark.xfail(strict=True, reason=XFAIL[case.name])] if case.name in XFAIL else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_case_param(c) for c in CASES])
def test_case_matches_reference(case: corpus.KernelCase) -> None:
    for round_ in range(ROUNDS):
        rng, seed_note = _rng(case.name, round_)
        launch = case.draw(rng)
        noted: list[KernelFault] = []
        outputs = run_launch(case, launch, strict=not case.notes, noted=noted)  # clean: not even a uniform write
        failures = case.check(launch, outputs)
        if sorted(f.check for f in noted) != sorted(case.notes):
            failures.append(f"noted {[str(f) for f in noted]}, expected {list(case.notes)}")
        assert not failures, (
            f"{case.name} on the simulator, {seed_note}, global {launch.global_size} local "
            f"{launch.local_size}:\n  " + "\n  ".join(failures)
        )


@pytest.mark.parametrize("bug", BUGS, ids=lambda b: b.name)
def test_bug_is_caught(bug: corpus.BugCase) -> None:
    rng, seed_note = _rng(bug.name, 0)
    launch = bug.draw(rng)
    with pytest.raises(KernelFault) as info:
        run_launch(bug, launch, step_limit=20_000, strict=True)
    fault = info.value
    assert fault.check == bug.check, f"{bug.name} ({seed_note}): {fault.check}: {fault}"
    assert fault.line == bug.line, f"{bug.name} ({seed_note}): line {fault.line}: {fault}"
    assert fault.kernel == bug.kernel
    assert str(fault).startswith(f"kernel.cl:{bug.line}:") or bug.check == "step_limit", str(fault)
