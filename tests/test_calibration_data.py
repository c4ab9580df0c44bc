"""The calibration set (docs/fidelity/calibration.csv) is data others can audit, and benchmarks/fidelity.py's
cross-validation never lets a row's own source into the fit that predicts it."""

from __future__ import annotations

import csv
from pathlib import Path
from types import ModuleType

import pytest

from wia_sim.hwmodel import available_models, available_systems

ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "docs" / "fidelity" / "calibration.csv"


def test_every_row_says_where_it_comes_from_and_how_it_was_measured() -> None:
    with CSV.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) >= 150
    known = set(available_models()) | set(available_systems())  # a row names a device model or a system
    for line, r in enumerate(rows, start=2):
        assert r["device"] in known, f"line {line}: unknown device or system {r['device']}"
        assert r["source"].strip() and r["method"].strip(), f"line {line}: a row needs its source and method"
        assert float(r["measured"]) > 0, f"line {line}"
        assert r["unit"] in ("TFLOP/s", "GB/s", "TB/s", "s", "ms", "us"), f"line {line}: unit {r['unit']}"
    assert len({r["device"] for r in rows}) >= 6


def test_cross_validation_predicts_a_source_without_its_rows(tmp_path: Path, fidelity: ModuleType) -> None:
    header = "device,op,dtype,m,n,k,size_bytes,measured,unit,method,source\n"
    # one source says the A100 streams at 1000 GB/s, another at 1700 GB/s: each is predicted from the other
    data = header + "".join(
        f"nvidia-a100-sxm4-80gb,stream_triad,float64,{1 << 26},,,,{rate},GB/s,best of a sweep,{source} table\n"
        for rate, source in ((1000, "a/one"), (1700, "b/two"))
    )
    path = tmp_path / "rows.csv"
    path.write_text(data)
    results, _ = fidelity.evaluate(fidelity.read_rows(path))
    by_source = {r.row.publication: r for r in results}
    slow, fast = by_source["a/one"], by_source["b/two"]
    # in-sample, both rows share one fitted efficiency; cross-validated, each gets the other's
    assert slow.in_sample == pytest.approx(fast.in_sample)
    assert slow.cross_validated == pytest.approx(fidelity.measured_seconds(fast.row), rel=0.02)
    assert fast.cross_validated == pytest.approx(fidelity.measured_seconds(slow.row), rel=0.02)
