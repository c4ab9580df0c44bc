"""The kernel corpus through the public ``wia_hal`` API on two backends: ``sim`` (wia-tiny, the kernel executor
with its checks on) and ``opencl`` on PoCL, with the same random inputs. Each backend's outputs against the case's
float64 / exact reference at its documented tolerance, and the two backends against each other: exact outputs
equal (the NaN / 0xDEADBEEF sentinels of unwritten elements included), the others within twice the tolerance.

The HAL's ``LaunchConfig`` has no global work offset, so ``ndrange_info`` (launched with offset (5, 3) by the raw
PyOpenCL tests) runs here with offset 0 against the reference for offset 0.

Seeds as in ``test_corpus_on_opencl.py``: ``WIA_KERNEL_SEED`` and ``WIA_KERNEL_ROUNDS`` (default 2 here). Skipped,
with the reason, without PyOpenCL or PoCL.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import zlib
from collections.abc import Iterator

import numpy as np
import pytest

import wia_hal as wia
from wia_hal.runtime import runtime

from . import cldevices, corpus
from .corpus import CASES, Buffer

POCL = next((d for d in cldevices.usable_devices() if d.key == "pocl"), None)
if POCL is None:
    reasons = cldevices.unusable_reasons() or "the survey found other devices only"
    pytest.skip(f"no usable PoCL device: {reasons}", allow_module_level=True)

_seed_env = os.environ.get("WIA_KERNEL_SEED", "")
BASE_SEED = secrets.randbits(32) if _seed_env == "random" else int(_seed_env or 20250611)
ROUNDS = int(os.environ.get("WIA_KERNEL_ROUNDS", "2"))

BACKENDS: dict[str, tuple[str, dict[str, str]]] = {
    "sim": ("sim", {"hardware": "wia-tiny"}),
    "pocl": ("opencl", {"device": "pocl"}),
}


def _rng(name: str, round_: int) -> tuple[np.random.Generator, str]:
    entropy = [BASE_SEED, zlib.crc32(name.encode()), round_]
    return np.random.default_rng(entropy), f"WIA_KERNEL_SEED={BASE_SEED} (case {name}, round {round_})"


@pytest.fixture(scope="module", autouse=True)
def _cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The opencl backend's measured peaks go to a temporary directory, not the user's cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WIA_CACHE_DIR", str(tmp_path_factory.mktemp("wia-cache")))
        yield


def run_on(backend: str, case: corpus.KernelCase, launch: corpus.Launch) -> dict[str, np.ndarray]:
    name, options = BACKENDS[backend]
    wia.set_backend(name, **options)
    try:
        return cldevices.run_launch_hal(case, launch)
    finally:
        for ctx in list(runtime().contexts):
            ctx.destroy()


def disagreements(case: corpus.KernelCase, launch: corpus.Launch, sim: np.ndarray, pocl: np.ndarray, name: str) -> str:
    """ "" when the two backends' output ``name`` agree: exactly for exact outputs, else within twice the case's
    tolerance around the reference (each may err by the tolerance, in opposite directions)."""
    tol = case.tolerances[name]
    arg = launch.args[name]
    assert isinstance(arg, Buffer)
    floating = arg.array.dtype.kind == "f"
    same = (sim == pocl) | (np.isnan(sim) & np.isnan(pocl)) if floating else sim == pocl
    if tol.exact:
        bad = ~same
        allowed = np.zeros(sim.shape)
    else:
        inputs = case.inputs(launch)
        expected = np.asarray(case.reference(inputs)[name], np.float64).reshape(arg.array.shape)
        atol = tol.atol(inputs) if callable(tol.atol) else tol.atol
        unwritten = np.isnan(expected)
        ulps = tol.ulp * corpus.ulp32(np.where(unwritten, 0.0, expected)) * (1 + 2.0**-20)
        allowed = 2 * (ulps + np.broadcast_to(atol, expected.shape))
        with np.errstate(invalid="ignore"):
            close = np.abs(sim.astype(np.float64) - pocl.astype(np.float64)) <= allowed
        bad = ~(same | (close & ~unwritten))
    if not bad.any():
        return ""
    at = tuple(int(i) for i in np.argwhere(bad)[0])
    return (
        f"{name}: {int(bad.sum())} of {bad.size} elements differ between the backends beyond "
        f"{'equality' if tol.exact else '2 x the tolerance'}; first at {at}: sim {sim[at]!r}, pocl {pocl[at]!r}"
        + ("" if tol.exact else f", allowed {float(allowed[at]):.3g}")
    )


def _case_param(case: corpus.KernelCase) -> object:
    reason = cldevices.KNOWN_LIMITS.get(("pocl", case.name))
    marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_case_param(c) for c in CASES])
def test_case_on_sim_and_pocl(case: corpus.KernelCase) -> None:
    if case.global_offset:
        case = dataclasses.replace(case, global_offset=None)
    for round_ in range(ROUNDS):
        rng, seed_note = _rng(case.name, round_)
        launch = case.draw(rng)
        where = f"{case.name}, {seed_note}, global {launch.global_size} local {launch.local_size}"
        results = {backend: run_on(backend, case, launch) for backend in BACKENDS}
        failures = [f"{backend}: {f}" for backend, out in results.items() for f in case.check(launch, out)]
        failures += [
            message
            for name in corpus.output_names(launch)
            if (message := disagreements(case, launch, results["sim"][name], results["pocl"][name], name))
        ]
        assert not failures, f"{where}:\n  " + "\n  ".join(failures)


def test_the_comparison_catches_a_difference() -> None:
    """One ulp apart is a disagreement for an exact output and not for a tolerant one; a sentinel left unwritten
    by one backend only is one for both."""
    exact_case = corpus.CASES_BY_NAME["vector_add"]  # c: correctly rounded (ulp 0.5)
    launch = exact_case.draw(np.random.default_rng(0))
    inputs = exact_case.inputs(launch)
    ref = np.asarray(exact_case.reference(inputs)["c"]).astype(np.float32)
    nudged = ref.copy()
    nudged[3] = np.nextafter(nudged[3], np.float32(np.inf))
    assert disagreements(exact_case, launch, ref, ref.copy(), "c") == ""
    assert disagreements(exact_case, launch, ref, nudged, "c") == ""  # within 2 x half an ulp
    twice = nudged.copy()
    twice[3] = np.nextafter(np.nextafter(twice[3], np.float32(np.inf)), np.float32(np.inf))
    assert "1 of" in disagreements(exact_case, launch, ref, twice, "c")
    unwritten = ref.copy()
    unwritten[5] = np.nan
    assert "1 of" in disagreements(exact_case, launch, ref, unwritten, "c")
    int_case = corpus.CASES_BY_NAME["histogram_global"]
    launch = int_case.draw(np.random.default_rng(0))
    (name,) = corpus.output_names(launch)
    arg = launch.args[name]
    assert isinstance(arg, Buffer)
    out = np.asarray(int_case.reference(int_case.inputs(launch))[name]).astype(arg.array.dtype)
    off = out.copy()
    off.reshape(-1)[0] += 1
    assert disagreements(int_case, launch, out, out.copy(), name) == ""
    assert "1 of" in disagreements(int_case, launch, out, off, name)
