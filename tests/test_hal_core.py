"""The HAL core on the sim backend: selection, discovery, contexts, memory, copies, error details."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest

import wia_hal as wia
from wia_hal.backends.sim import SimBackend
from wia_sim.hwmodel import available_models, load_model

MT = wia.MemoryType


def test_sim_is_registered_through_the_entry_point_group() -> None:
    assert "sim" in wia.available_backends()


@pytest.mark.parametrize("name", [n for n in available_models()])
def test_every_shipped_model_can_back_the_sim(name: str) -> None:
    wia.set_backend("sim", hardware=name, devices=2)
    model = load_model(name)
    assert wia.get_device_count() == 2
    info = wia.get_device_info(wia.get_device(1))
    assert info.name == model.display_name
    assert info.compute_units == model.compute.compute_units
    assert info.memory_size == int(model.memory.size)
    assert info.peak_flops == model.compute.peak_flops["float32"] == info.peak_flops_by_precision["float32"]
    caps = wia.get_device_capabilities(wia.get_device(0))
    assert caps.supports_bfloat16 == ("bfloat16" in model.compute.peak_flops)
    assert caps.max_work_group_size == model.compute.max_work_group_size


def test_environment_selects_backend_and_options() -> None:
    code = (
        "import wia_hal as wia; b = wia.get_backend(); "
        "print(b.name, wia.get_device_count(), wia.get_device_info(wia.get_device(0)).name, b.numerics)"
    )
    env = dict(os.environ, WIA_BACKEND="sim", WIA_SIM_HARDWARE="wia-tiny", WIA_SIM_DEVICES="3", WIA_SIM_NUMERICS="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["sim", "3", "WIA", "Tiny", "(test", "device)", "False"]


def test_environment_with_an_unknown_model_fails_with_the_list() -> None:
    code = "import wia_hal as wia\ntry:\n    wia.get_device_count()\nexcept wia.InvalidValueError as e:\n    print(e)"
    env = dict(os.environ, WIA_SIM_HARDWARE="no-such-chip")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert "no-such-chip" in out and "wia-tiny" in out


def test_default_hardware_is_a_mid_range_real_device() -> None:
    backend = SimBackend()
    assert backend.model.name == "nvidia-a100-sxm4-80gb"


def test_switching_models_between_sweeps() -> None:
    bandwidths = []
    for name in ("wia-tiny", "nvidia-v100-sxm2-32gb", "nvidia-a100-sxm4-80gb"):
        wia.set_backend("sim", hardware=name)
        ctx = wia.create_context()
        bandwidths.append(wia.get_device_info(ctx.device).memory_bandwidth)
        wia.destroy_context(ctx)
    assert bandwidths == sorted(bandwidths) and len(set(bandwidths)) == 3


@pytest.mark.parametrize(("src_type", "dst_type"), list(itertools.product(MT, MT)))
def test_copy_async_between_every_pair_of_memory_types(src_type: MT, dst_type: MT) -> None:
    ctx = wia.create_context()
    n = 4099
    payload = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8)
    staging = wia.alloc(ctx, n, MT.PINNED)
    src, dst = wia.alloc(ctx, n, src_type), wia.alloc(ctx, n, dst_type)
    stream = wia.create_stream(ctx)
    wia.memory_ptr(staging)[:] = payload
    wia.copy_async(staging, src, n, stream)
    wia.copy_async(src, dst, n - 3, stream, src_offset=3)
    out = wia.alloc(ctx, n, MT.HOST)
    wia.copy_async(dst, out, n - 3, stream)
    wia.stream_synchronize(stream)
    np.testing.assert_array_equal(wia.memory_ptr(out)[: n - 3], payload[3:])


def test_memory_ptr_is_a_writable_byte_view_of_host_visible_memory() -> None:
    for memory_type in (MT.HOST, MT.PINNED, MT.UNIFIED, MT.MANAGED):
        mem = wia.alloc(None, 100, memory_type)
        view = wia.memory_ptr(mem)
        assert view.dtype == np.uint8 and view.shape == (100,) and view.flags.writeable
        view[:] = 9
        assert (wia.memory_ptr(mem) == 9).all()


def test_memory_limit_counts_every_allocation_of_the_context() -> None:
    ctx = wia.create_context()
    wia.context_set_memory_limit(ctx, 10_000)
    a = wia.alloc(ctx, 6_000, MT.DEVICE)
    with pytest.raises(wia.OutOfMemoryError, match="limit"):
        wia.alloc(ctx, 6_000, MT.PINNED)
    b = wia.alloc(ctx, 4_000, MT.HOST)
    wia.free(a)
    wia.alloc(ctx, 6_000, MT.UNIFIED)
    assert ctx.bytes_allocated == 10_000
    wia.free(b)


def test_compute_in_context_makes_the_context_current() -> None:
    ctx = wia.create_context()

    def work(x: float) -> np.ndarray:
        t = wia.tensor(np.array([x], np.float32))
        assert t.context is ctx
        return wia.add(t, t).numpy()

    np.testing.assert_array_equal(wia.compute_in_context(ctx, work, 2.0), [4.0])


def test_user_exceptions_pass_through_compute_in_context() -> None:
    ctx = wia.create_context()

    def fail() -> None:
        raise KeyError("mine")

    with pytest.raises(KeyError, match="mine"):
        wia.compute_in_context(ctx, fail)


def test_contexts_on_two_devices_run_independently() -> None:
    wia.set_backend("sim", hardware="wia-tiny", devices=2)
    c0 = wia.create_context(wia.ContextConfig(device_id=0))
    c1 = wia.create_context(wia.ContextConfig(device_id=1, flags=wia.ContextFlags.EXCLUSIVE))
    a = wia.tensor(np.ones(8, np.float32), ctx=c0)
    b = wia.tensor(np.full(8, 2.0, np.float32), ctx=c1)
    np.testing.assert_array_equal(wia.add(a, a).numpy(), 2.0)
    np.testing.assert_array_equal(wia.mul(b, b).numpy(), 4.0)
    heaps = wia.get_backend().machine.devices  # type: ignore[attr-defined]
    assert heaps[0].heap.bytes_in_use > 0 and heaps[1].heap.bytes_in_use > 0


def test_destroy_context_finishes_work_and_frees_everything() -> None:
    ctx = wia.create_context()
    heap = wia.get_backend().machine.devices[0].heap  # type: ignore[attr-defined]
    a = wia.tensor(np.ones(1 << 16, np.float32), ctx=ctx)
    stream = wia.create_stream(ctx)
    for _ in range(5):
        a = wia.add(a, a, stream=stream)
    wia.destroy_context(ctx)
    assert heap.bytes_in_use == 0
    assert not stream.context.streams
    with pytest.raises(wia.InvalidContextError):
        wia.create_stream(ctx)


def test_max_streams_of_the_config() -> None:
    ctx = wia.create_context(wia.ContextConfig(max_streams=2))
    wia.create_stream(ctx)
    s = wia.create_stream(ctx)
    with pytest.raises(wia.InvalidValueError, match="maximum of 2 streams"):
        wia.create_stream(ctx)
    wia.destroy_stream(s)
    wia.create_stream(ctx)


def test_error_details_name_the_users_call_site() -> None:
    ctx = wia.create_context()
    with pytest.raises(wia.InvalidValueError):
        wia.alloc(ctx, 0)
    line = sys._getframe().f_lineno - 1
    for details in (wia.get_error_details(ctx), wia.get_error_details()):
        assert details.code is wia.ErrorCode.INVALID_VALUE
        assert details.file == __file__
        assert details.line == line
        assert details.function == "test_error_details_name_the_users_call_site"
        assert "size must be positive" in details.message


def test_error_details_find_the_context_passed_by_keyword() -> None:
    ctx = wia.create_context()
    with pytest.raises(wia.InvalidValueError):
        wia.zeros((-1,), ctx=ctx)
    details = wia.get_error_details(ctx)
    assert details.code is wia.ErrorCode.INVALID_VALUE and details.file == __file__


def test_set_backend_takes_unset_options_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WIA_SIM_DEVICES", "3")
    wia.set_backend("sim", hardware="wia-tiny")
    assert wia.get_device_count() == 3
    with pytest.warns(wia.OptionOverrideWarning, match="WIA_SIM_DEVICES='3'"):
        wia.set_backend("sim", hardware="wia-tiny", devices=1)
    assert wia.get_device_count() == 1


def test_error_details_without_an_error_say_success() -> None:
    ctx = wia.create_context()
    details = wia.get_error_details(ctx)
    assert details.code is wia.ErrorCode.SUCCESS and details.message


def test_every_code_has_a_distinct_error_string() -> None:
    strings = {wia.get_error_string(code) for code in wia.ErrorCode}
    assert len(strings) == len(wia.ErrorCode) and all(strings)


def test_internal_faults_surface_as_wia_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = wia.create_context()
    backend = wia.get_backend()

    def broken(*args: object) -> None:
        raise RuntimeError("simulated fault")

    monkeypatch.setattr(backend, "launch_op", broken)
    t = wia.tensor(np.ones(2, np.float32), ctx=ctx)
    with pytest.raises(wia.InternalError, match="simulated fault") as info:
        wia.relu(t)
    assert info.value.code is wia.ErrorCode.INTERNAL
    assert isinstance(info.value.__cause__, RuntimeError)


def test_a_fault_inside_a_kernel_is_reported_and_the_device_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from wia_sim.library import OPS, OpSpec

    def broken(arrays: object, attrs: object, out_dtype: object) -> None:
        raise FloatingPointError("simulated fault in the numerics")

    ctx = wia.create_context()
    t = wia.tensor(np.ones(4, np.float32), ctx=ctx)
    monkeypatch.setitem(OPS, "relu", OpSpec("relu", OPS["relu"].cost, broken))  # type: ignore[arg-type]
    wia.relu(t)
    with pytest.raises(wia.InternalError, match=r"kernel relu.*simulated fault"):
        wia.context_synchronize(ctx)
    monkeypatch.undo()
    np.testing.assert_array_equal(wia.add(t, t).numpy(), 2.0)  # the machine still runs


def test_a_tensor_dropped_on_another_thread_is_released_on_the_main_thread() -> None:
    """A backend's worker thread may run the garbage collector; the HAL's bookkeeping stays on the main thread."""
    import threading

    ctx = wia.create_context(wia.ContextConfig(default_pool=False))  # each tensor its own allocation
    holder = [wia.tensor(np.ones(1024, np.float32), ctx=ctx)]
    held = ctx.bytes_allocated
    dropper = threading.Thread(target=holder.clear)
    dropper.start()
    dropper.join()
    assert ctx.bytes_allocated == held  # not released on the worker thread
    kept = wia.tensor(np.ones(4, np.float32), ctx=ctx)  # the next allocation releases it first
    assert ctx.bytes_allocated == held - 4096 + kept.nbytes
    wia.destroy_context(ctx)


def test_memory_gc_releases_tensors_dropped_on_another_thread() -> None:
    """A program whose worker threads dropped tensors, then released everything and ran memory_gc, holds nothing:
    the drops waited for the next allocation before (found by tests/test_api_abuse.py: bytes in use after
    teardown)."""
    import threading

    ctx = wia.create_context()
    holder = [wia.tensor(np.ones(1024, np.float32), ctx=ctx)]
    dropper = threading.Thread(target=holder.clear)
    dropper.start()
    dropper.join()
    assert ctx.bytes_in_use > 0
    wia.memory_gc(ctx)
    assert (ctx.bytes_in_use, ctx.bytes_allocated) == (0, 0)
    wia.destroy_context(ctx)


def test_a_tensor_finalised_during_context_teardown_is_freed_once() -> None:
    """Releasing memory may run the garbage collector, which may finalise a tensor whose memory the teardown has
    yet to release: each buffer still goes back to the backend exactly once."""
    backend = SimBackend(hardware="wia-tiny")
    wia.set_backend(backend)
    ctx = wia.create_context(wia.ContextConfig(default_pool=False))  # each tensor its own allocation
    holder = [wia.tensor(np.ones(256, np.float32), ctx=ctx) for _ in range(3)]
    freed: list[object] = []
    original = backend.free

    def free(buffer: object) -> None:
        freed.append(buffer)
        holder.clear()  # the tensors' finalisers run now, in the middle of the teardown
        original(buffer)  # type: ignore[arg-type]

    backend.free = free  # type: ignore[method-assign]
    wia.destroy_context(ctx)
    assert len(freed) == 3 and len({id(b) for b in freed}) == 3
    wia.set_backend("sim")


def test_a_tensor_finalised_inside_a_public_call_is_released_after_it() -> None:
    """The garbage collector may finalise a tensor while a public call is changing the pool its memory belongs to;
    the release waits until the call is over (seen as 'dictionary changed size during iteration' in a pool)."""
    backend = SimBackend(hardware="wia-tiny")
    wia.set_backend(backend)
    ctx = wia.create_context(wia.ContextConfig(memory_pool_size=1 << 20))
    pool = ctx.default_pool
    assert pool is not None
    a = wia.tensor(np.ones(256, np.float32), ctx=ctx)
    holder = [wia.tensor(np.ones(256, np.float32), ctx=ctx)]
    dropped = holder[0].nbytes  # 1 KiB: a multiple of the pool's 256-byte blocks
    in_use = wia.get_pool_stats(pool).bytes_in_use
    original = backend.launch_op
    seen: list[int] = []

    def launch_op(*args: object) -> object:
        holder.clear()  # the tensor's finaliser runs now, inside relu
        seen.append(wia.get_pool_stats(pool).bytes_in_use)
        return original(*args)  # type: ignore[arg-type]

    backend.launch_op = launch_op  # type: ignore[method-assign]
    b = wia.relu(a)
    backend.launch_op = original  # type: ignore[method-assign]
    assert seen == [in_use + b.nbytes]  # not released inside the call (relu's output is allocated already)
    kept = wia.tensor(np.ones(4, np.float32), ctx=ctx)  # the next allocation releases it first
    assert wia.get_pool_stats(pool).bytes_in_use == in_use - dropped + b.nbytes + 256 * -(-kept.nbytes // 256)
    wia.destroy_context(ctx)
    wia.set_backend("sim")


@pytest.mark.parametrize("shared", [False, True], ids=["a context each", "one shared context"])
def test_several_host_threads_drive_the_simulator_concurrently(shared: bool) -> None:
    """A driver serves many host threads: 8 threads, each with its own context (or all on one), 50 small matmuls
    each, on one simulated device; every result right, nothing INTERNAL (before: SimulationStalled in 3-7 of 8)."""
    import threading

    wia.set_backend("sim", hardware="wia-tiny")
    common = wia.create_context() if shared else None
    failures: list[str] = []
    results: dict[int, np.ndarray] = {}

    def work(i: int) -> None:
        try:
            ctx = common if common is not None else wia.create_context()
            stream = wia.create_stream(ctx)
            a = np.random.default_rng(i).random((16, 16), np.float32)
            t = wia.tensor(a, ctx=ctx, stream=stream)
            r = t
            for _ in range(50):
                r = wia.matmul(t, t, stream=stream)
            results[i] = r.numpy()
            if common is None:
                wia.destroy_context(ctx)
            else:
                wia.destroy_stream(stream)
        except Exception as e:  # collected: an exception in a thread would otherwise be lost
            failures.append(f"thread {i}: {type(e).__name__}: {e}")

    for _ in range(3):
        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []
    for i, r in results.items():
        a = np.random.default_rng(i).random((16, 16), np.float32).astype(np.float64)
        np.testing.assert_allclose(r, a @ a, rtol=1e-5)
