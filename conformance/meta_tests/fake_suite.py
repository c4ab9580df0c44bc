"""A stand-in suite whose tests fail on purpose, and ``wia-conformance`` pointed at it.

``python -m conformance.meta_tests.fake_suite DIR [wia-conformance arguments]`` runs the real command line and
plugin with ``DIR`` as the suite's folder, so the meta tests can watch failures, suite errors and replays without
breaking a backend. :func:`write` puts the fake modules into ``DIR``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from conformance import cli, plugin

MODULE = """
import pytest
from hypothesis import Phase, given, settings, strategies as st

import wia_hal as wia
from conformance import strategies as hh


@pytest.mark.req("R-3.7-01")
def test_passes():
    pass


@pytest.mark.req("R-3.7-01")
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_parametrized(n):
    pass


@pytest.mark.req("R-3.7-99")
def test_names_no_requirement_of_the_spec():
    pass


@pytest.mark.req("R-3.7-02")
def test_assertion_fails():
    pytest.fail("got 1, but should be 2 [fake()]")


@pytest.mark.req("R-3.7-03")
def test_wia_error_escapes():
    raise wia.InvalidValueError("raised where it should not")


@pytest.mark.req("R-3.7-04")
def test_suite_breaks():
    wia.no_such_function()


@pytest.mark.req("R-3.7-05")
def test_not_supported():
    pytest.skip("not supported: supports_fake is False")


@pytest.mark.req("R-3.8-01")
def test_fixture_breaks(broken):
    pass


@pytest.mark.req("R-3.8-02")
@settings(hh.suite_settings(), phases=[Phase.explicit, Phase.generate])  # no shrinking: the example is the seed's
@given(st.integers(0, 2**30))
def test_hypothesis_fails(x):
    assert x % 8 == 0, f"got {x}, but should be a multiple of 8 [fake({x})]"
"""

CONFTEST = """
import pytest


@pytest.fixture
def broken():
    raise RuntimeError("the fixture broke")
"""


def write(folder: Path) -> None:
    """The fake suite: one module of section 3.7 (each outcome, a parametrized test, a test tagged with an ID
    SPEC.md does not have) and a conftest with a broken fixture."""
    (folder / "test_3_7_fake.py").write_text(MODULE, encoding="utf-8")
    (folder / "conftest.py").write_text(CONFTEST, encoding="utf-8")


def main(argv: list[str]) -> int:
    suite = Path(argv[0]).resolve()
    plugin.SUITE_DIR = cli.SUITE_DIR = suite
    return cli.main(argv[1:])


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
