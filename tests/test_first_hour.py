"""What a new user trips over in the first hour (issue 12): which chip a run used and who chose it, errors that say
where a value came from and what was probably meant, tracebacks no heavier than their messages, start-up time."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

import wia_hal as wia
from wia_sim.hwmodel import HardwareModelError, load_model, model_path

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "hardware_models" / "wia-tiny.toml"
E = wia.ErrorCode


def _raises(cls: type[Exception], fn: Callable[..., object], *args: object, **kwargs: object) -> str:
    """The message of the ``cls`` that ``fn(*args, **kwargs)`` raises."""
    with pytest.raises(cls) as info:
        fn(*args, **kwargs)
    return str(info.value)


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WIA_")}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=clean | env, cwd=ROOT, timeout=120
    )


# 1. the environment, explicit options, and which model a run used


def test_an_explicit_option_that_overrides_the_environment_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_SIM_HARDWARE", "nvidia-h200-sxm-141gb")
    with pytest.warns(wia.OptionOverrideWarning, match=r"WIA_SIM_HARDWARE='nvidia-h200-sxm-141gb'.*wia-tiny") as rec:
        wia.set_backend("sim", hardware="wia-tiny")
    assert rec[0].filename == __file__  # at the user's line, not inside the HAL
    assert wia.get_device_info(wia.get_device(0)).name == "WIA Tiny (test device)"  # explicit wins


def test_the_same_value_in_both_places_does_not_warn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_SIM_HARDWARE", "wia-tiny")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        wia.set_backend("sim", hardware="wia-tiny")


def test_the_environment_is_used_when_no_option_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_SIM_HARDWARE", str(TINY))
    wia.set_backend("sim")
    info = wia.get_device_info(wia.get_device(0))
    assert info.model_file == str(TINY)


def test_device_info_names_the_model_file() -> None:
    wia.set_backend("sim", hardware="wia-tiny")
    assert Path(wia.get_device_info(wia.get_device(0)).model_file) == model_path("wia-tiny")


def test_the_quickstart_honors_the_environment_and_says_which_model_it_ran(tmp_path: Path) -> None:
    text = (ROOT / "hardware_models" / "nvidia-h100-sxm5-80gb.toml").read_text()
    faster = re.sub(r'(?m)^bandwidth = "3350 GB/s"', 'bandwidth = "6700 GB/s"', text)
    assert faster != text
    chip = tmp_path / "h100-2x-bw.toml"
    chip.write_text(faster.replace('name = "nvidia-h100-sxm5-80gb"', 'name = "h100-2x-bw"'))
    stock = _run(Path(ROOT / "examples" / "quickstart.py").read_text())
    doubled = _run(Path(ROOT / "examples" / "quickstart.py").read_text(), WIA_SIM_HARDWARE=str(chip))
    assert stock.returncode == 0 and doubled.returncode == 0, stock.stderr + doubled.stderr
    assert str(chip) in doubled.stdout and "nvidia-h100-sxm5-80gb.toml" in stock.stdout

    def ms(out: str) -> float:
        return float(re.search(r"([0-9.]+) ms simulated", out).group(1))  # type: ignore[union-attr]

    assert ms(doubled.stdout) < 0.95 * ms(stock.stdout)  # add + relu is memory-bound: more bandwidth is faster
    broken = _run(Path(ROOT / "examples" / "quickstart.py").read_text(), WIA_SIM_HARDWARE=str(tmp_path / "no.toml"))
    assert broken.returncode != 0 and "no such file" in broken.stderr


# 5. one clean error, where the value came from, what was probably meant


def test_a_misspelt_chip_name_suggests_the_shipped_one() -> None:
    error = _raises(wia.InvalidValueError, wia.set_backend, "sim", hardware="nvidia-h100")
    assert "did you mean 'nvidia-h100-sxm5-80gb'?" in str(error)
    error = _raises(wia.InvalidValueError, wia.set_backend, "sim", hardware="nvidia-h10-sxm5-80gb")
    assert "'nvidia-h100-sxm5-80gb'" in str(error).split("expected")[0]


def test_a_misspelt_option_lists_the_valid_ones_and_suggests_one() -> None:
    error = _raises(wia.InvalidValueError, wia.set_backend, "sim", hardwre="wia-tiny")
    message = str(error)
    assert "no option 'hardwre'" in message and "did you mean 'hardware'?" in message
    assert "hardware, devices, numerics" in message
    assert "__init__" not in message and "unexpected keyword" not in message


def test_a_misspelt_option_in_the_environment_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_SIM_NUMERIC", "0")
    error = _raises(wia.InvalidValueError, wia.set_backend, "sim")
    assert "WIA_SIM_NUMERIC in the environment" in str(error) and "did you mean 'numerics'?" in str(error)


def test_a_bad_value_from_the_environment_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_SIM_DEVICES", "two")
    error = _raises(wia.InvalidValueError, wia.set_backend, "sim")
    assert "devices='two'" in str(error) and "set in the environment: WIA_SIM_DEVICES='two'" in str(error)


def test_an_unknown_backend_from_the_environment_says_so() -> None:
    done = _run("import wia_hal as wia; wia.create_context()", WIA_BACKEND="sin")
    assert "unknown backend 'sin' (from WIA_BACKEND in the environment) (did you mean 'sim'?)" in done.stderr


def test_a_user_error_prints_one_exception_without_library_internals() -> None:
    done = _run("import wia_hal as wia\nwia.set_backend('sim', hardware='nvidia-h100')")
    lines = done.stderr.strip().splitlines()
    assert lines[0] == "Traceback (most recent call last):"
    assert lines[-1].startswith("wia_hal.errors.InvalidValueError: unknown hardware model 'nvidia-h100'")
    assert "direct cause" not in done.stderr and "During handling" not in done.stderr
    assert done.stderr.count("unknown hardware model") == 1
    assert len(lines) <= 6, done.stderr  # the user's line and the one frame that raises it
    full = _run("import wia_hal as wia\nwia.set_backend('sim', hardware='nvidia-h100')", WIA_FULL_TRACEBACK="1")
    assert "runtime.py" in full.stderr  # every frame, on request


def test_an_internal_error_keeps_its_whole_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    backend = wia.get_backend()

    def broken(*args: object, **kwargs: object) -> None:
        raise ZeroDivisionError("a bug in the backend")

    monkeypatch.setattr(backend, "synchronize", broken)
    with pytest.raises(wia.InternalError) as info:
        wia.context_synchronize(ctx)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_the_simulators_finding_is_kept_on_the_error_but_not_chained() -> None:
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    source = "__kernel void k(__global float* x) { x[get_global_id(0) + 1] = 1.0f; }"
    kernel = wia.compile_kernel(ctx, source, "k")
    x = wia.tensor(np.ones(8, np.float32), ctx=ctx)
    wia.set_kernel_arg(kernel, 0, x)
    with pytest.raises(wia.WiaError) as info:
        wia.launch_kernel(kernel, wia.LaunchConfig(global_size=(8,), local_size=(8,)))
    error = info.value
    assert error.__cause__ is None and error.__suppress_context__
    assert getattr(error.cause, "check", None) == "out_of_bounds_global"


def test_a_misspelt_config_field_suggests_the_field() -> None:
    message = _raises(wia.InvalidValueError, wia.ContextConfig, enable_profilng=True)
    assert "enable_profilng: no such field (did you mean 'enable_profiling'?) (got True)" in message
    assert "ContextConfig's fields: device_id, " in message


def test_a_hardware_model_error_echoes_the_value_as_written(tmp_path: Path) -> None:
    text = TINY.read_text().replace('bandwidth = "50 GB/s"', 'bandwidth = "-50 GB/s"')
    text = text.replace('clock = "1000 MHz"', 'clokc = "1000 MHz"')
    text = text.replace('float32 = "0.5 TFLOP/s"', 'float32 = "0 TFLOP/s"')
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    message = _raises(HardwareModelError, load_model, bad)
    assert "memory.bandwidth: Input should be greater than 0 (got '-50 GB/s')" in message
    assert "compute.peak_flops.float32: Input should be greater than 0 (got '0 TFLOP/s')" in message
    assert "compute.clokc: unknown key (not in the hardware model schema) (got '1000 MHz') (did you mean 'clock'?)" in (
        message
    )
    assert "e+" not in message  # never the converted number


# 6. validation gaps


def test_a_missing_model_file_is_file_not_found(tmp_path: Path) -> None:
    missing = tmp_path / "chip.toml"
    message = _raises(HardwareModelError, model_path, str(missing))
    assert message == f"hardware model file {missing}: no such file"
    assert "no such file" in _raises(HardwareModelError, model_path, "chips/mine.toml")
    assert "is a directory" in _raises(HardwareModelError, model_path, str(tmp_path))
    text = tmp_path / "chip.txt"
    text.write_text("x = 1")
    assert "expected a .toml file" in _raises(HardwareModelError, model_path, str(text))
    assert "unknown hardware model 'mi300x'" in _raises(HardwareModelError, model_path, "mi300x")


def test_freeing_a_tensors_own_memory_is_refused_and_the_tensor_survives() -> None:
    wia.set_backend("sim", hardware="wia-tiny")
    ctx = wia.create_context()
    data = np.random.default_rng(0).random(16, np.float32)
    for pooled in (True, False):
        t = wia.tensor(data, ctx=ctx) if pooled else wia.tensor(data, ctx=ctx, memory=wia.MemoryType.UNIFIED)
        error = _raises(wia.InvalidMemoryError, wia.free, t.memory)
        assert "holds a tensor's data" in str(error) and "release_tensor" in str(error)
        np.testing.assert_array_equal(wia.add(t, t).numpy(), data + data)  # nothing was freed
    pool = wia.create_memory_pool(ctx, wia.PoolConfig(initial_size=1 << 16))
    t = wia.tensor(data, ctx=ctx)
    error = _raises(wia.InvalidMemoryError, wia.free_to_pool, pool, t.memory)
    assert "holds a tensor's data" in str(error)


@pytest.mark.parametrize("scalar", [0.125, 2, np.float32(0.5), True])
def test_a_scalar_operand_names_the_op_and_the_argument(scalar: object) -> None:
    wia.set_backend("sim", hardware="wia-tiny")
    t = wia.tensor(np.ones(4, np.float32))
    np.testing.assert_array_equal(wia.mul(t, scalar).numpy(), np.ones(4, np.float32) * scalar)  # binary ops take one
    message = _raises(wia.InvalidValueError, wia.matmul, t, scalar)
    assert message.startswith(f"matmul: b must be a wia Tensor, got the scalar {type(scalar).__name__}")
    assert "this operand takes no scalar" in message and "0-d tensor" in message
    message = _raises(wia.InvalidValueError, wia.matmul, [[1.0]], t)
    assert message == "matmul: a must be a wia Tensor, got list"


def test_the_0d_tensor_the_message_suggests_works() -> None:
    wia.set_backend("sim", hardware="wia-tiny")
    data = np.random.default_rng(1).random((3, 4), np.float32)
    scaled = wia.mul(wia.tensor(data), wia.tensor(np.float32(0.125)))
    np.testing.assert_allclose(scaled.numpy(), data.astype(np.float64) * 0.125, rtol=1e-6)


# 4. start-up


def test_start_up_loads_neither_the_kernel_front_end_nor_a_slow_ml_dtypes() -> None:
    """What makes ``import wia_hal`` and a what-if run's start slow, kept out: ml_dtypes 0.7 (its extension alone
    imports in ~1 s), and the kernel front end (pycparser, the checker) until a kernel is compiled."""
    done = _run(
        "import sys, wia_hal as wia, ml_dtypes\n"
        "def loaded(): return sorted(m for m in sys.modules if m.startswith(('pycparser', 'matplotlib', 'pyopencl')))\n"
        "print(ml_dtypes.__version__, loaded(), sorted(m for m in sys.modules if m.startswith('wia_sim')))\n"
        "ctx = wia.create_context()\n"
        "print(loaded())\n"
        "wia.compile_kernel(ctx, '__kernel void k(__global float* x) { x[0] = 1.0f; }', 'k')\n"
        "print('pycparser' in loaded())\n"
    )
    assert done.returncode == 0, done.stderr
    imported, created, compiled = done.stdout.splitlines()
    version = imported.split()[0]
    assert tuple(int(p) for p in version.split(".")[:2]) < (0, 7), "ml_dtypes 0.7 alone imports in ~1 s"
    assert imported.endswith("[] []"), imported  # the HAL alone: no simulator, no front end
    assert created == "[]"  # the sim backend, without a kernel
    assert compiled == "True"


# 7. what the model file says is what the device claims


def test_the_devices_capabilities_follow_the_model_files_features(tmp_path: Path) -> None:
    text = TINY.read_text()
    for feature in ("profiling", "custom_kernels", "managed_memory", "pinned_memory"):
        assert f"\n{feature} = true" in text
        text = text.replace(f"\n{feature} = true", f"\n{feature} = false")
    chip = tmp_path / "plain.toml"
    chip.write_text(text.replace('name = "wia-tiny"', 'name = "plain"'))
    wia.set_backend("sim", hardware=str(chip))
    caps = wia.get_device_capabilities(wia.get_device(0))
    assert not (caps.supports_profiling or caps.supports_custom_kernels)
    assert not (caps.supports_managed_memory or caps.supports_pinned_memory)
    ctx = wia.create_context()
    message = _raises(wia.NotSupportedError, wia.enable_profiling, ctx)
    assert "supports_profiling is False" in message
