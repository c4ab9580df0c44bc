import pytest

from wia_sim.units import parse_quantity


@pytest.mark.parametrize(
    ("text", "dimension", "value"),
    [
        ("2039 GB/s", "bandwidth", 2039e9),
        ("16 GiB/s", "bandwidth", 16 * 2**30),
        ("80 GiB", "size", 80 * 2**30),
        ("40MB", "size", 40e6),
        ("2.5 us", "duration", 2.5e-6),
        ("1e-3 s", "duration", 1e-3),
        ("1410 MHz", "frequency", 1410e6),
        ("312 TFLOP/s", "flop_rate", 312e12),
        ("624 TOP/s", "flop_rate", 624e12),
    ],
)
def test_parses_value_and_unit(text: str, dimension: str, value: float) -> None:
    assert parse_quantity(text, dimension) == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "dimension", "fragment"),
    [
        ("3 GHz", "bandwidth", "got unit 'GHz'"),
        (2039, "bandwidth", "without a unit"),
        ("fast", "duration", "got 'fast'"),
        ("12 parsecs", "size", "got unit 'parsecs'"),
    ],
)
def test_wrong_or_missing_unit_names_what_was_expected(text: object, dimension: str, fragment: str) -> None:
    with pytest.raises(ValueError, match="expected a") as info:
        parse_quantity(text, dimension)
    assert fragment in str(info.value)
