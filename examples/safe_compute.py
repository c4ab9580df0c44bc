"""The spec's ``safe_compute`` (WIA-AI-011 3.9) in Python, run under injected faults: OUT_OF_MEMORY (memory_gc and
retry), TIMEOUT (a longer timeout and retry) and DEVICE_LOST (reset_device; the caller uploads its data again).

Run: ``python examples/safe_compute.py`` (a few seconds). The faults come from the fault-injection extension
(docs/faults.md), which the sim backend offers; an unmodified program can get the same with ``WIA_FAULTS``.
"""

import sys

import numpy as np

import wia_hal as wia

E = wia.ErrorCode


def compute(ctx: wia.Context, x: wia.Tensor) -> wia.Tensor:
    """The work: ``relu(x @ x)``, waited for, so that a failure on the device is seen here."""
    y = wia.relu(wia.matmul(x, x))
    wia.context_synchronize(ctx)
    return y


def safe_compute(ctx: wia.Context, x: wia.Tensor, attempts: int = 3) -> wia.Tensor | wia.ErrorCode:
    """The result, or the code of an error it could not recover from (DEVICE_LOST after resetting the device: the
    device's data is gone, so the caller must upload ``x`` again)."""
    try:
        return compute(ctx, x)
    except wia.WiaError as err:
        details = wia.get_error_details(ctx)
        print(f"  error: {wia.get_error_string(err.code)}")
        print(f"    code:     {details.code.name} ({int(details.code)})")
        print(f"    file:     {details.file}:{details.line}")
        print(f"    function: {details.function}")
        print(f"    message:  {details.message}")
        if attempts <= 1:
            return err.code
        if err.code is E.OUT_OF_MEMORY:
            released = wia.memory_gc(ctx)  # release what the pools cache, then retry
            print(f"  -> memory_gc released {released >> 20} MiB; retrying")
            return safe_compute(ctx, x, attempts - 1)
        if err.code is E.DEVICE_LOST:
            wia.reset_device(ctx)  # re-initialise: the context works again, device memory is gone
            print("  -> reset_device: the context works again; device data was lost")
            return E.DEVICE_LOST
        if err.code is E.TIMEOUT:
            wia.set_timeout(ctx, 60_000)  # 60 s
            print("  -> set_timeout(ctx, 60000); retrying")
            return safe_compute(ctx, x, attempts - 1)
        return err.code


def report(result: wia.Tensor | wia.ErrorCode, expected: np.ndarray) -> None:
    if isinstance(result, wia.ErrorCode):
        print(f"  result: {result.name}")
        return
    ok = np.allclose(result.numpy(), expected, rtol=1e-4, atol=1e-3)
    print(f"  result: {result.shape} {'correct' if ok else 'WRONG'}")
    if not ok:
        sys.exit(1)


def main() -> None:
    wia.set_backend("sim")
    if not wia.get_device_capabilities(wia.get_device(0)).supports_fault_injection:
        sys.exit("this backend does not offer fault injection (docs/faults.md)")
    data = np.random.default_rng(0).standard_normal((1024, 1024), np.float32)
    expected = np.maximum(data.astype(np.float64) @ data.astype(np.float64), 0.0)
    ctx = wia.create_context()
    x = wia.tensor(data, ctx=ctx)  # 4 MiB: a pool segment of its own, full

    print("1. OUT_OF_MEMORY at the next allocation")
    wia.release_tensor(wia.zeros((256, 1024), ctx=ctx))  # the pool caches its 2 MiB segment: too small for the result
    wia.inject_fault(wia.Fault(kind=wia.FaultKind.OUT_OF_MEMORY))
    report(safe_compute(ctx, x), expected)

    print("2. TIMEOUT: the device stalls for 50 ms, and the context's timeout is 10 ms")
    wia.set_timeout(ctx, 10)
    wia.inject_fault(wia.Fault(kind=wia.FaultKind.HANG, duration_ms=50.0))
    report(safe_compute(ctx, x), expected)

    print("3. DEVICE_LOST at the next op")
    wia.inject_fault(wia.Fault(kind=wia.FaultKind.DEVICE_LOST))
    result = safe_compute(ctx, x)
    report(result, expected)
    if result is E.DEVICE_LOST:
        try:
            x.numpy()
        except wia.InvalidMemoryError as e:
            print(f"  the input tensor: {e.code.name}: {e.message.split(': ', 1)[1][:60]}...")
        print("  uploading the input again from the host and retrying")
        x = wia.tensor(data, ctx=ctx)
        report(safe_compute(ctx, x), expected)

    stats = wia.get_fault_stats(0)
    print(f"faults fired: {stats.faults_fired}; simulated time: {wia.get_backend().clock_ms():.1f} ms")
    wia.destroy_context(ctx)


if __name__ == "__main__":
    main()
