"""The suite's helpers do what they claim: assertion messages, tolerances, strategies and references. Run with
``pytest conformance/meta_tests`` (no backend is used). Requirements, verdicts, reports, the plugin and the command
line have their own meta tests (``test_requirements.py``, ``test_report.py``, ``test_plugin.py``, ``test_cli.py``)."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import find, given
from hypothesis import strategies as st

import wia_hal as wia
from conformance import assertions as ph
from conformance import report as rp
from conformance import strategies as hh

MESSAGE_SHAPE = re.compile(r"got .+, but should be .+ \[.+\]", re.S)

CAPS_FIELDS: dict[str, Any] = {
    "supports_float16": False,
    "supports_bfloat16": False,
    "supports_int8": False,
    "supports_float64": False,
    "supports_unified_memory": False,
    "supports_peer_to_peer": False,
    "supports_managed_memory": False,
    "supports_pinned_memory": False,
    "supports_custom_kernels": False,
    "supports_profiling": False,
    "max_work_group_size": 256,
    "max_shared_memory": 49152,
    "max_streams": 8,
}


def make_caps(**claims: bool) -> wia.DeviceCapabilities:
    return wia.DeviceCapabilities(**{**CAPS_FIELDS, **claims})


def make_info(memory_size: int) -> wia.DeviceInfo:
    return wia.DeviceInfo(
        name="meta",
        vendor="meta",
        type=wia.DeviceType.OTHER,
        compute_units=1,
        memory_size=memory_size,
        memory_bandwidth=1e9,
        peak_flops=1e9,
        peak_flops_by_precision={"float32": 1e9},
    )


def failure_message(fn: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(pytest.fail.Exception) as excinfo:
        fn(*args, **kwargs)
    return str(excinfo.value)


# -- assertion helpers ----------------------------------------------------------------------------------------------


def test_fail_has_the_one_message_shape() -> None:
    text = failure_message(ph.fail, "1", "2", "f(x)")
    assert text == "got 1, but should be 2 [f(x)]"


def test_assert_equal() -> None:
    ph.assert_equal(3, 3, "f()")
    text = failure_message(ph.assert_equal, 3, 4, "f()")
    assert text == "got 3, but should be 4 [f()]"


def test_assert_int_rejects_bools_and_small_values() -> None:
    ph.assert_int(5, "n", minimum=0)
    assert MESSAGE_SHAPE.fullmatch(failure_message(ph.assert_int, True, "n"))
    assert "an int >= 1" in failure_message(ph.assert_int, 0, "n", minimum=1)


def test_assert_positive_number() -> None:
    ph.assert_positive_number(1.5, "x")
    for bad in (0, -1.0, float("nan"), float("inf"), "1", True):
        assert MESSAGE_SHAPE.fullmatch(failure_message(ph.assert_positive_number, bad, "x"))


def _raises(error: BaseException) -> Any:
    def fn(*args: Any, **kwargs: Any) -> None:
        raise error

    return fn


def test_assert_raises_code_passes_and_returns_the_error() -> None:
    error = wia.InvalidValueError("bad size")
    got = ph.assert_raises_code(wia.ErrorCode.INVALID_VALUE, _raises(error), 1)
    assert got is error
    got = ph.assert_raises_code((wia.ErrorCode.INVALID_DEVICE, wia.ErrorCode.INVALID_VALUE), _raises(error))
    assert got is error


@pytest.mark.parametrize(
    ("fn", "expected"),
    [
        (lambda *a, **k: 7, "got no error (returned 7), but should be WiaError INVALID_VALUE"),
        (_raises(KeyError("k")), "got KeyError: 'k', but should be WiaError INVALID_VALUE"),
        (_raises(wia.OutOfMemoryError("full")), "got OutOfMemoryError with code <ErrorCode.OUT_OF_MEMORY: 8>: full"),
        (_raises(wia.InvalidValueError("")), "got an empty message, but should be a message that says what is wrong"),
        (_raises(wia.InvalidValueError("   ")), "got an empty message"),
    ],
    ids=["no-error", "other-exception", "wrong-code", "empty-message", "blank-message"],
)
def test_assert_raises_code_failures(fn: Any, expected: str) -> None:
    text = failure_message(ph.assert_raises_code, wia.ErrorCode.INVALID_VALUE, fn, 1, key="v")
    assert MESSAGE_SHAPE.fullmatch(text), text
    assert text.startswith(expected), text
    assert text.endswith("(1, key='v')]"), text


def test_assert_raises_code_checks_the_subclass() -> None:
    class Impostor(wia.WiaError):  # the right code on the wrong class
        code = wia.ErrorCode.INVALID_VALUE

    text = failure_message(ph.assert_raises_code, wia.ErrorCode.INVALID_VALUE, _raises(Impostor("x")))
    assert "public subclass for INVALID_VALUE (InvalidValueError)" in text


def test_error_classes_cover_every_code_but_success() -> None:
    classes = ph.error_classes()
    assert set(classes) == set(wia.ErrorCode) - {wia.ErrorCode.SUCCESS}
    assert all(cls.code is code for code, cls in classes.items())


def test_assert_message_mentions() -> None:
    error = ValueError("shapes (2, 3) and (4,) do not broadcast")
    ph.assert_message_mentions(error, [ph.shape_spellings((2, 3)), ph.shape_spellings((4,))], "add")
    text = failure_message(ph.assert_message_mentions, error, [["(5,)", "[5]"]], "add")
    assert MESSAGE_SHAPE.fullmatch(text)


def test_shape_spellings() -> None:
    assert ph.shape_spellings((2, 3)) == ["(2, 3)", "[2, 3]", "2x3"]
    assert ph.shape_spellings(()) == ["()", "[]"]


def test_tolerance_table_covers_every_dtype() -> None:
    assert {d.name for d in hh.ALL_DTYPES} == set(ph.TOLERANCES)
    assert ph.TOLERANCES["float32"].rtol == 1e-6
    assert ph.TOLERANCES["float16"].rtol == 1e-3
    assert ph.TOLERANCES["bfloat16"].rtol == 1e-2
    for name in ("int8", "int32", "bool"):
        assert (ph.TOLERANCES[name].rtol, ph.TOLERANCES[name].atol) == (0.0, 0.0)


@pytest.mark.parametrize(("name", "ulps_ok"), [("float32", 1), ("float16", 1), ("bfloat16", 1), ("float64", 1)])
def test_one_ulp_passes_and_a_few_fail(name: str, ulps_ok: int) -> None:
    dtype = np.dtype(getattr(wia, name))
    one = np.ones(3, dtype)
    step = np.nextafter(np.float64(1), np.float64(2)) if name == "float64" else None
    if name in ("float32", "float16"):
        near = np.nextafter(one, np.full(3, 2, dtype))
    elif name == "float64":
        near = np.full(3, step, dtype)
    else:  # bfloat16: 8 bits of mantissa, so the next value above 1 is 1 + 2**-7
        near = np.full(3, 1 + 2.0**-7).astype(dtype)
    ph.assert_array_close(near, one, dtype, "one ulp")
    far = (one.astype(np.float64) * (1 + 4 * ph.TOLERANCES[name].rtol)).astype(dtype)
    assert MESSAGE_SHAPE.fullmatch(failure_message(ph.assert_array_close, far, one, dtype, "far"))


def test_assert_array_close_checks_dtype_shape_and_exact_types() -> None:
    f32 = np.dtype(np.float32)
    assert "dtype float64" in failure_message(ph.assert_array_close, np.zeros(2), np.zeros(2, f32), f32, "c")
    assert "shape (3,)" in failure_message(ph.assert_array_close, np.zeros(3, f32), np.zeros(2, f32), f32, "c")
    i8 = np.dtype(np.int8)
    assert "1 of 2 elements differ" in failure_message(
        ph.assert_array_close, np.array([1, 2], i8), np.array([1, 3], i8), i8, "c"
    )
    ph.assert_array_close(np.zeros((0, 3), f32), np.zeros((0, 3), f32), f32, "empty")
    nan = np.array([np.nan], f32)
    ph.assert_array_close(nan, nan, f32, "NaN where NaN is expected")


def test_ulp_of_follows_the_opencl_definition() -> None:
    f32 = np.dtype(np.float32)
    assert ph.ulp_of(np.array([1.0, 1.5, -3.0]), f32).tolist() == [2.0**-23, 2.0**-23, 2.0**-22]
    # a real value just below a power of two lies in the gap below it
    assert ph.ulp_of(np.array([2.0 - 2.0**-30]), f32).tolist() == [2.0**-23]
    assert ph.ulp_of(np.array([0.0]), f32).tolist() == [float(np.finfo(f32).smallest_subnormal)]


def test_assert_ulp_close() -> None:
    f32 = np.dtype(np.float32)
    exact = np.array([1.0 + 2.0**-25, 3.0, -0.1])
    rounded = exact.astype(f32)
    ph.assert_ulp_close(rounded, exact, f32, 0, "correctly rounded")
    three_off = (rounded.astype(np.float64) + 3 * ph.ulp_of(exact, f32)).astype(f32)
    ph.assert_ulp_close(three_off, exact, f32, 4, "sin(x)")
    text = failure_message(ph.assert_ulp_close, three_off, exact, f32, 2, "sqrt(x)")
    assert MESSAGE_SHAPE.fullmatch(text) and "within 2 ulp" in text and "[sqrt(x)]" in text
    assert "dtype float64" in failure_message(ph.assert_ulp_close, exact, exact, f32, 1, "c")
    nan = np.array([np.nan], f32)
    assert "1 of 1 elements off" in failure_message(ph.assert_ulp_close, nan, np.array([1.0]), f32, 1, "c")


def test_requires_work_group_skips_as_not_supported() -> None:
    ph.requires_work_group(256, make_caps())  # max_work_group_size 256: runs
    with pytest.raises(pytest.skip.Exception) as excinfo:
        ph.requires_work_group(257, make_caps())
    assert rp.classify_skip(str(excinfo.value)) == "not supported"
    assert "max_work_group_size is 256" in str(excinfo.value)


def test_assert_bytes_equal() -> None:
    data = np.arange(10, dtype=np.uint8)
    ph.assert_bytes_equal(data.copy(), data, "copy")
    changed = data.copy()
    changed[4] = 99
    text = failure_message(ph.assert_bytes_equal, changed, data, "copy")
    assert "first at byte 4: 99" in text and MESSAGE_SHAPE.fullmatch(text)


def test_round_to() -> None:
    ref = np.array([0.0, 1.0, 2.0, -3.0])
    assert ph.round_to(ref, np.dtype(np.bool_)).tolist() == [False, True, True, True]
    assert ph.round_to(ref, np.dtype(np.int8)).dtype == np.int8
    with pytest.raises(ValueError, match="range of int8"):
        ph.round_to(np.array([200.0]), np.dtype(np.int8))
    assert ph.round_to(np.array([1 / 3]), np.dtype(np.float16))[0] == np.float16(1 / 3)


def test_requires_skips_as_not_supported() -> None:
    caps = make_caps(supports_pinned_memory=True)
    ph.requires("supports_pinned_memory", caps)
    with pytest.raises(pytest.skip.Exception) as excinfo:
        ph.requires("supports_unified_memory", caps)
    assert str(excinfo.value).startswith("not supported: supports_unified_memory")
    with pytest.raises(ValueError, match="not a capability flag"):
        ph.requires("supports_teleportation", caps)


def test_requires_fault_injection_skips_as_not_applicable() -> None:
    ph.requires_fault_injection(make_caps(supports_fault_injection=True))
    with pytest.raises(pytest.skip.Exception) as excinfo:
        ph.requires_fault_injection(make_caps())
    assert str(excinfo.value).startswith(ph.NOT_APPLICABLE_PREFIX)
    assert rp.classify_skip(str(excinfo.value)) == "not applicable"


def test_requires_memory_and_dtype() -> None:
    caps = make_caps(supports_float16=True)
    for memory_type in (wia.MemoryType.DEVICE, wia.MemoryType.HOST):
        ph.requires_memory(memory_type, caps)
    with pytest.raises(pytest.skip.Exception, match=r"^not supported: supports_managed_memory"):
        ph.requires_memory(wia.MemoryType.MANAGED, caps)
    ph.requires_dtype(np.dtype(np.float32), caps)
    ph.requires_dtype(np.dtype(np.float16), caps)
    with pytest.raises(pytest.skip.Exception, match=r"^not supported: supports_bfloat16"):
        ph.requires_dtype(np.dtype(wia.bfloat16), caps)


def test_claimed_types() -> None:
    caps = make_caps(supports_int8=True, supports_unified_memory=True)
    assert [d.name for d in ph.claimed_dtypes(caps)] == ["float32", "int32", "int8"]
    assert ph.claimed_memory_types(caps) == [wia.MemoryType.DEVICE, wia.MemoryType.HOST, wia.MemoryType.UNIFIED]
    assert set(ph.CAPABILITY_FLAGS) <= set(wia.DeviceCapabilities.model_fields)


def test_is_req_id() -> None:
    assert ph.is_req_id("R-3.4.1-01") and ph.is_req_id("R-3.10-04")
    assert not ph.is_req_id("R-3.4.1") and not ph.is_req_id("3.4.1-01") and not ph.is_req_id("R-3.4.1-1")


# -- strategies -----------------------------------------------------------------------------------------------------


@given(hh.shapes())
def test_shapes_stay_in_bounds(shape: tuple[int, ...]) -> None:
    assert len(shape) <= 3 and all(0 <= d <= 4 for d in shape)


def test_shapes_include_the_edge_cases() -> None:
    assert find(hh.shapes(), lambda s: len(s) == 0) == ()
    assert 0 in find(hh.shapes(), lambda s: 0 in s)
    assert 1 in find(hh.shapes(), lambda s: 1 in s)


@given(hh.broadcastable_shape_pairs())
def test_broadcastable_pairs_broadcast(pair: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    np.broadcast_shapes(*pair)


def test_broadcastable_pairs_include_real_broadcasting() -> None:
    a, b = find(hh.broadcastable_shape_pairs(), lambda p: p[0] != p[1] and len(p[0]) > 0 and len(p[1]) > 0)
    assert np.broadcast_shapes(a, b) in (a, b) or len(np.broadcast_shapes(a, b)) >= max(len(a), len(b))


@given(hh.non_broadcastable_shape_pairs())
def test_non_broadcastable_pairs_do_not_broadcast(pair: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    with pytest.raises(ValueError):
        np.broadcast_shapes(*pair)


@pytest.mark.parametrize("dtype", hh.ALL_DTYPES, ids=[d.name for d in hh.ALL_DTYPES])
@given(data=st.data())
def test_arrays_have_the_dtype_shape_and_safe_values(dtype: np.dtype[Any], data: st.DataObject) -> None:
    shape = data.draw(hh.shapes())
    x = data.draw(hh.arrays(dtype, shape))
    assert x.dtype == dtype and x.shape == shape
    if dtype.name == "bool" or x.size == 0:
        return
    wide = x.astype(np.float64)
    assert np.isfinite(wide).all()
    assert np.abs(wide).max() <= hh.MAGNITUDE[dtype.name]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        assert info.min <= (wide * wide).min() and (wide * wide).max() <= info.max
        assert info.min <= (wide + wide).min() and (wide + wide).max() <= info.max
    else:
        with np.errstate(over="ignore"):
            assert np.isfinite((wide * wide).astype(dtype)).all()


@given(data=st.data())
def test_dtypes_are_the_claimed_ones(data: st.DataObject) -> None:
    caps = make_caps(supports_bfloat16=True)
    assert data.draw(hh.dtypes(caps)).name in {"float32", "int32", "bfloat16"}


@given(hh.byte_sizes(4096))
def test_byte_sizes_are_positive_ints(size: int) -> None:
    assert isinstance(size, int) and 1 <= size <= 4096


def test_work_bytes_scales_to_the_device() -> None:
    assert hh.work_bytes(make_info(80 << 30)) == 256 * hh.MiB
    assert hh.work_bytes(make_info(64 * hh.MiB)) == 8 * hh.MiB
    assert hh.work_bytes(make_info(1 * hh.MiB)) == 128 * hh.KiB
    assert hh.work_bytes(make_info(256 * hh.KiB)) == 64 * hh.KiB  # never below 64 KiB


def test_suite_settings_follow_the_seed_option() -> None:
    try:
        hh.configure(None)
        assert hh.suite_settings().derandomize and hh.suite_settings().max_examples == hh.MAX_EXAMPLES
        hh.configure("1234")
        assert not hh.suite_settings().derandomize
    finally:
        hh.configure(None)


# -- numerics: slack, exact comparison, accumulation bounds, precisions ----------------------------------------------


def test_tolerance_table_knows_the_smallest_normals() -> None:
    for name in ("float64", "float32", "float16"):
        assert ph.TOLERANCES[name].tiny == float(np.finfo(np.dtype(name)).tiny)
    assert ph.TOLERANCES["bfloat16"].tiny == ph.TOLERANCES["float32"].tiny  # the same exponent range
    for name in ("int8", "int32", "bool"):
        assert ph.TOLERANCES[name].tiny == 0.0


def test_assert_array_close_slack() -> None:
    f32 = np.dtype(np.float32)
    expected = np.array([0.0, 1.0], f32)
    got = np.array([0.01, 1.0], f32)
    assert MESSAGE_SHAPE.fullmatch(failure_message(ph.assert_array_close, got, expected, f32, "s"))
    ph.assert_array_close(got, expected, f32, "s", slack=0.02)
    ph.assert_array_close(got, expected, f32, "s", slack=np.array([0.02, 0.0]))
    text = failure_message(ph.assert_array_close, got, expected, f32, "s", slack=np.array([0.001, 1.0]))
    assert "slack there 0.001" in text and MESSAGE_SHAPE.fullmatch(text)
    i32 = np.dtype(np.int32)
    ph.assert_array_close(np.array([3], i32), np.array([2], i32), i32, "int with slack", slack=1.0)
    assert "1 of 1" in failure_message(ph.assert_array_close, np.array([3], i32), np.array([2], i32), i32, "exact")


def test_assert_array_equal() -> None:
    f16 = np.dtype(np.float16)
    ph.assert_array_equal(np.array([-0.0, 1.5], f16), np.array([0.0, 1.5], f16), "eq")
    one_ulp = np.nextafter(np.float16(1.5), np.float16(2))
    text = failure_message(ph.assert_array_equal, np.array([0.0, one_ulp], f16), np.array([0.0, 1.5], f16), "eq")
    assert "first at (1,)" in text and MESSAGE_SHAPE.fullmatch(text)
    assert "dtype float32" in failure_message(ph.assert_array_equal, np.zeros(2, np.float32), np.zeros(2, f16), "eq")
    assert "shape (3,)" in failure_message(ph.assert_array_equal, np.zeros(3, f16), np.zeros(2, f16), "eq")
    assert "a numpy array" in failure_message(ph.assert_array_equal, [0.0, 0.0], np.zeros(2, f16), "eq")


def test_accumulation_bound() -> None:
    assert ph.accumulation_bound(0, "float32") == 0.0
    eps = 2.0**-23
    assert ph.accumulation_bound(10, "float32") == pytest.approx(10 * eps / (1 - 10 * eps))
    assert ph.accumulation_bound(10**6, "int32") == 0.0
    with pytest.raises(ValueError, match="meaningless"):
        ph.accumulation_bound(64, "bfloat16")
    assert [ph.accumulator_of(np.dtype(getattr(wia, n))) for n in ("float16", "bfloat16", "float32")] == ["float32"] * 3
    assert ph.accumulator_of(np.dtype(np.float64)) == "float64"
    assert {ph.accumulator_of(np.dtype(n)) for n in ("int8", "int32", "bool")} == {"int32"}


def test_assert_reduction_close_scales_with_length_and_magnitude() -> None:
    rng = np.random.default_rng(0)
    f32, f16 = np.dtype(np.float32), np.dtype(np.float16)
    x = rng.uniform(-1, 1, 1000).astype(f32)
    x[0] = 0.9
    x64 = x.astype(np.float64)
    naive = np.float32(0)
    for v in x:  # recursive float32 summation: the worst order the bound allows
        naive = np.float32(naive + v)
    expected = np.array(x64.sum()).astype(f32)
    magnitude = np.abs(x64).sum()
    ph.assert_reduction_close(np.array(naive), expected, f32, "naive", magnitude=magnitude, terms=1000)
    dropped = np.array(x64[1:].sum()).astype(f32)  # one term left out: 0.9 against a bound of about 0.06
    text = failure_message(ph.assert_reduction_close, dropped, expected, f32, "drop", magnitude=magnitude, terms=1000)
    assert MESSAGE_SHAPE.fullmatch(text)
    # cancellation: the exact sum is 0, the float16 data summed in float32 still is within the bound
    y = np.array([1000.0, 1e-3, -1000.0], f16)
    got = np.array(np.float32(np.float32(y[0]) + np.float32(y[1])) + np.float32(y[2])).astype(f16)
    exact = np.array(y.astype(np.float64).sum()).astype(f16)
    ph.assert_reduction_close(got, exact, f16, "cancel", magnitude=np.abs(y.astype(np.float64)).sum(), terms=3)
    # inputs rounded to a narrower arithmetic: 1 + 2**-12 read as 1.0 by a 10-bit mantissa
    exact_value = np.array(1 + 2.0**-12, f32)
    read = np.array(1.0, f32)
    text = failure_message(ph.assert_reduction_close, read, exact_value, f32, "r", magnitude=1.0, terms=1)
    assert MESSAGE_SHAPE.fullmatch(text)
    ph.assert_reduction_close(read, exact_value, f32, "r", magnitude=1.0, terms=1, input_eps=2.0**-10)


def test_precision_rules_cover_every_precision() -> None:
    assert set(ph.PRECISION_RULES) == {p.name for p in wia.Precision}
    for rules in ph.PRECISION_RULES.values():
        for data, (arithmetic, result) in rules.items():
            assert data in ph.TOLERANCES and result in ph.TOLERANCES
            assert arithmetic in ph.ARITHMETIC_EPS
    for dtype, precision in ph.DEFAULT_PRECISION.items():
        assert dtype in ph.PRECISION_RULES[precision]
    assert set(ph.DEFAULT_PRECISION) == {"float32", "float16", "bfloat16", "int8", "float64"}
    assert ph.ARITHMETIC_EPS["tf32"] == 2.0**-10  # a 10-bit mantissa
    assert ph.matrix_arithmetic(np.dtype(np.int8)) == ("int8", np.dtype(np.int32))
    assert ph.matrix_arithmetic(np.dtype(np.float32), "MIXED") == ("bfloat16", np.dtype(np.float32))
    assert ph.matrix_arithmetic(np.dtype(np.float16), "FP16") == ("float16", np.dtype(np.float16))


def test_input_eps() -> None:
    f32, f16 = np.dtype(np.float32), np.dtype(np.float16)
    assert ph.input_eps(f32, "float32") == 0.0 and ph.input_eps(f16, "float16") == 0.0
    assert ph.input_eps(f16, "float32") == 0.0 and ph.input_eps(np.dtype(np.int8), "int8") == 0.0
    assert ph.input_eps(f32, "tf32") == 2.0**-10 and ph.input_eps(f32, "bfloat16") == 2.0**-7
    assert ph.input_eps(f16, "float8") == 2.0**-3


def test_requires_arithmetic_checks_truthfulness() -> None:
    info = make_info(1 << 30)  # lists float32 only

    def raises_not_supported(*args: Any) -> None:
        raise wia.NotSupportedError("no tf32 here")

    ph.requires_arithmetic(info, "float32", lambda: None)
    with pytest.raises(pytest.skip.Exception, match=r"^not supported: peak_flops_by_precision\['tf32'\]"):
        ph.requires_arithmetic(info, "tf32", raises_not_supported)
    text = failure_message(ph.requires_arithmetic, info, "tf32", lambda: 1)
    assert "should be WiaError NOT_SUPPORTED" in text


# -- references -----------------------------------------------------------------------------------------------------


def _conv_by_loops(
    x: np.ndarray,
    w: np.ndarray,
    padding: tuple[int, int],
    stride: tuple[int, int],
    dilation: tuple[int, int],
    groups: int,
) -> np.ndarray:
    """The convolution one output element at a time, straight from the definition."""
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    oh = (h + 2 * padding[0] - dilation[0] * (kh - 1) - 1) // stride[0] + 1
    ow = (wd + 2 * padding[1] - dilation[1] * (kw - 1) - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow))
    for b in range(n):
        for f in range(o):
            g = f // (o // groups)
            for i in range(oh):
                for j in range(ow):
                    total = 0.0
                    for ci in range(cg):
                        for p in range(kh):
                            for q in range(kw):
                                r = i * stride[0] + p * dilation[0] - padding[0]
                                s = j * stride[1] + q * dilation[1] - padding[1]
                                if 0 <= r < h and 0 <= s < wd:
                                    total += float(x[b, g * cg + ci, r, s]) * float(w[f, ci, p, q])
                    out[b, f, i, j] = total
    return out


@given(case=hh.conv_cases(), seed=st.integers(0, 2**16))
def test_conv2d_reference_is_the_definition(case: hh.ConvCase, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(-3, 4, case.input_shape).astype(np.float64)
    w = rng.integers(-3, 4, case.weight_shape).astype(np.float64)
    got = ph.conv2d_reference(x, w, **case.config)
    assert np.array_equal(got, _conv_by_loops(x, w, case.padding, case.stride, case.dilation, case.groups))
    bias = rng.integers(-3, 4, case.weight_shape[0]).astype(np.float64)
    with_bias = ph.conv2d_reference(x, w, bias=bias, **case.config)
    assert np.array_equal(with_bias, got + bias.reshape(1, -1, 1, 1))


def test_conv2d_reference_identity_kernel() -> None:
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
    w = np.zeros((3, 1, 3, 3))
    w[:, 0, 1, 1] = 1.0
    assert np.array_equal(ph.conv2d_reference(x, w, padding=(1, 1), groups=3), x)


def _pool_by_loops(
    x: np.ndarray, kind: str, kernel: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int]
) -> np.ndarray:
    n, c, h, w = x.shape
    oh, ow = (h + 2 * padding[0] - kernel[0]) // stride[0] + 1, (w + 2 * padding[1] - kernel[1]) // stride[1] + 1
    out = np.zeros((n, c, oh, ow))
    for b in range(n):
        for ch in range(c):
            for i in range(oh):
                for j in range(ow):
                    values = []
                    for p in range(kernel[0]):
                        for q in range(kernel[1]):
                            r, s = i * stride[0] + p - padding[0], j * stride[1] + q - padding[1]
                            inside = 0 <= r < h and 0 <= s < w
                            values.append(float(x[b, ch, r, s]) if inside else (-np.inf if kind == "MAX" else 0.0))
                    out[b, ch, i, j] = max(values) if kind == "MAX" else sum(values) / len(values)
    return out


@given(case=hh.pool_cases(), kind=st.sampled_from(["MAX", "AVG"]), seed=st.integers(0, 2**16))
def test_pool2d_reference_is_the_definition(case: hh.PoolCase, kind: str, seed: int) -> None:
    x = np.random.default_rng(seed).integers(-9, 10, case.input_shape).astype(np.float64)
    stride = case.stride if case.stride is not None else case.kernel_size
    got = ph.pool2d_reference(x, kind, case.kernel_size, case.stride, case.padding)
    assert np.allclose(got, _pool_by_loops(x, kind, case.kernel_size, stride, case.padding), rtol=1e-15, atol=0)
    assert np.isfinite(got).all()


def _winograd_float32(x: np.ndarray, w: np.ndarray, padding: tuple[int, int]) -> np.ndarray:
    """Winograd F(2x2, 3x3) in float32 (Lavin and Gray 2016), one group."""
    bt = np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], np.float32)
    g = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], np.float32)
    at = np.array([[1, 1, 1, 0], [0, 1, -1, -1]], np.float32)
    n, _, h, wd = x.shape
    o = w.shape[0]
    oh, ow = h + 2 * padding[0] - 2, wd + 2 * padding[1] - 2
    th, tw = -(-oh // 2), -(-ow // 2)
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0], padding[0] + 2 * th - oh), (padding[1], padding[1] + 2 * tw - ow)))
    u = g @ w @ g.T  # (o, c, 4, 4)
    out = np.zeros((n, o, 2 * th, 2 * tw), np.float32)
    for i in range(th):
        for j in range(tw):
            v = bt @ xp[:, :, 2 * i : 2 * i + 4, 2 * j : 2 * j + 4] @ bt.T  # (n, c, 4, 4)
            m = np.einsum("ncab,ocab->noab", v, u).astype(np.float32)
            out[:, :, 2 * i : 2 * i + 2, 2 * j : 2 * j + 2] = at @ m @ at.T
    return out[:, :, :oh, :ow]


class _Result:
    """What ``assert_conv_close`` reads of a tensor."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.shape = values.shape
        self.dtype = values.dtype

    def numpy(self) -> np.ndarray:
        return self.values


@given(case=hh.conv_cases(winograd=True), seed=st.integers(0, 2**16), scale=st.sampled_from([1.0, 1e4]))
def test_winograd_bound_holds_for_a_float32_winograd(case: hh.ConvCase, seed: int, scale: float) -> None:
    if case.groups != 1:  # the float32 Winograd above handles one group
        return
    rng = np.random.default_rng(seed)
    x = (rng.uniform(-1, 1, case.input_shape) * scale).astype(np.float32)
    w = (rng.uniform(-1, 1, case.weight_shape) * scale).astype(np.float32)
    got = _winograd_float32(x, w, case.padding)
    ph.assert_conv_close(_Result(got), x, w, case.config, "winograd", winograd=True)  # type: ignore[arg-type]
    direct = ph.conv2d_reference(np.abs(x), np.abs(w), padding=case.padding)
    assert (ph.winograd_magnitude(x, w, padding=case.padding, groups=1) >= 9 * direct * (1 - 1e-12)).all()


def test_element_wise_references() -> None:
    x = np.array([-1e4, -3.0, 0.0, 1.0, 1e4])
    gelu = ph.gelu_reference(x, "none")
    assert gelu[2] == 0.0 and gelu[3] == pytest.approx(0.8413447460685429, rel=1e-15) and gelu[4] == 1e4
    assert gelu[0] == 0.0 and gelu[1] == pytest.approx(-0.004049694094890287, rel=1e-14)
    tanh = ph.gelu_reference(x, "tanh")
    assert tanh[3] == pytest.approx(0.8411919906082768, rel=1e-15) and np.isfinite(tanh).all()
    sig = ph.sigmoid_reference(x)
    assert sig[2] == 0.5 and sig[4] == 1.0 and sig[0] == 0.0 and np.isfinite(sig).all()
    assert ph.sigmoid_reference(np.array([-30.0]))[0] == pytest.approx(9.357622968840175e-14, rel=1e-14)
    slack = ph.transcendental_slack(np.dtype(np.float32), x, "gelu")
    assert slack.shape == x.shape and slack[2] == ph.TOLERANCES["float32"].tiny


def test_softmax_reference() -> None:
    x = np.array([[1e4, 1e4 - 1, 0.0], [3.0, 3.0, 3.0]], np.float32)
    s, slack = ph.softmax_reference(x, -1, np.dtype(np.float32))
    assert np.allclose(s.sum(axis=-1), 1.0, rtol=0, atol=1e-15) and np.isfinite(s).all()
    assert np.allclose(s[1], 1 / 3) and (slack > 0).all() and (slack[0, :2] < 1e-4 * s[0, :2]).all()
    empty, empty_slack = ph.softmax_reference(np.zeros((2, 0), np.float32), 1, np.dtype(np.float32))
    assert empty.shape == (2, 0) and empty_slack.shape == (2, 0)


# -- op strategies --------------------------------------------------------------------------------------------------


@given(data=st.data())
def test_reduction_axes_are_valid(data: st.DataObject) -> None:
    ndim = data.draw(st.integers(0, 3))
    axis = data.draw(hh.reduction_axes(ndim))
    np.sum(np.zeros((2,) * ndim), axis=axis)  # NumPy accepts it
    if isinstance(axis, tuple):
        assert len({a % ndim for a in axis}) == len(axis)


@given(data=st.data())
def test_reshape_targets_keep_the_size(data: st.DataObject) -> None:
    shape = data.draw(hh.shapes())
    target = data.draw(hh.reshape_targets(shape))
    assert list(target).count(-1) <= 1 and len(target) <= 4
    assert np.zeros(shape).reshape(target).size == int(np.prod(shape))


def test_reshape_targets_include_minus_one() -> None:
    assert -1 in find(hh.shapes(min_dims=2).flatmap(hh.reshape_targets), lambda t: -1 in t)


@given(data=st.data())
def test_slice_bounds_and_concat_cases(data: st.DataObject) -> None:
    shape = data.draw(hh.shapes(min_dims=1))
    start, end = data.draw(hh.slice_bounds(shape))
    assert len(start) == len(end) <= len(shape)
    shapes, axis = data.draw(hh.concat_cases())
    np.concatenate([np.zeros(s) for s in shapes], axis=axis)


@given(hh.matmul_shape_pairs())
def test_matmul_shape_pairs_follow_numpy(pair: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    np.matmul(np.zeros(pair[0]), np.zeros(pair[1]))
    assert pair[0][-1] <= hh.MAX_TERMS


def test_matmul_shape_pairs_include_1d_and_batches() -> None:
    find(hh.matmul_shape_pairs(), lambda p: len(p[0]) == 1 and len(p[1]) >= 3)
    find(hh.matmul_shape_pairs(), lambda p: len(p[0]) >= 3 and len(p[1]) >= 3 and p[0][:-2] != p[1][:-2])


@given(case=hh.conv_cases(), winograd_case=hh.conv_cases(winograd=True))
def test_conv_cases_are_valid(case: hh.ConvCase, winograd_case: hh.ConvCase) -> None:
    out = ph.conv2d_reference(np.zeros(case.input_shape), np.zeros(case.weight_shape), **case.config)
    assert out.size > 0 and case.terms <= hh.MAX_TERMS
    assert winograd_case.weight_shape[2:] == (3, 3) and winograd_case.stride == winograd_case.dilation == (1, 1)
    assert hh.PRODUCT_MAGNITUDE["float16"] ** 2 * hh.MAX_TERMS < 65504


@given(hh.pool_cases())
def test_pool_cases_are_valid(case: hh.PoolCase) -> None:
    assert all(p <= k // 2 for p, k in zip(case.padding, case.kernel_size, strict=True))
    assert ph.pool2d_reference(np.zeros(case.input_shape), "MAX", case.kernel_size, case.stride, case.padding).size


@given(data=st.data())
def test_operands_stay_within_the_product_magnitude(data: st.DataObject) -> None:
    choices: list[np.dtype[Any]] = [np.dtype(np.float16), np.dtype(np.int8), np.dtype(np.float32)]
    dtype = data.draw(st.sampled_from(choices))
    x = data.draw(hh.operands(dtype, (8,)))
    assert np.abs(x.astype(np.float64)).max() <= hh.PRODUCT_MAGNITUDE[dtype.name]


# -- memory pools: helpers and strategy -----------------------------------------------------------------------------


def _pool_stats(**fields: Any) -> wia.PoolStats:
    """PoolStats without validation (model_construct), so that out-of-range values can be made."""
    base: dict[str, Any] = {
        "num_allocations": 4,
        "num_frees": 2,
        "cache_hits": 3,
        "cache_misses": 1,
        "cache_hit_rate": 0.75,
        "fragmentation": 0.25,
        "bytes_in_use": 1024,
        "bytes_requested": 1000,
        "bytes_reserved": 4096,
        "peak_bytes_in_use": 2048,
        "peak_bytes_reserved": 4096,
        "num_segments": 1,
        "num_segment_releases": 0,
    }
    return wia.PoolStats.model_construct(**{**base, **fields})


def test_assert_pool_stats_valid_passes_consistent_stats() -> None:
    ph.assert_pool_stats_valid(_pool_stats(), "get_pool_stats(p)")
    fresh = _pool_stats(
        num_allocations=0, num_frees=0, cache_hits=0, cache_misses=0, cache_hit_rate=0.0, bytes_in_use=0,
        bytes_requested=0, peak_bytes_in_use=0,
    )  # fmt: skip
    ph.assert_pool_stats_valid(fresh, "get_pool_stats(new pool)")


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"cache_hit_rate": 1.5}, "a rate in [0, 1]"),
        ({"fragmentation": -0.1}, "a rate in [0, 1]"),
        ({"fragmentation": True}, "a rate in [0, 1]"),
        ({"num_allocations": -1}, "an int >= 0"),
        ({"num_allocations": 2.0}, "an int"),
        ({"peak_bytes_in_use": 512}, "at least bytes_in_use=1024"),
        ({"peak_bytes_reserved": 2048}, "at least bytes_reserved=4096"),
        ({"bytes_in_use": 8192, "peak_bytes_in_use": 8192}, "at most bytes_reserved=4096"),
        ({"bytes_requested": 2000}, "at most bytes_in_use=1024"),
        ({"cache_hit_rate": 0.5}, "cache_hits / (cache_hits + cache_misses) = 0.75"),
        ({"cache_hits": 5, "cache_misses": 0, "cache_hit_rate": 1.0}, "at most num_allocations=4"),
    ],
)
def test_assert_pool_stats_valid_failures(fields: dict[str, Any], expected: str) -> None:
    text = failure_message(ph.assert_pool_stats_valid, _pool_stats(**fields), "get_pool_stats(p)")
    assert MESSAGE_SHAPE.match(text), text
    assert expected in text, text


def test_assert_pool_stats_valid_needs_pool_stats() -> None:
    text = failure_message(ph.assert_pool_stats_valid, {"num_allocations": 0}, "get_pool_stats(p)")
    assert "of type PoolStats" in text


def test_assert_pool_stats_valid_checks_only_the_spec_fields_when_alone() -> None:
    """A backend's PoolStats with only the spec's fields (R-3.5.2-04) is checked on those."""

    spec_fields: dict[str, Any] = {"num_allocations": 3, "cache_hit_rate": 0.5, "fragmentation": 0.0}
    minimal = wia.PoolStats.model_construct(**spec_fields)
    assert not hasattr(minimal, "cache_hits") and not hasattr(minimal, "bytes_in_use")
    ph.assert_pool_stats_valid(minimal, "get_pool_stats(p)")
    text = failure_message(ph.assert_pool_stats_valid, minimal.model_copy(update={"fragmentation": 2.0}), "s")
    assert "a rate in [0, 1]" in text


def test_rounded_to_block() -> None:
    assert [ph.rounded_to_block(n, 256) for n in (1, 255, 256, 257, 512)] == [256, 256, 256, 512, 512]
    assert ph.rounded_to_block(1000, 1) == 1000


@given(hh.pool_configs())
def test_pool_configs_are_valid_memory_pool_configs(config: wia.PoolConfig) -> None:
    assert not config.is_pooling
    assert config.block_size in hh.BLOCK_SIZES and config.initial_size % config.block_size == 0
    assert config.max_size is None or config.initial_size <= config.max_size <= 16 * hh.MiB
    assert 0.0 <= config.defragment_threshold <= 1.0


def test_pool_configs_draw_every_field() -> None:
    find(hh.pool_configs(), lambda c: c.max_size is not None and c.initial_size > 0 and not c.enable_caching)
    find(hh.pool_configs(), lambda c: c.max_size is None and c.block_size == 1)
