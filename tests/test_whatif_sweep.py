"""Sweeps (wia_whatif.sweep): the grid's points and order, and the executors giving the same rows (but wall_s)."""

from __future__ import annotations

import importlib.util

import pytest

import wia_hal as wia
from wia_whatif.sweep import Point, Sweep, _point, parse_values, run_sweep
from wia_whatif.workload import RunReport

TINY = "wia-tiny"


def _rows(reports: list[RunReport]) -> list[dict[str, object]]:
    return [r.model_dump(exclude={"wall_s"}) for r in reports]


def test_the_grid_is_hardware_by_varied_fields_by_parameters_in_order() -> None:
    sweep = Sweep(
        workload="mlp",
        hardware=["a", "b"],
        set={"memory.size": "2x"},
        vary={"memory.bandwidth": ["1x", "2x"], "compute.compute_units": ["4", "8"]},
        params={"batch": ["8", "16"]},
    )
    points = sweep.points()
    assert len(points) == 2 * 2 * 2 * 2
    assert points[0] == Point(
        hardware="a",
        overrides={"memory.size": "2x", "memory.bandwidth": "1x", "compute.compute_units": "4"},
        params={"batch": "8"},
    )
    assert [p.params["batch"] for p in points[:2]] == ["8", "16"]  # the last varies fastest
    assert [p.overrides["compute.compute_units"] for p in points[:4]] == ["4", "4", "8", "8"]
    assert {p.hardware for p in points[:8]} == {"a"}
    assert Sweep(workload="mlp").points() == [Point(hardware=None)]  # the sim backend's own model


@pytest.mark.parametrize(
    ("sweep", "expected"),
    [
        (Sweep(workload="mlp", vary={"memory.size": []}), "memory.size is varied over no values"),
        (Sweep(workload="mlp", set={"memory.size": "2x"}, vary={"memory.size": ["1x"]}), "both set and varied"),
    ],
)
def test_a_bad_grid_is_an_error(sweep: Sweep, expected: str) -> None:
    with pytest.raises(wia.InvalidValueError, match=expected):
        sweep.points()


def test_parameters_and_the_workload_are_checked_before_any_point_runs() -> None:
    with pytest.raises(wia.InvalidValueError, match="batch"):
        run_sweep(Sweep(workload="mlp", hardware=[TINY], params={"batch": ["8", "lots"]}), workers=1)
    with pytest.raises(wia.InvalidValueError, match=r"no workload 'mpl' \(did you mean 'mlp'"):
        run_sweep(Sweep(workload="mpl", hardware=[TINY]))
    with pytest.raises(wia.InvalidValueError, match="no executor 'threads'"):
        run_sweep(Sweep(workload="mlp", hardware=[TINY]), executor="threads")  # type: ignore[arg-type]


def test_values_split_at_commas_outside_brackets() -> None:
    assert parse_values("54,108, 216") == ["54", "108", "216"]
    assert parse_values("[4, 4],[2, 8]") == ["[4, 4]", "[2, 8]"]
    with pytest.raises(wia.InvalidValueError, match="an empty value"):
        parse_values("1,,2")


SMALL = Sweep(
    workload="mlp",
    preset="tiny",
    hardware=[TINY, "nvidia-h100-sxm5-80gb"],
    vary={"memory.bandwidth": ["1x", "3x"]},
    params={"batch": ["8", "16"]},
)


def test_worker_processes_give_the_rows_of_an_in_process_run_in_grid_order() -> None:
    seen: list[tuple[int, int]] = []
    here = run_sweep(SMALL, workers=1, progress=lambda done, total, _: seen.append((done, total)))
    assert seen == [(i, 8) for i in range(1, 9)]
    assert [(r.hardware, r.overrides["memory.bandwidth"], r.params["batch"]) for r in here] == [
        (p.hardware, p.overrides["memory.bandwidth"], int(p.params["batch"])) for p in SMALL.points()
    ]
    assert all(r.preset == "tiny" and r.fits for r in here)
    fast, slow = here[6], here[4]  # the H100 at 3x and 1x bandwidth, batch 8
    assert fast.step_time_ms is not None and slow.step_time_ms is not None and fast.step_time_ms <= slow.step_time_ms
    assert _rows(run_sweep(SMALL, workers=2)) == _rows(here)


def test_a_points_error_names_the_point() -> None:
    bad = Sweep(workload="mlp", preset="tiny", hardware=[TINY], vary={"memory.bandwith": ["2x"]})
    with pytest.raises(wia.InvalidValueError, match=r"wia-tiny memory\.bandwith=2x: .*unknown field"):
        run_sweep(bad, workers=1)
    code, message = _point(bad, bad.points()[0])  # what a worker sends back: its code and message cross processes
    assert code == "INVALID_VALUE" and "unknown field" in message


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="Ray is not installed (pip install 'wia[ray]')")
def test_the_ray_executor_gives_the_same_rows() -> None:
    sweep = SMALL.model_copy(update={"hardware": [TINY]})
    assert _rows(run_sweep(sweep, executor="ray")) == _rows(run_sweep(sweep, workers=1))


def test_without_ray_the_ray_executor_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    with pytest.raises(wia.NotSupportedError, match=r"pip install 'wia\[ray\]'"):
        run_sweep(SMALL, executor="ray")
