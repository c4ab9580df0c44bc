"""get_memory_usage / reset_peak_memory: the high-water mark a capacity study reads, numerics or not."""

from __future__ import annotations

import numpy as np
import pytest

import wia_hal as wia


@pytest.mark.parametrize("numerics", [True, False])
def test_peak_follows_allocations_and_resets(numerics: bool) -> None:
    wia.set_backend("sim", hardware="wia-tiny", numerics=numerics)
    ctx = wia.create_context()
    before = wia.get_memory_usage(ctx)
    assert before.bytes_in_use == 0 and before.memory_size == wia.get_device_info(ctx.device).memory_size
    a = wia.tensor(np.random.default_rng(1).standard_normal((64, 64)).astype(np.float32), ctx=ctx)
    b = wia.add(a, a)  # a second 16 KiB live at once
    mid = wia.get_memory_usage(ctx)
    assert mid.bytes_in_use >= 2 * a.nbytes and mid.peak_bytes_in_use >= mid.bytes_in_use
    wia.release_tensor(b)
    after = wia.get_memory_usage(ctx)
    assert after.bytes_in_use == mid.bytes_in_use - a.nbytes  # released, but the peak remembers it
    assert after.peak_bytes_in_use == mid.peak_bytes_in_use
    wia.reset_peak_memory(ctx)
    reset = wia.get_memory_usage(ctx)
    assert reset.peak_bytes_in_use == reset.bytes_in_use and reset.peak_bytes_allocated == reset.bytes_allocated
    wia.destroy_context(ctx)


def test_timing_only_read_is_invalid_value_saying_why() -> None:
    wia.set_backend("sim", hardware="wia-tiny", numerics=False)
    t = wia.add(wia.empty((4, 4)), wia.empty((4, 4)))
    with pytest.raises(wia.InvalidValueError, match="timing-only mode"):
        t.numpy()
    host = wia.alloc(None, 64, wia.MemoryType.HOST)
    with pytest.raises(wia.InvalidValueError, match="timing-only mode"):
        wia.memory_ptr(host)
